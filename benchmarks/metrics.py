"""Agreement statistics for the benchmark: quadratic weighted kappa on SA-Bench's five-level scale and Spearman's
rank correlation, as small pure functions (no numpy or scipy needed for a few thousand pairs).

- Quadratic weighted kappa: Cohen, J. (1968), "Weighted kappa: nominal scale agreement with provision for scaled
  disagreement or partial credit", Psychological Bulletin 70(4), 213-220. With observed counts ``O[i][j]``, counts
  expected from the marginals ``E[i][j] = row_i * col_j / n`` and disagreement weights ``w[i][j] = (i - j)**2 /
  (k - 1)**2`` over ``k`` ordered categories, ``kappa = 1 - sum(w * O) / sum(w * E)``.
- Spearman's rho: Spearman, C. (1904), "The proof and measurement of association between two things", American
  Journal of Psychology 15(1), 72-101; with ties, the Pearson correlation of the mid-ranks (the textbook form, e.g.
  Kendall & Gibbons, "Rank Correlation Methods", 5th ed., 1990, ch. 2).
"""

from __future__ import annotations

import math
from typing import Sequence

from sau.vocabulary import SCALE


def scale_level(score: float) -> int:
    """The index of ``score`` on ``sau.vocabulary.SCALE`` (0 for 0.0 ... 4 for 1.0). Raises ``ValueError`` for a
    score that is not a scale level."""
    for level, value in enumerate(SCALE):
        if math.isclose(score, value, abs_tol=1e-9):
            return level
    raise ValueError(f"score {score!r} is not on the scale {SCALE}")


def quadratic_weighted_kappa(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Cohen's (1968) quadratic weighted kappa of ``pairs`` of scores (ours, theirs), each on ``SCALE``.

    Returns a value in [-1, 1] (1: perfect agreement, 0: agreement expected by chance), or ``None`` when it is
    undefined: no pairs, or both raters put every pair in one category (expected disagreement zero). Raises
    ``ValueError`` for a score off the scale.
    """
    k = len(SCALE)
    observed = [[0] * k for _ in range(k)]
    for ours, theirs in pairs:
        observed[scale_level(ours)][scale_level(theirs)] += 1
    n = len(pairs)
    if n == 0:
        return None
    rows = [sum(observed[i]) for i in range(k)]
    columns = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = [[(i - j) ** 2 / (k - 1) ** 2 for j in range(k)] for i in range(k)]
    seen = sum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k))
    expected = sum(weight[i][j] * rows[i] * columns[j] / n for i in range(k) for j in range(k))
    if expected == 0:
        return None
    return 1.0 - seen / expected


def mid_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks of ``values``, tied values sharing the mean of the ranks they span ([10, 20, 20] -> [1, 2.5,
    2.5])."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation of paired samples ``xs`` and ``ys`` (the Pearson correlation of their mid-ranks).

    Returns a value in [-1, 1], or ``None`` when undefined: fewer than two pairs, or one sample constant. Raises
    ``ValueError`` when the samples differ in length.
    """
    if len(xs) != len(ys):
        raise ValueError(f"samples differ in length: {len(xs)} and {len(ys)}")
    if len(xs) < 2:
        return None
    rx, ry = mid_ranks(xs), mid_ranks(ys)
    mean = (len(xs) + 1) / 2  # the mean of mid-ranks is always (n + 1) / 2
    covariance = sum((a - mean) * (b - mean) for a, b in zip(rx, ry))
    spread_x = sum((a - mean) ** 2 for a in rx)
    spread_y = sum((b - mean) ** 2 for b in ry)
    if spread_x == 0 or spread_y == 0:
        return None
    return covariance / math.sqrt(spread_x * spread_y)


def agreement(pairs: Sequence[tuple[float, float]]) -> dict:
    """Agreement of score ``pairs`` (ours, theirs) on ``SCALE``: ``pairs`` count, ``exact`` and ``near`` (within
    ±0.25) as shares in [0, 1] (``None`` for no pairs), and ``qwk`` (``quadratic_weighted_kappa``)."""
    n = len(pairs)
    return {"pairs": n,
            "exact": sum(math.isclose(a, b, abs_tol=1e-9) for a, b in pairs) / n if n else None,
            "near": sum(abs(a - b) <= 0.25 + 1e-9 for a, b in pairs) / n if n else None,
            "qwk": quadratic_weighted_kappa(pairs)}


def median(values: Sequence[float]) -> float | None:
    """The median (mean of the two middle values for an even count), or ``None`` for no values."""
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
