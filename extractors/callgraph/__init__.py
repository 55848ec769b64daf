"""The call graph of one repository: modules, classes and functions, the imports and calls between them, and
what the entry points reach.

Built from the libcst trees the index already holds (``RepositoryIndex.modules``; no file is parsed again) and
kept as a ``networkx.DiGraph``. Nothing is imported or run: every edge is what static analysis can resolve.

Nodes (``graph.nodes[n]`` has ``kind``, ``file``, ``line``, ``end_line``):

- ``module`` ``pkg.mod`` (``pkg`` for ``pkg/__init__.py``; a notebook ``nb/a.ipynb`` is the module ``nb.a``): its
  top-level code, class bodies included;
- ``main`` ``pkg.mod.__main__``: the body of ``if __name__ == "__main__":``;
- ``cell`` ``nb.a#3``: one notebook code cell (the cells share the notebook's namespace, as in Jupyter);
- ``function`` ``pkg.mod.f``, ``pkg.mod.Class.method``, ``pkg.mod.f.inner``; ``class`` ``pkg.mod.Class``;
- ``shell`` ``sh:scripts/run.sh``: a shell script that runs Python files or modules;
- ``branch`` ``pkg.mod.f.<branch:12>``: an ``if`` arm no run takes (``branches``), holding the call sites and mentions
  of its lines; nothing calls it.

Edges carry ``kind``, ``file``, ``line`` (the first site) and ``lines`` (every site). Kinds: ``call`` (a
resolved call), ``instantiate`` (``C(...)`` -> the class node; the class node -> ``C.__init__``), ``hook`` (class
-> the methods frameworks call on an instance: ``forward``, dunders, Lightning ``*_step``), ``instance`` (calling an
instance, ``model(x)`` -> ``forward`` or ``__call__``), ``reference`` (a function passed or stored without being
called: callbacks, registries; and a class whose attribute is read through it, ``Config.LR`` of a settings class
never instantiated), ``import`` (module -> imported module, and each package ``__init__`` on the way),
``run`` (a shell script, a module running its ``__main__`` block, a notebook its cells) and ``by_name`` (an
attribute call on a receiver of unknown type, ``x.fit()``, to every repository method of that name: a guess, so
it only makes a function *maybe* live).

Resolved calls: module functions, imported names (absolute, relative, ``from`` imports, aliases, ``__init__``
re-exports, star imports), ``self.m()``/``cls.m()`` through the repository's base classes, ``super().m()``,
``self.attr.m()`` when ``__init__`` (or any method) sets ``self.attr = C(...)``, ``x.m()`` and ``x(...)`` when
``x = C(...)`` in the same scope (or at module level), and nested functions; a variable choosing among classes
(``cls = A``, ``Model = A if flag else B``, one class per ``if``/``elif`` arm), when its assignments are all its
bindings, constructs each class they offer, as arms of one choice, and the object it builds (``x = cls(...)``,
``self.x = cls(...)``) runs each class's method called on it (one class alone types it). Imports are resolved as Python
would with the repository root, or the importing file's folder or one of its parents, on ``sys.path`` (scripts
of ML repositories import their siblings by bare name); a name several files could provide is left unresolved.

Entry points: ``if __name__ == "__main__":`` blocks, module-level ``main()`` functions, console scripts
(``[project.scripts]``, ``[tool.poetry.scripts]``, setup.py/setup.cfg ``console_scripts``), shell scripts
(``*.sh``) running ``python x.py`` / ``python -m pkg.mod`` (also through torchrun, accelerate, deepspeed), every
notebook, and every *script*: a module no other repository module imports, whose top-level code runs when
someone runs the file. Test files (``tests/``, ``test_*.py``, ``conftest.py``) and ``setup.py`` are no entry
points: they exercise or package the code, they are not the pipeline. ``test.py`` is kept: in ML repositories it
is usually the evaluation script. A test file's ``__main__`` block is kept as a ``test_main`` entry point: a check
written to be run by hand (``python scripts/test_model.py``) runs what it calls, but readers differ on whether a
check is part of the experiment (a smoke run of the model: yes; a unit test of a loss nothing trains with: a
trace), so what only it reaches is ``maybe``, never ``dead``; it alone does not make the rest of a library dead, and
its dynamic dispatch (a runner calling ``getattr(test, name)()``) does not make the experiment's code undecidable.
A command registered on a click group or typer application (``@cli.command()``) is called by the group function,
or by every scope of its module calling the application object (``app()``).

Liveness (``CallGraph.liveness``): ``live`` when reachable from an entry point through certain edges; ``maybe``
when only through ``by_name`` edges or from a ``test_main`` entry point, when the function carries a decorator that
may register it somewhere or such a function reaches it, or
when live code dispatches dynamically (``getattr(obj, name)``, ``importlib.import_module``, ``eval``) or the
repository has no entry point at all; ``dead`` otherwise.

Modules: ``model`` (the records, the graph and the node/edge kinds), ``scan`` (one pass over one source),
``resolve`` (imports and names across modules), ``entry_points`` (where execution starts), ``branches`` (the
``if`` arms no run takes), ``build``
(``build_call_graph``: nodes, edges, reachability). Word lists live in ``extractors/words.yaml``.
"""

from __future__ import annotations

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import (BY_NAME, CALL, CELL, CERTAIN_EDGES, CHOICE_KEYS, CLASS, DEAD, EXPR_RECEIVER,
                                        EXTERNAL, FUNCTION, HOOK, IMPORT, INSTANCE, INSTANTIATE, LIVE, MAIN, MAYBE,
                                        MODULE, REFERENCE, RUN, SHELL, UNRESOLVED, CallGraph, CallSite, EntryPoint,
                                        FunctionInfo, Mention, module_name)

__all__ = [
    "BY_NAME", "CALL", "CELL", "CERTAIN_EDGES", "CHOICE_KEYS", "CLASS", "DEAD", "EXPR_RECEIVER", "EXTERNAL", "FUNCTION",
    "HOOK", "IMPORT", "INSTANCE", "INSTANTIATE", "LIVE", "MAIN", "MAYBE", "MODULE", "REFERENCE", "RUN", "SHELL",
    "UNRESOLVED", "CallGraph", "CallSite", "EntryPoint", "FunctionInfo", "Mention", "build_call_graph", "module_name",
]
