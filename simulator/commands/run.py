"""Bodies of ``sim run`` (a scenario: odds with intervals, reports) and ``sim exact`` (exact
values beside the estimates)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from simulator import interrupts
from simulator.commands.common import (
    Progress,
    backend_for,
    check_metrics,
    check_outputs,
    command,
    finish_interrupted,
    load,
    refuse_bad_trial_options,
    report,
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
    out: Any,
    err: Any,
) -> int:
    """Run a scenario, write its reports, print the summary (or ``--json``); the exit code."""
    from simulator.runner import run_scenario

    loaded = load(scenario, err, force)
    check_metrics("sim run", loaded, metrics, err)
    refuse_bad_trial_options(trials or loaded.trials, precision, max_trials)
    if precision is not None and max_trials is None:
        max_trials = min(100 * (trials or loaded.trials), MAX_TRIALS)
    target = Path("reports") / "out" / loaded.name if out_dir is None else out_dir
    check_outputs(target, markdown, [scenario])
    progress = Progress(not quiet and sys.stderr.isatty(), loaded.name, err)
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
    finally:
        progress.close()
    with interrupts.held() as caught:  # every trial has run: the reports are written whole
        result = report(
            result,
            target,
            metrics=metrics,
            markdown=markdown,
            as_json=as_json,
            detail=detail,
            out=out,
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
    if caught:
        text = "the run had finished: its reports are written, complete"
        return finish_interrupted(err, text, highlight=False)
    return 0


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
    from simulator.report import print_tables
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
    print_tables(result, out, values)
    return 0
