"""The house rules of the code itself: a thin CLI over command bodies in the library, a module
docstring on every file saying what it owns, and no import circle among simulator's modules."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import grimp
import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components

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
        "simulator.commands",
        "simulator.commands.common",
        "simulator.interrupts",
        "simulator.limits",
    }
    assert set(loaded) <= allowed, sorted(set(loaded) - allowed)


#: What the light commands must not load: 0.5 s of a start-up that should cost 0.1 s.
HEAVY = ("pandas", "matplotlib", "scipy", "numba", "statsmodels", "llvmlite")

_LIGHT_RUN = """
import contextlib, io, sys
from simulator.cli import app
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        app(sys.argv[1:])
    except SystemExit as e:
        code = e.code
print(code)
print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["list"],
        ["list", "recruitment.loyalty"],
        ["schema"],
        ["validate", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("scenarios/*/*.yaml"))],
    ],
    ids=lambda argv: argv[0],
)
def test_the_light_commands_import_no_heavy_module(argv):
    """`sim --help`, `sim list`, `sim schema` and `sim validate` (of every shipped scenario, the
    whole games' and the tune: sections' included) load neither Numba nor pandas, matplotlib or
    scipy: the procedures' parameters are read without building a kernel (simulator.jit)."""
    code = _LIGHT_RUN.format(heavy=set(HEAVY))
    run = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=ROOT
    )
    exit_code, _, loaded = run.stdout.partition("\n")
    assert exit_code.strip() in ("0", "None"), run.stdout
    assert loaded.split() == [], f"sim {argv[0]} imported {loaded.split()}"


def test_the_light_command_check_can_fail(tmp_path):
    """The check above sees a heavy import: `sim run` loads Numba."""
    code = _LIGHT_RUN.format(heavy=set(HEAVY))
    argv = ["run", "scenarios/his/field_battle.yaml", "--trials", "1000", "--quiet"]
    argv += ["--out", str(tmp_path / "out")]
    run = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert "numba" in run.stdout.split("\n", 1)[1].split()


#: What the table of a run without variants must not wait for: the report files' modules.
FILES_ONLY = ("pandas", "matplotlib", "statsmodels", "pyarrow")

_TABLE_FIRST = """
import sys
import simulator.report.terminal as terminal
shown = terminal.print_report
def loaded():
    return ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))
def print_report(*args, **kwargs):
    shown(*args, **kwargs)
    print('at the table:', loaded(), file=sys.stderr)
terminal.print_report = print_report
from simulator.cli import app
try:
    app(sys.argv[1:])
except SystemExit as e:
    print('exit', e.code, file=sys.stderr)
print('at the end:', loaded(), file=sys.stderr)
"""


def test_a_run_without_variants_prints_its_table_before_the_files_modules(tmp_path):
    """A warm `sim run` of the field battle shows its table before pandas and matplotlib are
    imported (0.4 and 0.5 CPU-s): the terminal reads the estimates' rows; the report files, which
    need both, are written after the table, and with the same tables (the end's line checks that
    they were imported, so the check can fail)."""
    code = _TABLE_FIRST.format(heavy=set(FILES_ONLY))
    argv = ["run", "scenarios/his/field_battle.yaml", "--trials", "1000"]
    argv += ["--out", str(tmp_path / "out")]
    run = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=ROOT
    )
    lines = dict(line.split(":", 1) for line in run.stderr.splitlines() if ":" in line)
    assert "exit 0" in run.stderr, run.stderr
    assert lines["at the table"].split() == [], run.stderr
    assert {"pandas", "matplotlib"} <= set(lines["at the end"].split()), run.stderr
    assert (tmp_path / "out" / "distributions.png").exists()


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


def _graph() -> dict[str, set[str]]:
    """Module → the simulator modules it imports anywhere in its file, in functions too (grimp
    parses them; imports under ``if TYPE_CHECKING:`` are not run and do not count)."""
    graph = grimp.build_graph("simulator", exclude_type_checking_imports=True, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import circles: the strongly connected components of more than one module."""
    names = sorted(graph)
    at = {name: i for i, name in enumerate(names)}
    edges = [(at[a], at[b]) for a in names for b in graph[a]]
    rows, cols = (list(x) for x in zip(*edges, strict=True)) if edges else ([], [])
    matrix = csr_array((np.ones(len(edges)), (rows, cols)), shape=(len(names), len(names)))
    _, labels = connected_components(matrix, directed=True, connection="strong")
    groups: dict[int, list[str]] = {}
    for name, label in zip(names, labels, strict=True):
        groups.setdefault(int(label), []).append(name)
    return sorted(group for group in groups.values() if len(group) > 1)


def test_circles_are_found():
    """The check below can fail: a planted circle a → b → c → a is found, a tree is not, and
    grimp's graph holds imports made inside functions (report.files → report.html)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    graph = _graph()
    assert "simulator.cli_options" in graph["simulator.cli"]
    assert "simulator.report.html" in graph["simulator.report.files"]


def test_no_import_circle_among_simulator_modules():
    """Layers import downwards only, also inside functions (a lazy import that points back up is
    a circle waiting for someone to move it to the top of the file)."""
    assert _circles(_graph()) == []


#: The report package's modules in import order: each imports only modules before it (and
#: nothing outside the package that imports the package back). A result walks down this list.
REPORT_ORDER = (
    "summary",
    "format",
    "fairness",
    "ties",
    "grounds",
    "verdict",
    "robustness",
    "model",
    "drawing",
    "sweep",
    "tournament",
    "figures",
    "terminal",
    "html",
    "markdown",
    "files",
)


def test_the_report_package_imports_one_way_down():
    graph = _graph()
    package = {m for m in graph if m.startswith("simulator.report.")}
    assert package == {f"simulator.report.{name}" for name in REPORT_ORDER}, sorted(package)
    for i, name in enumerate(REPORT_ORDER):
        module = f"simulator.report.{name}"
        later = {f"simulator.report.{n}" for n in REPORT_ORDER[i + 1 :]}
        assert not graph[module] & later, (module, sorted(graph[module] & later))
    # Nothing below the reports reaches back up into them.
    for below in ("simulator.runner", "simulator.engine", "simulator.stats", "simulator.scenario"):
        assert not {m for m in graph[below] if m.startswith("simulator.report")}, below
