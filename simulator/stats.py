"""Estimates, intervals and variant comparisons from the kernels' sufficient statistics.

Proportions get Wilson intervals; means a normal interval from the exact integer sums. Variants on
shared streams are compared by the paired t-test on the per-trial differences (proportions and
means alike), using the cross terms the kernels keep; on independent streams, by two-sample tests
(two-proportion z, Welch's t). p-values are Holm-corrected across the metrics of each comparison,
and every difference also gets a **Holm-adjusted interval**: the interval of the same statistic at
the level Holm's step-down tests it at, so a difference is marked significant exactly when its
adjusted interval excludes zero (:func:`holm_levels`).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from simulator.engine import Plan

if TYPE_CHECKING:
    import pandas as pd

# statsmodels and scipy.stats are imported inside the functions that use them: together they take
# most of a second to import, and a warm `sim run` should answer in well under two. pandas too
# (0.4 CPU-s): the tables are computed as rows (:class:`Records`), and a DataFrame is built from
# them when something asks for one (the report files), after the terminal has shown its table.

Z95 = NormalDist().inv_cdf(0.975)
ALPHA = 0.05


class Records:
    """A table as the rows it was computed as, and the pandas DataFrame of those rows, built (and
    pandas imported) on the first call of :meth:`frame`, once.

    ``columns``: the frame's columns, in order (``None``: the rows' keys, as ``pd.DataFrame(rows)``
    reads them). The rows are the frame's content: neither is changed after it is made."""

    def __init__(self, rows: list[dict[str, Any]], columns: list[str] | None = None) -> None:
        self.rows = rows
        self.columns = columns
        self._frame: pd.DataFrame | None = None

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (the same object on every call)."""
        if self._frame is None:
            import pandas as pd

            self._frame = pd.DataFrame(self.rows, columns=self.columns)
        return self._frame

    @property
    def built(self) -> bool:
        """Whether :meth:`frame` has been called."""
        return self._frame is not None


def _moments(stats: np.ndarray, v: int, m: int) -> tuple[int, int, int, int]:
    n, s, ss, cross = (int(x) for x in stats[v, 4 * m : 4 * m + 4])
    return n, s, ss, cross


def _variance(n: int, s: int, ss: int) -> float:
    """Sample variance from exact integer sums (computed in integers, then divided)."""
    if n < 2:
        return 0.0
    return max(n * ss - s * s, 0) / (n * (n - 1))


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion.

    Written out rather than taken from statsmodels' ``proportion_confint(method="wilson")``: that
    import pulls in scipy.stats and costs over a second, most of a warm `sim run`. The tests hold
    this formula equal to statsmodels' to 1e-12.
    """
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(centre - half, 0.0), min(centre + half, 1.0)


def estimate(kind: str, n: int, s: int, ss: int, scale: int = 1) -> dict[str, float]:
    """Mean, standard error and 95% interval of one metric from its sums."""
    if n == 0:
        nan = float("nan")
        return {"mean": nan, "se": nan, "ci_low": nan, "ci_high": nan, "n": 0}
    mean = s / n / scale
    se = math.sqrt(_variance(n, s, ss) / n) / scale
    if kind == "proportion":
        lo, hi = wilson_interval(s, n)
    else:
        lo, hi = mean - Z95 * se, mean + Z95 * se
    return {"mean": mean, "se": se, "ci_low": lo, "ci_high": hi, "n": n}


def estimates(plan: Plan, stats: np.ndarray) -> pd.DataFrame:
    """One row per variant and metric: mean, se, ci_low, ci_high, n."""
    return estimate_records(plan, stats).frame()


def estimate_records(plan: Plan, stats: np.ndarray) -> Records:
    """:func:`estimates` as rows (variant, metric, kind, mean, se, ci_low, ci_high, n)."""
    rows = []
    for v, name in enumerate(plan.variant_names):
        for m, metric in enumerate(plan.metrics):
            n, s, ss, _ = _moments(stats, v, m)
            rows.append(
                {
                    "variant": name,
                    "metric": metric.name,
                    "kind": metric.kind,
                    **estimate(metric.kind, n, s, ss, metric.scale),
                }
            )
    return Records(rows)


def distributions(plan: Plan, stats: np.ndarray) -> pd.DataFrame:
    """Histograms of distribution metrics: variant, metric, value, count, probability."""
    return distribution_records(plan, stats).frame()


def distribution_records(plan: Plan, stats: np.ndarray) -> Records:
    """:func:`distributions` as rows."""
    rows = []
    for v, name in enumerate(plan.variant_names):
        for m, metric in enumerate(plan.metrics):
            off = int(plan.hist_offset[m])
            if off < 0:
                continue
            counts = stats[v, off : off + int(plan.hist_max[m]) + 1]
            total = max(int(counts.sum()), 1)
            for value, c in enumerate(counts):
                rows.append(
                    {
                        "variant": name,
                        "metric": metric.name,
                        "value": value,
                        "count": int(c),
                        "probability": int(c) / total,
                    }
                )
    return Records(rows, ["variant", "metric", "value", "count", "probability"])


def widest_half_width(plan: Plan, stats: np.ndarray) -> float:
    """The widest 95% half-width among headline metrics of all variants (for --precision)."""
    widest = 0.0
    for v in range(plan.n_variants):
        for m, metric in enumerate(plan.metrics):
            if not metric.headline:
                continue
            n, s, ss, _ = _moments(stats, v, m)
            e = estimate(metric.kind, n, s, ss, metric.scale)
            if n == 0:
                continue
            widest = max(widest, (e["ci_high"] - e["ci_low"]) / 2)
    return widest


def _paired(
    kind: str, n: int, s0: int, ss0: int, s1: int, ss1: int, cross: int, scale: int
) -> tuple[float, float, float, float, str]:
    """Paired difference (variant − baseline) over the same trials: diff, lo, hi, p, test — the
    regression gate's test (McNemar for proportions, whose power :mod:`simulator.gate.power`
    models exactly; the paired t-test for means)."""
    d_sum = s1 - s0
    d_sq = ss1 + ss0 - 2 * cross
    diff = d_sum / n / scale
    se = math.sqrt(_variance(n, d_sum, d_sq) / n) / scale
    if kind == "proportion":
        # Discordant pairs: b = baseline 0 → variant 1, c = baseline 1 → variant 0.
        b, c = (d_sq + d_sum) // 2, (d_sq - d_sum) // 2
        if b + c == 0:
            p = 1.0
        else:
            from statsmodels.stats.contingency_tables import mcnemar

            both = cross
            table = [[n - s0 - b, b], [c, both]]
            p = float(mcnemar(table, exact=b + c < 50, correction=True).pvalue)
        test = "McNemar"
    else:
        from scipy.special import stdtr

        p = (1.0 if diff == 0 else 0.0) if se == 0 else float(2 * stdtr(n - 1, -abs(diff / se)))
        test = "paired t"
    return diff, diff - Z95 * se, diff + Z95 * se, p, test


def _independent(
    kind: str, n0: int, s0: int, ss0: int, n1: int, s1: int, ss1: int, scale: int
) -> tuple[float, float, float, float, str]:
    from scipy import stats as st
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

    if kind == "proportion":
        diff = s1 / n1 - s0 / n0
        if s0 + s1 in (0, n0 + n1):
            return diff, diff, diff, 1.0, "two-proportion z"
        _, p = proportions_ztest([s1, s0], [n1, n0])
        lo, hi = confint_proportions_2indep(s1, n1, s0, n0, method="wald")
        return diff, float(lo), float(hi), float(p), "two-proportion z"
    m0, m1 = s0 / n0 / scale, s1 / n1 / scale
    sd0 = math.sqrt(_variance(n0, s0, ss0)) / scale
    sd1 = math.sqrt(_variance(n1, s1, ss1)) / scale
    diff = m1 - m0
    se = math.sqrt(sd0**2 / n0 + sd1**2 / n1)
    if se == 0:
        return diff, diff, diff, (1.0 if diff == 0 else 0.0), "Welch t"
    p = float(st.ttest_ind_from_stats(m1, sd1, n1, m0, sd0, n0, equal_var=False).pvalue)
    return diff, diff - Z95 * se, diff + Z95 * se, p, "Welch t"


def _paired_t(
    n: int, s0: int, ss0: int, s1: int, ss1: int, cross: int, scale: int
) -> tuple[float, float, float, str]:
    """Paired difference (variant − baseline) over the same trials: diff, its standard error,
    the degrees of freedom of its t statistic, and the test's name."""
    d_sum = s1 - s0
    d_sq = ss1 + ss0 - 2 * cross
    diff = d_sum / n / scale
    se = math.sqrt(_variance(n, d_sum, d_sq) / n) / scale
    return diff, se, float(n - 1), "paired t"


def _two_sample_se(
    kind: str, n0: int, s0: int, ss0: int, n1: int, s1: int, ss1: int, scale: int
) -> tuple[float, float, float, str]:
    """Independent samples: diff, standard error, degrees of freedom (inf: normal) and test."""
    if kind == "proportion":
        p0, p1 = s0 / n0, s1 / n1
        se = math.sqrt(p0 * (1 - p0) / n0 + p1 * (1 - p1) / n1)
        return p1 - p0, se, math.inf, "two-proportion z"
    m0, m1 = s0 / n0 / scale, s1 / n1 / scale
    v0 = _variance(n0, s0, ss0) / scale**2 / n0
    v1 = _variance(n1, s1, ss1) / scale**2 / n1
    se = math.sqrt(v0 + v1)
    # Welch–Satterthwaite degrees of freedom.
    denom = (v0**2 / (n0 - 1) if n0 > 1 else 0.0) + (v1**2 / (n1 - 1) if n1 > 1 else 0.0)
    df = (v0 + v1) ** 2 / denom if denom > 0 else math.inf
    return m1 - m0, se, df, "Welch t"


def _p_two_sided(diff: float, se: float, df: float) -> float:
    """p-value of the t (or, with ``df`` infinite, z) statistic ``diff / se``."""
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    from scipy.special import ndtr, stdtr

    t = abs(diff / se)
    return float(2 * (ndtr(-t) if math.isinf(df) else stdtr(df, -t)))


def _quantile(level: float, df: float) -> float:
    """The two-sided critical value of the t (or z) distribution at ``level``."""
    from scipy.special import ndtri, stdtrit

    q = 1 - level / 2
    return float(ndtri(q) if math.isinf(df) else stdtrit(df, q))


def holm_adjusted(p_values: list[float]) -> np.ndarray:
    """Holm's adjusted p-values, in the order given: the j-th smallest times ``m - j + 1``, made
    non-decreasing in that order, capped at 1.

    The arithmetic of statsmodels' ``multipletests(p, method="holm")[1]``, step for step, so the
    values are the same to the last bit (tests/test_stats.py holds them equal): importing
    ``statsmodels.stats.multitest`` cost 0.46 CPU-s of every run with variants, before its
    table, and each call of its Holm branch runs a full ``gc.collect()`` (84 ms in a fresh
    ``sim`` process, seconds in a long one with a large heap: most of the test suite's time
    went there, 1,000 of 3,000 test-seconds in one measured run)."""
    p = np.asarray(p_values)
    order = np.argsort(p)
    ranked = np.take(p, order)
    corrected = np.maximum.accumulate(ranked * np.arange(len(ranked), 0, -1))
    corrected[corrected > 1] = 1
    out = np.empty_like(corrected)
    out[order] = corrected
    return out


def holm_levels(p_values: list[float], alpha: float = ALPHA) -> tuple[list[float], list[bool]]:
    """The level Holm's step-down tests each hypothesis at, and whether it is rejected.

    With the p-values sorted, the j-th smallest is tested at ``alpha / (m - j + 1)`` until one
    fails; that one and every later one keep the failing step's level. An interval of the same
    statistic at that level excludes zero exactly when Holm rejects: before the first failure
    ``p_j <= alpha_j``; from it on ``p_j >= p_k > alpha_k``.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    levels = [0.0] * m
    rejected = [False] * m
    failed: float | None = None
    for rank, i in enumerate(order):
        level = alpha / (m - rank)
        if failed is None and p_values[i] <= level:
            levels[i], rejected[i] = level, True
        else:
            failed = level if failed is None else failed
            levels[i] = failed
    return levels, rejected


def comparisons(plan: Plan, stats: np.ndarray) -> pd.DataFrame:
    """Each variant against the first: difference, its standard error, 95% interval, p,
    Holm-corrected p, the Holm-adjusted interval and whether it is significant (exactly when the
    adjusted interval excludes zero)."""
    return comparison_records(plan, stats).frame()


def comparison_records(plan: Plan, stats: np.ndarray) -> Records:
    """:func:`comparisons` as rows (none with a single variant)."""
    cols = [
        "variant",
        "baseline",
        "metric",
        "difference",
        "se",
        "ci_low",
        "ci_high",
        "p_value",
        "p_holm",
        "adj_low",
        "adj_high",
        "adj_level",
        "significant",
        "test",
    ]
    rows = []
    base = plan.variant_names[0]
    for v in range(1, plan.n_variants):
        block: list[dict[str, Any]] = []
        for m, metric in enumerate(plan.metrics):
            n0, s0, ss0, _ = _moments(stats, 0, m)
            n1, s1, ss1, cross = _moments(stats, v, m)
            if n0 < 2 or n1 < 2:
                continue
            paired = not plan.independent and metric.kind != "conditional_mean"
            if paired:
                diff, se, df, test = _paired_t(n1, s0, ss0, s1, ss1, cross, metric.scale)
            else:
                diff, se, df, test = _two_sample_se(
                    metric.kind, n0, s0, ss0, n1, s1, ss1, metric.scale
                )
            half = _quantile(ALPHA, df) * se
            block.append(
                {
                    "variant": plan.variant_names[v],
                    "baseline": base,
                    "metric": metric.name,
                    "difference": diff,
                    "se": se,
                    "ci_low": diff - half,
                    "ci_high": diff + half,
                    "p_value": _p_two_sided(diff, se, df),
                    "test": test,
                    "_df": df,
                }
            )
        if block:
            p = [r["p_value"] for r in block]
            levels, rejected = holm_levels(p, ALPHA)
            adjusted = holm_adjusted(p)
            for r, level, sig, ph in zip(block, levels, rejected, adjusted, strict=True):
                half = _quantile(level, r.pop("_df")) * r["se"]
                r["p_holm"] = float(ph)
                r["adj_low"], r["adj_high"] = r["difference"] - half, r["difference"] + half
                r["adj_level"] = level
                r["significant"] = sig
            rows.extend(block)
    return Records(rows, cols)


def two_sample(
    kind: str, n0: int, s0: int, ss0: int, n1: int, s1: int, ss1: int, scale: int = 1
) -> tuple[float, float, float, float, str]:
    """Sample 1 minus sample 0 from independent samples' integer sums: difference, 95% interval,
    p-value and the test (two-proportion z for proportions, Welch's t otherwise). Used by the
    regression gate to compare a rerun with a stored baseline."""
    return _independent(kind, n0, s0, ss0, n1, s1, ss1, scale)


def smallest_detectable(se: float, alpha: float = ALPHA, power: float = 0.8) -> float:
    """The smallest true difference a two-sided test at ``alpha`` detects with ``power``, for an
    estimate with standard error ``se``: ``(z_{1-alpha/2} + z_power) * se``.

    That is the size of effect a "no difference found" cannot rule out (2.80 standard errors at
    5% and 80% power)."""
    normal = NormalDist()
    return (normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)) * se
