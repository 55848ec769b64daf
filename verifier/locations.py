"""Where a report's evidence sits in the files as they are stored, for the reports that show or link code (SARIF,
HTML): the lines of the files evidence points into, a stable place for a verdict that has no evidence, and the line
of a ``.ipynb`` file that holds a notebook cell's first source line.

The index numbers notebook lines within their cell (``nb.ipynb#3:2``); a code-scanning tool shows the ``.ipynb``
file itself, so a report needs the file's own line. Jupyter writes a cell's ``source`` as a JSON list with one
string per line, each on a line of its own; ``cell_lines`` finds that run of lines. A notebook written otherwise
(a cell's source as one string spanning several lines, everything on one line) keeps no line mapping, and reports
then point at the notebook's first line and name the cell in their message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

from sau.vocabulary import Verdict, split_where

_README_NAMES = ("readme.md", "readme.rst", "readme.txt", "readme")


def evidence_sources(verdicts: Iterable[Verdict], lines: Mapping[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """The source lines of every file or notebook cell (its ``where`` key) that some verdict's evidence points
    into, in sorted key order; keys the index holds no lines for (a judge's reference to an unread file) are left
    out."""
    wanted = sorted({e.where for verdict in verdicts for e in verdict.evidence if e.where in lines})
    return {where: tuple(lines[where]) for where in wanted}


def anchor(repo: Path, files_read: Iterable[str]) -> str | None:
    """The stable place reports show a verdict without evidence at: the repository's top-level README (a regular
    file named README, README.md, README.rst or README.txt in any case; the first such name in sorted order), else
    the first file read in sorted order, else ``None``. The choice depends only on the repository's files."""
    try:
        readmes = sorted(entry.name for entry in repo.iterdir()
                         if entry.name.lower() in _README_NAMES and entry.is_file() and not entry.is_symlink())
    except OSError:
        readmes = []
    if readmes:
        return readmes[0]
    ordered = sorted(files_read)
    return ordered[0] if ordered else None


def cell_lines(repo: Path, sources: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
    """For each notebook cell key (``nb.ipynb#3``) of ``sources``, the 1-based line of ``nb.ipynb`` holding the
    cell's first source line, when the notebook stores its cells one source line per file line (see the module
    docstring); cells whose place cannot be found are absent. Never raises: an unreadable notebook maps nothing."""
    cells_by_file: dict[str, set[int]] = {}
    for where in sources:
        file, cell = split_where(where)
        if cell is not None:
            cells_by_file.setdefault(file, set()).add(cell)
    found: dict[str, int] = {}
    for file, wanted in sorted(cells_by_file.items()):
        for cell, line in _notebook_cell_lines(repo / file).items():
            if cell in wanted:
                found[f"{file}#{cell}"] = line
    return found


def _notebook_cell_lines(path: Path) -> dict[int, int]:
    """Cell number (1-based, over all cells as the index numbers them) -> file line of its first source line."""
    try:
        text = path.read_text(encoding="utf-8")
        cells = json.loads(text).get("cells")
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, AttributeError):
        return {}
    if not isinstance(cells, list):
        return {}
    decoded = [_json_string(line) for line in text.splitlines()]
    result: dict[int, int] = {}
    cursor = 0  # cells follow each other in the file: search each one after the previous
    for number, cell in enumerate(cells, 1):
        source = cell.get("source") if isinstance(cell, dict) else None
        if isinstance(source, str):
            source = [source]
        if not isinstance(source, list) or not source or not _one_line_each(source):
            continue
        start = _find_run(decoded, source, cursor)
        if start is not None:
            result[number] = start + 1
            cursor = start + len(source)
    return result


def _one_line_each(source: list) -> bool:
    """Every element a string holding one line (the last one may lack its newline)."""
    return all(isinstance(part, str) and "\n" not in part.rstrip("\n") and part.count("\n") <= 1
               for part in source) and all(part.endswith("\n") for part in source[:-1])


def _json_string(line: str) -> str | None:
    """The string a file line holds when it is one JSON string (with an optional trailing comma), else ``None``."""
    stripped = line.strip()
    if stripped.endswith(","):
        stripped = stripped[:-1].rstrip()
    if not (stripped.startswith('"') and stripped.endswith('"')):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _find_run(decoded: list[str | None], run: list[str], start: int) -> int | None:
    """The first index from ``start`` where ``decoded`` holds ``run`` consecutively."""
    width = len(run)
    for index in range(start, len(decoded) - width + 1):
        if decoded[index] == run[0] and decoded[index:index + width] == run:
            return index
    return None
