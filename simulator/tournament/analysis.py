"""After reduction: the matchup matrix, ratings, the ladder of entrants and the skill gap.

Everything here is read off the per-deal estimates (:mod:`simulator.tournament.procedure`), so
every interval and test treats the deal as the unit: the seatings of one deal share its cards and
dice and are not independent games.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from simulator.agents.spec import agent_label
from simulator.tournament.optimal import optimal_gaps
from simulator.tournament.procedure import Tournament, tournament_of

if TYPE_CHECKING:
    import pandas as pd

#: Elo points per unit of Bradley–Terry log-strength (400 / ln 10).
ELO = 400 / math.log(10)


def _est(df: pd.DataFrame, metric: str, share: bool = False) -> dict[str, float]:
    """One metric's estimate; a ``share`` (a per-deal win share, in [0, 1]) has its interval cut
    to [0, 1]: with a handful of deals the normal interval reaches below 0 or above 1, where no
    share can lie."""
    row = df[df["metric"] == metric]
    if row.empty:
        nan = float("nan")
        return {"mean": nan, "se": nan, "ci_low": nan, "ci_high": nan, "n": 0}
    r = row.iloc[0]
    out = {k: float(r[k]) for k in ("mean", "se", "ci_low", "ci_high")}
    if share:
        out["ci_low"] = min(max(out["ci_low"], 0.0), 1.0)
        out["ci_high"] = min(max(out["ci_high"], 0.0), 1.0)
    return {**out, "n": int(r["n"])}


def _p_two_sided(diff: float, se: float, n: float) -> float:
    from scipy.special import stdtr

    if not se > 0:
        return 1.0 if diff == 0 else 0.0
    return float(2 * stdtr(max(n - 1, 1), -abs(diff / se)))


def _gap(df: pd.DataFrame, names: list[str], a: int, b: int) -> dict[str, float]:
    """``agent_wins[a] - agent_wins[b]`` per deal: difference, interval, paired t p-value."""
    lo, hi, sign = (a, b, 1.0) if a < b else (b, a, -1.0)
    e = _est(df, f"gap.{names[lo]}.{names[hi]}")
    diff = sign * e["mean"]
    lo_ci, hi_ci = sorted((sign * e["ci_low"], sign * e["ci_high"]))
    return {
        "difference": diff,
        "ci_low": lo_ci,
        "ci_high": hi_ci,
        "p_value": _p_two_sided(diff, e["se"], e["n"]),
    }


def bradley_terry(wins: np.ndarray) -> np.ndarray:
    """Log-strengths (first entrant 0) from ``wins[a, b]``, a's summed win share in games with b,
    fitted as a binomial GLM (statsmodels) on each pair's share of their joint wins."""
    import statsmodels.api as sm

    n = wins.shape[0]
    y, w, rows = [], [], []
    for a in range(n):
        for b in range(a + 1, n):
            total = wins[a, b] + wins[b, a]
            if total <= 0:
                continue
            x = np.zeros(n)
            x[a], x[b] = 1.0, -1.0
            rows.append(x[1:])
            y.append(wins[a, b] / total)
            w.append(total)
    if not rows:
        return np.zeros(n)
    # A perfect record has no finite maximum-likelihood strength: shrink every pair's share by
    # half a game towards 1/2 (the usual continuity correction) so the fit always exists.
    ya = (np.asarray(y) * np.asarray(w) + 0.5) / (np.asarray(w) + 1.0)
    with warnings.catch_warnings():
        # Separation (one entrant taking every shared win) is what the correction above is for.
        warnings.simplefilter("ignore")
        fit = sm.GLM(
            ya, np.asarray(rows), family=sm.families.Binomial(), var_weights=np.asarray(w) + 1.0
        ).fit()
    return np.concatenate([[0.0], np.asarray(fit.params)])


def analyse(t: Tournament, estimates: pd.DataFrame, variant: str) -> dict[str, Any]:
    """The tournament summary of one variant: win shares, matchups, seats, ratings, gap."""
    df = estimates[estimates["variant"] == variant]
    names = t.entrants
    n = len(names)
    wins = {e: _est(df, f"agent_wins.{e}", share=True) for e in names}
    matchup = {
        a: {b: _est(df, f"matchup.{a}.{b}", share=True) for b in names if b != a} for a in names
    }
    seats = sorted(
        (m for m in df["metric"] if m.startswith("seat_wins.seat")),
        key=lambda m: int(m.rsplit("seat", 1)[1]),
    )
    seat_wins = {m.removeprefix("seat_wins."): _est(df, m, share=True) for m in seats}
    deals = max((v["n"] for v in wins.values()), default=0)
    h2h = np.zeros((n, n))
    for a in range(n):
        for b in range(n):
            if a != b:
                h2h[a, b] = _est(df, f"h2h.{names[a]}.{names[b]}")["mean"] * deals
    strength = bradley_terry(h2h)
    strength -= strength.mean()
    ratings = {e: float(1500 + ELO * s) for e, s in zip(names, strength, strict=True)}
    order = sorted(range(n), key=lambda i: -wins[names[i]]["mean"])
    ladder = [
        {"higher": names[hi], "lower": names[lo], **_gap(df, names, hi, lo)}
        for hi, lo in itertools.pairwise(order)
    ]
    strong, weak = order[0], order[-1]
    head = matchup[names[strong]][names[weak]]
    spread = [v["mean"] for v in seat_wins.values()]
    return {
        "entrants": {e: agent_label(s) for e, s in zip(names, t.spec.agents.values(), strict=True)},
        "deals": int(deals),
        "agent_wins": wins,
        "matchup": matchup,
        "seat_wins": seat_wins,
        "seat_spread": (max(spread) - min(spread)) if spread else float("nan"),
        "ratings": ratings,
        "ladder": ladder,
        "skill_gap": {
            "strongest": names[strong],
            "weakest": names[weak],
            "matchup": head,
            **_gap(df, names, strong, weak),
        },
    }


def summaries(result: Any) -> dict[str, dict[str, Any]] | None:
    """Per variant (and sweep point: ``"players=3"``, or ``"VARIANT · players=3"`` with several
    variants), the tournament summary of a run (None when the run is no tournament); computed
    once per result (a Bradley–Terry fit each) and kept in ``result.derived``."""
    t = tournament_of(result.scenario.procedure)
    if t is None:
        return None
    cache = getattr(result, "derived", None)
    if cache is not None and "tournament" in cache:
        return cache["tournament"]
    out = {}
    for point in result.point_results():
        names = point.plan.variant_names
        for v in names:
            # Every sweep point is a tournament of its own (a sweep over players seats another
            # number): each is labelled by its point, never shown as the first point alone.
            key = v
            if getattr(result, "is_sweep", False):
                key = point.label() if len(names) == 1 else f"{v} · {point.label()}"
            out[key] = analyse(t, point.estimates, v)
            gaps = optimal_gaps(t, out[key], point.plan.variant_params[names.index(v)])
            if gaps is not None:
                out[key]["optimal"] = gaps
    if cache is not None:
        cache["tournament"] = out
    return out


def matchup_frame(summary: dict[str, Any]) -> pd.DataFrame:
    """The matchup matrix as a square frame (row's win share against column; NaN diagonal)."""
    names = list(summary["entrants"])
    import pandas as pd

    m = pd.DataFrame(np.nan, index=names, columns=names)
    for a in names:
        for b in names:
            if a != b:
                m.loc[a, b] = summary["matchup"][a][b]["mean"]
    return m
