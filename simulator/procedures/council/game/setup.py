"""The starting position of a council game and the invariants every position keeps."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game.context import pick, wants_scores
from simulator.procedures.council.game.heuristic import breakdown, choose, edge_of, gain_at
from simulator.procedures.council.game.params import (
    H_ADVICE,
    H_ADVICE_BY_INFLUENCE,
    H_BRIBE_CAP,
    H_CHARS,
    H_COUNCIL_VOTES,
    H_GREEDY_BRIBE,
    H_INFLUENCE_COST,
    H_LANDS,
    H_LAWS,
    H_MAX_TURNS,
    H_MERC_COST,
    H_MERCS,
    H_MOOD,
    H_MOOD_START,
    H_N_LAWS,
    H_PLAYERS,
    H_POLICY,
    H_RARE_COST,
    H_RARE_SCOPE,
    H_REMOVE_VOTES,
    H_REVEAL_PHASES,
    H_SETUP_ORDER,
    H_SPY_THIEF_FIRST,
    H_START_COINS,
    H_START_TOKENS,
    H_SYCOPHANT_PHASE,
    H_TAX_HALF,
    H_TIP_CAP,
    H_TIP_EMPTY,
    H_TOKENS,
    H_TRANSFER,
    H_TREASURY,
    HEAD0,
    MAX_CARDS,
    MAX_LAWS,
    MAX_MOVES,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    N_SEATS,
    SETUP_RANDOM,
    SETUP_ROTATING,
    SETUP_SNAKE,
)
from simulator.procedures.council.game.state import (
    C_HOME,
    C_LEADER,
    C_LOT,
    C_SEAT,
    C_TRAITS,
    G_ADVICE,
    G_ADVICE_BY_INFLUENCE,
    G_BRIBE_CAP,
    G_CHECK,
    G_COUNCIL_VOTES,
    G_GREEDY_BRIBE,
    G_HOLDER0,
    G_IGNORED,
    G_INF_COST,
    G_ISSUED,
    G_LEADER,
    G_MAX_TURNS,
    G_MERC_COST,
    G_MERCS_ON,
    G_MOOD,
    G_MOOD_ON,
    G_N_LAWS,
    G_PLAYERS,
    G_RARE_COST,
    G_RARE_SCOPE,
    G_REMOVE_VOTES,
    G_REP,
    G_REVEAL_PHASES,
    G_RUN,
    G_SPY_THIEF_FIRST,
    G_START_COINS,
    G_START_TREASURY,
    G_SYCOPHANT_PHASE,
    G_TAX_HALF,
    G_TIP_CAP,
    G_TIP_EMPTY,
    G_TO_BANK,
    G_TOKENS,
    G_TRANSFER,
    G_TREASURY,
    G_VICTORY,
    G_VIOLATIONS,
    K_OWNER,
    K_STATUS,
    L_CIV,
    L_EFFECT,
    L_SIZE,
    L_SOL,
    MV_CHAR_TOKEN,
    MV_LAND_TOKEN,
    P_COINS,
    P_POLICY,
    P_SUPPLY,
    give_tokens,
)
from simulator.procedures.council.game.victory import check_victory


@kernel
def violations(tok, pl, g, ch, land, card):
    """Broken invariants of a position (tokens, coins, population, seats); 0 when all hold."""
    bad = 0
    n_players = g[G_PLAYERS]
    coins = g[G_TREASURY] + g[G_TO_BANK]
    for p in range(n_players):
        total = pl[p, P_SUPPLY]
        if pl[p, P_SUPPLY] < 0 or pl[p, P_COINS] < 0:
            bad += 1
        for col in range(N_LANDS + N_CHARS):
            total += tok[p, col]
            if tok[p, col] < 0:
                bad += 1
        for k in range(MAX_CARDS):
            if card[k, K_STATUS] == 2 and card[k, K_OWNER] == p:
                total += 1
        if total != g[G_TOKENS]:
            bad += 1
        coins += pl[p, P_COINS]
    if coins != n_players * g[G_START_COINS] + g[G_START_TREASURY] + g[G_ISSUED]:
        bad += 1
    if g[G_TREASURY] < 0:
        bad += 1
    for li in range(N_LANDS):
        if land[li, L_CIV] < 0 or land[li, L_SOL] < 0:
            bad += 1
        if land[li, L_CIV] + land[li, L_SOL] > land[li, L_SIZE]:
            bad += 1
    for s in range(N_SEATS):
        h = g[G_HOLDER0 + s]
        if h >= 0 and ch[h, C_SEAT] != s:
            bad += 1
    for c in range(N_CHARS):
        s = ch[c, C_SEAT]
        if s >= 0 and g[G_HOLDER0 + s] != c:
            bad += 1
        if s == -2:
            for p in range(n_players):
                if tok[p, N_LANDS + c] != 0:
                    bad += 1
    if g[G_MOOD] < -3 or g[G_MOOD] > 3:
        bad += 1
    return bad


@kernel
def scratch():
    """The work arrays the phases share: moves, scores, tied players, candidates, votes, acting
    order, Land owners, contests, declarations."""
    return (
        np.zeros((MAX_MOVES, 5), dtype=np.int64),
        np.zeros(MAX_MOVES, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
        np.zeros(N_CHARS + 1, dtype=np.int64),
        np.zeros(N_CHARS + 1, dtype=np.int64),
        np.zeros(N_CHARS, dtype=np.int64),
        np.zeros(N_LANDS, dtype=np.int64),
        np.zeros((N_LANDS, MAX_PLAYERS), dtype=np.int64),
        np.zeros((5, MAX_PLAYERS + 1), dtype=np.int64),
    )


@kernel
def placement_order(st, n_players, how, seats):
    """The seats' order in setup placement round 0 (``seats``) for ``how`` (params.SETUP_ORDERS):
    seat order, or for ``random`` one order drawn from the game's stream (a Fisher-Yates
    shuffle, one lot per seat but the last; no word is read for the other orders)."""
    for k in range(n_players):
        seats[k] = k
    if how == SETUP_RANDOM:
        for i in range(n_players - 1, 0, -1):
            j = pick(st, i + 1)
            seats[i], seats[j] = seats[j], seats[i]


@inline
def placer(seats, n_players, how, r, k):
    """The k-th seat to place in setup placement round r: ``rotating`` starts round r at seat r,
    ``snake`` runs every odd round backwards, ``fixed`` and ``random`` keep round 0's order."""
    if how == SETUP_ROTATING:
        return seats[(r + k) % n_players]
    if how == SETUP_SNAKE and r % 2 == 1:
        return seats[n_players - 1 - k]
    return seats[k]


@kernel
def setup(row, st, tok, pl, g, ch, land, law, card, mv, score, tied):
    """The starting position, then the players place ``start_tokens`` tokens each, one at a time,
    in the ``setup_order`` (an invented setup: the rulebook lays out the cards only)."""
    n_players = np.int64(row[H_PLAYERS])
    tok[:, :] = 0
    g[:] = 0
    card[:, :] = 0
    g[G_PLAYERS] = n_players
    g[G_TOKENS] = np.int64(row[H_TOKENS])
    g[G_MOOD] = np.int64(row[H_MOOD_START])
    g[G_TREASURY] = np.int64(row[H_TREASURY])
    g[G_START_TREASURY] = g[G_TREASURY]
    g[G_RARE_COST] = np.int64(row[H_RARE_COST])
    g[G_RARE_SCOPE] = np.int64(row[H_RARE_SCOPE])
    g[G_SYCOPHANT_PHASE] = np.int64(row[H_SYCOPHANT_PHASE])
    g[G_ADVICE] = np.int64(row[H_ADVICE])
    g[G_TIP_EMPTY] = np.int64(row[H_TIP_EMPTY])
    g[G_TIP_CAP] = np.int64(row[H_TIP_CAP])
    g[G_BRIBE_CAP] = np.int64(row[H_BRIBE_CAP])
    g[G_GREEDY_BRIBE] = np.int64(row[H_GREEDY_BRIBE])
    g[G_TRANSFER] = np.int64(row[H_TRANSFER])
    g[G_REVEAL_PHASES] = np.int64(row[H_REVEAL_PHASES])
    g[G_SPY_THIEF_FIRST] = np.int64(row[H_SPY_THIEF_FIRST])
    g[G_ADVICE_BY_INFLUENCE] = np.int64(row[H_ADVICE_BY_INFLUENCE])
    g[G_IGNORED] = -1
    g[G_LEADER] = -1
    g[G_RUN] = -1
    g[G_START_COINS] = np.int64(row[H_START_COINS])
    g[G_N_LAWS] = np.int64(row[H_N_LAWS])
    g[G_MOOD_ON] = np.int64(row[H_MOOD])
    g[G_MERCS_ON] = np.int64(row[H_MERCS])
    g[G_INF_COST] = np.int64(row[H_INFLUENCE_COST])
    g[G_MERC_COST] = np.int64(row[H_MERC_COST])
    g[G_TAX_HALF] = np.int64(row[H_TAX_HALF])
    g[G_REMOVE_VOTES] = np.int64(row[H_REMOVE_VOTES])
    g[G_COUNCIL_VOTES] = np.int64(row[H_COUNCIL_VOTES])
    g[G_MAX_TURNS] = np.int64(row[H_MAX_TURNS])
    g[G_VICTORY] = -1
    g[G_REP] = -1
    for p in range(n_players):
        pl[p, P_COINS] = g[G_START_COINS]
        pl[p, P_SUPPLY] = g[G_TOKENS]
        pl[p, P_POLICY] = np.int64(row[H_POLICY + p])
    for li in range(N_LANDS):
        land[li, L_SIZE] = np.int64(row[H_LANDS + 4 * li])
        land[li, L_CIV] = np.int64(row[H_LANDS + 4 * li + 1])
        land[li, L_SOL] = np.int64(row[H_LANDS + 4 * li + 2])
        land[li, L_EFFECT] = np.int64(row[H_LANDS + 4 * li + 3])
    for s in range(N_SEATS):
        g[G_HOLDER0 + s] = -1
    for c in range(N_CHARS):
        ch[c, C_TRAITS] = np.int64(row[H_CHARS + 2 * c])
        ch[c, C_SEAT] = np.int64(row[H_CHARS + 2 * c + 1])
        ch[c, C_LOT] = 0
        ch[c, C_LEADER] = -1
        ch[c, C_HOME] = ch[c, C_SEAT] - HEAD0 if ch[c, C_SEAT] >= HEAD0 else -1
        if ch[c, C_SEAT] >= 0:
            g[G_HOLDER0 + ch[c, C_SEAT]] = c
    for i in range(MAX_LAWS):
        for j in range(5):
            law[i, j] = np.int64(row[H_LAWS + 5 * i + j])
        law[i, 5] = -1
    how = np.int64(row[H_SETUP_ORDER])
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)
    placement_order(st, n_players, how, seats)
    for r in range(np.int64(row[H_START_TOKENS])):
        for k in range(n_players):
            p = placer(seats, n_players, how, r, k)
            if pl[p, P_SUPPLY] == 0:
                continue
            n = 0
            scored = wants_scores(st, pl, p)
            if scored:
                bd = breakdown(tok, g, ch, land, tied)
                base = edge_of(bd, pl, g, p)
            for col in range(N_LANDS + N_CHARS):
                if col >= N_LANDS and ch[col - N_LANDS, C_SEAT] < 0:
                    continue
                mv[n, 0] = MV_LAND_TOKEN if col < N_LANDS else MV_CHAR_TOKEN
                mv[n, 1] = col
                if scored:
                    score[n] = gain_at(
                        bd, base, tok, pl, g, ch, land, p, col, np.int64(1), np.int64(0), tied
                    )
                n += 1
            i = choose(st, pl, p, n, score)
            give_tokens(tok, pl, p, mv[i, 1], 1)
            if check_victory(tok, g, land, ch):
                return


@kernel
def audit(tok, pl, g, ch, land, card):
    if g[G_CHECK] == 1:
        g[G_VIOLATIONS] += violations(tok, pl, g, ch, land, card)
