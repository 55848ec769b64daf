"""Trained and frozen tensors: the gradient settings live code makes (``extractors.trainability``) decide a claim's
``trainable`` elements (``rules.trainable``), and a D2 claim whose formula holds settles on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractors.formulas import parse_formula
from extractors.repository import build_index
from extractors.trainability import gradient_settings
from rules import d2_formula, names, trainable
from sau.vocabulary import SAU, Drift, Status
from verifier.specs.errors import SpecError
from verifier.specs.project import load_project_spec

# a LoRA-SB layer: W_0 and the factors B, A fixed, R trained; run from a __main__ block, so every function is live
_LAYER = """\
import torch
import torch.nn as nn


class SBLayer(nn.Module):
    def __init__(self, base, B, A, r):
        super().__init__()
        self.base_layer = base{freeze}
{factors}
        self.R = nn.Parameter(torch.eye(r))
        self.s = 1.0

    def forward(self, x):
        W = self.base_layer.weight + self.s * (self.B @ self.R @ self.A)
        return x @ W.T


def build(base, B, A, r):
    layer = SBLayer(base, B, A, r)
{build}
    return layer


if __name__ == "__main__":
    build(nn.Linear(4, 4), torch.zeros(4, 2), torch.zeros(2, 4), 2)
"""
_FREEZE = "; self.base_layer.requires_grad_(False)"  # the base layer frozen where the layer is built
_BUFFERS = '        self.register_buffer("B", B)\n        self.register_buffer("A", A)'
_FROZEN_BASE = "    for p in layer.base_layer.parameters():\n        p.requires_grad = False"

_ELEMENTS = ({"name": "R", "aliases": ("lora_R",), "trained": True, "library": ()},
             {"name": "B", "aliases": ("lora_B",), "trained": False, "library": ()},
             {"name": "A", "aliases": ("lora_A",), "trained": False, "library": ()},
             {"name": "W_0", "aliases": ("base_layer",), "trained": False, "library": ()})


def _index(tmp_path: Path, source: str, name: str = "layer.py"):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / name).write_text(source)
    return build_index(repo, names.normalise)


def _sau(elements=_ELEMENTS) -> SAU:
    formula = "W == W_0 + s * (B @ R @ A)"
    glossary = {"W": ["W"], "W_0": ["weight", "base_layer"], "s": ["s"], "B": ["B"], "R": ["R"], "A": ["A"]}
    checks = {"formulas": (formula,), "expressions": (parse_formula(formula),), "mechanism": ("SBLayer", "forward"),
              "glossary": {k: {"meaning": k, "code_names": tuple(v)} for k, v in glossary.items()},
              "trainable": elements}
    return SAU("t-D2-001", "D2", "Eq. 3", "W_0 plus s B R A; only R trained", checks)


def test_gradient_settings_read_buffers_parameters_flags_and_loops_over_a_modules_parameters(tmp_path: Path) -> None:
    index = _index(tmp_path, _LAYER.format(freeze="", factors=_BUFFERS, build=_FROZEN_BASE))
    found = [(s.line, s.target, s.written, s.trained, s.how, s.scope) for s in index.analysis(gradient_settings)]
    assert found == [
        (9, "B", "B", False, "buffer", "layer.SBLayer.__init__"),
        (10, "A", "A", False, "buffer", "layer.SBLayer.__init__"),
        (11, "R", "self.R", True, "parameter", "layer.SBLayer.__init__"),
        (22, "base_layer", "layer.base_layer.parameters()", False, "flag", "layer.build"),
    ]


def test_a_claim_whose_formula_holds_and_whose_tensors_are_trained_and_frozen_as_claimed_settles_at_one(
        tmp_path: Path) -> None:
    index = _index(tmp_path, _LAYER.format(freeze=_FREEZE, factors=_BUFFERS, build="    pass"))
    verdict = d2_formula.check(_sau(), index)
    assert (verdict.status, verdict.score) == (Status.SETTLED, 1.0), verdict.reason
    assert "trainable 'R' present (trained: parameter self.R at layer.py:11)" in verdict.reason
    assert "trainable 'B' present (frozen: buffer B at layer.py:9)" in verdict.reason
    assert "trainable 'W_0' present (frozen: flag self.base_layer at layer.py:8)" in verdict.reason


def test_tensors_set_up_away_from_the_code_computing_the_formula_leave_the_claim_open(tmp_path: Path) -> None:
    # the adapted weight worked out by a helper outside the layer: the layer's frozen factors may never be the ones
    # the helper is handed (a layer defined but never put into the model), so they decide nothing there
    helper = ("\n\ndef merged(layer):\n    W = layer.base_layer.weight + layer.s * (layer.B @ layer.R @ layer.A)\n"
              "    return W\n\n\nmerged(build(nn.Linear(4, 4), torch.zeros(4, 2), torch.zeros(2, 4), 2))\n")
    source = _LAYER.format(freeze=_FREEZE, factors=_BUFFERS, build="    pass").replace(
        "        W = self.base_layer.weight + self.s * (self.B @ self.R @ self.A)\n        return x @ W.T",
        "        return x")
    verdict = d2_formula.check(_sau(), _index(tmp_path, source + helper))
    assert (verdict.status, verdict.score) == (Status.UNRESOLVED, 1.0), verdict.reason
    assert "trainable 'B' ambiguous (run at layer.py:9, outside the code that computes the formula)" in verdict.reason


def test_factors_the_claim_freezes_but_the_code_trains_settle_as_method_drift(tmp_path: Path) -> None:
    trained = "        self.B = nn.Parameter(B)\n        self.A = nn.Parameter(A)"
    index = _index(tmp_path, _LAYER.format(freeze=_FREEZE, factors=trained, build="    pass"))
    verdict = d2_formula.check(_sau(), index)
    # the formula and R hold, B and A are trained: 2 of 4 elements hold beside the formula -> 3/5, 0.5 on the scale
    assert (verdict.status, verdict.score, verdict.drift) == (Status.SETTLED, 0.5, Drift.METHOD), verdict.reason
    assert "trainable 'B' absent (trained: parameter self.B at layer.py:9)" in verdict.reason


@pytest.mark.parametrize("build, outcome, note", [
    # a loop freezing a module the claim does not name may reach R: undecided
    ("    for p in layer.parameters():\n        p.requires_grad = False",
     "ambiguous", "trained where defined (parameter self.R at layer.py:11), but a freeze of unnamed tensors at "
                  "layer.py:22 may reach it"),
    # the freeze of the base layer the claim itself lists as frozen is the claim's own
    (_FROZEN_BASE, "present", "trained: parameter self.R at layer.py:11"),
    # an explicit flag on R decides, whatever froze the rest
    ("    for p in layer.parameters():\n        p.requires_grad = False\n"
     "    layer.R.requires_grad = True", "present", "trained: flag layer.R at layer.py:23"),
    # a flag that is not a literal decides nothing
    ("    flag = r > 1\n    layer.R.requires_grad_(flag)", "ambiguous",
     "its settings disagree or are not literals (flag layer.R at layer.py:22)"),
])
def test_a_trained_tensor_is_decided_by_what_may_freeze_it(tmp_path: Path, build: str, outcome: str,
                                                           note: str) -> None:
    index = _index(tmp_path, _LAYER.format(freeze=_FREEZE, factors=_BUFFERS, build=build))
    names_claimed = frozenset().union(*map(trainable.terms, _ELEMENTS))
    result = trainable.decide(_ELEMENTS[0], index, names_claimed)
    assert (result.outcome, result.note) == (outcome, note)


def test_settings_in_dead_code_or_tests_are_not_read_and_a_library_call_realises_the_claim(tmp_path: Path) -> None:
    source = ("import torch.nn as nn\nfrom peft import get_peft_model\n\n\ndef unused():\n"
              "    layer = nn.Linear(2, 2)\n    layer.lora_B.requires_grad = False\n\n\n"
              "if __name__ == '__main__':\n    get_peft_model(nn.Linear(2, 2), None)\n")
    index = _index(tmp_path, source, "train.py")
    element = {"name": "lora_B", "aliases": (), "trained": True, "library": ("get_peft_model",)}
    result = trainable.decide(element, index)
    assert (result.outcome, result.note) == ("present", "realised by the library (get_peft_model at train.py:11)")
    without = trainable.decide({**element, "library": ()}, index)
    assert (without.outcome, without.note, without.hint) == ("ambiguous", "not named where gradients are set", True)


def test_the_baselines_tensors_of_the_same_name_do_not_decide_the_formulas_own(tmp_path: Path) -> None:
    baseline = ("\n\nclass LoRA(nn.Module):\n    def __init__(self, B, A):\n        super().__init__()\n"
                "        self.B = nn.Parameter(B)\n        self.A = nn.Parameter(A)\n\n\n"
                "if __name__ == '__main__':\n    LoRA(torch.zeros(4, 2), torch.zeros(2, 4))\n")
    frozen_base = "    layer.base_layer.requires_grad_(False)"
    index = _index(tmp_path, _LAYER.format(freeze=_FREEZE, factors=_BUFFERS, build=frozen_base) + baseline)
    assert trainable.decide(_ELEMENTS[1], index).outcome == "ambiguous"  # without the formula's code: disagree
    verdict = d2_formula.check(_sau(), index)
    assert (verdict.status, verdict.score) == (Status.SETTLED, 1.0), verdict.reason


def test_a_spec_lists_trainable_tensors_and_rejects_a_malformed_one(tmp_path: Path) -> None:
    head = ("schema: sauverify-spec/1\nbenchmark_id: t-001\nslug: t\ntitle: T\nvenue: V\nsaus:\n"
            "  - id: t-D2-001\n    dimension: D2\n    source: Eq 3\n    statement: W_0 plus B R A, only R trained.\n"
            "    formulas: [\"W == W_0 + B @ R @ A\"]\n"
            "    glossary:\n      W: {meaning: w, code_names: [W]}\n      W_0: {meaning: w0, code_names: [W0]}\n"
            "      B: {meaning: b, code_names: [B]}\n      R: {meaning: r, code_names: [R]}\n"
            "      A: {meaning: a, code_names: [A]}\n    mechanism: [forward]\n    trainable:\n")
    good = tmp_path / "good.yaml"
    good.write_text(head + "      - {name: R, aliases: [lora_R], trained: true}\n")
    spec = load_project_spec(good)
    assert spec.saus[0].checks["trainable"] == ({"name": "R", "aliases": ("lora_R",), "trained": True,
                                                 "library": ()},)
    bad = tmp_path / "bad.yaml"
    bad.write_text(head + "      - {name: R, trained: yes please}\n")
    with pytest.raises(SpecError, match="each of trainable needs a name, optional aliases \\(a list of names\\), and "
                                        "trained \\(true or false\\), library") as error:
        load_project_spec(bad)
    assert error.value.line == 20


def test_a_tensor_whose_training_is_undecided_keeps_the_claim_open_without_lowering_its_estimate(
        tmp_path: Path) -> None:
    index = _index(tmp_path, _LAYER.format(freeze="", factors=_BUFFERS, build="    pass"))  # nothing freezes W_0
    verdict = d2_formula.check(_sau(), index)
    assert (verdict.status, verdict.score) == (Status.UNRESOLVED, 1.0), verdict.reason
    assert "trainable 'W_0' ambiguous (not named where gradients are set)" in verdict.reason


def test_gradient_settings_read_keyword_arguments_and_leave_out_what_they_cannot_name(tmp_path: Path) -> None:
    source = ("import torch\nimport torch.nn as nn\n\n\nclass M(nn.Module):\n    def __init__(self, flag):\n"
              "        super().__init__()\n"
              "        self.register_buffer(tensor=torch.zeros(1), name=\"q\")\n"
              "        self.register_buffer(f\"q{1}\", torch.zeros(1))\n"
              "        self.r.requires_grad_(requires_grad=False)\n"
              "        self.s = nn.Parameter(torch.ones(2), requires_grad=flag)\n"
              "        self.t[0].requires_grad = False\n")
    found = [(s.line, s.target, s.written, s.trained, s.how)
             for s in _index(tmp_path, source, "m.py").analysis(gradient_settings)]
    assert found == [(8, "q", "q", False, "buffer"), (10, "r", "self.r", False, "flag"),
                     (11, "s", "self.s", None, "parameter"), (12, "<expr>", "<expr>", False, "flag")]


def test_a_loop_freezing_some_tensors_of_a_module_by_name_is_no_freeze_of_the_module(tmp_path: Path) -> None:
    source = ("def setup(model):\n    for name, p in model.encoder.named_parameters():\n"
              "        if \"bias\" in name:\n            p.requires_grad = True\n        p.requires_grad = False\n")
    found = [(s.line, s.target, s.written, s.trained)
             for s in _index(tmp_path, source, "m.py").analysis(gradient_settings)]
    # inside the if, only some tensors: the loop variable stays unnamed; outside it, every tensor of the encoder
    assert found == [(4, "p", "p", True), (5, "encoder", "model.encoder.parameters()", False)]
