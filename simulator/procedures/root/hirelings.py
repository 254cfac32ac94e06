"""Root hirelings module: a game of influence spending over hirelings (Root hirelings rules §1).

Each round, each seat in turn from the holder of the first-player card, clockwise, scores its
round's points (drawn from its score-gain distribution),
then, at the end of its Evening, rolls the influence dice (2 players: sum of two dice, 3 players:
better of two, 4+: one die; a face ``N+`` counts only at least ``N`` behind the leader) and spends
the influence at once (never saved). Each purchase is one of:

- take control of an uncontrolled hireling, or of an unprotected one held by another player
  (Veteran 3, Diplomat 2, the others their cost);
- protect one of its own hirelings (1; not the Veteran or a Diplomat);
- unprotect one of another player's hirelings (1).

The Veteran is in every 2-player game: it cannot be taken while controlled; before the first
player's turn its holder takes the first-player card and the Veteran returns to the supply
(uncontrolled). Two Diplomats are in every game of 3+ players: they cannot be taken while
controlled; controlling one gives the other to an enemy of the taker's choice; each flips to
exhausted at the end of its holder's Evening, and both return to the supply when both are exhausted.

Decisions where the rulebook is silent (parameters or documented): seat 1 holds the first-player
card at the start; a taken hireling arrives unprotected; the ``greedy`` policy takes the cheapest
hireling it can (from the score leader first, then the supply), else protects its own, else
unprotects the leader's hireling when it could then take it; it gives the second Diplomat to the
lowest-scoring enemy. ``random`` picks uniformly among the legal purchases until none is left.
Players are named by ``policies`` (one agent for all seats or one per seat): ``random`` and
``greedy`` are the rules above (_hirelings_game.legacy_move), ``rollout`` and ``mcts`` the generic
search agents of simulator.agents over the game interface (_hirelings_state, _hirelings_game).

Scoring: the module scores nothing itself. ``hireling_points`` (an INVENTED assumption, default 0)
scores that many points per controlled hireling at each round's end (the rulebook counts controlled
hirelings as control points, Root hirelings rules §4.4); the winner is the highest score at the end
(ties share).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, UNDEFINED, accumulate_block, new_stats
from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_KIND, AGENT_ROW, Policies, pack_agents, seat_agents
from simulator.agents.streams import start_decision
from simulator.jit import inline, kernel
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure
from simulator.procedures.root._hirelings_game import GAME, GREEDY, legacy_move
from simulator.procedures.root._hirelings_state import (
    A0,
    DIPLOMAT,
    F0,
    G0,
    GAIN_ROW,
    H0,
    H_CATCH_UP,
    H_CHANGES,
    H_LEAD_CHANGES,
    H_LEADER,
    H_PROTECTIONS,
    H_ROUND,
    H_SEAT,
    H_STREAK,
    MAX_GAINS,
    MAX_HIRELINGS,
    MAX_ROUNDS,
    MAX_SEATS,
    NORMAL,
    S_HELD,
    S_HELD_RANK,
    S_SCORE,
    S_SPENT,
    S_SPENT_RANK,
    STATE_SIZE,
    VETERAN,
    apply_move,
    is_over,
    start_game,
)
from simulator.procedures.root._rules import cite_hirelings
from simulator.procedures.root.influence import DEFAULT_FACES, MAX_FACES, Face
from simulator.rng import trial_state

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

    @field_validator("policies")
    @classmethod
    def _one_agent_or_one_per_seat(cls, v: Any, info: ValidationInfo) -> Any:
        players = info.data.get("players")
        if players is not None:
            seat_agents(v, players)  # raises on a list of the wrong length
        return v

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


def pack(p: HirelingsParams) -> np.ndarray:
    row = np.zeros(A0 + MAX_SEATS * AGENT_ROW, dtype=np.float64)
    row[0] = p.players
    row[1] = p.rounds
    row[2] = p.hireling_points
    hires = [(h.cost, int(h.protectable), NORMAL) for h in p.hirelings]
    if p.players == 2:
        hires.append((p.veteran_cost, 0, VETERAN))
    else:
        hires += [(p.diplomat_cost, 0, DIPLOMAT)] * 2
    row[H0 - 1] = len(hires)
    for k, (cost, protectable, kind) in enumerate(hires):
        row[H0 + k] = cost
        row[H0 + MAX_HIRELINGS + k] = protectable + 2 * kind
    row[F0 - 1] = len(p.faces)
    for k, f in enumerate(p.faces):
        row[F0 + k] = f.amount
        row[F0 + MAX_FACES + k] = f.behind
    for s in range(p.players):
        dist = p.score_gain[s if len(p.score_gain) > 1 else 0]
        base = G0 + s * GAIN_ROW
        row[base] = len(dist)
        total = 0
        for k, g in enumerate(dist):
            total += g.weight
            row[base + 2 + k] = g.points
            row[base + 2 + MAX_GAINS + k] = total
        row[base + 1] = total
    agents = pack_agents(seat_agents(p.policies, p.players))
    row[A0 : A0 + agents.size] = agents.reshape(-1)
    return row


_search = make_search_agents(GAME)


@inline
def choose_move(s, agent_row, rng, decision):
    """The decision hook: random and greedy play this game's own rules on the GAME stream
    ``rng`` (as before the interface), rollout and mcts search on the decision stream."""
    kind = np.int64(agent_row[AGENT_KIND])
    if kind <= GREEDY:
        return legacy_move(s, kind, rng)
    return _search(s, agent_row, decision)


@inline
def play_game(s, row, agents, rng, decision):
    """One whole game from the trial stream in ``rng``; ``s`` holds the final position."""
    trial_key = rng[0]
    start_game(s, row, rng)
    k = 0
    while not is_over(s):
        k += 1
        seat = s[H_SEAT]
        kind = np.int64(agents[seat, AGENT_KIND])
        if kind <= GREEDY:  # no row view: a view costs a reference count per decision
            move = legacy_move(s, kind, rng)
        else:
            start_decision(decision, trial_key, k - 1)
            move = _search(s, agents[seat], decision)
        apply_move(s, move, rng)


@inline
def write_metrics(s, out, players):
    """The final position's metric values in ``metrics()`` order."""
    for o in range(players):
        out[o] = s[S_HELD + o]
        out[players + o] = s[S_HELD_RANK + o]
        out[2 * players + 1 + o] = s[S_SPENT + o]
        out[3 * players + 1 + o] = s[S_SPENT_RANK + o]
    out[2 * players] = s[H_CHANGES]
    out[4 * players + 1] = s[H_PROTECTIONS]
    out[4 * players + 2] = s[H_CATCH_UP]
    wins = 4 * players + 3
    best = -1
    n_top = 0
    for o in range(players):
        if s[S_SCORE + o] > best:
            best = s[S_SCORE + o]
            n_top = 1
        elif s[S_SCORE + o] == best:
            n_top += 1
    for o in range(players):
        out[wins + o] = WIN_SCALE // n_top if s[S_SCORE + o] == best else 0
    tail = wins + players
    out[tail] = 1 if n_top > 1 else 0
    out[tail + 1] = s[H_ROUND]
    out[tail + 2] = s[H_LEAD_CHANGES]
    out[tail + 3] = s[H_STREAK] + 1 if n_top == 1 and s[H_LEADER] >= 0 else UNDEFINED


@kernel
def hirelings_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    decision = np.zeros(1, dtype=np.uint64)
    out = np.zeros(n_metrics, dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            # A private copy: reference counts on the shared packed array would bounce its
            # cache line between threads.
            row = packed[v].copy()
            players = np.int64(row[0])
            agents = np.zeros((MAX_SEATS, AGENT_ROW), dtype=np.float64)
            for o in range(players):
                for j in range(AGENT_ROW):
                    agents[o, j] = row[A0 + o * AGENT_ROW + j]
            for i in range(m):
                rng[0] = trial_state(key, start + i)
                play_game(s, row, agents, rng, decision)
                write_metrics(s, out, players)
                for k in range(n_metrics):
                    values[v, k, i] = out[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


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
    Assumption(
        name="hireling_points",
        knob="hireling_points",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="controlled hirelings count as control points but the module gives no "
        "number; default 0 (hirelings score nothing, the module as written)",
        alternatives=(
            Alternative("1 point per hireling held", {"hireling_points": 1}, "invented"),
        ),
    ),
    Assumption(
        name="score_gain",
        knob="score_gain",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="each seat's points per round outside the hirelings (1-4, mean 2.5)",
        alternatives=(
            Alternative(
                "2 points every round",
                {"score_gain": [[{"points": 2, "weight": 1}]]},
                "invented",
            ),
        ),
    ),
    Assumption(
        name="winner",
        knob="",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="the winner is the highest score after rounds, ties shared (the module is "
        "part of a longer game); not yet a knob",
    ),
    Assumption(
        name="taken_and_first_player",
        knob="",
        tag="reading",
        rule=cite_hirelings("5.3"),
        text="a taken hireling arrives unprotected; seat 1 holds the first-player card at the "
        "start and keeps it until a Veteran holder takes it; not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="root.hirelings",
    title="Root hirelings: influence spending over a game",
    rules="Root hirelings rules §1, §2, §4.4, §5, §6 (docs/rules/root.md#hirelings-module)",
    assumptions=ASSUMPTIONS,
    params_model=HirelingsParams,
    metrics=metrics,
    pack=pack,
    kernel=hirelings_kernel,
    example={"players": 3, "rounds": 10},
    notes=(
        "players: policies (random, greedy: this module's hand-written spenders, which ignore "
        "hireling_points; rollout, mcts: the generic search agents)",
        "catch_up: the player last in score (lowest seat on ties) holds at least as many "
        "hirelings as anyone else, and at least one",
    ),
)
