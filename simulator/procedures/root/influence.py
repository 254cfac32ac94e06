"""Root hirelings module: the influence dice rolled at the end of each Evening (Root hirelings rules
§1).

By player count: 2 players roll two dice and gain the **sum** of the faces they qualify for; 3
players roll two dice and gain only the **better** face they qualify for; 4 or more roll one die. A
face ``N+: a`` qualifies only when the player is at least ``N`` points behind the leader.

Assumption (the rulebook does not print the faces): one six-sided die with faces
``[0, 1, 1, 1+:1, 3+:2, 5+:3]``, a scenario parameter.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
from pydantic import Field

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import kernel
from simulator.layout import Layout
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure, settings
from simulator.procedures.root._rules import cite_hirelings
from simulator.rng import block_word, die_of, high32, low32, word_base

MAX_FACES = 20
MAX_AMOUNT = 10
MAX_BEHIND = 100


class Face(Params):
    amount: int = Field(ge=0, le=MAX_AMOUNT, description="influence the face shows")
    behind: int = Field(
        default=0,
        ge=0,
        le=MAX_BEHIND,
        description="the face counts only for a player at least this many points behind the "
        "leader (0: always)",
    )


DEFAULT_FACES = (
    Face(amount=0),
    Face(amount=1),
    Face(amount=1),
    Face(amount=1, behind=1),
    Face(amount=2, behind=3),
    Face(amount=3, behind=5),
)


class InfluenceParams(Params):
    players: int = Field(default=4, ge=2, le=6, description="players in the game (2-6)")
    behind: int = Field(
        default=0, ge=0, le=MAX_BEHIND, description="the roller's points behind the leader"
    )
    faces: list[Face] = Field(
        default_factory=lambda: list(DEFAULT_FACES),
        min_length=1,
        max_length=MAX_FACES,
        description="the faces of one influence die (assumption: [0, 1, 1, 1+:1, 3+:2, 5+:3])",
    )


def dice_rolled(players: int) -> int:
    return 2 if players <= 3 else 1


#: The packed row: the player count, the points behind, then the die (``faces`` of its
#: ``MAX_FACES`` slots are used).
PACKED = Layout("players", "behind", "faces", ("amount", MAX_FACES), ("face_behind", MAX_FACES))
P_PLAYERS, P_BEHIND, P_FACES = PACKED.at("players"), PACKED.at("behind"), PACKED.at("faces")
P_AMOUNT, P_FACE_BEHIND = PACKED.at("amount"), PACKED.at("face_behind")
#: The metric row, by name.
METRICS = Layout("influence", "gains_any")
INFLUENCE, GAINS_ANY = METRICS.at("influence"), METRICS.at("gains_any")
N_METRICS = METRICS.size


def metrics(p: InfluenceParams) -> list[Metric]:
    top = max(f.amount for f in p.faces) * dice_rolled(p.players)
    return [
        Metric("influence", "distribution", "influence gained this Evening", max_value=top),
        Metric("gains_any", "proportion", "the roll gains at least one influence"),
    ]


def pack(p: InfluenceParams) -> np.ndarray:
    unused = [0] * (MAX_FACES - len(p.faces))
    return PACKED.row(
        players=p.players,
        behind=p.behind,
        faces=len(p.faces),
        amount=[f.amount for f in p.faces] + unused,
        face_behind=[f.behind for f in p.faces] + unused,
    )


@kernel
def influence_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    gain = np.zeros(MAX_FACES, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        base = word_base(key, start, 0)
        for v in range(n_variants):
            players = np.int64(packed[v, P_PLAYERS])
            behind = np.int64(packed[v, P_BEHIND])
            n_faces = np.int64(packed[v, P_FACES])
            # What each face is worth to this player: its amount if it qualifies, else nothing.
            for k in range(n_faces):
                qualifies = behind >= np.int64(packed[v, P_FACE_BEHIND + k])
                gain[k] = np.int64(packed[v, P_AMOUNT + k]) if qualifies else 0
            two_dice = players <= 3
            take_sum = players == 2
            for i in range(m):
                x = block_word(base, i)
                first = gain[die_of(low32(x), n_faces) - 1]
                second = gain[die_of(high32(x), n_faces) - 1]
                # 2 players: the sum; 3 players: the better face; 4 or more: one die.
                two = first + second if take_sum else max(first, second)
                total = two if two_dice else first
                values[v, INFLUENCE, i] = total
                values[v, GAINS_ANY, i] = total > 0
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def distribution(p: InfluenceParams) -> dict[int, Fraction]:
    """Exact distribution of the influence gained, enumerating the faces."""
    gains = [f.amount if p.behind >= f.behind else 0 for f in p.faces]
    n = len(gains)
    dist: dict[int, Fraction] = {}
    rolls = list(product(gains, repeat=dice_rolled(p.players)))
    for roll in rolls:
        total = sum(roll) if p.players == 2 else max(roll)
        dist[total] = dist.get(total, Fraction(0)) + Fraction(1, n ** len(roll))
    return dist


def exact(p: InfluenceParams) -> dict[str, float]:
    dist = distribution(p)
    return {
        "influence": float(sum(k * q for k, q in dist.items())),
        "gains_any": float(sum(q for k, q in dist.items() if k > 0)),
    }


ASSUMPTIONS = (
    Assumption(
        name="faces",
        knob="faces",
        tag="invented",
        rule=cite_hirelings("1"),
        text="the module prints no influence die; the default faces are "
        "[0, 1, 1, 1+:1, 3+:2, 5+:3]",
        alternatives=(
            Alternative(
                "no catch-up faces",
                {"faces": [{"amount": a, "behind": 0} for a in (0, 1, 1, 1, 2, 3)]},
                "invented",
            ),
        ),
    ),
)


PROCEDURE = Procedure(
    name="root.influence",
    title="Root hirelings: influence dice",
    rules="Root hirelings rules §1 (docs/rules/root.md#hirelings-1)",
    assumptions=ASSUMPTIONS,
    given=settings("players", "behind"),
    params_model=InfluenceParams,
    metrics=metrics,
    pack=pack,
    kernel=influence_kernel,
    exact=exact,
    packed_layout=PACKED,
    metric_layout=METRICS,
    example={"players": 4, "behind": 3},
)
