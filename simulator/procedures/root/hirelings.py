"""Root hirelings module: a game of influence spending over hirelings (RULES.md §2.1).

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

Decisions where the seed is silent (parameters or documented): seat 1 holds the first-player card
at the start; a taken hireling arrives unprotected; the ``greedy`` policy takes the
cheapest hireling it can (from the score leader first, then the supply), else protects its own, else
unprotects the leader's hireling when it could then take it; it gives the second Diplomat to the
lowest-scoring enemy. ``random`` picks uniformly among the legal purchases until none is left.
Players are named by ``policies`` (one agent for all seats or one per seat); ``rollout`` and
``mcts`` are refused until the search agents are wired to this game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.agents.spec import AGENT_CODES, Policies, as_spec, seat_agents
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.procedures.root.influence import DEFAULT_FACES, MAX_FACES, Face
from simulator.rng import die_of, high32, low32, next_word, trial_state

MAX_SEATS = 6
MAX_GAINS = 8
MAX_ROUNDS = 30
MAX_HIRELINGS = 6  # three hirelings + the Veteran or the two Diplomats
NORMAL, VETERAN, DIPLOMAT = 0, 1, 2
#: The agent rungs this game plays (kernel codes from simulator.agents.spec).
PLAYED_AGENTS = ("random", "greedy")
GREEDY = AGENT_CODES["greedy"]


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
        "(random or greedy; rollout and mcts are not wired to this game yet)",
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
    def _agents_this_game_plays(cls, v: Any, info: ValidationInfo) -> Any:
        players = info.data.get("players")
        if players is not None:
            agents = seat_agents(v, players)
        else:
            agents = [as_spec(a) for a in (v if isinstance(v, list) else [v])]
        for a in agents:
            if a.agent not in PLAYED_AGENTS:
                raise ValueError(
                    f"root.hirelings plays only {' and '.join(PLAYED_AGENTS)} agents for now "
                    f"({a.agent} is not wired to this game yet)"
                )
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
    return out


# Packed row layout.
H0 = 8
F0 = H0 + 2 * MAX_HIRELINGS + 1
G0 = F0 + 2 * MAX_FACES + 1
A0 = G0 + MAX_SEATS * (2 * MAX_GAINS + 2)  # each seat's agent rung (AGENT_CODES)
ROW = A0 + MAX_SEATS


def pack(p: HirelingsParams) -> np.ndarray:
    row = np.zeros(ROW, dtype=np.float64)
    row[0] = p.players
    row[1] = p.rounds
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
        base = G0 + s * (2 * MAX_GAINS + 2)
        row[base] = len(dist)
        total = 0
        for k, g in enumerate(dist):
            total += g.weight
            row[base + 2 + k] = g.points
            row[base + 2 + MAX_GAINS + k] = total
        row[base + 1] = total
    for seat, rung in enumerate(p.seat_kinds()):
        row[A0 + seat] = AGENT_CODES[rung]
    return row


@inline
def _uniform(state, n):
    return die_of(low32(next_word(state)), n) - 1


@inline
def _rank(score, players, s):
    """Score rank of seat s (1 = leader); ties go to the lower seat."""
    r = 1
    for o in range(players):
        if score[o] > score[s] or (score[o] == score[s] and o < s):
            r += 1
    return r


@kernel
def hirelings_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    score = np.zeros(MAX_SEATS, dtype=np.int64)
    held = np.zeros(MAX_SEATS, dtype=np.int64)
    holder = np.zeros(MAX_HIRELINGS, dtype=np.int64)
    protected = np.zeros(MAX_HIRELINGS, dtype=np.int64)
    exhausted = np.zeros(MAX_HIRELINGS, dtype=np.int64)
    legal = np.zeros(3 * MAX_HIRELINGS, dtype=np.int64)
    out = np.zeros(n_metrics, dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            row = packed[v]
            players = np.int64(row[0])
            rounds = np.int64(row[1])
            n_hire = np.int64(row[H0 - 1])
            n_faces = np.int64(row[F0 - 1])
            # Metric offsets, in metrics() order.
            m_rank = players
            m_changes = 2 * players
            m_spent = 2 * players + 1
            m_spent_rank = 3 * players + 1
            m_protections = 4 * players + 1
            m_catch_up = 4 * players + 2
            for i in range(m):
                state[0] = trial_state(key, start + i)
                for k in range(n_metrics):
                    out[k] = 0
                for s in range(players):
                    score[s] = 0
                for h in range(n_hire):
                    holder[h] = -1
                    protected[h] = 0
                    exhausted[h] = 0
                first = 0  # seat 1 holds the first-player card at the start
                for _round in range(rounds):
                    # Before the first player's turn, the Veteran's holder takes the first-player
                    # card and the Veteran returns to the supply (uncontrolled).
                    for h in range(n_hire):
                        if np.int64(row[H0 + MAX_HIRELINGS + h]) // 2 == VETERAN and holder[h] >= 0:
                            first = holder[h]
                            holder[h] = -1
                    for turn in range(players):
                        s = (first + turn) % players
                        greedy = np.int64(row[A0 + s]) == GREEDY
                        # The seat's points this round.
                        g = G0 + s * (2 * MAX_GAINS + 2)
                        u = _uniform(state, np.int64(row[g + 1]))
                        k = 0
                        while u >= row[g + 2 + MAX_GAINS + k]:
                            k += 1
                        score[s] += np.int64(row[g + 2 + k])
                        # End of its Evening: influence dice.
                        leader = 0
                        for o in range(players):
                            leader = max(leader, score[o])
                        behind = leader - score[s]
                        x = next_word(state)
                        f1 = die_of(low32(x), n_faces) - 1
                        f2 = die_of(high32(x), n_faces) - 1
                        a1 = np.int64(row[F0 + f1]) if behind >= row[F0 + MAX_FACES + f1] else 0
                        a2 = np.int64(row[F0 + f2]) if behind >= row[F0 + MAX_FACES + f2] else 0
                        if players == 2:
                            influence = a1 + a2
                        elif players == 3:
                            influence = max(a1, a2)
                        else:
                            influence = a1
                        rank = _rank(score, players, s)
                        # Spend it at once: it is never saved.
                        while True:
                            # Legal purchases: 3*h take, 3*h+1 protect, 3*h+2 unprotect.
                            n_legal = 0
                            for h in range(n_hire):
                                cost = np.int64(row[H0 + h])
                                kind = np.int64(row[H0 + MAX_HIRELINGS + h]) // 2
                                protectable = np.int64(row[H0 + MAX_HIRELINGS + h]) % 2 == 1
                                mine = holder[h] == s
                                free = holder[h] < 0
                                # The Veteran and the Diplomats cannot be taken while controlled.
                                takeable = (free or (not mine and protected[h] == 0)) and (
                                    kind == NORMAL or free
                                )
                                if takeable and not mine and cost <= influence:
                                    legal[n_legal] = 3 * h
                                    n_legal += 1
                                if mine and protectable and protected[h] == 0 and influence >= 1:
                                    legal[n_legal] = 3 * h + 1
                                    n_legal += 1
                                if (
                                    (not mine)
                                    and (not free)
                                    and protected[h] == 1
                                    and (influence >= 1)
                                ):
                                    legal[n_legal] = 3 * h + 2
                                    n_legal += 1
                            if n_legal == 0:
                                break
                            choice = -1
                            if greedy:
                                # Take the cheapest, from the highest-scoring holder first
                                # (the supply counts as the lowest).
                                best_key = -1
                                for c in range(n_legal):
                                    a = legal[c]
                                    if a % 3 == 0:
                                        h = a // 3
                                        owner = score[holder[h]] if holder[h] >= 0 else -1
                                        key_ = (10 - np.int64(row[H0 + h])) * 1000 + owner + 1
                                        if key_ > best_key:
                                            best_key = key_
                                            choice = a
                                if choice < 0:
                                    for c in range(n_legal):
                                        if legal[c] % 3 == 1:
                                            choice = legal[c]
                                            break
                                if choice < 0:
                                    best_key = -1
                                    for c in range(n_legal):
                                        a = legal[c]
                                        h = a // 3
                                        if influence >= 1 + np.int64(row[H0 + h]) and (
                                            score[holder[h]] > best_key
                                        ):
                                            best_key = score[holder[h]]
                                            choice = a
                                if choice < 0:
                                    break
                            else:
                                choice = legal[_uniform(state, n_legal)]
                            h = choice // 3
                            what = choice % 3
                            if what == 0:
                                influence -= np.int64(row[H0 + h])
                                out[m_spent + s] += np.int64(row[H0 + h])
                                out[m_spent_rank + rank - 1] += np.int64(row[H0 + h])
                                holder[h] = s
                                protected[h] = 0
                                out[m_changes] += 1
                                if np.int64(row[H0 + MAX_HIRELINGS + h]) // 2 == DIPLOMAT:
                                    # The other Diplomat goes to an enemy of the taker's choice.
                                    gift = -1
                                    if greedy:
                                        for o in range(players):
                                            if o != s and (gift < 0 or score[o] < score[gift]):
                                                gift = o
                                    else:
                                        gift = _uniform(state, players - 1)
                                        gift += np.int64(gift >= s)
                                    for o in range(n_hire):
                                        if o != h and (
                                            np.int64(row[H0 + MAX_HIRELINGS + o]) // 2 == DIPLOMAT
                                        ):
                                            holder[o] = gift
                                            out[m_changes] += 1
                            else:
                                influence -= 1
                                out[m_spent + s] += 1
                                out[m_spent_rank + rank - 1] += 1
                                protected[h] = 1 if what == 1 else 0
                                if what == 1:
                                    out[m_protections] += 1
                        # Diplomats flip to exhausted at the end of their holder's Evening; both
                        # return to the supply once both are exhausted.
                        n_dip = 0
                        n_exhausted = 0
                        for h in range(n_hire):
                            if np.int64(row[H0 + MAX_HIRELINGS + h]) // 2 == DIPLOMAT:
                                n_dip += 1
                                if holder[h] == s:
                                    exhausted[h] = 1
                                n_exhausted += exhausted[h]
                        if n_dip > 0 and n_exhausted == n_dip:
                            for h in range(n_hire):
                                if np.int64(row[H0 + MAX_HIRELINGS + h]) // 2 == DIPLOMAT:
                                    holder[h] = -1
                                    exhausted[h] = 0
                    # End of the round: who holds what.
                    for o in range(players):
                        held[o] = 0
                    for h in range(n_hire):
                        if holder[h] >= 0:
                            held[holder[h]] += 1
                    last = 0
                    for o in range(players):
                        out[o] += held[o]
                        out[m_rank + _rank(score, players, o) - 1] += held[o]
                        if score[o] < score[last]:
                            last = o
                    most = True
                    for o in range(players):
                        if held[o] > held[last]:
                            most = False
                    if most and held[last] > 0:
                        out[m_catch_up] += 1
                for k in range(n_metrics):
                    values[v, k, i] = out[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


PROCEDURE = Procedure(
    name="root.hirelings",
    title="Root hirelings: influence spending over a game",
    rules="RULES.md §2.1",
    params_model=HirelingsParams,
    metrics=metrics,
    pack=pack,
    kernel=hirelings_kernel,
    example={"players": 3, "rounds": 10},
    notes=(
        "assumption: influence dice faces [0, 1, 1, 1+:1, 3+:2, 5+:3] (faces)",
        "assumption: a taken hireling arrives unprotected; seat 1 holds the first-player card "
        "at the start and keeps it until a Veteran holder takes it",
        "players: policies (random, greedy); rollout and mcts are refused until wired",
        "score gains per round are scenario data (default invented: 1-4 points, mean 2.5)",
        "catch_up: the player last in score (lowest seat on ties) holds at least as many "
        "hirelings as anyone else, and at least one",
    ),
)
