"""Candidate expressions for the D2 rule: every assignment and return value of the repository, as sympy.

Within a function body (and a module's top-level code) statements are read in source order and each local
definition is substituted into the expressions after it (def-use along the statement order, branches read in
sequence), so that a formula split over several local variables reads as one expression. A call of a small helper
of the repository (a function of the same module, a method of the same class, or a function whose name is
unique in the repository) is inlined when the helper returns one expression: ``justnorm(h)`` reads as
``h / sqrt(sum(h**2))``. Nothing is executed; see ``extractors.formulas`` for the translation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import sympy

from extractors.facts import RepositoryIndex
from extractors.formulas import Operations, Translator, source_text
from extractors.values import dotted_name
from sau.vocabulary import Location, split_where

MAX_EXPRESSION_NODES = 400  # a definition larger than this stays a name: bounds the work of every comparison
_INLINE_DEPTH = 3
_RETURN = "return"


@dataclass(frozen=True)
class CodeExpression(Location):
    """One candidate, where its statement is (``sau.vocabulary.Location``): ``target`` the assigned name (``loss``,
    ``self.scale``) or ``"return"``; ``expression`` the sympy form with earlier local definitions substituted;
    ``function`` the qualified name of the enclosing function (``<module>`` for top-level code); ``text`` the
    statement's source on one line; ``direct`` the form as written, when it differs."""

    target: str
    expression: sympy.Basic
    function: str
    text: str
    direct: sympy.Basic | None = None

    def forms(self) -> tuple[sympy.Basic, ...]:
        """The forms to compare: substituted first, then direct."""
        return (self.expression,) if self.direct is None else (self.expression, self.direct)


@dataclass
class FunctionRecord:
    """A function (or a module's top-level code) and what the D2 rule asks of it: ``qualname`` (``Cls.method``),
    ``name``, ``docstring``, ``callees`` (last components of the names it calls), ``targets`` (names it assigns),
    ``expressions`` (its candidates, in statement order), ``line`` where it starts, and ``node`` its libcst
    definition (the same object the call graph holds)."""

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


def code_expressions(index: RepositoryIndex, operations: Operations) -> list[FunctionRecord]:
    """The function records of every Python source in ``index``, with expressions translated through
    ``operations``. Costly: rules take it through an analysis provider of the index (``RepositoryIndex.analysis``),
    so that one run builds it once. Never raises on unusual code: a construct without formula meaning becomes an
    opaque symbol."""
    return _Builder(index, operations).build()


def dag_size(expression: sympy.Basic, limit: int) -> int:
    """The number of distinct subexpressions of ``expression``, counting stops past ``limit``.

    Shared subexpressions count once, so the count is linear in memory even when the printed tree is exponential.
    """
    seen: set = set()
    stack = [expression]
    while stack and len(seen) <= limit:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(node.args)
    return len(seen)


class _Builder:
    def __init__(self, index: RepositoryIndex, operations: Operations) -> None:
        self.index = index
        self.operations = operations
        self.functions: dict[tuple[str, str], cst.FunctionDef] = {}  # (source key, qualname) -> def
        self.by_name: dict[str, list[tuple[str, str]]] = {}
        self.returns: dict[tuple[str, str], tuple[list[str], sympy.Basic] | None] = {}
        self.in_progress: set[tuple[str, str]] = set()

    def build(self) -> list[FunctionRecord]:
        definitions = {key: list(_definitions(module.body, "")) for key, module in sorted(self.index.modules.items())}
        for key, found in definitions.items():
            for qualname, node in found:
                self.functions[(key, qualname)] = node
                self.by_name.setdefault(node.name.value, []).append((key, qualname))
        records = []
        for key, module in sorted(self.index.modules.items()):
            positions = self.index.positions[key]
            file, cell = split_where(key)
            top = FunctionRecord("<module>", "<module>", file, 1, cell)
            self._body(module.body, top, key, "", positions, {})
            records.append(top)
            for qualname, node in definitions[key]:
                record = FunctionRecord(qualname, node.name.value, file, positions[node].start.line,
                                        int(cell) if cell else None, _docstring(node), node=node)
                try:
                    self._body(node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body], record,
                               key, qualname, positions, {})
                except (RecursionError, TypeError, ValueError, ArithmeticError):
                    record.expressions.clear()  # sympy refused this function's code: it offers no candidates
                records.append(record)
        return records

    # -- one body -----------------------------------------------------------------------------------------------
    def _body(self, statements, record: FunctionRecord, key: str, qualname: str, positions, env: dict) -> None:
        def resolve(node, operands):
            return self._inline(node, operands, key, qualname)

        translator = Translator(self.operations, env=env, resolve_call=resolve)
        plain = Translator(self.operations, resolve_call=resolve)  # no substitution: the direct form
        for statement in statements:
            self._statement(statement, record, (translator, plain), positions)

    def _statement(self, statement, record: FunctionRecord, translators: tuple[Translator, Translator],
                   positions) -> None:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return  # a nested definition is its own record
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, statement, record, translators, positions)
            return
        _collect_callees(statement, record, skip_bodies=True)
        env = translators[0].env
        if isinstance(statement, cst.For):
            _forget(statement.target, env)
        if isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    _forget(item.asname.name, env)
        for block in _blocks(statement):
            for inner in block:
                self._statement(inner, record, translators, positions)

    def _small(self, small, line_node, record: FunctionRecord, translators: tuple[Translator, Translator],
               positions) -> None:
        _collect_callees(small, record, skip_bodies=False)
        translator, plain = translators
        env = translator.env
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            expression = translator.translate(small.value)
            direct = plain.translate(small.value) if env else expression
            for target in targets:
                name = dotted_name(target)
                if name is None:
                    _forget(target, env)
                    continue
                self._bind(name, expression, small, line_node, record, env, positions, direct)
        elif isinstance(small, cst.AugAssign):
            name = dotted_name(small.target)
            if name is None:
                return
            current = env.get(name, sympy.Symbol(name))
            combined = cst.BinaryOperation(cst.Name("__left__"), _AUG[type(small.operator)], small.value) \
                if type(small.operator) in _AUG else None
            if combined is None:
                env.pop(name, None)
                return
            env["__left__"] = current
            expression = translator.translate(combined)
            env.pop("__left__", None)
            direct = plain.translate(cst.BinaryOperation(small.target, combined.operator, small.value))
            self._bind(name, expression, small, line_node, record, env, positions, direct)
        elif isinstance(small, cst.Return) and small.value is not None:
            expression = translator.translate(small.value)
            direct = plain.translate(small.value) if env else expression
            record.expressions.append(self._candidate(_RETURN, expression, small, line_node, record, positions,
                                                      direct))

    def _bind(self, name, expression, small, line_node, record, env, positions, direct) -> None:
        record.targets.add(name.rsplit(".", 1)[-1])
        record.expressions.append(self._candidate(name, expression, small, line_node, record, positions, direct))
        if dag_size(expression, MAX_EXPRESSION_NODES) > MAX_EXPRESSION_NODES:
            env.pop(name, None)  # too large to carry on: later statements see the name itself
        else:
            env[name] = expression

    def _candidate(self, target, expression, small, line_node, record, positions, direct) -> CodeExpression:
        where = positions.get(line_node) or positions.get(small)
        line, end = (where.start.line, where.end.line) if where else (record.line, record.line)
        return CodeExpression(record.file, line, end, target, expression, record.qualname, source_text(small),
                              None if direct == expression else direct, cell=record.cell)

    # -- helpers ------------------------------------------------------------------------------------------------
    def _inline(self, node: cst.Call, operands: list[sympy.Basic], key: str, qualname: str) -> sympy.Basic | None:
        found = self._resolve(node.func, key, qualname)
        if found is None or len(self.in_progress) >= _INLINE_DEPTH:
            return None
        result = self._return_of(found)
        if result is None:
            return None
        parameters, expression = result
        if len(operands) > len(parameters):
            return None
        mapping = {sympy.Symbol(p): o for p, o in zip(parameters, operands)}
        try:
            return expression.xreplace(mapping)
        except (TypeError, ValueError, ArithmeticError):  # sympy refusing to rebuild: leave the call uninterpreted
            return None

    def _resolve(self, func, key: str, qualname: str) -> tuple[str, str] | None:
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
        return None

    def _return_of(self, found: tuple[str, str]) -> tuple[list[str], sympy.Basic] | None:
        if found in self.returns:
            return self.returns[found]
        if found in self.in_progress:
            return None  # recursion
        self.in_progress.add(found)
        node = self.functions[found]
        record = FunctionRecord(found[1], node.name.value, "", 0, None)
        statements = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
        positions: dict = {}  # a helper read only to be inlined needs no line numbers
        self._body(statements, record, found[0], found[1], positions, {})
        self.in_progress.discard(found)
        returns = [c.expression for c in record.expressions if c.target == _RETURN]
        parameters = [p.name.value for p in node.params.params if p.name.value not in ("self", "cls")]
        result = (parameters, returns[0]) if len(returns) == 1 and \
            dag_size(returns[0], MAX_EXPRESSION_NODES) <= MAX_EXPRESSION_NODES else None
        self.returns[found] = result
        return result


_AUG = {cst.AddAssign: cst.Add(), cst.SubtractAssign: cst.Subtract(), cst.MultiplyAssign: cst.Multiply(),
        cst.DivideAssign: cst.Divide(), cst.PowerAssign: cst.Power(), cst.MatrixMultiplyAssign: cst.MatrixMultiply()}


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


def _forget(target, env: dict) -> None:
    """Drop every name bound by ``target`` (a tuple, a starred name, a subscript's base) from ``env``."""
    for node in _names_in(target):
        env.pop(node, None)


def _names_in(target) -> list[str]:
    name = dotted_name(target)
    if name is not None:
        return [name]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names_in(element.value)]
    if isinstance(target, (cst.StarredElement, cst.Subscript)):
        return _names_in(target.value)
    return []


class _CalleeCollector(cst.CSTVisitor):
    def __init__(self, record: FunctionRecord, skip_bodies: bool) -> None:
        self.record = record
        self.skip_bodies = skip_bodies

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func)
        if name is None and isinstance(node.func, cst.Attribute):
            name = node.func.attr.value
        if name is not None:
            self.record.callees.add(name.rsplit(".", 1)[-1])

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        return not self.skip_bodies  # statements inside are visited on their own

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _collect_callees(node, record: FunctionRecord, skip_bodies: bool) -> None:
    node.visit(_CalleeCollector(record, skip_bodies))


def _docstring(node: cst.FunctionDef) -> str:
    text = node.get_docstring(clean=True)
    return text or ""
