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
    (the table). ``render(report)``, for a format written as text whatever the destination, gives that text (the
    rendered-report cache keeps it, ``verifier.rendered``); ``None`` for the table, laid out for its terminal."""

    name: str
    help: str
    write: Callable[[Report, Path | None, bool], None]
    render: Callable[[Report], str] | None = None


def _renderer(module: str, name: str) -> Callable[[Report], str]:
    """The function ``name`` of ``module``, imported when first called: ``verify --help`` and the settings read
    this table, and must not pay for importing every renderer and what they import (the whole analysis)."""
    def render(report: Report) -> str:
        function: Callable[[Report], str] = getattr(importlib.import_module(module), name)
        return function(report)
    return render


def write_text(text: str, output: Path | None) -> None:
    """Write a rendered report to the file ``output`` or, when it is ``None``, to standard output. Raises
    ``OSError`` when it cannot be written."""
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _text(name: str, summary: str, module: str, function: str) -> OutputFormat:
    """A format rendered as text (which always holds the reasons) by ``module.function``."""
    render = _renderer(module, function)

    def write(report: Report, output: Path | None, explain: bool = False) -> None:
        write_text(render(report), output)
    return OutputFormat(name, summary, write, render)


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
    _text("json", "json (every verdict with its evidence and findings)", "verifier.report", "to_json"),
    _text("sabench", "sabench (SA-Bench's result-file layout)", "verifier.sabench_format", "to_sabench"),
    _text("sarif", "sarif (SARIF 2.1.0 for code scanning: one result per SAU not settled at full marks)",
          "verifier.sarif", "to_sarif"),
    _text("html", "html (one self-contained page: scores, filterable SAUs, evidence beside the code)",
          "verifier.html_report", "to_html"),
)}
DEFAULT_FORMAT = "table"
