"""Body of ``sim explain``, and the explanations ``sim compare --explain`` and a scenario's
``explain: true`` add to a run: which clause moved each changed metric (docs/why.md)."""

from __future__ import annotations

import dataclasses
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
    load,
    report,
    say,
)


def prepared_for(
    scenario: Any, pairs: list[tuple[str, str]], trials: int | None, err: Any
) -> list[Any]:
    """The designs of ``(variant, against)`` pairs; exit 2 with the reason when one cannot be
    explained."""
    from simulator.explain.clauses import ExplainError
    from simulator.explain.run import prepare

    try:
        return [prepare(scenario, v, a, trials) for v, a in pairs]
    except ExplainError as e:
        say(err, f"sim explain: {e}")
        raise Stop(EXIT_INVALID) from e


def play_all(prepared: list[Any], threads: int | None, quiet: bool, err: Any) -> list[Any]:
    """Announce the cost (measured), then play every design; Ctrl-C keeps what finished."""
    from simulator.compiling import duration
    from simulator.explain.run import measure, play

    if not prepared:
        return []
    seconds = sum(measure(p, threads) for p in prepared)
    games = sum(p.games for p in prepared)
    parts = "; ".join(
        f"{p.variant}: {len(p.difference.clauses)} clauses, {len(p.design.cells)} combinations "
        f"× {p.trials:,} trials"
        for p in prepared
    )
    if not quiet:
        say(err, f"explain: {parts} = {games:,} games, about {duration(seconds)} (measured)")
    done: list[Any] = []
    for p in prepared:
        bar = Progress(not quiet and sys.stderr.isatty(), f"explain {p.variant}", err)
        try:
            ex = play(p, threads=threads, on_progress=bar)
        finally:
            bar.close()
        done.append(ex)
        if not ex.complete:
            break
    return done


def print_explanations(explanations: list[Any], out: Any, metrics: list[str] | None = None) -> None:
    """Each explanation's lines, its metrics narrowed to ``--metrics`` (summary.json keeps all)."""
    from simulator.explain.render import lines
    from simulator.report.summary import matches

    for ex in explanations:
        if metrics:
            kept = [m for m in ex.effects if matches(m.metric, metrics)]
            ex = dataclasses.replace(ex, effects=kept)
        for line in lines(ex):
            say(out, line)


@command
def explain(
    scenario: Path,
    *,
    variant: str | None = None,
    against: str | None = None,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    out_dir: Path | None = None,
    quiet: bool = False,
    metrics: list[str] | None = None,
    out: Any,
    err: Any,
) -> int:
    """Explain each chosen variant against the first (or ``against``): run the comparison, then
    every combination of the clauses that differ; print and write the reports."""
    from simulator.explain.run import comparison
    from simulator.runner import run_scenario

    loaded = load(scenario, err)
    if seed is not None:
        loaded.seed = seed
    names = list(loaded.variants)
    reference = against or names[0]
    chosen = [variant] if variant else [n for n in names if n != reference]
    if not chosen:
        say(err, f"sim explain: {scenario} has no variant to explain (add `variants:`)")
        raise Stop(EXIT_INVALID)
    check_metrics("sim explain", loaded, metrics, err)
    prepared = prepared_for(loaded, [(v, reference) for v in chosen], trials, err)
    target = out_dir or Path("reports") / "out" / loaded.name
    check_outputs(target, None, [scenario])
    keep = [reference, *[v for v in chosen if v != reference]]
    narrowed = dataclasses.replace(
        loaded, variants={k: loaded.variants[k] for k in keep}, points=[]
    )
    explanations = play_all(prepared, threads, quiet, err)
    if explanations and not explanations[-1].complete:
        print_explanations(explanations, out, metrics)
        return finish_interrupted(err, "the combinations' finished trials were explained")
    if len(explanations) == 1:
        # The comparison is the first and the last cell: not played again.
        result = comparison(loaded, explanations[0])
    else:
        progress = Progress(not quiet and sys.stderr.isatty(), loaded.name, err, announce=not quiet)
        try:
            result = run_scenario(narrowed, trials=trials, threads=threads, on_progress=progress)
        finally:
            progress.close()
    result = report(
        result,
        target,
        metrics=metrics,
        markdown=None,
        as_json=False,
        detail=False,
        out=out,
        explanations=explanations,
    )
    print_explanations(explanations, out, metrics)
    if not result.complete:
        return finish_interrupted(err, "partial results written, marked incomplete")
    return 0


def for_run(
    scenario: Any, result: Any, trials: int | None, threads: int | None, quiet: bool, err: Any
) -> list[Any]:
    """Every later variant explained against the first (``explain: true``, ``--explain``), or
    none when the run is a sweep, has one variant or was interrupted."""
    names = list(result.plan.variant_names)
    if result.is_sweep or len(names) < 2 or not result.complete or scenario.raw.get("tournament"):
        return []
    prepared = prepared_for(scenario, [(v, names[0]) for v in names[1:]], trials, err)
    return play_all(prepared, threads, quiet, err)
