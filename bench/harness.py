"""Shared pieces of ``make bench``: timing by median of repeats, and one row per measurement.

A bench module ``bench/bench_<rule>.py`` defines ``rows(quick: bool) -> list[Row]``. Each row
measures a candidate and, where one exists, a baseline *in the same run* (these machines are noisy,
so only side-by-side figures mean anything), plus the target the issue sets.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from simulator.engine import Plan, make_plan, simulate
from simulator.procedures import get


@dataclass
class Row:
    bench: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_name: str = ""
    target: str = ""
    met: bool | None = None


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    """Median wall time of ``fn()`` over ``repeat`` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def plan_for(procedure: str, params: dict, seed: int = 1) -> Plan:
    proc = get(procedure)
    return make_plan(proc, {"base": proc.params_model.model_validate(params)}, seed)


def engine_rate(plan: Plan, trials: int, threads: int, repeat: int = 5) -> float:
    """Trials per second of the engine on ``threads`` threads (median of repeats)."""
    secs = median_seconds(lambda: simulate(plan, trials, threads=threads), repeat)
    return trials / secs
