"""Here I Stand Diet of Worms (Here I Stand rules §20.3): kernel against its twin, exact values,
icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive_his_religion as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.diet_of_worms")
HAND = {"values": [1, 2, 3, 4, 5], "weights": [1, 3, 4, 2, 1]}


def model(**kw):
    return PROC.params_model.model_validate(kw)


@pytest.mark.parametrize(
    ("raw", "other"),
    [
        ({"habsburg_cp": 2, "papal_cp": 3, "protestant_cp": 4}, {"protestant_bonus_dice": 0}),
        (
            {
                "habsburg_cp": HAND,
                "papal_cp": 5,
                "protestant_cp": {"values": [1, 6], "weights": [0.25, 0.75]},
            },
            {"papal_cp": HAND, "protestant_bonus_dice": 8},
        ),
        ({"habsburg_cp": 0, "papal_cp": 0, "protestant_cp": 6}, {"habsburg_cp": 6, "papal_cp": 6}),
        ({"habsburg_cp": 2, "papal_cp": 3, "protestant_cp": 1}, {"spaces_flipped": "winner_hits"}),
    ],
)
def test_kernel_equals_plain_python_twin(raw, other):
    variants = {"base": model(**raw), "other": model(**{**raw, **other})}
    plan = make_plan(PROC, variants, seed=1521)
    key = int(scenario_key(1521))
    first, n = 7000, 800
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_diet_of_worms(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [(h, c, r, b) for h in (1, 4, HAND) for c in (2, HAND) for r in (1, 5, HAND) for b in (4, 0)]


@pytest.mark.parametrize(("h", "c", "r", "b"), GRID)
def test_estimates_within_five_standard_errors_of_exact(h, c, r, b):
    p = model(habsburg_cp=h, papal_cp=c, protestant_cp=r, protestant_bonus_dice=b)
    plan = make_plan(PROC, {"base": p}, seed=1521)
    out = simulate(plan, 20_000, threads=1, chunk_size=20_000)
    assert_within_standard_errors(plan, out.stats, PROC.exact(p))


@pytest.mark.parametrize(("h", "c", "r"), [(1, 1, 1), (3, 2, 2), (6, 6, 6), (2, 4, 0)])
def test_fixed_cards_match_icepool(h, c, r):
    hit = icepool.d6 >= 5
    diff = ((r + 4) @ hit) - ((h + c) @ hit)
    exact = PROC.exact(model(habsburg_cp=h, papal_cp=c, protestant_cp=r))
    assert exact["protestant_wins"] == pytest.approx(float(diff.probability(">", 0)), abs=1e-15)
    assert exact["tie"] == pytest.approx(float(diff.probability("==", 0)), abs=1e-15)
    assert exact["protestant_flips"] == pytest.approx(
        float(sum(Fraction(diff.probability("==", k)) * k for k in range(1, r + 5))), abs=1e-15
    )


def test_a_hand_distribution_is_the_weighted_mixture_of_fixed_cards():
    mix = PROC.exact(model(habsburg_cp=HAND, papal_cp=2, protestant_cp=3))
    total = sum(HAND["weights"])
    for name in mix:
        parts = sum(
            w / total * PROC.exact(model(habsburg_cp=v, papal_cp=2, protestant_cp=3))[name]
            for v, w in zip(HAND["values"], HAND["weights"], strict=True)
        )
        assert mix[name] == pytest.approx(parts, abs=1e-12)


def test_cp_thresholds_are_exact_integers():
    d = model(
        habsburg_cp={"values": [1, 2, 3], "weights": [1, 2, 1]}, papal_cp=1, protestant_cp=1
    ).habsburg_cp
    assert d.thresholds() == [2**30, 3 * 2**30, 2**32]
    thirds = model(
        habsburg_cp={"values": [1, 2, 3], "weights": [1, 1, 1]}, papal_cp=1, protestant_cp=1
    ).habsburg_cp
    assert thirds.thresholds() == [2**32 // 3, 2 * 2**32 // 3, 2**32]


def kernel_means(trials: int = 20_000, seed: int = 1521, **raw) -> dict[str, tuple[float, int]]:
    """Each metric's kernel mean and the trial count, for the cards in ``raw``."""
    plan = make_plan(PROC, {"base": model(**raw)}, seed=seed)
    out = simulate(plan, trials, threads=1, chunk_size=trials)
    return {
        m.name: (out.stats[0, 4 * k + 1] / out.stats[0, 4 * k], int(out.stats[0, 4 * k]))
        for k, m in enumerate(plan.metrics)
    }


def icepool_diet(
    papal_dice: int, protestant_dice: int, winner_hits: bool = False
) -> dict[str, Fraction]:
    """The rule text through icepool: hits on 5-6; the winner flips the difference (or, with
    ``winner_hits``, its own hits); a tie does nothing."""
    hit = icepool.d6 >= 5
    if winner_hits:
        both = icepool.map(lambda a, b: (a, b), protestant_dice @ hit, papal_dice @ hit)
        pairs = {k: Fraction(both.probability("==", k)) for k in both.outcomes()}
        return {
            "protestant_wins": sum(q for (a, b), q in pairs.items() if a > b),
            "papacy_wins": sum(q for (a, b), q in pairs.items() if a < b),
            "tie": sum(q for (a, b), q in pairs.items() if a == b),
            "protestant_flips": sum(a * q for (a, b), q in pairs.items() if a > b),
            "papal_flips": sum(b * q for (a, b), q in pairs.items() if a < b),
        }
    diff = (protestant_dice @ hit) - (papal_dice @ hit)
    law = {k: Fraction(diff.probability("==", k)) for k in diff.outcomes()}
    return {
        "protestant_wins": sum(q for k, q in law.items() if k > 0),
        "papacy_wins": sum(q for k, q in law.items() if k < 0),
        "tie": law.get(0, Fraction(0)),
        "protestant_flips": sum(k * q for k, q in law.items() if k > 0),
        "papal_flips": sum(-k * q for k, q in law.items() if k < 0),
    }


def assert_kernel_matches(means, want: dict[str, Fraction], sd: float = 3.0) -> None:
    """Within 5 standard errors (``sd`` bounds a flip count's standard deviation)."""
    for name, q in want.items():
        got, n = means[name]
        spread = np.sqrt(float(q) * (1 - float(q))) if name in ("tie",) or "wins" in name else sd
        assert abs(got - float(q)) <= 5 * spread / np.sqrt(n) + 1e-12, (name, got, float(q))


def test_a_tie_flips_nothing():
    # No dice on either side: every Diet is a 0-0 tie, and nothing is flipped by either side.
    means = kernel_means(habsburg_cp=0, papal_cp=0, protestant_cp=0, protestant_bonus_dice=0)
    assert means["tie"][0] == 1.0
    assert means["protestant_flips"][0] == means["papal_flips"][0] == 0.0
    assert PROC.exact(
        model(habsburg_cp=0, papal_cp=0, protestant_cp=0, protestant_bonus_dice=0)
    ) == {"protestant_wins": 0, "papacy_wins": 0, "tie": 1, "protestant_flips": 0, "papal_flips": 0}
    # Equal dice, ties common (about 0.26): the flips are the hit differences of wins only.
    raw = {"habsburg_cp": 1, "papal_cp": 1, "protestant_cp": 0, "protestant_bonus_dice": 2}
    assert_kernel_matches(kernel_means(**raw), icepool_diet(2, 2))


def test_the_papacy_rolls_the_habsburg_and_the_papal_cards_cp():
    raw = {"habsburg_cp": 3, "papal_cp": 1, "protestant_cp": 0, "protestant_bonus_dice": 0}
    assert_kernel_matches(kernel_means(**raw), icepool_diet(4, 0))


def test_the_protestant_rolls_its_cards_cp_plus_four_dice():
    raw = {"habsburg_cp": 0, "papal_cp": 0, "protestant_cp": 1}
    assert_kernel_matches(kernel_means(**raw), icepool_diet(0, 5))


def test_the_winner_flips_the_hit_difference():
    # Here I Stand rules §20.3 (3): "some spaces", read as a debate's hit difference (§16.2 ⑦).
    raw = {"habsburg_cp": 3, "papal_cp": 3, "protestant_cp": 2}
    assert model(**raw).spaces_flipped == "hit_difference"
    want = icepool_diet(6, 6)
    assert_kernel_matches(kernel_means(**raw), want)
    exact = PROC.exact(model(**raw))
    for name, q in want.items():
        assert exact[name] == pytest.approx(float(q), abs=1e-15)


def test_the_alternative_reading_flips_the_winners_own_hits():
    raw = {"habsburg_cp": 3, "papal_cp": 3, "protestant_cp": 2, "spaces_flipped": "winner_hits"}
    want = icepool_diet(6, 6, winner_hits=True)
    assert want["protestant_flips"] > icepool_diet(6, 6)["protestant_flips"]
    assert_kernel_matches(kernel_means(**raw), want)
    exact = PROC.exact(model(**raw))
    for name, q in want.items():
        assert exact[name] == pytest.approx(float(q), abs=1e-15)


def test_the_number_of_spaces_is_declared_a_reading_with_its_alternative():
    (flipped,) = [a for a in PROC.assumptions if a.name == "spaces_flipped"]
    assert flipped.tag == "reading" and flipped.knob == "spaces_flipped"
    assert [a.overrides for a in flipped.alternatives] == [{"spaces_flipped": "winner_hits"}]


def test_weights_must_match_values_naming_the_field():
    with pytest.raises(ValidationError) as err:
        model(habsburg_cp={"values": [1, 2], "weights": [1]}, papal_cp=1, protestant_cp=1)
    assert err.value.errors()[0]["loc"] == ("habsburg_cp", "weights")


def test_a_negative_weight_is_rejected_naming_the_entry():
    with pytest.raises(ValidationError) as err:
        model(habsburg_cp=1, papal_cp={"values": [1, 2], "weights": [1, -1]}, protestant_cp=1)
    assert err.value.errors()[0]["loc"] == ("papal_cp", "weights", 1)


def test_a_card_above_six_cp_is_rejected_naming_the_field():
    with pytest.raises(ValidationError) as err:
        model(habsburg_cp=1, papal_cp=1, protestant_cp=7)
    assert err.value.errors()[0]["loc"] == ("protestant_cp",)
    assert "between 0 and 6" in err.value.errors()[0]["msg"]


def test_a_fixed_card_is_written_back_as_a_number():
    p = model(habsburg_cp=2, papal_cp=HAND, protestant_cp=4)
    assert p.model_dump()["habsburg_cp"] == 2
    assert p.model_dump()["papal_cp"]["values"] == HAND["values"]
