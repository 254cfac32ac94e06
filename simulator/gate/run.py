"""Running scenarios for the gate: the trial count, the run, and the baseline's entries."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator import stats
from simulator.engine import make_plan, simulate
from simulator.gate import power
from simulator.gate.outcomes import MAX_KEPT_TRIALS, PointOutcomes, encode, run_point
from simulator.gate.settings import GateSettings, settings_of
from simulator.gate.store import BaselineError, BaselineFile, Entry, ScenarioBaseline
from simulator.procedures.base import Metric
from simulator.runner import versions
from simulator.scenario import Scenario

DEFAULT_ALPHA = 1e-4
#: Trials of the pilot run that measures a mean metric's spread before `detect:` sizes the gate.
PILOT_TRIALS = 2000

Notify = Callable[[str], None]


def metrics_of(scenario: Scenario) -> list[Metric]:
    return scenario.procedure.metrics(scenario.points[0].variants[next(iter(scenario.variants))])


def settings(scenario: Scenario) -> GateSettings:
    return settings_of(scenario.check, metrics_of(scenario))


def family_size(scenarios: Sequence[Scenario]) -> int:
    """Gated series (metric x variant x point) over ``scenarios``: the Holm family."""
    return sum(len(settings(s).gated) * len(s.variants) * len(s.points) for s in scenarios)


def inputs_of(scenario: Scenario) -> dict[str, Any]:
    """What a scenario's numbers depend on besides code, seed and trials: params, variants and
    sweep exactly as written in the file (so a changed default in code is measured as drift)."""
    raw = scenario.raw
    return {
        "params": raw.get("params", {}),
        "variants": raw.get("variants", {}),
        "sweep": raw.get("sweep", {}),
    }


def _spread(scenario: Scenario, metric: str) -> float:
    """A mean metric's largest standard deviation over variants and points, from a pilot run
    (the jump of the detectable-effect model, :mod:`simulator.gate.power`)."""
    widest = 0.0
    for pt in scenario.points:
        plan = make_plan(scenario.procedure, pt.variants, scenario.seed)
        m = [x.name for x in plan.metrics].index(metric)
        out = simulate(plan, PILOT_TRIALS, threads=None)
        for v in range(plan.n_variants):
            n, s, ss = (int(x) for x in out.stats[v, 4 * m : 4 * m + 3])
            e = stats.estimate(plan.metrics[m].kind, n, s, ss, plan.metrics[m].scale)
            sd = e["se"] * math.sqrt(n) if n else 0.0
            widest = max(widest, sd, 1 / plan.metrics[m].scale)
    return widest


def choose_trials(
    scenario: Scenario, default: int | None, family: int, alpha: float = DEFAULT_ALPHA
) -> tuple[int, str]:
    """The gate's trials for ``scenario`` and why: the largest of ``check: {trials}`` and what
    each ``detect:`` needs; else ``default`` (``--trials``); else the scenario's own."""
    st = settings(scenario)
    kinds = {m.name: m for m in metrics_of(scenario)}
    chosen: list[tuple[int, str]] = []
    if st.trials is not None:
        chosen.append((st.trials, f"check.trials {st.trials:,}"))
    a = power.alpha_each(alpha, family)
    for name, shift in st.detect.items():
        m = kinds[name]
        if m.kind == "proportion":
            n = power.trials_for_proportion(shift, a)
        else:
            # Aim 5% below the target: the spread is a pilot's estimate, and the check states the
            # detectable effect from the baseline's own spread.
            n = power.trials_for_mean(0.95 * shift, a, _spread(scenario, name))
        chosen.append((n, f"detect {name} {shift:g} (80% power, alpha {a:.2g})"))
    if chosen:
        return max(chosen)
    if default is not None:
        return default, f"--trials {default:,}"
    return scenario.trials, f"the scenario's trials {scenario.trials:,}"


@dataclass
class GateRun:
    """One scenario run for the gate: each point's statistics and kept per-trial values."""

    scenario: Scenario
    settings: GateSettings
    points: list[tuple[dict[str, Any], PointOutcomes]]
    trials: int
    elapsed: float


def run(scenario: Scenario, trials: int, keep: bool = True, threads: int | None = None) -> GateRun:
    """Run every point of ``scenario`` on its seed; per-trial values of gated metrics if
    ``keep``."""
    t0 = time.perf_counter()
    st = settings(scenario)
    points = []
    for pt in scenario.points:
        plan = make_plan(scenario.procedure, pt.variants, scenario.seed)
        keep = keep and trials <= MAX_KEPT_TRIALS
        kept = tuple(i for i, m in enumerate(plan.metrics) if keep and st.is_gated(m.name))
        points.append((pt.values, run_point(plan, trials, kept, threads)))
    return GateRun(scenario, st, points, trials, time.perf_counter() - t0)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def entries_of(gr: GateRun) -> list[Entry]:
    out = []
    for values, po in gr.points:
        plan = po.plan
        for v, variant in enumerate(plan.variant_names):
            for m, metric in enumerate(plan.metrics):
                n, s, ss, _ = (int(x) for x in po.stats[v, 4 * m : 4 * m + 4])
                e = stats.estimate(metric.kind, n, s, ss, metric.scale)
                packed = None
                if m in po.kept:
                    packed = encode(po.values[v, po.kept.index(m)], metric.kind)
                out.append(
                    Entry(
                        variant=variant,
                        point=values,
                        metric=metric.name,
                        kind=metric.kind,
                        scale=metric.scale,
                        estimate=_finite(e["mean"]),
                        se=_finite(e["se"]),
                        n=n,
                        sum=s,
                        sum_sq=ss,
                        gated=gr.settings.is_gated(metric.name),
                        outcomes=packed,
                    )
                )
    return out


def make(
    scenarios: Sequence[Scenario],
    trials: int | None = None,
    threads: int | None = None,
    notify: Notify | None = None,
) -> BaselineFile:
    """Run ``scenarios`` and collect the baseline: each scenario at the trials
    :func:`choose_trials` gives (``trials`` is the default), per-trial outcomes of gated
    metrics kept."""
    names: dict[str, str] = {}
    for s in scenarios:
        if s.name in names:
            raise BaselineError(
                f"{s.path} and {names[s.name]} are both named {s.name!r}: the baseline is keyed "
                "by scenario name, so names must be unique"
            )
        names[s.name] = s.path
    vers = versions()
    out = BaselineFile(
        format="sim-baseline/2",
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        simulator=vers.get("simulator", "unknown"),
        versions=vers,
        scenarios={},
    )
    family = family_size(scenarios)
    for s in scenarios:
        n, why = choose_trials(s, trials, family)
        gr = run(s, n, keep=True, threads=threads)
        if notify is not None:
            notify(f"{s.name}: {n:,} trials ({why}), {gr.elapsed:.1f} s")
        out.scenarios[s.name] = ScenarioBaseline(
            file=s.path,
            procedure=s.procedure.name,
            seed=s.seed,
            trials=n,
            trials_from=why,
            inputs=inputs_of(s),
            entries=entries_of(gr),
            seconds=round(gr.elapsed, 3),
        )
    return out


def stored_values(entry: Entry, trials: int) -> np.ndarray | None:
    from simulator.gate.outcomes import decode

    return None if entry.outcomes is None else decode(entry.outcomes, trials)
