"""Here I Stand, Henry VIII's marriages (Here I Stand rules §13.1): kernel, twin, exact chart,
icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.pregnancy import chart_result
from simulator.rng import scenario_key
from tests import naive_his_economy as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.pregnancy")


def model(**kw):
    return PROC.params_model.model_validate(kw)


@pytest.mark.parametrize(
    ("base", "other"),
    [
        ({}, {"uses_per_turn": 2}),
        (
            {"turns": 4, "uses_per_turn": 2},
            {"turns": 4, "uses_per_turn": 2, "nothing_repeats": False},
        ),
        ({"turns": 6, "wife_steps": [1, 3, 4, 8]}, {"turns": 6, "wife_steps": [2, 3]}),
    ],
)
def test_kernel_equals_plain_python_twin(base, other):
    variants = {"base": model(**base), "other": model(**other)}
    plan = make_plan(PROC, variants, seed=1533)
    key = int(scenario_key(1533))
    first, n = 5000, 800
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_pregnancy(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_a_result_already_seen_steps_up_to_the_next_new_one():
    assert chart_result(4, frozenset()) == 4
    assert chart_result(4, frozenset({4})) == 5
    assert chart_result(3, frozenset({3, 4, 5})) == 6
    assert chart_result(1, frozenset({2})) == 2  # nothing may repeat by default
    assert chart_result(1, frozenset({2, 3}), nothing_repeats=False) == 4


def test_first_wife_gives_edward_on_five_or_six_icepool():
    exact = PROC.exact(model(turns=1, wife_steps=[1]))
    assert exact["edward_born"] == pytest.approx(float((icepool.d6 >= 5).probability(True)))
    assert exact["edward_healthy"] == pytest.approx(1 / 6)
    assert exact["elizabeth_born"] == pytest.approx(1 / 6)
    assert exact["england_vp"] == pytest.approx((2 * 5 + 2) / 6)


def _two_wives(a: int, b: int) -> int:
    """Edward born after two wives in one turn (two uses): the chart read by hand."""
    first = {1: "-", 2: "-", 3: "again", 4: "eliz", 5: "edward", 6: "edward"}[a]
    if first == "edward":
        return 1
    if b <= 2:
        return 0
    if b == 3 and first == "again":
        b = 4
    if b == 4 and first == "eliz":
        b = 5
    return int(b >= 5)


def test_second_wife_steps_up_past_results_already_seen_icepool():
    oracle = icepool.map(_two_wives, icepool.d6, icepool.d6)
    exact = PROC.exact(model(turns=1, uses_per_turn=2, wife_steps=[1, 2]))
    assert Fraction(exact["edward_born"]).limit_denominator(36) == oracle.probability(1)


def test_a_three_advances_the_track_again_the_same_turn():
    # One use per turn, two wives on consecutive steps: a first-wife 3 reaches the second wife in
    # turn 1, so Edward can be born in turn 1 only that way (or on a 5-6 straight away).
    exact = PROC.exact(model(turns=1, wife_steps=[1, 2]))
    # 5-6 first (1/3), or 3 then a 5-6 or a 4 stepped... 3 then face f: 1-2 nothing, 3->4 Eliz,
    # 4 Eliz, 5-6 Edward.
    assert exact["edward_born"] == pytest.approx(1 / 3 + 1 / 6 * 1 / 3)
    assert exact["wives_married"] == pytest.approx(1 + 1 / 6)


def test_no_more_marriages_after_a_healthy_edward():
    # Two uses, two wives: the second wife is reached unless the first roll was a 6.
    exact = PROC.exact(model(turns=1, uses_per_turn=2, wife_steps=[1, 2]))
    assert exact["wives_married"] == pytest.approx(2 - 1 / 6)


GRID = [
    {},
    {"turns": 3},
    {"uses_per_turn": 2, "turns": 5},
    {"nothing_repeats": False},
    {"wife_steps": [2, 4, 6], "turns": 6},
]


@pytest.mark.parametrize("raw", GRID)
def test_estimates_within_five_standard_errors_of_exact(raw):
    p = model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=1509)
    out = simulate(plan, 40_000, threads=1)
    exact = PROC.exact(p)
    assert_within_standard_errors(plan, out.stats, exact)


def test_wife_steps_must_increase_and_the_error_names_the_field():
    with pytest.raises(ValidationError) as err:
        model(wife_steps=[1, 3, 3])
    assert err.value.errors()[0]["loc"] == ("wife_steps",)
    assert "entry 3" in str(err.value)


def test_negative_uses_are_rejected():
    with pytest.raises(ValidationError) as err:
        model(uses_per_turn=-1)
    assert err.value.errors()[0]["loc"] == ("uses_per_turn",)


def test_henry_starts_married_so_the_first_turn_rolls_nothing():
    # Here I Stand rules §13.1: Henry starts married to Catherine; the first advance reaches "ask
    # for divorce".
    p = model(turns=1)
    assert p.wife_steps == [2, 3, 4, 5, 6]
    plan = make_plan(PROC, {"base": p}, seed=7)
    out = simulate(plan, 2_000, threads=1)
    names = [m.name for m in plan.metrics]
    for name in ("wives_married", "edward_born", "elizabeth_born"):
        m = names.index(name)
        assert out.stats[0, 4 * m + 1] == 0, name  # the sum over every trial


def test_the_second_turn_reaches_anne_boleyn_by_hand():
    # Turn 2 rolls for Anne Boleyn; a 3 advances once more (Jane Seymour rolls too). By hand:
    # wives = 1 + 1/6; Edward = P(5-6) + P(3) * P(4th-6th result on the second roll: 5, 6) =
    # 2/6 + 1/6 * 2/6 = 7/18 (a 3 again steps up to Elizabeth, 1-2 repeat as nothing).
    p = model(turns=2)
    exact = PROC.exact(p)
    assert exact["wives_married"] == pytest.approx(7 / 6, abs=1e-12)
    assert exact["edward_born"] == pytest.approx(7 / 18, abs=1e-12)
    plan = make_plan(PROC, {"base": p}, seed=1509)
    out = simulate(plan, 60_000, threads=1)
    hand = {"wives_married": 7 / 6, "edward_born": 7 / 18}
    assert_within_standard_errors(plan, out.stats, hand, partial=True)


def test_the_default_track_rolls_the_chart_at_most_five_times():
    # Even with the card every step (a house rule: 6 uses a turn), only five wives remain.
    p = model(turns=2, uses_per_turn=6)
    plan = make_plan(PROC, {"base": p}, seed=5)
    out = simulate(plan, 20_000, threads=1)
    m = [x.name for x in plan.metrics].index("wives_married")
    n, total, squares = out.stats[0, 4 * m : 4 * m + 3]
    # Without a healthy Edward every wife is reached: the trial's wives are 5 unless the chart
    # gave a 6 first; never more than 5, so sum((5 - x) * x) >= 0 and the mean is below 5.
    assert 0 < total / n < 5
    assert 5 * total - squares >= 0
    assert_within_standard_errors(plan, out.stats, PROC.exact(p))
    six_wives = p.model_copy(update={"wife_steps": [1, 2, 3, 4, 5, 6]})
    assert PROC.exact(p)["wives_married"] < PROC.exact(six_wives)["wives_married"]


def test_nothing_happens_may_repeat_by_the_rulebook_and_edward_is_likely_not_certain():
    # Here I Stand rules §13.1 (1): "each effect happens only once; a roll whose effect already
    # happened steps up until a new effect happens". 1-2 is "nothing happens", no effect, so it
    # may come up again (the default). 9 turns, one use a turn, five wives: exact values.
    p = model()
    assert p.nothing_repeats is True
    exact = PROC.exact(p)
    assert Fraction(exact["edward_born"]).limit_denominator(10**6) == Fraction(17, 18)
    assert Fraction(exact["edward_healthy"]).limit_denominator(10**6) == Fraction(389, 486)
    assert Fraction(exact["england_vp"]).limit_denominator(10**6) == Fraction(2335, 486)
    plan = make_plan(PROC, {"base": p}, seed=1526)
    out = simulate(plan, 40_000, threads=1)
    assert_within_standard_errors(plan, out.stats, exact)


def test_the_literal_reading_makes_a_healthy_edward_certain():
    # The alternative: "nothing" counts as an effect that happens once. Five wives then give five
    # different results (1-2, 3, 4, 5, 6 in some order), so the fifth is a healthy Edward at the
    # latest: Edward 1 and healthy 1 exactly; Elizabeth 61/108.
    p = model(nothing_repeats=False)
    exact = PROC.exact(p)
    assert exact["edward_born"] == exact["edward_healthy"] == 1.0
    assert Fraction(exact["elizabeth_born"]).limit_denominator(10**6) == Fraction(61, 108)
    plan = make_plan(PROC, {"base": p}, seed=1526)
    out = simulate(plan, 20_000, threads=1)
    m = [x.name for x in plan.metrics].index("edward_healthy")
    assert out.stats[0, 4 * m] == out.stats[0, 4 * m + 1] == 20_000  # every trial
    assert_within_standard_errors(plan, out.stats, exact)


def test_the_rulebook_reading_is_declared_as_the_rulebook_and_the_literal_as_a_reading():
    (nothing,) = [a for a in PROC.assumptions if a.knob == "nothing_repeats"]
    assert nothing.tag == "rulebook"
    assert [alt.overrides for alt in nothing.alternatives] == [{"nothing_repeats": False}]
    assert nothing.alternatives[0].tag == "reading"
