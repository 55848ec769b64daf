"""The checks of each dimension in a project spec: how a SAU entry's check keys are read and validated.

One ``parse_*`` function per dimension, each with the same signature (``CheckParser``): it takes the SAU's YAML
mapping and an ``Entry`` locating it, and returns the SAU's ``checks`` dict (possibly empty), or raises
``SpecError`` naming the file, the line and the SAU. ``verifier.dimensions`` ties each to its dimension; the format
itself is documented in ``verifier.specs.project``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from extractors.formulas import FormulaError, parse_formula, symbol_names
from extractors.values import parse_value
from sau.vocabulary import Atom, AtomKind, Value
from verifier.specs.claims import number
from verifier.specs.errors import SpecError, key_line, unknown_keys


@dataclass(frozen=True)
class Entry:
    """Where a SAU entry is: the spec ``path``, the SAU's ``id``, the entry's ``line`` (or ``None``), and whether
    it is ``checkable``."""

    path: Path
    sau_id: str
    line: int | None
    checkable: bool

    def error(self, message: str, line: int | None = None) -> SpecError:
        """A ``SpecError`` about this SAU, at ``line`` or else the entry's line."""
        return SpecError(f"{self.sau_id}: {message}", self.path, line if line is not None else self.line)


CheckParser = Callable[[dict, Entry], dict]


def only(mapping: dict, allowed: set[str], what: str, entry: Entry) -> None:
    """Reject unknown keys: in YAML flow style a stray comma (``{meaning: f(a, b)}``) silently makes one."""
    unknown = sorted(str(k) for k in set(mapping) - allowed - {"__line__"})
    if unknown:
        raise SpecError(f"{what}: unknown key(s) {unknown_keys(unknown, allowed)} (quote values that hold commas or "
                        "braces)",
                        entry.path, key_line(mapping, unknown[0], mapping.get("__line__", entry.line)))


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


# -- D1 ------------------------------------------------------------------------------------------------------------
# a D1 claim's datasets, metrics and named components (scope), decided as D3 decides them
ELEMENT_KEYS = ("datasets", "metrics", "scope")
TRAINABLE_KEY = "trainable"  # the tensors a claim trains or freezes (rules.trainable)
SHAPES_KEY = "shapes"  # the dimensions a claim's parameters vary over (rules.granularity)
ATOM_KEYS = ("atoms", *ELEMENT_KEYS, "paired")


def parse_atoms(data: dict, entry: Entry) -> dict:
    """D1: ``atoms``, a non-empty list of ``{name, aliases, value | values | set | range, about, text, in, of,
    variants, complement}`` (``in``: a list of the places where the quantity is used, ``sau.vocabulary.Atom.used_in``; ``of``: a
    list of names of the total the values are shares of, ``sau.vocabulary.Atom.of``; ``variants``: beside
    ``values``, the variant each value belongs to, ``sau.vocabulary.Atom.variants``; ``complement``: the names of a
    quantity holding one minus the claimed fraction, ``sau.vocabulary.Atom.complement``); ``datasets``, ``metrics`` and
    ``scope``, the claim's datasets, metrics and named components as D3 lists them (``{name, aliases}``,
    ``rules.d1_elements``); and ``paired``,
    a phrase saying which variant each claimed value belongs to (a model, a run, a task) when the atoms cannot:
    it only makes a claim incomplete where some value matched (``rules.d1_numerical``)."""
    checks: dict[str, object] = {key: _named_elements(data[key], key, entry) for key in ELEMENT_KEYS if key in data}
    if "paired" in data:
        if not isinstance(data["paired"], str) or not data["paired"].strip() or "atoms" not in data:
            raise entry.error("paired must be a phrase, beside the atoms whose values it pairs",
                              key_line(data, "paired", entry.line))
        checks["paired"] = data["paired"].strip()
    if "atoms" not in data:
        return checks
    return {"atoms": atoms(data, entry), **checks}


def atoms(data: dict, entry: Entry) -> tuple[Atom, ...]:
    """The entry's ``atoms`` (D1's, and a D2 claim's values beside its formulas): a non-empty list of atom mappings
    (``parse_atoms``), each read into an ``Atom``. Raises ``SpecError`` at the list's or the atom's line."""
    if not isinstance(data["atoms"], list) or not data["atoms"]:
        raise entry.error("atoms must be a non-empty list", key_line(data, "atoms", entry.line))
    return tuple(_atom(a, entry) for a in data["atoms"])


def _atom(data: object, entry: Entry) -> Atom:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise SpecError(f"{entry.sau_id}: each atom is a mapping with a name", entry.path,
                        data.get("__line__") if isinstance(data, dict) else None)
    at = Entry(entry.path, entry.sau_id, data.get("__line__"), entry.checkable)  # errors point at the atom's line
    only(data, {"name", "aliases", "value", "values", "set", "range", "about", "text", "in", "of", "variants",
               "complement"}, f"{entry.sau_id}: atom {data['name']!r}", at)
    forms = [k for k in ("value", "values", "set", "range") if k in data]
    if len(forms) != 1:
        raise at.error(f"atom {data['name']!r} needs exactly one of value, values, set, range")
    form = forms[0]
    raw = [data[form]] if form == "value" or not isinstance(data[form], list) else data[form]
    if form == "range" and len(raw) != 2:
        raise at.error(f"range of {data['name']!r} needs [low, high]")
    parsed = [_spec_value(v, at, data["name"]) for v in raw]
    values = tuple(v for v, _ in parsed)
    kind = {"set": AtomKind.SET, "range": AtomKind.RANGE}.get(form, AtomKind.SCALAR)
    about = data.get("about", 0.0)
    if not isinstance(about, (int, float)) or not 0 <= about < 1:
        raise at.error("about must be a relative tolerance in [0, 1)")
    aliases = data.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
        raise at.error("aliases must be a list of names")
    used_in = data.get("in", [])
    if not isinstance(used_in, list) or not all(isinstance(u, str) and u.strip() for u in used_in):
        raise at.error("in must be a list of names (classes, functions, modules or called consumers)")
    of = data.get("of", [])
    if not isinstance(of, list) or not all(isinstance(o, str) and o.strip() for o in of):
        raise at.error("of must be a list of names (of the total the values are shares of)")
    variants = data.get("variants", [])
    if variants and (form != "values" or not _strings(variants) or len(variants) != len(values)):
        raise at.error("variants must be a list of names beside values, one per value")
    complement = data.get("complement", [])
    if complement and (not _strings(complement) or form != "value" or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in values)):
        raise at.error("complement must be a list of names, beside one value that is a fraction in [0, 1]")
    return Atom(data["name"], values, kind, tuple(aliases), float(about), any(p for _, p in parsed),
                str(data.get("text", "")), used_in=tuple(u.strip() for u in used_in), of=tuple(o.strip() for o in of),
                variants=tuple(v.strip() for v in variants), complement=tuple(c.strip() for c in complement))


def _spec_value(raw: object, at: Entry, name: str) -> tuple[Value, bool]:
    """(value, written as a percentage) of one claimed value: a number, a list, a number text (``1e-4``, ``10%``),
    an expression parsed without evaluation (``1/sqrt(d_model)``), or else the text itself."""
    if isinstance(raw, bool):
        return raw, False
    if isinstance(raw, (int, float)):
        return raw, False
    if isinstance(raw, list):
        return tuple(_spec_value(v, at, name)[0] for v in raw), False
    if isinstance(raw, str):
        parsed = number(raw)
        if parsed is not None:
            return parsed
        value = parse_value(raw)
        return (value, False) if value is not None and not isinstance(value, bool) else (raw.strip(), False)
    raise at.error(f"value {raw!r} of {name!r} is not a number, list or expression")


# -- D2 ------------------------------------------------------------------------------------------------------------
FORMULA_KEYS = ("formulas", "glossary", "mechanism", "atoms", *ELEMENT_KEYS, TRAINABLE_KEY, SHAPES_KEY, "realised_by")


def parse_formulas(data: dict, entry: Entry) -> dict:
    """D2: ``formulas`` (Python-syntax expressions, equations as ``lhs == rhs``; may be empty for a procedure), a
    ``glossary`` covering every symbol (``{symbol: {meaning, code_names}}``), ``mechanism`` keywords (at least
    one) naming what implements it, and optionally ``atoms``: the values the statement claims beside its formulas
    (a layer width, a temperature, a discount), written and decided as D1's atoms (``parse_atoms``), and
    ``datasets``, ``metrics`` and ``scope``: the named components, datasets and metrics it claims beside them
    (``{name, aliases}``: a Gumbel-Softmax output, a GRU), as D1 lists them (``rules.d1_elements``), and
    ``trainable``, the tensors it trains or freezes (``{name, aliases, trained, library}``, ``rules.trainable``),
    and ``shapes``, the dimensions its parameters vary over (``{name, aliases, per, other}``,
    ``rules.granularity``), and ``realised_by``, the library network families whose documented architecture
    realises the claim (``library_models`` of ``rules/operations.yaml``: a claim restating the standard Vision
    Transformer). Read when the SAU is checkable or gives any of these keys."""
    if not (entry.checkable or any(key in data for key in FORMULA_KEYS)):
        return {}
    claimed: dict[str, object] = {key: _named_elements(data[key], key, entry) for key in ELEMENT_KEYS if key in data}
    claimed |= {key: _named_elements(data[key], key, entry, _SETUP_KEYS[key]) for key in _SETUP_KEYS if key in data}
    if "atoms" in data:
        claimed["atoms"] = atoms(data, entry)
    formulas = data.get("formulas", [])
    if not _strings(formulas) and formulas != []:
        raise entry.error("formulas must be a list of expressions")
    glossary = data.get("glossary", {})
    if not isinstance(glossary, dict):
        raise entry.error("glossary must map each symbol to {meaning, code_names}")
    glossary = {k: v for k, v in glossary.items() if k != "__line__"}
    for symbol, meaning in glossary.items():
        if isinstance(meaning, dict):
            only(meaning, {"meaning", "code_names"}, f"{entry.sau_id}: glossary entry {symbol!r}", entry)
        if not isinstance(meaning, dict) or not isinstance(meaning.get("meaning"), str) \
                or not _strings(meaning.get("code_names", [])):
            raise entry.error(f"glossary entry {symbol!r} needs meaning (text) and code_names (list)")
    parsed = []
    for text in formulas:
        try:
            expression = parse_formula(text)
        except FormulaError as error:
            raise entry.error(f"formula {text!r}: {error}") from None
        missing = sorted(symbol_names(expression) - set(glossary))
        if missing:
            raise entry.error(f"formula {text!r} uses symbols the glossary lacks: {', '.join(missing)}")
        parsed.append(expression)
    mechanism = data.get("mechanism", [])
    if not _strings(mechanism) or not mechanism:
        raise entry.error("mechanism must be a non-empty list of keywords naming what implements it (a procedure "
                          "without a formula has mechanism keywords only)")
    if "realised_by" in data:
        if not _strings(data["realised_by"]) or not data["realised_by"]:
            raise entry.error("realised_by must be a non-empty list of library network families "
                              "(library_models in rules/operations.yaml)")
        claimed["realised_by"] = tuple(data["realised_by"])
    return {"formulas": tuple(formulas), "expressions": tuple(parsed),
            "glossary": {k: {"meaning": v["meaning"], "code_names": tuple(v.get("code_names", []))}
                         for k, v in glossary.items()},
            "mechanism": tuple(mechanism), **claimed}


# -- D3 ------------------------------------------------------------------------------------------------------------
PROTOCOL_KEYS = ("datasets", "baselines", "metrics", "scope")  # in this order, so that checks iterate alike


def parse_protocol(data: dict, entry: Entry) -> dict:
    """D3: ``datasets``, ``baselines``, ``metrics`` and ``scope``, each a non-empty list of ``{name, aliases}``
    (a bare string is a name without aliases)."""
    return {key: _named_elements(data[key], key, entry) for key in PROTOCOL_KEYS if key in data}


# a parameter's own set-up (rules.trainable, rules.granularity): each key beyond name and aliases, and its kind
_SETUP_KEYS = {TRAINABLE_KEY: {"trained": "flag", "library": "names"}, SHAPES_KEY: {"per": "dims", "other": "names"}}
_SETUP_KINDS = {"flag": "true or false", "names": "a list of names", "dims": "a non-empty list of dimension names"}


def _named_elements(value: object, key: str, entry: Entry, kinds: dict[str, str] | None = None) -> tuple[dict, ...]:
    """A non-empty list of ``{name, aliases}`` elements (a bare string is a name), ``aliases`` a list of names; with
    ``kinds`` (``_SETUP_KEYS``: ``trainable``'s ``{name, aliases, trained, library}``, ``shapes``' ``{name, aliases,
    per, other}``) each element a mapping that also holds those keys, each of its kind (``_SETUP_KINDS``: ``flag`` a
    boolean, ``dims`` a non-empty list of names, ``names`` an optional list of names). Raises ``SpecError`` at the
    element's line (the entry's when the list itself is wrong)."""
    kinds = kinds or {}
    if not isinstance(value, list) or not value:
        raise entry.error(f"{key} must be a non-empty list of {{{', '.join(('name', 'aliases', *kinds))}}}")
    needs = (f"a name, optional aliases (a list of names), and "
             + ", ".join(f"{k} ({_SETUP_KINDS[kind]})" for k, kind in kinds.items())) if kinds \
        else "a name and optional aliases (list)"
    elements = []
    for item in value:
        if isinstance(item, str) and not kinds:
            item = {"name": item}
        if isinstance(item, dict):
            only(item, {"name", "aliases", *kinds}, f"{entry.sau_id}: an element of {key}", entry)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip() \
                or not _strings(item.get("aliases", [])) or not all(_kind_holds(kind, item.get(k))
                                                                  for k, kind in kinds.items()):
            raise entry.error(f"each of {key} needs {needs}",
                              item.get("__line__", entry.line) if isinstance(item, dict) else None)
        elements.append({"name": item["name"], "aliases": tuple(item.get("aliases", [])),
                         **{k: item[k] if kind == "flag" else tuple(item.get(k, [])) for k, kind in kinds.items()}})
    return tuple(elements)


def _kind_holds(kind: str, value: object) -> bool:
    if kind == "flag":
        return isinstance(value, bool)
    if kind == "dims":
        return _strings(value) and bool(value)
    return value is None or _strings(value)


# -- D4 ------------------------------------------------------------------------------------------------------------
STEP_KEYS = ("steps", "strict")


def parse_steps(data: dict, entry: Entry) -> dict:
    """D4: ``steps`` (two or more ``{name, keywords, functions}`` in the claimed order) and ``strict`` (true: every
    consecutive pair is ordered; or a list of ``[i, j]`` step-index pairs, 0-based, that must hold). Read when the
    SAU is checkable or gives steps."""
    if not (entry.checkable or "steps" in data):
        return {}
    steps = data.get("steps")
    if not isinstance(steps, list) or len(steps) < 2:
        raise entry.error("steps must list at least two steps in order")
    parsed = []
    for step in steps:
        step_line = step.get("__line__", entry.line) if isinstance(step, dict) else entry.line
        if not isinstance(step, dict) or not isinstance(step.get("name"), str):
            raise entry.error("each step needs a name", step_line)
        at = Entry(entry.path, entry.sau_id, step_line, entry.checkable)
        only(step, {"name", "keywords", "functions"}, f"{entry.sau_id}: step {step['name']!r}", at)
        keywords, functions = step.get("keywords", []), step.get("functions", [])
        if not _strings(keywords) or not _strings(functions) or not (keywords or functions):
            raise entry.error(f"step {step['name']!r} needs keywords and/or functions (lists)", step_line)
        parsed.append({"name": step["name"], "keywords": tuple(keywords), "functions": tuple(functions)})
    strict = data.get("strict", True)
    if isinstance(strict, list):
        if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(i, int) and 0 <= i < len(steps) for i in p)
                   and p[0] != p[1] for p in strict):
            raise entry.error("strict pairs must be [i, j] step indices (0-based)")
        strict = tuple(tuple(p) for p in strict)
    elif not isinstance(strict, bool):
        raise entry.error("strict must be true, false or a list of [i, j] pairs")
    return {"steps": tuple(parsed), "strict": strict}
