"""Each metric's change split into the clauses' effects, with paired intervals.

Input: the integer statistics of every cell per batch of deals (``(batches, cells, slots)``, the
engine's :attr:`~simulator.engine.Outcome.batch_stats`: the same deals in every cell, cut by trial
index). An effect is a fixed linear combination ``Σ_c w_c v_c`` of cell means
(:mod:`simulator.explain.design`):

- its **estimate** is computed exactly, in rationals, from the integer sums: the Shapley values
  and the Möbius terms then add up to the total change exactly, and a clause whose cells play
  identical games gets exactly 0;
- its **standard error** is the paired one over batches of deals. Each cell mean is a ratio
  ``S_c / N_c`` (a conditional metric is not defined in every trial), linearized: batch b
  contributes ``z_b = Σ_c w_c (S_bc − v_c N_bc) / N_c``; the variance is ``B/(B−1) Σ_b z_b²``
  with ``B − 1`` degrees of freedom (per trial when every batch is one trial, where it is
  exactly the paired t-test's). Cells whose statistics are identical in every batch are merged
  before this sum, so their differences cancel exactly rather than to rounding;
- **Holm**: the total changes are one family (across metrics), the Shapley values another (every
  metric × clause) and the Möbius terms a third; each interval is Holm-adjusted (the interval at
  the level Holm's step-down tests it at), so it excludes 0 exactly when the effect is
  significant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from simulator.explain.design import Design, Weights
from simulator.stats import ALPHA, holm_levels


@dataclass
class Effect:
    """One effect of one metric: its exact estimate, standard error and Holm-adjusted interval."""

    exact: Fraction
    se: float
    df: int
    low: float = math.nan
    high: float = math.nan
    p: float = 1.0
    significant: bool = False

    @property
    def estimate(self) -> float:
        return float(self.exact)

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        return {
            "estimate": self.estimate,
            "se": num(self.se),
            "low": num(self.low),
            "high": num(self.high),
            "p": self.p,
            "significant": self.significant,
        }


@dataclass
class MetricEffects:
    """A metric's cell means, total change, Shapley values (one per clause) and Möbius terms."""

    metric: str
    kind: str
    means: dict[int, float]
    total: Effect
    shapley: list[Effect]
    terms: list[tuple[int, bool, Effect]] = field(default_factory=list)

    def to_dict(self, names: list[str]) -> dict[str, Any]:
        def label(mask: int, remainder: bool) -> str:
            if remainder:
                return "higher-order remainder"
            return " × ".join(n for i, n in enumerate(names) if mask >> i & 1)

        return {
            "metric": self.metric,
            "kind": self.kind,
            "cells": {_cell_name(m, names): v for m, v in self.means.items()},
            "total": self.total.to_dict(),
            "shapley": {n: e.to_dict() for n, e in zip(names, self.shapley, strict=True)},
            "terms": [
                {"clauses": label(m, r), "order": m.bit_count(), **e.to_dict()}
                for m, r, e in self.terms
            ],
        }


def _cell_name(mask: int, names: list[str]) -> str:
    on = [n for i, n in enumerate(names) if mask >> i & 1]
    return " + ".join(on) if on else "none"


def _effect(
    weights: Weights,
    index: dict[int, int],
    means: dict[int, Fraction],
    sums: np.ndarray,
    counts: np.ndarray,
    totals: dict[int, int],
    scale: int,
) -> Effect:
    exact = sum((w * means[c] for c, w in weights.items()), Fraction(0))
    batches = sums.shape[0]
    if batches < 2:
        return Effect(exact, math.nan, 0)
    cols = [index[c] for c in weights]
    if all(np.array_equal(counts[:, cols[0]], counts[:, j]) for j in cols[1:]):
        z = _same_counts(weights, index, sums, counts[:, cols[0]], totals, scale)
    else:
        z = _ratios(weights, index, means, sums, counts, totals, scale)
    se = math.sqrt(batches / (batches - 1) * float(np.dot(z, z)))
    return Effect(exact, se, batches - 1)


def _same_counts(
    weights: Weights,
    index: dict[int, int],
    sums: np.ndarray,
    counts: np.ndarray,
    totals: dict[int, int],
    scale: int,
) -> np.ndarray:
    """Every cell defined in the same trials (the usual case): the combination's per-batch sums
    in integers (weights over their common denominator), so a combination that is zero deal by
    deal gives exactly zero."""
    denominator = math.lcm(*(w.denominator for w in weights.values()))
    n = totals[next(iter(weights))]
    factors = {c: int(w * denominator) for c, w in weights.items()}
    largest = max(int(np.abs(sums[:, index[c]]).max()) for c in weights)
    safe = largest * sum(abs(f) for f in factors.values()) < 2**62
    combined = np.zeros(sums.shape[0], dtype=np.int64 if safe else object)
    total = 0
    for c, factor in factors.items():
        column = sums[:, index[c]]
        combined += factor * (column if safe else column.astype(object))
        total += factor * int(column.sum())
    centred = np.array(combined, dtype=np.float64)
    if total != 0:
        centred -= counts * (total / n)
    return centred / (denominator * scale * n)


def _ratios(
    weights: Weights,
    index: dict[int, int],
    means: dict[int, Fraction],
    sums: np.ndarray,
    counts: np.ndarray,
    totals: dict[int, int],
    scale: int,
) -> np.ndarray:
    """Cells defined in different trials (a conditional mean): each mean a ratio, linearized.
    Cells whose statistics are identical in every batch are merged first, so that a clause that
    never fired cancels exactly."""
    merged: dict[bytes, tuple[int, Fraction]] = {}
    for c, w in weights.items():
        col = index[c]
        key = sums[:, col].tobytes() + counts[:, col].tobytes()
        first, before = merged.get(key, (c, Fraction(0)))
        merged[key] = (first, before + w)
    z = np.zeros(sums.shape[0])
    for c, w in merged.values():
        if w == 0:
            continue
        col = index[c]
        mean = float(means[c])
        z += float(w) * (sums[:, col] / scale - mean * counts[:, col]) / totals[c]
    return z


def _p(effect: Effect) -> float:
    from scipy.special import stdtr

    if not effect.se > 0:
        return 1.0 if effect.exact == 0 or math.isnan(effect.se) else 0.0
    t = abs(effect.estimate) / effect.se
    return float(2 * stdtr(effect.df, -t))


def _adjust(effects: list[Effect], alpha: float = ALPHA) -> None:
    """Holm over ``effects``: each gets its p, significance and interval at Holm's level."""
    from scipy.special import stdtrit

    if not effects:
        return
    ps = [_p(e) for e in effects]
    levels, rejected = holm_levels(ps, alpha)
    for e, p, level, sig in zip(effects, ps, levels, rejected, strict=True):
        e.p = p
        if math.isnan(e.se):
            e.low = e.high = math.nan
            e.significant = False
            continue
        half = float(stdtrit(e.df, 1 - level / 2)) * e.se if e.se > 0 else 0.0
        e.low, e.high = e.estimate - half, e.estimate + half
        e.significant = bool(sig) and (e.low > 0 or e.high < 0)


def decompose(
    design: Design,
    batch_stats: np.ndarray,
    metrics: Sequence[tuple[str, str, int]],
) -> list[MetricEffects]:
    """Every metric's effects from per-batch cell statistics ``(batches, cells, slots)`` (cells in
    ``design.cells`` order); ``metrics`` are ``(name, kind, scale)`` in the plan's order.

    A clause that never fired plays the same games in its cells: its Shapley value and every
    term it is part of come out exactly 0, with a zero-width interval.

    A metric undefined in some cell (a conditional mean with no defined trial) is left out.
    """
    index = {c: i for i, c in enumerate(design.cells)}
    out: list[MetricEffects] = []
    for m, (name, kind, scale) in enumerate(metrics):
        counts = batch_stats[:, :, 4 * m]
        sums = batch_stats[:, :, 4 * m + 1]
        totals = {c: int(batch_stats[:, index[c], 4 * m].sum()) for c in design.cells}
        if any(n == 0 for n in totals.values()):
            continue
        means = {
            c: Fraction(int(batch_stats[:, index[c], 4 * m + 1].sum()), scale * totals[c])
            for c in design.cells
        }

        def effect(w: Weights) -> Effect:
            return _effect(w, index, means, sums, counts, totals, scale)  # noqa: B023

        out.append(
            MetricEffects(
                name,
                kind,
                {c: float(v) for c, v in means.items()},
                effect(design.total),
                [effect(w) for w in design.shapley],
                [(t.mask, t.remainder, effect(t.weights)) for t in design.terms],
            )
        )
    _adjust([e.total for e in out])
    _adjust([s for e in out for s in e.shapley])
    _adjust([t for e in out for _, _, t in e.terms])
    return out
