"""The registry of dimensions: one object per dimension declares everything the rest of the program needs of it.

Orchestration (``verifier.run``) takes its ``check``, spec loading (``verifier.specs.project`` and ``.sabench``) its
``check_keys``, ``parse_checks`` and ``compile``, ``verify --draft-spec`` its ``draft``, and the reports its
``dimension`` (code and name) and ``description``. To add a dimension, write its rule module in ``rules/``, its
check parser in ``verifier.specs.checks`` and its draft in ``verifier.specs.prose``, add its code to
``sau.vocabulary.Dimension``, and add one entry here (ARCHITECTURE.md, "Extension points").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from sau.vocabulary import SAU, Dimension, Verdict
from verifier.specs import checks, prose
from verifier.specs.claims import compile_atom_checks

if TYPE_CHECKING:
    from extractors.facts import RepositoryIndex


@dataclass(frozen=True)
class DimensionRule:
    """What one dimension is and does.

    ``dimension`` its code and name (``Dimension.D1``, "numerical"); ``module`` its rule module
    (``rules.d1_numerical``), imported when its rule is first asked for (a run whose verdicts all come from the
    cache imports no rule, nor the call graph and networkx they load); ``description`` one sentence on what a
    shortfall means (the SARIF rule's short description); ``check_keys`` the keys of a spec entry holding its
    checks; ``parse_checks`` reads and validates them (``verifier.specs.checks.CheckParser``; raises
    ``SpecError``); ``draft`` drafts the checks' YAML mapping from claim prose; ``compile`` compiles SA-Bench claim
    prose into ``(checks, complete)`` at load time, or is ``None`` when the dimension has no compiler (its SAUs then
    carry no checks and never settle). The properties ``rule`` (the ``decided_by`` of the verdicts its rule settles,
    ``rule:d1-numerical``: the module's ``RULE``) and ``check`` (decides a SAU on a repository index, never raising on
    odd code: the module's ``check``) import the module.
    """

    dimension: Dimension
    module: str
    description: str
    check_keys: tuple[str, ...]
    parse_checks: checks.CheckParser
    draft: Callable[[str], dict]
    compile: Callable[[str], tuple[dict, bool]] | None = None

    @property
    def rule(self) -> str:
        """The ``decided_by`` of the verdicts this dimension's rule settles (its module's ``RULE``)."""
        rule: str = importlib.import_module(self.module).RULE
        return rule

    @property
    def check(self) -> Callable[[SAU, RepositoryIndex], Verdict]:
        """The rule: ``check(sau, index) -> Verdict`` (its module's ``check``)."""
        check: Callable[[SAU, RepositoryIndex], Verdict] = importlib.import_module(self.module).check
        return check


DIMENSION_RULES: dict[Dimension, DimensionRule] = {rule.dimension: rule for rule in (
    DimensionRule(Dimension.D1, "rules.d1_numerical",
                  "A claimed hyperparameter value differs from the code, or is missing or unused.",
                  checks.ATOM_KEYS, checks.parse_atoms, prose.draft_atom_checks,
                  compile_atom_checks),
    DimensionRule(Dimension.D2, "rules.d2_formula",
                  "A claimed formula differs from the code's expression, or is missing.",
                  checks.FORMULA_KEYS, checks.parse_formulas, prose.draft_formula_checks),
    DimensionRule(Dimension.D3, "rules.d3_protocol",
                  "A claimed dataset, baseline or metric is missing from the code that runs.",
                  checks.PROTOCOL_KEYS, checks.parse_protocol, prose.draft_protocol_checks),
    DimensionRule(Dimension.D4, "rules.d4_ordering",
                  "Claimed pipeline steps run in another order, or are missing.",
                  checks.STEP_KEYS, checks.parse_steps, prose.draft_step_checks),
)}
