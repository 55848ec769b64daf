"""``verify-stubs``: report stubs, placeholder values and TODO comments, flake8 style; the ``sauverify-stubs``
pre-commit hook runs it.

    verify-stubs [--select CODES] [--ignore CODES] [--exclude GLOBS] [PATH ...]

Each PATH is a file (checked whatever its suffix; ``.pyi`` files give no findings) or a folder (its ``*.py`` files,
see ``extractors.stubs.iter_python_files``); the default is the current folder. Stdout carries one line
``path:line:col: CODE message`` per finding, sorted by path, line and column, and nothing else. Errors go to stderr.

Exit status: 0 when there are no findings, 1 when there are findings (and nothing else went wrong), 2 on usage and
input errors (bad options, unknown codes, a broken configuration, a path that does not exist, a file or notebook
that cannot be read: its error is printed, naming it, and the other files are still checked), 3 on an internal
error (a bug: one line names it; never 1, so that a hook can tell findings from failures). A Python file that does
not compile is an input error too: stderr names its line and column (its stubs are still reported, from a tolerant
parse). Notebooks are checked
cell by cell, findings reported as ``nb.ipynb:cell_N:line:col``. Paths and messages are printed with control
characters escaped (``verifier.terminal``).

Configuration: the nearest ``pyproject.toml`` that has a ``[tool.sauverify.stubs]`` table, looking upward from the
current folder, may set ``select``, ``ignore`` and ``exclude``, each a list of strings (a comma-separated string is
accepted too). A command-line option replaces the configured value of the same key. ``select``/``ignore`` take codes
or code prefixes (``TOD``, ``STB00``); ``exclude`` takes fnmatch globs matched against file and folder names and
paths. Codes are listed in ``extractors.stubs``; ``# sauverify: ignore[CODES]`` on a line suppresses findings there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from extractors.python_source import compile_error
from extractors.stubs.detect import find_stubs_in_file, read_source
from extractors.notebooks import NotebookError
from extractors.stubs.findings import CODES, StubFinding, code_selected
from extractors.walk import is_binary, iter_python_files
from verifier.pyproject import TOOL, ConfigError, find_pyproject, key_place
from verifier.terminal import error_line, interrupted, printable

CONFIG_KEYS = ("select", "ignore", "exclude")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def _split(values: list[str] | None) -> list[str] | None:
    """Comma-separated option values (the option may be repeated) as one list; ``None`` when not given."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def find_config(start: Path) -> tuple[Path | None, dict[str, list[str]]]:
    """The nearest ``pyproject.toml`` at or above ``start`` (a folder) with a ``[tool.sauverify.stubs]`` table, and
    that table with each value as a list of str. Returns ``(None, {})`` when there is none. Raises ``ConfigError``
    when a ``pyproject.toml`` on the way is not valid TOML or the table has an unknown key or a value of the wrong
    type."""
    candidate, ours = find_pyproject(start, lambda table: "stubs" in table)
    if candidate is None:
        return None, {}
    table = ours["stubs"]
    if not isinstance(table, dict):
        raise ConfigError(f"{candidate}: [tool.{TOOL}.stubs] must be a table")
    config: dict[str, list[str]] = {}
    for key, value in table.items():
        where = key_place(candidate, key, TOOL + ".stubs")
        if key not in CONFIG_KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} in [tool.{TOOL}.stubs] (known: {', '.join(CONFIG_KEYS)})")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: [tool.{TOOL}.stubs] {key} must be a list of strings")
        config[key] = _split(value) or []
    return candidate, config


def _check_codes(parser: argparse.ArgumentParser, where: str, codes: list[str]) -> None:
    for code in codes:
        if not any(known.startswith(code.upper()) for known in CODES):
            parser.error(f"{where}: unknown code {code!r} (known: {', '.join(CODES)})")


def build_parser() -> argparse.ArgumentParser:
    """The ``verify-stubs`` argument parser (argparse.ArgumentParser). Never raises."""
    parser = argparse.ArgumentParser(
        prog="verify-stubs",
        description="Report stubs, placeholder values and TODO comments in Python files, flake8 style.",
        epilog="codes: " + "; ".join(f"{code} {text}" for code, text in CODES.items())
        + ". Exit status: 0 clean, 1 findings, 2 usage or input error (unknown code, missing path, unreadable "
          "file), 3 internal error.")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files and folders to check (default: .)")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="report only these codes or code prefixes, comma-separated (e.g. STB,TOD001)")
    parser.add_argument("--ignore", action="append", metavar="CODES",
                        help="do not report these codes or code prefixes, comma-separated")
    parser.add_argument("--exclude", action="append", metavar="GLOBS",
                        help="skip files and folders whose name or path matches one of these globs, comma-separated")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``verify-stubs`` on ``argv`` (list of str; ``sys.argv[1:]`` when ``None``) and return the exit status
    (int: 0 clean, 1 findings, 2 usage or input error, 3 internal error, 130 interrupted). Prints findings to stdout,
    errors to stderr. Never raises ``SystemExit``; argparse's own exits (``--help``, usage errors) become the
    returned status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("verify-stubs: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # a bug must not read as "findings" (exit 1) to a pre-commit run
        if interrupted(error):
            print("verify-stubs: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"verify-stubs: internal error: {error_line(error)}", file=sys.stderr)
        return EXIT_INTERNAL


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        try:
            config_path, config = find_config(Path.cwd())
        except ConfigError as error:
            parser.error(str(error))
        select, ignore, exclude = (_split(getattr(args, key)) for key in CONFIG_KEYS)
        if config_path is not None:
            for key in ("select", "ignore"):
                _check_codes(parser, f"{config_path} {key}", config.get(key, []))
        select = config.get("select", []) if select is None else select
        ignore = config.get("ignore", []) if ignore is None else ignore
        exclude = config.get("exclude", []) if exclude is None else exclude
        _check_codes(parser, "--select", select)
        _check_codes(parser, "--ignore", ignore)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_INPUT

    findings: list[StubFinding] = []
    unreadable = 0
    for path in iter_python_files(args.paths or ["."], exclude=exclude):
        try:
            if is_binary(path):  # not source code: a tolerant parse of it would report noise (as verify skips it)
                unreadable += 1
                print(printable(f"verify-stubs: error: {path}: skipped: binary, not source code"), file=sys.stderr)
                continue
            found = find_stubs_in_file(path)
        except (OSError, NotebookError) as error:
            unreadable += 1
            reason = getattr(error, "strerror", None) or str(error)
            print(printable(f"verify-stubs: error: cannot read {path}: {reason}"), file=sys.stderr)
            continue
        findings.extend(f for f in found if code_selected(f.code, select, ignore))
        broken = _syntax_error(path)
        if broken is not None:  # the findings above come from a tolerant parse: the file was read only in part
            unreadable += 1
            print(printable(f"verify-stubs: error: {broken}; its stubs were found by a tolerant parse and may be "
                            f"incomplete"), file=sys.stderr)
    findings.sort(key=lambda f: (f.path, f.line, f.column, f.code, f.message))
    out = sys.stdout
    for finding in findings:
        out.write(printable(finding.format()) + "\n")
    out.flush()
    return EXIT_INPUT if unreadable else EXIT_FINDINGS if findings else EXIT_CLEAN


def _syntax_error(path: str | Path) -> str | None:
    """``path:line:col: does not compile (message)`` for a Python file CPython would refuse (nothing is run:
    ``extractors.python_source.compile_error``), else ``None``; notebooks and stubs (``.pyi``) are not checked."""
    if not str(path).endswith(".py"):
        return None
    try:
        error = compile_error(read_source(path), str(path))
    except OSError:
        return None  # find_stubs_in_file has read it; a file gone since is not a syntax error
    if error is None:
        return None
    if isinstance(error, SyntaxError):
        return f"{path}:{error.lineno or 1}:{error.offset or 1}: does not compile ({error.msg})"
    return f"{path}: does not compile ({type(error).__name__})"


if __name__ == "__main__":
    sys.exit(main())
