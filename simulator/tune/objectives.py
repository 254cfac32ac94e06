"""Objective values and their intervals, from one evaluation's estimates.

An objective is a metric's distance to a target, or the metric itself (negated when maximised),
so that smaller is always better. Its 95% interval comes from the metric's: the distance of an
interval to a target is an interval too. ``seat_spread`` (largest minus smallest seat win share)
is derived from the ``wins.seatN`` estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from simulator.stats import Z95
from simulator.tune.spec import Objective


@dataclass(frozen=True)
class Value:
    """A metric's estimate with its standard error and 95% interval."""

    mean: float
    se: float
    low: float
    high: float
    n: int


def metric_values(estimates: pd.DataFrame, variant: str) -> dict[str, Value]:
    """Every metric of ``variant`` (rows of :func:`simulator.stats.estimates`), plus the derived
    ``seat_spread`` when the game reports ``wins.seatN``."""
    rows = estimates[estimates["variant"] == variant]
    out = {
        str(r.metric): Value(
            float(r.mean), float(r.se), float(r.ci_low), float(r.ci_high), int(r.n)
        )
        for r in rows.itertuples()
    }
    seats = [v for k, v in out.items() if k.startswith("wins.seat")]
    if seats:
        top = max(seats, key=lambda v: v.mean)
        bottom = min(seats, key=lambda v: v.mean)
        spread = top.mean - bottom.mean
        # The two extreme seats' errors combined as if independent: with shared games they are
        # negatively correlated (one seat's win is another's loss), so this is conservative.
        se = math.hypot(top.se, bottom.se)
        out["seat_spread"] = Value(
            spread, se, max(spread - Z95 * se, 0.0), spread + Z95 * se, top.n
        )
    return out


def objective(obj: Objective, value: Value) -> tuple[float, float, float]:
    """The objective (smaller is better) with its 95% interval: (point, low, high)."""
    if obj.target is not None:
        t = obj.target
        point = abs(value.mean - t)
        if value.low <= t <= value.high:
            return point, 0.0, max(t - value.low, value.high - t)
        ends = (abs(value.low - t), abs(value.high - t))
        return point, min(ends), max(ends)
    if obj.maximize:
        return -value.mean, -value.high, -value.low
    return value.mean, value.low, value.high
