"""D3 live code whose implementation is not there (rules/d3_unimplemented.py): which `if` arms are stubs, and which
calls go into a module the repository does not hold, on small repositories written here."""

from pathlib import Path

from extractors.callgraph.build import build_call_graph
from extractors.repository import build_index
from rules import names
from rules.d3_unimplemented import missing_module, stub_arms

ARMS = '''import logging
import warnings

logger = logging.getLogger(__name__)


def reward(kind, scores):
    out = scores * 0
    if kind == "compiler":
        logger.warning("compiler reward not implemented, using 0")
        out.fill_(0.0)
    elif kind == "exact":
        raise NotImplementedError
    elif kind == "silent":
        out = 0.0
    elif kind == "warned":
        warnings.warn("TODO: real oracle")
        return out
    elif kind == "model":
        out = scores.sum()
    elif kind == "logged":
        logger.info("using the default reward")
    return out
'''


def test_stub_arms_need_a_not_implemented_marker(tmp_path: Path) -> None:
    (tmp_path / "reward.py").write_text(ARMS)
    arms = stub_arms(build_index(tmp_path, names.normalise))
    # "compiler" (a warning saying so, then a constant fill) and "exact" (raise) are stubs, each with its last line;
    # "silent" sets a constant without saying anything, "warned" returns a value, "model" computes, "logged" only
    # reports without a marker: none of those is a stub arm
    assert arms == {("reward.py", 9): 11, ("reward.py", 12): 13}


MAIN = '''from data.generation import generate_dataset
from helpers import smooth
from models.net import build
import numpy


def main():
    print(generate_dataset(10), smooth(1), build(), numpy.ones(2))


if __name__ == "__main__":
    main()
'''


def _missing(tmp_path: Path, exclude: tuple[str, ...] = ()) -> dict[str, str | None]:
    index = build_index(tmp_path, names.normalise, exclude=exclude)
    graph = index.analysis(build_call_graph)
    return {m.text: missing_module(m, graph, index) for ms in graph.mentions.values() for m in ms
            if m.context == "call" and m.file == "scripts/main.py" and m.text not in ("print", "main")}


def test_missing_module_is_one_of_the_repository_layout_that_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "main.py").write_text(MAIN)
    (tmp_path / "scripts" / "helpers.py").write_text("def smooth(x):\n    return x\n")  # beside the script
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "other.py").write_text("X = 1\n")
    got = _missing(tmp_path)
    # data/ (a project folder name) and models/net.py (below a repository folder) are missing; helpers.py sits in the
    # script's folder; numpy is a library
    assert got == {"generate_dataset": "data.generation", "smooth": None, "build": "models.net", "numpy.ones": None}


def test_an_excluded_module_is_not_missing(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "main.py").write_text(MAIN)
    (tmp_path / "scripts" / "helpers.py").write_text("def smooth(x):\n    return x\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "generation.py").write_text("def generate_dataset(n):\n    return list(range(n))\n")
    # the user left data/ out of the run: the module is there, only not read, so nothing is settled on it
    assert _missing(tmp_path, exclude=("data/*",))["generate_dataset"] is None
