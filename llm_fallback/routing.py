"""Which verdicts go to the LLM judge: those the rules leave ``unresolved`` whose SAU is code-checkable.

Settled verdicts never go, nor claims marked ``checkable: false`` (hardware, a reported result: no code can show
them, so an LLM reading code cannot either). Kept apart from the judge so that counting costs no ``openai`` import.
"""

from __future__ import annotations

from collections import Counter

from sau.vocabulary import DIMENSIONS, Status, Verdict


def needs_judge(verdict: Verdict) -> bool:
    """Whether ``verdict`` goes to the judge: unresolved, and its SAU is code-checkable."""
    return verdict.status == Status.UNRESOLVED and verdict.sau.checkable


def routed_counts(verdicts: list[Verdict]) -> dict[str, int]:
    """How many verdicts of each dimension go to the judge (``needs_judge``), all four dimensions listed."""
    counts = Counter(v.sau.dimension for v in verdicts if needs_judge(v))
    return {d: counts.get(d, 0) for d in DIMENSIONS}
