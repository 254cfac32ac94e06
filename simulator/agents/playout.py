"""What search agents share: the default policy of playouts, the score of a position, and the
setup of a decision.

A playout is where search spends its time, so it is cut after ``horizon`` rounds and the game's
``heuristic`` scores the position (docs/agents.md, "Cost per rung": truncated playouts with the
heuristic, not full games per iteration); ``horizon`` 0 plays to the end and scores with
``returns``. Its moves come from the game's ``default_move`` (a cheap policy that knows the game,
such as its greedy agent) or, for a game without one, uniformly from ``legal_moves``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.spec import AGENT_HORIZON
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


def make_default_move(game: GameFunctions) -> Any:
    """``default_move(s, moves, rng) -> move``: the game's default policy, or a uniform legal
    move (``moves`` is scratch of length ``max_moves``)."""
    legal_moves = game.legal_moves
    own = game.default_move
    if own is not None:

        @closure
        def game_move(s, moves, rng):  # pragma: no cover - compiled
            return own(s, rng)

        return game_move

    @closure
    def uniform_move(s, moves, rng):  # pragma: no cover - compiled
        n = legal_moves(s, moves)
        return moves[below(rng, n)]

    return uniform_move


def make_playout(game: GameFunctions) -> Any:
    """``playout(s, horizon, rng, moves, out)``: play ``s`` in place by the default policy
    until the end or until ``horizon`` rounds have passed (0: no limit), then score it into
    ``out``. ``moves`` is scratch of length ``max_moves``."""
    is_over, apply_move, round_of = game.is_over, game.apply_move, game.round_of
    score = make_scorer(game)
    default_move = make_default_move(game)

    @closure
    def playout(s, horizon, rng, moves, out):  # pragma: no cover - compiled
        start = round_of(s)
        while not is_over(s):
            if horizon > 0 and round_of(s) - start >= horizon:
                break
            apply_move(s, default_move(s, moves, rng), rng)
        score(s, out)

    return playout


def make_search_setup(game: GameFunctions) -> Any:
    """``setup(s, row) -> (moves, n, horizon, me, scratch, out)``: what every search agent needs
    before its first playout — the legal moves of the seat to move, the packed ``row``'s
    playout horizon, the mover, and scratch for playouts (moves) and their scores (one per
    seat)."""
    legal_moves, to_move, n_seats = game.legal_moves, game.to_move, game.n_seats
    max_moves = game.max_moves

    @closure
    def setup(s, row):  # pragma: no cover - compiled
        moves = np.empty(max_moves, dtype=np.int64)
        n = legal_moves(s, moves)
        horizon = np.int64(row[AGENT_HORIZON])
        scratch = np.empty(max_moves, dtype=np.int64)
        out = np.empty(n_seats(s), dtype=np.float64)
        return moves, n, horizon, to_move(s), scratch, out

    return setup
