"""The balance regression gate: store a baseline of every metric, rerun, flag what moved.

``sim baseline`` runs scenarios and stores, per scenario, variant, sweep point and metric, the
estimate, its standard error, the trial count and the integer sums (count, sum, sum of squares) a
two-sample test needs, with the seed, trial count and package versions. ``sim check`` reruns the
scenarios with the stored seed (and trial count, unless overridden) and tests every metric against
its stored counts: proportions with the two-proportion z-test, other metrics with Welch's t-test
from the stored sums; p-values are Holm-corrected across ALL metrics checked together, at a
family-wise alpha (default 1e-4, so noise never fails a build). A metric also drifts when it moves
by more than the scenario's ``check: {metric: tolerance}``.

A rerun with the same seed and trial count is bit-identical, so only a genuine change of rule or
code moves a number. A baseline that is missing, unreadable, or written for another scenario
(other name, procedure, params, variants or sweep) raises :class:`BaselineError`: never a pass.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulator import stats
from simulator.runner import RunResult, run_scenario, versions
from simulator.scenario import Scenario

FORMAT = "sim-baseline/1"
DEFAULT_ALPHA = 1e-4


class BaselineError(Exception):
    """The baseline cannot be used for this check (missing, corrupt, or for something else)."""


class Entry(BaseModel):
    """One metric of one variant at one sweep point."""

    model_config = ConfigDict(extra="forbid")

    variant: str
    point: dict[str, Any] = Field(default_factory=dict)
    metric: str
    kind: str
    scale: int = Field(ge=1)
    estimate: float | None
    se: float | None
    n: int = Field(ge=0)
    sum: int
    sum_sq: int = Field(ge=0)


class ScenarioBaseline(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str
    procedure: str
    seed: int
    trials: int = Field(ge=1)
    #: The scenario's params, variants and sweep as written in the file: what the numbers are for.
    inputs: dict[str, Any]
    entries: list[Entry]


class BaselineFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str
    created: str
    simulator: str
    versions: dict[str, str]
    scenarios: dict[str, ScenarioBaseline]


def inputs_of(scenario: Scenario) -> dict[str, Any]:
    """What a scenario's numbers depend on besides code, seed and trials: params, variants and
    sweep exactly as written in the file (so a changed default in code is measured as drift)."""
    raw = scenario.raw
    return {
        "params": raw.get("params", {}),
        "variants": raw.get("variants", {}),
        "sweep": raw.get("sweep", {}),
    }


def _key(variant: str, point: dict[str, Any], metric: str) -> str:
    return json.dumps([variant, point, metric], sort_keys=True, default=str)


def entries_of(result: RunResult) -> list[Entry]:
    out = []
    for p in result.point_results():
        est = p.estimates.set_index(["variant", "metric"])
        for v, variant in enumerate(p.plan.variant_names):
            for m, metric in enumerate(p.plan.metrics):
                n, s, ss, _ = (int(x) for x in p.outcome.stats[v, 4 * m : 4 * m + 4])
                row = est.loc[(variant, metric.name)]
                out.append(
                    Entry(
                        variant=variant,
                        point=p.values,
                        metric=metric.name,
                        kind=metric.kind,
                        scale=metric.scale,
                        estimate=_finite(row["mean"]),
                        se=_finite(row["se"]),
                        n=n,
                        sum=s,
                        sum_sq=ss,
                    )
                )
    return out


def _finite(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def make(
    scenarios: Sequence[Scenario],
    trials: int | None = None,
    threads: int | None = None,
) -> BaselineFile:
    """Run ``scenarios`` (``trials`` overrides their files) and collect the baseline."""
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
        format=FORMAT,
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        simulator=vers.get("simulator", "unknown"),
        versions=vers,
        scenarios={},
    )
    for s in scenarios:
        result = run_scenario(s, trials=trials, threads=threads)
        if not result.complete:
            raise KeyboardInterrupt
        out.scenarios[s.name] = ScenarioBaseline(
            file=s.path,
            procedure=s.procedure.name,
            seed=s.seed,
            trials=result.outcome.trials,
            inputs=inputs_of(s),
            entries=entries_of(result),
        )
    return out


def write(baseline: BaselineFile, path: Path) -> None:
    from simulator.report import atomic_write

    text = json.dumps(baseline.model_dump(mode="json"), indent=1, sort_keys=False) + "\n"
    atomic_write(Path(path), lambda f: f.write(text))


def read(path: Path) -> BaselineFile:
    """Load and validate a baseline file; BaselineError says what is wrong and how to fix it."""
    path = Path(path)
    fix = "regenerate it with `make baseline` (sim baseline SCENARIO... --out FILE)"
    if not path.exists():
        raise BaselineError(f"{path}: no such baseline file; {fix}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: cannot be read ({e}); {fix}") from e
    except json.JSONDecodeError as e:
        raise BaselineError(
            f"{path}:{e.lineno}:{e.colno}: not valid JSON ({e.msg}): corrupt baseline; {fix}"
        ) from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise BaselineError(
            f"{path}: not a sim baseline (format {got!r}, expected {FORMAT!r}); {fix}"
        )
    try:
        return BaselineFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise BaselineError(f"{path}: corrupt baseline at {where}: {first['msg']}; {fix}") from e


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
    fix = "if the change is intended, regenerate the baseline with `make baseline`"
    entry = baseline.scenarios.get(scenario.name)
    if entry is None:
        known = ", ".join(sorted(baseline.scenarios)) or "none"
        raise BaselineError(
            f"{scenario.path}: no baseline for scenario {scenario.name!r} in {path} "
            f"(it has: {known}); {fix}"
        )
    if entry.procedure != scenario.procedure.name:
        raise BaselineError(
            f"{scenario.path}: the baseline in {path} was written for procedure "
            f"{entry.procedure!r}, the scenario runs {scenario.procedure.name!r}; {fix}"
        )
    changed = _differences(entry.inputs, inputs_of(scenario))
    if changed:
        raise BaselineError(
            f"{scenario.path}: the baseline in {path} was written for other inputs: "
            + "; ".join(changed[:10])
            + (f"; and {len(changed) - 10} more" if len(changed) > 10 else "")
            + f"; {fix}"
        )
    return entry


@dataclass
class CheckResult:
    """Every metric checked: before, after, difference, p-values, and whether it drifted."""

    table: pd.DataFrame
    alpha: float
    scenarios: list[Scenario]
    notes: list[str]

    @property
    def drifted(self) -> pd.DataFrame:
        return self.table[self.table["drifted"]]

    @property
    def ok(self) -> bool:
        return self.drifted.empty


def _test(before: Entry, after: Entry) -> tuple[float, str]:
    """Two-sample p-value of after vs before from the stored counts, and the test's name."""
    if before.n == 0 and after.n == 0:
        return 1.0, "never defined"
    if before.n < 2 or after.n < 2:
        return (1.0 if before.n == after.n and before.sum == after.sum else 0.0), "too few trials"
    if (before.n, before.sum, before.sum_sq) == (after.n, after.sum, after.sum_sq):
        return 1.0, "identical"
    kind = "proportion" if before.kind == "proportion" else "mean"
    _, _, _, p, test = stats.two_sample(
        kind, before.n, before.sum, before.sum_sq, after.n, after.sum, after.sum_sq, before.scale
    )
    return (1.0 if math.isnan(p) else p), test


def check(
    scenarios: Sequence[Scenario],
    baseline_path: Path,
    trials: int | None = None,
    alpha: float = DEFAULT_ALPHA,
    threads: int | None = None,
) -> CheckResult:
    """Rerun ``scenarios`` against the baseline at ``baseline_path`` and test every metric."""
    from statsmodels.stats.multitest import multipletests

    baseline = read(baseline_path)
    matched = [(s, match(s, baseline, baseline_path)) for s in scenarios]
    notes = []
    if baseline.simulator != versions().get("simulator"):
        notes.append(
            f"baseline written by simulator {baseline.simulator}, "
            f"checking with {versions().get('simulator')}"
        )
    rows = []
    for s, stored in matched:
        s.seed = stored.seed
        result = run_scenario(s, trials=trials or stored.trials, threads=threads)
        if not result.complete:
            raise KeyboardInterrupt
        now = {_key(e.variant, e.point, e.metric): e for e in entries_of(result)}
        old = {_key(e.variant, e.point, e.metric): e for e in stored.entries}
        missing = [k for k in old if k not in now]
        extra = [k for k in now if k not in old]
        if missing or extra:
            what = [f"not reported any more: {json.loads(k)}" for k in missing[:3]]
            what += [f"new: {json.loads(k)}" for k in extra[:3]]
            raise BaselineError(
                f"{s.path}: the metrics reported differ from the baseline in {baseline_path} ("
                + "; ".join(what)
                + "); if the change is intended, regenerate the baseline with `make baseline`"
            )
        tolerances = s.check
        for k, after in now.items():
            before = old[k]
            p, test = _test(before, after)
            b = before.estimate
            a = after.estimate
            diff = (a - b) if a is not None and b is not None else float("nan")
            tol = tolerances.get(after.metric)
            beyond = tol is not None and (math.isnan(diff) or abs(diff) > tol)
            rows.append(
                {
                    "scenario": s.name,
                    "file": s.path,
                    "variant": after.variant,
                    "point": ", ".join(f"{pk}={pv}" for pk, pv in after.point.items()),
                    "metric": after.metric,
                    "before": b,
                    "after": a,
                    "difference": diff,
                    "n_before": before.n,
                    "n_after": after.n,
                    "p_value": p,
                    "test": test,
                    "tolerance": tol,
                    "beyond_tolerance": beyond,
                    "defined_changed": (before.n == 0) != (after.n == 0),
                }
            )
    table = pd.DataFrame(rows)
    if table.empty:
        return CheckResult(table, alpha, list(scenarios), notes)
    reject, p_holm, _, _ = multipletests(table["p_value"].to_numpy(), alpha=alpha, method="holm")
    table["p_holm"] = p_holm
    table["significant"] = reject
    table["drifted"] = table["significant"] | table["beyond_tolerance"] | table["defined_changed"]
    return CheckResult(table, alpha, list(scenarios), notes)


# ---------------------------------------------------------------------------------------------
# Output for CI systems


def fmt_value(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def fmt_p(p: float) -> str:
    return "<1e-300" if p == 0 else (f"{p:.2e}" if p < 1e-3 else f"{p:.3f}")


def reasons(r: Any) -> str:
    reasons = []
    if r["significant"]:
        reasons.append("significant")
    if r["beyond_tolerance"]:
        reasons.append(f"beyond tolerance {r['tolerance']:g}")
    if r["defined_changed"]:
        reasons.append("defined in one run only")
    return ", ".join(reasons)


def point_label(r: Any) -> str:
    return " · ".join(x for x in (str(r["variant"]), str(r["point"])) if x)


def junit_xml(result: CheckResult) -> str:
    """JUnit XML: one test case per scenario, variant, point and metric; drift is a failure."""
    import xml.etree.ElementTree as ET

    table = result.table
    suites = ET.Element("testsuites", name="sim check")
    for scenario, group in table.groupby("scenario", sort=False) if not table.empty else []:
        failures = int(group["drifted"].sum())
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=str(scenario),
            tests=str(len(group)),
            failures=str(failures),
            errors="0",
            skipped="0",
        )
        for r in group.to_dict(orient="records"):
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"sim.check.{scenario}",
                name=f"{point_label(r)} · {r['metric']}",
                file=str(r["file"]),
            )
            if r["drifted"]:
                before, after = fmt_value(r["before"]), fmt_value(r["after"])
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=f"{r['metric']} moved {before} → {after} ({reasons(r)})",
                    type="BalanceDrift",
                )
                failure.text = (
                    f"before {before} (n={r['n_before']}), after {after} (n={r['n_after']}),"
                    f" difference {fmt_value(r['difference'])}, "
                    f"p={fmt_p(r['p_value'])} ({r['test']}), p (Holm)={fmt_p(r['p_holm'])}, "
                    f"family-wise alpha {result.alpha:g}"
                )
    suites.set("tests", str(len(table)))
    suites.set("failures", str(int(table["drifted"].sum()) if not table.empty else 0))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def markdown(result: CheckResult) -> str:
    """A markdown summary: verdict, then the table of what moved."""
    table = result.table
    n = len(table)
    scenarios = table["scenario"].nunique() if n else 0
    drifted = result.drifted
    lines = []
    if drifted.empty:
        lines.append(
            f"### sim check: no drift ✅\n\n{n} metrics in {scenarios} scenarios match the "
            f"baseline (Holm-corrected, family-wise α = {result.alpha:g})."
        )
    else:
        lines.append(
            f"### sim check: {len(drifted)} of {n} metrics drifted ❌\n\n"
            f"Scenarios checked: {scenarios}; Holm-corrected across all metrics, family-wise "
            f"α = {result.alpha:g}.\n"
        )
        lines.append(
            "| scenario | variant · point | metric | before | after | difference | p (Holm) | why |"
        )
        lines.append("|---|---|---|---:|---:|---:|---:|---|")
        for r in drifted.to_dict(orient="records"):
            lines.append(
                f"| {r['scenario']} | {point_label(r)} | `{r['metric']}` | "
                f"{fmt_value(r['before'])} | {fmt_value(r['after'])} | "
                f"{fmt_value(r['difference'])} | {fmt_p(r['p_holm'])} | {reasons(r)} |"
            )
    for note in result.notes:
        lines.append(f"\n_note: {note}_")
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(result: CheckResult) -> list[str]:
    """``::error`` workflow commands, one per drifted metric (GitHub Actions shows them)."""
    out = []
    for r in result.drifted.to_dict(orient="records"):
        title = _escape_property(f"balance drift: {r['scenario']}")
        message = (
            f"{point_label(r)} {r['metric']}: {fmt_value(r['before'])} → {fmt_value(r['after'])} "
            f"({fmt_value(r['difference'])}; p (Holm) {fmt_p(r['p_holm'])}; {reasons(r)})"
        )
        file = _escape_property(str(r["file"]))
        out.append(f"::error file={file},title={title}::{_escape_data(message)}")
    return out
