"""The verdict: a few lines in words, generated from the summary's numbers and nothing else.

Lines, in order (each only when it has something to say):

1. per variant after the first, how many summary metrics changed significantly and the largest of
   them ranked by standardized effect (Cohen's d over the pooled per-trial standard deviation for
   means, Cohen's h for proportions), the first with its 95% interval;
2. seat balance per variant: the spread of the seats' win shares and the chi-square test of equal
   seats ("balanced" means exactly that the test does not reject equal seats at 5%);
3. draws and game length, where the procedure reports them;
4. what did not move: summary metrics with no significant difference in any variant;
5. metrics outside the summary that changed significantly (in the full tables: ``--detail``, and
   report.html below its summary).
"""

from __future__ import annotations

import math

from simulator.report.format import fmt_difference, fmt_estimate, fmt_p, fmt_share, row_digits
from simulator.report.summary import ALPHA, Row, SeatRow, Summary

#: Changes named per variant.
TOP_CHANGES = 3
#: Metrics named in the "did not move" line before "and N more".
MAX_LISTED = 8
#: Whole-game metrics that get a line of their own.
GAME_METRICS = ("draws", "length")

_COUNT_WORDS = {2: "both", 3: "all three", 4: "all four"}


def _all(n: int) -> str:
    return _COUNT_WORDS.get(n, f"all {n}")


def _pp(x: float) -> str:
    return f"{100 * x:.1f} pp"


def _listed(names: list[str]) -> str:
    if len(names) <= MAX_LISTED:
        return ", ".join(names)
    return ", ".join(names[:MAX_LISTED]) + f" and {len(names) - MAX_LISTED} more"


def _rank_key(effect: float | None) -> float:
    return -abs(effect) if effect is not None and not math.isnan(effect) else 0.0


def _compared(summary: Summary) -> list[Row]:
    return [r for r in summary.rows if r.role != "spread"]


def changes(summary: Summary) -> list[str]:
    """One line per variant after the first: its significant changes, largest first."""
    lines = []
    rows = _compared(summary)
    for v in summary.variants[1:]:
        tested = [r for r in rows if r.cells[v].p_holm is not None]
        moved = [r for r in tested if r.cells[v].significant]
        if not tested:
            continue
        if not moved:
            lines.append(f"{v}: no significant change in {len(tested)} metrics")
            continue
        moved.sort(key=lambda r: _rank_key(r.cells[v].effect))
        parts = []
        for i, r in enumerate(moved[:TOP_CHANGES]):
            d = row_digits(r)
            style = "interval" if i == 0 else "bare"
            parts.append(f"{r.metric} {fmt_difference(r.cells[v], r.kind, d, style)}")
        lines.append(f"{v}: {len(moved)} of {len(tested)} metrics changed; " + ", ".join(parts))
    return lines


def seat_balance(summary: Summary) -> list[str]:
    """Seat balance of every variant from the seat table."""
    if not summary.seats:
        return []
    tested = [s for s in summary.seats if math.isfinite(s.p_value)]
    untested = [s for s in summary.seats if not math.isfinite(s.p_value)]
    balanced = [s for s in tested if not s.p_value < ALPHA]
    unequal = [s for s in tested if s.p_value < ALPHA]
    lines = []
    if untested:
        wins = "; ".join(
            f"{s.variant}: {round(sum(s.shares) * s.games):,} wins in {s.games:,} games"
            for s in untested
        )
        lines.append(f"too few wins to test the seats ({wins})")
    if not tested:
        return lines
    return lines + _tested_seats(balanced, unequal, everyone=not untested)


def _tested_seats(balanced: list[SeatRow], unequal: list[SeatRow], everyone: bool) -> list[str]:
    n = len(balanced) + len(unequal)
    if not unequal:
        spread = max(s.spread for s in balanced)
        p = min(s.p_value for s in balanced)
        if n == 1:
            where = "" if everyone else f" in {balanced[0].variant}"
            return [f"seats balanced{where}: spread {_pp(spread)}, p = {fmt_p(p)}"]
        where = _all(n) if everyone else ", ".join(s.variant for s in balanced)
        return [f"seats balanced in {where}: spread ≤ {_pp(spread)}, p ≥ {fmt_p(p)}"]
    parts = []
    for s in unequal:
        hi = max(range(len(s.shares)), key=lambda k: s.shares[k])
        lo = min(range(len(s.shares)), key=lambda k: s.shares[k])
        parts.append(
            f"{s.variant} (seat {hi + 1} {fmt_share(s.shares[hi])} vs seat {lo + 1} "
            f"{fmt_share(s.shares[lo])}, spread {_pp(s.spread)}, p = {fmt_p(s.p_value)})"
        )
    line = "seats unequal in " + "; ".join(parts)
    if balanced:
        names = ", ".join(s.variant for s in balanced)
        spread = max(s.spread for s in balanced)
        p = min(s.p_value for s in balanced)
        line += f"; balanced in {names} (spread ≤ {_pp(spread)}, p ≥ {fmt_p(p)})"
    return [line]


def game_lines(summary: Summary) -> list[str]:
    """Draws and length, where the summary has them."""
    lines = []
    rows = {r.metric: r for r in _compared(summary)}
    for name in GAME_METRICS:
        r = rows.get(name)
        if r is None:
            continue
        d = row_digits(r)
        base = summary.variants[0]
        text = f"{name}: {fmt_estimate(r.cells[base].estimate, r.kind, d)}"
        if len(summary.variants) > 1:
            text += f" in {base}"
        for v in summary.variants[1:]:
            c = r.cells[v]
            est = fmt_estimate(c.estimate, r.kind, d)
            if c.significant:
                change = fmt_difference(c, r.kind, d, "interval")
                text += f"; {v} {est} ({change})"
            else:
                text += f"; {v} {est} (no significant change)"
        lines.append(text)
    return lines


def unmoved(summary: Summary) -> list[str]:
    """Summary metrics no variant changed significantly."""
    if len(summary.variants) < 2:
        return []
    still = [
        r.metric
        for r in _compared(summary)
        if r.metric not in GAME_METRICS
        and any(r.cells[v].p_holm is not None for v in summary.variants[1:])
        and not any(r.cells[v].significant for v in summary.variants[1:])
    ]
    if not still:
        return []
    return [f"no significant change in any variant: {_listed(still)}"]


def elsewhere(summary: Summary, detail: bool = False) -> list[str]:
    """Metrics outside the summary that changed; where to read them depends on whether the full
    tables are shown after the verdict (``detail``)."""
    if not summary.other_changes:
        return []
    where = "in the full tables below" if detail else "see --detail"
    return [f"also changed (not in the summary, {where}): {_listed(summary.other_changes)}"]


def verdict(summary: Summary, detail: bool = False) -> list[str]:
    """The verdict lines (see the module docstring); ``detail``: the full tables follow it."""
    return (
        changes(summary)
        + seat_balance(summary)
        + game_lines(summary)
        + unmoved(summary)
        + elsewhere(summary, detail)
    )
