"""The report in SA-Bench's result-file layout (``--format sabench``), so that a repository's numbers sit beside
SA-Bench's leaderboard and its tools read our file as one of theirs.

Facts about SA-Bench's result file (its ``<slug>-sau-score.json``), read from its result model and the 360 result
files of its published runs: top-level ``paper_id``, ``repo_path``, ``scored_at`` (an ISO 8601 time), ``model`` (a
string), ``dimensions`` (``D1``..``D4``, only those with claims, each ``score``, ``total_claims``, ``claims``) and
``overall_score``; each claim ``id``, ``claim``, ``source``, ``score`` (one of 0, 0.25, 0.5, 0.75, 1, never null),
``evidence`` (``file``, ``lines`` as text, ``snippet``, ``relevance``, ``kind``), ``search_rounds`` (a count),
``search_trace`` (a list) and ``judge_reasoning``. A dimension's score is the mean of its claims' scores and the
overall score the mean of the dimension scores, each rounded to 4 digits (``verifier.scoring`` computes ours the
same way); no dimension gives an overall 0.

How this output fills them (the README's "SA-Bench's result format" says the same for users):

- ``model`` names who decided: ``sauverify-rules-<version>``, with ``+<judge model>`` when the LLM judge ran;
- claims without a score (not code-checkable in the spec, or a rule failure) are left out, since SA-Bench's scale
  has no "no score"; ``total_claims`` and the means count only the claims given, which is how ``verifier.scoring``
  computes our own dimension scores, so the two reports agree;
- an unresolved verdict gives the rules' estimate as its score, and says so in ``judge_reasoning``, which starts
  with ``[status, drift; decided by ...]``;
- ``search_rounds`` is 0 and ``search_trace`` empty (no search: the rules read every file);
- evidence ``relevance`` is ``direct`` (evidence is what the verdict rests on), ``kind`` is ``config`` for a
  configuration file and ``code`` otherwise; a notebook's evidence names ``nb.ipynb#cell`` with lines in the cell;
- ``scored_at`` is the time in ``SOURCE_DATE_EPOCH`` (seconds, the reproducible-builds convention) or else
  1970-01-01T00:00:00Z, so that the same inputs still give the same bytes.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from verifier import __version__
from sau.vocabulary import Evidence, Status, Verdict
from verifier.run import Report
from verifier.scoring import dimension_scores, overall_score

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg", ".ini")


def to_sabench(report: Report, environ: dict[str, str] | None = None) -> str:
    """The report as SA-Bench's result file: JSON text, sorted keys, two-space indent, trailing newline.
    ``environ`` (default ``os.environ``) supplies ``SOURCE_DATE_EPOCH``; a value that is not a whole number of
    seconds is ignored."""
    scored = [v for v in report.verdicts if v.score is not None]  # SA-Bench's scale has no "no score"
    scores = [s for s in dimension_scores(scored) if s.score is not None]
    dimensions = {str(s.dimension): {"score": s.score, "total_claims": s.total,
                                      "claims": [_claim(v) for v in scored if v.sau.dimension == s.dimension]}
                  for s in scores}
    overall = overall_score(scores)
    data = {
        "paper_id": report.spec.slug,
        "repo_path": report.repo,
        "scored_at": scored_at(os.environ if environ is None else environ),
        "model": deciding_model(report.model),
        "dimensions": dimensions,
        "overall_score": 0.0 if overall is None else overall,  # SA-Bench writes 0 for no dimension
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def deciding_model(judge_model: str | None) -> str:
    """``sauverify-rules-<version>``, with ``+<judge model>`` when a judge ran."""
    rules = f"sauverify-rules-{__version__}"
    return f"{rules}+{judge_model}" if judge_model else rules


def scored_at(environ: dict[str, str] | os._Environ) -> str:
    """ISO 8601 UTC time of ``SOURCE_DATE_EPOCH`` (whole seconds), else of the epoch."""
    try:
        seconds = int(environ.get("SOURCE_DATE_EPOCH", "0"))
    except ValueError:
        seconds = 0
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _claim(verdict: Verdict) -> dict:
    said = verdict.status + (f", {verdict.drift}" if verdict.drift else "")
    note = " (the rules' estimate)" if verdict.status == Status.UNRESOLVED else ""
    return {
        "id": verdict.sau.id,
        "claim": verdict.sau.statement,
        "source": verdict.sau.source,
        "score": verdict.score,
        "evidence": [_evidence(e) for e in verdict.evidence],
        "search_rounds": 0,
        "search_trace": [],
        "judge_reasoning": f"[{said}; decided by {verdict.decided_by}]{note} {verdict.reason}",
    }


def _evidence(evidence: Evidence) -> dict:
    kind = "config" if evidence.kind == "config" or evidence.file.lower().endswith(_CONFIG_SUFFIXES) else "code"
    return {"file": evidence.where, "lines": evidence.lines, "snippet": evidence.snippet, "relevance": "direct",
            "kind": kind}
