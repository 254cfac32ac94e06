"""Bench: the 9-turn New World race of Here I Stand, one whole game per trial.

The engine on 1 and 2 threads. There is no numpy-vectorised baseline: a game is a sequential race
(claims, step-downs, pools drawn without replacement) that does not vectorise across trials
without rewriting it as masked lock-step; the plain-Python twin (tests/naive_his_economy.py) is
measured beside it instead. Target from issue 5: at least 1e6 games/s on two threads.
"""

from __future__ import annotations

import time

from bench.harness import Row, engine_rate, plan_for
from simulator.engine import run_range
from simulator.rng import scenario_key
from tests.naive_his_economy import his_new_world

TARGET = 1e6

#: The race of scenarios/his/new_world.yaml: all three powers explore most turns, the Habsburgs
#: conquer from turn 2, every power places a few colonies that roll riches.
PARAMS = {
    "turns": 9,
    "england": {"explorers": [1, 1, 0, 2], "explore": [2, 3, 4, 5, 6, 7, 8, 9], "colonize": [3, 6]},
    "france": {"explorers": [2, 1, 0], "explore": "every", "colonize": [2, 5]},
    "habsburg": {
        "explorers": [4, 1, 1, 0],
        "explore": "every",
        "colonize": [1, 3, 5],
        "conquistadors": [3, 2, 1, 0, 0],
        "conquer": [2, 3, 4, 5, 6, 7, 8, 9],
    },
    "galleons_turn": 4,
}


def python_rate(plan, games: int) -> float:  # type: ignore[no-untyped-def]
    params = plan.variant_params[0].model_dump()
    key = int(scenario_key(plan.seed))
    t0 = time.perf_counter()
    for t in range(games):
        his_new_world(params, key, t)
    return games / (time.perf_counter() - t0)


def cpu_rate(plan, games: int, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Games per CPU-second of the kernel on one thread: on a machine shared with other jobs this
    shows what the code costs, where wall-clock rates show what the machine had to spare."""
    run_range(plan, -1, 0, 1024)
    best = 0.0
    for _ in range(repeat):
        c0 = time.process_time()
        run_range(plan, -1, 0, games)
        best = max(best, games / max(time.process_time() - c0, 1e-9))
    return best


def rows(quick: bool) -> list[Row]:
    plan = plan_for("his.new_world", PARAMS, seed=1492)
    games = 1 << 16 if quick else 1 << 22
    repeat = 3 if quick else 5
    baseline = python_rate(plan, 2_000 if quick else 20_000)
    out = []
    for threads in (1, 2):
        rate = engine_rate(plan, games, threads, repeat)
        out.append(
            Row(
                bench=f"his.new_world 9-turn race, {threads} thread{'s' if threads > 1 else ''}",
                value=rate,
                unit="games/s",
                baseline=baseline,
                baseline_name="plain Python twin",
                target=">= 1e6 games/s on 2 threads" if threads == 2 else "",
                met=(rate >= TARGET) if threads == 2 else None,
            )
        )
    out.append(
        Row(
            bench="his.new_world 9-turn race, per CPU-second of one thread (best of repeats)",
            value=cpu_rate(plan, games, repeat),
            unit="games/CPU-s",
            baseline=baseline,
            baseline_name="plain Python twin (wall)",
        )
    )
    # The same race with every power's choice on 10+ made by the greedy agent, beside the fixed
    # plan's CPU rate above: what deciding costs.
    greedy = plan_for("his.new_world", {**PARAMS, "policies": "greedy"}, seed=1492)
    out.append(
        Row(
            bench="his.new_world 9-turn race, greedy choices, per CPU-second of one thread",
            value=cpu_rate(greedy, games, repeat),
            unit="games/CPU-s",
            baseline=out[-1].value,
            baseline_name="the fixed south_america plan (row above)",
        )
    )
    # The search rungs, every power played by them (budgets of scenarios/his/new_world_agents.yaml
    # and the README's ladder): games per CPU-second, fewer games (a decision costs a search).
    for label, agent in (
        ("rollout(16 playouts to the end)", {"agent": "rollout", "playouts": 16, "horizon": 0}),
        ("mcts(200 iterations to the end)", {"agent": "mcts", "iterations": 200, "horizon": 0}),
    ):
        search = plan_for("his.new_world", {**PARAMS, "policies": agent}, seed=1492)
        out.append(
            Row(
                bench=f"his.new_world 9-turn race, {label} choices, per CPU-second of one thread",
                value=cpu_rate(search, 2_000 if quick else 20_000, repeat),
                unit="games/CPU-s",
                baseline=out[3].value,
                baseline_name="greedy choices (row above)",
            )
        )
    return out


if __name__ == "__main__":
    for row in rows(quick=True):
        print(row)
