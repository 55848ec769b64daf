"""The registry of known papers (``benchmark_data/registry.yaml``): paper IDs, SA-Bench slugs, titles, venues."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from verifier.specs.errors import SpecError


@dataclass(frozen=True)
class PaperEntry:
    """One registry row: ``benchmark_id`` (``iclr25-008``), ``slug`` (``ngpt``), title and venue."""

    benchmark_id: str
    slug: str
    title: str
    venue: str


@lru_cache(maxsize=1)
def registry() -> tuple[PaperEntry, ...]:
    """All known papers, from ``benchmark_data/registry.yaml``."""
    text = resources.files("benchmark_data").joinpath("registry.yaml").read_text(encoding="utf-8")
    # libyaml's loader when PyYAML was built with it: the same document, read ten times faster, on every run
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return tuple(PaperEntry(p["benchmark_id"], p["slug"], p["title"], p["venue"]) for p in data["papers"])


def resolve(paper_id: str) -> PaperEntry:
    """Find a paper by ``benchmark_id`` or slug, case-insensitively. Raises ``SpecError`` for an unknown ID."""
    wanted = paper_id.strip().lower()
    for entry in registry():
        if wanted in (entry.benchmark_id.lower(), entry.slug.lower()):
            return entry
    raise SpecError(f"unknown paper {paper_id!r}; `verify --list-papers` lists the known IDs")


def entry_for_slug(slug: str) -> PaperEntry | None:
    """The registry entry whose SA-Bench slug is ``slug``, or ``None``."""
    return next((e for e in registry() if e.slug == slug), None)


def spec_path(entry: PaperEntry) -> Path:
    """Where the project's spec of ``entry`` lives (it may not exist yet)."""
    return Path(str(resources.files("benchmark_data").joinpath(f"{entry.benchmark_id}.yaml")))
