"""The battle table sweep: 100 points (1–10 × 1–10 units) × 1e5 trials, end to end through the
runner (one plan per point, statistics per point), beside the same 1e7 trials of the largest
battle as one plan (what the sweep would cost with no per-point overhead)."""

from __future__ import annotations

from pathlib import Path

from bench.harness import Row, median_seconds, plan_for
from simulator.engine import simulate
from simulator.runner import run_scenario
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "scenarios" / "his" / "battle_table.yaml"
TEN_V_TEN = {"attacker": {"units": 10, "leader": 0}, "defender": {"units": 10, "leader": 0}}


def rows(quick: bool) -> list[Row]:
    scenario = load(TABLE)
    trials = scenario.trials  # 1e5 per point
    points = len(scenario.points)
    repeat = 1 if quick else 3
    sweep = median_seconds(lambda: run_scenario(scenario, trials=trials), repeat)
    plan = plan_for("his.field_battle", TEN_V_TEN)
    single = median_seconds(lambda: simulate(plan, trials * points), repeat)
    return [
        Row(
            f"battle table sweep, {points} points × {trials:.0e} trials (wall)",
            sweep,
            "s",
            single,
            f"one plan of {points * trials:.0e} trials 10v10",
            "seconds (< 3 s)",
            sweep < 3,
        )
    ]
