"""``find_stubs``: run every finding code's rule (``codes``) over one parsed file, in order, then drop the
findings that ``# sauverify: ignore[...]`` comments suppress; and the file helpers around it."""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Iterable
from typing import TYPE_CHECKING

from extractors.guards import too_complex
from extractors.notebooks import code_cells
from extractors.stubs.codes import COMMENT_RULES, FUNCTION_RULES, FileContext, stb003_placeholder_values
from extractors.stubs.findings import StubFinding
from extractors.stubs.parse import Parsed
from extractors.stubs.parse_ts import parse_tree_sitter, tree_sitter_tree

if TYPE_CHECKING:  # libcst is imported only when a file needs it (_parse)
    from libcst.metadata import MetadataWrapper

_SUPPRESS = re.compile(r"sauverify:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")


def find_stubs(source: str, path: str, *, honor_suppressions: bool = True,
               wrapper: MetadataWrapper | None = None) -> list[StubFinding]:
    """Find stubs, placeholder values and TODO/placeholder comments in one Python file's text.

    ``source`` (str) is the file's text; ``path`` (str) is only copied into the findings, except that a path ending
    in ``.pyi`` gives no findings. With ``honor_suppressions`` (bool, default True), findings covered by a
    ``# sauverify: ignore[...]`` comment are left out. Returns a list of ``StubFinding`` sorted by line, column and
    code. Parses as ``_parse`` says (the same ``Parsed`` whichever parser reads it). Never raises on
    malformed source; raises ``TypeError`` only when ``source`` is not a str. ``wrapper`` is ``source`` already
    parsed by libcst in a ``MetadataWrapper`` (the verifier parses each file once and shares its metadata), or
    ``None`` to parse here. Source that ``extractors.guards`` refuses (brackets nested beyond CPython's limit, huge
    operator chains) gives no findings. The rules run in a fixed order (``codes``: the functions' STB001, STB002,
    STB004, then STB003, then the comments' TOD001, TOD002); the sort is stable.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    if str(path).endswith(".pyi") or too_complex(source) is not None:
        return []  # pathological nesting would crash or stall both parsers (extractors.guards)
    file = FileContext.of(source, path, _parse(source, wrapper))
    findings = [found for func in file.parsed.functions if file.may_be_stub(func)
                for rule in FUNCTION_RULES if (found := rule(func, file)) is not None]
    findings += stb003_placeholder_values(file)
    findings += [found for comment in file.parsed.comments
                 for rule in COMMENT_RULES if (found := rule(comment, file)) is not None]
    if honor_suppressions:
        suppressed = _suppressions(file.parsed.comments)
        if suppressed:
            findings = [f for f in findings if not _is_suppressed(f, suppressed)]
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


def _parse(source: str, wrapper: MetadataWrapper | None) -> Parsed:
    """What the rules see in ``source``: libcst's ``Parsed`` (``parse_cst``; from ``wrapper``, the verifier's tree,
    when given), or tree-sitter's (``parse_ts``) when libcst cannot parse the text.

    Without a wrapper, tree-sitter-python is asked first: it imports and parses several times faster, and on a tree
    without error nodes whose functions, classes, ``try`` and ``if`` statements do not end with comments its
    ``Parsed`` is libcst's (checked over the 3,259 Python files of SA-Bench's runs), or is what the fallback gave
    when libcst cannot parse the file. Only for the other files is libcst imported and asked."""
    if wrapper is None:
        data, tree = tree_sitter_tree(source)
        if not tree.root_node.has_error:
            parsed, comment_ends = parse_tree_sitter(source, data, tree)
            if not comment_ends:
                return parsed
    from extractors.stubs.parse_cst import parse_libcst  # libcst costs a fifth of a second to import
    found = parse_libcst(source, wrapper)
    return found if found is not None else parse_tree_sitter(source)[0]


def _suppressions(comments: Iterable[tuple[int, int, str]]) -> dict[int, tuple[str, ...] | None]:
    """line -> suppressed code prefixes, or ``None`` for all codes."""
    found: dict[int, tuple[str, ...] | None] = {}
    for line, _, text in comments:
        match = _SUPPRESS.search(text)
        if not match:
            continue
        if match.group(1) is None:
            found[line] = None
        else:
            codes = tuple(c.strip().upper() for c in match.group(1).split(",") if c.strip())
            previous = found.get(line, ())
            found[line] = None if previous is None else previous + codes
    return found


def _is_suppressed(finding: StubFinding, suppressed: dict[int, tuple[str, ...] | None]) -> bool:
    """Whether a suppression on one of the finding's lines (``line`` .. ``end_line``) covers its code."""
    for line in range(finding.line, finding.end_line + 1):
        if line in suppressed:
            codes = suppressed[line]
            if codes is None or any(finding.code.startswith(c) for c in codes):
                return True
    return False


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of a Python file, decoded by its PEP 263 coding line (UTF-8 by default), undecodable bytes replaced.
    Raises ``OSError`` when the file cannot be read."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown coding name
        encoding = "utf-8"
    try:
        return data.decode(encoding, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def find_stubs_in_file(path: str | os.PathLike[str], *, honor_suppressions: bool = True) -> list[StubFinding]:
    """``find_stubs`` on the file at ``path`` (str or path-like; ``str(path)`` goes into the findings). A notebook
    (``.ipynb``) is checked cell by cell (``extractors.notebooks``: magics and other-language cells blanked), each
    finding's path then ``nb.ipynb:cell_N`` and its line the line within the cell. Returns a list of
    ``StubFinding``. Raises ``OSError`` when the file cannot be read and ``NotebookError`` when a notebook cannot
    be read as one."""
    if str(path).lower().endswith(".ipynb"):
        findings: list[StubFinding] = []
        for cell in code_cells(read_source(path)):
            if cell.python:
                findings += find_stubs("\n".join(cell.lines) + "\n", f"{path}:cell_{cell.number}",
                                       honor_suppressions=honor_suppressions)
        return findings
    return find_stubs(read_source(path), str(path), honor_suppressions=honor_suppressions)
