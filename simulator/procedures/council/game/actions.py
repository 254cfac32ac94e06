"""The action phase: acting order, tipping neutral Heads and each Character's action."""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
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
    T_SYCOPHANT,
    TREASURER,
    WARLORD,
)
from simulator.procedures.council.game.state import (
    C_LEADER,
    C_SEAT,
    G_COUNCIL_VOTES,
    G_DONE,
    G_EMPTY_CHANCES,
    G_GAP0,
    G_HOLDER0,
    G_PLAYERS,
    G_REMOVE_VOTES,
    G_REP,
    G_SYCOPHANT_PHASE,
    G_TIP_CAP,
    G_TIP_EMPTY,
    G_TREASURY,
    G_VETO_USED,
    K_STATUS,
    L_CIV,
    L_SIZE,
    L_SOL,
    MV_BISHOP,
    MV_LAW,
    MV_PASS,
    MV_REMOVE_COUNCILLOR,
    MV_REMOVE_HEAD,
    MV_SEND,
    MV_WARLORD,
    P_SUPPLY,
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
    choose_representative,
    council_vote,
    fill_vacancies,
    land_vote,
    law_moves,
    pass_law,
)


@kernel
def acting_order(st, tok, g, ch, order):
    """Characters in acting order: the Council (with the Representative) before the Heads; then
    most tokens of one player first; then fewer tokens in all; then fewer counting the Head's Land;
    then by lot (one word per Character in play, in Character order). Returns how many."""
    n = 0
    key = np.zeros((N_CHARS, 5), dtype=np.int64)
    for c in range(N_CHARS):
        seat = ch[c, C_SEAT]
        if seat < 0:
            continue
        key[c, 0] = 0 if (seat < HEAD0 or g[G_REP] == c) else 1
        most = np.int64(0)
        for p in range(g[G_PLAYERS]):
            most = max(most, tok[p, N_LANDS + c])
        key[c, 1] = -most
        key[c, 2] = char_total(tok, g, c)
        key[c, 3] = key[c, 2] + (land_total(tok, g, seat - HEAD0) if seat >= HEAD0 else 0)
        key[c, 4] = np.int64(draw(st) >> np.uint64(2))
        order[n] = c
        n += 1
    for i in range(1, n):
        c = order[i]
        j = i - 1
        while j >= 0 and _key_less(key, c, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = c
    return n


@inline
def _key_less(key, a, b):
    for i in range(5):
        if key[a, i] != key[b, i]:
            return key[a, i] < key[b, i]
    return False


@kernel
def character_action(st, tok, pl, g, ch, land, law, card, mv, score, tied, decl, c, p):
    """Player p acts through Character c: chooses one legal move and plays it."""
    seat = ch[c, C_SEAT]
    is_head = seat >= HEAD0
    in_council = seat < HEAD0 or g[G_REP] == c
    n = 1
    mv[0, 0] = MV_PASS
    if seat == WARLORD:
        for a in range(N_LANDS):
            if land[a, L_SOL] == 0:
                continue
            for b in range(N_LANDS):
                if b != a and land[b, L_CIV] + land[b, L_SOL] < land[b, L_SIZE]:
                    mv[n, 0] = MV_WARLORD
                    mv[n, 1] = a
                    mv[n, 2] = b
                    n += 1
    if seat == BISHOP and pl[p, P_SUPPLY] > 0:
        for li in range(N_LANDS):
            mv[n, 0] = MV_BISHOP
            mv[n, 1] = li
            n += 1
    if in_council:
        n = law_moves(g, law, mv, n)
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h >= 0 and h != c:
                mv[n, 0] = MV_REMOVE_HEAD
                mv[n, 1] = h
                n += 1
    if is_head:
        for s in range(4):
            if g[G_HOLDER0 + s] >= 0:
                mv[n, 0] = MV_REMOVE_COUNCILLOR
                mv[n, 1] = s
                n += 1
    n = add_sends(tok, ch, card, mv, n, p, c)
    if wants_scores(st, pl, p):
        score_sends(tok, pl, g, ch, land, card, mv, score, 0, n, p, tied)
        bd = breakdown(tok, g, ch, land, tied)
        base = edge_of(bd, pl, g, p)
        for i in range(n):
            if mv[i, 0] == MV_BISHOP:
                score[i] = gain_at(
                    bd, base, tok, pl, g, ch, land, p, mv[i, 1], np.int64(1), np.int64(0), tied
                )
            elif mv[i, 0] == MV_WARLORD:
                score[i] = soldier_gain(bd, base, tok, pl, g, land, p, mv[i, 1], mv[i, 2])
    i = choose(st, pl, p, n, score)
    kind = mv[i, 0]
    a = mv[i, 1]
    b = mv[i, 2]
    if kind == MV_WARLORD:
        land[a, L_SOL] -= 1
        land[b, L_SOL] += 1
    elif kind == MV_BISHOP:
        give_tokens(tok, pl, p, a, 1)
    elif kind == MV_LAW:
        if check_election(tok, g):
            return
        vetoed = False
        tr = g[G_HOLDER0 + TREASURER]
        if g[G_VETO_USED] == 0 and tr >= 0 and g[G_TREASURY] - law[a, 1] <= 3:
            qt = char_owner(tok, g, tr)
            if qt >= 0 and qt != p:
                score[0] = 0
                score[1] = 0
                if choose(st, pl, qt, 2, score) == 0:
                    vetoed = True
                    g[G_VETO_USED] = 1
        if not vetoed:
            yes = council_vote(st, tok, pl, g, ch, land, p, law[a, 0], mv, score, tied, decl)
            if yes >= g[G_COUNCIL_VOTES]:
                pass_law(st, tok, pl, g, land, law, a, b, score)
    elif kind == MV_REMOVE_HEAD:
        if check_election(tok, g):
            return
        yes = council_vote(st, tok, pl, g, ch, land, p, 0, mv, score, tied, decl)
        if yes >= g[G_COUNCIL_VOTES]:
            vacate(g, ch, a)
    elif kind == MV_REMOVE_COUNCILLOR:
        yes = land_vote(st, tok, pl, g, land, p, score)
        if yes >= g[G_REMOVE_VOTES]:
            vacate(g, ch, g[G_HOLDER0 + a])
    elif kind == MV_SEND:
        send_card(tok, g, card, p, mv[i, 4], a, b, mv[i, 3])
        # Any number of Mercenaries may be sent in one action: send another or stop.
        while True:
            n = add_sends(tok, ch, card, mv, 1, p, c)
            if n == 1:
                break
            mv[0, 0] = MV_PASS
            score[0] = 0
            if wants_scores(st, pl, p):
                score_sends(tok, pl, g, ch, land, card, mv, score, 1, n, p, tied)
            i = choose(st, pl, p, n, score)
            if mv[i, 0] == MV_PASS:
                break
            send_card(tok, g, card, p, mv[i, 4], mv[i, 1], mv[i, 2], mv[i, 3])


@kernel
def council_leader(tok, g):
    """The player with strictly most tokens on the five Council members, or -1."""
    best = np.int64(0)
    who = np.int64(-1)
    for p in range(g[G_PLAYERS]):
        x = np.int64(0)
        for k in range(5):
            c = council_member(g, k)
            if c >= 0:
                x += tok[p, N_LANDS + c]
        if x > best:
            best = x
            who = p
        elif x == best:
            who = -1
    return who


@kernel
def sycophants(tok, pl, g, ch):
    """Each Sycophant in play takes one token of the player with most tokens on the Council
    when that leader changes (rulebook: "counted at the start of each Action; tokens are put when
    the leader changes; tokens put earlier stay"). A tie names no leader and changes nothing.
    Returns the tokens put."""
    leader = council_leader(tok, g)
    if leader < 0:
        return 0
    put = 0
    for c in range(N_CHARS):
        if ch[c, C_SEAT] < 0 or has_trait(ch, c, T_SYCOPHANT) == 0 or ch[c, C_LEADER] == leader:
            continue
        ch[c, C_LEADER] = leader
        put += give_tokens(tok, pl, leader, N_LANDS + c, 1)
    return put


@kernel
def actions_phase(st, tok, pl, g, ch, land, law, card, mv, score, tied, cand, votes, order, decl):
    """Vacancies and the Representative, then each Character in acting order; a neutral Head may
    be tipped by players discarding tokens from its Land (the most discarded acts)."""
    n_players = g[G_PLAYERS]
    g[G_VETO_USED] = 0
    fill_vacancies(st, tok, pl, g, ch, land, cand, votes, score)
    choose_representative(st, tok, pl, g, ch, land, cand, score)
    n = acting_order(st, tok, g, ch, order)
    placed = g[G_SYCOPHANT_PHASE] == 1 and sycophants(tok, pl, g, ch) > 0
    if placed and check_victory(tok, g, land, ch):
        return
    for i in range(n):
        c = order[i]
        seat = ch[c, C_SEAT]
        if seat < 0:
            continue
        placed = g[G_SYCOPHANT_PHASE] == 0 and sycophants(tok, pl, g, ch) > 0
        if placed and check_victory(tok, g, land, ch):
            return
        p = char_owner(tok, g, c)
        if p < 0:
            most = np.int64(0)
            for q in range(n_players):
                most = max(most, tok[q, N_LANDS + c])
            if seat < HEAD0:
                continue
            li = seat - HEAD0
            if most == 0:
                # With no token on it every player is tied at zero (Council rules §3): the case
                # tip_empty_heads decides, counted when someone could tip it.
                if land_total(tok, g, li) == 0:
                    continue
                g[G_EMPTY_CHANCES] += 1
                if g[G_TIP_EMPTY] == 0:
                    continue
            best = 0
            count = 0
            for q in range(n_players):
                if tok[q, N_LANDS + c] != most:
                    continue
                top_bid = min(tok[q, li], g[G_TIP_CAP])
                # random: 0..top_bid uniformly; greedy: 1 if it can; search: its agent
                bid = tip_bid(st, pl, q, top_bid)
                remove_tokens(tok, pl, q, li, bid)
                if bid > best:
                    best = bid
                    count = 1
                    p = q
                elif bid == best and bid > 0:
                    count += 1
            if check_victory(tok, g, land, ch):
                return
            if best == 0:
                continue
            if count > 1:
                g[G_GAP0 + GAP_TIP] += 1
                continue
        character_action(st, tok, pl, g, ch, land, law, card, mv, score, tied, decl, c, p)
        if g[G_DONE] == 1:
            return
        if check_victory(tok, g, land, ch):
            return
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 1:
            card[k, K_STATUS] = 0
