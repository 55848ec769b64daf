"""Benchmark figures from per-repository rows: settle rate per dimension, the SAUs the LLM would get, agreement with
a decisions file, paper-level rank correlation, time and memory, and drift-injection detection.

A row (one repository, as ``benchmarks.run_benchmark`` writes it) is a dict: ``config``, ``paper``, ``seconds``,
``peak_rss_mb``, ``error`` (``None`` or a message), ``overall`` (the report's overall score or ``None``),
``verdicts`` (``[{id, dimension, score, status, checkable}]``), ``mutants`` (``benchmarks.injection.outcome``
dicts), and optionally ``eligible`` (per drift kind, how many SAUs could be targeted) and ``mutant_errors``. Decisions map ``(config, claim_id)`` to the reference score on SA-Bench's scale.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from benchmarks.drift import KIND_DIMENSION, KINDS
from benchmarks.metrics import agreement, median, spearman
from sau.vocabulary import DIMENSIONS, Status

NO_RULE = "no mutants (no rule settles this dimension yet)"
NO_SITE = "no mutants (no applicable code at the evidence of the implemented SAUs)"

Decisions = dict[tuple[str, str], float]


class DecisionsError(ValueError):
    """A decisions file that cannot be read; the message names the file and line."""


def load_decisions(folder: Path, configs: Iterable[str]) -> Decisions:
    """Read ``<folder>/<config>.jsonl`` for each config that has one (one JSON object per line with ``claim_id``
    and ``score``). A config without a file has no decisions. Raises ``DecisionsError`` naming file and line."""
    decisions: Decisions = {}
    for config in configs:
        path = Path(folder) / f"{config}.jsonl"
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                decisions[(config, str(row["claim_id"]))] = float(row["score"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
                raise DecisionsError(f"{path}:{number}: not a decision (needs claim_id and score): {error}") from None
    return decisions


def _dimension_counts(verdicts: list[dict]) -> dict:
    counts = {}
    for dimension in DIMENSIONS:
        mine = [v for v in verdicts if v["dimension"] == dimension]
        if not mine:
            continue
        settled = sum(v["status"] == Status.SETTLED for v in mine)
        counts[dimension] = {
            "saus": len(mine), "settled": settled, "settle_rate": settled / len(mine),
            "judged": sum(v["status"] == Status.JUDGED for v in mine),
            "unresolved": sum(v["status"] == Status.UNRESOLVED for v in mine),
            # what an LLM fallback would be asked: undecided, yet code could show it
            "to_llm": sum(v["status"] == Status.UNRESOLVED and v["checkable"] for v in mine)}
    return counts


def _reference_overall(row: dict, decisions: Decisions) -> float | None:
    """SA-Bench's way (mean of dimension means) over the reference scores of the dimensions our report scored."""
    means = []
    for dimension in DIMENSIONS:
        ours = [v for v in row["verdicts"] if v["dimension"] == dimension]
        if not any(v["score"] is not None for v in ours):
            continue
        theirs = [decisions[(row["config"], v["id"])] for v in ours if (row["config"], v["id"]) in decisions]
        if theirs:
            means.append(sum(theirs) / len(theirs))
    return sum(means) / len(means) if means else None


def summarise(rows: list[dict], decisions: Decisions) -> dict:
    """The figures for ``rows`` (see the module docstring): ``repositories``, ``errors``, ``dimensions`` (per
    dimension ``saus``, ``settled``, ``settle_rate``, ``judged``, ``unresolved``, ``to_llm``), ``to_llm``,
    ``agreement`` (``settled`` and ``scored``, each ``benchmarks.metrics.agreement`` plus per dimension, and
    ``without_decision``), ``spearman`` (``papers``, ``rho``), ``seconds`` (``median``, ``max``, ``total``) and
    ``peak_rss_mb``. Shares are in [0, 1]; a figure with nothing to measure is ``None``."""
    done = [r for r in rows if r["error"] is None]
    verdicts = [dict(v, config=r["config"]) for r in done for v in r["verdicts"]]
    dimensions = _dimension_counts(verdicts)
    figures = {"repositories": len(rows), "errors": [f"{r['config']}/{r['paper']}: {r['error']}"
                                                     for r in rows if r["error"] is not None]
               + [f"{r['config']}/{r['paper']}: mutants {message}" for r in rows
                  for message in r.get("mutant_errors", ())],
               "dimensions": dimensions, "to_llm": sum(d["to_llm"] for d in dimensions.values())}
    agreements = {}
    for name, chosen in (("settled", [v for v in verdicts if v["status"] == Status.SETTLED]),
                         ("scored", [v for v in verdicts if v["score"] is not None])):
        pairs = [(v["score"], decisions[(v["config"], v["id"])], v["dimension"]) for v in chosen
                 if (v["config"], v["id"]) in decisions]
        agreements[name] = {**agreement([(a, b) for a, b, _ in pairs]),
                            "without_decision": len(chosen) - len(pairs),
                            "by_dimension": {d: agreement([(a, b) for a, b, dim in pairs if dim == d])
                                             for d in DIMENSIONS if any(dim == d for _, _, dim in pairs)}}
    figures["agreement"] = agreements
    papers = [(r["overall"], _reference_overall(r, decisions)) for r in done if r["overall"] is not None]
    papers = [(a, b) for a, b in papers if b is not None]
    figures["spearman"] = {"papers": len(papers),
                           "rho": spearman([a for a, _ in papers], [b for _, b in papers])}
    seconds = [r["seconds"] for r in done]
    figures["seconds"] = {"median": median(seconds), "max": max(seconds, default=None), "total": sum(seconds)}
    figures["peak_rss_mb"] = max((r["peak_rss_mb"] for r in done), default=None)
    return figures


def drift_figures(rows: list[dict], kinds: Iterable[str] = KINDS) -> dict:
    """Per drift kind: ``mutants``, ``eligible`` (SAUs that could have been targeted), ``detected`` (target score
    dropped), ``detection_rate``, ``false_alarm_mutants``
    (mutants that changed a verdict whose evidence the edit did not touch), ``false_alarm_verdicts`` and
    ``compared`` (untargeted verdicts compared), ``collateral`` (changed verdicts sharing the edited code), and
    ``mutants``/``detected`` counts ``by_operator`` and ``by_status`` (the target's baseline status); or, when there are no mutants, ``note``: ``NO_RULE`` when no verdict of the kind's
    dimension was settled or judged, else ``NO_SITE``."""
    done = [r for r in rows if r["error"] is None]
    decided = {v["dimension"] for r in done for v in r["verdicts"] if v["status"] in (Status.SETTLED, Status.JUDGED)}
    result = {}
    for kind in kinds:
        mutants = [m for r in done for m in r["mutants"] if m["kind"] == kind]
        if not mutants:
            wanted = KIND_DIMENSION[kind]
            ruled = bool(decided) if wanted is None else wanted in decided
            result[kind] = {"mutants": 0, "note": NO_SITE if ruled else NO_RULE}
            continue
        detected = sum(m["dropped"] for m in mutants)
        eligible = sum(r.get("eligible", {}).get(kind, 0) for r in done)
        by_operator: dict[str, dict[str, int]] = defaultdict(lambda: {"mutants": 0, "detected": 0})
        by_status: dict[str, dict[str, int]] = defaultdict(lambda: {"mutants": 0, "detected": 0})
        for m in mutants:
            for group, key in ((by_operator, m["operator"]), (by_status, m["status"])):
                group[key]["mutants"] += 1
                group[key]["detected"] += int(m["dropped"])
        result[kind] = {
            "mutants": len(mutants), "eligible": eligible, "detected": detected,
            "detection_rate": detected / len(mutants),
            "false_alarm_mutants": sum(bool(m["false_alarms"]) for m in mutants),
            "false_alarm_verdicts": sum(len(m["false_alarms"]) for m in mutants),
            "compared": sum(m["compared"] for m in mutants),
            "collateral": sum(len(m["collateral"]) for m in mutants),
            "by_operator": dict(sorted(by_operator.items())), "by_status": dict(sorted(by_status.items()))}
    return result
