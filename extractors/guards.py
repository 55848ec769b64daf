"""Cheap checks that keep pathological source from crashing or stalling the parsers, and the test that tells a
user's Ctrl-C inside a parser from a parse failure.

libcst's native parser crashes the process (a segmentation fault) on very deep bracket nesting, and its Python
visitors exhaust the recursion limit on very long operator chains (``1+1+...``). Neither can be caught afterwards, so
such files are recognised before parsing and reported instead; so are chains that nest the tree without brackets
(``x[0][0]...``, ``- - - x``), which overflow the native parser's stack the same way. The nesting bound is CPython's own: its tokenizer
refuses more than 200 nested brackets (``MAXLEVEL`` in CPython's ``Parser/tokenizer.h``), so such a file would not
import either.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager

MAX_NESTING = 200
# x[0][0]..., f()()..., x.T.T..., - - - x, not not ..., lambda: lambda: ...: nesting without brackets. A chain of
# MAX_CHAIN is still analysed by every part (parsers, metadata, call graph, formulas; pinned by tests/test_hostile.py);
# libcst's metadata providers exhaust Python's default recursion limit (1000) from about 350 links on.
MAX_CHAIN = 200
MAX_OPERATORS_PER_LINE = 1000
_OPEN, _CLOSE = "([{", ")]}"
_OPERATORS = frozenset("+*/%@|&^")
# Chains that nest the syntax tree without nesting brackets: trailers (subscripts, calls, attributes) after a value,
# and prefixes (unary minus, ~, not, await, lambda) before one. libcst's native parser overflows its stack on them.
_TRAILERS = re.compile(r"(?:\s*(?:\[[^\[\]\n]{0,40}\]|\([^()\n]{0,40}\)|\.\s*[A-Za-z_]\w*)){%d,}" % (MAX_CHAIN + 1))
_PREFIXES = re.compile(r"(?:(?:-|~|\bnot\b|\bawait\b|\blambda\b[^:\n]{0,40}:)\s*){%d,}" % (MAX_CHAIN + 1))


def too_complex(source: str) -> str | None:
    """Why ``source`` must not be parsed (``"brackets nested 1500 deep ..."``), or ``None`` when it is safe.

    The scan is textual (brackets inside strings count too), so it errs towards refusing; it is linear in the size
    of the source.
    """
    depth = deepest = 0
    for char in source:
        if char in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
        elif char in _CLOSE and depth:
            depth -= 1
    if deepest > MAX_NESTING:
        return (f"brackets nested {deepest} deep (CPython refuses more than {MAX_NESTING}, so it would not import); "
                "not parsed")
    for number, line in enumerate(source.splitlines(), 1):
        if len(line) <= MAX_CHAIN:
            continue
        if len(line) > MAX_OPERATORS_PER_LINE and sum(c in _OPERATORS for c in line) > MAX_OPERATORS_PER_LINE:
            return f"line {number} chains more than {MAX_OPERATORS_PER_LINE} operators; not parsed"
        if not line.lstrip().startswith("#") and (_TRAILERS.search(line) or _PREFIXES.search(line)):
            return f"line {number} chains more than {MAX_CHAIN} subscripts, calls, attributes or prefixes; not parsed"
    return None


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` was raised while handling a Ctrl-C (a ``KeyboardInterrupt`` in its cause or context chain):
    a library that catches the interrupt mid-operation may raise its own error instead (libcst's metadata resolver
    then raises ``KeyError``), which is still the user's Ctrl-C, not a bug."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


class _Interrupt:
    """Whether the user pressed Ctrl-C during this run (``watch_interrupts``). A library that catches the
    ``KeyboardInterrupt`` mid-operation and raises its own error, which a rule then reads as odd input, would
    otherwise let the run go on; the run checks this at each file and each SAU (``stop_if_interrupted``)."""

    pressed = False


def _note_interrupt(signum: int, frame: object) -> None:
    """The SIGINT handler while a run is watched: remember the interrupt, then raise it as Python's own does."""
    _Interrupt.pressed = True
    raise KeyboardInterrupt


@contextmanager
def watch_interrupts() -> Iterator[None]:
    """Within the block, remember a Ctrl-C for ``stop_if_interrupted``; Python's default SIGINT handling is
    replaced only where it is in place (not where an embedding program installed its own), and restored after."""
    _Interrupt.pressed = False
    default = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if default:
        signal.signal(signal.SIGINT, _note_interrupt)
    try:
        yield
    finally:
        if default:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        _Interrupt.pressed = False


def stop_if_interrupted() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed during this run, even if a library swallowed it."""
    if _Interrupt.pressed:
        raise KeyboardInterrupt
