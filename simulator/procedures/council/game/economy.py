"""Income, spending and tax: the coins of the game."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.context import choose_tagged, wants_scores
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
    HEAD0,
    MAX_PLAYERS,
    MESSENGER,
    N_CHARS,
    N_LANDS,
    T_COWARDLY,
    T_DOMINEERING,
    T_THRIFTY,
    T_WASTEFUL,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_CONTESTED,
    G_HOLDER0,
    G_IGNORED,
    G_INF_COST,
    G_ISSUED,
    G_MERC_COST,
    G_MERCS_ON,
    G_MOOD,
    G_MOOD_ON,
    G_PLAYERS,
    G_TAX_DELTA,
    G_TAX_HALF,
    G_TO_BANK,
    G_TREASURY,
    G_TURN,
    K_KIND,
    K_MODE,
    K_OWNER,
    K_STATUS,
    K_TARGET,
    K_TURN,
    L_CIV,
    L_EFFECT,
    L_SIZE,
    L_SOL,
    MAX_BUYS,
    MAX_HAND,
    MV_BUY_MERC,
    MV_GIVE_UP,
    MV_LAND_TOKEN,
    MV_PASS,
    P_COINS,
    P_SUPPLY,
    char_owner,
    combined_top,
    free_card,
    give_tokens,
    hand_size,
    has_trait,
    land_owner,
    power_user,
    remove_tokens,
    vacate,
)
from simulator.procedures.council.game.victory import (
    check_victory,
)


@kernel
def income_value(g, ch, land, li, base, controlled):
    """A Land's income: ``base`` coins (civilians, or 1 when contested), the Head's Thrifty (+1)
    or Wasteful (-1) for its controller, then the mood track: -3 nothing, -2 nothing where
    soldiers < civilians (unless the Head is Domineering), +3 one more coin."""
    v = base
    h = g[G_HOLDER0 + HEAD0 + li]
    if controlled and h >= 0:
        v += has_trait(ch, h, T_THRIFTY) - has_trait(ch, h, T_WASTEFUL)
    if g[G_MOOD_ON] == 1 and land[li, L_EFFECT] != E_MOOD_IMMUNE:
        mood = g[G_MOOD]
        if mood <= -3:
            return np.int64(0)
        unrest = mood == -2 and land[li, L_SOL] < land[li, L_CIV]
        if unrest and (h < 0 or has_trait(ch, h, T_DOMINEERING) == 0):
            return np.int64(0)
        if mood >= 3:
            v += 1
    return np.int64(max(v, 0))


@kernel
def income_phase(st, tok, pl, g, ch, land, mv, score, tied, owner, contest):
    """Income by priority on each Land; contested Lands pay 1 coin to each tied player. A player
    may give up one Land's income to add a civilian there."""
    n_players = g[G_PLAYERS]
    if g[G_MOOD_ON] == 1 and g[G_MOOD] <= -3:
        # An uprising: every Cowardly Character in play leaves its seat (to the pool).
        for c in range(N_CHARS):
            if ch[c, C_SEAT] >= 0 and has_trait(ch, c, T_COWARDLY) == 1:
                vacate(g, ch, c)
    for li in range(N_LANDS):
        owner[li] = land_owner(tok, g, li, tied)
        for p in range(n_players):
            contest[li, p] = tied[p] if owner[li] == -2 else 0
    give_up = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for p in range(n_players):
        n = 1
        mv[0, 0] = MV_PASS
        score[0] = 0
        for li in range(N_LANDS):
            if owner[li] == p and land[li, L_CIV] + land[li, L_SOL] < land[li, L_SIZE]:
                mv[n, 0] = MV_GIVE_UP
                mv[n, 1] = li
                score[n] = 0
                n += 1
        i = choose(st, pl, p, n, score)
        if mv[i, 0] == MV_GIVE_UP:
            give_up[p] = mv[i, 1]
    for li in range(N_LANDS):
        o = owner[li]
        if o >= 0:
            if give_up[o] == li:
                continue
            v = income_value(g, ch, land, li, land[li, L_CIV], True)
            pl[o, P_COINS] += v
            g[G_ISSUED] += v
        elif o == -2:
            g[G_CONTESTED] += 1
            v = income_value(g, ch, land, li, 1, False)
            for p in range(n_players):
                if contest[li, p] == 1:
                    pl[p, P_COINS] += v
                    g[G_ISSUED] += v
    for li in range(N_LANDS):
        # Black Harbour: +1 coin in any conditions to the one player with most Land + Head
        # tokens; a tie on that total gives it to nobody (rulebook: no Head tie-break here).
        if land[li, L_EFFECT] == E_INCOME_BONUS:
            q = combined_top(tok, g, li)
            if q >= 0:
                pl[q, P_COINS] += 1
                g[G_ISSUED] += 1
    for p in range(n_players):
        if give_up[p] >= 0:
            land[give_up[p], L_CIV] += 1


@kernel
def merc_cost(tok, g, land, p):
    """Mercenary price for p: 1 less with priority on a Zalesye-like Land's Head or 3+ tokens on
    the Land (at most 1 less, never below 1)."""
    if power_user(tok, g, land, p, E_MERC_DISCOUNT):
        return np.int64(max(g[G_MERC_COST] - 1, 1))
    return g[G_MERC_COST]


@kernel
def spending_phase(st, tok, pl, g, ch, land, card, mv, score, tied):
    """Poorest player first (ties: lower seat): each buys influence on Lands and Mercenaries until
    it stops."""
    n_players = g[G_PLAYERS]
    order = np.zeros(n_players, dtype=np.int64)
    for p in range(n_players):
        order[p] = p
    for i in range(1, n_players):
        p = order[i]
        j = i - 1
        while j >= 0 and pl[order[j], P_COINS] > pl[p, P_COINS]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p
    for idx in range(n_players):
        p = order[idx]
        for _ in range(MAX_BUYS):
            n = 1
            mv[0, 0] = MV_PASS
            score[0] = 0
            scored = wants_scores(st, pl, p)
            if scored:
                bd = breakdown(tok, g, ch, land, tied)
                base = edge_of(bd, pl, g, p)
            if pl[p, P_COINS] >= g[G_INF_COST] and pl[p, P_SUPPLY] > 0:
                for li in range(N_LANDS):
                    mv[n, 0] = MV_LAND_TOKEN
                    mv[n, 1] = li
                    score[n] = 0
                    if scored:
                        cost = -g[G_INF_COST]
                        score[n] = gain_at(
                            bd, base, tok, pl, g, ch, land, p, li, np.int64(1), cost, tied
                        )
                    n += 1
            price = merc_cost(tok, g, land, p)
            first_merc = -1
            if (
                g[G_MERCS_ON] == 1
                and pl[p, P_COINS] >= price
                and free_card(card) >= 0
                and hand_size(card, p) < MAX_HAND
            ):
                first_merc = n
                paid = 0
                if scored:
                    paid = gain_at(
                        bd, base, tok, pl, g, ch, land, p, np.int64(-1), np.int64(0), -price, tied
                    )
                for kind in range(5):
                    mv[n, 0] = MV_BUY_MERC
                    mv[n, 1] = kind
                    score[n] = 0
                    if scored:
                        # A card is worth CARD; a Messenger, a gift of a token to come, more.
                        extra = MESSENGER_CARD if kind == MESSENGER else 0.0
                        score[n] = paid + np.int64(round((CARD + extra) * SCALE))
                    n += 1
            i = choose_tagged(st, pl, p, n, score, first_merc)
            if mv[i, 0] == MV_PASS:
                break
            if mv[i, 0] == MV_LAND_TOKEN:
                pl[p, P_COINS] -= g[G_INF_COST]
                g[G_TO_BANK] += g[G_INF_COST]
                give_tokens(tok, pl, p, mv[i, 1], 1)
                if check_victory(tok, g, land, ch):
                    return
            else:
                pl[p, P_COINS] -= price
                g[G_TO_BANK] += price
                k = free_card(card)
                card[k, K_KIND] = mv[i, 1]
                card[k, K_OWNER] = p
                card[k, K_TARGET] = -1
                card[k, K_STATUS] = 1
                card[k, K_MODE] = 0
                card[k, K_TURN] = g[G_TURN]


@kernel
def land_rate(g, land, law, li, half):
    """Land li's tax rate in half coins under the laws (``half``: the rate with every active
    law's change): the Brown Plains' player leaves out its ignored law's change."""
    if land[li, L_EFFECT] == E_IGNORE_LAW and g[G_IGNORED] >= 0:
        return np.int64(max(half - law[g[G_IGNORED], 4], 0))
    return np.int64(max(half, 0))


@kernel
def tax_phase(st, tok, pl, g, ch, land, law, owner, contest, tied, score):
    """Each player pays for the Lands it has priority on (their rates summed, the total rounded
    down: 1.5 coins a Land by default) and 1 coin per contested Land; a Land it cannot pay for
    costs 1 token on the Land and 1 on its Head. Before it, the Warlord's player sets the tax of
    the Valley of Arrows (``warlord_tax``: 1, 2 or 3 coins, whatever the laws); the Brown Plains
    leave out the law their player ignores (``ignore_law``)."""
    n_players = g[G_PLAYERS]
    half = g[G_TAX_HALF] + g[G_TAX_DELTA]
    rate = np.zeros(N_LANDS, dtype=np.int64)
    for li in range(N_LANDS):
        owner[li] = land_owner(tok, g, li, tied)
        for p in range(n_players):
            contest[li, p] = tied[p] if owner[li] == -2 else 0
        rate[li] = land_rate(g, land, law, li, half)
    for li in range(N_LANDS):
        if land[li, L_EFFECT] != E_WARLORD_TAX or owner[li] < 0:
            continue
        w = g[G_HOLDER0 + WARLORD]
        q = char_owner(tok, g, w) if w >= 0 else np.int64(-1)
        if q < 0:
            continue
        # Move i: a tax of i + 1 coins; greedy sets the lowest on itself, the highest on a rival.
        for i in range(3):
            score[i] = -(i + 1) if owner[li] == q else i + 1
        rate[li] = 2 * (choose(st, pl, q, 3, score) + 1)
    for p in range(n_players):
        paid_halves = 0
        for li in range(N_LANDS):
            if owner[li] == p:
                due = (paid_halves + rate[li]) // 2 - paid_halves // 2
                paid_halves += rate[li]
            elif owner[li] == -2 and contest[li, p] == 1:
                due = 1
            else:
                continue
            if pl[p, P_COINS] >= due:
                pl[p, P_COINS] -= due
                g[G_TREASURY] += due
            else:
                remove_tokens(tok, pl, p, li, 1)
                h = g[G_HOLDER0 + HEAD0 + li]
                if h >= 0:
                    remove_tokens(tok, pl, p, N_LANDS + h, 1)
