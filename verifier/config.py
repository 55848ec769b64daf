"""User settings from ``pyproject.toml`` ``[tool.sauverify]``, found from the current folder upward.

Keys (all optional; the command line overrides each): ``sau-dir`` (folder laid out like SA-Bench's ``papers/``,
relative to the pyproject file), ``exclude`` (list of glob patterns on repository-relative paths), ``all-projects``
(true: read other projects'
folders too, ``extractors.projects``),
``max-file-bytes`` (size cap per file), ``format`` (a name of ``verifier.formats.FORMATS``), ``dimensions`` (list
such as ``["D1"]``); for the LLM judge (``llm_fallback``): ``llm`` (``off``, ``auto``, ``record`` or ``replay``),
``model``, ``base-url``, ``llm-timeout`` (seconds), ``llm-retries``, ``llm-concurrency``, ``llm-batch`` (SAUs per
request), ``max-llm-calls``, ``llm-evidence-chars`` (characters of code per SAU in the judge's prompt) and ``recordings``
(folder, relative to the pyproject file); ``cache-dir`` (the cache folder, relative to the pyproject file;
``extractors.cache.cache_folder`` says what else decides it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from llm_fallback.settings import MODES as LLM_MODES
from sau.vocabulary import DIMENSIONS
from verifier.formats import FORMATS
from verifier.pyproject import TOOL, ConfigError, find_pyproject, key_place
from verifier.specs.errors import unknown_keys
_KEYS = {"sau-dir", "exclude", "all-projects", "max-file-bytes", "format", "dimensions", "stubs", "llm", "model",
         "base-url", "llm-timeout", "llm-retries", "llm-concurrency", "llm-batch", "max-llm-calls", "llm-evidence-chars",
         "recordings", "cache-dir"}
# [tool.sauverify] key -> (Settings.llm key, type check, what the error says it must be)
_LLM_KEYS = {
    "model": ("model", lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "base-url": ("base_url", lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "llm-timeout": ("timeout", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
                    "a positive number of seconds"),
    "llm-retries": ("retries", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                    "a non-negative integer"),
    "llm-concurrency": ("concurrency", lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
                        "a positive integer"),
    "llm-batch": ("batch", lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0, "a positive integer"),
    "llm-evidence-chars": ("evidence_chars", lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
                           "a positive integer (characters of code per SAU)"),
    "max-llm-calls": ("max_calls", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                      "a non-negative integer"),
}


@dataclass(frozen=True)
class Settings:
    """Settings read from a pyproject file (``source`` is its path, or ``None`` when none was found)."""

    source: Path | None = None
    sau_dir: Path | None = None
    exclude: tuple[str, ...] = ()
    max_file_bytes: int | None = None
    format: str | None = None
    dimensions: tuple[str, ...] = field(default=())
    llm_mode: str | None = None
    recordings: Path | None = None
    llm: dict = field(default_factory=dict)  # LLMSettings field -> value, for the keys of _LLM_KEYS given
    cache_dir: Path | None = None
    all_projects: bool = False


def _bad(path: Path, key: str, must: str) -> ConfigError:
    """The error for a setting of the wrong kind, naming the file and the line that sets it."""
    return ConfigError(f"{key_place(path, key)}: [tool.{TOOL}] {key} must be {must}")


def load_settings(start: Path) -> Settings:
    """Read ``[tool.sauverify]`` from the nearest pyproject. Raises ``ConfigError`` on a malformed file or table."""
    path, table = find_pyproject(start)
    if path is None:
        return Settings()
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{key_place(path, unknown[0])}: unknown key(s) in [tool.{TOOL}]: "
                          f"{unknown_keys(unknown, _KEYS)}")
    exclude = table.get("exclude", [])
    dimensions = table.get("dimensions", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise _bad(path, "exclude", "a list of glob strings")
    if not isinstance(dimensions, list) or not all(isinstance(d, str) and d in DIMENSIONS for d in dimensions):
        raise _bad(path, "dimensions", f"a list drawn from {', '.join(DIMENSIONS)}")
    max_bytes = table.get("max-file-bytes")
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0):
        raise _bad(path, "max-file-bytes", "a positive integer")
    fmt = table.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise _bad(path, "format", f"one of {', '.join(FORMATS)} (got {fmt!r})")
    sau_dir = table.get("sau-dir")
    if sau_dir is not None and (not isinstance(sau_dir, str) or not sau_dir.strip()):
        raise _bad(path, "sau-dir", "a folder path (string)")
    mode = table.get("llm")
    if mode is not None and mode not in LLM_MODES:
        raise _bad(path, "llm", f"one of {', '.join(LLM_MODES)}")
    recordings = table.get("recordings")
    if recordings is not None and not isinstance(recordings, str):
        raise _bad(path, "recordings", "a folder path (string)")
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir.strip()):
        raise _bad(path, "cache-dir", "a folder path (string)")
    all_projects = table.get("all-projects", False)
    if not isinstance(all_projects, bool):
        raise _bad(path, "all-projects", "true or false")
    llm = {}
    for key, (name, valid, must) in _LLM_KEYS.items():
        if key in table:
            if not valid(table[key]):
                raise _bad(path, key, must)
            llm[name] = table[key]
    return Settings(path, (path.parent / sau_dir) if isinstance(sau_dir, str) else None, tuple(exclude), max_bytes,
                    fmt, tuple(dimensions), mode, (path.parent / recordings) if recordings else None, llm,
                    (path.parent / cache_dir) if cache_dir else None, all_projects)
