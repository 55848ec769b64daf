"""The operations table of the D2 rule (``rules/operations.yaml``), read once into ``extractors.formulas.Operations``.

The table is data: adding an array operation means adding a line to the YAML file. Forms are parsed with
``extractors.formulas.parse_formula`` (a syntax tree, never evaluated).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

from extractors.formulas import Operation, Operations, parse_formula


@lru_cache(maxsize=1)
def load() -> Operations:
    """The packaged table. Raises ``ValueError`` naming the entry when the file is malformed (a packaging bug)."""
    text = resources.files("rules").joinpath("operations.yaml").read_text(encoding="utf-8")
    return parse_table(yaml.safe_load(text))


def parse_table(data: dict) -> Operations:
    """Build ``Operations`` from the YAML mapping (``operations``, ``einsum``, ``attributes``, ``modules``).

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
        operations[name] = Operation(name, None if count == "all" else count, dict(entry.get("keywords", {})),
                                     form, bool(entry.get("identity", False)))
    einsum = {key.replace(" ", ""): parse_formula(form) for key, form in (data.get("einsum") or {}).items()}
    attributes = {key: parse_formula(form) for key, form in (data.get("attributes") or {}).items()}
    return Operations(operations, einsum, attributes, frozenset(data.get("modules") or ()),
                      frozenset(data.get("activations") or ()), frozenset(data.get("placeholders") or ()))
