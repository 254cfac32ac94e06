"""This game's fast ``random`` and ``greedy`` agents, and greedy as the default policy of the
search agents' playouts (``GAME.default_move``).

Both are the generic definitions (docs/agents.md, "The game interface"), computed faster for this
game:

- **random**: uniform over ``legal_moves`` (one word: ``below(word, n)``, the n-th move in
  ``legal_moves`` order), without filling a move list;
- **greedy**: one-step lookahead on the heuristic (heuristic.py): the move whose resulting
  position has the best ``heuristic`` for the mover, ties broken uniformly at random (reservoir
  sampling in move order: the k-th move tied for the best so far takes the pick when
  ``below(word, k) == 0``, one word of the decision stream per tie met). The position is scored
  right after the move, before chance: when the move ends the placement, the zone resolution and
  maintenance dice that ``apply_move`` would run next are not sampled, as the heuristic already
  projects the resolution and the ownership check and weighs the loyalty dice. (The generic
  greedy of simulator.agents samples them on a copy; scoring before chance ranks moves the same
  way without the noise of one sampled roll, and needs no copy.) A placement changes one card's
  tokens and the mover's supply, so its value is the projection kept in the state updated for
  that card alone: exact, as the projection's weights are integers.

The projection is kept in the state only when a seat needs it (``H_TRACK``, set at the start of a
game with a greedy or search seat): games of random seats do not pay for it. Greedy asked to move
in a position without it (a hand-built one) computes it on a copy first.
"""

from __future__ import annotations

from simulator.agents.streams import below
from simulator.jit import borrowed, inline, kernel, leaf
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import PASS
from simulator.procedures.recruitment.loyalty.projection import (
    WEIGHT_ONE,
    project_card,
    retally,
    seat_term,
    seat_weight,
    supply_weight,
    terms_of,
)
from simulator.procedures.recruitment.loyalty.state import (
    ANY_HOME,
    H_N_CARDS,
    H_PLAYERS,
    H_STEP_ADDRESS,
    H_TRACK,
    H_TURN,
    H_ZONE_LEN,
    IN_ZONE,
    S_BASE,
    S_HOME,
    S_PLACED,
    S_PROJ_HOLDER,
    S_PROJ_WEIGHT,
    S_STATUS,
    S_SUPPLY,
    S_TALLY,
    S_TERMS,
    S_TOKENS,
    S_ZONE,
)


@inline
def count_legal_moves(s):
    """``legal_moves``'s n without the list: zone cards, own characters, the pass."""
    e = s[H_TURN]
    n = s[H_ZONE_LEN] + 1
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            n += 1
    return n


@inline
def nth_legal_move(s, j):
    """The ``j``-th move of ``legal_moves`` order."""
    e = s[H_TURN]
    zone_len = s[H_ZONE_LEN]
    if j < zone_len:
        return s[S_ZONE + j]
    k = zone_len
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            if k == j:
                return c
            k += 1
    return PASS


@inline
def random_move(s, rng):
    return nth_legal_move(s, below(rng, count_legal_moves(s)))


@leaf
def value_after(s, move, e, players, terms, unmoved):
    """The mover's heuristic right after placing a token on ``move``, from the projection kept
    in the state: only that card's holding and the mover's supply change, so only the soft win
    share terms of the seats they touch are recomputed (``terms``: the kept terms, seat ``f``'s
    at ``S_TERMS + f``; ``unmoved``: the value of a placement that changes no card's holding,
    the same for all of them). Leaves ``s`` as it was."""
    h0 = s[S_PROJ_HOLDER + move]
    w0 = s[S_PROJ_WEIGHT + move]
    if h0 == e and w0 == WEIGHT_ONE and s[H_STEP_ADDRESS] == 0:
        # Kept for certain already: one more token cannot change the holding (under the built-in
        # cases; a designer's step may read the tokens otherwise).
        return unmoved
    i = S_TOKENS + move * MAX_PLAYERS + e
    s[i] += 1
    h1, w1 = project_card(s, move)
    s[i] -= 1
    if h0 == h1 and w0 == w1:
        return unmoved
    return share_after(s, e, players, terms, h0, w0, h1, w1)


@leaf
def is_plain(s, c, e):
    """Whether ``c`` is a zone card without tokens that is not the mover's home card, nor a card
    whose base loyalty may count for any empire (``ANY_HOME``). A first token on any such card
    makes the same projection (the mover holds it with one token, every other loyalty 0; the
    card's base counts for its home empire only), so it is worth the same whichever it is."""
    home = s[S_HOME + c]
    if s[S_STATUS + c] != IN_ZONE or home == e or (home == ANY_HOME and s[S_BASE + c] >= 1):
        return False
    first = S_TOKENS + c * MAX_PLAYERS
    tokens = 0
    for f in range(s[H_PLAYERS]):
        tokens += s[first + f]
    return tokens == 0


@leaf
def placement_value(s, c, e, players, terms, unmoved, plain):
    """``(value_after(s, c, ...), plain)``: ``plain`` is the value of a token on a plain card
    (:func:`is_plain`) once one was scored in this decision, -1 before; the default zone holds
    several, and this is what greedy's decisions mostly score."""
    if is_plain(s, c, e):
        if plain < 0.0:
            plain = value_after(s, c, e, players, terms, unmoved)
        return plain, plain
    return value_after(s, c, e, players, terms, unmoved), plain


@leaf
def share_after(s, e, players, terms, h0, w0, h1, w1):
    """The mover's soft win share after it places a token (its supply one lower) that moves a
    card's holding from ``(h0, w0)`` to ``(h1, w1)`` (``h0 == h1 == -1``: none moves)."""
    total = 0.0
    mine = 0.0
    for f in range(players):
        held = s[S_TALLY + f]
        if f == h0:
            held -= w0
        if f == h1:
            held += w1
        if f == e:
            term = seat_term(held + supply_weight(s, f, s[S_SUPPLY + f] - 1, s[S_PLACED + f] + 1))
            mine = term
        elif f in (h0, h1):
            term = seat_term(seat_weight(s, f, held))
        else:
            term = terms[S_TERMS + f]
        total += term
    return mine / total


@leaf
def _consider(v, move, best, ties, pick, rng):
    """Keep the best value and a uniform pick among the moves tied for it (reservoir sampling:
    the k-th tied move replaces the pick when ``below(word, k) == 0``, one word each)."""
    if v > best:
        return v, 1, move
    if v == best:
        ties += 1
        if below(rng, ties) == 0:
            pick = move
    return best, ties, pick


@kernel
def greedy_move(s, rng):
    """One-step lookahead on the heuristic, scored before chance (module docstring). In a
    position whose projection is not kept (``H_TRACK`` 0: a game of random seats, a hand-built
    position) it decides on a copy with the projection computed; ``s`` is never changed."""
    s = borrowed(s)
    rng = borrowed(rng)
    if s[H_TRACK] != 0:
        return tracked_greedy_move(s, rng)
    t = s.copy()
    retally(t)
    t[H_TRACK] = 1
    return tracked_greedy_move(t, rng)


@inline
def standing_terms(s):
    """What every placement's value starts from: ``(e, players, terms, here, unmoved)`` — the
    mover, the seats, the soft win share terms kept in the state (projection.terms_of), the
    pass's value (the position's own) and the value of a placement that changes no card's
    holding."""
    players = s[H_PLAYERS]
    e = s[H_TURN]
    terms = terms_of(s)
    total = 0.0
    for f in range(players):
        total += terms[S_TERMS + f]
    here = terms[S_TERMS + e] / total
    unmoved = share_after(s, e, players, terms, -1, 0, -1, 0)
    return e, players, terms, here, unmoved


@leaf
def tracked_greedy_move(s, rng):
    """:func:`greedy_move` in a position whose projection is kept (it reads and restores ``s``)."""
    e, players, terms, here, unmoved = standing_terms(s)
    best = -1.0
    ties = 0
    pick = PASS
    plain = -1.0
    for k in range(s[H_ZONE_LEN]):
        c = s[S_ZONE + k]
        v, plain = placement_value(s, c, e, players, terms, unmoved, plain)
        best, ties, pick = _consider(v, c, best, ties, pick, rng)
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            v = value_after(s, c, e, players, terms, unmoved)
            best, ties, pick = _consider(v, c, best, ties, pick, rng)
    best, ties, pick = _consider(here, PASS, best, ties, pick, rng)
    return pick


@kernel
def move_values(s, moves, n, rng, out):
    """``GAME.move_values``: the values greedy ranks ``moves[:n]`` by, into ``out[:n]`` (the
    pass: the position's own). Draws no random word (greedy draws only for ties). Like greedy,
    works on a copy with the projection computed when ``s`` does not keep it; ``s`` is never
    changed."""
    s = borrowed(s)
    moves = borrowed(moves)
    rng = borrowed(rng)
    out = borrowed(out)
    if s[H_TRACK] == 0:
        t = s.copy()
        retally(t)
        t[H_TRACK] = 1
        tracked_values(t, moves, n, out)
    else:
        tracked_values(s, moves, n, out)


@leaf
def tracked_values(s, moves, n, out):
    """:func:`move_values` in a position whose projection is kept (reads and restores ``s``)."""
    e, players, terms, here, unmoved = standing_terms(s)
    plain = -1.0
    for i in range(n):
        m = moves[i]
        if m == PASS:
            out[i] = here
        else:
            out[i], plain = placement_value(s, m, e, players, terms, unmoved, plain)
