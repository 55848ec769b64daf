"""The records that flow through the verifier: paper specs and their SAUs, D1 atoms, evidence and verdicts.

Terms follow DESIGN.md: a *SAU* is one checkable claim of a paper; a *verdict* is the decision for one SAU on one
repository, with a score on SA-Bench's five-level scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from extractors.values import Value

DIMENSIONS = ("D1", "D2", "D3", "D4")
DIMENSION_NAMES = {"D1": "numerical", "D2": "formula", "D3": "protocol", "D4": "ordering"}

SETTLED = "settled"  # decided by a deterministic rule
JUDGED = "judged"  # decided by the LLM judge
UNRESOLVED = "unresolved"  # neither could decide; the score, if any, is the rules' best estimate
STATUSES = (SETTLED, JUDGED, UNRESOLVED)

# SA-Bench's scale: 1 fully as specified, 0.75 one minor element off, 0.5 about half, 0.25 a trace, 0 absent.
SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)

# Drift kinds (DESIGN.md): what went wrong, when something did.
NUMERICAL = "numerical"  # a claimed name is bound to a different value
MISSING = "missing"  # neither the name nor the value occurs in code
UNUSED = "unused"  # the value is defined but nothing reads it
STUB = "stub"  # the only implementing code is a stub or a marked placeholder
METHOD = "method"  # a claimed formula is implemented with a different structure (sign, term, power, function)
DRIFTS = (NUMERICAL, MISSING, UNUSED, STUB, METHOD, "protocol", "ordering")

# Atom kinds: how the claimed values of one name are read.
SCALAR = "scalar"  # each value must be bound to the name ("n_layers=24/36": both sizes)
SET = "set"  # a sweep: each member must occur under the name, alone or inside a list
RANGE = "range"  # values holds (low, high); a bound value inside counts
ATOM_KINDS = (SCALAR, SET, RANGE)


def round_to_scale(fraction: float) -> float:
    """Round a fraction in [0, 1] to the nearest level of ``SCALE`` (halves round up: 0.125 -> 0.25).

    Raises ``ValueError`` outside [0, 1] or for NaN.
    """
    if math.isnan(fraction) or not 0.0 <= fraction <= 1.0:
        raise ValueError(f"score fraction out of range: {fraction}")
    return math.floor(fraction * 4 + 0.5) / 4


@dataclass(frozen=True)
class Atom:
    """One name/value element of a D1 claim.

    ``name`` is the paper's name for the quantity and ``aliases`` other names code may use (matched through
    ``rules.names``). ``values`` holds the claimed values (see the atom kinds above); ``percent`` marks values
    written as percentages (``10%`` is 0.1, and code writing 10 also agrees). ``tolerance`` is a relative tolerance,
    non-zero only where the paper says "about". ``text`` is the fragment of the statement the atom came from.
    ``named`` is false when the name is only a count noun of the prose ("1,281,167 training images"): such a name
    may match a fact, but a different value under it proves no drift.
    """

    name: str
    values: tuple[Value, ...]
    kind: str = SCALAR
    aliases: tuple[str, ...] = ()
    tolerance: float = 0.0
    percent: bool = False
    text: str = ""
    named: bool = True

    def describe(self) -> str:
        """``lr=0.0001``, ``n_layers=24/36``, ``lr in {0.1, 0.5}``, ``dropout in [0, 0.3]``."""
        shown = [show_value(v) for v in self.values]
        if self.kind == SET:
            return f"{self.name} in {{{', '.join(shown)}}}"
        if self.kind == RANGE:
            return f"{self.name} in [{', '.join(shown)}]"
        return f"{self.name}={'/'.join(shown)}"


def show_value(value: Value) -> str:
    """A value as people write it: ``0.0001``, ``(0.9, 0.95)``, ``1/sqrt(d_model)``, ``?`` for an unfoldable one."""
    if value is None:
        return "?"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    return str(value)


@dataclass(frozen=True)
class SAU:
    """A Semantic Alignment Unit: one checkable claim of a paper.

    ``checks`` holds the dimension's structured checks (for D1 a tuple of ``Atom``s under ``"atoms"``).
    ``complete`` says whether the checks cover every element of the statement: a rule settles only complete SAUs
    (a claim compiled from prose is complete when every number in it became part of an atom). ``checkable`` is
    false for claims code cannot show (hardware, a theorem, a reported result), with the reason in ``note``.
    """

    id: str
    dimension: str
    source: str
    statement: str
    checks: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    checkable: bool = True
    note: str = ""

    @property
    def atoms(self) -> tuple[Atom, ...]:
        return tuple(self.checks.get("atoms", ()))


@dataclass(frozen=True)
class PaperSpec:
    """A paper's list of SAUs. ``benchmark_id`` like ``iclr25-008``; ``slug`` SA-Bench's ``ngpt``; ``origin`` the
    file the spec was read from."""

    benchmark_id: str
    slug: str
    title: str
    venue: str
    saus: tuple[SAU, ...]
    origin: str = ""


@dataclass(frozen=True)
class Evidence:
    """A clickable piece of evidence: ``file`` relative POSIX path, ``line``..``end_line`` 1-based inclusive,
    ``snippet`` the first line's text, ``kind`` the fact kind (``keyword``, ``config`` ...), ``cell`` the notebook
    cell for ``.ipynb`` files."""

    file: str
    line: int
    end_line: int
    snippet: str
    kind: str
    cell: int | None = None

    @property
    def ref(self) -> str:
        """SA-Bench's ``file:lines`` form (``train.py:12-14``; ``nb.ipynb#3:2`` inside a notebook cell)."""
        lines = str(self.line) if self.end_line == self.line else f"{self.line}-{self.end_line}"
        where = self.file if self.cell is None else f"{self.file}#{self.cell}"
        return f"{where}:{lines}"

    def to_json(self) -> dict:
        lines = str(self.line) if self.end_line == self.line else f"{self.line}-{self.end_line}"
        data = {"file": self.file, "lines": lines, "snippet": self.snippet, "kind": self.kind}
        if self.cell is not None:
            data["cell"] = self.cell
        return data


@dataclass(frozen=True)
class Verdict:
    """The decision for one SAU on one repository.

    ``score`` is on ``SCALE``, or ``None`` when nothing can be scored (a claim not checkable in code, a rule failure:
    no made-up scores);
    ``status`` one of ``STATUSES``; ``drift`` one of ``DRIFTS`` or ``None``; ``decided_by`` the rule or model name;
    ``findings`` per-element details for reviewers and the LLM fallback (for D1, one dict per atom).
    """

    sau: SAU
    score: float | None
    status: str
    reason: str
    decided_by: str
    drift: str | None = None
    evidence: tuple[Evidence, ...] = ()
    findings: tuple[dict, ...] = ()
