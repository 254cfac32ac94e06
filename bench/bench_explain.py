"""The cost of `sim explain` beside the plain comparison, in one process: revisions.yaml's
revision 1.2 against 1.0 (2 clauses, 4 combinations on the same deals) against the plain run of
the two variants at the same trial count, and the decomposition alone (every metric's Möbius
terms and Shapley values with their intervals, from the deal batches). The kernel is compiled
(or loaded from the cache) before anything is timed."""

from __future__ import annotations

from pathlib import Path

from bench.harness import Row, median_seconds
from simulator.explain.decompose import decompose
from simulator.explain.run import measure, play, prepare
from simulator.runner import run_scenario
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
REVISIONS = ROOT / "scenarios" / "recruitment" / "revisions.yaml"


def rows(quick: bool) -> list[Row]:
    scenario = load(REVISIONS)
    trials = 500 if quick else 2000
    pair = {k: scenario.variants[k] for k in ("base", "revision-1.2")}
    plain_scenario = load(REVISIONS)
    plain_scenario.variants = pair
    plain_scenario.points = []
    prepared = prepare(scenario, "revision-1.2", trials=trials)
    estimate = measure(prepared)
    repeat = 1 if quick else 3
    plain = median_seconds(lambda: run_scenario(plain_scenario, trials=trials), repeat)
    explained = median_seconds(lambda: play(prepared), repeat)
    ex = play(prepared)
    assert ex.outcome is not None and ex.outcome.batch_stats is not None
    batches = ex.outcome.batch_stats
    metrics = [(m.name, m.kind, m.scale) for m in prepared.plan.metrics]
    alone = median_seconds(lambda: decompose(prepared.design, batches, metrics), 3)
    return [
        Row(
            f"sim explain revision-1.2: 4 combinations × {trials:,} games (wall)",
            explained,
            "s",
            plain,
            f"the plain run of base and revision-1.2 ({trials:,} games)",
            f"announced beforehand as {estimate:.2f} s",
        ),
        Row(
            f"decomposition of {len(metrics)} metrics (2 clauses, 256 deal batches)",
            alone,
            "s",
            explained,
            "the explanation's run",
        ),
    ]
