"""Value facts from configuration files: YAML, JSON and TOML keys by dotted path, with line numbers.

YAML and JSON are read through PyYAML's safe composer (JSON is, for all practical files, YAML), which keeps each
node's line; mappings are then read as PyYAML's safe loader reads them: merge keys (``<<: *base``) bring in the
anchored keys unless the mapping sets them itself, and of a key given twice the last wins. A JSON file YAML rejects
is read with ``json`` and its keys are located by searching the text. TOML is read with ``tomllib``; each value is
located by its full dotted path (table headers, arrays of tables, dotted and quoted keys, inline tables). A numeric
string (``lr: 1e-4``, which YAML 1.1 loads as text) is a number; any other string stays a string.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable

import yaml

from extractors import facts as K
from extractors.facts import Fact, FileFacts, Warning_
from extractors.python_source import source_lines
from extractors.values import indexed_sequence
from sau.vocabulary import Value

_NUMBER = re.compile(r"^[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_MAX_NODES = 50_000  # a config with more nodes is data, not configuration


def extract_config(text: str, file: str) -> FileFacts:
    """Facts for every scalar (or list of scalars) under a key. Malformed files yield a warning with the line."""
    found = FileFacts()
    suffix = file.rsplit(".", 1)[-1].lower()
    try:
        if suffix == "toml":
            _from_plain(tomllib.loads(text), _toml_locator(text), file, found)
        else:
            _from_yaml(text, file, found, is_json=suffix == "json")
    except (yaml.YAMLError, tomllib.TOMLDecodeError, json.JSONDecodeError, ValueError, RecursionError) as error:
        found.warnings.append(Warning_(file, _error_line(error), f"config not read: {_describe(error)}"))
    return found


def scalar(text: str) -> Value:
    """A config scalar as a value: numeric text becomes a number, the rest stays text."""
    stripped = text.strip()
    if _NUMBER.match(stripped):
        number = float(stripped.replace("_", ""))
        return int(number) if number.is_integer() and not re.search(r"[.eE]", stripped) else number
    return stripped


def _from_yaml(text: str, file: str, found: FileFacts, is_json: bool) -> None:
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        if not is_json:
            raise
        _from_plain(json.loads(text), _key_search(text), file, found)
        return
    budget = [_MAX_NODES]
    loader = yaml.SafeLoader("")  # only its flatten_mapping: merge keys as the safe loader resolves them
    for document in documents:
        if document is not None:
            _resolve_merges(document, loader, set())
    for document in documents:
        if document is not None:
            _walk_node(document, "", file, found, budget)
    if budget[0] < 0:
        found.warnings.append(Warning_(file, None, f"more than {_MAX_NODES} nodes (data, or aliases expanding): "
                                                   "only the first were read"))


def _walk_node(node: yaml.Node, path: str, file: str, found: FileFacts, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            if isinstance(value_node, yaml.ScalarNode):
                _add(found, key, child, _yaml_scalar(value_node), file, value_node.start_mark.line + 1,
                     value_node.end_mark.line + 1)
            elif isinstance(value_node, yaml.SequenceNode) and all(
                    isinstance(item, yaml.ScalarNode) for item in value_node.value):
                items = tuple(_yaml_scalar(item) for item in value_node.value)
                _add(found, key, child, items, file, value_node.start_mark.line + 1, value_node.end_mark.line + 1)
            else:
                if isinstance(value_node, yaml.MappingNode):  # x0_factor: 8, x1_factor: 4 is the sequence (8, 4)
                    numbered = indexed_sequence([(str(k.value), _yaml_scalar(v)) for k, v in value_node.value
                                                 if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)])
                    if numbered is not None and len(numbered) == len(value_node.value):
                        _add(found, key, child, numbered, file, value_node.start_mark.line + 1,
                             value_node.value[-1][1].end_mark.line + 1)
                _walk_node(value_node, child, file, found, budget)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk_node(item, f"{path}.{index}" if path else str(index), file, found, budget)


def _resolve_merges(node: yaml.Node, loader: yaml.SafeLoader, seen: set[int]) -> None:
    """Rewrite every mapping below ``node`` as PyYAML's safe loader reads it: ``<<`` merge keys replaced by the keys
    they bring in (``SafeConstructor.flatten_mapping``: the mapping's own keys win, then the earlier merged
    mapping), and of duplicated keys only the last kept (the loader's later assignment wins). Aliased nodes are
    shared; each is rewritten once. Raises ``yaml.YAMLError`` on a merge of something that is not a mapping."""
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            loader.flatten_mapping(current)
            last: dict[object, int] = {}
            for position, (key, _) in enumerate(current.value):
                last[key.value if isinstance(key, yaml.ScalarNode) else id(key)] = position
            kept = set(last.values())  # once: a lookup in the dict's values per pair is quadratic
            current.value = [pair for position, pair in enumerate(current.value) if position in kept]
            stack.extend(value for _, value in current.value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _yaml_scalar(node: yaml.ScalarNode) -> Value:
    if node.tag.endswith(":bool"):
        return node.value.lower() in ("true", "yes", "on")
    if node.tag.endswith(":null"):
        return ""
    return scalar(node.value) if node.style is None else node.value


def _from_plain(data: object, locate: Callable[[tuple[str, ...]], int], file: str, found: FileFacts) -> None:
    """Facts from already-loaded data (TOML, or JSON that YAML rejected); ``locate(path parts)`` gives the line."""

    def visit(value: object, parts: tuple[str, ...]) -> None:
        path, key = ".".join(parts), parts[-1] if parts else ""
        if isinstance(value, dict):
            for child_key, child in value.items():
                visit(child, parts + (str(child_key),))
        elif isinstance(value, list) and value and all(isinstance(v, (int, float, str, bool)) for v in value):
            line = locate(parts)
            _add(found, key, path, tuple(_plain(v) for v in value), file, line, line)
        elif isinstance(value, list):
            for index, child in enumerate(value):
                visit(child, parts + (str(index),))
        elif isinstance(value, (int, float, str, bool)) and key:
            line = locate(parts)
            _add(found, key, path, _plain(value), file, line, line)

    visit(data, ())


def _key_search(text: str) -> Callable[[tuple[str, ...]], int]:
    """A locator by text search: the first line where the path's last key (or, for a list item, the nearest key
    above it) is followed by ``:`` or ``=``; line 1 when none is."""
    lines = source_lines(text)

    def locate(parts: tuple[str, ...]) -> int:
        keys = [part for part in parts if not part.isdigit()] or [""]
        pattern = re.compile(r'(^|[\s"\'{,])' + re.escape(keys[-1]) + r'["\']?\s*[:=]')
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                return number
        return 1
    return locate


_TOML_KEY_PART = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*')
_TOML_HEADER = re.compile(r'\s*(\[\[?)\s*(.*?)\s*\]\]?\s*(?:#.*)?$')


def _toml_key(text: str) -> tuple[tuple[str, ...], int] | None:
    """The parts of the (dotted, possibly quoted) TOML key at the start of ``text`` and where it ends, or ``None``."""
    parts: list[str] = []
    position = 0
    while True:
        match = _TOML_KEY_PART.match(text, position)
        if match is None:
            return None
        token = match.group(1)
        parts.append(token[1:-1] if token[0] in "\"'" else token)
        position = match.end()
        if position < len(text) and text[position] == ".":
            position += 1
            continue
        return tuple(parts), position


def _toml_locator(text: str) -> Callable[[tuple[str, ...]], int]:
    """A locator of TOML values by full path: table headers (``[optim]``), arrays of tables (``[[layers]]``, each
    header one more index), dotted and quoted keys on their own line (``adam.lr = 0.1``) and the keys of one-line
    inline tables. A path not found falls back to its nearest located ancestor, then line 1."""
    lines: dict[tuple[str, ...], int] = {}
    arrays: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(source_lines(text), 1):
        header = _TOML_HEADER.match(line)
        if header is not None and line.lstrip().startswith("["):
            key = _toml_key(header.group(2))
            if key is None:
                continue
            table = key[0]
            if header.group(1) == "[[":
                arrays[table] = arrays.get(table, -1) + 1
                table = table + (str(arrays[table]),)
            lines.setdefault(table, number)
            continue
        key = _toml_key(line)
        if key is None or not line[key[1]:].startswith("="):
            continue
        path = table + key[0]
        lines.setdefault(path, number)
        rest = line[key[1] + 1:].strip()
        if rest.startswith("{"):  # a one-line inline table: its keys sit on this line too
            for inner in re.finditer(r'[{,]\s*((?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_.-]+)+)\s*=', rest):
                parsed = _toml_key(inner.group(1))
                if parsed is not None:
                    lines.setdefault(path + parsed[0], number)

    def locate(parts: tuple[str, ...]) -> int:
        for end in range(len(parts), 0, -1):
            if parts[:end] in lines:
                return lines[parts[:end]]
        return 1
    return locate


def _plain(value: object) -> Value:
    return scalar(value) if isinstance(value, str) else value


def _add(found: FileFacts, name: str, path: str, value: Value, file: str, line: int, end: int) -> None:
    if value == "" or value == ():
        return
    found.facts.append(Fact(file, line, end, name, path, value, K.CONFIG, "config"))


def _describe(error: Exception) -> str:
    """One line saying what is wrong: YAML's problem with its context, else the error's own first line."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    problem = getattr(error, "problem", None)
    if problem:
        context = getattr(error, "context", None)
        return f"{context}: {problem}" if context else str(problem)
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _error_line(error: Exception) -> int | None:
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return mark.line + 1
    line = getattr(error, "lineno", None)
    if line is None:  # tomllib says "(at line 3, column 7)" in its message only
        found = re.search(r"at line (\d+)", str(error))
        line = int(found.group(1)) if found else None
    return line
