"""The kernel generated around a designer's compiled trial (:mod:`simulator.userfiles.procedure`).

It keeps the contract of :mod:`simulator.procedures.base`: trials ``first_trial ..`` under every
variant on the same dice (trial ``t``'s dice are its own words of the counter-based generator,
whatever the variant), per-trial values in a block buffer, folded into integer statistics. The
source is generated (one line per parameter and per metric) and compiled under the designer's
file, so Numba caches it beside the trial, keyed by that file's stamp.

Identical rows are tallied (as the built-in field battle tallies its pairs of hits): a trial's
metrics under every variant, each a small whole number, are packed into one 64-bit word (a bool
one bit, an int ``width`` bits) and counted in a hash table of :data:`TALLY_SLOTS` words kept for
the whole call; each distinct row is folded once at the end with its count
(:func:`~simulator.accumulate.accumulate_weighted`). A trial whose row does not pack (a value
below 0 or of ``width`` bits or more) or finds the table full is folded directly with
:func:`~simulator.accumulate.accumulate_block`, and a block with more than a quarter of such
trials stops the tally for the rest of the call. Every statistic is an int64 sum, so the totals
are the same integers however the trials are grouped (bit-identical to folding every trial).
Folding 8 metrics per trial was a fifth of the field battle's time (docs/speed.md).
"""

from __future__ import annotations

import hashlib
from collections import namedtuple
from typing import Any

import numpy as np

from simulator.accumulate import BLOCK, accumulate_block, accumulate_weighted, new_stats
from simulator.jit import KERNEL
from simulator.userfiles.dice import STATE_SIZE, ensure_fill
from simulator.userfiles.loading import Ref
from simulator.userfiles.rewrite import SUFFIX

#: Slots of the tally's hash table (a power of two), and the distinct rows it takes at most
#: (half of them: probes stay short).
TALLY_SLOTS = 4096
TALLY_ROWS = TALLY_SLOTS // 2
#: Fewest bits an int metric gets in a packed row (fewer: no tally).
MIN_WIDTH = 2
_HASH = -7046029254386353131  # SplitMix64's gamma as an int64: the row's word times it, top bits

_SOURCE = """
def {kernel}(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, {n_metrics}, BLOCK), dtype=np.int64)
    dice = np.zeros(STATE_SIZE, dtype=np.uint64)
    dice[0] = key
    # The tally: each variant's row takes {n_bool} one-bit bools and {n_int} ints of width bits.
{width}
    tally = {tally}
    if not tally:  # no shift below then goes past the word
        width = 0
    per_variant = {n_bool} + {n_int} * width if tally else 0
{shifts}
    words = np.zeros(BLOCK, dtype=np.int64)
    spread = np.zeros(BLOCK, dtype=np.int64)
    keys = np.zeros(TALLY_SLOTS, dtype=np.int64)
    counts = np.zeros(TALLY_SLOTS, dtype=np.int64)
    used = 0
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
{unpack}
            at = v * per_variant
            for i in range(m):
                dice[1] = np.uint64(start + i)
                dice[2] = np.uint64(0)
                result = trial(dice, {arguments})
{stores}
                if v == 0:
                    words[i] = part
                    spread[i] = ints
                else:
                    words[i] |= part << at
                    spread[i] |= ints
        direct = m
        if tally:
            direct = 0
            for i in range(m):
                word = words[i]
                counted = False
                if (spread[i] >> width) == 0:
                    h = ((word * HASH) >> 52) & (TALLY_SLOTS - 1)
                    while counts[h] != 0 and keys[h] != word:
                        h = (h + 1) & (TALLY_SLOTS - 1)
                    if counts[h] != 0:
                        counts[h] += 1
                        counted = True
                    elif used < TALLY_ROWS:
                        keys[h] = word
                        counts[h] = 1
                        used += 1
                        counted = True
                if not counted:
                    if direct < i:
                        for v in range(n_variants):
                            for k in range({n_metrics}):
                                values[v, k, direct] = values[v, k, i]
                    direct += 1
            if 4 * direct > m:
                tally = False
        accumulate_block(stats, values, direct, hist_offset, hist_max)
    if used > 0:
        rows = np.zeros((n_variants, {n_metrics}), dtype=np.int64)
        for h in range(TALLY_SLOTS):
            c = counts[h]
            if c > 0:
                word = keys[h]
                for v in range(n_variants):
                    at = v * per_variant
{unpacks}
                for v in range(n_variants):
                    accumulate_weighted(stats, v, rows[v], c, hist_offset, hist_max, rows[0])
    return stats
"""


def _tally_source(bools: list[bool]) -> dict[str, str]:
    """The generated lines that pack a trial's metrics (``x0 ..``) into ``part`` and ``ints``,
    and unpack a counted word into ``rows[v]``: metric ``k`` at bit ``s{k}`` of its variant's
    ``per_variant`` bits."""
    n_bool = sum(bools)
    n_int = len(bools) - n_bool
    if n_int:
        width = f"    width = (64 // n_variants - {n_bool}) // {n_int}"
        tally = "width >= MIN_WIDTH"
    else:
        width = "    width = 0"
        tally = f"{n_bool} * n_variants <= 64"
    shifts, packs, unpacks = [], [], []
    ints = [f"x{k}" for k, b in enumerate(bools) if not b]
    b_before = i_before = 0
    for k, is_bool in enumerate(bools):
        shifts.append(f"    s{k} = min({b_before} + {i_before} * width, 63)")
        packs.append(f"x{k} << s{k}")
        mask = "1" if is_bool else "((1 << width) - 1)"
        unpacks.append(f"                    rows[v, {k}] = (word >> (at + s{k})) & {mask}")
        b_before += is_bool
        i_before += not is_bool
    return {
        "n_bool": str(n_bool),
        "n_int": str(n_int),
        "width": width,
        "tally": tally,
        "shifts": "\n".join(shifts),
        "pack": " | ".join(packs),
        "ints": " | ".join(ints) or "np.int64(0)",
        "unpacks": "\n".join(unpacks),
    }


def kernel_around(
    trial: Any,
    ref: Ref,
    kinds: list[type],
    names: list[str],
    model: type | None,
    bools: list[bool],
) -> Any:
    """The kernel of the compiled ``trial`` whose parameters have these types and names (passed
    one by one, or as a named tuple when the designer used a pydantic ``model``), and whose
    metrics are bools (``True``) or ints, in order."""
    unpack = []
    for k, kind in enumerate(kinds):
        read = {int: f"np.int64(packed[v, {k}])", bool: f"packed[v, {k}] > 0.5"}
        unpack.append(f"            p{k} = {read.get(kind, f'packed[v, {k}]')}")
    listed = ", ".join(f"p{k}" for k in range(len(kinds)))
    n_metrics = len(bools)
    tally = _tally_source(bools)
    stores = [f"                x{k} = np.int64(result[{k}])" for k in range(n_metrics)]
    stores += [f"                values[v, {k}, i] = x{k}" for k in range(n_metrics)]
    stores.append(f"                part = {tally['pack']}")
    stores.append(f"                ints = {tally['ints']}")
    name = "kernel_" + ref.name
    source = _SOURCE.format(
        kernel=name,
        n_metrics=n_metrics,
        unpack="\n".join(unpack) or "            pass",
        arguments=f"Row({listed})" if model is not None else listed,
        stores="\n".join(stores),
        **{k: v for k, v in tally.items() if k not in ("pack", "ints")},
    )
    scope: dict[str, Any] = {
        "np": np,
        "BLOCK": BLOCK,
        "STATE_SIZE": STATE_SIZE,
        "TALLY_SLOTS": TALLY_SLOTS,
        "TALLY_ROWS": TALLY_ROWS,
        "MIN_WIDTH": MIN_WIDTH,
        "HASH": np.int64(_HASH),
        "new_stats": new_stats,
        "accumulate_block": accumulate_block,
        "accumulate_weighted": accumulate_weighted,
        "trial": trial,
    }
    if model is not None:
        scope["Row"] = namedtuple(model.__name__, names)
    # Its name carries a digest of the generated source and of sim's code compiled into it.
    digest = hashlib.sha256(source.encode()).hexdigest()[:8]
    exec(compile(source, str(ref.path), "exec"), scope)
    fn = scope[name]
    fn.__module__ = trial.py_func.__module__
    fn.__qualname__ = f"{name}_{digest}{SUFFIX}"
    from numba import njit

    ensure_fill()  # the symbol the trial's counts call, before the kernel is compiled or loaded
    options: Any = {**KERNEL, "cache": True}
    return njit(**options)(fn)
