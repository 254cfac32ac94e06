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

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import die_of, high32, low32, word

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
    """5. Removal of ``hits``: warriors first, then tokens and buildings in the owner's order; a
    Vagabond (no warriors, buildings or tokens) damages its other items before its swords.
    Returns the (warriors, buildings, tokens, items, swords) lost."""
    lw = min(hits, warriors)
    r = hits - lw
    if tokens_first:
        lt = min(r, tokens)
        lb = min(r - lt, buildings)
    else:
        lb = min(r, buildings)
        lt = min(r - lb, tokens)
    r -= lb + lt
    li = min(r, items)
    ls = min(r - li, swords)
    return lw, lb, lt, li, ls


@kernel
def battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            row = packed[v]
            aw0 = np.int64(row[0])
            ab0 = np.int64(row[1])
            at0 = np.int64(row[2])
            a_faction = np.int64(row[3])
            a_extra = np.int64(row[4])
            as0 = np.int64(row[5])
            ai0 = np.int64(row[6])
            a_tokens_first = row[7] > 0.5
            a_cards0 = np.int64(row[8])
            o = SIDE_WIDTH
            dw0 = np.int64(row[o])
            db0 = np.int64(row[o + 1])
            dt0 = np.int64(row[o + 2])
            d_faction = np.int64(row[o + 3])
            d_extra = np.int64(row[o + 4])
            ds0 = np.int64(row[o + 5])
            di0 = np.int64(row[o + 6])
            d_tokens_first = row[o + 7] > 0.5
            d_cards0 = np.int64(row[o + 8])
            corvid_plot = np.int64(row[GLOBALS])
            garden = row[GLOBALS + 1] > 0.5
            battles = np.int64(row[GLOBALS + 2])
            stop_when_cleared = row[GLOBALS + 3] > 0.5
            hostile0 = row[GLOBALS + 4] > 0.5
            a_vagabond = a_faction == VAGABOND
            d_vagabond = d_faction == VAGABOND
            # Guerrilla war: a defending Alliance takes the higher die.
            guerrilla = d_faction == ALLIANCE
            for i in range(m):
                t = start + i
                aw, ab, at, a_swords, a_items, a_cards = aw0, ab0, at0, as0, ai0, a_cards0
                dw, db, dt, d_swords, d_items, d_cards = dw0, db0, dt0, ds0, di0, d_cards0
                hostile = hostile0
                a_vp = np.int64(0)
                d_vp = np.int64(0)
                ambush_hits = np.int64(0)
                fought = np.int64(0)
                acolytes = np.int64(0)
                for b in range(battles):
                    attacker_can_fight = (a_swords > 0) if a_vagabond else (aw > 0)
                    defender_there = d_vagabond or (dw + db + dt > 0)
                    if not (attacker_can_fight and defender_there):
                        break
                    fought += 1
                    # 1. Ambush, unless the attacker cancels it with its own ambush card.
                    ambush_dealt = np.int64(0)
                    if d_cards > 0:
                        d_cards -= 1
                        if a_cards > 0:
                            a_cards -= 1
                        else:
                            ambush_dealt = np.int64(2)
                    amb_w, amb_b, amb_t, amb_i, amb_s = _removal(
                        ambush_dealt, aw, ab, at, a_items, a_swords, a_tokens_first
                    )
                    aw -= amb_w
                    ab -= amb_b
                    at -= amb_t
                    a_items -= amb_i
                    a_swords -= amb_s
                    ambush_hits += amb_w + amb_b + amb_t + amb_i + amb_s
                    # An ambush that leaves the attacker with no warriors ends the battle.
                    rolls = a_vagabond or aw > 0
                    # 2. Roll: the higher die to the attacker, the lower to the defender; a
                    # defending Alliance takes the higher (guerrilla war).
                    x = word(key, t, b)
                    die1 = die_of(low32(x), 4) - 1
                    die2 = die_of(high32(x), 4) - 1
                    high = max(die1, die2)
                    low = min(die1, die2)
                    a_roll = low if guerrilla else high
                    d_roll = high if guerrilla else low
                    # 3. Hit caps: warriors in the clearing (a Vagabond: undamaged swords).
                    a_hits = min(a_roll, a_swords if a_vagabond else aw)
                    d_hits = min(d_roll, d_swords if d_vagabond else dw)
                    # 4. Extra hits ignore the cap: a defenceless defender takes one more (no
                    # warriors; a Vagabond: no undamaged sword); cards; a face-down Corvid plot.
                    defenceless = (d_swords == 0) if d_vagabond else (dw == 0)
                    a_hits += a_extra + np.int64(defenceless)
                    d_hits += d_extra + np.int64(corvid_plot > 0 and dt > 0)
                    if not rolls:
                        a_hits = np.int64(0)
                        d_hits = np.int64(0)
                    # 5. Removal, both sides at once.
                    lw, lb, lt, li, ls = _removal(
                        a_hits, dw, db, dt, d_items, d_swords, d_tokens_first
                    )
                    dw -= lw
                    db -= lb
                    dt -= lt
                    d_items -= li
                    d_swords -= ls
                    if d_faction == LIZARDS:
                        acolytes += lw
                    cw, cb, ct, ci, cs = _removal(
                        d_hits, aw, ab, at, a_items, a_swords, a_tokens_first
                    )
                    aw -= cw
                    ab -= cb
                    at -= ct
                    a_items -= ci
                    a_swords -= cs
                    # 1 VP per enemy building or token removed; a Vagabond battling a hostile
                    # faction scores 1 more per piece, and removing a warrior makes it hostile.
                    a_vp += lb + lt
                    d_vp += amb_b + amb_t + cb + ct
                    if a_vagabond and hostile:
                        a_vp += lw + lb + lt
                    if a_vagabond and lw > 0:
                        hostile = True
                    if stop_when_cleared and ((d_swords == 0) if d_vagabond else (dw == 0)):
                        break
                # Control: most warriors + buildings; the Eyrie wins ties it is in; a Lizard
                # garden (the Lizards' last building) gives the Lizards the clearing.
                a_presence = aw + ab
                d_presence = dw + db
                if garden and a_faction == LIZARDS and ab > 0:
                    control = ATTACKER
                elif garden and d_faction == LIZARDS and db > 0:
                    control = DEFENDER
                elif a_presence > d_presence:
                    control = ATTACKER
                elif d_presence > a_presence:
                    control = DEFENDER
                elif a_presence > 0 and a_faction == EYRIE:
                    control = ATTACKER
                elif d_presence > 0 and d_faction == EYRIE:
                    control = DEFENDER
                else:
                    control = NOBODY
                values[v, A_LOST, i] = aw0 - aw
                values[v, D_LOST, i] = dw0 - dw
                values[v, BUILDINGS, i] = db0 - db
                values[v, TOKENS, i] = dt0 - dt
                values[v, A_VP, i] = a_vp
                values[v, CLEARED, i] = (not d_vagabond) and dw + db + dt == 0
                values[v, AMBUSH_HITS, i] = ambush_hits
                values[v, CONTROL, i] = control
                values[v, D_VP, i] = d_vp
                values[v, FOUGHT, i] = fought
                values[v, ACOLYTES, i] = acolytes
                values[v, A_DAMAGED, i] = ai0 + as0 - a_items - a_swords
                values[v, D_DAMAGED, i] = di0 + ds0 - d_items - d_swords
        accumulate_block(stats, values, m, hist_offset, hist_max)
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
