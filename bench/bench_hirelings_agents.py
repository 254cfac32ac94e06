"""root.hirelings' skill ladder: cost per decision and games per second of each rung, and the
projected time of a 500-deal ladder tournament (scenarios/root/ladder.yaml) on two threads.

Decisions are timed through the game's decision hook ``hirelings.choose_move`` (random and greedy
are the module's own spenders, reading the game stream; rollout and mcts the generic search
agents), called from Python: the random and greedy figures include a few µs of call overhead.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import Row

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

LADDER_FILE = "scenarios/root/ladder.yaml"
DEALS = 500
BUDGET_SECONDS = 600.0


def _setup() -> tuple[Any, ...]:
    import yaml

    from simulator import procedures
    from simulator.procedures.root.hirelings import choose_move, pack
    from simulator.procedures.root.hirelings.game import GAME
    from simulator.procedures.root.hirelings.state import STATE_SIZE, start_game

    proc = procedures.get("root.hirelings")
    with open(Path(ROOT) / LADDER_FILE) as f:
        doc = yaml.safe_load(f)
    params, ladder = doc["params"], doc["tournament"]["agents"]
    row = pack(proc.params_model.model_validate(params))

    def start(rng: np.ndarray) -> np.ndarray:
        s = np.zeros(STATE_SIZE, dtype=np.int64)
        start_game(s, row, rng)
        return s

    game_rng = np.zeros(1, dtype=np.uint64)

    def choose(s: np.ndarray, agent_row: np.ndarray, rng: np.ndarray) -> int:
        game_rng[0] = rng[0]
        return int(choose_move(s, agent_row, game_rng, rng))

    ladder = {k: ({"agent": v} if isinstance(v, str) else v) for k, v in ladder.items()}
    return proc, GAME, choose, start, params, ladder


def rows(quick: bool) -> list[Row]:
    from bench import bench_agents as ba
    from simulator.engine import make_plan, run_range
    from simulator.tournament.procedure import tournament_procedure
    from simulator.tournament.spec import TournamentSpec

    proc, game, choose, start, params, ladder = _setup()
    label = "root.hirelings 3x10"
    positions = ba._positions(game, start, 20 if quick else 100)
    random_cost = ba._per_decision(choose, positions, ladder["random"])
    out = []
    for rung, spec in ladder.items():
        cost = ba._per_decision(choose, positions, spec)
        out.append(
            Row(
                f"{label}: {rung} ({ba._budget(spec)}), per decision",
                cost * 1e6,
                "µs",
                random_cost * 1e6,
                "random, same positions",
            )
        )
    for rung, spec in ladder.items():
        games = {"random": 20000, "greedy": 20000, "rollout": 20, "mcts": 10}[rung]
        games = max(games // (10 if quick else 1), 2)
        rate = ba._games_per_second(proc, {**params, "policies": spec}, games)
        out.append(Row(f"{label}: every seat {rung}, games per CPU-second", rate, "games/s"))
    t = tournament_procedure(proc, TournamentSpec.model_validate({"agents": ladder}))
    plan = make_plan(t, {"base": proc.params_model.model_validate(params)}, 1)
    run_range(plan, -1, 0, 1)
    import time

    deals = 2 if quick else 8
    t0 = time.thread_time()
    run_range(plan, -1, 0, deals)
    projected = (time.thread_time() - t0) / deals * DEALS / 2
    out.append(
        Row(
            f"{label}: {DEALS}-deal ladder tournament on 2 threads (projected)",
            projected,
            "s",
            target=f"< {BUDGET_SECONDS:.0f} s",
            met=projected < BUDGET_SECONDS,
        )
    )
    return out
