"""The claim compiler: D1 claim prose -> atoms (name + claimed values), conservatively.

It reads the forms SA-Bench's numerical claims use:

- ``name=value`` / ``name: value`` / ``name ≈ value``, where the value may be a number with a suffix (``1e-4``,
  ``100k``, ``2.5M``, ``10%``, ``±0.3``), alternatives per model size (``24/36``), a tuple (``(2,2,2,1)``), a set or
  list (``{0.05, 0.1, 0.5}``), or a symbolic expression (``1/sqrt(d_model)``); English words just before a code-like
  name become an alias (``discount factor γ=0.99``);
- ``<known name> [of|is|to] value`` for names in the alias table (``learning rate of 1e-4``, ``batch size 512``);
- ``value <count noun>`` (``100k iterations``, ``10 seeds``, ``4 conv layers``).

A number the compiler cannot attach to a checkable atom makes the claim *incomplete*: rules may then estimate but
not settle it. Numbers in references (``Table 3``, ``Eq. 15``), citations and model-size labels (``0.5B/1B models``)
do not count. Hardware (``64 A100 GPUs``) and reported results (``FID=2.44``, ``7,390,000 parameters``) are not
code-checkable: they also leave the claim incomplete, with a note saying why. The compiler never evaluates text:
values go through ``extractors.values.parse_value`` (a libcst parse and a fold). It belongs to the paper side
(``verifier.specs``): it reads claim text, not code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractors.values import is_number, parse_value
from extractors.words import word_list
from rules.names import known_name, normalise
from sau.vocabulary import Atom, AtomKind, Value

_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_NUMBER = r"[-+±]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER_WORD = re.compile(rf"(?<![\w.\-/^])({_NUMBER})(?:\s?([kKMBGT])(?![A-Za-z]))?(%)?(?![\w/.]*[A-Za-z_(])")
_NAME = r"[A-Za-z_\u0370-\u03ff][\w\u0370-\u03ff'\-]*"
# "name = value" (not inside an expression such as "h=1/K=0.025"), and "name in {a, b}" for sweeps
_ASSIGN = re.compile(rf"(?<![\w/*=+\-^.'])({_NAME})\s*(=|≈|:|~|∈|\s\bin\b|\s\bover\b)\s*")
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*")

_REFERENCES = re.compile(
    r"\b(?:Tables?|Tab\.|Eqs?\.|Equations?|Figs?\.|Figures?|Sections?|Sec\.|Appendix|Appendices|Algorithm|"
    r"Alg\.|Theorem|Lemma|Corollary|Proposition|Definition|Stage|Phase|Step|Chapter)\s*[A-Z]?[\d.\-–, ]*(?:[a-z]\b)?",
    re.IGNORECASE)
_CITATION = re.compile(r"\(?\b[A-Z][A-Za-z\-]+(?: et al\.?| and [A-Z][A-Za-z\-]+)?,? \(?(?:19|20)\d\d[a-z]?\)?")
_SIZE_LABEL = re.compile(r"\b\d+(?:\.\d+)?[BMK](?:\s*/\s*\d+(?:\.\d+)?[BMK])*(?=[\s\-]*(?:models?|params?|variants?|"
                         r"scale|sizes?|versions?|LLMs?|\)|,|;|:|$))")
_HARDWARE_NOUNS = re.compile(r"^\s*(?:x\s*)?(?:NVIDIA\s+)?(?:[AHV]100|A800|H800|RTX\s*\w+|TPU\w*|GPUs?|nodes?|"
                             r"compute nodes|cores|CPUs?|machines|hours?|days|GB|MB|TB|GiB|minutes?|seconds?)\b",
                             re.IGNORECASE)
_RESULT_NAMES = word_list("result_names", "rules")  # reported results, not settings (rules/words.yaml)
_RESULT_NOUNS = re.compile(r"^\s*(?:parameters|params|trainable parameters|speedup|faster|slower|improvement|"
                           r"reduction|increase|decrease|lower|higher|better|worse|of the time|FID|FLOPs|GFLOPs|"
                           r"TFLOPs)\b", re.IGNORECASE)
_COUNT_NOUNS = word_list("count_nouns", "rules")  # count nouns that name a setting ("10 seeds")
_STOPWORDS = word_list("claim_stop_words", "rules")
# "6x faster", "2x256": multipliers and shapes are numbers the atoms do not cover
_MULTIPLIER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?x(?:\d+)*\b")
_KILO = re.compile(r"\d\s?[kK](?![A-Za-z])")
_KILO_TOLERANCE = 0.025  # 1024 / 1000 - 1
_MAX_NUMBERS = 200  # a claim with more is a table, not a setting; compiling it would cost quadratic time
_MAX_RESIDUE = 6  # content words beyond atoms that a claim may have and still be purely numerical
_ABOUT = re.compile(r"(?:≈|~|\babout\b|\bapproximately\b|\baround\b|\broughly\b)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CompiledClaim:
    """The compiler's result: atoms, whether they cover every number of the claim, and notes on what did not."""

    atoms: tuple[Atom, ...]
    complete: bool
    notes: tuple[str, ...]


def compile_atom_checks(text: str) -> tuple[dict, bool]:
    """The D1 checks of an SA-Bench claim compiled at load time: ``({"atoms", "compiler_notes"}, complete)``."""
    compiled = compile_d1(text)
    return {"atoms": compiled.atoms, "compiler_notes": compiled.notes}, compiled.complete


def compile_d1(text: str) -> CompiledClaim:
    """Compile one D1 claim into atoms. Never raises; a claim it cannot read yields no atoms and ``complete`` false."""
    clean = _prepare(text)
    if len(_NUMBER_WORD.findall(clean)) > _MAX_NUMBERS:
        return CompiledClaim((), False, (f"more than {_MAX_NUMBERS} numbers: not compiled",))
    spans: list[tuple[int, int]] = []  # character spans of numbers accounted for
    atoms: list[Atom] = []
    notes: list[str] = []
    words: list[tuple[int, int]] = []  # character spans of text that atoms or references account for
    _exempt(clean, spans)
    words.extend(spans)
    _assignments(clean, atoms, spans, words, notes)
    _phrases(clean, atoms, spans, words, notes)
    leftover = [m for m in _NUMBER_WORD.finditer(clean) if not _covered(m.span(1), spans)]
    leftover += [m for m in _MULTIPLIER.finditer(clean) if not _covered(m.span(), spans)]
    if leftover:
        shown = ", ".join(clean[m.start():m.end()].strip() for m in leftover[:6])
        notes.append(f"numbers not compiled into atoms: {shown}")
    residue = _residue(clean, words + spans)
    if len(residue) > _MAX_RESIDUE:
        notes.append(f"non-numerical elements no atom covers: {' '.join(residue[:8])}")
    complete = not leftover and bool(atoms) and len(residue) <= _MAX_RESIDUE
    return CompiledClaim(tuple(_merge(atoms)), complete, tuple(dict.fromkeys(notes)))


def _residue(text: str, covered: list[tuple[int, int]]) -> list[str]:
    """Content words outside atoms, references and the heading (text before a first colon): what the claim says
    besides its numbers (``applied to query and key vectors``). A claim with many is not purely numerical."""
    heading = text.find(":")
    start = heading + 1 if 0 <= heading <= 80 else 0
    residue = []
    for match in re.finditer(r"[A-Za-z][A-Za-z\-']+", text[start:]):
        span = (match.start() + start, match.end() + start)
        if match.group(0).lower() in _STOPWORDS or len(match.group(0)) <= 2:
            continue
        if not any(a <= span[0] and span[1] <= b for a, b in covered):
            residue.append(match.group(0))
    return residue


# -- preparation ---------------------------------------------------------------------------------------------
def _prepare(text: str) -> str:
    replaced = (text.replace("−", "-").replace("–", "-").replace("—", "-").replace("×", "x").replace("·", "*")
                .replace("²", "**2").replace("³", "**3").replace("√", "sqrt").replace("\u2009", " ")
                .replace("≤", "<=").replace("≥", ">="))
    # thousands separators: 10,000 -> 10000 (not lists such as {1,5})
    return re.sub(r"(?<![\d.])(\d{1,3})((?:,\d{3})+)(?![\d])", lambda m: m.group(1) + m.group(2).replace(",", ""),
                  replaced)


def _exempt(text: str, spans: list[tuple[int, int]]) -> None:
    """Numbers in references, citations and model-size labels are part of no claim about code."""
    for pattern in (_REFERENCES, _CITATION, _SIZE_LABEL):
        for match in pattern.finditer(text):
            spans.append(match.span())


def _covered(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


# -- values --------------------------------------------------------------------------------------------------
def number(text: str) -> tuple[float | int, bool] | None:
    """Parse ``1e-4``, ``100k``, ``2.5M``, ``10%``, ``±0.3``, ``10,000`` -> (value, is_percent), else ``None``."""
    match = re.fullmatch(rf"\s*({_NUMBER})\s?([kKMBGT])?(%)?\s*", text.replace(",", ""))
    if not match:
        return None
    value = parse_value(match.group(1).replace("±", ""))
    if not is_number(value):
        return None
    if match.group(2):
        value = value * _SUFFIX[match.group(2)]
        value = int(value) if float(value).is_integer() else value
    if match.group(3):
        return value / 100, True
    return value, False


def _read_value(text: str, start: int) -> tuple[tuple[Value, ...], AtomKind, bool, int] | None:
    """Read the value starting at ``start``: (values, kind, percent, end) or ``None``.

    Forms: a bracketed set or list, a tuple, alternatives ``a/b/c`` of plain numbers, a number with a suffix, or a
    symbolic expression without spaces (``1/sqrt(d_model)``, ``4*d_model``).
    """
    rest = text[start:]
    bracket = re.match(r"([\[{(])([^\]})]*)([\]})])", rest)
    if bracket:
        read = [number(part) for part in bracket.group(2).split(",") if part.strip()]
        items = [item for item in read if item is not None]
        if items and len(items) == len(read):
            values = tuple(v for v, _ in items)
            percent = any(p for _, p in items)
            end = start + bracket.end()
            sweep = re.search(r"(?:\bin|\bover|\bfrom|\bamong|\bof|\bvalues|\bgrid|\bsweep|∈)\s*$",
                              text[max(0, start - 12):start], re.I)
            if bracket.group(1) == "(" or (bracket.group(1) == "[" and not sweep):
                # "strides=(2,2,1)", "num_blocks=[3,5,7]": one list value
                return (values,), AtomKind.SCALAR, percent, end
            if bracket.group(1) == "[" and len(values) == 2 and re.search(r"range|between|interval\W*$",
                                                                              text[max(0, start - 30):start], re.I):
                return values, AtomKind.RANGE, percent, end
            return values, AtomKind.SET, percent, end
        return None
    token = re.match(r"[^\s,;]+", rest)
    if not token:
        return None
    raw = token.group(0).rstrip(".:")
    while raw and raw[-1] in ")]" and raw.count("(") + raw.count("[") < raw.count(")") + raw.count("]"):
        raw = raw[:-1].rstrip(".:")
    parts = raw.split("/")
    parsed = [item for item in (number(p) for p in parts) if item is not None]
    if len(parts) > 1 and len(parsed) == len(parts) and parts[0].strip("±+-") not in ("1", "1.0"):
        return tuple(v for v, _ in parsed), AtomKind.SCALAR, any(p for _, p in parsed), start + len(raw)
    single = number(raw)
    if single:
        return (single[0],), AtomKind.SCALAR, single[1], start + len(raw)
    if re.search(r"[A-Za-z_]", raw) and re.search(r"[\d*/^]|sqrt|log|exp", raw):
        value = parse_value(raw.replace("^", "**"))
        if value is not None and not isinstance(value, (str, bool)):
            return (value,), AtomKind.SCALAR, False, start + len(raw)
    return None


# -- name = value --------------------------------------------------------------------------------------------
def _assignments(text: str, atoms: list[Atom], spans: list[tuple[int, int]], words: list[tuple[int, int]],
                 notes: list[str]) -> None:
    for match in _ASSIGN.finditer(text):
        name = match.group(1).strip("'-")
        operator = match.group(2).strip()
        if operator in ("in", "over", "∈") and text[match.end():match.end() + 1] not in ("{", "["):
            continue
        parsed = _read_value(text, match.end())
        if parsed is None:
            continue
        if operator == ":" and not _code_like(name) and (parsed[2] or _count_noun(text[parsed[3]:parsed[3] + 40]) is None):
            continue  # "Gym: vector states" is a heading, not a binding
        values, kind, percent, end = parsed
        value_span = (match.end(), end)
        tolerance = 0.05 if operator in ("≈", "~") else 0.0
        prefix = _preceding_words(text, match.start())
        if _code_like(name):
            aliases = (" ".join(prefix),) if prefix else ()
        else:
            phrase = [*prefix, name]
            single = len(phrase) == 1 and operator == "="  # "strides=(2,2,1)" is written as code
            if not single and not any(known_name(" ".join(phrase[i:])) for i in range(len(phrase))) \
                    and phrase[-1].lower() not in _COUNT_NOUNS and (percent or _count_noun(text[end:end + 40]) is None):
                notes.append(f"name not recognised: {' '.join(phrase)}")
                continue
            name, aliases = " ".join(phrase), ()
        if _result_name(name) or any(_result_name(a) for a in aliases):
            notes.append(f"reported result, not code-checkable: {text[match.start():end]}")
            continue
        after = text[end:end + 40]
        counted = None if percent else _count_noun(after)
        if counted is not None and not _code_like(match.group(1)) or (counted and operator == ":"):
            # "main results=10 seeds", "DMC: 500k steps": the count noun names the setting, the rest is context
            name, aliases = counted, ()
            last = counted.split()[-1]
            words.append((end, end + after.find(last) + len(last)))
        if _HARDWARE_NOUNS.match(after):
            notes.append(f"hardware, not code-checkable: {text[match.start():end]}")
            continue
        spans.append(value_span)
        explanation = re.match(r"\s*\(([^()]*(?:\([^()]*\))?[^()]*)\)", after)
        if explanation and parse_value(explanation.group(1).replace("^", "**")) is not None:
            spans.append((end, end + explanation.end()))  # "(4*d_model)" restates the value just given
            words.append(spans[-1])
        words.append((match.start() - len(" ".join(prefix)) - 1, end))
        named = _code_like(name) or known_name(name) or (operator == "=" and " " not in name)
        atoms.append(Atom(name, values, kind, aliases, _kilo(tolerance, text[match.end():end]), percent,
                          text[match.start():end], named))


def _code_like(name: str) -> bool:
    """A name written as code: an underscore, camelCase, a digit, a Greek letter, or one letter."""
    return bool(re.search(r"_|[a-z][A-Z]|\d|[\u0370-\u03ff]", name)) or len(name) == 1 or name.isupper()


def _preceding_words(text: str, end: int, limit: int = 3) -> list[str]:
    """Up to ``limit`` plain words right before ``end`` (stopping at punctuation or a stopword)."""
    words: list[str] = []
    position = end
    for _ in range(limit):
        match = re.search(r"(?<![\w\-&])([A-Za-z][A-Za-z\-]*)\s*$", text[:position])
        if not match or match.group(1).lower() in _STOPWORDS or not text[match.end():position].strip() == "":
            break
        words.insert(0, match.group(1))
        position = match.start()
    return words


def _result_name(name: str) -> bool:
    lowered = name.lower().replace("_", " ").strip()
    return lowered in _RESULT_NAMES or any(lowered.endswith(" " + r) for r in _RESULT_NAMES if " " not in r)


# -- phrases: "learning rate of 1e-4", "100k iterations" --------------------------------------------------------
def _phrases(text: str, atoms: list[Atom], spans: list[tuple[int, int]], words: list[tuple[int, int]],
             notes: list[str]) -> None:
    for match in _NUMBER_WORD.finditer(text):
        if _covered(match.span(1), spans):
            continue
        parsed = _read_value(text, match.start())
        if parsed is None:
            continue
        values, kind, percent, end = parsed
        before = text[:match.start()]
        after = text[end:]
        if _HARDWARE_NOUNS.match(after):
            # left uncovered on purpose: a claim about hardware cannot be settled from code
            notes.append(f"hardware, not code-checkable: {text[match.start():end + 20].strip()}")
            continue
        if _RESULT_NOUNS.match(after):
            notes.append(f"reported result, not code-checkable: {text[match.start():end + 20].strip()}")
            continue
        tolerance = 0.05 if _ABOUT.search(before) else 0.0
        name = _count_noun(after) if kind == AtomKind.SCALAR and not percent else None
        if name is not None:
            words.append((match.start(), end + after.find(name.split()[-1]) + len(name.split()[-1])))
        else:
            linking = re.search(r"(?:\s+(?:of|is|to|=|at|set to|equal to))?\s*$", before)
            preceding = _preceding_words(before, linking.start() if linking else len(before))
            name = next((" ".join(preceding[i:]) for i in range(len(preceding))
                         if known_name(" ".join(preceding[i:]))), None)
            if name is None:
                continue
            words.append((before.rfind(name.split()[0]), end))
        spans.append((match.start(), end))
        atoms.append(Atom(name, values, kind, (), _kilo(tolerance, text[match.start():end]), percent,
                          text[match.start():end].strip(),
                          named=known_name(name)))


def _kilo(tolerance: float, value_text: str) -> float:
    """A "k" suffix is read as 1000, but papers write "1k tokens" for 1024 too: such values get a 2.5% tolerance."""
    return max(tolerance, _KILO_TOLERANCE) if _KILO.search(value_text) else tolerance


def _count_noun(after: str) -> str | None:
    """The count noun phrase right after a number ("4 conv layers" -> "conv layers"), within three words."""
    words = re.match(r"\s*((?:[A-Za-z][A-Za-z\-]*\s*){1,3})", after)
    if not words:
        return None
    found: list[str] = []
    for word in words.group(1).split():
        if word.lower() in _COUNT_NOUNS:
            qualifiers = [w for w in found if w.lower() not in _STOPWORDS]
            return " ".join([*qualifiers, word])
        found.append(word)
    return None


def _merge(atoms: list[Atom]) -> list[Atom]:
    """One atom per name: "weight_decay=0.1 (GPT) ... weight_decay=0.0 (nGPT)" claims both values."""
    merged: dict[tuple[str, str], Atom] = {}
    for atom in atoms:
        key = (normalise(atom.name), atom.kind)
        if key in merged and atom.kind == AtomKind.SCALAR:
            old = merged[key]
            values = tuple(dict.fromkeys((*old.values, *atom.values)))
            merged[key] = Atom(old.name, values, AtomKind.SCALAR, tuple(dict.fromkeys((*old.aliases, *atom.aliases))),
                               max(old.tolerance, atom.tolerance), old.percent or atom.percent,
                               f"{old.text}; {atom.text}", old.named and atom.named)
        elif key not in merged:
            merged[key] = atom
        else:
            merged[(key[0] + f"#{len(merged)}", atom.kind)] = atom
    return list(merged.values())
