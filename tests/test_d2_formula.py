"""D2 pieces below the fixture repositories: the translation of code and formulas through the operations table,
the evaluation-based equivalence, the naming of differences, the time budget, and that nothing is evaluated."""

import builtins
import itertools
import time
from pathlib import Path

import libcst as cst
import pytest
import sympy

from extractors import expressions, sympy_graph
from extractors.formulas import FormulaError, Translator, contracts_as_chain, contracts_as_product, parse_formula
from extractors.repository import build_index
from rules import d2_formula, equivalence, names, operations
from sau.vocabulary import SAU, Status
from verifier.specs.errors import SpecError
from verifier.specs.project import load_project_spec


def code(text: str) -> sympy.Basic:
    return Translator(operations.load()).translate(cst.parse_expression(text))


def formula(text: str) -> sympy.Basic:
    return parse_formula(text, operations.load())


@pytest.mark.parametrize("written, claimed", [
    ("F.normalize(x, dim=-1)", "x / norm(x)"),
    ("x / x.norm(dim=-1, keepdim=True)", "x / norm(x)"),
    ("x / torch.linalg.norm(x, dim=-1, keepdim=True)", "x / norm(x)"),
    ("F.mse_loss(a, b)", "mean((a - b) ** 2)"),
    ("((a - b) ** 2).mean()", "mean((a - b) ** 2)"),
    ("torch.softmax(z, dim=-1)", "exp(z) / sum(exp(z))"),
    ("F.log_softmax(z, -1)", "log(softmax(z))"),
    ("q @ k.transpose(-2, -1)", "q @ k.T"),
    ("torch.einsum('bhqd,bhkd->bhqk', q, k)", "q @ k.T"),
    ("torch.matmul(h, W.T)", "W @ h"),
    ("torch.matmul(h, W)", "W.T @ h"),  # a projection by W's columns, in either convention
    ("x * torch.sigmoid(x)", "silu(x)"),
    ("x.pow(2).sum(-1).sqrt()", "norm(x)"),
    ("torch.rsqrt(v + 0)", "1 / sqrt(v)"),
    ("-F.logsigmoid(beta * (a - b)).mean()", "-mean(log(sigmoid(beta * (a - b))))"),
    ("x.float().detach()[:, None]", "x"),
    ("torch.clamp(r, 1 - eps, 1 + eps)", "clip(r, 1 - eps, 1 + eps)"),
    # heads moved before the sequence axis, and dropout: layout and identity, values unchanged
    ("q.transpose(1, 2) @ torch.transpose(k, 1, 2).transpose(-2, -1)", "q @ k.T"),
    ("self.attn_drop(F.dropout(x, 0.1))", "x"),
    # Huber at the defaults (delta=1, beta=1), and an accumulator started at zeros or ones of a shape
    ("F.huber_loss(q, y)", "mean(huber(q, y))"),
    ("F.smooth_l1_loss(q, y)", "mean(huber(q, y))"),
    ("torch.zeros(b, 1, device=d) + torch.ones(b, 1) * x", "x"),
    # the larger of negated terms is the negated smaller one, also under a mean; a comparison read on one side
    ("torch.max(-r * a, -c * a).mean()", "-mean(min(r * a, c * a))"),
    ("torch.min(-a, -b)", "-max(a, b)"),
    ("p >= 1 - lam", "1 - p <= lam"),
    ("(x > y).float().mean()", "mean(y < x)"),
    # a batched chain of three products in one einsum
    ("torch.einsum('bpd,dq,bqk->bpk', J, S, J.transpose(-2, -1))", "J @ S @ J.T"),
    ("np.einsum('ij,jk,kl->il', A, B, C)", "A @ B @ C"),
    # the values of a PyTorch reduction along a dimension
    ("q.max(dim=1)[0]", "max(q)"),
    ("torch.max(q, 1)[0]", "max(q)"),
    ("torch.max(q, -1)[0]", "max(q)"),
    # Flax's functional call: the model on its inputs, then its parameters
    ("state.apply_fn({'params': params}, x)", "apply_fn(x, params)"),
    # a function mapped over a batch axis or compiled computes what it computes on one element
    ("jnp.mean((jax.vmap(model)(x) - y) ** 2)", "mean((model(x) - y) ** 2)"),
    ("jax.jit(f)(x)", "f(x)"),
])
def test_equivalent_rewritings_evaluate_alike(written: str, claimed: str) -> None:
    assert equivalence.same(code(written), formula(claimed)) is True


@pytest.mark.parametrize("written, claimed", [
    ("x / x.norm(dim=-1)", "x / sum(x)"),
    ("h @ W", "W @ h"),  # the product does not commute
    ("torch.tanh(x)", "sigmoid(x)"),
    ("softmax(q @ k.T / d)", "softmax(q @ k.T / sqrt(d))"),
    ("q @ k.transpose(-2, -1)", "q @ k"),  # the last two axes: the matrix transpose
    ("self.attn_proj(x)", "x"),
    ("torch.max(r * a, c * a).mean()", "-mean(min(r * a, c * a))"),  # the negation forgotten
    ("torch.max(-a, b)", "-min(a, b)"),  # only one operand negated
    ("p >= lam", "1 - p <= lam"),
    ("p > 1 - lam", "1 - p <= lam"),  # strict against non-strict
    ("x <= y", "y <= x"),
    ("np.einsum('ij,jk,kl->il', A, C, B)", "A @ B @ C"),  # the factors in another order
    ("q.max(dim=1)[1]", "max(q)"),  # the indices
    ("np.max(q, axis=1)[0]", "max(q)"),  # NumPy returns the values alone: [0] is an element
    ("np.max(q, 1)[0]", "max(q)"),
    ("q.max(1)[0]", "max(q)"),  # NumPy's or PyTorch's: not read
    ("torch.max(a, b)[0]", "max(a)"),  # the elementwise max of two tensors
    ("jax.grad(f)(x)", "f(x)"),  # a gradient, not the function's value
])
def test_different_expressions_differ(written: str, claimed: str) -> None:
    assert equivalence.same(code(written), formula(claimed)) is False


@pytest.mark.parametrize("written, claimed, possible", [
    # a renaming can make them equal: the shared value at the diagonal point cannot tell them apart
    ("a * torch.exp(-b) + c", "z + x * exp(-y)", True),
    ("torch.clamp(r, 1 - e, 1 + e) * adv", "A * clip(ratio, 1 - eps, 1 + eps)", True),
    ("u @ v.T", "W @ h.T", True),
    ("(a - b) / c", "(x - y) / z", True),
    ("torch.log(a - b)", "log(x - y)", True),  # no value where every symbol is equal: never ruled out there
    # no renaming can: the filter rules the pair out before any renaming is tried
    ("a * torch.exp(-b) + c", "z + x * exp(y)", False),
    ("a + b", "x * y", False),
    ("torch.sigmoid(a) * b", "tanh(x) * y", False),
])
def test_the_diagonal_point_rules_out_only_what_no_renaming_can_match(written: str, claimed: str,
                                                                      possible: bool) -> None:
    left, right = code(written), formula(claimed)
    assert equivalence.may_match(left, right) is possible
    symbols = sorted(right.free_symbols, key=lambda s: s.name)
    leaves = sorted(left.free_symbols, key=lambda s: s.name)
    values = equivalence.values(right)
    assert values is not None
    matched = any(equivalence.matches(left, values, {leaf.name: s.name for leaf, s in zip(leaves, order)})
                  for order in itertools.permutations(symbols))
    assert matched == possible  # sound (whatever some renaming matches is never ruled out), and here exact


def test_a_small_code_constant_stays_apart_from_its_neighbour() -> None:
    # 1.0 - a + 1e-8 must not fold into 1.00000001 - a, or the stability term could not be read as 0
    assert {s.name for s in code("1.0 - a + 1e-8").free_symbols} == {"a", "<small 1/100000000>"}


def test_a_clamp_of_a_complex_value_is_inconclusive_at_every_point() -> None:
    # the square root of a negative point is imaginary (0.77i to 1.34i here): a max of it has no value; the tolerance
    # for rounding once shared its name with an operation code, so an imaginary part below 1 passed as real
    clamped = formula("max(0, sqrt(x))")
    negative = [p for p in range(40) if equivalence.evaluate(formula("x"), p).real < 0]
    assert negative
    for point in negative:
        with pytest.raises(equivalence.Inconclusive):
            equivalence.evaluate(clamped, point)


@pytest.mark.parametrize("written, claimed, difference", [
    ("-(a - b) ** 2", "(a - b) ** 2", "sign flipped: the code computes the negative of the formula"),
    ("3 * a * b ** 2", "a * b ** 2", "constant factor 3 against the formula"),
    ("a ** 2", "a ** 2 + b * c", "term b*c of the formula is missing"),
    ("a ** 2 + b * c", "a ** 2", "extra term b*c not in the formula"),
    ("a * b ** 3 + a", "a * b ** 2 + a", "power of b is 3, the formula has 2"),
    ("relu(a @ W) * s", "gelu(a @ W) * s", "uses relu where the formula has gelu"),
    # sympy distributes -0.5 * (a + b): the terms sharing the coefficient are flipped together
    ("0.5 * (a + b) + c * d", "-0.5 * (a + b) + c * d", "sign of -(a + b)/2 flipped in the code"),
])
def test_classify_names_the_difference(written: str, claimed: str, difference: str) -> None:
    found = d2_formula.classify(formula(written), formula(claimed), frozenset({"relu", "gelu"}))
    assert found is not None and found.text == difference


def test_placeholders_and_symbolic_powers_are_no_named_difference() -> None:
    # sigma is any activation: relu fills it; arange-based exponents are a representation, not a wrong power
    assert d2_formula.classify(formula("relu(a @ W) * s"), formula("sigma(a @ W) * s"), frozenset({"relu"})) is None
    assert d2_formula.classify(formula("t ** (-arange(d) / d)"), formula("t ** (-2 * j / d)")) is None


def test_unrelated_expressions_get_no_named_difference() -> None:
    assert d2_formula.classify(formula("exp(a) * b"), formula("a ** 2 + log(b)")) is None


def _repo(tmp_path: Path, source: str) -> Path:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "model.py").write_text(source)
    return tmp_path / "repo"


def _sau(formulas, glossary, mechanism) -> SAU:
    parsed = tuple(parse_formula(f) for f in formulas)
    checks = {"formulas": tuple(formulas), "expressions": parsed, "mechanism": tuple(mechanism),
              "glossary": {k: {"meaning": k, "code_names": tuple(v)} for k, v in glossary.items()}}
    return SAU("t-D2-001", "D2", "Eq. 1", "a claim", checks)


def test_a_pathological_repository_ends_within_the_budget(tmp_path: Path) -> None:
    # each definition doubles the printed size of the one before: 2**40 terms if expanded naively
    lines = ["def blowup(x, y):", "    a0 = x * y + x"]
    lines += [f"    a{i} = a{i - 1} * a{i - 1} + a{i - 1} / (a{i - 1} + y)" for i in range(1, 41)]
    lines += ["    return a40"]
    for number in range(300):  # and many candidates with many names, each opening many renamings
        lines += [f"def f{number}(p, q, r, s, t, u, v, w):",
                  f"    return p * q + r * s - t / u + v ** w + {number + 1}"]
    index = build_index(_repo(tmp_path, "\n".join(lines) + "\n"), names.normalise)
    # a claim every candidate f<n> nearly matches: each costs an evaluation, together far more than the budget
    sau = _sau(["z == p * q + r * s - t / u + v ** w"], {s: [s] for s in "zpqrstuvw"}, ["blowup"])
    started = time.monotonic()
    verdict = d2_formula.check(sau, index, budget=2_000)
    elapsed = time.monotonic() - started
    assert verdict.status == Status.UNRESOLVED
    # the formula the search stopped at is named
    assert verdict.reason == "operation budget of 2000 exhausted comparing z == p * q + r * s - t / u + v ** w"
    assert elapsed < 10  # a hang guard, not a speed assertion: the count of evaluated nodes stops the search
    again = d2_formula.check(sau, index, budget=2_000)  # counted, not timed: the same verdict on any machine
    assert (again.status, again.reason, again.score) == (verdict.status, verdict.reason, verdict.score)


def test_nothing_is_evaluated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    command = f"__import__('os').system('touch {marker}')"
    repo = _repo(tmp_path, f"def loss_fn(x):\n    loss = {command}\n    y = eval('{marker}')\n    return x / x.norm()\n")
    calls = []
    real_eval, real_exec = builtins.eval, builtins.exec
    monkeypatch.setattr(builtins, "eval", lambda *a, **k: calls.append(a) or real_eval(*a, **k))
    monkeypatch.setattr(builtins, "exec", lambda *a, **k: calls.append(a) or real_exec(*a, **k))
    index = build_index(repo, names.normalise)
    verdict = d2_formula.check(_sau(["x / norm(x)"], {"x": ["x"]}, ["loss_fn"]), index)
    crafted = sympy.Function(command)(sympy.Symbol(command))  # a function name that is Python code
    assert equivalence.values(crafted) is not None
    assert verdict.status == Status.SETTLED and verdict.score == 1.0
    assert not marker.exists()
    assert not [c for c in calls if "touch" in repr(c)]
    with pytest.raises(FormulaError, match="unsupported syntax: SimpleString"):
        parse_formula(command)


def test_a_spec_formula_that_is_code_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("schema: sauverify-spec/1\nbenchmark_id: x-001\nslug: x\ntitle: t\nvenue: v\nsaus:\n"
                    "  - id: x-D2-001\n    dimension: D2\n    source: s\n    statement: s\n"
                    "    formulas: [\"__import__('os').system('true')\"]\n    glossary: {}\n    mechanism: [m]\n")
    with pytest.raises(SpecError) as error:
        load_project_spec(spec)
    assert error.value.line == 7 and "unsupported syntax" in error.value.message


@pytest.mark.parametrize("atoms, line, message", [
    ("    atoms: []\n", 11, "x-D2-001: atoms must be a non-empty list"),
    ("    atoms:\n      - {name: gamma, valu: 0.99}\n", 12, "x-D2-001: atom 'gamma': unknown key(s)"),
    ("    atoms:\n      - {name: gamma, value: 0.99, set: [1, 2]}\n", 12,
     "x-D2-001: atom 'gamma' needs exactly one of value, values, set, range"),
])
def test_a_d2_entrys_atoms_are_read_as_d1_atoms_and_refused_with_their_line(tmp_path: Path, atoms: str, line: int,
                                                                           message: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("schema: sauverify-spec/1\nbenchmark_id: x-001\nslug: x\ntitle: t\nvenue: v\nsaus:\n"
                    "  - id: x-D2-001\n    dimension: D2\n    source: s\n    statement: s\n"
                    + atoms + "    formulas: [\"y == g * x\"]\n    glossary: {y: {meaning: m, code_names: [y]}, "
                    "g: {meaning: m, code_names: [g]}, x: {meaning: m, code_names: [x]}}\n    mechanism: [m]\n")
    with pytest.raises(SpecError) as error:
        load_project_spec(spec)
    assert error.value.line == line and error.value.message.startswith(message)


def test_a_d2_entrys_atoms_are_its_checks(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("schema: sauverify-spec/1\nbenchmark_id: x-001\nslug: x\ntitle: t\nvenue: v\nsaus:\n"
                    "  - id: x-D2-001\n    dimension: D2\n    source: s\n    statement: s\n"
                    "    formulas: [\"y == g * x\"]\n    glossary: {y: {meaning: m, code_names: [y]}, "
                    "g: {meaning: m, code_names: [g]}, x: {meaning: m, code_names: [x]}}\n    mechanism: [m]\n"
                    "    atoms:\n      - {name: gamma, aliases: [discount], value: 0.99}\n")
    (sau,) = load_project_spec(spec).saus
    assert [(a.name, a.aliases, a.values) for a in sau.atoms] == [("gamma", ("discount",), (0.99,))]
    assert sau.complete


@pytest.mark.parametrize("written, equal", [
    ("torch.clamp(m - p + n, min=0).mean()", True),
    ("F.relu(m - p + n).mean()", True),
    ("torch.maximum(torch.zeros_like(m - p + n), m - p + n).mean()", True),
    ("(m - p + n).mean()", False),  # the clamp forgotten: equal wherever m - p + n > 0, so the signs must vary
    ("torch.clamp(m - p + n, min=1e-8).mean()", False),  # read as a stability floor, not as the hinge
])
def test_points_of_both_signs_tell_a_forgotten_clamp(written: str, equal: bool) -> None:
    assert equivalence.same(code(written), formula("mean(max(0, m - p + n))")) is equal


def test_the_points_of_both_signs_count_only_for_sign_sensitive_expressions() -> None:
    # sqrt(x ** 2) is x for positive x only; without a clamp in sight the positive points decide, as before
    assert equivalence.same(formula("sqrt(x ** 2)"), formula("x")) is True
    assert equivalence.sign_sensitive(formula("max(0, x)")) and not equivalence.sign_sensitive(formula("sqrt(x)"))


@pytest.mark.parametrize("written, claimed, difference", [
    ("softmax(q @ k.T) @ v", "softmax(q @ k.T / sqrt(d)) @ v", "factor 1/sqrt(d) of matmul(k, q)/sqrt(d) is missing"),
    ("softmax(-(q @ k.T) / sqrt(d)) @ v", "softmax(q @ k.T / sqrt(d)) @ v", "flipped in the code"),
    ("mean(m - p + n)", "mean(max(0, m - p + n))", "the max is missing"),
    ("exp(a) + log(b)", "exp(a) + log(b + c)", "term c of b + c is missing in the code"),
    # a schedule's complement read as its value: (1 - t) * k for (1 - t) * (1 - k)
    ("(1 - t) * k", "(1 - t) * (1 - k)", "k where the formula has its complement 1 - k"),
])
def test_classify_names_one_edit_inside_the_formula(written: str, claimed: str, difference: str) -> None:
    found = d2_formula.classify(formula(written), formula(claimed))
    assert found is not None and difference in found.text


def test_a_factor_of_a_placeholder_output_alone_is_never_named_missing() -> None:
    # the block behind attn may normalise its own output: its normalisation is not missing where attn is called
    assert d2_formula.classify(formula("h + a * (attn(h) - h)"),
                               formula("h + a * (attn(h) / norm(attn(h)) - h)")) is None
    # nor a term beside a layer call: the layer may add it (nn.Linear its bias, a block its residual)
    assert d2_formula.classify(formula("relu(final_layer(x))"), formula("relu(final_layer(x) + b)")) is None
    # a term of a library operation's sum still is (fft is the table's)
    found = d2_formula.classify(formula("ifft(fft(v) * R)"), formula("ifft(fft(v) * R) + v * W"))
    assert found is not None and found.text == "term W*v of the formula is missing"
    # a factor of the formula's own symbols still is, beside the placeholder (s scales what attn returns)
    found = d2_formula.classify(formula("h + a * (attn(h) - h)"), formula("h + a * (s * attn(h) - h)"))
    assert found is not None and found.text == "factor s of s*attn(h) is missing in the code"


def test_an_exhausted_budget_raises_and_counts_nodes() -> None:
    budget = equivalence.Budget(10)
    with pytest.raises(equivalence.Exhausted):
        equivalence.values(formula("exp(a) * b + log(c) - d / e"), budget=budget)
    assert budget.spent > 10


def _sprawling_chain(levels: int) -> sympy.Basic:
    """x*y + x, then a**2 + a per level: two distinct nodes more and the printed tree doubled at each level."""
    x, y = sympy.symbols("x y")
    a = x * y + x
    for _ in range(levels):
        a = a * a + a
    return a


def test_tree_size_counts_each_use_of_a_shared_subexpression() -> None:
    assert sympy_graph.tree_size(_sprawling_chain(0), 100) == 5  # Add(Mul(x, y), x)
    chain = _sprawling_chain(15)
    assert sympy_graph.dag_size(chain, 1000) == 35
    assert sympy_graph.tree_size(chain, 10 ** 9) == 229_374
    assert sympy_graph.tree_size(chain, 1000) == 1001  # counting stops past the limit


def test_a_function_of_a_sprawling_operand_is_rebuilt_unevaluated() -> None:
    # sympy evaluates exp(-v) and Abs(v) along the printed tree of v: 143,316 nodes of a VAE decoder's chain on 102
    # distinct ones kept a repository running for more than ten minutes
    x, v = sympy.symbols("x v")
    chain = _sprawling_chain(12)
    built = sympy_graph.substitute(sympy.exp(-v) + sympy.Abs(v), {v: chain})
    assert {type(term) for term in built.args} == {sympy.exp, sympy.Abs}
    assert sympy.Abs(chain, evaluate=False) in built.args
    assert sympy_graph.substitute(sympy.exp(v), {v: sympy.log(x)}) == x  # a small operand is evaluated as ever


_SPRAWLING_LINES = ["a0 = x * y + x"] + [f"a{i} = a{i - 1} * a{i - 1} + a{i - 1}" for i in range(1, 19)]
_GATE_HELPER = "def gate(v):\n    return v * torch.exp(-v)\n\n\nclass Net:\n"
_GATE_MODULE = ("class Gate(torch.nn.Module):\n    def forward(self, v):\n        return v * torch.exp(-v)\n\n\n"
                "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.gate = Gate()\n")


@pytest.mark.parametrize(("header", "call"), [(_GATE_HELPER, "gate"), (_GATE_MODULE, "self.gate")])
def test_a_definition_whose_printed_tree_sprawls_stays_its_name(tmp_path: Path, header: str, call: str) -> None:
    # a15 would print as 229,374 nodes, past sympy_graph.MAX_TREE_NODES (a14 below it): it stays a name, and the
    # gate is put in around what a18 computes from it
    chained = "".join(f"        {line}\n" for line in _SPRAWLING_LINES)
    source = (f"import torch\n\n\n{header}\n    def chained(self, x, y):\n{chained}        return {call}(a18)\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    (returned,) = [c.expression for r in d2_formula.candidates(index) if r.name == "chained"
                   for c in r.expressions if c.target == "return"]
    assert {s.name for s in returned.free_symbols} == {"a15"}
    assert any(isinstance(n, sympy.exp) for n in sympy_graph.dag_nodes(returned, 1000) or ())


def test_paths_through_if_statements_are_bounded(tmp_path: Path) -> None:
    lines = ["def f(x, flags):", "    y = x"]
    for number in range(6):  # 2**6 paths if followed naively
        lines += [f"    if flags[{number}]:", f"        y = y + {number + 1}"]
    lines += ["    return y"]
    index = build_index(_repo(tmp_path, "\n".join(lines) + "\n"), names.normalise)
    (returned,) = [c for r in d2_formula.candidates(index) for c in r.expressions if c.target == "return"]
    assert len(returned.alternatives) + 1 == expressions.MAX_PATHS  # one substituted form per path kept


def test_a_loop_accumulation_reads_as_the_sum_of_its_term(tmp_path: Path) -> None:
    source = ("def f(xs, ys):\n    total = 0.0\n    for x, y in zip(xs, ys):\n        total += (x - y) ** 2\n"
              "    return total\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    found = {c.target: c for r in d2_formula.candidates(index) for c in r.expressions}
    assert (sympy.Symbol("x") - sympy.Symbol("y")) ** 2 in found["total"].forms()  # the per-step term
    assert equivalence.same(found["return"].expression, formula("sum((x - y) ** 2)")) is True


def test_an_implementation_entry_without_forms_is_refused() -> None:
    with pytest.raises(ValueError, match="implementations.clip: expected a mapping with forms"):
        operations.parse_implementations({"implementations": {"clip": {"calls": ["clip_grad_norm_"]}}})


def test_a_loop_product_reads_as_the_product_of_its_factor(tmp_path: Path) -> None:
    source = "def f(ps):\n    total = 1.0\n    for p in ps:\n        total = total * (1 - p)\n    return total\n"
    index = build_index(_repo(tmp_path, source), names.normalise)
    found = {c.target: c for r in d2_formula.candidates(index) for c in r.expressions}
    assert 1 - sympy.Symbol("p") in found["total"].forms()  # the per-step factor
    assert equivalence.same(found["return"].expression, formula("prod(1 - p)")) is True


def test_a_placeholder_function_is_never_read_as_left_out() -> None:
    # attn(h) stands for a submodule the caller applies: a helper normalising h is no drift of attn(h) / norm(attn(h))
    assert d2_formula.classify(formula("h / norm(h)"), formula("attn(h) / norm(attn(h))")) is None


def test_an_expression_equal_to_the_formula_has_no_difference() -> None:
    # the same DPO margin, grouped differently: no "normaliser" may be named between equal expressions
    written = "-mean(log(sigmoid(b * (pw - rw) - b * (pl - rl))))"
    assert d2_formula.classify(formula(written), formula("-mean(log(sigmoid(b * ((pw - rw) - (pl - rl)))))")) is None


def test_branches_of_a_conditional_expression_are_read_but_may_not_decide_a_drift() -> None:
    # values[t + 1] if t + 1 < T else 0.0: the second branch is the boundary, where a term reads 0 by design
    written = code("r + gamma * (v_next if t + 1 < T else 0.0) - v")
    forms, branches = d2_formula._readings((written,), frozenset(), frozenset())
    assert code("r + gamma * v_next - v") in branches and code("r - v") in branches
    assert written in forms and written not in branches


def test_reading_forms_per_sample_and_submodule_leaves() -> None:
    # -0.5 * (self.Q1(z) + self.Q2(z)).mean(): the batch mean off, the glossary's Q1 and Q2 as leaves
    written = code("-0.5 * (self.Q1(z) + self.Q2(z)).mean()")
    forms, _ = d2_formula._readings((written,), frozenset(), frozenset({"q1", "q2"}))
    assert code("-0.5 * (Q1 + Q2)") in forms


@pytest.mark.parametrize("written, read", [
    ("-sum(log(p)) / T", "-mean(log(p))"),
    ("(1 / n) * sum(L(u, F(a, w)))", "mean(L(u, F(a, w)))"),
    ("sum(x) / (n + 1)", "sum(x) / (n + 1)"),  # a divisor that is not a name is no count
])
def test_a_sum_divided_by_a_name_reads_as_a_mean(written: str, read: str) -> None:
    assert d2_formula._as_means(formula(written)) == formula(read)


@pytest.mark.parametrize("written, read", [
    ("mean(norm(x - y) ** 2)", "mean((x - y) ** 2)"),  # a per-sample squared norm over the batch: the mse
    ("(1 / n) * sum(norm(x - y) ** 2)", "mean((x - y) ** 2)"),
    ("sum(norm(x - y) ** 2)", "sum(sum((x - y) ** 2))"),  # no mean: a sum stays a sum
])
def test_a_mean_of_a_sum_reads_as_the_mean_of_its_terms(written: str, read: str) -> None:
    assert d2_formula._as_means(formula(written)) == formula(read)


def test_a_quantity_the_claim_writes_as_a_call_reads_as_a_leaf() -> None:
    # KL(q, p) is a quantity of its own (kl_loss holds it); topk is an operation, F a placeholder, and a whole
    # claim that is one call is no term of anything
    assert d2_formula._as_quantities(formula("0.5 * r + beta * KL(q, p)")) == formula("0.5 * r + beta * KL")
    assert "KL_loss" in d2_formula._quantity_entries(formula("r + KL(q, p)"))["KL"]["code_names"]
    assert d2_formula._quantity_calls(formula("topk(w, K) + r")) == frozenset()
    assert d2_formula._quantity_calls(formula("F(a, w) + r")) == frozenset()
    assert d2_formula._quantity_calls(formula("KL(q, p)")) == frozenset()
    # a claim topped by a call (a sum, a comparison) still has its quantities inside: only the whole is refused
    assert d2_formula._as_quantities(formula("sum(log(pr_b(x)))")) == formula("sum(log(pr_b))")
    assert d2_formula._as_quantities(formula("score(x, y) <= lam")) == formula("score <= lam")


@pytest.mark.parametrize("law, draw", [
    ("Normal(m, s ** 2)", "m + s * z"),
    ("N(m, v)", "m + sqrt(v) * z"),
    ("Normal(a + b, (1 - t) ** 2 * c ** 4 * I)", "a + b + (1 - t) * c ** 2 * z"),  # I the identity: 1
    ("Normal(z, s ** 2)", "z + s * z_noise"),  # z is the claim's: the noise leaf is named otherwise
])
def test_a_normal_law_reads_as_its_draw(law: str, draw: str) -> None:
    glossary = {"I": {"meaning": "identity covariance", "code_names": ["eye"]},
                "w": {"meaning": "Gaussian noise of the weights", "code_names": ["w_noise"]}}
    drawn, noise = d2_formula._drawn(formula(law), glossary)
    assert drawn == formula(draw)
    name = next(iter(noise))
    assert {"noise", "eps", "w_noise"} <= set(noise[name]["code_names"])  # usual names, and the glossary's


@pytest.mark.parametrize("written, scale", [
    ("W0 + s * (B @ R @ A)", "s"),
    ("linear(x, W0) + c * linear(x, B @ R @ A)", "c"),  # a linear map between: the factor still scales it
    ("k * softmax(2 * (B @ R @ A))", "2"),  # a factor outside a non-linear function does not
    ("B @ R @ A", "1"),
])
def test_the_scale_of_a_product_stops_at_a_non_linear_function(written: str, scale: str) -> None:
    form = formula(written)
    product = formula("B @ R @ A")
    assert d2_formula._scale_of(form, product) == formula(scale)


@pytest.mark.parametrize("claim", ["Laplace(m, b)", "m + Normal(0, v)", "Normal(m)"])
def test_only_a_claim_that_is_a_normal_law_reads_as_a_draw(claim: str) -> None:
    assert d2_formula._drawn(formula(claim), {}) == (None, {})


@pytest.mark.parametrize("functions, read", [
    ({"gru", "cross_attn"}, "gru(cross_attn(x, c), h)"),  # spelled alike once normalised
    ({"gru", "attn"}, "gru(CrossAttn(x, c), h)"),  # attn is not CrossAttn
    ({"gru", "GRU", "cross_attn"}, "GRU(cross_attn(x, c), h)"),  # the claim's own name called as written
    ({"gru", "Gru", "cross_attn"}, "GRU(cross_attn(x, c), h)"),  # two code functions spelled alike: no one's
])
def test_a_claimed_module_reads_as_the_code_function_spelled_alike(functions: set, read: str) -> None:
    claim = d2_formula._claim(formula("GRU(CrossAttn(x, c), h)"), {})
    assert claim is not None
    assert d2_formula._spelled_variant(claim, frozenset(functions), operations.load(), {}, {}).rhs == formula(read)


@pytest.mark.parametrize("written, read", [
    ("torch.topk(x, k, dim=1, largest=False)", "bottomk(x, k)"),
    ("torch.topk(x, k, largest=True)", "topk(x, k)"),
    ("torch.topk(x, k, largest=flag)", "topk(x, k)"),  # known only at run time: the library's default
    ("torch.norm(x, p=1)", "sum(abs(x))"),
    ("F.normalize(x, p=1.0, dim=-1)", "x / sum(abs(x))"),
    ("x.norm(p=2)", "sqrt(sum(x ** 2))"),
])
def test_a_keyword_setting_selects_another_operation(written: str, read: str) -> None:
    assert Translator(operations.load()).translate(cst.parse_expression(written)) == formula(read)


@pytest.mark.parametrize("written, read", [
    # a pooling's window and stride, by position or keyword, the stride the window when left out
    ("F.avg_pool2d(y, kernel_size=8)", "avg_pool2d(y, 8, 8)"),
    ("F.avg_pool2d(y, 8)", "avg_pool2d(y, 8, 8)"),
    ("F.avg_pool2d(y, kernel_size=8, stride=None)", "avg_pool2d(y, 8, 8)"),
    ("F.avg_pool2d(y, 3, stride=1)", "avg_pool2d(y, 3, 1)"),
    ("F.max_pool1d(y, 2, 2)", "max_pool1d(y, 2, 2)"),
    ("F.adaptive_avg_pool2d(y, output_size=1)", "adaptive_avg_pool2d(y, 1)"),
    ("torch.full((d,), s)", "s"),
    ("np.full(shape, fill_value=s)", "s"),
    ("torch.full_like(x, v)", "v"),
    ("nn.Parameter(torch.ones(d) * s)", "s"),
    ("x.detach().cpu().numpy()", "x"),
    ("torch.chunk(x, 2, 1)", "chunk(x, 2)"),  # the dim dropped, by position as by keyword
    ("x.chunk(2, dim=-1)[1]", "getitem(chunk(x, 2), 1)"),
])
def test_keyword_operands_fill_values_and_identities_read_as_the_library_documents(written: str, read: str) -> None:
    assert Translator(operations.load()).translate(cst.parse_expression(written)) == formula(read)


def test_pooling_by_another_window_or_stride_differs() -> None:
    assert code("F.avg_pool2d(y, kernel_size=8)") != code("F.avg_pool2d(y, kernel_size=4)")
    assert code("F.avg_pool2d(y, 8)") != code("F.avg_pool2d(y, 8, stride=1)")


def _unpacked_forms(tmp_path: Path, source: str) -> dict[str, sympy.Basic]:
    index = build_index(_repo(tmp_path, source), names.normalise)
    return {f"{r.qualname}:{c.target}": c.expression for r in d2_formula.candidates(index) for c in r.expressions}


def test_a_tuple_display_binds_each_name_from_the_values_before_the_statement(tmp_path: Path) -> None:
    # Python evaluates the right side first: the swap binds a to the old b and b to the old a
    found = _unpacked_forms(tmp_path, "def f(x, y):\n    a, b = x * 2, y + 1\n    a, b = b, a\n    return a - b\n")
    assert found["f:return"] == formula("y + 1 - 2 * x")


def test_the_parts_of_a_chunk_are_distinct_from_each_other_and_from_the_whole(tmp_path: Path) -> None:
    source = ("import torch\n\n\ndef gated(h):\n    v, g = h.chunk(2, dim=-1)\n    return v * torch.sigmoid(g)\n\n\n"
              "def f(p, q):\n    return gated(p) - gated(q)\n")
    found = _unpacked_forms(tmp_path, source)
    first, second = found["gated:v"], found["gated:g"]
    assert first != second and sympy.Symbol("h") not in (first, second)
    assert found["f:return"] != 0  # the helper's parts follow its argument: gated(p) is no gated(q)


def test_a_recurrent_module_unpacks_to_its_final_state_by_the_class_built(tmp_path: Path) -> None:
    source = ("import torch.nn as nn\n\n\nclass Encoder(nn.Module):\n    def __init__(self, d):\n"
              "        self.gru = nn.GRU(d, d).to('cpu')\n        self.lstm = nn.LSTM(d, d)\n"
              "        self.rnn = nn.Linear(d, d)\n\n"
              "    def forward(self, x, h0):\n        out, h = self.gru(x, h0)\n        o, (h_n, c_n) = self.lstm(x)\n"
              "        _, hidden = self.lstm(x)\n        _, r = self.rnn(x)\n        return h\n")
    found = _unpacked_forms(tmp_path, source)
    assert found["Encoder.forward:h"] == formula("gru(x, h0)") and found["Encoder.forward:out"] == formula(
        "gru_output(x, h0)")
    assert (found["Encoder.forward:h_n"], found["Encoder.forward:c_n"]) == (formula("lstm(x)"), formula("lstm_c_n(x)"))
    # (h_n, c_n) bound to one name, and a layer named like a recurrent module but built otherwise: nothing bound
    assert "Encoder.forward:hidden" not in found and "Encoder.forward:r" not in found


def test_an_outputs_entry_without_parts_or_with_an_unknown_value_is_refused() -> None:
    with pytest.raises(ValueError, match="outputs.topk: expected parts"):
        operations.parse_table({"outputs": {"topk": {"parts": ["values"], "operands": 2}}})
    with pytest.raises(ValueError, match="module_outputs.GRU: expected parts"):
        operations.parse_table({"module_outputs": {"GRU": {"parts": ["output", "h_n"], "operands": "some"}}})
    with pytest.raises(ValueError, match="module_outputs.GRU.value: expected the name of one of its parts"):
        operations.parse_table({"module_outputs": {"GRU": {"parts": ["output", "h_n"], "operands": 1, "value": "c"}}})


@pytest.mark.parametrize(("written", "read"), [
    # left out, the scale is 1/sqrt of the head width and the mask none; passed as None, the same
    ("F.scaled_dot_product_attention(q, k, v)", "softmax(q @ transpose(k) / sqrt(head_dim)) @ v"),
    ("F.scaled_dot_product_attention(q, k, v, attn_mask=None, scale=None)",
     "softmax(q @ transpose(k) / sqrt(head_dim)) @ v"),
    ("F.scaled_dot_product_attention(q, k, v, m)", "softmax(q @ transpose(k) / sqrt(head_dim) + m) @ v"),
    ("F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=s)", "softmax(q @ transpose(k) * s + m) @ v"),
    ("F.scaled_dot_product_attention(q, k, v, is_causal=True)",
     "softmax(q @ transpose(k) / sqrt(head_dim) + causal_mask) @ v"),
    ("xops.memory_efficient_attention(q, k, v, attn_bias=b)", "softmax(q @ transpose(k) / sqrt(head_dim) + b) @ v"),

    ("flash_attn_func(q, k, v, softmax_scale=s, causal=True)", "softmax(q @ transpose(k) * s + causal_mask) @ v"),
])
def test_fused_attention_reads_as_its_documented_formula(written: str, read: str) -> None:
    assert Translator(operations.load()).translate(cst.parse_expression(written)) == \
        Translator(operations.load()).translate(cst.parse_expression(_as_code(read)))


@pytest.mark.parametrize("written", ["flash_attn_func(q, k, v, 0.0, s)",
                                     "F.scaled_dot_product_attention(q, k, v, None, 0.0, True)",
                                     "xops.memory_efficient_attention(q, k, v, None, 0.0, s)"])
def test_a_fused_attention_call_with_positional_settings_stays_a_function(written: str) -> None:
    # dropout, is_causal and the scale by position: the defaults would misread them (a hostile test's inverted scale)
    read = Translator(operations.load()).translate(cst.parse_expression(written))
    assert isinstance(read, sympy.core.function.AppliedUndef) and read.func.__name__ in written


@pytest.mark.parametrize(("written", "read"), [
    ('w.masked_fill(mask == 0, float("-inf"))', "w + mask"),
    ('w.masked_fill(~mask, -float("inf"))', "w + mask"),
    ("w.masked_fill(causal_mask[:, :, :T, :T] == 0, -1e9)", "w + causal_mask"),
    ("w.masked_fill(mask, torch.finfo(w.dtype).min)", "w + mask"),
    ("w.masked_fill(mask, -math.inf)", "w + mask"),
    # not a mask matrix: a fill of zeros, a top-k filter on the filled tensor itself, a condition on two names
    ("w.masked_fill(mask, 0.0)", "masked_fill(w, mask, 0)"),
    ('logits.masked_fill(logits < kth, float("-inf"))', 'masked_fill(logits, less(logits, kth), x_inf)'),
])
def test_masked_scores_read_as_the_scores_plus_the_mask(written: str, read: str) -> None:
    got = Translator(operations.load()).translate(cst.parse_expression(written))
    if "x_inf" in read:  # the opaque float("-inf") keeps its own placeholder symbol
        assert got.func.__name__ == "masked_fill" and got.args[:2] == formula(read).args[:2]
    else:
        assert got == formula(read)


def _as_code(formula_text: str) -> str:
    """A formula over softmax and transpose written as the code the translator reads the same way."""
    return formula_text.replace("transpose(k)", "k.transpose(-2, -1)").replace("softmax(", "F.softmax(")


def test_an_operation_default_that_is_not_formula_text_is_refused() -> None:
    with pytest.raises(ValueError, match="operations.sdpa.defaults: expected operand letter: formula text"):
        operations.parse_table({"operations": {"sdpa": {"operands": 3, "defaults": {"scale": "1"}}}})
    with pytest.raises(ValueError, match="operations.sdpa.defaults: expected operand letter: formula text"):
        operations.parse_table({"operations": {"sdpa": {"operands": 3, "defaults": {"f": 1}}}})


def test_a_selection_entry_that_is_not_a_mapping_of_literals_is_refused() -> None:
    with pytest.raises(ValueError, match="selections.topk: expected keyword"):
        operations.parse_table({"selections": {"topk": {"largest": "bottomk"}}})
    with pytest.raises(ValueError, match="selections.topk.largest: expected literal values"):
        operations.parse_table({"selections": {"topk": {"largest": {False: ["bottomk"]}}}})


def test_a_switch_entry_without_settings_or_mechanisms_is_refused() -> None:
    with pytest.raises(ValueError, match="switches.ddpm: expected a mapping with settings"):
        operations.parse_switches({"switches": {"ddpm": {"mechanisms": ["ddpm"]}}})
    with pytest.raises(ValueError, match="switches.ddpm.mechanisms: expected a list"):
        operations.parse_switches({"switches": {"ddpm": {"settings": {"eta": 1}}}})


def test_a_library_model_entry_without_calls_or_with_bad_names_is_refused() -> None:
    with pytest.raises(ValueError, match="library_models.vit: expected a mapping with a calls list"):
        operations.parse_library_models({"library_models": {"vit": {"names": ["vit_"]}}})
    with pytest.raises(ValueError, match="library_models.vit.names: expected a list"):
        operations.parse_library_models({"library_models": {"vit": {"calls": ["vit_b_16"], "names": "vit_"}}})
    families, factories = operations.parse_library_models(
        {"library_models": {"vit": {"calls": ["vit_b_16"], "names": ["ViT-"]}}, "library_model_factories": ["f"]})
    assert families[0].names == ("vit-",) and factories == frozenset({"f"})


@pytest.mark.parametrize("eta, status, score", [("1.0", Status.UNRESOLVED, 0.25), ("0.0", Status.SETTLED, 0.0)])
def test_a_sampler_switched_to_the_mechanism_keeps_it_from_being_absent(tmp_path: Path, eta: str, status: Status,
                                                                         score: float) -> None:
    # a DDIM step with eta = 1 is the DDPM sampler (operations.yaml, switches); with eta = 0 it is deterministic
    source = (f"def sample(x, eps, alpha, eta={eta}):\n    sigma = eta * (1 - alpha) ** 0.5\n"
              "    return x - sigma * eps\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    sau = _sau(["x_next == x - sqrt(beta) * e + sqrt(beta) * z"], {"x_next": ["x_next"]},
               ["ddpm", "memoryless"])
    verdict = d2_formula.check(sau, index)
    assert (verdict.status, verdict.score) == (status, score), verdict.reason


@pytest.mark.parametrize("subscripts, product", [
    ("bji,io->bjo", True),  # a pointwise linear map over batch and grid
    ("bki,kio->bko", True),  # one matrix per Fourier mode k
    ("i,io->o", True),
    ("bij,bkj->bik", False),  # the second operand transposed: not read as a plain product
    ("bi,bi->b", False),  # a dot product
    ("ij,jk->ki", False),  # the result transposed
    ("...i,io->...o", False),
])
def test_a_two_operand_einsum_summing_one_index_reads_as_a_product(subscripts: str, product: bool) -> None:
    assert contracts_as_product(subscripts) is product


@pytest.mark.parametrize("subscripts, chain", [
    ("bpd,dq,bqk->bpk", True),  # a batched J @ Sigma @ J^T, the transpose passed as the third operand
    ("ij,jk,kl->il", True),
    ("bij,bjk,bkl,blm->bim", True),
    ("ij,jk,kl->li", False),  # the result transposed
    ("ij,jk,ik->i", False),  # the third operand contracted with the first
    ("pd,dq,kq->pk", False),  # the last operand contracted on its second axis: not read as a plain product
    ("ij,jk->ik", False),  # two operands: contracts_as_product's case
])
def test_an_einsum_of_several_operands_chaining_products_reads_as_their_product(subscripts: str, chain: bool) -> None:
    assert contracts_as_chain(subscripts) is chain


def test_jax_indexed_writes_and_flax_parameters_read_as_values() -> None:
    translator = Translator(operations.load())
    read = translator.translate(cst.parse_expression(
        "out.at[:, :m].set(jnp.einsum('bji,io->bjo', x, self.param('kernel', init, (d, d))))"))
    assert read == sympy.Function("matmul")(sympy.Symbol("x"), sympy.Symbol("kernel"))
    assert translator.translate(cst.parse_expression("out.at[i].add(v)")) != sympy.Symbol("v")  # only a write is v


def test_a_module_built_and_called_in_one_expression_is_the_submodule_its_name_names() -> None:
    translator = Translator(operations.load())
    lifting = translator.translate(cst.parse_expression('nn.Dense(64, name="lifting_layer")(x)'))
    assert lifting == sympy.Function("lifting_layer")(sympy.Symbol("x"))
    assert translator.translate(cst.parse_expression("hk.Linear(8, name='proj')(h)")) == \
        sympy.Function("proj")(sympy.Symbol("h"))
    for unnamed in ("nn.Dense(64)(x)", "nn.Dense(64, name=f'block_{i}')(x)", "nn.Dense(64, name='2nd')(x)"):
        assert translator.translate(cst.parse_expression(unnamed)) == sympy.Symbol(f"<{unnamed}>")  # opaque
    with pytest.raises(FormulaError, match="call of an expression"):
        Translator(operations.load(), strict=True).translate(cst.parse_expression('nn.Dense(64, name="p")(x)'))


def test_overridden_methods_finds_classes_in_any_block_and_none_in_expressions(tmp_path: Path) -> None:
    from rules.d2_stubs import overridden_methods
    source = ("class Gate(nn.BaseGate):\n    def forward(self, x):\n        return x\n    scale = lambda self: 2\n"
              "if USE_FAST:\n    class Fast(Gate):\n        def forward(self, x):\n            return x\n"
              "def build():\n    class Local(Base, Mixin):\n        def step(self):\n            pass\n"
              "        def reset(self):\n            pass\n    return Local\n"
              "obj = type('Dyn', (Base,), {'run': lambda self: 1})\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    assert overridden_methods(index) == {"BaseGate": {"forward"}, "Gate": {"forward"}, "Base": {"step", "reset"},
                                         "Mixin": {"step", "reset"}}


def test_overriding_methods_follow_repository_bases_only(tmp_path: Path) -> None:
    from rules.d2_stubs import overriding_methods
    source = ("class Agent:\n    def update(self):\n        return 1\n    def act(self):\n        return 0\n"
              "class NoMin(Agent):\n    def update(self):\n        return 2\n    def extra(self):\n        return 3\n"
              "class Deeper(NoMin):\n    def act(self):\n        return 4\n"
              "class Net(nn.Module):\n    def forward(self, x):\n        return x\n"
              "class A(B):\n    def f(self):\n        return 1\nclass B(A):\n    def f(self):\n        return 2\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    # Deeper.act overrides Agent.act through NoMin; nn.Module is no repository class; a cycle of bases ends
    assert overriding_methods(index) == {("NoMin", "update"), ("Deeper", "act"), ("A", "f"), ("B", "f")}


def test_orientations_rewrite_products_by_learned_matrices_only() -> None:
    glossary = {"R": {"meaning": "spectral weights"}, "W": {"meaning": "pointwise linear weights"},
                "beta": {"meaning": "KL weight"}, "v": {"meaning": "layer input"}}
    base = d2_formula._claim(formula("act(ifft(R * fft(v)) + W @ v) + beta * kl"), glossary)
    assert base is not None
    rows, columns = (c.rhs for c in d2_formula._orientations(base, glossary))
    assert rows == formula("act(ifft(fft(v) @ R) + v @ W) + beta * kl")
    assert columns == formula("act(ifft(R @ fft(v)) + W @ v) + beta * kl")  # a scalar weight stays a factor
    scalar = d2_formula._claim(formula("beta * kl"), glossary)
    assert scalar is not None and d2_formula._orientations(scalar, glossary) == ()


def test_a_decided_candidate_shows_the_returns_of_the_helpers_it_inlined() -> None:
    # out = self._apply(y, scores): the gate's sum is written in _apply's returns, which the evidence names too
    from verifier.run import verify
    case = Path(__file__).parent / "fixtures" / "d2" / "gate_modes"
    report = verify(case / "repo", load_project_spec(case / "spec.yaml"), case.name)
    verdict = next(v for v in report.verdicts if v.sau.id == "gm-D2-001")
    assert [e.span_ref for e in verdict.evidence] == ["gate.py:53", "gate.py:48", "gate.py:49"]


def test_a_placeholder_loss_the_statement_names_is_filled_and_its_model_read_as_a_leaf() -> None:
    rhs = formula("mean(L(u, F(a, w)))")
    filled, models = d2_formula._loss_filled(rhs, frozenset(names.words("a squared-error loss")))
    assert filled == formula("mean((u - F) ** 2)") and models == ("F",)
    assert d2_formula._loss_filled(rhs, frozenset(names.words("a loss"))) == (None, ())  # no loss named
    # two losses named: which one the placeholder is stays open
    assert d2_formula._loss_filled(rhs, frozenset(names.words("squared error or absolute error"))) == (None, ())
    with pytest.raises(ValueError, match="named_losses.mse: expected a formula"):
        operations.parse_named_losses({"named_losses": {"mse": 2}})


def test_a_squared_error_for_an_absolute_one_is_a_named_difference() -> None:
    specific = operations.load().activations | frozenset(operations.load().operations)
    found = d2_formula.classify(formula("mean(abs(p - u))"), formula("mean((u - p) ** 2)"), specific)
    assert found is not None and found.kind == "function"
    assert d2_formula.classify(formula("mean((p - u) ** 2)"), formula("mean((u - p) ** 2)"), specific) is None


def test_a_mechanism_keyword_keeps_the_words_normalisation_drops() -> None:
    keys = d2_formula._mechanism_keys(["train_step", "lr"])
    assert d2_formula._contains(keys, "train_step") and not d2_formula._contains(keys, "evaluate_step")
    assert d2_formula._contains(keys, "lr_schedule")  # an alias still meets its keyword
    # a word dropped that leaves more than a count noun keeps the normalised keyword: value_gate names GateProjection
    assert d2_formula._contains(d2_formula._mechanism_keys(["value_gate"]), "GateProjection")


def test_a_form_repeated_across_candidates_is_compared_once(tmp_path: Path) -> None:
    # a helper inlined by sixty callers gives each the same large form at the formula's left-hand name; read once,
    # it leaves the budget to the function that computes the claim (each repeat charged again ran it out at 4,000)
    terms = " + ".join(f"p ** {k} * q / (r + {k})" for k in range(1, 25))
    lines = ["def helper(p, q, r, s):", f"    return {terms}"]
    for number in range(60):
        lines += [f"def caller{number}(p, q, r, s):", "    z = helper(p, q, r, s)", "    return z"]
    lines += ["def combine(p, q, r, s):", "    return p * q + r * s"]
    index = build_index(_repo(tmp_path, "\n".join(lines) + "\n"), names.normalise)
    sau = _sau(["z == p * q + r * s"], {s: [s] for s in "zpqrs"}, ["combine"])
    verdict = d2_formula.check(sau, index, budget=2_000)
    assert (verdict.status, verdict.score) == (Status.SETTLED, 1.0), verdict.reason
    assert verdict.reason == "z == p * q + r * s: equivalent to return p * q + r * s (model.py:184)"


@pytest.mark.parametrize("written, read", [
    ("sigmas[1:]", "getitem(sigmas, : + 1)"),  # the successor of each element
    ("x[2:-1]", "getitem(x, : + 2)"),
    ("sigmas[:-1]", "sigmas"),  # a slice from the start keeps each element where it is
    ("x[0:]", "x"),
    ("x[1::2]", "x"),  # a step picks elements, pairs none with a successor
    ("x[:, 1:]", "x"),  # another axis than the first: layout
    ("x[n:]", "x"),  # a start that is no literal
])
def test_a_slice_starting_ahead_reads_as_the_successor(written: str, read: str) -> None:
    assert str(code(written)) == read


@pytest.mark.parametrize("written, readings", [
    # paired with another read of its array: the successor reading, and the whole-array one beside it
    ("1 / (sigmas[1:] - sigmas[:-1])", ["1/(-sigmas + getitem(sigmas, : + 1))", "zoo"]),
    ("x[2:] * x[1:]", ["getitem(x, : + 1)*getitem(x, : + 2)", "x**2"]),
    # alone: only dropping a first element (a class token), read as the whole array as before
    ("gain * tokens[1:] + bias", ["bias + gain*tokens"]),
])
def test_a_successor_slice_is_read_both_ways_only_when_paired(written: str, readings: list[str]) -> None:
    assert [str(form) for form in d2_formula._slice_readings((code(written),))] == readings


def test_an_index_holding_a_slice_is_no_successor_slice() -> None:
    # the targets picked by a permuted slice (logits[x[:, perm]]) hold ":" inside their index, but start no element
    # ahead: the form is left as it is (read as logits alone, the cross-entropy's target choice was lost)
    form = code("logits[x[:, perm]]")
    assert d2_formula._slice_readings((form,)) == (form,)


@pytest.mark.parametrize("submodule, rest", [
    ("u_proj", "u"), ("W_u", "u"), ("lifting_layer", "lifting"), ("projection_layer_1", "projection"),
    ("projection_dense2", "projection"), ("fc2", ""), ("h1_gate", "gate_h1"),
])
def test_a_submodule_name_without_its_layer_words_numbered_or_not(submodule: str, rest: str) -> None:
    assert d2_formula._layer_rest(names.normalise(submodule)) == rest


@pytest.mark.parametrize("text, read", [
    ("torch.cat(head_outputs, dim=-1)", "head_outputs"),  # the parts of one collection joined: its values
    ("np.concatenate([x])", "x"),
    ("torch.cat((a, b), 1)", "concat(a, b)"),  # the parts written in the call: the formula's concat of them
    ("jnp.concatenate([k_cache, 2 * k], axis=-1)", "concat(k_cache, 2*k)"),
    ("F.embedding(idx, table)", "getitem(table, idx)"),  # the rows of the table the ids index
])
def test_joins_and_embedding_lookups_in_code(text: str, read: str) -> None:
    assert str(Translator(operations.load()).translate(cst.parse_expression(text))) == read


def test_a_claimed_concatenation_of_one_collection_is_its_values() -> None:
    table = operations.load()
    assert parse_formula("W_O @ concat(heads)", table) == sympy.Function("matmul")(*sympy.symbols("W_O heads"))
    assert str(parse_formula("concat(x_cls, z) + E_pos", table)) == "E_pos + concat(x_cls, z)"


def test_matrix_products_compare_however_they_are_grouped() -> None:
    table = operations.load()
    same = [("inv(I - Phi @ P) @ Phi @ r", "inv(I - Phi @ P) @ (Phi @ r)"), ("A @ B @ C @ D", "A @ (B @ (C @ D))"),
            ("(A @ B) @ (A @ B)", "A @ B @ A @ B")]
    for left, right in same:
        assert equivalence.same(parse_formula(left, table), parse_formula(right, table)) is True
    for left, right in [("A @ B", "B @ A"), ("A @ B @ C", "A @ C @ B"), ("(A @ B) @ C", "A @ B + C")]:
        assert equivalence.same(parse_formula(left, table), parse_formula(right, table)) is False


@pytest.mark.parametrize("text, read", [
    ("np.linalg.solve(A, b)", "matmul(inv(A), b)"),
    ("scipy.linalg.solve(A, b, assume_a='pos')", "matmul(inv(A), b)"),
    ("torch.inverse(C)", "inv(C)"),
])
def test_linear_solves_read_as_the_inverse_times_the_right_hand_side(text: str, read: str) -> None:
    assert str(Translator(operations.load()).translate(cst.parse_expression(text))) == read


def test_means_and_sums_spread_over_sums_and_number_factors_only() -> None:
    table = operations.load()
    same = [("mean(a + b)", "mean(a) + mean(b)"), ("sum(a - b)", "sum(a) - sum(b)"), ("mean(2 * a)", "2 * mean(a)"),
            ("mean(a - 0.5 * (b + c))", "mean(a) - 0.5 * mean(b) - 0.5 * mean(c)")]
    for left, right in same:
        assert equivalence.same(parse_formula(left, table), parse_formula(right, table)) is True
    # a symbol factor may be an array of weights, and a product or a power is no sum
    for left, right in [("mean(c * a)", "c * mean(a)"), ("mean(a * b)", "mean(a) * mean(b)"),
                        ("sum(a ** 2)", "sum(a) ** 2"), ("mean(exp(a + b))", "mean(exp(a)) + mean(exp(b))")]:
        assert equivalence.same(parse_formula(left, table), parse_formula(right, table)) is False


@pytest.mark.parametrize("text, read", [
    ("torch.arange(0, dim, 2).float() / dim", "2*arange/dim"),  # the paper's 2j / d: the index, stepped by 2
    ("torch.arange(T, device=x.device)", "arange"),
    ("np.arange(1, n + 1)", "arange + 1"),
    ("torch.arange(start=0, end=d, step=2)", "arange()"),  # given by keyword: left uninterpreted
])
def test_index_ranges_read_as_the_index_they_list(text: str, read: str) -> None:
    assert str(Translator(operations.load()).translate(cst.parse_expression(text))) == read


def test_rotate_half_reads_as_the_halves_swapped_and_one_negated() -> None:
    table = operations.load()
    code = Translator(table).translate
    claimed = parse_formula("q * c + rotate_half(q) * s", table)
    written = code(cst.parse_expression("q * c + torch.cat((-q[..., h:], q[..., :h]), dim=-1) * s"))
    assert equivalence.same(claimed, written) is True
    other_way = code(cst.parse_expression("q * c + torch.cat((q[..., h:], -q[..., :h]), dim=-1) * s"))
    assert equivalence.same(claimed, other_way) is False  # the rotation the other way round


@pytest.mark.parametrize("written, read", [
    ("torch.sqrt(1 - a)[t]", "sqrt(1 - a[t])"),  # a table computed once, read at the step
    ("torch.sqrt(a).gather(-1, t) * x", "sqrt(a[t]) * x"),  # gather reads the element at the index
    ("(a * b ** 2)[i, j + 1]", "a[i, j + 1] * b[i, j + 1] ** 2"),
    ("torch.cumsum(a, 0)[t]", None),  # a running sum mixes elements: its element is no sum of elements
    ("(a @ b)[t]", None),
    ("(a ** n)[t]", None),  # a power by a name may be a matrix power
    ("torch.sqrt(a)[1:]", "sqrt(a[1:])"),  # the elements from the next one on (a shifted read), likewise
])
def test_an_element_of_an_elementwise_expression_is_that_expression_of_the_elements(written: str,
                                                                                      read: str | None) -> None:
    pushed = d2_formula._index_pushed(code(written))
    assert pushed == (None if read is None else code(read))


@pytest.mark.parametrize("name, network", [
    ("eps_theta", True), ("f_phi", True), ("Q_psi", True), ("s_theta_star", False), ("theta", False),
    ("eps", False), ("alpha_theta_k", False), ("mlp_head", False),
])
def test_a_function_named_by_its_parameters_is_a_network_placeholder(name: str, network: bool) -> None:
    assert d2_formula._network(name, operations.load().network_parameters) is network
    if network:
        assert name in d2_formula._placeholders(formula(f"x - {name}(x, t)"))
        # the network applied alone says only which input it gets: no placeholder, lest any network call match
        assert name not in d2_formula._placeholders(formula(f"{name}(x, t)"))


def test_a_buffer_computed_in_init_is_a_class_constant_and_one_of_settings_a_leaf(tmp_path: Path) -> None:
    source = ("import torch\n\n\nclass Diffusion(torch.nn.Module):\n"
              "    def __init__(self, betas, s_init, s_scale):\n"
              "        super().__init__()\n"
              "        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)\n"
              "        keep = lambda name, val: self.register_buffer(name, val.to(torch.float32))\n"
              "        keep('sqrt_ab', torch.sqrt(alphas_cumprod))\n"
              "        self.register_buffer('ratio', torch.tensor(s_init / s_scale))\n\n"
              "    def forward(self, x, t):\n"
              "        return self.sqrt_ab[t] * x * self.ratio\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    found = {c.target: c for r in d2_formula.candidates(index) for c in r.expressions if r.name == "forward"}
    written = found["return"].expression
    # the table reads as written and as its value (a choice); the settings' ratio stays the leaf self.ratio
    assert code("choice(self.sqrt_ab, torch.sqrt(alphas_cumprod))[t] * x * self.ratio") == written


@pytest.mark.parametrize("written, leaf, shifted", [
    ("rewards[:, t]", "rewards[:, t]", False),  # step t over the whole batch: an element read
    ("values[:, t + 1]", "values[:, t + 1]", True),
    ("u[t - 1]", "u[t - 1]", True),
    ("u[-1]", "u[-1]", True),  # counted from the end: a step away, so xs[-2] - xs[-1] keeps its sign
])
def test_element_reads_over_whole_axes_are_leaves(written: str, leaf: str, shifted: bool) -> None:
    read = d2_formula._indexed_of(code(written))
    assert str(read) == leaf
    assert d2_formula._shifted(read) is shifted


@pytest.mark.parametrize("written", [
    "x[:, :k]",  # a whole array
    "x[..., 0]",  # one channel: a number beside a whole axis
    "logp[:, -1]",  # the last position only
])
def test_reads_beside_whole_axes_by_a_number_are_no_elements(written: str) -> None:
    assert d2_formula._indexed_of(code(written)) is None


def test_whole_axis_reads_beside_reads_laid_out_otherwise_stay_arrays() -> None:
    # the step on the second axis in one read and on the first in another: one of them is on the wrong axis
    read = d2_formula._indexed_of(code("rewards[:, t] + gamma * values[t]"))
    assert {str(s) for s in read.free_symbols} >= {"values[t]", "rewards"}
    assert "rewards[:, t]" not in {str(s) for s in read.free_symbols}


@pytest.mark.parametrize("name, part", [
    ("topk_indices", True), ("lstm_c_n", True), ("gru_output", True), ("encoder_output", True),
    ("lstm", False), ("topk", False), ("output", False), ("value_head", False), ("max_values", False),
])
def test_a_placeholder_is_never_filled_by_another_output_of_a_call(name: str, part: bool) -> None:
    # the parts the table names besides the one that reads as the call itself: an LSTM's output and cell state,
    # a top-k's indices; the final hidden state and the values are the call as written
    assert d2_formula._output_part(name) is part
    table = operations.load()
    claim = d2_formula._claim(formula("W @ g(x)"), {})
    known = name in table.operations or name in table.activations
    assert (name in d2_formula._spare(claim, frozenset({name, "matmul"}), table)) is (not part and not known)


@pytest.mark.parametrize("lhs, rhs, glossary, recursive", [
    ("V", "r + gamma * V_next", {}, True),  # V_next is V a step away
    ("V_option", "R + gamma * V_next", {}, True),
    ("V_opt", "R + gamma * W_next", {"V_opt": {"code_names": ["values"]}, "W_next": {"code_names": ["next_values"]}},
     True),  # a code name without its shift word is one of the left-hand side's
    ("G", "r + gamma * V_next", {"G": {"code_names": ["returns"]}, "V_next": {"code_names": ["next_values"]}},
     False),  # a return is not the value a step away
    ("V", "r + gamma * V", {}, False),  # no symbol named as shifted
    ("y", "W * x + b", {}, False),
])
def test_only_a_recursive_equation_is_read_as_its_residual(lhs: str, rhs: str, glossary: dict,
                                                           recursive: bool) -> None:
    glossary = {s: glossary.get(s, {"code_names": [s]}) for s in {lhs, *(str(x) for x in formula(rhs).free_symbols)}}
    base = d2_formula._claim(formula(rhs), glossary)
    residual = d2_formula._residual(sympy.Symbol(lhs), base, glossary, frozenset({"gae"}))
    assert bool(residual) is recursive
    if recursive:
        assert sympy.simplify(residual[0].rhs - (formula(rhs) - sympy.Symbol(lhs))) == 0
        # a statement about a regression onto the target names no method built on the residual
        assert d2_formula._residual(sympy.Symbol(lhs), base, glossary, frozenset({"regressed", "target"})) == ()


@pytest.mark.parametrize("written, read", [
    ("(values[mask != 0] * weights).sum()", "sum(values * weights)"),  # a selection inside a product
    ("values[mask.bool()][-1]", "values[-1]"),
    ("(logp[attn_mask] * adv).mean() * c", "mean(logp * adv) * c"),
    ("(x * mask).sum() / mask.sum()", "mean(x)"),  # the masked mean, as before
])
def test_the_entries_a_mask_selects_read_as_the_array_wherever_they_stand(written: str, read: str) -> None:
    assert d2_formula._unmasked(code(written)) == code(read)


@pytest.mark.parametrize("written", ["(values[values > 0] * weights).sum()", "values[idx] * weights"])
def test_a_selection_by_anything_but_a_mask_stays_a_read(written: str) -> None:
    assert d2_formula._unmasked(code(written)) is None


def test_a_comprehension_over_a_range_or_a_local_array_reads_as_its_element() -> None:
    env = {"raw": code("1.0 / (n - i)"), "masks": sympy.Symbol("self.masks")}
    translator = Translator(operations.load(), env=env)

    def read(text: str) -> sympy.Basic:
        return translator.translate(cst.parse_expression(text))
    assert read("[1.0 / (n - i) for i in range(n)]") == code("1.0 / (n - i)")  # the index stays its name
    assert read("sum(1.0 / (n - i) for i in range(n))") == code("sum(1.0 / (n - i))")
    assert read("[w / total for w in raw]") == code("1.0 / (n - i)") / sympy.Symbol("total")  # elementwise
    assert read("[k for k in range(3)]") == sympy.Symbol("k") and "k" not in translator.env  # the scope is restored
    for opaque in ("[f(x * m) for m in masks]",  # a local that is only another name (a setting's list)
                   "[f(x * m) for m in self.masks]", "[w for w in raw if w > 0]",
                   "[a * b for a in range(3) for b in range(2)]", "[w for w in xs]"):
        assert read(opaque).name.startswith("<"), opaque


@pytest.mark.parametrize("claimed, meaning, read", [
    ("sum((1 / n) * V)", "number of tokens", "mean(V)"),
    ("sum(V / n)", "segment length", "mean(V)"),
    ("sum(V / (n * H))", "number of positions", "mean(V / H)"),
    ("sum(V / n)", "normaliser", "sum(V / n)"),  # no count: 1 / n may differ term by term
])
def test_a_count_dividing_a_sums_terms_is_taken_out_of_the_sum(claimed: str, meaning: str, read: str) -> None:
    expression = formula(claimed)
    assert d2_formula._as_means(d2_formula._counts_out(expression, {"n": {"meaning": meaning}})) == formula(read)


def test_a_definition_live_sites_disagree_on_is_never_realised_by_chaining(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = [(text, *d2_formula._sides(formula(text), operations.load().operations))
              for text in ("V == sum(w * U)", "w == 1 / n", "w == r / sum(r)")]
    contradicted = d2_formula.FormulaResult(parsed[1][0], d2_formula.UNKNOWN, None, "live sites disagree",
                                            d2_formula._CONTRADICTED_CREDIT)
    results = [d2_formula.FormulaResult(parsed[0][0]), contradicted, d2_formula.FormulaResult(parsed[2][0])]
    found = []

    def compare(text, lhs, rhs, search, whole):  # every chained reading equivalent: only the guard can refuse
        found.append(str(rhs))
        return d2_formula.FormulaResult(text, d2_formula.EQUIVALENT, None, "", 1.0)
    monkeypatch.setattr(d2_formula, "_compare", compare)
    d2_formula._chain(parsed, results, None)
    assert results[1] is contradicted
    assert results[2].outcome == d2_formula.EQUIVALENT and "realised inside V == sum(w * U)" in results[2].difference
    assert results[0].outcome == d2_formula.EQUIVALENT  # undecided, realised with the other definition put in


def test_a_definition_put_in_is_never_read_as_a_quantity() -> None:
    # r == CrossAttn(x, c) put into h_new == GRU(r, h): a local named cross_attn would hold it whatever it reads
    chained = formula("GRU(CrossAttn(x, c), h)")
    assert d2_formula._quantity_calls(chained) == {formula("CrossAttn(x, c)")}
    assert d2_formula._quantity_calls(chained, frozenset({formula("CrossAttn(x, c)")})) == frozenset()


@pytest.mark.parametrize("meaning, samplers", [
    ("uniform draws", {"uniform", "rand", "rand_like", "random"}),
    ("standard Gaussian noise", {"randn", "randn_like", "normal", "standard_normal"}),
    ("uniform prior over the bins", set()),  # a law, but no draw
    ("mean of the normal law", set()),
    ("noise", set()),  # a draw of no named law
    ("softmax routing weights", set()),  # an activation, as before
])
def test_a_meaning_naming_draws_of_a_law_is_produced_by_its_samplers(meaning: str, samplers: set) -> None:
    produced = d2_formula._produced_by((sympy.Symbol("v"),), {"v": {"meaning": meaning}})
    found = produced.get(sympy.Symbol("v"))
    if samplers:
        assert isinstance(found, frozenset) and samplers <= found
    else:
        assert not isinstance(found, frozenset)


@pytest.mark.parametrize("body, status, score", [
    # the reveal probability written under the glossary's names inside a count, in a function named otherwise
    ("    k = n_masked * (alpha_s - alpha_t) / (1 - alpha_t)\n    return round(k)\n", Status.UNRESOLVED, 0.75),
    # the same names bound, but combined otherwise (no reveal probability computed): absent
    ("    k = n_masked * (alpha_s + alpha_t)\n    return round(k)\n", Status.SETTLED, 0.0),
])
def test_a_formula_computed_under_its_names_in_unnamed_code_is_never_settled_absent(
        tmp_path: Path, body: str, status: Status, score: float) -> None:
    source = ("def calculate_k(n_masked, alpha_s, alpha_t):\n" + body
              + "\n\nif __name__ == '__main__':\n    calculate_k(10, 0.5, 0.2)\n")
    index = build_index(_repo(tmp_path, source), names.normalise)
    sau = _sau(["p_unmask == (alpha_s - alpha_t) / (1 - alpha_t)"],
               {"p_unmask": ["p_unmask"], "alpha_s": ["alpha_s"], "alpha_t": ["alpha_t"]},
               ["reverse_step", "q_posterior"])
    verdict = d2_formula.check(sau, index)
    assert (verdict.status, verdict.score) == (status, score), verdict.reason
    if status == Status.UNRESOLVED:
        assert "live code computes (alpha_s - alpha_t)/(1 - alpha_t) under the glossary's names at model.py:2" \
            in verdict.reason
