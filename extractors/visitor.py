"""``Visitor``: the base of the project's libcst passes, libcst's ``CSTVisitor`` with a cheaper dispatch.

libcst's ``CSTVisitor.on_visit``/``on_leave`` build the name ``visit_<Node>``/``leave_<Node>`` and look it up on
every node, and ``CSTVisitor`` itself defines a method doing nothing for every node class, so each node costs two
name lookups and two calls whether or not the pass handles it. ``Visitor`` looks the methods up once per pass class
and node class (``methods``) and calls only those the pass defines: the same calls as libcst's, in the same order,
with the same result (a ``visit_`` method returning ``False`` keeps the walk out of the node's children).
``extractors.trees.visit`` calls the table itself for a pass that keeps these two methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

# (pass class, node class) -> (its visit_<Node> function, its leave_<Node> function), None where the pass has only
# CSTVisitor's own, which does nothing
_METHODS: dict[tuple[type, type], tuple[Callable | None, Callable | None]] = {}


def methods(kind: type, node_kind: type) -> tuple[Callable | None, Callable | None]:
    """(``visit_<Node>``, ``leave_<Node>``) functions of visitor class ``kind`` for libcst node class
    ``node_kind``, each ``None`` where ``kind`` does not define one of its own (``CSTVisitor``'s does nothing)."""
    found = _METHODS.get((kind, node_kind))
    if found is None:
        name = node_kind.__name__
        visit = getattr(kind, f"visit_{name}", None)
        leave = getattr(kind, f"leave_{name}", None)
        found = _METHODS[(kind, node_kind)] = (
            None if visit is None or visit is getattr(cst.CSTVisitor, f"visit_{name}", None) else visit,
            None if leave is None or leave is getattr(cst.CSTVisitor, f"leave_{name}", None) else leave)
    return found


class Visitor(cst.CSTVisitor):
    """``cst.CSTVisitor`` dispatching through ``methods``; a pass overriding ``on_visit``/``on_leave`` calls
    ``super()`` as with libcst's. Methods are looked up on the class: a pass sets none on its instances."""

    def on_visit(self, node: Any) -> bool:
        visit = (_METHODS.get((type(self), type(node))) or methods(type(self), type(node)))[0]
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node: Any) -> None:
        leave = (_METHODS.get((type(self), type(original_node))) or methods(type(self), type(original_node)))[1]
        if leave is not None:
            leave(self, original_node)
