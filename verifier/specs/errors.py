"""The one error of the paper side: a spec that cannot be used, located by file and line."""

from __future__ import annotations

from pathlib import Path


class SpecError(Exception):
    """A paper spec that cannot be used: ``file`` and ``line`` (1-based, or ``None``) locate the problem, and the
    message reads ``file:line: what is wrong``."""

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.message = message
        where = self.file or ""
        if self.file and line:
            where += f":{line}"
        super().__init__(f"{where}: {message}" if where else message)
