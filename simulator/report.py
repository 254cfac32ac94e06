"""Results → terminal tables, CSV/JSON files and PNG plots. matplotlib is imported here only."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from simulator.figures import new_figure, save_figure
from simulator.output import report_folder, safe_write
from simulator.runner import RunResult
from simulator.summary import WRAP, build, terminal_tables, wants_summary
from simulator.verdict import verdict


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
    rows = result.estimates[result.estimates["variant"] == variant]
    for r in rows.itertuples():
        cells = [
            str(r.metric),
            _fmt(r.mean),
            f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
            f"{int(r.n):,}",
        ]
        if exact is not None:
            x = exact.get(str(r.metric))
            if x is None:
                cells += ["", ""]
            else:
                z = (r.mean - x) / r.se if r.se and r.se > 0 else 0.0
                cells += [_fmt(x), f"{z:+.2f}"]
        table.add_row(*cells)
    return table


def comparison_table(result: RunResult) -> Table | None:
    df = result.comparisons
    if df.empty:
        return None
    paired = "paired, shared streams" if not result.plan.independent else "independent streams"
    table = Table(
        title=f"Differences from {df['baseline'].iloc[0]!r} ({paired}, Holm-corrected)",
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
    for r in df.itertuples():
        table.add_row(
            str(r.variant),
            str(r.metric),
            f"{r.difference:+.4f}",
            f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]",
            _fmt_p(float(r.p_holm)),
            "*" if r.significant else "",
        )
    return table


def print_tables(
    result: RunResult,
    console: Console,
    exact: dict[str, dict[str, float]] | None = None,
    tournament: bool = True,
) -> None:
    if result.is_sweep:
        from simulator import sweep

        sweep.print_tables(result, console)
        return
    for name in result.plan.variant_names:
        console.print(estimate_table(result, name, None if exact is None else exact.get(name, {})))
    cmp = comparison_table(result)
    if cmp is not None:
        console.print(cmp)
    if tournament:
        from simulator.tournament.report import print_tournament

        print_tournament(result, console)


def print_result(result: RunResult, console: Console, detail: bool = False) -> None:
    """What `sim run` and `sim compare` print: the summary, the seat table and the verdict, then
    (with ``detail``) today's full tables; runs without variants or seats get the full tables."""
    from simulator.tournament.procedure import tournament_of

    if tournament_of(result.scenario.procedure) is not None:
        # A tournament's answer is its own table: win shares, the matchup, seats, the ladder and
        # the skill gap; the per-metric tables (matchup.*, gap.*, h2h.*) are the detail.
        from simulator.tournament.report import print_tournament

        print_tournament(result, console)
        if detail:
            print_tables(result, console, tournament=False)
        else:
            console.print("Every metric's table: --detail.", highlight=False, style="dim")
        return
    if not wants_summary(result):
        print_tables(result, console)
        return
    summary = build(result)
    for table in terminal_tables(summary, console.width):
        console.print(table)
    lines = verdict(summary, detail)
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
    if detail:
        print_tables(result, console)


# ---------------------------------------------------------------------------------------------
# Files


def axis_columns(result: RunResult) -> dict[str, str]:
    """Column name of each swept path in the long table: the path itself, or ``param.<path>``
    where the path would clash with a fixed column (e.g. a parameter called ``kind``)."""
    fixed = set(result.estimates.columns) | {
        "scenario",
        "procedure",
        "seed",
        "point",
        "params",
        "complete",
    }
    return {p: (f"param.{p}" if p in fixed else p) for p in result.scenario.sweep}


def _cell(value: Any) -> Any:
    return value if isinstance(value, int | float | str | bool) else json.dumps(value)


def long_table(result: RunResult) -> pd.DataFrame:
    """The estimates with scenario, seed, params and completeness on every row.

    With a sweep: one row per point × variant × metric, with the point's index and one column per
    swept path (see :func:`axis_columns`) after ``seed``.
    """
    if result.is_sweep:
        return _sweep_long_table(result)
    df = result.estimates.copy()
    params = {k: json.dumps(v, sort_keys=True) for k, v in result.scenario.variant_dicts().items()}
    df.insert(0, "scenario", result.scenario.name)
    df.insert(1, "procedure", result.scenario.procedure.name)
    df.insert(2, "seed", result.scenario.seed)
    df["params"] = df["variant"].map(params)
    df["complete"] = result.complete
    return df


def _sweep_long_table(result: RunResult) -> pd.DataFrame:
    columns = axis_columns(result)
    frames = []
    for i, (p, pt) in enumerate(zip(result.points, result.scenario.points, strict=False)):
        df = p.estimates.copy()
        params = {
            k: json.dumps(v.model_dump(mode="json"), sort_keys=True) for k, v in pt.variants.items()
        }
        df.insert(0, "scenario", result.scenario.name)
        df.insert(1, "procedure", result.scenario.procedure.name)
        df.insert(2, "seed", result.scenario.seed)
        df.insert(3, "point", i)
        for k, (path, column) in enumerate(columns.items()):
            df.insert(4 + k, column, [_cell(p.values[path])] * len(df))
        df["params"] = df["variant"].map(params)
        df["complete"] = p.outcome.complete
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def summary_json(result: RunResult) -> dict[str, Any]:
    """Everything in summary.json: the run's own part (:meth:`RunResult.summary`), the folded
    summary with its verdict, and the tournament's section."""
    from simulator import summary_report
    from simulator.tournament.report import summary_entry

    return result.summary(summary_report.summary_document(result), summary_entry(result))


def write_reports(result: RunResult, out_dir: Path) -> list[Path]:
    """summary.csv, summary.json, the plots and report.html; with a sweep also summary.parquet
    (the same long table). The folder is built aside and swapped in whole
    (:func:`simulator.output.report_folder`). Returns the paths."""
    out_dir = Path(out_dir)
    with report_folder(out_dir) as folder:
        written = _write_files(result, folder)
    return [out_dir / p.relative_to(folder) for p in written]


def _write_files(result: RunResult, out_dir: Path) -> list[Path]:
    written = []
    table = long_table(result)
    csv_path = out_dir / "summary.csv"
    safe_write(csv_path, lambda f: table.to_csv(f, index=False))
    written.append(csv_path)
    if result.is_sweep:
        parquet_path = out_dir / "summary.parquet"
        safe_write(parquet_path, lambda f: table.to_parquet(f, index=False), binary=True)
        written.append(parquet_path)
    json_path = out_dir / "summary.json"
    document = summary_json(result)
    safe_write(json_path, lambda f: json.dump(document, f, indent=2, default=str))
    written.append(json_path)
    from simulator.tournament import report as tournament

    written += tournament.write_files(result, out_dir)
    plots = write_plots(result, out_dir) + tournament.write_plots(result, out_dir)
    written += plots
    from simulator.htmlreport import render

    html_path = out_dir / "report.html"
    page = render(result, plots)
    safe_write(html_path, lambda f: f.write(page))
    written.append(html_path)
    return written


def write_plots(result: RunResult, out_dir: Path) -> list[Path]:
    if result.is_sweep:
        from simulator import sweep

        return sweep.write_plots(result, out_dir)
    written = []
    dist = result.distributions
    if not dist.empty:
        metrics = list(dict.fromkeys(dist["metric"]))
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
        axes[0][0].legend()
        fig.suptitle(f"{result.scenario.name}: variants side by side")
        fig.tight_layout()
        written.append(save_figure(fig, out_dir / "variants.png"))
    from simulator import summary_report

    written += summary_report.write_plots(result, out_dir)
    return written
