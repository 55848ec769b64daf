"""The code cells of a Jupyter notebook, as the kernel would run them.

Notebooks in nbformat 4 are read as JSON; older layouts (nbformat 1-3, code under ``worksheets[].cells[].input``)
are upgraded with the ``nbformat`` package's converter. IPython syntax that is not Python is blanked so that line
numbers stay put: line magics (``%matplotlib``) and shell escapes (``!pip``), and the whole body of a cell magic
whose body is another language (``%%html``, ``%%bash``; ``extractors/words.yaml``). A cell magic whose body is
Python (``%%time``, ``%%capture``, ``%%writefile x.py``) only loses its first line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from extractors.python_source import source_lines
from extractors.words import word_list

_CELL_MAGIC = re.compile(r"\s*%%(\w+)[ \t]*(.*)")


@dataclass(frozen=True)
class Cell:
    """One code cell: ``number`` 1-based among all cells of the notebook (as the index keys ``file#number``),
    ``lines`` the cell's source lines with non-Python parts blanked, ``python`` false when the whole body is another
    language, ``note`` a warning to give about the cell (an unknown cell magic), or ``""``."""

    number: int
    lines: tuple[str, ...]
    python: bool = True
    note: str = ""


class NotebookError(ValueError):
    """A notebook this module cannot read: ``line`` where JSON stopped (or ``None``), ``str()`` why."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def code_cells(text: str) -> list[Cell]:
    """The code cells of the notebook ``text`` (str, the file's JSON), in order. Raises ``NotebookError`` when the
    text is not JSON, is nested too deeply, or has no cells in a layout nbformat knows."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise NotebookError(getattr(error, "msg", "nested too deeply"), getattr(error, "lineno", None)) from None
    if isinstance(data, dict) and not isinstance(data.get("cells"), list) and "worksheets" in data:
        data = _upgraded(data)
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("no list of cells", 1)
    found = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):  # nbformat allows a string or a list of strings, nothing else
            found.append(Cell(number, (), python=False, note=f"source is not text ({type(source).__name__}): "
                                                             f"the cell was not read"))
            continue
        found.append(_cell(number, source))
    return found


def _upgraded(data: dict) -> dict:
    """A notebook of nbformat 1-3 as nbformat 4, through the ``nbformat`` package. Raises ``NotebookError`` when
    it cannot convert it (a key its schema requires is missing)."""
    import nbformat  # imported only for old notebooks: it is slow to import
    from nbformat import converter

    try:
        return dict(converter.convert(nbformat.from_dict(data), 4))
    except Exception as error:  # nbformat raises ValidationError, KeyError, TypeError ... on odd layouts
        version = data.get("nbformat")
        raise NotebookError(f"nbformat {version} layout that nbformat cannot upgrade: "
                            f"{str(error).splitlines()[0] if str(error) else type(error).__name__}", 1) from None


def _cell(number: int, source: str) -> Cell:
    lines = source_lines(source)
    magic = _CELL_MAGIC.match(lines[0]) if lines else None
    if magic is not None:
        name, argument = magic.group(1), magic.group(2).strip()
        if not _python_body(name, argument):
            known = name in word_list("other_language_cell_magics")
            return Cell(number, tuple("" for _ in lines), python=False,
                        note="" if known else f"cell magic %%{name}: its body was not read")
        lines = [""] + lines[1:]
    # IPython line magics and shell escapes are not Python; blank them so line numbers stay put
    return Cell(number, tuple("" if line.lstrip().startswith(("%", "!")) else line for line in lines))


def _python_body(name: str, argument: str) -> bool:
    """Whether the body of the cell magic ``%%name argument`` is Python."""
    if name == "writefile":
        return argument.split()[-1].endswith(".py") if argument.split() else False
    if name == "script":
        return argument.split()[0].startswith("python") if argument.split() else False
    return name in word_list("python_cell_magics")
