"""The two bottom rungs: ``random`` (uniform over legal moves) and ``greedy`` (one-step lookahead).

``greedy`` plays every legal move on a copy of the position as the mover sees it (hidden state
resampled by ``determinize``), runs the chance events that follow with the same random words for
every move (so moves are compared on the same dice), and keeps the move whose position the game's
``heuristic`` (or ``returns``, when the move ends the game) rates best for the mover; equal
ratings are broken uniformly at random.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.prior import best_index, make_move_values
from simulator.agents.streams import below
from simulator.jit import closure


def make_random(game: GameFunctions) -> Any:
    """``random_move(s, rng) -> move``: uniform over the legal moves of the seat to move."""
    legal_moves = game.legal_moves
    max_moves = game.max_moves

    @closure
    def random_move(s, rng):  # pragma: no cover - compiled
        moves = np.empty(max_moves, dtype=np.int64)
        n = legal_moves(s, moves)
        return moves[below(rng, n)]

    return random_move


def make_greedy(game: GameFunctions) -> Any:
    """``greedy_move(s, rng) -> move``: the best move one step ahead by the heuristic (the
    game's ``move_values`` where it gives them, :func:`simulator.agents.prior.make_move_values`)."""
    legal_moves = game.legal_moves
    max_moves = game.max_moves
    move_values = make_move_values(game)

    @closure
    def greedy_move(s, rng):  # pragma: no cover - compiled
        moves = np.empty(max_moves, dtype=np.int64)
        n = legal_moves(s, moves)
        if n == 1:
            return moves[0]
        values = np.empty(n, dtype=np.float64)
        move_values(s, moves, n, rng, values)
        return moves[best_index(values, n, rng)]

    return greedy_move
