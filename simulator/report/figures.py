"""Every figure of a report, drawn from the report model with matplotlib's Agg backend (pyplot is
never imported: it costs half a second).

- ``distributions.png``: the integer distributions of every variant, side by side;
- ``variants.png``: every metric's estimate per variant with its 95% interval;
- ``forest.png``: every variant's differences from the first, standardized, with 95% intervals,
  significant ones filled;
- ``seats.png``: the seats' win shares as grouped bars per variant, with the equal share marked;
- a sweep's heatmaps and lines (:mod:`simulator.report.sweep`), a tournament's matchups
  (:mod:`simulator.report.tournament`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from simulator.report.drawing import new_figure, save_figure
from simulator.report.model import Report
from simulator.report.summary import Summary
from simulator.runner import RunResult

FOREST = "forest.png"
SEATS = "seats.png"
#: The plots report.html shows at the top with the summary (its plot gallery leaves them out).
SUMMARY_PLOTS = (FOREST, SEATS)


def write_plots(report: Report, out_dir: Path) -> list[Path]:
    """Every plot of the report into ``out_dir``; returns their paths."""
    from simulator.report import sweep, tournament

    result = report.result
    if result.is_sweep:
        return sweep.write_plots(result, out_dir)
    written = _distributions(result, out_dir)
    if report.summary is not None:
        written += [
            p for p in (_forest(report.summary, out_dir), _seats(report.summary, out_dir)) if p
        ]
    return written + tournament.write_plots(report, out_dir)


def _distributions(result: RunResult, out_dir: Path) -> list[Path]:
    written = []
    dist = result.distributions
    metrics: list[str] = []
    if not dist.empty:
        # A metric with one value in every variant (a fixed game length) says nothing drawn.
        spread_out = dist[dist["probability"] > 0].groupby("metric")["value"].nunique()
        metrics = [m for m in dict.fromkeys(dist["metric"]) if spread_out.get(m, 0) > 1]
    if not dist.empty and metrics:
        fig = new_figure(4.5 * len(metrics), 3.6)
        axes = fig.subplots(1, len(metrics), squeeze=False)
        variants = list(result.plan.variant_names)
        width = 0.8 / len(variants)
        for ax, metric in zip(axes[0], metrics, strict=True):
            for k, v in enumerate(variants):
                d = dist[(dist["metric"] == metric) & (dist["variant"] == v)]
                ax.bar(
                    d["value"] + (k - (len(variants) - 1) / 2) * width,
                    d["probability"],
                    width=width,
                    label=v,
                )
            ax.set_title(metric)
            ax.set_xlabel("value")
            ax.set_ylabel("probability")
            ax.set_xticks(sorted(d["value"]))
        if len(variants) > 1:
            axes[0][0].legend()
        fig.suptitle(f"{result.scenario.name}: distributions")
        fig.tight_layout()
        written.append(save_figure(fig, out_dir / "distributions.png"))
    if result.plan.n_variants > 1:
        path = _variants(result, out_dir)
        if path is not None:
            written.append(path)
    return written


#: Panels per row of variants.png: at its 110 dpi the figure is 1,320 px wide, readable on a
#: 1,400 px page without zooming.
PANELS_PER_ROW = 4


def _variants(result: RunResult, out_dir: Path) -> Path | None:
    """``variants.png``: small multiples, one panel per metric with a scale of its own (one
    shared axis made a 0.01 proportion and a 25-point mean unreadable side by side), each
    variant a coloured point with its 95% interval."""
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    est = result.estimates
    # Metrics zero in every variant have nothing to compare.
    alive = est.groupby("metric")["mean"].apply(lambda x: bool((x != 0).any()))
    est = est[est["metric"].map(alive)]
    metrics = list(dict.fromkeys(est["metric"]))
    if not metrics:
        return None
    variants = list(result.plan.variant_names)
    cols = min(PANELS_PER_ROW, len(metrics))
    rows = -(-len(metrics) // cols)
    panel_h = 0.55 + 0.18 * len(variants)
    fig = new_figure(3.0 * cols, panel_h * rows + 1.0)
    axes = fig.subplots(rows, cols, squeeze=False)
    by_key = {(r.variant, r.metric): r for r in est.itertuples()}
    for i, ax in enumerate(axes.flat):
        if i >= len(metrics):
            ax.set_visible(False)
            continue
        metric = metrics[i]
        for k, v in enumerate(variants):
            r = by_key.get((v, metric))
            if r is None:
                continue
            ax.errorbar(
                [r.mean],
                [k],
                xerr=[[max(r.mean - r.ci_low, 0.0)], [max(r.ci_high - r.mean, 0.0)]],
                fmt="o",
                markersize=4,
                capsize=2,
                color=f"C{k % 10}",
                label=v,
            )
        ax.set_title(metric, fontsize=8)
        ax.set_yticks([])
        ax.set_ylim(len(variants) - 0.5, -0.5)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.tick_params(axis="x", labelsize=7)
        if str(by_key[(variants[0], metric)].kind) == "proportion":
            ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.margins(x=0.15)
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(variants), 4), frameon=False)
    fig.suptitle(f"{result.scenario.name}: each metric per variant, 95% intervals (own scales)")
    fig.tight_layout(rect=(0, 0.9 / (panel_h * rows + 1.0), 1, 0.97))
    return save_figure(fig, out_dir / "variants.png")


def forest_points(summary: Summary) -> list[dict[str, Any]]:
    """The forest plot's rows: label, standardized effect and interval, significance.

    Differences of metrics that are constant in both variants have no scale and are left out.
    """
    later = summary.variants[1:]
    out = []
    for row in summary.rows:
        if row.role == "spread":
            continue
        for v in later:
            c = row.cells[v]
            if c.effect is None or not all(
                math.isfinite(x) for x in (c.effect, c.effect_low or 0.0, c.effect_high or 0.0)
            ):
                continue
            label = row.metric if len(later) == 1 else f"{row.metric} · {v}"
            out.append(
                {
                    "label": label,
                    "variant": v,
                    "effect": c.effect,
                    "low": c.effect_low,
                    "high": c.effect_high,
                    "significant": c.significant,
                }
            )
    return out


def _forest(summary: Summary, out_dir: Path) -> Path | None:
    points = forest_points(summary)
    if not points:
        return None
    fig = new_figure(8.0, 1.2 + 0.28 * len(points))
    ax = fig.subplots()
    colours = {v: f"C{i}" for i, v in enumerate(summary.variants[1:])}
    for y, p in enumerate(points):
        colour = colours[p["variant"]]
        ax.errorbar(
            [p["effect"]],
            [y],
            xerr=[[p["effect"] - p["low"]], [p["high"] - p["effect"]]],
            fmt="o",
            color=colour,
            markerfacecolor=colour if p["significant"] else "white",
            capsize=3,
        )
    ax.axvline(0.0, color="0.4", linewidth=1)
    ax.set_yticks(range(len(points)))
    ax.set_yticklabels([p["label"] + (" *" if p["significant"] else "") for p in points])
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("standardized difference (Cohen's d, h for proportions), 95% interval")
    fig.suptitle(f"{summary.scenario}: differences from {summary.baseline}")
    fig.tight_layout()
    return save_figure(fig, out_dir / FOREST)


def _seats(summary: Summary, out_dir: Path) -> Path | None:
    if not summary.seats:
        return None
    n = len(summary.seats[0].shares)
    fig = new_figure(max(5.0, 1.2 * n + 2), 3.8)
    ax = fig.subplots()
    width = 0.8 / len(summary.seats)
    for k, s in enumerate(summary.seats):
        x = [i + (k - (len(summary.seats) - 1) / 2) * width for i in range(n)]
        err = [
            [max(m - lo, 0.0) for m, lo in zip(s.shares, s.ci_low, strict=True)],
            [max(hi - m, 0.0) for m, hi in zip(s.shares, s.ci_high, strict=True)],
        ]
        ax.bar(x, s.shares, width=width, yerr=err, capsize=2, label=s.variant)
    ax.axhline(1.0 / n, color="0.3", linestyle="--", linewidth=1, label="equal share")
    ax.set_xticks(range(n))
    ax.set_xticklabels([f"seat {i + 1}" for i in range(n)])
    ax.set_ylabel("share of the win (95% interval)")
    ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{summary.scenario}: seat win shares")
    fig.tight_layout()
    return save_figure(fig, out_dir / SEATS)
