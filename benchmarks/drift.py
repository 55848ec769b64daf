"""Drift injection: mutation operators that plant one known drift in a copy of a repository, at code the verifier
judged to implement a SAU, so that the benchmark can test whether the verifier notices.

Each operator takes a file's text, its relative path and a line (from a verdict's evidence) and returns an ``Edit``
(the new text, the line span it changed and a description), or ``None`` when it finds nothing to change there.
Python is edited through libcst syntax trees (the code is parsed, never imported or run); configuration files
(YAML, JSON, TOML), which libcst cannot read, by replacing the one number token on the evidence line.

Operators, by drift kind (the drift kinds of ARCHITECTURE.md, "Terms"; the dimension whose SAUs they target in
brackets):

- ``numerical`` [D1] ``change_constant``: the number on the line that equals a claimed value is doubled (or set to
  1 when it is 0), avoiding every claimed value.
- ``method`` [D2] ``flip_sign``: the outermost ``+``/``-`` on the line becomes the other, or a unary minus is
  dropped; ``drop_term``: the outermost ``a + b`` / ``a - b`` on the line becomes ``a``.
- ``protocol`` [D3] ``remove_call``: the statement calling the dataset, baseline or metric on the line no longer
  calls it (an expression statement becomes ``pass``, an assigned call ``None``).
- ``ordering`` [D4] ``swap_steps``: the statement on the line trades places with the other step's statement when
  both sit in one block, else with its next (or previous) sibling.
- ``stub`` [any dimension] ``stub_function``: the body of the innermost function around the line becomes
  ``raise NotImplementedError`` (STB002 in ``extractors.stubs``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from extractors.configs import scalar
from extractors.values import dotted_name, fold, is_number
from rules import compare, names
from sau.vocabulary import Value

NUMERICAL, METHOD, PROTOCOL, ORDERING, STUB = "numerical", "method", "protocol", "ordering", "stub"
KINDS = (NUMERICAL, METHOD, PROTOCOL, ORDERING, STUB)
# The dimension whose SAUs each kind targets; None: any dimension.
KIND_DIMENSION: dict[str, str | None] = {NUMERICAL: "D1", METHOD: "D2", PROTOCOL: "D3", ORDERING: "D4", STUB: None}
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")


@dataclass(frozen=True)
class Edit:
    """One applied mutation: ``file`` relative POSIX path, ``line``..``end_line`` (1-based, inclusive, in the
    original text) the span it changed, ``operator`` its name, ``description`` what changed (``lr: 0.0001 ->
    0.0002``), ``text`` the whole new file text."""

    file: str
    line: int
    end_line: int
    operator: str
    description: str
    text: str


def _parse(text: str) -> tuple[cst.Module, MetadataWrapper] | None:
    try:
        module = cst.parse_module(text)
    except Exception:  # libcst raises ParserSyntaxError and, on odd input, others: not applicable
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return module, wrapper


class _Collect(cst.CSTVisitor):
    """Nodes of the wanted types, in source order (outermost first), with their positions."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, types: tuple[type, ...]) -> None:
        self.types = types
        self.found: list[tuple[cst.CSTNode, int, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, self.types):
            where = self.get_metadata(PositionProvider, node)
            self.found.append((node, where.start.line, where.end.line))
        return True


def _nodes(wrapper: MetadataWrapper, types: tuple[type, ...]) -> list[tuple[cst.CSTNode, int, int]]:
    collector = _Collect(types)
    wrapper.visit(collector)
    return collector.found


class _Replace(cst.CSTTransformer):
    """Replace nodes by identity (``{original: replacement}``); a replacement may be ``cst.RemovalSentinel`` or a
    ``FlattenSentinel``."""

    def __init__(self, replacements: dict[cst.CSTNode, object]) -> None:
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        return self.replacements.get(original_node, updated_node)


def _rewrite(module: cst.Module, replacements: dict[cst.CSTNode, object]) -> str:
    return module.visit(_Replace(replacements)).code


# -- numerical ---------------------------------------------------------------------------------------------------
def other_number(value: int | float, avoid: Sequence[Value] = ()) -> int | float:
    """A number different from ``value`` and from every number in ``avoid``: ``value`` doubled (``1`` for 0), else
    times 10, 3 or 7, else plus 1 or 3, the first that fits. ``int`` stays ``int``. Raises ``ValueError`` when none
    fits."""
    candidates = [value * 2, value * 10, value * 3, value * 7, value + 1, value + 3] if value else [1, 2, 5, 7]
    for candidate in candidates:
        candidate = int(candidate) if isinstance(value, int) else float(f"{candidate:.12g}")  # 3e-4*10: 0.003
        if not compare.numbers_equal(candidate, value) and not any(
                is_number(a) and compare.numbers_equal(candidate, a) for a in avoid):
            return candidate
    raise ValueError(f"no replacement for {value!r} avoids the claimed values")


def _number_text(value: int | float) -> str:
    return str(value) if isinstance(value, int) else repr(value)


def _pick(values: list[Value], claimed: Sequence[Value]) -> int | None:
    """The position of the first number equal to a claimed one; the first number at all when nothing is claimed."""
    for position, value in enumerate(values):
        if not is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
            continue
        if not claimed or any(compare.equal(c, value) is True for c in claimed):
            return position
    return None


def change_constant(text: str, file: str, line: int, claimed: Sequence[Value] = (),
                    avoid: Sequence[Value] = ()) -> Edit | None:
    """Numerical drift: change the first number on ``line`` that equals one of ``claimed`` (any number when
    ``claimed`` is empty) to ``other_number``, avoiding ``claimed`` and ``avoid`` (the SAU's other claimed values).
    ``None`` when the line holds no such number or the file cannot be parsed."""
    if file.endswith(CONFIG_SUFFIXES):
        return _change_config_number(text, file, line, claimed, avoid)
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    found = [(node, start) for node, start, _ in _nodes(wrapper, (cst.Integer, cst.Float)) if start == line]
    position = _pick([fold(node) for node, _ in found], claimed)
    if position is None:
        return None
    node = found[position][0]
    try:
        new = other_number(fold(node), [*claimed, *avoid])
    except ValueError:  # every candidate is claimed somewhere: no clean drift to plant here
        return None
    replacement = node.with_changes(value=_number_text(new))
    return Edit(file, line, line, "change_constant", f"{node.value} -> {replacement.value}",
                _rewrite(module, {node: replacement}))


_NUMBER_TOKEN = re.compile(r"(?<![\w.\-])[-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def _change_config_number(text: str, file: str, line: int, claimed: Sequence[Value],
                          avoid: Sequence[Value]) -> Edit | None:
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    source = lines[line - 1]
    separator = re.search(r"[:=]", source)  # numbers in the key itself (layer_2:) are not the value
    start = separator.end() if separator else 0
    comment = source.find("#", start)
    end = comment if comment >= 0 and not file.endswith(".json") else len(source)
    tokens = list(_NUMBER_TOKEN.finditer(source, start, end))
    position = _pick([scalar(t.group()) for t in tokens], claimed)
    if position is None:
        return None
    token = tokens[position]
    try:
        new = other_number(scalar(token.group()), [*claimed, *avoid])
    except ValueError:
        return None
    lines[line - 1] = source[:token.start()] + _number_text(new) + source[token.end():]
    return Edit(file, line, line, "change_constant", f"{token.group()} -> {_number_text(new)}", "".join(lines))


# -- method ------------------------------------------------------------------------------------------------------
def _additive(wrapper: MetadataWrapper, line: int) -> list[tuple[cst.BinaryOperation, int, int]]:
    return [(node, start, end) for node, start, end in _nodes(wrapper, (cst.BinaryOperation,))
            if start == line and isinstance(node.operator, (cst.Add, cst.Subtract))]


def flip_sign(text: str, file: str, line: int) -> Edit | None:
    """Method drift: the outermost ``a + b`` starting on ``line`` becomes ``a - b`` (and ``-`` becomes ``+``); with
    no such operation, a unary minus there is dropped; with neither, the value computed by the assignment or
    ``return`` on ``line`` is negated when it is an operation or a call (``return w @ v`` becomes
    ``return -(w @ v)``). ``None`` when the line has none of these."""
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    additive = _additive(wrapper, line)
    if additive:
        node, start, end = additive[0]
        flipped = cst.Subtract if isinstance(node.operator, cst.Add) else cst.Add
        operator = flipped(whitespace_before=node.operator.whitespace_before,
                           whitespace_after=node.operator.whitespace_after)
        replacement = node.with_changes(operator=operator)
        old, new = ("+", "-") if flipped is cst.Subtract else ("-", "+")
        return Edit(file, start, end, "flip_sign", f"{old} -> {new} in {_short(module, node)}",
                    _rewrite(module, {node: replacement}))
    negations = [(node, start, end) for node, start, end in _nodes(wrapper, (cst.UnaryOperation,))
                 if start == line and isinstance(node.operator, cst.Minus)]
    if not negations:
        return _negate_value(module, wrapper, file, line)
    node, start, end = negations[0]
    return Edit(file, start, end, "flip_sign", f"dropped the minus of {_short(module, node)}",
                _rewrite(module, {node: node.expression}))


def _negate_value(module: cst.Module, wrapper: MetadataWrapper, file: str, line: int) -> Edit | None:
    # a computed value only (an operation or a call): negating a constant would be a numerical drift
    statements = [(node, start, end) for node, start, end in _nodes(wrapper, (cst.Assign, cst.AnnAssign, cst.Return))
                  if start == line and isinstance(getattr(node, "value", None), (cst.BinaryOperation, cst.Call))]
    if not statements:
        return None
    node, start, end = statements[0]
    value = node.value
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    negated = cst.UnaryOperation(operator=cst.Minus(), expression=value)
    return Edit(file, start, end, "flip_sign", f"negated {_short(module, node.value)}",
                _rewrite(module, {node.value: negated}))


def drop_term(text: str, file: str, line: int) -> Edit | None:
    """Method drift: the outermost ``a + b`` or ``a - b`` starting on ``line`` becomes ``a``. ``None`` when the
    line has no such operation."""
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    additive = _additive(wrapper, line)
    if not additive:
        return None
    node, start, end = additive[0]
    return Edit(file, start, end, "drop_term", f"dropped {_short(module, node.right)} from {_short(module, node)}",
                _rewrite(module, {node: node.left}))


def _short(module: cst.Module, node: cst.CSTNode, limit: int = 60) -> str:
    code = " ".join(module.code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


# -- protocol ----------------------------------------------------------------------------------------------------
def remove_call(text: str, file: str, line: int, wanted: Iterable[str] = ()) -> Edit | None:
    """Protocol drift: the call on ``line`` (the first whose callee's name contains one of ``wanted`` after
    ``rules.names.normalise``; the first call at all when ``wanted`` is empty) is removed: an expression statement
    becomes ``pass``, any other call ``None``. ``None`` when the line has no such call."""
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    keys = [names.normalise(w) for w in wanted if w.strip()]
    calls = []
    for node, start, end in _nodes(wrapper, (cst.Call,)):
        if start != line:
            continue
        callee = dotted_name(node.func) or ""
        if not keys or any(key and key in names.normalise(callee) for key in keys) \
                or any(key and key in names.normalise(_short(module, node, 400)) for key in keys):
            calls.append((node, start, end))
    if not calls:
        return None
    call, start, end = calls[0]
    statements = [node for node, s, _ in _nodes(wrapper, (cst.Expr,)) if s == start and node.value is call]
    description = f"removed {_short(module, call)}"
    if statements:
        return Edit(file, start, end, "remove_call", description,
                    _rewrite(module, {statements[0]: cst.Pass()}))
    return Edit(file, start, end, "remove_call", description, _rewrite(module, {call: cst.Name("None")}))


# -- ordering ----------------------------------------------------------------------------------------------------
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


def swap_steps(text: str, file: str, line: int, other_line: int | None = None) -> Edit | None:
    """Ordering drift: the statement starting on ``line`` trades places with the statement starting on
    ``other_line`` when both are in one block, else with its next sibling (its previous one when it is last).
    ``None`` when no statement starts on ``line`` or it has no sibling."""
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    positions = {node: (start, end) for node, start, end in _nodes(wrapper, _STATEMENTS)}
    blocks = [node for node, _, _ in _nodes(wrapper, (cst.Module, cst.IndentedBlock))]
    for block in reversed(blocks):  # innermost block first
        body = list(block.body)
        here = [i for i, statement in enumerate(body) if positions.get(statement, (0, 0))[0] == line]
        if not here:
            continue
        first = here[0]
        there = [i for i, statement in enumerate(body)
                 if other_line is not None and positions.get(statement, (0, 0))[0] == other_line and i != first]
        if there:
            second = there[0]
        elif first + 1 < len(body):
            second = first + 1
        elif first > 0:
            second = first - 1
        else:
            return None
        a, b = sorted((first, second))
        body[a], body[b] = body[b], body[a]
        span = (positions[body[b]][0], positions[body[a]][1])
        return Edit(file, span[0], span[1], "swap_steps",
                    f"swapped the statements at lines {positions[body[b]][0]} and {positions[body[a]][0]}",
                    _rewrite(module, {block: block.with_changes(body=body)}))
    return None


# -- stub --------------------------------------------------------------------------------------------------------
def stub_function(text: str, file: str, line: int) -> Edit | None:
    """Stub: the body of the innermost function whose span holds ``line`` becomes ``raise NotImplementedError``.
    ``None`` when ``line`` is outside every function or the file cannot be parsed."""
    parsed = _parse(text)
    if parsed is None:
        return None
    module, wrapper = parsed
    around = [(node, start, end) for node, start, end in _nodes(wrapper, (cst.FunctionDef,)) if start <= line <= end]
    if not around:
        return None
    function, start, end = around[-1]  # visited outermost first: the last one is the innermost
    body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Raise(exc=cst.Name("NotImplementedError"))])])
    return Edit(file, start, end, "stub_function", f"body of {function.name.value}() -> raise NotImplementedError",
                _rewrite(module, {function: function.with_changes(body=body)}))


# Operators by kind, tried in order at each evidence line.
OPERATORS: dict[str, tuple[Callable[..., Edit | None], ...]] = {
    NUMERICAL: (change_constant,), METHOD: (flip_sign, drop_term), PROTOCOL: (remove_call,),
    ORDERING: (swap_steps,), STUB: (stub_function,)}
