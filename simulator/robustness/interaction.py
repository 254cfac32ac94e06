"""The statistics of a robustness finding: an interaction, Holm across the family, and power.

A finding is one comparison the verdict reports (a variant's paired difference from the baseline
in one metric) seen under one *level* (a play level, or an assumption moved). The main run
measured the effect ``M`` on ``N`` deals; the level's rerun measures its own effect ``L`` on the
first ``n`` of those deals (the same seed, so the same deals). The finding's test is the
**interaction** ``L − M``: does the effect at this level differ from the main one? Its variance
is ``σ_L²/n + σ_M²/N − 2·c/N``, where σ are the per-deal standard deviations of the two paired
differences and ``c`` their covariance over the ``n`` shared deals (paired by deal: estimated
from batches of deals both runs cut alike; without them, bounded by ``−σ_L·σ_M``, which can
only widen the interval).

Every interaction of the family (all levels × all findings) is tested at once, Holm's step-down
at 5% (:func:`simulator.stats.holm_levels`, statsmodels' ``multipletests(method="holm")``
arithmetic), and its interval is the one Holm tests it at, so "depends" is said exactly when that
interval excludes 0. The level's own effects of the findings the main run saw are a second
family, Holm-tested alike. A finding then reads:

- **depends** (on skill, on an assumption): the interaction's adjusted interval excludes 0;
- **holds**: the level's own effect excludes 0 with the main effect's sign, or the interaction's
  adjusted interval lies inside the equivalence margin ``±m``;
- **cannot tell at n games (about M would see it)**: neither, with ``M`` the deals the level
  would need (:func:`deals_needed`). Never "no change" from a rerun too small to see one.

A rerun is sized by :func:`deals_needed`: the deals that see an interaction as large as the main
effect (the effect vanishing at this level) with 80% power at Holm's first step (``5% / K`` for
a family of ``K``); an effect that persists is then seen at least as surely.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from simulator.stats import ALPHA, holm_levels

#: The power a rerun is sized for.
POWER = 0.8

_NORMAL = NormalDist()


@dataclass(frozen=True)
class Effect:
    """A paired effect: the mean per-deal difference, its per-deal standard deviation, the deals."""

    mean: float
    sd: float
    n: int

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 0 else math.inf


@dataclass
class Finding:
    """One comparison under one level, tested (see the module docstring).

    ``verdict`` is ``depends``, ``holds`` or ``cannot tell``; ``needed`` the deals the level would
    need to see the main effect (0 when the main run saw none: nothing to size for; ``inf`` when
    no rerun could, the main run's own precision being the limit)."""

    level: str
    metric: str
    variant: str
    kind: str
    main: Effect
    own: Effect
    margin: float
    interaction: float = math.nan
    se: float = math.nan
    p_value: float = math.nan
    low: float = math.nan
    high: float = math.nan
    adj_level: float = ALPHA
    own_low: float = math.nan
    own_high: float = math.nan
    own_level: float = ALPHA
    main_significant: bool = False
    needed: float = 0.0
    verdict: str = ""
    #: Whether the deals were paired by batch (else the covariance was bounded).
    paired: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def sign(self) -> int:
        """The main effect's sign when the main run saw it, else 0."""
        if not self.main_significant or self.main.mean == 0:
            return 0
        return 1 if self.main.mean > 0 else -1

    def to_dict(self) -> dict[str, Any]:
        """The finding as ``summary.json`` carries it (infinities as null)."""

        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {
            "level": self.level,
            "metric": self.metric,
            "variant": self.variant,
            "verdict": self.verdict,
            "main": {"effect": num(self.main.mean), "trials": self.main.n},
            "level_effect": {
                "effect": num(self.own.mean),
                "low": num(self.own_low),
                "high": num(self.own_high),
                "level": self.own_level,
                "trials": self.own.n,
            },
            "interaction": {
                "estimate": num(self.interaction),
                "low": num(self.low),
                "high": num(self.high),
                "p_value": num(self.p_value),
                "level": self.adj_level,
                "paired_by_deal": self.paired,
            },
            "margin": num(self.margin),
            "trials": self.own.n,
            "trials_needed": num(self.needed) if self.needed else None,
        }


def interaction_se(main: Effect, own: Effect, covariance: float | None = None) -> float:
    """The standard error of ``own.mean − main.mean`` when ``own``'s deals are the first of
    ``main``'s; ``covariance`` is the per-deal covariance of the two differences over the shared
    deals (``None``: bounded by ``−σ_L·σ_M``, the widest it can be)."""
    sd = max(own.sd, main.sd)
    c = -sd * main.sd if covariance is None else max(-sd * main.sd, min(sd * main.sd, covariance))
    n_main = max(main.n, 1)
    shared = min(own.n, main.n)
    var = sd**2 / max(own.n, 1) + main.sd**2 / n_main - 2 * c * shared / (max(own.n, 1) * n_main)
    return math.sqrt(max(var, 0.0))


def _z(alpha: float) -> float:
    return _NORMAL.inv_cdf(1 - alpha / 2)


def deals_needed(main: Effect, own_sd: float, family: int, power: float = POWER) -> float:
    """The deals a level whose paired differences have the per-deal standard deviation ``own_sd``
    needs for its interaction test to see ``|main.mean|`` (the main effect gone at this level)
    with ``power``, at Holm's first step over ``family`` tests; ``inf`` when no rerun can (the
    main run's own error alone is too large), 0 for an effect of 0."""
    if main.mean == 0:
        return 0.0
    z = _z(ALPHA / max(family, 1)) + _NORMAL.inv_cdf(power)
    allowed = (abs(main.mean) / z) ** 2
    # The main run's share of the variance, covariance bounded as in interaction_se.
    fixed = (main.sd**2 + 2 * own_sd * main.sd) / max(main.n, 1)
    if allowed <= fixed:
        return math.inf
    if own_sd == 0:
        return 2.0
    return max(2.0, math.ceil(own_sd**2 / (allowed - fixed)))


def _p(diff: float, se: float) -> float:
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    return 2 * (1 - _NORMAL.cdf(abs(diff / se)))


def judge(found: list[Finding], covariances: dict[int, float] | None = None) -> list[Finding]:
    """Test every finding of the family (in place; also returned): each interaction and, for the
    findings the main run saw, the level's own effect, both families Holm-adjusted; then the
    verdict of each. ``covariances`` maps a finding's index to its per-deal covariance over the
    shared deals, where the deals were paired."""
    covariances = covariances or {}
    family = len(found)
    for i, f in enumerate(found):
        c = covariances.get(i)
        f.paired = c is not None
        f.interaction = f.own.mean - f.main.mean
        f.se = interaction_se(f.main, f.own, c)
        f.p_value = _p(f.interaction, f.se)
        f.needed = deals_needed(f.main, max(f.own.sd, f.main.sd), family) if f.sign else 0.0
    levels, _ = holm_levels([f.p_value for f in found], ALPHA) if found else ([], [])
    for f, level in zip(found, levels, strict=True):
        half = _z(level) * f.se
        f.adj_level = level
        f.low, f.high = f.interaction - half, f.interaction + half
    seen = [f for f in found if f.sign]
    own_se = [max(f.own.sd, f.main.sd) / math.sqrt(max(f.own.n, 1)) for f in seen]
    own_p = [_p(f.own.mean, se) for f, se in zip(seen, own_se, strict=True)]
    own_levels = holm_levels(own_p, ALPHA)[0] if seen else []
    for f, level, se in zip(seen, own_levels, own_se, strict=True):
        half = _z(level) * se
        f.own_level = level
        f.own_low, f.own_high = f.own.mean - half, f.own.mean + half
    for f in found:
        if not f.sign:  # not tested for "holds": its plain 95% interval, for the record
            half = _z(ALPHA) * max(f.own.sd, f.main.sd) / math.sqrt(max(f.own.n, 1))
            f.own_low, f.own_high = f.own.mean - half, f.own.mean + half
    for f in found:
        f.verdict = verdict_of(f)
    return found


def verdict_of(f: Finding) -> str:
    """``depends``, ``holds`` or ``cannot tell`` (see the module docstring)."""
    if f.low > 0 or f.high < 0:
        return "depends"
    if (f.sign > 0 and f.own_low > 0) or (f.sign < 0 and f.own_high < 0):
        return "holds"
    if -f.margin <= f.low and f.high <= f.margin:
        return "holds"
    return "cannot tell"
