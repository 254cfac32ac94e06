"""report.html: one self-contained page per run, to open in any browser or send to a colleague.

Everything is inside the file: CSS inline, plots as base64 ``data:`` URIs, no script, and a
Content-Security-Policy that forbids loading anything from anywhere else. It shows the scenario,
its parameters (what each variant changes highlighted), seed and versions, the estimates, the
variant differences (significant ones highlighted), the sweep grids and the plots.
"""

from __future__ import annotations

import base64
import html
import json
import math
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from simulator.report.figures import FOREST, SEATS, SUMMARY_PLOTS
from simulator.report.format import legend, seat_cells, seat_header, table_cells, table_header
from simulator.report.grounds import flatten
from simulator.report.model import Report
from simulator.runner import RunResult, versions
from simulator.yaml_loader import printable

#: Rows of the long sweep table shown in the page (all rows are in summary.csv).
MAX_LONG_ROWS = 3000

CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#d9dde5; --head:#f2f4f8; --sig:#fff1c2;
        --sigline:#e0a800; --changed:#e3f0ff; --bad:#b00020; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px;
     border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
p.lead { color: var(--muted); margin: 0 0 12px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 9px; text-align: right; white-space: nowrap; }
th { background: var(--head); font-weight: 600; }
td.l, th.l { text-align: left; }
td.wrap { white-space: normal; min-width: 320px; }
td.note { white-space: normal; min-width: 120px; max-width: 200px; }
tr.sig td { background: var(--sig); }
tr.sig td:first-child { border-left: 4px solid var(--sigline); }
td.changed { background: var(--changed); font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
         font-weight: 600; background: var(--head); border: 1px solid var(--line); }
.badge.sig { background: var(--sig); border-color: var(--sigline); }
.badge.bad { color: #fff; background: var(--bad); border-color: var(--bad); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; }
figure { margin: 12px 0 20px; } figure img { max-width: 100%; height: auto;
         border: 1px solid var(--line); } figcaption { color: var(--muted); font-size: 13px; }
td.cell { color: #000; min-width: 48px; text-align: center; }
details summary { cursor: pointer; color: var(--muted); margin: 6px 0; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
code { font-size: 13px; }
div.scroll { overflow-x: auto; max-width: 100%; }
"""

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _e(x: Any) -> str:
    # Control characters from the input are shown escaped (\x1b), never passed to the page.
    return html.escape(printable(str(x), keep="\n\t"), quote=True)


def _num(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def _p(p: float) -> str:
    return "&lt;1e-300" if p == 0 else (f"{p:.2e}" if p < 1e-3 else f"{p:.3f}")


def _table(
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    left: int = 1,
    row_classes: Iterable[str] | None = None,
    table_id: str = "",
) -> str:
    """An HTML table; cells are already-escaped HTML; the first ``left`` columns align left."""
    ident = f' id="{_e(table_id)}"' if table_id else ""
    out = [f'<div class="scroll"><table{ident}><thead><tr>']
    out += [f'<th class="{"l" if i < left else ""}">{h}</th>' for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    classes = iter(row_classes) if row_classes is not None else None
    for row in rows:
        cls = next(classes, "") if classes is not None else ""
        out.append(f'<tr class="{cls}">' if cls else "<tr>")
        for i, cell in enumerate(row):
            if isinstance(cell, tuple):  # (html, class) or (html, class, style)
                style = f' style="{cell[2]}"' if len(cell) > 2 else ""
                out.append(f'<td class="{cell[1]}"{style}>{cell[0]}</td>')
            else:
                out.append(f'<td class="{"l" if i < left else ""}">{cell}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _value(x: Any) -> str:
    return json.dumps(x) if not isinstance(x, str) else x


def _params_section(result: RunResult) -> str:
    params = {k: flatten(v) for k, v in result.scenario.variant_dicts().items()}
    names = list(params)
    base = params[names[0]]
    swept = set(result.scenario.sweep)
    keys = list(dict.fromkeys(k for p in params.values() for k in p))
    rows = []
    for k in keys:
        cells: list[Any] = [f"<code>{_e(k)}</code>"]
        for n in names:
            v = params[n].get(k)
            text = "swept" if k in swept else _e(_value(v))
            changed = n != names[0] and v != base.get(k) and k not in swept
            cells.append((text, "l changed") if changed else (text, "l"))
        rows.append(cells)
    header = ["parameter", *_reference(names)]
    note = (
        "<p class='lead'>Cells a variant changes are highlighted. Swept parameters are listed "
        "under Sweep.</p>"
        if len(names) > 1 or swept
        else ""
    )
    return "<h2>Parameters</h2>" + note + _table(header, rows, left=len(names) + 1)


def _short(x: Any) -> str:
    """A number to four significant digits (the estimates table fits a 1400 px page)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.4g}"


def _reference(names: Sequence[str]) -> list[str]:
    """Column heads for the variants: the first is what the others are compared with."""
    return [
        f"{_e(n)} (reference)" if i == 0 and len(names) > 1 else _e(n) for i, n in enumerate(names)
    ]


def _estimates_section(result: RunResult) -> str:
    est = result.estimates
    variants = list(result.plan.variant_names)
    header = ["metric", "kind", *_reference(variants), "trials"]
    rows, zero = [], []
    for m in result.plan.metrics:
        found = [est[(est["variant"] == v) & (est["metric"] == m.name)].iloc[0] for v in variants]
        if all(r["mean"] == 0 and r["ci_high"] == 0 for r in found):
            zero.append(m.name)
            continue
        cells = [f"<code>{_e(m.name)}</code>", _e(m.kind)]
        for r in found:
            interval = f"[{_short(r['ci_low'])}, {_short(r['ci_high'])}]"
            cells.append(f"{_short(r['mean'])} <small>{interval}</small>")
        cells.append(f"{max(int(r['n']) for r in found):,}")
        rows.append(cells)
    note = (
        f"<p class='lead'>Zero in every variant and trial, not listed: {_e(', '.join(zero))}.</p>"
        if zero
        else ""
    )
    return (
        "<h2>Estimates</h2><p class='lead'>Each estimate with its 95% interval.</p>"
        + _table(header, rows, left=2, table_id="estimates")
        + note
    )


def _tie_cell(tie: Any) -> str:
    """The "tie" cell of a difference: equivalent within its margin, or what it could miss."""
    if tie is None or tie.verdict == "different":
        return ""
    if tie.verdict == "equivalent":
        return f"equivalent within ±{tie.margin:.3g}"
    if tie.verdict == "identical":
        return "identical on every deal"
    return f"cannot tell (below {tie.detectable:.3g} unseen)"


def _comparisons_section(
    comparisons: pd.DataFrame, independent: bool, title: str, ties: Any = None
) -> str:
    if comparisons.empty:
        return ""
    kind = "independent streams" if independent else "paired, shared random streams"
    n_sig = int(comparisons["significant"].sum())
    badge = (
        f'<span class="badge sig">{n_sig} significant</span>'
        if n_sig
        else '<span class="badge">none significant</span>'
    )
    rows, classes, same = [], [], []
    for r in comparisons.itertuples():
        if r.difference == 0 and r.ci_low == 0 and r.ci_high == 0:
            same.append(f"{r.metric} ({r.variant})")
            continue
        adjusted = f"[{r.adj_low:+.4f}, {r.adj_high:+.4f}]" if hasattr(r, "adj_low") else "—"
        rows.append(
            [
                _e(r.variant),
                f"<code>{_e(r.metric)}</code>",
                f"{r.difference:+.4f}",
                f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]",
                adjusted,
                _p(float(r.p_holm)),
                _e(r.test),
                "yes" if r.significant else "",
                _e(_tie_cell((ties or {}).get(r.variant, {}).get(r.metric))),
            ]
        )
        classes.append("sig" if r.significant else "")
    baseline = _e(comparisons["baseline"].iloc[0])
    identical = (
        f"<p class='lead'>The same in every trial under every variant, not listed: "
        f"{len(same)} differences ({_e(', '.join(same[:12]))}"
        + (", ..." if len(same) > 12 else "")
        + ").</p>"
        if same
        else ""
    )
    return (
        f"<h2>{title} {badge}</h2><p class='lead'>Each variant minus <b>{baseline}</b> ({kind}); "
        "p-values Holm-corrected across metrics; a difference is significant at 5% (highlighted) "
        "exactly when its Holm-adjusted interval excludes 0. Tie: a difference that is not "
        "significant is <i>equivalent within ±m</i> when its 90% interval (at its Holm step) lies "
        "inside the margin m (two one-sided tests; the scenario's <code>equivalence:</code>, by "
        "default 1 pp for proportions and 0.1 standard deviations for means), else the run "
        "cannot tell, and a difference below the size shown would go unseen (80% power).</p>"
        + _table(
            [
                "variant",
                "metric",
                "difference",
                "95% interval",
                "Holm-adjusted interval",
                "p (Holm)",
                "test",
                "significant",
                "tie",
            ],
            rows,
            left=2,
            row_classes=classes,
            table_id="comparisons",
        )
        + identical
    )


def _distributions_section(result: RunResult) -> str:
    dist = result.distributions
    if dist.empty:
        return ""
    variants = list(result.plan.variant_names)
    parts = ["<h2>Distributions</h2>"]
    for metric in dict.fromkeys(dist["metric"]):
        d = dist[dist["metric"] == metric]
        values = sorted(set(d["value"]))
        rows = []
        for value in values:
            cells = [str(value)]
            for v in variants:
                row = d[(d["variant"] == v) & (d["value"] == value)]
                cells.append(_num(float(row["probability"].iloc[0])) if not row.empty else "—")
            rows.append(cells)
        parts.append(f"<h3><code>{_e(metric)}</code></h3>")
        parts.append(_table(["value", *(_e(v) for v in variants)], rows))
    return "<details><summary>distribution tables</summary>" + "".join(parts) + "</details>"


def _cell_colour(value: float, kind: str, lo: float, hi: float) -> str:
    """Background of a grid cell: blue (low) → white → red (high), light enough to read."""
    if not math.isfinite(value):
        return "#ffffff"
    t = value if kind == "proportion" else (0.5 if hi <= lo else (value - lo) / (hi - lo))
    t = min(max(t, 0.0), 1.0)
    r: float
    g: float
    b: float
    if t < 0.5:
        k = t / 0.5
        r, g, b = 120 + 135 * k, 170 + 85 * k, 255
    else:
        k = (t - 0.5) / 0.5
        r, g, b = 255, 255 - 125 * k, 255 - 135 * k
    return f"#{int(r):02x}{int(g):02x}{int(b):02x}"


def _sweep_section(result: RunResult) -> str:
    from simulator.report import sweep

    axes = result.scenario.sweep
    parts = ["<h2>Sweep</h2>"]
    n_points = len(result.scenario.points)
    ran = len(result.points)
    parts.append(
        f"<p class='lead'>{n_points:,} points ({' × '.join(str(len(v)) for v in axes.values())})"
        f", every point on the same seed (shared random streams across points)"
        + (f"; <b>only {ran:,} ran</b> (interrupted)" if ran < n_points else "")
        + ".</p>"
    )
    parts.append(
        _table(
            ["swept parameter", "values"],
            [
                [f"<code>{_e(p)}</code>", _e(", ".join(_value(v) for v in vs))]
                for p, vs in axes.items()
            ],
            left=2,
        )
    )
    metrics = sweep.headline_metrics(result)
    variants = list(result.plan.variant_names)
    kinds = {m.name: m.kind for m in result.plan.metrics}
    if len(axes) == 2:
        (ypath, _), (xpath, _) = list(axes.items())
        for metric in metrics:
            for v in variants:
                g = sweep.grid(result, metric, v)
                finite = g.to_numpy(dtype=float)
                finite = finite[pd.notna(finite)]
                lo = float(finite.min()) if finite.size else 0.0
                hi = float(finite.max()) if finite.size else 1.0
                rows = []
                for label, row in g.iterrows():
                    cells: list[Any] = [f"<b>{_e(label)}</b>"]
                    for x in row:
                        colour = _cell_colour(float(x), kinds[metric], lo, hi)
                        text = sweep.fmt_estimate(float(x), kinds[metric], len(g.columns) > 12)
                        cells.append((text, "cell", f"background:{colour}"))
                    rows.append(cells)
                title = f"<code>{_e(metric)}</code>" + (f" · {_e(v)}" if len(variants) > 1 else "")
                parts.append(
                    f"<h3>{title}</h3><p class='lead'>rows: <code>{_e(ypath)}</code>, columns: "
                    f"<code>{_e(xpath)}</code></p>"
                )
                parts.append(
                    _table(
                        [f"{_e(ypath)} \\ {_e(xpath)}", *(_e(c) for c in g.columns)],
                        rows,
                        table_id=f"grid-{metric}-{v}",
                    )
                )
    df = sweep.frame(result)
    shown = df.head(MAX_LONG_ROWS)
    header = [*(f"<code>{_e(p)}</code>" for p in axes), "variant", "metric"]
    header += ["estimate", "95% interval", "n"]
    rows = []
    for r in shown.to_dict(orient="records"):
        rows.append(
            [
                *(_e(_value(r[p])) for p in axes),
                _e(r["variant"]),
                f"<code>{_e(r['metric'])}</code>",
                _num(r["mean"]),
                f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]",
                f"{int(r['n']):,}",
            ]
        )
    more = (
        f" (first {MAX_LONG_ROWS:,} of {len(df):,}; all in summary.csv)"
        if len(df) > len(shown)
        else ""
    )
    parts.append(
        f"<details><summary>long table: every point, variant and metric{more}</summary>"
        + _table(header, rows, left=len(axes) + 2, table_id="long-table")
        + "</details>"
    )
    summary = sweep.significance_summary(result)
    if not summary.empty:
        rows, classes = [], []
        for r in summary.itertuples():
            rows.append(
                [
                    _e(r.variant),
                    f"<code>{_e(r.metric)}</code>",
                    f"{r.significant} of {r.points}",
                    f"{r.smallest:+.4f}",
                    f"{r.largest:+.4f}",
                ]
            )
            classes.append("sig" if r.significant else "")
        parts.append(
            f"<h3>Differences from {_e(variants[0])} across the sweep</h3>"
            "<p class='lead'>At how many points each variant differs significantly (Holm-corrected "
            "per point, paired); highlighted rows differ somewhere.</p>"
            + _table(
                ["variant", "metric", "significant at points", "smallest", "largest"],
                rows,
                left=2,
                row_classes=classes,
                table_id="comparisons",
            )
        )
    return "".join(parts)


def _img(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img alt="{_e(path.stem)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _html_table(header: list[str], rows: list[list[str]], table_id: str, marks: list[str]) -> str:
    out = [f'<div class="scroll"><table id="{table_id}"><thead><tr>']
    out += [f'<th class="{"l" if i == 0 else ""}">{_e(h)}</th>' for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for row, mark in zip(rows, marks, strict=True):
        out.append(f'<tr class="{mark}">' if mark else "<tr>")
        for i, cell in enumerate(row):
            out.append(f'<td class="{"l" if i == 0 else ""}">{_e(cell.strip())}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _summary_section(report: Report, plots: Sequence[Path] = ()) -> str:
    """The summary block report.html opens with (empty for sweeps and plain single runs)."""
    summary = report.summary
    if summary is None:
        return ""
    # report.html has every metric's table below the summary.
    lines = report.verdict_detail
    parts = ["<h2>Summary</h2>"]
    if lines:
        parts.append(
            '<ul id="verdict">' + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>"
        )
    marks = [
        "sig" if any(c.significant for c in r.cells.values()) and r.role != "spread" else ""
        for r in summary.rows
    ]
    parts.append(
        _html_table(
            table_header(summary),
            [table_cells(summary, r) for r in summary.rows],
            "summary",
            marks,
        )
    )
    if legend(summary):
        parts.append(f"<p class='lead'>{_e(legend(summary))}.</p>")
    if summary.hidden:
        hidden = _e(", ".join(summary.hidden))
        parts.append(f"<p class='lead'>Zero in every variant, not shown: {hidden}.</p>")
    if summary.seats:
        parts.append(
            _html_table(
                seat_header(summary),
                [seat_cells(summary, s) for s in summary.seats],
                "seats",
                ["" for _ in summary.seats],
            )
        )
        parts.append(
            "<p class='lead'>p (equal): chi-square test that every seat wins equally often.</p>"
        )
    parts.append(_fairness_section(report))
    parts.append(_robustness_section(report))
    parts.append(_why_section(report))
    by_name = {Path(p).name: Path(p) for p in plots}
    if FOREST in by_name:
        parts.append(_img(by_name[FOREST], "differences from the first variant, standardized"))
    if SEATS in by_name:
        parts.append(_img(by_name[SEATS], "seat win shares per variant"))
    return "".join(parts)


def _pp_interval(x: Any) -> str:
    if x is None:
        return "—"
    return f"{100 * x.mean:+.1f} pp [{100 * x.lo:+.1f}, {100 * x.hi:+.1f}]".replace("-", "\u2212")


def _seen(v: Any, margin: float) -> str:
    """The "Δ seen" cell: what the comparison with the first variant could have seen, or why
    it has no such size (the first variant itself; identical on every deal)."""
    t = v.tie
    if t is None:
        return "(reference)"
    if t.verdict == "identical":
        return "— (identical)"
    return f"{100 * t.detectable:.1f} pp"


def _finding(v: Any, margin: float) -> str:
    """The "finding" cell: the spread's comparison with the first variant in words."""
    t = v.tie
    if t is None:
        return "—"
    if t.verdict == "identical":
        return "identical on every deal"
    if t.verdict == "equivalent":
        return (
            f"equivalent within ±{100 * margin:.1f} pp (90% "
            + f"[{100 * t.eq_lo:+.1f}, {100 * t.eq_hi:+.1f}])".replace("-", "\u2212")
        )
    if t.verdict == "different":
        return "fairer" if t.hi < 0 else "less fair"
    return f"cannot tell (below {100 * t.detectable:.1f} pp unseen)"


def _fairness_section(report: Report) -> str:
    """Seat spread and first-seat edge per variant, with paired differences from the first,
    what each comparison found, and the answer: which variant is fairer, or that none is."""
    from simulator.report.fairness import answer, group_words

    f = report.grounds.fairness
    if f is None:
        return ""
    rows = []
    for v in f.variants:
        spread = f"{100 * v.spread.mean:.1f} pp [{100 * v.spread.lo:.1f}, {100 * v.spread.hi:.1f}]"
        rows.append(
            [
                _e(v.variant),
                spread,
                _pp_interval(v.spread_vs_base),
                (_e(_finding(v, f.margin)), "l note"),
                _pp_interval(v.first_seat),
                _pp_interval(v.first_seat_vs_base),
                _e(_seen(v, f.margin)),
                f"{100 * v.seat_detectable:.1f} pp" if math.isfinite(v.seat_detectable) else "",
            ]
        )
    header = [
        "variant",
        "seat spread",
        "Δ spread",
        "finding",
        "seat 1 edge",
        "Δ edge",
        "Δ seen",
        "spread seen",
    ]
    tiers = f.tiers
    ranking = (
        "By spread: " + " &lt; ".join(_e(group_words(f, g)) for g in tiers) + "."
        if len(tiers) > 1
        else "No ranking: no variant's seat spread is told apart from another's."
    )
    return (
        f"<h3>Fairness</h3><p class='lead' id='fairness-answer'><b>{_e(answer(f))}.</b></p>"
        "<p class='lead'>Seat spread: the largest seat's win share minus the "
        "smallest's; seat 1 edge: seat 1's share minus the seats' mean; Δ: from the first "
        "variant; 95% intervals from resampling "
        f"{f.batches} batches of deals, the same under every variant (paired), "
        f"{f.resamples:,} times. Finding: identical on every deal (every seat's outcome the "
        "same on every deal), fairer or less fair (the interval excludes 0), equivalent "
        f"within ±{100 * f.margin:.1f} pp (the 90% interval inside the margin: two one-sided "
        "tests at 5%; the scenario's <code>equivalence.seat_spread</code>), or cannot tell. "
        "Δ seen, spread seen: the smallest difference in spread, and "
        "the smallest spread the test of equal seats, would find with 80% power. A variant "
        f"ranks above another only where their paired interval excludes 0. {ranking}</p>"
        + _table(header, rows, table_id="fairness")
    )


def _why_section(report: Report) -> str:
    """Each explained variant's clauses and their shares of every changed metric."""
    from simulator.explain.render import html_section

    return html_section(report.explanations)


def _robustness_section(report: Report) -> str:
    """Level × verdict and assumption × changed verdict lines."""
    held = report.robustness
    if held is None:
        return ""
    parts = [
        f"<h3>Robustness</h3><p class='lead'>The comparison rerun under each level: "
        f"{_e(held.sizes)}"
        + ("" if held.complete else " (interrupted: the levels finished so far)")
        + ".</p>"
    ]
    parts.append("<ul>" + "".join(f"<li><b>{_e(b)}</b></li>" for b in held.bottom) + "</ul>")
    for kind, title in (("policies", "play level"), ("assumption", "assumption moved")):
        rows = [
            [(_e(lv.label), "l wrap"), (_e(lv.text), "l wrap")]
            for lv in held.levels
            if lv.kind == kind
        ]
        if rows:
            head = "verdict" if kind == "policies" else "what changes against the default"
            parts.append(_table([title, head], rows, left=2, table_id=f"robustness-{kind}"))
    return "".join(parts)


def _figures(plots: Sequence[Path]) -> str:
    if not plots:
        return ""
    parts = ["<h2>Plots</h2>"]
    for path in plots:
        data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        parts.append(
            f'<figure><img alt="{_e(path.stem)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(path.name)}</figcaption></figure>"
        )
    return "".join(parts)


def render(report: Report, plots: Sequence[Path] = ()) -> str:
    """The whole page as a string (plots are read from ``plots`` and embedded)."""
    result = report.result
    s = result.scenario
    proc = s.procedure
    status = (
        '<span class="badge">complete</span>'
        if result.complete
        else '<span class="badge bad">INCOMPLETE: interrupted, partial results</span>'
    )
    meta = [
        ("procedure", f"<code>{_e(proc.name)}</code>: {_e(proc.title)} ({_e(proc.rules)})"),
        ("scenario file", f"<code>{_e(s.path)}</code>"),
        ("seed", _e(s.seed)),
        (
            "trials",
            f"{result.outcome.trials:,} per variant" + (" and point" if result.is_sweep else ""),
        ),
        ("variants", _e(", ".join(result.plan.variant_names))),
        (
            "random streams",
            "independent per variant"
            if result.plan.independent
            else "shared by all variants (common random numbers)",
        ),
        ("threads · time", f"{result.outcome.threads} · {result.outcome.elapsed:.2f} s"),
        ("written", _e(time.strftime("%Y-%m-%d %H:%M:%S %Z"))),
    ]
    vers = versions()
    body = [
        f"<h1>{_e(s.name)} {status}</h1>",
        f"<p class='lead'>{_e(s.description)}</p>" if s.description else "",
        "<dl class='meta'>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in meta) + "</dl>",
        _summary_section(report, plots),
        _params_section(result),
    ]
    if result.is_sweep:
        body.append(_sweep_section(result))
    else:
        body.append(_estimates_section(result))
        body.append(
            _comparisons_section(
                result.comparisons,
                result.plan.independent,
                "Variant differences",
                report.grounds.ties,
            )
        )
        body.append(_distributions_section(result))
        from simulator.report.tournament import html_section

        body.append(html_section(report))
    body.append(_figures([p for p in plots if Path(p).name not in SUMMARY_PLOTS]))
    body.append(
        "<h2>Versions</h2>"
        + _table(["package", "version"], [[_e(k), _e(v)] for k, v in vers.items()])
    )
    if proc.notes:
        body.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{_e(n)}</li>" for n in proc.notes) + "</ul>"
        )
    body.append(
        f"<footer>Written by sim {_e(vers.get('simulator', ''))}. Rebuild it with "
        f"<code>sim run {_e(s.path)} --seed {_e(s.seed)} --trials {result.outcome.trials}</code>."
        "</footer>"
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(s.name)} · sim report</title><style>{CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
