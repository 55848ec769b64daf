"""Startup (issue 20): the commands load only what they use, and the stub detector's tree-sitter-first order
changes no finding."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from extractors.stubs.detect import _parse, find_stubs
from extractors.stubs.parse_cst import parse_libcst
from extractors.stubs.parse_ts import parse_tree_sitter, tree_sitter_tree

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("libcst", "sympy", "networkx", "openai", "rules")


def _loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    probe = (code + "\nimport sys\nprint('HEAVY', sorted(m for m in sys.modules if m == 'verifier.run' or "
             f"m.split('.')[0] in {HEAVY!r}))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    line = next((line for line in result.stdout.splitlines() if line.startswith("HEAVY")), None)
    assert line is not None, result.stdout + result.stderr
    return ast.literal_eval(line[len("HEAVY "):])


def test_verify_help_and_version_load_no_analysis_library() -> None:
    code = ("from verifier.cli import build_parser\n"
            "for option in ('--help', '--version'):\n"
            "    try:\n        build_parser().parse_args([option])\n    except SystemExit:\n        pass\n")
    assert _loaded_after(code) == []


def test_verify_stubs_on_a_clean_file_loads_no_analysis_library(tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("def train(lr=1e-3):\n    pass  # TODO: write the loop\n", encoding="utf-8")
    code = f"from verifier.stubs_cli import main\nmain([{str(clean)!r}])\n"
    assert _loaded_after(code) == []


# What only deciding a SAU needs: the rules (but the name normaliser and the findings' records), the call graph and
# networkx; and the LLM client; and what only reading the spec and the files needs: the parsers, libcst and sympy. A
# run whose rendered report comes from the cache (verifier.rendered) loads none of them.
DECIDING = ("rules.d1_numerical", "rules.d2_formula", "rules.d3_protocol", "rules.d4_ordering", "rules.traces",
            "extractors.callgraph", "networkx", "openai", "libcst", "sympy", "verifier.run")


def _deciding_loaded_after_demo_run(cache: Path, out: Path) -> list[str]:
    """The modules of ``DECIDING`` a fresh interpreter holds after ``verify`` on the embedded demo (all four
    dimensions), with ``cache`` as its cache folder and its JSON report written to ``out``."""
    probe = (f"import os, sys\nos.environ['SAUVERIFY_CACHE_DIR'] = {str(cache)!r}\n"
             f"from verifier.cli import main\nassert main(['--format', 'json', '-q', '-o', {str(out)!r}]) == 0\n"
             f"print('DECIDING', sorted(m for m in sys.modules if m.startswith({DECIDING!r})))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    line = next((line for line in result.stdout.splitlines() if line.startswith("DECIDING")), None)
    assert line is not None, result.stdout + result.stderr
    return ast.literal_eval(line[len("DECIDING "):])


def test_a_fully_cached_run_loads_no_rule_parser_call_graph_or_networkx(tmp_path: Path) -> None:
    cold = _deciding_loaded_after_demo_run(tmp_path / "cache", tmp_path / "cold.json")
    assert {"rules.d1_numerical", "rules.d4_ordering", "extractors.callgraph", "networkx", "libcst", "sympy",
            "verifier.run"} <= set(cold)
    warm = _deciding_loaded_after_demo_run(tmp_path / "cache", tmp_path / "warm.json")
    assert warm == []
    assert (tmp_path / "warm.json").read_bytes() == (tmp_path / "cold.json").read_bytes()


# source -> which parser ``_parse`` takes it from: tree-sitter when its tree is clean and no scope ends with comments;
# libcst when a block ends with comments (tree-sitter's scope would end at them, libcst's at the last statement); the
# tree-sitter fallback, with its own ends, when libcst cannot parse the file, as before
CASES = {
    "clean": ("class Model:\n    def forward(self, x):\n        raise NotImplementedError\n\n"
              "def step():\n    pass\n", "tree-sitter"),
    "trailing comment": ("def train():\n    pass\n    # TODO: the loop\n    # more notes\n\n"
                         "try:\n    import apex\nexcept ImportError:\n    apex = None\n    # fallback\n",
                         "libcst"),
    "nested trailing comment": ("class A:\n    def f(self):\n        if self:\n            pass\n"
                                "            # dangling\n", "libcst"),
    "python 2 with trailing comment": ("def main():\n    print 'not implemented'\n    # TODO\n", "fallback"),
    "syntax error": ("def broken(:\n    pass\n", "fallback"),
}


def _route(source: str) -> str:
    data, tree = tree_sitter_tree(source)
    if not tree.root_node.has_error and not parse_tree_sitter(source, data, tree)[1]:
        return "tree-sitter"
    return "libcst" if parse_libcst(source) is not None else "fallback"


@pytest.mark.parametrize("name", sorted(CASES))
def test_tree_sitter_first_gives_what_libcst_first_gave(name: str) -> None:
    source, route = CASES[name]
    assert _route(source) == route
    old = parse_libcst(source) or parse_tree_sitter(source)[0]  # the order before: libcst, else tree-sitter
    assert asdict(_parse(source, None)) == asdict(old)
    if route != "fallback":  # the verifier hands over its libcst tree: the findings are the same
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        assert find_stubs(source, "x.py") == find_stubs(source, "x.py", wrapper=wrapper)


def test_trailing_comments_are_where_the_two_collectors_disagree() -> None:
    source = CASES["trailing comment"][0]
    data, tree = tree_sitter_tree(source)
    parsed, comment_ends = parse_tree_sitter(source, data, tree)
    assert comment_ends and not tree.root_node.has_error
    libcst = parse_libcst(source)
    assert libcst is not None
    assert [f.end_line for f in parsed.functions] == [4] and [f.end_line for f in libcst.functions] == [2]
    assert parsed.fallbacks == [(6, 10)] and libcst.fallbacks == [(6, 9)]
    assert asdict(_parse(source, None)) == asdict(libcst)
    assert not parse_tree_sitter(CASES["clean"][0])[1]
