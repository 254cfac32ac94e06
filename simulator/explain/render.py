"""An explanation shown: the terminal's lines, the verdict's "why" lines and report.html's
section (a stacked bar per metric, each clause's share with its interval, as inline SVG).

Proportions are shown in %, their changes and shares in percentage points; every number has as
many decimals as the narrowest nonzero interval of its metric supports.
"""

from __future__ import annotations

import html
import math
from typing import Any

from simulator.explain.decompose import Effect, MetricEffects

#: Colours of the clauses' segments (cycled), as in the report's figures.
COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")


def _factor(kind: str) -> float:
    return 100.0 if kind == "proportion" else 1.0


def _decimals(effects: list[Effect], factor: float) -> int:
    halves = [
        (e.high - e.low) / 2 * factor for e in effects if not math.isnan(e.low) and e.high > e.low
    ]
    if not halves:
        return 2
    # Two significant digits of a half-width below 2.5 units of a place, one above.
    return int(min(max(0, -math.floor(math.log10(min(halves) / 2.5))), 6))


def _signed(x: float, d: int) -> str:
    """``+0.41``; ``0`` only for an exact zero (a bound that rounds to zero keeps its sign)."""
    if x == 0:
        return "0"
    return f"{x:+.{d}f}".replace("-", "−")


def effect_text(e: Effect, kind: str, d: int | None = None) -> str:
    """``+0.41 [+0.36, +0.46]`` (``0`` for an exact zero), with as many decimals as its own
    interval supports unless ``d`` is given."""
    f = _factor(kind)
    if d is None:
        d = _decimals([e], f)
    if e.exact == 0 and (e.se == 0 or math.isnan(e.se)):
        return "0"
    if math.isnan(e.low):
        return _signed(e.estimate * f, d)
    return f"{_signed(e.estimate * f, d)} [{_signed(e.low * f, d)}, {_signed(e.high * f, d)}]"


def _unit(kind: str) -> str:
    return " pp" if kind == "proportion" else ""


def shares(ex: Any, m: MetricEffects) -> str:
    """Each clause's Shapley share of a metric's change, and what the interactions add."""
    never = {c.path for c in ex.never_fired()}
    parts = []
    for name, e in zip(ex.names, m.shapley, strict=True):
        if name in never:
            parts.append(f"{name} 0 (never arose)")
        else:
            parts.append(f"{name} {effect_text(e, m.kind)}")
    inter = [(mask, r, e) for mask, r, e in m.terms if mask.bit_count() > 1 or r]
    found = [t for t in inter if t[2].significant]
    if found:
        label = _term_label(ex.names, found[0][0], found[0][1])
        parts.append(f"together ({label}) {effect_text(found[0][2], m.kind)}")
    return ", ".join(parts)


def _term_label(names: list[str], mask: int, remainder: bool) -> str:
    if remainder:
        return "three or more together"
    return " × ".join(n for i, n in enumerate(names) if mask >> i & 1)


def changed(ex: Any) -> list[MetricEffects]:
    """The metrics whose total change is significant; a seat family's members are left to its
    total when the procedure reports one (summary.json keeps every seat)."""
    names = {m.metric for m in ex.effects}
    return [
        m
        for m in ex.effects
        if m.total.significant and m.metric.partition(".seat")[0] not in names - {m.metric}
    ]


def lines(ex: Any) -> list[str]:
    """The terminal's explanation of one variant."""
    out = [
        f"Why {ex.variant} differs from {ex.against}: {ex.design.describe()}, "
        f"{ex.trials:,} trials each on the same deals"
        + ("" if ex.complete else " (interrupted: the trials every combination finished)")
    ]
    if not ex.clauses:
        out.append("  the two variants have the same parameters: nothing to explain")
        return out
    out.append(f"  clauses ({len(ex.clauses)}):")
    for clause, fired in zip(ex.clauses, ex.fired, strict=True):
        note = ""
        if fired is False:
            note = f" — never arose ({', '.join(clause.fires)} 0 in every combination)"
        out.append(f"    {clause.change()} ({clause.words}){note}")
    moved = changed(ex)
    if not moved:
        out.append("  no metric changed significantly: nothing to attribute")
    else:
        out.append("  shares of each change (Shapley values, Holm-adjusted 95%):")
    for m in moved:
        out.append(f"    {m.metric} {effect_text(m.total, m.kind)}{_unit(m.kind)}: {shares(ex, m)}")
    inter = [
        (m, mask, r, e)
        for m in ex.effects
        for mask, r, e in m.terms
        if (mask.bit_count() > 1 or r) and e.significant
    ]
    if len(ex.clauses) > 1:
        if inter:
            said = "; ".join(
                f"{m.metric} {_term_label(ex.names, mask, r)} {effect_text(e, m.kind)}"
                for m, mask, r, e in inter[:6]
            )
            out.append(f"  interactions: {said}")
        else:
            out.append("  interactions: none found (every clause adds on its own)")
    quiet = len(ex.effects) - len(moved)
    if quiet:
        noun = "metric" if quiet == 1 else "metrics"
        out.append(f"  unchanged: {quiet} {noun} (summary.json has every effect)")
    return out


def why_lines(explanations: list[Any], shown: set[tuple[str, str]] | None = None) -> list[str]:
    """One verdict line per changed metric of each explanation (only the ``(variant, metric)``
    pairs ``shown`` when given: the summary's changed rows), ``why equipment_discarded +0.41
    (revision-1.2): equipment +0.41 [...], ...``."""
    out = []
    for ex in explanations:
        for m in changed(ex):
            if shown is not None and (ex.variant, m.metric) not in shown:
                continue
            out.append(
                f"why {m.metric} {effect_text(m.total, m.kind).split(' [')[0]}"
                f"{_unit(m.kind)} ({ex.variant}): {shares(ex, m)}"
            )
    return out


def _bar(ex: Any, m: MetricEffects, width: int = 520) -> str:
    """One metric's stacked bar: each clause's share from 0, positive to the right and negative
    to the left, with its interval as a whisker; the total marked."""
    f = _factor(m.kind)
    values = [e.estimate * f for e in m.shapley]
    lows = [(e.low if not math.isnan(e.low) else e.estimate) * f for e in m.shapley]
    highs = [(e.high if not math.isnan(e.high) else e.estimate) * f for e in m.shapley]
    pos = sum(v for v in values if v > 0)
    neg = sum(v for v in values if v < 0)
    span_low = min(neg, *lows, m.total.estimate * f, 0.0)
    span_high = max(pos, *highs, m.total.estimate * f, 0.0)
    span = span_high - span_low or 1.0
    pad = 20

    def x(v: float) -> float:
        return pad + (v - span_low) / span * (width - 2 * pad)

    parts = [f'<svg width="{width}" height="46" role="img" aria-label="{html.escape(m.metric)}">']
    up, down = 0.0, 0.0
    for i, v in enumerate(values):
        colour = COLOURS[i % len(COLOURS)]
        if v >= 0:
            a, b = up, up + v
            up = b
        else:
            a, b = down + v, down
            down = a
        if v != 0:
            parts.append(
                f'<rect x="{x(a):.1f}" y="8" width="{max(x(b) - x(a), 0.5):.1f}" height="18" '
                f'fill="{colour}"><title>{html.escape(ex.names[i])}: {v:+.4g}</title></rect>'
            )
        end = b if v >= 0 else a
        half_low, half_high = values[i] - lows[i], highs[i] - values[i]
        if half_low > 0 or half_high > 0:
            y = 30 + 3 * i % 12
            parts.append(
                f'<line x1="{x(end - half_low):.1f}" x2="{x(end + half_high):.1f}" y1="{y}" '
                f'y2="{y}" stroke="{colour}" stroke-width="2"/>'
            )
    parts.append(f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="2" y2="44" stroke="#333"/>')
    total = m.total.estimate * f
    parts.append(
        f'<line x1="{x(total):.1f}" x2="{x(total):.1f}" y1="4" y2="30" stroke="#000" '
        'stroke-width="2" stroke-dasharray="3,2"><title>total change</title></line>'
    )
    for value, anchor in ((span_low, "start"), (span_high, "end")):
        parts.append(
            f'<text x="{x(value):.1f}" y="44" font-size="9" text-anchor="{anchor}">'
            f"{value:+.3g}{_unit(m.kind)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def html_section(explanations: list[Any]) -> str:
    """report.html's "Why did it change?" section ('' without explanations)."""
    if not explanations:
        return ""
    e = html.escape
    parts = [
        "<h3>Why did it change?</h3><p class='lead'>Each changed metric's change split among the "
        "clauses that differ (Shapley values: each clause's marginal effect averaged over every "
        "order of applying them; they add up to the total change, the dashed line), with "
        "Holm-adjusted 95% intervals from the same deals played under every combination.</p>"
    ]
    for ex in explanations:
        legend = " ".join(
            f"<span style='color:{COLOURS[i % len(COLOURS)]}'>■</span> {e(c.change())}"
            + (" (never arose)" if f is False else "")
            for i, (c, f) in enumerate(zip(ex.clauses, ex.fired, strict=True))
        )
        parts.append(
            f"<h4>{e(ex.variant)} against {e(ex.against)}</h4><p class='lead'>"
            f"{e(ex.design.describe())}, {ex.trials:,} trials each"
            + ("" if ex.complete else " (interrupted)")
            + f".<br>{legend}</p>"
        )
        rows = []
        for m in changed(ex):
            rows.append(
                f"<tr><td>{e(m.metric)}</td><td>{e(effect_text(m.total, m.kind))}"
                f"{_unit(m.kind)}</td><td>{_bar(ex, m)}</td><td>{e(shares(ex, m))}</td></tr>"
            )
        if rows:
            parts.append(
                "<table class='why'><tr><th>metric</th><th>change</th>"
                "<th>each clause's share, stacked</th><th>with its interval</th></tr>"
                + "".join(rows)
                + "</table>"
            )
        else:
            parts.append("<p class='lead'>No metric changed significantly.</p>")
    return "".join(parts)
