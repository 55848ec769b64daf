"""Whether a string dispatch of the D3 rule can be taken by a run's free command-line text.

``if variant == "g1_headwise":`` runs its arm when that string reaches ``variant``. ``rules.d3_flow.selects`` looks
for the string written where a run can pass it (an option's choice or default, a configuration value, a call's
argument). A command-line option with no ``choices`` takes any text its user types: when the tested value comes
from such an option, every arm the test selects by a string can be run (benchmarks/truth/CONVENTIONS.md,
"Scope": a setting counts when a launcher runs it; the readers count an arm a command line selects as runnable,
gated-attention-llm D3-005's ``--gating_variant g1_headwise``). An option with ``choices`` offers only those
(``rules.d3_flow.selects`` reads them); a value passed on without a dispatch selects no code, and a setting only
such a value could carry (a rank typed on the command line) is not decided here.

The tested value comes from the option when the test reads it as an attribute named after the option
(``args.variant``), or reads a parameter of the function holding the test that a live call fills with such an
attribute (``build(args.variant)``, ``build(variant=args.variant)``; ``extractors.provenance.positional_passes``).
The option is free when its ``add_argument`` writes a string default and no ``choices``.
"""

from __future__ import annotations

from extractors import facts as K
from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD, Mention
from extractors.facts import Fact, RepositoryIndex
from extractors.provenance import call_liveness, calls_by_short, positional_passes
from extractors.walk import is_test_path


def free_options(index: RepositoryIndex) -> dict[str, Fact]:
    """Analysis provider: the command-line options (by ``dest`` name) outside tests whose ``add_argument`` writes a
    string default and no ``choices=``, each with its fact: any text may come through them."""
    graph = index.analysis(build_call_graph)
    chosen = {(m.file, m.line) for mentions in graph.mentions.values() for m in mentions
              if m.context.endswith("=choices")}
    return {f.name: f for f in index.facts
            if f.kind == K.ARGPARSE and isinstance(f.value, str) and not is_test_path(f.file)
            and not any((f.file, line) in chosen for line in range(f.line, f.end_line + 1))}


def typed_freely(mention: Mention, index: RepositoryIndex) -> bool:
    """Whether the value the ``select`` string ``mention`` is compared with (``Mention.reads``) comes from a free
    command-line option (``free_options``), directly (``args.variant``) or through a parameter of the comparing
    function that a live call fills from one (module docstring)."""
    return mention.context == "select" and free_source(mention, index) is not None


def free_source(mention: Mention, index: RepositoryIndex) -> Fact | None:
    """The free command-line option (its ``add_argument`` fact) the value a ``select`` or ``compare`` string is
    compared with comes from (``typed_freely``; ``"7b" in model_name.lower()`` with ``model_name`` passed
    ``args.model_name``), or ``None``."""
    if mention.context not in ("select", "compare") or len(mention.reads) != 1:
        return None
    options = index.analysis(free_options)
    if not options:
        return None
    tested = mention.reads[0]
    if "." in tested:
        return options.get(tested.rsplit(".", 1)[-1])
    return next((options[f.source] for f in _passed(mention.scope, tested, index) if _from_option(f, options)),
                None)


def _passed(scope: str, parameter: str, index: RepositoryIndex) -> list[Fact]:
    """The arguments live calls of the function ``scope`` (a qualname; a method ``__init__`` is called by its
    class's name) pass for ``parameter``, by keyword or by position."""
    owner = called_name(scope)
    out: list[Fact] = []
    for call in index.analysis(calls_by_short).get(owner, ()):
        if is_test_path(call.file) or call_liveness(index, call) == DEAD:
            continue
        out.extend(f for f in positional_passes(index, call) if f.name == parameter)
        out.extend(f for f in index.named(parameter) if f.kind == K.KEYWORD and f.file == call.file
                   and f.line == call.line and f.context.rsplit(".", 1)[-1] == owner)
    return out


def called_name(scope: str) -> str:
    """The name calls of the function ``scope`` (a qualname) use: its last part, or its class's for ``__init__``."""
    parts = scope.split(".")
    return parts[-2] if parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


def _from_option(fact: Fact, options: dict[str, Fact]) -> bool:
    """Whether an argument is an attribute read named after a free option (``args.variant``): not a bare local
    (``local_source``), not worked out (``computed``)."""
    return fact.value is None and not fact.computed and not fact.local_source and fact.source in options
