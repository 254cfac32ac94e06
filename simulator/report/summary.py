"""The folded summary: one compact table of the headline metrics, variants side by side.

A run's full tables list every metric of every variant and every difference; for a whole game that
is hundreds of rows, most of them the same quantity per seat. The summary folds them:

- rows are the headline metrics, columns the variants; each cell is the estimate, and for every
  variant after the first also its difference from the first with the 95% interval and a mark when
  significant — the numbers of :func:`simulator.stats.comparisons` (paired on shared streams, Holm
  across metrics), copied, never recomputed;
- ``wins.seat1..N`` becomes the *seat table*: one row per variant with the seats' win shares side
  by side, their spread (largest minus smallest share) and a chi-square test of equal seats;
- every other ``<family>.seatN`` family becomes its total (the metric ``<family>`` when the
  procedure reports it, else the sum of the seats' estimates) plus a row of its spread across seats;
- a metric derived from the seat wins (``seat_spread``) is shown in the seat table, not twice;
- metrics that are zero in every variant are not shown (they are listed in ``hidden``).

:func:`restrict` narrows a result to metrics matching glob patterns (``--metrics``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

import numpy as np

from simulator.runner import PointResult, RunResult

if TYPE_CHECKING:
    import pandas as pd

SEAT = re.compile(r"^(?P<family>.+)\.seat(?P<seat>\d+)$")
WINS = "wins"
#: A metric some procedures derive from the seat wins; the seat table already shows it.
SEAT_SPREAD = "seat_spread"
ALPHA = 0.05
#: Fewest wins expected per seat for the chi-square test of equal seats (the usual rule of five).
MIN_EXPECTED = 5
#: Verdict lines are wrapped to this width on the terminal (the tables fit in it too).
WRAP = 100


@dataclass
class Cell:
    """One variant's value of one summary row (differences only for variants after the first)."""

    estimate: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    difference: float | None = None
    diff_low: float | None = None
    diff_high: float | None = None
    p_holm: float | None = None
    significant: bool = False
    #: The difference on a scale comparable across metrics (Cohen's d for means, h for
    #: proportions; see ``_effect``): used to rank changes and for the forest plot.
    effect: float | None = None
    effect_low: float | None = None
    effect_high: float | None = None
    #: The unadjusted 95% interval of the difference (``diff_low``/``diff_high`` are
    #: Holm-adjusted: they exclude zero exactly when the difference is significant).
    raw_low: float | None = None
    raw_high: float | None = None
    #: The smallest change of this metric the comparison would find with 80% power at Holm's
    #: first step (``ALPHA`` over the metrics compared), in the metric's units.
    detectable: float | None = None


@dataclass
class Row:
    """One row of the summary: a metric, a folded family's total, or a family's seat spread."""

    metric: str
    kind: str
    #: ``metric`` (a metric as reported), ``total`` (a family's total) or ``spread``.
    role: str
    cells: dict[str, Cell]
    #: For a family: the per-seat metric names folded into this row.
    seats: list[str] = field(default_factory=list)


@dataclass
class SeatRow:
    """Seat balance of one variant: win shares per seat, spread and the test of equal seats."""

    variant: str
    shares: list[float]
    spread: float
    chi2: float
    p_value: float
    games: int
    #: 95% intervals of the shares (from the estimates).
    ci_low: list[float] = field(default_factory=list)
    ci_high: list[float] = field(default_factory=list)


@dataclass
class Summary:
    """The folded summary of a (non-sweep) run."""

    scenario: str
    variants: list[str]
    baseline: str
    paired: bool
    trials: int
    rows: list[Row]
    seats: list[SeatRow]
    #: Metrics left out because they are zero in every variant.
    hidden: list[str]
    #: Metrics outside the summary (not headline, not in a family) that changed significantly.
    other_changes: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The ``"summary"`` entry of summary.json (NaN becomes null)."""
        return _clean(dataclasses.asdict(self))


def _clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, np.generic):
        return _clean(x.item())
    return x


# ---------------------------------------------------------------------------------------------
# Restricting a result to some metrics (--metrics)


class NoMetricsMatch(ValueError):
    """``--metrics`` patterns that match no metric of the run."""


def matches(name: str, patterns: list[str]) -> bool:
    """Whether a metric name matches any glob pattern (case-sensitive, ``*``, ``?``, ``[ab]``)."""
    return any(fnmatchcase(name, p) for p in patterns)


def _keep(df: pd.DataFrame, names: set[str]) -> pd.DataFrame:
    if df.empty or "metric" not in df.columns:
        return df
    return df[df["metric"].isin(names)].reset_index(drop=True)


def _restrict_point(p: PointResult, names: set[str]) -> PointResult:
    return dataclasses.replace(
        p,
        estimates=_keep(p.estimates, names),
        distributions=_keep(p.distributions, names),
        comparisons=_keep(p.comparisons, names),
    )


def restrict(result: RunResult, patterns: list[str]) -> RunResult:
    """The same run with only the metrics matching ``patterns`` (every table, plot and verdict).

    The numbers are not recomputed: the Holm correction of the differences stays the one over all
    the procedure's metrics (more conservative than over the subset).

    Raises:
        NoMetricsMatch: no metric matches any pattern (the message lists the metrics).
    """
    if not patterns:
        return result
    metrics = result.plan.metrics
    mask = [matches(m.name, patterns) for m in metrics]
    # Rows derived after reduction (in the tables but not among the plan's metrics) follow the
    # same patterns.
    derived = sorted(set(result.estimates["metric"]) - {m.name for m in metrics})
    names = {m.name for m, keep in zip(metrics, mask, strict=True) if keep}
    names |= {n for n in derived if matches(n, patterns)}
    if not names:
        check_patterns([m.name for m in metrics] + derived, patterns)
    idx = np.flatnonzero(mask)
    plan = dataclasses.replace(
        result.plan,
        metrics=tuple(m for m, keep in zip(metrics, mask, strict=True) if keep),
        hist_offset=result.plan.hist_offset[idx],
        hist_max=result.plan.hist_max[idx],
    )
    return dataclasses.replace(
        result,
        plan=plan,
        estimates=_keep(result.estimates, names),
        distributions=_keep(result.distributions, names),
        comparisons=_keep(result.comparisons, names),
        points=[_restrict_point(p, names) for p in result.points],
    )


# ---------------------------------------------------------------------------------------------
# Building the summary


def seat_families(names: list[str]) -> dict[str, list[str]]:
    """``<family>.seatN`` metrics grouped by family, seats in number order (families of 2+)."""
    found: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        m = SEAT.match(name)
        if m:
            found.setdefault(m["family"], []).append((int(m["seat"]), name))
    return {f: [n for _, n in sorted(seats)] for f, seats in found.items() if len(seats) >= 2}


def _sd(row: pd.Series) -> float:
    n = int(row["n"])
    return float(row["se"]) * math.sqrt(n) if n > 0 else math.nan


def _effect(
    kind: str,
    means: tuple[float, float],
    diff: float,
    lo: float,
    hi: float,
    sd: tuple[float, float],
) -> tuple[float, ...]:
    """The difference and its interval on a scale comparable across metrics.

    Means: over the pooled per-trial standard deviation of the two variants (Cohen's d).
    Proportions: Cohen's h, 2·asin√p₁ − 2·asin√p₀, which stays finite near 0 and 1 where the
    standard deviation vanishes; its interval is the difference's, scaled by h / difference.
    A difference between two constant means has no scale: it is infinite (ranked first) when
    non-zero and zero otherwise.
    """
    if kind == "proportion" and diff != 0 and all(0 <= m <= 1 for m in means):
        h = 2 * math.asin(math.sqrt(means[1])) - 2 * math.asin(math.sqrt(means[0]))
        k = h / diff
        return (h, lo * k, hi * k)
    pooled = math.sqrt((sd[0] * sd[0] + sd[1] * sd[1]) / 2)
    if not math.isfinite(pooled):
        return (math.nan, math.nan, math.nan)
    if pooled == 0:
        e = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        return (e, e, e)
    return (diff / pooled, lo / pooled, hi / pooled)


def detectable(kind: str, n: int, se: float, sd: float, scale: int, family: int) -> float:
    """Smallest change of a metric a paired comparison of ``n`` trials finds with 80% power at
    ``ALPHA / family`` (Holm's first step), given the standard error ``se`` of the observed
    difference (its per-trial variance is the background the change must rise above) and the
    metric's per-trial standard deviation ``sd`` (how far a touched trial moves; a proportion's
    trial flips by 1). The gate's power model (:mod:`simulator.gate.power`)."""
    from simulator.gate.power import detectable_mean

    if n < 2:
        return math.inf
    background = (se * se * n) if math.isfinite(se) else 0.0
    jump = 1.0 if kind == "proportion" else max(sd if math.isfinite(sd) else 0.0, 1.0 / scale)
    return detectable_mean(n, ALPHA / max(family, 1), jump, background)


def _metric_cells(
    metric: str,
    est: dict[tuple[str, str], pd.Series],
    cmp: dict[tuple[str, str], Any],
    names: list[str],
    family: dict[str, int] | None = None,
) -> dict[str, Cell]:
    base = est[(names[0], metric)]
    cells: dict[str, Cell] = {}
    for v in names:
        r = est[(v, metric)]
        cell = Cell(float(r["mean"]), float(r["ci_low"]), float(r["ci_high"]))
        c = cmp.get((v, metric))
        if c is not None:
            cell.difference = float(c["difference"])
            # Comparisons made before the adjusted intervals (a stored result) show their own.
            cell.diff_low = float(c.get("adj_low", c["ci_low"]))
            cell.diff_high = float(c.get("adj_high", c["ci_high"]))
            cell.raw_low = float(c["ci_low"])
            cell.raw_high = float(c["ci_high"])
            se = c.get("se", (cell.raw_high - cell.raw_low) / (2 * 1.959963984540054))
            cell.detectable = detectable(
                str(r["kind"]),
                int(r["n"]),
                float(se),
                math.sqrt((_sd(base) ** 2 + _sd(r) ** 2) / 2),
                1,
                (family or {}).get(v, 1),
            )
            cell.p_holm = float(c["p_holm"])
            cell.significant = bool(c["significant"])
            cell.effect, cell.effect_low, cell.effect_high = _effect(
                str(r["kind"]),
                (float(base["mean"]), cell.estimate),
                cell.difference,
                cell.diff_low,
                cell.diff_high,
                (_sd(base), _sd(r)),
            )
        cells[v] = cell
    return cells


def _is_zero(values: list[float]) -> bool:
    return all(x == 0 for x in values)


def _chi2_equal(shares: list[float], games: int) -> tuple[float, float]:
    """Chi-square goodness of fit of the seats' summed win shares to equal seats.

    A tied win's shares are fractions, so the statistic is the one of the summed shares as counts
    (a tie counts once, split): slightly conservative when ties are common. With fewer than
    ``MIN_EXPECTED`` wins expected per seat the approximation fails: no test (NaN).
    """
    # scipy.special, not scipy.stats.chisquare: the same numbers (a test holds them equal), without
    # the second of import time scipy.stats costs every `sim run` of a whole game.
    from scipy.special import chdtrc

    counts = np.asarray(shares, dtype=float) * games
    expected = counts.sum() / len(counts)
    if expected < MIN_EXPECTED:
        return math.nan, math.nan
    chi2 = float(((counts - expected) ** 2).sum() / expected)
    return chi2, float(chdtrc(len(counts) - 1, chi2))


def seat_table(result: RunResult, seats: list[str]) -> list[SeatRow]:
    """One :class:`SeatRow` per variant from the ``wins.seatN`` estimates."""
    est = result.estimates
    out = []
    for v in result.plan.variant_names:
        rows = est[est["variant"] == v].set_index("metric")
        shares = [float(rows.loc[s, "mean"]) for s in seats]
        games = int(rows.loc[seats[0], "n"])
        chi2, p = _chi2_equal(shares, games)
        lo = [float(rows.loc[s, "ci_low"]) for s in seats]
        hi = [float(rows.loc[s, "ci_high"]) for s in seats]
        out.append(SeatRow(v, shares, max(shares) - min(shares), chi2, p, games, lo, hi))
    return out


def build(result: RunResult) -> Summary:
    """The folded summary of a run without a sweep (see the module docstring)."""
    names = list(result.plan.variant_names)
    metrics = list(result.plan.metrics)
    by_name = {m.name: m for m in metrics}
    est = {(r["variant"], r["metric"]): r for _, r in result.estimates.iterrows()}
    cmp = {(r["variant"], r["metric"]): r for _, r in result.comparisons.iterrows()}
    sizes = {str(k): int(v) for k, v in result.comparisons.groupby("variant").size().items()}
    families = seat_families([m.name for m in metrics])
    in_family = {s: f for f, seats in families.items() for s in seats}
    wins = families.get(WINS, [])

    rows: list[Row] = []
    hidden: list[str] = []
    done: set[str] = set()
    for m in metrics:
        name = m.name
        if name in done:
            continue
        family = in_family.get(name) or (name if name in families else None)
        if family == WINS or (name == SEAT_SPREAD and wins):
            continue
        if family is not None:
            seats = families[family]
            done.update(seats)
            done.add(family)
            headline = any(by_name[s].headline for s in seats) or (
                family in by_name and by_name[family].headline
            )
            if not headline:
                continue
            rows += _family_rows(family, seats, by_name, est, cmp, names, hidden, sizes)
            continue
        done.add(name)
        if not m.headline:
            continue
        cells = _metric_cells(name, est, cmp, names, sizes)
        if _is_zero([c.estimate for c in cells.values()]):
            hidden.append(name)
            continue
        rows.append(Row(name, m.kind, "metric", cells))

    shown = {r.metric for r in rows if r.role != "spread"}
    order = {m.name: i for i, m in enumerate(metrics)}
    other = sorted(
        {
            str(r["metric"])
            for _, r in result.comparisons.iterrows()
            if bool(r["significant"])
            and r["metric"] not in shown
            and r["metric"] not in in_family
            and r["metric"] != SEAT_SPREAD
        },
        key=lambda n: (order.get(n, len(order)), n),
    )
    return Summary(
        scenario=result.scenario.name,
        variants=names,
        baseline=names[0],
        paired=not result.plan.independent,
        trials=result.outcome.trials,
        rows=rows,
        seats=seat_table(result, wins) if wins else [],
        hidden=hidden,
        other_changes=other,
    )


def _family_rows(
    family: str,
    seats: list[str],
    by_name: dict[str, Any],
    est: dict[tuple[str, str], pd.Series],
    cmp: dict[tuple[str, str], Any],
    names: list[str],
    hidden: list[str],
    sizes: dict[str, int] | None = None,
) -> list[Row]:
    """A family's total row and its seat-spread row (nothing if it is zero everywhere)."""
    seat_means = {v: [float(est[(v, s)]["mean"]) for s in seats] for v in names}
    if family in by_name:
        cells = _metric_cells(family, est, cmp, names, sizes)
        kind = by_name[family].kind
    else:
        cells = {}
        for v in names:
            total = sum(seat_means[v])
            cell = Cell(total)
            if v != names[0]:
                cell.difference = total - sum(seat_means[names[0]])
            cells[v] = cell
        kind = by_name[seats[0]].kind
    if _is_zero([c.estimate for c in cells.values()]) and all(
        _is_zero(means) for means in seat_means.values()
    ):
        hidden.append(family)
        return []
    spread = {v: Cell(max(seat_means[v]) - min(seat_means[v])) for v in names}
    return [
        Row(family, kind, "total", cells, list(seats)),
        Row(family, kind, "spread", spread, list(seats)),
    ]


def wants_summary(result: RunResult) -> bool:
    """Whether a run opens with the summary: variants to compare, or seats to fold (no sweep)."""
    if result.is_sweep:
        return False
    names = [m.name for m in result.plan.metrics]
    return result.plan.n_variants > 1 or bool(seat_families(names))


def check_patterns(names: list[str], patterns: list[str]) -> None:
    """Refuse ``--metrics`` patterns that match none of ``names`` before anything runs.

    Raises:
        NoMetricsMatch: no name matches any pattern.
    """
    if patterns and not any(matches(n, patterns) for n in names):
        raise NoMetricsMatch(
            f"--metrics {' '.join(patterns)}: matches none of the metrics ({', '.join(names)})"
        )
