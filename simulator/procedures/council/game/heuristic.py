"""How a seat values a position (priority counts, the leader). The hooks through which a seat's
policy picks among scored moves live in :mod:`.context` (``choose`` and ``pick`` are re-exported
here for the phases)."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game.context import choose as choose
from simulator.procedures.council.game.context import pick as pick
from simulator.procedures.council.game.params import (
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    PRIVY,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_DECIDED_AT,
    G_HOLDER0,
    G_INF_COST,
    G_LEAD_CHANGES,
    G_LEADER,
    G_PLAYERS,
    G_REP,
    G_RUN,
    G_TAX_DELTA,
    G_TAX_HALF,
    L_CIV,
    L_SOL,
    P_COINS,
    land_owner,
    strict_top,
)


@kernel
def priority_count(tok, g, ch, p, tied):
    """Lands (income rule) and Characters in play on which player p has priority."""
    n = 0
    for li in range(N_LANDS):
        if land_owner(tok, g, li, tied) == p:
            n += 1
    for c in range(N_CHARS):
        if ch[c, C_SEAT] >= 0 and strict_top(tok, g[G_PLAYERS], N_LANDS + c) == p:
            n += 1
    return n


@kernel
def leader(tok, g, ch, tied):
    """The player with strictly the highest priority count, or -1 (a tie names no leader)."""
    best = np.int64(-1)
    who = np.int64(-1)
    for p in range(g[G_PLAYERS]):
        x = priority_count(tok, g, ch, p, tied)
        if x > best:
            best = x
            who = p
        elif x == best:
            who = -1
    return who


@kernel
def record_round(tok, g, ch, tied, t):
    """The leader at the end of turn t: counts lead changes (ignoring turns with no leader) and
    the turn from which the current leader has led without a break. Recording the same position
    twice changes nothing."""
    w = leader(tok, g, ch, tied)
    if w >= 0:
        if g[G_LEADER] >= 0 and g[G_LEADER] != w:
            g[G_LEAD_CHANGES] += 1
        g[G_LEADER] = w
    if w != g[G_RUN]:
        g[G_RUN] = w
        g[G_DECIDED_AT] = t


#: Weights of :func:`standings`, in priority units (one Land or Character held = 1). A Coup or a
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


@inline
def top_and_second(tok, n_players, col):
    """The player with strictly most tokens at col (or -1) and the largest count of the others."""
    top = np.int64(0)
    second = np.int64(0)
    who = np.int64(-1)
    for q in range(n_players):
        x = tok[q, col]
        if x > top:
            second = top
            top = x
            who = q
        elif x == top:
            second = x
            who = -1
        elif x > second:
            second = x
    return who, top - second


@kernel
def standings(tok, pl, g, ch, land, tied, out):
    """How close each player is to winning, in priority units, into ``out``: its priority count
    (Lands by the income rule, Characters in play), the better of its Coup and Will of the People
    progress (Lands held by their own tokens of the right kind, up to four, and the seat),
    Council members held, margins where it leads, and coins (the weights above; Mercenary cards
    are scored where they are bought, :data:`CARD`)."""
    n = g[G_PLAYERS]
    prio = np.zeros(MAX_PLAYERS, dtype=np.int64)
    held = np.zeros(MAX_PLAYERS, dtype=np.int64)
    kind = np.zeros((2, MAX_PLAYERS), dtype=np.int64)
    margin = np.zeros(MAX_PLAYERS, dtype=np.int64)
    council = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for li in range(N_LANDS):
        o = land_owner(tok, g, li, tied)
        if o >= 0:
            held[o] += 1
        t, m = top_and_second(tok, n, li)
        if t >= 0:
            margin[t] += min(m - 1, 2)
            if land[li, L_SOL] >= land[li, L_CIV]:
                kind[0, t] += 1
            if land[li, L_SOL] <= land[li, L_CIV]:
                kind[1, t] += 1
    for c in range(N_CHARS):
        if ch[c, C_SEAT] < 0:
            continue
        t, m = top_and_second(tok, n, N_LANDS + c)
        if t >= 0:
            prio[t] += 1
            margin[t] += min(m - 1, 2)
    for k in range(5):
        c = g[G_HOLDER0 + k] if k < 4 else g[G_REP]
        if c >= 0:
            t = strict_top(tok, n, N_LANDS + c)
            if t >= 0:
                council[t] += 1
    seat_of = np.full(2, -1, dtype=np.int64)
    for cond in range(2):
        h = g[G_HOLDER0 + (WARLORD if cond == 0 else PRIVY)]
        if h >= 0:
            seat_of[cond] = strict_top(tok, n, N_LANDS + h)
    half = max(g[G_TAX_HALF] + g[G_TAX_DELTA], 0)
    for p in range(n):
        v = np.float64(prio[p] + held[p])
        best = 0.0
        for cond in range(2):
            lands = min(kind[cond, p], 4)
            x = LAND_STEP * lands
            if seat_of[cond] == p:
                x += SEAT_STEP + PAIR_STEP * lands
            best = max(best, x)
        v += best
        v += COUNCIL_STEP * council[p] + COUNCIL_NEAR * max(council[p] - 3, 0)
        v += MARGIN * margin[p]
        need = (half * held[p]) // 2 + g[G_INF_COST]
        coins = pl[p, P_COINS]
        v += COIN * min(coins, need) + COIN_SPARE * max(coins - need, 0)
        out[p] = v


@kernel
def edge(tok, pl, g, ch, land, p, tied):
    """p's standing less :data:`RIVAL` times the best rival's: what greedy maximises."""
    out = np.empty(MAX_PLAYERS, dtype=np.float64)
    standings(tok, pl, g, ch, land, tied, out)
    best = -1e18
    for q in range(g[G_PLAYERS]):
        if q != p:
            best = max(best, out[q])
    return out[p] - RIVAL * best


@kernel
def gain_from(base, tok, pl, g, ch, land, p, col, d, coins, tied):
    """Greedy's score of a move that changes p's tokens at column col (none if negative) by d
    and its coins by ``coins``: the change of :func:`edge` from ``base``, times :data:`SCALE`, as
    an integer."""
    if col >= 0:
        tok[p, col] += d
    pl[p, P_COINS] += coins
    after = edge(tok, pl, g, ch, land, p, tied)
    if col >= 0:
        tok[p, col] -= d
    pl[p, P_COINS] -= coins
    return np.int64(round((after - base) * SCALE))


@kernel
def gain(tok, pl, g, ch, land, p, col, d, coins, tied):
    """:func:`gain_from` the position as it stands."""
    base = edge(tok, pl, g, ch, land, p, tied)
    return gain_from(base, tok, pl, g, ch, land, p, col, d, coins, tied)


@kernel
def soldier_gain(tok, pl, g, ch, land, p, a, b, base, tied):
    """Greedy's score of the Warlord moving a soldier from Land a to Land b (``base``: the
    :func:`edge` before), as :func:`gain`."""
    land[a, L_SOL] -= 1
    land[b, L_SOL] += 1
    after = edge(tok, pl, g, ch, land, p, tied)
    land[a, L_SOL] += 1
    land[b, L_SOL] -= 1
    return np.int64(round((after - base) * SCALE))


@kernel
def win_chances(tok, pl, g, ch, land, tied, out):
    """Each seat's estimated chance to win: a softmax of :func:`standings` (temperature 2)."""
    n = g[G_PLAYERS]
    standings(tok, pl, g, ch, land, tied, out)
    best = -1e18
    for p in range(n):
        best = max(best, out[p])
    total = 0.0
    for p in range(n):
        out[p] = np.exp((out[p] - best) / 2.0)
        total += out[p]
    for p in range(n):
        out[p] /= total
