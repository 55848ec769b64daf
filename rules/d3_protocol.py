"""D3, experiment protocol: are the claimed datasets, baselines, metrics and scope elements used by code that runs?

A dataset is used when live code loads or builds it, a metric when live code computes it, a baseline or a setting
when live code builds or runs it (benchmarks/truth/CONVENTIONS.md, "Protocol"); a name in a plot, a print, a log, a
constant or a table of written-out numbers is not a use.

Each element of ``sau.checks`` (``datasets``, ``baselines``, ``metrics``, ``scope``: lists of ``{name, aliases}``)
is looked up among the *mentions* of the call graph (``extractors.callgraph.Mention``): identifiers and dotted
names read, called, assigned or defined, and string literals, each with the syntactic role it plays there
(``Mention.context``). Comments and docstrings are not mentions; strings shown to people (``print``/logging
arguments, plot labels, ``help=``; a string bound to a name live code only hands to such calls:
``rules.d3_flow.shown_only``) are *display* and never count. A term matches a mention when their normalised
forms are equal, when the term's words occur in a row among the mention's words, in any order (``val loss`` in
``best_val_loss`` and ``loss_val``; ``CIFAR-10`` matches ``torchvision.datasets.CIFAR10``), or, for terms of six
or more letters, when the term is inside the mention where a word of it begins (``openwebtext`` in
``OpenWebTextDataset``, ``gate_score`` in ``gate_scores``; ``MSE`` glued inside a run of capitals, ``MRQMSEReward``).
Inside a word, a prefix may keep the thing (``minibatch_OT`` for "batch-OT") or make another of it (``setdefault``,
``np.iscomplexobj``, ``ifftshift``, ``MiscoverageLoss``): such a mention leaves the element undecided, as does one
right after a word making the name the opposite thing (``NonSpatial`` for "Spatial": ``_negated``); in dead code or
prose either is still a trace. A term shorter
than four characters or an ordinary word (``rules/roles.yaml``, ``common_words``: "reward", "up") matches only a whole
identifier (a part of a dotted name: ``jax`` in ``jax.random.split``) or a whole string; a short one that is no
ordinary word also matches a word of a called name (``F.mse_loss(...)`` for "MSE"; not a called name that loads or
prepares data, ``_load_apps_ppo_prompts()`` for "PPO": ``data_preparation_words``, an unknown role), and a label of
letters then digits (``G3``, ``TD7``: never generic, however short) a word of any name or string (``"g3_elementwise"``).

A matching mention in live code (reached from an entry point) is judged by its role (``role``, tables in
``rules/roles.yaml``):

- **role**, the element is used: a call of it (``CIFAR10(...)``, ``compute_fid(...)``) or the definition of a
  function or class that runs; a name bound to a call's result (``tldr = load_dataset(...)``; not a dataclass
  ``field`` or a lookup: ``config_calls``; for a metric, not a call computing another metric (a trace): ``mcc =
  accuracy_score(...)``; for a baseline, only a constructor or loader call: ``base_model_outputs =
  self.model(...)`` is a result, not the model built); a string or name handed to a loader (``loader_words``:
  ``load_dataset("tldr")``, ``os.path.join(root, "webvid")``), for a dataset also a string a live data loader
  receives through the name it is bound to, a module constant or a local its function binds once (``name =
  "openwebtext"`` then ``load_dataset(name)``: ``rules.d3_loads``, ``_loaded_through``), a string handed to a metric library call for a
  metric (``metric_call_words``), an ``add_argument`` default; for a metric also a name or dict/subscript key
  bound to a computed value (``ppl = math.exp(loss)``, ``results["ppl"] = ...``); a string or name listed in a
  table that a live loop runs, handing its items to a call (``for v in REWARD_VARIANTS[:2]: train(v)``; of a
  table holding the list under several keys, only the entries whose key the claim names when one does:
  ``rules/d3_flow.py``); for a setting or baseline, the string an ``if`` statement selects its arm by (``elif
  assignment == "unit":``) when a run can pass it (a command-line option's choice or default, a configuration
  value, a call's argument: ``rules.d3_flow.selects``; not when the arm only reports that it is not implemented:
  ``rules.d3_unimplemented``, the element is then absent, whatever option or configuration supplies the string; any
  string when the tested value comes from a command-line option without choices: ``rules.d3_options``; a model named
  with its size, "Gemma-7B", when live code tests
  that size in the model name such an option gives and the option's default names the same family:
  ``_size_selected``), as that run runs the arm (a string tested in a filter or
  by ``!=`` selects nothing; one written only as another function's parameter default equals it by coincidence,
  and a default its function never reads reaches nothing: a **trace**);
- **trace**, the element is only named: data handed to a plot (``plot_calls``), for a metric a name, key or
  table bound to written-out values or to a value holding a constant nothing fills in or another metric
  (``"mcc": float(mcc)`` where ``mcc = accuracy_score(...)``, ``avg = sum(s) / len(s)`` where ``s = []``:
  ``rules/d3_flow.py``), or a stub's result (a list filled with ``condition_number(w)`` results where
  ``condition_number`` is a stub; a repository function returning only such values, its definition and its
  calls: ``rules/d3_values.py``), a repository function named to plot a metric (``plot_function_words``) or a
  figure's file name (``"fig5_condition_numbers.png"``), a listed setting the loops running its list skip (a
  slice's other positions), and an identifier bound only to literals, handed to no loader and iterated by no
  live loop (``PALETTE_DAVIS = b"..."``: ``literal_constants``), and a dataset's name given to a repository function
  (its definition, a
  call of it) whose body loads other datasets by name and never it (``prepare_openwebtext()`` running
  ``load_dataset("wikitext")``: ``_loads_other``, through ``rules.d3_loads``);
- **unknown** otherwise (a variable passed on, a string compared or listed; for a metric, its name bound to text
  taken apart, ``image_path, caption = line.split(",")``: ``text_parsing_calls``, or given as the default of a
  command-line option not named for metrics, ``--relevance curiosity``: ``metric_option_words``), and a role under
  ``if`` tests selecting it by strings nothing supplies (``if kind == "deterministic":`` where no code, configuration or
  launcher writes that string: someone may pass it): the role cannot be told; but when that string is written
  only as listed settings the loops skip (``REWARD_VARIANTS[:2]`` leaving out ``"high_variance"``), the code
  under the test never runs: a **trace**.

Per element, in this order:

- **present** (1): a role in live code; for an element naming a list of values (``k_3 values 0/0.3/0.6/0.9``),
  a configuration or Python list holding exactly them that a live loop runs; for a setting named by numbers
  (``16 states x 16 actions``, ``(S,A) = (3,3)``, ``k=1``), live bindings of each number under a name of its word
  (the word, its singular, ``n_``/``num_`` forms or its initial: ``S, A = 16, 16``, ``MDPConfig(S=16, A=16)``, a
  loop over ``[(3, 3), (9, 9)]``), or whose knob's live bindings hold every claimed value (``action_repeat = 2``
  for "action repeat 2"; the knob named by the setting's words or an alias's, ``frame_skip``; a knob kept from a
  parameter, ``self.action_repeat = action_repeat``, is bound by that parameter's default unless every live call
  overrides it, and by the keyword or positional arguments the calls pass for it, also for a parameter without
  a default: ``_knob_bindings``; a copy under another name of the setting's words, ``n_trials = cfg.num_trials``,
  carries the first knob's values; a library function named like the knob, ``torch.topk``, is none); for a
  dataset, also a row of a manifest a launcher passes (``.jsonl`` and the
  like, first lines read as facts: ``rules/d3_manifests.py``), evidence at the row and the launcher line.
- **ambiguous**: a metric computed by live code while a live name or key of it holds another metric's value or a
  stub's result (``avg_nll = jnp.mean(scores)`` where ``scores`` collects ``metrics["RMSE"]``; an ordinary word such
  as "reward" left out: ``_held_otherwise``): which of them the claim's use reads is open; a match only in code that
  is *maybe* live; a config value or key whose key live code does not name, or names only as a key several
  entries share (``train_path`` under ``math`` and ``humaneval``; when it names this entry's key: **present**), or
  that holds one value of a knob, ``depth: 24``, for a setting naming several ("encoder depth/width grid", "several
  data sizes": ``sweep_words``); only unknown roles in live code; a match only through a generic term
  (``loss``, ``mean``, ``baseline``) or a term that drops the number of an element named with one (``batch_size``
  for "batch size 1024"; a dataset's size such as "10M" is no such number); or no match but display strings and
  text, and a live identifier sharing a distinctive word with the element's name or aliases, or the first seven
  letters or more of one (``compile_error_reward`` for "compiler reward"; the spec's aliases may have missed it),
  attribute names read (a library's: ``optimizer.zero_grad``) left out, when it may be the element (``_kin``: it shares
  a size of the element, holds every word of its name or their stems, or is made only of its words; a name sharing one
  other word, ``first_turn_prompt`` for "PaLM 2 first attempts", leaves the element **absent**, naming that name); a
  setting named by a knob and its values (``55 epochs``, ``Top-K in {1, 2, 4}``) whose knob (a live name of exactly the
  setting's words, ``num_epochs``), or any other knob of its words, is worked out at run time or passed in from
  another name (not from another knob of the setting: ``n_trials = cfg.num_trials``), or bound to only some of
  the values while another live name of the same words (``ranks`` beside ``rank``) may hold the rest; or, for a setting
  named with a number, a live binding of that number (not 0 or 1) under a name of one of its words or of some of them,
  fillers left out (``P = 8`` for "P in {8, 32}", ``total_steps = 500_000`` for "500k steps"). A claimed number's ``k``,
  ``M`` or ``B`` suffix is read as a thousand, million or billion (``claimed_numbers``), and from a thousand up a value
  within 2.5% is the claimed one ("32K" tokens are 32768).
- **absent** (0), settled: matches only in calls of a function imported from a module of the repository's own
  layout that the repository does not hold (``from data.generation import generate_dataset`` without ``data/``:
  ``rules.d3_unimplemented.missing_module``; what it would do cannot be read); matches only in *dead* code (defined
  but no entry point reaches it; live code naming
  only a generic term of it does not change that: ``loss`` for a perplexity computed only in an uncalled
  trainer), or only traces (when these are listed settings the loops skip, whatever related names live code
  uses: the element's own name is there, only skipped; not when live code binds a number of its name under a name
  of its words), display strings, comments, docstrings or other text, or nowhere; for a setting named
  by a knob and its values whose live bindings hold only other values (``epochs = 350`` for "55 epochs") or, for a
  sweep of several values, only some of them (``top_k = 4`` for "Top-K in {1, 2, 4}": the others never run); for a
  setting or baseline only hinted at (a generic term, a related name, a bound number), one of whose claimed values
  nothing in the repository writes (code, configuration, launchers; 0, 1, parameter counts such as "42M" and
  numbers of a model's name such as "VQVAE-2" left out), unless a hint is a name worked out at run time
  (``_unwritten``: "ranks 32/64/96" with 96 nowhere).

A repository with no entry point that runs its code has no live code, so nothing is settled present or absent
there (``CallGraph.liveness`` says *maybe*). Score: the fraction of elements present (in the estimate, an ambiguous
element named in code counts as half, one only hinted at by a generic term or a related name as nothing),
rounded to the scale and 1 only when all are present (``sau.vocabulary.share_score``), except that a claim of
fewer than ten elements listing baselines none of which is built or run is a comparison that never happens (0; a
longer one is a benchmark's whole protocol, whose competitors careful readers count as elements like its tasks,
metrics and settings: TD7 and PPO beside five environments, four statistics and two settings), and a claim with nothing
present whose elements are implemented only in dead code is a trace (0.25; not when other elements run: the truth
set's readers count a metric computed only in uncalled code as one missing element, gated-attention-llm D3-005 to
D3-008, where one audit reader scored a trace). Settled when the SAU's checks cover its
statement and every element is present or absent, or the score is the same whatever each ambiguous element turns out to
be (``_determined``: 1 of 6 present and one undecided is 0.25 either way); not when one of the two exceptions moves it
off the plain fraction while an element is present, by more than a step when every element is decided
(``_readers_call``) or by any when one is undecided. Otherwise unresolved with that score as the best estimate and
one finding per element. Drift ``protocol`` when an element is absent.
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from extractors import facts as K
from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD, LIVE, CallGraph, Mention, argument_callee, argument_of, module_name
from extractors.facts import Fact, RepositoryIndex
from extractors.provenance import (accepting_program, binding_liveness, calls_by_short, overridden_by, passed_for,
                                   positional_passes)
from extractors.values import is_number
from extractors.walk import is_test_path
from extractors.words import word_list
from rules import names, roles, traces
from rules.d3_flow import (Flow, Run, Source, claim_words, flow, loop_runs, name_source, selects, shown_only,
                           skipped_only, supplied, value_source, values_run)
from rules.d3_loads import LoadedValue, LoaderValues, loader_values
from rules.d3_manifests import launched_manifests
from rules.d3_options import called_name, free_source, typed_freely
from rules.d3_unimplemented import in_stub_arm, inside_stub_arm, missing_module
from rules.d3_values import stub_classes, stub_nodes, uncomputed
from rules.findings import ElementFinding
from rules.findings import ElementOutcome as Outcome
from sau.vocabulary import SAU, Drift, Evidence, Status, Verdict, share_score, show_value

RULE = "rule:d3-protocol"
CATEGORIES = ("datasets", "baselines", "metrics", "scope")



PRESENT, ABSENT, AMBIGUOUS = Outcome.PRESENT, Outcome.ABSENT, Outcome.AMBIGUOUS
_GENERIC = word_list("generic_terms", "rules")  # terms that name no particular dataset, baseline or metric
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_DIGIT = re.compile(r"\d")
_SIZE = re.compile(r"\d+(?:\.\d+)?\s*[kmb]\b", re.IGNORECASE)  # "10M", "1.5B": how big a dataset is
_DIMENSIONS = re.compile(r"\b[123]D\b")  # "1D Burgers", "2D smoke": the kind of problem, which code rarely spells
_SUBSTRING_MIN = 6  # shorter terms inside longer names are too often accidents (``acc`` in ``accumulate``)


words = names.words  # the rules' one tokeniser


@lru_cache(maxsize=65536)
def squash(text: str) -> str:
    """Lower-case letters and digits only: ``CIFAR-10`` -> ``cifar10``."""
    return _NOT_ALNUM.sub("", text.lower())


def term_matches(term: str, text: str) -> bool:
    """Whether the claim term occurs in the code text (module docstring for the three ways), not negated there
    (``_negated``)."""
    return _match_kind(term, text) == _MATCH


def _occurrence(term: str, text: str) -> str | None:
    """Where the claim term occurs in the code text: ``_WORD`` when one of the three ways of the module docstring
    finds it, ``_GLUED`` when it is there only inside a word (``_placed``), ``None`` otherwise."""
    term_squashed, text_squashed = squash(term), squash(text)
    if not term_squashed or not text_squashed:
        return None
    if term_squashed == text_squashed:
        return _WORD
    outside = _outside_compounds(term_squashed, text_squashed)
    if outside != text_squashed and term_squashed not in outside:  # F.cross_entropy computes no entropy
        return None
    if term_squashed not in text_squashed:  # every way of matching below needs this, but another word order
        return _WORD if not _whole_only(term) and _run_any_order(words(text), words(term)) else None
    if _whole_only(term):  # "jax", "ppl", "reward": only a whole identifier (a part of a dotted name) or string
        return _WORD if any(squash(part) == term_squashed for part in text.split(".")) or \
            (_LABEL.fullmatch(term_squashed) is not None and term_squashed in words(text)) else None
    text_words = words(text)
    if _run(text_words, words(term)):
        return _WORD
    for start in range(len(text_words)):  # CIFAR-10 (cifar, 10) against CIFAR10 (cifar10): joined runs
        joined = ""
        for word in text_words[start:start + 4]:
            joined += word
            if joined == term_squashed:
                return _WORD
    return _placed(term_squashed, text) if len(term_squashed) >= _SUBSTRING_MIN else None


def glued_in(term: str, text: str) -> bool:
    """Whether the claim term occurs in the code text only inside a word of it, where ``term_matches`` does not
    match: ``minibatch_OT`` for "batch-OT", ``DahoasFullhhrlhfDataset`` for "HH-RLHF", but also ``setdefault`` for
    "default" and ``ifftshift`` for "fftshift"; or only after a negation (``NonSpatial``, ``non_uniform``:
    ``_negated``). Whether such a name is the element or another thing only a reader can tell: it makes an element
    undecided, never present or absent (in dead code or prose, a trace)."""
    return _match_kind(term, text) == _DOUBT


_MATCH, _DOUBT = "match", "doubt"


def _match_kind(term: str, text: str) -> str | None:
    """How the claim term occurs in the code text: ``_MATCH`` (``term_matches``), ``_DOUBT`` (``glued_in``) or
    ``None`` (not at all), each text tested once for both."""
    found = _occurrence(term, text)
    if found == _WORD:
        return _DOUBT if _negated(term, text) else _MATCH
    return _DOUBT if found == _GLUED else None


_WORD, _GLUED = "word", "glued"


def _negated(term: str, text: str) -> bool:
    """Whether every place a word of ``text`` (within one part of a dotted name) begins the term follows a negation
    word of the same part (``rules/roles.yaml``, ``negation_words``: ``NonSpatial``, ``non_uniform``,
    ``Without Load Balancing Loss``): the name may be the opposite thing. A term that is itself negated
    ("Non-Spatial") is not; nor is a match no word of the text begins (another word order)."""
    needle = words(term)
    if not needle or needle[0] in _NEGATIONS:
        return False
    wanted, found = squash(term), False
    for part in text.split("."):
        hay = words(part)
        for i in range(len(hay)):
            if "".join(hay[i:]).startswith(wanted):
                if i == 0 or hay[i - 1] not in _NEGATIONS:
                    return False
                found = True
    return found


def _placed(term_squashed: str, text: str) -> str | None:
    """Where the squashed term occurs in ``text``: ``_WORD`` when an occurrence starts where a word of it starts
    (after a separator, at a lower-to-upper case change, after a digit, at the text's start) or inside an acronym
    glued to a camel-case word and reaching that word (``mse_reward`` in ``MRQMSEReward``, ``nae_sat`` in
    ``LONAESATDataset``); ``_GLUED`` when the occurrences start only inside words (``iscomplexobj``, ``ifftshift``,
    ``setdefault``, ``COVARIANCE`` for "variance"); ``None`` when every occurrence goes on into a longer number
    (``CIFAR100`` for "CIFAR-10", ``llama-2-7b`` still holding "Llama-2") or the text's letters change length
    when lower-cased (then ``_WORD`` wherever the term is)."""
    kept = [i for i, ch in enumerate(text) if ch.isascii() and ch.isalnum()]
    squashed = "".join(text[i] for i in kept).lower()
    if squashed != squash(text):  # letters lower-casing changes (rare scripts): the squashed term anywhere
        return _WORD if term_squashed in squash(text) else None
    span, found = len(term_squashed), None
    at = squashed.find(term_squashed)
    while at >= 0:
        start, end = kept[at], kept[at + span - 1]
        before = text[start - 1] if start else ""
        after = text[end + 1] if end + 1 < len(text) else ""
        at = squashed.find(term_squashed, at + 1)
        if term_squashed[-1].isdigit() and after.isdigit():
            continue  # CIFAR100 is no CIFAR-10
        if not (before.isascii() and before.isalnum()) or before.isdigit() and term_squashed[0].isalpha() \
                or _CASE_CHANGE.match(text, start - 1):
            return _WORD
        acronym = _ACRONYM.match(text, start)
        if before.isupper() and acronym is not None and acronym.group() and end >= acronym.end() - 1 \
                and end - start == span - 1:
            return _WORD
        found = _GLUED
    return found


# a word of a name starts at a lower-case letter or digit followed by a capital, or at a capital followed by a
# capital then a lower-case letter (``rules.names.words``, which splits names there)
_CASE_CHANGE = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")
# the capitals of an acronym glued to a camel-case word: MRQ|MSE|Reward, the capitals before "Re"
_ACRONYM = re.compile(r"[A-Z0-9]*(?=[A-Z][a-z])")


_COMMON = roles.words("common_words")
_NEGATIONS = roles.words("negation_words")
_COMPOUNDS = tuple(sorted({squash(c) for c in roles.words("compound_terms")}, key=len, reverse=True))


def _outside_compounds(term_squashed: str, text_squashed: str) -> str:
    """The squashed text without the compound names (``roles.yaml``, ``compound_terms``) that hold the term but are
    not it: ``entropy`` does not occur in ``crossentropyloss``, ``crossentropy`` does."""
    for compound in _COMPOUNDS:
        if term_squashed in compound and term_squashed != compound:
            text_squashed = text_squashed.replace(compound, " ")
    return text_squashed
# a short label of letters then digits ("G3", "TD7", "v5") names one thing: a word of a name or string, as in
# ``"g3_elementwise"`` or ``GatingPosition.G3_KEY``, is that thing (a size such as "7b" starts with its number)
_LABEL = re.compile(r"[a-z]+\d+")
_WHOLE_MIN = 4  # shorter aliases ("ppl", "up") are inside too many longer names


@lru_cache(maxsize=4096)
def _whole_only(term: str) -> bool:
    """Whether ``term`` matches only whole identifiers or strings: shorter than four characters, or an ordinary
    word (``rules/roles.yaml``, ``common_words``)."""
    squashed = squash(term)
    return len(squashed) < _WHOLE_MIN or squashed in _COMMON


def _run(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    n = len(needle)
    return n > 0 and any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def _run_any_order(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """Whether the two or more words of ``needle`` occur in a row in ``haystack`` in another order: code orders
    the words of a name either way (``init_random`` for ``random_init``, ``loss_val`` for ``val_loss``)."""
    n, wanted = len(needle), sorted(needle)
    return n > 1 and len(set(needle)) == n and any(sorted(haystack[i:i + n]) == wanted
                                                    for i in range(len(haystack) - n + 1))


def is_generic(term: str) -> bool:
    """A term that cannot identify an element on its own: one of ``_GENERIC``, a generic name of
    ``rules.names``, or two characters or fewer other than a label of a letter and a digit (``G3``)."""
    squashed = squash(term)
    return (len(squashed) <= 2 and not _LABEL.fullmatch(squashed)) or squashed in _GENERIC or names.is_generic(term)


@dataclass(frozen=True)
class ElementResult:
    """The decision for one protocol element: ``outcome`` present/absent/ambiguous, ``note`` why, ``refs`` the
    mentions (or config facts) behind it, best first."""

    category: str
    name: str
    outcome: Outcome
    note: str
    refs: tuple = ()
    hint: bool = False  # ambiguous only through a generic term or a related name: no half credit in the estimate


def check(sau: SAU, index: RepositoryIndex) -> Verdict:
    """Decide a code-checkable D3 SAU against ``index`` (module docstring). Unresolved without a score when the SAU
    has no elements."""
    elements = [(c, e) for c in CATEGORIES for e in sau.checks.get(c, ())]
    if not elements:
        return Verdict(sau, None, Status.UNRESOLVED, "no datasets, baselines, metrics or scope elements were given",
                       RULE)
    graph = index.analysis(build_call_graph)
    claim = claim_words((sau.statement, *(str(t) for _, e in elements for t in (e["name"], *e.get("aliases", ())))))
    results = [decide_element(category, element, graph, index, claim) for category, element in elements]
    present = sum(r.outcome == PRESENT for r in results)
    ambiguous = sum(r.outcome == AMBIGUOUS and not r.hint for r in results)
    # an element named in code whose role is undecided may go either way: the estimate counts it as half (a settled
    # verdict has none); one only hinted at by a generic term or a related name counts nothing
    score, unrun, unused = _score(results, present + ambiguous / 2, present)
    determined = _determined(results)
    certain = all(r.outcome != AMBIGUOUS for r in results)
    readers_call = certain and _readers_call(score, unrun, unused, share_score(present, len(results)))
    decided = sau.complete and (certain and not readers_call or determined is not None)
    if decided and determined is not None:
        score, unrun, unused = determined
    drift = Drift.PROTOCOL if any(r.outcome == ABSENT for r in results) else None
    reason = f"{present}/{len(results)} protocol elements used by live code: " + "; ".join(
        element_note(r) for r in results)
    if unused:
        reason += "; implemented only in code no entry point reaches, a trace: 0.25"
    elif unrun:
        reason += "; no claimed baseline is built or run, so the comparison the claim describes never runs: 0"
    elif _unbuilt(results):
        reason += (f"; no claimed baseline is built or run, but in a protocol of {len(results)} elements they count "
                   "as elements like its tasks, metrics and settings")
    if readers_call:
        # the comparison never runs, but what it is built from does: between the rule's score and the plain
        # fraction; readers of such claims gave one step above the rule's most often (8 of 16 development claims)
        score += 0.25
        reason += (f"; but {present} of the {len(results)} elements run, so whether the missing ones are the point "
                   f"of the claim is a reader's call: not settled, estimated {score:g}")
    if decided and any(r.outcome == AMBIGUOUS for r in results):
        reason += f"; settled: whatever the undecided elements turn out to be, the score is {score:g}"
    if not sau.complete:
        reason += "; the statement has elements no check covers"
    findings = tuple(ElementFinding(r.category, r.name, r.outcome, r.note, tuple(x.ref for x in r.refs[:2]))
                     for r in results)
    status = Status.SETTLED if decided else Status.UNRESOLVED
    return Verdict(sau, score, status, reason, RULE, drift, element_evidence(results, index), findings,
                   trace=traces.elements(results, index))


def _score(results: list[ElementResult], credit: float, present: int,
           outcomes: tuple[Outcome, ...] | None = None) -> tuple[float, bool, bool]:
    """The score of elements ``results`` (their outcomes replaced by ``outcomes`` when given) worth ``credit``
    elements, ``present`` of them present, and whether the unrun-comparison (0) or the dead-implementation (0.25)
    rule set it (module docstring)."""
    outs = outcomes or tuple(r.outcome for r in results)
    score = share_score(credit, len(results))
    unrun = len(results) < _PROTOCOL_ELEMENTS and _unbuilt(results, outs)
    if unrun:  # a comparison none of whose baselines is built or run never happens, whatever else is there
        score = 0.0
    unused = (present == 0 or unrun) and any(o == ABSENT and only_dead(r) for r, o in zip(results, outs))
    if unused:  # implemented only where nothing runs it: a trace (CONVENTIONS.md, the scale)
        score = 0.25
    return score, unrun, unused


# a claim of this many elements or more is a benchmark's whole protocol (its tasks, metrics, settings and, among
# them, the competitors it is run against): careful readers score the missing competitors as elements like the
# others (mrq D3-001..004, score D3-001), while a shorter one listing baselines is the comparison itself (ma-rlhf
# D3-009: DPO and RLOO on HH-RLHF with Gemma-2B, scored 0 without them)
_PROTOCOL_ELEMENTS = 10


def _unbuilt(results: list[ElementResult], outcomes: tuple[Outcome, ...] | None = None) -> bool:
    """Whether the claim lists baselines and none of them is built or run (their outcomes replaced by ``outcomes``
    when given)."""
    outs = outcomes or tuple(r.outcome for r in results)
    baselines = [o for r, o in zip(results, outs) if r.category == "baselines"]
    return bool(baselines) and all(o == ABSENT for o in baselines)


def _readers_call(score: float, unrun: bool, unused: bool, plain: float) -> bool:
    """Whether the unrun-comparison (0) or dead-implementation (0.25) rule set ``score`` more than one step (0.25)
    below ``plain``, the rounded fraction of elements present. With half a comparison running and none of its
    baselines, whether the missing competitors are the point of the claim is a reader's call: independent readers
    scored sixteen such development claims 0 (5), 0.25 (8) and 0.5 (3), so the verdict stays open. One step or less
    (1 of 4 present, plain 0.25, scored 0) is settled, as the truth set's readers score nfig D3-005 and D3-006."""
    return (unrun or unused) and plain - score > 0.25


_MAX_UNDECIDED = 10  # 2**10 ways the undecided elements may turn out; more are left unresolved


def _determined(results: list[ElementResult]) -> tuple[float, bool, bool] | None:
    """The score when it is the same whatever each ambiguous element turns out to be (present or absent), else
    ``None``. A score set by the unrun-comparison or dead-implementation rule is determined only when no element is
    present and the plain fraction could not exceed it by more than a step, or when it is the plain fraction's own
    score (1 of 29 present rounds to 0 with or without the rule): otherwise, with elements present, whether the
    missing baselines or unrun code are the point of the claim is a reader's call."""
    undecided = [i for i, r in enumerate(results) if r.outcome == AMBIGUOUS]
    if not undecided or len(undecided) > _MAX_UNDECIDED:
        return None
    fixed = sum(r.outcome == PRESENT for r in results)
    seen: set[tuple[float, bool, bool]] = set()
    for turns in itertools.product((PRESENT, ABSENT), repeat=len(undecided)):
        outs = [r.outcome for r in results]
        for i, outcome in zip(undecided, turns):
            outs[i] = outcome
        present = fixed + sum(o == PRESENT for o in turns)
        score, unrun, unused = _score(results, present, present, tuple(outs))
        # an exception that gives what the plain fraction gives decides nothing (1 of 29 present rounds to 0 with
        # or without the unrun comparison); beside an undecided element and one present, any move off the plain
        # fraction is a reader's call (neural-operator-flow-matching-pde D3-005: 1 or 2 of 9 present, settled 0
        # this way, is 0.5 to a reader crediting what the elements missed), otherwise a move of more than a step
        plain = share_score(present, len(results))
        if ((unrun or unused) and plain != score) if fixed else _readers_call(score, unrun, unused, plain):
            return None
        seen.add((score, unrun, unused))
        if len({s for s, _, _ in seen}) > 1:
            return None
    scores = sorted(seen)
    return scores[0] if scores else None


def decide_element(category: str, element: dict, graph: CallGraph, index: RepositoryIndex,
                   claim: frozenset[str] = frozenset()) -> ElementResult:
    """Decide one ``{name, aliases}`` element of ``category`` (module docstring); ``claim`` the words of the claim
    asking (``rules.d3_flow.claim_words``), which choose among a table's keyed entries holding a listed setting."""
    name = element["name"]
    terms = [name, *element.get("aliases", ())]
    specific = [t for t in terms if not is_generic(t)]
    if _DIGIT.search(name) and not (category == "datasets"
                                    and not _DIGIT.search(_DIMENSIONS.sub("", _SIZE.sub("", name)))):
        # "batch size 1024", "(S,A) = (3,3)": a term without the number names only the knob; a dataset's size
        # ("WebVid-10M") or dimensionality ("1D Burgers") is no such number: webvid, burgers is that dataset
        specific = [t for t in specific if _DIGIT.search(t)]
    generic = [t for t in terms if t not in specific]
    found: dict[str, list[Mention]] = {state: [] for state in (ROLE, "maybe", UNKNOWN, TRACE, DEAD, DISPLAY,
                                                               ELSEWHERE, MISSING, GLUED)}
    generic_live: list[Mention] = []
    missing_from: dict[Mention, str] = {}  # a call into a missing module -> that module
    matched: set[str] = set()
    constants = index.analysis(literal_constants)
    data = index.analysis(flow)
    loads = index.analysis(loader_values)
    short = [squash(t) for t in specific if _whole_only(t) and squash(t) not in _COMMON]
    hits = index.analysis(_term_hits) if graph is index.analysis(build_call_graph) else _hits_in(graph, {})
    specific_texts = frozenset().union(*(hits(t)[0] for t in specific))
    # a generic term is only a hint for the knob settings and related names below, inside a word too (minibatch_size)
    generic_texts = frozenset().union(*(hits(t)[0] | hits(t)[1] for t in generic))
    glued_texts = frozenset().union(*(hits(t)[1] for t in specific)) - specific_texts
    for text, mentions in graph.mentions_by_text().items():
        hit_specific = text in specific_texts
        # a short alias is a word of a call's name: F.mse_loss(...) computes the MSE, compute_ppl(...) the PPL
        hit_call = not hit_specific and bool(short) and bool(set(short) & set(words(text.rsplit(".", 1)[-1])))
        if not hit_specific and not hit_call and text in glued_texts:
            for m in mentions:  # in dead code a doubtful name is still a trace of what it may name
                if m.scope in graph.graph and not is_test_path(m.file) and m.kind != "display":
                    found[DEAD if graph.liveness(m.scope) == DEAD else GLUED].append(m)
            continue
        if not hit_specific and not hit_call and text not in generic_texts:
            continue
        matched.add(text)
        for mention in mentions:
            if mention.scope not in graph.graph or is_test_path(mention.file):
                continue
            if hit_call and mention.context != "call":
                continue
            state = graph.liveness(mention.scope)
            if not hit_specific and not hit_call:
                if state == LIVE and mention.kind != "display":
                    generic_live.append(mention)
            elif mention.kind == "display":
                found[DISPLAY].append(mention)
            elif state == LIVE and _runs_stub(mention, graph, index):
                found[TRACE].append(mention)  # condition_number(W) whose body raises NotImplementedError
            elif state == LIVE and (module := missing_module(mention, graph, index)) is not None:
                found[MISSING].append(mention)  # generate_dataset(...) imported from a data/ the repository lacks
                missing_from[mention] = module
            elif state == LIVE and category == "datasets" and \
                    (loader := _loaded_through(mention, graph, loads, terms, data)) is not None:
                found[ROLE].extend((mention, loader))  # name = "openwebtext", then load_dataset(name)
            elif state == LIVE and hit_call and category in _SELECTED and _loads_for(mention.text):
                found[UNKNOWN].append(mention)  # _load_apps_ppo_prompts(): data for PPO, not PPO built or run
            elif state == LIVE:
                found[ELSEWHERE if category == "datasets" and _loads_other(mention, graph, loads, terms)
                      else role(category, mention, constants, tuple(terms), data, index, claim)].append(mention)
            else:
                found["maybe" if state != DEAD else DEAD].append(mention)
    if found[ROLE]:
        loads_inside = _holding_loads(found[ROLE], graph) if category == "datasets" else frozenset()
        best = sorted(found[ROLE], key=lambda m: (m in loads_inside, _mention_order(m)))
        held = _held_otherwise(specific, tuple(terms), graph, data, index) if category == "metrics" else []
        if held:  # avg_nll = mean(rmses) beside metrics["NLL"] = nll(...): which one the claim's use reads is open
            return ElementResult(category, name, AMBIGUOUS,
                                 f"{_ROLE_WORDS[category]} at {best[0].ref}, but {held[0].text!r} at {held[0].ref} "
                                 f"holds another metric's value", (*best, *held))
        return ElementResult(category, name, PRESENT, f"{_ROLE_WORDS[category]} at {best[0].ref}", tuple(best))
    listed = _values_run(name, index, data)
    if listed is not None:
        values, loop = listed
        return ElementResult(category, name, PRESENT, f"its values at {values.ref}, run by the loop at {loop.ref}",
                             (values, loop))
    if category == "datasets":
        manifest = _in_manifest(specific, index)
        if manifest is not None:
            row, launcher = manifest
            return ElementResult(category, name, PRESENT,
                                 f"a manifest the launcher passes ({launcher.ref}) points to it at {row.ref}",
                                 (row, launcher))
    sized = _size_selected(name, graph, index) if category == "scope" else None
    if sized is not None:
        test, option = sized
        return ElementResult(category, name, PRESENT,
                             f"run by its model's name: {test.text!r} is tested at {test.ref} in the free option "
                             f"{option.name!r} ({option.ref}, default {option.value!r})", (test, option))
    numbered = _numbered_bindings(name, index) if category == "scope" and not found["maybe"] else None
    if numbered:
        return ElementResult(category, name, PRESENT,
                             "live code binds " + ", ".join(f"{f.name} to {show_value(f.value)} at {f.ref}"
                                                            for f in numbered), numbered)
    stubbed = sorted((m for m in found[TRACE] if in_stub_arm(m, index)), key=_mention_order)
    if stubbed and not found["maybe"] and all(m.kind == "string" and (m.text == stubbed[0].text or _raised(m))
                                              or inside_stub_arm(m, stubbed, index) for m in found[UNKNOWN]):
        # elif reward_type == "compiler": an arm that only says it is not implemented; the option's choices, a
        # config value or a comparison elsewhere only supply or test the same string, an exception's message names it
        return ElementResult(category, name, ABSENT,
                             f"selected at {stubbed[0].ref} by an arm that only reports that it is not "
                             f"implemented", tuple(stubbed))
    if found["maybe"]:
        best = sorted(found["maybe"], key=_mention_order)
        return ElementResult(category, name, AMBIGUOUS,
                             f"only in code that may not run ({best[0].ref})", tuple(best))
    # a configuration file's key, or a launcher's option (``--env cheetah-run-v0`` in a script or a README's
    # command), holding the element's name: used when live code reads that key or option
    configs, glued_configs = _config_hits(specific, index)
    unasked = [f for f in configs if category == "metrics" and not _metric_setting(f)]
    configs = [f for f in configs if f not in unasked]
    if unasked and not configs:  # --relevance return, mixed_precision: "bf16": settings named like it
        what = "option" if unasked[0].kind == K.LAUNCHER else "key"
        return ElementResult(category, name, AMBIGUOUS,
                             f"named by the {what} {unasked[0].path!r} at {unasked[0].ref}, which does not ask for a "
                             f"metric: it may set something else", tuple(unasked))
    if configs:
        # a key also naming other entries (``train_path`` under both ``math`` and ``humaneval``) does not show
        # which entry live code reads
        paths = {f.path for f in configs}
        shared = {f.name for f in index.facts if f.kind == K.CONFIG and f.path not in paths}
        keys = {f.name for f in configs} - shared
        read = [m for m in _live_mentions(graph) if m.text in keys or m.text in paths]
        if read and configs[0].kind == K.LAUNCHER:
            file, line = accepting_program(index, configs[0]) or ("", 0)
            return ElementResult(category, name, PRESENT, f"passed by the launcher at {configs[0].ref} to the "
                                 f"option --{configs[0].path} that {file}:{line} declares", tuple(configs))
        if read and _several(name) and all(f.kind == K.CONFIG and not isinstance(f.value, (list, tuple))
                                           for f in configs):
            # depth: 24 for "encoder depth/width grid": one configuration of a sweep, the others may never run
            return ElementResult(category, name, AMBIGUOUS,
                                 f"config {configs[0].ref} holds one value (key read at {read[0].ref}), where the "
                                 f"claim names several", tuple(configs))
        if read:
            return ElementResult(category, name, PRESENT, f"config {configs[0].ref}, key read at {read[0].ref}",
                                 tuple(configs))
        where = (f"in config {configs[0].ref}, whose key" if configs[0].kind == K.CONFIG else
                 f"passed by the launcher at {configs[0].ref} as --{configs[0].path}, an option")
        return ElementResult(category, name, AMBIGUOUS, f"only {where} live code does not name", tuple(configs))
    glued = sorted(found[GLUED], key=_mention_order) or glued_configs
    if glued and not found[UNKNOWN]:  # minibatch_OT for "batch-OT", but setdefault for "default"
        shown = glued[0].text if isinstance(glued[0], Mention) else glued[0].path
        where = "after a negation" if any(_negated(t, shown) for t in specific) else "inside another word"
        return ElementResult(category, name, AMBIGUOUS,
                             f"only {where} ({shown!r} at {glued[0].ref}), which may name it or something else",
                             tuple(glued))
    if found[UNKNOWN]:
        best = sorted(found[UNKNOWN], key=_mention_order)
        return ElementResult(category, name, AMBIGUOUS,
                             f"named in live code at {best[0].ref}, but not {_ROLE_WORDS[category]} there",
                             tuple(best))
    setting = _knob_setting(name, generic_live, index, terms[1:]) if category == "scope" else None
    if setting is not None:
        outcome, facts, knob, missing = setting
        shown = ", ".join(f"{show_value(f.value)} at {f.ref}" for f in facts[:2])
        note = (f"live code binds {knob!r} to it: {shown}" if outcome == PRESENT
                else f"live code binds {knob!r} only to other values: {shown}" if not missing
                else f"live code binds {knob!r} only to some of its values ({shown}), never to "
                     + ", ".join(f"{v:g}" for v in missing))
        return ElementResult(category, name, outcome, note, facts)
    if found[ELSEWHERE]:  # load_dataset(DATASET_PATHS[TASK_HH_RLHF]) where the table maps that key elsewhere
        # the loader call itself first, then a class or function named after the dataset, then a constant's value
        first = sorted(found[ELSEWHERE], key=lambda m: (not m.context.startswith("arg:"), m.kind == "string",
                                                       _mention_order(m)))[0]
        shown = ", ".join(repr(v) for v in dict.fromkeys(_loaded_values(first, graph, loads) or ()))
        return ElementResult(category, name, ABSENT,
                             f"the loading code reached through its name receives {shown} at {first.ref}, "
                             f"not its data", tuple(sorted(found[ELSEWHERE], key=_mention_order)))
    if found[MISSING]:
        first = sorted(found[MISSING], key=_mention_order)[0]
        return ElementResult(category, name, ABSENT,
                             f"only called at {first.ref}, from {missing_from[first]}, a module "
                             f"the repository does not hold", tuple(sorted(found[MISSING], key=_mention_order)))
    if found[DEAD]:
        first = sorted(found[DEAD], key=_mention_order)[0]
        branch = graph.graph.nodes[first.scope].get("why") if first.scope in graph.graph else None
        where = (f"an `if` arm no run takes at {first.ref}: {branch}" if branch
                 else f"{first.scope} at {first.ref}, which no entry point reaches")
        return ElementResult(category, name, ABSENT, f"{_DEAD_NOTE}: {where}",
                             tuple(sorted(found[DEAD], key=_mention_order)))
    if generic_live:
        unwritten = _unwritten(category, name, index, generic_live)
        if unwritten is not None:
            return unwritten
        best = sorted(generic_live, key=_mention_order)
        return ElementResult(category, name, AMBIGUOUS,
                             f"only a generic term or one without the element's number matches, at {best[0].ref}",
                             tuple(best), hint=True)
    bound = _number_bound(name, index) if category == "scope" else None
    if bound is None and any(_skipped(m, data, claim) for m in found[TRACE]) and \
            all(_skipped(m, data, claim) or m in data.unread_defaults for m in found[TRACE]):
        # its own name, only as listed settings the loops skip (and defaults nothing reads): a related name adds
        # nothing
        return _traced(category, name, found[TRACE])
    related = _related(terms, graph, matched, index.analysis(attribute_parts))
    if related is not None or bound is not None:
        unwritten = _unwritten(category, name, index, [related] if related is not None else [])
        if unwritten is not None:
            return unwritten
    if related is not None and _kin(related.text, terms, graph):
        # reward_lambda for "reward multiplier lambda": the spec's aliases may have missed it
        return ElementResult(category, name, AMBIGUOUS,
                             f"not named, but live code uses a related name ({related.text!r} at {related.ref})",
                             (related,), hint=True)
    if bound is not None:  # S, A = 16, 16 for "16 states x 16 actions": maybe under a name the claim does not use
        return ElementResult(category, name, AMBIGUOUS,
                             f"not named, but live code binds its number {show_value(bound.value)} to "
                             f"{bound.name!r} at {bound.ref}", (bound,), hint=True)
    if found[TRACE]:
        return _traced(category, name, found[TRACE])
    if found[DISPLAY]:
        first = found[DISPLAY][0]
        return ElementResult(category, name, ABSENT, f"only shown in a message at {first.ref}", (first,))
    trace = _text_trace(specific, index)
    if trace is not None:
        return ElementResult(category, name, ABSENT, f"only in comments, docstrings or text ({trace.ref})", (trace,))
    if related is not None:
        return ElementResult(category, name, ABSENT,
                             f"not named; the nearest live name ({related.text!r} at {related.ref}) only shares a "
                             f"word with it", (related,))
    return ElementResult(category, name, ABSENT, "no trace anywhere")


def _metric_option(mention: Mention, index: RepositoryIndex | None) -> bool:
    """Whether the ``add_argument`` whose default holds ``mention`` declares an option named with a word of
    ``metric_option_words`` (``--benchmarks``, ``--eval_metric``); without ``index``, whether any option may."""
    if index is None:
        return True
    return any(line <= mention.line <= end and set(words(name)) & _METRIC_OPTIONS
               for line, end, name in index.analysis(_options_by_source).get(mention.where, ()))


def _config_hits(terms: list[str], index: RepositoryIndex) -> tuple[list[Fact], list[Fact]]:
    """The configuration keys (their dotted path or string value) and the values launchers pass to an option their
    program declares that hold one of ``terms``: (those ``term_matches`` finds it in, those ``glued_in`` finds it
    in), configuration keys first, test files aside; each text tested once for both (``_match_kind``)."""
    matched: tuple[list[Fact], list[Fact]] = ([], [])
    configs = [(f, (f.path, f.value) if isinstance(f.value, str) else (f.path,)) for f in index.facts
               if f.kind == K.CONFIG and not is_test_path(f.file)]
    launched = [(f, (f.value,)) for f in index.facts if f.kind == K.LAUNCHER and isinstance(f.value, str)]
    for fact, texts in configs + launched:
        kinds = {_match_kind(t, text) for t in terms for text in texts}
        if not kinds & {_MATCH, _DOUBT} or (fact.kind != K.CONFIG and accepting_program(index, fact) is None):
            continue
        for kind, found in zip((_MATCH, _DOUBT), matched):
            if kind in kinds:
                found.append(fact)
    return matched


def _metric_setting(fact: Fact) -> bool:
    """Whether a configuration key or a launcher's option holding a metric's name asks for the metric to be
    computed: its own name has a word of ``metric_option_words`` (``eval_metrics: [fid]``, ``--benchmarks mmlu``),
    or a section holding it does, other than an evaluation's (``metrics: {bleu: ...}``; ``eval: {precision: bf16}``
    sets a number format), and its value does not switch it off (``ruler_benchmark_enabled: false``).
    ``--relevance return`` picks a priority function, ``mixed_precision: "bf16"`` a number format: neither computes
    a return or a precision."""
    *sections, own = fact.path.split(".")
    return (bool(set(words(own)) & _METRIC_OPTIONS) or any(set(words(s)) & _METRIC_SECTIONS for s in sections)) \
        and fact.value not in (False, None, 0)


def _options_by_source(index: RepositoryIndex) -> dict[str, list[tuple[int, int, str]]]:
    """Analysis provider: source key -> the (first line, last line, dest name) of each ``add_argument`` in it."""
    found: dict[str, list[tuple[int, int, str]]] = {}
    for fact in index.facts:
        if fact.kind == K.ARGPARSE:
            found.setdefault(fact.where, []).append((fact.line, fact.end_line, fact.name))
    return found


def _raised(mention: Mention) -> bool:
    """Whether ``mention`` is a string handed to an exception's constructor (``RuntimeError("... compiler reward
    ...")``): a message, like a printed one."""
    return argument_callee(mention.context).endswith(("Error", "Exception", "Warning"))


def _several(name: str) -> bool:
    """Whether an element's ``name`` says it runs several values of a setting: a word of ``sweep_words``
    (``rules/roles.yaml``: "n sweep", "several data sizes") or a last word "grid" ("learning rate grid"; "grid
    recursion" names a spatial grid)."""
    name_words = words(name)
    return bool(set(name_words) & _SWEEP_WORDS) or bool(name_words) and name_words[-1] == "grid"


def _loads_for(called: str) -> bool:
    """Whether the called name ``called`` loads or prepares data (its last part holds a word of ``loader_words`` and
    none of ``non_data_words``, or a word of ``data_preparation_words``): ``_load_apps_ppo_prompts`` and
    ``_format_and_tokenize_ppo`` get prompts for PPO, and matching their word "ppo" builds no PPO."""
    called_words = set(words(called.rsplit(".", 1)[-1]))
    return bool(called_words & _LOADER_WORDS) and not called_words & _NON_DATA_WORDS \
        or bool(called_words & _DATA_PREPARATION)


def _loads_other(mention: Mention, graph: CallGraph, loads: LoaderValues, terms: list[str]) -> bool:
    """Whether a live mention of a dataset shows the code loading something else (``rules.d3_loads``): a name a
    loader call receives (``DATASET_PATHS[TASK_HH_RLHF]``) resolving to strings none of ``terms`` matches, or the
    definition or call of a repository class or function named after the dataset (``HHRLHFSFTDataset``) whose body
    loads only such strings, or the string a constant such a loader argument resolves through is bound to
    (``TASK_HH_RLHF = "hh_rlhf"``: the loaders it reaches decide). A name or body whose loads do not all resolve
    may load it: ``False``."""
    values = _loaded_values(mention, graph, loads)
    return values is not None and not any(term_matches(t, v) for t in terms for v in values)


def _loaded_values(mention: Mention, graph: CallGraph, loads: LoaderValues) -> tuple[str, ...] | None:
    """The strings the loading code a mention names receives (``rules.d3_loads``): the loader call whose argument
    resolves through a name, the loader calls of the body of a class or function defined or called, or the loader
    arguments resolving through the module constant a string is bound to; ``None`` when they do not all resolve or
    the mention is none of these (a string bound to a function's local: ``rules.d3_loads``)."""
    calls = _string_loads(mention, graph, loads)
    if calls is not None:
        if mention.scope in graph.functions:  # a local's string never shows other data loaded (rules.d3_loads)
            return None
        values = [v for call in calls for v in call.values]
        return tuple(values) if values else None
    if mention.kind == "name" and mention.context.startswith("arg:"):
        return loads.at(mention.file, mention.line, mention.text)
    if mention.kind == "definition" or (mention.kind == "name" and mention.context == "call"):
        span = _defined_span(mention, graph)
        return loads.within(*span) if span is not None else None
    return None


def _string_loads(mention: Mention, graph: CallGraph, loads: LoaderValues) -> list[LoadedValue] | None:
    """The loader calls receiving a string through the one name it is bound to (``rules.d3_loads``): a module-level
    constant's (``OWT = "openwebtext"``), or a function's local's (``name = "openwebtext"``, then
    ``load_dataset(name)`` in that function); ``None`` when ``mention`` is no string bound alone to a name."""
    if mention.kind != "string" or mention.context != "literal" or mention.within:
        return None
    bound = [m.text for m in graph.mentions.get(mention.scope, ()) if m.kind == "binding"
             and m.context == "bind:literal" and m.file == mention.file and m.line == mention.line]
    if len(bound) != 1:
        return None
    if mention.scope in graph.functions:  # a local's name means nothing outside its function
        return loads.bound_at(mention.file, mention.line)
    return loads.calls_through(bound[0])


def _loaded_through(mention: Mention, graph: CallGraph, loads: LoaderValues, terms: list[str],
                    data: Flow) -> Mention | None:
    """The live call of a data loader (not a tokenizer's or a checkpoint's: ``LoadedValue.data``) that receives a
    dataset's string through the name it is bound to (``_string_loads``), resolving to a value one of ``terms``
    matches, and that runs (its ``if`` tests select it by strings a run can supply: ``rules.d3_flow.supplied``);
    ``None`` when there is none. The string is then loaded as if written in the call (CONVENTIONS.md, "a path ...
    that reaches a loader"), as ``_loads_other`` reads a constant's resolution the other way."""
    calls = [c for c in _string_loads(mention, graph, loads) or () if c.data
             and any(term_matches(t, v) for t in terms for v in (*c.values, *c.local_values))]
    if not calls:
        return None
    scopes = [mention.scope] if mention.scope in graph.functions else list(graph.mentions)
    for scope in scopes:
        if graph.liveness(scope) != LIVE:
            continue
        for m in graph.mentions.get(scope, ()):
            if m.context == "call" and any(m.file == c.file and m.line == c.line for c in calls) \
                    and supplied(m, data):
                return m
    return None


def _defined_span(mention: Mention, graph: CallGraph) -> tuple[str, int, int] | None:
    """The file and lines of the repository class or function a definition or call mention names: the mention's
    own scope for a definition, the one node whose last name part it is for a call; ``None`` otherwise."""
    if mention.kind == "definition":
        nodes = [mention.scope]
    else:
        last = mention.text.rsplit(".", 1)[-1]
        nodes = [n for n in graph.graph if isinstance(n, str) and n.rsplit(".", 1)[-1] == last]
    if len(nodes) != 1 or nodes[0] not in graph.graph:
        return None
    attrs = graph.graph.nodes[nodes[0]]
    if "file" not in attrs or "line" not in attrs:
        return None
    return attrs["file"], attrs["line"], attrs.get("end_line", attrs["line"])


def _traced(category: str, name: str, traces: list[Mention]) -> ElementResult:
    """The absent result of an element live code names only in ``traces``, the first of them as evidence."""
    first = sorted(traces, key=_mention_order)[0]
    return ElementResult(category, name, ABSENT,
                         f"only named by a constant, a table of written-out values, a plot, a value of another "
                         f"metric, a stub or a listed setting no loop runs, at {first.ref}, never "
                         f"{_ROLE_WORDS[category]}",
                         (first,))


def _runs_stub(mention: Mention, graph: CallGraph, index: RepositoryIndex) -> bool:
    """Whether ``mention`` defines or calls one of the repository's whole-function stubs (``rules.d2_stubs``), or a
    class whose own methods are all such stubs (``rules.d3_values.stub_classes``): a function named after a metric
    or dataset whose body computes nothing, or a baseline class whose method raises ``NotImplementedError``, names
    it without computing, loading or running it (ARCHITECTURE.md, "Stubs")."""
    stubbed = index.analysis(stub_nodes)
    if not stubbed:
        return False
    classes = index.analysis(stub_classes)  # a class whose own methods are all stubs builds nothing
    if mention.kind == "definition":
        return mention.scope in stubbed or mention.scope in classes
    return mention.context == "call" and any(
        site.line == mention.line and (site.callee in stubbed or site.callee in classes)
        and site.target.rsplit(".", 1)[-1] ==
        mention.text.rsplit(".", 1)[-1] for site in graph.callees_in_order(mention.scope))


def _skipped(mention: Mention, data: Flow, claim: frozenset[str] = frozenset()) -> bool:
    """Whether ``mention`` is a listed setting the live loops skip (in the table entries serving ``claim``), or a
    string compared where only such settings write it (``rules.d3_flow``): the code says outright that the element
    does not run."""
    if mention.within:
        return loop_runs(mention, data, claim)[0] == Run.SKIPPED
    return mention.context in ("compare", "select") and mention.kind == "string" \
        and skipped_only((mention.text,), data)


def _term_hits(index: RepositoryIndex) -> Callable[[str], tuple[frozenset[str], frozenset[str]]]:
    """Analysis provider: a function from a claim term to the mention texts of the call graph it matches
    (``term_matches``) and those holding it only inside a word (``glued_in``), each term's found once per
    repository: the elements of a paper's SAUs share their terms."""
    return _hits_in(index.analysis(build_call_graph), {})


def _hits_in(graph: CallGraph, known: dict[str, tuple[frozenset[str], frozenset[str]]]
             ) -> Callable[[str], tuple[frozenset[str], frozenset[str]]]:
    """A function from a term to the mention texts of ``graph`` it matches and those holding it only inside a
    word, remembered in ``known``."""
    texts = [(text, squash(text)) for text in graph.mentions_by_text()]
    by_word: dict[str, set[str]] = {}  # a word -> the texts holding it
    for text, _ in texts:
        for word in words(text):
            by_word.setdefault(word, set()).add(text)

    def hits(term: str) -> tuple[frozenset[str], frozenset[str]]:
        if term not in known:
            kinds = {text: _match_kind(term, text) for text in _candidates(term)}
            known[term] = (frozenset(text for text, kind in kinds.items() if kind == _MATCH),
                           frozenset(text for text, kind in kinds.items() if kind == _DOUBT))
        return known[term]

    def _candidates(term: str) -> set[str]:
        """The texts ``term_matches`` may accept: those holding the squashed term, and those holding every word of
        the term (another word order, ``_run_any_order``); it rejects every other text."""
        squashed = squash(term)
        if not squashed:
            return set()
        found = {text for text, text_squashed in texts if squashed in text_squashed}
        needle = words(term)
        if len(needle) > 1 and not _whole_only(term):
            found |= set.intersection(*(by_word.get(word, set()) for word in set(needle)))
        return found

    return hits


ROLE, UNKNOWN, TRACE = "role", "unknown", "trace"
MISSING = "missing"  # a call into a module of the repository's layout that the repository does not hold
DISPLAY = "display"  # a text shown to people: a display string, or a string bound to a name only shown
ELSEWHERE = "elsewhere"  # a loader reached through its name, a class named after it, loading other data
GLUED = "glued"  # the term only inside a word of a name (``glued_in``): that thing or another
_DEAD_NOTE = "only in dead code"


def only_dead(result: ElementResult) -> bool:
    """Whether an element's lookup found it implemented only in code no entry point reaches (its note says so)."""
    return result.note.startswith(_DEAD_NOTE)
_ROLE_WORDS = {"datasets": "loaded or built", "metrics": "computed", "baselines": "built or run",
               "scope": "run"}
_LOADER_WORDS = roles.words("loader_words")
_PREPROCESSOR_WORDS = roles.words("preprocessor_words")
_METRIC_CALL_WORDS = roles.words("metric_call_words")
_PLOT_CALLS = roles.words("plot_calls")
_PLOT_FUNCTION_WORDS = roles.words("plot_function_words")
_FILLING = frozenset(word_list("filling_methods"))
_CONFIG_CALLS = roles.words("config_calls")
_TEXT_PARSING = roles.words("text_parsing_calls")
_SWEEP_WORDS = roles.words("sweep_words")
_DATA_PREPARATION = roles.words("data_preparation_words")
_METRIC_OPTIONS = roles.words("metric_option_words")
# a section named for metrics lists them (evaluation.metrics.delta_metrics.incorrect_to_correct); an evaluation
# section also holds its other settings (eval.precision: bf16)
_METRIC_SECTIONS = frozenset(w for w in _METRIC_OPTIONS if not w.startswith("eval"))
_NON_DATA_WORDS = roles.words("non_data_words")
_METRIC_NAMES = frozenset(w for w in word_list("result_names", "rules") if not is_generic(w) and " " not in w)


def role(category: str, mention: Mention, constants: frozenset[str], terms: tuple[str, ...] = (),
         data: Flow | None = None, index: RepositoryIndex | None = None, claim: frozenset[str] = frozenset()) -> str:
    """What a live, non-display mention of an element of ``category`` shows (``_role``; ``claim`` as for
    ``decide_element``), except that a use under ``if`` tests selecting it by strings no code, configuration or
    launcher supplies is undecided: it runs only if someone passes such a string (``rules.d3_flow.supplied``)."""
    found = _role(category, mention, constants, terms, data, index, claim)
    if found == ROLE and data is not None and not supplied(mention, data):
        return TRACE if skipped_only(mention.guards, data) else UNKNOWN
    if found == UNKNOWN and data is not None and mention.context in ("compare", "select") \
            and mention.kind == "string":
        if skipped_only((mention.text,), data):
            return TRACE  # if kind == "max_variance": where only a skipped listed setting writes that string
        if mention.context == "select" and category in _SELECTED and supplied(mention, data) \
                and (selects(mention, data) or index is not None and typed_freely(mention, index)):
            # elif assignment == "unit": with "unit" an option's choice, or any text a free option passes, unless
            # the arm it selects only reports that it is not implemented
            return TRACE if index is not None and in_stub_arm(mention, index) else ROLE
    return found


def _role(category: str, mention: Mention, constants: frozenset[str], terms: tuple[str, ...] = (),
          data: Flow | None = None, index: RepositoryIndex | None = None, claim: frozenset[str] = frozenset()) -> str:
    """What a live, non-display mention of an element of ``category`` shows: ``role`` (it loads or builds the
    dataset, computes the metric, builds or runs the baseline or setting), ``trace`` (a constant written out, a
    table of literal values, data handed to a plot: the element is named, never used) or ``unknown`` (named in
    code whose role cannot be told from the syntax: a variable passed on, a string compared or listed).
    ``constants`` are the identifiers bound only to literals (``literal_constants``); ``terms`` the element's name
    and aliases (a metric's name bound to a call computing another metric is not that metric); ``data`` the
    repository's ``rules.d3_flow.Flow`` (without it, computed values and listed settings are not followed);
    ``index`` the repository (without it, a metric's value fed by a stub or by a function returning only constants
    counts as computed: ``rules.d3_values``); ``claim`` the claim's words, choosing among a table's keyed entries
    that hold a listed setting (``rules.d3_flow.loop_runs``)."""
    context, kind = mention.context, mention.kind
    if data is not None and shown_only(mention, data):
        return DISPLAY  # label = "High Variance Reward" handed only to plt.plot(..., label=label)
    if category == "metrics":
        metric = _metric_role(mention, data, terms, index)
        if metric is not None:
            return metric
    if data is not None and mention in data.unread_defaults:
        return TRACE  # def make(kind, reward="high_variance") never reading reward: the default reaches nothing
    if data is not None and mention.within and kind in ("string", "name") and \
            (context in _LISTED or context.startswith("slice:")):
        run, _ = loop_runs(mention, data, claim)
        if run != Run.UNDECIDED:  # a listed setting a live loop runs, or skips while running the list
            return ROLE if run == Run.RUN else TRACE
    callee, keyword = argument_of(context)
    callee_words = set(words(callee.rsplit(".", 1)[-1])) if callee else set()
    if callee and callee.rsplit(".", 1)[-1].lower() in _PLOT_CALLS:
        return TRACE
    if context.startswith("bind:call:"):
        ctor = context[len("bind:call:"):]
        if ctor in _CONFIG_CALLS or ctor.rsplit(".", 1)[-1] in _CONFIG_CALLS:
            return UNKNOWN
        if category == "metrics" and _judge(terms, index)(ctor):
            return TRACE  # mcc = accuracy_score(...): the name says one metric, the call computes another
        if category == "metrics" and (ctor.rsplit(".", 1)[-1] in _TEXT_PARSING or not ctor and any(
                read.rsplit(".", 1)[-1] in _TEXT_PARSING for read in mention.reads)):
            return UNKNOWN  # image_path, caption = line.split(","): a field of the data, not a computed metric
        last = ctor.rsplit(".", 1)[-1]
        if category == "baselines" and not (last[:1].isupper() or set(words(last)) & _LOADER_WORDS):
            return UNKNOWN  # base_model_outputs = self.model(...): a result named after it, not the model built
        return ROLE
    if kind == "definition" or context == "call":
        return ROLE
    if kind == "binding":
        if context == "bind:computed":
            return _computed(mention, data, terms, index) if category == "metrics" else UNKNOWN
        if context == "bind:literal" and category == "metrics" and data is not None \
                and (mention.scope, mention.text) in data.filled:
            # losses = [] then losses.append(...): a collection the code fills in holds what is put in it
            return UNKNOWN if name_source(mention, data, _judge(terms, index)) == Source.COMPUTED else TRACE
        return TRACE if context == "bind:literal" and (category == "metrics" or mention.text in constants) \
            else UNKNOWN
    if context == "key:computed":
        return _computed(mention, data, terms, index) if category == "metrics" else UNKNOWN
    if context in ("key:literal", "literal"):
        return TRACE if category == "metrics" else UNKNOWN
    if callee.rsplit(".", 1)[-1] == "add_argument" and keyword == "default" and kind == "string":
        # the setting a run gets unless its launcher says otherwise; for a metric, only an option naming metrics or
        # benchmarks (--benchmarks mmlu) says it is computed (--relevance curiosity picks a priority function)
        return ROLE if category != "metrics" or _metric_option(mention, index) else UNKNOWN
    if callee and category in ("baselines", "scope") and \
            set(words(callee.rsplit(".", 1)[0])) & _PREPROCESSOR_WORDS and \
            not any(set(words(t)) & _PREPROCESSOR_WORDS for t in terms):
        # AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf") loads no Llama model (but the LLaMA-2 tokenizer)
        return UNKNOWN
    if callee:
        wanted = _METRIC_CALL_WORDS if category == "metrics" else _LOADER_WORDS
        if kind == "string" and callee_words & wanted:
            return ROLE
        if kind == "name" and category != "metrics" and callee_words & _LOADER_WORDS:
            return ROLE
    if kind == "name" and mention.text.rsplit(".", 1)[-1] in constants:
        return TRACE
    if kind == "name" and category == "metrics" and data is not None and \
            name_source(mention, data, _judge(terms, index)) != Source.COMPUTED:
        return TRACE  # float(mcc) where mcc = accuracy_score(...): the name holds a constant or another metric
    return UNKNOWN


_SELECTED = ("scope", "baselines")  # settings and methods a string dispatch selects; a dataset's must be loaded
_LISTED = ("literal", "", "key:literal", "key:computed")  # contexts of an element of a table bound to a name


def _computed(mention: Mention, data: Flow | None, terms: tuple[str, ...],
              index: RepositoryIndex | None = None) -> str:
    """The role of a metric's name or key bound to a computed value: a trace when the value holds a constant,
    another metric or a stub's result (``rules.d3_flow.value_source``, ``rules.d3_values``), computed otherwise."""
    if data is None:
        return ROLE
    source = value_source(mention, data, _judge(terms, index))
    return ROLE if source == Source.COMPUTED else TRACE


def _judge(terms: tuple[str, ...], index: RepositoryIndex | None) -> Callable[[str], bool]:
    """The callee test of ``rules.d3_flow.value_source`` for the metric ``terms`` name: another metric's call
    and, with ``index``, a stub's or a function's returning no computed value (``rules.d3_values.uncomputed``)."""
    def other(callee: str) -> bool:
        return _other_metric(callee, terms)
    return other if index is None else uncomputed(terms, index, other)


_FIGURE_FILE = re.compile(r"\.(png|pdf|svg|jpe?g|eps)$", re.IGNORECASE)


def _metric_role(mention: Mention, data: Flow | None, terms: tuple[str, ...],
                 index: RepositoryIndex | None) -> str | None:
    """The role of a metric's mention that the value it fills or returns decides, or ``None`` when ``_role``'s
    general cases do: a figure's file name (``"fig5_condition_numbers.png"``) and a repository function named to
    plot (``plot_condition_numbers``: ``plot_function_words``) are traces; ``scores.append(v)`` and the ``bind:item``
    binding it records compute the metric when ``v`` is computed (``rules.d3_flow.value_source``); the definition
    or a call of a repository function every ``return`` of which holds a constant, another metric or a stub's
    result (``layer_condition_numbers`` returning lists of ``condition_number(...)``, a stub) is a trace."""
    context, kind = mention.context, mention.kind
    if kind == "string" and _FIGURE_FILE.search(mention.text.strip()):
        return TRACE
    if kind in ("definition", "name") and (kind == "definition" or context == "call"):
        last = mention.text.rsplit(".", 1)[-1]
        name_words = words(last)
        if name_words and name_words[0] in _PLOT_FUNCTION_WORDS:
            return TRACE
        if data is None or index is None:
            return None
        receiver, _, method = mention.text.rpartition(".")
        if kind == "name" and receiver and method in _FILLING:  # scores.append(v): what v holds
            filling = [b for b in data.bound_at.get((mention.where, mention.line), ())
                       if b.context == "bind:item" and b.text == receiver.rsplit(".", 1)[-1]
                       and b.scope == mention.scope]
            return _computed(filling[0], data, terms, index) if filling and filling[0].reads else None
        callee = mention.scope if kind == "definition" else mention.text
        if kind == "definition" and mention.scope not in data.graph.functions:
            return None  # a class: its methods decide
        return TRACE if _judge(terms, index)(callee) else None
    if kind == "binding" and context == "bind:item" and data is not None:
        return _computed(mention, data, terms, index) if mention.reads else UNKNOWN
    return None


def _other_metric(callee: str, terms: tuple[str, ...]) -> bool:
    """Whether ``callee``'s last name part names a metric (``rules/words.yaml``, ``result_names``, generic terms
    left out) that none of ``terms`` names: ``accuracy_score`` for Matthews correlation."""
    named = {w for w in words(callee.rsplit(".", 1)[-1]) if w in _METRIC_NAMES}
    return bool(named - {w for t in terms for w in words(t)})


def literal_constants(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: identifiers every live binding of which is a literal (``PALETTE_DAVIS = b"..."``) and
    that no loader call is handed (``Mention.context``; a key or name the loader's argument resolves through to
    its value, ``rules.d3_loads``, is not handed over) and no live loop iterates (``high_ranked_models = [...]``
    run by ``for target in high_ranked_models[:2]`` is a table of settings); read elsewhere, such a name is a
    constant named after something, not the thing."""
    graph = index.analysis(build_call_graph)
    loads = index.analysis(loader_values)
    literal: set[str] = set()
    other: set[str] = set()
    for scope, mentions in graph.mentions.items():
        for mention in mentions:
            last = mention.text.rsplit(".", 1)[-1]
            if mention.kind == "binding":
                (literal if mention.context == "bind:literal" else other).add(last)
            elif mention.kind == "name" and set(words(argument_callee(mention.context))) & _LOADER_WORDS and \
                    loads.at(mention.file, mention.line, mention.text) is None:
                # a key resolved to the value the loader gets (DATASET_PATHS[TASK_HH_RLHF]): that value is loaded
                other.add(last)
    return frozenset(literal - other - set(index.analysis(flow).loops))


_VALUE_LIST = re.compile(r"-?\d+(?:\.\d+)?(?:\s*[/,]\s*-?\d+(?:\.\d+)?)+")


def _values_run(name: str, index: RepositoryIndex, data: Flow) -> tuple[Fact, Mention] | None:
    """For an element naming a list of values (``k_3 values 0/0.3/0.6/0.9``, ``ranks 8/16/24``), the first list
    binding exactly those values that a live loop runs (``rules.d3_flow.values_run``) and that loop, or ``None``."""
    match = _VALUE_LIST.search(name)
    if match is None:
        return None
    claimed = sorted({float(v) for v in re.split(r"\s*[/,]\s*", match.group())})
    for fact in index.facts:
        value = fact.value
        if fact.kind not in (K.CONFIG, K.ASSIGNMENT) or not isinstance(value, tuple) or is_test_path(fact.file) \
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            continue
        if sorted({float(v) for v in value}) == claimed:
            loop = values_run(fact, data)
            if loop is not None:
                return fact, loop
    return None


_COUNTED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:x\s+)?([a-z][a-z_-]*)", re.IGNORECASE)  # "16 states", "10 seeds"
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_BOUND_KINDS = (K.ASSIGNMENT, K.KEYWORD, K.FIELD, K.DEFAULT, K.ARGPARSE, K.DICT, K.GET_DEFAULT, K.LAUNCHER)


_TUPLE_SETTING = re.compile(r"\(([^()]*)\)\s*=\s*\(([^()]*)\)")  # "(S,A) = (3,3)"
_KEY_SETTING = re.compile(r"([a-z_]\w*)\s*=\s*(\d+(?:\.\d+)?)(?![\w.])", re.IGNORECASE)  # "k=1"


def _counted(name: str) -> list[tuple[float, str]]:
    """The (number, word) pairs of an element naming settings: ``16 states x 16 actions`` -> ``[(16, "states"),
    (16, "actions")]``, ``(S,A) = (3,3)`` -> ``[(3, "s"), (3, "a")]``; empty when its name holds another number
    as well."""
    tuple_setting = _TUPLE_SETTING.search(name)
    if tuple_setting is not None:
        names_, numbers = (part.split(",") for part in tuple_setting.groups())
        pairs = [(n.strip(), w.strip().lower()) for w, n in zip(names_, numbers)]
        ok = len(names_) == len(numbers) and all(_NUMBER.fullmatch(n) and w for n, w in pairs)
        return [(float(n), w) for n, w in pairs] if ok else []
    pairs = [(float(n), w.lower()) for w, n in _KEY_SETTING.findall(name)] or \
        [(float(n), w.lower()) for n, w in _COUNTED.findall(name)]
    return pairs if pairs and len(pairs) == len(_NUMBER.findall(name)) else []


def _knob_names(word: str) -> set[str]:
    """Names code binds a count of ``word`` under: the word, its singular, ``n_``/``num_`` forms, and its
    one-letter initial (``S`` for states), squashed."""
    singular = word[:-1] if word.endswith("s") and len(word) > 3 else word
    forms = {squash(word), squash(singular)}
    return forms | {prefix + f for f in forms for prefix in ("n", "num", "number")} | {squash(word)[:1]}


def _live_numbers(index: RepositoryIndex) -> list[tuple[Fact, frozenset[float]]]:
    """Analysis provider: the numeric bindings (assignments, keywords, fields, defaults, options, and loop
    variables over literal lists: ``for S, A in [(3, 3), (9, 9)]``) of live code outside tests, each with the
    numbers it binds."""
    liveness = index.analysis(binding_liveness)
    out = []
    for fact in index.facts:
        values = (fact.value,) if fact.kind in _BOUND_KINDS else fact.value if fact.kind == K.LOOP else ()
        numbers = frozenset(float(v) for v in values if is_number(v)) if isinstance(values, tuple) else frozenset()
        if numbers and not is_test_path(fact.file) and \
                (fact.kind in (K.ARGPARSE, K.LAUNCHER) or liveness(fact) == LIVE):
            out.append((fact, numbers))
    return out


def _numbered_bindings(name: str, index: RepositoryIndex) -> tuple[Fact, ...]:
    """For an element naming settings by number (``16 states x 16 actions``), one live binding per pair holding
    its number under a name of its word (``S, A = 16, 16``, ``MDPConfig(S=16, A=16)``, ``for S, A in [(16,
    16)]``); empty unless every pair has one."""
    found = []
    facts = index.analysis(_live_numbers)
    for number, word in _counted(name):
        knobs = _knob_names(word)
        match = next((f for f, numbers in facts if number in numbers and squash(f.name) in knobs), None)
        if match is None:
            return ()
        found.append(match)
    return tuple(found)


def _number_bound(name: str, index: RepositoryIndex) -> Fact | None:
    """The first live binding holding a number of the element's name other than 0 and 1 (bound everywhere) under
    a name of one of its words (``_knob_names``: ``P = 8`` for "P in {4, 8}", ``gamma = 0.8``), or ``None``: the
    setting may be there in a form the claim does not spell out."""
    wanted = claimed_numbers(name) - {0.0, 1.0}
    knobs = {k for word in _NOT_ALNUM.split(name.lower()) if word and not word.isdigit() for k in _knob_names(word)}
    claim_words = _setting_words(name)

    def named(fact: Fact) -> bool:  # total_steps for "500k steps": its words, fillers left out, among the claim's
        own = _setting_words(fact.name)
        return squash(fact.name) in knobs or bool(own) and own <= claim_words

    return next((f for f, numbers in index.analysis(_live_numbers)
                 if any(_same_count(w, n) for w in wanted for n in numbers) and named(f)), None) if wanted else None


_CLAIMED_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)([kmb]?)(?![\w.])", re.IGNORECASE)
# commas between digit groups of three are thousands separators (``10,000 trials``), not a list (``{1,2,4}``,
# ``{100,200,300}``: a number opening a brace or bracket starts a list)
_THOUSANDS = re.compile(r"(?<![\d,.{\[])\d{1,3}(?:,\d{3})+(?![\d,.])")
_MAGNITUDE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9}


def claimed_numbers(text: str) -> set[float]:
    """The numbers a claim's element writes, a thousand, million or billion suffix read as such (``500k steps`` ->
    ``{500000.0}``, ``2.5M steps`` -> ``{2500000.0}``, ``top-k in {1, 2, 4}`` -> ``{1.0, 2.0, 4.0}``, ``10,000
    trials`` -> ``{10000.0}``); a number glued to a word (``v3``, ``fp16``) is none."""
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    return {float(number) * _MAGNITUDE[suffix.lower()] for number, suffix in _CLAIMED_NUMBER.findall(text)}


_FILLER = frozenset({"in", "of", "x", "and", "to", "at", "with", "the", "a", "per", "vs", "n", "num", "number",
                     "size", "count", "max", "total"})  # words that name no knob of their own


def _setting_words(text: str) -> frozenset[str]:
    """The words of a setting's name without numbers and fillers, singular (``55 epochs`` -> ``{epoch}``,
    ``num_epochs`` -> ``{epoch}``)."""
    out = set()
    for word in _NOT_ALNUM.split(text.lower()):
        if word and not _DIGIT.search(word) and word not in _FILLER:
            out.add(word[:-1] if word.endswith("s") and len(word) > 3 else word)
    return frozenset(out)


def _knob_setting(name: str, mentions: list[Mention], index: RepositoryIndex, aliases: list[str] | None = None
                  ) -> tuple[Outcome, tuple[Fact, ...], str, tuple[float, ...]] | None:
    """For a setting named by a knob and its values (``55 epochs``, ``Top-K in {1, 2, 4}``, ``temperature 0.7``),
    whose knob live code names (``mentions``, matched by a term without the number: ``epochs``), what the knob's
    bindings hold: present when they hold every claimed value, absent when none or, for a sweep of several
    values, only some (``top_k`` bound only to 4 for "Top-K in {1, 2, 4}": the other values never run), with
    those bindings, the knob and, when they hold some, the claimed values they lack; ``None`` when the knob's
    words are neither exactly the setting's nor those of one of its ``aliases`` (``frame_skip`` for "action repeat
    2"; an alias of three letters or fewer or an ordinary word, as ``k`` or ``lr``, names no knob) or a binding of
    any such knob is worked out at run time or passed in from another name than a knob of the setting (``n_trials =
    cfg.num_trials`` only copies ``num_trials``, whose bindings decide)."""
    claimed = claimed_numbers(name)
    wanted = _setting_words(name)
    if not claimed or not wanted:
        return None
    knob_words = {wanted} | {_setting_words(a) for a in aliases or () if not _whole_only(a) and not _DIGIT.search(a)}
    partial: tuple[Outcome, tuple[Fact, ...], str, tuple[float, ...]] | None = None
    decided: tuple[Outcome, tuple[Fact, ...], str, tuple[float, ...]] | None = None
    attributes = index.analysis(attribute_parts)
    # a library's function is no knob (torch.topk for "Top-K"): neither a call's name nor an attribute it reads
    knobs = sorted({m.text.rsplit(".", 1)[-1] for m in mentions if m.kind == "binding" or m.kind == "name"
                    and m.context != "call" and (m.where, m.line, m.text) not in attributes})
    knobs = [k for k in knobs if _setting_words(k) in knob_words]
    for knob in knobs:
        facts = _knob_bindings(knob, index)
        # n_trials = cfg.num_trials: a copy of another knob of the setting, whose own bindings decide
        copies = [f for f in facts if f.value is None and not f.computed and f.source != knob and f.source in knobs]
        facts = [f for f in facts if f not in copies]
        if copies and not facts:
            continue
        if not facts or any(f.value is None and (f.computed or f.source != knob) for f in facts):
            return None
        at = {(f.file, f.line) for f in (*facts, *copies)}
        graph = index.analysis(build_call_graph)
        if any(m.kind == "binding" and m.context != "bind:literal" and (m.file, m.line) not in at
               and graph.live(m.scope) and not _passes_parameter(m, knob, index)
               for text in (knob, f"self.{knob}") for m in graph.mentions_by_text().get(text, ())):
            return None  # temperature = args.temperature * 0.5: worked out where no fact holds it
        bound = {float(v): f for f in facts for v in (f.value if isinstance(f.value, tuple) else (f.value,))
                 if is_number(v)}
        if not bound or any(f.value is not None and not any(is_number(v) for v in (
                f.value if isinstance(f.value, tuple) else (f.value,))) for f in facts):
            return None
        found = {c: b for c in claimed for b in sorted(bound) if _same_count(c, b)}
        held = tuple(dict.fromkeys(bound[v] for v in sorted(bound)))
        if set(found) == claimed or not found:
            # the first knob decides, but only when no other knob of the setting is worked out at run time
            # (n_episodes = cfg.episodes // 2 beside episodes = 500)
            decided = decided or ((PRESENT, tuple(dict.fromkeys(bound[found[v]] for v in sorted(claimed))), knob, ())
                                  if found else (ABSENT, held, knob, ()))
            continue
        # a sweep (Top-K in {1, 2, 4}) whose knob takes only some of its values never runs the others, unless
        # another name of the same words (ranks beside rank) holds them or is worked out at run time
        partial = partial or (ABSENT, held, knob, tuple(sorted(claimed - set(found))))
    if decided is not None:
        return decided
    if partial is not None and _other_knobs(_setting_words(partial[2]), partial[2], index):
        return None
    return partial


_NUMBERED_CATEGORIES = ("scope", "baselines")
# a number joined to a name by a hyphen or slash is part of that name (``VQVAE-2``, ``DiT-L/2``, ``Llama-3.2-3B``),
# not one after a number's own suffix (``1k/4k``) or an exponent (``4e-3``)
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*%")  # "90% coverage": code writes 0.9, or the miscoverage 0.1
_PARAMETER_COUNT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[mb](?![\w.])", re.IGNORECASE)  # "42M", "7B"
_MODEL_NUMBER = re.compile(r"(?<=[a-z][-/])(?<!\d[kmb][-/])(?<!\de-)\d+(?:\.\d+)*[a-z]*", re.IGNORECASE)


def _written_numbers(index: RepositoryIndex) -> frozenset[float]:
    """Analysis provider: every number the repository's code (tests left out), configuration files and launchers
    write, named or not, live or not."""
    out: set[float] = set()
    for fact in index.facts:
        if is_test_path(fact.file):
            continue
        values = fact.value if isinstance(fact.value, tuple) else (fact.value,)
        out.update(float(v) for v in values if is_number(v))
    return frozenset(out)


def _unwritten(category: str, name: str, index: RepositoryIndex, hints: list[Mention]) -> ElementResult | None:
    """The absent result of a setting or baseline only hinted at by the live mentions ``hints`` (a generic term, a
    related name) one of whose claimed values nothing in the repository writes (``_unwritten_number``): no run
    uses a value no code, configuration or launcher holds (``ranks 32/64/96`` with 96 nowhere: a command line
    may pass it, but nothing the repository runs does). ``None`` otherwise, and when a hint is a name bound to a
    value worked out at run time (``temperature = args.temperature * 0.5`` may come to 0.7: ``_worked_out``)."""
    if category not in _NUMBERED_CATEGORIES or any(_worked_out(m, index) for m in hints):
        return None
    number = _unwritten_number(name, index)
    if number is None:
        return None
    return ElementResult(category, name, ABSENT,
                         f"its value {number:g} is written nowhere in code, configuration or launchers")


def _worked_out(mention: Mention, index: RepositoryIndex) -> bool:
    """Whether ``mention`` binds a name to a value worked out at run time (``temperature = args.temperature *
    0.5``, ``Fact.computed``), or to one no fact records; a value passed through from another name
    (``self.num_routed = num_routed_experts``, ``cfg.get("temperature", 1.0)``) is written where it comes from."""
    if mention.kind != "binding" or mention.context == "bind:literal":
        return False
    last = mention.text.rsplit(".", 1)[-1]
    facts = [f for f in index.named(last) if f.file == mention.file and f.line == mention.line]
    return not facts or any(f.computed for f in facts)


def _unwritten_number(name: str, index: RepositoryIndex) -> float | None:
    """The first number a setting's name claims (``ranks 32/64/96``, ``temperature 0.7``) that nothing in the
    repository writes (``_written_numbers``), or ``None``. Left out: 0 and 1 (written everywhere, and a flag's
    values), a percentage ("90% coverage": code writes 0.9, or the miscoverage 0.1), and a count with a million or
    billion suffix (``FMT-B-42M``, ``Mistral-7B``: a model's parameter count, which code never writes out)."""
    text = _PERCENT.sub(" ", _PARAMETER_COUNT.sub(" ", _MODEL_NUMBER.sub(" ", name)))
    wanted = sorted(claimed_numbers(text) - {0.0, 1.0})
    if not wanted:
        return None
    written = index.analysis(_written_numbers)
    return next((w for w in wanted if not any(_same_count(w, n) for n in written)), None)


def _same_count(claimed: float, bound: float) -> bool:
    """Whether code's ``bound`` is the ``claimed`` number; from a thousand up, within 2.5%: papers write "32K" for a
    context of 32768 tokens as well as for 32000 steps."""
    return claimed == bound or claimed >= 1000 and abs(bound - claimed) <= 0.025 * claimed


def _knob_bindings(knob: str, index: RepositoryIndex) -> list[Fact]:
    """The bindings of ``knob`` that reach a run, outside tests and dead code: its facts, less a parameter or field
    default every live call of its owner overrides (``extractors.provenance.overridden_by``: ``def make(repeat=2)``
    only ever called as ``make(repeat=4)`` never runs 2), plus the positional arguments the repository's calls pass
    for such a parameter (``make(env, 4)``: ``passed_for``), in source order."""
    liveness = index.analysis(binding_liveness)
    out: dict[tuple[str, int, str], Fact] = {}
    for fact in index.named(knob):
        if fact.name != knob or fact.kind == K.LITERAL or is_test_path(fact.file) or liveness(fact) == DEAD:
            continue
        if fact.kind in (K.DEFAULT, K.FIELD):
            for passed in passed_for(index, fact):
                if liveness(passed) != DEAD:
                    out.setdefault((passed.file, passed.line, repr(passed.value)), passed)
            if overridden_by(index, fact) is not None:
                continue
        out.setdefault((fact.file, fact.line, repr(fact.value)), fact)
    for owner, parameters in index.signatures.items():  # a parameter without a default: what the calls pass
        if parameters and knob in parameters:
            for passed in _passes_to(owner, knob, index):
                out.setdefault((passed.file, passed.line, repr(passed.value)), passed)
    return sorted(out.values(), key=lambda f: (f.file, f.line))


def _passes_parameter(mention: Mention, knob: str, index: RepositoryIndex) -> bool:
    """Whether the binding ``mention`` (``self.action_repeat = action_repeat``) only passes on the parameter
    ``knob`` of the function it is in: the knob's value is that parameter's default or what the calls pass for it
    (``_knob_bindings``), nothing worked out at run time; a parameter without a default has what the calls pass
    (``self.top_k = top_k`` in ``MoELayer.__init__``, called ``MoELayer(..., config["top_k"])``)."""
    if mention.reads != (knob,):
        return False
    return any(f.kind == K.DEFAULT and f.name == knob and f.where == mention.where
               and (mention.scope == f.context or mention.scope.endswith("." + f.context))
               for f in index.named(knob)) or knob in (index.signatures.get(called_name(mention.scope)) or ())


def _passes_to(owner: str, parameter: str, index: RepositoryIndex) -> list[Fact]:
    """The positional arguments live calls of ``owner`` (a function, or a class by its ``__init__``) pass for
    ``parameter``, outside tests."""
    liveness = index.analysis(binding_liveness)
    return [f for call in index.analysis(calls_by_short).get(owner, ()) if not is_test_path(call.file)
            for f in positional_passes(index, call) if f.name == parameter and liveness(f) != DEAD]


def _other_knobs(wanted: frozenset[str], knob: str, index: RepositoryIndex) -> bool:
    """Whether live code names or binds another name than ``knob`` whose setting words are ``wanted``
    (``ranks`` beside ``rank``): it may hold the values ``knob`` lacks."""
    graph = index.analysis(build_call_graph)
    return any(text.rsplit(".", 1)[-1] != knob and _setting_words(text.rsplit(".", 1)[-1]) == wanted
               and any(m.kind in ("name", "binding") and graph.live(m.scope) for m in mentions)
               for text, mentions in graph.mentions_by_text().items())


def _in_manifest(terms: list[str], index: RepositoryIndex) -> tuple[Mention, Mention] | None:
    """The first manifest row holding a term as a path part or word (``webvid/000001.mp4``) and the launcher line
    passing that manifest, or ``None``."""
    for manifest in index.analysis(launched_manifests):
        for row in manifest.lines:
            if any(term_matches(t, part) for t in terms for part in _ROW_PARTS.split(row.text) if part):
                return row, manifest.launcher
    return None


_ROW_PARTS = re.compile(r"[\s\"',:;{}\[\]/\\=]+")


def _related(terms: list[str], graph: CallGraph, matched: set[str],
             attributes: frozenset[tuple[str, int, str]]) -> Mention | None:
    """A live identifier, other than the ``matched`` texts already judged, sharing a distinctive word (four
    letters or more, not generic; or a size such as ``7b``: ``lr_7b`` for "Gemma-7B") with the element's name or
    aliases, or ``None``: then the element may be there under a name the spec did not list. An attribute read is
    passed over: its name is often a library's (``optimizer.zero_grad`` is no "zero-shot" evaluation,
    ``model.parameters`` no count of activated parameters), and the repository's own attributes are judged by
    their bindings and definitions; so is a name of Python's own (``self`` for "Self-Refine", ``True``, ``max``)."""
    distinctive = {w for t in terms for w in _plain_words(t)
                   if (len(w) >= 4 and not is_generic(w) and w not in _BUILTINS) or _SIZE.fullmatch(w)}
    if not distinctive:
        return None
    for text, mentions in graph.mentions_by_text().items():
        # Python's own names (self, True, max) name nothing a claim names: not "self" of "Self-Refine"
        if text not in matched and "." not in text and text not in _PYTHON_NAMES \
                and _shares_word(distinctive, _plain_words(text)):
            live = [m for m in mentions if m.kind in ("name", "binding", "definition") and m.scope in graph.graph
                    and graph.live(m.scope) and not is_test_path(m.file)
                    and (m.kind != "name" or (m.where, m.line, text) not in attributes)]
            if live:
                return min(live, key=_mention_order)
    return None


def _size_selected(name: str, graph: CallGraph, index: RepositoryIndex) -> tuple[Mention, Fact] | None:
    """For a model named with its size ("Gemma-7B"), a live test of that size in a value a free command-line option
    gives (``"7b" in model_name.lower()``, ``model_name`` passed ``args.model_name``: ``rules.d3_options``) whose
    default names the same model family (``google/gemma-2b``), with that option's fact: code written for that size,
    which a run selects by naming the model; ``None`` otherwise."""
    words = _plain_words(name)
    sizes = {w for w in words if _SIZE.fullmatch(w)}
    family = {w for w in words - sizes if len(w) >= 3 and not w.isdigit()}
    if not sizes or not family:
        return None
    for text, mentions in graph.mentions_by_text().items():
        if text.lower() not in sizes:
            continue
        for mention in sorted(mentions, key=_mention_order):
            if mention.kind != "string" or mention.scope not in graph.graph or not graph.live(mention.scope) \
                    or is_test_path(mention.file):
                continue
            option = free_source(mention, index)
            if option is not None and all(w in str(option.value).lower() for w in family):
                return mention, option
    return None


def _kin(text: str, terms: list[str], graph: CallGraph) -> bool:
    """Whether the related live name ``text`` (``_related``) may be the element of ``terms`` (its name first, then
    its aliases) under a name the spec did not list: it shares a size of the element (``lr_7b`` for "Gemma-7B"),
    or holds every word of the element's name, numbers left out, or their stems (``p2vae_model`` for "P2VAE-16M",
    ``math_data_path`` for "MATH500", ``compile_error_reward`` for "compiler reward"), or its own words are all the
    element's or its aliases' (``reward_lambda`` for "reward multiplier lambda", ``quantizer`` for "FR-Quantizer",
    ``failure`` for "risk exceedance frequency" aliased ``failure_rate``), or a live name or string writes a size of the
    element (``"1.7B_28L"`` for "dense 1.7B 28 layers"). A name sharing one other word (``first_turn_prompt`` for
    "PaLM 2 first attempts", ``sigma_assignment`` for "position-decayed assignment") is no sign of it."""
    own = _plain_words(text)
    name_words = _plain_words(terms[0])
    sizes = {w for w in name_words if _SIZE.fullmatch(w)}
    if sizes & own:
        return True
    core = {w.rstrip("0123456789") for w in name_words if w not in sizes and not w.isdigit()} - {""}
    if core and all(_shares_word({w}, own) for w in core):  # compile_error_reward for "compiler reward"
        return True
    if own <= {w for t in terms for w in _plain_words(t)}:  # failure for "risk exceedance frequency", failure_rate
        return True
    return bool(sizes) and any(
        sizes & _plain_words(t) for t, mentions in graph.mentions_by_text().items()
        if any(m.kind in ("name", "string") and m.scope in graph.graph and graph.live(m.scope) for m in mentions))


def attribute_parts(index: RepositoryIndex) -> frozenset[tuple[str, int, str]]:
    """Analysis provider: (source key, line, name) of every attribute name read as part of a dotted name there
    (``zero_grad`` of ``optimizer.zero_grad``)."""
    graph = index.analysis(build_call_graph)
    return frozenset((m.where, m.line, m.text.rsplit(".", 1)[-1]) for ms in graph.mentions.values() for m in ms
                     if m.kind == "name" and "." in m.text)


_STEM_MIN = 7  # a shorter code word inside a claim's word is too often an accident ("train" in "training")


def _shares_word(distinctive: set[str], other: set[str]) -> bool:
    """Whether a word of ``other`` (code) is one of ``distinctive`` (the claim's) or, seven letters or more and no
    ordinary word, begins one of them: the claim's word with an ending the code left off (``compile_error_reward``
    for "compiler reward")."""
    return bool(distinctive & other) or any(
        len(v) >= _STEM_MIN and v not in _COMMON and w.startswith(v) for w in distinctive for v in other)


def _plain_words(text: str) -> set[str]:
    """Words split at ``_``, ``-``, dots and spaces only (``OpenWebText`` stays one word: its parts ``open`` and
    ``text`` are not distinctive)."""
    return {w for w in _NOT_ALNUM.split(text.lower()) if w}


_BUILTINS = frozenset(dir(builtins))
_PYTHON_NAMES = _BUILTINS | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"self", "cls"}


def _live_mentions(graph: CallGraph):
    for scope, mentions in graph.mentions.items():
        if graph.live(scope):
            yield from mentions


def squashed_files(index: RepositoryIndex) -> dict[str, str]:
    """Analysis provider: each source's text squashed (``squash``), by file key, so that files without a term are
    passed over at once."""
    return {key: squash("".join(lines)) for key, lines in index.lines.items()}


def _text_trace(terms: list[str], index: RepositoryIndex) -> Mention | None:
    """The first source line holding a term as text (a comment, a docstring, a README-like config value), as a
    ``Mention`` of kind ``text``, or ``None``."""
    squashed = index.analysis(squashed_files)
    wanted = [squash(t) for t in terms if squash(t)]
    for key in sorted(index.lines):
        if not any(w in squashed[key] for w in wanted):
            continue
        for number, line in enumerate(index.lines[key], 1):
            # a short or ordinary term is a word of the text ("# Compute PPO loss"), as prose writes it
            if any(squash(t) in words(line) if _whole_only(t) else _match_kind(t, line) is not None
                   for t in terms):  # a doubtful name in prose is a trace all the same
                return Mention.at(key, number, "", line.strip(), "text")
    return None


def _held_otherwise(specific: list[str], terms: tuple[str, ...], graph: CallGraph, data: Flow,
                    index: RepositoryIndex) -> list[Mention]:
    """The live bindings named after a metric (a name or key holding the words of one of its ``specific`` terms,
    a short one as a whole word: ``avg_nll``, ``current_nll``, ``results["nll"]``; an ordinary word such as
    "reward" names other things too: ``common_words``) whose value holds another
    metric or a stub's result (``mcc = accuracy_score(...)``, ``avg_nll = mean(rmses)`` where ``rmses`` is filled
    with ``metrics["RMSE"]``: ``rules.d3_flow.value_source``; a call whose name names this metric too,
    ``compute_precision_recall(...)``, computes it among others), in source order: where the code names the
    metric, it computes something else."""
    wanted = [words(t) for t in specific if words(t) and squash(t) not in _COMMON]  # reward_loss holds no reward
    another = _judge(terms, index)
    own = [words(t) for t in specific if words(t)]

    def judge(callee: str) -> bool:  # compute_precision_recall(...) computes precision too: not only another
        return not any(_run(words(callee.rsplit(".", 1)[-1]), w) for w in own) and another(callee)
    held = []
    for text, mentions in graph.mentions_by_text().items():
        text_words = words(text.rsplit(".", 1)[-1])
        if not any(_run(text_words, w) for w in wanted):
            continue
        for mention in mentions:
            context = mention.context
            if mention.kind not in ("binding", "string") or is_test_path(mention.file) \
                    or mention.scope not in graph.graph or graph.liveness(mention.scope) != LIVE:
                continue
            if context.startswith("bind:call:"):  # mcc = accuracy_score(...), avg = np.mean(rmses)
                other = judge(context[len("bind:call:"):]) or value_source(mention, data, judge) == Source.OTHER
            elif context in ("bind:computed", "bind:item", "key:computed") and mention.reads:
                other = value_source(mention, data, judge) == Source.OTHER
            else:
                continue
            if other:
                held.append(mention)
    return sorted(held, key=lambda m: (m.where, m.line))


def _holding_loads(mentions: list[Mention], graph: CallGraph) -> frozenset[Mention]:
    """Of a dataset's ``mentions``, the calls and definitions of a repository function whose body holds one of
    them handed to a loader call (``prepare_openwebtext()`` around ``load_dataset("openwebtext")``: ``rules/
    roles.yaml``, ``loader_words``): the load itself is the better evidence, where the data is loaded."""
    loads = [m for m in mentions if set(words(argument_callee(m.context))) & _LOADER_WORDS]
    held = set()
    for mention in mentions:
        span = _defined_span(mention, graph) if loads and (mention.kind == "definition" or mention.kind == "name"
                                                           and mention.context == "call") else None
        if span is not None and any(m.file == span[0] and span[1] <= m.line <= span[2] for m in loads):
            held.add(mention)
    return frozenset(held)


_KIND_RANK = {"name": 0, "string": 1, "binding": 2, "definition": 3, "display": 4}


def _mention_order(mention: Mention) -> tuple:
    return (_KIND_RANK.get(mention.kind, 4), mention.where, mention.line)


def element_note(result: ElementResult) -> str:
    """One element as a verdict's reason names it: its category in the singular (``scope`` stays), name, outcome and
    note, ``dataset 'OpenWebText' present (loaded at data.py:4)``."""
    category = result.category[:-1] if result.category.endswith("s") else result.category  # scope, trainable stay
    return f"{category} {result.name!r} {result.outcome} ({result.note})"


def element_evidence(results: list[ElementResult], index: RepositoryIndex) -> tuple[Evidence, ...]:
    """Where each element was decided (its first ref; a manifest row and the launcher line passing it), present
    elements first, each ``file:line`` with the line's text; also D1's dataset and metric elements
    (``rules.d1_elements``)."""
    seen: dict[tuple, Evidence] = {}
    for result in sorted(results, key=lambda r: r.outcome != PRESENT):
        manifest = bool(result.refs) and getattr(result.refs[0], "kind", "") == "manifest"
        for item in result.refs[:2 if manifest else 1]:  # a manifest row and the launcher line passing it
            key = (item.where, item.line)
            if key in seen:
                continue
            lines = index.lines.get(item.where, [])
            text = (lines[item.line - 1].strip()[:200] if 0 < item.line <= len(lines)
                    else item.text[:200] if isinstance(item, Mention) and item.kind in ("manifest", "launcher")
                    else "")
            kind = "config" if isinstance(item, Fact) else item.kind
            seen[key] = Evidence(item.file, item.line, item.line, text, kind, cell=item.cell)
    return tuple(seen.values())
