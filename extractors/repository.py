"""Build the fact index of one repository: walk it, parse each file, collect facts and warnings.

The repository is read, never imported or executed. A file that cannot be read or parsed costs only itself: it
becomes a warning naming the file (and the line, where there is one) and the run goes on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import libcst as cst
from libcst.metadata import MetadataWrapper

from extractors.configs import extract_config
from extractors.facts import FileFacts, RepositoryIndex, Warning_
from extractors.fallback import extract_with_tree_sitter, first_error_line
from extractors.guards import too_complex
from extractors.python_facts import extract_module
from extractors.stubs.detect import find_stubs
from extractors.launchers import extract_launcher
from extractors.walk import CONFIG, DEFAULT_MAX_BYTES, NOTEBOOK, PYTHON, SHELL, SourceFile, walk


def build_index(root: Path, normalise: Callable[[str], str], max_bytes: int = DEFAULT_MAX_BYTES,
                exclude: tuple[str, ...] = (), progress: Callable[[int, int, str], None] | None = None
                ) -> RepositoryIndex:
    """Index every readable file below ``root``.

    ``normalise`` maps a fact name to its lookup key (``rules.names.normalise``); ``progress(done, total, file)``
    is called after each file. Raises ``NotADirectoryError`` when ``root`` is not a folder.
    """
    files, skipped = walk(root, max_bytes, exclude)
    index = RepositoryIndex(str(root), normalise)
    for item in skipped:
        index.warnings.append(Warning_(item.relative, None, f"skipped: {item.reason}"))
    for done, source in enumerate(files, 1):
        try:
            raw = source.path.read_bytes()
        except OSError as error:
            index.warnings.append(Warning_(source.relative, None, f"not read: {error.strerror or error}"))
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            text = raw.decode("utf-8", errors="replace")
            index.warnings.append(Warning_(source.relative, raw.count(b"\n", 0, error.start) + 1,
                                           "not valid UTF-8; undecodable bytes replaced"))
        lines, found = _extract(source, text)
        index.add(source.relative, lines, found)
        if source.kind == PYTHON:  # find_stubs itself refuses source that extractors.guards flags
            # the repository under test must not silence its own stubs: its suppression comments are ignored
            index.stubs_by_file[source.relative].extend(find_stubs(
                text, source.relative, honor_suppressions=False, wrapper=found.wrappers.get(source.relative)))
        if progress is not None:
            progress(done, len(files), source.relative)
    return index


def _extract(source: SourceFile, text: str) -> tuple[dict[str, list[str]], FileFacts]:
    if source.kind == PYTHON:
        return {source.relative: text.splitlines()}, extract_python(text, source.relative)
    if source.kind == NOTEBOOK:
        return _extract_notebook(text, source.relative)
    if source.kind == SHELL:
        return {source.relative: text.splitlines()}, extract_launcher(text, source.relative)
    assert source.kind == CONFIG
    return {source.relative: text.splitlines()}, extract_config(text, source.relative)


def extract_python(text: str, file: str, cell: int | None = None) -> FileFacts:
    """Facts of one Python source: libcst first; where it fails, tree-sitter locates the parseable statements.

    The fallback adds a warning naming the file, the line libcst stopped at, and that the file would not import.
    """
    refused = too_complex(text)
    if refused is not None:
        found = FileFacts()
        found.warnings.append(Warning_(file, None, (f"cell {cell}: " if cell is not None else "") + refused))
        return found
    try:
        wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
        found = extract_module(wrapper.module, file, cell=cell, wrapper=wrapper)
        # kept with its resolved metadata: the stub detector, the call graph and D2 read the same tree
        found.wrappers[file if cell is None else f"{file}#{cell}"] = wrapper
        return found
    except RecursionError:
        found = FileFacts()  # the tree-sitter fallback would hit the same depth statement by statement
        found.warnings.append(Warning_(file, None, "expressions nested too deeply to analyse; not parsed"))
        return found
    except (cst.ParserSyntaxError, ValueError) as error:
        line, column = _error_position(error)
        line = line or first_error_line(text.encode("utf-8", "replace"))
        found, covered = extract_with_tree_sitter(text, file, cell)
        where = f"cell {cell}: " if cell is not None else ""
        at = f" at line {line}" + (f", column {column}" if column else "") if line else ""
        found.warnings.append(Warning_(
            file, line, f"{where}syntax error{at}: libcst cannot parse this file, so it would not import; "
                        f"facts taken from {covered} of {len(text.splitlines())} lines with tree-sitter"))
        return found


def _error_position(error: Exception) -> tuple[int | None, int | None]:
    """The (line, column) of a libcst syntax error: the message's "error at L:C" (libcst's ``raw_line`` can be
    one past it), else ``raw_line``."""
    found = re.search(r"error at (\d+):(\d+)", getattr(error, "message", "") or "")
    if found:
        return int(found.group(1)), int(found.group(2))
    return getattr(error, "raw_line", None), getattr(error, "raw_column", None)


def _extract_notebook(text: str, file: str) -> tuple[dict[str, list[str]], FileFacts]:
    """Code cells of a notebook, each parsed on its own; lines are numbered within the cell."""
    merged = FileFacts()
    lines: dict[str, list[str]] = {}
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        merged.warnings.append(Warning_(file, getattr(error, "lineno", None),
                                        f"notebook not read: {getattr(error, 'msg', 'nested too deeply')}"))
        return lines, merged
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        merged.warnings.append(Warning_(file, 1, "notebook not read: no list of cells"))
        return lines, merged
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        # IPython magics and shell escapes are not Python; blank them so line numbers stay put
        code_lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
        lines[f"{file}#{number}"] = code_lines
        found = extract_python("\n".join(code_lines) + "\n", file, cell=number)
        merged.merge(found)
    return lines, merged
