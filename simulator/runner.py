"""The library entry point: scenario in, :class:`RunResult` out. The CLI is a thin skin on this."""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulator import stats
from simulator.engine import (
    MIN_CHUNK,
    Backend,
    Outcome,
    Plan,
    ProgressFn,
    calibrate_chunk,
    default_threads,
    make_plan,
    simulate,
    warm_up,
)
from simulator.scenario import Scenario, SweepPoint, load
from simulator.stats import Records

if TYPE_CHECKING:
    import pandas as pd

_PACKAGES = ("simulator", "numpy", "numba", "pandas", "scipy", "statsmodels", "pydantic")


def versions() -> dict[str, str]:
    """Versions of Python and the packages that shape a result (read once per process: the
    package metadata costs a scan of the installed distributions each time)."""
    return dict(_versions())


@functools.cache
def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


class Table:
    """A table field of a result (``estimates``, ``distributions``, ``comparisons``): given a
    DataFrame or the :class:`simulator.stats.Records` it is built from, read as a DataFrame.

    The runner gives records, so a run imports pandas only when something reads a table as a
    DataFrame (the report files, a summary of variants): the terminal's table of a run without
    variants is printed from the records (:func:`records`) first."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, result: Any, owner: type | None = None) -> pd.DataFrame:
        if result is None:
            raise AttributeError(self.slot)  # a dataclass field without a default
        value = result.__dict__[self.slot]
        return value.frame() if isinstance(value, Records) else value

    def __set__(self, result: Any, value: pd.DataFrame | Records) -> None:
        result.__dict__[self.slot] = value


def records(result: Any, name: str) -> list[dict[str, Any]]:
    """The rows of the table ``name`` of a result (or point) as dicts: its records while no
    DataFrame was built from them, else the DataFrame's rows (the same values)."""
    value = vars(result).get(f"_{name}")
    if isinstance(value, Records) and not value.built:
        return value.rows
    frame = getattr(result, name)
    return list(frame.to_dict(orient="records"))


@dataclass
class PointResult:
    """One sweep point's run: its swept values, plan, statistics and derived tables."""

    values: dict[str, Any]
    plan: Plan
    outcome: Outcome
    estimates: Table = Table()
    distributions: Table = Table()
    comparisons: Table = Table()

    def label(self) -> str:
        return SweepPoint(self.values, {}).label()


@dataclass
class RunResult:
    """A finished (or interrupted) run: the scenario, the raw statistics and derived tables.

    For a sweep, ``points`` holds every point that ran, and ``plan``, ``outcome`` (with the total
    time), ``estimates``, ``distributions`` and ``comparisons`` are the first point's.
    """

    scenario: Scenario
    plan: Plan
    outcome: Outcome
    estimates: Table = Table()
    distributions: Table = Table()
    comparisons: Table = Table()
    points: list[PointResult] = field(default_factory=list)
    #: Tables derived from the fields above, computed once by whoever needs them first (the
    #: report writers ask for a tournament's summary once per file). Not copied by
    #: ``dataclasses.replace``, so a narrowed copy of a result derives its own.
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def complete(self) -> bool:
        return self.outcome.complete

    @property
    def is_sweep(self) -> bool:
        return bool(self.scenario.sweep)

    def point_results(self) -> list[PointResult]:
        """Every point that ran (the single point of a scenario without a sweep)."""
        if self.points:
            return self.points
        return [
            PointResult(
                {}, self.plan, self.outcome, self.estimates, self.distributions, self.comparisons
            )
        ]

    def _variants_doc(self, point: PointResult, params: dict[str, Any]) -> dict[str, Any]:
        variants: dict[str, Any] = {}
        for name in point.plan.variant_names:
            rows = point.estimates[point.estimates["variant"] == name]
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
        return variants

    def document(self) -> dict[str, Any]:
        """The ``--json`` document (docs/reports.md).

        With a sweep, ``variants`` is the first point's, and two keys are added: ``sweep`` (the
        swept paths and their values) and ``points`` (each point's ``values``, ``trials`` and
        ``variants`` in the same shape as the top-level ``variants``).
        """
        doc: dict[str, Any] = {
            "scenario": self.scenario.name,
            "procedure": self.scenario.procedure.name,
            "seed": self.scenario.seed,
            "trials": self.outcome.trials,
            "variants": self._variants_doc(self.point_results()[0], self.scenario.variant_dicts()),
        }
        if self.is_sweep:
            doc["sweep"] = self.scenario.sweep
            doc["points"] = [
                {
                    "values": p.values,
                    **({"illegal": pt.illegal} if pt.illegal else {}),
                    "trials": p.outcome.trials,
                    "variants": self._variants_doc(
                        p, {k: v.model_dump(mode="json") for k, v in pt.variants.items()}
                    ),
                }
                for p, pt in zip(self.points, self.scenario.points, strict=False)
            ]
        doc["versions"] = versions()
        return doc

    def summary(self, *sections: dict[str, Any]) -> dict[str, Any]:
        """The run's part of ``summary.json``: the document plus completeness, distributions,
        comparisons and how the run was made; ``sections`` from the layers above (the folded
        summary, a tournament's) follow in order. ``simulator.report.files.document`` is the
        whole file."""
        doc = self.document()
        doc.update(
            {
                "complete": self.complete,
                "description": self.scenario.description,
                "scenario_file": self.scenario.path,
                "independent_streams": self.plan.independent,
                "threads": self.outcome.threads,
                "backend": self.outcome.backend,
                "elapsed_seconds": round(self.outcome.elapsed, 4),
                "precision_reached": self.outcome.precision_reached,
                "distributions": _records(self.distributions),
                "comparisons": _records(self.comparisons),
            }
        )
        for section in sections:
            doc.update(section)
        if self.is_sweep:
            doc["points_run"] = len(self.points)
            doc["points_planned"] = len(self.scenario.points)
            for entry, p in zip(doc["points"], self.points, strict=True):
                entry["complete"] = p.outcome.complete
                entry["comparisons"] = _records(p.comparisons)
                entry["distributions"] = _records(p.distributions)
        return doc


def _all_reached(points: list[PointResult]) -> bool | None:
    reached = [p.outcome.precision_reached for p in points]
    return None if None in reached else all(reached)


def _num(x: float) -> float | None:
    import pandas as pd

    return None if pd.isna(x) else float(x)


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: (_num(v) if isinstance(v, float) else v) for k, v in row.items()}
        for row in df.to_dict(orient="records")
    ]


#: Batches a run with seats is cut into, so the seat spread and its differences between variants
#: can be resampled by deal (:mod:`simulator.report.fairness`); the totals do not change.
DEAL_BATCHES = 256


def has_seats(plan: Plan) -> bool:
    """Whether a plan's metrics hold the seats' win shares (``wins.seat1``, ``wins.seat2``...)."""
    seats = [m.name for m in plan.metrics if m.name.startswith("wins.seat")]
    return len(seats) >= 2


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
    force: bool = False,
    backend: Backend | None = None,
) -> RunResult:
    """Run a scenario (a path or a loaded :class:`Scenario`); options override the file.

    A scenario with a sweep runs one plan per point, all on the same seed, so every point reads
    the same random streams (``force`` allows a grid over the point limit when loading a path).
    ``backend`` runs the jobs elsewhere (:func:`simulator.backends.open_backend`, e.g. a Dask
    cluster); the numbers are the same on every backend.
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario, force=force)
    if seed is not None:
        scenario.seed = seed
    if scenario.sweep:
        return _run_sweep(
            scenario,
            trials=trials,
            threads=threads,
            chunk_size=chunk_size,
            independent=independent,
            precision=precision,
            max_trials=max_trials,
            on_progress=on_progress,
            backend=backend,
        )
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
        backend=backend,
        deal_batches=DEAL_BATCHES if has_seats(plan) else None,
    )
    return RunResult(
        scenario,
        plan,
        outcome,
        stats.estimate_records(plan, outcome.stats),
        stats.distribution_records(plan, outcome.stats),
        stats.comparison_records(plan, outcome.stats),
    )


def _run_sweep(
    scenario: Scenario,
    *,
    trials: int | None,
    threads: int | None,
    chunk_size: int | None,
    independent: bool,
    precision: float | None,
    max_trials: int | None,
    on_progress: ProgressFn | None,
    backend: Backend | None = None,
) -> RunResult:
    """Every sweep point as its own plan on the scenario's seed; stops at the first interrupt."""
    n = trials or scenario.trials
    planned = n * len(scenario.points)
    if chunk_size is None:
        # Calibrate once (on the last point, usually the costliest), and split each point into
        # a few jobs per thread so small points still use every core. Never changes results.
        last = make_plan(
            scenario.procedure, scenario.points[-1].variants, scenario.seed, independent
        )
        warm_up(last)
        slots = backend.slots if backend is not None else threads or default_threads()
        job = (backend.job_seconds, backend.max_chunk) if backend is not None else ()
        per_thread = -(-n // (2 * slots))
        chunk_size = (
            MIN_CHUNK
            if per_thread <= MIN_CHUNK  # what calibrating would give, without its trials
            else max(MIN_CHUNK, min(calibrate_chunk(last, *job), per_thread))
        )
    points: list[PointResult] = []
    offset = 0
    elapsed = 0.0
    for point in scenario.points:
        plan = make_plan(scenario.procedure, point.variants, scenario.seed, independent)

        def progress(done: int, _total: int, offset: int = offset) -> None:
            if on_progress is not None:
                on_progress(offset + done, max(planned, offset + done))

        outcome = simulate(
            plan,
            n,
            threads=threads,
            chunk_size=chunk_size,
            precision=precision,
            max_trials=max_trials,
            half_width=stats.widest_half_width,
            on_progress=progress,
            backend=backend,
        )
        elapsed += outcome.elapsed
        offset += outcome.trials
        points.append(
            PointResult(
                point.values,
                plan,
                outcome,
                stats.estimate_records(plan, outcome.stats),
                stats.distribution_records(plan, outcome.stats),
                stats.comparison_records(plan, outcome.stats),
            )
        )
        if not outcome.complete:
            break
    first = points[0]
    complete = len(points) == len(scenario.points) and all(p.outcome.complete for p in points)
    outcome = Outcome(
        first.outcome.stats,
        min(p.outcome.trials for p in points),
        complete,
        elapsed,
        first.outcome.threads,
        first.outcome.chunk_size,
        first.outcome.batches,
        backend=first.outcome.backend,
        precision_reached=_all_reached(points),
    )
    return RunResult(
        scenario,
        first.plan,
        outcome,
        first.estimates,
        first.distributions,
        first.comparisons,
        points,
    )
