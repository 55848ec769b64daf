"""Speed of the verifier (issue 20), in one run: startup, one process per repository against SA-Bench's own
deterministic pipeline (cold, then warm), the batch command over many repositories (cold, then warm), and time and
peak memory against lines of code for synthetic repositories.

Usage:
  python benchmarks/speed.py [--runs RUNS_DIR] [--config NAME] [--repos N] [--sabench-pipeline PATH]
        [--papers DIR] [--sabench-seconds S] [--batch-configs NAME ...] [--batch-repos N] [--jobs N]
        [--max-lines N] [--repeat N] [--only SECTION ...] [--json OUT]

  RUNS_DIR            SA-Bench's experiments/runs (<config>/<paper slug>/repo); default $SABENCH_RUNS, else
                      ../scratch/sabench/experiments/runs beside the project
  --sabench-pipeline  SA-Bench's scoring command ``sau-score`` (the executable, or the virtual environment or
                      folder whose bin/ holds it), run with ``--no-llm-judge`` (its evidence greps and heuristics)
  --papers            SA-Bench's papers/ folder (<slug>/sau.json) for that command; default RUNS_DIR/../../papers,
                      else ../shared/sabench/papers beside the project
  --sabench-seconds   without --sabench-pipeline, that pipeline's wall seconds over the same repositories measured
                      elsewhere (the project does not run SA-Bench's code itself): the single section's ratios are
                      then taken against it and say so

Every measured command runs in a child process of its own; its wall time, its CPU time (user + system) and its
peak resident memory come from ``os.wait4``. On a machine shared with other work the CPU time is the steadier
figure; both are printed, and ratios for both. Sections:

- ``startup``: ``verify --help`` and ``verify-stubs`` on one file, the median of ``--repeat`` runs.
- ``single``: for the first ``--repos`` repositories of ``--config`` (default the 30 of claude-sonnet_basic),
  ``verify REPO --paper SLUG --format json`` once per repository, alternating with SA-Bench's
  ``sau-score --paper SLUG --repo REPO --no-llm-judge`` when ``--sabench-pipeline`` is given, then the same
  commands again (warm: the verifier's cache, when it has one, is filled by the first pass; both passes use a
  fresh ``XDG_CACHE_HOME`` made for this run). Prints the totals, the cold and warm ratios, and whether each
  repository's report is byte-identical between the two passes.
- ``batch``: ``verify --pairs`` over every repository of ``--batch-configs`` (default the nine development configs,
  ``benchmarks/sabench_layout.py``: 270 repositories) with ``--jobs`` processes, cold then warm; ``--batch-repos``
  takes only the first N (for a quick look). Prints whether the summary, and how many of the written files (every
  report and the summary), are byte-identical between the passes.
- ``growth``: synthetic repositories (written to a temporary folder: files of 500 lines of model, config and
  training code) of 1,000, 10,000 and 100,000 lines, and 1,000,000 with ``--max-lines 1000000`` (minutes), plus one
  file of about 1 MB; ``verify`` against the demo paper on each: time and peak memory against lines.

A section whose inputs are missing is skipped with a message. Nothing from the repositories is run; they are read.
Exit status 0; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sabench_layout import DEVELOPMENT_CONFIGS  # noqa: E402
from verifier.batch import find_runs  # noqa: E402

SECTIONS = ("startup", "single", "batch", "growth")
LINES_PER_FILE = 500


@dataclass(frozen=True)
class Measure:
    """One child process: ``wall`` seconds, ``cpu`` seconds (user + system), ``rss_mb`` its peak resident memory,
    ``status`` its exit code."""

    wall: float
    cpu: float
    rss_mb: float
    status: int


def measure(command: list[str], env: dict[str, str] | None = None) -> Measure:
    """Run ``command`` (output discarded) and measure it with ``os.wait4`` (Linux and macOS)."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / (1024 if sys.platform != "darwin" else 1024 * 1024)
    return Measure(wall, usage.ru_utime + usage.ru_stime, rss, child.returncode)


def script(name: str) -> list[str]:
    """The console script ``name`` of the environment running this file (``[python, -m, module]`` without it)."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return [str(beside)]
    module = {"verify": "verifier.cli", "verify-stubs": "verifier.stubs_cli"}[name]
    return [sys.executable, "-m", module]


def say(text: str = "") -> None:
    print(text, flush=True)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def startup(repeat: int) -> dict:
    """Median wall and CPU seconds of ``verify --help`` and of ``verify-stubs`` on one file (the demo's model)."""
    stub_file = ROOT / "benchmark_data" / "demo" / "repo" / "tinygpt" / "model.py"
    figures = {}
    for label, command in (("verify --help", [*script("verify"), "--help"]),
                           ("verify-stubs FILE", [*script("verify-stubs"), str(stub_file)]),
                           ("python -c pass", [sys.executable, "-c", "pass"])):
        runs = [measure(command) for _ in range(repeat)]
        figures[label] = {"wall": _median([r.wall for r in runs]), "cpu": _median([r.cpu for r in runs])}
        say(f"  {label:<20} wall {figures[label]['wall']:.3f} s   cpu {figures[label]['cpu']:.3f} s "
            f"(median of {repeat})")
    return figures


def sau_score_command(path: Path) -> list[str] | None:
    """The ``sau-score`` command at ``path`` (the executable, or a folder whose ``bin/`` holds it), else None."""
    for candidate in (path, path / "bin" / "sau-score", path / "sau-score"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate)]
    return None


def single(runs: Path, config: str, count: int, pipeline: list[str] | None, papers: Path | None,
           work: Path, env: dict[str, str], recorded: float | None = None) -> dict:
    """One process per repository, cold then warm, alternating with SA-Bench's pipeline; without the pipeline,
    ``recorded`` (a wall total of it over the same repositories, measured elsewhere) gives the ratios instead."""
    repos = [job.repo for job in find_runs(runs / config)][:count]
    passes: dict[str, dict[str, list[Measure]]] = {}
    identical = 0
    for name in ("cold", "warm"):
        ours: list[Measure] = []
        theirs: list[Measure] = []
        for repo in repos:
            slug = repo.parent.name
            out = work / name / f"{slug}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            ours.append(measure([*script("verify"), str(repo), "--paper", slug, "--format", "json", "-o", str(out),
                                 "-q"], env))
            if pipeline is not None and papers is not None:
                theirs.append(measure([*pipeline, "--paper", slug, "--repo", str(repo), "--data-dir", str(papers),
                                       "--no-llm-judge", "-o", str(work / name / f"{slug}.sabench.json")], env))
        passes[name] = {"verify": ours, "sabench": theirs}
        failed = [r.parent.name for r, m in zip(repos, ours) if m.status != 0]
        line = (f"  {name}: verify {sum(m.wall for m in ours):.1f} s wall, {sum(m.cpu for m in ours):.1f} s cpu "
                f"for {len(repos)} repositories (median {_median([m.wall for m in ours]):.2f} s)")
        if theirs:
            wall_ratio = sum(m.wall for m in ours) / max(sum(m.wall for m in theirs), 1e-9)
            cpu_ratio = sum(m.cpu for m in ours) / max(sum(m.cpu for m in theirs), 1e-9)
            line += (f"; SA-Bench --no-llm-judge {sum(m.wall for m in theirs):.1f} s wall, "
                     f"{sum(m.cpu for m in theirs):.1f} s cpu; ratio {wall_ratio:.2f} wall, {cpu_ratio:.2f} cpu")
        elif recorded:
            line += (f"; ratio {sum(m.wall for m in ours) / recorded:.3f} wall against SA-Bench's recorded "
                     f"{recorded:.1f} s (not measured in this run)")
        say(line + (f"; failed: {', '.join(failed)}" if failed else ""))
    for repo in repos:
        cold, warm = (work / name / f"{repo.parent.name}.json" for name in ("cold", "warm"))
        identical += cold.is_file() and warm.is_file() and cold.read_bytes() == warm.read_bytes()
    say(f"  reports byte-identical between the passes: {identical} of {len(repos)}")
    return {"repositories": len(repos), "identical": identical,
            "passes": {name: {who: [asdict(m) for m in ms] for who, ms in p.items()} for name, p in passes.items()}}


def batch(runs: Path, configs: list[str], limit: int | None, jobs: int, work: Path, env: dict[str, str]) -> dict:
    """``verify --pairs`` over the repositories of ``configs``, cold then warm."""
    pairs = [(job.repo, job.paper) for job in find_runs(runs, configs)][:limit]
    listing = work / "pairs.txt"
    listing.write_text("".join(f"{repo} {slug}\n" for repo, slug in pairs), encoding="utf-8")
    figures = {"repositories": len(pairs), "jobs": jobs}
    for name in ("cold", "warm"):
        result = measure([*script("verify"), "--pairs", str(listing), "--jobs", str(jobs), "-o",
                          str(work / f"batch-{name}"), "-q"], env)
        figures[name] = asdict(result)
        say(f"  {name}: {len(pairs)} repositories in {result.wall:.1f} s wall ({result.cpu:.1f} s cpu, workers "
            f"included; exit {result.status})")
    cold, warm = (work / f"batch-{name}" for name in ("cold", "warm"))
    same = (cold / "summary.json").is_file() and (warm / "summary.json").is_file() \
        and (cold / "summary.json").read_bytes() == (warm / "summary.json").read_bytes()
    written = sorted(path.relative_to(cold) for path in cold.rglob("*") if path.is_file())
    identical = sum((warm / path).is_file() and (cold / path).read_bytes() == (warm / path).read_bytes()
                    for path in written)
    say(f"  summaries byte-identical between the passes: {'yes' if same else 'no'}; reports and summary: "
        f"{identical} of {len(written)} files")
    figures["identical_summary"] = same
    figures["identical_files"] = [identical, len(written)]
    return figures


MODULE = '''"""Synthetic module {n}: a model block, its config and a training step (benchmarks/speed.py)."""
import argparse
import math

import torch
from torch import nn

HIDDEN_{n} = {hidden}
DROPOUT_{n} = 0.1
CONFIG_{n} = {{"lr": 3e-4, "warmup_steps": 2000, "batch_size": 64, "weight_decay": 0.1}}


class Block{n}(nn.Module):
    """A residual block."""

    def __init__(self, d_model=HIDDEN_{n}, n_heads=8, dropout=DROPOUT_{n}):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.scale = 1 / math.sqrt(d_model // n_heads)

    def forward(self, x):
        h = self.norm(x)
        a, _ = self.attn(h, h, h)
        x = x + a * self.scale
        return x + self.mlp(self.norm(x))
'''

FUNCTION = '''

def step_{n}_{k}(model, batch, optimizer, lr={lr}, clip={clip}):
    """One training step ({k})."""
    loss = model(batch).pow(2).mean() * {scale}
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    for group in optimizer.param_groups:
        group["lr"] = lr * min(1.0, {k} / 2000)
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
'''

MAIN = '''

def main_{n}():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--epochs", type=int, default={epochs})
    args = parser.parse_args()
    model = Block{n}()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    for epoch in range(args.epochs):
        step_{n}_0(model, torch.randn(4, 16, HIDDEN_{n}), optimizer)


if __name__ == "__main__":
    main_{n}()
'''


def synthetic_module(n: int, lines: int) -> str:
    """A Python module of about ``lines`` lines (at least one block and one step function)."""
    text = MODULE.format(n=n, hidden=128 + n % 7 * 64)
    k = 0
    while text.count("\n") < lines - 15:
        text += FUNCTION.format(n=n, k=k, lr=f"{1 + k % 9}e-4", clip=1.0 + k % 3, scale=1 + k % 5)
        k += 1
    return text + MAIN.format(n=n, epochs=10 + n % 5)


def synthetic_repository(folder: Path, lines: int, per_file: int = LINES_PER_FILE) -> int:
    """Write a repository of about ``lines`` lines of Python, ``per_file`` lines per file, under ``folder``
    (a package of modules, a config and a README); returns the lines written."""
    package = folder / "model"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (folder / "README.md").write_text("# synthetic\n", encoding="utf-8")
    (folder / "config.yaml").write_text("lr: 3.0e-4\nwarmup_steps: 2000\nbatch_size: 64\n", encoding="utf-8")
    written = 0
    for n in range(max(1, round(lines / per_file))):
        text = synthetic_module(n, min(per_file, lines - written) if lines - written >= 50 else per_file)
        (package / f"part_{n:05d}.py").write_text(text, encoding="utf-8")
        written += text.count("\n")
    return written


def growth(max_lines: int, work: Path, env: dict[str, str]) -> list[dict]:
    """Time and peak memory of ``verify`` against lines of code for synthetic repositories."""
    rows = []
    cases = [(f"{lines:,} lines", lines, LINES_PER_FILE) for lines in (1_000, 10_000, 100_000, 1_000_000)
             if lines <= max_lines]
    cases.append(("one file of about 1 MB", 32_000, 32_000))
    for label, lines, per_file in cases:
        folder = work / f"synthetic-{lines}-{per_file}"
        written = synthetic_repository(folder, lines, per_file)
        size = sum(p.stat().st_size for p in folder.rglob("*.py"))
        files = sum(1 for _ in folder.rglob("*.py"))
        result = measure([*script("verify"), str(folder), "--paper", "demo", "--format", "json", "-o",
                          str(work / f"growth-{lines}-{per_file}.json"), "-q", "--max-file-bytes",
                          str(max(size, 1_000_000))], env)
        rows.append({"case": label, "lines": written, "files": files, "bytes": size, **asdict(result)})
        say(f"  {label:<24} {written:>9,} lines {files:>6} files {size / 1e6:>7.2f} MB   wall {result.wall:>8.1f} s  "
            f"cpu {result.cpu:>8.1f} s  peak {result.rss_mb:>7.0f} MB  exit {result.status}")
        shutil.rmtree(folder)
    return rows


def _default_runs() -> Path:
    return Path(os.environ.get("SABENCH_RUNS", ROOT.parent / "scratch" / "sabench" / "experiments" / "runs"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--runs", type=Path, default=_default_runs(), help="SA-Bench's experiments/runs")
    parser.add_argument("--config", default="claude-sonnet_basic", help="the config of the single section")
    parser.add_argument("--repos", type=int, default=30, help="repositories of the single section (default 30)")
    parser.add_argument("--sabench-pipeline", type=Path, help="SA-Bench's sau-score (executable or its venv)")
    parser.add_argument("--papers", type=Path, help="SA-Bench's papers/ folder for sau-score's --data-dir")
    parser.add_argument("--sabench-seconds", type=float,
                        help="without --sabench-pipeline: SA-Bench's pipeline's wall seconds over the same "
                             "repositories, measured elsewhere, for the single section's ratios (issue 20 recorded "
                             "102.2 s for the 30 of claude-sonnet_basic)")
    parser.add_argument("--batch-configs", nargs="+", default=list(DEVELOPMENT_CONFIGS),
                        help="configs of the batch section (default: the nine development configs)")
    parser.add_argument("--batch-repos", type=int, help="only the first N repositories of the batch section")
    parser.add_argument("--jobs", type=int, default=2, help="processes of the batch section (default 2)")
    parser.add_argument("--max-lines", type=int, default=100_000,
                        help="largest synthetic repository (default 100000; 1000000 takes minutes)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per startup figure (default 5)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.repos < 1 or args.jobs < 1 or args.repeat < 1:
        build_parser().error("--repos, --jobs and --repeat must be 1 or more")
    sections = args.only or list(SECTIONS)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    figures: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": platform.platform(),
                     "processor": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                     "load_average_at_start": load}
    say(f"sauverify speed, {figures['date']}, {figures['machine']}, {figures['cores']} cores, "
        f"load average {load[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="sauverify-speed-") as temporary:
        work = Path(temporary)
        env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}  # cold: an empty cache folder of our own
        if "startup" in sections:
            say("startup")
            figures["startup"] = startup(args.repeat)
        runs_ok = (args.runs / args.config).is_dir()
        if "single" in sections:
            say(f"one process per repository ({args.config})")
            if not runs_ok:
                say(f"  skipped: no {args.runs / args.config} (give --runs, or set SABENCH_RUNS)")
            else:
                pipeline = sau_score_command(args.sabench_pipeline) if args.sabench_pipeline else None
                papers = args.papers or next((p for p in (args.runs.parent.parent / "papers",
                                                          ROOT.parent / "shared" / "sabench" / "papers")
                                              if p.is_dir()), None)
                if args.sabench_pipeline is None:
                    say("  SA-Bench's pipeline not measured: give --sabench-pipeline (its sau-score command)")
                elif pipeline is None:
                    say(f"  SA-Bench's pipeline not measured: no sau-score at {args.sabench_pipeline}")
                elif papers is None:
                    say("  SA-Bench's pipeline not measured: no papers/ folder (give --papers)")
                figures["single"] = single(args.runs, args.config, args.repos, pipeline, papers, work / "single", env,
                                           args.sabench_seconds if pipeline is None else None)
        if "batch" in sections:
            say(f"batch ({', '.join(args.batch_configs)}; {args.jobs} processes)")
            if not args.runs.is_dir() or not any((args.runs / c).is_dir() for c in args.batch_configs):
                say(f"  skipped: no configs under {args.runs}")
            else:
                figures["batch"] = batch(args.runs, args.batch_configs, args.batch_repos, args.jobs, work, env)
        if "growth" in sections:
            say("growth (synthetic repositories; verify against the demo paper)")
            figures["growth"] = growth(args.max_lines, work, env)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
