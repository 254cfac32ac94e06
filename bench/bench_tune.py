"""`sim tune` on the field-battle example (scenarios/his/fair_battle.yaml, 18 candidates ×
200,000 trials): wall time and candidates per second, beside evaluating every candidate at the
full trial count as one plan; and the trials the adaptive schedule spends against that."""

from __future__ import annotations

from pathlib import Path

from bench.harness import Row, median_seconds
from simulator.engine import make_plan, simulate
from simulator.scenario import load
from simulator.tune import parse_tune, run_tune
from simulator.tune.search import _propose_all

ROOT = Path(__file__).resolve().parents[1]
FAIR = ROOT / "scenarios" / "his" / "fair_battle.yaml"


def rows(quick: bool) -> list[Row]:
    scenario = load(FAIR)
    spec = parse_tune(scenario)
    trials = scenario.trials // (10 if quick else 1)
    repeat = 1 if quick else 3
    results = []
    tuned = median_seconds(lambda: results.append(run_tune(scenario, trials=trials)), repeat)
    result = results[-1]
    every = _propose_all(scenario, spec, [])
    plan = make_plan(scenario.procedure, {c.name: c.params for c in every}, scenario.seed)
    full = median_seconds(lambda: simulate(plan, trials), repeat)
    n = len(result.candidates)
    share = result.trials_spent / result.trials_full
    return [
        Row(
            f"sim tune fair_battle, {n} candidates, {trials:,} trials (wall, with confirmation)",
            tuned,
            "s",
            full,
            f"every candidate at {trials:,} trials, one plan",
            "minutes or less",
            tuned < 120,
        ),
        Row("sim tune fair_battle: candidates per second", n / tuned, "cand/s"),
        Row(
            "sim tune fair_battle: trials spent / every candidate at full trials",
            share,
            "ratio",
            None,
            "",
            "at most 1/3, same answer",
            share <= 1 / 3,
        ),
    ]
