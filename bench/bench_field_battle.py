"""Field battle 10 v 10: the engine against a numpy-vectorised battle, the generator's ceiling,
memory flat in trials, and the warm `sim run` of the default scenario."""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import numpy as np
from numba import njit

from bench.harness import Row, engine_rate, median_seconds, plan_for
from simulator.engine import simulate
from simulator.rng import GAMMA, STRIDE, high32, low32, mix64

TEN_V_TEN = {"attacker": {"units": 10, "leader": 0}, "defender": {"units": 10, "leader": 0}}


def numpy_battle(n: int, rng: np.random.Generator, a_units=10, d_units=10, extra=1) -> float:
    """The same battle written the way a numpy user would: arrays of dice, then arithmetic."""
    ah = (rng.integers(1, 7, size=(n, a_units), dtype=np.int8) >= 5).sum(axis=1)
    dh = (rng.integers(1, 7, size=(n, d_units + extra), dtype=np.int8) >= 5).sum(axis=1)
    a_left = np.maximum(a_units - dh, 0)
    d_left = np.maximum(d_units - ah, 0)
    wins = ah > dh
    both = (a_left == 0) & (d_left == 0)
    a_left = a_left + (both & wins)
    d_left = d_left + (both & ~wins)
    return float(wins.mean() + a_left.mean() + d_left.mean())


@njit(nogil=True, cache=True)
def _bare_generator(key, n_words):
    step = STRIDE * GAMMA
    thr = np.uint64(2863311531)
    acc = np.zeros(512, np.int64)
    for s in range(0, n_words, 512):
        base = key + np.uint64(s) * step
        for i in range(512):
            x = mix64(base + np.uint64(i) * step)
            acc[i] += np.int64(low32(x) >= thr) + np.int64(high32(x) >= thr)
    return acc.sum()


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rows(quick: bool) -> list[Row]:
    out = []
    plan = plan_for("his.field_battle", TEN_V_TEN)
    trials = 20_000_000 if quick else 100_000_000
    rng = np.random.default_rng(1)
    n_np = 1_000_000
    numpy_rate = n_np / median_seconds(lambda: numpy_battle(n_np, rng), 3 if quick else 5)
    one = engine_rate(plan, trials // 2, threads=1, repeat=3 if quick else 5)
    two = engine_rate(plan, trials, threads=2, repeat=3 if quick else 5)
    out.append(Row("field_battle 10v10, 1 thread", one, "trials/s", numpy_rate, "numpy vectorised"))
    out.append(
        Row(
            "field_battle 10v10, 2 threads",
            two,
            "trials/s",
            numpy_rate,
            "numpy vectorised",
            "≥ 20× numpy and ≥ 2e8/s",
            two >= 20 * numpy_rate and two >= 2e8,
        )
    )
    words = 50_000_000
    _bare_generator(np.uint64(1), 1024)
    secs = median_seconds(lambda: _bare_generator(np.uint64(1), words), 3)
    # 10 v 10 with the defender's extra die reads 21 dice = 11 words per trial.
    ceiling = 2 * words / secs / 21
    out.append(
        Row(
            "generator ceiling, 1 thread (21 d6 per trial)",
            ceiling,
            "trials/s",
            one,
            "field_battle 1 thread",
            "kernel/ceiling ratio shown",
        )
    )
    # Memory flat in trials: peak RSS after a small run and after a very large one.
    simulate(plan, 1_000_000, threads=2)
    before = _maxrss_mib()
    big = 200_000_000 if quick else 1_000_000_000
    t0 = time.perf_counter()
    simulate(plan, big, threads=2)
    secs_big = time.perf_counter() - t0
    after = _maxrss_mib()
    out.append(
        Row(
            f"peak RSS growth over a {big:.0e}-trial run ({secs_big:.1f} s)",
            after - before,
            "MiB",
            before,
            "RSS before",
            "flat (< 5 MiB growth)",
            after - before < 5,
        )
    )
    # Warm `sim run` of the default scenario, end to end in a fresh process.
    cmd = [
        sys.executable,
        "-m",
        "simulator.cli",
        "run",
        "scenarios/his/field_battle.yaml",
        "-q",
        "--out",
        "reports/out/bench-default",
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    wall = median_seconds(lambda: subprocess.run(cmd, check=True, capture_output=True), 3)
    out.append(
        Row("`sim run` default scenario, warm cache", wall, "s", None, "", "< 2 s", wall < 2)
    )
    return out
