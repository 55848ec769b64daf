"""The word lists of the extractors, kept as data in ``extractors/words.yaml`` (one top-level key per list, each
with a comment giving what it is and its source). Loaded once per process; regular expressions stay in code."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

WORDS_FILE = "extractors/words.yaml"


class WordsError(LookupError):
    """``extractors/words.yaml`` lacks a key, or a key does not hold a list of strings; the message names both."""


@lru_cache(maxsize=1)
def load() -> dict[str, frozenset[str]]:
    """Every list of ``extractors/words.yaml``: key (str) -> its entries (frozenset of str).

    Raises ``WordsError`` when the file is not a mapping or a value is not a list of strings (YAML reads ``no`` or
    ``1`` as a non-string: such entries must be quoted), ``OSError`` when the packaged file cannot be read and
    ``yaml.YAMLError`` when it does not parse.
    """
    text = resources.files("extractors").joinpath("words.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise WordsError(f"{WORDS_FILE} must be a mapping of key -> list of words")
    lists: dict[str, frozenset[str]] = {}
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise WordsError(f"{WORDS_FILE}: key {key!r} must hold a list of strings (quote yes/no/numbers)")
        lists[str(key)] = frozenset(value)
    return lists


def words(key: str) -> frozenset[str]:
    """The list ``key`` of ``extractors/words.yaml`` as a frozenset of str. Raises ``WordsError`` naming the file
    and the key when the key is missing (and as ``load`` does when the file is broken)."""
    lists = load()
    if key not in lists:
        raise WordsError(f"{WORDS_FILE} has no key {key!r} (keys: {', '.join(sorted(lists))})")
    return lists[key]
