"""The report as SARIF 2.1.0, for code-scanning tools (GitHub code scanning, IDE SARIF viewers).

One *result* per SAU that is not settled at full marks: a settled shortfall is an ``error`` at score 0 and a
``warning`` above it; an unresolved or judged verdict (whatever its estimate) is a ``note``. One *rule* per reported
SAU (its id), carrying the claim and how to read the verdict. Every result has one location, so that uploaders
that require one (GitHub code scanning) accept every result:

- at the verdict's first evidence: the file as a relative reference, percent-encoded (RFC 3986: a space is
  ``%20``), against the base ``%SRCROOT%`` (the repository root), with the evidence lines as the region;
- inside a notebook, at the line of the ``.ipynb`` file that holds the cell's line (``verifier.locations``), or
  at the notebook's line 1 when the file does not store one source line per file line; the message names the cell;
- without evidence (a settled absence, an unresolved claim nothing matched), at line 1 of the repository's README,
  else of its first file read (``Report.anchor``); the message says that the SAU has no evidence there.

``partialFingerprints`` hold a hash of the paper and SAU ids only, so an alert keeps its identity across reruns and
when code moves. The run's ``properties`` count the verdicts by status. Format from the OASIS SARIF 2.1.0 standard
(sections 3.4 URIs and ``uriBaseId``, 3.13 run, 3.19 tool, 3.27 result with 3.27.17 ``partialFingerprints``,
3.28 location, 3.49 reportingDescriptor). Output is deterministic: sorted keys, no timestamps.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

from verifier import __version__
from sau.vocabulary import Dimension, Evidence, Status, Verdict
from verifier.run import Report
from verifier.scoring import status_counts

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"  # the base id GitHub's code scanning resolves against the checked-out repository
FINGERPRINT = "sauverify/sau/v1"

READING = ("Score on SA-Bench's scale: 1 implemented as claimed, 0.75 one minor element off, 0.5 about half, "
           "0.25 only a trace (a name, an unused config value, a stub, code nothing runs), 0 absent or "
           "contradicted. Status: settled (a deterministic rule decided it), judged (the LLM judge decided it), "
           "unresolved (neither could; the score is the rules' estimate). Drift names what went wrong: numerical, "
           "missing, unused, stub, method, protocol or ordering. Level: error for a settled 0, warning for another "
           "settled shortfall, note for a verdict the rules did not settle.")


def to_sarif(report: Report) -> str:
    """The report as SARIF 2.1.0 JSON text (sorted keys, two-space indent, trailing newline)."""
    reported = [v for v in report.verdicts if reported_verdict(v)]
    rules = [_rule(v) for v in reported]
    results = [_result(v, index, report) for index, v in enumerate(reported)]
    properties: dict[str, object] = {"paper": report.spec.benchmark_id, **status_counts(report.verdicts),
                                      "settledAtFullMarks": len(report.verdicts) - len(reported)}
    if report.model:
        properties["judgeModel"] = report.model
    run = {"tool": {"driver": {"name": "sauverify", "version": __version__, "rules": rules}},
           "automationDetails": {"id": f"sauverify/{report.spec.benchmark_id}/"},
           "originalUriBaseIds": {SOURCE_ROOT: {"description": {"text": "the root of the repository verified"}}},
           "columnKind": "unicodeCodePoints",
           "properties": properties,
           "results": results}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def reported_verdict(verdict: Verdict) -> bool:
    """Every verdict but one settled at full marks: an unresolved estimate of 1 is not a finding of full marks."""
    return not (verdict.status == Status.SETTLED and verdict.score == 1.0)


def fingerprint(benchmark_id: str, sau_id: str) -> str:
    """The partial fingerprint of a SAU's result: the first 32 hex digits of SHA-256 over the paper and SAU ids
    (no line, no file: the alert is the claim, wherever the code moves)."""
    return hashlib.sha256(f"{benchmark_id}\0{sau_id}".encode()).hexdigest()[:32]


def relative_uri(path: str) -> str:
    """A repository-relative POSIX path as a percent-encoded relative URI reference (``my configs/a b.yaml`` ->
    ``my%20configs/a%20b.yaml``); ``/`` separates segments and stays."""
    return quote(path, safe="/")


def _rule(verdict: Verdict) -> dict:
    sau = verdict.sau
    label = Dimension(sau.dimension).label
    claim = " ".join(sau.statement.split())
    where = f" (paper: {sau.source})" if sau.source else ""
    help_text = f"Claim{where}: {claim}\n\n{READING}"
    help_markdown = f"**Claim**{where}: {claim}\n\n{READING}"
    return {
        "id": sau.id,
        "name": f"{sau.dimension}-{label}",
        "shortDescription": {"text": f"{sau.dimension} {label} claim {sau.id}"},
        "fullDescription": {"text": claim or f"{sau.dimension} {label} claim"},
        "help": {"text": help_text, "markdown": help_markdown},
        "properties": {"tags": ["sauverify", sau.dimension, label]},
    }


def _level(verdict: Verdict) -> str:
    if verdict.status != Status.SETTLED or verdict.score is None:
        return "note"
    return "error" if verdict.score == 0.0 else "warning"


def _result(verdict: Verdict, rule_index: int, report: Report) -> dict:
    score = "unscored" if verdict.score is None else f"score {verdict.score:g}"
    drift = f", {verdict.drift} drift" if verdict.drift else ""
    location, note = _location(verdict, report)
    text = f"{verdict.sau.id} ({score}, {verdict.status}{drift}): {verdict.reason}"
    return {
        "ruleId": verdict.sau.id,
        "ruleIndex": rule_index,
        "level": _level(verdict),
        "message": {"text": text + (f" [{note}]" if note else "")},
        "locations": [location] if location else [],
        "partialFingerprints": {FINGERPRINT: fingerprint(report.spec.benchmark_id, verdict.sau.id)},
        "properties": {"sau": verdict.sau.id, "dimension": verdict.sau.dimension, "score": verdict.score,
                       "status": verdict.status, "drift": verdict.drift, "decidedBy": verdict.decided_by},
    }


def _location(verdict: Verdict, report: Report) -> tuple[dict | None, str]:
    """The result's location and a note for its message saying where it points when that is not the evidence
    itself."""
    if verdict.evidence:
        evidence = verdict.evidence[0]
        start, end, note, exact = _lines_in_file(evidence, report)
        region: dict[str, object] = {"startLine": start, "endLine": end}
        if evidence.snippet and exact:
            region["snippet"] = {"text": evidence.snippet}
        return _physical(evidence.file, region), note
    if report.anchor is None:
        return None, "no evidence, and no file was read to point at"
    return (_physical(report.anchor, {"startLine": 1}),
            f"no evidence in the code: shown at {report.anchor} line 1")


def _lines_in_file(evidence: Evidence, report: Report) -> tuple[int, int, str, bool]:
    """(first line, last line, note, whether the lines are the evidence's own) of the evidence in its file as
    stored."""
    start, end = max(1, evidence.line), max(1, evidence.line, evidence.end_line)
    if evidence.cell is None:
        return start, end, "", True
    cell_start = report.cell_lines.get(evidence.where)
    if cell_start is None:
        return 1, 1, f"in notebook cell {evidence.cell}, lines {evidence.lines} of the cell", False
    return (cell_start + start - 1, cell_start + end - 1,
            f"notebook cell {evidence.cell}, line {evidence.line} of the cell", True)


def _physical(file: str, region: dict) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": relative_uri(file), "uriBaseId": SOURCE_ROOT},
                                 "region": region}}
