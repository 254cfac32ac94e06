"""Fold per-trial metric values the way the kernels' accumulate_block does, for twin tests."""

from __future__ import annotations

import numpy as np

from simulator.accumulate import UNDEFINED
from simulator.engine import Plan


def fold(plan: Plan, values: list[list[list[int]]]) -> np.ndarray:
    """``values[variant][trial]`` = the twin's metric values → the kernel's statistics array."""
    stats = np.zeros((plan.n_variants, plan.n_slots), dtype=np.int64)
    for v, trials in enumerate(values):
        for t, row in enumerate(trials):
            for m, x in enumerate(row):
                if x == UNDEFINED:
                    continue
                stats[v, 4 * m] += 1
                stats[v, 4 * m + 1] += x
                stats[v, 4 * m + 2] += x * x
                y = values[0][t][m]
                if y != UNDEFINED:
                    stats[v, 4 * m + 3] += x * y
                off = plan.hist_offset[m]
                if off >= 0:
                    stats[v, off + min(max(x, 0), plan.hist_max[m])] += 1
    return stats
