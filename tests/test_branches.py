"""Branches no run takes (``extractors.callgraph.branches``): an ``if`` arm is dead only where its test has one value
in every run, and every way a value could differ keeps it open."""

from pathlib import Path

import pytest

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD, LIVE
from extractors.repository import build_index
from rules import names

APPLY = """\
def apply(model, head=None):
    merged = model
    if head is not None and merged:
        merged = blend(merged, head)
    return merged


def blend(a, b):
    return a + b
"""

SWEEP = """\
from lib import apply


def sweep(model, head=None):
    return apply(model, head)


if __name__ == "__main__":
    {call}
"""


def graph_of(root: Path, files: dict[str, str]):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return build_index(root, names.normalise).analysis(build_call_graph)


def arms(graph) -> list[tuple[str, int, int]]:
    return sorted((b.key, b.line, b.end_line) for b in graph.dead_branches)


def test_a_parameter_no_call_passes_keeps_its_default_through_the_callers(tmp_path) -> None:
    graph = graph_of(tmp_path, {"lib.py": APPLY, "main.py": SWEEP.format(call="sweep(1)")})
    assert arms(graph) == [("lib.py", 4, 4)]
    assert graph.dead_branches[0].why == ("`head is not None and merged` is False in every run (head: None, every "
                                          "call of apply gives it that, main.py:5)")
    assert graph.liveness("lib.blend") == DEAD  # called only from the arm
    assert graph.branch_at("lib.py", 4) == "lib.apply.<branch:4>"
    assert graph.branch_at("lib.py", 5) is None
    assert [s.target for s in graph.callees_in_order("lib.apply")] == []


@pytest.mark.parametrize("call, extra", [
    ("sweep(1, head=2)", {}),  # one call passes it
    ("sweep(1, 2)", {}),  # positionally
    ("sweep(1, **{'head': 2})", {}),  # a mapping may pass anything
    ("sweep(*[1, 2])", {}),
    ("run(sweep)", {"runner.py": "def run(f):\n    return f(1, 2)\n"}),  # handed over: its calls are not seen
    ("sweep(1)", {"tasks.py": "TASKS = ['sweep']\n"}),  # a string may name it for a lookup
    ("sweep(1)", {"conf.yaml": "target: main.sweep\n"}),  # so may a configuration file
    # a same-named call that may run may be it
    ("sweep(1)", {"other.py": "def go(x):\n    x.sweep(1, True)\n\n\ngo(object())\n"}),
    # one missing a required argument is another's
    ("sweep(1)", {"other.py": "def go(x):\n    x.sweep()\n\n\ngo(object())\n"}),
])
def test_every_way_a_value_may_differ_keeps_the_arm(tmp_path, call, extra) -> None:
    main = SWEEP.format(call=call)
    if call.startswith("run("):
        main = "from runner import run\n" + main
    graph = graph_of(tmp_path, {"lib.py": APPLY, "main.py": main, **extra})
    assert arms(graph) == []
    assert graph.liveness("lib.blend") == LIVE


def test_a_call_no_run_makes_gives_no_value(tmp_path) -> None:
    """A call inside a function nothing calls (and no string, configuration or framework may call) is made by no
    run: the arm it alone would take is dead all the same, and the reason says which calls counted."""
    unrun = {"other.py": "def go(x):\n    x.sweep(1, True)\n"}
    graph = graph_of(tmp_path, {"lib.py": APPLY, "main.py": SWEEP.format(call="sweep(1)"), **unrun})
    assert arms(graph) == [("lib.py", 4, 4)]
    assert graph.dead_branches[0].why == ("`head is not None and merged` is False in every run (head: None, every "
                                          "call of apply gives it that, main.py:5)")
    # in a library of definitions (nothing runs its own code) anyone may call go: the arm stays
    library = {"lib.py": APPLY, "main.py": SWEEP.split("\n\nif __name__")[0] + "\n", **unrun}
    assert arms(graph_of(tmp_path / "library", library)) == []


ORACLES = """def pick(probs, oracle_fn=None):
    if oracle_fn is not None:
        return oracle_fn(probs)
    else:
        return probs.random_subset()


def top_k(probs):
    return probs.top()


def margin(probs):
    return probs.margin()


def sample(probs, oracle):
    if oracle == "top":
        {first}
    elif oracle == "margin":
        oracle_fn = margin
    else:
        raise ValueError(oracle)
    return pick(probs, oracle_fn=oracle_fn)


if __name__ == "__main__":
    import sys
    sample(load(), sys.argv[1])
"""


@pytest.mark.parametrize("first, dead", [
    # every binding names one of the repository's functions: never None (unbound, the call raises)
    ("oracle_fn = top_k", [("main.py", 5, 5)]),
    ("unused = top_k", [("main.py", 5, 5)]),  # bound on one path only: where the call runs, it holds margin
    ("oracle_fn = top_k()", []),  # a call's result may be None
    ("oracle_fn = probs.top_k", []),  # so may an attribute
    ("oracle_fn = top_k if probs else None", []),
])
def test_a_name_bound_only_to_functions_is_not_none(tmp_path, first, dead) -> None:
    graph = graph_of(tmp_path, {"main.py": ORACLES.replace("{first}", first)})
    assert graph.liveness("main.pick") == LIVE  # read and run
    assert arms(graph) == dead
    if dead:
        assert graph.dead_branches[0].why.startswith(
            "`oracle_fn is not None` is True in every run (oracle_fn: a function or class, every call of pick gives "
            "it that, main.py:")


def test_a_name_also_bound_to_none_keeps_the_arm(tmp_path) -> None:
    text = ORACLES.replace("{first}", "oracle_fn = top_k").replace('raise ValueError(oracle)', 'oracle_fn = None')
    graph = graph_of(tmp_path, {"main.py": text})
    assert graph.liveness("main.pick") == LIVE
    assert arms(graph) == []


def test_functions_a_library_or_a_decorator_may_call_keep_their_arms(tmp_path) -> None:
    graph = graph_of(tmp_path, {"main.py": """\
import click
import torch


class Head(torch.nn.Module):
    def forward(self, x, mask=None):
        if mask is not None:
            x = x + mask
        return x

    def fit(self, resume=None):
        if resume:
            print("resuming")


@click.command()
def main(flag=False):
    if flag:
        print("flag")
    Head().fit()


if __name__ == "__main__":
    main()
"""})
    assert arms(graph) == []


def test_a_local_bound_once_to_a_literal_before_its_test(tmp_path) -> None:
    graph = graph_of(tmp_path, {"main.py": """\
def run(cond):
    highres = None
    if cond:
        pass
    if highres is not None:
        print("super-resolution")
    other = None
    if cond:
        other = 1
    if other is not None:
        print("other")
    if cond:
        late = None
    else:
        late = 2
    if late is None:
        print("late")
    for step in range(3):
        flag = False
        if flag:
            print(step)


if __name__ == "__main__":
    run(len(input()) > 1)
"""})
    assert arms(graph) == [("main.py", 6, 6), ("main.py", 21, 21)]
    assert "highres: None, bound once, at main.py:2" in graph.dead_branches[0].why


def test_a_module_flag_unless_something_may_rebind_it(tmp_path) -> None:
    flag = ("DEBUG = False\n\n\ndef run():\n    if DEBUG:\n        print('debug')\n\n\n"
            "if __name__ == '__main__':\n    run()\n")
    assert arms(graph_of(tmp_path / "a", {"main.py": flag})) == [("main.py", 6, 6)]
    rebinding = flag + "\n\ndef verbose():\n    global DEBUG\n    DEBUG = True\n"
    assert arms(graph_of(tmp_path / "b", {"main.py": rebinding})) == []
    attribute = {"main.py": flag, "cli.py": "import main\n\nmain.DEBUG = True\nmain.run()\n"}
    assert arms(graph_of(tmp_path / "c", attribute)) == []


def test_an_early_exit_and_an_elif_chain(tmp_path) -> None:
    graph = graph_of(tmp_path, {"main.py": """\
def smooth(x, smoothing=None):
    if smoothing is None:
        return x
    y = x * (1 - smoothing)
    return y


def build(name="adamw"):
    if name == "adamw":
        return 1
    elif name == "sgd":
        return 2
    return 3


class Runner:
    def report(self, verbose=False):
        if not verbose:
            return 0
        return 1


if __name__ == "__main__":
    smooth(1.0)
    build()
    Runner().report()
"""})
    assert arms(graph) == [("main.py", 4, 5), ("main.py", 11, 12), ("main.py", 13, 13), ("main.py", 20, 20)]
    explicit = graph_of(tmp_path / "b", {"main.py": """\
class Runner:
    def report(self, verbose=False):
        if verbose:
            return 1
        return 0


if __name__ == "__main__":
    Runner.report(Runner(), True)
"""})
    assert arms(explicit) == [("main.py", 5, 5)]  # Class.method(obj, True) passes self itself, then True


BLOCK = """\
import torch


class Block(torch.nn.Module):
    def __init__(self, dim, use_gate=False):
        super().__init__()
        self.use_gate = use_gate
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        if self.use_gate:
            x = x * torch.sigmoid(self.proj(x))
        return x
"""


@pytest.mark.parametrize("main, extra, dead", [
    ("Block(4)(torch.zeros(4))", {}, [("model.py", 12, 12)]),  # no construction passes use_gate
    ("Block(4, use_gate=True)(torch.zeros(4))", {}, []),
    ("Block(4, True)(torch.zeros(4))", {}, []),
    ("b = Block(4)\n    b.use_gate = True\n    b(torch.zeros(4))", {}, []),  # set from outside
    ("Block(4)(torch.zeros(4))", {"sub.py": "from model import Block\n\n\nclass Gated(Block):\n    pass\n"}, []),
    ("Block(4)(torch.zeros(4))", {"util.py": "def switch(m, k):\n    setattr(m, k, True)\n"}, []),
])
def test_an_attribute_every_construction_binds_alike(tmp_path, main, extra, dead) -> None:
    files = {"model.py": BLOCK, "main.py": f"import torch\n\nfrom model import Block\n\nif __name__ == '__main__':\n"
                                           f"    {main}\n", **extra}
    graph = graph_of(tmp_path, files)
    assert arms(graph) == dead
    if dead:
        assert graph.dead_branches[0].why == (
            "`self.use_gate` is False in every run (self.use_gate: False, bound at model.py:7 to use_gate, its "
            "default; no call of Block passes it, main.py:6)")


def test_a_long_chain_of_tests(tmp_path) -> None:
    chain = " and ".join(["flag"] * 300)  # deep, yet within what the parsers accept (extractors.guards)
    graph = graph_of(tmp_path, {"main.py": f"def run(flag=False):\n    if ({chain}):\n        print(1)\n"
                                           f"    if flag:\n        print(2)\n\n\nif __name__ == '__main__':\n"
                                           f"    run()\n"})
    assert arms(graph) == [("main.py", 3, 3), ("main.py", 5, 5)]


@pytest.mark.parametrize("files", [
    # module names rebound at run time (nanoGPT's configurator, globals(), setattr on a config module)
    {"train.py": "use_ema = False\nexec(open('configurator.py').read())\n\n\ndef run():\n    if use_ema:\n"
                 "        print(1)\n\n\nif __name__ == '__main__':\n    run()\n"},
    {"train.py": "use_ema = False\nglobals()['use_ema'] = True\n\n\ndef run():\n    if use_ema:\n        print(1)\n\n\n"
                 "if __name__ == '__main__':\n    run()\n"},
    {"config.py": "use_amp = False\n\n\ndef scale():\n    if use_amp:\n        return 2\n    return 1\n",
     "main.py": "import config\n\nif __name__ == '__main__':\n    for config.use_amp in (False, True):\n"
                "        config.scale()\n"},
    # a comprehension variable named like the caller's parameter
    {"main.py": "def apply(x, scale=None):\n    if scale is not None:\n        x = x * scale\n    return x\n\n\n"
                "def sweep(scale=None):\n    return [apply(1, scale) for scale in (1, 2)]\n\n\n"
                "if __name__ == '__main__':\n    sweep()\n"},
    # functions handed to the command line, or run from a Makefile or a job script
    {"main.py": "import fire\n\n\ndef train(resume=False):\n    if resume:\n        print(1)\n\n\n"
                "if __name__ == '__main__':\n    train()\n    fire.Fire()\n"},
    {"main.py": SWEEP.format(call="sweep(1)"), "lib.py": APPLY,
     "Makefile": "demo:\n\tpython -c 'from lib import apply; apply(1, head=2)'\n"},
    {"main.py": SWEEP.format(call="sweep(1)"), "lib.py": APPLY,
     "job.slurm": "#!/bin/bash\npython -c 'from lib import apply; apply(1, head=2)'\n"},
    # an estimator's fit, which a library calls with the labels
    {"main.py": "class Scaler:\n    def fit(self, X, y=None):\n        if y is not None:\n            print(y)\n"
                "        return self\n\n\nif __name__ == '__main__':\n    Scaler().fit([1])\n"},
    # an object rebuilt through its own class with other arguments
    {"model.py": BLOCK.replace("        return x\n", "        return x\n\n    def gated(self):\n"
                                                  "        return self.__class__(4, use_gate=True)\n"),
     "main.py": "import torch\n\nfrom model import Block\n\nif __name__ == '__main__':\n    Block(4).gated()\n"},
    # a function held as a value, then called with the flag
    {"main.py": "class T:\n    def fit(self, x, verbose=False):\n        if verbose:\n            print(x)\n\n\n"
                "if __name__ == '__main__':\n    t = T()\n    t.fit(1)\n    step = t.fit\n    step(1, True)\n"},
])
def test_values_set_where_the_analysis_does_not_read_keep_the_arm(tmp_path, files) -> None:
    assert arms(graph_of(tmp_path, files)) == []
