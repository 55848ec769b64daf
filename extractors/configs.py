"""Value facts from configuration files: YAML, JSON and TOML keys by dotted path, with line numbers.

YAML and JSON are read through PyYAML's safe composer (JSON is, for all practical files, YAML), which keeps each
node's line; a JSON file YAML rejects is read with ``json`` and its keys are located by searching the text. TOML is
read with ``tomllib`` and located the same way. A numeric string (``lr: 1e-4``, which YAML 1.1 loads as text) is a
number; any other string stays a string.
"""

from __future__ import annotations

import json
import re
import tomllib

import yaml

from extractors import facts as K
from extractors.facts import Fact, FileFacts, Warning_
from sau.vocabulary import Value

_NUMBER = re.compile(r"^[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_MAX_NODES = 50_000  # a config with more nodes is data, not configuration


def extract_config(text: str, file: str) -> FileFacts:
    """Facts for every scalar (or list of scalars) under a key. Malformed files yield a warning with the line."""
    found = FileFacts()
    suffix = file.rsplit(".", 1)[-1].lower()
    try:
        if suffix == "toml":
            _from_plain(tomllib.loads(text), text, file, found)
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
        _from_plain(json.loads(text), text, file, found)
        return
    budget = [_MAX_NODES]
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
                _walk_node(value_node, child, file, found, budget)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk_node(item, f"{path}.{index}" if path else str(index), file, found, budget)


def _yaml_scalar(node: yaml.ScalarNode) -> Value:
    if node.tag.endswith(":bool"):
        return node.value.lower() in ("true", "yes", "on")
    if node.tag.endswith(":null"):
        return ""
    return scalar(node.value) if node.style is None else node.value


def _from_plain(data: object, text: str, file: str, found: FileFacts) -> None:
    """Facts from already-loaded data (TOML, or JSON that YAML rejected), lines found by searching the key."""
    lines = text.splitlines()

    def line_of(key: str) -> int:
        pattern = re.compile(r'(^|[\s"\'{,])' + re.escape(key) + r'["\']?\s*[:=]')
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                return number
        return 1

    def visit(value: object, path: str, key: str) -> None:
        if isinstance(value, dict):
            for child_key, child in value.items():
                visit(child, f"{path}.{child_key}" if path else str(child_key), str(child_key))
        elif isinstance(value, list) and value and all(isinstance(v, (int, float, str, bool)) for v in value):
            line = line_of(key)
            _add(found, key, path, tuple(_plain(v) for v in value), file, line, line)
        elif isinstance(value, list):
            for index, child in enumerate(value):
                visit(child, f"{path}.{index}", key)
        elif isinstance(value, (int, float, str, bool)) and key:
            line = line_of(key)
            _add(found, key, path, _plain(value), file, line, line)

    visit(data, "", "")


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
