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

import re
from dataclasses import dataclass, replace
from typing import Callable

from extractors import facts as K
from extractors.callgraph import DEAD, LIVE, MAYBE, build_call_graph, module_name
from extractors.facts import IMPORT_SCOPE, KEY_PLACEHOLDER, PARAMETER_SCOPE, CallFact, Fact, RepositoryIndex
from extractors.binding_sites import binding_sites, bound_besides_parameter, in_loop, same_block, shadowed
from extractors.values import is_number, substitute_numbers, symbol_names
from extractors.walk import is_test_path
from extractors.words import word_list

__all__ = ["DEAD", "LIVE", "MAYBE", "PRECEDENCE", "UnpackedPasses", "binding_liveness", "binding_scope",
           "call_liveness", "calls_by_short", "local_binding", "overridden_by", "passed_keywords", "resolve_source",
           "unpacked_passes"]

# Which binding of a name decides when several do (README, "Which value counts"): an option a launcher passes over
# an argparse default, over a config-file key, over a default written in code. Lower ranks first.
PRECEDENCE = {K.LAUNCHER: 0, K.ARGPARSE: 1, K.CONFIG: 2, K.FIELD: 3, K.ASSIGNMENT: 3, K.DEFAULT: 3, K.DICT: 3,
              K.GET_DEFAULT: 3}
_SOURCE_DEPTH = 6  # pass-throughs followed in a row (lr=args.lr, args from a config, a parameter handed down through
#                   nested constructors: Model(dropout=...) -> UNet(dropout) -> Block(dropout)): real chains are short

_UNPLACED = frozenset({K.ARGPARSE, K.CONFIG, K.LITERAL})


def binding_liveness(index: RepositoryIndex) -> Callable[[Fact], str]:
    """Analysis provider (``index.analysis(binding_liveness)``): a function giving the liveness (``LIVE``,
    ``MAYBE`` or ``DEAD`` of ``extractors.callgraph``) of the code that holds a fact; ``MAYBE`` when the fact
    cannot be placed (config keys, argparse defaults, code the call graph does not know); ``DEAD`` for a fact in a
    source CPython would not compile (``RepositoryIndex.uncompilable``: none of its code can run) and for a keyword
    passed into one (``unreadable_callee``) and for a fact in a function its module defines again further down (the
    later definition replaces it); the liveness of the arm it sits in when that is an arm no run takes
    (``CallGraph.branch_at``)."""
    graph = index.analysis(build_call_graph)

    def liveness(fact: Fact) -> str:
        if fact.where in index.uncompilable or unreadable_callee(index, fact) is not None:
            return DEAD
        scope = binding_scope(index, fact)
        if scope is None:
            return MAYBE
        if scope and fact.cell is None and _redefined_below(index, graph, fact, scope):
            return DEAD  # a function the module defines again further down: the later definition is the one called
        branch = graph.branch_at(fact.where, fact.line)  # an arm no run takes, in code that may run
        return graph.liveness(branch) if branch else _scope_liveness(graph, fact.file, fact.cell, scope)

    return liveness


def _redefined_below(index: RepositoryIndex, graph, fact: Fact, scope: str) -> bool:
    """Whether ``fact`` sits in a function whose scope binds its name again below it (``def sample`` twice in one
    module: the call graph keeps the last definition, and ``fact`` lies above it)."""
    info = graph.functions.get(f"{module_name(fact.file)}.{scope}")
    if info is None or info.file != fact.file or fact.line >= info.line:
        return False
    parent, _, name = scope.rpartition(".")
    return (binding_sites(index, fact.file, parent, name) or 0) > 1


def unreadable_callee(index: RepositoryIndex, fact: Fact) -> CallFact | None:
    """The call a keyword fact is passed to when it calls into a source CPython cannot compile (``into_unreadable``:
    ``MAR(depth=12)`` with ``MAR`` from a broken ``model.py``), else ``None``: no reader can follow the value into
    code that cannot be read, so it reaches nothing that runs."""
    if fact.kind != K.KEYWORD:
        return None
    call = _keyword_call(index, fact)
    return call if call is not None and into_unreadable(index, call) else None


def into_unreadable(index: RepositoryIndex, call: CallFact) -> bool:
    """Whether ``call`` calls into a source CPython cannot compile: a name its module imports from one
    (``CallGraph.unreadable_imports``: ``HiMAR(...)``), or a method of an object built from such a name
    (``unreadable_receivers``: ``net.update(...)`` after ``net = Net()``)."""
    if not index.analysis(build_call_graph).unreadable_imports.get(module_name(call.file)):
        return False
    if into_unreadable_root(index, call):
        return True
    receiver = call.callee.rpartition(".")[0]
    return bool(receiver) and (call.file, _receiver_scope(receiver, call.context), receiver) in index.analysis(
        unreadable_receivers)


def unreadable_receivers(index: RepositoryIndex) -> frozenset[tuple[str, str, str]]:
    """Analysis provider: the (file, scope, path) of each binding of an object built by a call into a source CPython
    cannot compile (``net = Net()``, ``self.model = HiMAR(...)`` with the class from a broken ``model.py``); the scope
    is the function for a local, the class for an attribute of ``self``."""
    graph = index.analysis(build_call_graph)
    found: set[tuple[str, str, str]] = set()
    for call in index.calls:
        names = graph.unreadable_imports.get(module_name(call.file))
        if not names or call.referenced or call.callee.split(".", 1)[0] not in names:
            continue
        others = [c for c in index.analysis(calls_by_line).get((call.where, call.line), ()) if c.line == call.line
                  and c.callee.split(".", 1)[0] not in names]
        if others:  # Trainer(Net(), ...): which call's object the line binds is not known here
            continue
        for fact in index.facts_at(call.where, call.line):
            if fact.kind == K.ASSIGNMENT and fact.computed:
                found.add((fact.file, _receiver_scope(fact.path, fact.context), fact.path))
    # a receiver bound again to something else (net = Wrapper(net)) may be that other object
    by_line = index.analysis(calls_by_line)
    rebound = {(f.file, _receiver_scope(f.path, f.context), f.path) for f in index.facts
               if f.kind == K.ASSIGNMENT and (f.file, _receiver_scope(f.path, f.context), f.path) in found
               and not any(into_unreadable_root(index, c) for c in by_line.get((f.where, f.line), ())
                           if c.line == f.line)}
    return frozenset(found - rebound)


def into_unreadable_root(index: RepositoryIndex, call: CallFact) -> bool:
    """Whether ``call``'s callee starts with a name its module imports from a source CPython cannot compile."""
    names = index.analysis(build_call_graph).unreadable_imports.get(module_name(call.file), frozenset())
    return not call.referenced and call.callee.split(".", 1)[0] in names


def _receiver_scope(path: str, context: str) -> str:
    """Where a receiver's binding lives: its class for ``self.x`` (any method may call it), else its function."""
    return context.split(".", 1)[0] if path.startswith("self.") else context


def read_only_into_unreadable(index: RepositoryIndex, name: str) -> CallFact | None:
    """The first call into unreadable code (``into_unreadable``) that reads ``name`` when every read of the name
    sits in the arguments of such calls (``HiMAR(transformer_layers=config["transformer_layers"])`` with ``HiMAR``
    from a file Python cannot compile), else ``None``: the value configures code nobody can read, so it reaches
    nothing that runs. Calls nested in those arguments (``int(...)``) read the name inside them; reads in the
    unreadable files themselves count for nothing."""
    outer = [c for c in index.calls_by_reads.get(name, ()) if into_unreadable(index, c)]
    if not outer or index.compiled_reads.get(name, 0) > sum(c.reads.count(name) for c in outer):
        return None
    return min(outer, key=lambda c: (c.file, c.line))


def binding_scope(index: RepositoryIndex, fact: Fact) -> str | None:
    """The dotted class/function path holding ``fact`` inside its module (``""`` at module level), or ``None`` when
    it cannot be placed (config keys, argparse defaults, literals). A keyword's context is its callee, so its
    scope is that of the innermost call of that callee whose lines hold it."""
    if fact.kind in _UNPLACED:
        return None
    if fact.kind != K.KEYWORD:
        return fact.context
    call = _keyword_call(index, fact)
    return call.context if call is not None else None


def _keyword_call(index: RepositoryIndex, fact: Fact) -> CallFact | None:
    """The call a keyword fact belongs to: the innermost call of its callee whose lines hold it (any call there
    when none is of that callee), or ``None``."""
    around = index.analysis(calls_by_line).get((fact.where, fact.line), ())
    named = [c for c in around if c.callee == fact.context] or around
    return max(named, key=lambda c: c.line) if named else None


def result_name(index: RepositoryIndex, fact: Fact) -> str | None:
    """The name a keyword's call binds its result to (``pg_config_s41`` for ``pg_config_s41 = PGConfig(
    iterations=2000)``, ``vae_trainer`` for ``self.vae_trainer = Trainer(mix_ratio=0.1)``): the component the
    keyword configures. ``None`` for other facts and for a call whose result is not bound by an assignment."""
    if fact.kind != K.KEYWORD:
        return None
    call = _keyword_call(index, fact)
    if call is None:
        return None
    return next((f.name for f in index.facts_at(call.where, call.line)
                 if f.kind == K.ASSIGNMENT and f.value is None and f.computed and f.line == call.line), None)


def calls_by_line(index: RepositoryIndex) -> dict[tuple[str, int], list[CallFact]]:
    """Analysis provider: (source key, line) -> the calls (not references) whose lines hold that line, in index
    order; built once, so that placing each keyword does not scan every call of its file (a file of thousands of
    calls made that quadratic)."""
    found: dict[tuple[str, int], list[CallFact]] = {}
    for call in index.calls:
        if not call.referenced:
            for line in range(call.line, call.end_line + 1):
                found.setdefault((call.where, line), []).append(call)
    return found


def calls_by_short(index: RepositoryIndex) -> dict[str, list[CallFact]]:
    """Analysis provider: the calls (and dotted references) of the repository by the callee's last component
    (``AdamW`` for ``torch.optim.AdamW(...)``), a call through a renamed import also by the name it stands for
    (``imported_as``), in index order."""
    found: dict[str, list[CallFact]] = {}
    for call in index.calls:
        found.setdefault(call.short, []).append(call)
        original = imported_as(index, call.file, call.callee)
        if original is not None:  # from utils import ci as _ci; _ci(...) calls ci
            found.setdefault(original, []).append(call)
    return found


def imported_as(index: RepositoryIndex, file: str, called: str) -> str | None:
    """The name a bare ``called`` name stands for in ``file`` when an import binds it under another name (``ci`` for
    ``_ci`` after ``from utils import ci as _ci``; ``extractors.callgraph.CallGraph.renamed_imports``), else
    ``None``."""
    if "." in called:
        return None
    return index.analysis(build_call_graph).renamed_imports.get(module_name(file), {}).get(called)


_KEYWORD_LINES = 200  # lines of one call searched for its keywords: a bound on generated giant calls


def passed_keywords(index: RepositoryIndex, call: CallFact) -> set[str]:
    """The names of the keyword arguments ``call`` passes: its keyword facts within its lines (at most
    ``_KEYWORD_LINES``), a keyword's own line rather than the call's first, the keys of the written-out
    mappings it unpacks (``CallFact.unpacked_keys``), and the parameters its positional arguments fill
    (``positional_passes``)."""
    return {f.name for line in range(call.line, min(call.end_line, call.line + _KEYWORD_LINES) + 1)
            for f in index.facts_at(call.where, line)
            if f.kind == K.KEYWORD and f.context == call.callee} | set(call.unpacked_keys) \
        | {f.name for f in positional_passes(index, call)}


def positional_passes(index: RepositoryIndex, call: CallFact) -> list[Fact]:
    """The positional arguments of a call of the repository's own function or class (``CallFact.positional``),
    each named by the parameter it fills: the function's positional parameters after ``self``/``cls``, or its
    class's ``__init__``'s (``RepositoryIndex.signatures``, by the callee's last component). Empty when no
    definition of that name is known, or two disagree: which one runs is not known by the name."""
    parameters = index.signatures.get(call.short) if call.positional else None
    if not parameters:
        return []
    return [replace(arg, name=name, path=f"{call.callee}.{name}")
            for arg, name in zip(call.positional, parameters)]


@dataclass(frozen=True)
class UnpackedPasses:
    """Which bindings the repository's calls unpacking mappings of unknown keys (``extractors.facts.Unpacking``) may
    pass as keywords. ``anything``: the callee of the first call naming neither the section it unpacks nor a callee
    whose keywords are known (``"equation_fn"`` for ``equation_fn(**args)`` with ``args`` passed in), so any key may
    reach code; empty when there is none. ``routes``: per other call, (the section, or ``None`` for any; the keywords
    its callee takes and reads, or ``None`` for any). Build with ``unpacked_passes``."""

    anything: str
    routes: tuple[tuple[str | None, frozenset[str] | None], ...] = ()

    def may_pass(self, fact: Fact) -> bool:
        """Whether some such call may pass ``fact``'s key: a key of the unpacked section (its parent in the dotted
        path: ``model`` of ``model.n_experts``) that the callee takes (``ModelConfig(**cfg["model"])`` passes
        ``model.n_experts`` when ``ModelConfig`` has that field)."""
        if self.anything:
            return True
        parts = fact.path.split(".")
        parent = parts[-2] if len(parts) > 1 else ""
        names = {fact.name, fact.name.replace("-", "_")}
        return any((section is None or section == parent) and (accepted is None or bool(names & accepted))
                   for section, accepted in self.routes)


def unpacked_passes(index: RepositoryIndex) -> UnpackedPasses:
    """Analysis provider: what the calls unpacking mappings of unknown keys may pass (``UnpackedPasses``). A callee
    is known by its last name when the repository defines it once (``RepositoryIndex.keyword_parameters``: a
    function or ``__init__`` without ``**kwargs``, a dataclass or pydantic model without a base of its own); of its
    keywords only those it reads count (``RepositoryIndex.parameter_reads``; a field, by any read of its name). A
    class turning keys into attributes (``argparse.Namespace(**cfg)``: ``attribute_bags`` of
    ``extractors/words.yaml``) takes none by keyword: its attributes are read as attributes, reads of their own."""
    routes: list[tuple[str | None, frozenset[str] | None]] = []
    anything = ""
    for unpacking in index.unpackings:
        short = unpacking.callee.rsplit(".", 1)[-1]
        accepted = frozenset() if short in word_list("attribute_bags") else _taken(short, index) if short else None
        if accepted is None and unpacking.section is None:
            # the other calls' routes are still kept: what they pass is read by name there
            anything = anything or unpacking.callee
            continue
        routes.append((unpacking.section, accepted))
    routes.extend(_instantiated_sections(index))
    return UnpackedPasses(anything, tuple(dict.fromkeys(routes)))


# Calls that build the object a configuration section names under ``_target_``, passing the section's other keys as
# keywords (Hydra's ``hydra.utils.instantiate``, the documented ``_target_`` convention; its ``call`` only by that
# dotted name, a bare ``call`` being anything)
_INSTANTIATE_CALLS = frozenset({"instantiate", "hydra.utils.instantiate", "hydra.utils.call"})


def _instantiated_sections(index: RepositoryIndex) -> list[tuple[str | None, frozenset[str] | None]]:
    """The routes of configuration sections naming a class or function under ``_target_`` (``generator:
    {_target_: nets.Precond, num_blocks: [3, 5, 7]}``) when code calls Hydra's ``instantiate``: (the section, the
    keywords the target takes and reads, ``None`` for any, as for an unpacking of that section into it)."""
    if not any(call.callee in _INSTANTIATE_CALLS for call in index.calls):
        return []
    found: list[tuple[str | None, frozenset[str] | None]] = []
    for fact in index.facts:
        if fact.kind != K.CONFIG or fact.name != "_target_" or not isinstance(fact.value, str) or "." not in fact.path:
            continue
        found.append((fact.path.split(".")[-2], _taken(fact.value.rsplit(".", 1)[-1], index)))
    return found


def _taken(short: str, index: RepositoryIndex) -> frozenset[str] | None:
    """The keywords the repository's callee ``short`` takes and reads (``None`` for any: unknown, or ``**kwargs``)."""
    accepted = index.keyword_parameters.get(short)
    if not accepted:
        return accepted
    return frozenset(name for name in accepted if index.parameter_reads.get((short, name), index.reads.get(name, 0) > 0))


def unloaded_configs(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the configuration files (YAML, JSON, TOML files with ``K.CONFIG`` facts) no code can load:
    no line of the repository's code (Python, notebook cells, shell scripts, task runners) and no launch of a README
    holds the file's name, its stem, a folder of its path or its format's name (``config.yaml``, ``config``,
    ``configs``, ``yaml``) as a word (not inside a longer word: ``reconfigure`` names no ``config``), case aside,
    and no code names a configuration library or loader that takes a path at run time (``config_loaders`` in
    ``extractors/words.yaml``: ``OmegaConf.load(args.cfg)``). Code loading a file names it somewhere, if only by
    folder, pattern or format (``glob("configs/*.yaml")``, ``yaml.safe_load``); a file none of these reach is read
    by nothing, whatever attributes of its keys' spellings code reads (``self.modes`` beside a ``modes:`` key)."""
    configs = {f.file for f in index.facts if f.kind == K.CONFIG}
    if not configs:
        return frozenset()
    code = [line.lower() for key, lines in index.lines.items() if _is_code_file(key) for line in lines]
    code += [index.lines[launch.file][launch.line - 1].lower() for launch in index.launches
             if launch.file in index.lines and 0 < launch.line <= len(index.lines[launch.file])]
    text = "\n".join(code)

    def named(word: str) -> bool:
        return bool(word) and re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text) is not None

    if any(named(word.lower()) for word in word_list("config_loaders")):
        return frozenset()
    unloaded = set()
    for path in configs:
        parts = path.lower().split("/")
        stem, _, suffix = parts[-1].rpartition(".")
        words = {parts[-1], stem or parts[-1], *parts[:-1], *_FORMAT_WORDS.get(suffix, (suffix,))}
        if not any(named(word) for word in words):
            unloaded.add(path)
    return frozenset(unloaded)


_FORMAT_WORDS = {"yaml": ("yaml", "yml"), "yml": ("yaml", "yml"), "json": ("json",), "toml": ("toml",)}
_CODE_SUFFIXES = (".py", ".ipynb", ".sh", ".bash", ".zsh")


def _is_code_file(key: str) -> bool:
    """Whether an ``index.lines`` key is code that may load a file: a Python module, a notebook (or one of its
    cells), a shell script or a task runner."""
    path = key.partition("#")[0]
    return path.endswith(_CODE_SUFFIXES) or path.rsplit("/", 1)[-1] in ("Makefile", "justfile")


def live_reads(index: RepositoryIndex) -> dict[str, tuple[bool, bool, frozenset[tuple[str, str]]]]:
    """Analysis provider: for each name code reads (``RepositoryIndex.read_sites``), whether it is read as a setting
    at all (not only by import statements naming it, nor only as a function's own parameter), whether some such read
    sits in code that may run (``_may_run``; a read the extractor did not place counts as one; none in a file CPython
    cannot compile, whatever read it: that code never runs), and the (file, scope) places that may run
    where it is read as the function's own parameter (a read of a binding made there, never of a setting bound
    elsewhere): a setting read only by an experiment no entry point calls, or only by a script that cannot be
    compiled, reaches nothing that runs."""
    graph = index.analysis(build_call_graph)
    found: dict[str, tuple[bool, bool, frozenset[tuple[str, str]]]] = {}
    for name, sites in index.read_sites.items():
        read, live, own = False, False, set()
        for file, scope in sites:
            if file in index.uncompilable:  # read (unless only by an import or as a parameter), never live
                read = read or scope is None or (scope != IMPORT_SCOPE and not scope.startswith(PARAMETER_SCOPE))
            elif scope is None:
                read = live = True
            elif scope.startswith(PARAMETER_SCOPE):
                place = scope[len(PARAMETER_SCOPE):]
                if _may_run(graph, file, place):
                    own.add((file, place))
            elif scope != IMPORT_SCOPE:
                read = True
                live = live or _may_run(graph, file, scope)
        found[name] = (read, live, frozenset(own))
    return found


def _may_run(graph, file: str, scope: str) -> bool:
    """Whether code at ``scope`` (a dotted class/function path in ``file``'s module) may run: not ``DEAD``, or inside
    a function whose callers the graph may not see (``CallGraph.unseen``)."""
    if _scope_liveness(graph, file, None, scope) != DEAD:
        return True
    module = module_name(file)
    parts = scope.split(".") if scope else []
    return any(".".join([module, *parts[:end]]) in graph.unseen for end in range(len(parts), 0, -1))


def call_liveness(index: RepositoryIndex, call: CallFact) -> str:
    """The liveness of the code that makes ``call`` (as ``binding_liveness``)."""
    if call.where in index.uncompilable:
        return DEAD
    graph = index.analysis(build_call_graph)
    branch = graph.branch_at(call.where, call.line)
    return graph.liveness(branch) if branch else _scope_liveness(graph, call.file, call.cell, call.context)


def _runs(program: str, file: str) -> bool:
    """Whether a launcher's program (``train.py``, ``scripts/train.py`` or a module, ``pkg.train``) is the
    repository file ``file``: the same path, one ending the other, or the same module."""
    if program.endswith(".py"):
        a, b = program.lstrip("./"), file
        return a == b or b.endswith("/" + a) or a.endswith("/" + b)
    module = module_name(file)
    return module == program or module.endswith("." + program)


def accepting_program(index: RepositoryIndex, fact: Fact) -> tuple[str, int] | None:
    """Where the program a launcher fact runs declares the fact's option: ``(file, line)``, the file its key in
    ``index.lines`` (``python train.py --env X`` with ``train.py`` adding ``--env``), or ``None``: an option no
    program of the repository declares reaches nothing."""
    for file in sorted(index.lines):
        if _runs(fact.context, file):
            line = _declared(index, file, fact.name)
            if line is not None:
                return file, line
    return None


def _launches_program_of(index: RepositoryIndex, launcher: Fact, default: Fact) -> bool:
    """Whether a launcher fact passes its option to the program whose argparse ``default`` it is: the program it
    runs declares the option in the default's own file, or declares it nowhere visible (its parser is built in
    another module), and not when it runs another program declaring an option of that name (``python
    train_sat.py --n_epochs 2000`` leaves ``train_sudoku.py``'s ``--n_epochs`` default alone)."""
    accepting = accepting_program(index, launcher)
    return accepting is None or accepting[0] == default.file


def _every_launch_passes(index: RepositoryIndex, fact: Fact) -> bool:
    """Whether every launch of the program a launcher fact runs passes the fact's option: a README showing
    ``python run.py`` and ``python run.py --n_models 10`` runs the program once with its default. The program's
    launches are those running the file that declares the option, or else those naming the same program."""
    accepting = accepting_program(index, fact)
    launches = [launch for launch in index.launches
                if (_runs(launch.program, accepting[0]) if accepting is not None else launch.program == fact.context)]
    return all(fact.name in launch.options for launch in launches)


def _declared(index: RepositoryIndex, file: str, name: str) -> int | None:
    """The first line (1-based) of the program ``file`` declaring the command-line option ``--name`` (dashes or
    underscores) as a string literal of its source, an argparse option with or without a default; ``None``."""
    spellings = {name, name.replace("_", "-")}
    quoted = {f"{quote}--{spelling}{quote}" for spelling in spellings for quote in "\"'"}
    return next((number for number, line in enumerate(index.lines.get(file, ()), 1)
                 if any(q in line for q in quoted)), None)


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


def resolve_source(index: RepositoryIndex, fact: Fact) -> tuple[Fact, ...]:
    """The chain from a pass-through binding (``max_seq_len=args.seq_len``: ``fact.value`` is ``None`` and
    ``fact.source`` names what it reads) to the binding that gives it a value: ``(source binding, ...)`` ending in
    a fact with a value, or ``()`` when the source is not bound, is bound only in dead code or tests, or its
    highest-precedence bindings (``PRECEDENCE``) disagree. A keyword passing on a parameter of the calling function
    follows that parameter (its default, or what every caller passes: ``_own_parameter``) rather than every
    binding of the name. A read by key whose path names a section (``binsyn.get("n_calibration")`` after ``binsyn =
    data.get("binomial_synthetic", {})``) follows the config key of that section (``_in_read_section``). A default
    that some live call replaces with another value has no single value
    (``_passed_otherwise``). Follows at most ``_SOURCE_DEPTH`` pass-throughs."""
    chain: list[Fact] = []
    current = fact
    liveness = index.analysis(binding_liveness)
    bindings = index.analysis(_live_bindings)
    for _ in range(_SOURCE_DEPTH):
        if current.value is not None or not current.source:
            break
        loop = _loop_variable(index, current)
        if loop is not None:  # a loop variable passed on: the values the loop gives it (a sweep)
            chain.append(loop)
            return tuple(chain)
        local = local_binding(index, current)
        if local is None and _bound_here(index, current):
            return ()  # the function binds the name more than once, or where no fact records a value
        parameter = _own_parameter(index, current) if local is None else None
        if local is not None and not local.computed:  # the function's own variable, bound once above the read
            top = [local]
        elif parameter is not None:  # a parameter of the function passing it on: its default, or what callers pass
            top = [overridden_by(index, parameter) or parameter]
        else:
            known = bindings.get(current.source)
            if known is None:  # the same source is read by many pass-throughs: its bindings are found once
                # a parameter's default is read only inside its own function (_own_parameter), never from another
                known = bindings[current.source] = [
                    f for f in index.named(current.source) if f.name == current.source and f.kind in PRECEDENCE
                    and f.kind != K.DEFAULT and not is_test_path(f.file) and liveness(f) != DEAD]
            bound = _in_read_section(index, current, [f for f in known if f is not current])
            if not bound:
                return ()
            best = min(PRECEDENCE[f.kind] for f in bound)
            top = sorted((f for f in bound if PRECEDENCE[f.kind] == best),
                         key=lambda f: (f.file, f.cell or 0, f.line))
            top = [overridden_by(index, f) or f for f in top]  # a default replaced wherever it is used
        if any(_passed_otherwise(index, f) for f in top):
            return ()  # the default runs where calls leave it, another value where one passes it: not one value
        valued = [f for f in top if f.value is not None]
        if valued and len({repr(f.value) for f in valued}) == 1 and len(valued) == len(top):
            chain.append(valued[0])
            return tuple(chain)
        passing = [f for f in top if f.value is None and f.source and not f.computed]
        if len(top) != 1 or not passing:
            return ()
        chain.append(passing[0])
        current = passing[0]
    return ()


def read_path(index: RepositoryIndex, fact: Fact) -> tuple[str, ...]:
    """The read by key ``fact`` makes (``Fact.key_path``: receiver, then keys), a receiver that is a plain name bound
    once by a read by key earlier in the same function, and changed by nothing there (no ``update``, ``setdefault``
    or item assignment), replaced by that read (``("data", "binomial", "n_calibration")`` for
    ``binsyn.get("n_calibration")`` after ``binsyn = data.get("binomial", {})``), at most ``_SOURCE_DEPTH`` times;
    ``()`` without a key path."""
    parts = fact.key_path
    scope = binding_scope(index, fact) if parts else None
    for _ in range(_SOURCE_DEPTH if scope is not None else 0):
        root = parts[0]
        if "." in root or (fact.file, scope, root) in index.analysis(_changed_mappings):
            break
        bound = [f for f in index.named(root) if f.name == root and f.path == root and f.file == fact.file
                 and f.cell == fact.cell and f.context == scope and f.kind == K.ASSIGNMENT and f.line < fact.line]
        if len(bound) != 1 or not bound[0].key_path:
            break
        parts = (*bound[0].key_path, *parts[1:])
    return parts


def _changed_mappings(index: RepositoryIndex) -> frozenset[tuple[str, str, str]]:
    """Analysis provider: ``(file, scope, name)`` of every plain name some code changes in place: a method call that
    adds keys (``name.update(...)``, ``name.setdefault(...)``) or a key or attribute written (``name["k"] = v``)."""
    changed = {(c.file, c.context, c.callee.split(".")[0]) for c in index.calls
               if c.callee.count(".") == 1 and c.callee.rsplit(".", 1)[1] in ("update", "setdefault")}
    changed |= {(f.file, f.context, f.path.split(".")[0]) for f in index.facts
                if f.kind == K.ASSIGNMENT and f.path.count(".") == 1 and f.path.split(".")[0] not in ("self", "cls")}
    return frozenset(changed)


def _in_read_section(index: RepositoryIndex, fact: Fact, bound: list[Fact]) -> list[Fact]:
    """``bound`` (the bindings of ``fact.source``) narrowed to those a read by key may read. A key is never a
    variable: bare names bound by assignment (``t_max = 2.0`` elsewhere) are dropped for any read by key. When the
    read names a section (``read_path``: a receiver and at least two keys), the config keys at exactly that path
    from the file's top (``binomial.n_calibration``), and the entries of a dict display at the receiver's own path
    (``DEFAULTS.binomial.n_calibration``), when some are there; config keys and entries elsewhere are dropped, and so
    is the read's own default. A part an f-string works out at run time (``cfg.get(f"equations.{eq_id}.t_max",
    1.0)``, ``KEY_PLACEHOLDER``) may read any key of that name, wherever it sits (a section loaded from deeper in a
    file, merged in at run time, or written as a dict in code), and the read's own default where a section lacks it,
    so none of them ranks over the others: they are what is read when they agree, else nothing (``[]``: no one
    value); with no key of that name anywhere, the default is what every run reads. Else ``bound`` as given."""
    path = read_path(index, fact)
    if len(path) < 2:
        return bound
    bound = [f for f in bound if not (f.kind in (K.ASSIGNMENT, K.LOOP) and f.path == f.name)]
    if len(path) < 3:
        return bound
    own_default = [f for f in bound if f.kind == K.GET_DEFAULT and f.file == fact.file and f.line == fact.line]
    if KEY_PLACEHOLDER in path[1:]:  # any key of that name may be read (a section loaded from deeper down, merged
        # in, written as a dict or dict(...) in code, set by item, passed on a command line), and the default where a
        # section lacks it: they agree, or there is no one value
        if _dotlist_override(index, fact.source):
            return []
        found = [*own_default, *(f for f in index.named(fact.source) if f.name == fact.source and f.kind in _KEY_KINDS
                                 and not (f.kind == K.ASSIGNMENT and f.path == f.name) and not is_test_path(f.file))]
        return found if len({repr(f.value) for f in found}) <= 1 and all(f.value is not None for f in found) else []
    keys, whole = ".".join(path[1:]), ".".join(path)
    exact = [f for f in bound if f.kind in (K.CONFIG, K.DICT) and f.path == (keys if f.kind == K.CONFIG else whole)]
    if not exact:
        return bound
    # the read's own default (toy.get("n_cal", 1)) runs only where the key is missing, and the key is there
    return [f for f in bound if (f.kind not in (K.CONFIG, K.DICT) or f in exact) and f not in own_default]


# what may hold a key an f-string works out: config and dict entries, keywords (dict(t_max=2.0)), launcher and
# argparse options, attribute or item assignments, dataclass fields (asdict)
_KEY_KINDS = frozenset({K.CONFIG, K.DICT, K.KEYWORD, K.LAUNCHER, K.ARGPARSE, K.ASSIGNMENT, K.FIELD})


def _dotlist_override(index: RepositoryIndex, key: str) -> bool:
    """Whether a launch (a shell script's or README's command line) sets a key of that name as a dotted override
    (``python generate.py equations.duffing.t_max=2.0``, Hydra's and OmegaConf's command-line form)."""
    pattern = re.compile(rf"(?:^|[\s.+~]){re.escape(key)}=")
    return any(0 < launch.line <= len(index.lines.get(launch.file, ()))
               and pattern.search(index.lines[launch.file][launch.line - 1]) for launch in index.launches)


_EXPRESSION_SYMBOLS = 3  # symbols of one expression resolved: a setting derived from a few others, not a formula


def resolve_expression(index: RepositoryIndex, fact: Fact) -> tuple[Fact, ...]:
    """The bindings that give each name of a symbolic binding a number (``fpr=(1 - acc) / 2`` inside
    ``def run(acc=0.95)``: ``acc``'s default), each name followed as a pass-through source from where the binding
    is (``resolve_source``: the enclosing function's own parameter first), in the order of the names
    (``extractors.values.symbol_names``); ``()`` unless every name (at most ``_EXPRESSION_SYMBOLS``) resolves to a
    number. ``expression_value`` computes the value from them."""
    names = symbol_names(fact.value)
    if not names or len(names) > _EXPRESSION_SYMBOLS:
        return ()
    found: list[Fact] = []
    for name in names:
        chain = resolve_source(index, replace(fact, value=None, source=name, local_source=True, computed=False))
        if not chain or not is_number(chain[-1].value):
            return ()
        found.append(chain[-1])
    return tuple(found)


def expression_value(fact: Fact, sources: tuple[Fact, ...]) -> int | float | None:
    """The number a symbolic binding has once its names take the values of ``sources`` (``resolve_expression``),
    or ``None``."""
    names = symbol_names(fact.value)
    numbers = {name: source.value for name, source in zip(names, sources) if is_number(source.value)}
    if not sources or len(numbers) != len(names):
        return None
    return substitute_numbers(fact.value, numbers)


def _passed_otherwise(index: RepositoryIndex, fact: Fact) -> bool:
    """Whether ``fact`` is a field or parameter default some live call of its owner passes another value for
    (``passed_for``): reading it gives the default in some runs and that value in others."""
    if fact.kind not in (K.FIELD, K.DEFAULT) or fact.value is None:
        return False
    liveness = index.analysis(binding_liveness)
    return any(k.value is not None and repr(k.value) != repr(fact.value) and liveness(k) != DEAD
               for k in passed_for(index, fact))


def _loop_variable(index: RepositoryIndex, fact: Fact) -> Fact | None:
    """The loop binding a pass-through reads when its source is a bare name that a ``for`` loop over a literal list
    binds in the same function, above it (``for acc in [1.0, 0.9]: run(detector_accuracy=acc)``: ``acc``'s
    values), and nothing else in that function binds the name; ``None`` otherwise. The loop fact's value is the
    tuple of the values it takes, so the pass-through holds each of them (a sweep, never one value)."""
    if not fact.local_source:
        return None
    scope = binding_scope(index, fact)
    if scope is None:
        return None
    same = index.analysis(_bindings_by_place).get((fact.where, fact.source, scope), ())
    loops = [f for f in same if f.kind == K.LOOP and f.line <= fact.line]
    return loops[0] if len(loops) == 1 and len(same) == 1 else None


def local_binding(index: RepositoryIndex, fact: Fact) -> Fact | None:
    """The binding a bare-name read (``fact``, a pass-through with ``local_source``) reads when the function (or
    module level) holding it binds that name by assignment exactly once above the read, beside placeholders
    (``x = None``, a value no claim holds), and nowhere else in it (``t_max = cfg.get("t_max", 1.0)`` then
    ``torch.linspace(0.0, t_max, n)``: that ``t_max``, whatever else is named so). Every place the file's code binds
    the name in that scope (``extractors.binding_sites``: also ``+=``, ``:=``, unpacking, imports, parameters) must
    be one of those bindings, and no function may declare it ``global`` or ``nonlocal``. Of several assignments above,
    the nearest counts when it sits in the read's own block (``extractors.binding_sites.same_block``: it runs last
    before the read, whatever ran before it). A binding below the read
    (a later branch rebinding the name) reaches it only when a loop spans the read, so the read must sit in no loop
    then. ``None`` otherwise."""
    if not fact.local_source:
        return None
    scope = binding_scope(index, fact)
    if scope is None:
        return None
    same = [f for f in index.analysis(_bindings_by_place).get((fact.where, fact.source, scope), ())
            if f is not fact and (f.path == f.name or f.kind == K.DEFAULT) and f.kind in _VARIABLE_KINDS]
    if fact.cell is not None or binding_sites(index, fact.file, scope, fact.source) != len(same):
        return None  # the name is bound in a way no fact records (x += 1, a parameter without a default)
    if shadowed(index, fact.file, fact.line, fact.source):
        return None  # [f(temperature=temperature) for temperature in (0.5, 2.0)]: the comprehension's own variable
    if any(f.line == fact.line and not (f.name == fact.name and f.kind == fact.kind) for f in same):
        return None  # t_max = 3.0; run(t_end=t_max) on one line: lines do not tell which binding the read sees
    above = [f for f in same if f.line < fact.line and not _placeholder(f)]
    last = max(above, key=lambda f: f.line, default=None)
    if last is not None and len(above) > 1 and same_block(index, fact.file, last.line, fact.line) \
            and not any(last.line < f.line < fact.line for f in same):
        above = [last]  # the nearest assignment in the read's own block is the last to run before it
    if len(above) != 1 or above[0].kind != K.ASSIGNMENT:
        return None
    if any(f.line >= fact.line for f in same) and in_loop(index, fact.file, fact.line) is not False:
        return None
    return above[0]


_VARIABLE_KINDS = frozenset({K.ASSIGNMENT, K.LOOP, K.DEFAULT})  # what binds a variable (a dict's key binds none)


def _placeholder(fact: Fact) -> bool:
    """Whether an assignment binds no value: ``x = None`` (read as passing ``None`` on) before a branch binds ``x``."""
    return fact.kind == K.ASSIGNMENT and fact.value is None and not fact.computed and fact.source in ("", "None")


def _bound_here(index: RepositoryIndex, fact: Fact) -> bool:
    """Whether a bare-name read (``local_source``) sits in a function (or module level) that binds the name other
    than as its own parameter (``extractors.binding_sites.bound_besides_parameter``): that binding decides, not
    the name's bindings elsewhere."""
    scope = binding_scope(index, fact) if fact.local_source and fact.cell is None else None
    return scope is not None and bound_besides_parameter(index, fact.file, scope, fact.source)


def _own_parameter(index: RepositoryIndex, fact: Fact) -> Fact | None:
    """The default of the parameter a binding passes on when it reads, as a bare name, a parameter of the function
    it is in or of one enclosing it (``def run(k=3): step(k)``: ``k`` is ``run``'s own, whatever else is named
    ``k``), the innermost; ``None`` otherwise."""
    if not fact.local_source:
        return None
    scope = binding_scope(index, fact)
    if not scope:
        return None
    defaults = index.analysis(_defaults_by_place)
    parts = scope.split(".")
    for end in range(len(parts), 0, -1):  # the innermost enclosing function first
        own = defaults.get((fact.where, fact.source, ".".join(parts[:end])))
        if own:
            return own[0]
    return None


def _bindings_by_place(index: RepositoryIndex) -> dict[tuple[str, str, str], list[Fact]]:
    """Analysis provider: (source key, name, scope) -> the facts other than keywords binding that name in that
    class/function scope (``binding_scope``), in the order of ``index.named``; built once, so that finding a loop
    variable does not scan every same-named fact of the repository (thousands of ``lr=`` made that quadratic)."""
    found: dict[tuple[str, str, str], list[Fact]] = {}
    for named in index.by_name.values():
        for fact in named:
            scope = binding_scope(index, fact) if fact.kind != K.KEYWORD else None
            if scope is not None:
                found.setdefault((fact.where, fact.name, scope), []).append(fact)
    return found


def _defaults_by_place(index: RepositoryIndex) -> dict[tuple[str, str, str], list[Fact]]:
    """Analysis provider: (source key, name, function) -> the parameter defaults of that name in that function, in
    the order of ``index.named``; built once, so that finding a binding's own parameter does not scan every
    same-named fact of the repository (thousands of ``lr=`` parameters made that quadratic)."""
    found: dict[tuple[str, str, str], list[Fact]] = {}
    for named in index.by_name.values():
        for fact in named:
            if fact.kind == K.DEFAULT:
                found.setdefault((fact.where, fact.name, fact.context), []).append(fact)
    return found


def default_owner(fact: Fact) -> str | None:
    """The name whose calls pass a default's parameter: the class of a field or of an ``__init__`` parameter
    (``MRQ(gamma=0.9)`` for ``MRQ.__init__(gamma=0.99)``), the function of another parameter; ``None`` for a fact
    that is no field or parameter default."""
    if fact.kind not in (K.FIELD, K.DEFAULT) or not fact.context:
        return None
    parts = fact.context.split(".")
    return parts[-2] if fact.kind == K.DEFAULT and parts[-1] == "__init__" and len(parts) > 1 else parts[-1]


def _may_reach(index: RepositoryIndex, fact: Fact, call: CallFact | None) -> bool:
    """Whether ``call`` may be a call of the owner of ``fact``'s default, a module-level function. A call through
    ``self.``/``cls.`` that the call graph resolves to a method of that name (``self.evaluator.ci(alpha=0.1)`` to
    ``Evaluator.ci``, ``self.f(...)`` to the class's or a base's ``f``) runs that method, not ``utils.ci``; one it
    leaves unresolved reaches it (``self.f = f`` may store the function), unless its receiver is deeper than
    ``self`` and some class of the repository defines a method of that name."""
    parts = call.callee.split(".") if call is not None else []
    if call is None or fact.kind != K.DEFAULT or "." in fact.context or parts[0] not in ("self", "cls"):
        return True
    graph = index.analysis(build_call_graph)
    node = f"{module_name(call.file)}.{call.context}" if call.context else module_name(call.file)
    if any(site.line == call.line and site.kind != "reference" and site.callee is not None
           and site.callee.rsplit(".", 1)[-1] == parts[-1] and site.callee in graph.functions
           and graph.functions[site.callee].class_name is not None for site in graph.callees_in_order(node)):
        return False
    return not (len(parts) > 2 and parts[-1] in graph.methods_by_name())


def passed_for(index: RepositoryIndex, fact: Fact) -> list[Fact]:
    """The keyword arguments that calls of a default's owner (``default_owner``) pass for its parameter, written
    at the call, in a written-out mapping it unpacks, or as a positional argument filling that parameter
    (``positional_passes``), outside tests, in source order; empty for other facts."""
    owner = default_owner(fact)
    if owner is None:
        return []
    positional = [f for call in index.analysis(calls_by_short).get(owner, ())
                  if not is_test_path(call.file) and _may_reach(index, fact, call)
                  for f in positional_passes(index, call) if f.name == fact.name]
    keywords = [f for f in index.analysis(_keywords_by_owner).get((fact.name, owner), ())
                if _may_reach(index, fact, _keyword_call(index, f))]
    return sorted([*keywords, *positional], key=lambda f: (f.file, f.line))


def _keywords_by_owner(index: RepositoryIndex) -> dict[tuple[str, str], list[Fact]]:
    """Analysis provider: (keyword name, last component of the called name, or the name a renamed import stands for:
    ``imported_as``) -> the keyword arguments outside tests
    passing it, in the order of ``index.named``; built once, so that each default does not scan every same-named
    fact of the repository (quadratic where thousands of calls pass one keyword)."""
    found: dict[tuple[str, str], list[Fact]] = {}
    for named in index.by_name.values():
        for fact in named:
            if fact.kind == K.KEYWORD and not is_test_path(fact.file):
                callee = fact.context.rsplit(".", 1)[-1]
                found.setdefault((fact.name, imported_as(index, fact.file, fact.context) or callee), []).append(fact)
    return found


def _live_bindings(index: RepositoryIndex) -> dict[str, list[Fact]]:
    """Analysis provider: ``resolve_source``'s memo, source name -> its bindings outside tests and dead code."""
    return {}


def _overrides(index: RepositoryIndex) -> dict[int, tuple[Fact, Fact | None]]:
    """Analysis provider: ``overridden_by``'s memo, id of a fact -> (the fact, kept so that its id stays its own;
    what overrides it)."""
    return {}


def overridden_by(index: RepositoryIndex, fact: Fact) -> Fact | None:
    """The binding that replaces a default wherever it is used, or ``None`` (precedence, README "Which value
    counts"): for an argparse default, an option a shell launcher passes, else a ``parser.set_defaults(...)``
    keyword of that name in its file; for a config file's key, an option a
    launcher passes to a program accepting it; for a ``.get(key, default)`` default, the key in a config file (or
    what replaces that key), none for a key an f-string works out (``KEY_PLACEHOLDER``: the sections lacking it keep
    the default); for a dataclass or pydantic field, the keyword every live construction of its class passes
    (``TrainConfig(lr=3e-4)``); for a parameter default, the keyword every live call of its function passes, none
    when calls pass different values (no one value replaces it). A default some live call leaves alone is still used
    there, so it is not overridden; a call unpacking a mapping (``TrainConfig(**saved)``) is left out of that count,
    as it may pass the keyword or not. The caller compares values. Computed once per fact and index."""
    memo = index.analysis(_overrides)
    known = memo.get(id(fact))
    if known is not None and known[0] is fact:
        return known[1]
    found = _overridden_by(index, fact)
    memo[id(fact)] = (fact, found)
    return found


def _overridden_by(index: RepositoryIndex, fact: Fact) -> Fact | None:
    if fact.kind in (K.ARGPARSE, K.CONFIG, K.GET_DEFAULT):
        named = sorted(index.named(fact.name), key=lambda f: (f.file, f.line))
    if fact.kind == K.ARGPARSE:
        launched = next((f for f in named if f.kind == K.LAUNCHER and f.name == fact.name
                         and _launches_program_of(index, f, fact) and _every_launch_passes(index, f)), None)
        # parser.set_defaults(lr=3e-4) in the same file replaces add_argument's default (argparse reference:
        # parser-level defaults take precedence over argument-level ones); a launch's option replaces both
        liveness = index.analysis(binding_liveness)
        return launched or next((f for f in named if f.kind == K.KEYWORD and f.file == fact.file
                                 and f.context.rsplit(".", 1)[-1] == "set_defaults" and liveness(f) != DEAD), None)
    if fact.kind == K.CONFIG:
        # an option the launcher passes to a program that accepts it (an argparse option of that name) wins over
        # the config file's key (args.lr or cfg["lr"])
        return next((f for f in named if f.kind == K.LAUNCHER and f.name == fact.name
                     and accepting_program(index, f) is not None and _every_launch_passes(index, f)), None)
    if fact.kind == K.GET_DEFAULT and KEY_PLACEHOLDER in fact.path:
        return None  # cfg.get(f"{part}.lr", 1e-3): the sections lacking the key keep it (_in_read_section)
    if fact.kind == K.GET_DEFAULT:  # cfg.get("betas", [0.9, 0.995]) reads the config's betas where it has one
        config = next((f for f in named if f.kind == K.CONFIG and f.name == fact.name
                       and not is_test_path(f.file)), None)
        return (overridden_by(index, config) or config) if config is not None else None
    owner = default_owner(fact)
    if owner is None:
        return None
    calls = [c for c in index.analysis(calls_by_short).get(owner, ())
             if call_liveness(index, c) != DEAD and not is_test_path(c.file)
             and _may_reach(index, fact, c)]
    # a call unpacking a mapping (Config(**saved)) may pass the keyword: it neither keeps nor replaces the default,
    # which the calls passing it explicitly replace (or a written-out mapping's key every binding holds)
    explicit = [c for c in calls if not c.unpacks or fact.name in c.unpacked_keys]
    if not explicit or not all(fact.name in passed_keywords(index, c) for c in explicit):
        return None  # some live call leaves the default in use
    liveness = index.analysis(binding_liveness)
    passed = [f for f in passed_for(index, fact) if liveness(f) != DEAD]  # a call that never runs replaces nothing
    if len({repr(f.value) for f in passed if f.value is not None}) > 1:
        return None  # live calls passing different values replace it with no one value (_passed_otherwise tells)
    return passed[0] if passed else None
