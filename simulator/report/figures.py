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
        est = result.estimates
        # Metrics zero in every variant have nothing to compare.
        alive = est.groupby("metric")["mean"].apply(lambda x: bool((x != 0).any()))
        est = est[est["metric"].map(alive)]
        props = est[est["kind"] == "proportion"]
        others = est[est["kind"] != "proportion"]
        groups = [g for g in (props, others) if not g.empty]
        fig = new_figure(7 * len(groups), 0.5 + 0.45 * len(est) / max(len(groups), 1) + 1.5)
        axes = fig.subplots(1, len(groups), squeeze=False)
        variants = list(result.plan.variant_names)
        for ax, g in zip(axes[0], groups, strict=True):
            metrics = list(dict.fromkeys(g["metric"]))
            h = 0.8 / len(variants)
            for k, v in enumerate(variants):
                d = g[g["variant"] == v].set_index("metric").loc[metrics]
                y = [i + (k - (len(variants) - 1) / 2) * h for i in range(len(metrics))]
                ax.errorbar(
                    d["mean"],
                    y,
                    xerr=[
                        (d["mean"] - d["ci_low"]).clip(lower=0),
                        (d["ci_high"] - d["mean"]).clip(lower=0),
                    ],
                    fmt="o",
                    capsize=3,
                    label=v,
                )
            ax.set_yticks(range(len(metrics)))
            ax.set_yticklabels(metrics)
            ax.invert_yaxis()
            ax.grid(axis="x", alpha=0.3)
            ax.set_xlabel("estimate with 95% interval")
        # The legend goes below the axes: above, it covered the title.
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=len(variants), frameon=False)
        fig.suptitle(f"{result.scenario.name}: variants side by side")
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        written.append(save_figure(fig, out_dir / "variants.png"))
    return written


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
