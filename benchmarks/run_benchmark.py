"""Benchmark the verifier on a folder laid out like SA-Bench's experiments/runs: settle rate per dimension, the SAUs
an LLM would get, agreement with recorded decisions, time and memory, and drift injection.

Usage:
  python benchmarks/run_benchmark.py RUNS_DIR --decisions DIR [--configs NAME ...] [--paper SLUG ...]
        [--specs curated|compiled --sau-dir DIR] [--dims D1 ...] [--mutants N] [--kinds KIND ...] [--seed N]
        [--jobs 2] [--json OUT] [--verbose]

  RUNS_DIR     <config>/<paper slug>/repo folders (the slug is mapped to the paper through benchmark_data's registry)
  --decisions  a folder of <config>.jsonl decision files (one {claim_id, score} per line), as SA-Bench records them

By default the nine development configs are run (``benchmarks/sabench_layout.py``); the held-out configs only when
named with ``--configs``, and they are never to be tuned on. Per config and overall it prints: settle rate per
dimension, the SAUs that would go to the LLM (unresolved and code-checkable), agreement of settled verdicts and of
all scored ones with the decisions (exact, within ±0.25, quadratic weighted kappa), Spearman's rho between our
overall score and the decisions' overall score per paper, seconds per repository (median, max) and the peak
resident memory of a worker; then per drift kind the share of mutants whose target SAU's score dropped and the
false alarms. ``--json`` writes the same figures and the per-repository rows. The repositories are read (and copied,
for mutants), never imported or run. Exit status 0; 2 on usage or input errors.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

from benchmarks import injection  # noqa: E402
from benchmarks.drift import KINDS  # noqa: E402
from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS, HELD_OUT_CONFIGS  # noqa: E402
from benchmarks.summary import DecisionsError, drift_figures, load_decisions, summarise  # noqa: E402
from sau.vocabulary import DIMENSIONS, Dimension, PaperSpec  # noqa: E402
from verifier.batch import BatchError, find_runs  # noqa: E402
from verifier.run import NothingToRead, Report, verify  # noqa: E402
from verifier.scoring import dimension_scores, overall_score  # noqa: E402
from verifier.specs.errors import SpecError  # noqa: E402
from verifier.specs.load import load_paper  # noqa: E402
from verifier.specs.papers import resolve  # noqa: E402
from verifier.specs.sabench import load_sabench  # noqa: E402

SCHEMA = "sauverify-benchmark/1"
EXCLUDE = ("result/*",)  # SA-Bench's own scores and logs inside each generated repository


def load_spec(slug: str, specs: str, sau_dir: Path | None) -> PaperSpec:
    """The spec for the paper whose SA-Bench slug (or benchmark_id) is ``slug``: the project's curated spec, or
    with ``specs == "compiled"`` SA-Bench's claims from ``<sau_dir>/<slug>/sau.json`` compiled at load time. Raises
    ``SpecError``."""
    if specs == "compiled":
        return load_sabench(Path(sau_dir) / resolve(slug).slug / "sau.json")
    return load_paper(slug, sau_dir)


def _verdict_rows(report: Report) -> list[dict]:
    return [{"id": v.sau.id, "dimension": v.sau.dimension, "score": v.score, "status": v.status,
             "checkable": v.sau.checkable} for v in report.verdicts]


def empty_row(config: str, paper: str, error: str | None = None) -> dict:
    """A repository's row before verification (or after a failure, with ``error``)."""
    return {"config": config, "paper": paper, "seconds": 0.0, "peak_rss_mb": 0.0, "error": error, "overall": None,
            "verdicts": [], "mutants": [], "eligible": {}, "mutant_errors": []}


def run_one(job: dict) -> dict:
    """Verify one repository and its mutants. ``job``: ``runs``, ``config``, ``paper``, ``specs``, ``sau_dir``,
    ``dimensions``, ``kinds``, ``mutants`` (per kind), ``seed``. Returns a row for ``benchmarks.summary``; an input
    error costs only this repository (its row carries ``error``)."""
    repo = Path(job["runs"]) / job["config"] / job["paper"] / "repo"
    row = empty_row(job["config"], job["paper"])
    try:
        spec = load_spec(job["paper"], job["specs"], job["sau_dir"])
        started = time.perf_counter()
        report = verify(repo, spec, str(repo), tuple(job["dimensions"]), exclude=EXCLUDE)
        row["seconds"] = time.perf_counter() - started
    except (SpecError, OSError, NothingToRead) as error:  # an empty repository is an input error
        row["error"] = str(error)
        return row
    row["benchmark_id"] = spec.benchmark_id
    row["overall"] = overall_score(dimension_scores(list(report.verdicts)))
    row["verdicts"] = _verdict_rows(report)
    for kind in job["kinds"]:
        rng = random.Random(f"{job['seed']}:{job['config']}:{job['paper']}:{kind}")
        try:
            mutants, eligible = injection.plan(report, repo, kind, job["mutants"], rng)
            row["eligible"][kind] = eligible
            for mutant in mutants:
                with tempfile.TemporaryDirectory(prefix="sauverify-mutant-") as temporary:
                    copy = injection.apply(mutant, repo, Path(temporary) / "repo")
                    mutated = verify(copy, spec, str(repo), tuple(job["dimensions"]), exclude=EXCLUDE)
                row["mutants"].append(injection.outcome(mutant, report.verdicts, mutated.verdicts))
        except Exception as error:  # a mutation bug on odd code costs only this repository's mutants of this kind
            row["mutant_errors"].append(f"{kind}: {type(error).__name__}: {error}")
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    return row


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_figures(figures: dict, console: Console) -> None:
    """Print the tables of ``figures`` (as ``main`` builds them: ``per_config``, ``overall``, ``drift``)."""
    def say(text: str) -> None:  # one unwrapped line; messages may hold brackets that are not markup
        console.print(text, soft_wrap=True, markup=False, highlight=False)

    dimensions = [d for d in DIMENSIONS if d in figures["overall"]["dimensions"]]
    table = Table(title="Settle rate, agreement with the decisions, speed (per config and overall)")
    table.add_column("config")
    table.add_column("repos", justify="right")
    for dimension in dimensions:
        table.add_column(f"{dimension} settled", justify="right")
    for column in ("to LLM", "settled exact", "±0.25", "QWK", "all exact", "±0.25 ", "QWK ", "Spearman",
                   "s/repo median", "max", "peak MB"):
        table.add_column(column, justify="right")
    rows = [*figures["per_config"].items(), ("overall", figures["overall"])]
    for name, f in rows:
        settled, scored = f["agreement"]["settled"], f["agreement"]["scored"]
        dims = f["dimensions"]
        table.add_row(name, str(f["repositories"]),
                      *(_share(dims[d]["settle_rate"]) if d in dims else "-" for d in dimensions),
                      str(f["to_llm"]), _share(settled["exact"]), _share(settled["near"]), _number(settled["qwk"]),
                      _share(scored["exact"]), _share(scored["near"]), _number(scored["qwk"]),
                      _number(f["spearman"]["rho"]), _number(f["seconds"]["median"]), _number(f["seconds"]["max"]),
                      _number(f["peak_rss_mb"], 0), end_section=name == rows[-2][0])
    console.print(table)
    overall = figures["overall"]
    for dimension in dimensions:
        d = overall["dimensions"][dimension]
        by = overall["agreement"]["settled"]["by_dimension"].get(dimension)
        agreeing = (f"; settled vs decisions: {_share(by['exact'])} exact, {_share(by['near'])} within ±0.25, "
                    f"QWK {_number(by['qwk'])} ({by['pairs']} pairs)") if by else ""
        say(f"{dimension} {Dimension(dimension).label:<9} {d['saus']:>5} SAUs  settled {d['settled']:>5} "
                      f"({_share(d['settle_rate'])})  judged {d['judged']}  unresolved {d['unresolved']}  "
                      f"to LLM {d['to_llm']}{agreeing}")
    settled, scored = overall["agreement"]["settled"], overall["agreement"]["scored"]
    say(f"settled verdicts with a decision: {settled['pairs']} (without: {settled['without_decision']});"
                  f" all scored: {scored['pairs']} (without: {scored['without_decision']});"
                  f" Spearman over {overall['spearman']['papers']} repositories;"
                  f" total {overall['seconds']['total']:.0f} s of verification")
    for error in overall["errors"]:
        say(f"error: {error}")
    drift = Table(title="Drift injection: mutants whose target SAU's score dropped, and false alarms")
    for column in ("kind", "mutants", "detected", "rate", "false-alarm mutants", "false-alarm verdicts",
                   "collateral", "detected by operator and target status"):
        drift.add_column(column, justify="left" if column in ("kind", "detected by operator and target status") else "right")
    for kind, f in figures["drift"].items():
        if not f["mutants"]:
            drift.add_row(kind, "0", "", "", "", "", "", f["note"])
            continue
        operators = ", ".join(f"{name} {o['detected']}/{o['mutants']}"
                              for name, o in (*f["by_operator"].items(), *f["by_status"].items()))
        drift.add_row(kind, str(f["mutants"]), str(f["detected"]), _share(f["detection_rate"]),
                      f"{f['false_alarm_mutants']} ({_share(f['false_alarm_mutants'] / f['mutants'])})",
                      f"{f['false_alarm_verdicts']} of {f['compared']}", str(f["collateral"]), operators)
    console.print(drift)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("runs", type=Path, help="folder of <config>/<paper slug>/repo")
    parser.add_argument("--decisions", type=Path, required=True, help="folder of <config>.jsonl decision files")
    parser.add_argument("--configs", nargs="+", default=list(DEVELOPMENT_CONFIGS),
                        help="configs to run (default: the nine development configs; held-out ones only when named)")
    parser.add_argument("--paper", action="append", help="only this paper slug (repeatable)")
    parser.add_argument("--specs", choices=("curated", "compiled"), default="curated",
                        help="curated: the specs in benchmark_data/ (default); compiled: SA-Bench's claims from "
                             "--sau-dir compiled at load time")
    parser.add_argument("--sau-dir", type=Path, help="folder of <slug>/sau.json (needed with --specs compiled)")
    parser.add_argument("--dims", nargs="+", choices=DIMENSIONS, default=list(DIMENSIONS))
    parser.add_argument("--mutants", type=int, default=3, help="drift mutants per kind per repository (0: none)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="drift kinds to inject")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutant choice")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", type=Path, help="also write the figures and per-repository rows here")
    parser.add_argument("--verbose", action="store_true", help="print one line per repository")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.specs == "compiled" and args.sau_dir is None:
        parser.error("--specs compiled needs --sau-dir")
    if args.mutants < 0 or args.jobs < 1:
        parser.error("--mutants must be 0 or more and --jobs 1 or more")
    unknown = [c for c in args.configs if c not in DEVELOPMENT_CONFIGS + HELD_OUT_CONFIGS]
    console, err = Console(), Console(stderr=True)
    if not console.is_terminal:
        console = Console(width=200)  # a file or pipe gets the whole table, not an 80-column squeeze
    if unknown:
        print(f"note: configs not in SA-Bench's list: {', '.join(unknown)}", file=sys.stderr)
    held_out = [c for c in args.configs if c in HELD_OUT_CONFIGS]
    if held_out:
        print(f"note: held-out configs measured: {', '.join(held_out)} (never tune on them)", file=sys.stderr)
    try:
        decisions = load_decisions(args.decisions, args.configs)
    except DecisionsError as error:
        print(f"run_benchmark: {error}", file=sys.stderr)
        return 2
    try:
        found = find_runs(args.runs, args.configs)
    except BatchError:
        found = []
    jobs = [{"runs": str(args.runs), "config": job.repo.parent.parent.name, "paper": job.paper, "specs": args.specs,
             "sau_dir": args.sau_dir, "dimensions": args.dims, "kinds": args.kinds if args.mutants else [],
             "mutants": args.mutants, "seed": args.seed}
            for job in found if "/" in job.name and (not args.paper or job.paper in args.paper)]
    if not jobs:
        print(f"run_benchmark: no <config>/<paper>/repo folders under {args.runs} for {', '.join(args.configs)}",
              file=sys.stderr)
        return 2
    rows = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as progress, ProcessPoolExecutor(args.jobs) as pool:
        task = progress.add_task("verifying", total=len(jobs))
        futures = [pool.submit(run_one, job) for job in jobs]
        for future in as_completed(futures):
            try:
                row = future.result()
            except Exception as error:  # a crashed worker costs only its repository
                job = jobs[futures.index(future)]
                row = empty_row(job["config"], job["paper"], f"worker failed: {type(error).__name__}: {error}")
            rows.append(row)
            progress.update(task, advance=1, description=f"{row['config']}/{row['paper']}"[-48:])
            if not err.is_terminal and len(rows) % 10 == 0:  # no live bar in a log file: a line every ten
                print(f"{len(rows)}/{len(jobs)} repositories", file=sys.stderr, flush=True)
            if args.verbose:
                settled = sum(v["status"] == "settled" for v in row["verdicts"])
                progress.console.print(f"{row['config']:<24} {row['paper']:<36} SAUs {len(row['verdicts']):>3} "
                                       f"settled {settled:>3} mutants {len(row['mutants'])} "
                                       f"{row['seconds']:.2f}s {row['error'] or ''}")
    rows.sort(key=lambda r: (r["config"], r["paper"]))
    figures = {"schema": SCHEMA, "configs": list(args.configs), "specs": args.specs, "dimensions": args.dims,
               "mutants_per_kind": args.mutants, "seed": args.seed, "jobs": args.jobs,
               "per_config": {c: summarise([r for r in rows if r["config"] == c], decisions)
                              for c in args.configs if any(r["config"] == c for r in rows)},
               "overall": summarise(rows, decisions),
               "drift": drift_figures(rows, args.kinds) if args.mutants else {}}
    print_figures(figures, console)
    if args.json:
        args.json.write_text(json.dumps({**figures, "repositories": rows}, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
