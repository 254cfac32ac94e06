"""root.hirelings: the parameters, the metrics and the packed row.

See :mod:`simulator.procedures.root.hirelings` for the rules.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.agents.spec import (
    AGENT_ROW,
    Policies,
    one_agent_or_one_per_seat,
    pack_agents,
    seat_agents,
)
from simulator.layout import Layout
from simulator.procedures.base import Metric, Params, metric_layout
from simulator.procedures.root.hirelings.state import (
    DIPLOMAT,
    FAMILIES,
    GAIN,
    MAX_GAINS,
    MAX_HIRELINGS,
    MAX_ROUNDS,
    MAX_SEATS,
    NORMAL,
    PACKED,
    VETERAN,
)
from simulator.procedures.root.influence import DEFAULT_FACES, MAX_FACES, Face

#: Win shares are integers of 1/WIN_SCALE (ties of 2..6 seats split exactly).
WIN_SCALE = 60


class Hireling(Params):
    name: str = Field(min_length=1, max_length=40, description="the hireling's name")
    cost: int = Field(default=1, ge=1, le=6, description="influence to take control of it")
    protectable: bool = Field(default=True, description="it can be protected")


class Gain(Params):
    points: int = Field(ge=0, le=20, description="points scored in a round")
    weight: int = Field(default=1, ge=1, le=1000, description="relative chance of this gain")


DEFAULT_HIRELINGS = (
    Hireling(name="forest_patrol"),
    Hireling(name="last_dynasty"),
    Hireling(name="spring_uprising"),
)
DEFAULT_GAIN = (
    (
        Gain(points=1, weight=1),
        Gain(points=2, weight=2),
        Gain(points=3, weight=2),
        Gain(points=4, weight=1),
    ),
)


class HirelingsParams(Params):
    players: int = Field(default=3, ge=2, le=MAX_SEATS, description="players in the game (2-6)")
    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS, description="rounds played")
    policies: Policies = Field(
        default="greedy",
        description="how the players spend influence: one agent for every seat or one per seat "
        "(random, greedy, rollout, mcts)",
    )
    hireling_points: int = Field(
        default=0,
        ge=0,
        le=5,
        description="INVENTED assumption: points each player scores at every round's end per "
        "hireling it controls (the rulebook counts controlled hirelings as control points, 001 "
        "四.4, without a number); 0 = hirelings never score, the module as written",
    )
    hirelings: list[Hireling] = Field(
        default_factory=lambda: list(DEFAULT_HIRELINGS),
        min_length=3,
        max_length=3,
        description="the three hirelings in play",
    )
    veteran_cost: int = Field(default=3, ge=1, le=6, description="influence to take the Veteran")
    diplomat_cost: int = Field(default=2, ge=1, le=6, description="influence to take a Diplomat")
    faces: list[Face] = Field(
        default_factory=lambda: list(DEFAULT_FACES),
        min_length=1,
        max_length=MAX_FACES,
        description="faces of one influence die (assumption: [0, 1, 1, 1+:1, 3+:2, 5+:3])",
    )
    score_gain: list[list[Gain]] = Field(
        default_factory=lambda: [list(d) for d in DEFAULT_GAIN],
        min_length=1,
        max_length=MAX_SEATS,
        description="each seat's points per round as a distribution; one entry applies to "
        "every seat (default invented: 1-4, mean 2.5)",
    )

    _one_agent_or_one_per_seat = field_validator("policies")(one_agent_or_one_per_seat)

    @field_validator("hirelings")
    @classmethod
    def _distinct_names(cls, v: list[Hireling]) -> list[Hireling]:
        names = [h.name for h in v]
        for name in names:
            if names.count(name) > 1:
                # Reports and metrics name hirelings: two of one name could not be told apart.
                raise ValueError(f"hireling name {name!r} is given twice: names must differ")
        return v

    def seat_kinds(self) -> list[str]:
        """The agent rung of every seat."""
        return [a.agent for a in seat_agents(self.policies, self.players)]

    @field_validator("score_gain")
    @classmethod
    def _one_per_seat(cls, v: list[list[Gain]], info: ValidationInfo) -> list[list[Gain]]:
        players = info.data.get("players")
        if players is not None and len(v) not in (1, players):
            raise ValueError(f"give one distribution for every seat or one per seat ({players})")
        for k, dist in enumerate(v):
            if not 1 <= len(dist) <= MAX_GAINS:
                raise ValueError(f"seat {k + 1}'s distribution needs 1 to {MAX_GAINS} entries")
        return v


def _seats(p: HirelingsParams) -> range:
    return range(1, p.players + 1)


def metrics(p: HirelingsParams) -> list[Metric]:
    out = [
        Metric(
            f"controlled_rounds.seat{s}",
            "mean",
            f"hireling-rounds seat {s} controls (hirelings held at each round's end)",
        )
        for s in _seats(p)
    ]
    out += [
        Metric(
            f"controlled_rounds.rank{r}",
            "mean",
            f"hireling-rounds held by the player ranked {r} in score at the round's end",
            headline=False,
        )
        for r in _seats(p)
    ]
    out += [Metric("control_changes", "mean", "times a hireling gets a new controller")]
    out += [
        Metric(f"influence_spent.seat{s}", "mean", f"influence seat {s} spends", headline=False)
        for s in _seats(p)
    ]
    out += [
        Metric(
            f"influence_spent.rank{r}",
            "mean",
            f"influence spent by the player ranked {r} in score when spending",
            headline=False,
        )
        for r in _seats(p)
    ]
    out += [
        Metric("protections", "mean", "protect purchases"),
        Metric(
            "catch_up",
            "mean",
            "rounds ending with the player last in score holding the most hirelings (at "
            "least one, ties count); a count, so variants compare at equal rounds",
        ),
    ]
    out += [
        Metric(
            f"wins.seat{s}",
            "mean",
            f"share of the win of seat {s} (highest score at the end; ties share)",
            scale=WIN_SCALE,
        )
        for s in _seats(p)
    ]
    out += [
        Metric("draws", "proportion", "games whose win is shared (a tie for the highest score)"),
        Metric(
            "length",
            "distribution",
            "rounds played (always `rounds`: the game has no early end)",
            max_value=p.rounds,
            headline=False,
        ),
        Metric(
            "lead_changes",
            "mean",
            "times the sole score leader (at the end of a round) changed",
        ),
        Metric(
            "decided_at",
            "conditional_mean",
            "round from which the eventual sole winner led alone for good (games with a sole "
            "winner)",
        ),
    ]
    return out


def _gains(p: HirelingsParams) -> list[float]:
    """Each seat's round points (``GAIN`` rows, ``MAX_SEATS`` of them; unused seats zero)."""
    rows = []
    for seat in range(MAX_SEATS):
        if seat >= p.players:
            rows.append(np.zeros(GAIN.size))
            continue
        dist = p.score_gain[seat if len(p.score_gain) > 1 else 0]
        unused = [0] * (MAX_GAINS - len(dist))
        cumulative = list(np.cumsum([g.weight for g in dist]))
        rows.append(
            GAIN.row(
                n=len(dist),
                total=cumulative[-1],
                points=[g.points for g in dist] + unused,
                cumulative=cumulative + unused,
            )
        )
    return list(np.concatenate(rows))


def first_metrics(p: HirelingsParams) -> list[int]:
    """Where each metric family (``FAMILIES``) starts in the metric row of ``p``."""
    layout = metric_layout(metrics(p))
    return [layout.at(family) for family in FAMILIES.names]


def pack(p: HirelingsParams) -> np.ndarray:
    hires = [(h.cost, int(h.protectable), NORMAL) for h in p.hirelings]
    if p.players == 2:
        hires.append((p.veteran_cost, 0, VETERAN))
    else:
        hires += [(p.diplomat_cost, 0, DIPLOMAT)] * 2
    unused_hirelings = [0] * (MAX_HIRELINGS - len(hires))
    unused_faces = [0] * (MAX_FACES - len(p.faces))
    agents = pack_agents(seat_agents(p.policies, p.players)).reshape(-1)
    return PACKED.row(
        players=p.players,
        rounds=p.rounds,
        hireling_points=p.hireling_points,
        hirelings=len(hires),
        cost=[cost for cost, _, _ in hires] + unused_hirelings,
        kind=[protectable + 2 * kind for _, protectable, kind in hires] + unused_hirelings,
        faces=len(p.faces),
        amount=[f.amount for f in p.faces] + unused_faces,
        face_behind=[f.behind for f in p.faces] + unused_faces,
        gain=_gains(p),
        first_metric=first_metrics(p),
        agents=np.concatenate([agents, np.zeros(MAX_SEATS * AGENT_ROW - agents.size)]),
    )


def metric_layout_of(p: HirelingsParams) -> Layout:
    """The metric row of ``p`` (one slot per metric of ``metrics(p)``)."""
    return metric_layout(metrics(p))
