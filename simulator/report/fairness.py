"""Fairness across variants: each variant's seat spread and first-seat edge, with intervals, and
how each differs from the first variant's, paired.

**The statistics.** A variant's *seat spread* is its largest seat win share minus its smallest; its
*first-seat edge* is seat 1's share minus the seats' mean share (the share an equal seat would
get of the games someone won). Both are functions of all seats' shares, not sums over trials, so
their intervals come from a bootstrap: the run keeps the statistics of about 256 batches of
consecutive deals (:data:`simulator.runner.DEAL_BATCHES`, cut by trial index, so the same on any
backend or thread count), and each resample draws batches with replacement — the *same* batches
under every variant, which share their random streams, so the differences between variants are
paired (deals are resampled, not variants). Percentile intervals from :data:`RESAMPLES` resamples
drawn from a generator seeded by the scenario's seed: the same run gives the same intervals.

**What a run could have seen.** ``detectable`` is the smallest difference in spread from the first
variant that a run of this size would find with 80% power at 5% (two-sided, normal
approximation: ``(z(0.975) + z(0.8))`` bootstrap standard errors). ``seat_detectable`` is the
smallest seat spread the chi-square test of equal seats (the seat table's) would find with 80%
power, for a spread made of one seat above and one below the rest (noncentral chi-square, scipy).
Both shrink as one over the square root of the games: ten times the games see about a third.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from simulator.runner import RunResult

RESAMPLES = 2000
ALPHA = 0.05
POWER = 0.8


@dataclass
class Interval:
    """An estimate with its 95% interval."""

    mean: float
    lo: float
    hi: float

    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0


@dataclass
class VariantFairness:
    """One variant's fairness figures (``*_vs_base`` are None for the first variant)."""

    variant: str
    spread: Interval
    first_seat: Interval
    spread_vs_base: Interval | None = None
    first_seat_vs_base: Interval | None = None
    #: Smallest difference in spread from the first variant this run would see (80% power).
    detectable: float | None = None
    #: Smallest seat spread the test of equal seats would see in this variant (80% power).
    seat_detectable: float = math.nan


@dataclass
class Fairness:
    """Fairness of every variant of a run with seats."""

    games: int
    seats: int
    batches: int
    resamples: int
    variants: list[VariantFairness] = field(default_factory=list)

    @property
    def ranking(self) -> list[str]:
        """Variants from the fairest (smallest spread) to the least fair."""
        return [v.variant for v in sorted(self.variants, key=lambda v: v.spread.mean)]

    def to_dict(self) -> dict[str, Any]:
        """The ``fairness`` entry of summary.json: per variant ``spread``, ``spread_vs_base``,
        ``first_seat``, ``first_seat_vs_base`` (each ``{mean, lo, hi}``), ``detectable``."""
        out: dict[str, Any] = {
            "games": self.games,
            "seats": self.seats,
            "batches": self.batches,
            "resamples": self.resamples,
            "ranking": self.ranking,
            "variants": {},
        }
        for v in self.variants:
            entry = asdict(v)
            entry.pop("variant")
            out["variants"][v.variant] = _finite(entry)
        return out


def _finite(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _seat_metrics(result: RunResult) -> list[tuple[int, int]]:
    """(metric index, scale) of ``wins.seat1..N`` in seat order."""
    found = []
    for m, metric in enumerate(result.plan.metrics):
        if metric.name.startswith("wins.seat") and metric.name[9:].isdigit():
            found.append((int(metric.name[9:]), m, metric.scale))
    return [(m, scale) for _, m, scale in sorted(found)]


def _shares(sums: np.ndarray, counts: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Win shares from summed statistics: ``sums[..., variant, seat] / (counts * scale)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums / (counts * scales)


def _interval(point: float, draws: np.ndarray) -> Interval:
    lo, hi = np.percentile(draws, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
    return Interval(float(point), float(lo), float(hi))


def seat_detectable(games: int, seats: int, won: float, alpha: float = ALPHA) -> float:
    """Smallest seat spread the chi-square test of equal seats finds with 80% power.

    The spread is one seat ``s / 2`` above the equal share and one ``s / 2`` below; ``won`` is the
    share of games someone won (the seats' shares add up to it). The test's statistic then has a
    noncentral chi-square distribution with ``seats - 1`` degrees of freedom and noncentrality
    ``games * seats * s**2 / (2 * won)``.
    """
    if games < 1 or seats < 2 or not won > 0:
        return math.nan
    from scipy.optimize import brentq
    from scipy.stats import chi2, ncx2

    df = seats - 1
    critical = chi2.isf(alpha, df)
    lam = brentq(lambda x: ncx2.sf(critical, df, x) - POWER, 1e-9, 1e4)
    return math.sqrt(2 * won * lam / (games * seats))


def detectable_shift(se: float, alpha: float = ALPHA) -> float:
    """Smallest difference a two-sided test at ``alpha`` finds with 80% power, given its
    standard error (normal approximation)."""
    from statistics import NormalDist

    z = NormalDist()
    return (z.inv_cdf(1 - alpha / 2) + z.inv_cdf(POWER)) * se


def fairness(result: RunResult) -> Fairness | None:
    """The fairness of every variant, or None when the run has no seats or kept no batches."""
    outcome = result.outcome
    seat_metrics = _seat_metrics(result)
    if len(seat_metrics) < 2 or outcome.batch_stats is None or len(outcome.batch_stats) < 2:
        return None
    idx = np.array([m for m, _ in seat_metrics])
    scales = np.array([float(s) for _, s in seat_metrics])
    batches = outcome.batch_stats  # (batches, variants, slots)
    sums = batches[:, :, 4 * idx + 1].astype(np.float64)  # (batches, variants, seats)
    counts = batches[:, :, 4 * idx[0]].astype(np.float64)[:, :, None]
    n_batches, n_variants, n_seats = sums.shape
    names = list(result.plan.variant_names)

    point = _shares(sums.sum(axis=0), counts.sum(axis=0), scales)  # (variants, seats)
    rng = np.random.default_rng([result.scenario.seed, 0x5EA7])
    weights = rng.multinomial(n_batches, np.full(n_batches, 1 / n_batches), size=RESAMPLES)
    flat = sums.reshape(n_batches, -1)
    resampled = (weights @ flat).reshape(RESAMPLES, n_variants, n_seats)
    resampled_n = (weights @ counts.reshape(n_batches, -1)).reshape(RESAMPLES, n_variants, 1)
    shares = _shares(resampled, resampled_n, scales)

    def spread(x: np.ndarray) -> np.ndarray:
        return x.max(axis=-1) - x.min(axis=-1)

    def first(x: np.ndarray) -> np.ndarray:
        return x[..., 0] - x.mean(axis=-1)

    games = int(counts.sum(axis=0)[0, 0])
    out = Fairness(games, n_seats, n_batches, RESAMPLES)
    for v, name in enumerate(names):
        entry = VariantFairness(
            name,
            _interval(float(spread(point[v])), spread(shares[:, v])),
            _interval(float(first(point[v])), first(shares[:, v])),
            seat_detectable=seat_detectable(
                int(counts.sum(axis=0)[v, 0]), n_seats, float(point[v].sum())
            ),
        )
        if v > 0:
            d_spread = spread(shares[:, v]) - spread(shares[:, 0])
            d_first = first(shares[:, v]) - first(shares[:, 0])
            entry.spread_vs_base = _interval(float(spread(point[v]) - spread(point[0])), d_spread)
            entry.first_seat_vs_base = _interval(float(first(point[v]) - first(point[0])), d_first)
            entry.detectable = detectable_shift(float(d_spread.std(ddof=1)))
        out.variants.append(entry)
    return out
