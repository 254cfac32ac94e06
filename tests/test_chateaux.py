"""Here I Stand, the French chateaux (Here I Stand rules §14.1): kernel, twin, exact values,
icepool."""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive_his_economy as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.chateaux")

#: A table for a -1 .. +2 modifier range: totals 0 to 8.
WIDE = [
    {"low": -5, "high": 2, "cards": 1},
    {"low": 3, "high": 4, "vp": 1},
    {"low": 5, "high": 7, "vp": 1, "cards": 1},
    {"low": 8, "high": 12, "vp": 2, "cards": 2},
]
MODS = [{"value": -1}, {"value": 2, "when": [3, 4, 5, 6]}]


def model(**kw):
    return PROC.params_model.model_validate(kw)


@pytest.mark.parametrize(
    ("base", "other"),
    [
        ({}, {"uses_per_turn": 2}),
        ({"modifiers": MODS, "table": WIDE}, {"modifiers": MODS, "table": WIDE, "vp_cap": 3}),
        (
            {"turns": 4, "uses_per_turn": 3, "modifiers": MODS, "table": WIDE},
            {"turns": 4, "uses_per_turn": 1, "modifiers": [{"value": -1}], "table": WIDE},
        ),
    ],
)
def test_kernel_equals_plain_python_twin(base, other):
    variants = {"base": model(**base), "other": model(**other)}
    plan = make_plan(PROC, variants, seed=1515)
    key = int(scenario_key(1515))
    first, n = 7000, 800
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_chateaux(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_vp_stop_at_six_icepool():
    # Every use a flat d6 on the default table; nine uses: capped sum of nine VP dice.
    p = model()
    row_vp = {1: 0, 2: 0, 3: 1, 4: 1, 5: 1, 6: 1}
    one = icepool.d6.map(row_vp)
    total = 9 @ one
    exact = PROC.exact(p)
    assert exact["chateaux_vp"] == pytest.approx(float(total.map(lambda x: min(x, 6)).mean()))
    assert exact["vp_cap_reached"] == pytest.approx(float(total.probability(">=", 6)))
    assert exact["chateaux_cards"] == pytest.approx(9 * (2 / 6 + 2 / 6))


def test_a_modifier_shifts_the_roll_on_its_turns_only():
    # One turn with +2 (turn 3) and one turn with -1 only (turn 1): d6+1 and d6-1 on WIDE.
    p = model(turns=1, modifiers=MODS, table=WIDE)
    vp_minus = icepool.d6.map(lambda f: {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1}[f - 1])
    assert PROC.exact(p)["chateaux_vp"] == pytest.approx(float(vp_minus.mean()))
    q = model(turns=3, modifiers=MODS, table=WIDE, uses_per_turn=1)
    plus = icepool.d6.map(lambda f: 2 if f + 1 >= 8 else (1 if f + 1 >= 3 else 0))
    assert PROC.exact(q)["chateaux_vp"] == pytest.approx(float(2 * vp_minus.mean() + plus.mean()))


GRID = [
    {},
    {"uses_per_turn": 2, "turns": 5},
    {"modifiers": MODS, "table": WIDE},
    {"modifiers": MODS, "table": WIDE, "vp_cap": 2, "uses_per_turn": 2},
]


@pytest.mark.parametrize("raw", GRID)
def test_estimates_within_five_standard_errors_of_exact(raw):
    p = model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=1547)
    out = simulate(plan, 40_000, threads=1)
    exact = PROC.exact(p)
    # An event rarer than one in 40,000 trials may never show up (se 0); VP by turn can be off by
    # up to the cap times its chance (vp_by_turn.6 of the last entry: 2 - 1.7e-6).
    assert_within_standard_errors(plan, out.stats, exact, slack=p.vp_cap * 1e-5)


def test_a_table_with_a_gap_names_the_entry():
    with pytest.raises(ValidationError) as err:
        model(table=[{"low": 1, "high": 2}, {"low": 4, "high": 6, "vp": 1}])
    assert err.value.errors()[0]["loc"] == ("table", 1, "low")
    assert "no entry covers modified total 3 (gap before entry 2)" in str(err.value)


def test_a_table_with_an_overlap_names_the_entry():
    with pytest.raises(ValidationError) as err:
        model(table=[{"low": 1, "high": 4}, {"low": 4, "high": 6, "vp": 1}])
    assert "entry 2 (4-6) overlaps entry 1 at modified total 4" in str(err.value)


def test_the_default_table_must_grow_with_the_modifiers():
    with pytest.raises(ValidationError) as err:
        model(modifiers=[{"value": 6}] * 8)
    assert err.value.errors()[0]["loc"] == ("table", 3, "high")
    assert "no entry covers modified total 49 (gap after entry 4, the last)" in str(err.value)


def test_the_turn_the_cap_is_reached_and_vp_by_turn_by_hand():
    # 1 VP on 4-6, nothing on 1-3, cap 1, three turns: the cap falls on turn k with (1/2)^k,
    # so among the 7/8 of games that reach it the mean turn is (1/2 + 2/4 + 3/8) / (7/8) = 11/7;
    # VP by turn k: 1 - (1/2)^k.
    table = [{"low": -30, "high": 3}, {"low": 4, "high": 40, "vp": 1}]
    p = model(turns=3, vp_cap=1, table=table)
    hand = {
        "cap_reached_turn": 11 / 7,
        "vp_by_turn.1": 1 / 2,
        "vp_by_turn.2": 3 / 4,
        "vp_by_turn.3": 7 / 8,
        "vp_cap_reached": 7 / 8,
    }
    exact = PROC.exact(p)
    for name, want in hand.items():
        assert exact[name] == pytest.approx(want, abs=1e-12), name
    plan = make_plan(PROC, {"base": p}, seed=1547)
    out = simulate(plan, 60_000, threads=1)
    assert_within_standard_errors(plan, out.stats, hand, partial=True)


def test_the_home_card_once_a_turn_is_the_default():
    # Here I Stand rules §4.1: a home card is used once a turn; more uses are a house rule.
    assert model().uses_per_turn == 1
    assert "house rule" in PROC.params_model.model_fields["uses_per_turn"].description
    assert any("house rule" in n for n in PROC.notes)
