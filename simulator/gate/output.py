"""The gate's verdict for people and CI systems: terminal, JUnit XML, Markdown, annotations.

Every gated metric appears with its status (unchanged · changed · drift), its paired difference
and interval where it changed, the share of trials that changed, and its detectable effect.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from simulator.gate.compare import CheckResult


def fmt_value(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def fmt_p(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "—"
    return "<1e-300" if p == 0 else (f"{p:.2e}" if p < 1e-3 else f"{p:.3f}")


def fmt_detect(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return "∞" if math.isinf(x) else f"{x:.2g}"


def _p_holm(r: Any) -> str:
    # Unchanged outcomes pass without a test: no p-value to show.
    return "—" if r["status"] == "unchanged" else fmt_p(r["p_holm"])


def reasons(r: Any) -> str:
    out = []
    if r["significant"]:
        out.append("significant")
    if r["beyond_tolerance"]:
        out.append(f"beyond tolerance {r['tolerance']:g}")
    if r["defined_changed"]:
        out.append("defined in one run only")
    return ", ".join(out)


def point_label(r: Any) -> str:
    return " · ".join(x for x in (str(r["variant"]), str(r["point"])) if x)


def changed_label(r: Any) -> str:
    c = r.get("changed_trials")
    if c is None or (isinstance(c, float) and math.isnan(c)):
        return "—"
    return f"{int(c):,} ({r['changed_share']:.2%})"


def difference_label(r: Any) -> str:
    if r["status"] == "unchanged":
        return "0"
    d = fmt_value(r["difference"])
    lo, hi = r["ci_low"], r["ci_high"]
    if isinstance(lo, float) and not math.isnan(lo):
        d += f" [{lo:.4f}, {hi:.4f}]"
    return d


def verdict(result: CheckResult) -> str:
    """One line: what happened, in words."""
    g = result.gated
    n, n_all = len(g), len(result.table)
    scen = result.table["scenario"].nunique() if n_all else 0
    family = f"Holm over {n} gated metrics, family-wise alpha {result.alpha:g}"
    if not result.ok:
        return f"drift: {len(result.drifted)} of {n} gated metrics in {scen} scenario(s) ({family})"
    changed = result.changed()
    if changed.empty:
        return (
            f"unchanged: {n} gated metrics in {scen} scenario(s) reproduce the baseline trial for "
            f"trial ({n_all - n} more metrics reported, not gated)"
        )
    trials = int(changed["changed_trials"].fillna(0).max())
    return (
        f"pass with notice: outputs changed in {len(changed)} gated metric(s) (up to {trials:,} "
        f"trials each) but no metric drifted beyond its detectable effect ({family})"
    )


def notices(result: CheckResult) -> list[str]:
    """One line per changed-but-not-drifted gated metric."""
    out = []
    for r in result.changed().to_dict(orient="records"):
        out.append(
            f"{r['scenario']} {point_label(r)} {r['metric']}: {changed_label(r)} trials changed, "
            f"difference {difference_label(r)} ({r['test']}, p {fmt_p(r['p_value'])}); "
            f"detectable {fmt_detect(r['detectable'])}"
        )
    return out


def scenario_table(result: CheckResult) -> Any:
    """The terminal's first view: one row per scenario, its gated metrics counted by status and
    the smallest and largest effect the rerun could detect (every metric is in check.md and the
    JUnit report; the terminal lists one by one only those whose outcomes moved)."""
    from rich.table import Table

    table = Table(title=verdict(result), title_justify="left")
    for col in ("scenario", "gated", "unchanged", "changed", "drift", "detectable (min–max)"):
        table.add_column(col, justify="left" if col == "scenario" else "right")
    g = result.gated
    for scenario, group in g.groupby("scenario", sort=False) if not g.empty else []:
        status = group["status"].value_counts()
        finite = group["detectable"].replace([math.inf], math.nan).dropna()
        span = f"{fmt_detect(finite.min())}–{fmt_detect(finite.max())}" if not finite.empty else "—"
        table.add_row(
            str(scenario),
            str(len(group)),
            str(int(status.get("unchanged", 0))),
            str(int(status.get("changed", 0))),
            str(int(status.get("drift", 0))),
            span,
        )
    return table


def moved_rows(result: CheckResult) -> pd.DataFrame:
    """Gated metrics whose outcomes changed (drifted or not), in the order of the run."""
    g = result.gated
    return g[g["status"] != "unchanged"] if not g.empty else g


def moved_table(rows: pd.DataFrame) -> Any:
    """One row per moved gated metric (``rows`` from :func:`moved_rows`): the values, the paired
    difference, the trials changed, the test and why it drifted."""
    from rich.table import Table

    table = Table(title="gated metrics whose outcomes moved", title_justify="left")
    for col in ("scenario", "variant · point", "metric", "status", "before", "after"):
        table.add_column(col, justify="right" if col in ("before", "after") else "left")
    for col in ("difference [95% CI]", "trials changed", "p (Holm)", "detectable"):
        table.add_column(col, justify="right")
    table.add_column("why")
    for r in rows.to_dict(orient="records"):
        table.add_row(
            str(r["scenario"]),
            point_label(r),
            str(r["metric"]),
            str(r["status"]),
            fmt_value(r["before"]),
            fmt_value(r["after"]),
            difference_label(r),
            changed_label(r),
            _p_holm(r),
            fmt_detect(r["detectable"]),
            reasons(r) or str(r["test"]),
        )
    return table


def junit_xml(result: CheckResult) -> str:
    """JUnit XML: one test case per gated metric (drift is a failure, its detectable effect in
    the case's properties), reported metrics as passing cases."""
    import xml.etree.ElementTree as ET

    table = result.table
    suites = ET.Element("testsuites", name="sim check")
    for scenario, group in table.groupby("scenario", sort=False) if not table.empty else []:
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=str(scenario),
            tests=str(len(group)),
            failures=str(int(group["drifted"].sum())),
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
            props = ET.SubElement(case, "properties")
            for k, v in (
                ("gated", str(bool(r["gated"])).lower()),
                ("status", r["status"]),
                ("test", r["test"]),
                ("detectable", fmt_detect(r["detectable"])),
                ("trials_changed", changed_label(r)),
            ):
                ET.SubElement(props, "property", name=k, value=str(v))
            if r["drifted"]:
                before, after = fmt_value(r["before"]), fmt_value(r["after"])
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=f"{r['metric']} moved {before} → {after} ({reasons(r)})",
                    type="BalanceDrift",
                )
                failure.text = (
                    f"before {before} (n={r['n_before']}), after {after} (n={r['n_after']}), "
                    f"difference {difference_label(r)}, trials changed {changed_label(r)}, "
                    f"p={fmt_p(r['p_value'])} ({r['test']}), p (Holm)={fmt_p(r['p_holm'])}, "
                    f"family-wise alpha {result.alpha:g}; detectable effect "
                    f"{fmt_detect(r['detectable'])}"
                )
            elif r["status"] == "changed" and r["gated"]:
                out = ET.SubElement(case, "system-out")
                out.text = f"outputs changed: {changed_label(r)} trials; no drift"
    suites.set("tests", str(len(table)))
    suites.set("failures", str(int(table["drifted"].sum()) if not table.empty else 0))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def _md_rows(rows: pd.DataFrame) -> list[str]:
    lines = [
        "| scenario | variant · point | metric | status | before | after | difference [95% CI] "
        "| trials changed | p (Holm) | detectable |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows.to_dict(orient="records"):
        lines.append(
            f"| {r['scenario']} | {point_label(r)} | `{r['metric']}` | {r['status']} | "
            f"{fmt_value(r['before'])} | {fmt_value(r['after'])} | {difference_label(r)} | "
            f"{changed_label(r)} | {_p_holm(r)} | {fmt_detect(r['detectable'])} |"
        )
    return lines


def markdown(result: CheckResult) -> str:
    """Verdict, notices, the drifted metrics, then every gated metric with its detectable
    effect (folded)."""
    mark = "❌" if not result.ok else ("✅" if result.changed().empty else "⚠️")
    lines = [f"### sim check: {verdict(result)} {mark}", ""]
    if not result.ok:
        lines += ["Drifted:", "", *_md_rows(result.drifted), ""]
    for n in notices(result):
        lines.append(f"- notice: {n}")
    for run in result.runs:
        lines.append(
            f"- {run['scenario']}: {run['trials']:,} trials ({run['why']}), {run['seconds']:.1f} s"
        )
    lines += [
        "",
        "<details><summary>Every gated metric, with the smallest shift caught with 80% power"
        "</summary>",
        "",
        *_md_rows(result.gated),
        "",
        "</details>",
    ]
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
            f"(difference {difference_label(r)}; trials changed {changed_label(r)}; "
            f"p (Holm) {fmt_p(r['p_holm'])}; {reasons(r)})"
        )
        file = _escape_property(str(r["file"]))
        out.append(f"::error file={file},title={title}::{_escape_data(message)}")
    return out
