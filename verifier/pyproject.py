"""The ``[tool.sauverify]`` table of a ``pyproject.toml``: found from a folder upward and read, for both commands
(``verify``'s settings in ``verifier.config``, ``verify-stubs``'s ``[tool.sauverify.stubs]`` in
``verifier.stubs_cli``). Kept light (no analysis imports) so that the pre-commit hook starts fast."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Callable

TOOL = "sauverify"


class ConfigError(Exception):
    """A ``pyproject.toml`` or ``[tool.sauverify]`` table that cannot be used; the message names the file."""


def read_tool_table(path: Path) -> dict:
    """The ``[tool.sauverify]`` table of the pyproject file ``path`` (``{}`` when it has none). Raises
    ``ConfigError`` naming the file when it cannot be read, is not valid TOML, or the table is not a table."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    tool = data.get("tool", {})
    table = tool.get(TOOL, {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool] and [tool.{TOOL}] must be tables")
    return table


def key_place(path: Path, key: str, table: str = TOOL) -> str:
    """``"<path>:<line>"`` of the line setting ``key`` in the table ``[tool.<table>]`` of the pyproject file ``path``
    (a bare or quoted key), or ``"<path>"`` when no such line is found (a dotted or inline-table key). An error
    about a setting's value then names the line, as tomllib does for a syntax error. Never raises."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    inside = False
    setting = re.compile(r"""["']?""" + re.escape(key) + r"""["']?\s*=""")
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped.split("#", 1)[0].replace(" ", "") == f"[tool.{table}]"
        elif inside and setting.match(stripped):
            return f"{path}:{number}"
    return str(path)


def find_pyproject(start: Path, wanted: Callable[[dict], bool] | None = None) -> tuple[Path | None, dict]:
    """The nearest ``pyproject.toml`` in ``start`` or a parent folder (whose ``[tool.sauverify]`` table satisfies
    ``wanted``, when given) and that table; ``(None, {})`` when there is none. Raises ``ConfigError`` as
    ``read_tool_table`` does, for any pyproject on the way."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        table = read_tool_table(candidate)
        if wanted is None or wanted(table):
            return candidate, table
    return None, {}
