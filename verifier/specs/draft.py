"""``verify --draft-spec``: a first draft of a paper spec in the project's format, compiled from SA-Bench claims.

The draft carries each claim's text as a YAML comment for the author, an empty ``statement`` to write in the
project's own words (SA-Bench's sentences must not go into the project), and each dimension's drafted checks
(``verifier.dimensions``: D1 atoms from the claim compiler, D2-D4 from ``verifier.specs.prose``). An author then
corrects every entry by hand; ``tests/test_specs.py`` holds the result to the schema.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from verifier.dimensions import DIMENSION_RULES
from verifier.specs.papers import PaperEntry, entry_for_slug
from verifier.specs.project import SPEC_SCHEMA
from verifier.specs.sabench import read_sabench


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
    for dimension, rule in DIMENSION_RULES.items():
        for claim in data.get(dimension, []):
            text = str(claim.get("claim", ""))
            out.append("".join(f"  # claim: {line}\n" for line in text.splitlines()))
            item = {"id": claim.get("id", ""), "dimension": str(dimension), "source": claim.get("source", ""),
                    "statement": "", **rule.draft(text)}
            dumped = yaml.safe_dump([item], sort_keys=False, allow_unicode=True, width=120)
            out.append("".join(f"  {line}\n" for line in dumped.splitlines()))
    return "".join(out)
