"""What a verdict rests on: rule cases that never fired, answers that move with the play level or
with an assumption, and the robustness run itself."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.procedures.base import Alternative, Assumption, Metric
from simulator.report.grounds import Grounds, cases
from simulator.report.summary import build
from simulator.report.verdict import verdict
from simulator.robustness.run import run_robustness, with_level
from simulator.robustness.spec import Level, RobustnessSpec, from_option
from simulator.runner import RunResult, run_scenario
from tests import seat_toy as toy

N = 300


def _result(changes: dict[str, tuple[float, bool]], fires: dict | None = None) -> RunResult:
    """Two variants of a hand-built game: each metric's (difference, significant) in 1.1; the
    case metric ``gap_multi_tie`` stays 0 in both unless a change says otherwise."""
    names = ("1.0", "1.1")
    metrics = [Metric("removed", "mean", ""), Metric("gap_multi_tie", "mean", "")]
    rows, cmp = [], []
    for m in metrics:
        diff, sig = changes.get(m.name, (0.0, False))
        start = 1.0 if m.name == "removed" else 0.0
        for v, mean in (("1.0", start), ("1.1", start + diff)):
            rows.append(
                {
                    "variant": v,
                    "metric": m.name,
                    "kind": "mean",
                    "mean": mean,
                    "se": 0.1,
                    "ci_low": mean - 0.2,
                    "ci_high": mean + 0.2,
                    "n": N,
                }
            )
        half = 0.05 if sig else abs(diff) + 0.1
        cmp.append(
            {
                "variant": "1.1",
                "baseline": "1.0",
                "metric": m.name,
                "difference": diff,
                "se": half / 1.96,
                "ci_low": diff - half,
                "ci_high": diff + half,
                "adj_low": diff - half,
                "adj_high": diff + half,
                "p_value": 0.001 if sig else 0.5,
                "p_holm": 0.002 if sig else 0.5,
                "significant": sig,
                "test": "paired t",
            }
        )
    procedure = SimpleNamespace(fires=fires or {}, assumptions=(), params_model=None)
    scenario = SimpleNamespace(
        name="hand",
        sweep={},
        procedure=procedure,
        variant_dicts=lambda: {"1.0": {"revision": "1.0"}, "1.1": {"revision": "1.1"}},
        variants={},
    )
    plan = SimpleNamespace(
        variant_names=names, metrics=tuple(metrics), independent=False, n_variants=2
    )
    outcome = SimpleNamespace(trials=N, complete=True, batch_stats=None)
    return RunResult(
        scenario,
        plan,
        outcome,
        pd.DataFrame(rows),
        pd.DataFrame(),  # type: ignore[arg-type]
        pd.DataFrame(cmp),
    )


def test_a_rule_that_never_fired_is_said_so_instead_of_no_change():
    result = _result({}, fires={"revision": ("gap_multi_tie",)})
    found = cases(result)
    assert [(c.variant, c.knob, c.never) for c in found] == [("1.1", "revision", True)]
    lines = verdict(build(result), grounds=Grounds(cases=found))
    assert lines[0] == (
        "1.1 vs 1.0: the cases where revision differs (gap_multi_tie) arose 0 times in 300 "
        "games under either; this comparison cannot see the change"
    )
    assert not any(line.startswith("1.1: no significant change") for line in lines)


def test_a_rule_that_fired_says_how_often():
    # The case arose but nothing changed significantly: the count is what backs "no change".
    result = _result({"gap_multi_tie": (0.5, False)}, fires={"revision": ("gap_multi_tie",)})
    lines = verdict(build(result), grounds=Grounds(cases=cases(result)))
    assert lines[0] == (
        "1.1 vs 1.0: the cases where revision differs (gap_multi_tie) arose 0 times under 1.0 "
        "and 150 under 1.1 in 300 games"
    )


def test_without_case_metrics_no_change_carries_what_it_could_have_seen():
    lines = verdict(build(_result({})))
    # removed is the only metric shown; no variant moved it, so its size is in the last line.
    assert lines[0] == "1.1: no significant change in 1 metric (what it would have seen: below)"
    assert lines[-1].startswith(
        "no significant change in any variant (each with the smallest change it would have "
        "seen): removed 0."
    )


def test_the_robustness_option_reads_the_section_or_names_levels():
    spec = RobustnessSpec(policies=["random", "greedy"], trials=50)
    assert from_option(None, spec) is spec
    assert from_option("none", spec) is None
    assert from_option("assumptions", spec) == RobustnessSpec(assumptions=True, trials=50)
    timed = RobustnessSpec(policies=["random"], seconds=30)
    assert from_option("policies=greedy", timed) == RobustnessSpec(policies=["greedy"], seconds=30)
    assert from_option("policies=random, mcts", None) == RobustnessSpec(policies=["random", "mcts"])
    with pytest.raises(ValueError, match="lists no play levels"):
        from_option("policies", None)
    with pytest.raises(ValueError, match="use policies"):
        from_option("everything", spec)


TOY_ASSUMPTION = Assumption(
    "first_share",
    "shares",
    "invented",
    "a test procedure",
    "seat 1 gets 30%",
    alternatives=(
        Alternative("equal", {"shares": [250_000] * 4}),
        Alternative("too much", {"shares": [900_000, 250_000, 0, 0]}),
    ),
)


def test_levels_the_rules_refuse_are_kept_with_why_and_the_rest_replays_on_1_and_2_threads():
    proc = dataclasses.replace(toy.PROCEDURE, assumptions=(TOY_ASSUMPTION,))
    variants = {
        "base": toy.ToyParams(shares=[300_000, 250_000, 250_000, 200_000]),
        "b": toy.ToyParams(shares=[300_000, 250_000, 250_000, 200_000], shift_ppm=50_000),
    }
    scenario = dataclasses.replace(toy.scenario(variants, 400, 3), procedure=proc)
    scenario.robustness = RobustnessSpec(assumptions=True)
    levels = [
        Level(f"first_share: {a.label}", "assumption", a.overrides, "first_share")
        for a in TOY_ASSUMPTION.alternatives
    ]
    moved = with_level(scenario, levels[0])
    assert moved.variants["b"].shares == [250_000] * 4 and moved.variants["b"].shift_ppm == 50_000
    main = run_scenario(scenario, threads=1)
    one = run_robustness(scenario, levels, main, threads=1)
    two = run_robustness(scenario, levels, main, threads=2)
    assert [r.refused == "" for r in one.reruns] == [True, True]
    # Pydantic takes [900000, 250000, 0, 0] (no sum rule in the toy): both run, identically.
    for a, b in zip(one.reruns, two.reruns, strict=True):
        assert a.result is not None and b.result is not None
        pd.testing.assert_frame_equal(a.result.estimates, b.result.estimates)
        pd.testing.assert_frame_equal(a.result.comparisons, b.result.comparisons)
    refused = Level("first_share: bad", "assumption", {"shares": [1, 2]}, "first_share")
    (rerun,) = run_robustness(scenario, [refused], main, threads=1).reruns
    assert rerun.result is None and rerun.refused.startswith("shares:")


def test_sim_run_refuses_robustness_it_cannot_rerun(tmp_path):
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "run",
            "scenarios/his/field_battle.yaml",
            "--robustness",
            "policies",
            "-q",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 2
    assert "lists no play levels" in r.stderr + r.output
    bad = tmp_path / "bad.yaml"
    text = Path("scenarios/his/field_battle.yaml").read_text()
    bad.write_text(text + "robustness: {policies: [greedy]}\n")
    r = runner.invoke(app, ["validate", str(bad)])
    assert r.exit_code == 2
    assert "robustness.policies: his.field_battle has no policies" in r.output + r.stderr


def test_a_sweep_over_policies_prints_a_cell_for_every_level_and_variant(tmp_path):
    """A one-path sweep of a whole game has too many metrics for a column each: a row per metric
    and a column per level and variant, every cell filled."""
    path = tmp_path / "levels.yaml"
    path.write_text(
        "name: levels\nprocedure: recruitment.loyalty\ntrials: 20\nseed: 3\n"
        "params: {players: 4, revision: '1.0'}\nvariants:\n  revision-1.1: {revision: '1.1'}\n"
        "sweep:\n  policies: [random, greedy]\n"
    )
    r = CliRunner().invoke(app, ["run", str(path), "-q", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    header = next(line for line in r.stdout.splitlines() if "random · base" in line)
    assert "greedy · revision-1.1" in header
    row = next(line for line in r.stdout.splitlines() if "characters_owned " in line)
    assert row.count("[") == 4 and "…" not in row
