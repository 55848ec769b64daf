"""D4, pipeline ordering: do the claimed steps run, and in the claimed order, along the paths the entry points take?

Each spec step (``sau.checks["steps"]``: ``name``, ``keywords``, ``functions``) is mapped to call sites, looked for
by its identifier-like functions and keywords, never by a keyword that is Python syntax (``for``, ``in``, ``if``:
``rules/words.yaml``, ``syntax_words``; a step "for each model" is no ``estimate_votes_for_rank_change``). The call
graph (``extractors.callgraph``) gives, per entry point, an execution *trace*: its call sites in statement order,
each resolved repository call expanded depth first where it happens (every function expanded once, at its first
call, so recursion and repeated calls end), loops noted; a call of a placeholder method that repository subclasses
override (a template method's ``self._train_epoch()`` of an abstract ``_train_epoch``) runs the overrides instead, one
or several as the arms of one choice (``_dispatched``); a method called on an object of unknown type
(``self.model.update_history(h, x)`` in a trainer handed its model) is expanded too when one repository class alone
defines it and shares a word of its name with the receiver's (``_only_method``), a guess, so that a site it reaches
maps a step weakly at most. A call site maps to a step

- **never** when it only constructs an object or builds a UI widget (``PPOTrainer(...)``, ``gr.Video()``, any call
  into ``gradio``/``streamlit``...: ``rules/roles.yaml``, ``ui_modules``): setting a step up is not running it,
  unless the step's ``functions`` name that very class (building it is the step); and a class the step names runs
  where its object's methods are called from outside the class (``transform.apply(x)``), which, where any such call
  runs, replaces its construction as the step's place;
- **never** when it builds a component in its object's constructor, its result assigned to an attribute of ``self``
  in ``__init__`` (``self.gru = self._build_gru()``: ``setup_calls``), unless the step's name asks for building
  (``rules/roles.yaml``, ``build_words``): the component runs where it is called later (``self.gru(x, h)``);
- **never** when it only refers to a function or class as a value (a registry ``TRAINERS = {"ngpt": NGPTTrainer}``,
  a callback): which one runs is chosen at run time, so a step only referenced so is uncertain, not ordered there
  nor absent; nor when it loads the run's configuration (a call into ``yaml``, ``omegaconf``..., a repository
  ``load_config``: ``rules/roles.yaml``, ``config_modules``, ``config_words``) unless the step names a configuration;
- **strongly** when the call plays a role the step asks for (``rules/roles.yaml``, ``step_roles``: the backward
  pass ``loss.backward()``, an optimizer or scheduler step ``optimizer.step()`` told by its receiver's name,
  ``zero_grad``, a gradient clip ``clip_grad_norm_``, a save, an estimator's ``fit``/``predict`` told by its
  receiver; a step asks for a role when its name or keywords hold one of the role's step words: "gradient
  clipping", ``optimizer.step``, a one-word step word only as a name's last part, so ``fit_transform`` asks for no
  ``fit``; or, for a role marked ``by_functions``, when its functions name the call; for one marked ``by_name``,
  the save, only by its name), and such a step is placed at
  the sites of that role, when any runs, and of the repository functions it names, not at a library name it lists
  (``train_test_split`` beside ``fit``); a step naming an optimizer with its update ("AdamW update", "SGD step":
  ``optimizer_names``) asks for the optimizer step;
- **strongly** when it resolves to a repository function or class whose name is one of the step's functions or
  identifier-like keywords (``train``, ``GPT``), or whose name's words contain one that is no common call name
  (``train_sft`` for ``sft``, ``compute_fid_score`` for ``fid``), or to an imported library name that ends with one
  (``torch.load``, ``svd`` for ``torch.linalg.svd``) unless that name is a builtin, a call every program makes
  (``print``, ``sum``, ``torch.mean``, ``plt.plot``: ``_COMMON_CALLS``) or a general term (``numpy.random.random``
  for a keyword ``random``: ``rules/words.yaml``, ``generic_terms``), unless the step's ``functions`` name that
  library call (``json.dump``, ``torch.min``; a bare builtin call excepted) or the step names its dotted name; a
  dotted name the step gives names that library function only (``torch.load``; another library's ``json.load``
  maps the step weakly at most; its first part read through the conventional import names, ``np.sort`` as
  ``numpy.sort``: ``rules/roles.yaml``, ``import_aliases``), a name without a dot any library's call of that last
  name;
- **strongly** when it runs an object of a repository class whose name's words contain such a keyword: a
  method named as a common action (``train``, ``run``, ``fit``...), or the object called (its ``__call__``), from
  outside the class
  (``stage1_trainer.train()`` for a step named by ``stage1``, the class being ``Stage1Trainer``), never a helper
  method, the construction, or the class's own calls while it sets itself up;
- **strongly**, for a step recording a value (its name says so: ``rules/roles.yaml``, ``record_words``: "record
  average reward"), when it fills a collection named by a word of the step's name that is no general term
  (``record_calls``: ``self.avg_rewards_history.append(rho)``), and such a step is placed there when any runs: the
  value is kept there, after it was computed (``get_average_reward()`` before the update whose result is recorded);
- **never** by a word its name contains when the call plays a known role the step does not ask for
  (``save_checkpoint`` saves: no step "load the checkpoint");
- **weakly** when the step runs over several things (its name says so: ``rules/roles.yaml``,
  ``repeated_step_words``: "train the variants") and the site is in no loop; when only a common library call or
  one named by a general term (any sampler is ``random``), or an attribute call on a receiver of unknown type, has
  the step's name (``model.train()`` may be
  ``nn.Module.train``, not the training step), or a repository function named only by a common action
  (``evaluate``) has the name of a step that says more (``HumanEval evaluation``: ``_qualified``); or when a name
  merely contains a common keyword (``train_epoch`` for
  ``train``: ``get_train_loader`` would match too) or a general term (``apply_model_overrides`` for ``model``:
  ``rules/words.yaml``, ``generic_terms``), unless the function trains (its run takes a backward pass and an
  optimizer step: ``training_functions``), the step is named only by training words and common ones (``joint
  pre-training``: ``_trains``) and the trace trains one thing (its optimizer steps in one body), which maps it strongly
  where nothing else does.
- **strongly**, after all, a step mapped only outside the bodies every other mapped step's path passes through (the
  P2VAE trainer's ``_compute_loss`` while the sampling, the target and the GRU update run in the FMT trainer's step)
  at that body's calls whose result is bound to a variable named by the step, from the body's earlier values
  (``total_loss = torch.mean(loss_term ** 2)``; not ``latent_for_loss``: ``purpose_words``): ``_into_shared_body``;
- **strongly**, after all, a weakly mapped step lying between two strongly mapped steps in the claimed order, at
  the one site data flow puts on the path between them (``_confirm_by_flow``, ``rules/d4_flow.py``: ``merged =
  attended.reshape(...)`` fed by the attention and feeding ``self.o_proj(merged)``, not the ``view`` of the
  projections before the attention; or a site run after the previous step's that meets it in feeding the next, not
  in another arm of one ``if``/``try`` or of one call: ``_joins``), one path for each stretch of such steps.
- **never** at a site running only under an ``if`` whose test selects a sibling of the labelled variant the step
  names (``if cfg.position == GatingPosition.G4_QUERY:`` for "G1 sigmoid gate"; ``_keep_own_variant``): a step only
  such sites run is at the calls of the same function where no sibling is tested, else uncertain.

Besides the entry points' traces, each framework hook live code runs (``forward``, ``training_step``:
``hooks_run``) has a trace of its own body: the framework calls it, so its order runs although no entry point calls it
by name; there a submodule called through an attribute the step names (``self.q_proj(x)``; ``self.encoder(x)`` of a
repository class, by the name as written: ``CallSite.written``) maps the step strongly,
unless the name is a common call (``self.train()`` is ``nn.Module.train``). The trace covering the most steps (strong
first) is the pipeline; a step's position is its first strong site there
(else its first weak one). Outcomes per step: ``ordered`` (in the trace), ``elsewhere`` (only another entry point
runs it: a separate launch, so no order follows), ``dead`` (only code no entry point reaches, or no call of it
and its names held only by such code, a function or class named with a word of its own among them: reported with
where it is defined or named), ``absent`` (no call, definition or use of any of its names anywhere), ``uncertain`` (only
weak
sites, only code that is *maybe* live, or a keyword used only as a variable or string), ``stub`` (its only sites
call repository functions whose body is a stub: ``pass``, ``...``, ``raise NotImplementedError``;
``stub_functions``). A call of a stub runs
no step; a step mapped to a stub besides sites that run (its projection a stub, its gradient computed) is partly a
placeholder: it weighs half in the estimate and settles nothing. When no step runs and some are only dead code or
stubs, the claim is a trace: 0.25 (CONVENTIONS.md, "Ordering", "Stubs and traces"), settled also beside undecided
steps (uncertain, or run only by another launch) when those alone round to a quarter of the claim (one of five).

A step playing both roles of an order breaker (a "parameter update" with its backward pass and its optimizer
step) is broken when the breaking call runs between them in one body (``_inner_breaker``): it counts as a violated
pair (0 with every step found, else at most 0.5: CONVENTIONS.md, "Ordering", a pair out of order that may not be
the claim's point) and weighs nothing in the estimate.

A call using an object before the call that prepares it, in one body (``rules/roles.yaml``, ``prerequisites``: an
estimator's ``predict`` before its ``fit``, ``_used_unprepared``), violates the pair even when the same call runs
again after the preparation: the pair is not mixed but violated at those two sites.

Required pairs: ``strict: true`` orders every pair of steps (a total order), a list names the pairs, ``false``
none. Step i precedes step j when some site of j runs after the first site of i (a validation inside the
pretraining loop does not undo the final evaluation after fine-tuning); the pair is violated when every site of j
runs before any site of i. Only the closest sites count (``pair_order``), and a site running inside the other
step's call is part of that step, not ordered against it (the NLL a test evaluation computes): the pair is then
ordered by sites further apart, for the estimate only, since the closest evidence orders nothing; unless the outer
step's own calls inside that call (not those leading to the inner site, nor constructions) all run before the inner
site, the outer step being i, or all after it, the outer step being j (``_init_weights`` drawing the weights, then
calling ``normalize_weights()``), or the inner site runs in the constructor of the class a building step names after
every construction there (the layers built, then initialised): the pair then holds (``_ordered_inside``). The
reverse is a violation only when it is the literal order of one function body (``_body_order``: the inner call and
the outer step's own calls all in that body, none in an arm, no loop around both, each of them surely its step,
none registering a hook or callback: ``_init_weights`` calling ``normalize_weights()`` before it draws the
weights), and none is taken when another nesting of the two shows the other order: a call order against the claim
read across calls, or a hook registered before the backward pass it accumulates, is no violation. Score: with every
step found and a required pair of two strongly mapped steps violated, 0 (the claimed order is contradicted where it
runs: CONVENTIONS.md, "Ordering"); otherwise the heaviest set of steps found in the trace whose required pairs all
hold, a pair violated only by sites in two arms of one choice counting as no violation when other sites of the two
run in one pass (``PairOrder.arms``: ``cls = NGPT if ngpt else GPT`` runs one constructor, whose initialisation
says nothing of the other's building), a strongly mapped step weighing 1 and a weakly mapped one 0.5 (it may be
another thing with the step's word in its name), as does a step all of whose sites map another step too (one call
is counted once), over the number of
steps, rounded to the scale (``sau.vocabulary.share_score``); full marks need every step mapped strongly by sites
of its own (else at most 0.75). A settled verdict has strong steps only, so the weights change only estimates.

Settled when every step is strongly mapped by sites of its own (not only by calls another step maps too: one call
may be either step) or certainly dead or absent, no entry-point question remains, every required pair is plainly
ordered, and either every step runs or none does: a partial score (some steps run, others are missing) weighs the
missing steps, which is a reader's judgement (the truth set's readers scored each such verdict below the fraction
found), so it stays an estimate, unless some missing step is decidedly absent
(``_settled_with_absent``, issue 16): no call, definition or name of it and no name holding every word of one of
its names beyond common calls, generic terms and words saying only that something is computed, each word of a name of
several as itself or a longer form (``_related_name``:
``stage1_checkpoint_path`` is no sign of a step named by ``best_checkpoint``, one word short; ``ranking_depth`` and
``penalised_rewards`` are of steps named by ``rank_to_depth`` and ``compute_rewards``), or only dead code or a stub
beside steps that run, while
no required pair is violated, mixed or unclear; the found steps that hold (strong, of their own, some site a
repository call, a role's call or a library call the step's functions name that is no call every program makes:
``numpy.mean`` of training losses is no "mean of the run times") over all steps, a dead or stubbed step
weighing between nothing and a trace (a quarter of a step, so that what a reader makes of it is covered), then
settle when that fraction is the same whatever the undecided steps turn out to be
(``sau.vocabulary.determined_score``, as D1 settles compound claims: two steps running in order beside a third
only written, 2 to 2.25 of 3, is 0.75 either way; one beside one, 1 to 1.25 of 2, is not settled). A score with a step missing is never 1. The same guards keep a pair from settling either way
(issue 16): both sites in two arms of one ``if``/``try`` (``if gpt: GPT() else: NGPT()`` runs one of them), both steps mapped to one call, one site
running inside the other's call (``relation``), a site that only constructs an object (not the step itself: a
class the functions of a step asking for building name, ``rules/roles.yaml``, ``build_words``, built outside any
``__init__``: ``GPT(config)`` for "build GPT and nGPT"; ``_built_step``), or j running
before i's first site as well as after it (the pair holds only through a later repetition: the score then stays at
most 0.75, so a verdict never lists steps out of the claimed order with a 1). A verdict lists each step at the
site that orders its pairs (``_shown_sites``); when those sites do not line up in one pass (each pair holds at its
own closest sites, a step after its predecessor in one function and before its successor in another), nothing
settles and the score stays at most 0.75 too. A violation is further unsettled
when the claimed order holds at other sites of the two steps (``PairOrder.held_elsewhere``: an evaluation before a sweep
and again inside it; not another object's call of the same role, ``_other_object``, nor a call of one step that runs
the other step and calls of its own, ``_containers``: ``train_step()`` for "forward pass" holds ``loss.backward()`` and
``model(batch)``, whose order is the steps', as careful readers read it), or when a later call of a function holding
a site of j runs after i (``_repeats``, ``_undone_by_repeat``: a trace expands a function once, at its first call,
so ``report()`` printing an interval after each of three experiments shows the interval only after the first,
before the third experiment's split; not a construction, a guessed method, nor a call that may run i again
too). Such a call need not run j (an ``if`` inside, a cached result), so it never shows that an order holds: the
estimate still counts the pair as violated. Otherwise
unresolved with the score as the best estimate and one finding per step.
"""

from __future__ import annotations

import builtins
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from typing import Callable, Iterable, Iterator

import libcst as cst

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import (CALL, CELL, CHOICE_KEYS, DEAD, EXTERNAL, FUNCTION, HOOK, INSTANCE,
                                        INSTANTIATE, LIVE, MAIN, MODULE, REFERENCE, RUN, TEST_MAIN, UNRESOLVED,
                                        CallGraph, CallSite, Mention)
from extractors.facts import RepositoryIndex
from extractors.stubs.findings import WHOLE_FUNCTION_CODES
from extractors.stubs.parse import NOT_IMPLEMENTED
from extractors.trees import visit
from extractors.values import dotted_name
from extractors.visitor import Visitor
from extractors.walk import is_test_path
from extractors.words import word_list
from rules import roles
from rules.names import singular, words
from rules.d4_flow import DataFlows, data_flows
from rules.findings import StepFinding, Strength
from rules.findings import StepOutcome as Outcome
from rules.traces import steps as traced_steps
from sau.vocabulary import SAU, Drift, Evidence, Status, Verdict, determined_score, share_score, split_ref

RULE = "rule:d4-ordering"
_EXPANDED = (CALL, INSTANTIATE, INSTANCE, RUN)
_TRACE_LIMIT = 50_000  # call sites per trace; a bound for generated code, far above real pipelines
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")
# Library calls too common to stand for a pipeline step on their own: outside the repository they map a step only
# weakly (rules/words.yaml, and Python's builtins).
_COMMON_CALLS = frozenset(dir(builtins)) | word_list("common_calls", "rules")
_SYNTAX = word_list("syntax_words", "rules")  # spec keywords that are Python syntax (for, in): they name no call
_WORD = re.compile(r"[A-Za-z][a-z0-9]*|[0-9]+")
_UI_MODULES = roles.words("ui_modules")
_IMPORT_ALIASES = roles.import_aliases()
_REPEATED = roles.words("repeated_step_words")
_TRAINING = roles.words("training_words")
_COMMON_WORDS = roles.words("common_words")
_TRAINED = roles.words("training_objects")
_EVALUATION = roles.words("evaluation_words")
_RECORD_WORDS = roles.words("record_words")
_RECORD_CALLS = roles.words("record_calls")
_OPTIMIZERS = roles.words("optimizer_names")
_OPTIMIZER_UPDATES = roles.words("optimizer_update_words")
_CONFIG_MODULES = roles.words("config_modules")
_CONFIG_WORDS = roles.words("config_words")
_BUILD_WORDS = roles.words("build_words")
_PREPOSITIONS = roles.words("purpose_words")
_ACTIONS = roles.words("action_words")
_HOOKS = word_list("framework_hooks")
_COMMON_ATTRIBUTES = word_list("common_attributes")
# words too general to tie a name to one step (a "score" or a "model" is in every code base): rules/words.yaml
_GENERAL = ({w.lower() for w in _COMMON_CALLS} | word_list("generic_terms", "rules")
            | roles.words("general_step_words"))



STRONG, WEAK = Strength.STRONG, Strength.WEAK
ORDERED, ELSEWHERE, DEAD_STEP, ABSENT, UNCERTAIN, STUB_STEP = (Outcome.ORDERED, Outcome.ELSEWHERE, Outcome.DEAD_STEP,
                                                                Outcome.ABSENT, Outcome.UNCERTAIN, Outcome.STUB)


@dataclass(frozen=True)
class Event:
    """One call site of a trace: ``position`` in execution order, ``site`` the ``CallSite``, ``in_loop`` whether a
    loop encloses it anywhere on the path from the entry point, ``path`` the call sites from the entry point's body
    down to this one (``path[-1] is site``)."""

    position: int
    site: CallSite
    in_loop: bool
    path: tuple[CallSite, ...] = ()


def traces_by_entry(index: RepositoryIndex) -> dict[str, list[Event]]:
    """Analysis provider: the trace of every entry point of the repository's call graph, by entry node, made once
    for all the SAUs of a repository. A test file's ``__main__`` (``test_main``) has none: a check calls the steps
    in whatever order it tests them, which is no order of the method (what it calls is still live)."""
    graph = index.analysis(build_call_graph)
    traces = {e.node: trace(graph, e.node) for e in graph.entry_points if e.kind != TEST_MAIN}
    for node in hooks_run(graph):
        traces.setdefault(node, trace(graph, node))
    if not graph.runnable:
        for node in library_roots(graph):
            traces.setdefault(node, trace(graph, node))
    return traces


def library_roots(graph: CallGraph) -> list[str]:
    """In a repository no entry point runs (``CallGraph.runnable`` false: a library of definitions, whose
    top-level functions and classes CONVENTIONS.md counts as what runs), the functions no other repository code
    calls (sorted): the library's starting points. Each one's body, expanded through what it calls, is an order a
    user of the library runs; a method counts unless another function calls it (its own class hooking or calling it,
    ``forward`` or ``__init__``, does not)."""
    g = graph.graph
    scopes = (FUNCTION, MAIN, MODULE, CELL)
    return sorted(q for q in graph.functions if q in g and not any(
        g.nodes[p].get("kind") in scopes and p != q for p in g.predecessors(q)))


def stub_functions(index: RepositoryIndex) -> dict[str, str]:
    """Analysis provider: the repository functions whose body is a stub (``extractors.stubs`` STB001, STB002,
    STB004), by qualname, each with its finding's place (``file:line``), leaving out methods that another class
    defines too (a subclass may override the placeholder). A call of one runs no step: the step it maps is only a
    placeholder there (CONVENTIONS.md, "Stubs and traces")."""
    graph = index.analysis(build_call_graph)
    # a method another class also defines may be a base's placeholder that a subclass overrides (in another file,
    # which the stub detector does not see): the override is what runs, so it is no stub here
    methods = Counter(info.name for info in graph.functions.values() if info.class_name is not None)
    found: dict[str, str] = {}
    for qualname, info in graph.functions.items():
        if info.class_name is not None and methods[info.name] > 1:
            continue
        for finding in index.stubs_by_file.get(info.file, ()):
            if (finding.code in WHOLE_FUNCTION_CODES and info.line <= finding.line <= info.end_line
                    and finding.qualname.rsplit(".", 1)[-1] == info.name):
                found[qualname] = f"{finding.path}:{finding.line}"
                break
    return found


def setup_calls(index: RepositoryIndex) -> frozenset[tuple[str, str]]:
    """Analysis provider: the calls an object's constructor makes to build its parts, as (``__init__`` qualname,
    called name's last part) pairs: the value of an assignment to an attribute of ``self`` in an ``__init__`` is a
    call (``self.gru = self._build_gru()``, ``self.head = make_head(cfg)``). Such a call sets a component up while
    the object is built; it runs no pipeline step unless the step asks for building (``rules/roles.yaml``,
    ``build_words``): the component runs where it is called later (``self.gru(x, h)``)."""
    graph = index.analysis(build_call_graph)
    found: set[tuple[str, str]] = set()
    for qualname, info in graph.functions.items():
        if info.class_name is not None and info.name == "__init__":
            scan = _SetupScan()
            visit(info.node, scan)
            found.update((qualname, called.rsplit(".", 1)[-1]) for called in scan.called)
    return frozenset(found)


class _SetupScan(Visitor):
    """The dotted names called for the value of an assignment to attributes of ``self`` (``self.gru =
    self._build_gru()``: ``self._build_gru``) in one function body, nested functions, classes and lambdas (their
    own scopes) left out."""

    def __init__(self) -> None:
        super().__init__()
        self.called: list[str] = []
        self._entered = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        entered, self._entered = self._entered, True
        return not entered  # the body scanned is the first function met

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        self._add([t.target for t in node.targets], node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._add([node.target], node.value)

    def _add(self, targets: list[cst.BaseExpression], value: cst.BaseExpression) -> None:
        if isinstance(value, cst.Call) and all(_self_attribute(t) for t in targets) \
                and (called := dotted_name(value.func)):
            self.called.append(called)


def _self_attribute(target: cst.BaseExpression) -> bool:
    return (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
            and target.value.value == "self")


def _sets_up(site: CallSite, setup: frozenset[tuple[str, str]], step_name: str) -> bool:
    """Whether ``site`` builds a component in its object's constructor (``setup_calls``) for a step whose name does
    not ask for building (``rules/roles.yaml``, ``build_words``: "initialise the GRU" does)."""
    called = site.written or site.target
    return ((site.scope, called.rsplit(".", 1)[-1]) in setup and site.kind in (CALL, INSTANCE, UNRESOLVED, EXTERNAL)
            and not set(_words(step_name)) & _BUILD_WORDS)


def training_functions(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: the repository functions (qualnames) whose run, in some entry point's or hook's trace, takes
    a backward pass and an optimizer step (``rules/roles.yaml``, ``step_roles``), in their own body or in the calls
    they make: a function that trains. A step named by a training word (``training_words``) that such a function's
    name holds is that function's run (``train_moe_pot`` for "joint pre-training"), where a name holding the word
    alone (``get_train_loader``) maps it only weakly."""
    found: dict[str, set[str]] = {}
    for events in index.analysis(traces_by_entry).values():
        for event in events:
            role = site_role(event.site)
            if role not in ("backward", "optimizer_step"):
                continue
            for above in event.path[:-1]:
                if above.callee is not None and above.kind in (CALL, INSTANCE):
                    found.setdefault(above.callee, set()).add(role)
    return frozenset(q for q, run in found.items() if run == {"backward", "optimizer_step"})


def _trains(names: _StepNames, step_name: str, site: CallSite, trainers: frozenset[str]) -> bool:
    """Whether ``site`` calls a function that trains (``training_functions``) and whose name holds a training word
    the step is named by (``rules/roles.yaml``, ``training_words``), the step's name saying no more than training
    (``_only_training``): the step's training runs there."""
    if site.kind not in (CALL, INSTANCE) or site.callee not in trainers or not _only_training(step_name):
        return False
    tokens = set(_words(site.callee.rsplit(".", 1)[-1]))
    return any(len(run) == 1 and run[0] in _TRAINING and run[0] in tokens for run in names.runs)


@lru_cache(maxsize=4096)
def _only_training(name: str) -> bool:
    """Whether a step's name holds a training word and otherwise only common words, a generic name of what is trained
    (``rules/roles.yaml``, ``training_objects``) or words of three letters or fewer (``joint pre-training``,
    ``fine-tuned model``): any training function is then that step, where ``train NFIG Transformer on tokens`` names
    what is trained, which a reader checks against the model built, and ``training data`` names data."""
    words = re.findall(r"[a-z0-9]+", name.lower())
    return (any(w in _TRAINING for w in words)
            and all(w in _TRAINING or w in _TRAINED or w in _COMMON_WORDS or len(w) <= 3 for w in words))


def hooks_run(graph: CallGraph) -> list[str]:
    """The framework hooks live code runs (sorted): methods named in ``extractors/words.yaml`` (``framework_hooks``:
    ``forward``, ``training_step``...) of classes that live code builds or hands over. A framework calls them when it
    calls the object, so their bodies are orders that run (a forward pass's submodules, a training step) even when
    no entry point calls them by name."""
    g = graph.graph
    return sorted(t for c, t, kind in g.edges(data="kind") if kind == HOOK and t.rsplit(".", 1)[-1] in _HOOKS
                  and graph.live(c))


def trace(graph: CallGraph, entry: str, limit: int = _TRACE_LIMIT) -> list[Event]:
    """The call sites ``entry`` runs, in execution order: statement order within a body, each resolved call
    expanded depth first at its first occurrence, a placeholder method's call running its overrides
    (``_dispatched``). At most ``limit`` events."""
    events: list[Event] = []
    expanded = {entry}
    stack: list[tuple[Iterator[CallSite], bool, tuple[CallSite, ...]]] = [
        (_dispatched(graph, entry), False, ())]
    while stack and len(events) < limit:
        sites, in_loop, above = stack[-1]
        site = next(sites, None)
        if site is None:
            stack.pop()
            continue
        looped = in_loop or site.in_loop
        path = (*above, site)
        events.append(Event(len(events), site, looped, path))
        for target in _bodies(graph, site):
            if target not in expanded:
                expanded.add(target)
                stack.append((_dispatched(graph, target), looped, path))
    return events


# the key of the arms of a call dispatched to several overrides (``_dispatched``): below a loop's turns (``-line``),
# above the choices among classes (``CHOICE_KEYS``); two such calls on one line share it, which only makes their
# arms exclusive (no order), never orders them
_DISPATCH_KEYS = 1 << 30
_ABSTRACT, _EMPTY = "abstract", "empty"
_ABSTRACT_DECORATORS = word_list("abstract_decorators")


def _dispatched(graph: CallGraph, node: str) -> Iterator[CallSite]:
    """The call sites of ``node`` in evaluation order (``CallGraph.callees_in_order``), each call of a placeholder
    method that repository subclasses override (``_overrides_run``) replaced by a call of the override, or, with
    several overrides, by one call of each as the arms of one choice (the object is of one class): a template
    method's ``self._train_epoch()`` runs the subclass's ``_train_epoch``, not the base's ``raise
    NotImplementedError``."""
    for site in graph.callees_in_order(node):
        overrides = _overrides_run(graph, site)
        if len(overrides) == 1:
            yield replace(site, callee=overrides[0], target=overrides[0])
            continue
        for number, override in enumerate(overrides):
            yield replace(site, callee=override, target=override,
                          branch=(*site.branch, (-(_DISPATCH_KEYS + site.line), number)))
        if not overrides:
            yield site


def _overrides_run(graph: CallGraph, site: CallSite) -> list[str]:
    """The repository overrides a call of a method runs in place of the method (sorted), or none: the method is a
    placeholder (``_placeholder``) and the call graph links the call to subclass methods of that name (``self.m()``,
    or ``x.m()`` of a parameter annotated as the class: ``extractors.callgraph.resolve``), placeholders themselves
    left out. An abstract method (``@abstractmethod``, ``raise NotImplementedError``) never runs its own body, so
    its overrides run; an empty one (``pass``, ``...``, a docstring) is a default that runs when its own class is
    built (a no-op hook), so only when nothing builds that class."""
    g = graph.graph
    info = graph.functions.get(site.callee or "") if site.kind == CALL else None
    if info is None or info.class_name is None or site.scope not in g:
        return []
    kind = _placeholder(info.node)
    if kind is None or kind == _EMPTY and info.class_name in g and any(
            g.edges[p, info.class_name]["kind"] == INSTANTIATE for p in g.predecessors(info.class_name)):
        return []
    return sorted(t for t in g.successors(site.scope) if t != site.callee and t in graph.functions
                  and graph.functions[t].name == info.name and g.edges[site.scope, t]["kind"] == CALL
                  and site.line in g.edges[site.scope, t]["lines"] and _placeholder(graph.functions[t].node) is None)


def _placeholder(node: cst.FunctionDef) -> str | None:
    """``_ABSTRACT`` for an abstract method: decorated ``@abstractmethod`` or kin (``extractors/words.yaml``,
    ``abstract_decorators``), or whose body, strings aside, only raises ``NotImplementedError``
    (``not_implemented``); ``_EMPTY`` for a body of only ``pass``, ``...`` and strings; else ``None``. The bodies
    the stub finder calls STB001 and STB002 (``extractors.stubs``), read here for the methods it leaves out as
    interfaces (overridden ones)."""
    if any((dotted_name(d.decorator) or "").rsplit(".", 1)[-1] in _ABSTRACT_DECORATORS for d in node.decorators):
        return _ABSTRACT
    small: list[cst.BaseSmallStatement] = []
    for line in node.body.body:
        if isinstance(line, cst.SimpleStatementLine):
            small.extend(line.body)
        elif isinstance(line, cst.BaseSmallStatement):
            small.append(line)  # def m(self): ... on one line
        else:
            return None  # a compound statement: code of its own
    kept = [s for s in small if not (isinstance(s, cst.Expr) and isinstance(s.value, _STRINGS))]
    if kept and all(_raises_not_implemented(s) for s in kept):
        return _ABSTRACT
    if all(isinstance(s, cst.Pass) or isinstance(s, cst.Expr) and isinstance(s.value, cst.Ellipsis) for s in kept):
        return _EMPTY
    return None


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _raises_not_implemented(statement: cst.BaseSmallStatement) -> bool:
    """Whether a statement is ``raise NotImplementedError`` or ``raise NotImplementedError(...)``."""
    if not isinstance(statement, cst.Raise) or statement.exc is None:
        return False
    raised = statement.exc.func if isinstance(statement.exc, cst.Call) else statement.exc
    return (dotted_name(raised) or "").rsplit(".", 1)[-1] in NOT_IMPLEMENTED


NESTED, EXCLUSIVE, SEQUENTIAL = "nested", "exclusive", "sequential"


def relation(first: Event, second: Event) -> str:
    """How two events of one trace relate: ``nested`` when one happens inside the call of the other,
    ``exclusive`` when they lie in different arms of one ``if``/``try`` (only one of them runs in a pass) or under
    different classes of one choice among classes anywhere along their paths (``agent = agent_class(...)`` in
    ``__init__``, ``agent.update()`` in ``run``: the object keeps the one class it was built as), else
    ``sequential``."""
    chosen = {key: arm for site in first.path for key, arm in site.branch if key <= CHOICE_KEYS}
    if any(key <= CHOICE_KEYS and chosen.get(key, arm) != arm for site in second.path for key, arm in site.branch):
        return EXCLUSIVE
    for a, b in zip(first.path, second.path):
        if a is b:
            continue
        return EXCLUSIVE if _other_arms(a, b) else SEQUENTIAL
    return NESTED


def _other_arms(a: CallSite, b: CallSite) -> bool:
    """Whether two call sites of one scope lie in different arms of one ``if``/``try`` or of one call run as several
    (a loop's turns over objects, several classes or overrides: ``CallSite.branch``)."""
    arms_b = dict(b.branch)
    return any(statement in arms_b and arms_b[statement] != arm for statement, arm in a.branch)


def _bodies(graph: CallGraph, site: CallSite) -> list[str]:
    """The scopes a call site runs: the callee; for an instantiation, the class's ``__init__``; for a method called
    on an object of unknown type, the one repository method of that name (``_only_method``)."""
    if site.callee is None and site.kind == UNRESOLVED:
        only = _only_method(graph, site.target)
        return [only] if only is not None else []
    if site.callee is None or site.kind not in _EXPANDED:
        return []
    if site.kind == INSTANTIATE:
        g = graph.graph
        return [t for t in g.successors(site.callee) if g.edges[site.callee, t]["kind"] == CALL]
    return [site.callee]


def _only_method(graph: CallGraph, target: str) -> str | None:
    """The repository method a call ``receiver.name(...)`` on a receiver of unknown type runs: the one method of
    that name in the repository, when its class and the receiver share a word of their names and the name is no
    common method (``extractors/words.yaml``, ``common_attributes``; ``_COMMON_CALLS``), else ``None``.
    ``self.model.update_history_h(h, c, t)`` in a trainer handed its model runs ``FMTModel.update_history_h``;
    ``tokenizer.encode(text)`` is no ``P2VAEModel.encode``, and ``self.model.train()`` may be any module's."""
    receiver, _, name = target.rpartition(".")
    if not receiver or name in _COMMON_ATTRIBUTES or name in _COMMON_CALLS:
        return None
    found = graph.methods_by_name().get(name, ())
    if len(found) != 1:
        return None
    owner = found[0].rsplit(".", 2)[-2]
    return found[0] if set(_words(receiver.rsplit(".", 1)[-1])) & set(_words(owner)) else None


def _names(step: dict) -> list[str]:
    """The step's functions and keywords a name in code may hold: identifier-like ones, not Python syntax
    (``rules/words.yaml``, ``syntax_words``: a keyword ``for`` from "for each model" names no call)."""
    return [n for n in (*step["functions"], *step["keywords"]) if _IDENTIFIER.match(n) and n.lower() not in _SYNTAX]


@dataclass(frozen=True)
class _StepNames:
    """A step's identifier-like names, prepared once (``qualified``: see ``_qualified``): ``tails`` the lower-case
    last components, ``dotted`` the dotted names as library names (``_library_name``: ``np.sort`` is
    ``numpy.sort``), ``bare`` the lower-case names without a dot (a library call's last name matches only these:
    ``torch.load`` names no ``json.load``), ``runs`` the words of tails of three or more letters (for containment),
    ``specific``
    those runs that are no common call name nor one general term (``sft``, ``dpo``, ``normalize``; not ``train``,
    ``eval``, ``model``), ``roles`` the
    call roles the step asks for (``step_roles``), ``functions`` the lower-case last components of the step's
    ``functions`` (a class named there is the step being built: its constructor maps it), ``calls`` the step's
    ``functions`` as library names (``_library_name``), ``records`` for a step recording a value (``_recorded``)
    the word keys of what it records."""

    tails: frozenset[str]
    dotted: tuple[str, ...]
    bare: frozenset[str]
    runs: tuple[tuple[str, ...], ...]
    specific: tuple[tuple[str, ...], ...]
    roles: frozenset[str] = frozenset()
    functions: frozenset[str] = frozenset()
    calls: tuple[str, ...] = ()
    qualified: bool = False
    records: frozenset[str] = frozenset()


def step_names(step: dict) -> _StepNames:
    """The names a spec step is looked for by, prepared for ``match_site``, with the call roles the step asks
    for (``step_roles``)."""
    built = frozenset(n.lower().rsplit(".", 1)[-1] for n in step["functions"] if _IDENTIFIER.match(n))
    return replace(_prepared(tuple(_names(step)), step_roles(step), built), qualified=_qualified(step["name"]),
                   records=_recorded(step["name"]),
                   calls=tuple(_library_name(n) for n in step["functions"] if _IDENTIFIER.match(n)))


def _library_name(name: str) -> str:
    """A spec's name of a library function (``str``), in lower case, its first part read through the names code
    imports libraries as (``rules/roles.yaml``, ``import_aliases``: ``np.sort`` is ``numpy.sort``), as the call graph
    reads a repository's calls through its own imports (``T.load`` after ``import torch as T`` is ``torch.load``)."""
    head, dot, rest = name.partition(".")
    return f"{_IMPORT_ALIASES.get(head, head)}{dot}{rest}".lower()


def _names_call(called: str, names: Iterable[str]) -> bool:
    """Whether a library call (``called``: its dotted name, resolved through the repository's imports) is one of
    ``names`` (``_library_name``): a dotted one by the call's whole dotted name or a tail of it (``autograd.grad``
    is ``torch.autograd.grad``; ``torch.load`` is no ``json.load``), a bare one (``dump``) by the call's last name."""
    lowered = called.lower()
    last = lowered.rsplit(".", 1)[-1]
    return any(lowered == n or lowered.endswith("." + n) if "." in n else last == n for n in names)


@lru_cache(maxsize=4096)
def _recorded(name: str) -> frozenset[str]:
    """For a step whose name says it records a value (``rules/roles.yaml``, ``record_words``: "record average
    reward"), the keys (``_word_key``) of the other words of its name of four letters or more and no general term
    (``test`` in "record test accuracy" would name ``test_losses`` too), which a collection keeping the value is named
    by; empty for any other step."""
    words = _words(name)
    if not set(words) & _RECORD_WORDS:
        return frozenset()
    return frozenset(key for w in words if len(w) >= 4 and w not in _RECORD_WORDS
                     and (key := _word_key(w)) not in _GENERAL and w not in _GENERAL)


def _word_key(word: str) -> str:
    """A word's singular, for comparing a collection's name with a step's (``accuracies`` meets ``accuracy``,
    ``rewards`` meets ``reward``: ``rules.names.singular``, with ``-ies`` read as ``-y``)."""
    return word[:-3] + "y" if len(word) > 4 and word.endswith("ies") else singular(word)


def _fills_named(site: CallSite, records: frozenset[str]) -> bool:
    """Whether ``site`` keeps a recorded value: a call filling a collection (``rules/roles.yaml``, ``record_calls``:
    ``self.avg_rewards_history.append(rho)``) whose name holds one of ``records`` (``_recorded``), where the value
    computed before is recorded."""
    if not records or site.kind in (RUN, REFERENCE):
        return False
    receiver, _, last = (site.written or site.target).rpartition(".")
    return (last.lower() in _RECORD_CALLS and bool(receiver)
            and bool({_word_key(w) for w in _words(receiver.rsplit(".", 1)[-1])} & records))


@lru_cache(maxsize=4096)
def _qualified(name: str) -> bool:
    """Whether a step's name says more than a common action (``HumanEval evaluation``, ``train on OpenWebText``; not
    ``evaluate`` or ``train``): a repository function named only by the action then maps it weakly."""
    common = {c.lower() for c in _COMMON_CALLS}
    return any(len(w) > 2 and w not in common and not any(w.startswith(c.rstrip("e")) for c in common if len(c) >= 4)
               for w in re.findall(r"[a-z0-9]+", name.lower()))  # MBPP as one word, not _words' four letters


def step_roles(step: dict) -> frozenset[str]:
    """The roles of ``rules/roles.yaml`` (``step_roles``) that a step's name or keywords ask for: a step word or
    phrase equal to one of them or running inside one as whole words (``gradient clipping`` asks for ``clip``;
    ``optimizer.step`` for ``optimizer_step``; ``_asks``); for a role marked ``by_functions``, a function of the
    step that is one of the role's calls (``fit``); a role marked ``by_name`` (the save) only by the step's name."""
    return _roles_asked(step["name"], tuple(step.get("keywords", ())), tuple(step.get("functions", ())))


@lru_cache(maxsize=4096)  # every trace and pair of steps asks again
def _roles_asked(name: str, keywords: tuple[str, ...], step_functions: tuple[str, ...]) -> frozenset[str]:
    texts = [(_words(t), _IDENTIFIER.match(t) is not None) for t in (name, *keywords, *step_functions) if t]
    functions = {f.lower().rsplit(".", 1)[-1] for f in step_functions}
    asked = frozenset(role.name for role in roles.step_roles()
                      if any(_asks(text, identifier, _words(w)) for w in role.step_words
                             for text, identifier in (texts[:1] if role.by_name else texts))
                      or (role.by_functions and functions & role.calls))
    return asked | {"optimizer_step"} if _names_optimizer_update(name) else asked


def _names_optimizer_update(name: str) -> bool:
    """Whether a step's name names an optimizer with its update (``AdamW update``, ``SGD step``; ``rules/roles.yaml``,
    ``optimizer_names``): the step is that optimizer's step call. Words split on non-letters only, so that ``AdamW``
    stays one word."""
    lowered = set(re.findall(r"[a-z0-9]+", name.lower()))
    return bool(lowered & _OPTIMIZERS and lowered & _OPTIMIZER_UPDATES)


def _asks(text: tuple[str, ...], identifier: bool, word: tuple[str, ...]) -> bool:
    """Whether a step's text (its words; ``identifier`` when it is a name, not a phrase) holds a role's step word:
    a phrase holds it as whole words; a name holds a one-word step word only as its last part (``clf.fit``, not
    ``fit_transform``, which transforms features), a longer one as whole words (``lr_scheduler.step``)."""
    if not word:
        return False
    if identifier and len(word) == 1:
        return text[-1:] == word
    return _contains(text, word)


def site_role(site: CallSite) -> str | None:
    """The role a call site plays (``rules/roles.yaml``, ``step_roles``), or ``None``: its last name part is one of
    the role's calls and, for a role with receivers, the receiver's last name part holds one of their words
    (``self.optimizer.step()`` steps the optimizer, ``env.step()`` plays no role)."""
    return _role_of(site.kind, site.target, site.callee)


@lru_cache(maxsize=1 << 16)  # nothing else of a site decides its role, and every trace asks for it again
def _role_of(kind: str, target: str, callee: str | None) -> str | None:
    site = _site(kind, target, callee)
    if site.kind == RUN or _never_a_step(site, frozenset()):
        return None
    called = site.target if site.callee is None else site.callee
    receiver, _, last = called.rpartition(".")
    for role in roles.step_roles():
        if last.lower() not in role.calls:
            continue
        if not role.receivers or set(_words(receiver.rsplit(".", 1)[-1])) & role.receivers:
            return role.name
    return None


def _never_a_step(site: CallSite, built: frozenset[str]) -> bool:
    """A constructor call or a UI widget sets something up, it runs no step: an instantiated repository class, a
    capitalised library or unresolved name (``gr.Video()``, ``PPOTrainer(...)``), any call into a UI module. A
    class the step's ``functions`` name (``built``) is the exception: building it is the step."""
    parts = site.target.split(".")
    if site.kind in (EXTERNAL, UNRESOLVED) and parts[0].lower() in _UI_MODULES:
        return True
    constructs = site.kind == INSTANTIATE or (site.kind in (EXTERNAL, UNRESOLVED) and parts[-1][:1].isupper())
    called = site.target if site.callee is None else site.callee
    return constructs and called.rsplit(".", 1)[-1].lower() not in built


@lru_cache(maxsize=4096)
def _prepared(names: tuple[str, ...], asked: frozenset[str] = frozenset(),
              built: frozenset[str] = frozenset()) -> _StepNames:
    tails = frozenset(n.lower().rsplit(".", 1)[-1] for n in names)
    runs = tuple(_words(t) for t in sorted(tails) if len(t) >= 3 and _words(t))
    common = {c.lower() for c in _COMMON_CALLS}
    # a run of one general word ("model", "loss") names no step inside a longer name (apply_model_overrides); a
    # training word does (finetune_classifier), as the training functions' own rule says
    specific = tuple(run for run in runs if "_".join(run) not in common
                     and not (len(run) == 1 and run[0] in _GENERAL and run[0] not in _TRAINING))
    return _StepNames(tails, tuple(_library_name(n) for n in names if "." in n),
                      frozenset(n.lower() for n in names if "." not in n), runs, specific, asked, built)


def match_site(names: _StepNames, site: CallSite) -> str | None:
    """``strong``, ``weak`` or ``None``: how ``site`` maps to the step whose ``step_names`` are ``names`` (module
    docstring)."""
    return _match_fields(names, site.kind, site.target, site.callee, site.scope, site.written)


def _site(kind: str, target: str, callee: str | None, scope: str = "", written: str = "") -> CallSite:
    """A call site with only the fields step matching reads (``match_site``, ``site_role``): no place."""
    return CallSite("", 0, 0, scope, callee, target, kind, written=written)


@lru_cache(maxsize=1 << 16)  # every trace of every step reads the same sites; nothing else of a site decides
def _match_fields(names: _StepNames, kind: str, target: str, callee: str | None, scope: str,
                  written: str) -> str | None:
    site = _site(kind, target, callee, scope, written)
    if site.kind in (RUN, REFERENCE) or _never_a_step(site, names.functions):
        return None  # a reference (TRAINERS = {"ngpt": NGPTTrainer}) runs nothing where it is: see _referenced
    if _loads_config(site) and not any(set(run) & _CONFIG_WORDS for run in names.runs):
        return None  # OmegaConf.load("config.yaml"), load_config(): setting the run up, not a step it claims
    if _fills_named(site, names.records):
        return STRONG  # avg_rewards_history.append(rho) for "record average reward": where the value is kept
    role = site_role(site)
    if names.roles and role in names.roles:
        return STRONG  # loss.backward() for "backward pass", optimizer.step() for "optimizer step"
    called = site.target if site.callee is None else site.callee
    last = called.rsplit(".", 1)[-1].lower()
    if site.kind in (CALL, INSTANTIATE, INSTANCE):
        if last in names.tails:
            # a repository function named as a common action (evaluate, train) is any evaluation or training, not
            # the one the step qualifies ("HumanEval evaluation")
            return WEAK if names.qualified and called.rsplit(".", 1)[-1] in _COMMON_CALLS else STRONG
    elif site.kind == EXTERNAL and "." in called and _names_call(called, names.calls):
        return STRONG  # a library function the step's functions name (json.dump, torch.min), common or not
    elif site.kind == EXTERNAL and called.rsplit(".", 1)[-1] not in _COMMON_CALLS:
        # a library call named by a general term (numpy.random.random for "random") is any sampler: weak, below
        if _names_call(called, names.dotted) or (last in names.bare and last not in _GENERAL):
            return STRONG
    if _runs_built_class(site, names.functions):
        return STRONG  # transform.apply(x) runs the WaveletTransform the step's functions name
    receiver, _, attribute = (site.written or site.target).rpartition(".")
    if (receiver == "self" and site.kind in (UNRESOLVED, INSTANCE) and attribute.lower() in names.tails
            and attribute not in _COMMON_CALLS):
        return STRONG  # self.q_proj(x): the submodule the step names runs (not self.train(): nn.Module's)
    if site.kind in (UNRESOLVED, EXTERNAL) and last in names.tails:
        return WEAK
    if role is not None:
        return None  # a call whose role is known maps only a step asking for it or naming it (save_checkpoint: no "load")
    if site.kind != EXTERNAL and names.runs:
        tokens = _words(last)
        if site.kind in (CALL, INSTANTIATE, INSTANCE) and any(_contains(tokens, run) for run in names.specific):
            return STRONG  # the repository's own train_sft for a step named by sft
        owner = _runs_object_of(site)
        if owner and any(_contains(_words(owner), run) for run in names.specific):
            return STRONG  # stage1_trainer.train() runs the step the class Stage1Trainer is named for
        if any(_contains(tokens, run) for run in names.runs):
            return WEAK
    return None


def _runs_object_of(site: CallSite) -> str | None:
    """The class name whose object a call site runs: a method of a repository class named as a common action
    (``_COMMON_CALLS``: ``train``, ``run``, ``fit``, ``forward``...; ``Stage1Trainer`` for ``stage1_trainer.train()``,
    resolved to ``stage1_trainer.Stage1Trainer.train``), or the object called (``method(losses)`` running
    ``CrcMethod.__call__``), from outside that class; else ``None``. Building the object is no step
    (``_never_a_step``), and the class's own calls of its methods (its ``__init__`` setting itself up) are not
    running it, nor is a helper (``get_history_token_count``)."""
    if site.kind not in (CALL, INSTANCE) or site.callee is None:
        return None
    owner, _, method = site.callee.rpartition(".")
    name = owner.rpartition(".")[2]
    if (method not in _COMMON_CALLS and method != "__call__") or not name[:1].isupper() \
            or site.scope.startswith(owner + "."):
        return None
    return name


def _loads_config(site: CallSite) -> bool:
    """Whether a call reads a run's configuration (``rules/roles.yaml``, ``config_modules``, ``config_words``): a
    call into a configuration library (``yaml.safe_load``, ``OmegaConf.load``) or of a repository function whose name
    holds a configuration word (``load_config``, ``read_cfg``)."""
    called = site.target if site.callee is None else site.callee
    if site.kind == EXTERNAL:
        return called.split(".", 1)[0].lower() in _CONFIG_MODULES
    if site.kind == CALL:
        return bool(set(_words(called.rsplit(".", 1)[-1])) & _CONFIG_WORDS)
    return False


def _referenced(names: _StepNames, site: CallSite) -> bool:
    """Whether ``site`` refers to a repository function or class the step names, as a value (``TRAINERS = {"ngpt":
    NGPTTrainer}``, a callback handed over): it runs where the value is called, chosen at run time."""
    if site.kind != REFERENCE or site.callee is None:
        return False
    return site.callee.rsplit(".", 1)[-1].lower() in names.tails


def _runs_built_class(site: CallSite, built: frozenset[str]) -> bool:
    """Whether ``site`` runs an object of a repository class the step's ``functions`` name (``built``, lower case),
    as ``_runs_object_of`` tells: ``transform.apply(x)`` runs the ``WaveletTransform`` built before, where the
    construction only set it up."""
    name = _runs_object_of(site) if built else None
    return name is not None and name.lower() in built


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    """Step matching's own split: every capital starts a word (``KVCache`` -> k, v, cache), unlike the rules'
    tokeniser (``rules.names.words``: kv, cache). Kept apart: moving it to the shared tokeniser changes D4 verdicts
    (2 settled verdicts and 69 reasons over the 270 development repositories), and an acronym kept whole lets a
    class's main action map a step by a word that only qualifies the class (measured in the twenty-sixth session:
    "encode with P2VAE" at ``P2VAETrainer(...).train()``, the P2VAE training stage)."""
    return tuple(w.lower() for w in _WORD.findall(text))


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


@dataclass
class StepResult:
    """Where one step was found: ``outcome`` (module docstring), ``event`` its first site in the chosen trace and
    ``events`` all of them (strong sites where there are any), ``strength`` of that mapping, ``where`` a site or
    definition elsewhere (``file:line``) for the reason (for a ``stub``, the stub function), ``partly_stub`` the
    place of a stub function the step also maps to, besides sites that run (part of the step is a placeholder),
    ``switched_off`` why the call of a function the spec names for it is in an arm no run takes (``_switched_off``)."""

    name: str
    outcome: Outcome
    event: Event | None = None
    strength: Strength | None = None
    where: str = ""
    events: tuple[Event, ...] = ()
    partly_stub: str = ""
    referenced: str = ""
    mentioned: bool = False
    switched_off: str = ""  # why the arm holding the call of a function the spec names is one no run takes


def check(sau: SAU, index: RepositoryIndex) -> Verdict:
    """Decide a code-checkable D4 SAU against ``index`` (module docstring). Returns an unresolved verdict without a
    score when the SAU has no steps."""
    steps = sau.checks.get("steps")
    if not steps:
        return Verdict(sau, None, Status.UNRESOLVED, "no ordered steps were given for this claim", RULE)
    graph = index.analysis(build_call_graph)
    traces = index.analysis(traces_by_entry)
    setup = index.analysis(setup_calls)
    entry, results = _best_trace(steps, traces, index.analysis(stub_functions), index.analysis(training_functions),
                                 setup)
    trace = traces.get(entry, []) if entry else []  # the chosen trace's events, read by the passes below
    _into_shared_body(results, steps, trace, graph)
    flows = index.analysis(data_flows)
    _keep_own_variant(results, steps, flows, trace)
    _confirm_by_flow(results, steps, flows)
    for result, step in zip(results, steps):
        if result.outcome not in (ORDERED, STUB_STEP) or (result.outcome == ORDERED and result.strength != STRONG):
            _locate(result, step, graph, traces, entry, setup)
    _switched_off(results, steps, graph, trace)
    pairs = _pairs(sau.checks.get("strict", True), len(steps))
    found = [i for i, r in enumerate(results) if r.outcome == ORDERED]
    total = sau.checks.get("strict", True) is True
    wanted = set(combinations(found, 2)) if total else {p for p in pairs if p[0] in found and p[1] in found}
    orders = {(i, j): pair_order(results[i].events, results[j].events) for i, j in sorted(wanted)}
    for (i, j), order in orders.items():  # one step inside the other's call: the outer step's own calls order them
        inner = _ordered_inside(order, results[i].events, results[j].events, (steps[i], steps[j]), trace)
        orders[(i, j)] = inner or order
    if any(order.state == VIOLATED for order in orders.values()):  # later calls of a step matter only there
        repeats = _repeats(results, trace)
        orders = {(i, j): _undone_by_repeat(order, results[i].events, repeats.get(j, ()), repeats.get(i, ()))
                  for (i, j), order in orders.items()}
    for (i, j), order in orders.items():
        breaker = _breaker(order, steps[i], steps[j], trace)
        nearer = _nearer_first(order, results[i].events) if breaker is not None else None
        if nearer is not None:
            # a later site of i runs before j in j's body (the training loop's backward pass, not a gradient estimate
            # before the loop): that site feeds j, so only a breaking call after it breaks the order
            orders[(i, j)] = order = nearer
            breaker = _breaker(nearer, steps[i], steps[j], trace)
        if breaker is not None:
            orders[(i, j)] = replace(order, state=VIOLATED, broken_by=breaker)
        elif order.state == MIXED and (unprepared := _used_unprepared(results[i].events, results[j].events)):
            orders[(i, j)] = PairOrder(VIOLATED, *unprepared)  # predicted before fitted, whatever runs after
    violated = [p for p in pairs if p in orders and orders[p].state == VIOLATED]
    # a step playing two roles whose order a call between them breaks (its backward pass and its optimizer step,
    # the gradients zeroed between): the step does not happen as claimed
    broken = {i: b for i, (r, step) in enumerate(zip(results, steps))
              if r.outcome == ORDERED and r.strength == STRONG
              and (b := _inner_breaker(r.events, step, trace)) is not None}
    # a weakly mapped step may be another thing with the step's word in its name: half a step in the estimate
    # and so may a step part of which is a placeholder (its projection a stub, its other calls running)
    # and so may a step all of whose sites are another step's too (one call for "pretrain" and "fine-tune"): the call
    # is counted once, not once per step
    shared = _shared_steps(results, found)

    def whole(i: int) -> bool:  # strongly mapped by sites of its own, nothing of it a placeholder
        return results[i].strength == STRONG and not results[i].partly_stub and i not in shared

    kept = _largest_consistent(found, orders, pairs, total,
                               lambda i: 0.0 if i in broken else 1.0 if whole(i) else 0.5)
    score = share_score(kept, len(steps))
    if not found and any(r.outcome in (DEAD_STEP, STUB_STEP) for r in results):
        score = 0.25  # no step runs, some are written but never run or only stubs: a trace (CONVENTIONS.md)
    # every step is whole (a step whose sites all map another step too may be either step: the weights change only
    # estimates) or certainly missing
    certain_steps = all(whole(i) if r.outcome == ORDERED else r.outcome in (DEAD_STEP, ABSENT, STUB_STEP)
                        for i, r in enumerate(results))
    unclear = [p for p in pairs if p in orders and _unclear(orders[p], steps[p[0]], steps[p[1]])]
    # j runs before i as well as after it where they run closest: the pair holds only through a repetition of j,
    # which the claim may or may not mean; neither "holds" nor "violated" is settled, and the score stays below 1
    mixed = [p for p in pairs if p in orders and orders[p].state == MIXED and p not in unclear]
    # some steps run and others are missing: what the missing ones weigh in the claim is a reader's judgement (the
    # truth set's readers score such claims below the fraction found), so a partial score stays an estimate
    partial = bool(found) and len(found) < len(steps)
    decided = graph.runnable and certain_steps and sau.complete and not unclear and not mixed and not partial
    # no step runs and some are only dead code or stubs: a trace, and still a quarter of the claim if every undecided
    # step (uncertain, or run by another launch) ran, when those steps alone round to a quarter (one of five steps
    # uncertain beside four written but never run): the score is the same whatever they turn out to be
    undecided_trace = sum(r.outcome in (UNCERTAIN, ELSEWHERE) for r in results)
    # (a test's helper is no step written and never run: test code runs under the test runner)
    trace_whatever = (not decided and not found and score == 0.25 and graph.runnable and sau.complete
                      and share_score(undecided_trace, len(steps)) == 0.25
                      and any(r.outcome in (DEAD_STEP, STUB_STEP) and not is_test_path(r.where.rsplit(":", 1)[0])
                              for r in results))
    decided = decided or trace_whatever
    violated = [pair for pair in violated if pair not in unclear]
    if len(found) < len(steps):
        score = min(score, 0.75)  # full marks need every step (CONVENTIONS.md, "The scale")
    by_absence, undecided, gone = False, 0, 0
    only_general: list[int] = []
    if len(found) == len(steps) and (broken or any(results[i].strength == STRONG and results[j].strength == STRONG
                                                   for i, j in violated)):
        score = 0.0  # every step is there and the claimed order is contradicted where it runs (CONVENTIONS.md)
    if broken:
        score = min(score, 0.5)  # a pair out of order that may not be the claim's point (CONVENTIONS.md, "Ordering")
    if mixed:
        score = min(score, 0.75)
    if not all(whole(i) for i in found):
        # full marks need every step mapped strongly: a weak site may be another thing with the step's word in its
        # name (4.5 of 5 steps would round to 1)
        score = min(score, 0.75)
    shown = _shown_sites(found, orders)
    held = [p for p in pairs if p in orders and orders[p].state == HOLDS and p not in unclear]
    scattered = [(i, j) for i, j in held if shown[i].position > shown[j].position]
    if scattered:
        # each pair holds at its own closest sites, but no one site per step shows them all in one pass
        score, decided = min(score, 0.75), False
    else:
        for i, event in shown.items():
            results[i].event = event  # the sites that order the pairs, not the steps' first sites elsewhere
        # some steps decidedly absent: the score may be the same whatever the undecided steps turn out to be (asked
        # only of a claim nothing else settles: it scans the code's names for each absent step)
        # absence needs no entry point: a step no code anywhere names is missing whether or not anything runs (a
        # library of definitions nobody calls), so a claim all of whose steps are absent is decided there too
        nowhere = not found and all(r.outcome == ABSENT for r in results)
        if not decided and (graph.runnable or nowhere) and sau.complete \
                and not (unclear or mixed or violated or broken):
            absent_settle = _settled_with_absent(results, steps, [whole(i) for i in range(len(steps))], graph)
            if absent_settle is not None:
                (score, only_general, undecided, gone), decided, by_absence = absent_settle, True, True
    missing = [r for r in results if r.outcome != ORDERED]
    drift = (Drift.ORDERING if violated or broken else
             Drift.STUB if all(r.outcome == STUB_STEP for r in missing)
             and (missing or any(r.partly_stub for r in results)) else Drift.MISSING if missing else None)
    reason = _reason(results, steps, [(p, orders[p]) for p in violated], entry, graph,
                     bool(unclear or mixed or scattered))
    for i, j in unclear:
        order = orders[(i, j)]
        kind = ("same" if order.first is order.second else NESTED if order.inside else
                relation(order.first, order.second))
        reason += (f"; {results[i].name!r} and {results[j].name!r} map to one call ({order.first.site.ref}), so "
                   f"no order follows" if kind == "same" else
                   f"; {results[i].name!r} and {results[j].name!r} are in different branches of one if/try, so no "
                   f"order follows" if kind == EXCLUSIVE else
                   f"; one of {results[i].name!r} and {results[j].name!r} runs inside the other's call, so no order "
                   f"follows" if kind == NESTED else
                   f"; {results[j].name!r} and {results[i].name!r} are ordered only by an object being constructed "
                   f"({(order.second if _set_up(order.second.site, steps[j]) else order.first).site.ref}), so no "
                   f"order follows" if _set_up(order.second.site, steps[j]) or _set_up(order.first.site, steps[i]) else
                   f"; {results[j].name!r} runs before {results[i].name!r} ({order.second.site.ref}, "
                   f"{order.first.site.ref}), but a later call that may run it again runs after it "
                   f"({order.repeat.site.ref}), so the order is not settled" if order.repeat is not None else
                   f"; {results[j].name!r} runs before {results[i].name!r} where they run closest "
                   f"({order.second.site.ref}, {order.first.site.ref}), but after it at other sites, so the order is "
                   f"not settled")
    for i in sorted(shared):
        reason += (f"; every site of {results[i].name!r} maps another step too ({_where(results[i])}), so it counts "
                   f"half and settles nothing")
    for i, j in scattered:
        reason += (f"; {results[i].name!r} and {results[j].name!r} are ordered at sites ({shown[i].site.ref}, "
                   f"{shown[j].site.ref}) that do not line up with the other steps' in one pass, so the order is not "
                   f"settled")
    for i, j in mixed:
        order = orders[(i, j)]
        # a site of j before one of i (the pair keeps the sites in the claimed order, which order the steps shown)
        early, late = next(((ej, ei) for ei in results[i].events for ej in results[j].events
                            if ej.position < ei.position), (order.second, order.first))
        reason += (f"; {results[j].name!r} runs at {early.site.ref} before {results[i].name!r} "
                   f"({late.site.ref}) as well as after it, so the order is not settled")
    if by_absence:
        unread = {i for i in only_general if not _decidedly_absent(steps[i], graph)}  # named only by unread settings
        reason += "".join(f"; {results[i].name!r} is named only by "
                          + ("settings nothing reads" if i in unread else "general words")
                          + f" ({results[i].where})" for i in only_general)
        written = any(r.outcome in (DEAD_STEP, STUB_STEP) for r in results)
        reason += (f"; settled at {score:g}: the steps present and ordered over all steps"
                   + (", the missing ones decidedly absent (no call plays their role, no name holds their words"
                      + (" but settings nothing reads" if unread else "") + ")"
                      if gone else "")
                   + (", a step written where nothing runs it or only a stub counting as a trace (at most a "
                      "quarter of a step)" if written else "")
                   + (f", whatever the {undecided} undecided step(s) turn out to be" if undecided else ""))
    elif partial and graph.runnable and certain_steps and not violated:
        related = [(r.name, name) for r, step in zip(results, steps) if r.outcome == ABSENT
                   and (name := _related_name(step, graph)) not in (None, "no word of its own")]
        reason += "".join(f"; {step!r} may be written inline: {name} holds the words of one of its names"
                          for step, name in related)
        reason += "; what the missing steps weigh in the claim is a judgement, so the score is an estimate"
    if trace_whatever:
        reason += (f"; settled at 0.25: no step runs and some are written but never run or only stubs (a trace), "
                   f"and the {undecided_trace} undecided step(s) would make a quarter of the claim if they ran")
    if not graph.runnable:
        reason += ("; no entry point runs repository code: the library's functions are read as what runs, so an "
                   "order is only an estimate and nothing is called dead")
    elif not sau.complete:
        reason += "; the statement has elements no step covers"
    for i, (first, second, breaker) in sorted(broken.items()):
        reason = (f"order violated: {breaker.site.target.rsplit('.', 1)[-1]} at {breaker.site.ref} runs between the "
                  f"{_ROLE_TEXT.get(site_role(first.site) or '', 'first call')} ({first.site.ref}) and the "
                  f"{_ROLE_TEXT.get(site_role(second.site) or '', 'second call')} ({second.site.ref}) of "
                  f"{results[i].name!r}, undoing the first for the second; " + reason)
    evidence = _evidence(results, [PairOrder(VIOLATED, first, second, breaker)
                                   for first, second, breaker in broken.values()]
                         + [orders[p] for p in violated], index)
    findings = tuple(StepFinding(r.name, r.outcome, r.strength, r.event.site.ref if r.event else (r.where or None),
                                 bool(r.event and r.event.in_loop)) for r in results)
    status = Status.SETTLED if decided else Status.UNRESOLVED
    return Verdict(sau, score, status, reason, RULE, drift if score < 1 else None, evidence, findings,
                   trace=traced_steps(results, entry))


def _settled_with_absent(results: list[StepResult], steps, whole: list[bool], graph: CallGraph
                         ) -> tuple[float, list[int], int, int] | None:
    """The score of a claim some of whose steps are decidedly absent, when it is the same whatever its undecided
    steps turn out to be (``sau.vocabulary.determined_score``, as D1 settles a compound claim), else ``None``.
    Steps are the claim's elements (CONVENTIONS.md, "Ordering"): one found strongly by calls of its own (``whole``)
    holds, one decidedly absent (``_decidedly_absent``) does not, one only written in code no entry point runs or
    only a stub holds at most a trace of itself (between 0 and a quarter of a step: the range covers what a reader
    makes of it), any other (weakly mapped, uncertain, run only by another entry point) may be either. ``None`` as
    well when no step is decidedly absent, dead or a stub (the other settling rules then apply), and when no step
    runs beside a dead one or a stub (the claim is then a trace as a whole: ``check``). Call only when no required
    pair is violated, mixed or unclear: every found step then counts in the claimed order. Returns the score, the
    steps decided absent although names holding words of theirs were seen (general words, or settings nothing reads:
    ``_unread_settings_only``), the number of undecided
    steps and the number of steps decided absent."""
    # a step only written in code no entry point runs, or only a stub, holds no more than a trace of itself: between
    # nothing and a quarter of a step (CONVENTIONS.md, "Stubs and traces"); a test's helper runs under the test runner
    written = [r.outcome in (DEAD_STEP, STUB_STEP) and not is_test_path(r.where.rsplit(":", 1)[0]) for r in results]
    # no call, definition or name of the step, or only names holding general words of it (``accuracy`` in a
    # ``accuracy_t1`` for "compare at equal budget" names no budget): nothing there may be the step
    # and a step named only by general words (test, eval) none of which any call, definition, name or string holds:
    # the code does not run it under any of its names
    # and a step whose only names are settings nothing reads (a sampling temperature bound and never used): no code
    # runs under them
    absent = [(r.outcome == ABSENT or r.outcome == UNCERTAIN and r.mentioned) and _decidedly_absent(step, graph)
              or r.outcome == ABSENT and _related_name(step, graph) == "no word of its own"
              and not _evaluation_named(step, graph)
              or (r.outcome == ABSENT or r.outcome == UNCERTAIN and r.mentioned) and _unread_settings_only(step, graph)
              for r, step in zip(results, steps)]
    if not any(absent) and not any(written) or any(written) and not any(r.outcome == ORDERED for r in results):
        return None
    bounds = [(1.0, 1.0) if r.outcome == ORDERED and full and _own_call(r, step) else (0.0, 0.0) if gone
              else (0.0, 0.25) if trace else (0.0, 1.0)
              for r, step, full, gone, trace in zip(results, steps, whole, absent, written)]
    score = determined_score(bounds)
    return None if score is None else (score, [i for i, (r, gone) in enumerate(zip(results, absent))
                                               if gone and r.outcome == UNCERTAIN], bounds.count((0.0, 1.0)),
                                       sum(absent))


def _own_call(result: StepResult, step: dict) -> bool:
    """Whether some site of a found step is surely that step: a call playing a role the step asks for, a call of the
    repository's own code, or a library call the step's ``functions`` name that is no call every program makes. A
    library call matched only by a keyword (``fft2`` for "power spectral density", inside a model's forward pass), or
    a common one its functions name (``numpy.mean`` of the training losses for "mean and std of the run times":
    ``_COMMON_CALLS``), may be an incidental use of a common operation, which beside decidedly absent steps leaves
    the step undecided."""
    names = step_names(step)
    return any(site_role(e.site) in names.roles or e.site.kind != EXTERNAL
               or _names_call(called := e.site.callee or e.site.target, names.calls)
               and called.rsplit(".", 1)[-1] not in _COMMON_CALLS for e in result.events)


def _decidedly_absent(step: dict, graph: CallGraph) -> bool:
    """Whether nothing in the code may be a step ``_locate`` found no call or definition for (``_related_name``
    finds no name that may hold it)."""
    return _related_name(step, graph) is None


def _evaluation_named(step: dict, graph: CallGraph) -> bool:
    """Whether a step naming an evaluation (``rules/roles.yaml``, ``evaluation_words``: ``test``, ``eval``) may run
    under another of those words: a name the code uses (a display text excepted) holds one (``validate_epoch``)."""
    if not {w for n in _names(step) for w in _words(n)} & _EVALUATION:
        return False
    return any(_EVALUATION & set(_words(text)) for text, mentions in graph.mentions_by_text().items()
               if any(m.kind != "display" for m in mentions))


def _distinctive(step: dict) -> set[str]:
    """The words of a step's functions and identifier-like keywords that may tie a name to it: four letters or more,
    no common call or generic term (``rules/words.yaml``)."""
    return {w for n in _names(step) for w in _words(n.rsplit(".", 1)[-1]) if len(w) >= 4 and w not in _GENERAL}


def _distinctive_groups(step: dict) -> list[frozenset[str]]:
    """Per function or identifier-like keyword of the step that has any, its distinctive words (``_distinctive``)
    less those that only say a function computes (``rules/roles.yaml``, ``action_words``: ``compute`` of
    ``compute_rewards``) when others remain: the words a name must all hold to be related to the step
    (``_related_mentions``). ``best_checkpoint`` gives {best, checkpoint}, ``max_reward`` {reward}."""
    groups = []
    for name in _names(step):
        words = frozenset(w for w in _words(name.rsplit(".", 1)[-1]) if len(w) >= 4 and w not in _GENERAL)
        if words:
            groups.append(words - _ACTIONS or words)
    return groups


def _related_name(step: dict, graph: CallGraph) -> str | None:
    """A name or string the code uses (a display text excepted) holding every word of one of the step's functions or
    identifier-like keywords that is more than a common call or a generic term (``rules/words.yaml``), as
    ``'text' (file:line)``: ``compute_kl_penalised_rewards`` for a step named by ``compute_rewards`` may compute it
    inline; ``stage1_checkpoint_path`` holds only a part of ``best_checkpoint`` and names the saved weights, which
    every trainer has, not the step. ``"no word of its own"`` when the step has only common words to look for (a
    step written under other names cannot be told then); ``None`` when no such name exists."""
    if not _distinctive(step):
        return "no word of its own"
    return next((f"{text!r} ({m.ref})" for text, m in _related_mentions(step, graph)), None)


def _related_mentions(step: dict, graph: CallGraph) -> Iterator[tuple[str, Mention]]:
    """Each name or string the code uses (a display text excepted) holding every distinctive word of one of the
    step's names (``_distinctive_groups``, ``_holds``), with its text, lazily in the call graph's order."""
    groups = _distinctive_groups(step)
    return ((text, m) for text, mentions in graph.mentions_by_text().items()
            if any(_holds(_words(text), group) for group in groups) for m in mentions if m.kind != "display")


def _holds(words: tuple[str, ...], group: frozenset[str]) -> bool:
    """Whether a name's words hold the distinctive words of one of a step's names (``group``): the one word of a
    name of one, as itself; every word of a name of several, each as itself or a longer form of it (``ranking_depth``
    holds ``rank_to_depth``), so that asking for the whole name does not miss it written another way."""
    if len(group) == 1:
        return not group.isdisjoint(words)
    return all(any(word.startswith(w) for word in words) for w in group)


def _step_mentions(step: dict, graph: CallGraph) -> list[Mention]:
    """The names and strings the code uses (display texts excepted) whose words hold the words of one of the step's
    functions or identifier-like keywords (``sampling_temperature`` for a keyword ``temperature``): where the step
    may be written under a name of its own, although no call maps it."""
    runs = [w for n in _names(step) if (w := _words(n.lower().rsplit(".", 1)[-1]))]
    return [m for text, mentions in graph.mentions_by_text().items()
            if any(_contains(_words(text), run) for run in runs) for m in mentions if m.kind != "display"]


def _unread_settings_only(step: dict, graph: CallGraph) -> bool:
    """Whether every name or string that may hold a step no call maps (``_step_mentions``, and the names holding a
    distinctive word of it that ``_related_name`` looks for) belongs to a setting nothing reads: a name bound to a
    literal or to a configuration read (``self.sampling_temperature = config.get("sampling_temperature", 0.7)``,
    ``_setting``), with its key strings, on the binding's own line, and no other line of the code using that name
    (a display excepted), or the key of a constant table (``{"sampling_temperature": 0.7}``). A knob nobody reads
    runs nothing: the step is not written under it (issue 16). ``False``
    when there is no such name, or any of them is anything else (a computed value, a parameter default, a setting
    handed to a call, which may run the step with it, or an attribute set on another object than the code's own:
    ``_sets_other_object``)."""
    by_text = graph.mentions_by_text()
    mentions = _step_mentions(step, graph) + [m for _, m in _related_mentions(step, graph)]
    settings = {m.ref: m.text for m in mentions if _setting(m) and not _sets_other_object(m, graph)}
    # a key of a constant table (``CONFIG = {"sampling_temperature": 0.7}``) is a setting too: any other line
    # using its string is a mention of its own, which must then be a setting's binding
    if not settings or any(m.ref not in settings and not (m.kind == "string" and m.context == "key:literal")
                           for m in mentions):
        return False
    # the bound names, read anywhere else (``self.sampling_temperature`` in a call): the setting is used
    names = set(settings.values())
    return not any(m.ref not in settings or settings[m.ref] != name
                   for text, found in by_text.items()
                   for name in names if text == name or text.endswith("." + name) or text.startswith(name + ".")
                   for m in found if m.kind != "display" and not (m.kind == "string" and m.context == "key:literal"))


def _sets_other_object(binding: Mention, graph: CallGraph) -> bool:
    """Whether a binding mention assigns an attribute of another object than the code's own (``self``, ``cls``):
    ``param.requires_grad = False``, ``module.weight.data = w`` (the target, a dotted name ending in the bound name
    on the binding's line, not one the value reads). The assignment changes that object, whose own code (a
    library's) reads the attribute, so it runs a step (a freeze), not a setting nothing reads."""
    suffix = "." + binding.text
    return any(m.kind == "name" and m.ref == binding.ref and m.text.endswith(suffix)
               and m.text.split(".", 1)[0] not in ("self", "cls") and m.text not in binding.reads
               for m in graph.mentions.get(binding.scope, ()))


def _setting(mention: Mention) -> bool:
    """Whether a mention binds a name to a setting: a literal (``bind:literal``) or a value read only from the
    run's configuration (``rules/roles.yaml``, ``config_words``: ``config["training"]["beta"]``,
    ``config.get("x", 0.7)``, a dictionary ``get`` on such a read)."""
    if mention.kind != "binding":
        return False
    if mention.context == "bind:literal":
        return True
    if mention.context != "bind:computed" and not mention.context.startswith("bind:call:"):
        return False
    reads = [r for r in mention.reads if r.rstrip("()") not in ("", "get")]
    return bool(reads) and all((words := _words(r.removeprefix("self."))) and words[0].lower() in _CONFIG_WORDS
                               for r in reads)


def _shared_steps(results: list[StepResult], found: list[int]) -> set[int]:
    """The found steps every site of which maps another found step too (``train_stages(...)`` for "pretrain" and
    "fine-tune"): one call does not show two steps, so each such step weighs half in the estimate."""
    sites = {i: {e.position for e in results[i].events} for i in found}
    return {i for i in found if sites[i] and sites[i] <= set().union(*(sites[j] for j in found if j != i))}


def _best_trace(steps, traces: dict[str, list[Event]], stubs: dict[str, str] | None = None,
                trainers: frozenset[str] = frozenset(), setup: frozenset[tuple[str, str]] = frozenset()
                ) -> tuple[str | None, list[StepResult]]:
    """The entry point whose trace maps the most steps (strongly first), and each step's first and last site in it
    (strong sites where there are any). A site calling a stub function (``stubs``: ``stub_functions``) runs no
    step: a step mapped only there is a ``stub``, one mapped there besides other sites is ``partly_stub``. A call
    building a component in a constructor (``setup``: ``setup_calls``) maps no step that does not ask for building."""
    stubs = stubs or {}
    best, best_key, best_results = None, None, [StepResult(s["name"], ABSENT) for s in steps]
    for entry, events in traces.items():
        results = []
        # a step named only by training words is the run's training when the run trains one thing: its optimizer
        # steps in one body (a P2VAE trainer and an FMT trainer leave "joint finetuning" to a reader)
        one_training = len({e.site.scope for e in events if site_role(e.site) == "optimizer_step"}) == 1
        for step in steps:
            strong: list[Event] = []
            weak: list[Event] = []
            stubbed: list[Event] = []
            trained: list[Event] = []
            names = step_names(step)
            repeated = _repeated(step)
            for event in events:
                strength = match_site(names, event.site)
                if strength is not None and _sets_up(event.site, setup, step["name"]):
                    continue  # self.gru = self._build_gru() in __init__: the GRU runs later, where it is called
                if strength == WEAK and one_training and _trains(names, step["name"], event.site, trainers):
                    trained.append(event)  # train_moe_pot runs backward and optimizer steps: it is the training
                if strength is not None and event.site.callee in stubs:
                    stubbed.append(event)  # the step's function is a placeholder: calling it runs nothing
                    continue
                if strength == STRONG and repeated and not event.in_loop:
                    strength = WEAK  # "train the variants": one call outside a loop trains one thing
                if strength == STRONG and any(s.kind == UNRESOLVED for s in event.path[:-1]):
                    strength = WEAK  # reached through a method guessed by its name (_only_method): only likely
                if strength == STRONG:
                    strong.append(event)
                elif strength == WEAK and not strong:
                    weak.append(event)
            # the training named only by training words, where nothing maps the step strongly (not one call outside
            # any loop for a step over several things, nor one reached through a guessed method)
            lifted = [e for e in trained if not (repeated and not e.in_loop)
                      and not any(s.kind == UNRESOLVED for s in e.path[:-1])] if not strong else []
            if lifted:
                strong, weak = lifted, []
            # a step asking for a call role (fit, optimizer step) is where calls of that role run, when any does,
            # and where the repository functions it names run: a library name it also lists (train_test_split
            # beside fit) may be a preparation run before it
            by_role = [e for e in strong if names.roles and site_role(e.site) in names.roles]
            if by_role:
                role_sites = {e.position for e in by_role}
                by_role = [e for e in strong if e.position in role_sites or e.site.kind in (CALL, INSTANCE, INSTANTIATE)]
            # a class the step names runs where its object's main action is called: its construction only set it up
            run_classes = {(e.site.callee or "").rpartition(".")[0] for e in strong
                           if _runs_built_class(e.site, names.functions)}
            if not by_role and run_classes:
                strong = [e for e in strong if not (e.site.kind == INSTANTIATE and e.site.callee in run_classes)]
            # a step recording a value is where a collection named for it is filled, when any is: the value's
            # computation ran before
            by_record = [e for e in strong if _fills_named(e.site, names.records)]
            chosen = by_role or by_record or strong or weak
            referenced = next((e.site.ref for e in events if not chosen and _referenced(names, e.site)), "")
            if referenced:
                # only a value in a registry or a callback: which of them runs is chosen at run time
                results.append(StepResult(step["name"], UNCERTAIN, where=referenced, referenced=referenced))
                continue
            if not chosen and stubbed:
                results.append(StepResult(step["name"], STUB_STEP, stubbed[0], None,
                                          where=stubs[stubbed[0].site.callee or ""], events=tuple(stubbed)))
                continue
            results.append(StepResult(step["name"], ORDERED if chosen else ABSENT, chosen[0] if chosen else None,
                                      STRONG if strong else WEAK if weak else None, events=tuple(chosen),
                                      partly_stub=stubs[stubbed[0].site.callee or ""] if stubbed and chosen else ""))
        key = (sum(r.strength == STRONG for r in results), sum(r.event is not None for r in results))
        if best_key is None or key > best_key:
            best, best_key, best_results = entry, key, results
    return best, best_results


def _into_shared_body(results: list[StepResult], steps, trace_events: list[Event], graph: CallGraph) -> None:
    """Move, in place, a step mapped only outside the body where the claim's other steps run to a computation in that
    body binding a variable named for it. The claim's bodies are those the paths of every other mapped step pass
    through, two at least (a training step calling the sampling, the encoder and the target); a step none of whose
    sites' paths does (a loss function of another trainer) yet which that body computes inline (``loss_term = ...``,
    ``total_loss += 0.5 * torch.mean(loss_term ** 2)``) is placed at the calls computing such bindings: a variable
    whose name's words hold one of the step's names, bound or augmented with a call's result there (the binding's
    ``reads``, ``extractors.callgraph.model.Mention``), computed from the body's earlier values. Strongly: the name
    with the body every other step runs in and the data it is computed from tell what the value is, as a function's
    name would. A step asking for a call role is left where that role runs."""
    mapped = [i for i, r in enumerate(results) if r.outcome == ORDERED and r.events]
    if len(mapped) < 3:
        return
    reached = {i: {site.scope for e in results[i].events for site in e.path} for i in mapped}
    for i in mapped:
        names = step_names(steps[i])
        if names.roles or not names.runs:
            continue
        counts = Counter(scope for j in mapped if j != i for scope in reached[j])
        bodies = {scope for scope, n in counts.items() if n == len(mapped) - 1} - reached[i]
        if not bodies:
            continue
        found = tuple(e for e in trace_events if e.site.scope in bodies and _binds_named(e.site, names, graph))
        if found:
            results[i].events, results[i].event, results[i].strength = found, found[0], STRONG


def _binds_named(site: CallSite, names: _StepNames, graph: CallGraph) -> bool:
    """Whether ``site``'s result is bound (or added) to a variable whose name's words hold one of ``names``'
    runs, not after a word of purpose (``loss_term`` for a step named by ``loss``, not ``latent_for_loss``:
    ``rules/roles.yaml``, ``purpose_words``), on the site's line in its scope, from a variable bound above it
    in that scope."""
    called = f"{site.written or site.target}()"
    mentions = graph.mentions.get(site.scope, ())
    bound = {m.text for m in mentions if m.kind == "binding" and m.line < site.line}

    def named(text: str) -> bool:  # latent_for_loss is a latent made for the loss, not the loss
        words = _words(text)
        return any(words[k:k + len(run)] == run and (k == 0 or words[k - 1] not in _PREPOSITIONS)
                   for run in names.runs for k in range(len(words)))
    # the value computed from the body's earlier values (loss_term from predicted_g_latent), not an initial zero
    # (total_loss = torch.tensor(0.0, device=self.device)) set before the computation
    return any(m.kind == "binding" and m.line == site.line and m.file == site.file and called in m.reads
               and named(m.text) and bound & set(m.reads)
               for m in mentions)


# a short label of letters then digits ("G1", "TD7") names one variant of a thing among its numbered siblings
_VARIANT = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{1,3})([0-9]+)(?![0-9])")


def _labels(text: str) -> set[tuple[str, str]]:
    return {(letters.lower(), number) for letters, number in _VARIANT.findall(text.replace("_", " "))}


def _keep_own_variant(results: list[StepResult], steps, flows: DataFlows, trace_events: list[Event]) -> None:
    """Drop, in place, the sites of a step named for a labelled variant ("G1 sigmoid gate") that run only under a
    test selecting a sibling variant of that label (``if cfg.position == GatingPosition.G4_QUERY:``, same letters,
    another number, the step's own label not tested; ``DataFlows.guards``, on the site or a call leading to it):
    they are that variant's, not the step's, whether they run before or after its neighbours. A step all of whose
    sites are such runs where ``trace_events`` (the chosen trace) call the function holding a site with no sibling
    tested: a trace expands a function once, at its first call, so that site runs again for the other call
    (``self.gate_G1(x)`` after ``self.gate_G4(q)``, both running the one gate module), and the step is placed at
    those calls; with none, the step is uncertain (the variant it names is not seen running, nor can it be called
    absent)."""
    calls_of: dict[str, list[Event]] | None = None
    for result, step in zip(results, steps):
        own = _labels(step["name"])
        if result.outcome != ORDERED or not own:
            continue
        if calls_of is None:  # made once per claim
            calls_of = _calls_by_callee(trace_events)
        letters = {letter for letter, _ in own}

        def sibling(site: CallSite) -> bool:
            tested = set().union(*(_labels(t) for t in flows.guards(site)))
            return not (tested & own) and any(letter in letters for letter, _ in tested)

        def guarded(event: Event) -> int | None:  # the first call of the path run for a sibling, if any
            if any(own & _labels(t) for site in event.path for t in flows.guards(site)):
                return None
            return next((k for k, site in enumerate(event.path) if sibling(site)), None)

        def called_elsewhere(event: Event, k: int) -> list[Event]:
            entered = event.path[k].callee
            if k == len(event.path) - 1 or entered is None:
                return []
            return [e for e in calls_of.get(entered, ()) if e.site is not event.path[k]
                    and not sibling(e.site) and not any(sibling(site) for site in e.path)]

        marks = [(e, guarded(e)) for e in result.events]
        kept = tuple(e for e, k in marks if k is None)
        if kept and len(kept) < len(result.events):
            result.events, result.event = kept, kept[0]
        elif not kept:
            # the calls of the same function where no sibling is tested run the step (the trace expanded it at the
            # sibling's call only); with none, only a sibling variant runs it: not ordered there, either way
            again = sorted({e.position: e for event, k in marks if k is not None
                            for e in called_elsewhere(event, k)}.values(), key=lambda e: e.position)
            if again:
                result.events, result.event = tuple(again), again[0]
            else:
                result.outcome, result.where = UNCERTAIN, result.events[0].site.ref
                result.events, result.event, result.strength = (), None, None


def _confirm_by_flow(results: list[StepResult], steps, flows: DataFlows) -> None:
    """Map strongly, in place, the weakly mapped steps lying between strongly mapped ones in the claimed order,
    where data flow shows one site per step on one path: from the strong step before the first weak one to the
    strong step after the last, every step running and each site feeding the next in one scope
    (``rules/d4_flow.py``; ``attn = softmax(q @ k.T)``, ``out = (attn @ v).reshape(...)``, ``self.o_proj(out)``
    for "attention, then concatenate heads, then output projection"). A common call on that path (``reshape``) is
    the step there, not any call of its name elsewhere; the step is then placed at that site only. One path for
    the whole stretch, so that each strong step in it is one site, not a site before one weak step and another
    after the next. A site stands for its step in a scope through the call of that scope that runs it
    (``Event.path``). A step over several things (``repeated_step_words``: "run the sampler for several T") stays
    weak at a chain site in no loop: data flow shows which call it is, not that one call is a sweep."""
    def runs(i: int) -> bool:
        return results[i].outcome == ORDERED and not results[i].partly_stub

    def strong(i: int) -> bool:
        return runs(i) and results[i].strength == STRONG

    k = 0
    while k < len(results):
        if not runs(k):
            k += 1
            continue
        end = k
        while end + 1 < len(results) and runs(end + 1):
            end += 1  # k..end: a stretch of running steps
        weak = [i for i in range(k, end + 1) if not strong(i)]
        if weak and weak[0] > k and weak[-1] < end:
            first, last = weak[0] - 1, weak[-1] + 1
            chain = _flow_chain([results[i].events for i in range(first, last + 1)], flows)
            for i, event in zip(range(first, last + 1), chain or ()):
                # the same guard as in _best_trace: one call outside any loop runs one thing, not several
                if i in weak and not (_repeated(steps[i]) and not event.in_loop):
                    results[i].strength, results[i].event, results[i].events = STRONG, event, (event,)
        k = end + 1


def _repeated(step: dict) -> bool:
    """Whether the step's name says it runs over several things (``repeated_step_words``: "train the variants")."""
    return bool(set(_words(step["name"])) & _REPEATED)


def _flow_chain(events: list[tuple[Event, ...]], flows: DataFlows) -> list[Event] | None:
    """One event per step (``events`` per step, in the claimed order) such that, in one scope, each feeds the
    next (``DataFlows.feeds`` of the calls of that scope that run them) or, running before it, joins it in feeding
    the step after (``_joins``: the gated values and the attention weights a softmax returns meet in the product the
    heads' reshape joins), the earliest such chain of the first scope that has one (scopes sorted by name); else
    ``None``."""
    def at(event: Event, scope: str) -> CallSite | None:
        return next((site for site in event.path if site.scope == scope), None)

    scopes = sorted(set.intersection(*({site.scope for e in step for site in e.path} for step in events)))
    for scope in scopes:
        layers = [[(e, s) for e in step if (s := at(e, scope)) is not None] for step in events]
        # backwards: the sites of each step from which a chain reaches the last step
        reach = [layers[-1]]
        for k in range(len(layers) - 2, -1, -1):
            after = reach[1] if len(reach) > 1 else []
            reach.insert(0, [a for a in layers[k] if any(flows.feeds(a[1], b[1]) or _joins(a, b, after, flows)
                                                         for b in reach[0])])
        if not reach[0]:
            continue
        chain = [min(reach[0], key=lambda pair: pair[0].position)]
        allowed: list | None = None  # the sites a join asks the next step to be at
        for k, layer in enumerate(reach[1:], start=1):
            after = reach[k + 1] if k + 1 < len(reach) else []
            options = [b for b in layer if allowed is None or b in allowed]
            fed = [b for b in options if flows.feeds(chain[-1][1], b[1])]
            joined = [b for b in options if not fed and _joins(chain[-1], b, after, flows)]
            pick = min(fed or joined, key=lambda pair: pair[0].position)
            allowed = None if fed else [c for c in after if flows.feeds(chain[-1][1], c[1])
                                        and flows.feeds(pick[1], c[1])]
            chain.append(pick)
        return [e for e, _ in chain]
    return None


def _joins(a: tuple[Event, CallSite], b: tuple[Event, CallSite], after: list[tuple[Event, CallSite]],
           flows: DataFlows) -> bool:
    """Whether the call ``a`` runs before ``b`` and both feed one call of the step after them (``after``): neither
    result reaches the other, but they meet there, in that order (the value gate's output and the softmax's
    attention weights, both multiplied into what the heads' reshape joins). Not two arms of one ``if``/``try`` or of
    one call (``_other_arms``: ``method(losses)`` running ``CrcMethod``, then ``HpdMethod``, over a loop's objects):
    the arms of one call are that one call, and a pass runs one arm of an ``if``, so neither meets the other."""
    return a[0].position < b[0].position and not _other_arms(a[1], b[1]) and any(
        flows.feeds(a[1], c[1]) and flows.feeds(b[1], c[1]) for c in after)


def _switched_off(results: list[StepResult], steps, graph: CallGraph, events: list[Event]) -> None:
    """Make uncertain a step the chosen trace maps only to calls of other names than the functions the spec names
    for it, while a call of one of those functions sits in an `if` arm no run takes in code the trace runs
    (``CallGraph.dead_branches``): the step as written is switched off, and whether the calls that run are the step
    is a reader's call (``wise_interpolate_head`` under ``if zeroshot_head is not None``, never passed, beside a live
    ``_build_zeroshot_weights`` matched by the keyword ``zeroshot``)."""
    scopes = {event.site.scope for event in events}
    arms = [(f"{b.scope}.<branch:{b.line}>", b) for b in graph.dead_branches if b.scope in scopes]
    if not arms:
        return
    for result, step in zip(results, steps):
        functions = [_words(f.rsplit(".", 1)[-1]) for f in step.get("functions", ()) if f]
        if result.outcome != ORDERED or not functions or any(_names_function(e.site, functions) for e in result.events):
            continue
        written = next((site for node, _ in arms for site in graph.callees_in_order(node)
                        if _names_function(site, functions)), None)
        if written is not None:
            result.outcome, result.where, result.event, result.events = UNCERTAIN, written.ref, None, ()
            result.switched_off = graph.graph.nodes[graph.branch_at(written.where, written.line)]["why"]


def _calls_by_callee(events: list[Event]) -> dict[str, list[Event]]:
    """The calls of ``events`` (a trace) by the function or class they call (``CallSite.callee``), in trace order;
    calls whose callee is unknown are left out."""
    calls: dict[str, list[Event]] = {}
    for event in events:
        if event.site.callee is not None:
            calls.setdefault(event.site.callee, []).append(event)
    return calls


def _repeats(results: list[StepResult], events: list[Event]) -> dict[int, tuple[Event, ...]]:
    """Per ordered step (by index), the later calls in ``events`` (the chosen trace) of a function holding one of its
    sites, which may run the step again: a trace expands a function once, at its first call, so a step found inside
    it (``clopper_pearson_ci`` in ``_print_table``) shows only where the function was first called (after the first
    of three experiments), not at its other calls (after the third, whose split the claim puts before the report).
    Not such a call: a construction (``_constructs``: setting an object up is not running the step) or a call whose
    callee is only guessed (``_only_method``). A later call need not run the step (an ``if`` in the function, a
    cached result, a helper of the step called for another purpose), so these calls only keep a violation from
    being settled (``_undone_by_repeat``); they never show that an order holds."""
    calls = _calls_by_callee(events)
    found: dict[int, tuple[Event, ...]] = {}
    for index, result in enumerate(results):
        if result.outcome != ORDERED or not result.events:
            continue
        have = {e.position for e in result.events}
        again: dict[int, Event] = {}
        for event in result.events:
            for above, inner in zip(event.path, event.path[1:]):
                for call in calls.get(inner.scope, ()):  # a call running the body: the callee is the body
                    if call.site is not above and call.position not in have and call.site.kind in _EXPANDED \
                            and not _constructs(call.site):
                        again[call.position] = call
        if again:
            found[index] = tuple(again[k] for k in sorted(again))
    return found


def _undone_by_repeat(order: PairOrder, events_i: tuple[Event, ...], repeats_j: tuple[Event, ...],
                      repeats_i: tuple[Event, ...]) -> PairOrder:
    """A violated pair (every site of j before any of i) with ``repeat`` set to the first later call that may run j
    again (``repeats_j``, from ``_repeats``) after i's first site, in sequence with it (not in another arm of an
    ``if``, not inside its call), and not a call that may run i again too (``repeats_i``: a function running both
    steps in the violated order runs them in that order again), and with ``held_elsewhere`` set: the claimed order
    may hold there, so the violation is not settled (``_unclear``), while the estimate still counts the pair as
    violated, since that call need not run j. ``order`` is returned unchanged otherwise (not violated, broken by a
    call between the steps, or already held elsewhere)."""
    if order.state != VIOLATED or order.broken_by is not None or order.held_elsewhere or not events_i:
        return order
    first = min(events_i, key=lambda e: e.position)
    both = {r.position for r in repeats_i}
    later = next((r for r in repeats_j if r.position > first.position and r.position not in both
                  and relation(first, r) == SEQUENTIAL), None)
    return order if later is None else replace(order, held_elsewhere=True, repeat=later)


def _names_function(site: CallSite, functions: list[tuple[str, ...]]) -> bool:
    """Whether ``site`` calls a function named like one of the spec's ``functions`` (their words, in order, within the
    callee's last name)."""
    called = _words((site.callee or site.target).rsplit(".", 1)[-1])
    return any(part and _contains(called, part) for part in functions)


def _locate(result: StepResult, step: dict, graph: CallGraph, traces: dict, entry: str | None,
            setup: frozenset[tuple[str, str]] = frozenset()) -> None:
    """For a step not strongly in the chosen trace: is it run by another entry point, only in dead code,
    in code that may be live, or nowhere?"""
    names = step_names(step)
    entries = {e.node for e in graph.entry_points}
    for other, events in traces.items():
        if other == entry or other not in entries:
            continue  # a hook's own trace is no other entry point
        hit = next((e for e in events if match_site(names, e.site) == STRONG
                    and not _sets_up(e.site, setup, step["name"])), None)
        if hit is not None:
            if result.outcome != ORDERED:
                result.outcome, result.where = ELSEWHERE, hit.site.ref
            return
    if result.outcome == ORDERED or result.referenced:
        return  # weakly mapped in the trace (uncertain through its strength), or chosen at run time
    wanted = {n.lower().rsplit(".", 1)[-1] for n in _names(step)}
    if not wanted:  # only phrases or numbers to look for: nothing a call could be matched with
        result.outcome, result.where = UNCERTAIN, "no function or identifier-like keyword to look for"
        return
    places = [(q, f"{info.file}:{info.line}") for q, info in graph.functions.items() if info.name.lower() in wanted]
    places += [(q, f"{file}:{line}") for q, (file, line, _) in graph.classes.items()
               if q.rsplit(".", 1)[-1].lower() in wanted]
    places += [(scope, site.ref) for scope in graph.graph.nodes for site in graph.callees_in_order(scope)
               if match_site(names, site) is not None]
    if not places:
        mentions = _step_mentions(step, graph)
        if (mentions and all(graph.liveness(m.scope) == DEAD for m in mentions)
                and any(m.kind == "definition" and _distinctive(step) & set(_words(m.text)) for m in mentions)):
            # its names only in code no entry point reaches, one a function or class named with a word of its own
            # (def extend_rope_base(...) that nothing calls): written, never run, like a dead function named after
            # the step; a general word ("chunk") or a variable (num_frames in an attention function) shows nothing
            result.outcome, result.where = DEAD_STEP, min(mentions, key=lambda m: (m.file, m.line)).ref
            return
        mention = mentions[0] if mentions else None
        result.outcome = UNCERTAIN if mention else ABSENT  # a keyword used as a name: the step may hide there
        result.where, result.mentioned = (mention.ref, True) if mention else ("", False)
        return
    states = [graph.liveness(node) for node, _ in places]
    result.outcome = DEAD_STEP if all(state == DEAD for state in states) else UNCERTAIN
    live = [ref for (_, ref), state in zip(places, states) if state == LIVE]
    result.where = live[0] if live and result.outcome == UNCERTAIN else places[0][1]


def _shown_sites(found: list[int], orders: dict) -> dict[int, Event]:
    """Per found step, the site that orders its required pairs (``orders``: ``pair_order`` by pair): its site in the
    pair with its nearest earlier partner, else in the pair with its nearest later partner, else its first site is
    kept (absent from the result). A verdict shows these, so that the steps it lists are the ones it ordered."""
    shown: dict[int, Event] = {}
    for k in found:
        earlier = [i for i in found if i < k and (i, k) in orders]
        later = [j for j in found if j > k and (k, j) in orders]
        if earlier:
            shown[k] = orders[(max(earlier), k)].second
        elif later:
            shown[k] = orders[(k, min(later))].first
    return shown


def _pairs(strict, n: int) -> list[tuple[int, int]]:
    """The ordered step pairs a claim requires: with ``strict: true`` the steps form a total order, so every pair
    i < j (checking only neighbours would pass 2, 0, 1 for the claim 0, 1, 2 when step 1 repeats late)."""
    if strict is True:
        return list(combinations(range(n), 2))
    if strict is False:
        return []
    return [tuple(p) for p in strict]


def _largest_consistent(found: list[int], orders: dict, pairs, total_order: bool,
                        weight: Callable[[int], float] = lambda i: 1.0) -> float:
    """The weight of the heaviest set of found steps whose required pairs hold (``orders``: ``pair_order`` of each
    pair; held, or held as well as violated, counts, and so does a pair violated only in two arms of one choice,
    ``PairOrder.arms``; with ``strict: true`` the claim is a total order, so every
    pair i < j of the set counts); ``weight(i)`` a step's weight (1 by default: the set's size). Exhaustive up to 12
    found steps, greedy beyond."""
    def consistent(chosen) -> bool:
        members = set(chosen)
        checks = combinations(sorted(members), 2) if total_order else (p for p in pairs if set(p) <= members)
        # one site for both: see _unclear; two arms of one choice beside sites run in one pass order nothing
        return all(orders[p].state != VIOLATED or orders[p].arms for p in checks)

    if len(found) > 12:
        chosen: list[int] = []
        for i in sorted(found, key=lambda i: -weight(i)):
            if consistent([*chosen, i]):
                chosen.append(i)
        return sum(weight(i) for i in chosen)
    best = 0.0
    for size in range(len(found), 0, -1):
        best = max([best, *(sum(weight(i) for i in c) for c in combinations(found, size) if consistent(c))])
    return best


def _unclear(order: PairOrder, step_i: dict, step_j: dict) -> bool:
    """Whether the code gives no order for a pair of steps (``step_i``, ``step_j``: spec steps): both map to one
    call (``train(stage=...)`` for every training stage), their closest sites lie in two arms of one if/try, one runs
    inside the other's call (unless the outer step's own calls in there order them: ``PairOrder.by_inner``), or one
    only constructs an object (``PPO(...)``, ``self.idwt = IDWT(...)`` in an ``__init__``: setting up a step is not
    running it; ``_set_up``): the same guards whether the pair holds or is violated (issue 16); or, for a violation,
    i runs before j at other sites (``held_elsewhere``)."""
    if order.by_inner:
        return False
    if order.first is order.second or order.inside:
        return True
    kind = relation(order.first, order.second)
    if kind == EXCLUSIVE:
        return True
    # the same guards both ways (issue 16): what keeps a violation from settling keeps "holds" from settling too
    return (kind == NESTED or _set_up(order.second.site, step_j) or _set_up(order.first.site, step_i)
            or (order.state == VIOLATED and order.held_elsewhere and order.broken_by is None))


def _set_up(site: CallSite, step: dict) -> bool:
    """Whether a site of a step only constructs an object (``_constructs``) that is not the step itself
    (``_built_step``): setting a step up is not running it."""
    return _constructs(site) and not _built_step(site, step)


def _built_step(site: CallSite, step: dict) -> bool:
    """Whether a construction is the step itself: the step's name asks for building (``rules/roles.yaml``,
    ``build_words``: "build GPT and nGPT") and the site builds a class its ``functions`` name (``GPT(config)``),
    outside any ``__init__`` (a part an object's constructor sets up, ``Downsample(...)`` for "build pyramid", is no
    step built)."""
    return (_constructs(site) and bool(set(_words(step["name"])) & _BUILD_WORDS)
            and (site.callee or site.target).rsplit(".", 1)[-1].lower() in step_names(step).functions
            and not site.scope.endswith(".__init__"))


def _ordered_inside(order: PairOrder, events_i: tuple[Event, ...], events_j: tuple[Event, ...],
                    steps: tuple[dict, dict], trace_events: list[Event]) -> PairOrder | None:
    """For a pair of steps (``steps``: spec steps i and j) left unordered because one runs inside the other's call
    (``order.inside``, or its closest sites nested), the order the outer step's own calls inside that call give, over
    each such nesting of a site of one step (``events_i``, ``events_j``) inside a call of the other
    (``_inner_order``; ``trace_events`` the chosen trace): a ``PairOrder`` with ``by_inner``, held when some
    nesting holds and none shows the reverse, violated when some nesting shows the reverse in the literal order of
    one function body (``_body_order``: ``_init_weights`` normalising before it draws the weights) and none holds
    or shows it otherwise, else ``None``: a call order against the claim read across calls, or involving a hook
    registered before the backward pass it accumulates, is no violation."""
    if order.first is order.second or not (order.inside or relation(order.first, order.second) == NESTED):
        return None
    inside: dict[int, list[Event]] = {}  # the events run inside each outer call, found once
    names = (step_names(steps[0]), step_names(steps[1]))
    held = violated = None
    for ei in events_i[:_PAIR_EVENTS]:
        for ej in events_j[:_PAIR_EVENTS]:
            if ei is ej or relation(ei, ej) != NESTED:
                continue
            outer = ei if len(ei.path) < len(ej.path) else ej
            if outer.position not in inside:
                inside[outer.position] = _run_inside(outer, trace_events)
            found = _inner_order(ei, ej, steps, names, inside[outer.position])
            if found is not None and found.state != HOLDS:
                if not found.in_body:
                    return None
                violated = violated or found
            held = held or (found if found is not None and found.state == HOLDS else None)
    return None if held and violated else held or violated


def _run_inside(outer: Event, trace_events: list[Event]) -> list[Event]:
    """The events of ``trace_events`` (the trace ``outer`` is in) run inside the call ``outer``: those right after it
    whose path passes through its site (a trace expands a call depth first, where it happens)."""
    depth = len(outer.path)
    inside = []
    for event in trace_events[outer.position + 1:]:
        if len(event.path) <= depth or event.path[depth - 1] is not outer.site:
            break
        inside.append(event)
    return inside


def _inner_order(ei: Event, ej: Event, steps: tuple[dict, dict], names: tuple[_StepNames, _StepNames],
                 inside: list[Event]) -> PairOrder | None:
    """How a site of one step running inside the other step's call (``ei``, ``ej``: nested sites of steps i and j,
    ``steps`` and ``names`` theirs, ``step_names``; ``inside``: the events run inside the outer call) orders the
    pair: by the outer step's own sites in that call (any strength; not the calls leading to the inner site, nor
    calls inside it, nor constructions), ``holds`` when they all run before the inner site and the outer step is i,
    or all after it and the outer step is j, ``violated`` for the reverse; with none, for an outer step that builds a
    class (``_built_step``), ``holds`` when the inner site runs in that class's constructor after every construction
    there (the layers built, then initialised). ``None`` when that shows nothing, or the inner site is no call surely
    of its step (a weak match, a construction)."""
    outer_is_i = len(ei.path) < len(ej.path)
    outer, inner = (ei, ej) if outer_is_i else (ej, ei)
    outer_names, inner_names = names if outer_is_i else names[::-1]
    if match_site(inner_names, inner.site) != STRONG or _constructs(inner.site):
        return None
    above = {id(site) for site in inner.path}
    own = [e for e in inside if id(e.site) not in above and not _constructs(e.site)
           and not any(site is inner.site for site in e.path) and match_site(outer_names, e.site) is not None]
    if own:
        before = all(e.position < inner.position for e in own)
        if before == all(e.position > inner.position for e in own):
            return None  # the outer step's calls run on both sides of the inner one
        shown = max(own, key=lambda e: e.position) if before else min(own, key=lambda e: e.position)
        state = HOLDS if before == outer_is_i else VIOLATED
        return PairOrder(state, *((shown, inner) if outer_is_i else (inner, shown)), by_inner=True,
                         in_body=_body_order(inner.path[len(outer.path)], own, outer_names))
    if outer_is_i and _built_step(outer.site, steps[0]):
        entered = inner.path[len(outer.path)]  # the constructor's call leading to the inner site
        at = next((e for e in inside if e.site is entered), inner)
        if all(e.position < at.position for e in inside if e.site.scope == entered.scope and _constructs(e.site)):
            return PairOrder(HOLDS, outer, inner, by_inner=True)
    return None


def _body_order(entered: CallSite, own: list[Event], outer_names: _StepNames) -> bool:
    """Whether the order of the inner step's site against the outer step's own sites ``own`` is the literal order
    of one function body that runs each call where it stands: ``entered`` (the inner site, or the call of the outer
    call's body leading to it) and the sites of ``own`` all sites of one scope, none in an arm, not ``entered`` and
    some of the others in loops (one loop would alternate them), each of the outer step surely its step (a strong
    match, or a call whose own name is one of the step's names: ``normal_`` for the keyword ``normal_``, not ``std``
    inside ``torch.std``), and none a call that only registers something to run later (``rules/roles.yaml``
    ``deferring_words``: ``register_hook``, an ``add_callback``): ``_init_weights`` calling ``normalize_weights()``
    and then drawing the weights with ``normal_`` runs them in that order, a hook registered before the backward pass
    it accumulates does not."""
    sites = [entered, *(e.site for e in own)]
    return (len({site.scope for site in sites}) == 1 and not any(site.branch for site in sites)
            and not (entered.in_loop and any(e.site.in_loop for e in own))  # a shared loop alternates them
            and all(match_site(outer_names, e.site) == STRONG or _named_exactly(outer_names, e.site) for e in own)
            and not any(set(words(site.target.rsplit(".", 1)[-1])) & _DEFERRING for site in sites))


def _named_exactly(names: _StepNames, site: CallSite) -> bool:
    """Whether the name ``site`` calls, its last part, is one of the step's own names (``_StepNames.tails``)."""
    called = site.target if site.callee is None else site.callee
    return called.rsplit(".", 1)[-1].lower() in names.tails


_DEFERRING = roles.words("deferring_words")
HOLDS, VIOLATED, MIXED = "holds", "violated", "mixed"
_PAIR_EVENTS = 200  # sites per step compared pairwise; beyond, the first ones (a bound for generated code)


@dataclass(frozen=True)
class PairOrder:
    """How two steps are ordered where they run closest: ``state`` ``holds`` (i before j), ``violated`` (j before
    i), ``mixed`` (both), or ``holds`` with ``first is second`` when one call maps both; ``first`` and ``second``
    the sites of i and j that show it (for a violation, the j site before the i site, unless ``broken_by`` is the
    call between them that breaks the order: ``_breaker``); ``inside`` when the closest sites of all were one
    inside the other's call, so that the order shown comes from sites further apart and settles nothing;
    ``held_elsewhere`` when some site of i runs before some site of j, wherever they are (a call of one step that
    holds the other step and sites of its own aside: ``_containers``), or when a later call that may run j again
    runs after i (``repeat``, that call: ``_undone_by_repeat``); ``arms`` when the sites shown lie in two arms of one
    ``if``/``try`` or class choice while other sites of the two steps run in one pass (nested or in sequence): they
    order nothing, not even for the estimate (``_largest_consistent``); ``by_inner`` when the order comes from the
    outer step's own calls inside the other's call (``_ordered_inside``), which settles it; ``in_body`` when that
    order is the literal order of one function body (``_body_order``), the only one a violation is taken from."""

    state: str
    first: Event
    second: Event
    broken_by: Event | None = None
    inside: bool = False
    held_elsewhere: bool = False
    repeat: Event | None = None
    arms: bool = False
    by_inner: bool = False
    in_body: bool = False


def pair_order(events_i: tuple[Event, ...], events_j: tuple[Event, ...]) -> PairOrder:
    """Order step i before step j along the body that runs both (issue 16): of every pair of their sites, only the
    closest ones count, those whose paths from the entry point share the most calls (``clip_grad_norm_`` and
    ``value_optimizer.step()`` in one update function, not the encoder's optimizer step in another); among them the
    pair holds when i runs before j, is violated when j runs before i, and is mixed when both happen (a validation
    inside pretraining and the final evaluation after fine-tuning). A site running inside the other step's call
    (the metric a test evaluation computes, for a claim "compute the metric, then test") is part of that step, not
    ordered against it: such pairs count only when no other pair exists. ``events_i`` and ``events_j`` must not be
    empty."""
    pairs = [(ei, ej) for ei in events_i[:_PAIR_EVENTS] for ej in events_j[:_PAIR_EVENTS]]
    apart = [(ei, ej) for ei, ej in pairs if ei is ej or relation(ei, ej) != NESTED]
    if not apart or len(apart) == len(pairs):
        order = _closest_order(pairs)
    else:
        inside = max(_shared(a.path, b.path) for a, b in pairs) > max(_shared(a.path, b.path) for a, b in apart)
        order = replace(_closest_order(apart), inside=inside)
    # some site of i runs before some site of j, though not where they run closest: a violation then rests on the
    # choice of sites (the re-evaluation inside a sweep, not the evaluation before it) and settles nothing. Another
    # object's call of the role shown (the policy optimizer's step after the value network's clip, when the value
    # optimizer steps before its clip) is another step, not this one held elsewhere
    # nor does a call of one step that the other runs inside, when the step has calls of its own in there: the
    # step's own calls order the two (train_step() for "forward pass", its model(batch) before loss.backward())
    outer_i, outer_j = _containers(events_i, events_j), _containers(events_j, events_i)
    starts = [e.position for e in events_i[:_PAIR_EVENTS] if not _other_object(e, order.first) and e not in outer_i]
    ends = [e.position for e in events_j[:_PAIR_EVENTS] if not _other_object(e, order.second) and e not in outer_j]
    # sites in two arms of one choice, while other sites of the two run in one pass: the arms order nothing
    arms = (order.first is not order.second and relation(order.first, order.second) == EXCLUSIVE
            and any(ei is ej or relation(ei, ej) != EXCLUSIVE for ei, ej in pairs))
    return replace(order, held_elsewhere=bool(starts and ends) and min(starts) < max(ends), arms=arms)


def _containers(events: tuple[Event, ...], others: tuple[Event, ...]) -> set[Event]:
    """The sites of ``events`` (one step's) whose call runs a site of ``others`` (another step's) and also a site of
    ``events`` itself (``train_step()`` mapping "forward pass", running ``loss.backward()`` and ``model(batch)``): such
    a call holds both steps, so only the step's own sites inside it order the two (issue 16). Each list is bounded by
    ``_PAIR_EVENTS``."""
    own = events[:_PAIR_EVENTS]
    # the calls above some site of each group (by identity: one CallSite object per call in the source)
    above_own = {id(a) for e in own for a in e.path[:-1]}
    above_other = {id(a) for e in others[:_PAIR_EVENTS] for a in e.path[:-1]}
    return {e for e in own if id(e.site) in above_own and id(e.site) in above_other}


def _other_object(site: Event, shown: Event) -> bool:
    """Whether ``site`` plays the role ``shown`` plays (``site_role``) for another receiver: ``policy_optimizer.step()``
    beside ``value_optimizer.step()``, another optimizer's step, not the step the pair is about."""
    role = site_role(shown.site)
    return role is not None and site.site.target != shown.site.target and site_role(site.site) == role


def _closest_order(pairs: list[tuple[Event, Event]]) -> PairOrder:
    """``pair_order`` over the given (site of i, site of j) pairs, which must not be empty."""
    best = -1
    before: tuple[Event, Event] | None = None
    after: tuple[Event, Event] | None = None
    same: tuple[Event, Event] | None = None
    for ei, ej in pairs:
        shared = _shared(ei.path, ej.path)
        if shared < best:
            continue
        if shared > best:
            best, before, after, same = shared, None, None, None
        if ei is ej:
            same = same or (ei, ej)
        elif ei.position < ej.position:
            before = before or (ei, ej)
        else:
            after = after or (ei, ej)
    if before is not None and after is not None:
        return PairOrder(MIXED, *before)
    if before is not None:
        return PairOrder(HOLDS, *before)
    if after is not None:
        return PairOrder(VIOLATED, *after)
    assert same is not None
    return PairOrder(HOLDS, *same)


def _nearer_first(order: PairOrder, sites_i: tuple[Event, ...]) -> PairOrder | None:
    """The held pair with its first site moved to the last of step i's sites (``sites_i``, trace events) that runs
    after ``order.first`` and before ``order.second``, in the later site's body; ``None`` when there is none."""
    if order.state != HOLDS:
        return None
    later = [e for e in sites_i if order.first.position < e.position < order.second.position
             and e.site.scope == order.second.site.scope]
    return replace(order, first=max(later, key=lambda e: e.position)) if later else None


def _breaker(order: PairOrder, step_i: dict, step_j: dict, events: list[Event]) -> Event | None:
    """A call between the closest sites of a held pair, in the body that runs the later one, that breaks the order
    (``rules/roles.yaml``, ``order_breakers``: ``optimizer.zero_grad()`` between the backward pass and the optimizer
    step), or ``None``."""
    if order.state != HOLDS or order.first is order.second:
        return None
    asked_i, asked_j = step_roles(step_i), step_roles(step_j)
    breakers = {b for first, then, b in roles.order_breakers() if first in asked_i and then in asked_j}
    if not breakers:
        return None
    scope = order.second.site.scope
    return next((e for e in events[order.first.position + 1:order.second.position]
                 if e.site.scope == scope and site_role(e.site) in breakers), None)


def _used_unprepared(events_i: tuple[Event, ...], events_j: tuple[Event, ...]) -> tuple[Event, Event] | None:
    """For steps whose roles are a prerequisite pair (``rules/roles.yaml``, ``prerequisites``: an estimator's fit
    before its predict), the first site of i and a site of j on the same receiver, in the same body, before it
    (``self.classifier.predict(X_test)`` before ``self.classifier.fit(X, y)``): the object is used before it is
    prepared, which no later call undoes; else ``None``."""
    for first_role, then_role in roles.prerequisites():
        prepared: set[tuple[str, str]] = set()
        for first in sorted((e for e in events_i if site_role(e.site) == first_role), key=lambda e: e.position):
            receiver = (first.site.scope, first.site.target.rpartition(".")[0])
            if receiver in prepared:
                continue  # only the receiver's first preparation in a body counts
            prepared.add(receiver)
            early = next((e for e in events_j if e.position < first.position and e.site.scope == first.site.scope
                          and site_role(e.site) == then_role and e.site.target.rpartition(".")[0] == receiver[1]),
                         None)
            if early is not None:
                return first, early
    return None


_ROLE_TEXT = {"backward": "backward pass", "optimizer_step": "optimizer step", "scheduler_step": "scheduler step",
              "zero_grad": "gradient reset", "clip": "gradient clip", "forward": "forward pass", "save": "save",
              "fit": "fit", "predict": "prediction"}


def _inner_breaker(events: tuple[Event, ...], step: dict, trace: list[Event]
                   ) -> tuple[Event, Event, Event] | None:
    """For a step asking for both roles of an order breaker (``rules/roles.yaml``, ``order_breakers``: a
    "parameter update" with its backward pass and its optimizer step), the first of its sites of the earlier role,
    its next site of the later role in the same body, and a breaking call between them there (the gradients zeroed
    between ``loss.backward()`` and ``optimizer.step()``); ``None`` when no such call runs."""
    asked = step_roles(step)
    for first_role, then_role, breaker_role in roles.order_breakers():
        if not {first_role, then_role} <= asked:
            continue
        for first in (e for e in events if site_role(e.site) == first_role):
            second = next((e for e in events if e.position > first.position and e.site.scope == first.site.scope
                           and site_role(e.site) == then_role), None)
            if second is None:
                continue
            breaker = next((e for e in trace[first.position + 1:second.position]
                            if e.site.scope == first.site.scope and site_role(e.site) == breaker_role), None)
            if breaker is not None:
                return first, second, breaker
    return None


def _shared(a: tuple[CallSite, ...], b: tuple[CallSite, ...]) -> int:
    """How many calls two paths from the entry point share before they part."""
    n = 0
    for x, y in zip(a, b):
        if x is not y:
            break
        n += 1
    return n


def _constructs(site: CallSite) -> bool:
    return site.kind == INSTANTIATE or (site.kind == EXTERNAL and site.target.rsplit(".", 1)[-1][:1].isupper())


def _where(result: StepResult, event: Event | None = None) -> str:
    event = event or result.event
    if event is None:
        return result.where
    loop = ", in a loop" if event.in_loop else ""
    return f"{event.site.ref}{loop}"


def _reason(results: list[StepResult], steps, violated: list[tuple[tuple[int, int], PairOrder]], entry: str | None,
            graph: CallGraph, unclear: bool) -> str:
    parts = []
    for (i, j), order in violated:
        if order.broken_by is not None:
            parts.append(f"order violated: {order.broken_by.site.target.rsplit('.', 1)[-1]} at "
                         f"{order.broken_by.site.ref} runs between {results[i].name!r} "
                         f"({_where(results[i], order.first)}) and {results[j].name!r} "
                         f"({_where(results[j], order.second)}), undoing the first for the second")
            continue
        parts.append(f"order violated: {results[j].name!r} ({_where(results[j], order.second)}) runs before "
                     f"{results[i].name!r} ({_where(results[i], order.first)})")
    ordered = [r for r in results if r.outcome == ORDERED]
    if ordered and entry is not None:
        listed = ", ".join(f"{r.name!r} at {_where(r)}" + (" (weak match)" if r.strength == WEAK else "")
                           for r in sorted(ordered, key=lambda r: r.event.position if r.event else -1))
        start = ("from entry point" if any(e.node == entry for e in graph.entry_points) else
                 "from the library function" if not graph.runnable else  # library_roots
                 "along the framework hook")  # hooks_run: forward, training_step
        parts.append(f"{start} {entry} ({graph.node_ref(entry)}): {listed}")
    for r in results:
        if r.outcome == ELSEWHERE:
            parts.append(f"{r.name!r} runs only from another entry point ({r.where}), a separate launch: unordered "
                         f"by code")
        elif r.outcome == DEAD_STEP:
            place = split_ref(r.where)
            branch = graph.branch_at(*place) if place else None
            parts.append(f"{r.name!r} is implemented at {r.where} but " + (
                f"sits in an `if` arm no run takes: {graph.graph.nodes[branch]['why']}" if branch
                else "no entry point reaches it (dead code)"))
        elif r.outcome == UNCERTAIN and r.switched_off:
            parts.append(f"{r.name!r} is written at {r.where} in an `if` arm no run takes ({r.switched_off}); the "
                         f"calls that run match it only by a keyword, so whether they are the step is a reader's call")
        elif r.outcome == UNCERTAIN and r.referenced:
            parts.append(f"{r.name!r} is only referenced as a value ({r.referenced}: a registry or a callback), so "
                         f"whether and when it runs is chosen at run time")
        elif r.outcome == UNCERTAIN:
            parts.append(f"{r.name!r} has only uncertain matches ({r.where})")
        elif r.outcome == ABSENT:
            parts.append(f"{r.name!r} not found in code")
        elif r.outcome == STUB_STEP:
            parts.append(f"{r.name!r} is only a stub: {_where(r)} calls the placeholder at {r.where}, which runs "
                         f"nothing")
        if r.outcome == ORDERED and r.partly_stub:
            parts.append(f"part of {r.name!r} is only a stub ({r.partly_stub}), so it counts half")
    if (not violated and not unclear and len(ordered) == len(results)
            and all(r.strength == STRONG and not r.partly_stub for r in results)):
        parts.insert(0, "claimed order holds")
    return "; ".join(parts)


def _evidence(results: list[StepResult], violated: list[PairOrder], index: RepositoryIndex
              ) -> tuple[Evidence, ...]:
    """The sites of each violation (the later-claimed step's first), then each step's first site."""
    events = [e for order in violated for e in (order.broken_by, order.second, order.first) if e is not None]
    events += [r.event for r in results if r.event is not None]
    seen: dict[tuple, Evidence] = {}
    for event in events:
        site = event.site
        key = (site.where, site.line)
        if key not in seen:
            lines = index.lines.get(site.where, [])
            text = lines[site.line - 1].strip()[:200] if 0 < site.line <= len(lines) else ""
            seen[key] = Evidence(site.file, site.line, site.line, text, "call", cell=site.cell)
    return tuple(seen.values())
