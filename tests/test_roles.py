"""The syntactic roles the D3 and D4 rules read (issue 16): each mention's context from the call graph's scanner,
the role D3 gives it, the bounded manifest reader, and the call roles of D4, on small repositories written here."""

from pathlib import Path

import pytest

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import CALL, EXTERNAL, UNRESOLVED, CallSite
from extractors.repository import build_index
from rules import names, roles
from rules.d3_flow import Run, Source, claim_words, entry_named, flow, loop_runs, value_source
from rules.d3_loads import loader_values
from rules.d3_manifests import FIRST_LINES, launched_manifests
from rules.d3_protocol import (ROLE, TRACE, UNKNOWN, claimed_numbers, glued_in, literal_constants, role, squash,
                               term_matches)
from rules.d4_ordering import STRONG, WEAK, match_site, site_role, step_names, step_roles

SOURCE = '''import json
from datasets import load_dataset

PALETTE = b"\\x00\\x01"
ROOT = "data/tldr"
REPORTED = {"ppl": [12.0, 11.5]}


def main(parser):
    parser.add_argument("--data", default="tldr", help="the tldr split")
    tldr = load_dataset("tldr", split="train")
    scores = {"ppl": compute(tldr)}
    results = {}
    results["acc"] = 0.5
    plot(REPORTED["ppl"])
    use(PALETTE)
    return scores, results


if __name__ == "__main__":
    main(None)
'''


def _contexts(tmp_path: Path) -> dict[tuple[str, int, str], str]:
    (tmp_path / "run.py").write_text(SOURCE)
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    return {(m.text, m.line, m.kind): m.context for ms in graph.mentions.values() for m in ms}


def test_mention_contexts(tmp_path: Path) -> None:
    got = _contexts(tmp_path)
    assert got[("PALETTE", 4, "binding")] == "bind:literal"
    assert got[("data/tldr", 5, "string")] == "literal"
    assert got[("ppl", 6, "string")] == "key:literal"
    assert got[("tldr", 10, "string")] == "arg:parser.add_argument=default"
    assert got[("tldr", 11, "binding")] == "bind:call:load_dataset"  # the callee as written
    assert got[("tldr", 11, "string")] == "arg:load_dataset"
    assert got[("load_dataset", 11, "name")] == "call"
    assert got[("ppl", 12, "string")] == "key:computed"
    assert got[("acc", 14, "string")] == "key:literal"
    assert got[("ppl", 15, "string")] == "arg:plot"
    assert got[("PALETTE", 16, "name")] == "arg:use"


def test_roles_of_mentions(tmp_path: Path) -> None:
    (tmp_path / "run.py").write_text(SOURCE)
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    constants = literal_constants(index)
    assert "PALETTE" in constants and "ROOT" in constants and "tldr" not in constants
    by = {(m.text, m.line, m.kind): m for ms in graph.mentions.values() for m in ms}
    assert role("datasets", by[("tldr", 11, "string")], constants) == ROLE  # handed to a loader
    assert role("datasets", by[("tldr", 10, "string")], constants) == ROLE  # the argparse default
    assert role("datasets", by[("PALETTE", 16, "name")], constants) == TRACE  # a constant handed to no loader
    assert role("datasets", by[("data/tldr", 5, "string")], constants) == UNKNOWN  # a path whose use is not told
    assert role("metrics", by[("ppl", 6, "string")], constants) == TRACE  # a table of written-out numbers
    assert role("metrics", by[("ppl", 12, "string")], constants) == ROLE  # a key bound to a computed value
    assert role("metrics", by[("acc", 14, "string")], constants) == TRACE  # a key bound to a literal
    assert role("metrics", by[("ppl", 15, "string")], constants) == TRACE  # data handed to a plot


FLOW_SOURCE = '''VARIANTS = ["a", "b", "c"]
TABLE = {"gym": VARIANTS}


def main(kind):
    res = {}
    mcc = accuracy_score(kind, kind)
    res["mcc"] = float(mcc)
    total = 0
    total += mcc
    for i, v in enumerate(VARIANTS[1:2]):
        run(v)
    for w in VARIANTS[:n]:
        run(w)
    envs = TABLE[kind]
    for e in envs:
        print(e)
    return res


if __name__ == "__main__":
    main("gym")
'''


def test_mention_reads_loops_and_tables(tmp_path: Path) -> None:
    """What the scanner records for D3's value flow: a value's inputs, the loops' iterables with their slices and
    targets, the table a listed element belongs to, and names filled in after binding."""
    (tmp_path / "run.py").write_text(FLOW_SOURCE)
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    by = {(m.text, m.line, m.kind): m for ms in graph.mentions.values() for m in ms}
    assert by[("mcc", 8, "string")].reads == ("float()", "mcc")
    assert by[("mcc", 7, "binding")].reads == ("accuracy_score()", "kind")
    assert by[("VARIANTS", 11, "name")].context == "iter:1:2:i,v"
    assert by[("VARIANTS", 13, "name")].context == "iter::?:w"
    assert by[("envs", 16, "name")].context == "iter:::e"
    assert (by[("b", 1, "string")].within, by[("gym", 2, "string")].within) == ("VARIANTS:1", "TABLE:")
    assert by[("VARIANTS", 2, "name")].within == "TABLE:=gym"  # a dict's value, under its key
    data = flow(index)
    assert ("run.main", "res") in data.filled and ("run.main", "total") in data.filled
    runs = {text: loop_runs(by[(text, 1, "string")], data)[0] for text in "abc"}
    assert runs == {"a": Run.UNDECIDED, "b": Run.RUN, "c": Run.UNDECIDED}  # the [:n] loop may run a and c
    # a table's list whose items a loop only prints: nothing is shown to run
    (tmp_path / "run.py").write_text("X = ['p']\nT = {'k': X}\n\n\ndef main(k):\n    for e in T[k]:\n"
                                     "        print(e)\n    envs = T[k]\n    for e in envs:\n        print(e)\n\n\n"
                                     "if __name__ == '__main__':\n    main('k')\n")
    index = build_index(tmp_path, names.normalise)
    p = next(m for ms in index.analysis(build_call_graph).mentions.values() for m in ms if m.text == "p")
    assert loop_runs(p, flow(index))[0] == Run.UNDECIDED


def test_keyed_table_entries_serve_the_claim_naming_their_key(tmp_path: Path) -> None:
    """A table holding one task list under several keys, one entry slicing it (``"states": TASKS[:1]``): the slice
    keeps only its positions, and a claim naming one key counts only that entry (``rules.d3_flow.loop_runs``)."""
    (tmp_path / "run.py").write_text(
        "TASKS = ['a', 'b']\nTABLE = {'control_states': TASKS[:1], 'control_pixels': TASKS}\n\n\n"
        "def main(kind):\n    envs = TABLE[kind]\n    for e in envs:\n        launch(e)\n\n\n"
        "def launch(e):\n    return e\n\n\nif __name__ == '__main__':\n    main('control_states')\n")
    index = build_index(tmp_path, names.normalise)
    mentions = [m for ms in index.analysis(build_call_graph).mentions.values() for m in ms]
    by = {(m.text, m.line, m.kind): m for m in mentions}
    held = {m.within: m.context for m in mentions if m.text == "TASKS" and m.line == 2}
    assert held == {"TABLE:=control_states": "slice::1", "TABLE:=control_pixels": ""}
    data = flow(index)
    states, pixels = claim_words(("Control from states",)), claim_words(("Control from pixels",))
    assert entry_named("control_states", states) and not entry_named("control_pixels", states)
    assert entry_named("proprio", claim_words(("proprioceptive control",)))  # a stem of four letters or more
    a, b = by[("a", 1, "string")], by[("b", 1, "string")]
    assert [loop_runs(m, data, states)[0] for m in (a, b)] == [Run.RUN, Run.SKIPPED]
    assert [loop_runs(m, data, pixels)[0] for m in (a, b)] == [Run.RUN, Run.RUN]
    assert loop_runs(b, data)[0] == Run.RUN  # no claim: every entry counts


def test_computed_values_hold_their_inputs(tmp_path: Path) -> None:
    """A metric key holds what its value holds: another metric's result, a constant nothing fills in, or a
    computed value (``rules.d3_flow.value_source``)."""
    (tmp_path / "run.py").write_text(
        "def main(x):\n"
        "    mcc = accuracy_score(x, x)\n"
        "    sink = []\n"
        "    avg = sum(sink) / len(sink) if sink else 0.0\n"
        "    kept = []\n"
        "    kept.append(share(x))\n"
        "    return {'matthews': float(mcc), 'sink': avg, 'kept': kept, 'fresh': share(x)}\n\n\n"
        "if __name__ == '__main__':\n    main(1)\n")
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    keys = {m.text: m for ms in graph.mentions.values() for m in ms if m.context == "key:computed"}
    data = flow(index)
    other = lambda callee: callee == "accuracy_score"  # noqa: E731
    assert {k: value_source(m, data, other) for k, m in keys.items()} == {
        "matthews": Source.OTHER, "sink": Source.CONSTANT, "kept": Source.COMPUTED, "fresh": Source.COMPUTED}


def test_manifest_rows_are_bounded(tmp_path: Path) -> None:
    rows = [f'{{"video": "clips/{n}.mp4"}}' for n in range(FIRST_LINES)] + ['{"video": "webvid/late.mp4"}']
    (tmp_path / "annotations.jsonl").write_text("\n".join(rows) + "\n")
    (tmp_path / "train.py").write_text("import sys\n\nif __name__ == '__main__':\n    print(sys.argv)\n")
    (tmp_path / "run.sh").write_text("python train.py --anno annotations.jsonl\n")
    manifests = build_index(tmp_path, names.normalise).analysis(launched_manifests)
    assert [(m.file, m.launcher.ref) for m in manifests] == [("annotations.jsonl", "run.sh:1")]
    assert len(manifests[0].lines) == FIRST_LINES
    assert all("webvid" not in row.text for row in manifests[0].lines)


@pytest.mark.parametrize("target, role_name", [
    ("loss.backward", "backward"), ("<expr>.backward", "backward"), ("self.optimizer.step", "optimizer_step"),
    ("actor_optim.step", "optimizer_step"), ("self.lr_scheduler.step", "scheduler_step"), ("env.step", None),
    ("optimizer.zero_grad", "zero_grad"), ("torch.nn.utils.clip_grad_norm_", "clip"),
    ("gradio.Video", None), ("PPOTrainer", None), ("self.model.model", "forward"), ("model.forward", "forward"),
    ("Model", None), ("self.classifier.fit", "fit"), ("clf.predict_proba", "predict"), ("np.polyfit", None),
    ("curve.fit", None)])
def test_call_roles(target: str, role_name: str | None) -> None:
    assert site_role(CallSite.at("t.py", 1, "t", None, target, UNRESOLVED)) == role_name


def test_steps_ask_for_roles() -> None:
    assert step_roles({"name": "gradient clipping", "keywords": [], "functions": []}) == {"clip"}
    assert step_roles({"name": "noisy target action", "keywords": ["noise_clip"], "functions": ["clip"]}) == set()
    assert step_roles({"name": "AdamW update", "keywords": ["optimizer.step"], "functions": []}) == {"optimizer_step"}
    assert step_roles({"name": "forward pass", "keywords": ["lora_A"], "functions": []}) == {"forward"}
    assert step_roles({"name": "forward diffusion", "keywords": ["noise"], "functions": []}) == set()
    # an estimator's fit is asked for by a phrase or by the call among the functions, never by "fit" in a name
    # (a Bradley-Terry fit) or inside another call's name (fit_transform builds features)
    assert step_roles({"name": "fit logistic regression", "keywords": [], "functions": []}) == {"fit"}
    assert step_roles({"name": "train detector", "keywords": [], "functions": ["fit", "predict"]}) == {
        "fit", "predict"}
    assert step_roles({"name": "initial Bradley-Terry fit", "keywords": [], "functions": ["fit_bt"]}) == set()
    assert step_roles({"name": "extract features", "keywords": [], "functions": ["fit_transform"]}) == set()
    # the save is asked for by a step's name only: a save call among its functions or keywords may be where another
    # step ends (selecting the best checkpoint), not the step
    assert step_roles({"name": "save the model", "keywords": [], "functions": ["save_checkpoint"]}) == {"save"}
    assert step_roles({"name": "checkpoint selection", "keywords": ["save_pretrained"],
                       "functions": ["select_checkpoint", "save_checkpoint"]}) == set()
    assert roles.order_breakers() == (("backward", "optimizer_step", "zero_grad"),)


@pytest.mark.parametrize("step, target, strength", [
    ("record average reward", "self.avg_rewards_history.append", STRONG),
    ("record test accuracy", "test_accuracies.append", STRONG),
    ("record average reward", "self.q_functions_history.append", None),  # another collection
    ("record test accuracy", "test_losses.append", None),  # "test" is a general term: it names no one value
    ("average reward", "self.avg_rewards_history.append", None),  # the step records nothing
    ("record average reward", "self.avg_rewards_history.sort", None)])  # no filling call
def test_a_recording_step_is_where_its_collection_is_filled(step: str, target: str, strength: str | None) -> None:
    """A step recording a value (rules/roles.yaml, record_words) maps to the filling of a collection its name names
    (record_calls), not to any collection's."""
    names = step_names({"name": step, "keywords": [], "functions": []})
    assert match_site(names, CallSite.at("t.py", 1, "t", None, target, UNRESOLVED)) == strength


def test_guards_name_the_strings_a_branch_is_selected_by(tmp_path: Path) -> None:
    """``Mention.guards``: the strings of ``==``/``in`` tests (through ``and``/``or`` when both sides compare) of
    the enclosing ``if`` bodies in the mention's scope; comparisons' own strings have the ``select`` context when
    they select an ``if`` body so, ``compare`` otherwise."""
    (tmp_path / "run.py").write_text(
        "def main(kind, flag):\n"
        "    if kind in ('a', 'b'):\n        one(kind)\n"
        "    elif kind == 'c' or kind == 'd':\n        two(kind)\n"
        "    if kind == 'e' and flag:\n        three(kind)\n"
        "    if kind != 'f':\n        four(kind)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    by = {(m.text, m.kind): m for ms in graph.mentions.values() for m in ms}
    assert [by[(call, "name")].guards for call in ("one", "two", "three", "four")] == [
        ("a", "b"), ("c", "d"), (), ()]
    assert {s: by[(s, "string")].context for s in "abcdef"} == {
        "a": "select", "b": "select", "c": "select", "d": "select", "e": "compare", "f": "compare"}


def test_prerequisites_table() -> None:
    """An estimator's predict needs its fit first (rules/roles.yaml, prerequisites), each row two step roles."""
    assert roles.prerequisites() == (("fit", "predict"),)


def test_thousands_separators_make_one_claimed_number_and_lists_stay_lists() -> None:
    assert claimed_numbers("10,000 trials") == {10000.0}
    assert claimed_numbers("1,000,000 steps (1,000 warmup)") == {1000000.0, 1000.0}
    assert claimed_numbers("Top-K in {1,2,4}") == {1.0, 2.0, 4.0}
    assert claimed_numbers("widths {100,200,300}") == {100.0, 200.0, 300.0}
    assert claimed_numbers("500k steps") == {500000.0}


@pytest.mark.parametrize(("term", "text", "matches"), [
    # inside a longer name only where a word of it begins (a plural, a suffix number, a word run glued in a string)
    ("openwebtext", "OpenWebTextDataset", True),
    ("gate_score", "gate_scores", True),
    ("resisc", "resisc45", True),
    ("superres", "evaluate_super_resolution", True),
    ("hopper", "env_hopper", True),
    # inside a run of capitals: an acronym glued to the next word (claude-sonnet_basic/mrq's design study)
    ("mse_reward", "MRQMSEReward", True),
    ("nae_sat", "LONAESATDataset", True),
    # starting inside a word, the name may be the element or another thing (development repositories): undecided
    ("complex", "np.iscomplexobj", False),
    ("fftshift", "torch.fft.ifftshift", False),
    ("Gemma-2B", "model_configs.codegemma_2b.name", False),
    ("coverage", "MiscoverageLoss", False),
    ("default", "setdefault", False),
    ("calibrate", "predict_luno_la_uncalibrated", False),
    ("Hopper", "ChopperCommand", False),
    ("elapsed", "SkyTimelapseDataset", False),
    # capitals not glued to a camel-case word are one word: COVARIANCE holds no "variance" (hostile review)
    ("variance", "COVARIANCE", False),
    # after a digit a word begins: top1accuracy
    ("accuracy", "top1accuracy", True),
    # across a separator from inside a word: no acronym either
    ("n_datasets", "DEFAULT_PRETRAIN_DATASETS", False),
    ("rsample", "self.replay_buffer.sample_windows", False),
])
def test_a_term_inside_a_name_begins_one_of_its_words(term: str, text: str, matches: bool) -> None:
    assert term_matches(term, text) is matches
    # glued inside a word instead: the element is undecided (minibatch_OT is batch-OT, setdefault no default)
    assert glued_in(term, text) is (not matches and squash(term) in squash(text) and len(squash(term)) >= 6)


def test_a_term_after_a_negation_is_in_doubt() -> None:
    # NonSpatial, non_uniform: the opposite thing (development repositories); a negated claim matches as it is, and a
    # switch turning the element off (--no_qk_norm) is no negation of it
    assert not term_matches("Spatial", "T2I_CompBench_NonSpatial") and glued_in("Spatial", "T2I_CompBench_NonSpatial")
    assert not term_matches("uniform kernel", "non_uniform_kernel") and glued_in("uniform kernel", "non_uniform_kernel")
    assert term_matches("Non-Spatial", "T2I_CompBench_NonSpatial") and term_matches("qk_norm", "--no_qk_norm")
    assert term_matches("Spatial", "non_spatial_or_spatial_score")


def test_a_claimed_number_is_not_the_start_of_a_longer_one() -> None:
    # CIFAR100 is another dataset than CIFAR-10, neither matched nor in doubt; llama-2-7b does hold Llama-2
    assert not term_matches("CIFAR-10", "datasets.CIFAR100") and not glued_in("CIFAR-10", "datasets.CIFAR100")
    assert term_matches("cifar10", "datasets.CIFAR10") and term_matches("Llama-2", "meta-llama/Llama-2-7b-hf")


def test_a_term_glued_inside_a_word_is_told_apart() -> None:
    assert glued_in("batch_ot", "minibatch_OT") and glued_in("hh-rlhf", "DahoasFullhhrlhfDataset")
    assert not glued_in("batch_ot", "batch_ot_coupling") and not glued_in("ppl", "compute_ppl_score")


@pytest.mark.parametrize("target, callee, strength", [
    ("apply_model_overrides", "main.apply_model_overrides", "weak"),  # "model", a general term, inside a longer name
    ("model", "main.model", "strong"),  # the step's function itself
    ("denoise_step", "main.denoise_step", "strong"),  # a specific word inside a longer name
    ("compute_loss_terms", "main.compute_loss_terms", None),  # "loss" is no keyword of this step
])
def test_a_general_term_inside_a_longer_name_maps_a_step_weakly(target: str, callee: str, strength: str | None) -> None:
    """A step named by a general term (``rules/words.yaml``, ``generic_terms``: "model") maps strongly only a call
    of that very name: ``apply_model_overrides`` merely contains it (masked-diffusion-token-ordering D4-001 of
    deepseek_papercoder, where it placed "denoiser forward" at a configuration call and settled a false violation)."""
    names = step_names({"name": "denoiser forward", "keywords": ["logits", "model", "denoise"],
                        "functions": ["forward", "model"]})
    assert match_site(names, CallSite.at("main.py", 1, "main", callee, target, CALL)) == strength


def test_a_training_word_inside_a_longer_name_still_maps_a_step() -> None:
    """A training word is no general term for step matching (``training_words``): ``finetune_classifier`` is the
    fine-tuning step, where ``apply_model_overrides`` is no "model" step."""
    names = step_names({"name": "fine-tune the classifier", "keywords": ["finetune"], "functions": []})
    site = CallSite.at("main.py", 1, "main", "main.finetune_classifier", "finetune_classifier", CALL)
    assert match_site(names, site) == STRONG



def test_a_dotted_step_function_names_that_library_function_only() -> None:
    """A step's dotted function names one library function (``torch.load``), its first part read through the
    conventional import names (``rules/roles.yaml``, ``import_aliases``: ``np.sort`` is ``numpy.sort``, ``F`` is
    ``torch.nn.functional``); another library's function of the same last name (``json.load``) maps it weakly."""
    names = step_names({"name": "load checkpoint", "keywords": [],
                        "functions": ["torch.load", "np.sort", "autograd.grad", "F.softmax"]})

    def external(target: str) -> CallSite:
        return CallSite.at("main.py", 1, "main", None, target, EXTERNAL)

    for target in ("torch.load", "numpy.sort", "torch.autograd.grad", "torch.nn.functional.softmax"):
        assert match_site(names, external(target)) == STRONG, target
    assert match_site(names, external("json.load")) == WEAK
    assert match_site(names, external("torch.sort")) == WEAK



def test_loader_locals_resolve_only_when_bound_once_to_a_string(tmp_path: Path) -> None:
    """A function's local bound once to a string and nowhere else is what a loader handed it receives
    (``rules.d3_loads``), kept apart from the constants' values that show other data loaded; a second binding or a
    parameter (fixture d3/loader_name_value), a loop target or a ``global`` is not followed."""
    fixture = Path(__file__).parent / "fixtures" / "d3" / "loader_name_value" / "repo"
    loads = build_index(fixture, names.normalise).analysis(loader_values)
    calls = {lv.line: lv for lv in loads.by_file["data.py"]}
    assert calls[8].local_values == ("openwebtext",) and calls[8].local_lines == frozenset({7})
    assert calls[8].values == ("train",)  # the keyword's constant; the local's value is kept apart
    assert [lv.line for lv in loads.bound_at("data.py", 7)] == [8]
    assert loads.at("data.py", 8, "name") is None
    assert not calls[19].local_values and not calls[25].local_values  # bound twice; a parameter
    (tmp_path / "run.py").write_text(
        'from datasets import load_dataset\n'
        'def looped():\n    for name in ["a"]:\n        pass\n    name = "c4"\n    return load_dataset(name)\n'
        'def declared():\n    global name\n    name = "c4"\n    return load_dataset(name)\n')
    assert all(not lv.local_values for lv in build_index(tmp_path, names.normalise).analysis(loader_values)
               .by_file["run.py"])
