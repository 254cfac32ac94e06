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
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    N_SEATS,
    SETUP_RANDOM,
    SETUP_ROTATING,
    SETUP_SNAKE,
)
from simulator.procedures.council.game.state import (
    ADVICE_BY_INFLUENCE,
    ADVICE_ON,
    BRIBE_CAP,
    CARD_OWNER,
    CARD_STATUS,
    CHARACTER_TRAITS,
    CHECK,
    CIVILIANS,
    COINS,
    COUNCIL_VOTES,
    GREEDY_BRIBE,
    HOLDERS,
    IGNORED_LAW,
    INFLUENCE_COST,
    ISSUED,
    LAND_EFFECT,
    LAND_SIZE,
    LAST_LAND,
    LAW_CATEGORY,
    LAW_SLOT,
    LAWS_IN_DECK,
    LEADER,
    LOT_KEYS,
    MAX_TURNS,
    MERCENARIES_ON,
    MERCENARY_COST,
    MOOD,
    MOOD_ON,
    MOVE_CHAR_TOKEN,
    MOVE_FIELDS,
    MOVE_LAND_TOKEN,
    MOVES,
    N_COL,
    PLAYERS,
    POLICY,
    RARE_COST,
    RARE_SCOPE,
    REMOVE_VOTES,
    REPRESENTATIVE,
    REVEAL_PHASES,
    RUN,
    SCORES,
    SEATS,
    SOLDIERS,
    SPY_THIEF_FIRST,
    START_COINS,
    START_TREASURY,
    SUPPLY,
    SYCOPHANT_LEADERS,
    SYCOPHANT_PHASE,
    TAX_HALVES,
    TIP_CAP,
    TIP_EMPTY,
    TO_BANK,
    TOKENS,
    TOKENS_EACH,
    TRANSFER,
    TREASURY,
    VICTORY,
    VIOLATIONS,
    give_tokens,
)
from simulator.procedures.council.game.victory import check_victory


@kernel
def violations(state):
    """Broken invariants of a position (tokens, coins, population, seats); 0 when all hold."""
    bad = 0
    n_players = state[PLAYERS]
    coins = state[TREASURY] + state[TO_BANK]
    for p in range(n_players):
        total = state[SUPPLY + p]
        if state[SUPPLY + p] < 0 or state[COINS + p] < 0:
            bad += 1
        for col in range(N_LANDS + N_CHARS):
            total += state[TOKENS + p * N_COL + col]
            if state[TOKENS + p * N_COL + col] < 0:
                bad += 1
        for k in range(MAX_CARDS):
            if state[CARD_STATUS + k] == 2 and state[CARD_OWNER + k] == p:
                total += 1
        if total != state[TOKENS_EACH]:
            bad += 1
        coins += state[COINS + p]
    if coins != n_players * state[START_COINS] + state[START_TREASURY] + state[ISSUED]:
        bad += 1
    if state[TREASURY] < 0:
        bad += 1
    for li in range(N_LANDS):
        if state[CIVILIANS + li] < 0 or state[SOLDIERS + li] < 0:
            bad += 1
        if state[CIVILIANS + li] + state[SOLDIERS + li] > state[LAND_SIZE + li]:
            bad += 1
    for s in range(N_SEATS):
        h = state[HOLDERS + s]
        if h >= 0 and state[SEATS + h] != s:
            bad += 1
    for c in range(N_CHARS):
        s = state[SEATS + c]
        if s >= 0 and state[HOLDERS + s] != c:
            bad += 1
        if s == -2:
            for p in range(n_players):
                if state[TOKENS + p * N_COL + N_LANDS + c] != 0:
                    bad += 1
    if state[MOOD] < -3 or state[MOOD] > 3:
        bad += 1
    return bad


@kernel
def placement_order(context, n_players, how, seats):
    """The seats' order in setup placement round 0 (``seats``) for ``how`` (params.SETUP_ORDERS):
    seat order, or for ``random`` one order drawn from the game's stream (a Fisher-Yates
    shuffle, one lot per seat but the last; no word is read for the other orders)."""
    for k in range(n_players):
        seats[k] = k
    if how == SETUP_RANDOM:
        for i in range(n_players - 1, 0, -1):
            j = pick(context, i + 1)
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
def setup(row, context, state, scratch):
    """The starting position, then the players place ``start_tokens`` tokens each, one at a time,
    in the ``setup_order`` (an invented setup: the rulebook lays out the cards only)."""
    n_players = np.int64(row[H_PLAYERS])
    state[:] = 0
    state[PLAYERS] = n_players
    state[TOKENS_EACH] = np.int64(row[H_TOKENS])
    state[MOOD] = np.int64(row[H_MOOD_START])
    state[TREASURY] = np.int64(row[H_TREASURY])
    state[START_TREASURY] = state[TREASURY]
    state[RARE_COST] = np.int64(row[H_RARE_COST])
    state[RARE_SCOPE] = np.int64(row[H_RARE_SCOPE])
    state[SYCOPHANT_PHASE] = np.int64(row[H_SYCOPHANT_PHASE])
    state[ADVICE_ON] = np.int64(row[H_ADVICE])
    state[TIP_EMPTY] = np.int64(row[H_TIP_EMPTY])
    state[TIP_CAP] = np.int64(row[H_TIP_CAP])
    state[BRIBE_CAP] = np.int64(row[H_BRIBE_CAP])
    state[GREEDY_BRIBE] = np.int64(row[H_GREEDY_BRIBE])
    state[TRANSFER] = np.int64(row[H_TRANSFER])
    state[REVEAL_PHASES] = np.int64(row[H_REVEAL_PHASES])
    state[SPY_THIEF_FIRST] = np.int64(row[H_SPY_THIEF_FIRST])
    state[ADVICE_BY_INFLUENCE] = np.int64(row[H_ADVICE_BY_INFLUENCE])
    state[IGNORED_LAW] = -1
    state[LEADER] = -1
    state[RUN] = -1
    state[START_COINS] = np.int64(row[H_START_COINS])
    state[LAWS_IN_DECK] = np.int64(row[H_N_LAWS])
    state[MOOD_ON] = np.int64(row[H_MOOD])
    state[MERCENARIES_ON] = np.int64(row[H_MERCS])
    state[INFLUENCE_COST] = np.int64(row[H_INFLUENCE_COST])
    state[MERCENARY_COST] = np.int64(row[H_MERC_COST])
    state[TAX_HALVES] = np.int64(row[H_TAX_HALF])
    state[REMOVE_VOTES] = np.int64(row[H_REMOVE_VOTES])
    state[COUNCIL_VOTES] = np.int64(row[H_COUNCIL_VOTES])
    state[MAX_TURNS] = np.int64(row[H_MAX_TURNS])
    state[VICTORY] = -1
    state[REPRESENTATIVE] = -1
    for p in range(n_players):
        state[COINS + p] = state[START_COINS]
        state[SUPPLY + p] = state[TOKENS_EACH]
        state[POLICY + p] = np.int64(row[H_POLICY + p])
    for li in range(N_LANDS):
        state[LAND_SIZE + li] = np.int64(row[H_LANDS + 4 * li])
        state[CIVILIANS + li] = np.int64(row[H_LANDS + 4 * li + 1])
        state[SOLDIERS + li] = np.int64(row[H_LANDS + 4 * li + 2])
        state[LAND_EFFECT + li] = np.int64(row[H_LANDS + 4 * li + 3])
    for s in range(N_SEATS):
        state[HOLDERS + s] = -1
    for c in range(N_CHARS):
        state[CHARACTER_TRAITS + c] = np.int64(row[H_CHARS + 2 * c])
        state[SEATS + c] = np.int64(row[H_CHARS + 2 * c + 1])
        state[LOT_KEYS + c] = 0
        state[SYCOPHANT_LEADERS + c] = -1
        state[LAST_LAND + c] = state[SEATS + c] - HEAD0 if state[SEATS + c] >= HEAD0 else -1
        if state[SEATS + c] >= 0:
            state[HOLDERS + state[SEATS + c]] = c
    for i in range(MAX_LAWS):
        for j in range(5):
            state[LAW_CATEGORY + MAX_LAWS * j + i] = np.int64(row[H_LAWS + 5 * i + j])
        state[LAW_SLOT + i] = -1
    how = np.int64(row[H_SETUP_ORDER])
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)
    placement_order(context, n_players, how, seats)
    for r in range(np.int64(row[H_START_TOKENS])):
        for k in range(n_players):
            p = placer(seats, n_players, how, r, k)
            if state[SUPPLY + p] == 0:
                continue
            n = 0
            scored = wants_scores(context, state, p)
            if scored:
                bd = breakdown(state, scratch)
                base = edge_of(bd, state, p)
            for col in range(N_LANDS + N_CHARS):
                if col >= N_LANDS and state[SEATS + col - N_LANDS] < 0:
                    continue
                scratch[MOVES + MOVE_FIELDS * n] = (
                    MOVE_LAND_TOKEN if col < N_LANDS else MOVE_CHAR_TOKEN
                )
                scratch[MOVES + MOVE_FIELDS * n + 1] = col
                if scored:
                    scratch[SCORES + n] = gain_at(
                        bd, base, state, p, col, np.int64(1), np.int64(0), scratch
                    )
                n += 1
            i = choose(context, state, p, n, scratch)
            give_tokens(state, p, scratch[MOVES + MOVE_FIELDS * i + 1], 1)
            if check_victory(state):
                return


@kernel
def audit(state):
    if state[CHECK] == 1:
        state[VIOLATIONS] += violations(state)
