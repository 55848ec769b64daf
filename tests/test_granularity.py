"""How finely a parameter varies: the dimensions live code builds an ``nn.Parameter`` with (``GradSetting.sizes``)
decide a claim's ``shapes`` elements (``rules.granularity``), and a D2 claim whose formula holds settles on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractors.formulas import parse_formula
from extractors.repository import build_index
from extractors.trainability import gradient_settings
from rules import d2_formula, granularity, names
from sau.vocabulary import SAU, Drift, Status
from verifier.specs.errors import SpecError
from verifier.specs.project import load_project_spec

# an nGPT attention block: queries and keys normalised, then scaled by s_qk; run from a __main__ block
_BLOCK = """\
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.d_head = d_model // n_heads
        self.sqk = nn.Parameter({sqk})

    def forward(self, q, k):
        q = q / q.norm(dim=-1, keepdim=True) * self.sqk
        k = k / k.norm(dim=-1, keepdim=True) * self.sqk
        return q, k


if __name__ == "__main__":
    Attention(64, 4).forward(torch.ones(2, 64), torch.ones(2, 64))
"""
_PER_HEAD = {"name": "s_qk", "aliases": ("sqk",), "per": ("n_heads", "d_model"), "other": ("d_head",)}


def _index(tmp_path: Path, sqk: str):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "model.py").write_text(_BLOCK.format(sqk=sqk))
    return build_index(repo, names.normalise)


def _sau() -> SAU:
    formulas = ("q_n == q / norm(q) * s_qk", "k_n == k / norm(k) * s_qk")
    glossary = {"q_n": ["q"], "k_n": ["k"], "q": ["q"], "k": ["k"], "s_qk": ["sqk", "s_qk"]}
    checks = {"formulas": formulas, "expressions": tuple(map(parse_formula, formulas)),
              "mechanism": ("Attention", "forward"), "shapes": (_PER_HEAD,),
              "glossary": {k: {"meaning": k, "code_names": tuple(v)} for k, v in glossary.items()}}
    return SAU("t-D2-009", "D2", "Eq. 15", "q and k normalised, then scaled by a separate s_qk per head", checks)


@pytest.mark.parametrize("sqk, sizes", [
    ("torch.full((d_model,), 1.0)", ("d_model",)),
    ("0.5 * torch.ones(n_heads, self.d_head)", ("n_heads", "d_head")),
    ("torch.ones(n_heads * self.d_head)", ("n_heads*d_head",)),
    ("torch.tensor(1.0)", ()),
    ("torch.zeros(1)", ("1",)),
    ("make(d_model)", None),
])
def test_a_parameter_s_dimensions_are_read_from_the_tensor_factory_that_builds_it(tmp_path: Path, sqk: str,
                                                                                  sizes) -> None:
    settings = [s for s in _index(tmp_path, sqk).analysis(gradient_settings) if s.target == "sqk"]
    assert [(s.line, s.how, s.sizes) for s in settings] == [(9, "parameter", sizes)]


@pytest.mark.parametrize("sqk, status, score, drift, note", [
    # one entry per head (the width is heads times head size): the claim holds
    ("torch.full((d_model,), 1.0)", Status.SETTLED, 1.0, None,
     "shape 's_qk' present (self.sqk of shape (d_model,) at model.py:9)"),
    # a matrix lines up with the last axes of q, laid out (positions, head size) here: heads or not, reading the
    # definition alone does not tell
    ("torch.ones(n_heads, self.d_head)", Status.UNRESOLVED, 1.0, None,
     "shape 's_qk' ambiguous (its dimensions do not tell (self.sqk of shape (n_heads, d_head) at model.py:9))"),
    # one vector of the head's size, shared by every head: the per-head element fails (2 of 3 elements hold)
    ("torch.ones(self.d_head)", Status.SETTLED, 0.75, Drift.METHOD,
     "shape 's_qk' absent (self.sqk of shape (d_head,) at model.py:9: no dimension of n_heads, d_model)"),
    # a single value for all
    ("torch.tensor(1.0)", Status.SETTLED, 0.75, Drift.METHOD,
     "shape 's_qk' absent (self.sqk of a single value at model.py:9: no dimension of n_heads, d_model)"),
    # a size the names do not tell: open, and the estimate is the formulas' alone
    ("torch.ones(size)", Status.UNRESOLVED, 1.0, None,
     "shape 's_qk' ambiguous (its dimensions do not tell (self.sqk of shape (size,) at model.py:9))"),
])
def test_a_per_head_scale_settles_on_the_dimensions_it_is_built_with(tmp_path: Path, sqk: str, status: Status,
                                                                     score: float, drift, note: str) -> None:
    verdict = d2_formula.check(_sau(), _index(tmp_path, sqk))
    assert (verdict.status, verdict.score, verdict.drift) == (status, score, drift), verdict.reason
    assert note in verdict.reason


def test_a_parameter_named_nowhere_is_undecided_only_as_a_hint(tmp_path: Path) -> None:
    result = granularity.decide({**_PER_HEAD, "name": "alpha_A", "aliases": ()}, _index(tmp_path, "torch.ones(4)"))
    assert (result.outcome, result.note, result.hint) == ("ambiguous", "no nn.Parameter of that name is built", True)


def test_a_spec_lists_shapes_and_rejects_one_without_dimensions(tmp_path: Path) -> None:
    head = ("schema: sauverify-spec/1\nbenchmark_id: t-001\nslug: t\ntitle: T\nvenue: V\nsaus:\n"
            "  - id: t-D2-009\n    dimension: D2\n    source: Eq 15\n    statement: q scaled by s_qk, per head.\n"
            "    formulas: [\"q_n == q * s_qk\"]\n"
            "    glossary:\n      q_n: {meaning: a, code_names: [q]}\n      q: {meaning: b, code_names: [q]}\n"
            "      s_qk: {meaning: c, code_names: [sqk]}\n    mechanism: [forward]\n    shapes:\n")
    good = tmp_path / "good.yaml"
    good.write_text(head + "      - {name: s_qk, aliases: [sqk], per: [n_heads], other: [d_head]}\n")
    assert load_project_spec(good).saus[0].checks["shapes"] == (
        {"name": "s_qk", "aliases": ("sqk",), "per": ("n_heads",), "other": ("d_head",)},)
    bad = tmp_path / "bad.yaml"
    bad.write_text(head + "      - {name: s_qk, per: []}\n")
    with pytest.raises(SpecError, match="each of shapes needs a name, optional aliases \\(a list of names\\), and per "
                                        "\\(a non-empty list of dimension names\\)") as error:
        load_project_spec(bad)
    assert str(error.value).startswith(f"{bad}:18: ")
