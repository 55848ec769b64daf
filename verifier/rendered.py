"""The rendered-report cache: a finished run as the command line gave it (the report's text, the lines it said on
standard error, its exit code), kept under a key over everything it depends on, so that running ``verify`` again
on an unchanged repository with the same spec and options writes the same bytes without reading the spec or
parsing any file (issue 20: a fully cached run need not import the parsers at all).

The key (``extractors.cache.Cache.key``, which adds the tool's fingerprint) holds the repository's manifest (the
content hash of every file the index would read, the size and time of any other, every path the walk passes over
with its reason: ``extractors.cache.repository_manifest``), the spec's source (``verifier.specs.load.SpecSource.identity``: its
format, registry row and bytes), the repository as reports name it, and every option that changes what is read,
decided or written. Only runs whose output is a function of those alone are kept: a report rendered as text (not
the terminal table, whose layout follows the terminal), without the LLM judge (its answers come from elsewhere) and
without decisions files. The verdict cache (``verifier.run``) still serves every other run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from extractors.cache import Cache, repository_manifest
from sau.vocabulary import Dimension
from verifier.specs.load import SpecSource


@dataclass(frozen=True)
class RenderedRun:
    """One finished run: ``text`` the report as written (to standard output or ``--output``), ``warnings`` the input
    warnings' lines (said unless ``--quiet``), ``failures`` the lines saying a rule failed (always said), ``status``
    the exit code."""

    text: str
    warnings: tuple[str, ...]
    failures: tuple[str, ...]
    status: int


@dataclass(frozen=True)
class RunInputs:
    """What a run's output depends on besides the tool: ``repo`` the folder read, ``display`` the repository as
    reports name it, ``source`` the spec's source, ``fmt`` the output format, ``explain`` the reasons asked for,
    and the options of ``verifier.run.verify`` (``dimensions``, ``max_bytes``, ``exclude``, ``all_projects``)."""

    repo: Path
    display: str
    source: SpecSource
    fmt: str
    explain: bool
    dimensions: tuple[Dimension, ...]
    max_bytes: int
    exclude: tuple[str, ...]
    all_projects: bool

    def key(self, cache: Cache) -> str:
        """The cache key of this run's ``RenderedRun``. Raises ``OSError`` when the spec cannot be read and
        ``NotADirectoryError`` when ``repo`` is not a folder."""
        return cache.key("rendered", self.display, str(self.repo),
                         repository_manifest(self.repo, self.max_bytes, self.exclude, self.all_projects),
                         self.source.identity(), self.fmt, repr(self.explain), repr(self.dimensions),
                         str(self.max_bytes), repr(self.exclude), repr(self.all_projects))
