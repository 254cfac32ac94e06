"""Here I Stand: Ottoman piracy (Here I Stand rules §11.2).

One turn of raids, each in its own sea zone (at most 4). A raid's resistance is 2 per defending
squadron in the sea zone, +1 per defending or enemy squadron in adjacent sea zones and ports,
+1 per adjacent defending or enemy fortress port, +1 if the sea zone borders a Knights of St. John
fortress.
The target rolls that many dice; each hit (5-6) sinks a corsair. If corsairs survive, the Ottoman
rolls ``1 + X`` dice when one corsair survives or the target has one port on the sea, else ``2 + X``
(X = the pirate leader's piracy rating). Each hit makes the target choose one of: lose a squadron in
or next to the sea zone, +1 VP to the Ottoman, or give the Ottoman a random card. No option may be
chosen twice until every option has been chosen once; an option that cannot be taken (no squadron
left, an empty hand) is skipped, and the round of options starts again once every option that can
be taken has been. The target's preference is ``choice_order`` (assumption: squadron, card, VP).

Random words: raid r (0-based) reads its resistance dice from words ``64 r, 64 r + 1, ...`` (two
dice a word, low half first) and the Ottoman's dice from word ``64 r + 48`` on, so a variant that
changes one raid or the pirate rating leaves every other die where it was.
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
    MetricKind,
    Params,
    Procedure,
    rulebook,
    settings,
)
from simulator.procedures.his._rules import cite
from simulator.rng import d6_of, high32, low32, word

MAX_RAIDS = 4
RAID_WORDS = 64
#: The Ottoman dice of a raid start here; resistance is at most 71 dice (36 words) by the field
#: bounds, so the two never overlap.
OTTOMAN_WORDS = 48
Option = Literal["squadron", "card", "vp"]
OPTIONS: tuple[Option, ...] = ("squadron", "card", "vp")
SQUADRON, CARD, VP = 0, 1, 2


class Target(Params):
    squadrons_in_sea: int = Field(
        default=0, ge=0, le=10, description="the target's squadrons in the sea zone (+2 each)"
    )
    adjacent_squadrons: int = Field(
        default=0,
        ge=0,
        le=20,
        description="the target's squadrons in adjacent sea zones and ports (+1 each)",
    )
    adjacent_fortress_ports: int = Field(
        default=0,
        ge=0,
        le=10,
        description="adjacent fortress ports of the target or the Ottoman's enemies (+1 each)",
    )
    knights_adjacent: bool = Field(
        default=False, description="the sea zone borders a Knights of St. John fortress (+1)"
    )
    ports_on_sea: int = Field(
        default=2, ge=1, le=10, description="the target's ports on the sea (one: 1 + X dice)"
    )
    squadrons_available: int | None = Field(
        default=None,
        ge=0,
        le=30,
        description="squadrons in or next to the sea zone the target can lose; default: those "
        "in the sea zone plus the adjacent ones",
    )
    cards_in_hand: int = Field(default=5, ge=0, le=20, description="cards in the target's hand")

    @field_validator("squadrons_available")
    @classmethod
    def _available_squadrons_exist(cls, n: int | None, info: ValidationInfo) -> int | None:
        there = info.data.get("squadrons_in_sea", 0) + info.data.get("adjacent_squadrons", 0)
        if n is not None and n > there:
            raise ValueError(
                f"must be at most squadrons_in_sea + adjacent_squadrons ({there}): only squadrons "
                "in or next to the sea zone can be lost"
            )
        return n

    def can_lose(self) -> int:
        if self.squadrons_available is not None:
            return self.squadrons_available
        return self.squadrons_in_sea + self.adjacent_squadrons


class Raid(Params):
    sea_zone: str | None = Field(
        default=None, max_length=40, description="name of the sea zone (one raid per zone a turn)"
    )
    corsairs: int = Field(ge=1, le=12, description="Ottoman corsairs raiding from the sea zone")
    target: Target = Field(description="the power whose port is raided")
    enemy_adjacent_squadrons: int = Field(
        default=0,
        ge=0,
        le=20,
        description="other enemies' squadrons in adjacent sea zones and ports (+1 each)",
    )

    def resistance(self) -> int:
        t = self.target
        return (
            2 * t.squadrons_in_sea
            + t.adjacent_squadrons
            + self.enemy_adjacent_squadrons
            + t.adjacent_fortress_ports
            + int(t.knights_adjacent)
        )


class PiracyParams(Params):
    raids: list[Raid] = Field(
        min_length=1,
        max_length=MAX_RAIDS,
        description="one raid per sea zone this turn, at most 4 sea zones",
    )
    pirate_rating: int = Field(
        default=0, ge=0, le=3, description="X: the piracy rating of the pirate leader"
    )
    choice_order: list[Option] = Field(
        default=["squadron", "card", "vp"],
        min_length=3,
        max_length=3,
        description="assumption: the target's preference among squadron, card and vp",
    )
    hit_on: int = Field(default=5, ge=2, le=6, description="lowest d6 face that scores a hit")

    @field_validator("raids")
    @classmethod
    def _one_raid_per_sea_zone(cls, raids: list[Raid]) -> list[Raid]:
        seen: dict[str, int] = {}
        for i, r in enumerate(raids):
            if r.sea_zone is None:
                continue
            if r.sea_zone in seen:
                raise ValueError(
                    f"entry {i + 1} raids {r.sea_zone!r} again (entry {seen[r.sea_zone] + 1}): "
                    "one raid per sea zone a turn"
                )
            seen[r.sea_zone] = i
        return raids

    @field_validator("choice_order")
    @classmethod
    def _each_option_once(cls, order: list[Option]) -> list[Option]:
        if sorted(order) != sorted(OPTIONS):
            raise ValueError("must name squadron, card and vp once each, in the target's order")
        return order


BASE_METRICS: tuple[tuple[str, str], ...] = (
    ("corsairs_lost", "corsairs sunk by the target's resistance dice"),
    ("raids_with_survivors", "raids where a corsair survived to roll for piracy"),
    ("piracy_hits", "hits rolled by the Ottoman"),
    ("ottoman_vp", "VP the targets chose to give the Ottoman"),
    ("cards_taken", "random cards the Ottoman drew from the targets"),
    ("squadrons_sunk", "squadrons the targets chose to lose"),
    ("gains_nothing", "raids that gained the Ottoman nothing (no VP, card or squadron)"),
    ("any_vp", "raids that gained the Ottoman at least 1 VP"),
)
N_BASE = len(BASE_METRICS)
#: One raid's metric values (the totals over all raids have the same names).
RAID = Layout(*(name for name, _ in BASE_METRICS))
CORSAIRS_LOST, RAIDS_WITH_SURVIVORS, PIRACY_HITS, OTTOMAN_VP = (
    RAID.at(n) for n in ("corsairs_lost", "raids_with_survivors", "piracy_hits", "ottoman_vp")
)
CARDS_TAKEN, SQUADRONS_SUNK, GAINS_NOTHING, ANY_VP = (
    RAID.at(n) for n in ("cards_taken", "squadrons_sunk", "gains_nothing", "any_vp")
)
#: Per-raid metrics that are 0/1 in a raid (proportions).
RAID_PROPORTIONS = (RAIDS_WITH_SURVIVORS, GAINS_NOTHING, ANY_VP)
#: The metric row: the totals, then raid r's values ``<name>.raid<r>`` at ``RAIDS + RAID.size *
#: (r - 1) + RAID.at(name)`` (as many raids as the turn has: the row closes up after them, so the
#: two turn metrics are at ``RAIDS + RAID.size * raids`` and one after).
METRICS = Layout(*RAID.names, ("raid", RAID.size * MAX_RAIDS), "turn_gains_nothing", "turn_any_vp")
RAIDS = METRICS.at("raid")
#: Where the turn metrics sit after the raids (the row closes up, so relative to the first).
TURN_ANY_VP = METRICS.at("turn_any_vp") - METRICS.at("turn_gains_nothing")
# The kernel adds each raid's values into the totals by RAID's offsets.
assert all(METRICS.at(name) == RAID.at(name) for name in RAID.names)


def metrics(p: PiracyParams) -> list[Metric]:
    out = [Metric(name, "mean", f"{desc} (all raids)") for name, desc in BASE_METRICS]
    for r in range(len(p.raids)):
        for k, (name, desc) in enumerate(BASE_METRICS):
            kind: MetricKind = "proportion" if k in RAID_PROPORTIONS else "mean"
            out.append(
                Metric(f"{name}.raid{r + 1}", kind, f"{desc} (raid {r + 1})", headline=False)
            )
    out += [
        Metric(
            "turn_gains_nothing", "proportion", "no raid of the turn gained the Ottoman anything"
        ),
        Metric("turn_any_vp", "proportion", "the turn's raids gained the Ottoman at least 1 VP"),
    ]
    return out


#: Packed row: the turn, then each raid's numbers in a piece per field (zero-padded to MAX_RAIDS).
PACKED = Layout(
    "raids",
    "pirate_rating",
    "hit_on",
    ("choice_order", len(OPTIONS)),
    ("corsairs", MAX_RAIDS),
    ("resistance", MAX_RAIDS),
    ("one_port", MAX_RAIDS),
    ("can_lose", MAX_RAIDS),
    ("cards_in_hand", MAX_RAIDS),
)
N_RAIDS, PIRATE_RATING, HIT_ON, CHOICE_ORDER = (
    PACKED.at(n) for n in ("raids", "pirate_rating", "hit_on", "choice_order")
)
CORSAIRS, RESISTANCE, ONE_PORT = (PACKED.at(n) for n in ("corsairs", "resistance", "one_port"))
CAN_LOSE, CARDS_IN_HAND = PACKED.at("can_lose"), PACKED.at("cards_in_hand")


def pack(p: PiracyParams) -> np.ndarray:
    pad = [0] * (MAX_RAIDS - len(p.raids))
    return PACKED.row(
        raids=len(p.raids),
        pirate_rating=p.pirate_rating,
        hit_on=p.hit_on,
        choice_order=[OPTIONS.index(o) for o in p.choice_order],
        corsairs=[r.corsairs for r in p.raids] + pad,
        resistance=[r.resistance() for r in p.raids] + pad,
        one_port=[int(r.target.ports_on_sea == 1) for r in p.raids] + pad,
        can_lose=[r.target.can_lose() for r in p.raids] + pad,
        cards_in_hand=[r.target.cards_in_hand for r in p.raids] + pad,
    )


@inline
def _hits(key, t, word0, dice, thr):
    """Hits among ``dice`` dice read two a word from word ``word0`` on (low half first)."""
    hits = 0
    for k in range(dice):
        x = word(key, t, word0 + k // 2)
        u = low32(x) if k % 2 == 0 else high32(x)
        hits += d6_of(u) >= thr
    return hits


@kernel
def piracy_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_raids = np.int64(packed[0, N_RAIDS])
    turn = RAIDS + N_BASE * n_raids  # the turn metrics follow the raids' values
    n_metrics = turn + 2
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    order = np.zeros(3, dtype=np.int64)
    taken = np.zeros(3, dtype=np.bool_)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            x_rating = np.int64(packed[v, PIRATE_RATING])
            hit_on = np.int64(packed[v, HIT_ON])
            for k in range(3):
                order[k] = np.int64(packed[v, CHOICE_ORDER + k])
            for i in range(m):
                t = start + i
                for k in range(N_BASE):
                    values[v, k, i] = 0
                all_nothing = True
                some_vp = False
                for r in range(n_raids):
                    corsairs = np.int64(packed[v, CORSAIRS + r])
                    resistance = np.int64(packed[v, RESISTANCE + r])
                    one_port = packed[v, ONE_PORT + r] > 0.5
                    squadrons = np.int64(packed[v, CAN_LOSE + r])
                    cards = np.int64(packed[v, CARDS_IN_HAND + r])
                    sunk_corsairs = min(_hits(key, t, RAID_WORDS * r, resistance, hit_on), corsairs)
                    survivors = corsairs - sunk_corsairs
                    hits = 0
                    vp = 0
                    drawn = 0
                    lost = 0
                    if survivors > 0:
                        dice = (1 if survivors == 1 or one_port else 2) + x_rating
                        hits = _hits(key, t, RAID_WORDS * r + OTTOMAN_WORDS, dice, hit_on)
                        taken[:] = False
                        for _ in range(hits):
                            pick = -1
                            for _attempt in range(2):
                                for k in range(3):
                                    o = order[k]
                                    if taken[o]:
                                        continue
                                    if o == SQUADRON and lost >= squadrons:
                                        continue
                                    if o == CARD and drawn >= cards:
                                        continue
                                    pick = o
                                    break
                                if pick >= 0:
                                    break
                                # Every option that can be taken has been: a new round begins.
                                taken[:] = False
                            taken[pick] = True
                            if pick == SQUADRON:
                                lost += 1
                            elif pick == CARD:
                                drawn += 1
                            else:
                                vp += 1
                    row = RAIDS + N_BASE * r
                    values[v, row + CORSAIRS_LOST, i] = sunk_corsairs
                    values[v, row + RAIDS_WITH_SURVIVORS, i] = survivors > 0
                    values[v, row + PIRACY_HITS, i] = hits
                    values[v, row + OTTOMAN_VP, i] = vp
                    values[v, row + CARDS_TAKEN, i] = drawn
                    values[v, row + SQUADRONS_SUNK, i] = lost
                    nothing = vp + drawn + lost == 0
                    values[v, row + GAINS_NOTHING, i] = nothing
                    values[v, row + ANY_VP, i] = vp >= 1
                    all_nothing &= nothing
                    some_vp |= vp >= 1
                    for k in range(N_BASE):
                        values[v, k, i] += values[v, row + k, i]
                values[v, turn, i] = all_nothing
                values[v, turn + TURN_ANY_VP, i] = some_vp
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def choose(hits: int, order: list[Option], squadrons: int, cards: int) -> dict[Option, int]:
    """How the target spends ``hits`` piracy hits, by its preference ``order``."""
    got: dict[Option, int] = dict.fromkeys(OPTIONS, 0)
    taken: set[Option] = set()
    for _ in range(hits):
        can = [
            o
            for o in order
            if (o != "squadron" or got[o] < squadrons) and (o != "card" or got[o] < cards)
        ]
        fresh = [o for o in can if o not in taken]
        if not fresh:
            taken = set()
            fresh = can
        got[fresh[0]] += 1
        taken.add(fresh[0])
    return got


def exact_raid(raid: Raid, x_rating: int, order: list[Option], hit_on: int = 5) -> dict[str, float]:
    """Exact means of the per-raid metrics: two binomial rolls and a deterministic choice."""
    from scipy.stats import binom

    prob = (7 - hit_on) / 6
    t = raid.target
    # Resistance and the squadrons the target may lose, read from the rule text (Here I Stand rules
    # §11.2 (3) ①) here, not through the helpers that pack the kernel's inputs: +2 per target
    # squadron in the sea zone, +1 per target or enemy squadron adjacent, +1 per adjacent fortress
    # port, +1 next to the Knights.
    n = 2 * t.squadrons_in_sea + t.adjacent_squadrons + raid.enemy_adjacent_squadrons
    n += t.adjacent_fortress_ports + (1 if t.knights_adjacent else 0)
    losable = t.squadrons_in_sea + t.adjacent_squadrons
    if t.squadrons_available is not None:
        losable = t.squadrons_available
    out = dict.fromkeys((name for name, _ in BASE_METRICS), 0.0)
    for h in range(n + 1):
        w = float(binom.pmf(h, n, prob))
        sunk = min(h, raid.corsairs)
        survivors = raid.corsairs - sunk
        out["corsairs_lost"] += w * sunk
        if survivors == 0:
            out["gains_nothing"] += w
            continue
        out["raids_with_survivors"] += w
        dice = (1 if survivors == 1 or raid.target.ports_on_sea == 1 else 2) + x_rating
        for k in range(dice + 1):
            wk = w * float(binom.pmf(k, dice, prob))
            got = choose(k, order, losable, t.cards_in_hand)
            out["piracy_hits"] += wk * k
            out["ottoman_vp"] += wk * got["vp"]
            out["cards_taken"] += wk * got["card"]
            out["squadrons_sunk"] += wk * got["squadron"]
            out["gains_nothing"] += wk * (sum(got.values()) == 0)
            out["any_vp"] += wk * (got["vp"] >= 1)
    return out


def exact(p: PiracyParams) -> dict[str, float]:
    """Exact means of every metric: raids are independent, so totals are sums of raid means."""
    out = dict.fromkeys((name for name, _ in BASE_METRICS), 0.0)
    all_nothing, no_vp = 1.0, 1.0
    for r, raid in enumerate(p.raids):
        one = exact_raid(raid, p.pirate_rating, p.choice_order, p.hit_on)
        for name, value in one.items():
            out[name] += value
            out[f"{name}.raid{r + 1}"] = value
        all_nothing *= one["gains_nothing"]
        no_vp *= 1 - one["any_vp"]
    out["turn_gains_nothing"] = all_nothing
    out["turn_any_vp"] = 1 - no_vp
    return out


ASSUMPTIONS = (
    Assumption(
        name="target_choice",
        knob="choice_order",
        tag="invented",
        rule=cite("11.2 ③"),
        text="the target's preference among its three options is not a rule: it loses a "
        "squadron, then a card, then gives VP, when it can",
        alternatives=(
            Alternative(
                "card, squadron, VP", {"choice_order": ["card", "squadron", "vp"]}, "invented"
            ),
            Alternative("VP first", {"choice_order": ["vp", "squadron", "card"]}, "invented"),
        ),
    ),
    Assumption(
        name="options_round",
        knob="",
        tag="reading",
        rule=cite("11.2 ③"),
        text="an option the target cannot take is skipped, and the round of options restarts "
        "once every option it can take has been; each raid's target has its own hand and "
        "squadrons; not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="his.piracy",
    title="Here I Stand: Ottoman piracy",
    rules="Here I Stand rules §11.2 (docs/rules/here-i-stand.md#s11-2)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings("raids", "pirate_rating"),
        *rulebook(cite("11.2"), "hit_on"),
    ),
    params_model=PiracyParams,
    metrics=metrics,
    pack=pack,
    kernel=piracy_kernel,
    exact=exact,
    example={
        "raids": [
            {"corsairs": 3, "target": {"squadrons_in_sea": 1, "adjacent_fortress_ports": 1}},
            {"corsairs": 2, "target": {"knights_adjacent": True, "ports_on_sea": 1}},
        ],
        "pirate_rating": 1,
    },
    notes=("VP per corsair lost = ottoman_vp / corsairs_lost (the ratio of the two means)",),
)
