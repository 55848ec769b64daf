"""Launcher facts: the options shell scripts pass to the Python programs they run.

A line of a ``*.sh`` file that runs Python (``python``/``python3``, ``torchrun``, ``accelerate launch``,
``deepspeed``; backslash continuations joined) is split as the shell would (``shlex``), and each ``--name value`` or
``--name=value`` after the program becomes a ``launcher`` fact named ``name`` (dashes read as underscores, as
argparse does) with the value parsed like a spec value (numbers, lists, text). An option the launcher passes
overrides the program's argparse default (precedence: README, "Which value counts"). Nothing is run.
"""

from __future__ import annotations

import re
import shlex

from extractors import facts as K
from extractors.facts import Fact, FileFacts, Warning_
from extractors.values import parse_value

_RUNNERS = re.compile(r"(?:^|[\s;&|(])(?:python3?(?:\.\d+)?|torchrun|deepspeed|accelerate\s+launch)(?=\s)")
_OPTION = re.compile(r"^--([A-Za-z_][A-Za-z0-9_.\-]*)(?:=(.*))?$")


def extract_launcher(text: str, file: str) -> FileFacts:
    """The launcher facts of one shell script (module docstring). A line the shell splitter refuses (an unclosed
    quote) yields a warning naming the file and line, and no facts; never raises."""
    found = FileFacts()
    for line, end, command in _commands(text):
        match = _RUNNERS.search(command)
        if match is None or command.lstrip().startswith("#"):
            continue
        try:
            words = shlex.split(command[match.end():], comments=True)
        except ValueError as error:
            found.warnings.append(Warning_(file, line, f"shell line not split: {error}"))
            continue
        program = next((w for w in words if w.endswith(".py") or not w.startswith("-")), "")
        position = 0
        while position < len(words):
            option = _OPTION.match(words[position])
            position += 1
            if option is None:
                continue
            name, raw = option.group(1).replace("-", "_"), option.group(2)
            if raw is None and position < len(words) and not words[position].startswith("--"):
                raw = words[position]
                position += 1
            value = True if raw is None else parse_value(raw)  # a bare --flag switches something on
            found.facts.append(Fact(file, line, end, name.rsplit(".", 1)[-1], name,
                                    raw if value is None else value, K.LAUNCHER, program))
    return found


def _commands(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each command, backslash continuations joined."""
    commands: list[tuple[int, int, str]] = []
    start = 0
    parts: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not parts:
            start = number
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            parts.append(stripped[:-1])
            continue
        parts.append(stripped)
        commands.append((start, number, " ".join(parts)))
        parts = []
    if parts:
        commands.append((start, start + len(parts) - 1, " ".join(parts)))
    return commands
