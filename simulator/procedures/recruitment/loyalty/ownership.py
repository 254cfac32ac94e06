"""Loyalty and the maintenance ownership check, case by case (Recruitment rules §2.3, 维持阶段 ③).

The rulebook's cases, in the order this module checks them; where revisions or readings differ
the rule is a case knob (cases.py) and a revision a preset of them:

- no empire tokens left on the card (1.0 ⑶, 1.1/1.2 ⑷): ``zero_tokens: removed``, the character
  and its exclusive cards leave the game. Every revision's text also reads as case ⑴, "the
  owner's loyalty is still the highest (or tied for it)" — at zero (``zero_tokens: stays``); the
  overlap is the same in 1.0, 1.1 and 1.2 and is counted as ``gap_zero_tie`` under either option;
- ⑴ the owner's loyalty is the highest or tied for it: it stays;
- ⑵ exactly one other empire strictly highest: it changes owner, keeping all tokens;
- several other empires tie above the owner (``multi_tie``): 1.0 says nothing (**gap**, counted
  ``gap_multi_tie``; ``stays``); 1.1 and 1.2 ⑶ remove every token from the card and the character
  leaves the game (``removed``); ``first_placed`` (in no revision) gives it, with every token, to
  the tied rival whose first token on it was placed earliest (``given_multi_tie``; also a
  defection).

Equipped cards of a character that leaves the game (``equipment``): 1.0 and 1.1 say nothing
(``kept``: they stay with the empire; each such removal counted as ``gap_equipped``); 1.2 adds
"弃置其装备的卡牌", discard them (``discarded``).

Lost tokens go back to the bank ("回收入银行内，供玩家在接下来的游戏中获得"), or, with
``returned_tokens: supply``, straight back to their empire's supply; tokens removed from a
character that leaves the game follow ``removed_tokens`` (bank in every revision).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline
from simulator.procedures.recruitment.loyalty.cases import code
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.state import (
    ANY_HOME,
    DEFECTIONS,
    EQUIPMENT_DISCARDED,
    GAP_EQUIPPED,
    GAP_MULTI_TIE,
    GAP_ZERO_TIE,
    GIVEN_MULTI_TIE,
    H_EQUIPMENT,
    H_MULTI_TIE,
    H_N_CARDS,
    H_PLAYERS,
    H_REMOVED_TO_BANK,
    H_STEP_ADDRESS,
    H_TO_BANK,
    H_VIOLATIONS,
    H_ZERO_TOKENS,
    REMOVED,
    REMOVED_MULTI_TIE,
    REMOVED_NO_TOKENS,
    S_BANK,
    S_BASE,
    S_COUNTS,
    S_EQUIPPED,
    S_FIRST_PLACED,
    S_HOME,
    S_STATUS,
    S_SUPPLY,
    S_TOKENS,
    TOKENS_LOST,
)
from simulator.procedures.recruitment.loyalty.steps import call_step

#: The cases' packed codes (cases.py; module constants Numba folds).
MULTI_TIE_STAYS = code("multi_tie", "stays")
MULTI_TIE_FIRST_PLACED = code("multi_tie", "first_placed")
ZERO_TOKENS_STAYS = code("zero_tokens", "stays")
EQUIPMENT_DISCARDED_CODE = code("equipment", "discarded")
#: Bits of one seat in a card's first-placement order (seat + 1: 0 ends the order).
ORDER_BITS = 3
ORDER_MASK = (1 << ORDER_BITS) - 1
assert MAX_PLAYERS <= ORDER_MASK and MAX_PLAYERS * ORDER_BITS < 63


@inline
def loyalty_of(tokens_of_e, home, base, e):
    """Loyalty to ``e`` of a card carrying ``tokens_of_e`` of its tokens, plus the printed base
    loyalty once it counts (Recruitment rules, recruitment phase ②: "只有当一个人物牌上放置有
    对应其基础忠诚度的影响力指示物时，牌面上的基础忠诚度才生效"): under ``at_its_number`` (the
    card's home is ``ANY_HOME``) once ``e``'s tokens on the card reach the base loyalty; under
    ``at_home_token`` if ``e`` is the card's home empire and has at least one token on it."""
    if home == ANY_HOME:
        if tokens_of_e >= base and tokens_of_e >= 1:
            return tokens_of_e + base
        return tokens_of_e
    if tokens_of_e >= 1 and home == e:
        return tokens_of_e + base
    return tokens_of_e


@inline
def effective_loyalty(s, c, e):
    """Loyalty of card ``c`` to seat ``e`` in state ``s``."""
    return loyalty_of(s[S_TOKENS + c * MAX_PLAYERS + e], s[S_HOME + c], s[S_BASE + c], e)


@inline
def return_tokens(s, e, n, to_bank):
    """``n`` tokens of seat ``e`` leave a card: to the bank (``to_bank`` nonzero) or to its
    supply; counted as ``tokens_lost``."""
    if to_bank != 0:
        s[S_BANK + e] += n
    else:
        s[S_SUPPLY + e] += n
    s[S_COUNTS + TOKENS_LOST * MAX_PLAYERS + e] += n


@inline
def lose_loyalty(s, c, e):
    """Card ``c`` loses one loyalty to seat ``e``: one of ``e``'s tokens leaves it, where
    ``returned_tokens`` says (nothing when it carries none)."""
    i = S_TOKENS + c * MAX_PLAYERS + e
    if s[i] > 0:
        s[i] -= 1
        return_tokens(s, e, 1, s[H_TO_BANK])


@inline
def note_placement(s, c, e):
    """Seat ``e`` placed a token on card ``c``: appended to the card's first-placement order
    unless it is there already (kept only under ``multi_tie: first_placed``)."""
    if s[H_MULTI_TIE] != MULTI_TIE_FIRST_PLACED:
        return
    order = s[S_FIRST_PLACED + c]
    shift = 0
    while (order >> shift) & ORDER_MASK != 0:
        if (order >> shift) & ORDER_MASK == e + 1:
            return
        shift += ORDER_BITS
    s[S_FIRST_PLACED + c] = order | ((e + 1) << shift)


@inline
def first_placed_among(s, c, loyalty, owner):
    """The seat other than ``owner`` with loyalty ``loyalty`` to card ``c`` whose first token on
    it came earliest (in play every token was placed and noted; a seat missing from the order,
    as in a hand-built position, comes after those in it, lowest seat first)."""
    order = s[S_FIRST_PLACED + c]
    home = s[S_HOME + c]
    base = s[S_BASE + c]
    first = S_TOKENS + c * MAX_PLAYERS
    while order != 0:
        f = (order & ORDER_MASK) - 1
        if f != owner and loyalty_of(s[first + f], home, base, f) == loyalty:
            return f
        order >>= ORDER_BITS
    for f in range(s[H_PLAYERS]):
        if f != owner and loyalty_of(s[first + f], home, base, f) == loyalty:
            return f
    return owner


@inline
def remove_tokens(s, c):
    """Every token leaves card ``c``, to where ``removed_tokens`` says (counted as lost)."""
    base_index = S_TOKENS + c * MAX_PLAYERS
    to_bank = s[H_REMOVED_TO_BANK]
    for f in range(s[H_PLAYERS]):
        n = s[base_index + f]
        if n > 0:
            s[base_index + f] = 0
            return_tokens(s, f, n, to_bank)


@inline
def remove_character(s, c, owner, cause):
    """Card ``c`` leaves the game with its exclusive cards, counted under ``cause`` for
    ``owner``; its equipped cards are discarded (``equipment: discarded``) or stay with the
    empire (``kept``, a counted gap). A ``cause`` below 0 counts nothing (a user step's removal
    in a case of its own)."""
    if cause >= 0:
        s[S_COUNTS + cause * MAX_PLAYERS + owner] += 1
    equipped = s[S_EQUIPPED + c]
    if s[H_EQUIPMENT] == EQUIPMENT_DISCARDED_CODE:
        s[S_COUNTS + EQUIPMENT_DISCARDED * MAX_PLAYERS + owner] += equipped
    elif equipped > 0:
        s[S_COUNTS + GAP_EQUIPPED * MAX_PLAYERS + owner] += 1
    s[S_STATUS + c] = REMOVED


@inline
def step_inputs(s, c, loyalty, tokens):
    """What a designer's step (userstep.py) is called with for card ``c``: each seat's loyalty
    to it and its tokens on it, into ``loyalty`` and ``tokens``; returns the tokens on it."""
    first = S_TOKENS + c * MAX_PLAYERS
    home = s[S_HOME + c]
    base = s[S_BASE + c]
    total = 0
    for f in range(s[H_PLAYERS]):
        t = s[first + f]
        tokens[f] = t
        total += t
        loyalty[f] = loyalty_of(t, home, base, f)
    return total


@inline
def user_ownership(s):
    """Maintenance ③ by a designer's step (userstep.py), called on every owned character by
    card index with each seat's loyalty and tokens: it returns the seat that holds it, or -1 to
    remove it. Counted by the situation, as the built-in cases count: ``gap_zero_tie`` when no
    tokens are left; when several others tie above the owner, ``gap_multi_tie`` if it stays,
    ``given_multi_tie`` if a rival gains it, ``removed_multi_tie`` if removed; ``defections``
    for every change of owner; ``removed_no_tokens`` for a removal with no tokens left (another
    removal shows in ``characters_in_play``). Removed tokens follow ``removed_tokens``, equipped
    cards ``equipment``. A seat out of range counts as an invariant violation and changes
    nothing."""
    players = s[H_PLAYERS]
    address = s[H_STEP_ADDRESS]
    loyalty = np.zeros(players, dtype=np.int64)
    tokens = np.zeros(players, dtype=np.int64)
    for c in range(s[H_N_CARDS]):
        e = s[S_STATUS + c]
        if e < 0:
            continue
        total = step_inputs(s, c, loyalty, tokens)
        best = -1
        n_best = 0
        for f in range(players):
            if f != e:
                if loyalty[f] > best:
                    best = loyalty[f]
                    n_best = 1
                elif loyalty[f] == best:
                    n_best += 1
        several = total > 0 and loyalty[e] < best and n_best > 1
        if total == 0:
            s[S_COUNTS + GAP_ZERO_TIE * MAX_PLAYERS + e] += 1
        holder = call_step(address, loyalty, tokens, e)
        if holder < -1 or holder >= players:
            s[H_VIOLATIONS] += 1
        elif holder == e:
            if several:
                s[S_COUNTS + GAP_MULTI_TIE * MAX_PLAYERS + e] += 1
        elif holder >= 0:
            s[S_STATUS + c] = holder
            s[S_COUNTS + DEFECTIONS * MAX_PLAYERS + e] += 1
            if several:
                s[S_COUNTS + GIVEN_MULTI_TIE * MAX_PLAYERS + e] += 1
        else:
            remove_tokens(s, c)
            cause = -1
            if total == 0:
                cause = REMOVED_NO_TOKENS
            elif several:
                cause = REMOVED_MULTI_TIE
            remove_character(s, c, e, cause)


@inline
def ownership_check(s):
    """Maintenance ③ on every owned character, by card index (a designer's step instead when
    the game has one: :func:`user_ownership`)."""
    if s[H_STEP_ADDRESS] != 0:
        user_ownership(s)
        return
    players = s[H_PLAYERS]
    multi_tie = s[H_MULTI_TIE]
    for c in range(s[H_N_CARDS]):
        e = s[S_STATUS + c]
        if e < 0:
            continue
        base_index = S_TOKENS + c * MAX_PLAYERS
        total = 0
        for f in range(players):
            total += s[base_index + f]
        if total == 0:
            # Also "owner tied for highest, at zero" in every revision's wording: the gap.
            s[S_COUNTS + GAP_ZERO_TIE * MAX_PLAYERS + e] += 1
            if s[H_ZERO_TOKENS] != ZERO_TOKENS_STAYS:
                remove_character(s, c, e, REMOVED_NO_TOKENS)
            continue
        home = s[S_HOME + c]
        base = s[S_BASE + c]
        own = loyalty_of(s[base_index + e], home, base, e)
        best = -1
        n_best = 0
        who = -1
        for f in range(players):
            if f == e:
                continue
            loyalty = loyalty_of(s[base_index + f], home, base, f)
            if loyalty > best:
                best = loyalty
                n_best = 1
                who = f
            elif loyalty == best:
                n_best += 1
        if own >= best:
            continue
        if n_best == 1:
            s[S_STATUS + c] = who
            s[S_COUNTS + DEFECTIONS * MAX_PLAYERS + e] += 1
        elif multi_tie == MULTI_TIE_STAYS:
            s[S_COUNTS + GAP_MULTI_TIE * MAX_PLAYERS + e] += 1
        elif multi_tie == MULTI_TIE_FIRST_PLACED:
            s[S_STATUS + c] = first_placed_among(s, c, best, e)
            s[S_COUNTS + DEFECTIONS * MAX_PLAYERS + e] += 1
            s[S_COUNTS + GIVEN_MULTI_TIE * MAX_PLAYERS + e] += 1
        else:
            remove_tokens(s, c)
            remove_character(s, c, e, REMOVED_MULTI_TIE)
