"""Each drift-injection operator produces the expected edited source at the expected line, and declines where it
has nothing to change."""

import pytest

from benchmarks.drift import change_constant, drop_term, flip_sign, other_number, remove_call, stub_function, swap_steps


def test_change_constant_changes_the_claimed_number_only() -> None:
    source = "import torch\nopt = torch.optim.Adam(params, lr=3e-4, eps=1e-8)\n"
    edit = change_constant(source, "train.py", 2, claimed=[1e-8])
    assert edit.text == "import torch\nopt = torch.optim.Adam(params, lr=3e-4, eps=2e-08)\n"
    assert (edit.file, edit.line, edit.end_line, edit.operator) == ("train.py", 2, 2, "change_constant")
    assert edit.description == "1e-8 -> 2e-08"
    assert change_constant(source, "train.py", 2, claimed=[0.5]) is None  # no claimed number on the line
    assert change_constant(source, "train.py", 1) is None  # no number at all


def test_change_constant_avoids_the_other_claimed_values_and_keeps_line_ends() -> None:
    assert other_number(2, [2, 4]) == 20 and other_number(0) == 1 and other_number(0.5) == 1.0
    edit = change_constant("layers = 2\r\nwidth = 4\r\n", "m.py", 1, claimed=[2], avoid=[4])
    assert edit.text == "layers = 20\r\nwidth = 4\r\n"
    with pytest.raises(ValueError, match="avoids the claimed values"):
        other_number(1, [1, 2, 10, 3, 7, 4])
    assert change_constant("k = 1\n", "m.py", 1, claimed=[1], avoid=[2, 10, 3, 7, 4]) is None


def test_change_constant_in_a_yaml_config_leaves_key_and_comment() -> None:
    source = "optimizer:\n  lr: 1e-4   # 2e-4 in the appendix\n  layer_2: 16\n"
    edit = change_constant(source, "configs/train.yaml", 2, claimed=[1e-4])
    assert edit.text == "optimizer:\n  lr: 0.0002   # 2e-4 in the appendix\n  layer_2: 16\n"
    assert edit.line == 2
    assert change_constant(source, "configs/train.yaml", 3, claimed=[16]).text.endswith("  layer_2: 32\n")


def test_flip_sign_and_drop_term_edit_the_outermost_sum() -> None:
    source = "def loss(a, b, c):\n    return a + b * c - 1\n"
    flipped = flip_sign(source, "loss.py", 2)
    assert flipped.text == "def loss(a, b, c):\n    return a + b * c + 1\n"
    assert (flipped.line, flipped.operator) == (2, "flip_sign")
    dropped = drop_term(source, "loss.py", 2)
    assert dropped.text == "def loss(a, b, c):\n    return a + b * c\n"
    assert dropped.description == "dropped 1 from a + b * c - 1"
    assert drop_term(source, "loss.py", 1) is None


def test_flip_sign_drops_a_unary_minus_when_there_is_no_sum() -> None:
    edit = flip_sign("x = 1\nkl = -torch.mean(q * log_q)\n", "kl.py", 2)
    assert edit.text == "x = 1\nkl = torch.mean(q * log_q)\n" and edit.line == 2
    assert flip_sign("x = 1\n", "kl.py", 1) is None


def test_remove_call_blanks_the_dataset_or_metric_call() -> None:
    source = ("def main(model):\n"
              "    data = load_dataset('cifar10', split='test')\n"
              "    compute_fid(model, data)\n"
              "    print('done')\n")
    metric = remove_call(source, "main.py", 3, wanted=["FID"])
    assert metric.text == source.replace("    compute_fid(model, data)\n", "    pass\n")
    assert (metric.line, metric.operator) == (3, "remove_call")
    dataset = remove_call(source, "main.py", 2, wanted=["CIFAR-10", "cifar10"])
    assert dataset.text == source.replace("load_dataset('cifar10', split='test')", "None")
    assert remove_call(source, "main.py", 3, wanted=["inception score"]) is None


def test_swap_steps_swaps_with_the_named_step_or_the_next_statement() -> None:
    source = ("def run():\n"
              "    a = prepare()\n"
              "    b = train(a)\n"
              "    evaluate(b)\n")
    named = swap_steps(source, "run.py", 2, other_line=4)
    assert named.text == "def run():\n    evaluate(b)\n    b = train(a)\n    a = prepare()\n"
    assert (named.line, named.end_line) == (2, 4)
    nxt = swap_steps(source, "run.py", 3)
    assert nxt.text == "def run():\n    a = prepare()\n    evaluate(b)\n    b = train(a)\n"
    assert (nxt.line, nxt.end_line) == (3, 4)
    assert swap_steps("x = 1\n", "run.py", 1) is None  # nothing to swap with


def test_stub_function_replaces_the_innermost_body() -> None:
    source = ("class Model:\n"
              "    def forward(self, x, scale=2):\n"
              "        y = x * scale\n"
              "        return y\n"
              "\n"
              "top = 1\n")
    edit = stub_function(source, "model.py", 3)
    assert edit.text == ("class Model:\n"
                         "    def forward(self, x, scale=2):\n"
                         "        raise NotImplementedError\n"
                         "\n"
                         "top = 1\n")
    assert (edit.line, edit.end_line, edit.operator) == (2, 4, "stub_function")
    assert edit.description == "body of forward() -> raise NotImplementedError"
    assert stub_function(source, "model.py", 6) is None  # module level: no function to stub


def test_operators_decline_unparsable_files() -> None:
    broken = "```python\nlr = 1e-4\n"
    assert change_constant(broken, "a.py", 2, claimed=[1e-4]) is None
    assert stub_function(broken, "a.py", 2) is None


def test_flip_sign_negates_a_computed_value_without_a_sign_of_its_own() -> None:
    edit = flip_sign("def attend(w, v):\n    return w @ v\n", "m.py", 2)
    assert edit is not None and edit.text == "def attend(w, v):\n    return -(w @ v)\n"
    assert (edit.line, edit.description) == (2, "negated w @ v")
