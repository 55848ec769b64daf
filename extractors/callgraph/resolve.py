"""Name resolution for the call graph builder: which repository module an import names, what a dotted name
means in a scope (definitions, imports, star imports, ``self``/``cls``, instances, nested functions), the
repository classes' method resolution order, and turning a ``Scan``'s raw call records into call sites and edges.
Imports are resolved as Python would with the repository root, or the importing file's folder or one of its
parents, on ``sys.path``; a name several files could provide is left unresolved."""

from __future__ import annotations

import sys
import zlib
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from extractors.callgraph.model import (BY_NAME, CALL, CHOICE_KEYS, EXPR_RECEIVER, EXTERNAL, IMPORT, INSTANCE,
                                        INSTANTIATE, REFERENCE, RUN, UNRESOLVED, CallGraph, CallSite)
from extractors.callgraph.scan import Scan
from extractors.words import word_list

if TYPE_CHECKING:
    from extractors.facts import RepositoryIndex

# Word lists (what each holds and its source: extractors/words.yaml).
_BUILTIN_OK = word_list("builtins")
_COMMON_ATTRS = word_list("common_attributes")
_DYNAMIC = word_list("dynamic_lookups")
_MAX_CHOICES = 16  # a variable choosing among more classes is left unresolved: each call would fan out per class


def _top(scan: Scan, scope: str) -> str:
    """The scope a choosing variable belongs to: a module's top level and its ``__main__`` block are one
    (``Resolver._choice_names`` reads them together)."""
    return scan.module if scope == f"{scan.module}.__main__" else scope


def choice_key(module: str, scope: str, variable: str) -> int:
    """The key of the arms of the choice the variable ``variable`` of ``scope`` makes among classes, the same at
    its construction and at every method called on the object it builds (arm n is one class in all of them), in
    the range ``CHOICE_KEYS`` sets apart from the keys of ``if`` arms (``id()`` of a node, positive) and of a
    loop's turns (minus the call's line)."""
    return CHOICE_KEYS - zlib.crc32(f"{module}:{scope}:{variable}".encode())


class Resolver:
    """The builder's state while it links one repository's scans, and the lookups over it.

    ``index`` is the ``extractors.facts.RepositoryIndex``; ``cg`` the ``CallGraph`` being built; ``scans`` module
    name -> its merged ``Scan``; ``keys_of``, ``module_file``, ``class_module``, ``methods_of`` and
    ``methods_by_name`` are filled by the builder (``extractors.callgraph.build``) as it adds nodes, before it
    calls ``resolve_scan`` per module. Lookups return ``None`` rather than raise on names they cannot resolve.
    """

    def __init__(self, index: RepositoryIndex) -> None:
        self.index = index
        self.cg = CallGraph()
        self.scans: dict[str, Scan] = {}  # module name -> merged scan (notebook cells merge into one)
        self.keys_of: dict[str, list[str]] = {}  # module name -> source keys
        self.module_file: dict[str, str] = {}
        self.class_module: dict[str, str] = {}
        self.methods_of: dict[str, list[str]] = {}  # class qualname -> its own methods
        self.methods_by_name: dict[str, list[str]] = {}
        self._found: dict[tuple[str, str], str | None] = {}
        self._mro: dict[str, list[str]] = {}
        self._choices: dict[tuple[str, str, str], list[str]] = {}  # (module, scope, variable) -> its classes
        self._binding_counts: dict[str, int] | None = None  # name -> assignments binding it (``_bindings_named``)
        self._root_names: frozenset[str] | None = None

    # -- resolution -------------------------------------------------------------------------------------------
    def find_module(self, dotted: str, importer: str) -> str | None:
        """The repository module ``dotted`` names when imported from ``importer``: exactly (the root on
        ``sys.path``), or below the importer's folder or one of its parents (a script's folder on ``sys.path``),
        or the one module whose name ends with it (a folder put on ``sys.path`` by the script; for a bare name, only
        when it is no standard-library module); else ``None``."""
        cache_key = (dotted, importer)
        if cache_key not in self._found:
            found = next((name for name in self._nearby(dotted, importer) if name in self.scans), None)
            if found is None and ("." in dotted or dotted not in sys.stdlib_module_names):
                # a script that puts a folder on sys.path (sys.path.insert(0, ".../src")) imports its modules by
                # bare name; the one repository module of that name is what it gets (never a standard module)
                ending = [m for m in self.scans if m.endswith("." + dotted)]
                found = ending[0] if len(ending) == 1 else None
            self._found[cache_key] = found if found is not None else self._under_root_name(dotted, self.scans)
        return self._found[cache_key]

    def places(self, dotted: str, importer: str, known: Collection[str]) -> list[str]:
        """Every module of ``known`` an import of ``dotted`` from ``importer`` may load, depending on how the program
        is started (``sys.path[0]`` is the root or the script's folder): the one at the root, those below the
        importer's folder and its parents, the one under a name the repository gives its root; never a guess by the
        name's ending."""
        found = [name for name in self._nearby(dotted, importer) if name in known]
        under = self._under_root_name(dotted, known)
        return found + [under] if under is not None and under not in found else found

    def _nearby(self, dotted: str, importer: str) -> list[str]:
        """``dotted`` at the root, then below the importer's folder and each of its parents, deepest first."""
        folder = self.module_file.get(importer, "").split("/")[:-1]
        return [dotted] + [".".join([*folder[:depth], dotted]) for depth in range(len(folder), 0, -1)]

    def _under_root_name(self, dotted: str, known: Collection[str]) -> str | None:
        """``luno.config`` as the root's ``config`` when ``luno`` is a name the repository imports its root by
        (``root_names``) and ``config`` is in ``known``."""
        head, _, rest = dotted.partition(".")
        return rest if rest and head in self.root_names() and rest in known else None

    def root_names(self) -> frozenset[str]:
        """Names under which the repository imports its own root folder as a package (``from luno.config import
        get_config`` in a repository whose root holds ``config.py``: it was written inside a folder ``luno``).
        A top-level name qualifies when it is no repository module, no builtin, and the dotted modules imported
        under it reach at least two different root modules of the repository, for two in three of them; a
        library's name (``torch.utils`` beside a local ``utils.py``) reaches one at most."""
        if self._root_names is None:
            targets: dict[str, set[str]] = {}
            for scan in self.scans.values():
                for target, _ in scan.imports.values():
                    head, _, rest = target.partition(".")
                    if rest and head not in self.scans and head not in _BUILTIN_OK:
                        targets.setdefault(head, set()).add(rest)
            names = set()
            for head, rests in targets.items():
                hits = [rest for rest in rests if any(
                    ".".join(rest.split(".")[:end]) in self.scans for end in range(len(rest.split(".")), 0, -1))]
                if len({rest.split(".")[0] for rest in hits}) >= 2 and 3 * len(hits) >= 2 * len(rests):
                    names.add(head)
            self._root_names = frozenset(names)
        return self._root_names

    def resolve(self, dotted: str, importer: str) -> tuple[str, str] | None:
        """``("repo", node)`` or ``("external", dotted)`` for a dotted name as module ``importer`` sees it (its
        definitions and imports, star imports last); ``None`` when nothing binds the name."""
        found = self._lookup(importer, dotted.split("."), 0)
        if found is None and dotted.split(".")[0] in _BUILTIN_OK:
            return ("external", dotted)
        return found

    def _lookup(self, module: str, parts: list[str], depth: int) -> tuple[str, str] | None:
        """``parts`` (a dotted name split) as bound in ``module``: its definitions, then its imports, then its
        star imports; ``depth`` bounds chains of re-exports (12)."""
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
        """``qual.rest...`` inside the repository: a method of a class (inherited ones too) or a nested node."""
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
            order: list[str] = []
            queue = [qual]
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
        """The repository class a constructor text (``Block``, ``layers.Block``) names in ``module``, or ``None``."""
        if not text:
            return None
        found = self.resolve(text, module)
        return found[1] if found and found[0] == "repo" and found[1] in self.cg.classes else None

    def resolve_scan(self, module: str, scan: Scan) -> None:
        """Turn ``scan`` (of ``module``) into call sites (``cg._sites``) and edges: ``import`` edges to each module
        and package ``__init__`` an import runs, one site per raw call or reference, ``call`` edges to subclass
        overrides of ``self.m()``, ``by_name`` guesses for attribute calls on receivers of unknown type, the
        ``dynamic`` mark on scopes that look names up at run time, and the ``run`` of the ``__main__`` block."""
        g = self.cg.graph
        for scope, text, key, line, _, _ in scan.import_lines:
            parts = text.split(".")
            for end in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__, a/b/__init__, then c
                package = self.find_module(".".join(parts[:end]), module)
                if package is not None and package != module:
                    self.edge(scope, package, IMPORT, key, line)
        for target, line in scan.imports.values():  # from pkg import mod: the imported name is a submodule
            submodule = self.find_module(target, module) if "." in target else None
            if submodule is not None and submodule != module:
                self.edge(module, submodule, IMPORT, self.keys_of[module][0], line)
        for scope, how, text, line, in_loop, key, branch in scan.raw:
            if how == "namespace":  # models.__dict__[name](...) may call any function or class models defines
                resolved = self._resolve_local(module, scan, scope, text)
                namespace = resolved[1] if resolved and resolved[0] == "repo" and resolved[1] in self.scans else None
                for member in self._members(namespace) if namespace else ():
                    self.edge(scope, member, BY_NAME, key, line)
                if namespace is not None or (resolved and resolved[0] == "external"):
                    continue  # a library module's namespace holds no repository code
                how = "dynamic"  # an object's __dict__ (self.__dict__[name]): any method may run
            if how == "dynamic":
                if scope in g:
                    g.nodes[scope]["dynamic"] = True
                continue
            site = self._site(module, scan, scope, how, text, line, in_loop, key, branch)
            if site is None:
                continue
            if branch:
                site = replace(site, branch=branch)
            # ModelClass(config): one construction per class it may be; for name, m in [("CRC", crc), ("RCPS",
            # rcps)]: m(x) runs each object, one turn per object, never ordered: a turn's calls interleave with the
            # loop body's other calls, which the trace (each site once) cannot show
            chosen: list[tuple[str, str]] = []
            choice = -line  # the arms' key: the call's line for a loop's turns, the classes for a choice of classes
            if site.kind == UNRESOLVED:
                classes = self._chosen_classes(module, scan, scope, text)
                if classes:  # agent_class() and agent.update(): one choice, whose arm n is the same class at both
                    chosen = [(cls, INSTANTIATE) for cls in classes]
                    choice = choice_key(module, _top(scan, scope), text)
                    inits = {self.find_method(cls, "__init__") for cls in classes}
                    if len(inits) == 1 and None not in inits:
                        choice = 0  # one __init__ they all inherit runs in every run: built outside any arm
                else:
                    chosen, choice = self._chosen_objects(module, scan, scope, text)
                if not chosen:
                    chosen, choice = self._iterated_calls(module, scan, scope, text, line, branch), -line
            for number, (target, kind) in enumerate(chosen):  # as arms of one choice
                arm = (*site.branch, (choice, number)) if len(chosen) > 1 and choice else site.branch
                self.cg._sites.setdefault(scope, []).append(replace(
                    site, callee=target, target=target, kind=kind, written=text if kind == INSTANCE else "",
                    branch=arm))
                self.edge(scope, target, kind, key, line)
            if chosen:
                continue
            self.cg._sites.setdefault(scope, []).append(site)
            if site.callee is not None:
                self.edge(scope, site.callee, site.kind, key, line)
                if site.kind == CALL and (text.split(".")[0] in ("self", "cls")
                                          or (scope, text.split(".")[0]) in scan.annotated):
                    # self.m(), or x.m() of a parameter annotated as a class, may run a subclass's m
                    for override in self._overrides(site.callee):
                        self.edge(scope, override, CALL, key, line)
            elif site.kind == UNRESOLVED and "." in text:
                attr = text.rsplit(".", 1)[1]
                if attr not in _COMMON_ATTRS:
                    for method in self.methods_by_name.get(attr, ()):
                        self.edge(scope, method, BY_NAME, key, line)
            if site.kind in (EXTERNAL, UNRESOLVED) and site.target in _DYNAMIC and scope in g:
                g.nodes[scope]["dynamic"] = True
        if scan.main_line is not None:  # running the file runs its guarded block after the top-level code
            main = f"{module}.__main__"
            site = CallSite.at(scan.file, scan.main_line, module, main, main, RUN)
            self.cg._sites.setdefault(module, []).append(site)
            self.edge(module, main, RUN, scan.file, scan.main_line)

    def _site(self, module: str, scan: Scan, scope: str, how: str, text: str, line: int, in_loop: bool,
              key: str, branch: tuple = ()) -> CallSite | None:
        """The call site of one raw record (see ``scan.RawSite``), or ``None`` for a reference that names no
        repository function or class."""
        if how == "super":
            owner = self.cg.functions.get(scope)
            method = self.find_method(owner.class_name, text, skip_first=True) if owner and owner.class_name else None
            if method:
                return CallSite.at(key, line, scope, method, method, CALL, in_loop)
            return CallSite.at(key, line, scope, None, f"super().{text}", UNRESOLVED, in_loop)
        if how == "built":  # Trainer(model).run(): the method of the repository class the call instantiates
            built, _, method_name = text.rpartition(".")
            found = self._resolve_local(module, scan, scope, built, (line, branch))
            if found is None:  # cls().update() where cls = SAC: the one class the variable holds
                chosen = self._chosen_classes(module, scan, scope, built)
                found = ("repo", chosen[0]) if len(chosen) == 1 else None
            method = self.find_method(found[1], method_name) if found and found[0] == "repo" \
                and found[1] in self.cg.classes else None
            if method:
                return CallSite.at(key, line, scope, method, method, CALL, in_loop)
            how, text = "expr", method_name
        if how == "expr":  # the receiver is computed: nothing resolves it (``EXPR_RECEIVER`` stands for it)
            return CallSite.at(key, line, scope, None, f"{EXPR_RECEIVER}.{text}", UNRESOLVED, in_loop)
        resolved = self._resolve_local(module, scan, scope, text, (line, branch))
        if how == "ref":  # a function or class passed, stored or returned: it may run wherever that goes
            target = resolved[1] if resolved and resolved[0] == "repo" else None
            holder = text.rpartition(".")[0]
            if resolved is None and holder and holder.split(".")[0] not in ("self", "cls"):
                # an attribute of a repository class read through the class (Config.LR, a namespace of settings
                # never instantiated): the class is used, its body's bindings are what the reader gets
                found = self._resolve_local(module, scan, scope, holder, (line, branch))
                target = found[1] if found and found[0] == "repo" and found[1] in self.cg.classes else None
            if target in self.cg.functions or target in self.cg.classes:
                return CallSite.at(key, line, scope, target, target, REFERENCE, in_loop)
            return None
        if resolved is None:
            return CallSite.at(key, line, scope, None, text, UNRESOLVED, in_loop)
        kind, target = resolved
        if kind == "external":
            return CallSite.at(key, line, scope, None, target, EXTERNAL, in_loop)
        if kind == "instance":
            return CallSite.at(key, line, scope, target, target, INSTANCE, in_loop, text)
        if target in self.cg.classes:
            return CallSite.at(key, line, scope, target, target, INSTANTIATE, in_loop)
        if target in self.cg.functions:
            return CallSite.at(key, line, scope, target, target, CALL, in_loop)
        return CallSite.at(key, line, scope, None, target, UNRESOLVED, in_loop)  # a module called: odd code

    def _resolve_local(self, module: str, scan: Scan, scope: str, text: str,
                       at: tuple[int, tuple] | None = None) -> tuple[str, str] | None:
        """Resolve a called or read dotted name in ``scope``: ``("repo", node)``, ``("instance", method)`` for
        calling an instance, ``("external", dotted)``, or ``None``. ``at`` (line, enclosing if/try arms) of the
        call, when given, types a variable bound to several things by its latest binding above the call
        (``_latest_binding``)."""
        parts = text.split(".")
        head = parts[0]
        owner = self.cg.functions.get(scope)
        cls = owner.class_name if owner else None
        if head in ("self", "cls") and cls:
            if parts == ["cls"]:
                return ("repo", cls)  # cls(...) in a classmethod builds its own class
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
            text_type = scan.var_types[(holder, head)]
            if text_type is None and at is not None and holder == scope:
                text_type = _latest_binding(scan.var_bindings.get((holder, head), []), *at)
            var_cls = self._type_of(text_type, module)
            if var_cls is None and holder == scope:
                built, _ = self._built_classes(module, scan, scope, head)  # trainer = trainer_cls(...)
                var_cls = built[0] if len(built) == 1 else None
            if var_cls is None:
                return None  # a variable of unknown type shadows module-level names
            if len(parts) == 1:
                return self._instance_call(var_cls)
            method = self.find_method(var_cls, parts[1]) if len(parts) == 2 else None
            return ("repo", method) if method else None
        return self.resolve(text, module)

    def _members(self, module: str) -> list[str]:
        """The functions and classes ``module`` defines at its top level (qualified node names), in source order."""
        return [qual for qual in self.scans[module].defs if qual.rsplit(".", 1)[0] == module]

    def _choice_names(self, scan: Scan, scope: str, var: str) -> list[str]:
        """The names every assignment of the local variable ``var`` in ``scope`` offers, in source order
        (``Scan.choices``; the module's top level and its ``__main__`` block together), or empty when some binding of
        it is no choice of names (a call's result, a parameter, an unpacking, a loop target, a ``def``, a ``match``
        capture, a ``global`` rebinding, a star import at the top level...: ``Scan.assigned``, ``Scan.rebinds``).
        Every assignment counts wherever the call is: which one reaches it is left open (``match`` arms,
        ``try``/``else``, a loop's next turn, a lambda called later)."""
        top = (scan.module, f"{scan.module}.__main__")
        if scope in top and scan.stars:
            return []
        names: list[str] = []
        for holder in top if scope in top else (scope,):
            offered = scan.choices.get((holder, var), [])
            if (holder, var) in scan.rebinds or len(offered) != scan.assigned.get((holder, var), 0):
                return []
            names += [name for names_ in offered for name in names_]
        return list(dict.fromkeys(names))

    def _chosen_classes(self, module: str, scan: Scan, scope: str, text: str) -> list[str]:
        """The repository classes a call of the local variable ``text`` constructs when its assignments in ``scope``
        all choose among class names (``ModelClass = nGPT if args.ngpt else GPT``, ``agent_class = SACAgent`` in
        one ``elif`` arm and ``REDQAgent`` in another, ``trainer_cls = PPOTrainer``: ``_choice_names``), each an arm
        of one choice (a run builds one, ``choice_key``); empty unless every name offered resolves to a repository
        class and none is a variable of the scope or the module itself (``Trainer = plugins.find(name)``, an
        ``except`` arm's ``Attention = NaiveAttention``) or a name two imports bind, or when they are more than
        ``_MAX_CHOICES``."""
        key = (module, scope, text)
        if key not in self._choices:
            names = self._choice_names(scan, scope, text) if "." not in text else []
            heads = {name.split(".")[0] for name in names}
            shadowed = heads & scan.reimported or any(
                scan.assigned.get((holder, head)) or (holder, head) in scan.params
                for head in heads for holder in (scope, module, f"{module}.__main__"))
            classes = [self._type_of(name, module) for name in names]
            self._choices[key] = [c for c in classes if c is not None] \
                if names and len(names) <= _MAX_CHOICES and not shadowed and all(classes) else []
        return self._choices[key]

    def _built_classes(self, module: str, scan: Scan, scope: str, text: str) -> tuple[list[str], int]:
        """The repository classes the object ``text`` (a local variable of ``scope``, or ``self.attr``) may hold when
        every assignment of it calls one variable choosing among classes (``agent = agent_class(...)``,
        ``self.agent = agent_class(...)``: ``_chosen_classes``), with the key of that choice (``choice_key``); else
        no class. Objects built in the arms of an ``if`` from classes named outright (``x = A()`` / ``x = B()``)
        are left to their latest binding: their constructions sit in the ``if``'s own arms."""
        head, _, attr = text.partition(".")
        if head in ("self", "cls") and attr and "." not in attr:
            owner = self.cg.functions.get(scope)
            return self._attr_classes(owner.class_name, attr) if owner and owner.class_name else ([], 0)
        key = (scope, head)
        bindings = scan.var_bindings.get(key, [])
        built = [ctor for _, ctor, _, narrows in bindings]  # agent = expert, agent = ALGOS[name](): no constructor
        if attr or key in scan.rebinds or None in built or len(set(built)) != 1 \
                or scan.assigned.get(key, 0) != len(built) or any(narrows for *_, narrows in bindings):
            return [], 0
        ctor = str(built[0])
        return self._chosen_classes(module, scan, scope, ctor), choice_key(module, _top(scan, scope), ctor)

    def _attr_classes(self, cls: str, attr: str) -> tuple[list[str], int]:
        """The repository classes of ``self.attr`` in class ``cls`` (set in any method of it or its bases): the one
        its constructor call names (key 0), or those a local variable choosing among classes builds it from in one
        method (``self.agent = agent_class(...)``) when nothing else anywhere binds an attribute or variable of that
        name (``self.agent = agent``, a subclass's ``self.agent = TD3()``, ``runner.agent = ...``: its class would be
        another), with the key of that choice; else no class."""
        for owner in self.class_mro(cls):
            owner_module = self.class_module[owner]
            scan = self.scans[owner_module]
            text = scan.attr_types.get((owner, attr))
            if not text:
                continue
            found = self._type_of(text, owner_module)
            if found is not None:
                return [found], 0
            sites = scan.attr_sites.get((owner, attr), [])
            if len(sites) != 1 or self._bindings_named(attr) != 1 \
                    or any(c in self.scans[self.class_module[c]].dynamic_attrs for c in self.class_mro(cls)):
                return [], 0
            return (self._chosen_classes(owner_module, scan, sites[0], text),
                    choice_key(owner_module, _top(scan, sites[0]), text))
        return [], 0

    def _bindings_named(self, name: str) -> int:
        """How many assignments in the repository bind a variable or an attribute called ``name`` (an item set or a
        collection filled is no rebinding)."""
        if self._binding_counts is None:
            counts: dict[str, int] = {}
            for scan in self.scans.values():
                for mention in scan.mentions:
                    if mention.kind == "binding" and mention.context != "bind:item":
                        counts[mention.text] = counts.get(mention.text, 0) + 1
            self._binding_counts = counts
        return self._binding_counts.get(name, 0)

    def _chosen_objects(self, module: str, scan: Scan, scope: str, text: str) -> tuple[list[tuple[str, str]], int]:
        """The ``(target, kind)`` a call of ``text`` (``agent.update`` or ``agent``, ``self.agent.update``) runs when
        the object may be of several classes (``_built_classes``): each class's method (``CALL``), or calling the
        object (``INSTANCE``), one per class, with the choice's key; empty unless each class has it. A method all
        the classes inherit from one base runs once, outside any arm."""
        receiver, _, method = text.rpartition(".")
        if not receiver or receiver in ("self", "cls"):
            receiver, method = text, ""
        classes, key = self._built_classes(module, scan, scope, receiver)
        if len(classes) < 2:
            return [], 0  # one class types the object itself (``_resolve_local``)
        found: list[tuple[str, str]] = []
        for cls in classes:
            target = self.find_method(cls, method) if method else None
            instance = None if method else self._instance_call(cls)
            if target is not None:
                found.append((target, CALL))
            elif instance is not None:
                found.append((instance[1], INSTANCE))
            else:
                return [], 0
        if len(set(found)) < len(found):  # BaseAgent.rollout for each agent: one run of it, no choice at that call
            return (found[:1], key) if len(set(found)) == 1 else ([], 0)
        return found, key

    def _iterated_calls(self, module: str, scan: Scan, scope: str, text: str, line: int,
                        branch: tuple) -> list[tuple[str, str]]:
        """The ``(target, kind)`` each turn of a loop calls when ``text`` (``m`` or ``m.fit``), called at ``line``
        inside the loop, calls a loop variable that one loop of ``scope`` binds to a display of names and nothing
        else binds (``Scan.iterated``), in the display's order: an ``INSTANCE`` call of each object, or a ``CALL``
        of its class's method; empty unless every object resolves to a repository class, or when the call sits in
        a lambda (``Scan.deferred``)."""
        head, dot, rest = text.partition(".")
        offers = scan.iterated.get((scope, head), [])
        if len(offers) != 1 or (scope, head) in scan.var_types or "." in rest:
            return []
        names, first, last = offers[0]
        if not names or not first <= line <= last \
                or any(held == scope and start <= line <= end for held, start, end in scan.deferred):
            return []  # after the loop (or in a lambda called later) the variable holds its last object only
        turns = []
        for name in names:
            found = self._resolve_local(module, scan, scope, name + dot + rest, (line, branch))
            if found is None or found[0] == "external":
                return []
            kind, target = found
            if kind == "repo" and target not in self.cg.functions:
                return []  # a class or module, not an object's method
            turns.append((target, INSTANCE if kind == "instance" else CALL))
        return turns

    def _attr_type(self, cls: str, attr: str) -> str | None:
        """The repository class of ``self.attr`` in class ``cls`` when it is one (``_attr_classes``), else ``None``."""
        classes, _ = self._attr_classes(cls, attr)
        return classes[0] if len(classes) == 1 else None

    def _instance_call(self, cls: str | None) -> tuple[str, str] | None:
        """``("instance", method)`` for calling an instance of ``cls``: its ``forward``, else ``__call__``."""
        if cls is None:
            return None
        method = self.find_method(cls, "forward") or self.find_method(cls, "__call__")
        return ("instance", method) if method else None

    def _overrides(self, method: str) -> list[str]:
        """The methods of repository subclasses that override ``method`` (``Base.m`` -> ``Sub.m``)."""
        owner, name = method.rsplit(".", 1)
        return [f"{cls}.{name}" for cls in self.cg.classes
                if cls != owner and f"{cls}.{name}" in self.cg.functions and owner in self.class_mro(cls)]

    def edge(self, source: str, target: str, kind: str, file: str, line: int) -> None:
        """Add an edge of ``kind`` first seen at ``file``:``line``, or add ``line`` to the existing edge (a certain
        kind then replaces ``by_name``). Nothing for unknown nodes or a self-loop."""
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



def _latest_binding(bindings: list[tuple[int, str | None, tuple, bool]], line: int, arms: tuple) -> str | None:
    """The constructor text of the latest of a variable's ``bindings`` (line, constructor, enclosing if/try arms,
    narrows: ``Scan.var_bindings``) above ``line``, when every arm enclosing that binding also encloses the call
    (``arms``): ``if a: d = A() else: d = B()`` leaves ``d`` untyped after the ``if``; an ``isinstance`` narrowing
    counts only within its body. ``None`` when there is no such binding or it is no call of a constructor."""
    inside = set(arms)
    above = [b for b in bindings if b[0] < line and not (b[3] and not set(b[2]) <= inside)]
    if not above:
        return None
    _, ctor, bound_in, _ = above[-1]
    return ctor if set(bound_in) <= inside else None
