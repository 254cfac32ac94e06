"""How far each entrant is from the best: a tournament's gaps to an ``optimal`` entrant.

Where one entrant plays ``optimal`` (the exact solver's table, :mod:`simulator.agents.table`) in
a two-seat game with exact values (the procedure's ``exact`` hook), every other entrant gets:

- its share **head to head** against optimal (``matchup.<entrant>.<optimal>``, with its
  interval): 1/2 is as good as the best play, and nothing beats it in expectation;
- against each **fixed opponent** among the entrants whose play the solver values exactly
  (random, greedy): its measured share (with its interval) beside optimal's exact share against
  the same opponent, both seat orders averaged as a tournament seats them, and the gap between
  them. Optimal's exact share is what the minimax table wins; the best reply to that one
  opponent (which a rung tuned against it may approach) can win more, so a rung may stand above
  optimal there while it loses to optimal head to head.
"""

from __future__ import annotations

from typing import Any

from simulator.agents.spec import SOLVED
from simulator.tournament.procedure import Tournament, with_policies


def _exact_share(t: Tournament, params: Any, first: Any, second: Any) -> float | None:
    """``first``'s exact win share against ``second``, the two seat orders averaged."""
    exact = t.game.exact
    if exact is None:
        return None
    shares = []
    for order, seat in (((first, second), 1), ((second, first), 2)):
        try:
            values = exact(with_policies(t.game, params, list(order)))
        except ValueError:
            return None
        if f"wins.seat{seat}" not in values:
            return None
        shares.append(values[f"wins.seat{seat}"])
    return sum(shares) / 2


def optimal_gaps(t: Tournament, summary: dict[str, Any], params: Any) -> dict[str, Any] | None:
    """The gaps of ``summary``'s entrants to its ``optimal`` entrant (the module docstring), or
    None without one (or with more than two seats)."""
    names = t.entrants
    best = [e for e, s in zip(names, t.specs, strict=True) if s.agent == SOLVED]
    if not best or t.seats(params) != 2:
        return None
    opt = best[0]
    spec = dict(zip(names, t.specs, strict=True))
    fixed = {}
    for f in names:
        if f == opt:
            continue
        exact = _exact_share(t, params, spec[opt], spec[f])
        if exact is None:
            continue
        rows = {}
        for e in names:
            if e in (f, opt):
                continue
            m = summary["matchup"][e][f]
            rows[e] = {**m, "gap": exact - m["mean"]}
        fixed[f] = {"optimal_exact": exact, "optimal_measured": summary["matchup"][opt][f]}
        fixed[f]["entrants"] = rows
    head = {e: summary["matchup"][e][opt] for e in names if e != opt}
    return {"entrant": opt, "head_to_head": head, "against": fixed}
