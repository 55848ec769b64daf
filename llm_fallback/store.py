"""Recordings of LLM exchanges: one pretty-printed JSON file per exchange, named by its key, in a folder users can
review and commit (default ``.sauverify/recordings``).

The key is the SHA-256 of the canonical JSON (sorted keys, no spaces, UTF-8) of ``{"model", "messages",
"params"}``: the same request always finds the same file, and any change to the prompt, the model or the
parameters misses it. File layout (``schema`` ``sauverify-exchange/1``): ``key``, ``model``, ``params``,
``sau_ids`` (for the reader), ``messages``, ``response`` ``{"content"}``. Nothing in it depends on time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

SCHEMA = "sauverify-exchange/1"
DEFAULT_FOLDER = Path(".sauverify") / "recordings"


class RecordingError(Exception):
    """A recording that cannot be read or written; the message names the file."""


def exchange_key(model: str, messages: list[dict], params: dict) -> str:
    """The hex SHA-256 of the canonical JSON of the request (model, messages, parameters)."""
    canonical = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Recordings:
    """The recordings folder. ``get`` and ``put`` are safe to call from several threads (one file per key, written
    to a temporary file and renamed)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> str | None:
        """The recorded answer text for ``key``, or ``None`` when there is no recording. Raises ``RecordingError``
        naming the file when it exists but is unusable: unreadable, empty, truncated or binary, or not a recording
        of this key (another key, a ``response`` that is not an object, a ``content`` that is not text)."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            what = "empty" if not error.doc.strip() else f"not JSON (line {error.lineno}: {error.msg})"
            raise RecordingError(f"{path}: unusable recording: {what}") from None
        except (OSError, UnicodeDecodeError, RecursionError) as error:
            raise RecordingError(f"{path}: unusable recording: {error or type(error).__name__}") from None
        response = data.get("response") if isinstance(data, dict) else None
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(content, str):
            raise RecordingError(f"{path}: unusable recording: not a recording of exchange {key} (key or "
                                 "response.content missing or not text)")
        return content

    def put(self, key: str, model: str, messages: list[dict], params: dict, sau_ids: list[str], content: str) -> None:
        """Write the recording of one exchange. Raises ``RecordingError`` when the folder cannot be written."""
        data = {"schema": SCHEMA, "key": key, "model": model, "params": params, "sau_ids": sau_ids,
                "messages": messages, "response": {"content": content}}
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{key}.", suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.path(key))
        except OSError as error:
            raise RecordingError(f"{self.path(key)}: cannot write recording: {error}") from None
