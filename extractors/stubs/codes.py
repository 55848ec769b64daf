"""One rule per finding code (STB001 ... TOD002; what each finds, its exceptions and sources are in the package
docstring of ``extractors.stubs``), and ``FileContext``, what the rules read about one file.

Function rules take a ``Func`` that ``FileContext.may_be_stub`` let through, comment rules one comment
``(line, column, text)`` that ``FileContext.marks_value`` did not claim; each returns a ``StubFinding`` or
``None``. STB001, STB002 and STB004 never match the same function, nor TOD001 and TOD002 the same comment, so a
function or a comment yields at most one finding. ``detect.find_stubs`` runs them in order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from extractors.stubs.findings import StubFinding
from extractors.stubs.parse import (DOC, ELLIPSIS, PASS, RAISE_NIE, REPORT, REPORT_MARKER, REPORT_NI, RETURN,
                                    RETURN_NI, Func, Parsed, last)
from extractors.walk import is_test_path
from extractors.words import word_list

_TAG = re.compile(r"(?<!\w)(?:(?i:todos?)|(?i:fixme)|XXX+|HACK)(?!\w)")
_MARKER = re.compile(
    r"(?<!\w)(?:not\s+(?:yet\s+)?implemented|unimplemented|to\s+be\s+implemented|placeholders?|dummy|"
    r"stub(?:s|bed)?)(?!\w)", re.IGNORECASE)
# STB003: the tags saying that a value is not the real one (not the fourth TOD001 tag: that one marks real code).
_VALUE_TAG = re.compile(r"(?<!\w)(?:(?i:todo)|(?i:fixme)|XXX+)(?!\w)")
# "dummy" as a technical term: a dummy dimension or axis, a dummy tensor to find a shape.
_TECHNICAL = re.compile(r"(?<!\w)(?:shapes?|flatten(?:ed)?|dims?|dimensions?|axis|axes)(?!\w)", re.IGNORECASE)
# "placeholder" as a multimodal-model term: placeholder tokens standing for image patches in the text sequence.
_TECHNICAL_PLACEHOLDER = re.compile(
    r"(?<!\w)(?:placeholders?[ -]tokens?|(?:image|visual|vision|video|audio|patch|mask(?:ed)?)[ -]placeholders?)(?!\w)",
    re.IGNORECASE)
# Words saying that the code fills the value in later: an initial value.
_FILLED_LATER = re.compile(
    r"(?<!\w)(?:(?:(?:will|to) be|is|are|gets?) (?:set|determined|filled|populated|inferred|computed|calculated|"
    r"overwritten|initiali[sz]ed|assigned|updated) (?:later|by|from|at|in|per|during|when|after|once|dynamically)|"
    r"(?:populated|filled in|filled|set|determined|inferred|overwritten|assigned) (?:later|at runtime|dynamically|by|"
    r"from|during))(?!\w)", re.IGNORECASE)
# An empty body declared intended.
_NOOP = re.compile(r"(?<!\w)(?:no[- ]?op|nothing to do|does nothing|do nothing|intentionally|not needed|not required|"
                   r"nothing to (?:clean|close|release|free|reset))(?!\w)", re.IGNORECASE)

# Tags and markers inside a URL or a file name are part of a name, not a tag (``https://x.org/todo/list``,
# ``see docs/TODO.md``, ``stub.py``): a URL (a scheme or www.), a path (a token with / or \\, unless every part of
# it is a tag, as in ``TODO/FIXME``) and a file name with an extension are blanked before tags are searched.
_NAME_SPANS = re.compile(r"(?:\b[A-Za-z][A-Za-z0-9+.-]*://|\bwww\.)\S+|(?<!\S)\S*[/\\]\S*|\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b")
_ONE_TAG = r"(?:(?i:todos?)|(?i:fixme)|XXX+|HACK)"
_TAG_PARTS = re.compile(r"[(\[]?%s(?:[/\\]%s)*[)\]:,.;!?]*" % (_ONE_TAG, _ONE_TAG))

# Word lists (what each holds and its source: extractors/words.yaml).
_ABSTRACT_DECORATORS = word_list("abstract_decorators")
_EMPTY_OK_DUNDERS = word_list("empty_ok_dunders")
_NOTIMPLEMENTED_DUNDERS = word_list("notimplemented_dunders")

_MAX_QUOTE = 80


def masked(text: str) -> str:
    """``text`` (a comment) with URLs and file names blanked (same length, so columns stay), for the tag and marker
    searches."""
    return _NAME_SPANS.sub(lambda m: m.group(0) if _TAG_PARTS.fullmatch(m.group(0)) else " " * len(m.group(0)), text)

Comment = tuple[int, int, str]  # (line, 0-based column, text with the "#")
Value = tuple[int, int, int, int]  # a value statement: (line, column, end_line, end_column), columns 0-based


@dataclass
class FileContext:
    """What the rules read about one file: ``path`` as given to the finder (copied into findings), ``parsed`` what
    a parser saw (its import fallbacks widened to the comment lines right above them: see ``of``), ``test_file``
    whether the path is test code (``extractors.walk.is_test_path``), ``overridden`` the (class qualname, method
    name) pairs a subclass in the same file overrides."""

    path: str
    parsed: Parsed
    test_file: bool
    overridden: set[tuple[str, str]]

    @classmethod
    def of(cls, source: str, path: str, parsed: Parsed) -> FileContext:
        """The context of ``source`` (str) parsed as ``parsed``, which it changes: the comment block right above an
        import fallback's ``try`` speaks about the fallback, so ``parsed.fallbacks`` grows to include it."""
        if parsed.fallbacks:
            lines = source.splitlines()
            widened = []
            for first, end in parsed.fallbacks:
                while first > 1 and first - 2 < len(lines) and lines[first - 2].lstrip().startswith("#"):
                    first -= 1
                widened.append((first, end))
            parsed.fallbacks = widened
        return cls(path, parsed, is_test_path(str(path).replace(os.sep, "/")), _overridden_methods(parsed))

    def in_fallback(self, line: int) -> bool:
        """Whether ``line`` lies in an import fallback (see ``of``)."""
        return _inside(self.parsed.fallbacks, line)

    def scope_of(self, line: int) -> str:
        """The qualname of the innermost function or class holding ``line``, ``""`` at module level."""
        best: tuple[int, int, str] | None = None
        for scope in self.parsed.scopes:
            if scope[0] <= line <= scope[1] and (best is None or scope[0] >= best[0]):
                best = scope
        return best[2] if best else ""

    def may_be_stub(self, func: Func) -> bool:
        """False for functions that are never stubs: in an import fallback, overridden by a subclass in the file,
        members of a ``typing.Protocol``, abstract (``@abstractmethod`` and kin) or ``@overload`` signatures."""
        if self.in_fallback(func.line) or (func.owner, func.name) in self.overridden or func.in_protocol:
            return False
        decorators = {last(d) for d in func.decorators}
        return not (decorators & _ABSTRACT_DECORATORS or "overload" in decorators)

    def marker(self, text: str, line: int, qualname: str) -> re.Match[str] | None:
        """The first placeholder marker of a comment that counts where it stands (see "dummy" in the package
        docstring), or ``None``."""
        if _FILLED_LATER.search(text):
            return None
        for match in _MARKER.finditer(masked(text)):
            word = match.group(0).lower()
            if word.startswith("placeholder") and _TECHNICAL_PLACEHOLDER.search(text):
                continue
            if word != "dummy":
                return match
            if _TECHNICAL.search(text) or self.test_file or _inside(self.parsed.demos, line) or any(
                    part.startswith("test_") for part in qualname.split(".")):
                continue
            return match
        return None

    @cached_property
    def marked_values(self) -> list[tuple[Value, Comment, str]]:
        """(value statement, the comment after it on its last line, qualname) per placeholder value (STB003), from
        the last statement of the file to the first. A comment marks at most one statement: the last one before it
        on its line."""
        comments_by_line: dict[int, list[Comment]] = {}
        for comment in self.parsed.comments:
            comments_by_line.setdefault(comment[0], []).append(comment)
        marking: set[tuple[int, int]] = set()  # (line, column) of the comments marking a statement
        found: list[tuple[Value, Comment, str]] = []
        for value in sorted(set(self.parsed.values), reverse=True):
            line, _, end_line, end_column = value
            for comment in comments_by_line.get(end_line, ()):
                if comment[1] < end_column or (end_line, comment[1]) in marking:
                    continue  # before the statement's end, or already marking a later statement on the line
                qualname = self.scope_of(line)
                text = comment[2]
                if (_VALUE_TAG.search(masked(text)) or self.marker(text, line, qualname)) and not self.in_fallback(line):
                    marking.add((end_line, comment[1]))
                    found.append((value, comment, qualname))
        return found

    @cached_property
    def _marking(self) -> frozenset[tuple[int, int]]:
        return frozenset((line, column) for _, (line, column, _), _ in self.marked_values)

    def marks_value(self, comment: Comment) -> bool:
        """Whether ``comment`` marks a value reported as STB003: its placeholder marker is then not reported again
        as TOD002 (its TODO tag still is, as TOD001: a tag is always a TOD code)."""
        return comment[:2] in self._marking


# -- functions: STB001, STB002, STB004 ---------------------------------------------------------------------------------
def stb001_empty_body(func: Func, file: FileContext) -> StubFinding | None:
    """STB001: a body of only ``pass``, ``...`` and docstrings; not an empty ``__init__``-like dunder of a class
    (``_EMPTY_OK_DUNDERS``), nor a body its docstring or comments declare intended (``_intended_noop``)."""
    core = [k for k in func.kinds if k != DOC]
    if not all(k in (PASS, ELLIPSIS) for k in core):
        return None
    if (func.owner and func.name in _EMPTY_OK_DUNDERS) or _intended_noop(func, file.parsed.comments):
        return None
    parts = (["a docstring"] if DOC in func.kinds else []) + sorted(
        {"`pass`" if k == PASS else "`...`" for k in core})
    return _function_finding(func, file, "STB001", f"stub: body of `{func.qualname}` is only {' and '.join(parts)}")


def stb002_raises_not_implemented(func: Func, file: FileContext) -> StubFinding | None:
    """STB002: after optional reports, only ``raise NotImplementedError``; or only ``return NotImplemented`` outside
    the dunders where that is the protocol (``_NOTIMPLEMENTED_DUNDERS``)."""
    rest = _body(func)
    if not rest:
        return None  # an empty body is STB001's
    if rest[-1] == RAISE_NIE and all(k in (REPORT, REPORT_NI) for k in rest[:-1]):
        return _function_finding(func, file, "STB002", f"stub: `{func.qualname}` only raises NotImplementedError")
    if rest == [RETURN_NI] and func.name not in _NOTIMPLEMENTED_DUNDERS:
        return _function_finding(func, file, "STB002", f"stub: `{func.qualname}` only returns NotImplemented")
    return None


def stb004_reports_not_implemented(func: Func, file: FileContext) -> StubFinding | None:
    """STB004: only print/log/warn calls, one at least saying not implemented, optionally then one ``return``."""
    rest = _body(func)
    if not rest:
        return None  # an empty body is STB001's
    reports = rest[:-1] if rest[-1] in (RETURN, RETURN_NI) else rest
    if reports and all(k in (REPORT, REPORT_NI) for k in reports) and REPORT_NI in reports:
        return _function_finding(func, file, "STB004",
                                 f"stub: `{func.qualname}` only reports that it is not implemented")
    return None


# -- values: STB003 ----------------------------------------------------------------------------------------------------
def stb003_placeholder_values(file: FileContext) -> list[StubFinding]:
    """STB003: a ``return`` or assignment whose trailing comment says the value is a placeholder (a TODO/FIXME/XXX
    tag or a placeholder marker), outside import fallbacks; one finding per statement, found from the last."""
    return [StubFinding(file.path, line, column + 1, end_line, "STB003",
                        f"placeholder value marked by comment: {_quote(text)}", qualname)
            for (line, column, end_line, _), (_, _, text), qualname in file.marked_values]


# -- comments: TOD001, TOD002 ------------------------------------------------------------------------------------------
def tod001_tag_comment(comment: Comment, file: FileContext) -> StubFinding | None:
    """TOD001: a TODO(s)/FIXME tag in any case, or XXX/HACK in capitals, as a whole word, outside URLs and file
    names; also in a comment that marks a placeholder value (STB003)."""
    line, column, text = comment
    tag = _TAG.search(masked(text))
    if not tag:
        return None
    name = tag.group(0).upper()
    name = "TODO" if name.startswith("TODO") else "XXX" if name.startswith("XXX") else name
    return StubFinding(file.path, line, column + tag.start() + 1, line, "TOD001", f"{name} comment: {_quote(text)}",
                       file.scope_of(line))


def tod002_placeholder_comment(comment: Comment, file: FileContext) -> StubFinding | None:
    """TOD002: a placeholder marker that counts where it stands (``FileContext.marker``), outside import fallbacks,
    in a comment without a TOD001 tag (TOD001 wins) that does not mark a value (STB003 reports it)."""
    line, column, text = comment
    if _TAG.search(masked(text)) or file.marks_value(comment):
        return None
    found = file.marker(text, line, file.scope_of(line))
    if found is None or file.in_fallback(line):
        return None
    return StubFinding(file.path, line, column + found.start() + 1, line, "TOD002",
                       f"placeholder marker '{' '.join(found.group(0).lower().split())}' in comment: {_quote(text)}",
                       file.scope_of(line))


FUNCTION_RULES: tuple[Callable[[Func, FileContext], StubFinding | None], ...] = (
    stb001_empty_body, stb002_raises_not_implemented, stb004_reports_not_implemented)
COMMENT_RULES: tuple[Callable[[Comment, FileContext], StubFinding | None], ...] = (
    tod001_tag_comment, tod002_placeholder_comment)


# -- helpers -----------------------------------------------------------------------------------------------------------
def _function_finding(func: Func, file: FileContext, code: str, message: str) -> StubFinding:
    """A finding on the whole function: from its ``def`` line to its last line, named by its qualname."""
    return StubFinding(file.path, func.line, func.column, func.end_line, code, message, func.qualname)


def _body(func: Func) -> list[str]:
    """The body kinds that are not docstrings, ``pass`` or ``...``."""
    return [k for k in func.kinds if k not in (DOC, PASS, ELLIPSIS)]


def _inside(ranges: list[tuple[int, int]], line: int) -> bool:
    return any(first <= line <= end for first, end in ranges)


def _overridden_methods(parsed: Parsed) -> set[tuple[str, str]]:
    """(class qualname, method name) pairs that a subclass defined in the same file overrides: the base's stub is
    then an interface, and the subclass holds the implementation."""
    methods: dict[str, set[str]] = {}
    for func in parsed.functions:
        if func.owner:
            methods.setdefault(func.owner, set()).add(func.name)
    by_name: dict[str, list[str]] = {}
    for qualname, name, _ in parsed.classes:
        by_name.setdefault(name, []).append(qualname)
    found: set[tuple[str, str]] = set()
    for qualname, _, bases in parsed.classes:
        pending, seen = list(bases), set()
        while pending:  # every ancestor defined in this file
            base = pending.pop()
            if base in seen:
                continue
            seen.add(base)
            for base_qualname in by_name.get(base, ()):
                if base_qualname == qualname:
                    continue
                found.update((base_qualname, m) for m in methods.get(qualname, ()))
                pending.extend(b for q, n, bs in parsed.classes if q == base_qualname for b in bs)
    return found


def _intended_noop(func: Func, comments: list[Comment]) -> bool:
    """An empty body that its docstring or a comment inside it declares intended ("no-op", "nothing to do")."""
    said = [func.doc] + [text for line, _, text in comments if func.line <= line <= func.end_line]
    return any(_NOOP.search(text) for text in said) and not any(
        _TAG.search(masked(text)) or _MARKER.search(masked(text)) or REPORT_MARKER.search(text) for text in said)


def _quote(comment: str) -> str:
    """The comment with its white space folded, cut to 80 characters."""
    text = " ".join(comment.split())
    return text if len(text) <= _MAX_QUOTE else text[:_MAX_QUOTE - 3] + "..."
