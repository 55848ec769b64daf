"""Facts from Python files that libcst cannot parse, located with tree-sitter-python.

About 9% of the files in agent-generated repositories do not parse (measured over SA-Bench's 360 repositories): a
stray markdown fence on line 1, a file cut off mid-function, Python 2 leftovers. tree-sitter parses them with error nodes. We walk its tree and hand
every statement that libcst accepts on its own (dedented, with its line offset) to the same libcst extractor, so a
fact has one definition whichever parser found it. A compound statement that libcst rejects is split into the
statements of its body, recursively.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from extractors.facts import FileFacts
from extractors.python_facts import extract_source
from extractors.ts_parser import tree_sitter_parser

_MAX_PIECES = 5000  # bounds the work on a pathological file


def first_error_line(source: bytes) -> int | None:
    """The 1-based line of tree-sitter's first error or missing node, or ``None`` when it found none."""
    stack = [tree_sitter_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point.row + 1
        if node.has_error:
            stack.extend(reversed(node.children))
    return None


def extract_with_tree_sitter(source: str, file: str, cell: int | None = None) -> tuple[FileFacts, int, str]:
    """Extract facts from the parseable statements of ``source``.

    Returns the merged ``FileFacts``, the number of source lines covered by statements that yielded facts, and the
    text that was not read (``source`` without those statements' and the comments' bytes: the unparseable rest).
    Never raises on bad input.
    """
    data = source.encode("utf-8", "surrogatepass")
    tree = tree_sitter_parser().parse(data)
    merged = FileFacts()
    covered: set[int] = set()
    spans: list[tuple[int, int]] = []
    pending = list(reversed(tree.root_node.children))
    pieces = 0
    while pending and pieces < _MAX_PIECES:
        node = pending.pop()
        pieces += 1
        if node.type in ("comment",) or node.end_byte <= node.start_byte:
            spans.append((node.start_byte, node.end_byte))  # a comment is text, never evidence: nothing unread
            continue
        text = " " * node.start_point.column + data[node.start_byte:node.end_byte].decode("utf-8", "replace")
        parsed = None
        if node.type != "ERROR":
            try:
                parsed = extract_source(textwrap.dedent(text) + "\n", file, node.start_point.row, cell)
            except (cst.ParserSyntaxError, RecursionError, ValueError):
                parsed = None
        if parsed is not None:
            merged.merge(parsed)
            covered.update(range(node.start_point.row, node.end_point.row + 1))
            spans.append((node.start_byte, node.end_byte))
            continue
        # descend: a compound statement's body, or the statements inside an error node
        children = []
        for child in node.children:
            if child.type == "block":
                children.extend(child.children)
            elif child.is_named and child.type not in ("identifier", "parameters", "argument_list"):
                children.append(child)
        pending.extend(reversed(children))
    unread = bytearray(data)
    for start, end in spans:
        unread[start:end] = b" " * (end - start)
    return merged, len(covered), unread.decode("utf-8", "replace")
