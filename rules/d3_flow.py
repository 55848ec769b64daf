"""Where a value the D3 rule reads comes from, within the code that holds it: the two questions of the protocol rule
that the syntax of one mention cannot answer.

- **What a computed value holds** (``value_source``): a metric key or name bound to an expression
  (``results["sink"] = sink_ratios``, ``"mcc": float(mcc)``) is computed when its inputs are; it holds a constant
  when every input is a name bound in the same scope only to literals and never filled in afterwards (no
  ``x[k] = v``, ``x += v`` or ``x.append(...)``), passed through calls that compute nothing new (``float``,
  ``sum``, ``len``: ``rules/roles.yaml``, ``pass_through_calls``); and it holds *another* metric when an input is a
  name bound to a call computing another metric (``mcc = accuracy_score(...)``) or an item read by a key naming
  another metric (``metrics["RMSE"]``: ``extractors.callgraph.scan.keyed_read``; an item under any other key holds
  what its collection holds).
- **Which listed settings a loop runs** (``loop_runs``): a string inside a list, tuple, set or dict bound to a name
  (``REWARD_VARIANTS = ["no_variance", ...]``: ``Mention.within``) is run when live code iterates that name
  (``for reward_type in REWARD_VARIANTS``, also through ``enumerate``/``tqdm`` and the like, through a local bound
  from it, ``envs = BENCHMARK_ENVS[benchmark]``, or through a dict holding it) and hands the loop's item to a call
  that is not a print, log, plot or exception (``raise ValueError(f"missing {key}")`` checks a setting, runs
  none); a loop over a slice with literal bounds (``REWARD_VARIANTS[:2]``) runs only the positions inside it, and
  so does a table entry slicing the list (``"dmc_proprio": DMC_ENVS[:5]``); of a table holding the list under
  several keys, a claim naming one entry's key (``dmc_proprio`` for "proprioceptive DeepMind Control") counts only
  that entry: the others run another protocol (``dmc_visual``). A
  setting of such a list that no loop reaches, while a slicing loop runs the list, is skipped; one whose list live
  code does not iterate in this way is undecided here.
- **Whether a claimed list of values runs** (``values_run``): a configuration list or a Python list bound to a
  name holding exactly the claimed values (``k_values_to_test: [0.0, 0.3, 0.6, 0.9]`` for "k_3 values
  0/0.3/0.6/0.9") runs when live code reads it into a local (``ks = cfg.get("...k_values_to_test")``, on the
  line naming the key) or by its own name, and a live loop over that local or name hands its items to a call.
- **Whether a string dispatch can be taken** (``supplied``): code under ``if kind == "deterministic":`` runs only
  when that string reaches ``kind``; it can when the string is written anywhere else that is not dead code, a
  comparison, a message, a listed setting the loops skip or the default of a parameter its function never reads (a
  list, a call's argument, an ``argparse`` default or choice), or is a string value of a configuration file or a
  launcher's argument. ``def make_kernel(kind, reward="high_variance")`` whose body fixes the reward hands that
  default to nothing. When it is written only as
  listed settings the loops skip (``skipped_only``), the code under the test is known not to run.

Both read only mentions (``extractors.callgraph.Mention``: ``reads``, ``within``, ``iter:`` contexts) and
liveness; depth-bounded, they never raise on odd input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import libcst as cst

from extractors import facts as K
from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD, CallGraph, Mention, argument_callee
from extractors.callgraph.scan import keyed_read, value_reads
from extractors.facts import Fact, RepositoryIndex
from extractors.trees import node_children
from extractors.words import word_list
from rules import roles
from rules.names import words


class Source(StrEnum):
    """What a computed value holds (module docstring)."""

    COMPUTED = "computed"
    CONSTANT = "constant"
    OTHER = "other"  # another metric's result, or a stub's
    # a parameter, loop variable, global or attribute: what it holds is not told here; inside ``value_source`` it
    # counts as computed unless a call of the same value gives another metric or a stub's result, to which it is
    # then only an argument (``per_head.append(condition_number(weight))``); never returned by the public functions
    INPUT = "input"


class Run(StrEnum):
    """What live loops do with a listed setting (module docstring)."""

    RUN = "run"
    SKIPPED = "skipped"
    UNDECIDED = "undecided"


_PASS_THROUGH = roles.words("pass_through_calls")
_MUTATORS = roles.words("mutating_methods")
_FILLING = frozenset(word_list("filling_methods"))  # their arguments are recorded as bind:item reads
_SHOWN = frozenset(w.lower() for w in word_list("display_calls")) | roles.words("plot_calls")
_RAISED = ("error", "exception")  # ValueError(f"missing {key}"): a message raised, nothing run with the item
_COMPARED = ("compare", "select")  # a string tested against, which supplies no value
_DEPTH = 3  # hops through local bindings or enclosing tables: deeper chains are left undecided
_STEM_MIN = 4  # a key's word this long may stand for a claim's longer word ("proprio" for "proprioceptive")


@dataclass(frozen=True)
class Flow:
    """The mentions the two questions need, indexed once per repository (``flow`` builds it): ``bindings``
    (scope, name) -> binding mentions of that name in that scope; ``filled`` the (scope, name) pairs filled in
    after binding (``x[k] = v``, ``x += v``, ``x.append(...)``); ``loops`` iterated name -> its live ``iter:``
    mentions; ``readers`` name -> live binding mentions whose value reads it; ``holders`` name -> mentions of that
    name inside a display bound to another name; ``used`` (scope, name) pairs handed to a call that is neither a
    print, a log, a plot nor an exception; ``written`` string -> its mentions outside dead code that are neither
    comparisons nor messages; ``configured`` the string values of configuration files and launchers' arguments;
    ``fills`` (scope, name) -> the ``bind:item`` bindings filling that name (``x[k] = v``, ``x.append(v)``), whose
    ``reads`` say what was put in; ``opaque`` the (scope, name) pairs also changed by a method whose arguments are
    not recorded (``x.add_(y)``, ``x.fill_(0)``);
    ``bound_at`` (source key, line) -> the live bindings there; ``named`` the last part of a live string or dotted name
    -> its mentions (``"a.b.k"`` and ``cfg.k`` under ``k``); ``unread_defaults`` the parameter defaults (context
    ``default:<parameter>``) whose function never reads that parameter: such a value reaches nothing.
    """

    graph: CallGraph
    bindings: dict[tuple[str, str], list[Mention]]
    filled: frozenset[tuple[str, str]]
    loops: dict[str, list[Mention]]
    readers: dict[str, list[Mention]]
    holders: dict[str, list[Mention]]
    used: frozenset[tuple[str, str]]
    written: dict[str, list[Mention]]
    configured: frozenset[str]
    bound_at: dict[tuple[str, int], list[Mention]]
    named: dict[str, list[Mention]]
    unread_defaults: frozenset[Mention] = frozenset()
    fills: dict[tuple[str, str], list[Mention]] = field(default_factory=dict)
    opaque: frozenset[tuple[str, str]] = frozenset()


def flow(index: RepositoryIndex) -> Flow:
    """Analysis provider: the ``Flow`` of the repository's call graph."""
    graph = index.analysis(build_call_graph)
    bindings: dict[tuple[str, str], list[Mention]] = {}
    filled: set[tuple[str, str]] = set()
    fills: dict[tuple[str, str], list[Mention]] = {}
    opaque: set[tuple[str, str]] = set()
    loops: dict[str, list[Mention]] = {}
    readers: dict[str, list[Mention]] = {}
    holders: dict[str, list[Mention]] = {}
    used: set[tuple[str, str]] = set()
    written: dict[str, list[Mention]] = {}
    bound_at: dict[tuple[str, int], list[Mention]] = {}
    named: dict[str, list[Mention]] = {}
    defaults: list[Mention] = []
    reading: set[tuple[str, str]] = set()  # (scope, first part of a name read there)
    for scope, mentions in graph.mentions.items():
        live = graph.live(scope)
        dead = scope in graph.graph and graph.liveness(scope) == DEAD
        for mention in mentions:
            text, context = mention.text, mention.context
            if mention.kind == "string" and context not in _COMPARED and not dead:
                written.setdefault(text, []).append(mention)
            if context.startswith("default:"):
                defaults.append(mention)
            if mention.kind == "name":
                reading.add((scope, text.split(".", 1)[0]))
            if live and mention.kind in ("string", "name"):
                named.setdefault(text.rsplit(".", 1)[-1], []).append(mention)
            if mention.kind == "binding":
                if live:
                    bound_at.setdefault((mention.where, mention.line), []).append(mention)
                if context == "bind:item":
                    filled.add((scope, text))
                    fills.setdefault((scope, text), []).append(mention)
                else:
                    bindings.setdefault((scope, text), []).append(mention)
                if live:
                    for read in mention.reads:
                        if not read.endswith("()") and keyed_read(read) is None:
                            readers.setdefault(read.rsplit(".", 1)[-1], []).append(mention)
                continue
            if mention.kind != "name":
                continue
            if context == "call" and "." in text:
                receiver, _, method = text.rpartition(".")
                if method in _MUTATORS:
                    filled.add((scope, receiver.rsplit(".", 1)[-1]))
                    if method not in _FILLING:
                        opaque.add((scope, receiver.rsplit(".", 1)[-1]))
            if mention.within:
                holders.setdefault(text.rsplit(".", 1)[-1], []).append(mention)
            if not live:
                continue
            if context.startswith("iter:"):
                loops.setdefault(text.rsplit(".", 1)[-1], []).append(mention)
            elif context.startswith("arg:"):
                callee = argument_callee(context).lower()
                if callee and callee not in _SHOWN and not callee.endswith(_RAISED):
                    used.add((scope, text))
    configured = frozenset(f.value for f in index.facts
                           if f.kind in (K.CONFIG, K.LAUNCHER) and isinstance(f.value, str))
    # a parameter its function (or a function nested in it) never reads hands its default to nothing
    scopes_reading: dict[str, set[str]] = {}
    for scope, name in reading:
        scopes_reading.setdefault(name, set()).add(scope)
    unread = frozenset(m for m in defaults if not any(
        s == m.scope or s.startswith(m.scope + ".") for s in scopes_reading.get(m.context[len("default:"):], ())))
    for string, sources in list(written.items()):
        written[string] = [source for source in sources if source not in unread]
    return Flow(graph, bindings, frozenset(filled), loops, readers, holders, frozenset(used), written, configured,
                bound_at, named, unread, fills, frozenset(opaque))


def values_run(fact: Fact, data: Flow) -> Mention | None:
    """The live loop running the list of values ``fact`` binds (a configuration key or a Python name), or
    ``None`` (module docstring)."""
    if fact.kind != K.CONFIG:
        outcome, loop = _runs(fact.name, "", data, 0)
        return loop if outcome == Run.RUN else None
    for read in data.named.get(fact.name, ()):
        if read.text not in (fact.name, fact.path) and not read.text.endswith("." + fact.name):
            continue
        for binding in data.bound_at.get((read.where, read.line), ()):
            if binding.scope != read.scope:
                continue
            for loop in data.loops.get(binding.text, ()):
                if loop.scope == binding.scope and _loop_covers(loop, None, data) == Run.RUN:
                    return loop
    return None


def shown_only(mention: Mention, data: Flow) -> bool:
    """Whether the string ``mention`` is the value bound to a name (``label = "Fixed S, A, High Variance Reward"``)
    that live code in the same scope only hands to prints, logs and plots (``plt.plot(r, label=label)``): a text
    shown to people, like a string written in such a call."""
    if mention.kind != "string" or mention.within or mention.context not in ("literal", ""):
        return False
    bound = [b for b in data.bound_at.get((mention.where, mention.line), ()) if b.scope == mention.scope]
    if len(bound) != 1 or bound[0].context not in ("bind:literal", "bind:computed"):
        return False
    name = bound[0].text
    targets = {(b.where, b.line) for b in data.bindings.get((mention.scope, name), ())}
    reads = [m for m in data.named.get(name, ()) if m.scope == mention.scope and m.kind == "name" and m.text == name
             and not (m.context == "" and (m.where, m.line) in targets)]  # the assignment's own target
    return bool(reads) and all(_shown_callee(m.context) for m in reads)


def _shown_callee(context: str) -> bool:
    """Whether a mention's context is an argument of a print, log or plot call."""
    callee = argument_callee(context).lower()
    return bool(callee) and callee in _SHOWN


def supplied(mention: Mention, data: Flow) -> bool:
    """Whether some string ``mention``'s enclosing ``if`` tests select it by can reach the compared value (module
    docstring); true when it has no such guards."""
    return not mention.guards or any(reaches(string, data) for string in mention.guards)


def selects(mention: Mention, data: Flow) -> bool:
    """Whether a run can pass the string an ``if`` statement selects its arm by (``mention``, context ``select``):
    a string value of a configuration file or a launcher, or a string live or maybe-live code hands to a call (a
    command-line option's choice or default, ``build("g3_elementwise")``), lists as a setting the loops do not skip,
    or writes in the comparing function itself. Narrower than ``reaches``: a parameter default or a constant of
    another function (``def other(kind="high_variance")``) reaches this comparison only by the coincidence of an
    equal string."""
    if mention.text in data.configured:
        return True
    for source in data.written.get(mention.text, ()):
        if source.within:
            if loop_runs(source, data)[0] != Run.SKIPPED:
                return True
        elif source.context.startswith("arg:") or source.scope == mention.scope:
            return True
    return False


def reaches(string: str, data: Flow) -> bool:
    """Whether ``string`` can reach a value a comparison tests (module docstring, ``supplied``): a string value of a
    configuration file or a launcher, or written in live or maybe-live code other than as a listed setting the loops
    skip."""
    if string in data.configured:
        return True
    return any(not source.within or loop_runs(source, data)[0] != Run.SKIPPED
               for source in data.written.get(string, ()))


def skipped_only(strings: tuple[str, ...], data: Flow) -> bool:
    """Whether one of ``strings`` (those an ``if`` test selects by, or one compared there) is written only as
    listed settings the live loops skip (``REWARD_VARIANTS[:2]`` leaving out ``"high_variance"``) and supplied
    nowhere else: the code selected by it is then known not to run, where a string written nowhere might still come
    from a user."""
    for string in strings:
        sources = data.written.get(string, ())
        if string not in data.configured and sources and \
                all(source.within and loop_runs(source, data)[0] == Run.SKIPPED for source in sources):
            return True
    return False


def value_source(mention: Mention, data: Flow, other_metric: Callable[[str], bool], depth: int = 0) -> Source:
    """What the value bound or keyed by ``mention`` holds, from its ``reads`` (module docstring);
    ``other_metric(callee)`` tells a call computing another metric. ``COMPUTED`` whenever it cannot be told."""
    kinds: set[Source] = set()
    # np.nanmedian(x) reads np too: a receiver not bound in this scope is a module or a global, not an input
    receivers = {read[:-2].rsplit(".", 1)[0] for read in mention.reads if read.endswith("()") and "." in read}
    keyed = {read: keyed_read(read) for read in mention.reads}
    items = {found[0] for found in keyed.values() if found is not None}  # read through a key: the key decides
    for read in mention.reads:
        if read in receivers and (mention.scope, read) not in data.bindings or read in items:
            continue
        item = keyed[read]
        if item is not None:
            collection, key = item  # metrics["RMSE"]: the item another metric's key names is that metric
            kinds.add(Source.OTHER if other_metric(key) else
                      _name_source(mention.scope, collection, data, other_metric, depth))
            if Source.COMPUTED in kinds:
                return Source.COMPUTED
            continue
        if read.endswith("()"):
            callee = read[:-2]
            if other_metric(callee):
                kinds.add(Source.OTHER)
            elif callee.rsplit(".", 1)[-1] not in _PASS_THROUGH:
                return Source.COMPUTED
            continue
        kinds.add(_name_source(mention.scope, read, data, other_metric, depth))
        if Source.COMPUTED in kinds:
            return Source.COMPUTED
    if Source.OTHER in kinds:
        return Source.OTHER  # the inputs beside it are arguments of the call giving another metric or a stub's value
    return Source.CONSTANT if kinds == {Source.CONSTANT} else Source.COMPUTED


def returns_source(qualname: str, data: Flow, other_metric: Callable[[str], bool]) -> Source:
    """What the values the repository function ``qualname`` (a node of the call graph) returns hold: the
    ``value_source`` of each ``return`` statement's expression in its own body (nested functions left out);
    ``COMPUTED`` when one of them is computed or has no inputs (``return 0.0``), or when it returns nothing."""
    info = data.graph.functions.get(qualname)
    values = _return_values(info.node) if info is not None else []
    if info is None or not values:
        return Source.COMPUTED
    kinds = set()
    for value in values:
        reads = value_reads(value)
        if not reads:
            return Source.COMPUTED
        kinds.add(value_source(Mention.at(info.file, info.line, qualname, "", "binding", reads=reads), data,
                               other_metric))
        if Source.COMPUTED in kinds:
            return Source.COMPUTED
    return Source.OTHER if Source.OTHER in kinds else Source.CONSTANT


def _return_values(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The expressions the ``return`` statements of ``function``'s own body return (not those of nested functions,
    classes or lambdas)."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            if node.value is not None:
                found.append(node.value)
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(node_children(node))
    return found


def name_source(mention: Mention, data: Flow, other_metric: Callable[[str], bool]) -> Source:
    """What the name read by ``mention`` holds where it is read, from its bindings in the same scope
    (``value_source``); ``COMPUTED`` when it cannot be told."""
    found = _name_source(mention.scope, mention.text, data, other_metric, 0)
    return Source.COMPUTED if found == Source.INPUT else found


def _name_source(scope: str, name: str, data: Flow, other_metric: Callable[[str], bool], depth: int) -> Source:
    if depth >= _DEPTH or (scope, name) in data.opaque:
        return Source.COMPUTED  # a long chain, or a name changed by a method not followed
    bound = data.bindings.get((scope, name), []) if "." not in name else []
    if not bound:
        return Source.INPUT  # an attribute, a parameter, a loop variable, a global: not told here
    kinds = set()
    for fill in data.fills.get((scope, name), ()):  # scores.append(v), scores[k] = v: it holds what was put in
        kinds.add(value_source(fill, data, other_metric, depth + 1))
    for binding in bound:
        context = binding.context
        if context == "bind:literal":
            kinds.add(Source.CONSTANT)
        elif context.startswith("bind:call:") and other_metric(context[len("bind:call:"):]):
            kinds.add(Source.OTHER)
        else:
            kinds.add(value_source(binding, data, other_metric, depth + 1))
    if Source.COMPUTED in kinds:
        return Source.COMPUTED
    return Source.OTHER if Source.OTHER in kinds else Source.CONSTANT


def loop_runs(mention: Mention, data: Flow, claim: frozenset[str] = frozenset()) -> tuple[Run, Mention | None]:
    """Whether live loops run the listed setting ``mention`` (a string or name inside a display bound to a name:
    ``Mention.within``), and the loop's mention deciding it (module docstring). ``claim`` the lower-case words of
    the claim asking (``claim_words``): of a table's entries holding the setting's list under keys, only those
    whose key the claim names count when one does (``entry_named``)."""
    name, _, position = mention.within.partition(":")
    return _runs(name, position, data, 0, claim) if name else (Run.UNDECIDED, None)


def claim_words(texts: tuple[str, ...]) -> frozenset[str]:
    """The lower-case words (``rules.names.words``) of a claim's texts: its statement, its elements' names and
    aliases."""
    return frozenset(w for text in texts for w in words(text))


def entry_named(key: str, claim: frozenset[str]) -> bool:
    """Whether the claim of words ``claim`` names a table entry's ``key``: every word of the key is a word of the
    claim or, from four letters up, begins one (``dmc_proprio`` for "Proprioceptive DeepMind Control", alias
    ``dmc``; not ``dmc_visual``)."""
    parts = words(key)
    return bool(parts) and all(part in claim or len(part) >= _STEM_MIN and any(w.startswith(part) for w in claim)
                               for part in parts)


def _runs(name: str, position: str, data: Flow, depth: int,
          claim: frozenset[str] = frozenset()) -> tuple[Run, Mention | None]:
    """``position`` as in ``Mention.within``: a list's index, empty for a set's element or a dict's key, ``=`` (and
    the entry's key) for a dict's value (iterating a dict gives its keys; its values are iterated through a local
    bound from it)."""
    outcomes: list[tuple[Run, Mention | None]] = []
    if not position.startswith("="):
        for loop in data.loops.get(name, ()):
            outcomes.append((_loop_covers(loop, int(position) if position.isdigit() else None, data), loop))
    if depth < _DEPTH:
        for binding in data.readers.get(name, ()):  # envs = BENCHMARK_ENVS[benchmark]; for env in envs: ...
            for loop in data.loops.get(binding.text, ()):
                if loop.scope == binding.scope:
                    outcomes.append((_loop_covers(loop, None, data), loop))
        for holder in _serving(data.holders.get(name, []), claim):
            # a list held by a table: run when the table's entries are, in the positions a slice keeps
            outer, _, place = holder.within.partition(":")
            kept = _sliced(holder, position)
            if kept != Run.RUN:
                outcomes.append((kept, holder))
            elif outer and outer != name:
                outcomes.append(_runs(outer, place, data, depth + 1, claim))
    for wanted in (Run.RUN, Run.UNDECIDED, Run.SKIPPED):
        for outcome, deciding in outcomes:
            if outcome == wanted:
                return outcome, deciding
    return Run.UNDECIDED, None


def _serving(holders: list[Mention], claim: frozenset[str]) -> list[Mention]:
    """The table entries (``holders``, mentions of one list inside tables) that serve the claim: when the claim
    names the key of one entry of a table (``"dmc_proprio": DMC_ENVS`` beside ``"dmc_visual": DMC_ENVS`` for
    proprioceptive control), the table's other entries holding it run another protocol and are left out."""
    if not claim:
        return list(holders)
    chosen: set[str] = set()
    for holder in holders:
        outer, _, place = holder.within.partition(":")
        if place.startswith("=") and entry_named(place[1:], claim):
            chosen.add(outer)
    kept = []
    for holder in holders:
        outer, _, place = holder.within.partition(":")
        if outer not in chosen or not place.startswith("=") or len(place) == 1 or entry_named(place[1:], claim):
            kept.append(holder)  # an entry whose key is no plain string may still serve it
    return kept


def _sliced(holder: Mention, position: str) -> Run:
    """Whether a table entry slicing the list (``DMC_ENVS[:5]``: context ``slice:``) keeps the element at
    ``position`` (a list index): ``RUN`` when it keeps it or slices nothing, ``SKIPPED`` outside the bounds,
    ``UNDECIDED`` when a bound counts from the end or is not a literal."""
    if not holder.context.startswith("slice:"):
        return Run.RUN
    lower, _, upper = holder.context[len("slice:"):].partition(":")
    if not lower and not upper:
        return Run.RUN
    return _kept(lower, upper, int(position) if position.isdigit() else None)


def _kept(lower: str, upper: str, position: int | None) -> Run:
    """Whether a slice with bounds ``lower`` and ``upper`` as written (``_bound`` of the scanner: empty, an integer
    or ``?``) keeps the list's element at ``position``; ``UNDECIDED`` when the position is not known or a bound
    counts from the end (the list's length is not known here) or is not a literal."""
    if position is None or "?" in (lower, upper) or lower.startswith("-") or upper.startswith("-"):
        return Run.UNDECIDED
    start = int(lower) if lower else 0
    return Run.RUN if start <= position and (not upper or position < int(upper)) else Run.SKIPPED


def _loop_covers(loop: Mention, position: int | None, data: Flow) -> Run:
    """Whether the loop of ``loop`` (an ``iter:`` mention) runs the element at ``position`` of the list it iterates
    (``None``: not a list's element, or not known) and hands its item to a call."""
    lower, upper, targets = loop.context[len("iter:"):].split(":", 2)
    if not any((loop.scope, target) in data.used for target in targets.split(",") if target):
        return Run.UNDECIDED  # the item is only printed, compared or kept: not shown to run anything
    if not lower and not upper:
        return Run.RUN
    return _kept(lower, upper, position)
