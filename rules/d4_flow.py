"""D4's data flow within one body: does the result of one call reach the inputs of another?

A pipeline's forward pass or training step is ordered by what feeds what: the attention weights a softmax returns
are multiplied into the output that the heads' reshape joins and the output projection maps. The D4 rule
(``rules/d4_ordering.py``) asks this of call sites of one scope (a function, or a module's or notebook cell's
top-level code) to tell which of several calls holding a step's common name (``view``, ``reshape``, ``softmax``)
is the one on the path between the claimed neighbouring steps.

The flow is read from the scope's syntax tree, statement by statement in source order, without running anything:

- a call's inputs are the calls whose results its receiver and arguments hold: a call nested in them, and the
  calls a name it reads was bound from (``x = f(a)`` binds ``x`` to ``f`` and everything ``a`` came from);
- a plain assignment replaces what its target holds (``x = g(x)``); an augmented assignment, an item or attribute
  assignment (``x[i] = v``) and a mutating method called on a name (``buf.append(v)``: ``rules/roles.yaml``, ``mutating_methods``) add to it; a ``for``
  target holds what its iterable holds, a ``with ... as`` target what its context expression holds; a dotted name
  (``self.h``) is one name, and reading it reads each of its prefixes (``self.h.weight`` reads ``self.h``);
- the arms of an ``if``/``try`` and the bodies of loops are read once, in source order, so a value a loop carries
  into its next pass (``h`` updated at the end of the body, read at its start) is not seen: the flow goes forward
  only, the way the statements are written. Nested functions and classes are not entered.

The same reading records, for each call, the tests of the ``if`` statements whose body holds it (``guards``): code
under ``if cfg.position == GatingPosition.G4_QUERY:`` runs for that variant.

Where the reading is unsure it misses a flow rather than invents one: a call feeds another only when the text
shows the value passing. Calls are told apart by their line and called name (``CallSite.line``, the last part of
``CallSite.written`` or ``CallSite.target``); two calls of one name on one line count as one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import CallSite
from extractors.facts import RepositoryIndex
from extractors.values import dotted_name
from rules import roles

_Taint = frozenset[int]
_NONE: _Taint = frozenset()
_MUTATORS = roles.words("mutating_methods")
_EMPTY = cst.Module([])  # prints a node's source text


@dataclass
class _Body:
    """One scope's calls: ``inputs`` call id -> the ids of the calls feeding it; ``ids`` (line, called name) -> the
    ids of the calls there; ``guards`` call id -> the source text of the tests of the ``if`` statements whose body
    (not ``else``) holds it, outermost first."""

    inputs: dict[int, _Taint] = field(default_factory=dict)
    ids: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    guards: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _called_name(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""


class _Reader:
    """Reads one scope's statements in order (module docstring)."""

    def __init__(self, positions) -> None:
        self.positions = positions
        self.held: dict[str, _Taint] = {}
        self.body = _Body()
        self.tests: list[str] = []  # the tests of the if statements whose body is being read

    def read(self, name: str) -> _Taint:
        parts = name.split(".")
        found: set[int] = set()
        for k in range(1, len(parts) + 1):
            found |= self.held.get(".".join(parts[:k]), _NONE)
        return frozenset(found)

    def expression(self, node: cst.CSTNode | None) -> _Taint:
        """The calls whose results ``node``'s value holds, recording every call inside it."""
        if node is None or isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return _NONE
        if isinstance(node, cst.Call):
            inputs = self.expression(node.func) | frozenset().union(*(self.expression(a.value) for a in node.args))
            ident = len(self.body.inputs)
            self.body.inputs[ident] = inputs
            self.body.guards[ident] = tuple(self.tests)
            position = self.positions.get(node)
            if position is not None:
                self.body.ids.setdefault((position.start.line, _called_name(node.func)), []).append(ident)
            return inputs | {ident}
        name = dotted_name(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if name is not None:
            return self.read(name)
        found: set[int] = set()
        for child in node.children:
            if isinstance(child, cst.CSTNode):
                found |= self.expression(child)
        return frozenset(found)

    def bind(self, target: cst.CSTNode, value: _Taint, add: bool) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind(element.value, value, add)
            return
        if isinstance(target, cst.StarredElement):
            self.bind(target.value, value, add)
            return
        if isinstance(target, cst.Subscript):  # x[i] = v: x holds v besides what it held
            keys = frozenset().union(*(self.expression(element) for element in target.slice))
            self.bind(target.value, value | keys, True)
            return
        name = dotted_name(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if name is None:
            self.expression(target)
            return
        self.held[name] = (self.held.get(name, _NONE) | value) if add else value

    def statements(self, body) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small)
            return
        if isinstance(node, (cst.For,)):
            held = self.expression(node.iter)
            self.bind(node.target, held, False)
            self.block(node.body)
            self.block(node.orelse.body if node.orelse else None)
            return
        if isinstance(node, cst.While):
            self.expression(node.test)
            self.block(node.body)
            return
        if isinstance(node, cst.If):
            self.expression(node.test)
            self.tests.append(_EMPTY.code_for_node(node.test))
            try:
                self.block(node.body)
            finally:
                self.tests.pop()
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                self.statement(orelse)
            elif orelse is not None:
                self.block(orelse.body)
            return
        if isinstance(node, cst.With):
            for item in node.items:
                held = self.expression(item.item)
                if item.asname is not None:
                    self.bind(item.asname.name, held, False)
            self.block(node.body)
            return
        if isinstance(node, cst.Try):
            self.block(node.body)
            for handler in node.handlers:
                self.block(handler.body)
            self.block(node.orelse.body if node.orelse else None)
            self.block(node.finalbody.body if node.finalbody else None)
            return
        for child in node.children:  # match statements and whatever else: their calls, no bindings
            if isinstance(child, cst.BaseSuite):
                self.block(child)
            elif isinstance(child, cst.BaseExpression):
                self.expression(child)

    def block(self, suite) -> None:
        if suite is None:
            return
        if isinstance(suite, cst.IndentedBlock):
            self.statements(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self.small(small)
        elif isinstance(suite, cst.BaseSuite):
            self.block(getattr(suite, "body", None))
        elif isinstance(suite, (list, tuple)):
            self.statements(suite)

    def small(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Assign):
            held = self.expression(node.value)
            for target in node.targets:
                self.bind(target.target, held, False)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.bind(node.target, self.expression(node.value), False)
        elif isinstance(node, cst.AugAssign):
            self.bind(node.target, self.expression(node.value) | self.expression(node.target), True)
        elif isinstance(node, cst.Expr):
            held = self.expression(node.value)
            call = node.value
            if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                    and call.func.attr.value in _MUTATORS):
                receiver = dotted_name(call.func.value)
                if receiver is not None and receiver not in ("self", "cls"):
                    # buf.append(v): the receiver takes in the arguments (not self, whose every attribute it would
                    # taint)
                    self.held[receiver] = self.held.get(receiver, _NONE) | held
        else:
            for child in node.children:
                if isinstance(child, cst.BaseExpression):
                    self.expression(child)


def _closure(inputs: dict[int, _Taint]) -> dict[int, _Taint]:
    """Every call upstream of each call (inputs are already upstream-closed through names; nested calls close
    here)."""
    closed: dict[int, _Taint] = {}
    for ident in sorted(inputs):  # a call's inputs were all recorded before it
        closed[ident] = frozenset().union(inputs[ident], *(closed.get(i, _NONE) for i in inputs[ident]))
    return closed


class DataFlows:
    """The data flow of each scope of one repository, read on first use (``feeds``)."""

    def __init__(self, index: RepositoryIndex) -> None:
        self.index = index
        self.graph = index.analysis(build_call_graph)
        self._bodies: dict[str, _Body | None] = {}

    def _body(self, scope: str) -> _Body | None:
        if scope in self._bodies:
            return self._bodies[scope]
        body: _Body | None = None
        info = self.graph.functions.get(scope)
        try:
            if info is not None:
                reader = _Reader(self.index.positions[info.file])
                reader.block(info.node.body)
                body = reader.body
            elif scope in self.graph.graph.nodes:
                key = self.graph.graph.nodes[scope].get("file")
                if key in self.index.modules:
                    reader = _Reader(self.index.positions[key])
                    reader.statements(self.index.modules[key].body)
                    body = reader.body
        except (KeyError, RecursionError):
            body = None  # a source the index does not hold or nesting too deep to read: no flow is known
        if body is not None:
            body.inputs = _closure(body.inputs)
        self._bodies[scope] = body
        return body

    def feeds(self, first: CallSite, second: CallSite) -> bool:
        """Whether the result of the call ``first`` reaches the inputs of the call ``second``, both of one scope
        (``CallSite.scope``); ``False`` when they are of different scopes or the scope cannot be read."""
        if first.scope != second.scope or first is second:
            return False
        body = self._body(first.scope)
        if body is None:
            return False
        sources = body.ids.get((first.line, _site_name(first)), [])
        sinks = body.ids.get((second.line, _site_name(second)), [])
        return any(s in body.inputs[t] for s in sources for t in sinks)


    def guards(self, site: CallSite) -> tuple[str, ...]:
        """The source text of the tests of the ``if`` statements whose body holds the call ``site`` (outermost
        first; an ``else`` arm's tests are not listed), empty when none does or the scope cannot be read."""
        body = self._body(site.scope)
        if body is None:
            return ()
        found = body.ids.get((site.line, _site_name(site)), [])
        return body.guards[found[0]] if found else ()


def _site_name(site: CallSite) -> str:
    return (site.written or site.target).rsplit(".", 1)[-1]


def data_flows(index: RepositoryIndex) -> DataFlows:
    """Analysis provider: the repository's ``DataFlows``, each scope read when first asked about."""
    return DataFlows(index)
