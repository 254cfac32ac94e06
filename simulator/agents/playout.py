"""The default policy of search agents: uniform random moves for a horizon, then a score.

A playout is where search spends its time, so it is cut after ``horizon`` rounds and the game's
``heuristic`` scores the position (ARCHITECTURE.md: "truncated playouts with the heuristic, not
full games per iteration"); ``horizon`` 0 plays to the end and scores with ``returns``.
"""

from __future__ import annotations

from typing import Any

from simulator.agents.game import GameFunctions
from simulator.agents.streams import below
from simulator.jit import closure


def make_scorer(game: GameFunctions) -> Any:
    """``score(s, out)``: ``returns`` when the game is over, ``heuristic`` otherwise."""
    is_over, returns, heuristic = game.is_over, game.returns, game.heuristic

    @closure
    def score(s, out):  # pragma: no cover - compiled
        if is_over(s):
            returns(s, out)
        else:
            heuristic(s, out)

    return score


def make_playout(game: GameFunctions) -> Any:
    """``playout(s, horizon, rng, moves, out)``: play ``s`` in place with uniform random moves
    until the end or until ``horizon`` rounds have passed (0: no limit), then score it into
    ``out``. ``moves`` is scratch of length ``max_moves``."""
    is_over, legal_moves, apply_move = game.is_over, game.legal_moves, game.apply_move
    round_of = game.round_of
    score = make_scorer(game)

    @closure
    def playout(s, horizon, rng, moves, out):  # pragma: no cover - compiled
        start = round_of(s)
        while not is_over(s):
            if horizon > 0 and round_of(s) - start >= horizon:
                break
            n = legal_moves(s, moves)
            apply_move(s, moves[below(rng, n)], rng)
        score(s, out)

    return playout
