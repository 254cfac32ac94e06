"""The heuristic's projection of a position (heuristic.py explains it): per card, who would hold
it if the zone were resolved and the ownership check run now, and the chance that holder keeps it
through the next ``HORIZON`` loyalty checks; per seat, the summed chances, and its term
``exp(BETA * worth)`` of the soft win share. The rules keep a copy of it in the state
(``S_PROJ_HOLDER``, ``S_PROJ_WEIGHT``, ``S_TALLY``, ``S_TERMS``) when a seat needs it
(``H_TRACK``, set when some seat is greedy): :func:`retally` after a round starts,
:func:`reproject` after a token is placed.

Weights are integers in units of ``1 / WEIGHT_ONE`` (a chance rounded to 20 bits), so that the
greedy agent's incremental evaluation (one card changed) adds up exactly as a full one.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, leaf
from simulator.procedures.recruitment.loyalty.ownership import (
    MULTI_TIE_FIRST_PLACED,
    MULTI_TIE_STAYS,
    ZERO_TOKENS_STAYS,
    first_placed_among,
    loyalty_of,
    step_inputs,
)
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.state import (
    H_DIE,
    H_MULTI_TIE,
    H_N_CARDS,
    H_PER_ROUND,
    H_PLAYERS,
    H_ROUND,
    H_ROUNDS,
    H_STEP_ADDRESS,
    H_ZERO_TOKENS,
    IN_ZONE,
    S_BASE,
    S_HOME,
    S_PLACED,
    S_PROJ_HOLDER,
    S_PROJ_WEIGHT,
    S_STATUS,
    S_STEP_LOYALTY,
    S_STEP_TOKENS,
    S_SUPPLY,
    S_TALLY,
    S_TERMS,
    S_TOKENS,
)
from simulator.procedures.recruitment.loyalty.steps import call_step

#: Loyalty checks the projection looks ahead (at most; fewer near the end of the game). Tuned:
#: greedy against three random seats won most with 3 (2 and 4 close behind; docs/recruitment.md).
HORIZON = 3
#: A weight of 1 (a character held for certain).
WEIGHT_ONE = 1 << 20
#: What a token still in supply (and placeable before the game ends) is worth, in characters:
#: tuned like HORIZON. Without it greedy spends every token at once; too high, it hoards them.
SUPPLY_WEIGHT = WEIGHT_ONE // 50
#: How sharply the soft win share follows a lead, per character (tuned: 1 to 4 play alike).
BETA = 2.0


@leaf
def checks_ahead(s):
    """Loyalty checks the projection covers: the rest of the game's, at most ``HORIZON``."""
    return min(s[H_ROUNDS] - s[H_ROUND], HORIZON)


@leaf
def keep_chance(tokens, home, base, holder, rival, die, checks):
    """Chance that a holder with ``tokens`` on a card keeps it through ``checks`` loyalty checks
    (``checks <= HORIZON``) when nobody places more: each check costs a token with chance
    ``(die - loyalty) / die``, and the card is lost once it carries none of the holder's tokens
    or its loyalty falls below ``rival`` (the best other empire's loyalty). The holder may lose
    ``slack`` tokens and keep it; with ``slack >= checks`` it is safe. Losses so far are a
    pure-death chain: ``p0, p1, p2`` are the chances of 0, 1 and 2 losses (``HORIZON`` 3).
    Loyalty is :func:`loyalty_of` the holder's tokens (``home``, ``base``: the card's)."""
    least = 1
    while loyalty_of(least, home, base, holder) < rival:
        least += 1
    if tokens < least:
        return 0.0
    slack = tokens - least
    if slack >= checks:
        return 1.0
    # Chance a check costs a token after 0, 1, 2 losses (tokens - k >= least >= 1).
    q0 = max(0, die - loyalty_of(tokens, home, base, holder)) / die
    q1 = max(0, die - loyalty_of(tokens - 1, home, base, holder)) / die
    q2 = max(0, die - loyalty_of(tokens - 2, home, base, holder)) / die
    p0 = 1.0
    p1 = 0.0
    p2 = 0.0
    for _ in range(checks):
        # Chances move down the chain from the deepest state, so each reads last round's values.
        if slack >= 2:
            p2 = p2 * (1.0 - q2) + p1 * q1
        if slack >= 1:
            p1 = p1 * (1.0 - q1) + p0 * q0
        p0 = p0 * (1.0 - q0)
    return p0 + p1 + p2


@leaf
def project_by_step(s, c, h):
    """:func:`project_card` of card ``c`` whose holder before the check is ``h``, in a game whose
    ownership check is a designer's step (userstep.py): the step says who holds it after the
    check (a seat out of range changes nothing, as in the rules), and that holder keeps it as
    :func:`keep_chance` weighs it against the best other loyalty; a holder the step keeps below
    a rival is read as 1.0's gap (kept while it has a token), one with no tokens on the card as
    kept for good. A copy of a built-in revision's check projects as that revision does."""
    players = s[H_PLAYERS]
    loyalty = s[S_STEP_LOYALTY : S_STEP_LOYALTY + players]
    tokens = s[S_STEP_TOKENS : S_STEP_TOKENS + players]
    total = step_inputs(s, c, loyalty, tokens)
    holder = call_step(s[H_STEP_ADDRESS], loyalty, tokens, h)
    if holder < -1 or holder >= players:
        holder = h
    if holder < 0:
        return -1, 0
    if total == 0:
        return holder, WEIGHT_ONE  # nothing can take it any more
    best = 0
    for f in range(players):
        if f != holder:
            best = max(best, loyalty[f])
    if holder == h and loyalty[h] < best:
        best = 0
    chance = keep_chance(
        tokens[holder], s[S_HOME + c], s[S_BASE + c], holder, best, s[H_DIE], checks_ahead(s)
    )
    return holder, np.int64(chance * WEIGHT_ONE + 0.5)


@leaf
def project_card(s, c):
    """``(holder, weight)`` of card ``c`` in the projection (holder -1: nobody, weight 0)."""
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
    if s[H_STEP_ADDRESS] != 0:
        return project_by_step(s, c, h)
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
        if status >= 0 and s[H_ZERO_TOKENS] == ZERO_TOKENS_STAYS:
            return h, WEIGHT_ONE  # nothing can take it any more
        return -1, 0
    own = loyalty_of(s[first + h], home, base, h)
    if own < best:
        multi_tie = s[H_MULTI_TIE]
        if n_best > 1 and multi_tie == MULTI_TIE_STAYS:
            # 1.0's gap: it stays while several tie above, for as long as it keeps a token.
            best = 0
        elif n_best > 1 and multi_tie != MULTI_TIE_FIRST_PLACED:
            return -1, 0  # removed (1.1, 1.2)
        else:
            if n_best > 1:
                who = first_placed_among(s, c, best, h)
            # The ownership check hands it to the one empire above: the best loyalty of the
            # others (the old holder's among them) is the one it must stay above.
            h = who
            best = 0
            for f in range(players):
                if f != h:
                    best = max(best, loyalty_of(s[first + f], home, base, f))
    chance = keep_chance(s[first + h], home, base, h, best, s[H_DIE], checks_ahead(s))
    return h, np.int64(chance * WEIGHT_ONE + 0.5)


@leaf
def supply_weight(s, e, supply, placed):
    """What seat ``e``'s ``supply`` tokens are worth: those it can still place this round and in
    the rounds left (``placed`` already this round), ``SUPPLY_WEIGHT`` each."""
    per = s[H_PER_ROUND]
    room = per - placed + per * (s[H_ROUNDS] - s[H_ROUND] - 1)
    return SUPPLY_WEIGHT * max(min(supply, room), 0)


@leaf
def seat_weight(s, e, held):
    """Seat ``e``'s projected worth (units of 1/WEIGHT_ONE characters): ``held`` (its summed
    card weights) plus its supply's."""
    return held + supply_weight(s, e, s[S_SUPPLY + e], s[S_PLACED + e])


@leaf
def seat_term(x):
    """``exp(BETA * x)`` of a seat's worth ``x`` (units of 1/WEIGHT_ONE): its term of the soft
    win share. (No shift by the largest worth: worths are at most a few dozen characters, far
    from overflow, and each seat's term then depends on its own worth alone, so the greedy agent
    recomputes only the terms a move changes.)"""
    return np.exp(BETA * x / WEIGHT_ONE)


@inline
def terms_of(s):
    """The kept soft win share terms: a float64 view of ``s``, seat ``f``'s at ``S_TERMS + f``."""
    return s.view(np.float64)


@inline
def refresh_term(s, f):
    """Recompute seat ``f``'s kept term from its kept tally, supply and placements."""
    terms_of(s)[S_TERMS + f] = seat_term(seat_weight(s, f, s[S_TALLY + f]))


@inline
def tally(s, a):
    """Summed card weights ``a[e]`` of every seat ``e`` (no supply)."""
    for e in range(s[H_PLAYERS]):
        a[e] = 0
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        if h >= 0:
            a[h] += w


@inline
def retally(s):
    """Recompute the projection kept in the state, every card."""
    for e in range(s[H_PLAYERS]):
        s[S_TALLY + e] = 0
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        s[S_PROJ_HOLDER + c] = h
        s[S_PROJ_WEIGHT + c] = w
        if h >= 0:
            s[S_TALLY + h] += w
    for e in range(s[H_PLAYERS]):
        refresh_term(s, e)


@inline
def reproject(s, c, e):
    """Update the projection kept in the state after seat ``e`` placed a token on card ``c``
    (its supply and placements already counted)."""
    h0 = s[S_PROJ_HOLDER + c]
    w0 = s[S_PROJ_WEIGHT + c]
    h1, w1 = project_card(s, c)
    if h0 >= 0:
        s[S_TALLY + h0] -= w0
    if h1 >= 0:
        s[S_TALLY + h1] += w1
    s[S_PROJ_HOLDER + c] = h1
    s[S_PROJ_WEIGHT + c] = w1
    refresh_term(s, e)
    if h0 == h1 and w0 == w1:
        return
    if h0 >= 0 and h0 != e:
        refresh_term(s, h0)
    if h1 >= 0 and h1 != e and h1 != h0:
        refresh_term(s, h1)
