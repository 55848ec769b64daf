"""Faults that must cost only their units (issue 17): a broken LLM answer, an unusable recording, an --output that
cannot be written, Ctrl-C, control characters on the terminal. Each asserts the verdicts, the message and the exit
code, with a real local HTTP server for the endpoint (tests/chat_server.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from chat_server import ChatServer  # noqa: E402
from test_llm_fallback import demo_routed  # noqa: E402
from verifier import cli  # noqa: E402


def demo(tmp_path: Path, mode: str, out: str, *extra: str) -> int:
    return cli.main(["-q", "--llm", mode, "--recordings", str(tmp_path / "rec"), "--format", "json",
                     "-o", str(tmp_path / out), "--llm-retries", "0", *extra])


@pytest.mark.parametrize("action, says", [
    ("empty", "LLM endpoint answered with a body that is not JSON (Expecting value"),
    ("html", "LLM endpoint answered with a body that is not JSON (an HTML page or plain text)"),
    ("cut", "LLM endpoint answered with a body that is not JSON (Unterminated string"),
    ("no_choices", "LLM endpoint answered without message content"),
    ("null_content", "LLM endpoint answered without message content"),
])
def test_http_200_without_a_completion_leaves_saus_unresolved(tmp_path, capsys, action, says):
    """Issue input 10 and siblings: the SAUs stay unresolved with the reason, the report is written, exit 0."""
    with ChatServer(default=action) as server:
        code = demo(tmp_path, "record", "report.json", "--base-url", server.url)
    err = capsys.readouterr().err
    assert code == 0, err
    data = json.loads((tmp_path / "report.json").read_text())
    claims = {c["id"]: c for dim in data["dimensions"].values() for c in dim["claims"]}
    routed = demo_routed()
    assert routed and all(claims[sau]["status"] == "unresolved" for sau in routed)
    assert all(f"LLM judge: {says}" in claims[sau]["judge_reasoning"] for sau in routed)
    assert f"warning: {says}" in err and f"{len(routed)} left unresolved ({len(routed)} endpoint)" in err
    assert not (tmp_path / "rec").exists() or not list((tmp_path / "rec").iterdir())  # nothing recorded


def recorded(tmp_path: Path) -> list[Path]:
    with ChatServer() as server:
        assert demo(tmp_path, "record", "first.json", "--base-url", server.url) == 0
    return sorted((tmp_path / "rec").glob("*.json"))


@pytest.mark.parametrize("damage, says", [
    (lambda text: text[: len(text) // 2], "unusable recording: not JSON"),
    (lambda text: "", "unusable recording: empty"),
    (lambda text: b"\xff\xfe\x00binary", "unusable recording: 'utf-8' codec can't decode"),
    (lambda text: text.replace('"response": {', '"response": "oops", "was": {', 1), "unusable recording: not a "
                                                                                  "recording of exchange"),
    (lambda text: text.replace('"response": {', '"response": null, "was": {', 1), "unusable recording: not a "
                                                                                  "recording of exchange"),
    (lambda text: json.dumps({**json.loads(text), "response": {"content": 3}}), "unusable recording: not a "
                                                                                 "recording of exchange"),
    (lambda text: "[" * 100000, "unusable recording: "),
])
def test_unusable_recording_in_replay_is_an_error_naming_sau_and_file(tmp_path, capsys, damage, says):
    """Issue input 14 and siblings: truncated, empty, binary, a response that is a string, null, or whose content is
    not text, JSON nested past the parser: exit 2 naming the SAU and the file; the run completes (report written)."""
    files = recorded(tmp_path)
    target = files[0]
    sau = json.loads(target.read_text())["sau_ids"][0]
    changed = damage(target.read_text())
    if isinstance(changed, bytes):
        target.write_bytes(changed)
    else:
        target.write_text(changed)
    capsys.readouterr()
    code = demo(tmp_path, "replay", "replayed.json")
    err = capsys.readouterr().err
    assert code == 2
    assert f"verify: error: replay: unusable recording for SAU {sau}: {target}: {says}" in err
    data = json.loads((tmp_path / "replayed.json").read_text())
    claims = {c["id"]: c for dim in data["dimensions"].values() for c in dim["claims"]}
    assert claims[sau]["status"] == "unresolved"
    assert sum(c["status"] == "judged" for c in claims.values()) == len(files) - 1  # the others still judged


def test_output_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    """Issue input 13: a destination on a read-only file system is refused before any analysis (exit 2, one line);
    one that fails only when written (/dev/full) is exit 2 with one line naming it, after the run."""
    started = time.perf_counter()
    code = cli.main(["-q", "--output", "/proc/sauverify-report.json"])
    err = capsys.readouterr().err
    assert code == 2 and err.splitlines() == [
        "verify: error: /proc: --output: cannot write there (No such file or directory)"]
    assert time.perf_counter() - started < 2  # refused before the analysis
    code = cli.main(["-q", "--format", "json", "--output", "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2 and err.splitlines() == [
        "verify: error: /dev/full: cannot write the report: No space left on device"]


def test_ctrl_c_is_one_line_and_exit_130_without_partial_output(tmp_path):
    """Issue input 15: SIGINT mid-run prints one line, exits 130 and leaves no report file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for number in range(1500):  # enough files that the run is still reading when the signal comes
        (repo / f"m{number}.py").write_text(f"def f{number}(x):\n    return x * {number}\n" * 50)
    out = tmp_path / "report.json"
    # no cache: a cache an earlier run filled would answer at once and end the run before the signal
    process = subprocess.Popen([sys.executable, "-m", "verifier.cli", str(repo), "--paper", "demo-001", "-q",
                                "--no-cache", "--format", "json", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                               # a shell running the tests in the background ignores SIGINT, and children inherit it
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # past the imports (an interrupt there is Python's own): the parsers' native modules are loaded, then a while
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "tree_sitter_python" not in Path(f"/proc/{process.pid}/maps").read_text():
        time.sleep(0.05)
    time.sleep(3)
    assert process.poll() is None
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=180)  # a loaded machine may be slow to reach the next file
    assert process.returncode == 130, stderr
    assert stderr == "verify: interrupted\n" and stdout == ""
    assert not out.exists()


def test_control_characters_from_the_repository_reach_the_terminal_escaped(tmp_path, capsys, monkeypatch):
    """Issue input 17: an escape sequence in a file name and a warning reaches stderr and the table escaped."""
    monkeypatch.chdir(tmp_path)
    repo = Path("repo\x1b[31m")
    repo.mkdir()
    (repo / "train.py").write_text("lr = 3e-4\nprint(lr)\n")
    (repo / "bad\x1b]0;pwned\x07.py").write_text("print 'x'\n")
    code = cli.main([str(repo), "--paper", "demo-001", "--dim", "D1"])
    captured = capsys.readouterr()
    assert code == 0
    assert "\x1b" not in captured.err and "\x07" not in captured.err
    assert "warning: bad\\x1b]0;pwned\\x07.py:1: syntax error" in captured.err
    assert "repo\\x1b[31m" in captured.out


def test_control_and_bidi_characters_reach_the_html_page_escaped(tmp_path, capsys, monkeypatch):
    """Sibling (new-user test): the HTML page shows a file name's escape sequence and right-to-left override as
    escapes, as the table does; a code line keeps its tabs."""
    monkeypatch.chdir(tmp_path)
    repo = Path("repo")
    repo.mkdir()
    (repo / "train.py").write_text("lr = 3e-4\nif lr:\n\tprint(lr)  # \u202eevil\n")
    (repo / "bad\x1b]0;pwned\x07\u202e.py").write_text("print 'x'\n")
    code = cli.main([str(repo), "--paper", "demo-001", "--dim", "D1", "--format", "html", "--output", "r.html"])
    capsys.readouterr()
    page = Path("r.html").read_text(encoding="utf-8")
    assert code == 0
    assert "\x1b" not in page and "\x07" not in page and "\u202e" not in page
    assert "bad\\x1b]0;pwned\\x07\\u202e.py" in page
    assert "\tprint(lr)  # \\u202eevil" in page


SPEC_HEAD = "schema: sauverify-spec/1\nbenchmark_id: fx-spec\nslug: spec\ntitle: t\nvenue: v\n"
SAU = "saus:\n- id: S-D1-001\n  dimension: D1\n  atoms:\n  - {name: lr, value: 0.1}\n"
D2_SAU = ("saus:\n- id: S-D2-001\n  dimension: D2\n  formulas: ['y == 2 * x']\n"
          "  glossary: {y: {meaning: out, code_names: [y]}, x: {meaning: in, code_names: [x]}}\n"
          "  mechanism: [double]\n")


@pytest.mark.parametrize("text, message, line", [
    (SPEC_HEAD + "colour: blue\n" + SAU,
     "unknown top-level key 'colour' (known: schema, benchmark_id, slug, title, venue, saus)", 6),
    (SPEC_HEAD + "titel: t\n" + SAU,
     "unknown top-level key 'titel' (did you mean 'title'?) (known: schema, benchmark_id, slug, title, venue, saus)",
     6),
    (SPEC_HEAD + "slug: again\n" + SAU, "key 'slug' given twice (first at line 3)", 6),
    (SPEC_HEAD + SAU + "  atoms: []\n", "key 'atoms' given twice (first at line 9)", 11),
    (SPEC_HEAD.replace("sauverify-spec/1", "sauverify-spec/2") + SAU,
     "unknown schema 'sauverify-spec/2': this verifier reads sauverify-spec/1", 1),
    (SPEC_HEAD + "\0\0\0" + SAU, "binary content, not a YAML spec (a NUL byte)", 6),
    (SPEC_HEAD + SAU + "\xff\xfe", "binary content, not a YAML spec (bytes that are not UTF-8)", 11),
    (SPEC_HEAD + SAU + "  uncovered: warmup shape\n",
     "S-D1-001: uncovered must be a list of short phrases, one per element no check covers", 7),
    (SPEC_HEAD + SAU + "  uncovered: ['']\n",
     "S-D1-001: uncovered must be a list of short phrases, one per element no check covers", 7),
    (SPEC_HEAD + SAU + "  uncovered: [warmup shape]\n  complete: true\n",
     "S-D1-001: a SAU with uncovered elements is not complete (drop complete: true)", 7),
    (SPEC_HEAD + SAU + "  outside_code: 8 GPUs\n",
     "S-D1-001: outside_code must be a list of short phrases, one per element no code could show", 7),
    (SPEC_HEAD + SAU + "  uncovered: [8 GPUs]\n  outside_code: [8 GPUs]\n",
     "S-D1-001: '8 GPUs' is both uncovered (code could show it) and outside_code (no code could)", 12),
    (SPEC_HEAD + SAU + "  checkable: false\n  note: hardware\n  outside_code: [8 GPUs]\n",
     "S-D1-001: outside_code lists elements of a checkable claim; a claim code cannot show at all is checkable: "
     "false with a note", 13),
    (SPEC_HEAD + SAU + "  statment: typo\n",
     "S-D1-001: unknown key(s) for a D1 SAU: statment (did you mean 'statement'?)", 11),  # the key's own line
    (SPEC_HEAD + D2_SAU + "  scope: GRU\n", "S-D2-001: scope must be a non-empty list of {name, aliases}", 7),
    (SPEC_HEAD + D2_SAU + "  scope: [{name: ' '}]\n",
     "S-D2-001: each of scope needs a name and optional aliases (list)", 12),
    (SPEC_HEAD + D2_SAU + "  scope: [{name: GRU, alias: [gru]}]\n",
     "S-D2-001: an element of scope: unknown key(s) alias (did you mean 'aliases'?) (quote values that hold commas or "
     "braces)", 12),
    (SPEC_HEAD + SAU.replace("value: 0.1", "valu: 0.1"),
     "S-D1-001: atom 'lr': unknown key(s) valu (did you mean 'value'?) (quote values that hold commas or braces)",
     10),
])
def test_bad_spec_is_a_spec_error_naming_file_and_line(tmp_path, capsys, text, message, line):
    """Issue input 18 and siblings: an unknown top-level key, a duplicated key (top level and inside a SAU), an
    unknown schema version, binary content (NUL bytes, non-UTF-8 bytes): exit 2, one line, file and line named."""
    from verifier.specs.errors import SpecError
    from verifier.specs.project import load_project_spec

    spec = tmp_path / "spec.yaml"
    spec.write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    with pytest.raises(SpecError) as caught:
        load_project_spec(spec)
    assert (caught.value.file, caught.value.line, caught.value.message) == (str(spec), line, message)
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("x = 1\n")
    assert cli.main([str(tmp_path / "repo"), "--spec", str(spec), "-q"]) == 2
    assert capsys.readouterr().err == f"verify: error: {spec}:{line}: {message}\n"


def test_internal_error_of_verify_is_not_decisions_changed(tmp_path, capsys, monkeypatch):
    """Sibling of input 12 for ``verify``: a bug is one line and exit 3, never 1 ("decisions changed")."""
    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr("verifier.run.verify", broken)  # the command imports it when it runs
    assert cli.main(["-q"]) == 3
    assert capsys.readouterr().err == "verify: internal error: RuntimeError: boom\n"


def test_sabench_sau_json_with_a_key_given_twice_is_a_spec_error(tmp_path, capsys):
    """Sibling of input 18 for SA-Bench's sau.json: json keeps the last of two keys silently (a D1 list given twice
    would lose claims); a binary file is refused naming the byte."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("x = 1\n")
    dup = tmp_path / "dup.json"
    dup.write_text('{"paper_id": "x",\n "D1": [{"id": "x-D1-001", "claim": "lr 0.1"}],\n "D1": []}\n')
    assert cli.main([str(tmp_path / "repo"), "--sau", str(dup), "-q"]) == 2
    assert capsys.readouterr().err == f"verify: error: {dup}:3: key 'D1' given twice in one object\n"
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    assert cli.main([str(tmp_path / "repo"), "--sau", str(binary), "-q"]) == 2
    assert capsys.readouterr().err == f"verify: error: {binary}: not valid UTF-8 (byte 0)\n"


def test_an_error_raised_while_handling_ctrl_c_is_the_interrupt():
    """A library that turns the Ctrl-C into its own error (libcst raises KeyError mid-resolution) still exits 130."""
    from verifier.terminal import error_line, interrupted

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise KeyError("IndentedBlock(\n" + "x" * 1000)
    except KeyError as error:
        assert interrupted(error)
        line = error_line(error)
    assert "\n" not in line and len(line) == 300 and line.startswith("KeyError: ")
    assert not interrupted(ValueError("a bug"))


def test_a_parser_error_raised_while_handling_ctrl_c_is_the_interrupt_not_a_syntax_error(monkeypatch):
    """A parser that loses its state to a Ctrl-C may raise ValueError; reading around it with tree-sitter would
    swallow the user's interrupt and run on."""
    import extractors.repository as repository

    def interrupted_parse(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ValueError("parser state lost")

    monkeypatch.setattr(repository, "parse_python", interrupted_parse)
    with pytest.raises(ValueError, match="parser state lost"):
        repository.extract_python("x = 1\n", "a.py")


def test_a_ctrl_c_a_library_swallows_still_stops_the_run_at_the_next_check():
    """Issue input 15's kind: the interrupt caught and replaced mid-operation must still end the run."""
    from extractors.guards import stop_if_interrupted, watch_interrupts

    # a shell running the tests in the background ignores SIGINT: give this process Python's own handling meanwhile
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with watch_interrupts():
            stop_if_interrupted()  # nothing pressed yet
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            except KeyboardInterrupt:
                pass  # a library swallowing it
            with pytest.raises(KeyboardInterrupt):
                stop_if_interrupted()
        stop_if_interrupted()  # the next run starts clean
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
