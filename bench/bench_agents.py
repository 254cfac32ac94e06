"""The skill ladder's cost: microseconds per decision and games per second for each rung, side by
side in one run, and the projected time of a 500-deal ladder tournament on two threads.

Games: ``recruitment.loyalty`` (the game of scenarios/recruitment/ladder.yaml, through its decision
hook ``policy.choose_move``), ``council.game`` (scenarios/council/ladder.yaml; its random and greedy
play inside the phases, so only rollout and mcts are timed per decision, through
``kernel.search_move``, beside the random rung's decision as the interface plays it) and the
hand-hidden Nim test game (tests/toy_game.py). Decisions are
timed on positions reached by random play from fresh deals (CPU time of this thread, so busy
neighbours count less).
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.harness import Row

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: The budgets of scenarios/recruitment/ladder.yaml (kept equal by hand; docs/agents.md).
LADDER = {
    "random": {"agent": "random"},
    "greedy": {"agent": "greedy"},
    "rollout": {"agent": "rollout", "playouts": 8, "horizon": 0, "candidates": 4, "fallback": 2},
    "mcts": {
        "agent": "mcts",
        "iterations": 300,
        "horizon": 0,
        "candidates": 4,
        "prior": 10,
        "fallback": 2,
    },
}
DEALS = 500
BUDGET_SECONDS = 600.0


def _positions(game: Any, start: Any, count: int, seed: int = 1) -> list[np.ndarray]:
    """Positions of random play: ``start(rng)`` deals, then a random number of random moves."""
    from simulator.agents.streams import below

    out = []
    moves = np.empty(game.max_moves, dtype=np.int64)
    rng = np.array([seed], dtype=np.uint64)
    while len(out) < count:
        s = start(rng)
        for _ in range(int(below(rng, 40))):
            if game.is_over(s):
                break
            n = game.legal_moves(s, moves)
            game.apply_move(s, moves[int(below(rng, n))], rng)
        if not game.is_over(s):
            out.append(s)
    return out


def _per_decision(choose: Any, positions: list[np.ndarray], spec: dict[str, Any]) -> float:
    """Median over 3 repeats of CPU seconds per decision on ``positions``."""
    from simulator.agents.spec import AgentSpec, pack_agents

    row = pack_agents([AgentSpec.model_validate(spec)])[0]
    rng = np.zeros(1, dtype=np.uint64)
    choose(positions[0], row, rng)  # compile
    times = []
    for _ in range(3):
        t0 = time.thread_time()
        for k, s in enumerate(positions):
            rng[0] = np.uint64(k + 1)
            choose(s, row, rng)
        times.append((time.thread_time() - t0) / len(positions))
    return statistics.median(times)


def _games_per_second(proc: Any, params: dict[str, Any], games: int) -> float:
    from simulator.engine import make_plan, run_range

    p = proc.params_model.model_validate(params)
    plan = make_plan(proc, {"base": p}, 1)
    run_range(plan, -1, 0, 1)
    t0 = time.thread_time()
    run_range(plan, -1, 0, games)
    return games / max(time.thread_time() - t0, 1e-9)


def _tournament_seconds(
    proc: Any, params: dict[str, Any], deals: int, ladder: dict[str, Any] | None = None
) -> float:
    """CPU seconds per deal of the ladder tournament (every seating), one thread."""
    from simulator.engine import make_plan, run_range
    from simulator.tournament.procedure import tournament_procedure
    from simulator.tournament.spec import TournamentSpec

    spec = {"agents": ladder or LADDER}
    t = tournament_procedure(proc, TournamentSpec.model_validate(spec))
    plan = make_plan(t, {"base": proc.params_model.model_validate(params)}, 1)
    run_range(plan, -1, 0, 1)
    t0 = time.thread_time()
    run_range(plan, -1, 0, deals)
    return (time.thread_time() - t0) / deals


def _decision_row(
    label: str, rung: str, spec: dict[str, Any], cost: float, base: float, name: str
) -> Row:
    return Row(
        f"{label}: {rung} ({_budget(spec)}), per decision", cost * 1e6, "µs", base * 1e6, name
    )


def _games_and_ladder_rows(
    label: str,
    proc: Any,
    params: dict[str, Any],
    ladder: dict[str, Any],
    games: dict[str, int],
    deals: int,
) -> list[Row]:
    """Games per CPU-second with every seat one rung (``games[rung]`` games), then the 500-deal
    ladder projected from ``deals`` deals."""
    out = []
    for rung, spec in ladder.items():
        rate = _games_per_second(proc, {**params, "policies": spec}, games[rung])
        out.append(Row(f"{label}: every seat {rung}, games per CPU-second", rate, "games/s"))
    projected = _tournament_seconds(proc, params, deals, ladder) * DEALS / 2
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


def _game_rows(
    label: str,
    proc: Any,
    game: Any,
    choose: Any,
    start: Any,
    params: dict[str, Any],
    seats: int,
    quick: bool,
) -> list[Row]:
    out = []
    positions = _positions(game, start, 20 if quick else 100)
    random_cost = _per_decision(choose, positions, LADDER["random"])
    for rung, spec in LADDER.items():
        cost = _per_decision(choose, positions, spec)
        out.append(_decision_row(label, rung, spec, cost, random_cost, "random, same positions"))
    div = 10 if quick else 1
    games = {"random": 2000, "greedy": 500, "rollout": 20, "mcts": 10}
    games = {k: max(v // div, 2) for k, v in games.items()}
    out += _games_and_ladder_rows(label, proc, params, LADDER, games, 2 if quick else 8)
    return out


def _budget(spec: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in spec.items() if k != "agent") or "no budget"


def _toy() -> tuple[Any, ...]:
    nim = importlib.import_module("tests.toy_game")
    row = nim.pack(nim.NimParams(seats=2, pile=21, deck=8, add_permille=100))

    def start(rng: np.ndarray) -> np.ndarray:
        return nim.deal(row, rng)

    params = {"seats": 2, "pile": 21, "deck": 8, "add_permille": 100}
    return "hand-hidden Nim", nim.PROCEDURE, nim.GAME, nim.choose, start, params, 2


def _recruitment() -> tuple[Any, ...]:
    import yaml

    from simulator import procedures
    from simulator.procedures.recruitment.loyalty.game import GAME
    from simulator.procedures.recruitment.loyalty.packing import pack
    from simulator.procedures.recruitment.loyalty.phases import start_game
    from simulator.procedures.recruitment.loyalty.policy import choose_move
    from simulator.procedures.recruitment.loyalty.state import STATE_SIZE

    proc = procedures.get("recruitment.loyalty")
    with open(Path(ROOT) / "scenarios/recruitment/ladder.yaml") as f:
        params = yaml.safe_load(f)["params"]
    row = pack(proc.params_model.model_validate(params))

    def start(rng: np.ndarray) -> np.ndarray:
        s = np.zeros(STATE_SIZE, dtype=np.int64)
        start_game(s, row, rng)
        return s

    return "recruitment 4x10", proc, GAME, choose_move, start, params, 4


def _council_ladder() -> tuple[dict[str, Any], dict[str, Any]]:
    """The params and the entrants of scenarios/council/ladder.yaml."""
    import yaml

    with open(Path(ROOT) / "scenarios/council/ladder.yaml") as f:
        data = yaml.safe_load(f)
    entrants = data["tournament"]["agents"]
    agents = {k: {"agent": v} if isinstance(v, str) else v for k, v in entrants.items()}
    return data["params"], agents


def _council_rows(quick: bool) -> list[Row]:
    """council.game: per decision for the search rungs (random: the interface's own draw, as a
    baseline), games per CPU-second with every seat one rung, the projected ladder."""
    from simulator import procedures
    from simulator.agents.streams import below
    from simulator.procedures.council.game import interface
    from simulator.procedures.council.game.kernel import search_move
    from simulator.procedures.council.game.params import pack

    label = "council 4p"
    proc = procedures.get("council.game")
    params, ladder = _council_ladder()
    row = pack(proc.params_model.model_validate({**params, "policies": "rollout"}))

    def start(rng: np.ndarray) -> np.ndarray:
        return interface.start(row, 0, rng)

    positions = _positions(interface.GAME, start, 10 if quick else 40)

    def random_move(s: np.ndarray, agent_row: np.ndarray, rng: np.ndarray) -> int:
        return int(below(rng, interface.legal_moves(s, np.empty(512, dtype=np.int64))))

    random_cost = _per_decision(random_move, positions, ladder["random"])
    out = []
    for rung in ("rollout", "mcts"):
        cost = _per_decision(search_move, positions, ladder[rung])
        name = "a random draw from Python, same positions"
        out.append(_decision_row(label, rung, ladder[rung], cost, random_cost, name))
    games = {"random": 400, "greedy": 400, "rollout": 4, "mcts": 4}
    games = {k: max(v // (4 if quick else 1), 1) for k, v in games.items()}
    out += _games_and_ladder_rows(label, proc, params, ladder, games, 2 if quick else 6)
    return out


def games() -> list[tuple[Any, ...]]:
    return [_recruitment(), _toy()]


def rows(quick: bool) -> list[Row]:
    out = []
    for setup in games():
        out += _game_rows(*setup, quick)
    out += _council_rows(quick)
    return out
