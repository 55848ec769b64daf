"""Which files of a repository the extractors read.

Skipped: version-control and tool folders, virtual environments, SA-Bench's and the usual run-output folders
(``result/``, ``results/``, ``outputs/``: they hold scores and logs, not the implementation), binaries (a NUL byte
in the first 8 KiB), files over the size cap, paths matching the user's exclude globs, and the folders of other
projects than the paper's in a repository holding several (``extractors.projects``). Order is sorted, so two
runs over the same tree see the same files in the same order.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from extractors.projects import other_projects

# Run outputs and build products: skipped, and said so in the report's warnings, since code could hide there.
REPORTED_SKIPS = frozenset({"result", "results", "outputs", "build", "dist", "wandb"})
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "virtualenv", "site-packages", "__pycache__",
    "node_modules", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints",
    "result", "results", "outputs", "wandb", ".idea", ".vscode", "build", "dist", ".eggs",
})
PYTHON = "python"
NOTEBOOK = "notebook"
CONFIG = "config"
SHELL = "shell"
DOCUMENT = "document"  # a README: only the commands its shell code blocks show are read (extractors.launchers)
_SUFFIXES = {".py": PYTHON, ".ipynb": NOTEBOOK, ".yaml": CONFIG, ".yml": CONFIG, ".json": CONFIG, ".toml": CONFIG,
             ".sh": SHELL}
# Task runners whose recipes are shell lines (make's and just's default file names): read as shell scripts.
_SHELL_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", ".justfile"})
DEFAULT_MAX_BYTES = 1_000_000  # larger files are data or generated code, not a reproduction's source
# The verify-stubs hook checks the user's own tree: it skips every hidden folder and only these, not build/ or result/.
_HOOK_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv"})


_TEST_DIRS = frozenset({"test", "tests", "testing"})


def file_kind(name: str) -> str | None:
    """The kind a file is read as from its name (``python``, ``notebook``, ``config``, ``shell``, ``document``), or
    ``None`` for a file the verifier does not read. A ``Makefile`` or ``justfile`` is a shell script: its recipes are
    shell lines. A Markdown README (``README.md``, ``readme.markdown``, ``README_zh.md``) is a ``document``: the
    commands it documents are how its authors run the code; other Markdown notes are not read."""
    if name in _SHELL_NAMES:
        return SHELL
    lowered = name.lower()
    if lowered.startswith("readme") and lowered.endswith((".md", ".markdown")):
        return DOCUMENT
    return _SUFFIXES.get(os.path.splitext(name)[1].lower())


def is_test_path(relative: str) -> bool:
    """True for test code (``tests/…``, ``test_x.py``, ``x_test.py``, ``tests.py``, ``conftest.py``): not an
    implementation of the paper."""
    parts = relative.split("/")
    name = parts[-1]
    return (any(part in _TEST_DIRS for part in parts[:-1]) or name.startswith("test_") or name.endswith("_test.py")
            or name in ("conftest.py", "tests.py", "test.py"))


@dataclass(frozen=True)
class SourceFile:
    """A file to read: ``path`` absolute, ``relative`` the POSIX path from the repository root, ``kind`` one of
    ``python``, ``notebook``, ``config``."""

    path: Path
    relative: str
    kind: str


@dataclass(frozen=True)
class Skipped:
    """A file or folder passed over, with the reason (``"binary"``, ``"over the size cap (N bytes)"``).

    ``unread`` is true when the path could hold code or configuration the verifier did not read (a link, a file over
    the size cap, a file or folder that could not be listed or opened): no rule may then settle that something is
    absent from the repository (``verifier.unread``). It is false for what is not implementation by policy (run
    outputs, binaries)."""

    relative: str
    reason: str
    unread: bool = True


def files_below(top: str | os.PathLike[str], skip_dir: Callable[[str, str], bool],
                onerror: Callable[[OSError], None] | None = None) -> Iterator[str]:
    """Every file path (str, ``os.path.join`` of the folder as ``os.walk`` gives it and the name) below ``top``:
    folders top-down, the sub-folders and the files of each folder in sorted order.

    A sub-folder is not entered when ``skip_dir(path, name)`` (its joined path and its name, str) is true; the
    callback runs once per sub-folder, in sorted order, before the folder's files are yielded. Links to folders are
    never followed (``os.walk``). ``onerror`` gets the ``OSError`` of a folder that cannot be listed (default:
    ignored). Files are yielded whatever their type: the caller checks links and special files.
    """
    for current, dirs, names in os.walk(top, onerror=onerror):
        dirs[:] = [d for d in sorted(dirs) if not skip_dir(os.path.join(current, d), d)]
        for name in sorted(names):
            yield os.path.join(current, name)


def walk(root: Path, max_bytes: int = DEFAULT_MAX_BYTES, exclude: tuple[str, ...] = (),
         all_projects: bool = False) -> tuple[list[SourceFile], list[Skipped]]:
    """List the readable files below ``root`` and the ones skipped for size or content.

    ``exclude`` holds glob patterns matched against the relative POSIX path (``"tests/*"``; ``*`` also crosses
    ``/``) or equal to one of its components (``"sam2"``). A folder is a virtual environment, and skipped, also when
    it holds a ``pyvenv.cfg``. Links are never followed but reported as skipped (a linked folder, or a linked file
    of a kind the verifier reads), as are named pipes and unreadable files and folders. Unless ``all_projects``, the
    folders of other projects than the paper's (``extractors.projects.other_projects``) are skipped and reported as
    unread: the tool chose to leave them out, so no absence settles while they are (an ``exclude`` glob the user
    gives makes the choice theirs). Raises
    ``NotADirectoryError`` when ``root`` is not a folder.
    """
    if not root.is_dir():
        raise NotADirectoryError(str(root))
    files: list[SourceFile] = []
    skipped: list[Skipped] = []

    def unreadable(error: OSError) -> None:
        where = Path(error.filename).relative_to(root).as_posix() if error.filename else "."
        skipped.append(Skipped(where + "/", f"folder not read: {error.strerror or error}"))

    def skip_dir(path: str, folder: str) -> bool:
        relative = Path(path).relative_to(root).as_posix()
        # a folder is the user's to skip when a glob excludes it or every file below it (result/* excludes result/)
        if _excluded(relative, exclude) or _excluded(relative + "/\0", exclude):
            return True
        if folder in SKIP_DIRS or _is_venv(Path(path)):
            if folder in REPORTED_SKIPS:
                skipped.append(Skipped(relative + "/", "run outputs or build products, not the implementation",
                                       unread=False))
            return True
        if Path(path).is_symlink():
            skipped.append(Skipped(relative + "/", f"a link to a folder ({_target(path)}), not followed",
                                   unread=not _inside(path, root)))
            return True
        return False

    for full in files_below(root, skip_dir, onerror=unreadable):
        path = Path(full)
        kind = file_kind(path.name)
        relative = path.relative_to(root).as_posix()
        if kind is None:
            if path.is_symlink() and not path.exists() and not _excluded(relative, exclude):
                # a broken link or a loop (configs -> /mnt/data/configs): what it named, a folder of code or
                # configuration perhaps, is not here to read
                skipped.append(Skipped(relative, f"a link ({_target(full)}) to nothing here, not followed"))
            continue
        if _excluded(relative, exclude):
            continue
        reason = _unfit(path, max_bytes)
        if reason == "":
            skipped.append(Skipped(relative, f"a link ({_target(full)}), not followed", unread=not _inside(full, root)))
            continue
        if reason:
            skipped.append(Skipped(relative, reason, unread=reason != "binary"))
            continue
        files.append(SourceFile(path, relative, kind))
    if not all_projects:
        # a README's commands are launches, but its prose names folders it does not run: which projects the code
        # refers to is read from code, configuration and launchers, as before READMEs were read
        others = other_projects(root, [f.relative for f in files if f.kind != DOCUMENT])
        if others:
            files = [f for f in files if not any(f.relative.startswith(folder + "/") for folder in others)]
            # unread: the choice is the tool's, so no absence settles on it (the user's --exclude makes it theirs)
            skipped.extend(Skipped(folder + "/", reason, unread=True) for folder, reason in others.items())
    return files, skipped


def iter_python_files(paths: Iterable[str | os.PathLike[str]], exclude: Iterable[str] = ()) -> Iterator[str]:
    """The files the ``verify-stubs`` hook checks, as str paths, in a stable order: each path given that is not a
    folder (whatever its suffix, so a missing file reaches the reader and its error), and the ``*.py`` and
    ``*.ipynb`` files below each folder given (sorted; hidden folders, ``__pycache__``, ``node_modules``, ``site-packages``, ``venv`` and
    folders holding a ``pyvenv.cfg`` are skipped). ``exclude`` holds fnmatch globs (str) matched against a file's or
    folder's name and against its path as given (``"result"``, ``"tests/*"``); an excluded folder is not entered.
    Links and special files below a folder are passed over, as ``walk`` does. Never raises; unreadable folders are
    skipped.

    It differs from ``walk`` on purpose, each difference pinned by tests/test_stubs.py: globs match the path as
    given (``_excluded(..., as_given=True)``), every hidden folder is skipped but not ``build/`` or ``result/``
    (the hook checks the user's own tree), and no size cap or binary sniffing applies.
    """
    patterns = tuple(p for p in exclude if p)

    def skip_dir(path: str, folder: str) -> bool:
        return (folder.startswith(".") or folder in _HOOK_SKIP_DIRS or _is_venv(Path(path))
                or _excluded(path, patterns, as_given=True))

    for path in paths:
        given = os.fspath(path)
        if _excluded(given, patterns, as_given=True):
            continue
        if not os.path.isdir(given):
            yield given
            continue
        for full in files_below(given, skip_dir):
            if full.endswith((".py", ".ipynb")) and not _excluded(full, patterns, as_given=True) and _regular(full):
                yield full


def _excluded(path: str, patterns: tuple[str, ...], *, as_given: bool = False) -> bool:
    """Whether one of the globs ``patterns`` excludes ``path`` (str). Two rules, both pinned by tests:

    - ``walk`` (default): ``path`` is relative POSIX; a glob matches it (``./`` ignored on either side; ``*`` also
      crosses ``/``) or a pattern equals one of its components (``sam2`` excludes the folder sam2);
    - ``as_given`` (``iter_python_files``): ``path`` is as the user gave it; a glob matches it, it without a
      leading ``./``, or its name (last component), case-sensitively.
    """
    if not patterns:
        return False
    posix = path.replace(os.sep, "/")
    bare = posix.removeprefix("./")
    if as_given:
        candidates = {posix, bare, posix.rstrip("/").rsplit("/", 1)[-1]}
        return any(fnmatch.fnmatchcase(c, p) for c in candidates for p in patterns)
    parts = bare.split("/")
    return any(fnmatch.fnmatch(bare, p.removeprefix("./")) or p in parts for p in patterns)


def _target(path: str) -> str:
    """Where the link ``path`` points, as written in the link (``../shared_lib``), for the warning."""
    try:
        return "to " + os.readlink(path)
    except OSError as error:
        return f"target not read: {error.strerror or error}"


def _inside(link: str, root: Path) -> bool:
    """Whether the link ``link`` resolves to a path inside ``root``: its content is then read where it really is
    (unless that place is itself skipped, which its own warning says)."""
    try:
        Path(link).resolve(strict=True).relative_to(root.resolve())
        return True
    except (OSError, RuntimeError, ValueError):
        return False


def _is_venv(folder: Path) -> bool:
    try:
        return (folder / "pyvenv.cfg").exists()
    except OSError:
        return False


def _not_regular(info: os.stat_result) -> str | None:
    """``""`` for a link (never followed), a reason for a special file (a named pipe, or a device such as
    /dev/zero, would stall the reader), ``None`` for a regular file."""
    if stat.S_ISLNK(info.st_mode):
        return ""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return None


def _regular(path: str) -> bool:
    """A regular file (see ``_not_regular``), or one that cannot be examined: the reader then reports it, naming the
    file."""
    try:
        return _not_regular(os.lstat(path)) is None
    except OSError:
        return True


_SNIFF_BYTES = 8192  # a NUL byte in a file's first 8 KiB marks it binary (the heuristic git and grep use)


def is_binary(path: str | Path) -> bool:
    """Whether the file at ``path`` is binary: a NUL byte in its first ``_SNIFF_BYTES``. Raises ``OSError`` when it
    cannot be read."""
    with Path(path).open("rb") as handle:
        return b"\0" in handle.read(_SNIFF_BYTES)


def _unfit(path: Path, max_bytes: int) -> str | None:
    """Why a file is not read: ``""`` for a link (never followed), a reason, or ``None`` when it is fit."""
    try:
        info = os.lstat(path)
        reason = _not_regular(info)
        if reason is not None:
            return reason
        if info.st_size > max_bytes:
            return f"over the size cap ({info.st_size} bytes > {max_bytes})"
        if is_binary(path):
            return "binary"
    except OSError as error:
        return f"not read: {error.strerror or error}"
    return None
