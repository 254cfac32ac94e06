"""Tallying identical rows of metrics: each distinct row folded once, with its count.

A kernel whose trials give few distinct rows (the metrics of every variant, small whole numbers)
packs each trial's row into one 64-bit word (a bool one bit, an int ``width`` bits, variant
``v``'s bits after variant ``v - 1``'s) and counts the words in an open-addressing hash table kept
for the whole call (:func:`tally_block`); at the end each distinct word is unpacked and folded
once (:func:`fold_tally`, :func:`~simulator.accumulate.accumulate_weighted`). A trial whose row
does not pack (a value below 0, or of ``width`` bits or more) or finds the table full is listed
(its index in the block), and its kernel runs it again to fold its values with
:func:`~simulator.accumulate.accumulate_block`.

Every statistic is an int64 sum (counts, sums, squares, cross terms, histogram bins), so the
totals are the same integers however the trials are grouped: bit-identical to folding each trial,
for any chunk or thread count. The built-in field battle tallies its pairs of hits the same way.
These functions are compiled once (cached with ``sim``), not with each designer's file.
"""

from __future__ import annotations

import numpy as np

from simulator.accumulate import accumulate_weighted
from simulator.jit import inline

#: Slots of the hash table (a power of two), and the distinct rows it takes at most (half of
#: them: probes stay short).
SLOTS = 4096
ROWS = SLOTS // 2
#: Fewest bits an int metric gets in a packed row (fewer: no tally).
MIN_WIDTH = 2
#: SplitMix64's gamma as an int64: a word's slot is the top bits of the word times it.
HASH = np.int64(-7046029254386353131)
_SHIFT = np.int64(64 - 12)  # 2**12 == SLOTS


@inline
def width_of(n_variants, n_bool, n_int):
    """Bits each int metric gets when ``n_variants`` rows of ``n_bool`` bools and ``n_int`` ints
    share one word; 0 when they do not fit (no tally)."""
    room = 64 // n_variants - n_bool
    width = np.int64(0)
    if n_int == 0:
        if room >= 0:
            width = np.int64(1)
    elif room // n_int >= MIN_WIDTH:
        width = np.int64(room // n_int)
    return width


@inline
def tally_block(words, spread, m, width, keys, counts, used, again):
    """Count trials ``0 .. m - 1`` of a block: trial ``i``'s row is ``words[i]``, the OR of its
    int values ``spread[i]``. Returns (trials left to fold directly, their indices now
    ``again[:direct]`` in order, rows in the table)."""
    direct = np.int64(0)
    top = SLOTS - 1
    for i in range(m):
        word = words[i]
        counted = False
        if (spread[i] >> width) == 0:
            h = ((word * HASH) >> _SHIFT) & top
            while counts[h] != 0 and keys[h] != word:
                h = (h + 1) & top
            if counts[h] != 0:
                counts[h] += 1
                counted = True
            elif used < ROWS:
                keys[h] = word
                counts[h] = 1
                used += 1
                counted = True
        if not counted:
            again[direct] = i
            direct += 1
    return direct, used


@inline
def fold_tally(stats, keys, counts, per_variant, shifts, masks, hist_offset, hist_max):
    """Fold every counted row into ``stats``: metric ``k`` of variant ``v`` is
    ``(word >> (v * per_variant + shifts[k])) & masks[k]``."""
    n_variants = stats.shape[0]
    n_metrics = shifts.shape[0]
    rows = np.zeros((n_variants, n_metrics), dtype=np.int64)
    for h in range(SLOTS):
        c = counts[h]
        if c > 0:
            word = keys[h]
            for v in range(n_variants):
                at = v * per_variant
                for k in range(n_metrics):
                    rows[v, k] = (word >> (at + shifts[k])) & masks[k]
            for v in range(n_variants):
                accumulate_weighted(stats, v, rows[v], c, hist_offset, hist_max, rows[0])
