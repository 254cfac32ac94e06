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
    CIVILIANS,
    DONE,
    GAP_COUNTS,
    HOLDERS,
    MAX_TURNS,
    N_COL,
    PLAYERS,
    SOLDIERS,
    TOKENS,
    TURN,
    VICTORY,
    WINNERS,
    char_owner,
    council_member,
    strict_top,
)
from simulator.procedures.council.game.votes import (
    choose_representative,
    fill_vacancies,
)


@kernel
def check_victory(state):
    """Coup and Will of the People, checked as soon as they hold. Returns True if the game ends."""
    n_players = state[PLAYERS]
    found = 0
    for cond in range(2):
        seat = WARLORD if cond == 0 else PRIVY
        holder = state[HOLDERS + seat]
        if holder < 0:
            continue
        p = strict_top(state, n_players, N_LANDS + holder)
        if p < 0:
            continue
        lands = 0
        for li in range(N_LANDS):
            if strict_top(state, n_players, li) != p:
                continue
            military = state[SOLDIERS + li] >= state[CIVILIANS + li]
            civil = state[SOLDIERS + li] <= state[CIVILIANS + li]
            if (cond == 0 and military) or (cond == 1 and civil):
                lands += 1
        if lands >= 4:
            if found == 0:
                state[WINNERS] = 1 << p
                state[VICTORY] = V_COUP if cond == 0 else V_WILL
            found += 1
    if found > 1:
        state[GAP_COUNTS + GAP_SIMULTANEOUS] += 1
    if found > 0:
        state[DONE] = 1
        return True
    return False


@kernel
def draw_at_turn_limit(state):
    """Nobody won by the turn limit: a draw; counted as stalled when no token is left on any
    Land (no income can return: the rulebook has no base income and no rule ending such a game)."""
    state[VICTORY] = V_DRAW
    state[WINNERS] = 0
    state[TURN] = state[MAX_TURNS]
    on_lands = 0
    for p in range(state[PLAYERS]):
        for li in range(N_LANDS):
            on_lands += state[TOKENS + p * N_COL + li]
    if on_lands == 0:
        state[GAP_COUNTS + GAP_STALLED] += 1


@kernel
def check_election(state):
    """Council election: one player has priority on all five Councillors at a Council vote."""
    p0 = -2
    for k in range(5):
        c = council_member(state, k)
        if c < 0:
            return False
        p = char_owner(state, c)
        if p < 0 or (p0 != -2 and p != p0):
            return False
        p0 = p
    state[WINNERS] = 1 << p0
    state[VICTORY] = V_ELECTION
    state[DONE] = 1
    return True


@kernel
def hand_of_order(context, state, scratch):
    """The fifth Character is killed: seats are filled, most tokens on the Council wins; ties by
    tokens on all Characters, then all tokens on the board; a tie after that shares the win."""
    fill_vacancies(context, state, scratch, True)
    choose_representative(context, state, scratch)
    n_players = state[PLAYERS]
    alive = np.ones(n_players, dtype=np.int64)
    value = np.zeros(n_players, dtype=np.int64)
    for tier in range(3):
        for p in range(n_players):
            v = np.int64(0)
            if tier == 0:
                for k in range(5):
                    c = council_member(state, k)
                    if c >= 0:
                        v += state[TOKENS + p * N_COL + N_LANDS + c]
            else:
                for c in range(N_CHARS):
                    v += state[TOKENS + p * N_COL + N_LANDS + c]
                if tier == 2:
                    for li in range(N_LANDS):
                        v += state[TOKENS + p * N_COL + li]
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
        state[GAP_COUNTS + GAP_HAND_TIE] += 1
    state[WINNERS] = mask
    state[VICTORY] = V_HAND
    state[DONE] = 1
