"""What a seat's position is worth: ``returns`` at the end, ``heuristic`` at any time.

``returns(s, out)``: each seat's win share under the win criterion (ties split), plus
``1e-3 * characters / (cards + 1)`` as a tie-break (more characters is better even when it does
not change the win).

``heuristic(s, out)`` estimates that result from a *projection* of the position: every card is
given to the seat that would hold it if the zone were resolved and the ownership check run now,
under the game's revision —

- a zone card goes to its sole token leader (none on a tie or with no tokens), then faces the
  ownership check with it as owner (as a recruited card does in the same round);
- an owned card stays with its owner while the owner's loyalty is highest or tied for it, goes to
  one other empire strictly highest, and under 1.1/1.2 goes to nobody when several others tie
  above the owner (1.0: it stays, the gap's default); a card with no tokens goes to nobody.

So a seat that ties a rival on purpose above a third empire's character sees that character leave
the third empire's projection under 1.1 and 1.2, not under 1.0. Each projected holding is weighed
by its chance to survive one loyalty die: when a single lost loyalty would cost the holder the card
(its last token, or a loyalty tie it would then lose), the weight is ``loyalty / die`` (the die
beats the loyalty with probability ``(die - loyalty) / die``), otherwise 1 — so defending a thin
hold is worth a token. (The heuristic ignores that an empire with one character skips the die, and
wages.) Then, with ``n_e`` projected characters and ``x_e`` their weighed sum::

    heuristic_e = 0.5 * share_e + 0.5 * (x_e + 1) / (x_e + max_{f != e} x_f + 2)

where ``share_e`` is the win share the projected counts ``n`` would give (ties split). Both terms
are in [0, 1]; the first is the seat's result if the game ended on the projection, the second
rewards gaining on the best rival even when the leader does not change. Weights are kept as
integers in units of ``1 / die`` so that an incremental evaluation (the greedy agent's) adds up
exactly as a full one. A finished game's heuristic is its win share.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.recruitment.loyalty.ownership import REVISION_1_0, loyalty_of
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import LOYALTY_SCALE, standing
from simulator.procedures.recruitment.loyalty.state import (
    H_DIE,
    H_N_CARDS,
    H_PHASE,
    H_PLAYERS,
    H_REVISION,
    IN_ZONE,
    OVER,
    S_BASE,
    S_HOME,
    S_STATUS,
    S_TOKENS,
)

#: Weight of the tie-break term of ``returns``.
TIE_BREAK = 1e-3


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
def tally(s, count, weight):
    """Projected characters ``count[e]`` and their weights ``weight[e]`` (units of 1/die)."""
    for e in range(s[H_PLAYERS]):
        count[e] = 0
        weight[e] = 0
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        if h >= 0:
            count[h] += 1
            weight[h] += w


@inline
def value_of(count, weight, e, players, die):
    """Seat ``e``'s heuristic from the projected counts and weights (module docstring)."""
    top = -1
    k = 0
    rival = 0
    for f in range(players):
        if count[f] > top:
            top = count[f]
            k = 1
        elif count[f] == top:
            k += 1
        if f != e and weight[f] > rival:
            rival = weight[f]
    share = 1.0 / k if count[e] == top else 0.0
    mine = weight[e]
    return 0.5 * share + 0.5 * (mine + die) / (mine + rival + 2 * die)


@inline
def win_shares(s, out):
    """Each seat's share of the win under the win criterion (ties split)."""
    players = s[H_PLAYERS]
    top = -1
    k = 0
    for e in range(players):
        v = standing(s, e)
        out[e] = v
        if v > top:
            top = v
            k = 1
        elif v == top:
            k += 1
    for e in range(players):
        out[e] = 1.0 / k if out[e] == top else 0.0


@kernel
def returns(s, out):
    """Each seat's final result: win share plus ``1e-3 * characters / (cards + 1)``."""
    players = s[H_PLAYERS]
    n_cards = s[H_N_CARDS]
    win_shares(s, out)
    for e in range(players):
        owned = standing(s, e) // LOYALTY_SCALE
        out[e] += TIE_BREAK * owned / (n_cards + 1)


@kernel
def heuristic(s, out):
    """Each seat's estimated result in [0, 1] (module docstring); the win share once over."""
    if s[H_PHASE] == OVER:
        win_shares(s, out)
        return
    players = s[H_PLAYERS]
    count = np.zeros(MAX_PLAYERS, dtype=np.int64)
    weight = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tally(s, count, weight)
    die = s[H_DIE]
    for e in range(players):
        out[e] = value_of(count, weight, e, players, die)
