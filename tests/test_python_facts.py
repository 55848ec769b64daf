"""Facts from Python source (extractors/python_facts.py): the binding forms value provenance starts from."""

import pytest

from extractors.python_facts import extract_source

SOURCE = '''
import torch
import torch.nn.functional as F

lr = getattr(cfg, "learning_rate", 1e-3)
wd = cfg.get("weight_decay", 0.1)
SIZES = [(3, 3), (9, 9)]
for n_states, n_actions in SIZES:
    env = make(n_states, n_actions)
model = Net(width=args.width, act=F.elu)
opt = torch.optim.AdamW(model.parameters(), lr=lr)
'''


def test_defaults_of_reads_loops_and_pass_throughs() -> None:
    found = extract_source(SOURCE, "train.py")
    facts = {(f.kind, f.name): (f.value, f.line, f.source) for f in found.facts if f.kind != "literal"}
    assert facts[("get_default", "learning_rate")] == (1e-3, 5, "")
    assert facts[("get_default", "weight_decay")] == (0.1, 6, "")
    assert facts[("loop", "n_states")] == ((3, 9), 8, "")
    assert facts[("loop", "n_actions")] == ((3, 9), 8, "")
    assert facts[("keyword", "width")] == (None, 10, "width")  # passed through from args.width


def test_calls_record_what_their_arguments_read_and_references_are_choices() -> None:
    found = extract_source(SOURCE, "train.py")
    calls = [(c.callee, c.line, c.reads, c.referenced) for c in found.calls]
    assert ("torch.optim.AdamW", 11, ("parameters", "model", "lr"), False) in calls
    assert ("make", 9, ("n_states", "n_actions"), False) in calls
    assert ("F.elu", 10, (), True) in calls  # the activation chosen by reference
    assert not any(callee == "model.parameters" and referenced for callee, _, _, referenced in calls)


def test_imported_names_are_not_references() -> None:
    found = extract_source(SOURCE, "train.py")
    assert not any(c.line == 3 for c in found.calls)


def test_a_syntax_error_is_placed_where_cpython_stops() -> None:
    from extractors.repository import extract_python

    found = extract_python("def f(:\n    dropout = 0.1\n", "broken.py")
    assert [(w.file, w.line) for w in found.warnings] == [("broken.py", 1)]
    assert found.warnings[0].message.startswith("syntax error at line 1, column 7: libcst cannot parse this file, "
                                                "so it would not import")


# Every form that sets an expression context (store, del, load inside a target, no context for an attribute's name)
CONTEXTS = '''
import os.path as osp, pkg.mod
from lib import (name_a as alias_a, name_b)
def func(p_one: ann.t, *p_rest, p_kw=dflt.v, **p_more) -> ret.t:
    del items[idx_a], obj_a.field_a, (del_a, del_b)
    with opener(path_a) as (h_one, [h_two, *h_rest]):
        pass
    try:
        pass
    except Failure as caught:
        pass
    [it_a for it_a, it_b in pairs if (walrus := it_a.attr_w) for it_c in it_b]
    fn = lambda l_one, l_two=ldef.v: l_one[l_two:lend, sl.q].after
    tgt.sub[key_a.k], (tgt_b.attr_b, *rest_c) = 1, 2
    annotated: kind.t = source.v
    total += delta.v
    for loop_t.attr_t[idx_t] in seq_t:
        pass
class Klass(Base.cls, metaclass=Meta.m):
    @deco.rator(arg_d)
    def method(self):
        return self.value_m
'''


def test_reads_are_the_names_libcst_loads() -> None:
    """The reads counted while the facts are visited are exactly the names and attributes libcst's
    ExpressionContextProvider marks as loaded (the provider's own walk of the tree is no longer made)."""
    from collections import Counter

    import libcst as cst
    from libcst.metadata import ExpressionContext, ExpressionContextProvider, MetadataWrapper

    wrapper = MetadataWrapper(cst.parse_module(CONTEXTS))
    loads: Counter = Counter()
    for node, context in wrapper.resolve(ExpressionContextProvider).items():
        if context == ExpressionContext.LOAD:
            if isinstance(node, cst.Name):
                loads[node.value] += 1
            elif isinstance(node, cst.Attribute):
                loads[node.attr.value] += 1
    reads = extract_source(CONTEXTS, "contexts.py").reads
    assert {"walrus", "h_one", "h_rest", "caught", "rest_c", "annotated", "func", "Klass", "p_one"}.isdisjoint(reads)
    assert reads["idx_a"] == 1 and reads["seq_t"] == 1 and reads["attr_w"] == 1 and reads["after"] == 1
    assert reads == loads


def test_child_nodes_are_libcst_children() -> None:
    """child_nodes reads a node's children from its fields: the same nodes as libcst's ``children``, every node."""
    import libcst as cst

    from extractors.python_facts import child_nodes

    stack = [cst.parse_module(CONTEXTS + SOURCE + "x = [a, *b] if (c := d) else {**e, 'f': g[1:2]}  # note\n")]
    seen = 0
    while stack:
        node = stack.pop()
        children = node.children
        assert sorted(map(id, child_nodes(node))) == sorted(map(id, children)), type(node).__name__
        stack.extend(children)
        seen += 1
    assert seen > 500


@pytest.mark.parametrize(("source", "unpackings"), [
    ("def f(loader):\n    for batch in loader:\n        model(**batch)\n", []),  # a data batch, not settings
    ("def f(cfg):\n    return Model(**cfg)\n", [("Model", None)]),  # a mapping of unknown keys
    ("def f(x):\n    opts = {'a': 1, 'b': x}\n    return Model(**opts)\n", []),
    ("def f(x, k):\n    opts = {'a': 1}\n    opts[k] = x\n    return Model(**opts)\n", [("Model", None)]),
    ("def f(x, o):\n    opts = dict(a=1)\n    opts.update(o)\n    return Model(**opts)\n", [("Model", None)]),
    ("def f(x, o):\n    opts = {'a': 1}\n    if o:\n        opts = load(o)\n    return Model(**opts)\n",
     [("Model", None)]),
    ("OPTS = {'a': 1}\ndef f():\n    return Model(**OPTS)\n", []),
    ("m = Model(**vars(args))\n", [("Model", None)]),
    ("def f(**kwargs):\n    return g(**kwargs)\n", []),
    # the section the mapping sits under, where the code names it
    ("m = ModelConfig(**cfg.get('model', {}))\nd = DataConfig(**cfg['data'])\nt = Trainer(**cfg.training)\n",
     [("ModelConfig", "model"), ("DataConfig", "data"), ("Trainer", "training")]),
    ("def f(cfg):\n    opts = dict(cfg['optim'])\n    return make(**opts)\n", [("make", "optim")]),
    ("m = Net(**OmegaConf.to_container(cfg.net, resolve=True))\n", [("Net", "net")]),
    ("class T:\n    def run(self):\n        return build(**self.cfg)\n", [("build", None)]),  # maybe all of it
    # a classmethod building its own class
    ("class Config:\n    @classmethod\n    def load(cls, d):\n        return cls(**d)\n", [("Config", None)]),
])
def test_calls_unpacking_mappings_of_unknown_keys_are_recorded_with_their_section(
        source: str, unpackings: list[tuple[str, str | None]]) -> None:
    assert [(u.callee, u.section) for u in extract_source(source, "a.py").unpackings] == unpackings


def test_keyword_parameters_are_what_a_call_may_pass_by_name() -> None:
    source = ("from dataclasses import dataclass\n"
              "@dataclass\nclass ModelConfig:\n    width: int = 64\n    depth: int = 4\n"
              "@dataclass\nclass Large(ModelConfig):\n    heads: int = 8\n"
              "class Net:\n    def __init__(self, width, *, act='relu'):\n        self.width = width\n"
              "def train(model, lr=1e-3, **extra):\n    return model\n"
              "def evaluate(model, /, split='test'):\n    return model\n")
    assert extract_source(source, "a.py").keyword_parameters == {
        "ModelConfig": frozenset({"width", "depth"}), "Large": None, "Net": frozenset({"width", "act"}),
        "train": None, "evaluate": frozenset({"split"})}


def test_a_written_out_mapping_passes_its_entries_as_keywords_of_the_call() -> None:
    source = ("def build(kind):\n"
              "    if kind:\n"
              "        base = dict(width=64, top_k=8)\n"
              "    else:\n"
              "        base = dict(width=32)\n"
              "    extra = {'heads': 4}\n"
              "    extra['lr'] = 1e-3\n"
              "    return Config(**{**base, **extra}, seed=1)\n")
    found = extract_source(source, "a.py")
    call = next(c for c in found.calls if c.callee == "Config")
    # width and the extra entries reach the call on every path; top_k only on one, so the call may pass any keyword
    assert (call.unpacks, call.unpacked_keys) == (True, ("heads", "lr", "width"))
    keywords = sorted((f.name, f.value, f.line) for f in found.facts if f.kind == "keyword" and f.context == "Config")
    assert keywords == [("heads", 4, 6), ("lr", 0.001, 7), ("seed", 1, 8), ("top_k", 8, 3), ("width", 32, 5),
                        ("width", 64, 3)]


def test_a_parameter_default_the_body_never_reads_is_marked_unread() -> None:
    source = ("class A:\n"
              "    def analyze(self, x, th=(0.01, 0.001), lr=1e-3):\n"
              "        def inner(y, z=3):\n"
              "            return y * lr\n"
              "        return inner(x)\n"
              "    def keep(self, a=1):\n"
              "        self.save_hyperparameters()\n")
    unread = {f.name: f.unread for f in extract_source(source, "a.py").facts if f.kind == "default"}
    assert unread == {"th": True, "lr": False, "z": True, "a": False}


def test_positional_arguments_of_library_consumers_bind_their_parameters() -> None:
    source = ("drop = nn.Dropout(0.1)\n"
              "tf = transforms.Resize((256, 256))\n"
              "opt = torch.optim.Adam(model.parameters(), 3e-4, weight_decay=0.1)\n"
              "own = self.Dropout(0.5)\n")
    keywords = sorted((f.name, f.value, f.context) for f in extract_source(source, "a.py").facts
                      if f.kind == "keyword")
    assert keywords == [("dropout", 0.1, "nn.Dropout"), ("image_size", (256, 256), "transforms.Resize"),
                        ("lr", 0.0003, "torch.optim.Adam"), ("weight_decay", 0.1, "torch.optim.Adam")]


def test_a_dict_passed_as_a_keyword_gives_keywords_of_the_call() -> None:
    # the call consumes the whole mapping (a library reads its keys), so its entries are read where they are passed
    source = "cfg = DynamicsCfg(architecture={'rnn_num_layers': 2, 'sizes': {'hidden': 256}})\nplain = {'lr': 1e-3}\n"
    facts = sorted((f.kind, f.path, f.value, f.context) for f in extract_source(source, "a.py").facts
                   if f.kind in ("keyword", "dict"))
    assert facts == [("dict", "plain.lr", 0.001, ""),
                     ("keyword", "architecture.rnn_num_layers", 2, "DynamicsCfg"),
                     ("keyword", "architecture.sizes.hidden", 256, "DynamicsCfg")]


def test_a_loop_variable_over_data_unpacked_into_a_call_is_data() -> None:
    # any name will do for a batch (for b in loader), but a loop over configurations may pass any config key
    assert not extract_source("def f(loader):\n    for b in loader:\n        model(**b)\n", "a.py").unpackings
    assert not extract_source("def f():\n    for b in tqdm(self.train_dataloader):\n        model(**b)\n",
                              "a.py").unpackings
    assert extract_source("def f(configs):\n    for c in configs:\n        Model(**c)\n", "a.py").unpackings


def test_parameter_reads_say_which_parameters_a_body_reads() -> None:
    source = ("def fit(model, lr=1e-3, warmup=5):\n    return model(lr)\n"
              "class Net:\n    def __init__(self, width, depth):\n        self.width = width\n")
    assert extract_source(source, "a.py").parameter_reads == {
        ("fit", "model"): True, ("fit", "lr"): True, ("fit", "warmup"): False,
        ("Net", "self"): True, ("Net", "width"): True, ("Net", "depth"): False}


def test_a_binding_computed_as_a_fixed_share_of_a_total_records_the_share() -> None:
    source = ("n_neg = A // 8\n"
              "warmup = int(0.1 * cfg.total_steps)\n"
              "n_val = math.ceil(len(train_set) / 10)\n"
              "mixed = a * b\n"
              "shifted = total + 8\n")
    shares = {f.name: f.share for f in extract_source(source, "a.py").facts if f.kind == "assignment"}
    assert shares == {"n_neg": ("A", 0.125), "warmup": ("total_steps", 0.1), "n_val": ("train_set", 0.1),
                      "mixed": None, "shifted": None}


def test_a_symbolic_value_takes_numbers_for_its_names() -> None:
    from extractors.values import parse_value, substitute_numbers, symbol_names

    value = parse_value("(1 - detector_accuracy) / 2")
    assert symbol_names(value) == ("detector_accuracy",)
    assert substitute_numbers(value, {"detector_accuracy": 0.95}) == 0.025
    assert substitute_numbers(parse_value("base * bs / 256"), {"base": 1e-4}) is None  # bs has no number


def test_a_conditional_expression_binds_one_value_per_path_up_to_a_bound() -> None:
    source = ("lr = 1e-3 if large else (3e-4 if mid else 1e-4)\n"
              "grid = {'prompts': [5, 10] if deep else [5, 10, 200]}\n"
              "table = " + " if c else ".join(str(i) for i in range(12)) + "\n")
    found = extract_source(source, "train.py")
    named = [(f.name, f.value, f.line) for f in found.facts if f.kind != "literal"]
    assert named == [("lr", 1e-3, 1), ("lr", 3e-4, 1), ("lr", 1e-4, 1),
                     ("prompts", (5, 10), 2), ("prompts", (5, 10, 200), 2),
                     ("table", None, 3)]  # twelve paths: a dispatch table, not one setting per path


def test_a_fragment_s_facts_are_those_libcst_s_own_position_table_gives() -> None:
    # extract_source (the tree-sitter fallback's fragments) places nodes with extractors.positions' table
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from extractors.python_facts import extract_module
    module = cst.parse_module(SOURCE)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    wrapper.resolve(PositionProvider)  # libcst's own generation of the table
    assert extract_source(SOURCE, "train.py", 7) == extract_module(module, "train.py", 7, wrapper=wrapper)


def test_a_loop_variable_passed_on_is_found_among_many_same_named_bindings(tmp_path) -> None:
    # each function's ``acc`` is its own: the pass-through reads the loop of its function, and a function binding
    # ``acc`` twice has no single loop; the bindings are looked up by file, name and function (not scanned)
    from extractors.provenance import _bindings_by_place, resolve_source
    from extractors.repository import build_index
    from rules import names

    body = "".join(f"def sweep{n}():\n    for acc in [1.0, 0.{n}]:\n        run(detector_accuracy=acc)\n"
                   for n in range(1, 4))
    body += "def twice():\n    acc = 0.5\n    for acc in [1.0, 0.9]:\n        run(detector_accuracy=acc)\n"
    (tmp_path / "train.py").write_text(body, encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    table = index.analysis(_bindings_by_place)
    assert [(f.kind, f.line) for f in table[("train.py", "acc", "sweep2")]] == [("loop", 5)]
    assert [(f.kind, f.line) for f in table[("train.py", "acc", "twice")]] == [("assignment", 11), ("loop", 12)]
    passed = {f.line: f for f in index.facts if f.kind == "keyword" and f.name == "detector_accuracy"}
    assert [(f.kind, f.value) for f in resolve_source(index, passed[6])] == [("loop", (1.0, 0.2))]
    # twice binds acc twice (0.5, then the loop's values): its own bindings decide, and give no one value (before,
    # the name's bindings anywhere did, and gave the 0.5 the loop replaces)
    assert resolve_source(index, passed[13]) == ()


def test_unpacked_mappings_pass_only_keys_their_section_and_callee_take(tmp_path) -> None:
    from extractors.provenance import unpacked_passes
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "config.yaml").write_text("model:\n  width: 8\n  unused_width: 4\ntraining:\n  epochs: 3\n"
                                          "  batch_size: 2\neval:\n  n_samples: 10\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass\nimport argparse\n"
        "@dataclass\nclass ModelConfig:\n    width: int = 4\n    unused_width: int = 2\n"
        "def fit(model, epochs=1, batch_size=4):\n    return [model for _ in range(epochs)]\n"
        "def main(cfg):\n    mc = ModelConfig(**cfg['model'])\n    fit(mc.width, **cfg['training'])\n"
        "    args = argparse.Namespace(**cfg)\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    passes = index.analysis(unpacked_passes)
    assert passes.anything == ""
    passed = sorted(f.path for f in index.facts if f.kind == "config" and passes.may_pass(f))
    # model.width: a field something reads; training.epochs: a parameter fit reads; not batch_size (fit never reads
    # it), not the model's unread field, not the evaluation section nothing unpacks; the Namespace takes none
    assert passed == ["model.width", "training.epochs"]
    (tmp_path / "run.py").write_text("def run(fn, cfg):\n    return fn(**cfg)\n", encoding="utf-8")
    # callee and section unknown: the call that may pass any key, by its callee
    assert build_index(tmp_path, names.normalise).analysis(unpacked_passes).anything == "fn"


def test_a_config_file_no_code_names_is_not_loaded(tmp_path) -> None:
    # the file, its stem, its folder and its format are all a loader could name; a README's prose loads nothing
    from extractors.provenance import unloaded_configs
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.yaml").write_text("lr: 0.001\n", encoding="utf-8")
    (tmp_path / "settings.json").write_text('{"epochs": 3}\n', encoding="utf-8")
    (tmp_path / "README.md").write_text("Edit configs/base.yaml and settings.json.\n", encoding="utf-8")
    (tmp_path / "train.py").write_text("class Model:\n    lr = 1e-3\n    def step(self):\n        return self.lr\n",
                                       encoding="utf-8")
    assert build_index(tmp_path, names.normalise).analysis(unloaded_configs) == {"configs/base.yaml",
                                                                                  "settings.json"}
    (tmp_path / "train.py").write_text("import glob, json\nFILES = glob.glob('configs/*')\n", encoding="utf-8")
    assert build_index(tmp_path, names.normalise).analysis(unloaded_configs) == frozenset()


def test_a_config_file_is_loadable_where_code_names_a_loader_and_only_whole_words_name_it(tmp_path) -> None:
    from extractors.provenance import unloaded_configs
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "config.yaml").write_text("epochs: 100\n", encoding="utf-8")
    # "reconfigure" holds "config" inside a longer word: no mention of the file
    (tmp_path / "train.py").write_text("RECONFIGURE = False\n", encoding="utf-8")
    assert build_index(tmp_path, names.normalise).analysis(unloaded_configs) == {"config.yaml"}
    # a loader taking its path at run time may load any configuration file
    (tmp_path / "train.py").write_text("from omegaconf import OmegaConf\nconf = OmegaConf.load(ARGS.cfg)\n",
                                       encoding="utf-8")
    assert build_index(tmp_path, names.normalise).analysis(unloaded_configs) == frozenset()


def test_a_uniform_draw_keeps_its_bounds_beside_an_unfolded_value():
    """``Fact.drawn``: the draw is computed at run time for every claim, and states its interval for a claimed one."""
    facts = extract_source("import numpy as np\n\ndef make(n):\n    alphas = np.random.uniform(1.0, 3.0, n)\n"
                           "    noise = np.random.normal(0.0, 1.0, n)\n", "gen.py").facts
    drawn = {f.name: (f.value, f.computed, f.drawn, f.line) for f in facts if f.name in ("alphas", "noise")}
    assert drawn == {"alphas": (None, True, (1.0, 3.0), 4), "noise": (None, True, None, 5)}


def test_an_option_declaration_reads_nothing():
    """An option's flags and its ``dest`` declare it: only a later ``args.x`` reads it."""
    found = extract_source("import argparse\np = argparse.ArgumentParser()\n"
                           "p.add_argument('--ema', dest='ema_decay', default=0.9999)\n"
                           "p.add_argument('--lr', default=1e-3)\nargs = p.parse_args()\nprint(args.lr)\n", "t.py")
    assert (found.reads["ema_decay"], found.reads["ema"], found.reads["lr"]) == (0, 0, 1)


def test_a_read_by_key_follows_its_section(tmp_path) -> None:
    from extractors.provenance import read_path, resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "config.yaml").write_text("toy:\n  n_cal: 20\nreal:\n  n_cal: 200\n  lr: 0.1\n", encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "import yaml\n"
        "def load(path):\n"
        "    data = yaml.safe_load(open(path))\n"
        "    toy = data.get('toy', {})\n"
        "    return dict(n_toy=toy.get('n_cal', 10), n_real=data['real']['n_cal'], n_any=data.get('n_cal', 5),\n"
        "                lr=data.get('real', {}).get('lr', 1e-3))\n"
        "print(load('config.yaml'))\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    passed = {f.name: f for f in index.facts if f.kind == "keyword" and f.context == "dict"}
    assert {n: f.key_path for n, f in passed.items()} == {
        "n_toy": ("toy", "n_cal"), "n_real": ("data", "real", "n_cal"), "n_any": ("data", "n_cal"),
        "lr": ("data", "real", "lr")}
    assert read_path(index, passed["n_toy"]) == ("data", "toy", "n_cal")  # toy is bound by key in the same function
    # the section picks the key of two with one name; a read naming no section leaves both, which disagree
    assert [(f.path, f.value) for f in resolve_source(index, passed["n_toy"])] == [("toy.n_cal", 20)]
    assert [(f.path, f.value) for f in resolve_source(index, passed["n_real"])] == [("real.n_cal", 200)]
    assert resolve_source(index, passed["n_any"]) == ()
    assert [(f.path, f.value) for f in resolve_source(index, passed["lr"])] == [("real.lr", 0.1)]


@pytest.mark.parametrize("code, why", [
    # the section is read from a dict written in code: its entries, not the file's unread keys at another depth
    ("DEFAULTS = {'toy': {'n_cal': 10}, 'real': {'n_cal': 100}}\n"
     "def load(path):\n    toy = DEFAULTS['toy']\n    return dict(n=toy.get('n_cal', 1))\n", "code dict"),
    # the file has no top-level toy section (only sweeps.toy): the read's key is not there, so nothing is picked
    ("import yaml\ndef load(path):\n    data = yaml.safe_load(open(path))\n    toy = data.get('toy', {})\n"
     "    return dict(n=toy.get('n_cal', 1))\n", "no such section"),
    # the section is changed in place after it is read: its keys may come from elsewhere
    ("import yaml\ndef load(path):\n    data = yaml.safe_load(open(path))\n    toy = data.get('toy', {})\n"
     "    toy.update(data.get('overrides', {}))\n    return dict(n=toy.get('n_cal', 1))\n", "updated"),
    # an attribute named like a section is no key of it
    ("import yaml\nclass Run:\n    def load(self, path):\n        self.toy = yaml.safe_load(open(path))['real']\n"
     "        return dict(n=self.toy.get('n_cal', 1))\n", "attribute"),
])
def test_a_read_by_key_picks_no_section_it_does_not_name(tmp_path, code, why) -> None:
    from extractors.provenance import resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "config.yaml").write_text("sweeps:\n  toy:\n    n_cal: 20\n  real:\n    n_cal: 200\n"
                                          "overrides:\n  n_cal: 50\n", encoding="utf-8")
    (tmp_path / "run.py").write_text(code, encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    passed = next(f for f in index.facts if f.kind == "keyword" and f.name == "n")
    chain = resolve_source(index, passed)
    if why == "code dict":
        assert [(f.path, f.value) for f in chain] == [("DEFAULTS.toy.n_cal", 10)], why
    else:
        assert chain == (), why  # three config keys of the name disagree, as before any section was read


def test_a_read_by_an_f_string_key_reads_each_section(tmp_path) -> None:
    from extractors.provenance import resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "config.yaml").write_text("equations:\n  ode1:\n    n: 100\n  wave:\n    x_max: 2.0\n"
                                          "solver:\n  dt_max: 9.0\n", encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "def grids(cfg, eq_id):\n"
        "    t_max = cfg.get(f'equations.{eq_id}.t_max', 1.0)\n"  # no section holds it: the default, always
        "    x_max = cfg.get(f'equations.{eq_id}.x_max', 1.0)\n"  # wave's 2.0, the default elsewhere: no one value
        "    n = cfg.get(f'{eq_id}_n', 50)\n"  # a key ending in a placeholder names no key
        "    return dict(t=t_max, x=x_max, n=n)\n"
        "t_max = 5.0\n"  # a variable, never a key
        "print(grids({}, 'ode1'), t_max)\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    reads = {f.name: f for f in index.facts if f.kind == "assignment" and f.context == "grids"}
    assert reads["t_max"].key_path == ("cfg", "equations", "{}", "t_max") and reads["t_max"].source == "t_max"
    assert reads["n"].source == "" and reads["n"].computed
    defaults = [(f.name, f.value) for f in index.facts if f.kind == "get_default"]
    assert defaults == [("t_max", 1.0), ("x_max", 1.0)]
    passed = {f.name: f for f in index.facts if f.kind == "keyword" and f.context == "dict"}
    # t=t_max reads the function's own t_max above it, which reads its own default, no key of that name being
    # anywhere; not the module's t_max = 5.0
    assert [(f.line, f.kind, f.value) for f in resolve_source(index, passed["t"])] == [
        (2, "assignment", None), (2, "get_default", 1.0)]
    assert resolve_source(index, passed["x"]) == ()
    # a t_max key anywhere (a section loaded from deeper down, merged in) may be what a run reads: no one value
    (tmp_path / "config.yaml").write_text("experiment:\n  equations:\n    wave:\n      t_max: 2.0\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    passed = {f.name: f for f in index.facts if f.kind == "keyword" and f.context == "dict"}
    assert resolve_source(index, passed["t"]) == ()


@pytest.mark.parametrize("body, expected", [
    ("    lr = 3e-4\n    return dict(lr=lr)\n", 3e-4),  # the function's own binding, not the module's lr = 0.1
    ("    return dict(lr=lr)\n", 0.1),  # no own binding: followed by name as before
    ("    lr = 3e-4\n    out = dict(lr=lr)\n    lr = 1e-3\n    return out\n", 3e-4),  # a later rebinding is no source
    ("    lr = 3e-4\n    for _ in range(2):\n        out = dict(lr=lr)\n        lr = 1e-3\n    return out\n", None),
    ("    lr = 3e-4\n    lr = lr * 2\n    return dict(lr=lr)\n", None),  # bound twice above: not followed
])
def test_a_bare_name_reads_the_functions_own_binding_above_it(tmp_path, body, expected) -> None:
    from extractors.provenance import resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "run.py").write_text(f"lr = 0.1\ndef build():\n{body}print(build())\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    passed = next(f for f in index.facts if f.kind == "keyword" and f.name == "lr")
    chain = resolve_source(index, passed)
    assert (chain[-1].value if chain else None) == expected


@pytest.mark.parametrize("test, variants", [
    ("eq_id == 'pde2'", ("pde2",)),
    ("'pde2' == eq_id", ("pde2",)),
    ("eq_id == 'pde2' or eq_id == 'pde2_zoned'", ("pde2", "pde2_zoned")),
    ("eq_id in ('pde2', 'pde2_zoned')", ("pde2", "pde2_zoned")),
    ("eq_id in ['pde2', 'pde2'] or eq_id == 'zoned'", ("pde2", "zoned")),
    ("eq_id == 'pde2' or name == 'pde2_zoned'", None),  # two subjects: no variant of one name
    ("eq_id == 'pde2' and zoned", None),
    ("eq_id in ('pde2', other)", None),  # a name among the strings: not all variants are known
    ("eq_id in names", None),
])
def test_a_branch_builds_each_variant_its_test_accepts(tmp_path, test, variants) -> None:
    from extractors.repository import build_index
    from extractors.variants import branch_of
    from rules import names

    (tmp_path / "run.py").write_text(f"def make(eq_id, name, zoned, other, names):\n    if {test}:\n        nu = 0.01\n"
                                     f"    elif eq_id == 'heat':\n        nu = 0.1\n    return nu\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    first, second = sorted((f for f in index.facts if f.name == "nu"), key=lambda f: f.line)
    branch = branch_of(index, first)
    assert (branch.variants if branch is not None else None) == variants
    assert branch_of(index, second).variants == ("heat",)


@pytest.mark.parametrize("calls, expected", [
    ("print(ci(3, 10), table(2, 10))\n", 0.95),  # the wrapper's own default, 1 - 0.05
    ("print(ci(3, 10, alpha=0.05), table(2, 10))\n", 0.95),
    ("print(ci(3, 10, alpha=0.1), table(2, 10))\n", None),  # one call passes 0.1, the other 0.05: no one value
])
def test_calls_through_a_renamed_import_pass_the_functions_parameters(tmp_path, calls, expected) -> None:
    from extractors.provenance import overridden_by, passed_for, resolve_expression, expression_value
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "stats_utils.py").write_text("def interval(k, n, confidence=0.9):\n    return k / n, confidence\n",
                                             encoding="utf-8")
    (tmp_path / "run.py").write_text(
        "from stats_utils import interval as _interval\n"
        "def ci(k, n, alpha=0.05):\n    return _interval(k, n, confidence=1.0 - alpha)\n"
        "def table(k, n):\n    return ci(k, n, alpha=0.05)\n" + calls, encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    default = next(f for f in index.facts if f.kind == "default" and f.name == "confidence")
    passed = passed_for(index, default)  # the call of _interval is a call of interval
    assert [(f.file, f.line) for f in passed] == [("run.py", 3)]
    assert overridden_by(index, default) is passed[0]
    sources = resolve_expression(index, passed[0])
    assert (expression_value(passed[0], sources) if sources else None) == pytest.approx(expected) \
        if expected is not None else not sources


def test_a_function_defined_again_below_is_dead(tmp_path) -> None:
    # the module's second def sample replaces the first: only the later one is ever called
    from extractors.callgraph import DEAD
    from extractors.provenance import binding_liveness
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "run.py").write_text(
        "@staticmethod\ndef helper(k=3):\n    return k\n"
        "def sample(n=10):\n    horizon = 1.0\n    return horizon * n\n"
        "def sample(n=10):\n    horizon = 2.0\n    return horizon * n\n"
        "print(sample(), helper())\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    liveness = index.analysis(binding_liveness)
    horizons = sorted((f for f in index.facts if f.name == "horizon"), key=lambda f: f.line)
    assert [(f.value, liveness(f) == DEAD) for f in horizons] == [(1.0, True), (2.0, False)]
    assert liveness(next(f for f in index.facts if f.name == "k")) != DEAD  # a decorator above a def is no redefinition


def test_the_nearest_assignment_in_the_reads_block_decides(tmp_path) -> None:
    # t_max is bound twice above each read; in burgers' branch the nearest runs last (same block), in wave's branch
    # the nearest sits in a nested if, which may not run: no one value
    from extractors.binding_sites import same_block
    from extractors.provenance import resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "grid.py").write_text(
        "def grid(eq_id, long_run):\n"
        "    t_max = 1.0\n"
        "    if eq_id == 'burgers':\n"
        "        t_max = 3.0\n"
        "        run(t_end=t_max)\n"
        "    elif eq_id == 'wave':\n"
        "        t_max = 2.0\n"
        "        if long_run:\n"
        "            t_max = 4.0\n"
        "        run(t_end=t_max)\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    assert same_block(index, "grid.py", 4, 5) and not same_block(index, "grid.py", 9, 10)
    assert not same_block(index, "grid.py", 2, 5) and not same_block(index, "grid.py", 3, 99)
    passed = {f.line: f for f in index.facts if f.kind == "keyword" and f.name == "t_end"}
    assert [(f.line, f.value) for f in resolve_source(index, passed[5])] == [(4, 3.0)]
    assert resolve_source(index, passed[10]) == ()


def test_a_line_starting_two_statements_is_in_no_block(tmp_path) -> None:
    # x = 1; y = x and a one-line if cannot tell the order of what they hold: no nearest binding there
    from extractors.binding_sites import same_block
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "a.py").write_text("def f(c):\n    x = 1; y = x\n    if c: x = 2\n    z = x\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    assert not same_block(index, "a.py", 2, 4) and not same_block(index, "a.py", 3, 4)
    assert same_block(index, "a.py", 4, 4)


def test_a_read_inside_a_comprehension_of_the_same_name_is_not_the_functions(tmp_path) -> None:
    # temperature = 1.5 above, but the comprehension's own temperature is what run() is passed
    from extractors.binding_sites import shadowed
    from extractors.provenance import resolve_source
    from extractors.repository import build_index
    from rules import names

    (tmp_path / "c.py").write_text(
        "def calibrate():\n"
        "    temperature = 1.5\n"
        "    scores = [run(t=temperature) for temperature in (0.5, 2.0)]\n"
        "    best = run(t=temperature)\n"
        "    key = lambda temperature: run(t=temperature)\n", encoding="utf-8")
    index = build_index(tmp_path, names.normalise)
    assert shadowed(index, "c.py", 3, "temperature") and shadowed(index, "c.py", 5, "temperature")
    assert not shadowed(index, "c.py", 4, "temperature") and not shadowed(index, "c.py", 3, "scores")
    passed = {f.line: f for f in index.facts if f.kind == "keyword" and f.name == "t"}
    assert [(f.line, f.value) for f in resolve_source(index, passed[4])] == [(2, 1.5)]
    assert resolve_source(index, passed[3]) == () and resolve_source(index, passed[5]) == ()
