"""Shared sympy expression graphs: sizes, nodes and substitution linear in the distinct subexpressions.

A chain of local definitions (``a1 = a0 * a0 + a0``) or of inlined layers (``x = layer(x)``) shares subexpressions:
a few hundred distinct nodes may print as hundreds of thousands. sympy's own walks (``atoms``, ``has``,
``xreplace``) and its evaluation of a function (``exp`` of a product runs ``logcombine``, ``Abs`` runs ``signsimp``)
follow the printed tree; the functions here follow the shared graph instead.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import sympy

# a definition or operand whose printed tree is larger stays a name and is put into no repository function
# (``extractors.expressions``): a VAE decoder's forward on 102 distinct nodes printed as 143,316
MAX_TREE_NODES = 200_000
# past this many printed nodes of its operands, a function is rebuilt unevaluated (``substitute``): its evaluation
# would walk them
EVALUATED_TREE_NODES = 300


def dag_size(expression: sympy.Basic, limit: int) -> int:
    """The number of distinct subexpressions of ``expression`` (``dag_nodes``), ``limit + 1`` past ``limit``.

    Shared subexpressions count once, so the count is linear in memory even when the printed tree is exponential.
    """
    nodes = dag_nodes(expression, limit)
    return limit + 1 if nodes is None else len(nodes)


def sprawls(expressions: Sequence[sympy.Basic]) -> bool:
    """Whether the printed tree of one of ``expressions`` has more than ``MAX_TREE_NODES`` nodes (``tree_size``)."""
    return any(_sprawling(e) for e in expressions)


@lru_cache(maxsize=1 << 12)
def _sprawling(expression: sympy.Basic) -> bool:
    """``sprawls`` of one expression, computed once: a statement's forms are asked as candidates, as bindings and
    again as expansions and modes."""
    return tree_size(expression, MAX_TREE_NODES) > MAX_TREE_NODES


def tree_size(expression: sympy.Basic, limit: int, sizes: dict | None = None) -> int:
    """The number of nodes of the printed tree of ``expression`` (a shared subexpression counted at each of its
    uses), counting stops past ``limit``. Linear in the shared graph: sympy's own evaluation (``exp`` of a product
    runs ``logcombine`` on each factor) walks the printed tree, exponential in a chain ``x = layer(x)`` whose
    layers each read ``x`` twice. ``sizes`` (expression to its count) may be shared between calls with one
    ``limit``."""
    sizes = {} if sizes is None else sizes
    stack = [(expression, False)]
    while stack:
        node, expanded = stack.pop()
        if node in sizes:
            continue
        if expanded or not node.args:
            sizes[node] = min(limit + 1, 1 + sum(sizes[a] for a in node.args))
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in sizes)
    return sizes[expression]


def dag_nodes(expression: sympy.Basic, limit: int) -> list[sympy.Basic] | None:
    """The distinct subexpressions of ``expression`` (itself included), or ``None`` past ``limit`` of them. Linear in
    the shared graph, where sympy's own ``atoms``, ``has`` and ``free_symbols`` walk the printed tree, which a
    chain of local definitions makes exponential (``a1 = a0 * a0 + a0``, ...)."""
    seen: dict = {}
    stack = [expression]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen[node] = None
        if len(seen) > limit:
            return None
        stack.extend(node.args)
    return list(seen)


def substitute(expression: sympy.Basic, mapping: dict) -> sympy.Basic:
    """``expression`` with the subexpressions that are keys of ``mapping`` replaced, each shared subexpression
    rebuilt once (``xreplace`` rebuilds the printed tree); a function of operands whose printed trees pass
    ``EVALUATED_TREE_NODES`` is left unevaluated."""
    memo: dict = {}
    sizes: dict = {}

    def rebuild(node: sympy.Basic) -> sympy.Basic:
        if node in mapping:
            return mapping[node]
        if node in memo:
            return memo[node]
        if not node.args:
            result = node
        else:
            args = [rebuild(a) for a in node.args]
            if all(x is y for x, y in zip(args, node.args)):
                result = node
            elif isinstance(node, sympy.Function) and sum(tree_size(a, MAX_TREE_NODES, sizes) for a in args) > \
                    EVALUATED_TREE_NODES:
                result = node.func(*args, evaluate=False)  # ``exp``, ``Abs``: their evaluation walks the tree
            else:
                result = node.func(*args)
        memo[node] = result
        return result

    return rebuild(expression) if mapping else expression
