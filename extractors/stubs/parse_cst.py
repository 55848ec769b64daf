"""The libcst collector of the stub rules: a ``Parsed`` (``parse``) from a libcst tree, in one pass with positions.

In its own module so that ``verify-stubs`` imports libcst only for files tree-sitter-python cannot parse cleanly
(``detect.find_stubs``); the verifier, which has each file's libcst tree already, hands it over here.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from extractors.positions import resolve_positions
from extractors.trees import node_children, visit_wrapper
from extractors.visitor import Visitor
from extractors.stubs.parse import (DOC, ELLIPSIS, FALLBACK_ERRORS, NOT_IMPLEMENTED, OTHER, PASS, RAISE_NIE, REPORT,
                                    REPORT_MARKER, REPORT_NI, RETURN, RETURN_NI, Func, Parsed, is_report_call, last,
                                    qualname_of)


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
            stack.extend(node_children(current))


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


class _CstCollector(Visitor):
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
    resolve_positions(wrapper)  # the faster computation of PositionProvider's table
    try:
        visit_wrapper(wrapper, collector)
    except RecursionError:
        return None
    return collector.parsed


