"""The project's own paper spec format (YAML), read and validated.

Project spec (``benchmark_data/<benchmark_id>.yaml``)::

    schema: sauverify-spec/1
    benchmark_id: demo-001
    slug: demo
    title: ...
    venue: ...
    saus:
      - id: demo-D1-001                         # SA-Bench's claim id, so results compare
        dimension: D1
        source: Section 4.1
        statement: The optimiser is AdamW with learning rate 3e-4 ...   # our own words
        atoms:                                  # D1 checks
          - {name: learning_rate, aliases: [lr], value: 3e-4}
          - {name: n_layers, values: [6, 12]}   # one value per model size: each must be bound
          - {name: lr_grid, set: [0.1, 0.5]}    # a sweep
          - {name: dropout, range: [0.0, 0.3]}
          - {name: attn_scale, value: 1/sqrt(d_head), about: 0.05}   # "about": a relative tolerance
        complete: true                          # the checks cover the whole statement (default true)
      - id: demo-D1-002
        dimension: D1
        atoms: [{name: warmup_steps, value: 2000}]
        datasets: [{name: OpenWebText, aliases: [owt]}]   # datasets and metrics the claim names, decided as D3 does
        uncovered: [linear warmup shape]        # elements no check covers, one phrase each (implies complete: false)
        paired: which model size each value belongs to   # D1: a pairing atoms cannot check (with complete: false)
        outside_code: [8 A100 GPUs]             # elements no code could show, one phrase each: left out, as a reader does
      - id: demo-D2-001
        dimension: D2
        formulas: ["x / norm(x)"]               # Python syntax; equations as "lhs == rhs"
        glossary: {x: {meaning: a hidden vector, code_names: [x, h, hidden]}}   # every symbol
        mechanism: [normalize, l2_norm]         # what a function implementing it is called
        atoms: [{name: d_model, value: 512}]    # values the statement claims beside its formulas, as in D1
        scope: [{name: RMSNorm, aliases: [rms_norm]}]   # components named beside them (datasets, metrics too)
        realised_by: [vision transformer]       # library networks whose architecture realises it (operations.yaml)
      - id: demo-D3-001
        dimension: D3
        datasets: [{name: OpenWebText, aliases: [openwebtext, owt]}]
        baselines: [{name: GPT-2, aliases: [gpt2]}]
        metrics: [{name: perplexity, aliases: [ppl]}]
        scope: [{name: 0.5B model, aliases: [small]}]   # model sizes, tasks, settings covered
      - id: demo-D4-001
        dimension: D4
        steps:                                  # two or more, in the claimed order
          - {name: warmup, keywords: [warmup], functions: [linear_warmup]}
          - {name: cosine decay, keywords: [cosine], functions: [CosineAnnealingLR]}
        strict: true                            # or [[0, 1], ...]: the pairs whose order matters
      - id: demo-D1-009
        dimension: D1
        checkable: false                        # hardware, a theorem, a reported result
        note: hardware (8 GPUs)

Values are read with the claim compiler's number reader (``1e-4``, ``100k``, ``10%``) or, for symbolic values,
parsed as an expression tree (never evaluated); any other string is a text value (``activation: elu``). Each
dimension's check keys are read by its ``parse_checks`` (``verifier.dimensions``, ``verifier.specs.checks``). Every
error is a ``SpecError`` naming the file and, where it has one, the line.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from sau.vocabulary import SAU, Dimension, PaperSpec
from verifier.dimensions import DIMENSION_RULES
from verifier.specs.checks import Entry
from verifier.specs.errors import LinedMapping, SpecError, did_you_mean, key_line, unknown_keys

SPEC_SCHEMA = "sauverify-spec/1"
# The top-level keys of a spec; any other is a typo or a newer format, and an error.
TOP_KEYS = ("schema", "benchmark_id", "slug", "title", "venue", "saus")
# Keys every SAU entry may have, whatever its dimension; each dimension adds its check keys.
_COMMON_KEYS = {"id", "dimension", "source", "statement", "checkable", "note", "complete", "uncovered", "outside_code",
                "__line__"}


class _LineLoader(yaml.SafeLoader):
    """A safe loader that keeps each mapping's line as ``__line__`` and each key's line (``LinedMapping``)."""


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    mapping = LinedMapping(loader.construct_mapping(node, deep=True))
    mapping.key_lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def _compose(text: str) -> yaml.Node | None:
    """The YAML node tree of ``text``: composed by libyaml when PyYAML has it (the same nodes, an order of magnitude
    faster), else by PyYAML's own parser, which also gives the error of text libyaml refuses (so that a message
    does not depend on how PyYAML was built). Raises ``yaml.YAMLError``."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.compose(text, Loader=fast)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.SafeLoader)


def load_project_spec(path: Path) -> PaperSpec:
    """Load and validate a project spec file (format in the module docstring). Raises ``SpecError`` naming the file
    and line: unreadable or binary content, invalid YAML, a key given twice in one mapping, an unknown top-level
    key, an unknown ``schema`` version (none given reads as ``sauverify-spec/1``), and every error of the SAU entries."""
    text = _text(Path(path))
    try:
        tree = _compose(text)
        if tree is not None:
            _no_duplicate_keys(tree, Path(path))
        data = _LineLoader("").construct_document(tree) if tree is not None else None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SpecError(f"not valid YAML: {getattr(error, 'problem', error)}", path,
                        mark.line + 1 if mark else None) from None
    if not isinstance(data, dict) or not isinstance(tree, yaml.MappingNode):
        raise SpecError("a spec is a mapping with benchmark_id, slug, title and saus", path, 1)
    lines = {str(k.value): k.start_mark.line + 1 for k, _ in tree.value if isinstance(k, yaml.ScalarNode)}
    for key in sorted(set(lines) - set(TOP_KEYS)):
        raise SpecError(f"unknown top-level key {key!r}{did_you_mean(key, TOP_KEYS)} (known: {', '.join(TOP_KEYS)})",
                        path, lines[key])
    if data.get("schema", SPEC_SCHEMA) != SPEC_SCHEMA:  # absent: the one version there is
        raise SpecError(f"unknown schema {data['schema']!r}: this verifier reads {SPEC_SCHEMA}", path,
                        lines["schema"])
    for key in ("benchmark_id", "slug", "saus"):
        if key not in data:
            raise SpecError(f"missing key {key!r}", path, data.get("__line__"))
    if not isinstance(data["saus"], list):
        raise SpecError("saus must be a list", path, data.get("__line__"))
    saus = []
    seen: set[str] = set()
    for entry in data["saus"]:
        sau = _sau(entry, Path(path))
        if sau.id in seen:
            raise SpecError(f"duplicate SAU id {sau.id}", path, entry.get("__line__"))
        seen.add(sau.id)
        saus.append(sau)
    return PaperSpec(str(data["benchmark_id"]), str(data["slug"]), str(data.get("title", "")),
                     str(data.get("venue", "")), tuple(saus), str(path))


def _text(path: Path) -> str:
    """The spec's text. Raises ``SpecError`` when it cannot be read or is not text (a NUL byte, or bytes that are
    not UTF-8), naming the line of the first such byte."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise SpecError(f"cannot read: {error.strerror or error}", path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecError("binary content, not a YAML spec (bytes that are not UTF-8)", path,
                        raw.count(b"\n", 0, error.start) + 1) from None
    if "\0" in text:
        raise SpecError("binary content, not a YAML spec (a NUL byte)", path, text.count("\n", 0, text.index("\0")) + 1)
    return text


def _no_duplicate_keys(tree: yaml.Node, path: Path) -> None:
    """Refuse a key given twice in one mapping (YAML's loader would silently keep the last), naming its second
    line. Raises ``SpecError``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise SpecError(f"key {key.value!r} given twice (first at line {seen[key.value]})", path,
                                        key.start_mark.line + 1)
                    seen[key.value] = key.start_mark.line + 1
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _sau(data: object, path: Path) -> SAU:
    if not isinstance(data, dict):
        raise SpecError("each SAU is a mapping", path)
    line = data.get("__line__")
    for key in ("id", "dimension"):
        if not isinstance(data.get(key), str):
            raise SpecError(f"SAU needs a string {key!r}", path, line)
    sau_id = data["id"]
    if data["dimension"] not in DIMENSION_RULES:
        raise SpecError(f"{sau_id}: dimension must be one of {', '.join(DIMENSION_RULES)}", path, line)
    dimension = Dimension(data["dimension"])
    check_keys = DIMENSION_RULES[dimension].check_keys
    unknown = sorted(set(data) - _COMMON_KEYS - set(check_keys))
    if unknown:
        known = _COMMON_KEYS | set(check_keys)
        raise SpecError(f"{sau_id}: unknown key(s) for a {dimension} SAU: {unknown_keys(unknown, known)}", path,
                        key_line(data, str(unknown[0]), line))
    checkable = data.get("checkable", True)
    if not isinstance(checkable, bool):
        raise SpecError(f"{sau_id}: checkable must be true or false", path, line)
    if not checkable and not data.get("note"):
        raise SpecError(f"{sau_id}: a SAU marked checkable: false needs a note saying why", path, line)
    if checkable and not any(k in data for k in check_keys):
        raise SpecError(f"{sau_id}: give its checks ({', '.join(sorted(check_keys))}) or mark it "
                        "checkable: false with a note", path, line)
    checks = DIMENSION_RULES[dimension].parse_checks(data, Entry(path, sau_id, line, checkable))
    uncovered = _phrases(data, "uncovered", sau_id, path, line)
    outside = _phrases(data, "outside_code", sau_id, path, line)
    if outside and not checkable:
        raise SpecError(f"{sau_id}: outside_code lists elements of a checkable claim; a claim code cannot show at "
                        "all is checkable: false with a note", path, key_line(data, "outside_code", line))
    both = sorted(set(outside) & set(uncovered))
    if both:
        raise SpecError(f"{sau_id}: {both[0]!r} is both uncovered (code could show it) and outside_code (no code "
                        "could)", path, key_line(data, "outside_code", line))
    complete = data.get("complete", not uncovered)
    if not isinstance(complete, bool):
        raise SpecError(f"{sau_id}: complete must be true or false", path, line)
    if complete and uncovered:
        raise SpecError(f"{sau_id}: a SAU with uncovered elements is not complete (drop complete: true)", path, line)
    return SAU(sau_id, dimension, str(data.get("source", "")), str(data.get("statement", "")), checks,
               complete=complete, checkable=checkable, note=str(data.get("note", "")), uncovered=uncovered,
               outside_code=outside)


# What each phrase list names, for its error message.
_PHRASE_LISTS = {"uncovered": "element no check covers", "outside_code": "element no code could show"}


def _phrases(data: dict, key: str, sau_id: str, path: Path, line: int | None) -> tuple[str, ...]:
    """The entry's ``uncovered`` or ``outside_code`` list: elements of the statement, each a non-empty phrase (none
    given: empty). Raises ``SpecError`` for anything else."""
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
        raise SpecError(f"{sau_id}: {key} must be a list of short phrases, one per {_PHRASE_LISTS[key]}",
                        path, line)
    return tuple(i.strip() for i in items)
