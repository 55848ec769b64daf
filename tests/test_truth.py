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


def _step(sau: str, step: int, name: str, where: list[str], status: str) -> dict:
    return {"config": CONFIG, "paper": "demo", "sau": sau, "step": step, "name": name, "where": where,
            "status": status, "entry": "tinygpt/train.py", "note": "test step"}


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
    steps = _write(tmp_path / "steps.jsonl", [
        _step("demo-D4-001", 0, "linear warmup", ["tinygpt/train.py:37"], "runs"),  # the rule finds it uncertain
        _step("demo-D4-001", 1, "cosine decay", [], "absent"),  # only a TODO: the rule finds no call either
        {"config": CONFIG, "paper": "demo", "sau": "demo-D4-001", "claim": True, "order": "n/a"},
        _step("demo-D4-001", 0, "linear warmup", [], "absent") | {"config": "elsewhere"},  # not verified here
    ])
    out = tmp_path / "truth.json"
    # the recipe that no longer applies costs only itself: the figures are written, the error named, exit 2
    assert run_truth.main([str(runs), "--labels", str(labels), "--recipes", str(recipes), "--decisions",
                           str(decisions), "--steps", str(steps), "--jobs", "1", "--json", str(out)]) == 2
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
    # the other repository's step is left out; the warmup the reader found running is not placed (uncertain)
    assert figures["steps"] == {"steps": 2, "running": 1, "at_reader": 0, "strong": 0, "elsewhere": 0, "missed": 1,
                                "placed_not_running": 0, "agree_not_running": 1, "unmatched": 0, "precision": None,
                                "recall": 0.0}
    row = next(r for r in figures["rows"] if r["paper"] == "demo")
    assert row["steps"]["demo-D4-001"] == [["uncertain", None, "tinygpt/train.py:37"], ["absent", None, None]]


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


def test_step_figures_count_where_each_step_is_placed() -> None:
    key = ("c", "p", "p-D4-001")

    def label(step: int, where: tuple, status: str = "runs") -> truth.StepLabel:
        return truth.StepLabel(*key, step, f"step {step}", where, status)

    labels = [label(0, (("train.py", 10, 12),)),  # placed strongly inside the reader's span
              label(1, (("train.py", 20, 20),)),  # placed weakly on the reader's line
              label(2, (("train.py", 30, 30),)),  # placed in another file
              label(3, (("train.py", 40, 40),)),  # the rule found it only uncertain: not placed
              label(4, (), "absent"),  # placed although no reader found it
              label(5, (("run.sh", 3, 3),), "separate-launch"),  # the rule too says another launch runs it
              label(6, (("train.py", 50, 50),))]  # the verdict has six findings: unmatched
    placed = {key: (("ordered", "strong", "train.py:11"), ("ordered", "weak", "train.py:20"),
                    ("ordered", "strong", "eval.py:30"), ("uncertain", None, "train.py:40"),
                    ("ordered", "weak", "utils.py:5"), ("elsewhere", None, "run.sh:3"))}
    assert truth.step_figures(labels, placed) == {
        "steps": 7, "running": 4, "at_reader": 2, "strong": 1, "elsewhere": 1, "missed": 1,
        "placed_not_running": 1, "agree_not_running": 1, "unmatched": 1, "precision": 0.5, "recall": 0.5}


def test_load_step_labels_names_the_line_of_a_bad_one(tmp_path: Path) -> None:
    good = _step("demo-D4-001", 0, "linear warmup", ["tinygpt/train.py:37-38"], "runs")
    assert truth.load_step_labels(_write(tmp_path / "good.jsonl", [good]))[0].where == (("tinygpt/train.py", 37, 38),)
    for rows, message in (([good, {**good, "where": ["train.py"]}], r"bad\.jsonl:2: not a step label: .*train\.py"),
                          ([{**good, "status": "absent"}], r"bad\.jsonl:1: status 'absent' must be one of .* an "
                                                            r"absent step has no spans"),
                          ([good, good], r"bad\.jsonl:2: step 0 of demo-D4-001 labelled twice"),
                          ([{k: v for k, v in good.items() if k != "status"}],
                           r"bad\.jsonl:1: not a step label: missing field 'status'")):
        with pytest.raises(truth.TruthError, match=message):
            truth.load_step_labels(_write(tmp_path / "bad.jsonl", rows))


def test_the_project_step_locations_name_labelled_steps() -> None:
    from benchmarks.run_benchmark import load_spec

    labels = {(lab.config, lab.paper, lab.sau) for lab in truth.load_labels() if lab.dimension == "D4"}
    steps = truth.load_step_labels()
    assert len(steps) >= 300
    specs = {}
    for step in steps:
        assert (step.config, step.paper, step.sau) in labels, step
        if step.paper not in specs:
            specs[step.paper] = {s.id: s for s in load_spec(step.paper, "curated", None).saus}
        spec_steps = specs[step.paper][step.sau].checks["steps"]
        assert spec_steps[step.step]["name"] == step.name, step
