"""Folding per-trial metric values into integer sufficient statistics, inside kernels.

Layout of one variant's statistics row, for ``M`` metrics::

    [4*m + 0]  trials where metric m is defined
    [4*m + 1]  sum of values
    [4*m + 2]  sum of squared values
    [4*m + 3]  sum of value * (the same trial's value under variant 0), where both are defined
    [4*M ...]  histograms of distribution metrics: at ``hist_offset[m]``, ``hist_max[m] + 1`` bins

The cross term gives paired (common-random-number) comparisons between variants without keeping
per-trial values. Everything is int64, so sums are exact and independent of chunking.

A sum of squares that would not fit in int64 (value² × trials of 2**63, about 9.2e18: a metric
of 10**7 over 100,000 trials) is never wrapped: its slot becomes :data:`OVERFLOW` (-1, which no
sum of squares is) and stays so in every later sum (:func:`merge`), and the run is refused
(:func:`overflowed`). While the squares fit, so do the sums and the cross terms (each at most a
sum of squares), so nothing else can wrap. Whether the squares of a set of trials fit does not
depend on how they are cut into jobs, so neither does the refusal.

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

#: A sum of squares that did not fit in int64 (see the module's docstring).
OVERFLOW = np.int64(-1)
#: Largest value whose square fits in int64.
ROOT_MAX = np.int64(3037000499)
#: Values of magnitude below 2**SAFE_BITS: a block of them sums its squares without overflow
#: (512 * 2**52 = 2**61); a block with a larger one sums them checked (:func:`checked_squares`).
SAFE_BITS = np.int64(26)
_INT64_MAX = np.int64(2**63 - 1)


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
def add_squares(a, b):
    """``a + b`` for two sums of squares, :data:`OVERFLOW` if either is or the sum does not fit
    (both below 2**63: their sum wraps at most once, to a negative number)."""
    out = a + b
    if a < 0 or b < 0 or out < 0:
        out = OVERFLOW
    return out


@inline
def checked_squares(values, v, m, n):
    """The sum of squares of ``values[v, m, :n]`` (undefined values left out), checked at each
    step: :data:`OVERFLOW` when it does not fit in int64."""
    squares = np.int64(0)
    for i in range(n):
        x = values[v, m, i]
        if x != UNDEFINED:
            if x > ROOT_MAX or x < -ROOT_MAX:
                return OVERFLOW
            squares = add_squares(squares, x * x)
    return squares


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
            bits = np.int64(0)  # the OR of every |x| (|x| - 1 below 0): how large they get
            for i in range(n):
                x = values[v, m, i]
                if x != UNDEFINED:
                    defined += 1
                    total += x
                    squares += x * x
                    bits |= x ^ (x >> 63)
                    y = values[0, m, i]
                    if y != UNDEFINED:
                        cross += x * y
            if (bits >> SAFE_BITS) != 0:  # large values: their squares may not have fit
                squares = checked_squares(values, v, m, n)
            base = 4 * m
            stats[v, base] += defined
            stats[v, base + 1] += total
            stats[v, base + 2] = add_squares(stats[v, base + 2], squares)
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
        squares = OVERFLOW
        if -ROOT_MAX <= x <= ROOT_MAX and (x == 0 or count <= _INT64_MAX // (x * x)):
            squares = count * x * x
        stats[v, base] += count
        stats[v, base + 1] += count * x
        stats[v, base + 2] = add_squares(stats[v, base + 2], squares)
        stats[v, base + 3] += count * x * cross_row[m]
        off = hist_offset[m]
        if off >= 0:
            stats[v, off + min(max(x, 0), hist_max[m])] += count


def merge(total: np.ndarray, part: np.ndarray, n_metrics: int) -> None:
    """``total += part`` for statistics rows of ``n_metrics`` metrics, a sum of squares that does
    not fit (or that did not in either) becoming :data:`OVERFLOW`."""
    squares = SLOTS_PER_METRIC * np.arange(n_metrics) + 2
    before = total[..., squares].copy()
    with np.errstate(over="ignore"):
        total += part
    after = total[..., squares]
    bad = (before < 0) | (part[..., squares] < 0) | (after < 0)
    after[bad] = OVERFLOW
    total[..., squares] = after


def overflowed(stats: np.ndarray, n_metrics: int) -> list[int]:
    """The metrics (their indices) whose sum of squares did not fit in int64, in any variant."""
    squares = stats[..., SLOTS_PER_METRIC * np.arange(n_metrics) + 2]
    return [m for m in range(n_metrics) if bool((squares[..., m] < 0).any())]
