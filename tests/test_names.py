"""Name normalisation, aliases, counts against indices, and value comparison."""

import pytest
import sympy

from rules.compare import equal, symbolic_equal
from rules import names, quantities
from rules.names import is_generic, narrower, normalise


def test_aliases_and_spelling_variants_agree():
    assert normalise("lr") == normalise("learning_rate") == normalise("LearningRate")
    assert normalise("n_layers") == normalise("num_layers") == normalise("depth") == normalise("layers")
    assert normalise("γ") == normalise("discount factor") == normalise("gamma")
    assert normalise("minibatch size") == normalise("batch_size") == normalise("train_batch_size")


def test_a_name_squashed_keeps_its_letters_in_order():
    assert names.squashed("lambda_pre_activ") == names.squashed("LambdaPreActiv") == "lambdapreactiv"
    assert names.squashed("w_vz") == names.squashed("Wvz") == "wvz"
    assert names.squashed("warm_up_steps") == names.squashed("warmup_steps")
    assert names.squashed("γ_1") == "gamma1"
    assert names.squashed("vz_w") != names.squashed("w_vz")  # word order counts, unlike normalise's keys


def test_a_count_is_not_an_index():
    assert normalise("num_phases") != normalise("phase")
    assert normalise("seeds") != normalise("seed")
    assert normalise("num_seeds") == normalise("seeds")


def test_only_a_count_prefix_says_count():
    # a plural may hold the values themselves (lambdas = [0.7, 0.8]); n_lambda = len(grid) counts them
    assert names.says_count("n_lambda") and names.says_count("num_heads")
    assert not names.says_count("lambdas") and not names.says_count("temperature")
    # only a leading count word: sigma_n and cfl_number are no counts, and no_obj_weight negates
    assert not names.says_count("sigma_n") and not names.says_count("CFL_NUMBER")
    assert not names.says_count("no_obj_weight") and not names.says_count("n")


def test_narrower_names_add_qualifiers():
    claim = frozenset({normalise("lr")})
    assert narrower(claim, normalise("encoder_lr"))
    assert not narrower(claim, normalise("lr"))
    assert not narrower(frozenset({normalise("image_size")}), normalise("batch_size"))


def test_generic_names():
    assert is_generic("K") and is_generic("alpha") and is_generic("scale")
    assert not is_generic("discount factor") and not is_generic("n_layers")


@pytest.mark.parametrize(("claimed", "found", "expected"), [
    (3.141592653589793, 3.14159, True),  # pi to five decimals
    (5 * 3.141592653589793, 15.70795, True),  # five times pi to five decimals
    (0.7071067811865476, 0.70711, True),  # 1/sqrt(2)
    (3.141592653589793, 3.14, False),  # three digits: a setting of its own
    (0.12345, 0.12346, False),  # the claim is no longer than the code's number
    (3.141592653589793, 3.1426, False),
    (0.999999, 0.99995, False),  # an EMA decay of its own: five units off its last place
    (0.999995, 0.99991, False),
    (0.001, 0.0011, False),
])
def test_a_long_decimal_equals_the_number_it_rounds(claimed: float, found: float, expected: bool) -> None:
    assert equal(claimed, found) is expected


def test_value_comparison_answers_true_false_or_none():
    assert equal(1e-4, 0.0001) is True
    assert equal(1e-4, 1e-3) is False
    assert equal(1e-4, "1e-4") is None
    assert equal((0.9, 0.95), (0.9, 0.95)) is True
    assert equal((0.9, 0.95), (0.9, 0.999)) is False
    assert equal("ELU", "elu") is True


def test_symbolic_equality_pairs_symbols_by_name():
    d_model, n_embd, width = sympy.symbols("d_model n_embd width_x")
    assert symbolic_equal(1 / sympy.sqrt(d_model), n_embd ** sympy.Rational(-1, 2)) is True
    assert symbolic_equal(1 / sympy.sqrt(d_model), 1 / d_model) is False
    assert symbolic_equal(1 / sympy.sqrt(d_model), 1 / sympy.sqrt(width)) is None


def test_integer_division_is_the_ratio_it_rounds():
    T, K = sympy.symbols("T K")
    assert symbolic_equal(2 * T / K, sympy.floor(2 * T / K)) is True
    assert symbolic_equal(T / K, sympy.floor(2 * T / K)) is False


@pytest.mark.parametrize("claimed, found, expected", [
    ("cosine", "linear_warmup_cosine", True),    # a member just before "warmup" names the warmup
    ("linear", "linear_warmup_cosine", False),
    ("cosine", "cosine_with_restarts", True),
    ("AdamW", "paged_adamw_8bit", True),
    ("adam", "adamw_torch", False),              # the longest run of words wins: adamw, not adam
    ("relu", "leaky_relu", False),
    ("cosine", "ddpm", None),                    # names no member of the family: not comparable
    ("AdamW", "my_optimizer", None),
    ("bfloat16", "bf16", True),                  # spellings of one choice, no family needed
    ("bfloat16", "float32", False),
])
def test_library_choices_compare_by_the_family_members_a_text_names(claimed, found, expected) -> None:
    assert quantities.choice_equal(claimed, found) is expected


@pytest.mark.parametrize("claimed, key", [
    ("cosine annealing", "cosine"),               # a phrase naming one learning-rate schedule
    ("linear_warmup_cosine", "cosine"),           # the member before "warmup" names the warmup
    ("CosineAnnealingLR", "cosineannealinglr"),   # a realising callee stays itself
    ("AdamW", "adamw"),                           # no call-realised family: its own key
    ("cosine or linear", "cosineorlinear"),       # two schedules named: no one member
])
def test_a_claimed_schedule_phrase_reads_as_the_one_schedule_it_names(claimed, key) -> None:
    assert quantities.claimed_key(claimed) == key


@pytest.mark.parametrize("claim, code, expected", [
    ("block_size", "d_model", True),       # a known hyperparameter of another group: another quantity
    ("hidden_size", "batch_size", True),
    ("n_train", "batch_size", True),
    ("context_length", "max_seq_len", False),  # the same group: the claim's own quantity
    ("input_steps", "num_initial_steps", False),  # not in the table: may be the claim renamed
    ("n_output_channels", "batch_size", True),
    ("warmup_ratio", "warmup_steps", False),  # shares the word warmup: related, not another quantity
    ("n_layers", "in_channels", True),  # no layer is as wide as a count of layers
    ("patch_size", "out_features", True),
    ("hidden_dim", "out_features", False),  # a layer width may be the claimed hidden width
    ("n_experts", "out_features", False),  # a router's output width is the expert count
])
def test_a_name_of_another_known_hyperparameter_is_another_quantity(claim, code, expected) -> None:
    keys = frozenset({names.normalise(claim)})
    assert names.other_quantity(keys, names.normalise(code)) is expected


@pytest.mark.parametrize("first, second, meet", [
    ("next_values", "next_value", True),    # a plural holds many values of the quantity
    ("attn_weights", "attn_weight", True),
    ("num_heads", "head", False),           # a count prefix still counts: never the quantity it counts
    ("next_values", "prev_value", False),   # unrelated names stay apart
    ("per_token_losses", "per_token_loss", True),  # -sses: losses is many loss values, not "losse"
    ("patches", "patch", True),             # -ches after a consonant
    ("caches", "cache", True),              # -ches after a vowel drops only the s
    ("batches", "batch", True),
])
def test_a_plural_quantity_name_meets_its_singular(first, second, meet) -> None:
    assert (names.quantity_key(first) == names.quantity_key(second)) is meet
    assert names.normalise("next_values") != names.normalise("next_value")  # a count for hyperparameters (D1)
