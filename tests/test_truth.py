"""The truth mode (benchmarks/truth.py, benchmarks/run_truth.py) on the embedded demo repository laid out as an
SA-Bench run: labels with known truths, recipes that break, change nothing, or no longer apply."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from benchmarks import run_truth, truth

CONFIG = "demo_cfg"


def _label(sau: str, score: float, basis: str = "constant", second: float | None = None) -> dict:
    return {"config": CONFIG, "paper": "demo", "sau": sau, "dimension": sau.split("-")[1], "score": score,
            "drift": "none" if score == 1 else "numerical", "evidence": ["configs/train.yaml:4"],
            "static_basis": basis, "code_checkable": True, "rationale": "test label",
            "readers": {"first": score, "second": second, "third": None},
            "settled_by": "one reader" if second is None else "two readers agree"}


def _recipe(rid: str, target: str | None, kind: str, line: int, old: str, new: str) -> dict:
    return {"id": rid, "config": CONFIG, "paper": "demo", "target": target, "kind": kind,
            "file": "configs/train.yaml", "start": line, "end": line, "old": old, "new": new, "why": "test"}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def runs(tmp_path: Path) -> Path:
    repo = tmp_path / "runs" / CONFIG / "demo" / "repo"
    shutil.copytree(Path(str(resources.files("benchmark_data").joinpath("demo", "repo"))), repo)
    return tmp_path / "runs"


def test_truth_mode_end_to_end(runs: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "labels.jsonl", [
        _label("demo-D1-001", 1.0, second=1.0),  # settled 1.0 by the rule: right
        _label("demo-D1-002", 0.0),  # the rule settles 0.75 (one of three atoms drifts): a wrong settle here
        _label("demo-D1-005", 0.0, "absence"),  # settled 0 (label smoothing only in a docstring): right
    ])
    recipes = _write(tmp_path / "recipes.jsonl", [
        _recipe("r1", "demo-D1-001", "numerical", 4, "  lr: 3.0e-4", "  lr: 6.0e-4"),
        _recipe("r2", None, "neutral", 1, "# Training configuration read by tinygpt/train.py",
                "# Training configuration, read by tinygpt/train.py"),
        _recipe("r3", "demo-D1-001", "numerical", 4, "  lr: 1.0e-3", "  lr: 2.0e-3"),  # not the labelled text
    ])
    decisions = tmp_path / "decisions"
    decisions.mkdir()
    _write(decisions / f"{CONFIG}.jsonl", [{"claim_id": "demo-D1-001", "score": 0.5},
                                           {"claim_id": "demo-D1-005", "score": 0.0}])
    out = tmp_path / "truth.json"
    # the recipe that no longer applies costs only itself: the figures are written, the error named, exit 2
    assert run_truth.main([str(runs), "--labels", str(labels), "--recipes", str(recipes), "--decisions",
                           str(decisions), "--jobs", "1", "--json", str(out)]) == 2
    figures = json.loads(out.read_text())
    overall = figures["verifier"]["overall"]
    assert (overall["saus"], overall["settled"], overall["wrong_settles"]) == (3, 3, 1)
    assert figures["verifier"]["by_static_basis"]["absence"]["settled_agreement"]["exact"] == 1.0
    assert figures["recipes"]["numerical"] == {"mutants": 1, "detected": 1, "detection_rate": 1.0, "named": 1,
                                               "named_rate": 1.0, "with_false_alarm": 0, "false_alarms_per_mutant": 0.0,
                                               "collateral_per_mutant": 0.0}
    assert figures["recipes"]["neutral"]["with_false_alarm"] == 0
    mutant = next(m for row in figures["rows"] for m in row["mutants"] if m["id"] == "r1")
    assert (mutant["before"], mutant["after"]) == (1.0, 0.75)
    assert figures["errors"] == [f"{CONFIG}/demo: {recipes}:3: recipe r3: configs/train.yaml:4-4 does not hold the "
                                 "text the recipe replaces"]
    assert figures["judge"]["overall"]["pairs"] == 2 and figures["judge"]["overall"]["exact"] == 0.5
    assert figures["inter_rater"]["pairs"] == 1 and figures["inter_rater"]["exact"] == 1.0


def test_a_missing_repository_costs_only_itself(runs: Path, tmp_path: Path) -> None:
    labels = _write(tmp_path / "labels.jsonl", [_label("demo-D1-001", 1.0), {**_label("demo-D1-001", 1.0),
                                                                               "config": "gone"}])
    out = tmp_path / "truth.json"
    assert run_truth.main([str(runs), "--labels", str(labels), "--no-recipes", "--jobs", "1", "--json", str(out)]) == 2
    figures = json.loads(out.read_text())
    assert figures["verifier"]["overall"]["saus"] == 1  # the demo repository was still verified
    assert figures["errors"] == [f"gone/demo: repository not found: {runs / 'gone' / 'demo' / 'repo'}"]


def test_apply_recipe_keeps_crlf_and_the_last_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_bytes(b"x = 1\r\ny = 2\r\nz = 3")
    (repo / "result").mkdir()
    (repo / "result" / "score.json").write_text("{}")
    recipe = truth.Recipe("r", "c", "p", None, "neutral", "a.py", 2, 3, "y = 2\nz = 3", "z = 3\ny = 2", "swap")
    copy = truth.apply_recipe(recipe, repo, tmp_path / "copy")
    assert (copy / "a.py").read_bytes() == b"x = 1\r\nz = 3\r\ny = 2"
    assert not (copy / "result").exists()  # SA-Bench's scores are not part of the repository


def test_load_labels_names_the_line_of_a_bad_label(tmp_path: Path) -> None:
    good = _label("demo-D1-001", 1.0)
    path = _write(tmp_path / "labels.jsonl", [good, {**good, "sau": "demo-D1-002", "score": 0.3}])
    with pytest.raises(truth.TruthError, match=r"labels\.jsonl:2: not a label: score 0\.3 is not on the scale"):
        truth.load_labels(path)
    path = _write(tmp_path / "missing.jsonl", [{k: v for k, v in good.items() if k != "dimension"}])
    with pytest.raises(truth.TruthError, match=r"missing\.jsonl:1: not a label: missing field 'dimension'"):
        truth.load_labels(path)
    path = _write(tmp_path / "twice.jsonl", [good, good])
    with pytest.raises(truth.TruthError, match=r"twice\.jsonl:2: demo-D1-001 labelled twice"):
        truth.load_labels(path)


def test_the_project_truth_set_is_well_formed() -> None:
    labels = truth.load_labels()
    recipes = truth.load_recipes()
    assert len(labels) >= 400 and len({(lab.config, lab.paper) for lab in labels}) >= 10
    assert sum(r.kind != truth.NEUTRAL for r in recipes) >= 60 and sum(r.kind == truth.NEUTRAL for r in recipes) >= 15
    labelled = {(lab.config, lab.paper, lab.sau): lab for lab in labels}
    for recipe in recipes:  # every breaking recipe targets a labelled SAU the code implements
        if recipe.target is not None:
            assert labelled[(recipe.config, recipe.paper, recipe.target)].score >= 0.75, recipe.id
    rater = truth.inter_rater(labels)
    assert rater["share"] >= 0.25


def test_a_drift_named_at_the_edit_counts_as_named_though_the_rounded_score_holds() -> None:
    recipe = truth.Recipe("r", "c", "p", "p-D1-001", "numerical", "model.py", 333, 333, "top_k=8,", "top_k=4,", "x")
    before, after = {"p-D1-001": (0.75, "settled")}, {"p-D1-001": (0.75, "settled")}
    cited = {"p-D1-001": (("model.py", 332, 332), ("model.py", 333, 333))}
    cited_after = {"p-D1-001": (("model.py", 333, 333), ("model.py", 332, 332))}
    drifts = ({"p-D1-001": "missing"}, {"p-D1-001": "numerical"})
    outcome = truth.mutant_outcome(recipe, before, after, (cited, cited_after), drifts)
    assert not outcome["detected"] and outcome["named"]
    # the same drift kind as before, or a first evidence away from the edit, names nothing new
    assert not truth.mutant_outcome(recipe, before, after, (cited, cited_after),
                                    ({"p-D1-001": "numerical"}, {"p-D1-001": "numerical"}))["named"]
    away = {"p-D1-001": (("model.py", 332, 332), ("model.py", 333, 333))}
    assert not truth.mutant_outcome(recipe, before, after, (cited, away), drifts)["named"]
    figures = truth.recipe_figures([outcome])["numerical"]
    assert (figures["detected"], figures["named"], figures["named_rate"]) == (0, 1, 1.0)


def test_a_changed_verdict_citing_the_edited_lines_is_collateral_not_a_false_alarm() -> None:
    recipe = truth.Recipe("r", "c", "p", "p-D3-001", "protocol", "data.py", 10, 11, "a\nb", "c\nd\ne", "swap")
    before = {"p-D3-001": (1.0, "settled"), "p-D3-002": (1.0, "settled"), "p-D3-003": (1.0, "settled"),
              "p-D3-004": (1.0, "settled"), "p-D3-005": (0.5, "unresolved")}
    after = {"p-D3-001": (0.0, "settled"), "p-D3-002": (0.5, "settled"), "p-D3-003": (0.5, "settled"),
             "p-D3-004": (0.5, "settled"), "p-D3-005": (0.5, "unresolved")}
    cited = {"p-D3-002": (("data.py", 11, 11),), "p-D3-003": (("data.py", 13, 13),),
             "p-D3-004": (("other.py", 10, 10),)}
    cited_after = {"p-D3-003": (("data.py", 12, 12),)}  # the edit made lines 10-12 of the copy: it cites the edit
    outcome = truth.mutant_outcome(recipe, before, after, (cited, cited_after))
    assert outcome["detected"] and outcome["collateral"] == ["p-D3-002", "p-D3-003"]
    assert outcome["false_alarms"] == ["p-D3-004"]  # another file's line 10 is not the edit
    neutral = truth.Recipe("n", "c", "p", None, "neutral", "data.py", 10, 11, "a\nb", "c\nd\ne", "reword")
    assert truth.mutant_outcome(neutral, before, after, (cited, cited_after))["false_alarms"] == [
        "p-D3-001", "p-D3-002", "p-D3-003", "p-D3-004"]  # a neutral edit should change nothing
