"""The regression gate: the per-trial run (one kernel call a trial) beside the engine's blocks,
and the bytes a gated series costs in the baseline."""

from __future__ import annotations

from bench.harness import Row, median_seconds, plan_for
from simulator.engine import simulate
from simulator.gate.outcomes import encode, run_point

BATTLE = {"attacker": {"units": 4, "leader": 2}, "defender": {"units": 3, "leader": 0}}


def rows(quick: bool) -> list[Row]:
    trials = 2000 if quick else 20000
    out = []
    for name, proc, params in (
        ("field battle 4v3", "his.field_battle", BATTLE),
        ("naval 3v2", "his.naval", {"attacker": {"squadrons": 3}, "defender": {"squadrons": 2}}),
    ):
        try:
            plan = plan_for(proc, params)
        except Exception:  # params of another revision of the rule: skip the row
            continue
        kept = tuple(i for i, m in enumerate(plan.metrics) if m.headline)
        per_trial = median_seconds(lambda p=plan, k=kept: run_point(p, trials, k, 2), 3)
        blocks = median_seconds(lambda p=plan: simulate(p, trials, threads=2), 3)
        out.append(
            Row(
                f"gate run, {name}: per-trial calls ({trials:,} trials, 2 threads)",
                per_trial,
                "s",
                blocks,
                "engine run, as the old gate (blocks + calibration)",
                "the whole gate under ~15 min",
            )
        )
    plan = plan_for("his.field_battle", BATTLE)
    po = run_point(plan, 20000, (0,), 1)
    size = len(encode(po.values[0, 0], "proportion").data)
    out.append(Row("baseline bytes of one gated proportion (20,000 trials)", size, "B"))
    return out
