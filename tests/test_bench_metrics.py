"""The benchmark's statistics against values computed by hand, and its summaries of hand-made rows."""

import math

import pytest

from benchmarks.metrics import agreement, median, mid_ranks, quadratic_weighted_kappa, scale_level, spearman
from benchmarks.summary import NO_RULE, NO_SITE, DecisionsError, drift_figures, load_decisions, summarise


def test_qwk_hand_computed_two_categories() -> None:
    # levels ours 0,0,4,4 theirs 0,4,4,4: sum(w*O) = 1 (one pair 4 apart, weight 1); expected counts from the
    # marginals (2,2) x (1,3) / 4 put 1.5 at (0,4) and 0.5 at (4,0): sum(w*E) = 2; kappa = 1 - 1/2
    assert quadratic_weighted_kappa([(0, 0), (0, 1), (1, 1), (1, 1)]) == pytest.approx(0.5)


def test_qwk_hand_computed_partial_credit() -> None:
    # levels (0,1) and (2,2): sum(w*O) = 1/16; E = 0.5 in each of (0,1) (0,2) (2,1) (2,2), sum(w*E) = 0.5*(1+4+1)/16
    assert quadratic_weighted_kappa([(0.0, 0.25), (0.5, 0.5)]) == pytest.approx(2 / 3)


def test_qwk_perfect_undefined_and_off_scale() -> None:
    assert quadratic_weighted_kappa([(0, 0), (0.5, 0.5), (1, 1)]) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([(1, 1), (1, 1)]) is None  # one category: chance agreement is total
    assert quadratic_weighted_kappa([]) is None
    with pytest.raises(ValueError, match="not on the scale"):
        quadratic_weighted_kappa([(0.3, 0.25)])
    assert scale_level(0.75) == 3


def test_spearman_hand_computed() -> None:
    # no ties: d = 0, 1, 1, 0, rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # ties: ranks x = 1, 2.5, 2.5, 4; cov 4.5, spreads 4.5 and 5: rho = 4.5 / sqrt(22.5) = sqrt(0.9)
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(math.sqrt(0.9))
    assert spearman([3, 2, 1], [1, 2, 3]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1], [2]) is None
    with pytest.raises(ValueError, match="differ in length"):
        spearman([1, 2], [1])


def test_mid_ranks_median_and_agreement() -> None:
    assert mid_ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
    assert median([3, 1, 2]) == 2 and median([4, 1, 3, 2]) == 2.5 and median([]) is None
    figures = agreement([(1, 1), (0.75, 1), (0, 0.5), (0.25, 0.25)])
    assert figures["pairs"] == 4 and figures["exact"] == 0.5 and figures["near"] == 0.75
    assert agreement([]) == {"pairs": 0, "exact": None, "near": None, "qwk": None}


def _verdict(sau_id, dimension, score, status, checkable=True):
    return {"id": sau_id, "dimension": dimension, "score": score, "status": status, "checkable": checkable}


def _rows():
    one = {"config": "c1", "paper": "p", "seconds": 1.0, "peak_rss_mb": 80.0, "error": None, "overall": 1.0,
           "verdicts": [_verdict("p-D1-1", "D1", 1.0, "settled"), _verdict("p-D1-2", "D1", 0.0, "settled"),
                        _verdict("p-D1-3", "D1", 0.5, "unresolved"),
                        _verdict("p-D1-4", "D1", None, "unresolved", checkable=False),
                        _verdict("p-D2-1", "D2", None, "unresolved")],
           "mutants": []}
    two = {"config": "c2", "paper": "p", "seconds": 3.0, "peak_rss_mb": 90.0, "error": None, "overall": 0.25,
           "verdicts": [_verdict("p-D1-1", "D1", 0.25, "settled"), _verdict("p-D1-2", "D1", 0.25, "unresolved")],
           "mutants": []}
    broken = {"config": "c2", "paper": "q", "seconds": 0.0, "peak_rss_mb": 0.0, "error": "unknown paper 'q'",
              "overall": None, "verdicts": [], "mutants": []}
    return [one, two, broken]


def test_summarise_hand_made_rows() -> None:
    decisions = {("c1", "p-D1-1"): 1.0, ("c1", "p-D1-2"): 0.25, ("c1", "p-D1-3"): 0.5, ("c1", "p-D2-1"): 1.0,
                 ("c2", "p-D1-1"): 0.0, ("c2", "p-D1-2"): 0.5}
    figures = summarise(_rows(), decisions)
    assert figures["repositories"] == 3 and figures["errors"] == ["c2/q: unknown paper 'q'"]
    d1 = figures["dimensions"]["D1"]
    assert (d1["saus"], d1["settled"], d1["unresolved"], d1["to_llm"]) == (6, 3, 3, 2)  # p-D1-4 is not checkable
    assert d1["settle_rate"] == 0.5
    assert figures["dimensions"]["D2"]["to_llm"] == 1 and figures["to_llm"] == 3
    settled = figures["agreement"]["settled"]
    # settled pairs (1, 1), (0, 0.25), (0.25, 0): one exact, all within 0.25
    assert (settled["pairs"], settled["exact"], settled["near"]) == (3, pytest.approx(1 / 3), 1.0)
    scored = figures["agreement"]["scored"]
    assert (scored["pairs"], scored["exact"], scored["without_decision"]) == (5, 0.4, 0)
    # reference overall: c1 D1 mean of (1, 0.25, 0.5, no decision) = 0.5833 (D2 has no score of ours: left out);
    # c2 = 0.25. Ours 1.0 and 0.25: same order, rho = 1
    assert figures["spearman"] == {"papers": 2, "rho": pytest.approx(1.0)}
    assert figures["seconds"] == {"median": 2.0, "max": 3.0, "total": 4.0} and figures["peak_rss_mb"] == 90.0


def test_drift_figures_rates_false_alarms_and_notes() -> None:
    rows = _rows()
    rows[0]["eligible"] = {"numerical": 5}
    rows[0]["mutants"] = [
        {"kind": "numerical", "operator": "change_constant", "status": "settled", "dropped": True,
         "false_alarms": [], "collateral": ["p-D1-3"], "compared": 4},
        {"kind": "numerical", "operator": "change_constant", "status": "unresolved", "dropped": False,
         "false_alarms": ["p-D1-2", "p-D1-4"], "collateral": [], "compared": 4}]
    figures = drift_figures(rows, ("numerical", "method", "stub"))
    numerical = figures["numerical"]
    assert (numerical["mutants"], numerical["eligible"], numerical["detected"], numerical["detection_rate"]) == (
        2, 5, 1, 0.5)
    assert (numerical["false_alarm_mutants"], numerical["false_alarm_verdicts"], numerical["compared"]) == (1, 2, 8)
    assert numerical["collateral"] == 1
    assert numerical["by_status"] == {"settled": {"mutants": 1, "detected": 1},
                                      "unresolved": {"mutants": 1, "detected": 0}}
    assert figures["method"] == {"mutants": 0, "note": NO_RULE}  # no D2 verdict is settled in the rows
    assert figures["stub"] == {"mutants": 0, "note": NO_SITE}  # D1 verdicts are settled: sites, not rules, lacked


def test_load_decisions_reads_and_names_bad_lines(tmp_path) -> None:
    (tmp_path / "c1.jsonl").write_text('{"claim_id": "p-D1-1", "score": 0.75}\n\n{"claim_id": "p-D1-2"}\n')
    with pytest.raises(DecisionsError, match=r"c1\.jsonl:3: not a decision"):
        load_decisions(tmp_path, ["c1"])
    (tmp_path / "c1.jsonl").write_text('{"claim_id": "p-D1-1", "score": 0.75}\n')
    assert load_decisions(tmp_path, ["c1", "held-out-without-file"]) == {("c1", "p-D1-1"): 0.75}
