"""Root hirelings module: the advanced setup draft (Root advanced setup §3).

Setup cards dealt = players + 1: one red card to the pool first, then the rest of the reds
shuffled with the whites (2 players: the whites are removed), one per player. If the last card dealt
is white it is locked until a red faction has been chosen. Picks go from the last player
counter-clockwise, each taking one card of the pool (at random, or the first available on a
preference list). Three hirelings are dealt at random from the hireling pool, never the minor
faction tied to a chosen faction; minor factions demoted: 3 players → 1 at random, 4 → 2, 5+ → all
3 (2 players: none).

The pool (Root hirelings module, introduction): four minor factions tied to the four base-game
factions (Marquise, Eyrie, Alliance, Vagabond) and two tied to no faction. The rulebook does not
name the two unaffiliated ones (named ``unaffiliated_1`` and ``unaffiliated_2`` here); other pools
are scenario data. When the chosen factions leave fewer than three hirelings in the pool (four
players who chose the four base factions leave only the two unaffiliated ones) the rulebook is
silent: every remaining one is dealt and the draft is counted in ``gap_short_pool``.
"""

from __future__ import annotations

from typing import Literal

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
    metric_layout,
    metric_slot,
    settings,
)
from simulator.procedures.root._rules import cite_setup
from simulator.rng import die_of, low32, next_word, trial_state

MAX_FACTIONS = 16
HIRELINGS_DEALT = 3


class FactionCard(Params):
    name: str = Field(min_length=1, max_length=40, description="the faction's name")
    colour: Literal["red", "white"] = Field(description="colour of its setup card")


class Hireling(Params):
    name: str = Field(min_length=1, max_length=40, description="the hireling's name")
    faction: str = Field(
        default="",
        max_length=40,
        description="the faction it is the minor faction of (never dealt when that faction is "
        "chosen); empty: tied to no faction",
    )


DEFAULT_FACTIONS = (
    FactionCard(name="marquise", colour="red"),
    FactionCard(name="eyrie", colour="red"),
    FactionCard(name="duchy", colour="red"),
    FactionCard(name="alliance", colour="white"),
    FactionCard(name="vagabond", colour="white"),
    FactionCard(name="lizards", colour="white"),
    FactionCard(name="riverfolk", colour="white"),
    FactionCard(name="corvids", colour="white"),
)
#: The rulebook's pool: four tied to the base-game factions, two tied to none (names not in the
#: rulebook).
DEFAULT_HIRELINGS = (
    Hireling(name="forest_patrol", faction="marquise"),
    Hireling(name="last_dynasty", faction="eyrie"),
    Hireling(name="spring_uprising", faction="alliance"),
    Hireling(name="vagrant_band", faction="vagabond"),
    Hireling(name="unaffiliated_1"),
    Hireling(name="unaffiliated_2"),
)
MAX_HIRELINGS = 16


class SetupParams(Params):
    players: int = Field(default=4, ge=2, le=6, description="players in the game (2-6)")
    factions: list[FactionCard] = Field(
        default_factory=lambda: list(DEFAULT_FACTIONS),
        min_length=3,
        max_length=MAX_FACTIONS,
        description="the faction setup cards (name, colour)",
    )
    hirelings: list[Hireling] = Field(
        default_factory=lambda: list(DEFAULT_HIRELINGS),
        min_length=HIRELINGS_DEALT,
        max_length=MAX_HIRELINGS,
        description="the hireling pool (name, the faction it is tied to or none); default the "
        "rulebook's: four tied to the base-game factions, two tied to none",
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
        return v

    @field_validator("hirelings")
    @classmethod
    def _pool_names_factions(cls, v: list[Hireling], info: ValidationInfo) -> list[Hireling]:
        names = [h.name for h in v]
        for k, name in enumerate(names):
            if name in names[:k]:
                raise ValueError(f"hireling {name!r} is listed twice (entry {k}): make it unique")
        factions = info.data.get("factions")
        if factions is None:
            return v
        known = [f.name for f in factions]
        for h in v:
            if h.faction and h.faction not in known:
                raise ValueError(
                    f"hireling {h.name!r} is tied to {h.faction!r}, not a faction of the "
                    f"draft: choose from {known} or leave it empty (tied to none)"
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
            f"hireling.{h.name}", "proportion", f"{h.name} is dealt as a hireling", headline=False
        )
        for h in p.hirelings
    ]
    out += [
        Metric(
            "gap_short_pool",
            "proportion",
            "rule gap: the chosen factions left fewer than three hirelings to deal (all that "
            "were left are dealt)",
        )
    ]
    return out


#: The metric families in ``metrics()`` order: each faction's ``in_play``, two counts, each
#: hireling's ``hireling``, the gap. Where the later ones start depends on the factions and
#: hirelings, so ``pack`` writes each family's first slot (``first_metric``) from the metric
#: layout and the kernel reads it there.
FAMILIES = Layout("in_play", "last_card_locked", "demoted", "hireling", "gap_short_pool")
IN_PLAY, LOCKED, DEMOTED = (
    FAMILIES.at("in_play"),
    FAMILIES.at("last_card_locked"),
    FAMILIES.at("demoted"),
)
HIRED, SHORT_POOL = FAMILIES.at("hireling"), FAMILIES.at("gap_short_pool")
N_FAMILIES = FAMILIES.size

#: The packed row: the draft's sizes and policy, each faction's colour (red 1) and preference
#: rank (0 = most wanted), each hireling's tied faction (-1: none), the metric families' starts.
PACKED = Layout(
    "players",
    "factions",
    "by_preference",
    "demoted",
    ("red", MAX_FACTIONS),
    ("rank", MAX_FACTIONS),
    "hirelings",
    ("tied", MAX_HIRELINGS),
    ("first_metric", N_FAMILIES),
)
P_PLAYERS, P_FACTIONS, P_BY_PREFERENCE = (
    PACKED.at(n) for n in ("players", "factions", "by_preference")
)
P_DEMOTED, P_RED, P_RANK = PACKED.at("demoted"), PACKED.at("red"), PACKED.at("rank")
P_HIRELINGS, P_TIED, P_FIRST_METRIC = (PACKED.at(n) for n in ("hirelings", "tied", "first_metric"))


def metric_layout_of(p: SetupParams) -> Layout:
    """The metric row of ``p`` (one slot per metric of ``metrics(p)``)."""
    return metric_layout(metrics(p))


def first_metrics(p: SetupParams) -> list[int]:
    """Where each family of ``FAMILIES`` starts in the metric row of ``p``."""
    layout = metric_layout_of(p)
    firsts = {
        "in_play": f"in_play.{p.factions[0].name}",
        "last_card_locked": "last_card_locked",
        "demoted": "demoted",
        "hireling": f"hireling.{p.hirelings[0].name}",
        "gap_short_pool": "gap_short_pool",
    }
    return [layout.at(metric_slot(firsts[family])) for family in FAMILIES.names]


def pack(p: SetupParams) -> np.ndarray:
    n = len(p.factions)
    rank = {name: k for k, name in enumerate(p.preferences)}
    order = sorted(range(n), key=lambda k: (rank.get(p.factions[k].name, len(rank)), k))
    unused_factions = [0] * (MAX_FACTIONS - n)
    names = [f.name for f in p.factions]
    return PACKED.row(
        players=p.players,
        factions=n,
        by_preference=1 if p.policy == "preference" else 0,
        demoted=demoted_count(p.players),
        red=[1 if f.colour == "red" else 0 for f in p.factions] + unused_factions,
        rank=[order.index(k) for k in range(n)] + unused_factions,
        hirelings=len(p.hirelings),
        tied=[names.index(h.faction) if h.faction else -1 for h in p.hirelings]
        + [0] * (MAX_HIRELINGS - len(p.hirelings)),
        first_metric=first_metrics(p),
    )


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
    hire = np.zeros(MAX_HIRELINGS, dtype=np.int64)
    pool_deck = np.zeros(MAX_HIRELINGS, dtype=np.int64)
    taken = np.zeros(MAX_FACTIONS + 1, dtype=np.bool_)
    first = np.zeros(N_FAMILIES, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            players = np.int64(packed[v, P_PLAYERS])
            n = np.int64(packed[v, P_FACTIONS])
            by_preference = packed[v, P_BY_PREFERENCE] > 0.5
            demoted = np.int64(packed[v, P_DEMOTED])
            n_hire = np.int64(packed[v, P_HIRELINGS])
            for k in range(N_FAMILIES):
                first[k] = np.int64(packed[v, P_FIRST_METRIC + k])
            for i in range(m):
                state[0] = trial_state(key, start + i)
                # One red card to the pool first.
                n_red = 0
                for k in range(n):
                    if packed[v, P_RED + k] > 0.5:
                        deck[n_red] = k
                        n_red += 1
                pick = _uniform(state, n_red)
                pool[0] = deck[pick]
                # The rest of the reds shuffled with the whites (2 players: no whites), one per
                # player: a partial Fisher-Yates shuffle deals them.
                size = 0
                for k in range(n):
                    is_red = packed[v, P_RED + k] > 0.5
                    if k != pool[0] and (is_red or players > 2):
                        deck[size] = k
                        size += 1
                for d in range(players):
                    j = d + _uniform(state, size - d)
                    deck[d], deck[j] = deck[j], deck[d]
                    pool[1 + d] = deck[d]
                # A white last card is locked until a red faction has been chosen.
                last = pool[players]
                locked = packed[v, P_RED + last] < 0.5
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
                            rank = packed[v, P_RANK + pool[c]]
                            if best < 0 or rank < packed[v, P_RANK + pool[best]]:
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
                    red_chosen = red_chosen or packed[v, P_RED + pool[best]] > 0.5
                # Three hirelings at random from the pool, never the minor faction of a chosen
                # faction (all that are left when fewer: a rule gap).
                size = 0
                for k in range(n_hire):
                    hire[k] = 0
                    tied = np.int64(packed[v, P_TIED + k])
                    if tied < 0 or chosen[tied] == 0:
                        pool_deck[size] = k
                        size += 1
                for d in range(min(HIRELINGS_DEALT, size)):
                    j = d + _uniform(state, size - d)
                    pool_deck[d], pool_deck[j] = pool_deck[j], pool_deck[d]
                    hire[pool_deck[d]] = 1
                for k in range(n):
                    values[v, first[IN_PLAY] + k, i] = chosen[k]
                values[v, first[LOCKED], i] = locked
                values[v, first[DEMOTED], i] = min(demoted, size)
                for k in range(n_hire):
                    values[v, first[HIRED] + k, i] = hire[k]
                values[v, first[SHORT_POOL], i] = size < HIRELINGS_DEALT
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def exact(p: SetupParams) -> dict[str, float]:
    """Exact values that have a closed form: the lock, and the demotions when every draft
    leaves three hirelings."""
    reds = sum(f.colour == "red" for f in p.factions)
    whites = 0 if p.players == 2 else len(p.factions) - reds
    out = {"last_card_locked": whites / (reds - 1 + whites)}
    if not short_pool_possible(p):
        out["demoted"] = float(demoted_count(p.players))
        out["gap_short_pool"] = 0.0
    return out


def short_pool_possible(p: SetupParams) -> bool:
    """Whether some draft can leave fewer than three hirelings (the most hirelings ``players``
    chosen factions can exclude, against the pool)."""
    tied: dict[str, int] = {}
    for h in p.hirelings:
        if h.faction:
            tied[h.faction] = tied.get(h.faction, 0) + 1
    worst = sum(sorted(tied.values(), reverse=True)[: p.players])
    return len(p.hirelings) - worst < HIRELINGS_DEALT


ASSUMPTIONS = (
    Assumption(
        name="unaffiliated_hirelings",
        knob="hirelings",
        tag="invented",
        rule=cite_setup("3.8"),
        text="names: the module has two minor factions tied to no faction but does not "
        "name them (unaffiliated_1, unaffiliated_2); not moved: names change no result",
    ),
    Assumption(
        name="faction_cards",
        knob="factions",
        tag="invented",
        rule=cite_setup("3.1"),
        text="the faction setup cards and their colours are not in the module: the defaults "
        "follow the Root base game and its expansions",
        alternatives=(
            Alternative(
                "without the Corvids",
                {
                    "factions": [
                        {"name": f.name, "colour": f.colour}
                        for f in DEFAULT_FACTIONS
                        if f.name != "corvids"
                    ]
                },
                "invented",
            ),
        ),
    ),
    Assumption(
        name="short_pool",
        knob="",
        tag="reading",
        rule=cite_setup("3.8"),
        text="a gap: fewer than three hirelings left after the draft (four players choosing the "
        "four base factions) deals all that are left; counted; not yet a knob",
        fires=("gap_short_pool",),
    ),
)


PROCEDURE = Procedure(
    name="root.setup",
    title="Root hirelings: advanced setup draft",
    rules="Root advanced setup §2, §3 (docs/rules/root.md#advanced-setup)",
    assumptions=ASSUMPTIONS,
    given=settings("players", "policy", "preferences"),
    params_model=SetupParams,
    metrics=metrics,
    pack=pack,
    kernel=setup_kernel,
    packed_layout=PACKED,
    metric_layout=metric_layout_of,
    exact=exact,
    example={"players": 4},
    notes=(
        "hireling pool: the rulebook's four tied to the base-game factions and two tied to none "
        "(default; their names are not in the rulebook); other pools are scenario data",
        "which minor factions are demoted is random; only the count is reported",
    ),
)
