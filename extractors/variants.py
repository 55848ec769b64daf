"""Branches that build named variants: the body of ``if model_type == "15A2B":`` and of each ``elif`` comparing
the same name with another string (``"1.7B_28L"``), the way generated code writes one setting per model size or
experiment; a test accepting several strings (``eq_id == "PDE2" or eq_id == "PDE2_Zoned"``, ``eq_id in ("PDE2",
"PDE2_Zoned")``) builds each of them. A value bound in such a body belongs to that variant, and a claim naming one
variant is about its body (README "Which value counts", per-variant paths).

The branches of a file are found once per index, from the libcst tree and positions the index keeps
(``extractors.trees.Trees``), and only for the files asked about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from extractors.facts import Fact, RepositoryIndex
from extractors.trees import visit
from extractors.values import dotted_name
from extractors.visitor import Visitor


@dataclass(frozen=True)
class Branch:
    """One branch's body: ``line``..``end_line`` (1-based, inclusive) of ``file``, entered when ``subject`` (the
    compared name as written, ``model_type`` or ``args.size``) equals one of ``variants`` (the strings its test
    accepts, in the test's order); ``chain`` holds the variants of every branch of its ``if``/``elif`` chain, this
    one's included; ``exits`` whether the body returns, raises, continues or breaks (outside functions defined in
    it): the variant may leave before code below the chain runs."""

    file: str
    line: int
    end_line: int
    subject: str
    variants: tuple[str, ...]
    chain: frozenset[str]
    exits: bool = False


def branch_of(index: RepositoryIndex, fact: Fact) -> Branch | None:
    """The innermost variant branch whose body holds ``fact``'s line, or ``None`` (not in one, in a notebook
    cell, or in a file the index holds no tree of)."""
    if fact.cell is not None:
        return None
    holding = [b for b in _branches(index, fact.file) if b.line <= fact.line <= b.end_line]
    return min(holding, key=lambda b: b.end_line - b.line) if holding else None


def named_in(text: str, variant: str) -> bool:
    """Whether ``text`` (a claim's statement) names ``variant`` as a word of its own (``15A2B`` in "The 15A2B
    mixture-of-experts model"), compared without case. Only a name holding a letter and a digit (a model size or
    an experiment id: ``7b``, ``1.7B_28L``, ``S9A9``) counts: a plain word (``train``, ``cosine``) may be said for
    another reason than choosing the branch."""
    if not (re.search(r"[0-9]", variant) and re.search(r"[A-Za-z]", variant)):
        return False
    return re.search(rf"(?<![\w.]){re.escape(variant)}(?!\w|\.\w)", text, re.IGNORECASE) is not None


def family_named_in(text: str, variant: str) -> bool:
    """Whether ``text`` names ``variant`` (``named_in``) or the family its name begins with, the part before a
    ``_`` or ``-`` (``1.7B`` for the branches ``1.7B_28L`` and ``1.7B_48L``: "the dense 1.7B model comes in 28- and
    48-layer versions" is about both)."""
    head = re.split(r"[_-]", variant, maxsplit=1)[0]
    return named_in(text, variant) or (head != variant and named_in(text, head))


def _memo(index: RepositoryIndex) -> dict[str, tuple[Branch, ...]]:
    """Analysis provider: ``_branches``' memo, file -> its branches."""
    return {}


def branches_in(index: RepositoryIndex, file: str) -> tuple[Branch, ...]:
    """Every variant branch of ``file`` (empty for a notebook or a file the index holds no tree of)."""
    return _branches(index, file)


def _branches(index: RepositoryIndex, file: str) -> tuple[Branch, ...]:
    memo = index.analysis(_memo)
    if file not in memo:
        memo[file] = _scan(index, file) if file in index.modules else ()
    return memo[file]


def _scan(index: RepositoryIndex, file: str) -> tuple[Branch, ...]:
    """Every ``if``/``elif`` chain of ``file`` comparing one name with string literals, one ``Branch`` per body."""
    module, positions = index.modules[file], index.positions[file]
    finder = _ChainFinder()
    visit(module, finder)
    found = []
    for chain in finder.chains:
        every = frozenset(variant for _, _, accepted, _ in chain for variant in accepted)
        for subject, body, accepted, _ in chain:
            where = positions.get(body)
            if where is not None:
                found.append(Branch(file, where.start.line, where.end.line, subject, accepted, every, _exits(body)))
    return tuple(found)


class _ChainFinder(Visitor):
    """Collects ``if``/``elif`` chains whose tests compare one name with strings (``_compared``)."""

    def __init__(self) -> None:
        super().__init__()
        self.chains: list[list[tuple[str, cst.BaseSuite, tuple[str, ...], cst.If]]] = []
        self._inner: set[int] = set()  # ids of the If nodes that are an elif of a chain already taken

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False  # an ``if`` statement is never inside a simple statement: nothing to find there

    def visit_If(self, node: cst.If) -> None:
        if id(node) in self._inner:
            return
        chain: list[tuple[str, cst.BaseSuite, tuple[str, ...], cst.If]] = []
        current: cst.If | None = node
        while current is not None:
            test = _compared(current.test)
            if test is not None and (not chain or test[0] == chain[0][0]):
                chain.append((test[0], current.body, test[1], current))
            orelse = current.orelse
            current = orelse if isinstance(orelse, cst.If) else None
            if current is not None:
                self._inner.add(id(current))
        if chain:
            self.chains.append(chain)


def _exits(body: cst.BaseSuite) -> bool:
    """Whether ``body`` holds a ``return``, ``raise``, ``continue`` or ``break`` outside the functions and classes
    defined in it: the variant may leave before code below the chain runs."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
            return True
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(node.children)
    return False


def _compared(test: cst.BaseExpression) -> tuple[str, tuple[str, ...]] | None:
    """(subject, strings) of a test accepting ``subject`` equal to any of the strings, else ``None``: ``subject ==
    "a"`` (either side), ``subject in ("a", "b")`` (a tuple, list or set display of strings), and ``or`` of such
    tests on one subject (``x == "a" or x == "b"``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left, right = _compared(test.left), _compared(test.right)
        if left is None or right is None or left[0] != right[0]:
            return None
        return left[0], (*left[1], *(s for s in right[1] if s not in left[1]))
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if isinstance(target.operator, cst.In) and isinstance(target.comparator, (cst.Tuple, cst.List, cst.Set)):
        subject = dotted_name(test.left)
        texts = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None
                 for e in target.comparator.elements]
        if subject and texts and all(isinstance(t, str) for t in texts):
            return subject, tuple(dict.fromkeys(t for t in texts if isinstance(t, str)))
        return None
    if not isinstance(target.operator, cst.Equal):
        return None
    for name_side, text_side in ((test.left, target.comparator), (target.comparator, test.left)):
        subject = dotted_name(name_side)
        if subject and isinstance(text_side, cst.SimpleString) and isinstance(text_side.evaluated_value, str):
            return subject, (text_side.evaluated_value,)
    return None
