"""Value provenance: whether a binding found in the repository can reach the code that runs.

A value bound in a function no entry point calls, or in a class nobody instantiates, is a trace of an intention,
not a setting the run uses (ARCHITECTURE.md, "a config value nothing reads is a trace"). This module places each
Python fact in the call graph (``extractors.callgraph``) and reports the liveness of the code around it:

- assignments, fields, defaults, dict entries, ``.get`` defaults and loop variables sit in the class or function of
  their ``context`` (module level when it is empty);
- a call keyword (``AdamW(lr=...)``) sits where its call is, found through the call records of the index;
- argparse defaults and config-file keys are not placed (``MAYBE``): whether they are used is a question of reads,
  which the rules answer from ``RepositoryIndex.reads``.

Liveness is the call graph's: ``live`` (an entry point reaches the code through resolved edges), ``maybe`` (only
through guesses, decorators or dynamic dispatch, or the repository has no runnable entry point) or ``dead``.
"""

from __future__ import annotations

from typing import Callable

from extractors import facts as K
from extractors.callgraph import DEAD, LIVE, MAYBE, build_call_graph, module_name
from extractors.facts import CallFact, Fact, RepositoryIndex

__all__ = ["DEAD", "LIVE", "MAYBE", "binding_liveness", "call_liveness", "is_dead"]

_UNPLACED = frozenset({K.ARGPARSE, K.CONFIG, K.LITERAL})


def binding_liveness(index: RepositoryIndex) -> Callable[[Fact], str]:
    """Analysis provider (``index.analysis(binding_liveness)``): a function giving the liveness (``LIVE``,
    ``MAYBE`` or ``DEAD`` of ``extractors.callgraph``) of the code that holds a fact; ``MAYBE`` when the fact
    cannot be placed (config keys, argparse defaults, code the call graph does not know)."""
    graph = index.analysis(build_call_graph)
    calls: dict[tuple, list[CallFact]] = {}
    for call in index.calls:
        calls.setdefault((call.where, call.line), []).append(call)

    def scope_of(fact: Fact) -> str | None:
        if fact.kind in _UNPLACED:
            return None
        if fact.kind == K.KEYWORD:  # the context of a keyword is its callee; its scope is the call's
            sites = [c for c in calls.get((fact.where, fact.line), ()) if c.callee == fact.context]
            if not sites:
                sites = [c for c in calls.get((fact.where, fact.line), ())]
            return sites[0].context if sites else None
        return fact.context

    def liveness(fact: Fact) -> str:
        scope = scope_of(fact)
        return MAYBE if scope is None else _scope_liveness(graph, fact.file, fact.cell, scope)

    return liveness


def call_liveness(index: RepositoryIndex, call: CallFact) -> str:
    """The liveness of the code that makes ``call`` (as ``binding_liveness``)."""
    return _scope_liveness(index.analysis(build_call_graph), call.file, call.cell, call.context)


def _scope_liveness(graph, file: str, cell: int | None, scope: str) -> str:
    """The liveness of the innermost call-graph node holding ``scope`` (a dotted class/function path inside the
    module of ``file``; a notebook's top level is its cell); ``MAYBE`` for a place the graph does not know."""
    module = module_name(file)
    parts = scope.split(".") if scope else []
    for end in range(len(parts), -1, -1):
        node = ".".join([module, *parts[:end]])
        if end == 0 and cell is not None and f"{module}#{cell}" in graph.graph:
            node = f"{module}#{cell}"
        if node in graph.graph:
            return graph.liveness(node)
    return MAYBE


def is_dead(index: RepositoryIndex, fact: Fact) -> bool:
    """True when the code holding ``fact`` is dead in the call graph (``binding_liveness``)."""
    return index.analysis(binding_liveness)(fact) == DEAD
