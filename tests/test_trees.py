"""The libcst helpers of ``extractors.trees`` and ``extractors.positions`` against libcst's own: the read-only walk
makes the calls ``node.visit`` makes (less the token nodes a visitor ignores), and the faster position table is
libcst's ``PositionProvider`` table, node for node."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from extractors.positions import _UNPLACED, resolve_positions
from extractors.trees import NODE_CLASSES, _plan, _token_classes, node_children, parse_python, visit
from extractors.visitor import Visitor

# Every kind of token and the nodes whose attribute order is unusual: decorators before a def, the body of a
# conditional expression before its test, comments in brackets, an f-string with and without a format spec, a
# star import, a lambda, a walrus, a match statement, CRLF line ends.
SOURCE = (
    "from os import *  # star\r\n"
    "import numpy as np\r\n"
    "@decorate(1)\r\n"
    "class Model(Base, metaclass=Meta):\r\n"
    "    '''Doc.'''\r\n"
    "    @property\r\n"
    "    def f(self, a: int = 1, *args, b=2, **kw) -> int:\r\n"
    "        x = [i * 2 for i in range(a) if i]  # comment\r\n"
    "        y = {k: v for k, v in kw.items()}\r\n"
    "        z = (a if a > 0 else -a)\r\n"
    "        w = f'{x!r:>{a}} and {y}'\r\n"
    "        q = f'{z}'\r\n"
    "        if (n := len(x)) > 3:\r\n"
    "            return lambda t: t ** 2\r\n"
    "        match a:\r\n"
    "            case [1, *rest]:\r\n"
    "                pass\r\n"
    "        for i, j in zip(x, (\r\n"
    "                # inside brackets\r\n"
    "                y)):\r\n"
    "            a += i; b -= j\r\n"
    "        v = x[1] + x[2:3] + y[a]\r\n"
    "        return a @ b\r\n"
)


class _Recorder(cst.CSTVisitor):
    """Records every callback: (event, node id, attribute)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node), type(node)))
        # one subtree left out, as a visitor may ask
        return super().on_visit(node) and not isinstance(node, cst.Lambda)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node), type(original_node)))
        super().on_leave(original_node)


class _Attributes(_Recorder):
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.events.append(("visit attribute", id(node), attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.events.append(("leave attribute", id(original_node), attribute))


class _Comments(_Recorder):
    def visit_Comment(self, node: cst.Comment) -> None:
        self.events.append(("comment", node.value))


def _both(visitor_class: type) -> tuple[list, list]:
    module = cst.parse_module(SOURCE)
    theirs, ours = visitor_class(), visitor_class()
    module.visit(theirs)
    visit(module, ours)
    return theirs.events, ours.events


def test_walk_with_attribute_callbacks_makes_libcsts_calls_in_order():
    theirs, ours = _both(_Attributes)
    assert ours == theirs
    assert ("visit attribute", theirs[0][1], "body") in theirs


def test_walk_leaves_out_only_the_tokens_a_visitor_ignores():
    theirs, ours = _both(_Recorder)
    tokens = _token_classes()
    assert ours == [e for e in theirs if e[2] not in tokens]
    assert len(ours) < len(theirs) / 2  # most nodes are tokens


def test_walk_enters_the_tokens_holding_comments_for_a_visitor_of_comments():
    theirs, ours = _both(_Comments)
    assert [e for e in ours if e[0] == "comment"] == [("comment", "# star"), ("comment", "# comment"),
                                                      ("comment", "# inside brackets")]
    skipped = {cst.SimpleWhitespace, cst.Newline}
    assert ours == [e for e in theirs if len(e) == 2 or e[2] not in skipped]


def test_positions_equal_libcsts_node_for_node():
    module = cst.parse_module(SOURCE)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    ours = resolve_positions(wrapper)
    # every node but whitespace and operator tokens, which no reader places (comments and brackets kept; an
    # operator that records its own syntactic place keeps it), and each place is libcst's
    assert all(theirs[node] == where for node, where in ours.items())
    assert {node for node in theirs if type(node) not in _UNPLACED} <= set(ours)
    assert {type(node) for node in theirs} & _UNPLACED >= {cst.SimpleWhitespace, cst.Newline, cst.Comma}
    assert {cst.Comment, cst.RightParen} <= {type(node) for node in ours}
    assert wrapper.resolve(PositionProvider) is ours  # kept for the visitors that depend on PositionProvider
    assert parse_python(SOURCE, "m.py").resolve(PositionProvider)  # parse_python resolves them up front


def test_node_children_are_libcsts_children():
    class Every(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.nodes: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.nodes.append(node)
            return True

    every = Every()
    cst.parse_module(SOURCE).visit(every)
    for node in every.nodes:
        theirs, ours = node.children, node_children(node)
        assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs)), type(node).__name__


def test_callees_leave_out_tokens_and_nested_definitions():
    """D2's callee walk skips token nodes (``token_classes``) and compares node classes exactly: every call of the
    source is found, wherever brackets, comments and keywords put it, and none inside nested definitions."""
    from extractors.expressions import FunctionRecord, _collect_callees
    source = ("y = f(a, g(b)[h(c)], key=k(d))  # call(x) in a comment\n"
              "z = (obj.method(1) +\n     # between\n     np.linalg.norm(v, ord=abs(2)))\n"
              "w = lambda t: inner(t)\n"
              "def nested():\n    hidden(1)\n"
              "class Nested:\n    also_hidden = make()\n"
              "if cond(q):\n    in_body(r)\n")
    record = FunctionRecord("<module>", "<module>", "m.py", 1, None)
    for statement in cst.parse_module(source).body:
        _collect_callees(statement, record, skip_bodies=True)
    assert record.callees == {"f", "g", "h", "k", "method", "norm", "abs", "inner", "cond"}


def test_attribute_orders_are_learnt_once_per_class_and_set_of_empty_fields():
    from extractors import trees
    visit(cst.parse_module(SOURCE), _Recorder())
    # an index's star and an f-string part's conversion and spec may be None: their order is kept per such set
    assert (cst.Index, ("star", "whitespace_after_star")) in trees._ORDER_BY_NONES
    parts = {nones for kind, nones in trees._ORDER_BY_NONES if kind is cst.FormattedStringExpression}
    assert any("format_spec" in nones for nones in parts) and any("format_spec" not in nones for nones in parts)


class _Methods:
    """visit_/leave_ methods of some node classes, one keeping the walk out of its children, and an attribute
    callback: the calls libcst's dispatch makes, recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.events.append(("visit def", node.name.value))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.events.append(("leave def", original_node.name.value))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.events.append(("lambda", id(node)))
        return False  # its children are not visited

    def visit_Name(self, node: cst.Name) -> None:
        self.events.append(("name", node.value))

    def leave_Call(self, original_node: cst.Call) -> None:
        self.events.append(("call", id(original_node)))

    def visit_Call_func(self, node: cst.Call) -> None:
        self.events.append(("callee", id(node)))


class _Theirs(_Methods, cst.CSTVisitor):
    pass


class _Ours(_Methods, Visitor):
    pass


class _OursOverriding(_Ours):
    """A pass overriding ``on_visit``/``on_leave`` and calling ``Visitor``'s, as the fact visitor does."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("on visit", id(node)))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.events.append(("on leave", id(original_node)))


def test_visitor_dispatch_makes_libcsts_calls_of_the_pass_methods_in_order():
    module = cst.parse_module(SOURCE)
    theirs, ours, walked = _Theirs(), _Ours(), _Ours()
    module.visit(theirs)
    module.visit(ours)  # libcst's walk through Visitor.on_visit / on_leave
    visit(module, walked)  # the walk's own dispatch from the table (extractors.trees._walk_table)
    assert ours.events == theirs.events == walked.events
    assert ("name", "zip") in theirs.events and ("leave def", "f") in theirs.events
    assert ("name", "t") not in theirs.events  # inside the lambda, left out by visit_Lambda
    assert _plan(_Ours)[3] and not _plan(_OursOverriding)[3]
    overriding = _OursOverriding()
    visit(module, overriding)
    assert [e for e in overriding.events if not e[0].startswith("on ")] == theirs.events
    assert sum(e[0] == "on visit" for e in overriding.events) == sum(e[0] == "on leave" for e in overriding.events)


def test_node_classes_answer_isinstance_of_a_libcst_node():
    module = cst.parse_module(SOURCE)
    values = [module, module.body[0], cst.Name("x"), cst.Comma(), "x", None, 1, (), [], cst.CSTVisitor()]
    assert [NODE_CLASSES[type(v)] for v in values] == [isinstance(v, cst.CSTNode) for v in values]
    assert [NODE_CLASSES[type(v)] for v in values] == [True] * 4 + [False] * 6
