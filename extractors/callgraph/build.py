"""``build_call_graph``: scan every parsed source of a repository, add its nodes, resolve its calls and imports
into edges, link classes to the methods frameworks call, find the entry points and what they reach (liveness)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst
import networkx as nx
from libcst.metadata import MetadataWrapper

from extractors.callgraph.branches import DeadBranch, dead_branches
from extractors.callgraph.entry_points import entry_points
from extractors.callgraph.model import (CALL, CELL, CERTAIN_EDGES, HOOK, INSTANTIATE, MAIN, MODULE, REFERENCE,
                                        TEST_MAIN, CallGraph, EntryPoint, FunctionInfo, module_name, reachable,
                                        source_order)
from extractors.callgraph.resolve import Resolver
from extractors.callgraph.scan import Scan, Scanner, decorator_name
from extractors.facts import CONFIG as CONFIG_FACT
from extractors.positions import resolve_positions
from extractors.trees import visit
from extractors.words import word_list
from sau.vocabulary import split_where

if TYPE_CHECKING:
    from extractors.facts import RepositoryIndex

# Word list (what it holds and its source: extractors/words.yaml).
_HOOKS = word_list("framework_hooks")
_PROPERTIES = frozenset({"property", "cached_property", "functools.cached_property"})  # run when their attribute is read


def build_call_graph(index: RepositoryIndex) -> CallGraph:
    """Build the call graph of ``index`` (an ``extractors.facts.RepositoryIndex``) from its parsed modules.

    Never raises on odd code: what cannot be resolved stays an ``unresolved`` call site. Reads only the small
    text files that hold entry points and are not in the index (``*.sh``, ``setup.cfg``) below ``index.root``.
    """
    return _Builder(index).build()


class _Builder(Resolver):
    """Builds one ``CallGraph``: ``build`` runs the passes in order (scan, nodes, resolution, hooks, entry points,
    reachability); name resolution and edges come from ``Resolver``."""

    _idle: frozenset[str] = frozenset()  # the idle classes (``_idle_classes``), once ``_hooks`` has run

    def build(self) -> CallGraph:
        """The finished graph. Call once per builder."""
        g = self.cg.graph
        for key in sorted(self.index.modules, key=source_order):
            file, cell = split_where(key)
            name = module_name(file)
            scan = self.scans.setdefault(name, Scan(name, file))
            self.keys_of.setdefault(name, []).append(key)
            self.module_file.setdefault(name, file)
            top = f"{name}#{cell}" if cell is not None else name
            if cell is not None:
                g.add_node(top, kind=CELL, file=key, line=1, end_line=max(1, len(self.index.lines.get(key, []))))
            module = self.index.modules[key]
            positions = self.index.positions.get(key)
            if positions is None:  # a module given without positions: resolve them here
                positions = resolve_positions(MetadataWrapper(module, unsafe_skip_copy=True))
            try:
                visit(module, Scanner(scan, key, file.endswith("__init__.py"), top, positions))
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
                if isinstance(node, cst.FunctionDef):  # kind FUNCTION
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
            self.resolve_scan(name, scan)
        broken = self._broken()
        self.cg.unimportable = self._unimportable(broken)
        self.cg.unreadable_imports = self._unreadable_imports(broken)
        self.cg.renamed_imports = {name: renamed for name, scan in self.scans.items()
                                   if (renamed := self._renamed_imports(name, scan))}
        # only a file Python cannot compile runs nothing (one read in spite of bytes Python refuses is parsed, and runs
        # nothing all the same); a module importing it is read along its calls as written, as readers judge code that
        # would fail at run time (benchmarks/truth/CONVENTIONS.md, "Code that would fail at run time"), its calls into
        # the unreadable file aside (``CallGraph.unreadable_imports``)
        self._not_run = frozenset(broken) & frozenset(self.scans)
        found = tuple(entry_points(self))
        # a call in a function no entry point could reach gives a parameter no value (``dead_branches``); in a
        # library of definitions any function may be called from outside
        starts = tuple(e.node for e in found) if self._runnable(found) else None
        for branch in dead_branches(self, self._unseen(), starts):
            self._prune(branch)
        self._hooks()
        self._commands()
        self.cg.entry_points = tuple(e for e in found if self._module_of(e.node) not in self._not_run)
        self._reach(found)
        return self.cg

    def _broken(self) -> dict[str, str]:
        """Module -> file of the repository's sources CPython cannot compile (``RepositoryIndex.uncompilable``;
        notebook cells aside)."""
        broken: dict[str, str] = {}
        for key in sorted(self.index.uncompilable):
            file, cell = split_where(key)
            if cell is None:
                broken[module_name(file)] = file
        return broken

    def _unimportable(self, broken: dict[str, str]) -> dict[str, tuple[str, str]]:
        """The parsed modules that cannot be imported (``CallGraph.unimportable``): those with an import whose failure
        stops them (``scan.unguarded_imports``) of a repository source CPython cannot compile
        (``RepositoryIndex.uncompilable``), or of a module that cannot be imported itself, wherever Python may load
        it from (``_failing_import``). Module -> (where it imports it, ``file:line``; the file it imports)."""
        if not broken:
            return {}
        failing: dict[str, tuple[str, str]] = {}
        changed = True
        while changed:  # to a fixed point: a module importing one that cannot be imported cannot be either
            changed = False
            for name, scan in self.scans.items():
                if name in failing:
                    continue
                for scope, target, key, line, plain, names in scan.import_lines:
                    if scope != name or not plain:
                        continue
                    found = self._failing_import(target, names, name, broken, failing)
                    if found is not None:
                        failing[name] = (f"{key}:{line}", found)
                        changed = True
                        break
        return failing

    def _renamed_imports(self, module: str, scan) -> dict[str, str]:
        """The names ``module`` imports from the repository's own modules under another name, by that name
        (``from utils import ci as _ci``: ``{"_ci": "ci"}``); not a library's (``from scipy.stats import bootstrap
        as sp_bootstrap``), nor one the module defines again (a ``def _ci`` of its own replaces the import)."""
        own = {qual.rsplit(".", 1)[-1] for qual in scan.defs if qual.count(".") == module.count(".") + 1}
        return {local: target.rsplit(".", 1)[-1] for local, (target, _) in scan.imports.items()
                if target.rsplit(".", 1)[-1] != local and target.rsplit(".", 1)[0] in self.scans and local not in own}

    def _unreadable_imports(self, broken: dict[str, str]) -> dict[str, frozenset[str]]:
        """Module -> the local names its imports bind to a source CPython cannot compile or to something in one
        (``from model import MAR``, ``import model as m``), for the modules that have any."""
        if not broken:
            return {}
        found: dict[str, frozenset[str]] = {}
        for name, scan in self.scans.items():
            local = frozenset(alias for alias, (target, _) in scan.imports.items()
                              if self._failing_import(target, (), name, broken, {}) is not None)
            if local:
                found[name] = local
        return found

    def _failing_import(self, target: str, names: tuple[str, ...], importer: str, broken: dict[str, str],
                        failing: dict[str, tuple[str, str]]) -> str | None:
        """The file of the first module an import of ``target`` (and of its ``names`` that are submodules, not names
        the package binds) runs that cannot be imported, wherever Python may find it (``Resolver.places``): a package
        ``__init__`` on the way, the module, a submodule; else ``None``. A module found both where it can be imported
        and where it cannot depends on how the program is started: not counted."""
        parts = target.split(".") if target else []
        dotted = [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
        package = self.find_module(target, importer) if target else None
        bound = self.scans[package] if package is not None else None
        dotted += [f"{target}.{n}" if target else n for n in names
                   if bound is None or (f"{package}.{n}" not in bound.defs and n not in bound.imports)]
        for module in dotted:
            parsed = [m for m in self.places(module, importer, self.scans) if m != importer]
            gone = self.places(module, importer, broken)
            # a file read in spite of undecodable bytes is parsed too, and cannot be compiled all the same
            if any(m not in failing and m not in broken for m in parsed) or not (parsed or gone):
                continue
            return broken[gone[0]] if gone else self.module_file[parsed[0]]
        return None

    def _prune(self, branch: DeadBranch) -> None:
        """Move what a dead arm holds out of its scope into the arm's ``branch`` node, which nothing calls: its call
        sites, the edges only they make, and its mentions."""
        node = self.cg.add_branch(branch)
        if node is None:
            return
        g = self.cg.graph

        def inside(where: str, line: int) -> bool:
            return where == branch.key and branch.line <= line <= branch.end_line

        sites = self.cg._sites.get(branch.scope, [])
        self.cg._sites[branch.scope] = [s for s in sites if not inside(s.where, s.line)]
        self.cg._sites[node] = [replace(s, scope=node) for s in sites if inside(s.where, s.line)]
        for target in list(g.successors(branch.scope)):
            data = g.edges[branch.scope, target]
            dead = [line for line in data["lines"] if inside(data["file"], line)]
            for line in dead:
                self.edge(node, target, data["kind"], branch.key, line)
            kept = [line for line in data["lines"] if line not in dead]
            if not kept:
                g.remove_edge(branch.scope, target)
            elif dead:
                data["lines"], data["line"] = kept, kept[0]
        mentions = self.cg.mentions.get(branch.scope, [])
        self.cg.mentions[branch.scope] = [m for m in mentions if not inside(m.where, m.line)]
        moved = [replace(m, scope=node) for m in mentions if inside(m.where, m.line)]
        if moved:
            self.cg.mentions[node] = moved

    def _module_of(self, node: str) -> str:
        """The module of a graph node (the module name of the source file it is in; empty for a node of no file)."""
        file = self.cg.graph.nodes[node].get("file")
        return module_name(split_where(file)[0]) if file else ""

    def _hooks(self) -> None:
        """Class -> its ``__init__`` and the methods frameworks call on its instances (``_HOOKS`` and dunders),
        own or inherited: a class node is reached when it is instantiated or handed over (``cls = Task``). An idle
        class (``_idle_classes``: every instance dropped unused) gets only its ``__init__``: no code holds an object
        to call, so its ``__call__`` or ``forward`` never runs that way."""
        self._idle = self._idle_classes()
        for cls in self.cg.classes:
            init = self.find_method(cls, "__init__")
            if init:
                self.edge(cls, init, CALL, self.cg.functions[init].file, self.cg.functions[init].line)
            if cls in self._idle:
                continue
            for owner in self.class_mro(cls):
                for method in self.methods_of.get(owner, ()):
                    name = method.rsplit(".", 1)[1]
                    if name != "__init__" and (name in _HOOKS or (name.startswith("__") and name.endswith("__"))):
                        info = self.cg.functions[method]
                        self.edge(cls, method, HOOK, info.file, info.line)

    def _idle_classes(self) -> frozenset[str]:
        """The repository classes whose every instance is dropped unused: each site reaching the class node is a
        construction (no reference handing the class over, no call by name) inside a function that drops the object
        at once (a statement of its own: ``Logger(cfg)``) or binds it to a local variable neither the function nor
        one nested in it reads again (``loss_fn = BinomialLoss(K=4)``, then the loss written out inline). Such an
        object reaches no code that could call it; its constructor still runs. A module-level binding is never
        idle (another module may import it), nor one a ``global``/``nonlocal`` statement or ``locals()`` may reach;
        nor is a class with a library base (the library's constructor may register the object: a ``gym.Env``'s
        ``step``) or one whose constructors hand ``self`` on (``registry.append(self)``)."""
        idle_sites = self._idle_constructions()
        sites: dict[str, list] = {}
        for found in self.cg._sites.values():
            for site in found:
                if site.callee in self.cg.classes:
                    sites.setdefault(site.callee, []).append(site)
        g = self.cg.graph
        return frozenset(cls for cls, made in sites.items()
                         if not self._escapes(cls)
                         and all(data["kind"] == INSTANTIATE for _, _, data in g.in_edges(cls, data=True))
                         and all(site.kind == INSTANTIATE
                                 and (site.scope, site.line, cls.rsplit(".", 1)[-1]) in idle_sites for site in made))

    def _escapes(self, cls: str) -> bool:
        """Whether building ``cls`` may hand the object to code that calls it later: a library base in its
        hierarchy, or a constructor of the hierarchy reading ``self`` as a whole (not only its attributes)."""
        owners = self.class_mro(cls)
        if any(self._library_base(owner) for owner in owners):
            return True
        inits = [f"{owner}.__init__" for owner in owners]
        return any(m.kind == "name" and m.text == "self" for init in inits for m in self.cg.mentions.get(init, ()))

    def _idle_constructions(self) -> frozenset[tuple[str, int, str]]:
        """(function, line, class name as written last) of each construction whose object the function drops at once
        or binds to a local variable no code of the function (or of a function nested in it) reads
        (``_idle_classes``)."""
        stores = {key: count for scan in self.scans.values() for key, count in scan.stores.items()}
        reads: dict[str, set[str]] = {}
        for scope, mentions in self.cg.mentions.items():
            seen = Counter(m.text.split(".")[0] for m in mentions if m.kind == "name")
            names = {name for name, count in seen.items() if count > stores.get((scope, name), 0)}
            for outer in _enclosing(scope):
                reads.setdefault(outer, set()).update(names)
        found: set[tuple[str, int, str]] = set()
        for scan in self.scans.values():
            found.update((scope, line, called.rsplit(".", 1)[-1]) for scope, line, called in scan.dropped)
            for (scope, var), bindings in scan.var_bindings.items():
                # a ``global``/``nonlocal`` statement mentions its names: a read, so such a binding is never idle
                if scope not in self.cg.functions or var in reads.get(scope, ()) \
                        or {"locals", "vars"} & reads.get(scope, set()):
                    continue
                found.update((scope, line, ctor.rsplit(".", 1)[-1]) for line, ctor, _, narrows in bindings
                             if ctor and not narrows)
        return frozenset(found)

    def _runnable(self, found: tuple[EntryPoint, ...]) -> bool:
        """Whether the entry points ``found`` run repository code (``CallGraph.runnable``). A script runs it only
        through a call at its top level: a class statement naming a repository base class (a ``reference`` site)
        runs nothing, so a folder of definitions is not runnable; a test file's own __main__ is a check, not an
        experiment: alone it leaves a library a library."""
        return any(e.kind != TEST_MAIN and (e.kind != "script" or any(
            site.callee and site.kind != REFERENCE for site in self.cg._sites.get(e.node, ())))
            for e in found)

    def _unseen(self, built: frozenset[str] | None = None) -> frozenset[str]:
        """The functions whose callers the graph may not see (``CallGraph.unseen``): every method of a class with a
        base outside the repository (a library may call it: a Trainer's ``compute_loss``, an environment's
        ``step``, a Keras layer's ``call``, a callback's ``on_epoch_begin``), a property (it runs when its attribute
        is read), and the methods of a class carrying a decorator that may register it. Given ``built``
        (``_built``), only the library-based classes among those: a library calls the methods of objects some
        code made."""
        library = {cls for cls in self.cg.classes if any(self._library_base(owner) for owner in self.class_mro(cls))
                   and (built is None or cls in built)}
        registered = {q for s in self.scans.values() for q in s.registered}
        return frozenset(q for q, info in self.cg.functions.items() if info.module not in self._not_run and (
            info.class_name in library or info.class_name in registered
            or any(decorator_name(d) in _PROPERTIES for d in info.node.decorators)))

    def _built(self) -> frozenset[str] | None:
        """The repository classes code that may run may build, with their repository bases: a class node live or
        maybe (instantiated, referenced or subclassed by such code), or one whose name a string literal or a
        configuration value gives (registered by name: ``entry_point="pkg.envs:Walker"``, ``_target_:
        pkg.Model``). ``None`` (every class) where liveness decides nothing: no runnable entry point, or dynamic
        dispatch in live code."""
        if not self.cg.runnable or self.cg.dynamic:
            return None
        named = {m.text.replace(":", ".").rsplit(".", 1)[-1] for found in self.cg.mentions.values() for m in found
                 if m.kind == "string"}
        named |= {f.value.replace(":", ".").rsplit(".", 1)[-1] for f in self.index.facts
                  if f.kind == CONFIG_FACT and isinstance(f.value, str)}
        # an idle class's objects reach no library (``_idle_classes``), unless a string names it for one to build
        roots = [c for c in self.cg.classes if (c in self.cg._live or c in self.cg._maybe) and c not in self._idle
                 or c.rsplit(".", 1)[-1] in named]
        return frozenset(base for c in roots for base in self.class_mro(c))

    def _library_base(self, owner: str) -> bool:
        """Whether the repository class ``owner`` names a base (other than ``object``) that does not resolve to a
        repository class: a library's, or one nothing resolves."""
        module = self.class_module[owner]
        for base in self.scans[module].bases.get(owner, ()):
            found = self.resolve(base, module)
            if base != "object" and (found is None or found[0] != "repo"):
                return True
        return False

    def _commands(self) -> None:
        """Command-line applications -> the commands registered on them (``scan._command_application``): a group
        function (``@click.group() def cli()``) runs its ``@cli.command()`` functions, and so does every scope of
        the module that calls an application object (``app = typer.Typer()`` ... ``app()``)."""
        for name, scan in self.scans.items():
            for command, application, key, line in scan.commands:
                resolved = self.resolve(application, name)
                if resolved is not None and resolved[0] == "repo" and resolved[1] in self.cg.functions:
                    self.edge(resolved[1], command, CALL, key, line)
                    continue
                for scope in self._module_scopes(name):
                    for site in self.cg._sites.get(scope, ()):
                        if site.callee is None and site.target == application:
                            self.edge(scope, command, CALL, key, line)

    def _module_scopes(self, module: str) -> list[str]:
        """The scopes of ``module``: its top level, its ``__main__`` block and its functions."""
        return [module, f"{module}.__main__"] + [q for q, f in self.cg.functions.items() if f.module == module]

    def _reach(self, found: tuple[EntryPoint, ...]) -> None:
        """Liveness inputs: what the entry points reach through certain edges (live) and only through ``by_name``
        guesses (maybe), the registered functions, whether live code dispatches dynamically, whether anything runs
        repository code or would (``found``: the entry points, those of modules that cannot be imported too: such a
        repository is a program whose code nothing else runs, not a library of definitions)."""
        g = self.cg.graph
        # what only a test file's __main__ reaches is maybe: readers differ on whether a check run by hand is part of
        # the experiment (a smoke run of the model: yes; a unit test of a loss nothing trains with: a trace)
        checks = [e.node for e in self.cg.entry_points if e.kind == TEST_MAIN]
        starts = [e.node for e in self.cg.entry_points if e.kind != TEST_MAIN]
        if self._not_run:  # a module that cannot be imported runs none of its code, whoever imports it
            out = frozenset(n for n in g if self._module_of(n) in self._not_run)
            self.cg._unimported = out
            g = nx.subgraph_view(g, filter_node=lambda n: n not in out)
        certain = nx.subgraph_view(g, filter_edge=lambda a, b: g.edges[a, b]["kind"] in CERTAIN_EDGES)
        live = reachable(certain, starts)
        self.cg._live = frozenset(live)
        decorated = frozenset(q for s in self.scans.values() for q in s.decorated)
        # what a registered function calls may run as well as the function itself
        self.cg._maybe = frozenset((reachable(g, starts + checks) | reachable(g, decorated & set(g))) - live)
        self.cg._decorated = decorated
        self.cg.halted = bool(found) and not self.cg.entry_points
        self.cg.dynamic = any(g.nodes[n].get("dynamic") for n in live)
        self.cg.runnable = self._runnable(found)
        # a library calls methods only of objects some code that may run made (``_built``): where every entry point
        # fails at import, none (and never those of a module that cannot be imported)
        self.cg.unseen = frozenset() if self.cg.halted else self._unseen(self._built())


def _enclosing(scope: str) -> list[str]:
    """``scope`` and each dotted prefix of it (``m.f.g``: ``m.f.g``, ``m.f``, ``m``): the scopes a read in a nested
    function may reach."""
    parts = scope.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]

