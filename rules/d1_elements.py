"""D1, the datasets, metrics, named components and trained or frozen tensors a numerical claim names beside its
numbers ("OpenWebText tokenized to 32000 tokens", "RMSE and marginal NLL over 10 seeds", "rotary embedding with base
10000"); D2 reads those of a formula claim the same way ("a Gumbel-Softmax output"; and "only R is trained"), present
there only in the code computing its formulas (``rules.d2_formula``).

A D1 SAU's spec may list such elements under ``datasets``, ``metrics`` and ``scope`` (``{name, aliases}``, as D3
reads them; ``verifier.specs.checks.parse_atoms``). Each is decided by D3's own presence lookup
(``rules.d3_protocol.decide_element``: a dataset is present when live code loads or builds it, a metric when live
code computes it, a component or setting when live code builds or runs it): present holds (1), absent is settled
missing (0; implemented only in dead code with nothing else of the claim holding, a trace, 0.25), ambiguous
stays undecided (anywhere in 0..1, counted half in the estimate, or nothing when only a generic term or a related
name hints at it, as D3 counts it). A D2 claim's tensors listed under ``trainable`` and ``shapes`` are decided by
``rules.trainable`` and ``rules.granularity`` from how live code sets up its parameters, with the same outcomes.
Each element counts in the SAU's compound score like one claimed value (``rules.d1_numerical.check``).
"""

from __future__ import annotations

from extractors.callgraph import build_call_graph
from extractors.facts import RepositoryIndex
from rules import d3_protocol, granularity, trainable
from rules.d3_protocol import ABSENT, AMBIGUOUS, PRESENT, ElementFinding, ElementResult
from sau.vocabulary import SAU, Evidence

# what a claim is run on, measured by, the components it names, and the tensors it trains or freezes
CATEGORIES = ("datasets", "metrics", "scope", trainable.CATEGORY, granularity.CATEGORY)
# the elements decided from a parameter's own settings: undecided, they count neither way (``counted``)
_OWN_SETTINGS = (trainable.CATEGORY, granularity.CATEGORY)
# the elements that make a claim a protocol's (what it runs on and measures): beside one of them present, a value
# only dead code holds counts 0, as D3 counts it (a named component is no protocol: it leaves that trace at 0.25)
PROTOCOL = ("datasets", "metrics")

_SCORES = {PRESENT: 1.0, ABSENT: 0.0, AMBIGUOUS: 0.5}
TRACE = 0.25  # implemented only where nothing runs: "only a trace" on the scale (../shared/LABELLING.md)


def listed(sau: SAU) -> list[tuple[str, dict]]:
    """The ``(category, {name, aliases})`` elements the SAU's checks list, datasets first, then metrics, then
    components (empty when none)."""
    return [(category, element) for category in CATEGORIES for element in sau.checks.get(category, ())]


def results(sau: SAU, index: RepositoryIndex, within: frozenset[str] | None = None) -> list[ElementResult]:
    """Each element of ``sau`` decided against ``index`` (module docstring): datasets, metrics and components by D3's
    presence lookup, trained or frozen tensors and parameters' dimensions by ``rules.trainable`` and
    ``rules.granularity`` (``within``, when given, D2's code computing the formula: the call-graph nodes whose
    settings decide when one name's settings disagree). Empty when the SAU lists none (the call graph is then not
    built)."""
    elements = listed(sau)
    if not elements:
        return []
    graph = index.analysis(build_call_graph)
    tensors = frozenset().union(*(trainable.terms(e) for c, e in elements if c == trainable.CATEGORY))
    return [trainable.decide(element, index, tensors, within) if category == trainable.CATEGORY
            else granularity.decide(element, index, within) if category == granularity.CATEGORY
            else d3_protocol.decide_element(category, element, graph, index) for category, element in elements]


def score(result: ElementResult, held: bool) -> float:
    """The element's score in [0, 1] as one element of the compound claim: 1 present, 0 absent, except 0.25 for
    one implemented only in dead code when nothing else of the claim holds (``held`` false: no value matched, no
    element present), as D3 scores such a claim a trace; an ambiguous one 0.5, or 0 when only a hint (a generic
    term or a related name) names it (D3's estimate)."""
    if result.outcome == ABSENT and not held and d3_protocol.only_dead(result):
        return TRACE
    return 0.0 if result.outcome == AMBIGUOUS and result.hint else _SCORES[result.outcome]


def counted(found: list[ElementResult]) -> list[ElementResult]:
    """The elements a D2 score counts: all but the tensors whose training or dimensions are undecided, which count
    neither way, as an element no check covers does not (``rules.trainable``, ``rules.granularity``: code that
    freezes them unnamed, or builds them in a way the rule does not read, says nothing against the claim)."""
    return [r for r in found if not (r.category in _OWN_SETTINGS and r.outcome == AMBIGUOUS)]


def contradicted(result: ElementResult) -> bool:
    """A parameter whose own settings contradict the claim (trained where it is claimed frozen, or the reverse; a
    single value where a vector is claimed): unlike a component named nowhere, a decided contradiction."""
    return result.category in _OWN_SETTINGS and result.outcome == ABSENT


def bounds(result: ElementResult, held: bool) -> tuple[float, float]:
    """The lowest and highest score the element may have (``sau.vocabulary.score_range``): 0..1 when ambiguous,
    else its ``score`` with the claim holding in part or not (``held``; ``rules.d1_numerical`` asks for each case)."""
    return (0.0, 1.0) if result.outcome == AMBIGUOUS else (score(result, held),) * 2


# the element as the verdict's reason names it: D3's wording (``dataset 'OpenWebText' present (loaded at data.py:4)``)
note = d3_protocol.element_note


def findings(found: list[ElementResult]) -> tuple[ElementFinding, ...]:
    """The report's record of each element (D3's ``ElementFinding``: outcome, note, first two places)."""
    return tuple(ElementFinding(r.category, r.name, r.outcome, r.note, tuple(dict.fromkeys(x.ref for x in r.refs))[:2])
                 for r in found)


def evidence(found: list[ElementResult], index: RepositoryIndex) -> tuple[Evidence, ...]:
    """Where each element was found (``file:line`` and the line's text), present ones first, as D3 shows them."""
    return d3_protocol.element_evidence(found, index)
