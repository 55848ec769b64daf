"""No verdict settled on unread code (issue 17, "Never settle on unread code"), and the readers that shrink what is
unread: nbformat 3 notebooks, CPython's indentation (tabs, form feeds), cell magics.

Each test writes a small repository whose only binding of a claimed value sits where the verifier could not read
it, or could not read it before; each asserts the verdict, the warning and the exit code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import libcst
import pytest

from extractors.repository import extract_python
from verifier.cli import main

SPEC = """schema: sauverify-spec/1
benchmark_id: fx-unread
slug: unread
title: unread
venue: fixture
saus:
- id: U-D1-001
  dimension: D1
  statement: learning rate 0.1
  atoms:
  - {name: learning_rate, aliases: [lr], value: 0.1}
- id: U-D2-001
  dimension: D2
  statement: the update is a scaled difference
  formulas: ["y == alpha * (a - b)"]
  glossary:
    y: {meaning: update, code_names: [update]}
    alpha: {meaning: scale, code_names: [scale]}
    a: {meaning: first, code_names: [first]}
    b: {meaning: second, code_names: [second]}
  mechanism: [scaled_difference]
- id: U-D2-002
  dimension: D2
  statement: the momentum buffer decays at 0.9
  formulas: ["m_new == mu * m + g"]
  glossary:
    m_new: {meaning: new buffer, code_names: [buf_new]}
    mu: {meaning: decay, code_names: [decay]}
    m: {meaning: buffer, code_names: [buf]}
    g: {meaning: gradient, code_names: [grad]}
  mechanism: [heavy_ball]
  atoms:
  - {name: momentum, aliases: [mu], value: 0.9}
"""
TRAIN = "from lib import settings\n\n\ndef main():\n    print(settings)\n\n\nif __name__ == '__main__':\n    main()\n"


def verify_json(tmp_path: Path, repo: Path, capsys, *extra: str) -> tuple[int, dict, str]:
    """Run ``verify`` on ``repo`` with SPEC; the exit code, the JSON report's D1/D2 claims by id, and stderr."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "report.json"
    code = main([str(repo), "--spec", str(spec), "--format", "json", "--output", str(out), *extra])
    err = capsys.readouterr().err
    if not out.exists():
        return code, {}, err
    data = json.loads(out.read_text())
    claims = {c["id"]: c for dim in data["dimensions"].values() for c in dim["claims"]}
    claims["_summary"] = data["summary"]
    return code, claims, err


def absent_held(claim: dict, path: str) -> None:
    assert (claim["score"], claim["status"], claim["drift"]) == (0.0, "unresolved", "missing"), claim
    assert "not settled: it rests on an absence" in claim["judge_reasoning"]
    assert path in claim["judge_reasoning"]


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(TRAIN)
    return repo


def test_control_every_file_read_settles_the_absence(tmp_path, capsys):
    """The yardstick for the tests below: with nothing unread, the same absences settle."""
    code, claims, err = verify_json(tmp_path, make_repo(tmp_path), capsys)
    assert code == 0 and "warning" not in err
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"]) == (0.0, "settled")
    assert (claims["U-D2-001"]["score"], claims["U-D2-001"]["status"]) == (0.0, "settled")


def test_linked_folder_and_linked_file_are_warned_and_hold_the_absence(tmp_path, capsys):
    """Issue input 1: ``lib -> ../shared_lib`` and a linked file hold the only binding."""
    shared = tmp_path / "shared_lib"
    shared.mkdir()
    (shared / "settings.py").write_text("lr = 0.1\n")
    (tmp_path / "outside.py").write_text("learning_rate = 0.1\n")
    repo = make_repo(tmp_path)
    (repo / "lib").symlink_to("../shared_lib")
    (repo / "config.py").symlink_to("../outside.py")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0
    assert "warning: lib/: skipped: a link to a folder (to ../shared_lib), not followed" in err
    assert "warning: config.py: skipped: a link (to ../outside.py), not followed" in err
    assert claims["_summary"]["files_read"] == 1
    absent_held(claims["U-D1-001"], "config.py (a link (to ../outside.py), not followed)")
    absent_held(claims["U-D1-001"], "lib/ (a link to a folder (to ../shared_lib), not followed)")
    absent_held(claims["U-D2-001"], "lib/")


def test_broken_links_without_a_file_kind_are_warned_and_hold_the_absence(tmp_path, capsys):
    """Sibling (new-user test): a link to a folder that is not here and a link to itself name no file kind, yet
    either may have stood for a folder of code or configuration."""
    repo = make_repo(tmp_path)
    (repo / "configs").symlink_to("/nonexistent/configs")
    (repo / "loop").symlink_to("loop")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0
    assert "warning: configs: skipped: a link (to /nonexistent/configs) to nothing here, not followed" in err
    assert "warning: loop: skipped: a link (to loop) to nothing here, not followed" in err
    absent_held(claims["U-D1-001"], "configs (a link (to /nonexistent/configs) to nothing here, not followed)")


def test_link_inside_the_repository_is_warned_but_read_where_it_points(tmp_path, capsys):
    """Sibling: a link to a folder of the repository itself hides nothing (its files are read at their place)."""
    repo = make_repo(tmp_path)
    (repo / "src").mkdir()
    (repo / "src" / "other.py").write_text("x = 2\n")
    (repo / "alias").symlink_to("src")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning: alias/: skipped: a link to a folder (to src), not followed" in err
    assert claims["U-D1-001"]["status"] == "settled"


def test_file_over_the_size_cap_holds_the_absence(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / "big.py").write_text("lr = 0.1\n" + "# padding\n" * 200)
    code, claims, err = verify_json(tmp_path, repo, capsys, "--max-file-bytes", "1000")
    assert code == 0 and "warning: big.py: skipped: over the size cap (2009 bytes > 1000)" in err
    absent_held(claims["U-D1-001"], "big.py (over the size cap")


def test_binary_and_run_outputs_do_not_hold_an_absence(tmp_path, capsys):
    """Not implementation by policy: a binary ``.py`` (CPython refuses NUL bytes) and run-output folders."""
    repo = make_repo(tmp_path)
    (repo / "blob.py").write_bytes(b"lr = 0.1\0\0")
    (repo / "results").mkdir()
    (repo / "results" / "best.py").write_text("lr = 0.1\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "blob.py: skipped: binary" in err and "results/: skipped: run outputs" in err
    assert claims["U-D1-001"]["status"] == "settled"


def test_file_only_tree_sitter_could_read_holds_the_absence(tmp_path, capsys):
    """The unread line mentions the claimed name: it could bind it, so the absence holds."""
    repo = make_repo(tmp_path)
    (repo / "old.py").write_text("x = 1\nprint 'the rate', lr\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "old.py:2: syntax error at line 2" in err and "so it would not import" in err
    absent_held(claims["U-D1-001"], "old.py (read only in part, with tree-sitter)")


@pytest.mark.parametrize("unread_line, held", [
    ("print 'python 2'", False),  # no word, no number of either SAU: cannot matter
    ("print 'rate', 0.1", True),  # the claimed number
    ("print learningRate", True),  # an agreeing name (the alias table maps it to learning_rate)
    ("print base_lr_scaled", True),  # a longer name holding a claimed one
    ("print scaled_difference(a, b)", True),  # D2's mechanism name
])
def test_partial_read_settles_when_its_unread_lines_cannot_matter(tmp_path, capsys, unread_line, held):
    """"Unless the skipped part provably cannot matter": the lines tree-sitter could not read are known; an absence
    settles when none of them mentions a word of the SAU's checks or a number it claims."""
    repo = make_repo(tmp_path)
    (repo / "old.py").write_text(f"x = 1\n{unread_line}\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "old.py:2: syntax error" in err  # the warning names the partial read either way
    statuses = (claims["U-D1-001"]["status"], claims["U-D2-001"]["status"])
    if held:
        assert "unresolved" in statuses
    else:
        assert statuses == ("settled", "settled")


@pytest.mark.parametrize("unread_line, held", [
    ("x = (momentum 0.9", False),  # the claim's value and its name: not decided when the mechanism is absent
    ("x = (heavy_ball 0.9", True),  # the mechanism's name
])
def test_an_absent_d2_mechanism_rests_on_its_names_not_on_its_values(tmp_path, capsys, unread_line, held):
    """A D2 claim's values (``atoms``) are decided only beside its formulas: when nothing is named after the
    mechanism, the absence rests on the mechanism's and glossary's names, so unread lines naming only the values
    cannot matter."""
    repo = make_repo(tmp_path)
    (repo / "old.py").write_text(f"x = 1\n{unread_line}\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    claim = claims["U-D2-002"]
    assert code == 0 and "old.py:2: syntax error" in err
    if held:  # the partly read line names the mechanism: no absence settles
        assert claim["status"] == "unresolved", claim
    else:
        assert (claim["score"], claim["status"]) == (0.0, "settled"), claim
        assert claim["judge_reasoning"] == ("absent: nothing in the code is named after the mechanism (heavy_ball) "
                                            "and nothing is assigned to the formula's left-hand names")


def test_a_d2_absence_reads_a_partly_read_file_as_unread_from_its_first_line(tmp_path, capsys):
    """D2 builds its candidates only from files libcst parses whole: the lines tree-sitter did read give facts to D1,
    none to D2. A file holding the claim's computation before a syntax error keeps the D2 absence open (by the
    conventions such code is a trace, not nothing), while D1's absence, resting on what tree-sitter read, settles."""
    repo = make_repo(tmp_path)
    (repo / "old.py").write_text("def step(first, second, scale):\n    update = scale * (first - second)\n"
                                 "    return update\n\nprint 'python 2'\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "old.py:5: syntax error" in err
    absent_held(claims["U-D2-001"], "old.py (read only in part, with tree-sitter)")
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"]) == (0.0, "settled")


def test_refused_and_unparsable_files_hold_the_absence(tmp_path, capsys):
    """Siblings: a file the guards refuse, a notebook that is not JSON, a config that does not parse."""
    repo = make_repo(tmp_path)
    (repo / "deep.py").write_text("x = " + "(" * 300 + "1" + ")" * 300 + "\n")
    (repo / "broken.ipynb").write_text("{not json")
    (repo / "conf.yaml").write_text("a: [1, 2\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0
    reason = claims["U-D1-001"]["judge_reasoning"]
    absent_held(claims["U-D1-001"], "3 path(s)")
    for path in ("broken.ipynb (notebook not read", "conf.yaml (config not read)", "deep.py (brackets nested 300 deep"):
        assert path in reason
    # D2's rule reads no configuration file: the broken YAML cannot matter to it, the other two can
    assert "conf.yaml" not in claims["U-D2-001"]["judge_reasoning"] and "2 path(s)" in claims["U-D2-001"][
        "judge_reasoning"]


def test_unread_config_holds_only_the_dimensions_that_read_configs(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / "conf.yaml").write_text("a: [1, 2\n")
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning: conf.yaml:2: config not read" in err
    absent_held(claims["U-D1-001"], "conf.yaml (config not read)")
    assert (claims["U-D2-001"]["score"], claims["U-D2-001"]["status"]) == (0.0, "settled")


def test_unread_paths_do_not_touch_verdicts_resting_on_what_was_found(tmp_path, capsys):
    """A match (or a contradicting value) is a fact that unread code cannot take back: it stays settled."""
    repo = make_repo(tmp_path)
    (repo / "train.py").write_text(TRAIN + "lr = 0.1\nprint(lr)\n")
    (repo / "old.py").write_text("print 'python 2'\n")
    code, claims, _ = verify_json(tmp_path, repo, capsys)
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"]) == (1.0, "settled")


def test_unused_value_is_an_absence_too(tmp_path, capsys):
    """Sibling: "unused" says no code reads the name; unread code might, so it holds too (score kept as estimate)."""
    repo = make_repo(tmp_path)
    (repo / "train.py").write_text(TRAIN + "lr = 0.1\n")
    code, claims, _ = verify_json(tmp_path, repo, capsys)
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"], claims["U-D1-001"]["drift"]) == (
        0.25, "settled", "unused")
    (repo / "old.py").write_text("print 'reads', lr\n")
    code, claims, _ = verify_json(tmp_path, repo, capsys)
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"], claims["U-D1-001"]["drift"]) == (
        0.25, "unresolved", "unused")
    assert "old.py (read only in part, with tree-sitter)" in claims["U-D1-001"]["judge_reasoning"]


NOTEBOOK_V3 = {
    "nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "old"},
    "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# old notebook"]},
        {"cell_type": "code", "metadata": {}, "collapsed": False, "language": "python", "outputs": [],
         "input": ["import torch\n", "lr = 0.1\n", "opt = torch.optim.SGD([], lr=lr)\n"]},
    ]}],
}


def test_nbformat_3_notebook_is_read(tmp_path, capsys):
    """Issue input 2: code under ``worksheets[0].cells[].input`` binds the value."""
    repo = make_repo(tmp_path)
    (repo / "old.ipynb").write_text(json.dumps(NOTEBOOK_V3))
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning" not in err
    claim = claims["U-D1-001"]
    assert (claim["score"], claim["status"]) == (1.0, "settled")
    assert claim["evidence"][0]["file"] == "old.ipynb" and claim["evidence"][0]["cell"] == 2


def test_notebook_layout_nbformat_cannot_upgrade_holds_the_absence(tmp_path, capsys):
    """Sibling: an old layout that is not valid (a code cell without ``outputs``) is warned and holds."""
    broken = json.loads(json.dumps(NOTEBOOK_V3))
    del broken["worksheets"][0]["cells"][1]["outputs"]
    repo = make_repo(tmp_path)
    (repo / "old.ipynb").write_text(json.dumps(broken))
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning: old.ipynb:1: notebook not read: nbformat 3 layout that nbformat cannot" in err
    absent_held(claims["U-D1-001"], "old.ipynb (notebook not read")


FORMULA = "def scaled_difference(first, second, scale):\n    update = scale * (first - second)\n    return update\n"


@pytest.mark.parametrize("name, text", [
    ("tab then space", "def main():\n\t lr = 0.1\n\t if lr:\n\t\t  print(lr)\n"),
    ("tab aligned with spaces", "if True:\n\tlr = 0.1\n\tif lr:\n         print(lr)\n"),
    ("form feed before an indented line", "if True:\n\f lr = 0.1\n if lr:\n    print(lr)\n"),
    ("form feed inside the indentation", "if True:\n lr = 0.1\n \f if lr:\n\f    print(lr)\n"),
])
def test_indentation_cpython_accepts_is_parsed(tmp_path, capsys, name, text):
    """Issue input 3: CPython runs these files; they are parsed (no "would not import"), the tree is kept."""
    compile(FORMULA + text, name, "exec")  # the premise: CPython accepts the file, which libcst alone refuses
    with pytest.raises(Exception):
        libcst.parse_module(FORMULA + text)
    repo = make_repo(tmp_path)
    (repo / "model.py").write_text(FORMULA + text)
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "would not import" not in err and "warning" not in err
    assert (claims["U-D1-001"]["score"], claims["U-D1-001"]["status"]) == (1.0, "settled")
    assert claims["U-D2-001"]["status"] == "settled" and claims["U-D2-001"]["score"] in (0.25, 1.0)


def test_indentation_cpython_refuses_still_would_not_import():
    """The other side of input 3: inconsistent tabs CPython refuses keep the warning and the fallback."""
    found = extract_python("if True:\n        x = 1\n\ty = 2\n", "bad.py")
    assert len(found.warnings) == 1 and "libcst cannot parse this file, so it would not import" in (
        found.warnings[0].message)
    assert found.unread == {"bad.py": "read only in part, with tree-sitter"}


def test_form_feed_keeps_line_numbers(tmp_path, capsys):
    """Sibling: ``str.splitlines`` splits at form feeds; evidence lines must be CPython's."""
    repo = make_repo(tmp_path)
    (repo / "model.py").write_text("x = 1\f\n\f\nlr = 0.1\n")
    code, claims, _ = verify_json(tmp_path, repo, capsys)
    evidence = claims["U-D1-001"]["evidence"][0]
    assert (evidence["file"], evidence["lines"], evidence["snippet"]) == ("model.py", "3", "lr = 0.1")


def notebook(*cells: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": cell}
        for cell in cells]})


def test_cell_magic_bodies_in_another_language_are_skipped(tmp_path, capsys):
    """Issue input 4: ``%%html`` (and ``%%bash``, ``%%javascript``) bodies are not Python: no "would not import";
    ``%%time`` and ``%%writefile x.py`` bodies are Python and are read."""
    repo = make_repo(tmp_path)
    (repo / "nb.ipynb").write_text(notebook(
        "%%html\n<div class='x'>\n<b>lr = 0.1</b></div>\n",
        "%%bash\nfor i in 1 2; do echo $i; done\n",
        "%%javascript\nvar lr = {a: 1};\n",
        "%%time\nlr = 0.1\nprint(lr)\n",
        "%%writefile helper.py\ndef scaled_difference(first, second, scale):\n    update = scale * (first - second)\n"
        "    return update\n"))
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning" not in err
    claim = claims["U-D1-001"]
    assert (claim["score"], claim["status"], claim["evidence"][0]["cell"]) == (1.0, "settled", 4)
    assert claims["U-D2-001"]["status"] == "settled" and claims["U-D2-001"]["score"] in (0.25, 1.0)


def test_unknown_cell_magic_is_warned_and_holds(tmp_path, capsys):
    repo = make_repo(tmp_path)
    (repo / "nb.ipynb").write_text(notebook("%%mystery --fast\nlr = 0.1\n"))
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and "warning: nb.ipynb: cell 1: cell magic %%mystery: its body was not read" in err
    absent_held(claims["U-D1-001"], "nb.ipynb#1")


@pytest.mark.parametrize("source, kind", [(7, "int"), ({"x": "lr = 0.1\n"}, "dict"), (["lr = ", 0.1], "list")])
def test_a_cell_whose_source_is_not_text_is_warned_and_holds(tmp_path, capsys, source, kind):
    repo = make_repo(tmp_path)
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}]
    (repo / "nb.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    code, claims, err = verify_json(tmp_path, repo, capsys)
    assert code == 0 and f"warning: nb.ipynb: cell 1: source is not text ({kind}): the cell was not read" in err
    absent_held(claims["U-D1-001"], "nb.ipynb#1")


def test_warning_line_counts_never_exceed_the_lines(tmp_path):
    """The fallback's "facts taken from N of M lines" has N <= M, M the lines the file has (form feeds not split)."""
    text = "x = 1\f\ny = 2\nprint 'a'\n"
    found = extract_python(text, "f.py")
    message = found.warnings[0].message
    taken, total = (int(n) for n in message.split("facts taken from ")[1].split(" lines")[0].split(" of "))
    assert total == 3 and taken <= total


def test_folder_with_nothing_to_read_is_an_input_error(tmp_path, capsys):
    """Issue input 16: an empty folder, or one with only binaries, is exit 2 naming the folder; no report."""
    empty = tmp_path / "empty"
    empty.mkdir()
    code, claims, err = verify_json(tmp_path, empty, capsys)
    assert (code, claims) == (2, {})
    assert err.strip().endswith(f"verify: error: {empty}: no file the verifier can read (.py, .ipynb, YAML, JSON, "
                                "TOML or .sh) in this folder")
    binaries = tmp_path / "bin"
    binaries.mkdir()
    (binaries / "model.py").write_bytes(b"\0\1\2")
    (binaries / "weights.pt").write_bytes(b"\0" * 10)
    code, claims, err = verify_json(tmp_path, binaries, capsys)
    assert (code, claims) == (2, {}) and f"verify: error: {binaries}: no file the verifier can read" in err
    only_link = tmp_path / "linked"
    only_link.mkdir()
    os.symlink(tmp_path / "empty", only_link / "lib")
    code, claims, err = verify_json(tmp_path, only_link, capsys)
    assert code == 2 and "; skipped: lib/" in err


D3_SPEC = """schema: sauverify-spec/1
benchmark_id: fx-unread-d3
slug: unread_d3
title: unread_d3
venue: fixture
saus:
- id: U-D3-001
  dimension: D3
  statement: Hi-MAR-S is compared with MAR
  baselines: [{name: MAR, aliases: [mar]}, {name: TD3}]
  scope: [{name: Hi-MAR-S}]
"""


# A signature CPython refuses (a parameter without a default after one with a default) that tree-sitter cannot
# read either: the class statement, the signature and the comment stay unread, as in hi-mar's model.py.
UNREAD_SIGNATURE = ("class HiMAR(nn.Module):\n    def forward(\n        self,\n        x = {default},\n        t,\n"
                    "        z = None  # Z^s from phase 1\n    ):\n        return x\n")


@pytest.mark.parametrize("default, held", [
    ("None", False),  # "S" alone (the comment), "MAR" inside the defined name HiMAR: no trace of either element
    ("HiMAR_S", True),  # the whole name, glued
    ("'baseline: Hi MAR S'", True),  # the whole name in a string
    ("MAR", True),  # the short name, whole
    ("torch.build_mar(x)", True),  # the short name as a word of a called name (D3 reads F.mse_loss as "mse")
    ("s_mar", False),  # the short name inside a name no call makes
    ("'M-A-R'", True),  # the short name as a whole string, separators left out
    ('"""notes on\n        Hi-MAR-S"""', True),  # the whole name in a string over two lines
    ("'td3_bc'", True),  # a label of letters then digits as a word of a string
])
def test_d3_absence_rests_on_whole_names_in_unread_lines(tmp_path, capsys, default, held):
    """D3 finds an element by its whole name or alias within one name or string, a short alias also as a word of a
    called name, or by a distinctive word of four letters or more: unread lines holding only a short word of a
    longer name ("S" of "Hi-MAR-S" beside a variable ``s``) do not hold the absence (hi-mar D3-002 and D3-003 of
    openhands_gemini, whose model.py Python cannot compile)."""
    repo = make_repo(tmp_path)
    (repo / "old.py").write_text(UNREAD_SIGNATURE.format(default=default))
    spec = tmp_path / "spec.yaml"
    spec.write_text(D3_SPEC)
    out = tmp_path / "report.json"
    assert main([str(repo), "--spec", str(spec), "--format", "json", "--output", str(out)]) == 0
    assert "syntax error at line" in capsys.readouterr().err
    claim = json.loads(out.read_text())["dimensions"]["D3"]["claims"][0]
    assert (claim["score"], claim["status"]) == (0.0, "unresolved" if held else "settled"), claim
    assert ("old.py (read only in part, with tree-sitter)" in claim["judge_reasoning"]) is held
