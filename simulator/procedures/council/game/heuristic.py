"""How a seat values a position: the priority count and the leader (metrics), each player's
standing toward the victory conditions (the search rungs' leaves, :func:`win_chances`), and
greedy's scores of moves (:func:`gain`, recounting only what a move changes). The hooks through
which a seat's policy picks among scored moves live in :mod:`.context` (``choose`` and ``pick``
are re-exported here for the phases)."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel, leaf
from simulator.procedures.council.game.context import choose as choose
from simulator.procedures.council.game.context import pick as pick
from simulator.procedures.council.game.params import (
    HEAD0,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    PRIVY,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    CIVILIANS,
    COINS,
    DECIDED_AT,
    INFLUENCE_COST,
    LEAD_CHANGES,
    LEADER,
    N_COL,
    PLAYERS,
    REPRESENTATIVE,
    RUN,
    SEATS,
    SOLDIERS,
    TAX_DELTA,
    TAX_HALVES,
    TOKENS,
    land_owner,
    strict_top,
    top_and_second,
)


@kernel
def priority_count(state, p, scratch):
    """Lands (income rule) and Characters in play on which player p has priority."""
    n = 0
    for li in range(N_LANDS):
        if land_owner(state, li, scratch) == p:
            n += 1
    for c in range(N_CHARS):
        if state[SEATS + c] >= 0 and strict_top(state, state[PLAYERS], N_LANDS + c) == p:
            n += 1
    return n


@kernel
def leader(state, scratch):
    """The player with strictly the highest priority count, or -1 (a tie names no leader)."""
    best = np.int64(-1)
    who = np.int64(-1)
    for p in range(state[PLAYERS]):
        x = priority_count(state, p, scratch)
        if x > best:
            best = x
            who = p
        elif x == best:
            who = -1
    return who


@kernel
def record_round(state, scratch, t):
    """The leader at the end of turn t: counts lead changes (ignoring turns with no leader) and
    the turn from which the current leader has led without a break. Recording the same position
    twice changes nothing."""
    w = leader(state, scratch)
    if w >= 0:
        if state[LEADER] >= 0 and state[LEADER] != w:
            state[LEAD_CHANGES] += 1
        state[LEADER] = w
    if w != state[RUN]:
        state[RUN] = w
        state[DECIDED_AT] = t


#: Weights of :func:`value_of`, in priority units (one Land or Character held = 1). A Coup or a
#: Will of the People needs the seat and four Lands of its kind: each such Land held counts
#: LAND_STEP, the seat SEAT_STEP, and both together a further PAIR_STEP a Land (measured: greedy
#: with these beats the priority count alone; docs/council.md, "The ladder").
LAND_STEP = 1.5
SEAT_STEP = 2.0
PAIR_STEP = 0.5
#: Each Council member held (an Election needs all five), and a bonus from the fourth on.
COUNCIL_STEP = 0.5
COUNCIL_NEAR = 1.0
#: A coin, up to what the coming tax and one token cost (then COIN_SPARE): coins kept pay the tax
#: that would otherwise strip tokens, and an influence token costs three.
COIN = 0.1
COIN_SPARE = 0.02
#: A margin of a second and third token where the player already leads (a lead of one falls to
#: one rival token), and a Mercenary card bought (a Messenger's gift to come: MESSENGER_CARD).
MARGIN = 0.1
CARD = 0.2
MESSENGER_CARD = 0.5
#: Greedy's worth of one advice for the side it declared (scaled like :func:`gain`).
ADVICE_VALUE = 200
#: How much a rival's standing weighs against the mover's own in greedy's scores.
RIVAL = 0.5
#: Greedy's scores are integers: standing differences times SCALE.
SCALE = 1000.0
#: The temperature of :func:`win_chances`, in priority units.
TEMPERATURE = 2.0


# Rows of a breakdown (:func:`breakdown`): per player, what :func:`values` weighs.
B_PRIO, B_HELD, B_MILITARY, B_CIVIL, B_MARGIN, B_COUNCIL, B_SEAT = range(7)
B_ROWS = 7  # B_SEAT holds the Warlord's player in column 0 and the Privy Councillor's in 1


@leaf
def kind_terms(b, state, li, t, sign):
    """Add or take away Land li's kind (military and/or civil) for t, the player leading it."""
    if t >= 0:
        if state[SOLDIERS + li] >= state[CIVILIANS + li]:
            b[B_MILITARY, t] += sign
        if state[SOLDIERS + li] <= state[CIVILIANS + li]:
            b[B_CIVIL, t] += sign


@leaf
def land_terms(state, li, scratch, b, sign):
    """Add (sign 1) or take away (-1) Land li's part of breakdown b: its income priority (held),
    and the player leading it by its own tokens (its kind, military and/or civil, and margin)."""
    o = land_owner(state, li, scratch)
    if o >= 0:
        b[B_HELD, o] += sign
    t, m = top_and_second(state, state[PLAYERS], li)
    if t >= 0:
        b[B_MARGIN, t] += sign * min(m - 1, 2)
    kind_terms(b, state, li, t, sign)


@leaf
def char_terms(state, c, b, sign):
    """Add or take away Character c's part of breakdown b: priority and margin if it is in play,
    a Council place, the Warlord's or the Privy Councillor's seat."""
    if state[SEATS + c] < 0:
        return
    t, m = top_and_second(state, state[PLAYERS], N_LANDS + c)
    if t < 0:
        return
    b[B_PRIO, t] += sign
    b[B_MARGIN, t] += sign * min(m - 1, 2)
    seat = state[SEATS + c]
    if seat < HEAD0 or state[REPRESENTATIVE] == c:
        b[B_COUNCIL, t] += sign
    if seat == WARLORD:
        b[B_SEAT, 0] = t if sign > 0 else -1
    elif seat == PRIVY:
        b[B_SEAT, 1] = t if sign > 0 else -1


@kernel
def breakdown(state, scratch):
    """What each player holds that :func:`values` weighs (rows ``B_*``), followed by as many
    rows of scratch where :func:`gain_at` and :func:`soldier_gain` score a move."""
    b = np.zeros((2 * B_ROWS, MAX_PLAYERS), dtype=np.int64)
    b[B_SEAT, 0] = -1
    b[B_SEAT, 1] = -1
    for li in range(N_LANDS):
        land_terms(state, li, scratch, b, 1)
    for c in range(N_CHARS):
        char_terms(state, c, b, 1)
    return b


@leaf
def value_of(b, state, half, p):
    """How close player p is to winning, in priority units: its priority count (Lands by the
    income rule, Characters in play), the better of its Coup and Will of the People progress
    (Lands led by their own tokens of the right kind, up to four, and the seat), Council members
    held, margins where it leads, and coins (the weights above; Mercenary cards are scored where
    they are bought, :data:`CARD`). ``half``: the tax rate in half coins."""
    held = b[B_HELD, p]
    v = np.float64(b[B_PRIO, p] + held)
    best = 0.0
    for cond in range(2):
        lands = min(b[B_MILITARY + cond, p], 4)
        x = LAND_STEP * lands
        if b[B_SEAT, cond] == p:
            x += SEAT_STEP + PAIR_STEP * lands
        best = max(best, x)
    v += best
    council = b[B_COUNCIL, p]
    v += COUNCIL_STEP * council + COUNCIL_NEAR * max(council - 3, 0)
    v += MARGIN * b[B_MARGIN, p]
    need = (half * held) // 2 + state[INFLUENCE_COST]
    coins = state[COINS + p]
    v += COIN * min(coins, need) + COIN_SPARE * max(coins - need, 0)
    return v


@kernel
def values(b, state, out):
    """:func:`value_of` each player, into ``out``."""
    half = max(state[TAX_HALVES] + state[TAX_DELTA], 0)
    for p in range(state[PLAYERS]):
        out[p] = value_of(b, state, half, p)


@kernel
def standings(state, scratch, out):
    """:func:`values` of the position."""
    values(breakdown(state, scratch), state, out)


@leaf
def edge_of(b, state, p):
    """p's standing less :data:`RIVAL` times the best rival's: what greedy maximises."""
    half = max(state[TAX_HALVES] + state[TAX_DELTA], 0)
    best = -1e18
    mine = 0.0
    for q in range(state[PLAYERS]):
        v = value_of(b, state, half, q)  # one call site: value_of is pasted once
        if q == p:
            mine = v
        else:
            best = max(best, v)
    return mine - RIVAL * best


@leaf
def column_terms(state, col, scratch, b, sign):
    """The parts of breakdown b that tokens at column col change (a Head's also its Land's)."""
    li = col
    if col >= N_LANDS:
        c = col - N_LANDS
        char_terms(state, c, b, sign)
        li = state[SEATS + c] - HEAD0 if state[SEATS + c] >= HEAD0 else -1
    if li >= 0:  # one call site: land_terms is pasted once
        land_terms(state, li, scratch, b, sign)


@kernel
def gain_at(b, base, state, p, col, d, coins, scratch):
    """Greedy's score of a move that changes p's tokens at column col (none if negative) by d
    and its coins by ``coins``: the change of :func:`edge_of` from ``base`` (the edge of
    breakdown ``b`` of the position), times :data:`SCALE`, as an integer. Only the parts of b
    the column changes are recounted, on a copy in b's scratch rows (b is left as it was).

    Callers pass constant arguments as ``np.int64(...)``: Numba compiles a function once more for
    each literal integer it is called with, and each copy of this one and its recounts cost ~18 s
    of CPU in a cold compile."""
    # We previously recounted the column on b itself and then back (four recounts a move);
    # the copy costs 42 words and saves two recounts, the dear part (a scan of every seat's
    # tokens), with the same integers.
    w = b[B_ROWS:]  # the scratch rows: b after the move
    w[:] = b[:B_ROWS]
    if col >= 0:
        # Out before the move, back in after it; one call site: column_terms is pasted once.
        for sign in (-1, 1):
            if sign == 1:
                state[TOKENS + p * N_COL + col] += d
            column_terms(state, col, scratch, w, sign)
        state[TOKENS + p * N_COL + col] -= d
    state[COINS + p] += coins
    after = edge_of(w, state, p)
    state[COINS + p] -= coins
    return np.int64(round((after - base) * SCALE))


@kernel
def gain(state, p, col, d, coins, scratch):
    """:func:`gain_at` the position as it stands."""
    b = breakdown(state, scratch)
    return gain_at(b, edge_of(b, state, p), state, p, col, d, coins, scratch)


@kernel
def soldier_gain(b, base, state, p, a, to):
    """Greedy's score of the Warlord moving a soldier from Land a to Land ``to`` (only the two
    Lands' kinds change), as :func:`gain_at`."""
    ta, _ = top_and_second(state, state[PLAYERS], a)
    tt, _ = top_and_second(state, state[PLAYERS], to)
    w = b[B_ROWS:]  # the scratch rows: b after the move
    w[:] = b[:B_ROWS]
    kind_terms(w, state, a, ta, -1)
    kind_terms(w, state, to, tt, -1)
    state[SOLDIERS + a] -= 1
    state[SOLDIERS + to] += 1
    kind_terms(w, state, a, ta, 1)
    kind_terms(w, state, to, tt, 1)
    state[SOLDIERS + a] += 1
    state[SOLDIERS + to] -= 1
    after = edge_of(w, state, p)
    return np.int64(round((after - base) * SCALE))


@kernel
def win_chances(state, scratch, out):
    """Each seat's estimated chance to win: a softmax of :func:`value_of` (:data:`TEMPERATURE`)."""
    standings(state, scratch, out)
    soften(out, state[PLAYERS])


@leaf
def soften(v, n):
    """Standings ``v[:n]`` to win chances, in place: a softmax at :data:`TEMPERATURE`."""
    best = -1e18
    for p in range(n):
        best = max(best, v[p])
    total = 0.0
    for p in range(n):
        v[p] = np.exp((v[p] - best) / TEMPERATURE)
        total += v[p]
    for p in range(n):
        v[p] /= total
