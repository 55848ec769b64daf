"""sauverify: a static-analysis-first verifier of paper-reproduction code against Semantic Alignment Units."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("sauverify")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
