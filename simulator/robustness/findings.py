"""A robustness run's findings read off the runs' statistics: the paired effects of the main run
and of each level on the same deals, their covariance where both runs kept batches of deals cut
alike, tested as one family (:mod:`simulator.robustness.interaction`).

The findings are every later variant's difference from the first in every headline metric
outside the seat families (those fold into the seat table, which has its own line): the
comparisons the verdict reports, whether the main run saw a change or not.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from simulator.equivalence import EquivalenceSpec
from simulator.robustness.interaction import Effect, Finding, judge

_SEAT = re.compile(r"\.seat\d+$")
#: Fewest batches of shared deals from which a covariance is estimated (fewer: it is bounded).
MIN_BATCHES = 16


def compared(plan: Any) -> list[tuple[int, int]]:
    """The (variant, metric) index pairs of the findings of a plan (see the module docstring)."""
    metrics = [
        m
        for m, metric in enumerate(plan.metrics)
        if metric.headline and metric.kind != "conditional_mean" and not _SEAT.search(metric.name)
    ]
    return [(v, m) for v in range(1, plan.n_variants) for m in metrics]


def _variance(n: int, s: int, ss: int) -> float:
    return max(n * ss - s * s, 0) / (n * (n - 1)) if n > 1 else 0.0


def effect(plan: Any, stats: np.ndarray, v: int, m: int) -> Effect:
    """Variant ``v``'s paired difference from the first in metric ``m``: mean, per-deal standard
    deviation and deals (on independent streams the two variances add)."""
    scale = plan.metrics[m].scale
    n0, s0, ss0, _ = (int(x) for x in stats[0, 4 * m : 4 * m + 4])
    n, s1, ss1, cross = (int(x) for x in stats[v, 4 * m : 4 * m + 4])
    if n == 0 or n0 == 0:
        return Effect(0.0, 0.0, 0)
    if plan.independent:
        sd = math.sqrt(_variance(n0, s0, ss0) + _variance(n, s1, ss1)) / scale
        return Effect(s1 / n / scale - s0 / n0 / scale, sd, n)
    d_sum, d_sq = s1 - s0, ss1 + ss0 - 2 * cross
    return Effect(d_sum / n / scale, math.sqrt(_variance(n, d_sum, d_sq)) / scale, n)


def main_effects(main: Any) -> list[tuple[int, int, Effect, bool]]:
    """(variant, metric, effect, whether the main run's Holm test saw it) per finding."""
    seen = {
        (r["variant"], r["metric"]): bool(r["significant"]) for r in _records(main, "comparisons")
    }
    out = []
    for v, m in compared(main.plan):
        e = effect(main.plan, main.outcome.stats, v, m)
        key = (main.plan.variant_names[v], main.plan.metrics[m].name)
        out.append((v, m, e, seen.get(key, False)))
    return out


def _records(result: Any, name: str) -> list[dict[str, Any]]:
    from simulator.runner import records

    return records(result, name)


def _batch_effects(plan: Any, batches: np.ndarray, v: int, m: int, k: int) -> np.ndarray:
    scale = plan.metrics[m].scale
    sums = batches[:k, v, 4 * m + 1] - batches[:k, 0, 4 * m + 1]
    counts = batches[:k, v, 4 * m]
    return np.asarray(sums / np.maximum(counts, 1) / scale, dtype=float)


def covariance(main: Any, level: Any, v: int, m: int, bound: float) -> float | None:
    """The per-deal covariance of the main run's and a level's paired differences over their
    shared deals, from batches both runs cut alike (the same trials in each), clipped to
    ``±bound``; None when they did not keep such batches (or too few)."""
    a, b = main.outcome.batch_stats, level.outcome.batch_stats
    if a is None or b is None or main.plan.independent or level.plan.independent:
        return None
    size = main.outcome.chunk_size
    if level.outcome.chunk_size != size:
        return None
    k = min(len(a), len(b))
    # Only batches of the full size (a run's last one may be shorter) are the same trials.
    while k > 0 and (int(a[k - 1, 0, 0]) != int(b[k - 1, 0, 0]) or int(b[k - 1, 0, 0]) == 0):
        k -= 1
    if k < MIN_BATCHES:
        return None
    x = _batch_effects(main.plan, a, v, m, k)
    y = _batch_effects(level.plan, b, v, m, k)
    c = float(np.cov(x, y)[0, 1]) * size
    return max(-bound, min(bound, c))


def family(main: Any, levels: list[tuple[str, Any]]) -> list[Finding]:
    """Every finding under every level that ran (``levels``: (label, its RunResult)), tested as
    one family."""
    base = main_effects(main)
    # The margins of "holds" are the scenario's own (its ``equivalence:`` section), as its ties'.
    margins = getattr(getattr(main, "scenario", None), "equivalence", None) or EquivalenceSpec()
    found: list[Finding] = []
    covariances: dict[int, float] = {}
    for label, result in levels:
        for v, m, main_effect, saw in base:
            own = effect(result.plan, result.outcome.stats, v, m)
            metric = main.plan.metrics[m]
            f = Finding(
                label,
                metric.name,
                main.plan.variant_names[v],
                metric.kind,
                main_effect,
                own,
                margins.margin(metric.name, metric.kind, _metric_sd(main, m)),
                main_significant=saw and main_effect.mean != 0,
            )
            c = covariance(main, result, v, m, own.sd * main_effect.sd)
            if c is not None:
                covariances[len(found)] = c
            found.append(f)
    return judge(found, covariances)


def _metric_sd(main: Any, m: int) -> float:
    """The per-deal standard deviation of metric ``m`` in the main run's first variant."""
    n, s, ss, _ = (int(x) for x in main.outcome.stats[0, 4 * m : 4 * m + 4])
    return math.sqrt(_variance(n, s, ss)) / main.plan.metrics[m].scale
