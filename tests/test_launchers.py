"""Launcher facts: options shell scripts pass to the Python programs they run (extractors/launchers.py)."""

from extractors.launchers import extract_launcher

SCRIPT = """#!/bin/bash
# python train.py --lr 9   (a comment runs nothing)
accelerate launch train.py \\
    --learning-rate 3e-4 \\
    --betas "(0.9, 0.95)" --use_ema
python -m pkg.finetune --epochs=3 --name run1
echo --not-an-option 5
python eval.py --split "test
"""


def test_options_of_each_python_command_become_launcher_facts() -> None:
    found = extract_launcher(SCRIPT, "run.sh")
    assert [(f.name, f.value, f.line, f.end_line, f.context) for f in found.facts] == [
        ("learning_rate", 3e-4, 3, 5, "train.py"),
        ("betas", (0.9, 0.95), 3, 5, "train.py"),
        ("use_ema", True, 3, 5, "train.py"),
        ("epochs", 3, 6, 6, "pkg.finetune"),
        ("name", "run1", 6, 6, "pkg.finetune"),
    ]
    assert all(f.kind == "launcher" for f in found.facts)


def test_a_line_the_shell_cannot_split_is_a_warning_naming_it() -> None:
    found = extract_launcher(SCRIPT, "run.sh")
    assert [(w.file, w.line, w.message) for w in found.warnings] == [
        ("run.sh", 8, "shell line not split: No closing quotation")]


VARIABLES = """ROOT=/root
OUTPUT=${ROOT}/models
Actor_Lr=1.5e-5
export WD=0.1  # decoupled
for seed in 1 2 3; do
  python train.py --seed $seed --lr ${Actor_Lr} --wd "$WD" --out $OUTPUT --bs ${BS:-32} --steps ${STEPS}
done
N=4
N=8
torchrun --nproc_per_node=$N main.py --late $LATE
LATE=3
"""


def test_shell_variables_assigned_once_above_the_command_resolve() -> None:
    found = extract_launcher(VARIABLES, "run.sh")
    assert [(f.name, f.value, f.line) for f in found.facts] == [
        ("seed", "$seed", 6),            # a loop variable takes several values
        ("lr", 1.5e-5, 6),
        ("wd", 0.1, 6),
        ("out", "/root/models", 6),      # a value referring to another variable
        ("bs", 32, 6),                   # the default the reference writes
        ("steps", "${STEPS}", 6),        # never assigned
        ("nproc_per_node", "$N", 10),    # assigned twice
        ("late", "$LATE", 10),           # assigned only below the command
    ]


def test_recipes_of_a_justfile_run_through_uv_pass_options_and_templates_stay_text() -> None:
    recipe = ("synth-run method:\n"
              "  uv run scripts/synth.py run --method {{method}} --num_trials 10000\n"
              "train:\n"
              "  poetry run python train.py --lr $(LR)\n")
    found = extract_launcher(recipe, "justfile")
    assert [(f.name, f.value, f.line, f.context) for f in found.facts] == [
        ("method", "{{method}}", 2, "scripts/synth.py"),
        ("num_trials", 10000, 2, "scripts/synth.py"),
        ("lr", "$(LR)", 4, "train.py"),
    ]


def test_a_runners_own_options_before_the_program_do_not_name_the_program() -> None:
    script = ("accelerate launch --num_processes 4 train.py --lr 1e-4\n"
              "torchrun --nproc_per_node 8 -m pkg.train --epochs 3\n"
              "uv run --with rich tools/sweep --seed 7\n")
    found = extract_launcher(script, "run.sh")
    assert [(f.name, f.value, f.line, f.context) for f in found.facts] == [
        ("num_processes", 4, 1, "train.py"),  # the runner's option, kept as evidence for device counts
        ("lr", 1e-4, 1, "train.py"),
        ("nproc_per_node", 8, 2, "pkg.train"),
        ("epochs", 3, 2, "pkg.train"),
        ("with", "rich", 3, "tools/sweep"),
        ("seed", 7, 3, "tools/sweep"),
    ]


README = """# Project

Run `python train.py --lr 1` for a demo (inline code: prose, not a block).

```bash
# the full run
python train.py --env cheetah-run-v0 \\
    --config configs/dmc.gin --lr 3e-4
```

```console
$ python -m pkg.evaluate --env walker-walk-v0
```

```python
subprocess.run("python train.py --env hopper-hop-v0")
```

    python train.py --seed 7
"""


def test_a_readmes_shell_blocks_are_launcher_lines_at_their_readme_lines() -> None:
    from extractors.launchers import extract_documented

    lines, found = extract_documented(README, "README.md")
    assert len(lines) == len(README.splitlines())
    assert lines[2] == "" and lines[11] == "python -m pkg.evaluate --env walker-walk-v0"
    # only the lines of commands that run Python are kept: a block's comment (or a folder tree) is no launch
    assert lines[5] == "" and lines[6] == "python train.py --env cheetah-run-v0 \\"
    assert [(f.name, f.value, f.line, f.end_line, f.context) for f in found.facts] == [
        ("env", "cheetah-run-v0", 7, 8, "train.py"),
        ("config", "configs/dmc.gin", 7, 8, "train.py"),
        ("lr", 3e-4, 7, 8, "train.py"),
        ("env", "walker-walk-v0", 12, 12, "pkg.evaluate"),
        ("seed", 7, 19, 19, "train.py"),
    ]
    # each command that runs a program is a launch, with the options it passes (a default it leaves alone is used)
    assert [(x.line, x.program, x.options) for x in found.launches] == [
        (7, "train.py", ("env", "config", "lr")), (12, "pkg.evaluate", ("env",)), (19, "train.py", ("seed",))]


def test_a_word_naming_something_stays_text_and_a_number_a_number() -> None:
    script = "python run.py --env cheetah-run-v0 --sched cosine --betas [0.9,0.99] --n -1 --pair [a,b]\n"
    assert [(f.name, f.value) for f in extract_launcher(script, "run.sh").facts] == [
        ("env", "cheetah-run-v0"), ("sched", "cosine"), ("betas", (0.9, 0.99)), ("n", -1), ("pair", "[a,b]")]


def test_a_command_passing_no_option_is_still_a_launch_of_its_program() -> None:
    found = extract_launcher("python train.py\ntorchrun --nproc_per_node 2 train.py --lr 1e-4\necho done\n", "run.sh")
    assert [(x.line, x.program, x.options) for x in found.launches] == [
        (1, "train.py", ()), (2, "train.py", ("nproc_per_node", "lr"))]  # the runner's options stay facts too


def test_a_readme_command_the_shell_cannot_split_is_a_warning_at_its_readme_line() -> None:
    from extractors.launchers import extract_documented

    _, found = extract_documented("# Run\n\n```bash\npython train.py --name 'unclosed\n```\n", "docs/README.md")
    assert found.facts == []
    assert [(w.file, w.line, w.message) for w in found.warnings] == [
        ("docs/README.md", 4, "shell line not split: No closing quotation")]
