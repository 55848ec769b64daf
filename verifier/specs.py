"""Paper specs: the registry of paper IDs, the project's own YAML spec format, and SA-Bench's ``sau.json``.

Project spec (``benchmark_data/<benchmark_id>.yaml``)::

    schema: sauverify-spec/1
    benchmark_id: demo-001
    slug: demo
    title: ...
    venue: ...
    saus:
      - id: demo-D1-001                         # SA-Bench's claim id, so results compare
        dimension: D1
        source: Section 4.1
        statement: The optimiser is AdamW with learning rate 3e-4 ...   # our own words
        atoms:                                  # D1 checks
          - {name: learning_rate, aliases: [lr], value: 3e-4}
          - {name: n_layers, values: [6, 12]}   # one value per model size: each must be bound
          - {name: lr_grid, set: [0.1, 0.5]}    # a sweep
          - {name: dropout, range: [0.0, 0.3]}
          - {name: attn_scale, value: 1/sqrt(d_head), about: 0.05}   # "about": a relative tolerance
        complete: true                          # the checks cover the whole statement (default true)
      - id: demo-D2-001
        dimension: D2
        formulas: ["x / norm(x)"]               # Python syntax; equations as "lhs == rhs"
        glossary: {x: {meaning: a hidden vector, code_names: [x, h, hidden]}}   # every symbol
        mechanism: [normalize, l2_norm]         # what a function implementing it is called
      - id: demo-D3-001
        dimension: D3
        datasets: [{name: OpenWebText, aliases: [openwebtext, owt]}]
        baselines: [{name: GPT-2, aliases: [gpt2]}]
        metrics: [{name: perplexity, aliases: [ppl]}]
        scope: [{name: 0.5B model, aliases: [small]}]   # model sizes, tasks, settings covered
      - id: demo-D4-001
        dimension: D4
        steps:                                  # two or more, in the claimed order
          - {name: warmup, keywords: [warmup], functions: [linear_warmup]}
          - {name: cosine decay, keywords: [cosine], functions: [CosineAnnealingLR]}
        strict: true                            # or [[0, 1], ...]: the pairs whose order matters
      - id: demo-D1-009
        dimension: D1
        checkable: false                        # hardware, a theorem, a reported result
        note: hardware (8 GPUs)

Values are read with the claim compiler's number reader (``1e-4``, ``100k``, ``10%``) or, for symbolic values,
parsed as an expression tree (never evaluated); any other string is a text value (``activation: elu``). SA-Bench's ``sau.json`` (``{"paper_id", "paper_title", "D1":
[{"id", "claim", "source"}], ...}``) is compiled at load time by ``extractors.claims``. Every error is a
``SpecError`` naming the file and, where it has one, the line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from extractors.claims import compile_d1, number
from extractors.formulas import FormulaError, parse_formula, symbol_names
from extractors.values import parse_value
from sau.vocabulary import DIMENSIONS, SAU, Atom, AtomKind, PaperSpec

SPEC_SCHEMA = "sauverify-spec/1"


class SpecError(Exception):
    """A paper spec that cannot be used: ``file`` and ``line`` (1-based, or ``None``) locate the problem."""

    def __init__(self, message: str, file: str | Path | None = None, line: int | None = None) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.message = message
        where = self.file or ""
        if self.file and line:
            where += f":{line}"
        super().__init__(f"{where}: {message}" if where else message)


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
    data = yaml.safe_load(resources.files("benchmark_data").joinpath("registry.yaml").read_text(encoding="utf-8"))
    return tuple(PaperEntry(p["benchmark_id"], p["slug"], p["title"], p["venue"]) for p in data["papers"])


def resolve(paper_id: str) -> PaperEntry:
    """Find a paper by ``benchmark_id`` or slug, case-insensitively. Raises ``SpecError`` for an unknown ID."""
    wanted = paper_id.strip().lower()
    for entry in registry():
        if wanted in (entry.benchmark_id.lower(), entry.slug.lower()):
            return entry
    raise SpecError(f"unknown paper {paper_id!r}; `verify --list-papers` lists the known IDs")


def spec_path(entry: PaperEntry) -> Path:
    """Where the project's spec of ``entry`` lives (it may not exist yet)."""
    return Path(str(resources.files("benchmark_data").joinpath(f"{entry.benchmark_id}.yaml")))


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


# -- SA-Bench's sau.json ---------------------------------------------------------------------------------------
def entry_for_slug(slug: str) -> PaperEntry | None:
    """The registry entry whose SA-Bench slug is ``slug``, or ``None``."""
    return next((e for e in registry() if e.slug == slug), None)


def read_sabench(path: Path) -> tuple[str, dict]:
    """Read an SA-Bench ``sau.json``: its text and its data, checked to be an object with a string ``paper_id`` and
    at least one of D1..D4. Raises ``SpecError`` naming the file (and the line, for a JSON syntax error)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise SpecError(f"cannot read: {error.strerror or error}", path) from None
    except UnicodeDecodeError as error:
        raise SpecError(f"not valid UTF-8 (byte {error.start})", path) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecError(f"not valid JSON: {error.msg}", path, error.lineno) from None
    except RecursionError:
        raise SpecError("not an SA-Bench sau.json: nested too deeply", path) from None
    if not isinstance(data, dict) or not isinstance(data.get("paper_id"), str):
        raise SpecError("not an SA-Bench sau.json: expected an object with a string paper_id and D1..D4 lists",
                        path, 1)
    if not any(d in data for d in DIMENSIONS):
        raise SpecError(f"no claims: none of the keys {', '.join(DIMENSIONS)} is present", path, 1)
    return text, data


def load_sabench(path: Path) -> PaperSpec:
    """Load an SA-Bench ``sau.json`` and compile its claims. Raises ``SpecError`` naming the file and line."""
    text, data = read_sabench(path)
    saus = []
    seen: set[str] = set()
    for dimension in DIMENSIONS:
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


def compile_claim(claim_id: str, dimension: str, source: str, text: str) -> SAU:
    """A SAU from claim prose: D1 claims get compiled atoms; other dimensions carry no checks yet."""
    if dimension != "D1":
        return SAU(claim_id, dimension, source, text, complete=False)
    compiled = compile_d1(text)
    return SAU(claim_id, dimension, source, text, {"atoms": compiled.atoms, "compiler_notes": compiled.notes},
               complete=compiled.complete)


def _json_line(text: str, needle: str) -> int | None:
    if not needle:
        return None
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else None


# -- the project's YAML spec -------------------------------------------------------------------------------------
class _LineLoader(yaml.SafeLoader):
    """A safe loader that keeps each mapping's line as ``__line__``."""


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    mapping = loader.construct_mapping(node, deep=True)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def load_project_spec(path: Path) -> PaperSpec:
    """Load and validate a project spec file (format in the module docstring). Raises ``SpecError``."""
    try:
        data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_LineLoader)  # noqa: S506 - safe subclass
    except OSError as error:
        raise SpecError(f"cannot read: {error.strerror or error}", path) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SpecError(f"not valid YAML: {getattr(error, 'problem', error)}", path,
                        mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise SpecError("a spec is a mapping with benchmark_id, slug, title and saus", path, 1)
    for key in ("benchmark_id", "slug", "saus"):
        if key not in data:
            raise SpecError(f"missing key {key!r}", path, data.get("__line__"))
    if not isinstance(data["saus"], list):
        raise SpecError("saus must be a list", path, data.get("__line__"))
    saus = []
    seen: set[str] = set()
    for entry in data["saus"]:
        sau = _sau(entry, path)
        if sau.id in seen:
            raise SpecError(f"duplicate SAU id {sau.id}", path, entry.get("__line__"))
        seen.add(sau.id)
        saus.append(sau)
    return PaperSpec(str(data["benchmark_id"]), str(data["slug"]), str(data.get("title", "")),
                     str(data.get("venue", "")), tuple(saus), str(path))


# Keys a SAU entry may have: common ones, and the checks of each dimension (module docstring).
_COMMON_KEYS = {"id", "dimension", "source", "statement", "checkable", "note", "complete", "__line__"}
_CHECK_KEYS = {
    "D1": {"atoms"},
    "D2": {"formulas", "glossary", "mechanism"},
    "D3": {"datasets", "baselines", "metrics", "scope"},
    "D4": {"steps", "strict"},
}


def _sau(entry: object, path: Path) -> SAU:
    if not isinstance(entry, dict):
        raise SpecError("each SAU is a mapping", path)
    line = entry.get("__line__")
    for key in ("id", "dimension"):
        if not isinstance(entry.get(key), str):
            raise SpecError(f"SAU needs a string {key!r}", path, line)
    sau_id, dimension = entry["id"], entry["dimension"]
    if dimension not in DIMENSIONS:
        raise SpecError(f"{sau_id}: dimension must be one of {', '.join(DIMENSIONS)}", path, line)
    unknown = sorted(set(entry) - _COMMON_KEYS - _CHECK_KEYS[dimension])
    if unknown:
        raise SpecError(f"{sau_id}: unknown key(s) for a {dimension} SAU: {', '.join(unknown)}", path, line)
    checkable = entry.get("checkable", True)
    if not isinstance(checkable, bool):
        raise SpecError(f"{sau_id}: checkable must be true or false", path, line)
    if not checkable and not entry.get("note"):
        raise SpecError(f"{sau_id}: a SAU marked checkable: false needs a note saying why", path, line)
    if checkable and not any(k in entry for k in _CHECK_KEYS[dimension]):
        raise SpecError(f"{sau_id}: give its checks ({', '.join(sorted(_CHECK_KEYS[dimension]))}) or mark it "
                        "checkable: false with a note", path, line)
    checks: dict = {}
    if dimension == "D1" and "atoms" in entry:
        if not isinstance(entry["atoms"], list) or not entry["atoms"]:
            raise SpecError(f"{sau_id}: atoms must be a non-empty list", path, line)
        checks["atoms"] = tuple(_atom(a, path, sau_id) for a in entry["atoms"])
    elif dimension == "D2" and (checkable or set(entry) & _CHECK_KEYS["D2"]):
        checks.update(_formula_checks(entry, path, sau_id, line))
    elif dimension == "D3":
        for key in _CHECK_KEYS["D3"]:
            if key in entry:
                checks[key] = _named_elements(entry[key], path, sau_id, key, line)
    elif dimension == "D4" and (checkable or "steps" in entry):
        checks.update(_step_checks(entry, path, sau_id, line))
    return SAU(sau_id, dimension, str(entry.get("source", "")), str(entry.get("statement", "")), checks,
               complete=bool(entry.get("complete", True)), checkable=checkable, note=str(entry.get("note", "")))


def _only(mapping: dict, allowed: set[str], what: str, path: Path, line: int | None) -> None:
    """Reject unknown keys: in YAML flow style a stray comma (``{meaning: f(a, b)}``) silently makes one."""
    unknown = sorted(str(k) for k in set(mapping) - allowed - {"__line__"})
    if unknown:
        raise SpecError(f"{what}: unknown key(s) {', '.join(unknown)} (quote values that hold commas or braces)",
                        path, mapping.get("__line__", line))


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def _formula_checks(entry: dict, path: Path, sau_id: str, line: int | None) -> dict:
    """D2: ``formulas`` (Python-syntax expressions, equations as ``lhs == rhs``; may be empty for a procedure), a
    ``glossary`` covering every symbol (``{symbol: {meaning, code_names}}``), and ``mechanism`` keywords (at least
    one) naming what implements it."""
    formulas = entry.get("formulas", [])
    if not _strings(formulas) and formulas != []:
        raise SpecError(f"{sau_id}: formulas must be a list of expressions", path, line)
    glossary = entry.get("glossary", {})
    if not isinstance(glossary, dict):
        raise SpecError(f"{sau_id}: glossary must map each symbol to {{meaning, code_names}}", path, line)
    glossary = {k: v for k, v in glossary.items() if k != "__line__"}
    for symbol, meaning in glossary.items():
        if isinstance(meaning, dict):
            _only(meaning, {"meaning", "code_names"}, f"{sau_id}: glossary entry {symbol!r}", path, line)
        if not isinstance(meaning, dict) or not isinstance(meaning.get("meaning"), str) \
                or not _strings(meaning.get("code_names", [])):
            raise SpecError(f"{sau_id}: glossary entry {symbol!r} needs meaning (text) and code_names (list)", path,
                            line)
    parsed = []
    for text in formulas:
        try:
            expression = parse_formula(text)
        except FormulaError as error:
            raise SpecError(f"{sau_id}: formula {text!r}: {error}", path, line) from None
        missing = sorted(symbol_names(expression) - set(glossary))
        if missing:
            raise SpecError(f"{sau_id}: formula {text!r} uses symbols the glossary lacks: {', '.join(missing)}",
                            path, line)
        parsed.append(expression)
    mechanism = entry.get("mechanism", [])
    if not _strings(mechanism) or not mechanism:
        raise SpecError(f"{sau_id}: mechanism must be a non-empty list of keywords naming what implements it "
                        "(a procedure without a formula has mechanism keywords only)", path, line)
    return {"formulas": tuple(formulas), "expressions": tuple(parsed),
            "glossary": {k: {"meaning": v["meaning"], "code_names": tuple(v.get("code_names", []))}
                         for k, v in glossary.items()},
            "mechanism": tuple(mechanism)}


def _named_elements(value: object, path: Path, sau_id: str, key: str, line: int | None) -> tuple[dict, ...]:
    """D3 protocol elements: a list of ``{name, aliases}`` (a bare string is a name without aliases)."""
    if not isinstance(value, list) or not value:
        raise SpecError(f"{sau_id}: {key} must be a non-empty list of {{name, aliases}}", path, line)
    elements = []
    for item in value:
        if isinstance(item, str):
            item = {"name": item}
        if isinstance(item, dict):
            _only(item, {"name", "aliases"}, f"{sau_id}: an element of {key}", path, line)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                or not _strings(item.get("aliases", [])):
            raise SpecError(f"{sau_id}: each of {key} needs a name and optional aliases (list)", path,
                            item.get("__line__", line) if isinstance(item, dict) else line)
        elements.append({"name": item["name"], "aliases": tuple(item.get("aliases", []))})
    return tuple(elements)


def _step_checks(entry: dict, path: Path, sau_id: str, line: int | None) -> dict:
    """D4: ``steps`` (two or more ``{name, keywords, functions}`` in the claimed order) and ``strict`` (true: every
    consecutive pair is ordered; or a list of ``[i, j]`` step-index pairs, 0-based, that must hold)."""
    steps = entry.get("steps")
    if not isinstance(steps, list) or len(steps) < 2:
        raise SpecError(f"{sau_id}: steps must list at least two steps in order", path, line)
    parsed = []
    for step in steps:
        step_line = step.get("__line__", line) if isinstance(step, dict) else line
        if not isinstance(step, dict) or not isinstance(step.get("name"), str):
            raise SpecError(f"{sau_id}: each step needs a name", path, step_line)
        _only(step, {"name", "keywords", "functions"}, f"{sau_id}: step {step['name']!r}", path, step_line)
        keywords, functions = step.get("keywords", []), step.get("functions", [])
        if not _strings(keywords) or not _strings(functions) or not (keywords or functions):
            raise SpecError(f"{sau_id}: step {step['name']!r} needs keywords and/or functions (lists)", path,
                            step_line)
        parsed.append({"name": step["name"], "keywords": tuple(keywords), "functions": tuple(functions)})
    strict = entry.get("strict", True)
    if isinstance(strict, list):
        if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(i, int) and 0 <= i < len(steps) for i in p)
                   and p[0] != p[1] for p in strict):
            raise SpecError(f"{sau_id}: strict pairs must be [i, j] step indices (0-based)", path, line)
        strict = tuple(tuple(p) for p in strict)
    elif not isinstance(strict, bool):
        raise SpecError(f"{sau_id}: strict must be true, false or a list of [i, j] pairs", path, line)
    return {"steps": tuple(parsed), "strict": strict}


def _atom(entry: object, path: Path, sau_id: str) -> Atom:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise SpecError(f"{sau_id}: each atom is a mapping with a name", path,
                        entry.get("__line__") if isinstance(entry, dict) else None)
    line = entry.get("__line__")
    _only(entry, {"name", "aliases", "value", "values", "set", "range", "about", "text"},
          f"{sau_id}: atom {entry['name']!r}", path, line)
    forms = [k for k in ("value", "values", "set", "range") if k in entry]
    if len(forms) != 1:
        raise SpecError(f"{sau_id}: atom {entry['name']!r} needs exactly one of value, values, set, range", path,
                        line)
    form = forms[0]
    raw = [entry[form]] if form == "value" or not isinstance(entry[form], list) else entry[form]
    if form == "range" and len(raw) != 2:
        raise SpecError(f"{sau_id}: range of {entry['name']!r} needs [low, high]", path, line)
    parsed = [_spec_value(v, path, line, sau_id, entry["name"]) for v in raw]
    values = tuple(v for v, _ in parsed)
    kind = {"set": AtomKind.SET, "range": AtomKind.RANGE}.get(form, AtomKind.SCALAR)
    about = entry.get("about", 0.0)
    if not isinstance(about, (int, float)) or not 0 <= about < 1:
        raise SpecError(f"{sau_id}: about must be a relative tolerance in [0, 1)", path, line)
    aliases = entry.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise SpecError(f"{sau_id}: aliases must be a list of names", path, line)
    return Atom(entry["name"], values, kind, tuple(aliases), float(about), any(p for _, p in parsed),
                str(entry.get("text", "")))


def _spec_value(raw: object, path: Path, line: int | None, sau_id: str, name: str):
    if isinstance(raw, bool):
        return raw, False
    if isinstance(raw, (int, float)):
        return raw, False
    if isinstance(raw, list):
        return tuple(_spec_value(v, path, line, sau_id, name)[0] for v in raw), False
    if isinstance(raw, str):
        parsed = number(raw)
        if parsed is not None:
            return parsed
        value = parse_value(raw)
        return (value, False) if value is not None and not isinstance(value, bool) else (raw.strip(), False)
    raise SpecError(f"{sau_id}: value {raw!r} of {name!r} is not a number, list or expression", path, line)
