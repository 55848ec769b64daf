"""Mutants planted at the code the verifier credited, on the fixture repository tests/fixtures/drift, verified
again: the target SAU's score drops, and changes elsewhere are classed as collateral or false alarms."""

import json
import random
from pathlib import Path

from benchmarks import injection
from verifier.run import verify
from verifier.specs.project import load_project_spec

CASE = Path(__file__).parent / "fixtures" / "drift"


def _baseline():
    spec = load_project_spec(CASE / "spec.yaml")
    return spec, verify(CASE / "repo", spec, "drift")


def _verdict(report, sau_id):
    return next(v for v in report.verdicts if v.sau.id == sau_id)


def _mutant(report, sau_id, kind, seed=0):
    verdict = _verdict(report, sau_id)
    edits = injection.edit_for(verdict, kind, CASE / "repo", random.Random(seed))
    return injection.Mutant(kind, sau_id, verdict.sau.dimension, verdict.score, verdict.status, edits)


def _run(spec, report, mutant, tmp_path):
    copy = injection.apply(mutant, CASE / "repo", tmp_path / "repo")
    return injection.outcome(mutant, report.verdicts, verify(copy, spec, "drift").verdicts)


def test_baseline_credits_every_fixture_sau() -> None:
    _, report = _baseline()
    assert [(v.sau.id, v.score, v.status) for v in report.verdicts] == [
        ("DR-D1-001", 1.0, "settled"), ("DR-D1-002", 1.0, "settled"), ("DR-D1-003", 1.0, "settled"),
        ("DR-D1-004", 1.0, "settled")]


def test_changed_constant_is_caught_without_false_alarms(tmp_path) -> None:
    spec, report = _baseline()
    mutant = _mutant(report, "DR-D1-001", "numerical")
    assert [(e.file, e.line, e.description) for e in mutant.edits] == [("train.py", 4, "3e-4 -> 0.0006")]
    result = _run(spec, report, mutant, tmp_path)
    assert (result["before"], result["after"], result["dropped"]) == (1.0, 0.0, True)
    assert result["false_alarms"] == [] and result["collateral"] == [] and result["compared"] == 3
    # the repository itself is untouched
    assert "LEARNING_RATE = 3e-4" in (CASE / "repo" / "train.py").read_text()
    assert "LEARNING_RATE = 0.0006" in (tmp_path / "repo" / "train.py").read_text()


def test_changed_constant_avoids_values_other_saus_claim() -> None:
    _, report = _baseline()
    verdict = _verdict(report, "DR-D1-001")
    edits = injection.edit_for(verdict, "numerical", CASE / "repo", random.Random(0), avoid=[6e-4])
    assert [e.description for e in edits] == ["3e-4 -> 0.003"]


def test_changed_config_value_halves_a_two_atom_sau(tmp_path) -> None:
    spec, report = _baseline()
    mutant = _mutant(report, "DR-D1-004", "numerical")
    assert len(mutant.edits) == 1 and mutant.edits[0].file == "configs/model.yaml"
    result = _run(spec, report, mutant, tmp_path)
    assert (result["after"], result["dropped"], result["false_alarms"]) == (0.5, True, [])


def test_stubbed_function_caps_its_default_and_classes_the_other_changes(tmp_path) -> None:
    spec, report = _baseline()
    mutant = _mutant(report, "DR-D1-002", "stub")
    assert [(e.file, e.line, e.end_line) for e in mutant.edits] == [("train.py", 7, 12)]
    result = _run(spec, report, mutant, tmp_path)
    assert (result["after"], result["dropped"]) == (0.25, True)  # a value only inside a stub counts 0.25
    # weight_decay's keyword was inside the stubbed body, and so was the call consuming LEARNING_RATE (line 4,
    # outside the edit; its evidence names that consumer): both changes are collateral, not false alarms
    assert result["collateral"] == ["DR-D1-001", "DR-D1-003"]
    assert result["false_alarms"] == []


def test_plan_respects_the_limit_and_kinds_without_targets(tmp_path) -> None:
    _, report = _baseline()
    mutants, eligible = injection.plan(report, CASE / "repo", "numerical", 2, random.Random(1))
    assert eligible == 4 and len(mutants) == 2 and all(m.kind == "numerical" for m in mutants)
    assert injection.plan(report, CASE / "repo", "method", 3, random.Random(1)) == ([], 0)  # no D2 SAU here


def test_copy_leaves_out_links_and_version_control(tmp_path) -> None:
    repo = tmp_path / "src"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref\n")
    (repo / "a.py").write_text("x = 1\n")
    (repo / "link.py").symlink_to(repo / "a.py")
    injection.copy_repository(repo, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["a.py"]



def test_inject_drift_command_writes_the_mutant_and_reports_it(tmp_path, capsys) -> None:
    from benchmarks import inject_drift
    from verifier.cli import demo_repository

    out = tmp_path / "mutant"
    code = inject_drift.main([str(demo_repository()), "--paper", "demo", "--kind", "numerical",
                              "--sau", "demo-D1-001", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    record = json.loads(printed[: printed.index("--- a/")])
    assert (record["target"], record["before"], record["after"], record["dropped"]) == ("demo-D1-001", 1.0, 0.75, True)
    assert record["edits"] == [{"file": "configs/train.yaml", "line": 4, "end_line": 4, "operator": "change_constant",
                                "description": "3.0e-4 -> 0.0006"}]
    assert "-  lr: 3.0e-4\n+  lr: 0.0006\n" in printed
    assert "lr: 0.0006" in (out / "configs" / "train.yaml").read_text()
    assert inject_drift.main([str(demo_repository()), "--paper", "demo", "--kind", "numerical",
                              "--out", str(out)]) == 2  # never overwrites
    assert "already exists" in capsys.readouterr().err
