"""Loyalty and the maintenance ownership check, per revision (Recruitment rules §2.3, 维持阶段 ③).

The rulebook's cases, in the order this module checks them:

- no empire tokens left on the card (1.0 ⑶, 1.1/1.2 ⑷): the character and its exclusive cards
  leave the game (1.2: its equipped cards are discarded). Every revision's text also reads as
  case ⑴, "the owner's loyalty is still the highest (or tied for it)" — at zero; the overlap is
  the same in 1.0, 1.1 and 1.2, so it is counted as ``gap_zero_tie`` in every revision;
- ⑴ the owner's loyalty is the highest or tied for it: it stays;
- ⑵ exactly one other empire strictly highest: it changes owner, keeping all tokens;
- several other empires tie above the owner: 1.0 says nothing (**gap**, counted
  ``gap_multi_tie``; default: it stays); 1.1 ⑶ removes every token from the card and the
  character leaves the game; 1.2 ⑶ also discards its equipped cards.

Equipped cards: 1.0 and 1.1 say nothing of them when a character leaves the game (1.2 adds
"弃置其装备的卡牌", discard them). Default: they stay with the empire; each removal of a character
carrying equipped cards under 1.0 or 1.1 is counted as ``gap_equipped``.

Lost and removed tokens go back to the bank ("回收入银行内，供玩家在接下来的游戏中获得"), or, with
``returned_tokens: supply``, straight back to their empire's supply.
"""

from __future__ import annotations

from simulator.jit import inline
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.state import (
    DEFECTIONS,
    EQUIPMENT_DISCARDED,
    GAP_EQUIPPED,
    GAP_MULTI_TIE,
    GAP_ZERO_TIE,
    H_N_CARDS,
    H_PLAYERS,
    H_REVISION,
    H_TO_BANK,
    REMOVED,
    REMOVED_MULTI_TIE,
    REMOVED_NO_TOKENS,
    S_BANK,
    S_BASE,
    S_COUNTS,
    S_EQUIPPED,
    S_HOME,
    S_STATUS,
    S_SUPPLY,
    S_TOKENS,
    TOKENS_LOST,
)

REVISION_1_0 = 0
REVISION_1_1 = 1
REVISION_1_2 = 2


@inline
def loyalty_of(tokens_of_e, home, base, e):
    """Loyalty to ``e`` of a card carrying ``tokens_of_e`` of its tokens: plus the printed base
    loyalty if ``e`` is the card's home empire and the card carries at least one of ``e``'s
    tokens (rulebook: "只有当一个人物牌上放置有对应其基础忠诚度的影响力指示物时，
    牌面上的基础忠诚度才生效")."""
    if tokens_of_e >= 1 and home == e:
        return tokens_of_e + base
    return tokens_of_e


@inline
def effective_loyalty(s, c, e):
    """Loyalty of card ``c`` to seat ``e`` in state ``s``."""
    return loyalty_of(s[S_TOKENS + c * MAX_PLAYERS + e], s[S_HOME + c], s[S_BASE + c], e)


@inline
def return_tokens(s, e, n):
    """``n`` tokens of seat ``e`` leave a card: to the bank (rulebook) or to the supply (knob)."""
    if s[H_TO_BANK] != 0:
        s[S_BANK + e] += n
    else:
        s[S_SUPPLY + e] += n
    s[S_COUNTS + TOKENS_LOST * MAX_PLAYERS + e] += n


@inline
def lose_loyalty(s, c, e):
    """Card ``c`` loses one loyalty to seat ``e``: one of ``e``'s tokens leaves it (nothing when
    it carries none)."""
    i = S_TOKENS + c * MAX_PLAYERS + e
    if s[i] > 0:
        s[i] -= 1
        return_tokens(s, e, 1)


@inline
def remove_character(s, c, owner, cause):
    """Card ``c`` leaves the game with its exclusive cards, counted under ``cause`` for
    ``owner``; its equipped cards are discarded in 1.2, a counted gap in 1.0 and 1.1."""
    s[S_COUNTS + cause * MAX_PLAYERS + owner] += 1
    equipped = s[S_EQUIPPED + c]
    if s[H_REVISION] == REVISION_1_2:
        s[S_COUNTS + EQUIPMENT_DISCARDED * MAX_PLAYERS + owner] += equipped
    elif equipped > 0:
        s[S_COUNTS + GAP_EQUIPPED * MAX_PLAYERS + owner] += 1
    s[S_STATUS + c] = REMOVED


@inline
def ownership_check(s):
    """Maintenance ③ on every owned character, by card index."""
    players = s[H_PLAYERS]
    revision = s[H_REVISION]
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
        elif revision == REVISION_1_0:
            s[S_COUNTS + GAP_MULTI_TIE * MAX_PLAYERS + e] += 1
        else:
            for f in range(players):
                n = s[base_index + f]
                if n > 0:
                    s[base_index + f] = 0
                    return_tokens(s, f, n)
            remove_character(s, c, e, REMOVED_MULTI_TIE)
