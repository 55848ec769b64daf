"""``verify --draft-spec``: a first draft of a paper spec in the project's format, compiled from SA-Bench claims.

The draft carries each claim's text as a YAML comment for the author, an empty ``statement`` to write in the
project's own words (SA-Bench's sentences must not go into the project), D1 atoms from the claim compiler, and D2-D4
checks from ``extractors.drafts``. An author then corrects every entry by hand; ``tests/test_specs.py`` holds the
result to the schema.
"""

from __future__ import annotations

from pathlib import Path

import sympy
import yaml

from extractors.claims import compile_d1
from extractors.drafts import draft_formulas, draft_glossary, draft_mechanism, draft_protocol, draft_steps
from sau.vocabulary import DIMENSIONS, Atom, AtomKind
from verifier.specs import SPEC_SCHEMA, PaperEntry, entry_for_slug, read_sabench


def draft_spec(sau_file: Path, entry: PaperEntry | None = None) -> str:
    """The draft spec text for the claims in ``sau_file`` (SA-Bench format). ``entry`` names the paper; by default
    the registry entry of the file's ``paper_id``. Raises ``SpecError`` on a bad file."""
    _, data = read_sabench(Path(sau_file))
    if entry is None:
        slug = data["paper_id"]
        entry = entry_for_slug(slug) or PaperEntry(slug, slug, str(data.get("paper_title", "")), "")
    header = {"schema": SPEC_SCHEMA, "benchmark_id": entry.benchmark_id, "slug": entry.slug, "title": entry.title,
              "venue": entry.venue}
    out = [yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=120), "saus:\n"]
    for dimension in DIMENSIONS:
        for claim in data.get(dimension, []):
            text = str(claim.get("claim", ""))
            out.append("".join(f"  # claim: {line}\n" for line in text.splitlines()))
            item = {"id": claim.get("id", ""), "dimension": dimension, "source": claim.get("source", ""),
                    "statement": "", **_checks(dimension, text)}
            dumped = yaml.safe_dump([item], sort_keys=False, allow_unicode=True, width=120)
            out.append("".join(f"  {line}\n" for line in dumped.splitlines()))
    return "".join(out)


def _checks(dimension: str, text: str) -> dict:
    if dimension == "D1":
        atoms = compile_d1(text).atoms
        return {"atoms": [_atom(a) for a in atoms]} if atoms else {"checkable": False, "note": ""}
    if dimension == "D2":
        formulas = draft_formulas(text)
        return {"formulas": formulas, "glossary": draft_glossary(formulas), "mechanism": draft_mechanism(text)}
    if dimension == "D3":
        return draft_protocol(text) or {"datasets": [], "baselines": [], "metrics": []}
    return {"steps": draft_steps(text), "strict": True}


def _atom(atom: Atom) -> dict:
    entry: dict = {"name": atom.name}
    if atom.aliases:
        entry["aliases"] = list(atom.aliases)
    values = [_plain(v, atom.percent) for v in atom.values]
    if atom.kind == AtomKind.SET:
        entry["set"] = values
    elif atom.kind == AtomKind.RANGE:
        entry["range"] = values
    elif len(values) == 1:
        entry["value"] = values[0]
    else:
        entry["values"] = values
    if atom.tolerance:
        entry["about"] = atom.tolerance
    return entry


def _plain(value, percent: bool):
    if isinstance(value, sympy.Basic):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v, False) for v in value]
    if percent and isinstance(value, (int, float)):
        return f"{value * 100:g}%"
    return value
