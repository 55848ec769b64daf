"""First drafts of D2, D3 and D4 checks from claim prose (D1 atoms come from ``extractors.claims``).

A draft is a starting point for a person writing a paper spec, never a verdict: formulas are the right-hand sides
that parse after common notation is rewritten (``‖x‖_2`` -> ``norm(x)``, ``⊙`` -> ``*``, ``^`` -> ``**``); protocol
elements are the items listed after "Data:", "Baselines:", "Metrics:" and similar labels; steps are the numbered
items (``1. ... 2. ...``) or the clauses joined by arrows or semicolons. Nothing is evaluated.
"""

from __future__ import annotations

import re

from extractors.formulas import FormulaError, parse_formula, symbol_names

_NOTATION = (
    (re.compile(r"‖([^‖]+)‖(?:_2)?"), r"norm(\1)"), (re.compile(r"\|\|([^|]+)\|\|(?:_2)?"), r"norm(\1)"),
    (re.compile(r"[⊙·×∗]"), "*"), (re.compile(r"\^"), "**"), (re.compile(r"√"), "sqrt"), (re.compile(r"−"), "-"),
)
_LABELS = {
    "datasets": r"data(?:sets?)?|benchmarks?|tasks?|environments?",
    "baselines": r"baselines?|compared? (?:against|to|with)|vs\.?",
    "metrics": r"metrics?|evaluat(?:ion|ed) (?:by|with|via)|measured? (?:by|with)",
}
_STOP_WORDS = frozenset({"the", "a", "an", "of", "and", "or", "with", "for", "to", "in", "on", "by", "from", "each",
                         "then", "using", "via", "all", "is", "are", "per"})


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
