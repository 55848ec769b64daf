"""A content-addressed cache on disk: what a run derived from its inputs, kept for the next run over the same inputs.

An entry is one file named by its key, a SHA-256 of everything its value depends on: the tool's fingerprint (the
version, every source and data file of the project's packages, the Python and parser versions: a changed rule
or word list is a different tool), what kind of entry it is, and the inputs (a file's content hash and path; a
repository's manifest and the spec). Two stores use it: the index keeps one product per file
(``extractors.repository``), the run one set of verdicts per repository, spec and options (``verifier.run``).

The cache only ever saves work: deleting the folder, or any entry, changes no result. An entry is trusted only when
its header names this format and its own key, its payload matches the checksum the header gives, and its payload
unpickles to the expected type through an unpickler that builds nothing but the project's records, sympy's numbers
and plain containers; anything else (a torn write, another tool's file, a foreign or tampered entry) is ignored,
and the value is rebuilt and written over it. Writes are atomic (a temporary file renamed into place), so that
parallel runs sharing the folder never see half an entry. A folder that cannot be written costs only the cache.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import os
import pickle
import sys
import tempfile
from functools import cache as _once
from pathlib import Path
from typing import TypeVar

from extractors.walk import files_below, walk

ENV_FOLDER = "SAUVERIFY_CACHE_DIR"  # the environment variable naming the cache folder
_MAGIC = b"sauverify-cache/1\n"
_PACKAGES = ("sau", "extractors", "rules", "llm_fallback", "verifier")  # the project's packages, fingerprinted
_LIBRARIES = ("libcst", "tree-sitter", "tree-sitter-python", "sympy", "networkx", "PyYAML", "nbformat")
# What an entry may build when unpickled: classes of these packages (records, enumerations) ...
_CLASS_PACKAGES = frozenset(_PACKAGES) | {"sympy", "mpmath", "collections", "fractions", "decimal", "pathlib"}
# ... and these plain builtins; never a function (a reduce step calling one could do anything).
_BUILTINS = frozenset({"set", "frozenset", "tuple", "list", "dict", "int", "float", "complex", "str", "bytes",
                       "bool", "slice", "object", "range"})
# ... and these functions, which only rebuild a record from its parts (sympy pickles an undefined function ``f(x)``
# by the name and assumptions of ``f``).
_REBUILDERS = frozenset({("copyreg", "_reconstructor"), ("sympy.core.function", "_rebuild_undef")})
Value = TypeVar("Value")


def cache_folder(configured: Path | None = None) -> Path:
    """The cache folder: ``$SAUVERIFY_CACHE_DIR`` when set, else ``configured`` (``cache-dir`` in
    ``[tool.sauverify]``), else the user's cache folder (``platformdirs.user_cache_dir``: ``$XDG_CACHE_HOME/sauverify``
    or ``~/.cache/sauverify`` on Linux)."""
    named = os.environ.get(ENV_FOLDER)
    if named:
        return Path(named)
    if configured is not None:
        return configured
    import platformdirs  # only when no folder is named
    return Path(platformdirs.user_cache_dir("sauverify", appauthor=False))


_HERE = Path(__file__).resolve().parent.parent  # the folder holding the project's packages
_MEMO = "fingerprint"  # the file in the cache folder that remembers the fingerprint (``Cache.fingerprint``)
_MEMO_MAGIC = "sauverify-fingerprint/1"


@_once
def _tool_files() -> tuple[str, ...]:
    """The ``.py`` and ``.yaml`` files of the project's packages, in a fixed order."""
    return tuple(path for package in _PACKAGES
                 for path in sorted(files_below(_HERE / package, lambda _, name: name == "__pycache__"))
                 if path.endswith((".py", ".yaml")))


@_once
def tool_fingerprint() -> str:
    """A SHA-256 (hex) of what makes this tool decide as it does: its version, the bytes of every ``.py`` and
    ``.yaml`` file of its packages (so that an edited rule or word list never reads an older tool's entries), and
    the versions of Python and of the libraries that parse and compute. Computed once per process."""
    from importlib import metadata  # 30 ms of imports, which a run that finds its fingerprint remembered skips
    digest = hashlib.sha256()
    try:
        version = metadata.version("sauverify")
    except metadata.PackageNotFoundError:
        version = "0+unknown"
    digest.update(f"{version}\0{sys.version}\0".encode())
    for library in _LIBRARIES:
        try:
            digest.update(f"{library}={metadata.version(library)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=?\0".encode())
    for path in _tool_files():
        digest.update(os.path.relpath(path, _HERE).encode() + b"\0")
        digest.update(Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


@_once
def _tool_stamp() -> str:
    """A SHA-256 (hex) of what ``tool_fingerprint`` reads, by size and modification time instead of bytes and
    versions: the size and time of every file of the project's packages (and the bytes of its ``.yaml`` data files,
    which no compiled copy stands for), the Python version and executable, and the modification time of every
    folder on ``sys.path`` (installing, upgrading or removing a library adds or removes its metadata folder there).
    For the code, the test Python itself uses to reuse a compiled module (PEP 552's default)."""
    digest = hashlib.sha256(f"{sys.version}\0{sys.executable}\0".encode())
    for path in _tool_files():
        try:
            info = os.stat(path)
            # the data files (word lists, tables) by their bytes: few and small, and no compiled copy keeps them
            data = hashlib.sha256(Path(path).read_bytes()).hexdigest() if path.endswith(".yaml") else ""
        except OSError:
            return ""  # a file vanished since it was listed: no stamp, the fingerprint is computed
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0{data}\0".encode())
    for entry in sys.path:
        try:
            digest.update(f"{entry}\0{os.stat(entry or '.').st_mtime_ns}\0".encode())
        except OSError:
            digest.update(f"{entry}\0?\0".encode())
    return digest.hexdigest()


class Cache:
    """The cache folder of one run. ``key(kind, *parts)`` names an entry; ``get(key, expected)`` returns its value
    when the entry is sound and holds an ``expected`` instance, else ``None``; ``put(key, value)`` writes one.
    ``hits`` and ``misses`` count ``get``'s answers (for measurements and tests). Never raises on a missing,
    corrupt or foreign entry, nor on a folder that cannot be written."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.hits = 0
        self.misses = 0
        self._fingerprint: str | None = None

    def fingerprint(self) -> str:
        """``tool_fingerprint``, remembered in the folder under ``_tool_stamp``: a run whose tool files, Python and
        installed libraries have the sizes and times the stamp saw reads it back instead of hashing every file and
        importing ``importlib.metadata`` (50 ms, a quarter of a fully cached run)."""
        if self._fingerprint is None:
            stamp, memo = _tool_stamp(), self.folder / _MEMO
            try:
                magic, stamped, fingerprint = memo.read_text(encoding="ascii").split()
                if magic == _MEMO_MAGIC and stamp and stamped == stamp and len(fingerprint) == 64:
                    self._fingerprint = fingerprint
            except (OSError, ValueError, UnicodeDecodeError):
                pass
            if self._fingerprint is None:
                self._fingerprint = tool_fingerprint()
                if stamp:
                    self._write(memo, f"{_MEMO_MAGIC} {stamp} {self._fingerprint}\n".encode("ascii"))
        return self._fingerprint

    def key(self, kind: str, *parts: str | bytes) -> str:
        """The key (hex SHA-256) of an entry of ``kind`` ("file", "verdicts") whose value depends on ``parts``,
        under this tool's fingerprint. Each part is length-prefixed, so no two lists of parts share a key."""
        digest = hashlib.sha256(f"{self.fingerprint()}\0{kind}\0".encode())
        for part in parts:
            data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
            digest.update(f"{len(data)}:".encode() + data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / key

    def get(self, key: str, expected: type[Value]) -> Value | None:
        """The value stored under ``key`` if the entry is sound (module docstring) and an ``expected``."""
        value = self._load(key)
        if isinstance(value, expected):
            self.hits += 1
            return value
        self.misses += 1
        return None

    def _load(self, key: str) -> object:
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        header = _MAGIC + key.encode() + b"\n"
        if not data.startswith(header):
            return None
        checksum, payload = data[len(header):len(header) + 64], data[len(header) + 65:]
        if data[len(header) + 64:len(header) + 65] != b"\n" or hashlib.sha256(payload).hexdigest().encode() != checksum:
            return None
        try:
            return _Unpickler(io.BytesIO(payload)).load()
        except Exception:  # a payload that passed the checksum but builds something not allowed, or fails to
            return None

    def put(self, key: str, value: object) -> None:
        """Store ``value`` under ``key`` (atomically: readers see the old entry or the new one, never a part)."""
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a value holding something that does not pickle is simply not cached
            return
        data = _MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        self._write(self._path(key), data)

    @staticmethod
    def _write(target: Path, data: bytes) -> None:
        """Write ``data`` to ``target`` atomically (a temporary file renamed into place); a folder that cannot be
        written costs only the cache."""
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:  # a read-only or full cache folder costs only the cache
            return


class _Unpickler(pickle.Unpickler):
    """Builds only classes of the allowed packages and plain builtins (module docstring): an entry that names a
    function or anything else raises ``pickle.UnpicklingError``, and is then ignored."""

    def find_class(self, module: str, name: str) -> object:
        if module == "builtins":
            if name in _BUILTINS:
                return getattr(builtins, name)
        elif (module, name) in _REBUILDERS:
            return super().find_class(module, name)
        elif module.split(".", 1)[0] in _CLASS_PACKAGES:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"not allowed in a cache entry: {module}.{name}")


def tree_manifest(root: Path, hashes: dict[str, str]) -> bytes:
    """What a repository holds, for keys that depend on all of it: every file below ``root`` (``.git`` excepted),
    in sorted order, with its content hash when ``hashes`` (relative POSIX path -> hex SHA-256, the files the index
    read) has one, else its type, size and modification time (a rule may read files the index does not, such as a
    data manifest a launcher passes; touching one only costs a cache miss). Links are described, never followed."""
    parts: list[str] = []
    for full in files_below(root, lambda _, name: name == ".git"):
        relative = Path(full).relative_to(root).as_posix()
        known = hashes.get(relative)
        if known is not None:
            parts.append(f"{relative}\0{known}")
            continue
        try:
            info = os.lstat(full)
        except OSError:
            parts.append(f"{relative}\0?")
            continue
        parts.append(f"{relative}\0{info.st_mode:o}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(parts).encode("utf-8", "surrogateescape")


def repository_manifest(root: Path, max_bytes: int, exclude: tuple[str, ...], all_projects: bool) -> bytes:
    """``tree_manifest`` of ``root`` with the content hash of every file the index would read (``walk`` with the
    same options), then every path the walk passed over with its reason (a link to a folder, a folder it could not
    list, a run-output folder: they change a run's warnings and what it may settle, and ``tree_manifest`` lists
    files only), computed without parsing any: what a key over a whole run's inputs needs. Raises
    ``NotADirectoryError`` when ``root`` is not a folder."""
    files, skipped = walk(root, max_bytes, exclude, all_projects)
    hashes = {}
    for source in files:
        try:
            hashes[source.relative] = hashlib.sha256(source.path.read_bytes()).hexdigest()
        except OSError:  # described by its size and time instead, as the index's key does
            continue
    passed = "\n".join(f"{item.relative}\0{item.reason}\0{item.unread}" for item in skipped)
    return tree_manifest(root, hashes) + b"\n\0skipped\n" + passed.encode("utf-8", "surrogateescape")
