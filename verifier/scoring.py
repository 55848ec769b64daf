"""Aggregation as SA-Bench does it: a dimension's score is the mean of its SAU scores, the overall score the mean
of the dimension scores. SAUs without a score (no rule for their dimension yet, not code-checkable) are left out
and counted, so every report says how much of its figure rests on estimates."""

from __future__ import annotations

from dataclasses import dataclass

from sau.vocabulary import DIMENSIONS, Status, Verdict

_DIGITS = 4  # fixed rounding keeps the JSON byte-identical across platforms


@dataclass(frozen=True)
class DimensionScore:
    """One dimension: ``score`` (mean of scored SAUs, ``None`` when none has a score), ``total`` SAUs, and how many
    are ``settled``/``judged``/``unresolved``, and how many ``unscored``."""

    dimension: str
    score: float | None
    total: int
    settled: int
    judged: int
    unresolved: int
    unscored: int


def dimension_scores(verdicts: list[Verdict], dimensions: tuple[str, ...] = DIMENSIONS) -> list[DimensionScore]:
    """Per-dimension aggregates, in ``dimensions`` order, for the dimensions that have SAUs."""
    result = []
    for dimension in dimensions:
        mine = [v for v in verdicts if v.sau.dimension == dimension]
        if not mine:
            continue
        scored = [v.score for v in mine if v.score is not None]
        result.append(DimensionScore(
            dimension,
            round(sum(scored) / len(scored), _DIGITS) if scored else None,
            len(mine),
            sum(v.status == Status.SETTLED for v in mine),
            sum(v.status == Status.JUDGED for v in mine),
            sum(v.status == Status.UNRESOLVED for v in mine),
            len(mine) - len(scored),
        ))
    return result


def overall_score(scores: list[DimensionScore]) -> float | None:
    """Mean of the dimension scores that exist, or ``None`` when none does."""
    defined = [s.score for s in scores if s.score is not None]
    return round(sum(defined) / len(defined), _DIGITS) if defined else None


def settle_rate(verdicts: list[Verdict]) -> float | None:
    """Share of SAUs a deterministic rule settled (ARCHITECTURE.md, "Terms"), or ``None`` for no SAUs."""
    return round(sum(v.status == Status.SETTLED for v in verdicts) / len(verdicts), _DIGITS) if verdicts else None


def status_counts(verdicts: list[Verdict] | tuple[Verdict, ...]) -> dict[str, int]:
    """``total``, ``settled``, ``judged``, ``unresolved`` and ``unscored`` (no score) counts of ``verdicts``: the
    figures every report gives beside its scores."""
    return {"total": len(verdicts),
            "settled": sum(v.status == Status.SETTLED for v in verdicts),
            "judged": sum(v.status == Status.JUDGED for v in verdicts),
            "unresolved": sum(v.status == Status.UNRESOLVED for v in verdicts),
            "unscored": sum(v.score is None for v in verdicts)}
