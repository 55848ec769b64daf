"""D3: live code that names an element but whose implementation is not there.

Two kinds, each found in the blind audit of settled development verdicts (benchmarks/truth/CONVENTIONS.md,
"Protocol": a stub names an element without running it):

- **Stub arms.** An ``if``/``elif`` arm selected by the element's string whose body only reports that it is not
  implemented: ``elif reward_type == "compiler":`` followed by ``logger.warning("... not implemented ...")`` and
  ``final_rewards.fill_(0.0)``. The arm runs, but it computes nothing (``stub_arms``).
- **Calls into missing modules.** A call whose name is imported from a module of the repository's own layout that the
  repository does not hold: ``from data.dataset_generation import generate_dataset`` where no ``data`` package is
  there (``missing_module``). What the call would do cannot be read, so it shows nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from extractors.callgraph.model import CallGraph, Mention
from extractors.facts import RepositoryIndex
from extractors.stubs.parse import NOT_IMPLEMENTED, REPORT_MARKER, is_report_call
from rules import roles
from rules.d3_loads import dotted_name, python_trees

_FOLDER_WORDS = roles.words("project_folder_words")


def stub_arms(index: RepositoryIndex) -> dict[tuple[str, int], int]:
    """Analysis provider: ``(source key, line)`` of each ``if``/``elif`` test (the test's first line) whose arm is a
    stub -> the arm's last line. A stub arm's statements are only ``pass``, ``...``, strings, print/log/warn calls
    (``extractors.stubs.parse``, ``is_report_call``), ``raise NotImplementedError`` and constant fills (``x = 0.0``,
    ``x.fill_(0.0)``, ``x.zero_()``), and at least one is such a raise or a report whose message says not
    implemented or placeholder (``REPORT_MARKER``, the STB004 marker)."""
    found: dict[tuple[str, int], int] = {}
    for key, tree in index.analysis(python_trees).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and _stub_body(node.body):
                found[(key, node.test.lineno)] = node.body[-1].end_lineno or node.body[-1].lineno
    return found


def _stub_body(body: list[ast.stmt]) -> bool:
    """Whether ``body`` holds only the statements ``stub_arms`` allows, one of them saying it is not implemented."""
    said = False
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Raise):
            raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if not (isinstance(raised, ast.Name) and raised.id in NOT_IMPLEMENTED):
                return False
            said = True
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a string or ``...``
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and is_report_call(
                dotted_name(stmt.value.func)):
            said = said or any(isinstance(part, ast.Constant) and isinstance(part.value, str)
                               and REPORT_MARKER.search(part.value) is not None
                               for arg in stmt.value.args for part in ast.walk(arg))
        elif not _constant_fill(stmt):
            return False
    return said


def _constant_fill(stmt: ast.stmt) -> bool:
    """``x = 0.0``, ``x[i] = None``, ``x.fill_(0.0)``, ``x.zero_()``: a statement setting a value to a constant."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return isinstance(stmt.value, ast.Constant)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("fill_", "zero_"):
        return all(isinstance(arg, ast.Constant) for arg in stmt.value.args)
    return False


def in_stub_arm(mention: Mention, index: RepositoryIndex) -> bool:
    """Whether ``mention``, a string an ``if`` statement selects its arm by (context ``select``), selects a stub arm
    (``stub_arms``)."""
    return mention.context == "select" and (mention.where, mention.line) in index.analysis(stub_arms)


def inside_stub_arm(mention: Mention, arms: list[Mention], index: RepositoryIndex) -> bool:
    """Whether ``mention`` lies in the body of the stub arm one of ``arms`` (select mentions, ``in_stub_arm``)
    selects: ``raise NotImplementedError("exact reward")`` names the element it leaves out."""
    spans = index.analysis(stub_arms)
    return any(arm.where == mention.where and arm.line < mention.line <= spans[(arm.where, arm.line)]
               for arm in arms)


def missing_module(mention: Mention, graph: CallGraph, index: RepositoryIndex) -> str | None:
    """The module a call named by ``mention`` (context ``call``) imports its callee from when that module belongs to
    the repository's own layout but the repository does not hold it, else ``None``. The call graph left the call
    outside the repository (``external`` or ``unresolved``); the import is ``from M import f`` or ``import M`` in the
    mention's file, and ``M`` is no file or folder on disk below the root or the importing file's folders, read or not
    (a file excluded or over the size cap is there). ``M`` belongs to the layout when its first name part is that of
    a repository file or folder (``models.missing`` beside ``models/``) or a name projects give their own code
    (``rules/roles.yaml``, ``project_folder_words``: ``data``, ``utils``; no library the development repositories
    import uses one)."""
    if mention.context != "call" or not any(
            site.line == mention.line and site.kind in ("external", "unresolved")
            for site in graph.callees_in_order(mention.scope)):
        return None
    module = _imported_from(mention.text.split(".")[0], index.analysis(python_trees).get(mention.where))
    if module is None or module.split(".")[0] not in index.analysis(_layout_names):
        return None
    folders = mention.file.split("/")[:-1]
    paths = {"/".join([*folders[:depth], *module.split(".")]) for depth in range(len(folders) + 1)}
    if any(_on_disk(index.root, path) for path in paths):
        return None  # read, or there but not read (excluded, over the size cap): not missing
    return module


def _imported_from(name: str, tree: ast.Module | None) -> str | None:
    """The absolute module a top-level ``from M import name`` or ``import M``/``import M as name`` of ``tree`` binds
    ``name`` from, else ``None`` (relative imports are left alone)."""
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                any((alias.asname or alias.name) == name for alias in node.names):
            return node.module
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    return alias.name
    return None


def _on_disk(root: str, path: str) -> bool:
    """Whether ``path`` (a module path without ``.py``) is a file ``path.py`` or a folder below ``root``."""
    place = Path(root, path)
    return place.with_name(place.name + ".py").exists() or place.is_dir()


def _layout_names(index: RepositoryIndex) -> frozenset[str]:
    """Analysis provider: ``project_folder_words`` and the first path part of each Python file of the repository
    (``models`` for ``models/fno.py``, ``train`` for ``train.py``)."""
    return _FOLDER_WORDS | {file.split("/")[0].removesuffix(".py") for file in index.files if file.endswith(".py")}
