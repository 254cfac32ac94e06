"""Mercenary cards: revealing them at the start of a turn and sending them in an action."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.heuristic import (
    choose,
    token_delta,
)
from simulator.procedures.council.game.params import (
    ASSASSIN,
    GUARD,
    HEAD0,
    MAX_CARDS,
    MAX_MOVES,
    MESSENGER,
    N_CHARS,
    N_LANDS,
    SPY,
    T_BELIEVER,
    T_HUMANE,
    T_INCORRUPTIBLE,
    T_PEACEFUL,
    THIEF,
)
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_ISSUED,
    G_KILLED,
    G_MERC0,
    G_TO_BANK,
    G_TURN,
    K_KIND,
    K_MODE,
    K_OWNER,
    K_STATUS,
    K_TARGET,
    K_TURN,
    MV_PASS,
    MV_REVEAL,
    MV_SEND,
    P_COINS,
    P_SUPPLY,
    char_owner,
    discard_card,
    gift_size,
    give_tokens,
    has_trait,
    kill,
    remove_tokens,
)
from simulator.procedures.council.game.victory import (
    check_victory,
    hand_of_order,
)


@kernel
def guard_answers(st, tok, pl, g, ch, card, target, bonus, tied, score):
    """A face-down Guard on ``target`` may answer (its owner chooses). Returns its card or -1."""
    for m in range(MAX_CARDS):
        if card[m, K_STATUS] != 2 or card[m, K_KIND] != GUARD or card[m, K_TARGET] != target:
            continue
        r = card[m, K_OWNER]
        score[0] = token_delta(
            tok, g, ch, r, N_LANDS + target, min(bonus, pl[r, P_SUPPLY] + 1), tied
        )
        score[1] = -1 if char_owner(tok, g, target) == r else 0
        if choose(st, pl, r, 2, score) == 0:
            return np.int64(m)
    return np.int64(-1)


@kernel
def reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
    """Start of a turn: each face-down card placed in an earlier turn may be revealed (owner's
    choice), in card order."""
    t = g[G_TURN]
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] != 2 or card[k, K_TURN] >= t or card[k, K_KIND] == GUARD:
            continue
        p = card[k, K_OWNER]
        target = card[k, K_TARGET]
        kind = card[k, K_KIND]
        n = 1
        mv[0, 0] = MV_PASS
        score[0] = 0
        if kind == MESSENGER:
            extra_max = 0
            if card[k, K_MODE] == 1:
                extra_max = min(pl[p, P_COINS] // 3, 2)
            for j in range(extra_max + 1):
                mv[n, 0] = MV_REVEAL
                mv[n, 1] = k
                mv[n, 2] = j
                gain = gift_size(ch, target) if card[k, K_MODE] == 0 else 1 + j
                if card[k, K_MODE] == 1 and has_trait(ch, target, T_INCORRUPTIBLE) == 1:
                    gain = 0
                score[n] = token_delta(
                    tok, g, ch, p, N_LANDS + target, min(gain, pl[p, P_SUPPLY] + 1), tied
                )
                n += 1
        elif kind == ASSASSIN:
            mv[n, 0] = MV_REVEAL
            mv[n, 1] = k
            mv[n, 2] = 0
            score[n] = -1 if char_owner(tok, g, target) == p else 0
            n += 1
        else:
            for m in range(MAX_CARDS):
                if card[m, K_STATUS] == 2 and card[m, K_OWNER] != p and n < MAX_MOVES:
                    mv[n, 0] = MV_REVEAL
                    mv[n, 1] = k
                    mv[n, 2] = m
                    score[n] = 0
                    n += 1
        i = choose(st, pl, p, n, score)
        if mv[i, 0] == MV_PASS:
            continue
        g[G_MERC0 + kind] += 1
        if kind == MESSENGER:
            j = mv[i, 2]
            mode = card[k, K_MODE]
            discard_card(tok, pl, card, k)
            if mode == 0:
                give_tokens(tok, pl, p, N_LANDS + target, gift_size(ch, target))
            else:
                pl[p, P_COINS] -= 3 * j
                g[G_TO_BANK] += 3 * j
                if has_trait(ch, target, T_INCORRUPTIBLE) == 0:
                    give_tokens(tok, pl, p, N_LANDS + target, 1 + j)
        elif kind == ASSASSIN:
            m = guard_answers(st, tok, pl, g, ch, card, target, 2, tied, score)
            if m >= 0:
                r = card[m, K_OWNER]
                g[G_MERC0 + GUARD] += 1
                discard_card(tok, pl, card, m)
                discard_card(tok, pl, card, k)
                give_tokens(tok, pl, r, N_LANDS + target, 2)
                # The assassin's owner takes 1 token from any 3 Characters.
                for _ in range(3):
                    n = 0
                    for c in range(N_CHARS):
                        if tok[p, N_LANDS + c] > 0:
                            mv[n, 1] = c
                            score[n] = token_delta(tok, g, ch, p, N_LANDS + c, -1, tied)
                            n += 1
                    if n == 0:
                        break
                    c = mv[choose(st, pl, p, n, score), 1]
                    remove_tokens(tok, pl, p, N_LANDS + c, 1)
            else:
                kill(tok, pl, g, ch, card, target)
                if g[G_KILLED] >= 5:
                    hand_of_order(st, tok, pl, g, ch, land, cand, votes, score)
                    return
        else:
            m = mv[i, 2]
            q = card[m, K_OWNER]
            km = card[m, K_KIND]
            tm = card[m, K_TARGET]
            if kind == SPY:
                mode = card[m, K_MODE]
                discard_card(tok, pl, card, k)
                discard_card(tok, pl, card, m)
                if km == MESSENGER and mode == 0:
                    give_tokens(tok, pl, q, N_LANDS + tm, gift_size(ch, tm))
                elif km == MESSENGER:
                    remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                    for c in range(N_CHARS):
                        if ch[c, C_SEAT] >= -1 and has_trait(ch, c, T_INCORRUPTIBLE) == 1:
                            remove_tokens(tok, pl, q, N_LANDS + c, 1)
                elif km == THIEF:
                    remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                elif km == ASSASSIN:
                    remove_tokens(tok, pl, q, N_LANDS + tm, tok[q, N_LANDS + tm])
                    for c in range(N_CHARS):
                        if ch[c, C_SEAT] >= -1 and (
                            has_trait(ch, c, T_PEACEFUL)
                            + has_trait(ch, c, T_BELIEVER)
                            + has_trait(ch, c, T_HUMANE)
                            > 0
                        ):
                            remove_tokens(tok, pl, q, N_LANDS + c, 1)
                elif km == GUARD:
                    remove_tokens(tok, pl, p, N_LANDS + tm, 1)
            else:  # THIEF
                if km == MESSENGER:
                    gm = guard_answers(st, tok, pl, g, ch, card, tm, 1, tied, score)
                    if gm >= 0:
                        r = card[gm, K_OWNER]
                        g[G_MERC0 + GUARD] += 1
                        discard_card(tok, pl, card, gm)
                        discard_card(tok, pl, card, k)
                        give_tokens(tok, pl, r, N_LANDS + tm, 1)
                        if check_victory(tok, g, land, ch):
                            return
                        continue
                    take = True
                    if card[m, K_MODE] == 1:
                        score[0] = 0
                        score[1] = 0
                        take = choose(st, pl, p, 2, score) == 0
                    discard_card(tok, pl, card, k)
                    discard_card(tok, pl, card, m)
                    if take:
                        card[m, K_STATUS] = 1
                        card[m, K_OWNER] = p
                        card[m, K_TURN] = t
                        card[m, K_MODE] = 0
                    else:
                        pl[p, P_COINS] += 2
                        g[G_ISSUED] += 2
                else:
                    discard_card(tok, pl, card, k)
                    discard_card(tok, pl, card, m)
        if check_victory(tok, g, land, ch):
            return


@kernel
def send_source(tok, ch, p, c):
    """Where the sender's token for a Mercenary comes from: the acting Character, or a Head's
    Land; -1 if p has none there."""
    seat = ch[c, C_SEAT]
    if tok[p, N_LANDS + c] > 0:
        return np.int64(N_LANDS + c)
    if seat >= HEAD0 and tok[p, seat - HEAD0] > 0:
        return np.int64(seat - HEAD0)
    return np.int64(-1)


@kernel
def add_sends(ch, card, mv, n, p, c, from_col):
    """Append the moves sending one of p's cards (as gift or bribe for a Messenger) to another
    Character in play."""
    if from_col < 0:
        return n
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] != 1 or card[k, K_OWNER] != p:
            continue
        for t in range(N_CHARS):
            if t == c or ch[t, C_SEAT] < 0:
                continue
            for mode in range(2 if card[k, K_KIND] == MESSENGER else 1):
                if n < MAX_MOVES:
                    mv[n, 0] = MV_SEND
                    mv[n, 1] = k
                    mv[n, 2] = t
                    mv[n, 3] = mode
                    n += 1
    return n


@kernel
def send_card(tok, g, card, p, from_col, k, target, mode):
    tok[p, from_col] -= 1
    card[k, K_STATUS] = 2
    card[k, K_TARGET] = target
    card[k, K_MODE] = mode
    card[k, K_TURN] = g[G_TURN]
