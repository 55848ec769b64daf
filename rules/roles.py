"""The role tables of the D3 and D4 rules (``rules/roles.yaml``), loaded once: the word lists (a frozenset of
lower-case str per key), the D4 step roles (``StepRole`` records) and the conventional import names of libraries.

Raises ``RolesError`` (naming the file and key) when the table is malformed, ``OSError`` when the packaged file
cannot be read and ``yaml.YAMLError`` when it does not parse."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

ROLES_FILE = "roles.yaml"
_LISTS = ("loader_words", "non_data_words", "path_builders", "metric_call_words", "plot_calls",
          "plot_function_words", "config_calls", "common_words", "ui_modules", "repeated_step_words",
          "pass_through_calls", "mutating_methods", "optimizer_names", "optimizer_update_words", "config_modules",
          "config_words", "training_words", "training_objects",
          "general_step_words", "evaluation_words", "record_words", "record_calls", "deferring_words", "build_words",
          "purpose_words",
          "compound_terms", "preprocessor_words", "project_folder_words", "text_parsing_calls",
          "sweep_words", "data_preparation_words",
          "metric_option_words", "negation_words", "action_words")


class RolesError(LookupError):
    """``rules/roles.yaml`` lacks a key or holds something else than the documented shapes."""


@dataclass(frozen=True)
class StepRole:
    """One role a call plays in a pipeline: ``name``; ``calls`` the last name parts of calls playing it;
    ``receivers`` words one of which the receiver's last name part must hold (empty: any receiver);
    ``step_words`` the words or phrases of a step that ask for the role (lower case); ``by_functions`` whether a
    step whose functions name one of the calls asks for it too; ``by_name`` whether only the step's name asks for
    it (its keywords and functions holding a step word do not)."""

    name: str
    calls: frozenset[str]
    receivers: frozenset[str]
    step_words: frozenset[str]
    by_functions: bool = False
    by_name: bool = False


def _strings(value, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RolesError(f"rules/{ROLES_FILE}: {where} must be a list of strings (quote yes/no/numbers)")
    return frozenset(item.lower() for item in value)


def _flag(value, where: str) -> bool:
    if not isinstance(value, bool):
        raise RolesError(f"rules/{ROLES_FILE}: {where} must be true or false")
    return value


@lru_cache(maxsize=None)
def _table() -> dict:
    data = yaml.safe_load(resources.files("rules").joinpath(ROLES_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise RolesError(f"rules/{ROLES_FILE} must be a mapping")
    return data


@lru_cache(maxsize=None)
def words(key: str) -> frozenset[str]:
    """The word list ``key`` (one of ``loader_words``, ``non_data_words``, ``path_builders``, ``metric_call_words``,
    ``plot_calls``, ``plot_function_words``, ``config_calls``, ``common_words``, ``ui_modules``,
    ``repeated_step_words``, ``pass_through_calls``,
    ``mutating_methods``, ``optimizer_names``, ``optimizer_update_words``, ``config_modules``, ``config_words``,
    ``training_words``, ``training_objects``, ``general_step_words``, ``evaluation_words``, ``record_words``,
    ``record_calls``, ``deferring_words``, ``build_words``, ``purpose_words``, ``compound_terms``,
    ``preprocessor_words``, ``project_folder_words``, ``text_parsing_calls``, ``sweep_words``,
    ``data_preparation_words``, ``metric_option_words``, ``negation_words``, ``action_words``)."""
    if key not in _LISTS or key not in _table():
        raise RolesError(f"rules/{ROLES_FILE} has no word list {key!r}")
    return _strings(_table()[key], key)


@lru_cache(maxsize=None)
def import_aliases() -> dict[str, str]:
    """The conventional import names of libraries (``import_aliases``: ``np`` -> ``numpy``, ``F`` ->
    ``torch.nn.functional``), case-sensitive. Raises ``RolesError`` when the table is not a mapping of names to
    dotted module names."""
    table = _table().get("import_aliases")
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise RolesError(f"rules/{ROLES_FILE}: import_aliases must be a mapping of alias -> module name")
    return dict(table)


@lru_cache(maxsize=None)
def order_breakers() -> tuple[tuple[str, str, str], ...]:
    """(earlier step's role, later step's role, breaking call's role) triples: a call of the breaking role between
    the two steps breaks their order."""
    return tuple((a, b, c) for a, b, c in _role_rows("order_breakers", ("first", "then", "breaker")))


def prerequisites() -> tuple[tuple[str, str], ...]:
    """(earlier role, later role) pairs: a call of the later role on an object needs a call of the earlier role on it
    first (an estimator's ``predict`` its ``fit``). Raises ``RolesError`` when a row does not name two step roles."""
    return tuple((a, b) for a, b in _role_rows("prerequisites", ("first", "then")))


def _role_rows(key: str, fields: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The rows of the table ``key``, each the step roles its ``fields`` name, in order. Raises ``RolesError`` when a
    row lacks one of them or names no step role."""
    rows = _table().get(key, [])
    known = {role.name for role in step_roles()}
    out = []
    for row in rows if isinstance(rows, list) else [None]:
        if not isinstance(row, dict) or not {row.get(f) for f in fields} <= known:
            raise RolesError(f"rules/{ROLES_FILE}: {key} rows need {', '.join(fields)}, each a step role")
        out.append(tuple(row[f] for f in fields))
    return out


@lru_cache(maxsize=None)
def step_roles() -> tuple[StepRole, ...]:
    """The D4 step roles, in the table's order."""
    roles = _table().get("step_roles")
    if not isinstance(roles, dict):
        raise RolesError(f"rules/{ROLES_FILE}: step_roles must be a mapping of role -> fields")
    out = []
    for name, fields in roles.items():
        if not isinstance(fields, dict) or "calls" not in fields or "step_words" not in fields:
            raise RolesError(f"rules/{ROLES_FILE}: step role {name!r} needs calls and step_words")
        out.append(StepRole(str(name), _strings(fields["calls"], f"{name}.calls"),
                            _strings(fields.get("receivers", []), f"{name}.receivers"),
                            _strings(fields["step_words"], f"{name}.step_words"),
                            _flag(fields.get("by_functions", False), f"{name}.by_functions"),
                            _flag(fields.get("by_name", False), f"{name}.by_name")))
    return tuple(out)
