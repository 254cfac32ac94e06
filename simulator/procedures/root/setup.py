"""Root hirelings module: the advanced setup draft (RULES.md §2.2).

Setup cards dealt = players + 1: one red card to the pool first, then the rest of the reds
shuffled with the whites (2 players: the whites are removed), one per player. If the last card dealt
is white it is locked until a red faction has been chosen. Picks go from the last player
counter-clockwise, each taking one card of the pool (at random, or the first available on a
preference list). Three hirelings are dealt at random, never the minor faction of a chosen faction;
minor factions demoted: 3 players → 1 at random, 4 → 2, 5+ → all 3 (2 players: none).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import die_of, low32, next_word, trial_state

MAX_FACTIONS = 16
HIRELINGS_DEALT = 3


class FactionCard(Params):
    name: str = Field(min_length=1, max_length=40, description="the faction's name")
    colour: Literal["red", "white"] = Field(description="colour of its setup card")
    minor: str = Field(
        default="",
        max_length=40,
        description="its minor faction (hireling); never dealt when the faction is chosen",
    )


DEFAULT_FACTIONS = (
    FactionCard(name="marquise", colour="red", minor="forest_patrol"),
    FactionCard(name="eyrie", colour="red", minor="last_dynasty"),
    FactionCard(name="duchy", colour="red", minor="sunward_expedition"),
    FactionCard(name="alliance", colour="white", minor="spring_uprising"),
    FactionCard(name="vagabond", colour="white", minor="vagrant_band"),
    FactionCard(name="lizards", colour="white", minor="warm_sun_prophets"),
    FactionCard(name="riverfolk", colour="white", minor="riverfolk_flotilla"),
    FactionCard(name="corvids", colour="white", minor="corvid_spies"),
)


class SetupParams(Params):
    players: int = Field(default=4, ge=2, le=6, description="players in the game (2-6)")
    factions: list[FactionCard] = Field(
        default_factory=lambda: list(DEFAULT_FACTIONS),
        min_length=3,
        max_length=MAX_FACTIONS,
        description="the faction setup cards (name, colour, minor hireling)",
    )
    policy: Literal["random", "preference"] = Field(
        default="random", description="how a player picks from the pool"
    )
    preferences: list[str] = Field(
        default_factory=list,
        max_length=MAX_FACTIONS,
        description="faction names, most wanted first (policy preference); unlisted factions "
        "come after, in the order of factions",
    )

    @field_validator("factions")
    @classmethod
    def _cards_make_a_draft(cls, v: list[FactionCard], info: ValidationInfo) -> list[FactionCard]:
        names = [f.name for f in v]
        for k, name in enumerate(names):
            if name in names[:k]:
                raise ValueError(
                    f"faction {name!r} is listed twice (entry {k}): names must be unique"
                )
        minors = [f.minor for f in v if f.minor]
        for name in minors:
            if minors.count(name) > 1:
                raise ValueError(f"hireling {name!r} is the minor of two factions: make it unique")
        players = info.data.get("players")
        if players is None:
            return v
        reds = sum(f.colour == "red" for f in v)
        if reds < 1:
            raise ValueError("needs at least one red card (one is dealt to the pool first)")
        usable = reds if players == 2 else len(v)
        if usable < players + 1:
            raise ValueError(
                f"{players} players need {players + 1} setup cards "
                f"({'red only, ' if players == 2 else ''}got {usable})"
            )
        if len(minors) < players + HIRELINGS_DEALT:
            raise ValueError(
                f"{players} players need at least {players + HIRELINGS_DEALT} "
                f"factions with a minor hireling (got {len(minors)})"
            )
        return v

    @field_validator("preferences")
    @classmethod
    def _known_factions(cls, v: list[str], info: ValidationInfo) -> list[str]:
        factions = info.data.get("factions")
        if factions is None:
            return v
        names = [f.name for f in factions]
        for name in v:
            if name not in names:
                raise ValueError(f"unknown faction {name!r}: choose from {names}")
        return v


def demoted_count(players: int) -> int:
    return {2: 0, 3: 1, 4: 2}.get(players, 3)


def metrics(p: SetupParams) -> list[Metric]:
    out = [Metric(f"in_play.{f.name}", "proportion", f"{f.name} is chosen") for f in p.factions]
    out += [
        Metric("last_card_locked", "proportion", "the last card dealt is white (locked)"),
        Metric("demoted", "mean", "minor factions demoted"),
    ]
    out += [
        Metric(
            f"hireling.{f.minor}", "proportion", f"{f.minor} is dealt as a hireling", headline=False
        )
        for f in p.factions
        if f.minor
    ]
    return out


def pack(p: SetupParams) -> np.ndarray:
    n = len(p.factions)
    rank = {name: k for k, name in enumerate(p.preferences)}
    order = sorted(range(n), key=lambda k: (rank.get(p.factions[k].name, len(rank)), k))
    row = np.zeros(4 + 4 * MAX_FACTIONS, dtype=np.float64)
    row[0] = p.players
    row[1] = n
    row[2] = 1 if p.policy == "preference" else 0
    row[3] = demoted_count(p.players)
    for k, f in enumerate(p.factions):
        row[4 + k] = 1 if f.colour == "red" else 0
        row[4 + MAX_FACTIONS + k] = 1 if f.minor else 0
        row[4 + 2 * MAX_FACTIONS + k] = order.index(k)  # preference rank, 0 = most wanted
    return row


@inline
def _uniform(state, n):
    """A uniform index 0..n-1 from the trial's stream."""
    return die_of(low32(next_word(state)), n) - 1


@kernel
def setup_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    deck = np.zeros(MAX_FACTIONS, dtype=np.int64)
    pool = np.zeros(MAX_FACTIONS, dtype=np.int64)
    chosen = np.zeros(MAX_FACTIONS, dtype=np.int64)
    hire = np.zeros(MAX_FACTIONS, dtype=np.int64)
    taken = np.zeros(MAX_FACTIONS + 1, dtype=np.bool_)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
            players = np.int64(packed[v, 0])
            n = np.int64(packed[v, 1])
            by_preference = packed[v, 2] > 0.5
            demoted = np.int64(packed[v, 3])
            for i in range(m):
                state[0] = trial_state(key, start + i)
                # One red card to the pool first.
                n_red = 0
                for k in range(n):
                    if packed[v, 4 + k] > 0.5:
                        deck[n_red] = k
                        n_red += 1
                pick = _uniform(state, n_red)
                pool[0] = deck[pick]
                # The rest of the reds shuffled with the whites (2 players: no whites), one per
                # player: a partial Fisher-Yates shuffle deals them.
                size = 0
                for k in range(n):
                    is_red = packed[v, 4 + k] > 0.5
                    if k != pool[0] and (is_red or players > 2):
                        deck[size] = k
                        size += 1
                for d in range(players):
                    j = d + _uniform(state, size - d)
                    deck[d], deck[j] = deck[j], deck[d]
                    pool[1 + d] = deck[d]
                # A white last card is locked until a red faction has been chosen.
                last = pool[players]
                locked = packed[v, 4 + last] < 0.5
                for k in range(n):
                    chosen[k] = 0
                red_chosen = False
                for c in range(players + 1):
                    taken[c] = False
                # Picks from the last player counter-clockwise (seat order does not change
                # which factions are in play).
                for _seat in range(players):
                    best = -1
                    count = 0
                    for c in range(players + 1):
                        if taken[c] or (locked and c == players and not red_chosen):
                            continue
                        count += 1
                        if by_preference:
                            rank = packed[v, 4 + 2 * MAX_FACTIONS + pool[c]]
                            if best < 0 or rank < packed[v, 4 + 2 * MAX_FACTIONS + pool[best]]:
                                best = c
                    if not by_preference:
                        r = _uniform(state, count)
                        for c in range(players + 1):
                            if taken[c] or (locked and c == players and not red_chosen):
                                continue
                            if r == 0:
                                best = c
                                break
                            r -= 1
                    taken[best] = True
                    chosen[pool[best]] = 1
                    red_chosen = red_chosen or packed[v, 4 + pool[best]] > 0.5
                # Three hirelings at random, never the minor faction of a chosen faction.
                size = 0
                for k in range(n):
                    hire[k] = 0
                    if packed[v, 4 + MAX_FACTIONS + k] > 0.5 and chosen[k] == 0:
                        deck[size] = k
                        size += 1
                for d in range(HIRELINGS_DEALT):
                    j = d + _uniform(state, size - d)
                    deck[d], deck[j] = deck[j], deck[d]
                    hire[deck[d]] = 1
                for k in range(n):
                    values[v, k, i] = chosen[k]
                values[v, n, i] = locked
                values[v, n + 1, i] = demoted
                h = n + 2
                for k in range(n):
                    if packed[v, 4 + MAX_FACTIONS + k] > 0.5:
                        values[v, h, i] = hire[k]
                        h += 1
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def exact(p: SetupParams) -> dict[str, float]:
    """Exact values that have a closed form: the lock and the demotions."""
    reds = sum(f.colour == "red" for f in p.factions)
    whites = 0 if p.players == 2 else len(p.factions) - reds
    return {
        "last_card_locked": whites / (reds - 1 + whites),
        "demoted": float(demoted_count(p.players)),
    }


PROCEDURE = Procedure(
    name="root.setup",
    title="Root hirelings: advanced setup draft",
    rules="RULES.md §2.2",
    params_model=SetupParams,
    metrics=metrics,
    pack=pack,
    kernel=setup_kernel,
    exact=exact,
    example={"players": 4},
    notes=(
        "faction cards (colour, minor hireling) are scenario data; the defaults follow the "
        "Root base game and its expansions",
        "which minor factions are demoted is random; only the count is reported",
    ),
)
