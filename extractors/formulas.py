"""Formulas and code expressions as sympy expressions, built from a syntax tree and never evaluated.

A claimed formula is written in Python expression syntax (``x / norm(x)``, ``softmax(q @ k.T / sqrt(d_k)) @ v``,
``-log(sigmoid(beta * (r_w - r_l)))``); a code expression is a libcst node of the repository under test. Both are
translated node by node with sympy constructors by the same ``Translator``; sympy's ``sympify``/``parse_expr``/
``lambdify`` are never used, because they run their input through ``eval`` (sympy issue #10805) and both kinds of
text are untrusted.

Translation: numbers become exact ``Rational``s; names and dotted names become ``Symbol``s (or, in code, the
expression a local definition bound them to: ``env``); ``+ - * / // ** %`` and unary minus map to sympy
arithmetic; ``@`` to an uninterpreted, non-commutative ``matmul``; comparisons to uninterpreted functions
(``less``, ``equal``; a formula's top-level ``==`` to ``sympy.Eq``); ``a if c else b`` to ``where(c, a, b)``;
``a[i]`` to an uninterpreted ``getitem`` (pure slicing such as ``x[:, None]`` keeps ``x``).
Calls are read through an ``Operations`` table (``rules/operations.yaml``: ``torch.exp(x)``, ``x.exp()`` and
``exp(x)`` all read ``exp``); without a table, ``exp log sqrt abs tanh sin cos sigmoid`` map to sympy's functions.
Any other call becomes an uninterpreted function of its operands, so that structure still compares.

A formula that cannot be translated raises ``FormulaError``. In code, a positive number up to 1e-4 becomes a
``small_constant`` symbol, so that the rule can read a stability term (``+ 1e-8``) as 0 instead of seeing it folded
into a neighbouring constant. Code is read leniently: a construct with no formula
meaning (a string, a lambda, a list) becomes an opaque symbol named by its source text, so the rest of the
expression still compares; a comprehension of one ``for`` over ``range(...)`` or a local array the code computes
reads as its element (``Translator._comprehension``), any other stays opaque. Size and depth are bounded in both
cases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import libcst as cst
import sympy
from sympy.core.function import AppliedUndef

from extractors.guards import too_complex
from extractors.sympy_graph import dag_nodes, substitute
from extractors.values import dotted_name, keyed_name

_MAX_DEPTH = 60
_MAX_NODES = 2000
_MAX_EXPONENT = 64
_MAX_DIGITS = 1000

_BASE = {
    "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "abs": sympy.Abs, "tanh": sympy.tanh,
    "sin": sympy.sin, "cos": sympy.cos, "sigmoid": lambda x: 1 / (1 + sympy.exp(-x)),
}
# Comparisons inside an expression are uninterpreted functions: sympy's relationals decide themselves when rebuilt
# (``Lt`` of two complex-valued expressions raises), and a formula only needs them to compare structurally.
_COMPARE = {cst.LessThan: "less", cst.LessThanEqual: "less_equal", cst.GreaterThan: "greater",
            cst.GreaterThanEqual: "greater_equal", cst.Equal: "equal", cst.NotEqual: "not_equal"}
_CONSTANTS = {"pi": sympy.pi, "e": sympy.E, "inf": sympy.oo}
_CONSTANT_OWNERS = {"math", "np", "numpy", "torch", "jnp"}
_OPERAND_LETTERS = "abcdefgh"
_EMPTY_MODULE = cst.Module([])

MISSING_OPERAND = sympy.Symbol("None")  # an optional operand the call left out (clamp(x, min=0) has no max)
SMALL_NUMBER = sympy.Rational(1, 10_000)  # code numbers at or below this are read as stability constants (1e-8)
SMALL_PREFIX = "<small "


def small_constant(number: sympy.Rational) -> sympy.Symbol:
    """The symbol a small positive code number (``1e-8``) translates to; ``small_value`` gives the number back."""
    return sympy.Symbol(f"{SMALL_PREFIX}{number}>")


def small_value(symbol: sympy.Symbol) -> sympy.Rational | None:
    """The number behind a ``small_constant`` symbol, or ``None`` for any other symbol."""
    if not symbol.name.startswith(SMALL_PREFIX):
        return None
    return sympy.Rational(symbol.name[len(SMALL_PREFIX):-1])


class FormulaError(ValueError):
    """A formula that cannot be parsed or translated; the message says what and where."""


@dataclass(frozen=True)
class Operation:
    """One entry of the operations table: ``operands`` leading positional arguments (``None``: all of them) are
    operands, ``keywords`` maps keyword names to operand letters, ``form`` is the result over the symbols
    ``a b c ...`` (``None`` for a variadic uninterpreted function named ``name``); ``identity`` returns the first
    operand unchanged; ``layout`` lists pairs of literal dimension arguments (``x.transpose(1, 2)``) with which the
    operation only moves axes of a batch of matrices and leaves the first operand's values as they are; ``joins``
    marks a concatenation (``Translator._join``): the function ``concat`` of its parts, or the values of the one
    collection it joins; ``defaults`` maps an operand letter to what the library uses when the call leaves that
    operand out (``scaled_dot_product_attention``'s scale, 1/sqrt of the head width), read in formula syntax over
    the other operands' letters (a pooling's stride, ``b``: its window); ``learned`` marks the declaration of a
    learned parameter (``nn.Parameter(t)``), which holds ``t`` where it is built and is never a constant of its
    module (``extractors.expressions``)."""

    name: str
    operands: int | None = 1
    keywords: dict[str, str] = field(default_factory=dict)
    form: sympy.Basic | None = None
    identity: bool = False
    layout: frozenset[tuple[int, ...]] = frozenset()
    joins: bool = False
    defaults: dict[str, sympy.Basic] = field(default_factory=dict)
    learned: bool = False


@dataclass(frozen=True)
class Outputs:
    """The outputs of a call returning several (an ``outputs`` or ``module_outputs`` entry of the table): ``parts``
    their names in order, a nested tuple for a part that is itself a tuple (``nn.LSTM``'s ``(h_n, c_n)``), empty
    for a call cutting its input into any number of parts alike (``torch.chunk``), part ``i`` read as the call's
    element ``i``; ``operands`` how many leading operands the parts keep (``None``: all); ``value`` the positions
    (outer first) of the part that reads as the call itself on those operands (``topk``'s values, ``nn.GRU``'s
    final hidden state)."""

    parts: tuple
    operands: int | None
    value: tuple[int, ...] = (0,)


@dataclass(frozen=True)
class Operations:
    """The table ``rules/operations.yaml`` describes, read by ``rules.operations.load``: operations by name,
    einsum subscripts (spaces removed) to forms, attribute reads to forms, module names whose attributes are
    functions (``torch.exp``) rather than methods of a value (``x.exp``), activation functions that are a specific
    choice (``relu``), function names that are placeholders (``activation``), the name words of submodules
    that leave values alone when a formula is read (``dropout``: ``self.attn_drop(x)`` reads as ``x``), and the
    library module classes that apply one operation (``nn.GELU`` -> ``gelu``; ``None``: the identity), and the
    method names that declare a learned parameter named by their first argument (Flax's ``self.param``), the
    calls returning several outputs (``topk`` -> values, indices) and the library module classes whose call does
    (``nn.GRU`` -> output, h_n), each with the operands its parts keep (``Outputs``), and the
    keyword settings that make a call compute another operation (``topk(x, k, largest=False)`` -> ``bottomk``), and
    the module classes whose call is a row lookup of their table (``nn.Embedding``), the calls that list indices
    (``arange``), and the parameter letters that name a learned network (``eps_theta``)."""

    operations: dict[str, Operation]
    einsum: dict[str, sympy.Basic]
    attributes: dict[str, sympy.Basic]
    modules: frozenset[str]
    activations: frozenset[str] = frozenset()
    placeholders: frozenset[str] = frozenset()
    identity_modules: frozenset[str] = frozenset()
    module_classes: dict[str, str | None] = field(default_factory=dict)
    parameters: frozenset[str] = frozenset()
    outputs: dict[str, Outputs] = field(default_factory=dict)
    # call name -> ((keyword, literal value, the operation the call then computes), ...): ``selections``
    selections: dict[str, tuple[tuple[str, object, str], ...]] = field(default_factory=dict)
    # library module classes whose call reads rows of their own table (``nn.Embedding``: ``self.emb(idx)`` is
    # ``emb[idx]``): ``lookup_modules``
    lookup_modules: frozenset[str] = frozenset()
    # calls listing indices (``arange``): ``arange(a, n, k)`` reads ``a + k * arange``, the leaf standing for the index
    index_ranges: frozenset[str] = frozenset()
    # the parameter letters that make a function name a learned network (``eps_theta``, ``f_phi``):
    # ``network_parameters``
    network_parameters: frozenset[str] = frozenset()
    # library module classes whose call returns several outputs, by class (``nn.GRU``: ``module_outputs``)
    module_outputs: dict[str, Outputs] = field(default_factory=dict)


def parse_formula(text: str, operations: Operations | None = None) -> sympy.Basic:
    """Translate formula text to a sympy expression. Raises ``FormulaError`` (never anything else on bad input)."""
    refused = too_complex(text)
    if refused is not None:  # libcst's native parser would crash the process on it (extractors.guards)
        raise FormulaError(f"formula nested too deeply: {refused}")
    try:
        node = cst.parse_expression(text.strip())
    except Exception as error:  # libcst raises ParserSyntaxError and, on odd input, others
        raise FormulaError(f"not a Python-syntax expression: {str(error).splitlines()[0]}") from None
    translator = Translator(operations, strict=True)
    try:
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 \
                and isinstance(node.comparisons[0].operator, cst.Equal):
            # an equation: lhs == rhs, kept as sympy.Eq for the rule to split
            return sympy.Eq(translator.translate(node.left), translator.translate(node.comparisons[0].comparator),
                            evaluate=False)
        return translator.translate(node)
    except RecursionError:
        raise FormulaError("formula nested too deeply") from None


def symbol_names(expression: sympy.Basic) -> set[str]:
    """Root names of the free symbols of a translated formula (``k`` for ``k.T``; the slice ``:`` left out)."""
    return {s.name.split(".")[0] for s in expression.free_symbols
            if isinstance(s, sympy.Symbol) and s.name not in (":", "None")}


def source_text(node: cst.CSTNode, limit: int = 120) -> str:
    """The source text of a libcst node on one line, cut to ``limit`` characters."""
    text = " ".join(_EMPTY_MODULE.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


WHOLE_AXIS = sympy.Symbol(":")  # a whole axis in an index; plus k, each element's k-th successor (``_slice_shift``)


def successor_index(index: sympy.Basic) -> bool:
    """Whether ``index`` is the one the translator gives a slice starting elements ahead (``x[1:]``:
    ``getitem(x, : + 1)``): ``:`` plus a positive integer."""
    return isinstance(index, sympy.Add) and len(index.args) == 2 and WHOLE_AXIS in index.args \
        and any(isinstance(a, sympy.Integer) and a > 0 for a in index.args)


def _slice_shift(node: cst.Subscript) -> int:
    """How many elements ahead a one-axis slice starts (``x[1:]`` -> 1, ``x[2:-1]`` -> 2), or 0: for any other
    subscript, a slice from the start (``x[:-1]``, ``x[:n]``), a step, or a start that is not a literal. Code writes
    consecutive elements of an array as two slices of it (``sigmas[1:]`` and ``sigmas[:-1]`` for sigma_(i+1) and
    sigma_i); read as the whole array both, they would cancel. The D2 readings also keep the whole-array reading
    (``rules.d2_formula``), for a slice that only drops a first element."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return 0
    part = node.slice[0].slice
    if part.step is not None or not isinstance(part.lower, cst.Integer):
        return 0
    return int(part.lower.evaluated_value)


class Translator:
    """Translates libcst expressions to sympy.

    ``operations`` is the table of array operations (``None``: the base functions only). ``strict`` raises
    ``FormulaError`` on constructs without a formula meaning (claimed formulas); otherwise such a construct
    becomes an opaque symbol (code). ``env`` maps a name (``x``, ``self.scale``) to the expression a local
    definition bound it to, so a computation split over several statements reads as one expression; ``stored``
    names the entries under string keys the code being read has stored (``terms.mse`` after ``terms["mse"] =
    ...``), which then read as those names. ``resolve_call(node, operands, keywords)`` may return the expression of a call into the repository's own code (a
    small helper function) given its positional operands, and ``keywords()`` its keyword arguments by name
    (translated only when asked: most calls resolve to no helper), or ``None``. Raises ``FormulaError`` (strict) or
    returns an opaque symbol (lenient) when the expression exceeds the size or depth bounds.
    """

    def __init__(self, operations: Operations | None = None, strict: bool = False,
                 env: dict[str, sympy.Basic] | None = None,
                 resolve_call: Callable[[cst.Call, list[sympy.Basic], Callable[[], dict[str, sympy.Basic]]],
                                        sympy.Basic | None] | None = None, stored: set[str] | None = None) -> None:
        self.operations = operations
        self.strict = strict
        self.stored = stored if stored is not None else set()
        self.env = env if env is not None else {}
        self.resolve_call = resolve_call
        self._budget = _MAX_NODES

    def translate(self, node: cst.BaseExpression) -> sympy.Basic:
        """The sympy expression of ``node`` (see the class docstring for errors)."""
        self._budget = _MAX_NODES
        try:
            return self._translate(node, 0)
        except FormulaError:
            if self.strict:
                raise
            return self.opaque(node)
        except (TypeError, ValueError, ArithmeticError) as error:  # sympy refusing a construction
            if self.strict:
                raise FormulaError(f"cannot be built: {error}") from None
            return self.opaque(node)
        except RecursionError:
            if self.strict:
                raise FormulaError("formula nested too deeply") from None
            return self.opaque(node)

    def opaque(self, node: cst.CSTNode) -> sympy.Symbol:
        """A symbol standing for code with no formula meaning, named by its source text."""
        return sympy.Symbol(f"<{source_text(node, 60)}>")

    def _unsupported(self, node: cst.CSTNode, what: str) -> sympy.Basic:
        if self.strict:
            raise FormulaError(f"unsupported syntax: {what}")
        return self.opaque(node)

    def _translate(self, node: cst.BaseExpression, depth: int) -> sympy.Basic:
        self._budget -= 1
        if depth > _MAX_DEPTH or self._budget < 0:
            raise FormulaError("formula too large or too deeply nested")
        down = depth + 1
        if isinstance(node, (cst.Integer, cst.Float)):
            number = sympy.Rational(node.value.replace("_", ""))
            if not self.strict and 0 < number <= SMALL_NUMBER:
                return small_constant(number)  # kept apart so that 1.0 - a + 1e-8 does not fold into 1.00000001 - a
            return number
        if isinstance(node, cst.Name):
            return self._name(node.value)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, down)
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Minus):
                return -self._translate(node.expression, down)
            if isinstance(node.operator, cst.Plus):
                return self._translate(node.expression, down)
            return self._unsupported(node, "unary operator")
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, self._translate(node.left, down), self._translate(node.right, down))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            target = node.comparisons[0]
            relation = _COMPARE.get(type(target.operator))
            if relation is None:
                return self._unsupported(node, "comparison")
            return sympy.Function(relation)(self._translate(node.left, down), self._translate(target.comparator, down))
        if isinstance(node, cst.Call):
            return self._call(node, down)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, down)
        if isinstance(node, (cst.List, cst.Tuple)) and not self.strict and len(node.elements) == 1 \
                and isinstance(node.elements[0], cst.Element):
            return self._translate(node.elements[0].value, down)  # torch.tensor([x]) holds the value x
        if isinstance(node, cst.IfExp):
            return sympy.Function("where")(self._translate(node.test, down), self._translate(node.body, down),
                                           self._translate(node.orelse, down))
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and not self.strict:
            return self._comprehension(node, down)
        return self._unsupported(node, type(node).__name__)

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp, depth: int) -> sympy.Basic:
        """A comprehension of one ``for`` without a condition, read as its element, as a loop's per-step term is
        read: over ``range(...)`` the index stays its name (``[1 / (n - i) for i in range(n)]`` -> ``1 / (n - i)``);
        over a local array the code being read computes (in ``env``, not a bare name) the element is that array,
        elementwise (``[w / total for w in raw]`` -> ``raw / total``). Over anything else (a setting's or an
        attribute's list, ``self.masks``, whose entries are unknown), or with nested loops or a filter, it stays
        opaque."""
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None \
                or not isinstance(loop.target, cst.Name):
            return self._unsupported(node, type(node).__name__)
        over = loop.iter
        if isinstance(over, cst.Call) and isinstance(over.func, cst.Name) and over.func.value == "range":
            element: sympy.Basic = sympy.Symbol(loop.target.value)
        elif isinstance(over, cst.Name) and not isinstance(self.env.get(over.value, sympy.Symbol("_")), sympy.Symbol):
            element = self.env[over.value]
        else:
            return self._unsupported(node, type(node).__name__)
        outer = self.env
        self.env = {**outer, loop.target.value: element}
        try:
            return self._translate(node.elt, depth)
        finally:
            self.env = outer

    def _name(self, name: str) -> sympy.Basic:
        if name in self.env:
            return self.env[name]
        root, _, last = name.rpartition(".")
        if last in _CONSTANTS and (not root or root in _CONSTANT_OWNERS):
            return _CONSTANTS[last]
        return sympy.Symbol(name)

    def _attribute(self, node: cst.Attribute, depth: int) -> sympy.Basic:
        name = dotted_name(node)
        attr = node.attr.value
        form = self.operations.attributes.get(attr) if self.operations else None
        if form is not None:
            return _apply(form, [self._translate(node.value, depth)])
        if name is not None:
            return self._name(name)
        return self._unsupported(node, "attribute of an expression")

    def _subscript(self, node: cst.Subscript, depth: int) -> sympy.Basic:
        keyed = keyed_name(node) if not self.strict else None
        if keyed is not None and keyed in self.stored:
            # terms["mse"] after terms["mse"] = ...: the entry the code being read stored reads as the name
            # terms.mse (its value where substituted); an entry stored elsewhere (w = self.weights; w["w_wxy"])
            # stays an element of its mapping, named after the mapping (``weights``)
            return self._name(keyed)
        base = self._translate(node.value, depth)
        shift = _slice_shift(node) if not self.strict else 0
        if shift:  # x[1:] beside x[:-1] is each element's successor (``_slice_shift``, ``successor_index``)
            return sympy.Function("getitem")(base, WHOLE_AXIS + shift)
        indices = []
        for element in node.slice:
            inner = element.slice
            if isinstance(inner, cst.Index):
                value = inner.value
                if isinstance(value, cst.Name) and value.value == "None" or isinstance(value, cst.Ellipsis):
                    indices.append(sympy.Symbol(":"))  # a new axis or "the rest": shape, not values
                else:
                    indices.append(self._translate(value, depth))
            else:
                indices.append(sympy.Symbol(":"))
        if not self.strict and all(i == sympy.Symbol(":") for i in indices):
            return base  # x[:, None], x[..., :d]: reshaping or slicing keeps the values' meaning
        if not self.strict and len(indices) == 1 and indices[0] == 0 and isinstance(base, AppliedUndef) \
                and _along_dim(node.value):
            # torch.max(x, dim=1)[0]: the values of a call returning (values, indices) along a dimension, as
            # unpacking reads them (NumPy's max(axis=1) returns the values alone: its [0] is an element)
            entry = self.operations.outputs.get(base.func.__name__) if self.operations else None
            part = output_part(base, (0,), (len(entry.parts),), self.operations) if entry and entry.parts else None
            if part is not None:
                return part
        return sympy.Function("getitem")(base, *indices)

    def _call(self, node: cst.Call, depth: int) -> sympy.Basic:
        func = node.func
        receiver: sympy.Basic | None = None
        written = _indexed_update(node)
        if written is not None and not self.strict:
            return self._translate(written, depth)  # out.at[:, :m].set(v): JAX's functional slice write holds v
        declared = self._declared_parameter(node)
        if declared is not None:
            return declared
        if isinstance(func, cst.Name):
            name = func.value
            keyed = _keyed_extreme(node) if name in ("min", "max") else None
            if keyed is not None:
                # min(d, key=d.get): the key of the smallest value, argmin; another key function is not read
                return self._uninterpreted(f"arg{name}", [self._translate(keyed, depth)]) \
                    if keyed is not node else self._unsupported(node, f"{name} with a key function")
        elif isinstance(func, cst.Attribute):
            name = func.attr.value
            owner = dotted_name(func.value)
            root = owner.split(".")[0] if owner else None
            applied = _functional_apply(node) if not self.strict else None
            if applied is not None:
                # model.apply({'params': p}, x) (Flax, and a TrainState's apply_fn): the model called on its inputs
                # and then its parameters, as a formula writes F(a, w)
                model = (owner or name).rsplit(".", 1)[-1] if name == "apply" else name
                return self._uninterpreted(model, [self._translate(a, depth) for a in (*applied[1], applied[0])])
            if owner in ("self", "cls"):
                # self.proj(x): a submodule or method of the model, never the library operation of that name
                positional = self._positional(node, depth)
                if len(positional) == 1 and self._identity_module(name):
                    return positional[0]  # self.attn_drop(x): dropout, the identity of the formula
                resolved = self.resolve_call(node, positional, partial(self._keywords, node, depth)) \
                    if self.resolve_call is not None else None
                return resolved if resolved is not None else self._uninterpreted(name, positional)
            if owner is None or root is None or not self._is_module(owner):
                receiver = self._translate(func.value, depth)
        elif (mapped := _mapped_function(func)) is not None and not self.strict:
            # jax.vmap(model)(inputs), jax.jit(f)(x): the function applied (over a batch axis, or compiled), which
            # computes what it computes on one element
            return self._translate(node.with_changes(func=mapped), depth)
        elif (built := _module_name(func)) is not None and not self.strict:
            # nn.Dense(64, name="lifting")(x): a module built and called in one expression (Flax's compact modules,
            # Haiku, Keras's functional API) is the submodule its name names, as self.lifting(x) would be
            return self._uninterpreted(built, self._positional(node, depth))
        else:
            return self._unsupported(node, "call of an expression")
        positional = self._positional(node, depth)
        if self.resolve_call is not None:
            # with a receiver, only a method of an object of the repository's own class (``gen.generate()``)
            resolved = self.resolve_call(node, positional, partial(self._keywords, node, depth))
            if resolved is not None:
                return resolved
        operands = ([receiver] if receiver is not None else []) + positional
        if name in ("masked_fill", "masked_fill_") and self.operations is not None and not self.strict:
            added = _additive_mask(operands)
            if added is not None:
                return added
        if self.operations is not None and name in self.operations.selections:
            name = _selected(name, node, self.operations.selections[name])
        if name == "einsum" and self.operations is not None:
            return self._einsum(node, depth)
        if self.operations is None:
            if name in _BASE and len(operands) == 1:
                return _BASE[name](operands[0])
            return self._uninterpreted(name, operands)
        if name in self.operations.index_ranges and receiver is None and not self.strict \
                and 1 <= len(operands) <= 3 and not _ranged_by_keyword(node):
            # torch.arange(0, dim, 2): start + step * the index (the leaf named after the call), the paper's 2j
            start, step = (operands[0] if len(operands) > 1 else 0), (operands[2] if len(operands) == 3 else 1)
            return start + step * sympy.Symbol(name)
        operation = self.operations.operations.get(name)
        if operation is None:
            return self._uninterpreted(name, operands)
        if operation.identity:
            return operands[0] if operands else self._uninterpreted(name, operands)
        if operation.layout and operands and _literal_dims(node, 0 if receiver is not None else 1) in operation.layout:
            return operands[0]  # q.transpose(1, 2): heads moved before the sequence axis, values unchanged
        if operation.operands is not None:
            operands = operands[: operation.operands]
        if operation.joins:
            return self._join(node, receiver is not None, operands, depth)
        for keyword, letter in operation.keywords.items():
            position = _OPERAND_LETTERS.index(letter)
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == keyword:
                    while len(operands) <= position:
                        operands.append(MISSING_OPERAND)
                    operands[position] = self._translate(arg.value, depth)
        if operation.defaults and len(positional) + (receiver is not None) > (operation.operands or 0):
            # a positional argument past the operands (dropout, is_causal, scale by position) is one the defaults
            # would misread: the call stays a function of its own
            return self._uninterpreted(name, operands)
        for letter, default in operation.defaults.items():
            position = _OPERAND_LETTERS.index(letter)
            while len(operands) <= position:
                operands.append(MISSING_OPERAND)
            if operands[position] == MISSING_OPERAND:
                operands[position] = _apply(default, operands)  # a default may be another operand (a stride)
        if operation.form is None:
            return self._uninterpreted(name, operands)
        return _apply(_reduced(operation.form, node), operands)

    def _join(self, node: cst.Call, method: bool, operands: list[sympy.Basic], depth: int) -> sympy.Basic:
        """A concatenation: of the parts a list or tuple written in the call holds (``torch.cat([k_cache, k], 2)``),
        or of the operands (a formula's ``concat(K_cache, K_t)``), the function ``concat`` of those parts; of one
        collection (``torch.cat(head_outputs, -1)``, a formula's ``concat(heads)``), that collection's values."""
        first = node.args[0].value if node.args and not method and node.args[0].keyword is None else None
        if isinstance(first, (cst.List, cst.Tuple)) and first.elements \
                and all(isinstance(e, cst.Element) for e in first.elements):
            operands = [self._translate(e.value, depth) for e in first.elements]
        return operands[0] if len(operands) == 1 else sympy.Function(_JOIN)(*operands)

    def _declared_parameter(self, node: cst.Call) -> sympy.Symbol | None:
        """The leaf a parameter declaration stands for: ``self.param('spectral_weights', init, shape)`` (Flax) or
        ``hk.get_parameter('w', shape)`` (Haiku) is a learned weight named by its first argument, whose initialiser
        is not part of any formula."""
        if self.strict or self.operations is None or not isinstance(node.func, cst.Attribute) \
                or node.func.attr.value not in self.operations.parameters or not node.args:
            return None
        first = node.args[0]
        if first.keyword is not None or not isinstance(first.value, cst.SimpleString):
            return None
        name = str(first.value.evaluated_value)
        return sympy.Symbol(name) if name.isidentifier() else None

    def _identity_module(self, name: str) -> bool:
        words = self.operations.identity_modules if self.operations else frozenset()
        return bool(words) and any(word in words for word in name.lower().split("_"))

    def _positional(self, node: cst.Call, depth: int) -> list[sympy.Basic]:
        return [self._translate(a.value, depth) for a in node.args if a.keyword is None and not a.star]

    def _keywords(self, node: cst.Call, depth: int) -> dict[str, sympy.Basic]:
        """The call's keyword arguments by name, translated (``self.q_sample(x_start=x0, noise=eps)``)."""
        return {a.keyword.value: self._translate(a.value, depth) for a in node.args
                if a.keyword is not None and not a.star}

    def _is_module(self, owner: str) -> bool:
        modules = self.operations.modules if self.operations else frozenset(_CONSTANT_OWNERS)
        return owner.split(".")[0] in modules or owner.rsplit(".", 1)[-1] in modules

    def _einsum(self, node: cst.Call, depth: int) -> sympy.Basic:
        args = [a for a in node.args if a.keyword is None and not a.star]
        if args and isinstance(args[0].value, cst.SimpleString):
            subscripts = str(args[0].value.evaluated_value).replace(" ", "")
            operands = [self._translate(a.value, depth) for a in args[1:]]
            form = self.operations.einsum.get(subscripts) if self.operations is not None else None
            if form is not None:
                return _apply(form, operands)
            if len(operands) == 2 and contracts_as_product(subscripts):
                return matmul(*operands)
            if len(operands) > 2 and contracts_as_chain(subscripts):
                product = operands[0]
                for operand in operands[1:]:
                    product = matmul(product, operand)
                return product
            return sympy.Function("einsum")(sympy.Symbol(f"'{subscripts}'"), *operands)
        return self._uninterpreted("einsum", self._positional(node, depth))

    def _uninterpreted(self, name: str, operands: list[sympy.Basic]) -> sympy.Basic:
        return sympy.Function(name)(*operands) if operands else sympy.Symbol(f"{name}()")

    def _binary(self, node: cst.BinaryOperation, left: sympy.Basic, right: sympy.Basic) -> sympy.Basic:
        operator = node.operator
        if isinstance(operator, cst.Add):
            return left + right
        if isinstance(operator, cst.Subtract):
            return left - right
        if isinstance(operator, cst.Multiply):
            return left * right
        if isinstance(operator, cst.Divide):
            return left / right
        if isinstance(operator, cst.FloorDivide):
            return sympy.floor(left / right)
        if isinstance(operator, cst.Modulo):
            if isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                # "... %s ..." % eps formats a message; read as a remainder it would divide by the operand
                return self._unsupported(node, "string formatting")
            return sympy.Mod(left, right)
        if isinstance(operator, cst.Power):
            if right.is_number and (not right.is_real or abs(right) > _MAX_EXPONENT):
                raise FormulaError("exponent too large")
            if left.is_number and right.is_number and left != 0 \
                    and float(abs(right)) * math.log10(float(abs(left)) + 1) > _MAX_DIGITS:
                raise FormulaError("power too large")  # (10**64)**64**... must not hang the run
            return sympy.Pow(left, right)
        if isinstance(operator, cst.MatrixMultiply):
            return matmul(left, right)
        return self._unsupported(node, f"operator {type(operator).__name__}")


_MEAN_NAME = "mean"
# a loss's ``reduction`` keyword (torch.nn.functional's losses): the mean of the form becomes a sum, or goes
_REDUCTIONS = {"sum": "sum", "none": None, "mean": _MEAN_NAME}


_JOIN = "concat"  # every concatenation reads as this function of its parts (``Translator._join``)
_RANGE_KEYWORDS = frozenset({"start", "end", "stop", "step"})  # an index range given so is left uninterpreted


def _ranged_by_keyword(node: cst.Call) -> bool:
    """Whether an index range's bounds or step are given by keyword or unpacked (``arange(start=0, end=d)``,
    ``arange(*shape)``): then its positional operands are not start, stop and step, and it stays uninterpreted."""
    return any(a.star or a.keyword is not None and a.keyword.value in _RANGE_KEYWORDS for a in node.args)


def _module_name(node: cst.BaseExpression) -> str | None:
    """The name a module construction gives its module (``nn.Dense(64, name="lifting")`` -> ``lifting``), or
    ``None`` when ``node`` is no call or passes no identifier as a literal ``name=`` keyword."""
    if not isinstance(node, cst.Call):
        return None
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "name" and isinstance(arg.value, cst.SimpleString):
            name = str(arg.value.evaluated_value)
            return name if name.isidentifier() else None
    return None


def _additive_mask(operands: list[sympy.Basic]) -> sympy.Basic | None:
    """``scores.masked_fill(mask == 0, float("-inf"))`` read as ``scores + mask``: filling the masked positions with
    minus infinity (or a number as large and negative, or the dtype's minimum) before a softmax is adding the
    paper's mask matrix, 0 where a position may be attended and -inf where not, whichever way the code's boolean
    mask is written (``mask``, ``~mask``, ``mask == 0``). The mask is the one name the condition reads, other than
    the filled tensor's (``logits.masked_fill(logits < kth, -inf)`` is a top-k filter, not a mask). ``None`` for any
    other fill."""
    if len(operands) != 3 or not _negative_infinity(operands[2]):
        return None
    scores, condition = operands[0], operands[1]
    names = [s for s in condition.free_symbols if isinstance(s, sympy.Symbol)]
    if len(names) != 1:
        return None
    mask = names[0]
    if mask.name.startswith("<~") and mask.name[2:-1].isidentifier():
        mask = sympy.Symbol(mask.name[2:-1])  # ~mask, kept whole by the translator
    if mask.name.startswith("<") or mask in scores.free_symbols:
        return None
    return scores + mask


def _negative_infinity(value: sympy.Basic) -> bool:
    """Whether ``value`` is minus infinity as code writes it: ``float("-inf")``, ``-float("inf")``, ``-math.inf``,
    a number at or below -1e4 (``-1e9``), or ``torch.finfo(dtype).min``."""
    if value == -sympy.oo or (value.is_Number and value <= -1e4):
        return True
    if isinstance(value, sympy.Symbol):
        return value.name.replace("'", '"') == '<"-inf">' or ("finfo" in value.name and value.name.endswith(".min>"))
    return isinstance(value, sympy.Mul) and value.args[0] == -1 and len(value.args) == 2 \
        and isinstance(value.args[1], sympy.Symbol) and value.args[1].name.replace("'", '"') == '<"inf">'


def _reduced(form: sympy.Basic, node: cst.Call) -> sympy.Basic:
    """``form`` under the call's ``reduction`` keyword, when it is a string literal: torch's losses average
    (``reduction='mean'``, the default) or sum (``'sum'``) the per-element values, or return them (``'none'``), so
    ``F.mse_loss(a, b, reduction='sum')`` is ``sum((a - b) ** 2)``. Any other form or value is left as it is."""
    for arg in node.args:
        if arg.keyword is None or arg.keyword.value != "reduction" or not isinstance(arg.value, cst.SimpleString):
            continue
        wanted = str(arg.value.evaluated_value).strip().lower()
        if wanted not in _REDUCTIONS:
            return form
        means = [n for n in sympy.preorder_traversal(form) if isinstance(n, AppliedUndef)
                 and n.func.__name__ == _MEAN_NAME and len(n.args) == 1]
        if not means:
            return form
        target = _REDUCTIONS[wanted]
        return form.xreplace({m: (sympy.Function(target)(m.args[0]) if target else m.args[0]) for m in means})
    return form


def _selected(name: str, node: cst.Call, selections: tuple[tuple[str, object, str], ...]) -> str:
    """The operation the call ``node`` of ``name`` computes under its keyword settings: the first selection whose
    keyword the call sets to that literal (``largest=False``), else ``name``. A value only known at run time (a
    variable) selects nothing: the library's default is what the claim is compared with."""
    for keyword, wanted, selected in selections:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == keyword and _same_literal(arg.value, wanted):
                return selected
    return name


def _same_literal(node: cst.BaseExpression, wanted: object) -> bool:
    """``node`` is the literal ``wanted`` (a bool, a number or a string, of the same type: ``1`` is not ``True``)."""
    if isinstance(wanted, bool):
        return isinstance(node, cst.Name) and node.value == str(wanted)
    if isinstance(wanted, (int, float)):
        negative = isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
        inner = node.expression if isinstance(node, cst.UnaryOperation) and negative else node
        if not isinstance(inner, (cst.Integer, cst.Float)):
            return False
        value = inner.evaluated_value
        return (-value if negative else value) == wanted
    if isinstance(wanted, str):
        return isinstance(node, cst.SimpleString) and node.evaluated_value == wanted
    return False


def _literal_dims(node: cst.Call, skip: int) -> tuple[int, ...] | None:
    """The arguments of a call after the first ``skip`` when all are positional integer literals
    (``x.transpose(1, 2)`` -> ``(1, 2)``, a negative one included), else ``None``."""
    found = []
    for arg in node.args[skip:]:
        value = arg.value
        negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
        inner = value.expression if isinstance(value, cst.UnaryOperation) and negative else value
        if arg.keyword is not None or arg.star or not isinstance(inner, cst.Integer):
            return None
        found.append(-int(inner.value) if negative else int(inner.value))
    return tuple(found)


def _indexed_update(node: cst.Call) -> cst.BaseExpression | None:
    """The value a JAX indexed write ``x.at[idx].set(v)`` stores, or ``None`` for any other call. Like a slice
    read (``x[:, :m]`` keeps ``x``), the written slice holds the values the formula computes (JAX documents
    ``x.at[idx].set(y)`` as the functional form of ``x[idx] = y``)."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "set" or not isinstance(func.value, cst.Subscript):
        return None
    indexed = func.value.value
    if not isinstance(indexed, cst.Attribute) or indexed.attr.value != "at":
        return None
    values = [a for a in node.args if a.keyword is None and not a.star]
    return values[0].value if len(values) == 1 else None


def contracts_as_product(subscripts: str) -> bool:
    """True when a two-operand einsum is a matrix product ``a @ b`` over batch axes: one index is summed, it is
    the last of ``a`` and the first of ``b`` once the batch indices (in both operands and the output) are set
    aside, and the output is ``a``'s other indices then ``b``'s free ones, in order (``'bji,io->bjo'``, the
    per-mode ``'bki,kio->bko'`` of a Fourier layer). Ellipses and repeated indices are not read.

    >>> contracts_as_product("bki,kio->bko"), contracts_as_product("bij,bkj->bik")
    (True, False)
    """
    inputs, arrow, output = subscripts.partition("->")
    parts = inputs.split(",")
    if not arrow or len(parts) != 2 or "." in subscripts:
        return False
    left, right = parts
    if any(len(set(p)) != len(p) for p in (left, right, output)) or not (left + right + output).isalpha():
        return False
    summed = (set(left) & set(right)) - set(output)
    batch = set(left) & set(right) & set(output)
    if len(summed) != 1:
        return False
    index = summed.pop()
    left_own = [c for c in left if c not in batch]
    right_own = [c for c in right if c not in batch]
    if not left_own or left_own[-1] != index or not right_own or right_own[0] != index or len(right_own) < 2:
        return False
    return output == "".join(c for c in left if c != index) + "".join(right_own[1:])


def _positional_nodes(node: cst.Call) -> list[cst.BaseExpression]:
    """The positional arguments of a call as written (``*args`` left out), untranslated."""
    return [a.value for a in node.args if a.keyword is None and not a.star]


def _keyed_extreme(node: cst.Call) -> cst.BaseExpression | cst.Call | None:
    """For Python's ``min``/``max`` given a ``key``: the mapping whose key of the extreme value it returns
    (``min(d, key=d.get)``, ``max(d, key=d.__getitem__)``), or ``node`` itself for any other key function (what it
    ranks by is not read); None without a key."""
    key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
    positional = _positional_nodes(node)
    if key is None:
        return None
    if len(positional) == 1 and isinstance(key, cst.Attribute) and key.attr.value in ("get", "__getitem__") \
            and dotted_name(key.value) is not None and dotted_name(key.value) == dotted_name(positional[0]):
        return positional[0]
    return node


# function transforms that leave what a function computes alone (JAX's documentation: vmap maps it over an axis,
# pmap over devices, jit compiles it, checkpoint/remat recomputes it in the backward pass); not grad or jacrev
_VALUE_TRANSFORMS = frozenset({"vmap", "pmap", "jit", "checkpoint", "remat"})


def _mapped_function(func: cst.BaseExpression) -> cst.BaseExpression | None:
    """``f`` of a call ``jax.vmap(f)(...)`` (a value transform of ``_VALUE_TRANSFORMS`` given the function as its
    first argument), else None."""
    if not isinstance(func, cst.Call):
        return None
    name = func.func.attr.value if isinstance(func.func, cst.Attribute) else \
        func.func.value if isinstance(func.func, cst.Name) else ""
    positional = _positional_nodes(func)
    return positional[0] if name in _VALUE_TRANSFORMS and positional else None


_FUNCTIONAL_APPLY = frozenset({"apply", "apply_fn"})


def _functional_apply(node: cst.Call) -> tuple[cst.BaseExpression, list[cst.BaseExpression]] | None:
    """(the parameters, the inputs) of a functional model call, ``model.apply({'params': p}, x)`` or
    ``state.apply_fn({'params': p}, x)`` (Flax's ``Module.apply`` takes the variables first, a dict whose
    ``params`` entry holds the parameters), else None."""
    if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in _FUNCTIONAL_APPLY:
        return None
    positional = _positional_nodes(node)
    if len(positional) < 2 or not isinstance(positional[0], cst.Dict):
        return None
    for element in positional[0].elements:
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) \
                and element.key.evaluated_value == "params":
            return element.value, positional[1:]
    return None


def _along_dim(node: cst.BaseExpression) -> bool:
    """A call that is PyTorch's reduction along a dimension, which returns values and indices: given ``dim=`` (NumPy
    and JAX take ``axis=``), or ``torch.max(x, 1)`` with an integer dimension (``torch.max(a, b)`` of two tensors
    is elementwise; ``q.max(1)`` may be NumPy's, which returns the values alone); what its ``[0]`` reads as the
    values."""
    if not isinstance(node, cst.Call):
        return False
    if any(a.keyword is not None and a.keyword.value == "dim" for a in node.args):
        return True
    positional = _positional_nodes(node)
    second = positional[1] if len(positional) == 2 else None
    if isinstance(second, cst.UnaryOperation) and isinstance(second.operator, cst.Minus):
        second = second.expression
    return isinstance(node.func, cst.Attribute) and dotted_name(node.func.value) == "torch" \
        and isinstance(second, cst.Integer)


def output_part(call: sympy.Basic, position: tuple[int, ...], shape: tuple[int, ...], operations: Operations | None,
                module: str | None = None) -> sympy.Basic | None:
    """The part at ``position`` (outer first: ``(1, 0)`` for ``h`` in ``out, (h, c) = ...``) unpacked from the
    translated library ``call`` into a target of ``shape`` (its length at each of those levels), when the
    operations table lists the call's outputs: under its name (``outputs``: ``topk`` gives values and indices), or
    under ``module``, the library module class whose instance the call calls (``module_outputs``: ``nn.GRU``). The
    entry's ``value`` part reads as the call on the operands the entry keeps (``torch.max(x, 1)`` -> ``max(x)``,
    the reduction along the axis; ``self.gru(x, h0)`` -> ``gru(x, h0)``, the final hidden state), another part as
    the function ``<call>_<part>`` of them (``topk_indices(p, k)``), and a part of a call cutting its input into
    parts alike (``torch.chunk(x, 2)``) as the call's element at that position (``getitem(chunk(x, 2), 1)``, as
    ``torch.chunk(x, 2)[1]`` reads): each part distinct from the others and from the input. ``None`` when the call is
    no such operation (the repository's own helper, an opaque symbol), when the target's shape differs from the
    outputs', or when the position holds a tuple of parts (LSTM's ``(h_n, c_n)`` bound to one name)."""
    if operations is None or not isinstance(call, AppliedUndef) or not position or len(position) != len(shape):
        return None
    name = call.func.__name__
    entry = operations.module_outputs.get(module) if module is not None else operations.outputs.get(name)
    if entry is None or len(call.args) < (entry.operands or 0):
        return None
    operands = call.args if entry.operands is None else call.args[:entry.operands]
    if not entry.parts:
        return sympy.Function("getitem")(sympy.Function(name)(*operands), position[0]) if len(position) == 1 else None
    part: tuple | str = entry.parts
    for index, count in zip(position, shape):
        if not isinstance(part, tuple) or len(part) != count:
            return None
        part = part[index]
    if isinstance(part, tuple):
        return None
    return sympy.Function(name)(*operands) if position == entry.value else sympy.Function(f"{name}_{part}")(*operands)


def other_parts(entry: Outputs) -> frozenset[str]:
    """The names of ``entry``'s parts other than its ``value`` part: those ``output_part`` reads as the function
    ``<call>_<part>`` (``topk``'s ``indices``, ``nn.LSTM``'s ``output`` and ``c_n``); empty for parts alike."""
    found: set[str] = set()
    stack: list[tuple[tuple[int, ...], tuple | str]] = [((i,), p) for i, p in enumerate(entry.parts)]
    while stack:
        position, part = stack.pop()
        if isinstance(part, tuple):
            stack.extend(((*position, i), p) for i, p in enumerate(part))
        elif position != entry.value:
            found.add(part)
    return frozenset(found)


def contracts_as_chain(subscripts: str) -> bool:
    """True when an einsum of three or more operands is a chain of matrix products ``a @ b @ c`` over batch axes:
    folded from the left, each step contracts one index of the product so far with the next operand, the index
    no later operand and not the output holds, as ``contracts_as_product`` reads two operands (``'bpd,dq,bqk->bpk'``,
    a batched ``J @ Sigma @ J^T``, with the transpose passed as the third operand), and the last step gives the
    output.

    >>> contracts_as_chain("bpd,dq,bqk->bpk"), contracts_as_chain("ij,jk,kl->il"), contracts_as_chain("ij,jk,ik->i")
    (True, True, False)
    """
    inputs, arrow, output = subscripts.partition("->")
    parts = inputs.split(",")
    if not arrow or len(parts) < 3 or "." in subscripts:
        return False
    current = parts[0]
    for position, following in enumerate(parts[1:], 1):
        later = set(output).union(*parts[position + 1:])
        shared = [c for c in current if c in following and c not in later]
        if len(shared) != 1:
            return False
        kept = "".join(c for c in current if c != shared[0])
        result = kept + "".join(c for c in following if c != shared[0] and c not in current)
        if not contracts_as_product(f"{current},{following}->{result}"):
            return False
        current = result
    return current == output


def apply_operation(operations: Operations, name: str, operand: sympy.Basic) -> sympy.Basic:
    """The operation ``name`` of the table applied to one operand (its form, the operand itself for an identity, or
    an uninterpreted function ``name`` when the table has no form): what a library module such as ``nn.GELU()``
    computes when called."""
    operation = operations.operations.get(name)
    if operation is not None and operation.identity:
        return operand
    if operation is not None and operation.form is not None:
        return _apply(operation.form, [operand])
    return sympy.Function(name)(operand)


def matmul(left: sympy.Basic, right: sympy.Basic) -> sympy.Basic:
    """The uninterpreted, non-commutative product ``left @ right``. ``x @ transpose(W)`` is written ``matmul(W, x)``:
    the paper's column-vector ``W x`` and the code's row-vector ``x @ W.T`` (what ``nn.Linear`` computes) are the
    same product, so both conventions read alike."""
    transpose = sympy.Function("transpose")
    if isinstance(right, AppliedUndef) and right.func == transpose:
        return sympy.Function("matmul")(right.args[0], left)
    if isinstance(left, AppliedUndef) and left.func == transpose:
        return sympy.Function("matmul")(right, left.args[0])  # W.T @ h, a projection by W's columns: h @ W
    return sympy.Function("matmul")(left, right)


def _apply(form: sympy.Basic, operands: list[sympy.Basic]) -> sympy.Basic:
    """``form`` over the symbols a, b, c ... with the operands put in (a missing one reads ``None``)."""
    letters = sorted((s for s in form.free_symbols if isinstance(s, sympy.Symbol)), key=lambda s: s.name)
    mapping = {}
    for symbol in letters:
        position = _OPERAND_LETTERS.find(symbol.name)
        if len(symbol.name) == 1 and position >= 0:
            mapping[symbol] = operands[position] if position < len(operands) else MISSING_OPERAND
    result = substitute(form, mapping)  # an operand may be a large shared graph: walked by its distinct nodes
    if any(isinstance(f, AppliedUndef) and f.func.__name__ == "matmul" for f in dag_nodes(result, 1 << 30) or ()):
        result = result.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == "matmul",
                                lambda e: matmul(*e.args) if len(e.args) == 2 else e)
    return result
