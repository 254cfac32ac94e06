"""Sweeps in reports: the tidy table of every point, odds grids on the terminal, heatmaps and lines.

A sweep (``sweep:`` in a scenario) runs the scenario at every point of a grid of parameter values;
:mod:`simulator.runner` runs one plan per point on the scenario's seed. This module only presents
the results: two swept parameters make a grid (rows = first path, columns = second) and a heatmap
with the estimate printed in each cell; one makes a line per variant with its 95% band; three or
more make the long table only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from simulator.runner import RunResult

#: Grids wider or taller than this get no numbers printed in the heatmap's cells (unreadable).
MAX_ANNOTATED_CELLS = 30
#: The terminal shows at most this many rows of a long table (all rows are in summary.csv).
MAX_TERMINAL_ROWS = 60


def headline_metrics(result: RunResult) -> list[str]:
    """Metrics a sweep plots and tabulates: the headline ones (all, if none is headline)."""
    names = [m.name for m in result.plan.metrics if m.headline and m.kind != "distribution"]
    return names or [m.name for m in result.plan.metrics]


def illegal_points(result: RunResult) -> dict[int, str]:
    """Points the rules forbid (``Procedure.forbidden``), by index, with the reason. They still
    run (so every point lines up with the baseline), but their numbers are never shown as a
    result: grids print ``illegal`` there, heatmaps leave the cell blank."""
    points = result.scenario.points[: len(result.points)]
    return {i: pt.illegal for i, pt in enumerate(points) if pt.illegal}


def frame(result: RunResult) -> pd.DataFrame:
    """One row per point × variant × metric: point index, the swept values (columns named by
    path), variant, metric, kind, mean, se, ci_low, ci_high, n, and ``illegal`` (why the rules
    forbid the point; empty when they allow it)."""
    frames = []
    illegal = illegal_points(result)
    for i, p in enumerate(result.points):
        df = p.estimates.copy()
        df.insert(0, "point", i)
        for k, (path, value) in enumerate(p.values.items()):
            df.insert(1 + k, path, [value] * len(df))
        df["illegal"] = illegal.get(i, "")
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def fmt_estimate(value: float, kind: str, wide: bool = False) -> str:
    """An estimate as printed in a grid cell: proportions with 3 decimals (2 in wide grids)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if kind == "proportion":
        return f"{value:.2f}" if wide else f"{value:.3f}"
    return f"{value:.3g}"


def _label(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )


def grid(result: RunResult, metric: str, variant: str) -> pd.DataFrame:
    """Two swept paths: a table of ``metric`` estimates, rows = first path, columns = second
    (NaN where the rules forbid the point)."""
    (ypath, yvals), (xpath, xvals) = list(result.scenario.sweep.items())[:2]
    out = pd.DataFrame(
        np.nan,
        index=pd.Index([_label(v) for v in yvals], name=ypath),
        columns=pd.Index([_label(v) for v in xvals], name=xpath),
    )
    illegal = illegal_points(result)
    for i, p in enumerate(result.points):
        rows = p.estimates[(p.estimates["metric"] == metric) & (p.estimates["variant"] == variant)]
        if not rows.empty and i not in illegal:
            out.loc[_label(p.values[ypath]), _label(p.values[xpath])] = float(rows["mean"].iloc[0])
    return out


def _kind(result: RunResult, metric: str) -> str:
    return next(m.kind for m in result.plan.metrics if m.name == metric)


def print_tables(result: RunResult, console: Console) -> None:
    """The sweep on the terminal: grids (two paths), a table per path value (one), or the long
    table of headline metrics (three or more), then where variants differ significantly."""
    axes = result.scenario.sweep
    metrics = headline_metrics(result)
    variants = list(result.plan.variant_names)
    suffix = "" if result.complete else " · INCOMPLETE (interrupted)"
    illegal = illegal_points(result)
    if len(axes) == 2:
        (ypath, _), (xpath, _) = list(axes.items())
        forbidden = {
            (_label(result.points[i].values[ypath]), _label(result.points[i].values[xpath]))
            for i in illegal
        }
        for metric in metrics:
            kind = _kind(result, metric)
            for v in variants:
                g = grid(result, metric, v)
                title = f"{result.scenario.name}: {metric}"
                title += f" · {v}" if len(variants) > 1 else ""
                table = Table(
                    title=title + suffix,
                    title_justify="left",
                    caption=f"rows: {ypath} · columns: {xpath}",
                    caption_justify="left",
                )
                table.add_column(f"{ypath} \\ {xpath}", justify="right", style="bold")
                wide = len(g.columns) > 12
                for c in g.columns:
                    table.add_column(str(c), justify="right")
                for label, row in g.iterrows():
                    cells = [
                        "illegal"
                        if (str(label), str(c)) in forbidden
                        else fmt_estimate(x, kind, wide)
                        for c, x in row.items()
                    ]
                    table.add_row(str(label), *cells)
                console.print(table)
    elif len(axes) == 1 and len(metrics) * len(variants) > ONE_AXIS_COLUMNS:
        _one_axis_by_metric(result, metrics, variants, illegal, suffix, console)
    elif len(axes) == 1:
        ((path, values),) = list(axes.items())
        df = frame(result).set_index([path, "variant", "metric"])
        table = Table(
            title=f"{result.scenario.name}: estimate [95% interval]{suffix}", title_justify="left"
        )
        table.add_column(path, justify="right", style="bold")
        columns = [(v, m) for m in metrics for v in variants]
        for v, m in columns:
            name = " · ".join(x for x in (m if len(metrics) > 1 else "", v) if x)
            table.add_column(name if len(variants) > 1 or len(metrics) > 1 else m, justify="right")
        for i, value in enumerate(values[: len(result.points)]):
            cells = [_label(value)]
            if i in illegal:
                table.add_row(*cells, *(["illegal"] * len(columns)))
                continue
            for v, m in columns:
                cells.append(_with_interval(df.loc[(value, v, m)]))
            table.add_row(*cells)
        console.print(table)
    else:
        df = frame(result)
        df = df[df["metric"].isin(metrics)]
        table = Table(title=f"{result.scenario.name}{suffix}", title_justify="left")
        for path in axes:
            table.add_column(path, justify="right")
        if len(variants) > 1:
            table.add_column("variant")
        table.add_column("metric")
        table.add_column("estimate", justify="right")
        table.add_column("95% interval", justify="right")
        for r in df.head(MAX_TERMINAL_ROWS).to_dict(orient="records"):
            cells = [_label(r[p]) for p in axes]
            cells += [str(r["variant"])] if len(variants) > 1 else []
            lo, hi = fmt_estimate(r["ci_low"], r["kind"]), fmt_estimate(r["ci_high"], r["kind"])
            estimate = [fmt_estimate(r["mean"], r["kind"]), f"[{lo}, {hi}]"]
            cells += [str(r["metric"]), *(["illegal", ""] if r["illegal"] else estimate)]
            table.add_row(*cells)
        console.print(table)
        if len(df) > MAX_TERMINAL_ROWS:
            console.print(f"... {len(df) - MAX_TERMINAL_ROWS} more rows in summary.csv")
    if illegal:
        reasons = sorted(set(illegal.values()))
        console.print(
            f"{len(illegal)} of {len(result.points)} points are illegal by the rules (run, not "
            f"shown): {reasons[0]}"
            + (f" (and {len(reasons) - 1} other reasons)" if len(reasons) > 1 else "")
        )
    summary = significance_summary(result)
    if not summary.empty:
        table = Table(
            title=f"Differences from {variants[0]!r} across the sweep (Holm-corrected per point)",
            title_justify="left",
        )
        for col in ("variant", "metric", "significant at", "smallest", "largest"):
            table.add_column(col, justify="left" if col in ("variant", "metric") else "right")
        for r in summary.itertuples():
            table.add_row(
                str(r.variant),
                str(r.metric),
                f"{r.significant} of {r.points} points",
                f"{r.smallest:+.4f}",
                f"{r.largest:+.4f}",
            )
        console.print(table)


def _with_interval(r: pd.Series) -> str:
    """``estimate [low, high]`` of one row of the sweep's frame."""
    kind = str(r["kind"])
    lo, hi = fmt_estimate(r["ci_low"], kind), fmt_estimate(r["ci_high"], kind)
    return f"{fmt_estimate(r['mean'], kind)} [{lo}, {hi}]"


#: A one-path sweep shows a column per metric and variant up to this many; past it (a whole game's
#: metrics, a sweep over ``policies``) a row per metric and a column per point and variant.
ONE_AXIS_COLUMNS = 4


def _one_axis_by_metric(
    result: RunResult,
    metrics: list[str],
    variants: list[str],
    illegal: dict[int, str],
    suffix: str,
    console: Console,
) -> None:
    """A one-path sweep with many metrics: metrics as rows, each point (and variant) a column."""
    ((path, values),) = list(result.scenario.sweep.items())
    df = frame(result).set_index([path, "variant", "metric"])
    shown = list(enumerate(values[: len(result.points)]))
    table = Table(
        title=f"{result.scenario.name}: estimate [95% interval] by {path}{suffix}",
        title_justify="left",
    )
    table.add_column("metric")
    for _, value in shown:
        for v in variants:
            head = _label(value) + (f" · {v}" if len(variants) > 1 else "")
            table.add_column(head, justify="right")
    for m in metrics:
        cells = [m]
        for i, value in shown:
            for v in variants:
                if i in illegal:
                    cells.append("illegal")
                    continue
                cells.append(_with_interval(df.loc[(value, v, m)]))
        table.add_row(*cells)
    console.print(table)


def significance_summary(result: RunResult) -> pd.DataFrame:
    """Per variant and metric: at how many points it differs significantly from the first
    variant, and the smallest and largest difference."""
    illegal = illegal_points(result)
    frames = [
        p.comparisons
        for i, p in enumerate(result.points)
        if not p.comparisons.empty and i not in illegal
    ]
    cols = ["variant", "metric", "significant", "points", "smallest", "largest"]
    if not frames:
        return pd.DataFrame(columns=cols)
    df = pd.concat(frames, ignore_index=True)
    out = (
        df.groupby(["variant", "metric"], sort=False)
        .agg(
            significant=("significant", "sum"),
            points=("significant", "size"),
            smallest=("difference", "min"),
            largest=("difference", "max"),
        )
        .reset_index()
    )
    return out[cols]


# ---------------------------------------------------------------------------------------------
# Plots


def write_plots(result: RunResult, out_dir: Path) -> list[Path]:
    """heatmap.png for two swept paths, sweep.png (lines with 95% bands) for one."""
    from simulator.report.drawing import save_figure

    axes = result.scenario.sweep
    if len(axes) == 2:
        fig = heatmap_figure(result)
        path = save_figure(fig, out_dir / "heatmap.png")
    elif len(axes) == 1:
        fig = lines_figure(result)
        path = save_figure(fig, out_dir / "sweep.png")
    else:
        return []
    return [path]


def _text_colour(rgba: tuple[float, ...]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def heatmap_figure(result: RunResult) -> Any:
    from matplotlib import colormaps

    from simulator.report.drawing import new_figure

    (ypath, yvals), (xpath, xvals) = list(result.scenario.sweep.items())
    metrics = headline_metrics(result)
    variants = list(result.plan.variant_names)
    nx, ny = len(xvals), len(yvals)
    cell = 0.62 if nx <= 12 else 0.45
    width = min(max(cell * nx + 2.4, 5.0), 40.0)
    height = min(max(0.5 * ny + 1.8, 3.5), 40.0)
    fig = new_figure(width * len(variants), height * len(metrics))
    axs = fig.subplots(len(metrics), len(variants), squeeze=False)
    annotate = nx <= MAX_ANNOTATED_CELLS and ny <= MAX_ANNOTATED_CELLS
    ylabels, xlabels = [_label(v) for v in yvals], [_label(v) for v in xvals]
    forbidden = {
        (
            ylabels.index(_label(result.points[i].values[ypath])),
            xlabels.index(_label(result.points[i].values[xpath])),
        )
        for i in illegal_points(result)
    }
    for i, metric in enumerate(metrics):
        kind = _kind(result, metric)
        grids = [grid(result, metric, v).to_numpy(dtype=float) for v in variants]
        if kind == "proportion":
            vmin, vmax, cmap = 0.0, 1.0, colormaps["RdYlBu_r"]
        else:
            finite = np.concatenate([g[np.isfinite(g)] for g in grids]) if grids else np.array([])
            vmin = float(finite.min()) if finite.size else 0.0
            vmax = float(finite.max()) if finite.size else 1.0
            cmap = colormaps["viridis"]
        for j, v in enumerate(variants):
            ax = axs[i][j]
            values = grids[j]
            im = ax.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
            if annotate:
                norm = im.norm
                size = 9 if nx <= 12 else 7
                for y in range(ny):
                    for x in range(nx):
                        val = values[y, x]
                        if (y, x) in forbidden:
                            ax.text(x, y, "illegal", ha="center", va="center", fontsize=size - 2)
                        if not np.isfinite(val):
                            continue
                        ax.text(
                            x,
                            y,
                            fmt_estimate(val, kind, wide=nx > 12),
                            ha="center",
                            va="center",
                            fontsize=size,
                            color=_text_colour(cmap(norm(val))),
                        )
            ax.set_xticks(range(nx), [_label(x) for x in xvals])
            ax.set_yticks(range(ny), [_label(y) for y in yvals])
            ax.set_xlabel(xpath)
            ax.set_ylabel(ypath)
            ax.set_title(metric + (f" · {v}" if len(variants) > 1 else ""))
            fig.colorbar(im, ax=ax, shrink=0.85)
    trials = f"{result.outcome.trials:,} trials per point"
    fig.suptitle(f"{result.scenario.name}: {trials}, seed {result.scenario.seed}")
    fig.tight_layout()
    return fig


def lines_figure(result: RunResult) -> Any:
    from simulator.report.drawing import new_figure

    ((path, values),) = list(result.scenario.sweep.items())
    metrics = headline_metrics(result)
    variants = list(result.plan.variant_names)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    df = frame(result)
    fig = new_figure(max(5.5, 0.45 * len(values) + 3) * len(metrics), 4.2)
    axs = fig.subplots(1, len(metrics), squeeze=False)
    for ax, metric in zip(axs[0], metrics, strict=True):
        for v in variants:
            d = df[(df["metric"] == metric) & (df["variant"] == v)]
            x = d[path].to_numpy() if numeric else [values.index(val) for val in d[path]]
            ax.plot(x, d["mean"], marker="o", label=v)
            ax.fill_between(x, d["ci_low"], d["ci_high"], alpha=0.25)
        if not numeric:
            ax.set_xticks(range(len(values)), [_label(val) for val in values])
        ax.set_xlabel(path)
        ax.set_ylabel("estimate, 95% band")
        ax.set_title(metric)
        ax.grid(alpha=0.3)
        if len(variants) > 1:
            ax.legend()
    fig.suptitle(
        f"{result.scenario.name}: {result.outcome.trials:,} trials per point, "
        f"seed {result.scenario.seed}"
    )
    fig.tight_layout()
    return fig
