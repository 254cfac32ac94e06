"""Ties called ties: equivalence within a margin stated before the run, and identity on every deal.

"No significant difference" says only that a run did not see one. Whether two variants are *the
same for practical purposes* is a question of its own, with its own test: Schuirmann's two
one-sided tests (TOST). With a margin ``m`` stated in advance, the difference is declared
*equivalent within ±m* at level ``alpha`` when both one-sided tests reject — ``difference <= -m``
and ``difference >= m`` — which is exactly when the ``1 - 2 alpha`` interval of the difference
lies inside ``(-m, m)``. A finding is one of:

- ``identical``: every paired difference is zero (the variants give the same outcome on every
  deal; read exactly from the integer sums: the sum of squared differences is zero);
- ``different``: the 95% interval of the difference excludes zero;
- ``equivalent``: the 90% interval lies inside ``±m`` (TOST at 5%);
- ``unclear``: neither — the run cannot tell, and a difference below ``detectable`` (80% power,
  5% two-sided) would go unseen.

A difference may be both significant and inside the margin (a real but negligible change): it
is ``different`` here, and the margin is shown beside it.

**Margins** (the scenario's ``equivalence:`` section, :class:`EquivalenceSpec`): per metric in the
metric's units, else per kind — proportions 1 percentage point, the seat spread 1 percentage
point, means 0.1 of the metric's per-trial standard deviation (Cohen's d = 0.1, half of what Cohen
calls a small effect). Why these defaults: docs/reports.md, "Ties".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ALPHA = 0.05
POWER = 0.8
#: Default margins: proportions and the seat spread in shares (0.01 = 1 pp); means in per-trial
#: standard deviations.
PROPORTION = 0.01
SEAT_SPREAD = 0.01
MEAN_SD = 0.1

IDENTICAL = "identical"
DIFFERENT = "different"
EQUIVALENT = "equivalent"
UNCLEAR = "unclear"


class EquivalenceSpec(BaseModel):
    """The ``equivalence:`` section of a scenario: the margins within which two variants count
    as the same."""

    model_config = ConfigDict(extra="forbid", strict=True)

    proportion: float = Field(
        default=PROPORTION,
        gt=0,
        le=1,
        description="margin of every proportion, as a share (0.01 = ±1 percentage point)",
    )
    mean: float = Field(
        default=MEAN_SD,
        gt=0,
        le=10,
        description="margin of every mean, in the metric's per-trial standard deviations "
        "(0.1 = Cohen's d of 0.1)",
    )
    seat_spread: float = Field(
        default=SEAT_SPREAD,
        gt=0,
        le=1,
        description="margin of the seat spread (largest seat win share minus smallest), as a "
        "share (0.01 = ±1 percentage point); decides when no variant is fairer",
    )
    metrics: dict[str, float] = Field(
        default_factory=dict,
        description="margins of single metrics (or seat families), in the metric's own units "
        "(a proportion as a share); these override the kind's",
    )

    def margin(self, metric: str, kind: str, sd: float = math.nan) -> float:
        """The margin of ``metric`` (of ``kind``) in its units; ``sd``: its per-trial standard
        deviation, which a mean's default margin is a multiple of (NaN when it is unknown)."""
        if metric in self.metrics:
            return float(self.metrics[metric])
        if kind == "proportion":
            return self.proportion
        return self.mean * sd if math.isfinite(sd) else math.nan

    def source(self, metric: str, kind: str) -> str:
        """Where ``metric``'s margin comes from, in words."""
        if metric in self.metrics:
            return f"equivalence.metrics.{metric}"
        if kind == "proportion":
            return "equivalence.proportion"
        return f"equivalence.mean ({self.mean:g} standard deviations)"


def spec_problems(spec: EquivalenceSpec, metrics: list[str]) -> list[tuple[str, str, float]]:
    """``(metric, message, value)`` for each margin named for a metric the procedure does not
    report (a seat family ``x`` of ``x.seat1`` ... counts as reported)."""
    families = {m.group(1) for name in metrics if (m := re.match(r"^(.+)\.seat\d+$", name))}
    known = set(metrics) | families
    out = []
    for name, value in spec.metrics.items():
        if name not in known:
            out.append((name, "unknown metric", value))
        elif not value > 0:
            out.append((name, "a margin must be above 0", value))
    return out


@dataclass
class Tie:
    """One equivalence finding: a paired difference between two variants and what it says."""

    #: identical, different, equivalent or unclear (see the module docstring).
    verdict: str
    difference: float
    #: The 95% interval of the difference (the test of a difference).
    lo: float
    hi: float
    #: The 1 − 2·alpha (90%) interval the equivalence test reads.
    eq_lo: float
    eq_hi: float
    margin: float
    #: The two one-sided tests' p-value (the larger of the two); 0 when identical.
    p_equivalent: float
    #: The smallest difference this comparison finds with 80% power (5%, two-sided).
    detectable: float
    trials: int

    @property
    def said(self) -> str:
        """The finding in a few words."""
        if self.verdict == IDENTICAL:
            return "identical on every deal"
        if self.verdict == EQUIVALENT:
            return f"equivalent within ±{_plain(self.margin)}"
        if self.verdict == DIFFERENT:
            return "different"
        return f"cannot tell (a difference below {_plain(self.detectable)} would go unseen)"

    def to_dict(self) -> dict[str, Any]:
        """The finding for summary.json (non-finite numbers as None)."""
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "said": self.said,
            "difference": self.difference,
            "interval_95": [self.lo, self.hi],
            "interval_90": [self.eq_lo, self.eq_hi],
            "margin": self.margin,
            "p_equivalent": self.p_equivalent,
            "detectable": self.detectable,
            "trials": self.trials,
        }
        if self.verdict == IDENTICAL:
            out["why"] = "every paired difference is zero: the same outcome on every deal"
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()
        }


def _plain(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else "∞"


def _z(q: float) -> float:
    return NormalDist().inv_cdf(q)


def detectable(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest difference a two-sided test at ``alpha`` finds with ``power``, for an
    estimate with standard error ``se`` (normal approximation)."""
    return (_z(1 - alpha / 2) + _z(power)) * se


def tost(
    difference: float,
    se: float,
    margin: float,
    *,
    df: float = math.inf,
    alpha: float = ALPHA,
    trials: int = 0,
    identical: bool = False,
) -> Tie:
    """The finding of a difference estimated with standard error ``se`` (a t statistic with
    ``df`` degrees of freedom, normal when infinite) against the margin ``margin``.

    ``identical``: the caller knows every paired difference is zero (it is then ``identical``
    whatever the margin)."""
    from scipy.special import ndtr, ndtri, stdtr, stdtrit

    def cdf(t: float) -> float:
        return float(ndtr(t) if math.isinf(df) else stdtr(df, t))

    def quantile(q: float) -> float:
        return float(ndtri(q) if math.isinf(df) else stdtrit(df, q))

    if identical:
        return Tie(IDENTICAL, 0.0, 0.0, 0.0, 0.0, 0.0, margin, 0.0, 0.0, trials)
    if se == 0 or not math.isfinite(se):
        # No spread in the differences: the interval is the point.
        inside = abs(difference) < margin
        p_eq = 0.0 if inside else 1.0
        verdict = DIFFERENT if difference != 0 else (EQUIVALENT if inside else UNCLEAR)
        d = difference
        return Tie(verdict, d, d, d, d, d, margin, p_eq, 0.0, trials)
    half95 = quantile(1 - alpha / 2) * se
    half90 = quantile(1 - alpha) * se
    lo, hi = difference - half95, difference + half95
    eq_lo, eq_hi = difference - half90, difference + half90
    # H0: d <= -m (rejected when the lower bound clears -m) and H0: d >= m.
    p_low = 1 - cdf((difference + margin) / se) if math.isfinite(margin) else 1.0
    p_high = cdf((difference - margin) / se) if math.isfinite(margin) else 1.0
    verdict = _verdict(lo, hi, eq_lo, eq_hi, margin)
    return Tie(
        verdict,
        difference,
        lo,
        hi,
        eq_lo,
        eq_hi,
        margin,
        max(p_low, p_high),
        detectable(se, alpha),
        trials,
    )


def _verdict(lo: float, hi: float, eq_lo: float, eq_hi: float, margin: float) -> str:
    if lo > 0 or hi < 0:
        return DIFFERENT
    if math.isfinite(margin) and -margin < eq_lo and eq_hi < margin:
        return EQUIVALENT
    return UNCLEAR


def tost_draws(
    point: float,
    draws: Any,
    margin: float,
    *,
    alpha: float = ALPHA,
    trials: int = 0,
    identical: bool = False,
) -> Tie:
    """The finding of a difference whose sampling distribution is given by bootstrap ``draws``
    (percentile intervals: the 95% one for a difference, the 90% one for equivalence)."""
    import numpy as np

    if identical:
        return Tie(IDENTICAL, 0.0, 0.0, 0.0, 0.0, 0.0, margin, 0.0, 0.0, trials)
    x = np.asarray(draws, dtype=float)
    lo, hi = (float(q) for q in np.percentile(x, [100 * alpha / 2, 100 * (1 - alpha / 2)]))
    eq_lo, eq_hi = (float(q) for q in np.percentile(x, [100 * alpha, 100 * (1 - alpha)]))
    p_eq = max(float((x <= -margin).mean()), float((x >= margin).mean()))
    sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    verdict = _verdict(lo, hi, eq_lo, eq_hi, margin)
    return Tie(
        verdict, float(point), lo, hi, eq_lo, eq_hi, margin, p_eq, detectable(sd, alpha), trials
    )


def identical_pair(n: int, s0: int, ss0: int, s1: int, ss1: int, cross: int) -> bool:
    """Whether paired outcomes with these integer sums agree on every trial: the sum of squared
    differences ``ss1 + ss0 - 2 cross`` is zero (exact, in integers)."""
    return n > 0 and s1 == s0 and ss1 + ss0 - 2 * cross == 0


def paired(
    n: int,
    s0: int,
    ss0: int,
    s1: int,
    ss1: int,
    cross: int,
    margin: float,
    *,
    scale: int = 1,
    alpha: float = ALPHA,
) -> Tie:
    """The finding of a paired difference (second minus first) over the same ``n`` trials,
    from the integer sums the kernels keep (``cross``: the sum of the two's products): the
    paired t statistic, the same the variant comparisons use."""
    if n < 2:
        nan = math.nan
        return Tie(UNCLEAR, nan, nan, nan, nan, nan, margin, 1.0, math.inf, n)
    d_sum = s1 - s0
    d_sq = ss1 + ss0 - 2 * cross
    variance = max(n * d_sq - d_sum * d_sum, 0) / (n * (n - 1))
    se = math.sqrt(variance / n) / scale
    return tost(
        d_sum / n / scale,
        se,
        margin,
        df=float(n - 1),
        alpha=alpha,
        trials=n,
        identical=identical_pair(n, s0, ss0, s1, ss1, cross),
    )
