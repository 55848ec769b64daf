"""The libcst trees of a repository's Python sources, parsed once each and only when something reads them.

A source indexed from its text keeps the tree its extraction parsed; a source whose facts came from the cache
(``extractors.cache``) keeps only its text, and is parsed the first time a rule, the call graph or the judge reads
its tree. Either way every reader of one index shares one tree and one position table per source.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

# Extra recursion depth for a parse made on demand: the first parse of the same text ran near the bottom of the
# stack (while indexing), a later one runs inside a rule; the same text must not fail there for lack of depth.
_HEADROOM = 500


def parse_python(text: str, file: str, cell: bool = False) -> Any:
    """``text`` parsed by libcst in a ``MetadataWrapper`` (its tree not copied), its ``PositionProvider`` table
    already resolved (``extractors.positions``). Where libcst refuses the text as written, it is parsed as CPython
    reads its tabs and form feeds (``extractors.python_source.normalised``) unless CPython refuses it too. Raises
    libcst's ``ParserSyntaxError`` or ``ValueError`` when it cannot be parsed."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from extractors.positions import resolve_positions
    from extractors.python_source import normalised, refusal
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, ValueError):
        rewritten = normalised(text)  # CPython's reading of tabs and form feeds, which libcst may refuse
        if rewritten is None or refusal(text, file, cell) is not None:
            raise
        module = cst.parse_module(rewritten)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    resolve_positions(wrapper)
    return wrapper


class Trees:
    """Per source key (``file`` or ``file#cell``, in the order added): its libcst ``Module`` and its positions
    (node -> ``CodeRange``, from ``PositionProvider``). ``modules`` and ``positions`` are read-only mappings over
    the same keys; reading a value parses the source if it was added as text. A source parsed once at indexing time
    parses again the same way (never raises for such a source short of memory)."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._parsed: dict[str, tuple[Any, Mapping]] = {}
        self._keys: dict[str, None] = {}
        self.modules: Mapping[str, Any] = _View(self, 0)
        self.positions: Mapping[str, Mapping] = _View(self, 1)

    def add_parsed(self, key: str, wrapper: Any) -> None:
        """Keep the tree of ``wrapper`` (a libcst ``MetadataWrapper``) and the positions it resolves."""
        from libcst.metadata import PositionProvider
        self._keys[key] = None
        self._parsed[key] = (wrapper.module, wrapper.resolve(PositionProvider))

    def add_text(self, key: str, text: str) -> None:
        """Keep ``text``, which libcst parsed when its facts were extracted, to parse when its tree is read."""
        self._keys[key] = None
        self._texts[key] = text

    def keys(self) -> Iterator[str]:
        """The source keys, in the order added."""
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def parsed(self, key: str) -> tuple[Any, Mapping]:
        """(module, positions) of ``key``; raises ``KeyError`` for a key never added."""
        found = self._parsed.get(key)
        if found is None:
            text = self._texts[key]  # KeyError for an unknown key
            from libcst.metadata import PositionProvider
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(limit + _HEADROOM)
            try:
                wrapper = parse_python(text, key.partition("#")[0], "#" in key)
                found = self._parsed[key] = (wrapper.module, wrapper.resolve(PositionProvider))
                del self._texts[key]
            finally:
                sys.setrecursionlimit(limit)
        return found


class _View(Mapping):
    """``Trees.modules`` (``part`` 0) or ``Trees.positions`` (``part`` 1)."""

    def __init__(self, trees: Trees, part: int) -> None:
        self._trees = trees
        self._part = part

    def __getitem__(self, key: str) -> Any:
        if key not in self._trees._keys:
            raise KeyError(key)
        return self._trees.parsed(key)[self._part]

    def __contains__(self, key: object) -> bool:
        return key in self._trees._keys

    def __iter__(self) -> Iterator[str]:
        return self._trees.keys()

    def __len__(self) -> int:
        return len(self._trees)


# -- a read-only walk ----------------------------------------------------------------------------------------------
# libcst's ``node.visit(visitor)`` calls the visitor on every node, and most nodes of a module are tokens: the
# whitespace, comments, operators, commas, dots and brackets between the expressions (six in ten nodes of a typical
# file). ``visit`` makes the same calls on the visitor, in the same order, except that it does not enter the token
# nodes of a visitor that has no method for any token class: such a visitor does nothing on them.

_ORDER: dict[type, tuple[str, ...]] = {}  # node class -> the attributes libcst visits, in its order
_PLAN: dict[type, tuple[bool, frozenset, frozenset, bool]] = {}  # visitor class -> how to walk it (``_plan``)
_NODE: Any = None  # libcst.CSTNode, imported on the first walk


class _NodeClasses(dict):
    """class -> whether it is a libcst node class, learnt on first sight: ``NODE_CLASSES[type(value)]`` answers
    ``isinstance(value, CSTNode)`` without the ``ABCMeta`` check, several times slower, that the walks would
    otherwise make on every field of every node."""

    def __missing__(self, kind: type) -> bool:
        _load_libcst()
        found = self[kind] = issubclass(kind, _NODE)
        return found


NODE_CLASSES: dict[type, bool] = _NodeClasses()
# The node classes whose libcst visit depends on the node (libcst 1.x: their ``_visit_and_replace_children`` holds a
# conditional, e.g. an f-string part without a format spec gets no callbacks for it): their order is learnt per node.
_CONDITIONAL = frozenset({"ImportFrom", "LazyImportFrom", "FormattedStringExpression", "TemplatedStringExpression"})
_TOKENS: frozenset = frozenset()  # the token classes (``_token_classes``)
_ORDER_BY_NONES: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}  # see ``_attribute_order``
_RECORDER: Any = None  # ``_recorder``
_METHODS: dict = {}  # extractors.visitor's table of (pass class, node class) -> its visit and leave functions
_methods: Any = None  # extractors.visitor.methods, imported on the first walk


def _load_libcst() -> None:
    """Import libcst's node class and learn its token classes, on the first walk (startup need not import it)."""
    global _NODE, _TOKENS, _METHODS, _methods
    if _NODE is None:
        from libcst import CSTNode

        from extractors import visitor
        _TOKENS = _token_classes()
        _METHODS, _methods = visitor._METHODS, visitor.methods
        _NODE = CSTNode


def token_classes() -> frozenset:
    """libcst's token node classes (``_token_classes``: whitespace, comments, operators, punctuation, brackets),
    learnt once. A search for expressions, calls or names need not enter them: they hold only tokens."""
    _load_libcst()
    return _TOKENS


def visit(node: Any, visitor: Any) -> None:
    """Walk ``node`` (a libcst ``CSTNode``) with ``visitor`` (a ``libcst.CSTVisitor``) as ``node.visit(visitor)``
    does: ``on_visit``, then (unless it returned False) each child attribute in libcst's order with
    ``on_visit_attribute``/``on_leave_attribute`` around it (where they can do something: ``_plan``), then
    ``on_leave``; except that token nodes (``_token_classes``: whitespace, comments, operators, punctuation, and
    nothing else inside them) are not entered where the visitor has no method for them (``_plan``). The
    visitor's metadata is resolved by the caller (``visit_wrapper``). Raises ``RecursionError`` on trees deeper
    than the stack allows."""
    _load_libcst()
    plan = _PLAN.get(type(visitor))
    if plan is None:
        plan = _PLAN[type(visitor)] = _plan(type(visitor))
    if type(node) not in plan[2]:
        if plan[3]:
            _walk_table(node, visitor, type(visitor), plan[1], plan[2])
        else:
            _walk(node, visitor, *plan[:3])


def node_children(node: Any) -> list:
    """The list libcst's ``node.children`` gives (every child node of a libcst ``CSTNode``, tokens included, in
    source order), read from the attributes in libcst's visiting order instead of by rebuilding the node."""
    _load_libcst()
    order = _ORDER.get(type(node))
    if order is None:
        order = _attribute_order(node)
    found: list = []
    for name in order:
        value = getattr(node, name)
        if type(value) is tuple or type(value) is list:
            found.extend(value)
        elif NODE_CLASSES[type(value)]:
            found.append(value)
    return found


def visit_wrapper(wrapper: Any, visitor: Any) -> None:
    """``wrapper.visit(visitor)`` (a libcst ``MetadataWrapper``) with ``visit``'s walk: the visitor's metadata
    dependencies are resolved on ``wrapper``, then its module is walked."""
    with visitor.resolve(wrapper):
        visit(wrapper.module, visitor)


def _walk(node: Any, visitor: Any, always: bool, pairs: frozenset, skipped: frozenset) -> None:
    if visitor.on_visit(node):
        kind = type(node)
        order = _ORDER.get(kind)
        if order is None:
            order = _attribute_order(node)
        for name in order:
            hook = always or (pairs and (kind.__name__, name) in pairs)
            if hook:
                visitor.on_visit_attribute(node, name)
            value = getattr(node, name)
            if type(value) is tuple or type(value) is list:
                for child in value:
                    if type(child) not in skipped:
                        _walk(child, visitor, always, pairs, skipped)
            elif NODE_CLASSES[type(value)] and type(value) not in skipped:
                _walk(value, visitor, always, pairs, skipped)
            if hook:
                visitor.on_leave_attribute(node, name)
    visitor.on_leave(node)


def _walk_table(node: Any, visitor: Any, kind: type, pairs: frozenset, skipped: frozenset) -> None:
    """``_walk`` for a visitor that keeps libcst's (or ``extractors.visitor.Visitor``'s) ``on_visit`` and
    ``on_leave`` and calls no attribute callback on every attribute: those two methods' calls made here from the
    table of ``extractors.visitor.methods`` (the pass's own ``visit_<Node>``/``leave_<Node>`` only). Its loop over
    the attributes is ``_walk``'s, written again: this is the hottest loop of a run, where a shared helper would
    cost a call per node."""
    node_kind = type(node)
    visit, leave = _METHODS.get((kind, node_kind)) or _methods(kind, node_kind)
    if visit is None or visit(visitor, node) is not False:
        order = _ORDER.get(node_kind)
        if order is None:
            order = _attribute_order(node)
        for name in order:
            hook = pairs and (node_kind.__name__, name) in pairs
            if hook:
                visitor.on_visit_attribute(node, name)
            value = getattr(node, name)
            if type(value) is tuple or type(value) is list:
                for child in value:
                    if type(child) not in skipped:
                        _walk_table(child, visitor, kind, pairs, skipped)
            elif NODE_CLASSES[type(value)] and type(value) not in skipped:
                _walk_table(value, visitor, kind, pairs, skipped)
            if hook:
                visitor.on_leave_attribute(node, name)
    if leave is not None:
        leave(visitor, node)


def _attribute_order(node: Any) -> tuple[str, ...]:
    """The attributes libcst's ``_visit_and_replace_children`` visits on ``node``, in its order, learnt by running it
    once with a visitor that records them and does not descend. Kept per class when the record is complete (every
    field left out holds a value libcst never visits: a string, a number) and the class visits the same attributes
    whatever its values (not one of ``_CONDITIONAL``); otherwise per class and set of fields holding ``None``
    (``_ORDER_BY_NONES``): libcst's visits differ only by whether an optional field is ``None`` (an f-string part's
    format spec), and a field left out of the record that holds ``None`` (``Index.star``, ``Newline.value``) could
    otherwise be one visited only when set."""
    import dataclasses

    nones = tuple(f.name for f in dataclasses.fields(node) if getattr(node, f.name) is None)
    known = _ORDER_BY_NONES.get((type(node), nones))
    if known is not None:
        return known
    recorder = _recorder()
    recorder.names = []
    node._visit_and_replace_children(recorder)
    order = tuple(recorder.names)
    if type(node).__name__ not in _CONDITIONAL and all(name in order for name in nones):
        _ORDER[type(node)] = order
    _ORDER_BY_NONES[(type(node), nones)] = order
    return order


def _recorder() -> Any:
    """The visitor ``_attribute_order`` records with (one per process: making a class per node cost more than the
    walk it saved)."""
    global _RECORDER
    if _RECORDER is None:
        import libcst as cst

        class Recorder(cst.CSTVisitor):
            def __init__(self) -> None:
                super().__init__()
                self.names: list[str] = []

            def on_visit(self, node: Any) -> bool:
                return False

            def on_leave(self, original_node: Any) -> None:
                pass

            def on_visit_attribute(self, node: Any, attribute: str) -> None:
                self.names.append(attribute)

            def on_leave_attribute(self, original_node: Any, attribute: str) -> None:
                pass

        _RECORDER = Recorder()
    return _RECORDER


def _token_classes() -> frozenset:
    """libcst's token node classes: whitespace and comments (``libcst._nodes.whitespace``), operators, commas, dots,
    colons and the like (``libcst._nodes.op``, but ``ImportStar``, which stands for names), and brackets. Nodes of
    these classes hold only strings and other token nodes."""
    import inspect

    import libcst as cst
    import libcst._nodes.op as operators
    import libcst._nodes.whitespace as whitespace
    found = {kind for module in (operators, whitespace) for _, kind in inspect.getmembers(module, inspect.isclass)
             if issubclass(kind, cst.CSTNode) and kind.__module__ == module.__name__ and kind is not cst.ImportStar}
    found |= {cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
              cst.RightCurlyBrace}
    return frozenset(found)


def _plan(kind: type) -> tuple[bool, frozenset, frozenset, bool]:
    """How ``visit`` walks for visitors of class ``kind``: (whether to call ``on_visit_attribute`` and
    ``on_leave_attribute`` on every attribute, the (node class name, attribute) pairs to call them on otherwise, the
    token classes not to enter, whether the walk calls the class's ``visit_<Node>``/``leave_<Node>`` methods itself
    (``_walk_table``: the class keeps libcst's or ``extractors.visitor.Visitor``'s ``on_visit`` and ``on_leave``)).
    Every attribute when the class overrides those callbacks; otherwise the pairs its
    ``visit_<Node>_<attribute>``/``leave_<Node>_<attribute>`` methods name (libcst's node class names hold no
    underscore), as libcst's own callbacks only dispatch to such methods. Tokens are skipped when no method names a
    token class; when some do, only the leaf tokens (``SimpleWhitespace``, ``Newline``, ``Comment``, which hold
    nothing) not named are skipped."""
    import libcst as cst

    from extractors.visitor import Visitor
    # libcst's CSTVisitor itself defines a no-op method for every node and attribute: only the others count
    names = [name for name in dir(kind) if name.startswith(("visit_", "leave_"))
             and getattr(kind, name) is not getattr(cst.CSTVisitor, name, None)]
    always = (getattr(kind, "on_visit_attribute") is not cst.CSTVisitor.on_visit_attribute
              or getattr(kind, "on_leave_attribute") is not cst.CSTVisitor.on_leave_attribute)
    pairs = frozenset(tuple(name.split("_", 2)[1:]) for name in names if name.count("_") >= 2)
    handled = {name.split("_")[1] for name in names}
    if always:
        return True, pairs, frozenset(), False
    table = (getattr(kind, "on_visit") in (cst.CSTVisitor.on_visit, Visitor.on_visit)
             and getattr(kind, "on_leave") in (cst.CSTVisitor.on_leave, Visitor.on_leave))
    if not handled & {token.__name__ for token in _TOKENS}:
        return False, pairs, _TOKENS, table
    leaves = {cst.SimpleWhitespace, cst.Newline, cst.Comment}
    return False, pairs, frozenset(leaf for leaf in leaves if leaf.__name__ not in handled), table
