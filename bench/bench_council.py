"""council.game (Council rules): full 4-player games per second, of random and of greedy players.

The candidate is the Numba kernel through the engine on 1 and 2 threads; the baseline beside the
random players is the plain-Python twin (tests/naive_council.py) playing the same games on one
thread, and beside the greedy players the random players' rate of the same run. Targets: at
least 2,000 full games/s on two threads for random players (issue 9) and for greedy ones (issue
13: "random and greedy keep today's speed").

The engine is given a chunk size (256 games a job): without one, ``simulate`` first times 4,096
trials to calibrate, which for whole games costs more than the run being measured.
"""

from __future__ import annotations

import time

from bench.harness import Row, median_seconds, plan_for
from simulator.engine import Plan, simulate
from simulator.rng import scenario_key

PARAMS = {"players": 4, "policies": ["random"] * 4}
GREEDY = {"players": 4, "policies": ["greedy"] * 4}
#: Searching seats (the game interface, resume by replay): the default scenario's rollout in
#: every seat, and one mcts seat among greedy ones.
ROLLOUT = {"players": 4, "policies": {"agent": "rollout", "playouts": 3, "horizon": 6}}
MCTS = {
    "players": 4,
    "policies": [{"agent": "mcts", "iterations": 24, "horizon": 6}, "greedy", "greedy", "greedy"],
}
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


def _rows(plan: Plan, who: str, games: int, repeat: int, base: float, base_name: str) -> list[Row]:
    """Rows of ``who`` (e.g. "4 random players"): 1 and 2 threads, and per CPU-second."""
    out = []
    for threads in (1, 2):
        rate = _rate(plan, games, threads, repeat)
        out.append(
            Row(
                bench=f"council.game {who}, {threads} thread(s)",
                value=rate,
                unit="games/s",
                baseline=base,
                baseline_name=base_name,
                target=">= 2000 games/s on 2 threads" if threads == 2 else "",
                met=(rate >= TARGET) if threads == 2 else None,
            )
        )
    out.append(
        Row(
            bench=f"council.game {who}, per CPU-second of 1 thread",
            value=_cpu_rate(plan, games),
            unit="games/cpu-s",
            baseline=base,
            baseline_name=base_name,
        )
    )
    return out


def rows(quick: bool) -> list[Row]:
    games = 2048 if quick else 16384
    repeat = 1 if quick else 3
    twin = _twin_rate(20 if quick else 100)
    out = _rows(
        plan_for("council.game", PARAMS),
        "4 random players",
        games,
        repeat,
        twin,
        "plain-Python twin",
    )
    random_cpu = out[-1].value
    greedy = plan_for("council.game", GREEDY)
    name = "4 random players per CPU-second, same run"
    out += _rows(greedy, "4 greedy players", games, repeat, random_cpu, name)
    greedy_cpu = out[-1].value
    for who, params, n in (
        ("4 rollout players", ROLLOUT, 2 if quick else 8),
        ("1 mcts and 3 greedy players", MCTS, 1 if quick else 4),
    ):
        plan = plan_for("council.game", params)
        out.append(
            Row(
                bench=f"council.game {who}, per CPU-second of 1 thread",
                value=_search_cpu_rate(plan, n),
                unit="games/cpu-s",
                baseline=greedy_cpu,
                baseline_name="4 greedy players per CPU-second, same run",
            )
        )
    return out


def _search_cpu_rate(plan: Plan, games: int) -> float:
    """Games per CPU-second of whole games with searching seats (one warm-up game first)."""
    simulate(plan, 1, threads=1, chunk_size=1)
    c0 = time.process_time()
    simulate(plan, games, threads=1, chunk_size=games)
    return games / (time.process_time() - c0)
