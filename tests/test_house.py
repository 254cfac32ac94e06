"""The house rules of the code itself: a thin CLI over command bodies in the library, a module
docstring on every file saying what it owns, and no import circle among simulator's modules."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from simulator.cli import app

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "simulator" / "cli.py"


def _modules(package: str) -> dict[str, Path]:
    """Dotted module name → file, for every .py file under ``package``."""
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def test_the_cli_stays_thin():
    lines = CLI.read_text(encoding="utf-8").count("\n")
    assert lines < 300, f"simulator/cli.py has {lines} lines: move logic to simulator/commands/"


def test_importing_the_cli_loads_no_simulation_code():
    """`sim --help` must stay quick: numba, numpy, pandas and the engine load only when a command
    runs."""
    code = (
        "import sys, simulator.cli; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('simulator', 'numba', 'numpy', 'pandas', 'matplotlib', 'scipy', 'pydantic', 'yaml'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    allowed = {
        "simulator",
        "simulator.cli",
        "simulator.cli_options",
        "simulator.interrupts",
        "simulator.limits",
    }
    assert set(loaded) <= allowed, sorted(set(loaded) - allowed)


def _bodies() -> dict[str, tuple[str, str]]:
    """Command function name → (module, body) of its ``_call("module", "body", locals())``."""
    bodies = {}
    for node in ast.parse(CLI.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "_call"
            ):
                module, body = (a.value for a in call.args[:2] if isinstance(a, ast.Constant))
                bodies[node.name] = (module, body)
    return bodies


def test_every_command_hands_its_options_to_a_body_in_simulator_commands_by_name():
    commands = {c.callback.__name__: c.callback for c in app.registered_commands if c.callback}
    bodies = _bodies()
    assert set(bodies) == set(commands), "every command calls _call(...) and nothing else does"
    for name, (module, body) in bodies.items():
        fn = getattr(importlib.import_module(f"simulator.commands.{module}"), body)
        wanted = set(inspect.signature(fn).parameters)
        given = set(inspect.signature(commands[name]).parameters) | {"out", "err"}
        assert given == wanted, f"{name}: options {sorted(given ^ wanted)} do not match the body"


@pytest.mark.parametrize(
    "path",
    [p for package in ("simulator", "bench", "mutants") for p in _modules(package).values()],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_module_has_a_docstring_saying_what_it_owns(path):
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc, f"{path.relative_to(ROOT)} has no module docstring: say what the file owns"
    assert len(doc.split()) >= 4, f"{path.relative_to(ROOT)}: {doc!r} says too little"


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The simulator modules that ``module`` imports anywhere in its file (in functions too,
    except under ``if TYPE_CHECKING:``), each resolved to the longest known module name."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def known_prefix(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []  # typing-only imports are not run
    found: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {known_prefix(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found |= {known_prefix(f"{base}.{a.name}") for a in node.names}
    return {m for m in found if m and m != module}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
    return circles


def test_circles_are_found_by_the_walk():
    """The check below can fail: a planted circle a → b → c → a is found, a tree is not."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle_among_simulator_modules():
    """Layers import downwards only, also inside functions (a lazy import that points back up is
    a circle waiting for someone to move it to the top of the file)."""
    modules = _modules("simulator")
    known = set(modules)
    graph = {m: _imports(m, p, known) for m, p in modules.items()}
    assert _circles(graph) == []
