"""``sim check``: rerun scenarios and compare them with the baseline, paired where it can.

For each gated metric with stored per-trial outcomes and the same trials: identical outcomes
pass at once ("unchanged", no test statistic); otherwise McNemar's test (proportions) or the
paired t-test (means) on the stored and rerun outcomes, trial by trial. Metrics without stored
outcomes (not gated, or another trial count) get the two-sample tests from their counts.
p-values of gated metrics are Holm-corrected together, at a family-wise alpha (default 1e-4);
the other metrics are reported, never failing the gate. Every gated metric's detectable effect
(:mod:`simulator.gate.power`) is stated.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulator import stats
from simulator.accumulate import UNDEFINED
from simulator.gate import power
from simulator.gate.outcomes import OutcomeError, decode
from simulator.gate.run import (
    DEFAULT_ALPHA,
    Notify,
    choose_trials,
    entries_of,
    family_size,
    inputs_of,
    run,
)
from simulator.gate.store import (
    BaselineError,
    BaselineFile,
    Entry,
    ScenarioBaseline,
    key_of,
    read,
)
from simulator.runner import versions
from simulator.scenario import Scenario

FIX = (
    "if the change is intended, regenerate this scenario's entries with "
    "`sim baseline SCENARIO --out BASELINE` (the other scenarios' entries are kept; "
    "`make baseline` regenerates them all)"
)


def _differences(before: Any, after: Any, prefix: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for k in list(dict.fromkeys([*before, *after])):
            path = f"{prefix}.{k}" if prefix else str(k)
            if k not in before:
                out.append(f"{path}: added ({json.dumps(after[k])})")
            elif k not in after:
                out.append(f"{path}: removed (was {json.dumps(before[k])})")
            else:
                out += _differences(before[k], after[k], path)
        return out
    if before != after:
        return [f"{prefix}: {json.dumps(before)} → {json.dumps(after)}"]
    return []


def match(scenario: Scenario, baseline: BaselineFile, path: Path) -> ScenarioBaseline:
    """The baseline of ``scenario``; BaselineError if there is none or it is for something else."""
    entry = baseline.scenarios.get(scenario.name)
    if entry is None:
        known = ", ".join(sorted(baseline.scenarios)) or "none"
        raise BaselineError(
            f"{scenario.path}: no baseline for scenario {scenario.name!r} in {path} "
            f"(it has: {known}); {FIX}"
        )
    if entry.procedure != scenario.procedure.name:
        raise BaselineError(
            f"{scenario.path}: the baseline in {path} was written for procedure "
            f"{entry.procedure!r}, the scenario runs {scenario.procedure.name!r}; {FIX}"
        )
    changed = _differences(entry.inputs, inputs_of(scenario))
    if changed:
        raise BaselineError(
            f"{scenario.path}: the baseline in {path} was written for other inputs: "
            + "; ".join(changed[:10])
            + (f"; and {len(changed) - 10} more" if len(changed) > 10 else "")
            + f"; {FIX}"
        )
    return entry


def _agrees(scenario: Scenario, stored: ScenarioBaseline, path: Path) -> None:
    """Refuse, before the rerun, a baseline whose own fields contradict the scenario: another
    seed (the rerun would replay other trials), or metrics that are not the ones the scenario
    reports, or reported as another kind or scale (the tests and detectable effects would be
    the wrong ones).

    Raises:
        BaselineError: naming the field, both values and the fix.
    """
    from simulator.engine import make_plan

    where = f"{scenario.path}: the baseline in {path}"
    if stored.seed != scenario.seed:
        raise BaselineError(
            f"{where} has seed {stored.seed}, the scenario {scenario.seed}: it holds other "
            f"trials; {FIX}"
        )
    expected: dict[str, tuple[str, int]] = {}
    for pt in scenario.points:
        plan = make_plan(scenario.procedure, pt.variants, scenario.seed)
        for variant in plan.variant_names:
            for metric in plan.metrics:
                expected[key_of(variant, pt.values, metric.name)] = (metric.kind, metric.scale)
    old = {e.key(): e for e in stored.entries}
    missing = [k for k in old if k not in expected]
    extra = [k for k in expected if k not in old]
    if missing or extra:
        what = [f"not reported any more: {json.loads(k)}" for k in missing[:3]]
        what += [f"new: {json.loads(k)}" for k in extra[:3]]
        raise BaselineError(
            f"{scenario.path}: the metrics reported differ from the baseline in {path} "
            f"({'; '.join(what)}); {FIX}"
        )
    for k, (kind, scale) in expected.items():
        e = old[k]
        if (e.kind, e.scale) != (kind, scale):
            raise BaselineError(
                f"{where} stores {e.metric} ({e.variant}) as a {e.kind} of scale {e.scale}; "
                f"the scenario reports a {kind} of scale {scale}; {FIX}"
            )


@dataclass
class CheckResult:
    """Every metric checked: before, after, difference, test, detectable effect, verdict."""

    table: pd.DataFrame
    alpha: float
    scenarios: list[Scenario]
    notes: list[str]
    #: Per scenario: trials run, why, and seconds taken.
    runs: list[dict[str, Any]]

    @property
    def drifted(self) -> pd.DataFrame:
        return self.table[self.table["drifted"]] if not self.table.empty else self.table

    @property
    def gated(self) -> pd.DataFrame:
        return self.table[self.table["gated"]] if not self.table.empty else self.table

    @property
    def ok(self) -> bool:
        return self.drifted.empty

    def changed(self) -> pd.DataFrame:
        """Gated metrics whose outcomes changed but did not drift."""
        g = self.gated
        return g[(g["status"] == "changed")] if not g.empty else g


def _sd(e: Entry) -> float:
    if e.n < 2:
        return 0.0
    return math.sqrt(max(e.n * e.sum_sq - e.sum * e.sum, 0) / (e.n * (e.n - 1))) / e.scale


def _two_sample(before: Entry, after: Entry) -> tuple[float, float, float, float, str]:
    """Difference, interval, p-value and test from the counts of independent samples."""
    b = before.estimate
    a = after.estimate
    diff = (a - b) if a is not None and b is not None else math.nan
    if before.n == 0 and after.n == 0:
        return diff, math.nan, math.nan, 1.0, "never defined"
    if before.n < 2 or after.n < 2:
        same = before.n == after.n and before.sum == after.sum
        return diff, math.nan, math.nan, (1.0 if same else 0.0), "too few trials"
    if (before.n, before.sum, before.sum_sq) == (after.n, after.sum, after.sum_sq):
        return 0.0, 0.0, 0.0, 1.0, "identical counts"
    kind = "proportion" if before.kind == "proportion" else "mean"
    d, lo, hi, p, test = stats.two_sample(
        kind, before.n, before.sum, before.sum_sq, after.n, after.sum, after.sum_sq, before.scale
    )
    return d, lo, hi, (1.0 if math.isnan(p) else p), test


def _paired(
    before: Entry, old: np.ndarray, new: np.ndarray, after: Entry
) -> tuple[float, float, float, float, str, float]:
    """Paired comparison on the same trials: diff, lo, hi, p, test and variance of the per-trial
    differences (in metric units)."""
    n = len(old)
    x0, x1 = old.astype(np.float64), new.astype(np.float64)
    d = (x1 - x0) / before.scale
    var_d = float(d.var(ddof=1)) if n > 1 else 0.0
    cross = (
        int(np.dot(old, new))
        if np.abs(old).max(initial=0) < 2**20
        else int(np.dot(old.astype(object), new.astype(object)))
    )
    diff, lo, hi, p, test = stats._paired(
        before.kind, n, before.sum, before.sum_sq, after.sum, after.sum_sq, cross, before.scale
    )
    return diff, lo, hi, (1.0 if math.isnan(p) else p), test, var_d


def _scenario_trials(
    s: Scenario, stored: ScenarioBaseline, trials: int | None, family: int
) -> tuple[int, str]:
    """Trials of the rerun: the baseline's when the scenario's ``check:`` chose them (so the
    trials pair up), else ``--trials``, else the baseline's."""
    n, why = choose_trials(s, None, family)
    if why.startswith(("check.trials", "detect")):
        if stored.trials != n:
            why += f"; {stored.trials:,} as stored in the baseline"
        return stored.trials, why
    if trials is not None:
        return trials, f"--trials {trials:,}"
    return stored.trials, f"the baseline's {stored.trials:,}"


def expected_seconds(stored: ScenarioBaseline, trials: int) -> float | None:
    """How long a scenario's rerun at ``trials`` should take, from the seconds its baseline run
    took (scaled by the trials); None when the baseline did not record them."""
    if stored.seconds is None:
        return None
    return stored.seconds * trials / stored.trials


def check(
    scenarios: Sequence[Scenario],
    baseline_path: Path,
    trials: int | None = None,
    alpha: float = DEFAULT_ALPHA,
    threads: int | None = None,
    notify: Notify | None = None,
) -> CheckResult:
    """Rerun ``scenarios`` against the baseline at ``baseline_path`` and test every metric."""
    from statsmodels.stats.multitest import multipletests

    baseline = read(baseline_path)
    matched = [(s, match(s, baseline, baseline_path)) for s in scenarios]
    for s, stored in matched:  # before any trial is run
        _agrees(s, stored, baseline_path)
    notes = []
    if baseline.simulator != versions().get("simulator"):
        notes.append(
            f"baseline written by simulator {baseline.simulator}, "
            f"checking with {versions().get('simulator')}"
        )
    family = family_size(scenarios)
    a_each = power.alpha_each(alpha, family)
    planned = []
    for s, stored in matched:
        s.seed = stored.seed  # before the trials are chosen: a detect pilot runs at this seed
        planned.append((s, stored, *_scenario_trials(s, stored, trials, family)))
    expect = getattr(notify, "expect", None)
    if expect is not None:  # each scenario's share of the time, from the baseline's own run
        expect([expected_seconds(stored, n) for _, stored, n, _ in planned])
    rows = []
    runs = []
    for s, stored, n, why in planned:
        paired = n == stored.trials
        if not paired:
            notes.append(
                f"{s.name}: {n:,} trials against the baseline's {stored.trials:,}: paired tests "
                "need the same trials, so two-sample tests are used"
            )
        gr = run(s, n, keep=paired, threads=threads)
        runs.append({"scenario": s.name, "trials": n, "why": why, "seconds": gr.elapsed})
        if notify is not None:
            notify(f"{s.name}: {n:,} trials ({why}), {gr.elapsed:.1f} s")
        now_entries = entries_of(gr)
        values = {}
        for pv, po in gr.points:
            for v, variant in enumerate(po.plan.variant_names):
                for j, m in enumerate(po.kept):
                    values[key_of(variant, pv, po.plan.metrics[m].name)] = po.values[v, j]
        now = {e.key(): e for e in now_entries}
        old = {e.key(): e for e in stored.entries}
        missing = [k for k in old if k not in now]
        extra = [k for k in now if k not in old]
        if missing or extra:
            what = [f"not reported any more: {json.loads(k)}" for k in missing[:3]]
            what += [f"new: {json.loads(k)}" for k in extra[:3]]
            raise BaselineError(
                f"{s.path}: the metrics reported differ from the baseline in {baseline_path} ("
                + "; ".join(what)
                + f"); {FIX}"
            )
        st = gr.settings
        for k, after in now.items():
            before = old[k]
            rows.append(_row(s, stored, before, after, values.get(k), st, n, a_each))
    table = pd.DataFrame(rows)
    if table.empty:
        return CheckResult(table, alpha, list(scenarios), notes, runs)
    table["p_holm"] = math.nan
    table["significant"] = False
    g = table["gated"].to_numpy()
    if g.any():
        reject, p_holm, _, _ = multipletests(
            table.loc[g, "p_value"].fillna(1.0).to_numpy(), alpha=alpha, method="holm"
        )
        table.loc[g, "p_holm"] = p_holm
        table.loc[g, "significant"] = reject
    table["drifted"] = table["gated"] & (
        table["significant"] | table["beyond_tolerance"] | table["defined_changed"]
    )
    table.loc[table["drifted"], "status"] = "drift"
    return CheckResult(table, alpha, list(scenarios), notes, runs)


def _row(
    s: Scenario,
    stored: ScenarioBaseline,
    before: Entry,
    after: Entry,
    new: np.ndarray | None,
    st: Any,
    n: int,
    a_each: float,
) -> dict[str, Any]:
    gated = st.is_gated(after.metric)
    changed_trials: int | None = None
    var_d = 0.0
    if new is not None and before.outcomes is not None:
        try:
            old = decode(before.outcomes, stored.trials)
        except OutcomeError as e:  # validated on read; kept for a file changed since
            raise BaselineError(f"{s.name} {before.metric}: {e}") from e
        changed_trials = int((old != new).sum())
        undefined = (old == UNDEFINED).any() or (new == UNDEFINED).any()
        two_sample = before.kind == "conditional_mean" or bool(undefined)
        if changed_trials == 0:
            diff, lo, hi, p, test = 0.0, 0.0, 0.0, math.nan, "unchanged"
        elif two_sample:
            diff, lo, hi, p, test = _two_sample(before, after)
        else:
            diff, lo, hi, p, test, var_d = _paired(before, old, new, after)
        if two_sample:
            detect = power.detectable_two_sample(n, a_each, _sd(before))
        elif before.kind == "proportion":
            detect = power.detectable_proportion(n, a_each, changed_trials / n)
        else:
            jump = max(_sd(before), 1 / before.scale)
            detect = power.detectable_mean(n, a_each, jump, var_d)
    else:
        diff, lo, hi, p, test = _two_sample(before, after)
        sd = (
            _sd(before)
            if before.kind != "proportion"
            else math.sqrt(
                max((before.estimate or 0) * (1 - (before.estimate or 0)), 1 / max(before.n, 1))
            )
        )
        detect = power.detectable_two_sample(n, a_each, sd) if gated else math.nan
    tol = st.tolerance.get(after.metric)
    beyond = tol is not None and (math.isnan(diff) or abs(diff) > tol)
    status = "unchanged" if test in ("unchanged", "identical counts") else "changed"
    return {
        "scenario": s.name,
        "file": s.path,
        "variant": after.variant,
        "point": ", ".join(f"{pk}={pv}" for pk, pv in after.point.items()),
        "metric": after.metric,
        "kind": after.kind,
        "gated": gated,
        "before": before.estimate,
        "after": after.estimate,
        "difference": diff,
        "ci_low": lo,
        "ci_high": hi,
        "n_before": before.n,
        "n_after": after.n,
        "p_value": p,
        "test": test,
        "changed_trials": changed_trials,
        "changed_share": (changed_trials / n) if changed_trials is not None else math.nan,
        "detectable": detect,
        "tolerance": tol,
        "beyond_tolerance": beyond,
        "defined_changed": (before.n == 0) != (after.n == 0),
        "status": status,
    }
