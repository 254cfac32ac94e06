"""Here I Stand interception and avoiding battle (Here I Stand rules §5.3, at sea §6.3).

The formation rolls 2d6 and adds the battle rating of one leader; it succeeds at ``target`` (9) or
more. Cavalry in the rolling formation add 1 (``with_cavalry``); cavalry in the enemy formation it
rolls against subtract 1 (``against_cavalry``). On land, a formation that lost a field battle this
impulse avoids battle automatically (``lost_battle_this_impulse``, avoid only).

At sea (``forces: naval``, §6.3) the rolls are the same with three differences: a fleet entering a
port cannot be intercepted, and a fleet in a port cannot avoid battle (``port``: the attempt is
not allowed and fails); a fleet that lost a naval battle this impulse still rolls to avoid.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import kernel
from simulator.layout import Layout
from simulator.procedures.base import Assumption, Metric, Params, Procedure, rulebook, settings
from simulator.procedures.his._rules import cite
from simulator.rng import block_word, d6_of, high32, low32, word_base

MAX_LEADER = 6


class InterceptionParams(Params):
    kind: Literal["intercept", "avoid"] = Field(
        default="intercept", description="intercept a moving formation, or avoid battle"
    )
    forces: Literal["land", "naval"] = Field(
        default="land",
        description="land formations (Here I Stand rules §5.3) or fleets (§6.3: no interception "
        "into a port, no avoiding from a port, a beaten fleet still rolls to avoid)",
    )
    leader: int = Field(
        default=0,
        ge=0,
        le=MAX_LEADER,
        description="battle rating of the leader rolling, 0 for none",
    )
    with_cavalry: bool = Field(default=False, description="the rolling formation has cavalry: +1")
    against_cavalry: bool = Field(
        default=False, description="the enemy formation it rolls against has cavalry: -1"
    )
    lost_battle_this_impulse: bool = Field(
        default=False,
        description="avoid only: the formation lost a battle this impulse; on land it avoids "
        "automatically (Here I Stand rules §5.3 (2)), at sea it still rolls (§6.3)",
    )
    target: int = Field(
        default=9, ge=2, le=20, description="lowest modified 2d6 total that succeeds"
    )
    port: bool = Field(
        default=False,
        description="naval only: intercept - the enemy fleet is entering a port; avoid - the "
        "fleet is in a port: either way the rules allow no attempt (Here I Stand rules §6.3)",
    )

    @field_validator("lost_battle_this_impulse")
    @classmethod
    def _avoid_only(cls, v: bool, info: ValidationInfo) -> bool:
        kind = info.data.get("kind")
        if v and kind == "intercept":
            raise ValueError(
                "applies only when avoiding battle: set kind to avoid or drop it "
                "(kind is 'intercept')"
            )
        return v

    @field_validator("port")
    @classmethod
    def _naval_only(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("forces") == "land":
            raise ValueError(
                "applies only at sea (Here I Stand rules §6.3): set forces to naval or drop it"
            )
        return v

    @field_validator("with_cavalry", "against_cavalry")
    @classmethod
    def _cavalry_on_land(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("forces") == "naval":
            raise ValueError(
                "cavalry are land units (Here I Stand rules §11.1): drop it or set forces to land"
            )
        return v


def modifier(p: InterceptionParams) -> int:
    """What is added to the 2d6 roll."""
    return p.leader + (1 if p.with_cavalry else 0) - (1 if p.against_cavalry else 0)


def automatic(p: InterceptionParams) -> bool:
    """Land only: a formation beaten this impulse avoids without a roll (§5.3 (2), not §6.3)."""
    return p.kind == "avoid" and p.lost_battle_this_impulse and p.forces == "land"


def allowed(p: InterceptionParams) -> bool:
    """Whether the rules allow the attempt (§6.3: none into or from a port at sea)."""
    return not (p.forces == "naval" and p.port)


PACKED = Layout("modifier", "target", "automatic", "allowed")
MODIFIER, TARGET, AUTOMATIC, ALLOWED = (
    PACKED.at(n) for n in ("modifier", "target", "automatic", "allowed")
)
METRICS = Layout("success")
SUCCESS = METRICS.at("success")
N_METRICS = METRICS.size


def metrics(p: InterceptionParams) -> list[Metric]:
    return [
        Metric(
            "success",
            "proportion",
            "2d6 + leader + modifiers reached the target (0 where the rules allow no attempt)",
        )
    ]


def pack(p: InterceptionParams) -> np.ndarray:
    return PACKED.row(
        modifier=modifier(p),
        target=p.target,
        automatic=1 if automatic(p) else 0,
        allowed=1 if allowed(p) else 0,
    )


@kernel
def interception_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        base = word_base(key, start, 0)
        for v in range(n_variants):
            mod = np.int64(packed[v, MODIFIER])
            # Succeed when the two dice reach target - modifier.
            need = np.int64(packed[v, TARGET]) - mod
            auto = packed[v, AUTOMATIC] > 0.5
            ok = packed[v, ALLOWED] > 0.5
            for i in range(m):
                x = block_word(base, i)
                roll = d6_of(low32(x)) + d6_of(high32(x))
                values[v, SUCCESS, i] = ok & (auto | (roll >= need))
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def exact(p: InterceptionParams) -> dict[str, float]:
    """Exact value: count the 36 rolls of two dice.

    Recomputed from the rule text, not through :func:`modifier` / :func:`automatic` (which pack
    the kernel's inputs), so a misread modifier shows up as a kernel estimate away from this value.
    """
    if p.forces == "naval" and p.port:
        return {"success": 0.0}  # §6.3: no interception into a port, no avoiding from one
    if p.kind == "avoid" and p.lost_battle_this_impulse and p.forces == "land":
        return {"success": 1.0}  # §5.3 (2); at sea a beaten fleet still rolls (§6.3)
    hits = 0
    for a in range(1, 7):
        for b in range(1, 7):
            total = a + b + p.leader
            if p.with_cavalry:
                total += 1  # cavalry in the rolling formation: +1 to its own roll
            if p.against_cavalry:
                total -= 1  # cavalry in the enemy formation: -1 to rolls against it
            hits += total >= p.target
    return {"success": hits / 36}


ASSUMPTIONS = (
    Assumption(
        name="naval_interception",
        knob="forces",
        tag="rulebook",
        rule=cite("6.3"),
        text="forces: naval applies §6.3: an attempt into or from a port (port: true) is not "
        "allowed, and a fleet beaten this impulse still rolls to avoid; forces: land keeps "
        "§5.3, where a formation beaten this impulse avoids without a roll",
    ),
)


PROCEDURE = Procedure(
    name="his.interception",
    title="Here I Stand interception and avoiding battle",
    rules="Here I Stand rules §5.3, §6.3, §11.1 (docs/rules/here-i-stand.md#s5-3)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings(
            "kind",
            "leader",
            "with_cavalry",
            "against_cavalry",
            "lost_battle_this_impulse",
            "port",
        ),
        *rulebook(cite("5.3"), "target"),
    ),
    params_model=InterceptionParams,
    metrics=metrics,
    pack=pack,
    kernel=interception_kernel,
    exact=exact,
    example={"kind": "intercept", "leader": 2},
    notes=(
        "with_cavalry and against_cavalry may both hold (cavalry on both sides): they cancel",
        "forces: naval (Here I Stand rules §6.3): port: true refuses the attempt (success 0); "
        "lost_battle_this_impulse still rolls at sea",
    ),
)
