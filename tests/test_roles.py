"""The syntactic roles the D3 and D4 rules read (issue 16): each mention's context from the call graph's scanner,
the role D3 gives it, the bounded manifest reader, and the call roles of D4, on small repositories written here."""

from pathlib import Path

import pytest

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import UNRESOLVED, CallSite
from extractors.repository import build_index
from rules import names, roles
from rules.d3_manifests import FIRST_LINES, launched_manifests
from rules.d3_protocol import ROLE, TRACE, UNKNOWN, literal_constants, role
from rules.d4_ordering import site_role, step_roles

SOURCE = '''import json
from datasets import load_dataset

PALETTE = b"\\x00\\x01"
ROOT = "data/tldr"
REPORTED = {"ppl": [12.0, 11.5]}


def main(parser):
    parser.add_argument("--data", default="tldr", help="the tldr split")
    tldr = load_dataset("tldr", split="train")
    scores = {"ppl": compute(tldr)}
    results = {}
    results["acc"] = 0.5
    plot(REPORTED["ppl"])
    use(PALETTE)
    return scores, results


if __name__ == "__main__":
    main(None)
'''


def _contexts(tmp_path: Path) -> dict[tuple[str, int, str], str]:
    (tmp_path / "run.py").write_text(SOURCE)
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    return {(m.text, m.line, m.kind): m.context for ms in graph.mentions.values() for m in ms}


def test_mention_contexts(tmp_path: Path) -> None:
    got = _contexts(tmp_path)
    assert got[("PALETTE", 4, "binding")] == "bind:literal"
    assert got[("data/tldr", 5, "string")] == "literal"
    assert got[("ppl", 6, "string")] == "key:literal"
    assert got[("tldr", 10, "string")] == "arg:parser.add_argument=default"
    assert got[("tldr", 11, "binding")] == "bind:call:load_dataset"  # the callee as written
    assert got[("tldr", 11, "string")] == "arg:load_dataset"
    assert got[("load_dataset", 11, "name")] == "call"
    assert got[("ppl", 12, "string")] == "key:computed"
    assert got[("acc", 14, "string")] == "key:literal"
    assert got[("ppl", 15, "string")] == "arg:plot"
    assert got[("PALETTE", 16, "name")] == "arg:use"


def test_roles_of_mentions(tmp_path: Path) -> None:
    (tmp_path / "run.py").write_text(SOURCE)
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    constants = literal_constants(index)
    assert "PALETTE" in constants and "ROOT" in constants and "tldr" not in constants
    by = {(m.text, m.line, m.kind): m for ms in graph.mentions.values() for m in ms}
    assert role("datasets", by[("tldr", 11, "string")], constants) == ROLE  # handed to a loader
    assert role("datasets", by[("tldr", 10, "string")], constants) == ROLE  # the argparse default
    assert role("datasets", by[("PALETTE", 16, "name")], constants) == TRACE  # a constant handed to no loader
    assert role("datasets", by[("data/tldr", 5, "string")], constants) == UNKNOWN  # a path whose use is not told
    assert role("metrics", by[("ppl", 6, "string")], constants) == TRACE  # a table of written-out numbers
    assert role("metrics", by[("ppl", 12, "string")], constants) == ROLE  # a key bound to a computed value
    assert role("metrics", by[("acc", 14, "string")], constants) == TRACE  # a key bound to a literal
    assert role("metrics", by[("ppl", 15, "string")], constants) == TRACE  # data handed to a plot


def test_manifest_rows_are_bounded(tmp_path: Path) -> None:
    rows = [f'{{"video": "clips/{n}.mp4"}}' for n in range(FIRST_LINES)] + ['{"video": "webvid/late.mp4"}']
    (tmp_path / "annotations.jsonl").write_text("\n".join(rows) + "\n")
    (tmp_path / "train.py").write_text("import sys\n\nif __name__ == '__main__':\n    print(sys.argv)\n")
    (tmp_path / "run.sh").write_text("python train.py --anno annotations.jsonl\n")
    manifests = build_index(tmp_path, names.normalise).analysis(launched_manifests)
    assert [(m.file, m.launcher.ref) for m in manifests] == [("annotations.jsonl", "run.sh:1")]
    assert len(manifests[0].lines) == FIRST_LINES
    assert all("webvid" not in row.text for row in manifests[0].lines)


@pytest.mark.parametrize("target, role_name", [
    ("loss.backward", "backward"), ("<expr>.backward", "backward"), ("self.optimizer.step", "optimizer_step"),
    ("actor_optim.step", "optimizer_step"), ("self.lr_scheduler.step", "scheduler_step"), ("env.step", None),
    ("optimizer.zero_grad", "zero_grad"), ("torch.nn.utils.clip_grad_norm_", "clip"),
    ("gradio.Video", None), ("PPOTrainer", None), ("self.model.model", "forward"), ("model.forward", "forward"),
    ("Model", None)])
def test_call_roles(target: str, role_name: str | None) -> None:
    assert site_role(CallSite.at("t.py", 1, "t", None, target, UNRESOLVED)) == role_name


def test_steps_ask_for_roles() -> None:
    assert step_roles({"name": "gradient clipping", "keywords": [], "functions": []}) == {"clip"}
    assert step_roles({"name": "noisy target action", "keywords": ["noise_clip"], "functions": ["clip"]}) == set()
    assert step_roles({"name": "AdamW update", "keywords": ["optimizer.step"], "functions": []}) == {"optimizer_step"}
    assert step_roles({"name": "forward pass", "keywords": ["lora_A"], "functions": []}) == {"forward"}
    assert step_roles({"name": "forward diffusion", "keywords": ["noise"], "functions": []}) == set()
    assert roles.order_breakers() == (("backward", "optimizer_step", "zero_grad"),)
