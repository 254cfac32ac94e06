"""Root battle with every faction's battle rules (RULES.md §4).

The attacker fights ``battles`` battles in a row against one defender in one clearing. Each battle:

1. **Ambush**: a defender holding an ambush card plays it; the attacker cancels it with its own
   ambush card if it holds one (both cards are spent). An uncancelled ambush deals 2 hits to the
   attacker before the roll; if that leaves a warrior-fighting attacker with no warriors, the battle
   ends.
2. **Roll** two Root dice (uniform 0-3): the attacker takes the higher, the defender the lower; a
   defending Woodland Alliance takes the higher instead (guerrilla war).
3. **Hit caps**: each side's rolled hits are capped by its warriors in the clearing (a Vagabond: by
   its undamaged swords).
4. **Extra hits** ignore the cap: the defender takes one more when defenceless (no warriors; a
   Vagabond: no undamaged sword); each side adds its ``extra_hits`` (Brutal Tactics, Sappers, ...);
   Corvids defending with a face-down plot in the clearing add one.
5. **Removal**: warriors first, then buildings and tokens in the owner's chosen order (a Vagabond
   damages its other items before its swords). Removing an enemy building or token scores 1 VP; an
   attacking Vagabond battling a hostile faction scores 1 VP more per piece removed.

Control of the clearing afterwards: most warriors + buildings (tokens and the Vagabond's pawn do
not count); a tie goes to nobody, except that the Eyrie wins ties it is in; a Lizard garden (the
Lizards' last building to go) gives the Lizards control outright.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.accumulate import BLOCK, accumulate_block, accumulate_weighted, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import block_word, die_of, high32, low32, word, word_base

Faction = Literal[
    "marquise", "eyrie", "alliance", "vagabond", "lizards", "riverfolk", "duchy", "corvids", "other"
]
FACTIONS: tuple[str, ...] = (
    "marquise",
    "eyrie",
    "alliance",
    "vagabond",
    "lizards",
    "riverfolk",
    "duchy",
    "corvids",
    "other",
)
EYRIE, ALLIANCE, VAGABOND, LIZARDS, CORVIDS = (
    FACTIONS.index(f) for f in ("eyrie", "alliance", "vagabond", "lizards", "corvids")
)

MAX_WARRIORS = 30
MAX_BUILDINGS = 3
MAX_TOKENS = 8
MAX_SWORDS = 6
MAX_ITEMS = 20
MAX_EXTRA_HITS = 5
MAX_AMBUSH_CARDS = 5
MAX_BATTLES = 10

#: control_after codes.
ATTACKER, DEFENDER, NOBODY = 0, 1, 2


class Side(Params):
    warriors: int = Field(default=0, ge=0, le=MAX_WARRIORS, description="warriors in the clearing")
    buildings: int = Field(
        default=0, ge=0, le=MAX_BUILDINGS, description="buildings in the clearing"
    )
    tokens: int = Field(default=0, ge=0, le=MAX_TOKENS, description="tokens in the clearing")
    faction: Faction = Field(default="other", description="the faction (its battle rules apply)")
    extra_hits: int = Field(
        default=0,
        ge=0,
        le=MAX_EXTRA_HITS,
        description="extra hits this side deals in every battle (cards such as Brutal Tactics); "
        "they ignore the hit cap",
    )
    vagabond_swords: int = Field(
        default=0,
        ge=0,
        le=MAX_SWORDS,
        description="a Vagabond's undamaged swords: its hit cap (0 for other factions)",
    )
    vagabond_items: int = Field(
        default=0,
        ge=0,
        le=MAX_ITEMS,
        description="a Vagabond's other undamaged items, damaged before its swords",
    )
    removes_first: Literal["tokens", "buildings"] = Field(
        default="tokens",
        description="assumption: after its warriors, the owner removes tokens before buildings "
        "(tokens do not count for control)",
    )

    @field_validator("vagabond_swords", "vagabond_items")
    @classmethod
    def _only_a_vagabond_has_items(cls, v: int, info: ValidationInfo) -> int:
        if v and info.data.get("faction") != "vagabond":
            raise ValueError("only a Vagabond has items: set faction: vagabond or use 0")
        return v

    @model_validator(mode="after")
    def _vagabond_pieces(self) -> Side:
        if self.faction == "vagabond" and (self.warriors or self.buildings or self.tokens):
            raise ValueError(
                "a Vagabond has no warriors, buildings or tokens (its pawn is not a warrior): "
                "use 0 and give vagabond_swords"
            )
        return self


class Attacker(Side):
    counter_ambush: int = Field(
        default=0,
        ge=0,
        le=MAX_AMBUSH_CARDS,
        description="ambush cards the attacker holds to cancel the defender's ambushes",
    )
    hostile: bool = Field(
        default=False,
        description="an attacking Vagabond: the defender is already hostile (+1 VP per piece "
        "removed); it becomes hostile after a battle that removes one of its warriors",
    )


class Defender(Side):
    ambush: int = Field(
        default=0,
        ge=0,
        le=MAX_AMBUSH_CARDS,
        description="ambush cards the defender holds (it plays one in each battle while it can)",
    )
    corvid_plot_face_down: bool = Field(
        default=False,
        description="Corvids defending with a face-down plot (one of their tokens, removed last): "
        "+1 extra hit while it stands",
    )


class BattleParams(Params):
    attacker: Attacker = Field(description="the faction that battles")
    defender: Defender = Field(description="the faction battled in the clearing")
    lizard_garden: bool = Field(
        default=False,
        description="a Lizard garden (one of the Lizards' buildings, removed last) is in the "
        "clearing: the Lizards rule it while it stands",
    )
    battles: int = Field(
        default=1, ge=1, le=MAX_BATTLES, description="battles the attacker fights there in a row"
    )
    stop_when_cleared: bool = Field(
        default=True,
        description="stop the campaign once the defender is defenceless (no warriors; a "
        "Vagabond: no undamaged sword); false keeps battling its buildings and tokens",
    )

    @field_validator("attacker")
    @classmethod
    def _attacker_can_fight(cls, a: Attacker) -> Attacker:
        if a.faction == "vagabond":
            if a.vagabond_swords < 1:
                raise ValueError(
                    "an attacking Vagabond needs an undamaged sword to battle: "
                    "set vagabond_swords to at least 1"
                )
        elif a.warriors < 1:
            raise ValueError("the attacker needs at least one warrior in the clearing to battle")
        return a

    @field_validator("defender")
    @classmethod
    def _defender_is_there(cls, d: Defender, info: ValidationInfo) -> Defender:
        if d.faction != "vagabond" and d.warriors + d.buildings + d.tokens == 0:
            raise ValueError(
                "the defender has nothing in the clearing: give it warriors, buildings or tokens"
            )
        a = info.data.get("attacker")
        if a is not None and a.faction == d.faction and d.faction not in ("other", "vagabond"):
            raise ValueError(f"a faction cannot battle itself ({d.faction}): change one faction")
        if d.corvid_plot_face_down and (d.faction != "corvids" or d.tokens < 1):
            raise ValueError(
                "a face-down plot needs faction: corvids with at least one token (the plot)"
            )
        return d

    @field_validator("lizard_garden")
    @classmethod
    def _garden_needs_lizards(cls, v: bool, info: ValidationInfo) -> bool:
        if not v:
            return v
        sides = [info.data.get("attacker"), info.data.get("defender")]
        if not any(s is not None and s.faction == "lizards" and s.buildings >= 1 for s in sides):
            raise ValueError(
                "a Lizard garden needs one side with faction: lizards and at least "
                "one building (the garden)"
            )
        return v


# Indices of the metric values the kernel writes, in the order of metrics().
(A_LOST, D_LOST, BUILDINGS, TOKENS, A_VP, CLEARED, AMBUSH_HITS, CONTROL) = range(8)
D_VP, FOUGHT, ACOLYTES, A_DAMAGED, D_DAMAGED = range(8, 13)
N_METRICS = 13


def metrics(p: BattleParams) -> list[Metric]:
    d = p.defender
    vp_max = 2 * (d.warriors + d.buildings + d.tokens)
    return [
        Metric(
            "attacker_warriors_lost",
            "distribution",
            "attacker warriors removed",
            max_value=p.attacker.warriors,
        ),
        Metric(
            "defender_warriors_lost",
            "distribution",
            "defender warriors removed",
            max_value=d.warriors,
        ),
        Metric("buildings_removed", "mean", "defender buildings removed"),
        Metric("tokens_removed", "mean", "defender tokens removed"),
        Metric(
            "attacker_vp",
            "distribution",
            "VP the attacker scores (buildings, tokens; a Vagabond's hostile pieces)",
            max_value=vp_max,
        ),
        Metric(
            "defender_cleared",
            "proportion",
            "the defender has no warriors, buildings or tokens left (never for a Vagabond)",
        ),
        Metric("ambush_hits", "mean", "attacker pieces removed or items damaged by ambushes"),
        Metric(
            "control_after",
            "distribution",
            "who rules the clearing afterwards: 0 attacker, 1 defender, 2 nobody",
            max_value=2,
        ),
        Metric(
            "defender_vp",
            "mean",
            "VP the defender scores (attacker buildings, tokens)",
            headline=False,
        ),
        Metric("battles_fought", "mean", "battles actually fought", headline=False),
        Metric(
            "acolytes",
            "mean",
            "Lizard defender warriors removed (they become acolytes)",
            headline=False,
        ),
        Metric(
            "attacker_items_damaged",
            "mean",
            "items (swords included) an attacking Vagabond had damaged",
            headline=False,
        ),
        Metric(
            "defender_items_damaged",
            "mean",
            "items (swords included) a defending Vagabond had damaged",
            headline=False,
        ),
    ]


SIDE_WIDTH = 10
GLOBALS = 2 * SIDE_WIDTH


def _pack_side(s: Side, cards: int) -> list[float]:
    return [
        s.warriors,
        s.buildings,
        s.tokens,
        FACTIONS.index(s.faction),
        s.extra_hits,
        s.vagabond_swords,
        s.vagabond_items,
        1 if s.removes_first == "tokens" else 0,
        cards,
        0,
    ]


def pack(p: BattleParams) -> np.ndarray:
    row = _pack_side(p.attacker, p.attacker.counter_ambush)
    row += _pack_side(p.defender, p.defender.ambush)
    row += [
        int(p.defender.corvid_plot_face_down),
        int(p.lizard_garden),
        p.battles,
        int(p.stop_when_cleared),
        int(p.attacker.hostile),
    ]
    return np.array(row, dtype=np.float64)


@inline
def _removal(hits, warriors, buildings, tokens, items, swords, tokens_first):
    """5. Removal of ``hits``: warriors first, then tokens and buildings in the owner's order
    (``tokens_first`` 1 or 0); a Vagabond (no warriors, buildings or tokens) damages its other
    items before its swords. Returns the (warriors, buildings, tokens, items, swords) lost."""
    lw = min(hits, warriors)
    r = hits - lw
    first = tokens_first * tokens + (1 - tokens_first) * buildings
    l1 = min(r, first)
    l2 = min(r - l1, tokens + buildings - first)
    lt = tokens_first * l1 + (1 - tokens_first) * l2
    lb = l1 + l2 - lt
    r -= l1 + l2
    li = min(r, items)
    ls = min(r - li, swords)
    return lw, lb, lt, li, ls


# Rows of a campaign's state (one column: campaigns are played one at a time). We previously
# kept 128 campaigns side by side and played them die-major, branch-free, hoping the loop over
# trials would vectorise; with 19 state rows LLVM gives up on the alias checks, and the scalar
# loop with an early exit per campaign is as fast.
(
    S_AW,
    S_AB,
    S_AT,
    S_AI,
    S_AS,
    S_ACARDS,
    S_DW,
    S_DB,
    S_DT,
    S_DI,
    S_DS,
    S_DCARDS,
    S_HOSTILE,
    S_ACTIVE,
    S_AVP,
    S_DVP,
    S_AMBUSH,
    S_FOUGHT,
    S_ACOLYTES,
) = range(19)
N_STATE = 19

#: A battle's roll matters only as (high die, low die): 10 outcomes, coded hi*(hi+1)/2 + lo.
ROLLS = 10
HIGH_OF = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], dtype=np.int64)
LOW_OF = np.array([0, 0, 1, 0, 1, 2, 0, 1, 2, 3], dtype=np.int64)
#: Runs of at most this many battles (in every variant) tally the roll sequences (10**battles
#: of them) and play each distinct sequence once: the result is the same integer statistics.
#: Longer campaigns play every trial, die-major (the loop over trials vectorises).
TALLY_MAX_BATTLES = 4


@inline
def _start(st, i, row):
    """A trial's campaign state before the first battle."""
    o = SIDE_WIDTH
    st[S_AW, i] = np.int64(row[0])
    st[S_AB, i] = np.int64(row[1])
    st[S_AT, i] = np.int64(row[2])
    st[S_AS, i] = np.int64(row[5])
    st[S_AI, i] = np.int64(row[6])
    st[S_ACARDS, i] = np.int64(row[8])
    st[S_DW, i] = np.int64(row[o])
    st[S_DB, i] = np.int64(row[o + 1])
    st[S_DT, i] = np.int64(row[o + 2])
    st[S_DS, i] = np.int64(row[o + 5])
    st[S_DI, i] = np.int64(row[o + 6])
    st[S_DCARDS, i] = np.int64(row[o + 8])
    st[S_HOSTILE, i] = np.int64(row[GLOBALS + 4] > 0.5)
    st[S_ACTIVE, i] = 1
    st[S_AVP, i] = 0
    st[S_DVP, i] = 0
    st[S_AMBUSH, i] = 0
    st[S_FOUGHT, i] = 0
    st[S_ACOLYTES, i] = 0


@inline
def _battle(
    st,
    i,
    high,
    low,
    a_vagabond,
    d_vagabond,
    d_lizards,
    guerrilla,
    a_extra,
    d_extra,
    a_tokens_first,
    d_tokens_first,
    corvid_plot,
    stop_when_cleared,
):
    """One battle of trial ``i`` given its two dice; every rule of §4 is here once.

    Branch-free: a campaign that is over (or has no one left to battle) runs the same arithmetic
    with zero hits and changes nothing, so callers may play extra battles after its end.
    """
    aw = st[S_AW, i]
    ab = st[S_AB, i]
    at = st[S_AT, i]
    a_items = st[S_AI, i]
    a_swords = st[S_AS, i]
    a_cards = st[S_ACARDS, i]
    dw = st[S_DW, i]
    db = st[S_DB, i]
    dt = st[S_DT, i]
    d_items = st[S_DI, i]
    d_swords = st[S_DS, i]
    d_cards = st[S_DCARDS, i]
    # A battle needs an attacker able to fight and a defender in the clearing.
    a_able = a_vagabond * np.int64(a_swords > 0) + (1 - a_vagabond) * np.int64(aw > 0)
    d_there = d_vagabond | np.int64(dw + db + dt > 0)
    go = st[S_ACTIVE, i] & a_able & d_there
    # 1. Ambush (2 hits before the roll), unless the attacker cancels it with its own ambush
    # card; both cards are spent.
    ambush = go & np.int64(d_cards > 0)
    cancelled = ambush & np.int64(a_cards > 0)
    d_cards -= ambush
    a_cards -= cancelled
    amb_w, amb_b, amb_t, amb_i, amb_s = _removal(
        2 * (ambush - cancelled), aw, ab, at, a_items, a_swords, a_tokens_first
    )
    aw -= amb_w
    ab -= amb_b
    at -= amb_t
    a_items -= amb_i
    a_swords -= amb_s
    # An ambush that leaves the attacker with no warriors ends the battle.
    rolls = go & (a_vagabond | np.int64(aw > 0))
    # 2. Roll: the higher die to the attacker, the lower to the defender; a defending Alliance
    # takes the higher (guerrilla war).
    a_roll = guerrilla * low + (1 - guerrilla) * high
    d_roll = high + low - a_roll
    # 3. Hit caps: warriors in the clearing (a Vagabond: undamaged swords).
    a_cap = a_vagabond * a_swords + (1 - a_vagabond) * aw
    d_cap = d_vagabond * d_swords + (1 - d_vagabond) * dw
    # 4. Extra hits ignore the cap: one to a defenceless defender (no warriors; a Vagabond: no
    # undamaged sword), cards, a face-down Corvid plot.
    defenceless = np.int64(d_cap == 0)
    plot = corvid_plot & np.int64(dt > 0)
    a_hits = rolls * (min(a_roll, a_cap) + a_extra + defenceless)
    d_hits = rolls * (min(d_roll, d_cap) + d_extra + plot)
    # 5. Removal, both sides at once.
    lw, lb, lt, li, ls = _removal(a_hits, dw, db, dt, d_items, d_swords, d_tokens_first)
    cw, cb, ct, ci, cs = _removal(d_hits, aw, ab, at, a_items, a_swords, a_tokens_first)
    dw -= lw
    db -= lb
    dt -= lt
    d_items -= li
    d_swords -= ls
    aw -= cw
    ab -= cb
    at -= ct
    a_items -= ci
    a_swords -= cs
    # 1 VP per enemy building or token removed; an attacking Vagabond scores 1 more per piece of
    # a hostile faction, and removing one of its warriors makes it hostile.
    hostile = st[S_HOSTILE, i]
    st[S_AVP, i] += lb + lt + a_vagabond * hostile * (lw + lb + lt)
    st[S_DVP, i] += amb_b + amb_t + cb + ct
    st[S_HOSTILE, i] = hostile | (a_vagabond & np.int64(lw > 0))
    st[S_ACOLYTES, i] += d_lizards * lw
    st[S_AMBUSH, i] += amb_w + amb_b + amb_t + amb_i + amb_s
    st[S_FOUGHT, i] += go
    # The campaign stops once the defender is defenceless, if told to.
    d_cap = d_vagabond * d_swords + (1 - d_vagabond) * dw
    st[S_ACTIVE, i] = rolls & (1 - stop_when_cleared * np.int64(d_cap == 0))
    st[S_AW, i] = aw
    st[S_AB, i] = ab
    st[S_AT, i] = at
    st[S_AI, i] = a_items
    st[S_AS, i] = a_swords
    st[S_ACARDS, i] = a_cards
    st[S_DW, i] = dw
    st[S_DB, i] = db
    st[S_DT, i] = dt
    st[S_DI, i] = d_items
    st[S_DS, i] = d_swords
    st[S_DCARDS, i] = d_cards


@inline
def _outcome(st, i, row, dst, j):
    """The metric values of trial ``i``'s finished campaign, into ``dst[:, j]``."""
    o = SIDE_WIDTH
    a_faction = np.int64(row[3])
    d_faction = np.int64(row[o + 3])
    garden = np.int64(row[GLOBALS + 1] > 0.5)
    d_vagabond = np.int64(d_faction == VAGABOND)
    aw = st[S_AW, i]
    ab = st[S_AB, i]
    dw = st[S_DW, i]
    db = st[S_DB, i]
    dt = st[S_DT, i]
    # Control: most warriors + buildings; a tie goes to nobody unless the Eyrie is in it; a
    # standing Lizard garden (the Lizards' last building) rules outright.
    a_presence = aw + ab
    d_presence = dw + db
    tie = np.int64(a_presence == d_presence)
    a_rules = np.int64(a_presence > d_presence) | (
        tie & np.int64(a_faction == EYRIE) & np.int64(a_presence > 0)
    )
    d_rules = np.int64(d_presence > a_presence) | (
        tie & np.int64(d_faction == EYRIE) & np.int64(d_presence > 0)
    )
    a_gardened = garden & np.int64(a_faction == LIZARDS) & np.int64(ab > 0)
    d_gardened = garden & np.int64(d_faction == LIZARDS) & np.int64(db > 0)
    a_rules = a_gardened | (a_rules & (1 - d_gardened))
    d_rules = d_gardened | (d_rules & (1 - a_gardened))
    dst[A_LOST, j] = np.int64(row[0]) - aw
    dst[D_LOST, j] = np.int64(row[o]) - dw
    dst[BUILDINGS, j] = np.int64(row[o + 1]) - db
    dst[TOKENS, j] = np.int64(row[o + 2]) - dt
    dst[A_VP, j] = st[S_AVP, i]
    dst[CLEARED, j] = (1 - d_vagabond) * np.int64(dw + db + dt == 0)
    dst[AMBUSH_HITS, j] = st[S_AMBUSH, i]
    dst[CONTROL, j] = 2 - 2 * a_rules - d_rules
    dst[D_VP, j] = st[S_DVP, i]
    dst[FOUGHT, j] = st[S_FOUGHT, i]
    dst[ACOLYTES, j] = st[S_ACOLYTES, i]
    dst[A_DAMAGED, j] = np.int64(row[5]) + np.int64(row[6]) - st[S_AI, i] - st[S_AS, i]
    dst[D_DAMAGED, j] = np.int64(row[o + 5]) + np.int64(row[o + 6]) - st[S_DI, i] - st[S_DS, i]


@inline
def _roll(x):
    """The (high, low) of a battle's two Root dice, each uniform on 0..3, from one word."""
    die1 = die_of(low32(x), 4) - 1
    die2 = die_of(high32(x), 4) - 1
    return max(die1, die2), min(die1, die2)


@kernel
def battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    st = np.zeros((N_STATE, 1), dtype=np.int64)
    end = first_trial + n_trials
    max_battles = np.int64(0)
    for v in range(n_variants):
        max_battles = max(max_battles, np.int64(packed[v, GLOBALS + 2]))
    tally_rolls = max_battles <= TALLY_MAX_BATTLES
    n_seq = ROLLS**max_battles if tally_rolls else 1
    tally = np.zeros(n_seq, dtype=np.int64)
    seq = np.zeros(BLOCK, dtype=np.int64)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        if tally_rolls:
            # Count each sequence of rolls; the campaigns are played once each, below.
            for i in range(m):
                seq[i] = 0
            for b in range(max_battles):
                base = word_base(key, start, b)
                for i in range(m):
                    high, low = _roll(block_word(base, i))
                    seq[i] = seq[i] * ROLLS + (high * (high + 1)) // 2 + low
            for i in range(m):
                tally[seq[i]] += 1
            continue
        for v in range(n_variants):
            row = packed[v]
            a_faction = np.int64(row[3])
            d_faction = np.int64(row[SIDE_WIDTH + 3])
            a_vagabond = np.int64(a_faction == VAGABOND)
            d_vagabond = np.int64(d_faction == VAGABOND)
            d_lizards = np.int64(d_faction == LIZARDS)
            guerrilla = np.int64(d_faction == ALLIANCE)
            a_extra = np.int64(row[4])
            d_extra = np.int64(row[SIDE_WIDTH + 4])
            a_tokens_first = np.int64(row[7])
            d_tokens_first = np.int64(row[SIDE_WIDTH + 7])
            corvid_plot = np.int64(row[GLOBALS] > 0.5)
            battles = np.int64(row[GLOBALS + 2])
            stop_when_cleared = np.int64(row[GLOBALS + 3] > 0.5)
            # Trial by trial, stopping at the end of each campaign (the state stays in L1).
            dst = values[v]
            for i in range(m):
                _start(st, 0, row)
                for b in range(battles):
                    high, low = _roll(word(key, start + i, b))
                    _battle(
                        st,
                        0,
                        high,
                        low,
                        a_vagabond,
                        d_vagabond,
                        d_lizards,
                        guerrilla,
                        a_extra,
                        d_extra,
                        a_tokens_first,
                        d_tokens_first,
                        corvid_plot,
                        stop_when_cleared,
                    )
                    if st[S_ACTIVE, 0] == 0:
                        break
                _outcome(st, 0, row, dst, i)
        accumulate_block(stats, values, m, hist_offset, hist_max)
    if tally_rolls:
        # Every variant reads the same words, so one roll sequence fixes every variant's outcome:
        # fold each distinct sequence once per variant, paired with variant 0 for the cross term.
        rows = np.zeros((N_METRICS, n_variants), dtype=np.int64)
        for q in range(n_seq):
            count = tally[q]
            if count == 0:
                continue
            for v in range(n_variants):
                row = packed[v]
                d_faction = np.int64(row[SIDE_WIDTH + 3])
                _start(st, 0, row)
                rest = q
                scale = n_seq // ROLLS
                for b in range(max_battles):
                    code = rest // scale
                    rest -= code * scale
                    scale //= ROLLS
                    if b >= np.int64(row[GLOBALS + 2]):
                        continue
                    _battle(
                        st,
                        0,
                        HIGH_OF[code],
                        LOW_OF[code],
                        np.int64(row[3] == VAGABOND),
                        np.int64(d_faction == VAGABOND),
                        np.int64(d_faction == LIZARDS),
                        np.int64(d_faction == ALLIANCE),
                        np.int64(row[4]),
                        np.int64(row[SIDE_WIDTH + 4]),
                        np.int64(row[7]),
                        np.int64(row[SIDE_WIDTH + 7]),
                        np.int64(row[GLOBALS] > 0.5),
                        np.int64(row[GLOBALS + 3] > 0.5),
                    )
                _outcome(st, 0, row, rows, v)
            for v in range(n_variants):
                accumulate_weighted(stats, v, rows[:, v], count, hist_offset, hist_max, rows[:, 0])
    return stats


def _finish(p: BattleParams, s: dict[str, int]) -> dict[str, int]:
    """The metric values of one finished campaign state (used by the exact enumeration)."""
    a, d = p.attacker, p.defender
    a_presence = s["aw"] + s["ab"]
    d_presence = s["dw"] + s["db"]
    if p.lizard_garden and a.faction == "lizards" and s["ab"] > 0:
        control = ATTACKER
    elif p.lizard_garden and d.faction == "lizards" and s["db"] > 0:
        control = DEFENDER
    elif a_presence != d_presence:
        control = ATTACKER if a_presence > d_presence else DEFENDER
    elif a_presence > 0 and "eyrie" in (a.faction, d.faction):
        control = ATTACKER if a.faction == "eyrie" else DEFENDER
    else:
        control = NOBODY
    return {
        "attacker_warriors_lost": a.warriors - s["aw"],
        "defender_warriors_lost": d.warriors - s["dw"],
        "buildings_removed": d.buildings - s["db"],
        "tokens_removed": d.tokens - s["dt"],
        "attacker_vp": s["a_vp"],
        "defender_cleared": int(d.faction != "vagabond" and s["dw"] + s["db"] + s["dt"] == 0),
        "ambush_hits": s["ambush_hits"],
        "control_after": control,
        "defender_vp": s["d_vp"],
        "battles_fought": s["fought"],
        "acolytes": s["acolytes"],
        "attacker_items_damaged": a.vagabond_items
        + a.vagabond_swords
        - s["a_items"]
        - s["a_swords"],
        "defender_items_damaged": d.vagabond_items
        + d.vagabond_swords
        - s["d_items"]
        - s["d_swords"],
    }


def _hits_taken(hits: int, s: dict[str, int], side: str, tokens_first: bool) -> dict[str, int]:
    """Pieces of ``side`` ('a' or 'd') lost to ``hits``, in removal order."""
    order = ["w", "t", "b"] if tokens_first else ["w", "b", "t"]
    lost = {}
    for kind in [*order, "items", "swords"]:
        k = side + kind if kind in ("w", "b", "t") else f"{side}_{kind}"
        lost[kind] = min(hits, s[k])
        hits -= lost[kind]
    return lost


def _battle_outcomes(p: BattleParams, s: dict[str, int]) -> list[tuple[Fraction, dict[str, int]]]:
    """The states after one more battle from state ``s``, with their probabilities."""
    a, d = p.attacker, p.defender
    a_vb, d_vb = a.faction == "vagabond", d.faction == "vagabond"
    s = dict(s)
    s["fought"] += 1
    dealt = 0
    if s["d_cards"] > 0:
        s["d_cards"] -= 1
        if s["a_cards"] > 0:
            s["a_cards"] -= 1
        else:
            dealt = 2
    lost = _hits_taken(dealt, s, "a", a.removes_first == "tokens")
    for kind, k in (
        ("w", "aw"),
        ("b", "ab"),
        ("t", "at"),
        ("items", "a_items"),
        ("swords", "a_swords"),
    ):
        s[k] -= lost[kind]
    s["ambush_hits"] += sum(lost.values())
    s["d_vp"] += lost["b"] + lost["t"]
    if not a_vb and s["aw"] == 0:
        return [(Fraction(1), s)]
    out = []
    for high in range(4):
        for low in range(4):
            if low > high:
                continue
            prob = Fraction(1 if low == high else 2, 16)
            a_roll, d_roll = (low, high) if d.faction == "alliance" else (high, low)
            a_hits = min(a_roll, s["a_swords"] if a_vb else s["aw"])
            d_hits = min(d_roll, s["d_swords"] if d_vb else s["dw"])
            defenceless = (s["d_swords"] if d_vb else s["dw"]) == 0
            a_hits += a.extra_hits + int(defenceless)
            d_hits += d.extra_hits + int(d.corvid_plot_face_down and s["dt"] > 0)
            n = dict(s)
            dl = _hits_taken(a_hits, s, "d", d.removes_first == "tokens")
            al = _hits_taken(d_hits, s, "a", a.removes_first == "tokens")
            for side, lost_ in (("d", dl), ("a", al)):
                for kind in ("w", "b", "t"):
                    n[side + kind] -= lost_[kind]
                n[f"{side}_items"] -= lost_["items"]
                n[f"{side}_swords"] -= lost_["swords"]
            n["a_vp"] += dl["b"] + dl["t"] + (dl["w"] + dl["b"] + dl["t"]) * (a_vb and s["hostile"])
            n["d_vp"] += al["b"] + al["t"]
            n["hostile"] = int(s["hostile"] or (a_vb and dl["w"] > 0))
            if d.faction == "lizards":
                n["acolytes"] += dl["w"]
            if p.stop_when_cleared and (n["d_swords"] if d_vb else n["dw"]) == 0:
                n["stopped"] = 1
            out.append((prob, n))
    return out


def outcomes(p: BattleParams) -> dict[tuple[tuple[str, int], ...], Fraction]:
    """Exact distribution of the metric values of a campaign (enumerating every roll)."""
    a, d = p.attacker, p.defender
    start = {
        "aw": a.warriors,
        "ab": a.buildings,
        "at": a.tokens,
        "a_items": a.vagabond_items,
        "a_swords": a.vagabond_swords,
        "a_cards": a.counter_ambush,
        "dw": d.warriors,
        "db": d.buildings,
        "dt": d.tokens,
        "d_items": d.vagabond_items,
        "d_swords": d.vagabond_swords,
        "d_cards": d.ambush,
        "hostile": int(a.hostile),
        "a_vp": 0,
        "d_vp": 0,
        "ambush_hits": 0,
        "fought": 0,
        "acolytes": 0,
        "stopped": 0,
    }
    states: dict[tuple[tuple[str, int], ...], Fraction] = {tuple(start.items()): Fraction(1)}
    for _ in range(p.battles):
        nxt: dict[tuple[tuple[str, int], ...], Fraction] = {}
        for key, prob in states.items():
            s = dict(key)
            can_fight = s["a_swords"] > 0 if a.faction == "vagabond" else s["aw"] > 0
            there = d.faction == "vagabond" or s["dw"] + s["db"] + s["dt"] > 0
            if s["stopped"] or not (can_fight and there):
                nxt[key] = nxt.get(key, Fraction(0)) + prob
                continue
            for q, n in _battle_outcomes(p, s):
                k = tuple(n.items())
                nxt[k] = nxt.get(k, Fraction(0)) + prob * q
        states = nxt
    dist: dict[tuple[tuple[str, int], ...], Fraction] = {}
    for key, prob in states.items():
        k = tuple(_finish(p, dict(key)).items())
        dist[k] = dist.get(k, Fraction(0)) + prob
    return dist


def exact(p: BattleParams) -> dict[str, float]:
    """Exact means of every metric, by enumerating the 16 equally likely rolls of each battle."""
    means: dict[str, Fraction] = {}
    for key, prob in outcomes(p).items():
        for name, value in key:
            means[name] = means.get(name, Fraction(0)) + prob * value
    return {name: float(x) for name, x in means.items()}


PROCEDURE = Procedure(
    name="root.battle",
    title="Root battle with every faction's battle rules",
    rules="RULES.md §4",
    params_model=BattleParams,
    metrics=metrics,
    pack=pack,
    kernel=battle_kernel,
    exact=exact,
    example={
        "attacker": {"warriors": 6, "faction": "marquise"},
        "defender": {"warriors": 3, "buildings": 1, "faction": "eyrie"},
        "battles": 3,
    },
    notes=(
        "assumption: the owner removes tokens before buildings after its warriors (removes_first)",
        "assumption: a defender plays one ambush card per battle while it holds any; the "
        "attacker cancels each with its own while it holds any",
        "assumption: a Vagabond damages its other items before its swords",
        "assumption: a Lizard garden and a face-down Corvid plot are their owner's last "
        "building/token to go",
        "a faction becomes hostile to an attacking Vagabond after the battle that removes one "
        "of its warriors (its +1 VP per piece starts from the next battle)",
    ),
)
