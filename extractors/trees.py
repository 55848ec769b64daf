"""The libcst trees of a repository's Python sources, parsed once each and only when something reads them.

A source indexed from its text keeps the tree its extraction parsed; a source whose facts came from the cache
(``extractors.cache``) keeps only its text, and is parsed the first time a rule, the call graph or the judge reads
its tree. Either way every reader of one index shares one tree and one position table per source.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import Any

# Extra recursion depth for a parse made on demand: the first parse of the same text ran near the bottom of the
# stack (while indexing), a later one runs inside a rule; the same text must not fail there for lack of depth.
_HEADROOM = 500


def parse_python(text: str, file: str, cell: bool = False) -> Any:
    """``text`` parsed by libcst in a ``MetadataWrapper`` (its tree not copied). Where libcst refuses the text as
    written, it is parsed as CPython reads its tabs and form feeds (``extractors.python_source.normalised``) unless
    CPython refuses it too. Raises libcst's ``ParserSyntaxError`` or ``ValueError`` when it cannot be parsed."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from extractors.python_source import normalised, refusal
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, ValueError):
        rewritten = normalised(text)  # CPython's reading of tabs and form feeds, which libcst may refuse
        if rewritten is None or refusal(text, file, cell) is not None:
            raise
        module = cst.parse_module(rewritten)
    return MetadataWrapper(module, unsafe_skip_copy=True)


class Trees:
    """Per source key (``file`` or ``file#cell``, in the order added): its libcst ``Module`` and its positions
    (node -> ``CodeRange``, from ``PositionProvider``). ``modules`` and ``positions`` are read-only mappings over
    the same keys; reading a value parses the source if it was added as text. A source parsed once at indexing time
    parses again the same way (never raises for such a source short of memory)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._parsed: dict[str, tuple[Any, Mapping]] = {}
        self._keys: dict[str, None] = {}
        self.modules: Mapping[str, Any] = _View(self, 0)
        self.positions: Mapping[str, Mapping] = _View(self, 1)

    def add_parsed(self, key: str, wrapper: Any) -> None:
        """Keep the tree of ``wrapper`` (a libcst ``MetadataWrapper``) and the positions it resolves."""
        from libcst.metadata import PositionProvider
        self._keys[key] = None
        self._parsed[key] = (wrapper.module, wrapper.resolve(PositionProvider))

    def add_text(self, key: str, text: str) -> None:
        """Keep ``text``, which libcst parsed when its facts were extracted, to parse when its tree is read."""
        self._keys[key] = None
        self._texts[key] = text

    def keys(self) -> Iterator[str]:
        """The source keys, in the order added."""
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def parsed(self, key: str) -> tuple[Any, Mapping]:
        """(module, positions) of ``key``; raises ``KeyError`` for a key never added."""
        found = self._parsed.get(key)
        if found is None:
            text = self._texts[key]  # KeyError for an unknown key
            from libcst.metadata import PositionProvider
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(limit + _HEADROOM)
            try:
                wrapper = parse_python(text, key.partition("#")[0], "#" in key)
                found = self._parsed[key] = (wrapper.module, wrapper.resolve(PositionProvider))
                del self._texts[key]
            finally:
                sys.setrecursionlimit(limit)
        return found


class _View(Mapping):
    """``Trees.modules`` (``part`` 0) or ``Trees.positions`` (``part`` 1)."""

    def __init__(self, trees: Trees, part: int) -> None:
        self._trees = trees
        self._part = part

    def __getitem__(self, key: str) -> Any:
        if key not in self._trees._keys:
            raise KeyError(key)
        return self._trees.parsed(key)[self._part]

    def __contains__(self, key: object) -> bool:
        return key in self._trees._keys

    def __iter__(self) -> Iterator[str]:
        return self._trees.keys()

    def __len__(self) -> int:
        return len(self._trees)
