"""D1's dataset and metric elements (rules.d1_elements): parsed from a D1 SAU's spec, decided by D3's presence
lookup, counted in the compound score, and shown in the findings and evidence (fixture d1/dataset_element)."""

from pathlib import Path

import pytest

from extractors.repository import build_index
from rules import d1_numerical, names
from sau.vocabulary import Status
from verifier.specs.errors import SpecError
from verifier.specs.project import load_project_spec

CASE = Path(__file__).parent / "fixtures" / "d1" / "dataset_element"


@pytest.fixture(scope="module")
def verdicts():
    spec = load_project_spec(CASE / "spec.yaml")
    index = build_index(CASE / "repo", names.normalise)
    return {sau.id: d1_numerical.check(sau, index) for sau in spec.saus}


def test_spec_reads_datasets_and_metrics_beside_atoms() -> None:
    saus = {s.id: s for s in load_project_spec(CASE / "spec.yaml").saus}
    assert saus["D1-001"].checks["datasets"] == ({"name": "OpenWebText", "aliases": ("owt",)},)
    assert saus["D1-002"].checks["datasets"] == ({"name": "PG19", "aliases": ()},)
    assert saus["D1-003"].checks["metrics"] == ({"name": "RMSE", "aliases": ("root mean squared error",)},)
    assert saus["D1-004"].atoms == () and saus["D1-004"].complete


def test_loaded_dataset_holds_with_its_line(verdicts) -> None:
    verdict = verdicts["D1-001"]
    assert (verdict.score, verdict.status) == (1.0, Status.SETTLED)
    element = verdict.findings[-1]
    assert (element.category, element.element, element.outcome, element.refs) == \
        ("datasets", "OpenWebText", "present", ("train.py:17",))
    assert "train.py:17" in [e.span_ref for e in verdict.evidence]


def test_dataset_only_in_dead_code_counts_as_a_missing_element(verdicts) -> None:
    verdict = verdicts["D1-002"]  # batch size matched (1), PG19 absent (0): mean 0.5, whatever else
    assert (verdict.score, verdict.status, verdict.drift) == (0.5, Status.SETTLED, "missing")
    assert verdict.findings[-1].outcome == "absent" and "train.py:13" in [e.span_ref for e in verdict.evidence]


def test_undecided_element_keeps_the_claim_open(verdicts) -> None:
    verdict = verdicts["D1-005"]  # C4 only as a config value no code names: 0.5..1
    assert (verdict.score, verdict.status) == (0.75, Status.UNRESOLVED)
    assert "dataset 'C4' ambiguous" in verdict.reason


def test_malformed_element_is_a_spec_error(tmp_path: Path) -> None:
    text = (CASE / "spec.yaml").read_text().replace("datasets: [PG19]", "datasets: [{name: PG19, alias: [pg]}]")
    (tmp_path / "spec.yaml").write_text(text)
    with pytest.raises(SpecError, match="unknown key"):
        load_project_spec(tmp_path / "spec.yaml")
