"""Which files of a repository the extractors read.

Skipped: version-control and tool folders, virtual environments, SA-Bench's and the usual run-output folders
(``result/``, ``results/``, ``outputs/``: they hold scores and logs, not the implementation), binaries (a NUL byte
in the first 8 KiB), files over the size cap, and paths matching the user's exclude globs. Order is sorted, so two
runs over the same tree see the same files in the same order.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

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

    ``exclude`` holds glob patterns matched against the relative POSIX path (``"tests/*"``). A folder is a virtual
    environment, and skipped, also when it holds a ``pyvenv.cfg``. Raises ``NotADirectoryError`` when ``root`` is
    not a folder.
    """
    if not root.is_dir():
        raise NotADirectoryError(str(root))
    files: list[SourceFile] = []
    skipped: list[Skipped] = []
    for current, dirs, names in os.walk(root):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not (here / d / "pyvenv.cfg").exists()
                         and not (here / d).is_symlink())
        for name in sorted(names):
            kind = _SUFFIXES.get(Path(name).suffix.lower())
            if kind is None:
                continue
            path = here / name
            relative = path.relative_to(root).as_posix()
            if any(fnmatch.fnmatch(relative, pattern) for pattern in exclude) or path.is_symlink():
                continue
            size = path.stat().st_size
            if size > max_bytes:
                skipped.append(Skipped(relative, f"over the size cap ({size} bytes > {max_bytes})"))
                continue
            with path.open("rb") as handle:
                if b"\0" in handle.read(8192):
                    skipped.append(Skipped(relative, "binary"))
                    continue
            files.append(SourceFile(path, relative, kind))
    return files, skipped
