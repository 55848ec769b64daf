"""Formulas as sympy expressions, built from a syntax tree and never evaluated.

A formula is written in Python expression syntax (``x / norm(x)``, ``softmax(q @ k / sqrt(d_k)) @ v``,
``-log(sigmoid(beta * (r_w - r_l)))``). It is parsed with ``libcst.parse_expression`` and translated node by node
with sympy constructors; sympy's ``sympify``/``parse_expr`` are never used, because they run their input through
``eval`` (sympy issue #10805) and formulas come from spec files and users' ``sau.json``.

Translation: numbers become exact ``Rational``s; names and dotted names become ``Symbol``s (``x.T`` becomes the
symbol ``x.T``); ``+ - * / ** %`` and unary minus map to sympy arithmetic; ``@`` to an uninterpreted ``matmul``;
comparisons to relationals; ``a[i]`` to an uninterpreted ``getitem``; calls of ``exp log sqrt abs tanh sin cos``
to sympy's functions, ``sigmoid`` to ``1/(1+exp(-x))``, and every other call (``norm``, ``softmax``, ``mean``) to an
uninterpreted function of its positional arguments, so that structure still compares. Keyword arguments are
dropped. Size and depth are bounded, so a pathological formula fails fast instead of hanging.
"""

from __future__ import annotations

import math

import libcst as cst
import sympy

from extractors.values import dotted_name

_MAX_DEPTH = 60
_MAX_NODES = 2000
_MAX_EXPONENT = 64
_MAX_DIGITS = 1000

_KNOWN = {
    "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt, "abs": sympy.Abs, "tanh": sympy.tanh,
    "sin": sympy.sin, "cos": sympy.cos, "sigmoid": lambda x: 1 / (1 + sympy.exp(-x)),
}
_COMPARE = {cst.LessThan: sympy.Lt, cst.LessThanEqual: sympy.Le, cst.GreaterThan: sympy.Gt,
            cst.GreaterThanEqual: sympy.Ge, cst.Equal: sympy.Eq, cst.NotEqual: sympy.Ne}


class FormulaError(ValueError):
    """A formula that cannot be parsed or translated; the message says what and where."""


def parse_formula(text: str) -> sympy.Basic:
    """Translate formula text to a sympy expression. Raises ``FormulaError`` (never anything else on bad input)."""
    try:
        node = cst.parse_expression(text.strip())
    except Exception as error:  # libcst raises ParserSyntaxError and, on odd input, others
        raise FormulaError(f"not a Python-syntax expression: {str(error).splitlines()[0]}") from None
    budget = [_MAX_NODES]
    try:
        return _translate(node, 0, budget)
    except RecursionError:
        raise FormulaError("formula nested too deeply") from None


def symbol_names(expression: sympy.Basic) -> set[str]:
    """Root names of the free symbols of a translated formula (``k`` for ``k.T``; the slice ``:`` left out)."""
    return {s.name.split(".")[0] for s in expression.free_symbols if isinstance(s, sympy.Symbol) and s.name != ":"}


def _translate(node: cst.BaseExpression, depth: int, budget: list[int]) -> sympy.Basic:
    budget[0] -= 1
    if depth > _MAX_DEPTH or budget[0] < 0:
        raise FormulaError("formula too large or too deeply nested")
    down = depth + 1
    if isinstance(node, (cst.Integer, cst.Float)):
        return sympy.Rational(node.value.replace("_", ""))
    if isinstance(node, (cst.Name, cst.Attribute)):
        name = dotted_name(node)
        if name is None:
            raise FormulaError(f"unsupported name: {type(node).__name__}")
        return sympy.Symbol(name)
    if isinstance(node, cst.UnaryOperation):
        operand = _translate(node.expression, down, budget)
        if isinstance(node.operator, cst.Minus):
            return -operand
        if isinstance(node.operator, cst.Plus):
            return operand
        raise FormulaError("unsupported unary operator")
    if isinstance(node, cst.BinaryOperation):
        left = _translate(node.left, down, budget)
        right = _translate(node.right, down, budget)
        return _binary(node.operator, left, right)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        relation = _COMPARE.get(type(target.operator))
        if relation is None:
            raise FormulaError("unsupported comparison")
        return relation(_translate(node.left, down, budget), _translate(target.comparator, down, budget),
                        evaluate=False)
    if isinstance(node, cst.Call):
        name = dotted_name(node.func)
        if name is None:
            raise FormulaError("only named functions can be called")
        args = [_translate(a.value, down, budget) for a in node.args if a.keyword is None and not a.star]
        last = name.rsplit(".", 1)[-1]
        if last in _KNOWN and len(args) == 1:
            return _KNOWN[last](args[0])
        return sympy.Function(last)(*args) if args else sympy.Symbol(f"{last}()")
    if isinstance(node, cst.Subscript):
        base = _translate(node.value, down, budget)
        indices = []
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                indices.append(_translate(element.slice.value, down, budget))
            else:
                indices.append(sympy.Symbol(":"))
        return sympy.Function("getitem")(base, *indices)
    raise FormulaError(f"unsupported syntax: {type(node).__name__}")


def _binary(operator: cst.BaseBinaryOp, left: sympy.Basic, right: sympy.Basic) -> sympy.Basic:
    if isinstance(operator, cst.Add):
        return left + right
    if isinstance(operator, cst.Subtract):
        return left - right
    if isinstance(operator, cst.Multiply):
        return left * right
    if isinstance(operator, cst.Divide):
        return left / right
    if isinstance(operator, cst.Modulo):
        return sympy.Mod(left, right)
    if isinstance(operator, cst.Power):
        if right.is_number and abs(right) > _MAX_EXPONENT:
            raise FormulaError("exponent too large")
        if left.is_number and right.is_number and left != 0 \
                and float(abs(right)) * math.log10(float(abs(left)) + 1) > _MAX_DIGITS:
            raise FormulaError("power too large")  # (10**64)**64**... must not hang the run
        return sympy.Pow(left, right)
    if isinstance(operator, cst.MatrixMultiply):
        return sympy.Function("matmul")(left, right)
    raise FormulaError(f"unsupported operator: {type(operator).__name__}")
