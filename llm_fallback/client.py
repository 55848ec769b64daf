"""The LLM endpoint: any OpenAI-compatible chat-completions server, through the ``openai`` client.

Timeouts and retries are the client's own: ``max_retries`` retries connection errors, timeouts, 408, 409, 429 and
5xx answers with exponential backoff (0.5 s doubling, at most 8 s, with jitter) and honours ``Retry-After``
(openai-python's ``_base_client``). What is still failing after that becomes ``EndpointError``, which costs only
the SAUs of that request.
"""

from __future__ import annotations

from typing import Any, cast

import os

import openai

from llm_fallback.settings import LLMSettings

# Sent when OPENAI_API_KEY is unset: local OpenAI-compatible servers need no key, and the client refuses none.
_NO_KEY = "sauverify-no-key"


class EndpointError(Exception):
    """The endpoint did not give an answer (unreachable, timed out, refused); the message says which."""


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class ChatEndpoint:
    """One openai client for the run (thread-safe, shared by the worker threads)."""

    def __init__(self, settings: LLMSettings) -> None:
        self.client = openai.OpenAI(api_key=os.environ.get("OPENAI_API_KEY") or _NO_KEY,
                                    base_url=settings.base_url or os.environ.get("OPENAI_BASE_URL") or None,
                                    timeout=settings.timeout, max_retries=settings.retries)
        self.model = settings.model

    def complete(self, messages: list[dict], params: dict) -> str:
        """The answer text to ``messages``. Raises ``EndpointError`` when no answer came: unreachable, timed out, an
        HTTP error, or an HTTP 200 without a chat completion in it (an empty body, an HTML page from a proxy, JSON
        without ``choices[0].message.content``)."""
        try:
            # the messages are the chat format's plain dicts (llm_fallback.prompt), which the client's types describe
            response = self.client.chat.completions.create(model=self.model, messages=cast(Any, messages), **params)
        except openai.APITimeoutError:
            raise EndpointError("LLM endpoint timed out") from None
        except openai.APIConnectionError as error:
            raise EndpointError(f"LLM endpoint unreachable: {error}") from None
        except openai.APIStatusError as error:
            raise EndpointError(f"LLM endpoint answered HTTP {error.status_code}") from None
        except openai.OpenAIError as error:
            raise EndpointError(f"LLM endpoint error: {type(error).__name__}: {error}") from None
        except ValueError as error:  # HTTP 200 whose body is not JSON (empty, a proxy's HTML page, cut off)
            raise EndpointError(f"LLM endpoint answered with a body that is not JSON ({_first_line(error)})") from None
        if isinstance(response, str):  # the client hands over a body it could not read as JSON (text/html)
            raise EndpointError("LLM endpoint answered with a body that is not JSON (an HTML page or plain text)")
        choices = getattr(response, "choices", None)
        first = choices[0] if isinstance(choices, list) and choices else None
        message = getattr(first, "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            raise EndpointError("LLM endpoint answered without message content")
        return content
