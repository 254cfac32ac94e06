"""council.game (RULES.md §3): full 4-player games of random policies per second.

The candidate is the Numba kernel through the engine on 1 and 2 threads; the baseline beside it
is the plain-Python twin (tests/naive_council.py) playing the same games on one thread. Target
(issue 9): at least 2,000 full games/s on two threads.
"""

from __future__ import annotations

import time

from bench.harness import Row, engine_rate, plan_for
from simulator.rng import scenario_key

PARAMS = {"players": 4, "policies": ["random"] * 4}
TARGET = 2000.0


def _twin_rate(games: int) -> float:
    from tests import naive_council

    p = plan_for("council.game", PARAMS).variant_params[0].model_dump()
    key = int(scenario_key(1))
    t0 = time.perf_counter()
    for t in range(games):
        naive_council.play(p, key, t)
    return games / (time.perf_counter() - t0)


def rows(quick: bool) -> list[Row]:
    plan = plan_for("council.game", PARAMS)
    games = 2000 if quick else 20000
    repeat = 1 if quick else 3
    twin = _twin_rate(20 if quick else 100)
    out = []
    for threads in (1, 2):
        rate = engine_rate(plan, games, threads, repeat=repeat)
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
    return out


if __name__ == "__main__":
    for r in rows(quick=True):
        print(r)
