"""The ``verify`` command: check a repository against a paper's SAUs and report per-SAU verdicts.

Exit codes: 0 the run completed (whatever the verdicts), 1 ``--check-decisions`` found changed decisions, 2 a usage
or input error (missing repository, a folder with no file the verifier reads, unknown paper, malformed spec,
settings or decisions file, an ``--output`` that cannot be written, or in ``--llm replay`` a missing or unusable
recording: the message names the file or the SAU and, where it has one, the line), 3 an internal error (a bug),
130 interrupted (Ctrl-C). A source file that
cannot be parsed is a warning, not an error; so is an unreachable LLM endpoint (its SAUs stay unresolved).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Callable

# Only what building the parser needs is imported here, so that ``verify --help`` starts at once; the analysis
# (libcst, sympy, networkx through the rules), rich and the spec loaders are imported where a command uses them.
from extractors.guards import watch_interrupts
from extractors.walk import DEFAULT_MAX_BYTES
from llm_fallback.settings import DEFAULT_MODEL, LLMSettings
from llm_fallback.store import DEFAULT_FOLDER
from sau.vocabulary import DIMENSIONS, Dimension, PaperSpec
from verifier.config import LLM_MODES, ConfigError, Settings, load_settings
from verifier.formats import DEFAULT_FORMAT, FORMATS, write_text
from verifier.specs.errors import SpecError
from verifier.terminal import error_line, interrupted, printable

if TYPE_CHECKING:
    from rich.console import Console

    from extractors.cache import Cache

    from verifier.rendered import RenderedRun, RunInputs
    from verifier.run import Report
    from verifier.specs.load import SpecSource

DEMO_PAPER = "demo-001"
EXIT_OK, EXIT_CHANGED, EXIT_INPUT = 0, 1, 2


def demo_repository() -> Path:
    """The embedded demo repository (shipped inside the package as ``benchmark_data/demo/repo``)."""
    return Path(str(resources.files("benchmark_data").joinpath("demo", "repo")))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``verify`` (also used to render ``--help`` in the README)."""
    parser = argparse.ArgumentParser(
        prog="verify",
        description="Check an ML paper-reproduction repository against the paper's Semantic Alignment Units "
                    "(SAUs). Static analysis only: the repository is read, never imported or run. With no "
                    "arguments, runs on the embedded demo repository and spec.",
        epilog="Settings can also come from [tool.sauverify] in the nearest pyproject.toml "
               "(sau-dir, exclude, all-projects, max-file-bytes, format, dimensions, llm, model, base-url, "
               "llm-timeout, llm-retries, llm-concurrency, llm-batch, max-llm-calls, llm-evidence-chars, recordings, "
               "cache-dir). The LLM endpoint also reads OPENAI_API_KEY and OPENAI_BASE_URL; SAUVERIFY_CACHE_DIR "
               "names the cache folder. Exit codes: 0 ran, 1 --check-decisions found changed "
               "decisions, 2 usage or input error (including a folder with no file to read, an --output that "
               "cannot be written, a missing or unusable recording in --llm replay), 3 internal error, 130 "
               "interrupted.")
    parser.add_argument("repo", nargs="?", type=Path, help="the repository folder to check")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--paper", metavar="ID",
                        help="paper ID: a benchmark_id such as iclr25-008 or an SA-Bench slug such as ngpt")
    source.add_argument("--sau", metavar="FILE", type=Path, help="an SA-Bench sau.json to check against")
    source.add_argument("--spec", metavar="FILE", type=Path,
                        help="a paper spec in the project's YAML format (schema sauverify-spec/1; see "
                             "benchmark_data/ for examples) to check against")
    parser.add_argument("--sau-dir", metavar="DIR", type=Path,
                        help="folder laid out like SA-Bench's papers/ (<slug>/sau.json): used with --paper for "
                             "papers whose spec is not in benchmark_data yet")
    parser.add_argument("--dim", action="append", choices=[str(d) for d in DIMENSIONS], metavar="D",
                        help="only SAUs of this dimension (D1..D4); repeatable")
    parser.add_argument("--format", choices=list(FORMATS),
                        help="output format: " + ", ".join(f.help for f in FORMATS.values()))
    parser.add_argument("--output", "-o", metavar="FILE", type=Path, help="write the report to FILE")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="skip repository files whose relative path matches GLOB (* also crosses /), or with a "
                             "folder or file named GLOB in their path; repeatable")
    parser.add_argument("--all-projects", action="store_true",
                        help="read every folder, also those the README shows to be other projects than the "
                             "paper's (by default skipped and listed in the warnings)")
    parser.add_argument("--max-file-bytes", type=_positive, metavar="N", help="skip files larger than N bytes "
                                                                               "(default 1000000)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache of per-file facts and verdicts (default folder "
                             "~/.cache/sauverify; reports are the same with or without it)")
    parser.add_argument("--list-papers", action="store_true", help="list the known paper IDs and exit")
    parser.add_argument("--draft-spec", action="store_true",
                        help="print a first draft of a paper spec in the project's format, compiled from the "
                             "SA-Bench claims of --paper (with --sau-dir) or --sau, and exit")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no warning lines (the judge's failures are still reported)")
    many = parser.add_argument_group(
        "many repositories", "verify many repositories in one command, in a pool of processes: one report per "
                             "repository (in --format, default json) and summary.json in the --output folder, and "
                             "a summary table on standard output; the exit code is the worst repository's")
    inputs = many.add_mutually_exclusive_group()
    inputs.add_argument("--batch", metavar="FOLDER", type=Path,
                        help="a folder laid out like SA-Bench's runs: <config>/<paper slug>/repo (or "
                             "<paper slug>/repo); the slug names the paper")
    inputs.add_argument("--pairs", metavar="FILE", type=Path,
                        help="a file of 'REPOSITORY PAPER' lines (relative paths from the file's folder; # comments)")
    many.add_argument("--jobs", "-j", type=_positive, metavar="N",
                      help="processes (default: the number of cores)")
    many.add_argument("--scheduler", metavar="ADDRESS",
                      help="hand the repositories to the Dask scheduler at ADDRESS (tcp://host:8786) instead of the "
                           "local pool; needs the 'distributed' extra, sauverify on every worker and the paths on a "
                           "shared file system")
    parser.add_argument("--explain", "--verbose", "-v", action="store_true", dest="explain",
                        help="table: print each verdict's reason (and further evidence) under its row")
    llm = parser.add_argument_group(
        "LLM judge", "SAUs the rules leave unresolved (and that are code-checkable) can go to an LLM through any "
                     "OpenAI-compatible endpoint; every exchange is recorded so that runs replay offline, byte for "
                     "byte")
    llm.add_argument("--llm", choices=LLM_MODES,
                     help="off (default): rules only; auto: use a recording when there is one, else ask the endpoint "
                          "and record; record: always ask and record; replay: recordings only, never a network "
                          "connection (a missing recording is an error naming the SAU)")
    llm.add_argument("--model", help=f"the judge model (default {DEFAULT_MODEL})")
    llm.add_argument("--base-url", metavar="URL",
                     help="the OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OPENAI_BASE_URL, "
                          "else OpenAI's); the key comes from OPENAI_API_KEY")
    llm.add_argument("--llm-timeout", type=_positive_float, metavar="SECONDS", help="timeout per request (default 60)")
    llm.add_argument("--llm-retries", type=_count, metavar="N",
                     help="retries per request on connection errors, timeouts, 429 and 5xx, with backoff (default 3)")
    llm.add_argument("--llm-concurrency", type=_positive, metavar="N", help="requests in flight (default 4)")
    llm.add_argument("--llm-batch", type=_positive, metavar="N", help="SAUs per request (default 1)")
    llm.add_argument("--max-llm-calls", type=_count, metavar="N",
                     help="at most N exchanges per run, recorded ones included; SAUs beyond stay unresolved")
    llm.add_argument("--recordings", type=Path, metavar="DIR",
                     help=f"folder of recorded exchanges, one JSON file each (default {DEFAULT_FOLDER} next to the "
                          "nearest pyproject.toml, else in the current folder)")
    llm.add_argument("--save-decisions", type=Path, metavar="FILE",
                     help="write this run's decisions (per SAU: score, status, who decided) to FILE")
    llm.add_argument("--check-decisions", type=Path, metavar="FILE",
                     help="compare this run's decisions with FILE (from --save-decisions); exit 1 listing every "
                          "changed decision")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    return parser


class _Version(argparse.Action):
    """``--version``: argparse's own action formats the version when the parser is built, which would look the
    version up (``importlib.metadata``, slow to import) on every run; this one looks it up only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from verifier import __version__
        parser.exit(message=f"{parser.prog} {__version__}\n")


def _number(convert, low: float, inclusive: bool, what: str):
    """An argparse type: ``convert`` the text and require it above ``low`` (or equal, with ``inclusive``)."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not (value >= low if inclusive else value > low):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_positive = _number(int, 0, False, "a positive number")
_count = _number(int, 0, True, "a number >= 0")
_positive_float = _number(float, 0.0, False, "a positive number of seconds")


def llm_settings(args: argparse.Namespace, settings: Settings) -> LLMSettings:
    """The judge's settings: the command line over ``[tool.sauverify]`` over the defaults of ``LLMSettings``."""
    chosen = dict(settings.llm)
    for option, name in (("model", "model"), ("base_url", "base_url"), ("llm_timeout", "timeout"),
                         ("llm_retries", "retries"), ("llm_concurrency", "concurrency"), ("llm_batch", "batch"),
                         ("max_llm_calls", "max_calls")):
        if getattr(args, option) is not None:
            chosen[name] = getattr(args, option)
    home = settings.source.parent if settings.source is not None else Path.cwd()
    recordings = args.recordings or settings.recordings or home / DEFAULT_FOLDER
    return LLMSettings(mode=args.llm or settings.llm_mode or "off", recordings=recordings, **chosen)


EXIT_INTERNAL = 3  # a bug: never 1, which says "decisions changed"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a run stopped with Ctrl-C


def main(argv: list[str] | None = None) -> int:
    """Run ``verify``; returns the exit code (also used by the console script). Ctrl-C stops the run with one line
    and ``EXIT_INTERRUPTED``; the report is then not written (it is written only once the run completes). An
    internal error (a bug) is one line and ``EXIT_INTERNAL``."""
    try:
        with watch_interrupts():
            return _main(argv)
    except KeyboardInterrupt:
        _say("verify: interrupted")
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug must not read as "decisions changed" (exit 1)
        if interrupted(error):
            _say("verify: interrupted")
            return EXIT_INTERRUPTED
        _say(f"verify: internal error: {error_line(error)}")
        return EXIT_INTERNAL


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from extractors.cache import Cache, cache_folder
    from llm_fallback.regression import DecisionsError, load_decisions
    from verifier.rendered import RenderedRun, RunInputs
    if args.list_papers:
        return _list_papers()
    if args.draft_spec:
        return _draft(args)
    if args.batch is not None or args.pairs is not None:
        return _batch(args, _stderr_console())
    try:
        settings = load_settings(Path.cwd())
        repo, source = _inputs(args, settings.sau_dir)
        _check_output(args.output)
        saved = load_decisions(args.check_decisions) if args.check_decisions else None
    except (ConfigError, SpecError, DecisionsError) as error:
        _say(f"verify: error: {error}")
        return EXIT_INPUT
    judge = _judge(llm_settings(args, settings))
    fmt = args.format or settings.format or DEFAULT_FORMAT
    cache = None if args.no_cache else Cache(cache_folder(settings.cache_dir))
    inputs = RunInputs(repo, str(args.repo) if args.repo else "demo", source, fmt, args.explain,
                       tuple(Dimension(d) for d in (args.dim or settings.dimensions or DIMENSIONS)),
                       args.max_file_bytes or settings.max_file_bytes or DEFAULT_MAX_BYTES,
                       tuple(settings.exclude) + tuple(args.exclude), args.all_projects or settings.all_projects)
    # a run whose output depends only on the repository, the spec and the options is kept whole (verifier.rendered)
    key = None
    if cache is not None and FORMATS[fmt].render is not None and judge is None and saved is None \
            and args.save_decisions is None:
        try:
            key = inputs.key(cache)
        except OSError:  # the spec or the folder went away since: the run below says so
            key = None
    found = cache.get(key, RenderedRun) if cache is not None and key is not None else None
    if found is not None:
        return _replay(found, args.output, args.quiet)
    try:
        spec = source.load()
    except SpecError as error:
        _say(f"verify: error: {error}")
        return EXIT_INPUT
    run = _render(args, inputs, spec, judge, cache, saved)
    if run is not None and key is not None and cache is not None:
        try:
            unchanged = inputs.key(cache) == key  # a file edited while the run read it: keep nothing
        except OSError:
            unchanged = False
        if unchanged:
            cache.put(key, run)
    return run.status if run is not None else EXIT_INPUT


def _render(args: argparse.Namespace, inputs: RunInputs, spec: PaperSpec, judge, cache: Cache | None,
            saved) -> RenderedRun | None:
    """Run the rules (and the judge) on ``inputs`` against ``spec``, say the warnings, write the report and say what
    failed; the run as ``verifier.rendered`` keeps it (``text`` empty for the table), or ``None`` when the report
    or the decisions could not be written, or the repository holds nothing to read (each said)."""
    from llm_fallback.regression import compare, decisions, save_decisions
    from verifier.rendered import RenderedRun
    from verifier.run import NothingToRead, rule_failures
    err = _stderr_console()
    try:
        report = _run(inputs.repo, spec, inputs.display, inputs.dimensions, inputs.max_bytes, inputs.exclude,
                      show_progress=not args.quiet and err.is_terminal, err=err, judge=judge, cache=cache,
                      all_projects=inputs.all_projects)
    except NothingToRead as error:
        _say(f"verify: error: {args.repo}: {error}")
        return None
    warnings = tuple(f"warning: {w.file}:{w.line}: {w.message}" if w.line else f"warning: {w.file}: {w.message}"
                     for w in report.warnings)
    if not args.quiet:
        for line in warnings:
            _say(line)
    status = _judge_summary(judge, args.quiet)
    render = FORMATS[inputs.fmt].render
    text = render(report) if render is not None else ""
    if not _written(lambda: write_text(text, args.output) if render is not None
                    else FORMATS[inputs.fmt].write(report, args.output, args.explain), args.output):
        return None
    if args.save_decisions is not None:
        try:
            save_decisions(report, args.save_decisions)
        except OSError as error:
            _say(f"verify: error: {args.save_decisions}: cannot write decisions: {error}")
            return None
    # a bug on this input: said even with --quiet, and the report is still written
    failures = tuple(f"verify: internal error: a rule failed on SAU {failure}; the SAU is left unresolved"
                     for failure in rule_failures(report))
    for line in failures:
        _say(line)
    if failures and status == EXIT_OK:
        status = EXIT_INTERNAL
    if saved is not None:
        changes = compare(saved, decisions(report))
        for change in changes:
            _say(f"changed: {change.describe()}")
        if changes and status == EXIT_OK:
            _say(f"verify: {len(changes)} decision(s) changed against {args.check_decisions}")
            status = EXIT_CHANGED
    return RenderedRun(text, warnings, failures, status)


def _replay(run: RenderedRun, output: Path | None, quiet: bool) -> int:
    """Give a cached run (``verifier.rendered``) as the run itself did: its warnings unless ``quiet``, the report,
    the rule failures; returns its exit code, or ``EXIT_INPUT`` when the report cannot be written (said)."""
    if not quiet:
        for line in run.warnings:
            _say(line)
    if not _written(lambda: write_text(run.text, output), output):
        return EXIT_INPUT
    for line in run.failures:
        _say(line)
    return run.status


def _written(write: Callable[[], None], output: Path | None) -> bool:
    """Run ``write`` (the report to ``output``, or standard output when ``None``); ``False`` when it could not be
    written (said). A reader that left the pipe (``verify ... | head``) is no error."""
    try:
        write()
    except BrokenPipeError:
        sys.stderr.close()
    except OSError as error:  # a full disk, /dev/full, a folder made read-only during the run
        _say(f"verify: error: {output or 'standard output'}: cannot write the report: {error.strerror or error}")
        return False
    return True


def _stderr_console() -> Console:
    """The console for progress displays, on standard error (rich is imported only when one may be shown)."""
    from rich.console import Console
    return Console(stderr=True, highlight=False)


def _batch(args: argparse.Namespace, err: Console) -> int:
    """``--batch`` / ``--pairs``: every repository in a process pool (``verifier.batch``), its report in the
    ``--output`` folder, the summary there and as a table on stdout. Returns the worst repository's exit code, or
    2 for a usage or input error of the batch itself (a single-repository option given too, no repository)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from extractors.cache import cache_folder
    from verifier import batch
    # imported before the pool forks, so that no worker imports the index and the spec's parsers again (libcst,
    # sympy); each worker imports the rules when it first decides a SAU, which a warm batch never does
    import verifier.run  # noqa: F401

    given = [name for name, value in (("REPO", args.repo), ("--paper", args.paper), ("--sau", args.sau),
                                      ("--spec", args.spec), ("--save-decisions", args.save_decisions),
                                      ("--check-decisions", args.check_decisions)) if value is not None]
    if given:
        _say(f"verify: error: --batch and --pairs take no {', '.join(given)} (options of one repository; the "
             "batch's repositories and papers come from its folder or pairs file)")
        return EXIT_INPUT
    if args.llm not in (None, "off"):
        _say("verify: error: --batch and --pairs take no --llm (the LLM judge is not offered for batches yet)")
        return EXIT_INPUT
    try:
        settings = load_settings(Path.cwd())
        jobs = batch.find_runs(args.batch) if args.batch is not None else batch.read_pairs(args.pairs)
        if args.output is not None and args.output.exists() and not args.output.is_dir():
            raise SpecError("--output names a file; with --batch or --pairs it is the reports folder", args.output)
    except (ConfigError, SpecError, batch.BatchError) as error:
        _say(f"verify: error: {error}")
        return EXIT_INPUT
    options = batch.Options(tuple(Dimension(d) for d in (args.dim or settings.dimensions or DIMENSIONS)),
                            args.max_file_bytes or settings.max_file_bytes or DEFAULT_MAX_BYTES,
                            tuple(settings.exclude) + tuple(args.exclude), args.sau_dir or settings.sau_dir,
                            args.format or "json", args.output, args.explain,
                            None if args.no_cache else cache_folder(settings.cache_dir),
                            args.all_projects or settings.all_projects)
    workers = args.jobs or batch.default_workers()
    submit = None
    if args.scheduler is not None:
        try:
            submit = batch.dask_submit(args.scheduler)
        except ImportError:
            _say("verify: error: --scheduler needs the 'distributed' package: pip install 'sauverify[distributed]'")
            return EXIT_INPUT
    started = time.perf_counter()
    try:
        if args.quiet or not err.is_terminal:
            def tell(done: int, total: int, row: batch.Row) -> None:
                if not args.quiet and (done % 10 == 0 or done == total):  # a log file gets a line every ten
                    _say(f"{done}/{total} repositories")
            rows = batch.run_batch(jobs, options, workers, tell, submit)
        else:
            with Progress(TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          TextColumn("{task.description}"), console=err, transient=True) as progress:
                task = progress.add_task("", total=len(jobs))

                def advance(done: int, total: int, row: batch.Row) -> None:
                    progress.update(task, completed=done, description=printable(row.name)[-50:])
                rows = batch.run_batch(jobs, options, workers, advance, submit)
    except OSError as error:  # a scheduler that cannot be reached (the local pool turns failures into rows)
        if submit is None:
            raise
        _say(f"verify: error: --scheduler {args.scheduler}: {error}")
        return EXIT_INPUT
    if args.output is not None:
        try:
            args.output.mkdir(parents=True, exist_ok=True)
            (args.output / "summary.json").write_text(batch.summary_json(rows, options), encoding="utf-8")
        except OSError as error:
            _say(f"verify: error: {args.output}: cannot write the summary: {error.strerror or error}")
            return EXIT_INPUT
    batch.print_summary(rows, Console(highlight=False, width=None if sys.stdout.isatty() else 200))
    if not args.quiet:
        engine = f"the scheduler at {args.scheduler}" if submit else f"{workers} process{'es' if workers > 1 else ''}"
        _say(f"verify: {len(rows)} repositories in {time.perf_counter() - started:.1f} s with {printable(engine)}")
    return batch.exit_status(rows)


def _judge(settings: LLMSettings):
    """The LLM judge for this run, or ``None`` with ``--llm off``."""
    if settings.mode == "off":
        return None
    from llm_fallback.judge import Judge  # imports the openai client, only when a judge runs
    return Judge(settings)


def _judge_summary(judge, quiet: bool) -> int:
    """Say what the judge did (how many SAUs it decided, how many it left unresolved and why); ``EXIT_INPUT`` when
    replay found no recording, or an unusable one, for some SAU (each named, with the file), else ``EXIT_OK``."""
    if judge is None:
        return EXIT_OK
    stats = judge.stats
    for message in sorted(set(stats.errors)):
        _say(f"warning: {message}")
    routed = sum(stats.routed.values())
    failed = sum(stats.failed.values())
    if not quiet or failed:
        why = ", ".join(f"{n} {kind}" for kind, n in sorted(stats.failed.items()))
        _say(f"llm: {routed} SAUs routed to {judge.model}, {stats.judged} judged, {failed} left unresolved"
             + (f" ({why})" if why else "") + f", {stats.calls} exchanges")
    for sau, message in sorted(set(stats.unusable)):
        _say(f"verify: error: replay: unusable recording for SAU {sau}: {message}")
    for sau in sorted(stats.missing):
        _say(f"verify: error: replay: no recording for SAU {sau}")
    return EXIT_INPUT if stats.missing or stats.unusable else EXIT_OK


def _check_output(output: Path | None) -> None:
    """Refuse an unusable --output before the run, not after it: a folder, a missing folder, a file or folder that
    cannot be written (probed: an existing file is opened for appending, which changes nothing; in its folder a
    temporary file is created and removed; ``os.access`` alone says yes to root on read-only places). A destination
    that fails only when written to (a full disk, ``/dev/full``) is reported when the report is written."""
    if output is None:
        return
    if output.is_dir():
        raise SpecError("--output names a folder, not a file", output)
    if not output.parent.is_dir():
        raise SpecError("--output: the folder does not exist", output.parent)
    try:
        if output.exists():
            with output.open("a"):
                pass
        else:
            handle, probe = tempfile.mkstemp(dir=output.parent, prefix=".sauverify-probe-")
            os.close(handle)
            os.unlink(probe)
    except OSError as error:
        where = output if output.exists() else output.parent
        raise SpecError(f"--output: cannot write there ({error.strerror or error})", where) from None


def _say(message: str) -> None:
    """One unwrapped line on stderr: errors and warnings stay greppable whatever the terminal width. Control
    characters from file names or comments are escaped (``verifier.terminal``)."""
    sys.stderr.write(printable(message) + "\n")


def _inputs(args: argparse.Namespace, configured_sau_dir: Path | None) -> tuple[Path, SpecSource]:
    """The repository folder and where its spec comes from (read later, ``SpecSource.load``). Raises
    ``SpecError``."""
    from verifier.specs.load import PROJECT, SABENCH, SpecSource, locate_paper
    if args.repo is None and args.paper is None and args.sau is None and args.spec is None:
        if not args.quiet:
            _say("verify: no repository given; running on the embedded demo (see verify --help)")
        return demo_repository(), locate_paper(DEMO_PAPER)
    if args.repo is None:
        raise SpecError("a repository folder is required with --paper, --sau or --spec")
    if not args.repo.is_dir():
        raise SpecError("repository not found or not a folder", args.repo)
    if args.sau is not None:
        return args.repo, SpecSource(args.sau, SABENCH)
    if args.spec is not None:
        return args.repo, SpecSource(args.spec, PROJECT)
    if args.paper is None:
        raise SpecError("say which paper: --paper ID (verify --list-papers), --sau FILE or --spec FILE")
    return args.repo, locate_paper(args.paper, args.sau_dir or configured_sau_dir)


def _run(repo: Path, spec: PaperSpec, display: str, dimensions: tuple[Dimension, ...], max_bytes: int,
         exclude: tuple[str, ...], show_progress: bool, err: Console, judge=None, cache: Cache | None = None,
         all_projects: bool = False) -> Report:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from verifier.run import verify
    if not show_progress:
        return verify(repo, spec, display, dimensions, max_bytes, exclude, judge=judge, cache=cache,
                      all_projects=all_projects)
    # the phase (reading, call graph, D1 numerical ... D4 ordering, judge), its bar, and the file or SAU at hand
    with Progress(TextColumn("{task.fields[phase]:<12}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True) as progress:
        task = progress.add_task("", total=None, phase="reading")

        def advance(phase: str, done: int, total: int | None, item: str) -> None:
            progress.update(task, completed=done, total=total, description=item[-50:], phase=phase)

        return verify(repo, spec, display, dimensions, max_bytes, exclude, advance, judge, cache, all_projects)


def _draft(args: argparse.Namespace) -> int:
    from verifier.specs.draft import draft_spec
    from verifier.specs.papers import resolve
    try:
        settings = load_settings(Path.cwd())
        sau_dir: Path | None = args.sau_dir or settings.sau_dir
        if args.sau is not None:
            sau_file, entry = args.sau, None  # named by the file's own paper_id
        elif args.paper is not None and sau_dir is not None:
            entry = resolve(args.paper)
            sau_file = Path(sau_dir) / entry.slug / "sau.json"
        else:
            raise SpecError("--draft-spec needs --sau FILE, or --paper ID with --sau-dir DIR")
        text = draft_spec(sau_file, entry)
    except (ConfigError, SpecError) as error:
        _say(f"verify: error: {error}")
        return EXIT_INPUT
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return EXIT_OK


def _list_papers() -> int:
    from rich.console import Console

    from verifier.specs.papers import registry, spec_path
    console = Console(highlight=False)
    for entry in registry():
        marker = "spec" if spec_path(entry).is_file() else "    "
        line = f"{entry.benchmark_id:<13} {marker} {entry.slug:<36} {entry.title}"
        if console.is_terminal:  # a terminal's width cuts a title; a pipe or file gets it whole, as the table does
            console.print(line, markup=False, overflow="ellipsis", no_wrap=True)
        else:
            print(line)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
