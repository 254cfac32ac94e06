"""Here I Stand field battle (RULES.md §5.1).

Each side rolls ``units + leader`` dice, the defender ``defender_extra_dice`` more; a die at or
above ``hit_on`` is a hit. Each side loses units equal to the other's hits. Fewer hits loses; a tie
goes to ``ties_to`` (the defender by the rules). If both sides are wiped out the winner keeps one
unit. A side with no units left has its leader captured (leader 0 means no leader).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field
from scipy.stats import binom

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import block_word, high32, low32, word_base

MAX_UNITS = 40
MAX_LEADER = 6

#: Attacker dice read words 0, 1, ...; defender dice read words from this index on, so a variant
#: that changes one side's dice leaves the other side's dice as they were (common random numbers).
DEFENDER_WORDS = 2048


class Army(Params):
    units: int = Field(ge=1, le=MAX_UNITS, description="land units in the battle (cavalry counts)")
    leader: int = Field(
        default=0, ge=0, le=MAX_LEADER, description="battle rating of the best leader, 0 for none"
    )


class FieldBattleParams(Params):
    attacker: Army = Field(description="the moving army")
    defender: Army = Field(description="the army in the space")
    defender_extra_dice: int = Field(
        default=1, ge=0, le=5, description="extra dice of the defender (1 by the rules)"
    )
    hit_on: int = Field(default=5, ge=2, le=6, description="lowest d6 face that scores a hit")
    ties_to: Literal["defender", "attacker"] = Field(
        default="defender", description="who wins when both sides score the same hits"
    )


# Indices of the metric values the kernel writes, in the order of metrics().
ATTACKER_WINS, ATTACKER_HITS, DEFENDER_HITS, A_LEFT, D_LEFT, A_CAPTURED, D_CAPTURED = range(7)


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
    ]


def pack(p: FieldBattleParams) -> np.ndarray:
    return np.array(
        [
            p.attacker.units,
            p.attacker.leader,
            p.defender.units,
            p.defender.leader,
            p.defender_extra_dice,
            p.hit_on,
            1 if p.ties_to == "attacker" else 0,
        ],
        dtype=np.float64,
    )


@inline
def _threshold(hit_on: np.int64) -> np.uint64:
    # Smallest 32-bit word whose face (u32 * 6 >> 32) + 1 is >= hit_on; see rng.hit_threshold.
    return np.uint64(((hit_on - 1) * 4294967296 + 5) // 6)


@inline
def _count_hits(hits, key, first, m, word0, dice, thr):
    """Hits of ``dice`` dice for trials first..first+m-1, die-major so the inner loop vectorises."""
    for i in range(m):
        hits[i] = 0
    for w in range(dice // 2):
        base = word_base(key, first, word0 + w)
        for i in range(m):
            x = block_word(base, i)
            hits[i] += np.int64(low32(x) >= thr) + np.int64(high32(x) >= thr)
    if dice % 2 == 1:
        base = word_base(key, first, word0 + dice // 2)
        for i in range(m):
            hits[i] += np.int64(low32(block_word(base, i)) >= thr)


@kernel
def field_battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, 7, BLOCK), dtype=np.int64)
    attacker_hits = np.zeros(BLOCK, dtype=np.int64)
    defender_hits = np.zeros(BLOCK, dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            a_units = np.int64(packed[v, 0])
            a_leader = np.int64(packed[v, 1])
            d_units = np.int64(packed[v, 2])
            d_leader = np.int64(packed[v, 3])
            extra = np.int64(packed[v, 4])
            thr = _threshold(np.int64(packed[v, 5]))
            ties_to_attacker = packed[v, 6] > 0.5
            has_a_leader = a_leader > 0
            has_d_leader = d_leader > 0
            _count_hits(attacker_hits, key, start, m, 0, a_units + a_leader, thr)
            _count_hits(
                defender_hits, key, start, m, DEFENDER_WORDS, d_units + d_leader + extra, thr
            )
            # Branch-free (bitwise, not `and`/`or`) so the loop over trials vectorises.
            for i in range(m):
                ah = attacker_hits[i]
                dh = defender_hits[i]
                a_left = max(a_units - dh, 0)
                d_left = max(d_units - ah, 0)
                wins = (ah > dh) | ((ah == dh) & ties_to_attacker)
                both_gone = (a_left == 0) & (d_left == 0)
                # Both wiped out: the winner keeps one unit.
                a_left += np.int64(both_gone & wins)
                d_left += np.int64(both_gone & ~wins)
                values[v, 0, i] = wins
                values[v, 1, i] = ah
                values[v, 2, i] = dh
                values[v, 3, i] = a_left
                values[v, 4, i] = d_left
                values[v, 5, i] = (a_left == 0) & has_a_leader
                values[v, 6, i] = (d_left == 0) & has_d_leader
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def exact(p: FieldBattleParams) -> dict[str, float]:
    """Exact values: the two sides' hits are independent binomials."""
    prob = (7 - p.hit_on) / 6
    na = p.attacker.units + p.attacker.leader
    nd = p.defender.units + p.defender.leader + p.defender_extra_dice
    pa = binom.pmf(np.arange(na + 1), na, prob)
    pd = binom.pmf(np.arange(nd + 1), nd, prob)
    out = dict.fromkeys(
        [
            "attacker_wins",
            "attacker_units_left",
            "defender_units_left",
            "attacker_leader_captured",
            "defender_leader_captured",
        ],
        0.0,
    )
    for ah in range(na + 1):
        for dh in range(nd + 1):
            w = pa[ah] * pd[dh]
            a_left = max(p.attacker.units - dh, 0)
            d_left = max(p.defender.units - ah, 0)
            wins = ah > dh or (ah == dh and p.ties_to == "attacker")
            if a_left == 0 and d_left == 0:
                a_left, d_left = (1, 0) if wins else (0, 1)
            out["attacker_wins"] += w * wins
            out["attacker_units_left"] += w * a_left
            out["defender_units_left"] += w * d_left
            out["attacker_leader_captured"] += w * (a_left == 0 and p.attacker.leader > 0)
            out["defender_leader_captured"] += w * (d_left == 0 and p.defender.leader > 0)
    out["attacker_hits"] = na * prob
    out["defender_hits"] = nd * prob
    return out


PROCEDURE = Procedure(
    name="his.field_battle",
    title="Here I Stand field battle",
    rules="RULES.md §5.1",
    params_model=FieldBattleParams,
    metrics=metrics,
    pack=pack,
    kernel=field_battle_kernel,
    exact=exact,
    notes=("leader 0 means no leader: nobody to capture",),
    example={"attacker": {"units": 4, "leader": 2}, "defender": {"units": 3, "leader": 0}},
)
