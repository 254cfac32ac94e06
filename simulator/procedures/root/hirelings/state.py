"""root.hirelings as a whole game: the state value and its rules (docs/agents.md, "The game
interface").

The state is ONE flat int64 array: a header, the rules copied from the packed params row (so the
agents need nothing else), the position (scores, holders, protections) and the metric counters
the kernel reads at the end. ``apply_move`` plays one purchase (or the pass) and then every
chance event and forced step (points, influence dice, Diplomat exhaustion, round end and its
scoring) up to the next decision. A decision exists only when the seat spending has at least
one legal purchase; the pass (stop spending: the rest is lost, never saved) is then legal too.

Move codes: ``(what * MAX_HIRELINGS + h) * MAX_SEATS + gift`` with ``what`` 0 take, 1 protect,
2 unprotect; ``gift`` is the enemy seat given the other Diplomat when taking a Diplomat (0
otherwise); :data:`PASS` stops spending.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.root.influence import MAX_FACES
from simulator.rng import die_of, high32, low32, next_word

MAX_SEATS = 6
MAX_GAINS = 8
MAX_ROUNDS = 30
MAX_HIRELINGS = 6  # three hirelings + the Veteran or the two Diplomats
NORMAL, VETERAN, DIPLOMAT = 0, 1, 2
TAKE, PROTECT, UNPROTECT = 0, 1, 2
PASS = 3 * MAX_HIRELINGS * MAX_SEATS
#: Legal moves at most: 4 takes + 2 Diplomats x 5 gifts, 3 protects, 3 unprotects, the pass.
MAX_MOVES = 32

# Header.
H_PLAYERS, H_ROUNDS, H_NHIRE, H_NFACES, H_POINTS = 0, 1, 2, 3, 4
H_ROUND, H_TURN, H_FIRST, H_SEAT, H_INFLUENCE, H_RANK, H_OVER = 5, 6, 7, 8, 9, 10, 11
H_LEADER, H_STREAK, H_LEAD_CHANGES, H_CHANGES, H_PROTECTIONS, H_CATCH_UP = 12, 13, 14, 15, 16, 17
HEADER = 20
# Rules.
S_COST = HEADER
S_KIND = S_COST + MAX_HIRELINGS
S_PROTECTABLE = S_KIND + MAX_HIRELINGS
S_FACE = S_PROTECTABLE + MAX_HIRELINGS
S_BEHIND = S_FACE + MAX_FACES
GAIN_ROW = 2 * MAX_GAINS + 2  # n, total weight, points[MAX_GAINS], cumulative weight[MAX_GAINS]
S_GAIN = S_BEHIND + MAX_FACES
# Position.
S_SCORE = S_GAIN + MAX_SEATS * GAIN_ROW
S_HOLDER = S_SCORE + MAX_SEATS
S_PROTECTED = S_HOLDER + MAX_HIRELINGS
S_EXHAUSTED = S_PROTECTED + MAX_HIRELINGS
# Metric counters.
S_HELD = S_EXHAUSTED + MAX_HIRELINGS  # hireling-rounds per seat
S_HELD_RANK = S_HELD + MAX_SEATS  # hireling-rounds per score rank
S_SPENT = S_HELD_RANK + MAX_SEATS
S_SPENT_RANK = S_SPENT + MAX_SEATS
STATE_SIZE = S_SPENT_RANK + MAX_SEATS

# Packed params row layout (hirelings.pack).
H0 = 8
F0 = H0 + 2 * MAX_HIRELINGS + 1
G0 = F0 + 2 * MAX_FACES + 1
A0 = G0 + MAX_SEATS * GAIN_ROW  # each seat's packed agent row (AGENT_ROW columns)


@inline
def uniform(rng, n):
    """A uniform integer in ``0 .. n-1`` from the next word of ``rng``'s low half."""
    return die_of(low32(next_word(rng)), n) - 1


@inline
def rank_of(s, seat):
    """Score rank of ``seat`` (1 = leader); ties go to the lower seat."""
    r = 1
    for o in range(s[H_PLAYERS]):
        if s[S_SCORE + o] > s[S_SCORE + seat] or (s[S_SCORE + o] == s[S_SCORE + seat] and o < seat):
            r += 1
    return r


@kernel
def copy_state(s):
    return s.copy()


@kernel
def to_move(s):
    return -1 if s[H_OVER] else s[H_SEAT]


@kernel
def is_over(s):
    return s[H_OVER] == 1


@kernel
def round_of(s):
    return s[H_ROUND]


@kernel
def n_seats(s):
    return s[H_PLAYERS]


@inline
def purchase_kind(s, h, seat, what):
    """Whether ``seat`` may make purchase ``what`` on hireling ``h`` with its influence."""
    influence = s[H_INFLUENCE]
    holder = s[S_HOLDER + h]
    mine = holder == seat
    free = holder < 0
    if what == TAKE:
        # The Veteran and the Diplomats cannot be taken while controlled.
        takeable = (free or (not mine and s[S_PROTECTED + h] == 0)) and (
            s[S_KIND + h] == NORMAL or free
        )
        return takeable and not mine and s[S_COST + h] <= influence
    if what == PROTECT:
        return mine and s[S_PROTECTABLE + h] == 1 and s[S_PROTECTED + h] == 0 and influence >= 1
    return (not mine) and (not free) and s[S_PROTECTED + h] == 1 and influence >= 1


@inline
def any_purchase(s):
    seat = s[H_SEAT]
    for h in range(s[H_NHIRE]):
        for what in range(3):
            if purchase_kind(s, h, seat, what):
                return True
    return False


@kernel
def legal_moves(s, out):
    """Every purchase the seat to move can make (Diplomat takes once per enemy gift), the pass."""
    seat = s[H_SEAT]
    players = s[H_PLAYERS]
    n = 0
    for h in range(s[H_NHIRE]):
        for what in range(3):
            if purchase_kind(s, h, seat, what):
                if what == TAKE and s[S_KIND + h] == DIPLOMAT:
                    for g in range(players):
                        if g != seat:
                            out[n] = (what * MAX_HIRELINGS + h) * MAX_SEATS + g
                            n += 1
                else:
                    out[n] = (what * MAX_HIRELINGS + h) * MAX_SEATS
                    n += 1
    out[n] = PASS
    return n + 1


@inline
def begin_turn(s, rng):
    """The seat's round points, then, at the end of its Evening, the influence dice."""
    seat = (s[H_FIRST] + s[H_TURN]) % s[H_PLAYERS]
    s[H_SEAT] = seat
    g = S_GAIN + seat * GAIN_ROW
    u = uniform(rng, s[g + 1])
    k = 0
    while u >= s[g + 2 + MAX_GAINS + k]:
        k += 1
    s[S_SCORE + seat] += s[g + 2 + k]
    leader = 0
    for o in range(s[H_PLAYERS]):
        leader = max(leader, s[S_SCORE + o])
    behind = leader - s[S_SCORE + seat]
    x = next_word(rng)
    f1 = die_of(low32(x), s[H_NFACES]) - 1
    f2 = die_of(high32(x), s[H_NFACES]) - 1
    a1 = s[S_FACE + f1] if behind >= s[S_BEHIND + f1] else 0
    a2 = s[S_FACE + f2] if behind >= s[S_BEHIND + f2] else 0
    if s[H_PLAYERS] == 2:
        s[H_INFLUENCE] = a1 + a2
    elif s[H_PLAYERS] == 3:
        s[H_INFLUENCE] = max(a1, a2)
    else:
        s[H_INFLUENCE] = a1
    s[H_RANK] = rank_of(s, seat)


@inline
def begin_round(s):
    """Before the first player's turn the Veteran's holder takes the first-player card and the
    Veteran returns to the supply."""
    for h in range(s[H_NHIRE]):
        if s[S_KIND + h] == VETERAN and s[S_HOLDER + h] >= 0:
            s[H_FIRST] = s[S_HOLDER + h]
            s[S_HOLDER + h] = -1
    s[H_TURN] = 0


@inline
def end_turn(s):
    """Diplomats flip to exhausted at the end of their holder's Evening; both return to the
    supply once both are exhausted."""
    seat = s[H_SEAT]
    n_dip = 0
    n_exhausted = 0
    for h in range(s[H_NHIRE]):
        if s[S_KIND + h] == DIPLOMAT:
            n_dip += 1
            if s[S_HOLDER + h] == seat:
                s[S_EXHAUSTED + h] = 1
            n_exhausted += s[S_EXHAUSTED + h]
    if n_dip > 0 and n_exhausted == n_dip:
        for h in range(s[H_NHIRE]):
            if s[S_KIND + h] == DIPLOMAT:
                s[S_HOLDER + h] = -1
                s[S_EXHAUSTED + h] = 0


@inline
def end_round(s):
    """Who holds what; the INVENTED hireling scoring (``hireling_points`` per hireling held);
    the sole leader's streak."""
    players = s[H_PLAYERS]
    last = 0
    for o in range(players):
        held = held_by(s, o)
        s[S_HELD + o] += held
        s[S_HELD_RANK + rank_of(s, o) - 1] += held
        if s[S_SCORE + o] < s[S_SCORE + last]:
            last = o
    most = held_by(s, last)
    for o in range(players):
        if held_by(s, o) > most:
            most = -1
    if most > 0:
        s[H_CATCH_UP] += 1
    for o in range(players):  # holders are unchanged: counting came first
        s[S_SCORE + o] += s[H_POINTS] * held_by(s, o)
    leader = sole_leader(s)
    if leader != s[H_LEADER]:
        if leader >= 0 and s[H_LEADER] >= 0:
            s[H_LEAD_CHANGES] += 1
        s[H_STREAK] = s[H_ROUND]
        s[H_LEADER] = leader


@inline
def held_by(s, seat):
    """Hirelings ``seat`` controls now."""
    n = 0
    for h in range(s[H_NHIRE]):
        n += s[S_HOLDER + h] == seat
    return n


@inline
def sole_leader(s):
    """The seat alone at the top of the scores, or -1 on a tie."""
    best = -1
    seat = -1
    for o in range(s[H_PLAYERS]):
        if s[S_SCORE + o] > best:
            best = s[S_SCORE + o]
            seat = o
        elif s[S_SCORE + o] == best:
            seat = -1
    return seat


@inline
def advance(s, rng):
    """Forced steps from the end of the current spending to the next decision or the end."""
    while True:
        end_turn(s)
        s[H_TURN] += 1
        if s[H_TURN] == s[H_PLAYERS]:
            end_round(s)
            s[H_ROUND] += 1
            if s[H_ROUND] == s[H_ROUNDS]:
                s[H_OVER] = 1
                s[H_SEAT] = -1
                return
            begin_round(s)
        begin_turn(s, rng)
        if any_purchase(s):
            return


@inline
def start_game(s, row, rng):
    """Deal a game from the params row: everything before the first decision."""
    s[:] = 0
    players = np.int64(row[0])
    s[H_PLAYERS] = players
    s[H_ROUNDS] = np.int64(row[1])
    s[H_POINTS] = np.int64(row[2])
    s[H_NHIRE] = np.int64(row[H0 - 1])
    s[H_NFACES] = np.int64(row[F0 - 1])
    for h in range(MAX_HIRELINGS):
        s[S_COST + h] = np.int64(row[H0 + h])
        s[S_KIND + h] = np.int64(row[H0 + MAX_HIRELINGS + h]) // 2
        s[S_PROTECTABLE + h] = np.int64(row[H0 + MAX_HIRELINGS + h]) % 2
        s[S_HOLDER + h] = -1
    for f in range(MAX_FACES):
        s[S_FACE + f] = np.int64(row[F0 + f])
        s[S_BEHIND + f] = np.int64(row[F0 + MAX_FACES + f])
    for k in range(MAX_SEATS * GAIN_ROW):
        s[S_GAIN + k] = np.int64(row[G0 + k])
    s[H_LEADER] = -1
    s[H_FIRST] = 0  # seat 1 holds the first-player card at the start
    begin_round(s)
    begin_turn(s, rng)
    if not any_purchase(s):
        advance(s, rng)


@kernel
def apply_move(s, move, rng):
    """Play ``move`` for the seat to move, then the forced steps up to the next decision."""
    if move == PASS:
        advance(s, rng)
        return
    seat = s[H_SEAT]
    gift = move % MAX_SEATS
    h = (move // MAX_SEATS) % MAX_HIRELINGS
    what = move // (MAX_SEATS * MAX_HIRELINGS)
    rank = s[H_RANK]
    if what == TAKE:
        cost = s[S_COST + h]
        s[H_INFLUENCE] -= cost
        s[S_SPENT + seat] += cost
        s[S_SPENT_RANK + rank - 1] += cost
        s[S_HOLDER + h] = seat
        s[S_PROTECTED + h] = 0
        s[H_CHANGES] += 1
        if s[S_KIND + h] == DIPLOMAT:
            # The other Diplomat goes to an enemy of the taker's choice.
            for o in range(s[H_NHIRE]):
                if o != h and s[S_KIND + o] == DIPLOMAT:
                    s[S_HOLDER + o] = gift
                    s[H_CHANGES] += 1
    else:
        s[H_INFLUENCE] -= 1
        s[S_SPENT + seat] += 1
        s[S_SPENT_RANK + rank - 1] += 1
        s[S_PROTECTED + h] = 1 if what == PROTECT else 0
        if what == PROTECT:
            s[H_PROTECTIONS] += 1
    if not any_purchase(s):
        advance(s, rng)
