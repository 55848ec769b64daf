"""A registered paper's spec by ID: the project's own when written, else SA-Bench's claims compiled at load time."""

from __future__ import annotations

from pathlib import Path

from sau.vocabulary import PaperSpec
from verifier.specs.errors import SpecError
from verifier.specs.papers import resolve, spec_path
from verifier.specs.project import load_project_spec
from verifier.specs.sabench import load_sabench


def load_paper(paper_id: str, sau_dir: Path | None = None) -> PaperSpec:
    """The spec of a registered paper: the project's own if written, else SA-Bench's claims from ``sau_dir``
    (``<sau_dir>/<slug>/sau.json``) compiled at load time. Raises ``SpecError``."""
    entry = resolve(paper_id)
    path = spec_path(entry)
    if path.is_file():
        return load_project_spec(path)
    if sau_dir is None:
        raise SpecError(f"no spec for {entry.benchmark_id} ({entry.slug}) in benchmark_data yet; pass --sau-dir DIR "
                        "(a folder laid out like SA-Bench's papers/, one <slug>/sau.json each) or --sau FILE")
    candidate = Path(sau_dir) / entry.slug / "sau.json"
    if not candidate.is_file():
        raise SpecError(f"no sau.json for {entry.slug} under {sau_dir}", candidate)
    spec = load_sabench(candidate)
    return PaperSpec(entry.benchmark_id, entry.slug, entry.title, entry.venue, spec.saus, spec.origin)
