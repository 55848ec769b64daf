"""Word lists kept as data: ``words.yaml`` beside the code that uses them (``extractors/words.yaml`` for the call
graph and the stub detector, ``rules/words.yaml`` for the rules and the claim compiler), one top-level key per
list, each with a comment giving what it is and its source. Loaded once per process; regular expressions stay in
code."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

WORDS_FILE = "words.yaml"
# libyaml's loader when PyYAML was built with it: several times quicker on these files, same data (the pure-Python
# loader is the fallback); part of verify-stubs's startup
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class WordsError(LookupError):
    """A ``words.yaml`` lacks a key, or a key does not hold a list of strings; the message names both."""


@lru_cache(maxsize=None)
def load(package: str = "extractors") -> dict[str, frozenset[str]]:
    """Every list of ``<package>/words.yaml``: key (str) -> its entries (frozenset of str).

    Raises ``WordsError`` when the file is not a mapping or a value is not a list of strings (YAML reads ``no`` or
    ``1`` as a non-string: such entries must be quoted), ``OSError`` when the packaged file cannot be read and
    ``yaml.YAMLError`` when it does not parse.
    """
    where = f"{package}/{WORDS_FILE}"
    data = yaml.load(resources.files(package).joinpath(WORDS_FILE).read_text(encoding="utf-8"), Loader=_LOADER)
    if not isinstance(data, dict):
        raise WordsError(f"{where} must be a mapping of key -> list of words")
    lists: dict[str, frozenset[str]] = {}
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise WordsError(f"{where}: key {key!r} must hold a list of strings (quote yes/no/numbers)")
        lists[str(key)] = frozenset(value)
    return lists


def word_list(key: str, package: str = "extractors") -> frozenset[str]:
    """The list ``key`` of ``<package>/words.yaml`` as a frozenset of str. Raises ``WordsError`` naming the file
    and the key when the key is missing (and as ``load`` does when the file is broken)."""
    lists = load(package)
    if key not in lists:
        raise WordsError(f"{package}/{WORDS_FILE} has no key {key!r} (keys: {', '.join(sorted(lists))})")
    return lists[key]
