"""Configuration files read as their loaders read them (issue 17, "Configuration files as their loaders read them"):
YAML merge keys and duplicated keys as PyYAML's safe loader resolves them, TOML values on their own lines."""

from __future__ import annotations

import tomllib

import yaml

from extractors.configs import extract_config


def facts(text: str, file: str) -> dict[str, tuple[object, int]]:
    found = extract_config(text, file)
    assert found.warnings == []
    return {f.path: (f.value, f.line) for f in found.facts}


def test_yaml_merge_key_as_the_loader_resolves_it():
    """Issue input 5: ``<<: *b`` brings lr in; the mapping's own batch_size (32) overrides the anchor's 64."""
    text = "base: &b {lr: 0.1, batch_size: 64}\ntrain: {<<: *b, batch_size: 32}\n"
    assert facts(text, "c.yaml") == {"base.lr": (0.1, 1), "base.batch_size": (64, 1), "train.lr": (0.1, 1),
                                     "train.batch_size": (32, 2)}
    loaded = yaml.safe_load(text)  # the yardstick: what PyYAML's loader gives the program
    assert loaded["train"] == {"lr": 0.1, "batch_size": 32}


def leaves(data: object, path: str = "") -> dict[str, object]:
    if isinstance(data, dict):
        return {k: v for key, child in data.items() for k, v in leaves(child, f"{path}.{key}" if path else key).items()}
    return {path: data}


def test_yaml_merge_siblings_block_style_lists_of_anchors_and_duplicates():
    """Siblings: block-style merges, ``<<: [*a, *b]``, a key given twice, merges nested below a mapping: every fact
    is the value PyYAML's safe loader gives the program (for ``[*a, *b]`` that loader lets the later anchor win)."""
    text = ("a: &a\n  lr: 0.1\n  wd: 0.01\n"
            "b: &b\n  lr: 0.5\n  steps: 100\n"
            "run:\n  <<: [*a, *b]\n  steps: 200\n  steps: 300\n"
            "deep:\n  opt:\n    <<: *a\n")
    got = facts(text, "c.yaml")
    assert {path: value for path, (value, _) in got.items()} == leaves(yaml.safe_load(text))
    assert (got["run.steps"], got["run.wd"], got["deep.opt.lr"]) == ((300, 10), (0.01, 3), (0.1, 2))


def test_yaml_bad_merge_is_a_warning_naming_the_line():
    found = extract_config("a: 1\nb:\n  <<: 3\n", "c.yaml")
    assert [(w.line, w.message.split(":")[0]) for w in found.warnings] == [(3, "config not read")]


def test_json_duplicate_keys_last_wins():
    assert facts('{"lr": 0.1,\n "lr": 0.2}\n', "c.json") == {"lr": (0.2, 2)}


def test_toml_dotted_keys_sit_on_their_own_lines():
    """Issue input 6: ``adam.lr = 0.1`` inside ``[optim]`` is on its own line, not line 1; siblings: quoted keys,
    inline tables, arrays of tables, the same key in two tables."""
    text = ('title = "x"\n[optim]\nadam.lr = 0.1\n"adam".beta = 0.9\nsgd = {lr = 0.5, momentum = 0.9}\n\n'
            "[[layers]]\nsize = 64\n[[layers]]\nsize = 128\n[a]\nlr = 1\n[b]\nlr = 2\n")
    tomllib.loads(text)  # valid TOML
    assert facts(text, "c.toml") == {
        "title": ("x", 1), "optim.adam.lr": (0.1, 3), "optim.adam.beta": (0.9, 4), "optim.sgd.lr": (0.5, 5),
        "optim.sgd.momentum": (0.9, 5), "layers.0.size": (64, 8), "layers.1.size": (128, 10), "a.lr": (1, 12),
        "b.lr": (2, 14)}
