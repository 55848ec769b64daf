"""Where a file's code binds names, read off its libcst tree: how many places in each scope bind a name (every way
Python binds one: assignment targets, unpacking, augmented assignment, ``:=``, ``for``/``with``/``except`` targets,
``match`` captures, imports, definitions, parameters, ``del``), the names some function declares ``global`` or
``nonlocal`` (a binding elsewhere may change them), the names changed where no fact records a value, and the lines
``for``/``while`` loops span (a binding below a read reaches it only inside a loop). Value provenance takes the one
binding above a read as the read's value only where these agree (``extractors.provenance.local_binding``).

A file is scanned once per index, from the tree and positions the index keeps (``extractors.trees.Trees``), and
only when asked about.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

from extractors.facts import RepositoryIndex
from extractors.trees import visit
from extractors.visitor import Visitor


@dataclass
class FileBindings:
    """One file's binding sites: ``sites`` counts, per (scope, name), the places binding ``name`` in ``scope`` (the
    dotted class/function path, ``""`` at module level, as ``Fact.context`` names it); ``shared`` holds the names
    declared ``global`` or ``nonlocal`` anywhere in the file; ``loops`` the (first, last) lines of its loops;
    ``opaque`` the names bound or changed where no fact records a value: augmented assignment, ``:=``,
    ``with``/``except`` targets, ``del``, ``match`` captures, an import inside a function, an in-place method
    (``x.mul_(2)``) or an ``out=x`` argument; ``parameters`` the (scope, name) pairs of its functions'
    parameters; ``suites`` the block each statement sits in, by the statement's first line; ``inner`` the lines of
    its comprehensions and lambdas with the names they bind in their own scope."""

    sites: Counter = field(default_factory=Counter)
    shared: set[str] = field(default_factory=set)
    loops: list[tuple[int, int]] = field(default_factory=list)
    opaque: set[str] = field(default_factory=set)
    parameters: set[tuple[str, str]] = field(default_factory=set)
    suites: dict[int, int] = field(default_factory=dict)  # a statement's first line -> its block (id of the node)
    inner: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)  # lines and names of inner scopes


def binding_sites(index: RepositoryIndex, file: str, scope: str, name: str) -> int | None:
    """How many places in ``scope`` of ``file`` bind ``name`` (see the module docstring), or ``None`` when the
    index holds no tree of the file (a notebook, a file only tree-sitter read) or some function of the file
    declares ``name`` ``global`` or ``nonlocal``: then nothing is known."""
    found = _bindings(index, file)
    if found is None or name in found.shared:
        return None
    return found.sites[(scope, name)]


def opaque_names(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the names some Python file of the repository binds where no fact records a value
    (``FileBindings.opaque``; ``t_span *= 2`` in a caller), or declares ``global``/``nonlocal``: a value value
    provenance reads for such a name may be changed where it does not look."""
    found: set[str] = set()
    for file in index.modules:
        bindings = _bindings(index, file)
        if bindings is not None:
            found |= bindings.opaque | bindings.shared
    return frozenset(found)


def bound_besides_parameter(index: RepositoryIndex, file: str, scope: str, name: str) -> bool:
    """Whether ``scope`` of ``file`` binds ``name`` anywhere but as its own parameter (``binding_sites``); true
    when nothing is known."""
    sites = binding_sites(index, file, scope, name)
    found = _bindings(index, file)
    return sites is None or found is None or sites > int((scope, name) in found.parameters)


def in_loop(index: RepositoryIndex, file: str, line: int) -> bool | None:
    """Whether a ``for`` or ``while`` loop of ``file`` spans ``line`` (1-based); ``None`` when the index holds no
    tree of the file."""
    found = _bindings(index, file)
    return None if found is None else any(start <= line <= end for start, end in found.loops)


def same_block(index: RepositoryIndex, file: str, first: int, second: int) -> bool:
    """Whether the statements starting on lines ``first`` and ``second`` of ``file`` sit in one block (one body of
    statements, run in order: the earlier runs whenever the later does, unless something between leaves the
    block); false when the index holds no tree of the file or either line starts no statement."""
    found = _bindings(index, file)
    if found is None:
        return False
    block = found.suites.get(first)
    return block is not None and block == found.suites.get(second)


def shadowed(index: RepositoryIndex, file: str, line: int, name: str) -> bool:
    """Whether a comprehension or lambda spanning ``line`` of ``file`` binds ``name`` in its own scope
    (``[f(t) for t in ts]``, ``lambda t: t * 2``): a read of ``name`` there may be that variable, not the
    function's; true when the index holds no tree of the file."""
    found = _bindings(index, file)
    return found is None or any(first <= line <= last and name in bound for first, last, bound in found.inner)


def _memo(index: RepositoryIndex) -> dict[str, FileBindings | None]:
    """Analysis provider: ``_bindings``' memo, file -> its binding sites."""
    return {}


def _bindings(index: RepositoryIndex, file: str) -> FileBindings | None:
    memo = index.analysis(_memo)
    if file not in memo:
        memo[file] = _scan(index, file) if file in index.modules else None
    return memo[file]


def _scan(index: RepositoryIndex, file: str) -> FileBindings | None:
    finder = _BindingFinder()
    try:
        visit(index.modules[file], finder)
    except RecursionError:
        return None  # a pathological nesting depth: what the scan missed is unknown
    positions = index.positions[file]
    finder.found.loops = [(where.start.line, where.end.line) for node in finder.loops
                          if (where := positions.get(node)) is not None]
    blocks: dict[int, list[int]] = {}
    for block, statement in finder.statements:
        if (where := positions.get(statement)) is not None:
            blocks.setdefault(where.start.line, []).append(block)
    finder.found.inner = [(where.start.line, where.end.line, names) for node, names in finder.inner
                          if names and (where := positions.get(node)) is not None]
    # a line starting two statements (x = 1; y = x, or if c: x = 1) does not tell their order: it is in no block
    finder.found.suites = {line: found[0] for line, found in blocks.items() if len(found) == 1}
    return finder.found


class _BindingFinder(Visitor):
    """Counts binding sites per (scope, name); a comprehension's targets bind in a scope of their own and are left
    out (its ``:=`` binds in the enclosing function, and is counted there)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = FileBindings()
        self.scopes: list[str] = []
        self.loops: list[cst.CSTNode] = []
        self.statements: list[tuple[int, cst.CSTNode]] = []  # (id of the block, a statement of its body)
        self.inner: list[tuple[cst.CSTNode, frozenset[str]]] = []  # comprehensions and lambdas, the names they bind

    def visit_Module(self, node: cst.Module) -> None:
        self.statements += [(id(node), statement) for statement in node.body]

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.statements += [(id(node), statement) for statement in node.body]

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.statements += [(id(node), statement) for statement in node.body]  # if c: x = 1, on the if's line

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) > 1:  # x = 1; y = x: a second statement on the line
            self.statements += [(id(node), statement) for statement in node.body[1:]]

    def _bind(self, target: cst.CSTNode | None, opaque: bool = False) -> None:
        for name in _names_in(target):
            self.found.sites[(".".join(self.scopes), name.value)] += 1
            if opaque:
                self.found.opaque.add(name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name)
        self.scopes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name)
        self.scopes.append(node.name.value)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params,
                      *(star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param))):
            self._bind(param.name)
            self.found.parameters.add((".".join(self.scopes), param.name.value))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, opaque=True)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, opaque=True)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)
        self.loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.loops.append(node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, opaque=True)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind(node.name.name, opaque=True)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target, opaque=True)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            self._bind(bound if isinstance(bound, cst.Name) else _head(bound), opaque=bool(self.scopes))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return  # binds names of another module's choosing at module level, which value provenance never reads
        for alias in node.names:
            self._bind(alias.asname.name if alias.asname is not None else alias.name, opaque=bool(self.scopes))

    def visit_Call(self, node: cst.Call) -> None:
        # changed in place: x.mul_(2) (torch's in-place methods end in "_"), np.multiply(x, 2, out=x)
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value.endswith("_") \
                and not func.attr.value.startswith("_"):
            self.found.opaque.add(func.value.value)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out" and isinstance(arg.value, cst.Name):
                self.found.opaque.add(arg.value.value)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self._bind(node.name, opaque=True)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self._bind(node.name, opaque=True)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self._bind(node.rest, opaque=True)

    def visit_Global(self, node: cst.Global) -> None:
        self.found.shared.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.found.shared.update(item.name.value for item in node.names)

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return self._comprehension(node)

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return self._comprehension(node)

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return self._comprehension(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return self._comprehension(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        params = node.params
        self.inner.append((node, frozenset(p.name.value for p in (*params.posonly_params, *params.params,
                                                                   *params.kwonly_params))))
        return False  # its parameters bind in its own scope

    def _comprehension(self, node: cst.CSTNode) -> bool:
        targets: set[str] = set()
        clause = getattr(node, "for_in", None)
        while clause is not None:
            targets |= {n.value for n in _names_in(clause.target)}
            clause = clause.inner_for_in
        self.inner.append((node, frozenset(targets)))
        for walrus in _named_exprs(node):  # only := escapes a comprehension
            self._bind(walrus.target, opaque=True)
        return False


def _head(node: cst.BaseExpression) -> cst.Name | None:
    """The first name of a dotted import (``import os.path`` binds ``os``)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _named_exprs(node: cst.CSTNode) -> list[cst.NamedExpr]:
    found: list[cst.NamedExpr] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.NamedExpr):
            found.append(current)
        stack.extend(current.children)
    return found


def _names_in(target: cst.CSTNode | None) -> list[cst.Name]:
    """The names a binding target binds (``i``, ``(k, v)``, ``*rest``); none for an attribute or subscript."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names_in(element.value)]
    if isinstance(target, cst.StarredElement):
        return _names_in(target.value)
    return []
