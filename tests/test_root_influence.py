"""Root influence dice (Root hirelings rules §1): kernel against twin, exact values and icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.root.influence import distribution
from simulator.rng import scenario_key
from tests import naive_root
from tests.fold import fold

PROC = get("root.influence")


def validate(raw: dict):
    return PROC.params_model.model_validate(raw)


def estimate(raw: dict, trials: int = 40_000, seed: int = 5):
    plan = make_plan(PROC, {"base": validate(raw)}, seed)
    stats = run_range(plan, -1, 0, trials)[0]
    off = plan.hist_offset[0]
    return stats[1] / stats[0], stats[off : off + plan.hist_max[0] + 1] / trials


def assert_distribution_near(hist, dist, trials=40_000):
    for k in range(len(hist)):
        q = float(dist.get(k, 0))
        se = np.sqrt(max(q * (1 - q), 1e-12) / trials)
        assert abs(hist[k] - q) <= 5 * se + 1e-12, (k, hist[k], q)


def test_seed_example_rolling_1_and_3plus2_four_behind_gains_3():
    faces = [{"amount": 1}, {"amount": 2, "behind": 3}]
    dist = distribution(validate({"players": 2, "behind": 4, "faces": faces}))
    assert dist[3] == Fraction(2, 4)  # one die each face, in either order
    _, hist = estimate({"players": 2, "behind": 4, "faces": faces})
    assert_distribution_near(hist, dist)


def test_two_players_gain_the_sum_of_qualifying_faces():
    faces = [{"amount": 1}, {"amount": 2}]
    mean, hist = estimate({"players": 2, "faces": faces})
    assert abs(mean - 3.0) < 0.03
    assert hist[0] == 0 and hist[1] == 0  # never less than 1 + 1


def test_three_players_gain_only_the_better_face():
    faces = [{"amount": 1}, {"amount": 2}]
    _, hist = estimate({"players": 3, "faces": faces})
    assert hist[3:].sum() == 0
    assert_distribution_near(hist, {1: Fraction(1, 4), 2: Fraction(3, 4)})


def test_four_or_more_players_roll_one_die():
    faces = [{"amount": 1}, {"amount": 2}]
    for players in (4, 6):
        _, hist = estimate({"players": players, "faces": faces})
        assert_distribution_near(hist, {1: Fraction(1, 2), 2: Fraction(1, 2)})


def test_a_face_counts_only_when_far_enough_behind_the_leader():
    faces = [{"amount": 3, "behind": 5}]
    assert estimate({"players": 4, "behind": 4, "faces": faces})[0] == 0
    assert estimate({"players": 4, "behind": 5, "faces": faces})[0] == 3


def test_default_die_matches_icepool():
    # Faces [0, 1, 1, 1+:1, 3+:2, 5+:3]; a player 3 behind sees 0,1,1,1,2,0.
    seen = icepool.Die([0, 1, 1, 1, 2, 0])
    oracle = {2: seen + seen, 3: icepool.highest(seen, seen), 4: seen}
    for players, die in oracle.items():
        dist = distribution(validate({"players": players, "behind": 3}))
        assert dist == {
            k: Fraction(q) for k, q in zip(die.outcomes(), die.probabilities(), strict=True)
        }


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("behind", [0, 1, 3, 5, 9])
def test_estimates_within_five_standard_errors_of_exact(players, behind):
    raw = {"players": players, "behind": behind}
    mean, hist = estimate(raw, trials=20_000, seed=players * 31 + behind)
    dist = distribution(validate(raw))
    assert_distribution_near(hist, dist, trials=20_000)
    exact = PROC.exact(validate(raw))
    assert (
        abs(mean - exact["influence"])
        <= 5
        * np.sqrt(sum(float(q) * (k - exact["influence"]) ** 2 for k, q in dist.items()) / 20_000)
        + 1e-12
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kernel_equals_plain_python_twin(players):
    raw = {"players": players, "behind": 2}
    other = {
        "players": players,
        "behind": 5,
        "faces": [{"amount": 0}, {"amount": 2, "behind": 4}, {"amount": 1}],
    }
    variants = {"base": validate(raw), "other": validate(other)}
    plan = make_plan(PROC, variants, seed=8)
    key = int(scenario_key(8))
    first, n = 100, 2000
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_root.root_influence(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_negative_amount_is_rejected_naming_the_face():
    with pytest.raises(ValidationError) as info:
        validate({"faces": [{"amount": 1}, {"amount": -1}]})
    assert info.value.errors()[0]["loc"] == ("faces", 1, "amount")


def test_seven_players_are_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"players": 7})
    assert info.value.errors()[0]["loc"] == ("players",)


def test_scenario_file_loads_strictly():
    from pathlib import Path

    from simulator.scenario import parse

    path = Path(__file__).parent.parent / "scenarios" / "root" / "influence.yaml"
    scenario = parse(path.read_text(), str(path))
    assert scenario.procedure.name == PROC.name
