"""Here I Stand, Ottoman piracy (Here I Stand rules §11.2): kernel, twin, exact raid values,
icepool."""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.piracy import choose
from simulator.rng import scenario_key
from tests import naive_his_economy as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.piracy")

GENOA = {
    "corsairs": 3,
    "target": {
        "squadrons_in_sea": 1,
        "adjacent_squadrons": 1,
        "adjacent_fortress_ports": 1,
        "cards_in_hand": 2,
    },
}
MALTA = {
    "corsairs": 2,
    "target": {
        "knights_adjacent": True,
        "ports_on_sea": 1,
        "squadrons_in_sea": 0,
        "cards_in_hand": 0,
    },
    "enemy_adjacent_squadrons": 1,
}
OPEN_SEA = {
    "corsairs": 4,
    "target": {
        "ports_on_sea": 3,
        "cards_in_hand": 6,
        "adjacent_squadrons": 2,
        "squadrons_available": 1,
    },
}


def model(**kw):
    return PROC.params_model.model_validate(kw)


@pytest.mark.parametrize(
    ("base", "other"),
    [
        ({"raids": [GENOA]}, {"raids": [GENOA], "pirate_rating": 2}),
        (
            {"raids": [GENOA, MALTA, OPEN_SEA]},
            {
                "raids": [GENOA, MALTA, OPEN_SEA],
                "choice_order": ["vp", "card", "squadron"],
                "pirate_rating": 3,
            },
        ),
        (
            {"raids": [OPEN_SEA, OPEN_SEA, MALTA, GENOA], "pirate_rating": 3, "hit_on": 4},
            {
                "raids": [OPEN_SEA, OPEN_SEA, MALTA, GENOA],
                "pirate_rating": 3,
                "choice_order": ["card", "squadron", "vp"],
            },
        ),
    ],
)
def test_kernel_equals_plain_python_twin(base, other):
    variants = {"base": model(**base), "other": model(**other)}
    plan = make_plan(PROC, variants, seed=1534)
    key = int(scenario_key(1534))
    first, n = 300, 900
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_piracy(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_no_option_twice_until_each_has_been_taken_once():
    assert choose(3, ["squadron", "card", "vp"], squadrons=5, cards=5) == {
        "squadron": 1,
        "card": 1,
        "vp": 1,
    }
    assert choose(4, ["vp", "card", "squadron"], squadrons=5, cards=5) == {
        "squadron": 1,
        "card": 1,
        "vp": 2,
    }


def test_an_option_that_cannot_be_taken_is_skipped():
    # No squadron to lose and an empty hand: every hit is a VP.
    assert choose(3, ["squadron", "card", "vp"], squadrons=0, cards=0) == {
        "squadron": 0,
        "card": 0,
        "vp": 3,
    }
    # One card in hand: card, VP, then the round restarts with VP only.
    assert choose(4, ["card", "vp", "squadron"], squadrons=0, cards=1) == {
        "squadron": 0,
        "card": 1,
        "vp": 3,
    }


def _hits(n: int) -> icepool.Die:
    return n @ (icepool.d6 >= 5) if n > 0 else icepool.Die([0])


@pytest.mark.parametrize(("raid", "x"), [(GENOA, 0), (GENOA, 2), (MALTA, 1), (OPEN_SEA, 0)])
def test_single_raid_exact_values_agree_with_icepool(raid, x):
    p = model(raids=[raid], pirate_rating=x)
    r = p.raids[0]
    resistance = _hits(r.resistance())
    survivors = resistance.map(lambda h: max(r.corsairs - h, 0))
    one_port = r.target.ports_on_sea == 1

    def piracy(s: int) -> icepool.Die:
        if s == 0:
            return icepool.Die([0])
        return _hits((1 if s == 1 or one_port else 2) + x)

    hits = survivors.map(piracy)
    exact = PROC.exact(p)
    assert exact["raids_with_survivors"] == pytest.approx(float((survivors > 0).mean()))
    assert exact["corsairs_lost"] == pytest.approx(r.corsairs - float(survivors.mean()))
    assert exact["piracy_hits"] == pytest.approx(float(hits.mean()))


def test_one_corsair_or_one_port_rolls_one_plus_x_dice():
    # No resistance at all: every corsair survives. Two corsairs and two ports: 2 + X dice.
    two = model(raids=[{"corsairs": 2, "target": {"ports_on_sea": 2}}], pirate_rating=1)
    one = model(raids=[{"corsairs": 2, "target": {"ports_on_sea": 1}}], pirate_rating=1)
    assert PROC.exact(two)["piracy_hits"] == pytest.approx(3 / 3)
    assert PROC.exact(one)["piracy_hits"] == pytest.approx(2 / 3)


GRID = [
    {"raids": [GENOA]},
    {"raids": [MALTA], "pirate_rating": 2},
    {"raids": [GENOA, MALTA, OPEN_SEA], "pirate_rating": 1},
    {"raids": [OPEN_SEA], "pirate_rating": 3, "choice_order": ["card", "vp", "squadron"]},
]


@pytest.mark.parametrize("raw", GRID)
def test_estimates_within_five_standard_errors_of_exact(raw):
    p = model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=1522)
    out = simulate(plan, 40_000, threads=1)
    exact = PROC.exact(p)
    assert_within_standard_errors(plan, out.stats, exact)


def test_more_than_four_raids_is_rejected_naming_raids():
    with pytest.raises(ValidationError) as err:
        model(raids=[GENOA] * 5)
    assert err.value.errors()[0]["loc"] == ("raids",)


def test_squadrons_available_beyond_those_present_names_the_raid_entry():
    bad = {"corsairs": 2, "target": {"squadrons_in_sea": 1, "squadrons_available": 3}}
    with pytest.raises(ValidationError) as err:
        model(raids=[GENOA, bad])
    assert err.value.errors()[0]["loc"] == ("raids", 1, "target", "squadrons_available")
    assert "at most squadrons_in_sea + adjacent_squadrons (1)" in str(err.value)


def test_choice_order_must_name_each_option_once():
    with pytest.raises(ValidationError) as err:
        model(raids=[GENOA], choice_order=["vp", "vp", "card"])
    assert err.value.errors()[0]["loc"] == ("choice_order",)


def test_one_raid_per_sea_zone_a_turn():
    genoa = {**GENOA, "sea_zone": "Gulf of Genoa"}
    with pytest.raises(ValidationError) as err:
        model(raids=[genoa, MALTA, genoa])
    assert err.value.errors()[0]["loc"] == ("raids",)
    assert "entry 3 raids 'Gulf of Genoa' again (entry 1)" in str(err.value)


def test_a_raid_gains_nothing_or_a_vp_by_hand():
    # Raid 1: two corsairs, resistance 2 (one squadron in the sea), two ports: 2 + 0 dice if both
    # corsairs survive, 1 die if one does. The target has no card and no squadron it may lose
    # (squadrons_available 0): every Ottoman hit is a VP. Raid 2: one corsair, no resistance,
    # one die. By hand (p = 1/3 a hit):
    #   raid 1: P(0 sunk) = 4/9 -> 2 dice; P(1 sunk) = 4/9 -> 1 die; P(2 sunk) = 1/9.
    #   P(nothing) = 1/9 + 4/9 * 4/9 + 4/9 * 2/3 = (9 + 16 + 24)/81 = 49/81; P(>= 1 VP) = 32/81.
    #   raid 2: P(nothing) = 2/3, P(>= 1 VP) = 1/3.
    raid1 = {
        "corsairs": 2,
        "target": {"squadrons_in_sea": 1, "squadrons_available": 0, "cards_in_hand": 0},
    }
    raid2 = {"corsairs": 1, "target": {"cards_in_hand": 0}}
    p = PROC.params_model.model_validate({"raids": [raid1, raid2], "pirate_rating": 0})
    hand = {
        "gains_nothing.raid1": 49 / 81,
        "any_vp.raid1": 32 / 81,
        "gains_nothing.raid2": 2 / 3,
        "any_vp.raid2": 1 / 3,
        "turn_gains_nothing": 49 / 81 * 2 / 3,
        "turn_any_vp": 1 - 49 / 81 * 2 / 3,
    }
    exact = PROC.exact(p)
    for name, want in hand.items():
        assert exact[name] == pytest.approx(want, abs=1e-12), name
    from tests.exactness import assert_within_standard_errors

    plan = make_plan(PROC, {"base": p}, seed=1535)
    out = simulate(plan, 60_000, threads=1)
    assert_within_standard_errors(plan, out.stats, hand, partial=True)
