"""council.game (RULES.md §3): full 4-player games of random policies per second.

The candidate is the Numba kernel through the engine on 1 and 2 threads; the baseline beside it
is the plain-Python twin (tests/naive_council.py) playing the same games on one thread. Target
(issue 9): at least 2,000 full games/s on two threads.

The engine is given a chunk size (256 games a job): without one, ``simulate`` first times 4,096
trials to calibrate, which for whole games costs more than the run being measured.
"""

from __future__ import annotations

import time

from bench.harness import Row, median_seconds, plan_for
from simulator.engine import Plan, simulate
from simulator.rng import scenario_key

PARAMS = {"players": 4, "policies": ["random"] * 4}
TARGET = 2000.0
CHUNK = 256


def _twin_rate(games: int) -> float:
    from tests import naive_council

    p = plan_for("council.game", PARAMS).variant_params[0].model_dump()
    key = int(scenario_key(1))
    t0 = time.perf_counter()
    for t in range(games):
        naive_council.play(p, key, t)
    return games / (time.perf_counter() - t0)


def _rate(plan: Plan, games: int, threads: int, repeat: int) -> float:
    secs = median_seconds(lambda: simulate(plan, games, threads=threads, chunk_size=CHUNK), repeat)
    return games / secs


def _cpu_rate(plan: Plan, games: int) -> float:
    """Games per CPU-second of one thread: what the kernel does on an idle core, whatever the
    load of a shared machine (the wall-clock rates are what a user sees now)."""
    simulate(plan, CHUNK, threads=1, chunk_size=CHUNK)
    c0 = time.process_time()
    simulate(plan, games, threads=1, chunk_size=CHUNK)
    return games / (time.process_time() - c0)


def rows(quick: bool) -> list[Row]:
    plan = plan_for("council.game", PARAMS)
    games = 2048 if quick else 16384
    repeat = 1 if quick else 3
    twin = _twin_rate(20 if quick else 100)
    out = []
    for threads in (1, 2):
        rate = _rate(plan, games, threads, repeat)
        out.append(
            Row(
                bench=f"council.game 4 random players, {threads} thread(s)",
                value=rate,
                unit="games/s",
                baseline=twin,
                baseline_name="plain-Python twin",
                target=">= 2000 games/s on 2 threads" if threads == 2 else "",
                met=(rate >= TARGET) if threads == 2 else None,
            )
        )
    out.append(
        Row(
            bench="council.game 4 random players, per CPU-second of 1 thread",
            value=_cpu_rate(plan, games),
            unit="games/cpu-s",
            baseline=twin,
            baseline_name="plain-Python twin",
        )
    )
    return out
