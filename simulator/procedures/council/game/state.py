"""The position of a council game: array layouts, move codes, the accessors every rule uses.

Arrays only, so the whole game compiles:
  tok[p, 0..6]  tokens of player p on Land li;  tok[p, 7 + c] on Character c
  pl[p]         coins, supply, policy
  land[li]      size, civilians, soldiers, effect
  ch[c]         traits, seat (-1 pool, -2 dead), lot key, a Sycophant's leader, last Land
  g             the globals (including who holds each seat)
  law[i]        category, cost, mood, militarise, tax delta (halves), active slot or -1
  card[k]       kind, owner, target, status (0 free, 1 in hand, 2 face down), mode, turn"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game.params import (
    HEAD0,
    MAX_CARDS,
    MAX_PLAYERS,
    N_GAPS,
    N_LANDS,
    N_SEATS,
    T_COLLECTOR,
)

P_COINS, P_SUPPLY, P_POLICY = 0, 1, 2
L_SIZE, L_CIV, L_SOL, L_EFFECT = 0, 1, 2, 3
# C_LEADER: a Sycophant's last leader; C_HOME: the Land a Character headed last (-1: none)
C_TRAITS, C_SEAT, C_LOT, C_LEADER, C_HOME = 0, 1, 2, 3, 4
N_CHAR_COLS = 5
K_KIND, K_OWNER, K_TARGET, K_STATUS, K_MODE, K_TURN = range(6)
(
    G_MOOD,
    G_TREASURY,
    G_TURN,
    G_WINMASK,
    G_VICTORY,
    G_LAWS_PASSED,
    G_KILLED,
    G_CONTESTED,
    G_REP,
    G_TAX_DELTA,
    G_VETO_USED,
    G_PLAYERS,
    G_ISSUED,
    G_TO_BANK,
    G_DONE,
    G_TOKENS,
    G_VIOLATIONS,
    G_CHECK,
    G_N_LAWS,
    G_MOOD_ON,
    G_MERCS_ON,
    G_INF_COST,
    G_MERC_COST,
    G_TAX_HALF,
    G_REMOVE_VOTES,
    G_COUNCIL_VOTES,
    G_MAX_TURNS,
    G_START_COINS,
    G_START_TREASURY,
    G_RARE_COST,
    G_RARE_SCOPE,
    G_RARE_TURN,
    G_RARE_MASK,
    G_SYCOPHANT_PHASE,
    G_ADVICE,
    G_ADVISED,
    G_LEADER,
    G_LEAD_CHANGES,
    G_DECIDED_AT,
    G_RUN,
    G_TIP_EMPTY,
    G_TIP_CAP,
    G_BRIBE_CAP,
    G_EMPTY_CHANCES,
    G_GREEDY_BRIBE,
    G_TRANSFER,
    G_REVEAL_PHASES,
    G_SPY_THIEF_FIRST,
    G_ADVICE_BY_INFLUENCE,
    G_IGNORED,
    G_WINDOW,
    G_PHASE_REVEALS,
    G_ADVICE_NO_PRIORITY,
) = range(53)
G_MERC0 = 53
G_GAP0 = G_MERC0 + 5
G_HOLDER0 = G_GAP0 + N_GAPS
G_SIZE = G_HOLDER0 + N_SEATS

# Move kinds of the legal-move lists.
(
    MV_PASS,
    MV_LAND_TOKEN,
    MV_CHAR_TOKEN,
    MV_BUY_MERC,
    MV_WARLORD,
    MV_BISHOP,
    MV_LAW,
    MV_REMOVE_HEAD,
    MV_REMOVE_COUNCILLOR,
    MV_SEND,
    MV_GIVE_UP,
    MV_REVEAL,
    MV_ADVISE,
) = range(13)
ADVICE = MAX_PLAYERS  # column of ``decl``: the net advice a neutral Councillor gets


@inline
def head_tok(tok, g, p, li):
    h = g[G_HOLDER0 + HEAD0 + li]
    if h < 0:
        return np.int64(0)
    return tok[p, N_LANDS + h]


@inline
def land_owner(tok, g, li, tied):
    """Priority on Land li by Land + Head tokens (ties: more on the Head). Returns the player, -1
    when nobody has tokens, -2 when contested (``tied[p]`` then marks the contesting players)."""
    n_players = g[G_PLAYERS]
    top = np.int64(0)
    for p in range(n_players):
        c = tok[p, li] + head_tok(tok, g, p, li)
        top = max(top, c)
    if top == 0:
        return np.int64(-1)
    count = 0
    who = -1
    head_top = np.int64(-1)
    for p in range(n_players):
        if tok[p, li] + head_tok(tok, g, p, li) == top:
            count += 1
            who = p
            head_top = max(head_top, head_tok(tok, g, p, li))
    if count == 1:
        return np.int64(who)
    count = 0
    for p in range(n_players):
        tied[p] = 0
        if tok[p, li] + head_tok(tok, g, p, li) == top and head_tok(tok, g, p, li) == head_top:
            count += 1
            who = p
            tied[p] = 1
    if count == 1:
        return np.int64(who)
    return np.int64(-2)


@inline
def top_and_second(tok, n_players, col):
    """The player with strictly most tokens at col (or -1: nobody has any, or a tie) and its lead
    over the next highest count."""
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


@inline
def strict_top(tok, n_players, col):
    """The player with strictly most tokens at col, or -1 (:func:`top_and_second`)."""
    return top_and_second(tok, n_players, col)[0]


@kernel
def combined_top(tok, g, li):
    """The one player with strictly most tokens on Land li and its Head together, or -1."""
    top = np.int64(0)
    who = -1
    count = 0
    for p in range(g[G_PLAYERS]):
        x = tok[p, li] + head_tok(tok, g, p, li)
        if x > top:
            top = x
            who = p
            count = 1
        elif x == top and x > 0:
            count += 1
    return np.int64(who) if count == 1 else np.int64(-1)


@kernel
def power_user(tok, g, land, p, effect):
    """Whether p may use a Land power of this kind (Zalesye, the Golden Coast): priority on the
    Land's Head or 3+ tokens on the Land."""
    for li in range(N_LANDS):
        if land[li, L_EFFECT] != effect:
            continue
        h = g[G_HOLDER0 + HEAD0 + li]
        if (h >= 0 and strict_top(tok, g[G_PLAYERS], N_LANDS + h) == p) or tok[p, li] >= 3:
            return True
    return False


@kernel
def power_holder(tok, g, land, effect):
    """The player with priority on the Head of the (first) Land with this power, or -1."""
    for li in range(N_LANDS):
        if land[li, L_EFFECT] != effect:
            continue
        h = g[G_HOLDER0 + HEAD0 + li]
        if h >= 0:
            return strict_top(tok, g[G_PLAYERS], N_LANDS + h)
    return np.int64(-1)


@kernel
def char_owner(tok, g, c):
    """The player with strictly most tokens on Character c, or -1 (neutral)."""
    return strict_top(tok, g[G_PLAYERS], N_LANDS + c)


@kernel
def council_member(g, k):
    """Character in Council place k (0-3 the permanent seats, 4 the Representative), or -1."""
    if k < 4:
        return g[G_HOLDER0 + k]
    return g[G_REP]


@kernel
def remove_tokens(tok, pl, p, col, n):
    """Player p takes up to n of its tokens from column col back to its supply."""
    k = min(n, tok[p, col])
    tok[p, col] -= k
    pl[p, P_SUPPLY] += k
    return k


@kernel
def discard_card(tok, pl, card, k):
    """A card leaves play; the token on a face-down card returns to its owner's supply."""
    if card[k, K_STATUS] == 2:
        pl[card[k, K_OWNER], P_SUPPLY] += 1
    card[k, K_STATUS] = 0


@kernel
def give_tokens(tok, pl, p, col, n):
    """Player p puts up to n tokens from its supply on column col."""
    k = min(n, pl[p, P_SUPPLY])
    tok[p, col] += k
    pl[p, P_SUPPLY] -= k
    return k


@kernel
def vacate(g, ch, c):
    """Character c leaves its seat (to the pool)."""
    s = ch[c, C_SEAT]
    if s >= 0:
        g[G_HOLDER0 + s] = -1
    if g[G_REP] == c:
        g[G_REP] = -1
    ch[c, C_SEAT] = -1


@kernel
def kill(tok, pl, g, ch, card, c):
    """Character c is killed: out of the game, its tokens back to their supplies, cards on it
    discarded."""
    vacate(g, ch, c)
    ch[c, C_SEAT] = -2
    for p in range(g[G_PLAYERS]):
        remove_tokens(tok, pl, p, N_LANDS + c, tok[p, N_LANDS + c])
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 2 and card[k, K_TARGET] == c:
            discard_card(tok, pl, card, k)
    g[G_KILLED] += 1


@kernel
def char_total(tok, g, c):
    t = np.int64(0)
    for p in range(g[G_PLAYERS]):
        t += tok[p, N_LANDS + c]
    return t


@kernel
def land_total(tok, g, li):
    t = np.int64(0)
    for p in range(g[G_PLAYERS]):
        t += tok[p, li]
    return t


@inline
def has_trait(ch, c, t):
    return (ch[c, C_TRAITS] >> t) & 1


@kernel
def gift_size(ch, c):
    return np.int64(2 if has_trait(ch, c, T_COLLECTOR) == 1 else 1)


@kernel
def free_card(card):
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 0:
            return np.int64(k)
    return np.int64(-1)


@kernel
def hand_size(card, p):
    n = 0
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 1 and card[k, K_OWNER] == p:
            n += 1
    return n


MAX_HAND = 6
MAX_BUYS = 40
