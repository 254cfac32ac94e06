"""The action phase: acting order, tipping neutral Heads and each Character's action."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel, leaf
from simulator.procedures.council.game.context import draw, tip_bid, wants_scores
from simulator.procedures.council.game.heuristic import (
    breakdown,
    choose,
    edge_of,
    gain_at,
    soldier_gain,
)
from simulator.procedures.council.game.mercenaries import (
    add_sends,
    score_sends,
    send_card,
)
from simulator.procedures.council.game.params import (
    BISHOP,
    GAP_TIP,
    HEAD0,
    MAX_CARDS,
    N_CHARS,
    N_LANDS,
    PRIVY,
    T_SYCOPHANT,
    TREASURER,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    APPOINT_ACTION,
    CARD_STATUS,
    CIVILIANS,
    COUNCIL_VOTES,
    DONE,
    EMPTY_CHANCES,
    GAP_COUNTS,
    HOLDERS,
    LAND_SIZE,
    LAW_CATEGORY,
    LAW_COST,
    MOVE_APPOINT,
    MOVE_BISHOP,
    MOVE_FIELDS,
    MOVE_LAW,
    MOVE_PASS,
    MOVE_REMOVE_COUNCILLOR,
    MOVE_REMOVE_HEAD,
    MOVE_SEND,
    MOVE_WARLORD,
    MOVES,
    N_COL,
    ORDER,
    PLAYERS,
    REMOVE_VOTES,
    REPRESENTATIVE,
    SCORES,
    SEATS,
    SOLDIERS,
    SUPPLY,
    SYCOPHANT_LEADERS,
    SYCOPHANT_PHASE,
    TIP_CAP,
    TIP_EMPTY,
    TOKENS,
    TREASURY,
    VACANT_HEADS,
    VETO_USED,
    char_owner,
    char_total,
    council_member,
    give_tokens,
    has_trait,
    land_total,
    remove_tokens,
    vacate,
)
from simulator.procedures.council.game.victory import (
    check_election,
    check_victory,
)
from simulator.procedures.council.game.votes import (
    appoint_heads,
    choose_representative,
    council_vote,
    fill_vacancies,
    land_vote,
    law_moves,
    pass_law,
    vacant_heads,
)


@kernel
def acting_order(context, state, scratch):
    """Characters in acting order: the Council (with the Representative) before the Heads; then
    most tokens of one player first; then fewer tokens in all; then fewer counting the Head's Land;
    then by lot (one word per Character in play, in Character order). Returns how many."""
    n = 0
    key = np.zeros((N_CHARS, 5), dtype=np.int64)
    for c in range(N_CHARS):
        seat = state[SEATS + c]
        if seat < 0:
            continue
        key[c, 0] = 0 if (seat < HEAD0 or state[REPRESENTATIVE] == c) else 1
        most = np.int64(0)
        for p in range(state[PLAYERS]):
            most = max(most, state[TOKENS + p * N_COL + N_LANDS + c])
        key[c, 1] = -most
        key[c, 2] = char_total(state, c)
        key[c, 3] = key[c, 2] + (land_total(state, seat - HEAD0) if seat >= HEAD0 else 0)
        key[c, 4] = np.int64(draw(context) >> np.uint64(2))
        scratch[ORDER + n] = c
        n += 1
    for i in range(1, n):
        c = scratch[ORDER + i]
        j = i - 1
        while j >= 0 and _key_less(key, c, scratch[ORDER + j]):
            scratch[ORDER + j + 1] = scratch[ORDER + j]
            j -= 1
        scratch[ORDER + j + 1] = c
    return n


@leaf
def _key_less(key, a, b):
    for i in range(5):
        if key[a, i] != key[b, i]:
            return key[a, i] < key[b, i]
    return False


@kernel
def character_action(context, state, scratch, c, p):
    """Player p acts through Character c: chooses one legal move and plays it."""
    seat = state[SEATS + c]
    is_head = seat >= HEAD0
    in_council = seat < HEAD0 or state[REPRESENTATIVE] == c
    n = 1
    scratch[MOVES] = MOVE_PASS
    if seat == WARLORD:
        for a in range(N_LANDS):
            if state[SOLDIERS + a] == 0:
                continue
            for b in range(N_LANDS):
                if b != a and state[CIVILIANS + b] + state[SOLDIERS + b] < state[LAND_SIZE + b]:
                    scratch[MOVES + MOVE_FIELDS * n] = MOVE_WARLORD
                    scratch[MOVES + MOVE_FIELDS * n + 1] = a
                    scratch[MOVES + MOVE_FIELDS * n + 2] = b
                    n += 1
    if seat == PRIVY and state[APPOINT_ACTION] == 1 and vacant_heads(state) > 0:
        # head_appointment: action: the Privy Councillor's power is its action (Council rules
        # §3, §5); one action fills every vacant Head seat.
        scratch[MOVES + MOVE_FIELDS * n] = MOVE_APPOINT
        n += 1
    if seat == BISHOP and state[SUPPLY + p] > 0:
        for li in range(N_LANDS):
            scratch[MOVES + MOVE_FIELDS * n] = MOVE_BISHOP
            scratch[MOVES + MOVE_FIELDS * n + 1] = li
            n += 1
    if in_council:
        n = law_moves(state, scratch, n)
        for li in range(N_LANDS):
            h = state[HOLDERS + HEAD0 + li]
            if h >= 0 and h != c:
                scratch[MOVES + MOVE_FIELDS * n] = MOVE_REMOVE_HEAD
                scratch[MOVES + MOVE_FIELDS * n + 1] = h
                n += 1
    if is_head:
        for s in range(4):
            if state[HOLDERS + s] >= 0:
                scratch[MOVES + MOVE_FIELDS * n] = MOVE_REMOVE_COUNCILLOR
                scratch[MOVES + MOVE_FIELDS * n + 1] = s
                n += 1
    n = add_sends(state, scratch, n, p, c)
    if wants_scores(context, state, p):
        score_sends(state, scratch, 0, n, p)
        bd = breakdown(state, scratch)
        base = edge_of(bd, state, p)
        for i in range(n):
            if scratch[MOVES + MOVE_FIELDS * i] == MOVE_BISHOP:
                scratch[SCORES + i] = gain_at(
                    bd,
                    base,
                    state,
                    p,
                    scratch[MOVES + MOVE_FIELDS * i + 1],
                    np.int64(1),
                    np.int64(0),
                    scratch,
                )
            elif scratch[MOVES + MOVE_FIELDS * i] == MOVE_WARLORD:
                scratch[SCORES + i] = soldier_gain(
                    bd,
                    base,
                    state,
                    p,
                    scratch[MOVES + MOVE_FIELDS * i + 1],
                    scratch[MOVES + MOVE_FIELDS * i + 2],
                )
    i = choose(context, state, p, n, scratch)
    kind = scratch[MOVES + MOVE_FIELDS * i]
    a = scratch[MOVES + MOVE_FIELDS * i + 1]
    b = scratch[MOVES + MOVE_FIELDS * i + 2]
    if kind == MOVE_WARLORD:
        state[SOLDIERS + a] -= 1
        state[SOLDIERS + b] += 1
    elif kind == MOVE_BISHOP:
        give_tokens(state, p, a, 1)
    elif kind == MOVE_APPOINT:
        appoint_heads(context, state, scratch)
    elif kind == MOVE_LAW:
        if check_election(state):
            return
        vetoed = False
        tr = state[HOLDERS + TREASURER]
        if state[VETO_USED] == 0 and tr >= 0 and state[TREASURY] - state[LAW_COST + a] <= 3:
            qt = char_owner(state, tr)
            if qt >= 0 and qt != p:
                scratch[SCORES] = 0
                scratch[SCORES + 1] = 0
                if choose(context, state, qt, 2, scratch) == 0:
                    vetoed = True
                    state[VETO_USED] = 1
        if not vetoed:
            yes = council_vote(context, state, p, state[LAW_CATEGORY + a], scratch)
            if yes >= state[COUNCIL_VOTES]:
                pass_law(context, state, a, b, scratch)
    elif kind == MOVE_REMOVE_HEAD:
        if check_election(state):
            return
        yes = council_vote(context, state, p, 0, scratch)
        if yes >= state[COUNCIL_VOTES]:
            vacate(state, a)
    elif kind == MOVE_REMOVE_COUNCILLOR:
        yes = land_vote(context, state, p, scratch)
        if yes >= state[REMOVE_VOTES]:
            vacate(state, state[HOLDERS + a])
    elif kind == MOVE_SEND:
        send_card(
            state,
            p,
            scratch[MOVES + MOVE_FIELDS * i + 4],
            a,
            b,
            scratch[MOVES + MOVE_FIELDS * i + 3],
        )
        # Any number of Mercenaries may be sent in one action: send another or stop.
        while True:
            n = add_sends(state, scratch, 1, p, c)
            if n == 1:
                break
            scratch[MOVES] = MOVE_PASS
            scratch[SCORES] = 0
            if wants_scores(context, state, p):
                score_sends(state, scratch, 1, n, p)
            i = choose(context, state, p, n, scratch)
            if scratch[MOVES + MOVE_FIELDS * i] == MOVE_PASS:
                break
            send_card(
                state,
                p,
                scratch[MOVES + MOVE_FIELDS * i + 4],
                scratch[MOVES + MOVE_FIELDS * i + 1],
                scratch[MOVES + MOVE_FIELDS * i + 2],
                scratch[MOVES + MOVE_FIELDS * i + 3],
            )


@kernel
def council_leader(state):
    """The player with strictly most tokens on the five Council members, or -1."""
    best = np.int64(0)
    who = np.int64(-1)
    for p in range(state[PLAYERS]):
        x = np.int64(0)
        for k in range(5):
            c = council_member(state, k)
            if c >= 0:
                x += state[TOKENS + p * N_COL + N_LANDS + c]
        if x > best:
            best = x
            who = p
        elif x == best:
            who = -1
    return who


@kernel
def sycophants(state):
    """Each Sycophant in play takes one token of the player with most tokens on the Council
    when that leader changes (rulebook: "counted at the start of each Action; tokens are put when
    the leader changes; tokens put earlier stay"). A tie names no leader and changes nothing.
    Returns the tokens put."""
    leader = council_leader(state)
    if leader < 0:
        return 0
    put = 0
    for c in range(N_CHARS):
        if (
            state[SEATS + c] < 0
            or has_trait(state, c, T_SYCOPHANT) == 0
            or state[SYCOPHANT_LEADERS + c] == leader
        ):
            continue
        state[SYCOPHANT_LEADERS + c] = leader
        put += give_tokens(state, leader, N_LANDS + c, 1)
    return put


@kernel
def actions_phase(context, state, scratch):
    """Vacancies (Council seats by the Heads' vote; Head seats too under ``head_appointment:
    phase_start``) and the Representative, then each Character in acting order; a neutral Head
    may be tipped by players discarding tokens from its Land (the most discarded acts)."""
    n_players = state[PLAYERS]
    state[VETO_USED] = 0
    state[VACANT_HEADS] += vacant_heads(state)
    fill_vacancies(context, state, scratch, state[APPOINT_ACTION] == 0)
    if check_victory(state):
        return  # a new Warlord or Privy Councillor may complete a victory (Victory)
    choose_representative(context, state, scratch)
    n = acting_order(context, state, scratch)
    placed = state[SYCOPHANT_PHASE] == 1 and sycophants(state) > 0
    if placed and check_victory(state):
        return
    for i in range(n):
        c = scratch[ORDER + i]
        seat = state[SEATS + c]
        if seat < 0:
            continue
        placed = state[SYCOPHANT_PHASE] == 0 and sycophants(state) > 0
        if placed and check_victory(state):
            return
        p = char_owner(state, c)
        if p < 0:
            most = np.int64(0)
            for q in range(n_players):
                most = max(most, state[TOKENS + q * N_COL + N_LANDS + c])
            if seat < HEAD0:
                continue
            li = seat - HEAD0
            if most == 0:
                # With no token on it every player is tied at zero (Council rules §3): the case
                # tip_empty_heads decides, counted when someone could tip it.
                if land_total(state, li) == 0:
                    continue
                state[EMPTY_CHANCES] += 1
                if state[TIP_EMPTY] == 0:
                    continue
            best = 0
            count = 0
            for q in range(n_players):
                if state[TOKENS + q * N_COL + N_LANDS + c] != most:
                    continue
                top_bid = min(state[TOKENS + q * N_COL + li], state[TIP_CAP])
                # random: 0..top_bid uniformly; greedy: 1 if it can; search: its agent
                bid = tip_bid(context, state, scratch, q, top_bid)
                remove_tokens(state, q, li, bid)
                if bid > best:
                    best = bid
                    count = 1
                    p = q
                elif bid == best and bid > 0:
                    count += 1
            if check_victory(state):
                return
            if best == 0:
                continue
            if count > 1:
                state[GAP_COUNTS + GAP_TIP] += 1
                continue
        character_action(context, state, scratch, c, p)
        if state[DONE] == 1:
            return
        if check_victory(state):
            return
    for k in range(MAX_CARDS):
        if state[CARD_STATUS + k] == 1:
            state[CARD_STATUS + k] = 0
