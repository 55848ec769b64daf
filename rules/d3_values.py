"""D3: which calls give a metric no value of its own.

A name or key named after a metric holds it only when something computes it (benchmarks/truth/CONVENTIONS.md,
"Protocol"). The result of a call holds no value of the metric a claim's terms name when the call

- computes another metric (``mcc = accuracy_score(...)`` for Matthews correlation: the caller's ``other_metric``
  test, ``rules.d3_protocol``);
- calls a repository function whose whole body is a stub (``rules.d2_stubs``: ``condition_number`` raising
  ``NotImplementedError``), every function of that name being one;
- or calls a repository function every ``return`` of which holds only such values or constants
  (``rules.d3_flow.returns_source``: ``layer_condition_numbers`` returning lists filled with
  ``condition_number(...)`` results).

``uncomputed`` gives that judgement as the ``other_metric`` callable of ``rules.d3_flow.value_source``; a function
whose returns lead back to itself counts as computing.
"""

from __future__ import annotations

from typing import Callable

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import module_name
from extractors.facts import RepositoryIndex
from rules.d2_stubs import stubbed_functions
from rules.d3_flow import Source, flow, returns_source


def stub_nodes(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the call-graph nodes (``module.qualname``) of the repository's whole-function stubs."""
    return frozenset(f"{module_name(file)}.{qualname}" for file, qualname in index.analysis(stubbed_functions))


def stub_classes(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the call-graph nodes of the repository's classes whose own methods, besides ``__init__``
    and other dunders, are all whole-function stubs, at least one of them (``RCPSBaseline`` whose
    ``compute_lambda`` raises ``NotImplementedError``): building one builds a method that computes nothing."""
    stubbed = index.analysis(stub_nodes)
    methods: dict[str, list[str]] = {}
    for qualname, info in index.analysis(build_call_graph).functions.items():
        if info.class_name is not None and not (info.name.startswith("__") and info.name.endswith("__")):
            methods.setdefault(info.class_name, []).append(qualname)
    return frozenset(cls for cls, own in methods.items() if all(q in stubbed for q in own))


def _functions_by_name(index: RepositoryIndex) -> dict[str, tuple[str, ...]]:
    """Analysis provider: a function's bare name -> the qualnames of the repository functions so named."""
    found: dict[str, list[str]] = {}
    for qualname in index.analysis(build_call_graph).functions:
        found.setdefault(qualname.rsplit(".", 1)[-1], []).append(qualname)
    return {name: tuple(quals) for name, quals in found.items()}


def _returns_memo(index: RepositoryIndex) -> dict[tuple[str, tuple[str, ...]], bool]:
    """Analysis provider: the repository's memo of ``(qualname, terms) -> returns nothing of the metric``."""
    return {}


def uncomputed(terms: tuple[str, ...], index: RepositoryIndex,
               other_metric: Callable[[str], bool]) -> Callable[[str], bool]:
    """A function from a callee's dotted text (``np.nanmedian``, ``self.layer_stats``) to whether its result holds
    no value of the metric ``terms`` name (module docstring); ``other_metric(callee)`` tells a call computing
    another metric than that one."""
    stubs = index.analysis(stub_nodes)
    named = index.analysis(_functions_by_name)
    memo = index.analysis(_returns_memo)
    data = index.analysis(flow)

    def judge(callee: str) -> bool:
        if other_metric(callee):
            return True
        targets = named.get(callee.rsplit(".", 1)[-1], ())
        return bool(targets) and all(q in stubs or _returns_nothing(q) for q in targets)

    def _returns_nothing(qualname: str) -> bool:
        key = (qualname, terms)
        if key not in memo:
            memo[key] = False  # while it is being worked out, a call back into it counts as computing
            memo[key] = returns_source(qualname, data, judge) != Source.COMPUTED
        return memo[key]

    return judge
