"""Constant folding over libcst expression trees, without executing anything.

A *value* is what a fact binds to a name or what a claim states for it. Its shape is one of:

- ``int`` / ``float``: a number (``2**10`` folds to ``1024``, ``1/1000`` to ``0.001``);
- ``sympy.Expr`` with free symbols: a symbolic value (``1 / math.sqrt(d_model)`` folds to
  ``d_model**(-1/2)``, every number in it exact as a ``sympy.Rational``);
- ``tuple`` of values: a list, tuple or set literal (``betas=(0.9, 0.95)``);
- ``str`` / ``bool``: a string or boolean literal.

Folding reads the syntax tree only: names become ``sympy.Symbol``s, a short table of pure math functions maps to
sympy, and everything else (any other call, subscripts, comprehensions, f-strings) does not fold. Text is parsed
with ``libcst.parse_expression``, which builds a tree and never evaluates (unlike ``sympy.sympify``, which runs its
input through ``eval``: sympy issue #10805).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Sequence
from typing import TypeGuard

import libcst as cst
import sympy

from sau.vocabulary import Value


# Guards against pathological constants: ``9**9**9`` must not hang the run or exhaust memory.
_MAX_EXPONENT = 512
_MAX_DEPTH = 40
_MAX_SEQUENCE = 256
_MAX_RESULT_BITS = 4096

# Pure functions a numeric literal may pass through (``math.sqrt``, ``np.log``, ``torch.exp`` ...), by the last
# component of the callee's dotted name. Source: the math, numpy and torch docs; all are the usual real functions.
_UNARY_FUNCTIONS = {
    "sqrt": sympy.sqrt,
    "log": sympy.log,
    "exp": sympy.exp,
    "log2": lambda x: sympy.log(x, 2),
    "log10": lambda x: sympy.log(x, 10),
    "abs": sympy.Abs,
    "fabs": sympy.Abs,
    "tanh": sympy.tanh,
    "cos": sympy.cos,
    "sin": sympy.sin,
}
_CONSTANTS = {"pi": sympy.pi, "e": sympy.E, "inf": sympy.oo}
_CONSTANT_OWNERS = {"math", "np", "numpy", "torch", "jnp", "sympy"}
_NUMBER_CASTS = {"int", "float"}


class _NotFoldable(Exception):
    """Raised inside the folder when a subtree has no constant value."""


def dotted_name(node: cst.BaseExpression) -> str | None:
    """Return ``"a.b.c"`` for a ``Name``/``Attribute`` chain, else ``None``. Classes compared exactly: libcst's
    are never subclassed, and ``isinstance`` on them goes through ``ABCMeta`` (this runs on most nodes)."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def keyed_name(node: cst.BaseExpression) -> str | None:
    """``"terms.mse"`` for ``terms["mse"]``: an entry of a named mapping under a string key that is an identifier
    reads as a name, as an attribute would (code keeps losses and outputs in dicts: ``terms["loss"] =
    terms["mse"] + terms["vb"]``); ``None`` for any other node."""
    if type(node) is not cst.Subscript or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if type(index) is not cst.Index or type(index.value) is not cst.SimpleString:
        return None
    key = index.value.evaluated_value
    base = dotted_name(node.value)
    return f"{base}.{key}" if base is not None and isinstance(key, str) and key.isidentifier() else None


# Classes whose instances hold numbers or a stack of layers (a learnable scalar, a tensor, a list of blocks whose
# length may be the claimed count): a binding to one of them may stand for a claimed number.
_NUMBER_HOLDERS = frozenset({"Parameter", "Tensor", "FloatTensor", "LongTensor", "IntTensor", "Fraction", "Decimal",
                             "ModuleList", "Sequential", "ModuleDict", "ParameterList", "ParameterDict"})
# Expressions that build a collection or a text, never a number (``builds_object``), and the builtins that do.
_COLLECTIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.List, cst.Set, cst.Dict,
                cst.FormattedString)
_COLLECTION_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "dict", "sorted"})


def reads_tensor_size(node: cst.BaseExpression) -> bool:
    """Whether ``node`` reads sizes off a tensor: ``x.size(0)``, ``x.shape[1]``, ``x.size()[0]``, a product of them
    (``attn.size(0) * attn.size(1)``) or one cast by ``int``. Such a size is the one the code that built the tensor
    gave it (a loader's batch size, a dataset's sequence length), not a setting of its own."""
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
        return reads_tensor_size(node.left) and reads_tensor_size(node.right)
    if type(node) is cst.Call and dotted_name(node.func) == "int" and len(node.args) == 1:
        return reads_tensor_size(node.args[0].value)
    if type(node) is cst.Subscript:
        target = node.value
        return (type(target) is cst.Attribute and target.attr.value == "shape") or \
            (type(target) is cst.Call and type(target.func) is cst.Attribute and target.func.attr.value == "size"
             and not target.args)
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "size" \
        and len(node.args) == 1 and node.args[0].keyword is None


# Calls drawing uniformly between two bounds, by the callee's last component, and their bounds' keyword pairs.
# Source: numpy ``Generator.uniform(low, high, size)``, Python ``random.uniform(a, b)``, torch ``Tensor.uniform_(from,
# to)`` and ``distributions.Uniform(low, high)``, JAX ``random.uniform(key, shape, minval, maxval)`` (whose first
# positional arguments are a key and a shape, never numbers, so they never read as bounds).
_UNIFORM_DRAWS = frozenset({"uniform", "uniform_", "Uniform"})
_BOUND_KEYWORDS = (("low", "high"), ("minval", "maxval"), ("a", "b"), ("from_", "to"))
# Calls drawing uniformly from [0, 1), which ``lo + (hi - lo) * draw`` scales (numpy, torch, Python's random).
_UNIT_DRAWS = frozenset({"rand", "random", "rand_like", "random_sample"})
# Calls laying a grid of evenly spaced points from one bound to the other, and their bounds' keyword pairs. Source:
# numpy and JAX ``linspace(start, stop, num)``, torch ``linspace(start, end, steps)``.
_GRIDS = frozenset({"linspace"})
_GRID_KEYWORDS = (("start", "stop"), ("start", "end"))


def drawn_range(node: cst.BaseExpression) -> tuple[int | float, int | float] | None:
    """The ``(low, high)`` bounds of a uniform random draw written with constant bounds, else ``None``:
    ``rng.uniform(1.0, 3.0, size=n)``, ``uniform(low=0, high=np.pi)``, ``torch.empty(n).uniform_(-1, 1)``,
    ``jax.random.uniform(key, (n,), minval=5.0, maxval=10.0)``, and a unit draw scaled and shifted by constants
    (``torch.rand(n) * (3 - 1) + 1``, ``0.1 + 0.8 * np.random.rand(n)``, ``torch.rand(n) * 2 * math.pi`` for
    ``(0, 2 pi)``). A value drawn so is a setting of the range it is drawn from (a parameter sampled per training
    example), not a number of its own. Bounds that are names (``uniform(lo, hi)``) fold to nothing here. Never
    raises."""
    if type(node) is cst.Call:
        if _callee_short(node) not in _UNIFORM_DRAWS:
            return None
        if "stats" in (dotted_name(node.func) or "").split("."):
            return None  # scipy.stats.uniform(loc, scale) is U(loc, loc + scale): no bounds written as such
        return _call_bounds(node, _BOUND_KEYWORDS)
    low, width = _scaled_unit_draw(node)
    if width is None:
        return None
    return (low, low + width) if width > 0 else (low + width, low)


def grid_range(node: cst.BaseExpression) -> tuple[Value, Value] | None:
    """The ``(start, end)`` of a grid of evenly spaced points, else ``None``: ``t = np.linspace(0, 1, n_time)``,
    ``torch.linspace(start=0.0, end=math.pi, steps=30)``; the domain the grid covers, a setting of that range. An end
    written as a bare name (``linspace(0.0, t_max, n)``) is kept as a symbol of that name, for value provenance to
    resolve where the grid is laid (``extractors.provenance.resolve_expression``); other ends fold as constants or
    give ``None``. Never raises."""
    if type(node) is not cst.Call or _callee_short(node) not in _GRIDS:
        return None
    pair = _call_ends(node, _GRID_KEYWORDS)
    if pair is None:
        return None
    if not any(type(end) is cst.Name and _constant(end) is None for end in pair):
        return _bounds(*pair)
    ends = tuple(sympy.Symbol(end.value) if type(end) is cst.Name else fold(end, allow_symbols=False) for end in pair)
    if not all(is_number(end) or isinstance(end, sympy.Symbol) for end in ends):
        return None
    return ends[0], ends[1]


def _call_bounds(node: cst.Call, keyword_pairs) -> tuple[int | float, int | float] | None:
    """The constant bounds a call passes as one of ``keyword_pairs`` or as its first two positional arguments."""
    pair = _call_ends(node, keyword_pairs)
    return _bounds(*pair) if pair is not None else None


def _call_ends(node: cst.Call, keyword_pairs) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """The two argument expressions a call passes as one of ``keyword_pairs`` or as its first two positional
    arguments, else ``None``."""
    keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
    pair = next(((keywords[a], keywords[b]) for a, b in keyword_pairs if a in keywords and b in keywords), None)
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if pair is None and len(positional) >= 2:
        pair = (positional[0], positional[1])
    return pair


def _callee_short(call: cst.Call) -> str:
    """The last component of a call's callee, also on a computed receiver (``torch.empty(n).uniform_``)."""
    func = call.func
    return func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""


def _bounds(low_node: cst.BaseExpression, high_node: cst.BaseExpression) -> tuple[int | float, int | float] | None:
    low, high = (fold(n, allow_symbols=False) for n in (low_node, high_node))
    if not (is_number(low) and is_number(high)) or low > high:
        return None
    return low, high


def _scaled_unit_draw(node: cst.BaseExpression) -> tuple[int | float, int | float | None]:
    """``(shift, scale)`` of ``shift + scale * unit_draw`` written with constants (``(0, None)`` when ``node`` is no
    such expression): sums peel off a constant shift, products a constant factor, down to one unit draw."""
    if type(node) is cst.Call:
        return (0, 1) if _callee_short(node) in _UNIT_DRAWS else (0, None)
    if type(node) is not cst.BinaryOperation or type(node.operator) not in (cst.Add, cst.Multiply, cst.Subtract):
        return 0, None
    for draw, constant in ((node.left, node.right), (node.right, node.left)):
        number = fold(constant, allow_symbols=False)
        if not is_number(number):
            continue
        shift, scale = _scaled_unit_draw(draw)
        if scale is None:
            continue
        if type(node.operator) is cst.Multiply:
            return shift * number, scale * number
        if type(node.operator) is cst.Add:
            return shift + number, scale
        return (shift - number, scale) if draw is node.left else (number - shift, -scale)
    return 0, None


def builds_object(node: cst.BaseExpression) -> bool:
    """Whether ``node`` builds something no claimed number can be: a call of a class, told by PEP 8's CapWords
    naming of classes (``nn.Embedding(...)``, ``DataLoader(...)``, ``Adam(...)``; an all-capitals name is a
    constant's, not a class's), other than the classes of ``_NUMBER_HOLDERS``; a collection written out
    (``steps = [d["step"] for d in log]``, ``batch = {k: v.to(device) for k, v in batch.items()}``) or by a builtin
    (``classes = sorted(...)``), which a fold left unfolded; or a text formatted at run time (``lr=f"{lr:.2e}"`` in
    a progress bar's postfix)."""
    if type(node) in _COLLECTIONS:
        return True
    if type(node) is not cst.Call:
        return False
    callee = dotted_name(node.func)
    if callee is None:
        return False
    if callee in _COLLECTION_BUILTINS:
        return True
    short = callee.rsplit(".", 1)[-1]
    return short[:1].isupper() and not short.isupper() and short not in _NUMBER_HOLDERS


def fold(node: cst.BaseExpression, allow_symbols: bool = True) -> Value | None:
    """Fold a libcst expression to a value (see module docstring), or ``None`` when it has none.

    A bare name or attribute (``lr = args.lr``) is not a value and returns ``None``; names only take part inside a
    larger expression, as symbols, and only when ``allow_symbols`` is true. Never raises on odd input.
    """
    if isinstance(node, (cst.Name, cst.Attribute)) and _constant(node) is None:
        return None
    try:
        return _simplify(_fold(node, allow_symbols, 0))
    except (_NotFoldable, ArithmeticError, ValueError, TypeError, RecursionError, SyntaxError):
        # SyntaxError: libcst evaluates a literal with compile(), which refuses integers over 4,300 digits
        return None


def parse_value(text: str) -> Value | None:
    """Parse untrusted value text (``"1e-4"``, ``"1/sqrt(d_model)"``, ``"(2, 2, 2, 1)"``) to a value, or ``None``.

    The text is parsed by libcst as a Python expression and folded; nothing is evaluated.
    """
    try:
        node = cst.parse_expression(text.strip())
    except Exception:  # libcst raises ParserSyntaxError and, on odd unicode, others
        return None
    return fold(node)


def symbol_names(value: object) -> tuple[str, ...]:
    """The names of the free symbols of a symbolic value (``("base_lr", "batch_size")`` for
    ``base_lr*batch_size/256``), sorted; empty for any other value."""
    if not isinstance(value, sympy.Expr):
        return ()
    return tuple(sorted(str(symbol) for symbol in value.free_symbols))


def substitute_numbers(value: object, numbers: dict[str, int | float]) -> int | float | None:
    """A symbolic value with each free symbol named in ``numbers`` replaced by its number, when that leaves a plain
    real number (``1/2 - detector_accuracy/2`` with ``detector_accuracy=0.95`` gives ``0.025``); ``None``
    otherwise. Never raises."""
    if not isinstance(value, sympy.Expr):
        return None
    try:
        result = _simplify(value.subs({sympy.Symbol(name): sympy.nsimplify(number) if isinstance(number, float)
                                       else number for name, number in numbers.items()}))
    except (_NotFoldable, ArithmeticError, ValueError, TypeError, RecursionError):
        return None
    return result if is_number(result) else None


# Casts and roundings a share of a total passes through (``int(0.1 * total_steps)``, ``math.ceil(n / 8)``), by the
# callee's last component: they turn the share into a count without changing which share it is.
_SHARE_CASTS = {"int", "float", "round", "floor", "ceil"}


def share_of(node: cst.BaseExpression) -> tuple[str, float] | None:
    """A fixed share of a named total that an expression computes, or ``None``: ``(total, share)`` where ``total`` is
    the last component of the name or attribute the share is taken of (``len(train_set)`` counts ``train_set``) and
    ``share`` a positive number. ``A // 8`` and ``A / 8`` give ``("A", 0.125)``; ``0.1 * cfg.total_steps`` and
    ``int(total_steps * 0.1)`` give ``("total_steps", 0.1)``. Only one total times or over one constant reads as a
    share; anything else (two names, an offset) is ``None``. Never raises."""
    while isinstance(node, cst.Call) and len(node.args) >= 1 and node.args[0].keyword is None \
            and (dotted_name(node.func) or "").rsplit(".", 1)[-1] in _SHARE_CASTS:
        node = node.args[0].value  # round(x, 2) rounds the same share
    if not isinstance(node, cst.BinaryOperation):
        return None
    left, right = _share_total(node.left), _share_total(node.right)
    if isinstance(node.operator, (cst.Divide, cst.FloorDivide)) and left is not None:
        divisor = fold(node.right, allow_symbols=False)
        return (left, 1 / divisor) if is_number(divisor) and divisor > 0 else None
    if isinstance(node.operator, cst.Multiply):
        total, factor = (left, node.right) if left is not None else (right, node.left)
        share = fold(factor, allow_symbols=False)
        return (total, float(share)) if total is not None and is_number(share) and share > 0 else None
    return None


def _share_total(node: cst.BaseExpression) -> str | None:
    """The name a share is taken of: a name or attribute (its last component) or ``len(x)`` (``x``'s)."""
    if isinstance(node, cst.Call) and dotted_name(node.func) == "len" and len(node.args) == 1:
        node = node.args[0].value
    name = dotted_name(node)
    return name.rsplit(".", 1)[-1] if name is not None and _constant(node) is None else None


def is_number(value: object) -> TypeGuard[int | float]:
    """True for ``int``/``float`` values (booleans excluded)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_INDEX = re.compile(r"\d+")


def indexed_sequence(entries: Sequence[tuple[str, object]]) -> tuple[int | float, ...] | None:
    """The sequence a mapping writes out one numbered entry at a time (``{"x0_factor": 8, "x1_factor": 4}``,
    ``stage1: 64`` / ``stage2: 128`` in a config): its values in written order, when there are at least two, every
    value is a number and every key is one stem with one number in it, the numbers counting up by one from 0 or 1.
    ``None`` for any other mapping (keyed by names, splits or sizes: ``{"train": 256, "val": 224}``)."""
    if len(entries) < 2 or not all(is_number(value) for _, value in entries):
        return None
    stems, indices = set(), []
    for key, _ in entries:
        found = _INDEX.findall(key)
        if len(found) != 1:
            return None
        stems.add(_INDEX.sub("#", key))
        indices.append(int(found[0]))
    if len(stems) != 1 or indices[0] not in (0, 1) or indices != list(range(indices[0], indices[0] + len(indices))):
        return None
    return tuple(value for _, value in entries)  # type: ignore[misc]


def _constant(node: cst.BaseExpression) -> sympy.Expr | None:
    name = dotted_name(node)
    if name is None or "." not in name:
        return None
    owner, _, attr = name.rpartition(".")
    if owner.split(".")[0] in _CONSTANT_OWNERS and attr in _CONSTANTS:
        return _CONSTANTS[attr]
    return None


def _simplify(value: object) -> Value:
    """Turn a symbol-free sympy result into a plain number, keep the rest."""
    if isinstance(value, sympy.Expr):
        if value.free_symbols:
            return value
        if value.is_Integer:
            return int(value)
        if value.is_infinite:
            return math.inf if value.is_positive else -math.inf
        number = complex(value.evalf())
        if number.imag:
            raise _NotFoldable
        return float(number.real)
    return value


def _fold(node: cst.BaseExpression, allow_symbols: bool, depth: int):
    if depth > _MAX_DEPTH:
        raise _NotFoldable
    depth += 1
    if isinstance(node, cst.Integer):
        return node.evaluated_value
    if isinstance(node, cst.Float):
        return node.evaluated_value
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else _raise()
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else _raise()
    if isinstance(node, cst.Name):
        if node.value in ("True", "False"):
            return node.value == "True"
        if not allow_symbols or node.value == "None":
            raise _NotFoldable
        return sympy.Symbol(node.value)
    if isinstance(node, cst.Attribute):
        constant = _constant(node)
        if constant is not None:
            return constant
        if not allow_symbols:
            raise _NotFoldable
        return sympy.Symbol(node.attr.value)
    if isinstance(node, cst.UnaryOperation):
        operand = _fold(node.expression, allow_symbols, depth)
        if isinstance(node.operator, cst.Minus):
            return -_numeric(operand)
        if isinstance(node.operator, cst.Plus):
            return _numeric(operand)
        raise _NotFoldable
    if isinstance(node, cst.BinaryOperation):
        left = _numeric(_fold(node.left, allow_symbols, depth))
        right = _numeric(_fold(node.right, allow_symbols, depth))
        return _binary(node.operator, left, right)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        if len(node.elements) > _MAX_SEQUENCE:
            raise _NotFoldable
        items = []
        for element in node.elements:
            if isinstance(element, (cst.StarredElement,)):
                raise _NotFoldable
            items.append(_simplify(_fold(element.value, allow_symbols, depth)))
        return tuple(items)
    if isinstance(node, cst.Call):
        return _call(node, allow_symbols, depth)
    raise _NotFoldable


def _raise():
    raise _NotFoldable


def _numeric(value):
    """Numbers and symbolic expressions take part in arithmetic; strings, booleans and tuples do not."""
    if isinstance(value, bool) or not (is_number(value) or isinstance(value, sympy.Expr)):
        raise _NotFoldable
    return value


def _exact(value):
    """A number as an exact sympy number (``0.02`` -> ``1/50``), for symbolic arithmetic."""
    if isinstance(value, sympy.Expr):
        return value
    if isinstance(value, float):
        if math.isinf(value) or math.isnan(value):
            raise _NotFoldable
        return sympy.Rational(repr(value))
    return sympy.Integer(value)


# Operators that fold; modulo only between plain numbers, floor division of symbols as sympy's floor of the
# quotient (``d_model // n_heads``: a size derived from settings, worked out once they are known).
_ARITHMETIC = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
               cst.Divide: operator.truediv, cst.Power: operator.pow}
_NUMERIC_ONLY = {cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod}


def _binary(node_operator: cst.BaseBinaryOp, left, right):
    kind = type(node_operator)
    if kind is cst.Power:
        _check_power(left, right)
    if isinstance(left, sympy.Expr) or isinstance(right, sympy.Expr):
        if kind is cst.FloorDivide:
            return sympy.floor(_exact(left) / _exact(right))
        if kind not in _ARITHMETIC:
            raise _NotFoldable
        return _ARITHMETIC[kind](_exact(left), _exact(right))
    function = _ARITHMETIC.get(kind) or _NUMERIC_ONLY.get(kind)
    if function is None:
        raise _NotFoldable
    result = function(left, right)
    if isinstance(result, complex):  # (-8) ** 0.5
        raise _NotFoldable
    return result


def _check_power(base, exponent) -> None:
    """Refuse powers whose result would be huge: ``9**9**9`` must cost nothing."""
    if isinstance(exponent, sympy.Expr):
        if exponent.free_symbols:
            return
        exponent = float(exponent)
    if abs(exponent) > _MAX_EXPONENT:
        raise _NotFoldable
    if isinstance(base, int) and base.bit_length() * abs(exponent) > _MAX_RESULT_BITS:
        raise _NotFoldable


def _call(node: cst.Call, allow_symbols: bool, depth: int):
    name = dotted_name(node.func)
    if name is None or any(arg.keyword is not None or arg.star for arg in node.args):
        raise _NotFoldable
    last = name.rsplit(".", 1)[-1]
    if len(node.args) != 1:
        if last == "pow" and len(node.args) == 2:
            base = _numeric(_fold(node.args[0].value, allow_symbols, depth))
            return _binary(cst.Power(), base, _numeric(_fold(node.args[1].value, allow_symbols, depth)))
        raise _NotFoldable
    argument = _fold(node.args[0].value, allow_symbols, depth)
    if name in _NUMBER_CASTS:
        if isinstance(argument, str):
            text = argument.strip().lower()
            if text in ("inf", "+inf", "infinity"):
                return math.inf
            if text in ("-inf", "-infinity"):
                return -math.inf
            return int(text) if name == "int" else float(text)
        if is_number(argument):
            return int(argument) if name == "int" else float(argument)
        raise _NotFoldable
    if last in _UNARY_FUNCTIONS and (name == last or name.split(".")[0] in _CONSTANT_OWNERS):
        return _UNARY_FUNCTIONS[last](_exact(_numeric(argument)))
    raise _NotFoldable
