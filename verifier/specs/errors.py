"""The one error of the paper side: a spec that cannot be used, located by file and line."""

from __future__ import annotations

import difflib
from pathlib import Path


class SpecError(Exception):
    """A paper spec that cannot be used: ``file`` and ``line`` (1-based, or ``None``) locate the problem, and the
    message reads ``file:line: what is wrong``."""

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.message = message
        where = self.file or ""
        if self.file and line:
            where += f":{line}"
        super().__init__(f"{where}: {message}" if where else message)


def unknown_keys(unknown: list[str], allowed: set[str] | tuple[str, ...]) -> str:
    """``a, b`` for the unknown keys of a spec mapping (or a configuration table), each followed by the allowed key
    it most likely misspells (``statment (did you mean 'statement'?)``)."""
    return ", ".join(key + did_you_mean(key, allowed) for key in unknown)


def did_you_mean(key: str, allowed: set[str] | tuple[str, ...]) -> str:
    """`` (did you mean 'statement'?)`` for the allowed key ``key`` most likely misspells (``difflib`` similarity of
    at least 0.75; keys starting ``__`` are the loader's own), else ``""``."""
    known = sorted(k for k in allowed if not k.startswith("__"))
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
    return f" (did you mean {near[0]!r}?)" if near else ""


class LinedMapping(dict):
    """A spec mapping that also knows the line of each of its keys (``key_lines``: str -> 1-based line), so that
    an error about one key (an unknown key under a SAU) names the key's own line."""

    key_lines: dict[str, int]


def key_line(mapping: dict, key: str, default: int | None) -> int | None:
    """The 1-based line of ``key`` in a mapping the spec loader read, else ``default``."""
    return getattr(mapping, "key_lines", {}).get(key, default)
