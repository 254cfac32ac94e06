"""The four victory conditions: Coup, Will of the People, Council election and Hand of Order."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.params import (
    GAP_HAND_TIE,
    GAP_SIMULTANEOUS,
    GAP_STALLED,
    N_CHARS,
    N_LANDS,
    PRIVY,
    V_COUP,
    V_DRAW,
    V_ELECTION,
    V_HAND,
    V_WILL,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    G_DONE,
    G_GAP0,
    G_HOLDER0,
    G_MAX_TURNS,
    G_PLAYERS,
    G_TURN,
    G_VICTORY,
    G_WINMASK,
    L_CIV,
    L_SOL,
    char_owner,
    council_member,
    strict_top,
)
from simulator.procedures.council.game.votes import (
    choose_representative,
    fill_vacancies,
)


@kernel
def check_victory(tok, g, land, ch):
    """Coup and Will of the People, checked as soon as they hold. Returns True if the game ends."""
    n_players = g[G_PLAYERS]
    found = 0
    for cond in range(2):
        seat = WARLORD if cond == 0 else PRIVY
        holder = g[G_HOLDER0 + seat]
        if holder < 0:
            continue
        p = strict_top(tok, n_players, N_LANDS + holder)
        if p < 0:
            continue
        lands = 0
        for li in range(N_LANDS):
            if strict_top(tok, n_players, li) != p:
                continue
            military = land[li, L_SOL] >= land[li, L_CIV]
            civil = land[li, L_SOL] <= land[li, L_CIV]
            if (cond == 0 and military) or (cond == 1 and civil):
                lands += 1
        if lands >= 4:
            if found == 0:
                g[G_WINMASK] = 1 << p
                g[G_VICTORY] = V_COUP if cond == 0 else V_WILL
            found += 1
    if found > 1:
        g[G_GAP0 + GAP_SIMULTANEOUS] += 1
    if found > 0:
        g[G_DONE] = 1
        return True
    return False


@kernel
def draw_at_turn_limit(tok, g):
    """Nobody won by the turn limit: a draw; counted as stalled when no token is left on any
    Land (no income can return: the rulebook has no base income and no rule ending such a game)."""
    g[G_VICTORY] = V_DRAW
    g[G_WINMASK] = 0
    g[G_TURN] = g[G_MAX_TURNS]
    on_lands = 0
    for p in range(g[G_PLAYERS]):
        for li in range(N_LANDS):
            on_lands += tok[p, li]
    if on_lands == 0:
        g[G_GAP0 + GAP_STALLED] += 1


@kernel
def check_election(tok, g):
    """Council election: one player has priority on all five Councillors at a Council vote."""
    p0 = -2
    for k in range(5):
        c = council_member(g, k)
        if c < 0:
            return False
        p = char_owner(tok, g, c)
        if p < 0 or (p0 != -2 and p != p0):
            return False
        p0 = p
    g[G_WINMASK] = 1 << p0
    g[G_VICTORY] = V_ELECTION
    g[G_DONE] = 1
    return True


@kernel
def hand_of_order(st, tok, pl, g, ch, land, cand, votes, score):
    """The fifth Character is killed: seats are filled, most tokens on the Council wins; ties by
    tokens on all Characters, then all tokens on the board; a tie after that shares the win."""
    fill_vacancies(st, tok, pl, g, ch, land, cand, votes, score)
    choose_representative(st, tok, pl, g, ch, land, cand, score)
    n_players = g[G_PLAYERS]
    alive = np.ones(n_players, dtype=np.int64)
    value = np.zeros(n_players, dtype=np.int64)
    for tier in range(3):
        for p in range(n_players):
            v = np.int64(0)
            if tier == 0:
                for k in range(5):
                    c = council_member(g, k)
                    if c >= 0:
                        v += tok[p, N_LANDS + c]
            else:
                for c in range(N_CHARS):
                    v += tok[p, N_LANDS + c]
                if tier == 2:
                    for li in range(N_LANDS):
                        v += tok[p, li]
            value[p] = v
        top = np.int64(-1)
        for p in range(n_players):
            if alive[p] == 1:
                top = max(top, value[p])
        for p in range(n_players):
            if alive[p] == 1 and value[p] != top:
                alive[p] = 0
    mask = 0
    count = 0
    for p in range(n_players):
        if alive[p] == 1:
            mask |= 1 << p
            count += 1
    if count > 1:
        g[G_GAP0 + GAP_HAND_TIE] += 1
    g[G_WINMASK] = mask
    g[G_VICTORY] = V_HAND
    g[G_DONE] = 1
