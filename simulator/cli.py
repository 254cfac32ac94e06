"""The ``sim`` command: parses options, calls the library, prints. No simulation logic here.

Exit codes: 0 ok · 1 runtime failure · 2 invalid input · 3 regression found · 130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from simulator import cli_options as opt
from simulator import interrupts
from simulator.commands.common import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_RUNTIME
from simulator.limits import InvalidInput

app = typer.Typer(
    name="sim",
    help="Monte-Carlo balance simulator for board-game rules: run YAML scenarios, get odds with "
    "confidence intervals, compare rule variants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Piped output (files, CI logs) gets wide tables rather than names cut to fit 80 columns.
out = Console(width=None if sys.stdout and sys.stdout.isatty() else 140)
err = Console(stderr=True, width=None if sys.stderr and sys.stderr.isatty() else 140)


def _call(module: str, body: str, options: dict[str, Any]) -> None:
    """Run the command body ``simulator.commands.<module>.<body>`` on the parsed options (each
    command passes ``locals()`` as its first statement: exactly its parameters, which
    tests/test_house.py checks against the body's); its return value is the exit code. Imported
    only here, so `sim --help` loads no simulation code. A kernel compiled meanwhile is
    announced on stderr (simulator.compiling; `sim warm` shows its own progress instead)."""
    from simulator import compiling

    command = getattr(importlib.import_module(f"simulator.commands.{module}"), body)
    if module == "warm":
        code = command(**options, out=out, err=err)
    else:
        with compiling.notices(err, spinner=not options.get("quiet")):
            code = command(**options, out=out, err=err)
    if code:
        raise typer.Exit(code)


@app.command()
def run(
    scenario: opt.ScenarioPath,
    trials: opt.Trials = None,
    seed: opt.Seed = None,
    threads: opt.Threads = None,
    chunk_size: opt.ChunkSize = None,
    independent: opt.Independent = False,
    precision: opt.Precision = None,
    max_trials: opt.MaxTrials = None,
    as_json: opt.AsJson = False,
    out_dir: opt.RunOutDir = None,
    quiet: opt.Quiet = False,
    force: opt.Force = False,
    backend: opt.Backend = None,
    workers: opt.Workers = None,
    scheduler: opt.Scheduler = None,
    connect_timeout: opt.ConnectTimeout = 30.0,
    detail: opt.Detail = False,
    metrics: opt.Metrics = None,
    markdown: opt.SummaryMarkdown = None,
    robustness: opt.RobustnessOption = None,
    robustness_seconds: opt.RobustnessSeconds = None,
) -> None:
    """Run a scenario: print odds with 95% intervals and write reports (CSV, JSON, PNG, HTML)."""
    _call("run", "run", locals())


@app.command()
def compare(
    scenarios: opt.ComparedFiles,
    trials: opt.CompareTrials = None,
    seed: opt.CompareSeed = None,
    threads: opt.Threads = None,
    chunk_size: opt.CompareChunkSize = None,
    as_json: opt.AsJson = False,
    out_dir: opt.CompareOutDir = None,
    quiet: opt.Quiet = False,
    detail: opt.Detail = False,
    metrics: opt.Metrics = None,
    markdown: opt.SummaryMarkdown = None,
    explain: opt.Explain = False,
) -> None:
    """Run scenario files of one procedure as variants of one run on shared random streams."""
    _call("compare", "compare", locals())


@app.command()
def explain(
    scenario: opt.ScenarioPath,
    variant: opt.ExplainVariant = None,
    against: opt.ExplainAgainst = None,
    trials: opt.Trials = None,
    seed: opt.Seed = None,
    threads: opt.Threads = None,
    out_dir: opt.RunOutDir = None,
    quiet: opt.Quiet = False,
    metrics: opt.Metrics = None,
) -> None:
    """Say which changed clause moved each metric: every combination played on the same deals."""
    _call("explain", "explain", locals())


@app.command()
def exact(
    scenario: opt.ScenarioPath,
    trials: opt.Trials = None,
    threads: opt.FewThreads = None,
    force: opt.Force = False,
) -> None:
    """Print exact values beside the estimates, where the procedure knows them."""
    _call("run", "exact", locals())


@app.command()
def validate(scenarios: opt.ScenarioPaths, force: opt.Force = False) -> None:
    """Check scenario files without running them; exit 2 if any is invalid."""
    _call("validate", "validate", locals())


@app.command()
def baseline(
    scenarios: opt.ScenarioPaths,
    output: opt.BaselineOut = Path("reports/baseline.json"),
    trials: opt.BaselineTrials = None,
    threads: opt.FewThreads = None,
    force: opt.Force = False,
) -> None:
    """Run scenarios and store every metric's counts, and the per-trial outcomes of gated
    metrics, as the baseline for `sim check` (docs/gate.md)."""
    _call("gate", "baseline", locals())


@app.command()
def check(
    scenarios: opt.ScenarioPaths,
    baseline_file: opt.BaselineFile = Path("reports/baseline.json"),
    trials: opt.CheckTrials = None,
    alpha: opt.Alpha = 1e-4,
    junit: opt.JUnit = None,
    markdown: opt.CheckMarkdown = None,
    threads: opt.FewThreads = None,
    force: opt.Force = False,
) -> None:
    """Rerun scenarios against a baseline, paired trial by trial where it can; exit 3 if a gated
    metric drifted (docs/gate.md)."""
    _call("gate", "check", locals())


@app.command()
def tune(
    scenario: opt.ScenarioPath,
    trials: opt.TuneTrials = None,
    seed: opt.Seed = None,
    budget: opt.Budget = None,
    threads: opt.Threads = None,
    as_json: opt.TuneJson = False,
    out_dir: opt.OutDir = None,
    quiet: opt.TuneQuiet = False,
    backend: opt.TuneBackend = None,
    workers: opt.TuneWorkers = None,
    scheduler: opt.TuneScheduler = None,
) -> None:
    """Search the scenario's tune: section for the rule values that best meet its target."""
    _call("tune", "tune", locals())


@app.command("list")
def list_procedures(name: opt.ProcedureName = None) -> None:
    """List procedures with their parameters (ranges, defaults) and metrics."""
    _call("reference", "list_procedures", locals())


@app.command()
def warm(procedures: opt.ProcedureNames = None) -> None:
    """Compile procedures' kernels into Numba's disk cache now (minutes for a whole game), so
    later runs on this machine compile nothing."""
    _call("warm", "warm", locals())


@app.command()
def schema(output: opt.SchemaOut = None) -> None:
    """Print the JSON Schema of scenario files (for editor completion)."""
    _call("reference", "schema", locals())


@app.command()
def serve(
    scenarios: Annotated[
        list[Path] | None, typer.Argument(help="scenario files to open first", show_default=False)
    ] = None,
    host: Annotated[str, typer.Option(help="address to bind (others than loopback warn)")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=0, max=65535, help="port (0: any free one)")] = 8765,
    root: Annotated[
        list[Path] | None,
        typer.Option(help="a folder it may read and write [default: the files' and scenarios/]"),
    ] = None,
    max_trials: Annotated[int | None, typer.Option(min=1, help="cap on a run's trials")] = None,
    max_seconds: Annotated[float | None, typer.Option(min=1, help="cap on a run's time")] = None,
    threads: opt.Threads = None,
) -> None:
    """A workbench in the browser: edit a scenario, watch the odds move, save it (docs/serve.md)."""
    _call("serve", "serve", locals())


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        out.print(f"sim {version('simulator')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version")
    ] = False,
) -> None:
    """Monte-Carlo balance simulator for board-game rules."""


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def main() -> None:
    """Console entry point: library errors become exit codes here, at the edge."""
    if _closed(1) or _closed(2):
        # A file opened later would get descriptor 1 or 2 and receive the output meant for it.
        if not _closed(2):
            os.write(2, b"sim: standard output is closed; redirect it (e.g. >/dev/null)\n")
        sys.exit(EXIT_INVALID)
    interrupts.install()
    try:
        _main()
    finally:
        interrupts.ignore()  # the exit code is decided: a late signal must not change it


def _main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print(f"interrupted ({interrupts.last().name})", highlight=False)
        sys.exit(interrupts.exit_code())
    except SystemExit as e:
        if e.code == EXIT_INTERRUPTED and not interrupts.announced:
            # Typer turns a KeyboardInterrupt outside the jobs (say, while loading) into 130.
            err.print(f"interrupted ({interrupts.last().name})", highlight=False)
            sys.exit(interrupts.exit_code())
        raise
    except InvalidInput as e:
        err.print(f"sim: {e}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(EXIT_INVALID)
    except BrokenPipeError:
        # The reader went away (`sim ... | head`): nothing more can be said on stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.exit(EXIT_RUNTIME)
    except Exception as e:
        if os.environ.get("SIM_DEBUG"):
            raise
        err.print(
            f"sim: error: {type(e).__name__}: {e} (set SIM_DEBUG=1 for a traceback)",
            markup=False,
            highlight=False,
        )
        sys.exit(EXIT_RUNTIME)


if __name__ == "__main__":
    main()
