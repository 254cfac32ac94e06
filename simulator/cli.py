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

from simulator import interrupts
from simulator.limits import MAX_SHOWN_PROBLEMS, MAX_TRIALS, InvalidInput

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
out = Console(width=None if sys.stdout and sys.stdout.isatty() else 140)
err = Console(stderr=True, width=None if sys.stderr and sys.stderr.isatty() else 140)


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
Detail = Annotated[
    bool,
    typer.Option("--detail", help="also print every variant's full table and every difference"),
]
Metrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metrics",
        metavar="PATTERN",
        help="only metrics matching this glob (repeatable): every table, plot and the verdict",
    ),
]
SummaryMarkdown = Annotated[
    Path | None,
    typer.Option("--markdown", help="write the summary and the verdict as Markdown here"),
]


def _print_problems(problems: list[Any]) -> None:
    """The first MAX_SHOWN_PROBLEMS problems, and how many more there are."""
    for p in problems[:MAX_SHOWN_PROBLEMS]:
        err.print(str(p), markup=False, highlight=False, soft_wrap=True)
    if len(problems) > MAX_SHOWN_PROBLEMS:
        err.print(f"... and {len(problems) - MAX_SHOWN_PROBLEMS:,} more problems", highlight=False)


def _fail_invalid(problems: list[Any]) -> None:
    _print_problems(problems)
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
        int | None,
        typer.Option(min=1, max=MAX_TRIALS, help="trials per variant (overrides the file)"),
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
        typer.Option(
            min=1, max=MAX_TRIALS, help="cap on trials with --precision [default: 100 × --trials]"
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the result document as JSON on stdout")
    ] = False,
    out_dir: Annotated[
        str | None,
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
    connect_timeout: Annotated[
        float,
        typer.Option(
            min=0.1,
            max=3600,
            help="--backend dask: seconds to wait for the scheduler and a first worker",
        ),
    ] = 30.0,
    detail: Detail = False,
    metrics: Metrics = None,
    markdown: SummaryMarkdown = None,
) -> None:
    """Run a scenario: print odds with 95% intervals and write reports (CSV, JSON, PNG, HTML)."""
    from simulator.backends import BackendOptionError, BackendUnavailable, open_backend
    from simulator.report import write_reports
    from simulator.runner import run_scenario

    loaded = _load(scenario, force)
    _check_metrics("sim run", loaded, metrics)
    _refuse_bad_trial_options(trials or loaded.trials, precision, max_trials)
    if precision is not None and max_trials is None:
        max_trials = min(100 * (trials or loaded.trials), MAX_TRIALS)
    target = Path("reports") / "out" / loaded.name if out_dir is None else out_dir
    _check_outputs(target, markdown)
    progress = _Progress(not quiet and sys.stderr.isatty(), loaded.name)
    try:
        with open_backend(
            backend.value if backend else None,
            workers=workers,
            scheduler=scheduler,
            threads=threads,
            connect_timeout=connect_timeout,
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
    result = _restrict(result, metrics)
    written = write_reports(result, Path(target))
    _write_markdown(result, markdown)
    if as_json:
        sys.stdout.write(json.dumps(result.document(), indent=2) + "\n")
    else:
        _print_result(result, detail)
        points = f"{len(result.points):,} points × " if result.is_sweep else ""
        out.print(
            f"{points}{result.outcome.trials:,} trials per variant in "
            f"{result.outcome.elapsed:.2f} s; "
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    if result.outcome.precision_reached is False:
        err.print(
            f"warning: --precision {precision:g} was not reached within --max-trials "
            f"{max_trials:,}; summary.json says precision_reached: false",
            highlight=False,
        )
    if not result.complete:
        err.print(
            f"interrupted ({interrupts.last().name}): partial results written, marked incomplete",
            highlight=False,
        )
        interrupts.announced = True
        raise typer.Exit(interrupts.exit_code())


def _check_outputs(folder: Path | str, markdown: Path | None) -> None:
    """Refuse, before any run, a report folder or markdown file that cannot be written."""
    from simulator.output import check_file_target, check_report_folder

    check_report_folder(folder)
    if markdown is not None:
        check_file_target(markdown, "--markdown")


def _refuse_bad_trial_options(trials: int, precision: float | None, max_trials: int | None) -> None:
    if max_trials is None:
        return
    if precision is None:
        raise InvalidInput("--max-trials caps a run with --precision; give --precision too")
    if max_trials < trials:
        raise InvalidInput(f"--max-trials {max_trials:,} is below --trials {trials:,}")


def _check_metrics(command: str, loaded: Any, patterns: list[str] | None) -> None:
    """Exit 2 before running when ``--metrics`` matches nothing."""
    from simulator.summary import NoMetricsMatch, check_patterns

    names = loaded.procedure.metric_names(next(iter(loaded.variants.values())))
    try:
        check_patterns(names, patterns or [])
    except NoMetricsMatch as e:
        err.print(f"{command}: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e


def _restrict(result: Any, patterns: list[str] | None) -> Any:
    from simulator.summary import restrict

    return restrict(result, patterns or [])


def _write_markdown(result: Any, path: Path | None) -> None:
    if path is not None:
        from simulator.report import atomic_write
        from simulator.summary import markdown_of

        text = markdown_of(result)
        atomic_write(path, lambda f: f.write(text))


def _print_result(result: Any, detail: bool) -> None:
    from simulator.summary import print_result

    print_result(result, out, detail)


@app.command()
def compare(
    scenarios: Annotated[
        list[Path],
        typer.Argument(
            help="scenario files of one procedure; the first is the baseline", show_default=False
        ),
    ],
    trials: Annotated[
        int | None, typer.Option(min=1, help="trials per variant [default: the first file's]")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(min=0, max=2**64 - 1, help="seed [default: the first file's]"),
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, max=1024, help="worker threads [default: all cores]")
    ] = None,
    chunk_size: Annotated[
        int | None, typer.Option(min=1, help="trials per job; never changes results")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the result document as JSON on stdout")
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="report folder [default: reports/out/<A>-vs-<B>]"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    detail: Detail = False,
    metrics: Metrics = None,
    markdown: SummaryMarkdown = None,
) -> None:
    """Run scenario files of one procedure as variants of one run on shared random streams."""
    from simulator.compare import CompareError, combine, run_compare
    from simulator.report import write_reports

    loaded = _load_all(scenarios, False)
    try:
        combined, _ = combine(loaded)
    except CompareError as e:
        err.print(f"sim compare: {e}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INVALID) from e
    _check_outputs(out_dir or Path("reports") / "out" / combined.name, markdown)
    _check_metrics("sim compare", loaded[0], metrics)
    progress = _Progress(not quiet and sys.stderr.isatty(), "compare")
    try:
        result, notes = run_compare(
            loaded,
            trials=trials,
            seed=seed,
            threads=threads,
            chunk_size=chunk_size,
            on_progress=progress,
        )
    finally:
        progress.close()
    for note in notes:
        err.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    result = _restrict(result, metrics)
    target = out_dir or Path("reports") / "out" / result.scenario.name
    written = write_reports(result, target)
    _write_markdown(result, markdown)
    if as_json:
        sys.stdout.write(json.dumps(result.document(), indent=2) + "\n")
    else:
        _print_result(result, detail)
        out.print(
            f"{result.outcome.trials:,} trials per variant in {result.outcome.elapsed:.2f} s; "
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    if not result.complete:
        err.print(
            f"interrupted ({interrupts.last().name}): partial results written, marked incomplete"
        )
        interrupts.announced = True
        raise typer.Exit(interrupts.exit_code())


@app.command()
def exact(
    scenario: ScenarioPath,
    trials: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_TRIALS, help="trials per variant (overrides the file)"),
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
    from simulator.yaml_loader import printable

    bad = False
    for path in scenarios:
        try:
            s = load(path, force=force)
        except ScenarioError as e:
            bad = True
            _print_problems(e.problems)
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
        illegal = sum(1 for pt in s.points if pt.illegal)
        points += f" ({illegal} illegal by the rules, shown as such)" if illegal else ""
        out.print(
            f"ok {printable(str(path))}: {s.procedure.name}, {len(s.variants)} variant(s)"
            f"{points}, {s.trials:,} trials",
            highlight=False,
            markup=False,
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
        int | None,
        typer.Option(
            min=1, max=MAX_TRIALS, help="trials per variant and point (overrides the files)"
        ),
    ] = None,
    threads: Annotated[int | None, typer.Option(min=1, max=1024, help="worker threads")] = None,
    force: Force = False,
) -> None:
    """Run scenarios and store every metric's counts, and the per-trial outcomes of gated
    metrics, as the baseline for `sim check` (docs/gate.md)."""
    from simulator.gate.commands import baseline_command
    from simulator.output import check_file_target

    check_file_target(output, "--out")
    code = baseline_command(_load_all(scenarios, force), output, trials, threads, out, err)
    if code:
        raise typer.Exit(code)


@app.command()
def check(
    scenarios: ScenarioPaths,
    baseline_file: Annotated[
        Path, typer.Option("--baseline", help="baseline written by `sim baseline`")
    ] = Path("reports/baseline.json"),
    trials: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_TRIALS, help="trials per variant and point [default: the baseline's]"
        ),
    ] = None,
    alpha: Annotated[
        float,
        typer.Option(
            min=1e-300, max=0.5, help="family-wise significance level (Holm, gated metrics)"
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
    """Rerun scenarios against a baseline, paired trial by trial where it can; exit 3 if a gated
    metric drifted (docs/gate.md)."""
    from simulator.gate.commands import check_command
    from simulator.output import check_file_target

    for path, option in ((junit, "--junit"), (markdown, "--markdown")):
        if path is not None:
            check_file_target(path, option)
    loaded = _load_all(scenarios, force)
    code = check_command(loaded, baseline_file, trials, alpha, threads, junit, markdown, out, err)
    if code:
        raise typer.Exit(code)


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
    _check_outputs(out_dir or Path("reports") / "out" / loaded.name, None)
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
    from simulator.output import report_folder

    with report_folder(target) as folder:  # one whole run, swapped in
        written = [target / p.relative_to(folder) for p in write_reports(result, folder)]
    if as_json:
        sys.stdout.write(json.dumps(document(result), indent=2, default=str) + "\n")
    else:
        print_result(result, out)
        out.print(
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    if not result.complete:
        err.print(
            f"interrupted ({interrupts.last().name}): the best so far is written, marked incomplete"
        )
        interrupts.announced = True
        raise typer.Exit(interrupts.exit_code())


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
    from simulator.output import check_file_target
    from simulator.scenario import json_schema

    if output is not None:
        check_file_target(output, "--out")
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
