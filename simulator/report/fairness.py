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

**Ties and rankings.** Every pair of variants is compared (:class:`Pair`), and each comparison is
a finding (:mod:`simulator.equivalence`): *identical on every deal* (every seat's outcome the same
on every deal, read exactly from the sums and cross terms), *different* (the 95% interval of the
spread difference excludes zero), *equivalent within ±m* (its 90% interval lies inside the
scenario's ``equivalence.seat_spread`` margin: two one-sided tests at 5%), or *cannot tell* (with
the difference that would go unseen). A variant ranks above another only where their comparison
is *different*; :attr:`Fairness.tiers` groups the rest. A claim that joins several comparisons
("A is fairer than B and C", "none is fairer: all equivalent") holds only if each of them does,
so each is made at 5% and the claim is too (an intersection-union test: Berger 1982).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from simulator.equivalence import (
    DIFFERENT,
    EQUIVALENT,
    IDENTICAL,
    SEAT_SPREAD,
    UNCLEAR,
    Tie,
    identical_pair,
    tost_draws,
)
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
    #: Smallest difference in spread from the first variant this run would see (80% power);
    #: 0 when the two are identical on every deal (``tie`` says so).
    detectable: float | None = None
    #: Smallest seat spread the test of equal seats would see in this variant (80% power).
    seat_detectable: float = math.nan
    #: The spread's difference from the first variant as a finding: identical, different,
    #: equivalent within the margin, or cannot tell (:mod:`simulator.equivalence`).
    tie: Tie | None = None


@dataclass
class Pair:
    """Two variants' seat spreads compared, paired on the same deals: ``tie`` is the finding of
    ``spread(second) - spread(first)``."""

    first: str
    second: str
    tie: Tie


@dataclass
class Fairness:
    """Fairness of every variant of a run with seats."""

    games: int
    seats: int
    batches: int
    resamples: int
    variants: list[VariantFairness] = field(default_factory=list)
    #: The seat spread's equivalence margin (the scenario's ``equivalence.seat_spread``).
    margin: float = SEAT_SPREAD
    #: Every pair of variants (in variant order), compared.
    pairs: list[Pair] = field(default_factory=list)

    def pair(self, a: str, b: str) -> Tie | None:
        """The finding of ``spread(b) - spread(a)`` (either order), or None."""
        for p in self.pairs:
            if (p.first, p.second) == (a, b):
                return p.tie
            if (p.first, p.second) == (b, a):
                t = p.tie
                return Tie(
                    t.verdict,
                    -t.difference,
                    -t.hi,
                    -t.lo,
                    -t.eq_hi,
                    -t.eq_lo,
                    t.margin,
                    t.p_equivalent,
                    t.detectable,
                    t.trials,
                )
        return None

    def below(self, a: str, b: str) -> bool:
        """Whether ``a``'s seat spread is told apart below ``b``'s (a is fairer than b)."""
        t = self.pair(a, b)
        return t is not None and t.verdict == DIFFERENT and t.lo > 0

    @property
    def tiers(self) -> list[list[str]]:
        """The variants in groups, fairest first: every variant of a group is told apart below
        every variant of each later group (its paired interval excludes zero); within a group
        no order is claimed. One group: no variant is fairer than another."""
        order = [v.variant for v in sorted(self.variants, key=lambda v: v.spread.mean)]
        groups: list[list[str]] = []
        for v in order:
            # The first group holding a variant not told apart below v: v joins it, and every
            # group after it merges in (their order with v is not shown either).
            k = next(
                (i for i, g in enumerate(groups) if not all(self.below(u, v) for u in g)), None
            )
            if k is None:
                groups.append([v])
            else:
                groups[k:] = [[u for g in groups[k:] for u in g] + [v]]
        return groups

    @property
    def ranking(self) -> list[str]:
        """Variants from the fairest to the least fair, where their spreads are told apart (the
        groups of :attr:`tiers`, flattened: within a group the order is the spreads' only)."""
        return [v for g in self.tiers for v in g]

    @property
    def fairest(self) -> list[str]:
        """The variants told apart below every other (empty when none is)."""
        t = self.tiers
        return t[0] if len(t) > 1 else []

    def alike(self, group: list[str]) -> str:
        """How the variants of a group compare: ``identical`` (every pair identical on every
        deal), ``equivalent`` (every pair identical or equivalent within the margin) or
        ``unclear``."""
        found = [self.pair(a, b) for i, a in enumerate(group) for b in group[i + 1 :]]
        verdicts = {t.verdict if t is not None else UNCLEAR for t in found}
        if verdicts <= {IDENTICAL}:
            return IDENTICAL
        if verdicts <= {IDENTICAL, EQUIVALENT}:
            return EQUIVALENT
        return UNCLEAR

    def unseen(self, group: list[str]) -> float:
        """The largest difference in spread a comparison within ``group`` could miss (80%
        power); 0 when it has none that cannot tell."""
        sizes = [
            t.detectable
            for i, a in enumerate(group)
            for b in group[i + 1 :]
            if (t := self.pair(a, b)) is not None and t.verdict == UNCLEAR
        ]
        return max(sizes, default=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The ``fairness`` entry of summary.json: per variant ``spread``, ``spread_vs_base``,
        ``first_seat``, ``first_seat_vs_base`` (each ``{mean, lo, hi}``), ``detectable`` and
        ``tie`` (the finding against the first variant); ``pairs``: every pair's finding with
        its intervals, margin and games; ``tiers``, ``ranking``, ``fairest`` and ``answer``."""
        out: dict[str, Any] = {
            "games": self.games,
            "seats": self.seats,
            "batches": self.batches,
            "resamples": self.resamples,
            "margin": self.margin,
            "tiers": self.tiers,
            "ranking": self.ranking,
            "fairest": self.fairest,
            "answer": answer(self),
            "variants": {},
            "pairs": [
                {"first": p.first, "second": p.second, **p.tie.to_dict()} for p in self.pairs
            ],
        }
        for v in self.variants:
            entry = asdict(v)
            entry.pop("variant")
            entry["tie"] = v.tie.to_dict() if v.tie is not None else None
            out["variants"][v.variant] = _finite(entry)
        return out


def _pp(x: float) -> str:
    return f"{100 * x:.1f} pp"


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def group_words(f: Fairness, group: list[str]) -> str:
    """A group of variants not told apart, with how they compare (for captions and lines)."""
    if len(group) == 1:
        return group[0]
    alike = f.alike(group)
    if alike == IDENTICAL:
        how = "identical on every deal"
    elif alike == EQUIVALENT:
        how = f"equivalent within ±{_pp(f.margin)}"
    else:
        how = f"cannot tell apart below {_pp(f.unseen(group))}"
    return f"{_names(group)} ({how})"


def answer(f: Fairness) -> str:
    """Which variant is fairer, in one plain sentence, or that none is (identical on every
    deal, equivalent within the margin, or cannot tell below a size)."""
    tiers = f.tiers
    n = len(f.variants)
    every = {2: "both", 3: "all three", 4: "all four"}.get(n, f"all {n}")
    if len(tiers) == 1:
        alike = f.alike(tiers[0])
        if alike == IDENTICAL:
            return f"no variant is fairer: {every} play identical seat shares on every deal"
        if alike == EQUIVALENT:
            return (
                f"no variant is fairer: the seat spreads of {every} are equivalent within "
                f"±{_pp(f.margin)}"
            )
        return (
            "cannot tell which variant is fairer: a difference in seat spread below "
            f"{_pp(f.unseen(tiers[0]))} would go unseen at {f.games:,} games"
        )
    first = tiers[0]
    lead = "is" if len(first) == 1 else "are"
    text = f"{group_words(f, first)} {lead} fairer than {_names([v for g in tiers[1:] for v in g])}"
    if len(tiers) > 2 or any(len(g) > 1 for g in tiers[1:]):
        text += "; by seat spread: " + " < ".join(group_words(f, g) for g in tiers)
    return text


def _finite(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def slots(result: RunResult) -> dict[str, int]:
    """Each metric's index among the statistics' slots (``4 * index`` onwards). The plan of a
    result narrowed by ``--metrics`` lists only the metrics kept, while its statistics keep every
    metric's slots: the index comes from the procedure's full list."""
    procedure = getattr(result.scenario, "procedure", None)
    variants = getattr(result.scenario, "variants", None)
    if procedure is not None and variants:
        names = list(procedure.metric_names(next(iter(variants.values()))))
        if {m.name for m in result.plan.metrics} <= set(names):
            return {name: i for i, name in enumerate(names)}
    return {m.name: i for i, m in enumerate(result.plan.metrics)}


def _seat_metrics(result: RunResult) -> list[tuple[int, int]]:
    """(metric slot index, scale) of ``wins.seat1..N`` in seat order."""
    index = slots(result)
    found = []
    for metric in result.plan.metrics:
        if metric.name.startswith("wins.seat") and metric.name[9:].isdigit():
            found.append((int(metric.name[9:]), index[metric.name], metric.scale))
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
    spec = getattr(result.scenario, "equivalence", None)
    margin = float(spec.seat_spread) if spec is not None else SEAT_SPREAD
    same = _identical_to_base(batches, idx, n_variants)
    out = Fairness(games, n_seats, n_batches, RESAMPLES, margin=margin)
    spreads = spread(shares)  # (resamples, variants)
    points = spread(point)
    for a in range(n_variants):
        for b in range(a + 1, n_variants):
            tie = tost_draws(
                float(points[b] - points[a]),
                spreads[:, b] - spreads[:, a],
                margin,
                alpha=ALPHA,
                trials=games,
                identical=same[a] and same[b],
            )
            out.pairs.append(Pair(names[a], names[b], tie))
    for v, name in enumerate(names):
        entry = VariantFairness(
            name,
            _interval(float(points[v]), spreads[:, v]),
            _interval(float(first(point[v])), first(shares[:, v])),
            seat_detectable=seat_detectable(
                int(counts.sum(axis=0)[v, 0]), n_seats, float(point[v].sum())
            ),
        )
        if v > 0:
            d_first = first(shares[:, v]) - first(shares[:, 0])
            tie = out.pairs[v - 1].tie
            entry.tie = tie
            entry.spread_vs_base = Interval(tie.difference, tie.lo, tie.hi)
            entry.first_seat_vs_base = _interval(float(first(point[v]) - first(point[0])), d_first)
            entry.detectable = tie.detectable
        out.variants.append(entry)
    return out


def _identical_to_base(batches: np.ndarray, idx: np.ndarray, n_variants: int) -> list[bool]:
    """Per variant: whether every seat's outcome is the first variant's on every deal (read
    exactly from the integer sums and the cross terms with the first variant)."""
    total = batches.sum(axis=0)  # (variants, slots)
    out = [True]
    for v in range(1, n_variants):
        out.append(
            all(
                identical_pair(
                    int(total[v, 4 * m]),
                    int(total[0, 4 * m + 1]),
                    int(total[0, 4 * m + 2]),
                    int(total[v, 4 * m + 1]),
                    int(total[v, 4 * m + 2]),
                    int(total[v, 4 * m + 3]),
                )
                for m in idx
            )
        )
    return out
