"""Where the code decides which tensors it trains: the gradient settings of a repository's functions.

A *gradient setting* is one statement that makes a tensor (or a module's tensors) trained or frozen, in PyTorch's
terms (https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation):

- ``self.register_buffer("B", t)``: a buffer, never trained (not returned by ``parameters()``);
- ``self.R = nn.Parameter(t)``: trained; with ``requires_grad=False`` frozen;
- ``self.proj = nn.Linear(...)`` (``nn.Linear``, ``nn.Embedding``, ``nn.Conv1d/2d/3d``): a layer, its weights trained;
- ``x.requires_grad = False`` and ``x.requires_grad_(False)``: ``x`` frozen (``True``, or ``requires_grad_()``
  without an argument: trained), where ``x`` is a tensor or a module (a module's call reaches all its tensors); a
  loop variable over ``m.parameters()`` (or ``named_parameters()``) stands for ``m``'s tensors, unless an ``if``
  inside the loop picks some of them.

Each setting names its target by the last component of what it sets (``R`` for ``self.R``, ``B`` for the buffer's
name, ``weight`` for ``layer.weight``, ``encoder`` for a loop over ``self.encoder.parameters()``, ``param`` for
another loop variable) and keeps the whole written target, so that
the rule can tell a named tensor from a loop over ``parameters()``. Only code inside functions and at a module's top
level is read; each setting carries the call-graph node whose code holds it (a function's qualname or the module),
for liveness. Flags that are not literals (``requires_grad=train_b``) are kept with ``trained`` ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from extractors.callgraph import build_call_graph
from extractors.callgraph.model import DEAD, LIVE, MAYBE, module_name
from extractors.facts import RepositoryIndex
from extractors.trees import visit
from extractors.values import dotted_name
from extractors.visitor import Visitor
from extractors.walk import is_test_path
from sau.vocabulary import Location, split_where

BUFFER, PARAMETER, LAYER, FLAG = "buffer", "parameter", "layer", "flag"
# torch.nn layers whose weights a model trains unless frozen (a layer bound to a claimed factor's name: lora_A)
_LAYERS = frozenset({"Linear", "Embedding", "Conv1d", "Conv2d", "Conv3d"})
_LITERALS = {"True": True, "False": False}


@dataclass(frozen=True)
class GradSetting(Location):
    """One gradient setting (module docstring), where it is (``sau.vocabulary.Location``, one statement's first
    line). ``target`` the last component of what it sets (``R``), ``written`` the target as written (``module.R``,
    ``self.lora_B``, ``param``; ``<expr>`` for a part that is no name, ``self.blocks[0].weight`` gives
    ``<expr>.weight``), ``trained`` true (trained), false (frozen) or ``None`` (a flag that is not a literal),
    ``how`` one of ``buffer``, ``parameter``, ``layer``, ``flag``, ``scope`` the call-graph node whose code holds it
    (``pkg.mod.Class.method``, or ``pkg.mod`` at a module's top level). ``sizes``, for an ``nn.Parameter`` built
    from a tensor factory (``torch.ones``, ``zeros``, ``full``, ``randn``, ``rand``, ``empty``, ``tensor``, maybe
    scaled: ``init * torch.ones(d)``), its dimensions as written, each the names its size reads joined by ``*``
    or an integer literal (``torch.full((cfg.d_model,), v)`` gives ``("d_model",)``, ``torch.ones(n_heads, d_head)``
    ``("n_heads", "d_head")``, ``torch.zeros(1)`` ``("1",)``, ``torch.tensor(0.05)`` ``()``); ``None`` when it is not
    built so or a size is neither (``torch.ones(shape)`` with a shape computed elsewhere gives ``("shape",)``)."""

    target: str
    written: str
    trained: bool | None
    how: str
    scope: str
    sizes: tuple[str, ...] | None = None


def gradient_settings(index: RepositoryIndex) -> tuple[GradSetting, ...]:
    """Every gradient setting of the repository's Python code libcst parsed whole, in file and line order (an
    ``index.analysis`` provider: computed once per index). Reads the call graph's functions (their own bodies,
    nested functions and classes apart) and each module's top-level statements."""
    graph = index.analysis(build_call_graph)
    found: list[GradSetting] = []
    for info in graph.functions.values():
        found += _settings([info.node.body], info.file, info.qualname, index)
    for key, module in index.modules.items():
        top = [s for s in module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        found += _settings(top, key, module_name(key), index)
    return tuple(sorted(found, key=lambda s: (s.where, s.line)))


def running_settings(index: RepositoryIndex) -> tuple[list[GradSetting], list[GradSetting]]:
    """The gradient settings of code that runs (``live`` in the call graph) and of code that may run (``maybe``, or
    a node the graph lacks, such as a notebook cell's top level), in that order; those of dead code and of tests are
    left out."""
    graph = index.analysis(build_call_graph)
    live: list[GradSetting] = []
    maybe: list[GradSetting] = []
    for setting in index.analysis(gradient_settings):
        if is_test_path(setting.file):
            continue
        try:
            state = graph.liveness(setting.scope)
        except KeyError:
            state = MAYBE
        if state != DEAD:
            (live if state == LIVE else maybe).append(setting)
    return live, maybe


def _settings(nodes: list, key: str, scope: str, index: RepositoryIndex) -> list[GradSetting]:
    """The settings in ``nodes`` (a function's body, or a module's top-level statements) of the source ``key``."""
    positions = index.positions.get(key)
    if positions is None:
        return []
    collector = _Collector()
    for node in nodes:
        visit(node, collector)  # the project's read-only walk: libcst's own rebuilds every node it leaves
    file, cell = split_where(key)
    settings = []
    for node, target, written, trained, how, sizes in collector.found:
        place = positions.get(node)
        if place is None:
            continue
        settings.append(GradSetting(file, place.start.line, place.start.line, target, written, trained, how, scope,
                                    sizes, cell=cell))
    return settings


class _Collector(Visitor):
    """Collects ``(node, target, written, trained, how, sizes)`` for each setting below the visited node, not entering
    nested functions or classes (the call graph reads those as functions of their own)."""

    def __init__(self) -> None:
        self.found: list[tuple[cst.CSTNode, str, str, bool | None, str, tuple[str, ...] | None]] = []
        self.loops: dict[str, str] = {}  # loop variable -> the module whose parameters() it runs over, as written
        self.guarded = 0  # the ifs the visit is inside

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_For(self, node: cst.For) -> None:
        # the loop variable of `for p in model.encoder.parameters():` stands for every tensor of model.encoder
        receiver = _parameters_of(node.iter)
        if receiver is not None:
            for name in _loop_names(node.target):
                self.loops[name] = receiver

    def leave_For(self, original_node: cst.For) -> None:
        for name in _loop_names(original_node.target):
            self.loops.pop(name, None)

    def visit_If(self, node: cst.If) -> None:
        self.guarded += 1  # `if "bias" in name: p.requires_grad = True` sets some tensors of the loop only

    def leave_If(self, original_node: cst.If) -> None:
        self.guarded -= 1

    def _target(self, receiver: cst.BaseExpression) -> str:
        """What a flag on ``receiver`` sets, as written: a loop variable over a module's ``parameters()`` is that
        module's tensors (``self.encoder.parameters()``), unless an ``if`` inside the loop picks some of them."""
        written = _written(receiver)
        if written in self.loops and not self.guarded:
            return self.loops[written]
        return written

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    def _assigned(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
            written = self._target(target.value)
            self.found.append((node, _last(written), written, _flag(value), FLAG, None))
            return
        if not isinstance(value, cst.Call) or not isinstance(target, (cst.Name, cst.Attribute)):
            return
        callee = (dotted_name(value.func) or "").rsplit(".", 1)[-1]
        written = _written(target)
        if callee == "Parameter":
            keyword = next((a.value for a in value.args if a.keyword and a.keyword.value == "requires_grad"), None)
            positional = [a.value for a in value.args if a.keyword is None and not a.star]
            flag = keyword if keyword is not None else positional[1] if len(positional) > 1 else None
            trained = True if flag is None else _flag(flag)
            sizes = _sizes(positional[0]) if positional else None
            self.found.append((node, _last(written), written, trained, PARAMETER, sizes))
        elif callee in _LAYERS:
            self.found.append((node, _last(written), written, True, LAYER, None))

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        positional = [a.value for a in node.args if not a.star and a.keyword is None]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if method == "register_buffer":
            given = keywords.get("name", positional[0] if positional else None)
            name = given.evaluated_value if isinstance(given, cst.SimpleString) else None
            if isinstance(name, str) and name.isidentifier():
                self.found.append((node, name, name, False, BUFFER, None))
        elif method == "requires_grad_":
            written = self._target(node.func.value)
            flag = keywords.get("requires_grad", positional[0] if positional else None)
            trained = True if flag is None else _flag(flag)
            self.found.append((node, _last(written), written, trained, FLAG, None))


def _written(node: cst.BaseExpression) -> str:
    """The target as written, with ``<expr>`` for the first part that is no name (``self.blocks[0].weight`` gives
    ``<expr>.weight``)."""
    name = dotted_name(node)
    if name is not None:
        return name
    return f"{_written(node.value)}.{node.attr.value}" if isinstance(node, cst.Attribute) else "<expr>"


_FACTORIES = frozenset({"ones", "zeros", "full", "randn", "rand", "empty", "tensor", "as_tensor"})


def _sizes(node: cst.BaseExpression) -> tuple[str, ...] | None:
    """The dimensions of the tensor ``node`` builds with a tensor factory (``GradSetting.sizes``), or ``None``."""
    if isinstance(node, cst.BinaryOperation):  # a scale times the factory's tensor: init * torch.ones(d)
        found = [s for s in (_sizes(node.left), _sizes(node.right)) if s is not None]
        return found[0] if len(found) == 1 else None
    if not isinstance(node, cst.Call):
        return None
    factory = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
    arguments = [a.value for a in node.args if a.keyword is None and not a.star]
    if factory not in _FACTORIES or not arguments:
        return None
    if factory in ("tensor", "as_tensor"):  # a number is a scalar: no dimension
        return () if isinstance(arguments[0], (cst.Integer, cst.Float)) else None
    dimensions = arguments[:1] if factory == "full" else arguments
    if len(dimensions) == 1 and isinstance(dimensions[0], (cst.Tuple, cst.List)):
        dimensions = [e.value for e in dimensions[0].elements]
    sizes = [_size(d) for d in dimensions]
    return None if any(s is None for s in sizes) else tuple(s for s in sizes if s is not None)


def _size(node: cst.BaseExpression) -> str | None:
    """One dimension: an integer literal as written, or the last components of the names it reads joined by ``*``
    (``n_heads * d_head``, ``config.d_model``), or ``None``."""
    if isinstance(node, cst.Integer):
        return node.value
    names = _names(node)
    return "*".join(names) if names else None


def _names(node: cst.BaseExpression) -> list[str]:
    """The last components of the names and attributes ``node`` reads, in order."""
    name = dotted_name(node)
    if name is not None:
        return [name.rsplit(".", 1)[-1]]
    if isinstance(node, cst.BinaryOperation):
        return _names(node.left) + _names(node.right)
    return []


def _last(written: str) -> str:
    """The last name of a written target: ``R`` for ``module.R``, ``encoder`` for ``self.encoder.parameters()``."""
    return written.removesuffix(".parameters()").rsplit(".", 1)[-1]


def _parameters_of(node: cst.BaseExpression) -> str | None:
    """``self.encoder.parameters()`` for ``self.encoder.parameters()`` or ``self.encoder.named_parameters()``
    (also inside ``list(...)``), else ``None``."""
    if isinstance(node, cst.Call) and dotted_name(node.func) == "list" and len(node.args) == 1:
        node = node.args[0].value
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute) \
            or node.func.attr.value not in ("parameters", "named_parameters"):
        return None
    owner = dotted_name(node.func.value)
    return None if owner is None else f"{owner}.parameters()"


def _loop_names(target: cst.BaseExpression) -> list[str]:
    """The names a ``for`` target binds to a tensor: ``p``, or the last of ``name, p``."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple) and target.elements and isinstance(target.elements[-1].value, cst.Name):
        return [target.elements[-1].value.value]
    return []


def _flag(node: cst.BaseExpression) -> bool | None:
    """A literal ``True``/``False``, else ``None``."""
    return _LITERALS.get(node.value) if isinstance(node, cst.Name) else None
