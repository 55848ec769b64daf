"""The D1 claim compiler on claim shapes SA-Bench uses (texts written for these tests)."""

import sympy

from verifier.specs.claims import compile_d1, number
from sau.vocabulary import AtomKind


def atoms(text):
    return {a.name: a for a in compile_d1(text).atoms}


def test_numbers_with_suffixes_and_percentages():
    assert number("100k") == (100000, False)
    assert number("2.5M") == (2500000, False)
    assert number("1e-4") == (0.0001, False)
    assert number("10%") == (0.1, True)
    assert number("10,000") == (10000, False)
    assert number("abc") is None


def test_assignments_alternatives_and_symbolic_values():
    found = atoms("Sizes (Table 9): n_layers=12/24, d_model=768/1024, head_scale=1/sqrt(d_head).")
    assert found["n_layers"].values == (12, 24)
    assert found["d_model"].values == (768, 1024)
    assert found["head_scale"].values == (1 / sympy.sqrt(sympy.Symbol("d_head")),)


def test_known_names_and_count_nouns_in_prose():
    result = compile_d1("We train with a learning rate of 3e-4 and batch size 128 for 200k iterations over 5 seeds.")
    found = {a.name: a for a in result.atoms}
    assert found["learning rate"].values == (0.0003,)
    assert found["batch size"].values == (128,)
    assert found["iterations"].values == (200000,)
    assert found["seeds"].values == (5,)
    assert result.complete


def test_sets_lists_and_tuples():
    found = atoms("Grid: lr in {0.01, 0.1, 0.5}; strides=(2,2,1); channel_mult=[1,2,2].")
    assert (found["lr"].kind, found["lr"].values) == (AtomKind.SET, (0.01, 0.1, 0.5))
    assert (found["strides"].kind, found["strides"].values) == (AtomKind.SCALAR, ((2, 2, 1),))
    assert found["channel_mult"].values == ((1, 2, 2),)


def test_greek_names_take_the_preceding_words_as_alias():
    found = atoms("Discount factor γ=0.99 and target noise σ=0.2.")
    assert found["γ"].aliases == ("Discount factor",)
    assert found["σ"].values == (0.2,)


def test_hardware_and_results_leave_the_claim_incomplete():
    result = compile_d1("Global batch_size=512 on 64 A100 GPUs; FID=2.44 at the end.")
    assert [a.name for a in result.atoms] == ["batch_size"]
    assert not result.complete
    assert any(note.startswith("hardware") for note in result.notes)
    assert any(note.startswith("reported result") for note in result.notes)


def test_prose_beyond_the_numbers_leaves_the_claim_incomplete():
    result = compile_d1("rope_base=10000, applied to query and key vectors in each attention head before scoring.")
    assert [a.name for a in result.atoms] == ["rope_base"]
    assert not result.complete


def test_same_name_twice_becomes_one_atom_with_both_values():
    found = atoms("Baseline uses weight_decay=0.1; ours uses weight_decay=0.0.")
    assert found["weight_decay"].values == (0.1, 0.0)


def test_chained_equalities_are_not_split_into_atoms():
    found = atoms("Number of timesteps K=40 (step size h=1/K=0.025)")
    assert found["K"].values == (40,)
