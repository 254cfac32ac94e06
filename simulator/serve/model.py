"""What the page shows of a run, taken from the report model the CLI prints: the folded summary and
its verdict (:mod:`simulator.report.model`), the ``--json`` document
(:meth:`simulator.runner.RunResult.document`) and the report folder
(:func:`simulator.report.files.write_reports`).

This is the one module of :mod:`simulator.serve` that imports the report modules, so moving them
changes the imports here and nowhere else. Nothing is computed here: a partial result is the same
:class:`~simulator.runner.RunResult` built from the statistics of the trials finished so far, and
goes through the same functions as the final one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from simulator import stats
from simulator.engine import Outcome, Plan
from simulator.report.files import write_reports
from simulator.report.format import (
    caption,
    legend,
    seat_cells,
    seat_header,
    table_cells,
    table_header,
)
from simulator.report.model import build
from simulator.report.summary import build as fold
from simulator.runner import RunResult
from simulator.scenario import Scenario

__all__ = ["document", "partial_result", "view", "write_report"]


def _num(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def partial_result(
    scenario: Scenario, plan: Plan, totals: np.ndarray, trials: int, elapsed: float
) -> RunResult:
    """The run so far: ``totals`` are the summed statistics of trials ``0 .. trials-1``, exactly
    what the engine holds at that moment (marked incomplete)."""
    outcome = Outcome(totals, trials, False, elapsed, 0, 0)
    return RunResult(
        scenario,
        plan,
        outcome,
        stats.estimates(plan, totals),
        stats.distributions(plan, totals),
        stats.comparisons(plan, totals),
    )


def document(result: RunResult) -> dict[str, Any]:
    """The ``sim run --json`` document of ``result``."""
    return result.document()


def _summary(result: RunResult) -> dict[str, Any] | None:
    if result.is_sweep:
        return None
    report = build(result)
    # The page shows the folded table always (also where the CLI prints the full tables).
    s = report.summary if report.summary is not None else fold(result)
    rows = []
    for row in s.rows:
        cells = table_cells(s, row)
        significant = any(c.significant for c in row.cells.values())
        rows.append({"metric": row.metric, "cells": cells, "significant": significant})
    seats = [seat_cells(s, r) for r in s.seats]
    return {
        "header": table_header(s),
        "rows": rows,
        "caption": caption(s),
        "legend": legend(s),
        "seat_header": seat_header(s) if s.seats else [],
        "seats": seats,
        "hidden": s.hidden,
        # The CLI opens with the summary and verdict only where there is something to fold or
        # compare; the page shows the table always and the verdict where the CLI does (its full
        # tables follow the verdict on the page, as with --detail).
        "verdict": report.verdict_detail,
    }


def view(result: RunResult, exact: dict[str, dict[str, float]] | None = None) -> dict[str, Any]:
    """Everything the page draws of a run (partial or final), as JSON-ready values: the summary
    table and verdict (the CLI's text, cell for cell), and every estimate and difference with
    its interval, beside the exact value where the procedure knows it."""
    exact = exact or {}
    estimates = [
        {
            "variant": r.variant,
            "metric": r.metric,
            "kind": r.kind,
            "mean": _num(r.mean),
            "ci_low": _num(r.ci_low),
            "ci_high": _num(r.ci_high),
            "n": int(r.n),
            "exact": exact.get(r.variant, {}).get(r.metric),
        }
        for r in result.estimates.itertuples()
    ]
    comparisons = [
        {
            "variant": r.variant,
            "metric": r.metric,
            "difference": _num(r.difference),
            "ci_low": _num(r.ci_low),
            "ci_high": _num(r.ci_high),
            "p_holm": _num(r.p_holm),
            "significant": bool(r.significant),
            "test": r.test,
        }
        for r in result.comparisons.itertuples()
    ]
    return {
        "complete": result.complete,
        "trials": result.outcome.trials,
        "elapsed": round(result.outcome.elapsed, 3),
        "variants": list(result.plan.variant_names),
        "sweep": result.is_sweep,
        "points": len(result.point_results()),
        "summary": _summary(result),
        "estimates": estimates,
        "comparisons": comparisons,
    }


def write_report(result: RunResult, folder: Path) -> list[Path]:
    """The report folder ``sim run`` writes (summary.csv/json, plots, report.html)."""
    return write_reports(build(result), folder)
