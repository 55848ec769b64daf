"""The shared vocabulary of the project: paper specs and their SAUs, claimed values, locations, evidence and verdicts.

A leaf module: it imports nothing else of the project, and every other layer imports it (ARCHITECTURE.md, "Layers").
Terms are the field's: a *SAU* (Semantic Alignment Unit) is one checkable claim of a paper, in one of SA-Bench's four
*dimensions*; a *verdict* is the decision for one SAU on one repository, with a score on SA-Bench's five-level scale,
a *status* saying who decided it and a *drift* kind saying what went wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Union, cast

if TYPE_CHECKING:  # sympy costs a third of a second to import: only the layers that compute with it load it
    import sympy

# A value a fact binds to a name or a claim states for it: a number, a symbolic expression (sympy, exact numbers),
# a tuple of values (a list literal, ``betas=(0.9, 0.95)``), a string or a boolean. ``extractors.values`` folds them.
Value = Union[int, float, str, bool, tuple, "sympy.Expr"]


class Dimension(StrEnum):
    """SA-Bench's four dimensions of a claim. The member's value is the code (``"D1"``); ``label`` its name."""

    D1 = "D1"
    D2 = "D2"
    D3 = "D3"
    D4 = "D4"

    @property
    def label(self) -> str:
        """``numerical``, ``formula``, ``protocol`` or ``ordering`` (SA-Bench's names)."""
        return _LABELS[self]


_LABELS = {Dimension.D1: "numerical", Dimension.D2: "formula", Dimension.D3: "protocol", Dimension.D4: "ordering"}
DIMENSIONS: tuple[Dimension, ...] = tuple(Dimension)


class Status(StrEnum):
    """Who decided a verdict."""

    SETTLED = "settled"  # a deterministic rule
    JUDGED = "judged"  # the LLM judge
    UNRESOLVED = "unresolved"  # neither could decide; the score, if any, is the rules' best estimate


class Drift(StrEnum):
    """What went wrong, when something did (the drift kinds of SA-Bench, with ``unused`` and ``stub`` apart)."""

    NUMERICAL = "numerical"  # a claimed name is bound to a different value
    MISSING = "missing"  # neither the name nor the value occurs in code
    UNUSED = "unused"  # defined, but nothing reads or runs it
    STUB = "stub"  # the only implementing code is a stub or a marked placeholder
    METHOD = "method"  # a claimed formula is implemented with a different structure (sign, term, power, function)
    PROTOCOL = "protocol"  # a claimed dataset, baseline or metric is missing from the code that runs
    ORDERING = "ordering"  # claimed steps run in another order


class AtomKind(StrEnum):
    """How the claimed values of one D1 atom are read."""

    SCALAR = "scalar"  # each value must be bound to the name ("n_layers=24/36": both sizes)
    SET = "set"  # a sweep: each member must occur under the name, alone or inside a list
    RANGE = "range"  # values holds (low, high); a bound value inside counts


# SA-Bench's scale: 1 fully as specified, 0.75 one minor element off, 0.5 about half, 0.25 a trace, 0 absent.
SCALE = (0.0, 0.25, 0.5, 0.75, 1.0)


def round_to_scale(fraction: float) -> float:
    """Round a fraction in [0, 1] to the nearest level of ``SCALE`` (halves round up: 0.125 -> 0.25).

    Raises ``ValueError`` outside [0, 1] or for NaN.
    """
    if math.isnan(fraction) or not 0.0 <= fraction <= 1.0:
        raise ValueError(f"score fraction out of range: {fraction}")
    return math.floor(fraction * 4 + 0.5) / 4


def determined_score(bounds: "list[tuple[float, float]] | tuple[tuple[float, float], ...]") -> float | None:
    """The score of a compound claim when it no longer depends on its undecided elements, else ``None``.

    ``bounds`` holds one ``(low, high)`` pair of fractions in [0, 1] per element of the claim: equal for a decided
    element, ``(0.0, 1.0)`` for one nobody could decide (an ambiguous value, an element no check covers). A
    compound claim scores the mean of its elements rounded to ``SCALE`` (the labelling guide,
    ../shared/LABELLING.md); when the lowest and the highest possible means round to the same level, that level
    is the score whatever the undecided elements turn out to be. Raises ``ValueError`` for an empty list or a
    bound outside [0, 1] (``round_to_scale``).
    """
    low, high = score_range(bounds)
    return low if low == high else None


def score_range(bounds: "list[tuple[float, float]] | tuple[tuple[float, float], ...]") -> tuple[float, float]:
    """The lowest and the highest score a compound claim can have, each ``compound_score`` of its elements' bounds
    (``bounds`` as ``determined_score`` takes them). Raises ``ValueError`` for an empty list or a bound outside
    [0, 1]."""
    return compound_score([b[0] for b in bounds]), compound_score([b[1] for b in bounds])


def compound_score(elements: "list[float] | tuple[float, ...]") -> float:
    """The score of a claim made of several elements, each scored in [0, 1]: their mean rounded to ``SCALE``,
    except that 1 ("implemented as claimed") needs every element to hold (``share_score``). Raises ``ValueError``
    for no elements or one outside [0, 1]."""
    if not elements:
        raise ValueError("a claim has at least one element")
    if min(elements) < 0.0 or max(elements) > 1.0:
        raise ValueError(f"element score out of range: {elements}")
    return share_score(sum(elements), len(elements))


def share_score(held: float, total: int) -> float:
    """The score of a claim ``held`` of whose ``total`` elements hold (``held`` a credit sum in [0, total]): the
    share rounded to ``SCALE``, except that 1 ("implemented as claimed") needs all of them, so a share that rounds
    up to 1 with an element short (7 of 8) is 0.75 ("one minor element missing or off"); both from the labelling
    guide's scale (../shared/LABELLING.md), whose readers score 7 of 8 as 0.75. Raises ``ValueError`` for no
    elements or a share outside [0, 1]."""
    if total <= 0:
        raise ValueError("a claim has at least one element")
    score = round_to_scale(held / total)
    return 0.75 if score == 1.0 and held < total else score


def show_value(value: Value | None) -> str:
    """A value as people write it: ``0.0001``, ``(0.9, 0.95)``, ``1/sqrt(d_model)``, ``?`` for an unfoldable one."""
    if value is None:
        return "?"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    return str(value)


def split_where(where: str) -> tuple[str, int | None]:
    """The inverse of ``Location.where``: (file, cell) of a source key, ``nb.ipynb#3`` -> (``nb.ipynb``, 3),
    ``a.py`` -> (``a.py``, ``None``). The index keys each source's lines and syntax tree by it."""
    file, _, cell = where.partition("#")
    return file, int(cell) if cell.isdigit() else None


def split_ref(ref: str) -> tuple[str, int] | None:
    """The inverse of ``Location.ref``: (source key, line) of a ``file:line`` reference, ``a.py:12`` -> (``a.py``,
    12), ``nb.ipynb#3:2`` -> (``nb.ipynb#3``, 2) (``split_where`` splits the key); ``None`` when it names no line."""
    where, _, line = ref.rpartition(":")
    return (where, int(line)) if where and line.isdigit() else None


@dataclass(frozen=True)
class Location:
    """A place in the repository: ``file`` the POSIX path relative to the repository root, ``line``..``end_line``
    1-based and inclusive, ``cell`` the code cell (1-based) for a notebook, whose lines are then numbered within the
    cell (keyword-only, so that records extending a location add their own fields after it). Facts, call sites,
    expressions and evidence are locations with more fields."""

    file: str
    line: int
    end_line: int
    cell: int | None = field(default=None, kw_only=True)

    @property
    def location(self) -> Location:
        """Just the place, without the fields of a record that extends it."""
        return Location(self.file, self.line, self.end_line, cell=self.cell)

    @property
    def where(self) -> str:
        """The file, with ``#cell`` for a notebook cell (``nb.ipynb#3``): the key of its source lines."""
        return self.file if self.cell is None else f"{self.file}#{self.cell}"

    @property
    def ref(self) -> str:
        """``file:line`` of the first line (``nb.ipynb#3:2`` inside a notebook cell)."""
        return f"{self.where}:{self.line}"

    @property
    def lines(self) -> str:
        """SA-Bench's line form: ``12`` or ``12-14``."""
        return str(self.line) if self.end_line == self.line else f"{self.line}-{self.end_line}"

    @property
    def span_ref(self) -> str:
        """SA-Bench's ``file:lines`` form (``train.py:12-14``; ``nb.ipynb#3:2`` inside a notebook cell)."""
        return f"{self.where}:{self.lines}"


@dataclass(frozen=True)
class Atom:
    """One name/value element of a D1 claim.

    ``name`` is the paper's name for the quantity and ``aliases`` other names code may use (matched through
    ``rules.names``). ``values`` holds the claimed values (read as ``kind`` says); ``percent`` marks values written
    as percentages (``10%`` is 0.1, and code writing 10 also agrees). ``tolerance`` is a relative tolerance, non-zero
    only where the paper says "about". ``text`` is the fragment of the statement the atom came from. ``named`` is
    false when the name is only a count noun of the prose ("1,281,167 training images"): such a name may match a
    fact, but a different value under it proves no drift. ``used_in`` names where the quantity is used (classes,
    functions, modules or called consumers such as ``range`` or ``MDPConfig``): when given, only bindings placed
    there or read by such a call count, and generic names (``M``, ``alpha``) bind there. ``of`` names the total
    the claimed values are shares of (``A`` for "1/8 of the actions", ``total_steps`` for a warmup ratio), by its
    words as ``used_in`` places are: a binding under the atom's names computed as such a share of such a total
    (``n_neg = A // 8``) binds the share. ``variants`` names, one per claimed value of a scalar atom, the variant
    that value belongs to (``GPT``, ``nGPT`` for ``1/sqrt(d_k)``, ``sqrt(d_k)``): a value then holds only where
    code placed in its own variant's class, function or module binds it. ``complement`` names a quantity code may
    set instead that holds one minus the claimed fraction (a target risk ``alpha = 0.4`` for a threshold
    ``lambda < 0.6`` where the loss is ``1 - lambda``; a miscoverage 0.1 for 90% coverage): its first name is the
    quantity's, the rest aliases, as ``name`` and ``aliases`` are. ``elsewhere`` holds the values the paper's other
    SAUs claim for a quantity sharing a name or alias with this one (case aside), none of this atom's own: the values
    of the paper's other runs (2000 iterations in one experiment, 3000 in another), filled in by ``PaperSpec``;
    ``places_elsewhere`` likewise the places (``used_in``) those SAUs give the quantity, none of this atom's own
    (``PDE2`` for an ``alpha`` used in ``PDE3``): code named after both (``run_pde2_pde3``) places neither.
    ``symbols_elsewhere`` holds, for each other atom of the paper whose name is one word (``beta`` for an HPD level)
    and none of this atom's own names (case aside), that atom's names (name first, then its aliases): a symbol the
    paper gives another quantity, and what code calls that quantity.
    """

    name: str
    values: tuple[Value, ...]
    kind: AtomKind = AtomKind.SCALAR
    aliases: tuple[str, ...] = ()
    tolerance: float = 0.0
    percent: bool = False
    text: str = ""
    named: bool = True
    used_in: tuple[str, ...] = ()
    of: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    complement: tuple[str, ...] = ()
    elsewhere: tuple[Value, ...] = ()
    places_elsewhere: tuple[str, ...] = ()
    symbols_elsewhere: tuple[tuple[str, ...], ...] = ()

    def describe(self) -> str:
        """``lr=0.0001``, ``n_layers=24/36``, ``lr in {0.1, 0.5}``, ``dropout in [0, 0.3]``."""
        shown = [show_value(v) for v in self.values]
        if self.kind == AtomKind.SET:
            return f"{self.name} in {{{', '.join(shown)}}}"
        if self.kind == AtomKind.RANGE:
            return f"{self.name} in [{', '.join(shown)}]"
        return f"{self.name}={'/'.join(shown)}"


@dataclass(frozen=True)
class SAU:
    """A Semantic Alignment Unit: one checkable claim of a paper.

    ``checks`` holds the dimension's structured checks, as its spec schema reads them (``verifier.dimensions``; for
    D1 a tuple of ``Atom``s under ``"atoms"``). ``complete`` says whether the checks cover every element of the
    statement (a claim compiled from prose is complete when every number in it became part of an atom).
    ``uncovered`` names the statement's elements no check covers, one short phrase each, when the spec counts
    them: a rule may then settle an incomplete SAU whose score those elements cannot change
    (``determined_score``); an incomplete SAU without that list never settles. ``checkable`` is false for claims
    code cannot show (hardware, a theorem, a reported result), with the reason in ``note``; ``outside_code`` names
    the elements of a checkable claim no code could show (a GPU count, a parameter count, a reported figure), one
    short phrase each: like a careful reader, the rules leave them out, so they neither count in the score nor make
    the SAU incomplete.
    """

    id: str
    dimension: Dimension
    source: str
    statement: str
    checks: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    checkable: bool = True
    note: str = ""
    uncovered: tuple[str, ...] = ()
    outside_code: tuple[str, ...] = ()

    @property
    def atoms(self) -> tuple[Atom, ...]:
        """The atoms of the checks: a D1 claim's, or the values a D2 claim states beside its formulas (empty for
        other claims)."""
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "saus", _with_values_elsewhere(self.saus))


def _with_values_elsewhere(saus: tuple[SAU, ...]) -> tuple[SAU, ...]:
    """``saus`` with each atom's (D1's, and a D2 claim's values) ``Atom.elsewhere`` and ``Atom.places_elsewhere``
    filled in: the values and the places other SAUs of the paper claim for an atom sharing a name with it (its name
    or an alias, case aside:
    ``stage1_1_steps`` and ``stage1_2_steps`` both ``max_steps``) that the atom does not claim itself, in spec order;
    a range's from ranges only (each a (low, high) pair), another atom's from scalars and sets; and
    ``Atom.symbols_elsewhere``, the names of the paper's atoms named by one word (no ``_``) but its own, in spec
    order."""
    claimed: dict[tuple[str, bool], list[tuple[str, Value]]] = {}
    placed: dict[tuple[str, bool], list[tuple[str, str]]] = {}
    symbols: list[tuple[str, ...]] = []
    for sau in saus:
        for atom in sau.atoms:
            named = (atom.name, *atom.aliases)
            symbols += [named] if "_" not in atom.name and named not in symbols else []
            for key in _quantity(atom):
                claimed.setdefault(key, []).extend((sau.id, value) for value in _claimed(atom))
                placed.setdefault(key, []).extend((sau.id, place) for place in atom.used_in)
    out = []
    for sau in saus:
        atoms = []
        for atom in sau.atoms:
            others = _others(sau.id, _claimed(atom), (item for key in _quantity(atom) for item in claimed[key]))
            places = _others(sau.id, atom.used_in, (item for key in _quantity(atom) for item in placed[key]))
            own = {name.lower() for name in (atom.name, *atom.aliases)}
            atoms.append(replace(atom, elsewhere=tuple(others), places_elsewhere=tuple(places),
                                 symbols_elsewhere=tuple(s for s in symbols if s[0].lower() not in own)))
        out.append(replace(sau, checks={**sau.checks, "atoms": tuple(atoms)}) if atoms else sau)
    return tuple(out)


def _others(sau_id: str, own: tuple, items) -> list:
    """The items (``(owner SAU id, item)`` pairs) of SAUs other than ``sau_id`` that are not in ``own``, each once,
    in order."""
    out: list = []
    for owner, item in items:
        if owner != sau_id and item not in own and item not in out:
            out.append(item)
    return out


def _claimed(atom: Atom) -> tuple[Value, ...]:
    """An atom's claimed values one by one; a range's as one (low, high) pair."""
    return (tuple(atom.values),) if atom.kind == AtomKind.RANGE else atom.values


def _quantity(atom: Atom) -> list[tuple[str, bool]]:
    """What ``_with_values_elsewhere`` links atoms by: each of its names (case aside), with whether the values are
    ranges."""
    ranged = atom.kind == AtomKind.RANGE
    return list(dict.fromkeys((name.lower(), ranged) for name in (atom.name, *atom.aliases)))


@dataclass(frozen=True)
class Evidence(Location):
    """A clickable piece of evidence: where it is, ``snippet`` the first line's text, ``kind`` what it is (a fact
    kind such as ``keyword`` or ``config``, ``expression``, ``stub``, ``call``, ``judge``)."""

    snippet: str
    kind: str

    def to_json(self) -> dict:
        """``{file, lines, snippet, kind}``, and ``cell`` for a notebook."""
        data: dict[str, Any] = {"file": self.file, "lines": self.lines, "snippet": self.snippet, "kind": self.kind}
        if self.cell is not None:
            data["cell"] = self.cell
        return data


@dataclass(frozen=True)
class Trace(Location):
    """A place a rule looked at while deciding a SAU, kept for the LLM judge whether or not the rule settled:
    ``role`` what the place is to the rule (``consumer``, ``binding``, ``provenance``, ``mechanism``, ``candidate``,
    ``helper``, ``call site``, ``caller``, ``step``, ``path``, ``elsewhere``), ``why`` one line saying why it was
    looked at. A verdict lists its traces most decisive first."""

    role: str
    why: str


class Finding:
    """The base of a rule's record of one element of a SAU (an atom's values, a formula, a protocol element, a step):
    each rule declares a frozen dataclass deriving from it. ``to_json`` gives the report's ``findings`` entry: each
    field by its name, tuples as lists, nested findings as their own entries."""

    def to_json(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(cast(Any, self))}


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value.to_json() if isinstance(value, Finding) else value


@dataclass(frozen=True)
class Verdict:
    """The decision for one SAU on one repository.

    ``score`` is on ``SCALE``, or ``None`` when nothing can be scored (a claim not checkable in code, a rule failure:
    no made-up scores); ``status`` who decided; ``drift`` what went wrong, or ``None``; ``decided_by`` the rule or
    model name; ``findings`` per-element details for reviewers and the LLM fallback (for D1, one per atom);
    ``trace`` the places the rule traced, most decisive first, from which the LLM judge's evidence is chosen.
    """

    sau: SAU
    score: float | None
    status: Status
    reason: str
    decided_by: str
    drift: Drift | None = None
    evidence: tuple[Evidence, ...] = ()
    findings: tuple[Finding, ...] = ()
    trace: tuple[Trace, ...] = ()
