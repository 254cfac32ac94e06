"""The terminal: the folded summary, the seat table and the verdict (what `sim run` and
`sim compare` print), and with ``--detail`` every metric's table; rendered from the report model.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.table import Table

from simulator.report.format import (
    caption,
    fmt_difference,
    fmt_estimate,
    legend,
    row_digits,
    row_label,
    seat_cells,
    seat_header,
    table_cells,
    table_header,
)
from simulator.report.model import Report
from simulator.report.summary import WRAP, Summary
from simulator.runner import RunResult, records


def _fmt(x: float, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def _fmt_p(p: float) -> str:
    return "<1e-300" if p == 0 else (f"{p:.2e}" if p < 1e-3 else f"{p:.3f}")


def estimate_table(result: RunResult, variant: str, exact: dict[str, float] | None = None) -> Table:
    """Metric, estimate, 95% interval and trials of one variant (and exact values if given)."""
    title = (
        f"{result.scenario.name} · {variant}"
        if result.plan.n_variants > 1
        else result.scenario.name
    )
    if not result.complete:
        title += " · INCOMPLETE (interrupted)"
    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    table.add_column("estimate", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("trials", justify="right")
    if exact is not None:
        table.add_column("exact", justify="right")
        table.add_column("z", justify="right")
    # The rows, not the DataFrame: a run without variants prints this before pandas is imported.
    for r in records(result, "estimates"):
        if r["variant"] != variant:
            continue
        cells = [
            str(r["metric"]),
            _fmt(r["mean"]),
            f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]",
            f"{int(r['n']):,}",
        ]
        if exact is not None:
            x = exact.get(str(r["metric"]))
            if x is None:
                cells += ["", ""]
            else:
                se = r["se"]
                z = (r["mean"] - x) / se if se and se > 0 else 0.0
                cells += [_fmt(x), f"{z:+.2f}"]
        table.add_row(*cells)
    return table


def comparison_table(result: RunResult) -> Table | None:
    rows = records(result, "comparisons")
    if not rows:
        return None
    paired = "paired, shared streams" if not result.plan.independent else "independent streams"
    table = Table(
        title=f"Differences from {rows[0]['baseline']!r} ({paired}, Holm-corrected)",
        title_justify="left",
    )
    for col, just in (
        ("variant", "left"),
        ("metric", "left"),
        ("difference", "right"),
        ("95% interval", "right"),
        ("p (Holm)", "right"),
        ("", "left"),
    ):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            str(r["variant"]),
            str(r["metric"]),
            f"{r['difference']:+.4f}",
            f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]",
            _fmt_p(float(r["p_holm"])),
            "*" if r["significant"] else "",
        )
    return table


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
    summary = _without_spreads(summary)
    wide = _rich_table(table_header(summary))
    for row in summary.rows:
        wide.add_row(*table_cells(summary, row))
    if width is None or len(summary.variants) == 1 or _natural_width(wide) <= width:
        return wide
    turned = _by_variant_table(summary)
    if _natural_width(turned) <= width:
        return turned
    return _long_table(summary)


def _without_spreads(summary: Summary) -> Summary:
    """The summary without its families' seat-spread rows: the terminal's first screen keeps to
    the totals (the spreads are in report.html, the Markdown and ``--detail``)."""
    import dataclasses

    return dataclasses.replace(summary, rows=[r for r in summary.rows if r.role != "spread"])


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
        first = summary.seats[0]
        if len(summary.seats) > 1 and all(s.shares == first.shares for s in summary.seats):
            # Identical games under every variant: one row says it.
            seats.add_row(*(["every variant", *seat_cells(summary, first)[1:]]))
        else:
            for s in summary.seats:
                seats.add_row(*seat_cells(summary, s))
        out.append(seats)
    return out


def print_tables(
    report: Report,
    console: Console,
    exact: dict[str, dict[str, float]] | None = None,
    tournament: bool = True,
) -> None:
    """Every metric's table: estimates per variant (with exact values where given), then the
    differences; a sweep's grids; a tournament's tables."""
    result = report.result
    if result.is_sweep:
        from simulator.report import sweep

        sweep.print_tables(result, console)
        return
    for name in result.plan.variant_names:
        console.print(estimate_table(result, name, None if exact is None else exact.get(name, {})))
    cmp = comparison_table(result)
    if cmp is not None:
        console.print(cmp)
    if tournament:
        from simulator.report.tournament import print_tournament

        print_tournament(report, console)


def print_report(report: Report, console: Console, detail: bool = False) -> None:
    """What `sim run` and `sim compare` print: the summary, the seat table and the verdict, then
    (with ``detail``) every metric's table; runs without variants or seats get the full tables."""
    if report.tournament is not None:
        # A tournament's answer is its own table: win shares, the matchup, seats, the ladder and
        # the skill gap; the per-metric tables (matchup.*, gap.*, h2h.*) are the detail.
        from simulator.report.tournament import print_tournament

        print_tournament(report, console)
        if detail:
            print_tables(report, console, tournament=False)
        else:
            console.print("Every metric's table: --detail.", highlight=False, style="dim")
        return
    if report.summary is None:
        print_tables(report, console)
        return
    for table in terminal_tables(report.summary, console.width):
        console.print(table)
    lines = report.verdict_detail if detail else report.verdict
    # The hint shares the heading's line: `sim run` of a whole game fits one screen.
    hint = "" if detail else " (full tables: --detail)"
    if lines:
        import textwrap

        width = min(console.width, WRAP) - 4
        console.print(f"Verdict{hint}:", style="bold", highlight=False)
        for line in lines:
            text = textwrap.fill(line, width, initial_indent="  ", subsequent_indent="    ")
            console.print(text, highlight=False, markup=False, soft_wrap=True)
    elif hint:
        console.print("Full tables: --detail.", highlight=False, style="dim")
    if report.robustness is not None:
        print_robustness(report, console)
    if detail:
        print_tables(report, console)


def print_robustness(report: Report, console: Console) -> None:
    """One line per robustness level (the bottom lines open the verdict)."""
    import textwrap

    held = report.robustness
    assert held is not None
    width = min(console.width, WRAP) - 4
    from simulator.report.robustness import short_labels

    partial = "" if held.complete else ", interrupted: the levels finished so far"
    names = short_labels([lv.label for lv in held.levels])
    renamed = [
        f"{n} = {lv.label}"
        for n, lv in zip(names, held.levels, strict=True)
        if lv.kind == "policies" and n != lv.label
    ]
    head = f"Robustness ({held.sizes}{partial}"
    head += f"; {'; '.join(renamed)}):" if renamed else "):"
    console.print(textwrap.fill(head, width + 4), style="bold", highlight=False, markup=False)
    for name, lv in zip(names, held.levels, strict=True):
        # Play levels by their short names (the full spec is in report.html and summary.json).
        label = name if lv.kind == "policies" else lv.label
        text = textwrap.fill(
            f"{label}: {lv.text}", width, initial_indent="  ", subsequent_indent="    "
        )
        console.print(text, highlight=False, markup=False, soft_wrap=True)
