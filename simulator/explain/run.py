"""Playing the design: every cell a variant of one plan, on the same deals.

The cells are the variants of one :class:`~simulator.engine.Plan` on shared random streams, so
every cell plays the same deals (the engine's common random numbers), and the run is cut into
batches of consecutive deals by trial index (:data:`simulator.runner.DEAL_BATCHES`), whose
statistics give the paired intervals: the numbers are the same on any thread count and backend.

Before it runs, :func:`measure` times the first deals of every cell on the run's threads (after
the kernel is compiled) for the announcement of its cost. Ctrl-C stops the run; the trials
every cell finished are kept and explained, marked incomplete.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from simulator import stats
from simulator.engine import (
    Outcome,
    Plan,
    PlanError,
    ProgressFn,
    default_threads,
    make_plan,
    simulate,
    warm_up,
)
from simulator.explain.clauses import Clause, Difference, ExplainError, find
from simulator.explain.decompose import MetricEffects, decompose
from simulator.explain.design import Design, design
from simulator.runner import DEAL_BATCHES, RunResult, has_seats
from simulator.scenario import Scenario


@dataclass
class Explanation:
    """Why one variant differs from another: the clauses, the design, each metric's effects."""

    scenario: str
    variant: str
    against: str
    clauses: tuple[Clause, ...]
    design: Design
    trials: int
    complete: bool
    seconds: float
    effects: list[MetricEffects] = field(default_factory=list)
    #: Per clause: whether its declared case metrics counted anything in some cell (None: the
    #: procedure declares none for it).
    fired: list[bool | None] = field(default_factory=list)
    #: The plan of the cells and its outcome (for :func:`comparison`).
    plan: Plan | None = field(default=None, repr=False)
    outcome: Outcome | None = field(default=None, repr=False)

    @property
    def names(self) -> list[str]:
        return [c.path for c in self.clauses]

    @property
    def cells(self) -> int:
        return len(self.design.cells)

    def by_metric(self) -> dict[str, MetricEffects]:
        return {e.metric: e for e in self.effects}

    def never_fired(self) -> list[Clause]:
        return [c for c, f in zip(self.clauses, self.fired, strict=True) if f is False]

    def to_dict(self) -> dict[str, Any]:
        """The ``explain`` entry of summary.json: every clause and every effect."""
        return {
            "variant": self.variant,
            "against": self.against,
            "design": self.design.describe(),
            "cells": self.cells,
            "trials": self.trials,
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "clauses": [
                {**c.to_dict(), "fired": f} for c, f in zip(self.clauses, self.fired, strict=True)
            ],
            "metrics": [e.to_dict(self.names) for e in self.effects],
        }


@dataclass
class Prepared:
    """A design ready to run: the clauses, their cells as one plan, and the trials."""

    scenario: Scenario
    variant: str
    against: str
    difference: Difference
    design: Design
    plan: Plan
    trials: int

    @property
    def games(self) -> int:
        return len(self.design.cells) * self.trials


def prepare(
    scenario: Scenario, variant: str, against: str | None = None, trials: int | None = None
) -> Prepared:
    """The design of ``variant`` against ``against`` (default: the scenario's first variant).

    Raises:
        ExplainError: an unknown variant, a sweep, or clauses that cannot be explained.
    """
    names = list(scenario.variants)
    against = against or names[0]
    for name in (variant, against):
        if name not in scenario.variants:
            raise ExplainError(
                f"no variant {name!r} in {scenario.name} (its variants: {', '.join(names)})"
            )
    if variant == against:
        raise ExplainError(f"{variant!r} is explained against another variant, not itself")
    if scenario.sweep:
        raise ExplainError("explain a scenario without a sweep (a sweep's points each differ)")
    if scenario.raw.get("tournament"):
        raise ExplainError(
            "a tournament's entrants are not clauses: explain a scenario of variants"
        )
    procedure = scenario.procedure
    diff = find(procedure, scenario.variants[against], scenario.variants[variant])
    plan_design = design(len(diff.clauses))
    cells = {}
    for mask in plan_design.cells:
        on = [bool(mask >> i & 1) for i in range(len(diff.clauses))]
        cells[_cell_label(mask, diff.clauses)] = diff.cell(on)
    try:
        plan = make_plan(procedure, cells, scenario.seed)
    except PlanError as e:
        raise ExplainError(f"the combinations cannot run together: {e}") from None
    return Prepared(scenario, variant, against, diff, plan_design, plan, trials or scenario.trials)


def _cell_label(mask: int, clauses: tuple[Clause, ...]) -> str:
    on = [c.path for i, c in enumerate(clauses) if mask >> i & 1]
    return "+".join(on) if on else "none"


def measure(prepared: Prepared, threads: int | None = None) -> float:
    """Seconds the run should take: the first deals of every cell played on the run's threads
    (the kernel compiled first), more of them until a quarter of a second has passed, scaled to
    the trials. On a busy machine the threads share its cores, and the estimate says so."""
    plan = prepared.plan
    warm_up(plan)
    slots = max(1, threads or default_threads())
    n = min(2 * slots, prepared.trials)
    while True:
        t0 = time.perf_counter()
        simulate(plan, n, threads=slots, chunk_size=max(1, n // (2 * slots)))
        elapsed = time.perf_counter() - t0
        if elapsed >= 0.25 or n >= prepared.trials:
            break
        n = min(n * 4, prepared.trials)
    return elapsed / n * prepared.trials


def play(
    prepared: Prepared,
    *,
    threads: int | None = None,
    on_progress: ProgressFn | None = None,
) -> Explanation:
    """Run every cell on the same deals and decompose every metric's change."""
    plan = prepared.plan
    outcome = simulate(
        plan,
        prepared.trials,
        threads=threads,
        on_progress=on_progress,
        deal_batches=DEAL_BATCHES,
    )
    batches = outcome.batch_stats
    assert batches is not None
    metrics = [(m.name, m.kind, m.scale) for m in plan.metrics]
    effects = decompose(prepared.design, batches, metrics) if outcome.trials else []
    clauses = prepared.difference.clauses
    fired = [_fired(plan, outcome.stats, c) for c in clauses]
    return Explanation(
        prepared.scenario.name,
        prepared.variant,
        prepared.against,
        clauses,
        prepared.design,
        outcome.trials,
        outcome.complete,
        outcome.elapsed,
        effects,
        fired,
        plan,
        outcome,
    )


def comparison(scenario: Scenario, ex: Explanation) -> RunResult:
    """The plain comparison of the explained variant with its reference, read from the first and
    the last cell (the reference's parameters and the variant's, on the same deals): the run
    ``sim run`` makes of the two, without playing them again. The histograms of distribution
    metrics have the bins of every cell."""
    plan, outcome = ex.plan, ex.outcome
    assert plan is not None and outcome is not None
    ends = [0, plan.n_variants - 1]
    pair = {ex.against: scenario.variants[ex.against], ex.variant: scenario.variants[ex.variant]}
    narrowed = dataclasses.replace(scenario, variants=pair, points=[])
    two = dataclasses.replace(
        plan,
        variant_names=tuple(pair),
        variant_params=tuple(pair.values()),
        packed=plan.packed[ends],
    )
    batches = outcome.batch_stats
    kept = dataclasses.replace(
        outcome,
        stats=outcome.stats[ends],
        batch_stats=None if batches is None or not has_seats(plan) else batches[:, ends],
    )
    return RunResult(
        narrowed,
        two,
        kept,
        stats.estimate_records(two, kept.stats),
        stats.distribution_records(two, kept.stats),
        stats.comparison_records(two, kept.stats),
    )


def _fired(plan: Plan, stats: Any, clause: Clause) -> bool | None:
    """Whether a clause's declared case metrics (a family's seats too) counted anything in any
    cell; None when it declares none that the run reports."""
    found = False
    for i, m in enumerate(plan.metrics):
        if any(m.name == f or m.name.startswith(f + ".seat") for f in clause.fires):
            found = True
            if (stats[:, 4 * i + 1] != 0).any():
                return True
    return False if found else None


def explain(
    scenario: Scenario,
    variant: str,
    against: str | None = None,
    *,
    trials: int | None = None,
    threads: int | None = None,
    on_progress: ProgressFn | None = None,
) -> Explanation:
    """:func:`prepare` and :func:`play` in one call (the library's entry point)."""
    return play(
        prepare(scenario, variant, against, trials), threads=threads, on_progress=on_progress
    )


__all__ = ["ExplainError", "Explanation", "Prepared", "explain", "measure", "play", "prepare"]
