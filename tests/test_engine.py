"""The engine: results depend only on seed and trial indices; Ctrl-C keeps finished work."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simulator import engine
from simulator.engine import make_plan, simulate
from simulator.procedures import get
from simulator.runner import run_scenario
from simulator.scenario import load

PROC = get("his.field_battle")
SCENARIO = "scenarios/his/defender_bonus.yaml"


def _plan(independent=False, seed=11):
    p = PROC.params_model.model_validate(
        {"attacker": {"units": 5, "leader": 1}, "defender": {"units": 4, "leader": 1}}
    )
    q = PROC.params_model.model_validate(
        {
            "attacker": {"units": 5, "leader": 1},
            "defender": {"units": 4, "leader": 1},
            "defender_extra_dice": 0,
        }
    )
    return make_plan(PROC, {"base": p, "no-bonus": q}, seed, independent)


def _document(**kw):
    doc = run_scenario(SCENARIO, trials=30_011, **kw).document()
    doc.pop("versions")
    return json.dumps(doc, sort_keys=True)


def test_json_is_identical_for_one_and_two_threads():
    assert _document(threads=1) == _document(threads=2)


def test_json_is_identical_for_two_chunk_sizes():
    assert _document(chunk_size=1000, threads=2) == _document(chunk_size=4099, threads=1)


def test_statistics_are_identical_for_any_split_of_the_trials():
    plan = _plan()
    whole = simulate(plan, 20_000, threads=1, chunk_size=20_000).stats
    parts = sum(engine.run_range(plan, -1, a, 2_500) for a in range(0, 20_000, 2_500))
    np.testing.assert_array_equal(whole, parts)


def test_independent_streams_differ_from_shared_ones_except_for_the_first_variant():
    shared = simulate(_plan(False), 10_000, threads=1).stats
    indep = simulate(_plan(True), 10_000, threads=1).stats
    np.testing.assert_array_equal(shared[0], indep[0])
    assert not np.array_equal(shared[1], indep[1])


def test_a_different_seed_gives_different_numbers():
    a = simulate(_plan(seed=1), 10_000, threads=1).stats
    b = simulate(_plan(seed=2), 10_000, threads=1).stats
    assert not np.array_equal(a, b)


def test_precision_runs_batches_until_the_half_width_is_reached():
    scenario = load(SCENARIO)
    result = run_scenario(scenario, trials=1_000, precision=0.01, max_trials=1_000_000)
    est = result.estimates
    widest = ((est["ci_high"] - est["ci_low"]) / 2)[est["metric"] == "attacker_wins"].max()
    assert widest <= 0.01
    assert result.outcome.batches[0] == 1_000
    assert result.outcome.trials == result.outcome.batches[-1] > 1_000
    # Stopping is deterministic: the same run stops at the same count.
    again = run_scenario(load(SCENARIO), trials=1_000, precision=0.01, max_trials=1_000_000)
    assert again.outcome.trials == result.outcome.trials


def test_precision_stops_at_max_trials():
    result = run_scenario(SCENARIO, trials=1_000, precision=1e-6, max_trials=4_000)
    assert result.outcome.trials == 4_000


def test_ctrl_c_keeps_finished_chunks_and_marks_the_run_incomplete(
    monkeypatch, ctrl_c_on_third_wait
):
    plan = _plan()
    out = simulate(plan, 400_000, threads=1, chunk_size=10_000)
    assert not out.complete
    assert 0 < out.trials < 400_000
    assert out.trials % 10_000 == 0
    # What was kept is exactly the statistics of the first trials.
    monkeypatch.setattr(engine, "wait", ctrl_c_on_third_wait)  # the real wait again
    np.testing.assert_array_equal(out.stats, simulate(plan, out.trials, threads=1).stats)


def test_variants_that_change_the_metric_set_are_refused():
    from simulator.procedures.base import Metric

    other = {
        "base": PROC.params_model.model_validate(
            {"attacker": {"units": 2}, "defender": {"units": 2}}
        )
    }
    proc = engine.Procedure(**{**PROC.__dict__, "metrics": lambda p: [Metric("x", "mean", "")]})
    make_plan(proc, other, 1)  # one variant is fine
    flip = iter([[Metric("x", "mean", "")], [Metric("y", "mean", "")]])
    proc2 = engine.Procedure(**{**PROC.__dict__, "metrics": lambda p: next(flip)})
    with pytest.raises(engine.PlanError):
        make_plan(proc2, {**other, "v": other["base"]}, 1)
