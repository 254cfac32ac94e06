"""Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2: a whole multi-round game (RULES.md §1).

Every round: income, then the recruitment phase (refill the zone to ``players + 1`` cards, every
empire places tokens in seat order by its policy, then every zone card is resolved by token count)
and the maintenance phase (loyalty check, wages, ownership check by revision). After ``rounds``
rounds the empire with the most characters wins; ties share the win.

Randomness: each game reads its own stream (``trial_state`` / ``next_word``), in this fixed order:
deck generation (generator decks), the deck shuffle, then per round the random policies' token
draws (seat order), the reshuffle position of every unclaimed zone card, and one loyalty-check die
per checked character. Every variant replays the game from the same stream, so two revisions draw
the same words for as long as their game states agree. Revision 1.2 differs from 1.1 only by
discarding equipped cards, which nothing else reads: under shared streams the two revisions play
identical games.

Seats are numbered 1..players in metric names and in ``home``; inside the kernel they are 0-based.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import GAMMA, die_of, low32, mix64, trial_state

MAX_PLAYERS = 6
MAX_CARDS = 64
MAX_ROUNDS = 100

REVISIONS = ("1.0", "1.1", "1.2")
POLICIES = ("random", "greedy")

#: Share of a win stored per trial: 60 is divisible by every tie size 1..6.
WIN_SCALE = 60


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


class Character(Params):
    name: str = Field(default="", max_length=80, description="the character's name (reports only)")
    wage: int = Field(default=1, ge=0, le=100, description="gold paid to it every maintenance")
    base_loyalty: int = Field(
        default=0,
        ge=0,
        le=20,
        description="printed base loyalty, added to its home empire's tokens once it has one",
    )
    home: int = Field(
        default=0, ge=0, le=MAX_PLAYERS, description="seat of its home empire, 0 for none"
    )
    equipped: int = Field(
        default=0, ge=0, le=20, description="equipped cards on it (discarded on removal in 1.2)"
    )


class Span(Params):
    low: int = Field(ge=0, le=100, description="smallest value")
    high: int = Field(ge=0, le=100, description="largest value (uniform between low and high)")

    @field_validator("high")
    @classmethod
    def _high_not_below_low(cls, v: int, info: ValidationInfo) -> int:
        low = info.data.get("low")
        if low is not None and v < low:
            raise ValueError(f"must be at least low ({low})")
        return v


def _dist_kind(v: Any) -> str:
    return "span" if isinstance(v, dict | Span) else "fixed"


#: Tags of the unions below: pydantic puts them in error locations, where they would not match the
#: YAML path, so LoyaltyParams drops them.
UNION_TAGS = ("fixed", "span", "cards", "generator", "one", "per_seat")

Dist = Annotated[
    Annotated[int, Tag("fixed")] | Annotated[Span, Tag("span")],
    Discriminator(_dist_kind),
    Field(description="a fixed value, or {low, high} for a uniform integer per card"),
]


def _span(d: int | Span) -> tuple[int, int]:
    return (d, d) if isinstance(d, int) else (d.low, d.high)


class DeckGenerator(Params):
    count: int = Field(ge=1, le=MAX_CARDS, description="characters in the deck")
    wage: Dist = Field(default=1, description="wage of each character")
    base_loyalty: Dist = Field(default=0, description="printed base loyalty of each character")
    home: Dist = Field(default=0, description="home seat of each character (0 for none)")
    equipped: Dist = Field(default=0, description="equipped cards on each character")

    @field_validator("wage", "base_loyalty", "home", "equipped")
    @classmethod
    def _non_negative(cls, v: int | Span) -> int | Span:
        if isinstance(v, int) and v < 0:
            raise ValueError("must be at least 0")
        return v


def _deck_kind(v: Any) -> str:
    return "cards" if isinstance(v, list | tuple) else "generator"


Deck = Annotated[
    Annotated[list[Character], Tag("cards")] | Annotated[DeckGenerator, Tag("generator")],
    Discriminator(_deck_kind),
]

PolicyName = Literal["random", "greedy"]


def _policy_kind(v: Any) -> str:
    return "per_seat" if isinstance(v, list | tuple) else "one"


Policy = Annotated[
    Annotated[PolicyName, Tag("one")] | Annotated[list[PolicyName], Tag("per_seat")],
    Discriminator(_policy_kind),
]


def _entry_error(loc: tuple[str | int, ...], message: str, value: Any) -> ValidationError:
    """A validation error located at ``loc`` inside the field being validated."""
    return ValidationError.from_exception_data(
        "LoyaltyParams",
        [InitErrorDetails(type=PydanticCustomError("value_error", message), loc=loc, input=value)],
    )


class LoyaltyParams(Params):
    players: int = Field(default=4, ge=2, le=MAX_PLAYERS, description="empires in the game")
    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS, description="rounds played")
    revision: Literal["1.0", "1.1", "1.2"] = Field(
        default="1.0", description="rule revision of the maintenance ownership check"
    )
    deck: Deck = Field(
        default=DeckGenerator(count=30, wage=Span(low=0, high=2), equipped=Span(low=0, high=2)),
        description="the character deck: a list of characters, or a generator {count, ...}",
    )
    shuffle_deck: bool = Field(default=True, description="shuffle the deck before the first deal")
    tokens_per_empire: int = Field(
        default=20, ge=0, le=500, description="influence tokens in each empire's finite supply"
    )
    tokens_per_round: int = Field(
        default=3, ge=0, le=100, description="tokens an empire may place in one recruitment phase"
    )
    starting_gold: int = Field(default=3, ge=0, le=10_000, description="gold of each empire")
    income: int = Field(
        default=2, ge=0, le=1_000, description="gold each empire receives at the start of a round"
    )
    loyalty_die: int = Field(default=6, ge=2, le=100, description="sides of the loyalty-check die")
    policy: Policy = Field(
        default="random", description="token policy of every seat, or one per seat"
    )
    greedy_defend_margin: int = Field(
        default=1,
        ge=-20,
        le=20,
        description="greedy defends its weakest character while its lead over the best rival "
        "(or its loyalty, unchallenged) is at most this",
    )
    debug: bool = Field(
        default=False,
        description="check token, gold and card conservation every round (invariant_violations)",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _locate_deck_errors(cls, data: Any, handler: Any) -> Any:
        # Drop union tags from error locations so that `deck.3.wage` names the YAML entry.
        try:
            return handler(data)
        except ValidationError as e:
            errors: list[InitErrorDetails] = []
            for err in e.errors():
                loc = tuple(x for x in err["loc"] if x not in UNION_TAGS)
                errors.append(
                    InitErrorDetails(
                        type=PydanticCustomError(
                            err["type"], err["msg"].replace("{", "(").replace("}", ")")
                        ),
                        loc=loc,
                        input=err["input"],
                    )
                )
            raise ValidationError.from_exception_data(e.title, errors) from None

    @field_validator("deck")
    @classmethod
    def _deck_fits_players(
        cls, v: list[Character] | DeckGenerator, info: ValidationInfo
    ) -> list[Character] | DeckGenerator:
        players = info.data.get("players")
        if players is None:
            return v
        need = players + 1
        if isinstance(v, list):
            if len(v) > MAX_CARDS:
                raise ValueError(f"must hold at most {MAX_CARDS} characters (got {len(v)})")
            if len(v) < need:
                raise ValueError(
                    f"must hold at least players + 1 ({need}) characters to fill the "
                    f"recruitment zone (got {len(v)}); add characters or lower players"
                )
            for i, c in enumerate(v):
                if c.home > players:
                    label = f" ({c.name})" if c.name else ""
                    raise _entry_error(
                        (i, "home"),
                        f"character {i}{label}: home empire {c.home} is beyond the {players} "
                        f"players; use a seat 1..{players} or 0 for none",
                        c.home,
                    )
        else:
            if v.count < need:
                raise _entry_error(
                    ("count",),
                    f"must be at least players + 1 ({need}) to fill the recruitment zone",
                    v.count,
                )
            if _span(v.home)[1] > players:
                raise _entry_error(
                    ("home",),
                    f"home seats must be at most players ({players}); 0 means no home",
                    v.home,
                )
        return v

    @field_validator("policy")
    @classmethod
    def _one_policy_per_seat(cls, v: str | list[str], info: ValidationInfo) -> str | list[str]:
        players = info.data.get("players")
        if isinstance(v, list) and players is not None and len(v) != players:
            raise ValueError(f"must name one policy per seat ({players} seats, got {len(v)})")
        return v

    def seat_policies(self) -> list[str]:
        return [self.policy] * self.players if isinstance(self.policy, str) else list(self.policy)


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------

#: Per-seat counters the kernel keeps (row of ``counts``); each is reported in total and per seat.
(
    OWNED,
    DEFECTIONS,
    REMOVED_NO_TOKENS,
    REMOVED_MULTI_TIE,
    GAP_MULTI_TIE,
    GAP_ZERO_TIE,
    TOKENS_RETURNED,
    EQUIPMENT_DISCARDED,
) = range(8)
N_COUNTERS = 8

COUNTER_METRICS = (
    ("characters_owned", "characters an empire owns at the end of the game"),
    ("defections", "owned characters that changed owner (counted for the empire that lost them)"),
    ("removed_no_tokens", "characters that left the game with no tokens on them"),
    (
        "removed_multi_tie",
        "characters removed because several other empires tied above the owner (1.1, 1.2)",
    ),
    ("gap_multi_tie", "1.0 gap: several other empires tied above the owner; the character stayed"),
    (
        "gap_zero_tie",
        "1.0 gap: no tokens left, so the owner also tied for highest at zero; "
        "the character was removed",
    ),
    ("tokens_returned", "influence tokens returned to an empire's supply"),
    ("equipment_discarded", "equipped cards discarded with removed characters (1.2)"),
)


def metric_index(players: int) -> dict[str, int]:
    """Position of every metric in ``metrics()`` for ``players`` seats (the kernel's layout)."""
    out: dict[str, int] = {}
    for b, (name, _) in enumerate(COUNTER_METRICS):
        out[name] = b * (players + 1)
        for k in range(players):
            out[f"{name}.seat{k + 1}"] = b * (players + 1) + 1 + k
    wins = N_COUNTERS * (players + 1)
    for k in range(players):
        out[f"wins.seat{k + 1}"] = wins + k
    out["games_with_gap_multi_tie"] = wins + players
    out["games_with_gap_zero_tie"] = wins + players + 1
    out["characters_in_play"] = wins + players + 2
    out["invariant_violations"] = wins + players + 3
    return out


def metrics(p: LoyaltyParams) -> list[Metric]:
    out: list[Metric] = []
    for name, desc in COUNTER_METRICS:
        out.append(Metric(name, "mean", f"{desc}, all empires, per game"))
        for k in range(p.players):
            out.append(
                Metric(
                    f"{name}.seat{k + 1}", "mean", f"{desc}, seat {k + 1}, per game", headline=False
                )
            )
    for k in range(p.players):
        out.append(
            Metric(
                f"wins.seat{k + 1}",
                "mean",
                f"share of the win of seat {k + 1} (most characters; ties share)",
                scale=WIN_SCALE,
            )
        )
    out.append(
        Metric(
            "games_with_gap_multi_tie",
            "proportion",
            "games where 1.0's multi-tie gap was reached at least once",
        )
    )
    out.append(
        Metric(
            "games_with_gap_zero_tie",
            "proportion",
            "games where 1.0's zero-tie gap was reached at least once",
        )
    )
    out.append(
        Metric(
            "characters_in_play",
            "mean",
            "characters not removed from the game at its end",
            headline=False,
        )
    )
    out.append(
        Metric(
            "invariant_violations",
            "mean",
            "rounds where token, gold or card conservation failed (debug only)",
            headline=False,
        )
    )
    return out


# --------------------------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------------------------

(
    P_PLAYERS,
    P_ROUNDS,
    P_REVISION,
    P_TOKENS,
    P_PER_ROUND,
    P_GOLD,
    P_INCOME,
    P_DIE,
    P_DEBUG,
    P_SHUFFLE,
    P_DEFEND,
    P_GENERATED,
    P_CARDS,
) = range(13)
P_POLICY = 13  # one code per seat, MAX_PLAYERS slots
P_GEN = P_POLICY + MAX_PLAYERS  # (low, high) of wage, base_loyalty, home, equipped
P_DECK = P_GEN + 8  # MAX_CARDS rows of (wage, base_loyalty, home, equipped)
CARD_FIELDS = 4
PACKED_WIDTH = P_DECK + CARD_FIELDS * MAX_CARDS

#: Columns of the kernel's per-card table.
WAGE, BASE, HOME, EQUIPPED = range(4)

POLICY_RANDOM, POLICY_GREEDY = 0, 1


def pack(p: LoyaltyParams) -> np.ndarray:
    row = np.zeros(PACKED_WIDTH, dtype=np.float64)
    row[P_PLAYERS] = p.players
    row[P_ROUNDS] = p.rounds
    row[P_REVISION] = REVISIONS.index(p.revision)
    row[P_TOKENS] = p.tokens_per_empire
    row[P_PER_ROUND] = p.tokens_per_round
    row[P_GOLD] = p.starting_gold
    row[P_INCOME] = p.income
    row[P_DIE] = p.loyalty_die
    row[P_DEBUG] = 1.0 if p.debug else 0.0
    row[P_SHUFFLE] = 1.0 if p.shuffle_deck else 0.0
    row[P_DEFEND] = p.greedy_defend_margin
    for k, name in enumerate(p.seat_policies()):
        row[P_POLICY + k] = POLICIES.index(name)
    if isinstance(p.deck, DeckGenerator):
        row[P_GENERATED] = 1.0
        row[P_CARDS] = p.deck.count
        spans = [
            _span(p.deck.wage),
            _span(p.deck.base_loyalty),
            _span(p.deck.home),
            _span(p.deck.equipped),
        ]
        for f, (lo, hi) in enumerate(spans):
            row[P_GEN + 2 * f] = lo
            row[P_GEN + 2 * f + 1] = hi
    else:
        row[P_CARDS] = len(p.deck)
        for i, c in enumerate(p.deck):
            row[P_DECK + CARD_FIELDS * i : P_DECK + CARD_FIELDS * (i + 1)] = (
                c.wage,
                c.base_loyalty,
                c.home,
                c.equipped,
            )
    return row


# --------------------------------------------------------------------------------------------
# Kernel helpers: one function per rule, on the game state arrays
# --------------------------------------------------------------------------------------------
#
# State of one game:
#   cards[c, WAGE|BASE|HOME|EQUIPPED]  printed data; HOME is a 0-based seat, -1 for none
#   tokens[c, e]                       influence tokens of empire e on character c
#   status[c]                          owner seat (>= 0), or IN_ZONE, IN_DECK, REMOVED
#   supply[e], gold[e]                 an empire's token supply and gold
#   counts[counter, e]                 the per-seat counters reported as metrics
#   deck[0:deck_len]                   the character deck, top card last
#   zone[0:zone_len]                   the recruitment zone in the order cards were dealt

IN_ZONE = -1
IN_DECK = -2
REMOVED = -3


# The rule functions below take the game's arrays; the small helpers they call in loops take only
# scalars. Numba counts references to every array passed into an inlined function with atomic
# instructions, and we previously passed arrays to these helpers inside loops: that cost about a
# sixth of the run time in reference counting alone. For the same reason the stream is advanced in
# place (``state[0] += GAMMA; mix64(state[0])``, exactly rng.next_word) rather than through a call.


@inline
def uniform_below(word, n):
    """A uniform integer in 0..n-1 from a random word (multiply-shift on its low half)."""
    return die_of(low32(word), n) - 1


@inline
def effective_loyalty(tokens_of_e, home, base, e):
    """Loyalty to ``e`` of a card carrying ``tokens_of_e`` of its tokens: plus the printed base
    loyalty if ``e`` is the card's home empire and it carries at least one of ``e``'s tokens."""
    if tokens_of_e >= 1 and home == e:
        return tokens_of_e + base
    return tokens_of_e


@inline
def sort_hands(status, n_cards, players, hands, hand_size):
    """Each empire's characters, by card index: ``hands[e, :hand_size[e]]``. Ownership changes
    only when the zone is resolved and at the ownership check, so the game sorts hands after
    each of them instead of scanning every card in every step."""
    for e in range(players):
        hand_size[e] = 0
    for c in range(n_cards):
        e = status[c]
        if e >= 0:
            hands[e, hand_size[e]] = c
            hand_size[e] += 1


@inline
def refill_zone(status, deck, deck_len, zone, zone_len, players):
    """Deal from the top of the deck until the zone holds players + 1 cards; new deck_len."""
    while zone_len[0] < players + 1 and deck_len > 0:
        deck_len -= 1
        c = deck[deck_len]
        status[c] = IN_ZONE
        zone[zone_len[0]] = c
        zone_len[0] += 1
    return deck_len


@inline
def place_random(state, tokens, supply, zone, zone_len, hands, hand_size, e, budget, targets):
    """Spread ``budget`` tokens uniformly over the legal targets: the zone cards (in zone order),
    then the empire's own characters (by card index); one word per token."""
    n = 0
    for k in range(zone_len):
        targets[n] = zone[k]
        n += 1
    for k in range(hand_size[e]):
        targets[n] = hands[e, k]
        n += 1
    if n == 0:
        return
    for _ in range(budget):
        state[0] += GAMMA
        c = targets[uniform_below(mix64(state[0]), n)]
        tokens[c, e] += 1
        supply[e] -= 1


@inline
def place_greedy(
    cards, tokens, supply, zone, zone_len, hands, hand_size, players, e, budget, defend_margin
):
    """Defend the weakest own character first, then contest the zone card with the best
    loyalty per token. Deterministic: reads no random words.

    Defend: while tokens remain, the owned character with the smallest lead (own effective
    loyalty minus the best rival's; ties: lower own loyalty, then lower card index) gets one token
    if that lead is at most ``defend_margin``.
    Contest: a zone card costs the tokens that make the empire its sole leader by count
    (``max rival tokens - own tokens + 1``); its value is the effective loyalty the empire would
    then have. Take the affordable card with the highest value per token (ties: cheaper, then
    earlier in the zone), place its cost, repeat; leftover tokens stay in the supply.
    """
    left = budget
    while left > 0:
        weakest = -1
        weakest_lead = 0
        weakest_own = 0
        for k in range(hand_size[e]):
            c = hands[e, k]
            home = cards[c, HOME]
            base = cards[c, BASE]
            own = effective_loyalty(tokens[c, e], home, base, e)
            rival = 0
            for f in range(players):
                if f != e:
                    rival = max(rival, effective_loyalty(tokens[c, f], home, base, f))
            lead = own - rival
            if weakest < 0 or lead < weakest_lead or (lead == weakest_lead and own < weakest_own):
                weakest = c
                weakest_lead = lead
                weakest_own = own
        if weakest < 0 or weakest_lead > defend_margin:
            break
        tokens[weakest, e] += 1
        supply[e] -= 1
        left -= 1
    while left > 0:
        pick = -1
        pick_cost = 0
        pick_value = 0
        for k in range(zone_len):
            c = zone[k]
            mine = tokens[c, e]
            rival = 0
            for f in range(players):
                if f != e:
                    rival = max(rival, tokens[c, f])
            cost = rival - mine + 1
            if cost <= 0 or cost > left:
                continue
            value = mine + cost
            if cards[c, HOME] == e:
                value += cards[c, BASE]
            # value / cost > pick_value / pick_cost, in integers
            if (
                pick < 0
                or value * pick_cost > pick_value * cost
                or (value * pick_cost == pick_value * cost and cost < pick_cost)
            ):
                pick = c
                pick_cost = cost
                pick_value = value
        if pick < 0:
            break
        tokens[pick, e] += pick_cost
        supply[e] -= pick_cost
        left -= pick_cost


@inline
def resolve_zone(state, tokens, status, deck, deck_len, zone, zone_len, players):
    """Resolve every zone card by token count (RULES §1 recruitment 3); returns the new deck_len.

    A sole leader gains the card; a tie at the top leaves it in the zone; a card with no tokens
    goes back into the deck at a uniformly random position (one word; the rest of the deck is in
    random order, so this is the same as shuffling it back in).
    """
    kept = 0
    for k in range(zone_len[0]):
        c = zone[k]
        top = 0
        n_top = 0
        who = -1
        for f in range(players):
            t = tokens[c, f]
            if t > top:
                top = t
                n_top = 1
                who = f
            elif t == top:
                n_top += 1
        if top == 0:
            state[0] += GAMMA
            pos = uniform_below(mix64(state[0]), deck_len + 1)
            for j in range(deck_len, pos, -1):
                deck[j] = deck[j - 1]
            deck[pos] = c
            deck_len += 1
            status[c] = IN_DECK
        elif n_top == 1:
            status[c] = who
        else:
            zone[kept] = c
            kept += 1
    zone_len[0] = kept
    return deck_len


@inline
def loyalty_check(state, cards, tokens, hands, hand_size, supply, counts, players, die):
    """Maintenance 1: one die per owned character, in seat order then card order; a roll above
    its effective loyalty to the owner costs one owner token. Skipped (no dice) for an empire
    that owns only one character."""
    for e in range(players):
        if hand_size[e] < 2:
            continue
        for k in range(hand_size[e]):
            c = hands[e, k]
            state[0] += GAMMA
            roll = die_of(low32(mix64(state[0])), die)
            loyalty = effective_loyalty(tokens[c, e], cards[c, HOME], cards[c, BASE], e)
            # Above its loyalty: it loses one loyalty, an owner token back to the supply (if any).
            if roll > loyalty and tokens[c, e] > 0:
                tokens[c, e] -= 1
                supply[e] += 1
                counts[TOKENS_RETURNED, e] += 1


@inline
def _pays_before(loyalty_a, wage_a, a, loyalty_b, wage_b, b):
    """Wage order: descending loyalty, then ascending wage, then card index."""
    if loyalty_a != loyalty_b:
        return loyalty_a > loyalty_b
    if wage_a != wage_b:
        return wage_a < wage_b
    return a < b


@inline
def pay_wages(cards, tokens, hands, hand_size, supply, gold, counts, players, order):
    """Maintenance 2: each empire pays its characters by descending loyalty, then ascending wage
    (then card index); one it cannot pay loses one loyalty instead. Returns the gold paid."""
    paid = 0
    for e in range(players):
        n = hand_size[e]
        for k in range(n):
            c = hands[e, k]
            loyalty = effective_loyalty(tokens[c, e], cards[c, HOME], cards[c, BASE], e)
            wage = cards[c, WAGE]
            j = k
            while j > 0:
                b = order[j - 1]
                loyalty_b = effective_loyalty(tokens[b, e], cards[b, HOME], cards[b, BASE], e)
                if not _pays_before(loyalty, wage, c, loyalty_b, cards[b, WAGE], b):
                    break
                order[j] = b
                j -= 1
            order[j] = c
        for k in range(n):
            c = order[k]
            w = cards[c, WAGE]
            if gold[e] >= w:
                gold[e] -= w
                paid += w
            elif tokens[c, e] > 0:  # unpaid: it loses one loyalty (an owner token) instead
                tokens[c, e] -= 1
                supply[e] += 1
                counts[TOKENS_RETURNED, e] += 1
    return paid


@inline
def ownership_check(cards, tokens, status, supply, counts, n_cards, players, revision):
    """Maintenance 3 under revision 0 (1.0), 1 (1.1) or 2 (1.2); RULES §1 table, "no tokens"
    first."""
    for c in range(n_cards):
        e = status[c]
        if e < 0:
            continue
        total = 0
        for f in range(players):
            total += tokens[c, f]
        if total == 0:
            if revision == 0:
                # 1.0 would also read this as "owner tied for highest (at zero)": the gap.
                counts[GAP_ZERO_TIE, e] += 1
            counts[REMOVED_NO_TOKENS, e] += 1
            if revision == 2:
                counts[EQUIPMENT_DISCARDED, e] += cards[c, EQUIPPED]
            status[c] = REMOVED
            continue
        own = effective_loyalty(tokens[c, e], cards[c, HOME], cards[c, BASE], e)
        best = -1
        n_best = 0
        who = -1
        for f in range(players):
            if f == e:
                continue
            loyalty = effective_loyalty(tokens[c, f], cards[c, HOME], cards[c, BASE], f)
            if loyalty > best:
                best = loyalty
                n_best = 1
                who = f
            elif loyalty == best:
                n_best += 1
        if own >= best:
            continue
        if n_best == 1:
            status[c] = who
            counts[DEFECTIONS, e] += 1
        elif revision == 0:
            counts[GAP_MULTI_TIE, e] += 1
        else:
            for f in range(players):
                supply[f] += tokens[c, f]
                counts[TOKENS_RETURNED, f] += tokens[c, f]
                tokens[c, f] = 0
            counts[REMOVED_MULTI_TIE, e] += 1
            if revision == 2:
                counts[EQUIPMENT_DISCARDED, e] += cards[c, EQUIPPED]
            status[c] = REMOVED


@inline
def conservation_failures(
    tokens,
    status,
    supply,
    gold,
    n_cards,
    players,
    tokens_per_empire,
    gold_issued,
    gold_paid,
    deck_len,
    zone_len,
):
    """Number of broken invariants: per empire, tokens on cards + supply = tokens_per_empire and
    supply >= 0; gold held + gold paid to the bank = gold issued, no empire below zero; every
    card is in exactly one of deck, zone, an empire's hand or out of the game."""
    bad = 0
    held = 0
    for e in range(players):
        on_cards = 0
        for c in range(n_cards):
            on_cards += tokens[c, e]
        if supply[e] < 0 or on_cards + supply[e] != tokens_per_empire:
            bad += 1
        if gold[e] < 0:
            bad += 1
        held += gold[e]
    if held + gold_paid != gold_issued:
        bad += 1
    in_deck = 0
    in_zone = 0
    for c in range(n_cards):
        if status[c] == IN_DECK:
            in_deck += 1
        elif status[c] == IN_ZONE:
            in_zone += 1
    if in_deck != deck_len or in_zone != zone_len:
        bad += 1
    return bad


@inline
def deal_deck(state, row, cards, deck, n_cards):
    """The game's deck: printed data (drawn per card for a generator, 4 words per card in the
    order wage, base loyalty, home, equipped), then a Fisher-Yates shuffle (one word per swap)."""
    generated = row[P_GENERATED] > 0.5
    for c in range(n_cards):
        for f in range(CARD_FIELDS):
            if generated:
                lo = np.int64(row[P_GEN + 2 * f])
                hi = np.int64(row[P_GEN + 2 * f + 1])
                state[0] += GAMMA
                cards[c, f] = lo + uniform_below(mix64(state[0]), hi - lo + 1)
            else:
                cards[c, f] = np.int64(row[P_DECK + CARD_FIELDS * c + f])
        cards[c, HOME] -= 1  # seat k -> index k-1, none (0) -> -1
        deck[c] = c
    if row[P_SHUFFLE] > 0.5:
        for i in range(n_cards - 1, 0, -1):
            state[0] += GAMMA
            j = uniform_below(mix64(state[0]), i + 1)
            deck[i], deck[j] = deck[j], deck[i]


@inline
def play_game(
    state,
    row,
    cards,
    tokens,
    status,
    hands,
    hand_size,
    supply,
    gold,
    counts,
    deck,
    zone,
    zone_len,
    targets,
    order,
    out,
):
    """One whole game; writes its metric values into ``out`` (the layout of metric_index)."""
    players = np.int64(row[P_PLAYERS])
    rounds = np.int64(row[P_ROUNDS])
    revision = np.int64(row[P_REVISION])
    per_empire = np.int64(row[P_TOKENS])
    per_round = np.int64(row[P_PER_ROUND])
    income = np.int64(row[P_INCOME])
    die = np.int64(row[P_DIE])
    debug = row[P_DEBUG] > 0.5
    defend = np.int64(row[P_DEFEND])
    n_cards = np.int64(row[P_CARDS])

    deal_deck(state, row, cards, deck, n_cards)
    deck_len = n_cards
    zone_len[0] = 0
    for c in range(n_cards):
        status[c] = IN_DECK
        for e in range(players):
            tokens[c, e] = 0
    for e in range(players):
        supply[e] = per_empire
        gold[e] = np.int64(row[P_GOLD])
        for k in range(N_COUNTERS):
            counts[k, e] = 0
    gold_issued = np.int64(row[P_GOLD]) * players
    gold_paid = 0
    violations = 0

    for _ in range(rounds):
        for e in range(players):
            gold[e] += income
        gold_issued += income * players
        # Recruitment phase.
        deck_len = refill_zone(status, deck, deck_len, zone, zone_len, players)
        sort_hands(status, n_cards, players, hands, hand_size)
        for e in range(players):
            budget = min(per_round, supply[e])
            # The seat's policy: adding one is a code and one branch here. (The branch is here
            # rather than in a dispatch function: every call that passes arrays costs atomic
            # reference counting, and this runs once per seat per round.)
            if row[P_POLICY + e] == POLICY_GREEDY:
                place_greedy(
                    cards,
                    tokens,
                    supply,
                    zone,
                    zone_len[0],
                    hands,
                    hand_size,
                    players,
                    e,
                    budget,
                    defend,
                )
            else:
                place_random(
                    state, tokens, supply, zone, zone_len[0], hands, hand_size, e, budget, targets
                )
        deck_len = resolve_zone(state, tokens, status, deck, deck_len, zone, zone_len, players)
        # Maintenance phase.
        sort_hands(status, n_cards, players, hands, hand_size)
        loyalty_check(state, cards, tokens, hands, hand_size, supply, counts, players, die)
        gold_paid += pay_wages(
            cards, tokens, hands, hand_size, supply, gold, counts, players, order
        )
        ownership_check(cards, tokens, status, supply, counts, n_cards, players, revision)
        if debug:
            violations += conservation_failures(
                tokens,
                status,
                supply,
                gold,
                n_cards,
                players,
                per_empire,
                gold_issued,
                gold_paid,
                deck_len,
                zone_len[0],
            )

    in_play = 0
    for c in range(n_cards):
        if status[c] >= 0:
            counts[OWNED, status[c]] += 1
        if status[c] != REMOVED:
            in_play += 1
    for b in range(N_COUNTERS):
        total = 0
        for e in range(players):
            total += counts[b, e]
            out[b * (players + 1) + 1 + e] = counts[b, e]
        out[b * (players + 1)] = total
    wins = N_COUNTERS * (players + 1)
    most = 0
    for e in range(players):
        most = max(most, counts[OWNED, e])
    n_most = 0
    for e in range(players):
        if counts[OWNED, e] == most:
            n_most += 1
    for e in range(players):
        out[wins + e] = WIN_SCALE // n_most if counts[OWNED, e] == most else 0
    out[wins + players] = np.int64(out[GAP_MULTI_TIE * (players + 1)] > 0)
    out[wins + players + 1] = np.int64(out[GAP_ZERO_TIE * (players + 1)] > 0)
    out[wins + players + 2] = in_play
    out[wins + players + 3] = violations


@kernel
def loyalty_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    players = np.int64(packed[0, P_PLAYERS])
    n_metrics = (N_COUNTERS + 1) * players + N_COUNTERS + 4
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    cards = np.zeros((MAX_CARDS, CARD_FIELDS), dtype=np.int64)
    tokens = np.zeros((MAX_CARDS, MAX_PLAYERS), dtype=np.int64)
    status = np.zeros(MAX_CARDS, dtype=np.int64)
    hands = np.zeros((MAX_PLAYERS, MAX_CARDS), dtype=np.int64)
    hand_size = np.zeros(MAX_PLAYERS, dtype=np.int64)
    supply = np.zeros(MAX_PLAYERS, dtype=np.int64)
    gold = np.zeros(MAX_PLAYERS, dtype=np.int64)
    counts = np.zeros((N_COUNTERS, MAX_PLAYERS), dtype=np.int64)
    deck = np.zeros(MAX_CARDS + 1, dtype=np.int64)
    zone = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
    zone_len = np.zeros(1, dtype=np.int64)
    targets = np.zeros(MAX_CARDS + MAX_PLAYERS + 1, dtype=np.int64)
    order = np.zeros(MAX_CARDS, dtype=np.int64)
    out = np.zeros(n_metrics, dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            # A private copy: the row is passed to helpers every game, and reference counts on
            # the shared packed array would bounce its cache line between threads.
            row = packed[v].copy()
            for i in range(m):
                state[0] = trial_state(key, start + i)
                play_game(
                    state,
                    row,
                    cards,
                    tokens,
                    status,
                    hands,
                    hand_size,
                    supply,
                    gold,
                    counts,
                    deck,
                    zone,
                    zone_len,
                    targets,
                    order,
                    out,
                )
                for j in range(n_metrics):
                    values[v, j, i] = out[j]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


PROCEDURE = Procedure(
    name="recruitment.loyalty",
    title="Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2 (whole game)",
    rules="RULES.md §1",
    params_model=LoyaltyParams,
    metrics=metrics,
    pack=pack,
    kernel=loyalty_kernel,
    exact=None,
    example={"players": 4, "rounds": 10, "revision": "1.0"},
    notes=(
        "gap (1.0): several other empires tie above the owner -> the character stays; "
        "counted as gap_multi_tie",
        "gap (1.0): no tokens left also reads as 'owner tied at zero' -> removed; counted as "
        "gap_zero_tie",
        "assumption: loyalty die d6 (loyalty_die); wages paid by descending loyalty, then "
        "ascending wage; income each round (income)",
        "empires place tokens in seat order, each seeing the earlier seats' tokens",
        "a loyalty loss with no owner token left on the card has no effect",
    ),
)
