"""Here I Stand naval combat (RULES.md §5.3): kernel against its twin, exact values and icepool."""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.naval import sunk
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
        "squadrons-first": PROC.params_model.model_validate({**raw, "lose_corsairs_first": False}),
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
    for first in (True, False)
]


@pytest.mark.parametrize(("a", "d", "port", "first"), GRID)
def test_estimates_within_five_standard_errors_of_exact(a, d, port, first):
    p = params(
        attacker=dict(zip(("squadrons", "corsairs", "leader"), a, strict=True)),
        defender=dict(zip(("squadrons", "corsairs", "leader"), d, strict=True)),
        in_port=port,
        lose_corsairs_first=first,
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


def test_two_hits_sink_a_squadron_and_one_a_corsair():
    assert sunk(4, 3, 0, True, loser=False) == (2, 0)
    assert sunk(3, 3, 2, True, loser=False) == (0, 2)
    assert sunk(3, 3, 2, False, loser=False) == (1, 1)


def test_the_winners_single_leftover_hit_sinks_one_more_squadron():
    assert sunk(3, 3, 0, True, loser=True) == (2, 0)
    assert sunk(3, 3, 0, True, loser=False) == (1, 0)
    # A leftover hit with no squadron left to take it does nothing.
    assert sunk(5, 2, 0, True, loser=True) == (2, 0)


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
    d_hits = (2 * d.squadrons + d.corsairs + d.leader) @ hit

    def gone(x, y):
        s, c = sunk(y, a.squadrons, a.corsairs, True, x <= y)
        return x <= y and s + c == a.squadrons + a.corsairs

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
