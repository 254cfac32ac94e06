"""The kernel generated around a designer's compiled trial (:mod:`simulator.userfiles.procedure`).

It keeps the contract of :mod:`simulator.procedures.base`: trials ``first_trial ..`` under every
variant on the same dice (trial ``t``'s dice are its own words of the counter-based generator,
whatever the variant), per-trial values in a block buffer, folded into integer statistics. The
source is generated (one line per parameter and per metric) and compiled under the designer's
file, so Numba caches it beside the trial, keyed by that file's stamp.
"""

from __future__ import annotations

import hashlib
from collections import namedtuple
from typing import Any

import numpy as np

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import KERNEL
from simulator.userfiles.dice import STATE_SIZE, ensure_fill
from simulator.userfiles.loading import Ref
from simulator.userfiles.rewrite import SUFFIX

_SOURCE = """
def {kernel}(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, {n_metrics}, BLOCK), dtype=np.int64)
    dice = np.zeros(STATE_SIZE, dtype=np.uint64)
    dice[0] = key
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for v in range(n_variants):
{unpack}
            for i in range(m):
                dice[1] = np.uint64(start + i)
                dice[2] = np.uint64(0)
                result = trial(dice, {arguments})
{stores}
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
"""


def kernel_around(
    trial: Any,
    ref: Ref,
    kinds: list[type],
    names: list[str],
    model: type | None,
    n_metrics: int,
) -> Any:
    """The kernel of the compiled ``trial`` whose parameters have these types and names (passed
    one by one, or as a named tuple when the designer used a pydantic ``model``)."""
    unpack = []
    for k, kind in enumerate(kinds):
        read = {int: f"np.int64(packed[v, {k}])", bool: f"packed[v, {k}] > 0.5"}
        unpack.append(f"            p{k} = {read.get(kind, f'packed[v, {k}]')}")
    listed = ", ".join(f"p{k}" for k in range(len(kinds)))
    stores = [
        f"                values[v, {k}, i] = np.int64(result[{k}])" for k in range(n_metrics)
    ]
    name = "kernel_" + ref.name
    source = _SOURCE.format(
        kernel=name,
        n_metrics=n_metrics,
        unpack="\n".join(unpack) or "            pass",
        arguments=f"Row({listed})" if model is not None else listed,
        stores="\n".join(stores),
    )
    scope: dict[str, Any] = {
        "np": np,
        "BLOCK": BLOCK,
        "STATE_SIZE": STATE_SIZE,
        "new_stats": new_stats,
        "accumulate_block": accumulate_block,
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
