"""Here I Stand field battle (Here I Stand rules §5.4).

Each side rolls ``units + leader`` dice, the defender ``defender_extra_dice`` more; a die at or
above ``hit_on`` is a hit. Each side loses units equal to the other's hits. Fewer hits loses; a tie
goes to ``ties_to`` (the defender by the rules). If both sides are wiped out the winner keeps one
unit. A side with no units left has its leader captured: a leader rated 0 is a leader too
(``"none"`` means no leader). The attacker fights with one formation (Here I Stand rules §5.2,
§5.4): at most 4 units without a leader, at most its leaders' command rating with them; ``sim
validate`` refuses a larger one, and a sweep marks it illegal, unless ``formation_cap`` is off (a
house rule). The defender fights with every unit in the space.

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

from simulator.accumulate import BLOCK, accumulate_block, accumulate_weighted, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Assumption, Metric, Params, Procedure
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

N_METRICS = 8
#: Packed row: 11 scalars, then each side's hit thresholds as (high 32 bits, low 32 bits) pairs.
HEADER = 11


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
            "the attacker has a leader and no units left",
            headline=False,
        ),
        Metric(
            "defender_leader_captured",
            "proportion",
            "the defender has a leader and no units left",
            headline=False,
        ),
        Metric(
            "both_wiped_out",
            "proportion",
            "the hits remove every unit of both sides (the winner then keeps one)",
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


def pack(p: FieldBattleParams) -> np.ndarray:
    row = [
        p.attacker.units,
        rating(p.attacker.leader),
        p.defender.units,
        rating(p.defender.leader),
        p.defender_extra_dice,
        p.hit_on,
        1 if p.ties_to == "attacker" else 0,
        p.attacker_dice,
        p.defender_dice,
        1 if present(p.attacker.leader) else 0,
        1 if present(p.defender.leader) else 0,
    ]
    for t in hit_thresholds(p.attacker_dice, p.hit_on) + hit_thresholds(p.defender_dice, p.hit_on):
        row += [t >> 32, t & 0xFFFFFFFF]  # float64 holds each 32-bit half exactly
    return np.array(row, dtype=np.float64)


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
def _result(ah, dh, a_units, d_units, ties_to_attacker, a_has_leader, d_has_leader, out):
    """The battle's metric values for ``ah`` attacker hits and ``dh`` defender hits (§5.4)."""
    a_left = max(a_units - dh, 0)
    d_left = max(d_units - ah, 0)
    wins = ah > dh or (ah == dh and ties_to_attacker)
    both = a_left == 0 and d_left == 0
    if both:  # both wiped out: the winner keeps one unit
        if wins:
            a_left = 1
        else:
            d_left = 1
    out[0] = wins
    out[1] = ah
    out[2] = dh
    out[3] = a_left
    out[4] = d_left
    out[5] = a_left == 0 and a_has_leader > 0
    out[6] = d_left == 0 and d_has_leader > 0
    out[7] = both


@kernel
def field_battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    a_thr = np.zeros((n_variants, MAX_HITS + 1), dtype=np.uint64)
    d_thr = np.zeros((n_variants, MAX_HITS + 1), dtype=np.uint64)
    for v in range(n_variants):
        a_dice = np.int64(packed[v, 7])
        _thresholds(packed, v, HEADER, a_dice, a_thr[v])
        _thresholds(packed, v, HEADER + 2 * (a_dice + 1), np.int64(packed[v, 8]), d_thr[v])
    a_hits = np.zeros((n_variants, BLOCK), dtype=np.int64)
    d_hits = np.zeros((n_variants, BLOCK), dtype=np.int64)
    row = np.zeros(N_METRICS, dtype=np.int64)
    # One variant: tally (attacker hits, defender hits) and fold each pair once at the end.
    # Several: per-trial values, so that cross terms with variant 0 pair up trial by trial.
    single = n_variants == 1
    tally = np.zeros((MAX_HITS + 1, MAX_HITS + 1), dtype=np.int64)
    values = np.zeros((n_variants, N_METRICS, BLOCK if not single else 1), dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            _draw_hits(a_hits[v], key, start, m, ATTACKER_WORD, a_thr[v], np.int64(packed[v, 7]))
            _draw_hits(d_hits[v], key, start, m, DEFENDER_WORD, d_thr[v], np.int64(packed[v, 8]))
        if single:
            for i in range(m):
                tally[a_hits[0, i], d_hits[0, i]] += 1
            continue
        for v in range(n_variants):
            a_units, d_units = np.int64(packed[v, 0]), np.int64(packed[v, 2])
            a_leader, d_leader = np.int64(packed[v, 9]), np.int64(packed[v, 10])
            ties = packed[v, 6] > 0.5
            for i in range(m):
                _result(a_hits[v, i], d_hits[v, i], a_units, d_units, ties, a_leader, d_leader, row)
                for k in range(N_METRICS):
                    values[v, k, i] = row[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    if single:
        a_units, d_units = np.int64(packed[0, 0]), np.int64(packed[0, 2])
        a_leader, d_leader = np.int64(packed[0, 9]), np.int64(packed[0, 10])
        ties = packed[0, 6] > 0.5
        for ah in range(np.int64(packed[0, 7]) + 1):
            for dh in range(np.int64(packed[0, 8]) + 1):
                c = tally[ah, dh]
                if c > 0:
                    _result(ah, dh, a_units, d_units, ties, a_leader, d_leader, row)
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
            a_has, d_has = p.attacker.leader != "none", p.defender.leader != "none"
            out["attacker_leader_captured"] += w * (a_left == 0 and a_has)
            out["defender_leader_captured"] += w * (d_left == 0 and d_has)
    out["attacker_hits"] = na * prob
    out["defender_hits"] = nd * prob
    return out


ASSUMPTIONS = (
    Assumption(
        name="units_left_before_retreat",
        knob="",
        tag="reading",
        rule=cite("5.4 ⑤"),
        text="units_left counts each side's units right after the dice, before the loser's "
        "retreat (destroyed if it retreats into a space it does not control) and before a "
        "defender withdraws up to 4 units into a fortress (§5.6): both are left out; not yet a "
        "knob",
    ),
)


PROCEDURE = Procedure(
    name="his.field_battle",
    title="Here I Stand field battle",
    rules="Here I Stand rules §5.2, §5.4 (docs/rules/here-i-stand.md#s5-4)",
    assumptions=ASSUMPTIONS,
    params_model=FieldBattleParams,
    metrics=metrics,
    pack=pack,
    kernel=field_battle_kernel,
    exact=exact,
    forbidden=forbidden,
    notes=(
        'a leader rated 0 is a leader (captured with its last unit); "none" for no leader',
        "one formation attacks (Here I Stand rules §5.2, §5.4): at most 4 units without a leader, "
        "at most the command rating with leaders (one leader's, or the two highest summed; not "
        "checked when no command rating is given); knob formation_cap (default true, the "
        "rulebook; false: house rule); the defender fights with every unit",
        "knob ties_to (default defender: a tie is lost by the attacker, Here I Stand rules §5.4 ⑤)",
    ),
    example={
        "attacker": {"units": 4, "leader": 2, "command": 6},
        "defender": {"units": 3, "leader": "none"},
    },
)
