"""First drafts of each dimension's checks from claim prose, for ``verify --draft-spec``.

A draft is a starting point for a person writing a paper spec, never a verdict: D1 atoms come from the claim
compiler (``verifier.specs.claims``); formulas are the right-hand sides that parse after common notation is rewritten
(``‖x‖_2`` -> ``norm(x)``, ``⊙`` -> ``*``, ``^`` -> ``**``); protocol elements are the items listed after "Data:",
"Baselines:", "Metrics:" and similar labels; steps are the numbered items (``1. ... 2. ...``) or the clauses joined by
arrows or semicolons. Nothing is evaluated. Each ``draft_*_checks`` function maps a claim's text to the YAML mapping
of its checks (``verifier.dimensions`` ties each to its dimension).
"""

from __future__ import annotations

import re

import sympy

from extractors.formulas import FormulaError, parse_formula, symbol_names
from extractors.words import word_list
from sau.vocabulary import Atom, AtomKind, Value
from verifier.specs.claims import compile_d1

_NOTATION = (
    (re.compile(r"‖([^‖]+)‖(?:_2)?"), r"norm(\1)"), (re.compile(r"\|\|([^|]+)\|\|(?:_2)?"), r"norm(\1)"),
    (re.compile(r"[⊙·×∗]"), "*"), (re.compile(r"\^"), "**"), (re.compile(r"√"), "sqrt"), (re.compile(r"−"), "-"),
)
_LABELS = {
    "datasets": r"data(?:sets?)?|benchmarks?|tasks?|environments?",
    "baselines": r"baselines?|compared? (?:against|to|with)|vs\.?",
    "metrics": r"metrics?|evaluat(?:ion|ed) (?:by|with|via)|measured? (?:by|with)",
}
_STOP_WORDS = word_list("draft_stop_words", "rules")


def draft_formulas(text: str) -> list[str]:
    """Candidate formulas: right-hand sides of ``=``/``:=`` that translate after notation rewriting."""
    rewritten = text
    for pattern, replacement in _NOTATION:
        rewritten = pattern.sub(replacement, rewritten)
    found: list[str] = []
    for match in re.finditer(r":?=\s*([^=;\n]+?)(?=\s+(?:for|where|with|if)\b|[;\n]|$|,\s+[A-Za-z]+\s*=)", rewritten):
        candidate = match.group(1).strip().rstrip(".,")
        try:
            parse_formula(candidate)
        except FormulaError:
            continue
        if candidate not in found and re.search(r"[A-Za-z]", candidate):
            found.append(candidate)
    return found


def draft_glossary(formulas: list[str]) -> dict[str, dict]:
    """One glossary entry per symbol of the drafted formulas, meaning left for the author."""
    symbols: set[str] = set()
    for formula in formulas:
        symbols |= symbol_names(parse_formula(formula))
    return {s: {"meaning": "", "code_names": [s]} for s in sorted(symbols)}


def draft_mechanism(text: str) -> list[str]:
    """Keywords from the claim's heading (the text before its first colon), as snake_case words."""
    heading = text.split(":", 1)[0] if ":" in text[:80] else ""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z\-]+", heading) if w.lower() not in _STOP_WORDS]
    return list(dict.fromkeys(words))[:5]


def draft_protocol(text: str) -> dict[str, list[dict]]:
    """Items after labels such as "Data:", "Baselines:", "Metrics:", split on commas and semicolons."""
    drafted: dict[str, list[dict]] = {}
    for key, label in _LABELS.items():
        for match in re.finditer(rf"\b(?:{label})\s*[:(]\s*([^|.\n]+)", text, re.IGNORECASE):
            items = [i.strip(" ()") for i in re.split(r"[,;]|\band\b", match.group(1)) if i.strip(" ()")]
            for item in items[:12]:
                if 1 < len(item) <= 60:
                    drafted.setdefault(key, []).append({"name": item, "aliases": []})
    return drafted


def draft_steps(text: str) -> list[dict]:
    """Ordered steps: numbered items, else clauses joined by arrows or semicolons; keywords from their words."""
    parts = re.split(r"(?:^|\s)\(?\d{1,2}[.)]\s+", text)
    if len(parts) < 3:
        parts = re.split(r"\s*(?:→|->|;|\bthen\b)\s*", text)
    steps = []
    for part in parts:
        part = part.strip(" .,")
        if len(part) < 4:
            continue
        words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_\-]{2,}", part) if w.lower() not in _STOP_WORDS]
        if words:
            steps.append({"name": " ".join(part.split()[:6]), "keywords": list(dict.fromkeys(words))[:4]})
    return steps


# -- the drafted checks of each dimension ---------------------------------------------------------------------------
def draft_atom_checks(text: str) -> dict:
    """D1: the compiled atoms, or ``checkable: false`` with an empty note for the author when none compiled."""
    atoms = compile_d1(text).atoms
    return {"atoms": [_atom(a) for a in atoms]} if atoms else {"checkable": False, "note": ""}


def draft_formula_checks(text: str) -> dict:
    """D2: the drafted formulas, a glossary entry per symbol, and mechanism keywords."""
    formulas = draft_formulas(text)
    return {"formulas": formulas, "glossary": draft_glossary(formulas), "mechanism": draft_mechanism(text)}


def draft_protocol_checks(text: str) -> dict:
    """D3: the listed datasets, baselines and metrics, or empty lists for the author."""
    return draft_protocol(text) or {"datasets": [], "baselines": [], "metrics": []}


def draft_step_checks(text: str) -> dict:
    """D4: the drafted steps, strictly ordered."""
    return {"steps": draft_steps(text), "strict": True}


def _atom(atom: Atom) -> dict:
    entry: dict = {"name": atom.name}
    if atom.aliases:
        entry["aliases"] = list(atom.aliases)
    values = [_plain(v, atom.percent) for v in atom.values]
    if atom.kind == AtomKind.SET:
        entry["set"] = values
    elif atom.kind == AtomKind.RANGE:
        entry["range"] = values
    elif len(values) == 1:
        entry["value"] = values[0]
    else:
        entry["values"] = values
    if atom.tolerance:
        entry["about"] = atom.tolerance
    return entry


def _plain(value: Value, percent: bool) -> object:
    """A claimed value as the YAML spec writes it: symbolic values as text, tuples as lists, percentages as ``10%``."""
    if isinstance(value, sympy.Basic):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v, False) for v in value]
    if percent and isinstance(value, (int, float)):
        return f"{value * 100:g}%"
    return value
