"""Data manifests a launcher passes: ``.jsonl``/``.csv``/``.tsv``/``.txt``/``.json`` files of the repository named
on a line of a shell script that runs repository Python (``python train.py --anno data/annotations.jsonl``), or
in a string of live Python code. Their first lines are facts for the D3 rule: rows pointing into ``webvid/`` show
the WebVid data being loaded.

Bounded: the first ``FIRST_LINES`` lines of a manifest, each cut at ``LINE_CHARS`` characters, from files of at
most ``MAX_BYTES`` read as a stream; links and files outside the repository are passed over. Never raises on an
unreadable file (it yields no lines)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import SHELL, Mention
from extractors.facts import RepositoryIndex

SUFFIXES = (".jsonl", ".csv", ".tsv", ".txt", ".json")
FIRST_LINES = 20  # enough rows to see where a manifest points, few enough to stay cheap
LINE_CHARS = 2000
MAX_BYTES = 50_000_000  # a manifest larger than this is data of its own, not read
_PATH = re.compile(r"[\w./-]+\.(?:jsonl|csv|tsv|txt|json)\b")


@dataclass(frozen=True)
class Manifest:
    """One manifest: ``file`` its repository path, ``launcher`` the ``Mention`` (kind ``launcher``) of the line
    passing it, ``lines`` its first lines as ``Mention`` records of kind ``manifest`` (the line's text as ``text``)."""

    file: str
    launcher: Mention
    lines: tuple[Mention, ...]


def launched_manifests(index: RepositoryIndex) -> tuple[Manifest, ...]:
    """Analysis provider: the manifests of the repository's shell launchers and live Python strings, in file
    order (module docstring)."""
    graph = index.analysis(build_call_graph)
    root = Path(index.root)
    found: dict[str, Manifest] = {}
    for node, data in sorted(graph.graph.nodes(data=True)):
        if data.get("kind") != SHELL or not graph.live(node):
            continue
        for number, line in _command_lines(root / data["file"]):
            for path in _PATH.findall(line):
                _add(found, root, path, Mention.at(data["file"], number, node, line.strip()[:200], "launcher"))
    for scope, mentions in sorted(graph.mentions.items()):
        if not graph.live(scope):
            continue
        for mention in mentions:
            if mention.kind == "string" and mention.text.lower().endswith(SUFFIXES):
                _add(found, root, mention.text, mention)
    return tuple(found[key] for key in sorted(found))


def _command_lines(script: Path) -> list[tuple[int, str]]:
    """The non-comment lines of a shell script with their numbers; empty when it cannot be read."""
    try:
        if script.is_symlink() or script.stat().st_size > 200_000:
            return []
        text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if not line.lstrip().startswith("#")]


def _add(found: dict[str, Manifest], root: Path, path: str, launcher: Mention) -> None:
    relative = path.strip("'\"").removeprefix("./")
    if relative in found or relative.startswith("/") or ".." in relative.split("/"):
        return
    full = root / relative
    try:
        if full.is_symlink() or not full.is_file() or full.stat().st_size > MAX_BYTES:
            return
        lines = []
        with full.open(encoding="utf-8", errors="replace") as stream:
            for number, line in enumerate(stream, 1):
                if number > FIRST_LINES:
                    break
                lines.append(Mention.at(relative, number, "", line[:LINE_CHARS].strip(), "manifest"))
    except OSError:
        return
    found[relative] = Manifest(relative, launcher, tuple(lines))
