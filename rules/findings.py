"""The rules' records of their decisions, as verdicts carry them: each dimension's outcome vocabulary and its
findings (``sau.vocabulary.Finding`` subclasses). Plain data that imports nothing but ``sau.vocabulary``, so that a
run whose verdicts all come from the cache (``verifier.run``) unpickles them without importing the rules, libcst,
sympy's consumers or networkx. Each rule module re-exports its own names (``rules.d1_numerical.Outcome`` is
``ValueOutcomeKind`` here), and the meaning of each outcome is given in its rule module's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sau.vocabulary import Finding


class ValueOutcomeKind(StrEnum):
    """D1: the decision for one claimed value (``rules.d1_numerical``)."""

    MATCHED = "matched"
    UNUSED = "unused"
    STUB = "stub"
    DRIFT = "drift"
    ABSENT = "absent"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class ValueFinding(Finding):
    """D1: the report's record of one claimed value: how it is shown, its outcome, the note, where it was found."""

    value: str
    outcome: ValueOutcomeKind
    note: str
    refs: tuple[str, ...]


@dataclass(frozen=True)
class AtomFinding(Finding):
    """D1: the report's record of one atom: the atom as written, its score (mean of its values' scores), and each
    value's finding."""

    atom: str
    score: float
    values: tuple[ValueFinding, ...]


class FormulaOutcome(StrEnum):
    """D2: the decision for one claimed formula (``rules.d2_formula``)."""

    EQUIVALENT = "equivalent"
    UNREACHED = "unreached"  # equivalent, but only in functions no entry point reaches
    DRIFTED = "drift"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class FormulaFinding(Finding):
    """D2: the report's record of one claimed formula: its text, outcome, the difference named for a drift, its
    credit toward the score, and the candidates behind it (``file:line``)."""

    formula: str
    outcome: FormulaOutcome
    difference: str
    credit: float
    candidates: tuple[str, ...]


class ElementOutcome(StrEnum):
    """D3: the decision for one protocol element (``rules.d3_protocol``)."""

    PRESENT = "present"
    ABSENT = "absent"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class ElementFinding(Finding):
    """D3: the report's record of one protocol element: its category and name, outcome, note, and the first two
    places behind it (``file:line``)."""

    category: str
    element: str
    outcome: ElementOutcome
    note: str
    refs: tuple[str, ...]


class Strength(StrEnum):
    """D4: how surely a call site is a step: named by the step's functions (strong) or only holding its words
    (weak)."""

    STRONG = "strong"
    WEAK = "weak"


class StepOutcome(StrEnum):
    """D4: where a step was found (``rules.d4_ordering``)."""

    ORDERED = "ordered"
    ELSEWHERE = "elsewhere"
    DEAD_STEP = "dead"
    ABSENT = "absent"
    UNCERTAIN = "uncertain"
    STUB = "stub"


@dataclass(frozen=True)
class StepFinding(Finding):
    """D4: the report's record of one step: its name, where it was found and how surely, its first site
    (``file:line``) or the place it was seen elsewhere, and whether a loop encloses that site."""

    step: str
    outcome: StepOutcome
    strength: Strength | None
    ref: str | None
    in_loop: bool
