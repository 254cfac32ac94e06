"""Bodies of ``sim run`` (a scenario: odds with intervals, reports) and ``sim exact`` (exact
values beside the estimates)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from simulator import interrupts
from simulator.commands.common import (
    EXIT_INVALID,
    Progress,
    Stop,
    backend_for,
    check_metrics,
    check_outputs,
    command,
    finish_interrupted,
    load,
    refuse_bad_trial_options,
    report,
    say,
)
from simulator.limits import MAX_TRIALS


@command
def run(
    scenario: Path,
    *,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    independent: bool = False,
    precision: float | None = None,
    max_trials: int | None = None,
    as_json: bool = False,
    out_dir: str | Path | None = None,
    quiet: bool = False,
    force: bool = False,
    backend: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = 30.0,
    detail: bool = False,
    metrics: list[str] | None = None,
    markdown: Path | None = None,
    robustness: str | None = None,
    robustness_seconds: float | None = None,
    out: Any,
    err: Any,
) -> int:
    """Run a scenario, write its reports, print the summary (or ``--json``); the exit code."""
    from simulator.runner import run_scenario

    loaded = load(scenario, err, force)
    levels = robustness_levels(loaded, robustness, err)
    check_metrics("sim run", loaded, metrics, err)
    refuse_bad_trial_options(trials or loaded.trials, precision, max_trials)
    if precision is not None and max_trials is None:
        max_trials = min(100 * (trials or loaded.trials), MAX_TRIALS)
    target = Path("reports") / "out" / loaded.name if out_dir is None else out_dir
    check_outputs(target, markdown, [scenario])
    progress = Progress(not quiet and sys.stderr.isatty(), loaded.name, err, announce=not quiet)
    try:
        with backend_for(
            "sim run",
            err,
            backend,
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
            held = None
            if levels and result.complete:
                held = rerun_levels(
                    loaded, levels, robustness_seconds, result, threads, runs_on, quiet, err
                )
    finally:
        progress.close()
    explanations = _explained(loaded, result, trials, threads, quiet, err)
    with interrupts.held() as caught:  # every trial has run: the reports are written whole
        result = report(
            result,
            target,
            metrics=metrics,
            markdown=markdown,
            as_json=as_json,
            detail=detail,
            out=out,
            robustness=held,
            explanations=explanations,
        )
    if result.outcome.precision_reached is False:
        err.print(
            f"warning: --precision {precision:g} was not reached within --max-trials "
            f"{max_trials:,}; summary.json says precision_reached: false",
            highlight=False,
        )
    if not result.complete:
        text = "partial results written, marked incomplete"
        return finish_interrupted(err, text, highlight=False)
    if held is not None and not held.complete:
        text = "the robustness levels finished before it were kept and reported"
        return finish_interrupted(err, text, highlight=False)
    if caught:
        text = "the run had finished: its reports are written, complete"
        return finish_interrupted(err, text, highlight=False)
    return 0


def _explained(
    loaded: Any, result: Any, trials: int | None, threads: int | None, quiet: bool, err: Any
) -> list[Any]:
    """A scenario's ``explain: true``: each variant's change attributed to its clauses."""
    if not loaded.explain:
        return []
    from simulator.commands.explain import for_run

    return for_run(loaded, result, trials, threads, quiet, err)


def robustness_levels(loaded: Any, option: str | None, err: Any) -> list[Any]:
    """The levels ``--robustness`` (or the scenario's section) asks for; exit 2 if it cannot."""
    from simulator.robustness.run import plan
    from simulator.robustness.spec import from_option

    try:
        spec = from_option(option, loaded.robustness)
    except ValueError as e:
        say(err, f"sim run: {e}")
        raise Stop(EXIT_INVALID) from e
    if spec is None:
        return []
    from simulator.tournament.procedure import tournament_of

    if loaded.sweep or tournament_of(loaded.procedure) is not None:
        say(err, "sim run: --robustness reruns a comparison of variants, not a sweep or tournament")
        raise Stop(EXIT_INVALID)
    if spec.assumptions and not loaded.procedure.assumptions:
        say(err, f"sim run: {loaded.procedure.name} declares no assumptions to move (sim list)")
        raise Stop(EXIT_INVALID)
    return plan(dataclasses.replace(loaded, robustness=spec))


def rerun_levels(
    loaded: Any,
    levels: list[Any],
    seconds: float | None,
    first: Any,
    threads: int | None,
    backend: Any,
    quiet: bool,
    err: Any,
) -> Any:
    """Rerun the comparison under each level, sized by power within the time budget: say first
    what it measures, then each level's size and the estimate, with a progress bar over it."""
    from simulator.robustness.run import budget_for, run_robustness

    budget = budget_for(loaded, seconds)
    kinds = sorted({lv.kind for lv in levels})
    say(
        err,
        f"robustness: {len(levels)} reruns ({' and '.join(kinds)}) on the same deals, each sized "
        f"to see the main effects at 80% power within {_duration(budget)}; measuring each level "
        "on its first deals",
    )

    def planned(held: Any) -> None:
        ran = [r for r in held.reruns if not r.refused]
        sizes = ", ".join(
            f"{r.level.label} {r.planned:,}" + (" (cut by the budget)" if r.capped else "")
            for r in ran
        )
        say(
            err,
            f"robustness: measured in {_duration(held.pilot_seconds)}; games a level: {sizes}; "
            f"{_about(held.estimate)} more",
        )

    bar = Progress(not quiet and sys.stderr.isatty(), "robustness", err, announce=not quiet)
    most = loaded.robustness.trials if loaded.robustness is not None else None
    try:
        return run_robustness(
            loaded,
            levels,
            first,
            seconds=budget,
            most=most,
            threads=threads,
            backend=backend,
            on_progress=bar,
            on_plan=planned,
        )
    finally:
        bar.close()


def _about(seconds: float) -> str:
    return "under 1 s" if seconds < 1 else f"about {_duration(seconds)}"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    return f"{seconds / 60:.0f} min"


@command
def exact(
    scenario: Path,
    *,
    trials: int | None = None,
    threads: int | None = None,
    force: bool = False,
    out: Any,
    err: Any,
) -> int:
    """Run a scenario and print its estimates beside the exact values the procedure knows."""
    from simulator.report.model import build
    from simulator.report.terminal import print_tables
    from simulator.runner import run_scenario

    loaded = load(scenario, err, force)
    if loaded.sweep:
        err.print("exact values are not tabulated for sweeps; showing estimates only")
        values = None
    elif loaded.procedure.exact is None:
        err.print(f"{loaded.procedure.name} has no exact values; showing estimates only")
        values = None
    else:
        values = {name: loaded.procedure.exact(p) for name, p in loaded.variants.items()}
    result = run_scenario(loaded, trials=trials, threads=threads)
    print_tables(build(result), out, values)
    return 0
