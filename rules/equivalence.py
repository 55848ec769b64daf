"""Equivalence of two sympy expressions by evaluation at fixed pseudo-random points.

Both sides are evaluated by a small interpreter over the sympy tree (never ``lambdify``, which compiles printed text
with ``eval`` and would run a function name crafted in the repository under test). At the first ``POSITIVE_POINTS``
points free symbols take values in [0.6, 1.8]; at the others (``points of both signs``) the same magnitudes with a
sign: all negative at the first of them, a seeded sign at the rest, so that a clamp at zero (``max(0, x)``,
``relu``, ``clamp(x, min=0)``) is told apart from ``x``. Those points count only when one side is sign-sensitive
(``SIGN_SENSITIVE``, ``Abs``): elsewhere they would only test branch cuts of ``log`` and ``sqrt``, which the code
and the paper never mean. ``max``, ``min``, ``clip`` and ``relu`` are interpreted on real values; every other
uninterpreted function (``softmax``, ``mean``, ``matmul``) is a fixed, generic, non-symmetric smooth function of its
arguments, both seeded from the name with blake2b, so verdicts do not depend on the process or the machine; a chain
of matrix products is evaluated left to right however it is grouped, as the product is associative (``inv(A) @ Phi @
r`` is ``inv(A) @ (Phi @ r)``, which ``np.linalg.solve(A, Phi @ r)`` computes), and ``mean`` and ``sum`` are spread
over a sum and past a number factor, as they are linear (``mean(a + b)`` is ``mean(a) + mean(b)``), after an extreme
of negated operands has become the negated other extreme (``max(-a, -b)`` is ``-min(a, b)``); a comparison is read
on one side (``p >= 1 - lam`` is ``1 - p <= lam``). Two expressions that are equal under every interpretation are
equal here; two that differ almost surely differ at one of the points (the Schwartz-Zippel idea behind randomized
identity testing, Schwartz 1980). Arithmetic is complex, so ``log`` and ``sqrt`` of negative values stay defined.

The work is counted, not timed: a ``Budget`` passed to the functions below is charged one unit per node evaluated
and raises ``Exhausted`` past its limit, so that where a search stops depends on the inputs alone, never on the
machine's load.
"""

from __future__ import annotations

from typing import Sequence

import cmath
import hashlib
import math
from functools import lru_cache

import sympy
from sympy.core.function import AppliedUndef

POSITIVE_POINTS = 4
POINTS = 7  # POSITIVE_POINTS, then points of both signs
DIAGONAL = -1  # the point where every symbol takes the same positive value (``may_match``)
RELATIVE_TOLERANCE = 1e-7
_HUGE = 1e120
_REAL_TOLERANCE = 1e-9  # an imaginary part below this is rounding: the value is real
# functions interpreted on real values, whose result depends on the sign of an argument
SIGN_SENSITIVE = frozenset({"max", "min", "clip", "relu"})
_NONE = "None"  # the symbol of an optional operand left out (extractors.formulas.MISSING_OPERAND)


class Inconclusive(ArithmeticError):
    """The expression could not be evaluated at a point (a division by zero, an overflow, infinity)."""


class Exhausted(Exception):
    """A ``Budget`` ran out: the search that spent it stops undecided."""


class Budget:
    """A count of evaluation work: ``spend(units)`` charges it and raises ``Exhausted`` once more than ``limit``
    units have been spent. ``spent`` says how many so far."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, units: int) -> None:
        """Charge ``units``; raises ``Exhausted`` past the limit."""
        self.spent += units
        if self.spent > self.limit:
            raise Exhausted(f"operation budget of {self.limit} exhausted")


@lru_cache(maxsize=1 << 16)
def _seed(*parts) -> float:
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2 ** 64


def evaluate(expression: sympy.Basic, point: int, renaming: dict[str, str] | None = None,
             budget: Budget | None = None) -> complex:
    """The value of ``expression`` at pseudo-random point number ``point``; a symbol named in ``renaming`` takes the
    value of the symbol it is renamed to. Raises ``Inconclusive``, and ``Exhausted`` when ``budget`` runs out
    (charged one unit per distinct node, whether or not the value was computed before)."""
    value, units, error = _evaluated(expression, point, tuple(sorted(renaming.items())) if renaming else ())
    if error is not None:
        raise Inconclusive(error)
    if budget is not None:
        budget.spend(units)
    if value is None:
        raise Inconclusive("an operand left out")
    return value


@lru_cache(maxsize=1 << 17)  # the same candidate is evaluated under the same renaming for several formulas
def _evaluated(expression: sympy.Basic, point: int,
               renaming: tuple[tuple[str, str], ...]) -> tuple[complex | None, int, str | None]:
    """(the value of ``expression`` at ``point``, the number of distinct nodes evaluated, ``None``), or (``None``,
    0, why) where the evaluation is inconclusive (``evaluate``)."""
    program = _program(expression)
    try:
        return _run(program, point, dict(renaming)), len(program), None
    except Inconclusive as error:
        return None, 0, str(error)


# the operations of a compiled node (``_program``)
_SYMBOL, _REAL, _CONSTANT, _FAILED, _ADD, _MUL, _POW, _EXP, _LOG, _ABS, _UNARY, _GENERIC = range(12)
_UNARY_FUNCTIONS = {sympy.sin: cmath.sin, sympy.cos: cmath.cos, sympy.tanh: cmath.tanh}


@lru_cache(maxsize=1 << 14)  # one program serves every point and renaming of an expression
def _program(expression: sympy.Basic) -> tuple[tuple, ...]:
    """The distinct nodes of ``expression`` in the order ``_run`` evaluates them (children first, each node once),
    each as (operation, its data, the positions of its arguments in the program): the tree is read once, and each
    point and renaming then costs only arithmetic. The order is the one a depth-first walk over the shared graph
    gives, so the first node that fails at a point (and the reason given) depends on the expression alone."""
    if any(_spread(n) for n in expression.atoms(AppliedUndef)):
        expression = _distributed(expression)
    position: dict = {}
    program: list[tuple] = []
    stack = [(expression, False)]
    while stack:
        node, ready = stack.pop()
        if node in position:
            continue
        product = _is_product(node)
        children = _factors(node) if product else node.args
        if not ready and children:
            stack.append((node, True))
            stack.extend((arg, False) for arg in children if arg not in position)
            continue
        if product:  # a chain of matrix products, evaluated left to right whatever its grouping
            operation = _operation(node)
            done = position[children[0]]
            for factor in children[1:-1]:
                key = (_PRODUCT, done, position[factor])
                if key not in position:
                    position[key] = len(program)
                    program.append(operation + ((done, position[factor]),))
                done = position[key]
            position[node] = len(program)
            program.append(operation + ((done, position[children[-1]]),))
            continue
        position[node] = len(program)
        program.append(_operation(node) + (tuple(position[a] for a in node.args),))
    return tuple(program)


_PRODUCT = "matmul"  # the matrix product, associative: (A @ B) @ C is A @ (B @ C)
_LINEAR = frozenset({"mean", "sum"})  # reductions that are linear: mean(a + b) is mean(a) + mean(b)


def _spread(node: sympy.Basic) -> bool:
    """Whether ``node`` is a linear reduction of a sum, or of a product with a number, or an extreme of negated
    operands (``_distributed``)."""
    if _negated_extreme(node) is not None or _canonical_comparison(node) is not None:
        return True
    if node.func.__name__ not in _LINEAR or len(node.args) != 1:
        return False
    inner = node.args[0]
    return isinstance(inner, sympy.Add) or isinstance(inner, sympy.Mul) and inner.as_coeff_Mul()[0] != 1


def _distributed(node: sympy.Basic) -> sympy.Basic:
    """``node`` with each linear reduction (``_LINEAR``) spread over the terms of a sum and past a number factor:
    ``mean(x - 2 * y)`` is ``mean(x) - 2 * mean(y)``, as the mean of a sum of arrays is the sum of their means (a
    loss written as one mean of a sum of terms, or as a sum of means, is the same loss). A symbol factor stays
    inside (``mean(w * x)``): whether it is a scalar or an array of weights is not known. An extreme of negated
    operands is the negated other extreme first (``_negated_extreme``), so that a clipped surrogate written
    ``max(-a, -b).mean()`` spreads as ``-min(a, b).mean()`` does; a comparison is read on one side
    (``_canonical_comparison``)."""
    if not node.args:
        return node
    args = tuple(_distributed(a) for a in node.args)
    rebuilt = node.func(*args) if args != node.args else node
    flipped = _negated_extreme(rebuilt)
    if flipped is not None:
        return flipped
    compared = _canonical_comparison(rebuilt)
    if compared is not None:
        return compared
    if isinstance(node, AppliedUndef) and node.func.__name__ in _LINEAR and len(args) == 1:
        inner = args[0]
        if isinstance(inner, sympy.Add):
            return sympy.Add(*(_distributed(node.func(term)) for term in inner.args))
        if isinstance(inner, sympy.Mul):
            number, rest = inner.as_coeff_Mul()
            if number != 1:
                return number * _distributed(node.func(rest))
    return rebuilt


# a comparison as the one of its difference with 0, the larger side first turned around: a >= b is b - a <= 0
_COMPARISONS = {"less": ("less", False), "less_equal": ("less_equal", False), "greater": ("less", True),
                "greater_equal": ("less_equal", True), "equal": ("equal", False), "not_equal": ("not_equal", False)}


def comparison_name(name: str) -> str:
    """The name a function of that ``name`` has once read on one side (``greater_equal`` is ``less_equal``,
    ``_canonical_comparison``); any other name as it is."""
    return _COMPARISONS[name][0] if name in _COMPARISONS else name


def _canonical_comparison(node: sympy.Basic) -> sympy.Basic | None:
    """A comparison of two operands as that of their difference with 0, ``greater`` turned into ``less``
    (``p >= 1 - lam`` and ``1 - p <= lam`` are both ``less_equal(1 - lam - p, 0)``: the same predicate, as the
    translation reads both sides' comparisons as uninterpreted functions), else None (already so, or not a
    comparison)."""
    if not isinstance(node, AppliedUndef) or node.func.__name__ not in _COMPARISONS or len(node.args) != 2:
        return None
    name, turned = _COMPARISONS[node.func.__name__]
    left, right = node.args[::-1] if turned else node.args
    if not turned and right == 0:
        return None
    return sympy.Function(name)(left - right, sympy.S.Zero)


# the other extreme: -max(-a, -b) is min(a, b) (also read by rules.d2_formula when it names a swapped function)
EXTREMES = {"max": "min", "min": "max"}


def _negated_extreme(node: sympy.Basic) -> sympy.Basic | None:
    """``max(-a, -b)`` as ``-min(a, b)`` and ``min(-a, -b)`` as ``-max(a, b)`` (an identity of real numbers, the
    elementwise extremes ``_real_function`` computes), else None."""
    if not isinstance(node, AppliedUndef) or node.func.__name__ not in EXTREMES or len(node.args) < 2 \
            or not all(isinstance(a, sympy.Mul) and a.as_coeff_Mul()[0] == -1 for a in node.args):
        return None
    return -sympy.Function(EXTREMES[node.func.__name__])(*(a.as_coeff_Mul()[1] for a in node.args))


def _is_product(node: sympy.Basic) -> bool:
    return isinstance(node, AppliedUndef) and node.func.__name__ == _PRODUCT and len(node.args) == 2


def _factors(node: sympy.Basic) -> list[sympy.Basic]:
    """The factors of a chain of matrix products in order: ``(A @ B) @ C`` and ``A @ (B @ C)`` both give
    ``[A, B, C]``, so that the chain is evaluated as one product however the paper or the code groups it."""
    if _is_product(node):
        return _factors(node.args[0]) + _factors(node.args[1])
    return [node]


def _operation(node: sympy.Basic) -> tuple:
    """(operation, data) of one node; a number's value is computed here, once (or the reason it has none)."""
    if isinstance(node, sympy.Symbol):
        return _SYMBOL, node.name
    name = node.func.__name__ if isinstance(node, AppliedUndef) else ""
    if name in SIGN_SENSITIVE:
        return _REAL, name
    if node is sympy.pi or node is sympy.E or node.is_Number:
        try:
            if node.is_Number and not node.is_finite:
                return _FAILED, "infinite value"
            value = complex(math.pi) if node is sympy.pi else complex(math.e) if node is sympy.E \
                else complex(float(node))
        except (OverflowError, ZeroDivisionError, ValueError) as error:
            return _FAILED, str(error)
        return (_CONSTANT, value) if abs(value) < _HUGE and value == value else (_FAILED, "overflow")
    if isinstance(node, sympy.Add):
        return _ADD, None
    if isinstance(node, sympy.Mul):
        return _MUL, None
    if isinstance(node, sympy.Pow):
        return _POW, None
    if isinstance(node, sympy.exp):
        return _EXP, None
    if isinstance(node, sympy.log):
        return _LOG, None
    if isinstance(node, sympy.Abs):
        return _ABS, None
    if isinstance(node, (sympy.sin, sympy.cos, sympy.tanh)):
        return _UNARY, _UNARY_FUNCTIONS[type(node)]
    generic = name or type(node).__name__  # a fixed smooth function of the arguments (``_generic``)
    return _GENERIC, (generic, _seed(generic, "c"), tuple(0.3 + _seed(generic, i) for i in range(len(node.args))),
                      tuple(0.2 + _seed(generic, "q", i) for i in range(len(node.args))))


def _run(program: tuple[tuple, ...], point: int, renaming: dict[str, str]) -> complex | None:
    """The value of the last node of ``program`` at ``point``; raises ``Inconclusive`` at the first node that has
    none (a division by zero, an overflow, an operand left out)."""
    values: list = []
    # this loop runs for every node of every candidate at every point and renaming: its lookups are made local
    append, read, rename, huge = values.append, values.__getitem__, renaming.get, _HUGE
    try:
        for operation, data, arguments in program:
            if operation == _SYMBOL:
                append(_symbol(rename(data, data), point))
                continue
            if operation == _CONSTANT:  # no arguments, so none left out
                append(data)
                continue
            args = [*map(read, arguments)]
            if operation == _REAL:
                append(_real_function(data, args))
                continue
            if None in args:
                raise Inconclusive("an operand left out")
            if operation == _FAILED:
                raise Inconclusive(data)
            if operation == _ADD:
                result = sum(args, 0j)
            elif operation == _MUL:
                result = 1 + 0j
                for value in args:
                    result *= value
            elif operation == _POW:
                base, exponent = args
                if base == 0 and exponent.real <= 0:
                    raise Inconclusive("division by zero")
                result = base ** exponent
            elif operation == _EXP:
                if args[0].real > 200:
                    raise Inconclusive("overflow")
                result = cmath.exp(args[0])
            elif operation == _LOG:
                if args[0] == 0:
                    raise Inconclusive("log of zero")
                result = cmath.log(args[0])
            elif operation == _ABS:
                result = complex(abs(args[0]))
            elif operation == _UNARY:
                result = data(args[0])
            else:
                result = _generic(data, args)
            if not (abs(result) < huge) or result != result:
                raise Inconclusive("overflow")
            append(result)
    except (OverflowError, ZeroDivisionError, ValueError) as error:
        raise Inconclusive(str(error)) from None
    return values[-1]


@lru_cache(maxsize=1 << 14)
def _symbol(name: str, point: int) -> complex | None:
    """A symbol's value at ``point``: positive at the first points, then all negative, then of a seeded sign; at
    ``DIAGONAL`` one positive value shared by every symbol."""
    if name == _NONE:
        return None
    magnitude = 0.6 + 1.2 * _seed("symbol", "<diagonal>" if point == DIAGONAL else name, point)
    if point < POSITIVE_POINTS:
        return complex(magnitude)
    if point == POSITIVE_POINTS or _seed("sign", name, point) < 0.5:
        return complex(-magnitude)
    return complex(magnitude)


def _real_function(name: str, args: list) -> complex:
    """``max``, ``min``, ``clip(x, low, high)`` (a bound left out is ``None``) and ``relu`` on real values."""
    present = [a for a in args if a is not None]
    if any(abs(a.imag) > _REAL_TOLERANCE for a in present) or not present:
        raise Inconclusive(f"{name} of a complex value")
    reals = [a.real for a in present]
    if name == "relu" and len(args) == 1 and args[0] is not None:
        return complex(max(0.0, reals[0]))
    if name in ("max", "min") and len(present) == len(args):
        return complex(max(reals) if name == "max" else min(reals))
    if name == "clip" and len(args) == 3 and args[0] is not None:
        value = args[0].real
        if args[1] is not None:
            value = max(value, args[1].real)
        if args[2] is not None:
            value = min(value, args[2].real)
        return complex(value)
    raise Inconclusive(f"{name} with {len(args)} operands")


def _generic(data: tuple, args: list[complex]) -> complex:
    """A fixed smooth function of ``args`` for an uninterpreted function: ``data`` is (its name, the seeded
    constant, the linear and the square coefficients, ``_operation``); order matters, no symmetry."""
    _, constant, linear_weights, square_weights = data
    # the sums ``sum(w * a for ...)`` would make, in the same order (so the same rounding), without a generator
    linear: complex | int = 0
    square: complex | int = 0
    for w, a in zip(linear_weights, args):
        linear += w * a
    for w, a in zip(square_weights, args):
        square += w * a * a
    return cmath.sin(constant + linear) + 0.5 * cmath.cos(square) + 0.25 * len(args)


def sign_sensitive(expression: sympy.Basic) -> bool:
    """True when ``expression`` holds a function whose value depends on the sign of its argument (``SIGN_SENSITIVE``,
    ``Abs``): only then do the points of both signs count."""
    return _sign_sensitive(expression)


@lru_cache(maxsize=1 << 14)
def _sign_sensitive(expression: sympy.Basic) -> bool:
    seen: set = set()
    stack = [expression]
    while stack:  # over the shared graph: the printed tree of a chain of definitions is exponential
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, sympy.Abs) or isinstance(node, AppliedUndef) and node.func.__name__ in SIGN_SENSITIVE:
            return True
        stack.extend(node.args)
    return False


def values(expression: sympy.Basic, renaming: dict[str, str] | None = None,
           budget: Budget | None = None) -> list[complex | None] | None:
    """The values at the fixed points (symbols renamed by ``renaming``, see ``evaluate``), or ``None`` when the
    expression cannot be evaluated at one of the positive points; a point of both signs where it cannot be
    evaluated holds ``None``. Raises ``Exhausted`` when ``budget`` runs out."""
    found: list[complex | None] = []
    for point in range(POINTS):
        try:
            found.append(evaluate(expression, point, renaming, budget))
        except Inconclusive:
            if point < POSITIVE_POINTS:
                return None
            found.append(None)
    return found


def close(a: complex, b: complex) -> bool:
    """Equal within ``RELATIVE_TOLERANCE`` (absolutely, near zero)."""
    return abs(a - b) <= RELATIVE_TOLERANCE * max(1.0, abs(a), abs(b))


def _points(both_signs: bool) -> int:
    return POINTS if both_signs else POSITIVE_POINTS


def agree(left: list | None, right: list | None, both_signs: bool = False) -> bool:
    """True when two lists of values (from ``values``) exist and are close at every point that counts (the points
    of both signs only with ``both_signs``, and only where both sides are defined)."""
    if left is None or right is None:
        return False
    for point in range(_points(both_signs)):
        x, y = left[point], right[point]
        if x is None or y is None:
            if point < POSITIVE_POINTS or (x is None) != (y is None):
                return False
            continue
        if not close(x, y):
            return False
    return True


def matches(expression: sympy.Basic, claimed_values: Sequence[complex | None], renaming: dict[str, str] | None = None,
            both_signs: bool = False, budget: Budget | None = None) -> bool:
    """True when ``expression`` (symbols renamed by ``renaming``) takes ``claimed_values`` at every point that counts
    (``both_signs``: also at the points of both signs where the claim is defined; pass it when either side is
    ``sign_sensitive``). Stops at the first point that differs, which is where almost every non-equivalent
    candidate stops. Raises ``Exhausted`` when ``budget`` runs out."""
    for point in range(_points(both_signs)):
        claimed = claimed_values[point]
        if claimed is None:
            continue
        try:
            if not close(evaluate(expression, point, renaming, budget), claimed):
                return False
        except Inconclusive:
            return False
    return True


def may_match(expression: sympy.Basic, claimed: sympy.Basic) -> bool:
    """False when no renaming of ``expression``'s symbols can make it take ``claimed``'s values (``matches``): at the
    ``DIAGONAL`` point every symbol has one value, so a renaming changes nothing there, and an expression equal to the
    claim under some renaming (at the positive points, and so, by the argument of the module docstring, wherever
    symbols are positive) takes the claim's value there too. Every interpreted operation is continuous, so one
    shared value is no edge case. True when either side cannot be evaluated at that point. One evaluation per
    expression (cached), charged to no budget: it replaces a search over renamings, each charged as it is tried."""
    try:
        return close(evaluate(expression, DIAGONAL), evaluate(claimed, DIAGONAL))
    except Inconclusive:
        return True


def same(a: sympy.Basic, b: sympy.Basic, budget: Budget | None = None) -> bool | None:
    """``True`` when ``a`` and ``b`` agree at every point that counts, ``False`` when they differ at one, ``None``
    when either cannot be evaluated. Raises ``Exhausted`` when ``budget`` runs out."""
    if a == b:
        return True
    left, right = values(a, budget=budget), values(b, budget=budget)
    if left is None or right is None:
        return None
    return agree(left, right, sign_sensitive(a) or sign_sensitive(b))


def constant_ratio(a: sympy.Basic, b: sympy.Basic, budget: Budget | None = None) -> complex | None:
    """The constant ``k`` with ``a == k * b`` at every positive point, or ``None`` when the ratio varies or is
    undefined. Raises ``Exhausted`` when ``budget`` runs out."""
    left, right = values(a, budget=budget), values(b, budget=budget)
    if left is None or right is None:
        return None
    pairs = [(x, y) for x, y in zip(left[:POSITIVE_POINTS], right[:POSITIVE_POINTS])
             if x is not None and y is not None and abs(y) >= 1e-12]
    if len(pairs) < POSITIVE_POINTS:
        return None
    ratios = [x / y for x, y in pairs]
    return ratios[0] if all(close(r, ratios[0]) for r in ratios) else None
