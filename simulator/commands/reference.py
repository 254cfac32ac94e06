"""Bodies of ``sim list`` (the procedures, their parameters and metrics) and ``sim schema`` (the
JSON Schema of scenario files)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from simulator.commands.common import EXIT_INVALID, command


@command
def list_procedures(name: str | None = None, *, out: Any, err: Any) -> int:
    """Describe every procedure, or the one called ``name`` (exit code 2 if there is none)."""
    from simulator import procedures
    from simulator.describe import describe

    if name is not None and (name.endswith(".py") or ".py:" in name):
        return _list_file(name, out, err)
    from simulator.yaml_loader import ScenarioError

    code = 0
    for n in procedures.names() if name is None else [name]:
        try:
            proc = procedures.get(n)
        except KeyError as e:  # unknown, or an installed package's that cannot be loaded
            err.print(f"sim list: {e.args[0]}", markup=False, highlight=False)
            code = EXIT_INVALID
            continue
        except ScenarioError as e:  # an installed package's one-trial function, wrong
            for problem in e.problems:
                err.print(str(problem), markup=False, highlight=False)
            code = EXIT_INVALID
            continue
        for renderable in describe(proc):
            out.print(renderable)
    return code


def _list_file(name: str, out: Any, err: Any) -> int:
    """``sim list FILE.py`` (every trial function and game class in it) or ``sim list
    FILE.py:NAME``: read from the file, nothing compiled (a run compiles)."""
    from simulator.commands.common import print_problems
    from simulator.describe import describe
    from simulator.userfiles.listing import declared_procedure, file_procedures
    from simulator.userfiles.loading import UserFileError

    try:
        refs = [name] if not name.endswith(".py") else file_procedures(name)
        found = [declared_procedure(ref) for ref in refs]
        shown = [list(describe(proc)) for proc in found]  # a metric's kind may be refused
    except UserFileError as e:
        print_problems(err, e.problems)
        return EXIT_INVALID
    if not found:
        err.print(
            f"sim list: {name} has no one-trial function (def NAME(dice, ...): ...) and no game "
            "class (class NAME: ... def start_game(s, params, rng): ...)",
            highlight=False,
        )
        return EXIT_INVALID
    for renderables in shown:
        for renderable in renderables:
            out.print(renderable)
    return 0


@command
def schema(output: Path | None = None, *, out: Any, err: Any) -> int:
    """Print the JSON Schema of scenario files on stdout, or write it whole to ``output``."""
    from simulator.output import check_file_target, safe_write
    from simulator.scenario import json_schema

    if output is not None:
        check_file_target(output, "--out")
    text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        safe_write(output, lambda f: f.write(text))
    return 0
