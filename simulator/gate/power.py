"""Detectable effects: the smallest shift the gate catches with 80% power, and the trials needed.

The gate tests each gated metric at ``alpha_each = alpha / m`` (Holm's first step over the ``m``
gated metrics: a single drifting metric fails the gate exactly when its p-value is below this).

**The model of a change.** A rule change moves the trials it touches, in one direction, on top of
the *background churn* of the rerun (the share of trials whose outcome differs for other reasons:
0 for unchanged code; about ``2p(1-p)`` after a refactor that reorders random reads). For a
proportion a touched trial flips 0 → 1; for any other metric it moves by ``jump``, the metric's
standard deviation (at least one step, ``1/scale``).

**Proportions** are tested by McNemar's test on the discordant trials (exact binomial below 50
discordant trials, chi-square with continuity correction above, as in :mod:`simulator.stats`).
statsmodels has no power function for McNemar's test and the normal approximation is off by ~30%
when few trials are discordant (the usual case: unchanged code has none), so the power here is
computed exactly from the binomial distribution of discordant trials and of their direction.
**Means** are tested by the paired t-test: power from statsmodels' one-sample normal power
with effect size ``shift / sd of the paired differences``. **Metrics without stored outcomes**
use the two-sample test: ``NormalIndPower``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np

POWER = 0.8
#: Below this many discordant trials McNemar's test is exact (as in simulator.stats._paired).
EXACT_BELOW = 50
MIN_TRIALS = 100


def alpha_each(alpha: float, family: int) -> float:
    """Level at which one metric of a family of ``family`` gated metrics fails the gate alone."""
    return alpha / max(family, 1)


@lru_cache(maxsize=4096)
def _exact_critical(d: int, alpha: float) -> int:
    """Smallest b (of d discordant trials) with an exact two-sided McNemar p-value <= alpha;
    d + 1 when none."""
    from scipy.stats import binom

    b = np.arange(d // 2, d + 1)
    p = np.minimum(1.0, 2 * binom.sf(b - 1, d, 0.5))
    ok = np.nonzero(p <= alpha)[0]
    return int(b[ok[0]]) if len(ok) else d + 1


def mcnemar_power(n: int, shift: float, churn: float, alpha: float) -> float:
    """Power of the gate's McNemar test on ``n`` paired trials when a share ``shift`` of them
    flips one way on top of a background ``churn`` split evenly both ways."""
    from scipy.stats import binom, chi2

    up, down = shift + churn / 2, churn / 2
    q = min(up + down, 1.0)
    if q <= 0:
        return 0.0
    lo = int(binom.ppf(1e-9, n, q))
    hi = int(binom.isf(1e-9, n, q)) + 1
    d = np.arange(max(lo, 1), min(hi, n) + 1)
    weight = binom.pmf(d, n, q)
    r = up / q
    # Smallest b of d discordant trials that rejects: exact test below EXACT_BELOW, else
    # (|b - c| - 1)^2 / d > crit with b - c = 2b - d.
    table = np.array([_exact_critical(k, alpha) for k in range(EXACT_BELOW)])
    small = d < EXACT_BELOW
    k = np.where(
        small,
        table[np.minimum(d, EXACT_BELOW - 1)],
        np.floor((d + 1 + np.sqrt(chi2.isf(alpha, 1) * d)) / 2) + 1,
    )
    upper = np.where(k <= d, binom.sf(k - 1, d, r), 0.0)
    lower = np.where(k <= d, binom.cdf(d - k, d, r), 0.0)
    reject = upper + lower
    return float(np.dot(weight, reject))


def _bisect(f: Callable[[float], bool], lo: float, hi: float, iters: int = 40) -> float:
    """Smallest x in [lo, hi] with f(x) True (f monotone), to relative precision."""
    if not f(hi):
        return math.inf
    for _ in range(iters):
        mid = math.sqrt(lo * hi) if lo > 0 else hi / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-3 * hi:
            break
    return hi


def detectable_proportion(n: int, alpha: float, churn: float = 0.0) -> float:
    """Smallest one-way shift of a proportion caught with 80% power by the paired gate.

    Exact (binomial) while few trials are discordant; with hundreds of them the normal
    approximation is as good and much faster (churn is rounded to 3 digits for the cache)."""
    if n < 1:
        return math.inf
    churn = float(f"{churn:.3g}")
    if n * churn >= 400:
        return detectable_mean(n, alpha, 1.0, churn)
    return _detectable_exact(n, alpha, churn)


@lru_cache(maxsize=4096)
def _detectable_exact(n: int, alpha: float, churn: float) -> float:
    return _bisect(lambda s: mcnemar_power(n, s, churn, alpha) >= POWER, 0.0, 1.0 - churn / 2)


@lru_cache(maxsize=1024)
def _t_effect(n: int, alpha: float) -> float:
    # One-sample normal power (NormalIndPower with ratio 0), not TTestPower: at the gate's levels
    # (alpha ~ 1e-7) TTestPower.solve_power returned 0.023 for n = 20,000 where the answer is
    # 0.043 (measured); with n >= 100 the t and normal tests differ by well under 1%.
    from statsmodels.stats.power import NormalIndPower

    return float(NormalIndPower().solve_power(nobs1=n, ratio=0.0, alpha=alpha, power=POWER))


def detectable_mean(n: int, alpha: float, jump: float, background_var: float = 0.0) -> float:
    """Smallest shift of a mean caught with 80% power by the paired t-test on ``n`` trials: a
    share ``f`` of trials moved by ``jump`` (shift ``f * jump``) over differences of variance
    ``background_var``; solves ``shift = es * sqrt(background_var + jump*shift - shift**2)``."""
    if n < 2:
        return math.inf
    e2 = _t_effect(n, alpha) ** 2
    a = 1 + e2
    return (e2 * jump + math.sqrt((e2 * jump) ** 2 + 4 * a * e2 * background_var)) / (2 * a)


@lru_cache(maxsize=1024)
def _z_effect(n: int, alpha: float) -> float:
    from statsmodels.stats.power import NormalIndPower

    return float(NormalIndPower().solve_power(nobs1=n, ratio=1.0, alpha=alpha, power=POWER))


def detectable_two_sample(n: int, alpha: float, sd: float) -> float:
    """Smallest shift caught with 80% power by the two-sample test (n trials each side)."""
    if n < 2:
        return math.inf
    return _z_effect(n, alpha) * sd


def trials_for_proportion(shift: float, alpha: float) -> int:
    """Fewest trials (to within 1%) at which the paired gate catches a
    one-way ``shift`` of a proportion with 80% power over no background churn."""
    n = MIN_TRIALS
    while detectable_proportion(n, alpha) > shift:
        n *= 2
        if n > 10**12:
            raise ValueError(f"a shift of {shift:g} needs more than 1e12 trials")
    lo, hi = n // 2, n
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        if detectable_proportion(mid, alpha) <= shift:
            hi = mid
        else:
            lo = mid
    return max(hi, MIN_TRIALS)


def trials_for_mean(shift: float, alpha: float, jump: float) -> int:
    """Fewest trials at which the paired t-test catches ``shift`` (moves of ``jump``)."""
    from statsmodels.stats.power import NormalIndPower

    if shift >= jump:
        return MIN_TRIALS
    es = math.sqrt(shift / (jump - shift))
    n = float(NormalIndPower().solve_power(effect_size=es, ratio=0.0, alpha=alpha, power=POWER))
    return max(math.ceil(n), MIN_TRIALS)
