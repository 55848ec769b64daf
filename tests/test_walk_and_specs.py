"""Which files are read, and the registry and spec formats."""

import json

from extractors.walk import is_test_path, walk
from sau.vocabulary import AtomKind
from verifier.specs.papers import registry, resolve
from verifier.specs.project import load_project_spec
from verifier.specs.sabench import load_sabench


def test_walk_skips_outputs_environments_binaries_and_large_files(tmp_path):
    files = {
        "train.py": "x = 1\n", "conf/a.yaml": "a: 1\n", "result/score.json": "{}", "results/x.py": "y = 2\n",
        "outputs/o.py": "", ".git/config.py": "", "venv/lib.py": "", "myenv/pyvenv.cfg": "", "myenv/m.py": "",
        "nb.ipynb": "{}", "data.bin.py": "", "notes.md": "text",
    }
    _write(tmp_path, files)
    (tmp_path / "data.bin.py").write_bytes(b"\x00\x01binary")
    (tmp_path / "big.py").write_text("z = 3\n" * 100)
    found, skipped = walk(tmp_path, max_bytes=500)
    assert [f.relative for f in found] == ["nb.ipynb", "train.py", "conf/a.yaml"]
    assert sorted((s.relative, s.reason.split(" (")[0]) for s in skipped) == [
        ("big.py", "over the size cap"), ("data.bin.py", "binary"),
        ("outputs/", "run outputs or build products, not the implementation"),
        ("result/", "run outputs or build products, not the implementation"),
        ("results/", "run outputs or build products, not the implementation")]


def test_walk_never_follows_links_or_opens_pipes(tmp_path):
    import os

    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "pipe.py")
    found, skipped = walk(tmp_path)
    assert [f.relative for f in found] == ["real.py"]
    assert [(s.relative, s.reason, s.unread) for s in skipped] == [
        ("pipe.py", "not a regular file", True), ("zero.py", "a link (to /dev/zero), not followed", True)]


def test_walk_excludes_by_glob_or_folder_name(tmp_path):
    _write(tmp_path, dict.fromkeys(("a/sam2/x.py", "a/keep.py", "b/train.py"), ""))
    found, _ = walk(tmp_path, exclude=("sam2", "./b/*"))
    assert [f.relative for f in found] == ["a/keep.py"]


def test_a_folder_whose_every_file_the_user_excludes_is_not_warned_about(tmp_path):
    # --exclude 'result/*' (SA-Bench's scores) used to leave the 'result/: skipped: run outputs' warning standing
    _write(tmp_path, dict.fromkeys(("result/scores.py", "train.py", "outputs/b/log.py"), ""))
    found, skipped = walk(tmp_path, exclude=("result/*", "outputs/*.json"))
    assert [f.relative for f in found] == ["train.py"]
    assert [(s.relative, s.reason) for s in skipped] == [
        ("outputs/", "run outputs or build products, not the implementation")]


def _write(root, files):
    """The files ``{relative path: text}`` below ``root``, with their folders."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_test_paths():
    assert is_test_path("tests/test_model.py") and is_test_path("src/test_x.py") and is_test_path("a/tests.py")
    assert not is_test_path("src/testing_utils_model.py") and not is_test_path("contest.py")


def test_registry_holds_the_30_papers_and_the_demo():
    entries = registry()
    assert len(entries) == 31
    assert resolve("ngpt").benchmark_id == "iclr25-008"
    assert resolve("ICLR25-008").slug == "ngpt"
    assert resolve("demo").benchmark_id == "demo-001"


def test_project_spec_value_forms(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "benchmark_id: t\nslug: t\nsaus:\n  - id: t-D1-001\n    dimension: D1\n    atoms:\n"
        "      - {name: lr, value: 1e-4}\n      - {name: steps, value: 100k}\n"
        "      - {name: betas, value: [0.9, 0.95]}\n      - {name: n_layers, values: [24, 36]}\n"
        "      - {name: grid, set: [0.1, 0.5]}\n      - {name: warmup, value: 10%}\n"
        "      - {name: act, value: elu}\n")
    atoms = {a.name: a for a in load_project_spec(spec).saus[0].atoms}
    assert atoms["lr"].values == (0.0001,)
    assert atoms["steps"].values == (100000,)
    assert atoms["betas"].values == ((0.9, 0.95),)
    assert atoms["n_layers"].values == (24, 36)
    assert (atoms["grid"].kind, atoms["grid"].values) == (AtomKind.SET, (0.1, 0.5))
    assert (atoms["warmup"].values, atoms["warmup"].percent) == ((0.1,), True)
    assert atoms["act"].values == ("elu",)


def test_sabench_file_loads_every_dimension(tmp_path):
    path = tmp_path / "sau.json"
    path.write_text(json.dumps({"paper_id": "p", "D1": [{"id": "p-D1-001", "claim": "lr=1e-4", "source": "s"}],
                                "D2": [{"id": "p-D2-001", "claim": "loss", "source": "s"}]}))
    spec = load_sabench(path)
    assert [(s.id, s.dimension) for s in spec.saus] == [("p-D1-001", "D1"), ("p-D2-001", "D2")]
    assert spec.saus[0].atoms[0].values == (0.0001,)
