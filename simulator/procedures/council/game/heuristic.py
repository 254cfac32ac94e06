"""How a seat values a position, and how a seat's policy picks among scored moves."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game.params import (
    HEAD0,
    N_CHARS,
    N_LANDS,
)
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_DECIDED_AT,
    G_LEAD_CHANGES,
    G_LEADER,
    G_PLAYERS,
    G_RUN,
    P_POLICY,
    land_owner,
    strict_top,
)
from simulator.rng import low32, next_word


@inline
def pick(st, n):
    """A uniform index below n; reads a word only when there is a choice."""
    if n <= 1:
        return np.int64(0)
    return np.int64((low32(next_word(st)) * np.uint64(n)) >> np.uint64(32))


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
def choose(st, pl, p, n, score):
    """Index of the chosen move among n: random uniformly, greedy by best score then lot."""
    if pl[p, P_POLICY] == 0:
        return pick(st, n)
    best = score[0]
    for i in range(1, n):
        best = max(best, score[i])
    nbest = 0
    for i in range(n):
        if score[i] == best:
            nbest += 1
    k = pick(st, nbest)
    for i in range(n):
        if score[i] == best:
            if k == 0:
                return np.int64(i)
            k -= 1
    return np.int64(0)


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
