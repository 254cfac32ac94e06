"""Each compared metric's difference as a tie finding: identical on every deal, different,
equivalent within its margin, or cannot tell (:mod:`simulator.equivalence`).

For every variant after the first and every metric compared on shared streams, the paired
difference is read from the integer sums the kernels keep. *Different* is the comparison's own
significance (Holm across the variant's metrics, :func:`simulator.stats.comparison_records`),
with its Holm-adjusted interval; *equivalent* is Schuirmann's two one-sided tests, Holm-corrected
across the same metrics: each metric's 1 − 2·level interval (level: the step Holm tests its TOST
p-value at) inside its margin (the scenario's ``equivalence:``: per metric, else per kind).
Metrics compared on independent streams (``--independent``, conditional means) are left out:
identity on a deal needs pairs.
"""

from __future__ import annotations

import math
from typing import Any

from simulator.equivalence import DIFFERENT, EQUIVALENT, IDENTICAL, UNCLEAR, EquivalenceSpec, Tie
from simulator.equivalence import paired as paired_tie
from simulator.report.fairness import slots
from simulator.runner import RunResult
from simulator.stats import ALPHA, holm_levels


def _sd(n: int, s: int, ss: int, scale: int) -> float:
    if n < 2:
        return math.nan
    return math.sqrt(max(n * ss - s * s, 0) / (n * (n - 1))) / scale


def metric_ties(result: RunResult) -> dict[str, dict[str, Tie]]:
    """``{variant: {metric: Tie}}`` for every paired comparison of the run (empty for a sweep or
    a single variant)."""
    if result.is_sweep or result.plan.n_variants < 2 or result.plan.independent:
        return {}
    spec = getattr(result.scenario, "equivalence", None) or EquivalenceSpec()
    stats = result.outcome.stats
    index = slots(result)
    cmp = result.comparisons
    rows = {(str(r.variant), str(r.metric)): r for r in cmp.itertuples()}
    out: dict[str, dict[str, Tie]] = {}
    names = list(result.plan.variant_names)
    for v in range(1, len(names)):
        found: dict[str, tuple[Tie, tuple[Any, ...], float]] = {}
        for metric in result.plan.metrics:
            if metric.kind == "conditional_mean" or (names[v], metric.name) not in rows:
                continue
            m = index[metric.name]
            n0, s0, ss0, _ = (int(x) for x in stats[0, 4 * m : 4 * m + 4])
            n, s1, ss1, cross = (int(x) for x in stats[v, 4 * m : 4 * m + 4])
            if n != n0 or n < 2:
                continue
            sd = math.sqrt(
                (_sd(n, s0, ss0, metric.scale) ** 2 + _sd(n, s1, ss1, metric.scale) ** 2) / 2
            )
            margin = spec.margin(metric.name, metric.kind, sd)
            sums = (n, s0, ss0, s1, ss1, cross)
            found[metric.name] = (paired_tie(*sums, margin, scale=metric.scale), sums, margin)
        if not found:
            continue
        p = [t.p_equivalent if math.isfinite(t.margin) else 1.0 for t, _, _ in found.values()]
        levels, _ = holm_levels(p, ALPHA)
        ties: dict[str, Tie] = {}
        for (name, (tie, sums, margin)), level in zip(found.items(), levels, strict=True):
            if tie.verdict != IDENTICAL:
                scale = next(m.scale for m in result.plan.metrics if m.name == name)
                tie = paired_tie(*sums, margin, scale=scale, alpha=level)
                row = rows[(names[v], name)]
                # The difference's interval is the comparison's (Holm-adjusted) one.
                tie.lo = float(getattr(row, "adj_low", row.ci_low))
                tie.hi = float(getattr(row, "adj_high", row.ci_high))
                if bool(row.significant):
                    tie.verdict = DIFFERENT
                elif -margin < tie.eq_lo and tie.eq_hi < margin:
                    tie.verdict = EQUIVALENT
                else:
                    tie.verdict = UNCLEAR
            ties[name] = tie
        out[names[v]] = ties
    return out


def to_dict(ties: dict[str, dict[str, Tie]]) -> dict[str, Any]:
    """The ``equivalence`` entry of summary.json: per variant and metric the finding, its
    intervals, margin and trials."""
    return {v: {m: t.to_dict() for m, t in by.items()} for v, by in ties.items()}
