"""The call graph's public records: the node and edge kinds, ``FunctionInfo``, ``CallSite``, ``Mention``,
``EntryPoint`` and ``CallGraph`` (see the package docstring of ``extractors.callgraph`` for what they mean), and
how repository files are named as modules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
import networkx as nx

from extractors.facts import Warning_

if TYPE_CHECKING:
    from extractors.callgraph.branches import DeadBranch
from sau.vocabulary import Location, split_where

MODULE, MAIN, CELL, FUNCTION, CLASS, SHELL, BRANCH = "module", "main", "cell", "function", "class", "shell", "branch"
CALL, INSTANTIATE, HOOK, INSTANCE, REFERENCE, IMPORT, RUN, BY_NAME = (
    "call", "instantiate", "hook", "instance", "reference", "import", "run", "by_name")
EXTERNAL, UNRESOLVED = "external", "unresolved"  # call sites that lead to no repository node
EXPR_RECEIVER = "<expr>"  # the receiver in the target of a method called on a computed value: "<expr>.backward"
CERTAIN_EDGES = frozenset({CALL, INSTANTIATE, HOOK, INSTANCE, REFERENCE, IMPORT, RUN})
LIVE, MAYBE, DEAD = "live", "maybe", "dead"
# Keys of ``CallSite.branch`` at or below this one are choices among classes (``resolve.choice_key``): a variable
# picks one class per run, so the arms of one key exclude each other wherever they are met in a trace
CHOICE_KEYS = -(1 << 40)
TEST_MAIN = "test_main"  # the entry point kind of a test file's __main__ block (``entry_points``)


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
class CallSite(Location):
    """One call (or reference) in a scope, in evaluation order, where it is (``sau.vocabulary.Location``: one line).

    ``scope`` the node making it; ``callee`` the repository node it resolves to, or ``None``; ``target`` the
    called name: the resolved dotted name for repository and imported names (``torch.optim.AdamW`` for
    ``optim.AdamW`` after ``from torch import optim``), as written otherwise (``<expr>.backward`` for a method of a
    computed value, ``(loss / k).backward()``: ``EXPR_RECEIVER``); ``kind`` an edge kind, ``external``
    (resolved outside the repository) or ``unresolved``; ``in_loop`` whether a ``for``/``while``/comprehension
    of the scope encloses it; ``branch`` the arms of the scope's ``if``/``try`` statements that enclose it, as
    (statement id, arm number) pairs: two sites of one scope holding the same statement id with different arms
    never both run in one pass (``if gpt: GPT() else: NGPT()``); ``written`` the called name as written for a
    call of an instance (``self.encoder`` for ``self.encoder(x)`` resolved to ``Encoder.forward``), else empty.
    Build with ``CallSite.at``.
    """

    scope: str
    callee: str | None
    target: str
    kind: str
    in_loop: bool = False
    branch: tuple[tuple[int, int], ...] = ()
    written: str = ""

    @classmethod
    def at(cls, key: str, line: int, scope: str, callee: str | None, target: str, kind: str,
           in_loop: bool = False, written: str = "") -> CallSite:
        """A site on ``line`` of the source ``key`` (``file`` or ``file#cell``)."""
        file, cell = split_where(key)
        return cls(file, line, line, scope, callee, target, kind, in_loop, cell=cell, written=written)


@dataclass(frozen=True)
class Mention(Location):
    """An identifier or string literal the code of ``scope`` uses (docstrings and comments excluded), where it is
    (one line): ``kind`` ``name`` (a name or dotted attribute chain read or called), ``string`` (a literal or
    f-string text part) or ``binding`` (a name assigned to), ``definition`` (the name of a function or class, in the
    scope of that function or class: it counts when they run or are used), or ``display`` (a string only shown: an
    argument of ``print``, a logging call, a plot label, a ``help=`` text). Build with ``Mention.at``.

    ``context`` is the syntactic role the mention plays where it is (what the D3 rule reads to tell a dataset
    loaded from a constant named after it): ``call`` (the name is the function a call calls), ``arg:<callee>``
    (inside the arguments of a call, the innermost callee's dotted name after the colon, empty when it has none;
    ``arg:<callee>=<keyword>`` inside a keyword argument of that call),
    ``key:literal`` / ``key:computed`` (a string used as a dict key or subscript index whose value is a literal
    or is computed), ``bind:call:<callee>`` / ``bind:literal`` / ``bind:computed`` (a name bound to a call's
    result, to a literal, to anything else), ``literal`` (inside the literal value of an assignment, outside any
    call: a constant table), ``iter:<lo>:<hi>:<targets>`` (the collection a ``for`` loop or comprehension
    iterates, directly or through ``enumerate``/``sorted``/``list``/``tqdm``..., with the literal bounds of a slice
    taken of it, empty when there is none, ``?`` when a bound is not a literal; ``targets`` the loop's names,
    comma-separated), ``bind:item`` (a name whose item or attribute is assigned, ``x[k] = v``, augmented,
    ``x += v``, or filled by a method, ``x.append(v)``: ``filling_methods`` of ``extractors/words.yaml``), ``compare``
    (a string a comparison tests against: ``x == "a"``), ``select`` (such a string by which an ``if`` statement
    selects its body: ``if x == "a":``, ``elif x in ("a", "b"):``), ``default:<parameter>`` (a parameter's default
    value, in the function's scope: ``def make(kind="high_variance")``), ``slice:<lower>:<upper>`` (a name a table's
    entry slices with those bounds, each empty, an integer or ``?``: ``"dmc": DMC_ENVS[:5]``), or empty.

    ``reads`` (bindings and computed keys) the value's inputs: the dotted names it reads and, with ``()`` after
    them, the calls it makes (``("mcc", "float()")`` for ``"mcc": float(mcc)``); for a ``select`` or ``compare``
    string, the dotted name the comparison tests (``("variant",)`` for ``if variant == "g1_headwise":``,
    ``("model_name",)`` for ``"7b" in model_name.lower()``). ``within`` (a name or string inside a list, tuple, set
    or dict display bound to a name) ``<name>:<position>``, the position of the display's top-level element holding
    it (empty for a set's element or a dict's key, ``=`` for a dict's value, followed by its key when that is a
    plain string: ``BENCHMARK_ENVS:=dmc_proprio``): ``REWARD_VARIANTS:2``. ``guards`` the strings the ``if``
    statements enclosing the mention in its scope select their bodies by (``if kind == "deterministic":`` gives
    ``("deterministic",)``): the mention runs only when one of them reaches the compared value."""

    scope: str
    text: str
    kind: str
    context: str = field(default="", kw_only=True)
    reads: tuple[str, ...] = field(default=(), kw_only=True)
    within: str = field(default="", kw_only=True)
    guards: tuple[str, ...] = field(default=(), kw_only=True)

    @classmethod
    def at(cls, key: str, line: int, scope: str, text: str, kind: str, context: str = "",
           reads: tuple[str, ...] = (), within: str = "", guards: tuple[str, ...] = ()) -> Mention:
        """A mention on ``line`` of the source ``key`` (``file`` or ``file#cell``), playing ``context``."""
        file, cell = split_where(key)
        return cls(file, line, line, scope, text, kind, cell=cell, context=context, reads=reads, within=within,
                   guards=guards)


@dataclass(frozen=True)
class EntryPoint:
    """Where execution starts: ``node`` a graph node, ``kind`` (``main_block``, ``test_main`` (a test file's
    ``__main__`` block), ``main_function``,
    ``console_script``, ``shell``, ``notebook``, ``script``), ``file``/``line`` where it is declared."""

    node: str
    kind: str
    file: str
    line: int


class CallGraph:
    """The call graph of one repository (nodes, edges and entry points: the package docstring of
    ``extractors.callgraph``).

    Attributes: ``graph`` (``networkx.DiGraph``), ``functions`` (qualname -> ``FunctionInfo``), ``classes``
    (qualname -> (file, line, end_line)), ``entry_points`` (tuple of ``EntryPoint``), ``mentions`` (scope ->
    list of ``Mention``), ``dynamic`` (live code looks names up at run time, so ``dead`` is never claimed),
    ``unseen`` (functions a library or Python may call without a call the graph sees: methods of classes derived
    from a library class, properties, methods of decorator-registered classes), ``runnable`` (some entry point runs
    repository code: a ``__main__`` block (not a test file's), ``main()``, a console or shell
    script, a notebook, or a script whose top level calls repository code, a base class named in a ``class``
    statement being no call; without one, a library of definitions nobody runs, ``dead`` is never claimed either).
    Build with ``build_call_graph(index)``, through ``index.analysis(build_call_graph)`` so that a run builds it once.
    """

    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self.functions: dict[str, FunctionInfo] = {}
        self.classes: dict[str, tuple[str, int, int]] = {}
        self.entry_points: tuple[EntryPoint, ...] = ()
        self.mentions: dict[str, list[Mention]] = {}
        self.dynamic = False
        self.runnable = False
        # functions whose callers the graph may not see: methods of classes with a library base, properties, methods
        # of classes a decorator may register (``build._Builder._unseen``); their liveness stays what calls show.
        # None where every entry point fails at import, nor in a module that cannot be imported: nothing runs there
        self.unseen: frozenset[str] = frozenset()
        # modules that cannot be imported (``build._Builder._unimportable``): module -> (where it imports the source
        # that fails, ``file:line``; that source's file); their code is read along its calls as written all the same
        self.unimportable: dict[str, tuple[str, str]] = {}
        # module -> the local names its imports bind to a source CPython cannot compile (``from model import MAR``
        # with ``model.py`` holding a stray markdown fence): what it passes to them configures code nobody can read
        self.unreadable_imports: dict[str, frozenset[str]] = {}
        # module -> the names its imports bind under another name, by that name (``from utils import ci as _ci``:
        # ``{"_ci": "ci"}``): a call of ``_ci`` there calls ``ci``
        self.renamed_imports: dict[str, dict[str, str]] = {}
        # the repository has entry points and every one of them fails at import: none of its code runs
        self.halted = False
        # the arms of ``if`` statements no run takes (``branches.DeadBranch``), each a ``branch`` node nothing calls
        # that holds the arm's call sites and mentions (``branch_at``)
        self.dead_branches: tuple[DeadBranch, ...] = ()
        self._branches: dict[str, list[tuple[int, int, str]]] = {}
        self._sites: dict[str, list[CallSite]] = {}
        self._live: frozenset[str] = frozenset()
        self._maybe: frozenset[str] = frozenset()
        self._decorated: frozenset[str] = frozenset()
        # the nodes of the modules that run nothing: a parsed file Python refuses to compile
        self._unimported: frozenset[str] = frozenset()
        self._states: dict[str, str] = {}
        self._by_text: dict[str, list[Mention]] | None = None
        self._methods: dict[str, tuple[str, ...]] | None = None

    def mentions_by_text(self) -> dict[str, list[Mention]]:
        """Every mention grouped by its text (built once): rules match a term against each distinct text once."""
        if self._by_text is None:
            self._by_text = {}
            for mentions in self.mentions.values():
                for mention in mentions:
                    self._by_text.setdefault(mention.text, []).append(mention)
        return self._by_text

    def methods_by_name(self) -> dict[str, tuple[str, ...]]:
        """The repository's methods grouped by their name, each a sorted tuple of qualnames (built once): the
        methods a call ``x.name()`` on an object of unknown type may run."""
        if self._methods is None:
            found: dict[str, list[str]] = {}
            for qualname, info in self.functions.items():
                if info.class_name is not None:
                    found.setdefault(info.name, []).append(qualname)
            self._methods = {name: tuple(sorted(names)) for name, names in found.items()}
        return self._methods

    def callees_in_order(self, node: str) -> list[CallSite]:
        """The call sites of ``node`` (a function qualname, module, ``__main__`` block, cell or shell script) in
        evaluation order: statement order, a call's arguments before the call. References and unresolved calls
        included (see ``CallSite.kind``). Empty for an unknown node."""
        return list(self._sites.get(node, ()))

    def liveness(self, node: str) -> str:
        """``live``, ``maybe`` or ``dead`` (package docstring). Raises ``KeyError`` for a node not in the graph."""
        if node not in self._states:
            if node not in self.graph:
                raise KeyError(node)
            if node in self._live:
                self._states[node] = LIVE
            elif node in self._unimported:  # its module cannot be imported: whatever calls it, it cannot run
                self._states[node] = DEAD
            elif node in self._maybe or self.dynamic or not self.runnable or any(
                    n in self._decorated for n in self._defining_functions(node)):
                self._states[node] = MAYBE
            else:
                self._states[node] = DEAD
        return self._states[node]

    def live(self, node: str) -> bool:
        """True when an entry point reaches ``node`` through certain edges. ``False`` for unknown nodes."""
        return node in self._live

    def _defining_functions(self, node: str) -> Iterator[str]:
        """``node`` and the functions it is nested in (a registered outer function makes its inner ones maybe)."""
        parts = node.split(".")
        for end in range(len(parts), 0, -1):
            name = ".".join(parts[:end])
            if name in self.functions:
                yield name

    def branch_at(self, key: str, line: int) -> str | None:
        """The ``branch`` node of the dead arm holding ``line`` of the source ``key`` (``file`` or ``file#cell``),
        the outermost when arms nest; ``None`` when no dead arm holds it."""
        return next((node for start, end, node in self._branches.get(key, ()) if start <= line <= end), None)

    def add_branch(self, branch: DeadBranch) -> str | None:
        """Record ``branch`` and add its node (``<scope>.<branch:<line>>``, kind ``branch``), unless an arm already
        recorded holds it; the node's name, or ``None``."""
        if self.branch_at(branch.key, branch.line) is not None:
            return None
        node = f"{branch.scope}.<branch:{branch.line}>"
        self.graph.add_node(node, kind=BRANCH, file=branch.key, line=branch.line, end_line=branch.end_line,
                            why=branch.why)
        self.dead_branches += (branch,)
        self._branches.setdefault(branch.key, []).append((branch.line, branch.end_line, node))
        return node

    def import_warnings(self) -> tuple[Warning_, ...]:
        """One warning per module that cannot be imported (``unimportable``), at the import that fails, in file
        and line order."""
        found = []
        for module, (where, source) in self.unimportable.items():
            key, _, line = where.rpartition(":")
            why = ("that module cannot be imported either" if module_name(source) in self.unimportable
                   else "Python cannot compile that file")
            found.append(Warning_(key, int(line), f"this module cannot be imported: it imports {source}, and {why}; "
                                                  f"its code is read along its calls as written, and what it passes "
                                                  f"to code in files Python cannot compile counts as a trace"))
        return tuple(sorted(found, key=lambda w: (w.file, w.line or 0)))

    def node_ref(self, node: str) -> str:
        """``file:line`` of a node."""
        data = self.graph.nodes[node]
        return f"{data['file']}:{data['line']}"

    def size(self) -> tuple[int, int]:
        """(nodes, edges)."""
        return self.graph.number_of_nodes(), self.graph.number_of_edges()


def argument_of(context: str) -> tuple[str, str]:
    """(callee, keyword) of a ``Mention.context`` inside a call's arguments (``arg:<callee>`` or
    ``arg:<callee>=<keyword>``): the innermost callee's dotted name, empty when it has none, and the keyword, empty
    for a positional argument; ``("", "")`` for any other context."""
    if not context.startswith("arg:"):
        return "", ""
    callee, _, keyword = context[4:].partition("=")
    return callee, keyword


def argument_callee(context: str) -> str:
    """The last part of the callee a ``Mention.context`` is an argument of (``argument_of``), as written:
    ``print`` for ``arg:builtins.print``; empty when the context is no argument or the call has no name."""
    return argument_of(context)[0].rsplit(".", 1)[-1]


def module_name(file: str) -> str:
    """The dotted module name of a repository file: ``pkg/mod.py`` -> ``pkg.mod``, ``pkg/__init__.py`` -> ``pkg``,
    ``nb/a.ipynb`` -> ``nb.a``."""
    path = file.split("#", 1)[0]
    stem = path.rsplit(".", 1)[0] if path.endswith((".py", ".ipynb")) else path
    parts = [p for p in stem.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


def source_order(key: str) -> tuple[str, int]:
    """Sort key of a source key: by file, notebook cells by number (``nb.ipynb#10`` after ``nb.ipynb#9``)."""
    file, cell = split_where(key)
    return (file, cell or 0)


def reachable(graph: nx.DiGraph, starts: Iterable[str]) -> set[str]:
    """The nodes of ``graph`` reachable from ``starts`` along its edges, ``starts`` included (depth first)."""
    seen: set[str] = set()
    stack = list(starts)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(graph.successors(node))
    return seen
