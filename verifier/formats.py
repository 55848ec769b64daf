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

from verifier.html_report import to_html
from verifier.report import print_table, to_json
from verifier.run import Report
from verifier.sabench_format import to_sabench
from verifier.sarif import to_sarif


@dataclass(frozen=True)
class OutputFormat:
    """``name`` as ``--format`` takes it, ``help`` for ``--help``, and ``write(report, output, explain)``, which
    writes the report to the file ``output`` or, when it is ``None``, to standard output (raises ``OSError`` when the
    file cannot be written); ``explain`` asks for each verdict's reason where the format does not always give it
    (the table)."""

    name: str
    help: str
    write: Callable[[Report, Path | None, bool], None]


def _text(render: Callable[[Report], str]) -> Callable[[Report, Path | None, bool], None]:
    """A writer of a format rendered as text (which always holds the reasons)."""
    def write(report: Report, output: Path | None, explain: bool = False) -> None:
        text = render(report)
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
    return write


def _write_table(report: Report, output: Path | None, explain: bool = False) -> None:
    """A terminal gets a boxed table; a pipe or a file the plain layout (``print_table``)."""
    if output is None:
        print_table(report, Console(highlight=False), explain)
        return
    with output.open("w", encoding="utf-8") as handle:
        print_table(report, Console(file=handle, no_color=True, highlight=False), explain, plain=True)


FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("table", "table (default; plain text with whole cells when not written to a terminal)",
                 _write_table),
    OutputFormat("json", "json (every verdict with its evidence and findings)", _text(to_json)),
    OutputFormat("sabench", "sabench (SA-Bench's result-file layout)", _text(to_sabench)),
    OutputFormat("sarif", "sarif (SARIF 2.1.0 for code scanning: one result per SAU not settled at full marks)",
                 _text(to_sarif)),
    OutputFormat("html", "html (one self-contained page: scores, filterable SAUs, evidence beside the code)",
                 _text(to_html)),
)}
DEFAULT_FORMAT = "table"
