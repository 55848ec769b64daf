"""Value facts from Python source, with libcst.

One visitor walks a module's concrete syntax tree and records (see ``extractors.facts`` for the kinds):
assignments at any level (annotated and tuple-unpacked too), dataclass and pydantic fields, parameter defaults,
call keyword arguments, argparse ``add_argument`` defaults, dict literal entries, ``.get(key, default)`` and
``getattr(obj, "key", default)`` defaults,
the values a ``for`` loop's variables take over a literal list (or a name bound to one in the same file), and every
other numeric literal as a ``literal`` fact, the channels an image mode conversion gives (``img.convert("RGB")``: 3
``image_channels``); and every call with the names its arguments read (``CallFact``: where
values are consumed). Values come from ``extractors.values.fold``; comments,
docstrings and the text inside strings are never values. Nothing is imported or executed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields, replace
from typing import Any

import libcst as cst
import sympy
from libcst.metadata import ExpressionContext, MetadataWrapper, PositionProvider

from extractors import facts as K
from extractors.facts import (IMPORT_SCOPE, KEY_PLACEHOLDER, PARAMETER_SCOPE, CallFact, Fact, FileFacts, Unpacking,
                              merge_signatures)
from extractors.layer_stacks import STACKED, Layer, stack_facts
from extractors.positions import resolve_positions
from extractors.signatures import positional_parameters
from extractors.trees import NODE_CLASSES, node_children, visit_wrapper
from extractors.visitor import Visitor
from extractors.values import (builds_object, dotted_name, drawn_range, fold, grid_range, indexed_sequence,
                               is_number, reads_tensor_size, share_of)
from extractors.words import word_list
from sau.vocabulary import Value

_IDENTIFIER = re.compile(r"^-{0,2}[A-Za-z_][A-Za-z0-9_\-]*$")
# a dotted key path a config accessor reads (``cfg.get("training.batch_size")``): its last part is the key read
_KEY = r"[A-Za-z_][A-Za-z0-9_\-]*"
_KEY_PATH = re.compile(rf"^{_KEY}(?:\.{_KEY})+$")
# the same with parts an f-string works out at run time (f"{stage}.layer_wise_decay": "{}.layer_wise_decay")
_COMPUTED_KEY_PATH = re.compile(rf"^(?:{_KEY}|\{{\}})(?:\.(?:{_KEY}|\{{\}}))*\.{_KEY}$")
_DATACLASS_DECORATORS = {"dataclass", "dataclasses.dataclass", "attr.s", "attrs.define", "define", "frozen"}
_MODEL_BASES = {"BaseModel", "pydantic.BaseModel", "BaseSettings"}
_FIELD_CALLS = {"field", "Field", "dataclasses.field", "pydantic.Field", "attr.ib", "attrs.field"}
# argparse converts a string default through ``type`` (Python docs, argparse "default"): "1e-4" with type=float is 1e-4.
_ARGPARSE_TYPES = {"float": float, "int": int}
# Command-line option declarations of click and typer (``@click.option("--n", default=10)``): like argparse's
# ``add_argument``, their default is the option's value unless the command line gives another; a bare name among
# the declarations (``click.option("--n", "n_cal")``) is the parameter it fills (click's documented rule).
_CLI_OPTIONS = {"click.option", "typer.Option"}
# kwargs pass-throughs: unpacking these forwards what the caller already named, so it is not dynamic access.
_PASS_THROUGH = {"kwargs", "kw", "kwds", "kwarg"}
# A name bound to one of these forwards a value defined elsewhere (lr = args.lr, self.lr = lr, lr = cfg["lr"]).
_PASS_THROUGH_NODES = (cst.Name, cst.Attribute, cst.Subscript)
# How many nodes of one call's arguments are searched for the names they read: a bound, since an argument may be a
# whole generated expression; real consumers pass a few names.
_READS_BUDGET = 200
# A conditional expression with more paths than this is a dispatch table, not a setting: one unfoldable binding.
_MAX_PATHS = 8
# Bands of an image mode (Pillow's "Modes" reference): ``img.convert("RGB")`` gives every image three channels, a
# quantity the code never names. Recorded as ``image_channels``, a keyword of no consumer, so it confirms a claimed
# channel count and never contradicts one (a model may still take other inputs).
_MODE_CHANNELS = {"1": 1, "L": 1, "P": 1, "I": 1, "F": 1, "LA": 2, "RGB": 3, "YCbCr": 3, "LAB": 3, "HSV": 3,
                  "RGBA": 4, "CMYK": 4}


def extract_module(module: cst.Module, file: str, line_offset: int = 0, cell: int | None = None,
                   wrapper: MetadataWrapper | None = None) -> FileFacts:
    """Extract facts from a parsed module.

    ``file`` is the repository-relative POSIX path recorded on every fact; ``line_offset`` is added to every line
    (used when a fragment of a file is parsed on its own); ``wrapper`` a ``MetadataWrapper`` of ``module`` made by
    the caller, so that the positions it resolves can be kept. Never raises on unusual but parsed code.
    """
    if wrapper is None:  # a fragment (extractors.fallback): our position table, not libcst's slower generation
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        resolve_positions(wrapper)
    visitor = _FactVisitor(file, line_offset, cell)
    visit_wrapper(wrapper, visitor)  # libcst's walk, without entering the tokens the visitor ignores
    visitor.resolve_loops()
    visitor.resolve_unpacking()
    visitor.found.facts.extend(stack_facts(visitor.layers))
    if visitor.augmented:
        # a name updated in place (n_tokens += len(batch)) is a running total, not a setting: its constant
        # start value (n_tokens = 0) says nothing about the claimed value
        visitor.found.facts = [replace(f, computed=True) if f.kind == K.ASSIGNMENT and f.name in visitor.augmented
                               else f for f in visitor.found.facts]
    return visitor.found


def extract_source(source: str, file: str, line_offset: int = 0, cell: int | None = None) -> FileFacts:
    """Parse ``source`` with libcst and extract its facts. Raises ``libcst.ParserSyntaxError`` if it does not parse."""
    return extract_module(cst.parse_module(source), file, line_offset, cell)


_INHERITED = "inherited"  # a node whose context is its parent's
_UNVISITED = "unvisited"  # a subtree libcst's ExpressionContextProvider never enters: no context anywhere below


def _child_contexts(node: Any) -> list[tuple[Any, object]]:
    """The children of ``node`` whose expression context is set by ``node`` rather than inherited, with that
    context: libcst's ``ExpressionContextProvider`` rules (assignment, loop, ``as``, ``del``, definition and
    parameter targets store; attribute and subscript values and subscript slices load; an attribute's name has no
    context; type parameters are never entered). Computed while the facts are visited, instead of by the provider's
    own walk of the whole tree."""
    kind = type(node)
    if kind is cst.Attribute:
        return [(node.value, ExpressionContext.LOAD), (node.attr, None)]
    if kind is cst.Assign:
        return [(target, ExpressionContext.STORE) for target in node.targets]
    if kind in (cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.CompFor, cst.For):
        return [(node.target, ExpressionContext.STORE)]
    if kind is cst.Subscript:
        return [(node.value, ExpressionContext.LOAD)] + [(item, ExpressionContext.LOAD) for item in node.slice]
    if kind in (cst.AsName, cst.Param):
        return [(node.name, ExpressionContext.STORE)]
    if kind is cst.Del:
        return [(node.target, ExpressionContext.DEL)]
    if kind in (cst.FunctionDef, cst.ClassDef):
        found: list[tuple[Any, object]] = [(node.name, ExpressionContext.STORE)]
        parameters = getattr(node, "type_parameters", None)
        return found + [(parameters, _UNVISITED)] if parameters is not None else found
    return []


def _positional_dataclass(node: cst.ClassDef) -> bool:
    """Whether a class is a dataclass whose generated ``__init__`` takes its fields by position too (Python docs,
    dataclasses: not with ``kw_only=True``); a pydantic model takes keywords only."""
    for decorator in node.decorators:
        call = decorator.decorator if isinstance(decorator.decorator, cst.Call) else None
        name = dotted_name(call.func if call is not None else decorator.decorator)
        if name in ("dataclass", "dataclasses.dataclass"):
            return call is None or not any(arg.keyword is not None and arg.keyword.value == "kw_only"
                                           and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
                                           for arg in call.args)
    return False


def _init_fields(body) -> tuple[str, ...]:
    """A dataclass's ``__init__`` parameters in order: its annotated fields, without ``ClassVar`` ones and those
    declared with ``init=False`` (Python docs, dataclasses)."""
    out = []
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                continue
            annotation = dotted_name(small.annotation.annotation.value
                                     if isinstance(small.annotation.annotation, cst.Subscript)
                                     else small.annotation.annotation) or ""
            if annotation.rsplit(".", 1)[-1] == "ClassVar":
                continue
            value = small.value
            if isinstance(value, cst.Call) and any(
                    arg.keyword is not None and arg.keyword.value == "init" for arg in value.args):
                continue
            out.append(small.target.value)
    return tuple(out)


class _FactVisitor(Visitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, file: str, line_offset: int, cell: int | None) -> None:
        super().__init__()
        self.file = file
        self.offset = line_offset
        self.cell = cell
        self.found = FileFacts()
        self.scopes: list[tuple[str, bool]] = []  # (name, is a dataclass/pydantic class)
        self.consumed: set[int] = set()  # ids of value nodes already recorded under a name
        self.skip_names: set[int] = set()  # keyword and parameter Name nodes: not reads
        self.dict_keys: set[int] = set()  # dict-literal key strings and option flags: bindings, not reads
        self.augmented: set[str] = set()  # names updated in place (x += ...)
        self.loops: list[tuple] = []  # (target, iterated name, line, end, context) of loops over a name
        self.not_references: set[int] = set()  # called names and the inner parts of dotted names
        self.imported: set[int] = set()  # the nodes of import statements: names, not reads of values
        self.parameters: list[frozenset[str]] = []  # the parameter names of each enclosing function, innermost last
        # expression contexts (load, store, del) as libcst's ExpressionContextProvider gives them (_child_contexts)
        self.contexts: list[object] = [ExpressionContext.LOAD]
        self.context_nodes: list[cst.CSTNode] = []  # the nodes that pushed the contexts above the first
        self.marked: dict[int, object] = {}  # id of a node -> the context it sets
        # per function being visited: the names its body reads, and where its parameter defaults' facts start
        self.function_reads: list[tuple[set[str], int]] = []
        self.unpacked: list[tuple[str, str, str]] = []  # (context, name, callee) of each call argument **name
        # (context, name) -> the sections its bindings take a mapping from (``_section``; None: not known)
        self.sections: dict[tuple[str, str], set[str | None]] = {}
        # (context, name) -> whether every binding of the name there is a dict display with literal keys
        self.literal_keyed: dict[tuple[str, str], bool] = {}
        self.literal_bindings: dict[tuple[str, str], list[list[tuple]]] = {}  # their entries, per binding
        self.data_names: set[tuple[str, str]] = set()  # (context, name) of loop variables over data (a loader)
        self.layers: list[Layer] = []  # layers bound to names, in source order (extractors.layer_stacks)
        self.stored_key_nodes: set[int] = set()  # ids of the string keys of subscript assignment targets

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.contexts[-1] != _UNVISITED:
            context = self.marked.pop(id(node), _INHERITED)
            if context != _INHERITED:
                self.contexts.append(context)
                self.context_nodes.append(node)
            if context != _UNVISITED:
                for child, child_context in _child_contexts(node):
                    self.marked[id(child)] = child_context
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if self.context_nodes and self.context_nodes[-1] is original_node:
            self.context_nodes.pop()
            self.contexts.pop()

    def _loaded(self) -> bool:
        """Whether the node being visited is read (libcst's ``ExpressionContext.LOAD``)."""
        return self.contexts[-1] is ExpressionContext.LOAD

    # -- helpers -------------------------------------------------------------------------------------------
    def _lines(self, node: cst.CSTNode) -> tuple[int, int]:
        position = self.get_metadata(PositionProvider, node)
        return position.start.line + self.offset, position.end.line + self.offset

    def _context(self) -> str:
        return ".".join(name for name, _ in self.scopes)

    def _read_scope(self, name: str, node: cst.CSTNode) -> None:
        """Record where ``name`` is read (``FileFacts.read_scopes``): an import statement names it without reading
        its value (``IMPORT_SCOPE``), and a bare name an enclosing function takes as a parameter is that parameter
        (``PARAMETER_SCOPE`` before the scope), not a setting of that name bound elsewhere."""
        if id(node) in self.imported:
            scope = IMPORT_SCOPE
        elif isinstance(node, cst.Name) and any(name in names for names in self.parameters):
            scope = PARAMETER_SCOPE + self._context()
        else:
            scope = self._context()
        self.found.read_scopes.setdefault(name, set()).add(scope)

    def _record(self, name: str, path: str, value_node: cst.BaseExpression, kind: str, at: cst.CSTNode,
                context: str | None = None, value=None) -> None:
        """Record a named fact. A value that does not fold is recorded as ``None``: the name is bound, to something
        we cannot compare, which keeps the rules from calling it absent. A conditional expression
        (``lr = 1e-3 if large else 3e-4``) binds one value per path: one fact for each branch, as two bindings
        would be."""
        paths = _paths(value_node) if value is None and isinstance(value_node, cst.IfExp) else []
        if 0 < len(paths) <= _MAX_PATHS:
            for branch in paths:
                self._record(name, path, branch, kind, at, context)
            return
        spelled_out = value is None and isinstance(value_node, cst.Dict)
        if value is None:
            value = _indexed(value_node) if isinstance(value_node, cst.Dict) else fold(value_node)
        if not name or (isinstance(value, tuple) and not value):
            return
        line, end = self._lines(at)
        read_key = _read_key(value_node)  # cfg.get("lr", 1e-3) passes the config's lr through, like cfg["lr"]
        computed = value is None and not isinstance(value_node, _PASS_THROUGH_NODES) and read_key is None
        source = (read_key or _target_name(value_node)[0] or "") if value is None and not computed else ""
        share = share_of(value_node) if computed or isinstance(value, sympy.Expr) else None
        key_path = _keyed_read(value_node) if source else ()
        self.found.facts.append(
            Fact(self.file, line, end, name, path, value, kind, self._context() if context is None else context,
                 computed, cell=self.cell, source=source, share=share,
                 local_source=bool(source) and isinstance(value_node, cst.Name),
                 built=computed and builds_object(value_node),
                 measured=computed and reads_tensor_size(value_node),
                 drawn=drawn_range(value_node) if computed else None,
                 spanned=grid_range(value_node) if computed else None, key_path=key_path))
        if value is not None and not isinstance(value, sympy.Expr) and not spelled_out:  # its entries bind too
            self._consume(value_node)  # its numbers are this fact's; symbolic ones stay visible as literals

    def _consume(self, node: cst.BaseExpression) -> None:
        """Mark the number nodes of a recorded value so they are not recorded again as literals."""
        _mark_subtree(node, self.consumed)

    # -- scopes --------------------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        decorators = {dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      for d in node.decorators}
        bases = {dotted_name(base.value) for base in node.bases}
        self.scopes.append((node.name.value, bool(decorators & _DATACLASS_DECORATORS or bases & _MODEL_BASES)))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        _, model = self.scopes.pop()
        body = original_node.body.body
        if model and not any(isinstance(s, cst.FunctionDef) and s.name.value == "__init__" for s in body):
            # a dataclass or a pydantic model is built with its fields as keywords; a base of its own may add more
            own_base = any(dotted_name(base.value) not in _MODEL_BASES for base in original_node.bases)
            fields = frozenset(small.target.value for line in body if isinstance(line, cst.SimpleStatementLine)
                               for small in line.body
                               if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name))
            merge_signatures(self.found.keyword_parameters, {original_node.name.value: None if own_base else fields})
            if not own_base and _positional_dataclass(original_node):
                merge_signatures(self.found.signatures, {original_node.name.value: _init_fields(body)})

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        self.function_reads.append((set(), len(self.found.facts)))
        self.parameters.append(frozenset(p.name.value for p in (*params.posonly_params, *params.params,
                                                                   *params.kwonly_params)))
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self.skip_names.add(id(param.name))
            if param.default is not None:
                self._record(param.name.value, f"{node.name.value}.{param.name.value}", param.default, K.DEFAULT,
                             param, context=".".join([*[s for s, _ in self.scopes], node.name.value]))
        self.scopes.append((node.name.value, False))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.parameters.pop()
        reads, start = self.function_reads.pop()
        if self.function_reads:
            self.function_reads[-1][0].update(reads)  # a closure's reads are its enclosing function's too
        captured = bool(reads & word_list("argument_capturing_calls"))
        params = original_node.params
        owner = self.scopes[-1][0] if original_node.name.value == "__init__" and self.scopes else \
            original_node.name.value  # Model(lr=...) passes __init__'s lr
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            key = (owner, param.name.value)
            self.found.parameter_reads[key] = self.found.parameter_reads.get(key, False) or captured \
                or param.name.value in reads
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        if positional and positional[0] in ("self", "cls"):
            positional = positional[1:]  # a method's receiver is not passed in the argument list
        merge_signatures(self.found.signatures, {owner: tuple(positional)})
        keywords = [p.name.value for p in (*params.params, *params.kwonly_params)]
        if keywords and keywords[0] in ("self", "cls"):
            keywords = keywords[1:]
        merge_signatures(self.found.keyword_parameters,
                         {owner: None if isinstance(params.star_kwarg, cst.Param) else frozenset(keywords)})
        if captured:
            return
        context = ".".join([*[s for s, _ in self.scopes], original_node.name.value])
        facts = self.found.facts
        for at in range(start, len(facts)):
            fact = facts[at]
            if fact.kind == K.DEFAULT and fact.context == context and fact.name not in reads:
                facts[at] = replace(fact, unread=True)

    # -- assignments ---------------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assign(target.target, node.value, node)
            name = target.target.value if isinstance(target.target, cst.Name) else None
            if name and isinstance(node.value, cst.BinaryOperation) and any(
                    isinstance(side, cst.Name) and side.value == name for side in (node.value.left, node.value.right)):
                self.augmented.add(name)  # lr = lr * n_gpus updates lr in place, as lr *= n_gpus does

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        in_model = bool(self.scopes) and self.scopes[-1][1]
        value = node.value
        if in_model and isinstance(value, cst.Call) and dotted_name(value.func) in _FIELD_CALLS:
            default = _field_default(value)
            if default is None:
                return
            value = default
        self._assign(node.target, value, node, kind=K.FIELD if in_model else K.ASSIGNMENT)

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, at: cst.CSTNode,
                kind: str = K.ASSIGNMENT) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
                for sub_target, sub_value in zip(target.elements, value.elements):
                    self._assign(sub_target.value, sub_value.value, at, kind)
            else:
                for element in target.elements:
                    if isinstance(element.value, cst.Name):
                        self._keyed(element.value.value, False)
            return
        if isinstance(target, cst.Name):
            entries = _literal_entries(value)
            self._keyed(target.value, entries is not None)
            self.sections.setdefault((self._context(), target.value), set()).add(_section(value))
            if entries is not None:
                self.literal_bindings.setdefault((self._context(), target.value), []).append(entries)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.stored_key_nodes.update(id(e.slice.value) for e in target.slice if isinstance(e.slice, cst.Index))
            key, _ = _target_name(target)  # the string key of opts["lr"], None for a key known only at run time
            self._keyed(target.value.value, key is not None)
            bindings = self.literal_bindings.get((self._context(), target.value.value))
            if key is not None and bindings:
                bindings[-1].append((key, value, at))  # opts["lr"] = 1e-3 adds an entry to the latest binding
        name, path = _target_name(target)
        if name is None:
            return
        if isinstance(value, cst.Dict):
            self._dict(value, path)
            return
        if _mentions(value, name):  # x = x * 2 rebinds, it states no value
            paths = _paths(value) if isinstance(value, cst.IfExp) else [value]
            branches = _other_paths(paths, name) if isinstance(value, cst.IfExp) else []
            for branch in branches:  # n = cfg.n_ood if ood else cfg.n: n_ood's path binds
                self._record(name, path, branch, kind, at)
            if not branches and any(isinstance(p, (cst.BinaryOperation, cst.UnaryOperation)) and _mentions(p, name)
                                    for p in paths):
                # arithmetic on the value read (w = cfg.w * 4 if long else cfg.w): the name holds a value worked
                # out at run time, so the value read is not what runs everywhere (a fallback, lr = args.lr or
                # cfg.lr, and a conversion, int(x), pass the value on)
                line, end = self._lines(at)
                self.found.facts.append(Fact(self.file, line, end, name, path, None, kind, self._context(), True,
                                             cell=self.cell))
            return
        if isinstance(value, cst.Call):
            self._layer(name, value, at)
        self._record(name, path, value, kind, at)

    def _layer(self, name: str, call: cst.Call, at: cst.CSTNode) -> None:
        """Note a layer of a stackable class (``extractors.layer_stacks.STACKED``) bound to ``name``, with the
        parameters its arguments bind (positional ones by ``extractors.signatures``)."""
        callee = dotted_name(call.func) or ""
        if callee.rsplit(".", 1)[-1] not in STACKED:
            return
        params: dict[str, Value | None] = {}
        for arg, parameter in zip(call.args, positional_parameters(callee)):
            if arg.keyword is not None or arg.star:
                break
            if parameter is not None:
                params[parameter] = fold(arg.value)
        for arg in call.args:
            if arg.keyword is not None and not arg.star:
                params[arg.keyword.value] = fold(arg.value)
        line, end = self._lines(at)
        self.layers.append(Layer(self.file, line, end, self._context(), name, callee, params, cell=self.cell))

    def _unpacked(self, value: cst.BaseExpression, callee: str) -> list[list[list[tuple]]] | None:
        """The written-out mappings a call of ``callee`` unpacks (``**opts``, ``**{**base, **extra}``), each as its
        alternative bindings seen so far in this scope (else at module level: one per branch that binds it), each
        binding a list of (key, value node, node to place it at); ``None`` when some keys are not written out here:
        the call is then an ``Unpacking`` (for a name, once ``resolve_unpacking`` has seen all its bindings).
        ``**kwargs`` passed on gives none."""
        if isinstance(value, cst.Name):
            if value.value in _PASS_THROUGH:
                return []
            self.unpacked.append((self._context(), value.value, callee))
            for scope in (self._context(), ""):
                key = (scope, value.value)
                if key in self.literal_keyed:
                    found = self.literal_bindings.get(key, [])
                    return [found] if self.literal_keyed[key] and found else None
            return None
        if isinstance(value, cst.Dict):
            parts: list[list[list[tuple]]] = []
            own: list[tuple] = []
            for element in value.elements:
                if isinstance(element, cst.StarredDictElement):
                    inner = self._unpacked(element.value, callee)
                    if inner is None:
                        return None
                    parts.extend(inner)
                elif (entry := _literal_entry(element)) is not None:
                    own.append(entry)
                else:
                    self.found.unpackings.append(Unpacking(callee, None))  # a key computed at run time
                    return None
            return [*parts, [own]] if own else parts
        # **vars(args), **self.cfg, **cfg["model"]: any key of the mapping (of that section, where it is named)
        self.found.unpackings.append(Unpacking(callee, _section(value)))
        return None

    def _receiver(self, callee: str) -> str:
        """The called name, with ``cls`` (a classmethod building its own class) read as the class of the method
        making the call: ``Config`` for ``cls(**data)`` in ``Config.from_dict``."""
        parts = self._context().split(".")
        return parts[-2] if callee == "cls" and len(parts) >= 2 else callee

    def _keyed(self, name: str, literal: bool) -> None:
        """Note one binding of ``name`` in the current scope: ``literal`` when its keys are written out."""
        key = (self._context(), name)
        self.literal_keyed[key] = self.literal_keyed.get(key, True) and literal

    def resolve_unpacking(self) -> None:
        """Record an ``Unpacking`` for each call unpacking a name whose keys are not written out here
        (``Config(**cfg)`` with ``cfg`` loaded from a file or passed in): keys of a configuration may reach the callee
        that way. Its section is the one every binding of the name (in its scope, else at module level) takes the
        mapping from (``cfg = config["model"]``), else unknown. Not for a mapping every binding of which is a dict
        display with literal keys, nor for one named as data (``model(**batch)``: ``_data_name``)."""
        for context, name, callee in self.unpacked:
            literal = self.literal_keyed.get((context, name), self.literal_keyed.get(("", name), False))
            if not literal and not _data_name(name) and (context, name) not in self.data_names:
                sections = self.sections.get((context, name), self.sections.get(("", name), {None}))
                section = next(iter(sections)) if len(sections) == 1 else None
                self.found.unpackings.append(Unpacking(callee, section))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        name, _ = _target_name(node.target)
        if name:
            self.augmented.add(name)

    # -- imports: their dotted names are not values ------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self._not_values(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._not_values(node)

    def _not_values(self, node: cst.CSTNode) -> None:
        _mark_subtree(node, self.not_references)
        _mark_subtree(node, self.imported)

    # -- loops ---------------------------------------------------------------------------------------------
    def visit_For(self, node: cst.For) -> None:
        line, end = self._lines(node.target)
        if isinstance(node.target, cst.Name) and _names_data(node.iter):
            self.data_names.add((self._context(), node.target.value))  # for b in loader: b is a batch
        if isinstance(node.iter, (cst.List, cst.Tuple)):
            self._loop(node.target, tuple(fold(e.value) for e in node.iter.elements
                                          if isinstance(e, cst.Element)), line, end, self._context())
        elif isinstance(node.iter, cst.Name):
            self.loops.append((node.target, node.iter.value, line, end, self._context()))

    def resolve_loops(self) -> None:
        """Bind the variables of loops over a name to the list that name holds in this file (``sizes = [...]``
        then ``for s, a in sizes``); a name bound to a list more than once is left alone (which one runs is not
        known)."""
        lists: dict[str, list[tuple]] = {}
        for fact in self.found.facts:
            if fact.kind == K.ASSIGNMENT and isinstance(fact.value, tuple):
                lists.setdefault(fact.name, []).append(fact.value)
        for target, name, line, end, context in self.loops:
            if len(lists.get(name, ())) == 1:
                self._loop(target, lists[name][0], line, end, context)

    def _loop(self, target: cst.BaseExpression, items: tuple, line: int, end: int, context: str) -> None:
        """Record each loop variable of ``target`` bound to the values it takes over ``items`` (folded elements);
        nothing when an element does not fold or does not unpack into the target."""
        if not items or any(item is None for item in items):
            return
        if isinstance(target, cst.Name):
            names: list[str | None] = [target.value]
            columns = [items]
        elif isinstance(target, (cst.Tuple, cst.List)) and all(
                isinstance(item, tuple) and len(item) == len(target.elements) for item in items):
            names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
            columns = [tuple(item[i] for item in items) for i in range(len(names))]
        else:
            return
        for name, values in zip(names, columns):
            if name and name != "_":
                self.found.facts.append(Fact(self.file, line, end, name, f"for {name}", values, K.LOOP, context,
                                             cell=self.cell))

    # -- dict literals -------------------------------------------------------------------------------------
    def visit_Dict(self, node: cst.Dict) -> None:
        if id(node) not in self.consumed:
            self._dict(node, "")

    def _dict(self, node: cst.Dict, prefix: str, callee: str | None = None) -> None:
        """Record a dict display's entries under their dotted paths; given the ``callee`` it is passed to as a
        keyword (``Cfg(arch={"num_layers": 2})``), each entry is a keyword of that call: the call consumes the
        whole mapping, so the entries count as read."""
        self.consumed.add(id(node))
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                continue
            key = element.key
            if (text := _string(key)) is not None:
                name = text
                if not _renames(element.value):
                    self.dict_keys.add(id(key))  # a key map's key is read (visit_SimpleString); others bind
            elif isinstance(key, (cst.Integer, cst.Float)):
                name = key.value
                self.consumed.add(id(key))
            else:
                continue
            path = f"{prefix}.{name}" if prefix else name
            if isinstance(element.value, cst.Dict):
                self._dict(element.value, path, callee)
            elif callee is not None:
                self._record(name, path, element.value, K.KEYWORD, element, context=callee)
            else:
                self._record(name, path, element.value, K.DICT, element)

    # -- calls ---------------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        callee = self._receiver(dotted_name(node.func) or "")  # cls(lr=...) in a classmethod builds the class
        last = callee.rsplit(".", 1)[-1]
        self.not_references.add(id(node.func))
        unpacked = [self._unpacked(arg.value, callee) for arg in node.args if arg.star == "**"]
        mappings = [m for u in unpacked if u is not None for m in u]
        if callee:
            line, end = self._lines(node)
            # a mapping whose keys are written out passes them as keywords; one of unknown keys, or of keys only
            # some of its bindings hold (one dict per branch), may pass any keyword
            known: set[str] = set()
            unpacks = any(u is None for u in unpacked)
            for bindings in mappings:
                key_sets = [frozenset(key for key, _, _ in binding) for binding in bindings]
                common = frozenset.intersection(*key_sets)
                known |= common
                unpacks = unpacks or any(keys != common for keys in key_sets)
            self.found.calls.append(CallFact(self.file, line, end, callee, self._context(),
                                             _argument_reads(node), cell=self.cell, unpacks=unpacks,
                                             unpacked_keys=tuple(sorted(known)),
                                             positional=self._positional(node, callee)))
            for binding in (b for bindings in mappings for b in bindings):  # each entry is a keyword of the call
                for key, value, at in binding:
                    self._record(key, f"{callee}.{key}", value, K.KEYWORD, at, context=callee)
        for arg in node.args:
            if arg.keyword is not None:
                self.skip_names.add(id(arg.keyword))
        if callee in ("getattr", "hasattr") and len(node.args) >= 2 \
                and isinstance(node.args[1].value, cst.SimpleString):
            attribute = node.args[1].value.evaluated_value  # an attribute read by name: getattr(config, "lr")
            if isinstance(attribute, str):
                self.found.names_read[attribute] += 1
                self._read_scope(attribute, node)
        if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) \
                and node.func.attr.value in ("update", "setdefault"):
            self._keyed(node.func.value.value, False)  # keys added at run time
        if last == "add_argument" or callee in _CLI_OPTIONS:
            self._argparse(node)
            return
        if not callee and isinstance(node.func, cst.Attribute):
            last = node.func.attr.value  # a method of a computed receiver: cfg.get("train", {}).get("lr", 1e-4)
        if last == "get" and len(node.args) == 2 and node.args[0].keyword is None:
            read = _key_text(node.args[0].value)
            if read is not None:
                owner = _lookup_path(node.func.value) if isinstance(node.func, cst.Attribute) else None
                # a dotted key (cfg.get("model.width", 64)) reads its last part, as a config file nests it
                self._record(read.rsplit(".", 1)[-1], f"{owner}.get.{read}" if owner else f"{callee}.{read}",
                             node.args[1].value, K.GET_DEFAULT, node)
        if last == "convert" and len(node.args) == 1 and node.args[0].keyword is None:
            mode = node.args[0].value
            if isinstance(mode, cst.SimpleString) and mode.evaluated_value in _MODE_CHANNELS:
                self._record("image_channels", f"{callee or last}.image_channels", mode, K.KEYWORD, node,
                             context=callee or last, value=_MODE_CHANNELS[str(mode.evaluated_value)])
        if callee == "getattr" and len(node.args) == 3 and all(a.keyword is None for a in node.args):
            key = _string(node.args[1].value)  # getattr(cfg, "lr", 1e-3): the default of a read, like .get
            if key is not None:
                owner = dotted_name(node.args[0].value) or ""
                self._record(key, f"{owner}.{key}", node.args[2].value, K.GET_DEFAULT, node)
        for arg in node.args:
            if arg.keyword is not None and not arg.star:
                if isinstance(arg.value, cst.Dict):
                    self._dict(arg.value, arg.keyword.value, callee or None)
                    continue
                self._record(arg.keyword.value, f"{callee}.{arg.keyword.value}", arg.value, K.KEYWORD, arg,
                             context=callee)
        if callee and not callee.startswith(("self.", "cls.")):
            # a known library consumer's positional arguments bind its parameters (nn.Dropout(0.1))
            for arg, parameter in zip(node.args, positional_parameters(callee)):
                if arg.keyword is not None or arg.star:
                    break
                if parameter is not None:
                    self._record(parameter, f"{callee}.{parameter}", arg.value, K.KEYWORD, arg, context=callee)

    def _positional(self, node: cst.Call, callee: str) -> tuple[Fact, ...]:
        """The positional arguments of a call, before any keyword or star, each as an unnamed keyword fact (its
        value, or the name it passes through): ``extractors.provenance.passed_for`` names them by the parameters
        of the repository's own function they reach. Library consumers' positional arguments are named where
        they are (``extractors.signatures``) and are left out here."""
        if positional_parameters(callee):
            return ()
        out = []
        for at, arg in enumerate(node.args):
            if arg.keyword is not None or arg.star:
                break
            value = fold(arg.value)
            line, end = self._lines(arg)
            source = (_read_key(arg.value) or _target_name(arg.value)[0] or "") if value is None else ""
            computed = value is None and not source
            out.append(Fact(self.file, line, end, "", f"{callee}.{at}", value, K.KEYWORD, callee, computed,
                            cell=self.cell, source=source,
                            local_source=bool(source) and isinstance(arg.value, cst.Name),
                            key_path=_keyed_read(arg.value) if source else ()))
        return tuple(out)

    def _argparse(self, node: cst.Call) -> None:
        options = [text for a in node.args if a.keyword is None and (text := _string(a.value)) is not None]
        # an option's flags declare it: code reads it later (args.lr), or nothing does
        self.dict_keys.update(id(a.value) for a in node.args if _string(a.value) is not None
                              and (a.keyword is None or a.keyword.value == "dest"))
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        dest = keywords.get("dest")
        bare = [o for o in options if not o.startswith("-")]
        if (text := _string(dest)) is not None:
            name = text
        elif bare and len(options) > 1:  # click: the parameter's name beside its flags
            name = bare[0]
        else:
            longs = [o for o in options if o.startswith("--")] or options
            if not longs:
                return
            name = longs[0].lstrip("-").replace("-", "_")
        default = keywords.get("default")
        if default is None:
            return
        value = fold(default)
        type_node = keywords.get("type")
        convert = _ARGPARSE_TYPES.get(dotted_name(type_node) or "") if type_node is not None else None
        if isinstance(value, str) and convert is not None:
            try:
                value = convert(value)
            except ValueError:
                return
        if value is not None:
            self._record(name, f"args.{name}", default, K.ARGPARSE, node, context="argparse", value=value)

    # -- literals and reads --------------------------------------------------------------------------------
    def visit_Integer(self, node: cst.Integer) -> None:
        self._literal(node)

    def visit_Float(self, node: cst.Float) -> None:
        self._literal(node)

    def _literal(self, node: cst.Integer | cst.Float) -> None:
        if id(node) in self.consumed:
            return
        try:
            value = node.evaluated_value
        except (SyntaxError, ValueError):  # compile() refuses integers over 4,300 digits: not a setting anyway
            return
        if is_number(value):
            line, end = self._lines(node)
            self.found.facts.append(Fact(self.file, line, end, "", "", value, K.LITERAL, self._context(),
                                         cell=self.cell))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.skip_names:
            return
        if self._loaded():
            self.found.reads[node.value] += 1
            self.found.names_read[node.value] += 1
            self.found.plain_names_read[node.value] += 1
            if id(node) in self.imported:
                self.found.unread_mentions[node.value] += 1
            self._read_scope(node.value, node)
            if self.function_reads:
                self.function_reads[-1][0].add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.not_references.add(id(node.value))
        if self._loaded():
            self.found.reads[node.attr.value] += 1
            self.found.names_read[node.attr.value] += 1
            self._read_scope(node.attr.value, node)
            if self.function_reads:
                self.function_reads[-1][0].add(node.attr.value)  # self.save_hyperparameters() captures arguments
            dotted = dotted_name(node)
            if id(node) not in self.not_references and dotted and dotted.split(".", 1)[0] not in ("self", "cls"):
                line, end = self._lines(node)
                self.found.calls.append(CallFact(self.file, line, end, dotted, self._context(), (),
                                                 referenced=True, cell=self.cell))

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        # a key path under a section worked out at run time (cfg.get(f"{stage}.layer_wise_decay", 1.0)) reads its
        # last key, as the plain path "stage1.layer_wise_decay" does (visit_SimpleString)
        text = _key_text(node)
        if text is not None and _COMPUTED_KEY_PATH.match(text):
            self._read_key(text, node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if id(node) in self.dict_keys:
            return
        text = node.evaluated_value
        if isinstance(text, str) and (_IDENTIFIER.match(text) or _KEY_PATH.match(text)):
            key = self._read_key(text, node)
            if id(node) in self.stored_key_nodes:
                self.found.unread_mentions[key] += 1

    def _read_key(self, text: str, node: cst.CSTNode) -> str:
        """Count a read of the key a string names (``"--batch-size"``, ``"train.lr"``: its last part, ``-`` as
        ``_``) at ``node``; returns the key."""
        key = text.lstrip("-").rsplit(".", 1)[-1].replace("-", "_")
        self.found.reads[key] += 1
        self._read_scope(key, node)
        return key


def _renames(value: cst.BaseExpression) -> bool:
    """Whether a dict entry's value is an identifier string: the entry renames a key (``{"batch_size":
    "train_batch_size"}``, a key map code applies to a loaded config), so its key is a key the code reads."""
    text = _string(value)
    return text is not None and bool(_IDENTIFIER.match(text))


def _indexed(node: cst.Dict) -> tuple | None:
    """A dict display writing a sequence out entry by entry (``{"x0_factor": 8, "x1_factor": 4}``): its values
    (``extractors.values.indexed_sequence``), else ``None``."""
    entries = []
    for element in node.elements:
        key = _string(element.key) if isinstance(element, cst.DictElement) else None
        if key is None:
            return None
        entries.append((key, fold(element.value)))
    return indexed_sequence(entries)


def _paths(node: cst.IfExp) -> list[cst.BaseExpression]:
    """The value of each path of a conditional expression, nested ones flattened: ``a if c else (b if d else e)``
    -> ``[a, b, e]``."""
    return [leaf for branch in (node.body, node.orelse)
            for leaf in (_paths(branch) if isinstance(branch, cst.IfExp) else [branch])]


def _other_paths(paths: list[cst.BaseExpression], name: str) -> list[cst.BaseExpression]:
    """Of the ``paths`` of a conditional expression (``_paths``), those that bind ``name`` to something else, when
    every other path only reads ``name`` itself (``epochs = cfg.epochs_ood if ood else cfg.epochs`` ->
    ``[cfg.epochs_ood]``): the path reading ``name`` passes on the value bound where it is read, as ``epochs =
    cfg.epochs`` does, and each other path is a value the name may take. ``[]`` for anything else, a path computing
    from ``name`` (``x * 2 if c else 5``) among them, whose values a fact cannot hold."""
    reading = [p for p in paths if _mentions(p, name)]
    if len(paths) > _MAX_PATHS or any(_target_name(p)[0] != name for p in reading):
        return []
    return [p for p in paths if not _mentions(p, name)]


def _string(node: cst.BaseExpression | None) -> str | None:
    """The text of a plain string literal (``"lr"``), ``None`` for anything else (bytes, an f-string, a name)."""
    return node.evaluated_value if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str) \
        else None


def _key_text(node: cst.BaseExpression | None) -> str | None:
    """The dotted key a read by key names: a plain string's text (``"optim.lr"``), or an f-string's with each
    placeholder written ``{}`` (``f"equations.{eq_id}.t_max"``: ``"equations.{}.t_max"``, a key of whichever section
    runs) when its last part is written out; ``None`` for anything else (a name, a key ending in a placeholder)."""
    text = _string(node)
    if text is not None or not isinstance(node, cst.FormattedString):
        return text
    parts = [p.value if isinstance(p, cst.FormattedStringText) else KEY_PLACEHOLDER for p in node.parts]
    text = "".join(parts)
    return text if KEY_PLACEHOLDER not in text.rsplit(".", 1)[-1] else None


# Calls returning a plain copy of the mapping they are given (builtins, copy, OmegaConf, dataclasses)
_MAPPING_COPIES = frozenset({"dict", "deepcopy", "copy", "to_container", "asdict"})


def _section(value: cst.BaseExpression) -> str | None:
    """The key a mapping sits under where the code names it: ``"model"`` for ``cfg["model"]``, ``cfg.get("model",
    {})``, ``getattr(cfg, "model")``, ``cfg.model`` and copies of them (``_MAPPING_COPIES``, ``.copy()``); ``None``
    for anything else, an attribute of ``self`` among them (``self.cfg`` may hold the whole configuration)."""
    if isinstance(value, cst.Subscript):
        return _target_name(value)[0]
    if isinstance(value, cst.Attribute):
        receiver = dotted_name(value.value)
        return None if receiver in ("self", "cls") or value.attr.value.startswith("__") else value.attr.value
    if not isinstance(value, cst.Call) or not value.args:
        return _section(value.func.value) if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
            and value.func.attr.value == "copy" else None
    name = dotted_name(value.func) or ""
    first = value.args[0].value
    if name.rsplit(".", 1)[-1] in _MAPPING_COPIES and value.args[0].keyword is None:
        return _section(first)
    named = value.args[1].value if name == "getattr" and len(value.args) >= 2 else \
        first if isinstance(value.func, cst.Attribute) and value.func.attr.value == "get" else None
    return _string(named)


def _data_name(name: str) -> bool:
    """Whether ``name`` names data rather than settings: one of its ``_``-separated words is in
    ``data_mapping_words`` (``extractors/words.yaml``: ``batch``, ``train_loader``)."""
    return bool(set(re.split(r"_+", name.lower())) & word_list("data_mapping_words"))


def _names_data(node: cst.BaseExpression) -> bool:
    """Whether an iterated expression names data (``loader``, ``tqdm(train_dataloader)``, ``self.dataset``): one
    of the names or attributes it reads is a ``_data_name``."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and _data_name(current.value):
            return True
        if isinstance(current, cst.Attribute):
            stack.append(current.attr)
        stack.extend(c for c in node_children(current) if isinstance(c, (cst.BaseExpression, cst.Arg)))
    return False


def _literal_entry(element: cst.BaseDictElement) -> tuple | None:
    """A dict display's entry as (key, value node, the entry) when its key is a written-out string; else ``None``
    (a ``**`` element, a key computed at run time)."""
    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) \
            and isinstance(element.key.evaluated_value, str):
        return element.key.evaluated_value, element.value, element
    return None


def _literal_entries(value: cst.BaseExpression) -> list[tuple] | None:
    """The entries of a mapping whose keys are all written out, as (key, value node, node to place it at): a dict
    display with string keys and no ``**`` element, or ``dict(a=..., b=...)`` with keywords only; else ``None``."""
    if isinstance(value, cst.Dict):
        entries = [entry for e in value.elements if (entry := _literal_entry(e)) is not None]
        return entries if len(entries) == len(value.elements) else None
    if isinstance(value, cst.Call) and dotted_name(value.func) == "dict":
        if all(arg.keyword is not None and not arg.star for arg in value.args):
            return [(arg.keyword.value, arg.value, arg) for arg in value.args if arg.keyword is not None]
    return None


def _target_name(target: cst.BaseExpression) -> tuple[str | None, str]:
    """``x`` -> (x, x); ``self.cfg.lr`` -> (lr, self.cfg.lr); ``cfg["lr"]`` -> (lr, cfg.lr); ``groups[0]["lr"]`` ->
    (lr, <entry>.lr) (``extractors.facts.UNNAMED_HOLDER``)."""
    if isinstance(target, cst.Name):
        return target.value, target.value
    if isinstance(target, cst.Attribute):
        path = dotted_name(target) or target.attr.value
        return target.attr.value, path
    if isinstance(target, cst.Subscript) and len(target.slice) == 1:
        index = target.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            key = index.value.evaluated_value
            if isinstance(key, str):
                if isinstance(target.value, (cst.Name, cst.Attribute)):
                    base = dotted_name(target.value) or ""
                else:  # opt.param_groups[0]["lr"], make()["lr"]: a mapping with no name of its own
                    base = K.UNNAMED_HOLDER
                return key, f"{base}.{key}" if base else key
    return None, ""


def _mark_subtree(node: cst.CSTNode, marks: set[int]) -> None:
    """Add the ids of ``node`` and every node below it to ``marks``."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        marks.add(id(current))
        stack.extend(child_nodes(current))


def _read_key(node: cst.BaseExpression) -> str | None:
    """The key a lookup with a default reads: ``cfg.get("lr", 1e-3)``, ``cfg.get("train", {}).get("lr", 1e-3)``
    and ``getattr(cfg, "lr", 1e-3)`` read ``lr``, ``cfg.get("optim.lr", 1e-3)`` and ``cfg.get(f"{part}.lr", 1e-3)``
    too (``_key_text``); ``None`` for any other expression."""
    if not isinstance(node, cst.Call):
        return None
    method = isinstance(node.func, cst.Attribute) and node.func.attr.value == "get"  # also on a computed receiver
    position = 0 if method else 1 if dotted_name(node.func) == "getattr" else None
    if position is None or len(node.args) <= position or node.args[position].keyword is not None:
        return None
    key = _key_text(node.args[position].value) if method else _string(node.args[position].value)
    return key.rsplit(".", 1)[-1] if key is not None else None  # a dotted key reads its last part, as _record does


def _lookup_path(node: cst.BaseExpression) -> str | None:
    """The dotted path of a config lookup's receiver: ``cfg`` for ``cfg``, ``cfg.train.stage1`` for
    ``cfg.get("train", {}).get("stage1", {})`` or ``cfg["train"]["stage1"]`` (``_keyed_read``, joined); ``None`` for
    other expressions."""
    return ".".join(_keyed_read(node)) or dotted_name(node)


def _keyed_read(node: cst.BaseExpression) -> tuple[str, ...]:
    """A read by key as ``(receiver, key, ...)`` (``Fact.key_path``): ``("data", "train", "lr")`` for
    ``data.get("train", {}).get("lr", 1e-3)`` or ``data["train"]["lr"]``, ``("cfg", "optim", "lr")`` for
    ``cfg.get("optim.lr", 1e-3)``, ``("self.cfg", "lr")`` for ``self.cfg["lr"]``, ``("cfg", "{}", "lr")`` for
    ``cfg.get(f"{part}.lr")`` (a placeholder stands for any one key: ``_key_text``); ``()`` for any other
    expression, and for a receiver with no dotted name (``load()["lr"]``)."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key, receiver = _string(node.slice[0].slice.value), node.value
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get" \
            and node.args and node.args[0].keyword is None:
        key, receiver = _key_text(node.args[0].value), node.func.value
    else:
        return ()
    if not key:
        return ()
    inner = _keyed_read(receiver) or ((name,) if (name := dotted_name(receiver)) else ())
    return (*inner, *key.split(".")) if inner else ()


def _argument_reads(call: cst.Call) -> tuple[str, ...]:
    """The names and attributes (last components) and string subscript keys the arguments of ``call`` read, in
    source order, searching at most ``_READS_BUDGET`` nodes."""
    reads: list[str] = []
    stack: list[cst.CSTNode] = [arg.value for arg in reversed(call.args)]
    budget = _READS_BUDGET
    while stack and budget:
        budget -= 1
        current = stack.pop()
        if isinstance(current, cst.Name):
            reads.append(current.value)
        elif isinstance(current, cst.Attribute):
            reads.append(current.attr.value)
            stack.append(current.value)
        elif isinstance(current, cst.SimpleString) and isinstance(current.evaluated_value, str) \
                and _IDENTIFIER.match(current.evaluated_value):
            reads.append(current.evaluated_value)
        else:
            stack.extend(reversed(node_children(current)))
    return tuple(reads)


def _field_default(call: cst.Call) -> cst.BaseExpression | None:
    """The default of ``field(default=...)`` / ``Field(0.1, ...)``; ``None`` for ``default_factory`` only."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "default":
            return arg.value
    if call.args and call.args[0].keyword is None:
        return call.args[0].value
    return None


def _mentions(node: cst.BaseExpression, name: str) -> bool:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name:
            return True
        if isinstance(current, cst.Attribute) and current.attr.value == name:
            return True
        stack.extend(child_nodes(current))
    return False


_FIELDS: dict[type, tuple[str, ...]] = {}  # node class -> its dataclass field names


def child_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The same nodes as libcst's ``node.children``, in field order rather than source order: read from the node's
    fields instead of by rebuilding it (what ``children`` does, at several times the cost). For searches whose
    answer does not depend on order."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in fields(node))
    for name in names:
        value = getattr(node, name)
        if NODE_CLASSES[type(value)]:
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (item for item in value if NODE_CLASSES[type(item)])
