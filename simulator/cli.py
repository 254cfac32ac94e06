"""The ``sim`` command: parses options, calls the library, prints. No simulation logic here.

Exit codes: 0 ok · 1 runtime failure · 2 invalid input · 3 regression found · 130 interrupted.
"""

from __future__ import annotations

import json
import os
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

app = typer.Typer(
    name="sim",
    help="Monte-Carlo balance simulator for board-game rules: run YAML scenarios, get odds with "
    "confidence intervals, compare rule variants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_RUNTIME, EXIT_INVALID, EXIT_REGRESSION, EXIT_INTERRUPTED = 1, 2, 3, 130

# Piped output (files, CI logs) gets wide tables rather than names cut to fit 80 columns.
out = Console(width=None if sys.stdout.isatty() else 140)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 140)


class BackendName(StrEnum):
    threads = "threads"
    dask = "dask"


ScenarioPath = Annotated[Path, typer.Argument(help="scenario YAML file", show_default=False)]
ScenarioPaths = Annotated[
    list[Path], typer.Argument(help="scenario YAML files", show_default=False)
]
Force = Annotated[
    bool,
    typer.Option("--force", help="allow a sweep grid of more than 10,000 points"),
]


def _fail_invalid(problems: list[Any]) -> None:
    for p in problems:
        err.print(str(p), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_INVALID)


def _load(path: Path, force: bool = False) -> Any:
    from simulator.scenario import ScenarioError, load

    try:
        return load(path, force=force)
    except ScenarioError as e:
        _fail_invalid(e.problems)


def _load_all(paths: list[Path], force: bool) -> list[Any]:
    """Load every file, print every problem, exit 2 if any file is invalid."""
    from simulator.scenario import ScenarioError, load

    loaded, problems = [], []
    for path in paths:
        try:
            loaded.append(load(path, force=force))
        except ScenarioError as e:
            problems += e.problems
    if problems:
        _fail_invalid(problems)
    return loaded


class _Progress:
    """A rich progress bar on stderr, shown only for runs longer than about a second."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.enabled = enabled
        self.label = label
        self.start = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 0.8:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


@app.command()
def run(
    scenario: ScenarioPath,
    trials: Annotated[
        int | None, typer.Option(min=1, help="trials per variant (overrides the file)")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, max=2**64 - 1, help="seed (overrides the file)")
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, max=1024, help="worker threads [default: all cores]")
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            min=1, help="trials per job [default: sized to ~50 ms]; never changes results"
        ),
    ] = None,
    independent: Annotated[
        bool,
        typer.Option(
            "--independent", help="give each variant its own random stream instead of shared ones"
        ),
    ] = False,
    precision: Annotated[
        float | None,
        typer.Option(
            min=1e-12,
            help="keep running until every headline metric's 95% half-width is at most this",
        ),
    ] = None,
    max_trials: Annotated[
        int | None,
        typer.Option(min=1, help="cap on trials with --precision [default: 100 × --trials]"),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the result document as JSON on stdout")
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="report folder [default: reports/out/<scenario name>]"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    force: Force = False,
    backend: Annotated[
        BackendName | None,
        typer.Option(
            help="where jobs run: threads here, or a Dask cluster (needs the dask extra); "
            "default threads, dask with --scheduler or --workers; never changes results",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=1024,
            help="--backend dask: start a local cluster of this many single-threaded worker "
            "processes (default: one per core)",
        ),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="--backend dask: run on the existing cluster of this scheduler",
        ),
    ] = None,
) -> None:
    """Run a scenario: print odds with 95% intervals and write reports (CSV, JSON, PNG, HTML)."""
    from simulator.backends import BackendOptionError, BackendUnavailable, open_backend
    from simulator.report import print_tables, write_reports
    from simulator.runner import run_scenario

    loaded = _load(scenario, force)
    if precision is not None and max_trials is None:
        max_trials = 100 * (trials or loaded.trials)
    progress = _Progress(not quiet and sys.stderr.isatty(), loaded.name)
    try:
        with open_backend(
            backend.value if backend else None,
            workers=workers,
            scheduler=scheduler,
            threads=threads,
        ) as runs_on:
            result = run_scenario(
                loaded,
                trials=trials,
                seed=seed,
                threads=threads,
                chunk_size=chunk_size,
                independent=independent,
                precision=precision,
                max_trials=max_trials,
                on_progress=progress,
                backend=runs_on,
            )
    except (BackendOptionError, BackendUnavailable) as e:
        err.print(f"sim run: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e
    finally:
        progress.close()
    target = out_dir or Path("reports") / "out" / loaded.name
    written = write_reports(result, target)
    if as_json:
        sys.stdout.write(json.dumps(result.document(), indent=2) + "\n")
    else:
        print_tables(result, out)
        points = f"{len(result.points):,} points × " if result.is_sweep else ""
        out.print(
            f"{points}{result.outcome.trials:,} trials per variant in "
            f"{result.outcome.elapsed:.2f} s; "
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    if not result.complete:
        err.print("interrupted: partial results written, marked incomplete")
        raise typer.Exit(EXIT_INTERRUPTED)


@app.command()
def exact(
    scenario: ScenarioPath,
    trials: Annotated[
        int | None, typer.Option(min=1, help="trials per variant (overrides the file)")
    ] = None,
    threads: Annotated[int | None, typer.Option(min=1, max=1024, help="worker threads")] = None,
    force: Force = False,
) -> None:
    """Print exact values beside the estimates, where the procedure knows them."""
    from simulator.report import print_tables
    from simulator.runner import run_scenario

    loaded = _load(scenario, force)
    if loaded.sweep:
        err.print("exact values are not tabulated for sweeps; showing estimates only")
        values = None
    elif loaded.procedure.exact is None:
        err.print(f"{loaded.procedure.name} has no exact values; showing estimates only")
        values = None
    else:
        values = {name: loaded.procedure.exact(p) for name, p in loaded.variants.items()}
    result = run_scenario(loaded, trials=trials, threads=threads)
    print_tables(result, out, values)


@app.command()
def validate(
    scenarios: ScenarioPaths,
    force: Force = False,
) -> None:
    """Check scenario files without running them; exit 2 if any is invalid."""
    from simulator.scenario import ScenarioError, load

    bad = False
    for path in scenarios:
        try:
            s = load(path, force=force)
        except ScenarioError as e:
            bad = True
            for p in e.problems:
                err.print(str(p), markup=False, highlight=False, soft_wrap=True)
            continue
        if s.raw.get("tune") is not None:
            from simulator.tune import parse_tune

            try:
                parse_tune(s)
            except ScenarioError as e:
                bad = True
                for p in e.problems:
                    err.print(str(p), markup=False, highlight=False, soft_wrap=True)
                continue
        points = f", {len(s.points):,} sweep points" if s.sweep else ""
        out.print(
            f"ok {path}: {s.procedure.name}, {len(s.variants)} variant(s){points}, "
            f"{s.trials:,} trials",
            highlight=False,
        )
    if bad:
        raise typer.Exit(EXIT_INVALID)


@app.command()
def baseline(
    scenarios: ScenarioPaths,
    output: Annotated[Path, typer.Option("--out", help="baseline file to write")] = Path(
        "reports/baseline.json"
    ),
    trials: Annotated[
        int | None, typer.Option(min=1, help="trials per variant and point (overrides the files)")
    ] = None,
    threads: Annotated[int | None, typer.Option(min=1, max=1024, help="worker threads")] = None,
    force: Force = False,
) -> None:
    """Run scenarios and store every metric's counts as the baseline for `sim check`."""
    from simulator import baseline as gate

    loaded = _load_all(scenarios, force)
    try:
        stored = gate.make(loaded, trials=trials, threads=threads)
    except gate.BaselineError as e:
        err.print(f"sim baseline: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e
    gate.write(stored, output)
    n = sum(len(s.entries) for s in stored.scenarios.values())
    out.print(
        f"baseline of {n:,} metrics in {len(stored.scenarios)} scenario(s) written to {output}",
        highlight=False,
    )


@app.command()
def check(
    scenarios: ScenarioPaths,
    baseline_file: Annotated[
        Path, typer.Option("--baseline", help="baseline written by `sim baseline`")
    ] = Path("reports/baseline.json"),
    trials: Annotated[
        int | None,
        typer.Option(min=1, help="trials per variant and point [default: the baseline's]"),
    ] = None,
    alpha: Annotated[
        float,
        typer.Option(
            min=1e-300, max=0.5, help="family-wise significance level (Holm, all metrics)"
        ),
    ] = 1e-4,
    junit: Annotated[
        Path | None, typer.Option("--junit", help="write a JUnit XML report here")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="write a markdown summary here")
    ] = None,
    threads: Annotated[int | None, typer.Option(min=1, max=1024, help="worker threads")] = None,
    force: Force = False,
) -> None:
    """Rerun scenarios against a baseline; exit 3 if a metric moved significantly or beyond
    its tolerance."""
    from simulator import baseline as gate

    loaded = _load_all(scenarios, force)
    try:
        result = gate.check(loaded, baseline_file, trials=trials, alpha=alpha, threads=threads)
    except gate.BaselineError as e:
        err.print(f"sim check: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e
    from simulator.report import atomic_write

    if junit is not None:
        text = gate.junit_xml(result)
        atomic_write(junit, lambda f: f.write(text))
    summary = gate.markdown(result)
    if markdown is not None:
        atomic_write(markdown, lambda f: f.write(summary))
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(summary)
    if os.environ.get("GITHUB_ACTIONS"):
        for line in gate.github_annotations(result):
            print(line, flush=True)
    for note in result.notes:
        err.print(f"note: {note}", highlight=False)
    n = len(result.table)
    n_scen = len(loaded)
    if result.ok:
        out.print(
            f"no drift: {n:,} metrics in {n_scen} scenario(s) match {baseline_file} "
            f"(Holm, family-wise alpha {alpha:g})",
            highlight=False,
        )
        return
    from rich.table import Table

    table = Table(
        title=f"Drift against {baseline_file}: {len(result.drifted)} of {n:,} metrics moved "
        f"(Holm, family-wise alpha {alpha:g})",
        title_justify="left",
    )
    for col in ("scenario", "variant · point", "metric", "before", "after", "difference"):
        table.add_column(
            col, justify="right" if col in ("before", "after", "difference") else "left"
        )
    table.add_column("p (Holm)", justify="right")
    table.add_column("why")
    for r in result.drifted.to_dict(orient="records"):
        table.add_row(
            str(r["scenario"]),
            gate.point_label(r),
            str(r["metric"]),
            gate.fmt_value(r["before"]),
            gate.fmt_value(r["after"]),
            gate.fmt_value(r["difference"]),
            gate.fmt_p(r["p_holm"]),
            gate.reasons(r),
        )
    out.print(table)
    raise typer.Exit(EXIT_REGRESSION)


@app.command()
def tune(
    scenario: ScenarioPath,
    trials: Annotated[
        int | None,
        typer.Option(
            min=1, help="trials of the finalists and the confirmation (overrides the file)"
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, max=2**64 - 1, help="seed (overrides the file)")
    ] = None,
    budget: Annotated[
        int | None, typer.Option(min=1, max=10_000, help="candidates at most (overrides the file)")
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, max=1024, help="worker threads [default: all cores]")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the tuning document as JSON on stdout")
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="report folder [default: reports/out/<scenario name>]"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress line")] = False,
    backend: Annotated[
        BackendName | None,
        typer.Option(
            help="where candidates run: threads here, or a Dask cluster", show_default=False
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, max=1024, help="--backend dask: local worker processes")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(metavar="tcp://HOST:PORT", help="--backend dask: an existing cluster"),
    ] = None,
) -> None:
    """Search the scenario's tune: section for the rule values that best meet its target."""
    from simulator.backends import BackendOptionError, BackendUnavailable, open_backend
    from simulator.scenario import ScenarioError
    from simulator.tune import parse_tune, run_tune
    from simulator.tune.report import document, print_result, write_reports

    loaded = _load(scenario)
    try:
        parse_tune(loaded)
    except ScenarioError as e:
        _fail_invalid(e.problems)
    status = _TuneStatus(not quiet and sys.stderr.isatty())
    try:
        with open_backend(
            backend.value if backend else None,
            workers=workers,
            scheduler=scheduler,
            threads=threads,
        ) as runs_on:
            result = run_tune(
                loaded,
                trials=trials,
                seed=seed,
                budget=budget,
                threads=threads,
                backend=runs_on,
                on_progress=status,
            )
    except (BackendOptionError, BackendUnavailable) as e:
        err.print(f"sim tune: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e
    finally:
        status.close()
    target = out_dir or Path("reports") / "out" / loaded.name
    written = write_reports(result, target)
    if as_json:
        sys.stdout.write(json.dumps(document(result), indent=2, default=str) + "\n")
    else:
        print_result(result, out)
        out.print(
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    if not result.complete:
        err.print("interrupted: the best so far is written, marked incomplete")
        raise typer.Exit(EXIT_INTERRUPTED)


class _TuneStatus:
    """One line on stderr: the stage, candidates done and the best so far."""

    def __init__(self, enabled: bool) -> None:
        self.status: Any = None
        self.enabled = enabled

    def __call__(self, stage: str, done: int, total: int, best: str) -> None:
        if not self.enabled:
            return
        text = f"sim tune · {stage}: {done}/{total} candidates" + (
            f" · best so far {best}" if best else ""
        )
        if self.status is None:
            self.status = err.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()


@app.command("list")
def list_procedures(
    name: Annotated[str | None, typer.Argument(help="show one procedure only")] = None,
) -> None:
    """List procedures with their parameters (ranges, defaults) and metrics."""
    from simulator import procedures
    from simulator.describe import describe

    names = procedures.names()
    if name is not None:
        try:
            procedures.get(name)
        except KeyError as e:
            err.print(f"sim list: {e.args[0]}")
            raise typer.Exit(EXIT_INVALID) from e
        names = [name]
    for n in names:
        for renderable in describe(procedures.get(n)):
            out.print(renderable)


@app.command()
def schema(
    output: Annotated[
        Path | None, typer.Option("--out", help="write to this file instead of stdout")
    ] = None,
) -> None:
    """Print the JSON Schema of scenario files (for editor completion)."""
    from simulator.scenario import json_schema

    text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        from simulator.report import atomic_write

        atomic_write(output, lambda f: f.write(text))


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


def main() -> None:
    """Console entry point: library errors become exit codes here, at the edge."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except SystemExit:
        raise
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
