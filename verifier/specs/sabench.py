"""SA-Bench's ``sau.json`` (``{"paper_id", "paper_title", "D1": [{"id", "claim", "source"}], ...}``), read and
compiled at load time: each dimension compiles claim prose into checks where it can (``verifier.dimensions``; today
the D1 claim compiler), and a claim it cannot compile carries no checks and is incomplete."""

from __future__ import annotations

import json
from pathlib import Path

from sau.vocabulary import SAU, Dimension, PaperSpec
from verifier.dimensions import DIMENSION_RULES
from verifier.specs.errors import SpecError
from verifier.specs.papers import entry_for_slug


class _DuplicateKey(ValueError):
    """A key given twice in one JSON object (its ``str`` is the key)."""


def _unique(pairs: list[tuple[str, object]]) -> dict:
    """``json``'s object hook refusing a key given twice."""
    found: dict = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


def read_sabench(path: Path) -> tuple[str, dict]:
    """Read an SA-Bench ``sau.json``: its text and its data, checked to be an object with a string ``paper_id`` and
    at least one of D1..D4. Raises ``SpecError`` naming the file (and the line, for a JSON syntax error or a key
    given twice in one object)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise SpecError(f"cannot read: {error.strerror or error}", path) from None
    except UnicodeDecodeError as error:
        raise SpecError(f"not valid UTF-8 (byte {error.start})", path) from None
    try:
        data = json.loads(text, object_pairs_hook=_unique)
    except json.JSONDecodeError as error:
        raise SpecError(f"not valid JSON: {error.msg}", path, error.lineno) from None
    except RecursionError:
        raise SpecError("not an SA-Bench sau.json: nested too deeply", path) from None
    except _DuplicateKey as error:  # json keeps the last silently; a claim list given twice loses claims
        key = str(error)
        lines = [n for n, line in enumerate(text.splitlines(), 1) if f'"{key}"' in line]
        raise SpecError(f"key {key!r} given twice in one object", path, lines[1] if len(lines) > 1 else None) \
            from None
    if not isinstance(data, dict) or not isinstance(data.get("paper_id"), str):
        raise SpecError("not an SA-Bench sau.json: expected an object with a string paper_id and D1..D4 lists",
                        path, 1)
    if not any(d in data for d in DIMENSION_RULES):
        raise SpecError(f"no claims: none of the keys {', '.join(DIMENSION_RULES)} is present", path, 1)
    return text, data


def load_sabench(path: Path) -> PaperSpec:
    """Load an SA-Bench ``sau.json`` and compile its claims. Raises ``SpecError`` naming the file and line."""
    text, data = read_sabench(path)
    saus = []
    seen: set[str] = set()
    for dimension in DIMENSION_RULES:
        claims = data.get(dimension, [])
        if not isinstance(claims, list):
            raise SpecError(f"{dimension} must be a list of claims", path, _json_line(text, f'"{dimension}"'))
        for position, claim in enumerate(claims):
            if not isinstance(claim, dict) or not isinstance(claim.get("id"), str) \
                    or not isinstance(claim.get("claim"), str):
                raise SpecError(f"{dimension}[{position}] needs string fields id and claim", path,
                                _json_line(text, str(claim.get("id", "")) if isinstance(claim, dict) else ""))
            if claim["id"] in seen:
                raise SpecError(f"duplicate claim id {claim['id']}", path, _json_line(text, claim["id"]))
            seen.add(claim["id"])
            saus.append(compile_claim(claim["id"], dimension, str(claim.get("source", "")), claim["claim"]))
    slug = data["paper_id"]
    known = entry_for_slug(slug)
    benchmark_id = known.benchmark_id if known else slug
    return PaperSpec(benchmark_id, slug, str(data.get("paper_title", "")), known.venue if known else "",
                     tuple(saus), str(path))


def compile_claim(claim_id: str, dimension: Dimension, source: str, text: str) -> SAU:
    """A SAU from claim prose, with the checks its dimension's compiler reads from it (none where it has no
    compiler: such a SAU is incomplete and never settles)."""
    compiler = DIMENSION_RULES[dimension].compile
    if compiler is None:
        return SAU(claim_id, dimension, source, text, complete=False)
    checks, complete = compiler(text)
    return SAU(claim_id, dimension, source, text, checks, complete=complete)


def _json_line(text: str, needle: str) -> int | None:
    if not needle:
        return None
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else None
