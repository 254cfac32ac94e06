"""The kernel generated around a designer's compiled trial (:mod:`simulator.userfiles.procedure`).

It keeps the contract of :mod:`simulator.procedures.base`: trials ``first_trial ..`` under every
variant on the same dice (trial ``t``'s dice are its own words of the counter-based generator,
whatever the variant), per-trial values in a block buffer, folded into integer statistics. The
source is generated (one line per parameter and per metric) and compiled under the designer's
file, so Numba caches it beside the trial, keyed by that file's stamp.

Identical rows are tallied (:mod:`simulator.tally`), as the built-in field battle tallies its
pairs of hits: a trial's metrics under every variant, small whole numbers, are packed into one
64-bit word (a bool one bit, an int ``width`` bits) by the generated lines, counted in a hash
table for the whole call and each distinct row folded once at the end. A tallied trial stores no
values: the trials of a block whose rows the table does not take are run again (a trial depends
only on its dice, so the same values) and folded trial by trial. Both give the same integers
(every statistic is an int64 sum). Folding the field battle's 8 metrics trial by trial was a
sixth of its time; storing them, a tenth (docs/speed.md).
"""

from __future__ import annotations

import hashlib
from collections import namedtuple
from typing import Any

import numpy as np

from simulator import tally
from simulator.accumulate import BLOCK, UNDEFINED, accumulate_block, new_stats
from simulator.jit import KERNEL, inline
from simulator.stopflag import requested
from simulator.userfiles.dice import STATE_SIZE, ensure_fill
from simulator.userfiles.imports import imports_digest
from simulator.userfiles.jitting import CHECKED
from simulator.userfiles.loading import Ref
from simulator.userfiles.rewrite import SUFFIX

_SOURCE = """
def {kernel}(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, {n_metrics}, BLOCK), dtype=np.int64)
    dice = np.zeros(STATE_SIZE, dtype=np.uint64)
    dice[0] = key
    # Identical rows tallied (simulator.tally): {n_bool} bools of one bit, {n_int} ints of width.
    width = width_of(n_variants, {n_bool}, {n_int})
    tally = width > 0
    per_variant = {n_bool} + {n_int} * width
    shifts = np.zeros({n_metrics}, dtype=np.int64)
    masks = np.ones({n_metrics}, dtype=np.int64)
{shifts}
    words = np.zeros(BLOCK, dtype=np.int64)
    spread = np.zeros(BLOCK, dtype=np.int64)
    keys = np.zeros(TALLY_SLOTS, dtype=np.int64)
    counts = np.zeros(TALLY_SLOTS, dtype=np.int64)
    again = np.zeros(BLOCK, dtype=np.int64)
    used = 0
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        if stop_requested():  # a signal came: the engine counts nothing of this call
            break
        m = min(BLOCK, end - start)
        # While tallying, a trial's values are not stored (8 stores of a trial were a tenth of
        # its time): the trials whose rows the table does not take, again[:direct], are run
        # again on the same dice with their values stored, and folded directly.
        for v in range(n_variants):
{unpack}
            at = v * per_variant if tally else 0
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
            direct, used = tally_block(words, spread, m, width, keys, counts, used, again)
            tally = 4 * direct <= m  # rows too diverse: fold every trial from here on
            for v in range(n_variants):
{unpack_again}
                for j in range(direct):
                    dice[1] = np.uint64(start + again[j])
                    dice[2] = np.uint64(0)
                    result = trial(dice, {arguments})
{again}
        accumulate_block(stats, values, direct, hist_offset, hist_max)
    if used > 0:
        fold_tally(stats, keys, counts, per_variant, shifts, masks, hist_offset, hist_max)
    return stats
"""


@inline
def defined(x):
    """A trial's metric as stored: never :data:`~simulator.accumulate.UNDEFINED`."""
    value = np.int64(x)
    return value if value != UNDEFINED else UNDEFINED + np.int64(1)


def _tally_source(bools: list[bool]) -> dict[str, str]:
    """The generated lines that pack a trial's metrics (``x0 ..``) into ``part`` and ``ints``:
    metric ``k`` at bit ``s{k}`` of its variant's ``per_variant`` bits (at most bit 63: with no
    tally, ``width`` is 0 and the words are not read)."""
    n_bool = sum(bools)
    n_int = len(bools) - n_bool
    shifts, packs = [], []
    ints = [f"x{k}" for k, b in enumerate(bools) if not b]
    b_before = i_before = 0
    for k, is_bool in enumerate(bools):
        shifts.append(f"    s{k} = min({b_before} + {i_before} * width, 63)")
        shifts.append(f"    shifts[{k}] = s{k}")
        if not is_bool:
            shifts.append(f"    masks[{k}] = (1 << width) - 1")
        packs.append(f"x{k} << s{k}")
        b_before += is_bool
        i_before += not is_bool
    return {
        "n_bool": str(n_bool),
        "n_int": str(n_int),
        "shifts": "\n".join(shifts),
        "pack": " | ".join(packs),
        "ints": " | ".join(ints) or "np.int64(0)",
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
    packing = _tally_source(bools)
    # A metric of exactly UNDEFINED (-2**62) is not "undefined": it is stored one above, whose
    # square does not fit either, so the run is refused (simulator.accumulate), not short of it.
    stores = [f"                x{k} = defined(result[{k}])" for k in range(n_metrics)]
    stores.append("                if not tally:")
    stores += [f"                    values[v, {k}, i] = x{k}" for k in range(n_metrics)]
    stores.append(f"                part = {packing['pack']}")
    stores.append(f"                ints = {packing['ints']}")
    again = [f"{' ' * 20}values[v, {k}, j] = defined(result[{k}])" for k in range(n_metrics)]
    name = "kernel_" + ref.name
    source = _SOURCE.format(
        kernel=name,
        n_metrics=n_metrics,
        unpack="\n".join(unpack) or "            pass",
        arguments=f"Row({listed})" if model is not None else listed,
        stores="\n".join(stores),
        again="\n".join(again),
        unpack_again="\n".join("    " + u for u in unpack) or "                pass",
        **{k: v for k, v in packing.items() if k not in ("pack", "ints")},
    )
    scope: dict[str, Any] = {
        "np": np,
        "BLOCK": BLOCK,
        "STATE_SIZE": STATE_SIZE,
        "TALLY_SLOTS": tally.SLOTS,
        "new_stats": new_stats,
        "defined": defined,
        "accumulate_block": accumulate_block,
        "width_of": tally.width_of,
        "tally_block": tally.tally_block,
        "fold_tally": tally.fold_tally,
        "trial": trial,
        "stop_requested": requested,
    }
    if model is not None:
        scope["Row"] = namedtuple(model.__name__, names)
    # Its name carries a digest of the generated source and of sim's code compiled into it.
    digest = hashlib.sha256(source.encode()).hexdigest()[:8]
    exec(compile(source, str(ref.path), "exec"), scope)
    fn = scope[name]
    fn.__module__ = trial.py_func.__module__
    fn.__qualname__ = f"{name}_{digest}{SUFFIX}{imports_digest(fn.__module__)}"
    from numba import njit

    ensure_fill()  # the symbol the trial's counts call, before the kernel is compiled or loaded
    options: Any = {**KERNEL, **CHECKED}
    return njit(**options)(fn)
