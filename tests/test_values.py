"""Constant folding: numbers, symbolic values and the guards that keep hostile input cheap and inert."""

import time

import sympy

from extractors.values import parse_value


def test_constant_expressions_fold_to_numbers():
    assert parse_value("2**10") == 1024
    assert parse_value("1/1000") == 0.001
    assert parse_value("-1e-4") == -0.0001
    assert parse_value("int(1e5)") == 100000
    assert parse_value('float("3e-4")') == 0.0003
    assert parse_value("1_000") == 1000
    assert parse_value("(2, 2, 2, 1)") == (2, 2, 2, 1)


def test_symbolic_values_keep_their_symbols_and_exact_numbers():
    d_model = sympy.Symbol("d_model")
    assert parse_value("1/sqrt(d_model)") == 1 / sympy.sqrt(d_model)
    assert parse_value("self.d_model ** -0.5") == 1 / sympy.sqrt(d_model)
    assert parse_value("1 / math.sqrt(config.d_model)") == 1 / sympy.sqrt(d_model)


def test_bare_names_and_calls_are_not_values():
    assert parse_value("args.lr") is None
    assert parse_value("get_lr()") is None
    assert parse_value("x[0]") is None


def test_huge_powers_are_refused_quickly():
    started = time.perf_counter()
    assert parse_value("9**9**9") is None
    assert parse_value("(10**512)**512") is None
    assert time.perf_counter() - started < 1.0


def test_text_is_never_evaluated(tmp_path):
    marker = tmp_path / "ran"
    payload = f"__import__('os').system('touch {marker}')"
    assert parse_value(payload) is None
    assert parse_value(f"eval(\"{payload}\")") is None
    assert not marker.exists()
