"""D2, formula claims: each claimed formula against the repository's expressions, equivalent up to renaming.

Rule (ARCHITECTURE.md, "What each dimension can settle"; scale from SA-Bench):

- Candidates are every assignment and return value of the repository with local definitions substituted and small
  helpers inlined (``extractors.expressions``), translated with the operations table (``rules/operations.yaml``).
  The *mechanism scope* is the functions whose name, calls or assigned names match the SAU's mechanism keywords.
- A claimed equation ``lhs == rhs`` is compared through its right-hand side; its free symbols are renamed to the
  code's names consistently: the glossary's code-name hints first (``h`` may be ``x``, ``hidden``), then a bounded
  search over the candidate's other names. Numeric-stability constants of the code (a name like ``eps``, a number
  below 1e-4) that the formula does not have are read as 0, since adding them is the usual way to implement the
  formula. Equivalence is tested by evaluation at fixed pseudo-random points (``rules.equivalence``).
- **equivalent**: a candidate equals the formula under a renaming that follows the hints, or assigned to the
  equation's left-hand name, or in the mechanism scope with over half the names following the hints: the formula
  counts 1. Candidates in test files are not implementations (a name there still keeps a SAU from being absent).
- **drift**: no equivalent candidate, but a candidate in the mechanism scope (or assigned to the left-hand name),
  whose names all follow the hints, differs from the formula in a way we can name: the sign flipped (counts 0:
  the claim is contradicted), a term missing or added, a power or a constant factor changed, a function replaced
  (softmax for sigmoid) or a denominator replaced (counts 0.5: the mechanism is there with one element wrong).
- **absent**: nothing in the code (function, call, assignment, identifier or string it reads) is named after the
  mechanism, and nothing is assigned to the equation's left-hand names: the SAU scores 0, settled.
- **unreached**: equivalent only in functions the call graph calls dead (no entry point reaches them, not even
  through a guess): implemented but never run, a trace (0.25, drift ``unused``), as D1 scores a config value that
  nothing reads.
- **ambiguous** otherwise, with the best candidates attached for the LLM fallback.

The SAU is settled when every formula is equivalent or drifted (score: mean of the counts, rounded to the scale,
drift ``method`` when one drifted) and its formulas cover the whole statement (``complete``), or when it is absent. A per-SAU time budget ends the search as ambiguous, so a
pathological expression cannot hang the run.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable, Sequence

import sympy
from sympy.core.function import AppliedUndef

from extractors.expressions import CodeExpression, FunctionRecord, code_expressions, dag_size
from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD
from extractors.facts import RepositoryIndex
from extractors.formulas import MISSING_OPERAND, SMALL_NUMBER, FormulaError, parse_formula, small_value
from extractors.walk import is_test_path
from extractors.words import word_list
from rules import equivalence, names, operations
from sau.vocabulary import SAU, Drift, Evidence, Finding, Status, Verdict, round_to_scale

RULE = "rule:d2-formula"

TIME_BUDGET = 3.0  # seconds per SAU; past it the SAU is ambiguous ("time budget exhausted")
MAX_RENAMINGS = 64  # renamings tried per candidate
MAX_SYMBOLS = 8  # a formula with more free symbols than this is renamed only through the hints
_STABILITY = word_list("stability_words", "rules")
TINY_OPERATIONS = 2  # a formula with at most this many operations (a / b, a * b * c, f(x)) matches much code by chance
_CANDIDATES_SHOWN = 3
# functions the translation itself introduces: never what a placeholder of the claim stands for
_STRUCTURAL = frozenset({"getitem", "matmul", "transpose", "clip", "where", "Abs", "floor", "Mod", "less",
                         "less_equal", "greater", "greater_equal", "equal", "not_equal"})



class Outcome(StrEnum):
    """The decision for one claimed formula (module docstring)."""

    EQUIVALENT = "equivalent"
    UNREACHED = "unreached"  # equivalent, but only in functions no entry point reaches
    DRIFTED = "drift"
    UNKNOWN = "unknown"


EQUIVALENT, UNREACHED, DRIFTED, UNKNOWN = Outcome.EQUIVALENT, Outcome.UNREACHED, Outcome.DRIFTED, Outcome.UNKNOWN
# SA-Bench's "only a trace" (ARCHITECTURE.md, the scale), as D1 scores a config value nothing reads
_UNREACHED_CREDIT = 0.25
_COUNTS = {EQUIVALENT: 1.0, DRIFTED: 0.5}


class _OutOfTime(Exception):
    pass


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


def check(sau: SAU, index: RepositoryIndex, budget: float = TIME_BUDGET) -> Verdict:
    """Decide a code-checkable D2 SAU against ``index`` within ``budget`` seconds. Never raises on odd code; a SAU
    whose formulas do not translate is unresolved with score ``None``."""
    table = operations.load()
    everywhere = index.analysis(candidates)
    records = [r for r in everywhere if not is_test_path(r.file)]  # tests check an implementation; they are not one
    keys = _mechanism_keys(sau.checks.get("mechanism", ()))
    scope = [r for r in records if _in_scope(r, keys)]
    named_in_code = any(_in_scope(r, keys) for r in everywhere) or any(_contains(keys, read) for read in index.reads)
    glossary = sau.checks.get("glossary", {})
    formulas = sau.checks.get("formulas", ())
    lhs_keys = set()
    parsed = []
    for text in formulas:
        try:
            expression = parse_formula(text, table)
        except FormulaError as error:
            return Verdict(sau, None, Status.UNRESOLVED, f"formula {text!r} does not translate: {error}", RULE)
        lhs, rhs = _sides(expression)
        if lhs is not None:
            lhs_keys |= _hints(lhs.name, glossary)
        parsed.append((text, lhs, rhs))
    assigned = {c.target.rsplit(".", 1)[-1] for r in records for c in r.expressions}
    lhs_found = {k for k in lhs_keys if not names.is_generic(k)} & {names.normalise(t) for t in assigned}
    if not named_in_code and not lhs_found:
        shown = ", ".join(sau.checks.get("mechanism", ()))
        return Verdict(sau, 0.0, Status.SETTLED, f"absent: nothing in the code is named after the mechanism ({shown}) "
                       "and nothing is assigned to the formula's left-hand names", RULE, Drift.MISSING)
    if not parsed:
        return _ambiguous(sau, [], scope, "a procedure without a formula: its mechanism is named in "
                          + _where(scope), index)
    deadline = time.monotonic() + budget
    results = []
    try:
        for text, lhs, rhs in parsed:
            results.append(_compare(text, lhs, rhs, glossary, records, scope, deadline,
                                    index.analysis(_profile_cache), index.analysis(dead_functions)))
    except _OutOfTime:
        return _ambiguous(sau, results, scope, f"time budget of {budget:g} s exhausted", index)
    reason = "; ".join(_describe(r) for r in results)
    if all(r.outcome != UNKNOWN for r in results):
        score = round_to_scale(sum(r.credit for r in results) / len(results))
        drift = Drift.METHOD if any(r.outcome == DRIFTED for r in results) else \
            Drift.UNUSED if any(r.outcome == UNREACHED for r in results) else None
        status = Status.SETTLED if sau.complete else Status.UNRESOLVED
        if not sau.complete:
            reason += "; the statement has elements no formula covers"
        return Verdict(sau, score, status, reason, RULE, drift, _evidence(results, index), _findings(results))
    return _ambiguous(sau, results, scope, reason, index)


# -- one formula ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Claim:
    """A claimed right-hand side prepared for comparison: its values at the test points, free symbols, function
    names, the glossary hints of each symbol, and whether it is tiny."""

    rhs: sympy.Basic
    values: tuple[complex, ...]
    symbols: tuple[sympy.Symbol, ...]
    functions: frozenset[str]
    hints: dict
    tiny: bool


def _claim(rhs: sympy.Basic, glossary: dict) -> _Claim | None:
    values = equivalence.values(rhs)
    if values is None:
        return None
    symbols = tuple(sorted(_free(rhs), key=lambda s: s.name))
    return _Claim(rhs, tuple(values), symbols, frozenset(_functions(rhs)),
                  {s: _hints(s.name, glossary) for s in symbols}, sympy.count_ops(rhs) <= TINY_OPERATIONS)


def _compare(text, lhs, rhs, glossary, records, scope, deadline, cache, dead) -> FormulaResult:
    result = FormulaResult(text)
    if rhs is None:
        result.difference = "not a definition (the left-hand side is an expression)"
        return result
    base = _claim(rhs, glossary)
    if base is None:
        result.difference = "the formula cannot be evaluated at the test points"
        return result
    keeps_small = any(0 < abs(n) <= SMALL_NUMBER for n in rhs.atoms(sympy.Number))
    claimed_keys = frozenset(_leaf_key(s) for s in base.symbols)
    lhs_hints = _hints(lhs.name, glossary) if lhs is not None else set()
    weights = _weights(rhs, base.hints)
    table = operations.load()
    specific = table.activations | frozenset(table.operations)
    variants: dict = {}
    scope_ids = {id(r) for r in scope}
    drift_seen: FormulaResult | None = None
    unreached: FormulaResult | None = None  # an equivalent in dead code, kept in case no live one turns up
    for record in records:
        in_scope = id(record) in scope_ids
        for candidate in record.expressions:
            if time.monotonic() > deadline:
                raise _OutOfTime
            last = candidate.target.rsplit(".", 1)[-1]
            claimed_name = names.normalise(last) in lhs_hints  # assigned to the formula's left-hand name
            on_target = claimed_name and not names.is_generic(last)
            relevant = in_scope or on_target
            for form_number, form in enumerate(candidate.forms()):
                code, leaves, functions = _profile(candidate, form_number, form, keeps_small, claimed_keys, cache)
                claim = _layer_variant(base, weights, functions, glossary, variants) if weights else base
                claim = _placeholder_variant(claim, functions, table, glossary, variants)
                # a drift is judged on what a mechanism function computes: its result, or the claimed name
                if relevant and (claimed_name or candidate.target == "return") and not claim.tiny and leaves:
                    drift_seen = _drift(text, candidate, code, leaves, claim, result, drift_seen, specific)
                symbols = claim.symbols
                if not len(symbols) - 1 <= len(leaves) <= len(symbols) + 2 or not claim.functions <= functions:
                    continue
                for renaming, hinted in _renamings(symbols, leaves, claim.hints):
                    if equivalence.matches(code, claim.values, {leaf.name: s.name for leaf, s in renaming.items()}):
                        if _accepted(claim.tiny, hinted == len(symbols), hinted * 2 > len(symbols), relevant,
                                     on_target):
                            if not dead(record):
                                result.outcome, result.candidate, result.credit = EQUIVALENT, candidate, 1.0
                                return result
                            unreached = unreached or FormulaResult(
                                text, UNREACHED, candidate, "in a function no entry point reaches", _UNREACHED_CREDIT)
                        _add_near(result, candidate)
                        break
    return drift_seen or unreached or result


def _placeholder_variant(claim: _Claim, functions, table, glossary: dict, variants: dict) -> _Claim:
    """The claim with its placeholder function (``sigma``, ``f``, ``activation``: one letter, a lone Greek letter,
    or a name listed under ``placeholders``) renamed to the one function the code uses in its place, when the
    code has exactly one function the claim lacks. ``sigma(W @ h)`` then matches ``self.act(self.down(h))``. Not
    for a tiny claim: ``y == E(x)`` would match any call of anything."""
    placeholders = sorted(n for n in _undefined_names(claim.rhs)
                          if n in table.placeholders or (names.is_generic(n) and n not in table.activations))
    if len(placeholders) != 1 or claim.tiny:  # y == E(x) would match any call of anything
        return claim
    spare = sorted(f for f in functions if f not in claim.functions and f not in table.activations
                   and f not in table.operations and f not in _STRUCTURAL)
    if len(spare) != 1:
        return claim
    key = ("placeholder", claim.rhs, spare[0])
    if key not in variants:
        name = placeholders[0]
        rhs = claim.rhs.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == name,
                                lambda e: sympy.Function(spare[0])(*e.args))
        variants[key] = _claim(rhs, glossary) or claim
    return variants[key]


def _weights(rhs: sympy.Basic, hints: dict) -> dict:
    """The formula's matrices: symbols multiplied with ``@`` (``W_q`` in ``h @ W_q``), with their hints."""
    found = {}
    for product in rhs.atoms(AppliedUndef):
        if product.func.__name__ == "matmul":
            for operand in product.args:
                if isinstance(operand, sympy.Symbol) and operand in hints:
                    found[operand] = hints[operand]
    return found


def _layer_variant(base: _Claim, weights: dict, functions: frozenset[str], glossary: dict, variants: dict) -> _Claim:
    """The claim as code with layers writes it: a product with a matrix the glossary names after a layer the code
    calls (``h @ W_q`` where the code calls ``self.W_q(h)``, an ``nn.Linear``) becomes that call. Either order of
    the product reads as the layer call, since papers write ``W x`` or ``x W`` for the same layer."""
    calls = {}
    for symbol, hints in weights.items():
        name = next((f for f in sorted(functions) if names.normalise(f) in hints), None)
        if name is not None:
            calls[symbol] = name
    if not calls:
        return base
    key = tuple(sorted((s.name, n) for s, n in calls.items()))
    if key not in variants:
        def layer(product):
            left, right = product.args
            if right in calls:
                return sympy.Function(calls[right])(left)
            return sympy.Function(calls[left])(right)

        rhs = base.rhs.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == "matmul"
                               and len(e.args) == 2 and any(a in calls for a in e.args), layer)
        variants[key] = _claim(rhs, glossary) or base
    return variants[key]


def _drift(text, candidate, code, leaves, claim: _Claim, result, seen, specific):
    """The first drift seen, updated: a candidate whose names all follow the glossary hints and that differs from
    the formula in a way ``classify`` names. A formula symbol the code lacks may only be part of a missing term
    (otherwise the code may hold it as a constant, and nothing is proved). Such candidates are also the nearest
    ones for the LLM fallback."""
    renaming = _hint_renaming(leaves, claim.hints)
    rhs = claim.rhs
    if renaming is None or dag_size(code, 1000) * 2 < dag_size(rhs, 1000):
        return seen
    _add_near(result, candidate)
    if seen is not None:
        return seen
    difference = classify(code.xreplace(renaming), rhs, specific)
    if difference is None:
        return seen
    unmapped = set(claim.symbols) - set(renaming.values())
    if unmapped and not (difference.kind == "missing" and difference.term is not None
                         and unmapped <= difference.term.free_symbols):
        return seen
    return FormulaResult(text, DRIFTED, candidate, difference.text, 0.0 if difference.kind == "sign" else 0.5)


def _hint_renaming(leaves: list[sympy.Basic], hints: dict) -> dict | None:
    """Every code leaf renamed to the formula symbol whose hints name it (each symbol used once), or ``None`` when a
    leaf follows no hint."""
    renaming, used = {}, set()
    for leaf in leaves:
        key = _leaf_key(leaf)
        symbol = next((s for s in hints if s not in used and key in hints[s]), None)
        if symbol is None:
            return None
        renaming[leaf] = symbol
        used.add(symbol)
    return renaming


def _add_near(result: FormulaResult, candidate: CodeExpression) -> None:
    if candidate not in result.near and len(result.near) < _CANDIDATES_SHOWN:
        result.near.append(candidate)


def candidates(index: RepositoryIndex) -> list[FunctionRecord]:
    """Analysis provider: the function records of the repository with their candidate expressions, translated
    through the operations table (``extractors.expressions``)."""
    return code_expressions(index, operations.load())


def dead_functions(index: RepositoryIndex) -> Callable[[FunctionRecord], bool]:
    """Analysis provider: a predicate telling whether a function record is dead in the call graph
    (``extractors.callgraph``: no entry point reaches it, not even through a guess or a decorator). Top-level code,
    and functions the graph does not know, are not dead."""
    graph = index.analysis(build_call_graph)
    by_node = {id(info.node): qualname for qualname, info in graph.functions.items()}

    def dead(record: FunctionRecord) -> bool:
        qualname = by_node.get(id(record.node)) if record.node is not None else None
        return qualname is not None and graph.liveness(qualname) == DEAD

    return dead


def _profile_cache(index: RepositoryIndex) -> dict:
    """Analysis provider: the per-candidate profiles ``_profile`` computes, kept as long as the candidates are."""
    return {}


def _accepted(tiny: bool, everyone: bool, most: bool, relevant: bool, on_target: bool) -> bool:
    """Whether an equivalent candidate settles the formula. A tiny formula (``a / b``) matches much code by chance:
    only with every name following the hints, in the mechanism's scope. A larger one: every name following the
    hints, or assigned to the equation's left-hand name, or in scope with most (over half) names following the
    hints."""
    if tiny:
        return everyone and relevant
    return everyone or on_target or (relevant and most)


def _profile(candidate: CodeExpression, form_number: int, form: sympy.Basic, keeps_small: bool,
             claimed_keys: frozenset[str], cache: dict):
    """(a form of the candidate with stability constants read as 0, its leaves, its function names), computed once
    per candidate form and kind of formula; ``cache`` lives in the index, as long as the candidates do."""
    key = (id(candidate), form_number, keeps_small, claimed_keys & _STABILITY)
    cached = cache.get(key)
    if cached is None:
        code = _without_stability(form, keeps_small, claimed_keys)
        cached = cache[key] = (code, _leaves(code), _functions(code))
    return cached


def _renamings(symbols: Sequence[sympy.Symbol], leaves: list[sympy.Basic], hints: dict):
    """Consistent renamings of code leaves to formula symbols, those following the glossary hints first: yields
    ``({leaf: symbol}, how many symbols follow their hints)``; at most ``MAX_RENAMINGS``, out of at most
    ``4 * MAX_RENAMINGS`` tried."""
    keyed = [(leaf, _leaf_key(leaf)) for leaf in leaves]
    options = []
    for s in symbols:
        preferred = [leaf for leaf, key in keyed if key in hints[s]]
        others = [leaf for leaf, key in keyed if key not in hints[s]] if len(symbols) <= MAX_SYMBOLS else []
        options.append([(leaf, True) for leaf in preferred] + [(leaf, False) for leaf in others])
    yielded = 0
    for tried, choice in enumerate(itertools.product(*options)):
        if tried >= 4 * MAX_RENAMINGS or yielded >= MAX_RENAMINGS:
            return
        chosen = [leaf for leaf, _ in choice]
        if len(set(chosen)) == len(chosen):
            yielded += 1
            yield {leaf: s for leaf, s in zip(chosen, symbols)}, sum(1 for _, hinted in choice if hinted)


@dataclass(frozen=True)
class Difference:
    """A named difference between code and a claimed formula: ``kind`` (sign, factor, missing, extra, power,
    function, normaliser), ``text`` for the reason, and ``term`` (the missing term, for ``missing``)."""

    kind: str
    text: str
    term: sympy.Basic | None = None


def classify(code: sympy.Basic, claimed: sympy.Basic, specific: frozenset[str] = frozenset()) -> Difference | None:
    """Name the difference between a code expression and the claimed formula (already renamed to the formula's
    symbols), or ``None`` when it is not one we can name. A function replaced counts only between two ``specific``
    functions (``relu`` for ``gelu``; not ``relu`` for the formula's placeholder ``sigma``); a power only between
    two numbers. Raises nothing."""
    if equivalence.same(code, -claimed):
        return Difference("sign", "sign flipped: the code computes the negative of the formula")
    ratio = equivalence.constant_ratio(code, claimed)
    if ratio is not None and abs(ratio.imag) < 1e-9 and not equivalence.close(ratio, 1):
        return Difference("factor", f"constant factor {_number(ratio.real)} against the formula")
    if isinstance(claimed, sympy.Add):
        for term in claimed.args:
            if equivalence.same(code, claimed - term):
                return Difference("missing", f"term {term} of the formula is missing", term)
    if isinstance(code, sympy.Add):
        for term in code.args:
            if equivalence.same(code - term, claimed):
                return Difference("extra", f"extra term {term} not in the formula")
    for power in claimed.atoms(sympy.Pow):
        for other in code.atoms(sympy.Pow):
            if other.base == power.base and other.exp != power.exp and power.exp.is_Number \
                    and other.exp.is_Number and equivalence.same(code, claimed.xreplace({power: other})):
                return Difference("power", f"power of {power.base} is {other.exp}, the formula has {power.exp}")
    for name in _undefined_names(claimed) & specific:
        for other in (_undefined_names(code) & specific) - {name}:
            swapped = claimed.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == name,
                                      lambda e: sympy.Function(other)(*e.args))
            if equivalence.same(code, swapped):
                return Difference("function", f"uses {other} where the formula has {name}")
    for denominator in _denominators(claimed):
        for other in _denominators(code):
            if other != denominator and equivalence.same(code, claimed * denominator / other):
                return Difference("normaliser", f"normalised by {other} where the formula divides by {denominator}")
    return None


# -- helpers --------------------------------------------------------------------------------------------------------
def _sides(expression: sympy.Basic) -> tuple[sympy.Symbol | None, sympy.Basic | None]:
    """(lhs symbol, rhs) of a definition ``name == expr``; (None, expr) for a bare expression; (None, None) when
    the left-hand side is itself an expression (an invariant, not a definition)."""
    if isinstance(expression, sympy.Eq):
        lhs, rhs = expression.args
        if isinstance(lhs, sympy.Symbol):
            return lhs, rhs
        if isinstance(lhs, AppliedUndef) and lhs.func.__name__ == "getitem" and isinstance(lhs.args[0], sympy.Symbol):
            return lhs.args[0], rhs
        return None, None
    return None, expression


def _hints(symbol: str, glossary: dict) -> set[str]:
    root = symbol.split(".")[0]
    entry = glossary.get(root, {})
    return {names.normalise(root)} | {names.normalise(n.rsplit(".", 1)[-1]) for n in entry.get("code_names", ())}


def _mechanism_keys(keywords) -> list[frozenset[str]]:
    """The token sets of the mechanism keywords (``F.normalize`` -> {normalize}; ``edit_distance`` -> {distance,
    edit})."""
    keys = []
    for keyword in keywords:
        last = keyword.rsplit(".", 1)[-1]
        tokens = frozenset(t for t in names.normalise(last).split("_") if t)
        if tokens:
            keys.append(tokens)
    return keys


def _contains(keys: list[frozenset[str]], name: str) -> bool:
    """True when ``name`` holds every token of one keyword (``compute_edit_distance_ratio`` holds edit_distance)."""
    tokens = set(names.normalise(name).split("_"))
    return any(key <= tokens for key in keys)


def _in_scope(record: FunctionRecord, keys: list[frozenset[str]]) -> bool:
    """A function named after the mechanism (its own name or its class's), or one that calls or assigns a name
    holding a mechanism keyword."""
    if record.name != "<module>" and any(_contains(keys, part) for part in record.qualname.split(".")):
        return True
    return any(_contains(keys, c) for c in record.callees) or any(_contains(keys, t) for t in record.targets)


def _free(expression: sympy.Basic) -> set[sympy.Symbol]:
    return {s for s in expression.free_symbols if isinstance(s, sympy.Symbol) and s.name not in (":", "None")}


def _leaves(expression: sympy.Basic) -> list[sympy.Basic]:
    """The code's names that a formula symbol may stand for (not opaque code, not small constants)."""
    return sorted((s for s in _free(expression) if not s.name.startswith("<")), key=lambda s: s.name)


def _leaf_key(leaf: sympy.Basic) -> str:
    return names.normalise(leaf.name.rsplit(".", 1)[-1].strip("<>"))


def _without_stability(code: sympy.Basic, keeps_small: bool, claimed_keys: frozenset[str]) -> sympy.Basic:
    """``code`` with numeric-stability constants the formula lacks read as 0 (``x / (norm(x) + eps)``)."""
    mapping = {}
    for symbol in _free(code):
        small = small_value(symbol)
        if small is not None:
            mapping[symbol] = small if keeps_small else sympy.Integer(0)
        elif _leaf_key(symbol) in _STABILITY and _leaf_key(symbol) not in claimed_keys:
            mapping[symbol] = sympy.Integer(0)
    code = code.xreplace(mapping) if mapping else code
    # clamp(x, min=eps) keeps x away from zero; with eps read as 0 it is x itself
    return code.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ == "clip" and len(e.args) == 3
                        and e.args[1] == 0 and e.args[2] == MISSING_OPERAND, lambda e: e.args[0])


def _functions(expression: sympy.Basic) -> set[str]:
    return {type(f).__name__ if not isinstance(f, AppliedUndef) else f.func.__name__
            for f in expression.atoms(sympy.Function)}


def _undefined_names(expression: sympy.Basic) -> set[str]:
    return {f.func.__name__ for f in expression.atoms(AppliedUndef)} - {"getitem", "matmul"}


def _denominators(expression: sympy.Basic) -> list[sympy.Basic]:
    """The factors an expression divides by (``sqrt(s)`` for ``x / sqrt(s)``)."""
    return [p.base ** (-p.exp) for p in expression.atoms(sympy.Pow)
            if p.exp.is_Number and p.exp < 0 and len(p.free_symbols)]


def _number(value: float) -> str:
    return f"{value:.4g}"


def _describe(result: FormulaResult) -> str:
    candidate = result.candidate  # every outcome but UNKNOWN has one
    if result.outcome == EQUIVALENT and candidate is not None:
        return f"{result.formula}: equivalent to {candidate.text} ({candidate.ref})"
    if result.outcome == UNREACHED and candidate is not None:
        return (f"{result.formula}: equivalent to {candidate.text} ({candidate.ref}), but in a "
                "function no entry point reaches (dead code)")
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
    seen: dict[tuple, Evidence] = {}
    ordered = sorted(results, key=lambda r: (r.outcome != DRIFTED, r.outcome != UNREACHED, r.outcome != EQUIVALENT))
    for result in ordered:
        for candidate in [result.candidate] if result.candidate else result.near[:_CANDIDATES_SHOWN]:
            key = (candidate.file, candidate.cell, candidate.line)
            seen.setdefault(key, Evidence(candidate.file, candidate.line, candidate.end_line,
                                          index.snippet(candidate), "expression", cell=candidate.cell))
    return tuple(seen.values())


@dataclass(frozen=True)
class FormulaFinding(Finding):
    """The report's record of one claimed formula (``sau.vocabulary.Finding``): its text, outcome, the difference
    named for a drift, its credit toward the score, and the candidates behind it (``file:line``)."""

    formula: str
    outcome: Outcome
    difference: str
    credit: float
    candidates: tuple[str, ...]


def _findings(results: list[FormulaResult]) -> tuple[FormulaFinding, ...]:
    return tuple(FormulaFinding(r.formula, r.outcome, r.difference, r.credit,
                                tuple(c.ref for c in ([r.candidate] if r.candidate else []) +
                                      r.near[:_CANDIDATES_SHOWN]))
                 for r in results)


def _ambiguous(sau: SAU, results: list[FormulaResult], scope: list[FunctionRecord], reason: str,
               index: RepositoryIndex | None = None) -> Verdict:
    """An unresolved verdict with the best estimate: the formulas' counts, and at least a trace (0.25) when the
    mechanism is named in code (SA-Bench's "only a trace")."""
    counts = [r.credit for r in results] or [0.0]
    estimate = round_to_scale(sum(counts) / max(len(counts), 1))
    if scope:
        estimate = max(estimate, 0.25)
    evidence = _evidence(results, index) if index is not None else ()
    if not evidence and index is not None:  # nothing comparable: show the LLM what implements the mechanism
        shown = [r.expressions[-1] for r in scope if r.expressions][:_CANDIDATES_SHOWN]
        evidence = tuple(Evidence(c.file, c.line, c.end_line, index.snippet(c), "expression", cell=c.cell)
                         for c in shown)
    return Verdict(sau, estimate, Status.UNRESOLVED, reason, RULE, None, evidence, _findings(results))
