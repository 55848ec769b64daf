"""Which of a repository's separate projects is the paper's.

Some repositories hold several independent projects, of which the paper's code is one (a copy of a collection of
examples, with the paper's code in one of its folders). Values, calls and names of the other projects must not
decide a verdict. A careful reader tells them apart the way this module does:

1. A **project folder** is a folder below the root holding its own project file directly: a README, a
   ``requirements*.txt``, ``setup.py``, ``setup.cfg``, ``pyproject.toml`` or ``environment.yml``. The outermost
   ones count (a project's own sub-folders belong to it). In a folder holding a project folder (other than the
   root), a sibling holding launchers (``.sh``) of its own is a separate project too.
2. The **paper's projects** are the project folders the root README names: a path in one of its code blocks or
   inline code, or any path with a ``/`` in its text (``cd MA/applications/Chat``; leading components that are not
   in the repository, such as the repository's own name, are dropped), or a GitHub link into the repository. When
   it names none but names code of the root's own (a path with a ``/`` outside every project folder) and the root
   holds a project file besides the README (``setup.py``, ``requirements.txt``...), the root's own code is the
   paper's project and every project folder is another's (a fork of a framework with its tools in sub-folders).
3. Every other project folder is **another project's code**, unless the considered code refers to it: a Python
   import whose dotted name could resolve only into that folder (whatever folder is on the import path), or a path
   (in code, configuration or a launcher, from the root or the file's folder) that exists inside it.

The choice is sure only when the README names at least one project folder or the root's own code; otherwise (no README,
or it names no
project folder) every folder is considered, as before. Files outside every project folder (the root's own code, a
named ``evaluation/`` folder) are always considered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

_README = re.compile(r"readme(\.(md|rst|txt|markdown))?", re.IGNORECASE)
_PROJECT_FILES = re.compile(r"(readme(\.\w+)?|requirements[\w.-]*\.txt|setup\.py|setup\.cfg|pyproject\.toml"
                            r"|environment\.ya?ml)", re.IGNORECASE)
_FENCE = re.compile(r"```.*?```|~~~.*?~~~", re.DOTALL)
_INLINE = re.compile(r"`([^`\n]+)`")
_GITHUB = re.compile(r"github\.com/[\w.-]+/[\w.-]+/(?:tree|blob)/[\w.-]+/([\w./-]+)")
_TOKEN = re.compile(r"[\w.][\w.+-]*(?:/[\w.+-]+)*/?")
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)
_PATH_TEXT = re.compile(r"[\w.+-]+(?:/[\w.+-]+)+")
_READ_LIMIT = 200_000  # a README or code file's first bytes: what a reader sees of the commands and references


def other_projects(root: Path, relatives: Sequence[str]) -> dict[str, str]:
    """The folders of other projects than the paper's, as ``{folder relative path: reason}`` (empty when the
    repository is one project or the choice is unsure).

    ``root`` is the repository folder; ``relatives`` the POSIX paths (relative to ``root``) of the files the walk
    would read. Procedure and sources of the rule: the module docstring. Reads the root README and, only when
    some folder would be left out, the considered files' first bytes; never raises on unreadable files."""
    folders = _project_folders(root, relatives)
    if len(folders) < 2:
        return {}
    named = _named_paths(root)
    chosen = {f for f in folders if any(_within(path, f) or _within(f, path) for path in named)}
    if not chosen and _root_project(root, named, folders):
        chosen = {"."}
    if not chosen:
        return {}
    others = {f for f in folders if f not in chosen and any(_within(r, f) for r in relatives)}
    if not others:
        return {}
    considered = [r for r in relatives if not any(_within(r, f) for f in others)]
    used = _referenced(root, considered, others, relatives)
    named_list = ", ".join(sorted(chosen)) if chosen != {"."} else "the root's own code"
    return {f: f"another project's code: the README's commands and links point to {named_list}; "
               f"nothing there imports or runs {f}/ (--exclude it to settle absences without it, --all-projects "
               f"to read it)"
            for f in sorted(others - used)}


def _root_project(root: Path, named: set[str], folders: set[str]) -> bool:
    """True when the root is a project of its own (a project file beside the README) and the README names code
    of its own: a path outside every project folder, below a folder of the root."""
    try:
        own = any(p.is_file() and _PROJECT_FILES.fullmatch(p.name) and not _README.fullmatch(p.name)
                  for p in root.iterdir())
    except OSError:
        return False
    return own and any("/" in path and not any(_within(path, f) for f in folders) for path in named)


def _project_folders(root: Path, relatives: Sequence[str]) -> set[str]:
    """The outermost folders below ``root`` holding a project file (step 1), plus the launcher-holding siblings of
    a project folder inside a non-root folder."""
    dirs = sorted({r.rsplit("/", 1)[0] for r in relatives if "/" in r} | _ancestors(relatives))
    marked: set[str] = set()
    for folder in dirs:
        if any(_within(folder, m) for m in marked):
            continue
        try:
            names = [p.name for p in (root / folder).iterdir() if p.is_file()]
        except OSError:
            continue
        if any(_PROJECT_FILES.fullmatch(name) for name in names):
            marked.add(folder)
    launchers = {r for r in relatives if r.endswith(".sh")}
    for project in list(marked):
        if "/" not in project:
            continue
        parent = project.rsplit("/", 1)[0]
        for sibling in {d for d in dirs if d.count("/") == project.count("/") and d.startswith(parent + "/")}:
            if sibling not in marked and any(_within(s, sibling) for s in launchers):
                marked.add(sibling)
    return marked


def _ancestors(relatives: Iterable[str]) -> set[str]:
    """Every folder (relative, no trailing ``/``) holding one of ``relatives`` at any depth, the root excluded."""
    found: set[str] = set()
    for relative in relatives:
        parts = relative.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            found.add("/".join(parts[:depth]))
    return found


def _named_paths(root: Path) -> set[str]:
    """The existing paths (relative, no trailing ``/``) the root README names (step 2)."""
    readme = next((p for p in sorted(root.iterdir()) if p.is_file() and _README.fullmatch(p.name)), None)
    if readme is None:
        return set()
    try:
        text = readme.read_text(encoding="utf-8", errors="replace")[:_READ_LIMIT]
    except OSError:
        return set()
    code = " ".join(_FENCE.findall(text) + _INLINE.findall(text))
    candidates = set(_GITHUB.findall(text)) | set(_TOKEN.findall(code))
    candidates |= {t for t in _TOKEN.findall(_FENCE.sub(" ", text)) if "/" in t.strip("/") and "://" not in t}
    named: set[str] = set()
    for token in candidates:
        parts = [p for p in token.strip().strip("/").split("/") if p not in ("", ".")]
        # drop leading components outside the repository (the repository's own name, a variable's value)
        for start in range(min(len(parts), 3)):
            rest = parts[start:]
            if rest and ".." not in rest and (root / "/".join(rest)).exists():
                named.add("/".join(rest))
                break
    return named


def _referenced(root: Path, considered: Sequence[str], others: set[str], relatives: Sequence[str]) -> set[str]:
    """The folders of ``others`` that the ``considered`` files import (a dotted name that could resolve only into
    that folder) or name by an existing path (step 3)."""
    provided_here = _module_names(considered)
    provides = {f: _module_names([r for r in relatives if _within(r, f)]) - provided_here for f in others}
    used: set[str] = set()
    for relative in considered:
        try:
            text = (root / relative).read_text(encoding="utf-8", errors="replace")[:_READ_LIMIT]
        except OSError:
            continue
        if relative.endswith(".py"):
            imported = {m.group(1) or m.group(2) for m in _IMPORT.finditer(text)}
            used |= {f for f, names in provides.items() if imported & names}
        base = (root / relative).parent
        for token in set(_PATH_TEXT.findall(text)):
            for anchor in (root, base):
                target = anchor / token
                try:
                    if not target.exists():
                        continue
                    inside = target.resolve().relative_to(root.resolve()).as_posix()
                except (OSError, ValueError):
                    continue
                used |= {f for f in others if _within(inside, f)}
        if used == others:
            break
    return used


def _module_names(relatives: Iterable[str]) -> set[str]:
    """Every dotted name an import could use to reach one of the Python files ``relatives`` (or a folder holding
    them), whatever folder is on the import path: ``a/b/c.py`` gives ``a.b.c``, ``b.c``, ``c``, ``a.b``, ``b``,
    ``a``."""
    names: set[str] = set()
    for relative in relatives:
        if not relative.endswith(".py"):
            continue
        parts = relative[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for end in range(1, len(parts) + 1):
            for start in range(end):
                names.add(".".join(parts[start:end]))
    return names


def _within(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or lies below it (both relative POSIX paths)."""
    return path == folder or path.startswith(folder + "/")
