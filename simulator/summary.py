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
from typing import Any

import numpy as np
import pandas as pd

from simulator.runner import PointResult, RunResult

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


def _metric_cells(
    metric: str,
    est: dict[tuple[str, str], pd.Series],
    cmp: dict[tuple[str, str], Any],
    names: list[str],
) -> dict[str, Cell]:
    base = est[(names[0], metric)]
    cells: dict[str, Cell] = {}
    for v in names:
        r = est[(v, metric)]
        cell = Cell(float(r["mean"]), float(r["ci_low"]), float(r["ci_high"]))
        c = cmp.get((v, metric))
        if c is not None:
            cell.difference = float(c["difference"])
            cell.diff_low = float(c["ci_low"])
            cell.diff_high = float(c["ci_high"])
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
            rows += _family_rows(family, seats, by_name, est, cmp, names, hidden)
            continue
        done.add(name)
        if not m.headline:
            continue
        cells = _metric_cells(name, est, cmp, names)
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
) -> list[Row]:
    """A family's total row and its seat-spread row (nothing if it is zero everywhere)."""
    seat_means = {v: [float(est[(v, s)]["mean"]) for s in seats] for v in names}
    if family in by_name:
        cells = _metric_cells(family, est, cmp, names)
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


# ---------------------------------------------------------------------------------------------
# Formatting: the same text on the terminal, in Markdown, in the HTML page and in the verdict

MINUS = "\u2212"


def _signed(x: float, digits: int) -> str:
    text = f"{x:+.{digits}f}"
    return text.replace("-", MINUS)


def _plain(x: float, digits: int) -> str:
    return f"{x:.{digits}f}".replace("-", MINUS)


def _digits_for(half_widths: list[float], percent: bool) -> int:
    """Decimals that show a row to the precision its narrowest 95% interval supports."""
    positive = [h for h in half_widths if h is not None and math.isfinite(h) and h > 0]
    if not positive:
        return 1 if percent else 2
    d = -math.floor(math.log10(min(positive)))
    return min(max(d, 1), 2) if percent else min(max(d, 0), 3)


def row_digits(row: Row) -> int:
    """Decimals used for every number of a row (estimates and differences alike)."""
    percent = row.kind == "proportion"
    k = 100.0 if percent else 1.0
    hws: list[float] = []
    for c in row.cells.values():
        hws.append((c.ci_high - c.ci_low) / 2 * k)
        if c.diff_low is not None and c.diff_high is not None:
            hws.append((c.diff_high - c.diff_low) / 2 * k)
    return _digits_for(hws, percent)


def fmt_estimate(x: float, kind: str, digits: int) -> str:
    """An estimate: proportions as percentages, everything else as it is."""
    if x is None or not math.isfinite(x):
        return "—"
    if kind == "proportion":
        return f"{_plain(100 * x, digits)}%"
    return _plain(x, digits)


def fmt_difference(cell: Cell, kind: str, digits: int, style: str = "compact") -> str:
    """A difference from the first variant; proportions in percentage points.

    Styles: ``compact`` ``+3.21±0.08*`` (``*`` when significant, a space otherwise: the table's),
    ``interval`` ``+3.21 [+3.13, +3.29]`` and ``bare`` ``+3.21`` (the verdict's).
    """
    if cell.difference is None or not math.isfinite(cell.difference):
        return ""
    k = 100.0 if kind == "proportion" else 1.0
    unit = " pp" if kind == "proportion" else ""
    diff = _signed(cell.difference * k, digits)
    if style == "bare" or cell.diff_low is None or cell.diff_high is None:
        return diff if style == "compact" else diff + unit
    if style == "compact":
        hw = (cell.diff_high - cell.diff_low) / 2 * k
        return f"{diff}±{_plain(hw, digits)}" + ("*" if cell.significant else " ")
    lo = _signed(cell.diff_low * k, digits)
    hi = _signed(cell.diff_high * k, digits)
    return f"{diff}{unit} [{lo}, {hi}]"


def fmt_p(p: float) -> str:
    """A p-value: two decimals down to 0.01, then three, then scientific (``<1e-300`` at zero)."""
    if p is None or not math.isfinite(p):
        return "—"
    if p == 0:
        return "<1e-300"
    if p < 1e-3:
        return f"{p:.1e}"
    return f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def fmt_share(x: float) -> str:
    """A seat's win share as a percentage with one decimal."""
    return fmt_estimate(x, "proportion", 1)


def row_label(row: Row) -> str:
    if row.role == "spread":
        return "  ↳ seat spread"
    return row.metric


def table_cells(summary: Summary, row: Row) -> list[str]:
    """The text cells of one row: label, then per variant its estimate (and, after the first,
    its difference from the first)."""
    d = row_digits(row)
    out = [row_label(row)]
    for i, v in enumerate(summary.variants):
        c = row.cells[v]
        out.append(fmt_estimate(c.estimate, row.kind, d))
        if i > 0:
            out.append(fmt_difference(c, row.kind, d) if row.role != "spread" else "")
    if len(summary.variants) == 1:
        c = row.cells[summary.variants[0]]
        interval = math.isfinite(c.ci_low) and math.isfinite(c.ci_high)
        out.append(
            f"[{fmt_estimate(c.ci_low, row.kind, d)}, {fmt_estimate(c.ci_high, row.kind, d)}]"
            if interval and row.role != "spread"
            else ""
        )
    return out


def table_header(summary: Summary) -> list[str]:
    out = ["metric"]
    for i, v in enumerate(summary.variants):
        out.append(v)
        if i > 0:
            out.append("Δ ±95%")
    if len(summary.variants) == 1:
        out.append("95% interval")
    return out


def seat_cells(summary: Summary, row: SeatRow) -> list[str]:
    return [
        row.variant,
        *(fmt_share(s) for s in row.shares),
        f"{_plain(100 * row.spread, 1)} pp",
        fmt_p(row.p_value),
    ]


def seat_header(summary: Summary) -> list[str]:
    n = len(summary.seats[0].shares) if summary.seats else 0
    return ["seat wins", *(f"seat {k + 1}" for k in range(n)), "spread", "p (equal)"]


def caption(summary: Summary) -> str:
    """One line saying what the numbers are."""
    if len(summary.variants) == 1:
        return f"{summary.trials:,} trials"
    return f"{summary.trials:,} trials per variant"


def legend(summary: Summary) -> str:
    """What the Δ columns hold (empty with one variant)."""
    if len(summary.variants) == 1:
        return ""
    how = "paired" if summary.paired else "independent"
    return (
        f"Δ: difference from {summary.baseline} ±95% ({how}, Holm), * significant at 5%; "
        "proportions in %, their Δ in pp"
    )


def _rich_table(header: list[str]) -> Any:
    """A plain rich table: first column left, the rest right, no wrapping inside a cell."""
    from rich import box
    from rich.table import Table

    t = Table(box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False)
    for i, h in enumerate(header):
        t.add_column(h, justify="left" if i == 0 else "right", no_wrap=True)
    return t


def _natural_width(table: Any) -> int:
    """The width ``table`` takes without squeezing any column."""
    from rich.console import Console

    console = Console(width=10_000)
    return int(table.__rich_measure__(console, console.options).maximum)


def _by_variant_table(summary: Summary) -> Any:
    """The summary turned on its side: one row per variant, an estimate column (and after the
    first variant a Δ column) per metric. Fits many variants of few metrics."""
    header = ["variant"]
    for row in summary.rows:
        header += [row_label(row).strip(), "Δ ±95%"]
    t = _rich_table(header)
    for i, v in enumerate(summary.variants):
        cells = [v]
        for row in summary.rows:
            d = row_digits(row)
            c = row.cells[v]
            cells.append(fmt_estimate(c.estimate, row.kind, d))
            first = i == 0 or row.role == "spread"
            cells.append("" if first else fmt_difference(c, row.kind, d))
        t.add_row(*cells)
    return t


def _long_table(summary: Summary) -> Any:
    """The summary as one line per (metric, variant): always fits, however many of each."""
    t = _rich_table(["metric", "variant", "estimate", "Δ ±95%"])
    for row in summary.rows:
        d = row_digits(row)
        for i, v in enumerate(summary.variants):
            c = row.cells[v]
            first = i == 0 or row.role == "spread"
            t.add_row(
                row_label(row) if i == 0 else "",
                v,
                fmt_estimate(c.estimate, row.kind, d),
                "" if first else fmt_difference(c, row.kind, d),
                end_section=i == len(summary.variants) - 1,
            )
    return t


def summary_table(summary: Summary, width: int | None = None) -> Any:
    """The summary as a rich table no wider than ``width`` where it can be: metrics as rows and
    variants as columns; turned on its side (variants as rows) when the variants do not fit
    side by side; one line per metric and variant when neither fits."""
    wide = _rich_table(table_header(summary))
    for row in summary.rows:
        wide.add_row(*table_cells(summary, row))
    if width is None or len(summary.variants) == 1 or _natural_width(wide) <= width:
        return wide
    turned = _by_variant_table(summary)
    if _natural_width(turned) <= width:
        return turned
    return _long_table(summary)


def terminal_tables(summary: Summary, width: int | None = None) -> list[Any]:
    """The summary and seat tables as rich renderables, laid out to fit ``width`` columns."""
    from rich.text import Text

    out: list[Any] = []
    # The title as a line of its own: a table's title wraps to the table's width.
    out.append(Text(f"{summary.scenario} · {caption(summary)}", style="italic"))
    out.append(summary_table(summary, width))
    if legend(summary):
        out.append(Text(legend(summary), style="dim"))
    if summary.seats:
        seats = _rich_table(seat_header(summary))
        for s in summary.seats:
            seats.add_row(*seat_cells(summary, s))
        out.append(seats)
    return out


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(summary: Summary, verdict: list[str]) -> str:
    """The summary, seat table and verdict as GitHub-flavoured Markdown (a pull-request comment)."""

    def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
        lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |"]
        lines.append("|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|")
        for r in rows:
            lines.append("| " + " | ".join(_md_escape(c.strip()) for c in r) + " |")
        return lines

    lines = [f"### {summary.scenario}", "", caption(summary) + ". " + legend(summary), ""]
    lines += md_table(table_header(summary), [table_cells(summary, r) for r in summary.rows])
    if summary.seats:
        lines.append("")
        lines += md_table(seat_header(summary), [seat_cells(summary, s) for s in summary.seats])
    if verdict:
        lines += ["", "**Verdict**", ""]
        lines += [f"- {line}" for line in verdict]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The terminal


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
