"""The output formats of ``verify``: one table that ``--format``'s choices and help, the ``format`` setting of
``[tool.sauverify]`` and the writer all read, so that a format cannot be offered without a writer.

To add a format, write its renderer (a function of a ``verifier.run.Report``) and add one ``OutputFormat`` here
(ARCHITECTURE.md, "Extension points").
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the renderers (and through them the rules and parsers) load only when a report is written
    from verifier.run import Report


@dataclass(frozen=True)
class OutputFormat:
    """``name`` as ``--format`` takes it, ``help`` for ``--help``, and ``write(report, output, explain)``, which
    writes the report to the file ``output`` or, when it is ``None``, to standard output (raises ``OSError`` when the
    file cannot be written); ``explain`` asks for each verdict's reason where the format does not always give it
    (the table)."""

    name: str
    help: str
    write: Callable[[Report, Path | None, bool], None]


def _renderer(module: str, name: str) -> Callable[[Report], str]:
    """The function ``name`` of ``module``, imported when first called: ``verify --help`` and the settings read
    this table, and must not pay for importing every renderer and what they import (the whole analysis)."""
    def render(report: Report) -> str:
        function: Callable[[Report], str] = getattr(importlib.import_module(module), name)
        return function(report)
    return render


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
    from rich.console import Console

    from verifier.report import print_table
    if output is None:
        print_table(report, Console(highlight=False), explain)
        return
    with output.open("w", encoding="utf-8") as handle:
        print_table(report, Console(file=handle, no_color=True, highlight=False), explain, plain=True)


FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("table", "table (default; plain text with whole cells when not written to a terminal)",
                 _write_table),
    OutputFormat("json", "json (every verdict with its evidence and findings)",
                 _text(_renderer("verifier.report", "to_json"))),
    OutputFormat("sabench", "sabench (SA-Bench's result-file layout)",
                 _text(_renderer("verifier.sabench_format", "to_sabench"))),
    OutputFormat("sarif", "sarif (SARIF 2.1.0 for code scanning: one result per SAU not settled at full marks)",
                 _text(_renderer("verifier.sarif", "to_sarif"))),
    OutputFormat("html", "html (one self-contained page: scores, filterable SAUs, evidence beside the code)",
                 _text(_renderer("verifier.html_report", "to_html"))),
)}
DEFAULT_FORMAT = "table"
