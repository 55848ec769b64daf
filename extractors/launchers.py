"""Launcher facts: the options shell scripts pass to the Python programs they run.

A line of a ``*.sh`` file, a ``Makefile`` or a ``justfile`` that runs Python (``python``/``python3``, ``torchrun``,
``accelerate launch``, ``deepspeed``, ``uv run``, ``poetry run``; backslash continuations joined) is split as the
shell would (``shlex``), and each ``--name value`` or ``--name=value`` after the program becomes a ``launcher`` fact
named ``name`` (dashes read as underscores, as argparse does) with the value parsed like a spec value (numbers,
lists, text). A value written as a shell variable (``--lr ${LR}``, ``--lr $LR``, ``--lr ${LR:-1e-4}``) takes the
value of the script's one assignment of that variable above the command (``LR=1e-4``, ``export LR=1e-4``), or the
default written in the reference; a variable assigned more than once, in a ``for`` loop, from a command
(``$(...)``) or not at all stays unresolved text; a value in a task runner's template (``{{method}}``, ``$(LR)``)
stays unresolved text too. An option the launcher passes overrides the program's argparse default (precedence:
README, "Which value counts").

A repository's README documents how its programs are run: the commands in its shell code blocks (fenced blocks
tagged ``bash``, ``sh``, ``shell``, ``console`` or the like, or untagged, and indented blocks; a leading ``$``
prompt dropped) are read as a launcher's lines, at their lines in the README (``extract_documented``). The prose
around them is not: a name in it is no launch, and the verifier's rules never read it.
Nothing is run.
"""

from __future__ import annotations

import re
import shlex

from extractors import facts as K
from extractors.facts import Fact, FileFacts, Launch, Warning_
from extractors.values import parse_value, symbol_names
from sau.vocabulary import Value

# The commands that run a Python program: the interpreter, the distributed launchers, and the environment runners
# that run a script directly (``uv run train.py``, ``poetry run python train.py``).
RUNNERS = r"(?:(?:uv|poetry)\s+run(?:\s+python[0-9.]*)?|python[0-9.]*|torchrun|deepspeed|accelerate\s+launch)"
_RUNNERS = re.compile(r"(?:^|[\s;&|(])" + RUNNERS + r"(?=\s)")
# A value written in a task runner's template (just's ``{{method}}``, make's ``$(LR)``): text known only at run time.
_TEMPLATE = re.compile(r"\{\{|\$\(")
_OPTION = re.compile(r"^--([A-Za-z_][A-Za-z0-9_.\-]*)(?:=(.*))?$")
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*(?:#.*)?$")
_LOOP = re.compile(r"^\s*(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def extract_launcher(text: str, file: str) -> FileFacts:
    """The launcher facts of one shell script (module docstring). A line the shell splitter refuses (an unclosed
    quote) yields a warning naming the file and line, and no facts; never raises."""
    found = FileFacts()
    variables = _variables(text)
    for line, end, command in _commands(text):
        match = _RUNNERS.search(command)
        if match is None or command.lstrip().startswith("#"):
            continue
        try:
            words = shlex.split(command[match.end():], comments=True)
        except ValueError as error:
            found.warnings.append(Warning_(file, line, f"shell line not split: {error}"))
            continue
        program = _program(words)
        passed: list[str] = []
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
            if raw is not None and "$" in raw:
                raw = _substitute(raw, variables, line)
            # a bare --flag switches something on; a template value stays as written
            value = True if raw is None else raw if _TEMPLATE.search(raw) else _word_value(raw)
            found.facts.append(Fact(file, line, end, name.rsplit(".", 1)[-1], name,
                                    raw if value is None else value, K.LAUNCHER, program))
            passed.append(name.rsplit(".", 1)[-1])
        if program:
            found.launches.append(Launch(file, line, program, tuple(passed)))
    return found


# Code-block tags of shell sessions in Markdown; an untagged block is read too (READMEs often leave it bare).
_SHELL_TAGS = frozenset({"", "bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "terminal",
                         "shellsession", "bat", "cmd", "powershell", "ps1"})
_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")
_PROMPT = re.compile(r"^\s*[$>%]\s+")


def extract_documented(text: str, file: str) -> tuple[list[str], FileFacts]:
    """The Python commands a README's shell code blocks show and their launcher facts (module docstring): ``(lines,
    facts)`` where ``lines`` has one str per line of ``text`` (1-based line n is ``lines[n - 1]``), a line of a
    command that runs Python as the block holds it (its prompt dropped) and every other line empty (prose, other
    commands, a folder tree drawn in a block: nothing the code runs), and ``facts`` is ``extract_launcher`` of the
    blocks' lines, so each fact's line is its line in the README. Markdown is parsed by markdown-it-py
    (CommonMark). Never raises on the text's content."""
    from markdown_it import MarkdownIt  # imported only when a README is read

    count = len(text.splitlines())
    blocks = [""] * count
    for token in MarkdownIt("commonmark").parse(text):
        if token.map is None or token.type not in ("fence", "code_block"):
            continue
        if token.type == "fence" and token.info.strip().split(" ")[0].lower() not in _SHELL_TAGS:
            continue
        first = token.map[0] + (1 if token.type == "fence" else 0)
        for offset, line in enumerate(token.content.splitlines()):
            if first + offset < count:
                blocks[first + offset] = _PROMPT.sub("", line, count=1)
    shell = "\n".join(blocks) + "\n"
    lines = [""] * count
    for start, end, command in _commands(shell):
        if _RUNNERS.search(command) is not None and not command.lstrip().startswith("#"):
            lines[start - 1:end] = blocks[start - 1:end]
    return lines, extract_launcher(shell, file)


def _word_value(raw: str) -> Value | None:
    """The value a command-line word passes: a number, a list or a tuple of them as a spec value is read
    (``1e-4``, ``[0.9,0.999]``), else the word itself as text: the shell passes strings, and a name such as
    ``cheetah-run-v0`` or ``configs/a.gin`` is no expression over free symbols (``cheetah - run - v0``)."""
    if _INTEGER.fullmatch(raw):
        return int(raw)
    if _DECIMAL.fullmatch(raw):
        return float(raw)
    if _WORD.fullmatch(raw) and raw not in ("True", "False", "None"):
        return raw  # most words are plain numbers or names: no parser needed (a README may show thousands)
    value = parse_value(raw)
    return raw if value is None or _symbolic(value) else value


def _symbolic(value: Value) -> bool:
    """Whether a parsed value holds a free symbol, itself or in a member of a list or tuple."""
    return any(_symbolic(v) for v in value) if isinstance(value, tuple) else bool(symbol_names(value))


def _program(words: list[str]) -> str:
    """The program a launcher line runs: its first ``*.py`` word, else the module after ``-m``, else the first word
    that is neither an option nor an option's value. A runner's own options come first (``accelerate launch
    --num_processes 4 train.py``, ``torchrun --nproc_per_node 8 -m pkg.train``), so their values are not the
    program; ``""`` when the line names none."""
    script = next((w for w in words if w.endswith(".py")), None)
    if script is not None:
        return script
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1]
    previous = ""
    for word in words:
        if not word.startswith("-") and not (previous.startswith("--") and "=" not in previous):
            return word
        previous = word
    return ""


def _variables(text: str) -> dict[str, tuple[int, str]]:
    """The shell variables a script assigns exactly once, outside ``for`` loops, to a value that runs nothing: name
    -> (line, value as the shell reads it). Variables with any other assignment are left out."""
    seen: dict[str, list[tuple[int, str]]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        loop = _LOOP.match(line)
        if loop:
            seen.setdefault(loop.group(1), []).extend([(number, "")] * 2)  # a loop variable takes many values
            continue
        assignment = _ASSIGNMENT.match(line)
        if assignment:
            name, raw = assignment.groups()
            try:
                words = shlex.split(raw) if raw else [""]
            except ValueError:
                words = []
            usable = len(words) == 1 and "$(" not in raw and "`" not in raw
            seen.setdefault(name, []).append((number, words[0] if usable else "\0"))
    return {name: found[0] for name, found in seen.items() if len(found) == 1 and found[0][1] != "\0"}


def _substitute(raw: str, variables: dict[str, tuple[int, str]], line: int) -> str:
    """``raw`` with each reference to a variable assigned above ``line`` replaced by its value, or by the default
    the reference writes (``${LR:-1e-4}``); other references stay as written. Values referring to other variables
    are resolved once more (``OUT=${ROOT}/runs``)."""
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        assigned = variables.get(name)
        if assigned is not None and assigned[0] < line:
            return assigned[1] if "$" not in assigned[1] else _substitute(assigned[1], variables, assigned[0])
        default = match.group(2)
        return default if default is not None and "$" not in default else match.group(0)
    return _REFERENCE.sub(value, raw)


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
