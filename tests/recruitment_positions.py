"""Hand-built positions of ``recruitment.loyalty`` for tests: a twin ``Game`` and the kernel's
state of the same position.

:func:`deliberate_tie_position` is the position of issue 13 where, under revision 1.1, seat 2
gains by tying a rival on purpose above a third empire's character so that the character is
removed; the greedy agent does not see it (it needs two rounds of unpaid wages), search agents
that play to the end do. Agents' tests import it.
"""

from __future__ import annotations

import numpy as np

from simulator.procedures.recruitment.loyalty import state as S
from simulator.procedures.recruitment.loyalty.cases import code
from simulator.procedures.recruitment.loyalty.ownership import ORDER_BITS
from simulator.procedures.recruitment.loyalty.params import (
    MAX_PLAYERS,
    NO_CAP,
    WIN_RULES,
)
from simulator.procedures.recruitment.loyalty.projection import retally
from tests import naive_recruitment as nr

PLACES = {"zone": S.IN_ZONE, "deck": S.IN_DECK, "removed": S.REMOVED}


def params(**kw: object) -> dict:
    """Validated parameters (a dict, as the twin takes them)."""
    from simulator.procedures.recruitment.loyalty.params import LoyaltyParams

    return LoyaltyParams.model_validate(kw).model_dump()


def position(
    p: dict,
    cards: list[nr.Card],
    *,
    supply: list[int] | None = None,
    bank: list[int] | None = None,
    gold: list[int] | None = None,
    placed: list[int] | None = None,
    turn: int = 0,
    round_: int = 0,
    deck: list[int] | None = None,
    words: nr.Words | None = None,
) -> nr.Game:
    """A twin game in its placement phase with ``cards`` where they are; supplies default to
    what is not on cards."""
    game = nr.Game(p, words or nr.Script([]), cards)
    n = game.players
    game.supply = supply or [
        p["tokens_per_empire"] - sum(c.tokens[e] for c in cards) for e in range(n)
    ]
    game.bank = bank or [0] * n
    game.gold = gold or [p["starting_gold"]] * n
    game.gold_issued = sum(game.gold)
    game.placed = placed or [0] * n
    game.zone = [i for i, c in enumerate(cards) if c.place == "zone"]
    game.deck = deck if deck is not None else [i for i, c in enumerate(cards) if c.place == "deck"]
    game.turn = turn
    game.round = round_
    return game


def kernel_state(game: nr.Game) -> np.ndarray:
    """The kernel's state of a twin position (the projection recomputed)."""
    p = game.p
    s = S.new_state()
    s[S.H_PLAYERS] = game.players
    s[S.H_ROUNDS] = p["rounds"]
    cases = game.cases
    s[S.H_MULTI_TIE] = code("multi_tie", cases["multi_tie"])
    s[S.H_ZERO_TOKENS] = code("zero_tokens", cases["zero_tokens"])
    s[S.H_EQUIPMENT] = code("equipment", cases["equipment"])
    s[S.H_REMOVED_TO_BANK] = cases["removed_tokens"] == "bank"
    s[S.H_N_CARDS] = len(game.cards)
    per = p["tokens_per_round"]
    s[S.H_PER_ROUND] = NO_CAP if per is None else per
    s[S.H_INCOME] = p["income"]
    s[S.H_DIE] = p["loyalty_die"]
    s[S.H_TO_BANK] = p["returned_tokens"] == "bank"
    s[S.H_BANK_REFILL] = p["bank_refill"]
    s[S.H_ROTATE] = p["first_player"] == "rotate"
    s[S.H_PASS_FINAL] = p["passing"] == "final"
    s[S.H_WIN] = WIN_RULES.index(p["win"])
    s[S.H_DEBUG] = p["debug"]
    s[S.H_TOKENS_PER_EMPIRE] = p["tokens_per_empire"]
    s[S.H_SHUFFLE] = p["shuffle_deck"]
    s[S.H_CHEAP_FIRST] = p["wage_order"] == "cheap_first"
    at_number = p["base_loyalty_counts"] == "at_its_number"
    s[S.H_ROUND] = game.round
    s[S.H_PHASE] = S.OVER if game.over else S.PLACE
    s[S.H_TURN] = game.turn
    s[S.H_PASSES] = game.passes
    s[S.H_ZONE_LEN] = len(game.zone)
    s[S.H_DECK_LEN] = len(game.deck)
    s[S.H_GOLD_ISSUED] = game.gold_issued
    s[S.H_GOLD_PAID] = game.gold_paid
    s[S.H_LEADER] = game.leader
    s[S.H_LEADER_NOW] = game.leader_now
    s[S.H_STREAK_START] = game.streak_start
    s[S.H_LEAD_CHANGES] = game.lead_changes
    for e in range(game.players):
        s[S.S_SUPPLY + e] = game.supply[e]
        s[S.S_BANK + e] = game.bank[e]
        s[S.S_GOLD + e] = game.gold[e]
        s[S.S_PLACED + e] = game.placed[e]
        s[S.S_OUT + e] = game.out[e]
        for k, name in enumerate(nr.COUNTERS):
            s[S.S_COUNTS + k * MAX_PLAYERS + e] = game.count[name][e]
    for c, card in enumerate(game.cards):
        s[S.S_WAGE + c] = card.wage
        s[S.S_BASE + c] = card.base
        s[S.S_HOME + c] = S.ANY_HOME if at_number else -1 if card.home is None else card.home
        s[S.S_EQUIPPED + c] = card.equipped
        owner = card.owner if card.owner is not None else 0
        s[S.S_STATUS + c] = owner if card.place == "owned" else PLACES[card.place]
        for e in range(game.players):
            s[S.S_TOKENS + c * MAX_PLAYERS + e] = card.tokens[e]
        s[S.S_FIRST_PLACED + c] = sum((f + 1) << (ORDER_BITS * k) for k, f in enumerate(card.first))
    for k, c in enumerate(game.deck):
        s[S.S_DECK + k] = c
    for k, c in enumerate(game.zone):
        s[S.S_ZONE + k] = c
    retally(s)
    s[S.H_TRACK] = 1
    return s


def owned(owner: int, tokens: list[int], **kw: object) -> nr.Card:
    return nr.Card(tokens=list(tokens), owner=owner, place="owned", **kw)  # type: ignore[arg-type]


def in_zone(tokens: list[int], **kw: object) -> nr.Card:
    return nr.Card(tokens=list(tokens), place="zone", **kw)  # type: ignore[arg-type]


#: The deliberate tie's cards: X in the zone, the first two empires' own characters.
TIE_X, TIE_YA, TIE_YB = 0, 1, 2
#: Seat 2's results after each of its moves under 1.1 (seat 1 and seat 2 share the win, or seat
#: 1 wins alone).
TIE_RESULTS_1_1 = {"tie": 0.5, "defend": 0.0, "pass": 0.0}


def deliberate_tie_game(revision: str = "1.1") -> nr.Game:
    """Issue 13's deliberate tie, as a twin game; seat 2 (index 1) is to move.

    Three empires A, B, C (seats 1, 2, 3), two rounds, revision ``revision``; round 1's placement.
    Character X is in the zone with tokens A 2, B 1, C 3 and wage 1; A owns YA (2 tokens), B owns
    YB (1 token), both wage 0. Nobody has gold or income; only B has a token left (supply 1), the
    others none. B's moves: X, YB, pass.

    - B on X (A 2, B 2, C 3): C recruits X (most tokens), cannot pay its wage (C 2: tied with A
      and B, it stays); in round 2 it cannot pay again (C 1 < A 2 = B 2): under 1.1 two rivals tie
      above the owner and X leaves the game. A 1, B 1, C 0 characters: A and B share the win,
      B's result 0.5 (1.0 keeps X with C: a three-way tie, 1/3).
    - B on YB, or a pass: C recruits X, then in round 2 A alone is above C (A 2 > C 1, B 1) and X
      defects to A: A 2, B 1, C 0, A wins; B's result 0. (After a pass B keeps its token for
      round 2, where its only moves, YB or a pass, change nothing.)
    The greedy agent sees no difference for X (C keeps it in the projection either way) and
    strictly prefers YB (its single token would be lost to one bad loyalty die).
    """
    p = params(
        players=3,
        rounds=2,
        revision=revision,
        tokens_per_empire=6,
        tokens_per_round=3,
        starting_gold=0,
        income=0,
        deck=[{"wage": 1}, {"wage": 0}, {"wage": 0}, {"wage": 0}],  # only the first 3 are used
        policies="greedy",
    )
    cards = [
        in_zone([2, 1, 3], wage=1),
        owned(0, [2, 0, 0], wage=0),
        owned(1, [0, 1, 0], wage=0),
    ]
    return position(p, cards, supply=[0, 1, 0], bank=[2, 3, 3], turn=1)


def deliberate_tie_position(revision: str = "1.1") -> np.ndarray:
    """The kernel's state of :func:`deliberate_tie_game` (seat index 1 to move; its winning move
    is card ``TIE_X``, a token on X)."""
    return kernel_state(deliberate_tie_game(revision))
