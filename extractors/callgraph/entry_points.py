"""Where execution starts in a repository: ``if __name__ == "__main__":`` blocks, module-level ``main()``
functions, console scripts (``[project.scripts]``, ``[tool.poetry.scripts]``, setup.py/setup.cfg
``console_scripts``), shell scripts (``*.sh``, and the recipes of a ``Makefile`` or ``justfile``) running
``python x.py`` / ``python -m pkg.mod`` (also through torchrun, accelerate, deepspeed, ``uv run``, ``poetry run``),
every notebook, and every *script*: a module no other repository module imports.
Test files and ``setup.py`` are no entry points; ``test.py`` is kept (in ML repositories it is usually the
evaluation script). A test file's ``__main__`` block is a ``test_main`` entry point: a check run by hand
(``python scripts/test_model.py``) may run what it calls, but it is no experiment: what only it reaches is ``maybe``,
and it alone does not make the repository a program whose other code is dead (``CallGraph.runnable``)."""

from __future__ import annotations

import configparser
import os
import re
import tomllib
from pathlib import Path

from extractors.callgraph.model import IMPORT, RUN, SHELL, TEST_MAIN, CallSite, EntryPoint, module_name, source_order
from extractors.callgraph.resolve import Resolver
from extractors.launchers import RUNNERS
from extractors.walk import SHELL as SHELL_FILE
from extractors.walk import SKIP_DIRS, file_kind, files_below, is_test_path

_SHELL_PY = re.compile(r"(?:^|[\s;&|(])" + RUNNERS + r"\b(?P<rest>[^\n;&|]*)")


def entry_points(r: Resolver) -> list[EntryPoint]:
    """The entry points of the repository ``r`` resolves (its modules scanned, imports and hooks linked), sorted by
    file, line and node, one per node. Adds as it goes: the ``run`` sites and edges from each notebook to its cells,
    and a ``shell`` node per shell script that runs repository Python (``_shell_scripts``). Reads ``setup.cfg`` and
    ``*.sh`` files below ``r.index.root`` (links and files over 200 kB are passed over); never raises on their
    content."""
    g = r.cg.graph
    entries: dict[str, EntryPoint] = {}

    def add(node: str, kind: str, file: str, line: int) -> None:
        if node in g and node not in entries:
            entries[node] = EntryPoint(node, kind, file, line)

    imported = {t for s, t, d in g.edges(data=True) if d["kind"] == IMPORT and _may_enter(g.nodes[s]["file"])}
    for name, scan in sorted(r.scans.items()):
        if scan.file.endswith(".ipynb"):
            cells = sorted((k for k in r.keys_of[name] if "#" in k), key=source_order)
            for key in cells:
                cell = f"{name}#{key.split('#')[1]}"
                r.cg._sites.setdefault(name, []).append(CallSite.at(key, 1, name, cell, cell, RUN))
                r.edge(name, cell, RUN, key, 1)
        if not _may_enter(scan.file):
            if scan.main_line is not None and is_test_path(scan.file) and not _packaging(scan.file):
                add(f"{name}.__main__", TEST_MAIN, scan.file, scan.main_line)  # a check run by hand
            continue
        if scan.main_line is not None:
            add(f"{name}.__main__", "main_block", scan.file, scan.main_line)
        main = f"{name}.main"
        if main in r.cg.functions:
            add(main, "main_function", r.cg.functions[main].file, r.cg.functions[main].line)
        if scan.file.endswith(".ipynb"):
            add(name, "notebook", scan.file, 1)
        elif name not in imported:
            add(name, "script", scan.file, 1)
    for node, file, line in _console_scripts(r):
        add(node, "console_script", file, line)
    for node, file, line in _shell_scripts(r):
        add(node, "shell", file, line)
    return sorted(entries.values(), key=lambda e: (e.file, e.line, e.node))


def _console_scripts(r: Resolver) -> list[tuple[str, str, int]]:
    """(node, file, line) of each ``name = pkg.mod:func`` console script the repository declares."""
    found: list[tuple[str, str, int]] = []  # (module:function spec, file, line)
    toml_lines = r.index.lines.get("pyproject.toml")
    if toml_lines:
        try:
            data = tomllib.loads("\n".join(toml_lines))
        except tomllib.TOMLDecodeError:
            data = {}
        project, tool = data.get("project", {}), data.get("tool", {})
        tables = [project.get("scripts", {}) if isinstance(project, dict) else {},
                  tool.get("poetry", {}).get("scripts", {}) if isinstance(tool.get("poetry"), dict) else {}]
        for table in tables:
            for script, spec in (table.items() if isinstance(table, dict) else ()):
                if isinstance(spec, str):
                    found.append((spec, "pyproject.toml", _line_of(toml_lines, str(script))))
    for number, text in enumerate(r.index.lines.get("setup.py", []), 1):
        for literal in re.findall(r"['\"]([\w.-]+\s*=\s*[\w.]+\s*:\s*[\w.]+)['\"]", text):
            found.append((literal.split("=", 1)[1], "setup.py", number))
    cfg = Path(r.index.root) / "setup.cfg"
    if cfg.is_file() and not cfg.is_symlink() and cfg.stat().st_size < 200_000:
        text = cfg.read_text(encoding="utf-8", errors="replace")
        parser = configparser.ConfigParser()
        try:
            parser.read_string(text)
            value = parser.get("options.entry_points", "console_scripts", fallback="")
        except configparser.Error:
            value = ""
        for spec in value.splitlines():
            if "=" in spec:
                found.append((spec.split("=", 1)[1], "setup.cfg", _line_of(text.splitlines(), spec.strip())))
    out: list[tuple[str, str, int]] = []
    for spec, file, line in found:
        module, _, func = spec.strip().partition(":")
        target = r.find_module(module.strip(), "")
        if target is not None:
            node = f"{target}.{func.strip()}"
            out.append((node if node in r.cg.graph else target, file, line))
    return out


def _shell_scripts(r: Resolver) -> list[tuple[str, str, int]]:
    """Add a ``shell`` node per ``*.sh`` file running repository Python, with a ``run`` site per command in
    line order; returns (node, file, line) of those that run something."""
    root = Path(r.index.root)
    out: list[tuple[str, str, int]] = []
    for full in files_below(root, lambda _, folder: folder in SKIP_DIRS or folder.startswith(".")):
        if file_kind(os.path.basename(full)) != SHELL_FILE:
            continue
        path = Path(full)
        relative = path.relative_to(root).as_posix()
        try:
            if path.is_symlink() or path.stat().st_size > 200_000:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        node = f"sh:{relative}"
        runs: list[tuple[str, int]] = []  # (module run, line)
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for match in _SHELL_PY.finditer(line):
                module = _shell_target(r, match.group("rest"), relative)
                if module is not None:
                    runs.append((module, number))
        if runs:
            r.cg.graph.add_node(node, kind=SHELL, file=relative, line=1, end_line=max(1, text.count("\n") + 1))
            r.cg._sites[node] = [CallSite.at(relative, number, node, module, module, RUN) for module, number in runs]
            for module, number in runs:
                r.edge(node, module, RUN, relative, number)
            out.append((node, relative, 1))
    return out


def _shell_target(r: Resolver, rest: str, script: str) -> str | None:
    """The module a shell command runs: ``-m pkg.mod`` or the first ``*.py`` argument, relative to the
    script's folder or the repository root (scripts are usually run from the root)."""
    words = rest.split()
    for position, word in enumerate(words):
        if word == "-m" and position + 1 < len(words):
            return r.find_module(words[position + 1], "")
        word = word.strip("'\"")
        if word.endswith(".py"):
            folder = script.rsplit("/", 1)[0] if "/" in script else ""
            for base in ("", folder):
                path = os.path.normpath(os.path.join(base, word)).replace(os.sep, "/")
                name = module_name(path)
                if name in r.scans and r.module_file[name] == path:
                    return name
            return None
    return None


def _may_enter(file: str) -> bool:
    """Whether a file may hold an entry point: not ``setup.py``, ``conftest.py``, a package ``__init__.py``
    (``_packaging``) or test code (``extractors.walk.is_test_path``), except ``test.py``. (A test file's
    ``__main__`` block is the ``test_main`` kind of its own.)"""
    return not _packaging(file) and (file.rsplit("/", 1)[-1] == "test.py" or not is_test_path(file))


def _packaging(file: str) -> bool:
    """Whether ``file`` packages or configures code rather than running it: ``setup.py``, ``conftest.py``, a package
    ``__init__.py``."""
    return file.rsplit("/", 1)[-1] in ("setup.py", "conftest.py", "__init__.py")


def _line_of(lines: list[str], needle: str) -> int:
    """The 1-based number of the first line holding ``needle``; 1 when none does."""
    for number, text in enumerate(lines, 1):
        if needle in text:
            return number
    return 1
