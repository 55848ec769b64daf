"""Many repositories in one command: ``verify --batch`` / ``--pairs`` (``verifier.batch``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifier import batch
from verifier.cli import demo_repository, main

def _runs(tmp_path: Path) -> Path:
    """A folder laid out like SA-Bench's runs: two configs, the demo repository under the demo paper's slug in
    each (one edited so that the two verdict sets differ), an empty repository, and a paper nobody knows."""
    runs = tmp_path / "runs"
    for config in ("alpha", "beta"):
        shutil.copytree(demo_repository(), runs / config / "demo" / "repo")
    train = runs / "beta" / "demo" / "repo" / "configs" / "train.yaml"
    text = train.read_text(encoding="utf-8")
    train.write_text(text.replace("warmup_steps: 1000", "warmup_steps: 2000"), encoding="utf-8")
    (runs / "beta" / "ngpt" / "repo").mkdir(parents=True)  # nothing to read: that repository's input error
    shutil.copytree(demo_repository(), runs / "beta" / "no-such-paper" / "repo")
    (runs / "beta" / "notes").mkdir()  # no repo folder: not a job
    return runs


def test_find_runs_reads_the_layout_and_one_config(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    jobs = batch.find_runs(runs)
    assert [(j.name, j.paper) for j in jobs] == [("alpha/demo", "demo"), ("beta/demo", "demo"),
                                                  ("beta/ngpt", "ngpt"), ("beta/no-such-paper", "no-such-paper")]
    assert jobs[0].repo == runs / "alpha" / "demo" / "repo"
    assert [j.name for j in batch.find_runs(runs / "alpha")] == ["demo"]
    assert [j.name for j in batch.find_runs(runs, groups=["alpha"])] == ["alpha/demo"]
    with pytest.raises(batch.BatchError, match="no <config>/<paper slug>/repo"):
        batch.find_runs(runs / "beta" / "notes")


def test_read_pairs_resolves_relative_paths_and_names_the_bad_line(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(f"# repository paper\n\nruns/alpha/demo/repo demo-001\n{runs}/beta/demo/repo  demo\n"
                     "runs/alpha/demo/repo demo\n", encoding="utf-8")
    jobs = batch.read_pairs(pairs)
    assert [(j.name, j.repo, j.paper) for j in jobs] == [
        ("runs/alpha/demo/repo", tmp_path / "runs/alpha/demo/repo", "demo-001"),
        (f"{str(runs).lstrip('/')}/beta/demo/repo", runs / "beta/demo/repo", "demo"),
        ("runs/alpha/demo/repo-2", tmp_path / "runs/alpha/demo/repo", "demo")]
    pairs.write_text("runs/alpha/demo/repo   demo   # the edited copy is beta's\n", encoding="utf-8")
    assert [(j.name, j.paper) for j in batch.read_pairs(pairs)] == [("runs/alpha/demo/repo", "demo")]
    pairs.write_text("runs/alpha/demo/repo demo\nlonely\n", encoding="utf-8")
    with pytest.raises(batch.BatchError, match=r"pairs.txt:2: expected 'REPOSITORY PAPER'"):
        batch.read_pairs(pairs)


def test_batch_writes_the_single_run_reports_a_summary_and_the_worst_exit_code(tmp_path: Path, capsys) -> None:
    runs = _runs(tmp_path)
    out = tmp_path / "reports"
    assert main(["--batch", str(runs), "--output", str(out), "--jobs", "2", "-q"]) == 2  # two bad inputs
    table = capsys.readouterr().out
    assert "alpha/demo" in table and "unknown paper 'no-such-paper'" in table
    assert "2 of 4 repositories ran (2 input errors, 0 internal errors)" in table
    # captured output is no terminal: the plain layout, as a single run prints it, without box drawing
    lines = table.splitlines()
    assert lines[0] == "4 repositories" and lines[1].split()[:5] == ["repository", "paper", "SAUs", "settled",
                                                                       "unresolved"]
    assert not any(ch in table for ch in "┏━┃│") and all(line == line.rstrip() for line in lines)
    # each report is the bytes `verify REPO --paper P --format json` writes for that repository alone
    for name in ("alpha/demo", "beta/demo"):
        single = tmp_path / "single.json"
        assert main([str(runs / name / "repo"), "--paper", "demo", "--format", "json", "-o", str(single), "-q"]) == 0
        assert (out / f"{name}.json").read_bytes() == single.read_bytes()
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rows = {row["name"]: row for row in summary["repositories"]}
    assert summary["totals"]["ran"] == 2 and summary["totals"]["input_errors"] == 2
    assert rows["beta/ngpt"]["status"] == 2 and "no file the verifier can read" in rows["beta/ngpt"]["error"]
    assert rows["alpha/demo"]["paper"] == "demo-001" and rows["alpha/demo"]["report"] == "alpha/demo.json"
    assert rows["alpha/demo"]["scores"]["D1"] != rows["beta/demo"]["scores"]["D1"]  # the edit is seen
    assert "seconds" not in rows["alpha/demo"]
    first = {path: path.read_bytes() for path in out.rglob("*.json")}
    # one process or two: the same bytes (in one process both demo jobs share the paper's spec, ``_spec``)
    assert main(["--batch", str(runs), "--output", str(out), "--jobs", "1", "-q"]) == 2
    assert {path: path.read_bytes() for path in out.rglob("*.json")} == first


def test_a_worker_reads_each_paper_s_spec_once_and_raises_a_bad_one_each_time() -> None:
    from verifier.specs.errors import SpecError
    from verifier.specs.load import load_paper
    first = batch._spec("demo", None, load_paper)
    assert batch._spec("demo", None, load_paper) is first and first == load_paper("demo")
    for _ in range(2):
        with pytest.raises(SpecError, match="no-such-paper"):
            batch._spec("no-such-paper", None, load_paper)


def test_batch_runs_clean_and_refuses_single_repository_options(tmp_path: Path, capsys) -> None:
    runs = _runs(tmp_path)
    assert main(["--batch", str(runs / "alpha"), "-q", "--format", "sarif", "-o", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "demo.sarif").is_file()
    assert main(["--batch", str(runs), "--paper", "demo"]) == 2
    assert capsys.readouterr().err == ("verify: error: --batch and --pairs take no --paper (options of one "
                                       "repository; the batch's repositories and papers come from its folder or "
                                       "pairs file)\n")
    assert main(["--batch", str(runs), "--llm", "auto"]) == 2
    assert "take no --llm (the LLM judge is not offered for batches yet)" in capsys.readouterr().err
    assert main(["--batch", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_another_engine_can_take_the_jobs_and_rows_keep_the_jobs_order(tmp_path: Path) -> None:
    """``submit`` hands the jobs to another engine (here a thread pool, rows yielded as they finish, the last job
    first); the rows come back in the jobs' order and equal the local pool's."""
    from concurrent.futures import ThreadPoolExecutor

    runs = _runs(tmp_path)
    jobs = batch.find_runs(runs)

    def threads(js, options):
        with ThreadPoolExecutor(2) as pool:
            yield from reversed(list(pool.map(lambda job: batch.run_job(job, options), js)))

    seen: list[str] = []
    rows = batch.run_batch(jobs, batch.Options(), tell=lambda done, total, row: seen.append(row.name),
                           submit=threads)
    assert seen == [j.name for j in reversed(jobs)]
    assert [r.name for r in rows] == [j.name for j in jobs]
    local = batch.run_batch(jobs, batch.Options(), workers=2)
    assert [(r.status, r.scores, r.error) for r in rows] == [(r.status, r.scores, r.error) for r in local]
    assert batch.exit_status(rows) == 2


def test_a_dask_cluster_of_one_machine_gives_the_local_pool_s_bytes(tmp_path: Path, capsys) -> None:
    """``--scheduler`` hands the repositories to a real Dask cluster (here one machine, one worker process); the
    reports and the summary are the local pool's, byte for byte. An unreachable scheduler is an input error."""
    distributed = pytest.importorskip("distributed")
    runs = _runs(tmp_path)
    assert main(["--batch", str(runs), "-o", str(tmp_path / "local"), "-q", "--jobs", "2"]) == 2
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert main(["--batch", str(runs), "-o", str(tmp_path / "dask"), "-q",
                     "--scheduler", cluster.scheduler_address]) == 2
    for name in ("summary.json", "alpha/demo.json", "beta/demo.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    capsys.readouterr()
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # nobody listens on port 9
        assert main(["--batch", str(runs), "-q", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "--scheduler tcp://127.0.0.1:9" in capsys.readouterr().err
