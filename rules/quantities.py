"""Quantity data for D1 (``rules/quantities.yaml``): quantities code works out as a product of settings, and
families of interchangeable library choices.

A global batch is rarely bound as such: code binds a per-device batch and an accumulation count, and the launcher a
device count. A claim about the product matches when the factors multiply out; one factor alone is neither a match
nor a drift. A claimed library choice (``AdamW``, ``SiLU``) is a member of a family; live code calling another
member and never the claimed one is a drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from sau.vocabulary import Atom


@dataclass(frozen=True)
class Product:
    """A quantity that is the product of settings: ``factors`` and ``optional`` are tuples of groups, each a tuple
    of code names for one factor (matched through ``rules.names``)."""

    names: frozenset[str]
    factors: tuple[tuple[str, ...], ...]
    optional: tuple[tuple[str, ...], ...]


@lru_cache(maxsize=1)
def _data() -> tuple[tuple[Product, ...], dict[str, frozenset[str]], frozenset[str], dict[str, str],
                     dict[str, dict[str, object]]]:
    """Load ``rules/quantities.yaml`` once. Raises ``yaml.YAMLError``/``KeyError``/``TypeError`` if the packaged
    file is broken."""
    data = yaml.safe_load(resources.files("rules").joinpath("quantities.yaml").read_text(encoding="utf-8"))
    products = tuple(Product(frozenset(n.lower() for n in entry["names"]),
                             tuple(tuple(group) for group in entry["factors"]),
                             tuple(tuple(group) for group in entry.get("optional", ())))
                     for entry in data["products"])
    synonyms = {_plain(word): _plain(group[0]) for group in data["choice_synonyms"] for word in group}
    families = {name: frozenset(synonyms.get(_plain(m), _plain(m)) for m in members)
                for name, members in data["choice_families"].items()}
    consumers = frozenset(_plain(c) for c in data["consumers"])
    defaults = {_plain(callee): {name: tuple(v) if isinstance(v, list) else v for name, v in params.items()}
                for callee, params in data["library_defaults"].items()}
    return products, families, consumers, synonyms, defaults


def product_of(atom: Atom) -> Product | None:
    """The product quantity the atom's name or one of its aliases names (``global_batch_size``), or ``None``."""
    written = {n.lower() for n in (atom.name, *atom.aliases)}
    return next((p for p in _data()[0] if p.names & written), None)


def choice_key(text: str) -> str:
    """The comparison key of a library choice: lower-case, alphanumerics only (``Leaky_ReLU`` -> ``leakyrelu``),
    then its canonical spelling (``bf16`` -> ``bfloat16``; ``choice_synonyms`` in ``rules/quantities.yaml``)."""
    plain = _plain(text)
    return _data()[3].get(plain, plain)


def _plain(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def family_of(choice: str) -> frozenset[str]:
    """The keys of the family the choice belongs to (``AdamW`` -> the optimizers), or an empty set."""
    key = choice_key(choice)
    return next((members for members in _data()[1].values() if key in members), frozenset())


def is_consumer(callee: str) -> bool:
    """Whether a library callee (``torch.optim.AdamW``) is a known consumer of settings (``consumers`` in
    ``rules/quantities.yaml``), by its last component."""
    return _plain(callee.rsplit(".", 1)[-1]) in _data()[2]


def library_defaults(callee: str) -> dict[str, object]:
    """The defaults of a library consumer's parameters (``library_defaults`` in ``rules/quantities.yaml``) by its
    last component (``torch.optim.AdamW`` -> ``{"eps": 1e-08, ...}``); empty for other callees."""
    return _data()[4].get(_plain(callee.rsplit(".", 1)[-1]), {})
