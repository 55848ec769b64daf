"""sauverify: a static-analysis-first verifier of paper-reproduction code against Semantic Alignment Units."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _version() -> str:
    """The installed distribution's version, or ``0+unknown`` when running from a source tree that was not
    installed. Looked up on first use: ``importlib.metadata`` costs a noticeable part of ``verify-stubs``'s
    startup, which never needs the version."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("sauverify")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> str:
    """``verifier.__version__`` (str), computed on first access (PEP 562). Raises ``AttributeError`` for any other
    unknown name."""
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
