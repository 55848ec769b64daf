"""Every paper spec in benchmark_data/ against the schema, and against SA-Bench's claims where ../shared/sabench is
present: each claim ID covered exactly once, with the same dimension, and a statement in the project's own words."""

import difflib
import json
from pathlib import Path

import pytest

from rules import operations
from verifier.specs.papers import registry
from verifier.specs.project import load_project_spec

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p for p in (ROOT / "benchmark_data").glob("*.yaml") if p.name != "registry.yaml")
SABENCH = ROOT.parent / "shared" / "sabench"
REGISTRY = {e.benchmark_id: e for e in registry()}
FAMILIES = {family.name for family in operations.library_models()[0]}
# A statement this close to SA-Bench's sentence (difflib ratio) is a copy, not our own words.
MAX_SIMILARITY = 0.8


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_spec_validates_and_matches_the_registry(path):
    spec = load_project_spec(path)  # raises SpecError (file:line) on any schema problem, formulas included
    entry = REGISTRY[path.stem]
    assert (spec.benchmark_id, spec.slug) == (entry.benchmark_id, entry.slug)
    for sau in spec.saus:
        assert sau.statement.strip(), f"{sau.id}: empty statement"
        if sau.dimension == "D4" and sau.checkable:
            assert len(sau.checks["steps"]) >= 2
        unknown = set(sau.checks.get("realised_by", ())) - FAMILIES
        assert not unknown, f"{sau.id}: realised_by names no library_models family of rules/operations.yaml: {unknown}"


@pytest.mark.parametrize("path", [p for p in SPECS if not p.stem.startswith("demo")],
                         ids=[p.stem for p in SPECS if not p.stem.startswith("demo")])
def test_spec_covers_every_sabench_claim_once_in_our_words(path):
    if not SABENCH.is_dir():
        pytest.skip(f"{SABENCH} is absent: coverage of SA-Bench's claims cannot be checked here")
    spec = load_project_spec(path)
    claims = json.loads((SABENCH / "papers" / spec.slug / "sau.json").read_text())
    wanted = {c["id"]: (dimension, c["claim"]) for dimension in ("D1", "D2", "D3", "D4")
              for c in claims.get(dimension, [])}
    ids = [sau.id for sau in spec.saus]
    assert len(ids) == len(set(ids))
    assert sorted(ids) == sorted(wanted)
    for sau in spec.saus:
        dimension, claim = wanted[sau.id]
        assert sau.dimension == dimension, sau.id
        ratio = difflib.SequenceMatcher(None, sau.statement.lower(), claim.lower()).ratio()
        assert ratio < MAX_SIMILARITY, f"{sau.id}: statement copies SA-Bench's sentence (similarity {ratio:.2f})"


def test_atoms_know_the_values_other_claims_give_their_quantity():
    """``PaperSpec`` fills ``Atom.elsewhere``: the values the paper's other SAUs claim under the same atom name."""
    spec = load_project_spec(Path(__file__).parent / "fixtures/d1/own_symbol/spec.yaml")
    elsewhere = {sau.id: sau.atoms[0].elsewhere for sau in spec.saus}
    assert elsewhere == {"D1-001": (0.1,), "D1-002": (0.4,), "D1-003": (), "D1-004": (3000,), "D1-005": (2000,),
                         "D1-006": (20,), "D1-007": (10,), "D1-008": ()}


def test_atoms_know_the_places_other_claims_give_their_quantity():
    """``PaperSpec`` fills ``Atom.places_elsewhere``: the ``in`` places of the other SAUs' atoms sharing a name."""
    spec = load_project_spec(Path(__file__).parent / "fixtures/d1/section_scopes/spec.yaml")
    places = {sau.id: [atom.places_elsewhere for atom in sau.atoms] for sau in spec.saus}
    assert places == {"D1-001": [("ODE2", "PDE2", "PDE3", "PDE4"), ("ODE2",)],
                      "D1-002": [("ODE1", "PDE2", "PDE3", "PDE4"), ("ODE1",)],
                      "D1-003": [("ODE1", "ODE2", "PDE3", "PDE4")], "D1-004": [("ODE1", "ODE2", "PDE2", "PDE4"), ()],
                      "D1-005": [("ODE1", "ODE2", "PDE2", "PDE3")]}
