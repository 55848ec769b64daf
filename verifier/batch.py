"""Many repositories in one command (``verify --batch FOLDER`` or ``verify --pairs FILE``): which repositories and
papers, a process pool over them, one report per repository and a summary.

Inputs. ``find_runs`` reads a folder laid out like SA-Bench's ``experiments/runs``: ``<config>/<paper slug>/repo``
(or one config's folder, ``<paper slug>/repo``); the slug names the paper through the registry
(``verifier.specs.papers``). ``read_pairs`` reads a list of (repository, paper) pairs, one per line.

Running. ``run_batch`` verifies each ``Job`` in a worker process (``concurrent.futures.ProcessPoolExecutor``; with
one job slot, in this process), writes its report in the chosen format to ``<reports>/<name>.<suffix>`` (the same
bytes ``verify REPO --paper P --format F -o FILE`` writes), and returns one ``Row`` per job, in the jobs' order
whatever order the workers finish in. A repository whose input is bad (unknown paper, missing folder, nothing to
read) or whose run fails costs only its row, which names the error; the others complete.

The summary (``summary_json``, ``summary_table``) holds no time or absolute path unless given, so reruns are
byte-identical.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from sau.vocabulary import DIMENSIONS, Dimension, PaperSpec, Status
from verifier.specs.errors import SpecError

if TYPE_CHECKING:
    from rich.console import Console

SCHEMA = "sauverify-batch/1"
# A pairs file's comment: "#" at the start of a line or after a space, to the end of the line.
_COMMENT = re.compile(r"(^|\s)#.*$")
REPO_FOLDER = "repo"  # SA-Bench's layout: <config>/<paper slug>/repo
SUFFIXES = {"table": "txt", "json": "json", "sabench": "json", "sarif": "sarif", "html": "html"}
EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 2, 3


class BatchError(ValueError):
    """A batch input that cannot be used at all (a folder with no ``<slug>/repo``, a malformed pairs line); the
    message names the file or folder and, where it has one, the line."""


@dataclass(frozen=True)
class Job:
    """One repository to verify: ``name`` (unique in the batch: ``config/slug`` for SA-Bench's layout, the pairs
    file's line otherwise; also the report's file name under the reports folder), ``repo`` (the folder, as the user's
    paths spell it: it is the report's repository name), ``paper`` (a benchmark_id or SA-Bench slug)."""

    name: str
    repo: Path
    paper: str


@dataclass(frozen=True)
class Options:
    """What every job of a batch shares: ``dimensions``, ``max_bytes``, ``exclude`` (as ``verifier.run.verify``
    takes them), ``sau_dir`` (for papers without a curated spec), ``fmt`` (a name of ``verifier.formats.FORMATS``),
    ``reports`` (the folder the reports go to, or ``None`` for no reports), ``explain`` (the table's reasons),
    ``cache_dir`` (the cache folder each job reads and writes, ``extractors.cache``; ``None`` for no cache),
    ``all_projects`` (read other projects' folders too, ``extractors.projects``)."""

    dimensions: tuple[Dimension, ...] = DIMENSIONS
    max_bytes: int | None = None
    exclude: tuple[str, ...] = ()
    sau_dir: Path | None = None
    fmt: str = "json"
    reports: Path | None = None
    explain: bool = False
    cache_dir: Path | None = None
    all_projects: bool = False


@dataclass(frozen=True)
class Row:
    """The outcome of one job: its ``name``, ``repo`` (str) and ``paper`` (the benchmark_id once resolved, else as
    given); ``status`` the exit code ``verify`` would give for it alone (0 ran, 2 input error, 3 internal error) and
    ``error`` its one-line message; per dimension the mean score (``scores``, ``None`` when no SAU has a score);
    ``overall``; ``saus``, ``settled``, ``judged`` and ``unresolved`` counts; ``warnings``; ``report`` the report
    file relative to the reports folder (``None`` when none was written); ``seconds`` the wall time of the job,
    which the summary file leaves out (it must not change between reruns)."""

    name: str
    repo: str
    paper: str
    status: int = EXIT_OK
    error: str | None = None
    scores: dict[str, float | None] = field(default_factory=dict)
    overall: float | None = None
    saus: int = 0
    settled: int = 0
    judged: int = 0
    unresolved: int = 0
    warnings: int = 0
    report: str | None = None
    seconds: float = 0.0


def find_runs(root: Path, groups: Sequence[str] | None = None) -> list[Job]:
    """The jobs of a folder laid out like SA-Bench's runs: every ``<config>/<slug>/repo`` folder under ``root``
    (named ``config/slug``), or, when ``root`` is one config's folder, every ``<slug>/repo`` (named ``slug``); the
    paper is the slug. ``groups`` (config names), when given, keeps only those configs. Sorted by name. Raises
    ``BatchError`` when ``root`` is not a folder or holds no such repository folder."""
    if not root.is_dir():
        raise BatchError(f"{root}: not a folder")
    jobs = [Job(slug.name, slug / REPO_FOLDER, slug.name) for slug in _subfolders(root)
            if (slug / REPO_FOLDER).is_dir()]
    if not jobs:
        jobs = [Job(f"{config.name}/{slug.name}", slug / REPO_FOLDER, slug.name)
                for config in _subfolders(root) if groups is None or config.name in groups
                for slug in _subfolders(config) if (slug / REPO_FOLDER).is_dir()]
    if not jobs:
        raise BatchError(f"{root}: no <config>/<paper slug>/{REPO_FOLDER} or <paper slug>/{REPO_FOLDER} folder")
    return sorted(jobs, key=lambda job: job.name)


def _subfolders(folder: Path) -> Iterator[Path]:
    """The subfolders of ``folder`` (links to folders excluded: the layout is never followed out of the tree)."""
    return (child for child in sorted(folder.iterdir()) if child.is_dir() and not child.is_symlink())


def read_pairs(path: Path) -> list[Job]:
    """The jobs of a pairs file: one ``REPOSITORY PAPER`` per line (the paper ID is the last whitespace-separated
    word, so the path may hold spaces; a relative path is taken from the file's folder); blank lines and comments
    (``#`` at a line's start or after a space, to the line's end) are skipped. Each job is named after the
    repository path as written (without a leading ``/`` or ``./``), with ``-2``, ``-3`` ... for repeats. Raises
    ``BatchError`` naming the file and line for a line without a paper, and when the file cannot be read or names
    no pair."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BatchError(f"{path}: cannot read the pairs file: {getattr(error, 'strerror', None) or error}") from None
    jobs: list[Job] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = _COMMENT.sub("", line).strip()  # a whole-line comment, or one after the pair
        if not line:
            continue
        parts = line.rsplit(None, 1)
        if len(parts) != 2:
            raise BatchError(f"{path}:{number}: expected 'REPOSITORY PAPER', got {line!r}")
        written = Path(parts[0])
        repo = written if written.is_absolute() else path.parent / written
        base = "/".join(part for part in written.parts if part not in ("/", ".", "..")) or "repo"
        seen[base] = seen.get(base, 0) + 1
        jobs.append(Job(base if seen[base] == 1 else f"{base}-{seen[base]}", repo, parts[1]))
    if not jobs:
        raise BatchError(f"{path}: no 'REPOSITORY PAPER' line")
    return jobs


def run_job(job: Job, options: Options) -> Row:
    """Verify one job and write its report (``Options.reports``); never raises (an error becomes the row's
    ``status`` and ``error``). Runs in a worker process: ``job`` and ``options`` are pickled to it."""
    from extractors.cache import Cache
    from verifier.formats import FORMATS
    from verifier.run import NothingToRead, rule_failures, verify
    from verifier.scoring import dimension_scores, overall_score
    from verifier.specs.load import load_paper
    from extractors.walk import DEFAULT_MAX_BYTES

    started = time.perf_counter()
    row = Row(job.name, str(job.repo), job.paper)
    try:
        if not job.repo.is_dir():
            raise SpecError("repository not found or not a folder", job.repo)
        spec = _spec(job.paper, options.sau_dir, load_paper)
        cache = None if options.cache_dir is None else Cache(options.cache_dir)
        report = verify(job.repo, spec, str(job.repo), options.dimensions, options.max_bytes or DEFAULT_MAX_BYTES,
                        options.exclude, cache=cache, all_projects=options.all_projects)
        written = None
        if options.reports is not None:
            written = f"{job.name}.{SUFFIXES.get(options.fmt, options.fmt)}"
            target = options.reports / written
            target.parent.mkdir(parents=True, exist_ok=True)
            FORMATS[options.fmt].write(report, target, options.explain)
    except (SpecError, NothingToRead) as error:
        return _replace(row, status=EXIT_INPUT, error=str(error), seconds=time.perf_counter() - started)
    except OSError as error:  # a report that cannot be written, a repository that vanished
        return _replace(row, status=EXIT_INPUT, error=f"{getattr(error, 'filename', None) or ''}: "
                                                      f"{error.strerror or error}".lstrip(": "),
                        seconds=time.perf_counter() - started)
    except Exception as error:  # a bug costs only this repository
        return _replace(row, status=EXIT_INTERNAL, error=f"internal error: {type(error).__name__}: {error}",
                        seconds=time.perf_counter() - started)
    verdicts = list(report.verdicts)
    scores = dimension_scores(verdicts, report.dimensions)
    failures = rule_failures(report)  # the report is written; its rule failures are bugs, as in a single run
    if failures:
        row = _replace(row, status=EXIT_INTERNAL, error=f"internal error: a rule failed on SAU {failures[0]}"
                                                         + (f" (and {len(failures) - 1} more)" if failures[1:] else ""))
    return _replace(row, paper=spec.benchmark_id, scores={d.dimension: d.score for d in scores},
                    overall=overall_score(scores), saus=len(verdicts),
                    settled=sum(v.status == Status.SETTLED for v in verdicts),
                    judged=sum(v.status == Status.JUDGED for v in verdicts),
                    unresolved=sum(v.status == Status.UNRESOLVED for v in verdicts),
                    warnings=len(report.warnings), report=written, seconds=time.perf_counter() - started)


# A worker's specs by (paper, sau_dir): SA-Bench's layout verifies each paper once per config, and reading a spec
# (YAML and sympy's formulas) cost a warm job more than its verification. Specs are frozen records the rules only read.
_SPECS: dict[tuple[str, Path | None], PaperSpec] = {}


def _spec(paper: str, sau_dir: Path | None, load: Callable[[str, Path | None], PaperSpec]) -> PaperSpec:
    """The spec of ``paper`` by ``load`` (``verifier.specs.load.load_paper``), once per worker process; an error
    (``SpecError``) is raised again for each job that names the paper."""
    key = (paper, sau_dir)
    if key not in _SPECS:
        _SPECS[key] = load(paper, sau_dir)
    return _SPECS[key]


def _replace(row: Row, **changes: object) -> Row:
    return Row(**{**asdict(row), **changes})


Tell = Callable[[int, int, Row], None]
"""``tell(done, total, row)``: a job finished, for a progress display."""


def run_batch(jobs: Sequence[Job], options: Options, workers: int = 1, tell: Tell | None = None,
              submit: Callable[[Sequence[Job], Options], Iterator[Row]] | None = None) -> list[Row]:
    """Run every job and return their rows in the jobs' order. ``workers`` (int >= 1): processes in the pool; 1
    runs the jobs here, one after the other. ``tell`` is called as each job finishes. ``submit``, when given,
    replaces the local pool: it takes the jobs and options and yields one row per job in any order (a hand-off
    to another engine). A worker that dies (killed, out of memory) costs its job only: its row says so, with
    status 3."""
    rows: dict[str, Row] = {}

    def done(row: Row) -> None:
        rows[row.name] = row
        if tell is not None:
            tell(len(rows), len(jobs), row)

    if submit is not None:
        for row in submit(jobs, options):
            done(row)
    elif workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            done(run_job(job, options))
    else:
        with ProcessPoolExecutor(min(workers, len(jobs))) as pool:
            futures: dict[Future[Row], Job] = {pool.submit(run_job, job, options): job for job in jobs}
            for future in as_completed(futures):
                job = futures[future]
                try:
                    row = future.result()
                except Exception as error:  # the worker process itself failed (BrokenProcessPool...)
                    row = Row(job.name, str(job.repo), job.paper, EXIT_INTERNAL,
                              f"worker failed: {type(error).__name__}: {error}")
                done(row)
    return [rows[job.name] for job in jobs]


def dask_submit(address: str) -> Callable[[Sequence[Job], Options], Iterator[Row]]:
    """A ``submit`` for ``run_batch`` that hands the jobs to the Dask scheduler at ``address``
    (``tcp://host:8786``) instead of the local pool: one task per job, rows yielded as they finish. Every worker
    needs this version of sauverify installed and the repositories (and the reports folder) at the same paths, on a
    shared file system. A task that fails on a worker (a lost worker, a missing path there) costs its job only: its
    row says so, with status 3. Needs the optional ``distributed`` package (``pip install 'sauverify[distributed]'``);
    raises ``ImportError`` when it is missing, and ``OSError`` when the scheduler cannot be reached."""
    from distributed import Client, as_completed  # the optional extra, imported only when asked for

    def submit(jobs: Sequence[Job], options: Options) -> Iterator[Row]:
        with Client(address) as client:
            futures = {client.submit(run_job, job, options, pure=False, key=f"sauverify-{number}"): job
                       for number, job in enumerate(jobs)}
            for future in as_completed(list(futures)):
                job = futures[future]
                try:
                    yield future.result()
                except Exception as error:  # a worker lost, or the job's paths missing on the worker
                    yield Row(job.name, str(job.repo), job.paper, EXIT_INTERNAL,
                              f"worker failed: {type(error).__name__}: {error}")
    return submit


def exit_status(rows: Sequence[Row]) -> int:
    """The batch's exit code: 3 when some job met an internal error, else 2 when some job's input was bad, else 0
    (``verify``'s codes, the worst job deciding)."""
    return max((row.status for row in rows), default=EXIT_OK)


def default_workers() -> int:
    """The number of processes ``--jobs`` defaults to: the cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def summary(rows: Sequence[Row], options: Options) -> dict:
    """The batch summary as a JSON-ready dict: ``schema``, the ``format`` and ``dimensions`` run, ``totals``
    (repositories, how many ran, input errors, internal errors, SAUs by status, the mean overall score of the
    repositories that ran) and one entry per repository (a ``Row`` without its time). Deterministic: the rows in
    their jobs' order, no time."""
    ran = [row for row in rows if row.status == EXIT_OK]
    overall = [row.overall for row in ran if row.overall is not None]
    totals = {"repositories": len(rows), "ran": len(ran),
              "input_errors": sum(row.status == EXIT_INPUT for row in rows),
              "internal_errors": sum(row.status == EXIT_INTERNAL for row in rows),
              "saus": sum(row.saus for row in ran), "settled": sum(row.settled for row in ran),
              "judged": sum(row.judged for row in ran), "unresolved": sum(row.unresolved for row in ran),
              "mean_overall": round(sum(overall) / len(overall), 4) if overall else None}
    entries = [{key: value for key, value in asdict(row).items() if key != "seconds"} for row in rows]
    return {"schema": SCHEMA, "format": options.fmt, "dimensions": [str(d) for d in options.dimensions],
            "totals": totals, "repositories": entries}


def summary_json(rows: Sequence[Row], options: Options) -> str:
    """``summary`` as JSON text (sorted keys, one trailing newline)."""
    return json.dumps(summary(rows, options), indent=1, sort_keys=True) + "\n"


def print_summary(rows: Sequence[Row], console: Console) -> None:
    """The summary as a table on ``console`` (``rich.console.Console``): one row per repository (SAUs, settled,
    unresolved, the score per dimension and overall, and the error of a repository that did not run), then a line
    of totals. Text from the inputs (names, errors) is printed with control characters escaped."""
    from rich.table import Table
    from rich.text import Text

    from verifier.report import aligned
    from verifier.terminal import printable
    dimensions = sorted({d for row in rows for d in row.scores})
    errors = any(row.error for row in rows)
    # the error column only when some row has one: an empty column would take the width the names need
    header = ("repository", "paper", "SAUs", "settled", "unresolved", *dimensions, "overall",
              *(["error"] if errors else []))
    cells = [(printable(row.name), printable(row.paper), str(row.saus), str(row.settled), str(row.unresolved),
              *(_score(row.scores.get(d)) for d in dimensions), _score(row.overall),
              *([printable(row.error or "")] if errors else [])) for row in rows]
    title = _counted(len(rows), "repository", "repositories")
    if console.is_terminal:
        table = Table(title=title, title_justify="left")
        for index, column in enumerate(header):
            table.add_column(column, justify="left" if index < 2 or column == "error" else "right",
                             no_wrap=column != "error", overflow="fold" if column == "error" else "ellipsis")
        for row_cells in cells:
            table.add_row(*row_cells)
        console.print(table)
    else:  # a pipe or a file: the plain layout a single run prints there
        for text in (title, *aligned(header, cells)):
            console.print(Text(text), soft_wrap=True)
    totals = summary(rows, Options())["totals"]
    console.print(f"{totals['ran']} of {_counted(totals['repositories'], 'repository', 'repositories')} ran "
                  f"({_counted(totals['input_errors'], 'input error')}, "
                  f"{_counted(totals['internal_errors'], 'internal error')}); {totals['saus']} SAUs: "
                  f"{totals['settled']} settled, {totals['judged']} judged, {totals['unresolved']} unresolved; "
                  f"mean overall {_score(totals['mean_overall'])}", markup=False, highlight=False, soft_wrap=True)


def _counted(number: int, word: str, plural: str = "") -> str:
    """``number`` and ``word`` in the number it takes (``1 input error``, ``2 input errors``)."""
    return f"{number} {word if number == 1 else plural or word + 's'}"


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
