"""The shared tree-sitter parser for Python, in a module of its own so that a syntax-only pass (``verify-stubs``)
can parse without importing libcst, sympy or the fact extractors (together about half a second of startup)."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter
import tree_sitter_python


@lru_cache(maxsize=1)
def tree_sitter_parser() -> tree_sitter.Parser:
    """The shared tree-sitter parser for Python (``tree_sitter.Parser``, built once per process)."""
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
