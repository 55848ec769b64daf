"""The call graph on a small repository written for it (tests/fixtures/callgraph/repo): import forms, call
resolution, entry points and liveness, each asserted with the node, edge kind and line it must produce."""

from pathlib import Path

import pytest

from extractors.callgraph.build import build_call_graph
from extractors.callgraph.model import DEAD, LIVE, MAYBE, module_name
from extractors.repository import build_index
from rules import names

REPO = Path(__file__).parent / "fixtures" / "callgraph" / "repo"


@pytest.fixture(scope="module")
def graph():
    return build_index(REPO, names.normalise).analysis(build_call_graph)


def edge(graph, source, target):
    data = graph.graph.edges[source, target]
    return data["kind"], data["file"], data["line"]


def test_module_names() -> None:
    assert module_name("pkg/sub/ops.py") == "pkg.sub.ops"
    assert module_name("pkg/__init__.py") == "pkg"
    assert module_name("notebooks/analysis.ipynb#3") == "notebooks.analysis"


def test_relative_imports_and_aliases(graph) -> None:
    # from ..layers import Block; Block(width)
    assert edge(graph, "pkg.sub.ops.make", "pkg.layers.Block") == ("instantiate", "pkg/sub/ops.py", 6)
    # from . import util as u; u.double(...)
    assert edge(graph, "pkg.sub.ops.make", "pkg.sub.util.double") == ("call", "pkg/sub/ops.py", 8)
    # import pkg.sub.ops as ops; ops.make(4)
    assert edge(graph, "pkg.cli.run", "pkg.sub.ops.make") == ("call", "pkg/cli.py", 5)


def test_init_reexport_and_instance_calls(graph) -> None:
    # from pkg import Block (re-exported by pkg/__init__.py); self.model = Block(2); self.model(x) -> forward
    assert edge(graph, "scripts.train.Trainer.__init__", "pkg.layers.Block") == ("instantiate", "scripts/train.py", 6)
    assert edge(graph, "scripts.train.Trainer.step", "pkg.layers.Block.forward") == ("instance", "scripts/train.py", 9)
    # trainer = Trainer(); trainer.fit(): a method of an instance made in the same scope
    assert edge(graph, "scripts.train.main", "scripts.train.Trainer.fit") == ("call", "scripts/train.py", 18)


def test_self_super_and_inherited_methods(graph) -> None:
    assert edge(graph, "scripts.train.Trainer.fit", "scripts.train.Trainer.step") == ("call", "scripts/train.py", 13)
    # block.describe() is inherited from Base; super().__init__() goes to the base class
    assert edge(graph, "pkg.sub.ops.make", "pkg.layers.Base.describe") == ("call", "pkg/sub/ops.py", 7)
    assert edge(graph, "pkg.layers.Block.__init__", "pkg.layers.Base.__init__") == ("call", "pkg/layers.py", 17)
    assert edge(graph, "pkg.layers.Block", "pkg.layers.Block.forward")[0] == "hook"


def test_calls_in_order_with_loops(graph) -> None:
    sites = graph.callees_in_order("scripts.train.Trainer.fit")
    assert [(s.target, s.kind, s.line, s.in_loop) for s in sites] == [
        ("range", "external", 12, True), ("scripts.train.Trainer.step", "call", 13, True)]
    shell = graph.callees_in_order("sh:run.sh")
    assert [(s.callee, s.line) for s in shell] == [("scripts.train", 3), ("scripts.evaluate", 4)]


def test_entry_points(graph) -> None:
    found = {(e.node, e.kind, e.file, e.line) for e in graph.entry_points}
    assert ("scripts.train.__main__", "main_block", "scripts/train.py", 21) in found
    assert ("scripts.train.main", "main_function", "scripts/train.py", 16) in found
    assert ("pkg.cli.run", "console_script", "pyproject.toml", 5) in found
    assert ("sh:run.sh", "shell", "run.sh", 1) in found
    assert ("notebooks.analysis", "notebook", "notebooks/analysis.ipynb", 1) in found
    assert ("scripts.evaluate", "script", "scripts/evaluate.py", 1) in found
    assert not any(e.node.startswith("pkg.layers") for e in graph.entry_points)  # imported: no script


def test_liveness(graph) -> None:
    assert graph.liveness("pkg.sub.util.double") == LIVE
    assert graph.liveness("notebooks.analysis.show") == LIVE
    assert graph.liveness("pkg.layers.Base.reset") == LIVE  # through describe()
    assert graph.liveness("pkg.layers.Block.unused_helper") == DEAD
    assert graph.liveness("pkg.sub.ops.orphan") == DEAD
    info = graph.functions["pkg.sub.ops.orphan"]
    assert (info.file, info.line, info.end_line, info.name, info.class_name) == (
        "pkg/sub/ops.py", 11, 12, "orphan", None)
    assert graph.functions["pkg.layers.Block.forward"].class_name == "pkg.layers.Block"
    assert graph.functions["notebooks.analysis.show"].file == "notebooks/analysis.ipynb#2"


def test_unknown_receiver_is_only_maybe(tmp_path) -> None:
    (tmp_path / "lib.py").write_text("class Runner:\n    def launch(self):\n        return 1\n")
    (tmp_path / "main.py").write_text("import lib\n\n\ndef main(runner):\n    runner.launch()\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.graph.edges["main.main", "lib.Runner.launch"]["kind"] == "by_name"
    assert graph.liveness("lib.Runner.launch") == MAYBE


def test_library_without_runner_claims_nothing_dead(tmp_path) -> None:
    (tmp_path / "metrics.py").write_text("def fid(a, b):\n    return a - b\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert not graph.runnable
    assert graph.liveness("metrics.fid") == MAYBE


def test_subclass_statements_run_nothing(tmp_path) -> None:
    # a library of definitions whose classes derive from its own base class: the base named in a class statement
    # is a reference, not a call, so no script runs repository code and nothing is called dead
    (tmp_path / "beliefs.py").write_text("class Belief:\n    pass\n\n\nclass Gaussian(Belief):\n    pass\n")
    (tmp_path / "methods.py").write_text("def perturb(x, sigma, eps):\n    return x + sigma * eps\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert edge(graph, "beliefs", "beliefs.Belief") == ("reference", "beliefs.py", 5)
    assert not graph.runnable
    assert graph.liveness("methods.perturb") == MAYBE


def test_console_scripts_of_setup_py_and_setup_cfg_and_launchers(tmp_path) -> None:
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "a.py").write_text("def go():\n    return 1\n")
    (tmp_path / "tool" / "b.py").write_text("def run():\n    return 2\n")
    (tmp_path / "tool" / "c.py").write_text("import tool.a\n\nx = tool.a.go()\n")
    (tmp_path / "setup.py").write_text("from setuptools import setup\n\nsetup(entry_points={\n"
                                       "    'console_scripts': ['tool-a = tool.a:go'],\n})\n")
    (tmp_path / "setup.cfg").write_text("[options.entry_points]\nconsole_scripts =\n    tool-b = tool.b:run\n")
    (tmp_path / "launch.sh").write_text("torchrun --nproc_per_node 8 tool/c.py --lr 1e-4\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    found = {(e.node, e.kind, e.file, e.line) for e in graph.entry_points}
    assert ("tool.a.go", "console_script", "setup.py", 4) in found
    assert ("tool.b.run", "console_script", "setup.cfg", 3) in found
    assert ("sh:launch.sh", "shell", "launch.sh", 1) in found
    assert [(s.callee, s.line) for s in graph.callees_in_order("sh:launch.sh")] == [("tool.c", 1)]
    assert not any(e.file == "setup.py" and e.kind == "script" for e in graph.entry_points)


def test_dynamic_dispatch_makes_uncalled_code_maybe(tmp_path) -> None:
    (tmp_path / "run.py").write_text(
        "import importlib\n\n\ndef unused():\n    return 0\n\n\n"
        "if __name__ == '__main__':\n    importlib.import_module('plugins').main()\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.dynamic
    assert graph.liveness("run.unused") == MAYBE


def test_call_picked_from_a_module_namespace_may_run_each_of_its_definitions(tmp_path) -> None:
    # models.__dict__[args.model](...) (the official hi-mar's model factory) may build any model the module defines,
    # and nothing else: the graph stays able to call unrelated uncalled code dead; vars(models)[name] alike
    _write(tmp_path, {
        "models.py": "def small(**kw):\n    return 1\n\n\ndef large(**kw):\n    return 2\n",
        "train.py": "import argparse\nimport models\n\n\ndef unused():\n    return 0\n\n\n"
                    "def main(args):\n    return models.__dict__[args.model](depth=2)\n\n\n"
                    "def other(name):\n    return vars(models)[name]()\n\n\n"
                    "if __name__ == '__main__':\n    main(argparse.ArgumentParser().parse_args())\n",
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert edge(graph, "train.main", "models.small") == ("by_name", "train.py", 10)
    assert edge(graph, "train.main", "models.large") == ("by_name", "train.py", 10)
    assert edge(graph, "train.other", "models.large") == ("by_name", "train.py", 14)
    assert not graph.dynamic
    assert graph.liveness("models.small") == MAYBE
    assert graph.liveness("train.unused") == DEAD


def test_call_picked_from_an_object_namespace_is_dynamic_and_from_a_library_one_is_not(tmp_path) -> None:
    _write(tmp_path, {"run.py": "import torchvision.models as tm\n\n\ndef unused():\n    return 0\n\n\n"
                                "if __name__ == '__main__':\n    tm.__dict__['resnet18']()\n"})
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert not graph.dynamic
    assert graph.liveness("run.unused") == DEAD
    _write(tmp_path, {"run.py": "class Steps:\n    def go(self, name):\n        return self.__dict__[name]()\n\n\n"
                                "def unused():\n    return 0\n\n\n"
                                "if __name__ == '__main__':\n    steps = Steps()\n    steps.go('a')\n"})
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.dynamic
    assert graph.liveness("run.unused") == MAYBE


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_root_folder_imported_as_its_own_package(tmp_path) -> None:
    # written inside a folder "luno": the root's modules are imported as luno.config, luno.train
    _write(tmp_path, {
        "config.py": "def get_config():\n    return {'epochs': 100}\n",
        "train.py": "def train(cfg):\n    return cfg\n",
        "main.py": "from luno.config import get_config\nfrom luno.train import train\nfrom luno.data import missing\n\n"
                   "if __name__ == '__main__':\n    train(get_config())\n",
    })
    built = build_call_graph(build_index(tmp_path, names.normalise))
    assert built.liveness("config.get_config") == LIVE and built.liveness("train.train") == LIVE


def test_library_import_is_not_read_as_the_root_package(tmp_path) -> None:
    # torch.utils beside a local utils.py: one of torch's imports resolves, most do not, so torch stays a library
    _write(tmp_path, {
        "utils.py": "def helper():\n    return 1\n",
        "main.py": "import torch.nn\nimport torch.optim\nfrom torch.utils import data\nfrom torch.utils import helper\n\n"
                   "if __name__ == '__main__':\n    helper()\n",
    })
    built = build_call_graph(build_index(tmp_path, names.normalise))
    assert built.liveness("utils.helper") == DEAD


def test_bare_import_of_a_module_in_a_folder_put_on_sys_path(tmp_path) -> None:
    # scripts/run.py puts src/ on sys.path and imports its module by bare name; "json" stays the standard module
    _write(tmp_path, {
        "src/sokoban.py": "class Env:\n    def __init__(self):\n        self.size = 8\n",
        "src/json.py": "def dumps(x):\n    return x\n",
        "scripts/run.py": "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
                          "from sokoban import Env\nimport json\n\nif __name__ == '__main__':\n    Env()\n"
                          "    json.dumps({})\n",
    })
    built = build_call_graph(build_index(tmp_path, names.normalise))
    assert built.liveness("src.sokoban.Env.__init__") == LIVE
    assert built.liveness("src.json.dumps") != LIVE


def test_variable_rebound_to_another_class_is_typed_by_its_latest_binding(tmp_path) -> None:
    """A variable bound to two classes in one scope runs, at each call, the class of its latest binding above the
    call; a binding in one arm of an if leaves the variable untyped after it (either arm may have run)."""
    (tmp_path / "main.py").write_text(
        "class Probe:\n    def run(self):\n        return 1\n\n\n"
        "class Detector:\n    def run(self):\n        return 2\n\n\n"
        "def main(flag):\n"
        "    runner = Probe()\n    runner.run()\n"
        "    runner = Detector()\n    runner.run()\n"
        "    if flag:\n        runner = Probe()\n    else:\n        runner = Detector()\n    runner.run()\n\n\n"
        "if __name__ == '__main__':\n    main(True)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    runs = [(s.line, s.callee) for s in graph.callees_in_order("main.main") if s.target.endswith(".run")]
    assert runs == [(13, "main.Probe.run"), (15, "main.Detector.run"), (20, None)]


def test_annotated_parameter_and_isinstance_type_a_receiver(tmp_path) -> None:
    """A parameter annotated with a repository class runs that class's methods (and may run a subclass's
    override: a ``call`` edge to it); inside ``if isinstance(x, Sub):`` x runs Sub's methods."""
    (tmp_path / "main.py").write_text(
        "class Base:\n    def step(self):\n        return 1\n\n    def collect(self):\n        return 0\n\n\n"
        "class Sub(Base):\n    def step(self):\n        return 2\n\n\n"
        "def epoch(trainer: Base):\n"
        "    trainer.collect()\n"
        "    if isinstance(trainer, Sub):\n        trainer.step()\n    else:\n        trainer.step()\n"
        "    trainer.step()\n\n\n"
        "if __name__ == '__main__':\n    epoch(Sub())\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    calls = [(s.line, s.callee) for s in graph.callees_in_order("main.epoch") if s.kind == "call"]
    assert calls == [(15, "main.Base.collect"), (17, "main.Sub.step"), (19, "main.Base.step"), (20, "main.Base.step")]
    assert graph.graph.edges["main.epoch", "main.Sub.step"]["kind"] == "call"


def test_module_moved_to_a_device_keeps_its_class(tmp_path) -> None:
    """Moving or casting a module returns the module (``Encoder().to(device).float()``, ``model = model.cuda()``):
    calling it still runs its class's forward, and the call site keeps the name as written (``self.encoder``)."""
    (tmp_path / "main.py").write_text(
        "class Encoder:\n    def forward(self, x):\n        return x\n\n\n"
        "class Agent:\n    def __init__(self, device):\n        self.encoder = Encoder().to(device).float()\n\n"
        "    def act(self, x):\n        return self.encoder(x)\n\n\n"
        "def main(device):\n"
        "    model = Encoder()\n    model = model.cuda()\n    model(1)\n"
        "    Agent(device).act(2)\n\n\n"
        "if __name__ == '__main__':\n    main('cpu')\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    acts = [(s.line, s.kind, s.callee, s.written) for s in graph.callees_in_order("main.Agent.act")]
    assert acts == [(11, "instance", "main.Encoder.forward", "self.encoder")]
    runs = [(s.line, s.callee) for s in graph.callees_in_order("main.main") if s.kind == "instance"]
    assert runs == [(17, "main.Encoder.forward")]


def test_commands_registered_on_a_click_group_or_typer_app_run_when_the_application_runs(tmp_path) -> None:
    _write(tmp_path, {
        "data.py": "def load_synth():\n    n_cal = 10\n    return n_cal\n\n\ndef load_unused():\n    return 0\n",
        "synth.py": ("import click\nfrom data import load_synth\n\n\n@click.group()\ndef cli():\n    pass\n\n\n"
                     "@cli.command()\n@click.option('--n', default=10)\ndef run(n):\n    return load_synth()\n\n\n"
                     "if __name__ == '__main__':\n    cli()\n"),
        "app.py": ("import typer\n\napp = typer.Typer()\n\n\n@app.command()\ndef train():\n    return 1\n\n\n"
                   "if __name__ == '__main__':\n    app()\n"),
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert edge(graph, "synth.cli", "synth.run") == ("call", "synth.py", 10)
    assert graph.liveness("synth.run") == LIVE
    assert graph.liveness("data.load_synth") == LIVE
    assert edge(graph, "app.__main__", "app.train") == ("call", "app.py", 6)
    assert graph.liveness("app.train") == LIVE
    assert graph.liveness("data.load_unused") == DEAD


def test_what_a_registered_function_calls_is_maybe_not_dead(tmp_path) -> None:
    _write(tmp_path, {
        "server.py": ("from flask import Flask\n\napp = Flask(__name__)\n\n\ndef score(x):\n    return x\n\n\n"
                      "@app.route('/score')\ndef handle():\n    return score(1)\n\n\ndef unused():\n    return 0\n\n\n"
                      "if __name__ == '__main__':\n    print('serve')\n"),
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.liveness("server.handle") == MAYBE
    assert graph.liveness("server.score") == MAYBE
    assert graph.liveness("server.unused") == DEAD


def test_methods_by_name(graph) -> None:
    # the methods a call x.name() on an object of unknown type may run, by name, sorted; functions are not methods
    methods = graph.methods_by_name()
    assert methods["__init__"] == ("pkg.layers.Base.__init__", "pkg.layers.Block.__init__",
                                   "scripts.train.Trainer.__init__")
    assert methods["reset"] == ("pkg.layers.Base.reset",)
    assert "double" not in methods  # pkg.sub.util.double is a module function
    assert graph.methods_by_name() is methods  # built once


def test_call_of_a_variable_choosing_a_class_constructs_each(tmp_path) -> None:
    """Calling a variable bound to a class or a conditional expression of classes (``Model = Large if flag else
    Small``) constructs one of them: a site per class, in two arms of one choice, so that each ``__init__`` is
    reached but the two are never ordered; a variable bound twice constructs either class (which binding reaches a
    call is not read: a loop's next turn or a later lambda call may see the other); one bound to a name that is no
    repository class stays unresolved."""
    (tmp_path / "main.py").write_text(
        "class Small:\n    pass\n\n\n"
        "class Large(Small):\n    pass\n\n\n"
        "def main(flag, factory):\n"
        "    Model = Large if flag else Small\n    Model()\n"
        "    Other = Small\n    Other = Large\n    Other()\n"
        "    Made = factory if flag else Small\n    Made()\n\n\n"
        "if __name__ == '__main__':\n    main(True, Small)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    sites = [(s.line, s.kind, s.callee) for s in graph.callees_in_order("main.main") if s.line in (11, 14, 16)]
    assert sites == [(11, "instantiate", "main.Large"), (11, "instantiate", "main.Small"),
                     (14, "instantiate", "main.Small"), (14, "instantiate", "main.Large"), (16, "unresolved", None)]
    first, second = [s for s in graph.callees_in_order("main.main") if s.line == 11]
    assert first.branch != second.branch and first.branch[0][0] == second.branch[0][0]


def test_loop_over_a_display_of_objects_calls_each_in_turn(tmp_path) -> None:
    """A loop over a display of names (``for name, m in [("CRC", crc), ("RCPS", rcps)]``, or over a name bound once
    above it to such a display) calls, at ``m(x)`` or ``m.fit(x)``, each object's class in the display's order, as
    arms of one choice (turns are never ordered against each other); a display holding an object of unknown type, a
    loop variable bound elsewhere too (by an assignment or another loop) or called after its loop (it holds the last
    object only), a reordered iteration (``sorted``), and a display changed before the loop (a method called on it,
    handed to a call) stay unresolved."""
    (tmp_path / "main.py").write_text(
        "class CRC:\n    def __call__(self, x):\n        return x\n\n    def fit(self, x):\n        return x\n\n\n"
        "class RCPS:\n    def __call__(self, x):\n        return x\n\n    def fit(self, x):\n        return x\n\n\n"
        "def main(other):\n"
        "    crc = CRC()\n    rcps = RCPS()\n"
        "    for name, method in [('CRC', crc), ('RCPS', rcps)]:\n        method(1)\n"
        "    methods = [rcps, crc]\n"
        "    for i, m in enumerate(methods):\n        m.fit(2)\n"
        "    for m2 in [crc, other]:\n        m2(3)\n"
        "    for m3 in [crc, rcps]:\n        m3 = other\n        m3(4)\n"
        "    for m4 in sorted([crc, rcps]):\n        m4(5)\n"
        "    for m5 in [crc]:\n        m5(6)\n    for m5 in other:\n        m5(7)\n"
        "    for m6 in [crc, rcps]:\n        pass\n    m6(8)\n"
        "    changed = [crc, rcps]\n    changed.reverse()\n    for m7 in changed:\n        m7(9)\n"
        "    shuffled = [crc, rcps]\n    other.shuffle(shuffled)\n    for m8 in shuffled:\n        m8(10)\n\n\n"
        "if __name__ == '__main__':\n    main(None)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    sites = [(s.line, s.kind, s.callee, s.branch) for s in graph.callees_in_order("main.main")
             if s.line >= 21 and s.kind != "external" and s.target.startswith("m")]
    assert sites == [(21, "instance", "main.CRC.__call__", ((-21, 0),)),
                     (21, "instance", "main.RCPS.__call__", ((-21, 1),)),
                     (24, "call", "main.RCPS.fit", ((-24, 0),)), (24, "call", "main.CRC.fit", ((-24, 1),)),
                     (26, "unresolved", None, ()), (29, "unresolved", None, ()), (31, "unresolved", None, ()),
                     (33, "unresolved", None, ()), (35, "unresolved", None, ()), (38, "unresolved", None, ()),
                     (42, "unresolved", None, ()), (46, "unresolved", None, ())]
    assert graph.graph.edges["main.main", "main.RCPS.fit"]["kind"] == "call"


def test_callers_the_graph_may_not_see(tmp_path) -> None:
    # a library-derived class's methods, a property and a registered class's methods keep the liveness calls show
    # (an unused predict is dead) but are listed as unseen, where a library or Python may call them; a method of an
    # object built in place (Runner().go()) is called
    _write(tmp_path, {
        "main.py": ("import gym\nimport torch\nfrom transformers import Trainer\n\nMODELS = {}\n\n\n"
                    "def register(cls):\n    MODELS[cls.__name__] = cls\n    return cls\n\n\n"
                    "class Distill(Trainer):\n    def compute_loss(self, model, inputs):\n        return 0\n\n\n"
                    "class Reach(gym.Env):\n    def step(self, action):\n        return action\n\n\n"
                    "class Plain:\n    def step(self):\n        return 1\n\n    @property\n    def width(self):\n"
                    "        return 2\n\n\n@register\nclass Head(torch.nn.Module):\n    def build(self):\n"
                    "        return 3\n\n\nclass Runner:\n    def go(self):\n        return 4\n\n\n"
                    "if __name__ == '__main__':\n    Distill(model=None).train()\n    Reach()\n    Plain()\n"
                    "    Runner().go()\n"),
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.liveness("main.Distill.compute_loss") == DEAD
    assert {"main.Distill.compute_loss", "main.Reach.step", "main.Plain.width", "main.Head.build"} <= graph.unseen
    assert "main.Plain.step" not in graph.unseen
    assert graph.liveness("main.Runner.go") == LIVE


def test_modules_that_cannot_be_imported(tmp_path) -> None:
    # train.py imports, at its top level, a module CPython cannot compile (a stray Markdown fence), through a package
    # whose module imports it in turn: neither could be imported at run time, and both are reported, but readers
    # judge code that would fail at run time along its calls as written (benchmarks/truth/CONVENTIONS.md), so both
    # run; only the names bound to the unreadable file are set apart. evaluate.py imports it under try and if
    # TYPE_CHECKING only: it runs, and so does the helper both scripts call
    _write(tmp_path, {
        "net.py": "```python\nclass Net:\n    pass\n",
        "pkg/__init__.py": "",
        "pkg/wrap.py": "from net import Net\n\n\ndef wrapped():\n    return Net()\n",
        "common.py": ("import torch\n\n\ndef seed():\n    return 0\n\n\nclass Probe(torch.nn.Module):\n"
                      "    def run(self):\n        return 1\n\n\nclass Unbuilt(torch.nn.Module):\n"
                      "    def run(self):\n        return 2\n"),
        "train.py": ("import torch\nfrom common import seed\nfrom pkg import wrap\n\n\ndef main():\n    seed()\n"
                     "    wrap.wrapped()\n\n\nclass Head(torch.nn.Module):\n    def run(self):\n        return 1\n\n\n"
                     "if __name__ == '__main__':\n    main()\n"),
        "evaluate.py": ("from typing import TYPE_CHECKING\nfrom common import Probe, seed\ntry:\n    import net\n"
                        "except Exception:\n    net = None\nif TYPE_CHECKING:\n    from net import Net\n\n\n"
                        "def evaluate():\n"
                        "    return seed(), Probe()\n\n\nif __name__ == '__main__':\n    evaluate()\n"),
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.unimportable == {"pkg.wrap": ("pkg/wrap.py:1", "net.py"), "train": ("train.py:3", "pkg/wrap.py")}
    assert graph.unreadable_imports == {"pkg.wrap": frozenset({"Net"}), "evaluate": frozenset({"net", "Net"})}
    assert {e.file for e in graph.entry_points} == {"evaluate.py", "train.py"}
    assert graph.runnable and not graph.halted
    assert [graph.liveness(n) for n in ("train.main", "pkg.wrap.wrapped", "evaluate.evaluate", "common.seed")] \
        == [LIVE, LIVE, LIVE, LIVE]
    # a library may call the methods of a library-derived class code that runs builds, not of a class nothing
    # that may run builds
    assert "common.Probe.run" in graph.unseen and "train.Head.run" not in graph.unseen
    assert "common.Unbuilt.run" not in graph.unseen
    (tmp_path / "evaluate.py").unlink()  # train.py, which would fail at import, still runs as written
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert not graph.halted and graph.liveness("common.seed") == LIVE


def test_an_import_fails_only_where_python_would_load_the_broken_file(tmp_path) -> None:
    # a broken file that Python would not load for the import (a template of the same name, a submodule of the name
    # a package binds to a function) stops nothing; an import that may not run or whose failure is caught (under
    # with, match, except Exception) stops nothing either; one whose failure no handler catches (except ImportError
    # does not catch a SyntaxError; try/finally has no handler) stops the script
    main = "\n\n\ndef main():\n    return 1\n\n\nif __name__ == '__main__':\n    main()\n"
    broken = "```python\nclass Net:\n    pass\n"
    _write(tmp_path, {
        "model.py": "class Net:\n    pass\n",
        "templates/model.py": broken,
        "pkgx/__init__.py": "def model():\n    return 1\n",
        "pkgx/model.py": broken,
        "collision.py": "from model import Net" + main,
        "attribute.py": "from pkgx import model" + main,
        "suppressed.py": ("import contextlib\nwith contextlib.suppress(Exception):\n    import templates.model"
                          + main),
        "matched.py": "import sys\nmatch sys.argv:\n    case ['x']:\n        import templates.model" + main,
        "caught.py": "try:\n    import templates.model\nexcept Exception:\n    pass" + main,
        "uncaught.py": ("try:\n    import templates.model\nexcept (ImportError, ModuleNotFoundError):\n    pass"
                        + main),
        "finally_only.py": "try:\n    import templates.model\nfinally:\n    pass" + main,
    })
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.unimportable == {"uncaught": ("uncaught.py:2", "templates/model.py"),
                                  "finally_only": ("finally_only.py:2", "templates/model.py")}
    # each script is read along its calls as written all the same (the report names the failing import)
    scripts = {"collision", "attribute", "suppressed", "matched", "caught", "uncaught", "finally_only"}
    assert {m for m in scripts if graph.liveness(f"{m}.main") == LIVE} == scripts


def test_bytes_python_refuses(tmp_path) -> None:
    # a Latin-1 byte in a string of a file that declares no encoding: CPython refuses the file (read here with the
    # byte replaced, and parsed), so it is no entry point itself and runs nothing; its importer is reported and runs
    # as written; the same byte in a comment, or in a file declaring Latin-1 (PEP 263), is no obstacle
    main = "\n\n\ndef main():\n    return 1\n\n\nif __name__ == '__main__':\n    main()\n"
    files = {
        "names.py": b"LABEL = 'caf\xe9'\n" + main.encode(),
        "noted.py": b"# caf\xe9\nLABEL = 'cafe'\n",
        "declared.py": b"# -*- coding: latin-1 -*-\nLABEL = 'caf\xe9'\n",
        "uses_names.py": ("import names" + main).encode(),
        "uses_others.py": ("import noted\nimport declared" + main).encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    assert index.uncompilable == {"names.py"}
    assert [(w.file, w.line) for w in index.warnings] == [("names.py", 1), ("noted.py", 1)]
    assert graph.unimportable == {"uses_names": ("uses_names.py:1", "names.py")}
    assert graph.unreadable_imports == {"uses_names": frozenset({"names"})}
    assert {e.file for e in graph.entry_points} == {"uses_names.py", "uses_others.py"}
    assert graph.liveness("names.main") == DEAD
    assert graph.liveness("uses_others.main") == graph.liveness("uses_names.main") == LIVE
    for name in ("uses_names.py", "uses_others.py", "noted.py", "declared.py"):  # only the refused file is left
        (tmp_path / name).unlink()
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.halted and not graph.entry_points


def _model_and_check(root, check: str) -> None:
    """A module of two functions (``attend``, ``norm``) and a test file at ``check`` (a path below ``root``) whose
    ``__main__`` block calls ``attend``."""
    (root / "model.py").write_text("def attend(x):\n    return x\n\n\ndef norm(x):\n    return x\n")
    (root / check).parent.mkdir(parents=True, exist_ok=True)
    (root / check).write_text("from model import attend\n\nif __name__ == '__main__':\n    attend(1)\n")


def test_a_test_file_enters_only_through_its_main_block(tmp_path) -> None:
    # `python scripts/test_model.py` may run what its __main__ block calls (readers differ on whether a check is part
    # of the experiment: maybe, never dead); a pytest file is no entry point
    _model_and_check(tmp_path, "scripts/test_model.py")
    (tmp_path / "prepare.py").write_text("if __name__ == '__main__':\n    print(1)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_norm.py").write_text("from model import norm\n\n\ndef test_norm():\n    norm(1)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    found = {(e.node, e.kind, e.line) for e in graph.entry_points}
    assert ("scripts.test_model.__main__", "test_main", 3) in found
    assert not any(e.node.startswith("tests.") for e in graph.entry_points)
    assert graph.liveness("model.attend") == MAYBE
    assert graph.liveness("model.norm") == DEAD


def test_a_test_file_alone_leaves_a_library_a_library(tmp_path) -> None:
    # only a check run by hand: nothing is claimed dead (CONVENTIONS: no entry point)
    _model_and_check(tmp_path, "tests/test_model.py")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert not graph.runnable
    assert graph.liveness("model.attend") == MAYBE
    assert graph.liveness("model.norm") == MAYBE


def test_a_test_runner_looking_up_methods_by_name_leaves_the_rest_decidable(tmp_path) -> None:
    # a check's __main__ that calls its test methods through getattr dispatches dynamically, but it is no run of
    # the experiment: what the experiment's entry point never reaches stays dead
    (tmp_path / "model.py").write_text("def loss(x):\n    return x\n\n\ndef demo():\n    return 1\n")
    (tmp_path / "run.py").write_text("from model import demo\n\nif __name__ == '__main__':\n    demo()\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text(
        "from model import loss\n\n\nclass TestLoss:\n    def test_loss(self):\n        loss(1)\n\n\n"
        "if __name__ == '__main__':\n    t = TestLoss()\n    for name in dir(t):\n        getattr(t, name)()\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert not graph.dynamic
    assert graph.liveness("model.demo") == LIVE
    assert graph.liveness("model.loss") == DEAD


def test_a_library_calls_methods_only_of_classes_that_may_be_built(tmp_path) -> None:
    # an environment registered by name is built by the library from the string; a model nothing builds is not
    (tmp_path / "envs.py").write_text("import gym\n\n\nclass Walker(gym.Env):\n    def step(self, a):\n"
                                      "        return a\n\n\nclass Unused(gym.Env):\n    def step(self, a):\n"
                                      "        return a\n")
    (tmp_path / "run.py").write_text("import gym\n\nif __name__ == '__main__':\n"
                                     "    gym.register(id='Walker-v0', entry_point='envs:Walker')\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert "envs.Walker.step" in graph.unseen
    assert "envs.Unused.step" not in graph.unseen


def test_classes_chosen_in_arms_build_objects_whose_calls_run_each(tmp_path) -> None:
    """A variable bound to a class in each arm of an ``if``/``elif`` (declared first by an annotation, or set to
    ``None``) constructs each class the arms offer; the object it builds, a local or ``self.agent``, runs each
    class's method as arms of the same choice (arm n is one class at the construction and at every call), and one
    alias of one class (``trainer_cls = Runner``) types its object as that class. A binding to a call's result
    leaves the variable unresolved."""
    (tmp_path / "main.py").write_text(
        "class SAC:\n    def update(self):\n        return 1\n\n\n"
        "class REDQ:\n    def update(self):\n        return 2\n\n\n"
        "class Runner:\n"
        "    def __init__(self, algo):\n"
        "        agent_class: type\n"
        "        if algo == 'sac':\n            agent_class = SAC\n"
        "        elif algo == 'redq':\n            agent_class = REDQ\n"
        "        else:\n            raise ValueError(algo)\n"
        "        self.agent = agent_class()\n\n"
        "    def run(self):\n        self.agent.update()\n\n\n"
        "def pick(algo, make):\n"
        "    cls = None\n"
        "    if algo == 'sac':\n        cls = SAC\n        cls().update()\n"
        "    else:\n        cls = REDQ\n"
        "    learner = cls()\n    learner.update()\n"
        "    other = SAC if algo else make()\n    other()\n\n\n"
        "def main():\n    trainer_cls = Runner\n    trainer = trainer_cls('sac')\n    trainer.run()\n"
        "    pick('sac', SAC)\n\n\n"
        "if __name__ == '__main__':\n    main()\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert [(s.line, s.kind, s.callee) for s in graph.callees_in_order("main.Runner.run")] == [
        (23, "call", "main.SAC.update"), (23, "call", "main.REDQ.update")]
    first, second = graph.callees_in_order("main.Runner.run")
    assert first.branch != second.branch and first.branch[0][0] == second.branch[0][0]
    assert [(s.line, s.kind, s.callee) for s in graph.callees_in_order("main.Runner.__init__")
            if s.kind != "reference"] == [(19, "external", None), (20, "instantiate", "main.SAC"),
                                          (20, "instantiate", "main.REDQ")]
    sites = [(s.line, s.kind, s.callee or s.target) for s in graph.callees_in_order("main.pick")
             if s.kind != "reference"]
    assert sites == [(30, "instantiate", "main.SAC"), (30, "instantiate", "main.REDQ"),
                     (30, "unresolved", "<expr>.update"),
                     (33, "instantiate", "main.SAC"), (33, "instantiate", "main.REDQ"),
                     (34, "call", "main.SAC.update"), (34, "call", "main.REDQ.update"),
                     (35, "unresolved", "make"), (36, "unresolved", "other")]
    assert [(s.line, s.kind, s.callee) for s in graph.callees_in_order("main.main") if s.line in (41, 42)] == [
        (41, "instantiate", "main.Runner"), (42, "call", "main.Runner.run")]
    assert graph.liveness("main.REDQ.update") == LIVE and graph.liveness("main.Runner.run") == LIVE
    built, called = ([s for s in graph.callees_in_order("main.pick") if s.line == line] for line in (33, 34))
    assert [s.branch for s in built] == [s.branch for s in called]  # SAC built and SAC.update run in one arm


def test_class_choices_are_read_only_from_complete_assignments(tmp_path) -> None:
    """A variable offers its classes only when its assignments are all its bindings: a parameter's default
    (``agent_class=None`` then ``agent_class = SAC``: the caller may pass another), an unpacking, a ``global``
    rebinding or a name the scope binds itself (``Trainer = find(name)``) leave the call unresolved; ``match`` arms
    and ``try``/``else`` offer every class they bind; an attribute built in two methods is left open (either may
    hold); two choices met on one line keep apart (their arms never exclude each other)."""
    (tmp_path / "main.py").write_text(
        "class SAC:\n    def learn(self):\n        return 1\n\n\n"
        "class REDQ:\n    def learn(self):\n        return 2\n\n\n"
        "def lookup(algo):\n    return REDQ, {}\n\n\n"
        "def by_default(agent_class=None):\n"
        "    if agent_class is None:\n        agent_class = SAC\n    agent_class().learn()\n\n\n"
        "def unpacked(algo):\n    agent_class = SAC\n    if algo:\n"
        "        agent_class, kwargs = lookup(algo)\n    agent = agent_class()\n    agent.learn()\n\n\n"
        "def matched(algo):\n    match algo:\n        case 'sac':\n            agent_class = SAC\n"
        "        case _:\n            agent_class = REDQ\n    agent = agent_class()\n    agent.learn()\n\n\n"
        "def guarded():\n    try:\n        import apex\n    except ImportError:\n"
        "        agent_class = SAC\n    else:\n        agent_class = REDQ\n"
        "    agent = agent_class()\n    agent.learn()\n\n\n"
        "def shadowed(name):\n    SAC = lookup(name)\n    agent_class = SAC\n"
        "    agent = agent_class()\n    agent.learn()\n\n\n"
        "class Runner:\n    def __init__(self, algo):\n"
        "        agent_class = SAC if algo else REDQ\n        self.agent = agent_class()\n\n"
        "    def reset(self):\n        agent_class = SAC\n        self.agent = agent_class()\n\n"
        "    def run(self):\n        self.agent.learn()\n\n\n"
        "def paired(algo, per):\n    first = SAC if algo else REDQ\n    second = REDQ if per else SAC\n"
        "    a = first(); b = second()\n    a.learn(); b.learn()\n\n\n"
        "if __name__ == '__main__':\n    by_default(REDQ)\n    unpacked(1)\n    matched(1)\n    guarded()\n"
        "    shadowed(1)\n    Runner(1).run()\n    paired(1, 0)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)

    def sites(scope: str, line: int) -> list[tuple[str, str | None]]:
        return [(s.kind, s.callee) for s in graph.callees_in_order(f"main.{scope}")
                if s.line == line and s.kind != "reference"]

    assert sites("by_default", 18) == [("unresolved", None), ("unresolved", None)]
    assert sites("unpacked", 25) == [("unresolved", None)] and sites("unpacked", 26) == [("unresolved", None)]
    assert sites("matched", 35) == [("instantiate", "main.SAC"), ("instantiate", "main.REDQ")]
    assert sites("matched", 36) == [("call", "main.SAC.learn"), ("call", "main.REDQ.learn")]
    assert sites("guarded", 47) == [("call", "main.SAC.learn"), ("call", "main.REDQ.learn")]
    assert sites("shadowed", 53) == [("unresolved", None)] and sites("shadowed", 54) == [("unresolved", None)]
    assert sites("Runner.run", 67) == [("unresolved", None)]
    pairs = [s for s in graph.callees_in_order("main.paired") if s.line == 74]
    assert [(s.callee, s.branch[0][1]) for s in pairs] == [
        ("main.SAC.learn", 0), ("main.REDQ.learn", 1), ("main.REDQ.learn", 0), ("main.SAC.learn", 1)]
    assert pairs[0].branch[0][0] != pairs[2].branch[0][0]  # two choices: a's arm does not exclude b's


def test_an_object_of_a_chosen_class_keeps_its_class_and_no_other_binding_is_missed(tmp_path) -> None:
    """An object built in ``__init__`` by a variable choosing among classes keeps that class: its methods run
    elsewhere (``run``) lie in the same arms as its construction, so work of one class is never ordered against
    work of the other (rules.d4_ordering.relation); a method every class inherits runs once, outside any arm. A
    class attribute named like the variable is no assignment of it. An attribute another class sets too (a
    subclass's ``self.agent = TD3()``), or in a class calling ``setattr(self, ...)``, is left untyped."""
    from rules.d4_ordering import relation, trace
    (tmp_path / "main.py").write_text(
        "import sys\n\n\n"
        "def collect():\n    return 0\n\n\ndef fit():\n    return 1\n\n\n"
        "class Base:\n    def rollout(self):\n        collect()\n\n\n"
        "class OnPolicy(Base):\n    def __init__(self):\n        collect()\n\n"
        "    def finish(self):\n        return 0\n\n\n"
        "class OffPolicy(Base):\n    def finish(self):\n        fit()\n\n\n"
        "class Runner:\n    def __init__(self, algo):\n"
        "        agent_class = OnPolicy if algo else OffPolicy\n        self.agent = agent_class()\n\n"
        "    def run(self):\n        self.agent.rollout()\n        self.agent.finish()\n\n\n"
        "class Local(Runner):\n    def __init__(self, algo):\n        super().__init__(algo)\n"
        "        self.worker = OffPolicy()\n\n\n"
        "class Config:\n    model_cls = OnPolicy\n\n\n"
        "model_cls = OffPolicy\n\n\n"
        "if __name__ == '__main__':\n    Runner(sys.argv[1]).run()\n    model_cls().finish()\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    runs = [(s.line, s.kind, s.callee, bool(s.branch)) for s in graph.callees_in_order("main.Runner.run")]
    assert runs == [(36, "call", "main.Base.rollout", False), (37, "call", "main.OnPolicy.finish", True),
                    (37, "call", "main.OffPolicy.finish", True)]
    events = trace(graph, "main.__main__")
    first = next(e for e in events if e.site.callee == "main.collect" and e.site.line == 19)  # OnPolicy.__init__
    later = next(e for e in events if e.site.callee == "main.fit")  # OffPolicy.finish, from Runner.run
    assert relation(first, later) == "exclusive"
    shared = next(e for e in events if e.site.callee == "main.collect" and e.site.line == 14)  # Base.rollout
    assert relation(shared, later) == "sequential"
    main_sites = [(s.kind, s.callee) for s in graph.callees_in_order("main.__main__") if s.line == 55]
    assert main_sites == [("instantiate", "main.OffPolicy"), ("call", "main.OffPolicy.finish")]
    subclassed = (
        "class SAC:\n    def learn(self):\n        return 1\n\n\n"
        "class TD3:\n    def learn(self):\n        return 3\n\n\n"
        "class Runner:\n    def __init__(self, algo, **overrides):\n"
        "        agent_class = SAC if algo else TD3\n        self.agent = agent_class()\n{extra}\n"
        "    def run(self):\n        self.agent.learn()\n\n\n"
        "class Own(Runner):\n    def __init__(self):\n        super().__init__(1)\n{own}\n\n"
        "if __name__ == '__main__':\n    Own().run()\n")
    for extra, own in (("", "        self.agent = TD3()\n"),
                       ("        for key, value in overrides.items():\n            setattr(self, key, value)\n", "")):
        (tmp_path / "main.py").write_text(subclassed.format(extra=extra, own=own))
        graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
        assert [s.kind for s in graph.callees_in_order("main.Runner.run")] == ["unresolved"]


def test_choices_met_at_the_top_level_and_rebound_objects(tmp_path) -> None:
    """A variable chosen at a module's top level and used in its ``__main__`` block is one choice (one key); an
    object later rebound to another object (``agent = expert``) is no longer of the chosen classes; classes sharing
    one inherited ``__init__`` are built outside any arm (that ``__init__`` runs whichever is built)."""
    (tmp_path / "main.py").write_text(
        "import sys\n\n\n"
        "class Base:\n    def __init__(self):\n        self.n = 0\n\n\n"
        "class Small(Base):\n    def fit(self):\n        return 1\n\n\n"
        "class Large(Base):\n    def fit(self):\n        return 2\n\n\n"
        "Model = Small if len(sys.argv) > 1 else Large\n"
        "baseline = Model()\n\n\n"
        "def swap(expert):\n    agent_class = Small if expert else Large\n    agent = agent_class()\n"
        "    agent = expert\n    agent.fit()\n\n\n"
        "if __name__ == '__main__':\n    model = Model()\n    model.fit()\n    swap(None)\n")
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    top = [s for s in graph.callees_in_order("main") if s.line == 20]
    main = [s for s in graph.callees_in_order("main.__main__") if s.line == 32]
    assert [(s.kind, s.callee, s.branch) for s in top] == [("instantiate", "main.Small", ()),
                                                          ("instantiate", "main.Large", ())]
    assert [s.callee for s in main] == ["main.Small.fit", "main.Large.fit"]
    assert main[0].branch[0][0] == main[1].branch[0][0] and main[0].branch != main[1].branch
    assert [(s.kind, s.callee) for s in graph.callees_in_order("main.swap") if s.line == 27] == [("unresolved", None)]


_LOSS_CLASS = ("class Loss:\n    def __init__(self, k):\n        self.k = k\n\n    def __call__(self, draws, lam):\n"
               "        return (draws > lam).mean()\n\n\n")


@pytest.mark.parametrize("body, called", [
    ("    loss_fn = Loss(4)\n    return draws.mean()\n", False),  # bound, never read again
    ("    Loss(4)\n    return draws.mean()\n", False),  # dropped at once
    ("    loss_fn = Loss(4)\n    return loss_fn(draws, 0.5)\n", True),
    ("    loss_fn = Loss(4)\n    return loss_fn\n", True),  # handed to the caller
    ("    loss_fn = Loss(4)\n    return evaluate(loss_fn, draws)\n", True),  # handed on
    ("    loss_fn = Loss(4)\n\n    def inner():\n        return loss_fn(draws, 0.5)\n    return inner()\n", True),
    ("    global loss_fn\n    loss_fn = Loss(4)\n    return draws.mean()\n", True),  # another scope may read it
    # bound in a nested function declaring it nonlocal: read by the enclosing one
    ("    loss_fn = None\n\n    def inner():\n        nonlocal loss_fn\n        loss_fn = Loss(4)\n    inner()\n"
     "    return loss_fn(draws, 0.5)\n", True),
    ("    Loss(4).k\n    return draws.mean()\n", True),  # not a statement of its own: the object is used
])
def test_an_object_dropped_unused_never_runs_its_call_hooks(tmp_path, body, called) -> None:
    # loss_fn = Loss(4) with the loss then written out inline: no code holds the object, so its __call__ never runs
    # that way, while its constructor does; any read of the variable (a call, a return, an argument, a nested
    # function, a global declaration) keeps the hooks
    source = _LOSS_CLASS + "def evaluate(fn, draws):\n    return fn(draws, 0.5)\n\n\n" \
        + "def run(draws):\n" + body + "\n\nif __name__ == '__main__':\n    run([1.0])\n"
    (tmp_path / "main.py").write_text(source)
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.liveness("main.Loss.__init__") == LIVE
    assert graph.liveness("main.Loss.__call__") == (LIVE if called else DEAD)


def test_an_object_that_may_be_registered_keeps_its_hooks(tmp_path) -> None:
    # a constructor handing self on (a registry) or a library base (torch's Module) may keep the object reachable
    source = ("import torch\n\nREGISTRY = []\n\n\nclass Tracked:\n    def __init__(self):\n"
              "        REGISTRY.append(self)\n\n    def __call__(self):\n        return 1\n\n\n"
              "class Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
              "def run():\n    tracked = Tracked()\n    net = Net()\n    return REGISTRY\n\n\n"
              "if __name__ == '__main__':\n    run()\n")
    (tmp_path / "main.py").write_text(source)
    graph = build_index(tmp_path, names.normalise).analysis(build_call_graph)
    assert graph.liveness("main.Tracked.__call__") == LIVE
    assert graph.liveness("main.Net.forward") == LIVE
