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
from simulator.agents.playout import make_scorer
from simulator.agents.streams import below
from simulator.jit import closure
from simulator.rng import next_word


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
    """``greedy_move(s, rng) -> move``: the best move one step ahead by the heuristic."""
    legal_moves, apply_move, copy_state = game.legal_moves, game.apply_move, game.copy_state
    to_move, n_seats, determinize = game.to_move, game.n_seats, game.determinize
    max_moves = game.max_moves
    score = make_scorer(game)

    @closure
    def greedy_move(s, rng):  # pragma: no cover - compiled
        moves = np.empty(max_moves, dtype=np.int64)
        n = legal_moves(s, moves)
        if n == 1:
            return moves[0]
        me = to_move(s)
        out = np.empty(n_seats(s), dtype=np.float64)
        chance = np.empty(1, dtype=np.uint64)
        dice = next_word(rng)
        view = determinize(s, me, rng)
        best = -np.inf
        best_move = moves[0]
        ties = 0
        for i in range(n):
            c = copy_state(view)
            chance[0] = dice
            apply_move(c, moves[i], chance)
            score(c, out)
            v = out[me]
            if v > best:
                best = v
                best_move = moves[i]
                ties = 1
            elif v == best:
                ties += 1
                if below(rng, ties) == 0:
                    best_move = moves[i]
        return best_move

    return greedy_move
