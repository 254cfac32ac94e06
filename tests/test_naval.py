"""Here I Stand naval combat (Here I Stand rules §6.4): kernel against its twin, exact values and
icepool."""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.naval import _sunk
from simulator.rng import scenario_key
from tests import naive_his_combat as naive
from tests.fold import fold

PROC = get("his.naval")


def params(**kw):
    base = {
        "attacker": {"squadrons": 3, "corsairs": 0, "leader": 1},
        "defender": {"squadrons": 2, "corsairs": 1},
    }
    base.update(kw)
    return PROC.params_model.model_validate(base)


def estimates(p, trials, seed=1517):
    """Mean and standard error (at least 1/trials) of every metric."""
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
        {"attacker": {"squadrons": 3, "leader": 1}, "defender": {"squadrons": 2, "corsairs": 1}},
        {"attacker": {"corsairs": 4, "leader": 2}, "defender": {"squadrons": 1}, "in_port": True},
        {"attacker": {"squadrons": 1, "corsairs": 1}, "defender": {"corsairs": 1}},
        {"attacker": {"squadrons": 1}, "defender": {"squadrons": 1}, "hit_on": 3},
        {
            "attacker": {"squadrons": 5, "corsairs": 3},
            "defender": {"squadrons": 4, "corsairs": 2, "leader": 2},
            "in_port": True,
            "port_extra_dice": 2,
        },
    ],
)
def test_kernel_equals_plain_python_twin(raw):
    variants = {
        "base": PROC.params_model.model_validate(raw),
        "squadrons-first": PROC.params_model.model_validate({**raw, "losses": "squadrons_first"}),
        "corsairs-first": PROC.params_model.model_validate({**raw, "losses": "corsairs_first"}),
        "no-keeper": PROC.params_model.model_validate({**raw, "winner_keeps_one": False}),
        "other-place": PROC.params_model.model_validate(
            {**raw, "in_port": not raw.get("in_port", False)}
        ),
    }
    plan = make_plan(PROC, variants, seed=99)
    key = int(scenario_key(99))
    first, n = 500, 300
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_naval(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [
    (a, d, port, first)
    for a in ((1, 0, 0), (2, 1, 1), (0, 3, 0))
    for d in ((1, 0, 0), (1, 2, 0), (3, 0, 2))
    for port in (False, True)
    for first in ("cheapest", "corsairs_first", "squadrons_first")
]


@pytest.mark.parametrize(("a", "d", "port", "first"), GRID)
def test_estimates_within_five_standard_errors_of_exact(a, d, port, first):
    p = params(
        attacker=dict(zip(("squadrons", "corsairs", "leader"), a, strict=True)),
        defender=dict(zip(("squadrons", "corsairs", "leader"), d, strict=True)),
        in_port=port,
        losses=first,
    )
    exact = PROC.exact(p)
    for name, (mean, se) in estimates(p, 20_000).items():
        assert abs(mean - exact[name]) <= 5 * se, name


@pytest.mark.parametrize(
    ("a", "d", "port"),
    [((3, 0, 1), (2, 1, 0), False), ((1, 2, 0), (2, 0, 1), True), ((0, 2, 0), (0, 3, 0), False)],
)
def test_attacker_wins_agrees_with_icepool(a, d, port):
    hit = icepool.d6 >= 5
    a_hits = (2 * a[0] + a[1] + a[2]) @ hit
    d_hits = (2 * d[0] + d[1] + d[2] + (1 if port else 0)) @ hit
    wins = float(icepool.map(lambda x, y: x > y, a_hits, d_hits).probability(True))
    p = params(
        attacker=dict(zip(("squadrons", "corsairs", "leader"), a, strict=True)),
        defender=dict(zip(("squadrons", "corsairs", "leader"), d, strict=True)),
        in_port=port,
    )
    assert PROC.exact(p)["attacker_wins"] == pytest.approx(wins, abs=1e-12)


CHEAPEST, CORSAIRS_FIRST, SQUADRONS_FIRST = 2, 1, 0  # the kernel's packed loss modes


def kernel_sunk(hits, squadrons, corsairs, mode, loser):
    s, c = _sunk.py_func(hits, squadrons, corsairs, mode, loser)
    return int(s), int(c)


def test_two_hits_sink_a_squadron_and_one_a_corsair():
    assert kernel_sunk(4, 3, 0, CORSAIRS_FIRST, loser=False) == (2, 0)
    assert kernel_sunk(3, 3, 2, CORSAIRS_FIRST, loser=False) == (0, 2)
    assert kernel_sunk(3, 3, 2, SQUADRONS_FIRST, loser=False) == (1, 1)


def test_the_winners_single_leftover_hit_sinks_one_more_squadron():
    for mode in (CHEAPEST, CORSAIRS_FIRST, SQUADRONS_FIRST):
        assert kernel_sunk(3, 3, 0, mode, loser=True) == (2, 0)
        assert kernel_sunk(3, 3, 0, mode, loser=False) == (1, 0)
        # A leftover hit with no squadron left to take it does nothing.
        assert kernel_sunk(5, 2, 0, mode, loser=True) == (2, 0)


def test_the_loser_chooses_the_losses_that_cost_it_least():
    # Issue 14's position: 2 squadrons + 1 corsair lose a battle taking 2 hits. Corsairs first
    # costs the corsair and, to the winner's leftover hit, a squadron (strength 3); the loser's
    # own choice gives up one squadron (strength 2).
    assert kernel_sunk(2, 2, 1, CORSAIRS_FIRST, loser=True) == (1, 1)
    assert kernel_sunk(2, 2, 1, CHEAPEST, loser=True) == (1, 0)
    # The winner taking 2 hits: a squadron or the corsair + a wasted hit? A corsair must take a
    # hit it can take, so the corsair and nothing else (strength 1).
    assert kernel_sunk(2, 2, 1, CHEAPEST, loser=False) == (0, 1)
    # An odd number of hits on a loser: the corsair takes the odd one (no extra squadron).
    assert kernel_sunk(3, 2, 1, CHEAPEST, loser=True) == (1, 1)
    # On a tie in strength the squadrons are kept: 2 hits on a winner with 2 corsairs.
    assert kernel_sunk(2, 1, 2, CHEAPEST, loser=False) == (0, 2)


def test_the_default_loss_choice_changes_the_battle_as_the_rule_says():
    # At sea, 3 squadrons against 2 squadrons + 1 corsair: the defender now loses less strength
    # than with corsairs first; exact values (read from the rule text) against the kernel.
    cheap, fixed = params(), params(losses="corsairs_first")
    assert (
        PROC.exact(cheap)["defender_strength_lost"]
        < PROC.exact(fixed)["defender_strength_lost"] - 0.05
    )
    for p in (cheap, fixed):
        exact = PROC.exact(p)
        for name, (mean, se) in estimates(p, 40_000).items():
            assert abs(mean - exact[name]) <= 5 * se, name


def test_a_naval_leader_rated_0_is_captured_with_its_last_ship():
    rated_0 = params(attacker={"squadrons": 1, "leader": 0}, defender={"squadrons": 3})
    nobody = params(attacker={"squadrons": 1}, defender={"squadrons": 3})
    exact = PROC.exact(rated_0)
    assert exact["attacker_leader_captured"] > 0.3
    assert PROC.exact(nobody)["attacker_leader_captured"] == 0
    est = estimates(rated_0, 20_000)
    mean, se = est["attacker_leader_captured"]
    assert abs(mean - exact["attacker_leader_captured"]) <= 5 * se
    assert estimates(nobody, 2_000)["attacker_leader_captured"][0] == 0


def test_ties_go_to_the_defender():
    # Equal fleets at sea: the attacker needs strictly more hits.
    p = params(attacker={"squadrons": 2}, defender={"squadrons": 2})
    exact = PROC.exact(p)
    hit = icepool.d6 >= 5
    tie = float(icepool.map(lambda x, y: x == y, 4 @ hit, 4 @ hit).probability(True))
    assert exact["attacker_wins"] == pytest.approx((1 - tie) / 2, abs=1e-12)


def test_in_a_port_the_attacker_always_withdraws_with_what_is_left():
    p = params(in_port=True)
    est = estimates(p, 20_000)
    sunk_all = PROC.exact(p)["attacker_withdraws"]
    # Withdrawing is certain unless the whole attacking fleet went down.
    assert sunk_all > 0.9
    mean, se = est["attacker_withdraws"]
    assert abs(mean - sunk_all) <= 5 * se
    at_sea = PROC.exact(params())
    assert at_sea["attacker_withdraws"] == pytest.approx(
        1 - at_sea["attacker_wins"] - _p_attacker_sunk_losing(params()), abs=1e-12
    )


def _p_attacker_sunk_losing(p):
    """P(the attacker loses and has no ship left), by enumeration through icepool."""
    hit = icepool.d6 >= 5
    a, d = p.attacker, p.defender
    a_hits = (2 * a.squadrons + a.corsairs + a.leader) @ hit
    d_hits = (2 * d.squadrons + d.corsairs) @ hit
    assert a.corsairs == 0  # squadrons only: no choice of losses

    def gone(x, y):
        # Two hits a squadron; a winner's single hit left over sinks one more (x <= y: lost).
        s = min(a.squadrons, y // 2 + (y % 2 if x <= y else 0))
        return x <= y and s == a.squadrons

    return float(icepool.map(gone, a_hits, d_hits).probability(True))


def test_the_defender_rolls_an_extra_die_only_in_a_port():
    sea = estimates(params(), 20_000)
    port = estimates(params(in_port=True), 20_000)
    assert port["defender_hits"][0] > sea["defender_hits"][0]
    assert PROC.exact(params(in_port=True))["defender_hits"] == pytest.approx(6 / 3)
    assert PROC.exact(params())["defender_hits"] == pytest.approx(5 / 3)


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ({"attacker": {"squadrons": 0}, "defender": {"squadrons": 1}}, ("attacker", "corsairs")),
        ({"attacker": {"squadrons": -1}, "defender": {"squadrons": 1}}, ("attacker", "squadrons")),
        ({"attacker": {"squadrons": 1}, "defender": {"corsairs": -1}}, ("defender", "corsairs")),
        ({"attacker": {"squadrons": 1}, "defender": {"squadrons": 1}, "port": True}, ("port",)),
    ],
)
def test_bad_parameters_name_the_field(raw, loc):
    with pytest.raises(ValidationError) as err:
        PROC.params_model.model_validate(raw)
    assert err.value.errors()[0]["loc"] == loc
