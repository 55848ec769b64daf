"""Python source as CPython reads it: its lines, its indentation, and whether it would compile.

libcst's tokenizer refuses some indentation CPython's accepts: a form feed in the indentation (CPython resets the
column there) and tabs mixed with spaces that CPython's tab-to-multiple-of-8 rule still lines up. ``normalised``
rewrites the indentation of every line into the spaces CPython counts, keeping line numbers. ``refusal`` is the
"would not import" check: ``compile()`` of the text, which builds the code object without running it.
"""

from __future__ import annotations

import io
import re
import tokenize
import warnings

# CPython's tokenizer (Parser/tokenizer.c, tok_get): a tab advances the column to the next multiple of 8, a form
# feed resets it to 0. Only the leading run of these characters is indentation.
TAB_SIZE = 8
_INDENT = re.compile(r"[ \t\f]*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_ALLOW_TOP_LEVEL_AWAIT = 0x2000  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT: notebook cells may await at top level


def source_encoding(raw: bytes) -> str:
    """The encoding Python reads a source file of bytes ``raw`` in (PEP 263: a byte-order mark, or a coding
    declaration in the first two lines; UTF-8 otherwise), from the standard library's ``tokenize.detect_encoding``;
    ``"utf-8"`` when the declaration names no codec Python knows (Python then refuses the file, and so does the
    decoding)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:  # an unknown codec, or a BOM beside another declaration
        return "utf-8"
    return "utf-8" if encoding == "utf-8-sig" else encoding  # the BOM itself decodes to U+FEFF, as it did


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python numbers them (split at ``\\r\\n``, ``\\r`` or ``\\n`` only; ``str.splitlines``
    also splits at form feeds and other separators, which shifts every later line number). No trailing empty line
    for a final newline."""
    lines = _NEWLINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _column(indent: str) -> int:
    column = 0
    for char in indent:
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // TAB_SIZE + 1) * TAB_SIZE
        else:  # form feed
            column = 0
    return column


def normalised(text: str) -> str | None:
    """``text`` with every indentation that holds a tab or a form feed rewritten as the spaces CPython counts, or
    ``None`` when there is none to rewrite. Line numbers and line breaks are kept; a line inside a multi-line string
    may change its leading blanks, which no fact depends on."""
    changed = False

    def rewrite(line: str) -> str:
        nonlocal changed
        indent = _INDENT.match(line).group(0)  # type: ignore[union-attr]
        if "\t" not in indent and "\f" not in indent:
            return line
        changed = True
        rest = line[len(indent):]
        return (" " * _column(indent) if rest.strip() else "") + rest

    parts = re.split(r"(\r\n|\r|\n)", text)
    parts[::2] = [rewrite(part) for part in parts[::2]]
    return "".join(parts) if changed else None


def refusal(text: str | bytes, file: str, cell: bool = False) -> str | None:
    """Why CPython would refuse to compile ``text`` (``"line 3: inconsistent use of tabs ..."``; the file's bytes, to
    decode them as CPython does), or ``None`` when it compiles. Nothing is run: ``compile()`` only builds the code
    object. ``cell`` allows top-level ``await`` as IPython does. Syntax warnings are silenced (they are the
    repository's, not ours)."""
    error = compile_error(text, file, cell)
    if isinstance(error, SyntaxError):
        return (f"line {error.lineno}: " if error.lineno else "") + str(error.msg)
    return None if error is None else str(error) or type(error).__name__


def compile_error(text: str | bytes, file: str, cell: bool = False) -> Exception | None:
    """The error CPython's ``compile()`` raises on ``text`` (a ``SyntaxError`` with ``lineno`` and ``offset``, or a
    ``ValueError``/``RecursionError``/``MemoryError``), or ``None`` when it compiles (``refusal`` for the rules)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, file, "exec", flags=_ALLOW_TOP_LEVEL_AWAIT if cell else 0, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error
    return None
