"""The operations table of the D2 rule (``rules/operations.yaml``), read once into ``extractors.formulas.Operations``.

The table is data: adding an array operation means adding a line to the YAML file. Forms are parsed with
``extractors.formulas.parse_formula`` (a syntax tree, never evaluated).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

import yaml

from extractors.formulas import Operation, Operations, Outputs, other_parts, parse_formula

if TYPE_CHECKING:
    import sympy


@dataclass(frozen=True)
class Implementation:
    """A mechanism a library realises (``implementations`` in ``operations.yaml``): its ``name``, the ``calls``
    (last name components) and configuration ``keys`` that realise it, the words of a configuration string value
    that select it (``values``), the formulas it computes (``forms``, sympy, over free symbols), the words one
    of which a claim must hold to be about it (``named_by``; empty: any claim), and the methods one of which live
    code must call on an object a call builds for that call to realise it (``runs``: an optimizer's ``step``;
    empty: the call alone)."""

    name: str
    calls: frozenset[str]
    keys: frozenset[str]
    values: frozenset[str]
    forms: tuple
    named_by: frozenset[str] = frozenset()
    runs: frozenset[str] = frozenset()


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("rules").joinpath("operations.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


@lru_cache(maxsize=1)
def load() -> Operations:
    """The packaged table. Raises ``ValueError`` naming the entry when the file is malformed (a packaging bug)."""
    return parse_table(_data())


@lru_cache(maxsize=1)
def implementations() -> tuple[Implementation, ...]:
    """The packaged library implementations. Raises ``ValueError`` naming the entry when one is malformed."""
    return parse_implementations(_data(), load())


@lru_cache(maxsize=1)
def output_part_names() -> tuple[frozenset[str], frozenset[str]]:
    """What the other outputs of a call returning several read as (``extractors.formulas.output_part``): (the
    function names of the other parts of a call the table's ``outputs`` list, ``topk_indices``; the names of the
    other parts of a library module's call, ``module_outputs``, which follow the called attribute's name:
    ``output`` and ``c_n`` in ``lstm_output``, ``lstm_c_n``)."""
    table = load()
    calls = frozenset(f"{name}_{part}" for name, entry in table.outputs.items() for part in other_parts(entry))
    return calls, frozenset(part for entry in table.module_outputs.values() for part in other_parts(entry))


def parse_implementations(data: dict, table: Operations | None = None) -> tuple[Implementation, ...]:
    """``Implementation`` records from the YAML mapping's ``implementations`` section, forms read through ``table``
    like claimed formulas. Raises ``ValueError`` naming
    the entry that is malformed (no forms, or a field that is not a list)."""
    found = []
    for name, entry in (data.get("implementations") or {}).items():
        if not isinstance(entry, dict) or not entry.get("forms"):
            raise ValueError(f"implementations.{name}: expected a mapping with forms")
        fields = {}
        for key in ("calls", "keys", "values", "named_by", "runs"):
            value = entry.get(key) or []
            if not isinstance(value, list):
                raise ValueError(f"implementations.{name}.{key}: expected a list")
            fields[key] = frozenset(str(v) for v in value)
        found.append(Implementation(name, fields["calls"], fields["keys"], fields["values"],
                                    tuple(parse_formula(f, table) for f in entry["forms"]),
                                    frozenset(v.lower() for v in fields["named_by"]), fields["runs"]))
    return tuple(found)


@dataclass(frozen=True)
class Switch:
    """A setting that makes a library or a general sampler run a mechanism (``switches`` in ``operations.yaml``): its
    ``name``, the ``settings`` (setting name -> the value that selects the mechanism) and the ``mechanisms`` it
    realises (keywords, compared with a SAU's mechanism keywords as tokens)."""

    name: str
    settings: tuple[tuple[str, float | str | bool], ...]
    mechanisms: tuple[str, ...]


@lru_cache(maxsize=1)
def switches() -> tuple[Switch, ...]:
    """The packaged switches. Raises ``ValueError`` naming the entry when one is malformed."""
    return parse_switches(_data())


def parse_switches(data: dict) -> tuple[Switch, ...]:
    """``Switch`` records from the YAML mapping's ``switches`` section. Raises ``ValueError`` naming the entry that
    is malformed (no settings mapping, or no mechanisms list)."""
    found = []
    for name, entry in (data.get("switches") or {}).items():
        settings = entry.get("settings") if isinstance(entry, dict) else None
        mechanisms = entry.get("mechanisms") if isinstance(entry, dict) else None
        if not isinstance(settings, dict) or not settings:
            raise ValueError(f"switches.{name}: expected a mapping with settings (name: value)")
        if not isinstance(mechanisms, list) or not mechanisms:
            raise ValueError(f"switches.{name}.mechanisms: expected a list")
        found.append(Switch(name, tuple(sorted((str(k), v) for k, v in settings.items())),
                            tuple(str(m) for m in mechanisms)))
    return tuple(found)


@dataclass(frozen=True)
class LibraryModel:
    """A family of library networks (``library_models`` in ``operations.yaml``): its ``name`` (what a spec's
    ``realised_by`` gives), the ``calls`` building one (last name components: ``vit_b_16``) and the prefixes of the
    model identifiers a factory builds one from (``names``: ``vit_`` for ``timm.create_model("vit_base_patch16")``,
    compared after an organisation's ``org/``)."""

    name: str
    calls: frozenset[str]
    names: tuple[str, ...]


@lru_cache(maxsize=1)
def library_models() -> tuple[tuple[LibraryModel, ...], frozenset[str]]:
    """The packaged library network families and the factory calls that build a network from its identifier
    (``library_model_factories``). Raises ``ValueError`` naming the entry when one is malformed."""
    return parse_library_models(_data())


def parse_library_models(data: dict) -> tuple[tuple[LibraryModel, ...], frozenset[str]]:
    """``LibraryModel`` records from the YAML mapping's ``library_models`` section, and its
    ``library_model_factories``. Raises ``ValueError`` naming the entry that is malformed (no calls list, or names
    that are not a list)."""
    found = []
    for name, entry in (data.get("library_models") or {}).items():
        calls = entry.get("calls") if isinstance(entry, dict) else None
        names = entry.get("names", []) if isinstance(entry, dict) else None
        if not isinstance(calls, list) or not calls:
            raise ValueError(f"library_models.{name}: expected a mapping with a calls list")
        if not isinstance(names, list):
            raise ValueError(f"library_models.{name}.names: expected a list")
        found.append(LibraryModel(str(name), frozenset(str(c) for c in calls), tuple(str(n).lower() for n in names)))
    factories = data.get("library_model_factories") or []
    if not isinstance(factories, list):
        raise ValueError("library_model_factories: expected a list")
    return tuple(found), frozenset(str(f) for f in factories)


@lru_cache(maxsize=1)
def named_losses() -> tuple[tuple[frozenset[str], sympy.Basic], ...]:
    """The packaged ``named_losses``: (the words that name a loss, its form over ``a``, ``b`` as sympy), in the
    table's order. Raises ``ValueError`` naming a malformed entry."""
    return parse_named_losses(_data())


def parse_named_losses(data: dict) -> tuple[tuple[frozenset[str], sympy.Basic], ...]:
    """``named_losses`` of the YAML mapping (``named_losses()``). Raises ``ValueError`` naming an entry whose form is
    not formula text."""
    found = []
    for words, form in (data.get("named_losses") or {}).items():
        if not isinstance(form, str):
            raise ValueError(f"named_losses.{words}: expected a formula over a and b")
        found.append((frozenset(str(words).lower().split()), parse_formula(form)))
    return tuple(found)


def parse_table(data: dict) -> Operations:
    """Build ``Operations`` from the YAML mapping (``operations``, ``einsum``, ``attributes``, ``modules``,
    ``activations``, ``placeholders``, ``identity_modules``, ``module_classes``, ``parameters``, ``outputs``,
    ``selections``, ``lookup_modules``, ``index_ranges``, ``network_parameters``, ``module_outputs``).

    Raises ``ValueError`` naming the entry that is malformed.
    """
    operations = {}
    for name, entry in (data.get("operations") or {}).items():
        if not isinstance(entry, dict):
            raise ValueError(f"operations.{name}: expected a mapping")
        count = entry.get("operands", 1)
        if count != "all" and not isinstance(count, int):
            raise ValueError(f"operations.{name}: operands must be a number or 'all'")
        form = parse_formula(entry["form"]) if "form" in entry else None
        layout = entry.get("layout") or []
        if not isinstance(layout, list) or not all(isinstance(d, list) for d in layout):
            raise ValueError(f"operations.{name}.layout: expected a list of dimension lists")
        defaults = entry.get("defaults") or {}
        if not isinstance(defaults, dict) or not all(isinstance(k, str) and len(k) == 1 and isinstance(v, str)
                                                     for k, v in defaults.items()):
            raise ValueError(f"operations.{name}.defaults: expected operand letter: formula text")
        operations[name] = Operation(name, None if count == "all" else count, dict(entry.get("keywords", {})),
                                     form, bool(entry.get("identity", False)),
                                     frozenset(tuple(int(d) for d in dims) for dims in layout),
                                     bool(entry.get("joins", False)),
                                     {letter: parse_formula(text) for letter, text in defaults.items()},
                                     bool(entry.get("learned", False)))
    einsum = {key.replace(" ", ""): parse_formula(form) for key, form in (data.get("einsum") or {}).items()}
    attributes = {key: parse_formula(form) for key, form in (data.get("attributes") or {}).items()}
    return Operations(operations, einsum, attributes, frozenset(data.get("modules") or ()),
                      frozenset(data.get("activations") or ()), frozenset(data.get("placeholders") or ()),
                      frozenset(data.get("identity_modules") or ()), _module_classes(data),
                      frozenset(data.get("parameters") or ()), _outputs(data), _selections(data),
                      frozenset(data.get("lookup_modules") or ()), frozenset(data.get("index_ranges") or ()),
                      frozenset(data.get("network_parameters") or ()), _outputs(data, "module_outputs"))


def _selections(data: dict) -> dict[str, tuple[tuple[str, object, str], ...]]:
    """The ``selections`` entries: call name -> ((keyword, literal value, the operation selected), ...), in the
    table's order. Raises ``ValueError`` naming a malformed entry (not a mapping of keywords to mappings of
    literal values to operation names)."""
    found: dict[str, tuple[tuple[str, object, str], ...]] = {}
    for name, entry in (data.get("selections") or {}).items():
        if not isinstance(entry, dict) or not all(isinstance(v, dict) for v in entry.values()):
            raise ValueError(f"selections.{name}: expected keyword: {{value: operation}} mappings")
        rows: list[tuple[str, object, str]] = []
        for keyword, choices in entry.items():
            for value, selected in choices.items():
                if not isinstance(value, (bool, int, float, str)) or not isinstance(selected, str):
                    raise ValueError(f"selections.{name}.{keyword}: expected literal values naming operations")
                rows.append((str(keyword), value, selected))
        found[str(name)] = tuple(rows)
    return found


def _outputs(data: dict, section: str = "outputs") -> dict[str, Outputs]:
    """The entries of an outputs ``section`` (``outputs``: by call name; ``module_outputs``: by module class):
    name -> ``Outputs``. ``parts`` lists two or more names, a nested list for a part that is itself a tuple, or
    says ``indexed`` (any number of parts alike); ``operands`` is a number or ``all``; ``value`` names the part
    that reads as the call itself (the first by default). Raises ``ValueError`` naming a malformed entry."""
    found = {}
    for name, entry in (data.get(section) or {}).items():
        parts, kept = entry.get("parts") if isinstance(entry, dict) else None, \
            entry.get("operands") if isinstance(entry, dict) else None
        read = () if parts == "indexed" else _part_names(parts)
        if read is None or not isinstance(kept, int) and kept != "all":
            raise ValueError(f"{section}.{name}: expected parts (two or more names, or indexed) and operands (a "
                             "number or all)")
        value = _position(read, entry.get("value")) if read else (0,)
        if value is None:
            raise ValueError(f"{section}.{name}.value: expected the name of one of its parts")
        found[name] = Outputs(read, None if kept == "all" else kept, value)
    return found


def _part_names(parts: object) -> tuple | None:
    """``parts`` of an outputs entry as a nested tuple of names, or ``None`` unless it is a list of two or more
    names or such lists."""
    if not isinstance(parts, list) or len(parts) < 2:
        return None
    read = tuple(_part_names(p) if isinstance(p, list) else str(p) if isinstance(p, str) else None for p in parts)
    return None if any(p is None for p in read) else read


def _position(parts: tuple, name: object) -> tuple[int, ...] | None:
    """The positions (outer first) of the part named ``name`` in the nested ``parts``; the first part's for
    ``None``; ``None`` when no part has that name."""
    if name is None:
        return (0,)
    if not isinstance(name, str):
        return None
    for index, part in enumerate(parts):
        if part == name:
            return (index,)
        inner = _position(part, name) if isinstance(part, tuple) else None
        if inner is not None:
            return (index, *inner)
    return None


def _module_classes(data: dict) -> dict[str, str | None]:
    """The ``module_classes`` mapping (class name -> operation name, ``None`` for the identity). Raises
    ``ValueError`` when it is not a mapping of names."""
    found = data.get("module_classes") or {}
    if not isinstance(found, dict) or not all(v is None or isinstance(v, str) for v in found.values()):
        raise ValueError("module_classes: expected a mapping of class names to operation names (or null)")
    return {str(k): v for k, v in found.items()}
