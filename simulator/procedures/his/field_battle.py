"""Here I Stand field battle (Here I Stand rules §5.4).

Each side rolls ``units + leader`` dice, the defender ``defender_extra_dice`` more; a die at or
above ``hit_on`` is a hit. Each side loses units equal to the other's hits. Fewer hits loses; a tie
goes to ``ties_to`` (the defender by the rules). If both sides are wiped out the winner keeps one
unit. The loser then retreats (Here I Stand rules §5.4 ⑤): into a space it does not control, it is
destroyed (``attacker_retreats_to``, ``defender_retreats_to`` say where each side would go); a
beaten defender in a fortified space may first withdraw up to 4 units inside (§5.6,
``fortress_withdraw``). A side with no units left after the battle and its retreat has its leader
captured: a leader rated 0 is a leader too (``"none"`` means no leader). The attacker fights
with one formation (Here I Stand rules §5.2, §5.4): at most 4 units without a leader, at most its
leaders' command rating with them; ``sim validate`` refuses a larger one, and a sweep marks it
illegal, unless ``formation_cap`` is off (a house rule). The defender fights with every unit in
the space.

Only each side's number of hits matters, so the kernel draws it directly: one random word per side,
inverted through the exact binomial distribution of hits (thresholds computed in integers). This
has the distribution of rolling the dice one by one (to within 2**-64, finer than the 2**-32 of a
die read from half a word), reads 2 words per battle instead of one per two dice, and couples
variants monotonically: the same word gives at least as many hits with more dice, so variant
differences are measured on shared streams with the least noise.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Literal

import numpy as np
from pydantic import Field

from simulator.accumulate import (
    BLOCK,
    accumulate_block,
    accumulate_weighted,
    block_count,
    new_stats,
    trial_block,
)
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.base import (
    Alternative,
    Assumption,
    Metric,
    Params,
    Procedure,
    rulebook,
    settings,
)
from simulator.procedures.his._leaders import (
    Leader,
    command_field,
    formation_cap_field,
    formation_problems,
    leader_field,
    present,
    rating,
)
from simulator.procedures.his._rules import cite
from simulator.rng import block_word, word_base

MAX_UNITS = 40
MAX_LEADER = 6
MAX_EXTRA = 5

#: Word indices of the attacker's and the defender's hit draws. Fixed, so a variant that changes
#: one side leaves the other side's draw as it was (common random numbers).
ATTACKER_WORD = 0
DEFENDER_WORD = 1

#: Single-variant runs tally (attacker hits, defender hits) pairs and fold each once per chunk.
MAX_HITS = MAX_UNITS + MAX_LEADER + MAX_EXTRA

#: Units a beaten defender may withdraw into a fortress of the battle space (§5.6).
MAX_WITHDRAW = 4

#: Packed row: the scalars, then each side's hit thresholds T[0..dice] as (high 32 bits, low 32
#: bits) pairs, padded with zeros to MAX_HITS + 1 pairs.
PACKED = Layout(
    "attacker_units",
    "attacker_rating",
    "defender_units",
    "defender_rating",
    "defender_extra_dice",
    "hit_on",
    "ties_to_attacker",
    "attacker_dice",
    "defender_dice",
    "attacker_has_leader",
    "defender_has_leader",
    "attacker_retreat_destroys",
    "defender_retreat_destroys",
    "fortress_withdraw",
    "retreat_captures_leaders",
    ("attacker_thresholds", 2 * (MAX_HITS + 1)),
    ("defender_thresholds", 2 * (MAX_HITS + 1)),
)
ATTACKER_UNITS, DEFENDER_UNITS = PACKED.at("attacker_units"), PACKED.at("defender_units")
TIES_TO_ATTACKER = PACKED.at("ties_to_attacker")
ATTACKER_DICE, DEFENDER_DICE = PACKED.at("attacker_dice"), PACKED.at("defender_dice")
ATTACKER_HAS_LEADER = PACKED.at("attacker_has_leader")
DEFENDER_HAS_LEADER = PACKED.at("defender_has_leader")
ATTACKER_RETREAT_DESTROYS = PACKED.at("attacker_retreat_destroys")
DEFENDER_RETREAT_DESTROYS = PACKED.at("defender_retreat_destroys")
FORTRESS_WITHDRAW = PACKED.at("fortress_withdraw")
RETREAT_CAPTURES_LEADERS = PACKED.at("retreat_captures_leaders")
ATTACKER_THRESHOLDS = PACKED.at("attacker_thresholds")
DEFENDER_THRESHOLDS = PACKED.at("defender_thresholds")

#: The metric row, in the order of metrics().
METRICS = Layout(
    "attacker_wins",
    "attacker_hits",
    "defender_hits",
    "attacker_units_left",
    "defender_units_left",
    "attacker_leader_captured",
    "defender_leader_captured",
    "both_wiped_out",
    "attacker_units_after_retreat",
    "defender_units_after_retreat",
    "defender_units_in_fortress",
    "attacker_destroyed_in_retreat",
    "defender_destroyed_in_retreat",
)
N_METRICS = METRICS.size
ATTACKER_WINS, ATTACKER_HITS, DEFENDER_HITS = (
    METRICS.at(n) for n in ("attacker_wins", "attacker_hits", "defender_hits")
)
ATTACKER_UNITS_LEFT = METRICS.at("attacker_units_left")
DEFENDER_UNITS_LEFT = METRICS.at("defender_units_left")
ATTACKER_LEADER_CAPTURED = METRICS.at("attacker_leader_captured")
DEFENDER_LEADER_CAPTURED = METRICS.at("defender_leader_captured")
BOTH_WIPED_OUT = METRICS.at("both_wiped_out")
ATTACKER_UNITS_AFTER_RETREAT = METRICS.at("attacker_units_after_retreat")
DEFENDER_UNITS_AFTER_RETREAT = METRICS.at("defender_units_after_retreat")
DEFENDER_UNITS_IN_FORTRESS = METRICS.at("defender_units_in_fortress")
ATTACKER_DESTROYED_IN_RETREAT = METRICS.at("attacker_destroyed_in_retreat")
DEFENDER_DESTROYED_IN_RETREAT = METRICS.at("defender_destroyed_in_retreat")

Retreat = Literal["controlled", "uncontrolled"]


class Army(Params):
    units: int = Field(ge=1, le=MAX_UNITS, description="land units in the battle (cavalry counts)")
    leader: Leader = leader_field()
    command: int | None = command_field()


class FieldBattleParams(Params):
    attacker: Army = Field(description="the moving army")
    defender: Army = Field(description="the army in the space")
    defender_extra_dice: int = Field(
        default=1, ge=0, le=MAX_EXTRA, description="extra dice of the defender (1 by the rules)"
    )
    hit_on: int = Field(default=5, ge=2, le=6, description="lowest d6 face that scores a hit")
    ties_to: Literal["defender", "attacker"] = Field(
        default="defender", description="who wins when both sides score the same hits"
    )
    formation_cap: bool = formation_cap_field()
    attacker_retreats_to: Retreat = Field(
        default="controlled",
        description="the space a beaten attacker retreats to, the one it came from (Here I Stand "
        "rules §5.4 ⑤): controlled by the attacker, or not (its units left are destroyed)",
    )
    defender_retreats_to: Retreat = Field(
        default="controlled",
        description="the space a beaten defender retreats to (adjacent, not the attacker's "
        "origin, no enemy units; Here I Stand rules §5.4 ⑤): controlled by the defender, or "
        "uncontrolled when it has no such space (the units retreating are destroyed)",
    )
    fortress_withdraw: int = Field(
        default=0,
        ge=0,
        le=MAX_WITHDRAW,
        description="units a beaten defender withdraws into a fortress of the battle space "
        "before retreating the rest (Here I Stand rules §5.6: at most 4): 0 when the space is "
        "not fortified or the defender keeps every unit in the field",
    )
    leaders_destroyed_in_retreat: Literal["captured", "escape"] = Field(
        default="captured",
        description="the leaders of an army destroyed in its retreat: captured (§5.4 ⑥ read "
        "after ⑤: the side has lost all its units; a reading), or they escape",
    )

    @property
    def attacker_dice(self) -> int:
        return self.attacker.units + rating(self.attacker.leader)

    @property
    def defender_dice(self) -> int:
        return self.defender.units + rating(self.defender.leader) + self.defender_extra_dice


def forbidden(p: FieldBattleParams) -> list[tuple[tuple[str | int, ...], str, object]]:
    """The attacking formation above its cap (Here I Stand rules §5.2; §5.4: one formation
    attacks)."""
    if not p.formation_cap:
        return []
    a = p.attacker
    return formation_problems("attacker", a.units, a.leader, a.command, "attacks")


def metrics(p: FieldBattleParams) -> list[Metric]:
    return [
        Metric("attacker_wins", "proportion", "the attacker scores more hits (ties as ties_to)"),
        Metric("attacker_hits", "mean", "hits rolled by the attacker", headline=False),
        Metric("defender_hits", "mean", "hits rolled by the defender", headline=False),
        Metric(
            "attacker_units_left",
            "distribution",
            "attacker units after the battle",
            max_value=p.attacker.units,
            headline=False,
        ),
        Metric(
            "defender_units_left",
            "distribution",
            "defender units after the battle",
            max_value=p.defender.units,
            headline=False,
        ),
        Metric(
            "attacker_leader_captured",
            "proportion",
            "the attacker has a leader and no units left after the battle and its retreat",
            headline=False,
        ),
        Metric(
            "defender_leader_captured",
            "proportion",
            "the defender has a leader and no units left after the battle, its retreat and its "
            "withdrawal",
            headline=False,
        ),
        Metric(
            "both_wiped_out",
            "proportion",
            "the hits remove every unit of both sides (the winner then keeps one)",
            headline=False,
        ),
        Metric(
            "attacker_units_after_retreat",
            "mean",
            "attacker units after the loser's retreat (0 if beaten and retreating into a space "
            "it does not control)",
            headline=False,
        ),
        Metric(
            "defender_units_after_retreat",
            "mean",
            "defender units after the loser's retreat: in the field, retreated to a space it "
            "controls, or withdrawn into the fortress",
            headline=False,
        ),
        Metric(
            "defender_units_in_fortress",
            "mean",
            "units of a beaten defender withdrawn into the fortress (besieged)",
            headline=False,
        ),
        Metric(
            "attacker_destroyed_in_retreat",
            "proportion",
            "the beaten attacker had units left and retreated into a space it does not control",
            headline=False,
        ),
        Metric(
            "defender_destroyed_in_retreat",
            "proportion",
            "the beaten defender had units left outside the fortress and retreated into a space "
            "it does not control",
            headline=False,
        ),
    ]


def hit_thresholds(dice: int, hit_on: int) -> list[int]:
    """``T[k] = floor(2**64 * P(fewer than k hits))`` for k = 0..dice, in exact integers.

    A uniform 64-bit word ``u`` then gives ``#{k >= 1 : u >= T[k]}`` hits, which is at least k
    with probability ``P(at least k hits)`` (to within 2**-64).
    """
    p = Fraction(7 - hit_on, 6)
    below = Fraction(0)
    out = []
    for k in range(dice + 1):
        out.append(int(below * 2**64))  # floor: the value is non-negative
        below += comb(dice, k) * p**k * (1 - p) ** (dice - k)
    return out


def threshold_halves(thresholds: list[int], pairs: int = MAX_HITS + 1) -> list[int]:
    """Each threshold as (high 32 bits, low 32 bits), padded with zeros to ``pairs`` pairs (a
    float64 holds each 32-bit half exactly)."""
    halves = [0] * (2 * pairs)
    for k, t in enumerate(thresholds):
        halves[2 * k], halves[2 * k + 1] = t >> 32, t & 0xFFFFFFFF
    return halves


def pack(p: FieldBattleParams) -> np.ndarray:
    return PACKED.row(
        attacker_units=p.attacker.units,
        attacker_rating=rating(p.attacker.leader),
        defender_units=p.defender.units,
        defender_rating=rating(p.defender.leader),
        defender_extra_dice=p.defender_extra_dice,
        hit_on=p.hit_on,
        ties_to_attacker=1 if p.ties_to == "attacker" else 0,
        attacker_dice=p.attacker_dice,
        defender_dice=p.defender_dice,
        attacker_has_leader=1 if present(p.attacker.leader) else 0,
        defender_has_leader=1 if present(p.defender.leader) else 0,
        attacker_retreat_destroys=1 if p.attacker_retreats_to == "uncontrolled" else 0,
        defender_retreat_destroys=1 if p.defender_retreats_to == "uncontrolled" else 0,
        fortress_withdraw=p.fortress_withdraw,
        retreat_captures_leaders=p.leaders_destroyed_in_retreat == "captured",
        attacker_thresholds=threshold_halves(hit_thresholds(p.attacker_dice, p.hit_on)),
        defender_thresholds=threshold_halves(hit_thresholds(p.defender_dice, p.hit_on)),
    )


@inline
def _thresholds(packed, v, offset, dice, out):
    for k in range(dice + 1):
        hi = np.uint64(packed[v, offset + 2 * k])
        lo = np.uint64(packed[v, offset + 2 * k + 1])
        out[k] = (hi << np.uint64(32)) | lo


@inline
def _draw_hits(hits, key, first, m, word_index, thresholds, dice):
    """Hits of ``dice`` dice for trials first..first+m-1: one word each, inverted through the
    binomial thresholds. The loop over trials is innermost so it vectorises."""
    base = word_base(key, first, word_index)
    words = np.empty(m, dtype=np.uint64)
    for i in range(m):
        words[i] = block_word(base, i)
        hits[i] = 0
    for k in range(1, dice + 1):
        t = thresholds[k]
        for i in range(m):
            hits[i] += np.int64(words[i] >= t)


@inline
def _result(ah, dh, sides, out):
    """The battle's metric values for ``ah`` attacker hits and ``dh`` defender hits (§5.4).

    ``sides``: attacker units, defender units, ties to the attacker, attacker has a leader,
    defender has a leader, attacker's retreat destroys, defender's retreat destroys, units the
    defender withdraws into a fortress, leaders of an army destroyed in its retreat captured (read
    from the packed row by :func:`_sides`)."""
    a_units, d_units, ties_to_attacker = sides[0], sides[1], sides[2]
    a_has_leader, d_has_leader = sides[3], sides[4]
    a_retreat_destroys, d_retreat_destroys, withdraw = sides[5], sides[6], sides[7]
    retreat_captures = sides[8] > 0
    a_left = max(a_units - dh, 0)
    d_left = max(d_units - ah, 0)
    wins = ah > dh or (ah == dh and ties_to_attacker > 0)
    both = a_left == 0 and d_left == 0
    if both:  # both wiped out: the winner keeps one unit
        if wins:
            a_left = 1
        else:
            d_left = 1
    # §5.4 ⑤: the loser retreats; into a space it does not control it is destroyed. §5.6: a
    # beaten defender in a fortified space may withdraw up to 4 units inside first.
    a_after, d_after, inside = a_left, d_left, 0
    a_destroyed, d_destroyed = False, False
    if wins:
        inside = min(d_left, withdraw)
        if d_retreat_destroys > 0 and d_left > inside:
            d_destroyed = True
            d_after = inside
    elif a_retreat_destroys > 0 and a_left > 0:
        a_destroyed = True
        a_after = 0
    out[ATTACKER_WINS] = wins
    out[ATTACKER_HITS] = ah
    out[DEFENDER_HITS] = dh
    out[ATTACKER_UNITS_LEFT] = a_left
    out[DEFENDER_UNITS_LEFT] = d_left
    # ⑥: no units left after the dice, or (a reading) after a retreat that destroyed the rest.
    a_gone = a_left == 0 or (a_destroyed and retreat_captures)
    d_gone = d_left == 0 or (d_destroyed and inside == 0 and retreat_captures)
    out[ATTACKER_LEADER_CAPTURED] = a_gone and a_has_leader > 0
    out[DEFENDER_LEADER_CAPTURED] = d_gone and d_has_leader > 0
    out[BOTH_WIPED_OUT] = both
    out[ATTACKER_UNITS_AFTER_RETREAT] = a_after
    out[DEFENDER_UNITS_AFTER_RETREAT] = d_after
    out[DEFENDER_UNITS_IN_FORTRESS] = inside
    out[ATTACKER_DESTROYED_IN_RETREAT] = a_destroyed
    out[DEFENDER_DESTROYED_IN_RETREAT] = d_destroyed


@inline
def _sides(packed, v, sides):
    """The scalars :func:`_result` reads, from variant ``v``'s packed row."""
    sides[0] = np.int64(packed[v, ATTACKER_UNITS])
    sides[1] = np.int64(packed[v, DEFENDER_UNITS])
    sides[2] = np.int64(packed[v, TIES_TO_ATTACKER] > 0.5)
    sides[3] = np.int64(packed[v, ATTACKER_HAS_LEADER])
    sides[4] = np.int64(packed[v, DEFENDER_HAS_LEADER])
    sides[5] = np.int64(packed[v, ATTACKER_RETREAT_DESTROYS])
    sides[6] = np.int64(packed[v, DEFENDER_RETREAT_DESTROYS])
    sides[7] = np.int64(packed[v, FORTRESS_WITHDRAW])
    sides[8] = np.int64(packed[v, RETREAT_CAPTURES_LEADERS] > 0.5)


@kernel
def field_battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    a_thr = np.zeros((n_variants, MAX_HITS + 1), dtype=np.uint64)
    d_thr = np.zeros((n_variants, MAX_HITS + 1), dtype=np.uint64)
    for v in range(n_variants):
        _thresholds(packed, v, ATTACKER_THRESHOLDS, np.int64(packed[v, ATTACKER_DICE]), a_thr[v])
        _thresholds(packed, v, DEFENDER_THRESHOLDS, np.int64(packed[v, DEFENDER_DICE]), d_thr[v])
    a_hits = np.zeros((n_variants, BLOCK), dtype=np.int64)
    d_hits = np.zeros((n_variants, BLOCK), dtype=np.int64)
    row = np.zeros(N_METRICS, dtype=np.int64)
    sides = np.zeros(9, dtype=np.int64)
    # One variant: tally (attacker hits, defender hits) and fold each pair once at the end.
    # Several: per-trial values, so that cross terms with variant 0 pair up trial by trial.
    single = n_variants == 1
    tally = np.zeros((MAX_HITS + 1, MAX_HITS + 1), dtype=np.int64)
    values = np.zeros((n_variants, N_METRICS, BLOCK if not single else 1), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            a_dice = np.int64(packed[v, ATTACKER_DICE])
            d_dice = np.int64(packed[v, DEFENDER_DICE])
            _draw_hits(a_hits[v], key, start, m, ATTACKER_WORD, a_thr[v], a_dice)
            _draw_hits(d_hits[v], key, start, m, DEFENDER_WORD, d_thr[v], d_dice)
        if single:
            for i in range(m):
                tally[a_hits[0, i], d_hits[0, i]] += 1
            continue
        for v in range(n_variants):
            _sides(packed, v, sides)
            for i in range(m):
                _result(a_hits[v, i], d_hits[v, i], sides, row)
                for k in range(N_METRICS):
                    values[v, k, i] = row[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    if single:
        _sides(packed, 0, sides)
        for ah in range(np.int64(packed[0, ATTACKER_DICE]) + 1):
            for dh in range(np.int64(packed[0, DEFENDER_DICE]) + 1):
                c = tally[ah, dh]
                if c > 0:
                    _result(ah, dh, sides, row)
                    accumulate_weighted(stats, 0, row, c, hist_offset, hist_max, row)
    return stats


def exact(p: FieldBattleParams) -> dict[str, float]:
    """Exact values: the two sides' hits are independent binomials. Written out again here, not
    shared with the kernel, so that the two check each other."""
    from scipy.stats import binom

    prob = (7 - p.hit_on) / 6
    # §5.4 ②: units + one leader's battle rating; the defender one die more. Read here from
    # the rule text, not through the properties that pack the kernel's inputs.
    a_lead = 0 if p.attacker.leader == "none" else p.attacker.leader
    d_lead = 0 if p.defender.leader == "none" else p.defender.leader
    na = p.attacker.units + a_lead
    nd = p.defender.units + d_lead + p.defender_extra_dice
    pa = binom.pmf(np.arange(na + 1), na, prob)
    pd = binom.pmf(np.arange(nd + 1), nd, prob)
    out = dict.fromkeys([m.name for m in metrics(p)], 0.0)
    for ah in range(na + 1):
        for dh in range(nd + 1):
            w = pa[ah] * pd[dh]
            a_left = max(p.attacker.units - dh, 0)
            d_left = max(p.defender.units - ah, 0)
            wins = ah > dh or (ah == dh and p.ties_to == "attacker")
            both = a_left == 0 and d_left == 0
            if both:
                a_left, d_left = (1, 0) if wins else (0, 1)
            out["both_wiped_out"] += w * both
            out["attacker_wins"] += w * wins
            out["attacker_units_left"] += w * a_left
            out["defender_units_left"] += w * d_left
            # ⑤ the loser retreats: a beaten defender first withdraws up to fortress_withdraw
            # units into the fortress (§5.6); retreating into a space it does not control
            # destroys what retreats.
            a_after, d_after, inside = a_left, d_left, 0
            if wins:
                inside = min(d_left, p.fortress_withdraw)
                if p.defender_retreats_to == "uncontrolled" and d_left > inside:
                    out["defender_destroyed_in_retreat"] += w
                    d_after = inside
            elif p.attacker_retreats_to == "uncontrolled" and a_left > 0:
                out["attacker_destroyed_in_retreat"] += w
                a_after = 0
            out["attacker_units_after_retreat"] += w * a_after
            out["defender_units_after_retreat"] += w * d_after
            out["defender_units_in_fortress"] += w * inside
            a_has, d_has = p.attacker.leader != "none", p.defender.leader != "none"
            # ⑥: no units left; after a retreat that destroyed the rest too, unless they escape.
            escape = p.leaders_destroyed_in_retreat == "escape"
            a_gone = a_left == 0 or (a_after == 0 and not escape)
            d_gone = d_left == 0 or (d_after == 0 and not escape)
            out["attacker_leader_captured"] += w * (a_gone and a_has)
            out["defender_leader_captured"] += w * (d_gone and d_has)
    out["attacker_hits"] = na * prob
    out["defender_hits"] = nd * prob
    return out


ASSUMPTIONS = (
    Assumption(
        name="captured_after_retreat",
        tag="reading",
        rule=cite("5.4 ⑤ ⑥"),
        knob="leaders_destroyed_in_retreat",
        text="an army destroyed in its retreat (⑤) has lost all its units, so its leaders are "
        "captured (⑥ read after ⑤); units_left counts the units right after the dice, "
        "units_after_retreat after the retreat and the withdrawal into a fortress (§5.6)",
        alternatives=(
            Alternative("leaders escape a retreat", {"leaders_destroyed_in_retreat": "escape"}),
        ),
        fires=("attacker_destroyed_in_retreat", "defender_destroyed_in_retreat"),
    ),
)

#: Where a retreat knob's values differ: the trials in which a beaten side retreats with units.
FIRES: dict[str, tuple[str, ...] | dict[str, tuple[str, ...]]] = {
    "attacker_retreats_to": ("attacker_destroyed_in_retreat",),
    "defender_retreats_to": ("defender_destroyed_in_retreat",),
}


PROCEDURE = Procedure(
    name="his.field_battle",
    title="Here I Stand field battle",
    rules="Here I Stand rules §5.2, §5.4 (docs/rules/here-i-stand.md#s5-4)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings(
            "attacker",
            "defender",
            "attacker_retreats_to",
            "defender_retreats_to",
            "fortress_withdraw",
        ),
        *rulebook(cite("5.4"), "defender_extra_dice", "hit_on", "ties_to"),
        *rulebook(cite("5.2"), "formation_cap"),
    ),
    params_model=FieldBattleParams,
    metrics=metrics,
    pack=pack,
    kernel=field_battle_kernel,
    exact=exact,
    forbidden=forbidden,
    fires=FIRES,
    notes=(
        'a leader rated 0 is a leader (captured with its last unit); "none" for no leader',
        "one formation attacks (Here I Stand rules §5.2, §5.4): at most 4 units without a leader, "
        "at most the command rating with leaders (one leader's, or the two highest summed; not "
        "checked when no command rating is given); knob formation_cap (default true, the "
        "rulebook; false: house rule); the defender fights with every unit",
        "knob ties_to (default defender: a tie is lost by the attacker, Here I Stand rules §5.4 ⑤)",
        "after the dice (Here I Stand rules §5.4 ⑤, §5.6): attacker_retreats_to and "
        "defender_retreats_to say whether the loser's retreat space is one it controls "
        "(default) or not (destroyed); "
        "fortress_withdraw puts up to 4 of a beaten defender's units inside a fortress; "
        "units_left is counted after the dice, units_after_retreat after all of it",
    ),
    example={
        "attacker": {"units": 4, "leader": 2, "command": 6},
        "defender": {"units": 3, "leader": "none"},
    },
)
