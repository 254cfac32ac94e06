"""Here I Stand reformation attempts (Here I Stand rules §16.1): kernel vs twin, exact values,
icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.reformation import attempt_probability, highest_thresholds
from simulator.rng import scenario_key
from tests import naive_his_religion as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.reformation")


def target(prot=0, pap=0, in_zone=True, reformer=False):
    return {
        "protestant": {"adjacent_spaces": prot, "reformer_in_target": reformer},
        "papal": {"adjacent_spaces": pap},
        "in_named_zone": in_zone,
    }


def model(**kw):
    return PROC.params_model.model_validate(kw)


def assert_kernel_near(p, name: str, want, trials: int = 40_000, seed: int = 1517) -> None:
    """The kernel's proportion ``name`` lies within 5 standard errors of ``want``."""
    plan = make_plan(PROC, {"base": p}, seed=seed)
    out = simulate(plan, trials, threads=1, chunk_size=trials)
    k = [m.name for m in plan.metrics].index(name)
    got = out.stats[0, 4 * k + 1] / out.stats[0, 4 * k]
    q = float(want)
    assert abs(got - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-12) / trials) + 1e-12, (got, q)


BIBLE = {
    "side": "protestant",
    "named_zone": "german",
    "bible_bonus": True,
    "targets": [
        target(2, 1),
        target(1, 2),
        target(3, 0, reformer=True),
        target(0, 1),
        target(1, 1, in_zone=False),
        target(2, 3),
    ],
}


@pytest.mark.parametrize(
    ("raw", "other"),
    [
        (BIBLE, {"bible_bonus": False}),
        ({**BIBLE, "chain": True}, {"zero_dice": "no_roll"}),
        (
            {
                "side": "papacy",
                "targets": [target(1, 1), target(0, 0), target(2, 0, in_zone=False)],
                "chain": True,
            },
            {"paul_iii": True},
        ),
        (
            {"side": "protestant", "targets": [target(0, 0), target(0, 2)], "zero_dice": "no_roll"},
            {"chain": True, "side": "papacy"},
        ),
    ],
)
def test_kernel_equals_plain_python_twin(raw, other):
    variants = {"base": model(**raw), "other": model(**{**raw, **other})}
    plan = make_plan(PROC, variants, seed=4)
    key = int(scenario_key(4))
    first, n = 3000, 600
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_reformation(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


@pytest.mark.parametrize(
    "raw",
    [
        BIBLE,
        {**BIBLE, "chain": True, "zero_dice": "no_roll"},
        {
            "side": "papacy",
            "paul_iii": True,
            "chain": True,
            "targets": [target(0, 0), target(1, 0), target(0, 1), target(2, 2, in_zone=False)],
        },
    ],
)
def test_single_variant_tally_equals_plain_python_twin(raw):
    # One variant folds each pattern of successes once per chunk instead of trial by trial.
    p = model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=17)
    key = int(scenario_key(17))
    first, n = 123, 1500
    got = run_range(plan, -1, first, n)
    twin = [[naive.his_reformation(p.model_dump(), key, t) for t in range(first, first + n)]]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [
    (side, a, b, zone, paul, bible)
    for side in ("protestant", "papacy")
    for a in (0, 1, 3)
    for b in (0, 2)
    for zone in (True, False)
    for paul in (False, True)
    for bible in (False, True)
    if not (bible and side == "papacy")
]


@pytest.mark.parametrize(("side", "a", "b", "zone", "paul", "bible"), GRID)
def test_single_attempt_within_five_standard_errors_of_exact(side, a, b, zone, paul, bible):
    p = model(side=side, targets=[target(a, b, zone)], paul_iii=paul, bible_bonus=bible)
    plan = make_plan(PROC, {"base": p}, seed=1517)
    out = simulate(plan, 20_000, threads=1, chunk_size=20_000)
    assert_within_standard_errors(plan, out.stats, PROC.exact(p))


def test_six_attempt_chain_within_five_standard_errors_of_exact():
    p = model(**{**BIBLE, "chain": True})
    plan = make_plan(PROC, {"base": p}, seed=1521)
    out = simulate(plan, 60_000, threads=1, chunk_size=60_000)
    assert_within_standard_errors(plan, out.stats, PROC.exact(p))


def _icepool_win(
    protestant: int, papal: int, protestant_acts: bool, ties_to_actor: bool, bible: int
) -> Fraction:
    prot = icepool.d6.highest(protestant, 1) + bible
    pap = icepool.d6.highest(papal, 1)
    actor, other = (prot, pap) if protestant_acts else (pap, prot)
    win = (actor > other).probability(True)
    tie = (actor == other).probability(True)
    return Fraction(win) + (Fraction(tie) if ties_to_actor else 0)


@pytest.mark.parametrize("n", [1, 2, 4, 7])
@pytest.mark.parametrize("m", [1, 3, 5])
@pytest.mark.parametrize("bible", [0, 1])
def test_highest_die_against_highest_die_matches_icepool(n, m, bible):
    p = model(targets=[target(n, m, in_zone=False)], bible_bonus=bool(bible))
    got, zero = attempt_probability(p, 0)
    assert zero == 0
    assert got == _icepool_win(n, m, True, False, bible)


# Every dice source of the rule, counted here from the rule text: (side, field, value, dice).
SOURCES = [
    ("protestant", "adjacent_spaces", 3, 3),
    ("protestant", "adjacent_units", 2, 2),
    ("protestant", "units_in_target", True, 2),
    ("protestant", "adjacent_reformers", 3, 3),
    ("protestant", "reformer_in_target", True, 2),
    ("papal", "adjacent_spaces", 3, 3),
    ("papal", "adjacent_units", 2, 2),
    ("papal", "units_in_target", True, 2),
]


@pytest.mark.parametrize(("side", "field", "value", "dice"), SOURCES)
def test_each_dice_source_counts_as_the_rule_says(side, field, value, dice):
    # One source alone against one die on the other side, out of the zone (ties to the
    # Papacy): the exact value and the kernel both match icepool with the dice counted by hand.
    sources = {"protestant": {}, "papal": {}, side: {field: value}}
    p = model(targets=[{**sources, "in_named_zone": False}])
    prot, pap = (dice, 1) if side == "protestant" else (1, dice)
    want = _icepool_win(prot, pap, True, False, 0)
    assert attempt_probability(p, 0)[0] == want
    assert_kernel_near(p, "success.target1", want)


def test_a_reformer_in_the_target_adds_two_dice():
    p = model(targets=[{"protestant": {"reformer_in_target": True}, "in_named_zone": False}])
    want = _icepool_win(2, 1, True, False, 0)  # 2 dice against the Papacy's one (zero: one)
    assert attempt_probability(p, 0)[0] == want
    assert_kernel_near(p, "success.target1", want)


def test_protestant_acting_in_the_named_zone_wins_ties():
    inside = attempt_probability(model(targets=[target(2, 2, True)]), 0)[0]
    outside = attempt_probability(model(targets=[target(2, 2, False)]), 0)[0]
    tie = (icepool.d6.highest(2, 1) == icepool.d6.highest(2, 1)).probability(True)
    assert inside == _icepool_win(2, 2, True, True, 0)
    assert inside - outside == Fraction(tie)
    assert_kernel_near(model(targets=[target(2, 2, True)]), "success.target1", inside)


def test_papacy_wins_ties_in_the_named_zone_only_under_paul_iii():
    def win(paul: bool, zone: bool) -> Fraction:
        p = model(side="papacy", paul_iii=paul, targets=[target(1, 3, zone)])
        return attempt_probability(p, 0)[0]

    assert win(True, True) == _icepool_win(1, 3, False, True, 0)
    assert win(False, True) == _icepool_win(1, 3, False, False, 0)
    assert win(True, False) == win(False, False) == win(False, True)
    assert win(True, True) > win(False, True)
    for paul, zone in [(True, True), (False, True), (True, False)]:
        p = model(side="papacy", paul_iii=paul, targets=[target(1, 3, zone)])
        assert_kernel_near(p, "success.target1", _icepool_win(1, 3, False, paul and zone, 0))


def test_the_defender_wins_ties_outside_the_named_zone():
    p = model(targets=[target(1, 1, in_zone=False)])
    assert attempt_probability(p, 0)[0] == Fraction(15, 36)
    assert_kernel_near(p, "success.target1", Fraction(15, 36))
    # The Papacy acting outside the zone, Paul III or not: the Protestant defender wins ties.
    pap = model(side="papacy", paul_iii=True, targets=[target(1, 1, in_zone=False)])
    assert_kernel_near(pap, "success.target1", Fraction(15, 36))


def test_bible_translation_makes_the_protestant_die_range_two_to_seven():
    # 1 die against 1 die, out of zone (ties to the Papacy): P(d6 + 1 > d6) = 21/36.
    p = model(targets=[target(1, 1, in_zone=False)], bible_bonus=True)
    assert attempt_probability(p, 0)[0] == Fraction(21, 36)
    # The +1 is the Protestant's alone (the Papacy's die keeps 1-6).
    assert_kernel_near(p, "success.target1", Fraction(21, 36))


def test_a_side_with_zero_dice_rolls_one_die_and_the_gap_is_counted():
    raw = {"targets": [target(0, 1), target(1, 0), target(0, 0)]}
    plan = make_plan(
        PROC, {"base": model(**raw), "no_roll": model(**raw, zero_dice="no_roll")}, seed=8
    )
    out = simulate(plan, 5_000, threads=1)
    names = [m.name for m in plan.metrics]
    z = names.index("zero_dice_rolls")
    # Every trial reaches the gap four times: once on each of the first two targets, twice on the
    # last.
    assert out.stats[0, 4 * z + 1] == 4 * 5_000
    assert out.stats[1, 4 * z + 1] == 4 * 5_000
    # Without a die the Protestant cannot win target 1; target 2 is always won; target 3 is a tie
    # in the named zone, which the acting Protestant wins.
    t = [names.index(f"success.target{k}") for k in (1, 2, 3)]
    assert [out.stats[1, 4 * i + 1] for i in t] == [0, 5_000, 5_000]
    # With roll_one, target 1 is one die against one, a tie won by the acting Protestant: 21/36.
    assert PROC.exact(model(**raw))["success.target1"] == pytest.approx(21 / 36, abs=1e-15)
    assert_within_standard_errors(plan, out.stats, PROC.exact(model(**raw)), variant=0)
    assert_within_standard_errors(
        plan, out.stats, PROC.exact(model(**raw, zero_dice="no_roll")), variant=1
    )


def test_chain_success_moves_a_die_from_the_defender_to_the_actor_on_the_next_target_only():
    # chain: the converted space is next to the following target and was counted in its dice as
    # the defender's; after the conversion it is the acting side's (§16.1 ③ counted again). One
    # die each: after a success, 2 dice against 0, and the defender's 0 dice is the zero-dice gap
    # (it rolls one die by default). By hand, Protestant acting in the zone (ties to it):
    # P(win 1 v 1) = 21/36; P(win 2 v 1) = sum over the Protestant's highest f of
    # P(f) * f/6 = 161/216.
    p = model(targets=[target(1, 1), target(1, 1), target(1, 1)], chain=True)
    win_1v1 = attempt_probability(p, 1)[0]
    win_after = attempt_probability(p, 1, after_success=True)[0]
    assert win_1v1 == Fraction(21, 36)
    assert win_after == Fraction(161, 216)
    assert attempt_probability(p, 1, after_success=True)[1] == 1  # the defender has no die left
    first = win_1v1
    second = first * win_after + (1 - first) * win_1v1
    third = second * win_after + (1 - second) * win_1v1
    exact = PROC.exact(p)
    assert exact["success.target2"] == pytest.approx(float(second), abs=1e-15)
    assert exact["success.target3"] == pytest.approx(float(third), abs=1e-15)
    assert exact["zero_dice_rolls"] == pytest.approx(float(first + second), abs=1e-15)
    assert_kernel_near(p, "success.target2", second)
    assert_kernel_near(p, "success.target3", third)


def test_a_chained_success_leaves_the_defender_no_die_under_no_roll():
    # With zero_dice: no_roll the defender stripped of its only die has none and loses: after a
    # success every next target is won (1 v 0 with the tie to the actor anyway).
    p = model(targets=[target(1, 1), target(1, 1)], chain=True, zero_dice="no_roll")
    assert attempt_probability(p, 1, after_success=True)[0] == 1
    exact = PROC.exact(p)
    first = Fraction(21, 36)
    assert exact["success.target2"] == pytest.approx(float(first + (1 - first) * first), abs=1e-15)
    assert_kernel_near(p, "success.target2", first + (1 - first) * first)


def test_a_papal_chain_moves_the_die_the_other_way():
    # Counter-reformation out of its zone's tie rule (no Paul III: ties to the Protestant
    # defender): after a success the Papacy has 2 dice and the Protestant 0 -> rolls one.
    p = model(side="papacy", targets=[target(1, 1), target(1, 1)], chain=True)
    after = attempt_probability(p, 1, after_success=True)[0]
    # Papacy's highest of 2 must beat the Protestant's one die: sum P(f) * (f-1)/6.
    assert after == sum(Fraction(f**2 - (f - 1) ** 2, 36) * Fraction(f - 1, 6) for f in range(1, 7))
    assert_kernel_near(p, "success.target2", PROC.exact(p)["success.target2"])


def test_bible_bonus_on_a_counter_reformation_is_rejected_naming_the_field():
    with pytest.raises(ValidationError) as err:
        model(side="papacy", bible_bonus=True, targets=[target(1, 1)])
    assert err.value.errors()[0]["loc"] == ("bible_bonus",)


def test_too_many_adjacent_spaces_is_rejected_naming_the_entry():
    with pytest.raises(ValidationError) as err:
        model(targets=[target(1, 1), target(9, 1)])
    assert err.value.errors()[0]["loc"] == ("targets", 1, "protestant", "adjacent_spaces")


def test_an_action_needs_a_target():
    with pytest.raises(ValidationError) as err:
        model(targets=[])
    assert err.value.errors()[0]["loc"] == ("targets",)


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12, 29])
def test_highest_die_thresholds_follow_icepools_highest_of_n_d6(n):
    # Each face's share of the 2**32 words is the exact law of the highest die, rounded once.
    law = icepool.d6.highest(n, 1)
    cuts = [0, *highest_thresholds(n), 2**32]
    for face in range(1, 7):
        words = cuts[face] - cuts[face - 1]
        exact = Fraction(law.quantity(face), law.denominator()) * 2**32
        assert abs(words - exact) < 1, face


def test_one_more_die_never_lowers_the_highest_die_from_the_same_word():
    # Common random numbers: a variant with one more die only ever raises the face.
    for n in range(1, 29):
        lower, higher = highest_thresholds(n), highest_thresholds(n + 1)
        assert all(h <= lo for h, lo in zip(higher, lower, strict=True))
        assert higher != lower


def test_twin_reads_the_highest_die_with_the_kernels_thresholds():
    for n in (1, 2, 5):
        cuts = highest_thresholds(n)
        for u in (0, cuts[0] - 1, cuts[0], cuts[2], cuts[4] - 1, cuts[4], 2**32 - 1):
            assert naive.highest_d6(u, n) == 1 + sum(u >= c for c in cuts)


@pytest.mark.parametrize("variants", [1, 2])
def test_results_do_not_depend_on_threads_or_chunks(variants):
    ps = {"base": model(**BIBLE), "chain": model(**{**BIBLE, "chain": True})}
    plan = make_plan(PROC, dict(list(ps.items())[:variants]), seed=3)
    a = simulate(plan, 50_000, threads=1, chunk_size=50_000)
    b = simulate(plan, 50_000, threads=2, chunk_size=1024)
    np.testing.assert_array_equal(a.stats, b.stats)
