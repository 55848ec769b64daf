"""Which of a repository's separate projects is the paper's (``extractors.projects``), and the walk leaving the
others out."""

from pathlib import Path

from extractors.projects import other_projects
from extractors.walk import walk
from sau.vocabulary import Status
from verifier.run import verify
from verifier.specs.project import load_project_spec

CASE = Path(__file__).parent / "fixtures" / "d1" / "two_projects"
FIXTURE = CASE / "repo"


def _repo(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found, _ = walk(root, all_projects=True)
    return [f.relative for f in found]


def _two(extra: dict[str, str], readme: str = "```\ncd repo/ours && bash run.sh\n```\n") -> dict[str, str]:
    return {"README.md": readme, "ours/README.md": "", "ours/run.sh": "python main.py\n",
            "ours/main.py": "x = 1\n", "theirs/requirements.txt": "", "theirs/go.sh": "python bench.py\n",
            "theirs/bench.py": "y = 2\n", **extra}


def test_the_fixture_leaves_out_the_project_the_readme_does_not_name():
    found, skipped = walk(FIXTURE)
    assert not any(f.relative.startswith("kernel_bench/") for f in found)
    assert [(s.relative, s.unread) for s in skipped] == [("kernel_bench/", True)]
    assert skipped[0].reason.startswith("another project's code: the README's commands and links point to "
                                        "paper_code;")
    everything, none = walk(FIXTURE, all_projects=True)
    assert none == [] and "kernel_bench/bench.py" in [f.relative for f in everything]


def test_an_absence_settles_once_the_user_excludes_the_other_project():
    report = verify(FIXTURE, load_project_spec(CASE / "spec.yaml"), "two_projects", exclude=("kernel_bench",))
    warmup = next(v for v in report.verdicts if v.sau.id == "D1-003")
    assert (warmup.score, warmup.status, warmup.drift) == (0.0, Status.SETTLED, "missing")
    assert report.warnings == ()


def test_a_named_project_with_leading_unknown_components_is_chosen(tmp_path):
    relatives = _repo(tmp_path, _two({}))
    assert list(other_projects(tmp_path, relatives)) == ["theirs"]


def test_unsure_when_the_readme_names_no_project_folder(tmp_path):
    relatives = _repo(tmp_path, _two({}, readme="Run `python train.py`.\n") | {"train.py": ""})
    assert other_projects(tmp_path, relatives) == {}


def test_unsure_without_a_readme(tmp_path):
    files = _two({})
    del files["README.md"]
    assert other_projects(tmp_path, _repo(tmp_path, files)) == {}


def test_a_project_the_chosen_code_imports_is_kept(tmp_path):
    relatives = _repo(tmp_path, _two({"ours/main.py": "from benchlib.timer import clock\n",
                                      "theirs/benchlib/__init__.py": "", "theirs/benchlib/timer.py": ""}))
    assert other_projects(tmp_path, relatives) == {}


def test_a_project_the_chosen_launcher_runs_is_kept(tmp_path):
    relatives = _repo(tmp_path, _two({"ours/run.sh": "python main.py\nbash theirs/go.sh\n"}))
    assert other_projects(tmp_path, relatives) == {}


def test_a_shared_module_name_is_no_import_of_the_other_project(tmp_path):
    relatives = _repo(tmp_path, _two({"ours/main.py": "import utils\n", "ours/utils.py": "",
                                      "theirs/utils.py": ""}))
    assert list(other_projects(tmp_path, relatives)) == ["theirs"]


def test_a_launcher_sibling_of_a_nested_project_is_another_project(tmp_path):
    relatives = _repo(tmp_path, {"README.md": "`apps/chat/train.sh`\n", "apps/chat/README.md": "",
                                 "apps/chat/train.sh": "python main.py\n", "apps/chat/main.py": "",
                                 "apps/vision/scripts/run.sh": "python main.py --lr 1\n",
                                 "tools/export.sh": "python x.py\n"})
    assert list(other_projects(tmp_path, relatives)) == ["apps/vision"]


def test_the_root_is_the_paper_project_when_the_readme_names_only_its_own_code(tmp_path):
    files = {"README.md": "```\nbash scripts/train.sh configs/a.py\n```\n", "setup.py": "", "configs/a.py": "",
             "scripts/train.sh": "python train.py\n", "train.py": "from tools.prep import x\n",
             "tools/__init__.py": "", "tools/prep/README.md": "", "tools/prep/__init__.py": "x = 1\n",
             "tools/caption/README.md": "", "tools/caption/caption.py": "", "eval/README.md": "",
             "eval/run.sh": "python vbench.py\n"}
    assert list(other_projects(tmp_path, _repo(tmp_path, files))) == ["eval", "tools/caption"]


def test_no_root_project_without_a_project_file_of_its_own(tmp_path):
    files = {"README.md": "```\nbash scripts/train.sh\n```\n", "scripts/train.sh": "python train.py\n",
             "train.py": "", "eval/README.md": "", "eval/run.py": "", "tools/README.md": "", "tools/t.py": ""}
    assert other_projects(tmp_path, _repo(tmp_path, files)) == {}


def test_a_path_in_the_chosen_projects_own_readme_prose_does_not_bring_in_another_project(tmp_path):
    # READMEs are read for their commands (extractors.launchers), but prose naming another project's file
    # ("compare with theirs/bench.py") is no reference by code: the other project stays out
    files = _two({"ours/README.md": "Compare with theirs/bench.py, which we do not run.\n"})
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found, skipped = walk(tmp_path)
    assert [s.relative for s in skipped] == ["theirs/"]
    assert "ours/README.md" in [f.relative for f in found] and "theirs/bench.py" not in [f.relative for f in found]
