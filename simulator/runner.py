"""The library entry point: scenario in, :class:`RunResult` out. The CLI is a thin skin on this."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from simulator import stats
from simulator.engine import Outcome, Plan, ProgressFn, make_plan, simulate
from simulator.scenario import Scenario, load

_PACKAGES = ("simulator", "numpy", "numba", "pandas", "scipy", "statsmodels", "pydantic")


def versions() -> dict[str, str]:
    """Versions of Python and the packages that shape a result."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


@dataclass
class RunResult:
    """A finished (or interrupted) run: the scenario, the raw statistics and derived tables."""

    scenario: Scenario
    plan: Plan
    outcome: Outcome
    estimates: pd.DataFrame
    distributions: pd.DataFrame
    comparisons: pd.DataFrame

    @property
    def complete(self) -> bool:
        return self.outcome.complete

    def document(self) -> dict[str, Any]:
        """The ``--json`` document (ARCHITECTURE.md, "Contracts others rely on")."""
        variants: dict[str, Any] = {}
        params = self.scenario.variant_dicts()
        for name in self.plan.variant_names:
            rows = self.estimates[self.estimates["variant"] == name]
            variants[name] = {
                "params": params[name],
                "metrics": {
                    r.metric: {
                        "mean": _num(r.mean),
                        "se": _num(r.se),
                        "ci_low": _num(r.ci_low),
                        "ci_high": _num(r.ci_high),
                        "n": int(r.n),
                    }
                    for r in rows.itertuples()
                },
            }
        return {
            "scenario": self.scenario.name,
            "procedure": self.scenario.procedure.name,
            "seed": self.scenario.seed,
            "trials": self.outcome.trials,
            "variants": variants,
            "versions": versions(),
        }

    def summary(self) -> dict[str, Any]:
        """Everything in ``summary.json``: the document plus completeness, distributions,
        comparisons and how the run was made."""
        doc = self.document()
        doc.update(
            {
                "complete": self.complete,
                "description": self.scenario.description,
                "scenario_file": self.scenario.path,
                "independent_streams": self.plan.independent,
                "threads": self.outcome.threads,
                "elapsed_seconds": round(self.outcome.elapsed, 4),
                "distributions": _records(self.distributions),
                "comparisons": _records(self.comparisons),
            }
        )
        return doc


def _num(x: float) -> float | None:
    return None if pd.isna(x) else float(x)


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: (_num(v) if isinstance(v, float) else v) for k, v in row.items()}
        for row in df.to_dict(orient="records")
    ]


def run_scenario(
    scenario: Scenario | str | Path,
    *,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    independent: bool = False,
    precision: float | None = None,
    max_trials: int | None = None,
    on_progress: ProgressFn | None = None,
) -> RunResult:
    """Run a scenario (a path or a loaded :class:`Scenario`); options override the file."""
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    if seed is not None:
        scenario.seed = seed
    plan = make_plan(scenario.procedure, scenario.variants, scenario.seed, independent)
    outcome = simulate(
        plan,
        trials or scenario.trials,
        threads=threads,
        chunk_size=chunk_size,
        precision=precision,
        max_trials=max_trials,
        half_width=stats.widest_half_width,
        on_progress=on_progress,
    )
    return RunResult(
        scenario,
        plan,
        outcome,
        stats.estimates(plan, outcome.stats),
        stats.distributions(plan, outcome.stats),
        stats.comparisons(plan, outcome.stats),
    )
