"""libcst's ``PositionProvider`` table (node -> ``CodeRange``), computed the same way at a lower cost.

libcst finds positions by generating the module's code and noting the line and column before and after each node.
``resolve_positions`` runs that same generation with a state that does less per token and per node: it looks for
line breaks only in tokens that hold one, makes one ``CodePosition`` per distinct place instead of one per node
boundary (positions are immutable, so nodes that start or end at the same place share it), and brackets syntactic
positions with a plain context manager instead of a generator, and places no whitespace, comma, dot, colon or
operator token (``_UNPLACED``: about half the nodes of a module; no reader asks where they are, comments and
brackets are placed). Every place it stores in the wrapper equals the one ``wrapper.resolve(PositionProvider)``
would build, and every other node has one (``tests/test_trees.py`` compares them).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from libcst._position import CodePosition, CodeRange
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


def resolve_positions(wrapper: MetadataWrapper) -> Mapping[Any, CodeRange]:
    """The ``PositionProvider`` table of ``wrapper``'s module, computed once and kept in the wrapper so that
    ``wrapper.resolve(PositionProvider)`` and visitors depending on ``PositionProvider`` read it."""
    known = wrapper._metadata.get(PositionProvider)
    if known is not None:
        return known  # type: ignore[return-value]
    provider = PositionProvider()
    module = wrapper.module
    state = _State(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)
    module._codegen(state)
    table: Mapping[Any, CodeRange] = MappingProxyType(provider._computed)  # type: ignore[arg-type]
    wrapper._metadata[PositionProvider] = table
    return table


def _unplaced() -> frozenset:
    """The token classes no reader asks the place of: whitespace (not comments, which the stub detector places) and
    operators, commas, dots and colons (``extractors.trees``' token classes but the brackets, which libcst uses to
    end an import's range)."""
    import libcst as cst

    from extractors.trees import token_classes
    return frozenset(kind for kind in token_classes() if kind is not cst.Comment
                     and kind.__module__ in ("libcst._nodes.whitespace", "libcst._nodes.op"))


_UNPLACED = _unplaced()


class _State(PositionProvidingCodegenState):
    """``PositionProvidingCodegenState`` with the same results and less work per token and per node."""

    _here: CodePosition | None = None  # the current place, made once until the next token moves it

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)
        self._here = None

    def _position(self) -> CodePosition:
        here = self._here
        if here is None:
            here = self._here = CodePosition(self.line, self.column)
        return here

    def before_codegen(self, node: Any) -> None:
        if type(node) not in _UNPLACED:
            self._stack.append(self._position())

    def after_codegen(self, node: Any) -> None:
        if type(node) in _UNPLACED:
            return
        start = self._stack.pop()
        computed = self.provider._computed
        if node not in computed:  # a syntactic position recorded inside the node stands
            computed[node] = CodeRange(start, self._position())

    def record_syntactic_position(self, node: Any, *, start_node: Any = None, end_node: Any = None) -> Any:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """``PositionProvidingCodegenState.record_syntactic_position`` as a plain context manager: the node's range
    runs from where its code starts (or ``start_node``'s start) to where it ends (or ``end_node``'s end)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _State, node: Any, start_node: Any, end_node: Any) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = self.state._position()

    def __exit__(self, *exc: object) -> None:
        computed: Any = self.state.provider._computed
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else self.state._position()
        computed[self.node] = CodeRange(start, end)
