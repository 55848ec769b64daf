"""Stubs, placeholders and TODO markers in Python source: the facts behind DESIGN.md's stub rule and the
``verify-stubs`` pre-commit hook.

SA-Bench found that stubs and placeholders are about a sixth of all zero-scored claims in agent-generated
reproductions. This module finds them statically (the code is parsed, never imported or run).

Finding codes
-------------
STB001  empty body
    A function or method whose body is only ``pass``, ``...``, a docstring, or a docstring plus ``pass``/``...``.
    Source: DESIGN.md ("Stubs: ... ``pass``, ``...``, ... a docstring only"); pylint W0107 (unnecessary-pass) and
    flake8-pie PIE790 look at the same bodies, from the other side.
STB002  only raises NotImplementedError
    A function whose body (after an optional docstring and optional print/log calls) only does
    ``raise NotImplementedError`` / ``raise NotImplementedError(...)`` (also the common misspelling
    ``raise NotImplemented``), or only ``return NotImplemented`` outside the binary and rich-comparison dunders,
    where ``NotImplemented`` is the documented protocol value. Source: DESIGN.md; Python docs, "NotImplementedError"
    and "NotImplemented" (library/exceptions, library/constants); pylint W0223 (abstract-method).
STB003  placeholder value marked by a comment
    A ``return`` or an assignment whose line ends with a comment saying the value is a placeholder: TODO, FIXME,
    XXX, placeholder, dummy, stub, not (yet) implemented, unimplemented, to be implemented
    (``return 0.0  # placeholder``, ``x = torch.zeros(3)  # dummy``, ``return None  # TODO``). The comment is the
    comment on the statement's last line, after the statement. That comment is reported once, as STB003, not again
    as TOD001/TOD002. Source: DESIGN.md ("a placeholder return marked TODO"); SA-Bench's stub category.
STB004  body only reports that it is not implemented
    A function whose body (after an optional docstring) is only ``print``/logging/``warnings.warn`` calls, at least
    one of whose string arguments says not implemented / unimplemented / to be implemented / placeholder / stub /
    TODO, optionally followed by one ``return`` (any value) or ``pass``. Source: SA-Bench's stub category
    (agents announce the gap instead of raising).
TOD001  TODO / FIXME / XXX / HACK comment
    A comment containing the tag as a whole word: ``TODO`` (also ``TODOs``) and ``FIXME`` in any case, ``XXX`` and
    ``HACK`` in capitals only (lower-case "hack" is usually prose). Source: pylint W0511 (fixme); flake8-fixme
    FIX001..FIX004; ruff's FIX rules.
TOD002  placeholder marker in a comment
    A comment containing, as whole words and in any case, "not implemented", "not yet implemented",
    "unimplemented", "to be implemented", "placeholder(s)", "dummy", "stub(s)"/"stubbed". A comment yields at most
    one finding: TOD001 wins over TOD002. Source: SA-Bench's stub category; DESIGN.md ("stubs, TODOs" are facts).

Word matching is on word boundaries, where ``_`` is a word character: "stubborn" is not "stub", "dummy_input" is not
"dummy". Only comments count for TOD001/TOD002: names, strings and docstrings do not.

Not findings: members decorated ``@abstractmethod`` / ``@abc.abstractmethod`` (and ``abstractproperty``,
``abstractclassmethod``, ``abstractstaticmethod``), members of ``typing.Protocol`` classes, ``@overload``
signatures, ``.pyi`` files (no findings at all), ``return NotImplemented`` in binary and rich-comparison dunders
(``__eq__``, ``__add__``, ...), ``pass`` anywhere but a whole function body (an ``except`` block, an empty class
such as ``class MyError(Exception): pass``), ``...`` as a default value, and a function whose body is missing
because the file is cut off.

Also not findings, each a false-positive pattern measured on the SA-Bench development repositories with
``benchmarks/stub_scan.py``:

- an empty ``__init__``, ``__post_init__``, ``__init_subclass__``, ``__del__`` or ``__exit__`` method: nothing to set
  up is not a missing mechanism (the class's other methods are still checked);
- an empty body that its docstring or a comment in it declares intended ("no-op", "nothing to do", "does nothing",
  "intentionally", "not needed"), unless it also carries a TODO or placeholder marker;
- a method that a subclass defined in the same file overrides: the base method is an interface, the override is the
  implementation (Python's pre-``abc`` idiom for abstract methods);
- STB findings and TOD002 inside an import fallback (a ``try`` statement with an ``except ImportError:`` or
  ``except ModuleNotFoundError:`` handler, and the comment lines right above it): stand-ins for code imported from
  elsewhere. TOD001 is still reported there;
- "dummy" used as a technical term or in test code: in a comment that also speaks of a shape, dim/dimension, axis or
  flatten(ed) ("add a dummy batch dim", "dummy tensor to infer the flattened size"), and in
  ``if __name__ == "__main__":`` blocks, ``test_*`` functions and test files (``test_*.py``, ``*_test.py``,
  ``conftest.py``, files under ``tests/`` or ``test/``), where dummy data is the point;
- "placeholder" as a multimodal-model term: "placeholder token(s)", "image/visual/patch/mask placeholder(s)";
- a placeholder that the comment says is filled in later ("will be set per equation", "populated by
  set_timesteps", "will be determined by dataset"): an initial value, not a stub.

Inline suppression: a comment ``# sauverify: ignore`` (every code) or ``# sauverify: ignore[TOD001,STB]`` (codes or
code prefixes) suppresses the findings whose lines (``line`` .. ``end_line``) include the comment's line.

Parsing: libcst (with ``PositionProvider``). Where libcst cannot parse the file (Python 2 syntax, a stray markdown
fence on line 1, a truncated file), tree-sitter-python parses it with error nodes and the same rules run on its
tree, so findings are still reported.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from extractors.fallback import tree_sitter_parser
from extractors.guards import too_complex
from extractors.walk import is_test_path, iter_python_files
from extractors.words import words

__all__ = [
    "CODES",
    "StubFinding",
    "code_selected",
    "find_stubs",
    "find_stubs_in_file",
    "iter_python_files",
    "read_source",
]

CODES: dict[str, str] = {
    "STB001": "empty function body (pass, ..., docstring)",
    "STB002": "function body only raises NotImplementedError",
    "STB003": "placeholder value marked by a trailing comment",
    "STB004": "function body only reports that it is not implemented",
    "TOD001": "TODO / FIXME / XXX / HACK comment",
    "TOD002": "placeholder / stub / dummy / not-implemented marker in a comment",
}


@dataclass(frozen=True, order=True)
class StubFinding:
    """One finding.

    ``path`` is the path as given to the finder (str); ``line``, ``column`` and ``end_line`` are 1-based ints
    (``column`` counts characters, as flake8 prints it); ``code`` is a key of ``CODES``; ``message`` is one line of
    text; ``qualname`` is the qualified name of the innermost enclosing function or class, as Python's
    ``__qualname__`` spells it (``Trainer.train_step``, ``outer.<locals>.inner``), or ``""`` at module level. For
    STB001/STB002/STB004 the finding is the function itself: ``line`` is its ``def`` line and ``qualname`` its name.
    """

    path: str
    line: int
    column: int
    end_line: int
    code: str
    message: str
    qualname: str = ""

    def format(self) -> str:
        """The flake8-style line ``path:line:col: CODE message`` (str). Never raises."""
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"


# -- words -------------------------------------------------------------------------------------------------------------
_TAG = re.compile(r"(?<!\w)(?:(?i:todos?)|(?i:fixme)|XXX+|HACK)(?!\w)")
_MARKER = re.compile(
    r"(?<!\w)(?:not\s+(?:yet\s+)?implemented|unimplemented|to\s+be\s+implemented|placeholders?|dummy|"
    r"stub(?:s|bed)?)(?!\w)", re.IGNORECASE)
# STB003: the tags saying that a value is not the real one (not the fourth TOD001 tag: that one marks real code).
_VALUE_TAG = re.compile(r"(?<!\w)(?:(?i:todo)|(?i:fixme)|XXX+)(?!\w)")
# STB004: what a print/log/warn message says when the function is not there.
_REPORT_MARKER = re.compile(
    r"(?<!\w)(?:not\s+(?:yet\s+)?implemented|unimplemented|to\s+be\s+implemented|placeholder|stub|todo)(?!\w)",
    re.IGNORECASE)
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
# Test code, where made-up data is the point.
# An empty body declared intended.
_NOOP = re.compile(r"(?<!\w)(?:no[- ]?op|nothing to do|does nothing|do nothing|intentionally|not needed|not required|"
                   r"nothing to (?:clean|close|release|free|reset))(?!\w)", re.IGNORECASE)
_SUPPRESS = re.compile(r"sauverify:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?")

# Word lists (what each holds and its source: extractors/words.yaml).
_ABSTRACT_DECORATORS = words("abstract_decorators")
_EMPTY_OK_DUNDERS = words("empty_ok_dunders")
_FALLBACK_ERRORS = words("import_fallback_errors")
_REPORT_FUNCTIONS = words("report_functions")
_REPORT_METHODS = words("report_methods")
_NOT_IMPLEMENTED = words("not_implemented")
_NOTIMPLEMENTED_DUNDERS = words("notimplemented_dunders")

# Body statement kinds, the common language of both parsers.
_DOC, _PASS, _ELLIPSIS, _RAISE_NIE, _RETURN_NI, _REPORT, _REPORT_NI, _RETURN, _OTHER = (
    "doc", "pass", "ellipsis", "raise", "return_ni", "report", "report_ni", "return", "other")

_MAX_QUOTE = 80


@dataclass(frozen=True)
class _Func:
    name: str
    qualname: str
    line: int
    column: int
    end_line: int
    decorators: tuple[str, ...]
    in_protocol: bool
    kinds: tuple[str, ...]
    doc: str  # the text of the body's string statements (docstring)
    owner: str  # qualname of the class whose body defines it, "" when not a method


@dataclass
class _Parsed:
    """What one parser saw: functions, scopes (start, end, qualname), comments (line, col, text), value statements
    (line, col, end_line, end_col) whose trailing comment may mark a placeholder, the line ranges of import fallbacks
    (``try`` statements with an ``except ImportError:`` handler), of ``if __name__ == "__main__":`` blocks, and the
    classes (qualname, name, base names)."""

    functions: list[_Func] = field(default_factory=list)
    scopes: list[tuple[int, int, str]] = field(default_factory=list)
    comments: list[tuple[int, int, str]] = field(default_factory=list)
    values: list[tuple[int, int, int, int]] = field(default_factory=list)
    fallbacks: list[tuple[int, int]] = field(default_factory=list)
    demos: list[tuple[int, int]] = field(default_factory=list)
    classes: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _qualname(stack: list[tuple[str, bool]], name: str) -> str:
    """``stack`` holds (name, is_function) of the enclosing scopes; functions add ``<locals>`` as __qualname__ does."""
    parts: list[str] = []
    for scope, is_function in stack:
        parts.append(scope)
        if is_function:
            parts.append("<locals>")
    parts.append(name)
    return ".".join(parts)


def _is_report_call(callee: str) -> bool:
    if callee in _REPORT_FUNCTIONS:
        return True
    head, _, method = callee.rpartition(".")
    return method in _REPORT_METHODS and "log" in head.lower()


# -- libcst ------------------------------------------------------------------------------------------------------------
def _cst_dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _cst_dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    if isinstance(node, cst.Call):
        return _cst_dotted(node.func)
    if isinstance(node, cst.Subscript):
        return _cst_dotted(node.value)
    return ""


def _cst_strings(node: cst.CSTNode) -> Iterator[str]:
    """The literal text of every string inside ``node``."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.SimpleString):
            yield current.value
        elif isinstance(current, cst.FormattedStringText):
            yield current.value
        else:
            stack.extend(current.children)


def _cst_kind(stmt: cst.BaseSmallStatement) -> str:
    if isinstance(stmt, cst.Pass):
        return _PASS
    if isinstance(stmt, cst.Expr):
        value = stmt.value
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return _DOC
        if isinstance(value, cst.Ellipsis):
            return _ELLIPSIS
        if isinstance(value, cst.Call) and _is_report_call(_cst_dotted(value.func)):
            said = any(_REPORT_MARKER.search(text) for arg in value.args for text in _cst_strings(arg.value))
            return _REPORT_NI if said else _REPORT
        return _OTHER
    if isinstance(stmt, cst.Raise):
        if stmt.exc is not None and _last(_cst_dotted(stmt.exc)) in _NOT_IMPLEMENTED:
            return _RAISE_NIE
        return _OTHER
    if isinstance(stmt, cst.Return):
        if isinstance(stmt.value, cst.Name) and stmt.value.value == "NotImplemented":
            return _RETURN_NI
        return _RETURN
    return _OTHER


def _cst_small_statements(body: cst.BaseSuite) -> Iterator[cst.CSTNode]:
    """The statements of a function body, small statements unpacked from their lines, compound ones as they are."""
    if isinstance(body, cst.SimpleStatementSuite):
        yield from body.body
        return
    for stmt in body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            yield stmt


def _cst_is_main_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    names = {_cst_dotted(test.left)}
    right = test.comparisons[0].comparator
    strings = {s.strip("\"'") for s in _cst_strings(test)}
    names.add(_cst_dotted(right))
    return "__name__" in names and "__main__" in strings


class _CstCollector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.protocol: list[bool] = []  # per enclosing class: is it a Protocol
        self.parsed = _Parsed()

    def _pos(self, node: cst.CSTNode):
        return self.get_metadata(PositionProvider, node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qualname = _qualname(self.stack, node.name.value)
        start, end = self._pos(node.name).start.line, self._pos(node).end.line
        self.parsed.scopes.append((start, end, qualname))
        self.stack.append((node.name.value, False))
        bases = frozenset(_last(_cst_dotted(base.value)) for base in node.bases if base.keyword is None)
        self.parsed.classes.append((qualname, node.name.value, bases))
        self.protocol.append("Protocol" in bases)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()
        self.protocol.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qualname = _qualname(self.stack, node.name.value)
        whole = self._pos(node)
        line = self._pos(node.name).start.line
        in_protocol = bool(self.stack) and not self.stack[-1][1] and self.protocol[-1]
        owner = qualname.rsplit(".", 1)[0] if self.stack and not self.stack[-1][1] else ""
        decorators = tuple(_cst_dotted(d.decorator) for d in node.decorators)
        kinds = tuple(_cst_kind(s) if isinstance(s, cst.BaseSmallStatement) else _OTHER
                      for s in _cst_small_statements(node.body))
        doc = "\n".join(text for stmt in _cst_small_statements(node.body) if isinstance(stmt, cst.Expr)
                        and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                        for text in _cst_strings(stmt.value))
        self.parsed.functions.append(_Func(node.name.value, qualname, line, whole.start.column + 1, whole.end.line,
                                           decorators, in_protocol, kinds, doc, owner))
        self.parsed.scopes.append((line, whole.end.line, qualname))
        self.stack.append((node.name.value, True))
        self.protocol.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()
        self.protocol.pop()

    def visit_Try(self, node: cst.Try) -> None:
        for handler in node.handlers:
            kind = handler.type
            caught = kind.elements if isinstance(kind, cst.Tuple) else [kind] if kind is not None else []
            names = {_last(_cst_dotted(c.value if isinstance(c, cst.BaseElement) else c)) for c in caught}
            if names & _FALLBACK_ERRORS:
                where = self._pos(node)
                self.parsed.fallbacks.append((where.start.line, where.end.line))
                return

    def visit_If(self, node: cst.If) -> None:
        if _cst_is_main_guard(node.test):
            where = self._pos(node)
            self.parsed.demos.append((where.start.line, where.end.line))

    def visit_Comment(self, node: cst.Comment) -> None:
        start = self._pos(node).start
        self.parsed.comments.append((start.line, start.column, node.value))

    def _value(self, node: cst.CSTNode) -> None:
        where = self._pos(node)
        self.parsed.values.append((where.start.line, where.start.column, where.end.line, where.end.column))

    def visit_Return(self, node: cst.Return) -> None:
        self._value(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._value(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._value(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._value(node)


def _parse_libcst(source: str, wrapper: MetadataWrapper | None = None) -> _Parsed | None:
    if wrapper is None:
        try:
            wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        except Exception:  # ParserSyntaxError, and anything else the native parser raises on bad input
            return None
    collector = _CstCollector()
    try:
        wrapper.visit(collector)
    except RecursionError:
        return None
    return collector.parsed


# -- tree-sitter -------------------------------------------------------------------------------------------------------
def _ts_descendants(node) -> Iterator:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


class _TsCollector:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.line_starts = [0]
        for index, byte in enumerate(data):
            if byte == 10:
                self.line_starts.append(index + 1)
        self.parsed = _Parsed()

    def text(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def column(self, point) -> int:
        """0-based character column of a tree-sitter point (whose column counts bytes)."""
        row, col = point
        start = self.line_starts[row] if row < len(self.line_starts) else len(self.data)
        return len(self.data[start:start + col].decode("utf-8", "replace"))

    def dotted(self, node) -> str:
        if node.type == "identifier":
            return self.text(node)
        if node.type == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            head = self.dotted(obj) if obj is not None else ""
            return f"{head}.{self.text(attr)}" if head and attr is not None else ""
        if node.type == "call":
            function = node.child_by_field_name("function")
            return self.dotted(function) if function is not None else ""
        if node.type == "subscript":
            value = node.child_by_field_name("value")
            return self.dotted(value) if value is not None else ""
        return ""

    def strings(self, node) -> Iterator[str]:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "string_content":
                yield self.text(current)
            else:
                stack.extend(current.children)

    def kind(self, stmt) -> str | None:
        """The body kind of a block child, ``None`` for a comment."""
        kind = stmt.type
        if kind == "comment":
            return None
        if kind == "pass_statement":
            return _PASS
        if kind == "expression_statement":
            children = stmt.named_children
            if len(children) != 1:
                return _OTHER
            value = children[0]
            if value.type in ("string", "concatenated_string"):
                return _DOC
            if value.type == "ellipsis":
                return _ELLIPSIS
            if value.type == "call" and _is_report_call(self.dotted(value)):
                arguments = value.child_by_field_name("arguments")
                said = arguments is not None and any(_REPORT_MARKER.search(t) for t in self.strings(arguments))
                return _REPORT_NI if said else _REPORT
            return _OTHER
        if kind == "print_statement":  # Python 2
            said = any(_REPORT_MARKER.search(t) for t in self.strings(stmt))
            return _REPORT_NI if said else _REPORT
        if kind == "raise_statement":
            exc = next((c for c in stmt.named_children if c.type != "comment"), None)
            if exc is not None and _last(self.dotted(exc)) in _NOT_IMPLEMENTED:
                return _RAISE_NIE
            return _OTHER
        if kind == "return_statement":
            values = [c for c in stmt.named_children if c.type != "comment"]
            if len(values) == 1 and values[0].type == "identifier" and self.text(values[0]) == "NotImplemented":
                return _RETURN_NI
            return _RETURN
        return _OTHER

    def walk(self, root) -> None:
        # (node, stack of enclosing (name, is_function), enclosing class is Protocol, decorators)
        pending: list = [(root, [], False, ())]
        while pending:
            node, stack, protocol, decorators = pending.pop()
            kind = node.type
            if kind == "comment":
                self.parsed.comments.append((node.start_point[0] + 1, self.column(node.start_point),
                                             self.text(node)))
                continue
            if kind in ("return_statement", "assignment", "augmented_assignment"):
                self.value(node)
            elif kind == "try_statement":
                caught = {self.text(n) for clause in node.named_children if clause.type == "except_clause"
                          for c in clause.named_children if c.type != "block" for n in _ts_descendants(c)
                          if n.type == "identifier"}
                if caught & _FALLBACK_ERRORS:
                    self.parsed.fallbacks.append((node.start_point[0] + 1, node.end_point[0] + 1))
            elif kind == "if_statement":
                condition = node.child_by_field_name("condition")
                if condition is not None and condition.type == "comparison_operator":
                    words = self.text(condition)
                    if "__name__" in words and "__main__" in words:
                        self.parsed.demos.append((node.start_point[0] + 1, node.end_point[0] + 1))
            if kind == "decorated_definition":
                names = tuple(self.dotted(c.named_children[0]) for c in node.children
                              if c.type == "decorator" and c.named_children)
                for child in reversed(node.children):
                    if child.type != "decorator":
                        pending.append((child, stack, protocol, names))
                    else:
                        pending.append((child, stack, protocol, ()))
                continue
            if kind in ("function_definition", "class_definition"):
                name_node = node.child_by_field_name("name")
                body = node.child_by_field_name("body")
                name = self.text(name_node) if name_node is not None else ""
                qualname = _qualname(stack, name)
                line = (name_node.start_point[0] if name_node is not None else node.start_point[0]) + 1
                end_line = node.end_point[0] + 1
                if name:
                    self.parsed.scopes.append((line, end_line, qualname))
                if kind == "function_definition":
                    kinds = tuple(k for k in (self.kind(c) for c in (body.named_children if body is not None else ()))
                                  if k is not None)
                    if name and kinds:  # no statements: the file is cut off here
                        in_protocol = bool(stack) and not stack[-1][1] and protocol
                        owner = qualname.rsplit(".", 1)[0] if stack and not stack[-1][1] else ""
                        doc = "\n".join(self.text(c.named_children[0]) for c in body.named_children
                                        if c.type == "expression_statement" and len(c.named_children) == 1
                                        and c.named_children[0].type in ("string", "concatenated_string"))
                        self.parsed.functions.append(_Func(name, qualname, line, self.column(node.start_point) + 1,
                                                           end_line, decorators, in_protocol, kinds, doc, owner))
                    inner_stack, inner_protocol = [*stack, (name, True)], False
                else:
                    superclasses = node.child_by_field_name("superclasses")
                    bases = frozenset(_last(self.dotted(b)) for b in (
                        superclasses.named_children if superclasses is not None else ())
                        if b.type not in ("keyword_argument", "comment"))
                    if name:
                        self.parsed.classes.append((qualname, name, bases))
                    inner_protocol = "Protocol" in bases
                    inner_stack = [*stack, (name, False)]
                body_id = body.id if body is not None else None
                for child in reversed(node.children):
                    if child.id == body_id or child.type == "comment":
                        pending.append((child, inner_stack, inner_protocol, ()))
                    else:
                        pending.append((child, stack, protocol, ()))
                continue
            for child in reversed(node.children):
                pending.append((child, stack, protocol, ()))

    def value(self, node) -> None:
        start, end = node.start_point, node.end_point
        if node.type in ("assignment", "augmented_assignment"):
            parent = node.parent  # the statement, not the inner ``b = 1`` of ``a = b = 1``
            if parent is None or parent.type != "expression_statement":
                return
            start = parent.start_point
        self.parsed.values.append((start[0] + 1, self.column(start), end[0] + 1, self.column(end)))


def _parse_tree_sitter(source: str) -> _Parsed:
    data = source.encode("utf-8", "surrogatepass")
    collector = _TsCollector(data)
    collector.walk(tree_sitter_parser().parse(data).root_node)
    return collector.parsed


# -- rules -------------------------------------------------------------------------------------------------------------
def _function_finding(func: _Func) -> tuple[str, str] | None:
    """(code, message) for a stub function, ``None`` otherwise."""
    if func.in_protocol:
        return None
    decorators = {_last(d) for d in func.decorators}
    if decorators & _ABSTRACT_DECORATORS or "overload" in decorators:
        return None
    core = [k for k in func.kinds if k != _DOC]
    name = f"`{func.qualname}`"
    if all(k in (_PASS, _ELLIPSIS) for k in core):
        if func.owner and func.name in _EMPTY_OK_DUNDERS:
            return None
        parts = (["a docstring"] if _DOC in func.kinds else []) + sorted(
            {"`pass`" if k == _PASS else "`...`" for k in core})
        return "STB001", f"stub: body of {name} is only {' and '.join(parts)}"
    rest = [k for k in core if k not in (_PASS, _ELLIPSIS)]
    if rest[-1] == _RAISE_NIE and all(k in (_REPORT, _REPORT_NI) for k in rest[:-1]):
        return "STB002", f"stub: {name} only raises NotImplementedError"
    if rest == [_RETURN_NI] and func.name not in _NOTIMPLEMENTED_DUNDERS:
        return "STB002", f"stub: {name} only returns NotImplemented"
    reports = rest[:-1] if rest[-1] in (_RETURN, _RETURN_NI) else rest
    if reports and all(k in (_REPORT, _REPORT_NI) for k in reports) and _REPORT_NI in reports:
        return "STB004", f"stub: {name} only reports that it is not implemented"
    return None


def _overridden_methods(parsed: _Parsed) -> set[tuple[str, str]]:
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


def _intended_noop(func: _Func, comments: list[tuple[int, int, str]]) -> bool:
    """An empty body that its docstring or a comment inside it declares intended ("no-op", "nothing to do")."""
    said = [func.doc] + [text for line, _, text in comments if func.line <= line <= func.end_line]
    return any(_NOOP.search(text) for text in said) and not any(
        _TAG.search(text) or _MARKER.search(text) or _REPORT_MARKER.search(text) for text in said)


def _quote(comment: str) -> str:
    text = " ".join(comment.split())
    return text if len(text) <= _MAX_QUOTE else text[:_MAX_QUOTE - 3] + "..."


def _scope_of(scopes: list[tuple[int, int, str]], line: int) -> str:
    best: tuple[int, int, str] | None = None
    for scope in scopes:
        if scope[0] <= line <= scope[1] and (best is None or scope[0] >= best[0]):
            best = scope
    return best[2] if best else ""


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


def code_selected(code: str, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> bool:
    """Whether ``code`` (str) passes the filters: it starts with one of the ``select`` prefixes (every code when
    ``select`` is empty) and with none of the ``ignore`` prefixes. Prefixes are str, compared case-insensitively.
    Never raises."""
    code = code.upper()
    select = [s.upper() for s in select if s]
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i.upper()) for i in ignore if i)


def find_stubs(source: str, path: str, *, honor_suppressions: bool = True,
               wrapper: MetadataWrapper | None = None) -> list[StubFinding]:
    """Find stubs, placeholder values and TODO/placeholder comments in one Python file's text.

    ``source`` (str) is the file's text; ``path`` (str) is only copied into the findings, except that a path ending
    in ``.pyi`` gives no findings. With ``honor_suppressions`` (bool, default True), findings covered by a
    ``# sauverify: ignore[...]`` comment are left out. Returns a list of ``StubFinding`` sorted by line, column and
    code. Parses with libcst, and with tree-sitter-python when libcst cannot parse the text. Never raises on
    malformed source; raises ``TypeError`` only when ``source`` is not a str. ``wrapper`` is ``source`` already
    parsed by libcst in a ``MetadataWrapper`` (the verifier parses each file once and shares its metadata), or
    ``None`` to parse here. Source that ``extractors.guards``
    refuses (brackets nested beyond CPython's limit, huge operator chains) gives no findings.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    if str(path).endswith(".pyi") or too_complex(source) is not None:
        return []  # pathological nesting would crash or stall both parsers (extractors.guards)
    parsed = _parse_libcst(source, wrapper)
    if parsed is None:
        parsed = _parse_tree_sitter(source)

    def inside(ranges: list[tuple[int, int]], line: int) -> bool:
        return any(first <= line <= last for first, last in ranges)

    if parsed.fallbacks:  # the comment block right above an import fallback's ``try`` speaks about the fallback
        lines = source.splitlines()
        widened = []
        for first, last in parsed.fallbacks:
            while first > 1 and first - 2 < len(lines) and lines[first - 2].lstrip().startswith("#"):
                first -= 1
            widened.append((first, last))
        parsed.fallbacks = widened

    test_file = is_test_path(str(path).replace(os.sep, "/"))

    def marker(text: str, line: int, qualname: str) -> re.Match | None:
        """The first placeholder marker of a comment that counts where it stands (see "dummy" in the docstring)."""
        if _FILLED_LATER.search(text):
            return None
        for match in _MARKER.finditer(text):
            word = match.group(0).lower()
            if word.startswith("placeholder") and _TECHNICAL_PLACEHOLDER.search(text):
                continue
            if word != "dummy":
                return match
            if _TECHNICAL.search(text) or test_file or inside(parsed.demos, line) or any(
                    part.startswith("test_") for part in qualname.split(".")):
                continue
            return match
        return None

    overridden = _overridden_methods(parsed)
    findings: list[StubFinding] = []
    for func in parsed.functions:
        if inside(parsed.fallbacks, func.line) or (func.owner, func.name) in overridden:
            continue
        found = _function_finding(func)
        if found and found[0] == "STB001" and _intended_noop(func, parsed.comments):
            continue
        if found:
            findings.append(StubFinding(path, func.line, func.column, func.end_line, found[0], found[1],
                                        func.qualname))
    comments_by_line: dict[int, list[tuple[int, int, str]]] = {}
    for comment in parsed.comments:
        comments_by_line.setdefault(comment[0], []).append(comment)
    marking: set[tuple[int, int]] = set()  # comments reported as STB003
    for line, column, end_line, end_column in sorted(set(parsed.values), reverse=True):
        for _, c_column, text in comments_by_line.get(end_line, ()):
            if c_column < end_column or (end_line, c_column) in marking:
                continue  # before the statement's end, or already marking a later statement on the line
            qualname = _scope_of(parsed.scopes, line)
            if (_VALUE_TAG.search(text) or marker(text, line, qualname)) and not inside(parsed.fallbacks, line):
                marking.add((end_line, c_column))
                findings.append(StubFinding(path, line, column + 1, end_line, "STB003",
                                            f"placeholder value marked by comment: {_quote(text)}", qualname))
    for line, column, text in parsed.comments:
        if (line, column) in marking:
            continue
        qualname = _scope_of(parsed.scopes, line)
        tag = _TAG.search(text)
        if tag:
            name = tag.group(0).upper()
            name = "TODO" if name.startswith("TODO") else "XXX" if name.startswith("XXX") else name
            findings.append(StubFinding(path, line, column + tag.start() + 1, line, "TOD001",
                                        f"{name} comment: {_quote(text)}", qualname))
            continue
        found = marker(text, line, qualname)
        if found and not inside(parsed.fallbacks, line):
            findings.append(StubFinding(path, line, column + found.start() + 1, line, "TOD002",
                                        f"placeholder marker '{' '.join(found.group(0).lower().split())}' in "
                                        f"comment: {_quote(text)}", qualname))
    if honor_suppressions:
        suppressed = _suppressions(parsed.comments)
        if suppressed:
            findings = [f for f in findings if not _is_suppressed(f, suppressed)]
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


def _is_suppressed(finding: StubFinding, suppressed: dict[int, tuple[str, ...] | None]) -> bool:
    for line in range(finding.line, finding.end_line + 1):
        if line in suppressed:
            codes = suppressed[line]
            if codes is None or any(finding.code.startswith(c) for c in codes):
                return True
    return False


# -- files -------------------------------------------------------------------------------------------------------------
def read_source(path: str | os.PathLike) -> str:
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


def find_stubs_in_file(path: str | os.PathLike, *, honor_suppressions: bool = True) -> list[StubFinding]:
    """``find_stubs`` on the file at ``path`` (str or path-like; ``str(path)`` goes into the findings). Returns a
    list of ``StubFinding``. Raises ``OSError`` when the file cannot be read."""
    return find_stubs(read_source(path), str(path), honor_suppressions=honor_suppressions)
