"""Here I Stand naval combat in a sea zone or a port (Here I Stand rules §6.4).

Each side rolls ``2 * squadrons + corsairs + leader`` dice; in a port the defender rolls
``port_extra_dice`` more (none in a sea zone). A die at or above ``hit_on`` hits. More hits wins
and ties go to the defender. Hits sink ships: one hit a corsair, two hits a squadron; a winner's
single hit left over sinks one more squadron of the loser. Each side chooses which of its own ships
go, as in a field battle (Here I Stand rules §6.4, §5.4 ④): by default the choice that costs it the
least strength (squadron 2, corsair 1; on a tie it keeps squadrons, which alone protect ports); the
fixed orders ``corsairs_first`` and ``squadrons_first`` are knobs. Every hit that a ship can absorb
is absorbed. A side whose ships are all sunk has its leader (rated 0 included) captured. If both
fleets are sunk the winner keeps one ship, as in a field battle (``winner_keeps_one``). After a
battle in a port the attacker always withdraws; at sea it withdraws when it loses."""

from __future__ import annotations

from math import comb
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
    rulebook,
    settings,
)
from simulator.procedures.his._leaders import Leader, leader_field, present, rating
from simulator.procedures.his._rules import cite
from simulator.procedures.his.field_battle import (
    _draw_hits,
    _thresholds,
    hit_thresholds,
    threshold_halves,
)

MAX_SHIPS = 30
MAX_LEADER = 6
MAX_PORT_DICE = 5
MAX_DICE = 3 * MAX_SHIPS + MAX_LEADER + MAX_PORT_DICE

#: Word indices of the attacker's and the defender's hit draws (as in the field battle: each
#: side's hits come from one word inverted through the binomial distribution of its dice). Fixed,
#: so a variant that changes one side leaves the other side's draw as it was.
ATTACKER_WORD = 0
DEFENDER_WORD = 1
#: Loss orders as packed: index in LOSSES.
LOSSES = ("squadrons_first", "corsairs_first", "cheapest")
#: Packed row: the scalars, then each side's hit thresholds T[0..dice] as (high 32 bits, low 32
#: bits) pairs, padded with zeros to MAX_DICE + 1 pairs.
PACKED = Layout(
    "attacker_squadrons",
    "attacker_corsairs",
    "attacker_rating",
    "defender_squadrons",
    "defender_corsairs",
    "defender_rating",
    "port_extra_dice",
    "in_port",
    "hit_on",
    "losses",
    "winner_keeps_one",
    "attacker_dice",
    "defender_dice",
    "attacker_has_leader",
    "defender_has_leader",
    ("attacker_thresholds", 2 * (MAX_DICE + 1)),
    ("defender_thresholds", 2 * (MAX_DICE + 1)),
)
ATTACKER_SQUADRONS, ATTACKER_CORSAIRS = (
    PACKED.at("attacker_squadrons"),
    PACKED.at("attacker_corsairs"),
)
DEFENDER_SQUADRONS, DEFENDER_CORSAIRS = (
    PACKED.at("defender_squadrons"),
    PACKED.at("defender_corsairs"),
)
IN_PORT, LOSSES_AT, WINNER_KEEPS_ONE = (
    PACKED.at(n) for n in ("in_port", "losses", "winner_keeps_one")
)
ATTACKER_DICE, DEFENDER_DICE = PACKED.at("attacker_dice"), PACKED.at("defender_dice")
ATTACKER_HAS_LEADER = PACKED.at("attacker_has_leader")
DEFENDER_HAS_LEADER = PACKED.at("defender_has_leader")
ATTACKER_THRESHOLDS = PACKED.at("attacker_thresholds")
DEFENDER_THRESHOLDS = PACKED.at("defender_thresholds")


class Fleet(Params):
    squadrons: int = Field(
        default=0, ge=0, le=MAX_SHIPS, description="naval squadrons (two hits sink one)"
    )
    corsairs: int = Field(
        default=0,
        ge=0,
        le=MAX_SHIPS,
        validate_default=True,
        description="corsairs (one hit sinks one)",
    )
    leader: Leader = leader_field("naval leader")

    @field_validator("corsairs")
    @classmethod
    def _at_least_one_ship(cls, v: int, info: ValidationInfo) -> int:
        squadrons = info.data.get("squadrons")
        if squadrons == 0 and v == 0:
            raise ValueError("a fleet needs at least one squadron or corsair (squadrons is 0)")
        return v


class NavalParams(Params):
    attacker: Fleet = Field(description="the fleet moving in")
    defender: Fleet = Field(description="the fleet in the sea zone or port")
    in_port: bool = Field(
        default=False,
        description="the battle is in a port: the defender rolls extra dice, the attacker "
        "withdraws afterwards",
    )
    port_extra_dice: int = Field(
        default=1,
        ge=0,
        le=MAX_PORT_DICE,
        description="extra dice of a defender in a port (1 by the rules)",
    )
    hit_on: int = Field(default=5, ge=2, le=6, description="lowest d6 face that scores a hit")
    losses: Literal["cheapest", "corsairs_first", "squadrons_first"] = Field(
        default="cheapest",
        description="which ships each side loses: cheapest (the rulebook: each side chooses, here "
        "the least strength lost), or a fixed order",
    )
    winner_keeps_one: bool = Field(
        default=True,
        description="if both fleets are sunk the winner keeps one ship (as in a field battle)",
    )


#: The metric row, in the order of metrics().
METRICS = Layout(
    "attacker_wins",
    "attacker_squadrons_lost",
    "attacker_corsairs_lost",
    "defender_squadrons_lost",
    "defender_corsairs_lost",
    "attacker_withdraws",
    "attacker_hits",
    "defender_hits",
    "both_fleets_sunk",
    "attacker_strength_lost",
    "defender_strength_lost",
    "attacker_leader_captured",
    "defender_leader_captured",
)
N_METRICS = METRICS.size
ATTACKER_WINS, WITHDRAWS = METRICS.at("attacker_wins"), METRICS.at("attacker_withdraws")
A_SQUADRONS, A_CORSAIRS = (
    METRICS.at("attacker_squadrons_lost"),
    METRICS.at("attacker_corsairs_lost"),
)
D_SQUADRONS, D_CORSAIRS = (
    METRICS.at("defender_squadrons_lost"),
    METRICS.at("defender_corsairs_lost"),
)
A_HITS, D_HITS, BOTH_SUNK = (
    METRICS.at(n) for n in ("attacker_hits", "defender_hits", "both_fleets_sunk")
)
A_STRENGTH, D_STRENGTH = METRICS.at("attacker_strength_lost"), METRICS.at("defender_strength_lost")
A_CAPTURED = METRICS.at("attacker_leader_captured")
D_CAPTURED = METRICS.at("defender_leader_captured")


def metrics(p: NavalParams) -> list[Metric]:
    a, d = p.attacker, p.defender
    return [
        Metric("attacker_wins", "proportion", "the attacker scores more hits (ties: defender)"),
        Metric(
            "attacker_squadrons_lost",
            "distribution",
            "attacker squadrons sunk",
            max_value=a.squadrons,
        ),
        Metric(
            "attacker_corsairs_lost", "distribution", "attacker corsairs sunk", max_value=a.corsairs
        ),
        Metric(
            "defender_squadrons_lost",
            "distribution",
            "defender squadrons sunk",
            max_value=d.squadrons,
        ),
        Metric(
            "defender_corsairs_lost", "distribution", "defender corsairs sunk", max_value=d.corsairs
        ),
        Metric(
            "attacker_withdraws",
            "proportion",
            "the attacker has ships left and must leave: always in a port, at sea if it lost",
        ),
        Metric("attacker_hits", "mean", "hits rolled by the attacker", headline=False),
        Metric("defender_hits", "mean", "hits rolled by the defender", headline=False),
        Metric(
            "both_fleets_sunk",
            "proportion",
            "the hits sank both fleets (the winner keeps one ship if winner_keeps_one)",
            headline=False,
        ),
        Metric(
            "attacker_strength_lost",
            "mean",
            "naval strength the attacker lost (squadron 2, corsair 1)",
        ),
        Metric(
            "defender_strength_lost",
            "mean",
            "naval strength the defender lost (squadron 2, corsair 1)",
        ),
        Metric(
            "attacker_leader_captured",
            "proportion",
            "the attacker has a leader (rated 0 included) and no ship left",
            headline=False,
        ),
        Metric(
            "defender_leader_captured",
            "proportion",
            "the defender has a leader (rated 0 included) and no ship left",
            headline=False,
        ),
    ]


def pack(p: NavalParams) -> np.ndarray:
    a, d = p.attacker, p.defender
    a_dice, d_dice = dice(p)
    return PACKED.row(
        attacker_squadrons=a.squadrons,
        attacker_corsairs=a.corsairs,
        attacker_rating=rating(a.leader),
        defender_squadrons=d.squadrons,
        defender_corsairs=d.corsairs,
        defender_rating=rating(d.leader),
        port_extra_dice=p.port_extra_dice if p.in_port else 0,
        in_port=1 if p.in_port else 0,
        hit_on=p.hit_on,
        losses=LOSSES.index(p.losses),
        winner_keeps_one=1 if p.winner_keeps_one else 0,
        attacker_dice=a_dice,
        defender_dice=d_dice,
        attacker_has_leader=1 if present(a.leader) else 0,
        defender_has_leader=1 if present(d.leader) else 0,
        attacker_thresholds=threshold_halves(hit_thresholds(a_dice, p.hit_on), MAX_DICE + 1),
        defender_thresholds=threshold_halves(hit_thresholds(d_dice, p.hit_on), MAX_DICE + 1),
    )


def dice(p: NavalParams) -> tuple[int, int]:
    """Dice of the attacker and of the defender."""
    a, d = p.attacker, p.defender
    extra = p.port_extra_dice if p.in_port else 0
    a_dice = 2 * a.squadrons + a.corsairs + rating(a.leader)
    return a_dice, 2 * d.squadrons + d.corsairs + rating(d.leader) + extra


@inline
def _sunk_with(hits, squadrons, corsairs, c, loser):
    """(squadrons, corsairs, legal) when ``c`` corsairs take one hit each and squadrons take the
    rest two at a time; a hit left over must sink a corsair if one is left (illegal otherwise),
    and a loser's single hit left over sinks one more squadron."""
    s = min(squadrons, (hits - c) // 2)
    left = hits - c - 2 * s
    legal = not (left > 0 and c < corsairs)
    s += np.int64(loser & (left > 0) & (s < squadrons))
    return s, legal


@inline
def _sunk(hits, squadrons, corsairs, mode, loser):
    """(squadrons, corsairs) sunk by ``hits``: ``mode`` 0 squadrons first, 1 corsairs first,
    2 the least strength lost (keeping squadrons on a tie)."""
    top = min(corsairs, hits)
    if mode == 1:
        s, _ = _sunk_with(hits, squadrons, corsairs, top, loser)
        return s, top
    if mode == 0:
        s0 = min(squadrons, hits // 2)
        c0 = min(corsairs, hits - 2 * s0)
        s, _ = _sunk_with(hits, squadrons, corsairs, c0, loser)
        return s, c0
    best_s = squadrons
    best_c = top
    best = 2 * squadrons + corsairs + 1
    for c in range(top, -1, -1):
        s, legal = _sunk_with(hits, squadrons, corsairs, c, loser)
        cost = 2 * s + c
        if legal and cost < best:
            best, best_s, best_c = cost, s, c
    return best_s, best_c


@kernel
def naval_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    a_thr = np.zeros((n_variants, MAX_DICE + 1), dtype=np.uint64)
    d_thr = np.zeros((n_variants, MAX_DICE + 1), dtype=np.uint64)
    for v in range(n_variants):
        _thresholds(packed, v, ATTACKER_THRESHOLDS, np.int64(packed[v, ATTACKER_DICE]), a_thr[v])
        _thresholds(packed, v, DEFENDER_THRESHOLDS, np.int64(packed[v, DEFENDER_DICE]), d_thr[v])
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    attacker_hits = np.zeros(BLOCK, dtype=np.int64)
    defender_hits = np.zeros(BLOCK, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            a_squadrons = np.int64(packed[v, ATTACKER_SQUADRONS])
            a_corsairs = np.int64(packed[v, ATTACKER_CORSAIRS])
            d_squadrons = np.int64(packed[v, DEFENDER_SQUADRONS])
            d_corsairs = np.int64(packed[v, DEFENDER_CORSAIRS])
            in_port = packed[v, IN_PORT] > 0.5
            mode = np.int64(packed[v, LOSSES_AT])
            keeps_one = packed[v, WINNER_KEEPS_ONE] > 0.5
            a_has_leader = packed[v, ATTACKER_HAS_LEADER] > 0.5
            d_has_leader = packed[v, DEFENDER_HAS_LEADER] > 0.5
            a_dice = np.int64(packed[v, ATTACKER_DICE])
            d_dice = np.int64(packed[v, DEFENDER_DICE])
            a_ships = a_squadrons + a_corsairs
            d_ships = d_squadrons + d_corsairs
            _draw_hits(attacker_hits, key, start, m, ATTACKER_WORD, a_thr[v], a_dice)
            _draw_hits(defender_hits, key, start, m, DEFENDER_WORD, d_thr[v], d_dice)
            for i in range(m):
                ah = attacker_hits[i]
                dh = defender_hits[i]
                wins = ah > dh
                a_s, a_c = _sunk(dh, a_squadrons, a_corsairs, mode, ~wins)
                d_s, d_c = _sunk(ah, d_squadrons, d_corsairs, mode, wins)
                both = (a_s + a_c == a_ships) & (d_s + d_c == d_ships)
                # Both fleets sunk: the winner keeps a squadron if it lost one, else a corsair.
                keep = both & keeps_one
                a_keep = keep & wins
                d_keep = keep & ~wins
                a_back_s = a_keep & (a_s > 0)
                a_back_c = a_keep & (a_s == 0)
                d_back_s = d_keep & (d_s > 0)
                d_back_c = d_keep & (d_s == 0)
                a_s -= np.int64(a_back_s)
                a_c -= np.int64(a_back_c)
                d_s -= np.int64(d_back_s)
                d_c -= np.int64(d_back_c)
                values[v, ATTACKER_WINS, i] = wins
                values[v, A_SQUADRONS, i] = a_s
                values[v, A_CORSAIRS, i] = a_c
                values[v, D_SQUADRONS, i] = d_s
                values[v, D_CORSAIRS, i] = d_c
                values[v, WITHDRAWS, i] = (a_s + a_c < a_ships) & (in_port | ~wins)
                values[v, A_HITS, i] = ah
                values[v, D_HITS, i] = dh
                values[v, BOTH_SUNK, i] = both
                values[v, A_STRENGTH, i] = 2 * a_s + a_c
                values[v, D_STRENGTH, i] = 2 * d_s + d_c
                values[v, A_CAPTURED, i] = a_has_leader & (a_s + a_c == a_ships)
                values[v, D_CAPTURED, i] = d_has_leader & (d_s + d_c == d_ships)
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def _losses_by_rule(
    hits: int, squadrons: int, corsairs: int, losses: str, loser: bool
) -> tuple[int, int]:
    """(squadrons, corsairs) a side loses, read from the rule text ship by ship (for ``exact``,
    written apart from the kernel's arithmetic): hits go one at a time to a corsair or two at a
    time to a squadron, the side choosing; a single hit that no corsair can take is lost, except
    that a loser loses one more squadron to it. ``cheapest`` searches every choice."""

    def ways(h: int, s: int, c: int) -> list[tuple[int, int]]:
        """Every (squadrons, corsairs) lost from here, over the side's choices."""
        if h == 0 or s + c == 0:
            return [(0, 0)]
        out: list[tuple[int, int]] = []
        if c > 0:
            out += [(x, y + 1) for x, y in ways(h - 1, s, c - 1)]
        if s > 0 and h >= 2:
            out += [(x + 1, y) for x, y in ways(h - 2, s - 1, c)]
        if s > 0 and h == 1 and c == 0:
            out.append((1, 0) if loser else (0, 0))
        return out

    options = set(ways(hits, squadrons, corsairs))
    if losses == "cheapest":  # least strength; on a tie keep squadrons
        return min(options, key=lambda o: (2 * o[0] + o[1], o[0]))
    if losses == "corsairs_first":
        return max(options, key=lambda o: (o[1], -o[0]))
    return max(options, key=lambda o: (o[0], -o[1]))


def exact(p: NavalParams) -> dict[str, float]:
    """Exact values: the two sides' hits are independent binomials. Dice and losses are read
    from the rule text here, not through the kernel's packing."""
    prob = (7 - p.hit_on) / 6
    a, d = p.attacker, p.defender
    na = 2 * a.squadrons + a.corsairs + (0 if a.leader == "none" else a.leader)
    nd = 2 * d.squadrons + d.corsairs + (0 if d.leader == "none" else d.leader)
    nd += p.port_extra_dice if p.in_port else 0
    pa = [comb(na, k) * prob**k * (1 - prob) ** (na - k) for k in range(na + 1)]
    pd = [comb(nd, k) * prob**k * (1 - prob) ** (nd - k) for k in range(nd + 1)]
    out = dict.fromkeys([m.name for m in metrics(p)], 0.0)
    for ah in range(na + 1):
        for dh in range(nd + 1):
            w = pa[ah] * pd[dh]
            wins = ah > dh
            a_s, a_c = _losses_by_rule(dh, a.squadrons, a.corsairs, p.losses, not wins)
            d_s, d_c = _losses_by_rule(ah, d.squadrons, d.corsairs, p.losses, wins)
            both = a_s + a_c == a.squadrons + a.corsairs and d_s + d_c == d.squadrons + d.corsairs
            if both and p.winner_keeps_one:
                if wins:
                    a_s, a_c = (a_s - 1, a_c) if a_s > 0 else (a_s, a_c - 1)
                else:
                    d_s, d_c = (d_s - 1, d_c) if d_s > 0 else (d_s, d_c - 1)
            afloat = a_s + a_c < a.squadrons + a.corsairs
            out["attacker_wins"] += w * wins
            out["attacker_squadrons_lost"] += w * a_s
            out["attacker_corsairs_lost"] += w * a_c
            out["defender_squadrons_lost"] += w * d_s
            out["defender_corsairs_lost"] += w * d_c
            out["attacker_withdraws"] += w * (afloat and (p.in_port or not wins))
            out["both_fleets_sunk"] += w * both
            out["attacker_strength_lost"] += w * (2 * a_s + a_c)
            out["defender_strength_lost"] += w * (2 * d_s + d_c)
            out["attacker_leader_captured"] += w * (a.leader != "none" and not afloat)
            d_gone = d_s + d_c == d.squadrons + d.corsairs
            out["defender_leader_captured"] += w * (d.leader != "none" and d_gone)
    out["attacker_hits"] = na * prob
    out["defender_hits"] = nd * prob
    return out


ASSUMPTIONS = (
    Assumption(
        name="ships_lost",
        knob="losses",
        tag="reading",
        rule=cite("6.4 ④"),
        text="each side chooses which of its ships go (as in §5.4 ④): it loses the least "
        "strength, keeping squadrons on a tie",
        alternatives=(
            Alternative("corsairs first", {"losses": "corsairs_first"}),
            Alternative("squadrons first", {"losses": "squadrons_first"}),
        ),
    ),
    Assumption(
        name="winner_keeps_one",
        knob="winner_keeps_one",
        tag="reading",
        rule=cite("6.4"),
        text="both fleets sunk: the naval rules are silent; the winner keeps one ship, as the "
        "winner of a field battle keeps one unit (§5.4 ⑤)",
        alternatives=(Alternative("both fleets gone", {"winner_keeps_one": False}),),
    ),
    Assumption(
        name="leftover_hits",
        knob="",
        tag="reading",
        rule=cite("6.4 ④"),
        text="a hit a corsair can take sinks one; the loser's own single hit left over is lost "
        "(only the winner's sinks a squadron); not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="his.naval",
    title="Here I Stand naval combat",
    rules="Here I Stand rules §6.4 (docs/rules/here-i-stand.md#s6-4)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings("attacker", "defender", "in_port"),
        *rulebook(cite("6.4"), "port_extra_dice", "hit_on"),
    ),
    params_model=NavalParams,
    metrics=metrics,
    pack=pack,
    kernel=naval_kernel,
    exact=exact,
    example={
        "attacker": {"squadrons": 3, "corsairs": 0, "leader": 1},
        "defender": {"squadrons": 2, "corsairs": 1},
    },
    notes=(
        "a hit that a corsair can take must sink one; a winner's single hit left over sinks one "
        "more loser squadron; the loser's own single hit left over is lost",
        "ties go to the defender",
        'a leader rated 0 is a leader (captured with its last ship); "none" for no leader',
    ),
)
