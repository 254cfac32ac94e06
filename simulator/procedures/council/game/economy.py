"""Income, spending and tax: the coins of the game."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.context import choose_tagged, pick, wants_scores
from simulator.procedures.council.game.heuristic import (
    CARD,
    MESSENGER_CARD,
    SCALE,
    breakdown,
    choose,
    edge_of,
    gain_at,
)
from simulator.procedures.council.game.params import (
    E_IGNORE_LAW,
    E_INCOME_BONUS,
    E_MERC_DISCOUNT,
    E_MOOD_IMMUNE,
    E_WARLORD_TAX,
    GAP_BUY_CAP,
    GAP_DECK_CAP,
    GAP_HAND_CAP,
    HEAD0,
    MAX_PLAYERS,
    MESSENGER,
    N_LANDS,
    T_DOMINEERING,
    T_THRIFTY,
    T_WASTEFUL,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    CARD_KIND,
    CARD_MODE,
    CARD_OWNER,
    CARD_STATUS,
    CARD_TARGET,
    CARD_TURN,
    CIVILIANS,
    COINS,
    CONTEST,
    CONTESTED,
    COWARDLY_INCOME,
    GAP_COUNTS,
    HOLDERS,
    IGNORED_LAW,
    INFLUENCE_COST,
    ISSUED,
    LAND_EFFECT,
    LAND_SIZE,
    LAW_TAX,
    MAX_BUYS,
    MAX_HAND,
    MERCENARIES_ON,
    MERCENARY_COST,
    MOOD,
    MOOD_ON,
    MOVE_BUY_MERC,
    MOVE_FIELDS,
    MOVE_GIVE_UP,
    MOVE_LAND_TOKEN,
    MOVE_PASS,
    MOVES,
    OWNERS,
    PLAYERS,
    SCORES,
    SOLDIERS,
    SPENDING_LOT,
    SPENDING_TIED,
    SUPPLY,
    TAX_DELTA,
    TAX_HALVES,
    TIED,
    TO_BANK,
    TREASURY,
    TURN,
    char_owner,
    combined_top,
    cowards_flee,
    free_card,
    give_tokens,
    hand_size,
    has_trait,
    land_owner,
    power_user,
    remove_tokens,
)
from simulator.procedures.council.game.victory import (
    check_victory,
)


@kernel
def income_value(state, li, base, controlled):
    """A Land's income: ``base`` coins (civilians, or 1 when contested), the Head's Thrifty (+1)
    or Wasteful (-1) for its controller, then the mood track: -3 nothing, -2 nothing where
    soldiers < civilians (unless the Head is Domineering), +3 one more coin."""
    v = base
    h = state[HOLDERS + HEAD0 + li]
    if controlled and h >= 0:
        v += has_trait(state, h, T_THRIFTY) - has_trait(state, h, T_WASTEFUL)
    if state[MOOD_ON] == 1 and state[LAND_EFFECT + li] != E_MOOD_IMMUNE:
        mood = state[MOOD]
        if mood <= -3:
            return np.int64(0)
        unrest = mood == -2 and state[SOLDIERS + li] < state[CIVILIANS + li]
        if unrest and (h < 0 or has_trait(state, h, T_DOMINEERING) == 0):
            return np.int64(0)
        if mood >= 3:
            v += 1
    return np.int64(max(v, 0))


@kernel
def income_phase(context, state, scratch):
    """Income by priority on each Land; contested Lands pay 1 coin to each tied player. A player
    may give up one Land's income to add a civilian there; the victory conditions are checked
    once the civilians are added (Victory: "the moment one is reached")."""
    n_players = state[PLAYERS]
    if state[MOOD_ON] == 1 and state[MOOD] <= -3 and state[COWARDLY_INCOME] == 1:
        # cowardly_leaves: income: while the uprising lasts, the Cowardly leave at each income.
        cowards_flee(state)
    for li in range(N_LANDS):
        scratch[OWNERS + li] = land_owner(state, li, scratch)
        for p in range(n_players):
            scratch[CONTEST + MAX_PLAYERS * li + p] = (
                scratch[TIED + p] if scratch[OWNERS + li] == -2 else 0
            )
    give_up = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for p in range(n_players):
        n = 1
        scratch[MOVES] = MOVE_PASS
        scratch[SCORES] = 0
        for li in range(N_LANDS):
            if (
                scratch[OWNERS + li] == p
                and state[CIVILIANS + li] + state[SOLDIERS + li] < state[LAND_SIZE + li]
            ):
                scratch[MOVES + MOVE_FIELDS * n] = MOVE_GIVE_UP
                scratch[MOVES + MOVE_FIELDS * n + 1] = li
                scratch[SCORES + n] = 0
                n += 1
        i = choose(context, state, p, n, scratch)
        if scratch[MOVES + MOVE_FIELDS * i] == MOVE_GIVE_UP:
            give_up[p] = scratch[MOVES + MOVE_FIELDS * i + 1]
    for li in range(N_LANDS):
        o = scratch[OWNERS + li]
        if o >= 0:
            if give_up[o] == li:
                continue
            v = income_value(state, li, state[CIVILIANS + li], True)
            state[COINS + o] += v
            state[ISSUED] += v
        elif o == -2:
            state[CONTESTED] += 1
            v = income_value(state, li, 1, False)
            for p in range(n_players):
                if scratch[CONTEST + MAX_PLAYERS * li + p] == 1:
                    state[COINS + p] += v
                    state[ISSUED] += v
    for li in range(N_LANDS):
        # Black Harbour: +1 coin in any conditions to the one player with most Land + Head
        # tokens; a tie on that total gives it to nobody (rulebook: no Head tie-break here).
        if state[LAND_EFFECT + li] == E_INCOME_BONUS:
            q = combined_top(state, li)
            if q >= 0:
                state[COINS + q] += 1
                state[ISSUED] += 1
    added = False
    for p in range(n_players):
        if give_up[p] >= 0:
            state[CIVILIANS + give_up[p]] += 1
            added = True
    if added:
        check_victory(state)


@kernel
def merc_cost(state, p):
    """Mercenary price for p: 1 less with priority on a Zalesye-like Land's Head or 3+ tokens on
    the Land (at most 1 less, never below 1)."""
    if power_user(state, p, E_MERC_DISCOUNT):
        return np.int64(max(state[MERCENARY_COST] - 1, 1))
    return state[MERCENARY_COST]


@kernel
def spending_order(context, state):
    """The players from the poorest to the richest (Council rules §2); players with the same
    coins in an order drawn by lot (``spending_ties: lot``: a Fisher-Yates shuffle of each tied
    run, a lot per player but the last, no word read without a tie) or the lower seat first
    (``seat``). A phase with a tie is counted (``spending_ties``)."""
    n_players = state[PLAYERS]
    order = np.zeros(n_players, dtype=np.int64)
    for p in range(n_players):
        order[p] = p
    for i in range(1, n_players):
        p = order[i]
        j = i - 1
        while j >= 0 and state[COINS + order[j]] > state[COINS + p]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p
    tied = False
    start = 0
    while start < n_players:
        end = start + 1
        while end < n_players and state[COINS + order[end]] == state[COINS + order[start]]:
            end += 1
        if end - start > 1:
            tied = True
            if state[SPENDING_LOT] == 1:
                for i in range(end - start - 1, 0, -1):
                    j = pick(context, i + 1)
                    a = order[start + i]
                    order[start + i] = order[start + j]
                    order[start + j] = a
        start = end
    if tied:
        state[SPENDING_TIED] += 1
    return order


@kernel
def spending_phase(context, state, scratch):
    """Poorest player first (ties: ``spending_ties``, by lot or the lower seat first): each buys
    influence on Lands and Mercenaries until it stops (or reaches the invented ``max_buys``)."""
    n_players = state[PLAYERS]
    order = spending_order(context, state)
    for idx in range(n_players):
        p = order[idx]
        buys = 0
        while True:
            if buys >= state[MAX_BUYS]:
                state[GAP_COUNTS + GAP_BUY_CAP] += 1
                break
            buys += 1
            n = 1
            scratch[MOVES] = MOVE_PASS
            scratch[SCORES] = 0
            scored = wants_scores(context, state, p)
            if scored:
                bd = breakdown(state, scratch)
                base = edge_of(bd, state, p)
            if state[COINS + p] >= state[INFLUENCE_COST] and state[SUPPLY + p] > 0:
                for li in range(N_LANDS):
                    scratch[MOVES + MOVE_FIELDS * n] = MOVE_LAND_TOKEN
                    scratch[MOVES + MOVE_FIELDS * n + 1] = li
                    scratch[SCORES + n] = 0
                    if scored:
                        cost = -state[INFLUENCE_COST]
                        scratch[SCORES + n] = gain_at(
                            bd, base, state, p, li, np.int64(1), cost, scratch
                        )
                    n += 1
            price = merc_cost(state, p)
            first_merc = -1
            could_buy = state[MERCENARIES_ON] == 1 and state[COINS + p] >= price
            if could_buy and hand_size(state, p) >= state[MAX_HAND]:
                state[GAP_COUNTS + GAP_HAND_CAP] += 1
            elif could_buy and free_card(state) < 0:
                state[GAP_COUNTS + GAP_DECK_CAP] += 1
            elif could_buy:
                first_merc = n
                paid = 0
                if scored:
                    paid = gain_at(bd, base, state, p, np.int64(-1), np.int64(0), -price, scratch)
                for kind in range(5):
                    scratch[MOVES + MOVE_FIELDS * n] = MOVE_BUY_MERC
                    scratch[MOVES + MOVE_FIELDS * n + 1] = kind
                    scratch[SCORES + n] = 0
                    if scored:
                        # A card is worth CARD; a Messenger, a gift of a token to come, more.
                        extra = MESSENGER_CARD if kind == MESSENGER else 0.0
                        scratch[SCORES + n] = paid + np.int64(round((CARD + extra) * SCALE))
                    n += 1
            i = choose_tagged(context, state, p, n, scratch, first_merc)
            if scratch[MOVES + MOVE_FIELDS * i] == MOVE_PASS:
                break
            if scratch[MOVES + MOVE_FIELDS * i] == MOVE_LAND_TOKEN:
                state[COINS + p] -= state[INFLUENCE_COST]
                state[TO_BANK] += state[INFLUENCE_COST]
                give_tokens(state, p, scratch[MOVES + MOVE_FIELDS * i + 1], 1)
                if check_victory(state):
                    return
            else:
                state[COINS + p] -= price
                state[TO_BANK] += price
                k = free_card(state)
                state[CARD_KIND + k] = scratch[MOVES + MOVE_FIELDS * i + 1]
                state[CARD_OWNER + k] = p
                state[CARD_TARGET + k] = -1
                state[CARD_STATUS + k] = 1
                state[CARD_MODE + k] = 0
                state[CARD_TURN + k] = state[TURN]


@kernel
def land_rate(state, li, half):
    """Land li's tax rate in half coins under the laws (``half``: the rate with every active
    law's change): the Brown Plains' player leaves out its ignored law's change."""
    if state[LAND_EFFECT + li] == E_IGNORE_LAW and state[IGNORED_LAW] >= 0:
        return np.int64(max(half - state[LAW_TAX + state[IGNORED_LAW]], 0))
    return np.int64(max(half, 0))


@kernel
def tax_phase(context, state, scratch):
    """Each player pays for the Lands it has priority on (their rates summed, the total rounded
    down: 1.5 coins a Land by default) and 1 coin per contested Land; a Land it cannot pay for
    costs 1 token on the Land and 1 on its Head, and the victory conditions are checked at once.
    Before it, the Warlord's player sets the tax of the Valley of Arrows (``warlord_tax``: 1, 2
    or 3 coins, whatever the laws); the Brown Plains leave out the law their player ignores
    (``ignore_law``)."""
    n_players = state[PLAYERS]
    half = state[TAX_HALVES] + state[TAX_DELTA]
    rate = np.zeros(N_LANDS, dtype=np.int64)
    for li in range(N_LANDS):
        scratch[OWNERS + li] = land_owner(state, li, scratch)
        for p in range(n_players):
            scratch[CONTEST + MAX_PLAYERS * li + p] = (
                scratch[TIED + p] if scratch[OWNERS + li] == -2 else 0
            )
        rate[li] = land_rate(state, li, half)
    for li in range(N_LANDS):
        if state[LAND_EFFECT + li] != E_WARLORD_TAX or scratch[OWNERS + li] < 0:
            continue
        w = state[HOLDERS + WARLORD]
        q = char_owner(state, w) if w >= 0 else np.int64(-1)
        if q < 0:
            continue
        # Move i: a tax of i + 1 coins; greedy sets the lowest on itself, the highest on a rival.
        for i in range(3):
            scratch[SCORES + i] = -(i + 1) if scratch[OWNERS + li] == q else i + 1
        rate[li] = 2 * (choose(context, state, q, 3, scratch) + 1)
    for p in range(n_players):
        paid_halves = 0
        for li in range(N_LANDS):
            if scratch[OWNERS + li] == p:
                due = (paid_halves + rate[li]) // 2 - paid_halves // 2
                paid_halves += rate[li]
            elif scratch[OWNERS + li] == -2 and scratch[CONTEST + MAX_PLAYERS * li + p] == 1:
                due = 1
            else:
                continue
            if state[COINS + p] >= due:
                state[COINS + p] -= due
                state[TREASURY] += due
            else:
                remove_tokens(state, p, li, 1)
                h = state[HOLDERS + HEAD0 + li]
                if h >= 0:
                    remove_tokens(state, p, N_LANDS + h, 1)
                # Tokens left a Land: a rival may reach a victory at this moment (Victory).
                if check_victory(state):
                    return
