"""Measure what the LLM judge is shown, without any model: evidence recall against the truth set and prompt size,
beside SA-Bench's own judge inputs for the same SAUs.

Usage:
  python benchmarks/judge_evidence.py RUNS_DIR [--decisions DIR] [--labels FILE] [--batch N] [--budget CHARS]
        [--json OUT]

  RUNS_DIR     SA-Bench's experiments/runs (<config>/<paper slug>/repo), read, never run
  --decisions  a folder of <config>.jsonl decision files: SA-Bench's evidence_refs for the same SAUs
  --batch      SAUs per request (default 1); with several, blocks shared by SAUs of a request are sent once
  --budget     the evidence budget per SAU in characters (default: the judge's, ``llm_fallback.settings``)

Every labelled repository is verified with the judge pointed at a scripted chat-completions server on 127.0.0.1
(``tests/chat_server.py``, through the real openai client); the requests it receives are the prompts measured. Per
dimension it prints: SAUs routed to the judge; of those whose label names evidence lines, the share whose prompt
shows a deciding line (any line of the label's evidence) and shows every deciding line; and the characters of the
user message per SAU (median, 90th percentile; the system message is the same for every request and is left out;
a batched request's characters are shared equally by its SAUs). Beside them the same figures for SA-Bench's judge
inputs, its 8-line grep snippets (``evidence_refs`` in the decisions files), on the same SAUs. Deterministic: no
model, no clock. Exit status 0; 2 on input errors (named on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from chat_server import ChatServer, shown_blocks  # noqa: E402
from benchmarks import truth  # noqa: E402
from benchmarks.run_benchmark import EXCLUDE, load_spec  # noqa: E402
from llm_fallback.judge import Judge  # noqa: E402
from llm_fallback.settings import LLMSettings  # noqa: E402
from sau.vocabulary import DIMENSIONS  # noqa: E402
from verifier.run import NothingToRead, verify  # noqa: E402
from verifier.specs.errors import SpecError  # noqa: E402

SCHEMA = "sauverify-judge-evidence/1"
MODEL = "evidence-probe"
_REF = re.compile(r"(?P<file>.+):(?P<start>\d+)(?:-(?P<end>\d+))?")

Shown = dict[str, set[int]]  # file -> line numbers shown


def parse_ref(ref: str) -> tuple[str, int, int] | None:
    """``file:12`` or ``file:12-14`` as (file, start, end); ``None`` for anything else."""
    match = _REF.fullmatch(ref.strip())
    if match is None:
        return None
    start = int(match["start"])
    return match["file"], start, int(match["end"] or start)


def recall(evidence: tuple[str, ...], shown: Shown) -> tuple[bool, bool]:
    """(some deciding line is shown, every deciding line is shown) for a label's evidence refs."""
    lines = [(file, n) for ref in evidence if (parsed := parse_ref(ref))
             for file, start, end in [parsed] for n in range(start, end + 1)]
    hits = [n in shown.get(file, ()) for file, n in lines]
    return any(hits), bool(hits) and all(hits)


@dataclass
class SauProbe:
    """What one routed SAU was shown: ``ours`` the lines of our prompt and ``chars`` its share of the user message;
    ``theirs`` SA-Bench's snippet lines and ``their_chars`` their text (``None`` when SA-Bench has no decision)."""

    config: str
    paper: str
    sau: str
    dimension: str
    evidence: tuple[str, ...]
    ours: Shown = field(default_factory=dict)
    chars: float = 0.0
    theirs: Shown | None = None
    their_chars: int = 0


def probe_repository(runs: Path, config: str, paper: str, labels: dict[str, truth.Label], settings: dict,
                     refs: dict[str, list[str]] | None) -> list[SauProbe]:
    """Verify one labelled repository with the judge against a local server; one ``SauProbe`` per routed SAU that
    has a label. Raises ``SpecError``, ``OSError`` or ``NothingToRead`` for an unusable repository or spec."""
    repo = runs / config / paper / "repo"
    if not repo.is_dir():
        raise OSError(f"repository not found: {repo}")
    spec = load_spec(paper, "curated", None)
    with ChatServer() as server, tempfile.TemporaryDirectory(prefix="sauverify-probe-") as temporary:
        judge = Judge(LLMSettings(mode="record", model=MODEL, base_url=server.url, retries=0, concurrency=1,
                                  recordings=Path(temporary), **settings))
        verify(repo, spec, str(repo), exclude=EXCLUDE, judge=judge)
        requests = [body for _, body in server.requests if len(body["messages"]) == 2]  # first attempts only
    probes = []
    for body in requests:
        user = body["messages"][1]["content"]
        per_sau = shown_blocks(body["messages"])
        for sau_id, blocks in per_sau.items():
            label = labels.get(sau_id)
            if label is None:
                continue
            probe = SauProbe(config, paper, sau_id, label.dimension, label.evidence, chars=len(user) / len(per_sau))
            for block in blocks:
                file = block["file"].partition("#")[0]
                probe.ours.setdefault(file, set()).update(block["lines"])
            if refs is not None and sau_id in refs:
                probe.theirs, probe.their_chars = _snippets(repo, refs[sau_id])
            probes.append(probe)
    return probes


def _snippets(repo: Path, refs: list[str]) -> tuple[Shown, int]:
    """SA-Bench's snippet lines and their characters (the lines' text joined by newlines, as a reader sees it)."""
    shown: Shown = {}
    chars = 0
    for ref in refs:
        parsed = parse_ref(ref)
        if parsed is None:
            continue
        file, start, end = parsed
        shown.setdefault(file, set()).update(range(start, end + 1))
        try:
            lines = (repo / file).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        chars += len("\n".join(lines[start - 1:end]))
    return shown, chars


def load_refs(folder: Path, config: str) -> dict[str, list[str]]:
    """SAU id -> SA-Bench's ``evidence_refs`` from ``<folder>/<config>.jsonl`` (empty when there is no file).
    Raises ``truth.TruthError`` naming file and line of a malformed row."""
    path = folder / f"{config}.jsonl"
    if not path.is_file():
        return {}
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            found[str(row["claim_id"])] = [str(r) for r in row.get("evidence_refs") or []]
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise truth.TruthError(f"{path}:{number}: not a decision row: {error}") from None
    return found


def _quantile(values: list[float], share: float) -> float | None:
    """The nearest-rank quantile (deterministic, no interpolation)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, -(-int(share * 100) * len(ordered) // 100) - 1))]


def figures(probes: list[SauProbe]) -> dict:
    """Per dimension and overall: ``routed``, ``with_evidence`` (routed SAUs whose label names lines), ``any`` and
    ``every`` (shares of those), ``chars_median`` and ``chars_p90``; and ``sabench`` the same for SA-Bench's
    snippets on the routed SAUs it has a decision for (``decided`` of them)."""
    groups = {"all": probes, **{str(d): [p for p in probes if p.dimension == d] for d in DIMENSIONS}}
    out = {}
    for name, group in groups.items():
        measured = [p for p in group if any(parse_ref(r) for r in p.evidence)]
        ours = [recall(p.evidence, p.ours) for p in measured]
        decided = [p for p in group if p.theirs is not None]
        theirs = [recall(p.evidence, p.theirs) for p in decided if p in measured]
        out[name] = {
            "routed": len(group), "with_evidence": len(measured),
            "any": _share([a for a, _ in ours]), "every": _share([e for _, e in ours]),
            "chars_median": _median([p.chars for p in group]), "chars_p90": _quantile([p.chars for p in group], 0.9),
            "sabench": {"decided": len(decided), "with_evidence": len(theirs), "any": _share([a for a, _ in theirs]),
                        "every": _share([e for _, e in theirs]),
                        "chars_median": _median([p.their_chars for p in decided]),
                        "chars_p90": _quantile([p.their_chars for p in decided], 0.9)}}
    return out


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def print_figures(result: dict, console: Console) -> None:
    """The table of ``figures``: ours beside SA-Bench's snippets, one row per dimension and ``all``."""
    table = Table(title=f"What the judge is shown (batch {result['batch']}, budget {result['budget']})")
    for column in ("group", "routed", "with evidence", "a deciding line", "every deciding line", "chars median",
                   "chars p90", "SA-Bench: a line", "every line", "chars median ", "chars p90 "):
        table.add_column(column, justify="left" if column == "group" else "right")
    for name, f in result["figures"].items():
        s = f["sabench"]
        table.add_row(name, str(f["routed"]), str(f["with_evidence"]), _pct(f["any"]), _pct(f["every"]),
                      _num(f["chars_median"]), _num(f["chars_p90"]), _pct(s["any"]), _pct(s["every"]),
                      _num(s["chars_median"]), _num(s["chars_p90"]), end_section=name == "all")
    console.print(table)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``judge_evidence.py``."""
    parser = truth.truth_parser(__doc__)
    parser.add_argument("--batch", type=int, default=1, help="SAUs per request (default 1)")
    parser.add_argument("--budget", type=int, help="evidence characters per SAU (default: the judge's)")
    parser.add_argument("--json", type=Path, help="also write the figures and every SAU's recall here")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        labels = truth.load_labels(args.labels)
    except truth.TruthError as error:
        print(f"judge_evidence: {error}", file=sys.stderr)
        return 2
    by_repository: dict[tuple[str, str], dict[str, truth.Label]] = defaultdict(dict)
    for label in labels:
        by_repository[(label.config, label.paper)][label.sau] = label
    settings: dict = {"batch": max(1, args.batch)}
    if args.budget is not None:
        settings["evidence_chars"] = args.budget
    probes: list[SauProbe] = []
    errors = []
    for (config, paper), mine in sorted(by_repository.items()):
        try:
            refs = load_refs(args.decisions, config) if args.decisions else None
            probes += probe_repository(args.runs, config, paper, mine, settings, refs)
        except (truth.TruthError, SpecError, OSError, NothingToRead) as error:
            errors.append(f"{config}/{paper}: {error}")
    budget = settings.get("evidence_chars", LLMSettings().evidence_chars)
    result = {"schema": SCHEMA, "batch": settings["batch"], "budget": budget, "figures": figures(probes)}
    print_figures(result, Console() if sys.stdout.isatty() else Console(width=200))
    if args.json:
        rows = [{"config": p.config, "paper": p.paper, "sau": p.sau, "dimension": p.dimension,
                 "any": recall(p.evidence, p.ours)[0], "every": recall(p.evidence, p.ours)[1], "chars": p.chars,
                 "sabench_any": None if p.theirs is None else recall(p.evidence, p.theirs)[0]} for p in probes]
        args.json.write_text(json.dumps({**result, "rows": rows, "errors": errors}, indent=1, sort_keys=True)
                             + "\n", encoding="utf-8")
    for error in errors:
        print(f"judge_evidence: error: {error}", file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
