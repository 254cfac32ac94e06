"""The report folder: summary.csv (the long table), summary.json, summary.parquet for a sweep,
tournament.csv, the figures and report.html, built aside and swapped in whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from simulator.output import report_folder, safe_write
from simulator.report.model import Report
from simulator.runner import RunResult


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


def document(report: Report) -> dict[str, Any]:
    """Everything in summary.json: the run's own part (:meth:`RunResult.summary`), the folded
    summary with its verdict, and the tournament's section."""
    from simulator.report.tournament import summary_entry

    folded: dict[str, Any] = {}
    if report.summary is not None:
        folded = {"summary": report.summary.to_dict(), "verdict": report.verdict}
    if report.grounds.fairness is not None:
        folded["fairness"] = report.grounds.fairness.to_dict()
    if report.grounds.ties:
        from simulator.report.ties import to_dict

        folded["equivalence"] = to_dict(report.grounds.ties)
    if report.robustness is not None:
        folded["robustness"] = report.robustness.to_dict()
    if report.explanations:
        folded["explain"] = [ex.to_dict() for ex in report.explanations]
    return report.result.summary(folded, summary_entry(report))


def write_reports(report: Report, out_dir: Path) -> list[Path]:
    """summary.csv, summary.json, the plots and report.html; with a sweep also summary.parquet
    (the same long table). The folder is built aside and swapped in whole
    (:func:`simulator.output.report_folder`). Returns the paths."""
    out_dir = Path(out_dir)
    with report_folder(out_dir) as folder:
        written = _write_files(report, folder)
    return [out_dir / p.relative_to(folder) for p in written]


def _write_files(report: Report, out_dir: Path) -> list[Path]:
    from simulator.report import figures, tournament
    from simulator.report.html import render

    result = report.result
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
    doc = document(report)
    safe_write(json_path, lambda f: json.dump(doc, f, indent=2, default=str))
    written.append(json_path)
    written += tournament.write_files(report, out_dir)
    plots = figures.write_plots(report, out_dir)
    written += plots
    html_path = out_dir / "report.html"
    page = render(report, plots)
    safe_write(html_path, lambda f: f.write(page))
    written.append(html_path)
    return written
