"""The tree-sitter-python collector: the same ``Parsed`` as ``parse_cst.parse_libcst`` for files libcst cannot parse
(Python 2 syntax, a stray markdown fence on line 1, a truncated file), from a tree with error nodes."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node, Point, Tree

from extractors.ts_parser import tree_sitter_parser
from extractors.stubs.parse import (DOC, ELLIPSIS, FALLBACK_ERRORS, NOT_IMPLEMENTED, OTHER, PASS, RAISE_NIE, REPORT,
                                    REPORT_MARKER, REPORT_NI, RETURN, RETURN_NI, Func, Parsed, is_report_call, last,
                                    qualname_of)


# A node still to visit: (node, stack of enclosing (name, is_function), enclosing class is a Protocol, decorators).
_Pending = tuple[Node, list[tuple[str, bool]], bool, tuple[str, ...]]


def _ts_descendants(node: Node) -> Iterator[Node]:
    """``node`` and every node below it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


class _TsCollector:
    """Fills a ``Parsed`` from a tree-sitter tree of ``data`` (the source as UTF-8 bytes), and notes in
    ``comment_ends`` whether some function, class, ``try`` or ``if`` it recorded ends with comments (``end_row``)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.comment_ends = False
        self.line_starts = [0]
        for index, byte in enumerate(data):
            if byte == 10:
                self.line_starts.append(index + 1)
        self.parsed = Parsed()

    def end_row(self, node: Node) -> int:
        """The 0-based last row of ``node``, comments included. tree-sitter puts comments after a block's last
        statement inside the block, where libcst leaves them out of the statement's range: when such comments move
        the end (down the right edge of the tree: a comment closing a nested block ends its parents too), the two
        collectors disagree, and ``comment_ends`` says so."""
        end = node
        while True:
            last = next((child for child in reversed(end.children) if child.type != "comment"), None)
            if last is None:
                break
            end = last
        self.comment_ends = self.comment_ends or end.end_point[0] != node.end_point[0]
        return node.end_point[0]

    def text(self, node: Node) -> str:
        """The source text of ``node``."""
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def column(self, point: Point) -> int:
        """0-based character column of a tree-sitter point (whose column counts bytes)."""
        row, col = point
        start = self.line_starts[row] if row < len(self.line_starts) else len(self.data)
        return len(self.data[start:start + col].decode("utf-8", "replace"))

    def dotted(self, node: Node) -> str:
        """``a.b.c`` for an identifier or attribute chain (through calls and subscripts), else ``""``."""
        if node.type == "identifier":
            return self.text(node)
        if node.type == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            head = self.dotted(obj) if obj is not None else ""
            return f"{head}.{self.text(attr)}" if head and attr is not None else ""
        if node.type == "call":
            function = node.child_by_field_name("function")
            return self.dotted(function) if function is not None else ""
        if node.type == "subscript":
            value = node.child_by_field_name("value")
            return self.dotted(value) if value is not None else ""
        return ""

    def strings(self, node: Node) -> Iterator[str]:
        """The text of every string inside ``node``."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "string_content":
                yield self.text(current)
            else:
                stack.extend(current.children)

    def kind(self, stmt: Node) -> str | None:
        """The body kind of a block child, ``None`` for a comment."""
        kind = stmt.type
        if kind == "comment":
            return None
        if kind == "pass_statement":
            return PASS
        if kind == "expression_statement":
            children = stmt.named_children
            if len(children) != 1:
                return OTHER
            value = children[0]
            if value.type in ("string", "concatenated_string"):
                return DOC
            if value.type == "ellipsis":
                return ELLIPSIS
            if value.type == "call" and is_report_call(self.dotted(value)):
                arguments = value.child_by_field_name("arguments")
                said = arguments is not None and any(REPORT_MARKER.search(t) for t in self.strings(arguments))
                return REPORT_NI if said else REPORT
            return OTHER
        if kind == "print_statement":  # Python 2
            said = any(REPORT_MARKER.search(t) for t in self.strings(stmt))
            return REPORT_NI if said else REPORT
        if kind == "raise_statement":
            exc = next((c for c in stmt.named_children if c.type != "comment"), None)
            if exc is not None and last(self.dotted(exc)) in NOT_IMPLEMENTED:
                return RAISE_NIE
            return OTHER
        if kind == "return_statement":
            values = [c for c in stmt.named_children if c.type != "comment"]
            if len(values) == 1 and values[0].type == "identifier" and self.text(values[0]) == "NotImplemented":
                return RETURN_NI
            return RETURN
        return OTHER

    def walk(self, root: Node) -> None:
        """Collect everything below ``root``, iteratively (no recursion limit on deep trees)."""
        pending: list[_Pending] = [(root, [], False, ())]
        while pending:
            node, stack, protocol, decorators = pending.pop()
            kind = node.type
            if kind == "comment":
                self.parsed.comments.append((node.start_point[0] + 1, self.column(node.start_point),
                                             self.text(node)))
                continue
            if kind in ("return_statement", "assignment", "augmented_assignment"):
                self.value(node)
            elif kind == "try_statement":
                caught = {self.text(n) for clause in node.named_children if clause.type == "except_clause"
                          for c in clause.named_children if c.type != "block" for n in _ts_descendants(c)
                          if n.type == "identifier"}
                if caught & FALLBACK_ERRORS:
                    self.parsed.fallbacks.append((node.start_point[0] + 1, self.end_row(node) + 1))
            elif kind == "if_statement":
                condition = node.child_by_field_name("condition")
                if condition is not None and condition.type == "comparison_operator":
                    words = self.text(condition)
                    if "__name__" in words and "__main__" in words:
                        self.parsed.demos.append((node.start_point[0] + 1, self.end_row(node) + 1))
            if kind == "decorated_definition":
                names = tuple(self.dotted(c.named_children[0]) for c in node.children
                              if c.type == "decorator" and c.named_children)
                for child in reversed(node.children):
                    if child.type != "decorator":
                        pending.append((child, stack, protocol, names))
                    else:
                        pending.append((child, stack, protocol, ()))
                continue
            if kind in ("function_definition", "class_definition"):
                name_node = node.child_by_field_name("name")
                body = node.child_by_field_name("body")
                name = self.text(name_node) if name_node is not None else ""
                qualname = qualname_of(stack, name)
                line = (name_node.start_point[0] if name_node is not None else node.start_point[0]) + 1
                end_line = self.end_row(node) + 1
                if name:
                    self.parsed.scopes.append((line, end_line, qualname))
                if kind == "function_definition":
                    kinds = tuple(k for k in (self.kind(c) for c in (body.named_children if body is not None else ()))
                                  if k is not None)
                    if name and kinds and body is not None:  # no statements: the file is cut off here
                        in_protocol = bool(stack) and not stack[-1][1] and protocol
                        owner = qualname.rsplit(".", 1)[0] if stack and not stack[-1][1] else ""
                        doc = "\n".join(self.text(c.named_children[0]) for c in body.named_children
                                        if c.type == "expression_statement" and len(c.named_children) == 1
                                        and c.named_children[0].type in ("string", "concatenated_string"))
                        self.parsed.functions.append(Func(name, qualname, line, self.column(node.start_point) + 1,
                                                          end_line, decorators, in_protocol, kinds, doc, owner))
                    inner_stack, inner_protocol = [*stack, (name, True)], False
                else:
                    superclasses = node.child_by_field_name("superclasses")
                    bases = frozenset(last(self.dotted(b)) for b in (
                        superclasses.named_children if superclasses is not None else ())
                        if b.type not in ("keyword_argument", "comment"))
                    if name:
                        self.parsed.classes.append((qualname, name, bases))
                    inner_protocol = "Protocol" in bases
                    inner_stack = [*stack, (name, False)]
                body_id = body.id if body is not None else None
                for child in reversed(node.children):
                    if child.id == body_id or child.type == "comment":
                        pending.append((child, inner_stack, inner_protocol, ()))
                    else:
                        pending.append((child, stack, protocol, ()))
                continue
            for child in reversed(node.children):
                pending.append((child, stack, protocol, ()))

    def value(self, node: Node) -> None:
        """Record a ``return`` or an assignment statement whose trailing comment may mark a placeholder."""
        start, end = node.start_point, node.end_point
        if node.type in ("assignment", "augmented_assignment"):
            parent = node.parent  # the statement, not the inner ``b = 1`` of ``a = b = 1``
            if parent is None or parent.type != "expression_statement":
                return
            start = parent.start_point
        self.parsed.values.append((start[0] + 1, self.column(start), end[0] + 1, self.column(end)))


def tree_sitter_tree(source: str) -> tuple[bytes, Tree]:
    """``source`` (str; lone surrogates are kept) as the UTF-8 bytes tree-sitter reads, and its tree. Never raises
    on malformed source (the tree then holds error nodes)."""
    data = source.encode("utf-8", "surrogatepass")
    return data, tree_sitter_parser().parse(data)


def parse_tree_sitter(source: str, data: bytes | None = None, tree: Tree | None = None) -> tuple[Parsed, bool]:
    """What tree-sitter-python sees in ``source`` (str; lone surrogates are kept). ``data`` and ``tree`` are
    ``tree_sitter_tree(source)`` when the caller has it already, else ``None``. Returns the ``Parsed`` and whether
    some function, class, ``try`` or ``if`` in it ends with comments (where libcst would end it earlier). Never
    raises on malformed source: error nodes are walked like any other."""
    if data is None or tree is None:
        data, tree = tree_sitter_tree(source)
    collector = _TsCollector(data)
    collector.walk(tree.root_node)
    return collector.parsed, collector.comment_ends
