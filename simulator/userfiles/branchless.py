"""``a and b``, ``a or b`` of a designer's comparisons made ``a & b``, ``a | b``: no branch.

Python's ``and`` and ``or`` stop at the first operand that decides, so Numba compiles them as
branches; on random dice their direction is a coin toss, and a mispredicted branch costs about 15
cycles. The field battle file's four of them (``wins = ah > dh or (ah == dh and ties)``, ...)
were a quarter of its trial (24.2 ns a trial, 17.8 written with ``|`` and ``&``; docs/speed.md).

A ``BoolOp`` is rewritten only when every operand is surely a bool and evaluating it can neither
raise nor change anything, so that evaluating them all gives the same value as stopping early:

- a comparison (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``) of pure expressions: names,
  numbers, a name's attribute, ``+ - * & | ^`` and unary ``- + not`` of those (no call, no
  subscript, no division);
- ``not`` of a pure expression, ``True``, ``False``;
- a name that is only ever a bool: a parameter annotated ``bool`` and never assigned, or a local
  name every assignment of which (plain ``name = ...``) is such a bool expression;
- another such ``and``/``or``.

Everything else keeps Python's short-circuit: ``i < n and a[i] > 0``, ``x or default``,
``dice.d(6) > 3 or dice.d(6) > 3`` (the second die is rolled only when the first fails).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def _pure(node: ast.AST) -> bool:
    """Evaluating ``node`` can neither raise nor change anything."""
    if isinstance(node, ast.Name | ast.Constant):
        return not isinstance(node, ast.Constant) or isinstance(node.value, int | float | bool)
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _ARITHMETIC) and _pure(node.left) and _pure(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub | ast.UAdd | ast.Not) and _pure(node.operand)
    if isinstance(node, ast.Compare):
        return _comparison(node)
    if isinstance(node, ast.BoolOp):
        return all(_pure(v) for v in node.values)
    return False


def _comparison(node: ast.Compare) -> bool:
    return all(isinstance(op, _COMPARE) for op in node.ops) and all(
        _pure(v) for v in (node.left, *node.comparators)
    )


def _surely_bool(node: ast.AST, bools: set[str]) -> bool:
    if isinstance(node, ast.Compare):
        return _comparison(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _pure(node.operand)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return node.id in bools
    if isinstance(node, ast.BoolOp):
        return all(_surely_bool(v, bools) for v in node.values)
    return False


def _bool_names(fn: Callable[..., Any], node: ast.FunctionDef) -> set[str]:
    """Names that only ever hold a bool in ``node`` (the function ``fn``'s tree)."""
    try:
        parameters = dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        parameters = {}
    values: dict[str, list[ast.expr]] = {}  # a local's plainly assigned values
    stores: dict[str, int] = {}  # every store of a name (assignment, loop, augmented, del)
    for child in ast.walk(node):
        if isinstance(child, ast.Assign) and len(child.targets) == 1:
            target = child.targets[0]
            if isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(child.value)
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            stores[child.id] = stores.get(child.id, 0) + 1
    nested = {
        a.arg
        for f in ast.walk(node)
        if isinstance(f, ast.FunctionDef | ast.Lambda) and f is not node
        for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)
    }
    bools = {
        name
        for name, p in parameters.items()
        if p.annotation in (bool, "bool") and name not in stores and name not in nested
    }
    candidates = {
        name
        for name, assigned in values.items()
        if name not in parameters and name not in nested and len(assigned) == stores.get(name)
    }
    while True:  # the largest set of locals whose every value is a bool, given the others
        known = bools | candidates
        kept = {n for n in candidates if all(_surely_bool(v, known) for v in values[n])}
        if kept == candidates:
            return known
        candidates = kept


class Branchless(ast.NodeTransformer):
    """Rewrites the eligible ``and``/``or`` of a function's tree (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any], node: ast.FunctionDef) -> None:
        self.bools = _bool_names(fn, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        eligible = _surely_bool(node, self.bools)  # before its operands are rewritten
        self.generic_visit(node)
        if not eligible:
            return node
        op: ast.operator = ast.BitOr() if isinstance(node.op, ast.Or) else ast.BitAnd()
        out = node.values[0]
        for value in node.values[1:]:
            out = ast.copy_location(ast.BinOp(out, op, value), node)
        return out
