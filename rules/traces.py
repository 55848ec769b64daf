"""What each rule traced while deciding a SAU, as ``sau.vocabulary.Trace`` records on its verdict (settled or not),
most decisive first: the LLM judge's evidence is chosen from them (``llm_fallback.evidence``).

- D1 (``values``): per claimed value, the drift a reader must see first, the call consuming the binding, the
  binding, then each link of its value provenance chain (``Fact.via``), and a stub behind the value.
- D2 (``formulas``): per formula, the candidate behind the outcome or its nearest candidates, the repository
  functions the candidate's function calls (the helpers whose bodies its expression inlines), then the functions
  named after the mechanism.
- D3 (``elements``): per protocol element, the places behind its outcome (loader, metric or baseline call sites,
  config entries) and the calls of the function holding each.
- D4 (``steps``): per step, its sites in the chosen entry point's trace, the calls leading there from the entry point
  (the trace segment holding the step), and where a step not in the trace was seen instead.

The functions read the rules' own result records by their fields (no import of the rule modules, which import this
one) and never raise on a record without a place.
"""

from __future__ import annotations

from typing import Iterable

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import CallGraph, CallSite, Mention, module_name
from extractors.facts import RepositoryIndex
from sau.vocabulary import Location, Trace, split_ref, split_where

# How many places of one kind each element contributes: enough for the judge to see the decisive code, few enough
# that a prompt stays small (the judge's budget cuts further, keeping the first).
_PER_VALUE = 2
_HELPERS = 3
_REFS = 3
_CALLERS = 2
_EVENTS = 2
_PATH = 2


def _at(place: Location, role: str, why: str) -> Trace:
    return Trace(place.file, place.line, place.end_line, role, why, cell=place.cell)


def _ref(ref: str, role: str, why: str) -> Trace | None:
    """A ``file:line`` (``nb.ipynb#3:2``) reference as a trace; ``None`` when it names no line."""
    place = split_ref(ref)
    if place is None:
        return None
    file, cell = split_where(place[0])
    return Trace(file, place[1], place[1], role, why, cell=cell)


def _unique(traces: Iterable[Trace | None]) -> tuple[Trace, ...]:
    """The traces in order, the first of each place kept."""
    seen: dict[tuple, Trace] = {}
    for item in traces:
        if item is not None:
            seen.setdefault((item.where, item.line), item)
    return tuple(seen.values())


def values(atom_results, first: tuple) -> tuple[Trace, ...]:
    """D1: ``atom_results`` as ``rules.d1_numerical.check`` builds them (pairs of an atom and its value outcomes),
    ``first`` the outcome kinds in the order a reader must see them."""
    found: list[Trace | None] = []
    ordered = sorted(((atom, o) for atom, outcomes in atom_results for o in outcomes),
                     key=lambda pair: first.index(pair[1].outcome) if pair[1].outcome in first else len(first))
    for atom, outcome in ordered:
        claim = f"{atom.name} {outcome.outcome}"
        for call in outcome.consumers:
            found.append(_at(call, "consumer", f"consumes the binding; {claim}"))
        for fact in outcome.facts[:_PER_VALUE]:
            found.append(_at(fact, "binding", f"binds {fact.name}; {claim}"))
            for link in fact.via:
                found.append(_at(link, "provenance", f"the value of {fact.name} comes from here"))
        stub = outcome.stub
        if stub is not None:
            found.append(Trace(stub.path, stub.line, stub.end_line, "stub", f"a stub behind {atom.name}"))
    return _unique(found)


def formulas(results, scope, index: RepositoryIndex) -> tuple[Trace, ...]:
    """D2: ``results`` the formula results (``candidate``, ``near``, ``formula``, ``outcome``) and ``scope`` the
    function records named after the mechanism."""
    graph = _graph(index)
    found: list[Trace | None] = []
    for result in results:
        shown = [result.candidate] if result.candidate is not None else list(result.near)
        for rank, candidate in enumerate(shown):
            why = (f"{result.outcome} for formula {result.formula[:40]!r}" if result.candidate is not None
                   else f"nearest {rank + 1} to formula {result.formula[:40]!r}")
            found.append(_at(candidate, "candidate", why))
            found += _helpers(graph, candidate, "called where the candidate is")
    for record in scope:
        found.append(Trace(record.file, record.line, record.line, "mechanism",
                           f"{record.qualname} is named after the mechanism", cell=record.cell))
    return _unique(found)


def _helpers(graph: CallGraph | None, candidate, why: str) -> list[Trace]:
    """The repository functions the function holding ``candidate`` calls, in call order."""
    if graph is None or candidate.function == "<module>":
        return []
    node = f"{module_name(candidate.where)}.{candidate.function}"
    helpers: list[Trace] = []
    for site in graph.callees_in_order(node):
        info = graph.functions.get(site.callee or "")
        if info is not None and info.qualname != node and len(helpers) < _HELPERS:
            file, cell = split_where(info.file)
            helpers.append(Trace(file, info.line, info.end_line, "helper", f"{info.qualname}, {why}", cell=cell))
    return helpers


def elements(results, index: RepositoryIndex) -> tuple[Trace, ...]:
    """D3: ``results`` the element results (``category``, ``name``, ``outcome``, ``note``, ``refs``)."""
    graph = _graph(index)
    found: list[Trace | None] = []
    for result in results:
        what = f"{result.category[:-1] if result.category != 'scope' else 'scope'} {result.name!r}"
        for ref in result.refs[:_REFS]:
            found.append(_at(ref, "call site", f"{what} {result.outcome}"))
            if isinstance(ref, Mention) and graph is not None:
                found += [_at(site, "caller", f"calls {ref.scope.rsplit('.', 1)[-1]}, which names {result.name!r}")
                          for site in _callers(graph, ref.scope)]
    return _unique(found)


def _callers(graph: CallGraph, node: str) -> list[CallSite]:
    """The call sites that call ``node``, first ``_CALLERS`` in graph order."""
    if node not in graph.graph:
        return []
    sites = [site for caller in graph.graph.predecessors(node) for site in graph.callees_in_order(caller)
             if site.callee == node]
    return sites[:_CALLERS]


def steps(results, entry: str | None) -> tuple[Trace, ...]:
    """D4: ``results`` the step results (``name``, ``outcome``, ``strength``, ``events``, ``where``), ``entry`` the
    entry point whose trace was chosen."""
    found: list[Trace | None] = []
    origin = f" from {entry}" if entry else ""
    for result in results:
        for event in result.events[:_EVENTS]:
            found.append(_at(event.site, "step", f"step {result.name!r} ({result.strength} match){origin}"
                             + (", in a loop" if event.in_loop else "")))
        for result_event in result.events[:1]:
            for site in result_event.path[-1 - _PATH:-1]:
                found.append(_at(site, "path", f"the call leading to step {result.name!r}{origin}"))
        if result.where:
            found.append(_ref(result.where, "elsewhere", f"step {result.name!r} {result.outcome} here"))
    return _unique(found)


def _graph(index: RepositoryIndex) -> CallGraph | None:
    try:
        return index.analysis(build_call_graph)
    except Exception:  # a graph that fails to build fails the rules that need it; traces go without callers
        return None
