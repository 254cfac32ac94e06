"""Here I Stand assault on a besieged fortress, and siege campaigns of repeated assaults (Here I
Stand rules §5.6, §5.7).

Cavalry take losses but add no dice in any assault (Here I Stand rules §11.1 ①, without condition).
While defenders are present the attacker rolls ``ceil((units - cavalry) / 2) + leader`` dice;
against an empty fortress it rolls ``units - cavalry + leader``. The defender rolls ``units + leader
+ defender_extra_dice``. A die at or above ``hit_on`` hits, and each side loses units equal to the
other's hits (the attacker loses cavalry first when ``lose_cavalry_first``). The space falls when
the defenders are gone and the attacker still has units; an empty fortress falls only to at least
one hit. The siege breaks at once when the besiegers' units are at most the besieged units (also
before the first assault). A campaign repeats assaults, one per impulse, until the space falls, the
siege breaks or ``max_assaults`` is spent. The assault is made by one formation (Here I Stand rules
§5.7): at most 4 units without a leader, at most the command rating with leaders; ``sim validate``
refuses a larger one unless ``formation_cap`` is off. A defending leader (rated 0 included) is
captured when the space falls; an attacking leader when every assaulting unit is gone (Here I
Stand rules §5.4 ⑥ through §5.7 ③④).

A port fortress (``port``) cannot be assaulted while the defender's squadrons are in an adjacent
sea zone, or while its squadrons in the port are at least as many as the enemy squadrons in the
adjacent sea zones (Here I Stand rules §6.7): no assault is made (``protected_by_squadrons``).
"""

from __future__ import annotations

from collections.abc import Iterator
from math import comb

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
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
from simulator.rng import TRIAL_STEP, high32, low32, mix64, word_base

MAX_UNITS = 40
MAX_LEADER = 6
MAX_EXTRA = 5
MAX_ASSAULTS = 64

#: Words of one assault: the attacker's dice read words ``k * ASSAULT_WORDS + 0, 1, ...`` of
#: assault ``k`` (two dice per word, low half first), the defender's from ``DEFENDER_WORDS`` on
#: within the assault. Every (assault, side, die) therefore has a fixed word, so a variant that
#: changes one side leaves the other side's dice alone (common random numbers).
ASSAULT_WORDS = 64
DEFENDER_WORDS = 32
MAX_SQUADRONS = 20


class Besiegers(Params):
    units: int = Field(
        ge=1, le=MAX_UNITS, description="land units besieging the space (cavalry included)"
    )
    cavalry: int = Field(
        default=0,
        ge=0,
        le=MAX_UNITS,
        description="how many of the units are cavalry: they take losses but add no dice",
    )
    leader: Leader = leader_field()
    command: int | None = command_field()

    @field_validator("cavalry")
    @classmethod
    def _cavalry_among_units(cls, v: int, info: ValidationInfo) -> int:
        units = info.data.get("units")
        if units is not None and v > units:
            raise ValueError(f"must be at most units ({units}): cavalry are some of the units")
        return v


class Besieged(Params):
    units: int = Field(
        ge=0, le=MAX_UNITS, description="land units inside the fortress (0: an empty fortress)"
    )
    leader: Leader = leader_field()


class PortFortress(Params):
    squadrons_in_port: int = Field(
        default=0, ge=0, le=MAX_SQUADRONS, description="the defender's squadrons in the port"
    )
    squadrons_adjacent: int = Field(
        default=0,
        ge=0,
        le=MAX_SQUADRONS,
        description="the defender's squadrons in the sea zones next to the port",
    )
    enemy_squadrons_adjacent: int = Field(
        default=0,
        ge=0,
        le=MAX_SQUADRONS,
        description="enemy squadrons in the sea zones next to the port",
    )

    @property
    def protects(self) -> bool:
        """Here I Stand rules §6.7: squadrons next to the port, or in it and at least as many as
        the enemy's next to it."""
        return self.squadrons_adjacent > 0 or (
            self.squadrons_in_port > 0 and self.enemy_squadrons_adjacent <= self.squadrons_in_port
        )


class AssaultParams(Params):
    attacker: Besiegers = Field(description="the besieging army")
    defender: Besieged = Field(description="the garrison of the besieged fortress")
    max_assaults: int = Field(
        default=1,
        ge=1,
        le=MAX_ASSAULTS,
        description="assaults to try (1: one assault; more: a siege campaign, one per impulse)",
    )
    defender_extra_dice: int = Field(
        default=1, ge=0, le=MAX_EXTRA, description="extra dice of the defender (1 by the rules)"
    )
    hit_on: int = Field(default=5, ge=2, le=6, description="lowest d6 face that scores a hit")
    lose_cavalry_first: bool = Field(
        default=True,
        description="the attacker takes losses on cavalry before units that roll dice",
    )
    formation_cap: bool = formation_cap_field()
    port: PortFortress | None = Field(
        default=None,
        description="the besieged space is a port fortress, with the squadrons around it (Here "
        "I Stand rules §6.7); null: not a port",
    )


def forbidden(p: AssaultParams) -> list[tuple[tuple[str | int, ...], str, object]]:
    """The assaulting formation above its cap (Here I Stand rules §5.2, §5.7: one formation
    assaults)."""
    if not p.formation_cap:
        return []
    a = p.attacker
    return formation_problems("attacker", a.units, a.leader, a.command, "assaults")


PACKED = Layout(
    "attacker_units",
    "attacker_cavalry",
    "attacker_rating",
    "defender_units",
    "defender_rating",
    "defender_extra_dice",
    "hit_on",
    "max_assaults",
    "lose_cavalry_first",
    "defender_has_leader",
    "attacker_has_leader",
    "protected",
)
ATTACKER_UNITS, ATTACKER_CAVALRY, ATTACKER_RATING = (
    PACKED.at(n) for n in ("attacker_units", "attacker_cavalry", "attacker_rating")
)
DEFENDER_UNITS, DEFENDER_RATING = PACKED.at("defender_units"), PACKED.at("defender_rating")
DEFENDER_EXTRA_DICE, HIT_ON = PACKED.at("defender_extra_dice"), PACKED.at("hit_on")
MAX_ASSAULTS_AT, LOSE_CAVALRY_FIRST = PACKED.at("max_assaults"), PACKED.at("lose_cavalry_first")
DEFENDER_HAS_LEADER = PACKED.at("defender_has_leader")
ATTACKER_HAS_LEADER, PROTECTED = PACKED.at("attacker_has_leader"), PACKED.at("protected")

#: The metric row, in the order of metrics().
METRICS = Layout(
    "space_falls",
    "assaults_used",
    "siege_broken",
    "attacker_units_left",
    "defender_units_left",
    "attacker_hits",
    "defender_hits",
    "space_falls_at_assault",
    "defender_leader_captured",
    "attacker_leader_captured",
    "protected_by_squadrons",
)
FALLS, ASSAULTS, BROKEN = (METRICS.at(n) for n in ("space_falls", "assaults_used", "siege_broken"))
A_LEFT, D_LEFT = METRICS.at("attacker_units_left"), METRICS.at("defender_units_left")
A_HITS, D_HITS = METRICS.at("attacker_hits"), METRICS.at("defender_hits")
FELL_AT, D_CAPTURED = METRICS.at("space_falls_at_assault"), METRICS.at("defender_leader_captured")
A_CAPTURED, PROTECTED_BY_SQUADRONS = (
    METRICS.at("attacker_leader_captured"),
    METRICS.at("protected_by_squadrons"),
)
N_METRICS = METRICS.size


def metrics(p: AssaultParams) -> list[Metric]:
    return [
        Metric("space_falls", "proportion", "the defenders are gone and the attacker has units"),
        Metric(
            "assaults_used",
            "distribution",
            "assaults made before the campaign ended",
            max_value=p.max_assaults,
        ),
        Metric("siege_broken", "proportion", "the besiegers' units fell to at most the besieged's"),
        Metric(
            "attacker_units_left",
            "distribution",
            "attacker units at the end",
            max_value=p.attacker.units,
            headline=False,
        ),
        Metric(
            "defender_units_left",
            "distribution",
            "defender units at the end",
            max_value=p.defender.units,
            headline=False,
        ),
        Metric(
            "attacker_hits", "mean", "hits rolled by the attacker over all assaults", headline=False
        ),
        Metric(
            "defender_hits", "mean", "hits rolled by the defender over all assaults", headline=False
        ),
        Metric(
            "space_falls_at_assault",
            "distribution",
            "the assault that took the space, 0 if it did not fall: P(falls within k assaults) "
            "is the sum of its shares 1..k",
            max_value=p.max_assaults,
        ),
        Metric(
            "defender_leader_captured",
            "proportion",
            "the space falls with a defending leader in it (rated 0 included)",
            headline=False,
        ),
        Metric(
            "attacker_leader_captured",
            "proportion",
            "every assaulting unit is gone and the attacker had a leader (rated 0 included)",
            headline=False,
        ),
        Metric(
            "protected_by_squadrons",
            "proportion",
            "the port fortress cannot be assaulted: squadrons protect it (§6.7), no assault made",
            headline=False,
        ),
    ]


def pack(p: AssaultParams) -> np.ndarray:
    return PACKED.row(
        attacker_units=p.attacker.units,
        attacker_cavalry=p.attacker.cavalry,
        attacker_rating=rating(p.attacker.leader),
        defender_units=p.defender.units,
        defender_rating=rating(p.defender.leader),
        defender_extra_dice=p.defender_extra_dice,
        hit_on=p.hit_on,
        max_assaults=p.max_assaults,
        lose_cavalry_first=1 if p.lose_cavalry_first else 0,
        defender_has_leader=1 if present(p.defender.leader) else 0,
        attacker_has_leader=1 if present(p.attacker.leader) else 0,
        protected=1 if p.port is not None and p.port.protects else 0,
    )


def attacker_dice(units: int, cavalry: int, leader: int, defenders: int) -> int:
    """Dice of the attacker in one assault (Here I Stand rules §5.7): cavalry add none, ever."""
    if defenders > 0:
        return (units - cavalry + 1) // 2 + leader
    return units - cavalry + leader


def take_losses(units: int, cavalry: int, hits: int, cavalry_first: bool) -> tuple[int, int]:
    """The attacker's (units, cavalry) after losing ``hits`` units."""
    if cavalry_first:
        return max(units - hits, 0), max(cavalry - hits, 0)
    infantry = units - cavalry
    spill = max(hits - infantry, 0)
    return max(units - hits, 0), max(cavalry - spill, 0)


@inline
def _threshold(hit_on: np.int64) -> np.uint64:
    # Smallest 32-bit word whose face (u32 * 6 >> 32) + 1 is >= hit_on; see rng.hit_threshold.
    return np.uint64(((hit_on - 1) * 4294967296 + 5) // 6)


# A live trial's whole state packed in one int64, so that compacting the live trials after each
# assault moves one word per trial instead of one per field (stores were the bottleneck):
# bits 0-9 the trial's index in the block, 10-15 attacker units, 16-21 cavalry, 22-27 defenders,
# 28-39 and 40-51 the attacker's and defender's hits so far, 52-58 assaults made, 59 the space
# fell, 60 the siege broke.
_UNITS = 10
_CAVALRY = 16
_DEFENDERS = 22
_A_TOTAL = 28
_D_TOTAL = 40
_ASSAULTS = 52
_FALLS = 59
_BROKEN = 60
_TRIAL_MASK = 1023
_ARMY_MASK = 63
_TOTAL_MASK = 4095
_ASSAULTS_MASK = 127


@inline
def _field(state, shift, mask):
    return (state >> shift) & mask


@inline
def _add_hits(hits, base, offset, na, w, dice, thr):
    """Add the hits of dice ``2w`` and ``2w + 1`` (one word: ``base`` premixed for the block's
    first trial, ``offset[q]`` the distance to live trial ``q``) of the ``na`` live trials,
    counting only dice below each trial's own number of dice."""
    lo_die = 2 * w
    for q in range(na):
        x = mix64(base + offset[q])
        d = dice[q]
        hits[q] += np.int64((low32(x) >= thr) & (lo_die < d)) + np.int64(
            (high32(x) >= thr) & (lo_die + 1 < d)
        )


@inline
def _fold_count(stats, m, x, count, hist_offset, hist_max):
    """Add ``count`` trials whose metric ``m`` is ``x`` to a single variant's statistics (the
    accumulate layout; the cross term with variant 0 is the square)."""
    if count > 0:
        stats[0, 4 * m] += count
        stats[0, 4 * m + 1] += count * x
        stats[0, 4 * m + 2] += count * x * x
        stats[0, 4 * m + 3] += count * x * x
        off = hist_offset[m]
        if off >= 0:
            stats[0, off + min(max(x, 0), hist_max[m])] += count


@kernel
def assault_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    # One variant: tally the fields of every trial's final state and fold each value once at the
    # end (4 increments per trial instead of 7 values folded). Several: per-trial values, so that
    # cross terms with variant 0 pair up trial by trial.
    single = n_variants == 1
    values = np.zeros((n_variants, N_METRICS, 1 if single else BLOCK), dtype=np.int32)
    # (assaults, falls, broken) as bits 52-60 of the state; (units, defenders) as units * 64 +
    # defenders; each side's hits.
    tally_outcome = np.zeros(512 if single else 1, dtype=np.int64)
    tally_armies = np.zeros(64 * 64 if single else 1, dtype=np.int64)
    tally_a_hits = np.zeros(_TOTAL_MASK + 1 if single else 1, dtype=np.int64)
    tally_d_hits = np.zeros(_TOTAL_MASK + 1 if single else 1, dtype=np.int64)
    # Packed states of the live trials (compacted to the first `na` after each assault), and
    # every trial's latest state by its index in the block.
    live = np.zeros(BLOCK, dtype=np.int64)
    final = np.zeros(BLOCK, dtype=np.int64)
    offset = np.zeros(BLOCK, dtype=np.uint64)
    a_dice = np.zeros(BLOCK, dtype=np.int64)
    d_dice = np.zeros(BLOCK, dtype=np.int64)
    a_hits = np.zeros(BLOCK, dtype=np.int64)
    d_hits = np.zeros(BLOCK, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            a_units = np.int64(packed[v, ATTACKER_UNITS])
            a_cavalry = np.int64(packed[v, ATTACKER_CAVALRY])
            a_leader = np.int64(packed[v, ATTACKER_RATING])
            d_units = np.int64(packed[v, DEFENDER_UNITS])
            d_leader = np.int64(packed[v, DEFENDER_RATING])
            extra = np.int64(packed[v, DEFENDER_EXTRA_DICE])
            thr = _threshold(np.int64(packed[v, HIT_ON]))
            max_assaults = np.int64(packed[v, MAX_ASSAULTS_AT])
            cavalry_first = packed[v, LOSE_CAVALRY_FIRST] > 0.5
            d_has_leader = np.int64(packed[v, DEFENDER_HAS_LEADER] > 0.5)
            a_has_leader = np.int64(packed[v, ATTACKER_HAS_LEADER] > 0.5)
            # §6.7: squadrons protect the port fortress: no assault is made at all.
            protected = np.int64(packed[v, PROTECTED] > 0.5)
            # A siege with besiegers' units <= besieged units is broken before any assault.
            broken_at_once = a_units <= d_units
            start_state = (
                (a_units << _UNITS)
                | (a_cavalry << _CAVALRY)
                | (d_units << _DEFENDERS)
                | (np.int64(broken_at_once) << _BROKEN)
            )
            for i in range(m):
                final[i] = start_state | i
                live[i] = start_state | i
            na = 0 if broken_at_once or protected > 0 else m
            if d_units > 0:
                first_a_dice = (a_units - a_cavalry + 1) // 2 + a_leader
            else:
                first_a_dice = a_units - a_cavalry + a_leader
            # Dice never increase during a campaign, so the first assault's dice bound the words.
            a_words = (first_a_dice + 1) // 2
            d_words = (d_units + d_leader + extra + 1) // 2
            for k in range(max_assaults):
                if na == 0:
                    break
                for q in range(na):
                    s = live[q]
                    u = _field(s, _UNITS, _ARMY_MASK)
                    c = _field(s, _CAVALRY, _ARMY_MASK)
                    d = _field(s, _DEFENDERS, _ARMY_MASK)
                    offset[q] = np.uint64(s & _TRIAL_MASK) * TRIAL_STEP
                    # Cavalry roll no dice in any assault, an empty fortress included.
                    a_dice[q] = (u - c + 1) // 2 + a_leader if d > 0 else u - c + a_leader
                    d_dice[q] = d + d_leader + extra
                    a_hits[q] = 0
                    d_hits[q] = 0
                w0 = k * ASSAULT_WORDS
                for w in range(a_words):
                    _add_hits(a_hits, word_base(key, start, w0 + w), offset, na, w, a_dice, thr)
                for w in range(d_words):
                    base = word_base(key, start, w0 + DEFENDER_WORDS + w)
                    _add_hits(d_hits, base, offset, na, w, d_dice, thr)
                # Resolve every live trial (no dependence between trials: vectorises).
                for q in range(na):
                    s = live[q]
                    ah = a_hits[q]
                    dh = d_hits[q]
                    u = _field(s, _UNITS, _ARMY_MASK)
                    c = _field(s, _CAVALRY, _ARMY_MASK)
                    d = _field(s, _DEFENDERS, _ARMY_MASK)
                    u_left = max(u - dh, 0)
                    spill = max(dh - (u - c), 0)
                    c_left = max(c - dh, 0) if cavalry_first else max(c - spill, 0)
                    d_left = max(d - ah, 0)
                    falls = (d_left == 0) & (u_left > 0) & ((d > 0) | (ah > 0))
                    broken = (~falls) & (u_left <= d_left)
                    live[q] = (
                        (s & _TRIAL_MASK)
                        | (u_left << _UNITS)
                        | (c_left << _CAVALRY)
                        | (d_left << _DEFENDERS)
                        | ((_field(s, _A_TOTAL, _TOTAL_MASK) + ah) << _A_TOTAL)
                        | ((_field(s, _D_TOTAL, _TOTAL_MASK) + dh) << _D_TOTAL)
                        | ((k + 1) << _ASSAULTS)
                        | (np.int64(falls) << _FALLS)
                        | (np.int64(broken) << _BROKEN)
                    )
                # Record every trial's state and keep the live ones, branch-free.
                alive = 0
                for q in range(na):
                    s = live[q]
                    final[s & _TRIAL_MASK] = s
                    live[alive] = s
                    alive += np.int64((s >> _FALLS) & 3 == 0)
                na = alive
            if single:
                for i in range(m):
                    s = final[i]
                    tally_outcome[s >> _ASSAULTS] += 1
                    u = _field(s, _UNITS, _ARMY_MASK)
                    tally_armies[u * 64 + _field(s, _DEFENDERS, _ARMY_MASK)] += 1
                    tally_a_hits[_field(s, _A_TOTAL, _TOTAL_MASK)] += 1
                    tally_d_hits[_field(s, _D_TOTAL, _TOTAL_MASK)] += 1
            else:
                for i in range(m):
                    s = final[i]
                    values[v, FALLS, i] = (s >> _FALLS) & 1
                    values[v, ASSAULTS, i] = _field(s, _ASSAULTS, _ASSAULTS_MASK)
                    values[v, BROKEN, i] = (s >> _BROKEN) & 1
                    values[v, A_LEFT, i] = _field(s, _UNITS, _ARMY_MASK)
                    values[v, D_LEFT, i] = _field(s, _DEFENDERS, _ARMY_MASK)
                    values[v, A_HITS, i] = _field(s, _A_TOTAL, _TOTAL_MASK)
                    values[v, D_HITS, i] = _field(s, _D_TOTAL, _TOTAL_MASK)
                    fell = (s >> _FALLS) & 1
                    values[v, FELL_AT, i] = fell * _field(s, _ASSAULTS, _ASSAULTS_MASK)
                    values[v, D_CAPTURED, i] = fell * d_has_leader
                    wiped_out = np.int64(_field(s, _UNITS, _ARMY_MASK) == 0)
                    values[v, A_CAPTURED, i] = wiped_out * a_has_leader
                    values[v, PROTECTED_BY_SQUADRONS, i] = protected
        if not single:
            accumulate_block(stats, values, m, hist_offset, hist_max)
    if single:
        for x in range(512):
            c = tally_outcome[x]
            _fold_count(stats, FALLS, (x >> (_FALLS - _ASSAULTS)) & 1, c, hist_offset, hist_max)
            _fold_count(stats, ASSAULTS, x & _ASSAULTS_MASK, c, hist_offset, hist_max)
            _fold_count(stats, BROKEN, x >> (_BROKEN - _ASSAULTS), c, hist_offset, hist_max)
            fell = (x >> (_FALLS - _ASSAULTS)) & 1
            at = fell * (x & _ASSAULTS_MASK)
            _fold_count(stats, FELL_AT, at, c, hist_offset, hist_max)
            captured = fell * np.int64(packed[0, DEFENDER_HAS_LEADER] > 0.5)
            _fold_count(stats, D_CAPTURED, captured, c, hist_offset, hist_max)
            protected = np.int64(packed[0, PROTECTED] > 0.5)
            _fold_count(stats, PROTECTED_BY_SQUADRONS, protected, c, hist_offset, hist_max)
        a_has_leader = np.int64(packed[0, ATTACKER_HAS_LEADER] > 0.5)
        for x in range(64 * 64):
            c = tally_armies[x]
            _fold_count(stats, A_LEFT, x >> 6, c, hist_offset, hist_max)
            _fold_count(stats, D_LEFT, x & 63, c, hist_offset, hist_max)
            wiped_out = np.int64((x >> 6) == 0)
            _fold_count(stats, A_CAPTURED, wiped_out * a_has_leader, c, hist_offset, hist_max)
        for x in range(_TOTAL_MASK + 1):
            _fold_count(stats, A_HITS, x, tally_a_hits[x], hist_offset, hist_max)
            _fold_count(stats, D_HITS, x, tally_d_hits[x], hist_offset, hist_max)
    return stats


def _binomial(n: int, prob: float) -> list[float]:
    return [comb(n, k) * prob**k * (1 - prob) ** (n - k) for k in range(n + 1)]


def _campaign(
    p: AssaultParams,
) -> Iterator[tuple[float, int, int, int, int, bool, bool, float, float]]:
    """Every way a campaign ends: (probability, assaults, units, cavalry, defenders, falls,
    broken, expected attacker hits, expected defender hits) summed over the paths to it."""
    prob = (7 - p.hit_on) / 6
    a, d = p.attacker, p.defender
    # Ratings read from the rule text here, not through the kernel's packing helpers.
    a_lead = 0 if a.leader == "none" else a.leader
    d_lead = 0 if d.leader == "none" else d.leader
    if a.units <= d.units:
        yield 1.0, 0, a.units, a.cavalry, d.units, False, True, 0.0, 0.0
        return
    port = p.port
    if port is not None and (
        port.squadrons_adjacent > 0 or 0 < port.squadrons_in_port >= port.enemy_squadrons_adjacent
    ):
        # §6.7: the defender's squadrons protect the port fortress; no assault is made.
        yield 1.0, 0, a.units, a.cavalry, d.units, False, False, 0.0, 0.0
        return
    # live[(units, cavalry, defenders)] = [probability, sum of p * attacker hits, same defender]
    live: dict[tuple[int, int, int], list[float]] = {(a.units, a.cavalry, d.units): [1.0, 0, 0]}
    for k in range(1, p.max_assaults + 1):
        nxt: dict[tuple[int, int, int], list[float]] = {}
        for (u, c, dd), (w, sa, sd) in live.items():
            # §11.1 ①: cavalry never roll in an assault; §5.7 ②: halved (rounded up) while
            # defenders are present, whole against an empty fortress.
            rolling = u - c
            n_a = (rolling + 1) // 2 + a_lead if dd > 0 else rolling + a_lead
            pa = _binomial(n_a, prob)
            pd = _binomial(dd + d_lead + p.defender_extra_dice, prob)
            for ah, wa in enumerate(pa):
                for dh, wd in enumerate(pd):
                    x = w * wa * wd
                    if x == 0.0:
                        continue
                    u2, c2 = take_losses(u, c, dh, p.lose_cavalry_first)
                    d2 = max(dd - ah, 0)
                    falls = d2 == 0 and u2 > 0 and (dd > 0 or ah > 0)
                    broken = not falls and u2 <= d2
                    # The path's hit sums: earlier hits weighted by this step, plus this step's.
                    ha = sa * wa * wd + x * ah
                    hd = sd * wa * wd + x * dh
                    if falls or broken:
                        yield x, k, u2, c2, d2, falls, broken, ha, hd
                    else:
                        cell = nxt.setdefault((u2, c2, d2), [0.0, 0.0, 0.0])
                        cell[0] += x
                        cell[1] += ha
                        cell[2] += hd
        live = nxt
    for (u, c, dd), (w, sa, sd) in live.items():
        yield w, p.max_assaults, u, c, dd, False, False, sa, sd


def exact(p: AssaultParams) -> dict[str, float]:
    """Exact values by dynamic programming over (units, cavalry, defenders) assault by assault."""
    out = dict.fromkeys([m.name for m in metrics(p)], 0.0)
    for w, k, u, _, dd, falls, broken, ha, hd in _campaign(p):
        out["space_falls"] += w * falls
        out["assaults_used"] += w * k
        out["siege_broken"] += w * broken
        out["attacker_units_left"] += w * u
        out["defender_units_left"] += w * dd
        out["attacker_hits"] += ha
        out["defender_hits"] += hd
        out["space_falls_at_assault"] += w * k * falls
        out["defender_leader_captured"] += w * falls * (p.defender.leader != "none")
        # §5.4 ⑥ through §5.7 ③④: a side with no units left loses its leaders.
        out["attacker_leader_captured"] += w * (u == 0) * (p.attacker.leader != "none")
    port = p.port
    out["protected_by_squadrons"] = float(
        port is not None
        and (
            port.squadrons_adjacent > 0
            or 0 < port.squadrons_in_port >= port.enemy_squadrons_adjacent
        )
    )
    return out


ASSUMPTIONS = (
    Assumption(
        name="cavalry_lost_first",
        knob="lose_cavalry_first",
        tag="reading",
        rule=cite("5.4 ④"),
        text="the attacker chooses its losses: it loses cavalry before the units that roll dice",
        alternatives=(Alternative("units before cavalry", {"lose_cavalry_first": False}),),
    ),
    Assumption(
        name="empty_fortress_dice",
        knob="",
        tag="reading",
        rule=cite("5.7 ②"),
        text="against an empty fortress the attacker rolls units + leader (the halving of ② is "
        "'if defenders are present'), still needing one hit; not yet a knob",
    ),
    Assumption(
        name="attacker_leader_captured",
        knob="",
        tag="reading",
        rule=cite("5.7 ③④"),
        text="an assault's hits and losses are those of a field battle (§5.7 ③④), so an "
        "attacker with no units left loses its leaders as in §5.4 ⑥ (attacker_leader_captured; "
        "a metric no other result rests on, not yet a knob)",
    ),
)


PROCEDURE = Procedure(
    name="his.assault",
    title="Here I Stand assault and siege campaign",
    rules="Here I Stand rules §5.6, §5.7, §6.7, §11.1 (docs/rules/here-i-stand.md#s5-7)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings("attacker", "defender", "max_assaults", "port"),
        *rulebook(cite("5.7"), "defender_extra_dice", "hit_on"),
        *rulebook(cite("5.2"), "formation_cap"),
    ),
    params_model=AssaultParams,
    metrics=metrics,
    pack=pack,
    kernel=assault_kernel,
    exact=exact,
    example={
        "attacker": {"units": 8, "cavalry": 0, "leader": 1, "command": 8},
        "defender": {"units": 3},
        "max_assaults": 10,
    },
    forbidden=forbidden,
    notes=(
        "a port fortress (port) cannot be assaulted while the defender's squadrons are next to "
        "it, or in it and at least as many as the enemy's next to it (Here I Stand rules §6.7): "
        "protected_by_squadrons, no assault made",
        "cavalry take losses but add no dice in any assault, an empty fortress included (Here I "
        "Stand rules §11.1 ①); against an empty fortress the others roll units + leader (§5.7 ②)",
        "one formation assaults (§5.7): at most 4 units without a leader, at most the command "
        "rating with leaders (not checked when no command rating is given); knob formation_cap "
        "(default true, the rulebook; false: house rule)",
        'a leader rated 0 is a leader (captured when the space falls); "none" for no leader',
        "a siege with besiegers' units <= besieged units is broken before any assault "
        "(assaults_used 0)",
        "the defender rolls units + leader + defender_extra_dice even in an empty fortress",
    ),
)
