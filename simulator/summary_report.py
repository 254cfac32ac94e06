"""The summary in the reports: the forest plot, the seat win shares and the top of report.html.

:func:`write_plots` draws ``forest.png`` (every variant's differences from the first, standardized,
with 95% intervals, significant ones filled) and ``seats.png`` (the seats' win shares as grouped
bars per variant, with 95% intervals and the equal share marked). :func:`html_section` is the
block report.html opens with: the verdict, the summary table, the seat table and those two plots.
:func:`summary_document` is the summary's part of summary.json, :func:`markdown_of` the
``--markdown`` file.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulator.runner import RunResult
from simulator.summary import (
    Summary,
    build,
    legend,
    markdown,
    seat_cells,
    seat_header,
    table_cells,
    table_header,
    wants_summary,
)
from simulator.verdict import verdict

FOREST = "forest.png"
SEATS = "seats.png"
#: The plots :func:`html_section` shows at the top (the page's plot gallery leaves them out).
SUMMARY_PLOTS = (FOREST, SEATS)


def forest_points(summary: Summary) -> list[dict[str, Any]]:
    """The forest plot's rows: label, standardized effect and interval, significance.

    Differences of metrics that are constant in both variants have no scale and are left out.
    """
    later = summary.variants[1:]
    out = []
    for row in summary.rows:
        if row.role == "spread":
            continue
        for v in later:
            c = row.cells[v]
            if c.effect is None or not all(
                math.isfinite(x) for x in (c.effect, c.effect_low or 0.0, c.effect_high or 0.0)
            ):
                continue
            label = row.metric if len(later) == 1 else f"{row.metric} · {v}"
            out.append(
                {
                    "label": label,
                    "variant": v,
                    "effect": c.effect,
                    "low": c.effect_low,
                    "high": c.effect_high,
                    "significant": c.significant,
                }
            )
    return out


def _forest(summary: Summary, out_dir: Path) -> Path | None:
    from simulator.figures import new_figure, save_figure

    points = forest_points(summary)
    if not points:
        return None
    fig = new_figure(8.0, 1.2 + 0.28 * len(points))
    ax = fig.subplots()
    colours = {v: f"C{i}" for i, v in enumerate(summary.variants[1:])}
    for y, p in enumerate(points):
        colour = colours[p["variant"]]
        ax.errorbar(
            [p["effect"]],
            [y],
            xerr=[[p["effect"] - p["low"]], [p["high"] - p["effect"]]],
            fmt="o",
            color=colour,
            markerfacecolor=colour if p["significant"] else "white",
            capsize=3,
        )
    ax.axvline(0.0, color="0.4", linewidth=1)
    ax.set_yticks(range(len(points)))
    ax.set_yticklabels([p["label"] + (" *" if p["significant"] else "") for p in points])
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("standardized difference (Cohen's d, h for proportions), 95% interval")
    fig.suptitle(f"{summary.scenario}: differences from {summary.baseline}")
    fig.tight_layout()
    return save_figure(fig, out_dir / FOREST)


def _seats(summary: Summary, out_dir: Path) -> Path | None:
    from simulator.figures import new_figure, save_figure

    if not summary.seats:
        return None
    n = len(summary.seats[0].shares)
    fig = new_figure(max(5.0, 1.2 * n + 2), 3.8)
    ax = fig.subplots()
    width = 0.8 / len(summary.seats)
    for k, s in enumerate(summary.seats):
        x = [i + (k - (len(summary.seats) - 1) / 2) * width for i in range(n)]
        err = [
            [max(m - lo, 0.0) for m, lo in zip(s.shares, s.ci_low, strict=True)],
            [max(hi - m, 0.0) for m, hi in zip(s.shares, s.ci_high, strict=True)],
        ]
        ax.bar(x, s.shares, width=width, yerr=err, capsize=2, label=s.variant)
    ax.axhline(1.0 / n, color="0.3", linestyle="--", linewidth=1, label="equal share")
    ax.set_xticks(range(n))
    ax.set_xticklabels([f"seat {i + 1}" for i in range(n)])
    ax.set_ylabel("share of the win (95% interval)")
    ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{summary.scenario}: seat win shares")
    fig.tight_layout()
    return save_figure(fig, out_dir / SEATS)


def write_plots(result: RunResult, out_dir: Path) -> list[Path]:
    """forest.png and seats.png, where the run has differences and seats (no sweep)."""
    if not wants_summary(result):
        return []
    summary = build(result)
    return [p for p in (_forest(summary, out_dir), _seats(summary, out_dir)) if p is not None]


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


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


def html_section(result: RunResult, plots: Sequence[Path] = ()) -> str:
    """The summary block report.html opens with (empty for sweeps and plain single runs)."""
    if not wants_summary(result):
        return ""
    summary = build(result)
    # report.html has every metric's table below the summary.
    lines = verdict(summary, detail=True)
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
    by_name = {Path(p).name: Path(p) for p in plots}
    if FOREST in by_name:
        parts.append(_img(by_name[FOREST], "differences from the first variant, standardized"))
    if SEATS in by_name:
        parts.append(_img(by_name[SEATS], "seat win shares per variant"))
    return "".join(parts)


def summary_document(result: RunResult) -> dict[str, Any]:
    """``{"summary": ..., "verdict": [...]}`` for summary.json (empty for a sweep)."""
    if result.is_sweep:
        return {}
    s = build(result)
    return {"summary": s.to_dict(), "verdict": verdict(s)}


def markdown_of(result: RunResult) -> str:
    """`--markdown FILE`: the summary and the verdict as Markdown (a sweep gets a line)."""
    if result.is_sweep:
        return f"### {result.scenario.name}\n\nA sweep: see report.html for its grids.\n"
    s = build(result)
    return markdown(s, verdict(s))
