"""D2's view of stubs: which functions of the repository are whole-function stubs standing where a mechanism should
be computed.

A function whose body is only ``pass``, ``...``, a docstring, ``raise NotImplementedError`` or a "not implemented"
print (``extractors.stubs`` codes STB001, STB002, STB004, found by ``extractors.facts.RepositoryIndex.stubs_by_file``)
computes nothing. Named after a SAU's mechanism, it tells that the mechanism is not implemented there, whatever
else in the repository is named after it (ARCHITECTURE.md, "Stubs": a SAU whose only implementation is a stub
scores at most 0.25).

A stubbed method that a class of the repository derived from its class overrides is an interface (the subclass
implements it, as with an abstract method declared without ``abc``), not a stub.
"""

from __future__ import annotations

import libcst as cst

from extractors.expressions import FunctionRecord
from extractors.facts import RepositoryIndex
from extractors.stubs.findings import WHOLE_FUNCTION_CODES, StubFinding
from extractors.trees import visit
from extractors.walk import is_test_path
from extractors.values import dotted_name
from sau.vocabulary import Evidence


def stubbed_functions(index: RepositoryIndex) -> dict[tuple[str, str], StubFinding]:
    """Analysis provider: ``(file, qualname) -> StubFinding`` for each whole-function stub of the repository's
    non-test sources, methods that a derived class of the repository overrides left out (interfaces)."""
    stubs = [(file, finding) for file, findings in sorted(index.stubs_by_file.items()) if not is_test_path(file)
             for finding in findings if finding.code in WHOLE_FUNCTION_CODES and finding.qualname]
    # the class hierarchy is read only when some stub is a method (most repositories have no stub at all)
    overridden = index.analysis(overridden_methods) if any("." in f.qualname for _, f in stubs) else {}
    found: dict[tuple[str, str], StubFinding] = {}
    for file, finding in stubs:
        owner, _, method = finding.qualname.rpartition(".")
        if owner and method in overridden.get(owner.rsplit(".", 1)[-1], ()):
            continue
        found.setdefault((file, finding.qualname), finding)
    return found


def stub_of(record: FunctionRecord, index: RepositoryIndex) -> StubFinding | None:
    """The whole-function stub finding of ``record`` (``stubbed_functions``), or ``None``."""
    return index.analysis(stubbed_functions).get((record.file, record.qualname))


def overridden_methods(index: RepositoryIndex) -> dict[str, set[str]]:
    """Analysis provider: base class name (last component) -> the names of the methods that classes of the repository
    derived from it define (``class Gate(BaseGate): def forward`` -> ``{BaseGate: {forward}}``)."""
    bases: dict[str, set[str]] = {}
    for _, parents, methods in index.analysis(class_definitions):
        for parent in parents:
            bases.setdefault(parent, set()).update(methods)
    return bases


def overriding_methods(index: RepositoryIndex) -> frozenset[tuple[str, str]]:
    """Analysis provider: ``(class name, method)`` (last components) of each method that overrides one a repository
    class it derives from defines, directly or through further repository bases (``class NoMin(Agent): def
    update`` over ``Agent.update`` -> ``("NoMin", "update")``). Such a method is a variant of its base's (an
    ablation, a baseline): the base is what runs by default."""
    classes = index.analysis(class_definitions)
    defined: dict[str, set[str]] = {}
    parents_of: dict[str, set[str]] = {}
    for name, parents, methods in classes:
        defined.setdefault(name, set()).update(methods)
        parents_of.setdefault(name, set()).update(parents)

    def inherited(name: str) -> set[str]:
        found: set[str] = set()
        queue, seen = list(parents_of.get(name, ())), {name}
        while queue:  # breadth first over the repository's bases, each once (a cycle ends)
            parent = queue.pop(0)
            if parent in seen or parent not in defined:
                continue
            seen.add(parent)
            found |= defined[parent]
            queue.extend(parents_of.get(parent, ()))
        return found

    return frozenset((name, method) for name, _, methods in classes for method in methods & inherited(name))


def class_definitions(index: RepositoryIndex) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    """Analysis provider: ``(class name, base names, method names)`` of each class statement of the repository's
    modules, names as last components (``class Gate(nn.BaseGate)`` -> ``("Gate", {"BaseGate"}, {"forward"})``)."""
    found: list[tuple[str, frozenset[str], frozenset[str]]] = []

    class _Bases(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            # a class statement is never inside an expression or a simple statement: those are not entered
            if isinstance(node, (cst.BaseExpression, cst.BaseSmallStatement)):
                return False
            return super().on_visit(node)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
            methods = frozenset(s.name.value for s in body if isinstance(s, cst.FunctionDef))
            parents = frozenset(name.rsplit(".", 1)[-1] for name in (dotted_name(b.value) for b in node.bases) if name)
            found.append((node.name.value, parents, methods))

    for module in index.modules.values():
        try:
            visit(module, _Bases())  # the read-only walk (extractors.trees)
        except RecursionError:
            continue  # a pathological nesting depth: this source adds what it had
    return tuple(found)


def stub_evidence(finding: StubFinding, index: RepositoryIndex) -> Evidence:
    """The evidence of a stub ``finding``: its lines (1-based, ``line`` to ``end_line``) with the first line's
    source text stripped (``""`` when ``index`` does not hold that line), kind ``stub``. D2 shows a mechanism's
    stubbed function with it, D1 the stub behind a claimed value. Never raises."""
    lines = index.lines.get(finding.path, [])
    text = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    return Evidence(finding.path, finding.line, finding.end_line, text, "stub")
