"""One pass over one parsed source (a module or a notebook cell): its definitions, imports, calls in evaluation
order and mentions, recorded in a ``Scan`` before any name is resolved across modules (``resolve``)."""

from __future__ import annotations

import re

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange

from extractors.callgraph.model import CLASS, FUNCTION, Mention
from extractors.values import dotted_name
from extractors.words import word_list
from extractors.trees import node_children
from extractors.visitor import Visitor

# Word lists (what each holds and its source: extractors/words.yaml).
_PLAIN_DECORATORS = word_list("plain_decorators")
_DISPLAY_CALLS = word_list("display_calls")
_DISPLAY_KEYWORDS = word_list("display_keywords")
_SELF_RETURNING = word_list("self_returning_methods")
_CLI_REGISTRATIONS = word_list("cli_registrations")
_FILLING = word_list("filling_methods")
_READING_CALLS = word_list("reading_calls")

# A definition: (kind, line, end_line, node, enclosing class qualname or None, source key).
Definition = tuple[str, int, int, cst.FunctionDef | cst.ClassDef, str | None, str]
# A call or reference before resolution: (scope, how, text, line, in_loop, source key, branch); ``how`` is
# ``call``, ``ref`` (a name read, not called), ``super`` (``super().text(...)``), ``expr`` (a method called on a
# computed value, ``(loss / k).backward()``: ``text`` is the method's name), ``built`` (a method called on the object
# a call builds, ``Trainer(model).run()``: ``text`` is the called name and the method, ``Trainer.run``), ``namespace`` (a call of what a run-time
# name picks from a module's namespace, ``models.__dict__[args.model](...)`` or ``vars(models)[name](...)``: ``text``
# is the module's dotted name) or ``dynamic``.
RawSite = tuple[str, str, str, int, bool, str, tuple[tuple[int, int], ...]]


@dataclass
class Scan:
    """What one parsed source yields before cross-module resolution (notebook cells merge into one per notebook)."""

    module: str
    file: str
    defs: dict[str, Definition] = field(default_factory=dict)  # qualname -> its definition
    imports: dict[str, tuple[str, int]] = field(default_factory=dict)  # local name -> (dotted target, line)
    stars: list[str] = field(default_factory=list)  # modules star-imported, absolute
    raw: list[RawSite] = field(default_factory=list)
    # (scope, var) -> constructor text; None when several
    var_types: dict[tuple[str, str], str | None] = field(default_factory=dict)
    # (scope, var) -> (line, constructor text or None, enclosing if/try arms, narrows) per binding, in source order:
    # a variable bound to several things has, at a call, the type of its latest binding above it in an arm holding
    # the call (detector = A(...); detector.run(); detector = B(...); detector.run()). A parameter's annotation
    # binds it at the def line; ``isinstance(x, C)`` narrows x to C in the body of its if (``narrows``: no binding
    # outside that body)
    var_bindings: dict[tuple[str, str], list[tuple[int, str | None, tuple[tuple[int, int], ...], bool]]] = field(
        default_factory=dict)
    annotated: set[tuple[str, str]] = field(default_factory=set)  # (scope, var) typed by an annotation or isinstance
    # (scope, line, called name) of each call written as a statement of its own (``Trainer(cfg)``): the value it
    # makes, an object for a class, is dropped at once (``extractors.callgraph.build``, idle instances)
    dropped: list[tuple[str, int, str]] = field(default_factory=list)
    # (scope, name) -> how many of its ``name`` mentions are a plain assignment's own target (``x = ...``), a store
    # and no read of it
    stores: dict[tuple[str, str], int] = field(default_factory=dict)
    # (scope, var) -> the names a binding of var to a name or a conditional expression of names offers, one entry
    # per such binding (``ModelClass = nGPT if args.ngpt else GPT``; ``()`` for ``None``): calling var calls one of
    # the names its bindings offer, when these are all its bindings (``assigned``, ``rebinds``)
    choices: dict[tuple[str, str], list[tuple[str, ...]]] = field(default_factory=dict)
    # (scope, var) -> how many plain assignments (``var = value``) bind var there
    assigned: dict[tuple[str, str], int] = field(default_factory=dict)
    # (scope, var) bound otherwise too: a parameter, an unpacking, a loop or ``with`` target, ``:=``, an ``except
    # ... as``, an import inside a function, ``+=``, or a ``global``/``nonlocal`` declaration (in every enclosing
    # scope and the module): what it holds there cannot be read from its assignments alone
    rebinds: set[tuple[str, str]] = field(default_factory=set)
    params: set[tuple[str, str]] = field(default_factory=set)  # (function qualname, parameter name)
    reimported: set[str] = field(default_factory=set)  # local names two imports bind to different targets
    dynamic_attrs: set[str] = field(default_factory=set)  # classes whose methods call setattr(self, ...)
    # (scope, var) -> (the names of the objects a loop binds var to in turn, the loop's first and last line), one
    # entry per loop binding it: the loop iterates a display of names (``for name, m in [("CRC", crc), ("RCPS",
    # rcps)]``, or a name bound once to such a display above the loop and left unchanged), so calling var inside the
    # loop calls each object in that order; no names for any other loop
    iterated: dict[tuple[str, str], list[tuple[tuple[str, ...], int, int]]] = field(default_factory=dict)
    # (scope, first line, last line) of each lambda: a call in it runs when the lambda is called, not where it is
    deferred: list[tuple[str, int, int]] = field(default_factory=list)
    # (scope, var) -> the rows of the display var is bound to (``_display_rows``), one entry per binding to a display,
    # and an empty one per change of it (a method called on it, an item set, ``+=``)
    displays: dict[tuple[str, str], list[tuple[tuple[str | None, ...], ...]]] = field(default_factory=dict)
    # (class qualname, attr) -> constructor text; None when several
    attr_types: dict[tuple[str, str], str | None] = field(default_factory=dict)
    # (class qualname, attr) -> the scope of each binding of it to a constructor call: a constructor text that is a
    # local variable choosing among classes (``Scan.choices``) is read in that scope
    attr_sites: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)  # class qualname -> [base text]
    decorated: set[str] = field(default_factory=set)  # function qualnames with a registering decorator
    registered: set[str] = field(default_factory=set)  # class qualnames with a decorator that may register them
    # (function qualname, application as written, source key, line) per ``@cli.command()``-style registration
    commands: list[tuple[str, str, str, int]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    main_line: int | None = None
    main_end: int | None = None
    # (scope, absolute module, source key, line, plain, names): ``plain`` for an import whose failure stops the
    # module (``unguarded_imports``), ``names`` those a ``from`` import takes (a submodule among them is imported too)
    import_lines: list[tuple[str, str, str, int, bool, tuple[str, ...]]] = field(default_factory=list)
    # (scope, source key, the statement) per ``if`` statement other than the ``__main__`` guard, ``elif`` included:
    # the tests ``branches`` evaluates
    ifs: list[tuple[str, str, cst.If]] = field(default_factory=list)


class Scanner(Visitor):
    """One pass over one source, filling ``scan``: definitions, imports, calls in evaluation order, mentions.

    ``key`` is the source key (file, or ``file#cell``); ``is_package`` whether the file is an ``__init__.py``
    (relative imports then start from the package itself); ``top_scope`` the node collecting top-level calls (the
    module, or the notebook cell); ``positions`` maps each node of the module to its ``CodeRange`` (the index's,
    resolved once). Raises ``RecursionError`` on pathologically deep trees (the caller drops that source).
    """

    def __init__(self, scan: Scan, key: str, is_package: bool, top_scope: str,
                 positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        super().__init__()
        self.positions = positions
        self.s = scan
        self.key = key
        self.is_package = is_package
        self.scopes = [top_scope]  # innermost scope collecting calls
        self.prefix = [scan.module]  # qualname prefix of definitions
        self.classes: list[str | None] = [None]
        self.loops = [0]
        self.loop_nodes: list[cst.CSTNode] = []  # the enclosing loops and comprehensions, innermost last
        self.skip: set[int] = set()  # ids of Name nodes that are not reads (def names, params, keywords)
        self.targets: set[int] = set()  # ids of Name nodes a plain assignment stores to (``Scan.stores``)
        self.call_funcs: set[int] = set()
        self.main_body: cst.BaseSuite | None = None
        self.display = 0  # inside print/logging arguments or a help= text: strings there are shown, not used
        self.branches: list[list[tuple[int, int]]] = [[]]  # per scope: the enclosing if/try arms
        self.arms: dict[int, tuple[int, int]] = {}  # id of a block (or elif) -> (id of its if/try, arm number)
        # Mention contexts (``Mention.context``): the callees whose arguments enclose the node, innermost last; the
        # context of strings used as keys; the literal assignment values being visited.
        self.calls: list[str] = []
        self.keywords: list[tuple[int, str]] = []  # (depth of self.calls, keyword) of the keyword arguments visited
        self.keyed: dict[int, str] = {}
        self.literal_values: set[int] = set()
        self.in_literal = 0
        self.iterables: dict[int, str] = {}  # id of the name a loop iterates -> its ``iter:`` context
        self.key_reads: dict[int, tuple[str, ...]] = {}  # id of a computed key -> its value's ``reads``
        self.within_labels: dict[int, str] = {}  # id of a display's top-level element -> ``<name>:<position>``
        self.within: list[str] = []
        self.compared: set[int] = set()  # ids of strings a comparison tests against (``x == "a"``)
        self.selecting: set[int] = set()  # ids of those an ``if`` statement selects its body by
        self.guard_of: dict[int, tuple[str, ...]] = {}  # id of an if's body -> the strings its test compares with
        self.guards: list[tuple[int, tuple[str, ...]]] = []  # (scope depth, strings) of the enclosing if bodies
        self.defaults: dict[int, str] = {}  # id of a parameter's default value -> ``default:<parameter>``
        self.slices: dict[int, str] = {}  # id of a name a table entry slices -> ``slice:<lower>:<upper>``
        self.plain: frozenset[int] = frozenset()  # ids of the imports whose failure stops the module

    def on_visit(self, node: cst.CSTNode) -> bool:
        arm = self.arms.get(id(node))
        if arm is not None:
            self.branches[-1].append(arm)
        if id(node) in self.literal_values:
            self.in_literal += 1
        if id(node) in self.within_labels:
            self.within.append(self.within_labels[id(node)])
        if id(node) in self.guard_of:
            self.guards.append((len(self.scopes), self.guard_of[id(node)]))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self.arms:
            self.branches[-1].pop()
        if id(original_node) in self.literal_values:
            self.in_literal -= 1
        if id(original_node) in self.within_labels:
            self.within.pop()
        if id(original_node) in self.guard_of:
            self.guards.pop()

    def _line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def _end(self, node: cst.CSTNode) -> int:
        return self.positions[node].end.line

    def _raw(self, how: str, text: str, node: cst.CSTNode) -> None:
        self.s.raw.append((self.scopes[-1], how, text, self._line(node), self.loops[-1] > 0, self.key,
                           tuple(self.branches[-1])))

    def _mention(self, text: str, kind: str, node: cst.CSTNode, context: str | None = None,
                 reads: tuple[str, ...] | None = None) -> None:
        if kind == "string" and self.display:
            kind = "display"
        if context is None:
            context = self._context(node)
        if reads is None:
            reads = self.key_reads.get(id(node), ())
        within = self.within[-1] if self.within else ""
        depth = len(self.scopes)
        guards = tuple(dict.fromkeys(g for level, strings in self.guards if level == depth for g in strings))
        self.s.mentions.append(Mention.at(self.key, self._line(node), self.scopes[-1], text, kind, context, reads,
                                          within, guards))

    def _context(self, node: cst.CSTNode) -> str:
        """The ``Mention.context`` of a name or string being visited (not of a binding: ``_bind``)."""
        if id(node) in self.defaults:
            return self.defaults[id(node)]
        if id(node) in self.iterables:
            return self.iterables[id(node)]
        if id(node) in self.slices:
            return self.slices[id(node)]
        if id(node) in self.call_funcs:
            return "call"
        if id(node) in self.keyed:
            return self.keyed[id(node)]
        if id(node) in self.selecting:
            return "select"
        if id(node) in self.compared:
            return "compare"
        if self.calls:
            keyword = self.keywords[-1] if self.keywords else None
            named = f"={keyword[1]}" if keyword is not None and keyword[0] == len(self.calls) else ""
            return f"arg:{self.calls[-1]}{named}"
        return "literal" if self.in_literal else ""

    # -- definitions ------------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qual = f"{self.prefix[-1]}.{node.name.value}"
        self.s.defs[qual] = (FUNCTION, self._line(node), self._end(node), node, self.classes[-1], self.key)
        self.s.rebinds.add((self.scopes[-1], node.name.value))  # def agent_class(): ... binds the name too
        if any(decorator_name(d) not in _PLAIN_DECORATORS for d in node.decorators):
            self.s.decorated.add(qual)
        if self.classes[-1] is None:
            for decorator in node.decorators:
                application = _command_application(decorator)
                if application:
                    self.s.commands.append((qual, application, self.key, self._line(decorator)))
        self.skip.add(id(node.name))
        self.scopes.append(qual)
        self.prefix.append(qual)
        self.classes.append(None)
        self.loops.append(0)
        self.branches.append([])
        self._mention(node.name.value, "definition", node)  # runs when the function runs

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.prefix.pop()
        self.classes.pop()
        self.loops.pop()
        self.branches.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qual = f"{self.prefix[-1]}.{node.name.value}"
        self.s.defs[qual] = (CLASS, self._line(node), self._end(node), node, None, self.key)
        self.s.bases[qual] = [t for t in (dotted_name(b.value) for b in node.bases) if t]
        if any(decorator_name(d) not in _PLAIN_DECORATORS for d in node.decorators):
            self.s.registered.add(qual)  # @register("transformer") class ...: built wherever the registry is read
        self.skip.add(id(node.name))
        self.s.mentions.append(Mention.at(self.key, self._line(node), qual, node.name.value, "definition"))
        self.s.rebinds.add((self.scopes[-1], node.name.value))
        self.prefix.append(qual)
        self.classes.append(qual)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.prefix.pop()
        self.classes.pop()

    def _owner_class(self) -> str | None:
        """The class whose method the current scope is (for ``self``), if any."""
        scope = self.scopes[-1]
        entry = self.s.defs.get(scope)
        return entry[4] if entry and entry[0] == FUNCTION else None

    def visit_Param(self, node: cst.Param) -> None:
        self.skip.add(id(node.name))
        self.s.rebinds.add((self.scopes[-1], node.name.value))
        self.s.params.add((self.scopes[-1], node.name.value))
        if node.default is not None:
            self.defaults[id(node.default)] = f"default:{node.name.value}"
        annotation = dotted_name(node.annotation.annotation) if node.annotation is not None else None
        if annotation is not None and len(self.scopes) > 1:  # def run(trainer: PPOTrainer): trainer is one
            self._type_var(node.name.value, self._line(node), annotation, ())
            self.s.annotated.add((self.scopes[-1], node.name.value))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.keywords.append((len(self.calls), node.keyword.value))
            self.skip.add(id(node.keyword))
            if node.keyword.value in _DISPLAY_KEYWORDS:
                self.display += 1

    def leave_Arg(self, original_node: cst.Arg) -> None:
        if original_node.keyword is not None:
            self.keywords.pop()
        if original_node.keyword is not None and original_node.keyword.value in _DISPLAY_KEYWORDS:
            self.display -= 1

    def visit_Module(self, node: cst.Module) -> None:
        self.plain = unguarded_imports(node)

    # -- imports: recorded, not descended into ----------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            target = _attr_text(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._imported(alias.asname.name.value, (target, self._line(node)))
            else:
                head = target.split(".")[0]
                self.s.imports.setdefault(head, (head, self._line(node)))
                self.s.rebinds.add((self.scopes[-1], head))
            plain = id(node) in self.plain
            self.s.import_lines.append((self.scopes[-1], target, self.key, self._line(node), plain, ()))
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        level = len(node.relative)
        base = _attr_text(node.module) if node.module is not None else ""
        absolute = _absolute(self.s.module, self.is_package, base, level)
        if absolute is None:
            return False
        line = self._line(node)
        plain = id(node) in self.plain
        if isinstance(node.names, cst.ImportStar):
            self.s.import_lines.append((self.scopes[-1], absolute, self.key, line, plain, ()))
            self.s.stars.append(absolute)
            return False  # the names it binds are unknown: Scan.stars keeps choices of the module open
        names = tuple(_attr_text(alias.name) for alias in node.names)
        self.s.import_lines.append((self.scopes[-1], absolute, self.key, line, plain, names))
        for alias, name in zip(node.names, names):
            local = alias.asname.name.value if alias.asname is not None and isinstance(
                alias.asname.name, cst.Name) else name
            self._imported(local, (f"{absolute}.{name}" if absolute else name, line))
        return False

    def _imported(self, local: str, target: tuple[str, int]) -> None:
        """Record that an import binds ``local`` to ``target`` (dotted name, line); a name two imports bind (``try:
        from fused import A as Attention`` / ``except ImportError: from naive import B as Attention``) is noted in
        ``Scan.reimported``, since which one it holds is decided at run time."""
        if local in self.s.imports and self.s.imports[local][0] != target[0]:
            self.s.reimported.add(local)
        self.s.imports[local] = target
        self.s.rebinds.add((self.scopes[-1], local))

    # -- control flow -----------------------------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        if len(self.scopes) == 1 and self.classes[-1] is None and _is_main_guard(node.test):
            self.main_body = node.body
            self.s.main_line, self.s.main_end = self._line(node), self._end(node.body)
            return
        self.s.ifs.append((self.scopes[-1], self.key, node))
        self.arms[id(node.body)] = (id(node), 0)
        test = node.test
        if (isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2
                and isinstance(test.args[0].value, cst.Name) and dotted_name(test.args[1].value)):
            # if isinstance(trainer, MAPPOTrainer): the body runs trainer's methods of that class
            name = test.args[0].value.value
            self._type_var(name, self._line(node), dotted_name(test.args[1].value),
                           (*self.branches[-1], (id(node), 0)), narrows=True)
            self.s.annotated.add((self.scopes[-1], name))
        compared = compared_strings(node.test)
        self.selecting.update(id(string) for string in selecting_strings(node.test))
        for string, tested in selected_by(node.test):
            self.key_reads[id(string)] = (tested,)  # the name the arm is selected by: Mention.reads
        if compared:
            self.guard_of[id(node.body)] = compared
        if isinstance(node.orelse, cst.Else):
            self.arms[id(node.orelse.body)] = (id(node), 1)
        elif isinstance(node.orelse, cst.If):
            self.arms[id(node.orelse)] = (id(node), 1)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if any(isinstance(c.operator, _TESTS) for c in node.comparisons):
            for operand in operands:
                for string in _strings_of(operand):
                    self.compared.add(id(string))
            for string, tested in _tested_by(node):
                self.key_reads.setdefault(id(string), (tested,))  # is_7b = "7b" in model_name.lower()

    def visit_Try(self, node: cst.Try) -> None:
        self.arms[id(node.body)] = (id(node), 0)
        for number, handler in enumerate(node.handlers, 1):
            self.arms[id(handler.body)] = (id(node), number)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if node is self.main_body:
            self.scopes.append(f"{self.s.module}.__main__")
            self.loops.append(0)
            self.branches.append([])

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if original_node is self.main_body:
            self.scopes.pop()
            self.loops.pop()
            self.branches.pop()

    def _enter_loop(self, node: cst.CSTNode) -> None:
        self.loops[-1] += 1
        self.loop_nodes.append(node)

    def _leave_loop(self, original_node: cst.CSTNode) -> None:
        self.loops[-1] -= 1
        self.loop_nodes.pop()

    visit_For = visit_While = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_loop

    def _rebound(self, target: cst.BaseExpression | None) -> None:
        """Note each plain name ``target`` binds (``Scan.rebinds``)."""
        if isinstance(target, cst.Name):
            self.s.rebinds.add((self.scopes[-1], target.value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._rebound(element.value)
        elif isinstance(target, cst.StarredElement):
            self._rebound(target.value)

    def _bound_by(self, node: cst.CSTNode) -> None:
        """Note the names a loop or ``with`` target, ``:=``, ``except ... as`` or a ``match`` capture binds."""
        self._rebound(_BOUND_TARGETS[type(node)](node))

    visit_For_target = visit_CompFor_target = visit_WithItem = visit_NamedExpr = visit_ExceptHandler = _bound_by
    visit_MatchAs = visit_MatchStar = visit_MatchMapping = _bound_by  # case SAC() as agent_class:

    def visit_Global(self, node: cst.Global) -> None:
        self._declared(node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self._declared(node.names)

    def _declared(self, names: Sequence[cst.NameItem]) -> None:
        """A ``global``/``nonlocal`` declaration: the variable of the module or of an enclosing function is
        rebound here, so its assignments there are not all its bindings."""
        for item in names:
            self.s.rebinds.update((scope, item.name.value) for scope in (*self.scopes, self.s.module))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        # a lambda calls its loop variable when it is called, after the loop: the last object (late binding)
        self.s.deferred.append((self.scopes[-1], self._line(node), self._end(node)))

    def visit_For_iter(self, node: cst.For) -> None:
        self._note_iterable(node.iter, node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._note_iterable(node.iter, node.target)

    def _note_iterable(self, iterable: cst.BaseExpression, target: cst.BaseExpression) -> None:
        """Give the name a loop iterates its ``iter:`` context (``Mention.context``), and note the objects a loop
        over a display of names binds its target to (``Scan.iterated``)."""
        wrapper = (dotted_name(iterable.func) or "").rsplit(".", 1)[-1] if isinstance(iterable, cst.Call) else ""
        if wrapper in _ITER_WRAPPERS and isinstance(iterable, cst.Call) \
                and iterable.args and iterable.args[0].keyword is None:
            iterable = iterable.args[0].value  # enumerate(TASKS), tqdm(TASKS): still the tasks
        if wrapper == "enumerate" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
            self._note_iterated(iterable, target.elements[1].value)  # for i, m in enumerate(models): m the element
        else:  # sorted/reversed/set/zip... reorder or pair what runs: the names are bound, to nothing known
            self._note_iterated(iterable if wrapper in ("", "list", "tuple", "tqdm") else None, target)
        bounds = "::"
        if isinstance(iterable, cst.Subscript) and len(iterable.slice) == 1 \
                and isinstance(iterable.slice[0].slice, cst.Slice):
            part = iterable.slice[0].slice
            bounds = f"{_bound(part.lower)}:{_bound(part.upper)}:" if part.step is None else "?:?:"
            iterable = iterable.value
        if isinstance(iterable, (cst.Name, cst.Attribute)):
            targets = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
            names = [dotted_name(t) or "" for t in targets]
            self.iterables[id(iterable)] = f"iter:{bounds}{','.join(names)}"
    leave_For = leave_While = leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_loop

    def _changed(self, name: str, rebound: bool = False) -> None:
        """Note that the display ``name`` is bound to may have changed (``Scan.displays``: an empty entry), and,
        when ``name`` is ``rebound``, that it no longer holds the objects a loop binds it to (``Scan.iterated``)."""
        key = (self.scopes[-1], name)
        if key in self.s.displays:
            self.s.displays[key].append(())
        if rebound and key in self.s.iterated:
            self.s.iterated[key].append(((), 0, 0))

    def _note_iterated(self, iterable: cst.BaseExpression | None, target: cst.BaseExpression) -> None:
        """Note the names each name of ``target`` takes in turn (``Scan.iterated``): when ``iterable`` is a display
        of names, or of tuples of names that ``target`` unpacks (``[("CRC", crc), ("RCPS", rcps)]`` for ``name,
        m``), or a name this scope binds once, above the loop, to such a display; an empty entry for any other loop
        (``iterable`` ``None``: one whose order is not the display's), so that a name two loops bind is typed by
        neither."""
        rows = _display_rows(iterable) if iterable is not None else None
        if rows is None and isinstance(iterable, cst.Name):
            bound = self.s.displays.get((self.scopes[-1], iterable.value), [])
            rows = bound[0] if len(bound) == 1 else None
        parts = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for position, part in enumerate(parts):
            name = dotted_name(part)
            if name is None or "." in name:
                continue
            offered = tuple(row[position] if len(row) == len(parts) else None for row in rows or ())
            names = tuple(o for o in offered if o) if offered and all(offered) else ()
            loop = self.loop_nodes[-1]
            self.s.iterated.setdefault((self.scopes[-1], name), []).append((names, self._line(loop), self._end(loop)))

    # -- statements that are only strings are docstrings or commented-out text -------------------------------
    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call) and (called := dotted_name(node.value.func)) is not None:
            self.s.dropped.append((self.scopes[-1], self._line(node.value), called))

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return not (len(node.body) == 1 and isinstance(node.body[0], cst.Expr)
                    and isinstance(node.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))

    # -- calls, bindings and reads ----------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self.call_funcs.add(id(node.func))
        self.calls.append(dotted_name(node.func) or "")
        if (dotted_name(node.func) or "").rsplit(".", 1)[-1] in _DISPLAY_CALLS:
            self.display += 1

    def leave_Call(self, original_node: cst.Call) -> None:
        self.calls.pop()
        func = original_node.func
        if (dotted_name(func) or "").rsplit(".", 1)[-1] in _DISPLAY_CALLS:
            self.display -= 1
        text = dotted_name(func)
        if text == "setattr" and original_node.args and dotted_name(original_node.args[0].value) == "self":
            owner = self._owner_class()  # setattr(self, key, value): any attribute of the object may be rebound
            if owner is not None:
                self.s.dynamic_attrs.add(owner)
        if text is not None:
            receiver, _, method = text.rpartition(".")
            if receiver and "." not in receiver:
                self._changed(receiver)  # methods.reverse(), methods.append(m): the display is no longer known
            if method not in _READING_CALLS:  # random.shuffle(methods), prepare(methods) may change it too
                for arg in original_node.args:
                    if type(arg.value) is cst.Name:
                        self._changed(arg.value.value)
            if receiver and method in _FILLING:  # scores.append(v): scores now holds v too
                reads = tuple(dict.fromkeys(r for arg in original_node.args for r in value_reads(arg.value)))
                self._mention(receiver.split(".")[-1], "binding", original_node, "bind:item", reads)
            self._raw("call", text, original_node)
            return
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) \
                and dotted_name(func.value.func) == "super":
            self._raw("super", func.attr.value, original_node)
        elif isinstance(func, cst.Call) and dotted_name(func.func) == "getattr":
            self._raw("dynamic", "getattr", original_node)  # getattr(obj, name)(...): dispatch by a run-time name
        elif isinstance(func, cst.Subscript) and (namespace := _namespace(func.value)) is not None:
            self._raw("namespace", namespace, original_node)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call) \
                and dotted_name(func.value.func) is not None:
            # Trainer(model).run(cfg): a method of the object a call builds, resolved when that is a class's
            self._raw("built", f"{dotted_name(func.value.func)}.{func.attr.value}", original_node)
        elif isinstance(func, cst.Attribute):  # (loss / k).backward(): a method of a computed value, unresolved
            self._raw("expr", func.attr.value, original_node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.targets.update(id(t.target) for t in node.targets if isinstance(t.target, cst.Name))
        value = node.value
        ctor = dotted_name(value.func) if isinstance(value, cst.Call) else None
        self._note_literal(value)
        for target in node.targets:
            self._bind(target.target, ctor, node, value)
        self._note_within(node.targets[-1].target, value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        text = dotted_name(node.target) or (dotted_name(node.target.value) if isinstance(node.target, cst.Subscript)
                                            else None)
        if text is not None:
            self._changed(text)  # methods += [m]
            self.s.rebinds.add((self.scopes[-1], text))
            self._mention(text.split(".")[-1], "binding", node, "bind:item", value_reads(node.value))

    def _note_within(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Label the top-level elements of a display bound to a name (``Mention.within``)."""
        name = dotted_name(target)
        if name is None:
            return
        name = name.split(".")[-1]
        if isinstance(value, (cst.List, cst.Tuple)):
            for position, element in enumerate(value.elements):
                self.within_labels[id(element)] = f"{name}:{position}"
        elif isinstance(value, cst.Set):
            for member in value.elements:
                self.within_labels[id(member)] = f"{name}:"
        elif isinstance(value, cst.Dict):
            for entry in value.elements:
                if isinstance(entry, cst.DictElement):
                    key = _string_value(entry.key)
                    self.within_labels[id(entry.key)] = f"{name}:"
                    # the entry's key names what its value serves: "dmc_proprio" in {"dmc_proprio": DMC_ENVS}
                    self.within_labels[id(entry.value)] = f"{name}:=" + (key if key and ":" not in key else "")
                    self._note_slice(entry.value)

    def _note_slice(self, value: cst.BaseExpression) -> None:
        """Give a table entry slicing a name with literal bounds (``DMC_ENVS[:5]``) the ``slice:`` context on that
        name: the entry holds only those positions of the list."""
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice) \
                and isinstance(value.value, (cst.Name, cst.Attribute)):
            part = value.slice[0].slice
            self.slices[id(value.value)] = (f"slice:{_bound(part.lower)}:{_bound(part.upper)}" if part.step is None
                                            else "slice:?:?")

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.targets.add(id(node.target))
        value = node.value
        ctor = dotted_name(value.func) if isinstance(value, cst.Call) else None
        if value is not None:
            self._note_literal(value)
            self._note_within(node.target, value)
        self._bind(node.target, ctor, node, value)

    def _note_literal(self, value: cst.BaseExpression) -> None:
        if is_literal(value):
            self.literal_values.add(id(value))

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if isinstance(node.key, (cst.SimpleString, cst.ConcatenatedString)):
            self.keyed[id(node.key)] = "key:literal" if is_literal(node.value) else "key:computed"
            self.key_reads[id(node.key)] = value_reads(node.value)

    def _bind(self, target: cst.BaseExpression, ctor: str | None, node: cst.CSTNode,
              value: cst.BaseExpression | None = None) -> None:
        if isinstance(target, cst.Subscript) and value is not None:  # metrics["ppl"] = ...: the key names the value
            for element in target.slice:
                index = element.slice
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                    self.keyed[id(index.value)] = "key:literal" if is_literal(value) else "key:computed"
                    self.key_reads[id(index.value)] = value_reads(value)
            base = dotted_name(target.value)
            if base is not None:  # results[k] = v: results holds more than its literal start
                self._changed(base)
                self._mention(base.split(".")[-1], "binding", node, "bind:item", value_reads(value))
        if isinstance(target, (cst.Tuple, cst.List)) and value is not None:
            self._bind_each(target, node, value)
            return
        text = dotted_name(target)
        if text is None:
            return
        self._binding(text, node, value, ctor)
        built = _moved(value) if value is not None else None
        if built is not None and not isinstance(built, cst.Call):
            if dotted_name(built) == text:
                return  # model = model.to(device): the same object, its class kept
        elif built is not None:
            ctor = dotted_name(built.func)  # Encoder(...).to(device): an Encoder
        parts = text.split(".")
        if len(parts) == 1:
            rows = _display_rows(value) if value is not None else None
            if rows is not None:
                self.s.displays.setdefault((self.scopes[-1], parts[0]), []).append(rows)
            else:
                self._changed(parts[0], rebound=True)  # methods = sorted(methods): no longer the display
            self._type_var(parts[0], self._line(node), ctor, tuple(self.branches[-1]))
            # a class attribute is no variable of the scope; a bare annotation assigns nothing
            if value is not None and self.classes[-1] is None:
                self.s.assigned[(self.scopes[-1], parts[0])] = self.s.assigned.get((self.scopes[-1], parts[0]), 0) + 1
                offered = _named_choices(value)
                if offered is not None:
                    self.s.choices.setdefault((self.scopes[-1], parts[0]), []).append(offered)
        elif len(parts) == 2 and parts[0] == "self" and ctor is not None:
            owner = self._owner_class()
            if owner is not None:
                key = (owner, parts[1])
                self.s.attr_types[key] = ctor if self.s.attr_types.get(key, ctor) == ctor else None
                # self.agent = agent_class(...): where the constructor text is read, for a local choice of classes
                self.s.attr_sites.setdefault(key, []).append(self.scopes[-1])

    def _bind_each(self, target: cst.Tuple | cst.List, node: cst.CSTNode, value: cst.BaseExpression) -> None:
        """The binding mentions of an unpacking (``a, b = [], []``, ``acc, f1 = evaluate(...)``): each name takes
        the element of a display of as many elements, else a part of the whole value (its class is not noted)."""
        elements = [e.value for e in target.elements]
        parts: list[cst.BaseExpression] = [value] * len(elements)
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elements) and \
                not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)):
            parts = [e.value for e in value.elements]
        for element, part in zip(elements, parts):
            if isinstance(element, (cst.Tuple, cst.List)):
                self._bind_each(element, node, part)
                continue
            if isinstance(element, cst.Subscript) and type(element.value) is cst.Name:
                self._changed(element.value.value)  # m[0], m[1] = m[1], m[0]: the display is reordered
            text = dotted_name(element)
            if text is None:
                continue
            if "." not in text:
                self._changed(text, rebound=True)  # method, hit = load(method): a loop variable bound anew
                self.s.rebinds.add((self.scopes[-1], text))
            self._binding(text, node, part, dotted_name(part.func) if isinstance(part, cst.Call) else None)

    def _binding(self, text: str, node: cst.CSTNode, value: cst.BaseExpression | None, ctor: str | None) -> None:
        """The binding mention of the name ``text`` (dotted; its last part is mentioned) bound at ``node`` to
        ``value`` (``None``: an annotation without one, ``x: int``), built by the class ``ctor`` when a call builds
        it: its context says how the value is made (``bind:call:<ctor>``, ``bind:literal``, ``bind:computed``) and
        it reads the names the value reads (none for a literal)."""
        context = ("" if value is None else f"bind:call:{ctor}" if ctor is not None
                   else "bind:call:" if isinstance(value, cst.Call) else "bind:literal" if is_literal(value)
                   else "bind:computed")
        reads = () if value is None or context == "bind:literal" else value_reads(value)
        self._mention(text.split(".")[-1], "binding", node, context, reads)

    def _type_var(self, name: str, line: int, ctor: str | None, arms: tuple[tuple[int, int], ...],
                  narrows: bool = False) -> None:
        """Note a binding of the variable ``name`` of the current scope to the class text ``ctor`` (``None``: not a
        constructor call) at ``line`` within ``arms`` (``Scan.var_bindings``)."""
        key = (self.scopes[-1], name)
        self.s.var_bindings.setdefault(key, []).append((line, ctor, arms, narrows))
        if key in self.s.var_types and self.s.var_types[key] != ctor:
            self.s.var_types[key] = None  # bound to different things: no single type
        else:
            self.s.var_types[key] = ctor

    def visit_Attribute(self, node: cst.Attribute) -> None:
        text = dotted_name(node)
        if text is None:
            return
        inner = node.value
        while isinstance(inner, cst.Attribute):
            self.skip.add(id(inner))
            inner = inner.value
        self.skip.add(id(inner))
        if id(node) in self.skip:
            return
        self._mention(text, "name", node)
        if id(node) not in self.call_funcs:
            self._raw("ref", text, node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.skip:
            return
        if id(node) in self.targets:
            key = (self.scopes[-1], node.value)
            self.s.stores[key] = self.s.stores.get(key, 0) + 1
        self._mention(node.value, "name", node)
        if id(node) not in self.call_funcs:
            self._raw("ref", node.value, node)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        try:
            value = node.evaluated_value
        except Exception:  # a malformed escape: not a name anyone reads
            return
        if isinstance(value, str) and value.strip():
            self._mention(value, "string", node)

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if node.value.strip():
            self._mention(node.value, "string", node)


def _display_rows(value: cst.BaseExpression) -> tuple[tuple[str | None, ...], ...] | None:
    """The rows of a list or tuple display, each the dotted names of its parts: ``[crc, rcps]`` ->
    ``(("crc",), ("rcps",))``, ``[("CRC", crc)]`` -> ``((None, "crc"),)``; ``None`` for anything else (a starred
    element, an empty display)."""
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements \
            or any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    return tuple(tuple(dotted_name(p.value) for p in e.value.elements) if isinstance(e.value, cst.Tuple)
                 else (dotted_name(e.value),) for e in value.elements)


# what each binding form other than an assignment binds (``Scanner._bound_by``)
_BOUND_TARGETS: dict[type, Callable[[Any], cst.BaseExpression | None]] = {
    cst.For: lambda node: node.target, cst.CompFor: lambda node: node.target,
    cst.WithItem: lambda node: node.asname.name if node.asname is not None else None,
    cst.NamedExpr: lambda node: node.target,
    cst.ExceptHandler: lambda node: node.name.name if node.name is not None else None,
    cst.MatchAs: lambda node: node.name, cst.MatchStar: lambda node: node.name,
    cst.MatchMapping: lambda node: node.rest,
}


def _named_choices(value: cst.BaseExpression) -> tuple[str, ...] | None:
    """The dotted names a value chooses among when it is a name or a conditional expression whose arms are names
    or such expressions (``nGPT if a else GPT`` -> ``("nGPT", "GPT")``); none for ``None``, which offers nothing to
    call (``agent_class = None`` before the arms that choose the class); else ``None``."""
    if isinstance(value, cst.IfExp):
        body, orelse = _named_choices(value.body), _named_choices(value.orelse)
        return tuple(dict.fromkeys((*body, *orelse))) if body is not None and orelse is not None else None
    name = dotted_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
    if name == "None":
        return ()
    return (name,) if name is not None and name not in ("True", "False") else None


def _moved(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The object a chain of module moves and casts returns (``extractors/words.yaml``, ``self_returning_methods``):
    ``Encoder(...)`` for ``Encoder(...).to(device).float()``, ``model`` for ``model.cuda()``; ``None`` when
    ``value`` is no such chain."""
    inner = value
    while (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)
           and inner.func.attr.value in _SELF_RETURNING):
        inner = inner.func.value
    return None if inner is value else inner


def decorator_name(decorator: cst.Decorator) -> str:
    """The decorator's dotted name, or its last part when that is a plain decorator (``@x.setter``)."""
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    text = dotted_name(expr) or ""
    last = text.rsplit(".", 1)[-1]
    return last if text not in _PLAIN_DECORATORS and last in _PLAIN_DECORATORS else text


def _command_application(decorator: cst.Decorator) -> str | None:
    """The application a decorator registers its function with as a command (``cli`` for ``@cli.command()``,
    ``app`` for ``@app.command("train")``), or ``None``. ``click.command()`` itself makes a standalone command,
    called directly, so it registers nothing."""
    expr = decorator.decorator
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return None
    if expr.func.attr.value not in _CLI_REGISTRATIONS:
        return None
    application = dotted_name(expr.func.value)
    return application if application and application not in ("click", "typer") else None


def _attr_text(node: cst.BaseExpression) -> str:
    return dotted_name(node) or ""


def _absolute(module: str, is_package: bool, base: str, level: int) -> str | None:
    """The absolute module a ``from`` import names (``from ..a import b`` in ``p.q.m`` -> ``p.a``); ``None`` when
    the relative import climbs above the repository root."""
    if level == 0:
        return base
    parts = module.split(".")
    package = parts if is_package else parts[:-1]
    if level - 1 > len(package):
        return None
    anchor = package[:len(package) - (level - 1)]
    return ".".join([*anchor, *([base] if base else [])])


def _is_main_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    if not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = [s.value for s in sides if isinstance(s, cst.Name)]
    strings = [s.evaluated_value for s in sides if isinstance(s, cst.SimpleString)]
    return names == ["__name__"] and strings == ["__main__"]




_TESTS = (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)


def _strings_of(operand: cst.BaseExpression) -> list[cst.SimpleString]:
    """The string literals an operand of a comparison is or lists (``"a"``, ``("a", "b")``)."""
    if isinstance(operand, cst.SimpleString):
        return [operand]
    if isinstance(operand, (cst.Tuple, cst.List, cst.Set)):
        return [e.value for e in operand.elements if isinstance(e.value, cst.SimpleString)]
    return []


def compared_strings(test: cst.BaseExpression) -> tuple[str, ...]:
    """The strings an ``if`` test selects its body by (``Mention.guards``): those compared with ``==`` or ``in``,
    through ``and``/``or``; empty when the test is anything else (``!=``, a call, a flag)."""
    out = []
    for string in selecting_strings(test):
        try:
            value = string.evaluated_value
        except Exception:  # a malformed escape
            continue
        if isinstance(value, str):
            out.append(value)
    return tuple(out)


def selecting_strings(test: cst.BaseExpression) -> list[cst.SimpleString]:
    """The string literals of ``compared_strings``, as nodes."""
    if isinstance(test, cst.BooleanOperation):
        left, right = selecting_strings(test.left), selecting_strings(test.right)
        return [*left, *right] if left and right else []
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 \
            or not isinstance(test.comparisons[0].operator, (cst.Equal, cst.In)):
        return []
    return [string for operand in (test.left, test.comparisons[0].comparator) for string in _strings_of(operand)]


def selected_by(test: cst.BaseExpression) -> list[tuple[cst.SimpleString, str]]:
    """The string literals of ``selecting_strings`` each with the dotted name its comparison tests (``variant`` in
    ``if variant == "g1_headwise":``, ``args.mode`` in ``elif args.mode in ("a", "b"):``); a string compared with
    anything but a name or attribute chain is left out."""
    if isinstance(test, cst.BooleanOperation):
        left, right = selected_by(test.left), selected_by(test.right)
        return [*left, *right] if selecting_strings(test) else []
    strings = selecting_strings(test)
    if not strings or not isinstance(test, cst.Comparison):
        return []
    return _tested_by(test)


def _tested_by(test: cst.Comparison) -> list[tuple[cst.SimpleString, str]]:
    """The string literals one comparison (``==``, ``!=``, ``in``, ``not in``) tests, each with the dotted name on
    its other side, read through a change of case (``model_name.lower()``); empty for a chain of comparisons or
    when that side is anything else."""
    if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, _TESTS):
        return []
    sides = (test.left, test.comparisons[0].comparator)
    strings = [string for side in sides for string in _strings_of(side)]
    tested = [_tested_name(side) for side in sides if not _strings_of(side)]
    return [(string, tested[0]) for string in strings] if len(tested) == 1 and tested[0] else []


_CASE_CALLS = frozenset({"lower", "upper", "casefold"})


def _tested_name(node: cst.BaseExpression) -> str | None:
    """The dotted name a comparison's side reads: itself, or the receiver of a change of case."""
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in _CASE_CALLS:
        node = node.func.value
    return dotted_name(node)


_ITER_WRAPPERS = frozenset({"enumerate", "sorted", "list", "tuple", "reversed", "tqdm", "trange", "iter", "set"})
_MAX_READS = 24  # a value's inputs kept per binding; longer expressions are cut (the rest is seldom a name)


def _string_value(node: cst.BaseExpression) -> str:
    """The text of a plain string literal, empty for anything else (or a malformed escape)."""
    if not isinstance(node, cst.SimpleString):
        return ""
    try:
        value = node.evaluated_value
    except Exception:  # a malformed escape
        return ""
    return value if isinstance(value, str) else ""


def _bound(node: cst.BaseExpression | None) -> str:
    """A slice bound as written: empty for none, the integer for a literal, ``?`` otherwise."""
    if node is None:
        return ""
    if isinstance(node, cst.Integer):
        return node.value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return f"-{node.expression.value}"
    return "?"


def value_reads(value: cst.BaseExpression) -> tuple[str, ...]:
    """The inputs of an expression (``Mention.reads``): the dotted names it reads and the calls it makes, with
    ``()`` after their names, and an item read by a plain key (``metrics["RMSE"]``) as ``metrics[RMSE]`` before
    its collection's name (``keyed_read``), in the order written, each once, at most ``_MAX_READS``."""
    out: list[str] = []
    stack: list[cst.CSTNode] = [value]
    while stack and len(out) < _MAX_READS:
        node = stack.pop()
        if isinstance(node, cst.Subscript):
            keyed = _keyed(node)
            if keyed is not None:
                out.append(keyed)
        if isinstance(node, cst.Call):
            func = dotted_name(node.func)
            out.append(f"{func}()" if func is not None else "()")
            children = [a.value for a in node.args]
            if func is None:
                children.append(node.func)
            elif isinstance(node.func, cst.Attribute):  # losses.mean(): reads losses too
                children.append(node.func.value)
            stack.extend(reversed(children))
            continue
        name = dotted_name(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if name is not None:
            if name not in ("True", "False", "None"):
                out.append(name)
            continue
        if isinstance(node, (cst.Lambda, cst.SimpleString, cst.FormattedString)):
            continue
        stack.extend(reversed(node_children(node)))  # node.children, without rebuilding the node
    return tuple(dict.fromkeys(out))


_KEY = re.compile(r"[\w .:/-]{1,60}")  # a key read back by ``keyed_read``: no brackets
_KEYED_READ = re.compile(r"(.+)\[([\w .:/-]{1,60})\]")


def _keyed(node: cst.Subscript) -> str | None:
    """``metrics[RMSE]`` for ``metrics["RMSE"]``: a dotted name subscripted by one plain string key."""
    base = dotted_name(node.value)
    if base is None or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = _string_value(node.slice[0].slice.value)
    return f"{base}[{key}]" if _KEY.fullmatch(key) else None


def keyed_read(read: str) -> tuple[str, str] | None:
    """The collection and key of a read of an item by its key (``metrics[RMSE]`` -> ``("metrics", "RMSE")``:
    ``value_reads``), ``None`` for any other read."""
    match = _KEYED_READ.fullmatch(read)
    return (match.group(1), match.group(2)) if match else None


_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float, cst.Imaginary)


def is_literal(node: cst.BaseExpression) -> bool:
    """Whether an expression is a constant written out: numbers, strings, bytes, ``True``/``False``/``None``, a
    signed number, or a list, tuple, set or dict of those (a table of reported numbers, a colour palette)."""
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation):
        return is_literal(node.expression)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and is_literal(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_literal(e.key) and is_literal(e.value)
                   for e in node.elements)
    return False


def _namespace(node: cst.BaseExpression) -> str | None:
    """The dotted name of the module whose namespace ``node`` is (``models.__dict__``, ``vars(models)``), else
    ``None``."""
    text = dotted_name(node)
    if text is not None and text.endswith(".__dict__"):
        return text[: -len(".__dict__")]
    if isinstance(node, cst.Call) and dotted_name(node.func) == "vars" and len(node.args) == 1:
        return dotted_name(node.args[0].value)
    return None


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})  # what a handler may catch and not a SyntaxError


def unguarded_imports(module: cst.Module) -> frozenset[int]:
    """The ids of the import statements of ``module`` whose failure stops it: those written directly in its body,
    or in the body of a top-level ``try`` none of whose handlers can catch the ``SyntaxError`` a file Python cannot
    compile raises (only ``ImportError``/``ModuleNotFoundError`` handlers, or none: ``try``/``finally``). An
    import under ``if``, ``with``, a loop, ``match`` or a function may not run, or its failure may be caught: left
    out."""
    found: set[int] = set()
    for statement in module.body:
        if isinstance(statement, cst.Try) and all(
                handler.type is not None and _names_only(handler.type, _IMPORT_ERRORS)
                for handler in statement.handlers):
            body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
            lines = [line for line in body if isinstance(line, cst.SimpleStatementLine)]
        else:
            lines = [statement] if isinstance(statement, cst.SimpleStatementLine) else []
        for line in lines:
            found.update(id(small) for small in line.body if isinstance(small, (cst.Import, cst.ImportFrom)))
    return frozenset(found)


def _names_only(expression: cst.BaseExpression, allowed: frozenset[str]) -> bool:
    """Whether ``expression`` (an ``except`` clause's type) names only exceptions of ``allowed``, alone or in a
    tuple."""
    if isinstance(expression, cst.Tuple):
        return all(_names_only(element.value, allowed) for element in expression.elements)
    return isinstance(expression, cst.Name) and expression.value in allowed
