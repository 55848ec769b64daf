"""The report as SARIF 2.1.0, for code-scanning tools (GitHub code scanning, IDE SARIF viewers).

One SARIF *result* per SAU whose verdict falls short of full marks or could not be decided, located at its first
evidence line (a verdict without evidence, such as an absent mechanism, has no location: SARIF allows that).
Rule ids are the dimension names (``D1-numerical``, ``D2-formula``, ...). Levels: a settled shortfall is an
``error`` when the score is 0 and a ``warning`` otherwise; an unresolved or judged one is a ``note``. Format from the
OASIS SARIF 2.1.0 standard (sections 3.13 run, 3.19 tool, 3.27 result, 3.28 location). Output is deterministic:
sorted keys, no timestamps.
"""

from __future__ import annotations

import json

from verifier import __version__
from sau.vocabulary import Dimension, Status, Verdict
from verifier.dimensions import DIMENSION_RULES
from verifier.run import Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_sarif(report: Report) -> str:
    """The report as SARIF 2.1.0 JSON text (sorted keys, two-space indent, trailing newline)."""
    dimensions = sorted({v.sau.dimension for v in report.verdicts} | set(report.dimensions))
    rules = [{"id": _rule_id(d), "name": Dimension(d).label,
              "shortDescription": {"text": DIMENSION_RULES[d].description}} for d in dimensions]
    results = [_result(v) for v in report.verdicts if _reported(v)]
    run = {"tool": {"driver": {"name": "sauverify", "version": __version__,
                               "informationUri": "https://github.com/kernel-14/SA-Bench", "rules": rules}},
           "automationDetails": {"id": f"sauverify/{report.spec.benchmark_id}"},
           "results": results}
    if report.model:
        run["properties"] = {"judgeModel": report.model}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, sort_keys=True) + "\n"


def _reported(verdict: Verdict) -> bool:
    """Every verdict short of full marks, and every one nobody could score."""
    return verdict.score is None or verdict.score < 1.0


def _rule_id(dimension: str) -> str:
    return f"{dimension}-{Dimension(dimension).label}"


def _level(verdict: Verdict) -> str:
    if verdict.status != Status.SETTLED or verdict.score is None:
        return "note"
    return "error" if verdict.score == 0.0 else "warning"


def _result(verdict: Verdict) -> dict:
    score = "unscored" if verdict.score is None else f"score {verdict.score:g}"
    drift = f", {verdict.drift} drift" if verdict.drift else ""
    result: dict[str, object] = {
        "ruleId": _rule_id(verdict.sau.dimension),
        "level": _level(verdict),
        "message": {"text": f"{verdict.sau.id} ({score}, {verdict.status}{drift}): {verdict.reason}"},
        "partialFingerprints": {"sauId": verdict.sau.id},
        "properties": {"sau": verdict.sau.id, "score": verdict.score, "status": verdict.status,
                       "drift": verdict.drift, "decidedBy": verdict.decided_by, "claim": verdict.sau.statement},
    }
    locations = []
    for evidence in verdict.evidence[:1]:
        region: dict[str, object] = {"startLine": evidence.line, "endLine": evidence.end_line}
        if evidence.snippet:
            region["snippet"] = {"text": evidence.snippet}
        artifact = {"uri": evidence.file, "uriBaseId": "SRCROOT"}
        location: dict[str, object] = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
        if evidence.cell is not None:
            location["message"] = {"text": f"notebook cell {evidence.cell}"}
        locations.append(location)
    if locations:
        result["locations"] = locations
    return result
