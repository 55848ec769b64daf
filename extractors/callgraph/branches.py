"""Branches no run takes: the arms of ``if`` statements whose test has the same value in every run.

A mechanism written out but switched off by the code that runs it does not run (LABELLING.md: code no entry point
reaches is a trace): ``def apply(model, head=None): if head is not None: blend(model, head)`` where no call passes
``head``, or ``highres = None`` ... ``if highres is not None: evaluate_super_resolution()``. ``dead_branches``
evaluates each test over the values a name has in every run (constant propagation), and nothing else:

- a parameter its function never rebinds: the value every call gives it (a literal argument, a parameter of the
  caller known the same way, or the default where a call passes nothing). Known only where every call is seen: the
  function is no method a library may call (``CallGraph.unseen``), carries no decorator that may register or wrap
  it, is neither a dunder method nor ``forward``, and is never passed as a value, named in a string or in a
  configuration file, called as an instance or through ``*args``/``**kwargs``; and nothing in the repository looks
  functions up by a run-time name. Every call with the function's name counts (resolved or not, library calls
  aside), so a same-named method elsewhere only makes the value unknown;
- a name bound exactly once in its scope (a function, or a module with its ``__main__`` block), to a literal, by a
  statement that runs before the test whenever the test runs (earlier in the same block or in a block enclosing
  it); for a module-level name read in a function (or in the module after the block binding it), no function
  declares it ``global``, no other binding or string of that name exists anywhere, and the binding is a statement
  of the module's own top level;
- ``self.<attribute>`` read in a method: bound once, at the top level of its class's own ``__init__``, to a literal
  or to a parameter known as above over every construction of the class (``_attribute_value`` lists what keeps
  it unknown: a repository base or subclass, any other binding of that attribute name, reflection).

Tests read: a name or ``self.<attribute>`` (its truth value), ``not``, ``and``/``or``, and ``is``/``is not``/``==``/
``!=`` between such names and literals; anything else is unknown, and an unknown test decides nothing. A test true
in every run makes its ``else``/``elif`` arms dead, and, when its body ends in
``return``/``raise``/``continue``/``break``, the statements after the ``if`` in its block; a false one makes its
body dead (and, when its ``else`` ends so, the statements after it). A body on the ``if`` line itself is left alone
(lines could not tell it from the test), and so are notebooks (their cells run in any order).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Final

import libcst as cst
from libcst.metadata import CodeRange

from extractors.callgraph.model import BY_NAME, EXTERNAL, INSTANCE, REFERENCE, CallSite, reachable
from extractors.callgraph.scan import decorator_name
from extractors.trees import node_children
from extractors.values import dotted_name
from extractors.words import word_list

if TYPE_CHECKING:
    from extractors.callgraph.resolve import Resolver

_UNKNOWN: Final = object()  # a name whose value differs between runs, or that this analysis cannot tell
_MISSING: Final = object()  # a parameter without a default


class _Defined:
    """The value of a name bound only to the repository's functions or classes: some object, never None, true."""

    def __repr__(self) -> str:
        return "a function or class"


_DEFINED: Final = _Defined()
# Decorators that neither register a function nor change how it is called (extractors/words.yaml)
_PLAIN_DECORATORS = word_list("plain_decorators")
# Methods a framework calls on objects, and attribute names the call graph does not guess callees for: a method so
# named may run without an edge the graph sees (extractors/words.yaml)
_HOOK_NAMES = word_list("framework_hooks") | word_list("common_attributes")
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
# Reflection that may rebind names this analysis reads, as mention texts: a bare name (``exec``, not ``model.eval``)
# or a dotted ending (``.__dict__``). Of module names; of anything, parameter defaults included (``fire.Fire`` hands
# functions to the command line); of attributes.
_MODULE_REFLECTION = frozenset({"exec", "eval", "globals", "setattr", "__import__", ".__dict__", "sys.modules",
                                "import_module", "patch.dict", "patch.object", ".__setattr__"})
_ANY_REFLECTION = frozenset({"exec", "eval", "fire.Fire", ".__defaults__", ".__kwdefaults__", "partialmethod"})
_ATTRIBUTE_REFLECTION = frozenset({"setattr", "vars", ".__dict__", ".__class__", ".__setattr__"})
# Methods libraries call on objects handed to them, whatever their class's bases (scikit-learn's estimator protocol,
# gym's environment protocol, PyTorch's schedulers and optimizers, callbacks): their callers are not all seen
_PROTOCOL_METHODS = frozenset({"fit", "predict", "transform", "fit_transform", "partial_fit", "score",
                               "predict_proba", "decision_function", "get_params", "set_params", "step", "reset",
                               "render", "close", "seed", "update", "forward", "zero_grad", "state_dict",
                               "load_state_dict", "train", "eval", "run", "main", "collate", "save", "load"})
Path = tuple[tuple[int, int], ...]  # (id of a block, index of the statement in it), outermost block first


@dataclass(frozen=True)
class DeadBranch:
    """An arm no run takes: lines ``line``..``end_line`` (1-based, inclusive) of the source ``key`` (a file), in the
    call-graph scope ``scope``; ``guard`` the line of the ``if`` that decides it; ``why`` one sentence naming the test
    and the values that fix it (``"`head is not None` is False in every run (head: None, its default; no call of
    apply passes it, train.py:40)"``)."""

    key: str
    line: int
    end_line: int
    scope: str
    guard: int
    why: str


def dead_branches(r: Resolver, unseen: frozenset[str], starts: tuple[str, ...] | None = None) -> list[DeadBranch]:
    """The arms no run takes in the repository ``r`` resolves (its scans, call sites and parsed modules, after name
    resolution), in scan order. ``unseen`` holds the functions a library may call without a call the graph sees
    (``CallGraph.unseen``): their parameters are never known. ``starts``: the graph nodes of the entry points of a
    repository that runs its own code (``None`` for a library of definitions, whose functions anyone may call): a
    call only functions none of them may reach make is made by no run (``_Analysis._may_run``). Never raises on
    odd code: a test it cannot read decides nothing."""
    return _Analysis(r, unseen, starts).run()


class _Analysis:
    """One repository's evaluation of its ``if`` tests; walks of scopes and parameter values are memoised."""

    def __init__(self, r: Resolver, unseen: frozenset[str], starts: tuple[str, ...] | None) -> None:
        self.r = r
        self.unseen = unseen
        self.starts = starts
        self.dynamic = any(data.get("dynamic") for _, data in r.cg.graph.nodes(data=True))
        self.walks: dict[str, _ScopeWalk | None] = {}
        self.parameters: dict[tuple[str, str], tuple[object, str]] = {}
        self.calls: dict[str, dict[int, list[cst.Call]]] = {}
        self._sites: dict[str, list[CallSite]] | None = None
        self._names: tuple[dict[str, int], frozenset[str]] | None = None
        self._configs: str | None = None
        self._reflects: frozenset[str] | None = None
        self._python: str | None = None
        self._running: frozenset[str] | None = None

    def run(self) -> list[DeadBranch]:
        found: list[DeadBranch] = []
        for module, scan in self.r.scans.items():
            for scope, key, node in scan.ifs:
                if "#" not in key and key in self.r.index.positions:
                    try:
                        found.extend(self._arms(module, scope, key, node))
                    except RecursionError:
                        continue  # a test chaining hundreds of `and`s: it decides nothing
        return found

    # -- tests ------------------------------------------------------------------------------------------------
    def _arms(self, module: str, scope: str, key: str, node: cst.If) -> list[DeadBranch]:
        names = _tested_names(node.test)
        known: dict[str, tuple[object, str]] = {}
        for name in names:
            value, reason = self._lookup(module, scope, key, name, node)
            if value is not _UNKNOWN:
                known[name] = (value, reason)
        outcome = _truth(node.test, {name: value for name, (value, _) in known.items()}) if known else None
        if outcome is None:
            return []
        positions = self.r.index.positions[key]
        test = cst.Module([]).code_for_node(node.test).strip()
        why = f"`{test}` is {outcome} in every run (" + "; ".join(
            f"{name}: {value!r}, {reason}" for name, (value, reason) in known.items()) + ")"
        guard = positions[node].start.line
        arms: list[tuple[int, int]] = []
        if outcome is False:
            arms.append(_suite_lines(node.body, positions))
        elif isinstance(node.orelse, cst.Else):
            arms.append(_suite_lines(node.orelse.body, positions))
        elif isinstance(node.orelse, cst.If):
            arms.append((positions[node.orelse].start.line, positions[node.orelse].end.line))
        taken = node.body if outcome else node.orelse.body if isinstance(node.orelse, cst.Else) else None
        if taken is not None and _exits(taken):
            arms.append(self._after(module, scope, key, node, positions))
        return [DeadBranch(key, start, end, scope, guard, why) for start, end in arms if 0 < start <= end]

    def _after(self, module: str, scope: str, key: str, node: cst.If,
               positions: Mapping[cst.CSTNode, CodeRange]) -> tuple[int, int]:
        """The lines of the statements after ``node`` in its block (``(0, 0)`` when none or not known)."""
        walk = self._walk_of(module, scope, key)
        place = walk.places.get(id(node)) if walk is not None else None
        if walk is None or not place:
            return 0, 0
        block, index = place[-1]
        following = walk.blocks.get(block, ())[index + 1:]
        if not following:
            return 0, 0
        return _first_line(following[0], positions), positions[following[-1]].end.line

    # -- names ------------------------------------------------------------------------------------------------
    def _walk_of(self, module: str, scope: str, key: str) -> _ScopeWalk | None:
        info = self.r.cg.functions.get(scope)
        if info is not None:
            return self._function_walk(scope)
        return self._module_walk(module) if scope in (module, f"{module}.__main__") else None

    def _lookup(self, module: str, scope: str, key: str, name: str, at: cst.If | None) -> tuple[object, str]:
        """(value, why it is that value) of ``name`` read by the test ``at`` in ``scope`` (``at`` ``None``: read by
        a call's argument, whose place in its scope is not known), or (``_UNKNOWN``, "")."""
        if name.startswith("self."):
            return self._own_attribute(scope, name[len("self."):])
        info = self.r.cg.functions.get(scope)
        if info is not None:
            walk = self._function_walk(scope)
            if walk is None or walk.opaque or name in walk.declared:
                return _UNKNOWN, ""
            if name in walk.parameters:
                return self._parameter(scope, name) if name not in walk.bindings else (_UNKNOWN, "")
            if name in walk.bindings:
                value, why = self._local(walk, key, name, at)
                return (value, why) if value is not _UNKNOWN else self._defined(walk, info.module, key, name)
            if self._nested(info.qualname):
                return _UNKNOWN, ""  # in a function (or a class) nested in a function: the enclosing names come first
            return self._module_constant(module, name, None)
        if scope in (module, f"{module}.__main__"):
            return self._module_constant(module, name, at)
        return _UNKNOWN, ""

    def _nested(self, qualname: str) -> bool:
        parts = qualname.split(".")
        return any(".".join(parts[:end]) in self.r.cg.functions for end in range(1, len(parts)))

    def _local(self, walk: _ScopeWalk, key: str, name: str, at: cst.If | None) -> tuple[object, str]:
        """A name bound once, to a literal, by a statement that runs before ``at`` does."""
        bindings = walk.bindings.get(name, [])
        if len(bindings) != 1 or at is None:
            return _UNKNOWN, ""
        path, value, line = bindings[0]
        place = walk.places.get(id(at))
        if value is _UNKNOWN or place is None or not _dominates(path, place):
            return _UNKNOWN, ""
        return value, f"bound once, at {key}:{line}"

    def _defined(self, walk: _ScopeWalk, module: str, key: str, name: str) -> tuple[object, str]:
        """``_DEFINED`` for a local every binding of which names a function or class of the repository
        (``fn = top_k_oracle`` in one arm, ``fn = margin_oracle`` in another): wherever a read of it runs, it holds
        one of them (unbound, the read raises and nothing after it runs). Else (``_UNKNOWN``, "")."""
        bindings = walk.bindings.get(name, [])
        named = walk.named.get(name, [])
        if not bindings or len(named) != len(bindings):
            return _UNKNOWN, ""
        counts, _ = self._name_uses()
        for text in named:
            if text in walk.bindings or text in walk.parameters or counts.get(text, 0):
                return _UNKNOWN, ""  # a local of the function, or a name assigned somewhere: not only the definition
            resolved = self.r.resolve(text, module)
            if resolved is None or resolved[0] != "repo" or (
                    resolved[1] not in self.r.cg.functions and resolved[1] not in self.r.cg.classes):
                return _UNKNOWN, ""
        lines = ", ".join(f"{key}:{line}" for _, _, line in bindings)
        return _DEFINED, f"bound only to the repository's {', '.join(sorted(set(named)))} ({lines})"

    def _module_constant(self, module: str, name: str, at: cst.If | None) -> tuple[object, str]:
        walk = self._module_walk(module)
        if walk is None or walk.opaque or name in walk.declared:
            return _UNKNOWN, ""
        bindings = walk.bindings.get(name, [])
        if len(bindings) != 1:
            return _UNKNOWN, ""
        path, value, line = bindings[0]
        if value is _UNKNOWN:
            return _UNKNOWN, ""
        place = walk.places.get(id(at)) if at is not None else None
        if at is not None and (place is None or not _dominates(path, place)):
            return _UNKNOWN, ""  # a test in a class body (its own names come first), or before the binding
        counts, strings = self._name_uses()
        if (len(path) != 1 and at is None) or counts.get(name, 0) > 1 or name in strings or self._in_configs(name) \
                or self._reflective(_MODULE_REFLECTION) or self._attribute_anywhere(name):
            return _UNKNOWN, ""  # rebound from elsewhere: exec/globals()/setattr, config.name = ..., a launcher
        return value, f"bound once, at {self.r.scans[module].file}:{line}"

    def _name_uses(self) -> tuple[dict[str, int], frozenset[str]]:
        """How many bindings of each name the repository's code makes (any scope: an attribute assignment
        ``cfg.name = ...`` counts under ``name``), and the names its string literals may look up: each string
        that is not a dict key or subscript, up to its last dot."""
        if self._names is None:
            counts: dict[str, int] = {}
            strings: set[str] = set()
            for mentions in self.r.cg.mentions.values():
                for mention in mentions:
                    if mention.kind == "binding":
                        counts[mention.text] = counts.get(mention.text, 0) + 1
                    elif mention.kind == "string" and not mention.context.startswith("key:"):
                        # a name in a string may be looked up or run (setattr(cfg, "x", v), "pkg.mod.f",
                        # [sys.executable, "-c", "f(x, flag=True)"]); a dict key is data (results["wise_sweep"])
                        strings.update(re.findall(r"[A-Za-z_]\w*", mention.text))
            self._names = counts, frozenset(strings)
        return self._names

    def _in_configs(self, name: str) -> bool:
        """Whether a small text file of the repository other than Python code and prose (a configuration file, a
        shell script, a Makefile, a job script, a script without a suffix) holds ``name`` as a word: it may run or
        name it."""
        if self._configs is None:
            self._configs = "\n".join(["\n".join(lines) for key, lines in self.r.index.lines.items()
                                       if not key.split("#", 1)[0].endswith(_NOT_RUN_TEXT)
                                       and sum(map(len, lines)) <= _TEXT_BYTES]
                                      + _unindexed_texts(self.r.index.root, self.r.index.lines))
        return re.search(rf"\b{re.escape(name)}\b", self._configs) is not None

    # -- parameters -------------------------------------------------------------------------------------------
    def _parameter(self, function: str, name: str) -> tuple[object, str]:
        """(value, why) of parameter ``name`` of ``function`` in every run, or (``_UNKNOWN``, "")."""
        key = (function, name)
        if key not in self.parameters:
            self.parameters[key] = (_UNKNOWN, "")  # a recursive call chain: unknown while being evaluated
            self.parameters[key] = self._parameter_value(function, name)
        return self.parameters[key]

    def _parameter_value(self, function: str, name: str) -> tuple[object, str]:
        info = self.r.cg.functions[function]
        node = info.node
        owner = info.class_name.rsplit(".", 1)[-1] if info.class_name else ""
        if (function in self.unseen or info.name.startswith("__") or (owner and info.name in _PROTOCOL_METHODS)
                or any(decorator_name(d) not in ("staticmethod", "classmethod") for d in node.decorators)
                or self._handled(function, info.name) or self._reflective(frozenset())):
            return _UNKNOWN, ""
        return self._given(function, info.name, _Signature(node, info.class_name is not None, owner), name)

    def _handled(self, function: str, short: str) -> bool:
        """Whether code uses the function other than by calling it by name (``step = trainer.fit``,
        ``apply.__call__(...)``, ``partialmethod(run, ...)``), or defines it twice (``if cuda: def pick ...
        else: def pick ...``): its calls are then not all seen."""
        definitions = sum(m.kind == "definition" and m.text == short for m in self.r.cg.mentions.get(function, ()))
        if definitions > 1:
            return True
        for mentions in self.r.cg.mentions.values():
            for m in mentions:
                if m.kind not in ("name", "binding") or short not in m.text.split("."):
                    continue
                parts = m.text.split(".")
                callee = m.context[len("arg:"):].split("=", 1)[0] if m.context.startswith("arg:") else ""
                # the called name's own parts count as the call: ``self.fit`` in ``self.fit(x)``, ``fit`` in
                # ``Runner().fit()`` (whose callee is no dotted name: context ``arg:``)
                if parts[-1] != short or not (m.context in ("call", "arg:") or callee.split(".")[-1] == short):
                    return True  # read as a value, or as the receiver of something else (apply.__call__)
        return False

    def _given(self, callee: str, short: str, signature: _Signature, name: str) -> tuple[object, str]:
        """(value, why) of parameter ``name`` of ``signature`` over every call of the name ``short`` (the function,
        or the class whose ``__init__`` it is: the graph node ``callee``), or (``_UNKNOWN``, "")."""
        _, strings = self._name_uses()
        sites = self._sites_named().get(short, [])
        if self.dynamic or short in strings or self._in_configs(short) or name not in signature.names \
                or not any(site.callee == callee for site in sites):
            return _UNKNOWN, ""  # a same-named call of something else (model.train()) proves nothing alone
        named = {(site.scope, site.line) for site in sites}
        g = self.r.cg.graph
        if any(g.edges[caller, callee]["kind"] == BY_NAME and any(
                (caller, line) not in named for line in g.edges[caller, callee]["lines"])
               for caller in g.predecessors(callee)):
            return _UNKNOWN, ""  # picked from a namespace by a run-time name (vars(models)[name](...))
        values: set[tuple[type, object]] = set()
        passed = False
        counted: list[CallSite] = []
        for site in sites:
            if site.kind in (REFERENCE, INSTANCE):
                return _UNKNOWN, ""  # handed over or called as an instance: its calls are not these
            if site.scope in self.r.cg.functions and site.scope not in self._may_run():
                continue  # a call in a function no run reaches gives the parameter nothing
            counted.append(site)
            calls = self._calls_at(site, short)
            if not calls:
                return _UNKNOWN, ""
            for call in calls:
                argument = signature.argument(call, name)
                value: object = _UNKNOWN
                if argument is _MISSING:
                    value = signature.defaults.get(name, _UNKNOWN)
                elif isinstance(argument, cst.BaseExpression):
                    passed = True
                    value = self._value_of(argument, site)
                if value is _UNKNOWN:
                    return _UNKNOWN, ""
                values.add((type(value), value))
        if len(values) != 1:
            return _UNKNOWN, ""
        value = next(iter(values))[1]
        if passed:
            which = "every call" if len(counted) == len(sites) else "every call that may run"
            return value, f"{which} of {short} gives it that, {counted[0].ref}"
        return value, f"its default; no call of {short} passes it, {counted[0].ref}"

    def _may_run(self) -> frozenset[str]:
        """The functions some run may execute, a superset of what liveness later finds (every function where the
        repository is a library, ``starts`` ``None``): whatever any edge of the graph, guesses by name included,
        reaches from the entry points, from the functions a library, a framework or a decorator may call
        (``unseen``, hooks and dunders, decorated ones, methods named like a common attribute, which get no guessed
        edges) and from those a string or a configuration file names. A call made only inside the other functions
        is made by no run (LABELLING.md: code no entry point reaches is a trace)."""
        if self._running is None and self.starts is None:
            self._running = frozenset(self.r.cg.functions)
        if self._running is None:
            g = self.r.cg.graph
            _, strings = self._name_uses()
            starts = [node for node in self.starts or () if node in g]
            starts += [q for q, info in self.r.cg.functions.items()
                       if q in self.unseen or info.node.decorators or info.name.startswith("__")
                       or info.name in _HOOK_NAMES or info.name in _PROTOCOL_METHODS or info.name in strings
                       or self._in_configs(info.name)]
            self._running = frozenset(reachable(g, starts))
        return self._running

    def _own_attribute(self, scope: str, attribute: str) -> tuple[object, str]:
        """(value, why) of ``self.attribute`` read in the method ``scope``: what its class's ``__init__`` binds it
        to, or (``_UNKNOWN``, "")."""
        info = self.r.cg.functions.get(scope)
        walk = self._function_walk(scope) if info is not None else None
        if info is None or walk is None or info.class_name is None or info.name == "__init__" \
                or _Signature(info.node, False).positional[:1] != ["self"] or "self" in walk.bindings \
                or self._nested(info.qualname):
            return _UNKNOWN, ""
        key = (info.class_name, "self." + attribute)
        if key not in self.parameters:
            self.parameters[key] = (_UNKNOWN, "")
            self.parameters[key] = self._attribute_value(info.class_name, attribute)
        return self.parameters[key]

    def _attribute_value(self, cls: str, attribute: str) -> tuple[object, str]:
        """``self.attribute`` of every instance of ``cls``: bound once, at the top level of the class's own
        ``__init__``, to a literal or to a parameter every construction gives one value; known only for a class
        with no repository base or subclass, nothing registering it, and no other binding of that attribute name
        anywhere (``obj.attribute = ...``), nor ``setattr``, ``__dict__`` or ``vars``, nor a construction through
        ``cls(...)`` or ``type(self)(...)`` in its methods."""
        init = f"{cls}.__init__"
        walk = self._function_walk(init) if init in self.r.cg.functions else None
        counts, strings = self._name_uses()
        if walk is None or walk.opaque or self._reflective(_ATTRIBUTE_REFLECTION) or counts.get(attribute, 0) != 1 \
                or attribute in strings or self._in_configs(attribute) or self._subclassed(cls) \
                or self._bound_elsewhere(cls, attribute) or any(
                    m.text.endswith(".__init__") for ms in self.r.cg.mentions.values() for m in ms):
            return _UNKNOWN, ""
        bindings = walk.attributes.get(attribute, [])
        if len(bindings) != 1 or len(bindings[0][0]) != 1:
            return _UNKNOWN, ""
        _, value_node, line = bindings[0]
        where = f"{self.r.cg.functions[init].file}:{line}"
        value = _literal(value_node)
        if value is not _UNKNOWN:
            return value, f"bound once, at {where}"
        if not isinstance(value_node, cst.Name) or value_node.value not in walk.parameters \
                or value_node.value in walk.bindings:
            return _UNKNOWN, ""
        value, why = self._given(cls, cls.rsplit(".", 1)[-1], _Signature(self.r.cg.functions[init].node, True, ""),
                                 value_node.value)
        return (value, f"bound at {where} to {value_node.value}, {why}") if value is not _UNKNOWN else (_UNKNOWN, "")

    def _reflective(self, kinds: frozenset[str]) -> bool:
        """Whether the repository's code names one of ``kinds`` (or ``_ANY_REFLECTION``) anywhere: a mention whose
        text is the bare name, or ends with the dotted one: reflection that may rebind names this analysis reads."""
        if self._reflects is None:
            # a bare name counts only where it is called (exec(...), globals()): ``eval`` in ``model.eval()`` is
            # a part of another name
            self._reflects = frozenset(m.text for mentions in self.r.cg.mentions.values() for m in mentions
                                       if m.kind == "name" and ("." in m.text or m.context == "call"))
        wanted = kinds | _ANY_REFLECTION
        return any(text in wanted or any(text.endswith(w) and (w[0] == "." or text.endswith("." + w))
                                         for w in wanted if "." in w) for text in self._reflects)

    def _attribute_anywhere(self, name: str) -> bool:
        """Whether any Python source of the repository writes ``<something>.name``: a module name read or set as an
        attribute (``config.use_amp = True``, ``for config.use_amp in ...``) may change."""
        return self._in_python(re.compile(rf"\.[ \t]*{re.escape(name)}\b"))  # within a line

    def _in_python(self, pattern: re.Pattern) -> bool:
        """Whether a line of the repository's Python sources (notebook cells included) matches ``pattern``; the
        sources' text is joined once per repository."""
        if self._python is None:
            self._python = "\n".join("\n".join(lines) for key, lines in self.r.index.lines.items()
                                      if key.split("#", 1)[0].endswith((".py", ".ipynb")))
        return pattern.search(self._python) is not None

    def _bound_elsewhere(self, cls: str, attribute: str) -> bool:
        """Whether ``self.attribute`` is bound in a method of ``cls`` other than ``__init__``, or any source binds
        ``<something>.attribute`` as a loop or ``with`` target (``for r.ema in ...``)."""
        for method in self.r.methods_of.get(cls, ()):
            walk = self._function_walk(method) if not method.endswith(".__init__") else None
            if walk is not None and attribute in walk.attributes:
                return True
        return self._in_python(re.compile(rf"\b(?:for|as)[ \t]+[\w., \t]*\.{re.escape(attribute)}\b"))

    def _subclassed(self, cls: str) -> bool:
        """Whether ``cls`` has a repository base or subclass, is registered by a decorator, has a classmethod (a
        factory), or the repository calls ``type(...)`` anywhere (``type(model)(...)`` builds one)."""
        if len(self.r.class_mro(cls)) > 1 or any(cls in self.r.class_mro(other)[1:] for other in self.r.cg.classes):
            return True
        if any(cls in scan.registered for scan in self.r.scans.values()):
            return True
        if any(decorator_name(d) == "classmethod" for method in self.r.methods_of.get(cls, ())
               for d in self.r.cg.functions[method].node.decorators):
            return True  # a factory may build it with other arguments (klass(...))
        return any(m.text == "type" and m.context == "call"
                   for mentions in self.r.cg.mentions.values() for m in mentions)  # type(model)(...)

    def _value_of(self, argument: cst.BaseExpression, site: CallSite) -> object:
        """The value of a call's argument in every run: a literal, or a name of the calling scope known so."""
        value = _literal(argument)
        if value is not _UNKNOWN or type(argument) is not cst.Name:
            return value
        module = self.r.cg.functions[site.scope].module if site.scope in self.r.cg.functions else None
        if module is None:
            return _UNKNOWN  # module-level code: where the name is bound relative to the call is not known
        return self._lookup(module, site.scope, site.where, argument.value, None)[0]

    def _sites_named(self) -> dict[str, list[CallSite]]:
        """Every call site of the repository by the called name's last component, library calls aside."""
        if self._sites is None:
            self._sites = {}
            for sites in self.r.cg._sites.values():
                for site in sites:
                    if site.kind != EXTERNAL:
                        self._sites.setdefault(site.target.rsplit(".", 1)[-1], []).append(site)
        return self._sites

    def _calls_at(self, site: CallSite, short: str) -> list[cst.Call]:
        """The calls of the name ``short`` that start on the site's line."""
        key = site.where
        if key not in self.calls:
            by_line: dict[int, list[cst.Call]] = {}
            positions = self.r.index.positions.get(key) if key in self.r.index.positions else None
            for node, where in (positions or {}).items():
                if type(node) is cst.Call:
                    by_line.setdefault(where.start.line, []).append(node)
            self.calls[key] = by_line
        return [call for call in self.calls[key].get(site.line, ())
                if (type(call.func) is cst.Name and call.func.value == short)
                or (type(call.func) is cst.Attribute and call.func.attr.value == short)]

    # -- walks ------------------------------------------------------------------------------------------------
    def _function_walk(self, function: str) -> _ScopeWalk | None:
        if function not in self.walks:
            info = self.r.cg.functions[function]
            positions = self.r.index.positions.get(info.file) if info.file in self.r.index.positions else None
            self.walks[function] = None if positions is None else _ScopeWalk(
                info.node.body.body, positions, _Signature(info.node, False).names)
        return self.walks[function]

    def _module_walk(self, module: str) -> _ScopeWalk | None:
        if module not in self.walks:
            key = self.r.scans[module].file
            tree = self.r.index.modules.get(key) if key in self.r.index.modules else None
            positions = self.r.index.positions.get(key) if tree is not None else None
            self.walks[module] = None if tree is None or positions is None else _ScopeWalk(tree.body, positions, ())
        return self.walks[module]


class _Signature:
    """A function's parameters: ``names`` all of them, ``positional`` those a positional argument fills in order
    (after the ``self``/``cls`` a method call binds, when ``method``), ``defaults`` the literal defaults
    (``_UNKNOWN`` for any other expression)."""

    def __init__(self, node: cst.FunctionDef, method: bool, owner: str = "") -> None:
        self.owner = owner  # the class's own name, for a method
        params = node.params
        ordered = [*params.posonly_params, *params.params]
        self.static = any(decorator_name(d) == "staticmethod" for d in node.decorators)
        self.implicit = 1 if method and not self.static else 0
        self.positional = [p.name.value for p in ordered]
        self.positional_only = frozenset(p.name.value for p in params.posonly_params)
        self.keyword_only = [p.name.value for p in params.kwonly_params]
        self.varargs = isinstance(params.star_arg, cst.Param)
        self.defaults = {p.name.value: _literal(p.default) for p in (*ordered, *params.kwonly_params)
                         if p.default is not None}
        stars = [p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        self.names = frozenset(self.positional + self.keyword_only + stars)
        self.classmethod = any(decorator_name(d) == "classmethod" for d in node.decorators)

    def argument(self, call: cst.Call, name: str) -> object:
        """The argument ``call`` gives parameter ``name``: an expression, ``_MISSING`` when it gives none, or
        ``_UNKNOWN`` when that cannot be told (``*args``/``**kwargs`` at the call, more positional arguments than
        the function takes, ``name`` collected by ``*args``/``**kwargs``)."""
        positional: list[cst.BaseExpression] = []
        for arg in call.args:
            if arg.star:
                return _UNKNOWN
            if arg.keyword is not None:
                if arg.keyword.value == name and name not in self.positional_only:
                    return arg.value
            else:
                positional.append(arg.value)
        if name not in self.positional and name not in self.keyword_only:
            return _UNKNOWN
        # Class.method(obj, ...) passes self itself: the receiver is then the class's own name
        receiver = call.func.value if type(call.func) is cst.Attribute else None
        explicit = (self.implicit and not self.classmethod and type(receiver) is cst.Name
                    and receiver.value == self.owner)
        slots = self.positional[self.implicit if not explicit else 0:]
        given = set(slots[:len(positional)]) | {arg.keyword.value for arg in call.args if arg.keyword is not None}
        if (len(positional) > len(slots) and not self.varargs) or any(
                slot not in self.defaults and slot not in given for slot in slots + self.keyword_only):
            return _UNKNOWN  # not this function's call: too many arguments, or a required one missing
        if name in slots and slots.index(name) < len(positional):
            return positional[slots.index(name)]
        return _MISSING


class _ScopeWalk:
    """The names one scope's own statements bind (nested functions and classes bind only their own name there):
    ``bindings`` name -> [(path, literal value or ``_UNKNOWN``, line)], ``attributes`` the same for ``self.<name>``
    with the bound expression, ``places`` id of each ``if`` statement ->
    its path, ``blocks`` id of each block -> its statements, ``declared`` the names a ``global``/``nonlocal``
    statement names here or in a nested function, ``opaque`` when a star import or ``match`` statement may bind
    any name. ``parameters`` the scope's parameter names."""

    def __init__(self, statements: Sequence[cst.CSTNode], positions: Mapping[cst.CSTNode, CodeRange],
                 parameters: frozenset[str] | tuple[()]) -> None:
        self.positions = positions
        self.parameters = frozenset(parameters)
        self.bindings: dict[str, list[tuple[Path, object, int]]] = {}
        # name -> the plain names (not None/True/False) its bindings assign to it alone (``fn = top_k_oracle``)
        self.named: dict[str, list[str]] = {}
        # attribute -> [(path, the value's expression when one expression is bound to it alone, line)] of self.<attr>
        self.attributes: dict[str, list[tuple[Path, cst.BaseExpression | None, int]]] = {}
        self.places: dict[int, Path] = {}
        self.blocks: dict[int, Sequence[cst.CSTNode]] = {}
        self.declared: set[str] = set()
        self.opaque = False
        self._block(statements, (), id(statements))

    def _block(self, statements: Sequence[cst.CSTNode], path: Path, block: int) -> None:
        self.blocks[block] = statements
        for index, statement in enumerate(statements):
            self._statement(statement, (*path, (block, index)))

    def _suite(self, suite: cst.BaseSuite, path: Path) -> None:
        self._block(suite.body, path, id(suite))

    def _statement(self, node: cst.CSTNode, here: Path) -> None:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self._small(small, here, node)
        elif isinstance(node, cst.If):
            self.places[id(node)] = here
            self._expression(node.test, here)
            self._suite(node.body, here)
            if isinstance(node.orelse, cst.Else):
                self._suite(node.orelse.body, here)
            elif isinstance(node.orelse, cst.If):
                self._block([node.orelse], here, id(node.orelse))
        elif isinstance(node, (cst.For, cst.While)):
            if isinstance(node, cst.For):
                self._target(node.target, here, node)
                self._expression(node.iter, here)
            else:
                self._expression(node.test, here)
            self._suite(node.body, here)
            if node.orelse is not None:
                self._suite(node.orelse.body, here)
        elif isinstance(node, (cst.Try, cst.TryStar)):
            self._suite(node.body, here)
            for handler in node.handlers:
                if handler.name is not None:
                    self._target(handler.name.name, here, node)
                self._suite(handler.body, here)
            for part in (node.orelse, node.finalbody):
                if part is not None:
                    self._suite(part.body, here)
        elif isinstance(node, cst.With):
            for item in node.items:
                self._expression(item.item, here)
                if item.asname is not None:
                    self._target(item.asname.name, here, node)
            self._suite(node.body, here)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._bind(node.name.value, here, _UNKNOWN, node)
            self._declarations(node)
        elif isinstance(node, cst.BaseSmallStatement):  # a statement of a suite on its header's line
            self._small(node, here, node)
        else:  # match, and statements Python may add: any name may be bound there
            self.opaque = True

    def _small(self, node: cst.CSTNode, here: Path, line_of: cst.CSTNode) -> None:
        if isinstance(node, cst.Assign):
            value = _literal(node.value)
            single = node.value if len(node.targets) == 1 else None
            for target in node.targets:
                self._target(target.target, here, line_of, value, single)
                if isinstance(target.target, cst.Name) and isinstance(node.value, cst.Name) and value is _UNKNOWN:
                    self.named.setdefault(target.target.value, []).append(node.value.value)
            self._expression(node.value, here)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self._target(node.target, here, line_of, _literal(node.value), node.value)
                self._expression(node.value, here)
        elif isinstance(node, (cst.AugAssign, cst.Del)):
            self._target(node.target, here, line_of)
        elif isinstance(node, cst.Import):
            for alias in node.names:
                bound: cst.BaseExpression = alias.asname.name if alias.asname is not None else alias.name
                while isinstance(bound, cst.Attribute):
                    bound = bound.value
                self._target(bound, here, line_of)
        elif isinstance(node, cst.ImportFrom):
            if isinstance(node.names, cst.ImportStar):
                self.opaque = True
            else:
                for name in node.names:
                    self._target(name.asname.name if name.asname is not None else name.name, here, line_of)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            self.declared.update(item.name.value for item in node.names)
        else:
            self._expression(node, here)

    def _target(self, node: cst.CSTNode, here: Path, line_of: cst.CSTNode, value: object = _UNKNOWN,
                expression: cst.BaseExpression | None = None) -> None:
        if isinstance(node, cst.Name):
            self._bind(node.value, here, value, line_of)
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            line = self.positions[line_of].start.line if line_of in self.positions else 0
            self.attributes.setdefault(node.attr.value, []).append((here, expression, line))
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value, here, line_of)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value, here, line_of)
        else:
            self._expression(node, here)

    def _bind(self, name: str, here: Path, value: object, line_of: cst.CSTNode) -> None:
        line = self.positions[line_of].start.line if line_of in self.positions else 0
        self.bindings.setdefault(name, []).append((here, value, line))

    def _expression(self, node: cst.CSTNode, here: Path) -> None:
        """Bindings an expression makes (``(n := ...)``), and the names its comprehensions and lambdas bind: inside
        them a name of the scope is another variable, so it is counted as bound again."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.NamedExpr):
                self._target(current.target, here, current)
            elif isinstance(current, cst.CompFor):
                self._target(current.target, here, current)  # shadows the scope's name inside the comprehension
            if isinstance(current, cst.Lambda):
                for param in current.params.params:
                    self._bind(param.name.value, here, _UNKNOWN, current)  # shadows it inside the lambda
            else:
                stack.extend(node_children(current))

    def _declarations(self, node: cst.CSTNode) -> None:
        """The names a nested function or class declares ``global`` or ``nonlocal``."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Global, cst.Nonlocal)):
                self.declared.update(item.name.value for item in current.names)
            else:
                stack.extend(node_children(current))


_BINARY = (".png", ".jpg", ".jpeg", ".gif", ".pt", ".pth", ".bin", ".npy", ".npz", ".gz", ".zip", ".tar", ".pkl",
           ".h5", ".hdf5", ".ckpt", ".safetensors", ".pdf", ".so", ".pyc", ".mp4", ".wav", ".parquet", ".arrow")
_TEXT_BYTES = 1 << 16  # a job script, a Makefile or a config is small; larger files are data or reports
# Python (its calls are read), notebooks (their cells too) and prose (documentation runs nothing)
_NOT_RUN_TEXT = (".py", ".ipynb", ".md", ".rst", ".txt", ".html", ".tex")


def _unindexed_texts(root: str | None, indexed: Mapping[str, object]) -> list[str]:
    """The text of the small files below ``root`` the index did not read (a Makefile, a ``.slurm`` job, ``tox.ini``,
    a script without a suffix): any of them may run the repository's functions with other arguments. Hidden
    folders and files that are data by their suffix are skipped; unreadable files too."""
    if root is None:
        return []
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        folders[:] = [f for f in folders if not f.startswith(".") and f != "__pycache__"]
        for name in files:
            path = FilePath(folder, name)
            key = path.relative_to(root).as_posix()
            if key in indexed or name.lower().endswith(_BINARY) or name.endswith(_NOT_RUN_TEXT):
                continue
            try:
                if path.stat().st_size <= _TEXT_BYTES:
                    found.append(path.read_text(errors="ignore"))
            except OSError:
                continue
    return found


def _dominates(binding: Path, place: Path) -> bool:
    """Whether the statement at path ``binding`` runs before the one at ``place`` whenever that one runs: an
    earlier statement of the same block or of a block enclosing it."""
    depth = len(binding)
    return (len(place) >= depth and place[:depth - 1] == binding[:depth - 1]
            and place[depth - 1][0] == binding[-1][0] and place[depth - 1][1] > binding[-1][1])


def _suite_lines(suite: cst.BaseSuite, positions: Mapping[cst.CSTNode, CodeRange]) -> tuple[int, int]:
    """The first and last line of the statements of an indented block; ``(0, 0)`` for a suite on its header's line
    (lines cannot tell it from the test)."""
    if not isinstance(suite, cst.IndentedBlock) or not suite.body:
        return 0, 0
    return _first_line(suite.body[0], positions), positions[suite.body[-1]].end.line


def _first_line(statement: cst.CSTNode, positions: Mapping[cst.CSTNode, CodeRange]) -> int:
    """A statement's first line, its decorators' included (libcst's range of a ``def`` starts at ``def``)."""
    decorators = getattr(statement, "decorators", ())
    return positions[decorators[0]].start.line if decorators else positions[statement].start.line


def _exits(suite: cst.BaseSuite) -> bool:
    """Whether a block always leaves its enclosing block: its last statement returns, raises, continues or breaks."""
    if not suite.body:
        return False
    last = suite.body[-1]
    smalls = last.body if isinstance(last, cst.SimpleStatementLine) else [last]
    return bool(smalls) and isinstance(smalls[-1], _EXITS)


def _literal(node: cst.BaseExpression | None) -> object:
    """The value of a literal: ``None``, ``True``, ``False``, a number (signed) or a string; else ``_UNKNOWN``."""
    if isinstance(node, cst.Name):
        return {"None": None, "True": True, "False": False}.get(node.value, _UNKNOWN)
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        try:
            value = node.evaluated_value
        except (ValueError, SyntaxError):
            return _UNKNOWN
        return value if not isinstance(value, bytes) else _UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _literal(node.expression)
        return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else _UNKNOWN
    return _UNKNOWN


def _tested_names(test: cst.BaseExpression) -> list[str]:
    """The plain names a test reads where ``_truth`` can use their values (not inside calls or attributes)."""
    if isinstance(test, cst.Name):
        return [] if test.value in ("None", "True", "False") else [test.value]
    if _own(test):
        return [dotted_name(test) or ""]
    if isinstance(test, cst.BooleanOperation):
        return _tested_names(test.left) + _tested_names(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _tested_names(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        return [name for operand in (test.left, test.comparisons[0].comparator) for name in _tested_names(operand)]
    return []


def _truth(test: cst.BaseExpression, values: Mapping[str, object]) -> bool | None:
    """The truth value of ``test`` given the names' ``values`` (three-valued: ``None`` when unknown)."""
    if isinstance(test, cst.BooleanOperation):
        left = _truth(test.left, values)
        if isinstance(test.operator, cst.And):
            if left is False:
                return False
            right = _truth(test.right, values)
            return False if right is False else True if left and right else None
        if left is True:
            return True
        right = _truth(test.right, values)
        return True if right is True else False if left is False and right is False else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, values)
        return None if inner is None else not inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        first, second = _operand(test.left, values), _operand(test.comparisons[0].comparator, values)
        operator = test.comparisons[0].operator
        if first is _UNKNOWN or second is _UNKNOWN:
            return None
        if isinstance(operator, (cst.Is, cst.IsNot)):
            if _DEFINED in (first, second) and None in (first, second):
                return isinstance(operator, cst.IsNot)  # a function or class is not None
            if not all(v is None or type(v) is bool for v in (first, second)):
                return None  # identity of numbers and strings is an implementation detail
            return (first is second) == isinstance(operator, cst.Is)
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            if _DEFINED in (first, second):
                return None  # a class may define its own equality
            return (first == second) == isinstance(operator, cst.Equal)
        return None
    if isinstance(test, cst.Name) or _own(test):
        value = _operand(test, values)
        return None if value is _UNKNOWN else True if value is _DEFINED else bool(value)
    return None


def _operand(node: cst.BaseExpression, values: Mapping[str, object]) -> object:
    if isinstance(node, cst.Name) and node.value in values:
        return values[node.value]
    if _own(node):
        return values.get(dotted_name(node) or "", _UNKNOWN)
    return _literal(node)


def _own(node: cst.BaseExpression) -> bool:
    """Whether ``node`` reads an attribute of ``self`` (``self.use_ema``)."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"
