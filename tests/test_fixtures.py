"""Fixture repositories under tests/fixtures/<dimension>/<case>/ (d1, d2, ...): each holds a repository (repo/), a
spec (spec.yaml) and the verdicts it must produce (expected.yaml: score, status, drift, first evidence, and optionally
a fragment the reason must contain). Adding a case means adding a folder, not code."""

from pathlib import Path

import pytest
import yaml

from verifier.run import verify
from verifier.specs import load_project_spec

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
               "evidence": verdict.evidence[0].ref if verdict.evidence else None}
        fragment = want.pop("reason", None)
        assert got == want, verdict.reason
        if fragment is not None:
            assert fragment in verdict.reason, verdict.reason
    want_warnings = expected.get("warnings", [])
    assert [{"file": w.file, "line": w.line} for w in report.warnings] == want_warnings


def test_fixture_set_covers_the_issue_cases() -> None:
    names = {c.name for c in CASES if c.parent.name == "d1"}
    assert {"argparse_default", "yaml_config", "call_keyword", "dataclass_field", "drifted_value", "comment_only",
            "unparsable_file"} <= names
