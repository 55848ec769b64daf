"""The registry of dimensions: one object per dimension declares everything the rest of the program needs of it.

Orchestration (``verifier.run``) takes its ``check``, spec loading (``verifier.specs.project`` and ``.sabench``) its
``check_keys``, ``parse_checks`` and ``compile``, ``verify --draft-spec`` its ``draft``, and the reports its
``dimension`` (code and name) and ``description``. To add a dimension, write its rule module in ``rules/``, its
check parser in ``verifier.specs.checks`` and its draft in ``verifier.specs.prose``, add its code to
``sau.vocabulary.Dimension``, and add one entry here (ARCHITECTURE.md, "Extension points").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from extractors.facts import RepositoryIndex
from rules import d1_numerical, d2_formula, d3_protocol, d4_ordering
from sau.vocabulary import SAU, Dimension, Verdict
from verifier.specs import checks, prose
from verifier.specs.claims import compile_atom_checks


@dataclass(frozen=True)
class DimensionRule:
    """What one dimension is and does.

    ``dimension`` its code and name (``Dimension.D1``, "numerical"); ``rule`` the ``decided_by`` of the verdicts its
    rule settles (``rule:d1-numerical``); ``description`` one sentence on what a shortfall means (the SARIF rule's
    short description); ``check_keys`` the keys of a spec entry holding its checks; ``parse_checks`` reads and
    validates them (``verifier.specs.checks.CheckParser``; raises ``SpecError``); ``check`` decides a SAU on a
    repository index (never raises on odd code); ``draft`` drafts the checks' YAML mapping from claim prose;
    ``compile`` compiles SA-Bench claim prose into ``(checks, complete)`` at load time, or is ``None`` when the
    dimension has no compiler (its SAUs then carry no checks and never settle).
    """

    dimension: Dimension
    rule: str
    description: str
    check_keys: tuple[str, ...]
    parse_checks: checks.CheckParser
    check: Callable[[SAU, RepositoryIndex], Verdict]
    draft: Callable[[str], dict]
    compile: Callable[[str], tuple[dict, bool]] | None = None


DIMENSION_RULES: dict[Dimension, DimensionRule] = {rule.dimension: rule for rule in (
    DimensionRule(Dimension.D1, d1_numerical.RULE,
                  "A claimed hyperparameter value differs from the code, or is missing or unused.",
                  checks.ATOM_KEYS, checks.parse_atoms, d1_numerical.check, prose.draft_atom_checks,
                  compile_atom_checks),
    DimensionRule(Dimension.D2, d2_formula.RULE,
                  "A claimed formula differs from the code's expression, or is missing.",
                  checks.FORMULA_KEYS, checks.parse_formulas, d2_formula.check, prose.draft_formula_checks),
    DimensionRule(Dimension.D3, d3_protocol.RULE,
                  "A claimed dataset, baseline or metric is missing from the code that runs.",
                  checks.PROTOCOL_KEYS, checks.parse_protocol, d3_protocol.check, prose.draft_protocol_checks),
    DimensionRule(Dimension.D4, d4_ordering.RULE,
                  "Claimed pipeline steps run in another order, or are missing.",
                  checks.STEP_KEYS, checks.parse_steps, d4_ordering.check, prose.draft_step_checks),
)}
