"""Evidence for the judge: lines around the places the rules traced, lines naming the SAU's terms, and the program
the entry points run, under a budget of characters per SAU. Chosen from the verdict (its SAU, trace and evidence)
and the repository's code only.

What a block shows comes first from the verdict's ``trace`` (``rules.traces``: for D1 the consumer and each binding
of a value's provenance chain, for D2 the candidate expressions with the helpers their functions call and the
functions named after the mechanism, for D3 the loader, metric or baseline call sites and their callers, for D4 the
steps' sites in the chosen trace and the calls leading there), in the rules' order, most decisive first; then the
verdict's evidence; then the lines naming a term of the SAU (of its checks: a glossary code name or symbol, a
function its formula applies, an atom, a dataset or metric name, a step function, ``check_terms``; a word of its
statement written as code writes names, ``statement_names``; a number it claims as code writes it, ``value_terms``
and ``number_terms``), best first (``_term_lines``); then the traced places that only locate code (``WEAK_ROLES``:
a function named after the mechanism, a helper, a caller); then the lines naming only content words of the
statement (``statement_words``); then, only while budget remains, the program the entry points run (``_program``:
whole functions, breadth first along the call graph, where what replaces a claimed element usually is), and the
bindings and functions named by the checks. Each block says why it was chosen.

Each block is cut from ``RepositoryIndex.lines`` and located with the libcst trees already in
``RepositoryIndex.modules`` (never re-parsed). A traced line, a line naming a term or a name match gives
``TRACE_LINES``, ``TERM_LINES`` or ``NAME_LINES`` lines from it within its innermost function or module-level
statement (a function that short whole); a line of a docstring gives the ``DOC_LINES`` lines of code after it; a
traced span (a helper function, a function of the program) gives its first lines. A line of a config file (or of a
file libcst could not parse) gives its top-level block (YAML key, TOML table) or a window around it, cut the same
way. Blocks never overlap: a block reaching into one already chosen is cut back to the lines not yet shown (a span
adds each run of its lines not yet shown), and a block at most ``MERGE_GAP`` lines from one already chosen joins it
(the lines between shown too). The budget (``LLMSettings.evidence_chars``) counts the characters of the blocks'
text; a block that does not fit is left out and smaller ones after it may still fit. The prompt sends the blocks of
a request as one excerpt per file (``excerpts``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from extractors.callgraph import CLASS, FUNCTION, INSTANCE, INSTANTIATE, MAIN, MODULE, RUN, build_call_graph
from extractors.callgraph import CALL as CALL_EDGE
from extractors.callgraph import HOOK as HOOK_EDGE
from extractors.facts import NAMED_KINDS, RepositoryIndex
from extractors.walk import is_test_path
from extractors.words import word_list
from llm_fallback.settings import DEFAULT_EVIDENCE_CHARS
from rules import names
from sau.vocabulary import Verdict, split_where

MAX_BLOCK_LINES = 60
# Lines kept around a traced line, a line naming a term of the SAU and a name match: measured on the truth set
# (benchmarks/judge_evidence.py), a line or two at many places show more deciding lines per character than whole
# functions around a few.
TRACE_LINES = 2
TERM_LINES = 1
DOC_LINES = 3  # lines of code shown after a docstring naming a term
NAME_LINES = 3
# Traced places that locate the code rather than decide it: shown after the lines naming the SAU's terms inside
# the traced functions (a mechanism function's first line says less than its lines that name the formula's terms).
WEAK_ROLES = frozenset({"mechanism", "helper", "caller", "path", "elsewhere"})
MAX_TERM_LINES = 60  # lines naming the SAU's terms considered, best first
MAX_BLOCKS = 48
# How lines naming a SAU's terms are ranked (``_term_lines``), measured on the truth set: a line also weighs what
# the lines this near name, and twice as much inside a function the rules traced.
NEAR_LINES = 2
INSIDE_WEIGHT = 2
MAX_PROGRAM = 40  # functions of the program the entry points run considered (``_program``)
_MODULE_SITES = 8  # call sites of a script's top level shown
_RUN_EDGES = frozenset({CALL_EDGE, INSTANTIATE, HOOK_EDGE, INSTANCE, RUN})
MERGE_GAP = 2  # a block this many lines or fewer from one already chosen joins it (one header instead of two)
MAX_WHY = 60  # characters of a reason
_REASONS = 2  # reasons a joined block keeps (the first ones), joined by _ALSO
_ALSO = "; also "
_WINDOW = 12  # lines either side of a line with no structure around it
_FACTS_PER_TERM = 2
_MIN_WORD = 4
_STOP_WORDS = word_list("claim_stop_words", "rules")
_GENERIC = word_list("generic_terms", "rules")  # `model`, `data`: on most lines of any repository
# Statements outside functions that make a block of their own (a module- or class-level line, an `if __name__` block).
_STATEMENTS = (cst.SimpleStatementLine, cst.If, cst.With, cst.For, cst.While, cst.Try)


@dataclass(frozen=True)
class Block:
    """A contiguous piece of one source: ``source`` is the file (``file#cell`` for a notebook cell) as in
    ``RepositoryIndex.lines``; ``start``..``end`` 1-based inclusive; ``kind`` ``function``, ``statement``, ``config``
    or ``window``; ``name`` the function's name when it is one; ``truncated`` when the structure was longer than the
    lines kept; ``why`` why it was chosen (the reasons of the first places in it, at most ``_REASONS``)."""

    source: str
    start: int
    end: int
    kind: str
    name: str = ""
    truncated: bool = False
    why: str = ""

    def text(self, index: RepositoryIndex) -> str:
        """The block's lines without their common indentation (a method's eight spaces cost tokens on every line),
        each prefixed by its line number and a bar (``12|x = 1``)."""
        lines = index.lines.get(self.source, [])[self.start - 1:self.end]
        indent = min((len(t) - len(t.lstrip()) for t in lines if t.strip()), default=0)
        return "\n".join(f"{n}|{t[indent:]}".rstrip() for n, t in enumerate(lines, self.start))


def excerpts(blocks: list[Block], index: RepositoryIndex) -> list[tuple[str, str]]:
    """The code of ``blocks`` (of one request, from one or several SAUs) as one excerpt per source, in the order
    the sources first appear: (source, text), the text the blocks' lines of that source in line order, lines
    shown by several blocks once, a ``...`` line between lines that do not follow each other."""
    spans: dict[str, list[list[int]]] = {}
    for block in blocks:
        spans.setdefault(block.source, []).append([block.start, block.end])
    found = []
    for source, ranges in spans.items():
        merged: list[list[int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        found.append((source, "\n...\n".join(Block(source, a, b, "window").text(index) for a, b in merged)))
    return found


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str
    name: str


class _Spans(cst.CSTVisitor):
    """Functions, and statements at module and class level, with their line spans."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.spans: list[_Span] = []
        self.docstrings: list[tuple[int, int]] = []  # first and last line of a function's or class's docstring
        self._depth = 0  # functions entered

    def _add(self, node: cst.CSTNode, kind: str, name: str = "") -> None:
        where = self.get_metadata(PositionProvider, node)
        self.spans.append(_Span(where.start.line, where.end.line, kind, name))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and isinstance(node.body, cst.IndentedBlock) \
                and node.get_docstring(clean=False) is not None:
            where = self.get_metadata(PositionProvider, node.body.body[0])
            self.docstrings.append((where.start.line, where.end.line))
        if isinstance(node, cst.FunctionDef):
            self._add(node, "function", node.name.value)
            self._depth += 1
        elif self._depth == 0 and isinstance(node, _STATEMENTS):
            self._add(node, "statement")
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.FunctionDef):
            self._depth -= 1


class EvidenceCollector:
    """Builds the evidence blocks of unresolved verdicts from one repository index; caches each source's spans.
    ``budget`` is the characters of code per SAU (``LLMSettings.evidence_chars``).

    Not thread-safe: build every prompt before handing them to worker threads.
    """

    def __init__(self, index: RepositoryIndex, budget: int = DEFAULT_EVIDENCE_CHARS) -> None:
        self.index = index
        self.budget = budget
        self._spans: dict[str, list[_Span]] = {}
        self._docstrings: dict[str, list[tuple[int, int]]] = {}
        self._functions: dict[str, list[tuple[str, _Span]]] | None = None
        self._program_anchors: list[tuple[str, int, int, int, str]] | None = None

    def anchors(self, verdict: Verdict) -> list[tuple[str, int, int, int, str]]:
        """The places to show for one verdict, most decisive first, as (source, line, end line, lines kept, why):
        the places the rules traced as deciding (``WEAK_ROLES`` aside), the verdict's evidence, the lines naming
        the SAU's terms (``_term_lines``, tier 0), the weak traced places (a function named after the mechanism, a
        helper's first lines, a caller), the lines naming only statement words (tier 1), the program the entry
        points run (``_program``), then bindings and functions named by the SAU (module docstring). Reads nothing
        but ``verdict`` and the index."""
        def traced(traces: list) -> list[tuple[str, int, int, int, str]]:
            return [(t.where, t.line, t.end_line, TRACE_LINES, _short(f"{t.role}: {t.why}")) for t in traces]

        found = traced([t for t in verdict.trace if t.role not in WEAK_ROLES])
        found += [(e.where, e.line, e.end_line, TRACE_LINES, _short(f"the rules' evidence ({e.kind})"))
                  for e in verdict.evidence]
        terms = [t for t in check_terms(verdict.sau.checks) if not names.is_generic(t)]  # `alpha` is everywhere
        terms += [t for t in statement_names(verdict.sau.statement) if t not in terms and not names.is_generic(t)]
        terms += [t for t in value_terms(verdict.sau.checks) if t not in terms]
        terms += [t for t in number_terms(verdict.sau.checks, verdict.sau.statement) if t not in terms]
        scopes = self._traced_scopes(verdict)
        inside = {(source, n) for source, start, end in scopes for n in range(start, end + 1)}
        ranked = self._term_lines(terms, statement_words(verdict.sau.statement), inside)[:MAX_TERM_LINES]
        lines = [(tier, (source, at, at, keep, _short(f"names {', '.join(named)}")))
                 for tier, source, line, named in ranked for at, keep in [self._code_at(source, line)]]
        found += [anchor for tier, anchor in lines if tier == 0]
        found += traced([t for t in verdict.trace if t.role in WEAK_ROLES])
        found += [anchor for tier, anchor in lines if tier == 1]
        found += self._program()
        for term in terms:
            for fact in self.index.by_name.get(names.normalise(term), ())[:_FACTS_PER_TERM]:
                if fact.kind in NAMED_KINDS and not is_test_path(fact.file):
                    found.append((fact.where, fact.line, fact.line, NAME_LINES, _short(f"binds {fact.name}")))
        functions = self._function_table()
        for term in terms:
            for source, span in functions.get(names.normalise(term), ())[:_FACTS_PER_TERM]:
                found.append((source, span.start, span.start, NAME_LINES, _short(f"function {span.name}")))
        return found

    def _program(self) -> list[tuple[str, int, int, int, str]]:
        """The code the entry points run, breadth first along the call graph (``_RUN_EDGES``), as anchors of
        whole functions (at most ``MAX_BLOCK_LINES`` lines each): the entry point, the functions it calls, the
        classes it builds (their ``__init__`` and ``forward``), then theirs. What a SAU claims is often absent or
        replaced by other code (one layer where four are claimed, a mean-squared error where a cross-entropy is
        claimed): that code is no place the rules traced nor a name of the SAU, but the program that runs. The
        same for every SAU of a repository; built once."""
        if self._program_anchors is not None:
            return self._program_anchors
        graph = self.index.analysis(build_call_graph)
        found: list[tuple[str, int, int, int, str]] = []
        seen: set[str] = set()
        queue = [e.node for e in graph.entry_points if not is_test_path(e.file)]
        while queue and len(found) < MAX_PROGRAM:
            node = queue.pop(0)
            if node in seen or node not in graph.graph:
                continue
            seen.add(node)
            data = graph.graph.nodes[node]
            source, kind = data.get("file", ""), data.get("kind")
            if kind in (FUNCTION, MAIN) and source in self.index.modules:
                label = "entry point" if kind == MAIN else f"runs {node.rsplit('.', 1)[-1]}"
                found.append((source, data["line"], data["end_line"], MAX_BLOCK_LINES, _short(f"program: {label}")))
            elif kind == MODULE and source in self.index.modules:
                found += [(site.where, site.line, site.line, TRACE_LINES, "program: top-level call")
                          for site in graph.callees_in_order(node) if site.callee][:_MODULE_SITES]
            if kind == CLASS:
                nexts = [b for b in graph.graph.successors(node)
                         if graph.graph.edges[node, b]["kind"] in _RUN_EDGES]
            else:
                nexts = [site.callee for site in graph.callees_in_order(node)
                         if site.callee and site.kind in _RUN_EDGES]
            queue += [n for n in dict.fromkeys(nexts) if n not in seen]
        self._program_anchors = found
        return found

    def _traced_scopes(self, verdict: Verdict) -> list[tuple[str, int, int]]:
        """(source, first line, last line) of each function the rules traced: a traced span (a helper), or the
        innermost function holding a traced line."""
        scopes = []
        for trace in verdict.trace:
            if trace.where not in self.index.modules:
                continue
            if trace.end_line > trace.line:
                scopes.append((trace.where, trace.line, trace.end_line))
                continue
            around = [s for s in self._spans_of(trace.where) if s.kind == "function" and s.start <= trace.line <= s.end]
            if around:
                span = min(around, key=lambda s: s.end - s.start)
                scopes.append((trace.where, span.start, span.end))
        return scopes

    def _term_lines(self, terms: list[str], words: list[str],
                    inside: set[tuple[str, int]]) -> list[tuple[int, str, int, list[str]]]:
        """Lines of non-test sources that name a term (of the checks, a code-shaped word or a number of the
        statement) or a content word of the statement, as a word or as a part of a snake_case name (``lifting`` in
        ``lifting_layer``, ``additive`` in ``"g1_additive"``), as (tier, source, line, terms and words named), best
        first: tier 0 the lines naming a term, tier 1 those naming only words; then by weight: a term on few lines
        says more than one on many (each weighs 1 / log2(lines naming it + 1)), a line weighs what it and the lines
        at most ``NEAR_LINES`` away name (a block of settings naming four terms beats a line naming one), times
        ``INSIDE_WEIGHT`` inside a function the rules traced (from ``inside``); then in source order."""
        wanted = terms + [w for w in words if w.lower() not in {t.lower() for t in terms}]
        if not wanted:
            return []
        pattern = re.compile(r"(?<![A-Za-z0-9-])(" + "|".join(re.escape(t) for t in wanted) + r")(?![A-Za-z0-9-])",
                             re.IGNORECASE)
        lowered = {t.lower() for t in terms}
        hits = []
        lines_per_term: dict[str, int] = {}
        for source in sorted(self.index.lines):
            if is_test_path(split_where(source)[0]):
                continue
            for number, text in enumerate(self.index.lines[source], 1):
                named = sorted({m.group(1).lower() for m in pattern.finditer(text)})
                if named:
                    hits.append((source, number, named))
                    for term in named:
                        lines_per_term[term] = lines_per_term.get(term, 0) + 1

        at = {(source, number): named for source, number, named in hits}
        ranked = []
        for source, number, named in hits:
            near = {t for n in range(number - NEAR_LINES, number + NEAR_LINES + 1) for t in at.get((source, n), ())}
            weight = sum(1 / math.log2(lines_per_term[t] + 1) for t in near)
            weight *= INSIDE_WEIGHT if (source, number) in inside else 1
            tier = 0 if lowered.intersection(named) else 1
            ranked.append((tier, -round(weight, 9), source, number, named))
        return [(tier, source, number, named) for tier, _, source, number, named in sorted(ranked)]

    def blocks(self, verdict: Verdict) -> list[Block]:
        """The blocks for one verdict, in the order of ``anchors``: never overlapping (a place already shown keeps
        the reason that came first), at most ``MAX_BLOCKS`` blocks and ``budget`` characters of code."""
        chosen: list[Block] = []
        self._fill(chosen, self.anchors(verdict), self.budget)
        return chosen

    def _fill(self, chosen: list[Block], anchors: list, budget: int) -> list:
        """Add to ``chosen`` the block of each anchor that fits in ``budget`` characters in all; returns the anchors
        left out for want of room. A traced span (a function) adds the pieces of its lines not yet shown; a line
        already shown adds nothing (its place was shown for a reason that came first)."""
        size = sum(len(b.text(self.index)) for b in chosen)
        left = []
        for anchor in anchors:
            source, line, end, keep, why = anchor
            if len(chosen) >= MAX_BLOCKS:
                continue
            for block in self._pieces(source, line, end, keep, chosen):
                added = self._add(chosen, block, why, budget - size)
                if added is None:
                    left.append(anchor)
                    break
                size += added
        return left

    def _pieces(self, source: str, line: int, end: int, keep: int, chosen: list[Block]) -> list[Block]:
        """The blocks an anchor adds to ``chosen``: for a span (``end`` > ``line``) its lines not yet shown, as one
        block per run of them; for a line not yet shown its block cut back to the lines not yet shown; else none."""
        shown = [b for b in chosen if b.source == source]
        block = self.block_at(source, line, keep, end)
        if block is None:
            return []
        if end > line:
            seen = {n for b in shown for n in range(b.start, b.end + 1)}
            free = [n for n in range(block.start, block.end + 1) if n not in seen]
            runs: list[list[int]] = []
            for n in free:
                if runs and n == runs[-1][1] + 1:
                    runs[-1][1] = n
                else:
                    runs.append([n, n])
            return [replace(block, start=a, end=b, truncated=block.truncated or (a, b) != (block.start, block.end))
                    for a, b in runs]
        if any(b.start <= line <= b.end for b in shown):
            return []
        return [_outside(block, line, shown)]

    def _add(self, chosen: list[Block], block: Block, why: str, room: int) -> int | None:
        """Add ``block`` to ``chosen`` (joined to a chosen block at most ``MERGE_GAP`` lines away, the gap shown)
        when its characters fit in ``room``; returns the characters added, ``None`` when it does not fit."""
        near = next((i for i, b in enumerate(chosen) if b.source == block.source
                     and (0 < block.start - b.end <= MERGE_GAP + 1 or 0 < b.start - block.end <= MERGE_GAP + 1)),
                    None)
        if near is not None:  # close to a chosen block: one block over both, the gap shown
            other = chosen[near]
            joined = replace(other, start=min(other.start, block.start), end=max(other.end, block.end),
                             truncated=other.truncated or block.truncated)
            length = len(joined.text(self.index)) - len(other.text(self.index))
            if length > room:
                return None
            reasons = other.why.split(_ALSO)
            if why not in reasons and len(reasons) < _REASONS:
                joined = replace(joined, why=f"{other.why}{_ALSO}{why}")
            chosen[near] = joined
            return length
        length = len(block.text(self.index))
        if length > room:
            return None
        chosen.append(replace(block, why=why))
        return length

    def block_at(self, source: str, line: int, keep: int = MAX_BLOCK_LINES, end: int | None = None) -> Block | None:
        """The block around ``line`` of ``source`` (``file`` or ``file#cell``), at most ``keep`` lines; for a span
        ``line``..``end`` of several lines (a function) its first ``keep`` lines. ``None`` when the source or the
        line is unknown."""
        lines = self.index.lines.get(source)
        if not lines or not 1 <= line <= len(lines):
            return None
        if source in self.index.modules:
            around = [s for s in self._spans_of(source) if s.start <= line <= s.end]
            functions = [s for s in around if s.kind == "function"]
            pick = min(functions or around, key=lambda s: s.end - s.start, default=None)
            if end is not None and end > line:  # a traced span: its own lines, from its start
                pick = next((s for s in around if s.start == line), pick)
            if pick is not None:
                anchor = pick.start if end is not None and end > line else line
                return _clip(source, anchor, pick.start, pick.end, pick.kind, pick.name, keep)
        first, last, kind = _config_block(lines, line, source)
        return _clip(source, line, first, last, kind, "", keep)

    def _spans_of(self, source: str) -> list[_Span]:
        if source not in self._spans:
            collector = _Spans()
            MetadataWrapper(self.index.modules[source], unsafe_skip_copy=True).visit(collector)
            self._spans[source] = collector.spans
            self._docstrings[source] = collector.docstrings
        return self._spans[source]

    def _code_at(self, source: str, line: int) -> tuple[int, int]:
        """(anchor line, lines kept) for a line naming a term: the line itself and ``TERM_LINES``; for a line of a
        function's or class's docstring, the first ``DOC_LINES`` lines of code after the docstring (a docstring
        names what the code below it does; the code is what is judged)."""
        if source in self.index.modules:
            self._spans_of(source)
            for start, end in self._docstrings.get(source, ()):
                if start <= line <= end:
                    return end + 1 + DOC_LINES // 3, DOC_LINES
        return line, TERM_LINES

    def _function_table(self) -> dict[str, list[tuple[str, _Span]]]:
        """Normalised function name -> (source, span), over non-test sources, in source order."""
        if self._functions is None:
            table: dict[str, list[tuple[str, _Span]]] = {}
            for source in sorted(self.index.modules):
                if is_test_path(split_where(source)[0]):
                    continue
                for span in self._spans_of(source):
                    if span.kind == "function":
                        table.setdefault(names.normalise(span.name), []).append((source, span))
            self._functions = table
        return self._functions


def check_terms(checks: dict) -> list[str]:
    """Identifier-like strings of a SAU's checks, in order, without repeats (``F.normalize`` gives ``normalize``):
    D1 atom names and aliases, D2 glossary code names and mechanism keywords, D3 names and aliases, D4 step
    functions and keywords."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            tail = value.rsplit(".", 1)[-1]
            if tail.isidentifier() and len(tail) > 1 and tail not in found:
                found.append(tail)
        elif isinstance(value, dict):
            for key in sorted(value):
                if key == "glossary" and isinstance(value[key], dict):
                    walk(list(value[key]))  # a formula's symbols, which code often spells as is (`W_u`)
                if key == "formulas":
                    walk([f for formula in value[key] if isinstance(formula, str)
                          for f in re.findall(r"([A-Za-z_]\w*)\s*\(", formula)])  # functions it applies: swiglu
                elif key not in ("expressions", "meaning", "strict"):
                    walk(value[key])
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif hasattr(value, "__dataclass_fields__"):  # D1 atoms
            walk([getattr(value, "name", ""), list(getattr(value, "aliases", ()))])

    walk(checks)
    return found


def statement_words(statement: str) -> list[str]:
    """Content words of a claim's statement that code may use as names (``temperature``, ``greedy``, ``layers``):
    words of at least ``_MIN_WORD`` letters, not claim function words nor generic terms (``claim_stop_words``,
    ``generic_terms`` in rules/words.yaml) nor generic names, in order, without repeats."""
    found: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z_]+", statement):
        lowered = word.lower()
        if (len(word) >= _MIN_WORD and lowered not in _STOP_WORDS and lowered not in _GENERIC
                and not names.is_generic(word) and lowered not in found):
            found.append(lowered)
    return found


def statement_names(statement: str) -> list[str]:
    """Words of a claim's statement written as code names (an underscore, a digit or a capital after the first
    letter: ``s_qk``, ``alpha_A``, ``nGPT``, ``W_oMLP``), in order, without repeats: a statement that spells a
    name as code does names code, as a term of its checks does."""
    found: list[str] = []
    for word in re.findall(r"(?<!\w)[A-Za-z][A-Za-z0-9_]+", statement):
        if ("_" in word.strip("_") or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])) \
                and not word.isupper() and word not in found:
            found.append(word)
    return found


def number_terms(checks: dict, statement: str) -> list[str]:
    """The ways code may write the numbers a SAU names outside D1's atoms (``value_terms``): numbers written as
    strings in its checks (a D4 step's keyword ``512``, a D3 baseline's alias ``0.95``) and in its statement
    (``0.95``, ``1e-3``, ``rank 129``; a size such as ``27B`` or ``100k`` as written, lower-cased), in order,
    without repeats; 0, 1 and -1 left out (``value_terms``), and the statement's single digits (on too many lines
    of any repository to say anything)."""
    found: list[str] = []
    strings: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for key in sorted(value):
                if key not in ("formulas", "expressions", "meaning"):
                    walk(value[key])
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    walk(checks)
    numbers = [s.strip() for s in strings if _NUMBER.fullmatch(s.strip())]
    numbers += [m.group(0) for m in _NUMBER_IN_TEXT.finditer(statement) if len(m.group(0)) > 1]  # `2` is everywhere
    for text in numbers:
        size = _SIZE.fullmatch(text)
        if size:
            if text.lower() not in found:
                found.append(text.lower())
            continue
        try:
            value = float(text)
        except ValueError:
            continue
        for spelling in _spellings(int(value) if value.is_integer() and "e" not in text.lower() else value):
            if spelling not in found:
                found.append(spelling)
    return found


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_SIZE = re.compile(r"\d+(\.\d+)?[kKmMbB]")
# A number in running text: not part of a word or a name (`G1`, `x_2`), a size like `27B` kept whole.
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])(\d+(\.\d+)?[kKmMbB]|\d+\.\d+([eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)(?![\w.])")


def value_terms(checks: dict) -> list[str]:
    """The ways code may write a D1 atom's claimed numbers (``3e-4``, ``3e-04``, ``0.0003``; ``512``), in order,
    without repeats: a value bound under a name the checks do not list is still found by its number. Booleans, and
    0, 1 and -1 (on any line), are left out."""
    found: list[str] = []
    for atom in checks.get("atoms", ()) if isinstance(checks, dict) else ():
        for value in getattr(atom, "values", ()):
            for item in value if isinstance(value, tuple) else (value,):
                found += [s for s in _spellings(item) if s not in found]
    return found


def _spellings(value: object) -> list[str]:
    """The ways code writes the number ``value`` (``3e-4``, ``3e-04``, ``0.0003``; ``512``); none for what is not
    a finite number, for booleans, and for 0, 1 and -1 (on any line)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value in (0, 1, -1):
        return []
    if isinstance(value, float) and not math.isfinite(value):
        return []
    spellings = [str(int(value))] if float(value).is_integer() and abs(value) < 1e6 else []
    if not float(value).is_integer() or abs(value) >= 1e6:
        mantissa, _, exponent = f"{value:.6e}".partition("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        power = int(exponent)
        spellings += [f"{value:.6g}", repr(float(value)), f"{mantissa}e{power}", f"{mantissa}e{power:+03d}",
                      f"{mantissa}e{power:03d}" if power < 0 else f"{mantissa}e{power:02d}"]
        if abs(value) < 1:
            spellings.append(f"{value:.10f}".rstrip("0"))
    return list(dict.fromkeys(spellings))


def _short(why: str) -> str:
    """``why`` cut to ``MAX_WHY`` characters (a reason is read once; the code is what is judged)."""
    return why if len(why) <= MAX_WHY else why[:MAX_WHY - 3] + "..."


def _clip(source: str, line: int, start: int, end: int, kind: str, name: str, keep: int = MAX_BLOCK_LINES) -> Block:
    """``start``..``end`` when it has at most ``keep`` lines, else ``keep`` lines holding ``line``, a third of them
    before it (the code leading to a traced line matters less than what follows it)."""
    if end - start + 1 <= keep:
        return Block(source, start, end, kind, name)
    low = max(start, min(line - keep // 3, end - keep + 1))  # a full window, anchor inside
    high = min(end, low + keep - 1)
    return Block(source, low, high, kind, name, truncated=True)


def _outside(block: Block, line: int, shown: list[Block]) -> Block:
    """``block`` cut back so that it shares no line with ``shown`` (blocks of its source), keeping ``line``."""
    start, end = block.start, block.end
    for other in shown:
        if other.end < line:
            start = max(start, other.end + 1)
        elif other.start > line:
            end = min(end, other.start - 1)
    return block if (start, end) == (block.start, block.end) else replace(block, start=start, end=end, truncated=True)


def _config_block(lines: list[str], line: int, source: str) -> tuple[int, int, str]:
    """The top-level block holding ``line``: a YAML key with its indented lines, a TOML table; else a window."""
    suffix = source.rsplit(".", 1)[-1].lower()
    if suffix in ("yaml", "yml"):
        def top(n: int) -> bool:
            text = lines[n - 1]
            return bool(text.strip()) and not text[0].isspace() and not text.startswith("#")
    elif suffix == "toml":
        def top(n: int) -> bool:
            return lines[n - 1].lstrip().startswith("[")
    else:
        return max(1, line - _WINDOW), min(len(lines), line + _WINDOW), "window"
    start = line
    while start > 1 and not top(start):
        start -= 1
    end = line
    while end < len(lines) and not top(end + 1):
        end += 1
    return start, end, "config"
