"""The output formats of ``verify``: one table that ``--format``'s choices and help, the ``format`` setting of
``[tool.sauverify]`` and the writer all read, so that a format cannot be offered without a writer.

To add a format, write its renderer (a function of a ``verifier.run.Report``) and add one ``OutputFormat`` here
(ARCHITECTURE.md, "Extension points").
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rich.console import Console

from verifier.report import print_table, to_json
from verifier.run import Report
from verifier.sarif import to_sarif

TABLE_WIDTH = 160  # a table written to a file is not wrapped to a terminal's width


@dataclass(frozen=True)
class OutputFormat:
    """``name`` as ``--format`` takes it, ``help`` for ``--help``, and ``write(report, output)``, which writes the
    report to the file ``output`` or, when it is ``None``, to standard output (raises ``OSError`` when the file
    cannot be written)."""

    name: str
    help: str
    write: Callable[[Report, Path | None], None]


def _text(render: Callable[[Report], str]) -> Callable[[Report, Path | None], None]:
    """A writer of a format rendered as text."""
    def write(report: Report, output: Path | None) -> None:
        text = render(report)
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
    return write


def _write_table(report: Report, output: Path | None) -> None:
    if output is None:
        print_table(report, Console(highlight=False))
        return
    with output.open("w", encoding="utf-8") as handle:
        print_table(report, Console(file=handle, width=TABLE_WIDTH, no_color=True, highlight=False))


FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("table", "table (default)", _write_table),
    OutputFormat("json", "json (SA-Bench's result file and more)", _text(to_json)),
    OutputFormat("sarif", "sarif (SARIF 2.1.0 for code-scanning tools: one result per SAU short of full marks)",
                 _text(to_sarif)),
)}
DEFAULT_FORMAT = "table"
