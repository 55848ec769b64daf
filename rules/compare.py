"""Value comparison for D1: is the value bound in code the value the paper claims?

Texts compare as library choices (``rules.quantities.choice_equal``: case, punctuation and spellings such as
``bf16`` for ``bfloat16`` aside; a text naming no member of the claimed choice's family is not comparable). Three answers: ``True`` (equal), ``False`` (comparable and different: the basis of a
numerical drift) and ``None``
(not comparable: a number against a string, a symbolic value against a number, symbols we cannot pair up).
Numbers compare with a relative tolerance of 1e-9 (``1e-4`` == ``0.0001`` == ``10**-4``), or the atom's own
tolerance where the paper says "about", and no absolute tolerance, except that a decimal of five or more
significant digits equals the longer number it rounds (``3.14159`` for ``pi``: ``written_rounding``); a number
equals a tuple repeating it, one size per dimension (``Resize((256, 256))`` for an image size of 256): a small
constant (``eps = 1e-12``) differs from another (``1e-14``) however close both are to zero, and zero equals only
zero. Symbolic values compare after pairing their free symbols by name (through ``rules.names``), by evaluating
both at fixed pseudo-random points with ``subs``/``evalf``: nothing is evaluated as Python, and a deterministic seed
keeps verdicts reproducible.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal

import sympy

from extractors.values import is_number
from rules.names import normalise
from rules.quantities import choice_equal
from sau.vocabulary import Value

_RELATIVE = 1e-9
# A decimal written with this many significant digits or more may be a rounding of an irrational claim (pi to 5
# decimals has 6); hyperparameters are chosen with two or three.
_ROUNDED_DIGITS = 5
# How far, in units of its last written place, a rounding may sit from the number: one for rounding, two for a
# product of a rounded constant (5 * 3.14159 = 15.70795 for 5 pi is 1.3 units off)
_ROUNDING_UNITS = 2
_POINTS = 4
_SEED = 20250101


def equal(claimed: Value, found: Value, tolerance: float = 0.0) -> bool | None:
    """Compare one claimed value with one value found in code (see module docstring for the three answers)."""
    if isinstance(claimed, bool) or isinstance(found, bool):
        if isinstance(claimed, bool) and isinstance(found, bool):
            return claimed == found
        return None
    if is_number(claimed) and is_number(found):
        return numbers_equal(claimed, found, tolerance) or written_rounding(claimed, found)
    if is_number(claimed) and isinstance(found, tuple) and len(found) > 1 and all(is_number(f) for f in found) \
            and all(numbers_equal(found[0], f) for f in found):
        return numbers_equal(claimed, found[0], tolerance)  # one size per dimension: Resize((256, 256)) is 256
    if isinstance(claimed, str) and isinstance(found, str):
        return choice_equal(claimed, found)
    if isinstance(claimed, tuple) and isinstance(found, tuple):
        if len(claimed) != len(found):
            return False
        answers = [equal(c, f, tolerance) for c, f in zip(claimed, found)]
        if None in answers:
            return None
        return all(answers)
    if isinstance(claimed, sympy.Expr) and isinstance(found, sympy.Expr):
        return symbolic_equal(claimed, found)
    return None


def numbers_equal(a: float, b: float, tolerance: float = 0.0) -> bool:
    """Numeric equality with relative tolerance ``max(tolerance, 1e-9)`` and no absolute tolerance; infinities
    equal only themselves."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=max(tolerance, _RELATIVE))


def written_rounding(claimed: float, found: float) -> bool:
    """Whether ``found`` is ``claimed`` written out to fewer digits: a decimal of at least ``_ROUNDED_DIGITS``
    significant digits (as Python's shortest ``repr`` spells the number read from code), the claim needing more, and
    the two within two units of the written number's last place (``3.14159`` and ``15.70795`` for ``pi`` and
    ``5 pi``, ``0.70711`` for ``1/sqrt(2)``; not ``0.99995`` for ``0.999999``). Fewer digits make a setting of its own
    (``3.14``, ``0.001``), never a rounding."""
    if isinstance(found, int) or not (math.isfinite(claimed) and math.isfinite(found)) or found == 0:
        return False
    written = Decimal(repr(float(found))).normalize().as_tuple()
    if len(written.digits) < _ROUNDED_DIGITS or _significant_digits(claimed) <= len(written.digits):
        return False
    unit = 10.0 ** int(written.exponent)  # one unit in the last written place
    return abs(claimed - found) <= _ROUNDING_UNITS * unit


def _significant_digits(number: float) -> int:
    """The significant digits of a number's shortest decimal spelling (``15.70795``: 7; ``3.0``: 1)."""
    return len(Decimal(repr(float(number))).normalize().as_tuple().digits)


def contains(found: Value, claimed: Value, tolerance: float = 0.0) -> bool:
    """True when ``found`` equals ``claimed`` or is a list/tuple holding it (a sweep grid)."""
    if equal(claimed, found, tolerance) is True:
        return True
    return isinstance(found, tuple) and any(equal(claimed, item, tolerance) is True for item in found)


def symbolic_equal(claimed: sympy.Expr, found: sympy.Expr) -> bool | None:
    """Equality of two symbolic values up to pairing their symbols by normalised name.

    ``None`` when a symbol of either side has no partner (``1/sqrt(d_model)`` against ``1/sqrt(width)`` where the
    alias table does not relate the names), else ``True``/``False`` from evaluation at fixed random points. A floor
    (code's integer division) is read as the quotient it rounds.
    """
    claimed_symbols = {normalise(s.name): s for s in claimed.free_symbols}
    found_symbols = {normalise(s.name): s for s in found.free_symbols}
    if set(claimed_symbols) != set(found_symbols) or len(claimed_symbols) != len(claimed.free_symbols) \
            or len(found_symbols) != len(found.free_symbols):
        return None
    # integer division realises a claimed ratio for integer sizes (2 * T // K for 2T/K): the floor is no other formula
    claimed, found = (side.replace(sympy.floor, lambda inner: inner) for side in (claimed, found))
    renamed = found.xreplace({found_symbols[k]: claimed_symbols[k] for k in found_symbols})
    generator = random.Random(_SEED)
    symbols = sorted(claimed.free_symbols, key=lambda s: s.name)
    for _ in range(_POINTS):
        point = {s: sympy.Rational(generator.randint(2, 97), generator.randint(1, 13)) for s in symbols}
        try:
            left = complex(claimed.xreplace(point).evalf())
            right = complex(renamed.xreplace(point).evalf())
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if not (math.isclose(left.real, right.real, rel_tol=1e-9, abs_tol=1e-12)
                and math.isclose(left.imag, right.imag, rel_tol=1e-9, abs_tol=1e-12)):
            return False
    return True

