"""root.hirelings' game interface (``GAME`` for simulator.agents) and its own random and greedy.

- ``returns``: win share (highest score; ties split) plus a tie-break term, the score's share of
  the table scaled into ``[0, 1e-3)``;
- ``heuristic``: each seat's score projected to the end (rounds left times the mean round gain
  plus ``hireling_points`` per hireling it holds now), turned into win chances by a softmax whose
  temperature grows with the square root of the rounds left (the luck still to come);
- no ``determinize``: every hireling, protection and score is public (``info`` says so), so a
  seat's view is a plain copy; the future dice are chance events, drawn by ``apply_move``.

``legacy_move`` is how the ``random`` and ``greedy`` rungs play this game (the kernel's own
policies, kept bit for bit from before the game interface so the twin and baseline still hold):
random buys uniformly among the legal purchases, drawing from the GAME stream, until none is
left (it never passes early); greedy takes the cheapest hireling, from the score leader first,
else protects its own, else unprotects the leader's when it could then take it, else passes,
and gives the second Diplomat to the lowest-scoring enemy. It does NOT read ``hireling_points``:
it is the hand-written rung, not a one-step lookahead (docs/root.md).
"""

from __future__ import annotations

import math

import numpy as np

from simulator.agents.game import GameFunctions, GameInfo, flat_deal
from simulator.agents.softmax import soft_shares
from simulator.jit import inline, kernel
from simulator.procedures.root.hirelings.state import (
    DIPLOMAT,
    GAIN_CUMULATIVE,
    GAIN_N,
    GAIN_POINTS,
    GAIN_ROW,
    GAIN_TOTAL,
    H_INFLUENCE,
    H_NHIRE,
    H_OVER,
    H_PLAYERS,
    H_POINTS,
    H_ROUND,
    H_ROUNDS,
    H_SEAT,
    MAX_HIRELINGS,
    MAX_MOVES,
    MAX_SEATS,
    PASS,
    S_COST,
    S_GAIN,
    S_HOLDER,
    S_KIND,
    S_SCORE,
    STATE_SIZE,
    TAKE,
    apply_move,
    copy_state,
    is_over,
    legal_moves,
    n_seats,
    purchase_kind,
    round_of,
    start_game,
    to_move,
    uniform,
)

#: Agent codes (simulator.agents.spec.AGENT_CODES) played by ``legacy_move``.
RANDOM, GREEDY = 0, 1


@kernel
def returns(s, out):
    players = s[H_PLAYERS]
    best = -1
    n_top = 0
    total = 0
    for o in range(players):
        v = s[S_SCORE + o]
        total += v
        if v > best:
            best = v
            n_top = 1
        elif v == best:
            n_top += 1
    for o in range(players):
        win = 1.0 / n_top if s[S_SCORE + o] == best else 0.0
        out[o] = win + 0.999e-3 * s[S_SCORE + o] / (total + 1)


@inline
def mean_gain(s, seat):
    g = S_GAIN + seat * GAIN_ROW
    prev = 0
    total = 0.0
    for k in range(s[g + GAIN_N]):
        w = s[g + GAIN_CUMULATIVE + k]
        total += s[g + GAIN_POINTS + k] * (w - prev)
        prev = w
    return total / s[g + GAIN_TOTAL]


@kernel
def heuristic(s, out):
    players = s[H_PLAYERS]
    if s[H_OVER]:
        returns(s, out)
        return
    left = s[H_ROUNDS] - s[H_ROUND]
    held = np.zeros(MAX_SEATS, dtype=np.int64)
    for h in range(s[H_NHIRE]):
        if s[S_HOLDER + h] >= 0:
            held[s[S_HOLDER + h]] += 1
    best = -1e18
    for o in range(players):
        out[o] = s[S_SCORE + o] + left * (mean_gain(s, o) + s[H_POINTS] * held[o])
        best = max(best, out[o])
    temperature = 1.0 + math.sqrt(left)
    soft_shares(out, players, best, temperature)


GAME = GameFunctions(
    copy_state=copy_state,
    to_move=to_move,
    legal_moves=legal_moves,
    apply_move=apply_move,
    is_over=is_over,
    returns=returns,
    heuristic=heuristic,
    round_of=round_of,
    n_seats=n_seats,
    max_moves=MAX_MOVES,
    info=GameInfo(seats=MAX_SEATS, max_moves=MAX_MOVES, hidden_information=False, chance=True),
)


#: A new game from the packed row, up to its first decision (for tests and tools).
deal = flat_deal(STATE_SIZE, start_game)


@inline
def _gift_code(h, gift):
    return (TAKE * MAX_HIRELINGS + h) * MAX_SEATS + gift


@inline
def legacy_move(s, kind, rng):
    """The random or greedy rung's move (module docstring); ``rng`` is the GAME stream."""
    seat = s[H_SEAT]
    players = s[H_PLAYERS]
    n_hire = s[H_NHIRE]
    influence = s[H_INFLUENCE]
    if kind == RANDOM:
        n = 0
        for h in range(n_hire):
            for what in range(3):
                n += purchase_kind(s, h, seat, what)
        j = uniform(rng, n)
        for h in range(n_hire):
            for what in range(3):
                if purchase_kind(s, h, seat, what):
                    if j == 0:
                        if what == TAKE and s[S_KIND + h] == DIPLOMAT:
                            gift = uniform(rng, players - 1)
                            gift += gift >= seat
                            return _gift_code(h, gift)
                        return (what * MAX_HIRELINGS + h) * MAX_SEATS
                    j -= 1
        return PASS
    # Greedy: take the cheapest, from the highest-scoring holder first (the supply lowest).
    choice = -1
    best_key = -1
    for h in range(n_hire):
        if purchase_kind(s, h, seat, TAKE):
            owner = s[S_SCORE + s[S_HOLDER + h]] if s[S_HOLDER + h] >= 0 else -1
            key = (10 - s[S_COST + h]) * 1000 + owner + 1
            if key > best_key:
                best_key = key
                choice = h
    if choice >= 0:
        gift = 0
        if s[S_KIND + choice] == DIPLOMAT:
            gift = -1
            for o in range(players):
                if o != seat and (gift < 0 or s[S_SCORE + o] < s[S_SCORE + gift]):
                    gift = o
        return _gift_code(choice, gift)
    for h in range(n_hire):
        if purchase_kind(s, h, seat, 1):
            return (1 * MAX_HIRELINGS + h) * MAX_SEATS
    best_key = -1
    for h in range(n_hire):
        if (
            purchase_kind(s, h, seat, 2)
            and influence >= 1 + s[S_COST + h]
            and s[S_SCORE + s[S_HOLDER + h]] > best_key
        ):
            best_key = s[S_SCORE + s[S_HOLDER + h]]
            choice = h
    if choice >= 0:
        return (2 * MAX_HIRELINGS + choice) * MAX_SEATS
    return PASS
