"""The starting position of a council game and the invariants every position keeps."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.procedures.council.game import params
from simulator.procedures.council.game.context import pick, wants_scores
from simulator.procedures.council.game.heuristic import breakdown, choose, edge_of, gain_at
from simulator.procedures.council.game.params import (
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
    APPOINT_ACTION,
    BRIBE_CAP,
    CARD_OWNER,
    CARD_STATUS,
    CHARACTER_TRAITS,
    CHECK,
    CIVILIANS,
    COINS,
    COUNCIL_VOTES,
    COWARDLY_INCOME,
    GREEDY_BRIBE,
    HOLDERS,
    IGNORED_LAW,
    INFLUENCE_COST,
    ISSUED,
    LAND_EFFECT,
    LAND_SIZE,
    LAST_LAND,
    LAW_CATEGORY,
    LAW_COST,
    LAW_MILITARISE,
    LAW_MOOD,
    LAW_SLOT,
    LAW_TAX,
    LAWS_IN_DECK,
    LEADER,
    LOT_KEYS,
    MAX_BUYS,
    MAX_HAND,
    MAX_TURNS,
    MERCENARIES_ON,
    MERCENARY_COST,
    MERCENARY_DECK,
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
    SPENDING_LOT,
    SPY_THIEF_FIRST,
    START_COINS,
    START_TREASURY,
    SUPPLY,
    SYCOPHANT_LEADERS,
    SYCOPHANT_PHASE,
    TAX_DELTA,
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
    cowards_flee,
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
    n_players = np.int64(row[params.PLAYERS])
    state[:] = 0
    state[PLAYERS] = n_players
    state[TOKENS_EACH] = np.int64(row[params.TOKENS_PER_PLAYER])
    state[MOOD] = np.int64(row[params.MOOD_START])
    state[TREASURY] = np.int64(row[params.START_TREASURY])
    state[START_TREASURY] = state[TREASURY]
    state[RARE_COST] = np.int64(row[params.RARE_GIFT_COST])
    state[RARE_SCOPE] = np.int64(row[params.RARE_GIFT_PER_PLAYER])
    state[SYCOPHANT_PHASE] = np.int64(row[params.SYCOPHANT_PER_PHASE])
    state[ADVICE_ON] = np.int64(row[params.ADVICE])
    state[TIP_EMPTY] = np.int64(row[params.TIP_EMPTY_HEADS])
    state[TIP_CAP] = np.int64(row[params.TIP_CAP])
    state[BRIBE_CAP] = np.int64(row[params.BRIBE_CAP])
    state[GREEDY_BRIBE] = np.int64(row[params.GREEDY_BRIBE_HOLDER_GAINS])
    state[TRANSFER] = np.int64(row[params.TRANSFER_OTHER_LAND])
    state[REVEAL_PHASES] = np.int64(row[params.REVEAL_WINDOWS_PHASE])
    state[SPY_THIEF_FIRST] = np.int64(row[params.SPY_THIEF_FIRST])
    state[ADVICE_BY_INFLUENCE] = np.int64(row[params.ADVICE_BY_INFLUENCE])
    state[SPENDING_LOT] = np.int64(row[params.SPENDING_TIES_LOT])
    state[MAX_HAND] = np.int64(row[params.MAX_HAND])
    state[MERCENARY_DECK] = np.int64(row[params.MERCENARY_DECK])
    state[MAX_BUYS] = np.int64(row[params.MAX_BUYS])
    state[APPOINT_ACTION] = np.int64(row[params.APPOINT_BY_ACTION])
    state[COWARDLY_INCOME] = np.int64(row[params.COWARDLY_AT_INCOME])
    state[IGNORED_LAW] = -1
    state[LEADER] = -1
    state[RUN] = -1
    state[START_COINS] = np.int64(row[params.START_COINS])
    state[LAWS_IN_DECK] = np.int64(row[params.LAWS_IN_DECK])
    state[MOOD_ON] = np.int64(row[params.MOOD])
    state[MERCENARIES_ON] = np.int64(row[params.MERCENARIES])
    state[INFLUENCE_COST] = np.int64(row[params.INFLUENCE_COST])
    state[MERCENARY_COST] = np.int64(row[params.MERCENARY_COST])
    state[TAX_HALVES] = np.int64(row[params.TAX_HALVES])
    state[REMOVE_VOTES] = np.int64(row[params.REMOVE_COUNCILLOR_VOTES])
    state[COUNCIL_VOTES] = np.int64(row[params.COUNCIL_VOTES])
    state[MAX_TURNS] = np.int64(row[params.MAX_TURNS])
    state[VICTORY] = -1
    state[REPRESENTATIVE] = -1
    for p in range(n_players):
        state[COINS + p] = state[START_COINS]
        state[SUPPLY + p] = state[TOKENS_EACH]
        state[POLICY + p] = np.int64(row[params.POLICIES + p])
    for li in range(N_LANDS):
        land = params.LANDS + params.LAND_FIELDS * li
        state[LAND_SIZE + li] = np.int64(row[land + params.LAND_SIZE])
        state[CIVILIANS + li] = np.int64(row[land + params.LAND_CIVILIANS])
        state[SOLDIERS + li] = np.int64(row[land + params.LAND_SOLDIERS])
        state[LAND_EFFECT + li] = np.int64(row[land + params.LAND_EFFECT])
    for s in range(N_SEATS):
        state[HOLDERS + s] = -1
    for c in range(N_CHARS):
        character = params.CHARACTERS + params.CHARACTER_FIELDS * c
        state[CHARACTER_TRAITS + c] = np.int64(row[character + params.CHARACTER_TRAITS])
        state[SEATS + c] = np.int64(row[character + params.CHARACTER_SEAT])
        state[LOT_KEYS + c] = 0
        state[SYCOPHANT_LEADERS + c] = -1
        state[LAST_LAND + c] = state[SEATS + c] - HEAD0 if state[SEATS + c] >= HEAD0 else -1
        if state[SEATS + c] >= 0:
            state[HOLDERS + state[SEATS + c]] = c
    for i in range(MAX_LAWS):
        law = params.LAWS + params.LAW_FIELDS * i
        state[LAW_CATEGORY + i] = np.int64(row[law + params.LAW_CATEGORY])
        state[LAW_COST + i] = np.int64(row[law + params.LAW_COST])
        state[LAW_MOOD + i] = np.int64(row[law + params.LAW_MOOD])
        state[LAW_MILITARISE + i] = np.int64(row[law + params.LAW_MILITARISE])
        state[LAW_TAX + i] = np.int64(row[law + params.LAW_TAX_DELTA])
        state[LAW_SLOT + i] = -1
    # start_laws: the deck's first laws in force, in slots 0.. (their tax change applies; the
    # starting mood and population are the scenario's, so their mood and soldiers are not added).
    for i in range(np.int64(row[params.START_LAWS])):
        state[LAW_SLOT + i] = i
        state[TAX_DELTA] += state[LAW_TAX + i]
    if state[MOOD_ON] == 1 and state[MOOD] <= -3 and state[COWARDLY_INCOME] == 0:
        cowards_flee(state)  # an uprising from the start: the Cowardly leave before turn 1
    how = np.int64(row[params.SETUP_ORDER])
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)
    placement_order(context, n_players, how, seats)
    for r in range(np.int64(row[params.START_TOKENS])):
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
