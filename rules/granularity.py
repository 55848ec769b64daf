"""How finely a claim says a learned parameter varies ("alpha_A is a per-element vector", "a separate s_qk for each
head"), decided from the dimensions live code builds it with (``extractors.trainability``: ``GradSetting.sizes``).

A spec lists such elements under ``shapes`` (``{name, aliases, per, other}``): ``per`` the names of the dimensions
one of which the parameter must have (``[d_model, n_embd, hidden_size]`` for a vector over the model width;
``[n_heads, num_heads, d_model]`` for one entry per head, the width counting as heads times head size); ``other``
the names of dimensions that are not (``[d_head, head_dim]``: one vector shared by every head). The element's
named definitions are the ``nn.Parameter``s whose target is its name or an alias, built from a tensor factory
(``torch.full((d_model,), v)``, ``init * torch.ones(n_heads, d_head)``), each read where it runs:

- **present** when every one is a vector along a dimension named in ``per`` (one dimension: a parameter of two or
  more lines up with the operand's last axes, whose layout static reading does not know: ``(n_heads, d_head)``
  against queries laid out ``(batch, heads, positions, head size)`` scales positions, not heads);
- **absent** (the claimed granularity contradicted) when every one is a single value (``torch.tensor(0.05)``,
  ``torch.zeros(1)``) or has only dimensions named in ``other``;
- **ambiguous** otherwise: definitions that disagree, a size the names do not tell (``torch.ones(shape)``), a
  parameter built another way (a repository class wrapping it), only code that may not run, or none at all.

As for ``rules.trainable``, the formula's own code decides between definitions of one name that disagree, and D2
keeps a decided element only where it lies in the code computing the formula (``rules.d2_formula``).
"""

from __future__ import annotations

from extractors.facts import RepositoryIndex
from extractors.trainability import PARAMETER, GradSetting, running_settings
from rules.d3_protocol import ABSENT, AMBIGUOUS, PRESENT, ElementResult
from rules.trainable import mentions, named_settings, terms

CATEGORY = "shapes"


def decide(element: dict, index: RepositoryIndex, within: frozenset[str] | None = None) -> ElementResult:
    """Decide one ``{name, aliases, per, other}`` element (module docstring) against ``index``; ``within`` as for
    ``rules.trainable.decide``. The refs are ``Mention``s at the definitions behind it."""
    name = element["name"]
    per, other = frozenset(element["per"]), frozenset(element.get("other", ()))
    live, unsure = running_settings(index)

    def readings(found: list[GradSetting]) -> set[str | None]:
        return {_reading(s.sizes, per, other) for s in found}

    named, maybe = named_settings(terms(element), [s for s in live if s.how == PARAMETER],
                                  [s for s in unsure if s.how == PARAMETER], within, readings)
    if not named:
        if maybe:
            return ElementResult(CATEGORY, name, AMBIGUOUS, f"built only in code that may not run ({maybe[0].ref})",
                                 mentions(maybe))
        return ElementResult(CATEGORY, name, AMBIGUOUS, "no nn.Parameter of that name is built", hint=True)
    found = readings(named)
    shown = ", ".join(f"{s.written} of {_shape(s.sizes)} at {s.ref}" for s in named[:2])
    if len(found) == 1 and None not in found:
        if found.pop() == PRESENT:
            return ElementResult(CATEGORY, name, PRESENT, shown, mentions(named))
        return ElementResult(CATEGORY, name, ABSENT, f"{shown}: no dimension of {', '.join(element['per'])}",
                             mentions(named))
    return ElementResult(CATEGORY, name, AMBIGUOUS, f"its dimensions do not tell ({shown})", mentions(named))


def _reading(sizes: tuple[str, ...] | None, per: frozenset[str], other: frozenset[str]) -> str | None:
    """``present``, ``absent`` or ``None`` (undecided) for one definition's dimensions."""
    if sizes is None:
        return None
    names = {n for size in sizes for n in size.split("*") if not n.isdigit()}
    if names & per:
        # one dimension lines up with the operand's last one whatever its layout; two or more line up with the
        # operand's last axes, which may be (positions, head size) where the claim needs (heads, head size)
        return PRESENT if len(sizes) == 1 else None
    if all(size == "1" for size in sizes) or (names and names <= other and all(not s.isdigit() for s in sizes)):
        return ABSENT  # one value for all, or only dimensions the claim says it does not vary over
    return None


def _shape(sizes: tuple[str, ...] | None) -> str:
    if sizes is None:
        return "a shape not built from a tensor factory"
    return "shape (" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")" if sizes else "a single value"
