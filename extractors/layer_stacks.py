"""Layer stacks: a run of one layer class built under numbered names in one class or function
(``self.conv1 = nn.Conv2d(...)`` .. ``self.conv4 = nn.Conv2d(...)``, ``self.mlp1 .. self.mlp3 = nn.Linear(...)``).

Papers state such an architecture as a whole ("4 conv layers with strides 2, 2, 2, 1", "MLP hidden width 512"), while
code writes it one layer at a time, so no single binding holds the claimed number. A stack binds (as ``stack`` facts,
``extractors.facts.STACK``):

- its length, as ``conv_layers`` or ``linear_layers`` (the layer family's word, ``STACKED``);
- each parameter's values in layer order as a tuple, under the parameter's name (``stride`` = ``(2, 2, 2, 1)``), when
  every layer's value is a number (a parameter a layer leaves out takes the library default, ``DEFAULTS``);
- for a stack of linear layers, the hidden width (``hidden_dim``): the output width of every layer but the last,
  when they are one number;
- for a stack of convolutions followed in the same place by a linear layer (``nn.Linear(1568, 512)`` after the
  CNN), the width of the flattened output it takes (``conv_out_dim``), when it is a number.

A stack fact confirms a claimed value and never contradicts one (the rules treat the kind so): a repository may
build other stacks of the same layers for other parts. Nothing is imported or executed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from extractors import facts as K
from extractors.facts import Fact
from extractors.values import indexed_sequence, is_number
from sau.vocabulary import Value

# Layer classes (callee's last component, as PyTorch spells it) that stack, and the word naming their family.
STACKED = {"Conv1d": "conv", "Conv2d": "conv", "Conv3d": "conv", "Linear": "linear"}
# Defaults of the parameters a layer may leave out (PyTorch reference, torch.nn.Conv1d/2d/3d).
DEFAULTS: dict[str, dict[str, Value]] = {"conv": {"stride": 1, "padding": 0, "dilation": 1}}


@dataclass(frozen=True)
class Layer:
    """One layer built and bound to a name: ``target`` the bound name's last component (``conv1``), ``callee`` the
    layer class as written (``nn.Conv2d``), ``context`` the enclosing class or function, ``params`` the parameters
    its arguments bind (positional ones named by ``extractors.signatures``), each folded value or ``None``."""

    file: str
    line: int
    end_line: int
    context: str
    target: str
    callee: str
    params: dict[str, Value | None] = field(default_factory=dict)
    cell: int | None = None


def stack_facts(layers: list[Layer]) -> list[Fact]:
    """The ``stack`` facts of the stacks among ``layers`` (in source order): layers of one class in one context whose
    names number them from 0 or 1 up by one (``extractors.values.indexed_sequence``), at least two."""
    groups: dict[tuple[str, str, str | None], list[Layer]] = {}
    for layer in layers:
        family = STACKED.get(layer.callee.rsplit(".", 1)[-1])
        if family is not None:
            groups.setdefault((layer.context, family, layer.file), []).append(layer)
    out: list[Fact] = []
    for (context, family, _), members in groups.items():
        by_stem: dict[str, list[Layer]] = {}
        for layer in members:
            by_stem.setdefault("".join(c for c in layer.target if not c.isdigit()), []).append(layer)
        for stack in by_stem.values():
            if indexed_sequence([(layer.target, position) for position, layer in enumerate(stack)]) is not None:
                out.extend(_facts(stack, family, context))
                if family == "conv":
                    out.extend(_flattened(stack, layers))
    return out


def _flattened(stack: list[Layer], layers: list[Layer]) -> list[Fact]:
    """The ``conv_out_dim`` fact of a convolution stack: the input width of the layer built next in its place, when
    that is a linear layer given a number."""
    last = stack[-1]
    after = [layer for layer in layers[layers.index(last) + 1:]
             if layer.context == last.context and layer.file == last.file]
    if not after or STACKED.get(after[0].callee.rsplit(".", 1)[-1]) != "linear":
        return []
    width = after[0].params.get("in_features")
    if not is_number(width):
        return []
    return [Fact(after[0].file, after[0].line, after[0].end_line, "conv_out_dim", f"{last.context}.conv_out_dim",
                 width, K.STACK, last.context, cell=after[0].cell)]


def _facts(stack: list[Layer], family: str, context: str) -> list[Fact]:
    first, last = stack[0], stack[-1]

    def fact(name: str, value: Value) -> Fact:
        return Fact(first.file, first.line, last.end_line, name, f"{context}.{name}", value, K.STACK, context,
                    cell=first.cell)

    out = [fact(f"{family}_layers", len(stack))]
    defaults = DEFAULTS.get(family, {})
    for name in dict.fromkeys(n for layer in stack for n in layer.params):
        values = [layer.params.get(name, defaults.get(name)) for layer in stack]
        if all(is_number(v) for v in values):
            out.append(fact(name, tuple(values)))
    widths = [layer.params.get("out_features") for layer in stack[:-1]]
    if family == "linear" and all(is_number(w) for w in widths) and len(set(widths)) == 1:
        out.append(fact("hidden_dim", widths[0]))
    return out
