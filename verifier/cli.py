"""The ``verify`` command: check a repository against a paper's SAUs and report per-SAU verdicts.

Exit codes: 0 the run completed (whatever the verdicts), 2 a usage or input error (missing repository, unknown
paper, malformed spec or settings: the message names the file and, where it has one, the line). A source file that
cannot be parsed is a warning, not an error.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from extractors.walk import DEFAULT_MAX_BYTES
from verifier import __version__
from verifier.config import ConfigError, load_settings
from verifier.model import DIMENSIONS, PaperSpec
from verifier.report import print_table, to_json
from verifier.run import Report, verify
from verifier.draft import draft_spec
from verifier.specs import SpecError, load_paper, load_project_spec, load_sabench, registry, resolve, spec_path

DEMO_PAPER = "demo-001"
EXIT_OK, EXIT_INPUT = 0, 2


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
               "(sau-dir, exclude, max-file-bytes, format, dimensions). Exit codes: 0 ran, 2 usage or input error.")
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
    parser.add_argument("--dim", action="append", choices=DIMENSIONS, metavar="D",
                        help="only SAUs of this dimension (D1..D4); repeatable")
    parser.add_argument("--format", choices=("table", "json"), help="output format (default: table)")
    parser.add_argument("--output", "-o", metavar="FILE", type=Path, help="write the report to FILE")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="skip repository files matching GLOB (relative POSIX path); repeatable")
    parser.add_argument("--max-file-bytes", type=_positive, metavar="N", help="skip files larger than N bytes "
                                                                               "(default 1000000)")
    parser.add_argument("--list-papers", action="store_true", help="list the known paper IDs and exit")
    parser.add_argument("--draft-spec", action="store_true",
                        help="print a first draft of a paper spec in the project's format, compiled from the "
                             "SA-Bench claims of --paper (with --sau-dir) or --sau, and exit")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no warning lines")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run ``verify``; returns the exit code (also used by the console script)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    err = Console(stderr=True, highlight=False)
    if args.list_papers:
        return _list_papers()
    if args.draft_spec:
        return _draft(args)
    try:
        settings = load_settings(Path.cwd())
        repo, spec = _inputs(args, settings.sau_dir)
        _check_output(args.output)
    except (ConfigError, SpecError) as error:
        _say(f"verify: error: {error}")
        return EXIT_INPUT
    fmt = args.format or settings.format or "table"
    dimensions = tuple(args.dim or settings.dimensions or DIMENSIONS)
    max_bytes = args.max_file_bytes or settings.max_file_bytes or DEFAULT_MAX_BYTES
    exclude = tuple(settings.exclude) + tuple(args.exclude)
    report = _run(repo, spec, str(args.repo) if args.repo else "demo", dimensions, max_bytes, exclude,
                  show_progress=not args.quiet and err.is_terminal, err=err)
    if not args.quiet:
        for warning in report.warnings:
            where = f"{warning.file}:{warning.line}" if warning.line else warning.file
            _say(f"warning: {where}: {warning.message}")
    try:
        _write(report, fmt, args.output)
    except BrokenPipeError:  # `verify ... | head`: the reader left; that is not an error
        sys.stderr.close()
    return EXIT_OK


def _check_output(output: Path | None) -> None:
    """Refuse an unusable --output before the run, not after it."""
    if output is None:
        return
    if output.is_dir():
        raise SpecError("--output names a folder, not a file", output)
    if not output.parent.is_dir():
        raise SpecError("--output: the folder does not exist", output.parent)


def _say(message: str) -> None:
    """One unwrapped line on stderr: errors and warnings stay greppable whatever the terminal width."""
    sys.stderr.write(message + "\n")


def _inputs(args: argparse.Namespace, configured_sau_dir: Path | None) -> tuple[Path, PaperSpec]:
    if args.repo is None and args.paper is None and args.sau is None and args.spec is None:
        if not args.quiet:
            _say("verify: no repository given; running on the embedded demo (see verify --help)")
        return demo_repository(), load_paper(DEMO_PAPER)
    if args.repo is None:
        raise SpecError("a repository folder is required with --paper, --sau or --spec")
    if not args.repo.is_dir():
        raise SpecError("repository not found or not a folder", args.repo)
    if args.sau is not None:
        return args.repo, load_sabench(args.sau)
    if args.spec is not None:
        return args.repo, load_project_spec(args.spec)
    if args.paper is None:
        raise SpecError("say which paper: --paper ID (verify --list-papers), --sau FILE or --spec FILE")
    return args.repo, load_paper(args.paper, args.sau_dir or configured_sau_dir)


def _run(repo: Path, spec: PaperSpec, display: str, dimensions: tuple[str, ...], max_bytes: int,
         exclude: tuple[str, ...], show_progress: bool, err: Console) -> Report:
    if not show_progress:
        return verify(repo, spec, display, dimensions, max_bytes, exclude)
    with Progress(TextColumn("reading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, transient=True) as progress:
        task = progress.add_task("", total=None)

        def advance(done: int, total: int, file: str) -> None:
            progress.update(task, completed=done, total=total, description=file[-50:])

        return verify(repo, spec, display, dimensions, max_bytes, exclude, advance)


def _write(report: Report, fmt: str, output: Path | None) -> None:
    if fmt == "json":
        text = to_json(report)
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
        return
    if output is None:
        print_table(report, Console(highlight=False))
        return
    with output.open("w", encoding="utf-8") as handle:
        print_table(report, Console(file=handle, width=160, no_color=True, highlight=False))


def _draft(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(Path.cwd())
        if args.sau is not None:
            sau_file, entry = args.sau, None  # named by the file's own paper_id
        elif args.paper is not None and (args.sau_dir or settings.sau_dir) is not None:
            entry = resolve(args.paper)
            sau_file = Path(args.sau_dir or settings.sau_dir) / entry.slug / "sau.json"
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
    console = Console(highlight=False)
    for entry in registry():
        marker = "spec" if spec_path(entry).is_file() else "    "
        console.print(f"{entry.benchmark_id:<13} {marker} {entry.slug:<36} {entry.title}", markup=False,
                      overflow="ellipsis", no_wrap=True)
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
