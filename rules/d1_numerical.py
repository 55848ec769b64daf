"""D1, numerical claims: each atom (name and claimed values) against the value facts of the repository.

Per claimed value (ARCHITECTURE.md, "What each dimension can settle"; scale from SA-Bench):

- **matched**: a fact under an agreeing or narrower name (``rules.names``) holds the value. Generic names (``K``,
  ``alpha``: one letter, a lone Greek letter or generic word) are reused across components, so they rarely settle:
  a value bound only under a generic name, or a different value there, leaves the value ambiguous (unless the atom's
  ``used_in`` places it: there generic names bind), except that the claim's own name, when it is a generic symbol
  (the paper's ``K``), binds where code that runs binds it to no value the paper does not claim for it
  (``Atom.elsewhere``: another experiment's claimed ``alpha`` is that experiment's). A match whose sibling
  construction of a repository class binds a value no claim gives the quantity (``PGConfig(iterations=1000)`` beside
  the claimed 2000), while the claim names neither, stays ambiguous (``_unclaimed_sibling``). If nothing in the code
  reads any such fact (a config key or constant no code mentions; ARCHITECTURE.md: "a config value nothing reads
  is a trace"), or every such fact sits in code no entry point reaches (``extractors.provenance``), or is an
  argparse default the launcher overrides, it counts as a trace, **unused** (0.25), unless the code unpacks
  dictionaries dynamically (``**cfg``), where reads cannot be seen. Names with a qualifier word (``min_lr`` for
  ``lr``), and the claim's name without a one-letter subscript (``alpha_init`` for ``alpha_A_init``), match only
  when the claim's own name is bound nowhere; the latter show a drift only when the claimed value occurs nowhere else
  in code (no other binding can give the part its own value). A generic name holding two distinctive claimed values
  (``S`` bound to 9 and 81) binds as the claim's.
  Pass-through bindings (``max_seq_len=args.ctx``) take the value their source binds (``resolve_source``). A library
  choice (``AdamW``) also matches a live call of that callee; a product quantity (global batch) matches when its
  factors multiply out (``rules.quantities``).
- **drift**: the claimed value is only an orphan trace (a key or field nothing reads, or a default that is
  overridden) while a live, read binding under an agreeing name holds another value (the running code overrides
  it); or no match, and a fact under an agreeing (non-generic) name holds
  a comparable value equal to none of the claimed values, or, for a library choice, live code calls only another
  member of its family: a settled numerical drift. Not when the name is also computed at run time somewhere
  (``w = 1.0 if control else 0.0``: the constant may be overridden), nor when the claimed value is bound to a
  related name (``guidance_lambda: 120000`` for ``guidance_weight``; not a broader one, ``num_heads`` for
  ``n_kv_heads``, the general quantity, once the claim's own name is bound) or to one of the atom's generic aliases
  (``n = 10`` for ``n_cal``: another experiment may use ``n_cal = 1000``), nor for atoms named only by a count noun of
  the prose (``1,281,167 training images`` against ``num_images = 16``), nor when sibling functions, classes or
  constructions each bind their own value, the claim names none of them and some sibling binds none
  (``_sibling_spread``, ``_unbound_sibling``), nor when the
  drifting bindings sit in a part binding another atom of the claim to another value while that atom's claimed value
  is bound elsewhere (``_in_another_component``); those stay ambiguous.
- **stub**: matched, but every matching fact sits inside a stub (a default of a function whose body is only
  ``pass``/``raise NotImplementedError``, a value marked ``# placeholder``; ``extractors.stubs``). ARCHITECTURE.md caps
  a SAU whose only implementation is a stub at 0.25: such a value counts 0.25, with the stub as evidence.
- **absent**: no fact under an agreeing or narrower name at all, and the number occurs nowhere in the code, not
  even as its percentage form (15.2 for 0.152; a whole number not claimed as a percentage has none). A running
  total's start value (``total_tokens = 0``, then ``total_tokens += n``) proves no drift: what it adds up to is worked
  out at run time, so such a name leaves the value ambiguous. A symbolic
  value is never absent: it can be written too many ways.
- **ambiguous** otherwise: the value occurs only under names the alias table does not relate, or the name is
  bound to something we cannot fold (``lr = args.lr``), or the name is generic. An LLM may relate them later.

Facts in test files, and keywords of plotting or logging calls, are not implementations and are ignored, except
that a value seen there keeps an atom from being called absent. The SAU's score is over its atoms as a compound
claim's elements, each claimed value one element (1 matched, 0 drift or absent; an unused or stubbed value 0 beside
an element that holds and 0.25, a trace, when nothing holds; an atom with four per-task values is four elements,
LABELLING.md's fraction of elements that hold), rounded to the scale, and 1 only
when every value matches (``sau.vocabulary.compound_score``). The verdict is settled when no
undecided element can change that score: each ambiguous value may be anything from 0 to 1, and so may each element
the spec lists as ``uncovered``; an incomplete SAU that does not count its uncovered elements never settles
(``sau.vocabulary.determined_score``). Otherwise it is unresolved with the score as the best estimate (ambiguous
values counted 0.5, the middle of what they could be; uncovered elements left out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, cast

import sympy

from extractors import facts as K
from extractors.binding_sites import opaque_names
from extractors.callgraph import build_call_graph, module_name
from extractors.facts import CallFact, Fact, RepositoryIndex, numbers_in, stub_around, value_key
from extractors.provenance import (DEAD, binding_liveness, binding_scope, call_liveness, calls_by_line,
                                   calls_by_short, expression_value, live_reads, local_binding, overridden_by,
                                   passed_for, passed_keywords, read_only_into_unreadable, resolve_expression,
                                   resolve_source, result_name, unloaded_configs, unpacked_passes,
                                   unreadable_callee)
from extractors.values import is_number
from extractors.variants import Branch, branch_of, branches_in, family_named_in, named_in
from extractors.walk import is_test_path
from extractors.words import word_list
from rules import compare, d1_elements, names, quantities, traces
from rules.d2_stubs import stub_evidence
from rules.findings import AtomFinding, ValueFinding
from rules.findings import ValueOutcomeKind as Outcome
from sau.vocabulary import (SAU, Atom, AtomKind, Drift, Evidence, Status, Value, Verdict, compound_score,
                            determined_score, score_range, show_value)

RULE = "rule:d1-numerical"



MATCHED, UNUSED, STUB, DRIFT, ABSENT, AMBIGUOUS = (Outcome.MATCHED, Outcome.UNUSED, Outcome.STUB, Outcome.DRIFT,
                                                  Outcome.ABSENT, Outcome.AMBIGUOUS)
# An ambiguous value may be anything from 0 to 1: an unresolved verdict's estimate counts it at the middle (on the
# truth set this agrees with careful readers better than counting it absent: D1 weighted kappa 0.48 -> 0.61).
_SCORES = {MATCHED: 1.0, UNUSED: 0.25, STUB: 0.25, DRIFT: 0.0, ABSENT: 0.0, AMBIGUOUS: 0.5}
# the outcomes of a value only a trace implements: 0.25 when nothing of the claim holds, else 0 (``check``)
_TRACES = (UNUSED, STUB)
# A value seen only under other names while no identifier in the code shares a word of the quantity's names (no
# 'noise' anywhere for noise_std=0.01) is most likely a coincidence: the quantity is missing. Counted as a trace, the
# scale's next level above absent, since a renamed binding is still possible (LABELLING.md, the scale).
_UNNAMED_ESTIMATE = 0.25
# The SAU's drift label: the first kind of shortfall present, most telling first.
_DRIFT_ORDER = ((DRIFT, Drift.NUMERICAL), (STUB, Drift.STUB), (ABSENT, Drift.MISSING), (UNUSED, Drift.UNUSED))
# Evidence order: where a reviewer would look first.
_KIND_ORDER = {K.LAUNCHER: 0, K.CONFIG: 0, K.ARGPARSE: 1, K.FIELD: 2, K.KEYWORD: 3, K.STACK: 3, K.ASSIGNMENT: 4, K.DICT: 5,
               K.DEFAULT: 6,
               K.GET_DEFAULT: 7, K.LITERAL: 9}
_EVIDENCE_PER_OUTCOME = 2
_EVIDENCE_FIRST = (DRIFT, STUB, UNUSED, MATCHED, AMBIGUOUS, ABSENT)
# Products are tried over at most this many distinct values per factor: bounded work, and more values than this
# under one name means the name is reused for unrelated things.
_PRODUCT_VALUES = 4
# How far apart (lines) two parts' settings of one whole may sit: neighbouring keywords of one call or fields of one
# config (``_sum_of_parts``).
_PART_LINES = 3


@dataclass(frozen=True)
class ValueOutcome:
    """The decision for one claimed value of an atom, with the facts behind it."""

    value: Value
    outcome: Outcome
    facts: tuple[Fact, ...]
    note: str
    stub: object = None  # the extractors.stubs.StubFinding behind a STUB outcome
    consumers: tuple[CallFact, ...] = ()  # where the matched binding is consumed (a call reading it)
    estimate: float | None = None  # an ambiguous value's estimate when not _SCORES' middle
    # ambiguous only between a trace and nothing (a binding no entry point reaches, its value not read statically):
    # whatever it holds, code that runs does not (``_bounds``: at most what a trace counts)
    trace_only: bool = False

    @property
    def score(self) -> float:
        """The value's score in [0, 1]: ``_SCORES`` of its outcome, or its own estimate."""
        return _SCORES[self.outcome] if self.estimate is None else self.estimate


def check(sau: SAU, index: RepositoryIndex) -> Verdict:
    """Decide a code-checkable D1 SAU against ``index`` (the orchestrator answers for the others). Never raises on
    odd facts; returns an unresolved verdict with ``score`` ``None`` when the SAU has no atoms."""
    elements = d1_elements.results(sau, index)  # the datasets and metrics the claim names (rules.d1_elements)
    if not sau.atoms and not elements:
        return Verdict(sau, None, Status.UNRESOLVED, "no name/value atom could be read from this claim", RULE)
    atom_results = decide_atoms(sau.atoms, index, sau.statement)
    # each claimed value is an element of the claim (four per-task batch sizes are four elements, not one); the claim
    # scores the share of its elements that hold (LABELLING.md): beside one that holds, a value only a trace
    # implements (unused, stubbed) holds nothing and counts 0; with nothing holding, the claim is a trace and such a
    # value counts 0.25, as D3 scores an element only dead code implements
    held = any(o.outcome == MATCHED for _, outcomes in atom_results for o in outcomes) \
        or any(r.outcome == d1_elements.PRESENT for r in elements)
    undecided = sum(o.outcome == AMBIGUOUS for _, outcomes in atom_results for o in outcomes) + len(sau.uncovered) \
        + sum(r.outcome == d1_elements.AMBIGUOUS for r in elements)
    score = compound_score([value_score(o, held) for _, outcomes in atom_results for o in outcomes]
                           + [d1_elements.score(r, held) for r in elements])
    decided = all(o.outcome != AMBIGUOUS for _, outcomes in atom_results for o in outcomes)
    cases = _bound_cases(sau, [outcomes for _, outcomes in atom_results], elements, held, bool(undecided))
    # a spec that does not count what its atoms leave uncovered leaves the score open; one that leaves out only
    # which variant each value belongs to (``paired``) does not when no value matched: a pairing can take a
    # matched value from the claim (it may belong to another run), never give one back; an undecided value's
    # bounds already hold nothing as a case
    unpaired = bool(sau.checks.get("paired")) and not sau.uncovered and all(
        o.outcome != MATCHED for outcomes in _paired(atom_results) for o in outcomes)
    determined = _determined(cases) if sau.complete or sau.uncovered or unpaired else None
    # a value bound only where nothing runs, whatever it holds, is at most a trace there (drift ``unused``)
    outcomes = [shown_outcome(o) for _, results in atom_results for o in results]
    for r in elements:  # a dataset or metric the running code never loads or computes is missing, or unused
        if r.outcome == d1_elements.ABSENT:  # when only dead code implements it and it counts as a trace
            outcomes.append(UNUSED if d1_elements.score(r, held) == d1_elements.TRACE else ABSENT)
    drift = values_drift(outcomes)
    evidence = atom_evidence(atom_results, index) + d1_elements.evidence(elements, index)
    found = atom_findings(atom_results)
    findings = found + d1_elements.findings(elements)
    notes = [atom_note(atom, results) for atom, results in atom_results] + [d1_elements.note(r) for r in elements]
    matched = sum(1 for f in found if f.score == 1.0)
    reason = f"{matched}/{len(found)} atoms matched: " + "; ".join(notes)
    if determined is not None and undecided:
        score = determined
        reason += (f"; settled at {determined:g} whatever the {undecided} undecided element(s) "
                   f"({_undecided_names(sau, atom_results, elements)}) turn out to be")
    elif sau.uncovered:
        low, high = min(score_range(case)[0] for case in cases), max(score_range(case)[1] for case in cases)
        reason += (f"; not settled: with the undecided element(s) ({_undecided_names(sau, atom_results, elements)}) "
                   f"it could score {low:g} to {high:g}")
    elif unpaired:
        reason += (f"; no claimed value the pairing can move matched, so which one goes with which variant "
                   f"({sau.checks['paired']}) cannot change the score")
    elif decided and not sau.complete:
        reason += "; the statement has elements no atom covers"
    if held and any(o in _TRACES for o in outcomes):
        reason += "; beside elements that hold, a value only a trace implements counts 0 (the share that holds)"
    status = Status.SETTLED if determined is not None else Status.UNRESOLVED
    return Verdict(sau, score, status, reason, RULE, drift, evidence, findings,
                   trace=traces.values(atom_results, _EVIDENCE_FIRST))


def decide_atoms(atoms: tuple[Atom, ...], index: RepositoryIndex,
                 statement: str) -> list[tuple[Atom, list[ValueOutcome]]]:
    """Each of one claim's ``atoms`` with the outcome of each value it claims (``decide_value``), in order: the
    values a variant pairs with moved to it, and a drift read in another component than the claim's other atoms
    point to left undecided (``_in_another_component``). ``statement`` is the claim's text (it names variants)."""
    atom_results = []
    found: dict[int, Candidates] = {}
    for atom in atoms:
        candidates = found[id(atom)] = Candidates.of(atom, index)
        atom_results.append((atom, _paired_with_variants(atom, [decide_value(atom, value, index, candidates, statement)
                                                                for value in _required(atom)])))
    return [(atom, [_in_another_component(atom, o, atom_results, found, index) for o in outcomes])
            for atom, outcomes in atom_results]


def _in_another_component(atom: Atom, outcome: ValueOutcome, atom_results: list[tuple[Atom, list[ValueOutcome]]],
                          found: dict[int, "Candidates"], index: RepositoryIndex) -> ValueOutcome:
    """A drift of ``atom`` read in another component than the claim's: the claim's atoms describe one part
    ("the policy MLP has two hidden layers of 256 units"), and when another atom of it matches only in other
    functions or classes, while each function or class holding the drift's bindings binds that atom to another
    value too (``ResidualMLPDenoiser(num_layers=6, mlp_width=1024)`` beside the policy's ``hidden_sizes=(256,
    256)``), and the matched value is not passed on from them either (its provenance chain, ``Fact.via``), those
    bindings are another part's settings: the outcome becomes ambiguous. ``found`` maps each atom's
    id to its ``Candidates``. Other outcomes, and drifts whose bindings are not all placed in code
    (``extractors.provenance.binding_scope``), are returned as they are."""
    if outcome.outcome != DRIFT or not outcome.facts or not all(_differs(atom, f.value) for f in outcome.facts):
        return outcome
    drifting = {(f.file, binding_scope(index, f)) for f in outcome.facts}
    if any(not scope for _, scope in drifting):
        return outcome
    liveness = index.analysis(binding_liveness)
    for other, results in atom_results:
        held = [f for o in results if o.outcome == MATCHED for f in o.facts]
        where = {(f.file, binding_scope(index, f)) for f in held}
        # where the matched value comes from (train.py's epochs passed on from get_config's epochs_ood) holds it too
        sources = {(g.file, binding_scope(index, g)) for f in held for g in f.via}
        if other is atom or not held or any(not scope for _, scope in where) or (where | sources) & drifting:
            continue
        candidates = found[id(other)]
        unlike = {place: f for f in (*candidates.agreeing, *candidates.narrower)
                  if (place := (f.file, binding_scope(index, f))) in drifting and f.value is not None
                  and _differs(other, f.value) and not any(_holds_fact(other, v, f) for v in _required(other))
                  and liveness(f) != DEAD and _override(f, other, index) is None}
        if set(unlike) == drifting:
            shown = next(iter(unlike.values()))
            return replace(outcome, outcome=AMBIGUOUS,
                           note=f"{outcome.note}, in {outcome.facts[0].context or 'code'}, which binds the claim's "
                                f"{other.name} to {show_value(shown.value)} ({shown.ref}) while the claimed "
                                f"{other.name} is bound at {held[0].ref}: another component's setting")
    return outcome


def _bounds(sau: SAU, outcomes: list[list[ValueOutcome]], held: bool) -> list[tuple[float, float]]:
    """Each element's lowest and highest possible score (``sau.vocabulary.score_range``): one per claimed value (an
    ambiguous one anywhere in 0..1, one only between a trace and nothing, ``ValueOutcome.trace_only``, in 0..what a
    trace counts), then 0..1 for each of the spec's ``uncovered`` elements. A value only a trace
    implements (unused, stubbed) counts 0 beside an element that holds (``held``) and 0.25 when nothing does:
    luno-D1-009, three metrics computed and the 250 test pairs only in a config key nothing reads, scores 3 of 5."""
    trace = 0.0 if held else d1_elements.TRACE
    bounds = [(0.0, trace) if o.trace_only else (0.0, 1.0) if o.outcome == AMBIGUOUS
              else (trace, trace) if o.outcome in _TRACES
              else (_SCORES[o.outcome], _SCORES[o.outcome])
              for values in outcomes for o in values]
    return bounds + [(0.0, 1.0)] * len(sau.uncovered)


def _bound_cases(sau: SAU, outcomes: list[list[ValueOutcome]], elements: list, held: bool,
                 undecided: bool) -> list[list[tuple[float, float]]]:
    """The elements' bounds (``_bounds``, then the datasets', metrics' and components' ``d1_elements.bounds``) in
    each case the claim may be in: one when something holds or nothing is undecided; else two, since what a trace
    counts depends on whether anything holds. Either nothing ever holds (the claim is a trace: every element at most
    0.25, a trace value exactly that) or something does (trace values 0, and at least one undecided element holds;
    the first is taken as holding, all being alike)."""
    if held or not undecided:
        return [_bounds(sau, outcomes, held) + [d1_elements.bounds(r, held) for r in elements]]
    nothing = [(min(low, d1_elements.TRACE), min(high, d1_elements.TRACE))
               for low, high in _bounds(sau, outcomes, False) + [d1_elements.bounds(r, False) for r in elements]]
    something = _bounds(sau, outcomes, True) + [d1_elements.bounds(r, True) for r in elements]
    if (0.0, 1.0) not in something:  # every undecided element is at most a trace: none can hold
        return [nothing]
    first = something.index((0.0, 1.0))
    something[first] = (1.0, 1.0)
    return [nothing, something]


def _determined(cases: list[list[tuple[float, float]]]) -> float | None:
    """The score every case of ``_bound_cases`` settles at (``sau.vocabulary.determined_score``), else ``None``."""
    scores = {determined_score(case) for case in cases}
    return scores.pop() if len(scores) == 1 else None


def _paired_with_variants(atom: Atom, outcomes: list[ValueOutcome]) -> list[ValueOutcome]:
    """With ``Atom.variants`` (one per claimed value), each matched value kept only where a binding holding it sits
    in its own variant's code (``_variant_of``): ``sqrt(d_k)`` claimed for nGPT holds in ``nGPTAttention``, not in
    ``GPTAttention``. A value bound only in code of another variant, or of none, is ambiguous: which run it belongs
    to is not read from the code. Other outcomes stand."""
    if not atom.variants:
        return outcomes
    out = []
    for outcome, variant in zip(outcomes, atom.variants):
        if outcome.outcome != MATCHED:
            out.append(outcome)
            continue
        own = tuple(f for f in outcome.facts if _variant_of(f, atom.variants) == variant)
        if own:
            out.append(replace(outcome, facts=own, note=f"{outcome.note}, in {variant}'s code"))
            continue
        placed = next(((f, v) for f in outcome.facts if (v := _variant_of(f, atom.variants))), None)
        where = f"only in {placed[1]}'s code ({placed[0].ref})" if placed else "in code of no named variant"
        out.append(ValueOutcome(outcome.value, AMBIGUOUS, outcome.facts,
                                f"{outcome.note}, but {where}, not {variant}'s"))
    return out


def _variant_of(fact: Fact, variants: tuple[str, ...]) -> str | None:
    """The variant whose code holds ``fact``: a variant names a part of its place (its classes and functions, its
    module, the keys of the mapping holding it or the binding it was passed from: ``{"small": {"dropout": 0.1}}``)
    when that part begins with the variant's name or holds all its words (``GPTAttention`` is ``GPT``'s,
    ``nGPTAttention`` and ``ngpt.py`` ``nGPT``'s); of several, the longest name is the most specific. ``None`` when
    no variant, or two equally specific ones, name the place."""
    # the fact's own keys above its name; a source it was passed from may be keyed by the variant itself
    paths = [*fact.path.split(".")[:-1], *(part for f in fact.via for part in f.path.split("."))]
    parts = [p for p in (*fact.context.split("."), *module_name(fact.file).split("."), *paths) if p]
    named = {v for v in variants for part in parts
             if quantities.choice_key(part).startswith(quantities.choice_key(v))
             or set(names.words(v)) <= set(names.words(part))}
    if not named:
        return None
    longest = max(len(quantities.choice_key(v)) for v in named)
    best = [v for v in named if len(quantities.choice_key(v)) == longest]
    return best[0] if len(best) == 1 else None


def _paired(atom_results) -> list[list[ValueOutcome]]:
    """The outcomes a claim's pairing (spec ``paired``: which value goes with which variant) can reassign: those of
    its atoms claiming several values (one per variant, or a sweep). An atom claiming one value beside them holds it
    for every variant ("for 28 layers: batch 1024 and 2048"), so no pairing moves it; when no atom claims several
    values, the pairing ties every value to the claim's run, and all of them can move."""
    several = [outcomes for _, outcomes in atom_results if len(outcomes) > 1]
    return several or [outcomes for _, outcomes in atom_results]


def _undecided_names(sau: SAU, atom_results, elements: list) -> str:
    """The undecided elements as the reason names them: ambiguous atoms by name, then ambiguous datasets and
    metrics, then the uncovered phrases."""
    names_ = [atom.name for atom, outcomes in atom_results if any(o.outcome == AMBIGUOUS for o in outcomes)]
    names_ += [r.name for r in elements if r.outcome == d1_elements.AMBIGUOUS]
    return ", ".join([*names_, *sau.uncovered])


def _required(atom: Atom) -> tuple[Value, ...]:
    """The values to look for: each alternative or set member on its own; a range as one (low, high) pair."""
    if atom.kind == AtomKind.RANGE:
        return (tuple(atom.values),)
    return atom.values


def _numeric(atom: Atom) -> bool:
    """Whether every value ``atom`` claims is a number: bindings computed from settings are then worked out to
    numbers (``_evaluated``), and a binding no number can be is left out (``_resolved``)."""
    return all(is_number(v) for v in _required(atom))


def _no_count(atom: Atom) -> bool:
    """Whether ``atom`` claims a number no count can be (a fraction, a negative number), so that a binding whose name
    calls itself a count (``names.says_count``) is another quantity. Not for a share of a total (``Atom.of``), which
    code may write as a count of it (num_negative = A // 8 for 1/8 of the actions), nor for a quantity the claim's
    own names count (``num_train_epochs`` or ``epochs`` at 1.3: a count may be fractional), unless the claim is a
    sweep (``set``), whose plural name holds the values swept (``lambdas`` in {0.7, 0.8, 0.9})."""
    all_names = (atom.name, *atom.aliases)
    if atom.of or any(names.says_count(n) for n in all_names):
        return False
    if atom.kind != AtomKind.SET and any(names.COUNT in names.normalise(n).split("_") for n in all_names):
        return False
    return any(is_number(v) and math.isfinite(v) and (v < 0 or not float(v).is_integer()) for v in _required(atom))


def _counts(fact: Fact) -> bool:
    """Whether ``fact`` is a count by its name (``names.says_count``: ``n_lambda``) and holds no number that says
    otherwise: a number no count can be (``N_REWARD = -1.0``, ``NB_RADIUS = 0.8``) shows the prefix means another
    word (negative, neighbour), so only a binding whose value is not known is taken for a count."""
    return names.says_count(fact.name) and not is_number(fact.value)


def _sibling_named(name: str, atom: Atom, claimed_words: set[str]) -> bool:
    """Whether a binding ``name`` holding a claim's name is another quantity's of the paper: it holds a Greek letter
    the spec gives another atom as its one-word name (``Atom.symbols_elsewhere``), which the claim's names lack, and
    every word of it is a word of that atom's names (``confidence_beta`` beside an atom ``beta`` with the alias
    ``confidence``: the HPD rule's level, not a claimed interval's confidence). ``temperature_tau`` beside an EMA
    rate ``tau`` is not: ``temperature`` names nothing of ``tau``."""
    found = set(names.words(name))
    for sibling in atom.symbols_elsewhere:
        symbol = sibling[0].lower()
        if names.is_greek_word(symbol) and symbol in found and symbol not in claimed_words \
                and found <= {w for n in sibling for w in names.words(n)}:
            return True
    return False


@dataclass(frozen=True)
class Candidates:
    """The facts an atom's names reach: ``agreeing`` and ``narrower`` through its non-generic names (``keys``),
    ``qualified`` the narrower names that add a qualifier word (``min_lr`` for ``lr``: another quantity unless the
    claim's own name is not bound at all), ``weak`` through its generic ones (``K``, ``alpha``), ``broader`` the
    claim's names without a one-letter subscript (``alpha_init`` for ``alpha_A_init``: they confirm a value when the
    claim's own name is bound nowhere, and show a drift only when the claimed value occurs nowhere else, since the
    subscript may tell another part). With
    ``Atom.used_in``, only facts placed there count, generic names bind there as agreeing ones, and names holding the
    atom's one-letter symbol beside other words bind as narrower ones (``_symbol_named``), and so do the ends of
    ranges drawn from for a claimed end (``_drawn_ends``). A generic name
    that holds two of the atom's distinct claimed values (``S`` bound to 9 and to 81 for ``n_states=3/9/81``),
    neither 0 nor 1, is corroborated as the atom's quantity and binds as an agreeing one. For a claimed schedule
    (``quantities.realised_by_calls``), narrower and broader names count only when they name a learning-rate
    schedule (``quantities.name_speaks_for``)."""

    keys: frozenset[str]
    agreeing: list[Fact]
    narrower: list[Fact]
    qualified: list[Fact]
    weak: list[Fact]
    outside: tuple[Fact, ...] = ()  # with used_in: facts under the atom's names placed elsewhere (another component)
    broader: tuple[Fact, ...] = ()
    # with used_in: facts under the atom's own names in code named after no place (shared code, global settings), and
    # those of them in code serving the claim's place among others (_serves_place)
    neutral: tuple[Fact, ...] = ()
    unplaced: tuple[Fact, ...] = ()

    @classmethod
    def of(cls, atom: Atom, index: RepositoryIndex) -> "Candidates":
        all_names = (atom.name, *atom.aliases)
        keys = frozenset(names.normalise(n) for n in all_names if not names.is_generic(n))
        # a code name spelled like one of the claim's with its words joined or apart (lambda_preactiv for
        # lambda_pre_activ, warm_up_steps for warmup_steps) is that name
        spelled = index.analysis(_keys_by_spelling)
        keys |= frozenset(k for n in all_names if not names.is_generic(n) for k in spelled.get(names.squashed(n), ()))
        weak_keys = frozenset(names.normalise(n) for n in all_names) - keys
        # narrower names hold the claim name's own tokens, or its alias group's (num_fourier_blocks for n_blocks)
        narrow_keys = keys | frozenset(names.token_key(n) for n in all_names if not names.is_generic(n))
        claimed_words = {w for n in all_names for w in names.words(n)}
        qualifiers = word_list("qualifier_words", "rules")
        own, narrow, wide = _candidates(keys, index, narrow_keys, broader=True)
        generic = _candidates(weak_keys, index)[0]
        if _states_interval(atom):  # a value drawn from an interval states it
            own, generic = _with_draws(own, keys, index), _with_draws(generic, weak_keys, index)
            # in a claim's place, a generic name (t, x) passed on as it is ("t": t, rhs(t=t)) hands the letter's
            # value around, a time point of the solver, not the interval: only its own bindings may state that
            if atom.used_in:
                generic = [f for f in generic if not (f.value is None and f.source and not f.computed
                                                      and f.kind in (K.DICT, K.KEYWORD))]
            narrow, wide = ([_drawn_as_range(f, index) for f in group] for group in (narrow, wide))
        numeric = _numeric(atom)  # a symbolic claim compares symbolic bindings
        agreeing, narrower = (_shares(atom, _resolved(group, index, narrow_keys, qualifiers, numeric))
                              for group in (own, narrow))
        broader = tuple(_shares(atom, _resolved(wide, index, keys, qualifiers, numeric)))
        weak = _shares(atom, _resolved(generic, index, keys, qualifiers, numeric))
        if _no_count(atom):  # n_lambda = len(grid) counts the lambdas the claim gives (0.7, 0.8, 0.9): not them
            agreeing, narrower, weak = ([f for f in group if not _counts(f)] for group in (agreeing, narrower, weak))
            broader = tuple(f for f in broader if not _counts(f))
        corroborated = _corroborated(atom, weak) | _passed_to_owner(atom, weak)
        agreeing += [f for f in weak if id(f) in corroborated]
        weak = [f for f in weak if id(f) not in corroborated]
        periods = word_list("period_words", "rules") - claimed_words
        narrower = [f for f in narrower if not set(names.words(f.name)) & periods]  # log_interval_steps: a period
        qualified = [f for f in narrower if _qualifies(narrow_keys, names.normalise(f.name), qualifiers)
                     or _sibling_named(f.name, atom, claimed_words)]
        narrower = [f for f in narrower if f not in qualified]
        schedules = [v for v in atom.values if isinstance(v, str) and quantities.realised_by_calls(v)]
        if schedules:  # a narrower name may name another schedule (guidance_scheduler, noise_scheduler)
            narrower, qualified = ([f for f in group if quantities.name_speaks_for(f.name, schedules[0])]
                                   for group in (narrower, qualified))
            broader = tuple(f for f in broader if quantities.name_speaks_for(f.name, schedules[0]))
        outside: tuple[Fact, ...] = ()
        neutral: tuple[Fact, ...] = ()
        unplaced: tuple[Fact, ...] = ()
        if atom.used_in:
            ends = _drawn_ends(atom, index)
            narrower += [f for f in _shares(atom, _resolved(_symbol_named(atom, index), index, narrow_keys,
                                                            qualifiers, numeric)) if f not in narrower] + ends
            placed = _placement(atom, index)
            outside = tuple(f for f in (*agreeing, *narrower, *qualified, *weak) if not placed(f))
            rival = _placement(atom, index, elsewhere=True)
            neutral = tuple(f for f in agreeing if not (placed(f) or rival(f)))
            unplaced = tuple(f for f in neutral if _serves_place(f, atom, index))
            agreeing, narrower, qualified = ([f for f in group if placed(f)]
                                             for group in (agreeing, narrower, qualified))
            narrower = _agreeing_ends(narrower, ends)
            agreeing += [f for f in weak if placed(f)]
            keys, weak = keys | weak_keys, []
            broader = tuple(f for f in broader if placed(f))
        return cls(keys, agreeing, narrower, qualified, weak, outside, broader, neutral, unplaced)


def _symbol_named(atom: Atom, index: RepositoryIndex) -> list[Fact]:
    """The facts whose name holds one of the atom's capital one-letter names as a word of its own beside others that
    tell the same quantity (``time_discretization_N`` for the paper's ``N`` with the alias ``n_time_steps``,
    ``M_input_timesteps`` for ``M`` with ``n_input_steps``): code written from a paper keeps its symbols. The other
    words must share a word with the atom's names, other than generic ones and "number of" prefixes, and hold no
    qualifier the names lack (``rules/words.yaml``): ``N_EPOCHS`` and ``N_samples`` count other things, ``T_max`` is
    a bound of ``T``. A lower-case letter is left out, as ``n_`` and ``k_`` mostly mean "number of". Such a name
    relates to the claim only inside the places the spec gives (``Candidates``), as a narrower name: an equal value
    holds the claimed one."""
    symbols = {n for n in (atom.name, *atom.aliases) if len(n) == 1 and "A" <= n <= "Z"}
    if not symbols:
        return []
    claimed = {names.singular(w) for n in (atom.name, *atom.aliases) for w in names.words(n)}
    telling = claimed - word_list("count_prefixes", "rules") - names.table().generic - {s.lower() for s in symbols}
    qualifiers = word_list("qualifier_words", "rules") - claimed
    found = []
    for facts in index.by_name.values():
        for f in facts:
            parts = f.name.split("_")
            if len(parts) < 2 or not symbols & set(parts) or not _implements(f):
                continue
            others = {names.singular(w) for p in parts if p not in symbols for w in names.words(p)}
            if others & telling and not others & qualifiers:
                found.append(f)
    return found


def _drawn_ends(atom: Atom, index: RepositoryIndex) -> list[Fact]:
    """For an atom claiming one end of an interval (its name holds a word of ``lower_end_words`` or
    ``upper_end_words`` in ``rules/words.yaml``: ``x_high``), each binding drawn at random between constant bounds
    (``Fact.drawn``) whose name begins with the atom's other words (``X_cal = rng.uniform(0.0, 4.0, n)`` for
    ``x_high``, not a weight ``W_x``; not a grid, ``x_vals = np.linspace(1e-6, 4.0, m)``, whose ends are a domain's,
    not a distribution's), bound to that end (4.0). Only for an atom the spec places (``Candidates``), as
    a narrower name: an equal end holds the claim, and the draws placed there must agree on it (``_agreeing_ends``):
    one of two draws of X (U(0, 4) and U(1, 5)) is no end of X."""
    own, lower, upper = set(names.words(atom.name)), word_list("lower_end_words", "rules"), word_list(
        "upper_end_words", "rules")
    ends = [end for end, words in ((0, lower), (1, upper)) if own & words]
    rest = own - lower - upper
    if len(ends) != 1 or not rest:
        return []
    return [replace(f, value=f.drawn[ends[0]], computed=False, built=False)
            for facts in index.by_name.values() for f in facts
            if f.drawn is not None and set(names.words(f.name)[:len(rest)]) == rest and _implements(f)]


def _agreeing_ends(facts: list[Fact], ends: list[Fact]) -> list[Fact]:
    """``facts`` without the drawn ends (``_drawn_ends``) among them when those disagree on the end's value."""
    drawn = [f for f in facts if any(f is e for e in ends)]
    if len({repr(f.value) for f in drawn}) <= 1:
        return facts
    return [f for f in facts if not any(f is e for e in ends)]


def _states_interval(atom: Atom) -> bool:
    """Whether the atom claims an interval: a range (``AtomKind.RANGE``) or a pair of numbers as one value
    (``alpha`` drawn from ``U(1, 3)``, written ``value: [1, 3]``)."""
    return atom.kind == AtomKind.RANGE or any(
        isinstance(v, tuple) and len(v) == 2 and all(is_number(x) for x in v) for v in atom.values)


def _with_draws(facts: list[Fact], keys: frozenset[str], index: RepositoryIndex) -> list[Fact]:
    """For a claimed interval (``_states_interval``): ``facts`` (bound under one of ``keys``) with each drawn binding
    given its range (``_drawn_as_range``), and the drawn bindings named in the plural of a key (``alphas =
    rng.uniform(1.0, 3.0, n)`` for ``alpha``: one draw per sample, each of the quantity)."""
    plural = [f for key in sorted(keys) for f in index.by_name.get(f"{key}s", ())
              if (f.drawn or f.spanned) and _implements(f)]
    return [_drawn_as_range(f, index) for f in (*facts, *plural)]


def _drawn_as_range(fact: Fact, index: RepositoryIndex) -> Fact:
    """A binding drawn at random between constant bounds (``Fact.drawn``), or a grid between them (``Fact.spanned``),
    as a binding of that range; so is a bare name passed on (``solve(x_span=x_grid)``) whose function binds it once
    above as such a draw or grid (``extractors.provenance.local_binding``), the grid's named ends resolved where it
    is laid (``_evaluated``; the grid is kept in ``Fact.via``)."""
    span = fact.drawn or fact.spanned
    if span is not None:
        return replace(fact, value=span, computed=False, built=False)
    local = local_binding(index, fact) if fact.value is None and fact.source else None
    span = local.drawn or local.spanned if local is not None else None
    if local is None or span is None:
        return fact
    laid = _evaluated(replace(local, value=span, computed=False, built=False), index)
    return replace(fact, value=laid.value, computed=False, source="", via=(*fact.via, laid, *laid.via))


def _corroborated(atom: Atom, weak: list[Fact]) -> set[int]:
    """The ids of the generic-name facts whose name holds two distinct claimed values of ``atom`` other than 0 and 1
    (``Candidates``): one such coincidence may be chance, two under one name are the quantity. Symbolic values
    (``sqrt(d_k)`` and ``1/sqrt(d_k)`` under ``scale``) are as telling as numbers."""
    distinctive = [v for v in _required(atom) if (is_number(v) and v not in (0, 1)) or isinstance(v, sympy.Basic)]
    if len(set(distinctive)) < 2:
        return set()
    by_name: dict[str, list[Fact]] = {}
    for fact in weak:
        by_name.setdefault(names.normalise(fact.name), []).append(fact)
    out: set[int] = set()
    for facts in by_name.values():
        held = {v for v in distinctive for f in facts if _holds_fact(atom, v, f)}
        if len(held) >= 2:
            out.update(id(f) for f in facts)
    return out


def _passed_to_owner(atom: Atom, weak: list[Fact]) -> set[int]:
    """The ids of the generic-name keyword facts passed to a call named after what the atom's own names qualify
    (``Candidates``): ``tau=10`` in ``F.gumbel_softmax(...)`` is ``gumbel_tau``, the word ``gumbel`` naming the
    callee; a ``tau`` passed elsewhere may be any temperature. The shared word must be one of the atom's specific
    names' words, of three letters or more, that no generic name of it holds (not ``tau`` itself)."""
    all_names = (atom.name, *atom.aliases)
    generic_words = {w for n in all_names if names.is_generic(n) for w in names.words(n)}
    owners = {w for n in all_names if not names.is_generic(n) for w in names.words(n)} - generic_words
    owners = {w for w in owners if len(w) > 2 and not names.is_generic(w)}  # not n of n_init, in of T_in
    return {id(f) for f in weak if f.kind == K.KEYWORD and f.context
            and owners & set(names.words(f.context.rsplit(".", 1)[-1]))}


def _resolved(facts: list[Fact], index: RepositoryIndex, keys: frozenset[str],
              qualifiers: frozenset[str], numeric: bool = False) -> list[Fact]:
    """The facts, each pass-through (``max_seq_len=args.seq_len``) given the value its source binds when value
    provenance finds one (``extractors.provenance.resolve_source``; the chain is kept in ``Fact.via``). Not when the
    source's name is the claim's with a qualifier (``batch_size=self.eval_batch_size`` for a training batch). With
    ``numeric`` (the claim states numbers), a binding computed from other settings (``fpr=(1 - acc) / 2``) is
    given the number they make (``_evaluated``), and a binding to an object the code constructs (``Fact.built``:
    ``self.embed_tokens = nn.Embedding(...)`` for a claimed token count) is left out: it is a layer, a loader or a
    model, no number, so it neither holds nor leaves open the claimed one."""
    out = []
    for fact in facts:
        if numeric and fact.built:
            continue
        qualified = _qualifies(keys, names.normalise(fact.source), qualifiers) if fact.source else False
        chain = resolve_source(index, fact) if fact.value is None and fact.source and not qualified else ()
        fact = replace(fact, value=chain[-1].value, via=chain) if chain else fact
        out.append(_evaluated(fact, index) if numeric or isinstance(fact.value, tuple) else fact)
    return out


def _evaluated(fact: Fact, index: RepositoryIndex) -> Fact:
    """A symbolic binding given the number its names' values make (``extractors.provenance.resolve_expression``;
    the bindings used are kept in ``Fact.via``), a tuple of them (``betas=(config.beta1, config.beta2)``) the
    numbers of all its entries, else the fact as it is."""
    if isinstance(fact.value, tuple):
        if not any(isinstance(item, sympy.Expr) and item.free_symbols for item in fact.value):
            return fact
        entries: list[object] = []
        used: list[Fact] = []
        for item in fact.value:
            if not isinstance(item, sympy.Expr):
                entries.append(item)
                continue
            entry = _evaluated(replace(fact, value=item), index)
            if not is_number(entry.value):
                return fact
            entries.append(entry.value)
            used += entry.via[len(fact.via):]
        return replace(fact, value=tuple(entries), via=(*fact.via, *used), source="")
    sources = resolve_expression(index, fact)
    value = expression_value(fact, sources) if sources else None
    # the pass-through hops that reached the expression, then its names' bindings; shown as "computed from" (_at)
    return replace(fact, value=value, via=(*fact.via, *sources), source="") if value is not None else fact


def _shares(atom: Atom, facts: list[Fact]) -> list[Fact]:
    """With ``Atom.of``, the facts with each binding computed as a share of the named total (``n_neg = A // 8``,
    ``extractors.values.share_of``) holding that share as its value (0.125), so that it matches or contradicts the
    claimed share like any bound value. Where every claimed value is a fraction (at most 1), a binding of a number
    above 1 that is no such share is a count (``warmup_steps = 200`` beside a claimed warmup ratio): it says nothing
    of the share either way and is left out. Without ``of`` a computed count proves nothing about a claimed
    fraction, and the facts are returned unchanged."""
    if not atom.of:
        return facts
    places = frozenset(atom.of)
    fractions = all(is_number(v) and 0 <= v <= 1 for v in atom.values)
    out = []
    for fact in facts:
        if fact.share and _named_place(places, {fact.share[0]}):
            out.append(replace(fact, value=fact.share[1], computed=False))
        elif not (fractions and is_number(fact.value) and fact.value > 1):
            out.append(fact)
    return out


def _wider_name(keys: frozenset[str], fact_key: str) -> bool:
    """Whether a fact's name key holds only some of the tokens of one of the claim's keys, and a non-generic one
    (``N_head`` within ``N_head_kv``): it names the general quantity the claim's name narrows."""
    tokens = frozenset(fact_key.split("_"))
    generic = names.table().generic | {names.COUNT}
    return any(tokens < frozenset(key.split("_")) and tokens - generic for key in keys)


def _qualifies(keys: frozenset[str], fact_key: str, qualifiers: frozenset[str]) -> bool:
    """Whether a narrower name adds a qualifier word to the claim key it holds (``lr_min`` over ``learning_rate``:
    ``min``). Of the claim keys it holds, those it extends by the fewest tokens count; it qualifies only when it adds
    a qualifier to each of them (``max_train_video_length`` adds ``video`` to the claimed ``max_train_len``, though
    ``max train`` to ``video_length``), so the answer never depends on the order of the keys."""
    tokens = frozenset(fact_key.split("_"))
    extra = [tokens - frozenset(key.split("_")) for key in keys if frozenset(key.split("_")) < tokens]
    fewest = min((len(e) for e in extra), default=0)
    return bool(extra) and all(e & qualifiers for e in extra if len(e) == fewest)


def _named_place(places: frozenset[str], parts) -> bool:
    """Whether one of the places names one of the code's name ``parts`` (a class, function, module, callee): the
    place's words are all words of the part (``rules.names.words``), so the spec's ``mdp`` names ``MDPConfig`` and
    ``make_mdp`` as ``AdamW`` names ``AdamW``; a spec then places a quantity the same way in every repository."""
    return any(set(names.words(place)) <= set(names.words(part)) for place in places for part in parts if part)


def _placement(atom: Atom, index: RepositoryIndex, elsewhere: bool = False):
    """A predicate: is the fact placed where ``atom.used_in`` says the quantity is used? A fact is there when one
    of the places names (``_named_place``) its class or function, its module, its callee (a keyword of
    ``MDPConfig(S=3)``) or the name the call's result is bound to (``vae_cfg = Config(mix=0.1)``: the component
    it configures; ``extractors.provenance.result_name``), a part of its config path, or, for a binding that is no
    keyword, a call reading its name
    (``range(cfg.M)`` reads ``M``: the binding reaches that use), or the branch holding it (the body of ``if name ==
    "burgers":``, ``extractors.variants.branch_of``). A keyword belongs to its own call:
    ``LayerNorm(eps=1e-6)`` is not placed in ``AdamW`` because some ``AdamW`` call reads a variable named ``eps``.
    With ``elsewhere``, the predicate tells instead whether one of its class, function, module, callee or config path
    parts names a place other claims give the quantity (``Atom.places_elsewhere``): another component's fact."""
    places = frozenset(atom.used_in)
    # a rival whose words are all an own place's (encoder beside text_encoder) is the more general place: code named
    # after the own one (TextEncoder) names it too, and stays the own place's
    rivals = frozenset(r for r in atom.places_elsewhere
                       if not any(set(names.words(r)) <= set(names.words(p)) for p in places))

    verdicts: dict[str, tuple[bool, bool]] = {}  # part -> (names an own place, names a rival): parts repeat a lot

    def of_part(part: str) -> tuple[bool, bool]:
        if part not in verdicts:
            verdicts[part] = (_named_place(places, {part}), _named_place(rivals, {part}))
        return verdicts[part]

    def names_only_own(parts: set[str]) -> bool:  # run_pde2_pde3 names PDE3 and its rival PDE2: neither's
        return any(own and not rival for own, rival in map(of_part, parts))

    def placed(fact: Fact) -> bool:
        parts = {*fact.context.split("."), *module_name(fact.file).split("."), *fact.path.split(".")[:-1]}
        if fact.kind == K.KEYWORD:
            parts |= {fact.context.rsplit(".", 1)[-1], result_name(index, fact) or ""}
        branch = branch_of(index, fact)  # if name == "burgers": the body is Burgers' equation's
        if branch is not None:
            parts.update(branch.variants)
        if elsewhere:
            return any(of_part(part)[1] for part in parts)
        if names_only_own(parts):
            return True
        if fact.kind == K.KEYWORD or any(of_part(part)[1] for part in parts):  # equations.ode2.alpha is ODE2's
            return False
        return any(names_only_own({*call.callee.split("."), *call.context.split(".")})
                   for call in index.calls_by_reads.get(fact.name, ()) if _in_reach(fact, call, index))

    return placed


def _shared_setting(atom: Atom, value: Value, serving: tuple[Fact, ...], index: RepositoryIndex) -> Fact | None:
    """The one value code serving the claim's place among others works out for every place it serves: among
    ``serving`` (``Candidates.unplaced``: bindings of the claim's own name in code named after no place that names
    the place in a string it uses; ``t_span = torch.linspace(0.0, t_max, n)``, ``t_max`` resolved, in a generator
    branching on each equation's name; ``solve(x_span=x_grid)`` with the grid resolved), the first binding, when
    every one of them but keywords passing a bare name on unresolved (``t_span=t_span``) is live, read, outside
    stubs and holds a value comparable with the claimed ``value`` that they all share; else ``None``. Not when a
    branch of the place leaves the function early (``if eq_id == "duffing": return sample_duffing(n)``:
    ``extractors.variants.Branch.exits``), nor when code changes the name in a way no binding records (``t_span *=
    2``, ``:=``: ``extractors.binding_sites.opaque_names``), nor when the value is a parameter's default (callers may
    pass another: ``partial(sample, t_max=2.0)``). The caller has found nothing placed in the claim's place binding
    the name, so the place runs with it."""
    liveness = index.analysis(binding_liveness)
    bindings = sorted((f for f in serving if not (f.kind == K.KEYWORD and f.value is None and f.local_source)),
                      key=_evidence_order)
    if not bindings or any(f.value is None or _incomparable(atom, value, f.value) or liveness(f) == DEAD
                           or stub_around(index, f) is not None or not _may_be_read(f, index) for f in bindings):
        return None
    if len({repr(f.value) for f in bindings}) != 1 or {f.name for f in serving} & index.analysis(opaque_names):
        return None
    if any(g.kind == K.DEFAULT for f in bindings for g in f.via):
        return None  # a parameter's default: callers may pass the place another value (partial, **overrides)
    places = frozenset(atom.used_in)
    if any(b.exits and _named_place(places, set(b.variants)) for f in bindings for b in branches_in(index, f.file)):
        return None
    return bindings[0]


def _placed_clash(atom: Atom, effective: list[Fact], placed: list[Fact], index: RepositoryIndex) -> Fact | None:
    """A live rebinding, in the claim's place (``placed``: its agreeing and narrower facts), of a variable holding
    the claimed value (``effective``) to another value in the same function (``if eq_id in ("ode1", "ode2"): t =
    (0, 1)``, then ``if eq_id == "ode2": t = (0, 2)``): which of the two the place runs with depends on the order of
    branches static reading does not follow; else ``None``. Keywords of separate calls (one construction per
    variant) are no rebinding."""
    liveness = index.analysis(binding_liveness)
    variables = {(f.file, binding_scope(index, f), f.path) for f in effective if f.kind == K.ASSIGNMENT and f.context}
    return next((f for f in sorted(placed, key=_evidence_order)
                 if f.kind == K.ASSIGNMENT and (f.file, binding_scope(index, f), f.path) in variables
                 and f.value is not None and not _incomparable(atom, _required(atom)[0], f.value)
                 and _differs(atom, f.value) and liveness(f) != DEAD), None)


def _serves_place(fact: Fact, atom: Atom, index: RepositoryIndex) -> bool:
    """Whether the function (or module) holding ``fact`` names one of the atom's places in a string it uses (``if
    eq_id == "PDE2":`` in a generator serving every equation): code that works the quantity out for that place among
    others. A binding elsewhere (an ``activation`` of a vendored library) is another component's."""
    scope = binding_scope(index, fact)
    if scope is None:
        return False
    module = module_name(fact.file)
    mentions = index.analysis(build_call_graph).mentions.get(f"{module}.{scope}" if scope else module, ())
    return _named_place(frozenset(atom.used_in), {m.text for m in mentions if m.kind == "string"})


def _in_reach(fact: Fact, call: CallFact, index: RepositoryIndex) -> bool:
    """Whether a call reading the fact's name may read this binding: a local variable (a bare name bound inside a
    function) only in its own function (or one nested in it), on its own file; other bindings (module constants,
    class attributes, ``self.x``, config keys) anywhere but where the call's own function binds a local of that
    name (``alpha = (0.1, 1.0)`` then ``uniform(*alpha)`` reads that local, not a config key ``alpha``)."""
    if _local(fact, index):
        return call.file == fact.file and (call.context == fact.context
                                           or call.context.startswith(f"{fact.context}."))
    return (call.file, call.context, names.normalise(fact.name)) not in index.analysis(_local_names)


def _local_names(index: RepositoryIndex) -> frozenset[tuple[str, str, str]]:
    """Analysis provider: (file, function, normalised name) of every local variable (``_local``), built once: a
    lookup per call read, not a scan of the name's bindings."""
    return frozenset((f.file, f.context, key) for key, facts in index.by_name.items() for f in facts
                     if _local(f, index))


def _local(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether the binding is a local variable: a bare name assigned or looped over inside a function."""
    return fact.path == fact.name and fact.kind in (K.ASSIGNMENT, K.LOOP) and bool(fact.context) \
        and f"{module_name(fact.file)}.{fact.context}" in index.analysis(build_call_graph).functions


def decide_value(atom: Atom, value: Value, index: RepositoryIndex,
                 candidates: Candidates | None = None, statement: str = "") -> ValueOutcome:
    """Decide one claimed value of ``atom`` (see the module docstring for the outcomes); ``candidates`` may be
    passed when several values of one atom are decided; ``statement``, the claim's text, tells which variant
    branch a value passed per variant belongs to (``_passed_instead``). With ``Atom.complement``, a value the
    claim's own names do not match is looked for as one minus it under the complement's names (``_complement``)."""
    own = _decide_named(atom, value, index, candidates, statement)
    if not atom.complement or own.outcome == MATCHED or not is_number(value):
        return own
    return _complement(atom, value, index, own, statement)


def _complement(atom: Atom, value: int | float, index: RepositoryIndex, own: ValueOutcome,
                statement: str) -> ValueOutcome:
    """The outcome of a claimed fraction ``value`` that the claim's own names did not match (``own``), with its
    complement ``1 - value`` decided under ``atom.complement``'s names as any claimed value is. A matched
    complement matches the claim (a target risk of 0.4 where a threshold of 0.6 on ``1 - lambda`` is claimed).
    Anything else found there keeps the value from being absent, but proves no drift: the complement's names
    (``alpha``) are often generic, and the code may state the quantity either way, so the value is ambiguous; so is
    a complement matched beside a drift of the claim's own names (two forms of one quantity disagreeing)."""
    rest_value = round(1 - value, 12)  # 1 - 0.9 is 0.09999999999999998 in floating point
    rest = replace(atom, name=atom.complement[0], aliases=atom.complement[1:], values=(rest_value,), complement=(),
                   percent=False, elsewhere=())
    other = _decide_named(rest, rest_value, index, None, statement)
    shown = f"as its complement {rest.name}={show_value(rest_value)}"
    if other.outcome == MATCHED and own.outcome != DRIFT:
        return replace(other, value=value, note=f"{shown}: {other.note}")
    if other.outcome == MATCHED:  # the two forms disagree in code: which one runs is not ours to pick
        return ValueOutcome(value, AMBIGUOUS, (*own.facts, *other.facts), f"{own.note}; but {shown}: {other.note}")
    if own.outcome == ABSENT and other.outcome != ABSENT:
        return ValueOutcome(value, AMBIGUOUS, other.facts, f"{own.note}; {shown}: {other.outcome} ({other.note})",
                            estimate=other.estimate if other.outcome == AMBIGUOUS else None)
    return own


def _decide_named(atom: Atom, value: Value, index: RepositoryIndex,
                  candidates: Candidates | None = None, statement: str = "") -> ValueOutcome:
    """``decide_value`` under the claim's own names (``atom.name`` and ``atom.aliases``)."""
    if atom.used_in and not _named_place(frozenset(atom.used_in), index.analysis(_code_names)):
        # the component the quantity belongs to is named nowhere: whatever binds the number elsewhere is another
        # part's (D3 counts a component named only in comments or nowhere as absent too)
        return ValueOutcome(value, ABSENT, (), f"no code names where the quantity is used ({', '.join(atom.used_in)})")
    found = candidates or Candidates.of(atom, index)
    keys, agreeing, narrower, weak = found.keys, found.agreeing, found.narrower, found.weak
    liveness = index.analysis(binding_liveness)
    own_bound = bool(agreeing)  # even a pass-through binding of the own name outranks a qualified one
    # a range's bounds are often bound as name_min / name_max: for a range claim qualified names are its bounds;
    # otherwise a qualified name (max_output_duration) is another quantity wherever the claim's own name or an
    # unqualified narrower one (output_duration) is bound
    named_plainly = own_bound or bool(narrower)
    pool = agreeing + narrower + ([] if named_plainly and atom.kind != AtomKind.RANGE else found.qualified)
    if not own_bound:
        pool += found.broader
    matches = _claimed_variant_first(sorted((f for f in pool if _holds_fact(atom, value, f)), key=_evidence_order),
                                     index, statement)
    if isinstance(value, str):
        matches += _choice_calls(atom, value, index)
    stubs = [stub_around(index, f) for f in matches]
    real = [f for f, stub in zip(matches, stubs) if stub is None]
    changed = [f for f in real if _running_total(f)]
    if changed and len(changed) == len(real):  # lr = 1e-3, then lr *= n_gpus: the start is not what is used
        return ValueOutcome(value, AMBIGUOUS, tuple(changed),
                            f"bound at {changed[0].ref}, then changed in place, so the value used is worked out at "
                            f"run time")
    real = [f for f in real if not any(f is g for g in changed)]
    if matches and not real:
        stub = stubs[0]
        return ValueOutcome(value, STUB, tuple(matches),
                            f"bound at {matches[0].ref}, inside a stub ({stub.code} at {stub.path}:{stub.line})",
                            stub)
    # a value computed in code no entry point reaches is computed at no run time; an object built under the name
    # (optimizer = optim.Adam(...)) is a choice made there, no value worked out at run time; an integer division of
    # names static reading could not resolve (epoch = t // steps_per_epoch) is worked out at run time for a number;
    # a size read off a tensor (batch_size = x.size(0)) and a running total (n_steps = 0, then n_steps += 1) follow
    # the settings that sized the tensor or bound the loop, so they hide no drift of those settings
    live = [f for f in agreeing if liveness(f) != DEAD]  # a binding no entry point reaches is at most a trace
    numeric = _numeric(atom)
    computed = [f for f in live if (f.computed or numeric and _unresolved_symbols(f)) and not f.built
                and not f.measured and not _running_total(f)]
    if matches:
        effective = [f for f in real if liveness(f) != DEAD and _may_be_read(f, index) and not _read_only_dead(f, index)
                     and _override(f, atom, index) is None]
        rival, claimed_variant = _passed_instead(effective, atom, index, statement)
        if rival is not None and claimed_variant:
            return ValueOutcome(value, DRIFT, (rival, effective[0]),
                                f"the branch building the claim's variant passes {show_value(rival.value)} at "
                                f"{_at(rival)}, replacing the default at {effective[0].ref}")
        if rival is not None:  # the default holds the claim where calls leave it, another value where one passes it
            return ValueOutcome(value, AMBIGUOUS, (effective[0], rival),
                                f"the default at {effective[0].ref} holds it, but the call at {_at(rival)} passes "
                                f"{show_value(rival.value)}")
        unknown = next((p for f in effective if (p := _passed_unknown(f, index)) is not None), None) \
            if all(f.kind in (K.FIELD, K.DEFAULT) for f in effective) else None
        if unknown is not None:  # the default runs where calls leave it; this call passes a value not read here
            return ValueOutcome(value, AMBIGUOUS, (effective[0], unknown),
                                f"the default at {effective[0].ref} holds it, but the call at {unknown.ref} passes "
                                f"another value for it, which static reading does not know")
        sibling = _unclaimed_sibling(atom, effective, live, index, statement) if effective else None
        if sibling is not None:  # the claim's run may be the sibling binding a value no claim gives the quantity
            return ValueOutcome(value, AMBIGUOUS, (effective[0], sibling),
                                f"bound at {_at(effective[0])}, but its sibling {_sibling_label(sibling, index)} binds "
                                f"{show_value(sibling.value)} at {_at(sibling)}, a value no claim of the paper gives "
                                f"the quantity, and the claim names neither")
        clash = _placed_clash(atom, effective, agreeing + narrower, index) if atom.used_in else None
        if clash is not None:  # if eq_id in ("ode1", "ode2"): t = (0, 1), then if eq_id == "ode2": t = (0, 2)
            return ValueOutcome(value, AMBIGUOUS, (effective[0], clash),
                                f"bound at {_at(effective[0])}, but code placed there binds "
                                f"{show_value(clash.value)} at {_at(clash)} in the same function")
        if effective and all(_passed_only_blindly(f, index) for f in effective):
            # no code reads the key by name: only a call unpacking a mapping nothing ties to a section or to a callee
            # whose keywords are known (equation_fn(**args)) may pass it, which may as well hold other keys
            return ValueOutcome(value, AMBIGUOUS, tuple(effective),
                                f"bound at {_at(effective[0])}, which no code reads by name; only a call unpacking a "
                                f"mapping of keys static reading does not know "
                                f"({index.analysis(unpacked_passes).anything}(**...)) "
                                f"may pass it", estimate=_SCORES[MATCHED])
        if effective:
            return ValueOutcome(value, MATCHED, tuple(effective), f"bound at {_at(effective[0])}",
                                consumers=_consumers(effective, index))
        unpassed = _unread_beside_unpacking(real, atom, index, liveness)
        if unpassed is not None:  # estimated as the trace it most likely is, never settled as one
            return ValueOutcome(value, AMBIGUOUS, (unpassed,),
                                f"bound at {unpassed.ref}, which no code reads by name; beside calls unpacking "
                                f"mappings of keys static reading does not know ({index.unpackings[0].callee}(**...)), "
                                f"code may reach it or compute the value otherwise", estimate=d1_elements.TRACE)
        # the claimed value is only a trace; what does the running code use instead?
        used = sorted((f for f in agreeing if _differs(atom, f.value) and _may_contradict(f, index)
                       and liveness(f) != DEAD and _is_read(f, index) and stub_around(index, f) is None
                       and _override(f, atom, index) is None),  # a replaced binding is not what runs
                      key=_evidence_order)
        why = _trace_reason(real[0], liveness(real[0]), index, atom)
        # an orphan (a key or field nothing reads, a default the launcher or every caller replaces) lost to what
        # runs: a drift; a binding read by its own unrun code path (a downstream stage no entry point calls) is
        # that path's value, another quantity than the running one: a trace
        orphan = all(not _is_read(f, index) or _override(f, atom, index) is not None for f in real)
        # the value replacing the default everywhere is what runs (Config(alpha=args.alpha)): the reader's first
        # evidence, before other bindings of the name
        used = [o for o in (_override(f, atom, index) for f in real if liveness(f) != DEAD)
                if o is not None and o.value is not None] or used
        if used and atom.named and not computed and orphan:
            return ValueOutcome(value, DRIFT, (used[0], real[0]),
                                f"code that runs binds {show_value(used[0].value)} at {_at(used[0])}; the claimed "
                                f"value at {real[0].ref} {why}")
        if isinstance(value, str) and quantities.realised_by_calls(value):
            # an unread schedule name says nothing of the schedule the code writes out
            return ValueOutcome(value, AMBIGUOUS, tuple(real),
                                f"bound at {real[0].ref} but {why}; code may write it out as a formula")
        return ValueOutcome(value, UNUSED, tuple(real), f"bound at {real[0].ref} but {why}")
    product = _product(atom, value, index) or _sum_of_parts(atom, value, narrower, index)
    if product is not None:
        return product
    default = _library_default(atom, value, index, keys)
    if default is not None:
        return default
    # a running total's start value (total_tokens = 0, then total_tokens += n) is no setting of the quantity
    tallies = [f for f in live if _running_total(f)]
    # only what runs contradicts: a binding in code no entry point reaches is a trace of another value
    differing = _claimed_variant_first(sorted((f for f in live if _differs(atom, f.value) and f not in tallies),
                                              key=_evidence_order), index, statement)
    contradicts = [_may_contradict(f, index) for f in differing]
    if isinstance(value, str) and quantities.realised_by_calls(value):
        # a schedule's name contradicts the claim only where code reads it (a config default nothing reads is
        # not the schedule that runs)
        contradicts = [can and _is_read(f, index) for f, can in zip(differing, contradicts)]
    unsure = [f for f, can in zip(differing, contradicts) if not can]
    different = [f for f, can in zip(differing, contradicts) if can]
    if isinstance(value, str) and not different:
        different = _rival_calls(atom, value, index)
    sites = [f for f in _value_sites(atom, value, index) if f not in found.outside]
    qualified = set(map(id, found.qualified)) if own_bound else set()
    # a related name broader than the claim's own (num_heads for n_kv_heads) is the general quantity, another one
    # than the claim's narrower one, once the claim's own name is bound: a value there hides no drift
    kin = [f for f in sites if f.kind != K.LITERAL and not _is_test(f) and id(f) not in qualified
           and names.kin(keys, names.normalise(f.name))
           and not (own_bound and _wider_name(keys, names.normalise(f.name)))]
    weak_matches = sorted((f for f in weak if _holds_fact(atom, value, f)), key=_evidence_order)
    if different and atom.named and not computed and not kin and not weak_matches:
        spread = _sibling_spread(different, index, statement)
        if spread is not None and not spread[1]:
            # one value per sibling (a loader per dataset, a config per experiment) and the claim names none of them
            one, two = spread[0][:2]
            binds = (f"code binds {show_value(one.value)} at {_at(one)} and {show_value(two.value)} at {_at(two)}, "
                     f"one value per sibling")
            unbound = _unbound_sibling(spread[0], index)
            if unbound is None:  # every sibling binds its own value, none the claimed one: the claim's runs another
                return ValueOutcome(value, DRIFT, tuple(spread[0]), f"{binds}, and no sibling binds the claimed one")
            # its own experiment may be a sibling binding the quantity differently or not at all
            return ValueOutcome(value, AMBIGUOUS, tuple(spread[0]),
                                f"{binds} ({_sibling_label(one, index)}, {_sibling_label(two, index)}); the claim "
                                f"names none of them, and {unbound} binds none")
        if spread is not None:
            different = spread[1]
        return ValueOutcome(value, DRIFT, tuple(different),
                            f"code binds {show_value(different[0].value)} at {_at(different[0])}")
    if unsure and not different:
        why = _why_unsure(unsure[0], index)
        return ValueOutcome(value, AMBIGUOUS, tuple(unsure),
                            f"code binds {show_value(unsure[0].value)} at {_at(unsure[0])}, {why}")
    symbol = _own_symbol(atom, weak_matches, found.weak, index)
    if symbol:
        return ValueOutcome(value, MATCHED, tuple(symbol),
                            f"bound at {_at(symbol[0])} under the claim's own symbol {atom.name!r}, which code that "
                            f"runs binds to no value the paper does not claim for it",
                            consumers=_consumers(symbol, index))
    if weak_matches:
        return ValueOutcome(value, AMBIGUOUS, tuple(weak_matches),
                            f"only the generic name {weak_matches[0].name!r} binds it, at {weak_matches[0].ref}")
    if different:
        why = (f"computed at run time at {computed[0].ref}" if computed
               else f"the value is bound to the related name {kin[0].name!r} at {kin[0].ref}" if kin
               else "the name is only a count noun of the claim")
        return ValueOutcome(value, AMBIGUOUS, tuple(different),
                            f"code binds {show_value(different[0].value)} at {_at(different[0])}, but {why}")
    # in the claim's own place (Atom.used_in), a narrower name bound to another value, read by code that runs, while
    # the claimed value occurs nowhere there (time_discretization_N=50 in the burgers section for a claimed N=30 of
    # Burgers' equation): the place's setting of the quantity, another value; not while a binding there is worked out
    # at run time, nor when code named after no place binds the claimed value (a global setting the place may use)
    holding = [f for f in found.neutral if _holds_fact(atom, value, f)]  # global settings of the claimed value
    placed = [] if not atom.used_in or sites or computed or holding or any(
        _incomparable(atom, value, f.value) and liveness(f) != DEAD for f in agreeing + narrower) else sorted(
        (f for f in narrower if _differs(atom, f.value) and _may_contradict(f, index) and liveness(f) != DEAD
         and _is_read(f, index) and stub_around(index, f) is None), key=_evidence_order)
    if placed and atom.named:
        return ValueOutcome(value, DRIFT, (placed[0],),
                            f"code binds {show_value(placed[0].value)} under {placed[0].name!r} at {_at(placed[0])}, "
                            f"in the claim's place ({', '.join(atom.used_in)}), and the value occurs nowhere there")
    # a value bound to another known quantity's name (the claimed 1024-token context found only as d_model=1024) is
    # that quantity's: it neither shows nor hides the claim's (a range's bounds are rarely named after it: kept)
    foreign = [] if atom.kind == AtomKind.RANGE else [f for f in sites if _another_quantity(f, keys)]
    elsewhere = sorted((f for f in sites if all(f is not g for g in foreign)), key=_evidence_order)
    wider = [] if own_bound else sorted((f for f in found.broader if _differs(atom, f.value)), key=_evidence_order)
    shared = [f for f in wider if _may_contradict(f, index) and liveness(f) != DEAD and _is_read(f, index)
              and stub_around(index, f) is None and _override(f, atom, index) is None]
    if shared and atom.named and not computed and not any(not _is_test(f) for f in elsewhere):
        # the one setting shared by the parts (alpha_init for alpha_A_init and alpha_M_init), while the claimed
        # value occurs nowhere else in code: no other binding can give the part its own value
        return ValueOutcome(value, DRIFT, tuple(shared),
                            f"code binds {show_value(shared[0].value)} under the broader name {shared[0].name!r} at "
                            f"{_at(shared[0])}, shared by the parts, and the value occurs nowhere else in code")
    if wider:
        return ValueOutcome(value, AMBIGUOUS, tuple(wider),
                            f"code binds {show_value(wider[0].value)} under the broader name {wider[0].name!r} at "
                            f"{_at(wider[0])}, which may serve another part")
    variants = _other_variants_only(atom, value, agreeing, sites) if (elsewhere or foreign) and not kin else []
    if variants:
        # the claim's own name holds the other runs' values and nothing else: the repository has those settings
        # only (CONVENTIONS.md, "several runs, several values"); an unrelated name holding this number is no run
        shown = sorted(elsewhere or foreign, key=_evidence_order)[0]
        return ValueOutcome(value, ABSENT, (),
                            f"the claim's own name binds only its other value(s) ({show_value(variants[0].value)} at "
                            f"{variants[0].ref}); this one occurs only under another name "
                            f"({shown.name or 'an unnamed literal'!s} at {shown.ref})")
    if elsewhere:
        named = [f for f in elsewhere if f.kind != K.LITERAL]
        shown = named[0] if named else elsewhere[0]
        label = f"{shown.name!r}" if shown.name else "an unnamed literal"
        unnamed = not _named_in_code(keys, index)
        shapes = [f for f in elsewhere if not _is_test(f)]
        if unnamed and shapes and all(_shape_literal(f, index) for f in shapes):
            # a tensor's size (torch.randn(1, 1000, dim)) where nothing names the quantity: no trace of it
            return ValueOutcome(value, ABSENT, (),
                                f"the value occurs only as a size in a tensor's shape ({shapes[0].ref}), and no "
                                f"identifier shares a word of the quantity's names")
        return ValueOutcome(value, AMBIGUOUS, tuple(elsewhere),
                            f"value seen only under other names ({label} at {shown.ref})"
                            + ("; no identifier shares a word of the quantity's names" if unnamed else ""),
                            estimate=_UNNAMED_ESTIMATE if unnamed else None)
    weak_different = sorted((f for f in weak if _differs(atom, f.value)), key=_evidence_order)
    if weak_different:
        return ValueOutcome(value, AMBIGUOUS, tuple(weak_different),
                            f"generic name bound to {show_value(weak_different[0].value)} at "
                            f"{weak_different[0].ref}")
    bound = sorted((f for f in agreeing + narrower + weak if _incomparable(atom, value, f.value)
                    and liveness(f) != DEAD), key=_evidence_order)  # dead code leaves nothing open
    traces = _choice_calls(atom, value, index, dead=True) if isinstance(value, str) else []
    if traces and isinstance(value, str) and all(liveness(f) == DEAD for f in bound) \
            and not _live_calls(atom, index, quantities.formula_calls(value)):
        # the choice is made only where nothing runs (an optimizer built by a trainer no entry point constructs),
        # and nothing that runs may make it another way: a trace, like a number bound there
        return ValueOutcome(value, UNUSED, tuple(traces),
                            f"called at {traces[0].ref} but {_trace_reason(traces[0], DEAD, index)}")
    if bound:
        return ValueOutcome(value, AMBIGUOUS, tuple(bound),
                            f"name bound at {bound[0].ref} to a value that cannot be compared statically")
    # a binding of the claimed value in code named after no place (a global n_steps: 30 every equation reads) may be
    # the one the place uses: not absent
    held = sorted((f for f in holding if liveness(f) != DEAD), key=_evidence_order)
    serving = _shared_setting(atom, value, found.unplaced, index)
    if serving is not None and _holds_fact(atom, value, serving):
        return ValueOutcome(value, MATCHED, (serving, *serving.via),
                            f"bound at {_at(serving)} in code that serves {' or '.join(atom.used_in)} among other "
                            f"places, and no code placed there binds it otherwise")
    if held:
        return ValueOutcome(value, AMBIGUOUS, tuple(held[:_EVIDENCE_PER_OUTCOME]),
                            f"bound at {held[0].ref} in code named after no place of the quantity, which "
                            f"{' or '.join(atom.used_in)} may use")
    if serving is not None and _differs(atom, serving.value) and atom.named:
        return ValueOutcome(value, DRIFT, (serving, *serving.via),
                            f"code that serves {' or '.join(atom.used_in)} among other places binds "
                            f"{show_value(serving.value)} at {_at(serving)}, and no code placed there binds it "
                            f"otherwise")
    # nor is a value the claim's own name is worked out to at run time in shared code, which serves the claim's place
    # among others without being named after one (t_span = torch.linspace(0.0, t_max, n) in a generator branching
    # on every equation's name): it may be the place's value
    shared = sorted((f for f in found.unplaced if liveness(f) != DEAD),
                    key=lambda f: (f.value is not None and not _incomparable(atom, value, f.value), not f.computed,
                                   _evidence_order(f)))  # where it is worked out first
    if shared:  # worked out at run time, or one value there the place may change (an early return, t_span *= 2)
        first, places = shared[0], " or ".join(atom.used_in)
        worked_out = first.value is None or _incomparable(atom, value, first.value)
        return ValueOutcome(value, AMBIGUOUS, tuple(shared[:_EVIDENCE_PER_OUTCOME]),
                            f"name bound at {first.ref} to a value worked out at run time, in code that serves "
                            f"{places} among other places" if worked_out else
                            f"code that serves {places} among other places binds {show_value(first.value)} at "
                            f"{_at(first)}, but the place may change it")
    # a count (an integer claimed as such) has no percentage form: 200 test samples is not 2.0 or 20000
    fractional = atom.percent or not (is_number(value) and float(value).is_integer())
    # a claimed percentage may be written as a fraction anywhere (torch.rand(n) < 0.75 for 75%), outside another
    # quantity's binding; a plain fraction read as a percentage only under a name related to the claim's
    rescaled = [f for f in (_value_sites(atom, value, index, percent_forms=True) if fractional else [])
                if (not _another_quantity(f, keys) if atom.percent
                    else f.kind != K.LITERAL and bool(f.name) and names.kin(keys, names.normalise(f.name)))]
    if rescaled:
        return ValueOutcome(value, AMBIGUOUS, tuple(rescaled[:_EVIDENCE_PER_OUTCOME]),
                            f"only a percentage form of the value occurs ({rescaled[0].ref})")
    if isinstance(value, sympy.Basic):
        # an expression can be written in too many ways to be sure it occurs nowhere
        return ValueOutcome(value, AMBIGUOUS, (), "no fact under this name; the expression may be written otherwise")
    if isinstance(value, str) and quantities.realised_by_calls(value):
        return ValueOutcome(value, AMBIGUOUS, (), "no library call realises it; code may write it out as a formula")
    default = _library_default(atom, value, index, keys, equal=False)
    if default is not None and atom.named:
        return default
    if foreign:
        shown = sorted(foreign, key=_evidence_order)[0]
        why = f"the value occurs only as another quantity ({shown.name!r} at {shown.ref})"
        related = sorted((f for key, facts in index.by_name.items() if key not in keys and names.kin(keys, key)
                          for f in facts if _implements(f)), key=_evidence_order)
        if related:  # out_channels=8 for claimed 16 output channels: perhaps the quantity, with another value
            return ValueOutcome(value, AMBIGUOUS, tuple(related[:_EVIDENCE_PER_OUTCOME]),
                                f"{why}, and the related name {related[0].name!r} is bound at {related[0].ref}")
        return ValueOutcome(value, ABSENT, (), f"the name is not bound, and {why}")
    if tallies:  # what a total adds up to (tokens over the steps run) is worked out at run time
        return ValueOutcome(value, AMBIGUOUS, tuple(tallies[:_EVIDENCE_PER_OUTCOME]),
                            f"the name counts a running total ({tallies[0].name!r} from {show_value(tallies[0].value)} "
                            f"at {tallies[0].ref}, updated in place), whose sum is worked out at run time")
    dead = sorted((f for f in agreeing + narrower if liveness(f) == DEAD), key=_evidence_order)
    unread = [f for f in dead if _incomparable(atom, value, f.value)]
    if unread:  # where nothing runs, a value not read statically may be the claimed one, but then only as a trace;
        # the binding may also be a coincidence of names (rand_samples for a claimed sample count): open, at most
        # a trace
        return ValueOutcome(value, AMBIGUOUS, tuple(unread[:_EVIDENCE_PER_OUTCOME]),
                            f"bound at {unread[0].ref} to a value that cannot be compared statically, but "
                            f"{_trace_reason(unread[0], DEAD, index)}", estimate=d1_elements.TRACE,
                            trace_only=True)
    dead = [f for f in dead if f in agreeing]
    if dead:  # the name is bound, but only where nothing runs, to other values: no drift, and no match
        return ValueOutcome(value, ABSENT, tuple(dead[:_EVIDENCE_PER_OUTCOME]),
                            f"the name is bound only in code no entry point reaches ({show_value(dead[0].value)} at "
                            f"{dead[0].ref}), and the value occurs nowhere in code")
    return ValueOutcome(value, ABSENT, (), "neither the name nor the value occurs in code")


def _unresolved_symbols(fact: Fact) -> bool:
    """Whether ``fact`` still holds an integer division of names after value provenance (``_evaluated``): most
    often a count taken from a running index or a data size (``epoch = t // steps_per_epoch``), worked out at run
    time. Other symbolic values whose names do not resolve (``total = n_cal + n_test``) are read as before: they
    neither hold a claimed number nor keep another binding's drift open."""
    return isinstance(fact.value, sympy.Basic) and bool(fact.value.free_symbols) and fact.value.has(sympy.floor)


def _running_total(fact: Fact) -> bool:
    """Whether ``fact`` is the constant start of a name updated in place (``n = 0`` then ``n += k``): the extractor
    marks such an assignment computed while keeping its value (``extractors.python_facts``)."""
    return fact.computed and fact.value is not None and fact.kind == K.ASSIGNMENT


def _keys_by_spelling(index: RepositoryIndex) -> dict[str, frozenset[str]]:
    """Each squashed spelling of a fact name of ``index`` (``names.squashed``) with the index keys of the names
    spelled so; computed once per index (``RepositoryIndex.analysis``)."""
    found: dict[str, set[str]] = {}
    for key, facts in index.by_name.items():
        for fact in facts:
            if fact.name:
                found.setdefault(names.squashed(fact.name.rsplit(".", 1)[-1]), set()).add(key)
    return {spelling: frozenset(keys) for spelling, keys in found.items()}


def _candidates(keys: frozenset[str], index: RepositoryIndex, narrow_keys: frozenset[str] | None = None,
                broader: bool = False) -> tuple[list[Fact], list[Fact], list[Fact]]:
    """The facts bound under one of ``keys`` (agreeing), under a name narrower than one of ``narrow_keys`` (default
    ``keys``), and, with ``broader``, under one of ``keys`` without its one-letter subscripts (``names.broader``),
    outside tests and presentation calls; one pass over the index's names."""
    narrow_keys = keys if narrow_keys is None else narrow_keys
    agreeing = [f for key in sorted(keys) for f in index.by_name.get(key, ()) if _implements(f)]
    narrower: list[Fact] = []
    wider: list[Fact] = []
    for key, facts in sorted(index.by_name.items()):
        if key in keys:
            continue
        if names.narrower(narrow_keys, key):
            narrower += [f for f in facts if _implements(f)]
        if broader and names.broader(keys, key):
            wider += [f for f in facts if _implements(f)]
    return agreeing, narrower, wider


def _is_test(fact: Fact) -> bool:
    return is_test_path(fact.file)


def _implements(fact: Fact) -> bool:
    """Facts that can implement a claim: not in tests, not presentation keywords."""
    if _is_test(fact):
        return False
    return not (fact.kind == K.KEYWORD and names.ignored_callee(fact.context))


def _forms(atom: Atom, value: Value) -> list[Value]:
    """A percentage also agrees when code writes the number itself (10% as 10)."""
    if atom.percent and is_number(value):
        return [value, value * 100]
    return [value]


def _may_contradict(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether a binding that differs from the claim can settle a drift. Not a loop variable (a sweep), not a value
    reached through a renaming pass-through (``StepLR(step_size=cfg.accum_grad_steps)``), not a keyword of a
    library call that is no known consumer of settings (``BLIP(image_size=224)``, a pretrained part's input size),
    and not a keyword that other live calls of the same callee leave at its default: their parameter may mean
    another quantity than the claim's, or take several values; nor a key of a configuration file no code can load
    (``extractors.provenance.unloaded_configs``). Such bindings still confirm a claimed value."""
    if fact.kind in (K.LOOP, K.STACK) or fact.via:  # a stack: other stacks of the layer may build other parts
        return False
    if _read_only_dead(fact, index):  # the value of a path that never runs, not the running one's
        return False
    if _in_unloaded_config(fact, index):
        return False  # a file no code loads sets nothing that runs, as code no entry point reaches
    if fact.kind in (K.FIELD, K.DEFAULT):
        return _passed_unknown(fact, index) is None
    if fact.kind != K.KEYWORD:
        return True
    if not _to_consumer(fact, index):
        return _sole_resolution(fact, index)
    # a layer built several times, here with the keyword and elsewhere without it (the default), has no one value
    # (a downsampling Conv3d(stride=(1, 2, 2)) beside plain Conv3d blocks)
    calls = [c for c in index.analysis(calls_by_short).get(fact.context.rsplit(".", 1)[-1], ())
             if c.callee == fact.context and not c.referenced and not is_test_path(c.file)
             and call_liveness(index, c) != DEAD]
    return all(fact.name in passed_keywords(index, c) for c in calls)


def _sole_resolution(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether a keyword fact is the size of an image transform setting the data's resolution
    (``quantities.is_resolution_transform``: ``transforms.Resize((128, 128))``) inside a dataset (``_in_dataset``)
    that runs, and every live such transform of the repository gives that one size: the images the pipeline yields
    have it. A second size (``Resize(256)`` then ``CenterCrop(224)``, a 299-pixel resize for FID), a size not read
    statically, or a transform built where no dataset takes it (a pretrained encoder's preprocessing) leaves open
    which one a claim is about."""
    if not quantities.is_resolution_transform(fact.context) or index.analysis(binding_liveness)(fact) == DEAD:
        return False
    return len(index.analysis(_resolutions)) == 1 and _in_dataset(fact, index)


def _in_dataset(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether a keyword fact sits in a map-style dataset (a class of the repository defining ``__getitem__``) or
    in a scope that hands a pipeline on as a ``transform=`` keyword (``ImageFolder(root, transform=...)``)."""
    scope = binding_scope(index, fact)
    if scope is None:
        return False
    module = module_name(fact.file)
    functions = index.analysis(build_call_graph).functions
    parts = scope.split(".") if scope else []
    if any(f"{'.'.join([module, *parts[:n]])}.__getitem__" in functions for n in range(1, len(parts) + 1)):
        return True
    return any(f.kind == K.KEYWORD and f.file == fact.file and binding_scope(index, f) == scope
               for f in index.named("transform"))


def _resolutions(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the sizes the live resolution transforms outside tests give (``_sole_resolution``), one
    key per size (``(256, 256)`` and ``256`` are one), ``"?"`` for a size static reading does not resolve. Only
    the size counts (the positional one, recorded as ``image_size``, or ``size=``), not ``padding=`` or
    ``interpolation=``."""
    liveness = index.analysis(binding_liveness)
    sizes = set()
    for facts in (index.named("image_size"), index.named("size")):
        for fact in facts:
            if fact.kind != K.KEYWORD or not quantities.is_resolution_transform(fact.context) \
                    or _is_test(fact) or liveness(fact) == DEAD:
                continue
            value = fact.value
            if isinstance(value, tuple) and value and len(set(map(repr, value))) == 1:
                value = value[0]  # one size per dimension
            sizes.add("?" if value is None else repr(value))
    return frozenset(sizes)


def _passed_unknown(fact: Fact, index: RepositoryIndex) -> Fact | None:
    """The first argument a live call of a default's owner passes for its parameter (``passed_for``: a keyword, or a
    positional argument of the repository's own function) whose value is not the default's: a name or expression
    that does not resolve to one value (``extractors.provenance.resolve_source``), a loop's variable passed
    positionally (``shift(model, k, acc)`` inside ``for acc in [1.0, 0.9]``, whose values no candidate holds; a
    keyword one is a candidate, ``_holds_fact``), or a resolved other value; ``None`` when there is none. Where one
    exists the default is not the one value that runs. Computed once per fact (``_passed_unknowns``)."""
    memo = index.analysis(_passed_unknowns)
    known = memo.get(id(fact))
    if known is not None and known[0] is fact:
        return known[1]
    found = memo[id(fact)] = (fact, _first_passed_unknown(fact, index))
    return found[1]


def _passed_unknowns(index: RepositoryIndex) -> dict[int, tuple[Fact, Fact | None]]:
    """Analysis provider: ``_passed_unknown``'s memo, id of a fact -> (the fact, kept so that its id stays its own;
    the argument found)."""
    return {}


def _first_passed_unknown(fact: Fact, index: RepositoryIndex) -> Fact | None:
    liveness = index.analysis(binding_liveness)
    for passed in passed_for(index, fact):
        if liveness(passed) == DEAD:
            continue
        if isinstance(passed.value, sympy.Basic) and passed.value.free_symbols:
            # confidence=1.0 - alpha, where the callers pass different alphas: no one value unless it works out
            worked = _evaluated(passed, index).value
            if isinstance(worked, sympy.Basic) and worked.free_symbols or repr(worked) != repr(fact.value):
                return passed
            continue
        if passed.value is not None:
            continue  # a literal other value is _passed_instead's and overridden_by's
        chain = resolve_source(index, passed) if passed.source else ()
        if chain and chain[-1].kind == K.LOOP and any(passed is f for f in index.named(passed.name)):
            continue  # a keyword taking a loop's values is a candidate itself, which confirms or leaves the drift
        if not chain or repr(chain[-1].value) != repr(fact.value):
            return passed
    return None


def _to_consumer(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether a keyword fact is passed to a consumer of settings: one of the repository's own classes or functions,
    or a library call listed in ``rules/quantities.yaml`` (``consumers``)."""
    short = fact.context.rsplit(".", 1)[-1]
    return short in index.analysis(_repository_names) or quantities.is_consumer(fact.context)


def _why_unsure(fact: Fact, index: RepositoryIndex) -> str:
    """Why a differing binding cannot settle a drift (``_may_contradict``), as the reason says it."""
    if fact.via:
        return "a value passed on under another name"
    if fact.kind == K.LOOP:
        return "one value of a loop"
    if fact.kind == K.STACK:
        return "one stack of layers, and others may build another part"
    passed = _passed_unknown(fact, index) if fact.kind in (K.FIELD, K.DEFAULT) else None
    if passed is not None:
        return f"while the call at {passed.ref} passes another value for it, which static reading does not know"
    if fact.kind != K.KEYWORD and not _is_read(fact, index):
        return "which no code reads"
    if _read_only_dead(fact, index):
        return "which only code no entry point reaches reads"
    if index.analysis(binding_liveness)(fact) == DEAD:
        return "in code no entry point reaches"
    if _to_consumer(fact, index):
        return f"while other {fact.context} calls leave {fact.name} at its default"
    return f"a setting of {fact.context}, which may be another component"



def _repository_names(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the last components of the repository's own classes and functions (their calls consume
    settings the repository passes on)."""
    graph = index.analysis(build_call_graph)
    return frozenset(q.rsplit(".", 1)[-1] for q in (*graph.functions, *graph.classes))


def _holds_fact(atom: Atom, value: Value, fact: Fact) -> bool:
    """Whether ``fact`` holds the claimed ``value``; a loop variable holds each value it takes."""
    if _swept(fact) and isinstance(fact.value, tuple):
        return any(_holds(atom, value, item) for item in fact.value)
    return _holds(atom, value, fact.value)


def _other_variants_only(atom: Atom, value: Value, agreeing: list[Fact], sites: list[Fact]) -> list[Fact]:
    """For an atom claiming one value per run or variant (``base_channels=64/128``, a scalar atom with several
    values) or a sweep (``n_heads in {2, 4, 8}``), the bindings of the claim's own name when every one of them holds
    one other claimed value (64; 2) and none holds ``value`` or something we cannot compare (``ch = args.ch`` may
    be 128): the repository has only the other runs, and ``value`` seen under an unrelated name is no run of its
    own (CONVENTIONS.md: "several runs, several values"; equal numbers under unrelated names do not count). Empty
    otherwise, and for 0 and 1, which stand for "none" or a unit too often to tell a run apart. For a sweep, also
    empty when a loop or a list holds ``value`` among ``sites`` (where it occurs): a loop may take a sweep's members
    under any name (``for h in [2, 4, 8]``)."""
    if atom.kind == AtomKind.RANGE or len(atom.values) < 2 or not is_number(value) or value in (0, 1):
        return []
    if atom.kind == AtomKind.SET and any(_swept(f) or isinstance(f.value, (tuple, list)) for f in sites):
        return []
    others = [v for v in atom.values if v != value]
    facts = [f for f in agreeing if not _is_test(f)]
    if not facts or any(_swept(f) or isinstance(f.value, (tuple, list))
                        or not any(_holds(atom, v, f.value) for v in others) for f in facts):
        return []
    return sorted(facts, key=_evidence_order)


def _swept(fact: Fact) -> bool:
    """Whether ``fact`` takes the values of a loop: a loop variable, or a binding passed one
    (``run(detector_accuracy=acc)`` inside ``for acc in [...]``: ``extractors.provenance.resolve_source``)."""
    return fact.kind == K.LOOP or bool(fact.via) and fact.via[-1].kind == K.LOOP


def _call_fact(call: CallFact) -> Fact:
    """A call naming a library choice, as a fact: its name and value are the callee's last component."""
    return Fact(call.file, call.line, call.end_line, call.short, call.callee, call.short, K.CALL, call.context,
                cell=call.cell)


def _live_call_sites(atom: Atom, index: RepositoryIndex, keys: frozenset[str], dead: bool = False,
                     choice: str = "") -> list[CallFact]:
    """Calls outside tests and outside dead code whose callee's last component has one of the choice ``keys``
    (``quantities.choice_key``), placed where ``atom.used_in`` says when it is given, and given the parameter the
    atom names when the claimed ``choice``'s calls take one (``_on_target``), in the index's order; with ``dead``,
    the same calls inside code no entry point reaches instead."""
    found = [c for c in index.calls if quantities.choice_key(c.short) in keys and not is_test_path(c.file)]
    if choice:
        found = _on_target(atom, choice, found)
    if atom.used_in:
        places = frozenset(atom.used_in)
        found = [c for c in found
                 if _named_place(places, {*c.context.split("."), *module_name(c.file).split(".")})]
    return [c for c in found if (call_liveness(index, c) == DEAD) is dead]


def _live_calls(atom: Atom, index: RepositoryIndex, keys: frozenset[str], dead: bool = False,
                choice: str = "") -> list[Fact]:
    """``_live_call_sites`` as facts naming the choice, in evidence order."""
    return sorted((_call_fact(c) for c in _live_call_sites(atom, index, keys, dead, choice)), key=_evidence_order)


def _on_target(atom: Atom, choice: str, calls: list[CallFact]) -> list[CallFact]:
    """The calls that speak for the atom's parameter when the claimed choice's calls are given one
    (``quantities.call_targets``: an initialiser's ``weight`` or ``bias``): an atom naming a target (``bias_init``)
    keeps the calls that pass it or are called on it (``zeros_(m.bias)``, ``m.bias.data.zero_()``); any other atom
    the calls naming the default (``xavier_uniform_(m.weight)``) or, naming no target, written in place as
    initialisers are (``normal_(p)``). ``torch.zeros(n)`` and ``torch.ones(n)`` build tensors and initialise
    nothing, and ``zeros_(m.bias)`` says nothing of how weights start."""
    targets = quantities.call_targets(choice)
    if not targets:
        return calls
    words = set(names.words(atom.name))
    own = next((t for t in targets if words & {t, f"{t}s", f"{t}es"}), targets[0])  # bias_init, biases_init

    def named(call: CallFact) -> set[str]:
        return {t for t in targets if t in call.reads or t in call.callee.split(".")[:-1]}

    return [c for c in calls
            if own in named(c) or (own == targets[0] and not named(c) and c.callee.endswith("_"))]


def _choice_calls(atom: Atom, value: str, index: RepositoryIndex, dead: bool = False) -> list[Fact]:
    """Live calls realising the claimed library choice (``torch.optim.AdamW(...)`` for ``AdamW``,
    ``CosineAnnealingLR(...)`` for a cosine schedule; ``quantities.realising_calls``), or calling the repository's
    own function that names it (``cosine_lr(...)``; ``quantities.own_function_realises``), when such calls speak for
    the atom (``quantities.name_speaks_for``); with ``dead``, such calls in code no entry point reaches (a trace)."""
    if not quantities.name_speaks_for(atom.name, value):
        return []
    own = frozenset(quantities.choice_key(name) for name in index.analysis(_repository_names)
                    if quantities.own_function_realises(name, value))
    found = _live_calls(atom, index, quantities.realising_calls(value) | own, dead, value)
    return found or ([] if dead else _formula_calls_realising(atom, value, index))


def _formula_calls_realising(atom: Atom, value: str, index: RepositoryIndex) -> list[Fact]:
    """Live calls building the choice's family member from a formula (``LambdaLR``) whose formula calls one of the
    choice's markers (``cos``): a lambda among the call's arguments holding that call (it lies within the call's
    lines), or a function the call is passed by name (``LambdaLR(opt, lr_lambda)``, the marker called inside
    ``lr_lambda``)."""
    markers = quantities.formula_markers(value)
    if not markers:
        return []
    marked = [c for c in index.calls if quantities.choice_key(c.short) in markers and not is_test_path(c.file)]
    return [_call_fact(c) for c in _live_call_sites(atom, index, quantities.formula_calls(value))
            if any(m.file == c.file and (c.line <= m.line <= c.end_line or m.context.rsplit(".", 1)[-1] in c.reads)
                   for m in marked)]


def _rival_calls(atom: Atom, value: str, index: RepositoryIndex) -> list[Fact]:
    """Live calls realising another member of the claimed choice's family (``Adam`` where ``AdamW`` is claimed),
    only when a family is known (``rules/quantities.yaml``) and no live call builds a member from a formula
    (``LambdaLR``), which may be the claimed choice written out."""
    rivals = quantities.rival_calls(value)
    if not rivals or not quantities.name_speaks_for(atom.name, value) or _live_calls(atom, index, quantities.formula_calls(value)):
        return []
    return _live_calls(atom, index, rivals, choice=value)


def _consumers(facts: list[Fact], index: RepositoryIndex) -> tuple[CallFact, ...]:
    """The first live call reading the name of each matched binding (its consumer) where it may read that binding
    (``_in_reach``), at most one per binding and never the binding's own line."""
    found: list[CallFact] = []
    for fact in facts[:_EVIDENCE_PER_OUTCOME]:
        if fact.kind in (K.KEYWORD, K.CALL):
            continue  # a keyword or a call is its own consumer
        calls = sorted((c for c in index.calls_by_reads.get(fact.name, ())
                        if (c.where, c.line) != (fact.where, fact.line) and not is_test_path(c.file)
                        and call_liveness(index, c) != DEAD and _in_reach(fact, c, index)),
                       key=lambda c: (c.file, c.cell or 0, c.line))
        if calls:
            found.append(calls[0])
    return tuple(dict.fromkeys(found))


def _sibling_label(fact: Fact, index: RepositoryIndex) -> str:
    """The name of the sibling a binding belongs to (``_sibling_spread``): the name a construction's result is bound
    to (``pg_config_s43``), else the module-level function or class holding it (``load_synth``, ``Critic``)."""
    if fact.kind == K.KEYWORD:
        label = result_name(index, fact) or binding_scope(index, fact) or ""
        return label.rsplit(".", 1)[-1]
    return (binding_scope(index, fact) or "").partition(".")[0]


def _sibling_family(fact: Fact, index: RepositoryIndex) -> tuple[str, ...] | None:
    """The family of siblings a binding belongs to, or ``None`` when it has none: a keyword, the constructions of
    its callee (``("call", callee)``); a local or a parameter default, the module-level functions and classes of its
    file holding one at the same path inside them (``("scope", file, "__init__")`` for ``Critic.__init__``). Each
    sibling is named by ``_sibling_label``. Module-level bindings, config keys and argparse options have no
    siblings."""
    if fact.kind == K.KEYWORD:
        return ("call", fact.context)
    if fact.kind not in (K.ASSIGNMENT, K.DEFAULT, K.FIELD):
        return None
    scope = binding_scope(index, fact)
    if not scope:
        return None
    return ("scope", fact.file, scope.partition(".")[2])


def _sibling_spread(different: list[Fact], index: RepositoryIndex,
                    statement: str) -> tuple[list[Fact], list[Fact]] | None:
    """When the differing bindings of a claimed quantity are set per sibling, with different values (``n_test =
    10000`` in ``load_synth``, ``n_test = 5000`` in ``load_heteroskedastic``; ``PGConfig(iterations=2000)`` and
    ``PGConfig(iterations=3000)`` built for two experiments), each is the value of its own dataset, experiment or
    component, and a claim about one of them is contradicted only by its own. Returns ``None`` when no family of
    siblings (``_sibling_family``) binds two different values; else the family's bindings, one per value (the
    evidence), and those the claim selects: the siblings whose name (``_sibling_label``) holds a word of the
    ``statement`` no other sibling's name holds, or that sit in the branch of the variant it names
    (``extractors.variants``), in ``different``'s order. Empty when nothing selects: the claim's own sibling may
    bind another value or none (a data-derived size), and a setting outside the family may be replaced by it, so no
    drift is read."""
    families: dict[tuple[str, ...], dict[str, list[Fact]]] = {}
    for fact in different:
        family = _sibling_family(fact, index)
        if family is not None:
            # siblings are told apart by name: one experiment run twice (exp1 = run_exp1(n=300) in a demo,
            # exp1 = run_exp1(n=500) for the plots) is one sibling whose every run is the claim's if any is
            families.setdefault(family, {}).setdefault(_sibling_label(fact, index), []).append(fact)
    spread = next((members for members in families.values() if len(members) >= 2
                   and len({value_key(f.value) for facts in members.values() for f in facts}) >= 2), None)
    if spread is None:
        return None
    labels = {label: set(names.words(label)) for label in spread}
    shared = set.intersection(*labels.values())
    said = set(names.words(statement))
    named = {id(f) for label, facts in spread.items() if (labels[label] - shared) & said for f in facts}
    # a sibling in the branch of the variant the claim names (if model_type == "1.7B_28L":) is selected too
    chosen = [f for f in different if id(f) in named
              or ((b := branch_of(index, f)) is not None and _names_variant(statement, b))]
    first: dict[object, Fact] = {}  # one sibling per value: the evidence shows two different values
    for fact in sorted((f for facts in spread.values() for f in facts), key=_evidence_order):
        first.setdefault(value_key(fact.value), fact)
    return list(first.values()), chosen


def _unclaimed_sibling(atom: Atom, effective: list[Fact], live: list[Fact], index: RepositoryIndex,
                       statement: str) -> Fact | None:
    """A live, read binding of the claim's own names, in a sibling of each binding holding the claimed value
    (``_sibling_family``: ``PGConfig(iterations=1000)`` for one experiment beside ``PGConfig(iterations=2000)`` for
    another), whose value neither this claim nor another claim of the paper gives the quantity (``Atom.elsewhere``),
    when the claim's ``statement`` selects none of the matching siblings (``_sibling_spread``); else ``None``. The
    claim's own run may be that sibling: the match is no longer sure (the sibling-wise reading a drift gets). Only
    for a claim of one value (with several, the siblings are the claim's variants, and a value none of them claims
    is one variant's drift), and only among constructions of the repository's own classes and functions (library
    layers built several times are parts of one model, not runs: a downsampling ``Conv3d`` beside 3x3x3 blocks;
    fields of two config classes or settings of two functions are as often two components as two runs)."""
    if atom.kind != AtomKind.SCALAR or len(atom.values) != 1:
        return None
    own = index.analysis(_repository_names)
    rivals = [f for f in live if f.value is not None and _differs(atom, f.value)
              and not _claimed_elsewhere(atom, f.value) and not _running_total(f)
              and _may_contradict(f, index) and _is_read(f, index) and _override(f, atom, index) is None]
    found = None
    for fact in effective:
        family = _sibling_family(fact, index)
        if family is None or family[0] != "call" or family[1].rsplit(".", 1)[-1] not in own:
            return None
        label = _sibling_label(fact, index)
        mine = [f for f in rivals if _sibling_family(f, index) == family
                and _sibling_label(f, index) != label]
        if not mine:
            return None
        spread = _sibling_spread([*mine, fact], index, statement)
        if spread is not None and any(c is fact for c in spread[1]):
            return None  # the claim names the matching sibling
        found = found or sorted(mine, key=_evidence_order)[0]
    return found


def _claimed_elsewhere(atom: Atom, found: Value) -> bool:
    """Whether a bound value is one another claim of the paper gives the atom's quantity (``Atom.elsewhere``)."""
    return any(_holds(atom, value, found) for value in atom.elsewhere)


def _own_symbol(atom: Atom, matches: list[Fact], weak: list[Fact], index: RepositoryIndex) -> list[Fact]:
    """The bindings among ``matches`` (generic-name facts holding the claimed value) under the claim's own name,
    when that name is a generic symbol (``K``, ``alpha``: the paper's own letter), that are live, read and not
    replaced, provided no other live binding of that symbol outside tests holds a value that neither this claim nor
    another claim of the paper gives the quantity (``Atom.elsewhere``: ``alpha = 0.4`` in one experiment beside a
    claimed ``alpha = 0.1`` in another). A symbol code uses only for the paper's values of it is the quantity;
    one also bound to other values may mean something else there. Empty otherwise."""
    own = names.normalise(atom.name)
    if not names.is_generic(atom.name):
        return []
    liveness = index.analysis(binding_liveness)
    held = sorted((f for f in matches if names.normalise(f.name) == own and liveness(f) != DEAD and not _is_test(f)
                   and _may_be_read(f, index) and not _read_only_dead(f, index) and _override(f, atom, index) is None
                   and stub_around(index, f) is None), key=_evidence_order)
    if not held:
        return []
    others = [f for f in weak if names.normalise(f.name) == own and liveness(f) != DEAD and not _is_test(f)
              and all(f is not m for m in matches)
              and (f.value is None or not _claimed_elsewhere(atom, f.value))]
    return [] if others else held


def _unbound_sibling(shown: list[Fact], index: RepositoryIndex) -> str | None:
    """A sibling of the family of ``shown`` (bindings of ``_sibling_spread``, one per value) that binds no comparable
    value of the quantity, by name, or ``None`` when every sibling binds one. A claim naming no sibling may be about
    such a one (``load_images`` beside ``load_synthetic`` and ``load_noisy``, its test size derived from the data),
    so a drift is read only when there is none. Siblings of a scope family are the module-level functions and
    classes of its file whose name holds every word the family's labels share (``load``); labels sharing no word
    give ``"a sibling"``: which code is a sibling is not known. A construction family has none unbound: its keywords
    differ from the claim only where every live call of the callee passes one (``_may_contradict``)."""
    family = _sibling_family(shown[0], index)
    if family is None:
        return "a sibling"
    if family[0] == "call":
        return None
    bound_labels = {_sibling_label(f, index) for f in _family_bindings(shown, family, index)}
    shared = set.intersection(*(set(names.words(label)) for label in bound_labels))
    if not shared:
        return "a sibling"
    graph = index.analysis(build_call_graph)
    tops = [info.name for info in graph.functions.values() if info.file == family[1] and info.class_name is None
            and info.qualname == f"{info.module}.{info.name}"]
    tops += [qualname.rsplit(".", 1)[-1] for qualname, (file, _, _) in graph.classes.items() if file == family[1]]
    return next((name for name in tops if shared <= set(names.words(name)) and name not in bound_labels), None)


def _family_bindings(shown: list[Fact], family: tuple[str, ...] | None, index: RepositoryIndex) -> list[Fact]:
    """Every binding of the quantity's names in ``family`` (``_sibling_family``) that has a comparable value: the
    facts of ``shown``'s names at that family's places."""
    wanted = {names.normalise(f.name) for f in shown}
    return [f for name in wanted for f in index.by_name.get(name, ())
            if f.value is not None and _sibling_family(f, index) == family]


def _names_variant(statement: str, branch: Branch) -> bool:
    """Whether the claim's ``statement`` names one of the variants the branch builds, or its family
    (``extractors.variants.family_named_in``)."""
    return any(family_named_in(statement, variant) for variant in branch.variants)


def _claimed_variant_first(facts: list[Fact], index: RepositoryIndex, statement: str) -> list[Fact]:
    """``facts`` with those in the branches of the variants the claim's ``statement`` names first
    (``extractors.variants.family_named_in``: the ``model_type == "1.7B_28L"`` body for "the dense 1.7B model"),
    the rest in their order: the reader's evidence is the claim's own variant before a shared default."""
    if not statement:
        return facts
    claimed = [f for f in facts if (b := branch_of(index, f)) is not None and _names_variant(statement, b)]
    return claimed + [f for f in facts if all(f is not c for c in claimed)] if claimed else facts


def _passed_instead(effective: list[Fact], atom: Atom, index: RepositoryIndex,
                    statement: str = "") -> tuple[Fact | None, bool]:
    """When every binding holding the claimed value is a default (a field, a parameter default): a keyword that
    a live call of its owner passes with another value (``Config(top_k=4)``, or an entry of a written-out mapping
    it unpacks; ``extractors.provenance.passed_for``), or ``None``; both values then run, in different calls. The
    flag says the keyword sits in the branch of the variant the claim's ``statement`` names (``if model_type ==
    "15A2B":``, ``extractors.variants``): the claimed variant runs with it. A keyword in the branch of another
    variant of that ``if``/``elif`` chain is passed for that variant only, not for the claim's."""
    if not effective or any(f.kind not in (K.FIELD, K.DEFAULT) for f in effective):
        return None, False
    liveness = index.analysis(binding_liveness)
    numeric = _numeric(atom)
    passed = (_evaluated(k, index) if numeric else k for f in effective for k in passed_for(index, f))
    for k in passed:
        if k.value is None or not _differs(atom, k.value) or liveness(k) == DEAD:
            continue
        branch = branch_of(index, k) if statement else None
        if branch is None:
            return k, False
        if any(named_in(statement, v) for v in branch.variants):
            return k, True
        if not any(named_in(statement, v) for v in branch.chain):
            return k, False
    return None, False


def _override(fact: Fact, atom: Atom, index: RepositoryIndex) -> Fact | None:
    """The binding that replaces the default ``fact`` everywhere with a value other than the claimed ones
    (``extractors.provenance.overridden_by``), or ``None``. A pass-through override (``Config(lr=args.lr)``) has
    the value its source binds (``extractors.provenance.resolve_source``)."""
    override = overridden_by(index, fact)
    if override is not None and override.value is None and override.source:
        chain = resolve_source(index, override)
        override = replace(override, value=chain[-1].value, via=chain) if chain else override
    if override is not None and _numeric(atom):
        override = _evaluated(override, index)  # Config(fpr=(1 - acc) / 2) replaces the default with a number
    return override if override is not None and _differs(atom, override.value) else None


def _at(fact: Fact) -> str:
    """Where a binding is, and where its value comes from when provenance followed it (``train.py:40 (from
    args.seq_len, train.py:12)``) or which total it is a share of (``data.py:7 (as a share of A)``)."""
    if fact.share is not None and fact.value == fact.share[1]:
        return f"{fact.ref} (as a share of {fact.share[0]})"
    if not fact.via:
        return fact.ref
    if not fact.source:  # a value computed from other settings (_evaluated)
        return f"{fact.ref} (computed from {', '.join(f'{v.name} at {v.ref}' for v in fact.via)})"
    return f"{fact.ref} (from {fact.source}, {fact.via[-1].ref})"


def _trace_reason(fact: Fact, liveness: str, index: RepositoryIndex | None = None, atom: Atom | None = None) -> str:
    override = _override(fact, atom, index) if index is not None and atom is not None else None
    if override is not None and override.kind == K.LAUNCHER:
        return f"is overridden by the launcher ({override.ref})"
    if override is not None and override.kind == K.CONFIG:
        return f"is overridden by the config file ({override.ref})"
    if override is not None:
        return f"is overridden where {override.context} is called ({override.ref})"
    if index is not None and fact.where in index.uncompilable:
        return "sits in a file CPython would not compile, so none of its code runs"
    callee = unreadable_callee(index, fact) if index is not None else None
    if callee is not None:
        return f"is passed to {callee.callee} ({callee.ref}), code in a file Python cannot compile"
    if liveness == DEAD:
        graph = index.analysis(build_call_graph) if index is not None else None
        branch = graph.branch_at(fact.where, fact.line) if graph is not None else None
        if graph is not None and branch is not None:
            return f"sits in an `if` arm no run takes: {graph.graph.nodes[branch]['why']}"
        scope = (binding_scope(index, fact) if index is not None else None) or fact.context
        return f"sits in code no entry point reaches ({scope or module_name(fact.file)})"
    if index is not None and _in_unloaded_config(fact, index):
        return f"sits in {fact.file}, which no code loads (no code names the file, its folder or its format)"
    unused = _unused_object(fact, index) if index is not None and fact.kind == K.KEYWORD else None
    if unused is not None:
        return f"is passed to {fact.context.rsplit('.', 1)[-1]}, whose object {unused.path} ({unused.ref}) no code uses"
    if fact.unread or (index is not None and _never_read(fact, index)):
        owner = fact.context.rsplit(".", 1)[-1] if fact.kind == K.KEYWORD else fact.context
        return f"{owner} never reads its parameter {fact.name!r}"
    if index is not None and fact.kind == K.DICT and not _holder_read(fact, index):
        return f"no code reads the mapping {fact.path.rsplit('.', 1)[0]!r} that holds it"
    unreadable = read_only_into_unreadable(index, fact.name) if index is not None else None
    if unreadable is not None:
        return f"it is only passed to {unreadable.callee} ({unreadable.ref}), code in a file Python cannot compile"
    if index is not None and _read_only_dead(fact, index):
        broken = sorted({file for n in (fact.name, fact.name.replace("-", "_"))
                         for file, _ in index.read_sites.get(n, ()) if file in index.uncompilable})
        return f"only code no entry point reaches reads {fact.name!r}" + (
            f" (or code in {', '.join(broken)}, which CPython would not compile)" if broken else "")
    if index is not None and fact.kind == K.CONFIG and index.plain_names_read.get(fact.name, 0):
        return f"no code reads the key {fact.name!r} (a variable of that name is no read of it)"
    return f"no code reads {fact.name!r}"


def _product(atom: Atom, value: Value, index: RepositoryIndex) -> ValueOutcome | None:
    """The outcome of a claimed product quantity (``rules.quantities``) whose factors code binds, or ``None`` when
    the atom is no product or its first factor (the per-device batch) is not bound. Matched when one live binding
    per factor (and per optional factor, or none) multiplies out to ``value``; else ambiguous: one factor alone
    proves nothing. An unbound factor other than the first is no factor (no accumulation); then, unless the device
    count is set at run time (``world_size = dist.get_world_size()``) and would give the claim as a whole number of
    devices, nothing is decided here (``None``): the binding of the claim's own name decides."""
    product = quantities.product_of(atom)
    if product is None or not is_number(value):
        return None
    liveness = index.analysis(binding_liveness)

    def bound(group: tuple[str, ...], at_run_time: bool = False) -> list[Fact]:
        keys = frozenset(names.normalise(n) for n in group)
        facts = [f for key in sorted(keys) for f in index.by_name.get(key, ())
                 if _implements(f) and liveness(f) != DEAD
                 and (f.computed and f.value is None if at_run_time else is_number(f.value) and f.value > 0)]
        seen: dict[float | None, Fact] = {}
        for fact in sorted(facts, key=_evidence_order):
            seen.setdefault(cast("float | None", fact.value), fact)
        return list(seen.values())[:_PRODUCT_VALUES]

    required = [bound(group) for group in product.factors]
    if not required or not required[0]:
        return None
    complete = all(required) and len(required) >= 2
    optional = [bound(group) for group in product.optional]
    choices: list[list[Fact | None]] = [list(group) for group in required if group]
    choices += [[None, *group] for group in optional]
    for combination in _combinations(choices):
        factors = [f for f in combination if f is not None]
        total = 1.0
        for fact in factors:
            total *= cast(float, fact.value)
        if compare.numbers_equal(value, total, atom.tolerance):
            shown = " x ".join(f"{f.name} {show_value(f.value)} ({f.ref})" for f in factors)
            return ValueOutcome(value, MATCHED, tuple(factors), f"the product {shown}")
    first = [group[0] for group in required if group]
    shown = " x ".join(f"{f.name} {show_value(f.value)} ({f.ref})" for f in first)
    if complete:
        return ValueOutcome(value, AMBIGUOUS, tuple(first),
                            f"a product of settings: {shown} does not give it, but the device count may")
    devices = next((f for group in product.optional for f in bound(group, at_run_time=True)), None)
    per_device = 1.0
    for fact in first:
        per_device *= cast(float, fact.value)
    ratio = float(value) / per_device
    if devices is not None and ratio >= 2 and ratio.is_integer():
        return ValueOutcome(value, AMBIGUOUS, (*first, devices),
                            f"a product of settings: {shown} on each device, times the device count "
                            f"{devices.name!r} set at run time at {devices.ref}; {int(ratio)} devices give it")
    return None


def _sum_of_parts(atom: Atom, value: Value, narrower: list[Fact], index: RepositoryIndex) -> ValueOutcome | None:
    """A match when two live bindings of narrower names, one per part of a whole (``whole_parts`` in
    ``rules/words.yaml``: ``encoder_depth=12`` and ``decoder_depth=12``), sit side by side (one place, at most
    ``_PART_LINES`` lines apart) and add up to the claimed number (24 layers); else ``None``. Each part is the claim's
    name plus one part word, so ``encoder_hidden_dim`` is no part of a claimed depth."""
    if not is_number(value):
        return None
    part_words = word_list("whole_parts", "rules")
    liveness = index.analysis(binding_liveness)
    claim_tokens = [frozenset(k.split("_")) for k in {names.token_key(n) for n in (atom.name, *atom.aliases)}]
    parts: list[tuple[str, Fact]] = []
    for fact in narrower:
        tokens = frozenset(names.token_key(fact.name).split("_"))
        extra = next((tokens - own for own in claim_tokens if own < tokens and len(tokens - own) == 1), None)
        if extra and next(iter(extra)) in part_words and is_number(fact.value) and liveness(fact) != DEAD:
            parts.append((next(iter(extra)), fact))
    for word, one in parts:
        for other_word, other in parts:
            if word < other_word and (one.file, one.cell, one.context) == (other.file, other.cell, other.context) \
                    and abs(one.line - other.line) <= _PART_LINES \
                    and compare.numbers_equal(value, cast(float, one.value) + cast(float, other.value), atom.tolerance):
                first, second = sorted((one, other), key=lambda f: f.line)
                return ValueOutcome(value, MATCHED, (first, second),
                                    f"the sum of its parts {first.name} {show_value(first.value)} ({first.ref}) and "
                                    f"{second.name} {show_value(second.value)} ({second.ref})")
    return None


def _library_default(atom: Atom, value: Value, index: RepositoryIndex, keys: frozenset[str],
                     equal: bool = True) -> ValueOutcome | None:
    """An outcome through a library default: the first live call of a consumer (``rules.quantities.
    library_defaults``; placed calls only when the atom has ``used_in``) that does not pass the parameter the
    atom names. With ``equal``, a match when that default is the claimed value; without, a drift when it differs
    (used only where the claim's name is bound nowhere else, so the default is what runs). ``None`` otherwise."""
    places = frozenset(atom.used_in)
    for call, defaults in index.analysis(_consumer_calls):
        where = {call.short, *call.context.split("."), *module_name(call.file).split(".")}
        if places and not _named_place(places, where):
            continue
        passed = passed_keywords(index, call)
        for parameter, default in defaults.items():
            if names.normalise(parameter) not in keys or parameter in passed or call_liveness(index, call) == DEAD:
                continue
            fact = Fact(call.file, call.line, call.end_line, parameter, f"{call.callee}.{parameter}", default,
                        K.CALL, call.callee, cell=call.cell)
            note = f"{call.short}'s default {parameter}={show_value(default)}, which the call at {call.ref} leaves"
            if equal and _holds(atom, value, default):
                return ValueOutcome(value, MATCHED, (fact,), note + " unchanged")
            if not equal and _differs(atom, default):
                return ValueOutcome(value, DRIFT, (fact,), "code runs with " + note + " unchanged")
    return None


def _consumer_calls(index: RepositoryIndex) -> list[tuple[CallFact, dict[str, object]]]:
    """Analysis provider: the calls of library consumers with defaults (``rules.quantities.library_defaults``) that
    are neither referenced nor in tests, by file, cell and line, each with those defaults: what
    ``_library_default`` reads for every atom, found once per repository."""
    found = []
    for call in sorted(index.calls, key=lambda c: (c.file, c.cell or 0, c.line)):
        defaults = quantities.library_defaults(call.callee)
        if defaults and not call.referenced and not is_test_path(call.file):
            found.append((call, defaults))
    return found


def _combinations(groups: list[list]) -> list[tuple]:
    """Every choice of one item per group (the groups are short: ``_PRODUCT_VALUES``)."""
    combos: list[tuple] = [()]
    for group in groups:
        combos = [(*c, item) for c in combos for item in group]
    return combos


def _counted(atom: Atom, found: Value) -> Value:
    """A list of strings bound under a count's name (``IDENTITY_PROMPTS = ["...", ...]`` for a claimed number of
    identity prompts, ``datasets=("a", "b")`` for a number of datasets) counts as its length: the collection whose
    size the claim gives. A list of numbers stays itself: it is a sweep of the quantity (``epochs = [10, 20]``)."""
    if (isinstance(found, tuple) and found and all(isinstance(v, str) for v in found)
            and any(names.COUNT in names.normalise(n).split("_") for n in (atom.name, *atom.aliases))):
        return len(found)
    return found


def _holds(atom: Atom, value: Value, found: Value) -> bool:
    found = _counted(atom, found)
    if found is None:
        return False
    if atom.kind == AtomKind.RANGE:
        low, high = cast(tuple[float, float], value)  # a range's one value is its (low, high) pair
        if is_number(found):
            return low - abs(low) * 1e-9 <= found <= high + abs(high) * 1e-9
        return compare.equal(value, found) is True
    for form in _forms(atom, value):
        if atom.kind == AtomKind.SET and compare.contains(found, form, atom.tolerance):
            return True
        if compare.equal(form, found, atom.tolerance) is True:
            return True
    return False


def _differs(atom: Atom, found: Value) -> bool:
    """A comparable value equal to none of the atom's claimed values (the basis of a drift). A value that is
    another claimed alternative (24 where the claim is 24/36) is no drift; ``None`` and non-comparable values are
    not either."""
    found = _counted(atom, found)
    if found is None:
        return False
    if atom.kind == AtomKind.RANGE:
        return is_number(found) and not _holds(atom, tuple(atom.values), found)
    if atom.kind == AtomKind.SET:
        if isinstance(found, tuple):
            return all(is_number(v) for v in found) and not any(_holds(atom, v, found) for v in atom.values)
        return is_number(found) and not any(_holds(atom, v, found) for v in atom.values)
    return all(compare.equal(form, found, atom.tolerance) is False
               for value in atom.values for form in _forms(atom, value))


def _incomparable(atom: Atom, value: Value, found: Value) -> bool:
    """A bound value we cannot compare with the claim (``lr = args.lr``, a string, a symbol we cannot pair)."""
    found = _counted(atom, found)
    if found is None:
        return True
    if atom.kind in (AtomKind.SET, AtomKind.RANGE):
        return not is_number(found) and not isinstance(found, tuple)
    return all(compare.equal(form, found, atom.tolerance) is None for form in _forms(atom, value))


def _value_sites(atom: Atom, value: Value, index: RepositoryIndex, percent_forms: bool = False) -> list[Fact]:
    """Every fact anywhere (tests included) holding the claimed number, or the claimed tuple of numbers, for the
    ambiguous/absent decision; ``percent_forms`` also looks for the number times and divided by 100."""
    sites: list[Fact] = []
    if isinstance(value, tuple) and atom.kind != AtomKind.RANGE:
        keys = [k for k in (value_key(v) for v in value) if k]
        held = index.by_value.get(keys[0], ()) if keys else ()
        return list(dict.fromkeys(f for f in held if compare.equal(value, f.value) is True and not (
            f.kind == K.KEYWORD and names.ignored_callee(f.context))))
    targets = cast(tuple, value) if atom.kind == AtomKind.RANGE else tuple(_forms(atom, value))
    if percent_forms and atom.kind != AtomKind.RANGE and is_number(value):
        targets += (value * 100, value / 100)  # 15.2% may be written 15.2 or 0.152
    for target in targets:
        key = value_key(target)
        if key is None:
            continue
        # the index keys magnitudes: a named binding must hold the number with its sign (seeds=10 is no -10), while
        # a literal is recorded without its unary minus and matches either way
        sites.extend(f for f in index.by_value.get(key, ()) if not (
            f.kind == K.KEYWORD and names.ignored_callee(f.context)) and (
            f.kind == K.LITERAL or any(compare.numbers_equal(n, cast(float, target)) for n in numbers_in(f.value))))
    return list(dict.fromkeys(sites))


def _another_quantity(fact: Fact, keys: frozenset[str]) -> bool:
    """Whether ``fact`` is bound under the name of a known hyperparameter other than the claim's (``keys``;
    ``rules.names.other_quantity``): its value is that quantity's (1024 as ``d_model`` is no context length)."""
    return fact.kind != K.LITERAL and bool(fact.name) and names.other_quantity(keys, names.normalise(fact.name))


def _named_in_code(keys: frozenset[str], index: RepositoryIndex) -> bool:
    """Whether some identifier of the code (a bound name, a read name or attribute, a callee) shares a word with
    the claim's name keys other than generic ones (``rules.names.kin``)."""
    claimed = {word for key in keys for word in key.split("_")}
    return any(names.kin(keys, word) for word in claimed & index.analysis(_identifier_words))


def _shape_literal(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether ``fact`` is an unnamed number written in a call that builds a tensor of a given shape
    (``quantities.is_shape_factory``: ``torch.randn(1, 1000, dim)``, ``np.zeros(64)``) on its line."""
    if fact.kind != K.LITERAL:
        return False
    return any(quantities.is_shape_factory(call.callee)
               for call in index.analysis(calls_by_line).get((fact.where, fact.line), ()))


def _code_names(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: every name code in ``index`` gives (bound and read names, the sections holding them, such
    as a config file's ``equations.ode2``, callees, the repository's modules, classes and functions, and the strings
    code uses other than to show them, such as the one a branch compares with: ``if name == "burgers":``), for
    ``_named_place`` to ask whether an atom's place exists at all."""
    graph = index.analysis(build_call_graph)
    out = {*index.by_name, *index.reads, *(call.callee for call in index.calls)}
    out.update(m.text for mentions in graph.mentions.values() for m in mentions if m.kind == "string")
    out.update(part for facts in index.by_name.values() for fact in facts for part in fact.path.split(".")[:-1])
    out.update(module_name(file) for file in index.lines)
    out.update(part for qualname in (*graph.functions, *graph.classes) for part in qualname.split("."))
    return frozenset(out)


def _identifier_words(index: RepositoryIndex) -> frozenset[str]:
    """The normalised words of every identifier in ``index`` (``_named_in_code``), each word a key of its own."""
    raw = {*index.reads, *(call.short for call in index.calls)}
    out = {word for key in index.by_name for word in key.split("_")}
    out.update(word for name in raw for word in names.normalise(name).split("_"))
    return frozenset(out)


def _may_be_read(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether code may read the binding: ``_is_read``, or a key a call unpacking a mapping of unknown keys may pass
    (``extractors.provenance.unpacked_passes``); never a parameter default its function does not read."""
    return not _never_read(fact, index) and (index.analysis(unpacked_passes).may_pass(fact) or _is_read(fact, index)
                                             or _in_whole_section(fact, index))


def _passed_only_blindly(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether a configuration key counts as read only because some call unpacks a mapping whose section and
    callee static reading does not know (``UnpackedPasses.anything``): no read by name, no section code consumes
    whole, no unpacking whose route names its section or a callee taking it."""
    passes = index.analysis(unpacked_passes)
    return fact.kind == K.CONFIG and bool(passes.anything) and not _is_read(fact, index) \
        and not _in_whole_section(fact, index) and not replace(passes, anything="").may_pass(fact)


def _in_whole_section(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether the binding is a config key of a section code consumes whole (``_whole_sections``)."""
    return fact.kind == K.CONFIG and (fact.file, fact.path.rpartition(".")[0]) in index.analysis(_whole_sections)


def _whole_sections(index: RepositoryIndex) -> frozenset[tuple[str, str]]:
    """Analysis provider: the (file, dotted path) of each config section that code which may run reads by its name
    as a key or an attribute (``equation["parameters"]``; a variable of that name is no read of it) while no code
    reads any of its keys by name: code reads a section for its keys, so one whose keys nobody names is consumed whole
    (iterated or handed to a library), each key read by a name worked out at run time (``for key, (low, high) in
    ranges.items()``). Not a section a call unpacks (``fit(**cfg["training"])``):
    ``extractors.provenance.unpacked_passes`` knows which of its keys the callee takes."""
    reads = index.analysis(live_reads)
    unpacked = {u.section for u in index.unpackings}
    sections: dict[tuple[str, str], bool] = {}
    for fact in index.facts:
        if fact.kind != K.CONFIG or "." not in fact.path:
            continue
        key = (fact.file, fact.path.rpartition(".")[0])
        sections[key] = sections.get(key, False) or _read_as_key(fact.name, index)
    return frozenset(key for key, named in sections.items()
                     if not named and (last := key[1].rpartition(".")[2]) not in unpacked and last in reads
                     and reads[last][1] and _read_as_key(last, index))


def _never_read(fact: Fact, index: RepositoryIndex) -> bool:
    """A parameter default its own function never reads, a keyword passed to such a parameter or to the
    construction of an object nothing uses (``_unused_object``), or a key of a configuration file no code can load
    (``extractors.provenance.unloaded_configs``)."""
    return fact.unread or (fact.kind == K.KEYWORD and (index.keyword_unread(fact)
                                                       or _unused_object(fact, index) is not None)) \
        or _in_unloaded_config(fact, index)


def _unused_object(fact: Fact, index: RepositoryIndex) -> Fact | None:
    """The binding of an object the keyword ``fact`` helps build, when no code reads the name it is bound to
    (``self.wavelet_transformer_2d = WaveletTransform(mode=...)`` and nothing reads ``wavelet_transformer_2d``: the
    object is never applied, so what it was given is a trace, as CONVENTIONS.md counts "a flag that selects
    nothing"); ``None`` otherwise. A name any code reads, also as a string (``getattr(self, "proj")``), is used; a
    name ending in a number (``layer1``) may be reached by a name worked out at run time (``getattr(self,
    f"layer{i}")``); an attribute of a class with a library base (an ``nn.Module``, a Hugging Face model) may be read
    by the library (``CallGraph.unseen``: its ``lm_head``, its submodules through ``modules()``)."""
    unseen = index.analysis(build_call_graph).unseen
    for holder in index.analysis(_built_bindings).get(fact.where, ()):
        if holder.line <= fact.line <= holder.end_line and not index.reads.get(holder.name) \
                and not holder.name[-1:].isdigit() \
                and not (holder.path.startswith("self.") and f"{module_name(holder.file)}.{holder.context}" in unseen):
            return holder
    return None


def _built_bindings(index: RepositoryIndex) -> dict[str, list[Fact]]:
    """Analysis provider: per source key, the assignments binding an object the code constructs (``Fact.built``)."""
    out: dict[str, list[Fact]] = {}
    for fact in index.facts:
        if fact.kind == K.ASSIGNMENT and fact.built:
            out.setdefault(fact.where, []).append(fact)
    return out


def _in_unloaded_config(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether ``fact`` is a key of a configuration file no code can load
    (``extractors.provenance.unloaded_configs``)."""
    return fact.kind == K.CONFIG and fact.file in index.analysis(unloaded_configs)


def _unread_beside_unpacking(real: list[Fact], atom: Atom, index: RepositoryIndex,
                             liveness: Callable[[Fact], str]) -> Fact | None:
    """The first binding of the claimed value that code may run and that is neither overridden nor a parameter its
    function ignores, when the repository has calls unpacking mappings of keys static reading does not know
    (``RepositoryIndex.unpackings``): ``None`` otherwise. Such a binding nothing reads by name is left open, never
    settled as a trace or a drift: where code hands settings on as mappings, it may also compute the quantity itself
    (a padding length worked out as ``seq_len - n - p``, a backbone a library builds from its name), which the
    binding's being unread does not rule out. Never in a program whose every entry point fails at import (nothing
    runs to compute anything: ``CallGraph.halted``)."""
    if not index.unpackings or index.analysis(build_call_graph).halted:
        return None
    return next((f for f in real if liveness(f) != DEAD and not _never_read(f, index)
                 and _override(f, atom, index) is None), None)


def _read_only_dead(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether code reads the binding's name (a config field, a module constant, a key) only where no entry point
    reaches (``extractors.provenance.live_reads``): an experiment nothing calls reads the setting, nothing that runs
    does, so its value is a trace. Never for the kinds that are read where they are written (a keyword, a call, a
    loop, a launcher's option, a stack, a ``.get`` default), nor for a key a call unpacking a mapping of unknown keys
    may pass (``extractors.provenance.unpacked_passes``), nor for a parameter's default, which its own function
    reads (``Fact.unread`` says when it does not), nor for a key of a config section running code consumes whole
    (``_whole_sections``). Also when every read of the name passes it into code that cannot be read
    (``extractors.provenance.read_only_into_unreadable``). Always, in a program whose every entry point sits in a
    file Python cannot compile (``CallGraph.halted``)."""
    if index.analysis(build_call_graph).halted:
        return True  # every entry point sits in a file Python cannot compile: nothing reads (``CallGraph.halted``)
    if fact.kind in _READ_IN_PLACE or fact.kind == K.DEFAULT or index.analysis(unpacked_passes).may_pass(fact) \
            or fact.path.startswith(K.UNNAMED_HOLDER + "."):
        return False
    names = [n for n in (fact.name, fact.name.replace("-", "_")) if n in index.read_sites]
    if names and all(read_only_into_unreadable(index, n) for n in names):
        return True
    if _in_whole_section(fact, index):
        return False
    reads = index.analysis(live_reads)
    # read as a setting somewhere, never where code may run; a read as a parameter's name counts only in the function
    # that binds it (def f(lr): lr = lr * 2; use(lr))
    return any(reads[n][0] for n in names) and \
        not any(reads[n][1] or (fact.file, fact.context) in reads[n][2] for n in names)


_READ_IN_PLACE = frozenset({K.KEYWORD, K.GET_DEFAULT, K.CALL, K.LOOP, K.LAUNCHER, K.STACK})


def _is_read(fact: Fact, index: RepositoryIndex) -> bool:
    if _never_read(fact, index):
        return False
    if fact.kind in _READ_IN_PLACE:
        return True  # a keyword is consumed by its call; a .get default is itself a read; a loop runs its body;
        # a launcher passes its options to the program it runs; a layer stack is built by the code that runs it
    if fact.kind == K.DICT and not _holder_read(fact, index):
        return False
    if fact.path.startswith(K.UNNAMED_HOLDER + "."):
        return True  # an entry of a mapping reached through a call or an index (an optimizer's param group) is read
        # by whatever holds the mapping, which static reading does not see
    if fact.kind == K.ASSIGNMENT and fact.path == fact.name:
        # a plain variable is read by its name (or getattr of a module), never by a config key of that spelling
        return index.names_read.get(fact.name, 0) > 0
    spellings = (fact.name, fact.name.replace("-", "_"))
    if fact.kind == K.CONFIG:
        # a configuration key is read as an attribute or a key (cfg.batch_size, cfg["batch_size"]), never by a plain
        # variable of its spelling (batch_size = x.shape[0]); one passed by unpacking is _may_be_read's question
        return _read_as_key(fact.name, index)
    return any(index.reads.get(n, 0) > 0 for n in spellings)


def _read_as_key(name: str, index: RepositoryIndex) -> bool:
    """Whether code reads ``name`` (or its spelling with ``_`` for ``-``) as an attribute or a key (``cfg.lr``,
    ``cfg["lr"]``): reads of it beyond those as a plain variable, which cannot read a configuration key."""
    return any(index.reads.get(n, 0) > index.plain_names_read.get(n, 0) for n in (name, name.replace("-", "_")))


def _holder_read(fact: Fact, index: RepositoryIndex) -> bool:
    """Whether the mapping holding a dict display's entry is read anywhere: the variable its path starts with
    (``OPTIM_CONFIG`` of ``OPTIM_CONFIG.warmup_steps``; ``config`` of ``self.config.beta``). A mapping nothing reads
    passes none of its entries on, whatever else reads a name like the key (``args.warmup_steps``)."""
    parts = fact.path.split(".")[:-1]
    if parts and parts[0] in ("self", "cls"):
        parts = parts[1:]
    return not parts or index.names_read.get(parts[0], 0) > 0  # a variable: read by name, not by a key


def _evidence_order(fact: Fact) -> tuple:
    """Values written where they are first (by kind), then values provenance resolved through a pass-through."""
    return (bool(fact.via), _KIND_ORDER.get(fact.kind, 8), fact.file, fact.line)


def atom_evidence(atom_results: Sequence[tuple[Atom, list[ValueOutcome]]],
                  index: RepositoryIndex) -> tuple[Evidence, ...]:
    """The evidence of ``decide_atoms``' results, each place once: drifts first, then stubs, traces and matches;
    per outcome its first bindings, where their values come from, and the calls consuming them."""
    seen: dict[tuple, Evidence] = {}
    ordered = sorted((outcome for _, outcomes in atom_results for outcome in outcomes),
                     key=lambda o: _EVIDENCE_FIRST.index(o.outcome))  # the drift a reader must see comes first
    for outcome in ordered:
        if outcome.stub is not None:
            stub: Any = outcome.stub  # an extractors.stubs.StubFinding
            seen.setdefault((stub.path, None, stub.line), stub_evidence(stub, index))
        for fact in outcome.facts[:_EVIDENCE_PER_OUTCOME]:
            for link in (fact, *fact.via):  # the binding, then where its value comes from
                key = (link.file, link.cell, link.line)
                if key not in seen:
                    seen[key] = Evidence(link.file, link.line, link.end_line, index.snippet(link), link.kind,
                                         cell=link.cell)
        for call in outcome.consumers:
            seen.setdefault((call.file, call.cell, call.line),
                            Evidence(call.file, call.line, call.end_line, index.snippet(call), "consumer",
                                     cell=call.cell))
    return tuple(seen.values())


def value_score(outcome: ValueOutcome, held: bool) -> float:
    """A claimed value's count in its claim's score, in [0, 1]: its own score, but 0 for a value only a trace
    implements (unused, stubbed, or bound only where nothing runs) when another element of the claim ``held``
    (LABELLING.md: a compound claim scores the share that holds; a trace holds nothing beside what does)."""
    return 0.0 if held and (outcome.outcome in _TRACES or outcome.trace_only) else outcome.score


def shown_outcome(outcome: ValueOutcome) -> Outcome:
    """The outcome a claimed value shows in its claim's drift: ``unused`` for one bound only where nothing runs
    (``ValueOutcome.trace_only``), whatever it holds, else its own."""
    return UNUSED if outcome.trace_only else outcome.outcome


def values_drift(outcomes: list[Outcome]) -> Drift | None:
    """The drift label of claimed values' ``outcomes``: the first kind of shortfall among them in ``_DRIFT_ORDER``,
    most telling first, or ``None``."""
    return next((kind for outcome, kind in _DRIFT_ORDER if outcome in outcomes), None)


def atom_findings(atom_results: Sequence[tuple[Atom, list[ValueOutcome]]]) -> tuple[AtomFinding, ...]:
    """The report's findings of ``decide_atoms``' results: per atom its mean value score and each value's outcome,
    note and first evidence references."""
    return tuple(
        AtomFinding(atom.describe(), sum(o.score for o in results) / len(results),
                    tuple(ValueFinding(show_value(o.value), o.outcome, o.note,
                                       tuple(f.ref for f in o.facts[:_EVIDENCE_PER_OUTCOME])) for o in results))
        for atom, results in atom_results)


def atom_note(atom: Atom, results: list[ValueOutcome]) -> str:
    """One atom's part of a reason: its values, each with its outcome and why."""
    if len(results) == 1:
        return f"{atom.describe()} {results[0].outcome} ({results[0].note})"
    parts = ", ".join(f"{show_value(o.value)} {o.outcome} ({o.note})" for o in results)
    return f"{atom.describe()}: {parts}"


