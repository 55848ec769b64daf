"""Fixture repositories under tests/fixtures/<dimension>/<case>/ (d1 to d4): each holds a repository (repo/), a
spec (spec.yaml) and the verdicts it must produce (expected.yaml: score, status, drift, the first evidence
reference, optionally a fragment the reason must contain, and the warnings). Adding a case means adding a
folder, not code."""

from pathlib import Path

import pytest
import yaml

from verifier.run import verify
from verifier.specs.project import load_project_spec

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("d[1-4]/*") if (p / "spec.yaml").is_file())


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_fixture_verdicts(case: Path) -> None:
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    report = verify(case / "repo", load_project_spec(case / "spec.yaml"), case.name)
    verdicts = {v.sau.id: v for v in report.verdicts}
    for sau_id, want in expected["verdicts"].items():
        verdict = verdicts[sau_id]
        got = {"score": verdict.score, "status": verdict.status, "drift": verdict.drift,
               "evidence": verdict.evidence[0].span_ref if verdict.evidence else None}
        assert got == {k: v for k, v in want.items() if k != "reason"}, verdict.reason
        assert want.get("reason", "") in verdict.reason
    want_warnings = expected.get("warnings", [])
    assert [{"file": w.file, "line": w.line} for w in report.warnings] == want_warnings


def test_fixture_set_covers_the_issue_cases() -> None:
    names = {f"{c.parent.name}/{c.name}" for c in CASES}
    assert {"d1/argparse_default", "d1/yaml_config", "d1/call_keyword", "d1/dataclass_field", "d1/drifted_value",
            "d1/comment_only", "d1/unparsable_file"} <= names
    assert {"d4/in_order_two_modules", "d4/swapped_steps", "d4/never_called", "d3/comment_only_dataset",
            "d3/dead_metric"} <= names
    assert {"d2/rewritings", "d2/drifts", "d2/absent_and_ambiguous", "d2/unreached"} <= names
