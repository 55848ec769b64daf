"""Orchestration: index the repository once, apply each dimension's rule to its SAUs, collect the verdicts.

The repository is only read. A SAU whose rule fails on unexpected input becomes unresolved with the error as its
reason; the other SAUs are still decided (ARCHITECTURE.md, "Promises": a bad input costs only the units it
touches).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from extractors.cache import Cache, tree_manifest
from extractors.facts import RepositoryIndex, Warning_
from extractors.guards import stop_if_interrupted
from extractors.repository import build_index
from extractors.walk import DEFAULT_MAX_BYTES
from rules import names
from sau.vocabulary import DIMENSIONS, SAU, Dimension, PaperSpec, Status, Verdict
from verifier.collection import fewer_collections
from verifier.dimensions import DIMENSION_RULES
from verifier.locations import anchor, cell_lines, evidence_sources
from verifier.unread import hold

if TYPE_CHECKING:  # the openai client is imported only when a judge runs
    from llm_fallback.judge import Judge

Progress = Callable[[str, int, int | None, str], None]
"""``progress(phase, done, total, item)``: what a run is doing, for a progress display."""


@dataclass(frozen=True)
class Report:
    """The result of one run: the spec, the repository as the user named it, the verdicts in spec order, the
    warnings about input files, how many files were read, and the repository's stub and TODO finding counts by
    code (``extractors.stubs``), and the LLM judge's model when a judge ran (``None`` otherwise).

    For the reports that show code (``verifier.locations``): ``sources`` the lines of every file (``file#cell`` for a
    notebook cell) some verdict's evidence points into; ``anchor`` the stable place a verdict without evidence is
    shown at (the repository's README, else its first file read; ``None`` when nothing was read); ``cell_lines`` the
    line of the ``.ipynb`` file holding the first source line of each notebook cell evidence points into (cells
    whose place in the file could not be found are absent)."""

    spec: PaperSpec
    repo: str
    verdicts: tuple[Verdict, ...]
    warnings: tuple[Warning_, ...]
    files_read: int
    dimensions: tuple[Dimension, ...]
    stubs: dict[str, int]
    model: str | None = None
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    anchor: str | None = None
    cell_lines: dict[str, int] = field(default_factory=dict)


# how a verdict says its rule raised (decide()): the SAU stays unresolved, and the command line reports a bug
RULE_FAILED, RULE_NONE = "rule failed: ", "none"


def rule_failures(report: Report) -> list[str]:
    """``"<SAU id>: <error>"`` for each verdict whose rule raised (``decide``) and that no judge decided since, in
    spec order; empty when every rule ran."""
    return [f"{v.sau.id}: {v.reason[len(RULE_FAILED):]}" for v in report.verdicts
            if v.decided_by == RULE_NONE and v.reason.startswith(RULE_FAILED)]


class NothingToRead(ValueError):
    """The repository holds no file the verifier can read (empty, or only binaries, links or other kinds): every
    absence would be settled on nothing. The message says so; the caller names the folder."""


@fewer_collections()  # a run's objects live until it ends: tracing them again and again is waste
def verify(repo: Path, spec: PaperSpec, repo_display: str, dimensions: tuple[Dimension, ...] = DIMENSIONS,
           max_bytes: int = DEFAULT_MAX_BYTES, exclude: tuple[str, ...] = (),
           progress: Progress | None = None, judge: Judge | None = None, cache: Cache | None = None,
           all_projects: bool = False) -> Report:
    """Verify ``repo`` against ``spec`` for the SAUs of ``dimensions``.

    ``repo_display`` is the repository path as it appears in reports (as the user typed it, so that output does not
    depend on where it runs). ``judge`` (``llm_fallback.judge.Judge``), when given, decides the verdicts the rules
    leave unresolved, with the same index. A settled absence with unread paths in the repository stays unresolved
    (``verifier.unread``). ``progress(phase, done, total, item)``, when given, is told each step: phase ``reading``
    per file, ``call graph`` once, then per SAU the phase of its dimension (``D1 numerical``...), and ``judge``
    before the judge runs (``total`` ``None`` when unknown). ``cache`` (``extractors.cache.Cache``), when given,
    supplies each unchanged file's facts and, when no file of the repository, the spec and the options changed,
    the rules' verdicts (``_cached_verdicts``); the report is the same with or without it. Raises
    ``NotADirectoryError`` when ``repo`` is not a folder and ``NothingToRead`` when it holds no file the verifier
    reads. ``all_projects`` reads the folders of other projects than the paper's too (``extractors.projects``).
    """
    tell: Progress = progress or (lambda phase, done, total, item: None)
    index = build_index(repo, names.normalise, max_bytes, exclude,
                        lambda done, total, file: tell("reading", done, total, file), cache, all_projects)
    if not index.files:
        raise NothingToRead("no file the verifier can read (.py, .ipynb, YAML, JSON, TOML or .sh) in this folder"
                            + (f"; skipped: {', '.join(sorted(index.unread))}" if index.unread else ""))
    key = _verdicts_key(cache, repo, index, spec, dimensions, max_bytes, exclude, all_projects) \
        if cache is not None else ""
    chosen = [sau for sau in spec.saus if sau.dimension in dimensions]
    decided = _cached_verdicts(cache, key, chosen) if cache is not None else None
    if decided is None:
        decided = _decide_all(index, chosen, tell)
        if cache is not None:
            cache.put(key, (_without_saus(decided[0], chosen), decided[1]))
    verdicts, found = decided
    if judge is not None:
        tell("judge", 0, None, judge.model)
        verdicts = tuple(judge(list(verdicts), index))
    sources = evidence_sources(verdicts, index.lines)
    return Report(spec, repo_display, verdicts, (*index.warnings, *found), len(index.files), dimensions,
                  index.stub_counts(), judge.model if judge is not None else None, sources,
                  anchor(repo, index.files), cell_lines(repo, sources))


def _decide_all(index: RepositoryIndex, chosen: list[SAU], tell: Progress
                ) -> tuple[tuple[Verdict, ...], tuple[Warning_, ...]]:
    """The rules' verdicts of the ``chosen`` SAUs, in order, each held back where it rests on unread code; and
    what the analyses found wrong with the input on the way (modules that cannot be imported, when the rules built
    the call graph)."""
    from extractors.callgraph.build import build_call_graph  # networkx and the scanners: only when rules run
    if any(sau.dimension != Dimension.D1 for sau in chosen):
        tell("call graph", 0, None, "")
        _prepare_call_graph(index)
    verdicts: list[Verdict] = []
    # the whole text of each part read only in part: what a rule reading only whole parsed files did not read
    whole = {key: "\n".join(index.lines.get(key, ())) for key in index.unread_text}
    for number, sau in enumerate(chosen, 1):
        stop_if_interrupted()
        tell(f"{sau.dimension} {sau.dimension.label}", number - 1, len(chosen), sau.id)
        verdicts.append(hold(decide(sau, index), index.unread, index.unread_text, whole))
    graph = index.computed(build_call_graph)
    return tuple(verdicts), graph.import_warnings() if graph is not None else ()


def _verdicts_key(cache: Cache, repo: Path, index: RepositoryIndex, spec: PaperSpec,
                  dimensions: tuple[Dimension, ...], max_bytes: int, exclude: tuple[str, ...],
                  all_projects: bool = False) -> str:
    """The cache key of a run's rule verdicts. Conservatively, a verdict's evidence is every file of the
    repository (``extractors.cache.tree_manifest``: the content hash of each file read, the size and time of any
    other, since a rule may read a data manifest the index does not) and the whole spec; then the options that
    change what is read or decided, the repository's path (reasons may name it) and what was left unread."""
    return cache.key("verdicts", str(repo), tree_manifest(repo, index.hashes), _spec_text(spec), repr(dimensions),
                     str(max_bytes), repr(exclude), repr(all_projects), repr(sorted(index.unread.items())),
                     repr(sorted(index.unread_text.items())))


# repr() of the specs this process keyed verdicts with, by id (the spec kept, so the id is not reused): a batch
# worker verifies each paper many times, and printing a spec's sympy formulas is slow.
_SPEC_TEXTS: dict[int, tuple[PaperSpec, str]] = {}


def _spec_text(spec: PaperSpec) -> str:
    """``repr(spec)``, computed once per spec object of this process."""
    known = _SPEC_TEXTS.get(id(spec))
    if known is None or known[0] is not spec:
        if len(_SPEC_TEXTS) >= 64:  # a process verifying against many specs keeps only the latest
            del _SPEC_TEXTS[next(iter(_SPEC_TEXTS))]
        known = _SPEC_TEXTS[id(spec)] = (spec, repr(spec))
    return known[1]


def _without_saus(verdicts: tuple[Verdict, ...], chosen: list[SAU]) -> tuple[Verdict, ...]:
    """``verdicts`` as the cache keeps them: a verdict about the spec's own SAU object holds its id instead (the
    spec is part of the key, so the id finds the same SAU again). Rebuilding a SAU's sympy formulas from a pickle
    evaluates them anew, which cost a warm run more than everything else."""
    return tuple(replace(verdict, sau=sau.id) if verdict.sau is sau else verdict  # type: ignore[arg-type]
                 for verdict, sau in zip(verdicts, chosen))


def _cached_verdicts(cache: Cache, key: str, chosen: list[SAU]
                     ) -> tuple[tuple[Verdict, ...], tuple[Warning_, ...]] | None:
    """The verdicts stored under ``key``, one per SAU of ``chosen`` in order, each id put back as the spec's SAU
    (``_without_saus``), and the warnings the analyses found (``_decide_all``), when the entry is sound and holds
    such verdicts and warnings only."""
    entry = cache.get(key, tuple)
    if entry is None or len(entry) != 2 or not isinstance(entry[0], tuple) or not isinstance(entry[1], tuple) \
            or not all(isinstance(warning, Warning_) for warning in entry[1]):
        return None
    found, warnings = entry
    if len(found) != len(chosen) or not all(isinstance(verdict, Verdict) for verdict in found):
        return None
    restored = []
    for verdict, sau in zip(found, chosen):
        if isinstance(verdict.sau, str):
            if verdict.sau != sau.id:
                return None
            verdict = replace(verdict, sau=sau)
        elif not isinstance(verdict.sau, SAU):
            return None
        restored.append(verdict)
    return tuple(restored), warnings


def _prepare_call_graph(index: RepositoryIndex) -> None:
    """Build the call graph before the rules ask for it, so that a progress display can name the phase; a failure
    is left for the rules that need the graph to meet (each of their SAUs then says so)."""
    from extractors.callgraph.build import build_call_graph  # networkx and the scanners: only when rules run
    try:
        index.analysis(build_call_graph)
    except Exception:  # the rules report it per SAU (decide())
        pass


def decide(sau: SAU, index: RepositoryIndex) -> Verdict:
    """The verdict of one SAU; never raises. A SAU its spec marks not code-checkable gets no score (no rule can
    show it); every other goes to its dimension's rule (``verifier.dimensions``)."""
    rule = DIMENSION_RULES[sau.dimension]
    if not sau.checkable:
        return Verdict(sau, None, Status.UNRESOLVED, f"not code-checkable: {sau.note}", rule.rule)
    try:
        return rule.check(sau, index)
    except Exception as error:  # a rule bug on odd input must cost only this SAU
        return Verdict(sau, None, Status.UNRESOLVED, f"{RULE_FAILED}{type(error).__name__}: {error}", RULE_NONE)
