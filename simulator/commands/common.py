"""What the command bodies share: the exit codes (the CLI exits with these too), loading scenarios
with every problem reported, refusing bad options before a run, the progress bar, and the end of
an interrupted run. Imports nothing heavy at the top: the CLI reads it when it starts."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec

from simulator import interrupts
from simulator.limits import MAX_SHOWN_PROBLEMS, InvalidInput

EXIT_RUNTIME, EXIT_INVALID, EXIT_REGRESSION, EXIT_INTERRUPTED = 1, 2, 3, 130

P = ParamSpec("P")


class Stop(Exception):
    """A command ends early with this exit code; what went wrong is already on stderr."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def command(body: Callable[P, int | None]) -> Callable[P, int]:
    """A command body returns its exit code, also when a helper stopped it with :class:`Stop`."""

    @functools.wraps(body)
    def run(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return body(*args, **kwargs) or 0
        except Stop as e:
            return e.code

    return run


def say(console: Any, text: str) -> None:
    """Print ``text`` as it is: no markup, no highlighting, no wrapping."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def print_problems(err: Any, problems: list[Any]) -> None:
    """The first MAX_SHOWN_PROBLEMS problems, and how many more there are."""
    for p in problems[:MAX_SHOWN_PROBLEMS]:
        say(err, str(p))
    if len(problems) > MAX_SHOWN_PROBLEMS:
        err.print(f"... and {len(problems) - MAX_SHOWN_PROBLEMS:,} more problems", highlight=False)


def fail_invalid(err: Any, problems: list[Any]) -> None:
    """Report the problems and stop with exit code 2."""
    print_problems(err, problems)
    raise Stop(EXIT_INVALID)


def load(path: Path, err: Any, force: bool = False) -> Any:
    """One scenario file, or stop with exit code 2 after printing its problems."""
    from simulator.scenario import ScenarioError, load

    try:
        loaded = load(path, force=force)
    except ScenarioError as e:
        fail_invalid(err, e.problems)
    for note in loaded.notes:
        say(err, f"note: {note}")
    return loaded


def load_all(paths: list[Path], err: Any, force: bool) -> list[Any]:
    """Load every file, print every problem, stop with exit code 2 if any file is invalid."""
    from simulator.scenario import ScenarioError, load

    loaded, problems = [], []
    for path in paths:
        try:
            loaded.append(load(path, force=force))
        except ScenarioError as e:
            problems += e.problems
    if problems:
        fail_invalid(err, problems)
    return loaded


def check_outputs(
    folder: Path | str, markdown: Path | None, inputs: list[Path] | tuple[()] = ()
) -> None:
    """Refuse, before any run, a report folder or markdown file that cannot be written, or
    that would overwrite an input (``inputs``: the scenario files) or each other."""
    from simulator.output import check_file_target, check_report_folder, refuse_clashes

    check_report_folder(folder)
    if markdown is not None:
        check_file_target(markdown, "--markdown")
    refuse_clashes(
        {f"scenario {p}": p for p in inputs}, {"--markdown": markdown}, ("--out", folder)
    )


def refuse_bad_trial_options(trials: int, precision: float | None, max_trials: int | None) -> None:
    """``--max-trials`` needs ``--precision`` and cannot be below ``--trials``.

    Raises:
        InvalidInput: either is not so.
    """
    if max_trials is None:
        return
    if precision is None:
        raise InvalidInput("--max-trials caps a run with --precision; give --precision too")
    if max_trials < trials:
        raise InvalidInput(f"--max-trials {max_trials:,} is below --trials {trials:,}")


def check_metrics(command: str, loaded: Any, patterns: list[str] | None, err: Any) -> None:
    """Stop with exit code 2 before running when ``--metrics`` matches nothing."""
    from simulator.report.summary import NoMetricsMatch, check_patterns

    names = loaded.procedure.metric_names(next(iter(loaded.variants.values())))
    try:
        check_patterns(names, patterns or [])
    except NoMetricsMatch as e:
        say(err, f"{command}: {e}")
        raise Stop(EXIT_INVALID) from e


def write_markdown(report: Any, path: Path | None) -> None:
    """``--markdown FILE``: the summary and the verdict, written whole."""
    if path is not None:
        from simulator.output import safe_write
        from simulator.report.markdown import markdown_of

        text = markdown_of(report)
        safe_write(path, lambda f: f.write(text))


@contextmanager
def backend_for(command: str, err: Any, backend: str | None, **options: Any) -> Iterator[Any]:
    """:func:`simulator.backends.open_backend` for a command: a backend option it refuses, or a
    backend it cannot reach, stops the command with exit code 2 after saying why."""
    from simulator.backends import BackendOptionError, BackendUnavailable, open_backend

    try:
        with open_backend(None if backend is None else str(backend), **options) as runs_on:
            yield runs_on
    except (BackendOptionError, BackendUnavailable) as e:
        say(err, f"{command}: {e}")
        raise Stop(EXIT_INVALID) from e


def report(
    result: Any,
    target: Path | str,
    *,
    metrics: list[str] | None,
    markdown: Path | None,
    as_json: bool,
    detail: bool,
    out: Any,
    robustness: Any = None,
    explanations: list[Any] | None = None,
) -> Any:
    """The end of ``sim run`` and ``sim compare``: narrow to ``--metrics``, print the JSON document
    or the summary, write the report folder (and ``--markdown``) and say where the files went.
    The result is turned into the report model once; every output renders that.
    Returns the narrowed result."""
    from simulator.report.model import build
    from simulator.report.terminal import print_report

    built = build(result, metrics, robustness, explanations)
    result = built.result
    # The answer first: the files need pandas (0.4 CPU-s to import) and the figures matplotlib
    # (0.5 CPU-s and their drawing), neither of which the table of a run without variants needs.
    if as_json:
        sys.stdout.write(json.dumps(result.document(), indent=2) + "\n")
    else:
        print_report(built, out, detail)
    sys.stdout.flush()
    from simulator.report.files import write_reports

    written = write_reports(built, Path(target))
    write_markdown(built, markdown)
    if not as_json:
        points = f"{len(result.points):,} points × " if result.is_sweep else ""
        out.print(
            f"{points}{result.outcome.trials:,} trials per variant in "
            f"{result.outcome.elapsed:.2f} s; "
            f"reports written to {target}/ ({', '.join(p.name for p in written)})",
            highlight=False,
        )
    return result


def finish_interrupted(err: Any, text: str, **style: Any) -> int:
    """Say that the run was interrupted and what was kept; the exit code (128 + the signal)."""
    err.print(f"interrupted ({interrupts.last().name}): {text}", **style)
    interrupts.announced = True
    return interrupts.exit_code()


#: A run expected to take longer than this says so as soon as its rate is known.
LONG_RUN_SECONDS = 60.0


def long_run_note(label: str, remaining: float) -> str:
    """What a run expected to take more than a minute says up front."""
    from simulator.compiling import duration

    return (
        f"{label}: this run should take about {duration(remaining)} more at the rate so far "
        "(Ctrl-C stops it and keeps what has run)"
    )


class Progress:
    """A rich progress bar on stderr with the time left, shown only for runs longer than about a
    second; a run whose estimate passes a minute says so once, as soon as its rate is known
    (``announce``: on stderr even when it is not a terminal; off under ``--quiet``).

    The rate is measured from the first trials done on, so a compile before them (its own notice,
    :mod:`simulator.compiling`) does not inflate it."""

    def __init__(self, enabled: bool, label: str, err: Any, announce: bool | None = None) -> None:
        self.enabled = enabled
        self.announce = enabled if announce is None else announce
        self.label = label
        self.err = err
        self.start = time.monotonic()
        self.first: tuple[float, int] | None = None
        self.bar: Any = None
        self.task: Any = None
        #: The bar shows "done/total" (a count of trials, games, scenarios); False: a percentage.
        self.counted = True

    def _note_if_long(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.first is None:
            if done > 0:  # what ran before the first trials finished (a compile) is no rate
                self.first = (now, done)
            return
        t0, d0 = self.first
        if now - t0 < 1.0 or done <= d0:
            return
        self.announce = False  # one estimate, the first one that rests on a measured rate
        remaining = (now - t0) / (done - d0) * (total - done)
        if remaining > LONG_RUN_SECONDS:
            self.err.print(long_run_note(self.label, remaining), highlight=False)

    def __call__(self, done: int, total: int) -> None:
        if self.announce:
            self._note_if_long(done, total)
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 0.8:
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TaskProgressColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn() if self.counted else TaskProgressColumn(),
                TimeRemainingColumn(),
                console=self.err,
                transient=True,
                # Rich estimates the speed from the last 30 s by default: a tournament whose
                # deals take a minute each showed -:--:-- for ever.
                speed_estimate_period=3600,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
