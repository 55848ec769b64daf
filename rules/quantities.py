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


_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # words of an identifier or text, camelCase split


@dataclass(frozen=True)
class Product:
    """A quantity that is the product of settings: ``factors`` and ``optional`` are tuples of groups, each a tuple
    of code names for one factor (matched through ``rules.names``)."""

    names: frozenset[str]
    factors: tuple[tuple[str, ...], ...]
    optional: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class _Data:
    """``rules/quantities.yaml`` in the shapes the lookups need (keys as ``_plain`` gives them)."""

    products: tuple[Product, ...]
    families: dict[str, frozenset[str]]  # family name -> member choice keys
    consumers: frozenset[str]
    synonyms: dict[str, str]  # spelling -> canonical choice key
    defaults: dict[str, dict[str, object]]
    realisers: dict[str, frozenset[str]]  # choice key -> callee keys that realise it (``choice_calls``)
    custom: dict[str, frozenset[str]]  # choice key -> callee keys building its family's choice from a formula
    atom_words: dict[str, frozenset[str]]  # choice key -> the words an atom name naming its family may hold
    callee_words: dict[str, frozenset[str]]  # choice key -> the words an own function realising it may hold
    markers: dict[str, frozenset[str]]  # choice key -> callee keys whose call in a custom formula realises it
    targets: dict[str, tuple[str, ...]]  # choice key -> the parameters its calls are given, the default first
    resolution: frozenset[str]  # callee keys of image transforms that set the data's resolution
    shape_factories: frozenset[str]  # callee keys of calls whose positional arguments are a tensor's sizes


@lru_cache(maxsize=1)
def _data() -> _Data:
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
    realisers: dict[str, frozenset[str]] = {}
    custom: dict[str, frozenset[str]] = {}
    atom_words: dict[str, frozenset[str]] = {}
    callee_words: dict[str, frozenset[str]] = {}
    markers: dict[str, frozenset[str]] = {}
    targets: dict[str, tuple[str, ...]] = {}
    for name, entry in data["choice_calls"].items():
        built = frozenset(_plain(c) for c in entry["calls"].get("custom", ()))
        members = {_plain(choice): frozenset(_plain(c) for c in callees)
                   for choice, callees in entry["calls"].items() if choice != "custom"}
        families[name] = frozenset(members)
        realisers.update(members)
        custom.update(dict.fromkeys(members, built))
        words = frozenset(w.lower() for w in entry["atom_words"])
        atom_words.update(dict.fromkeys(members, words))
        callee_words.update(dict.fromkeys(members, words | {w.lower() for w in entry["callee_words"]}))
        markers.update({_plain(choice): frozenset(_plain(c) for c in callees)
                        for choice, callees in entry.get("formula_markers", {}).items()})
        targets.update(dict.fromkeys(members, tuple(t.lower() for t in entry.get("targets", ()))))
    consumers = frozenset(_plain(c) for c in data["consumers"])
    defaults = {_plain(callee): {name: tuple(v) if isinstance(v, list) else v for name, v in params.items()}
                for callee, params in data["library_defaults"].items()}
    resolution = frozenset(_plain(c) for c in data["resolution_transforms"])
    shapes = frozenset(_plain(c) for c in data["shape_factories"])
    return _Data(products, families, consumers, synonyms, defaults, realisers, custom, atom_words, callee_words,
                 markers, targets, resolution, shapes)


def product_of(atom: Atom) -> Product | None:
    """The product quantity the atom's name or one of its aliases names (``global_batch_size``), or ``None``."""
    written = {n.lower() for n in (atom.name, *atom.aliases)}
    return next((p for p in _data().products if p.names & written), None)


def choice_key(text: str) -> str:
    """The comparison key of a library choice: lower-case, alphanumerics only (``Leaky_ReLU`` -> ``leakyrelu``),
    then its canonical spelling (``bf16`` -> ``bfloat16``; ``choice_synonyms`` in ``rules/quantities.yaml``)."""
    plain = _plain(text)
    return _data().synonyms.get(plain, plain)


def _plain(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


@lru_cache(maxsize=4096)  # asked at every comparison of a claimed text: pure on the text once the data is loaded
def claimed_key(choice: str) -> str:
    """The key of a claimed choice: its ``choice_key``, except that a phrase naming exactly one member of a family
    realised by calls reads as that member (``cosine_annealing``, ``linear_warmup_cosine`` -> ``cosine``), unless
    the phrase is itself a realising callee (``CosineAnnealingLR`` stays as written, matching only itself)."""
    key = choice_key(choice)
    data = _data()
    if key in data.realisers or any(key in callees for callees in data.realisers.values()):
        return key
    named = {member for members in data.families.values() if members & data.realisers.keys()
             for member in _members_named(choice, members)}
    return named.pop() if len(named) == 1 else key


def family_of(choice: str) -> frozenset[str]:
    """The keys of the family the choice belongs to (``AdamW`` -> the optimizers), or an empty set."""
    key = claimed_key(choice)
    return next((members for members in _data().families.values() if key in members), frozenset())


def is_consumer(callee: str) -> bool:
    """Whether a library callee (``torch.optim.AdamW``) is a known consumer of settings (``consumers`` in
    ``rules/quantities.yaml``), by its last component."""
    return _plain(callee.rsplit(".", 1)[-1]) in _data().consumers


def is_resolution_transform(callee: str) -> bool:
    """Whether a library callee (``torchvision.transforms.Resize``) is an image transform that sets the resolution
    of the data it is given (``resolution_transforms`` in ``rules/quantities.yaml``), by its last component."""
    return _plain(callee.rsplit(".", 1)[-1]) in _data().resolution


def is_shape_factory(callee: str) -> bool:
    """Whether a library callee (``torch.randn``) builds a tensor whose positional arguments are its sizes
    (``shape_factories`` in ``rules/quantities.yaml``), by its last component."""
    return _plain(callee.rsplit(".", 1)[-1]) in _data().shape_factories


@lru_cache(maxsize=65536)  # asked for every call of a repository per atom: the lookup is pure on the callee
def library_defaults(callee: str) -> dict[str, object]:
    """The defaults of a library consumer's parameters (``library_defaults`` in ``rules/quantities.yaml``) by its
    last component (``torch.optim.AdamW`` -> ``{"eps": 1e-08, ...}``); empty for other callees. The dictionary is
    shared: read it, never change it."""
    return _data().defaults.get(_plain(callee.rsplit(".", 1)[-1]), {})


def name_speaks_for(name: str, choice: str) -> bool:
    """Whether a name (an atom's, or a binding's) names the quantity of the choice's ``choice_calls`` family: every
    word of it is one of the family's ``atom_words`` (``lr_schedule``, ``scheduler`` yes; ``noise_scheduler``,
    ``guidance_scheduler`` no: a cosine noise or guidance schedule is no learning-rate schedule). Always true for
    choices outside such families."""
    allowed = _data().atom_words.get(claimed_key(choice))
    return allowed is None or {w.lower() for w in _WORDS.findall(name)} <= allowed


def own_function_realises(name: str, choice: str) -> bool:
    """Whether a repository's own function or class of this name realises the claimed choice of a
    ``choice_calls`` family: the name names that member and no other, and its other words are the family's
    ``atom_words`` or ``callee_words`` (``cosine_lr`` realises ``cosine``; ``cosine_beta_schedule`` does not)."""
    key = claimed_key(choice)
    allowed = _data().callee_words.get(key)
    if allowed is None:
        return False
    family = family_of(choice)
    words = [w.lower() for w in _WORDS.findall(name)]
    spans = _member_spans(words, family)
    if {member for _, _, member in spans} != {key}:
        return False
    named = {i for start, end, _ in spans for i in range(start, end)}
    # the warmup's own member word (linear_warmup_cosine_lr) is part of the schedule's description
    return all(w in allowed or w.isdigit() or choice_key(w) in family for i, w in enumerate(words) if i not in named)


def realising_calls(choice: str) -> frozenset[str]:
    """The callee keys (``choice_key`` of a call's last component) whose live call realises the claimed choice:
    the ``choice_calls`` of ``rules/quantities.yaml`` for a choice code realises through a library function
    (``cosine`` -> ``cosineannealinglr``, ``getcosineschedulewithwarmup``, ...), else the choice's own key
    (``AdamW`` -> ``adamw``)."""
    key = claimed_key(choice)
    return _data().realisers.get(key, frozenset({key}))


def rival_calls(choice: str) -> frozenset[str]:
    """The callee keys realising another member of the claimed choice's family (``Adam`` where ``AdamW`` is
    claimed; ``get_linear_schedule_with_warmup`` where a cosine schedule is), or an empty set when no family is
    known."""
    key = claimed_key(choice)
    return frozenset().union(*(realising_calls(member) for member in family_of(choice) - {key}))


def formula_calls(choice: str) -> frozenset[str]:
    """The callee keys that build a member of the choice's family from a formula (``LambdaLR``): where one runs,
    the claimed choice may be that formula, so rival calls settle nothing. Empty for choices without such
    callees."""
    return _data().custom.get(claimed_key(choice), frozenset())


def call_targets(choice: str) -> tuple[str, ...]:
    """The parameters a call realising the choice is given (``targets`` of its ``choice_calls`` family in
    ``rules/quantities.yaml``: ``("weight", "bias")`` for an initialiser, the default first), or an empty tuple when
    its calls need no target."""
    return _data().targets.get(claimed_key(choice), ())


def formula_markers(choice: str) -> frozenset[str]:
    """The callee keys whose call inside a ``formula_calls`` formula realises the choice (``cos`` for a cosine
    schedule written out in a ``LambdaLR``; ``formula_markers`` in ``rules/quantities.yaml``), or an empty set."""
    return _data().markers.get(claimed_key(choice), frozenset())


def realised_by_calls(choice: str) -> bool:
    """Whether the choice is one code realises by a library call or a formula (a learning-rate schedule) rather
    than by naming it: such a choice found nowhere may still be written out, so it is never settled absent."""
    return claimed_key(choice) in _data().realisers


def choice_equal(claimed: str, found: str) -> bool | None:
    """Compare a claimed library choice with a text bound in code. Equal keys match (``bf16``/``bfloat16``).
    Otherwise, for a choice with a known family, the family members the text names decide: the claimed one named
    matches (``paged_adamw_8bit`` holds ``AdamW``; ``linear_warmup_cosine`` holds ``cosine``), another one named
    differs (``adam`` against ``AdamW``), none named is not comparable (``ddpm``, a noise scheduler, says nothing
    about a learning-rate schedule). A member just before ``warmup`` names the warmup, not the choice, when the
    text names another member too. Without a family, different keys differ."""
    key, found_key = claimed_key(claimed), choice_key(found)
    if key == found_key:
        return True
    family = family_of(claimed)
    if not family:
        return False
    named = _members_named(found, family)
    if key in named:
        return True
    return False if named else None


def _members_named(text: str, family: frozenset[str]) -> set[str]:
    """The family members a text names as words or runs of words (``leaky_relu`` names ``leakyrelu`` and not
    ``relu``: the longest run wins), without a member just before ``warmup`` when another member is named too."""
    return {member for _, _, member in _member_spans([w.lower() for w in _WORDS.findall(text)], family)}


def _member_spans(words: list[str], family: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, member) of each run of words naming a family member, longest run first, left to right; a run
    just before ``warmup`` names the warmup and is left out when another member is named too."""
    spans: list[tuple[int, int, str]] = []
    start = 0
    while start < len(words):
        end = next((e for e in range(len(words), start, -1) if choice_key("".join(words[start:e])) in family), None)
        if end is None:
            start += 1
            continue
        spans.append((start, end, choice_key("".join(words[start:end]))))
        start = end
    if len({member for _, _, member in spans}) > 1:
        warmup = {i for i, w in enumerate(words) if w == "warmup"}
        spans = [span for span in spans if span[1] not in warmup]
    return spans
