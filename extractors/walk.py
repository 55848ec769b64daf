"""Which files of a repository the extractors read.

Skipped: version-control and tool folders, virtual environments, SA-Bench's and the usual run-output folders
(``result/``, ``results/``, ``outputs/``: they hold scores and logs, not the implementation), binaries (a NUL byte
in the first 8 KiB), files over the size cap, and paths matching the user's exclude globs. Order is sorted, so two
runs over the same tree see the same files in the same order.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path

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
_SUFFIXES = {".py": PYTHON, ".ipynb": NOTEBOOK, ".yaml": CONFIG, ".yml": CONFIG, ".json": CONFIG, ".toml": CONFIG}
DEFAULT_MAX_BYTES = 1_000_000  # larger files are data or generated code, not a reproduction's source


_TEST_DIRS = frozenset({"test", "tests", "testing"})


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
    """A file passed over, with the reason (``"binary"``, ``"over the size cap (N bytes)"``)."""

    relative: str
    reason: str


def walk(root: Path, max_bytes: int = DEFAULT_MAX_BYTES, exclude: tuple[str, ...] = ()) -> tuple[list[SourceFile], list[Skipped]]:
    """List the readable files below ``root`` and the ones skipped for size or content.

    ``exclude`` holds glob patterns matched against the relative POSIX path (``"tests/*"``; ``*`` also crosses
    ``/``) or equal to one of its components (``"sam2"``). A folder is a virtual environment, and skipped, also when
    it holds a ``pyvenv.cfg``. Links are never followed; named pipes and unreadable files and folders are reported
    as skipped. Raises ``NotADirectoryError`` when ``root`` is not a folder.
    """
    if not root.is_dir():
        raise NotADirectoryError(str(root))
    files: list[SourceFile] = []
    skipped: list[Skipped] = []

    def unreadable(error: OSError) -> None:
        where = Path(error.filename).relative_to(root).as_posix() if error.filename else "."
        skipped.append(Skipped(where + "/", f"folder not read: {error.strerror or error}"))

    for current, dirs, names in os.walk(root, onerror=unreadable):
        here = Path(current)
        kept = []
        for folder in sorted(dirs):
            relative = (here / folder).relative_to(root).as_posix()
            if _excluded(relative, exclude) or (here / folder).is_symlink():
                continue
            if folder in SKIP_DIRS or _is_venv(here / folder):
                if folder in REPORTED_SKIPS:
                    skipped.append(Skipped(relative + "/", "run outputs or build products, not the implementation"))
                continue
            kept.append(folder)
        dirs[:] = kept
        for name in sorted(names):
            kind = _SUFFIXES.get(Path(name).suffix.lower())
            if kind is None:
                continue
            path = here / name
            relative = path.relative_to(root).as_posix()
            if _excluded(relative, exclude):
                continue
            reason = _unfit(path, max_bytes)
            if reason == "":
                continue  # a link: never followed
            if reason:
                skipped.append(Skipped(relative, reason))
                continue
            files.append(SourceFile(path, relative, kind))
    return files, skipped


def _excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    """A glob matches the relative path or any one of its components (``sam2`` excludes the folder sam2)."""
    relative = relative.removeprefix("./")
    parts = relative.split("/")
    return any(fnmatch.fnmatch(relative, p.removeprefix("./")) or p in parts for p in patterns)


def _is_venv(folder: Path) -> bool:
    try:
        return (folder / "pyvenv.cfg").exists()
    except OSError:
        return False


def _unfit(path: Path, max_bytes: int) -> str | None:
    """Why a file is not read: ``""`` for a link (skipped silently), a reason, or ``None`` when it is fit."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return ""
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"  # a named pipe would block the reader
        if info.st_size > max_bytes:
            return f"over the size cap ({info.st_size} bytes > {max_bytes})"
        with path.open("rb") as handle:
            if b"\0" in handle.read(8192):
                return "binary"
    except OSError as error:
        return f"not read: {error.strerror or error}"
    return None
