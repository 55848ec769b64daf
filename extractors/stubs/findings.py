"""The stub detector's output: ``StubFinding`` records, the table of finding codes ``CODES`` (documented in the
package docstring of ``extractors.stubs``) and ``code_selected``, the ``--select``/``--ignore`` filter."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CODES: dict[str, str] = {
    "STB001": "empty function body (pass, ..., docstring)",
    "STB002": "function body only raises NotImplementedError",
    "STB003": "placeholder value marked by a trailing comment",
    "STB004": "function body only reports that it is not implemented",
    "TOD001": "TODO / FIXME / XXX / HACK comment",
    "TOD002": "placeholder / stub / dummy / not-implemented marker in a comment",
}
# The codes whose finding is a whole function that computes nothing (a body of only ``pass``/``...``/a docstring,
# only ``raise NotImplementedError``, only a "not implemented" report); STB003 is one line of a body.
WHOLE_FUNCTION_CODES = frozenset({"STB001", "STB002", "STB004"})


@dataclass(frozen=True, order=True)
class StubFinding:
    """One finding.

    ``path`` is the path as given to the finder (str); ``line``, ``column`` and ``end_line`` are 1-based ints
    (``column`` counts characters, as flake8 prints it); ``code`` is a key of ``CODES``; ``message`` is one line of
    text; ``qualname`` is the qualified name of the innermost enclosing function or class, as Python's
    ``__qualname__`` spells it (``Trainer.train_step``, ``outer.<locals>.inner``), or ``""`` at module level. For
    STB001/STB002/STB004 the finding is the function itself: ``line`` is its ``def`` line and ``qualname`` its name.
    """

    path: str
    line: int
    column: int
    end_line: int
    code: str
    message: str
    qualname: str = ""

    def format(self) -> str:
        """The flake8-style line ``path:line:col: CODE message`` (str). Never raises."""
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"


def code_selected(code: str, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> bool:
    """Whether ``code`` (str) passes the filters: it starts with one of the ``select`` prefixes (every code when
    ``select`` is empty) and with none of the ``ignore`` prefixes. Prefixes are str, compared case-insensitively.
    Never raises."""
    code = code.upper()
    select = [s.upper() for s in select if s]
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(i.upper()) for i in ignore if i)
