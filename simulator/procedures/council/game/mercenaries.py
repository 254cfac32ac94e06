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
    BRIBE_CAP,
    CARD_KIND,
    CARD_MODE,
    CARD_OWNER,
    CARD_STATUS,
    CARD_TARGET,
    CARD_TURN,
    COINS,
    DONE,
    GREEDY_BRIBE,
    ISSUED,
    KILLED,
    MERCENARIES_ON,
    MOVE_FIELDS,
    MOVE_PASS,
    MOVE_REVEAL,
    MOVE_SEND,
    MOVES,
    N_COL,
    PHASE_REVEALS,
    PLAYED,
    RARE_COST,
    RARE_MASK,
    RARE_SCOPE,
    RARE_TURN,
    REVEAL_PHASES,
    SCORES,
    SEATS,
    SPY_THIEF_FIRST,
    SUPPLY,
    TO_BANK,
    TOKENS,
    TURN,
    WINDOW,
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
def guard_answers(context, state, target, bonus, scratch):
    """A face-down Guard on ``target`` may answer (its owner chooses). Returns its card or -1."""
    for m in range(MAX_CARDS):
        if (
            state[CARD_STATUS + m] != 2
            or state[CARD_KIND + m] != GUARD
            or state[CARD_TARGET + m] != target
        ):
            continue
        r = state[CARD_OWNER + m]
        scratch[SCORES] = 0
        if wants_scores(context, state, r):
            put = min(bonus, state[SUPPLY + r] + 1)
            scratch[SCORES] = gain(state, r, N_LANDS + target, put, 0, scratch)
        scratch[SCORES + 1] = -1 if char_owner(state, target) == r else 0
        if choose(context, state, r, 2, scratch) == 0:
            return np.int64(m)
    return np.int64(-1)


@kernel
def reveal_step(context, state, scratch):
    """A window to reveal Mercenaries (the start of a turn; under ``reveal_windows: phase`` also
    of the spending, action and tax phases): each face-down card placed in an earlier turn may be
    revealed (owner's choice), in card order, Spies and Thieves before the others
    (``spy_thief_first``)."""
    t = state[TURN]
    passes = 2 if state[SPY_THIEF_FIRST] == 1 else 1
    for sweep in range(passes):
        for k in range(MAX_CARDS):
            if (
                state[CARD_STATUS + k] != 2
                or state[CARD_TURN + k] >= t
                or state[CARD_KIND + k] == GUARD
            ):
                continue
            # Spies and Thieves first (Mercenary cards: "priority at the start of each phase")
            spy_or_thief = state[CARD_KIND + k] == SPY or state[CARD_KIND + k] == THIEF
            if passes == 2 and (sweep == 0) != spy_or_thief:
                continue
            p = state[CARD_OWNER + k]
            scored = wants_scores(context, state, p)
            target = state[CARD_TARGET + k]
            kind = state[CARD_KIND + k]
            n = 1
            scratch[MOVES] = MOVE_PASS
            scratch[SCORES] = 0
            if kind == MESSENGER:
                extra_max = 0
                fee = greedy_fee(state, target) if state[CARD_MODE + k] == 1 else 0
                if state[CARD_MODE + k] == 1:
                    # "raised by any amount: 1 token per 3 coins" (bribe_cap: the old cap of 2);
                    # a Greedy target takes a coin more: a briber without it waits
                    extra_max = min((state[COINS + p] - fee) // 3, state[BRIBE_CAP])
                elif rare_gift_open(state, p):
                    extra_max = 1  # j = 1: the gift made rare (Golden Coast)
                for j in range(extra_max + 1):
                    scratch[MOVES + MOVE_FIELDS * n] = MOVE_REVEAL
                    scratch[MOVES + MOVE_FIELDS * n + 1] = k
                    scratch[MOVES + MOVE_FIELDS * n + 2] = j
                    size = gift_size(state, target) + j if state[CARD_MODE + k] == 0 else 1 + j
                    if state[CARD_MODE + k] == 1 and has_trait(state, target, T_INCORRUPTIBLE) == 1:
                        size = 0
                    put = min(size, state[SUPPLY + p] + 1)
                    paid = -3 * j - fee if state[CARD_MODE + k] == 1 else -state[RARE_COST] * j
                    scratch[SCORES + n] = 0
                    if scored:
                        scratch[SCORES + n] = gain(state, p, N_LANDS + target, put, paid, scratch)
                    n += 1
            elif kind == ASSASSIN:
                scratch[MOVES + MOVE_FIELDS * n] = MOVE_REVEAL
                scratch[MOVES + MOVE_FIELDS * n + 1] = k
                scratch[MOVES + MOVE_FIELDS * n + 2] = 0
                scratch[SCORES + n] = -1 if char_owner(state, target) == p else 0
                n += 1
            else:
                for m in range(MAX_CARDS):
                    if state[CARD_STATUS + m] == 2 and state[CARD_OWNER + m] != p and n < MAX_MOVES:
                        scratch[MOVES + MOVE_FIELDS * n] = MOVE_REVEAL
                        scratch[MOVES + MOVE_FIELDS * n + 1] = k
                        scratch[MOVES + MOVE_FIELDS * n + 2] = m
                        scratch[SCORES + n] = 0
                        n += 1
            i = choose(context, state, p, n, scratch)
            if scratch[MOVES + MOVE_FIELDS * i] == MOVE_PASS:
                continue
            state[PLAYED + kind] += 1
            state[PHASE_REVEALS] += state[WINDOW]
            if kind == MESSENGER:
                j = scratch[MOVES + MOVE_FIELDS * i + 2]
                mode = state[CARD_MODE + k]
                discard_card(state, k)
                if mode == 0:
                    if j == 1:
                        use_rare_gift(state, p)
                    give_tokens(state, p, N_LANDS + target, gift_size(state, target) + j)
                else:
                    fee = greedy_fee(state, target)
                    state[COINS + p] -= 3 * j + fee
                    state[TO_BANK] += 3 * j + fee
                    if has_trait(state, target, T_INCORRUPTIBLE) == 0:
                        give_tokens(state, p, N_LANDS + target, 1 + j)
                        greedy_gains(state, target)
                presented(state, p, target, mode == 0)
            elif kind == ASSASSIN:
                m = guard_answers(context, state, target, 2, scratch)
                if m >= 0:
                    r = state[CARD_OWNER + m]
                    state[PLAYED + GUARD] += 1
                    discard_card(state, m)
                    discard_card(state, k)
                    give_tokens(state, r, N_LANDS + target, 2)
                    # The assassin's owner takes 1 token from any 3 Characters.
                    for _ in range(3):
                        n = 0
                        for c in range(N_CHARS):
                            if state[TOKENS + p * N_COL + N_LANDS + c] > 0:
                                scratch[MOVES + MOVE_FIELDS * n + 1] = c
                                scratch[SCORES + n] = 0
                                if wants_scores(context, state, p):
                                    col = N_LANDS + c
                                    scratch[SCORES + n] = gain(state, p, col, -1, 0, scratch)
                                n += 1
                        if n == 0:
                            break
                        c = scratch[
                            MOVES + MOVE_FIELDS * (choose(context, state, p, n, scratch)) + 1
                        ]
                        remove_tokens(state, p, N_LANDS + c, 1)
                else:
                    kill(state, target)
                    if state[KILLED] >= 5:
                        hand_of_order(context, state, scratch)
                        return
            else:
                m = scratch[MOVES + MOVE_FIELDS * i + 2]
                q = state[CARD_OWNER + m]
                km = state[CARD_KIND + m]
                tm = state[CARD_TARGET + m]
                if kind == SPY:
                    mode = state[CARD_MODE + m]
                    discard_card(state, k)
                    discard_card(state, m)
                    if km == MESSENGER and mode == 0:
                        give_tokens(state, q, N_LANDS + tm, gift_size(state, tm))
                        presented(state, q, tm, True)
                    elif km == MESSENGER:
                        # A Bribable target keeps the briber's token (trait 7).
                        if has_trait(state, tm, T_BRIBABLE) == 0:
                            remove_tokens(state, q, N_LANDS + tm, 1)
                        trait_toll(state, q, T_INCORRUPTIBLE, 1)
                        trait_toll(state, q, T_CAUTIOUS, 1)
                    elif km == THIEF:
                        remove_tokens(state, q, N_LANDS + tm, 1)
                        trait_toll(state, q, T_CAUTIOUS, 1)
                    elif km == ASSASSIN:
                        remove_tokens(
                            state, q, N_LANDS + tm, state[TOKENS + q * N_COL + N_LANDS + tm]
                        )
                        trait_toll(state, q, T_CAUTIOUS, 2)
                        for c in range(N_CHARS):
                            if state[SEATS + c] >= -1 and (
                                has_trait(state, c, T_PEACEFUL)
                                + has_trait(state, c, T_BELIEVER)
                                + has_trait(state, c, T_HUMANE)
                                > 0
                            ):
                                remove_tokens(state, q, N_LANDS + c, 1)
                    elif km == GUARD:
                        remove_tokens(state, p, N_LANDS + tm, 1)
                else:  # THIEF
                    if km == MESSENGER:
                        gm = guard_answers(context, state, tm, 1, scratch)
                        if gm >= 0:
                            r = state[CARD_OWNER + gm]
                            state[PLAYED + GUARD] += 1
                            discard_card(state, gm)
                            discard_card(state, k)
                            give_tokens(state, r, N_LANDS + tm, 1)
                            if check_victory(state):
                                return
                            continue
                        take = True
                        if state[CARD_MODE + m] == 1:
                            trait_toll(state, q, T_CAUTIOUS, 1)  # a bribe exposed (trait 12)
                            scratch[SCORES] = 0
                            scratch[SCORES + 1] = 0
                            take = choose(context, state, p, 2, scratch) == 0
                        discard_card(state, k)
                        discard_card(state, m)
                        if take:
                            state[CARD_STATUS + m] = 1
                            state[CARD_OWNER + m] = p
                            state[CARD_TURN + m] = t
                            state[CARD_MODE + m] = 0
                        else:
                            state[COINS + p] += 2
                            state[ISSUED] += 2
                    else:
                        discard_card(state, k)
                        discard_card(state, m)
                        if km in (THIEF, ASSASSIN):
                            trait_toll(state, q, T_CAUTIOUS, 1 if km == THIEF else 2)
            if check_victory(state):
                return


@kernel
def phase_window(context, state, scratch):
    """The reveal window at the start of the spending, action or tax phase (``reveal_windows:
    phase``; the turn's first is :func:`reveal_step` before income). Returns whether the game
    ended in it."""
    if state[MERCENARIES_ON] == 0 or state[REVEAL_PHASES] == 0:
        return False
    state[WINDOW] = 1
    reveal_step(context, state, scratch)
    state[WINDOW] = 0
    audit(state)
    return state[DONE] == 1


@kernel
def trait_toll(state, p, trait, n):
    """Player p takes up to n of its tokens off every Character not killed with this trait."""
    for c in range(N_CHARS):
        if state[SEATS + c] >= -1 and has_trait(state, c, trait) == 1:
            remove_tokens(state, p, N_LANDS + c, n)


@kernel
def presented(state, p, target, gift):
    """p presented a revealed gift (``gift``) or bribe to ``target``: to an Atheist, p takes a
    token off every Fanatic (trait 19); a gift to a Bribable, off every Incorruptible (trait 20)."""
    if has_trait(state, target, T_ATHEIST) == 1:
        trait_toll(state, p, T_FANATIC, 1)
    if gift and has_trait(state, target, T_BRIBABLE) == 1:
        trait_toll(state, p, T_INCORRUPTIBLE, 1)


@kernel
def greedy_fee(state, target):
    """The coin a Greedy target takes from its briber on top of the bribe (trait 8, ``greedy_bribe:
    briber_pays``; none from an Incorruptible, whom bribes do not reach)."""
    if state[GREEDY_BRIBE] != 0 or has_trait(state, target, T_INCORRUPTIBLE) == 1:
        return np.int64(0)
    return np.int64(has_trait(state, target, T_GREEDY))


@kernel
def greedy_gains(state, target):
    """A bribe reached a Greedy target: under ``greedy_bribe: holder_gains`` the player with
    priority on it takes one coin from the bank."""
    if state[GREEDY_BRIBE] == 1 and has_trait(state, target, T_GREEDY) == 1:
        q = char_owner(state, target)
        if q >= 0:
            state[COINS + q] += 1
            state[ISSUED] += 1


@kernel
def rare_gift_open(state, p):
    """Whether p may make a gift rare now: priority on a rare-gift Land's Head or 3+ tokens on it,
    the coins, and the power not yet played this turn (by anyone, or by p: ``rare_gift_once``)."""
    if state[COINS + p] < state[RARE_COST] or not power_user(state, p, E_RARE_GIFT):
        return False
    if state[RARE_TURN] != state[TURN]:
        return True
    if state[RARE_SCOPE] == 0:
        return state[RARE_MASK] == 0
    return (state[RARE_MASK] >> p) & 1 == 0


@kernel
def use_rare_gift(state, p):
    """p pays for a rare gift; the power is marked played this turn."""
    if state[RARE_TURN] != state[TURN]:
        state[RARE_TURN] = state[TURN]
        state[RARE_MASK] = 0
    state[RARE_MASK] |= 1 << p
    state[COINS + p] -= state[RARE_COST]
    state[TO_BANK] += state[RARE_COST]


@kernel
def add_sends(state, scratch, n, p, c):
    """Append the moves sending one of p's cards (as gift or bribe for a Messenger) to another
    Character in play, paying the token from the acting Character or, for a Head, from its Land
    (the player's choice: Council rules §3, "from this Character, or from the Land if the Character
    is a Head"). ``mv[., 4]`` is the column the token comes from."""
    seat = state[SEATS + c]
    for k in range(MAX_CARDS):
        if state[CARD_STATUS + k] != 1 or state[CARD_OWNER + k] != p:
            continue
        for t in range(N_CHARS):
            if t == c or state[SEATS + t] < 0:
                continue
            for mode in range(2 if state[CARD_KIND + k] == MESSENGER else 1):
                for src in range(2):
                    col = N_LANDS + c if src == 0 else (seat - HEAD0 if seat >= HEAD0 else -1)
                    if col < 0 or state[TOKENS + p * N_COL + col] == 0 or n >= MAX_MOVES:
                        continue
                    scratch[MOVES + MOVE_FIELDS * n] = MOVE_SEND
                    scratch[MOVES + MOVE_FIELDS * n + 1] = k
                    scratch[MOVES + MOVE_FIELDS * n + 2] = t
                    scratch[MOVES + MOVE_FIELDS * n + 3] = mode
                    scratch[MOVES + MOVE_FIELDS * n + 4] = col
                    n += 1
    return n


UNSCORED = -(2**62)


@kernel
def score_sends(state, scratch, first, n, p):
    """Scores of moves first..n-1 for a greedy seat: a send by what the token it costs is worth
    (:func:`.heuristic.gain`), plus for a Messenger what its gift or bribe will bring to the
    target when revealed; the rest 0."""
    bd = breakdown(state, scratch)
    base = edge_of(bd, state, p)
    # The same few sources and targets recur across cards and modes: each is scored once.
    paid = np.full(N_LANDS + N_CHARS, UNSCORED, dtype=np.int64)
    brought = np.full((N_CHARS, 3), UNSCORED, dtype=np.int64)
    for i in range(first, n):
        scratch[SCORES + i] = 0
        if scratch[MOVES + MOVE_FIELDS * i] != MOVE_SEND:
            continue
        src = scratch[MOVES + MOVE_FIELDS * i + 4]
        if paid[src] == UNSCORED:
            paid[src] = gain_at(bd, base, state, p, src, np.int64(-1), np.int64(0), scratch)
        scratch[SCORES + i] = paid[src]
        t = scratch[MOVES + MOVE_FIELDS * i + 2]
        gives = (
            scratch[MOVES + MOVE_FIELDS * i + 3] == 0 or has_trait(state, t, T_INCORRUPTIBLE) == 0
        )
        if state[CARD_KIND + scratch[MOVES + MOVE_FIELDS * i + 1]] == MESSENGER and gives:
            put = gift_size(state, t) if scratch[MOVES + MOVE_FIELDS * i + 3] == 0 else 1
            if brought[t, put] == UNSCORED:
                col = N_LANDS + t
                brought[t, put] = gain_at(bd, base, state, p, col, put, np.int64(0), scratch)
            scratch[SCORES + i] += brought[t, put]


@kernel
def send_card(state, p, from_col, k, target, mode):
    state[TOKENS + p * N_COL + from_col] -= 1
    state[CARD_STATUS + k] = 2
    state[CARD_TARGET + k] = target
    state[CARD_MODE + k] = mode
    state[CARD_TURN + k] = state[TURN]
