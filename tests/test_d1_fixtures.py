"""Fixture repositories under tests/fixtures/d1/<case>/: each holds a repository (repo/), a spec (spec.yaml) and the
verdicts it must produce (expected.yaml). Adding a case means adding a folder, not code."""

from pathlib import Path

import pytest
import yaml

from verifier.run import verify
from verifier.specs import load_project_spec

CASES = sorted(p for p in (Path(__file__).parent / "fixtures" / "d1").iterdir() if (p / "spec.yaml").is_file())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_verdicts(case: Path) -> None:
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    report = verify(case / "repo", load_project_spec(case / "spec.yaml"), case.name)
    verdicts = {v.sau.id: v for v in report.verdicts}
    for sau_id, want in expected["verdicts"].items():
        verdict = verdicts[sau_id]
        got = {"score": verdict.score, "status": verdict.status, "drift": verdict.drift,
               "evidence": verdict.evidence[0].ref if verdict.evidence else None}
        assert got == want, verdict.reason
    want_warnings = expected.get("warnings", [])
    assert [{"file": w.file, "line": w.line} for w in report.warnings] == want_warnings


def test_fixture_set_covers_the_issue_cases() -> None:
    names = {c.name for c in CASES}
    assert {"argparse_default", "yaml_config", "call_keyword", "dataclass_field", "drifted_value", "comment_only",
            "unparsable_file"} <= names
