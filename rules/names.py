"""Name normalisation and the alias table: when does a code name mean the claim's name?

Rule data lives in ``rules/aliases.yaml`` (its header gives the procedure and sources). Two relations:

- *agree*: the normalised keys are equal (``num_layers`` = ``n_layers`` = ``depth``; ``lr`` = ``learning_rate``).
  A count (``num_phases``, ``phases``) does not agree with an index or single item (``phase=2``).
  A value bound under an agreeing name is the claimed quantity, so a different value is a drift.
- *narrower*: the code name adds qualifiers to the claim's name (``encoder_lr`` for ``lr``) and shares a
  non-generic token with it. An equal value there matches; a different one proves nothing (another component).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

import yaml

from extractors.words import word_list

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[\W_]+")  # Unicode-aware: names in any script keep their letters


@dataclass(frozen=True)
class AliasTable:
    """The parsed ``aliases.yaml``: token synonyms, filler and generic tokens, alias groups, ignored callees."""

    tokens: dict[str, tuple[str, ...]]
    filler: frozenset[str]
    generic: frozenset[str]
    group_of: dict[str, str]
    ignored_callees: frozenset[str]
    layer_widths: frozenset[str] = frozenset()  # normalised keys
    never_widths: frozenset[str] = frozenset()  # canonical group keys


@lru_cache(maxsize=1)
def table() -> AliasTable:
    """Load ``rules/aliases.yaml`` once. Raises ``yaml.YAMLError``/``KeyError`` if the packaged file is broken."""
    data = yaml.safe_load(resources.files("rules").joinpath("aliases.yaml").read_text(encoding="utf-8"))
    bare = AliasTable(
        tokens={k: tuple(str(v).split()) for k, v in data["tokens"].items()},
        filler=frozenset(data["filler"]),
        generic=frozenset(data["generic"]),
        group_of={},
        ignored_callees=frozenset(data["ignored_callees"]),
    )
    for group in data["groups"]:
        canonical = _key(_tokens(group[0], bare))
        for member in group:
            bare.group_of.setdefault(_key(_tokens(member, bare)), canonical)
    return replace(bare, layer_widths=frozenset(_key(_tokens(n, bare)) for n in data["layer_widths"]),
                   never_widths=frozenset(bare.group_of[_key(_tokens(n, bare))] for n in data["never_widths"]))


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹", "01234567890123456789")


@lru_cache(maxsize=65536)  # pure on a string; the rules ask about the same names many times per repository
def _greek_to_ascii(text: str) -> str:
    out = []
    for char in text.translate(_SUBSCRIPTS):
        if "\u0370" <= char <= "\u03ff":  # Greek and Coptic block: spell the letter out (γ -> gamma)
            name = unicodedata.name(char, "")
            out.append(f"_{name.split()[-1].lower()}_" if name else "_")
        else:
            out.append(char)
    return "".join(out)


def singular(token: str) -> str:
    """A plural word's singular by the English rules that name code (``losses`` -> ``loss``, ``batches`` ->
    ``batch``, ``layers`` -> ``layer``); a word ending in ``ss``, ``us``, ``is``, ``as`` or ``os`` is kept, and so is
    an ``-ches``/``-shes`` word whose ``ch``/``sh`` follows a vowel (``caches`` -> ``cache``)."""
    if len(token) > 4 and (token.endswith("sses") or token.endswith(("ches", "shes")) and token[-5] not in "aeiou"):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is", "as", "os")):
        return token[:-1]
    return token


# Marks a count ("num_layers", "n_layers", "layers"), so that it differs from an index or a single item
# ("layer=2", "phase=2", "seed=42"). Upper case, so no lower-cased name token can collide with it.
COUNT = "N"
_COUNT_PREFIXES = word_list("count_prefixes", "rules")


@lru_cache(maxsize=65536)
def words(text: str) -> tuple[str, ...]:
    """The lower-case words of a name or a text, the one tokeniser of the rules: camelCase, digits, ``_``, ``-``,
    ``.``, ``/`` and spaces split them (``OpenWebTextDataset`` -> ``("open", "web", "text", "dataset")``; ``CIFAR10``
    stays one word). Letters of any script are kept."""
    return tuple(w for w in _SPLIT.split(_CAMEL.sub(" ", text).lower()) if w)


def _tokens(name: str, data: AliasTable, plural_counts: bool = True) -> tuple[str, ...]:
    raws: list[str] = []
    for raw in words(_greek_to_ascii(name)):
        if raw.isdigit() and raws and not raws[-1].isdigit():
            raws[-1] += raw  # an index belongs to its name: c_0 = c0, beta_1 = β₁ = beta1
        elif raw:
            raws.append(raw)
    result: list[str] = []
    for raw in raws:
        for token in data.tokens.get(raw, data.tokens.get(singular(raw), (raw,))):
            token = singular(token)
            if token and token not in data.filler:
                result.append(token)
    if not result:  # a name made only of filler ("n", "num") keeps itself
        return tuple(raws)
    counted = bool(set(raws) & _COUNT_PREFIXES) or (plural_counts and singular(raws[-1]) != raws[-1]
                                                   and raws[-1] not in ("dims", "dimensions"))
    return (*result, COUNT) if counted else tuple(result)


def _key(tokens: tuple[str, ...]) -> str:
    return "_".join(sorted(set(tokens)))


@lru_cache(maxsize=65536)
def token_key(name: str) -> str:
    """``name``'s sorted normalised tokens joined by ``_``, before its alias group is applied (``n_blocks`` ->
    ``N_block``, where ``normalise`` gives the group's ``N_layer``): a name narrower than this one shares its
    tokens, not its group's."""
    return _key(_tokens(name, table()))


@lru_cache(maxsize=65536)
def squashed(name: str) -> str:
    """``name`` lower-cased with every separator taken out, its letters and digits kept in order (Greek letters
    spelled out): ``lambda_pre_activ``, ``lambda_preactiv`` and ``LambdaPreActiv`` all give ``lambdapreactiv``, and
    ``w_vz`` and ``Wvz`` give ``wvz``. Two names alike once squashed are one name written with its words joined or
    apart, which the sorted word keys of ``normalise`` cannot tell (``preactiv`` is one word, ``pre_activ`` two)."""
    return "".join(words(_greek_to_ascii(name)))


@lru_cache(maxsize=65536)
def normalise(name: str) -> str:
    """The lookup key of ``name``: its sorted normalised tokens joined by ``_``, mapped to its alias group's key."""
    key = token_key(name)
    return table().group_of.get(key, key)


@lru_cache(maxsize=65536)
def says_count(name: str) -> bool:
    """Whether ``name`` calls itself a count by a count prefix before other words (``n_lambda``, ``num_heads``); a
    plural alone does not (``lambdas`` may hold the values themselves), nor a count word elsewhere (``sigma_n``,
    ``cfl_number``), nor ``no`` (``no_obj_weight``, ``no_decay``: a negation as often as a count)."""
    found = words(_greek_to_ascii(name))
    return len(found) > 1 and found[0] in _COUNT_PREFIXES - {"no"}


@lru_cache(maxsize=65536)
def quantity_key(name: str) -> str:
    """``normalise`` for a name of a computed quantity, where a plural names many values of it, not a count:
    ``next_values`` and ``next_value`` both give ``next`` (``normalise`` gives ``N_next`` to the plural). A count
    prefix still marks a count (``num_heads`` -> ``N_head``), so a count never meets the quantity it counts."""
    key = _key(_tokens(name, table(), plural_counts=False))
    return table().group_of.get(key, key)


def narrower(claim_keys: frozenset[str], fact_key: str) -> bool:
    """True when the fact name holds all tokens of one claim key plus qualifiers, sharing a non-generic token."""
    fact_tokens = frozenset(fact_key.split("_"))
    generic = table().generic | {COUNT}
    for key in claim_keys:
        claim_tokens = frozenset(key.split("_"))
        if claim_tokens < fact_tokens and claim_tokens - generic:
            return True
    return False


@lru_cache(maxsize=65536)  # pure on a string, given the packaged alias table; asked per candidate and formula
def is_generic(name: str) -> bool:
    """A name too generic to settle a drift on: one letter (``K``, ``N``), or a lone Greek letter or generic
    token (``alpha``, ``scale``), since such names are reused across unrelated components."""
    stripped = _greek_to_ascii(name).strip("_ ")
    raw = set(_tokens(name, table())) - {COUNT}
    if len(stripped) <= 1 or not raw:
        return True
    return len(raw) == 1 and (raw <= table().generic or is_greek_word(next(iter(raw))))


# Unicode spells the letter LAMDA; code and papers write lambda
_GREEK_WORDS = frozenset(unicodedata.name(chr(c)).split()[-1].lower() for c in range(0x3b1, 0x3ca)
                         if unicodedata.name(chr(c), "")) | {"lambda"}


def is_greek_word(token: str) -> bool:
    """Whether ``token`` (a lower-case word) is the name of a Greek letter (``beta``, ``lambda``)."""
    return token in _GREEK_WORDS


def ignored_callee(callee: str) -> bool:
    """True for calls whose keywords are presentation or logging (``plt.plot``, ``ax.fill_between``,
    ``env.render``): matched on the callee's first or last component."""
    ignored = table().ignored_callees
    parts = callee.split(".")
    return callee in ignored or parts[0] in ignored or parts[-1] in ignored


def broader(claim_keys: frozenset[str], fact_key: str) -> bool:
    """True when the fact name is one claim key without its one-letter subscripts (``alpha_init`` for
    ``alpha_A_init``: one setting shared by the parts the paper tells apart), and is not generic itself."""
    fact_tokens = frozenset(fact_key.split("_"))
    for key in claim_keys:
        extra = frozenset(key.split("_")) - fact_tokens
        # the count mark is no subscript: seed (one seed) is not broader than num_seeds (how many)
        if fact_tokens < frozenset(key.split("_")) and all(len(t) == 1 and t != COUNT for t in extra):
            return not is_generic(fact_key)
    return False


def known_name(phrase: str) -> bool:
    """True when ``phrase`` names a hyperparameter of the alias table (``"learning rate"``, ``"batch size"``)."""
    return normalise(phrase) in _known_keys()


def other_quantity(claim_keys: frozenset[str], fact_key: str) -> bool:
    """True when ``fact_key`` (a ``normalise``d code name) is a hyperparameter of the alias table's ``groups``
    other than every one of ``claim_keys`` and shares no non-generic token with them (``d_model`` for a claimed
    ``block_size``, ``batch_size`` for a claimed ``hidden_size``): a value bound there is that other quantity's,
    never a renamed binding of the claim's. Names outside the table (``out_features``, ``num_initial_steps``) may
    be anything and give False, except a layer's width (``in_channels``, ``out_features``: ``layer_widths``) for a
    claim no layer width can hold (``never_widths``: 4 as ``in_channels`` is no count of 4 layers). Such a claim is
    one whose names in the table are all of those, the others (``patch_dim``) being unknown."""
    if fact_key in table().layer_widths and not kin(claim_keys, fact_key):
        known = [table().group_of[key] for key in claim_keys if key in table().group_of]
        return bool(known) and all(key in table().never_widths for key in known)
    return fact_key in _known_keys() and fact_key not in claim_keys and not kin(claim_keys, fact_key)


@lru_cache(maxsize=1)
def _known_keys() -> frozenset[str]:
    return frozenset(table().group_of.values())


def kin(claim_keys: frozenset[str], fact_key: str) -> bool:
    """True when the names share a non-generic token (``guidance_weight`` and ``guidance_lambda``): related enough
    that a value under one may be the other's, too loosely to decide. A shared Greek letter alone relates nothing
    (``lambda_reward`` and ``lambda_dynamics`` weigh different losses)."""
    generic = table().generic | {COUNT}
    fact_tokens = frozenset(t for t in fact_key.split("_") if not is_greek_word(t)) - generic
    return any(fact_tokens & frozenset(key.split("_")) for key in claim_keys)
