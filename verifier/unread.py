"""No absence settled on unread code (ARCHITECTURE.md, "Promises").

A settled "absent", "missing", "unused", "stub" (nothing else implements it) or "dead" (nothing runs it) is a claim
about the whole repository. When a path that could hold the evidence was skipped or read only in part (a link, a
notebook in a layout nobody reads, a file over the size cap, a file only tree-sitter could parse, a config that did
not parse: ``RepositoryIndex.unread``), such a verdict stays unresolved, with its score as the estimate and the
unread paths in its reason. Verdicts resting on what was found (a match, a contradicting value, a formula that
differs, steps in the wrong order) stand. Applied once, after every dimension's rule (``verifier.run``), so that
no rule needs to know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace

from sau.vocabulary import Drift, Finding, Status, Verdict

# Drift kinds that say something is not there (or not used, or only a stub): the rules' absence verdicts.
ABSENCE_DRIFTS = frozenset({Drift.MISSING, Drift.UNUSED, Drift.STUB, Drift.PROTOCOL})
# Element outcomes (the rules' ``Outcome`` values: rules/d1..d4) that rest on not finding something: the name or
# mechanism bound nowhere, no code reading it, only a stub, or no entry point reaching it.
ABSENCE_OUTCOMES = frozenset({"absent", "unused", "stub", "unreached", "dead"})
_NAMED = 3  # unread paths named in the reason; the warnings name every one


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


def hold(verdict: Verdict, unread: Mapping[str, str]) -> Verdict:
    """``verdict`` unchanged, or, when it rests on an absence and ``unread`` (path -> why it was not read, as in
    ``RepositoryIndex.unread``) is not empty, the same verdict unresolved with a reason naming the unread paths."""
    if not unread or not rests_on_absence(verdict):
        return verdict
    paths = list(unread)
    named = ", ".join(f"{path} ({unread[path]})" for path in paths[:_NAMED])
    more = f" and {len(paths) - _NAMED} more (see the warnings)" if len(paths) > _NAMED else ""
    return replace(verdict, status=Status.UNRESOLVED,
                   reason=f"{verdict.reason}; not settled: it rests on an absence, and {len(paths)} path(s) that "
                          f"could hold the evidence were not read: {named}{more}")
