"""Checks every whole game's agents share: positions of random play from fresh deals, and that an
agent plays only legal moves and leaves the position alone.

A game's agents tests pass their own ``start(rng) -> state`` (a fresh deal) and ``decide(s, k) ->
move`` (the agent under test on decision stream ``k``); the legal moves are the game interface's
``legal_moves`` (each game's rules tests check that against its plain-Python twin).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tests import naive_agents as twin


def random_positions(
    game: Any, start: Callable[[np.ndarray], np.ndarray], count: int, steps: int
) -> list[np.ndarray]:
    """``count`` positions of uniform random play: deal ``k`` (stream ``mix64(k + 1)``), then up
    to ``steps`` random moves; positions where the game is over are skipped."""
    moves = np.empty(game.max_moves, dtype=np.int64)
    out = []
    k = 0
    while len(out) < count:
        rng = np.array([twin.mix64(k + 1)], dtype=np.uint64)
        k += 1
        s = start(rng)
        for _ in range(twin.below(rng, steps)):
            if game.is_over(s):
                break
            n = game.legal_moves(s, moves)
            game.apply_move(s, moves[twin.below(rng, n)], rng)
        if not game.is_over(s):
            out.append(s)
    return out


def assert_legal_and_untouched(
    game: Any, decide: Callable[[np.ndarray, int], int], positions: list[np.ndarray]
) -> None:
    """``decide`` returns one of ``legal_moves`` in every position and changes none of them."""
    moves = np.empty(game.max_moves, dtype=np.int64)
    for k, s in enumerate(positions):
        before = s.copy()
        move = decide(s, k)
        n = game.legal_moves(s, moves)
        assert move in moves[:n], f"position {k}: move {move} is not legal"
        assert np.array_equal(s, before), f"position {k}: the agent changed the position"


def assert_ladder_same_on_threads_and_chunks(
    ladder: Any, procedure: Any, mcts_iterations: int, trials: int, chunks: tuple[int, int]
) -> None:
    """A cheap four-rung ladder on the scenario ``ladder`` (its file path): one thread in one
    chunk and two threads in chunks of ``chunks[1]`` give the same statistics, bit for bit, and
    every entrant's win share is reported."""
    from simulator.runner import run_scenario
    from simulator.scenario import load
    from simulator.tournament.procedure import tournament_procedure
    from simulator.tournament.spec import TournamentSpec

    cheap = {
        "random": "random",
        "greedy": "greedy",
        "rollout": {"agent": "rollout", "playouts": 1, "horizon": 1},
        "mcts": {"agent": "mcts", "iterations": mcts_iterations, "horizon": 1},
    }
    scenario = load(ladder)
    scenario.procedure = tournament_procedure(
        procedure, TournamentSpec.model_validate({"agents": cheap})
    )
    one = run_scenario(scenario, trials=trials, threads=1, chunk_size=chunks[0])
    two = run_scenario(scenario, trials=trials, threads=2, chunk_size=chunks[1])
    np.testing.assert_array_equal(one.outcome.stats, two.outcome.stats)
    wins = {m for m in one.estimates["metric"] if m.startswith("agent_wins.")}
    assert wins == {f"agent_wins.{e}" for e in cheap}
