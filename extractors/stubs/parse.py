"""What the stub rules see in one Python file, and the libcst parser that collects it.

Both parsers (libcst here; tree-sitter-python in ``parse_ts`` for files libcst cannot parse) produce a ``Parsed``:
its functions as ``Func`` records whose body is reduced to a tuple of statement *kinds* (``DOC``, ``PASS`` ...),
the common language the rules of ``codes`` read, plus scopes, comments, value statements, import fallbacks,
``__main__`` blocks and classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from extractors.words import word_list

# STB004: what a print/log/warn message says when the function is not there.
REPORT_MARKER = re.compile(
    r"(?<!\w)(?:not\s+(?:yet\s+)?implemented|unimplemented|to\s+be\s+implemented|placeholder|stub|todo)(?!\w)",
    re.IGNORECASE)

# Word lists (what each holds and its source: extractors/words.yaml).
FALLBACK_ERRORS = word_list("import_fallback_errors")
NOT_IMPLEMENTED = word_list("not_implemented")
_REPORT_FUNCTIONS = word_list("report_functions")
_REPORT_METHODS = word_list("report_methods")

# Body statement kinds, the common language of both parsers: a docstring (or any string statement), ``pass``,
# ``...``, ``raise NotImplementedError``, ``return NotImplemented``, a print/log call (one saying "not implemented"),
# any other ``return``, anything else.
DOC, PASS, ELLIPSIS, RAISE_NIE, RETURN_NI, REPORT, REPORT_NI, RETURN, OTHER = (
    "doc", "pass", "ellipsis", "raise", "return_ni", "report", "report_ni", "return", "other")


@dataclass(frozen=True)
class Func:
    """One function as the rules see it: ``name`` and ``qualname`` (as ``__qualname__`` spells it); ``line`` its name's
    line, ``column`` the 1-based column of the ``def`` (or its first decorator), ``end_line`` its last line;
    ``decorators`` their dotted names; ``in_protocol`` whether a ``typing.Protocol`` class body defines it; ``kinds``
    its body's statements as body kinds (``DOC`` ... ``OTHER``)."""

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
class Parsed:
    """What one parser saw: functions, scopes (start, end, qualname), comments (line, col, text), value statements
    (line, col, end_line, end_col) whose trailing comment may mark a placeholder, the line ranges of import fallbacks
    (``try`` statements with an ``except ImportError:`` handler), of ``if __name__ == "__main__":`` blocks, and the
    classes (qualname, name, base names)."""

    functions: list[Func] = field(default_factory=list)
    scopes: list[tuple[int, int, str]] = field(default_factory=list)
    comments: list[tuple[int, int, str]] = field(default_factory=list)
    values: list[tuple[int, int, int, int]] = field(default_factory=list)
    fallbacks: list[tuple[int, int]] = field(default_factory=list)
    demos: list[tuple[int, int]] = field(default_factory=list)
    classes: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)


def last(dotted: str) -> str:
    """The last part of a dotted name (``abc.abstractmethod`` -> ``abstractmethod``)."""
    return dotted.rsplit(".", 1)[-1]


def qualname_of(stack: list[tuple[str, bool]], name: str) -> str:
    """``stack`` holds (name, is_function) of the enclosing scopes; functions add ``<locals>`` as __qualname__ does."""
    parts: list[str] = []
    for scope, is_function in stack:
        parts.append(scope)
        if is_function:
            parts.append("<locals>")
    parts.append(name)
    return ".".join(parts)


def is_report_call(callee: str) -> bool:
    """Whether a call of the dotted name ``callee`` only reports: ``print``, ``warn``/``warnings.warn``, or a
    logging method on a receiver whose name holds "log" (``logger.info``, ``logging.warning``)."""
    if callee in _REPORT_FUNCTIONS:
        return True
    head, _, method = callee.rpartition(".")
    return method in _REPORT_METHODS and "log" in head.lower()


# -- libcst ------------------------------------------------------------------------------------------------------------
def _cst_dotted(node: cst.CSTNode) -> str:
    """``a.b.c`` for a name or attribute chain (through calls and subscripts: ``a.b()[0]`` -> ``a.b``), else ``""``."""
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
    """The body kind of one small statement."""
    if isinstance(stmt, cst.Pass):
        return PASS
    if isinstance(stmt, cst.Expr):
        value = stmt.value
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return DOC
        if isinstance(value, cst.Ellipsis):
            return ELLIPSIS
        if isinstance(value, cst.Call) and is_report_call(_cst_dotted(value.func)):
            said = any(REPORT_MARKER.search(text) for arg in value.args for text in _cst_strings(arg.value))
            return REPORT_NI if said else REPORT
        return OTHER
    if isinstance(stmt, cst.Raise):
        if stmt.exc is not None and last(_cst_dotted(stmt.exc)) in NOT_IMPLEMENTED:
            return RAISE_NIE
        return OTHER
    if isinstance(stmt, cst.Return):
        if isinstance(stmt.value, cst.Name) and stmt.value.value == "NotImplemented":
            return RETURN_NI
        return RETURN
    return OTHER


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
    """Whether an ``if`` test is ``__name__ == "__main__"`` (either way round)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    names = {_cst_dotted(test.left)}
    right = test.comparisons[0].comparator
    strings = {s.strip("\"'") for s in _cst_strings(test)}
    names.add(_cst_dotted(right))
    return "__name__" in names and "__main__" in strings


class _CstCollector(cst.CSTVisitor):
    """Fills a ``Parsed`` in one pass over a libcst tree (positions from ``PositionProvider``)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.protocol: list[bool] = []  # per enclosing class: is it a Protocol
        self.parsed = Parsed()

    def _pos(self, node: cst.CSTNode) -> CodeRange:
        return self.get_metadata(PositionProvider, node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qualname = qualname_of(self.stack, node.name.value)
        start, end = self._pos(node.name).start.line, self._pos(node).end.line
        self.parsed.scopes.append((start, end, qualname))
        self.stack.append((node.name.value, False))
        bases = frozenset(last(_cst_dotted(base.value)) for base in node.bases if base.keyword is None)
        self.parsed.classes.append((qualname, node.name.value, bases))
        self.protocol.append("Protocol" in bases)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()
        self.protocol.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qualname = qualname_of(self.stack, node.name.value)
        whole = self._pos(node)
        line = self._pos(node.name).start.line
        in_protocol = bool(self.stack) and not self.stack[-1][1] and self.protocol[-1]
        owner = qualname.rsplit(".", 1)[0] if self.stack and not self.stack[-1][1] else ""
        decorators = tuple(_cst_dotted(d.decorator) for d in node.decorators)
        kinds = tuple(_cst_kind(s) if isinstance(s, cst.BaseSmallStatement) else OTHER
                      for s in _cst_small_statements(node.body))
        doc = "\n".join(text for stmt in _cst_small_statements(node.body) if isinstance(stmt, cst.Expr)
                        and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                        for text in _cst_strings(stmt.value))
        self.parsed.functions.append(Func(node.name.value, qualname, line, whole.start.column + 1, whole.end.line,
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
            names = {last(_cst_dotted(c.value if isinstance(c, cst.BaseElement) else c)) for c in caught}
            if names & FALLBACK_ERRORS:
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


def parse_libcst(source: str, wrapper: MetadataWrapper | None = None) -> Parsed | None:
    """What libcst sees in ``source`` (str), or ``None`` when libcst cannot parse it or the tree is too deep to
    visit. ``wrapper`` is ``source`` already parsed in a ``MetadataWrapper``, or ``None`` to parse here. Never
    raises on malformed source."""
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


