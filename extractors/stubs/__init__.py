"""Stubs, placeholders and TODO markers in Python source: the facts behind the stub cap (ARCHITECTURE.md, "What each
dimension can settle") and the ``verify-stubs`` pre-commit hook.

SA-Bench found that stubs and placeholders are about a sixth of all zero-scored claims in agent-generated
reproductions. This module finds them statically (the code is parsed, never imported or run).

Finding codes
-------------
STB001  empty body
    A function or method whose body is only ``pass``, ``...``, a docstring, or a docstring plus ``pass``/``...``.
    Source: ARCHITECTURE.md ("Stubs: ... ``pass``, ``...``, ... a docstring only"); pylint W0107 (unnecessary-pass) and
    flake8-pie PIE790 look at the same bodies, from the other side.
STB002  only raises NotImplementedError
    A function whose body (after an optional docstring and optional print/log calls) only does
    ``raise NotImplementedError`` / ``raise NotImplementedError(...)`` (also the common misspelling
    ``raise NotImplemented``), or only ``return NotImplemented`` outside the binary and rich-comparison dunders,
    where ``NotImplemented`` is the documented protocol value. Source: ARCHITECTURE.md (stubs); Python docs,
    "NotImplementedError" and "NotImplemented" (library/exceptions, library/constants); pylint W0223 (abstract-method).
STB003  placeholder value marked by a comment
    A ``return`` or an assignment whose line ends with a comment saying the value is a placeholder: TODO, FIXME,
    XXX, placeholder, dummy, stub, not (yet) implemented, unimplemented, to be implemented
    (``return 0.0  # placeholder``, ``x = torch.zeros(3)  # dummy``, ``return None  # TODO``). The comment is the
    comment on the statement's last line, after the statement. A TODO/FIXME/XXX tag in that comment is also
    reported as TOD001 (a tag is always a TOD code, so ``--select TOD`` sees every one); a placeholder marker there
    is not reported again as TOD002. Source: ARCHITECTURE.md ("a placeholder value"); SA-Bench's stub category.
STB004  body only reports that it is not implemented
    A function whose body (after an optional docstring) is only ``print``/logging/``warnings.warn`` calls, at least
    one of whose string arguments says not implemented / unimplemented / to be implemented / placeholder / stub /
    TODO, optionally followed by one ``return`` (any value) or ``pass``. Source: SA-Bench's stub category
    (agents announce the gap instead of raising).
TOD001  TODO / FIXME / XXX / HACK comment
    A comment containing the tag as a whole word: ``TODO`` (also ``TODOs``) and ``FIXME`` in any case, ``XXX`` and
    ``HACK`` in capitals only (lower-case "hack" is usually prose). Source: pylint W0511 (fixme); flake8-fixme
    FIX001..FIX004; ruff's FIX rules.
TOD002  placeholder marker in a comment
    A comment containing, as whole words and in any case, "not implemented", "not yet implemented",
    "unimplemented", "to be implemented", "placeholder(s)", "dummy", "stub(s)"/"stubbed". A comment yields at most
    one finding: TOD001 wins over TOD002. Source: SA-Bench's stub category; ARCHITECTURE.md ("a stub or TODO" is a
    fact).

Word matching is on word boundaries, where ``_`` is a word character: "stubborn" is not "stub", "dummy_input" is not
"dummy". Only comments count for TOD001/TOD002: names, strings and docstrings do not; nor do URLs and file names
inside a comment (``https://example.org/todo/list``, ``see docs/TODO.md``, ``stub.py``).

Notebooks (``.ipynb``) are checked cell by cell (``extractors.notebooks``: magics and non-Python cell bodies
blanked); a finding's path is then ``nb.ipynb:cell_N`` and its line the line within the cell.

Not findings: members decorated ``@abstractmethod`` / ``@abc.abstractmethod`` (and ``abstractproperty``,
``abstractclassmethod``, ``abstractstaticmethod``), members of ``typing.Protocol`` classes, ``@overload``
signatures, ``.pyi`` files (no findings at all), ``return NotImplemented`` in binary and rich-comparison dunders
(``__eq__``, ``__add__``, ...), ``pass`` anywhere but a whole function body (an ``except`` block, an empty class
such as ``class MyError(Exception): pass``), ``...`` as a default value, and a function whose body is missing
because the file is cut off.

Also not findings, each a false-positive pattern measured on the SA-Bench development repositories with
``benchmarks/stub_scan.py``:

- an empty ``__init__``, ``__post_init__``, ``__init_subclass__``, ``__del__`` or ``__exit__`` method: nothing to set
  up is not a missing mechanism (the class's other methods are still checked);
- an empty body that its docstring or a comment in it declares intended ("no-op", "nothing to do", "does nothing",
  "intentionally", "not needed"), unless it also carries a TODO or placeholder marker;
- a method that a subclass defined in the same file overrides: the base method is an interface, the override is the
  implementation (Python's pre-``abc`` idiom for abstract methods);
- STB findings and TOD002 inside an import fallback (a ``try`` statement with an ``except ImportError:`` or
  ``except ModuleNotFoundError:`` handler, and the comment lines right above it): stand-ins for code imported from
  elsewhere. TOD001 is still reported there;
- "dummy" used as a technical term or in test code: in a comment that also speaks of a shape, dim/dimension, axis or
  flatten(ed) ("add a dummy batch dim", "dummy tensor to infer the flattened size"), and in
  ``if __name__ == "__main__":`` blocks, ``test_*`` functions and test files (``test_*.py``, ``*_test.py``,
  ``conftest.py``, files under ``tests/`` or ``test/``), where dummy data is the point;
- "placeholder" as a multimodal-model term: "placeholder token(s)", "image/visual/patch/mask placeholder(s)";
- a placeholder that the comment says is filled in later ("will be set per equation", "populated by
  set_timesteps", "will be determined by dataset"): an initial value, not a stub.

Inline suppression: a comment ``# sauverify: ignore`` (every code) or ``# sauverify: ignore[TOD001,STB]`` (codes or
code prefixes) suppresses the findings whose lines (``line`` .. ``end_line``) include the comment's line.

Parsing: inside the verifier, the file's libcst tree (with ``PositionProvider``), which the index has already built.
On its own (``verify-stubs``), tree-sitter-python first, which is quicker to import and to run; only when its tree
holds an error node, or a function, class, ``try`` or ``if`` that ends with comments (tree-sitter ends it at
them, libcst at its last statement), is libcst asked. On every other file the two collectors fill the same
``Parsed`` (checked over the 3,259 Python files of SA-Bench's runs), so the order changes no finding. Where
libcst cannot parse the file either (Python 2 syntax, a stray markdown fence on line 1, a truncated file), the
rules run on tree-sitter's tree with its error nodes, so findings are still reported.

Modules: ``findings`` (``StubFinding``, ``CODES``, ``code_selected``), ``parse`` (what the parsers see),
``parse_cst`` and ``parse_ts`` (the libcst and tree-sitter collectors), ``codes`` (one rule per code), ``detect``
(``find_stubs``, which parser reads a file, and the file helpers).
Word lists live in ``extractors/words.yaml``; the files the ``verify-stubs`` hook checks come from
``extractors.walk.iter_python_files``.
"""

from __future__ import annotations

from extractors.stubs.detect import find_stubs, find_stubs_in_file, read_source
from extractors.stubs.findings import CODES, StubFinding, code_selected
from extractors.walk import iter_python_files

__all__ = [
    "CODES",
    "StubFinding",
    "code_selected",
    "find_stubs",
    "find_stubs_in_file",
    "iter_python_files",
    "read_source",
]
