"""D3: the constant values loader calls receive, resolved through module-level names and tables and through a
function's string locals.

A dataset is loaded where a live loading call receives its name or path (benchmarks/truth/CONVENTIONS.md,
"Protocol"). Code often hands the loader a name standing for that string rather than the string itself:
``load_dataset(DATASET_PATHS[TASK_HH_RLHF])`` with ``DATASET_PATHS = {TASK_HH_RLHF: "Anthropic/hh-rlhf"}`` at module
level, ``load_dataset(HH_PATH)`` with ``HH_PATH = "Anthropic/hh-rlhf"``, or ``load_dataset(name)`` with ``name =
"Anthropic/hh-rlhf"`` a line above. The key's own name (``TASK_HH_RLHF``)
or a class named after the dataset (``HHRLHFDataset``) says nothing about what is loaded once the table maps the key
to another dataset: the resolved value decides.

``loader_values`` (an analysis provider) reads each Python file once with ``ast`` and records each loader call
(``rules/roles.yaml``, ``loader_words``) with the names its argument resolution went through and the strings it
resolved. A name resolves when it is upper case (a constant) and the whole repository binds it at module level
once, to a string or to a table of strings keyed by strings or by such names; anything else is left unresolved,
and a body making a loader call with nothing resolved may load anything, unless the call loads no data: its
dotted callee or first argument names a tokenizer, a model, a checkpoint or a configuration (``rules/roles.yaml``,
``non_data_words``: ``sp.Load(tokenizer_path)``), it opens a file for writing, or it only builds a path from
nothing resolved (``path_builders``: ``Path(output_dir)``).

A local of the function making the call that the function binds once, to a string, and takes from nowhere else (no
parameter, ``global``, loop or second assignment of it: ``name = "openwebtext"`` then ``load_dataset(name)``) is
recorded apart (``LoadedValue.local_values``): such a string shows what the call loads when it names a dataset, but
a local's path rarely does (``data_path = "./dataset"``), so it never shows that a body loads *other* data and is
left out of ``at`` and ``within``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from extractors.facts import RepositoryIndex
from extractors.walk import is_test_path
from rules import roles
from rules.names import words

_LOADER_WORDS = roles.words("loader_words")
_NON_DATA_WORDS = roles.words("non_data_words")
_PATH_BUILDERS = roles.words("path_builders")
_WRITE_MODES = ("w", "a", "x")  # open(f, "w"), np.memmap(f, mode="w+"): a file written, not read


@dataclass(frozen=True)
class LoadedValue:
    """One loader call and the strings its arguments resolve to: ``file`` (relative POSIX path), ``line``/``end_line``
    the call's lines (1-based, inclusive), ``names`` the module-level identifiers the resolution read
    (``("DATASET_PATHS", "TASK_HH_RLHF")``), ``values`` the strings the loader receives (``("Anthropic/hh-rlhf",)``;
    empty when no argument resolves); ``data`` false when the call loads a tokenizer, a model, a checkpoint or a
    configuration (module docstring); ``local_values`` the strings arguments receive through the calling
    function's string locals and ``local_lines`` the lines binding those locals (module docstring: kept apart)."""

    file: str
    line: int
    end_line: int
    names: frozenset[str]
    values: tuple[str, ...]
    data: bool = True
    local_values: tuple[str, ...] = ()
    local_lines: frozenset[int] = frozenset()


@dataclass
class LoaderValues:
    """The resolved loader arguments of a repository, by file (``loader_values``)."""

    by_file: dict[str, list[LoadedValue]] = field(default_factory=dict)

    def at(self, file: str, line: int, name: str) -> tuple[str, ...] | None:
        """The strings a loader call spanning ``line`` of ``file`` receives through ``name`` (its last dotted part),
        or ``None`` when no resolved argument there reads ``name``."""
        last = name.rsplit(".", 1)[-1]
        found = [v for lv in self.by_file.get(file, ()) if lv.line <= line <= lv.end_line
                 and last in lv.names for v in lv.values]
        return tuple(found) if found else None

    def through(self, name: str) -> tuple[str, ...] | None:
        """The strings of the loader arguments that resolve through the module-level ``name`` (its last dotted
        part), or ``None`` when none does."""
        found = [v for lv in self.calls_through(name) for v in lv.values]
        return tuple(found) if found else None

    def calls_through(self, name: str) -> list[LoadedValue]:
        """The loader calls whose arguments resolve through the module-level ``name`` (its last dotted part)."""
        last = name.rsplit(".", 1)[-1]
        return [lv for calls in self.by_file.values() for lv in calls if last in lv.names]

    def bound_at(self, file: str, line: int) -> list[LoadedValue]:
        """The loader calls of ``file`` whose arguments resolve through a function's local bound on ``line``."""
        return [lv for lv in self.by_file.get(file, ()) if line in lv.local_lines]

    def within(self, file: str, line: int, end_line: int) -> tuple[str, ...] | None:
        """Every string the data-loading calls of ``file`` between ``line`` and ``end_line`` (the body of a class or
        function) receive, in line order, when each of those calls has an argument resolved; ``None`` when there
        is no such call there or one of them has none (it may load anything). A call loading no data (a tokenizer,
        a checkpoint: ``LoadedValue.data``) says nothing about the data the body loads."""
        calls = [lv for lv in self.by_file.get(file, ())
                 if line <= lv.line and lv.end_line <= end_line and lv.data]
        if not calls or any(not lv.values for lv in calls):
            return None
        return tuple(v for lv in calls for v in lv.values)


def python_trees(index: RepositoryIndex) -> dict[str, ast.Module]:
    """Analysis provider: source key -> ``ast`` module of each Python file of ``index`` (test files left out) that was
    read in full (``RepositoryIndex.unread``: refused as pathological, read only with tree-sitter) and parses; never
    raises on a source's content."""
    trees: dict[str, ast.Module] = {}
    for key, lines in index.lines.items():
        if not key.endswith(".py") or is_test_path(key) or key in index.unread:
            continue
        try:
            trees[key] = ast.parse("\n".join(lines))
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # what compile() raises on bad input
            continue
    return trees


def loader_values(index: RepositoryIndex) -> LoaderValues:
    """Analysis provider: the loader calls of ``index``'s Python files (test files left out), each with the strings
    its arguments resolve to through module-level constants (module docstring). Files that were not read in full
    (``RepositoryIndex.unread``: refused as pathological, read only with tree-sitter) and files that do not parse
    are skipped; never raises on a source's content."""
    trees = index.analysis(python_trees)
    strings, tables = _module_constants(trees.values())
    found = LoaderValues()
    for key, tree in trees.items():
        for node, local in _calls_with_locals(tree):
            if not set(words(_callee(node.func))) & _LOADER_WORDS:
                continue
            names: frozenset[str] = frozenset()
            values: list[str] = []
            local_lines: set[int] = set()
            local_values: list[str] = []
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Name) and arg.id in local:  # a local shadows a module constant's name
                    local_lines.add(local[arg.id][0])
                    local_values.append(local[arg.id][1])
                    continue
                resolved = _resolve(arg, strings, tables)
                if resolved is not None:
                    names |= resolved[0]
                    values.append(resolved[1])
            # a call with nothing resolved is kept too: a body making it may load anything
            # a path built from nothing resolved (Path(output_dir)) loads nothing and says nothing of what is loaded
            data = _loads_data(node) and (bool(values) or _callee(node.func).lower() not in _PATH_BUILDERS)
            found.by_file.setdefault(key, []).append(
                LoadedValue(key, node.lineno, node.end_lineno or node.lineno, names, tuple(values), data,
                            tuple(local_values), frozenset(local_lines)))
    return found


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _calls_with_locals(tree: ast.Module) -> Iterator[tuple[ast.Call, dict[str, tuple[int, str]]]]:
    """Each call of ``tree`` with the string locals of the innermost function whose body makes it
    (``_string_locals``; none at module level, in a class body or a lambda, or in a function's decorators and
    defaults, which run where the function is defined)."""
    pending: list[tuple[ast.AST, dict[str, tuple[int, str]]]] = [(tree, {})]
    while pending:
        node, local = pending.pop()
        if isinstance(node, ast.Call):
            yield node, local
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = _string_locals(node)
            pending.extend((child, inner) for child in node.body)
            pending.extend((child, local) for child in (*node.decorator_list, node.args))
            continue
        scoped = {} if isinstance(node, (ast.Lambda, ast.ClassDef)) else local
        pending.extend((child, scoped) for child in ast.iter_child_nodes(node))


def _string_locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[int, str]]:
    """The locals ``function``'s own body (nested functions, lambdas and classes left out) binds exactly once, by a
    plain assignment of a string literal (``name = "openwebtext"``), and in no other way: not a parameter, not
    declared ``global`` or ``nonlocal``, not a loop, ``with`` or comprehension target. Name -> (line, string)."""
    arguments = function.args
    taken = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    taken |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    stores: dict[str, int] = {}
    strings: dict[str, tuple[int, str]] = {}
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            taken.update(node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            strings[node.targets[0].id] = (node.lineno, node.value.value)
        pending.extend(ast.iter_child_nodes(node))
    return {name: bound for name, bound in strings.items() if stores.get(name) == 1 and name not in taken}


def _loads_data(call: ast.Call) -> bool:
    """Whether a loader call may load data: it is not opened for writing (a ``mode`` keyword or ``open``'s second
    argument starting with ``w``, ``a`` or ``x``), and neither its dotted callee (``AutoTokenizer.from_pretrained``)
    nor the last name part of its first argument (``sp.Load(tokenizer_path)``, ``torch.load(args.ckpt)``; not
    ``model_args`` of ``model_args.dataset_name``) holds a word of ``non_data_words``."""
    modes = [k.value for k in call.keywords if k.arg == "mode"]
    if _callee(call.func) == "open" and len(call.args) > 1:
        modes.append(call.args[1])
    if any(isinstance(m, ast.Constant) and isinstance(m.value, str) and m.value.startswith(_WRITE_MODES)
           for m in modes):
        return False
    parts = [dotted_name(call.func)]
    if call.args:
        first = call.args[0].value if isinstance(call.args[0], ast.Starred) else call.args[0]
        parts.append(dotted_name(first).rsplit(".", 1)[-1])
    return not any(set(words(part)) & _NON_DATA_WORDS for part in parts if part)


def dotted_name(func: ast.expr) -> str:
    """The dotted text of a name or attribute chain (``sp.Load``; a chain on a call's result keeps the part after
    it: ``Load`` of ``spm.SentencePieceProcessor().Load``), else empty."""
    out = []
    while isinstance(func, ast.Attribute):
        out.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        out.append(func.id)
    return ".".join(reversed(out))


def _callee(func: ast.expr) -> str:
    """The last name part of a called expression (``load_dataset`` for ``datasets.load_dataset``), else empty."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _module_constants(trees) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Module-level names bound, across all ``trees``, exactly once: to a string (first map) or to a dict display of
    strings keyed by strings or by such string names (second map). Only upper-case names count; names bound more
    than once are dropped."""
    bound: dict[str, list[ast.expr]] = {}
    for tree in trees:
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                bound.setdefault(stmt.targets[0].id, []).append(stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                bound.setdefault(stmt.target.id, []).append(stmt.value)
    # constants by convention (upper case): a lower-case name may be a function's local of the same spelling
    once = {name: values[0] for name, values in bound.items() if len(values) == 1 and name.isupper()}
    strings = {name: v.value for name, v in once.items() if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    tables: dict[str, dict[str, str]] = {}
    for name, value in once.items():
        if not isinstance(value, ast.Dict) or not value.keys:
            continue
        table: dict[str, str] = {}
        for k, v in zip(value.keys, value.values):
            key = _string(k, strings) if k is not None else None
            if key is None or not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
                break
            table[key] = v.value
        else:
            tables[name] = table
    return strings, tables


def _string(node: ast.expr, strings: dict[str, str]) -> str | None:
    """A string literal's value, or the string a module-level name is bound to, else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return strings.get(node.id) if isinstance(node, ast.Name) else None


def _resolve(arg: ast.expr, strings: dict[str, str],
             tables: dict[str, dict[str, str]]) -> tuple[frozenset[str], str] | None:
    """The names read and the string of a loader argument that is a string literal (``"wikitext"``: no name read),
    a module-level string name (``HH_PATH``) or a table subscript with a constant key
    (``DATASET_PATHS[TASK_HH_RLHF]``, ``PATHS["hh"]``); ``None`` otherwise."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return frozenset(), arg.value
    if isinstance(arg, ast.Name) and arg.id in strings:
        return frozenset({arg.id}), strings[arg.id]
    if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name) and arg.value.id in tables:
        key = _string(arg.slice, strings)
        table = tables[arg.value.id]
        if key is not None and key in table:
            names = {arg.value.id} | ({arg.slice.id} if isinstance(arg.slice, ast.Name) else set())
            return frozenset(names), table[key]
    return None
