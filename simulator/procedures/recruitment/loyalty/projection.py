"""The heuristic's projection of a position (heuristic.py explains it): per card, who would hold
it if the zone were resolved and the ownership check run now, with what weight; per seat, the
projected count and summed weight. The rules keep a copy of it in the state
(``S_PROJ_HOLDER``, ``S_PROJ_WEIGHT``, ``S_TALLY``): :func:`retally` after a round starts,
:func:`reproject` after a token is placed.
"""

from __future__ import annotations

from simulator.jit import inline
from simulator.procedures.recruitment.loyalty.ownership import REVISION_1_0, loyalty_of
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.state import (
    H_DIE,
    H_N_CARDS,
    H_PLAYERS,
    H_REVISION,
    IN_ZONE,
    S_BASE,
    S_HOME,
    S_PROJ_HOLDER,
    S_PROJ_WEIGHT,
    S_STATUS,
    S_TALLY,
    S_TOKENS,
)


@inline
def project_card(s, c):
    """``(holder, weight)`` of card ``c`` in the projection (holder -1: nobody; weight in units
    of 1/die, ``die`` for a safe hold)."""
    status = s[S_STATUS + c]
    players = s[H_PLAYERS]
    first = S_TOKENS + c * MAX_PLAYERS
    if status >= 0:
        h = status
    elif status == IN_ZONE:
        top = 0
        n_top = 0
        h = -1
        for f in range(players):
            t = s[first + f]
            if t > top:
                top = t
                n_top = 1
                h = f
            elif t == top:
                n_top += 1
        if top == 0 or n_top > 1:
            return -1, 0
    else:
        return -1, 0
    die = s[H_DIE]
    home = s[S_HOME + c]
    base = s[S_BASE + c]
    total = 0
    best = 0
    n_best = 0
    who = -1
    for f in range(players):
        t = s[first + f]
        total += t
        if f == h:
            continue
        loyalty = loyalty_of(t, home, base, f)
        if loyalty > best:
            best = loyalty
            n_best = 1
            who = f
        elif loyalty == best:
            n_best += 1
    if total == 0:
        return -1, 0
    mine = s[first + h]
    own = loyalty_of(mine, home, base, h)
    if own < best:
        if n_best == 1:
            return who, die
        if s[H_REVISION] != REVISION_1_0:
            return -1, 0
        return h, die
    after = loyalty_of(mine - 1, home, base, h)
    if (total == 1 or after < best) and own < die:
        return h, own
    return h, die


@inline
def tally(s, a, off):
    """Projected characters ``a[off + e]`` and their weights ``a[off + MAX_PLAYERS + e]`` (units
    of 1/die) of every seat ``e``."""
    for e in range(s[H_PLAYERS]):
        a[off + e] = 0
        a[off + MAX_PLAYERS + e] = 0
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        if h >= 0:
            a[off + h] += 1
            a[off + MAX_PLAYERS + h] += w


@inline
def value_of(a, off, e, players, die):
    """Seat ``e``'s heuristic from the tally at ``a[off:]`` (module docstring)."""
    top = -1
    k = 0
    rival = 0
    for f in range(players):
        n = a[off + f]
        if n > top:
            top = n
            k = 1
        elif n == top:
            k += 1
        w = a[off + MAX_PLAYERS + f]
        if f != e and w > rival:
            rival = w
    share = 1.0 / k if a[off + e] == top else 0.0
    mine = a[off + MAX_PLAYERS + e]
    return 0.5 * share + 0.5 * (mine + die) / (mine + rival + 2 * die)


@inline
def retally(s):
    """Recompute the projection kept in the state, every card."""
    players = s[H_PLAYERS]
    for e in range(players):
        s[S_TALLY + e] = 0
        s[S_TALLY + MAX_PLAYERS + e] = 0
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        s[S_PROJ_HOLDER + c] = h
        s[S_PROJ_WEIGHT + c] = w
        if h >= 0:
            s[S_TALLY + h] += 1
            s[S_TALLY + MAX_PLAYERS + h] += w


@inline
def reproject(s, c):
    """Update the projection kept in the state after card ``c``'s tokens changed."""
    h0 = s[S_PROJ_HOLDER + c]
    w0 = s[S_PROJ_WEIGHT + c]
    h1, w1 = project_card(s, c)
    if h0 >= 0:
        s[S_TALLY + h0] -= 1
        s[S_TALLY + MAX_PLAYERS + h0] -= w0
    if h1 >= 0:
        s[S_TALLY + h1] += 1
        s[S_TALLY + MAX_PLAYERS + h1] += w1
    s[S_PROJ_HOLDER + c] = h1
    s[S_PROJ_WEIGHT + c] = w1
