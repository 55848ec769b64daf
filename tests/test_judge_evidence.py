"""The judge's evidence comes from what the rules traced (``Verdict.trace``, ``rules.traces``), under a budget of
code characters per SAU, with blocks shared by a batch sent once; and the benchmark's recall measure
(``benchmarks/judge_evidence.py``). Prompts are recorded by a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).parent))

from chat_server import ChatServer, shown_blocks, split_prompt  # noqa: E402
from benchmarks import truth  # noqa: E402
from benchmarks.judge_evidence import parse_ref, probe_repository, recall  # noqa: E402
from extractors.repository import build_index  # noqa: E402
from llm_fallback.evidence import (Block, EvidenceCollector, check_terms, number_terms, statement_names,  # noqa: E402
                                   statement_words, value_terms)
from verifier.cli import demo_repository  # noqa: E402
from llm_fallback.judge import Judge  # noqa: E402
from llm_fallback.settings import LLMSettings  # noqa: E402
from rules import names  # noqa: E402
from verifier.run import verify  # noqa: E402
from verifier.specs.project import load_project_spec  # noqa: E402

TRAIN = '''import argparse

import torch


def build_optimizer(params, lr):
    return torch.optim.Adam(params, lr=lr)


def prepare():
    return list(range(10))


def fit(model, data):
    for batch in data:
        model(batch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 4)
    data = prepare()
    optimizer = build_optimizer(model.parameters(), args.lr)
    fit(model, data)
    return optimizer


if __name__ == "__main__":
    main()
'''
# complete: false leaves each SAU unresolved (the statement says more than its checks), so each goes to the judge
SPEC = '''schema: sauverify-spec/1
benchmark_id: fx-trace
slug: trace_fixture
title: traces for the judge
venue: fixture
saus:
- id: T-D1-001
  dimension: D1
  source: fixture
  statement: Adam with learning rate 3e-4 and a warmup.
  complete: false
  atoms:
  - {name: lr, aliases: [learning_rate], value: 3e-4}
- id: T-D1-002
  dimension: D1
  source: fixture
  statement: The optimizer's learning rate is 3e-4, decayed later.
  complete: false
  atoms:
  - {name: learning_rate, aliases: [lr], value: 3e-4}
- id: T-D4-001
  dimension: D4
  source: fixture
  statement: Data is prepared, then the model is fit, then evaluated.
  complete: false
  steps:
  - {name: prepare data, functions: [prepare]}
  - {name: fit, functions: [fit]}
'''


def fixture(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(TRAIN)
    (tmp_path / "spec.yaml").write_text(SPEC)
    return repo, load_project_spec(tmp_path / "spec.yaml")


def verdicts_of(repo: Path, spec) -> dict:
    return {v.sau.id: v for v in verify(repo, spec, "repo").verdicts}


def test_traces_name_the_consumer_binding_and_step_sites(tmp_path: Path) -> None:
    repo, spec = fixture(tmp_path)
    verdicts = verdicts_of(repo, spec)
    d1 = verdicts["T-D1-001"]
    assert d1.status == "unresolved"
    # the call consuming the value first, then the binding it came from
    assert [(t.ref, t.role) for t in d1.trace] == [("train.py:7", "consumer"), ("train.py:21", "binding")]
    assert d1.trace[1].why == "binds lr; lr matched"
    d4 = verdicts["T-D4-001"]
    steps = [(t.ref, t.why) for t in d4.trace if t.role == "step"]
    assert steps == [("train.py:24", "step 'prepare data' (strong match) from train"),
                     ("train.py:26", "step 'fit' (strong match) from train")]
    # the calls leading from the entry point to the steps: main() under the __main__ block
    assert "train.py:31" in [t.ref for t in d4.trace if t.role == "path"]


def test_the_prompt_shows_traced_lines_first_and_says_why(tmp_path: Path) -> None:
    repo, spec = fixture(tmp_path)
    with ChatServer() as server:
        judge = Judge(LLMSettings(mode="record", model="m", base_url=server.url, retries=0, concurrency=1,
                                  recordings=tmp_path / "rec"))
        verify(repo, spec, "repo", judge=judge)
    requests = {sau: (body, blocks) for _, body in server.requests
                for sau, blocks in shown_blocks(body["messages"]).items()}
    body, blocks = requests["T-D1-001"]
    _, data = split_prompt(body["messages"])
    first = blocks[0]
    # build_optimizer, whole, first; the program's functions after it (prepare, fit) join it, two lines away
    assert (first["file"], first["start_line"], first["end_line"]) == ("train.py", 6, 16)
    assert first["why"] == "consumer: consumes the binding; lr matched; also program: runs prepare"
    assert data["saus"][0]["code"][0] == f"F1:6-16 {first['why']}"
    binding = blocks[1]
    # two lines from the binding, the line naming lr (args.lr) and the rest of main, which the entry point runs
    assert (binding["start_line"], binding["end_line"]) == (19, 27)
    assert binding["why"] == "binding: binds lr; lr matched; also names lr"
    assert (blocks[2]["start_line"], blocks[2]["end_line"], blocks[2]["why"]) == (30, 31, "program: top-level call")
    # the excerpt of train.py holds exactly the lines of the ranges, numbered, "..." where lines are left out
    code = data["code"][0]["code"].split("\n")
    assert code[:2] == ["6|def build_optimizer(params, lr):", "7|    return torch.optim.Adam(params, lr=lr)"]
    assert code[11:14] == ["...", "19|def main():", "20|    parser = argparse.ArgumentParser()"]
    assert code[-3:] == ["...", '30|if __name__ == "__main__":', "31|    main()"]
    _, d4_blocks = requests["T-D4-001"]
    shown = set().union(*(b["lines"] for b in d4_blocks))
    assert {24, 26, 31} <= shown


def test_the_budget_keeps_the_most_decisive_blocks(tmp_path: Path) -> None:
    repo, spec = fixture(tmp_path)
    d1 = verdicts_of(repo, spec)["T-D1-001"]
    index = build_index(repo, names.normalise)
    roomy = EvidenceCollector(index, 100_000).blocks(d1)
    tight = EvidenceCollector(index, 100).blocks(d1)
    assert sum(len(b.text(index)) for b in tight) <= 100
    # the consumer (the most decisive place) is kept; the binding's range does not fit
    assert [(b.start, b.end, b.why) for b in tight] == [(6, 7, "consumer: consumes the binding; lr matched")]
    # with room, the program the entry point runs joins them (prepare and fit beside build_optimizer, main whole)
    assert [(b.start, b.end) for b in roomy] == [(6, 16), (19, 27), (30, 31)]
    # no two blocks share a line
    lines = [(b.source, n) for b in roomy for n in range(b.start, b.end + 1)]
    assert len(lines) == len(set(lines))


def test_blocks_shared_by_a_batch_are_sent_once(tmp_path: Path) -> None:
    repo, spec = fixture(tmp_path)
    with ChatServer() as server:
        judge = Judge(LLMSettings(mode="record", model="m", base_url=server.url, retries=0, concurrency=1, batch=2,
                                  recordings=tmp_path / "rec"))
        verdicts = {v.sau.id: v for v in verify(repo, spec, "repo", ("D1",), judge=judge).verdicts}
    assert len(server.requests) == 1
    _, data = split_prompt(server.requests[0][1]["messages"])
    # one excerpt per file; a line both SAUs need is sent once
    assert [excerpt["file"] for excerpt in data["code"]] == ["train.py"]
    numbers = [line.split("|")[0] for line in data["code"][0]["code"].split("\n") if line != "..."]
    assert len(numbers) == len(set(numbers))
    shown = shown_blocks(server.requests[0][1]["messages"])
    first, second = (set().union(*(b["lines"] for b in shown[sau])) for sau in ("T-D1-001", "T-D1-002"))
    assert {7, 21} <= first & second  # the lr binding and its consumer are evidence for both SAUs
    assert len(numbers) < len(first) + len(second)
    assert {v.status for v in verdicts.values()} == {"judged"}


def test_recall_counts_a_deciding_line_and_every_deciding_line() -> None:
    assert parse_ref("src/a.py:3-5") == ("src/a.py", 3, 5) and parse_ref("a.py:7") == ("a.py", 7, 7)
    assert parse_ref("README") is None
    assert recall(("a.py:3-5", "b.py:1"), {"a.py": {4}}) == (True, False)
    assert recall(("a.py:3-5", "b.py:1"), {"a.py": {3, 4, 5}, "b.py": {1}}) == (True, True)
    assert recall(("a.py:3-5",), {"b.py": {3}}) == (False, False)
    assert recall((), {"a.py": {1}}) == (False, False)


DECODE = '''import torch


def decode(logits):
    probs = logits.softmax(-1)
    return probs.argmax(-1)


def schedule(step):
    return min(1.0, step / 500)


def main():
    model = torch.nn.Linear(4, 4)
    for step in range(1000):
        scale = schedule(step)
        model(torch.ones(4) * scale)
    return decode(model(torch.ones(4)))
'''
TERMS_SPEC = '''schema: sauverify-spec/1
benchmark_id: fx-terms
slug: terms_fixture
title: terms for the judge
venue: fixture
saus:
- id: W-D1-001
  dimension: D1
  source: fixture
  statement: Linear warmup over the first 500 steps.
  complete: false
  atoms:
  - {name: warmup_steps, value: 500}
- id: W-D2-001
  dimension: D2
  source: fixture
  statement: Answers are decoded greedily with argmax over the vocabulary.
  complete: false
  glossary:
    p: {meaning: token probabilities, code_names: [probs]}
    y: {meaning: the answer tokens, code_names: [tokens]}
  formulas: ["y == argmax(p)"]
  mechanism: [decode]
'''


def test_lines_naming_the_saus_terms_numbers_and_words_follow_the_traced_places(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(DECODE)
    (tmp_path / "spec.yaml").write_text(TERMS_SPEC)
    verdicts = verdicts_of(repo, load_project_spec(tmp_path / "spec.yaml"))
    collector = EvidenceCollector(build_index(repo, names.normalise))
    d1, d2 = verdicts["W-D1-001"], verdicts["W-D2-001"]
    # the claimed number as code writes it, and the statement's content words (no function words, no `the`)
    assert value_terms(d1.sau.checks) == ["500"]
    assert statement_words(d1.sau.statement) == ["warmup"]
    assert statement_words(d2.sau.statement) == ["answers", "decoded", "greedily", "argmax", "vocabulary"]
    assert (10, "names 500") in [(line, why) for _, line, _, _, why in collector.anchors(d1)]
    # the candidate first; then the lines naming a term of the checks (decode, at its definition and its call in
    # main; argmax, a function the formula applies), those inside a traced function and near other such lines
    # first; then the functions named after the mechanism, which only locate code; then the program the entry point
    # runs (main, the functions it calls), whole functions, only while budget remains; then names of functions
    assert [(line, why) for _, line, _, _, why in collector.anchors(d2)] == [
        (6, "candidate: equivalent for formula 'y == argmax(p)'"), (6, "the rules' evidence (expression)"),
        (4, "names decode"), (6, "names argmax"), (18, "names decode"),
        (4, "mechanism: decode is named after the mechanism"), (13, "mechanism: main is named after the mechanism"),
        (13, "program: runs main"), (9, "program: runs schedule"), (4, "program: runs decode"),
        (4, "function decode")]
    assert [(b.start, b.end, b.why) for b in collector.blocks(d2)] == [
        (4, 10, "candidate: equivalent for formula 'y == argmax(p)'; also names decode"),
        (15, 18, "names decode; also program: runs main"), (13, 14, "mechanism: main is named after the mechanism")]


def test_claimed_numbers_are_found_as_code_writes_them() -> None:
    atoms = [SimpleNamespace(values=(3e-4, 512, (0.9, 0.95), 1, True))]
    assert value_terms({"atoms": atoms}) == ["0.0003", "3e-4", "3e-04", "512", "0.9", "9e-1", "9e-01", "0.95",
                                              "9.5e-1", "9.5e-01"]


NET = '''import torch


class Spectral(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(width, width))

    def forward(self, x):
        return x @ self.weight


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.spectral = Spectral(8)

    def forward(self, x):
        return self.spectral(x)
'''
RUN = '''import torch

from model import Net


def main():
    net = Net()
    criterion = torch.nn.MSELoss()
    x = torch.ones(2, 8)
    loss = criterion(net(x), x)
    loss.backward()


if __name__ == "__main__":
    main()
'''
ABSENT_SPEC = '''schema: sauverify-spec/1
benchmark_id: fx-absent
slug: absent_fixture
title: absent claims
venue: fixture
saus:
- id: A-D1-001
  dimension: D1
  source: fixture
  statement: The network stacks 4 residual blocks.
  complete: false
  atoms:
  - {name: n_blocks, aliases: [num_blocks], value: 4}
'''


def test_the_program_the_entry_point_runs_fills_the_budget(tmp_path: Path) -> None:
    # The claimed element is absent: no line names the SAU's terms, and what replaces it (one Spectral layer, an
    # MSE loss) is reached only through the program the entry point runs, which fills the budget left.
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "model.py").write_text(NET)
    (repo / "train.py").write_text(RUN)
    (tmp_path / "spec.yaml").write_text(ABSENT_SPEC)
    d1 = verdicts_of(repo, load_project_spec(tmp_path / "spec.yaml"))["A-D1-001"]
    assert d1.status == "unresolved"
    index = build_index(repo, names.normalise)
    anchors = EvidenceCollector(index).anchors(d1)
    program = [(source, line, end, why) for source, line, end, _, why in anchors if why.startswith("program:")]
    # breadth first from the entry points (the script's top-level call, its __main__ block): main, then the class
    # it builds (its forward and __init__), then the class that one builds
    assert program == [("train.py", 14, 14, "program: top-level call"), ("train.py", 6, 11, "program: runs main"),
                       ("train.py", 14, 15, "program: entry point"), ("model.py", 18, 19, "program: runs forward"),
                       ("model.py", 14, 16, "program: runs __init__"), ("model.py", 9, 10, "program: runs forward"),
                       ("model.py", 5, 7, "program: runs __init__")]
    blocks = EvidenceCollector(index).blocks(d1)
    shown = {(b.source, n) for b in blocks for n in range(b.start, b.end + 1)}
    assert ("model.py", 16) in shown and ("train.py", 8) in shown  # Spectral(8), the MSE loss
    assert [(b.source, b.start, b.end) for b in blocks] == [("train.py", 6, 15), ("model.py", 14, 19),
                                                             ("model.py", 5, 10)]
    # the budget holds: with 60 characters only the top-level call fits
    tight = EvidenceCollector(index, 60).blocks(d1)
    assert [(b.source, b.start, b.end, b.why) for b in tight] == [("train.py", 14, 15, "program: top-level call")]


def test_terms_come_from_glossary_symbols_formula_functions_code_names_and_numbers() -> None:
    checks = {"formulas": ["h == swiglu(u, nu) @ W_o"], "glossary": {"W_o": {"meaning": "out", "code_names": ["proj"]},
                                                                     "h": {"meaning": "hidden", "code_names": []}}}
    assert check_terms(checks) == ["swiglu", "W_o", "proj"]  # `h` is one letter, `u` and `nu` are not functions
    # code-shaped words of a statement; acronyms and plain words are not names
    assert statement_names("Each vector (s_qk, alpha_A) of nGPT, W_oMLP and the MLP is a learnable scalar.") == [
        "s_qk", "alpha_A", "nGPT", "W_oMLP"]
    # numbers of the checks written as strings (a step keyword, a baseline alias) and of the statement; sizes as
    # written; single digits are on too many lines to say anything
    steps = {"steps": [{"name": "cost", "keywords": ["512", "1e6", "cost"]}]}
    assert number_terms(steps, "Models of 2B to 27B, accuracy 0.95 over 3 seeds, 100k steps at rank 129") == [
        "512", "1e+06", "1000000.0", "1e6", "1e06", "2b", "27b", "0.95", "9.5e-1", "9.5e-01", "100k", "129"]


VARIANTS = '''def variant(name):
    if name == "g1_additive":
        return dict(mode="additive", act="silu")
    return dict(mode="mult", act="sigmoid")


def other():
    additive = 1
    return additive


def sample(shape):
    """Draws the additive noise."""
    noise = shape * 2
    return noise
'''


def test_term_lines_weigh_the_terms_near_them_and_find_parts_of_names(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "variants.py").write_text(VARIANTS)
    collector = EvidenceCollector(build_index(repo, names.normalise))
    ranked = collector._term_lines(["additive", "silu"], ["noise"], set())
    # `"g1_additive"` names additive (a part of a snake_case name); it and the line below, which also names the rare
    # silu, weigh most; then the docstring naming additive beside lines naming noise; then the lone mentions; then
    # the lines naming only a statement word
    assert [(tier, line, named) for tier, _, line, named in ranked] == [
        (0, 2, ["additive"]), (0, 3, ["additive", "silu"]), (0, 13, ["additive", "noise"]), (0, 8, ["additive"]),
        (0, 9, ["additive"]), (1, 14, ["noise"]), (1, 15, ["noise"])]
    # inside a function the rules traced a line weighs twice as much
    inside = {("variants.py", 8)}
    assert [line for _, _, line, _ in collector._term_lines(["additive", "silu"], [], inside)][:3] == [2, 3, 8]
    # a line of a docstring is shown by the code after the docstring (three lines, within the function)
    anchors = {line: at for line in (3, 13) for at in [collector._code_at("variants.py", line)]}
    assert anchors == {3: (3, 1), 13: (15, 3)}
    assert collector.block_at("variants.py", 15, 3) == Block("variants.py", 13, 15, "function", "sample", True)


def test_what_is_shown_does_not_depend_on_the_labels(tmp_path: Path) -> None:
    # the benchmark reads the labels only after the prompts are recorded: two labellings of the same SAU with
    # different evidence lines get the same prompt, and only their recall differs
    runs = tmp_path / "runs"
    shutil.copytree(demo_repository(), runs / "cfg" / "demo" / "repo")

    def label(evidence: tuple[str, ...]) -> truth.Label:
        return truth.Label("cfg", "demo", "demo-D4-001", "D4", 1.0, "none", evidence, "trace", True, "", {}, "one")

    first, second = (probe_repository(runs, "cfg", "demo", {"demo-D4-001": label(evidence)}, {"batch": 1}, None)
                     for evidence in (("train.py:1",), ("model.py:1-3",)))
    assert len(first) == len(second) == 1
    assert first[0].ours == second[0].ours and first[0].chars == second[0].chars
