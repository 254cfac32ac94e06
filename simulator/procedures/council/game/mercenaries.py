"""Mercenary cards: revealing them at the start of a turn and sending them in an action."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel
from simulator.procedures.council.game.context import wants_scores
from simulator.procedures.council.game.heuristic import (
    breakdown,
    choose,
    edge_of,
    gain,
    gain_at,
)
from simulator.procedures.council.game.params import (
    ASSASSIN,
    E_RARE_GIFT,
    GUARD,
    HEAD0,
    MAX_CARDS,
    MAX_MOVES,
    MESSENGER,
    N_CHARS,
    N_LANDS,
    SPY,
    T_ATHEIST,
    T_BELIEVER,
    T_BRIBABLE,
    T_CAUTIOUS,
    T_FANATIC,
    T_GREEDY,
    T_HUMANE,
    T_INCORRUPTIBLE,
    T_PEACEFUL,
    THIEF,
)
from simulator.procedures.council.game.setup import audit
from simulator.procedures.council.game.state import (
    C_SEAT,
    G_BRIBE_CAP,
    G_DONE,
    G_GREEDY_BRIBE,
    G_ISSUED,
    G_KILLED,
    G_MERC0,
    G_MERCS_ON,
    G_PHASE_REVEALS,
    G_RARE_COST,
    G_RARE_MASK,
    G_RARE_SCOPE,
    G_RARE_TURN,
    G_REVEAL_PHASES,
    G_SPY_THIEF_FIRST,
    G_TO_BANK,
    G_TURN,
    G_WINDOW,
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
    power_user,
    remove_tokens,
)
from simulator.procedures.council.game.victory import (
    check_victory,
    hand_of_order,
)


@kernel
def guard_answers(st, tok, pl, g, ch, land, card, target, bonus, tied, score):
    """A face-down Guard on ``target`` may answer (its owner chooses). Returns its card or -1."""
    for m in range(MAX_CARDS):
        if card[m, K_STATUS] != 2 or card[m, K_KIND] != GUARD or card[m, K_TARGET] != target:
            continue
        r = card[m, K_OWNER]
        score[0] = 0
        if wants_scores(st, pl, r):
            put = min(bonus, pl[r, P_SUPPLY] + 1)
            score[0] = gain(tok, pl, g, ch, land, r, N_LANDS + target, put, 0, tied)
        score[1] = -1 if char_owner(tok, g, target) == r else 0
        if choose(st, pl, r, 2, score) == 0:
            return np.int64(m)
    return np.int64(-1)


@kernel
def reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
    """A window to reveal Mercenaries (the start of a turn; under ``reveal_windows: phase`` also
    of the spending, action and tax phases): each face-down card placed in an earlier turn may be
    revealed (owner's choice), in card order, Spies and Thieves before the others
    (``spy_thief_first``)."""
    t = g[G_TURN]
    passes = 2 if g[G_SPY_THIEF_FIRST] == 1 else 1
    for sweep in range(passes):
        for k in range(MAX_CARDS):
            if card[k, K_STATUS] != 2 or card[k, K_TURN] >= t or card[k, K_KIND] == GUARD:
                continue
            # Spies and Thieves first (Mercenary cards: "priority at the start of each phase")
            spy_or_thief = card[k, K_KIND] == SPY or card[k, K_KIND] == THIEF
            if passes == 2 and (sweep == 0) != spy_or_thief:
                continue
            p = card[k, K_OWNER]
            scored = wants_scores(st, pl, p)
            target = card[k, K_TARGET]
            kind = card[k, K_KIND]
            n = 1
            mv[0, 0] = MV_PASS
            score[0] = 0
            if kind == MESSENGER:
                extra_max = 0
                fee = greedy_fee(g, ch, target) if card[k, K_MODE] == 1 else 0
                if card[k, K_MODE] == 1:
                    # "raised by any amount: 1 token per 3 coins" (bribe_cap: the old cap of 2);
                    # a Greedy target takes a coin more: a briber without it waits
                    extra_max = min((pl[p, P_COINS] - fee) // 3, g[G_BRIBE_CAP])
                elif rare_gift_open(tok, pl, g, land, p):
                    extra_max = 1  # j = 1: the gift made rare (Golden Coast)
                for j in range(extra_max + 1):
                    mv[n, 0] = MV_REVEAL
                    mv[n, 1] = k
                    mv[n, 2] = j
                    size = gift_size(ch, target) + j if card[k, K_MODE] == 0 else 1 + j
                    if card[k, K_MODE] == 1 and has_trait(ch, target, T_INCORRUPTIBLE) == 1:
                        size = 0
                    put = min(size, pl[p, P_SUPPLY] + 1)
                    paid = -3 * j - fee if card[k, K_MODE] == 1 else -g[G_RARE_COST] * j
                    score[n] = 0
                    if scored:
                        score[n] = gain(tok, pl, g, ch, land, p, N_LANDS + target, put, paid, tied)
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
            g[G_PHASE_REVEALS] += g[G_WINDOW]
            if kind == MESSENGER:
                j = mv[i, 2]
                mode = card[k, K_MODE]
                discard_card(tok, pl, card, k)
                if mode == 0:
                    if j == 1:
                        use_rare_gift(pl, g, p)
                    give_tokens(tok, pl, p, N_LANDS + target, gift_size(ch, target) + j)
                else:
                    fee = greedy_fee(g, ch, target)
                    pl[p, P_COINS] -= 3 * j + fee
                    g[G_TO_BANK] += 3 * j + fee
                    if has_trait(ch, target, T_INCORRUPTIBLE) == 0:
                        give_tokens(tok, pl, p, N_LANDS + target, 1 + j)
                        greedy_gains(tok, pl, g, ch, target)
                presented(tok, pl, ch, p, target, mode == 0)
            elif kind == ASSASSIN:
                m = guard_answers(st, tok, pl, g, ch, land, card, target, 2, tied, score)
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
                                score[n] = 0
                                if wants_scores(st, pl, p):
                                    col = N_LANDS + c
                                    score[n] = gain(tok, pl, g, ch, land, p, col, -1, 0, tied)
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
                        presented(tok, pl, ch, q, tm, True)
                    elif km == MESSENGER:
                        # A Bribable target keeps the briber's token (trait 7).
                        if has_trait(ch, tm, T_BRIBABLE) == 0:
                            remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                        trait_toll(tok, pl, ch, q, T_INCORRUPTIBLE, 1)
                        trait_toll(tok, pl, ch, q, T_CAUTIOUS, 1)
                    elif km == THIEF:
                        remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                        trait_toll(tok, pl, ch, q, T_CAUTIOUS, 1)
                    elif km == ASSASSIN:
                        remove_tokens(tok, pl, q, N_LANDS + tm, tok[q, N_LANDS + tm])
                        trait_toll(tok, pl, ch, q, T_CAUTIOUS, 2)
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
                        gm = guard_answers(st, tok, pl, g, ch, land, card, tm, 1, tied, score)
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
                            trait_toll(tok, pl, ch, q, T_CAUTIOUS, 1)  # a bribe exposed (trait 12)
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
                        if km in (THIEF, ASSASSIN):
                            trait_toll(tok, pl, ch, q, T_CAUTIOUS, 1 if km == THIEF else 2)
            if check_victory(tok, g, land, ch):
                return


@kernel
def phase_window(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
    """The reveal window at the start of the spending, action or tax phase (``reveal_windows:
    phase``; the turn's first is :func:`reveal_step` before income). Returns whether the game
    ended in it."""
    if g[G_MERCS_ON] == 0 or g[G_REVEAL_PHASES] == 0:
        return False
    g[G_WINDOW] = 1
    reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes)
    g[G_WINDOW] = 0
    audit(tok, pl, g, ch, land, card)
    return g[G_DONE] == 1


@kernel
def trait_toll(tok, pl, ch, p, trait, n):
    """Player p takes up to n of its tokens off every Character not killed with this trait."""
    for c in range(N_CHARS):
        if ch[c, C_SEAT] >= -1 and has_trait(ch, c, trait) == 1:
            remove_tokens(tok, pl, p, N_LANDS + c, n)


@kernel
def presented(tok, pl, ch, p, target, gift):
    """p presented a revealed gift (``gift``) or bribe to ``target``: to an Atheist, p takes a
    token off every Fanatic (trait 19); a gift to a Bribable, off every Incorruptible (trait 20)."""
    if has_trait(ch, target, T_ATHEIST) == 1:
        trait_toll(tok, pl, ch, p, T_FANATIC, 1)
    if gift and has_trait(ch, target, T_BRIBABLE) == 1:
        trait_toll(tok, pl, ch, p, T_INCORRUPTIBLE, 1)


@kernel
def greedy_fee(g, ch, target):
    """The coin a Greedy target takes from its briber on top of the bribe (trait 8, ``greedy_bribe:
    briber_pays``; none from an Incorruptible, whom bribes do not reach)."""
    if g[G_GREEDY_BRIBE] != 0 or has_trait(ch, target, T_INCORRUPTIBLE) == 1:
        return np.int64(0)
    return np.int64(has_trait(ch, target, T_GREEDY))


@kernel
def greedy_gains(tok, pl, g, ch, target):
    """A bribe reached a Greedy target: under ``greedy_bribe: holder_gains`` the player with
    priority on it takes one coin from the bank."""
    if g[G_GREEDY_BRIBE] == 1 and has_trait(ch, target, T_GREEDY) == 1:
        q = char_owner(tok, g, target)
        if q >= 0:
            pl[q, P_COINS] += 1
            g[G_ISSUED] += 1


@kernel
def rare_gift_open(tok, pl, g, land, p):
    """Whether p may make a gift rare now: priority on a rare-gift Land's Head or 3+ tokens on it,
    the coins, and the power not yet played this turn (by anyone, or by p: ``rare_gift_once``)."""
    if pl[p, P_COINS] < g[G_RARE_COST] or not power_user(tok, g, land, p, E_RARE_GIFT):
        return False
    if g[G_RARE_TURN] != g[G_TURN]:
        return True
    if g[G_RARE_SCOPE] == 0:
        return g[G_RARE_MASK] == 0
    return (g[G_RARE_MASK] >> p) & 1 == 0


@kernel
def use_rare_gift(pl, g, p):
    """p pays for a rare gift; the power is marked played this turn."""
    if g[G_RARE_TURN] != g[G_TURN]:
        g[G_RARE_TURN] = g[G_TURN]
        g[G_RARE_MASK] = 0
    g[G_RARE_MASK] |= 1 << p
    pl[p, P_COINS] -= g[G_RARE_COST]
    g[G_TO_BANK] += g[G_RARE_COST]


@kernel
def add_sends(tok, ch, card, mv, n, p, c):
    """Append the moves sending one of p's cards (as gift or bribe for a Messenger) to another
    Character in play, paying the token from the acting Character or, for a Head, from its Land
    (the player's choice: Council rules §3, "from this Character, or from the Land if the Character
    is a Head"). ``mv[., 4]`` is the column the token comes from."""
    seat = ch[c, C_SEAT]
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] != 1 or card[k, K_OWNER] != p:
            continue
        for t in range(N_CHARS):
            if t == c or ch[t, C_SEAT] < 0:
                continue
            for mode in range(2 if card[k, K_KIND] == MESSENGER else 1):
                for src in range(2):
                    col = N_LANDS + c if src == 0 else (seat - HEAD0 if seat >= HEAD0 else -1)
                    if col < 0 or tok[p, col] == 0 or n >= MAX_MOVES:
                        continue
                    mv[n, 0] = MV_SEND
                    mv[n, 1] = k
                    mv[n, 2] = t
                    mv[n, 3] = mode
                    mv[n, 4] = col
                    n += 1
    return n


UNSCORED = -(2**62)


@kernel
def score_sends(tok, pl, g, ch, land, card, mv, score, first, n, p, tied):
    """Scores of moves first..n-1 for a greedy seat: a send by what the token it costs is worth
    (:func:`.heuristic.gain`), plus for a Messenger what its gift or bribe will bring to the
    target when revealed; the rest 0."""
    bd = breakdown(tok, g, ch, land, tied)
    base = edge_of(bd, pl, g, p)
    # The same few sources and targets recur across cards and modes: each is scored once.
    paid = np.full(N_LANDS + N_CHARS, UNSCORED, dtype=np.int64)
    brought = np.full((N_CHARS, 3), UNSCORED, dtype=np.int64)
    for i in range(first, n):
        score[i] = 0
        if mv[i, 0] != MV_SEND:
            continue
        src = mv[i, 4]
        if paid[src] == UNSCORED:
            paid[src] = gain_at(
                bd, base, tok, pl, g, ch, land, p, src, np.int64(-1), np.int64(0), tied
            )
        score[i] = paid[src]
        t = mv[i, 2]
        gives = mv[i, 3] == 0 or has_trait(ch, t, T_INCORRUPTIBLE) == 0
        if card[mv[i, 1], K_KIND] == MESSENGER and gives:
            put = gift_size(ch, t) if mv[i, 3] == 0 else 1
            if brought[t, put] == UNSCORED:
                col = N_LANDS + t
                brought[t, put] = gain_at(
                    bd, base, tok, pl, g, ch, land, p, col, put, np.int64(0), tied
                )
            score[i] += brought[t, put]


@kernel
def send_card(tok, g, card, p, from_col, k, target, mode):
    tok[p, from_col] -= 1
    card[k, K_STATUS] = 2
    card[k, K_TARGET] = target
    card[k, K_MODE] = mode
    card[k, K_TURN] = g[G_TURN]
