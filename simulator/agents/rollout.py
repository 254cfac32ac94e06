"""The ``rollout`` rung: flat Monte Carlo.

Every legal move is scored by ``playouts`` playouts: the position as the mover sees it (hidden
state resampled by ``determinize``, afresh for each playout), the move, then the game's default
policy for ``horizon`` rounds (0: to the end), scored by the heuristic (or the result). Playout
``p`` of every move starts from the same determinisation and the same random words, so moves are
compared on common random numbers. The move with the best mean for the mover wins; ties at random.

Leaning on greedy (:mod:`simulator.agents.prior`, each off at 0): ``candidates`` scores only
greedy's best moves, ``prior`` adds greedy's one-step value as that many playouts of each move,
``fallback`` keeps greedy's move unless the winner beats it by more than that many standard
errors of their paired difference. Greedy's values are computed first, on the decision's stream,
before the playouts' words are drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.playout import make_playout, make_search_setup
from simulator.agents.prior import best_index, leans_on_greedy, make_guide, paired_beats
from simulator.agents.spec import AGENT_FALLBACK, AGENT_PLAYOUTS, AGENT_PRIOR
from simulator.jit import closure
from simulator.rng import next_word
from simulator.stopflag import requested


def make_rollout(game: GameFunctions) -> Any:
    """``rollout_move(s, row, rng) -> move`` with the budget of the packed agent ``row``."""
    apply_move, copy_state, determinize = game.apply_move, game.copy_state, game.determinize
    playout = make_playout(game)
    setup = make_search_setup(game)
    guide = make_guide(game)

    @closure
    def rollout_move(s, row, rng):  # pragma: no cover - compiled
        moves, n, horizon, me, scratch, out = setup(s, row)
        if n == 1:
            return moves[0]
        playouts = max(np.int64(row[AGENT_PLAYOUTS]), 1)
        weight = row[AGENT_PRIOR]
        z = row[AGENT_FALLBACK]
        values = np.zeros(n, dtype=np.float64)
        g = -1
        if leans_on_greedy(row):
            g, n = guide(s, moves, n, row, rng, values)
            if n == 1:
                return moves[0]
        totals = np.zeros(n, dtype=np.float64)
        now = np.empty(n, dtype=np.float64)
        diff_sum = np.zeros(n, dtype=np.float64)
        diff_sq = np.zeros(n, dtype=np.float64)
        stream = np.empty(1, dtype=np.uint64)
        for _ in range(playouts):
            if requested():  # a signal: play the best move found so far (the trial is dropped)
                break
            stream[0] = next_word(rng)
            view = determinize(s, me, stream)
            start = stream[0]
            for i in range(n):
                c = copy_state(view)
                stream[0] = start
                apply_move(c, moves[i], stream)
                playout(c, horizon, stream, scratch, out)
                now[i] = out[me]
                totals[i] += out[me]
            if z > 0:
                for i in range(n):
                    d = now[i] - now[g]
                    diff_sum[i] += d
                    diff_sq[i] += d * d
        # (sum + w H) / (playouts + w) ranks as sum + w H: the denominator is every move's.
        for i in range(n):
            totals[i] += weight * values[i]
        b = best_index(totals, n, rng)
        if z > 0 and b != g and not paired_beats(diff_sum[b], diff_sq[b], playouts, z):
            return moves[g]
        return moves[b]

    return rollout_move
