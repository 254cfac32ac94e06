"""How a seat values a position (priority counts, the leader). The hooks through which a seat's
policy picks among scored moves live in :mod:`.context` (``choose`` and ``pick`` are re-exported
here for the phases)."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.context import choose as choose
from simulator.procedures.council.game.context import pick as pick
from simulator.procedures.council.game.params import (
    HEAD0,
    N_CHARS,
    N_LANDS,
    PRIVY,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_DECIDED_AT,
    G_HOLDER0,
    G_LEAD_CHANGES,
    G_LEADER,
    G_PLAYERS,
    G_REP,
    G_RUN,
    L_CIV,
    L_SOL,
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
def local_count(tok, g, ch, p, col, tied):
    """The part of p's priority count that tokens at column col can change: a Land's income
    priority, or a Character's priority and, for a Head, its Land's."""
    if col < N_LANDS:
        return np.int64(1 if land_owner(tok, g, col, tied) == p else 0)
    c = col - N_LANDS
    seat = ch[c, C_SEAT]
    if seat < 0:
        return np.int64(0)
    n = np.int64(1 if strict_top(tok, g[G_PLAYERS], col) == p else 0)
    if seat >= HEAD0 and land_owner(tok, g, seat - HEAD0, tied) == p:
        n += 1
    return n


@kernel
def token_delta(tok, g, ch, p, col, d, tied):
    """Change of p's priority count if its tokens at column col change by d (only the Land or
    Character at col, and a Head's Land, can change; the twin recounts everything)."""
    before = local_count(tok, g, ch, p, col, tied)
    tok[p, col] += d
    after = local_count(tok, g, ch, p, col, tied)
    tok[p, col] -= d
    return after - before


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


@kernel
def standing(tok, g, ch, land, p, tied):
    """How close p is to winning, in priority units: its priority count plus progress toward the
    victory conditions (Lands it leads where it holds the Warlord or the Privy Councillor, and
    Council members it has priority on)."""
    v = np.float64(priority_count(tok, g, ch, p, tied))
    n_players = g[G_PLAYERS]
    council = 0
    for k in range(5):
        c = g[G_HOLDER0 + k] if k < 4 else g[G_REP]
        if c >= 0 and strict_top(tok, n_players, N_LANDS + c) == p:
            council += 1
    v += council
    for cond in range(2):
        holder = g[G_HOLDER0 + (WARLORD if cond == 0 else PRIVY)]
        if holder < 0 or strict_top(tok, n_players, N_LANDS + holder) != p:
            continue
        lands = 0
        for li in range(N_LANDS):
            if strict_top(tok, n_players, li) != p:
                continue
            sol = land[li, L_SOL]
            civ = land[li, L_CIV]
            if (cond == 0 and sol >= civ) or (cond == 1 and sol <= civ):
                lands += 1
        v += 1.5 * lands
    return v


@kernel
def win_chances(tok, g, ch, land, tied, out):
    """Each seat's estimated chance to win: a softmax of :func:`standing` (temperature 2)."""
    n = g[G_PLAYERS]
    best = -1e18
    for p in range(n):
        out[p] = standing(tok, g, ch, land, p, tied)
        best = max(best, out[p])
    total = 0.0
    for p in range(n):
        out[p] = np.exp((out[p] - best) / 2.0)
        total += out[p]
    for p in range(n):
        out[p] /= total
