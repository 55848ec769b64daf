"""The cache (extractors/cache.py): hits on unchanged input, misses on edited input that reuse what the edit did not
touch, corrupt and foreign entries ignored and rebuilt, and reports byte-identical with and without it."""

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extractors.cache import ENV_FOLDER, Cache, _tool_stamp, cache_folder, tool_fingerprint
from verifier.cli import demo_repository, main
from verifier.run import verify
from verifier.specs.load import load_paper

PAPER = "demo-001"
FILES = 6  # the demo repository's files the index reads (4 Python, 1 YAML, its README): one entry each, and one for verdicts
# and, for a command-line run written as text, one for the rendered report (verifier.rendered)
SPEC = Path(__file__).resolve().parent.parent / "benchmark_data" / "demo-001.yaml"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the demo repository, to edit."""
    return Path(shutil.copytree(demo_repository(), tmp_path / "repo"))


def entries(folder: Path) -> list[Path]:
    """The cache's entries (not its remembered fingerprint)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".tmp-")
                  and p.name != "fingerprint")


def report_json(repo: Path, out: Path, *options: str) -> bytes:
    assert main([str(repo), "--paper", PAPER, "--format", "json", "-q", "-o", str(out), *options]) == 0
    return out.read_bytes()


def run_api(repo: Path, folder: Path):
    cache = Cache(folder)
    report = verify(repo, load_paper(PAPER), "repo", cache=cache)
    return report, cache


def score_of(report, sau_id: str):
    return next(v.score for v in report.verdicts if v.sau.id == sau_id)


def test_second_run_hits_every_entry_and_reports_the_same_bytes(repo, tmp_path):
    folder = Path(os.environ[ENV_FOLDER])
    uncached = report_json(repo, tmp_path / "none.json", "--no-cache")
    assert entries(folder) == []  # --no-cache neither reads nor writes
    cold = report_json(repo, tmp_path / "cold.json")
    assert len(entries(folder)) == FILES + 2
    warm = report_json(repo, tmp_path / "warm.json")
    assert uncached == cold == warm
    assert len(entries(folder)) == FILES + 2
    report, cache = run_api(repo, folder)
    assert (cache.hits, cache.misses) == (FILES + 1, 0)
    assert report.files_read == FILES


def test_edit_reuses_what_it_did_not_touch(repo, tmp_path):
    folder = tmp_path / "cache"
    before, cache = run_api(repo, folder)
    assert (cache.hits, cache.misses) == (0, FILES + 1)
    assert score_of(before, "demo-D1-001") == 1.0
    config = repo / "configs" / "train.yaml"
    config.write_text(config.read_text().replace("lr: 3.0e-4", "lr: 1.0e-3"))
    after, cache = run_api(repo, folder)
    assert (cache.hits, cache.misses) == (FILES - 1, 2)  # the four other files hit; the edited one and the verdicts
    assert score_of(after, "demo-D1-001") < 1.0  # the edit is seen: the learning rate drifted
    fresh = verify(repo, load_paper(PAPER), "repo")
    assert after == fresh


def test_a_file_the_index_does_not_read_still_invalidates_the_verdicts(repo, tmp_path):
    folder = tmp_path / "cache"
    run_api(repo, folder)
    (repo / "data.txt").write_text("a manifest a launcher could pass\n")
    _, cache = run_api(repo, folder)
    assert (cache.hits, cache.misses) == (FILES, 1)


def test_corrupt_entries_are_ignored_and_rebuilt(repo, tmp_path):
    folder = Path(os.environ[ENV_FOLDER])
    expected = report_json(repo, tmp_path / "cold.json")
    for number, entry in enumerate(entries(folder)):
        data = entry.read_bytes()
        if number % 3 == 0:
            entry.write_bytes(data[: len(data) // 2])  # a torn write
        elif number % 3 == 1:
            entry.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))  # a flipped byte: the checksum fails
        else:
            entry.write_bytes(b"not a cache entry at all")
    assert report_json(repo, tmp_path / "again.json") == expected
    _, cache = run_api(repo, folder)
    assert (cache.hits, cache.misses) == (FILES + 1, 0)  # rewritten by the run that ignored them
    assert report_json(repo, tmp_path / "third.json") == expected  # the rendered report too


def test_a_foreign_entry_is_never_trusted(repo, tmp_path):
    folder = tmp_path / "cache"
    expected, _ = run_api(repo, folder)
    stored = entries(folder)
    # another entry's bytes under this key: its header names the other key
    stored[0].write_bytes(stored[1].read_bytes())
    # a well-formed entry (right header and checksum) whose payload would run a command when unpickled
    marker = tmp_path / "ran"
    hostile = pickle.dumps(_Hostile(str(marker)))
    key = stored[2].name
    import hashlib
    stored[2].write_bytes(b"sauverify-cache/1\n" + key.encode() + b"\n" + hashlib.sha256(hostile).hexdigest().encode()
                          + b"\n" + hostile)
    report, cache = run_api(repo, folder)
    assert cache.misses == 2 and not marker.exists()
    assert report == expected


def test_cached_verdicts_name_their_saus_by_id_and_get_the_spec_s_own_back(repo, tmp_path):
    folder = tmp_path / "cache"
    cold, _ = run_api(repo, folder)
    reader = Cache(folder)
    stored = {entry.name: reader.get(entry.name, tuple) for entry in entries(folder)}
    (key, (verdicts, warnings)), = [(key, value) for key, value in stored.items() if value is not None]
    # ids, not SAUs: unpickling a SAU's sympy formulas evaluated them anew, the largest cost of a warm run
    assert [verdict.sau for verdict in verdicts] == [verdict.sau.id for verdict in cold.verdicts]
    assert warnings == ()  # what the analyses found wrong with the input: nothing in the demo
    spec = load_paper(PAPER)
    warm = verify(repo, spec, "repo", cache=(cache := Cache(folder)))
    assert (cache.hits, cache.misses) == (FILES + 1, 0) and warm == cold
    assert all(verdict.sau is sau for verdict, sau in zip(warm.verdicts, spec.saus))
    reader.put(key, (verdicts[::-1], warnings))  # ids that name other SAUs of the spec: never trusted
    assert verify(repo, load_paper(PAPER), "repo", cache=Cache(folder)) == cold
    assert reader.get(key, tuple) == (verdicts, warnings)  # decided again and rewritten
    reader.put(key, verdicts)  # an entry of the shape before warnings were kept with the verdicts: decided again
    assert verify(repo, load_paper(PAPER), "repo", cache=Cache(folder)) == cold
    assert reader.get(key, tuple) == (verdicts, warnings)


class _Hostile:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_the_cache_folder_comes_from_the_environment_then_pyproject_then_the_user_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_FOLDER)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "sauverify"
    assert cache_folder(tmp_path / "configured") == tmp_path / "configured"
    monkeypatch.setenv(ENV_FOLDER, str(tmp_path / "env"))
    assert cache_folder(tmp_path / "configured") == tmp_path / "env"


def test_cache_dir_setting_in_pyproject(repo, tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_FOLDER)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.sauverify]\ncache-dir = ".verify-cache"\n')
    result = subprocess.run([sys.executable, "-m", "verifier.cli", str(repo), "--paper", PAPER, "--format", "json",
                             "-q"], capture_output=True, text=True, cwd=project)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["files_read"] == FILES
    assert len(entries(project / ".verify-cache")) == FILES + 2  # the files, the verdicts, the rendered report


def test_a_bad_cache_dir_setting_is_an_input_error(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.sauverify]\ncache-dir = 3\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--format", "json", "-q"]) == 2


def test_an_unwritable_cache_folder_costs_only_the_cache(repo, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    report, cache = run_api(repo, blocker / "cache")
    assert cache.hits == 0 and report == verify(repo, load_paper(PAPER), "repo")


def test_a_cached_file_is_parsed_only_when_its_tree_is_read(repo, tmp_path):
    from extractors.repository import build_index
    from rules import names

    cache = Cache(tmp_path / "cache")
    first = build_index(repo, names.normalise, cache=cache)
    second = build_index(repo, names.normalise, cache=cache)
    assert list(second.modules) == list(first.modules) and second.trees._parsed == {}  # nothing parsed yet
    key = "tinygpt/train.py"
    assert second.modules[key].code == first.modules[key].code
    assert sorted((p.start.line, p.end.line) for p in second.positions[key].values()) == \
        sorted((p.start.line, p.end.line) for p in first.positions[key].values())
    assert list(second.trees._parsed) == [key]  # only the tree that was read
    assert second.facts == first.facts and second.stubs_by_file == first.stubs_by_file


def run_cli(capsys, *arguments: str) -> tuple[int, str, str]:
    """``verify`` in this process: its exit code, standard output and standard error."""
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_replayed_run_says_the_same_warnings_and_writes_the_same_report(repo, capsys):
    folder = Path(os.environ[ENV_FOLDER])
    (repo / "result").mkdir()  # run outputs: skipped, with a warning
    (repo / "result" / "metrics.json").write_text("{}")
    (repo / "notes.py").write_bytes(b"x = 1\n\xff\n")  # not UTF-8: a warning naming the line
    arguments = (str(repo), "--paper", PAPER, "--format", "sarif")
    cold = run_cli(capsys, *arguments)
    assert cold[0] == 0 and "warning: result/: skipped" in cold[2] and "warning: notes.py:2: not valid UTF-8" in cold[2]
    stored = len(entries(folder))
    warm = run_cli(capsys, *arguments)
    assert warm == cold and len(entries(folder)) == stored
    assert run_cli(capsys, *arguments, "--no-cache") == cold
    quiet = run_cli(capsys, *arguments, "-q")
    assert quiet == (0, cold[1], "")  # --quiet silences the replayed warnings too


def test_an_edited_file_spec_or_option_is_decided_again(repo, tmp_path, capsys):
    spec = Path(shutil.copy(SPEC, tmp_path / "spec.yaml"))
    arguments = (str(repo), "--spec", str(spec), "--format", "json", "-q")
    _, before, _ = run_cli(capsys, *arguments)
    config = repo / "configs" / "train.yaml"
    config.write_text(config.read_text().replace("lr: 3.0e-4", "lr: 1.0e-3"))
    _, edited, _ = run_cli(capsys, *arguments)
    assert edited != before and edited == run_cli(capsys, *arguments, "--no-cache")[1]
    assert json.loads(edited)["dimensions"]["D1"]["claims"][0]["score"] < 1.0
    spec.write_text(spec.read_text().replace("value: 3e-4", "value: 1e-3"))  # the claim now says what the code does
    _, respecified, _ = run_cli(capsys, *arguments)
    assert respecified == run_cli(capsys, *arguments, "--no-cache")[1]
    assert json.loads(respecified)["dimensions"]["D1"]["claims"][0]["score"] == 1.0
    _, only_d2, _ = run_cli(capsys, *arguments, "--dim", "D2")
    assert set(json.loads(only_d2)["dimensions"]) == {"D2"}


def test_the_table_is_not_kept_whole(repo, tmp_path, capsys):
    folder = Path(os.environ[ENV_FOLDER])
    status, _, _ = run_cli(capsys, str(repo), "--paper", PAPER, "-q", "-o", str(tmp_path / "table.txt"))
    assert status == 0 and len(entries(folder)) == FILES + 1  # the files and the verdicts; no rendered report


def test_the_fingerprint_is_remembered_under_the_tool_s_stamp(tmp_path):
    folder = tmp_path / "cache"
    assert Cache(folder).fingerprint() == tool_fingerprint()
    memo = folder / "fingerprint"
    magic, stamp, remembered = memo.read_text().split()
    assert (magic, stamp, remembered) == ("sauverify-fingerprint/1", _tool_stamp(), tool_fingerprint())
    # with the same stamp the remembered value is read back, not computed again (shown with a made-up one)
    memo.write_text(f"{magic} {stamp} {'f' * 64}\n")
    assert Cache(folder).fingerprint() == "f" * 64


@pytest.mark.parametrize("memo", [
    f"sauverify-fingerprint/1 {'0' * 64} {'f' * 64}\n",  # another stamp: a file, the Python or a library changed
    "sauverify-fingerprint/1 torn",
    "\xff\xfe not text",
    f"another-format/1 STAMP {'f' * 64}\n",
])
def test_a_stale_or_damaged_memo_is_computed_again_and_rewritten(tmp_path, memo):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "fingerprint").write_text(memo.replace("STAMP", _tool_stamp()), encoding="utf-8")
    assert Cache(folder).fingerprint() == tool_fingerprint()
    assert (folder / "fingerprint").read_text().split()[1:] == [_tool_stamp(), tool_fingerprint()]


def test_a_path_the_walk_passes_over_changes_the_whole_report_s_key(repo, tmp_path, capsys):
    arguments = (str(repo), "--paper", PAPER, "--format", "json")
    before = run_cli(capsys, *arguments)
    (repo / "results").mkdir()  # a run-output folder: no file in it, but a warning and a skipped path
    after = run_cli(capsys, *arguments)
    assert "warning: results/: skipped" in after[2] and "results/" not in before[2]
    assert after == run_cli(capsys, *arguments, "--no-cache")
    (repo / "notes").mkdir()
    (repo / "notes" / "lr.py").write_text("lr = 0.5\n")
    (repo / "notes").chmod(0o000)  # a folder the walk cannot list: its absence settles nothing
    try:
        unlisted = run_cli(capsys, *arguments)
        if os.access(repo / "notes", os.R_OK):  # root reads it anyway: nothing to compare
            return
        assert "warning: notes/: folder not read" in unlisted[2]
        assert unlisted == run_cli(capsys, *arguments, "--no-cache")
    finally:
        (repo / "notes").chmod(0o755)
