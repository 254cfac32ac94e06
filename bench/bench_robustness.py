"""The cost of a verdict's robustness runs beside the plain run, in one process: revisions.yaml
rerun under its four play levels (random → the ladder's rollout), each sized by power within the
section's budget, against its plain run of 2,000 games; how close the announced estimate came to
the time the sized reruns took; and the cost of the fairness bootstrap and the deal batches the
engine keeps for seats (a seat game's plain run with and without batches). Agents are compiled
(or loaded from the cache) before anything is timed."""

from __future__ import annotations

import time
from pathlib import Path

from bench.harness import Row, median_seconds
from simulator.engine import make_plan, simulate
from simulator.report.fairness import fairness
from simulator.robustness.run import budget_for, plan, run_robustness
from simulator.runner import run_scenario
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
REVISIONS = ROOT / "scenarios" / "recruitment" / "revisions.yaml"


def _seconds(fn: object) -> float:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t0


def rows(quick: bool) -> list[Row]:
    scenario = load(REVISIONS)
    trials = 500 if quick else 2000
    levels = plan(scenario)
    budget = 20.0 if quick else budget_for(scenario, None)
    main = run_scenario(scenario, trials=trials)
    run_robustness(scenario, levels, main, seconds=1.0, most=2)  # compile or load every level
    plain = median_seconds(lambda: run_scenario(scenario, trials=trials), 1 if quick else 3)
    held = run_robustness(scenario, levels, main, seconds=budget)
    sized = held.elapsed - held.pilot_seconds
    games = ", ".join(f"{r.level.label.split('(')[0]} {r.planned:,}" for r in held.reruns)
    result = run_scenario(scenario, trials=trials)
    boot = median_seconds(lambda: fairness(result), 3)
    plan_ = make_plan(scenario.procedure, scenario.variants, scenario.seed)
    batched = median_seconds(lambda: simulate(plan_, trials, deal_batches=256), 3)
    free = median_seconds(lambda: simulate(plan_, trials), 3)
    return [
        Row(
            f"revisions.yaml robustness: {len(levels)} play levels sized by power within "
            f"{budget:.0f} s ({games} games; wall, pilots included)",
            held.elapsed,
            "s",
            plain,
            f"the plain run of {trials:,} games",
        ),
        Row(
            "robustness: the sized reruns' time over the estimate announced before them",
            sized / max(held.estimate, 1e-9),
            "x",
            target="between 0.5 and 2",
            met=0.5 <= sized / max(held.estimate, 1e-9) <= 2,
        ),
        Row(
            f"fairness bootstrap of {trials:,} games × 3 variants (2,000 resamples)",
            boot,
            "s",
            plain,
            "the plain run",
        ),
        Row(
            f"plain run of {trials:,} games with 256 deal batches kept",
            batched,
            "s",
            free,
            "the same run without batches",
        ),
    ]
