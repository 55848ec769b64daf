"""D2, formula claims: each claimed formula against the repository's expressions, equivalent up to renaming.

Rule (ARCHITECTURE.md, "What each dimension can settle"; scale from SA-Bench):

- Candidates are every assignment and return value of the repository with local definitions substituted and small
  helpers inlined (``extractors.expressions``), translated with the operations table (``rules/operations.yaml``).
  Each has several forms: one per path through earlier ``if`` statements (an optional mask, a training-only
  dropout), the form as written, and, in a loop, the per-step term of an accumulation (``total = total + term``,
  ``losses.append(term)``). Where live code calls ``backward()``, the gradient autograd gives a trained parameter
  that is the middle factor of a product (``W0 + s * (B @ R @ A)`` gives ``R.grad = s * B.T @ grad @ A.T``) is a
  candidate spanning that forward, unless live code sets or hooks that gradient (``autograd_gradients``): it is only
  ever equivalent, with every name following the hints, never a drift, a near candidate or an estimate's support.
  A local the glossary names (``ce``, ``attn_weights``) is also kept as a leaf, so that a
  formula naming that quantity matches; one code rebinds from itself (``q = rope(q)``, ``q = q / q.norm()``) also
  at its earlier bindings, for a formula that is not tiny (``CodeExpression.kept_forms``). The forms are also read
  the ways a formula may be written (``_readings``): a call of a submodule the glossary names as a leaf
  (``self.Q1(z)`` for ``Q1``, ``self.attn(h)`` for ``attn_out``), a name holding a reduction of a quantity as that
  reduction (``grad_sum`` as ``sum(grad)``, when the claim applies it), a masked mean as the mean,
  a mask inside an operation as 1 and the entries a mask selects, wherever they stand (``(values[mask != 0] *
  w).sum()``), as the array (``_unmasked``, when the claim names no mask), a loss negated when the
  statement maximises its quantity or it is a policy-gradient surrogate (``_negated``), numbered layers of the
  claim renamed to the code's layer calls by nesting depth (``_layers_variant``; a claim's one layer, or its
  placeholder, renamed to the code's one call in its place, ``_placeholder_variant``; a function of the claim's own
  renamed to the one the code calls spelled alike once normalised, ``GRU`` for ``self.gru``, ``_spelled_variant``;
  a claimed stack of layers,
  ``conv_stack``, written out
  as the code's chain of layer calls, ``_stacked_variant``, for an equivalent only), each branch of a conditional
  expression (never deciding a drift: a branch may be a boundary case), element reads as leaves (``ratings[i]``, or
  one step by name over whole axes, ``rewards[:, t]``, where the form's reads lay their axes out alike; one a step
  away only for a symbol named as shifted), and, for a formula without a mean, every mean read as its
  argument (a per-sample formula averaged over the batch). A sum divided by a name reads as a mean, and a mean of a
  sum as the mean of its terms, in the formula and the code alike (``_as_means``); in a formula a count (a symbol
  whose meaning names one) dividing a sum's terms is taken out of the sum first (``_counts_out``). A quantity the
  claim writes as a function of its own symbols (``KL(q_y, p_y)``) is also a leaf a local named after it holds
  (``_as_quantities``; inside a claim topped by a call too, ``sum(log(pr_b(x)))``, never the whole right-hand side),
  and a symbol whose glossary meaning opens with an activation follows a local bound to it, one whose meaning names
  draws of a law ("uniform draws") a local bound to a sampler of that law (``cal_data = rng.uniform(...)``), kept as
  a leaf (``_produced_variant``);
  a placeholder loss the statement names is written out, its placeholder model a prediction leaf (``_loss_filled``),
  and a claim that is a normal law (``q_t == Normal(m, v)``) is also read as the draw code samples it by,
  ``m + sqrt(v) * z`` with a standard-normal leaf ``z`` the usual noise names hint (``_drawn``), and a recursive
  equation (``V == R + gamma * V_next``: a right-hand symbol is the left-hand one a step away) also as its residual
  ``rhs - lhs``, the TD error code computes, where the statement names a method built on it (GAE, an advantage;
  ``_residual``): only ever equivalent, with every name following the hints, in the mechanism scope, and not where
  live code there binds the right-hand side with a named difference (a trained target that forgets gamma beside a
  logged TD error), never a drift, a near candidate or an estimate's support.
  Formulas of one SAU that build on each other are compared chained when one
  alone finds nothing, and a definition left undecided (``w == 1 / n``) is looked for inside each other formula
  reading its name, every definition of a name tried, never one live sites disagree on (``_chain``). The
  *mechanism scope* is the functions whose name, calls or assigned names match the SAU's mechanism keywords.
- A claimed equation ``lhs == rhs`` (or a function's definition, ``symexp(x) == sign(x) * ...``, named by the
  function) is compared through its right-hand side; its free symbols are renamed to the
  code's names consistently: the glossary's code-name hints first (``h`` may be ``x``, ``hidden``), then a bounded
  search over the candidate's other names. Numeric-stability constants of the code (a name like ``eps``, a number
  below 1e-4) that the formula does not have are read as 0, since adding them is the usual way to implement the
  formula; a name the glossary gives a claimed symbol (a noise ``z: [z, noise, eps]``, a finite difference's step)
  is that symbol where no other leaf follows the symbol's hints (``_without_stability``). Equivalence is tested by
  evaluation at fixed pseudo-random points, some of both signs (``rules.equivalence``). Candidates assigned to the
  left-hand name are tried first.
- **equivalent**: a candidate equals the formula under a renaming that follows the hints, or assigned to the
  equation's left-hand name, or in the mechanism scope with over half the names following the hints: the formula
  counts 1. A *tiny* formula (two operations or fewer) only at the binding the glossary ties to the claim: the
  left-hand name, or (without one) in the mechanism scope; there it may also be a factor of the binding whose other
  factors are a named scale (``u = self.W_u(h) * self.s_u`` for ``u == h @ W_u``: code applies the paper's next
  equation in the same line), never one beside a bare number (a changed constant). A formula that is one symbol
  (``theta_target == theta``) says only which name holds which: only at a binding of its left-hand name itself to
  another name (``_bound_as_claimed``), and even there counted, never settled on (an alias, ``ma_length = n_gram``,
  shows neither how the name is used nor that it is not rebound). In the mechanism scope, a *part*
  of a candidate (a term
  of a weighted sum, a softmax's argument) that equals a formula that is not tiny, with every name following the
  hints, counts too, and the reason names the part. A library call the repository runs, or a configuration key it
  reads (by name or through ``**cfg``), that realises the formula (``implementations`` in the operations table:
  ``clip_grad_norm_``, cosine schedules) counts 1; one whose built object must run (an optimizer applying a
  claimed gradient step: ``runs``) only where live code calls that method (``step``) on a name the call is bound
  to (``_built_and_run``). Candidates in test files are not implementations (a name there
  still keeps a SAU from being absent). A left-hand name made only of words every script binds (``loss``,
  ``val_loss``: ``_common_name``) ties the candidate's other names to the claim only when most of them follow the
  hints: a repository binds ``loss`` for a reconstruction, a teacher's fit or another model's error too, so such a
  match counts in the estimate but settles nothing.
- **drift**: no equivalent candidate, but a candidate assigned to the left-hand name, or returned by a function of
  the mechanism scope (for a tiny formula: one named after the mechanism), whose names all follow the hints and
  which translates completely (no opaque code in it), differs from the formula in a way we can name: the sign
  flipped, of the whole or of a part (counts 0: the claim is contradicted), a term or a factor missing or added, a
  function left out (a forgotten clamp), a power or a constant factor changed, a function replaced (softmax for
  sigmoid, an absolute error for a squared one) or a denominator replaced (counts 0.5: the mechanism is there with
  one element wrong). Not at a binding a later statement of the same function adds to (``loss = loss + lam * l2``,
  ``loss += ...``: ``_extended``): it holds a part of the value, and the term it lacks may be added there in a form
  not read.
- **absent**: nothing in the code (function, call, assignment, identifier or string it reads, configuration key) is
  named after the mechanism, no call keyword argument or configuration key switches it on (``_enabled_by_setting``),
  and nothing is assigned to the equation's left-hand names (as a whole name, or as the tokens of a longer one:
  ``cov_f`` holds ``cov``; one-letter names aside), and the formulas' search finds none of them computed: the SAU
  scores 0, settled (found only under one-letter names, ``u``, ``v``, it stays open). Left-hand names of a run's
  objective every script binds (``loss``, ``reward``: ``_objective_name``; not a layer's ``out``) do not keep it
  from being absent when no formula meets a candidate near it (``_nothing_alike``): that ``loss`` is another
  quantity (a mean squared error where the claim is a cross-entropy).
- **contradicted**: equivalent only in a function not named after the mechanism while a live function named after
  it computes the formula with a named difference: undecided (``_unless_contradicted``).
- **unreached**: equivalent only in functions the call graph calls dead (no entry point reaches them, not even
  through a guess), while no live candidate applies every function the formula applies (live code that does may
  compute it in a form not read here): implemented but never run, a trace (0.25, drift ``unused``), as D1 scores a
  config value that nothing reads.
- **ambiguous** otherwise, with the best candidates attached for the LLM fallback and an estimate from what the
  search found (``_estimate``). A live function the mechanism owns (``_owned``) whose whole body is a stub
  (``rules.d2_stubs``) caps the estimate at 0.25: the mechanism is not computed there. The estimate is below 1
  while a formula is undecided. A procedure without a formula (a target-network refresh) is estimated from its
  mechanism's names and its claimed values, decided as D1 decides them: never settled.

The SAU is settled when every formula is equivalent or drifted (score: mean of the counts, rounded to the scale,
drift ``method`` when one drifted) and its formulas cover the whole statement (``complete``), or when it is absent.
Beside formulas that all hold, the values the statement claims (``atoms``) and the named components, datasets and
metrics it claims (``scope``, ``datasets``, ``metrics``: a Gumbel-Softmax output, decided as D1 decides them,
``rules.d1_elements``) are one element each; a value or component not seen in live code (found nowhere, only in
dead code, or undecided) may be written out unnamed beside a computed formula, so it keeps the SAU open, counted 0.
A per-SAU budget of evaluation work (``OPERATION_BUDGET`` nodes evaluated, counted, never timed) ends the search as
ambiguous, so that a pathological expression cannot hang the run and the verdict does not depend on the machine. A
form met again within one formula's search, read the same way at a site of the same standing (a helper inlined in
many places), is not compared again: repeats would spend the budget other candidates need.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Callable, Collection, Container, NamedTuple, Sequence, cast

import sympy
from sympy.core.function import AppliedUndef

from extractors.expressions import CHOICE, CodeExpression, FunctionRecord, code_expressions
from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import (CALL, DEAD, HOOK, INSTANCE, INSTANTIATE, RUN, CallGraph, CallSite,
                                        Mention, module_name)
from extractors.facts import CONFIG, KEYWORD, RepositoryIndex
from extractors.formulas import (MISSING_OPERAND, SMALL_NUMBER, WHOLE_AXIS, FormulaError, parse_formula,
                                 small_value, successor_index)
from extractors.provenance import unpacked_passes
from extractors.sympy_graph import dag_nodes, dag_size, sprawls, substitute
from extractors.walk import is_test_path
from extractors.words import word_list
from rules import d1_elements, d1_numerical, equivalence, names, operations, trainable, traces
from rules.d2_stubs import overriding_methods, stub_evidence, stub_of
from rules.findings import FormulaFinding
from rules.findings import FormulaOutcome as Outcome
from sau.vocabulary import SAU, Atom, Drift, Evidence, Location, Status, Verdict, round_to_scale, share_score

RULE = "rule:d2-formula"

# evaluation work per SAU (nodes evaluated, and the size of every candidate form read: ``rules.equivalence.Budget``);
# past it the SAU is ambiguous. Counted, not timed, so that verdicts do not depend on the machine's load; three times
# the most any D2 SAU of the truth set's larger repositories spends (about 100,000 on ngpt), a few seconds of work
OPERATION_BUDGET = 300_000
MAX_FORM_NODES = 2000  # a candidate form with more distinct subexpressions is not compared
MAX_PARTS = 24  # subexpressions of a candidate tried against a formula
MAX_EDITS = 48  # single edits of a formula tried when naming a difference
MAX_RENAMINGS = 64  # renamings tried per candidate
MAX_SYMBOLS = 8  # a formula with more free symbols than this is renamed only through the hints
MAX_MODES = 12  # readings of one form through the modes of its helpers (``_modes``)
_STABILITY = word_list("stability_words", "rules")
_SHIFTS = word_list("shift_words", "rules")
_TERMINATION = word_list("termination_words", "rules")
_WEIGHT_ATTRIBUTES = word_list("weight_attributes", "rules")
_CONTINUATION = word_list("continuation_words", "rules")
_ORDINALS = {word: str(number) for number, word in enumerate(
    ("first", "second", "third", "fourth"), 1) if word in word_list("ordinal_words", "rules")}
_HOOKS = word_list("framework_hooks")  # methods a framework calls: what their class computes
TINY_OPERATIONS = 2  # a formula with at most this many operations (a / b, a * b * c, f(x)) matches much code by chance
_CANDIDATES_SHOWN = 3
# functions the translation itself introduces: never what a placeholder of the claim stands for
_STRUCTURAL = frozenset({"getitem", "matmul", "transpose", "clip", "where", "Abs", "floor", "Mod", "less",
                         "less_equal", "greater", "greater_equal", "equal", "not_equal"})



EQUIVALENT, UNREACHED, DRIFTED, UNKNOWN = Outcome.EQUIVALENT, Outcome.UNREACHED, Outcome.DRIFTED, Outcome.UNKNOWN
# SA-Bench's "only a trace" (ARCHITECTURE.md, the scale), as D1 scores a config value nothing reads
_UNREACHED_CREDIT = 0.25
_COUNTS = {EQUIVALENT: 1.0, DRIFTED: 0.5}


@dataclass
class FormulaResult:
    """The outcome for one claimed formula: ``outcome`` (equivalent / drift / unknown), the candidate behind it,
    ``difference`` (what differs, for a drift), ``credit`` (its count toward the SAU score) and ``near`` (the best
    candidates seen, for the LLM fallback)."""

    formula: str
    outcome: Outcome = UNKNOWN
    candidate: CodeExpression | None = None
    difference: str = ""
    credit: float = 0.0
    near: list[CodeExpression] = field(default_factory=list)
    part: sympy.Basic | None = None  # the subexpression of the candidate that matched, when not all of it
    # a near candidate whose names follow the glossary (all of them, or most for one equal to the formula): the
    # formula's quantities computed together, which a shape met by chance (any a - b * c) is not
    supported: bool = False
    # equivalent where only most of the names follow the glossary (``_accepted``): counted, never settled on
    tentative: bool = False


def check(sau: SAU, index: RepositoryIndex, budget: int = OPERATION_BUDGET) -> Verdict:
    """Decide a code-checkable D2 SAU against ``index`` within ``budget`` units of evaluation work
    (``rules.equivalence.Budget``). Never raises on odd code; a SAU whose formulas do not translate, or that carries
    no formula and no mechanism (a claim compiled from SA-Bench's prose: D2 has no compiler), is unresolved with
    score ``None``."""
    if not sau.checks.get("formulas") and not sau.checks.get("mechanism"):
        # nothing to look for: an absence decided here would rest on no name at all
        return Verdict(sau, None, Status.UNRESOLVED, "no formula or mechanism was given for this claim", RULE)
    table = operations.load()
    everywhere = index.analysis(candidates)
    records = [r for r in everywhere if not is_test_path(r.file)]  # tests check an implementation; they are not one
    keys = _mechanism_keys(sau.checks.get("mechanism", ()))
    scope = [r for r in records if _in_scope(r, keys)]
    glossary = sau.checks.get("glossary", {})
    formulas = sau.checks.get("formulas", ())
    named_in_code = any(_in_scope(r, keys) for r in everywhere) or any(_contains(keys, read) for read in index.reads) \
        or _named_joined(_joined_keys(sau.checks.get("mechanism", ())), index) \
        or _spelled_out(_acronym_letters(sau.checks.get("mechanism", ())), index) \
        or any(f.kind == CONFIG and _config_named(keys, f) for f in index.facts) \
        or _enabled_by_setting(index, keys, _glossary_names(glossary)) or _switched_on(index, keys)
    lhs_keys = set()
    parsed = []
    for text in formulas:
        try:
            expression = parse_formula(text, table)
        except FormulaError as error:
            return Verdict(sau, None, Status.UNRESOLVED, f"formula {text!r} does not translate: {error}", RULE)
        lhs, rhs = _sides(expression, table.operations)
        if lhs is not None:
            lhs_keys |= _hints(lhs.name, glossary)
        parsed.append((text, lhs, rhs))
    assigned = {c.target.rsplit(".", 1)[-1] for r in records for c in r.expressions}
    lhs_found = _assigned_to(lhs_keys, assigned)
    # no name of the mechanism, nor a left-hand name other than a generic one (u, v): absent, unless the search
    # below finds the formulas computed all the same under one-letter names
    unnamed = not named_in_code and not lhs_found and bool(keys)
    # the left-hand names code assigns are only names of a run's objective every script binds (loss, reward): the
    # formula's quantity is absent too when nothing computes anything like it (``_nothing_alike``)
    common_only = not named_in_code and bool(keys) and all(_objective_name(k) for k in lhs_found)
    if not parsed:
        # the values the statement claims (a target-update period, a prompt count) are what can be checked of a
        # procedure: decided as D1 decides them, each one element beside the procedure's own estimate
        atom_results = d1_numerical.decide_atoms(sau.atoms, index, sau.statement) if sau.atoms else []
        elements = d1_elements.results(sau, index)
        if unnamed and not _seen(atom_results, elements):
            return _absent(sau)
    dead = index.analysis(dead_functions)
    stubs = [(r, stub_of(r, index)) for r in records if stub_of(r, index) is not None and _owned(r, keys)
             and not dead(r)]
    if not parsed:
        named = ("its mechanism is named in " + _where(scope)) if not unnamed else \
            "no code is named after its mechanism, but code holds what the claim lists"
        reason = "a procedure without a formula: " + named + _claimed_notes(atom_results, elements)
        return _ambiguous(sau, [], scope, reason, index, named_in_code, stubs, atom_results=atom_results,
                          elements=elements)
    spent = equivalence.Budget(budget)
    results = []
    search = _Search(glossary, records, {id(r) for r in scope}, {id(r) for r in scope if _named(r, keys)},
                     spent, index.analysis(_profile_cache), index.analysis(dead_functions),
                     index.analysis(library_realisations), maximised=_maximised(sau.statement),
                     words=frozenset(names.words(" ".join((sau.statement, *sau.checks.get("mechanism", ()))))),
                     overriding=index.analysis(overriding_methods), gradients=index.analysis(autograd_gradients))
    try:
        for text, lhs, rhs in parsed:
            results.append(_compare(text, lhs, rhs, search))
        _chain(parsed, results, search)
    except equivalence.Exhausted:
        # what the search had found before it ran out stays in the reason, and which formula it stopped at
        pending = [text for text, _, _ in parsed[len(results):]]
        stopped = (f"operation budget of {budget} exhausted comparing {pending[0]}"
                   + (f" ({len(pending) - 1} more formula(s) not compared)" if len(pending) > 1 else "")
                   if pending else f"operation budget of {budget} exhausted chaining the formulas")
        return _ambiguous(sau, results, scope, "; ".join([*(_describe(r) for r in results), stopped]), index,
                          named_in_code, stubs)
    unmatched = all(r.outcome == UNKNOWN for r in results)
    realised = _realised_in_library(sau, index) if unmatched else None
    if realised is not None:
        return realised
    nothing = (unnamed or common_only and _nothing_alike(results)) and unmatched
    computed = _computed_unnamed(parsed, results, search) if nothing else None
    if nothing and computed is None:
        return _absent(sau, () if unnamed else lhs_found)
    if unnamed:  # found only under names the glossary cannot tie to the claim (u, v, p): open, never settled on it
        found = ""
        if computed is not None and computed[0] is not None:
            found = f"; live code computes {computed[0]} under the glossary's names at {computed[1].ref}: not absent"
        elif computed is not None:
            found = f"; the search for the formulas under the glossary's names ran out of budget at {computed[1].ref}" \
                    ": open"
        return _ambiguous(sau, results, scope, "; ".join(_describe(r) for r in results)
                          + "; nothing in the code is named after the mechanism" + found, index, named_in_code, stubs)
    reason = "; ".join(_describe(r) for r in results)
    # the values the statement claims beside its formulas (a width, a temperature), decided as D1 decides them:
    # each one more element of the claim (LABELLING.md: a compound claim scores the share that holds)
    atom_results = d1_numerical.decide_atoms(sau.atoms, index, sau.statement) if sau.atoms else []
    values = [o for _, outcomes in atom_results for o in outcomes]
    # the named components, datasets and metrics the statement claims beside its formulas (a Gumbel-Softmax output),
    # decided as D1 decides them: each one more element of the claim, present only in the code that computes them
    matched = [r.candidate for r in results if r.candidate is not None]
    # the formula's code, only for a SAU listing elements (the graph walk is work every other D2 SAU would pay)
    near = _code_of(matched, index.analysis(build_call_graph)) if matched and d1_elements.listed(sau) else None
    elements = _where_computed(d1_elements.results(sau, index, near), near)
    reason += _claimed_notes(atom_results, elements)
    # a live function the mechanism owns is a stub: an equivalent elsewhere (a second copy of the computation)
    # does not show the claimed mechanism runs, so the stub decides as when nothing matched
    if all(r.outcome != UNKNOWN for r in results) and not stubs:
        if not all(r.outcome == EQUIVALENT for r in results):
            # a formula that differs (a flipped objective) or runs nowhere is the claim's central element: it
            # decides alone, as before values were checked (LABELLING.md: contradicted where used is 0, a trace 0.25)
            values, elements = [], []
        # values and components count beside formulas that all hold: a value only a trace implements counts 0 there
        counted = d1_elements.counted(elements)
        score = share_score(sum(r.credit for r in results) + sum(d1_numerical.value_score(o, True) for o in values)
                            + sum(d1_elements.score(e, True) for e in counted),
                            len(results) + len(values) + len(counted))
        drift = Drift.METHOD if any(r.outcome == DRIFTED for r in results) else \
            Drift.UNUSED if any(r.outcome == UNREACHED for r in results) else \
            d1_numerical.values_drift([d1_numerical.shown_outcome(o) for o in values]) or \
            (Drift.METHOD if any(map(d1_elements.contradicted, elements)) else
             Drift.MISSING if any(e.outcome == d1_elements.ABSENT for e in elements) else None)
        tentative = any(r.tentative for r in results)
        # a value found nowhere may be computed unnamed (`nn.Linear(d, 4 * d)` for a width of 2048) or written in
        # another form: beside a formula the code computes, its absence is no proof (open, counted 0); so is a
        # component named nowhere (an activation written out) or named only where its role is undecided
        unseen = any(e.outcome != d1_elements.PRESENT and not d1_elements.contradicted(e) for e in elements)
        undecided = any(o.outcome in (d1_numerical.AMBIGUOUS, d1_numerical.ABSENT) for o in values) or unseen
        status = Status.SETTLED if sau.complete and not tentative and not undecided else Status.UNRESOLVED
        if not sau.complete:
            reason += "; the statement has elements no formula covers"
        if unseen:
            reason += ("; a claimed component not seen run by the code computing the formula may be written there "
                       "unnamed: not settled on it")
        if any(r.tentative and r.difference != _ALIAS for r in results):
            reason += "; some names of the matching code are not the glossary's"
        evidence = (_evidence(results, index),
                    d1_numerical.atom_evidence(atom_results, index) + d1_elements.evidence(elements, index))
        if drift is not None and all(r.outcome == EQUIVALENT for r in results):  # a value's drift: looked at first
            evidence = evidence[::-1]
        return Verdict(sau, score, status, reason, RULE, drift, evidence[0] + evidence[1],
                       _findings(results) + d1_numerical.atom_findings(atom_results) + d1_elements.findings(elements),
                       trace=traces.formulas(results, scope, index))
    return _ambiguous(sau, results, scope, reason, index, named_in_code, stubs, _stubbed(parsed, glossary, stubs),
                      atom_results, elements)


# the edges along which code runs code: calls, constructions, the methods a framework calls on an object, a script
_RUNS_EDGES = frozenset({CALL, INSTANTIATE, HOOK, INSTANCE, RUN})
_NEAR_CALLS = 4  # how many calls deep from the formula's function a claimed component still belongs to its code


def _where_computed(elements: list[d1_elements.ElementResult],
                    near: frozenset[str] | None) -> list[d1_elements.ElementResult]:
    """``elements`` (``d1_elements.results``) with each present one kept present only when some place it is run
    lies in ``near``, the code that computes the SAU's matched formulas (``_code_of``: their functions and the
    helpers inlined into them, what those run within ``_NEAR_CALLS`` calls, and the constructors of their classes,
    ``self.act = nn.ELU()`` for a ``forward`` computing the formula; ``None`` when no formula matched). Elsewhere
    (a baseline's Gumbel-Softmax, a demo script's, a configuration key) it is undecided: the claim is about the
    mechanism's own code; so is a parameter whose settings contradict the claim elsewhere (``_tied``). Unchanged
    when no formula matched (the elements then only count in an estimate)."""
    if near is None or not any(map(_tied, elements)):
        return elements
    kept = []
    for element in elements:
        # the places it plays its role: mentions in code (not a configuration key, not a message shown)
        places = [ref.scope for ref in element.refs if isinstance(ref, Mention) and ref.kind != "display"]
        if _tied(element) and not any(place in near for place in places):
            shown = element.refs[0].ref if element.refs else "elsewhere"
            element = replace(element, outcome=d1_elements.AMBIGUOUS,
                              note=f"run at {shown}, outside the code that computes the formula")
        kept.append(element)
    return kept


def _tied(element: d1_elements.ElementResult) -> bool:
    """Whether the element's decision holds only where the formula is computed: a present element, and a parameter
    whose settings contradict the claim (another model's tensor of that name is no contradiction). A tensor's
    settings count only there too (its definition in the constructor of the class computing the formula): a layer
    defined with frozen factors elsewhere may never be put into the model the optimizer trains."""
    return element.outcome == d1_elements.PRESENT or d1_elements.contradicted(element)


def _code_of(found: list[CodeExpression], graph: CallGraph) -> frozenset[str]:
    """The call-graph nodes whose code computes the candidates ``found`` (``_where_computed``): a candidate's
    innermost enclosing function, or its module's top level and ``__main__`` block for top-level code (empty when
    the graph holds neither: nothing then counts as near)."""
    by_file: dict[str, list] = {}
    for info in graph.functions.values():
        by_file.setdefault(info.file, []).append(info)
    start: set[str] = set()
    for candidate in found:
        enclosing = [f for f in by_file.get(candidate.where, ()) if f.line <= candidate.line <= f.end_line]
        if enclosing:
            start.add(max(enclosing, key=lambda f: f.line).qualname)
        else:
            module = module_name(candidate.file)
            start |= {node for node in (module, f"{module}.__main__") if node in graph.graph}
        start |= {q for q, info in graph.functions.items() for where, name in candidate.helpers
                  if info.file == where and (q == name or q.endswith("." + name))}
    near, frontier = set(start), set(start)
    for _ in range(_NEAR_CALLS):
        frontier = {t for node in frontier if node in graph.graph for t in graph.graph.successors(node)
                    if graph.graph.edges[node, t]["kind"] in _RUNS_EDGES} - near
        near |= frontier
    constructors = {f"{graph.functions[q].class_name}.__init__" for q in near
                    if q in graph.functions and graph.functions[q].class_name}
    return frozenset(near | constructors)


def _claimed_notes(atom_results: Sequence[tuple[Atom, list[d1_numerical.ValueOutcome]]],
                   elements: Sequence[d1_elements.ElementResult]) -> str:
    """The reason's clauses for the values (``"; values: ..."``) and the components (``"; components: ..."``) the
    statement claims beside its formulas, each as D1 notes it; empty for none."""
    notes = ""
    if atom_results:
        notes += "; values: " + "; ".join(d1_numerical.atom_note(atom, outcomes) for atom, outcomes in atom_results)
    if elements:
        notes += "; components: " + "; ".join(d1_elements.note(e) for e in elements)
    return notes


def _nothing_alike(results: list[FormulaResult]) -> bool:
    """Whether no formula met a candidate near it (``FormulaResult.near``: its shape with the glossary's names) nor
    one its names support: a ``loss`` the code binds then computes something else (a mean squared error where the
    claim is a cross-entropy), not the claim's quantity in a form not read."""
    return all(not r.near and not r.supported and r.candidate is None for r in results)


def library_models_built(index: RepositoryIndex) -> dict[str, tuple[CallSite | Mention, bool]]:
    """Analysis provider: for each family of library networks (``rules.operations.library_models``) the repository
    builds, where and whether live code builds it: a call outside the repository whose dotted name holds one of
    the family's ``calls`` (``torchvision.models.vit_b_16``, ``transformers.ViTModel.from_pretrained``), else a
    string starting with one of its ``names`` (after an ``org/``) in a repository that calls a factory
    (``timm.create_model("vit_base_patch16_224")``). The live place first, then the first in file order; tests
    left out."""
    families, factories = operations.library_models()
    graph = index.analysis(build_call_graph)
    found: dict[str, tuple[CallSite | Mention, bool]] = {}
    factory_called = False

    def keep(family: str, place: CallSite | Mention) -> None:
        live = _may_run_at(graph, place)
        if family not in found or live and not found[family][1]:
            found[family] = (place, live)

    for node in sorted(graph.graph.nodes):
        for site in graph.callees_in_order(node):
            if site.callee is not None or is_test_path(site.file):
                continue
            parts = set(site.target.split("."))
            factory_called = factory_called or bool(parts & factories)
            for family in families:
                if parts & family.calls:
                    keep(family.name, site)
    if factory_called:
        for text, mentions in sorted(graph.mentions_by_text().items()):
            model_id = text.rsplit("/", 1)[-1].lower()
            for family in families:
                if family.names and model_id.startswith(family.names):
                    for mention in mentions:
                        if mention.kind == "string" and mention.scope in graph.graph and not is_test_path(mention.file):
                            keep(family.name, mention)
    return found


def _realised_in_library(sau: SAU, index: RepositoryIndex) -> Verdict | None:
    """For a SAU whose spec names the library network families that realise it (``realised_by``: a claim about
    the standard architecture) and none of whose formulas the repository's own code was found to compute, the open
    verdict when the repository builds such a network (``library_models_built``): its code is the library's, not
    read, so the claim is never absent; estimated 1 where live code builds it, a trace (0.25) where only code that
    does not run does. ``None`` when the SAU names no family or none is built."""
    wanted = sau.checks.get("realised_by", ())
    if not wanted:
        return None
    built = index.analysis(library_models_built)
    hits = [(family, *built[family]) for family in wanted if family in built]
    if not hits:
        return None
    family, place, live = max(hits, key=lambda hit: hit[2])
    text = place.target if isinstance(place, CallSite) else repr(place.text)
    runs = "code that runs builds it" if live else "only code that does not run builds it: a trace"
    reason = (f"realised inside the library's {family} ({text} at {place.ref}), whose code is not read: not absent; "
              f"{runs}; not settled")
    evidence = (Evidence(place.file, place.line, place.end_line, index.snippet(place), "call", cell=place.cell),)
    return Verdict(sau, 1.0 if live else 0.25, Status.UNRESOLVED, reason, RULE, None if live else Drift.UNUSED,
                   evidence)


def _seen(atom_results: list, elements: list[d1_elements.ElementResult]) -> bool:
    """Whether code holds at least half of what a formula-less claim lists under its names: values bound to a name
    of their atom (``d1_numerical.decide_atoms`` outcomes matched, unused or stub) and elements present. The claim's
    model sizes bound in a configuration (24/32/40 layers, widths 768/1024/1280) are that procedure's trace at
    least, whatever names its variants go by, so its absence is not settled on the mechanism's names alone; one
    baseline's batch size of 32 or depth of 6 among eleven claimed settings, seen beside a repository's own model,
    or values seen only under other names, show nothing of it."""
    held = (d1_numerical.MATCHED, d1_numerical.UNUSED, d1_numerical.STUB)
    outcomes = [o.outcome in held for _, found in atom_results for o in found]
    outcomes += [e.outcome == d1_elements.PRESENT for e in elements]
    return bool(outcomes) and 2 * sum(outcomes) >= len(outcomes)


def _absent(sau: SAU, common: Collection[str] = ()) -> Verdict:
    """The settled verdict of a mechanism the code neither names nor computes (module docstring, **absent**);
    ``common``: the left-hand names code assigns, each one naming a run's objective (``_objective_name``)."""
    shown = ", ".join(sau.checks.get("mechanism", ()))
    assigned = "nothing is assigned to the formula's left-hand names" if not common else (
        f"what code assigns to {', '.join(sorted(common))} computes nothing like the formula")
    return Verdict(sau, 0.0, Status.SETTLED, f"absent: nothing in the code is named after the mechanism ({shown}) "
                   f"and {assigned}", RULE, Drift.MISSING)


def _computed_unnamed(parsed: list, results: list[FormulaResult],
                      search: _Search) -> tuple[sympy.Basic | None, CodeExpression] | None:
    """(the part, the candidate) of the first live candidate outside any test that computes a formula's right-hand
    side, whole or as a part (``_part_equals``: every name following the glossary hints, ``alpha_s`` and
    ``alpha_t`` in ``k = n * (alpha_s - alpha_t) / (1 - alpha_t)``), for a SAU whose mechanism the code never names;
    else ``None``. Such code computes the claim's own quantities under the paper's names in a function named
    otherwise (``_calculate_k``): the mechanism is not absent, so the SAU is never settled absent; the formula
    counts as supported in the estimate (``FormulaResult.supported``). Only candidates reading a hinted name for
    every symbol of the formula are compared; a budget run out leaves the SAU open too: (``None``, the candidate
    being compared)."""
    plain = _Claimed(frozenset(), frozenset())
    for (_, _, rhs), result in zip(parsed, results):
        claim = _claim(rhs, search.glossary) if rhs is not None else None
        if claim is None or not claim.symbols:
            continue
        hints = [frozenset(k for h in claim.hints[s] for k in _name_keys(h)) for s in claim.symbols]
        kept = frozenset().union(*hints)
        # a local the glossary names, read as the leaf the formula names
        keep = partial(_named_local, kept=kept)
        for record in search.records:
            if search.dead(record):
                continue
            for candidate in record.expressions:
                # the shared graph's leaves (``_free``): sympy's ``free_symbols`` walks the printed tree
                names_read = {*(leaf.name for leaf in _free(candidate.expression)), *candidate.locals_read}
                if not all(any(_named_local(n, hinted) for n in names_read) for hinted in hints) \
                        or search.dead(record, candidate):
                    continue
                for form in candidate.forms() + _kept_forms(candidate, kept, keep, search.cache):
                    code = _profile(candidate, form, False, plain, search.cache, search.budget)[0]
                    try:
                        part = next((p for p in _parts(_WHOLE(code)) if _part_equals(claim, p, search.budget)), None)
                    except equivalence.Exhausted:
                        return None, candidate
                    if part is not None:
                        result.supported = True
                        _add_near(result, candidate)
                        return part, candidate
    return None


def _named_local(name: str, kept: frozenset[str]) -> bool:
    """Whether a code name (its last component, an element read by its array) meets one of the glossary keys
    ``kept`` (``_glossary_named``)."""
    return _glossary_named(_indexed(name.rsplit(".", 1)[-1]), kept)


# a form wrapped in it is a part of the wrapper, with its own sums and products less a term (``_parts``)
_WHOLE = sympy.Function("<whole>")


# -- one formula ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Claim:
    """A claimed right-hand side prepared for comparison: its values at the test points, free symbols, function
    names, the glossary hints of each symbol, whether it is tiny and whether its value depends on signs."""

    rhs: sympy.Basic
    values: tuple[complex | None, ...]
    symbols: tuple[sympy.Symbol, ...]
    functions: frozenset[str]
    hints: dict
    tiny: bool
    signs: bool = False


def _claim(rhs: sympy.Basic, glossary: dict) -> _Claim | None:
    values = equivalence.values(rhs)
    if values is None:
        return None
    symbols = tuple(sorted(_free(rhs), key=lambda s: s.name))
    return _Claim(rhs, tuple(values), symbols, frozenset(_functions(rhs)),
                  {s: _hints(s.name, glossary) for s in symbols}, sympy.count_ops(rhs) <= TINY_OPERATIONS,
                  equivalence.sign_sensitive(rhs))


@dataclass
class _Search:
    """What the comparison of every formula of one SAU shares: the glossary, the candidates' records, the ids of
    the records in the mechanism scope and of those named after the mechanism, the work budget, the profile cache
    and the dead-code predicate."""

    glossary: dict
    records: list[FunctionRecord]
    scope: set[int]
    named: set[int]
    budget: equivalence.Budget
    cache: dict
    dead: Callable[..., bool]  # (record, candidate=None) -> bool: ``dead_functions``
    realised: dict = field(default_factory=dict)  # library implementation name -> where it is realised
    # (claim, function) -> the claim with its placeholder function renamed (``_placeholder_variant``): one glossary
    placeholders: dict = field(default_factory=dict)
    maximised: bool = False  # the statement says its quantity is maximised (``_maximised``)
    words: frozenset[str] = frozenset()  # the words of the statement and the mechanism keywords
    # (class, method) of the methods that override a repository base class's (``d2_stubs.overriding_methods``)
    overriding: frozenset[tuple[str, str]] = frozenset()
    # (file, class) of the candidates an earlier formula of the SAU was found equivalent at: the SAU's other
    # formulas are looked for there first (nGPT's MLP computes u and nu; its attention has a W_v too)
    found_in: set = field(default_factory=set)
    # (record, candidate) of the gradients autograd gives trained parameters (``autograd_gradients``)
    gradients: tuple = ()

    def own_classes(self) -> frozenset[str]:
        """The names of the repository's own classes that have methods (last components): a submodule built from
        one of them is the repository's code, not a library layer."""
        if "own classes" not in self.cache:
            self.cache["own classes"] = frozenset(r.qualname.rsplit(".", 1)[0].rsplit(".", 1)[-1]
                                                  for r in self.records if "." in r.qualname)
        return self.cache["own classes"]

    def variant(self, record: FunctionRecord) -> bool:
        """``record`` overrides a method of a repository base class: a variant (an ablation, a baseline) of the
        base's, which is what runs by default."""
        owner, _, method = record.qualname.rpartition(".")
        return bool(owner) and (owner.rsplit(".", 1)[-1], method) in self.overriding


def _compare(text, lhs, rhs, search: _Search, whole: frozenset[sympy.Basic] = frozenset()) -> FormulaResult:
    """The outcome of one formula ``lhs == rhs`` over the candidates of ``search`` (module docstring); ``whole``:
    the right-hand sides of other formulas put in (``_chain``), never read as quantities (``_quantity_calls``)."""
    result = FormulaResult(text)
    if rhs is None:
        result.difference = "not a definition (the left-hand side is an expression)"
        return result
    rhs = _as_means(_counts_out(rhs, search.glossary))
    # the claim's own quantities written as functions (KL(q_y, p_y)): also read as leaves named after them
    quantities = _quantity_entries(rhs, whole)
    filled, models = _loss_filled(rhs, search.words)  # a placeholder loss the statement names, its model a leaf
    glossary = {**quantities, **{m: {"meaning": m, "code_names": sorted(_PREDICTIONS)} for m in models
                                  if m not in search.glossary}, **search.glossary}
    drawn, noise = _drawn(rhs, glossary)  # a normal law, also read as its draw with a noise leaf
    glossary = {**glossary, **noise}
    base = _claim(rhs, glossary)
    if base is None:
        result.difference = "the formula cannot be evaluated at the test points"
        return result
    quantity = _claim(_as_quantities(rhs, whole), glossary) if quantities else None
    named_loss = _claim(filled, glossary) if filled is not None else None
    sampled = _claim(drawn, glossary) if drawn is not None else None
    # the claim's placeholders read out, and its law read as a draw
    rewritten = tuple(c for c in (quantity, named_loss, sampled) if c is not None)
    keeps_small = any(0 < abs(n) <= SMALL_NUMBER for n in rhs.atoms(sympy.Number))
    # the claimed symbols' own keys, and the hints of each one the glossary names with a stability word (``dp: [dp,
    # eps]``, a noise ``z: [z, noise, eps]``): such a leaf is that symbol, not a stability constant
    claimed_keys = _Claimed(frozenset(_leaf_key(s) for s in base.symbols),
                            frozenset(frozenset(hints) for c in (base, *rewritten) for hints in c.hints.values()
                                      if set(hints) & _STABILITY))
    lhs_hints = _hints(lhs.name, glossary) if lhs is not None else set()
    lhs_tokens = [frozenset(h.split("_")) for h in sorted(lhs_hints)]  # q_raw holds q: tied to the claim too
    kept_names = frozenset(k for s in base.symbols + (quantity.symbols if quantity else ())
                           + (sampled.symbols if sampled else ())
                           for n in glossary.get(s.name.split(".")[0], {}).get("code_names", ())
                           for k in _name_keys(n.rsplit(".", 1)[-1]))

    table = operations.load()
    specific = table.activations | frozenset(table.operations)
    specific_names = specific | {"getitem", "matmul", "transpose", "mean", "sum", "prod", "max", "min", "clip", "where"}

    def keep(name: str) -> bool:  # a local the glossary names: also read as the leaf the formula names
        return _named_local(name, kept_names)

    quantity_keys = frozenset(k for entry in quantities.values() for n in entry["code_names"] for k in _name_keys(n))

    def quantity_named(name: str) -> bool:  # a local named after a quantity the claim writes as a call
        return _glossary_named(name.rsplit(".", 1)[-1], quantity_keys)

    # a claim that names no mask: a mask in the code only leaves out padded positions (``_unmasked``)
    claimed = base.functions | (frozenset({_MASKED}) if any(_MASK_WORDS & set(h.split("_"))
                                                            for hs in base.hints.values() for h in hs) else frozenset())
    # a claim that names the end of an episode: the code's done factors are its own (``_continued``)
    if any(_TERMINATION & set(names.words(h)) for hs in base.hints.values() for h in hs):
        claimed |= {_TERMINATED}
    # the claim's own uninterpreted functions and how many arguments it gives each (attn(h), mlp(h))
    applied = frozenset((f.func.__name__, len(f.args)) for f in _nodes(rhs) if isinstance(f, AppliedUndef)
                        and f.func.__name__ not in specific_names)
    # an objective the statement maximises, whose glossary names a loss: a loss minimised is its negative
    meaning = str(search.glossary.get(lhs.name, {}).get("meaning", "")) if lhs is not None else ""
    objective = (search.maximised or _surrogate(search.words, meaning, rhs)) \
        and any(_LOSS in h.split("_") for h in lhs_hints)

    def readings(candidate: CodeExpression, forms: tuple, modes: bool = True) -> tuple[tuple, frozenset]:
        """The candidate's forms and readings (``_readings``; the modes of its helpers only with ``modes``),
        negated for a loss of a maximised objective."""
        found, branches = _readings(forms, claimed, kept_names, applied, modes)
        companions = _variants(found, lambda form: _companions_read(form, hint_keys))
        found = found + companions
        if branches:  # a companion read of a branch or mode is taken too
            branches = branches | frozenset(_variants(tuple(branches), lambda form: _companions_read(form, hint_keys)))
        if objective and _loss_named(candidate):
            return tuple(_negated(f) for f in found), frozenset(_negated(f) for f in branches)
        return found, branches

    hint_keys = frozenset(h for hs in base.hints.values() for h in hs)
    produced = _produced_by(base.symbols + (quantity.symbols if quantity else ()), glossary)
    weights = _weights(rhs, base.hints, glossary)
    orientations = _orientations(base, glossary) + rewritten
    # a recursive equation (``V == R + gamma * V_next``) also read as its residual, the TD error code computes, where
    # the statement names a method built on it: only ever an equivalent, with every name following the hints, in the
    # mechanism scope, unless live code there binds the right-hand side with a named difference (``_residual``)
    residual = _residual(lhs, base, glossary, search.words)
    variants: dict = {}
    drift_seen: FormulaResult | None = None
    unreached: FormulaResult | None = None  # an equivalent in dead code, kept in case no live one turns up
    # an equivalent in live code that nothing ties to the claim (not accepted), as many of its names following the
    # glossary as the dead equivalent's (or most), shows the computation runs: the dead one is no trace only then
    # (a shape shared by other terms, named otherwise, is no such computation)
    live_hinted, unreached_hinted = -1, 0
    # live code applying every function the formula applies, three or more (a softmax and its products: a sum alone
    # is everywhere), may compute it in a form not read here (a joint text-visual attention beside a dead plain one):
    # a dead equivalent is then no proof that only a trace of the formula exists
    live_shaped = False
    shaped = not base.tiny and len(base.functions) >= _SHAPE_FUNCTIONS
    # candidates assigned to the formula's left-hand name first, then those of live functions, then those of
    # functions named after the mechanism: of two equivalent lines, the one the glossary ties to the claim, or else
    # the one an entry point runs in the mechanism's own code, is the evidence (not the first file by name)
    # a method overriding a repository base class's (an ablation's) after the base's, which runs by default
    ordered = sorted(((record, candidate) for record in search.records for candidate in record.expressions),
                     key=lambda pair: (not _glossary_named(pair[1].target.rsplit(".", 1)[-1], lhs_hints),
                                       search.dead(*pair), search.variant(pair[0]), id(pair[0]) not in search.named,
                                       _owner(pair[1]) not in search.found_in))

    def drift_check(record: FunctionRecord, candidate: CodeExpression, parts: bool = False) -> FormulaResult | None:
        """The named difference of one candidate where a drift may be decided (as in the search below), or None;
        with ``parts``, also of a part of it whose names all follow the glossary (``huber(Q1, y)`` in
        ``huber(Q1, y) + huber(Q2, y)``): enough to contradict another site, never to decide a drift."""
        last = candidate.target.rsplit(".", 1)[-1]
        claimed_name = _glossary_named(last, lhs_hints)
        if not (id(record) in search.scope or (claimed_name and not names.is_generic(last))) \
                or not (claimed_name or candidate.target == "return") or search.dead(record, candidate) \
                or _extended(record, candidate, search.cache):
            return None
        tied = claimed_name or _contains(lhs_tokens, last) or (candidate.target == "return" and id(record) in search.named)
        forms, branches = readings(candidate, candidate.forms(), False)  # a mode never decides a drift
        for form, read in itertools.product(forms, (base, *rewritten)):
            code, leaves, functions, opaque, _ = _profile(candidate, form, keeps_small, claimed_keys, search.cache,
                                                          search.budget)
            claim = _layer_variant(read, weights, functions, glossary, variants) if weights else read
            claim = _spelled_variant(claim, functions, table, glossary, search.placeholders)
            claim = _layers_variant(claim, code, functions, table, glossary, search.placeholders)
            claim = _placeholder_variant(claim, functions, table, glossary, search.placeholders)
            if leaves and not opaque and (tied or not claim.tiny) and form not in branches:
                found = _drift(text, candidate, code, leaves, claim, FormulaResult(text), None, specific,
                               search.budget)
                if found is not None:
                    return found
        if parts and kept_names:  # a local the glossary names kept as a leaf (``rewards`` for r_t), as when matching
            forms, branches = readings(candidate, candidate.forms() + _kept_forms(
                candidate, kept_names, keep, search.cache, quantity_named, not base.tiny), False)
        profiles = [(code, opaque) for form in (forms if parts else ()) if form not in branches
                    for code, _, _, opaque, _ in (_profile(candidate, form, keeps_small, claimed_keys, search.cache,
                                                           search.budget),)]
        if any(not opaque and _part_equals(base, code, search.budget) for code, opaque in profiles):
            # the whole computes the formula (-mean(log(sigmoid(d))) for -log(sigmoid(d))): a part of it that
            # differs (the log-sigmoid, negated) is no other site's drift
            return None
        for code, opaque in profiles:
            for part in () if opaque else _parts(code):
                found = _part_drift(text, candidate, part, base, specific, search.budget)
                if found is not None:
                    return found
        return None

    def contradicts(record: FunctionRecord, candidate: CodeExpression, named: bool) -> bool:
        """Whether ``candidate`` may contradict an equivalent elsewhere (``named``: in a function named after the
        mechanism): a binding of the formula's left-hand name (not a generic one), and, against an equivalent not
        named so, what a function named after the mechanism computes; against one named so, only a binding in a
        function not named so; never a variant (an override)."""
        last = candidate.target.rsplit(".", 1)[-1]
        bound = _glossary_named(last, lhs_hints) and not names.is_generic(last)
        if named:  # a paper's attention and a baseline's are both named after the mechanism
            return bound and not search.variant(record) and id(record) not in search.named
        return not search.variant(record) and (bound or id(record) in search.named)

    def target_differs() -> bool:
        """Whether live code of the mechanism scope binds the claimed right-hand side (the target ``r + gamma *
        V_next``) with a named difference, every name following the hints: a trained target that forgets gamma
        beside a TD error only logged. A residual computed elsewhere is then no proof of the equation. Computed
        once per formula."""
        if "differs" not in found_target:
            found_target["differs"] = any(
                _drift(text, other, code, leaves, base, FormulaResult(text), None, specific, search.budget) is not None
                for record in search.records if id(record) in search.scope and not search.dead(record)
                for other in record.expressions if not search.dead(record, other)
                for code, leaves, _, opaque, _ in (_profile(other, form, keeps_small, claimed_keys, search.cache,
                                                            search.budget) for form in other.forms())
                if leaves and not opaque)
        return found_target["differs"]

    found_target: dict[str, bool] = {}
    # a form met again with the same reading of the claim and at a site of the same standing (a helper inlined in
    # many places, ``x = x.to(dtype); return x`` after the line that computed x) decides nothing new: it is read once
    # per formula, so that repeated forms do not spend the budget that other candidates need. Only the nearest
    # candidates shown can differ: the repeat is not listed beside the first
    tried: set = set()
    parted: set = set()
    for record, candidate in ordered:
        in_scope = id(record) in search.scope
        dead = search.dead(record, candidate)  # no run reaches the function, or the arm holding the line
        last = candidate.target.rsplit(".", 1)[-1]
        claimed_name = _glossary_named(last, lhs_hints)  # assigned to the formula's left-hand name
        on_target = claimed_name and not names.is_generic(last)
        relevant = in_scope or on_target
        # where a drift, or a tiny formula, may be decided: the claimed name, or what a function named after the
        # mechanism returns (a tiny formula with a left-hand name only at that name)
        tied = claimed_name or _contains(lhs_tokens, last) or (candidate.target == "return"
                                                               and id(record) in search.named)
        drawn = _drawn_locals(candidate, produced, search.cache) if produced else frozenset()
        forms = candidate.forms() + (_kept_forms(candidate, kept_names, keep, search.cache, quantity_named,
                                                 not base.tiny, drawn) if kept_names or drawn else ())
        # modes only where the formula may be decided or at its left-hand name (generic too: v for nu_s): they
        # multiply the forms to evaluate
        forms, branches = readings(candidate, forms, relevant or claimed_name)
        # what decides a form's outcome besides the form and the claim's reading: the site's standing, and the
        # locals ``_produced_variant`` reads off the candidate (bound to a symbol's activation or law)
        standing = (relevant, claimed_name, on_target, tied, candidate.target == "return", dead,
                    tuple(_bound_to(candidate, operation, search.cache) for operation in produced.values()))
        for form, oriented in itertools.product(forms, (base, *orientations, *residual)):
            key = (form, id(oriented), form in branches, standing)
            if key in tried:
                continue
            tried.add(key)
            code, leaves, functions, opaque, signs = _profile(candidate, form, keeps_small, claimed_keys,
                                                              search.cache, search.budget)
            live_shaped = live_shaped or (shaped and base.functions <= functions and not dead)
            claim = _layer_variant(oriented, weights, functions, glossary, variants) if weights else oriented
            claim = _spelled_variant(claim, functions, table, glossary, search.placeholders)
            claim = _layers_variant(claim, code, functions, table, glossary, search.placeholders)
            claim = _placeholder_variant(claim, functions, table, glossary, search.placeholders)
            claim = _produced_variant(claim, produced, candidate, search.cache) if produced else claim
            # a branch of a conditional expression may be a boundary case (0 at the last step): never a drift
            if relevant and (claimed_name or candidate.target == "return") and leaves and not opaque \
                    and (tied or not claim.tiny) and form not in branches and oriented not in residual:
                drift_seen = _drift(text, candidate, code, leaves, claim, result, drift_seen, specific,
                                    search.budget, decide=not dead and not _extended(record, candidate, search.cache))
            found = _match(claim, code, leaves, functions, signs, search.budget)
            if found is None and not opaque:  # a stack of layers written out: only ever equivalent (never a drift)
                stacked = _stacked_variant(claim, code, functions, table, glossary, search.placeholders,
                                           record.built, search.own_classes())
                if stacked is not claim:
                    found = _match(stacked, code, leaves, functions, signs, search.budget, hinted_only=True)
                    claim = stacked if found is not None else claim
            factor = None
            if found is None and claim.tiny and claimed_name and not opaque and form not in branches:
                factor = _scaled_factor(claim, code, search.budget)
                found = None if factor is None else len(claim.symbols)
            if found is None:
                continue
            hinted = found
            if oriented in residual and (hinted < len(claim.symbols) or not in_scope or target_differs()):
                continue  # the residual reading is never a near candidate nor an estimate's support
            if hinted != CROSSED and _accepted(claim.tiny, hinted == len(claim.symbols), hinted * 2 > len(claim.symbols),
                                               relevant, on_target, tied, lhs is not None) \
                    and _bound_as_claimed(claim, code, candidate, on_target):
                if not dead:
                    result.outcome, result.candidate, result.credit, result.part = EQUIVALENT, candidate, 1.0, factor
                    # a name the glossary does not tie to its symbol may be another quantity of the same shape
                    # (W_0 read off ``last_hidden_state``): the match counts, but settles nothing
                    # a binding of the claimed name ties the code's names to the claim's, unless that name is one
                    # every script binds (loss: a validation metric, a reconstruction or a teacher's fit is one too)
                    # and most of the names are not the glossary's
                    result.tentative = hinted < len(claim.symbols) and not (
                        on_target and (hinted * 2 > len(claim.symbols) or not _common_name(last)))
                    if isinstance(claim.rhs, sympy.Symbol):  # an alias (``_bound_as_claimed``): never settled on
                        result.tentative, result.difference = True, _ALIAS
                    if oriented in residual:
                        result.difference = f"computed as its residual {oriented.rhs}"
                    search.found_in.add(_owner(candidate))
                    return _unless_contradicted(result, ordered, drift_check, contradicts, id(record) in search.named)
                if unreached is None:
                    where = ("in a function no entry point reaches" if search.dead(record)
                             else "in an `if` arm no run takes: its test has one value in every run")
                    unreached = FormulaResult(text, UNREACHED, candidate, where, _UNREACHED_CREDIT)
                    unreached_hinted = hinted
            elif not dead and not claim.tiny:
                live_hinted = max(live_hinted, hinted)
            if dead and _live_helper(candidate, search):
                # the dead line computes it through a helper live code calls too (p_mean_variance, never run,
                # calls predict_xstart_from_noise, which the sampler runs): the computation is no trace only
                live_hinted = max(live_hinted, hinted)
            _add_near(result, candidate)
            result.supported |= hinted * 2 > len(claim.symbols) and not dead
        # a part, unless the whole already differs from the formula in a named way (-(w @ v) holds w @ v)
        if relevant and not base.tiny and not dead \
                and (drift_seen is None or drift_seen.candidate is not candidate) and forms not in parted:
            parted.add(forms)  # the parts of the same forms match the same way at any live site in scope
            part = _part_match(candidate, forms, base, keeps_small, claimed_keys, search)
            if part is not None:
                result.outcome, result.candidate, result.credit, result.part = EQUIVALENT, candidate, 1.0, part
                return _unless_contradicted(result, ordered, drift_check, contradicts, id(record) in search.named)
    # a gradient autograd computes (``autograd_gradients``) is only ever equivalent, with every name following the
    # glossary where the formula may be decided: never a drift, a near candidate or an estimate's support
    for record, candidate in search.gradients:
        last = candidate.target.rsplit(".", 1)[-1]
        claimed_name = _glossary_named(last, lhs_hints)
        on_target = claimed_name and not names.is_generic(last)
        tied = claimed_name or _contains(lhs_tokens, last)
        for form, oriented in itertools.product(candidate.forms(), (base, *orientations)):
            code, leaves, functions, opaque, signs = _profile(candidate, form, keeps_small, claimed_keys,
                                                              search.cache, search.budget)
            if opaque or _match(oriented, code, leaves, functions, signs, search.budget,
                                hinted_only=True) != len(oriented.symbols) \
                    or not _accepted(oriented.tiny, True, True, id(record) in search.scope or on_target, on_target,
                                     tied, lhs is not None):
                continue
            result.outcome, result.candidate, result.credit = EQUIVALENT, candidate, 1.0
            result.difference = f"the gradient backward() gives {candidate.target.rsplit('.', 1)[0]} through its use"
            return _unless_contradicted(result, ordered, drift_check, contradicts, id(record) in search.named)
    live_equal = live_hinted >= unreached_hinted or live_hinted * 2 > len(base.symbols)
    return _library(text, base, search) or drift_seen or (None if live_equal or live_shaped else unreached) or result


_COMMON_RESULTS = word_list("common_result_words", "rules")
_OBJECTIVE_RESULTS = word_list("objective_result_words", "rules")
_QUALIFIERS = word_list("qualifier_words", "rules")


def _common_name(name: str) -> bool:
    """Whether a code name is made only of words every training or evaluation script binds for its own quantities
    (``loss``, ``val_loss``, ``total_reward``: ``common_result_words``, qualifiers aside)."""
    return _made_of(name, _COMMON_RESULTS)


def _objective_name(name: str) -> bool:
    """Whether a code name is made only of words naming a run's objective (``loss``, ``val_loss``, ``reward``:
    ``objective_result_words``, qualifiers aside), not a layer's output (``out``)."""
    return _made_of(name, _OBJECTIVE_RESULTS)


def _made_of(name: str, vocabulary: frozenset[str]) -> bool:
    words = set(names.words(name)) - _QUALIFIERS
    return bool(words) and words <= vocabulary


def _extended(record: FunctionRecord, candidate: CodeExpression, cache: dict) -> bool:
    """Whether a later statement of the same function adds to the candidate's binding (``loss = loss + lam * l2``,
    ``loss += lam * l2``): the candidate holds a part of the value, so a term it lacks may be added there (in a form
    not read: a penalty summed over the parameters) and no difference of the part is a drift. A later statement
    that only transforms it (``loss_vlb = loss_vlb / n``) adds no term: the part's missing term stays missing.
    ``cache`` (the profile cache, as long as the candidates live) keeps each record's answer."""
    key = ("extended", id(record))
    if key not in cache:
        # the last line of each name that adds to it: a binding of that name above it is extended
        last: dict[str, int] = {}
        for c in record.expressions:
            if c.target != "return" and _adds_to(c.target, c.text):
                last[c.target] = max(last.get(c.target, 0), c.line)
        cache[key] = last
    return candidate.line < cache[key].get(candidate.target, 0)


def _adds_to(name: str, statement: str) -> bool:
    """Whether ``statement`` adds to ``name``: ``name += ...``, ``name -= ...``, or a value ``name + ...``,
    ``name - ...`` or ``... + name``."""
    target, _, value = statement.partition("=")
    if target.rstrip().endswith(("+", "-")):  # an augmented assignment: its target is the name
        return True
    value = value.strip()
    if value.startswith(name) and value[len(name):len(name) + 1] in (" ", "+", "-"):
        return value[len(name):].lstrip()[:1] in ("+", "-")
    head = value.rpartition(name)[0].rstrip()
    return value.endswith(name) and head[-1:] in ("+", "-") and bool(head[:-1].strip())


def _live_helper(candidate: CodeExpression, search: "_Search") -> bool:
    """Whether one of the repository helpers the candidate's statement inlined (``CodeExpression.helpers``) is a
    function live code reaches."""
    if not candidate.helpers:
        return False
    wanted = set(candidate.helpers)
    return any((r.source_key, r.qualname) in wanted and not search.dead(r) for r in search.records)


# the count of a formula that one live site computes and another contradicts: partly implemented (SA-Bench's 0.5)
_CONTRADICTED_CREDIT = 0.5


def _unless_contradicted(result: FormulaResult, ordered, drift_check, contradicts, named: bool) -> FormulaResult:
    """``result`` (an equivalent candidate, ``named`` when in a function named after the mechanism), unless another
    live site that ``contradicts(record, candidate, named)`` admits computes the formula (or, a part of it, a term
    of a sum) with a named difference: a live function named after the mechanism against a copy not named so
    (``BradleyTerry.win_prob`` flips a sign that a report's copy has right), or another binding of the formula's
    own left-hand name (a trainer's ``sigma_t`` against an evaluator's). Then the code contradicts itself, the
    formula stays undecided, and its estimate is ``_CONTRADICTED_CREDIT`` with both sites as the nearest
    candidates. A paper's attention and a baseline's are both named after the mechanism, and the baseline may
    differ: a function so named contradicts only a copy not named so, and an equivalent in one is contradicted only
    by a binding outside such functions; a generic name (a baseline's ``out``) and an
    override of a repository base class's method (an ablation) contradict nothing."""
    equivalent = result.candidate
    assert equivalent is not None  # an equivalent result holds its candidate
    other = None
    for other_record, candidate in ordered:
        if candidate.function == equivalent.function or not contradicts(other_record, candidate, named):
            continue
        other = drift_check(other_record, candidate, True)
        if other is not None:
            break
    if other is None or other.candidate is None:
        return result
    return FormulaResult(result.formula, UNKNOWN, None,
                         f"live sites disagree: {equivalent.ref} computes it, {other.candidate.ref} differs "
                         f"({other.difference})", _CONTRADICTED_CREDIT, [other.candidate, equivalent])


_MEAN = sympy.Function("mean")
_SUM = sympy.Function("sum")


def _kept_forms(candidate: CodeExpression, kept: frozenset[str], keep: Callable[[str], bool],
                cache: dict, quantity: Callable[[str], bool] | None = None, stages: bool = True,
                drawn: frozenset[str] = frozenset()) -> tuple:
    """``candidate.kept_forms(keep, stages)``, where ``keep`` accepts exactly the names whose normalised last
    component is in ``kept``, and those of ``drawn`` (``_drawn_locals``): computed once per candidate, set of its
    locals kept (``CodeExpression.locals_read``) and ``stages``, whichever formula asks (``cache`` lives in the
    index, as ``_profile``'s). Of the locals
    ``quantity`` accepts (named after a quantity the claim writes as a call, ``_quantity_entries``), one computed from
    another (``kl_term = kl_weight * kl_loss``) is expanded: the quantity is the inner one, the outer a weighted term
    of it. ``stages`` (the earlier stages of a local rebound from itself) is for a formula that is not tiny: a tiny
    one (``y == E(x)``) matches some stage of any chain of layer calls (``x = conv_out(x)``) by chance."""
    chosen = frozenset(name for name in candidate.locals_read if keep(name) or name in drawn)
    if quantity is not None and chosen:
        named = frozenset(name for name in chosen if quantity(name))
        chosen -= _outer_locals(candidate, named)
    if not chosen:  # no local kept: no source reaches one
        return ()
    key = ("kept", id(candidate), chosen, stages)
    if key not in cache:
        cache[key] = candidate.kept_forms(lambda name: name in chosen, stages)
    return cache[key]


def _outer_locals(candidate: CodeExpression, named: frozenset[str]) -> frozenset[str]:
    """The locals of ``named`` whose binding, behind the candidate's forms, reads another of them; but where that
    binding only reduces the other (``kl_loss = kl.mean()``, a per-sample divergence averaged), the other: the
    claimed quantity is the reduced one, as a per-sample formula averaged over the batch is."""
    if len(named) < 2:
        return frozenset()
    outer: set[str] = set()
    seen: set[int] = set()
    stack = list(candidate.sources)
    while stack:
        binding = stack.pop()
        for name, used in binding.uses:
            if name in named and used.reaches(lambda other: other in named and other != name):
                reduced = _reduced_local(used.direct)
                outer.add(reduced if reduced in named and reduced != name else name)
            if id(used) not in seen:
                seen.add(id(used))
                stack.append(used)
    return frozenset(outer)


def _reduced_local(direct: sympy.Basic) -> str | None:
    """The local a binding only averages or sums (``mean(kl)``), else None."""
    if isinstance(direct, AppliedUndef) and direct.func in (_MEAN, _SUM) and len(direct.args) == 1 \
            and isinstance(direct.args[0], sympy.Symbol):
        return direct.args[0].name
    return None


_QUANTITY_ROLES = word_list("quantity_role_words", "rules")
_COUNT_NOUNS = word_list("count_nouns", "rules")  # count nouns name too many functions alone (``_mechanism_keys``)


@lru_cache(maxsize=1 << 12)
def _quantity_calls(rhs: sympy.Basic, whole: frozenset[sympy.Basic] = frozenset()) -> frozenset[sympy.Basic]:
    """The claim's calls of a function of its own that name a quantity (``KL(q_y, p_y)``, ``CE(y, p)``): a name
    the operations table does not know (as an operation or a call with several outputs), no placeholder (``f``,
    ``sigma``) or function the translation brings, applied to symbols only, and to the same ones wherever it is
    applied; never the whole claim, which would read as any local of that name (a claim topped by a call,
    ``sum(log(pr_b(x)))``, still has the quantities inside it), nor one of ``whole``, the whole right-hand side of
    another formula put in (``_chain``)."""
    table = operations.load()
    placeholders = frozenset(_generic_placeholders(rhs))
    calls: dict[str, set] = {}
    for node in _nodes(rhs):
        if isinstance(node, AppliedUndef):
            calls.setdefault(node.func.__name__, set()).add(node)
    symbols = {s.name for s in _free(rhs)}
    known = frozenset(table.operations) | frozenset(table.outputs) | table.activations | placeholders | _STRUCTURAL
    return frozenset(call for name, found in calls.items() if len(found) == 1
                     for call in found if call != rhs and call not in whole and name not in known
                     and name not in symbols
                     and not names.is_generic(name) and all(isinstance(a, sympy.Symbol) for a in call.args))


def _quantity_entries(rhs: sympy.Basic, whole: frozenset[sympy.Basic] = frozenset()) -> dict:
    """Glossary entries for the quantities the claim writes as calls (``_quantity_calls``), each under its
    function's name: the code names a local holding it (``kl``, ``kl_loss``, ``kl_term``: the name, alone or with a
    ``quantity_role_words`` word of ``rules/words.yaml``)."""
    found = {}
    for call in _quantity_calls(rhs, whole):
        name = call.func.__name__
        found[name] = {"meaning": name, "code_names": [name] + [f"{name}_{word}" for word in sorted(_QUANTITY_ROLES)]}
    return found


def _as_quantities(rhs: sympy.Basic, whole: frozenset[sympy.Basic] = frozenset()) -> sympy.Basic:
    """``rhs`` with each quantity call (``_quantity_calls``) read as a symbol named after its function: the
    paper's ``beta * KL(q_y, p_y)`` is the code's ``kl_weight * kl_loss``, whose local holds the closed form of that
    divergence."""
    return substitute(rhs, {call: sympy.Symbol(call.func.__name__) for call in _quantity_calls(rhs, whole)})


def _produced_by(symbols: tuple[sympy.Symbol, ...], glossary: dict) -> dict[sympy.Symbol, str | frozenset[str]]:
    """The symbols whose glossary meaning opens with an activation of the operations table (``softmax routing
    weights``, ``sigmoid gate``), each with that operation, and those whose meaning names draws of a law (a
    ``sampled_laws`` and a ``draw_words`` word of ``rules/words.yaml``: "uniform draws", "Gaussian noise"), each
    with the calls that sample the law (``samplers_<law>``, a frozenset): what the code binds to it holds the
    quantity, whatever its name (``_produced_variant``). An activation only as the first word: ``logits before
    softmax`` is no softmax."""
    table = operations.load()
    found: dict[sympy.Symbol, str | frozenset[str]] = {}
    for symbol in symbols:
        meaning = glossary.get(symbol.name.split(".")[0], {})
        words = names.words(str(meaning.get("meaning", ""))) if isinstance(meaning, dict) else ()
        laws = sorted(set(words) & _SAMPLED_LAWS) if set(words) & _DRAW_WORDS else []
        if words and words[0] in table.activations and words[0] not in _ELEMENTARY_MEANINGS:
            found[symbol] = words[0]
        elif laws:
            found[symbol] = frozenset().union(*(word_list(f"samplers_{law}", "rules") for law in laws))
    return found


_SAMPLED_LAWS = word_list("sampled_laws", "rules")
_DRAW_WORDS = word_list("draw_words", "rules")


# activations whose name opens many meanings without saying what computes the value (``log-probability`` is a
# log_softmax or a gather; ``exp`` of anything): a meaning must name the value's own operation
_ELEMENTARY_MEANINGS = frozenset({"exp", "log", "sqrt", "abs", "sin", "cos"})


def _produced_variant(claim: _Claim, produced: dict, candidate: CodeExpression, cache: dict) -> _Claim:
    """``claim`` with the hints of each symbol of ``produced`` (``_produced_by``) extended by the locals the
    candidate's forms read that are bound to that symbol's operation (``gating_logits = self.gate(x)`` where the gate
    ends in ``nn.Softmax``) or to a sampler of its law (``cal_data = rng.uniform(0, 1, size)``), or ``claim``
    itself when there is none."""
    extended = dict(claim.hints)
    for symbol, operation in produced.items():
        if symbol in extended:
            found = frozenset(_leaf_key(sympy.Symbol(name)) for name in _bound_to(candidate, operation, cache))
            if found:
                extended[symbol] = extended[symbol] | found
    return claim if extended == claim.hints else dataclasses.replace(claim, hints=extended)


def _bound_to(candidate: CodeExpression, operation: str | frozenset[str], cache: dict) -> frozenset[str]:
    """The names of the locals the candidate's forms read whose value is ``operation`` applied to something (the
    table's form of it, or the uninterpreted call), or, for a set of names (a law's samplers, ``_produced_by``), a
    call of one of them; computed once per candidate and operation."""
    key = ("bound", id(candidate), operation)
    if key not in cache:
        pattern = _operation_pattern(operation) if isinstance(operation, str) else None
        found: set[str] = set()
        seen: set[int] = set()
        stack = [binding for binding in candidate.sources]
        while stack and len(seen) < _MAX_BINDINGS_READ:
            binding = stack.pop()
            for name, used in binding.uses:
                if id(used) in seen:
                    continue
                seen.add(id(used))
                value = used.expression
                # a helper's value unpacked under its name (``cal_data, _ = gen.generate()``): a choice of the
                # name and what the helper computes, each option read
                options = value.args[1:] if isinstance(value, AppliedUndef) and value.func.__name__ == CHOICE \
                    else (value,)
                if any(pattern is not None and option.match(pattern) is not None
                       or isinstance(operation, frozenset) and isinstance(option, AppliedUndef)
                       and option.func.__name__ in operation for option in options):
                    found.add(name)
                stack.append(used)
        cache[key] = frozenset(found)
    return cache[key]


def _drawn_locals(candidate: CodeExpression, produced: dict, cache: dict) -> frozenset[str]:
    """The locals the candidate's forms read that a sampler of a claimed law binds (``_produced_by``): kept as
    leaves (``_kept_forms``), since the sampler's call (``uniform(rng, 0, 1)``) is no value a formula names."""
    return frozenset(name for operation in produced.values() if isinstance(operation, frozenset)
                     for name in _bound_to(candidate, operation, cache))


_MAX_BINDINGS_READ = 64  # locals read behind one candidate when looking for those an operation binds
_OPERAND = sympy.Wild("operand")


@lru_cache(maxsize=64)
def _operation_pattern(operation: str) -> sympy.Basic | None:
    """A pattern matching ``operation`` applied to any operand: its form in the operations table over a wildcard,
    or the uninterpreted call; ``None`` for a form with more than one operand."""
    entry = operations.load().operations.get(operation)
    if entry is None or entry.form is None:
        return sympy.Function(operation)(_OPERAND)
    letters = [s for s in entry.form.free_symbols if isinstance(s, sympy.Symbol)]
    if [s.name for s in letters] != ["a"]:
        return None
    return entry.form.xreplace({letters[0]: _OPERAND})


_PREDICTIONS = word_list("prediction_names", "rules")


@lru_cache(maxsize=1 << 10)
def _loss_filled(rhs: sympy.Basic, words: frozenset[str]) -> tuple[sympy.Basic | None, tuple[str, ...]]:
    """``rhs`` with its placeholder loss of two operands (``L(u_i, F(a_i, w))``) written as the one loss the
    statement's ``words`` name (``named_losses`` in the operations table: "squared error" -> ``(a - b) ** 2``), and
    each placeholder applied to symbols only inside it (the model ``F(a_i, w)``) read as a leaf named after it, which
    code names as a prediction (``prediction_names``); with the names of those leaves. ``(None, ())`` when the
    statement names no loss, or more than one, or the claim has no such placeholder."""
    losses = [form for named, form in operations.named_losses() if named <= words]
    if len({str(f) for f in losses}) != 1:
        return None, ()
    placeholders = frozenset(_placeholders(rhs))
    calls = [n for n in _nodes(rhs) if isinstance(n, AppliedUndef) and n.func.__name__ in placeholders
             and len(n.args) == 2]
    calls = [n for n in calls if not any(n in other.args for other in calls)]  # the outer one: F(a, w) is inside
    if len(calls) != 1:
        return None, ()
    a, b = sympy.Symbol("a"), sympy.Symbol("b")
    models = {arg: sympy.Symbol(arg.func.__name__) for arg in calls[0].args if isinstance(arg, AppliedUndef)
              and arg.func.__name__ in placeholders and all(isinstance(x, sympy.Symbol) for x in arg.args)}
    operands = [models.get(arg, arg) for arg in calls[0].args]
    loss = cast(sympy.Basic, losses[0]).xreplace({a: operands[0], b: operands[1]})
    return substitute(rhs, {calls[0]: loss}), tuple(sorted(m.name for m in models.values()))


_NORMAL_LAWS = word_list("normal_laws", "rules")
_NOISE_NAMES = word_list("noise_names", "rules")
_IDENTITY_WORDS = word_list("identity_words", "rules")
_NOISE_LEAVES = ("z", "z_noise")  # the noise leaf's name: the first the claim does not use


def _drawn(rhs: sympy.Basic, glossary: dict) -> tuple[sympy.Basic | None, dict]:
    """A claim that is a normal law (``Normal(m, v)``, ``N(m, v)``: ``normal_laws`` of ``rules/words.yaml``) read
    as its draw ``m + s * z`` (code samples a law by the reparameterisation ``mu + sigma * randn``), with the
    glossary entry of the standard-normal leaf ``z``: the usual noise names (``noise_names``) and the code names of
    a glossary symbol outside the claim whose meaning names noise ("Gaussian noise"). ``s`` is the square
    root of the variance ``v``, factor by factor: a factor the glossary calls the identity (``identity_words``: the
    covariance ``sigma ** 2 * I``) is 1, and an even power has its exponent halved (``(1 - t) ** 2`` gives ``1 -
    t``, not ``|1 - t|``: ``m - s z`` and ``m + s z`` have one law, as ``z`` is symmetric). ``(None, {})`` for any
    other claim."""
    if not (isinstance(rhs, AppliedUndef) and rhs.func.__name__ in _NORMAL_LAWS and len(rhs.args) == 2):
        return None, {}
    mean, variance = rhs.args
    claimed = {s.name for s in _free(rhs)}
    ones = {s: sympy.Integer(1) for s in _free(variance)
            if _IDENTITY_WORDS & set(names.words(str(glossary.get(s.name, {}).get("meaning", ""))))}
    variance = variance.xreplace(ones)
    factors = variance.args if isinstance(variance, sympy.Mul) else (variance,)
    scale = sympy.Mul(*(f.base ** (f.exp / 2) if isinstance(f, sympy.Pow) and f.exp.is_even else sympy.sqrt(f)
                        for f in factors))
    name = next(n for n in _NOISE_LEAVES if n not in claimed)
    code_names = set(_NOISE_NAMES) | {str(n) for key, entry in glossary.items() if isinstance(entry, dict)
                                      and key not in claimed
                                      and _NOISE_NAMES & set(names.words(str(entry.get("meaning", ""))))
                                      for n in entry.get("code_names", ())}
    entry = {"meaning": "standard normal noise", "code_names": sorted(code_names)}
    return mean + scale * sympy.Symbol(name), {name: entry}


_COUNT_MEANINGS = word_list("count_meanings", "rules")


def _counts_out(expression: sympy.Basic, glossary: dict) -> sympy.Basic:
    """``expression`` (a claim) with a count dividing a sum's terms taken out of the sum (``sum(V / n)``,
    ``sum((1 / n) * V)`` -> ``sum(V) / n``), which ``_as_means`` reads as a mean: a symbol whose glossary meaning
    names a count (``count_meanings`` of ``rules/words.yaml``: "macro-action length") is one number for every term,
    so the two are equal. Only a claim's: a code name dividing a sum's terms may be an array (``(x / norms).sum()``)."""
    counts = {s for s in _free(expression) if isinstance(glossary.get(s.name), dict)
              and _COUNT_MEANINGS & set(names.words(str(glossary[s.name].get("meaning", ""))))}
    rewrite = {}
    for node in _nodes(expression) if counts else ():
        if isinstance(node, AppliedUndef) and node.func == _SUM and len(node.args) == 1 \
                and isinstance(node.args[0], sympy.Mul):
            out = [a for a in node.args[0].args if isinstance(a, sympy.Pow) and a.exp == -1 and a.base in counts]
            if len(out) == 1:
                rewrite[node] = _SUM(node.args[0] / out[0]) * out[0]
    return substitute(expression, rewrite) if rewrite else expression


def _as_means(expression: sympy.Basic) -> sympy.Basic:
    """``expression`` with every sum divided by a name (``sum(x) / T``, ``(1 / n) * sum(L)``) read as a mean: papers
    write the average over a batch or a sequence that way, code as ``.mean()`` or a library's mean reduction. Then a
    mean of a sum (``mean(norm(x - x_hat) ** 2)``: a per-sample squared norm averaged over the batch) reads as the
    mean of its terms, which differs only by the constant number of terms per sample: code averages the squared
    error over every element (``F.mse_loss``). Applied to claims and code alike, so a sum divided by a name in both
    still compares, whatever the names."""
    rewrite = {}
    for node in _nodes(expression):
        if not isinstance(node, sympy.Mul):
            continue
        sums = [a for a in node.args if isinstance(a, AppliedUndef) and a.func == _SUM and len(a.args) == 1]
        counts = [a for a in node.args if isinstance(a, sympy.Pow) and a.exp == -1 and isinstance(a.base, sympy.Symbol)
                  and not a.base.name.startswith("<")]
        if len(sums) == 1 and len(counts) == 1:
            rest = [a for a in node.args if a is not sums[0] and a is not counts[0]]
            rewrite[node] = sympy.Mul(_MEAN(sums[0].args[0]), *rest)
    expression = substitute(expression, rewrite) if rewrite else expression
    nested = {node: _MEAN(node.args[0].args[0]) for node in _nodes(expression) if _mean_of_sum(node)}
    return substitute(expression, nested) if nested else expression


def _mean_of_sum(node: sympy.Basic) -> bool:
    """``node`` is ``mean(sum(x))``, each of one argument."""
    return isinstance(node, AppliedUndef) and node.func == _MEAN and len(node.args) == 1 \
        and isinstance(node.args[0], AppliedUndef) and node.args[0].func == _SUM and len(node.args[0].args) == 1


def _readings(forms: tuple, claimed: frozenset[str], kept: frozenset[str],
              applied: frozenset[tuple[str, int]] = frozenset(), modes: bool = True) -> tuple[tuple, frozenset]:
    """``forms`` and the ways a formula may read them: calls of a function the claim applies to fewer arguments
    with only the claim's leading ones (``_fewer_arguments``), glossary-named submodule calls as leaves
    (``_called_leaves``), the branches of conditional expressions (``_branches``), element reads as leaves
    (``_indexed_leaves``), and means read as their argument (``_per_sample``), each only when the claim does not
    have that operation itself; with ``modes``, the modes of the helpers called (``_modes``). Returns (every form,
    the set of those that took a branch or a mode)."""
    # only the claimed, kept and applied functions the forms call matter beside six others: formulas that agree on
    # them share the result
    called = _called_names(forms)
    kept = frozenset(k for k in kept if k in called[1])
    applied = frozenset(a for a in applied if a[0] in called[0])
    shown = frozenset(claimed & ({"where", "getitem", "mean", "sum", _MASKED, _TERMINATED} | (called[0] if kept
                                                                                               else set())))
    return _readings_of(forms, shown, kept, applied, modes)


@lru_cache(maxsize=1 << 14)
def _called_names(forms: tuple) -> tuple[frozenset[str], frozenset[str]]:
    """The names of the functions ``forms`` apply, as written and normalised (``_readings``' key)."""
    found = frozenset(n.func.__name__ for form in forms for n in _nodes(form) if isinstance(n, AppliedUndef))
    keys = {names.normalise(name) for name in found}
    # W_u computes u, attn computes attn_out (``_layer_output``)
    return found, frozenset(keys | {_layer_rest(key) for key in keys} | {o for key in keys for o in _outputs_of(key)})


@lru_cache(maxsize=1 << 16)  # every formula reads every candidate's forms (``_readings``)
def _readings_of(forms: tuple, claimed: frozenset[str], kept: frozenset[str],
                 applied: frozenset[tuple[str, int]], modes: bool) -> tuple[tuple, frozenset]:
    plain, moded = _modes(forms)
    moded = moded if modes else ()
    forms = _read_through(plain, claimed, kept, applied)
    # the modes of helpers are taken like branches: read the same ways, never deciding a drift
    moded = _read_through(moded, claimed, kept, applied) if moded else ()
    taken = (_branches(forms + moded) if "where" not in claimed else ()) + moded
    if "getitem" not in claimed:
        forms, taken = forms + _indexed_leaves(forms), taken + _indexed_leaves(taken)
    if "mean" not in claimed:
        forms, taken = forms + _per_sample(forms), taken + _per_sample(taken)
    known = set(forms)  # membership by hash: sympy's equality is costly, and equal expressions hash alike
    taken = tuple(f for f in dict.fromkeys(taken) if f not in known)
    return forms + taken, frozenset(taken)


def _read_through(forms: tuple, claimed: frozenset[str], kept: frozenset[str],
                  applied: frozenset[tuple[str, int]]) -> tuple:
    """``forms`` and their readings that never take a branch or a mode (``_readings``)."""
    forms = _slice_readings(forms)
    if applied:
        forms = forms + _variants(forms, lambda form: _fewer_arguments(form, applied))
    if kept:
        forms = forms + _called_leaves(forms, kept, claimed)
    forms = forms + _variants(forms, _selected)  # before _unmasked, which reads the product form further
    if _MASKED not in claimed:
        forms = forms + _variants(forms, _unmasked)
    if _TERMINATED not in claimed:
        forms = forms + _variants(forms, _continued)
    if claimed & set(_REDUCTION_WORDS.values()):
        forms = forms + _variants(forms, lambda form: _reduction_named(form, claimed))
    return forms


def _slice_readings(forms: tuple) -> tuple:
    """``forms`` with their slices that start elements ahead (``x[1:]``, read ``getitem(x, : + 1)`` by
    ``extractors.formulas``) read as the whole array, as every other slice is (``_whole_slices``): in place of the
    form when no such slice is paired with another read of its array (the slice only drops a first element, a
    class token), beside it when one is (``sigmas[1:] - sigmas[:-1]``: the successor reading may be the claim's)."""
    if all(_whole_slices(form)[0] is None for form in forms):
        return forms  # no such slice: the forms as they were
    found: dict = {}  # in order; membership by hash
    for form in forms:
        whole, paired = _whole_slices(form)
        if whole is None or paired:
            found[form] = None
        if whole is not None:
            found.setdefault(whole, None)
    return tuple(found)


@lru_cache(maxsize=1 << 15)
def _whole_slices(form: sympy.Basic) -> tuple[sympy.Basic | None, bool]:
    """(``form`` with each slice that starts elements ahead read as the whole array, or ``None`` when it has none;
    whether such a slice's array is also read otherwise in ``form``: as itself or another slice of it)."""
    shifted = {n: n.args[0] for n in _nodes(form) if isinstance(n, AppliedUndef) and n.func.__name__ == "getitem"
               and len(n.args) == 2 and successor_index(n.args[1])}
    if not shifted:
        return None, False
    bases = set(shifted.values())
    elsewhere = substitute(form, {n: sympy.Symbol("<slice>") for n in shifted}).free_symbols
    paired = bool(bases & elsewhere) or len(set(shifted)) > len(bases)
    return substitute(form, shifted), paired


def _modes(forms: tuple) -> tuple[tuple, tuple]:
    """``forms`` read through the modes of the helpers they call (``choice(call, a, b)``, see
    ``extractors.expressions.CHOICE``): (each form with every call as written, the same as without the modes; the
    forms with the calls read as one of their returns, at most ``MAX_MODES`` per form, the same mode wherever one
    call recurs). A mode is one configuration of the code, like a branch of a conditional expression: it may match
    the formula, never decide a drift."""
    written: list = []
    moded: list = []
    for form in forms:
        plain, others = _modes_of(form)
        written.append(plain)
        moded.extend(others)
    written = list(dict.fromkeys(written))
    known = set(written)
    return tuple(written), tuple(f for f in dict.fromkeys(moded) if f not in known)


@lru_cache(maxsize=1 << 15)
def _modes_of(form: sympy.Basic) -> tuple[sympy.Basic, tuple]:
    """(``form`` with each ``choice`` read as the call as written, the forms with the choices read as their
    returns, at most ``MAX_MODES``), computed once per form; the outermost choice is taken first."""
    if sprawls((form,)) or not any(isinstance(n, AppliedUndef) and n.func.__name__ == CHOICE for n in _nodes(form)):
        return form, ()  # a sprawling form is rebuilt no more (``extractors.sympy_graph.MAX_TREE_NODES``)
    plain = form
    for _ in range(8):  # nested choices come off one level per pass
        chosen = {n: n.args[0] for n in _nodes(plain) if isinstance(n, AppliedUndef) and n.func.__name__ == CHOICE}
        if not chosen:
            break
        plain = substitute(plain, chosen)
    pending: list[sympy.Basic] = [form]
    done: list[sympy.Basic] = []
    for _ in range(8 * MAX_MODES):  # bounded whatever the nesting
        if not pending or len(done) >= MAX_MODES:
            break
        current = pending.pop(0)
        first = next((n for n in _nodes(current) if isinstance(n, AppliedUndef) and n.func.__name__ == CHOICE), None)
        if first is None:
            done.append(current)
            continue
        pending.extend(substitute(current, {first: option}) for option in first.args[1:])
    return plain, tuple(f for f in dict.fromkeys(done) if f != plain)


def _branches(forms: tuple) -> tuple:
    """The forms with every conditional expression (``a if c else b``, read ``where(c, a, b)``) replaced by its
    first branch, then by its second, those that differ: the paths through an expression, as ``if`` statements give
    paths through a function (``values[t + 1] if t + 1 < T else 0.0`` is the next value, or 0 at the end)."""
    found: dict = {}  # in order; membership by hash, as below
    known = set(forms)
    for form in forms:
        for taken in _branches_of(form):
            if taken not in known and taken not in found:
                found[taken] = None
    return tuple(found)


@lru_cache(maxsize=1 << 15)
def _branches_of(form: sympy.Basic) -> tuple:
    """``form`` with every conditional expression replaced by its first branch, then by its second (the candidates
    are read once per formula: computed once per form)."""
    found = []
    conditionals = [n for n in _nodes(form) if isinstance(n, AppliedUndef) and n.func.__name__ == "where"
                    and len(n.args) == 3]
    for branch in (1, 2):
        if not conditionals:
            break
        taken = form
        for _ in range(4):  # nested conditionals come off one level per pass
            chosen = {n: n.args[branch] for n in _nodes(taken) if isinstance(n, AppliedUndef)
                      and n.func.__name__ == "where" and len(n.args) == 3}
            if not chosen:
                break
            taken = substitute(taken, chosen)
        found.append(taken)
    return tuple(found)


def _indexed_leaves(forms: tuple) -> tuple:
    """The forms with every element read (``ratings[i]``, ``values[0, t + 1]``: a name indexed by names and
    numbers) as a leaf of its own, those that differ: the paper writes an element as a symbol (``Q_i``, ``V_next``),
    and the leaf's key is the indexed name (``_leaf_key``)."""
    return _variants(forms, _indexed_of)


def _variants(forms: tuple, rewrite) -> tuple:
    """The new forms ``rewrite`` (form -> form or ``None``) gives, each once, leaving out those already in ``forms``."""
    found: list = []
    seen = set(forms)  # sympy's hash agrees with its ==, number types included: as the scans of tuples did
    for form in forms:
        variant = rewrite(form)
        if variant is not None and variant not in seen:
            seen.add(variant)
            found.append(variant)
    return tuple(found)


@lru_cache(maxsize=1 << 15)
def _indexed_of(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` with its element reads as leaves, or ``None`` when it has none (computed once per form). An element
    of an elementwise expression is that expression of the elements (``_index_pushed``): ``sqrt(1 - a)[t]`` reads
    as ``sqrt(1 - a[t])``, the leaf ``a[t]``."""
    pushed = _index_pushed(form)
    form = pushed if pushed is not None else form
    found = [n for n in _nodes(form) if isinstance(n, AppliedUndef) and n.func.__name__ == "getitem"
             and isinstance(n.args[0], sympy.Symbol) and not n.args[0].name.startswith("<") and len(n.args) > 1
             and _element_read(n.args[1:])]
    if len({_layout(n.args[1:]) for n in found}) > 1:
        # reads over whole axes beside reads laid out otherwise (rewards[:, t] beside values[t]): the step is on
        # another axis in one of them, so the whole-axis reads stay arrays
        found = [n for n in found if WHOLE_AXIS not in n.args[1:]]
    reads = {n: sympy.Symbol(f"{n.args[0].name}[{', '.join(str(i) for i in n.args[1:])}]") for n in found}
    return substitute(form, reads) if reads else pushed


# what applies to each element alone: an element of such an expression of arrays is the expression of their
# elements (numbers stay as they are)
_ELEMENTWISE = (sympy.Add, sympy.Mul, sympy.Pow, sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tanh, sympy.Abs)


def _index_pushed(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` with each element read of an elementwise expression of names (``getitem(sqrt(1 - a), t)``, a table
    computed once and read at the step, as DDPM code does with its ``sqrt_one_minus_alphas_cumprod``) rewritten as
    that expression of the names' elements (``sqrt(1 - getitem(a, t))``), or ``None`` when it has none. Only simple
    indices (``_simple_index``) and expressions of names, numbers and ``_ELEMENTWISE`` operations (an integer
    power) are rewritten: a sum or a matrix product mixes elements."""
    mapping = {}
    for node in _nodes(form):
        if not (isinstance(node, AppliedUndef) and node.func.__name__ == "getitem" and len(node.args) > 1
                and isinstance(node.args[0], _ELEMENTWISE) and _element_read(node.args[1:])):
            continue
        table = node.args[0]
        inner = list(sympy.preorder_traversal(table))
        if not all(isinstance(n, (sympy.Symbol, sympy.Number, *_ELEMENTWISE)) for n in inner) \
                or any(isinstance(n, sympy.Symbol) and n.name.startswith("<") for n in inner) \
                or any(isinstance(n, sympy.Pow) and not isinstance(n.exp, sympy.Number) for n in inner):
            continue
        getitem = node.func
        mapping[node] = table.xreplace({s: getitem(s, *node.args[1:]) for s in table.free_symbols})
    return substitute(form, mapping) if mapping else None


def _shifted(leaf: sympy.Basic) -> bool:
    """An element read at an index a number away from a name (``values[0, t + 1]``, ``_indexed_leaves``)."""
    name = leaf.name
    if "[" not in name:
        return False
    return any("+" in index or "-" in index for index in name[name.index("[") + 1:-1].split(","))


@lru_cache(maxsize=1 << 12)
def _unshifted_keys(symbol: sympy.Symbol, hints: frozenset[str]) -> frozenset[str]:
    """The keys of the array whose element a symbol named as shifted stands for: its name and hints without the
    shift words (``sigma_next`` -> ``sigma``), so that ``sigmas[1:]``, the next element of ``sigmas``, follows the
    hints of ``sigma_next``; empty for a symbol not named as shifted."""
    if not _names_shift(symbol):
        return frozenset()
    found = set()
    for name in (symbol.name, *hints):
        kept = [token for token in name.lower().split("_") if token and token not in _SHIFTS]
        if kept and len(kept) < len(name.split("_")):
            found.add(names.normalise("_".join(kept)))
    return frozenset(found)


def _names_shift(symbol: sympy.Symbol) -> bool:
    """A formula symbol named as an element one step away (``V_next``, ``s_prev``: ``shift_words``)."""
    return any(token in _SHIFTS for token in symbol.name.lower().split("_"))


def _element_read(indices: tuple) -> bool:
    """Indices that pick elements (``_simple_index``), or, beside whole axes, pick them by a name (``rewards[:, t]``:
    the step's rewards over the batch, which a paper writes ``r_t``). A number beside a whole axis picks a channel or
    a step (``x[..., 0]``, ``logp[:, -1]``), not the claimed quantity over all of them."""
    if WHOLE_AXIS not in indices:
        return all(_simple_index(i) for i in indices)
    picked = [i for i in indices if i != WHOLE_AXIS]
    return bool(picked) and all(_simple_index(i) and not i.is_Number for i in picked)


def _layout(indices: tuple) -> tuple[bool, ...]:
    """Which axes an element read keeps whole (``rewards[:, t]`` -> ``(True, False)``)."""
    return tuple(i == WHOLE_AXIS for i in indices)


def _simple_index(index: sympy.Basic) -> bool:
    """A name, a number, or a name plus a number (``t + 1``): an index that picks one element."""
    if isinstance(index, (sympy.Symbol, sympy.Integer)):
        return index not in (WHOLE_AXIS, MISSING_OPERAND) if isinstance(index, sympy.Symbol) else True
    return isinstance(index, sympy.Add) and len(index.args) == 2 and \
        all(isinstance(a, (sympy.Symbol, sympy.Integer)) for a in index.args)


_MASKED = "<masked>"  # a pseudo function name: the claim names a mask itself (``_readings``)
_TERMINATED = "<terminated>"  # a pseudo function name: the claim names the end of an episode (``_readings``)
_MASK_WORDS = frozenset({"mask", "masks"})
_LOSS = "loss"
_MAXIMISED = ("maximis", "maximiz")
# a policy-gradient surrogate is maximised by definition (PPO, Schulman et al. 2017, Eq. 7: the clipped surrogate
# objective L^CLIP, which the policy update maximises; TRPO's surrogate alike), so code minimises its negative
_SURROGATE = "surrogate"
_OBJECTIVE_WORDS = frozenset({"objective", "surrogate"})


def _maximised(statement: str) -> bool:
    """The statement says its quantity is maximised (``maximises``, ``maximizing``): an objective, whose loss is
    its negative."""
    text = statement.lower()
    return any(word in text for word in _MAXIMISED)


def _surrogate(words: frozenset[str], meaning: str, rhs: sympy.Basic) -> bool:
    """The statement (its ``words``) names a policy-gradient surrogate, the formula is one as written (the smaller
    of a term and its clipped copy, ``mean(min(r * A, clip(r, ...) * A))``, not negated) and the glossary's meaning
    of its left-hand side is an objective or that surrogate, neither a loss nor negated ("MA-PPO objective",
    "clipped surrogate objective"): maximised, as a surrogate is (``_SURROGATE``). A value loss or a surrogate model
    fit beside it in the same statement, or the surrogate's own loss, its negative ("clipped surrogate loss",
    "negated clipped surrogate objective"), is not."""
    said = set(names.words(meaning))
    clipped = any(isinstance(n, AppliedUndef) and n.func.__name__ == "min" and any(
        isinstance(m, AppliedUndef) and m.func.__name__ == "clip" for a in n.args for m in _nodes(a))
        for n in _nodes(rhs))
    return _SURROGATE in words and clipped and not rhs.could_extract_minus_sign() \
        and bool(_OBJECTIVE_WORDS & said) and not said & _NOT_OBJECTIVE


_NOT_OBJECTIVE = frozenset({_LOSS, "negated", "negative"})


def _loss_named(candidate: CodeExpression) -> bool:
    """A candidate assigned to a loss (``loss``, ``pg_loss``), or returned by a function named after one
    (``policy_loss``)."""
    name = candidate.function.rsplit(".", 1)[-1] if candidate.target == "return" else \
        candidate.target.rsplit(".", 1)[-1]
    return _LOSS in name.lower().split("_")


@lru_cache(maxsize=1 << 14)
def _negated(form: sympy.Basic) -> sympy.Basic:
    """``-form``, moved inside a mean (``mean(-x)`` for ``-mean(x)``: the evaluator reads a mean as a generic
    function, which a constant factor does not pass through) and through ``max``/``min`` (``-max(-a, -b)`` is
    ``min(a, b)``, so that a function swapped in the code is named)."""
    if isinstance(form, AppliedUndef) and form.func == _MEAN and len(form.args) == 1:
        return _MEAN(_negated(form.args[0]))
    if isinstance(form, AppliedUndef) and form.func.__name__ in equivalence.EXTREMES and len(form.args) > 1:
        # -max(-a, -b) is min(a, b): PPO's loss takes the max of the negated surrogate terms
        return sympy.Function(equivalence.EXTREMES[form.func.__name__])(*(_negated(a) for a in form.args))
    if isinstance(form, sympy.Mul):
        means = [a for a in form.args if isinstance(a, AppliedUndef) and a.func == _MEAN and len(a.args) == 1]
        if len(means) == 1:
            return form.xreplace({means[0]: _negated(means[0])})
    return -form


def _is_mask(symbol: sympy.Basic) -> bool:
    return isinstance(symbol, sympy.Symbol) and not symbol.name.startswith("<") \
        and bool(_MASK_WORDS & set(symbol.name.rsplit(".", 1)[-1].lower().split("_")))


@lru_cache(maxsize=1 << 15)
def _continued(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` read within one episode, or ``None`` when it has no done factor: a leaf named after the end of an
    episode (``dones[t]``, ``terminal``; ``termination_words``) is 0 and one named after its going on (``not_done``,
    ``nonterminal``; ``continuation_words``) is 1, so ``r + gamma * (1 - done) * V_next`` reads as ``r + gamma *
    V_next`` and a running ``not_done *= 1 - dones[t]`` as 1. Code cuts returns at episode ends; a return or
    target written for one episode has no such factor."""
    mapping = {}
    for node in _nodes(form):
        words = set(names.words(_held_name(node)))
        if words & _TERMINATION or "nonterminal" in words:
            mapping[node] = sympy.Integer(1 if words & _CONTINUATION else 0)
    if not mapping:
        return None
    read = substitute(form, mapping)
    ones = {n: sympy.Integer(1) for n in _nodes(read) if isinstance(n, AppliedUndef) and n.func.__name__ == "prod"
            and n.args == (sympy.Integer(1),)}  # the running product of (1 - done) over steps
    read = substitute(read, ones) if ones else read
    return read if read != form else None


@lru_cache(maxsize=1 << 15)
def _companions_read(form: sympy.Basic, hint_keys: frozenset[str]) -> sympy.Basic | None:
    """``form`` with each companion factor read as 1, or ``None`` when it has none: a leaf whose name is that of
    another factor of the same product plus qualifiers (``sz_ratio`` beside ``sz``), where the glossary names the
    other (``hint_keys``: every claim symbol's hints) and not the companion. Code stores a parameter at one scale
    and multiplies it by a fixed ratio (``self.sz * self.sz_ratio``) to give the effective value the paper names."""
    ones = {}
    for node in _nodes(form):
        if not isinstance(node, sympy.Mul):
            continue
        factors = [f for f in node.args if isinstance(f, sympy.Symbol) and not f.name.startswith("<")]
        named = [(f, _leaf_key(f)) for f in factors if _leaf_key(f) in hint_keys]
        for other in factors:
            key = _leaf_key(other)
            if key in hint_keys or other in ones:
                continue
            tokens = set(key.split("_"))
            if any(f is not other and set(k.split("_")) < tokens and not names.is_generic(k) for f, k in named):
                ones[other] = sympy.Integer(1)
    return substitute(form, ones) if ones else None


def _held_name(node: sympy.Basic) -> str:
    """The name of what a leaf or element read holds: a symbol's last component (``self.dones`` -> ``dones``), an
    element read's array (``dones[t]``), a string key's text (``batch["dones"]``), else ``""``."""
    if isinstance(node, sympy.Symbol):
        return "" if node.name.startswith("<") else node.name.split("[", 1)[0].rsplit(".", 1)[-1]
    if isinstance(node, AppliedUndef) and node.func.__name__ == "getitem" and len(node.args) > 1:
        key = node.args[1]
        if len(node.args) == 2 and isinstance(key, sympy.Symbol) and key.name[:2] in ('<"', "<'"):
            return key.name[2:-2]
        return _held_name(node.args[0])
    return ""


@lru_cache(maxsize=1 << 15)
def _unmasked(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` read where its mask is on, or ``None`` when it has no mask: the entries a mask selects (``x[mask !=
    0]``, ``_SELECTIONS``), wherever they stand (``(valid * weights).sum()`` with ``valid = values[mask != 0]``), are
    the array ``x``; a masked mean (``sum(x * mask) / (sum(mask) + eps)``) is the mean of ``x``, and every other
    mask factor (``(logp - old_logp) * mask``) is 1. Code selects or multiplies by a mask to leave out padding; a
    formula over the valid positions does not write it."""
    if not any(_is_mask(s) for s in _free(form)):
        return None
    selected = {n: n.args[0] for n in _nodes(form) if isinstance(n, AppliedUndef) and n.func.__name__ == "getitem"
                and len(n.args) == 2 and _selection_mask(n.args[1]) is not None}
    read = substitute(form, selected) if selected else form
    masks = [s for s in _free(read) if _is_mask(s)]
    rewrite = {}
    for node in _nodes(read):
        if not isinstance(node, sympy.Mul):
            continue
        for count in node.args:
            if not (isinstance(count, sympy.Pow) and count.exp == -1):
                continue
            kept = [t for t in sympy.Add.make_args(count.base) if not (isinstance(t, sympy.Symbol) and (
                small_value(t) is not None or _leaf_key(t) in _STABILITY))]
            if len(kept) != 1 or not (isinstance(kept[0], AppliedUndef) and kept[0].func == _SUM
                                      and kept[0].args[0] in masks):
                continue
            mask = kept[0].args[0]
            sums = [a for a in node.args if isinstance(a, AppliedUndef) and a.func == _SUM
                    and mask in sympy.Mul.make_args(a.args[0])]
            if len(sums) == 1:
                rest = [a for a in node.args if a is not count and a is not sums[0]]
                rewrite[node] = sympy.Mul(_MEAN(sums[0].args[0] / mask), *rest)
                break
    stripped = substitute(read, rewrite) if rewrite else read
    # only inside an operation's argument: a mask factor of a whole term decides where that term lands (which
    # positions get a penalty), which a formula over values does not say
    ones = {m: sympy.Integer(1) for m in masks}
    inner = {n: substitute(n, ones) for n in _nodes(stripped) if isinstance(n, (AppliedUndef, sympy.Function))
             and any(m in _free(n) for m in masks)}
    unmasked = substitute(stripped, inner) if inner else stripped
    return unmasked if unmasked != form else None


# how code selects the positions a mask is on: ``x[mask]``, ``x[mask.bool()]``, ``x[mask != 0]``, ``x[mask > 0]``,
# ``x[mask == 1]`` (a mask holds 0 and 1, ``_is_mask``)
_SELECTIONS = {"bool": None, "not_equal": 0, "greater": 0, "equal": 1}


def _selection_mask(index: sympy.Basic) -> sympy.Symbol | None:
    """The mask symbol an index expression selects the on positions of (``_SELECTIONS``), or None."""
    if _is_mask(index):
        return cast(sympy.Symbol, index)
    if not isinstance(index, AppliedUndef) or index.func.__name__ not in _SELECTIONS or not _is_mask(index.args[0]):
        return None
    against = _SELECTIONS[index.func.__name__]
    if against is None:
        return index.args[0] if len(index.args) == 1 else None
    return index.args[0] if len(index.args) == 2 and index.args[1] == against else None


@lru_cache(maxsize=1 << 15)
def _selected(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` with every sum or mean over the entries a mask selects written as the masked reduction, or None
    when it has none: ``sum(x[mask != 0])`` is ``sum(x * mask)`` and ``mean(x[mask])`` is ``sum(x * mask) /
    sum(mask)``, for a mask of 0 and 1 (``_is_mask``). Code indexes the valid entries where a formula multiplies
    by the mask; ``_unmasked`` then reads the product as a plain mean when the claim names no mask."""
    rewrite = {}
    for node in _nodes(form):
        if not (isinstance(node, AppliedUndef) and node.func in (_SUM, _MEAN) and len(node.args) == 1):
            continue
        inner = node.args[0]
        if not (isinstance(inner, AppliedUndef) and inner.func.__name__ == "getitem" and len(inner.args) == 2):
            continue
        mask = _selection_mask(inner.args[1])
        if mask is None:
            continue
        total = _SUM(inner.args[0] * mask)
        rewrite[node] = total if node.func == _SUM else total / _SUM(mask)
    return substitute(form, rewrite) if rewrite else None


# words that name a reduction in a local's name (``grad_sum``, ``mean_reward``): the function the name says it holds
_REDUCTION_WORDS = {"sum": "sum", "summed": "sum", "mean": "mean", "avg": "mean", "average": "mean"}


@lru_cache(maxsize=1 << 15)
def _reduction_named(form: sympy.Basic, claimed: frozenset[str]) -> sympy.Basic | None:
    """``form`` with every name that says it holds a reduction of a quantity (``grad_sum``, ``sum_grad``,
    ``avg_reward``: one reduction word and a name) read as that reduction of the quantity's leaf (``sum(grad)``),
    for the reductions the claim applies (``claimed``), or ``None`` when there is none. Code sums per-example
    gradients into ``grad_sum`` in one function and uses it in another, where the paper writes ``sign(sum(g))``."""
    mapping = {}
    for symbol in _free(form):
        if symbol.name.startswith("<"):
            continue
        prefix, _, last = symbol.name.rpartition(".")
        tokens = last.split("_")
        words = [t for t in tokens if t.lower() in _REDUCTION_WORDS]
        rest = [t for t in tokens if t.lower() not in _REDUCTION_WORDS]
        if len(words) != 1 or not rest or len(tokens) != len(rest) + 1 \
                or _REDUCTION_WORDS[words[0].lower()] not in claimed:
            continue
        leaf = sympy.Symbol((prefix + "." if prefix else "") + "_".join(rest))
        mapping[symbol] = sympy.Function(_REDUCTION_WORDS[words[0].lower()])(leaf)
    return substitute(form, mapping) if mapping else None


@lru_cache(maxsize=1 << 15)
def _fewer_arguments(form: sympy.Basic, applied: frozenset[tuple[str, int]]) -> sympy.Basic | None:
    """``form`` with every call of a function the claim applies to fewer arguments cut to the claim's leading ones
    (``attn(h, cos, sin, mask)`` read ``attn(h)``: the paper writes a layer of its input, the code also passes
    positions, masks and caches), or ``None`` when there is none. The claim's other functions are not touched."""
    wanted = dict(applied)
    calls = {n: n.func(*n.args[: wanted[n.func.__name__]]) for n in _nodes(form) if isinstance(n, AppliedUndef)
             and 0 < wanted.get(n.func.__name__, len(n.args)) < len(n.args)}
    return substitute(form, calls) if calls else None


def _called_leaves(forms: tuple, kept: frozenset[str], claimed: frozenset[str]) -> tuple:
    """The forms with every call of a submodule the glossary names as a quantity (``self.Q1(zsa)`` where the
    glossary's ``Q1`` names ``Q1``) read as that quantity's leaf, those that differ: the paper writes the network's
    output as a symbol. A function the claim itself applies stays a call."""
    found: list = []
    for form in forms:
        leafy = _called_of(form, kept, claimed)
        if leafy is not None and leafy not in forms and leafy not in found:
            found.append(leafy)
    return tuple(found)


@lru_cache(maxsize=1 << 15)
def _called_of(form: sympy.Basic, kept: frozenset[str], claimed: frozenset[str]) -> sympy.Basic | None:
    """``form`` with the glossary-named submodule calls as leaves, or ``None`` when it has none."""
    calls = {}
    for node in _nodes(form):
        if isinstance(node, AppliedUndef) and node.func.__name__ not in claimed:
            quantity = _layer_output(node.func.__name__, kept)
            if quantity is not None:
                calls[node] = sympy.Symbol(quantity)
    return substitute(form, calls) if calls else None


def _layer_output(function: str, kept: frozenset[str]) -> str | None:
    """The quantity a call of the submodule ``function`` computes, when the glossary names it (``kept``: normalised
    code names): the submodule's own name (``Q1``), or the name left after the words that name a layer
    (``_LAYER_WORDS``, and ``W`` for a weight: ``W_u`` and ``u_proj`` compute ``u``), or its name with an output
    word after it (``_OUTPUT_WORDS``: ``attn_out`` is what ``self.attn(h)`` returns); else ``None``."""
    key = names.normalise(function)
    if key in kept:
        return function
    rest = _layer_rest(key)
    if rest and rest != key and rest in kept:
        return rest
    return next((output for output in _outputs_of(key) if output in kept), None)


# words after a submodule's name that make a name its output (``attn_out``, ``encoder_output``)
_OUTPUT_WORDS = ("out", "output")


def _outputs_of(key: str) -> tuple[str, ...]:
    """The normalised names of the output of a submodule whose normalised name is ``key`` (``_OUTPUT_WORDS``)."""
    return tuple(f"{key}_{word}" for word in _OUTPUT_WORDS)


def _layer_rest(key: str) -> str:
    """A normalised submodule name without the words that name a layer (``_LAYER_WORDS``, numbered too, and ``w``
    for a weight): ``w_u`` and ``u_proj`` -> ``u``, ``projection_layer_1`` -> ``projection``; empty when nothing else
    is left."""
    return "_".join(word for word in key.split("_") if word.rstrip("0123456789") not in _LAYER_WORDS and word != "w")


def _per_sample(forms: tuple) -> tuple:
    """The forms with every ``mean`` read as its argument, those that differ: a formula written per sample
    (``-0.5 * (Q1 + Q2) + lam * z**2``) is what code averaging over the batch computes (``-0.5 * (Q1 + Q2).mean() +
    lam * (z ** 2).mean()``); the mean is linear, so it moves across sums and constant factors. Only for a claim
    that has no mean of its own."""
    return _variants(forms, _unmeaned)


@lru_cache(maxsize=1 << 15)
def _unmeaned(form: sympy.Basic) -> sympy.Basic | None:
    """``form`` with every mean read as its argument, or ``None`` when it has none (computed once per form)."""
    if not any(isinstance(n, AppliedUndef) and n.func == _MEAN and len(n.args) == 1 for n in _nodes(form)):
        return None
    stripped = form
    for _ in range(4):  # nested means (mean(mean(x))) come off one level per pass
        stripped = substitute(stripped, {n: n.args[0] for n in _nodes(stripped)
                                         if isinstance(n, AppliedUndef) and n.func == _MEAN and len(n.args) == 1})
    return stripped


def _chain(parsed: list, results: list[FormulaResult], search: _Search) -> None:
    """Formulas of one SAU that build on each other, as code computes them in one expression. First, a definition
    left undecided (``sigma_w == 1 / n_tok``) is looked for inside each other formula that reads its left-hand name
    (``V == sum(sigma_w * V_tok)``), with it put in, whatever that formula's own outcome: code that weighs the
    values equally computes ``values.mean()``, never the weights. Every definition of a name is tried so, each on
    its own (a statement's alternatives: equal or position-decayed weights). An equivalent (every name following the
    hints, ``tentative`` aside) realises the definition inside that formula's code, and the formula itself when it
    was undecided. Then a formula left unknown (``h_new == h_lerp / norm(h_lerp)``) is compared again with the other
    formulas' left-hand names it reads replaced by their right-hand sides (one level; the last definition of each):
    when that finds an equivalent, each formula put in is realised inside the same code and counts as the same
    outcome, unless already decided. A formula live sites disagree on (``_unless_contradicted``) is never chained nor
    realised so: its contradiction stands. Updates ``results`` in place."""
    def open_(number: int) -> bool:  # undecided, and not contradicted by live sites
        return results[number].outcome == UNKNOWN and results[number].credit != _CONTRADICTED_CREDIT

    for number, (text, lhs, rhs) in enumerate(parsed):
        if not open_(number) or lhs is None or rhs is None:
            continue
        for other, (other_text, other_lhs, other_rhs) in enumerate(parsed):
            if other == number or other_rhs is None or other_lhs == lhs or lhs not in _free(other_rhs) \
                    or (results[other].outcome == UNKNOWN and not open_(other)):
                continue
            chained = _compare(other_text, other_lhs, substitute(other_rhs, {lhs: rhs}), search, frozenset({rhs}))
            if chained.outcome != EQUIVALENT or chained.tentative:
                continue
            results[number] = FormulaResult(text, EQUIVALENT, chained.candidate,
                                            f"realised inside {other_text} with {lhs.name} put in", chained.credit)
            if results[other].outcome == UNKNOWN:
                chained.difference = f"{chained.difference or 'equivalent'} with {lhs.name} put in"
                results[other] = chained
            break
    defined = {lhs: (number, rhs) for number, (_, lhs, rhs) in enumerate(parsed) if lhs is not None and rhs is not None}
    for number, (text, lhs, rhs) in enumerate(parsed):
        if not open_(number) or rhs is None:
            continue
        used = {s: defined[s] for s in sorted(_free(rhs), key=lambda s: s.name) if s in defined and s != lhs}
        if not used:
            continue
        chained = _compare(text, lhs, substitute(rhs, {s: value for s, (_, value) in used.items()}), search,
                           frozenset(value for _, value in used.values()))
        shown = ", ".join(s.name for s in used)
        if chained.outcome == UNKNOWN and chained.credit == _CONTRADICTED_CREDIT:  # live sites disagree on it
            chained.difference = f"with {shown} put in, {chained.difference}"
            results[number] = chained
            continue
        if chained.outcome not in (EQUIVALENT, UNREACHED):
            continue  # a larger formula differs from small code (a helper's x / norm(x)) by a term: no drift
        chained.difference = f"{chained.difference or 'equivalent'} with {shown} put in"
        results[number] = chained
        for symbol, (other, _) in used.items():
            if open_(other):
                results[other] = FormulaResult(parsed[other][0], chained.outcome, chained.candidate,
                                               f"realised inside {text}", chained.credit)


def _library(text: str, claim: _Claim, search: _Search) -> FormulaResult | None:
    """The formula realised by a library call or a configuration key (``implementations`` in
    ``rules/operations.yaml``) that the repository runs or sets, or ``None``. The claim's symbols are renamed to
    the implementation's form's (every order tried: the forms have few symbols). An implementation whose forms are
    common shapes (Adam's moments are any moving average) counts only for a claim whose statement or mechanism
    names it (``named_by``); ``search.realised`` holds only those whose built object runs (``runs``,
    ``library_realisations``)."""
    for implementation in operations.implementations():
        where = search.realised.get(implementation.name)
        if where is None or (implementation.named_by and not implementation.named_by & search.words):
            continue
        for form in implementation.forms:
            symbols = sorted(_free(form), key=lambda s: s.name)
            if len(symbols) != len(claim.symbols):
                continue
            signs = claim.signs or equivalence.sign_sensitive(form)
            for order in itertools.islice(itertools.permutations(claim.symbols), MAX_RENAMINGS):
                renaming = {f.name: c.name for f, c in zip(symbols, order)}
                if equivalence.matches(form, claim.values, renaming, signs, search.budget):
                    return FormulaResult(text, EQUIVALENT, where, f"realised by the library ({implementation.name})",
                                         1.0)
    return None


def library_realisations(index: RepositoryIndex) -> dict[str, CodeExpression]:
    """Analysis provider: for each library implementation the repository realises, where: the first call of one of
    its ``calls`` in a function the call graph does not call dead (tests left out; for one with ``runs``, only when
    live code runs the object such a call builds, ``_built_and_run``), else the first configuration
    key among its ``keys`` (or a string value holding one of its ``values``) that code reads by name or a call
    unpacking a mapping may pass (``**cfg``: ``extractors.provenance.unpacked_passes``)."""
    records = [r for r in index.analysis(candidates) if not is_test_path(r.file)]
    dead = index.analysis(dead_functions)
    found: dict[str, CodeExpression] = {}
    for implementation in operations.implementations():
        if implementation.runs and not _built_and_run(implementation, records, dead, index):
            continue  # built but never run (an optimizer nothing steps): it computes nothing
        for record in records:
            called = sorted(implementation.calls & record.callees)
            if called and not dead(record):
                line = _line_of(index, record, called[0])
                found[implementation.name] = CodeExpression(
                    record.file, line, line, called[0], implementation.forms[0], record.qualname,
                    index.snippet(Location(record.file, line, line, cell=record.cell)), cell=record.cell)
                break
        if implementation.name in found:
            continue
        for fact in index.facts:
            if fact.kind != CONFIG or not _selects(implementation, fact) or not _read(index, fact):
                continue
            found[implementation.name] = CodeExpression(fact.file, fact.line, fact.end_line, fact.path,
                                                        implementation.forms[0], "<config>",
                                                        f"{fact.path}: {fact.value}", cell=fact.cell)
            break
    return found


def _built_and_run(implementation: operations.Implementation, records: list[FunctionRecord],
                   dead: Callable[..., bool], index: RepositoryIndex) -> bool:
    """Whether live code calls one of ``implementation.runs`` as a method of a library object (not a repository
    function) on a name that a live call of one of its ``calls`` is bound to, compared by last component
    (``self.optimizer = AdamW(...)`` then ``self.optimizer.step()``); ``dead`` is ``dead_functions``."""
    built = {c.target.rsplit(".", 1)[-1] for r in records if not dead(r) for c in r.expressions
             if c.target != "return" and not dead(r, c)
             and any(_functions(form) & implementation.calls for form in c.forms())}
    if not built:
        return False
    graph = index.analysis(build_call_graph)
    for node in sorted(graph.graph.nodes):
        if graph.liveness(node) == DEAD:
            continue
        for site in graph.callees_in_order(node):
            receiver, _, method = site.target.rpartition(".")
            if method in implementation.runs and site.callee is None and receiver.rsplit(".", 1)[-1] in built \
                    and _may_run_at(graph, site):
                return True
    return False


def _may_run_at(graph: CallGraph, place: CallSite | Mention) -> bool:
    """Whether the code at ``place`` (a call site or a mention, in its scope) may run: its scope is not dead, and
    no arm no run takes holds it (``CallGraph.branch_at``)."""
    branch = graph.branch_at(place.where, place.line)
    return graph.liveness(place.scope) != DEAD and (branch is None or graph.liveness(branch) != DEAD)


def _selects(implementation, fact) -> bool:
    """A configuration fact that turns ``implementation`` on: one of its keys, or a string value naming it (both
    compared after name normalisation)."""
    if names.normalise(fact.name) in {names.normalise(k) for k in implementation.keys}:
        return True
    return isinstance(fact.value, str) and \
        names.normalise(fact.value) in {names.normalise(v) for v in implementation.values}


def _read(index: RepositoryIndex, fact) -> bool:
    """A configuration key some code reads: by its name or a parent key's, or through dynamic unpacking."""
    return index.analysis(unpacked_passes).may_pass(fact) or any(index.reads.get(part, 0) > 0
                                                                 for part in fact.path.split("."))


def _line_of(index: RepositoryIndex, record: FunctionRecord, call: str) -> int:
    """The first line of ``record`` (from its start) that calls ``call``; its first line when none is found."""
    lines = index.lines.get(record.source_key, [])
    for number in range(record.line, len(lines) + 1):
        if f"{call}(" in lines[number - 1]:
            return number
    return record.line


def _match(claim: _Claim, code, leaves, functions, signs: bool, budget, hinted_only: bool = False) -> int | None:
    """How many of the claim's symbols follow their hints in the first renaming under which ``code`` equals the
    claim, or ``None`` when none does (``hinted_only``: only renamings that follow every hint are tried)."""
    symbols = claim.symbols
    if functions & equivalence.SIGN_SENSITIVE:  # relu(x), clip(x, 0, None) and max(0, x) evaluate alike
        functions = functions | equivalence.SIGN_SENSITIVE
    if not len(symbols) - 1 <= len(leaves) <= len(symbols) + 2 or not claim.functions <= functions \
            or not equivalence.may_match(code, claim.rhs):
        return None
    hint_sets = tuple(frozenset(claim.hints[s]) for s in symbols)
    for names_renamed, hinted in _renamed_names(symbols, tuple(leaves), hint_sets, hinted_only):
        if equivalence.matches(code, claim.values, names_renamed, claim.signs or signs, budget):
            return hinted
    return None


@lru_cache(maxsize=1 << 15)  # a claim meets the same leaves in many forms and candidates: one list per leaf set
def _renamed_names(symbols: tuple, leaves: tuple, hint_sets: tuple, hinted_only: bool) -> tuple:
    """``_renamings`` of ``leaves`` to ``symbols`` (``hint_sets``: each symbol's hints) as (code name -> formula
    name, how many symbols follow their hints) pairs, in ``_renamings``' order. The dicts are shared: read only."""
    hints = dict(zip(symbols, hint_sets))
    return tuple(({leaf.name: s.name for leaf, s in renaming.items()}, hinted)
                 for renaming, hinted in _renamings(symbols, list(leaves), hints, hinted_only))


def _scaled_factor(claim: _Claim, code: sympy.Basic, budget) -> sympy.Basic | None:
    """The factor of ``code`` (a product) that equals the tiny ``claim`` with every name following the glossary
    hints, when the rest of the product is a named scale (holds a symbol, not only numbers), or ``None``. Code
    often applies a paper's next step in the same line: ``u = self.W_u(h) * self.s_u`` binds the claimed
    ``u == h @ W_u`` already rescaled, which the paper writes as its own equation. Asked only at the binding of the
    formula's left-hand name, where a tiny formula may be decided; a constant factor (``2 * softmax(z)``) is a
    changed constant, left to the drift check."""
    if not isinstance(code, sympy.Mul):
        return None
    for factor in code.args:
        rest = code / factor
        if factor.is_Number or not any(not s.name.startswith("<") for s in rest.free_symbols):
            continue
        if _part_equals(claim, factor, budget):
            return factor
    return None


def _part_equals(claim: _Claim, part: sympy.Basic, budget) -> bool:
    """Whether ``part`` of a candidate equals ``claim`` under a renaming in which every name follows the glossary
    hints (a part is never matched through a name the hints do not give)."""
    leaves = _leaves(part)
    return len(leaves) == len(claim.symbols) and _match(
        claim, part, leaves, frozenset(_functions(part)), equivalence.sign_sensitive(part), budget,
        hinted_only=True) == len(claim.symbols)


def _part_match(candidate: CodeExpression, forms, claim: _Claim, keeps_small: bool, claimed_keys: _Claimed,
                search: _Search):
    """The subexpression of a form of ``candidate`` (a term of a weighted sum, the argument of a softmax, a factor)
    that equals the claim with every name following the glossary hints, or ``None``."""
    for form in forms:
        code, _, _, _, _ = _profile(candidate, form, keeps_small, claimed_keys, search.cache, search.budget)
        for part in _parts(code):
            if _part_equals(claim, part, search.budget):
                return part
    return None


@lru_cache(maxsize=1 << 14)  # every formula with a part search asks for the parts of the same candidate forms
def _parts(expression: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """The proper subexpressions of ``expression`` worth comparing (not a lone symbol or number), outermost first,
    at most ``MAX_PARTS``."""
    found: dict[sympy.Basic, None] = {}  # in order; membership by hash (equal expressions hash alike)
    queue = [(expression, arg) for arg in expression.args]
    while queue and len(found) < MAX_PARTS:
        parent, node = queue.pop(0)
        # x in -x or 2 * x is the whole up to a constant: a sign or a factor of the whole, not a part of it
        scaled = isinstance(parent, sympy.Mul) and all(a.is_Number for a in parent.args if a is not node)
        if node.is_Atom or node in found:
            continue
        if not scaled:
            found[node] = None
        queue.extend((node, arg) for arg in node.args)
        if isinstance(node, sympy.Mul) and len(node.args) > 2:
            # the factors of a product that read one name: nu * sigmoid(nu) inside a gated product whose other
            # factors are many scales (u's own), which removing one factor at a time would not reach in time
            for symbol in sorted(node.free_symbols, key=str):
                grouped = [a for a in node.args if symbol in a.free_symbols]
                if 1 < len(grouped) < len(node.args):
                    queue.append((node, sympy.Mul(*grouped)))
        if isinstance(node, (sympy.Mul, sympy.Add)) and len(node.args) > 2:
            # a product or sum less one of its factors or terms: v * sigmoid(v) inside u * v * sigmoid(v)
            queue.extend((node, node / arg if isinstance(node, sympy.Mul) else node - arg) for arg in node.args
                         if not arg.is_Number)
    return tuple(found)


# activations of the table that are also plain arithmetic (a softmax's exp, a norm's sqrt): no layer's activation
_ELEMENTARY = frozenset({"exp", "log", "sqrt", "abs", "sin", "cos", "softmax"})


def _placeholder_variant(claim: _Claim, functions, table, glossary: dict, variants: dict) -> _Claim:
    """The claim with its placeholder function (``sigma``, ``f``, ``activation``: one letter, a lone Greek letter,
    or a name listed under ``placeholders``) renamed to the one function the code uses in its place, when the
    code has exactly one function the claim lacks (for a name listed under ``placeholders``, ``act``, failing any
    other, one library activation: ``act(x)`` for ``nn.gelu(x)``). ``sigma(W @ h)`` then matches
    ``self.act(self.down(h))``. A tiny
    claim (``a_pi == activ(z_pi)``) is renamed too: ``y == E(x)`` matches any call of anything, so it settles only
    where tiny formulas do (every name following the glossary, at the binding it ties to the claim). Failing a
    placeholder, the claim's one layer (``linear_head`` in ``pred == linear_head(z_sa)``; code names a layer after
    its place, ``self.model``) is renamed the same way, and the variant is read as tiny whatever its size: any
    call in the same place fits it (``mlp(h) / norm(mlp(h))`` fits a normalised input embedding), so only the
    binding the glossary ties to the claim decides it."""
    placeholders = _placeholders(claim.rhs)
    layer = not placeholders
    placeholders = placeholders or _claimed_layers(claim.rhs)
    if len(placeholders) != 1:
        return claim
    spare = sorted(_spare(claim, functions, table))
    if not spare and placeholders[0] in table.placeholders:  # "the activation" filled by a library one (gelu)
        spare = sorted(f for f in functions if f not in claim.functions and f in table.activations
                       and f not in _ELEMENTARY)
    if len(spare) != 1:
        return claim
    key = ("placeholder", claim.rhs, spare[0])
    if key not in variants:
        name = placeholders[0]
        rhs = claim.rhs.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == name,
                                lambda e: sympy.Function(spare[0])(*e.args))
        renamed = _claim(rhs, glossary)
        variants[key] = (replace(renamed, tiny=True) if layer else renamed) if renamed else claim
    return variants[key]


def _spelled_variant(claim: _Claim, functions, table, glossary: dict, variants: dict) -> _Claim:
    """The claim with each function of its own (not an operation, activation, placeholder or structural function
    of the translation, and not one the code calls as written) renamed to the one function the code calls that is
    spelled the same way under the project's name normalisation (``names.normalise``: ``GRU`` for ``self.gru``,
    ``CrossAttn`` for ``self.cross_attn``), or the claim itself when none is: a paper names a module the way code
    names its attribute. A function of the code two of the claim's functions or several of its own spell alike
    is no one's."""
    own = [n for n in sorted(claim.functions) if n not in functions and n not in table.operations
           and n not in table.activations and n not in table.placeholders and n not in _STRUCTURAL
           and not names.is_generic(n)]
    if not own:
        return claim
    spelled: dict[str, list[str]] = {}
    for name in sorted(functions):
        if name not in claim.functions:
            spelled.setdefault(names.normalise(name), []).append(name)
    renamed = {n: spelled[names.normalise(n)][0] for n in own if len(spelled.get(names.normalise(n), ())) == 1}
    targets = list(renamed.values())
    renamed = {n: f for n, f in renamed.items() if targets.count(f) == 1}
    if not renamed:
        return claim
    key = ("spelled", claim.rhs, tuple(sorted(renamed.items())))
    if key not in variants:
        rhs = claim.rhs.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ in renamed,
                                lambda e: sympy.Function(renamed[e.func.__name__])(*e.args))
        spelled_claim = _claim(rhs, glossary)
        # tiny as the claim was: the renamed call is still one call of one module
        variants[key] = replace(spelled_claim, tiny=claim.tiny) if spelled_claim is not None else claim
    return variants[key]


def _spare(claim: _Claim, functions, table) -> frozenset[str]:
    """The functions a candidate calls that the claim does not and the operations table does not know (nor the
    structural ones): the repository's own layers and modules, which a claim's placeholder or layer may stand for.
    Never a name another output of a call reads as (``_output_part``): a recurrent module's cell state or per-step
    output, a top-k's indices, is no layer the claim applies, and filling a placeholder with it would make any
    output of the call fit."""
    return frozenset(f for f in functions if f not in claim.functions and f not in table.activations
                     and f not in table.operations and f not in _STRUCTURAL and not _output_part(f))


def _output_part(name: str) -> bool:
    """Whether ``name`` is what another output of a call returning several reads as
    (``operations.output_part_names``): ``topk_indices``, or an attribute's name followed by a library module's other
    part (``lstm_c_n``, ``gru_output``; a repository function so named, ``decoder_output``, too: the part words are
    the table's)."""
    calls, parts = operations.output_part_names()
    return name in calls or any(name.endswith("_" + part) and len(name) > len(part) + 1 for part in parts)


# words of a claimed function's name that make it a layer (``linear1``, ``linear_head``, ``conv2``)
_LAYER_WORDS = frozenset({"linear", "layer", "conv", "mlp", "fc", "dense", "proj", "head"})


def _layers_variant(claim: _Claim, code: sympy.Basic, functions, table, glossary: dict, variants: dict) -> _Claim:
    """The claim with its numbered layers (``linear3(elu(layer_norm(linear2(...))))``) renamed to the code's own
    layer calls (``self.zs_mlp3``, ``self.zs_mlp2``, ...), matched by how deeply each is nested: code names each
    layer after its place in the model, a paper after its order. Only when the claim has two or more layers, the
    code as many calls of functions the claim and the operations table lack, and every one of them sits at a depth
    of its own on both sides (a chain of layers); otherwise the claim as it is. A placeholder function of the claim
    (``activ(linear3(...))``) keeps the code's function at its own depth (``gumbel_softmax``), left to
    ``_placeholder_variant``."""
    layers = _claimed_layers(claim.rhs)
    if len(layers) < 2:
        return claim
    spare = _spare(claim, functions, table)
    placeholders = _placeholders(claim.rhs)
    if len(spare) != len(layers) + (len(placeholders) if len(placeholders) == 1 else 0):
        return claim
    ordered = _by_depth(code, spare)
    if ordered is None:
        return claim
    if len(ordered) > len(layers):  # the placeholder's function sits where the claim has the placeholder
        at = _by_depth(claim.rhs, frozenset(layers) | frozenset(placeholders))
        if at is None:
            return claim
        ordered = tuple(f for f, claimed in zip(ordered, at) if claimed not in placeholders)
    key = ("layers", claim.rhs, ordered)
    if key not in variants:
        renamed = dict(zip(layers, ordered))
        rhs = claim.rhs.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ in renamed,
                                lambda e: sympy.Function(renamed[e.func.__name__])(*e.args))
        variants[key] = _claim(rhs, glossary) or claim
    return variants[key]


# words of a claimed function's name that make it a stack of layers (``mlp``, ``conv_stack``): code writes such a
# network out as its layers, each called in turn with activations and normalisations between them
_STACK_WORDS = frozenset({"mlp", "ffn", "stack", "cnn", "layers", "blocks"})
# the library layer classes a stack's word admits (PyTorch's, Flax's and Keras's spelling); a word not here (stack,
# layers, blocks) admits every family
_LINEAR_LAYERS = ("Linear", "LazyLinear", "Dense")
_CONV_LAYERS = ("Conv1d", "Conv2d", "Conv3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "Conv", "Conv1D", "Conv2D",
                "Conv3D")
_STACK_LAYERS = {"mlp": _LINEAR_LAYERS, "ffn": _LINEAR_LAYERS, "cnn": _CONV_LAYERS, "conv": _CONV_LAYERS}


def _stacked_variant(claim: _Claim, code: sympy.Basic, functions, table, glossary: dict, variants: dict,
                     built: dict[str, str], own: frozenset[str]) -> _Claim:
    """The claim with its one stack of layers (``conv_stack``, ``mlp``: a ``_STACK_WORDS`` word in the name) written
    out as the chain of layer calls the code makes in its place, or the claim as it is. Only for a claim that is a
    chain of one-argument functions down to the stack (``elu(layer_norm(linear(conv_stack(x))))``, or
    ``mlp(concat(z_s, z_a))``) and code that is such a chain too: the functions above the stack meet the code's one
    by one (the same function, or for a claimed layer such as ``linear``, any call of the code's own: it is renamed
    to it), and the stack takes the code's calls below them while they are layer calls, activations or
    normalisations, down to the argument the claim gives it, with two layers at least of the kind the stack's name
    gives (``_STACK_LAYERS``: a convolution for ``conv_stack``, a linear layer for ``mlp``) and something other than a
    layer between two of them (layers in a row compose to one linear map), each built by the
    class's ``__init__`` (``built``: ``FunctionRecord.built``). A submodule of another library class (a transformer
    encoder in an MLP's place, linear layers for a CNN, a ``LinearAttention``) or one ``__init__`` does not build (a
    backbone passed in) ends the chain; one of the repository's own classes (``own``) may sit between the layers.
    Used only to find an equivalent, never to name a drift: the stack's inside is the code's, not the claim's."""
    stacks = [n for n in claim.functions if n not in table.operations and _STACK_WORDS & set(names.words(n))]
    if len(stacks) != 1:
        return claim
    key = ("stacked", claim.rhs, code, frozenset(built.items()))
    if key in variants:
        return variants[key]
    variants[key] = claim
    spare = _spare(claim, functions, table)
    layers = frozenset(_claimed_layers(claim.rhs)) | {stacks[0]}
    outer: list[str] = []
    node, at = claim.rhs, code
    while isinstance(node, AppliedUndef) and node.func.__name__ != stacks[0]:
        name = node.func.__name__
        if len(node.args) != 1 or not isinstance(at, AppliedUndef) or len(at.args) != 1:
            return claim
        if name in layers and at.func.__name__ in spare:
            outer.append(at.func.__name__)
        elif name == at.func.__name__:
            outer.append(name)
        else:
            return claim
        node, at = node.args[0], at.args[0]
    if not isinstance(node, AppliedUndef) or len(node.args) != 1:
        return claim
    words = set(names.words(stacks[0]))
    admitted = tuple(c for word in words & set(_STACK_LAYERS) for c in _STACK_LAYERS[word]) \
        or tuple(c for family in _STACK_LAYERS.values() for c in family)
    chain: list = []  # the code's own functions (sympy's tanh stays sympy's)
    layer_steps: list[bool] = []  # whether each step of the chain is a counted layer
    while isinstance(at, sympy.Function) and len(at.args) == 1 and (
            at.func.__name__ in spare or at.func.__name__ in table.activations or _normalising(at.func.__name__)):
        cls = built.get(at.func.__name__) if at.func.__name__ in spare else None
        if cls not in admitted and at.func.__name__ in spare and cls not in own:
            # another library module (nn.TransformerEncoder, a linear layer in a CNN, a LinearAttention), or a
            # module __init__ does not build (a backbone passed in): not this stack
            break
        layer_steps.append(cls in admitted)
        chain.append(at.func)
        at = at.args[0]
    layers_at = [i for i, layer in enumerate(layer_steps) if layer]
    # two layers at least, with a non-linearity (or a module of the repository's own) between two of them: linear
    # layers in a row compose to one linear map, no stack
    if len(layers_at) < 2 or all(layer_steps[layers_at[0]:layers_at[-1] + 1]):
        return claim
    rhs = node.args[0]
    for function in reversed([sympy.Function(name) for name in outer] + chain):
        rhs = function(rhs)
    stacked = _claim(rhs, glossary)
    # written out, a tiny claim (q == mlp(s)) is tiny still: it holds only at the binding the glossary ties to it,
    # not at any other network of that shape
    variants[key] = replace(stacked, tiny=claim.tiny) if stacked is not None else claim
    return variants[key]


def _normalising(name: str) -> bool:
    """Whether a call of ``name`` normalises its input (``layer_norm``, ``rms_norm``): a step inside a stack."""
    return name in ("layer_norm", "rms_norm", "group_norm", "batch_norm")


@lru_cache(maxsize=1 << 12)
def _claimed_layers(rhs: sympy.Basic) -> tuple[str, ...]:
    """The claim's layer functions (a ``_LAYER_WORDS`` word in the name, digits aside), outermost first, or ``()``
    when two sit at the same depth."""
    table = operations.load()
    names_found = frozenset(n for n in _undefined_names(rhs) if n not in table.operations
                            and _LAYER_WORDS & set("".join(c for c in n.lower() if not c.isdigit()).split("_")))
    return _by_depth(rhs, names_found) or ()


@lru_cache(maxsize=1 << 14)
def _by_depth(expression: sympy.Basic, wanted: frozenset[str]) -> tuple[str, ...] | None:
    """The function names ``wanted`` ordered by the depth of their first call in ``expression`` (outermost
    first), or ``None`` when one is missing or two share a depth."""
    depth: dict[str, int] = {}
    level, seen = [expression], set()
    for number in range(64):
        following = []
        for node in level:
            if node in seen:
                continue
            seen.add(node)
            if isinstance(node, AppliedUndef) and node.func.__name__ in wanted:
                depth.setdefault(node.func.__name__, number)
            following.extend(node.args)
        if not following:
            break
        level = following
    if set(depth) != set(wanted) or len(set(depth.values())) != len(depth):
        return None
    return tuple(sorted(depth, key=lambda n: depth[n]))


@lru_cache(maxsize=1 << 12)  # asked for every candidate form of every formula
def _placeholders(rhs: sympy.Basic) -> tuple[str, ...]:
    """The function names of ``rhs`` that stand for some function (see ``_placeholder_variant``) in the packaged
    operations table, sorted: the generic ones (``_generic_placeholders``), failing any, the networks named by their
    parameters (``eps_theta``, ``_network``) that the claim applies inside a formula of its own."""
    table = operations.load()
    generic = _generic_placeholders(rhs)
    # a claim that is only the network applied (a_next == pi_theta(o_next)) would match any call of any network:
    # what it says is which input the network gets, which names alone do not tell
    whole = rhs.func.__name__ if isinstance(rhs, AppliedUndef) else None
    return generic or tuple(sorted(n for n in _undefined_names(rhs)
                                   if _network(n, table.network_parameters) and n != whole))


@lru_cache(maxsize=1 << 12)
def _generic_placeholders(rhs: sympy.Basic) -> tuple[str, ...]:
    """The function names of ``rhs`` that say only "some function": a name listed under ``placeholders``, one
    letter or a lone Greek letter (not an activation of the table), sorted. A network named by its parameters
    (``eps_theta``) is a placeholder only where the claim has none of these (``_placeholders``), and stays a
    quantity the code may hold in a local (``noise_pred``: ``_quantity_calls``)."""
    table = operations.load()
    return tuple(sorted(n for n in _undefined_names(rhs)
                        if n in table.placeholders or (names.is_generic(n) and n not in table.activations)))


def _network(name: str, parameters: frozenset[str]) -> bool:
    """Whether ``name`` names a learned network by its parameters (``eps_theta``, ``f_phi``): a role
    followed by one of ``parameters`` (``Operations.network_parameters``)."""
    parts = names.words(name)
    return len(parts) >= 2 and parts[-1] in parameters


def _weights(rhs: sympy.Basic, hints: dict, glossary: dict) -> dict:
    """The formula's learned weights, with their hints: symbols multiplied with ``@`` (``W_q`` in ``h @ W_q``), and
    the last argument of a function the formula applies when its glossary meaning says it holds weights
    (``_network_weights``: ``w_p`` in ``p(a, w_p)``, a network written with its weights)."""
    found = {}
    for node in rhs.atoms(AppliedUndef):
        if node.func.__name__ == "matmul":
            operands = node.args
        elif len(node.args) >= 2 and _network_weights(node.args[-1], glossary):
            operands = node.args[-1:]
        else:
            continue
        for operand in operands:
            if isinstance(operand, sympy.Symbol) and operand in hints:
                found[operand] = hints[operand]
    return found


# a glossary meaning that says a network's argument is its learned weights (``p(a, w_p)``, "lifting weights")
_WEIGHT_WORDS = frozenset({"weights", "parameters", "params"})


def _network_weights(symbol: sympy.Basic, glossary: dict) -> bool:
    """Whether ``symbol``, the last argument of a function a formula applies, is that network's learned weights:
    a symbol whose glossary meaning has a ``_WEIGHT_WORDS`` word (``f(x, w)``, the paper's ``f(x; w)``)."""
    return isinstance(symbol, sympy.Symbol) \
        and bool(_WEIGHT_WORDS & set(names.words(glossary.get(symbol.name, {}).get("meaning", ""))))


# a glossary meaning that says the symbol is a learned matrix (plural: a "KL weight" is a scalar)
_MATRIX_WORDS = frozenset({"weights", "matrix", "kernel"})


def _orientations(base: _Claim, glossary: dict) -> tuple[_Claim, ...]:
    """The claim with each product by a learned matrix (a symbol whose glossary meaning has a ``_MATRIX_WORDS``
    word) written in the row convention (``x @ W``) and in the column one (``W @ x``), those that differ from
    ``base``: code stores a weight in either layout (Flax's kernels are (in, out), torch's Linear (out, in)), and a
    paper's ``R * F(v)`` for a per-mode matrix is a matrix product. A product of the matrix and one other factor
    reads so; numbers stay factors."""
    matrices = {s for s in base.symbols
                if _MATRIX_WORDS & set(names.words(glossary.get(s.name, {}).get("meaning", "")))}
    if not matrices:
        return ()

    def written(row: bool):
        def product(node):
            if isinstance(node, AppliedUndef) and node.func.__name__ == "matmul" and len(node.args) == 2:
                left, right = node.args
                matrix, other = (right, left) if right in matrices else (left, right)
            elif isinstance(node, sympy.Mul):
                numbers = [a for a in node.args if a.is_Number]
                rest = [a for a in node.args if not a.is_Number]
                inside = [a for a in rest if a in matrices]
                if len(rest) != 2 or len(inside) != 1:
                    return None
                matrix, other = inside[0], next(a for a in rest if a is not inside[0])
                return sympy.Mul(*numbers, _MATMUL(other, matrix) if row else _MATMUL(matrix, other))
            else:
                return None
            return _MATMUL(other, matrix) if row else _MATMUL(matrix, other) if matrix in matrices else None
        return product

    found: list[_Claim] = []
    for row in (True, False):
        rewrite = written(row)
        rhs = base.rhs.replace(lambda e: rewrite(e) is not None, rewrite)
        claim = _claim(rhs, glossary) if rhs != base.rhs else None
        if claim is not None and claim.rhs not in (c.rhs for c in found):
            found.append(claim)
    return tuple(found)


def _residual(lhs: sympy.Symbol | None, base: _Claim, glossary: dict, words: frozenset[str]) -> tuple[_Claim, ...]:
    """The claim ``rhs - lhs`` (one claim, or none) for a recursive equation ``lhs == rhs`` (``_recursive``) whose
    left-hand side is a glossary symbol the right-hand side does not hold, where the statement or the mechanism
    (``words``) names a method built on its residual (``residual_words`` of ``rules/words.yaml``: GAE, an advantage):
    code computes a Bellman equation (``V == R + gamma * V_next``) as its residual, the TD error ``delta = r + gamma
    * v_next - v`` that GAE sums (Sutton and Barto, Reinforcement Learning, 2nd ed., Eq. 6.5; Schulman et al. 2016,
    GAE). Only recursive equations: any other one would read a fit's error (``W @ x + b - y``) as the claim ``y == W
    @ x + b``; and not for a statement about a regression onto the target (``V`` fitted to ``r + gamma * V_next``),
    where the same residual may be what the critic is wrongly regressed onto."""
    if lhs is None or lhs in base.symbols or lhs.name not in glossary or not words & _RESIDUAL_WORDS \
            or not _recursive(lhs, base.symbols, glossary):
        return ()
    found = _claim(base.rhs - lhs, glossary)
    return (found,) if found is not None else ()


_RESIDUAL_WORDS = word_list("residual_words", "rules")


def _recursive(lhs: sympy.Symbol, symbols: tuple[sympy.Symbol, ...], glossary: dict) -> bool:
    """Whether a right-hand symbol is the left-hand one a step away: named as shifted (``_names_shift``: ``V_next``)
    with the other words of its name all words of the left-hand name (``V_next`` for ``V_option``), or a code name
    the glossary gives it, without its shift words, one the glossary gives the left-hand side (``next_values`` for
    ``values``). Words are compared before any normalisation, which reads ``next_values`` as ``next``."""
    def keys(name: str) -> set[str]:
        return {*_name_keys(name), names.squashed(name)}

    own = {key for name in _written(lhs.name, glossary) for key in keys(name)}
    for symbol in symbols:
        if not _names_shift(symbol):
            continue
        stem = set(names.words(symbol.name)) - _SHIFTS
        if stem and stem <= set(names.words(lhs.name)):
            return True
        for name in _written(symbol.name, glossary):
            words = names.words(name)
            kept = [w for w in words if w not in _SHIFTS]
            if kept and len(kept) < len(words) and keys("_".join(kept)) & own:
                return True
    return False


def _written(symbol: str, glossary: dict) -> tuple[str, ...]:
    """A symbol's name (its root, before any ``.``) and the code names the glossary gives it, as written (last
    components)."""
    root = symbol.split(".")[0]
    entry = glossary.get(root, {})
    return (root, *(_last_part(n) for n in entry.get("code_names", ())))


_MATMUL = sympy.Function("matmul")
# how many distinct functions a formula applies before live code applying them all may be computing it unread
# (``_compare``'s live_shaped): exp, sum and matmul for attention; one or two (a sum, a log) are everywhere
_SHAPE_FUNCTIONS = 3


def _layer_variant(base: _Claim, weights: dict, functions: frozenset[str], glossary: dict, variants: dict) -> _Claim:
    """The claim as code with layers writes it: a product with a matrix the glossary names after a layer the code
    calls (``h @ W_q`` where the code calls ``self.W_q(h)``, an ``nn.Linear``) becomes that call. Either order of
    the product reads as the layer call, since papers write ``W x`` or ``x W`` for the same layer."""
    calls = {}
    for symbol, hints in weights.items():
        name = next((f for f in sorted(functions) if names.normalise(f) in hints
                     or _layer_rest(names.normalise(f)) in hints), None)
        if name is not None:
            calls[symbol] = name
    if not calls:
        return base
    key = tuple(sorted((s.name, n) for s, n in calls.items()))
    if key not in variants:
        def product(node) -> bool:
            return node.func.__name__ == "matmul" and len(node.args) == 2 and any(a in calls for a in node.args)

        def applied(node) -> bool:  # p(a, w_p): the network its weights name, applied to the rest
            return node.func.__name__ != "matmul" and len(node.args) >= 2 and node.args[-1] in calls \
                and _network_weights(node.args[-1], glossary)

        def layer(node):
            if applied(node):
                return sympy.Function(calls[node.args[-1]])(*node.args[:-1])
            left, right = node.args
            if right in calls:
                return sympy.Function(calls[right])(left)
            return sympy.Function(calls[left])(right)

        rhs = base.rhs.replace(lambda e: isinstance(e, AppliedUndef) and (product(e) or applied(e)), layer)
        variants[key] = _claim(rhs, glossary) or base
    return variants[key]


def _drift(text, candidate, code, leaves, claim: _Claim, result, seen, specific, budget, decide: bool = True):
    """The first drift seen, updated: a candidate whose names all follow the glossary hints and that differs from
    the formula in a way ``classify`` names; not when ``decide`` is false (a candidate in code no run reaches: a
    difference there is no drift of what runs, but the candidate still supports the estimate). A formula symbol the
    code lacks may only be part of a missing term or factor (otherwise the code may hold it as a constant, and
    nothing is proved). Such candidates are also the nearest ones for the LLM fallback."""
    renaming = _hint_renaming(leaves, claim.hints)
    rhs = claim.rhs
    if renaming is None or dag_size(code, 1000) * 2 < dag_size(rhs, 1000):
        return seen
    _add_near(result, candidate)
    result.supported = True
    if seen is not None or not decide:
        return seen
    difference = classify(substitute(code, renaming), rhs, specific, budget)
    if difference is None:
        return seen
    unmapped = set(claim.symbols) - set(renaming.values())
    if unmapped and not (difference.kind in ("missing", "missing factor") and difference.term is not None
                         and unmapped <= difference.term.free_symbols):
        return seen
    if difference.kind == "missing" and difference.term is not None and _only_masks(difference.term, claim):
        # a mask left out here is applied on another path (a fused kernel taken only when no mask is given, the
        # masked_fill fallback beside it) or by the caller: no evidence that the claimed mask is missing
        return seen
    return FormulaResult(text, DRIFTED, candidate, difference.text, 0.0 if difference.kind == "sign" else 0.5)


def _only_masks(term: sympy.Basic, claim: _Claim) -> bool:
    """Whether every symbol of ``term`` is a mask: a glossary hint (its code names) or the name has the word
    ``mask`` (``M`` with code names ``attn_mask``, ``causal_mask``)."""
    symbols = [s for s in term.free_symbols if isinstance(s, sympy.Symbol)]
    return bool(symbols) and all(
        any(_MASK_WORDS & set(h.split("_")) for h in claim.hints.get(s, ()) | {s.name.lower()}) for s in symbols)


def _part_drift(text, candidate, part: sympy.Basic, claim: _Claim, specific, budget) -> FormulaResult | None:
    """A drift of ``part`` of a candidate against the claim: the first renaming of its leaves that follows every
    glossary hint (one leaf per symbol), and the difference ``classify`` names under it, or ``None``. Only ever
    used to contradict another site (a part of a sum is not what the code computes)."""
    leaves = _leaves(part)
    if len(leaves) != len(claim.symbols):
        return None
    for renaming, hinted in _renamings(claim.symbols, list(leaves), claim.hints, hinted_only=True):
        if hinted < len(claim.symbols):
            return None
        difference = classify(substitute(part, renaming), claim.rhs, specific, budget)
        if difference is None:
            return None
        return FormulaResult(text, DRIFTED, candidate, f"{difference.text}, in the part {part}",
                             0.0 if difference.kind == "sign" else 0.5)
    return None


def _hint_renaming(leaves: list[sympy.Basic], hints: dict) -> dict | None:
    """Every code leaf renamed to the formula symbol whose hints name it (each symbol used once), or ``None`` when a
    leaf follows no hint."""
    renaming, used = {}, set()
    for leaf in leaves:
        key = _leaf_key(leaf)
        symbol = next((s for s in hints if s not in used and _follows(leaf, key, hints[s])), None)
        if symbol is None:
            return None
        renaming[leaf] = symbol
        used.add(symbol)
    return renaming


def _add_near(result: FormulaResult, candidate: CodeExpression) -> None:
    if candidate not in result.near and len(result.near) < _CANDIDATES_SHOWN:
        result.near.append(candidate)


# ``self.R = nn.Parameter(...)``: an attribute bound to a parameter autograd trains (``requires_grad=False`` aside)
_PARAMETER = re.compile(r"[\w.]+\s*(?::[^=]*)?=\s*(?:[\w.]+\.)?Parameter\(")
_FROZEN = re.compile(r"requires_grad\s*=\s*False")
_GRADIENT = sympy.Symbol("grad")  # the gradient arriving at a product, which autograd carries back to its factors


@lru_cache(maxsize=1)
def _gradient_template() -> tuple[sympy.Basic, sympy.Symbol, sympy.Symbol]:
    """(the gradient of ``X @ P @ Y`` in ``P``, ``X.T @ grad @ Y.T``, read as claims are; the symbols X and Y)."""
    before, after = sympy.Symbol("X"), sympy.Symbol("Y")
    return parse_formula("X.T @ grad @ Y.T", operations.load()), before, after


def autograd_gradients(index: RepositoryIndex) -> tuple[tuple[FunctionRecord, CodeExpression], ...]:
    """Analysis provider: the gradients autograd gives trained parameters, as candidates (record, candidate) no
    statement writes. Where live code calls ``backward()`` and an attribute ``P`` bound to ``nn.Parameter(...)``
    in live code (not ``requires_grad=False``) is the middle factor of a product ``X @ P @ Y`` in a live
    candidate's form (times a factor ``c``, ``_scale_of``: ``W0 + s * (B @ R @ A)``), backpropagation gives
    ``P.grad = c * X.T @ grad @ Y.T`` with ``grad`` the gradient arriving at the scaled product (the derivative of
    a trace form, Petersen and Pedersen, "The Matrix Cookbook", eq. 70-71), from the form as written and from its
    modes (``_modes``: a class constant read as its value, ``self.s`` as the 1.0 ``__init__`` sets). Derived from
    the last use only: a local a later statement of its function reads (``delta_W = B @ R @ A`` before ``W = W0 + s
    * delta_W``) is no use of its own, its gradient there lacking the later factor. The candidate spans the forward from the line that writes
    the product to that last use, target ``P.grad``; none for a parameter whose gradient live code overwrites
    (``P.grad = ...``, any method of ``P.grad``: ``copy_``) or hooks (``P.register_hook``)."""
    dead: Callable[..., bool] = index.analysis(dead_functions)
    live = [r for r in index.analysis(candidates) if not is_test_path(r.file) and not dead(r)]
    if not any("backward" in r.callees for r in live):
        return ()
    trained = {c.target.rsplit(".", 1)[-1] for r in live for c in r.expressions if "." in c.target
               and not dead(r, c) and _PARAMETER.match(c.text) and not _FROZEN.search(c.text)}
    trained -= _gradients_overwritten(live, dead, index)
    if not trained:
        return ()
    template, before, after = _gradient_template()
    found: list[tuple[FunctionRecord, CodeExpression]] = []
    for record in live:
        derived: dict[sympy.Basic, CodeExpression] = {}
        read_later: set[str] = set()  # the locals the statements after each candidate read
        for candidate in reversed(record.expressions):
            used = candidate.target in read_later
            read_later |= candidate.locals_read
            if used or dead(record, candidate):
                continue
            # each helper's call as written (``choice``'s first), then read as its returns and each class constant as
            # its value (``self.s`` as the 1.0 ``__init__`` sets): a mode may give the gradient a claim writes
            for form in itertools.chain(*_modes(candidate.forms())):
                for product, parameter, gradient in _parameter_products(form, frozenset(trained), template, before,
                                                                        after):
                    written = next((c for c in record.expressions for f in c.forms() if product in _nodes(f)),
                                   candidate)
                    # from the line writing the product to its last use: the forward autograd differentiates
                    derived.setdefault(gradient, CodeExpression(
                        written.file, written.line, max(written.end_line, candidate.end_line),
                        f"{parameter.name}.grad", gradient, written.function, written.text, cell=written.cell))
        found.extend((record, c) for c in derived.values())
    return tuple(found)


def _parameter_products(form: sympy.Basic, trained: frozenset[str], template: sympy.Basic, before: sympy.Symbol,
                        after: sympy.Symbol):
    """Each product ``X @ P @ Y`` of ``form`` whose middle factor is a leaf named after one of ``trained`` (last
    component): (the product, that leaf, the gradient autograd gives it: ``template`` over ``before`` and
    ``after``, times the other factors of the product that holds it)."""
    for node in _nodes(form):
        if not (isinstance(node, AppliedUndef) and node.func == _MATMUL and len(node.args) == 2):
            continue
        left, right = node.args
        if isinstance(left, AppliedUndef) and left.func == _MATMUL and len(left.args) == 2:
            factors = (left.args[0], left.args[1], right)
        elif isinstance(right, AppliedUndef) and right.func == _MATMUL and len(right.args) == 2:
            factors = (left, right.args[0], right.args[1])
        else:
            continue
        middle = factors[1]
        if not isinstance(middle, sympy.Symbol) or middle.name.rsplit(".", 1)[-1] not in trained:
            continue
        yield node, middle, _scale_of(form, node) * template.xreplace({before: factors[0], after: factors[2]})


# functions linear in each argument: a factor outside them still scales what arrives at an argument
_LINEAR_MAPS = frozenset({"matmul", "linear", "transpose", "sum", "mean", "getitem"})


def _scale_of(expression: sympy.Basic, target: sympy.Basic) -> sympy.Basic:
    """The factors that multiply ``target`` in ``expression`` before a non-linear function applies: along the first
    path from the root down to ``target``, the other factors of each product it passes, through sums and
    ``_LINEAR_MAPS`` (``scaling * F.linear(x, B @ R @ A)`` scales ``B @ R @ A`` by ``scaling``), and none of those
    above another function (a softmax's argument is scaled only inside it)."""
    scale: sympy.Basic = sympy.Integer(1)
    node = expression
    while node != target:
        inner = next((a for a in node.args if a == target or target in frozenset(_nodes(a))), None)
        if inner is None:
            break
        if isinstance(node, sympy.Mul):
            scale = scale * sympy.Mul(*(a for a in node.args if a is not inner))
        elif not isinstance(node, sympy.Add) and not (isinstance(node, AppliedUndef)
                                                      and node.func.__name__ in _LINEAR_MAPS):
            scale = sympy.Integer(1)
        node = inner
    return scale


def _gradients_overwritten(live: list[FunctionRecord], dead: Callable[..., bool], index: RepositoryIndex) -> set[str]:
    """The last names of the attributes whose gradient live code sets itself: assigned (``self.R.grad = g``),
    changed by a method of it (``module.R.grad.copy_(g)``) or hooked (``self.R.register_hook(f)``)."""
    found = {parts[-2] for r in live for c in r.expressions if not dead(r, c)
             for parts in [c.target.split(".")] if len(parts) >= 2 and parts[-1] == "grad"}
    graph = index.analysis(build_call_graph)
    for node in sorted(graph.graph.nodes):
        if graph.liveness(node) == DEAD:
            continue
        for site in graph.callees_in_order(node):
            parts = site.target.split(".")
            found |= {parts[i - 1] for i in range(1, len(parts) - 1) if parts[i] == "grad"}
            if len(parts) >= 2 and parts[-1] == "register_hook":
                found.add(parts[-2])
    return found


def candidates(index: RepositoryIndex) -> list[FunctionRecord]:
    """Analysis provider: the function records of the repository with their candidate expressions, translated
    through the operations table (``extractors.expressions``)."""
    return code_expressions(index, operations.load())


def dead_functions(index: RepositoryIndex) -> Callable[[FunctionRecord], bool]:
    """Analysis provider: a predicate telling whether a function record is dead in the call graph
    (``extractors.callgraph``: no entry point reaches it, not even through a guess or a decorator), or, given one of
    its candidates, whether that candidate's line is in an arm no run takes (``CallGraph.branch_at``). Top-level
    code, and functions the graph does not know, are not dead."""
    graph = index.analysis(build_call_graph)
    by_node = {id(info.node): qualname for qualname, info in graph.functions.items()}

    def dead(record: FunctionRecord, candidate: CodeExpression | None = None) -> bool:
        qualname = by_node.get(id(record.node)) if record.node is not None else None
        if qualname is not None and graph.liveness(qualname) == DEAD:
            return True
        branch = graph.branch_at(candidate.where, candidate.line) if candidate is not None else None
        return branch is not None and graph.liveness(branch) == DEAD  # an arm no run takes, in live code

    return dead


def _profile_cache(index: RepositoryIndex) -> dict:
    """Analysis provider: the per-candidate profiles ``_profile`` computes, kept as long as the candidates are."""
    return {}


def _accepted(tiny: bool, everyone: bool, most: bool, relevant: bool, on_target: bool, tied: bool,
              has_lhs: bool) -> bool:
    """Whether an equivalent candidate settles the formula. A tiny formula (``a / b``) matches much code by chance:
    only with every name following the hints, at the binding the glossary ties to the claim (assigned to the
    equation's left-hand name; without one, in the mechanism's scope). A larger one: every name following the
    hints, or assigned to the equation's left-hand name, or in scope with most (over half) names following the
    hints."""
    if tiny:
        return everyone and (tied if has_lhs else relevant)
    return everyone or on_target or (relevant and most)


# the reason of a formula of one symbol found at an alias of its left-hand name (``_bound_as_claimed``)
_ALIAS = "an alias of its left-hand name, which says only which name holds which: counted, not settled on"


def _bound_as_claimed(claim: _Claim, code: sympy.Basic, candidate: CodeExpression, on_target: bool) -> bool:
    """Whether an equivalent ``code`` may count for ``claim`` at ``candidate``: always, unless the claim is one
    symbol (``theta_target == theta``: no operation, it says only which name holds which). Such a claim counts only
    at a binding of its left-hand name itself (``on_target``) to one other name (``code`` a lone leaf, not the
    bound name read again): anywhere else a name meets it by chance (a local containing the left-hand name's words,
    ``sqk_scale = config.sqk_scale``, or any ``return x``). Even there it is tentative (``_ALIAS``), never settled
    on: an alias (``ma_length = n_gram``) shows neither that the code uses the name as the statement says (a macro
    action closed after n tokens) nor that it is not rebound, and any setting copied into a local makes one."""
    if not isinstance(claim.rhs, sympy.Symbol):
        return True
    return on_target and isinstance(code, sympy.Symbol) and code.name != candidate.target


def _profile(candidate: CodeExpression, form: sympy.Basic, keeps_small: bool, claimed_keys: _Claimed,
             cache: dict, budget: equivalence.Budget):
    """(a form of the candidate with stability constants read as 0, its leaves, its function names, whether opaque
    code is left in it, whether its value depends on signs), computed once per form and kind of formula, whichever
    candidate holds the form (a helper inlined in many places gives many candidates the same forms); ``cache``
    lives in the index, as long as the candidates do. Charges ``budget`` the form's size at every use."""
    key = ("profile", form, keeps_small, claimed_keys.keys & _STABILITY, claimed_keys.hinted)
    cached = cache.get(key)
    if cached is None:
        nodes = dag_nodes(form, MAX_FORM_NODES)
        if nodes is None:  # too large to compare: no leaves, never matched
            cached = cache[key] = (form, [], set(), True, False, MAX_FORM_NODES)
        else:
            try:
                code = _as_means(_without_stability(form, keeps_small, claimed_keys))
            except (ArithmeticError, TypeError, ValueError):  # sympy rebuilding Mod(x, eps) with eps read as 0
                code = None
            if code is None:  # no form to compare: opaque, never matched
                cached = cache[key] = (form, [], set(), True, False, len(nodes))
            else:
                opaque = any(s.name.startswith("<") for s in _free(code))
                cached = cache[key] = (code, _leaves(code), _functions(code), opaque,
                                       equivalence.sign_sensitive(code), len(nodes))
    budget.spend(cached[5])  # reading a form is work too, charged alike whether or not the cache held it
    return cached[:5]


# the hint count of a renaming that gives a symbol a leaf the glossary names for another one only: such a match is
# near, never equivalent (``_renamings``)
CROSSED = -1


def _renamings(symbols: Sequence[sympy.Symbol], leaves: list[sympy.Basic], hints: dict, hinted_only: bool = False):
    """Consistent renamings of code leaves to formula symbols, those following the glossary hints first: yields
    ``({leaf: symbol}, how many symbols follow their hints)``, the count ``CROSSED`` (last) for a renaming that
    gives a symbol a leaf the hints name for another symbol only; at most ``MAX_RENAMINGS``, out of at most
    ``4 * MAX_RENAMINGS`` tried (``hinted_only``: only the leaves each symbol's hints name)."""
    keyed = [(leaf, _leaf_key(leaf)) for leaf in leaves]
    named = set().union(*(hints[s] for s in symbols)) if symbols else set()
    options = []
    for s in symbols:
        # an element read one step away (dones[t + 1]) only for a symbol named as shifted (V_next)
        allowed = [(leaf, key) for leaf, key in keyed if not _shifted(leaf) or _names_shift(s)]
        # a hint with a qualifier (y_pred_std for pred_std) follows it too, after the exact names, unless the
        # glossary names that code name for a symbol of its own (old_values beside values)
        qualified = {leaf for leaf, key in allowed if key not in named and names.narrower(frozenset(hints[s]), key)}
        exact = {leaf for leaf, key in allowed if _follows(leaf, key, hints[s])
                 or _shifted(leaf) and key in _unshifted_keys(s, frozenset(hints[s]))}
        preferred = [leaf for leaf, _ in allowed if leaf in exact] + [leaf for leaf, _ in allowed
                                                                      if leaf in qualified and leaf not in exact]
        others = [leaf for leaf, _ in allowed if leaf not in exact and leaf not in qualified] \
            if len(symbols) <= MAX_SYMBOLS and not hinted_only else []
        # a leaf the glossary names for another symbol only (chosen_reward for r_plus) standing for this one swaps
        # what the claim tells apart (the rejected score minus the chosen one): CROSSED
        options.append([(leaf, True) for leaf in preferred] + [
            (leaf, CROSSED if any(_follows(leaf, key, hints[t]) for t in symbols if t != s) else False)
            for leaf, key in allowed if leaf in others])
    found: list[tuple[dict, int]] = []
    for tried, choice in enumerate(itertools.product(*options)):
        if tried >= 4 * MAX_RENAMINGS or len(found) >= MAX_RENAMINGS:
            break
        chosen = [leaf for leaf, _ in choice]
        if len(set(chosen)) == len(chosen):
            crossed = any(hinted == CROSSED for _, hinted in choice)
            found.append(({leaf: s for leaf, s in zip(chosen, symbols)},
                          CROSSED if crossed else sum(1 for _, hinted in choice if hinted is True)))
    # most hints first: of two renamings a symmetric formula makes equal (gamma * V_next), the one the glossary
    # names counts (a stable sort keeps the product's order among equals)
    yield from sorted(found, key=lambda pair: -pair[1])


@dataclass(frozen=True)
class Difference:
    """A named difference between code and a claimed formula: ``kind`` (sign, factor, missing, extra, power,
    function, normaliser), ``text`` for the reason, and ``term`` (the missing term, for ``missing``)."""

    kind: str
    text: str
    term: sympy.Basic | None = None


def classify(code: sympy.Basic, claimed: sympy.Basic, specific: frozenset[str] = frozenset(),
             budget: equivalence.Budget | None = None) -> Difference | None:
    """Name the difference between a code expression and the claimed formula (already renamed to the formula's
    symbols), or ``None`` when it is not one we can name. First the differences of the whole (sign, constant factor,
    a term missing or extra, a power, a function replaced, a normaliser), then one edit inside the formula (at most
    ``MAX_EDITS``): the sign of a part flipped, a factor or a term of a part missing, a function left out (``max(0,
    x)`` read as ``x``: a forgotten clamp). A function replaced counts only between two ``specific`` functions
    (``relu`` for ``gelu``; not ``relu`` for the formula's placeholder ``sigma``); a power only between two numbers.
    Raises ``rules.equivalence.Exhausted`` when ``budget`` runs out, nothing else."""
    def same(a, b):
        return equivalence.same(a, b, budget)

    if same(code, claimed) is not False:
        return None  # equal (or not comparable): no difference to name
    if same(code, -claimed):
        return Difference("sign", "sign flipped: the code computes the negative of the formula")
    ratio = equivalence.constant_ratio(code, claimed, budget)
    if ratio is not None and abs(ratio.imag) < 1e-9 and not equivalence.close(ratio, 1):
        return Difference("factor", f"constant factor {_number(ratio.real)} against the formula")
    if isinstance(claimed, sympy.Add):
        for term in claimed.args:
            if not _beside_layer(term, claimed, specific) and same(code, claimed - term):
                return Difference("missing", f"term {term} of the formula is missing", term)
    if isinstance(code, sympy.Add):
        for term in code.args:
            if same(code - term, claimed):
                return Difference("extra", f"extra term {term} not in the formula")
    for power in claimed.atoms(sympy.Pow):
        for other in (n for n in _nodes(code) if isinstance(n, sympy.Pow)):
            if other.base == power.base and other.exp != power.exp and power.exp.is_Number \
                    and other.exp.is_Number and same(code, claimed.xreplace({power: other})):
                return Difference("power", f"power of {power.base} is {other.exp}, the formula has {power.exp}")
    # a squared error for an absolute one, or back (an L2 loss for an L1 loss): the same error, another penalty
    for part, swapped in _penalties(claimed):
        if same(code, claimed.xreplace({part: swapped})):
            return Difference("function", f"{swapped} where the formula has {part}")
    for name in _undefined_names(claimed) & specific:
        for other in (_undefined_names(code) & specific) - {name}:
            swapped = claimed.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == name,
                                      lambda e: sympy.Function(other)(*e.args))
            # relu(relu(x)) is relu(x): a function put in beside itself names a missing one, not a swap
            if same(code, swapped) and not _doubled(swapped, other):
                return Difference("function", f"uses {other} where the formula has {name}")
    for denominator in _denominators(claimed):
        for other in _denominators(code):
            if other != denominator and same(code, claimed * denominator / other):
                return Difference("normaliser", f"normalised by {other} where the formula divides by {denominator}")
    if isinstance(claimed, sympy.Add):
        for edited, difference in _group_signs(claimed, claimed):
            if same(code, edited):
                return difference
    for edited, difference in itertools.islice(_edits(claimed, specific | equivalence.SIGN_SENSITIVE), MAX_EDITS):
        if same(code, edited):
            return difference
    return None


def _doubled(expression: sympy.Basic, name: str) -> bool:
    """``expression`` applies the function ``name`` directly to its own result somewhere (``relu(relu(x))``)."""
    return any(isinstance(n, AppliedUndef) and n.func.__name__ == name and n.args
               and isinstance(n.args[0], AppliedUndef) and n.args[0].func.__name__ == name for n in _nodes(expression))


def _group_signs(claimed: sympy.Basic, part: sympy.Add):
    """Edits of ``claimed`` flipping the sign of the terms of ``part`` that share a coefficient: sympy distributes
    ``-0.5 * (Q1 + Q2)`` into ``-Q1/2 - Q2/2``, and those terms are the product the formula wrote, whose sign the code
    may flip as a whole."""
    groups: dict = {}
    for term in part.args:
        groups.setdefault(term.as_coeff_Mul()[0], []).append(term)
    for terms in groups.values():
        if 1 < len(terms) < len(part.args):
            group = sympy.Add(*terms)
            yield claimed.xreplace({part: part - 2 * group}), Difference(
                "sign", f"sign of {sympy.factor_terms(group)} flipped in the code")


def _penalties(claimed: sympy.Basic) -> list[tuple[sympy.Basic, sympy.Basic]]:
    """(a square or an absolute value of the formula, the other penalty of the same operand): ``(x - y) ** 2`` and
    ``abs(x - y)``, the two errors losses use."""
    found = []
    for node in _nodes(claimed):
        if isinstance(node, sympy.Pow) and node.exp == 2:
            found.append((node, sympy.Abs(node.base)))
        elif isinstance(node, sympy.Abs):
            found.append((node, node.args[0] ** 2))
    return found


def _layer_calls(expression: sympy.Basic, known: frozenset[str]) -> list[sympy.Basic]:
    """The calls in ``expression`` of functions neither ``known`` nor the operations table's (``_library_names``):
    placeholders and the repository's own layers (``attn(h)``, ``final_layer(x)`` for a claimed ``W_o @ x``), whose
    code the formula does not show."""
    library = _library_names()
    return [n for n in _nodes(expression) if isinstance(n, AppliedUndef)
            and n.func.__name__ not in known and n.func.__name__ not in library]


@lru_cache(maxsize=1)
def _library_names() -> frozenset[str]:
    """The function names the operations table knows: its operations and activations, the functions its forms
    compute (``rfft`` reads as ``fft``), and the structural ones (``getitem``, ``matmul``)."""
    table = operations.load()
    forms = [op.form for op in table.operations.values() if op.form is not None]
    forms += list(table.einsum.values()) + list(table.attributes.values())
    computed = {n.func.__name__ for form in forms for n in _nodes(form) if isinstance(n, AppliedUndef)}
    return frozenset(table.operations) | table.activations | _STRUCTURAL | computed


def _of_placeholders(factor: sympy.Basic, known: frozenset[str]) -> bool:
    """Whether ``factor`` is computed from the outputs of layer calls alone (``1/norm(attn(h))``: every symbol sits
    inside a call ``_layer_calls`` finds). The layer's own code may apply the factor before returning (an attention
    block that returns its output normalised), so the factor's absence where the layer is called proves nothing."""
    calls = {n: sympy.Dummy() for n in _layer_calls(factor, known)}
    return bool(calls) and substitute(factor, calls).free_symbols <= set(calls.values())


def _beside_layer(term: sympy.Basic, total: sympy.Basic, known: frozenset[str]) -> bool:
    """Whether ``term`` of the sum ``total`` sits beside a layer call (``_layer_calls``) and holds none itself: the
    layer's own code may add it (``nn.Linear`` adds its bias: ``b_o`` of ``relu(W_o @ x + b_o)`` is in
    ``self.final_layer(x)``; a block may add its residual), so its absence where the layer is called proves
    nothing."""
    return not _layer_calls(term, known) and any(_layer_calls(other, known) for other in total.args
                                                 if other is not term)


def _edits(claimed: sympy.Basic, known: frozenset[str]):
    """Single edits inside the formula, outermost parts first: ``(edited formula, Difference)``. Only a ``known``
    function may be left out: a placeholder (``attn(h)``, ``f(x)``) stands for code a caller may apply."""
    seen: set = set()
    queue = list(claimed.args)
    while queue:
        part = queue.pop(0)
        if part.is_Atom or part in seen:
            continue
        seen.add(part)
        queue.extend(part.args)
        yield claimed.xreplace({part: -part}), Difference("sign", f"sign of {part} flipped in the code")
        if isinstance(part, sympy.Mul):
            for factor in part.args:
                if not factor.is_Number and not _of_placeholders(factor, known):
                    yield claimed.xreplace({part: part / factor}), Difference(
                        "missing factor", f"factor {factor} of {part} is missing in the code", factor)
        if isinstance(part, sympy.Add):
            for term in part.args:
                if not _beside_layer(term, part, known):
                    yield claimed.xreplace({part: part - term}), Difference(
                        "missing", f"term {term} of {part} is missing in the code", term)
            yield from _group_signs(claimed, part)
            complement = _complement_of(part)
            if complement is not None:  # a schedule's 1 - k read as k (alpha for 1 - alpha)
                yield claimed.xreplace({part: complement}), Difference(
                    "complement", f"{complement} where the formula has its complement {part}")
        if isinstance(part, (AppliedUndef, sympy.Function)) and part.args:
            name = part.func.__name__
            if name in known or not isinstance(part, AppliedUndef):
                for argument in part.args:
                    if not argument.is_Number:
                        yield claimed.xreplace({part: argument}), Difference(
                            "function missing", f"{part} reads {argument} in the code: the {name} is missing")


def _complement_of(part: sympy.Add) -> sympy.Basic | None:
    """``x`` when ``part`` is ``1 - x`` (a probability's or a schedule's complement), else ``None``."""
    if len(part.args) != 2 or sympy.S.One not in part.args:
        return None
    other = part - 1
    return -other if other.could_extract_minus_sign() else None


# -- helpers --------------------------------------------------------------------------------------------------------
def _owner(candidate: CodeExpression) -> tuple[str, str]:
    """(file, class) of a candidate's function (its module for a top-level function)."""
    owner = candidate.function.rsplit(".", 1)[0] if "." in candidate.function else ""
    return candidate.file, owner


def _sides(expression: sympy.Basic, known: Container[str] = ()) -> tuple[sympy.Symbol | None, sympy.Basic | None]:
    """(lhs symbol, rhs) of a definition ``name == expr``, or of a function's, ``symexp(x) == sign(x) * ...``
    (the function's name: one of distinct symbols that neither ``known``, the operations the table defines, nor
    the translation's own functions name, and that the right-hand side does not apply: ``concat(P, Z) == ...`` and
    ``f(x) == f(t(x))`` are invariants); (None, expr) for a
    bare expression; (None, None) when the left-hand side is itself an expression (an invariant, not a
    definition)."""
    if isinstance(expression, sympy.Eq):
        lhs, rhs = expression.args
        if isinstance(lhs, sympy.Symbol):
            return lhs, rhs
        if isinstance(lhs, AppliedUndef) and lhs.func.__name__ == "getitem" and isinstance(lhs.args[0], sympy.Symbol):
            return lhs.args[0], rhs
        if isinstance(lhs, AppliedUndef) and lhs.args and all(isinstance(a, sympy.Symbol) for a in lhs.args) \
                and len(set(lhs.args)) == len(lhs.args) and lhs.func.__name__ not in known \
                and not any(isinstance(n, AppliedUndef) and n.func == lhs.func for n in _nodes(rhs)) \
                and lhs.func.__name__ not in _STRUCTURAL and lhs.func.__name__ not in (CHOICE, "concat", "einsum"):
            return sympy.Symbol(lhs.func.__name__), rhs
        return None, None
    return None, expression


def _assigned_to(hints: set[str], assigned: set[str]) -> set[str]:
    """The left-hand names of ``hints`` (normalised, the generic ones aside) that code assigns: as a whole name or
    as the tokens of one (``cov_f`` and ``cov_flat`` hold ``cov``), since code
    suffixes the quantities it computes; a count (``out_channels`` for ``out``) is not one. Used to keep a SAU from
    being absent, so it errs toward finding names."""
    wanted = [(k, frozenset(k.split("_"))) for k in sorted(hints) if not names.is_generic(k)]
    found = set()
    for target in assigned:
        name = names.normalise(target)
        tokens = set(name.split("_"))
        # a count of things (out_channels, num_out: the normaliser marks counts) is not the quantity itself
        found |= {k for k, key in wanted if k == name or (key <= tokens and (names.COUNT not in tokens
                                                                               or names.COUNT in key))}
    return found


def _hints(symbol: str, glossary: dict) -> set[str]:
    """The keys of the code names the glossary gives ``symbol`` (and of the symbol itself): each name's
    normalised key, and its words run together (``names.squashed``)."""
    written = _written(symbol, glossary)
    return {k for n in written for k in _name_keys(n)} | {names.squashed(n) for n in written}


def _name_keys(name: str) -> tuple[str, str]:
    """The keys under which a glossary name meets code names: ``names.normalise`` and ``names.quantity_key`` (a
    plural code name holds many values of the quantity: ``next_values`` for ``next_value``)."""
    return names.normalise(name), names.quantity_key(name)


def _glossary_named(name: str, keys) -> bool:
    """True when a code name meets one of the glossary ``keys`` (``_name_keys``) under either of its own keys."""
    return any(key in keys for key in _name_keys(name))


def _follows(leaf: sympy.Basic, key: str, hints: set[str]) -> bool:
    """True when a code leaf (its ``_leaf_key`` ``key``) is one a symbol's ``hints`` name: by key, or with its
    words run together, or with a last ordinal word read as the index it stands for (``reward_second`` for
    ``reward_2``, ``_indexed``)."""
    name = _leaf_name(leaf)
    return key in hints or names.squashed(name) in hints or _glossary_named(_indexed(name), hints)


@lru_cache(maxsize=1 << 14)
def _indexed(name: str) -> str:
    """``name`` with a last ordinal word after its stem written as the index (``reward_second`` ->
    ``reward_2``; ``ordinal_words``), else ``name`` itself."""
    stem, _, last = name.rpartition("_")
    return f"{stem}_{_ORDINALS[last.lower()]}" if stem and last.lower() in _ORDINALS else name


def _mechanism_keys(keywords) -> list[frozenset[str]]:
    """The token sets of the mechanism keywords (``F.normalize`` -> {normalize}; ``edit_distance`` -> {distance,
    edit}), as written when the alias table's normalisation leaves only a count noun (``count_nouns`` of
    ``rules/words.yaml``: ``train_step`` is {train, step}, not the {step} of every ``evaluate_step``); a mixed-case
    acronym (``RoPE``, ``SwiGLU``, ``LoRA``) also as one word, as code writes it in ``apply_rope``."""
    keys = []
    for keyword in keywords:
        last = keyword.rsplit(".", 1)[-1]
        tokens = frozenset(t for t in names.normalise(last).split("_") if t)
        written = frozenset(names.words(last))
        # the alias table dropped a word and left only a count noun (train_step -> step): every *_step is no
        # train_step; a layer word dropped (gate_proj -> gate) still names the gate
        if tokens < written and len(tokens) == 1 and tokens <= _COUNT_NOUNS:
            tokens = written
        if tokens:
            keys.append(tokens)
        if _acronym(last):
            keys.append(frozenset({last.lower()}))
    return keys


_ACRONYM_PART = 3  # the longest camel-case part of a mixed-case acronym (Swi-GLU); LayerNorm, LpLoss are two words


def _acronym(word: str) -> bool:
    """A mixed-case acronym written as one word (``RoPE``, ``ReLU``, ``MoE``): letters only, upper and lower case
    both, and every camel-case part at most ``_ACRONYM_PART`` letters (``QKNorm``, ``LayerNorm`` are words)."""
    parts = names.words(word)
    return word.isalpha() and not word.islower() and not word.isupper() and len(parts) > 1 \
        and all(len(p) <= _ACRONYM_PART for p in parts)


def _contains(keys: list[frozenset[str]], name: str) -> bool:
    """True when ``name`` holds every token of one keyword (``compute_edit_distance_ratio`` holds edit_distance),
    normalised or as written (``train_step`` holds the keyword ``train_step``, whose words ``_mechanism_keys``
    keeps)."""
    tokens = set(names.normalise(name).split("_")) | set(names.words(name))
    return any(key <= tokens for key in keys)


def _joined_keys(keywords) -> list[str]:
    """Each mechanism keyword of two or more words with its words joined (``hi_mar_base`` -> ``himarbase``): where a
    word boundary falls in a coined name varies, so code may write it ``himar_base`` (``_named_joined``). A
    one-word keyword of ``_JOINED_KEY_MIN`` letters or more is kept too: a mixed-case name splits it into words
    (``MoELayer`` is ``mo e layer``, ``LoRALinear`` ``lo ra linear``), which joined give ``moe`` and ``lora`` again."""
    joined = (names.words(str(keyword).rsplit(".", 1)[-1]) for keyword in keywords)
    return ["".join(words) for words in joined if len(words) > 1 or (words and len(words[0]) >= _JOINED_KEY_MIN)]


_JOINED_KEY_MIN = 3  # a shorter word ("ln", "mm") joined from pieces of other names would be chance


_JOINED_WORDS = 6  # names with more words than this are not joined (bounded work; such names are rare)


@lru_cache(maxsize=1 << 16)
def _word_runs(name: str) -> frozenset[str]:
    """The words of ``name`` and each run of two or more adjacent words joined (``himar_base``: himar, base,
    himarbase)."""
    words = names.words(name)
    if len(words) > _JOINED_WORDS:
        return frozenset(words)
    return frozenset("".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1))


def _code_names(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the names code holds, once per repository: each part of a function's or class's qualified
    name, the names it calls and assigns (``candidates``, test files included), and the names the code reads
    (``RepositoryIndex.reads``). What ``_named_joined`` and ``_spelled_out`` search for a mechanism's name."""
    records = index.analysis(candidates)
    return frozenset(part for r in records for part in (*r.qualname.split("."), *r.callees, *r.targets)) \
        | frozenset(index.reads)


def _named_joined(joined: list[str], index: RepositoryIndex) -> bool:
    """Whether code names the mechanism by a keyword's joined words (``_joined_keys``): a function or class, a name
    it calls or assigns, or a name the code reads, holding one as a run of whole words. Asked only to tell whether
    the mechanism is named at all (an absence is settled otherwise); the search for candidates keeps to the
    keywords as written, so a coined class named so (``LoRASBLayer`` for ``lora_sb``) does not become the scope a
    partial formula settles in."""
    if not joined:
        return False
    wanted = set(joined)
    return any(wanted & _word_runs(name) for name in index.analysis(_code_names))


_ACRONYM_LETTERS = (2, 5)  # an all-capitals keyword of this many letters is an acronym (DiT, MLP, GQA, RMSN)
_SPELLED_WORD_MIN = 4  # a word an acronym's letter stands for is a word, not a short token (dim_t spells no DiT)


def _acronym_letters(keywords) -> list[tuple[str, ...]]:
    """The letters (or leading letters) each acronym keyword stands for, lower case: an all-capitals keyword of
    ``_ACRONYM_LETTERS`` letters one letter each (``MLP`` -> m, l, p), a mixed-case acronym (``_acronym``) one part
    per capital (``DiT`` -> di, t; ``RoPE`` -> ro, p, e)."""
    found = []
    for keyword in keywords:
        last = str(keyword).rsplit(".", 1)[-1]
        if last.isalpha() and last.isupper() and _ACRONYM_LETTERS[0] <= len(last) <= _ACRONYM_LETTERS[1]:
            found.append(tuple(last.lower()))
        elif _acronym(last) and last[0].isupper():
            found.append(tuple(part.lower() for part in re.findall(r"[A-Z][a-z]*", last)))
    return found


@lru_cache(maxsize=1 << 16)
def _spells(letters: tuple[str, ...], name: str) -> bool:
    """Whether adjacent words of ``name`` (each ``_SPELLED_WORD_MIN`` letters or more) begin with ``letters`` in
    order: ``DiffusionTransformerHead`` spells DiT, ``multi_layer_perceptron`` MLP."""
    words = names.words(name)
    return any(all(len(word) >= _SPELLED_WORD_MIN and word.startswith(part) for word, part in
                   zip(words[i:i + len(letters)], letters)) for i in range(len(words) - len(letters) + 1))


def _spelled_out(acronyms: list[tuple[str, ...]], index: RepositoryIndex) -> bool:
    """Whether code names the mechanism by an acronym keyword written out in words (``_acronym_letters``,
    ``_spells``): papers name a mechanism by its acronym (DiT), code often by its words
    (``DiffusionTransformerHead``). Asked only to tell whether the mechanism is named at all, like
    ``_named_joined``: a name spelled so keeps the SAU from settling absent and makes no scope."""
    if not acronyms:
        return False
    return any(_spells(letters, name) for letters in acronyms for name in index.analysis(_code_names))


def _config_named(keys: list[frozenset[str]], fact) -> bool:
    """A configuration key (or a parent key, or a string value) named after the mechanism."""
    parts = fact.path.split(".") + ([fact.value] if isinstance(fact.value, str) else [])
    return any(_contains(keys, part) for part in parts)


def _glossary_names(glossary: dict) -> frozenset[str]:
    """Every code name the glossary gives a formula symbol, normalised (``eta`` for ``eta: {code_names: [eta]}``)."""
    return frozenset(k for entry in glossary.values() if isinstance(entry, dict)
                     for n in entry.get("code_names", ()) for k in _name_keys(n.rsplit(".", 1)[-1]))


def _switched_off(value) -> bool:
    """A setting's value that turns a mechanism off: ``0``, ``False``, ``None`` or an empty string."""
    return value is None or value is False or value == "" or (isinstance(value, (int, float)) and value == 0)


def _enabled_by_setting(index: RepositoryIndex, keys: list[frozenset[str]], symbols: frozenset[str]) -> bool:
    """True when a call's keyword argument or a configuration key turns the mechanism on: one named after the
    mechanism set to anything but off (a name passed through counts: its value is set where the name is), or one
    named after a symbol the glossary names, longer than one letter, set to a literal that is not off (``eta: 1.0``
    in a YAML config read by a sampler's ``eta=cfg.eta`` selects the memoryless schedule ``sigma ** 2 == 2 * eta``).
    Libraries expose mechanisms through such settings, so the mechanism cannot be called absent. A symbol's name
    passed through or computed (``P=P``, ``t=t``) says nothing: such names are everywhere."""
    for fact in index.facts:
        if fact.kind not in (KEYWORD, CONFIG):
            continue
        if _contains(keys, fact.name):
            if (fact.value is None and (fact.source or fact.computed)) or not _switched_off(fact.value):
                return True
        elif fact.value is not None and not _switched_off(fact.value) and len(names.normalise(fact.name)) > 1 \
                and names.normalise(fact.name) in symbols:
            return True
    return False


def _stubbed(parsed: list, glossary: dict, stubs: Sequence) -> frozenset[int]:
    """The indexes of the formulas whose left-hand name (a hint of it that is not generic) a stub's name holds
    (``nll`` for ``NLL == ...``, ``compute_nll`` too)."""
    found = set()
    for i, (_, lhs, _) in enumerate(parsed):
        if lhs is None:
            continue
        keys = [frozenset(h.split("_")) for h in sorted(_hints(lhs.name, glossary)) if not names.is_generic(h)]
        if any(_contains(keys, record.name) for record, _ in stubs):
            found.add(i)
    return frozenset(found)


def _owned(record: FunctionRecord, keys: list[frozenset[str]]) -> bool:
    """A function the mechanism owns: a keyword's tokens make up at least half of the tokens of its name or, for a
    framework hook (``forward``: the computation of its class), its class's name (``total_cost`` for
    ``total_cost``, ``GateProjection.forward`` for ``gate``); not a function that merely mentions a broader word
    (``get_macro_action_values`` is not owned by ``macro_values``), nor any method of a class named after it."""
    parts = record.qualname.split(".")
    for part in parts[-2:] if record.name in _HOOKS else parts[-1:]:
        tokens = set(names.normalise(part).split("_")) - {"", names.COUNT}  # a plural's count marker names nothing
        if any(key - {names.COUNT} <= tokens and 2 * len(key - {names.COUNT}) >= len(tokens) for key in keys):
            return True
    return False


def _switched_on(index: RepositoryIndex, keys: list[frozenset[str]]) -> bool:
    """True when a setting of the code (a call keyword, a default, a configuration key, outside tests) selects a
    switch of the operations table (``switches``: ``eta: 1`` makes a DDIM sampler the DDPM one) that realises one of
    the mechanism ``keys``: the mechanism runs through a general implementation, so it is not absent."""
    for switch in operations.switches():
        if not any(_contains(keys, mechanism) for mechanism in switch.mechanisms):
            continue
        for fact in index.facts:
            if is_test_path(fact.file) or isinstance(fact.value, bool):
                continue
            for name, value in switch.settings:
                if names.normalise(fact.name) == names.normalise(name) and _equal_setting(fact.value, value):
                    return True
    return False


def _equal_setting(found, wanted) -> bool:
    """A setting's value equal to the switch's: numbers numerically (``1.0`` is ``1``), other values as written."""
    if isinstance(found, (int, float)) and isinstance(wanted, (int, float)):
        return float(found) == float(wanted)
    return found == wanted


def _named(record: FunctionRecord, keys: list[frozenset[str]]) -> bool:
    """A function named after the mechanism (its own name or its class's)."""
    return record.name != "<module>" and any(_contains(keys, part) for part in record.qualname.split("."))


def _in_scope(record: FunctionRecord, keys: list[frozenset[str]]) -> bool:
    """A function named after the mechanism (its own name or its class's), or one that calls or assigns a name
    holding a mechanism keyword."""
    if _named(record, keys):
        return True
    return any(_contains(keys, c) for c in record.callees) or any(_contains(keys, t) for t in record.targets)


# The walks below are pure functions of an expression, asked again for the same candidate forms and parts by every
# formula of a repository: each is computed once (bounded caches; results are immutable).
@lru_cache(maxsize=1 << 15)
def _nodes(expression: sympy.Basic) -> tuple[sympy.Basic, ...]:
    return tuple(dag_nodes(expression, 1 << 30) or ())


@lru_cache(maxsize=1 << 15)
def _free(expression: sympy.Basic) -> frozenset[sympy.Symbol]:
    return frozenset(s for s in _nodes(expression) if isinstance(s, sympy.Symbol) and s.name not in (":", "None"))


@lru_cache(maxsize=1 << 15)
def _leaves(expression: sympy.Basic) -> tuple[sympy.Basic, ...]:
    """The code's names that a formula symbol may stand for (not opaque code, not small constants), by name."""
    return tuple(sorted((s for s in _free(expression) if not s.name.startswith("<")), key=lambda s: s.name))


def _leaf_key(leaf: sympy.Basic) -> str:
    """The name a leaf's hints are compared with: its last component, an element read keyed by its array
    (``self.values[0, t]`` -> ``values``), a layer's weight by its layer (``self.lm_head.weight`` -> ``lm_head``)."""
    return names.normalise(_leaf_name(leaf))


def _leaf_name(leaf: sympy.Basic) -> str:
    """A leaf's name as code wrote its last part (``_leaf_key`` before normalising, ``_last_part``)."""
    return _last_part(leaf.name.split("[", 1)[0].strip("<>"))


def _last_part(name: str) -> str:
    """The part of a dotted name that names what it holds: the last (``self.values`` -> ``values``), or the layer
    for its weight (``self.lm_head.weight``, a glossary's ``codebook.weight`` -> ``lm_head``, ``codebook``): code
    reads a tied embedding or an output layer's matrix through its module's ``weight``."""
    parts = name.split(".")
    if len(parts) > 1 and parts[-1] in _WEIGHT_ATTRIBUTES and parts[-2] not in ("self", "cls"):
        return parts[-2]
    return parts[-1]


class _Claimed(NamedTuple):
    """The names a formula has (``_without_stability``): ``keys``, its symbols' own keys (``_leaf_key``), and
    ``hinted``, the hint keys (``_hints``) of each symbol whose glossary code names hold a stability word."""

    keys: frozenset[str]
    hinted: frozenset[frozenset[str]] = frozenset()


def _without_stability(code: sympy.Basic, keeps_small: bool, claimed: _Claimed) -> sympy.Basic:
    """``code`` with numeric-stability constants the formula lacks read as 0 (``x / (norm(x) + eps)``), a floor
    at one (``clamp(x, min=eps)``, ``max(x, 1e-6)``) read as ``x``, ``int`` of a rounding as the rounding and a count
    of groups kept at one or more (``max(1, ceil(n / k))``) as the count. A leaf named like a stability constant is
    one the formula has when its key is a claimed symbol's own, or when it follows the hints of a claimed symbol the
    glossary names so (``claimed.hinted``: ``z: [z, noise, eps]``, a finite difference's ``dp: [dp, h, eps]``) and
    no other leaf of ``code`` follows them (beside ``noise``, an ``eps`` is the stability constant)."""
    # clamp(x, min=eps) keeps x away from zero; with eps read as 0 it is x itself (a clamp at a literal 0 stays)
    clamps = {e: e.args[0] for e in _nodes(code) if isinstance(e, AppliedUndef) and e.func.__name__ == "clip"
              and len(e.args) == 3 and e.args[2] == MISSING_OPERAND and isinstance(e.args[1], sympy.Symbol)
              and (small_value(e.args[1]) is not None or _leaf_key(e.args[1]) in _STABILITY)}
    # max(x, 1e-6) (jnp.maximum(std, 1e-6), torch.max(x, eps)) is the same floor written as a maximum
    clamps.update({e: e.args[1 - i] for e in _nodes(code) if isinstance(e, AppliedUndef) and e.func.__name__ == "max"
                   and len(e.args) == 2 for i in (0, 1) if isinstance(e.args[i], sympy.Symbol)
                   and (small_value(e.args[i]) is not None or _leaf_key(e.args[i]) in _STABILITY)})
    code = substitute(code, clamps)
    # int(ceil(n / k)) is ceil(n / k); max(1, ceil(n / k)), a count of groups kept at one or more, is the count
    # itself wherever n is positive (an empty input is what the floor guards)
    rounded = {e: e.args[0] for e in _nodes(code) if isinstance(e, AppliedUndef) and e.func.__name__ == "int"
               and len(e.args) == 1 and _rounding(e.args[0])}
    code = substitute(code, rounded) if rounded else code
    counts = {e: e.args[1 - i] for e in _nodes(code) if isinstance(e, AppliedUndef) and e.func.__name__ == "max"
              and len(e.args) == 2 for i in (0, 1) if e.args[i] == 1 and _rounding(e.args[1 - i], ("ceil",))}
    code = substitute(code, counts) if counts else code
    mapping = {}
    for symbol in _free(code):
        small = small_value(symbol)
        if small is not None:
            mapping[symbol] = small if keeps_small else sympy.Integer(0)
        elif _leaf_key(symbol) in _STABILITY and _leaf_key(symbol) not in claimed.keys \
                and not _names_claimed(symbol, code, claimed.hinted):
            mapping[symbol] = sympy.Integer(0)
    return substitute(code, mapping)


def _names_claimed(leaf: sympy.Symbol, code: sympy.Basic, hinted: frozenset[frozenset[str]]) -> bool:
    """Whether ``leaf`` follows one of the ``hinted`` symbols' hints (``_Claimed.hinted``) that no other leaf of
    ``code`` follows."""
    others = [(other, _leaf_key(other)) for other in _leaves(code) if other != leaf]
    return any(_follows(leaf, _leaf_key(leaf), set(hints))
               and not any(_follows(other, key, set(hints)) for other, key in others) for hints in hinted)


def _rounding(expression: sympy.Basic, names_: tuple[str, ...] = ("ceil", "floor", "round")) -> bool:
    """True for a rounding call among ``names_`` (``ceil(x)``, ``floor(x)``, ``round(x)``), whose value is already a
    whole number."""
    return isinstance(expression, AppliedUndef) and expression.func.__name__ in names_


@lru_cache(maxsize=1 << 15)
def _functions(expression: sympy.Basic) -> frozenset[str]:
    """The names of the functions ``expression`` applies, comparisons by the name they evaluate under (``a >= b`` is
    ``b <= a``: ``equivalence.comparison_name``)."""
    return frozenset(type(f).__name__ if not isinstance(f, AppliedUndef) else
                     equivalence.comparison_name(f.func.__name__)
                     for f in _nodes(expression) if isinstance(f, sympy.Function))


@lru_cache(maxsize=1 << 12)
def _undefined_names(expression: sympy.Basic) -> frozenset[str]:
    return frozenset(f.func.__name__ for f in _nodes(expression) if isinstance(f, AppliedUndef)) - {"getitem", "matmul"}


def _denominators(expression: sympy.Basic) -> list[sympy.Basic]:
    """The factors an expression divides by (``sqrt(s)`` for ``x / sqrt(s)``)."""
    return [p.base ** (-p.exp) for p in _nodes(expression)
            if isinstance(p, sympy.Pow) and p.exp.is_Number and p.exp < 0 and _free(p)]


def _number(value: float) -> str:
    return f"{value:.4g}"


def _describe(result: FormulaResult) -> str:
    candidate = result.candidate  # every outcome but UNKNOWN has one
    if result.outcome == EQUIVALENT and candidate is not None and result.part is not None:
        return f"{result.formula}: equivalent to the part {result.part} of {candidate.text} ({candidate.ref})"
    if result.outcome == EQUIVALENT and candidate is not None and result.difference:
        return f"{result.formula}: {result.difference}, at {candidate.text} ({candidate.ref})"
    if result.outcome == EQUIVALENT and candidate is not None:
        return f"{result.formula}: equivalent to {candidate.text} ({candidate.ref})"
    if result.outcome == UNREACHED and candidate is not None:
        return (f"{result.formula}: equivalent to {candidate.text} ({candidate.ref}), but "
                f"{result.difference or 'in a function no entry point reaches'} (dead code)")
    if result.outcome == DRIFTED and candidate is not None:
        return f"{result.formula}: {result.difference} in {candidate.text} ({candidate.ref})"
    if result.difference:
        return f"{result.formula}: {result.difference}"
    if result.near:
        return f"{result.formula}: no equivalent expression; nearest in {result.near[0].ref}"
    return f"{result.formula}: no equivalent expression found"



def _where(scope: list[FunctionRecord]) -> str:
    if not scope:
        return "identifiers or strings the code reads"
    shown = [f"{r.qualname} ({r.file}:{r.line})" for r in scope[:_CANDIDATES_SHOWN]]
    return ", ".join(shown) + (" ..." if len(scope) > _CANDIDATES_SHOWN else "")


def _evidence(results: list[FormulaResult], index: RepositoryIndex) -> tuple[Evidence, ...]:
    """The candidates behind the results, decided ones first (drifts, then equivalents), each followed, for a decided
    one, by the returns of the repository helpers its statement inlined (``helper_returns``): where part of what it
    computes is written (``self._apply_gate(y, g)`` computes ``return target + gate_scores``)."""
    seen: dict[tuple, Evidence] = {}
    ordered = sorted(results, key=lambda r: (r.outcome != DRIFTED, r.outcome != UNREACHED, r.outcome != EQUIVALENT))
    returns = index.analysis(helper_returns)
    for result in ordered:
        decided = [result.candidate] if result.candidate else []
        helpers = [r for c in decided for helper in c.helpers for r in returns.get(helper, ())]
        for candidate in decided + helpers if decided else result.near[:_CANDIDATES_SHOWN]:
            key = (candidate.file, candidate.cell, candidate.line)
            seen.setdefault(key, Evidence(candidate.file, candidate.line, candidate.end_line,
                                          index.snippet(candidate), "expression", cell=candidate.cell))
    return tuple(seen.values())


def helper_returns(index: RepositoryIndex) -> dict[tuple[str, str], tuple[CodeExpression, ...]]:
    """Analysis provider: (source key, qualified name) of each repository function -> its returns that compute
    something (not a lone name handed back, not ``None``), at most ``_CANDIDATES_SHOWN``."""
    found = {}
    for record in index.analysis(candidates):
        key = record.source_key
        computed = [c for c in record.expressions
                    if c.target == "return" and not isinstance(c.expression, sympy.Symbol)]
        found[(key, record.qualname)] = tuple(computed[:_CANDIDATES_SHOWN])
    return found


def _findings(results: list[FormulaResult]) -> tuple[FormulaFinding, ...]:
    return tuple(FormulaFinding(r.formula, r.outcome, r.difference, r.credit,
                                tuple(c.ref for c in ([r.candidate] if r.candidate else []) +
                                      r.near[:_CANDIDATES_SHOWN]))
                 for r in results)


def _ambiguous(sau: SAU, results: list[FormulaResult], scope: list[FunctionRecord], reason: str,
               index: RepositoryIndex | None = None, named: bool = False, stubs: Sequence = (),
               stubbed: frozenset[int] = frozenset(),
               atom_results: Sequence[tuple[Atom, list[d1_numerical.ValueOutcome]]] = (),
               elements: Sequence[d1_elements.ElementResult] = ()) -> Verdict:
    """An unresolved verdict with the best estimate, from what the search found (``_estimate``; ``named``: the
    mechanism is named somewhere in the code, a setting or a string it reads, if not in a function). ``stubs``:
    ``(record, finding)`` of the live functions the mechanism owns (``_owned``) whose whole body is a stub
    (``rules.d2_stubs``): the mechanism is not computed there. When a stub's name holds the left-hand name of some
    formulas (``stubbed``, their indexes: ``nll`` for ``NLL == ...``), those count 0 and the others keep their
    counts; otherwise every undecided formula counts 0 and the estimate is at most a trace (``_STUB_CAP``). Either
    way no live floor applies, and the stubs lead the evidence. ``atom_results`` (``d1_numerical.decide_atoms``:
    the values the statement claims beside its formulas) and ``elements`` (``d1_elements.results``: the components,
    datasets and metrics it claims) count beside the formulas' estimate, one element each, and follow their
    evidence and findings."""
    live = bool(scope) and index is not None and not all(map(index.analysis(dead_functions), scope))
    estimate = _estimate(results, named or bool(scope), live)
    evidence = _evidence(results, index) if index is not None else ()
    if stubs and index is not None:
        if stubbed:
            kept = [r if i not in stubbed else FormulaResult(r.formula) for i, r in enumerate(results)]
            estimate = _estimate(kept, True, False)
        else:
            estimate = min(estimate, max(_STUB_CAP, round_to_scale(
                sum(r.credit for r in results if r.outcome != UNKNOWN) / max(len(results), 1))))
        reason += "; " + ", ".join(f"{r.qualname} ({finding.path}:{finding.line}) is a stub ({finding.code})"
                                   for r, finding in stubs[:_CANDIDATES_SHOWN])
        evidence = tuple(stub_evidence(finding, index) for _, finding in stubs[:_CANDIDATES_SHOWN]) + evidence
    if not evidence and index is not None:  # nothing comparable: show the LLM what implements the mechanism
        shown = [r.expressions[-1] for r in scope if r.expressions][:_CANDIDATES_SHOWN]
        evidence = tuple(Evidence(c.file, c.line, c.end_line, index.snippet(c), "expression", cell=c.cell)
                         for c in shown)
    values = [o.score for _, outcomes in atom_results for o in outcomes] + [
        d1_elements.score(e, True) for e in d1_elements.counted(list(elements))]
    if values and estimate is not None:
        # values bound as claimed may raise the estimate, never to 1 while a formula is undecided (a changed
        # formula beside two matched values must still show)
        # a procedure without formulas weighs as one element beside its values
        weight = max(len(results), 1)
        blended = round_to_scale((estimate * weight + sum(values)) / (weight + len(values)))
        # a stub where the mechanism runs caps it whatever values are bound: they configure code that does nothing
        ceiling = estimate if stubs and index is not None and not stubbed else max(estimate, _UNDECIDED_CAP)
        estimate = min(blended, ceiling)
    if atom_results and index is not None:
        evidence += d1_numerical.atom_evidence(atom_results, index)
    if elements and index is not None:
        evidence += d1_elements.evidence(list(elements), index)
    trace = traces.formulas(results, scope, index) if index is not None else ()
    return Verdict(sau, estimate, Status.UNRESOLVED, reason, RULE, None, evidence,
                   _findings(results) + d1_numerical.atom_findings(atom_results) + d1_elements.findings(list(elements)),
                   trace=trace)


# What matched values can raise an estimate to while a formula is undecided: "one minor element missing or off"
# (LABELLING.md's 0.75), never "implemented as claimed"
_UNDECIDED_CAP = 0.75
# A mechanism whose own function is a stub is at most "only a trace" (SA-Bench's 0.25; ARCHITECTURE.md, "Stubs"),
# unless formulas decided elsewhere in the code (an equivalent, a drift) count more
_STUB_CAP = 0.25
# What an undecided formula counts toward an unresolved estimate, on SA-Bench's scale: a live candidate whose names
# all follow the glossary (or most of them, for one equal to the formula under another renaming) computes the
# formula's quantities where the mechanism is, with only its exact form unproved: "a minor deviation at most" (0.75).
_NEAR_CREDIT = 0.75
# The floor of an estimate: a mechanism named in live code is there in some form ("partially", 0.5); named only in
# dead code, strings or configuration, it is a trace (0.25).
_LIVE_FLOOR, _TRACE_FLOOR = 0.5, 0.25


def _estimate(results: list[FormulaResult], named: bool, live: bool) -> float:
    """The estimate of an unresolved SAU: the mean of its formulas' counts (an undecided formula with a near
    candidate the glossary supports, ``FormulaResult.supported``, counts ``_NEAR_CREDIT``, one without 0), rounded to
    the scale, at most ``_UNDECIDED_CAP`` while a formula is undecided, at least ``_LIVE_FLOOR`` when a live function
    is named after the mechanism and ``_TRACE_FLOOR`` when anything is."""
    counts = [r.credit if r.outcome != UNKNOWN or r.credit else _NEAR_CREDIT if r.supported else 0.0
              for r in results] or [0.0]
    estimate = round_to_scale(sum(counts) / len(counts))
    if any(r.outcome == UNKNOWN for r in results):
        # one equivalent beside one near (1 and 0.75) rounds to 1: never "implemented as claimed" while a formula
        # is undecided, as values bound beside it do not lift it there either
        estimate = min(estimate, _UNDECIDED_CAP)
    if live:
        return max(estimate, _LIVE_FLOOR)
    return max(estimate, _TRACE_FLOOR) if named else estimate
