"""The stub and TODO detector on the inputs of issue 17: tags inside URLs and file names, notebooks passed to the
hook, a TODO on a value, and exit codes a pre-commit run can tell apart (0 clean, 1 findings, 2 usage or input
error, 3 internal error)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from extractors.stubs.detect import find_stubs
from verifier import stubs_cli


def codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in find_stubs(source, "m.py")]


@pytest.mark.parametrize("comment", [
    "# docs: https://example.org/todo/list",
    "# see http://x.org/FIXME.html",
    "# mirror at www.todo.com",
    "# see docs/TODO.md",
    "# see .../TODO.md",
    "# notes in ./todo",
    "# the stub.py module has the real one",
    "# from C:\\stubs\\dummy.txt",
])
def test_tag_inside_a_url_or_file_name_is_not_a_tag(comment):
    """Issue input 19 and siblings: scheme URLs, www. hosts, paths with and without extensions, bare file names,
    Windows paths, for TODO/FIXME (TOD001) and the placeholder markers (TOD002)."""
    assert codes(f"x = 1\n{comment}\n") == []
    assert codes(f"x = 1  {comment}\n") == []  # on a value: no STB003 either


@pytest.mark.parametrize("comment, want", [
    ("# TODO/FIXME: tune", [(2, "TOD001")]),
    ("# TODO: see https://example.org/issue", [(2, "TOD001")]),
    ("# see https://example.org, then TODO", [(2, "TOD001")]),
    ("# placeholder until docs/x.md lands", [(2, "TOD002")]),
])
def test_real_tags_next_to_urls_are_still_tags(comment, want):
    assert codes(f"x = 1\n{comment}\n") == want


def test_todo_on_a_value_is_always_a_tod_code():
    """Issue input 20: ``lr = 1e-4  # TODO`` is a placeholder value (STB003) and a TODO (TOD001), so ``--select TOD``
    sees it; a placeholder marker on a value stays STB003 only (no TOD002 twice)."""
    assert codes("lr = 1e-4  # TODO tune\n") == [(1, "STB003"), (1, "TOD001")]
    assert codes("lr = 1e-4  # placeholder\n") == [(1, "STB003")]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "verifier.stubs_cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def notebook(*cells: str, markdown: str = "# TODO in markdown is prose") -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": markdown}] + [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": cell}
        for cell in cells]})


def test_notebook_is_checked_cell_by_cell(tmp_path):
    """Issue input 20: a notebook passed explicitly, and one below a folder, are checked cell by cell; magics and
    non-Python cells are not Python; findings name the cell."""
    (tmp_path / "nb.ipynb").write_text(notebook(
        "%matplotlib inline\nlr = 1e-4  # TODO tune\n", "%%bash\n# TODO not python\n",
        "def train():\n    pass\n"))
    result = run_cli("nb.ipynb", "--select", "TOD", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "nb.ipynb:cell_2:2:14: TOD001 TODO comment: # TODO tune\n", "")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "nb.ipynb").rename(tmp_path / "pkg" / "nb.ipynb")
    result = run_cli("pkg", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.splitlines() == [
        "pkg/nb.ipynb:cell_2:2:1: STB003 placeholder value marked by comment: # TODO tune",
        "pkg/nb.ipynb:cell_2:2:14: TOD001 TODO comment: # TODO tune",
        "pkg/nb.ipynb:cell_4:1:1: STB001 stub: body of `train` is only `pass`"]


def test_exit_codes_tell_findings_from_failures(tmp_path):
    """Issue input 12: 0 clean, 1 findings, 2 usage and input errors (a missing path, an unknown code, an unreadable
    notebook), 3 an internal error; never 1 for anything but findings."""
    (tmp_path / "clean.py").write_text("x = 1\n")
    (tmp_path / "todo.py").write_text("# TODO\n")
    (tmp_path / "bad.ipynb").write_text("{not json")
    assert run_cli("clean.py", cwd=tmp_path).returncode == 0
    assert run_cli("todo.py", cwd=tmp_path).returncode == 1
    missing = run_cli("nowhere", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (
        2, "verify-stubs: error: cannot read nowhere: No such file or directory\n")
    assert run_cli("--select", "NOPE", "clean.py", cwd=tmp_path).returncode == 2
    bad = run_cli("bad.ipynb", "todo.py", cwd=tmp_path)
    assert bad.returncode == 2 and "verify-stubs: error: cannot read bad.ipynb: " in bad.stderr
    assert bad.stdout == "todo.py:1:3: TOD001 TODO comment: # TODO\n"  # the other files are still checked


def test_internal_error_is_not_findings(tmp_path, monkeypatch, capsys):
    """A bug in the detector (here: a finder that raises) is exit 3 with one line, never 1."""
    def broken(path):
        raise RuntimeError("boom")
    monkeypatch.setattr(stubs_cli, "find_stubs_in_file", broken)
    (tmp_path / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert stubs_cli.main(["a.py"]) == 3
    assert capsys.readouterr().err == "verify-stubs: internal error: RuntimeError: boom\n"


def test_control_characters_in_names_and_comments_are_escaped(tmp_path):
    """Issue input 17 for the hook: an escape sequence in a file name or a comment reaches the terminal escaped."""
    name = "evil\x1b[2J.py"
    (tmp_path / name).write_text("# TODO \x1b]8;;http://x\x07click\u202e\n")
    result = run_cli(".", cwd=tmp_path)
    assert result.returncode == 1 and "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert result.stdout == "./evil\\x1b[2J.py:1:3: TOD001 TODO comment: # TODO \\x1b]8;;http://x\\x07click\\u202e\n"
