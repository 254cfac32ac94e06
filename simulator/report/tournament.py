"""A tournament's section in the terminal, in files and in report.html.

Each function renders ``report.tournament`` (analysed once, by :func:`simulator.report.model.build`)
and does nothing for a run that is not a tournament.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from simulator.report.model import Report
from simulator.tournament.analysis import matchup_frame


def _pct(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _interval(e: dict[str, float]) -> str:
    return f"{_pct(e['mean'])} [{_pct(e['ci_low'])}, {_pct(e['ci_high'])}]"


def _p(p: float) -> str:
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


def print_tournament(report: Report, console: Console) -> None:
    """Win shares, the matchup matrix, seats and the skill gap of every variant."""
    per_variant = report.tournament
    if not per_variant:
        return
    for variant, s in per_variant.items():
        suffix = f" · {variant}" if len(per_variant) > 1 else ""
        names = list(s["entrants"])
        table = Table(
            title=f"Tournament{suffix}: {s['deals']:,} deals, win share per seat held (95% CI)"
        )
        for col in ("entrant", "agent", "win share", "rating (Elo)"):
            table.add_column(col, justify="left" if col in ("entrant", "agent") else "right")
        for e in sorted(names, key=lambda e: -s["agent_wins"][e]["mean"]):
            table.add_row(
                e, s["entrants"][e], _interval(s["agent_wins"][e]), f"{s['ratings'][e]:.0f}"
            )
        console.print(table)
        m = Table(title=f"Matchup{suffix}: row's share of row + column wins", title_justify="left")
        m.add_column("")
        for b in names:
            m.add_column(b, justify="right")
        for a in names:
            m.add_row(a, *("—" if a == b else _pct(s["matchup"][a][b]["mean"]) for b in names))
        console.print(m)
        seats = ", ".join(f"{k} {_interval(v)}" for k, v in s["seat_wins"].items())
        console.print(f"Seats (agents controlled for): {seats}")
        console.print(ladder_line(s))
        g = s["skill_gap"]
        console.print(
            f"Skill gap: {g['strongest']} against {g['weakest']} wins "
            f"{_interval(g['matchup'])} of their games' wins; win share "
            f"{g['difference']:+.3f} [{g['ci_low']:+.3f}, {g['ci_high']:+.3f}]"
        )
        if "optimal" in s:
            print_optimal_gaps(s["optimal"], console)


def print_optimal_gaps(o: dict[str, Any], console: Console) -> None:
    """Each entrant's distance from optimal play (:mod:`simulator.tournament.optimal`)."""
    best = o["entrant"]
    console.print(f"Gap to optimal play ({best}: the exact solver's moves):")
    for e, m in o["head_to_head"].items():
        console.print(f"  {e} against {best}: {_interval(m)} (1/2 = as good as optimal)")
    for f, a in o["against"].items():
        console.print(
            f"  against {f}: {best} {a['optimal_exact']:.3f} exact "
            f"(measured {_interval(a['optimal_measured'])})"
        )
        for e, m in a["entrants"].items():
            console.print(f"    {e} {_interval(m)}, {m['gap']:+.3f} from {best}")


def ladder_line(s: dict[str, Any]) -> str:
    """The "Ladder: ..." line: each rung above the next, by how much, with its p-value."""
    steps = "  ".join(
        f"{st['higher']} > {st['lower']} by {st['difference']:+.3f} (p {_p(st['p_value'])})"
        for st in s["ladder"]
    )
    return f"Ladder: {steps}"


def write_files(report: Report, out_dir: Path) -> list[Path]:
    """``tournament.csv``: one row per variant, entrant and opponent (win share, matchup,
    rating) — the matchup matrix in long form."""
    from simulator.output import safe_write

    per_variant = report.tournament
    if not per_variant:
        return []
    rows = []
    for variant, s in per_variant.items():
        for a in s["entrants"]:
            w = s["agent_wins"][a]
            for b in [None, *(x for x in s["entrants"] if x != a)]:
                mu = s["matchup"][a][b] if b else None
                rows.append(
                    {
                        "variant": variant,
                        "entrant": a,
                        "agent": s["entrants"][a],
                        "opponent": b or "",
                        "win_share": w["mean"],
                        "win_ci_low": w["ci_low"],
                        "win_ci_high": w["ci_high"],
                        "matchup": mu["mean"] if mu else None,
                        "matchup_ci_low": mu["ci_low"] if mu else None,
                        "matchup_ci_high": mu["ci_high"] if mu else None,
                        "rating": s["ratings"][a],
                    }
                )
    import pandas as pd

    path = Path(out_dir) / "tournament.csv"
    frame = pd.DataFrame(rows)
    safe_write(path, lambda f: frame.to_csv(f, index=False))
    return [path]


def write_plots(report: Report, out_dir: Path) -> list[Path]:
    """``matchup.png``: the matchup matrix of every variant as a heatmap."""
    per_variant = report.tournament
    if not per_variant:
        return []
    from simulator.report.drawing import new_figure, save_figure

    n = len(per_variant)
    size = 1.2 + 0.9 * len(next(iter(per_variant.values()))["entrants"])
    fig = new_figure(size * n + 0.8, size + 0.6)
    axes = fig.subplots(1, n, squeeze=False)[0]
    # Room below for the rotated entrant names and the "against" label (they were cut off).
    fig.subplots_adjust(bottom=0.3, top=0.84)
    image = None
    for ax, (variant, s) in zip(axes, per_variant.items(), strict=True):
        m = matchup_frame(s)
        image = ax.imshow(m.to_numpy(dtype=float), vmin=0, vmax=1, cmap="RdBu")
        ax.set_xticks(range(len(m.columns)), list(m.columns), rotation=45, ha="right")
        ax.set_yticks(range(len(m.index)), list(m.index))
        for i in range(len(m.index)):
            for j in range(len(m.columns)):
                if i != j:
                    ax.text(j, i, f"{m.iloc[i, j]:.2f}", ha="center", va="center", fontsize=8)
        ax.set_title(variant)
        ax.set_xlabel("against")
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="row's share of the two's wins")
    fig.suptitle(f"{report.name}: matchups")
    return [save_figure(fig, Path(out_dir) / "matchup.png")]


def summary_entry(report: Report) -> dict[str, Any]:
    """``{"tournament": {variant: summary}}`` for summary.json (empty for other runs)."""
    per_variant = report.tournament
    if not per_variant:
        return {}
    return {"tournament": json.loads(json.dumps(per_variant, default=float))}


def html_section(report: Report) -> str:
    """The tournament section of report.html (the heatmap is among the embedded plots)."""
    per_variant = report.tournament
    if not per_variant:
        return ""
    e = html.escape
    parts = ["<h2>Tournament</h2>"]
    for variant, s in per_variant.items():
        names = list(s["entrants"])
        parts.append(f"<h3>{e(variant)}: {s['deals']:,} deals</h3>")
        rows = "".join(
            f"<tr><td>{e(a)}</td><td><code>{e(s['entrants'][a])}</code></td>"
            f"<td>{_interval(s['agent_wins'][a])}</td><td>{s['ratings'][a]:.0f}</td></tr>"
            for a in sorted(names, key=lambda a: -s["agent_wins"][a]["mean"])
        )
        parts.append(
            "<table><tr><th>entrant</th><th>agent</th><th>win share per seat (95% CI)</th>"
            f"<th>rating (Elo)</th></tr>{rows}</table>"
        )
        head = "".join(f"<th>{e(b)}</th>" for b in names)
        body = "".join(
            f"<tr><th>{e(a)}</th>"
            + "".join(
                "<td>—</td>" if a == b else f"<td>{_interval(s['matchup'][a][b])}</td>"
                for b in names
            )
            + "</tr>"
            for a in names
        )
        parts.append(
            "<p>Matchups: row's share of the wins that went to row or column, in games where "
            f"both played.</p><table><tr><th></th>{head}</tr>{body}</table>"
        )
        parts.append(f"<p class='ladder'>{e(ladder_line(s))}</p>")
        g = s["skill_gap"]
        parts.append(
            f"<p>Skill gap: <b>{e(g['strongest'])}</b> against <b>{e(g['weakest'])}</b>: "
            f"{_interval(g['matchup'])}; win share difference {g['difference']:+.3f} "
            f"[{g['ci_low']:+.3f}, {g['ci_high']:+.3f}], p {_p(g['p_value'])}. Seats (agents "
            "controlled for): "
            + ", ".join(f"{e(k)} {_interval(v)}" for k, v in s["seat_wins"].items())
            + "</p>"
        )
    return "".join(parts)
