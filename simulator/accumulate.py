"""Folding per-trial metric values into integer sufficient statistics, inside kernels.

Layout of one variant's statistics row, for ``M`` metrics::

    [4*m + 0]  trials where metric m is defined
    [4*m + 1]  sum of values
    [4*m + 2]  sum of squared values
    [4*m + 3]  sum of value * (the same trial's value under variant 0), where both are defined
    [4*M ...]  histograms of distribution metrics: at ``hist_offset[m]``, ``hist_max[m] + 1`` bins

The cross term gives paired (common-random-number) comparisons between variants without keeping
per-trial values. Everything is int64, so sums are exact and independent of chunking.

A kernel walks its trials in blocks of :data:`BLOCK`; the walk is written once here, the block's
body stays the kernel's own::

    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        ...  # trials start .. start + m - 1 into values[:, :, :m]
        accumulate_block(stats, values, m, hist_offset, hist_max)
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline

#: Value a kernel writes for a trial where a conditional metric is not defined.
UNDEFINED = np.int64(-(2**62))

#: Trials per block: values of one block stay in cache between simulation and accumulation.
BLOCK = 512

SLOTS_PER_METRIC = 4


def layout(hist_max: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """Offsets of each metric's histogram (-1 for none), bin maxima and total slots per row."""
    n_metrics = len(hist_max)
    offsets = np.full(n_metrics, -1, dtype=np.int64)
    pos = SLOTS_PER_METRIC * n_metrics
    for m, top in enumerate(hist_max):
        if top >= 0:
            offsets[m] = pos
            pos += top + 1
    return offsets, np.asarray(hist_max, dtype=np.int64), pos


@inline
def block_count(n_trials):
    """How many blocks of at most :data:`BLOCK` trials cover ``n_trials`` trials."""
    return (n_trials + BLOCK - 1) // BLOCK


@inline
def trial_block(first_trial, n_trials, block):
    """Block ``block`` of the trials ``first_trial .. first_trial + n_trials - 1``: its first trial
    and its size (``BLOCK``, the last one possibly fewer)."""
    start = first_trial + block * BLOCK
    return start, min(BLOCK, first_trial + n_trials - start)


@inline
def new_stats(n_variants: np.int64, n_slots: np.int64) -> np.ndarray:
    return np.zeros((n_variants, n_slots), dtype=np.int64)


@inline
def accumulate_block(stats, values, n, hist_offset, hist_max):
    """Add the first ``n`` trials of ``values[variant, metric, i]`` to ``stats``."""
    n_variants = values.shape[0]
    n_metrics = values.shape[1]
    for v in range(n_variants):
        for m in range(n_metrics):
            defined = np.int64(0)
            total = np.int64(0)
            squares = np.int64(0)
            cross = np.int64(0)
            for i in range(n):
                x = values[v, m, i]
                if x != UNDEFINED:
                    defined += 1
                    total += x
                    squares += x * x
                    y = values[0, m, i]
                    if y != UNDEFINED:
                        cross += x * y
            base = 4 * m
            stats[v, base] += defined
            stats[v, base + 1] += total
            stats[v, base + 2] += squares
            stats[v, base + 3] += cross
            off = hist_offset[m]
            if off >= 0:
                top = hist_max[m]
                for i in range(n):
                    x = values[v, m, i]
                    if x != UNDEFINED:
                        b = min(max(x, 0), top)
                        stats[v, off + b] += 1


@inline
def accumulate_weighted(stats, v, row, count, hist_offset, hist_max, cross_row):
    """Add ``count`` trials whose metric values are ``row`` to variant ``v``'s statistics.

    ``cross_row`` holds the same trials' values under variant 0 (pass ``row`` itself for
    variant 0). For kernels that tally outcomes first and fold each distinct outcome once.
    """
    for m in range(row.shape[0]):
        x = row[m]
        base = 4 * m
        stats[v, base] += count
        stats[v, base + 1] += count * x
        stats[v, base + 2] += count * x * x
        stats[v, base + 3] += count * x * cross_row[m]
        off = hist_offset[m]
        if off >= 0:
            stats[v, off + min(max(x, 0), hist_max[m])] += count
