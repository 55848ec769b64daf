"""Which tensors a claim says are trained or frozen ("only R is trained; W_0, B and A stay frozen", "both LoRA
factors are trained"), decided from the gradient settings of live code (``extractors.trainability``).

A spec lists such elements under ``trainable`` (``{name, aliases, trained, library}``: ``trained`` true for a
tensor the claim trains, false for one it freezes; ``library`` the calls of a library that realise the claim when
the code names no tensor itself, ``get_peft_model`` for LoRA factors PEFT trains). The element's *named* settings
are those whose target is the name or an alias (``R`` for ``self.R``, ``module.R.requires_grad = True``, the
buffer ``"B"``); each is read where it runs (the call graph's liveness): dead code and tests are not read, code
that may not run leaves the element undecided. A ``requires_grad`` flag (``x.requires_grad = ...``,
``x.requires_grad_(...)``) overrides the tensor's definition (a buffer, an ``nn.Parameter`` and its
``requires_grad``, a layer), as it does when it runs after it:

- **present** when the named settings agree with the claim (the flags among them, else the definitions), and, for a
  tensor claimed trained by its definition alone, no live flag freezes tensors the claim does not name (``for p in
  model.parameters(): p.requires_grad = False`` may reach it before or after; a freeze of a tensor the claim lists
  as frozen, the base layer of "W_0 frozen", is the claim's own); or, with no named setting, when live
  code calls one of ``library``;
- **absent** (a contradiction: the claim's tensor frozen where it is claimed trained, or the reverse) when they all
  say the opposite, by the same guard;
- **ambiguous** otherwise: settings that disagree, a flag that is not a literal, a freeze of unnamed tensors that
  may reach it, settings only in code that may not run, or none at all.

Each element counts as one element of the claim, as a dataset or a named component does (``rules.d1_elements``).
D2 reads the named settings of the code computing the formula when a name's settings disagree, and keeps a decided
element only where some setting behind it lies in the formula's code (``rules.d2_formula``: its functions and the
constructors of their classes): a layer built with frozen factors that code elsewhere never puts into the trained
model says nothing of what the optimizer moves.
"""

from __future__ import annotations

from typing import Callable

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import LIVE, CallGraph, Mention
from extractors.facts import RepositoryIndex
from extractors.trainability import FLAG, GradSetting, running_settings
from extractors.walk import is_test_path
from rules.d3_protocol import ABSENT, AMBIGUOUS, PRESENT, ElementResult

CATEGORY = "trainable"
_SHOWN = 2  # settings named in a note


def terms(element: dict) -> frozenset[str]:
    """The names an element's tensors go by (``trainable`` and ``shapes`` elements): its name and aliases."""
    return frozenset((element["name"], *element.get("aliases", ())))


def decide(element: dict, index: RepositoryIndex, claimed_names: frozenset[str] = frozenset(),
           within: frozenset[str] | None = None) -> ElementResult:
    """Decide one ``{name, aliases, trained, library}`` element (module docstring) against ``index``;
    ``claimed_names`` the names of every tensor the same claim lists (``terms`` of each): a freeze of one of those is
    the claim's own, not one of unnamed tensors that may reach this one; ``within``, when given, the call-graph nodes
    whose named settings count when the name's settings disagree (a formula's code: a baseline's trained ``lora_B``
    elsewhere is another tensor). The result's refs are ``Mention``s at the settings behind it (scope: the
    call-graph node holding each), best first."""
    graph = index.analysis(build_call_graph)
    names = terms(element)
    claimed = element["trained"]
    live, unsure = running_settings(index)
    named, maybe = named_settings(names, live, unsure, within, lambda found: {s.trained for s in _deciding(found)})
    others = [s for s in live if s.target not in names | claimed_names and s.how == FLAG and s.trained is False]
    result = _outcome(element, claimed, named, others, maybe)
    if result is not None:
        return result
    calls = _library_calls(element.get("library", ()), graph)
    if calls:
        return ElementResult(CATEGORY, element["name"], PRESENT, f"realised by the library ({calls[0].text} at "
                             f"{calls[0].ref})", tuple(calls))
    if others:
        return ElementResult(CATEGORY, element["name"], AMBIGUOUS,
                             f"not named where gradients are set; a freeze of other tensors at {others[0].ref} may "
                             "reach it", mentions(others))
    return ElementResult(CATEGORY, element["name"], AMBIGUOUS, "not named where gradients are set", hint=True)


def _outcome(element: dict, claimed: bool, named: list[GradSetting], others: list[GradSetting],
             unsure: list[GradSetting]) -> ElementResult | None:
    """The decision from the named live settings, or ``None`` when there are none (and none in code that may not
    run)."""
    name = element["name"]
    if not named:
        if unsure:
            return ElementResult(CATEGORY, name, AMBIGUOUS, f"set only in code that may not run ({unsure[0].ref})",
                                 mentions(unsure))
        return None
    flags = [s for s in named if s.how == FLAG]
    deciding = _deciding(named)
    values = {s.trained for s in deciding}
    refs = mentions(deciding + [s for s in named if s not in deciding])
    if None in values or len(values) > 1:
        return ElementResult(CATEGORY, name, AMBIGUOUS, "its settings disagree or are not literals ("
                             + ", ".join(_shown(deciding)) + ")", refs)
    trained = values.pop()
    if trained and not flags and others:
        # trained by its definition, but a loop or module call freezing unnamed tensors may run after it
        return ElementResult(CATEGORY, name, AMBIGUOUS, f"trained where defined ({', '.join(_shown(deciding))}), "
                             f"but a freeze of unnamed tensors at {others[0].ref} may reach it",
                             refs + mentions(others[:1]))
    state = "trained" if trained else "frozen"
    outcome = PRESENT if trained == claimed else ABSENT
    return ElementResult(CATEGORY, name, outcome, f"{state}: {', '.join(_shown(deciding))}", refs)


def named_settings(names: frozenset[str], live: list[GradSetting], unsure: list[GradSetting],
                   within: frozenset[str] | None, readings: Callable[[list[GradSetting]], set]
                   ) -> tuple[list[GradSetting], list[GradSetting]]:
    """The settings of the tensors ``names`` name, in code that runs and in code that may run; when their
    ``readings`` disagree and ``within`` (a formula's code) is given, only those set there: a baseline's trained
    ``lora_B`` beside the method's frozen one is another tensor of the same name."""
    named = [s for s in live if s.target in names]
    maybe = [s for s in unsure if s.target in names]
    if within is not None and len(readings(named)) > 1:
        named = [s for s in named if s.scope in within]
        maybe = [s for s in maybe if s.scope in within]
    return named, maybe


def _deciding(named: list[GradSetting]) -> list[GradSetting]:
    """The settings that decide: the ``requires_grad`` flags, which override definitions, else the definitions."""
    return [s for s in named if s.how == FLAG] or named


def _shown(settings: list[GradSetting]) -> list[str]:
    shown = [f"{s.how} {s.written} at {s.ref}" for s in settings[:_SHOWN]]
    return shown + ["..."] if len(settings) > _SHOWN else shown


def mentions(settings: list[GradSetting]) -> tuple[Mention, ...]:
    """Each setting as a ``Mention`` at its line, in the call-graph node holding it (for D2's nearness test)."""
    return tuple(Mention.at(s.where, s.line, s.scope, s.written, "binding") for s in settings)


def _library_calls(library: tuple[str, ...], graph: CallGraph) -> list[Mention]:
    """Live calls of ``library``'s functions (by the called name's last component), outside tests."""
    if not library:
        return []
    wanted = set(library)
    return [m for text, found in graph.mentions_by_text().items() if text.rsplit(".", 1)[-1] in wanted
            for m in found if m.context == "call" and not is_test_path(m.file)
            and m.scope in graph.graph and graph.liveness(m.scope) == LIVE]
