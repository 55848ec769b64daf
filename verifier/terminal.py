"""Text from the repository or the spec, made safe to print on a terminal; and how the commands tell a Ctrl-C
from a bug.

File names, comments and claim ids are the repository's bytes: an escape sequence in them (``\\x1b[2J`` clears the
screen, ``\\x1b]8;;`` makes a link) or a bidirectional override (U+202E, the "Trojan Source" trick, CVE-2021-42574)
would act on the reader's terminal, and a line break would forge a line of output. ``printable`` shows each such
character as a Python escape instead.
"""

from __future__ import annotations

import unicodedata

from extractors.guards import interrupted  # re-exported: the CLIs report an interrupt as one line

# Unicode's bidirectional formatting characters (UAX #9): embeddings, overrides, isolates and marks.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str, keep: str = "") -> str:
    """``text`` (str) with every control character (Unicode category Cc: C0, DEL, C1; tabs and line breaks
    included) and every bidirectional formatting character written as its escape (``\\x1b``, ``\\n``,
    ``\\u202e``), except the characters in ``keep`` (a code line keeps its tabs); other text unchanged."""
    if text.isprintable():
        return text
    return "".join(_escape(char) if (unicodedata.category(char) == "Cc" or char in _BIDI) and char not in keep
                   else char for char in text)


def _escape(char: str) -> str:
    return repr(char)[1:-1] if char not in "'\"" else char


_SHOWN = 300  # characters of an internal error's message shown: one readable line, not a dumped syntax tree


def error_line(error: BaseException) -> str:
    """``Type: message`` of an internal error on one printable line, cut to ``_SHOWN`` characters."""
    text = printable(f"{type(error).__name__}: {error}")
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
