"""What the search rungs borrow from greedy: the one-step values of the moves, greedy's own choice
among them, pruning to greedy's best candidates, and the test that keeps greedy's move when search
cannot beat it.

A search agent that samples a few noisy playouts per move and plays the best mean picks the move
that was luckiest, not the best (the winner's curse of a max over many noisy means), whereas
greedy's one-step value is exact. Three knobs of :class:`simulator.agents.spec.AgentSpec` let
search start from what greedy knows, each a well-known remedy:

- ``candidates`` k — progressive pruning (Chaslot et al. 2008): only greedy's k best moves by
  one-step value are searched, greedy's own choice always first; k = 1 plays greedy's move;
- ``prior`` w — the one-step value counts as w playouts of each move (prior knowledge as
  virtual visits, Gelly and Silver 2007): rollout scores ``(sum + w H) / (playouts + w)``, mcts
  scores its root children so;
- ``fallback`` z — the final-move rule: search's choice is played only if it beats greedy's
  choice by more than z standard errors of their difference (rollout: paired over its playouts,
  which share their random numbers; mcts: the two root children's independent means); otherwise
  greedy's choice.

The one-step values are the game's ``move_values`` (the values its greedy agent ranks moves by)
or, for a game without one, the generic greedy's: the move on a copy of a determinisation, the
chance that follows on the same random words for every move, the heuristic (or the result) for
the mover. Greedy's choice is their best, ties broken as greedy breaks them, on the same words:
with every knob at 0 nothing here runs and no random word is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.playout import make_scorer
from simulator.agents.spec import AGENT_CANDIDATES, AGENT_FALLBACK, AGENT_PRIOR
from simulator.agents.streams import below
from simulator.jit import closure, inline, leaf
from simulator.rng import next_word


def make_move_values(game: GameFunctions) -> Any:
    """``move_values(s, moves, n, rng, out)``: the game's own, or the generic greedy's (the
    module docstring): one word for the chance that follows, then a determinisation."""
    if game.move_values is not None:
        return game.move_values
    apply_move, copy_state, determinize = game.apply_move, game.copy_state, game.determinize
    to_move, n_seats = game.to_move, game.n_seats
    score = make_scorer(game)

    @closure
    def generic_values(s, moves, n, rng, out):  # pragma: no cover - compiled
        me = to_move(s)
        res = np.empty(n_seats(s), dtype=np.float64)
        chance = np.empty(1, dtype=np.uint64)
        dice = next_word(rng)
        view = determinize(s, me, rng)
        for i in range(n):
            c = copy_state(view)
            chance[0] = dice
            apply_move(c, moves[i], chance)
            score(c, res)
            out[i] = res[me]

    return generic_values


@inline
def best_index(values, n, rng):
    """Index of the best of ``values[:n]``, ties broken uniformly at random as greedy breaks
    them (reservoir sampling in order: the k-th tied value takes the pick when
    ``below(word, k) == 0``, one word per tie met)."""
    best = -np.inf
    pick = 0
    ties = 0
    for i in range(n):
        v = values[i]
        if v > best:
            best = v
            pick = i
            ties = 1
        elif v == best:
            ties += 1
            if below(rng, ties) == 0:
                pick = i
    return pick


@leaf
def leans_on_greedy(row):
    """Whether the packed agent ``row`` sets any of ``candidates``, ``prior``, ``fallback``."""
    return row[AGENT_CANDIDATES] > 0 or row[AGENT_PRIOR] > 0 or row[AGENT_FALLBACK] > 0


@leaf
def _ranks_before(values, i, j):
    """Whether move ``i`` comes before move ``j`` by value: the higher first, then the earlier
    (NaN after every number, as a stable sort of the negated values puts it)."""
    a = values[i]
    b = values[j]
    if a > b or (np.isnan(b) and not np.isnan(a)):
        return True
    if b > a or (np.isnan(a) and not np.isnan(b)):
        return False
    return i < j


@leaf
def next_by_value(values, n, g, last):
    """The move after ``last`` (-1: the first) in order of value among ``values[:n]`` without
    ``g``: the best value first, ties in move order, as the moves of a stable sort by value.
    One pass over the moves, so that pruning to k candidates takes k passes and compiles no
    sort (Numba's ``argsort`` and slice assignment compiled about a second of every game)."""
    pick = -1
    for i in range(n):
        if i == g or (last >= 0 and not _ranks_before(values, last, i)):
            continue
        if pick < 0 or _ranks_before(values, i, pick):
            pick = i
    return pick


def make_guide(game: GameFunctions) -> Any:
    """``guide(s, moves, n, row, rng, values) -> (g, n)``: fill ``values[:n]`` with the moves'
    one-step values and find greedy's choice ``g`` (an index); with ``candidates`` k of the
    packed ``row`` below ``n``, reorder ``moves`` and ``values`` in place to greedy's choice
    first, then the other moves by value (best first, ties in their order), and keep k:
    ``(0, k)``. Otherwise ``(g, n)``, the moves untouched."""
    move_values = make_move_values(game)

    @closure
    def guide(s, moves, n, row, rng, values):  # pragma: no cover - compiled
        move_values(s, moves, n, rng, values)
        g = best_index(values, n, rng)
        k = np.int64(row[AGENT_CANDIDATES])
        if k <= 0 or k >= n:
            return g, n
        kept_moves = np.empty(k, dtype=np.int64)
        kept_values = np.empty(k, dtype=np.float64)
        kept_moves[0] = moves[g]
        kept_values[0] = values[g]
        last = -1
        for j in range(1, k):
            last = next_by_value(values, n, g, last)
            kept_moves[j] = moves[last]
            kept_values[j] = values[last]
        for j in range(k):
            moves[j] = kept_moves[j]
            values[j] = kept_values[j]
        return 0, k

    return guide


@leaf
def _variance(total, sq, count):
    """The sample variance of ``count`` values (at least two) from their sum and sum of squares,
    never below 0 (rounding)."""
    mean = total / count
    return max((sq - count * mean * mean) / (count - 1), 0.0)


@leaf
def paired_beats(diff_sum, diff_sq, count, z):
    """Whether the mean of ``count`` paired differences (their sum and sum of squares) is above
    ``z`` standard errors of it. Fewer than two: cannot tell, so no."""
    if count < 2:
        return False
    return diff_sum / count > z * np.sqrt(_variance(diff_sum, diff_sq, count) / count)


@leaf
def means_beat(sum_a, sq_a, n_a, sum_b, sq_b, n_b, z):
    """Whether sample a's mean (its sum, sum of squares, size) is above sample b's by more than
    ``z`` standard errors of the difference of two independent means. A sample of fewer than
    two: no (b unsampled: yes)."""
    if n_b == 0:
        return True
    if n_a < 2 or n_b < 2:
        return False
    var_a = _variance(sum_a, sq_a, n_a)
    var_b = _variance(sum_b, sq_b, n_b)
    return sum_a / n_a - sum_b / n_b > z * np.sqrt(var_a / n_a + var_b / n_b)
