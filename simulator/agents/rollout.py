"""The ``rollout`` rung: flat Monte Carlo.

Every legal move is scored by ``playouts`` playouts: the position as the mover sees it (hidden
state resampled by ``determinize``, afresh for each playout), the move, then uniform random moves
for ``horizon`` rounds (0: to the end) by the game's default policy, scored by the heuristic (or
the result). Playout ``p`` of
every move starts from the same determinisation and the same random words, so moves are compared
on common random numbers. The move with the best mean for the mover wins; ties at random.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.playout import make_playout, make_search_setup
from simulator.agents.spec import AGENT_PLAYOUTS
from simulator.agents.streams import below
from simulator.jit import closure
from simulator.rng import next_word


def make_rollout(game: GameFunctions) -> Any:
    """``rollout_move(s, row, rng) -> move`` with the budget of the packed agent ``row``."""
    apply_move, copy_state, determinize = game.apply_move, game.copy_state, game.determinize
    playout = make_playout(game)
    setup = make_search_setup(game)

    @closure
    def rollout_move(s, row, rng):  # pragma: no cover - compiled
        moves, n, horizon, me, scratch, out = setup(s, row)
        if n == 1:
            return moves[0]
        playouts = max(np.int64(row[AGENT_PLAYOUTS]), 1)
        totals = np.zeros(n, dtype=np.float64)
        stream = np.empty(1, dtype=np.uint64)
        for _ in range(playouts):
            stream[0] = next_word(rng)
            view = determinize(s, me, stream)
            start = stream[0]
            for i in range(n):
                c = copy_state(view)
                stream[0] = start
                apply_move(c, moves[i], stream)
                playout(c, horizon, stream, scratch, out)
                totals[i] += out[me]
        best = -np.inf
        best_move = moves[0]
        ties = 0
        for i in range(n):
            v = totals[i]
            if v > best:
                best = v
                best_move = moves[i]
                ties = 1
            elif v == best:
                ties += 1
                if below(rng, ties) == 0:
                    best_move = moves[i]
        return best_move

    return rollout_move
