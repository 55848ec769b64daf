"""Constant folding: numbers, symbolic values and the guards that keep hostile input cheap and inert."""

import pytest
import time

import sympy

import libcst as cst

from extractors.values import (builds_object, drawn_range, grid_range, indexed_sequence, keyed_name, parse_value,
                               reads_tensor_size)
from sau.vocabulary import Location, split_ref, split_where


def test_constant_expressions_fold_to_numbers():
    assert parse_value("2**10") == 1024
    assert parse_value("1/1000") == 0.001
    assert parse_value("-1e-4") == -0.0001
    assert parse_value("int(1e5)") == 100000
    assert parse_value('float("3e-4")') == 0.0003
    assert parse_value("1_000") == 1000
    assert parse_value("(2, 2, 2, 1)") == (2, 2, 2, 1)


def test_symbolic_values_keep_their_symbols_and_exact_numbers():
    d_model = sympy.Symbol("d_model")
    assert parse_value("1/sqrt(d_model)") == 1 / sympy.sqrt(d_model)
    assert parse_value("self.d_model ** -0.5") == 1 / sympy.sqrt(d_model)
    assert parse_value("1 / math.sqrt(config.d_model)") == 1 / sympy.sqrt(d_model)


def test_floor_division_of_settings_folds_to_a_floor():
    d_model, n_heads = sympy.symbols("d_model n_heads")
    assert parse_value("config.d_model // config.n_heads") == sympy.floor(d_model / n_heads)
    assert parse_value("7 // 2") == 3
    assert parse_value("n % 2") is None  # modulo only between numbers


def test_bare_names_and_calls_are_not_values():
    assert parse_value("args.lr") is None
    assert parse_value("get_lr()") is None
    assert parse_value("x[0]") is None


@pytest.mark.parametrize("expression, built", [
    ("nn.Embedding(32000, 512)", True),            # a class call (CapWords): a layer
    ("torch.utils.data.DataLoader(ds, 8)", True),
    ("[entry['step'] for entry in log]", True),    # a collection written out
    ("{k: v.to(device) for k, v in batch.items()}", True),
    ("f'{lr:.2e}'", True),                          # a text
    ("sorted(d.name for d in root.iterdir())", True),  # a collection a builtin builds
    ("list(range(1, n + 1))", True),
    ("nn.Parameter(torch.ones([]) * 0.07)", False),  # holds a number
    ("nn.ModuleList([Block() for _ in range(n)])", False),  # its length may be the claimed count
    ("MAX_STEPS(cfg)", False),                     # all capitals: a constant's name, not a class's
    ("len(loader) * epochs", False),
    ("get_steps(cfg)", False),
    ("args.max_steps", False),
])
def test_builds_object_tells_constructed_objects_from_numbers(expression, built):
    assert builds_object(cst.parse_expression(expression)) is built


def test_huge_powers_are_refused_quickly():
    started = time.perf_counter()
    assert parse_value("9**9**9") is None
    assert parse_value("(10**512)**512") is None
    assert time.perf_counter() - started < 1.0


def test_text_is_never_evaluated(tmp_path):
    marker = tmp_path / "ran"
    payload = f"__import__('os').system('touch {marker}')"
    assert parse_value(payload) is None
    assert parse_value(f"eval(\"{payload}\")") is None
    assert not marker.exists()


@pytest.mark.parametrize("elements, score", [
    ([1.0] * 8, 1.0),
    ([1.0] * 7 + [0.0], 0.75),  # 0.875 rounds to 1, but one element is off: "one minor element off"
    ([1.0] * 7 + [0.25], 0.75),
    ([1.0, 0.0], 0.5),
    ([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 0.25),  # 0.125 rounds half up
    ([0.0, 0.0], 0.0),
])
def test_compound_score_needs_every_element_for_one(elements, score):
    from sau.vocabulary import compound_score
    assert compound_score(elements) == score


@pytest.mark.parametrize("held, total, score", [
    (7, 8, 0.75),  # a share that rounds up to 1 with an element short is "one minor element missing"
    (7.5, 8, 0.75),
    (8, 8, 1.0),
    (1, 8, 0.25),
    (0, 3, 0.0),
])
def test_share_score_needs_every_element_for_one(held, total, score):
    from sau.vocabulary import share_score
    assert share_score(held, total) == score


def test_share_score_refuses_no_elements():
    from sau.vocabulary import share_score
    with pytest.raises(ValueError, match="at least one element"):
        share_score(0, 0)


@pytest.mark.parametrize("bounds, score", [
    ([(1.0, 1.0)] * 6 + [(0.0, 0.0), (0.0, 1.0)], 0.75),  # 6/8 = 0.75 up to 7/8, capped at 0.75
    ([(1.0, 1.0)] * 2 + [(0.0, 1.0)] * 3, None),  # 0.4 (0.5) up to 1
    ([(0.0, 0.0)] * 7 + [(0.0, 1.0)], None),  # 0 up to 0.125, which rounds half up to 0.25
    ([(0.0, 0.0)] * 9 + [(0.0, 1.0)], 0.0),  # 0 up to 0.1
    ([(0.5, 0.5)], 0.5),
])
def test_determined_score_only_when_the_undecided_cannot_change_it(bounds, score):
    from sau.vocabulary import determined_score
    assert determined_score(bounds) == score


def test_determined_score_refuses_no_elements():
    from sau.vocabulary import determined_score
    with pytest.raises(ValueError, match="at least one element"):
        determined_score([])


def test_score_range_gives_the_lowest_and_highest_compound_score():
    from sau.vocabulary import score_range
    # two atoms that hold and three elements nobody decided: 2/5 = 0.4 rounds to 0.5; all five holding is 1
    assert score_range([(1.0, 1.0)] * 2 + [(0.0, 1.0)] * 3) == (0.5, 1.0)
    # a drifted element keeps the highest at 0.75, however the undecided one turns out
    assert score_range([(1.0, 1.0)] * 6 + [(0.0, 0.0), (0.0, 1.0)]) == (0.75, 0.75)


def test_indexed_sequence_reads_numbered_entries_in_order() -> None:
    assert indexed_sequence([("x0_factor", 8), ("x1_factor", 4), ("x2_factor", 2)]) == (8, 4, 2)
    assert indexed_sequence([("stage1", 64), ("stage2", 128)]) == (64, 128)
    assert indexed_sequence([("train", 256), ("val", 224)]) is None  # keyed by split, not numbered
    assert indexed_sequence([("x1_factor", 8), ("x3_factor", 4)]) is None  # not counting up by one
    assert indexed_sequence([("x0_factor", 8), ("y1_factor", 4)]) is None  # two stems
    assert indexed_sequence([("x0_factor", "a"), ("x1_factor", 4)]) is None  # not numbers
    assert indexed_sequence([("x0_factor", 8)]) is None  # one entry is no sequence


@pytest.mark.parametrize(("text", "reads"), [
    ("x.size(0)", True), ("ids.shape[1]", True), ("x.size()[0]", True), ("a.size(0) * a.size(1)", True),
    ("int(x.shape[0])", True), ("len(dataset)", False), ("x.shape", False), ("cfg.size(0, 1)", False),
    ("x.size(0) + 1", False)])
def test_a_size_read_off_a_tensor_is_told(text: str, reads: bool) -> None:
    # a batch size read back from the batch mirrors the loader's setting; len() of a dataset is the data's own size
    assert reads_tensor_size(cst.parse_expression(text)) is reads


@pytest.mark.parametrize("written, name", [
    ('terms["mse"]', "terms.mse"),
    ("self.out['logits']", "self.out.logits"),
    ("x[0]", None),
    ('x["not-an-identifier"]', None),
    ('x[f"{key}"]', None),
    ('x["a", "b"]', None),
    ('make()["key"]', None),
])
def test_an_entry_under_a_string_key_reads_as_a_name(written: str, name: str | None) -> None:
    assert keyed_name(cst.parse_expression(written)) == name


@pytest.mark.parametrize(("text", "bounds"), [
    ("np.random.uniform(1.0, 3.0, n)", (1.0, 3.0)),
    ("rng.uniform(low=0.5, high=1.5, size=n)", (0.5, 1.5)),
    ("random.uniform(2, 6)", (2, 6)),
    ("torch.empty(n).uniform_(-1, 1)", (-1, 1)),
    ("torch.distributions.Uniform(0.0, 2.0)", (0.0, 2.0)),
    ("jax.random.uniform(key, (n,), minval=5.0, maxval=10.0)", (5.0, 10.0)),
    ("torch.rand(n) * (3 - 1) + 1", (1, 3)),
    ("0.1 + 0.8 * np.random.rand(n)", (0.1, 0.9)),
    ("1 - torch.rand(n)", (0, 1)),
    ("jax.random.uniform(key, (3,))", None),  # a key and a shape, no bounds
    ("np.random.uniform(lo, hi, n)", None),  # bounds known only at run time
    ("np.random.uniform(*bounds, n)", None),
    ("np.random.uniform(3.0, 1.0)", None),  # no interval
    ("self.scale * torch.rand(a, b)", None),  # a weight initialisation scaled by a setting
    ("np.random.normal(0.0, 1.0, n)", None),
    ("scipy.stats.uniform(0.5, 1.5)", None),  # loc and scale: U(0.5, 2.0), no bounds written as such
    ("np.linspace(0, 1, n_time)", None),  # a grid, no draw (grid_range)
])
def test_a_uniform_draw_gives_its_bounds(text: str, bounds) -> None:
    found = drawn_range(cst.parse_expression(text))
    assert found == pytest.approx(bounds) if bounds is not None else found is None


@pytest.mark.parametrize(("text", "ends"), [
    ("np.linspace(0, 1, n_time)", (0, 1)),  # a grid spans its domain
    ("torch.linspace(start=0.0, end=math.pi, steps=30)", (0.0, 3.141592653589793)),
    ("np.linspace(0, 1, nx, endpoint=False)", (0, 1)),  # a periodic grid still covers [0, 1]
    ("np.linspace(0.0, cfg.t_max, n)", None),  # an end read off an object: known only at run time
    ("np.linspace(0.0, t_max * 2, n)", None),  # an end worked out from a name
    ("np.arange(0, 1, 0.1)", None),  # an arange's step and open end are no domain as such
    ("rng.uniform(0, 1, n)", None),  # a draw, no grid
])
def test_a_grid_gives_its_ends(text: str, ends) -> None:
    found = grid_range(cst.parse_expression(text))
    assert found == pytest.approx(ends) if ends is not None else found is None


def test_a_grid_end_written_as_a_name_is_a_symbol_of_it() -> None:
    # value provenance resolves the name where the grid is laid (t_max = cfg.get("t_max", 1.0) above it)
    assert grid_range(cst.parse_expression("torch.linspace(0.0, t_max, n)")) == (0.0, sympy.Symbol("t_max"))
    assert grid_range(cst.parse_expression("np.linspace(start=t0, stop=1, num=n)")) == (sympy.Symbol("t0"), 1)



def test_split_ref_inverts_a_location_ref() -> None:
    cell = Location("nb.ipynb", 2, 4, cell=3)
    assert split_ref(cell.ref) == ("nb.ipynb#3", 2) and split_where(split_ref(cell.ref)[0]) == ("nb.ipynb", 3)
    assert split_ref(Location("src/a.py", 12, 12).ref) == ("src/a.py", 12)
    assert split_ref("src/a.py") is None and split_ref("src/a.py:") is None and split_ref(":12") is None
