"""Estimates against exact values: the check every procedure's tests make, in one place."""

from __future__ import annotations

from simulator.engine import Plan
from simulator.stats import estimate


def metric_estimate(plan: Plan, stats, name: str, variant: int = 0) -> tuple[float, float, int]:
    """(mean, standard error, trials where defined) of metric ``name`` from kernel statistics."""
    m = [metric.name for metric in plan.metrics].index(name)
    metric = plan.metrics[m]
    n, s, ss = (int(x) for x in stats[variant, 4 * m : 4 * m + 3])
    e = estimate(metric.kind, n, s, ss, metric.scale)
    return e["mean"], e["se"], n


def assert_within_standard_errors(
    plan: Plan,
    stats,
    exact: dict,
    variant: int = 0,
    k: float = 5,
    slack: float = 1e-12,
    partial: bool = False,
) -> None:
    """Every metric lies within ``k`` standard errors of its exact value (with ``partial``, every
    metric that has one; otherwise a metric without an exact value fails the check).

    ``slack`` absorbs metrics whose estimate has no spread at all (an event too rare to have
    happened in the run has standard error 0).
    """
    checked = 0
    for metric in plan.metrics:
        if metric.name not in exact:
            assert partial, f"no exact value for {metric.name}"
            continue
        mean, se, _ = metric_estimate(plan, stats, metric.name, variant)
        want = float(exact[metric.name])
        assert abs(mean - want) <= k * se + slack, (metric.name, mean, want, se)
        checked += 1
    assert checked, "no metric had an exact value to check"
