"""Build the fact index of one repository: walk it, parse each file, collect facts and warnings.

The repository is read, never imported or executed. A file that cannot be read or parsed costs only itself: it
becomes a warning naming the file (and the line, where there is one) and the run goes on.

With a cache (``extractors.cache``), what one file yields (``FileProduct``: its lines, facts, warnings, stubs) is
kept under a key of its path, kind and content hash, and a later run reads it back instead of parsing; the parsers
are then imported only for the files that changed, and a tree only when something reads it (``extractors.trees``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from extractors.cache import Cache
from extractors.facts import FileFacts, RepositoryIndex, Warning_
from extractors.guards import interrupted, stop_if_interrupted, too_complex
from extractors.notebooks import NotebookError, code_cells
from extractors.python_source import compile_error, refusal, source_encoding, source_lines
from extractors.trees import parse_python
from extractors.walk import CONFIG, DEFAULT_MAX_BYTES, DOCUMENT, NOTEBOOK, PYTHON, SHELL, SourceFile, walk


@dataclass
class FileProduct:
    """What indexing one file yields, as the cache keeps it: ``lines`` per source (``file``, or ``file#cell`` for
    each notebook cell), ``found`` its facts (``FileFacts`` without trees), ``stubs`` its stub and TODO findings
    (``extractors.stubs.StubFinding``, for Python files), and ``trees`` the sources libcst parsed (their trees are
    parsed again when read, ``extractors.trees``)."""

    lines: dict[str, list[str]]
    found: FileFacts
    stubs: list = field(default_factory=list)
    trees: tuple[str, ...] = ()


def build_index(root: Path, normalise: Callable[[str], str], max_bytes: int = DEFAULT_MAX_BYTES,
                exclude: tuple[str, ...] = (), progress: Callable[[int, int, str], None] | None = None,
                cache: Cache | None = None, all_projects: bool = False) -> RepositoryIndex:
    """Index every readable file below ``root``.

    ``normalise`` maps a fact name to its lookup key (``rules.names.normalise``); ``progress(done, total, file)``
    is called after each file; ``cache``, when given, supplies the product of each file whose path, kind and bytes
    it has seen, and keeps the others' (the index is the same either way). Every path skipped or only partly read
    is a warning, and those that could hold code or configuration are also in ``index.unread``. Other projects'
    folders are left out and warned about unless ``all_projects`` (``extractors.walk.walk``). Raises
    ``NotADirectoryError`` when ``root`` is not a folder.
    """
    files, skipped = walk(root, max_bytes, exclude, all_projects)
    index = RepositoryIndex(str(root), normalise)
    for item in skipped:
        index.warnings.append(Warning_(item.relative, None, f"skipped: {item.reason}"))
        if item.unread:
            index.unread[item.relative] = item.reason
    for done, source in enumerate(files, 1):
        try:
            raw = source.path.read_bytes()
        except OSError as error:
            index.warnings.append(Warning_(source.relative, None, f"not read: {error.strerror or error}"))
            index.unread[source.relative] = f"not read: {error.strerror or error}"
            continue
        encoding = source_encoding(raw) if source.kind == PYTHON else "utf-8"
        refused = None
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as error:
            text = raw.decode(encoding, errors="replace")
            # CPython skips the bytes of a comment but refuses them in code or a string: only its compile() tells
            refused = refusal(raw, source.relative) if source.kind == PYTHON else None
            index.warnings.append(Warning_(source.relative, raw.count(b"\n", 0, error.start) + 1,
                                           f"not valid {'UTF-8' if encoding == 'utf-8' else encoding}; "
                                           f"undecodable bytes replaced"
                                           + ("; Python refuses the file's bytes, so it would not import"
                                              if refused else "")))
        stop_if_interrupted()
        digest = index.hashes[source.relative] = hashlib.sha256(raw).hexdigest()
        key = cache.key("file", source.kind, source.relative, digest) if cache is not None else ""
        product = cache.get(key, FileProduct) if cache is not None else None
        if product is None:
            product = _product(source, text)
            if cache is not None:
                wrappers, product.found.wrappers = product.found.wrappers, {}
                cache.put(key, product)
                product.found.wrappers = wrappers
        index.add(source.relative, product.lines, product.found)
        if refused:
            index.uncompilable.add(source.relative)  # its code cannot run: a value there is a trace (LABELLING.md)
        for tree in product.trees:
            if tree not in product.found.wrappers:  # from the cache: parsed again only if read
                index.trees.add_text(tree, text if tree == source.relative else "\n".join(product.lines[tree]) + "\n")
        if source.kind == PYTHON:
            index.stubs_by_file[source.relative].extend(product.stubs)
        if progress is not None:
            progress(done, len(files), source.relative)
    return index


def _product(source: SourceFile, text: str) -> FileProduct:
    """Index one file's text: its lines, facts, trees and, for Python, stubs."""
    lines, found = _extract(source, text)
    stubs = []
    if source.kind == PYTHON:  # find_stubs itself refuses source that extractors.guards flags
        from extractors.stubs.detect import find_stubs
        # the repository under test must not silence its own stubs: its suppression comments are ignored
        stubs = find_stubs(text, source.relative, honor_suppressions=False,
                           wrapper=found.wrappers.get(source.relative))
    return FileProduct(lines, found, stubs, tuple(found.wrappers))


def _extract(source: SourceFile, text: str) -> tuple[dict[str, list[str]], FileFacts]:
    if source.kind == PYTHON:
        return {source.relative: source_lines(text)}, extract_python(text, source.relative)
    if source.kind == NOTEBOOK:
        return _extract_notebook(text, source.relative)
    if source.kind == SHELL:
        from extractors.launchers import extract_launcher
        return {source.relative: text.splitlines()}, extract_launcher(text, source.relative)
    if source.kind == DOCUMENT:  # only the README's commands: its prose is no launch (extractors.launchers)
        from extractors.launchers import extract_documented
        lines, found = extract_documented(text, source.relative)
        return {source.relative: lines}, found
    assert source.kind == CONFIG
    from extractors.configs import extract_config
    found = extract_config(text, source.relative)
    if found.warnings:  # a config that did not parse holds keys nothing saw
        found.unread[source.relative] = "config not read"
    return {source.relative: source_lines(text)}, found


def extract_python(text: str, file: str, cell: int | None = None) -> FileFacts:
    """Facts of one Python source: libcst first, on the text as CPython reads its indentation
    (``extractors.python_source``); where libcst still fails, tree-sitter locates the parseable statements.

    The fallback adds a warning naming the file and the line libcst stopped at, saying that the file would not
    import only when ``compile()`` refuses it too, and records the file (``file#cell``) as partly read in
    ``unread``; so does a file refused as pathological (``extractors.guards``) or nested too deeply.
    """
    key = file if cell is None else f"{file}#{cell}"
    where = f"cell {cell}: " if cell is not None else ""
    refused = too_complex(text)
    if refused is not None:
        found = FileFacts()
        found.warnings.append(Warning_(file, None, where + refused))
        found.unread[key] = refused
        return found
    import libcst as cst  # the parsers are imported only when a file is parsed

    from extractors.fallback import extract_with_tree_sitter, first_error_line
    from extractors.python_facts import extract_module
    try:
        wrapper = parse_python(text, file, cell is not None)
        found = extract_module(wrapper.module, file, cell=cell, wrapper=wrapper)
        # kept with its resolved metadata: the stub detector, the call graph and D2 read the same tree
        found.wrappers[key] = wrapper
        return found
    except (cst.ParserSyntaxError, ValueError) as error:
        if interrupted(error):  # the user's Ctrl-C inside the parser, not a syntax error to read around
            raise
        cpython_error = compile_error(text, file, cell is not None)
        cpython = refusal(text, file, cell is not None)
        line, column = _error_position(error)
        if isinstance(cpython_error, SyntaxError) and cpython_error.lineno:
            line, column = cpython_error.lineno, cpython_error.offset  # where Python itself would stop
        line = line or first_error_line(text.encode("utf-8", "replace"))
        found, covered, missed = extract_with_tree_sitter(text, file, cell)
        total = len(source_lines(text))
        at = f" at line {line}" + (f", column {column}" if column else "") if line else ""
        why = ("so it would not import" if cpython is not None
               else "although CPython compiles it")
        found.warnings.append(Warning_(
            file, line, f"{where}syntax error{at}: libcst cannot parse this file, {why}; "
                        f"facts taken from {min(covered, total)} of {total} lines with tree-sitter"))
        found.unread[key] = "read only in part, with tree-sitter"
        if cpython is not None:
            found.uncompilable.add(key)  # its code cannot run: a value there is a trace (LABELLING.md)
        # what was not read, so that an absence the unread lines provably cannot touch may still settle
        found.unread_text[key] = missed
        return found
    except Exception as error:
        if not _from_recursion(error):
            raise
        found = FileFacts()  # the tree-sitter fallback would hit the same depth statement by statement
        found.warnings.append(Warning_(file, None, where + "expressions nested too deeply to analyse; not parsed"))
        found.unread[key] = "nested too deeply to analyse"
        return found


def _from_recursion(error: BaseException) -> bool:
    """Whether ``error`` is, or was raised while handling, a ``RecursionError`` (libcst's metadata resolution turns
    one into a ``KeyError`` for the node it could not reach)."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 20:
        if isinstance(current, RecursionError):
            return True
        current, seen = current.__context__, seen + 1
    return False


def _error_position(error: Exception) -> tuple[int | None, int | None]:
    """The (line, column) of a libcst syntax error: the message's "error at L:C" (libcst's ``raw_line`` can be
    one past it), else ``raw_line``."""
    found = re.search(r"error at (\d+):(\d+)", getattr(error, "message", "") or "")
    if found:
        return int(found.group(1)), int(found.group(2))
    return getattr(error, "raw_line", None), getattr(error, "raw_column", None)


def _extract_notebook(text: str, file: str) -> tuple[dict[str, list[str]], FileFacts]:
    """Code cells of a notebook (``extractors.notebooks``), each parsed on its own; lines are numbered within the
    cell. A notebook that cannot be read, and a cell under an unknown cell magic, are warnings and ``unread``."""
    merged = FileFacts()
    lines: dict[str, list[str]] = {}
    try:
        cells = code_cells(text)
    except NotebookError as error:
        merged.warnings.append(Warning_(file, error.line, f"notebook not read: {error}"))
        merged.unread[file] = f"notebook not read: {error}"
        return lines, merged
    for cell in cells:
        key = f"{file}#{cell.number}"
        lines[key] = list(cell.lines)
        if cell.note:
            merged.warnings.append(Warning_(file, None, f"cell {cell.number}: {cell.note}"))
            merged.unread[key] = cell.note
        if cell.python:
            merged.merge(extract_python("\n".join(cell.lines) + "\n", file, cell=cell.number))
    return lines, merged
