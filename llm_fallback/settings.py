"""The LLM judge's settings (kept apart from the client so that reading them does not import ``openai``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llm_fallback.store import DEFAULT_FOLDER

MODES = ("off", "auto", "record", "replay")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 3
DEFAULT_CONCURRENCY = 4
DEFAULT_EVIDENCE_CHARS = 2_600  # characters of code per SAU; README, "The LLM judge", gives the measurement


@dataclass(frozen=True)
class LLMSettings:
    """How the judge runs. ``mode`` one of ``MODES``; ``model`` the model name; ``base_url`` the endpoint (``None``:
    ``OPENAI_BASE_URL`` or OpenAI's); ``timeout`` seconds per request; ``retries`` the client's retries per request;
    ``concurrency`` requests in flight (threads); ``batch`` SAUs per request; ``max_calls`` the budget of exchanges
    per run (replayed ones count too, so a replay decides exactly what the recorded run decided; ``None`` no limit);
    ``recordings`` the folder of recorded exchanges; ``evidence_chars`` the budget of code characters per SAU."""

    mode: str = "off"
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    concurrency: int = DEFAULT_CONCURRENCY
    batch: int = 1
    max_calls: int | None = None
    recordings: Path = DEFAULT_FOLDER
    evidence_chars: int = DEFAULT_EVIDENCE_CHARS
