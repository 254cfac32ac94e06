"""Formatting the summary: the same text on the terminal, in Markdown, in report.html and in the
verdict. Numbers get as many decimals as their narrowest 95% interval supports."""

from __future__ import annotations

import math

from simulator.report.summary import Cell, Row, SeatRow, Summary

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
        f"Δ: difference from {summary.baseline} ±Holm-adjusted 95% ({how}), * excludes 0; "
        "proportions in %, Δ in pp"
    )
