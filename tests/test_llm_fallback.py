"""The LLM fallback against a real chat-completions server on 127.0.0.1 (tests/chat_server.py), through the real
openai client: routing, prompt injection, answer validation and retry, timeouts, rate limits, budget, batching,
recording and replay, and the regression check of decisions."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import openai
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from chat_server import INJECTION, ChatServer, split_prompt  # noqa: E402
from llm_fallback import prompt  # noqa: E402
from llm_fallback.evidence import EvidenceCollector  # noqa: E402
from llm_fallback.judge import Judge  # noqa: E402
from llm_fallback.regression import assert_decisions_unchanged  # noqa: E402
from llm_fallback.settings import LLMSettings  # noqa: E402
from llm_fallback.store import Recordings, exchange_key  # noqa: E402
from extractors.repository import build_index  # noqa: E402
from rules import names  # noqa: E402
from verifier import cli  # noqa: E402
from verifier.config import ConfigError, load_settings  # noqa: E402
from verifier.run import verify  # noqa: E402
from verifier.specs.project import load_project_spec  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "llm" / "judge"
SPEC = load_project_spec(FIXTURE / "spec.yaml")
MODEL = "judge-model"


def judged(url: str, tmp_path: Path, dimensions=("D1", "D2", "D3", "D4"), **options):
    """Run the fixture with a judge against ``url``; returns (verdicts by SAU id, judge)."""
    settings = LLMSettings(**{"mode": "record", "model": MODEL, "base_url": url, "timeout": 2.0, "retries": 0,
                              "concurrency": 1, "recordings": tmp_path / "rec", **options})
    judge = Judge(settings)
    report = verify(FIXTURE / "repo", SPEC, "judge", dimensions, judge=judge)
    assert report.model == MODEL
    return {v.sau.id: v for v in report.verdicts}, judge


def sau_ids_of(request: dict) -> list[str]:
    return [s["id"] for s in split_prompt(request["messages"])[1]["saus"]]


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_only_unresolved_checkable_saus_go_to_the_judge(tmp_path: Path) -> None:
    with ChatServer() as server:
        verdicts, judge = judged(server.url, tmp_path)
    assert sorted(i for _, body in server.requests for i in sau_ids_of(body)) == ["L-D1-002", "L-D2-001", "L-D3-001"]
    assert judge.stats.routed == {"D1": 1, "D2": 1, "D3": 1, "D4": 0}
    assert (verdicts["L-D1-001"].status, verdicts["L-D1-001"].decided_by) == ("settled", "rule:d1-numerical")
    assert verdicts["L-D1-003"].status == "unresolved" and verdicts["L-D1-003"].reason.startswith("not code-check")
    d2 = verdicts["L-D2-001"]
    assert (d2.score, d2.status, d2.decided_by) == (0.5, "judged", MODEL)
    assert [e.span_ref for e in d2.evidence] == ["model.py:4"]
    assert d2.evidence[0].snippet == "def rms_norm(x, eps=1e-6):"
    assert verdicts["L-D1-002"].findings[0].values[0].outcome == "ambiguous"  # the rules' findings stay


def test_evidence_windows_join_and_config_blocks() -> None:
    index = build_index(FIXTURE / "repo", names.normalise)
    collector = EvidenceCollector(index)
    d2 = next(v for v in verify(FIXTURE / "repo", SPEC, "judge").verdicts if v.sau.id == "L-D2-001")
    first = collector.blocks(d2)[0]
    assert (first.source, first.start, first.end, first.kind, first.name) == ("model.py", 4, 8, "function", "rms_norm")
    # the candidate's two lines and line 4, which names rms_norm, are two lines apart: one block over both
    assert first.why == "candidate: nearest 1 to formula 'g * x / sqrt(mean(x**2) ...; also names rms_norm"
    assert first.text(index).splitlines()[-1] == "8|    return x * torch.rsqrt(scale + eps)"
    config = collector.block_at("configs/train.yaml", 7)
    assert (config.start, config.end, config.kind) == (6, 7, "config")


def test_instructions_inside_the_repository_do_not_reach_the_judge(tmp_path: Path) -> None:
    with ChatServer() as server:
        verdicts, _ = judged(server.url, tmp_path, dimensions=("D2",))
        body = server.requests[0][1]
        instructions, data = split_prompt(body["messages"])
        code = data["code"][0]["code"]
        assert INJECTION in code and "# </data>" in code  # the comment was quoted, closing tag included
        assert INJECTION not in instructions.lower()
        # the same server obeys the text once it is placed among the instructions
        leaked = [body["messages"][0], {"role": "user", "content": body["messages"][1]["content"] + code}]
        client = openai.OpenAI(api_key="x", base_url=server.url, max_retries=0)
        answer = client.chat.completions.create(model=MODEL, messages=leaked).choices[0].message.content
    assert json.loads(answer)["score"] == 1
    assert verdicts["L-D2-001"].score == 0.5 and verdicts["L-D2-001"].reason == "4 code blocks read"


def test_an_invalid_answer_is_retried_once_with_the_error(tmp_path: Path) -> None:
    with ChatServer(script=["malformed"]) as server:
        verdicts, judge = judged(server.url, tmp_path, dimensions=("D2",))
    assert [action for action, _ in server.requests] == ["malformed", "good"]
    retry = server.requests[1][1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "The score is 0.5 {not json"}
    assert retry[-1]["content"].startswith("That answer is invalid: not JSON")
    assert (verdicts["L-D2-001"].status, verdicts["L-D2-001"].score) == ("judged", 0.5)
    assert len(list((tmp_path / "rec").glob("*.json"))) == 2 and judge.stats.calls == 2


@pytest.mark.parametrize("action, message", [
    ("malformed", "not JSON (Expecting value: line 1 column 1 (char 0))"),
    ("off_scale", "score 0.6 is not one of 0, 0.25, 0.5, 0.75, 1"),
    ("bad_file", "evidence names 'no/such_file.py', which is not a file of the repository"),
])
def test_an_answer_invalid_twice_leaves_the_sau_unresolved(tmp_path: Path, action: str, message: str) -> None:
    with ChatServer(default=action) as server:
        verdicts, judge = judged(server.url, tmp_path, dimensions=("D2",))
    verdict = verdicts["L-D2-001"]
    assert len(server.requests) == 2
    # the rules' estimate (a near candidate: 0.75) and reason stay, with the judge's failure added
    assert (verdict.status, verdict.score, verdict.decided_by) == ("unresolved", 0.75, "rule:d2-formula")
    assert verdict.reason.endswith(f"; LLM judge: invalid LLM answer after a retry: {message}")
    assert verdict.reason.startswith("g * x / sqrt(mean(x**2) + eps): no equivalent expression")
    assert judge.stats.failed == {"invalid answer": 1}


def test_a_line_past_the_end_of_a_file_is_refused() -> None:
    index = build_index(FIXTURE / "repo", names.normalise)
    answer = json.dumps({"score": 1, "reasoning": "r", "evidence": [{"file": "model.py", "line": 99}]})
    assert prompt.validate(answer, ["X"], index) == {"X": "evidence names line 99 of model.py, which has 14 lines"}


def test_a_stalled_endpoint_times_out_and_the_run_completes(tmp_path: Path) -> None:
    with ChatServer(script=["stall"], stall_seconds=1.5) as server:
        verdicts, judge = judged(server.url, tmp_path, dimensions=("D1", "D2"), timeout=0.3)
    assert verdicts["L-D1-002"].reason.endswith("; LLM judge: LLM endpoint timed out")
    assert verdicts["L-D1-002"].score == 0.5  # the rules' estimate stays (one ambiguous value: the middle)
    assert verdicts["L-D2-001"].status == "judged"  # the next request was answered
    assert judge.stats.failed == {"endpoint": 1} and judge.stats.judged == 1


def test_rate_limit_then_answer_is_retried_by_the_client(tmp_path: Path) -> None:
    with ChatServer(script=["429", "500"]) as server:
        verdicts, _ = judged(server.url, tmp_path, dimensions=("D2",), retries=2)
    assert [action for action, _ in server.requests] == ["429", "500", "good"]
    assert verdicts["L-D2-001"].status == "judged"


def test_budget_and_batching(tmp_path: Path) -> None:
    with ChatServer() as server:
        verdicts, judge = judged(server.url, tmp_path / "budget", max_calls=1)
    assert len(server.requests) == 1 and judge.stats.failed == {"budget": 2}
    assert verdicts["L-D1-002"].status == "judged"
    assert verdicts["L-D3-001"].reason.endswith("LLM call budget exhausted (--max-llm-calls 1)")
    with ChatServer() as server:
        verdicts, judge = judged(server.url, tmp_path / "batch", batch=3)
    assert len(server.requests) == 1 and sau_ids_of(server.requests[0][1]) == ["L-D1-002", "L-D2-001", "L-D3-001"]
    assert [verdicts[i].status for i in ("L-D1-002", "L-D2-001", "L-D3-001")] == ["judged"] * 3


def test_unreachable_endpoint_leaves_saus_unresolved_and_says_how_many(tmp_path: Path, capsys) -> None:
    code = cli.main(["-q", "--llm", "record", "--base-url", closed_port_url(), "--llm-retries", "0",
                     "--recordings", str(tmp_path / "rec"), "--format", "json", "-o", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    routed = demo_routed()
    assert code == 0 and routed
    n = len(routed)
    assert f"llm: {n} SAUs routed to gpt-4o-mini, 0 judged, {n} left unresolved ({n} endpoint), {n} exchanges" in err
    data = json.loads((tmp_path / "r.json").read_text())
    claims = {c["id"]: c for d in data["dimensions"].values() for c in d["claims"]}
    assert "LLM judge: LLM endpoint unreachable" in claims[routed[0]]["judge_reasoning"]
    assert claims[routed[0]]["status"] == "unresolved"


def demo_routed() -> list[str]:
    """The demo SAUs the rules leave to the judge (unresolved and checkable), in spec order. Derived from a
    rules-only run, so these tests keep holding as rules settle more of the demo."""
    from llm_fallback.routing import needs_judge
    from verifier.cli import DEMO_PAPER, demo_repository
    from verifier.specs.load import load_paper

    report = verify(demo_repository(), load_paper(DEMO_PAPER), "demo")
    return [v.sau.id for v in report.verdicts if needs_judge(v)]


def _demo(tmp_path: Path, mode: str, out: str, *extra: str) -> int:
    return cli.main(["-q", "--llm", mode, "--recordings", str(tmp_path / "rec"), "--format", "json",
                     "-o", str(tmp_path / out), *extra])


def test_record_then_replay_offline_gives_the_same_bytes(tmp_path: Path, monkeypatch, capsys) -> None:
    with ChatServer() as server:
        assert _demo(tmp_path, "record", "recorded.json", "--base-url", server.url) == 0
    recorded = (tmp_path / "recorded.json").read_bytes()
    routed = demo_routed()
    assert json.loads(recorded)["summary"]["judged"] == len(routed) > 0
    assert json.loads(recorded)["model"] == "gpt-4o-mini"
    attempts = []

    def no_network(sock, address):
        attempts.append(address)
        raise OSError("network used during replay")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    assert _demo(tmp_path, "replay", "replayed.json") == 0
    assert _demo(tmp_path, "auto", "auto.json", "--base-url", server.url) == 0  # recordings present: no call
    assert attempts == []
    assert (tmp_path / "replayed.json").read_bytes() == recorded
    assert (tmp_path / "auto.json").read_bytes() == recorded
    files = sorted((tmp_path / "rec").glob("*.json"))
    first = json.loads(files[0].read_text())
    assert len(files) == len(routed) and first["key"] == files[0].stem and first["model"] == "gpt-4o-mini"
    assert first["key"] == exchange_key(first["model"], first["messages"], first["params"])


def test_replay_without_a_recording_is_an_error_naming_the_sau(tmp_path: Path, capsys) -> None:
    assert _demo(tmp_path, "replay", "r.json") == 2
    err = capsys.readouterr().err
    for sau_id in demo_routed():
        assert f"verify: error: replay: no recording for SAU {sau_id}" in err
    assert (tmp_path / "r.json").is_file()  # the run completed


def test_check_decisions_lists_every_changed_decision(tmp_path: Path, capsys) -> None:
    with ChatServer() as server:
        assert _demo(tmp_path, "record", "a.json", "--base-url", server.url,
                     "--save-decisions", str(tmp_path / "decisions.json")) == 0
    assert _demo(tmp_path, "replay", "b.json", "--check-decisions", str(tmp_path / "decisions.json")) == 0
    first = demo_routed()[0]  # with one request at a time, the first request is the first routed SAU
    with ChatServer(script=["full"]) as server:  # the judge now scores that SAU differently
        code = _demo(tmp_path, "record", "c.json", "--base-url", server.url, "--llm-concurrency", "1",
                     "--check-decisions", str(tmp_path / "decisions.json"))
    err = capsys.readouterr().err
    assert code == 1
    changed = [line for line in err.splitlines() if line.startswith("changed: ")]
    assert changed == [f"changed: {first}: score 0.5 -> 1; status judged -> judged; "
                       "decided by gpt-4o-mini -> gpt-4o-mini"]
    assert "verify: 1 decision(s) changed against" in err
    assert_decisions_unchanged(tmp_path / "decisions.json", tmp_path / "b.json")
    with pytest.raises(AssertionError, match=rf"1 decision\(s\) changed.*\n{first}: score 0.5 -> 1"):
        assert_decisions_unchanged(tmp_path / "decisions.json", tmp_path / "c.json")


def test_a_broken_decisions_file_is_an_input_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "d.json").write_text("{}")
    assert cli.main(["-q", "--check-decisions", str(tmp_path / "d.json")]) == 2
    assert "d.json: not a decisions file" in capsys.readouterr().err


def test_llm_settings_from_pyproject(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.sauverify]\nllm = "replay"\nmodel = "m"\nllm-timeout = 5\n'
                                             'llm-batch = 2\nmax-llm-calls = 7\nrecordings = "recs"\n'
                                             'llm-evidence-chars = 2500\n')
    monkeypatch.chdir(tmp_path)
    args = cli.build_parser().parse_args(["--llm-batch", "3"])
    settings = cli.llm_settings(args, load_settings(tmp_path))
    assert (settings.mode, settings.model, settings.timeout, settings.batch, settings.max_calls) == \
        ("replay", "m", 5, 3, 7)
    assert settings.recordings == tmp_path / "recs" and settings.evidence_chars == 2500
    (tmp_path / "pyproject.toml").write_text('[tool.sauverify]\nllm-evidence-chars = "many"\n')
    with pytest.raises(ConfigError, match="llm-evidence-chars must be a positive integer"):
        load_settings(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.sauverify]\nllm-concurrency = 0\n')
    with pytest.raises(ConfigError, match="llm-concurrency must be a positive integer"):
        load_settings(tmp_path)


def test_recordings_key_and_file(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "x"}]
    key = exchange_key("m", messages, {"temperature": 0})
    assert key == exchange_key("m", [{"content": "x", "role": "user"}], {"temperature": 0})
    assert key != exchange_key("m", messages, {"temperature": 1}) != exchange_key("n", messages, {"temperature": 0})
    store = Recordings(tmp_path)
    store.put(key, "m", messages, {"temperature": 0}, ["S-1"], '{"score": 1}')
    assert store.get(key) == '{"score": 1}' and store.get("0" * 64) is None
    text = (tmp_path / f"{key}.json").read_text()
    assert text.startswith('{\n  "key": ') and json.loads(text)["sau_ids"] == ["S-1"]


def test_a_long_function_gives_one_bounded_window(tmp_path: Path) -> None:
    body = "\n".join(f"    step_{i} = {i}" for i in range(100))
    (tmp_path / "long.py").write_text(f"def train():\n{body}\n    return step_0\n")
    index = build_index(tmp_path, names.normalise)
    collector = EvidenceCollector(index)
    block = collector.block_at("long.py", 81)
    assert (block.start, block.end, block.kind, block.name, block.truncated) == (43, 102, "function", "train", True)
    first = collector.block_at("long.py", 10)
    assert (first.start, first.end) == (1, 60)
