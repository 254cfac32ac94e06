"""What a seat's position is worth: ``returns`` at the end, ``heuristic`` at any time.

``returns(s, out)``: each seat's win share under the win criterion (ties split), plus
``1e-3 * characters / (cards + 1)`` as a tie-break (more characters is better even when it does
not change the win).

``heuristic(s, out)`` estimates that result from what a player of this game counts: the
characters it will still hold when the game ends, and the tokens it has left to win more with.
Its parts (projection.py):

- a *projection* of the position: every card goes to the seat that would hold it if the zone were
  resolved and the ownership check run now, under the game's rule cases — a zone card to its
  sole token leader (none on a tie or with no tokens), who then faces the ownership check as a
  recruited card does in the same round; an owned card stays with its owner while the owner's
  loyalty is highest or tied for it, goes to one other empire strictly highest, and when several
  others tie above the owner goes to nobody (``multi_tie: removed``, 1.1/1.2), stays
  (``stays``, 1.0's gap) or goes to the tied rival who placed on it first (``first_placed``) —
  so a seat that ties a rival on purpose above a third empire's character sees it leave the third
  empire's projection under 1.1 and 1.2, not under 1.0; an owned card with no tokens left is
  worth nothing (``zero_tokens: removed``) or a sure 1 (``stays``: nothing can take it);
- each projected holding weighed by the chance its holder keeps it through the next loyalty
  checks (``HORIZON`` 3, fewer near the end) if nobody places more: a check costs a token with
  chance ``(die - loyalty) / die``, and the card is lost when its last token goes or its loyalty
  drops below the best rival's. A one-token character is worth 1/6 over one check, 1/216 over
  three; a safe one (loyalty >= die, or tokens to spare for every check) is worth 1;
- each token still in supply that the seat can place before the game ends, worth
  ``SUPPLY_WEIGHT`` (1/50 of a character): what keeps greedy from spending every token at once.

With ``x_e`` seat ``e``'s summed worth (characters), the estimate is a soft win share::

    heuristic_e = exp(BETA * x_e) / sum_f exp(BETA * x_f)      (sum in seat order)

in [0, 1], summing to 1 like win shares, rising with one's own worth and falling with every
rival's (so ruining the leader's character counts). (The heuristic ignores wages, that an empire
with one character skips the loyalty check, and the tokens rivals will place.) HORIZON,
SUPPLY_WEIGHT and BETA (projection.py) were tuned by greedy's win share against random seats in
the ladder scenario's game (docs/recruitment.md). A finished game's heuristic is its win share.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import borrowed, inline, kernel
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import LOYALTY_SCALE, standing
from simulator.procedures.recruitment.loyalty.projection import (
    seat_term,
    seat_weight,
    tally,
    terms_of,
)
from simulator.procedures.recruitment.loyalty.state import (
    H_N_CARDS,
    H_PHASE,
    H_PLAYERS,
    H_TRACK,
    OVER,
    S_TERMS,
)

#: Weight of the tie-break term of ``returns``.
TIE_BREAK = 1e-3


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
    """Each seat's estimated result in [0, 1] (module docstring); the win share once over.
    Reads the terms the rules keep (``H_TRACK``: the same numbers, projection.py) or computes
    them."""
    s = borrowed(s)
    out = borrowed(out)
    if s[H_PHASE] == OVER:
        win_shares(s, out)
        return
    players = s[H_PLAYERS]
    if s[H_TRACK] != 0:
        terms = terms_of(s)
        for e in range(players):
            out[e] = terms[S_TERMS + e]
    else:
        x = np.zeros(MAX_PLAYERS, dtype=np.int64)
        tally(s, x)
        for e in range(players):
            out[e] = seat_term(seat_weight(s, e, x[e]))
    total = 0.0
    for e in range(players):
        total += out[e]
    for e in range(players):
        out[e] /= total
