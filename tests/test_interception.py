"""Here I Stand interception and avoiding battle (Here I Stand rules §5.3): kernel, twin, exact,
icepool."""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive_his_combat as naive
from tests.fold import fold

PROC = get("his.interception")


def params(**kw):
    return PROC.params_model.model_validate(kw)


def test_kernel_equals_plain_python_twin():
    raws = [
        {"leader": 1},
        {"kind": "avoid", "leader": 2, "with_cavalry": True},
        {"against_cavalry": True, "leader": 3, "target": 10},
        {"kind": "avoid", "lost_battle_this_impulse": True},
        {"kind": "avoid", "lost_battle_this_impulse": True, "forces": "naval", "leader": 1},
        {"kind": "avoid", "forces": "naval", "port": True, "leader": 6},
        {"forces": "naval", "port": True, "leader": 6},
        {"forces": "naval", "leader": 2},
    ]
    variants = {f"v{i}": params(**r) for i, r in enumerate(raws)}
    plan = make_plan(PROC, variants, seed=99)
    key = int(scenario_key(99))
    first, n = 12345, 1000
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_interception(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


@pytest.mark.parametrize("leader", range(7))
@pytest.mark.parametrize(
    ("with_cavalry", "against_cavalry"), [(False, False), (True, False), (False, True)]
)
def test_exact_success_agrees_with_icepool(leader, with_cavalry, against_cavalry):
    mod = leader + with_cavalry - against_cavalry
    oracle = float((2 @ icepool.d6 + mod >= 9).probability(True))
    p = params(leader=leader, with_cavalry=with_cavalry, against_cavalry=against_cavalry)
    assert PROC.exact(p)["success"] == pytest.approx(oracle, abs=1e-15)


def kernel_success(p, trials: int = 40_000, seed: int = 1517) -> tuple[float, float]:
    """The kernel's success rate for ``p`` and a standard error floor of one trial."""
    plan = make_plan(PROC, {"base": p}, seed=seed)
    out = simulate(plan, trials, threads=1)
    n, s = int(out.stats[0, 0]), int(out.stats[0, 1])
    return s / n, 1 / n


def assert_kernel_near(p, want: float, trials: int = 40_000) -> None:
    got, floor = kernel_success(p, trials)
    se = max(np.sqrt(want * (1 - want) / trials), floor)
    assert abs(got - want) <= 5 * se, (got, want)


@pytest.mark.parametrize("leader", [0, 2, 4, 6])
@pytest.mark.parametrize("kind", ["intercept", "avoid"])
@pytest.mark.parametrize(
    ("with_cavalry", "against_cavalry"), [(False, False), (True, False), (False, True)]
)
def test_estimates_within_five_standard_errors_of_exact(
    leader, kind, with_cavalry, against_cavalry
):
    # exact() recomputes the modifier from the rule text, independently of the kernel's packing.
    p = params(kind=kind, leader=leader, with_cavalry=with_cavalry, against_cavalry=against_cavalry)
    assert_kernel_near(p, PROC.exact(p)["success"])


# Rule branches, each on the kernel against a value counted by hand from the rule text
# (2d6 reaches 8 in 15 of 36 rolls, 9 in 10, 10 in 6, 11 in 3).


def test_kernel_needs_nine_on_two_dice_without_a_leader():
    assert_kernel_near(params(), 10 / 36)


def test_kernel_adds_the_leaders_battle_rating():
    assert_kernel_near(params(leader=2), 21 / 36)  # 2d6 >= 7


def test_reaching_the_target_exactly_succeeds():
    # A leader of 6 needs 3 on two dice: only a double one fails ("9 or more", not "more than 9").
    assert_kernel_near(params(leader=6), 35 / 36)
    assert_kernel_near(params(leader=0, target=12), 1 / 36)


@pytest.mark.parametrize("kind", ["intercept", "avoid"])
def test_cavalry_in_the_rolling_formation_adds_one(kind):
    assert_kernel_near(params(kind=kind, with_cavalry=True), 15 / 36)  # 2d6 >= 8


@pytest.mark.parametrize("kind", ["intercept", "avoid"])
def test_enemy_cavalry_subtracts_one_from_the_roll(kind):
    assert_kernel_near(params(kind=kind, against_cavalry=True), 6 / 36)  # 2d6 >= 10


def test_kernel_cavalry_on_both_sides_cancel():
    assert_kernel_near(params(leader=1, with_cavalry=True, against_cavalry=True), 15 / 36)


def test_a_formation_that_did_not_lose_a_battle_rolls_to_avoid():
    assert_kernel_near(params(kind="avoid", lost_battle_this_impulse=False), 10 / 36)


def test_a_leaderless_formation_needs_nine_on_two_dice():
    assert PROC.exact(params())["success"] == pytest.approx(10 / 36)


def test_cavalry_on_both_sides_cancel():
    both = params(leader=1, with_cavalry=True, against_cavalry=True)
    assert PROC.exact(both)["success"] == PROC.exact(params(leader=1))["success"]


def test_a_formation_that_lost_a_battle_this_impulse_avoids_automatically():
    p = params(kind="avoid", lost_battle_this_impulse=True)
    plan = make_plan(PROC, {"base": p}, seed=3)
    stats = run_range(plan, -1, 0, 1000)
    assert stats[0, 0] == stats[0, 1] == 1000
    assert PROC.exact(p)["success"] == 1.0


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ({"kind": "ambush"}, ("kind",)),
        ({"kind": "intercept", "lost_battle_this_impulse": True}, ("lost_battle_this_impulse",)),
        ({"leader": -1}, ("leader",)),
        ({"leader": 2, "cavalry": True}, ("cavalry",)),
    ],
)
def test_bad_parameters_name_the_field(raw, loc):
    with pytest.raises(ValidationError) as err:
        PROC.params_model.model_validate(raw)
    assert err.value.errors()[0]["loc"] == loc


def test_a_scenario_with_an_unknown_kind_points_at_the_line():
    from simulator.scenario import ScenarioError, parse

    text = "name: bad\nprocedure: his.interception\ntrials: 10\nseed: 1\nparams:\n  kind: ambush\n"
    with pytest.raises(ScenarioError) as err:
        parse(text, "bad.yaml")
    (problem,) = err.value.problems
    assert (problem.line, problem.path) == (6, "params.kind")


def test_a_fleet_beaten_this_impulse_still_rolls_to_avoid_where_an_army_avoids_at_once():
    # Here I Stand rules §5.3 (2): a land formation beaten this impulse avoids without a roll;
    # §6.3: a fleet that already lost a naval battle this impulse still rolls. Leader 2: 2d6 >= 7
    # is 21/36.
    land = params(kind="avoid", leader=2, lost_battle_this_impulse=True)
    sea = params(kind="avoid", leader=2, lost_battle_this_impulse=True, forces="naval")
    assert PROC.exact(land)["success"] == 1.0
    assert PROC.exact(sea)["success"] == pytest.approx(21 / 36, abs=1e-15)
    assert_kernel_near(land, 1.0)
    assert_kernel_near(sea, 21 / 36)


@pytest.mark.parametrize("kind", ["intercept", "avoid"])
def test_no_interception_into_a_port_and_no_avoiding_from_one(kind):
    # Here I Stand rules §6.3: a fleet entering a port cannot be intercepted; a fleet in a port
    # cannot avoid battle. Even leader 6 (2d6 >= 3, 35/36 in the open sea) never succeeds.
    in_port = params(kind=kind, leader=6, forces="naval", port=True)
    open_sea = params(kind=kind, leader=6, forces="naval")
    assert PROC.exact(in_port)["success"] == 0.0
    assert PROC.exact(open_sea)["success"] == pytest.approx(35 / 36, abs=1e-15)
    assert kernel_success(in_port)[0] == 0.0
    assert_kernel_near(open_sea, 35 / 36)


def test_port_is_for_fleets_and_cavalry_for_armies():
    with pytest.raises(ValidationError) as err:
        params(port=True)
    assert err.value.errors()[0]["loc"] == ("port",)
    with pytest.raises(ValidationError) as err:
        params(forces="naval", with_cavalry=True)
    assert err.value.errors()[0]["loc"] == ("with_cavalry",)
