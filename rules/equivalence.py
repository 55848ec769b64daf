"""Equivalence of two sympy expressions by evaluation at fixed pseudo-random points.

Both sides are evaluated by a small interpreter over the sympy tree (never ``lambdify``, which compiles printed
text with ``eval`` and would run a function name crafted in the repository under test). Free symbols take
values in [0.6, 1.8] and every uninterpreted function (``softmax``, ``mean``, ``matmul``) a fixed, generic,
non-symmetric smooth function of its arguments, both seeded from the name with blake2b, so verdicts do not depend
on the process or the machine. Two expressions that are equal under every interpretation are equal here; two
that differ almost surely differ at one of the points (the Schwartz-Zippel idea behind randomized identity
testing, Schwartz 1980). Arithmetic is complex, so ``log`` and ``sqrt`` of negative values stay defined.
"""

from __future__ import annotations

from typing import Sequence

import cmath
import hashlib
import math
from functools import lru_cache

import sympy
from sympy.core.function import AppliedUndef

POINTS = 4
RELATIVE_TOLERANCE = 1e-7
_HUGE = 1e120


class Inconclusive(ArithmeticError):
    """The expression could not be evaluated at a point (a division by zero, an overflow, infinity)."""


@lru_cache(maxsize=1 << 16)
def _seed(*parts) -> float:
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2 ** 64


def evaluate(expression: sympy.Basic, point: int, renaming: dict[str, str] | None = None) -> complex:
    """The value of ``expression`` at pseudo-random point number ``point``; a symbol named in ``renaming`` takes the
    value of the symbol it is renamed to. Raises ``Inconclusive``."""
    memo: dict = {}
    renaming = renaming or {}
    stack = [(expression, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        if not ready and node.args:
            stack.append((node, True))
            stack.extend((arg, False) for arg in node.args if arg not in memo)
            continue
        memo[node] = _value(node, [memo[a] for a in node.args], point, renaming)
    return memo[expression]


def _value(node: sympy.Basic, args: list[complex], point: int, renaming: dict[str, str]) -> complex:
    try:
        if isinstance(node, sympy.Symbol):
            return complex(0.6 + 1.2 * _seed("symbol", renaming.get(node.name, node.name), point))
        if node is sympy.pi:
            return complex(math.pi)
        if node is sympy.E:
            return complex(math.e)
        if node.is_Number:
            if not node.is_finite:
                raise Inconclusive("infinite value")
            return complex(float(node))
        if isinstance(node, sympy.Add):
            result = sum(args, 0j)
        elif isinstance(node, sympy.Mul):
            result = 1 + 0j
            for value in args:
                result *= value
        elif isinstance(node, sympy.Pow):
            base, exponent = args
            if base == 0 and exponent.real <= 0:
                raise Inconclusive("division by zero")
            result = base ** exponent
        elif isinstance(node, sympy.exp):
            if args[0].real > 200:
                raise Inconclusive("overflow")
            result = cmath.exp(args[0])
        elif isinstance(node, sympy.log):
            if args[0] == 0:
                raise Inconclusive("log of zero")
            result = cmath.log(args[0])
        elif isinstance(node, sympy.Abs):
            result = complex(abs(args[0]))
        elif isinstance(node, (sympy.sin, sympy.cos, sympy.tanh)):
            result = {sympy.sin: cmath.sin, sympy.cos: cmath.cos, sympy.tanh: cmath.tanh}[type(node)](args[0])
        else:
            name = node.func.__name__ if isinstance(node, AppliedUndef) else type(node).__name__
            result = _generic(name, args)
    except (OverflowError, ZeroDivisionError, ValueError) as error:
        raise Inconclusive(str(error)) from None
    if not (abs(result) < _HUGE) or result != result:
        raise Inconclusive("overflow")
    return result


def _generic(name: str, args: list[complex]) -> complex:
    """A fixed smooth function of ``args`` for the uninterpreted function ``name``: order matters, no symmetry."""
    linear = _seed(name, "c") + sum((0.3 + _seed(name, i)) * a for i, a in enumerate(args))
    square = sum((0.2 + _seed(name, "q", i)) * a * a for i, a in enumerate(args))
    return cmath.sin(linear) + 0.5 * cmath.cos(square) + 0.25 * len(args)


def values(expression: sympy.Basic, renaming: dict[str, str] | None = None) -> list[complex] | None:
    """The values at the fixed points (symbols renamed by ``renaming``, see ``evaluate``), or ``None`` when the
    expression cannot be evaluated at all of them."""
    try:
        return [evaluate(expression, point, renaming) for point in range(POINTS)]
    except Inconclusive:
        return None


def close(a: complex, b: complex) -> bool:
    """Equal within ``RELATIVE_TOLERANCE`` (absolutely, near zero)."""
    return abs(a - b) <= RELATIVE_TOLERANCE * max(1.0, abs(a), abs(b))


def agree(left: list[complex] | None, right: list[complex] | None) -> bool:
    """True when two lists of values (from ``values``) exist and are close at every point."""
    return left is not None and right is not None and all(close(x, y) for x, y in zip(left, right))


def matches(expression: sympy.Basic, claimed_values: Sequence[complex], renaming: dict[str, str] | None = None) -> bool:
    """True when ``expression`` (symbols renamed by ``renaming``) takes ``claimed_values`` at every point. Stops at
    the first point that differs, which is where almost every non-equivalent candidate stops."""
    try:
        return all(close(evaluate(expression, point, renaming), claimed)
                   for point, claimed in enumerate(claimed_values))
    except Inconclusive:
        return False


def same(a: sympy.Basic, b: sympy.Basic) -> bool | None:
    """``True`` when ``a`` and ``b`` agree at every point, ``False`` when they differ at one, ``None`` when either
    cannot be evaluated."""
    if a == b:
        return True
    left, right = values(a), values(b)
    if left is None or right is None:
        return None
    return all(close(x, y) for x, y in zip(left, right))


def constant_ratio(a: sympy.Basic, b: sympy.Basic) -> complex | None:
    """The constant ``k`` with ``a == k * b`` at every point, or ``None`` when the ratio varies or is undefined."""
    left, right = values(a), values(b)
    if left is None or right is None or any(abs(y) < 1e-12 for y in right):
        return None
    ratios = [x / y for x, y in zip(left, right)]
    return ratios[0] if all(close(r, ratios[0]) for r in ratios) else None
