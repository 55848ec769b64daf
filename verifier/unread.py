"""No absence settled on unread code (ARCHITECTURE.md, "Promises").

A settled "absent", "missing", "unused", "stub" (nothing else implements it) or "dead" (nothing runs it) is a claim
about the whole repository. When a path that could hold the evidence was skipped or read only in part (a link, a
notebook in a layout nobody reads, a file over the size cap, a file only tree-sitter could parse, a config that did
not parse: ``RepositoryIndex.unread``), such a verdict stays unresolved, with its score as the estimate and the
unread paths in its reason. Verdicts resting on what was found (a match, a contradicting value, a formula that
differs, steps in the wrong order) stand. Applied once, after every dimension's rule (``verifier.run``), so that
no rule needs to know.

A part read only in part whose unread lines are known (a file tree-sitter read statement by statement) does not
hold a verdict when those lines provably cannot hold its evidence: every rule finds what it looks for by name or by
number, so lines that mention no word of the SAU's checks (its names, aliases, keywords, mechanism and glossary
names, matched after the alias table, or as a part of a longer name), and no number it claims, cannot bind, read,
load, call or implement it. D3 finds an element by its whole name or alias within one name or string, or by one
distinctive word of it (a related name), so for D3 a short word of a longer name ("S" of "Hi-MAR-S") found alone
in those lines is no trace (``_term_in``). That proof does not cover "nothing calls it" (unreached or dead code:
the caller's name is not the SAU's), so such verdicts always hold.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

from extractors.facts import value_key
from extractors.words import word_list
from rules import names
from rules.findings import AtomFinding
from sau.vocabulary import Drift, Finding, Status, Verdict

# Drift kinds that say something is not there (or not used, or only a stub): the rules' absence verdicts.
ABSENCE_DRIFTS = frozenset({Drift.MISSING, Drift.UNUSED, Drift.STUB, Drift.PROTOCOL})
# Element outcomes (the rules' ``Outcome`` values: rules/d1..d4) that rest on not finding something: the name or
# mechanism bound nowhere, no code reading it, only a stub, or no entry point reaching it.
ABSENCE_OUTCOMES = frozenset({"absent", "unused", "stub", "unreached", "dead"})
_NAMED = 3  # unread paths named in the reason; the warnings name every one
# The dimensions whose rules read configuration files (D1 binds values to keys, D3 finds dataset and metric names
# in them); D2's candidates and names and D4's call graph come from Python only (a pyproject.toml can declare
# entry points, so it counts for every dimension).
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
_READS_CONFIGS = frozenset({"D1", "D3"})
# The dimensions whose rule reads nothing of a file libcst could not parse whole: D2's candidates are the
# statements of parsed modules (``extractors.expressions``), while the tree-sitter fallback gives only facts
# (values, names). For them a part read only in part is unread from its first line to its last.
_WHOLE_FILES = frozenset({"D2"})
# Outcomes that say no code calls something: unread lines could be the caller whatever they are named.
_UNCALLED = frozenset({"unreached", "dead"})
_WORD = re.compile(r"[^\W\d]\w*")
# Check fields that are prose for the reader, not names the rules look for.
_PROSE = frozenset({"meaning", "note", "statement", "source", "about", "complete", "strict", "checkable"})
# an atom's names of the paper's other quantities (sau.vocabulary.Atom.symbols_elsewhere): no word the claim names
_OTHER_QUANTITIES = frozenset({"symbols_elsewhere"})
_KEYWORDS = frozenset(keyword.kwlist) | {"self", "cls"}  # Python's own words name nothing a claim names
_SHORT = 4  # a claimed word shorter than this must equal a word of the unread text; a longer one may be part of it
_NUMBER = re.compile(r"(?<![\w.])(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def rests_on_absence(verdict: Verdict) -> bool:
    """Whether the settled ``verdict`` (a ``sau.vocabulary.Verdict``) depends on something not being found: its
    drift is an absence kind, or one of its findings (nested ones included) has an absence outcome."""
    if verdict.status != Status.SETTLED:
        return False
    return verdict.drift in ABSENCE_DRIFTS or any(_absent(finding) for finding in verdict.findings)


def _absent(finding: object) -> bool:
    if not isinstance(finding, Finding) or not dataclasses.is_dataclass(finding):
        return False
    for field in dataclasses.fields(finding):
        value = getattr(finding, field.name)
        if field.name == "outcome" and str(value) in ABSENCE_OUTCOMES:
            return True
        if isinstance(value, tuple) and any(_absent(item) for item in value):
            return True
        if isinstance(value, Finding) and _absent(value):
            return True
    return False


def _outcomes(finding: object) -> set[str]:
    found: set[str] = set()
    if isinstance(finding, Finding) and dataclasses.is_dataclass(finding):
        for field in dataclasses.fields(finding):
            value = getattr(finding, field.name)
            if field.name == "outcome":
                found.add(str(value))
            for item in value if isinstance(value, tuple) else (value,):
                found |= _outcomes(item)
    return found


def _claimed(value: object, words: set[str], numbers: set[float]) -> None:
    """Collect the words (str) and numbers (value keys) of a SAU's checks, whatever their structure."""
    if isinstance(value, str):
        words.update(_WORD.findall(value))
        numbers.update(k for k in (value_key(float(n.replace("_", ""))) for n in _NUMBER.findall(value)
                                   if _is_float(n)) if k is not None)
    elif isinstance(value, bool):
        return
    elif isinstance(value, (int, float)):
        key = value_key(value)
        if key is not None:
            numbers.add(key)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in _PROSE:
                _claimed(item, words, numbers)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _claimed(item, words, numbers)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if field.name not in _OTHER_QUANTITIES:
                _claimed(getattr(value, field.name), words, numbers)
    else:  # a symbolic value (sympy): its text
        text = str(value)
        if text:
            _claimed(text, words, numbers)


def _is_float(text: str) -> bool:
    try:
        float(text.replace("_", ""))
        return True
    except ValueError:
        return False


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def cannot_matter(verdict: Verdict, text: str) -> bool:
    """Whether the unread lines ``text`` (str) provably cannot hold the evidence of ``verdict`` (see the module
    docstring): no word of its SAU's checks (or of its statement when it has no checks) occurs in them, as a part of
    a longer word or under an agreeing name, no number it claims occurs, and it does not rest on nothing calling
    something."""
    if _outcomes_all(verdict) & _UNCALLED or verdict.drift == Drift.UNUSED and verdict.sau.dimension != "D1":
        return False
    words: set[str] = set()
    numbers: set[float] = set()
    _claimed(_deciding_checks(verdict) or verdict.sau.statement, words, numbers)
    found = {value_key(float(n.replace("_", ""))) for n in _NUMBER.findall(text) if _is_float(n)}
    terms = _element_terms(verdict.sau.checks) if verdict.sau.dimension == "D3" else []
    if terms:
        return not numbers & found and not any(_term_in(term, text) for term in terms)
    found_words = set(_WORD.findall(text)) - _KEYWORDS
    squashed = {_squash(word) for word in found_words}
    keys = {names.normalise(word) for word in found_words}
    for word in words:
        piece = _squash(word)
        if not piece or word in _KEYWORDS:
            continue
        if names.normalise(word) in keys or piece in squashed or (
                len(piece) >= _SHORT and any(piece in other for other in squashed)):
            return False
    return not numbers & found


def _element_terms(checks: Mapping) -> list[str]:
    """The names and aliases of a D3 SAU's elements (its datasets, baselines, metrics and scope: every check that
    lists ``{name, aliases}``)."""
    return [str(term) for value in checks.values() if isinstance(value, (list, tuple))
            for element in value if isinstance(element, Mapping) and "name" in element
            for term in (element["name"], *element.get("aliases", ()))]


def _term_in(term: str, text: str) -> bool:
    """Whether unread lines ``text`` may hold a D3 element's ``term`` the way D3 finds one (``rules.d3_protocol``):
    within one (dotted) name or string, its squashed letters (``CIFAR-10`` in ``cifar10_loader``, glued ones too),
    all its words in any order (``val_loss`` for "loss val"), or one word of it of four letters or more (its first
    seven letters: a related name, ``compile_error`` for "compiler") or with a digit as a whole word (``lr_7b`` for
    "Gemma-7B"); a term shorter than four letters only as a whole name or string, a part of a dotted one, a word of
    a called name, or a label's word (``td3_bc`` for "TD3"). A short word of a longer name alone is no trace of
    it: "S" of "Hi-MAR-S" beside a variable ``s``."""
    squashed = _squash(term)
    found, called = _names_and_strings(text)
    if len(squashed) < _SHORT:
        # "MAR", "k-NN": only a whole name or string, a part of a dotted one, a word of a called name, or for a label
        # of letters then digits ("TD3") a word of a name or string (td3_bc)
        label = _LABEL.fullmatch(squashed) is not None
        return any(squashed in each.parts for each in found) \
            or any(squashed in names.words(name) for name in called) \
            or label and any(squashed in each.words for each in found)
    term_words = set(names.words(term))
    plain = {w for w in re.split(r"[\W_]+", term.lower())
             if (len(w) >= _SHORT or any(c.isdigit() for c in w)) and w not in _GENERIC}
    return any(squashed in each.squashed or term_words <= each.words
               or any(w in each.plain or len(w) >= _SHORT and w[:7] in each.squashed for w in plain)
               for each in found)


@dataclass(frozen=True)
class _Found:
    """A (dotted) name or string of unread lines, with what ``_term_in`` compares a term with, made once per text:
    its squashed letters, those of each dotted part, its words (``rules.names.words``) and its pieces split at
    non-word characters and ``_``."""

    squashed: str
    parts: frozenset[str]
    words: frozenset[str]
    plain: frozenset[str]


@lru_cache(maxsize=64)
def _names_and_strings(text: str) -> tuple[tuple[_Found, ...], tuple[str, ...]]:
    """The (dotted) names and strings of unread lines ``text`` (``_Found``), and the names called there; found and
    taken apart once per text, whatever the number of terms asked about it."""
    found = tuple(_Found(_squash(each), frozenset(_squash(part) for part in each.split(".")),
                         frozenset(names.words(each)), frozenset(re.split(r"[\W_]+", each.lower())))
                  for each in (*_DOTTED.findall(text), *_STRING.findall(text)))
    return found, tuple(_CALLED.findall(text))


_DOTTED = re.compile(r"[^\W\d][\w.]*")
# a string, also a triple-quoted one over several lines, or one the unread lines leave open at their end
_STRING = re.compile("|".join((r'"{3}(?:.*?"{3}|.*\Z)', r"'{3}(?:.*?'{3}|.*\Z)", r"'[^'\n]*'", r'"[^"\n]*"')),
                     re.DOTALL)
_LABEL = re.compile(r"[a-z]+\d+")  # a label names one thing (rules.d3_protocol: "G3", "TD7")
_GENERIC = word_list("generic_terms", "rules")  # words D3 never takes a related name by ("loss", "model")
# a name called in the unread lines (``F.mse_loss(``), not one a ``def`` or ``class`` statement defines
_CALLED = re.compile(r"(?<!def )(?<!class )\b([^\W\d][\w.]*)\s*\(")


def _deciding_checks(verdict: Verdict) -> Mapping:
    """The checks of ``verdict``'s SAU whose names the verdict rests on: a D2 claim's values (``atoms``) only when
    the rule decided them (its findings hold theirs); an absent mechanism rests on the mechanism's names alone."""
    checks = verdict.sau.checks
    if verdict.sau.dimension == "D2" and not any(isinstance(f, AtomFinding) for f in verdict.findings):
        return {key: value for key, value in checks.items() if key != "atoms"}
    return checks


def _may_matter(verdict: Verdict, path: str) -> bool:
    """Whether the unread ``path`` is of a kind ``verdict``'s rule reads: a configuration file (not a
    pyproject.toml) only for the dimensions that read configurations."""
    if path.lower().endswith(_CONFIG_SUFFIXES) and not path.endswith("pyproject.toml"):
        return str(verdict.sau.dimension) in _READS_CONFIGS
    return True


def _outcomes_all(verdict: Verdict) -> set[str]:
    found: set[str] = set()
    for finding in verdict.findings:
        found |= _outcomes(finding)
    return found


def hold(verdict: Verdict, unread: Mapping[str, str], unread_text: Mapping[str, str] | None = None,
         whole_text: Mapping[str, str] | None = None) -> Verdict:
    """``verdict`` unchanged, or, when it rests on an absence and ``unread`` (path -> why it was not read, as in
    ``RepositoryIndex.unread``) has a path that could hold its evidence, the same verdict unresolved with a reason
    naming those paths. ``unread_text`` (path -> the lines not read, as in ``RepositoryIndex.unread_text``) lets a
    path whose unread lines provably cannot matter (``cannot_matter``) pass; for a dimension whose rule reads only
    whole parsed files (``_WHOLE_FILES``), ``whole_text`` (path -> the whole text of such a part) is what must not
    matter instead."""
    if not unread or not rests_on_absence(verdict):
        return verdict
    whole = str(verdict.sau.dimension) in _WHOLE_FILES and whole_text is not None
    texts = (whole_text if whole else unread_text) or {}
    paths = [path for path in unread if _may_matter(verdict, path)
             and (path not in texts or not cannot_matter(verdict, texts[path]))]
    if not paths:
        return verdict
    named = ", ".join(f"{path} ({unread[path]})" for path in paths[:_NAMED])
    more = f" and {len(paths) - _NAMED} more (see the warnings)" if len(paths) > _NAMED else ""
    return replace(verdict, status=Status.UNRESOLVED,
                   reason=f"{verdict.reason}; not settled: it rests on an absence, and {len(paths)} path(s) that "
                          f"could hold the evidence were not read: {named}{more}")
