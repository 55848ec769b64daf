"""A run's spec: where it comes from (``SpecSource``: a registered paper's file, a SA-Bench ``sau.json`` or a
project spec named on the command line), and reading it. Locating reads no spec, so that a run whose rendered
report is cached (``verifier.rendered``) never parses one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sau.vocabulary import PaperSpec
from verifier.specs.errors import SpecError
from verifier.specs.papers import PaperEntry, resolve, spec_path

PROJECT, SABENCH = "project", "sabench"  # the two spec formats: the project's YAML schema, SA-Bench's sau.json


@dataclass(frozen=True)
class SpecSource:
    """Where a spec is read from: ``path`` the file, ``kind`` ``PROJECT`` or ``SABENCH``, ``entry`` the registry
    row a SA-Bench claim file is loaded under (its id, slug, title and venue; ``None`` for a file named directly)."""

    path: Path
    kind: str
    entry: PaperEntry | None = None

    def identity(self) -> bytes:
        """What the spec's content depends on, for cache keys: the format, the registry row and the file's bytes.
        Raises ``OSError`` when the file cannot be read."""
        return f"{self.kind}\0{self.entry!r}\0".encode() + self.path.read_bytes()

    def load(self) -> PaperSpec:
        """Read and check the spec (``verifier.specs.project``, ``verifier.specs.sabench``). Raises ``SpecError``
        naming the file and, where it has one, the line."""
        if self.kind == PROJECT:
            from verifier.specs.project import load_project_spec  # the check parsers: libcst, sympy
            return load_project_spec(self.path)
        from verifier.specs.sabench import load_sabench
        spec = load_sabench(self.path)
        if self.entry is None:
            return spec
        return PaperSpec(self.entry.benchmark_id, self.entry.slug, self.entry.title, self.entry.venue, spec.saus,
                         spec.origin)


def locate_paper(paper_id: str, sau_dir: Path | None = None) -> SpecSource:
    """Where a registered paper's spec is: the project's own file if written, else SA-Bench's claims in
    ``<sau_dir>/<slug>/sau.json``. Raises ``SpecError`` for an unknown paper or a missing file."""
    entry = resolve(paper_id)
    path = spec_path(entry)
    if path.is_file():
        return SpecSource(path, PROJECT)
    if sau_dir is None:
        raise SpecError(f"no spec for {entry.benchmark_id} ({entry.slug}) in benchmark_data yet; pass --sau-dir DIR "
                        "(a folder laid out like SA-Bench's papers/, one <slug>/sau.json each) or --sau FILE")
    candidate = Path(sau_dir) / entry.slug / "sau.json"
    if not candidate.is_file():
        raise SpecError(f"no sau.json for {entry.slug} under {sau_dir}", candidate)
    return SpecSource(candidate, SABENCH, entry)


def load_paper(paper_id: str, sau_dir: Path | None = None) -> PaperSpec:
    """The spec of a registered paper (``locate_paper``), read. Raises ``SpecError``."""
    return locate_paper(paper_id, sau_dir).load()
