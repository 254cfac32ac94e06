"""Here I Stand: the race for the New World, a whole game per trial (RULES.md §5.9).

England, France and the Habsburgs each buy ``explore``, ``colonize`` and ``conquer`` on the turns
their plan says (each action at most once a turn). A turn runs:

1. **Card draw phase.** Every colony and every conquest rolls 2d6 on the riches table:
   ``destroyed`` (the colony goes back), ``card`` (+1 card), ``card_depleted`` (+1 card and the
   conquest is removed), ``galleons_card`` (+1 card if the Galleons marker is out for that power),
   ``nothing``. A conquest rolling ``destroyed`` and a colony rolling ``card_depleted`` are gaps in
   the rules: the defaults (``conquest_destroyed``: nothing happens, ``colony_depleted``: +1 card
   and the colony stays) are applied and each such roll is counted.
2. **Action phase.** A colony is placed at once. An exploration or conquest bought while the power's
   pool is empty cannot be carried out; it is not bought and is counted as ``skipped``.
3. **New World phase.** Explorations first: each exploring power draws an explorer from its pool at
   random, and they explore highest rating first (ties England, France, Habsburg). 2d6 + rating, −1
   on a power's first exploration: ≤4 the explorer is lost; 5–6 it returns; 7 St. Lawrence, 8 Great
   Lakes, 9 Mississippi (1 VP each); ≥10 South America: the Amazon (2 VP) or the Pacific Strait
   (1 VP, then a circumnavigation attempt: 2d6 + rating, ≤9 the explorer is lost, 10–11
   circumnavigation (3 VP), ≥12 circumnavigation and a card). ``south_america`` is the explorer's
   preference between the two (assumption: the Amazon). Then conquests: the Habsburgs draw a
   conquistador, England and France use a rating-0 marker; highest rating first (ties Habsburg,
   England, France); 2d6 + rating: ≤6 lost, 7–8 returns, 9 Maya (1 VP), 10 Aztecs (2 VP), ≥11 Inca
   (2 VP). Each discovery goes to the first to reach it; a result already claimed steps down by 1
   until it reaches an unclaimed result or "returns" (a South American result with both the Amazon
   and the Strait claimed steps down to the Mississippi). Lost explorers and conquistadors leave the
   pool, returning ones go back; one that makes a discovery stays in the New World (assumption,
   ``discoverers_return``).

Random words come from the trial's own stream (``trial_state``/``next_word``), drawn in this order
each turn: riches rolls (England's colonies, then its conquests, then France's, then the
Habsburgs'), one word per explorer draw (England, France, Habsburg), then one word per exploration
roll in resolution order (plus one for a circumnavigation), one word for the Habsburg conquistador
draw, then one word per conquest roll in resolution order. A 2d6 roll is the two halves of one word.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Literal, get_args

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.accumulate import BLOCK, UNDEFINED, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.procedures.his._tables import check_table
from simulator.procedures.his._validation import fail
from simulator.rng import d6_of, die_of, high32, low32, next_word, trial_state

MAX_TURNS = 20
MAX_POOL = 12
MAX_RATING = 6

Power = Literal["england", "france", "habsburg"]
POWERS: tuple[Power, ...] = get_args(Power)
Discovery = Literal[
    "st_lawrence",
    "great_lakes",
    "mississippi",
    "amazon",
    "pacific_strait",
    "circumnavigation",
    "maya",
    "aztecs",
    "inca",
]
DISCOVERIES: tuple[Discovery, ...] = get_args(Discovery)
ST_LAWRENCE, GREAT_LAKES, MISSISSIPPI, AMAZON, STRAIT, CIRCUMNAVIGATION, MAYA, AZTECS, INCA = range(
    9
)
VP_OF = (1, 1, 1, 2, 1, 3, 1, 2, 2)
Riches = Literal["nothing", "destroyed", "card", "card_depleted", "galleons_card"]
RICHES: tuple[Riches, ...] = ("nothing", "destroyed", "card", "card_depleted", "galleons_card")
NOTHING, DESTROYED, CARD, CARD_DEPLETED, GALLEONS_CARD = range(5)

Schedule = list[int] | Literal["every"]


def _schedule_mask(s: Schedule, turns: int) -> int:
    turns_on = range(1, turns + 1) if s == "every" else s
    mask = 0
    for t in turns_on:
        mask |= 1 << (t - 1)
    return mask


class PowerPlan(Params):
    explorers: list[int] = Field(
        default=[],
        max_length=MAX_POOL,
        description="ratings of the power's explorers, drawn at random without replacement",
    )
    explore: Schedule = Field(
        default=[], description="turns on which the power explores (2 CP), or every"
    )
    colonize: Schedule = Field(
        default=[], description="turns on which the power places a colony, or every"
    )
    conquer: Schedule = Field(
        default=[], description="turns on which the power conquers (4 CP), or every"
    )
    colonies: int = Field(default=0, ge=0, le=20, description="colonies on the map at the start")
    conquests: int = Field(default=0, ge=0, le=3, description="conquests held at the start")

    @field_validator("explorers")
    @classmethod
    def _ratings(cls, pool: list[int]) -> list[int]:
        for i, r in enumerate(pool):
            if not 0 <= r <= MAX_RATING:
                raise ValueError(
                    f"entry {i + 1}: a rating must be from 0 to {MAX_RATING} (got {r})"
                )
        return pool

    @field_validator("explore", "colonize", "conquer")
    @classmethod
    def _turns_exist(cls, s: Schedule, info: ValidationInfo) -> Schedule:
        if s == "every":
            return s
        for i, t in enumerate(s):
            if not 1 <= t <= MAX_TURNS:
                raise ValueError(f"entry {i + 1}: turn {t} is not a turn (1 to {MAX_TURNS})")
        if len(set(s)) != len(s):
            raise ValueError("each action is bought at most once a turn: list each turn once")
        if info.field_name == "explore" and s and not info.data.get("explorers"):
            raise ValueError(
                "explore is bought but the explorers pool is empty: list the explorers' ratings"
            )
        return s


class HabsburgPlan(PowerPlan):
    conquistadors: list[int] = Field(
        default=[],
        max_length=MAX_POOL,
        validate_default=True,
        description="ratings of the Habsburg conquistadors, drawn at random without replacement",
    )

    @field_validator("conquistadors")
    @classmethod
    def _conquistador_ratings(cls, pool: list[int], info: ValidationInfo) -> list[int]:
        for i, r in enumerate(pool):
            if not 0 <= r <= MAX_RATING:
                raise ValueError(
                    f"entry {i + 1}: a rating must be from 0 to {MAX_RATING} (got {r})"
                )
        conquer = info.data.get("conquer", [])
        if conquer and not pool:
            raise ValueError(
                "conquer is bought but the conquistadors pool is empty: list their ratings"
            )
        return pool


class RichesRow(Params):
    low: int = Field(ge=2, le=12, description="lowest 2d6 total of the row")
    high: int = Field(ge=2, le=12, description="highest 2d6 total of the row")
    outcome: Riches = Field(description="what a colony or conquest rolling this gets")

    @field_validator("high")
    @classmethod
    def _ordered(cls, high: int, info: ValidationInfo) -> int:
        low = info.data.get("low", high)
        if high < low:
            raise ValueError(f"must be at least low ({low})")
        return high


#: Assumption: the seed names the outcomes of the riches table, not the totals.
DEFAULT_RICHES = [
    RichesRow(low=2, high=3, outcome="destroyed"),
    RichesRow(low=4, high=6, outcome="nothing"),
    RichesRow(low=7, high=8, outcome="card"),
    RichesRow(low=9, high=10, outcome="galleons_card"),
    RichesRow(low=11, high=12, outcome="card_depleted"),
]


class NewWorldParams(Params):
    turns: int = Field(default=9, ge=1, le=MAX_TURNS, description="turns played")
    england: PowerPlan = Field(default_factory=PowerPlan, description="England's plan and pool")
    france: PowerPlan = Field(default_factory=PowerPlan, description="France's plan and pool")
    habsburg: HabsburgPlan = Field(
        default_factory=HabsburgPlan, description="the Habsburg plan and pools"
    )
    first_exploration_penalty: int = Field(
        default=1, ge=0, le=3, description="subtracted from a power's first exploration roll"
    )
    south_america: Literal["amazon", "pacific_strait", "safe_north_america"] = Field(
        default="amazon",
        description="the explorer's choice on 10+ (seed: the Amazon, the Strait and a "
        "circumnavigation, or a North American discovery): amazon = Amazon, else Strait, else "
        "North America (the most expected VP: the Strait's 1 VP + 3 x P(circumnavigation) "
        "never falls below a North American 1 VP); pacific_strait = Strait first; "
        "safe_north_america = Amazon, else a North American discovery, else the Strait",
    )
    depleted_conquest_vp: Literal["kept", "lost"] = Field(
        default="kept",
        description="VP of a conquest removed as depleted: kept (the seed: the VP were gained "
        "when conquered, depletion removes the conquest) or lost; a conquest held at the start "
        "has no VP counted here",
    )
    discoverers_return: bool = Field(
        default=False,
        description="assumption: false keeps an explorer/conquistador that made a discovery in "
        "the New World (out of the pool); true sends it back to the pool",
    )
    riches: list[RichesRow] = Field(
        default=DEFAULT_RICHES,
        min_length=1,
        max_length=11,
        description="2d6 total ranges of the New World riches table (assumption: scenario data)",
    )
    galleons_turn: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TURNS,
        description="first turn whose card draw has the Galleons marker out (none: never)",
    )
    galleons_powers: list[Power] = Field(
        default=["habsburg"], description="powers whose galleons_card rolls the marker serves"
    )
    conquest_destroyed: Literal["nothing", "removed"] = Field(
        default="nothing", description="gap: a conquest rolling destroyed (counted)"
    )
    colony_depleted: Literal["card", "card_removed"] = Field(
        default="card", description="gap: a colony rolling card_depleted (counted)"
    )
    already_claimed: list[Discovery] = Field(
        default=[], description="discoveries claimed before the first turn (by nobody modelled)"
    )
    already_explored: list[Power] = Field(
        default=[], description="powers whose first exploration is behind them (no penalty)"
    )

    @field_validator("riches")
    @classmethod
    def _riches_cover_2d6(cls, rows: list[RichesRow]) -> list[RichesRow]:
        check_table([(r.low, r.high) for r in rows], range(2, 13), "2d6 total")
        return rows

    @field_validator("england", "france", "habsburg")
    @classmethod
    def _turns_in_game(cls, plan: PowerPlan, info: ValidationInfo) -> PowerPlan:
        turns = info.data.get("turns", MAX_TURNS)
        for action in ("explore", "colonize", "conquer"):
            s = getattr(plan, action)
            late = [t for t in s if t > turns] if s != "every" else []
            if late:
                raise ValueError(f"{action}: turn {late[0]} is after the last turn ({turns})")
        return plan

    @model_validator(mode="after")
    def _unique_lists(self) -> NewWorldParams:
        if len(set(self.already_claimed)) != len(self.already_claimed):
            raise ValueError("already_claimed: list each discovery once")
        if (
            "circumnavigation" in self.already_claimed
            and "pacific_strait" not in self.already_claimed
        ):
            fail(
                "NewWorldParams",
                ("already_claimed", self.already_claimed.index("circumnavigation")),
                "circumnavigation is claimed but the Pacific Strait is not: a circumnavigation "
                "is tried only by the explorer who reached the Strait (seed §十二.2); add "
                "pacific_strait",
                "circumnavigation",
            )
        return self


def metrics(p: NewWorldParams) -> list[Metric]:
    out = [
        Metric(
            f"vp.{w}",
            "distribution",
            f"VP from New World discoveries and conquests ({w})",
            max_value=sum(VP_OF),
        )
        for w in POWERS
    ]
    out += [
        Metric(f"cards.{w}", "mean", f"cards from riches and circumnavigation ({w})")
        for w in POWERS
    ]
    out += [
        Metric(f"explorers_lost.{w}", "mean", f"explorers lost ({w})", headline=False)
        for w in POWERS
    ]
    out += [
        Metric(f"first.{d}.{w}", "proportion", f"{w} is first to reach {d}", headline=False)
        for d in DISCOVERIES
        for w in POWERS
    ]
    out += [
        Metric(
            f"turn_of.{d}",
            "conditional_mean",
            f"turn {d} is first claimed, among games where it is",
            headline=False,
        )
        for d in DISCOVERIES
    ]
    out += [
        Metric(
            "gap.conquest_rolls_destroyed",
            "mean",
            "gap: riches rolls of destroyed by a conquest (conquest_destroyed applied)",
            headline=False,
        ),
        Metric(
            "gap.colony_rolls_depleted",
            "mean",
            "gap: riches rolls of card_depleted by a colony (colony_depleted applied)",
            headline=False,
        ),
    ]
    out += [
        Metric(
            f"skipped.{w}",
            "mean",
            f"explorations/conquests bought with an empty pool ({w}): not carried out",
            headline=False,
        )
        for w in POWERS
    ]
    out += [Metric(f"colonies.{w}", "mean", f"colonies held at the end ({w})") for w in POWERS]
    out += [Metric(f"conquests.{w}", "mean", f"conquests held at the end ({w})") for w in POWERS]
    out += [
        Metric(f"cards_riches.{w}", "mean", f"cards from New World riches ({w})", headline=False)
        for w in POWERS
    ]
    out += [
        Metric(
            f"cards_circumnavigation.{w}",
            "mean",
            f"cards from a circumnavigation roll of 12+ ({w})",
            headline=False,
        )
        for w in POWERS
    ]
    out += [
        Metric(
            f"cp_spent.{w}",
            "mean",
            f"CP spent on New World actions carried out ({w}): exploration 2, colony "
            "2 (Habsburg) or 3, conquest 4; VP per CP = vp / cp_spent",
        )
        for w in POWERS
    ]
    return out


N_METRICS = 9 + 27 + 9 + 2 + 3 + 15
M_VP, M_CARDS, M_LOST, M_FIRST, M_TURN_OF, M_GAP_CONQ, M_GAP_COL, M_SKIPPED = (
    0,
    3,
    6,
    9,
    36,
    45,
    46,
    47,
)
M_COLONIES, M_CONQUESTS, M_CARDS_RICHES, M_CARDS_CIRC, M_CP = 50, 53, 56, 59, 62
#: CP of each action (seed §十二.1): explore, colonize (England, France, Habsburg), conquer.
EXPLORE_CP = 2
COLONY_CP = (3, 3, 2)
CONQUER_CP = 4
#: Conquests a power can hold at once: 3 at the start + the 3 of the New World.
MAX_HELD = 8

HEAD = 20
POWER_FIELDS = 8 + 2 * MAX_POOL
ROW = HEAD + 3 * POWER_FIELDS


def pack(p: NewWorldParams) -> np.ndarray:
    """Head: turns, penalty, strait first, discoverers return, galleons turn (0 never), conquest
    destroyed removes, colony depleted removes, claimed mask, explored mask, outcome of each 2d6
    total 2..12. Then per power: explore/colonize/conquer turn masks, galleons, colonies,
    conquests, pool sizes, explorer ratings, conquistador ratings."""
    row = np.zeros(ROW, dtype=np.float64)
    row[0] = p.turns
    row[1] = p.first_exploration_penalty
    row[2] = ("amazon", "pacific_strait", "safe_north_america").index(p.south_america)
    row[3] = p.discoverers_return
    row[4] = p.galleons_turn or 0
    row[5] = p.conquest_destroyed == "removed"
    row[6] = (p.colony_depleted == "card_removed") + 2 * (p.depleted_conquest_vp == "lost")
    row[7] = sum(1 << DISCOVERIES.index(d) for d in p.already_claimed)
    row[8] = sum(1 << POWERS.index(w) for w in p.already_explored)
    for r in p.riches:
        for total in range(r.low, r.high + 1):
            row[9 + total - 2] = RICHES.index(r.outcome)
    for k, w in enumerate(POWERS):
        plan: PowerPlan = getattr(p, w)
        b = HEAD + k * POWER_FIELDS
        row[b] = _schedule_mask(plan.explore, p.turns)
        row[b + 1] = _schedule_mask(plan.colonize, p.turns)
        row[b + 2] = _schedule_mask(plan.conquer, p.turns)
        row[b + 3] = w in p.galleons_powers
        row[b + 4] = plan.colonies
        row[b + 5] = plan.conquests
        row[b + 6] = len(plan.explorers)
        row[b + 8 : b + 8 + len(plan.explorers)] = plan.explorers
        if isinstance(plan, HabsburgPlan):
            row[b + 7] = len(plan.conquistadors)
            row[b + 8 + MAX_POOL : b + 8 + MAX_POOL + len(plan.conquistadors)] = plan.conquistadors
    return row


@inline
def _roll2d6(state):
    x = next_word(state)
    return d6_of(low32(x)) + d6_of(high32(x))


@inline
def _exploration_result(total, claimed, choice):
    """The discovery an exploration total reaches after the step-down rule, or -1 (lost, if the
    total is 4 or less) / -2 (returns). ``choice`` on 10+: 0 Amazon, Strait, North America;
    1 Strait, Amazon, North America; 2 Amazon, North America, Strait."""
    if total <= 4:
        return -1
    r = total
    while r >= 7:
        if r >= 10:
            first = STRAIT if choice == 1 else AMAZON
            second = AMAZON if choice == 1 else STRAIT
            if not (claimed >> first) & 1:
                return first
            if choice == 2:
                for d in (MISSISSIPPI, GREAT_LAKES, ST_LAWRENCE):
                    if not (claimed >> d) & 1:
                        return d
            if not (claimed >> second) & 1:
                return second
            r = 9
            continue
        d = r - 7  # 7 St. Lawrence, 8 Great Lakes, 9 Mississippi
        if not (claimed >> d) & 1:
            return d
        r -= 1
    return -2


@inline
def _conquest_result(total, claimed):
    """The conquest a total reaches after the step-down rule, or -1 (lost) / -2 (returns)."""
    if total <= 6:
        return -1
    r = min(total, 11)
    while r >= 9:
        d = MAYA + r - 9
        if not (claimed >> d) & 1:
            return d
        r -= 1
    return -2


#: Totals an exploration or conquest roll can reach, shifted so the lowest indexes 0.
LOW_TOTAL = -3
N_TOTALS = 12 + MAX_RATING - LOW_TOTAL + 1


@inline
def _result_tables(choice, explore_table, conquest_table):
    """Step-down results of every (claims mask, total), so a roll is one lookup."""
    for claimed in range(512):
        for k in range(N_TOTALS):
            total = k + LOW_TOTAL
            explore_table[claimed, k] = _exploration_result(total, claimed, choice)
            conquest_table[claimed, k] = _conquest_result(total, claimed)


@inline
def _sort_by_rating(order, n, rating):
    """Stable insertion sort of order[:n], highest rating first (ties keep their order)."""
    for a in range(1, n):
        w = order[a]
        b = a
        while b > 0 and rating[order[b - 1]] < rating[w]:
            order[b] = order[b - 1]
            b -= 1
        order[b] = w


@kernel
def new_world_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    # Padded rows: with exactly BLOCK int64 (4 KiB) per metric, the 50 writes of one trial would
    # all fall in the same L1 cache set.
    values = np.zeros((n_variants, N_METRICS, BLOCK + 8), dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    vp_of = np.array(VP_OF, dtype=np.int64)
    # Per-variant constants, unpacked once.
    schedule = np.zeros((3, 3), dtype=np.int64)  # power, action (explore/colonize/conquer)
    explorers0 = np.zeros((3, MAX_POOL), dtype=np.int64)
    n_explorers0 = np.zeros(3, dtype=np.int64)
    conquistadors0 = np.zeros(MAX_POOL, dtype=np.int64)
    colonies0 = np.zeros(3, dtype=np.int64)
    conquests0 = np.zeros(3, dtype=np.int64)
    galleons_power = np.zeros(3, dtype=np.bool_)
    # Riches by 2d6 total: cards gained (without / with the Galleons), holdings lost, gaps hit.
    colony_card = np.zeros((2, 13), dtype=np.int64)
    colony_lost = np.zeros(13, dtype=np.int64)
    colony_gap = np.zeros(13, dtype=np.int64)
    conquest_card = np.zeros((2, 13), dtype=np.int64)
    conquest_lost = np.zeros(13, dtype=np.int64)
    conquest_gap = np.zeros(13, dtype=np.int64)
    conquest_depleted = np.zeros(13, dtype=np.int64)
    held_vp = np.zeros((3, MAX_HELD), dtype=np.int64)  # VP of each conquest held, in order
    riches_cards = np.zeros(3, dtype=np.int64)
    circ_cards = np.zeros(3, dtype=np.int64)
    cp = np.zeros(3, dtype=np.int64)
    explore_table = np.zeros((n_variants, 512, N_TOTALS), dtype=np.int8)
    conquest_table = np.zeros((n_variants, 512, N_TOTALS), dtype=np.int8)
    # Per-game state.
    explorers = np.zeros((3, MAX_POOL), dtype=np.int64)
    conquistadors = np.zeros(MAX_POOL, dtype=np.int64)
    n_explorers = np.zeros(3, dtype=np.int64)
    colonies = np.zeros(3, dtype=np.int64)
    conquests = np.zeros(3, dtype=np.int64)
    vp = np.zeros(3, dtype=np.int64)
    cards = np.zeros(3, dtype=np.int64)
    lost = np.zeros(3, dtype=np.int64)
    skipped = np.zeros(3, dtype=np.int64)
    rating = np.zeros(3, dtype=np.int64)
    pick = np.zeros(3, dtype=np.int64)
    order = np.zeros(3, dtype=np.int64)
    owner = np.zeros(9, dtype=np.int64)
    turn_of = np.zeros(9, dtype=np.int64)
    end = first_trial + n_trials
    for v in range(n_variants):
        _result_tables(np.int64(packed[v, 2]), explore_table[v], conquest_table[v])
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            turns = np.int64(packed[v, 0])
            penalty = np.int64(packed[v, 1])
            discoverers_return = packed[v, 3] > 0.5
            galleons_turn = np.int64(packed[v, 4])
            conquest_destroyed_removes = packed[v, 5] > 0.5
            colony_depleted_removes = (np.int64(packed[v, 6]) & 1) == 1
            depleted_loses_vp = (np.int64(packed[v, 6]) & 2) == 2
            claimed0 = np.int64(packed[v, 7])
            explored0 = np.int64(packed[v, 8])
            for total in range(2, 13):
                o = np.int64(packed[v, 9 + total - 2])
                for g in range(2):
                    gets = (o == CARD) | (o == CARD_DEPLETED) | ((o == GALLEONS_CARD) & (g == 1))
                    colony_card[g, total] = gets
                    conquest_card[g, total] = gets
                colony_gap[total] = o == CARD_DEPLETED
                colony_lost[total] = (o == DESTROYED) | (
                    (o == CARD_DEPLETED) & colony_depleted_removes
                )
                conquest_gap[total] = o == DESTROYED
                conquest_depleted[total] = o == CARD_DEPLETED
                conquest_lost[total] = (o == CARD_DEPLETED) | (
                    (o == DESTROYED) & conquest_destroyed_removes
                )
            for w in range(3):
                b = HEAD + w * POWER_FIELDS
                for a in range(3):
                    schedule[w, a] = np.int64(packed[v, b + a])
                galleons_power[w] = packed[v, b + 3] > 0.5
                colonies0[w] = np.int64(packed[v, b + 4])
                conquests0[w] = np.int64(packed[v, b + 5])
                n_explorers0[w] = np.int64(packed[v, b + 6])
                for k in range(MAX_POOL):
                    explorers0[w, k] = np.int64(packed[v, b + 8 + k])
            hb = HEAD + 2 * POWER_FIELDS
            n_conquistadors0 = np.int64(packed[v, hb + 7])
            for k in range(MAX_POOL):
                conquistadors0[k] = np.int64(packed[v, hb + 8 + MAX_POOL + k])
            for i in range(m):
                state[0] = trial_state(key, start + i)
                for w in range(3):
                    n_explorers[w] = n_explorers0[w]
                    for k in range(MAX_POOL):
                        explorers[w, k] = explorers0[w, k]
                    colonies[w] = colonies0[w]
                    conquests[w] = conquests0[w]
                    vp[w] = 0
                    cards[w] = 0
                    lost[w] = 0
                    skipped[w] = 0
                    riches_cards[w] = 0
                    circ_cards[w] = 0
                    cp[w] = 0
                    for k in range(MAX_HELD):
                        held_vp[w, k] = 0  # conquests held at the start: no VP counted here
                n_conquistadors = n_conquistadors0
                for k in range(MAX_POOL):
                    conquistadors[k] = conquistadors0[k]
                claimed = claimed0
                explored = explored0
                for d in range(9):
                    owner[d] = -1
                    turn_of[d] = 0
                gap_conquest = 0
                gap_colony = 0
                for turn in range(1, turns + 1):
                    # 1. Card draw phase: New World riches.
                    galleons_out = (galleons_turn > 0) & (turn >= galleons_turn)
                    for w in range(3):
                        g = np.int64(galleons_out & galleons_power[w])
                        gone = 0
                        for _ in range(colonies[w]):
                            s = _roll2d6(state)
                            riches_cards[w] += colony_card[g, s]
                            gone += colony_lost[s]
                            gap_colony += colony_gap[s]
                        colonies[w] -= gone
                        kept = 0
                        for k in range(conquests[w]):
                            s = _roll2d6(state)
                            riches_cards[w] += conquest_card[g, s]
                            gap_conquest += conquest_gap[s]
                            if conquest_lost[s]:
                                if depleted_loses_vp and conquest_depleted[s]:
                                    vp[w] -= held_vp[w, k]
                            else:
                                held_vp[w, kept] = held_vp[w, k]
                                kept += 1
                        conquests[w] = kept
                    # 2. Action phase: colonies at once; explorations and conquests need a pool.
                    bit = np.int64(1) << (turn - 1)
                    for w in range(3):
                        placed = (schedule[w, 1] & bit) != 0
                        colonies[w] += placed
                        cp[w] += placed * COLONY_CP[w]
                    # 3. New World phase: explorations (ties England, France, Habsburg).
                    n = 0
                    for w in range(3):
                        if schedule[w, 0] & bit:
                            if n_explorers[w] == 0:
                                skipped[w] += 1
                            else:
                                pick[w] = die_of(low32(next_word(state)), n_explorers[w]) - 1
                                rating[w] = explorers[w, pick[w]]
                                cp[w] += EXPLORE_CP
                                order[n] = w
                                n += 1
                    _sort_by_rating(order, n, rating)
                    for k in range(n):
                        w = order[k]
                        r = rating[w]
                        total = _roll2d6(state) + r
                        if not (explored >> w) & 1:
                            total -= penalty
                            explored |= np.int64(1) << w
                        d = np.int64(explore_table[v, claimed, total - LOW_TOTAL])
                        leaves = d != -2
                        if d == -1:
                            lost[w] += 1
                        elif d >= 0:
                            claimed |= np.int64(1) << d
                            owner[d] = w
                            turn_of[d] = turn
                            vp[w] += vp_of[d]
                            leaves = not discoverers_return
                            if d == STRAIT:
                                c = _roll2d6(state) + r
                                if c <= 9:
                                    lost[w] += 1
                                    leaves = True
                                else:
                                    claimed |= np.int64(1) << CIRCUMNAVIGATION
                                    owner[CIRCUMNAVIGATION] = w
                                    turn_of[CIRCUMNAVIGATION] = turn
                                    vp[w] += vp_of[CIRCUMNAVIGATION]
                                    circ_cards[w] += c >= 12
                        if leaves:
                            n_explorers[w] -= 1
                            explorers[w, pick[w]] = explorers[w, n_explorers[w]]
                    # ... then conquests (ties Habsburg, England, France).
                    n = 0
                    if schedule[2, 2] & bit:
                        if n_conquistadors == 0:
                            skipped[2] += 1
                        else:
                            pick[2] = die_of(low32(next_word(state)), n_conquistadors) - 1
                            rating[2] = conquistadors[pick[2]]
                            cp[2] += CONQUER_CP
                            order[n] = 2
                            n += 1
                    for w in range(2):
                        if schedule[w, 2] & bit:
                            rating[w] = 0
                            order[n] = w
                            n += 1
                            cp[w] += CONQUER_CP
                    _sort_by_rating(order, n, rating)
                    for k in range(n):
                        w = order[k]
                        d = np.int64(
                            conquest_table[v, claimed, _roll2d6(state) + rating[w] - LOW_TOTAL]
                        )
                        leaves = d == -1
                        if d >= 0:
                            claimed |= np.int64(1) << d
                            owner[d] = w
                            turn_of[d] = turn
                            vp[w] += vp_of[d]
                            held_vp[w, conquests[w]] = vp_of[d]
                            conquests[w] += 1
                            leaves = not discoverers_return
                        if w == 2 and leaves:
                            n_conquistadors -= 1
                            conquistadors[pick[2]] = conquistadors[n_conquistadors]
                for w in range(3):
                    values[v, M_VP + w, i] = vp[w]
                    values[v, M_CARDS + w, i] = riches_cards[w] + circ_cards[w]
                    values[v, M_CARDS_RICHES + w, i] = riches_cards[w]
                    values[v, M_CARDS_CIRC + w, i] = circ_cards[w]
                    values[v, M_COLONIES + w, i] = colonies[w]
                    values[v, M_CONQUESTS + w, i] = conquests[w]
                    values[v, M_CP + w, i] = cp[w]
                    values[v, M_LOST + w, i] = lost[w]
                    values[v, M_SKIPPED + w, i] = skipped[w]
                for d in range(9):
                    for w in range(3):
                        values[v, M_FIRST + 3 * d + w, i] = owner[d] == w
                    values[v, M_TURN_OF + d, i] = turn_of[d] if owner[d] >= 0 else UNDEFINED
                values[v, M_GAP_CONQ, i] = gap_conquest
                values[v, M_GAP_COL, i] = gap_colony
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


# --- exact values of one turn ---------------------------------------------------------------

TWO_D6 = {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}


def exploration_outcome(
    total: int, claimed: frozenset[str], strait_first: bool = False, choice: str = ""
) -> str:
    """What an exploration total reaches after the first-claim and step-down rules: a discovery's
    name, ``lost`` or ``returns``. ``choice`` is the ``south_america`` knob (``strait_first``
    the older spelling of ``pacific_strait``)."""
    choice = choice or ("pacific_strait" if strait_first else "amazon")
    if total <= 4:
        return "lost"
    r = total
    while r >= 7:
        if r >= 10:
            prefs = {
                "amazon": ["amazon", "pacific_strait"],
                "pacific_strait": ["pacific_strait", "amazon"],
                # The seed's third option, any North American discovery, before the Strait.
                "safe_north_america": ["amazon", "mississippi", "great_lakes", "st_lawrence"]
                + ["pacific_strait"],
            }[choice]
            free = [d for d in prefs if d not in claimed]
            if free:
                return free[0]
            r = 9
            continue
        d = {7: "st_lawrence", 8: "great_lakes", 9: "mississippi"}[r]
        if d not in claimed:
            return d
        r -= 1
    return "returns"


def conquest_outcome(total: int, claimed: frozenset[str]) -> str:
    """What a conquest total reaches after the first-claim and step-down rules."""
    if total <= 6:
        return "lost"
    r = min(total, 11)
    while r >= 9:
        d = {9: "maya", 10: "aztecs", 11: "inca"}[r]
        if d not in claimed:
            return d
        r -= 1
    return "returns"


def exact(p: NewWorldParams) -> dict[str, float]:
    """Exact values of a one-turn game (``turns == 1``): every draw from the pools is enumerated
    and the claims are carried as a distribution through the resolution order. Other games have
    no exact values (an empty dict)."""
    if p.turns != 1:
        return {}
    vp = {w: Fraction(0) for w in POWERS}
    cards = {w: Fraction(0) for w in POWERS}
    lost = {w: Fraction(0) for w in POWERS}
    first: dict[tuple[str, str], Fraction] = {
        (d, w): Fraction(0) for d in DISCOVERIES for w in POWERS
    }
    skipped = {w: Fraction(0) for w in POWERS}
    gap_conquest = Fraction(0)
    gap_colony = Fraction(0)
    circ_cards = {w: Fraction(0) for w in POWERS}
    colonies = {w: Fraction(getattr(p, w).colonies) for w in POWERS}
    conquests = {w: Fraction(getattr(p, w).conquests) for w in POWERS}
    cp = {w: 0 for w in POWERS}
    # Riches of the colonies and conquests held at the start (turn 1's card draw).
    outcome_of = {t: r.outcome for r in p.riches for t in range(r.low, r.high + 1)}
    galleons_out = p.galleons_turn == 1
    for w in POWERS:
        plan: PowerPlan = getattr(p, w)
        for s, q in TWO_D6.items():
            rich = outcome_of[s]
            card = rich in ("card", "card_depleted") or (
                rich == "galleons_card" and galleons_out and w in p.galleons_powers
            )
            cards[w] += q * card * (plan.colonies + plan.conquests)
            gap_colony += q * (rich == "card_depleted") * plan.colonies
            gap_conquest += q * (rich == "destroyed") * plan.conquests
            colony_goes = rich == "destroyed" or (
                rich == "card_depleted" and p.colony_depleted == "card_removed"
            )
            conquest_goes = rich == "card_depleted" or (
                rich == "destroyed" and p.conquest_destroyed == "removed"
            )
            colonies[w] -= q * colony_goes * plan.colonies
            conquests[w] -= q * conquest_goes * plan.conquests
    riches_cards = dict(cards)
    # Actions bought on turn 1 (seed §十二.1): exploration 2 CP, colony 2 (Habsburg) / 3 CP,
    # conquest 4 CP; an exploration or conquest with an empty pool is not bought.
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.colonize, 1):
            colonies[w] += 1
            cp[w] += 2 if w == "habsburg" else 3
    explorers: dict[Power, list[int]] = {}
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.explore, 1):
            if plan.explorers:
                explorers[w] = plan.explorers
                cp[w] += 2
            else:
                skipped[w] += 1
    conquerors: dict[Power, list[int]] = {}
    for w in POWERS:
        plan = getattr(p, w)
        if 1 in _turns(plan.conquer, 1):
            if w != "habsburg":
                conquerors[w] = [0]
                cp[w] += 4
            elif p.habsburg.conquistadors:
                conquerors[w] = p.habsburg.conquistadors
                cp[w] += 4
            else:
                skipped[w] += 1
    tie_explore = {w: i for i, w in enumerate(("england", "france", "habsburg"))}
    tie_conquer = {w: i for i, w in enumerate(("habsburg", "england", "france"))}
    claimed0 = frozenset(p.already_claimed)
    ex_powers = list(explorers)
    co_powers = list(conquerors)
    draws = list(product(*(explorers[w] for w in ex_powers), *(conquerors[w] for w in co_powers)))
    weight = Fraction(1, max(len(draws), 1))
    for draw in draws or [()]:
        ratings = dict(zip(ex_powers, draw[: len(ex_powers)], strict=True))
        c_ratings = dict(zip(co_powers, draw[len(ex_powers) :], strict=True))
        steps = [
            ("explore", w, ratings[w])
            for w in sorted(ex_powers, key=lambda w: (-ratings[w], tie_explore[w]))
        ]
        steps += [
            ("conquer", w, c_ratings[w])
            for w in sorted(co_powers, key=lambda w: (-c_ratings[w], tie_conquer[w]))
        ]
        dist: dict[frozenset[str], Fraction] = {claimed0: weight}
        for kind, w, r in steps:
            nxt: dict[frozenset[str], Fraction] = {}
            for claimed, q0 in dist.items():
                for s, qs in TWO_D6.items():
                    q = q0 * qs
                    if kind == "explore":
                        first_time = w not in p.already_explored
                        total = s + r - (p.first_exploration_penalty if first_time else 0)
                        o = exploration_outcome(total, claimed, choice=p.south_america)
                    else:
                        o = conquest_outcome(s + r, claimed)
                    if o == "lost" and kind == "explore":
                        lost[w] += q
                    if o in ("lost", "returns"):
                        nxt[claimed] = nxt.get(claimed, Fraction(0)) + q
                        continue
                    vp[w] += q * VP_OF[DISCOVERIES.index(o)]
                    first[(o, w)] += q
                    after = claimed | {o}
                    if o != "pacific_strait":
                        nxt[after] = nxt.get(after, Fraction(0)) + q
                        continue
                    for c, qc in TWO_D6.items():
                        if c + r <= 9:
                            lost[w] += q * qc
                            nxt[after] = nxt.get(after, Fraction(0)) + q * qc
                        else:
                            vp[w] += q * qc * 3
                            first[("circumnavigation", w)] += q * qc
                            cards[w] += q * qc * (c + r >= 12)
                            circ_cards[w] += q * qc * (c + r >= 12)
                            done = after | {"circumnavigation"}
                            nxt[done] = nxt.get(done, Fraction(0)) + q * qc
            dist = nxt
    out: dict[str, float] = {}
    for w in POWERS:
        out[f"vp.{w}"] = float(vp[w])
        out[f"cards.{w}"] = float(cards[w])
        out[f"explorers_lost.{w}"] = float(lost[w])
        out[f"skipped.{w}"] = float(skipped[w])
        gained = sum((first[(d, w)] for d in ("maya", "aztecs", "inca")), Fraction(0))
        out[f"colonies.{w}"] = float(colonies[w])
        out[f"conquests.{w}"] = float(conquests[w] + gained)
        out[f"cards_riches.{w}"] = float(riches_cards[w])
        out[f"cards_circumnavigation.{w}"] = float(circ_cards[w])
        out[f"cp_spent.{w}"] = float(cp[w])
    for d in DISCOVERIES:
        for w in POWERS:
            out[f"first.{d}.{w}"] = float(first[(d, w)])
        if any(first[(d, w)] for w in POWERS):
            out[f"turn_of.{d}"] = 1.0
    out["gap.conquest_rolls_destroyed"] = float(gap_conquest)
    out["gap.colony_rolls_depleted"] = float(gap_colony)
    return out


def _turns(s: Schedule, turns: int) -> list[int]:
    return list(range(1, turns + 1)) if s == "every" else list(s)


PROCEDURE = Procedure(
    name="his.new_world",
    title="Here I Stand: the New World race (a whole game)",
    rules="RULES.md §5.9",
    params_model=NewWorldParams,
    metrics=metrics,
    pack=pack,
    kernel=new_world_kernel,
    exact=exact,
    example={
        "england": {"explorers": [1, 0], "explore": "every"},
        "france": {"explorers": [2, 1], "explore": "every", "colonize": [2]},
        "habsburg": {
            "explorers": [4, 1],
            "explore": "every",
            "conquistadors": [2, 1],
            "conquer": "every",
        },
    },
    notes=(
        "assumption: the riches table rows are scenario data (riches)",
        "the explorer's choice on 10+ among the seed's three options (south_america): default "
        "amazon = Amazon, else the Strait, else North America, the most expected VP; "
        "safe_north_america takes a North American discovery before the Strait",
        "a depleted conquest is removed (seed §十二.3); its VP: knob depleted_conquest_vp, "
        "default kept (gained when conquered, as the seed reads), lost as the alternative",
        "validation refuses a claimed circumnavigation without the Pacific Strait",
        "assumption: a discoverer stays in the New World (discoverers_return)",
        "gap, counted: a conquest rolling destroyed (conquest_destroyed, default nothing)",
        "gap, counted: a colony rolling card_depleted (colony_depleted, default +1 card, stays)",
        "a bought exploration/conquest with an empty pool is not carried out (counted: skipped)",
        "no first-exploration penalty on the circumnavigation roll",
    ),
)
