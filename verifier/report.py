"""Reports: JSON (a superset of SA-Bench's result file) and the terminal table.

JSON layout (``schema`` ``sauverify-report/1``; documented field by field in the README):
``paper_id`` (SA-Bench slug), ``benchmark_id``, ``paper_title``, ``repo_path`` (as given), ``model`` (the judge
model, ``null`` when no LLM was used), ``dimensions`` (per dimension: ``score``, ``total_claims``, ``settled``,
``judged``, ``unresolved``, ``unscored``, ``claims``), ``overall_score``, ``summary`` (counts, settle rate, and the
repository's stub and TODO findings),
``warnings`` (per input file), and ``tool``. Each claim has SA-Bench's ``id``, ``claim``, ``source``, ``score``,
``evidence`` (``[{file, lines, snippet, kind}]``), ``judge_reasoning``, and ours: ``status``, ``drift``,
``decided_by``, ``findings``. Keys are sorted and nothing depends on time or on the machine, so the same inputs give
the same bytes.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier import __version__
from sau.vocabulary import Dimension, Status, Verdict
from verifier.run import Report
from verifier.scoring import dimension_scores, overall_score, settle_rate
from verifier.terminal import printable

REPORT_SCHEMA = "sauverify-report/1"


def to_json(report: Report) -> str:
    """The report as JSON text (sorted keys, two-space indent, trailing newline)."""
    verdicts = list(report.verdicts)
    scores = dimension_scores(verdicts, report.dimensions)
    stubs, todos = stub_totals(report)
    dimensions = {}
    for score in scores:
        dimensions[score.dimension] = {
            "name": Dimension(score.dimension).label,
            "score": score.score,
            "total_claims": score.total,
            "settled": score.settled,
            "judged": score.judged,
            "unresolved": score.unresolved,
            "unscored": score.unscored,
            "claims": [_claim(v) for v in verdicts if v.sau.dimension == score.dimension],
        }
    data = {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "sauverify", "version": __version__},
        "paper_id": report.spec.slug,
        "benchmark_id": report.spec.benchmark_id,
        "paper_title": report.spec.title,
        "repo_path": report.repo,
        "model": report.model,
        "dimensions": dimensions,
        "overall_score": overall_score(scores),
        "summary": {
            "total_claims": len(verdicts),
            "settled": sum(v.status == Status.SETTLED for v in verdicts),
            "judged": sum(v.status == Status.JUDGED for v in verdicts),
            "unresolved": sum(v.status == Status.UNRESOLVED for v in verdicts),
            "unscored": sum(v.score is None for v in verdicts),
            "settle_rate": settle_rate(verdicts),
            "files_read": report.files_read,
            "stubs": stubs,
            "todos": todos,
            "stub_findings": report.stubs,
        },
        "warnings": [w.to_json() for w in report.warnings],
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def stub_totals(report: Report) -> tuple[int, int]:
    """(stub findings, TODO findings) of the repository: codes STB* and TOD* of ``extractors.stubs``."""
    return (sum(n for code, n in report.stubs.items() if code.startswith("STB")),
            sum(n for code, n in report.stubs.items() if code.startswith("TOD")))


def _claim(verdict: Verdict) -> dict:
    return {
        "id": verdict.sau.id,
        "claim": verdict.sau.statement,
        "source": verdict.sau.source,
        "score": verdict.score,
        "status": verdict.status,
        "drift": verdict.drift,
        "decided_by": verdict.decided_by,
        "judge_reasoning": verdict.reason,
        "evidence": [e.to_json() for e in verdict.evidence],
        "findings": [f.to_json() for f in verdict.findings],
    }


_STATUS_STYLE = {"settled": "green", "judged": "cyan", "unresolved": "yellow"}


def print_table(report: Report, console: Console) -> None:
    """Print the per-SAU table, the dimension scores and the overall score, and the counts behind them."""
    # every string from the spec or the repository is plain Text: "[red]" in a claim id or a path is not markup
    # and control characters in them are shown escaped (verifier.terminal)
    table = Table(title=Text(printable(f"{report.spec.benchmark_id} ({report.spec.slug}) on {report.repo}")),
                  title_justify="left")
    for column in ("SAU", "Dim", "Score", "Status", "Drift", "Evidence"):
        table.add_column(column, no_wrap=column in ("SAU", "Dim", "Score"))
    for verdict in report.verdicts:
        shown = "-" if verdict.score is None else f"{verdict.score:.2f}"
        table.add_row(Text(printable(verdict.sau.id)), verdict.sau.dimension, shown,
                      Text(verdict.status, style=_STATUS_STYLE.get(verdict.status, "")),
                      verdict.drift or "", Text(printable(verdict.evidence[0].span_ref if verdict.evidence else "")))
    console.print(table)
    scores = dimension_scores(list(report.verdicts), report.dimensions)
    for score in scores:
        shown = "n/a" if score.score is None else f"{score.score:.2f}"
        console.print(f"{score.dimension} {Dimension(score.dimension).label:<9} {shown:>5}   "
                      f"{score.total} SAUs: {score.settled} settled, "
                      + (f"{score.judged} judged, " if score.judged else "") + f"{score.unresolved} unresolved"
                      + (f" ({score.unscored} without a score)" if score.unscored else ""))
    overall = overall_score(scores)
    rate = settle_rate(list(report.verdicts))
    stubs, todos = stub_totals(report)
    console.print(f"overall {'n/a' if overall is None else f'{overall:.2f}'}   "
                  f"settle rate {0 if rate is None else rate:.0%}   files read {report.files_read}   "
                  f"stubs {stubs}   TODOs {todos}   warnings {len(report.warnings)}")
