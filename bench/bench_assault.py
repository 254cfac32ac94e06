"""Here I Stand siege campaign of up to 10 assaults (8 units, no cavalry, a rating-1 leader, against
3 defenders): the engine on 1 and 2 threads beside a numpy-vectorised version of the same campaign.

The numpy version reads the same random words (same word per assault and die), so on the same trials
it gives the same results as the kernel: the bench checks that before timing anything.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from bench.harness import Row, engine_rate, median_seconds, plan_for
from simulator.engine import run_range
from simulator.procedures.his.assault import ASSAULT_WORDS, DEFENDER_WORDS
from simulator.rng import GAMMA, STRIDE, hit_threshold

CAMPAIGN = {
    "attacker": {"units": 8, "cavalry": 0, "leader": 1},
    "defender": {"units": 3, "leader": 0},
    "max_assaults": 10,
}
TARGET = 5e7

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _hits(key, trials, j0, dice, thr):  # type: ignore[no-untyped-def]
    """Hits of each live trial's ``dice`` dice, two per word from word ``j0`` on."""
    hits = np.zeros(trials.shape, dtype=np.int64)
    counter0 = trials * STRIDE
    for w in range((int(dice.max()) + 1) // 2):
        x = _mix64(key + (counter0 + np.uint64(j0 + w + 1)) * GAMMA)
        hits += ((x & np.uint64(0xFFFFFFFF)) >= thr) & (2 * w < dice)
        hits += ((x >> np.uint64(32)) >= thr) & (2 * w + 1 < dice)
    return hits


def numpy_campaign(
    key: np.uint64,
    first: int,
    n: int,
    units: int = 8,
    cavalry: int = 0,
    leader: int = 1,
    defenders: int = 3,
    d_leader: int = 0,
    extra: int = 1,
    max_assaults: int = 10,
    cavalry_first: bool = True,
) -> dict[str, np.ndarray]:
    """The campaign as a numpy user would write it: arrays of live trials, one pass per assault."""
    thr = np.uint64(hit_threshold(5))
    trial = np.arange(first, first + n, dtype=np.uint64)
    live = np.arange(n)
    u = np.full(n, units, dtype=np.int64)
    c = np.full(n, cavalry, dtype=np.int64)
    d = np.full(n, defenders, dtype=np.int64)
    out = {
        "space_falls": np.zeros(n, dtype=np.int64),
        "assaults_used": np.zeros(n, dtype=np.int64),
        "siege_broken": np.full(n, int(units <= defenders), dtype=np.int64),
        "attacker_hits": np.zeros(n, dtype=np.int64),
        "defender_hits": np.zeros(n, dtype=np.int64),
        "space_falls_at_assault": np.zeros(n, dtype=np.int64),
    }
    if units <= defenders:
        live = live[:0]
    for k in range(max_assaults):
        if live.size == 0:
            break
        lu, lc, ld = u[live], c[live], d[live]
        a_dice = np.where(ld > 0, (lu - lc + 1) // 2 + leader, lu + leader)
        ah = _hits(key, trial[live], k * ASSAULT_WORDS, a_dice, thr)
        dh = _hits(key, trial[live], k * ASSAULT_WORDS + DEFENDER_WORDS, ld + d_leader + extra, thr)
        u_left = np.maximum(lu - dh, 0)
        if cavalry_first:
            c_left = np.maximum(lc - dh, 0)
        else:
            c_left = np.maximum(lc - np.maximum(dh - (lu - lc), 0), 0)
        d_left = np.maximum(ld - ah, 0)
        falls = (d_left == 0) & (u_left > 0) & ((ld > 0) | (ah > 0))
        broken = ~falls & (u_left <= d_left)
        u[live], c[live], d[live] = u_left, c_left, d_left
        out["attacker_hits"][live] += ah
        out["defender_hits"][live] += dh
        out["assaults_used"][live] = k + 1
        out["space_falls"][live] = falls
        out["space_falls_at_assault"][live] = falls * (k + 1)
        out["siege_broken"][live] = broken
        live = live[~(falls | broken)]
    # The defender's leader is rated 0 (a leader all the same): captured when the space falls.
    out["defender_leader_captured"] = out["space_falls"].copy()
    # An attacker with no units left loses its leader (§6.7, as in a field battle's §5.4 ⑥).
    out["attacker_leader_captured"] = (u == 0).astype(np.int64) * int(leader > 0)
    out["protected_by_squadrons"] = np.zeros(n, dtype=np.int64)  # not a port fortress: never
    out["attacker_units_left"] = u
    out["defender_units_left"] = d
    return out


def _check_same_campaign(plan, n: int = 20_000) -> None:  # type: ignore[no-untyped-def]
    """The numpy campaign and the kernel agree on every metric's sum over the same trials."""
    stats = run_range(plan, -1, 0, n)
    ours = numpy_campaign(plan.key(0), 0, n)
    for m, metric in enumerate(plan.metrics):
        if int(stats[0, 4 * m + 1]) != int(ours[metric.name].sum()):
            raise AssertionError(f"numpy campaign differs from the kernel on {metric.name}")


def cpu_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median CPU time of this thread over ``fn()`` calls: what the code costs when it has a core
    to itself, whatever else the machine runs (the engine's wall-clock rows depend on that)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return statistics.median(times)


def rows(quick: bool) -> list[Row]:
    plan = plan_for("his.assault", CAMPAIGN)
    _check_same_campaign(plan)
    repeat = 3 if quick else 5
    n_np = 200_000 if quick else 1_000_000
    key = plan.key(0)
    numpy_rate = n_np / median_seconds(lambda: numpy_campaign(key, 0, n_np), repeat)
    trials = 8_000_000 if quick else 64_000_000
    one = engine_rate(plan, trials // 2, threads=1, repeat=repeat)
    two = engine_rate(plan, trials, threads=2, repeat=repeat)
    load = os.getloadavg()[0]
    n_cpu = 2_000_000 if quick else 8_000_000
    kernel_cpu = n_cpu / cpu_seconds(lambda: run_range(plan, -1, 0, n_cpu), repeat)
    numpy_cpu = n_np / cpu_seconds(lambda: numpy_campaign(key, 0, n_np), repeat)
    return [
        Row(
            "assault 10-assault siege 8v3, 1 thread",
            one,
            "trials/s",
            numpy_rate,
            "numpy vectorised",
        ),
        Row(
            f"assault 10-assault siege 8v3, 2 threads (load avg {load:.1f})",
            two,
            "trials/s",
            numpy_rate,
            "numpy vectorised",
            "≥ 5e7/s",
            two >= TARGET,
        ),
        Row(
            "assault 10-assault siege 8v3, kernel per CPU-second of one thread",
            kernel_cpu,
            "trials/s",
            numpy_cpu,
            "numpy per CPU-second",
            "2 free cores would give 2× this",
        ),
    ]
