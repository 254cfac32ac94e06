"""Body of ``sim compare``: scenario files of one procedure run as the variants of one run on
shared random streams (the combining itself is :mod:`simulator.compare`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from simulator.commands.common import (
    EXIT_INVALID,
    Progress,
    Stop,
    check_metrics,
    check_outputs,
    command,
    finish_interrupted,
    load_all,
    report,
    say,
)


@command
def compare(
    scenarios: list[Path],
    *,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    as_json: bool = False,
    out_dir: Path | None = None,
    quiet: bool = False,
    detail: bool = False,
    metrics: list[str] | None = None,
    markdown: Path | None = None,
    explain: bool = False,
    out: Any,
    err: Any,
) -> int:
    """Run the files as one comparison, write its reports, print the summary; the exit code."""
    from simulator.compare import CompareError, combine, run_compare

    loaded = load_all(scenarios, err, False)
    try:
        combined, _ = combine(loaded)
    except CompareError as e:
        say(err, f"sim compare: {e}")
        raise Stop(EXIT_INVALID) from e
    check_outputs(out_dir or Path("reports") / "out" / combined.name, markdown, scenarios)
    check_metrics("sim compare", loaded[0], metrics, err)
    progress = Progress(not quiet and sys.stderr.isatty(), "compare", err, announce=not quiet)
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
        say(err, f"note: {note}")
    target = out_dir or Path("reports") / "out" / result.scenario.name
    explanations = _explained(result, explain, trials, threads, quiet, err)
    result = report(
        result,
        target,
        metrics=metrics,
        markdown=markdown,
        as_json=as_json,
        detail=detail,
        out=out,
        explanations=explanations,
    )
    if explanations and not as_json:
        from simulator.commands.explain import print_explanations

        print_explanations(explanations, out, metrics)
    if not result.complete:
        return finish_interrupted(err, "partial results written, marked incomplete")
    return 0


def _explained(
    result: Any, explain: bool, trials: int | None, threads: int | None, quiet: bool, err: Any
) -> list[Any]:
    """``--explain``: each later file's change attributed to the clauses it changes."""
    if not explain:
        return []
    from simulator.commands.explain import for_run

    return for_run(result.scenario, result, trials, threads, quiet, err)
