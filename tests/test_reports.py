"""Reports their consumers accept: SARIF that validates against the SARIF 2.1.0 schema and meets GitHub code
scanning's upload requirements, SA-Bench's result format checked against our copy of its schema, a table that keeps
every ``file:line`` whole in a pipe, and a self-contained HTML page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, unquote

import jsonschema
import pytest

from verifier.cli import main
from verifier.html_report import to_html
from verifier.run import verify
from verifier.sabench_format import to_sabench
from verifier.sarif import FINGERPRINT, SOURCE_ROOT, to_sarif
from verifier.specs.project import load_project_spec

SCHEMAS = Path(__file__).parent / "schemas"
SARIF_SCHEMA = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
SABENCH_SCHEMA = json.loads((SCHEMAS / "sabench-result.schema.json").read_text(encoding="utf-8"))
ROOT = Path(__file__).resolve().parents[1]
# SA-Bench's experiments/runs (a clone of its public repository): SABENCH_RUNS, else beside the project as on the
# project's machine; the tests that read real repositories skip without it
RUNS = Path(os.environ.get("SABENCH_RUNS", ROOT.parent / "scratch" / "sabench" / "experiments" / "runs"))
SHARED_DECISIONS = ROOT.parent / "shared" / "sabench" / "decisions"

SPEC = """\
schema: sauverify-spec/1
benchmark_id: fx-reports
slug: reports
title: "Reports <fixture> & friends"
venue: fixture
saus:
- id: R-D1-001
  dimension: D1
  source: Section 1
  statement: learning rate 0.001
  atoms:
  - {name: learning_rate, aliases: [lr], value: 0.001}
- id: R-D1-002
  dimension: D1
  source: Section 2
  statement: batch size 64
  atoms:
  - {name: batch_size, value: 64}
- id: R-D1-003
  dimension: D1
  source: Section 3
  statement: label smoothing 0.15
  atoms:
  - {name: label_smoothing, value: 0.15}
- id: R-D1-004
  dimension: D1
  source: Section 4
  statement: dropout 0.1, with more the checks do not cover
  complete: false
  atoms:
  - {name: dropout, value: 0.1}
- id: R-D1-005
  dimension: D1
  source: Section 5
  statement: trained on 8 GPUs
  checkable: false
  note: hardware
"""

TRAIN = """\
import yaml

cfg = yaml.safe_load(open("my configs/train run.yaml"))
learning_rate = cfg["lr"]
dropout = 0.1


def main():
    print(learning_rate, dropout)


if __name__ == "__main__":
    main()
"""


def _notebook() -> str:
    """A notebook as Jupyter writes it: one JSON string per source line, each on a line of its own."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Experiment\n", "batch size below\n"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["import torch\n", "\n", "batch_size = 64\n", "print(batch_size)"]}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def write_repo(root: Path, shift: int = 0) -> tuple[Path, Path]:
    """The fixture repository (``shift`` blank lines at the top of each Python file) and its spec."""
    repo = root / "repo"
    (repo / "my configs").mkdir(parents=True)
    (repo / "my configs" / "train run.yaml").write_text("\n" * shift + "lr: 0.001\n", encoding="utf-8")
    (repo / "train.py").write_text("\n" * shift + TRAIN, encoding="utf-8")
    (repo / "exp.ipynb").write_text(_notebook(), encoding="utf-8")
    (repo / "README.md").write_text("# reports fixture\n", encoding="utf-8")
    spec = root / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    return repo, spec


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    repo, spec = write_repo(tmp_path_factory.mktemp("reports"))
    return verify(repo, load_project_spec(spec), "repo")


def test_fixture_verdicts(report):
    """The verdicts the report tests rest on: a settled match in a config file whose path has spaces, a settled
    match in a notebook cell, a settled absence, an unresolved estimate of full marks, an unscored claim."""
    got = {v.sau.id: (v.score, v.status.value, v.evidence[0].span_ref if v.evidence else None)
           for v in report.verdicts}
    assert got == {"R-D1-001": (1.0, "settled", "my configs/train run.yaml:1"),
                   "R-D1-002": (1.0, "settled", "exp.ipynb#2:3"),
                   "R-D1-003": (0.0, "settled", None),
                   "R-D1-004": (1.0, "unresolved", "train.py:5"),
                   "R-D1-005": (None, "unresolved", None)}


def sarif_results(text: str) -> dict[str, dict]:
    return {r["ruleId"]: r for r in json.loads(text)["runs"][0]["results"]}


def test_sarif_validates_against_the_schema(report):
    jsonschema.validate(json.loads(to_sarif(report)), SARIF_SCHEMA)


def test_sarif_meets_github_upload_requirements(report):
    """A location on every result, at a relative, percent-encoded URI with a uriBaseId the run declares, a region
    inside the file; rules with the descriptions and tags GitHub shows; a result for every SAU not settled at full
    marks (an unresolved estimate of 1 included, as a note); the run's counts."""
    data = json.loads(to_sarif(report))
    run = data["runs"][0]
    results = sarif_results(to_sarif(report))
    assert sorted(results) == ["R-D1-003", "R-D1-004", "R-D1-005"]
    assert {k: r["level"] for k, r in results.items()} == {"R-D1-003": "error", "R-D1-004": "note",
                                                          "R-D1-005": "note"}
    for result in run["results"]:
        assert len(result["locations"]) >= 1
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        uri = artifact["uri"]
        assert artifact["uriBaseId"] == SOURCE_ROOT and SOURCE_ROOT in run["originalUriBaseIds"]
        assert not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri) and not uri.startswith("/")  # relative reference
        assert quote(unquote(uri), safe="/") == uri and " " not in uri  # percent-encoded
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
        assert re.fullmatch(r"[0-9a-f]{32}", result["partialFingerprints"][FINGERPRINT])
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["properties"]["tags"][:2] == ["sauverify", "D1"]
    assert rule["fullDescription"]["text"] == "trained on 8 GPUs"
    assert run["properties"] == {"paper": "fx-reports", "total": 5, "settled": 3, "judged": 0, "unresolved": 2,
                                 "unscored": 1, "settledAtFullMarks": 2}
    no_evidence = results["R-D1-003"]
    assert no_evidence["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "README.md"
    assert no_evidence["message"]["text"].endswith("[no evidence in the code: shown at README.md line 1]")


def test_sarif_uri_of_a_path_with_spaces_is_percent_encoded(tmp_path):
    repo, spec = write_repo(tmp_path)
    text = (repo / "my configs" / "train run.yaml").read_text()
    (repo / "my configs" / "train run.yaml").write_text(text.replace("0.001", "0.002"))  # now a numerical drift
    results = sarif_results(to_sarif(verify(repo, load_project_spec(spec), "repo")))
    location = results["R-D1-001"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "my%20configs/train%20run.yaml"
    assert location["region"] == {"startLine": 1, "endLine": 1, "snippet": {"text": "lr: 0.002"}}


def test_sarif_notebook_evidence_points_at_the_line_of_the_ipynb_file(tmp_path):
    repo, spec = write_repo(tmp_path)
    # batch_size settles at full marks, which SARIF does not report: claim another value, a numerical drift
    spec.write_text(SPEC.replace("value: 64", "value: 128"), encoding="utf-8")
    report = verify(repo, load_project_spec(spec), "repo")
    result = sarif_results(to_sarif(report))["R-D1-002"]
    location = result["locations"][0]["physicalLocation"]
    line = location["region"]["startLine"]
    assert location["artifactLocation"]["uri"] == "exp.ipynb"
    assert (repo / "exp.ipynb").read_text().splitlines()[line - 1].strip() == '"batch_size = 64\\n",'
    assert "notebook cell 2, line 3 of the cell" in result["message"]["text"]


def test_sarif_notebook_stored_in_one_line_points_at_line_1_and_names_the_cell(tmp_path):
    repo, spec = write_repo(tmp_path)
    (repo / "exp.ipynb").write_text(json.dumps(json.loads(_notebook())))  # the whole notebook on one line
    spec.write_text(SPEC.replace("value: 64", "value: 128"), encoding="utf-8")
    report = verify(repo, load_project_spec(spec), "repo")
    result = sarif_results(to_sarif(report))["R-D1-002"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "endLine": 1}
    assert "[in notebook cell 2, lines 3 of the cell]" in result["message"]["text"]
    jsonschema.validate(json.loads(to_sarif(report)), SARIF_SCHEMA)


def test_sarif_fingerprints_stable_across_reruns_and_line_shifts(tmp_path):
    first_repo, spec = write_repo(tmp_path / "a")
    shifted_repo, _ = write_repo(tmp_path / "b", shift=3)
    first = to_sarif(verify(first_repo, load_project_spec(spec), "repo"))
    assert to_sarif(verify(first_repo, load_project_spec(spec), "repo")) == first  # byte-identical rerun
    shifted = to_sarif(verify(shifted_repo, load_project_spec(spec), "repo"))
    before, after = sarif_results(first), sarif_results(shifted)
    assert before.keys() == after.keys()
    for sau in before:
        assert before[sau]["partialFingerprints"] == after[sau]["partialFingerprints"]
    line = after["R-D1-004"]["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert (line, before["R-D1-004"]["locations"][0]["physicalLocation"]["region"]["startLine"]) == (8, 5)


def test_sabench_format_is_accepted_by_the_schema_and_averages_as_sabench_does(report):
    data = json.loads(to_sabench(report, {}))
    jsonschema.validate(data, SABENCH_SCHEMA)
    assert data["model"] == "sauverify-rules-0.1.0" and data["scored_at"] == "1970-01-01T00:00:00Z"
    d1 = data["dimensions"]["D1"]
    assert [c["id"] for c in d1["claims"]] == ["R-D1-001", "R-D1-002", "R-D1-003", "R-D1-004"]  # unscored left out
    assert (d1["total_claims"], d1["score"], data["overall_score"]) == (4, 0.75, 0.75)
    unresolved = d1["claims"][3]
    assert unresolved["judge_reasoning"].startswith("[unresolved; decided by rule:d1-numerical] (the rules' estimate)")
    notebook = d1["claims"][1]["evidence"][0]
    assert (notebook["file"], notebook["lines"], notebook["kind"]) == ("exp.ipynb#2", "3", "code")
    assert d1["claims"][0]["evidence"][0]["kind"] == "config"
    stamped = json.loads(to_sabench(report, {"SOURCE_DATE_EPOCH": "1767225600"}))
    assert stamped["scored_at"] == "2026-01-01T00:00:00Z"


def test_our_sabench_schema_accepts_sabench_own_result_files():
    """The schema copy is SA-Bench's: its published result files pass (the first three of each config present: all
    360 take over a minute; a copy may leave out the three held-out configs), and average as stated."""
    files = sorted(RUNS.glob("*/*/repo/result/*-sau-score.json"))
    if not files:
        pytest.skip("SA-Bench's runs are not on this machine")
    configs = sorted({path.relative_to(RUNS).parts[0] for path in files})
    sample = [path for config in configs for path in sorted(RUNS.glob(f"{config}/*/repo/result/*-sau-score.json"))[:3]]
    assert len(configs) in (9, 12) and len(sample) == 3 * len(configs)
    for path in sample:
        data = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(data, SABENCH_SCHEMA)
        means = [d["score"] for d in data["dimensions"].values()]
        assert data["overall_score"] == round(sum(means) / len(means), 4), path


def test_table_in_a_pipe_keeps_every_evidence_reference_whole(tmp_path):
    repo, spec = write_repo(tmp_path)
    deep = repo / "a_rather_long_folder_name" / "and_another_one_below_it" / "yet_another_level"
    deep.mkdir(parents=True)
    (deep / "hyperparameters_of_the_experiment.py").write_text("label_smoothing = 0.15\n")
    piped = subprocess.run([sys.executable, "-m", "verifier.cli", str(repo), "--spec", str(spec), "-q"],
                           capture_output=True, text=True, check=True, env={"COLUMNS": "60", "PATH": ""})
    report = verify(repo, load_project_spec(spec), str(repo))
    refs = [v.evidence[0].span_ref for v in report.verdicts if v.evidence]
    assert ("a_rather_long_folder_name/and_another_one_below_it/yet_another_level/"
            "hyperparameters_of_the_experiment.py:1") in refs
    for ref in refs:
        assert ref in piped.stdout
    assert "…" not in piped.stdout and "┃" not in piped.stdout
    assert "settle rate 60% (2 unresolved)" in piped.stdout


def test_explain_prints_each_reason_under_its_row(tmp_path, capsys):
    repo, spec = write_repo(tmp_path)
    assert main([str(repo), "--spec", str(spec), "-q", "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("R-D1-005"))
    assert lines[row + 1] == "    reason: not code-checkable: hardware (rule:d1-numerical)"


def test_html_report_is_self_contained_and_shows_evidence_beside_code(report):
    page = to_html(report)
    assert page == to_html(report)  # deterministic
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)  # nothing loaded from anywhere
    assert "@import" not in page and "url(" not in page
    assert "Reports &lt;fixture&gt; &amp; friends" in page and "<fixture>" not in page  # escaped
    assert page.count('<details class="sau"') == 5
    assert 'data-dim="D1" data-status="unresolved" data-drift="none"' in page
    # the evidence line is highlighted, numbered, among its neighbours
    assert '<span class="hit"><span class="no">5</span>dropout = 0.1</span>' in page
    assert '<span><span class="no">4</span>learning_rate = cfg[&quot;lr&quot;]</span>' in page
    assert '<span class="hit"><span class="no">3</span>batch_size = 64</span>' in page  # notebook cell lines


def test_real_sabench_repositories_give_reports_their_consumers_accept():
    """Real SA-Bench repositories (development configs): SARIF valid with a location on every result, SA-Bench
    output valid, every evidence reference whole in the plain table. Three of the ten that
    ``benchmarks/check_reports.py`` checks (the small ones, and the one with a notebook), to keep the suite quick."""
    from benchmarks.check_reports import EXCLUDE, TEN, problems
    from verifier.specs.load import load_paper

    picks = [name for name in TEN if name in ("gpt4o_basic/ngpt", "openhands_gpt4o/sam2",
                                              "claude-sonnet_basic/voting-leaderboards")]
    repos = [(RUNS / name / "repo", name.split("/")[1]) for name in picks]
    if len(repos) != 3 or not all(repo.is_dir() for repo, _ in repos):
        pytest.skip("SA-Bench's runs are not on this machine")
    for repo, slug in repos:
        report = verify(repo, load_paper(slug), str(repo), exclude=EXCLUDE)
        assert report.verdicts and problems(report) == [], repo


def test_decisions_built_from_sabench_result_files(tmp_path):
    """benchmarks/sabench_decisions.py: one line per scored claim of each result file, in the layout the
    benchmark scripts read; on this machine, the same bytes as the project's shared decisions."""
    from benchmarks.sabench_decisions import main as build

    result = {"paper_id": "p", "repo_path": "/x", "scored_at": "2026-01-01T00:00:00Z", "model": "m",
              "overall_score": 0.5, "dimensions": {"D1": {"score": 0.5, "total_claims": 1, "claims": [
                  {"id": "p-D1-001", "claim": "c", "source": "s", "score": 0.5, "search_rounds": 1,
                   "search_trace": [], "judge_reasoning": "r",
                   "evidence": [{"file": "a.py", "lines": "3-4", "snippet": "x", "relevance": "direct",
                                 "kind": "code"}]}]}}}
    folder = tmp_path / "runs" / "cfg" / "p" / "repo" / "result"
    folder.mkdir(parents=True)
    (folder / "p-sau-score.json").write_text(json.dumps(result))
    assert build([str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--configs", "cfg"]) == 0
    assert [json.loads(line) for line in (tmp_path / "out" / "cfg.jsonl").read_text().splitlines()] == [
        {"paper_id": "p", "claim_id": "p-D1-001", "dimension": "D1", "score": 0.5, "judge_reasoning": "r",
         "evidence_refs": ["a.py:3-4"]}]
    (folder / "p-sau-score.json").write_text("{")
    assert build([str(tmp_path / "runs"), "--out", str(tmp_path / "out"), "--configs", "cfg"]) == 2
    shared = SHARED_DECISIONS / "gpt4o_basic.jsonl"
    if RUNS.is_dir() and shared.is_file():
        assert build([str(RUNS), "--out", str(tmp_path / "real"), "--configs", "gpt4o_basic"]) == 0
        assert (tmp_path / "real" / "gpt4o_basic.jsonl").read_bytes() == shared.read_bytes()


def test_progress_names_each_phase_and_moves_through_the_rules(tmp_path):
    """The progress callback hears the phases in order (reading per file, the call graph when a dimension needs
    it, one step per SAU under its dimension's name), and the rules phase advances SAU by SAU."""
    repo, spec = write_repo(tmp_path)
    heard: list[tuple[str, int, int | None, str]] = []
    verify(repo, load_project_spec(spec), "repo", progress=lambda *step: heard.append(step))
    assert [p for p, *_ in heard if p != "reading"] == ["D1 numerical"] * 5  # D1 only: no call graph needed
    assert [done for p, done, _, _ in heard if p == "D1 numerical"] == [0, 1, 2, 3, 4]
    assert {item for p, _, _, item in heard if p == "reading"} >= {"train.py", "exp.ipynb"}
    spec.write_text(SPEC + """\
- id: R-D3-001
  dimension: D3
  source: Section 6
  statement: evaluated on CIFAR-10
  datasets:
  - {name: CIFAR-10, aliases: [cifar10]}
""", encoding="utf-8")
    heard.clear()
    verify(repo, load_project_spec(spec), "repo", progress=lambda *step: heard.append(step))
    phases = [p for p, *_ in heard if p != "reading"]
    assert phases == ["call graph"] + ["D1 numerical"] * 5 + ["D3 protocol"]
    assert heard[-1][1:3] == (5, 6)
