"""A designer's function made ready for Numba, keeping its file and lines.

The function's own source is parsed again (``ast``) and compiled under the designer's file name
with its line numbers, so that Numba's errors, and Python's, point at the designer's lines:

- ``dice.d(6)`` and the other methods of :data:`simulator.userfiles.dice.API` become calls of the
  compiled dice functions on the trial's state array (an unknown method is refused at its line);
- in a procedure, ``return {"name": value, ...}`` becomes ``return (value, ...)``: every
  ``return`` gives the same names, which are the metrics, in the order of the first one;
- a plain function of the same file that it calls is compiled the same way (helpers need no
  decorator);
- ``and``/``or`` of pure comparisons become ``&``/``|``, without a branch
  (:mod:`simulator.userfiles.branchless`).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulator.userfiles.branchless import Branchless
from simulator.userfiles.dice import API, ARITY, COMPILED
from simulator.userfiles.imports import imports_digest
from simulator.userfiles.loading import Ref
from simulator.yaml_loader import Problem

DICE = "dice"
_PREFIX = "_sim_dice_"
#: ``sim``'s code that a compiled designer's function carries: a digest of it ends the compiled
#: function's name, so Numba's disk cache of an older ``sim`` is never read.
_CARRIED = ("rng.py", "accumulate.py", "tally.py", "jit.py", "stopflag.py", "userfiles/dice.py",
            "userfiles/rewrite.py", "userfiles/branchless.py", "userfiles/procedure.py",
            "userfiles/kernel.py", "userfiles/jitting.py")  # fmt: skip
_SIMULATOR = Path(__file__).resolve().parent.parent
SOURCES = hashlib.sha256(b"".join((_SIMULATOR / f).read_bytes() for f in _CARRIED)).hexdigest()[:10]
#: Metrics one trial function may return: each is compiled into its kernel, and the compile grows
#: faster than the count (256 metrics about 40 s; 1,000 twelve minutes; 3,000 exhausted Python's
#: recursion limit), so more are refused before anything is compiled.
MAX_METRICS = 256
#: What ends a compiled designer's function's name (``opposed_roll__sim1a2b3c4d5e``).
SUFFIX = f"__sim{SOURCES}"


@dataclass(frozen=True)
class Rewritten:
    """A designer's function rewritten: the new function, its metric names (a procedure's
    ``return {...}`` keys, in order; empty otherwise) and the line of each return."""

    function: Callable[..., Any]
    metric_names: tuple[str, ...]
    metric_lines: dict[str, tuple[int, int]]


class _Problems(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems)
        self.problems = problems


def _source_tree(fn: Callable[..., Any], ref: Ref) -> ast.FunctionDef:
    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise _Problems([Problem(ref.shown, first, 1, fn.__name__, "must be a plain `def`")])
    node.decorator_list = []
    return node


class _Dice(ast.NodeTransformer):
    def __init__(self, ref: Ref, name: str) -> None:
        self.ref, self.name = ref, name
        self.problems: list[Problem] = []
        self.sites = 0

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == DICE:
            if f.attr not in API:
                self._problem(node, f"dice has no method {f.attr!r}; the dice API: " + _api())
                return node
            if node.keywords or len(node.args) != ARITY[f.attr]:
                self._problem(node, f"call it as dice.{API[f.attr]}")
                return node
            args = [f.value, *node.args]
            if f.attr == "count":  # each call site keeps its own table of thresholds
                args.insert(1, ast.Constant(self.sites))
                self.sites += 1
            call = ast.Call(ast.Name(_PREFIX + f.attr, ast.Load()), args, [])
            return ast.copy_location(call, node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        self.generic_visit(node)
        v = node.value
        own_random = isinstance(v, ast.Name) and v.id == "random"
        numpy_random = node.attr == "random" and isinstance(v, ast.Name) and v.id in ("np", "numpy")
        if own_random or numpy_random:
            self._problem(
                node,
                "draw from dice, not random or numpy.random (Numba seeds those per thread: "
                "results would change with the thread count); the dice API: " + _api(),
            )
        return node

    def _problem(self, node: ast.AST, message: str) -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
        self.problems.append(Problem(self.ref.shown, line, col, self.name, message))


def _api() -> str:
    return "; ".join(f"dice.{v}" for v in API.values())


class _Returns(ast.NodeTransformer):
    """``return {"a": x, "b": y}`` -> ``return (x, y)``, the names checked to agree."""

    def __init__(self, ref: Ref, name: str) -> None:
        self.ref, self.name = ref, name
        self.names: tuple[str, ...] | None = None
        self.lines: dict[str, tuple[int, int]] = {}
        self.problems: list[Problem] = []
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        self.depth += 1
        if self.depth > 1:  # a function inside the function: its returns are its own
            self.depth -= 1
            return node
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Return(self, node: ast.Return) -> Any:
        at = (node.lineno, node.col_offset + 1)
        example = 'return {"attacker_wins": attack > defence, "margin": attack - defence}'
        value = node.value
        if not isinstance(value, ast.Dict) or not all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys
        ):
            self.problems.append(
                Problem(
                    self.ref.shown,
                    *at,
                    self.name,
                    "return the metrics as a dict written out with names, e.g. " + example,
                )
            )
            return node
        names = tuple(k.value for k in value.keys)  # type: ignore[union-attr]
        if not names:
            self.problems.append(Problem(self.ref.shown, *at, self.name, "returns no metric"))
            return node
        if len(names) > MAX_METRICS:
            message = (
                f"returns {len(names):,} metrics; a trial returns at most {MAX_METRICS} (each is "
                "compiled into the run, and the compile grows faster than their count): split "
                "the metrics over several procedures, or return fewer"
            )
            self.problems.append(Problem(self.ref.shown, *at, self.name, message))
            return node
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            self.problems.append(
                Problem(self.ref.shown, *at, self.name, f"metric {twice[0]!r} returned twice")
            )
            return node
        if self.names is None:
            self.names = names
            for k, v in zip(value.keys, value.values, strict=True):
                self.lines[k.value] = (v.lineno, v.col_offset + 1)  # type: ignore[union-attr]
        elif set(names) != set(self.names):
            first = ", ".join(self.names)
            self.problems.append(
                Problem(
                    self.ref.shown,
                    *at,
                    self.name,
                    f"returns the metrics {', '.join(names)}, but the first return gives "
                    f"{first}: every return must give the same metrics",
                )
            )
            return node
        by_name = dict(zip(names, value.values, strict=True))
        ordered = ast.Tuple([by_name[n] for n in self.names], ast.Load())
        return ast.copy_location(ast.Return(ast.copy_location(ordered, value)), node)


def rewrite(
    fn: Callable[..., Any],
    ref: Ref,
    procedure: bool,
    jit: Callable[[Callable[..., Any]], Any],
    module_globals: dict[str, Any] | None = None,
    seen: set[str] | None = None,
) -> Rewritten:
    """``fn`` rewritten for Numba (see the module docstring), compiled under its own file.

    ``jit`` compiles a helper function of the same file that ``fn`` calls (it gets the same
    rewrite, without the returns).

    Raises:
        _Problems: a problem located in the designer's file.
    """
    node = _source_tree(fn, ref)
    problems: list[Problem] = []
    dice = _Dice(ref, fn.__name__)
    node = dice.visit(node)
    node = Branchless(fn, node).visit(node)  # `and`/`or` of pure comparisons: no branch
    problems += dice.problems
    names: tuple[str, ...] = ()
    lines: dict[str, tuple[int, int]] = {}
    if procedure:
        returns = _Returns(ref, fn.__name__)
        node = returns.visit(node)
        problems += returns.problems
        if returns.names is None and not returns.problems:
            problems.append(
                Problem(
                    ref.shown,
                    fn.__code__.co_firstlineno,
                    1,
                    fn.__name__,
                    'never returns: end the trial with return {"metric": value, ...}',
                )
            )
        names, lines = returns.names or (), returns.lines
    if problems:
        raise _Problems(problems)
    module = ast.fix_missing_locations(ast.Module([node], type_ignores=[]))
    code = compile(module, str(ref.path), "exec")
    scope = dict(module_globals if module_globals is not None else fn.__globals__)
    scope.update({_PREFIX + k: v for k, v in COMPILED.items()})
    seen = {fn.__name__} if seen is None else seen | {fn.__name__}
    for used in _called_names(node):
        helper = scope.get(used)
        if inspect.isfunction(helper) and helper.__module__ == fn.__module__ and used not in seen:
            scope[used] = jit(rewrite(helper, ref, False, jit, scope, seen).function)
    exec(code, scope)
    compiled = scope[fn.__name__]
    compiled.__qualname__ = fn.__name__ + SUFFIX + imports_digest(fn.__module__)
    return Rewritten(compiled, names, lines)


def _called_names(node: ast.AST) -> list[str]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    return sorted({c.func.id for c in calls if isinstance(c.func, ast.Name)})
