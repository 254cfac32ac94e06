"""`sim tune`: the answer against exact values, ties, reproducibility, the adaptive schedule,
the confirmation seed, Ctrl-C and bad `tune:` sections."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.scenario import ScenarioError, parse
from simulator.tune import parse_tune, run_tune
from simulator.tune.report import document, params_fragment
from simulator.tune.search import confirm_seed, rung_sizes
from simulator.tune.spec import candidate_params

FAIR_BATTLE = Path(__file__).parent.parent / "scenarios" / "his" / "fair_battle.yaml"

BATTLE = """\
name: tune-test
procedure: his.field_battle
trials: {trials}
seed: 7
params:
  attacker: {{units: 4, leader: 0}}
  defender: {{units: 4, leader: 0}}
tune:
  search:
    defender_extra_dice: [0, 1, 2]
    hit_on: {{from: 4, to: 6}}
    ties_to: [defender, attacker]
  target: {{attacker_wins: {target}}}
  budget: {budget}
"""


def _scenario(trials: int = 20_000, target: float = 0.5, budget: int = 60, extra: str = ""):
    return parse(BATTLE.format(trials=trials, target=target, budget=budget) + extra, "t.yaml")


def _exact_values(scenario) -> dict[tuple, float]:
    """attacker_wins of every candidate, from the field battle's exact distribution."""
    spec = parse_tune(scenario)
    out = {}
    for index in itertools.product(*(range(len(a.values)) for a in spec.axes)):
        values = spec.candidate_values(index)
        params = candidate_params(scenario, values)
        out[tuple(values.values())] = scenario.procedure.exact(params)["attacker_wins"]
    return out


def test_the_answer_is_the_candidate_whose_exact_value_is_nearest_the_target():
    scenario = _scenario()
    exact = _exact_values(scenario)
    nearest = min(exact, key=lambda k: abs(exact[k] - 0.5))
    result = run_tune(scenario, threads=2)
    assert result.complete
    assert tuple(result.best[0].values.values()) == nearest
    assert result.best[0].trials == 20_000


def test_ties_are_the_candidates_whose_exact_values_lie_in_the_reported_interval():
    # 0.634 sits between two candidates 0.005 apart (exact 0.63168 and 0.63672): at 200,000
    # trials the data cannot rank them; the next one (0.6464) is far outside the best's interval.
    scenario = _scenario(trials=200_000, target=0.634)
    exact = _exact_values(scenario)
    result = run_tune(scenario, threads=2)
    best = result.best[0]
    high = best.objectives[0][2]
    inside = {k for k, v in exact.items() if abs(v - 0.634) <= high}
    # The assertion below is only meaningful if no exact value sits on the band's edge.
    assert all(abs(abs(v - 0.634) - high) > 0.001 for v in exact.values()), high
    listed = {tuple(c.values.values()) for c in [best, *result.ties]}
    assert listed == inside
    assert len(inside) == 2


def test_the_same_seed_gives_the_same_candidates_and_answer_on_one_and_two_threads():
    one = run_tune(_scenario(trials=3_000), threads=1)
    two = run_tune(_scenario(trials=3_000), threads=2)
    a, b = document(one), document(two)
    for doc in (a, b):
        doc.pop("elapsed_seconds")
    assert a == b


def test_the_confirmation_runs_on_a_seed_other_than_the_search():
    result = run_tune(_scenario(trials=3_000), threads=2)
    assert result.confirmation is not None
    assert result.confirmation.seed == confirm_seed(7) != 7
    doc = document(result)
    assert doc["confirmation"]["seed"] != doc["seed"]
    assert doc["best"]["confirmed"] is True
    # Confirmed metrics come from the fresh seed, not the search's estimates.
    assert doc["best"]["metrics"]["attacker_wins"]["n"] == 3_000


def test_the_adaptive_schedule_spends_at_most_a_third_of_evaluating_every_candidate_fully():
    scenario = _scenario(trials=60_000)
    result = run_tune(scenario, threads=2)
    assert result.trials_spent <= result.trials_full / 3
    # The same answer as every candidate at the full trial count.
    full = run_tune(_scenario(trials=60_000), threads=2)
    assert result.best[0].values == full.best[0].values
    assert rung_sizes(60_000) == [2_222, 6_666, 20_000, 60_000]


def test_a_space_over_the_budget_is_searched_by_optuna_reproducibly():
    scenario = _scenario(trials=2_000, budget=6)
    first = run_tune(scenario, threads=2)
    again = run_tune(_scenario(trials=2_000, budget=6), threads=2)
    assert first.method == "Optuna TPE"
    assert len(first.candidates) == 6
    assert [c.values for c in first.candidates] == [c.values for c in again.candidates]
    assert first.best[0].values == again.best[0].values


def test_several_objectives_give_a_pareto_front():
    text = BATTLE.format(trials=4_000, target=0.5, budget=60).replace(
        "  target: {attacker_wins: 0.5}\n",
        "  target: {attacker_wins: 0.5}\n  maximize: defender_hits\n",
    )
    scenario = parse(text, "t.yaml")
    result = run_tune(scenario, threads=2)
    assert len(result.best) >= 1
    for c in result.best:
        assert c.status == "front"
        for d in result.best:
            better = [a[0] < b[0] for a, b in zip(d.objectives, c.objectives, strict=True)]
            worse = [a[0] > b[0] for a, b in zip(d.objectives, c.objectives, strict=True)]
            assert not (all(better) and any(better)) or any(worse)


def test_the_params_fragment_is_yaml_to_paste():
    result = run_tune(_scenario(trials=3_000), threads=2)
    assert params_fragment(result) == (
        "params:\n  defender_extra_dice: 1\n  hit_on: 4\n  ties_to: attacker"
    )


def test_ctrl_c_reports_the_best_so_far_marked_incomplete(ctrl_c_on_third_wait):
    result = run_tune(_scenario(trials=2_000_000), threads=2)
    assert not result.complete
    assert result.confirmation is None


def test_sim_tune_prints_the_answer_writes_reports_and_json(tmp_path):
    runner = CliRunner()
    res = runner.invoke(
        app, ["tune", str(FAIR_BATTLE), "--trials", "5000", "--out", str(tmp_path), "--json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    for key in ("scenario", "procedure", "seed", "target", "best", "ties", "candidates"):
        assert key in doc
    assert doc["target"] == {"attacker_wins": 0.5}
    assert doc["best"]["params"] == {
        "defender_extra_dice": 1,
        "hit_on": 4,
        "ties_to": "attacker",
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "report.html",
        "tune.csv",
        "tune.json",
        "tune.png",
    ]


@pytest.mark.parametrize(
    ("section", "where", "message"),
    [
        (
            "  search: {defender_extra: [0, 1]}\n  target: {attacker_wins: 0.5}\n",
            "tune.search.defender_extra",
            "did you mean 'defender_extra_dice'",
        ),
        (
            "  search: {hit_on: []}\n  target: {attacker_wins: 0.5}\n",
            "tune.search.hit_on",
            "empty list",
        ),
        (
            "  search: {hit_on: [4, 5]}\n  target: {attacker_won: 0.5}\n",
            "tune.target.attacker_won",
            "unknown metric",
        ),
        ("  search: {hit_on: [4, 5]}\n", "tune", "must say what to aim for"),
        (
            "  search: {hit_on: [4, 5]}\n  minimize: attacker_wins\n  budget: 0\n",
            "tune.budget",
            "whole number",
        ),
        ("  search: {hit_on: [4, 9]}\n  minimize: attacker_wins\n", "tune.search", "is not valid"),
        ("  search: {}\n  minimize: attacker_wins\n", "tune.search", "at least one"),
        ("  serch: {hit_on: [4]}\n  minimize: attacker_wins\n", "tune.serch", "did you mean"),
    ],
)
def test_bad_tune_sections_are_refused_with_their_place(section, where, message):
    text = (
        BATTLE.format(trials=1000, target=0.5, budget=5).split("tune:\n")[0] + "tune:\n" + section
    )
    scenario = parse(text, "t.yaml")
    with pytest.raises(ScenarioError) as e:
        parse_tune(scenario)
    shown = str(e.value)
    assert shown.startswith("t.yaml:") and f": {where}" in shown and message in shown


def test_a_path_set_by_a_variant_or_swept_is_refused():
    text = BATTLE.format(trials=1000, target=0.5, budget=5) + (
        "variants:\n  generous: {hit_on: 4}\n"
    )
    with pytest.raises(ScenarioError, match="also set by variant 'generous'"):
        parse_tune(parse(text, "t.yaml"))
    swept = BATTLE.format(trials=1000, target=0.5, budget=5) + "sweep:\n  hit_on: [4, 5]\n"
    with pytest.raises(ScenarioError, match="also swept"):
        parse_tune(parse(swept, "t.yaml"))


def test_sim_tune_and_validate_exit_2_on_a_bad_section(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        BATTLE.format(trials=1000, target=0.5, budget=5).split("tune:\n")[0]
        + "tune:\n  search: {hit_on: [4]}\n"
    )
    runner = CliRunner()
    for command in ("tune", "validate"):
        res = runner.invoke(app, [command, str(bad)])
        assert res.exit_code == 2
        assert f"{bad}:8:1: tune: must say what to aim for" in res.output


@pytest.mark.dask
def test_a_tune_on_dask_gives_the_local_answer():
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    from simulator import dask_backend

    local = document(run_tune(_scenario(trials=3_000), threads=2))
    with dask_backend.connect(workers=2) as backend:
        backend.client.wait_for_workers(2, timeout=120)
        remote = document(run_tune(_scenario(trials=3_000), backend=backend))
    for doc in (local, remote):
        doc.pop("elapsed_seconds")
    assert remote == local
