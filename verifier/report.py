"""Reports: JSON (our own layout; how it differs from SA-Bench's result file is in the README, and
``verifier.sabench_format`` writes SA-Bench's) and the table, as a terminal table or a plain text layout.

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
from typing import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier import __version__
from sau.vocabulary import Dimension, Verdict
from verifier.run import Report
from verifier.scoring import dimension_scores, overall_score, settle_rate, status_counts
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
            **{("total_claims" if k == "total" else k): n for k, n in status_counts(verdicts).items()},
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
_COLUMNS = ("SAU", "Dim", "Score", "Status", "Drift", "Evidence")


def print_table(report: Report, console: Console, explain: bool = False, plain: bool | None = None) -> None:
    """Print the per-SAU table, the dimension scores and the overall score, and the counts behind them.

    ``plain`` (default: when ``console`` is not a terminal, or with ``explain``) prints aligned text without a box
    and never shortens a cell, so that every ``file:line`` stays whole in a pipe, a CI log or a file; with
    ``explain`` each verdict's reason follows its row. Otherwise a boxed table fitted to the terminal."""
    if plain is None:
        plain = explain or not console.is_terminal
    rows = [_row(v) for v in report.verdicts]
    # control characters from the spec or the repository are shown escaped (verifier.terminal)
    title = printable(f"{report.spec.benchmark_id} ({report.spec.slug}) on {report.repo}")
    if plain:
        _print_plain(console, title, rows, report.verdicts if explain else None)
    else:
        # every string from the spec or the repository is plain Text: "[red]" in a claim id or a path is not markup
        table = Table(title=Text(title), title_justify="left")
        for column in _COLUMNS:
            table.add_column(column, no_wrap=column in ("SAU", "Dim", "Score"))
        for verdict, row in zip(report.verdicts, rows):
            table.add_row(Text(row[0]), row[1], row[2], Text(row[3], style=_STATUS_STYLE.get(verdict.status, "")),
                          row[4], Text(row[5]))
        console.print(table)
    for line in summary_lines(report):
        console.print(Text(line), soft_wrap=True)


def _row(verdict: Verdict) -> tuple[str, str, str, str, str, str]:
    shown = "-" if verdict.score is None else f"{verdict.score:.2f}"
    evidence = verdict.evidence[0].span_ref if verdict.evidence else ""
    return printable(verdict.sau.id), verdict.sau.dimension, shown, verdict.status, verdict.drift or "", \
        printable(evidence)


def _print_plain(console: Console, title: str, rows: Sequence[tuple[str, ...]],
                 explained: tuple[Verdict, ...] | None) -> None:
    """The rows as ``aligned`` lines under ``title``, one line per row whatever its length (``soft_wrap``: the
    console neither wraps nor cuts it), each followed by its verdict's reason with ``explained``."""
    header, *lines = aligned(_COLUMNS, rows)
    console.print(Text(title), soft_wrap=True)
    console.print(Text(header), soft_wrap=True)
    for index, text in enumerate(lines):
        console.print(Text(text), soft_wrap=True)
        if explained is not None:
            verdict = explained[index]
            console.print(Text(printable(f"    reason: {' '.join(verdict.reason.split())} ({verdict.decided_by})")),
                          soft_wrap=True)
            if len(verdict.evidence) > 1:
                console.print(Text(printable("    also: " + ", ".join(e.span_ref for e in verdict.evidence[1:]))),
                              soft_wrap=True)


def aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The plain layout of a table for pipes and files: ``header`` then each row, columns padded to their widest
    cell and two spaces apart, the last one unpadded, no trailing spaces."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return ("  ".join(cell.ljust(width) for cell, width in zip(cells[:-1], widths)) + "  " + cells[-1]).rstrip()

    return [line(header), *(line(row) for row in rows)]


def summary_lines(report: Report) -> list[str]:
    """The lines under the table: one per dimension, then the overall score with the settle rate, the unresolved
    and judged counts beside it, files read, stubs, TODOs and warnings."""
    verdicts = list(report.verdicts)
    scores = dimension_scores(verdicts, report.dimensions)
    lines = []
    for score in scores:
        shown = "n/a" if score.score is None else f"{score.score:.2f}"
        lines.append(f"{score.dimension} {Dimension(score.dimension).label:<9} {shown:>5}   "
                     f"{score.total} SAUs: {score.settled} settled, "
                     + (f"{score.judged} judged, " if score.judged else "") + f"{score.unresolved} unresolved"
                     + (f" ({score.unscored} without a score)" if score.unscored else ""))
    overall = overall_score(scores)
    rate = settle_rate(verdicts)
    counts = status_counts(verdicts)
    stubs, todos = stub_totals(report)
    lines.append(f"overall {'n/a' if overall is None else f'{overall:.2f}'}   "
                 f"settle rate {0 if rate is None else rate:.0%} ({counts['unresolved']} unresolved"
                 + (f", {counts['judged']} judged" if counts["judged"] else "") + f")   files read {report.files_read}   "
                 f"stubs {stubs}   TODOs {todos}   warnings {len(report.warnings)}")
    return lines
