"""Regression testing of decisions: save a run's verdicts, and compare a later run with them.

A decisions file (``schema`` ``sauverify-decisions/1``) lists per SAU its ``id``, ``dimension``, ``score``,
``status`` and ``decided_by`` (rule or model), in report order, as sorted, indented JSON. ``verify
--save-decisions FILE`` writes one; ``verify --check-decisions FILE`` exits 1 listing every changed decision. From
a user's pytest suite::

    from llm_fallback.regression import assert_decisions_unchanged

    def test_judge_decisions_unchanged():
        # report.json written by `verify REPO --paper ID --llm replay --format json -o report.json`
        assert_decisions_unchanged("decisions.json", "report.json")

``assert_decisions_unchanged`` also takes a ``verifier.run.Report`` or a parsed JSON report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = "sauverify-decisions/1"
_FIELDS = ("score", "status", "decided_by")


class DecisionsError(Exception):
    """A decisions or report file that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Change:
    """One SAU whose decision differs: ``old`` and ``new`` are its decision dicts (``None`` when the SAU is absent
    from that side)."""

    sau: str
    old: dict | None
    new: dict | None

    def describe(self) -> str:
        """``ngpt-D1-003: score 0.5 -> 0.75; status judged -> judged; decided by m -> m`` (or added/removed)."""
        if self.old is None:
            assert self.new is not None  # a change has at least one side
            return f"{self.sau}: new SAU, score {_show(self.new['score'])}, {self.new['status']} by " \
                   f"{self.new['decided_by']}"
        if self.new is None:
            return f"{self.sau}: no longer in the report (was score {_show(self.old['score'])}, " \
                   f"{self.old['status']} by {self.old['decided_by']})"
        return (f"{self.sau}: score {_show(self.old['score'])} -> {_show(self.new['score'])}; "
                f"status {self.old['status']} -> {self.new['status']}; "
                f"decided by {self.old['decided_by']} -> {self.new['decided_by']}")


def decisions(report: object) -> dict:
    """The decisions document of a report: a ``verifier.run.Report`` (anything with ``spec.slug`` and
    ``verdicts``), a parsed JSON report (dict), or the path of a JSON report file. Raises ``DecisionsError`` on an
    unreadable file or a dict that is not a report."""
    if isinstance(report, (str, Path)):
        report = _read(Path(report))
    elif not isinstance(report, dict):
        return _from_verdicts(report)
    try:
        rows = [{"id": claim["id"], "dimension": dimension, **{k: claim[k] for k in _FIELDS}}
                for dimension, block in sorted(report["dimensions"].items()) for claim in block["claims"]]
    except (KeyError, TypeError, AttributeError) as error:
        raise DecisionsError(f"not a sauverify JSON report (missing {error})") from None
    return {"schema": SCHEMA, "paper_id": report.get("paper_id"), "decisions": rows}


def _from_verdicts(report: Any) -> dict:
    """The decisions of an in-memory report, in the order its JSON form lists them (by dimension, then spec order)."""
    verdicts = sorted(report.verdicts, key=lambda v: str(v.sau.dimension))  # stable: spec order within a dimension
    rows = [{"id": v.sau.id, "dimension": str(v.sau.dimension), "score": v.score, "status": str(v.status),
             "decided_by": v.decided_by} for v in verdicts]
    return {"schema": SCHEMA, "paper_id": report.spec.slug, "decisions": rows}


def save_decisions(report: object, path: Path) -> None:
    """Write the decisions of ``report`` (see ``decisions``) to ``path``."""
    Path(path).write_text(json.dumps(decisions(report), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def load_decisions(path: Path) -> dict[str, dict]:
    """SAU id -> decision from a decisions file. Raises ``DecisionsError`` naming the file when it is unreadable or
    not a decisions file."""
    data = _read(Path(path))
    rows = data.get("decisions") if isinstance(data, dict) else None
    if data.get("schema") != SCHEMA or not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("id"), str) and all(k in r for k in _FIELDS) for r in rows):
        raise DecisionsError(f"{path}: not a decisions file ({SCHEMA} with decisions [{{id, "
                             f"{', '.join(_FIELDS)}}}])")
    return {r["id"]: r for r in rows}


def compare(saved: dict[str, dict], current: dict) -> list[Change]:
    """Every SAU whose score, status or deciding rule/model differs between ``saved`` (``load_decisions``) and
    ``current`` (a ``decisions`` document), plus SAUs present on one side only; in the current report's order,
    then removed SAUs in saved order."""
    now = {r["id"]: r for r in current["decisions"]}
    changes = [Change(sau, saved.get(sau), row) for sau, row in now.items()
               if sau not in saved or any(saved[sau][k] != row[k] for k in _FIELDS)]
    changes += [Change(sau, row, None) for sau, row in saved.items() if sau not in now]
    return changes


def assert_decisions_unchanged(saved_file: str | Path, report: object) -> None:
    """Raise ``AssertionError`` listing every changed decision (one line per SAU) when ``report`` (a Report, a
    parsed JSON report, or a JSON report file) differs from the decisions saved in ``saved_file``; raises
    ``DecisionsError`` when either cannot be read."""
    changes = compare(load_decisions(Path(saved_file)), decisions(report))
    if changes:
        raise AssertionError(f"{len(changes)} decision(s) changed against {saved_file}:\n"
                             + "\n".join(c.describe() for c in changes))


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DecisionsError(f"{path}: cannot read: {error}") from None
    if not isinstance(data, dict):
        raise DecisionsError(f"{path}: expected a JSON object")
    return data


def _show(score: float | None) -> str:
    return "-" if score is None else f"{score:g}"
