"""Hostile and malformed inputs: each costs only itself, with a message naming the file, and the run completes."""

import json
import os
import subprocess
import sys
import time

import pytest

from verifier.specs.claims import compile_d1
from extractors.formulas import FormulaError, parse_formula
from extractors.guards import MAX_CHAIN
from extractors.repository import extract_python
from extractors.stubs.detect import find_stubs
from verifier.run import verify
from verifier.specs.project import load_project_spec

SPEC = """schema: sauverify-spec/1
benchmark_id: fx-hostile
slug: hostile
title: hostile
venue: fixture
saus:
- id: D1-001
  dimension: D1
  statement: hidden width 512 and 52B training tokens
  atoms:
  - {name: hidden_dim, aliases: [width], value: 512}
  - {name: training_tokens, value: 52B}
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "verifier.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_deep_nesting_and_long_chains_are_refused_not_crashed():
    started = time.perf_counter()
    nested = extract_python("x = " + "(" * 1500 + "1" + ")" * 1500 + "\n", "deep.py")
    chain = extract_python("x = " + "+".join(["1"] * 100_000) + "\n", "chain.py")
    assert [w.message.split(" (")[0] for w in nested.warnings] == ["brackets nested 1500 deep"]
    assert chain.warnings[0].message == "line 1 chains more than 1000 operators; not parsed"
    assert find_stubs("x = " + "(" * 1500 + "1" + ")" * 1500, "deep.py") == []
    assert time.perf_counter() - started < 10


def test_bad_files_cost_only_themselves(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text("hidden_dim = 512\nprint(hidden_dim)\n")
    (repo / "bad.ipynb").write_text('{"cells": 5}')
    (repo / "bomb.yaml").write_text("a: [1, 2\n")
    (repo / "latin1.py").write_bytes(b"x = 1\n# caf\xe9\n")
    os.mkfifo(repo / "pipe.py")
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    report = verify(repo, load_project_spec(spec), "repo")
    warnings = {w.file: (w.line, w.message) for w in report.warnings}
    assert warnings["bad.ipynb"] == (1, "notebook not read: no list of cells")
    assert warnings["bomb.yaml"][1].startswith("config not read: while parsing a flow sequence: expected ',' or ']'")
    assert warnings["latin1.py"] == (2, "not valid UTF-8; undecodable bytes replaced")
    assert warnings["pipe.py"] == (None, "skipped: not a regular file")
    assert report.verdicts[0].findings[0].values[0].outcome == "matched"


def test_presentation_keywords_and_running_totals_are_not_settings(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "env.py").write_text(
        "def show(env):\n    return env.physics.render(width=84)\n\n\n"
        "def evaluate(batches):\n    n_tokens = 0\n    for b in batches:\n        n_tokens += len(b)\n"
        "    return n_tokens\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    verdict = verify(repo, load_project_spec(spec), "x").verdicts[0]
    outcomes = [v.outcome for atom in verdict.findings for v in atom.values]
    assert outcomes == ["absent", "ambiguous"]  # no drift from render(width=84) or n_tokens = 0
    assert verdict.drift == "missing"


def test_markup_in_ids_and_paths_is_printed_as_text(tmp_path):
    (tmp_path / "repo[").mkdir()
    repo = tmp_path / "repo[" / "x]"
    repo.mkdir()
    (repo / "a.py").write_text("lr = 1e-4\n")
    sau = tmp_path / "sau.json"
    sau.write_text(json.dumps({"paper_id": "p", "D1": [{"id": "a[/x][red]b", "claim": "lr=1e-4", "source": "s"}]}))
    result = run(repo, "--sau", sau)
    assert result.returncode == 0, result.stderr
    assert "a[/x][red]b" in result.stdout


def test_malformed_sau_json_is_an_input_error(tmp_path):
    cases = {
        "ids.json": (json.dumps({"paper_id": "p", "D1": [{"id": 5, "claim": "x"}]}), "D1[0] needs string fields"),
        "utf8.json": (b'{"paper_id": "\xff"}', "not valid UTF-8"),
        "deep.json": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        "empty.json": (json.dumps({"paper_id": "p", "d1": []}), "no claims"),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        result = run(tmp_path, "--sau", path)
        assert result.returncode == 2 and message in result.stderr, (name, result.stderr)


def test_unusable_output_is_refused_before_the_run(tmp_path):
    result = run("--output", tmp_path / "missing" / "x.json")
    assert result.returncode == 2
    assert "--output: the folder does not exist" in result.stderr
    assert run("--max-file-bytes", "-5").returncode == 2


def test_hardware_and_multipliers_keep_a_claim_unsettled():
    assert not compile_d1("learning_rate=3e-4 on 64 A100 GPUs").complete
    assert not compile_d1("lr=3e-4, 6x faster than the baseline").complete
    assert compile_d1("context_length=1k").atoms[0].tolerance == 0.025


def test_huge_claims_are_not_compiled():
    started = time.perf_counter()
    result = compile_d1(", ".join(f"x{i}={i}" for i in range(10_000)))
    assert result.atoms == () and result.notes == ("more than 200 numbers: not compiled",)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("line", ["x" + "[0]" * 5000, "-" * 5000 + "x", "x" + ".T" * 20000, "lambda: " * 3000 + "x",
                                  "not " * 5000 + "x", "x" + "()" * 5000])
def test_chains_without_brackets_are_refused_not_crashed(line):
    # each nests the syntax tree thousands deep: libcst's native parser would end the process with a segfault
    found = extract_python(f"y = {line}\n", "chain.py")
    assert [w.message for w in found.warnings] == [
        f"line 1 chains more than {MAX_CHAIN} subscripts, calls, attributes or prefixes; not parsed"]
    with pytest.raises(FormulaError, match="formula nested too deeply"):
        parse_formula(f"L == {line}")


def test_a_long_literal_list_is_still_read():
    found = extract_python("weights = [" + ", ".join(["0.5"] * 3000) + "]\nlr = 1e-4\n", "data.py")
    assert not found.warnings and any(f.name == "lr" and f.value == 1e-4 for f in found.facts)


def test_an_integer_over_4300_digits_is_no_fact_and_no_crash():
    found = extract_python("big = " + "9" * 5000 + "\nlr = 3e-4\n", "big.py")
    assert [(f.name, f.value) for f in found.facts if f.name] == [("big", None), ("lr", 3e-4)]
