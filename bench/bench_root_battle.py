"""Bench of root.battle: a 3-battle Marquise march campaign, kernel through the engine on 1 and 2
threads beside a numpy-vectorised version of the same procedure (same random words, same metrics).

The issue's target is 5e7 trials/s on two threads.
"""

from __future__ import annotations

import numpy as np

from bench.harness import Row, engine_rate, median_seconds, plan_for
from simulator.engine import make_plan
from simulator.procedures.root.battle import (
    ALLIANCE,
    DUCHY,
    EYRIE,
    LIZARDS,
    MARQUISE,
    PACKED,
    RIVERFOLK,
    SIDE,
    VAGABOND,
    BattleParams,
    metrics,
    pack,
)
from simulator.rng import scenario_key

CAMPAIGN = {
    "attacker": {"warriors": 6, "faction": "marquise"},
    "defender": {"warriors": 3, "buildings": 1, "faction": "eyrie"},
    "battles": 3,
    "stop_when_cleared": False,
}
TARGET = 5e7

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_STRIDE = np.uint64(4096)


def _words(key: np.uint64, first: int, n: int, j: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        t = np.arange(first, first + n, dtype=np.uint64)
        z = key + (t * _STRIDE + np.uint64(j + 1)) * _GAMMA
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _removal(hits, w, b, t, items, swords, tokens_first):  # type: ignore[no-untyped-def]
    lw = np.minimum(hits, w)
    r = hits - lw
    first, second = (t, b) if tokens_first else (b, t)
    l1 = np.minimum(r, first)
    l2 = np.minimum(r - l1, second)
    lt, lb = (l1, l2) if tokens_first else (l2, l1)
    r = r - l1 - l2
    li = np.minimum(r, items)
    ls = np.minimum(r - li, swords)
    return lw, lb, lt, li, ls


def numpy_campaign(p: BattleParams, key: np.uint64, first: int, n: int) -> list[np.ndarray]:
    """Per-trial metric values of trials first..first+n-1, in metrics() order, with numpy.

    Campaigns without Riverfolk mercenaries or a Vagabond's allied warriors only (the bench's)."""
    assert p.attacker.mercenaries == 0 and p.attacker.allied_warriors == 0
    row = pack(p)
    globals_ = ("corvid_plot", "lizard_garden", "battles", "stop_when_cleared", "hostile")
    plot, garden, battles, stop, hostile0 = (int(PACKED.read(row, g)[0]) for g in globals_)

    def side(who: str, *pieces: str) -> list[int]:
        values = PACKED.read(row, who)
        return [int(values[SIDE.at(piece)]) for piece in pieces]

    a_faction, a_extra, a_tokens_first = side("attacker", "faction", "extra_hits", "tokens_first")
    d_faction, d_extra, d_tokens_first = side("defender", "faction", "extra_hits", "tokens_first")
    a_vb, d_vb = a_faction == VAGABOND, d_faction == VAGABOND

    def full(x: int) -> np.ndarray:
        return np.full(n, x, dtype=np.int64)

    pieces = ("warriors", "buildings", "tokens", "swords", "items", "cards")
    a_warriors, a_buildings, a_tokens = side("attacker", "warriors", "buildings", "tokens")
    a_swords, a_items = side("attacker", "swords", "items")
    d_warriors, d_buildings, d_tokens, d_swords, d_items = side("defender", *pieces[:5])
    aw, ab, at, a_sw, a_it, a_cards, a_ready = (full(x) for x in side("attacker", *pieces, "ready"))
    dw, db, dt, d_sw, d_it, d_cards = (full(x) for x in side("defender", *pieces))
    hostile = full(hostile0).astype(bool)
    active = np.ones(n, dtype=bool)
    a_vp, d_vp, ambush_hits, fought, acolytes = (full(0) for _ in range(5))
    for b in range(battles):
        go = active & ((a_ready > 0) if a_vb else (aw > 0)) & (d_vb | (dw + db + dt > 0))
        if a_vb:
            a_ready = a_ready - go  # a sword exhausted to battle
        ambush = go & (d_cards > 0)
        cancelled = ambush & (a_cards > 0)
        d_cards -= ambush
        a_cards -= cancelled
        dealt = int(PACKED.read(row, "ambush_hits")[0])
        lost = _removal(dealt * (ambush & ~cancelled), aw, ab, at, a_it, a_sw, a_tokens_first)
        a_ready = a_ready - np.maximum(lost[4] - (a_sw - a_ready), 0)
        aw, ab, at, a_it, a_sw = (
            x - y for x, y in zip((aw, ab, at, a_it, a_sw), lost, strict=True)
        )
        ambush_hits += sum(lost)
        d_vp += lost[1] + lost[2]
        rolls = go & (a_vb | (aw > 0))
        x = _words(key, first, n, b)
        die1 = ((x & np.uint64(0xFFFFFFFF)) * np.uint64(4) >> np.uint64(32)).astype(np.int64)
        die2 = ((x >> np.uint64(32)) * np.uint64(4) >> np.uint64(32)).astype(np.int64)
        high, low = np.maximum(die1, die2), np.minimum(die1, die2)
        a_roll, d_roll = (low, high) if d_faction == ALLIANCE else (high, low)
        d_cap = d_sw if d_vb else dw
        a_hits = np.minimum(a_roll, a_sw if a_vb else aw) + a_extra + (d_cap == 0)
        d_hits = np.minimum(d_roll, d_cap) + d_extra + (plot & (dt > 0))
        a_hits *= rolls
        d_hits *= rolls
        dl = _removal(a_hits, dw, db, dt, d_it, d_sw, d_tokens_first)
        al = _removal(d_hits, aw, ab, at, a_it, a_sw, a_tokens_first)
        a_ready = a_ready - np.maximum(al[4] - (a_sw - a_ready), 0)
        dw, db, dt, d_it, d_sw = (x - y for x, y in zip((dw, db, dt, d_it, d_sw), dl, strict=True))
        aw, ab, at, a_it, a_sw = (x - y for x, y in zip((aw, ab, at, a_it, a_sw), al, strict=True))
        a_vp += dl[1] + dl[2] + (a_vb & hostile) * (dl[0] + dl[1] + dl[2])
        d_vp += al[1] + al[2]
        hostile |= a_vb & (dl[0] > 0)
        if d_faction == LIZARDS:
            acolytes += dl[0]
        fought += go
        active = rolls & ~(bool(stop) & ((d_sw if d_vb else dw) == 0))
    a_pres, d_pres = aw + ab, dw + db
    tie = a_pres == d_pres
    a_rules = (a_pres > d_pres) | (tie & (a_faction == EYRIE) & (a_pres > 0))
    d_rules = (d_pres > a_pres) | (tie & (d_faction == EYRIE) & (d_pres > 0))
    a_gardened = bool(garden) & (a_faction == LIZARDS) & (ab > 0)
    d_gardened = bool(garden) & (d_faction == LIZARDS) & (db > 0)
    a_rules = a_gardened | (a_rules & ~d_gardened)
    d_rules = d_gardened | (d_rules & ~a_gardened)
    control = 2 - 2 * a_rules.astype(np.int64) - d_rules
    return [
        a_warriors - aw,
        d_warriors - dw,
        d_buildings - db,
        d_tokens - dt,
        a_vp,
        ((not d_vb) & (dw + db + dt == 0)).astype(np.int64),
        ambush_hits,
        control,
        d_vp,
        fought,
        acolytes,
        a_swords + a_items - a_sw - a_it,
        d_swords + d_items - d_sw - d_it,
        full(0),
        full(0),
        full(0),
        *_faction_effects(
            (a_faction, a_warriors - aw, a_buildings - ab, a_tokens - at),
            (d_faction, d_warriors - dw, d_buildings - db, d_tokens - dt),
            full(0),
        ),
    ]


def _faction_effects(attacker: tuple, defender: tuple, zero: np.ndarray) -> list[np.ndarray]:
    """Marquise warriors, Alliance bases and sympathy, trade posts, gardens, Duchy buildings."""
    lost = {faction: pieces for faction, *pieces in (attacker, defender)}
    none = [zero, zero, zero]
    return [
        lost.get(MARQUISE, none)[0],
        lost.get(ALLIANCE, none)[1],
        lost.get(ALLIANCE, none)[2],
        lost.get(RIVERFOLK, none)[2],
        lost.get(LIZARDS, none)[1],
        lost.get(DUCHY, none)[1],
    ]


def numpy_stats(p: BattleParams, key: np.uint64, first: int, n: int) -> np.ndarray:
    """The kernel's statistics row for one variant, computed with numpy in chunks."""
    ms = metrics(p)
    chunk = 1 << 16
    hist_sizes = [m.max_value + 1 if m.kind == "distribution" else 0 for m in ms]
    out = np.zeros(4 * len(ms) + sum(hist_sizes), dtype=np.int64)
    for a in range(first, first + n, chunk):
        vals = numpy_campaign(p, key, a, min(chunk, first + n - a))
        off = 4 * len(ms)
        for k, x in enumerate(vals):
            x = np.asarray(x, dtype=np.int64)
            out[4 * k : 4 * k + 4] += [x.size, x.sum(), (x * x).sum(), (x * x).sum()]
            if hist_sizes[k]:
                top = hist_sizes[k] - 1
                out[off : off + top + 1] += np.bincount(np.clip(x, 0, top), minlength=top + 1)
                off += top + 1
    return out


def rows(quick: bool) -> list[Row]:
    plan = plan_for("root.battle", CAMPAIGN)
    p = plan.variant_params[0]
    assert isinstance(p, BattleParams)
    trials = 1 << 22 if quick else 1 << 26
    repeat = 3 if quick else 5
    np_trials = 1 << 17 if quick else 1 << 20
    key = scenario_key(1)
    np_rate = np_trials / median_seconds(lambda: numpy_stats(p, key, 0, np_trials), repeat)
    out = []
    for threads in (1, 2):
        rate = engine_rate(plan, trials, threads, repeat)
        out.append(
            Row(
                bench=f"root.battle 3-battle Marquise march, engine {threads} thread(s)",
                value=rate,
                unit="trials/s",
                baseline=np_rate,
                baseline_name="numpy vectorised",
                target=f">= {TARGET:.0e} trials/s on 2 threads" if threads == 2 else "",
                met=(rate >= TARGET) if threads == 2 else None,
            )
        )
    # Paired variants of the same campaign share the roll tally (every variant reads the same
    # words); a 6-battle campaign (over TALLY_MAX_BATTLES) plays every trial, die-major.
    proc = plan.procedure
    ambush = {**CAMPAIGN, "defender": {**CAMPAIGN["defender"], "ambush": 1}}
    n_paired = 1 << 21 if quick else 1 << 24
    n_long = 1 << 17 if quick else 1 << 21
    for label, battles, n in (("3-battle", 3, n_paired), ("6-battle (per-trial path)", 6, n_long)):
        paired = make_plan(
            proc,
            {
                "base": proc.params_model.model_validate({**CAMPAIGN, "battles": battles}),
                "ambush": proc.params_model.model_validate({**ambush, "battles": battles}),
            },
            1,
        )
        out.append(
            Row(
                bench=f"root.battle {label} march, 2 paired variants, 2 threads",
                value=2 * engine_rate(paired, n, 2, repeat),
                unit="variant-trials/s",
                baseline=np_rate,
                baseline_name="numpy vectorised (3 battles)",
            )
        )
    return out


if __name__ == "__main__":
    for r in rows(quick=True):
        print(r)
