"""The call graph of one repository: modules, classes and functions, the imports and calls between them, and
what the entry points reach.

Built from the libcst trees the index already holds (``RepositoryIndex.modules``; no file is parsed again) and
kept as a ``networkx.DiGraph``. Nothing is imported or run: every edge is what static analysis can resolve.

Nodes (``graph.nodes[n]`` has ``kind``, ``file``, ``line``, ``end_line``):

- ``module`` ``pkg.mod`` (``pkg`` for ``pkg/__init__.py``; a notebook ``nb/a.ipynb`` is the module ``nb.a``): its
  top-level code, class bodies included;
- ``main`` ``pkg.mod.__main__``: the body of ``if __name__ == "__main__":``;
- ``cell`` ``nb.a#3``: one notebook code cell (the cells share the notebook's namespace, as in Jupyter);
- ``function`` ``pkg.mod.f``, ``pkg.mod.Class.method``, ``pkg.mod.f.inner``; ``class`` ``pkg.mod.Class``;
- ``shell`` ``sh:scripts/run.sh``: a shell script that runs Python files or modules.

Edges carry ``kind``, ``file``, ``line`` (the first site) and ``lines`` (every site). Kinds: ``call`` (a
resolved call), ``instantiate`` (``C(...)`` -> the class node; the class node -> ``C.__init__``), ``hook`` (class
-> the methods frameworks call on an instance: ``forward``, dunders, Lightning ``*_step``), ``instance`` (calling an
instance, ``model(x)`` -> ``forward`` or ``__call__``), ``reference`` (a function passed or stored without being
called: callbacks, registries), ``import`` (module -> imported module, and each package ``__init__`` on the way),
``run`` (a shell script, a module running its ``__main__`` block, a notebook its cells) and ``by_name`` (an
attribute call on a receiver of unknown type, ``x.fit()``, to every repository method of that name: a guess, so
it only makes a function *maybe* live).

Resolved calls: module functions, imported names (absolute, relative, ``from`` imports, aliases, ``__init__``
re-exports, star imports), ``self.m()``/``cls.m()`` through the repository's base classes, ``super().m()``,
``self.attr.m()`` when ``__init__`` (or any method) sets ``self.attr = C(...)``, ``x.m()`` and ``x(...)`` when
``x = C(...)`` in the same scope (or at module level), and nested functions. Imports are resolved as Python
would with the repository root, or the importing file's folder or one of its parents, on ``sys.path`` (scripts
of ML repositories import their siblings by bare name); a name several files could provide is left unresolved.

Entry points: ``if __name__ == "__main__":`` blocks, module-level ``main()`` functions, console scripts
(``[project.scripts]``, ``[tool.poetry.scripts]``, setup.py/setup.cfg ``console_scripts``), shell scripts
(``*.sh``) running ``python x.py`` / ``python -m pkg.mod`` (also through torchrun, accelerate, deepspeed), every
notebook, and every *script*: a module no other repository module imports, whose top-level code runs when
someone runs the file. Test files (``tests/``, ``test_*.py``, ``conftest.py``) and ``setup.py`` are no entry
points: they exercise or package the code, they are not the pipeline. ``test.py`` is kept: in ML repositories it
is usually the evaluation script.

Liveness (``CallGraph.liveness``): ``live`` when reachable from an entry point through certain edges; ``maybe``
when only through ``by_name`` edges, when the function carries a decorator that may register it somewhere, or
when live code dispatches dynamically (``getattr(obj, name)``, ``importlib.import_module``, ``eval``) or the
repository has no entry point at all; ``dead`` otherwise.
"""

from __future__ import annotations

import configparser
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst
import networkx as nx
from libcst.metadata import MetadataWrapper, PositionProvider

from extractors.values import dotted_name
from extractors.walk import SKIP_DIRS, is_test_path
from extractors.words import words

MODULE, MAIN, CELL, FUNCTION, CLASS, SHELL = "module", "main", "cell", "function", "class", "shell"
CALL, INSTANTIATE, HOOK, INSTANCE, REFERENCE, IMPORT, RUN, BY_NAME = (
    "call", "instantiate", "hook", "instance", "reference", "import", "run", "by_name")
EXTERNAL, UNRESOLVED = "external", "unresolved"  # call sites that lead to no repository node
CERTAIN_EDGES = frozenset({CALL, INSTANTIATE, HOOK, INSTANCE, REFERENCE, IMPORT, RUN})
LIVE, MAYBE, DEAD = "live", "maybe", "dead"

# Word lists (what each holds and its source: extractors/words.yaml).
_HOOKS = words("framework_hooks")
_PLAIN_DECORATORS = words("plain_decorators")
_DYNAMIC = words("dynamic_lookups")
_COMMON_ATTRS = words("common_attributes")
_DISPLAY_CALLS = words("display_calls")
_DISPLAY_KEYWORDS = words("display_keywords")
_BUILTIN_OK = words("builtins")
_SHELL_PY = re.compile(r"(?:^|[\s;&|(])(?:python[0-9.]*|torchrun|accelerate\s+launch|deepspeed|"
                       r"python[0-9.]*\s+-u)\b(?P<rest>[^\n;&|]*)")


@dataclass(frozen=True)
class FunctionInfo:
    """One function or method defined in the repository.

    ``qualname`` is ``pkg.mod.Class.method`` (``pkg.mod.outer.inner`` for a nested function); ``file`` the
    relative POSIX path (``nb.ipynb#3`` for a notebook cell); ``line``/``end_line`` 1-based, inclusive, the
    ``def`` line through the body's last line; ``node`` the ``libcst.FunctionDef`` (shared with the index:
    read it, never change it); ``class_name`` the enclosing class's qualname or ``None``; ``module`` the module's
    dotted name. Stable API: the D2 formula rule searches these for candidate implementations.
    """

    qualname: str
    file: str
    line: int
    end_line: int
    node: cst.FunctionDef
    class_name: str | None
    module: str

    @property
    def name(self) -> str:
        """The bare function name (``method`` for ``pkg.mod.Class.method``)."""
        return self.node.name.value


@dataclass(frozen=True)
class CallSite:
    """One call (or reference) in a scope, in evaluation order.

    ``scope`` the node making it; ``callee`` the repository node it resolves to, or ``None``; ``target`` the
    called name: the resolved dotted name for repository and imported names (``torch.optim.AdamW`` for
    ``optim.AdamW`` after ``from torch import optim``), as written otherwise; ``kind`` an edge kind, ``external``
    (resolved outside the repository) or ``unresolved``; ``in_loop`` whether a ``for``/``while``/comprehension
    of the scope encloses it; ``branch`` the arms of the scope's ``if``/``try`` statements that enclose it, as
    (statement id, arm number) pairs: two sites of one scope holding the same statement id with different arms
    never both run in one pass (``if gpt: GPT() else: NGPT()``).
    """

    scope: str
    callee: str | None
    target: str
    kind: str
    file: str
    line: int
    in_loop: bool = False
    branch: tuple[tuple[int, int], ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Mention:
    """An identifier or string literal the code of ``scope`` uses (docstrings and comments excluded): ``kind``
    ``name`` (a name or dotted attribute chain read or called), ``string`` (a literal or f-string text part) or
    ``binding`` (a name assigned to), ``definition`` (the name of a function or class, in the scope of that
    function or class: it counts when they run or are used), or ``display`` (a string only shown: an argument of ``print``, a logging
    call, a plot label, a ``help=`` text)."""

    scope: str
    text: str
    kind: str
    file: str
    line: int


@dataclass(frozen=True)
class EntryPoint:
    """Where execution starts: ``node`` a graph node, ``kind`` (``main_block``, ``main_function``,
    ``console_script``, ``shell``, ``notebook``, ``script``), ``file``/``line`` where it is declared."""

    node: str
    kind: str
    file: str
    line: int


@dataclass
class _Scan:
    """What one parsed source yields before cross-module resolution."""

    module: str
    file: str
    defs: dict = field(default_factory=dict)  # qualname -> (kind, line, end_line, node, class qualname, key)
    imports: dict = field(default_factory=dict)  # local name -> (dotted target, line)
    stars: list = field(default_factory=list)
    raw: list = field(default_factory=list)  # (scope, how, text, line, in_loop, source key, branch)
    var_types: dict = field(default_factory=dict)  # (scope, var) -> constructor text; None when several
    attr_types: dict = field(default_factory=dict)  # (class qualname, attr) -> constructor text
    bases: dict = field(default_factory=dict)  # class qualname -> [base text]
    decorated: set = field(default_factory=set)  # function qualnames with a registering decorator
    mentions: list = field(default_factory=list)
    main_line: int | None = None
    main_end: int | None = None
    import_lines: list = field(default_factory=list)  # (scope, absolute module, source key, line)


def module_name(file: str) -> str:
    """The dotted module name of a repository file: ``pkg/mod.py`` -> ``pkg.mod``, ``pkg/__init__.py`` -> ``pkg``,
    ``nb/a.ipynb`` -> ``nb.a``."""
    path = file.split("#", 1)[0]
    stem = path.rsplit(".", 1)[0] if path.endswith((".py", ".ipynb")) else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


class _Scanner(cst.CSTVisitor):
    """One pass over one source: definitions, imports, calls in evaluation order, mentions. ``positions`` maps each
    node of the module to its ``CodeRange`` (the index's, resolved once)."""

    def __init__(self, scan: _Scan, key: str, is_package: bool, top_scope: str, positions) -> None:
        super().__init__()
        self.positions = positions
        self.s = scan
        self.key = key
        self.is_package = is_package
        self.scopes = [top_scope]  # innermost scope collecting calls
        self.prefix = [scan.module]  # qualname prefix of definitions
        self.classes: list[str | None] = [None]
        self.loops = [0]
        self.skip: set[int] = set()  # ids of Name nodes that are not reads (def names, params, keywords)
        self.call_funcs: set[int] = set()
        self.main_body = None
        self.display = 0  # inside print/logging arguments or a help= text: strings there are shown, not used
        self.branches: list[list[tuple[int, int]]] = [[]]  # per scope: the enclosing if/try arms
        self.arms: dict[int, tuple[int, int]] = {}  # id of a block (or elif) -> (id of its if/try, arm number)

    def on_visit(self, node: cst.CSTNode) -> bool:
        arm = self.arms.get(id(node))
        if arm is not None:
            self.branches[-1].append(arm)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self.arms:
            self.branches[-1].pop()

    def _line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def _end(self, node: cst.CSTNode) -> int:
        return self.positions[node].end.line

    def _raw(self, how: str, text: str, node: cst.CSTNode) -> None:
        self.s.raw.append((self.scopes[-1], how, text, self._line(node), self.loops[-1] > 0, self.key,
                           tuple(self.branches[-1])))

    def _mention(self, text: str, kind: str, node: cst.CSTNode) -> None:
        if kind == "string" and self.display:
            kind = "display"
        self.s.mentions.append(Mention(self.scopes[-1], text, kind, self.key, self._line(node)))

    # -- definitions ------------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qual = f"{self.prefix[-1]}.{node.name.value}"
        self.s.defs[qual] = (FUNCTION, self._line(node), self._end(node), node, self.classes[-1], self.key)
        if any(_decorator_name(d) not in _PLAIN_DECORATORS for d in node.decorators):
            self.s.decorated.add(qual)
        self.skip.add(id(node.name))
        self.scopes.append(qual)
        self.prefix.append(qual)
        self.classes.append(None)
        self.loops.append(0)
        self.branches.append([])
        self._mention(node.name.value, "definition", node)  # runs when the function runs

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.prefix.pop()
        self.classes.pop()
        self.loops.pop()
        self.branches.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qual = f"{self.prefix[-1]}.{node.name.value}"
        self.s.defs[qual] = (CLASS, self._line(node), self._end(node), node, None, self.key)
        self.s.bases[qual] = [t for t in (dotted_name(b.value) for b in node.bases) if t]
        self.skip.add(id(node.name))
        self.s.mentions.append(Mention(qual, node.name.value, "definition", self.key, self._line(node)))
        self.prefix.append(qual)
        self.classes.append(qual)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.prefix.pop()
        self.classes.pop()

    def _owner_class(self) -> str | None:
        """The class whose method the current scope is (for ``self``), if any."""
        scope = self.scopes[-1]
        entry = self.s.defs.get(scope)
        return entry[4] if entry and entry[0] == FUNCTION else None

    def visit_Param(self, node: cst.Param) -> None:
        self.skip.add(id(node.name))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
            if node.keyword.value in _DISPLAY_KEYWORDS:
                self.display += 1

    def leave_Arg(self, original_node: cst.Arg) -> None:
        if original_node.keyword is not None and original_node.keyword.value in _DISPLAY_KEYWORDS:
            self.display -= 1

    # -- imports: recorded, not descended into ----------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            target = _attr_text(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.s.imports[alias.asname.name.value] = (target, self._line(node))
            else:
                head = target.split(".")[0]
                self.s.imports.setdefault(head, (head, self._line(node)))
            self.s.import_lines.append((self.scopes[-1], target, self.key, self._line(node)))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        level = len(node.relative)
        base = _attr_text(node.module) if node.module is not None else ""
        absolute = _absolute(self.s.module, self.is_package, base, level)
        if absolute is None:
            return False
        line = self._line(node)
        self.s.import_lines.append((self.scopes[-1], absolute, self.key, line))
        if isinstance(node.names, cst.ImportStar):
            self.s.stars.append(absolute)
            return False
        for alias in node.names:
            name = _attr_text(alias.name)
            local = alias.asname.name.value if alias.asname is not None and isinstance(
                alias.asname.name, cst.Name) else name
            self.s.imports[local] = (f"{absolute}.{name}" if absolute else name, line)
        return False

    # -- control flow -----------------------------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        if len(self.scopes) == 1 and self.classes[-1] is None and _is_main_guard(node.test):
            self.main_body = node.body
            self.s.main_line, self.s.main_end = self._line(node), self._end(node.body)
            return
        self.arms[id(node.body)] = (id(node), 0)
        if isinstance(node.orelse, cst.Else):
            self.arms[id(node.orelse.body)] = (id(node), 1)
        elif isinstance(node.orelse, cst.If):
            self.arms[id(node.orelse)] = (id(node), 1)

    def visit_Try(self, node: cst.Try) -> None:
        self.arms[id(node.body)] = (id(node), 0)
        for number, handler in enumerate(node.handlers, 1):
            self.arms[id(handler.body)] = (id(node), number)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if node is self.main_body:
            self.scopes.append(f"{self.s.module}.__main__")
            self.loops.append(0)
            self.branches.append([])

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if original_node is self.main_body:
            self.scopes.pop()
            self.loops.pop()
            self.branches.pop()

    def _enter_loop(self, node) -> None:
        self.loops[-1] += 1

    def _leave_loop(self, node) -> None:
        self.loops[-1] -= 1

    visit_For = visit_While = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_loop
    leave_For = leave_While = leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_loop

    # -- statements that are only strings are docstrings or commented-out text -------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return not (len(node.body) == 1 and isinstance(node.body[0], cst.Expr)
                    and isinstance(node.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))

    # -- calls, bindings and reads ----------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self.call_funcs.add(id(node.func))
        if (dotted_name(node.func) or "").rsplit(".", 1)[-1] in _DISPLAY_CALLS:
            self.display += 1

    def leave_Call(self, original_node: cst.Call) -> None:
        func = original_node.func
        if (dotted_name(func) or "").rsplit(".", 1)[-1] in _DISPLAY_CALLS:
            self.display -= 1
        text = dotted_name(func)
        if text is not None:
            self._raw("call", text, original_node)
            return
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) \
                and dotted_name(func.value.func) == "super":
            self._raw("super", func.attr.value, original_node)
        elif isinstance(func, cst.Call) and dotted_name(func.func) == "getattr":
            self._raw("dynamic", "getattr", original_node)  # getattr(obj, name)(...): dispatch by a run-time name

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        ctor = dotted_name(value.func) if isinstance(value, cst.Call) else None
        for target in node.targets:
            self._bind(target.target, ctor, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        value = node.value
        ctor = dotted_name(value.func) if isinstance(value, cst.Call) else None
        self._bind(node.target, ctor, node)

    def _bind(self, target: cst.BaseExpression, ctor: str | None, node: cst.CSTNode) -> None:
        text = dotted_name(target)
        if text is None:
            return
        self._mention(text.split(".")[-1], "binding", node)
        parts = text.split(".")
        if len(parts) == 1:
            key = (self.scopes[-1], parts[0])
            if key in self.s.var_types and self.s.var_types[key] != ctor:
                self.s.var_types[key] = None  # bound to different things: no single type
            else:
                self.s.var_types[key] = ctor
        elif len(parts) == 2 and parts[0] == "self" and ctor is not None:
            owner = self._owner_class()
            if owner is not None:
                key = (owner, parts[1])
                self.s.attr_types[key] = ctor if self.s.attr_types.get(key, ctor) == ctor else None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        text = dotted_name(node)
        if text is None:
            return
        inner = node.value
        while isinstance(inner, cst.Attribute):
            self.skip.add(id(inner))
            inner = inner.value
        self.skip.add(id(inner))
        if id(node) in self.skip:
            return
        self._mention(text, "name", node)
        if id(node) not in self.call_funcs:
            self._raw("ref", text, node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.skip:
            return
        self._mention(node.value, "name", node)
        if id(node) not in self.call_funcs:
            self._raw("ref", node.value, node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            value = node.evaluated_value
        except Exception:  # a malformed escape: not a name anyone reads
            return
        if isinstance(value, str) and value.strip():
            self._mention(value, "string", node)

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if node.value.strip():
            self._mention(node.value, "string", node)


def _decorator_name(decorator: cst.Decorator) -> str:
    """The decorator's dotted name, or its last part when that is a plain decorator (``@x.setter``)."""
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    text = dotted_name(expr) or ""
    last = text.rsplit(".", 1)[-1]
    return last if text not in _PLAIN_DECORATORS and last in _PLAIN_DECORATORS else text


def _attr_text(node: cst.BaseExpression) -> str:
    return dotted_name(node) or ""


def _absolute(module: str, is_package: bool, base: str, level: int) -> str | None:
    """The absolute module a ``from`` import names (``from ..a import b`` in ``p.q.m`` -> ``p.a``); ``None`` when
    the relative import climbs above the repository root."""
    if level == 0:
        return base
    parts = module.split(".")
    package = parts if is_package else parts[:-1]
    if level - 1 > len(package):
        return None
    anchor = package[:len(package) - (level - 1)]
    return ".".join([*anchor, *([base] if base else [])])


def _is_main_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    if not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = [s.value for s in sides if isinstance(s, cst.Name)]
    strings = [s.evaluated_value for s in sides if isinstance(s, cst.SimpleString)]
    return names == ["__name__"] and strings == ["__main__"]


class CallGraph:
    """The call graph of one repository (see the module docstring for nodes, edges and entry points).

    Attributes: ``graph`` (``networkx.DiGraph``), ``functions`` (qualname -> ``FunctionInfo``), ``classes``
    (qualname -> (file, line, end_line)), ``entry_points`` (tuple of ``EntryPoint``), ``mentions`` (scope ->
    list of ``Mention``), ``dynamic`` (live code looks names up at run time, so ``dead`` is never claimed),
    ``runnable`` (some entry point runs repository code: a ``__main__`` block, ``main()``, a console or shell
    script, a notebook, or a script whose top level calls repository code; without one, a library of definitions
    nobody runs, ``dead`` is never claimed either).
    Build with ``build_call_graph(index)``; ``RepositoryIndex.call_graph`` builds it once, on first use.
    """

    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self.functions: dict[str, FunctionInfo] = {}
        self.classes: dict[str, tuple[str, int, int]] = {}
        self.entry_points: tuple[EntryPoint, ...] = ()
        self.mentions: dict[str, list[Mention]] = {}
        self.dynamic = False
        self.runnable = False
        self._sites: dict[str, list[CallSite]] = {}
        self._live: frozenset[str] = frozenset()
        self._maybe: frozenset[str] = frozenset()
        self._decorated: frozenset[str] = frozenset()
        self._states: dict[str, str] = {}
        self._by_text: dict[str, list[Mention]] | None = None

    def mentions_by_text(self) -> dict[str, list[Mention]]:
        """Every mention grouped by its text (built once): rules match a term against each distinct text once."""
        if self._by_text is None:
            self._by_text = {}
            for mentions in self.mentions.values():
                for mention in mentions:
                    self._by_text.setdefault(mention.text, []).append(mention)
        return self._by_text

    def callees_in_order(self, node: str) -> list[CallSite]:
        """The call sites of ``node`` (a function qualname, module, ``__main__`` block, cell or shell script) in
        evaluation order: statement order, a call's arguments before the call. References and unresolved calls
        included (see ``CallSite.kind``). Empty for an unknown node."""
        return list(self._sites.get(node, ()))

    def liveness(self, node: str) -> str:
        """``live``, ``maybe`` or ``dead`` (module docstring). Raises ``KeyError`` for a node not in the graph."""
        if node not in self._states:
            if node not in self.graph:
                raise KeyError(node)
            if node in self._live:
                self._states[node] = LIVE
            elif node in self._maybe or self.dynamic or not self.runnable or any(
                    n in self._decorated for n in self._defining_functions(node)):
                self._states[node] = MAYBE
            else:
                self._states[node] = DEAD
        return self._states[node]

    def live(self, node: str) -> bool:
        """True when an entry point reaches ``node`` through certain edges. ``False`` for unknown nodes."""
        return node in self._live

    def _defining_functions(self, node: str):
        """``node`` and the functions it is nested in (a registered outer function makes its inner ones maybe)."""
        parts = node.split(".")
        for end in range(len(parts), 0, -1):
            name = ".".join(parts[:end])
            if name in self.functions:
                yield name

    def node_ref(self, node: str) -> str:
        """``file:line`` of a node."""
        data = self.graph.nodes[node]
        return f"{data['file']}:{data['line']}"

    def size(self) -> tuple[int, int]:
        """(nodes, edges)."""
        return self.graph.number_of_nodes(), self.graph.number_of_edges()


def build_call_graph(index) -> CallGraph:
    """Build the call graph of ``index`` (an ``extractors.facts.RepositoryIndex``) from its parsed modules.

    Never raises on odd code: what cannot be resolved stays an ``unresolved`` call site. Reads only the small
    text files that hold entry points and are not in the index (``*.sh``, ``setup.cfg``) below ``index.root``.
    """
    return _Builder(index).build()


class _Builder:
    def __init__(self, index) -> None:
        self.index = index
        self.cg = CallGraph()
        self.scans: dict[str, _Scan] = {}  # module name -> merged scan (notebook cells merge into one)
        self.keys_of: dict[str, list[str]] = {}  # module name -> source keys
        self.module_file: dict[str, str] = {}
        self.class_module: dict[str, str] = {}
        self.methods_of: dict[str, list[str]] = {}  # class qualname -> its own methods
        self.methods_by_name: dict[str, list[str]] = {}
        self._found: dict[tuple[str, str], str | None] = {}
        self._mro: dict[str, list[str]] = {}

    # -- scanning ---------------------------------------------------------------------------------------------
    def build(self) -> CallGraph:
        g = self.cg.graph
        for key in sorted(self.index.modules, key=_source_order):
            file, _, cell = key.partition("#")
            name = module_name(file)
            scan = self.scans.setdefault(name, _Scan(name, file))
            self.keys_of.setdefault(name, []).append(key)
            self.module_file.setdefault(name, file)
            top = f"{name}#{cell}" if cell else name
            if cell:
                g.add_node(top, kind=CELL, file=key, line=1, end_line=max(1, len(self.index.lines.get(key, []))))
            module = self.index.modules[key]
            positions = self.index.positions.get(key)
            if positions is None:  # a module given without positions: resolve them here
                positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            try:
                module.visit(_Scanner(scan, key, file.endswith("__init__.py"), top, positions))
            except RecursionError:
                continue  # a pathological nesting depth: this source contributes what it had
        for name, scan in self.scans.items():
            keys = self.keys_of[name]
            g.add_node(name, kind=MODULE, file=keys[0] if len(keys) == 1 else scan.file, line=1,
                       end_line=max(1, len(self.index.lines.get(keys[0], []))))
            if scan.main_line is not None:
                g.add_node(f"{name}.__main__", kind=MAIN, file=scan.file, line=scan.main_line, end_line=scan.main_end)
            for qual, (kind, line, end, node, owner, key) in scan.defs.items():
                g.add_node(qual, kind=kind, file=key, line=line, end_line=end)
                if kind == FUNCTION:
                    self.cg.functions[qual] = FunctionInfo(qual, key, line, end, node, owner, name)
                    if owner:
                        self.methods_of.setdefault(owner, []).append(qual)
                        self.methods_by_name.setdefault(node.name.value, []).append(qual)
                else:
                    self.cg.classes[qual] = (key, line, end)
                    self.class_module[qual] = name
            for mention in scan.mentions:
                self.cg.mentions.setdefault(mention.scope, []).append(mention)
        for name, scan in self.scans.items():
            self._resolve_scan(name, scan)
        self._hooks()
        self.cg.entry_points = tuple(self._entry_points())
        self._reach()
        return self.cg

    # -- resolution -------------------------------------------------------------------------------------------
    def find_module(self, dotted: str, importer: str) -> str | None:
        """The repository module ``dotted`` names when imported from ``importer``: exactly (the root on
        ``sys.path``), or below the importer's folder or one of its parents (a script's folder on ``sys.path``),
        or, for a dotted name of two or more parts, the one module whose name ends with it; else ``None``."""
        cache_key = (dotted, importer)
        if cache_key not in self._found:
            found = dotted if dotted in self.scans else None
            folder = self.module_file.get(importer, "").split("/")[:-1]
            for depth in range(len(folder), 0, -1):
                if found is not None:
                    break
                candidate = ".".join([*folder[:depth], dotted])
                found = candidate if candidate in self.scans else None
            if found is None and "." in dotted:
                ending = [m for m in self.scans if m.endswith("." + dotted)]
                found = ending[0] if len(ending) == 1 else None
            self._found[cache_key] = found
        return self._found[cache_key]

    def resolve(self, dotted: str, importer: str) -> tuple[str, str] | None:
        """``("repo", node)`` or ``("external", dotted)`` for a dotted name as module ``importer`` sees it (its
        definitions and imports, star imports last); ``None`` when nothing binds the name."""
        found = self._lookup(importer, dotted.split("."), 0)
        if found is None and dotted.split(".")[0] in _BUILTIN_OK:
            return ("external", dotted)
        return found

    def _lookup(self, module: str, parts: list[str], depth: int) -> tuple[str, str] | None:
        scan = self.scans.get(module)
        if scan is None or depth > 12:
            return None
        head = parts[0]
        if f"{module}.{head}" in scan.defs:
            return self._member(f"{module}.{head}", parts[1:])
        if head in scan.imports:
            return self._absolute(".".join([scan.imports[head][0], *parts[1:]]), module, depth + 1)
        for star in scan.stars:
            source = self.find_module(star, module)
            if source is not None and source != module:
                found = self._lookup(source, parts, depth + 1)
                if found is not None:
                    return found
        return None

    def _absolute(self, dotted: str, importer: str, depth: int) -> tuple[str, str] | None:
        """Resolve an imported dotted path: the longest prefix that is a repository module, then the rest inside
        it (following re-exports); outside the repository it stays ``("external", dotted)``."""
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            module = self.find_module(".".join(parts[:end]), importer)
            if module is not None:
                return ("repo", module) if end == len(parts) else self._lookup(module, parts[end:], depth + 1)
        return ("external", dotted)

    def _member(self, qual: str, rest: list[str]) -> tuple[str, str] | None:
        if not rest:
            return ("repo", qual)
        if qual in self.cg.classes and len(rest) == 1:
            method = self.find_method(qual, rest[0])
            return ("repo", method) if method else None
        nested = f"{qual}.{rest[0]}"
        return self._member(nested, rest[1:]) if nested in self.cg.graph else None

    def class_mro(self, qual: str) -> list[str]:
        """The repository classes of ``qual``'s method resolution order (breadth first, each once)."""
        if qual not in self._mro:
            self._mro[qual] = []  # a cycle of bases ends here
            order, queue = [], [qual]
            while queue:
                current = queue.pop(0)
                if current in order or current not in self.cg.classes:
                    continue
                order.append(current)
                module = self.class_module[current]
                for base in self.scans[module].bases.get(current, ()):
                    found = self.resolve(base, module)
                    if found and found[0] == "repo" and found[1] in self.cg.classes:
                        queue.append(found[1])
            self._mro[qual] = order
        return self._mro[qual]

    def find_method(self, cls: str, name: str, skip_first: bool = False) -> str | None:
        """The repository method ``name`` of class ``cls`` or its repository bases, or ``None``."""
        for owner in self.class_mro(cls)[1 if skip_first else 0:]:
            if f"{owner}.{name}" in self.cg.functions:
                return f"{owner}.{name}"
        return None

    def _type_of(self, text: str | None, module: str) -> str | None:
        if not text:
            return None
        found = self.resolve(text, module)
        return found[1] if found and found[0] == "repo" and found[1] in self.cg.classes else None

    def _resolve_scan(self, module: str, scan: _Scan) -> None:
        g = self.cg.graph
        for scope, text, key, line in scan.import_lines:
            parts = text.split(".")
            for end in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__, a/b/__init__, then c
                package = self.find_module(".".join(parts[:end]), module)
                if package is not None and package != module:
                    self._edge(scope, package, IMPORT, key, line)
        for target, line in scan.imports.values():  # from pkg import mod: the imported name is a submodule
            submodule = self.find_module(target, module) if "." in target else None
            if submodule is not None and submodule != module:
                self._edge(module, submodule, IMPORT, self.keys_of[module][0], line)
        for scope, how, text, line, in_loop, key, branch in scan.raw:
            if how == "dynamic":
                if scope in g:
                    g.nodes[scope]["dynamic"] = True
                continue
            site = self._site(module, scan, scope, how, text, line, in_loop, key)
            if site is None:
                continue
            if branch:
                site = replace(site, branch=branch)
            self.cg._sites.setdefault(scope, []).append(site)
            if site.callee is not None:
                self._edge(scope, site.callee, site.kind, key, line)
                if site.kind == CALL and text.split(".")[0] in ("self", "cls"):
                    for override in self._overrides(site.callee):  # self.m() may run a subclass's m
                        self._edge(scope, override, CALL, key, line)
            elif site.kind == UNRESOLVED and "." in text:
                attr = text.rsplit(".", 1)[1]
                if attr not in _COMMON_ATTRS:
                    for method in self.methods_by_name.get(attr, ()):
                        self._edge(scope, method, BY_NAME, key, line)
            if site.kind in (EXTERNAL, UNRESOLVED) and site.target in _DYNAMIC and scope in g:
                g.nodes[scope]["dynamic"] = True
        if scan.main_line is not None:  # running the file runs its guarded block after the top-level code
            main = f"{module}.__main__"
            self.cg._sites.setdefault(module, []).append(CallSite(module, main, main, RUN, scan.file, scan.main_line))
            self._edge(module, main, RUN, scan.file, scan.main_line)

    def _site(self, module, scan, scope, how, text, line, in_loop, key) -> CallSite | None:
        if how == "super":
            owner = self.cg.functions.get(scope)
            method = self.find_method(owner.class_name, text, skip_first=True) if owner and owner.class_name else None
            if method:
                return CallSite(scope, method, method, CALL, key, line, in_loop)
            return CallSite(scope, None, f"super().{text}", UNRESOLVED, key, line, in_loop)
        resolved = self._resolve_local(module, scan, scope, text)
        if how == "ref":  # a function or class passed, stored or returned: it may run wherever that goes
            if resolved and resolved[0] == "repo" and (resolved[1] in self.cg.functions or
                                                       resolved[1] in self.cg.classes):
                return CallSite(scope, resolved[1], resolved[1], REFERENCE, key, line, in_loop)
            return None
        if resolved is None:
            return CallSite(scope, None, text, UNRESOLVED, key, line, in_loop)
        kind, target = resolved
        if kind == "external":
            return CallSite(scope, None, target, EXTERNAL, key, line, in_loop)
        if kind == "instance":
            return CallSite(scope, target, target, INSTANCE, key, line, in_loop)
        if target in self.cg.classes:
            return CallSite(scope, target, target, INSTANTIATE, key, line, in_loop)
        if target in self.cg.functions:
            return CallSite(scope, target, target, CALL, key, line, in_loop)
        return CallSite(scope, None, target, UNRESOLVED, key, line, in_loop)  # a module called: odd code

    def _resolve_local(self, module: str, scan: _Scan, scope: str, text: str) -> tuple[str, str] | None:
        """Resolve a called or read dotted name in ``scope``: ``("repo", node)``, ``("instance", method)`` for
        calling an instance, ``("external", dotted)``, or ``None``."""
        parts = text.split(".")
        head = parts[0]
        owner = self.cg.functions.get(scope)
        cls = owner.class_name if owner else None
        if head in ("self", "cls") and cls:
            if len(parts) == 2:
                method = self.find_method(cls, parts[1])
                return ("repo", method) if method else self._instance_call(self._attr_type(cls, parts[1]))
            if len(parts) == 3:
                attr_cls = self._attr_type(cls, parts[1])
                method = self.find_method(attr_cls, parts[2]) if attr_cls else None
                return ("repo", method) if method else None
            return None
        enclosing = scope  # nested functions and classes of the enclosing functions, innermost first
        while enclosing in self.cg.functions:
            nested = f"{enclosing}.{head}"
            if nested in self.cg.graph:
                return self._member(nested, parts[1:])
            enclosing = enclosing.rsplit(".", 1)[0]
        holders = [scope] + ([module] if scope != module else []) + (
            [f"{module}.__main__"] if scope == module else [])
        for holder in holders:
            if (holder, head) not in scan.var_types:
                continue
            var_cls = self._type_of(scan.var_types[(holder, head)], module)
            if var_cls is None:
                return None  # a variable of unknown type shadows module-level names
            if len(parts) == 1:
                return self._instance_call(var_cls)
            method = self.find_method(var_cls, parts[1]) if len(parts) == 2 else None
            return ("repo", method) if method else None
        return self.resolve(text, module)

    def _attr_type(self, cls: str, attr: str) -> str | None:
        for owner in self.class_mro(cls):
            owner_module = self.class_module[owner]
            text = self.scans[owner_module].attr_types.get((owner, attr))
            if text:
                return self._type_of(text, owner_module)
        return None

    def _instance_call(self, cls: str | None) -> tuple[str, str] | None:
        if cls is None:
            return None
        method = self.find_method(cls, "forward") or self.find_method(cls, "__call__")
        return ("instance", method) if method else None

    def _overrides(self, method: str) -> list[str]:
        """The methods of repository subclasses that override ``method`` (``Base.m`` -> ``Sub.m``)."""
        owner, name = method.rsplit(".", 1)
        return [f"{cls}.{name}" for cls in self.cg.classes
                if cls != owner and f"{cls}.{name}" in self.cg.functions and owner in self.class_mro(cls)]

    def _hooks(self) -> None:
        """Class -> its ``__init__`` and the methods frameworks call on its instances (``_HOOKS`` and dunders),
        own or inherited: a class node is reached when it is instantiated or handed over (``cls = Task``)."""
        for cls in self.cg.classes:
            init = self.find_method(cls, "__init__")
            if init:
                self._edge(cls, init, CALL, self.cg.functions[init].file, self.cg.functions[init].line)
            for owner in self.class_mro(cls):
                for method in self.methods_of.get(owner, ()):
                    name = method.rsplit(".", 1)[1]
                    if name != "__init__" and (name in _HOOKS or (name.startswith("__") and name.endswith("__"))):
                        info = self.cg.functions[method]
                        self._edge(cls, method, HOOK, info.file, info.line)

    def _edge(self, source: str, target: str, kind: str, file: str, line: int) -> None:
        g = self.cg.graph
        if source not in g or target not in g or source == target:
            return
        if g.has_edge(source, target):
            data = g.edges[source, target]
            data["lines"].append(line)
            if data["kind"] == BY_NAME and kind != BY_NAME:
                data["kind"] = kind  # a certain edge outranks a guess
            return
        g.add_edge(source, target, kind=kind, file=file, line=line, lines=[line])

    # -- entry points -----------------------------------------------------------------------------------------
    def _entry_points(self) -> list[EntryPoint]:
        g = self.cg.graph
        entries: dict[str, EntryPoint] = {}

        def add(node: str, kind: str, file: str, line: int) -> None:
            if node in g and node not in entries:
                entries[node] = EntryPoint(node, kind, file, line)

        imported = {t for s, t, d in g.edges(data=True) if d["kind"] == IMPORT and _may_enter(g.nodes[s]["file"])}
        for name, scan in sorted(self.scans.items()):
            if scan.file.endswith(".ipynb"):
                cells = sorted((k for k in self.keys_of[name] if "#" in k), key=_source_order)
                for key in cells:
                    cell = f"{name}#{key.split('#')[1]}"
                    self.cg._sites.setdefault(name, []).append(CallSite(name, cell, cell, RUN, key, 1))
                    self._edge(name, cell, RUN, key, 1)
            if not _may_enter(scan.file):
                continue
            if scan.main_line is not None:
                add(f"{name}.__main__", "main_block", scan.file, scan.main_line)
            main = f"{name}.main"
            if main in self.cg.functions:
                add(main, "main_function", self.cg.functions[main].file, self.cg.functions[main].line)
            if scan.file.endswith(".ipynb"):
                add(name, "notebook", scan.file, 1)
            elif name not in imported:
                add(name, "script", scan.file, 1)
        for node, file, line in self._console_scripts():
            add(node, "console_script", file, line)
        for node, file, line in self._shell_scripts():
            add(node, "shell", file, line)
        return sorted(entries.values(), key=lambda e: (e.file, e.line, e.node))

    def _console_scripts(self) -> list[tuple[str, str, int]]:
        """(node, file, line) of each ``name = pkg.mod:func`` console script the repository declares."""
        found = []
        toml_lines = self.index.lines.get("pyproject.toml")
        if toml_lines:
            try:
                data = tomllib.loads("\n".join(toml_lines))
            except tomllib.TOMLDecodeError:
                data = {}
            project, tool = data.get("project", {}), data.get("tool", {})
            tables = [project.get("scripts", {}) if isinstance(project, dict) else {},
                      tool.get("poetry", {}).get("scripts", {}) if isinstance(tool.get("poetry"), dict) else {}]
            for table in tables:
                for script, spec in (table.items() if isinstance(table, dict) else ()):
                    if isinstance(spec, str):
                        found.append((spec, "pyproject.toml", _line_of(toml_lines, str(script))))
        for number, text in enumerate(self.index.lines.get("setup.py", []), 1):
            for literal in re.findall(r"['\"]([\w.-]+\s*=\s*[\w.]+\s*:\s*[\w.]+)['\"]", text):
                found.append((literal.split("=", 1)[1], "setup.py", number))
        cfg = Path(self.index.root) / "setup.cfg"
        if cfg.is_file() and not cfg.is_symlink() and cfg.stat().st_size < 200_000:
            text = cfg.read_text(encoding="utf-8", errors="replace")
            parser = configparser.ConfigParser()
            try:
                parser.read_string(text)
                value = parser.get("options.entry_points", "console_scripts", fallback="")
            except configparser.Error:
                value = ""
            for spec in value.splitlines():
                if "=" in spec:
                    found.append((spec.split("=", 1)[1], "setup.cfg", _line_of(text.splitlines(), spec.strip())))
        out = []
        for spec, file, line in found:
            module, _, func = spec.strip().partition(":")
            target = self.find_module(module.strip(), "")
            if target is not None:
                node = f"{target}.{func.strip()}"
                out.append((node if node in self.cg.graph else target, file, line))
        return out

    def _shell_scripts(self) -> list[tuple[str, str, int]]:
        """Add a ``shell`` node per ``*.sh`` file running repository Python, with a ``run`` site per command in
        line order; returns (node, file, line) of those that run something."""
        root = Path(self.index.root)
        out = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(f for f in files if f.endswith(".sh")):
                path = Path(folder) / name
                relative = path.relative_to(root).as_posix()
                try:
                    if path.is_symlink() or path.stat().st_size > 200_000:
                        continue
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                node = f"sh:{relative}"
                sites = []
                for number, line in enumerate(text.splitlines(), 1):
                    if line.lstrip().startswith("#"):
                        continue
                    for match in _SHELL_PY.finditer(line):
                        module = self._shell_target(match.group("rest"), relative)
                        if module is not None:
                            sites.append(CallSite(node, module, module, RUN, relative, number))
                if sites:
                    self.cg.graph.add_node(node, kind=SHELL, file=relative, line=1,
                                           end_line=max(1, text.count("\n") + 1))
                    self.cg._sites[node] = sites
                    for site in sites:
                        self._edge(node, site.callee, RUN, relative, site.line)
                    out.append((node, relative, 1))
        return out

    def _shell_target(self, rest: str, script: str) -> str | None:
        """The module a shell command runs: ``-m pkg.mod`` or the first ``*.py`` argument, relative to the
        script's folder or the repository root (scripts are usually run from the root)."""
        words = rest.split()
        for position, word in enumerate(words):
            if word == "-m" and position + 1 < len(words):
                return self.find_module(words[position + 1], "")
            word = word.strip("'\"")
            if word.endswith(".py"):
                folder = script.rsplit("/", 1)[0] if "/" in script else ""
                for base in ("", folder):
                    path = os.path.normpath(os.path.join(base, word)).replace(os.sep, "/")
                    name = module_name(path)
                    if name in self.scans and self.module_file[name] == path:
                        return name
                return None
        return None

    # -- reachability -----------------------------------------------------------------------------------------
    def _reach(self) -> None:
        g = self.cg.graph
        starts = [e.node for e in self.cg.entry_points]
        certain = nx.subgraph_view(g, filter_edge=lambda a, b: g.edges[a, b]["kind"] in CERTAIN_EDGES)
        live = _reachable(certain, starts)
        self.cg._live = frozenset(live)
        self.cg._maybe = frozenset(_reachable(g, starts) - live)
        self.cg._decorated = frozenset(q for s in self.scans.values() for q in s.decorated)
        self.cg.dynamic = any(g.nodes[n].get("dynamic") for n in live)
        self.cg.runnable = any(e.kind != "script" or any(site.callee for site in self.cg._sites.get(e.node, ()))
                               for e in self.cg.entry_points)


def _reachable(graph, starts) -> set[str]:
    seen: set[str] = set()
    stack = list(starts)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(graph.successors(node))
    return seen


def _may_enter(file: str) -> bool:
    name = file.rsplit("/", 1)[-1]
    if name in ("setup.py", "conftest.py", "__init__.py"):
        return False
    return name == "test.py" or not is_test_path(file)


def _line_of(lines: list[str], needle: str) -> int:
    for number, text in enumerate(lines, 1):
        if needle in text:
            return number
    return 1


def _source_order(key: str) -> tuple[str, int]:
    """Sort sources by file, notebook cells by number (``nb.ipynb#10`` after ``nb.ipynb#9``)."""
    file, _, cell = key.partition("#")
    return (file, int(cell) if cell.isdigit() else 0)
