"""``--markdown FILE``: the summary, the seat table and the verdict as GitHub-flavoured Markdown
(a pull-request comment), rendered from the report model."""

from __future__ import annotations

from simulator.report.format import (
    caption,
    legend,
    seat_cells,
    seat_header,
    table_cells,
    table_header,
)
from simulator.report.model import Report
from simulator.report.summary import Summary


def markdown_of(report: Report) -> str:
    """The Markdown text of a report (a sweep or a plain single run gets a line)."""
    if report.result.is_sweep:
        return f"### {report.name}\n\nA sweep: see report.html for its grids.\n"
    if report.summary is None:
        return f"### {report.name}\n\nNo variants or seats to summarise: see report.html.\n"
    text = folded_markdown(report.summary, report.verdict)
    f = report.grounds.fairness
    if f is not None and len(f.variants) > 1:
        lines = ["", "**Fairness** (seat spread, 95%; paired differences from the first)", ""]
        lines += ["| variant | seat spread | Δ from the first |", "| --- | ---: | ---: |"]
        for v in f.variants:
            d = v.spread_vs_base
            diff = (
                ""
                if d is None
                else f"{100 * d.mean:+.1f} pp [{100 * d.lo:+.1f}, {100 * d.hi:+.1f}]"
            )
            spread = (
                f"{100 * v.spread.mean:.1f} pp [{100 * v.spread.lo:.1f}, {100 * v.spread.hi:.1f}]"
            )
            lines.append(f"| {_md_escape(v.variant)} | {spread} | {diff} |")
        text += "\n".join(lines) + "\n"
    held = report.robustness
    if held is not None:
        lines = ["", f"**Robustness** ({_md_escape(held.sizes)})", ""]
        lines += ["| level | verdict |", "| --- | --- |"]
        lines += [f"| {_md_escape(lv.label)} | {_md_escape(lv.text)} |" for lv in held.levels]
        text += "\n".join(lines) + "\n"
    return text


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def folded_markdown(summary: Summary, verdict: list[str]) -> str:
    """The summary, seat table and verdict as GitHub-flavoured Markdown (a pull-request comment)."""

    def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
        lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |"]
        lines.append("|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|")
        for r in rows:
            lines.append("| " + " | ".join(_md_escape(c.strip()) for c in r) + " |")
        return lines

    lines = [f"### {summary.scenario}", "", caption(summary) + ". " + legend(summary), ""]
    lines += md_table(table_header(summary), [table_cells(summary, r) for r in summary.rows])
    if summary.seats:
        lines.append("")
        lines += md_table(seat_header(summary), [seat_cells(summary, s) for s in summary.seats])
    if verdict:
        lines += ["", "**Verdict**", ""]
        lines += [f"- {line}" for line in verdict]
    return "\n".join(lines) + "\n"
