"""Candidate expressions for the D2 rule: every assignment and return value of the repository, as sympy.

Within a function body (and a module's top-level code) statements are read in source order and each local definition
is substituted into the expressions after it (def-use along the statement order, branches read in sequence), so that
a formula split over several local variables reads as one expression. A call of a small helper of the repository (a
function of the same module, a method of the same class, or a function whose name is unique in the repository) is
inlined when the helper returns one expression (or several that read alike): ``justnorm(h)`` reads as ``h /
sqrt(sum(h**2))``; one returning a value per mode reads as ``choice(call, *values)`` (``CHOICE``), as does a call of
a module the repository builds itself (its ``forward``, also when the construction is moved or cast:
``Policy(d).to(device)``) or of an activation a helper picks by configuration. Unpacking binds each name to its part
(Python evaluates the right side first): of a tuple of as many values (``q, k = self.w_q(x), self.w_k(x)``; ``a, b =
b, a`` swaps), of a call whose helper (or module's ``forward``) returns tuples of as many values (``mse, mae =
split_errors(pred, target)``), and of a library call or module whose outputs the operations table names (``w, idx =
torch.topk(p, k)``, ``a, g = x.chunk(2, -1)``, ``_, h = self.gru(x, h0)``; ``extractors.formulas.output_part``). A
lambda's body is a candidate of the name it is assigned to (or of the return). An element update in a loop
(``probs[i] *= p``) accumulates into its array. Nothing is executed; see ``extractors.formulas`` for the translation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Callable, cast

import libcst as cst
import networkx
import sympy
from sympy.core.function import AppliedUndef

from extractors.callgraph import CALL, build_call_graph
from extractors.callgraph.model import module_name
from extractors.facts import RepositoryIndex
from extractors.formulas import Operations, Translator, apply_operation, output_part, source_text
from extractors.sympy_graph import dag_nodes, dag_size, sprawls, substitute
from extractors.python_facts import child_nodes
from extractors.trees import token_classes, visit
from extractors.values import dotted_name, keyed_name
from extractors.visitor import Visitor
from sau.vocabulary import Location, split_where

MAX_EXPRESSION_NODES = 400  # a definition larger than this stays a name: bounds the work of every comparison
_INLINE_DEPTH = 3
_RETURN = "return"
# ``choice(call, a, b, ...)``: a call of a helper that returns ``a`` in one mode and ``b`` in another (a gate that
# multiplies or adds by configuration); the first argument is the call as written, the others what it may compute
CHOICE = "choice"
MAX_CHOICES = 4  # returns of one helper read as alternatives; past that the call stays uninterpreted
_NONE = sympy.Symbol("None")


@dataclass(frozen=True, eq=False)
class Binding:
    """What one statement bound a local name to on one path through the function: ``direct`` the value as written
    (helpers inlined, no local substituted), ``uses`` the bindings of the locals ``direct`` reads (name, binding),
    and ``expression`` the fully substituted form. ``expand`` rebuilds the form with chosen locals kept as leaves."""

    direct: sympy.Basic
    uses: tuple[tuple[str, "Binding"], ...]
    expression: sympy.Basic

    def expand(self, keep: Callable[[str], bool], memo: dict | None = None,
               through: frozenset[int] = frozenset()) -> sympy.Basic:
        """``direct`` with every local it reads replaced by its own expansion, except those ``keep(name)`` accepts,
        which stay symbols (a glossary name such as ``ce`` read as the quantity the paper names), unless the
        binding read is one of ``through`` (ids): that one is expanded too (``earlier_stages``)."""
        memo = {} if memo is None else memo
        if id(self) in memo:
            return memo[id(self)]
        mapping = {sympy.Symbol(name): (sympy.Symbol(name) if keep(name) and id(used) not in through
                                        else used.expand(keep, memo, through))
                   for name, used in self.uses}
        # a local whose expansion sprawls stays its name, as a definition too large to carry on does (``_Path.bind``)
        mapping = {symbol: symbol if sprawls((value,)) else value for symbol, value in mapping.items()}
        result = memo[id(self)] = substitute(self.direct, mapping)
        return result

    def earlier_stages(self, keep: Callable[[str], bool], limit: int = 3) -> list[frozenset[int]]:
        """For a kept local that code rebinds from itself (``q = rope(q)``, then ``q = l2_norm(q)``, then ``q = q *
        s``), the ids of its bindings to expand so that the leaf stands for an earlier stage: one set per stage,
        nearest first, at most ``limit``. A paper names one stage of such a chain (the query after RoPE) and the
        code's name holds them all in turn."""
        found: list[frozenset[int]] = []
        for name, used in self.uses:
            if not keep(name):
                continue
            chain: list[int] = []
            while len(found) < limit:
                inner = [b for n, b in used.uses if n == name]
                if len(inner) != 1:
                    break
                chain.append(id(used))
                found.append(frozenset(chain))
                used = inner[0]
        return found

    def reaches(self, keep: Callable[[str], bool], seen: set | None = None) -> bool:
        """True when a local that ``keep`` accepts is read, directly or through the locals read."""
        seen = set() if seen is None else seen
        if id(self) in seen:
            return False
        seen.add(id(self))
        return any(keep(name) or used.reaches(keep, seen) for name, used in self.uses)


@dataclass(frozen=True)
class CodeExpression(Location):
    """One candidate, where its statement is (``sau.vocabulary.Location``): ``target`` the assigned name (``loss``,
    ``self.scale``) or ``"return"``; ``expression`` the sympy form with earlier local definitions substituted
    along the first path through the function; ``function`` the qualified name of the enclosing function
    (``<module>`` for top-level code); ``text`` the statement's source on one line; ``direct`` the form as written,
    when it differs; ``alternatives`` the substituted forms along the other paths through earlier ``if``
    statements, the per-step term of a loop accumulation (``total = total + term``) and its sum or product over the
    loop; ``sources`` the bindings behind the forms, from which ``kept_forms`` rebuilds them with chosen locals kept
    as leaves; ``helpers`` the repository functions (source key, qualified name) inlined into the statement, whose
    returns compute part of it."""

    target: str
    expression: sympy.Basic
    function: str
    text: str
    direct: sympy.Basic | None = None
    alternatives: tuple[sympy.Basic, ...] = ()
    sources: tuple[Binding, ...] = ()
    # (source key, qualified name) of the repository functions whose returns the statement's calls put in
    helpers: tuple[tuple[str, str], ...] = ()

    def forms(self) -> tuple[sympy.Basic, ...]:
        """The forms to compare: substituted first, then direct, then the other paths and the per-step term."""
        return self._forms

    @cached_property  # every formula of a run reads every candidate's forms
    def _forms(self) -> tuple[sympy.Basic, ...]:
        found = [self.expression]
        for form in ([self.direct] if self.direct is not None else []) + list(self.alternatives):
            if form not in found:
                found.append(form)
        return tuple(found)

    @cached_property
    def locals_read(self) -> frozenset[str]:
        """Every local name the bindings behind the forms read, directly or through the locals read: the only names
        ``kept_forms`` asks its ``keep`` about, so two ``keep`` that agree on these give the same forms."""
        found: set[str] = set()
        seen: set[int] = set()
        stack = list(self.sources)
        while stack:
            binding = stack.pop()
            if id(binding) in seen:
                continue
            seen.add(id(binding))
            for name, used in binding.uses:
                found.add(name)
                stack.append(used)
        return frozenset(found)

    def kept_forms(self, keep: Callable[[str], bool], stages: bool = True) -> tuple[sympy.Basic, ...]:
        """The forms rebuilt with the locals ``keep(name)`` accepts left as leaves, and (with ``stages``) with such
        a local rebound from itself left as a leaf at its earlier stages too (``Binding.earlier_stages``), those
        that differ from ``forms()``; empty when no such local is read."""
        known = set(self.forms())  # membership by hash: sympy's equality is costly, equal expressions hash alike
        found: dict[sympy.Basic, None] = {}  # in order
        memo: dict = {}
        for source in self.sources:
            if not source.reaches(keep):
                continue
            for through in (frozenset(), *(source.earlier_stages(keep) if stages else ())):
                form = source.expand(keep, memo if not through else {}, through)
                if form not in known and form not in found and dag_size(form, MAX_EXPRESSION_NODES) <= \
                        MAX_EXPRESSION_NODES:
                    found[form] = None
        return tuple(found)


@dataclass
class FunctionRecord:
    """A function (or a module's top-level code) and what the D2 rule asks of it: ``qualname`` (``Cls.method``),
    ``name``, ``docstring``, ``callees`` (last components of the names it calls), ``targets`` (names it assigns),
    ``expressions`` (its candidates, in statement order), ``line`` where it starts, ``node`` its libcst
    definition (the same object the call graph holds), and for a method, ``built`` the class each submodule its
    class's ``__init__`` builds is an instance of, by the name its calls read as (``{"l1": "Linear", "net_0":
    "Conv2d"}`` for ``self.l1 = nn.Linear(...)`` and the first module of ``self.net = nn.Sequential(...)``)."""

    qualname: str
    name: str
    file: str
    line: int
    cell: int | None
    docstring: str = ""
    callees: set[str] = field(default_factory=set)
    targets: set[str] = field(default_factory=set)
    expressions: list[CodeExpression] = field(default_factory=list)
    node: cst.FunctionDef | None = None  # the definition (None for top-level code), shared with the call graph
    built: dict[str, str] = field(default_factory=dict)

    @property
    def source_key(self) -> str:
        """The key of its source in the index (``RepositoryIndex.lines``): the file, or ``file#cell`` for a
        notebook cell."""
        return self.file if self.cell is None else f"{self.file}#{self.cell}"


def code_expressions(index: RepositoryIndex, operations: Operations) -> list[FunctionRecord]:
    """The function records of every Python source in ``index``, with expressions translated through
    ``operations``. Costly: rules take it through an analysis provider of the index (``RepositoryIndex.analysis``),
    so that one run builds it once. Never raises on unusual code: a construct without formula meaning becomes an
    opaque symbol."""
    return _Builder(index, operations).build()


class _Builder:
    def __init__(self, index: RepositoryIndex, operations: Operations) -> None:
        self.index = index
        self.operations = operations
        self.functions: dict[tuple[str, str], cst.FunctionDef] = {}  # (source key, qualname) -> def
        self.by_name: dict[str, list[tuple[str, str]]] = {}
        self.returns: dict[tuple[str, str], tuple[list[str], tuple[sympy.Basic, ...]] | None] = {}
        self.in_progress: set[tuple[str, str]] = set()
        self.return_forms: dict[tuple[str, str], tuple[sympy.Basic, ...]] = {}  # along every path, for a forward
        self.path_returns: dict = {}
        # (source key, qualname) -> (the parameters its ``if p is None: p = ...`` statements fill in, its distinct
        # returns read without those statements): what a call passing those arguments gets (``_default_fill``)
        self.unfilled: dict[tuple[str, str], tuple[frozenset[str], tuple[sympy.Basic, ...]]] = {}
        # (source key, class qualname) -> {"self.<attribute>": value} of the constants __init__ sets (``_constants``)
        self.constants: dict[tuple[str, str], dict[str, sympy.Basic]] = {}
        # (source key, class qualname, attribute) -> the steps of the library module __init__ assigns to it: an
        # operation's name, None for the identity, or ("call", name) for a layer read as an uninterpreted function
        self.submodules: dict[tuple[str, str, str], tuple] = {}
        # (source key, class qualname) -> {call name: the class built} (``FunctionRecord.built``)
        self.built: dict[tuple[str, str], dict[str, str]] = {}
        self.inlined: list[tuple[str, str]] = []  # the helpers inlined since the statement being read began
        # (call graph scope, line, called name) -> (source key, qualname) of the repository function a call of a
        # module attribute runs (``F.attention(...)`` after ``from . import functional as F``); built on first use
        self.module_calls: dict[tuple[str, int, str], set[tuple[tuple[str, str], bool]]] | None = None
        # the call an unpacking reads one part of (``a, b = helper(x)``: the call, the part's position, the number of
        # parts), and whether a helper's tuple returns gave that part (``_unpacked``, ``_inline``)
        self.unpacking: tuple[cst.Call, int, int] | None = None
        self.unpacked = False
        # (source key, qualname, position, parts) -> what ``_return_of`` gives, for that part of the helper's returns
        self.part_returns: dict[tuple[str, str, int, int], tuple[list[str], tuple[sympy.Basic, ...]] | None] = {}
        self.part_of: dict[int, int] = {}  # id of a helper body's record -> the part of its tuple returns it reads

    def build(self) -> list[FunctionRecord]:
        definitions = {key: list(_definitions(module.body, "")) for key, module in sorted(self.index.modules.items())}
        for key, found in definitions.items():
            for qualname, node in found:
                self.functions[(key, qualname)] = node
                self.by_name.setdefault(node.name.value, []).append((key, qualname))
        self.overwritten = _overwritten_attributes(self.index.modules.values())
        for (key, qualname), node in sorted(self.functions.items()):
            if node.name.value == "__init__" and "." in qualname:
                self._submodules(key, qualname.rsplit(".", 1)[0], node)
                self._constants(key, qualname.rsplit(".", 1)[0], node)
        records = []
        for key, module in sorted(self.index.modules.items()):
            positions = self.index.positions[key]
            file, cell = split_where(key)
            top = FunctionRecord("<module>", "<module>", file, 1, cell)
            self._body(module.body, top, key, "", positions, {})
            records.append(top)
            for qualname, node in definitions[key]:
                record = FunctionRecord(qualname, node.name.value, file, positions[node].start.line,
                                        int(cell) if cell else None, _docstring(node), node=node,
                                        built=self.built.get((key, qualname.rsplit(".", 1)[0]), {}))
                try:
                    self._body(_statements(node), record,
                               key, qualname, positions, self._env_of(key, qualname, node))
                except (RecursionError, TypeError, ValueError, ArithmeticError):
                    record.expressions.clear()  # sympy refused this function's code: it offers no candidates
                records.append(record)
        return records

    # -- one body -----------------------------------------------------------------------------------------------
    def _body(self, statements, record: FunctionRecord, key: str, qualname: str, positions, env: dict) -> None:
        def resolve(node, operands, keywords):
            return self._inline(node, operands, key, qualname, keywords)

        stored: set[str] = set()  # the entries under string keys this body has stored (``keyed_name``)
        translator = Translator(self.operations, env=env, resolve_call=resolve, stored=stored)
        plain = Translator(self.operations, resolve_call=resolve, stored=stored)  # no substitution: the direct form
        state = _State(translator, plain, positions)
        self._block(statements, record, state, [_Path(env)])

    def _block(self, statements, record: FunctionRecord, state: "_State", paths: list["_Path"]) -> list["_Path"]:
        for statement in statements:
            paths = self._statement(statement, record, state, paths)
        return paths

    def _statement(self, statement, record: FunctionRecord, state: "_State", paths: list["_Path"]) -> list["_Path"]:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return paths  # a nested definition is its own record
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, statement, record, state, paths)
            return paths
        _collect_callees(statement, record, skip_bodies=True)
        if isinstance(statement, cst.If):
            # one path per branch (bounded): an optional mask must not merge into every later expression
            taken = self._block(statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [],
                                record, state, [p.copy() for p in paths])
            orelse = statement.orelse
            other = [p.copy() for p in paths]
            if isinstance(orelse, cst.If):
                other = self._statement(orelse, record, state, other)
            elif orelse is not None and isinstance(orelse.body, cst.IndentedBlock):
                other = self._block(orelse.body.body, record, state, other)
            return _distinct(taken + other)
        if isinstance(statement, (cst.For, cst.While)):
            if isinstance(statement, cst.For):
                for path in paths:
                    _forget(statement.target, path)
                self._segments(statement, state, paths)
            saved = [p.start_loop() for p in paths]
            inside = self._block(statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [],
                                 record, state, paths)
            outer: dict = {}
            for found in saved:
                for name, accumulated in found.items():
                    outer.setdefault(name, accumulated)
            for path in inside:
                path.end_loop(outer)
            if statement.orelse is not None and isinstance(statement.orelse.body, cst.IndentedBlock):
                inside = self._block(statement.orelse.body.body, record, state, inside)
            return inside
        if isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    for path in paths:
                        _forget(item.asname.name, path)
        for block in _blocks(statement):
            paths = self._block(block, record, state, paths)
        return paths

    def _small(self, small, line_node, record: FunctionRecord, state: "_State", paths: list["_Path"]) -> None:
        _collect_callees(small, record, skip_bodies=False)
        self.inlined = []
        value = getattr(small, "value", None)
        if isinstance(value, cst.Lambda) and isinstance(small, (cst.Assign, cst.AnnAssign, cst.Return)):
            self._lambda(small, value, line_node, record, state, paths)
            return
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            direct = state.plain.translate(small.value)
            for target in targets:
                name = dotted_name(target)
                if name is None and (name := keyed_name(target)) is not None:  # terms["loss"] = ...: terms.loss
                    state.plain.stored.add(name)  # later reads of the entry read the name (both translators)
                    for path in paths:
                        _forget(target, path)  # and the mapping itself is no longer what was bound to it
                if name is None:
                    displayed = _displayed(target, small.value, state, paths)  # read before any name is rebound
                    for path in paths:
                        _forget(target, path)
                    self._element(target, direct, small, line_node, record, state, paths)
                    for bound, bound_direct, bound_values, uses in displayed or ():
                        self._bind(bound, bound_direct, bound_values, small, line_node, record, state, paths, None,
                                   [], "", uses)
                    if displayed is None:
                        self._unpacked(target, small, line_node, record, state, paths)
                    continue
                step, kind = _accumulated_term(direct, name) if any(p.in_loop for p in paths) else (None, "")
                values = [state.translate(small.value, path) for path in paths]
                neutral = sympy.Integer(0 if kind == "sum" else 1)
                steps = [state.translate(small.value, path, {name: neutral}) for path in paths] \
                    if step is not None else []
                self._bind(name, direct, values, small, line_node, record, state, paths, step, steps, kind)
        elif isinstance(small, cst.AugAssign):
            updated: cst.BaseExpression = small.target
            keyed = keyed_name(updated) if isinstance(updated, cst.Subscript) else None
            if keyed is not None and keyed not in state.plain.stored:
                keyed = None  # an entry stored elsewhere: an element of its mapping, as any other
            if keyed is None and isinstance(updated, cst.Subscript) and dotted_name(updated.value) is not None:
                updated = updated.value  # probs[i] *= p: an element of probs accumulates, read as probs itself
            name = dotted_name(updated) or keyed
            if name is None:
                return
            combined = cst.BinaryOperation(cst.Name("__left__"), _AUG[type(small.operator)], small.value) \
                if type(small.operator) in _AUG else None
            if combined is None:
                for path in paths:
                    path.forget(name)
                return
            values = [state.translate(combined, path, {"__left__": path.env.get(name, sympy.Symbol(name))})
                      for path in paths]
            direct = state.plain.translate(cst.BinaryOperation(updated, combined.operator, small.value))
            step = steps = None
            kind = _AUG_KIND.get(type(small.operator), "")
            if kind and any(p.in_loop for p in paths):
                step = state.plain.translate(small.value)
                steps = [state.translate(small.value, path) for path in paths]
            self._bind(name, direct, values, small, line_node, record, state, paths, step, steps or [], kind)
        elif isinstance(small, cst.Return) and small.value is not None:
            returned: cst.BaseExpression = small.value
            part = self.part_of.get(id(record))
            if part is not None and isinstance(returned, cst.Tuple):  # a helper read for one part (``_part_returns``)
                returned = returned.elements[part].value
            direct = state.plain.translate(returned)
            values = [state.translate(returned, path) for path in paths]
            sources = tuple(Binding(direct, path.uses(direct), value) for path, value in zip(paths, values))
            record.expressions.append(self._candidate(_RETURN, values, direct, sources, small, line_node, record,
                                                      state.positions))
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._append(small, line_node, record, state, paths)

    def _segments(self, statement: cst.For, state: "_State", paths: list["_Path"]) -> None:
        """``for v, m in zip(torch.split(values, sizes), values.split(...))`` (also under ``enumerate``, or with
        ``chunk``): each loop name holds one segment of the tensor it splits and is bound to that tensor, as a
        formula written for one segment names the whole's symbol (a per-segment mean of ``values``)."""
        target: cst.BaseExpression = statement.target
        iterable: cst.BaseExpression = statement.iter
        if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "enumerate" and iterable.args \
                and isinstance(target, cst.Tuple) and len(target.elements) == 2:
            target, iterable = target.elements[1].value, iterable.args[0].value
        pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]] = [(target, iterable)]
        if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "zip" and isinstance(target, cst.Tuple) \
                and len(target.elements) == len(iterable.args):
            pairs = [(cast(cst.BaseExpression, t.value), a.value) for t, a in zip(target.elements, iterable.args)]
        for name_node, source in pairs:
            name = dotted_name(name_node)
            if name is None:
                continue
            direct = _split_whole(state.plain.translate(source), self.operations)
            for path in paths:
                whole = _split_whole(state.translate(source, path), self.operations)
                if whole is not None:  # the segments of a split local (parts = torch.split(values, n)) too
                    path.bind(name, Binding(direct if direct is not None else whole, path.uses(whole), whole))

    def _element(self, target, direct, small, line_node, record: FunctionRecord, state: "_State",
                 paths: list["_Path"]) -> None:
        """``out[0, idx] = valid.mean()``: the value stored into an element of a named array is a candidate named
        after the array (``out``), as ``probs[i] *= p`` accumulates into ``probs``; the name is not bound (the
        element is one entry of it, so later reads of ``out`` are not the stored value)."""
        array = dotted_name(target.value) if isinstance(target, cst.Subscript) else None
        if array is None:
            return
        values = [state.translate(small.value, path) for path in paths]
        sources = tuple(Binding(direct, path.uses(direct), value) for path, value in zip(paths, values))
        record.expressions.append(self._candidate(array, values, direct, sources,
                                                  small, line_node, record, state.positions))

    def _unpacked(self, target, small, line_node, record: FunctionRecord, state: "_State",
                  paths: list["_Path"]) -> None:
        """``w, idx = torch.topk(p, k)``: a tuple target bound from a library call whose parts the operations
        table names (``outputs``), or from a call of a submodule built from a library module class whose parts it
        names (``module_outputs``: ``_, h = self.gru(x, h0)`` after ``self.gru = nn.GRU(...)``; a nested target,
        ``out, (h, c) = self.lstm(x)``, reads the parts of a part), binds each plain name to its part
        (``output_part``); one bound from a call of a repository helper every ``return`` of which is a tuple of as
        many values (``_, a_pi = self.policy(zs)`` with ``return z_pi, activ(z_pi)``) binds each to that value of
        the returns, inlined (``_part_returns``); any other unpacking binds nothing (the caller has forgotten its
        names)."""
        if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(small.value, cst.Call):
            return
        operations = state.plain.operations
        named = _target_names(target)
        if named is None:
            return  # ``a, *rest = ...``: which part each name holds depends on the length
        call = small.value
        written = state.plain.translate(call)
        module = self._module_outputs(call, record, written)
        for name, position, shape in named:
            direct = output_part(written, position, shape, operations, module)
            values: list = []
            if direct is not None:
                values = [output_part(state.translate(call, path), position, shape, operations, module)
                          for path in paths]
            elif len(position) == 1:  # a helper's tuple returns: one level only
                part = self._helper_part(call, position[0], shape[0], lambda: state.plain.translate(call))
                direct = _named_result(name, part)
                values = [_named_result(name, self._helper_part(call, position[0], shape[0],
                                                                partial(state.translate, call, path)))
                          for path in paths] if part is not None else []
            if direct is None or any(v is None for v in values):
                continue
            self._bind(name, direct, values, small, line_node, record, state, paths, None, [], "")

    def _module_outputs(self, call: cst.Call, record: FunctionRecord, translated: sympy.Basic) -> str | None:
        """The library module class (a ``module_outputs`` entry) of the submodule ``call`` calls, ``self.gru(x)``
        after ``self.gru = nn.GRU(...)`` (``FunctionRecord.built``), when the call reads as itself
        (``translated``: ``gru(x)``); ``None`` for any other call, and for a class of the repository's own
        (``_forward_of``), whose ``forward`` says what it returns."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        cls = record.built.get(func.attr.value)
        if cls is None or cls not in self.operations.module_outputs or self._forward_of(cls) is not None:
            return None
        written = isinstance(translated, AppliedUndef) and translated.func.__name__ == func.attr.value
        return cls if written else None

    def _helper_part(self, call: cst.Call, position: int, count: int,
                     translate: Callable[[], sympy.Basic]) -> sympy.Basic | None:
        """Part ``position`` of the ``count`` values a repository helper's call returns, as ``translate`` reads the
        call with ``_inline`` taking that part of the helper's returns; None when the call inlines no such helper."""
        outer = self.unpacking, self.unpacked
        self.unpacking, self.unpacked = (call, position, count), False
        try:
            value = translate()
            return value if self.unpacked else None
        finally:
            self.unpacking, self.unpacked = outer

    def _lambda(self, small, value: cst.Lambda, line_node, record: FunctionRecord, state: "_State",
                paths: list["_Path"]) -> None:
        """``act = lambda x: 0.5 + 0.5 * torch.sigmoid(x)`` (or ``return lambda x: ...``): the body is a candidate of
        the assigned name (or of the return), its parameters free symbols; the name itself is no value later
        statements may substitute."""
        parameters = {p.name.value for p in value.params.params}
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
            [small.target] if isinstance(small, cst.AnnAssign) else []
        names = [dotted_name(t) for t in targets]
        values = []
        for path in paths:
            state.translator.env = {k: v for k, v in path.env.items() if k not in parameters}
            values.append(state.translator.translate(value.body))
        direct = state.plain.translate(value.body)
        for name in names or [_RETURN]:
            if name is None:
                continue
            if name != _RETURN:
                record.targets.add(name.rsplit(".", 1)[-1])
            sources = tuple(Binding(direct, (), v) for v in values)
            record.expressions.append(self._candidate(name, values, direct, sources, small, line_node, record,
                                                      state.positions))
        for target in targets:
            for path in paths:
                _forget(target, path)

    def _append(self, small, line_node, record: FunctionRecord, state: "_State", paths: list["_Path"]) -> None:
        """``losses.append(term)``: the list reads as its term from here on (``torch.stack(losses).mean()`` is the
        mean of the term over the loop), and the term is a candidate of its own."""
        call = small.value
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "append" and len(call.args) == 1
                and call.args[0].keyword is None and not call.args[0].star):
            return
        name = dotted_name(func.value)
        if name is None:
            return
        direct = state.plain.translate(call.args[0].value)
        values = [state.translate(call.args[0].value, path) for path in paths]
        self._bind(name, direct, values, small, line_node, record, state, paths, None, [], "")

    def _bind(self, name, direct, values, small, line_node, record, state, paths, step, steps, kind="",
              uses: list | None = None) -> None:
        """Record the candidate of one assignment (its forms along every path, and its per-step term in a loop:
        ``kind`` ``sum`` or ``prod``) and bind ``name`` on every path; ``uses`` gives, per path, the bindings
        ``direct`` read when they were read before the statement rebound any of them (``_displayed``)."""
        record.targets.add(name.rsplit(".", 1)[-1])
        sources = [Binding(direct, uses[number] if uses is not None else path.uses(direct), value)
                   for number, (path, value) in enumerate(zip(paths, values))]
        if step is not None:
            sources += [Binding(step, path.uses(step), value) for path, value in zip(paths, steps)]
        # over the loop the accumulator gathers the sum (or product) of its term, whatever it started from
        gathered = [sympy.Function(kind)(s) for s in steps] if step is not None and kind else []
        record.expressions.append(self._candidate(name, values + list(steps) + gathered, direct, tuple(sources),
                                                  small, line_node, record, state.positions))
        for number, path in enumerate(paths):
            if step is not None and path.in_loop:
                path.accumulate(name, Binding(step, path.uses(step), steps[number]), kind)
            path.bind(name, sources[number])

    def _candidate(self, target, values, direct, sources, small, line_node, record, positions) -> CodeExpression:
        where = positions.get(line_node) or positions.get(small)
        line, end = (where.start.line, where.end.line) if where else (record.line, record.line)
        values = [direct if sprawls((v,)) else v for v in values]  # too large to compare: the statement as written
        expression = values[0]
        alternatives = tuple(dict.fromkeys(v for v in values[1:] if v != expression))
        return CodeExpression(record.file, line, end, target, expression, record.qualname, source_text(small),
                              None if direct == expression else direct, alternatives, sources,
                              tuple(dict.fromkeys(self.inlined)), cell=record.cell)

    # -- helpers ------------------------------------------------------------------------------------------------
    def _submodules(self, key: str, owner: str, init: cst.FunctionDef) -> None:
        """Record the library modules ``init`` assigns to attributes of ``self`` (``self.act = nn.GELU()``) whose
        class the operations table knows, and the class each is built from (``built``), a construction moved or
        cast read as the module itself (``_constructed``); an attribute assigned two different ones (a flag choosing
        ReLU or Identity) is left out."""
        seen: dict[str, list] = {}
        built: dict[str, set[str]] = {}
        for assign in _assignments(init):
            for target in assign.targets:
                name = dotted_name(target.target)
                if name and name.startswith("self.") and name.count(".") == 1:
                    value = self._constructed(assign.value)
                    seen.setdefault(name[5:], []).append(self._module_steps(value, name[5:], key, owner))
                    for called, cls in _built_classes(value, name[5:]):
                        built.setdefault(called, set()).add(cls)
        for attribute, found in seen.items():
            if len(found) == 1 and found[0] is not None:
                self.submodules[(key, owner, attribute)] = found[0]
        self.built[(key, owner)] = {called: next(iter(classes)) for called, classes in built.items()
                                    if len(classes) == 1}

    def _constructed(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """The module construction ``value`` moves or casts (``Policy(d).to(device)``, ``nn.GRU(d, h).cuda()``: a
        method the operations table reads as the identity, which returns the module itself), else ``value``."""
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and isinstance(value.func.value, cst.Call) \
                and getattr(self.operations.operations.get(value.func.attr.value), "identity", False):
            value = value.func.value
        return value

    def _constants(self, key: str, owner: str, init: cst.FunctionDef) -> None:
        """Record the constants ``init`` sets (``self.scale = head_dim ** -0.5``, ``self.sqrt_d =
        math.sqrt(config.d_model)``, or a buffer holding a table computed there:
        ``self.register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))``): an attribute assigned once in
        the class, by a statement of ``__init__``'s own body (not a branch), to arithmetic of names and numbers (no
        call the table does not read, no opaque code), by an annotated assignment only to a literal number (``self.s:
        float = 1.0``: an annotation otherwise declares a typed setting), and written nowhere else in the repository
        (``_overwritten_attributes``). A learned parameter (``nn.Parameter(torch.ones(d))``: ``_learned``) is no
        constant: training changes its initial value. The class's other methods read the attribute as written or as
        that value (``_env_of``)."""
        assigned: dict[str, int] = {}
        for (other_key, qualname), method in self.functions.items():
            if other_key == key and qualname.rsplit(".", 1)[0] == owner:
                for name in _self_targets(method):
                    assigned[name] = assigned.get(name, 0) + 1
        body = init.body.body if isinstance(init.body, cst.IndentedBlock) else []
        found: dict[str, sympy.Basic] = {}
        registers = {_REGISTER_BUFFER}  # the method, and local lambdas that call it (``_buffer_alias``)
        computed: set[str] = set()  # the locals __init__ has assigned so far
        for line in body:
            for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
                alias = _buffer_alias(small)
                if alias:
                    registers.add(alias)
                    continue
                if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    computed.update(n for t in targets for n in _names_in(t))
                buffer = _buffer(small, registers)
                target: str | None
                if buffer is not None:
                    target, written = buffer
                elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target, written = dotted_name(small.targets[0].target), small.value
                elif isinstance(small, cst.AnnAssign) and small.value is not None and _number(small.value):
                    # self.s: float = 1.0
                    target, written = dotted_name(small.target), small.value
                else:
                    continue
                if not target or not target.startswith("self.") or target.count(".") != 1 \
                        or assigned.get(target, 0) + (buffer is not None) != 1 \
                        or self.overwritten(owner.rsplit(".", 1)[-1], target[5:]) or self._learned(written):
                    continue
                try:
                    value = Translator(self.operations).translate(written)
                except (TypeError, ValueError, ArithmeticError):
                    continue
                if any(isinstance(n, AppliedUndef) or isinstance(n, sympy.Symbol) and
                       (n.name.startswith("<") or n.name == "None") for n in sympy.preorder_traversal(value)):
                    continue
                # a buffer is a table computed here, from locals __init__ assigned (sqrt(alphas_cumprod), inv_freq):
                # one holding only settings (torch.tensor(s_init / s_scale)) is a named scale of the module, a leaf
                if buffer is None or any(n.name in computed for n in value.free_symbols):
                    found[target] = value
        if found:
            self.constants[(key, owner)] = found

    def _learned(self, value: cst.CSTNode) -> bool:
        """Whether ``value`` declares a learned parameter (calls an operation the table marks ``learned``:
        ``nn.Parameter(torch.full((d,), s))``): it holds its initial value only until training changes it."""
        return any(getattr(self.operations.operations.get(name), "learned", False)
                   for name in _call_names(value, skip_bodies=False))

    def _env_of(self, key: str, qualname: str, node: cst.FunctionDef) -> dict:
        """The starting substitutions of a method's body: each constant of its class (``_constants``) as the choice
        of the attribute as written (a paper may name it: ``attn_scale``) and its value, not in ``__init__``, where
        they are set."""
        if "." not in qualname or node.name.value == "__init__":
            return {}
        return {name: sympy.Function(CHOICE)(sympy.Symbol(name), value)
                for name, value in self.constants.get((key, qualname.rsplit(".", 1)[0]), {}).items()}

    def _module_steps(self, value, attribute: str, key: str = "", owner: str = "") -> tuple | None:
        """The steps of a library module built by ``value``: one operation for a module class the table knows
        (``nn.GELU()``) or a library function assigned as it is (``F.elu``), the steps of an ``nn.Sequential`` of
        such modules and layers (a layer, such as ``nn.Linear``, reads as the uninterpreted function
        ``<attribute>_<position>``), a lookup table (``nn.Embedding``: ``("row", attribute)``, its rows indexed by the
        call's operand), a module of the repository's own (``_repository_module``), else ``None``."""
        if isinstance(value, (cst.Attribute, cst.Name)):
            # self.activ = F.elu: a library function kept to be called, what the call computes
            named = dotted_name(value) or ""
            root, _, last = named.rpartition(".")
            known = bool(root) and (last in self.operations.operations or last in self.operations.activations)
            return (last,) if known and root.split(".")[0] in self.operations.modules else None
        if not isinstance(value, cst.Call):
            return None
        built = self._repository_module(value, key, owner)
        if built is not None:
            return built
        called = dotted_name(value.func)
        cls = called.rsplit(".", 1)[-1] if called else None
        if cls in self.operations.module_classes:
            return (self.operations.module_classes[cls],)
        if cls in self.operations.lookup_modules:
            return (("row", attribute),)  # self.emb(idx) with self.emb = nn.Embedding(...): the table's rows emb[idx]
        if cls != "Sequential" or not value.args or any(a.keyword is not None or a.star for a in value.args):
            return None
        steps: list = []
        for position, arg in enumerate(value.args):
            inner = self._module_steps(arg.value, attribute)
            if inner is None and not isinstance(arg.value, cst.Call):
                return None
            steps.extend(inner if inner is not None else [("call", _sequential_layer(attribute, position))])
        return tuple(steps)

    def _repository_module(self, value: cst.Call, key: str, owner: str) -> tuple | None:
        """The steps of a module the repository builds itself: ``(("class", source key, class),)`` for an instance
        of a repository class with a ``forward`` (``GateProjection(d, k)``, or a builder method of the owner whose
        returns other than ``None`` all build the same such class); ``(("modes", options),)`` for a helper whose
        returns are each a library function (``torch.sigmoid``) or a one-argument lambda, one per mode (an
        activation chosen by configuration); each option is a step or ``("lambda", parameter, body)``."""
        direct = self._forward_of(value.func.value) if isinstance(value.func, cst.Name) else None
        if direct is not None:
            return (("class", *direct),)
        found = self._resolve(value.func, key, f"{owner}.__init__" if owner else "__init__")
        if found is None:
            return None
        returned = [v for v in _returned(self.functions[found]) if not (isinstance(v, cst.Name) and v.value == "None")]
        if not returned or len(returned) > MAX_CHOICES:
            return None
        classes = {v.func.value for v in returned if isinstance(v, cst.Call) and isinstance(v.func, cst.Name)}
        if len(classes) == 1 and all(isinstance(v, cst.Call) for v in returned):
            forward = self._forward_of(classes.pop())
            return (("class", *forward),) if forward is not None else None
        options: list = []
        for returned_value in returned:
            if isinstance(returned_value, cst.Lambda) and len(returned_value.params.params) == 1 \
                    and not isinstance(returned_value.params.star_arg, cst.Param):
                parameter = returned_value.params.params[0].name.value
                try:
                    body = Translator(self.operations).translate(returned_value.body)
                except (TypeError, ValueError, ArithmeticError):
                    return None
                if body != sympy.Symbol(parameter):  # ``lambda x: x``: the identity, the mechanism off
                    options.append(("lambda", parameter, body))
                continue
            step = self._module_steps(returned_value, "") if isinstance(returned_value, (cst.Attribute, cst.Name)) \
                else None
            if step is None:
                return None
            options.append(step[0])
        return (("modes", tuple(options)),) if options else None

    def _path_returns(self, found: tuple[str, str]) -> tuple[list[str], tuple[sympy.Basic, ...]] | None:
        self._return_of(found)  # reads the helper once, recording its returns along every path
        forms = [f for f in self.return_forms.get(found, ()) if f != _NONE]
        parameters = _parameters(self.functions[found])
        if not 0 < len(forms) <= MAX_CHOICES or any(dag_size(f, MAX_EXPRESSION_NODES) > MAX_EXPRESSION_NODES
                                                    for f in forms):
            return None
        return parameters, tuple(forms)

    def _forward_of(self, name: str) -> tuple[str, str] | None:
        """(source key, class) of the one repository class named ``name`` that defines ``forward``, else None."""
        found = [k for k, qualname in self.by_name.get("forward", ()) if qualname == f"{name}.forward"]
        return (found[0], name) if len(found) == 1 else None

    def _module_call(self, node: cst.Call, step: tuple, attribute: str,
                     operands: list[sympy.Basic]) -> sympy.Basic | None:
        """``self.<attribute>(operands)`` for a module of a repository class: the call as written, or what the
        class's ``forward`` returns with its attributes read as the module's (``self.weight`` is
        ``self.<attribute>.weight``), as a ``choice``; opaque when the ``forward`` returns no value (a stub
        computes nothing: not a layer's product either)."""
        _, key, cls = step
        if not any(v is not None for v in _returned(self.functions[(key, f"{cls}.forward")])):
            return sympy.Symbol(f"<{source_text(node, 60)}>")
        if len(self.in_progress) >= _INLINE_DEPTH:
            return None
        part = self._part_asked(node)
        result = self._part_returns((key, f"{cls}.forward"), *part) if part is not None else \
            self._return_of((key, f"{cls}.forward"), paths=True)
        if result is None or len(operands) > len(result[0]) or not operands or sprawls(operands):
            return None
        parameters, returns = result
        mapping: dict = {sympy.Symbol(p): o for p, o in zip(parameters, operands)}
        try:
            bodies = []
            for returned in returns:
                owned = {a: sympy.Symbol(f"self.{attribute}.{a.name[5:]}") for a in returned.free_symbols
                         if isinstance(a, sympy.Symbol) and a.name.startswith("self.")}
                bodies.append(substitute(returned, {**owned, **mapping}))  # shared subtrees rebuilt once
        except (TypeError, ValueError, ArithmeticError):
            return None
        working = [b for b in bodies if b not in operands]
        if not working or part is not None and any(dag_size(b, MAX_EXPRESSION_NODES) > MAX_EXPRESSION_NODES
                                                   for b in working):
            return None
        self.inlined.append((key, f"{cls}.forward"))
        if part is not None:  # one value of the tuple the forward returns (``_part_returns``): no call as written
            self.unpacked = True
            return working[0]
        return sympy.Function(CHOICE)(sympy.Function(attribute)(*operands), *working)

    def _apply_steps(self, steps: tuple, attribute: str, value: sympy.Basic) -> sympy.Basic:
        """``value`` through a library module's steps (``_module_steps``); a step of modes reads as the choice
        among them, the call as written first."""
        for step in steps:
            if isinstance(step, tuple) and step[0] == "modes":
                options = [self._apply_steps((option,), attribute, value) for option in step[1]]
                value = sympy.Function(CHOICE)(sympy.Function(attribute)(value), *options)
            elif isinstance(step, tuple) and step[0] == "lambda":
                value = step[2].xreplace({sympy.Symbol(step[1]): value})
            elif isinstance(step, tuple) and step[0] == "row":
                value = sympy.Function("getitem")(sympy.Symbol(step[1]), value)
            elif isinstance(step, tuple):
                value = sympy.Function(step[1])(value)
            elif step is not None:
                value = apply_operation(self.operations, step, value)
        return value

    def _inline(self, node: cst.Call, operands: list[sympy.Basic], key: str, qualname: str,
                keywords: Callable[[], dict[str, sympy.Basic]] = dict) -> sympy.Basic | None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
                and "." in qualname:
            entry = (key, qualname.rsplit(".", 1)[0], func.attr.value)
            steps = self.submodules.get(entry)
            if steps is not None and steps[0] and isinstance(steps[0], tuple) and steps[0][0] == "class":
                return self._module_call(node, steps[0], func.attr.value, operands)
            if steps is not None and len(operands) == 1:  # self.act(x) with self.act = nn.GELU(): gelu(x)
                return self._apply_steps(steps, func.attr.value, operands[0])
        found = self._resolve(node.func, key, qualname, methods=True)
        if found is None or len(self.in_progress) >= _INLINE_DEPTH:
            return None
        receiver = _receiver(func) if isinstance(func, cst.Attribute) and "." in found[1] else None
        part = self._part_asked(node)
        result = self._part_returns(found, *part) if part is not None else self._return_of(found)
        if result is None:
            return None
        parameters, returns = result
        if len(operands) > len(parameters) or sprawls(operands):
            return None
        named = keywords()  # translated only for a call the helper's returns read
        filled, given = self.unfilled.get(found, (frozenset(), ()))
        passed = set(parameters[:len(operands)]) | set(named)
        if filled and filled <= passed and 0 < len(given) <= MAX_CHOICES and part is None:
            returns = given  # every parameter the helper would fill in is passed: the defaults never apply
        mapping = {sympy.Symbol(p): o for p, o in zip(parameters, operands)}
        # keyword arguments by the parameter they name (self.q_sample(x_start=x0, t=t, noise=eps))
        mapping.update({sympy.Symbol(p): v for p, v in named.items()
                        if p in parameters and parameters.index(p) >= len(operands)})
        if receiver is not None:  # ``gen.generate()``: the method's ``self.rng`` is ``gen.rng``
            mapping.update({a: sympy.Symbol(f"{receiver}.{a.name[5:]}") for r in returns for a in r.free_symbols
                            if isinstance(a, sympy.Symbol) and a.name.startswith("self.")})
        try:
            # a part's operands may be other parts of large shared values: rebuilt once each (``substitute``)
            bodies = [substitute(r, mapping) for r in returns]
        except (TypeError, ValueError, ArithmeticError):  # sympy refusing to rebuild: leave the call uninterpreted
            return None
        if part is not None and any(dag_size(b, MAX_EXPRESSION_NODES) > MAX_EXPRESSION_NODES for b in bodies):
            return None
        if len(bodies) == 1:  # a part is always one value (``_part_returns``)
            self.inlined.append(found)
            self.unpacked = part is not None
            return bodies[0]
        # a mode that hands an argument back unchanged (``return target`` when no gate is configured) switches the
        # mechanism off: not a reading of what the helper computes
        handed = [*operands, *named.values()]
        working = [b for b in bodies if b not in handed]
        written = _written_call(node, operands, self.operations)
        if written is None or not working:
            return None
        self.inlined.append(found)
        return sympy.Function(CHOICE)(written, *working)

    def _resolve(self, func, key: str, qualname: str, methods: bool = False) -> tuple[str, str] | None:
        """(source key, qualname) of the repository function a call of ``func`` runs: a function of the module or
        one named so only once, a method of ``self``'s class, a module's function, and with ``methods`` a method
        of another object the call graph types to one class (``_module_function``); else None."""
        if isinstance(func, cst.Name):
            if (key, func.value) in self.functions:
                return key, func.value
            candidates = self.by_name.get(func.value, [])
            top_level = [c for c in candidates if "." not in c[1]]
            return top_level[0] if len(top_level) == 1 else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            owner = qualname.rsplit(".", 1)[0] if "." in qualname else ""
            method = f"{owner}.{func.attr.value}" if owner else func.attr.value
            return (key, method) if (key, method) in self.functions else None
        if isinstance(func, cst.Attribute) and func.value is not None and dotted_name(func.value) is not None:
            return self._module_function(func, key, qualname, methods and _receiver(func) is not None)
        return None

    def _module_function(self, func: cst.Attribute, key: str, qualname: str,
                         methods: bool = False) -> tuple[str, str] | None:
        """The repository function a call of a module's attribute runs, as the call graph resolved it (``F.attention``
        after ``from . import functional as F`` is the repository's own ``functional.attention``, not a library
        operation of that name), or None: a library module, a call the graph left unresolved, or one it resolved
        to several functions; a method of an object (``gen.generate()`` after ``gen = Generator(...)``) only with
        ``methods``."""
        if self.module_calls is None:
            graph = self.index.analysis(build_call_graph)
            ours = {id(node): entry for entry, node in self.functions.items()}
            self.module_calls = {}
            for scope in graph.graph.nodes:
                for site in graph.callees_in_order(scope):
                    info = graph.functions.get(site.callee) if site.kind == CALL and site.callee else None
                    if info is not None and id(info.node) in ours:
                        # an object of a choice of classes calls each one's method from one line: none is the call
                        self.module_calls.setdefault((scope, site.line, info.name), set()).add(
                            (ours[id(info.node)], info.class_name is not None))
        where = self.index.positions.get(key, {}).get(func)
        if where is None:
            return None
        file, cell = split_where(key)
        module = module_name(file)
        scope = f"{module}.{qualname}" if qualname else f"{module}#{cell}" if cell else module
        found = self.module_calls.get((scope, where.start.line, func.attr.value), set())
        if len(found) != 1:
            return None
        (entry, method), = found
        return entry if methods or not method else None

    def _helper_body(self, found: tuple[str, str], statements, part: int | None = None) -> FunctionRecord:
        """The candidates of ``statements`` of the helper ``found`` read for inlining: as its own body (its class's
        constants, no line numbers), marked in progress against recursion, the calling statement's inlined helpers
        kept aside; with ``part``, each ``return`` of a tuple read as its value at that position."""
        node = self.functions[found]
        self.in_progress.add(found)
        record = FunctionRecord(found[1], node.name.value, "", 0, None,
                                built=self.built.get((found[0], found[1].rsplit(".", 1)[0]), {}))
        if part is not None:
            self.part_of[id(record)] = part
        outer, self.inlined = self.inlined, []  # the statement that called it goes on after it
        try:
            self._body(statements, record, found[0], found[1], {}, self._env_of(found[0], found[1], node))
        finally:
            self.inlined = outer
            self.in_progress.discard(found)
            self.part_of.pop(id(record), None)
        return record

    def _return_of(self, found: tuple[str, str],
                   paths: bool = False) -> tuple[list[str], tuple[sympy.Basic, ...]] | None:
        """(parameters, returns) of the helper ``found``: its distinct return values (with ``paths``, also along
        the other paths through its ``if`` statements), or None when it cannot be inlined."""
        if paths:
            if (found, paths) not in self.path_returns:
                self.path_returns[(found, paths)] = self._path_returns(found)
            return self.path_returns[(found, paths)]
        if found in self.returns:
            return self.returns[found]
        if found in self.in_progress:
            return None  # recursion
        node = self.functions[found]
        statements = _statements(node)
        record = self._helper_body(found, statements)
        # a helper whose returns all read alike (an early ``return x`` beside ``return x.reshape(...)``) is inlined;
        # one returning up to MAX_CHOICES different values (one per mode) reads as the choice among them, a
        # ``return None`` (nothing to compute with: the guard of an optional part) left out
        self.return_forms[found] = tuple(dict.fromkeys(f for c in record.expressions if c.target == _RETURN
                                                       for f in (c.expression, *c.alternatives)))
        returns = _distinct_returns(record)
        fills = {s: name for s in statements if isinstance(s, cst.BaseStatement)
                 and (name := _default_fill(s, node)) is not None}
        if fills:
            # ``if noise is None: noise = torch.randn_like(x)``: a caller that passes the argument gets it back
            # unchanged, so its call reads the returns without that statement (``_inline``)
            plain = self._helper_body(found, [s for s in statements if s not in fills])
            self.unfilled[found] = (frozenset(fills.values()), tuple(_distinct_returns(plain)))
        parameters = _parameters(node)
        result = (parameters, tuple(returns)) if 0 < len(returns) <= MAX_CHOICES and \
            all(dag_size(r, MAX_EXPRESSION_NODES) <= MAX_EXPRESSION_NODES for r in returns) else None
        self.returns[found] = result
        return result

    def _part_asked(self, node: cst.Call) -> tuple[int, int] | None:
        """(position, parts) when an unpacking reads one part of the call ``node`` (``_helper_part``), else None."""
        return self.unpacking[1:] if self.unpacking is not None and self.unpacking[0] is node else None

    def _part_returns(self, found: tuple[str, str], position: int,
                      count: int) -> tuple[list[str], tuple[sympy.Basic, ...]] | None:
        """(parameters, (the value,)) of value ``position`` of the helper ``found`` when every one of its ``return``
        statements returns a tuple of ``count`` values and those values read alike, as ``_return_of`` reads a helper
        with each ``return`` giving that value only; else None (a helper whose parts differ by mode may hand an
        argument back where the call switches the mode off)."""
        entry = (*found, position, count)
        if entry in self.part_returns:
            return self.part_returns[entry]
        node = self.functions[found]
        returned = _returned(node)
        result = None
        if returned and found not in self.in_progress and all(
                isinstance(v, cst.Tuple) and len(v.elements) == count
                and not any(isinstance(e, cst.StarredElement) for e in v.elements) for v in returned):
            statements = _statements(node)
            returns = _distinct_returns(self._helper_body(found, statements, position))
            parameters = _parameters(node)
            # one value only: a helper whose returns differ by mode (one hands an argument back when a flag is off)
            # gives a part whose mode the call may switch off, and no call as written stands beside it
            if len(returns) == 1 and dag_size(returns[0], MAX_EXPRESSION_NODES) <= MAX_EXPRESSION_NODES:
                result = (parameters, tuple(returns))
        self.part_returns[entry] = result
        return result


def _sequential_layer(attribute: str, position: int) -> str:
    """The function name a layer at ``position`` of the ``nn.Sequential`` bound to ``self.<attribute>`` reads as
    (``net_0``): ``_module_steps`` writes it, ``_built_classes`` records the class built under it."""
    return f"{attribute}_{position}"


def _built_classes(value: cst.BaseExpression, attribute: str) -> list[tuple[str, str]]:
    """(call name, class) for the module ``value`` builds, as ``self.<attribute>(x)`` calls read: the class's last
    component (``Linear`` for ``nn.Linear(4, 8)``), and for an ``nn.Sequential`` of built modules each one's under
    ``_sequential_layer``, the name ``_module_steps`` gives a layer inside it."""
    if not isinstance(value, cst.Call) or dotted_name(value.func) is None:
        return []
    cls = str(dotted_name(value.func)).rsplit(".", 1)[-1]
    found = [(attribute, cls)]
    if cls == "Sequential":
        found += [(_sequential_layer(attribute, position), str(dotted_name(arg.value.func)).rsplit(".", 1)[-1])
                  for position, arg in enumerate(value.args)
                  if isinstance(arg.value, cst.Call) and dotted_name(arg.value.func) is not None]
    return found


def _distinct_returns(record: FunctionRecord) -> list[sympy.Basic]:
    """The distinct values a helper's body returns along its first path, a ``return None`` left out beside others."""
    returns = list(dict.fromkeys(c.expression for c in record.expressions if c.target == _RETURN))
    return [r for r in returns if r != _NONE] if len(returns) > 1 else returns


def _default_fill(statement: cst.BaseStatement, function: cst.FunctionDef) -> str | None:
    """The parameter ``statement`` only fills in when it is left at its default ``None`` (``if noise is None: noise
    = torch.randn_like(x)``, no ``else``), or ``None`` for any other statement."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return None
    test = statement.test
    if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Is)
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"):
        return None
    name = test.left.value
    if not any(p.name.value == name and isinstance(p.default, cst.Name) and p.default.value == "None"
               for p in (*function.params.params, *function.params.kwonly_params)):
        return None
    body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
    fills = len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
        and isinstance(body[0].body[0], cst.Assign) and len(body[0].body[0].targets) == 1 \
        and isinstance(body[0].body[0].targets[0].target, cst.Name) and body[0].body[0].targets[0].target.value == name
    return name if fills else None


def _written_call(node: cst.Call, operands: list[sympy.Basic], operations: Operations) -> sympy.Basic | None:
    """The uninterpreted call the translator gives ``node`` when nothing inlines it (``self.gate(y, g)`` reads
    ``gate(y, g)``), or ``None`` for a name the operations table knows (its library reading would differ)."""
    func = node.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    if name is None or (isinstance(func, cst.Name) and name in operations.operations):
        return None
    return sympy.Function(name)(*operands)  # q_sample() for a call passing keywords only, as the translator reads it


_AUG = {cst.AddAssign: cst.Add(), cst.SubtractAssign: cst.Subtract(), cst.MultiplyAssign: cst.Multiply(),
        cst.DivideAssign: cst.Divide(), cst.PowerAssign: cst.Power(), cst.MatrixMultiplyAssign: cst.MatrixMultiply()}


class _Assignments(Visitor):
    def __init__(self) -> None:
        self.found: list[cst.Assign] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a nested function's assignments are not the method's


def _overwritten_attributes(modules) -> Callable[[str, str], bool]:
    """``overwritten(class_name, attribute)``: whether code of the ``modules`` (libcst modules) other than the
    class's own methods may write the attribute of its instances: ``self.<attribute>`` assigned in a method of a
    class derived from it or of one it derives from (by base-class name, transitively: a mixin's setter), a derived
    class defining a method or property of that name, ``<object>.<attribute>`` assigned outside ``self`` anywhere
    (``layer.s = 0.0`` in a script), or ``setattr(..., "<attribute>", ...)``. Such an attribute is no constant
    ``__init__`` sets (``_Builder._constants``): the value read in ``forward`` may be another. Writes through a
    computed name (``setattr(m, k, v)``), ``__dict__`` or ``vars()`` are not seen."""
    writes = _AttributeWrites()
    for module in modules:
        visit(module, writes)
    # class name -> base-class name: the classes deriving from a class are its ancestors here, its bases descendants
    hierarchy = networkx.DiGraph([(name, base) for name, bases in writes.bases.items() for base in bases])

    def overwritten(class_name: str, attribute: str) -> bool:
        if attribute in writes.outside:
            return True
        if class_name not in hierarchy:
            return False
        return any(attribute in writes.own.get(d, set()) | writes.defined.get(d, set())
                   for d in networkx.ancestors(hierarchy, class_name)) \
            or any(attribute in writes.own.get(a, set()) for a in networkx.descendants(hierarchy, class_name))

    return overwritten


class _AssignedTargets(Visitor):
    """A pass over the targets of plain, augmented and annotated assignments, a tuple's or list's elements one by
    one (``_target``, which each pass defines)."""

    def _target(self, target: cst.BaseExpression) -> None:
        raise NotImplementedError

    def _add(self, target: cst.BaseExpression) -> None:
        for element in [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]:
            self._target(element)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._add(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)


class _AttributeWrites(_AssignedTargets):
    """Attribute writes of a module (``_overwritten_attributes``): ``own`` the ``self.<name>`` written in each
    class's methods and ``defined`` the names of its methods (by class name), ``outside`` the attributes written on
    anything else or through ``setattr`` with a literal name, ``bases`` each class's base-class names (last
    components)."""

    def __init__(self) -> None:
        self.own: dict[str, set[str]] = {}
        self.defined: dict[str, set[str]] = {}
        self.outside: set[str] = set()
        self.bases: dict[str, set[str]] = {}
        self.classes: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)
        found = {str(name).rsplit(".", 1)[-1] for a in node.bases if (name := dotted_name(a.value))}
        self.bases.setdefault(node.name.value, set()).update(found)
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        self.defined.setdefault(node.name.value, set()).update(
            s.name.value for s in body if isinstance(s, cst.FunctionDef))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def _target(self, target: cst.BaseExpression) -> None:
        if not isinstance(target, cst.Attribute):
            return
        if isinstance(target.value, cst.Name) and target.value.value == "self" and self.classes:
            self.own.setdefault(self.classes[-1], set()).add(target.attr.value)
        else:
            self.outside.add(target.attr.value)

    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) in ("setattr", "object.__setattr__") and len(node.args) >= 2 \
                and isinstance(node.args[1].value, cst.SimpleString):
            self.outside.add(str(node.args[1].value.evaluated_value))


class _SelfTargets(_AssignedTargets):
    def __init__(self) -> None:
        self.found: list[str] = []

    def _target(self, target: cst.BaseExpression) -> None:
        name = dotted_name(target)
        if name and name.startswith("self."):
            self.found.append(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


# nn.Module's method that stores a tensor as an attribute of the module (torch.nn.Module.register_buffer: the
# attribute named by its first argument holds its second)
_REGISTER_BUFFER = "self.register_buffer"


def _buffer(small: cst.BaseSmallStatement, registers: set[str]) -> tuple[str, cst.BaseExpression] | None:
    """The attribute (``self.<name>``) and the value of a statement storing a buffer: a call of one of
    ``registers`` (``self.register_buffer``, or a local lambda calling it) with a string name and a value as its
    first two positional arguments; ``None`` for any other statement."""
    call = small.value if isinstance(small, cst.Expr) else None
    if not isinstance(call, cst.Call) or dotted_name(call.func) not in registers or len(call.args) < 2 \
            or any(a.keyword is not None or a.star for a in call.args[:2]):
        return None
    name = call.args[0].value
    text = name.evaluated_value if isinstance(name, cst.SimpleString) else None
    if not isinstance(text, str) or not text.isidentifier():
        return None
    return f"self.{text}", call.args[1].value


def _buffer_alias(small: cst.BaseSmallStatement) -> str | None:
    """The local name a statement binds to a lambda storing buffers (``register_buffer = lambda name, val:
    self.register_buffer(name, val.to(torch.float32))``, the DDPM code lineage), or ``None``."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Lambda) and isinstance(small.value.body, cst.Call)
            and dotted_name(small.value.body.func) == _REGISTER_BUFFER):
        return None
    parameters = [p.name.value for p in small.value.params.params]
    first = small.value.body.args[0].value if small.value.body.args else None
    if not parameters or not (isinstance(first, cst.Name) and first.value == parameters[0]):
        return None
    return small.targets[0].target.value


def _number(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a literal number, signed or not (``1.0``, ``-2``)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _self_targets(function: cst.FunctionDef) -> list[str]:
    """Every ``self.<name>`` the body of ``function`` assigns (plainly, by augmented or annotated assignment, or in
    an unpacking), once per assignment; nested functions left out."""
    visitor = _SelfTargets()
    visit(function.body, visitor)
    return visitor.found


def _receiver(func: cst.Attribute) -> str | None:
    """The dotted name of the object whose method ``func`` is (``gen`` of ``gen.generate``, ``self.sampler`` of
    ``self.sampler.draw``), or None for a method of ``self`` itself or a receiver that is no dotted name."""
    receiver = dotted_name(func.value)
    return receiver if receiver not in (None, "self", "cls") else None


def _parameters(node: cst.FunctionDef) -> list[str]:
    """The names of a function's parameters, ``self`` and ``cls`` left out: what a call's operands bind to."""
    return [p.name.value for p in node.params.params if p.name.value not in ("self", "cls")]


def _statements(node: cst.FunctionDef) -> list:
    """A function's body statements (a one-line body as its one statement)."""
    return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else [node.body]


def _named_result(name: str, part: sympy.Basic | None) -> sympy.Basic | None:
    """A value a helper returns under the name the caller unpacks it to: the choice of that name, a leaf as a
    paper's symbol for the quantity would be (``x_e`` for an end point the helper samples), and what the helper
    computes (``choice`` as for a module's call: read both ways)."""
    if part is None:
        return None
    values = part.args if isinstance(part, AppliedUndef) and part.func.__name__ == CHOICE else (part,)
    return sympy.Function(CHOICE)(sympy.Symbol(name), *values)


def _displayed(target, value, state: "_State",
               paths: list["_Path"]) -> list[tuple[str, sympy.Basic, list, list]] | None:
    """``q, k = self.w_q(x), self.w_k(x)``: for a tuple target bound from a tuple display of as many elements, each
    plain name (``_`` left out) with its element's form as written, its substituted form along each path and the
    bindings it reads on each path, all read before any name is bound, as Python evaluates the right side first
    (``a, b = b, a`` binds ``a`` to the old ``b``); a nested or other target element binds nothing. ``None`` for any
    other assignment, and when an element is starred (which part a name holds depends on lengths)."""
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))) \
            or len(target.elements) != len(value.elements) \
            or any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)):
        return None
    found = []
    for element, part in zip(target.elements, value.elements):
        name = dotted_name(element.value)
        if name is None or name == "_":
            continue
        direct = state.plain.translate(part.value)
        found.append((name, direct, [state.translate(part.value, path) for path in paths],
                      [path.uses(direct) for path in paths]))
    return found


def _target_names(target, position: tuple[int, ...] = (),
                  shape: tuple[int, ...] = ()) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]] | None:
    """Each plain name of a tuple target with its positions (outer first) and the target's length at each of those
    levels (``out, (h, c)``: ``out`` at ``(0,)`` of ``(2,)``, ``h`` at ``(1, 0)`` of ``(2, 2)``); ``_`` (a part
    thrown away) and other targets (``x[i]``) left out. ``None`` when an element is starred (``a, *rest``: which
    part each name holds depends on the length)."""
    elements = target.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    found = []
    for index, element in enumerate(elements):
        where, lengths = (*position, index), (*shape, len(elements))
        if isinstance(element.value, (cst.Tuple, cst.List)):
            inner = _target_names(element.value, where, lengths)
            if inner is None:
                return None
            found.extend(inner)
            continue
        name = dotted_name(element.value)
        if name is not None and name != "_":
            found.append((name, where, lengths))
    return found


class _Returns(Visitor):
    def __init__(self) -> None:
        self.found: list[cst.BaseExpression | None] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _returned(function: cst.FunctionDef) -> list[cst.BaseExpression | None]:
    """The value of every ``return`` in the body of ``function`` (``None`` for a bare one), nested functions left
    out."""
    visitor = _Returns()
    visit(function.body, visitor)
    return visitor.found


def _assignments(function: cst.FunctionDef) -> list[cst.Assign]:
    """Every assignment statement in the body of ``function`` (in branches too), nested functions left out."""
    visitor = _Assignments()
    visit(function.body, visitor)
    return visitor.found


def _definitions(statements, prefix: str):
    """(qualname, FunctionDef) of every function and method, nested ones included, in source order."""
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            qualname = f"{prefix}{statement.name.value}"
            yield qualname, statement
            if isinstance(statement.body, cst.IndentedBlock):
                yield from _definitions(statement.body.body, f"{qualname}.")
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            yield from _definitions(statement.body.body, f"{prefix}{statement.name.value}.")
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            for block in _blocks(statement):
                yield from _definitions(block, prefix)


def _blocks(statement) -> list:
    """The statement lists nested directly in a compound statement (bodies, else, except, finally)."""
    blocks = []
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        blocks.append(body.body)
    for handler in getattr(statement, "handlers", ()) or ():
        if isinstance(handler.body, cst.IndentedBlock):
            blocks.append(handler.body.body)
    for attribute in ("orelse", "finalbody"):
        extra = getattr(statement, attribute, None)
        if isinstance(extra, cst.If):
            blocks.append([extra])  # elif: read as a statement of its own
        elif extra is not None and isinstance(getattr(extra, "body", None), cst.IndentedBlock):
            blocks.append(extra.body.body)
    return blocks


MAX_PATHS = 4  # paths through ``if`` statements followed per function (``_distinct`` says which are kept)


class _State:
    """What the statements of one body share: the substituting and the plain translator, and the positions."""

    def __init__(self, translator: Translator, plain: Translator, positions) -> None:
        self.translator = translator
        self.plain = plain
        self.positions = positions

    def translate(self, node, path: "_Path", extra: dict | None = None) -> sympy.Basic:
        """``node`` with the locals of ``path`` (and ``extra``) substituted."""
        self.translator.env = {**path.env, **extra} if extra else path.env
        return self.translator.translate(node)


class _Path:
    """One path through the ``if`` statements read so far: each local's substituted expression (``env``) and its
    binding, and, inside a loop, the accumulations seen (``total = total + term``)."""

    def __init__(self, env: dict, bindings: dict | None = None, accumulated: dict | None = None,
                 loops: int = 0) -> None:
        self.env = env
        self.bindings: dict[str, Binding] = bindings if bindings is not None else {}
        self.accumulated: dict[str, tuple[Binding | None, Binding, str]] = \
            accumulated if accumulated is not None else {}
        self.loops = loops

    @property
    def in_loop(self) -> bool:
        return self.loops > 0

    def copy(self) -> "_Path":
        return _Path(dict(self.env), dict(self.bindings), dict(self.accumulated), self.loops)

    def uses(self, direct: sympy.Basic) -> tuple[tuple[str, Binding], ...]:
        names = sorted(s.name for s in dag_nodes(direct, 1 << 30) or ()
                       if isinstance(s, sympy.Symbol) and s.name in self.bindings)
        return tuple((name, self.bindings[name]) for name in names)

    def bind(self, name: str, binding: Binding) -> None:
        if dag_size(binding.expression, MAX_EXPRESSION_NODES) > MAX_EXPRESSION_NODES or \
                sprawls((binding.expression,)):
            self.forget(name)  # too large to carry on: later statements see the name itself
            return
        self.env[name] = binding.expression
        self.bindings[name] = binding

    def forget(self, name: str) -> None:
        self.env.pop(name, None)
        self.bindings.pop(name, None)

    def accumulate(self, name: str, term: Binding, kind: str) -> None:
        if name not in self.accumulated:
            self.accumulated[name] = (self.bindings.get(name), term, kind)

    def start_loop(self) -> dict:
        saved, self.accumulated = self.accumulated, {}
        self.loops += 1
        return saved

    def end_loop(self, outer: dict) -> None:
        """After the loop an accumulator holds its start plus the sum of its per-step term (``total += term``), or
        times their product (``p *= term``)."""
        self.loops -= 1
        for name, (start, term, kind) in sorted(self.accumulated.items()):
            initial = start.expression if start is not None else sympy.Symbol(name)
            combine = (lambda a, b: a + b) if kind == "sum" else (lambda a, b: a * b)
            expression = combine(initial, sympy.Function(kind)(term.expression))
            direct = combine(sympy.Symbol(name), sympy.Function(kind)(term.direct))
            uses = ((name, start),) if start is not None else ()
            self.bind(name, Binding(direct, uses + term.uses, expression))
        self.accumulated = dict(outer)


def _distinct(paths: list[_Path]) -> list[_Path]:
    """The paths with distinct bindings, in order, at most ``MAX_PATHS``: past it the first ones and the last one,
    which takes no optional branch (no mask, no cache, no ablation flag), the form a paper's formula describes."""
    kept: list[_Path] = []
    for path in paths:
        if not any(path.env == other.env for other in kept):
            kept.append(path)
    return kept if len(kept) <= MAX_PATHS else kept[:MAX_PATHS - 1] + kept[-1:]


_AUG_KIND = {cst.AddAssign: "sum", cst.MultiplyAssign: "prod"}


def _accumulated_term(direct: sympy.Basic, name: str) -> tuple[sympy.Basic | None, str]:
    """The term ``t`` of an accumulation ``name = name + t`` (kind ``sum``) or ``name = name * t`` (``prod``), from
    ``direct`` as written; ``(None, "")`` for any other assignment."""
    symbol = sympy.Symbol(name)
    if isinstance(direct, sympy.Add) and symbol in direct.args:
        rest, kind = direct - symbol, "sum"
    elif isinstance(direct, sympy.Mul) and symbol in direct.args:
        rest, kind = direct / symbol, "prod"
    else:
        return None, ""
    return (None, "") if rest.has(symbol) else (rest, kind)


def _split_whole(form: sympy.Basic, operations: Operations) -> sympy.Basic | None:
    """The tensor a translated ``split(x, n)`` / ``chunk(x, n)`` cuts into segments (a call whose ``outputs`` are
    parts alike, ``parts: indexed``), or None."""
    entry = operations.outputs.get(form.func.__name__) if isinstance(form, AppliedUndef) else None
    if entry is not None and not entry.parts and form.args:
        return form.args[0]
    return None


def _forget(target, path: "_Path") -> None:
    """Drop every name bound by ``target`` (a tuple, a starred name, a subscript's base) from ``path``."""
    for node in _names_in(target):
        path.forget(node)


def _names_in(target) -> list[str]:
    name = dotted_name(target)
    if name is not None:
        return [name]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names_in(element.value)]
    if isinstance(target, (cst.StarredElement, cst.Subscript)):
        return _names_in(target.value)
    return []


def _collect_callees(node, record: FunctionRecord, skip_bodies: bool) -> None:
    """Add to ``record.callees`` the names ``node`` calls (``_call_names``)."""
    record.callees.update(_call_names(node, skip_bodies))


def _call_names(node, skip_bodies: bool) -> set[str]:
    """The last name component of every call in ``node``, not inside nested function or class definitions, nor
    (``skip_bodies``) inside indented blocks, whose statements are visited on their own. A walk over the node's
    fields (``child_nodes``) that leaves out tokens (``token_classes``), which hold no call: several times cheaper
    than a libcst visitor, and the names are a set, so the order of the walk does not matter. Node classes are
    compared exactly: libcst's are never subclassed, and ``isinstance`` on them goes through ``ABCMeta``."""
    tokens = token_classes()
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Call:
            name = dotted_name(current.func)
            if name is None and type(current.func) is cst.Attribute:
                name = current.func.attr.value
            if name is not None:
                found.add(name.rsplit(".", 1)[-1])
        elif kind is cst.FunctionDef or kind is cst.ClassDef or (skip_bodies and kind is cst.IndentedBlock):
            continue
        stack.extend(child for child in child_nodes(current) if type(child) not in tokens)
    return found


def _docstring(node: cst.FunctionDef) -> str:
    text = node.get_docstring(clean=True)
    return text or ""
