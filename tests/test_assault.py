"""Here I Stand assault and siege campaigns (Here I Stand rules §5.7): kernel against its twin,
exact values and icepool."""

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

PROC = get("his.assault")


def params(**kw):
    base = {"attacker": {"units": 8, "leader": 1}, "defender": {"units": 3}}
    base.update(kw)
    return PROC.params_model.model_validate(base)


def estimates(p, trials, seed=1517):
    """Mean and standard error of every metric from `trials` kernel trials. The error is at least
    1/trials, so a rare event that never happened in the sample (rule of three) does not fail."""
    plan = make_plan(PROC, {"base": p}, seed=seed)
    out = simulate(plan, trials, threads=1)
    result = {}
    for m, metric in enumerate(plan.metrics):
        n, s, ss = (int(x) for x in out.stats[0, 4 * m : 4 * m + 3])
        var = (n * ss - s * s) / (n * (n - 1))
        result[metric.name] = (s / n, max(np.sqrt(var / n), 1 / n))
    return result


@pytest.mark.parametrize(
    "raw",
    [
        {
            "attacker": {"units": 8, "cavalry": 3, "leader": 1},
            "defender": {"units": 3},
            "max_assaults": 10,
        },
        {
            "attacker": {"units": 4, "leader": 2},
            "defender": {"units": 0, "leader": 1},
            "max_assaults": 3,
        },
        {"attacker": {"units": 5, "cavalry": 5}, "defender": {"units": 1}, "max_assaults": 4},
        {
            "attacker": {"units": 12, "cavalry": 2, "leader": 2},
            "defender": {"units": 4, "leader": 1},
            "hit_on": 4,
            "max_assaults": 6,
        },
        {"attacker": {"units": 3, "leader": 2}, "defender": {"units": 3}},
        {"attacker": {"units": 6, "cavalry": 4}, "defender": {"units": 0}, "max_assaults": 3},
        {"attacker": {"units": 7, "leader": 0}, "defender": {"units": 2, "leader": 0}},
        {
            "attacker": {"units": 40, "cavalry": 10, "leader": 6},
            "defender": {"units": 10, "leader": 6},
            "defender_extra_dice": 5,
            "hit_on": 6,
            "max_assaults": 64,
        },
        {"attacker": {"units": 2, "leader": 0}, "defender": {"units": 1}, "max_assaults": 3},
        {
            "attacker": {"units": 6, "leader": 1},
            "defender": {"units": 2},
            "max_assaults": 3,
            "port": {"squadrons_in_port": 2, "enemy_squadrons_adjacent": 2},
        },
        {
            "attacker": {"units": 6, "leader": 1},
            "defender": {"units": 2},
            "max_assaults": 3,
            "port": {"squadrons_in_port": 1, "enemy_squadrons_adjacent": 2},
        },
    ],
)
def test_kernel_equals_plain_python_twin(raw):
    variants = {
        "base": PROC.params_model.model_validate(raw),
        "infantry-first": PROC.params_model.model_validate({**raw, "lose_cavalry_first": False}),
        "no-extra-die": PROC.params_model.model_validate({**raw, "defender_extra_dice": 0}),
    }
    plan = make_plan(PROC, variants, seed=99)
    key = int(scenario_key(99))
    first, n = 3000, 600
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_assault(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


@pytest.mark.parametrize(
    "raw",
    [
        {"attacker": {"units": 8, "leader": 1}, "defender": {"units": 3}, "max_assaults": 10},
        {"attacker": {"units": 6, "cavalry": 2}, "defender": {"units": 0, "leader": 1}},
        {"attacker": {"units": 2}, "defender": {"units": 2}},
        {"attacker": {"units": 2, "leader": 1}, "defender": {"units": 1}, "max_assaults": 2},
        {"attacker": {"units": 5}, "defender": {"units": 1}, "port": {"squadrons_adjacent": 1}},
    ],
)
def test_single_variant_tallies_equal_the_plain_python_twin(raw):
    # One variant takes the kernel's tally path instead of per-trial values.
    p = PROC.params_model.model_validate(raw)
    plan = make_plan(PROC, {"base": p}, seed=11)
    key = int(scenario_key(11))
    got = run_range(plan, -1, 77, 1500)
    twin = [[naive.his_assault(p.model_dump(), key, t) for t in range(77, 77 + 1500)]]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [
    (a, cav, al, d, dl, k)
    for a, cav in ((2, 0), (4, 0), (4, 2), (7, 1))
    for al in (0, 2)
    for d, dl in ((0, 0), (1, 0), (2, 1))
    for k in (1, 4)
]


@pytest.mark.parametrize(("a", "cav", "al", "d", "dl", "k"), GRID)
def test_estimates_within_five_standard_errors_of_exact(a, cav, al, d, dl, k):
    p = params(
        attacker={"units": a, "cavalry": cav, "leader": al},
        defender={"units": d, "leader": dl},
        max_assaults=k,
    )
    exact = PROC.exact(p)
    for name, (mean, se) in estimates(p, 20_000).items():
        assert abs(mean - exact[name]) <= 5 * se, name


def test_ten_assault_siege_campaign_within_five_standard_errors_of_exact():
    p = params(max_assaults=10)
    exact = PROC.exact(p)
    for name, (mean, se) in estimates(p, 100_000).items():
        assert abs(mean - exact[name]) <= 5 * se, name


def _icepool_single_assault(units, cavalry, leader, defenders, d_leader, extra):
    """Probabilities of (space falls, siege broken) in one assault, by icepool."""
    hit = icepool.d6 >= 5
    # Cavalry never roll in an assault (Here I Stand rules §11.1 ①).
    a_dice = (units - cavalry + 1) // 2 + leader if defenders > 0 else units - cavalry + leader
    a_hits = a_dice @ hit
    d_hits = (defenders + d_leader + extra) @ hit

    def outcome(ah, dh):
        u_left = max(units - dh, 0)
        d_left = max(defenders - ah, 0)
        falls = d_left == 0 and u_left > 0 and (defenders > 0 or ah > 0)
        return "falls" if falls else ("broken" if u_left <= d_left else "goes on")

    die = icepool.map(outcome, a_hits, d_hits)
    return float(die.probability("falls")), float(die.probability("broken"))


@pytest.mark.parametrize(
    ("units", "cavalry", "leader", "defenders", "d_leader"),
    [(8, 0, 1, 3, 0), (6, 2, 2, 2, 1), (3, 0, 0, 1, 0), (5, 1, 0, 0, 0), (9, 4, 3, 4, 2)],
)
def test_single_assault_exact_values_agree_with_icepool(
    units, cavalry, leader, defenders, d_leader
):
    p = params(
        attacker={"units": units, "cavalry": cavalry, "leader": leader},
        defender={"units": defenders, "leader": d_leader},
    )
    exact = PROC.exact(p)
    falls, broken = _icepool_single_assault(units, cavalry, leader, defenders, d_leader, 1)
    assert exact["space_falls"] == pytest.approx(falls, abs=1e-12)
    assert exact["siege_broken"] == pytest.approx(broken, abs=1e-12)


def test_cavalry_take_losses_but_add_no_dice():
    # Only cavalry and no leader: no attacker die in any assault.
    p = params(attacker={"units": 5, "cavalry": 5}, defender={"units": 2}, max_assaults=5)
    est = estimates(p, 5_000)
    assert est["attacker_hits"][0] == 0
    assert est["space_falls"][0] == 0
    assert est["defender_hits"][0] > 0
    assert PROC.exact(p)["attacker_hits"] == 0


@pytest.mark.parametrize("leader", ["none", 0])
def test_cavalry_add_no_dice_against_an_empty_fortress(leader):
    # Here I Stand rules §11.1 ①: cavalry "cannot provide dice in an assault", without condition.
    # Four cavalry without a (rated) leader roll nothing, so an empty fortress never falls to them.
    p = params(
        attacker={"units": 4, "cavalry": 4, "leader": leader, "command": 4},
        defender={"units": 0},
        max_assaults=3,
    )
    assert PROC.exact(p)["space_falls"] == 0
    est = estimates(p, 5_000)
    assert est["space_falls"][0] == 0
    assert est["attacker_hits"][0] == 0


def test_only_the_non_cavalry_units_roll_against_an_empty_fortress():
    # 3 cavalry + 2 other units and a rating-1 leader: 2 + 1 = 3 dice, one hit takes the space.
    p = params(
        attacker={"units": 5, "cavalry": 3, "leader": 1, "command": 6}, defender={"units": 0}
    )
    expected = 1 - (2 / 3) ** 3
    assert PROC.exact(p)["space_falls"] == pytest.approx(expected, abs=1e-12)
    mean, se = estimates(p, 40_000)["space_falls"]
    assert abs(mean - expected) <= 5 * se


def test_a_defending_leader_rated_0_is_captured_when_the_space_falls():
    # A leader rated 0 is still a leader (Here I Stand rules §5.4 ⑥); "none" means nobody to
    # capture.
    rated_0 = params(defender={"units": 1, "leader": 0}, max_assaults=4)
    nobody = params(defender={"units": 1}, max_assaults=4)
    falls = PROC.exact(rated_0)["space_falls"]
    assert PROC.exact(rated_0)["defender_leader_captured"] == pytest.approx(falls, abs=1e-15)
    assert PROC.exact(nobody)["defender_leader_captured"] == 0
    est = estimates(rated_0, 20_000)
    assert est["defender_leader_captured"][0] == est["space_falls"][0] > 0.5
    assert estimates(nobody, 2_000)["defender_leader_captured"][0] == 0


def test_the_space_falls_within_k_assaults_as_often_as_a_k_assault_campaign_takes_it():
    # P(falls within k) read off the assault that took the space must equal, exactly, the
    # chance that a campaign of k assaults takes it.
    from simulator import stats as st

    p = params(max_assaults=6)
    plan = make_plan(PROC, {"base": p}, seed=3)
    out = simulate(plan, 60_000, threads=1)
    dist = st.distributions(plan, out.stats)
    dist = dist[dist["metric"] == "space_falls_at_assault"].set_index("value")["probability"]
    n = 60_000
    for k in (1, 2, 4, 6):
        within = float(dist.loc[1:k].sum())
        exact = PROC.exact(params(max_assaults=k))["space_falls"]
        se = max(np.sqrt(exact * (1 - exact) / n), 1 / n)
        assert abs(within - exact) <= 5 * se, k


def test_an_empty_fortress_needs_one_hit():
    # Five attacker dice against an empty fortress (the defender's lone extra die cannot stop it).
    p = params(attacker={"units": 5}, defender={"units": 0})
    expected = 1 - (2 / 3) ** 5
    assert PROC.exact(p)["space_falls"] == pytest.approx(expected, abs=1e-12)
    mean, se = estimates(p, 40_000)["space_falls"]
    assert abs(mean - expected) <= 5 * se


def test_the_siege_breaks_at_once_when_besiegers_are_no_more_than_the_besieged():
    p = params(attacker={"units": 3, "leader": 4}, defender={"units": 3}, max_assaults=5)
    est = estimates(p, 2_000)
    assert est["siege_broken"][0] == 1
    assert est["assaults_used"][0] == 0
    assert est["attacker_hits"][0] == 0


def test_losing_cavalry_first_keeps_the_attackers_dice():
    cav_first = params(
        attacker={"units": 8, "cavalry": 4, "leader": 0},
        defender={"units": 3, "leader": 1},
        max_assaults=6,
    )
    inf_first = params(
        attacker={"units": 8, "cavalry": 4, "leader": 0},
        defender={"units": 3, "leader": 1},
        max_assaults=6,
        lose_cavalry_first=False,
    )
    assert PROC.exact(cav_first)["space_falls"] > PROC.exact(inf_first)["space_falls"] + 0.01


def test_a_longer_campaign_takes_the_space_more_often():
    falls = [PROC.exact(params(max_assaults=k))["space_falls"] for k in (1, 2, 4, 10)]
    assert falls == sorted(falls)
    assert falls[-1] > falls[0] + 0.1


def test_changing_the_defender_leaves_the_attackers_dice_alone():
    # Common random numbers: in a single assault the attacker's hits do not depend on the defender.
    variants = {"base": params(), "strong-defender": params(defender={"units": 3, "leader": 2})}
    plan = make_plan(PROC, variants, seed=5)
    stats = run_range(plan, -1, 0, 4096)
    m = [x.name for x in plan.metrics].index("attacker_hits")
    np.testing.assert_array_equal(stats[0, 4 * m : 4 * m + 4], stats[1, 4 * m : 4 * m + 4])
    assert stats[1, 4 * m + 3] == stats[1, 4 * m + 2]  # cross term = squares: same every trial


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        (
            {"attacker": {"units": 4, "cavalry": 5}, "defender": {"units": 1}},
            ("attacker", "cavalry"),
        ),
        ({"attacker": {"units": -1}, "defender": {"units": 1}}, ("attacker", "units")),
        ({"attacker": {"units": 4}, "defender": {"units": -2}}, ("defender", "units")),
        (
            {"attacker": {"units": 4}, "defender": {"units": 1}, "max_assaults": 0},
            ("max_assaults",),
        ),
        ({"attacker": {"units": 4}, "defender": {"units": 1}, "sieges": 2}, ("sieges",)),
    ],
)
def test_bad_parameters_name_the_field(raw, loc):
    with pytest.raises(ValidationError) as err:
        PROC.params_model.model_validate(raw)
    assert err.value.errors()[0]["loc"] == loc


def test_cavalry_above_units_says_the_limit():
    with pytest.raises(ValidationError, match=r"must be at most units \(4\)"):
        params(attacker={"units": 4, "cavalry": 5})


def test_a_scenario_with_more_cavalry_than_units_points_at_the_line():
    from simulator.scenario import ScenarioError, parse

    text = (
        "name: bad\nprocedure: his.assault\ntrials: 10\nseed: 1\nparams:\n"
        "  attacker: {units: 4, cavalry: 5}\n  defender: {units: 3}\n"
    )
    with pytest.raises(ScenarioError) as err:
        parse(text, "bad.yaml")
    (problem,) = err.value.problems
    assert (problem.line, problem.path) == (6, "params.attacker.cavalry")
    assert "must be at most units (4)" in problem.message


@pytest.mark.parametrize("n_variants", [1, 2])
def test_statistics_do_not_depend_on_how_the_trials_are_split(n_variants):
    variants = {"base": params(max_assaults=10), "no-leader": params(attacker={"units": 8})}
    plan = make_plan(PROC, dict(list(variants.items())[:n_variants]), seed=21)
    whole = run_range(plan, -1, 100, 5000)
    parts = run_range(plan, -1, 100, 1234) + run_range(plan, -1, 1334, 3766)
    np.testing.assert_array_equal(whole, parts)


def _scenario(params_yaml: str) -> str:
    return f"name: f\nprocedure: his.assault\ntrials: 10\nseed: 1\nparams:\n{params_yaml}"


def test_validation_refuses_an_assault_by_more_than_4_units_without_a_leader():
    # Here I Stand rules §5.2 / §5.7: one formation assaults; without a leader it holds at most 4
    # units.
    from simulator.scenario import ScenarioError, parse

    text = _scenario("  attacker: {units: 5}\n  defender: {units: 2}\n")
    with pytest.raises(ScenarioError) as err:
        parse(text, "f.yaml")
    (problem,) = err.value.problems
    assert (problem.line, problem.path) == (6, "params.attacker.units")
    assert "at most 4 units" in problem.message and "formation_cap: false" in problem.message
    assert parse(_scenario("  attacker: {units: 4}\n  defender: {units: 2}\n"), "f.yaml")


def test_validation_refuses_an_assault_above_the_leaders_command_rating():
    from simulator.scenario import ScenarioError, parse

    over = _scenario("  attacker: {units: 9, leader: 1, command: 8}\n  defender: {units: 2}\n")
    with pytest.raises(ScenarioError, match="command rating 8 lets it hold at most 8 units"):
        parse(over, "f.yaml")
    assert parse(over.replace("command: 8", "command: 10"), "f.yaml")


def test_the_formation_cap_knob_lifts_the_cap_for_house_rules():
    from simulator.scenario import parse

    text = _scenario("  attacker: {units: 9}\n  defender: {units: 2}\n  formation_cap: false\n")
    assert parse(text, "f.yaml").variants["base"].attacker.units == 9


def test_a_variant_above_the_cap_is_refused_at_the_variant():
    from simulator.scenario import ScenarioError, parse

    text = _scenario("  attacker: {units: 4}\n  defender: {units: 2}\n") + (
        "variants:\n  big: {attacker: {units: 6}}\n"
    )
    with pytest.raises(ScenarioError) as err:
        parse(text, "f.yaml")
    (problem,) = err.value.problems
    assert problem.path == "variants.big.attacker.units"


@pytest.mark.parametrize(
    ("port", "protected"),
    [
        (None, False),
        ({}, False),  # a port with no squadrons of the defender anywhere
        ({"squadrons_adjacent": 1, "enemy_squadrons_adjacent": 5}, True),
        ({"squadrons_in_port": 2, "enemy_squadrons_adjacent": 2}, True),
        ({"squadrons_in_port": 1, "enemy_squadrons_adjacent": 2}, False),
        ({"squadrons_in_port": 1}, True),
    ],
)
def test_squadrons_protect_a_port_fortress_from_assault(port, protected):
    # Here I Stand rules §6.7: a port fortress cannot be assaulted while the defender's squadrons
    # are in an adjacent sea zone, or in its port and at least as many as the enemy squadrons in
    # the adjacent sea zones. Protected, no assault is made: nothing falls, nothing is rolled.
    p = params(attacker={"units": 6, "leader": 1}, defender={"units": 2}, max_assaults=3, port=port)
    open_space = params(attacker={"units": 6, "leader": 1}, defender={"units": 2}, max_assaults=3)
    exact = PROC.exact(p)
    assert exact["protected_by_squadrons"] == float(protected)
    if protected:
        assert exact["space_falls"] == exact["assaults_used"] == exact["attacker_hits"] == 0.0
        assert exact["siege_broken"] == 0.0
    else:
        assert exact == PROC.exact(open_space) | {"protected_by_squadrons": 0.0}
    for name, (mean, se) in estimates(p, 20_000).items():
        assert abs(mean - exact[name]) <= 5 * se + 1e-12, name


def test_an_attacker_wiped_out_in_an_assault_loses_its_leader_by_hand():
    # Two besiegers with a leader rated 0 against one defender, one assault: the attacker rolls
    # ceil(2/2) = 1 die, the defender 1 + 1 = 2; both defender dice hit (1/9) and the attacker is
    # gone, its leader with it (Here I Stand rules §5.7 ③④ as §5.4 ⑥). "none": nobody to lose.
    led = params(attacker={"units": 2, "leader": 0}, defender={"units": 1})
    alone = params(attacker={"units": 2}, defender={"units": 1})
    assert PROC.exact(led)["attacker_leader_captured"] == pytest.approx(1 / 9, abs=1e-15)
    assert PROC.exact(alone)["attacker_leader_captured"] == 0.0
    mean, se = estimates(led, 40_000)["attacker_leader_captured"]
    assert abs(mean - 1 / 9) <= 5 * se
    assert estimates(alone, 2_000)["attacker_leader_captured"][0] == 0
