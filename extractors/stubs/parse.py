"""What the stub rules see in one Python file: the records both parsers fill and the helpers they share.

Both parsers (libcst in ``parse_cst``, tree-sitter-python in ``parse_ts``) produce a ``Parsed``:
its functions as ``Func`` records whose body is reduced to a tuple of statement *kinds* (``DOC``, ``PASS`` ...),
the common language the rules of ``codes`` read, plus scopes, comments, value statements, import fallbacks,
``__main__`` blocks and classes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from extractors.words import word_list

# STB004: what a print/log/warn message says when the function is not there.
REPORT_MARKER = re.compile(
    r"(?<!\w)(?:not\s+(?:yet\s+)?implemented|unimplemented|to\s+be\s+implemented|placeholder|stub|todo)(?!\w)",
    re.IGNORECASE)

# Word lists (what each holds and its source: extractors/words.yaml).
FALLBACK_ERRORS = word_list("import_fallback_errors")
NOT_IMPLEMENTED = word_list("not_implemented")
_REPORT_FUNCTIONS = word_list("report_functions")
_REPORT_METHODS = word_list("report_methods")

# Body statement kinds, the common language of both parsers: a docstring (or any string statement), ``pass``,
# ``...``, ``raise NotImplementedError``, ``return NotImplemented``, a print/log call (one saying "not implemented"),
# any other ``return``, anything else.
DOC, PASS, ELLIPSIS, RAISE_NIE, RETURN_NI, REPORT, REPORT_NI, RETURN, OTHER = (
    "doc", "pass", "ellipsis", "raise", "return_ni", "report", "report_ni", "return", "other")


@dataclass(frozen=True)
class Func:
    """One function as the rules see it: ``name`` and ``qualname`` (as ``__qualname__`` spells it); ``line`` its name's
    line, ``column`` the 1-based column of the ``def`` (or its first decorator), ``end_line`` its last line;
    ``decorators`` their dotted names; ``in_protocol`` whether a ``typing.Protocol`` class body defines it; ``kinds``
    its body's statements as body kinds (``DOC`` ... ``OTHER``)."""

    name: str
    qualname: str
    line: int
    column: int
    end_line: int
    decorators: tuple[str, ...]
    in_protocol: bool
    kinds: tuple[str, ...]
    doc: str  # the text of the body's string statements (docstring)
    owner: str  # qualname of the class whose body defines it, "" when not a method


@dataclass
class Parsed:
    """What one parser saw: functions, scopes (start, end, qualname), comments (line, col, text), value statements
    (line, col, end_line, end_col) whose trailing comment may mark a placeholder, the line ranges of import fallbacks
    (``try`` statements with an ``except ImportError:`` handler), of ``if __name__ == "__main__":`` blocks, and the
    classes (qualname, name, base names)."""

    functions: list[Func] = field(default_factory=list)
    scopes: list[tuple[int, int, str]] = field(default_factory=list)
    comments: list[tuple[int, int, str]] = field(default_factory=list)
    values: list[tuple[int, int, int, int]] = field(default_factory=list)
    fallbacks: list[tuple[int, int]] = field(default_factory=list)
    demos: list[tuple[int, int]] = field(default_factory=list)
    classes: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)


def last(dotted: str) -> str:
    """The last part of a dotted name (``abc.abstractmethod`` -> ``abstractmethod``)."""
    return dotted.rsplit(".", 1)[-1]


def qualname_of(stack: list[tuple[str, bool]], name: str) -> str:
    """``stack`` holds (name, is_function) of the enclosing scopes; functions add ``<locals>`` as __qualname__ does."""
    parts: list[str] = []
    for scope, is_function in stack:
        parts.append(scope)
        if is_function:
            parts.append("<locals>")
    parts.append(name)
    return ".".join(parts)


def is_report_call(callee: str) -> bool:
    """Whether a call of the dotted name ``callee`` only reports: ``print``, ``warn``/``warnings.warn``, or a
    logging method on a receiver whose name holds "log" (``logger.info``, ``logging.warning``)."""
    if callee in _REPORT_FUNCTIONS:
        return True
    head, _, method = callee.rpartition(".")
    return method in _REPORT_METHODS and "log" in head.lower()
