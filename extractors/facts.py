"""The fact record shared by every extractor, and the per-repository index the rules query."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterator, TypeVar

from extractors.trees import Trees
from extractors.values import is_number
from sau.vocabulary import Location, Value

# Fact kinds. Named facts bind a value to a name; ``literal`` facts only record that a number occurs in code.
ASSIGNMENT = "assignment"  # x = 1e-4, self.x = ..., cfg["x"] = ..., a, b = 1, 2 (module, class or function level)
FIELD = "field"  # a dataclass or pydantic field default
DEFAULT = "default"  # a function parameter default
KEYWORD = "keyword"  # a call keyword argument: AdamW(params, lr=1e-4)
ARGPARSE = "argparse"  # add_argument("--lr", default=1e-4)
DICT = "dict"  # a dict literal entry {"lr": 1e-4}
GET_DEFAULT = "get_default"  # cfg.get("lr", 1e-4)
CONFIG = "config"  # a YAML / JSON / TOML key, by dotted path
LITERAL = "literal"  # a number in code with no name of its own (a positional argument, an operand)
LOOP = "loop"  # for n_states, n_actions in [(3, 3), (9, 9)]: each loop variable, bound to the tuple of its values
LAUNCHER = "launcher"  # python train.py --lr 1e-4 in a shell script: an option the launcher passes
STACK = "stack"  # conv1 .. conv4 = nn.Conv2d(...): a layer stack's length and per-layer values (extractors.layer_stacks)
CALL = "call"  # a library class or function a call names (AdamW(...) chooses the optimizer): the rules make these

# The path prefix of an entry stored into a mapping the code reaches through a call or an index, not a name
# (``self.optimizer.param_groups[0]["betas"] = ...``): whatever holds that mapping reads it, unseen statically.
UNNAMED_HOLDER = "<entry>"

NAMED_KINDS = frozenset({ASSIGNMENT, FIELD, DEFAULT, KEYWORD, ARGPARSE, DICT, GET_DEFAULT, CONFIG, LOOP, LAUNCHER,
                         STACK})
Analysis = TypeVar("Analysis")
_Parameters = TypeVar("_Parameters", tuple[str, ...], frozenset[str])  # what merge_signatures merges


@dataclass(frozen=True)
class Fact(Location):
    """One value found in the repository, where it is (``sau.vocabulary.Location``: ``file`` relative POSIX path,
    ``line``/``end_line`` 1-based and inclusive, inside the notebook cell ``cell`` for ``.ipynb`` files).

    ``name`` is the bound name's last component (``lr`` for ``self.optim.lr``); ``path`` the whole dotted path
    (``TrainConfig.lr``, ``optimizer.lr`` for a YAML key); ``context`` the enclosing callee for keywords
    (``torch.optim.AdamW``) or the enclosing class/function. ``value`` is ``None`` when the name is bound to
    something that does not fold; ``computed`` then says whether it is worked out at run time (``w = 1.0 if control
    else 0.0``, ``bs = len(x)``) rather than passed through from another name (``lr = args.lr``); ``source`` is
    then the name it passes through (``lr`` for ``args.lr``, ``learning_rate`` for ``cfg["learning_rate"]``), which
    value provenance follows (``extractors.provenance.resolve_source``); ``via`` holds the bindings it followed
    when the fact's value was resolved that way (empty for a value read where the fact is). ``unread`` marks a
    parameter default the function's body never reads (nor captures with ``locals()``): the value is never used.
    ``share`` is, for a binding computed as a fixed share of another (``n_neg = A // 8``, ``warmup = int(0.1 *
    total_steps)``), the total's name and the share (``("A", 0.125)``; ``extractors.values.share_of``), else ``None``.
    ``local_source`` marks a ``source`` read as a bare name (``lr=lr``, not ``lr=cfg.lr``): only such a read may be
    a parameter of the function it is in. ``built`` marks a binding to an object the code constructs
    (``self.embed_tokens = nn.Embedding(...)``: a call of a class, by PEP 8's CapWords naming; ``extractors.values.
    builds_object``; also a collection or a formatted text): a layer, a loader or a model, never a number; for a
    claimed choice (``AdamW``) the call is the choice itself, not a value worked out at run time. ``measured`` marks
    a binding computed as a size read off a tensor (``batch_size = x.size(0)``, ``seq_len = ids.shape[1]``;
    ``extractors.values.reads_tensor_size``): it mirrors the setting that sized the tensor, worked out elsewhere.
    ``drawn`` holds, for a binding drawn at random between constant bounds (``alphas = rng.uniform(1.0, 3.0, n)``;
    ``extractors.values.drawn_range``), the ``(low, high)`` pair, and ``spanned``, for a grid (``t = np.linspace(0, 1,
    n)``; ``extractors.values.grid_range``), the ``(start, end)`` pair, an end written as a bare name a symbol of it
    (``linspace(0.0, t_max, n)``: ``(0.0, t_max)``, for value provenance to resolve): the value is then
    ``None`` and ``computed`` true for every claim but a claimed range, which the pair states. ``key_path`` is, for a
    ``source`` read by key, the receiver's dotted name followed by the keys read, as written (``("binsyn",
    "n_calibration")`` for ``binsyn.get("n_calibration", 10)``, ``("self.cfg", "train", "lr")`` for
    ``self.cfg["train"]["lr"]``), else ``()``: the section it reads tells apart config keys of one name in several
    sections (``extractors.provenance.resolve_source``).
    """

    name: str
    path: str
    value: Value | None
    kind: str
    context: str = ""
    computed: bool = False
    source: str = ""
    via: tuple["Fact", ...] = ()
    unread: bool = False
    share: tuple[str, float] | None = None
    local_source: bool = False
    built: bool = False
    measured: bool = False
    drawn: tuple[int | float, int | float] | None = None
    spanned: tuple[Value, Value] | None = None
    key_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallFact(Location):
    """One call in Python code, where it is (``sau.vocabulary.Location``): the place where a value is consumed.

    ``callee`` is the called name as written (``torch.optim.AdamW``, ``range``, ``self.build``); ``context`` the
    enclosing class/function (dotted, ``""`` at module level); ``reads`` the last components of the names and
    attributes its arguments read, in source order (``range(cfg.M)`` reads ``M``; ``f(lr=args.lr)`` reads ``lr``).
    ``referenced`` marks a dotted name used as a value without being called (``activation=nn.ReLU``,
    ``self.act = F.elu``, ``dtype=torch.bfloat16``): the choice is made there, the call happens elsewhere.
    ``unpacks`` marks a call passing a mapping as keywords (``Config(**saved)``): it may pass any keyword;
    ``unpacked_keys`` the keys every written-out mapping it unpacks holds (``opts = dict(lr=1e-3)`` then
    ``Config(**opts)`` passes ``lr``). ``positional`` holds its positional arguments before any keyword or star,
    each an unnamed keyword fact at the argument (left empty for library consumers, whose positional arguments
    are named facts of their own: ``extractors.signatures``).
    """

    callee: str
    context: str
    reads: tuple[str, ...]
    referenced: bool = False
    unpacks: bool = False
    unpacked_keys: tuple[str, ...] = ()
    positional: tuple["Fact", ...] = ()

    @property
    def short(self) -> str:
        """The callee's last component: ``AdamW`` for ``torch.optim.AdamW``."""
        return self.callee.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Warning_:
    """A problem with one input file that did not stop the run. ``line`` is ``None`` when the file has none."""

    file: str
    line: int | None
    message: str

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class Launch:
    """One command of a shell launcher (a script, a task runner's recipe, a README's shell block) that runs a Python
    program: ``file`` and ``line`` (1-based, its first line) where it is, ``program`` as ``Fact.context`` of its
    launcher facts names it (``train.py``, ``pkg.train``), ``options`` the option names it passes (dashes read as
    underscores), possibly none. A default the program declares is still used by a launch that does not pass it."""

    file: str
    line: int
    program: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Unpacking:
    """A call that unpacks a mapping whose keys static reading does not know (``ModelConfig(**cfg["model"])``,
    ``Trainer(**opts)`` with ``opts`` loaded from a file): it may pass configuration keys as keywords. ``callee`` the
    called name as written, ``cls`` resolved to the class of the method making the call (``ModelConfig``,
    ``equation_fn``); ``section`` the key under which the unpacked mapping sits where the code names it
    (``"model"`` for ``cfg["model"]``, ``cfg.get("model", {})`` or ``cfg.model``), ``None`` when it is not known.
    ``extractors.provenance.unpacked_passes`` decides which keys such calls may pass."""

    callee: str
    section: str | None


KEY_PLACEHOLDER = "{}"  # a part of a key an f-string works out at run time (Fact.key_path: ("cfg", "{}", "lr"))
IMPORT_SCOPE = "<import>"  # the read scope of a name an import statement names (FileFacts.read_scopes)
PARAMETER_SCOPE = "<parameter>"  # before a scope: a read there of a name the function takes as a parameter


@dataclass
class FileFacts:
    """What one file yields: its facts, its calls, identifier reads, and its calls unpacking mappings of unknown keys
    (``unpackings``: ``Unpacking``). ``reads`` counts names and attributes loaded and identifier-like strings (a key
    read by ``cfg["lr"]``); ``names_read`` only the names and attributes loaded, and attributes read by name
    (``getattr(module, "lr")``): what can read a plain variable; ``plain_names_read`` only the plain names loaded
    (``lr``, not ``cfg.lr``): what cannot read a configuration key; ``read_scopes`` each read name's scopes (the
    dotted class/function paths reading it, ``""`` at module level, ``IMPORT_SCOPE`` for an import statement naming
    it, ``PARAMETER_SCOPE`` and the scope for a bare name an enclosing function takes as a parameter: no read of a
    setting bound elsewhere). ``unread`` maps a file (or ``file#cell``) that was not
    read, or only partly, to why (``"read only with
    tree-sitter"``): no absence may be settled while such a part exists (``verifier.unread``); ``unread_text`` the
    lines not read of such a part, where they are known (a file tree-sitter read in part)."""

    facts: list[Fact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    reads: Counter = field(default_factory=Counter)
    names_read: Counter = field(default_factory=Counter)
    plain_names_read: Counter = field(default_factory=Counter)
    # the mentions ``reads`` counts that read no value: string keys written (cfg["lr"] = 1e-3), imported names
    unread_mentions: Counter = field(default_factory=Counter)
    read_scopes: dict[str, set[str]] = field(default_factory=dict)
    unpackings: list[Unpacking] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    wrappers: dict = field(default_factory=dict)  # file or "file#cell" -> libcst MetadataWrapper of its module
    unread: dict[str, str] = field(default_factory=dict)
    unread_text: dict[str, str] = field(default_factory=dict)
    # (function name, or the class name for __init__; parameter) -> whether some definition's body reads it
    parameter_reads: dict[tuple[str, str], bool] = field(default_factory=dict)
    # the sources (file or file#cell) CPython would refuse to compile: none of their code can run
    uncompilable: set[str] = field(default_factory=set)
    # function name (the class name for __init__) -> its positional parameters after self/cls; None when two
    # definitions of the name disagree (merge_signatures)
    signatures: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    # function name (the class name for __init__, and a dataclass's or a pydantic model's fields) -> the names a
    # call may pass it as keywords; None when it takes **kwargs, inherits fields, or two definitions disagree
    keyword_parameters: dict[str, frozenset[str] | None] = field(default_factory=dict)
    launches: list[Launch] = field(default_factory=list)

    def merge(self, other: "FileFacts") -> None:
        """Add another part's findings (a notebook cell, a statement parsed on its own) to these."""
        self.facts.extend(other.facts)
        self.calls.extend(other.calls)
        self.reads.update(other.reads)
        self.names_read.update(other.names_read)
        self.plain_names_read.update(other.plain_names_read)
        self.unread_mentions.update(other.unread_mentions)
        for name, scopes in other.read_scopes.items():
            self.read_scopes.setdefault(name, set()).update(scopes)
        self.unpackings.extend(other.unpackings)
        self.warnings.extend(other.warnings)
        self.wrappers.update(other.wrappers)
        self.unread.update(other.unread)
        self.unread_text.update(other.unread_text)
        merge_parameter_reads(self.parameter_reads, other.parameter_reads)
        self.uncompilable |= other.uncompilable
        merge_signatures(self.signatures, other.signatures)
        merge_signatures(self.keyword_parameters, other.keyword_parameters)
        self.launches.extend(other.launches)


def value_key(value: Value) -> float | None:
    """The index key of a numeric value: its magnitude rounded to 12 significant digits, or ``None``."""
    try:
        if not is_number(value) or math.isinf(value) or math.isnan(value):
            return None
        return float(f"{abs(value):.12g}")
    except OverflowError:  # an integer beyond the float range (10 ** 400): no number a claim states
        return None


class RepositoryIndex:
    """All facts of one repository, indexed for the rules.

    Lookups: ``by_name`` maps a normalised name (see ``rules.names.normalise``) to its named facts; ``by_value``
    maps ``value_key`` to every fact (named or literal) holding that number; ``reads`` counts identifier reads
    (loads of a name or attribute, identifier-like strings outside dict keys) over all Python code; ``calls`` every
    call of Python code (``CallFact``), ``calls_by_reads`` the calls whose arguments read a name (keyed by the name);
    ``modules`` the libcst tree of each Python source libcst parsed, keyed by file (``file#cell`` for a notebook
    cell), parsed once and shared by every rule that reads code, with ``positions`` (node -> ``CodeRange``)
    resolved once for the same keys (both read-only mappings of ``extractors.trees.Trees``: a source whose facts
    came from the cache is parsed when first read); ``hashes`` the SHA-256 (hex) of each file read;
    ``stubs_by_file`` the stub and TODO findings of ``extractors.stubs``
    (suppression comments ignored: the repository under test must not silence its own stubs); ``unread`` the paths
    (files, ``file#cell``, folders ending in ``/``) that could hold code or configuration but were not read, or only
    partly, each with why, in the order met. Analyses derived from
    all of this (the call graph, expression candidates, dead functions, traces) come from ``analysis``.
    """

    def __init__(self, root: str, normalise) -> None:
        self.root = root
        self._normalise = normalise
        self.facts: list[Fact] = []
        self.by_name: dict[str, list[Fact]] = defaultdict(list)
        self.by_value: dict[float, list[Fact]] = defaultdict(list)
        self.reads: Counter = Counter()
        # FileFacts.reads less unread_mentions, of the files CPython would compile: the reads of code that may run
        self.compiled_reads: Counter = Counter()
        self.names_read: Counter = Counter()  # FileFacts.names_read of every file
        self.plain_names_read: Counter = Counter()  # FileFacts.plain_names_read of every file
        # name -> where it is read: (source key, scope) for each scope of FileFacts.read_scopes, (source key, None)
        # for a read the extractor did not place (a file read with tree-sitter): ``extractors.provenance.live_reads``
        self.read_sites: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
        self.calls: list[CallFact] = []
        self.calls_by_reads: dict[str, list[CallFact]] = defaultdict(list)
        self.unpackings: list[Unpacking] = []  # FileFacts.unpackings of every file
        self.warnings: list[Warning_] = []
        self.files: list[str] = []
        self.lines: dict[str, list[str]] = {}
        self.trees = Trees()
        self.modules = self.trees.modules  # file or "file#cell" -> libcst.Module
        self.positions = self.trees.positions  # the same keys -> {libcst node: CodeRange} (PositionProvider)
        self.hashes: dict[str, str] = {}  # file -> hex SHA-256 of its bytes
        self._analyses: dict[Callable, object] = {}  # provider -> its result, see analysis()
        self.stubs_by_file: dict[str, list] = defaultdict(list)  # extractors.stubs.StubFinding per file
        self._at: dict[tuple[str, int], list[Fact]] | None = None  # see facts_at
        self.unread: dict[str, str] = {}
        self.unread_text: dict[str, str] = {}  # the lines not read of a part read in part, where known
        self.parameter_reads: dict[tuple[str, str], bool] = {}  # FileFacts.parameter_reads of every file
        self.uncompilable: set[str] = set()  # FileFacts.uncompilable of every file
        self.signatures: dict[str, tuple[str, ...] | None] = {}  # FileFacts.signatures of every file
        self.keyword_parameters: dict[str, frozenset[str] | None] = {}  # FileFacts.keyword_parameters of every file
        self.launches: list[Launch] = []  # FileFacts.launches of every file, in file order

    def add(self, file: str, text_lines: dict[str, list[str]], found: FileFacts) -> None:
        """Add one file's facts.

        ``file`` is the relative POSIX path; ``text_lines`` maps ``file`` (or ``file#cell`` for notebook cells) to
        its source lines, kept for evidence snippets.
        """
        self.files.append(file)
        self.lines.update(text_lines)
        self.reads.update(found.reads)
        if file not in found.uncompilable:
            self.compiled_reads.update(found.reads)
            self.compiled_reads.subtract(found.unread_mentions)
        self.names_read.update(found.names_read)
        self.plain_names_read.update(found.plain_names_read)
        for name in found.reads.keys() | found.names_read.keys():
            scopes = found.read_scopes.get(name)
            if scopes:
                self.read_sites[name].update((file, scope) for scope in scopes)
            else:
                self.read_sites[name].add((file, None))
        self.unpackings.extend(found.unpackings)
        self.warnings.extend(found.warnings)
        for call in found.calls:
            self.calls.append(call)
            for name in dict.fromkeys(call.reads):
                self.calls_by_reads[name].append(call)
        self.unread.update(found.unread)
        self.unread_text.update(found.unread_text)
        merge_parameter_reads(self.parameter_reads, found.parameter_reads)
        self.uncompilable |= found.uncompilable
        merge_signatures(self.signatures, found.signatures)
        merge_signatures(self.keyword_parameters, found.keyword_parameters)
        self.launches.extend(found.launches)
        for key, wrapper in found.wrappers.items():  # the tree, and the positions its extraction resolved
            self.trees.add_parsed(key, wrapper)
        for fact in found.facts:
            self.facts.append(fact)
            if fact.kind in NAMED_KINDS:
                self.by_name[self._normalise(fact.name)].append(fact)
            for number in numbers_in(fact.value):
                key = value_key(number)
                if key is not None:
                    self.by_value[key].append(fact)

    def keyword_unread(self, fact: Fact) -> bool:
        """Whether ``fact``, a keyword argument, goes to a parameter that no definition of the called function
        (or of the class's ``__init__``) of that name reads in its body: the value is passed and never used."""
        return self.parameter_reads.get((fact.context.rsplit(".", 1)[-1], fact.name)) is False

    def facts_at(self, where: str, line: int) -> list[Fact]:
        """The facts recorded on ``line`` of the source ``where`` (``file`` or ``file#cell``); built once."""
        if self._at is None:
            self._at = defaultdict(list)
            for fact in self.facts:
                self._at[(fact.where, fact.line)].append(fact)
        return self._at.get((where, line), [])

    def named(self, name: str) -> list[Fact]:
        """The named facts whose name has the lookup key of ``name`` (``by_name``; empty when none)."""
        return self.by_name.get(self._normalise(name), [])

    def analysis(self, provider: Callable[[RepositoryIndex], Analysis]) -> Analysis:
        """The analysis ``provider`` derives from this index, computed on first use and kept for the index's life,
        so that every rule and SAU of a run shares one (in the spirit of LibCST's metadata providers). A provider is
        a module-level function of the index, declared once where its analysis is defined
        (``extractors.callgraph.build.build_call_graph``, ``rules.d2_formula.candidates`` ...); it is its own key.
        Raises whatever the provider raises, and then keeps nothing."""
        try:
            return self._analyses[provider]  # type: ignore[return-value]
        except KeyError:
            result = self._analyses[provider] = provider(self)
            return result

    def computed(self, provider: Callable[[RepositoryIndex], Analysis]) -> Analysis | None:
        """The analysis ``provider`` derived from this index if something asked for it (``analysis``), else
        ``None``; computes nothing."""
        return self._analyses.get(provider)  # type: ignore[return-value]

    def stub_counts(self) -> dict[str, int]:
        """How many stub and TODO findings of each code (``{"STB001": 3, "TOD001": 5}``), codes sorted."""
        counts = Counter(f.code for findings in self.stubs_by_file.values() for f in findings)
        return dict(sorted(counts.items()))

    def snippet(self, at: Location, limit: int = 200) -> str:
        """The source text of the first line of ``at`` (a fact, an expression, any location), stripped and cut to
        ``limit`` characters; ``""`` when the line is not known."""
        lines = self.lines.get(at.where, [])
        if not 1 <= at.line <= len(lines):
            return ""
        text = lines[at.line - 1].strip()
        return text if len(text) <= limit else text[: limit - 3] + "..."


def numbers_in(value: Value) -> Iterator[int | float]:
    """The numbers a value holds, nested tuples included (``(0.9, (1, "x"))`` -> 0.9, 1)."""
    if is_number(value):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from numbers_in(item)


# Stub codes whose finding spans code that only pretends to implement something (a function body, or a value
# marked as a placeholder); TODO comments (TOD*) do not make the code around them a stub.
STUB_CODES = frozenset({"STB001", "STB002", "STB003", "STB004"})


# A value marked only "TODO" (lr = 1e-4  # TODO tune) is still the value; one marked placeholder or dummy is not.
_PLACEHOLDER = re.compile(r"\b(placeholders?|dummy|stubs?|stubbed|not (?:yet )?implemented|unimplemented)\b",
                          re.IGNORECASE)


def stub_around(index: RepositoryIndex, fact: Fact):
    """The stub finding whose lines hold ``fact`` (a default of a function whose body is a stub, a value whose
    comment calls it a placeholder or dummy), or ``None``."""
    for finding in index.stubs_by_file.get(fact.file, ()):
        if finding.code not in STUB_CODES or not finding.line <= fact.line <= finding.end_line:
            continue
        if finding.code != "STB003":
            return finding
        lines = index.lines.get(fact.file, [])
        text = lines[finding.end_line - 1] if 0 < finding.end_line <= len(lines) else ""
        if _PLACEHOLDER.search(text.partition("#")[2]):
            return finding
    return None


def merge_signatures(into: dict[str, _Parameters | None], other: dict[str, _Parameters | None]) -> None:
    """Merge one part's ``signatures`` (or ``keyword_parameters``) into ``into``: a name two definitions give
    different parameters becomes ``None`` (which of them a call reaches is not known by its name)."""
    for owner, parameters in other.items():
        into[owner] = parameters if into.get(owner, parameters) == parameters else None


def merge_parameter_reads(into: dict[tuple[str, str], bool], other: dict[tuple[str, str], bool]) -> None:
    """Merge one part's ``parameter_reads`` into ``into``: a parameter is read if some definition reads it."""
    for key, read in other.items():
        into[key] = into.get(key, False) or read
