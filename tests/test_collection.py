"""``verifier.collection.fewer_collections``: the collector's pace inside a run, restored after it (also after an
error), and a run's report unchanged by it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from verifier.collection import OLDER_THRESHOLD, YOUNG_THRESHOLD, fewer_collections

ROOT = Path(__file__).resolve().parent.parent


def test_thresholds_inside_and_restored_after_an_error() -> None:
    before = gc.get_threshold()
    existing = object()  # an object made before the block: frozen inside it
    with pytest.raises(ValueError):
        with fewer_collections():
            assert gc.get_threshold() == (YOUNG_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD)
            assert gc.get_freeze_count() > 0
            raise ValueError("a rule failed")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert existing is not None


def test_cycles_made_inside_are_still_collected() -> None:
    with fewer_collections():
        cycle: list = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1


def test_the_demo_report_is_the_same_with_the_default_pace() -> None:
    from verifier.report import to_json
    from verifier.run import verify
    from verifier.specs.load import load_paper
    repo = ROOT / "benchmark_data" / "demo" / "repo"
    spec = load_paper("demo")
    ours = to_json(verify(repo, spec, "demo"))
    default = to_json(verify.__wrapped__(repo, spec, "demo"))  # type: ignore[attr-defined]
    assert ours == default
    assert '"settled"' in ours
