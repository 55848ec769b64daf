"""Mutants for drift injection: choose, from a baseline ``verifier.run.Report``, SAUs the verifier judged
implemented, plant one drift (``benchmarks.drift``) at their evidence in a copy of the repository, verify the copy and
compare its verdicts with the baseline.

Works on verdicts generically (status, score, evidence file and line), so every dimension whose rule settles SAUs is
measured without change here. The repository is copied and read, never imported or run.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

from benchmarks.drift import (CONFIG_SUFFIXES, KIND_DIMENSION, NUMERICAL, OPERATORS, Edit, change_constant,
                              remove_call, swap_steps)
from extractors.values import is_number, parse_value
from sau.vocabulary import Value, Verdict, split_ref
from verifier.run import Report

# Folders never worth copying: the walk skips them (version control, caches) or SA-Bench's own result files.
_SKIP_COPY = frozenset({".git", ".hg", ".svn", "__pycache__", "result"})


@dataclass(frozen=True)
class Mutant:
    """One planned mutant: the drift ``kind`` (``benchmarks.drift.KINDS``), the SAU it should break (``target``,
    its ``dimension``, its baseline ``score`` and ``status``) and the ``edits`` that plant it (one, or for a changed
    constant one per place the value was credited; edits of one file are chained, the last holding them all)."""

    kind: str
    target: str
    dimension: str
    score: float
    status: str
    edits: tuple[Edit, ...]


def implemented(verdict: Verdict, kind: str) -> bool:
    """True when ``verdict`` can be the target of a ``kind`` mutant: of the kind's dimension (any for stubs), with
    a score above 0 (the verifier found code implementing at least part of it, and the score can drop) and evidence.
    Unresolved verdicts count too (their score is the rules' best estimate); the benchmark reports them apart."""
    wanted = KIND_DIMENSION[kind]
    return (verdict.score is not None and verdict.score > 0 and bool(verdict.evidence)
            and (wanted is None or verdict.sau.dimension == wanted))


def claimed_numbers(verdict: Verdict) -> list[Value]:
    """The numbers a D1 SAU claims (each atom's values, tuples and ranges flattened)."""
    numbers: list[Value] = []
    for atom in verdict.sau.atoms:
        for value in atom.values:
            numbers.extend(v for v in (value if isinstance(value, tuple) else (value,)) if is_number(v))
    return numbers


def protocol_names(verdict: Verdict) -> list[str]:
    """The names and aliases of a D3 SAU's datasets, baselines and metrics (``verifier.specs`` D3 checks)."""
    found: list[str] = []
    for key in ("datasets", "baselines", "metrics"):
        for element in verdict.sau.checks.get(key, ()) or ():
            if isinstance(element, dict):
                found.extend(str(n) for n in (element.get("name"), *element.get("aliases", ())) if n)
    return found


def credited(verdict: Verdict) -> list[tuple[Value, list[tuple[str, int]]]]:
    """The values a verdict credited and where: for findings shaped like D1's (``values`` with ``outcome``
    ``matched`` and ``refs`` ``file:line``), each matched value (parsed with ``extractors.values.parse_value``, never
    evaluated) and its references outside notebooks. Empty for verdicts without such findings."""
    found = []
    for finding in (f.to_json() for f in verdict.findings):
        for value in finding.get("values", ()):
            if value.get("outcome") != "matched":
                continue
            refs = []
            for ref in value.get("refs", ()):
                place = split_ref(str(ref))
                if place and "#" not in place[0] and place not in refs:
                    refs.append(place)
            if refs:
                found.append((parse_value(str(value.get("value", ""))), refs))
    return found


def _read(repo: Path, file: str) -> str | None:
    try:
        with open(repo / file, encoding="utf-8", newline="") as handle:  # keep \r\n line ends
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _change_everywhere(repo: Path, refs: list[tuple[str, int]], value: Value, avoid: list[Value]) -> tuple[Edit, ...]:
    """Change ``value`` at every reference that holds it, to one new number: the credited value drifts wherever the
    verifier saw it. Edits of one file are chained, so the last edit of a file holds all of them."""
    claimed = [v for v in (value if isinstance(value, tuple) else (value,)) if is_number(v)]
    texts: dict[str, str | None] = {}
    edits = []
    for file, line in refs:
        if file not in texts:
            texts[file] = _read(repo, file)
        if texts[file] is None:
            continue
        edit = change_constant(texts[file], file, line, claimed, avoid)
        if edit is not None:
            texts[file] = edit.text
            edits.append(edit)
    return tuple(edits)


def edit_for(verdict: Verdict, kind: str, repo: Path, rng: random.Random,
             avoid: Sequence[Value] = ()) -> tuple[Edit, ...]:
    """The edits of one ``kind`` mutant for ``verdict``, or ``()`` when none applies. A changed number avoids the
    SAU's claimed numbers and ``avoid`` (pass the other SAUs' claimed numbers, so that the drift does not happen to
    satisfy another claim).

    Numerical drift changes one credited value at every reference to it (``credited``); without credited values,
    and for the other kinds, the first applicable operator is applied at the credited references, else at the
    evidence lines, in order. Only Python files (and, for numerical drift, configuration files) outside notebooks
    are edited; a file that cannot be read as UTF-8 is skipped.
    """
    values = credited(verdict)
    rng.shuffle(values)
    claimed = [*claimed_numbers(verdict), *avoid]
    if kind == NUMERICAL and values:
        for value, refs in values:
            edits = _change_everywhere(repo, refs, value, claimed)
            if edits:
                return edits
        return ()
    operators = list(OPERATORS[kind])
    rng.shuffle(operators)  # method drift: flip a sign or drop a term, at random
    sites = [ref for _, refs in values for ref in refs] or [
        (e.file, e.line) for e in verdict.evidence if e.cell is None and e.kind != "stub"]
    suffixes = (".py", *CONFIG_SUFFIXES) if kind == NUMERICAL else (".py",)
    for position, (file, line) in enumerate(sites):
        text = _read(repo, file) if file.endswith(suffixes) else None
        if text is None:
            continue
        for operator in operators:
            if operator is change_constant:
                edit = operator(text, file, line, claimed)
            elif operator is remove_call:
                edit = operator(text, file, line, protocol_names(verdict))
            elif operator is swap_steps:
                edit = operator(text, file, line, next((l for f, l in sites[position + 1:] if f == file), None))
            else:
                edit = operator(text, file, line)
            if edit is not None and edit.text != text:
                return (edit,)
    return ()


def plan(report: Report, repo: Path, kind: str, limit: int, rng: random.Random) -> tuple[list[Mutant], int]:
    """Up to ``limit`` mutants of ``kind`` for ``report``'s repository ``repo``, at SAUs chosen at random among those
    ``implemented``; a changed number avoids every number the spec's SAUs claim. Returns the mutants and how many
    SAUs were eligible."""
    eligible = [v for v in report.verdicts if implemented(v, kind)]
    rng.shuffle(eligible)
    avoid = [number for verdict in report.verdicts for number in claimed_numbers(verdict)]
    mutants = []
    for verdict in eligible:
        if len(mutants) >= limit:
            break
        edits = edit_for(verdict, kind, repo, rng, avoid)
        if edits:
            mutants.append(Mutant(kind, verdict.sau.id, verdict.sau.dimension, verdict.score, verdict.status, edits))
    return mutants, len(eligible)


def copy_repository(repo: Path, destination: Path) -> None:
    """Copy ``repo`` to ``destination`` (which must not exist): folders and regular files only; links, pipes and
    other special files are left out (the walk never reads them), as are version-control, cache and ``result``
    folders."""
    def ignore(folder: str, entries: list[str]) -> list[str]:
        skipped = []
        for entry in entries:
            mode = os.lstat(os.path.join(folder, entry)).st_mode
            if entry in _SKIP_COPY or not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                skipped.append(entry)
        return skipped
    shutil.copytree(repo, destination, symlinks=True, ignore=ignore)


def apply(mutant: Mutant, repo: Path, destination: Path) -> Path:
    """Copy ``repo`` to ``destination`` and write the mutant's edited files there; returns ``destination``."""
    copy_repository(repo, destination)
    for edit in mutant.edits:  # chained: the last edit of a file holds all of its changes
        with open(destination / edit.file, "w", encoding="utf-8", newline="") as handle:
            handle.write(edit.text)
    return destination


def touched(verdict: Verdict, edits: Sequence[Edit]) -> bool:
    """True when some of ``verdict``'s evidence lies in the span one of ``edits`` changed."""
    return any(e.file == edit.file and e.cell is None and e.line <= edit.end_line and edit.line <= e.end_line
               for e in verdict.evidence for edit in edits)


def outcome(mutant: Mutant, baseline: Sequence[Verdict], mutated: Sequence[Verdict]) -> dict:
    """Compare the verdicts on a mutant with the baseline ones.

    Returns a JSON-ready dict: the mutant (``kind``, ``target``, ``dimension``, baseline ``status``, ``file``, ``line``, ``end_line``,
    ``operator``, ``description``), the target's score ``before`` and ``after``, ``dropped`` (the target's score fell),
    ``false_alarms`` (ids of SAUs whose score or status changed though the edit touched none of their evidence),
    ``collateral`` (other SAUs that changed and whose evidence the edit touched) and ``compared`` (how many other SAUs
    were compared).
    """
    after = {v.sau.id: v for v in mutated}
    target = after.get(mutant.target)
    new_score = target.score if target is not None else None
    false_alarms, collateral = [], []
    for verdict in baseline:
        if verdict.sau.id == mutant.target:
            continue
        other = after.get(verdict.sau.id)
        if other is not None and (other.score, other.status) == (verdict.score, verdict.status):
            continue
        (collateral if touched(verdict, mutant.edits) else false_alarms).append(verdict.sau.id)
    edits = [{k: v for k, v in asdict(edit).items() if k != "text"} for edit in mutant.edits]
    return {"kind": mutant.kind, "target": mutant.target, "dimension": mutant.dimension, "status": mutant.status,
            "operator": mutant.edits[0].operator, "edits": edits, "before": mutant.score, "after": new_score,
            "dropped": new_score is not None and new_score < mutant.score,
            "false_alarms": false_alarms, "collateral": collateral, "compared": len(baseline) - 1}
