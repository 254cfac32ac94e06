"""Pig: the parameters, the metrics, the packed row and the metric row.

See :mod:`simulator.procedures.template.pig` for the rules. ``PACKED`` and ``METRICS`` are the
declared layouts (:mod:`simulator.layout`): ``pack`` writes the row by name, the kernel reads it
through the offsets taken below, and a house test (tests/test_layouts.py) checks both against
``pack`` and ``metrics()``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from simulator.agents.spec import AGENT_ROW, SOLVED, Policies, pack_agents, seat_agents
from simulator.layout import Layout
from simulator.procedures.base import Metric, Params, metric_layout, metric_slot
from simulator.solver.pig import check, policy_words

MAX_SEATS = 4
MAX_TARGET = 200
MAX_TURNS = 400


class PigParams(Params):
    players: int = Field(default=2, ge=2, le=MAX_SEATS, description="players in the game (2-4)")
    target: int = Field(
        default=100, ge=10, le=MAX_TARGET, description="points that win at once (Pig rules §3)"
    )
    max_turns: int = Field(
        default=200,
        ge=1,
        le=MAX_TURNS,
        description="INVENTED: turns (all seats) before the game is drawn; the rules have no limit",
    )
    opening: Literal["roll", "stop"] = Field(
        default="roll",
        description="how a turn opens: roll (Pig rules §2: a turn always begins with a roll) or "
        "stop (a reading: the turn opens with a choice, and holding at 0 passes the die, as "
        "OpenSpiel's Pig plays)",
    )
    policies: Policies = Field(
        default="greedy",
        description="who plays: one agent for every seat or one per seat (random, greedy, "
        "rollout, mcts; optimal: the exact solver's table, 2 players, target up to 125)",
    )

    @model_validator(mode="after")
    def _one_agent_or_one_per_seat(self) -> PigParams:
        """One agent or one per seat; ``optimal`` only where the exact solver takes the game."""
        agents = seat_agents(self.policies, self.players, solvable=True)
        if any(a.agent == SOLVED for a in agents):
            check(self.players, self.target)  # a TooLarge is a ValueError: a located error
        return self


def metrics(p: PigParams) -> list[Metric]:
    out = [
        Metric(f"wins.seat{s}", "proportion", f"seat {s} reaches the target first")
        for s in range(1, p.players + 1)
    ]
    out += [
        Metric("draws", "proportion", "games that hit max_turns (an invented limit)"),
        Metric("length", "distribution", "turns played", max_value=p.max_turns),
        Metric("pigs", "mean", "turns lost to a 1", headline=False),
    ]
    return out


#: The metric row: per-seat wins first, so where ``draws`` starts depends on the players; the
#: packed row carries where each family starts (``first_metric``), written from this layout.
FAMILIES = Layout("wins_seat1", "draws", "length", "pigs")
WINS, DRAWS, LENGTH, PIGS = (FAMILIES.at(name) for name in FAMILIES.names)
N_FAMILIES = FAMILIES.size

#: The packed row: the knobs, the metric families' starts, each seat's agent row.
PACKED = Layout(
    "players",
    "target",
    "max_turns",
    "opening_stop",
    ("first_metric", N_FAMILIES),
    ("agents", MAX_SEATS * AGENT_ROW),
)
P_PLAYERS, P_TARGET, P_MAX_TURNS = PACKED.at("players"), PACKED.at("target"), PACKED.at("max_turns")
P_OPENING_STOP = PACKED.at("opening_stop")
P_FIRST_METRIC, P_AGENTS = PACKED.at("first_metric"), PACKED.at("agents")
#: Where an ``optimal`` seat's table of moves starts (after the declared row).
P_TABLE = PACKED.size


def metric_layout_of(p: PigParams) -> Layout:
    """The metric row of ``p``: one slot per metric of ``metrics(p)``."""
    return metric_layout(metrics(p))


def pack(p: PigParams) -> np.ndarray:
    """The packed row; with an ``optimal`` seat, the solved table of moves follows it
    (:func:`simulator.solver.pig.policy_words`, read by the kernel from ``PACKED.size`` on)."""
    layout = metric_layout_of(p)
    specs = seat_agents(p.policies, p.players, solvable=True)
    agents = pack_agents(specs).reshape(-1)
    row = PACKED.row(
        players=p.players,
        target=p.target,
        max_turns=p.max_turns,
        opening_stop=p.opening == "stop",
        first_metric=[layout.at(metric_slot(family)) for family in FAMILIES.names],
        agents=np.concatenate([agents, np.zeros(MAX_SEATS * AGENT_ROW - agents.size)]),
    )
    if any(a.agent == SOLVED for a in specs):
        return np.concatenate([row, policy_words(p.target, p.opening == "stop")])
    return row
