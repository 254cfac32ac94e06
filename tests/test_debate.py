"""Here I Stand theological debate (Here I Stand rules §16.2): kernel vs twin, exact values,
icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.procedures.his.debate import single_round
from simulator.rng import scenario_key
from tests import naive_his_religion as naive
from tests.exactness import assert_within_standard_errors
from tests.fold import fold

PROC = get("his.debate")


def prot(name, rating, zone="german", committed=False):
    return {"name": name, "rating": rating, "zone": zone, "committed": committed}


def pap(name, rating, committed=False):
    return {"name": name, "rating": rating, "committed": committed}


POOLS = {
    "protestant_debaters": [
        prot("Luther", 4),
        prot("Melanchthon", 3),
        prot("Bucer", 2),
        prot("Carlstadt", 1, committed=True),
        prot("Tyndale", 2, "english"),
    ],
    "papal_debaters": [
        pap("Eck", 3),
        pap("Campeggio", 2),
        pap("Aleander", 2, committed=True),
        pap("Tetzel", 1),
        pap("Cajetan", 1),
    ],
}


def model(**kw):
    return PROC.params_model.model_validate(kw)


@pytest.mark.parametrize(
    ("raw", "other"),
    [
        ({"caller": "papacy", "zone": "german", **POOLS}, {"caller": "protestant"}),
        (
            {"caller": "protestant", "zone": "english", **POOLS},
            {
                "papal_debaters": [
                    pap("Eck", 3, True),
                    pap("Campeggio", 2, True),
                    pap("Aleander", 2, True),
                    pap("Tetzel", 1, True),
                    pap("Cajetan", 1),
                ]
            },
        ),
        (
            {
                "caller": "protestant",
                "zone": "german",
                "protestant_debaters": [prot("Luther", 4)],
                "papal_debaters": [pap("Eck", 3)],
            },
            {"caller": "papacy"},
        ),
        (
            {"caller": "papacy", "zone": "german", "defender_from": "committed", **POOLS},
            {"defender_from": "uncommitted"},
        ),
    ],
)
def test_kernel_equals_plain_python_twin(raw, other):
    variants = {"base": model(**raw), "other": model(**{**raw, **other})}
    plan = make_plan(PROC, variants, seed=21)
    key = int(scenario_key(21))
    first, n = 500, 700
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_debate(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


CASES = [
    {"caller": "papacy", "zone": "german", **POOLS},
    {"caller": "protestant", "zone": "german", **POOLS},
    {"caller": "protestant", "zone": "english", **POOLS},
    {
        "caller": "papacy",
        "zone": "german",
        "protestant_debaters": [prot("Luther", 4)],
        "papal_debaters": [pap("Eck", 3), pap("Tetzel", 1, True)],
    },
    {
        "caller": "protestant",
        "zone": "german",
        "protestant_debaters": [prot("Carlstadt", 1)],
        "papal_debaters": [pap("Cajetan", 1, True)],
    },
]


@pytest.mark.parametrize("raw", CASES)
def test_estimates_within_five_standard_errors_of_exact(raw):
    p = model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=1519)
    out = simulate(plan, 30_000, threads=1, chunk_size=30_000)
    # An event rarer than 1 in 6,000 may not happen at all (standard error 0): rule of five.
    assert_within_standard_errors(plan, out.stats, PROC.exact(p), slack=5 / 30_000)


def _icepool_round(a: int, d: int, committed: bool) -> dict[str, Fraction]:
    hit = icepool.d6 >= 5
    diff = ((a + 3) @ hit) - ((d + (1 if committed else 2)) @ hit)
    return {
        "attacker_wins": Fraction(diff.probability(">", 0)),
        "tie": Fraction(diff.probability("==", 0)),
        "defender_removed": Fraction(diff.probability(">", d)),
    }


@pytest.mark.parametrize(("a", "d"), [(1, 1), (4, 3), (2, 5), (3, 1)])
@pytest.mark.parametrize("committed", [False, True])
def test_single_round_with_fixed_debaters_matches_icepool(a, d, committed):
    got = single_round(a, d, committed)
    want = _icepool_round(a, d, committed)
    for k, v in want.items():
        assert got[k] == pytest.approx(float(v), abs=1e-15), k


def test_a_committed_defender_rolls_one_die_fewer():
    assert single_round(2, 2, True)["attacker_wins"] > single_round(2, 2, False)["attacker_wins"]
    # A lone pair: the first round is single_round exactly, so P(first-round tie) is its tie.
    p = model(
        caller="papacy",
        zone="german",
        protestant_debaters=[prot("Luther", 4)],
        papal_debaters=[pap("Eck", 3)],
    )
    exact = PROC.exact(p)
    assert exact["went_to_second_round"] == pytest.approx(single_round(3, 4)["tie"], abs=1e-15)


def test_a_tie_is_debated_again_with_the_same_lone_debaters_now_committed():
    # One debater a side: the second round reuses them, the defender now committed (rating + 1).
    p = model(
        caller="protestant",
        zone="german",
        protestant_debaters=[prot("Luther", 4)],
        papal_debaters=[pap("Eck", 3)],
    )
    first, second = single_round(4, 3, False), single_round(4, 3, True)
    exact = PROC.exact(p)
    assert exact["caller_wins"] == pytest.approx(
        first["attacker_wins"] + first["tie"] * second["attacker_wins"], abs=1e-15
    )
    assert exact["no_result"] == pytest.approx(first["tie"] * second["tie"], abs=1e-15)


def test_burned_and_disgraced_debaters_give_their_rating_in_vp():
    p = model(caller="papacy", zone="german", **POOLS)
    plan = make_plan(PROC, {"base": p}, seed=5)
    out = simulate(plan, 20_000, threads=1)
    names = [m.name for m in plan.metrics]
    total = {name: int(out.stats[0, 4 * names.index(name) + 1]) for name in names}
    ratings = {d["name"]: d["rating"] for d in POOLS["protestant_debaters"]}
    assert total["papal_vp"] == sum(r * total[f"removed.{n}"] for n, r in ratings.items())
    assert total["papal_vp"] > 0
    # Only debaters of the named zone debate.
    assert total["chosen.Tyndale"] == 0 and total["chosen.Luther"] > 0


def test_duplicate_debater_names_are_rejected_naming_the_entry():
    raw = {"caller": "papacy", "zone": "german", **POOLS}
    raw["papal_debaters"] = [*POOLS["papal_debaters"], pap("Luther", 2)]
    with pytest.raises(ValidationError) as err:
        model(**raw)
    assert err.value.errors()[0]["loc"] == ("papal_debaters", 5, "name")
    assert "used twice" in err.value.errors()[0]["msg"]


def test_a_zone_without_protestant_debaters_is_rejected():
    with pytest.raises(ValidationError) as err:
        model(caller="papacy", zone="french", **POOLS)
    assert err.value.errors()[0]["loc"] == ("protestant_debaters",)
    assert "french" in err.value.errors()[0]["msg"]


def test_a_rating_outside_one_to_five_is_rejected_naming_the_entry():
    raw = {"caller": "papacy", "zone": "german", **POOLS}
    raw["papal_debaters"] = [pap("Eck", 3), pap("Campeggio", 6)]
    with pytest.raises(ValidationError) as err:
        model(**raw)
    assert err.value.errors()[0]["loc"] == ("papal_debaters", 1, "rating")


def test_a_caller_without_an_uncommitted_debater_cannot_debate():
    raw = {"caller": "papacy", "zone": "german", **POOLS}
    raw["papal_debaters"] = [pap("Eck", 3, True)]
    with pytest.raises(ValidationError) as err:
        model(**raw)
    assert err.value.errors()[0]["loc"] == ("papal_debaters",)


def test_results_do_not_depend_on_threads_or_chunks():
    p = model(caller="papacy", zone="german", **POOLS)
    plan = make_plan(PROC, {"base": p}, seed=3)
    a = simulate(plan, 20_000, threads=1, chunk_size=20_000)
    b = simulate(plan, 20_000, threads=2, chunk_size=1024)
    np.testing.assert_array_equal(a.stats, b.stats)


def test_the_caller_draws_the_defender_from_the_pool_it_chooses():
    # Here I Stand rules §16.2 ③: the caller draws from the opponent's uncommitted OR committed
    # debaters. Eck (3) against Luther (4, uncommitted: 6 dice) or Carlstadt (1, committed: 2 dice):
    # the Papacy takes the committed pool. If the first round ties, Eck (committed, still rating +
    # 3) meets a fresh uncommitted defender: Luther (§16.2 ⑩).
    raw = {
        "caller": "papacy",
        "zone": "german",
        "protestant_debaters": [prot("Luther", 4), prot("Carlstadt", 1, committed=True)],
        "papal_debaters": [pap("Eck", 3)],
    }
    first, second = single_round(3, 1, True), single_round(3, 4, False)
    by_hand = first["attacker_wins"] + first["tie"] * second["attacker_wins"]
    choice = model(**raw)
    assert PROC.exact(choice)["caller_wins"] == pytest.approx(by_hand, abs=1e-12)
    assert PROC.exact(choice) == PROC.exact(model(**raw, defender_from="committed"))
    old = PROC.exact(model(**raw, defender_from="uncommitted"))
    assert old["caller_wins"] < by_hand - 0.2
    plan = make_plan(PROC, {"base": choice}, seed=17)
    out = simulate(plan, 40_000, threads=1)
    hand = {"caller_wins": by_hand, "chosen.Carlstadt": 1.0}
    assert_within_standard_errors(plan, out.stats, hand, partial=True)


# Rule branches on the KERNEL: one debater a side (so both rounds use the same pair, the defender
# committed in the second), against an icepool oracle written from the rule text.

HIT = icepool.d6 >= 5


def _lone_pair_oracle(a: int, d: int, committed: bool) -> dict[str, Fraction]:
    """Attacker (rating a) rolls a + 3 dice, the defender (rating d) d + 2, or d + 1 once
    committed; more hits wins; X = the hit difference; X > the loser's rating removes it; a first
    tie is debated again at once (the defender now committed), a second tie ends it."""

    def round_law(defender_dice: int) -> dict[int, Fraction]:
        diff = (a + 3) @ HIT - defender_dice @ HIT
        return {k: Fraction(diff.probability("==", k)) for k in diff.outcomes()}

    first = round_law(d + (1 if committed else 2))
    second = round_law(d + 1)
    out = dict.fromkeys(
        ["caller_wins", "opponent_wins", "no_result", "removed_attacker", "removed_defender"],
        Fraction(0),
    )
    for law, weight in ((first, Fraction(1)), (second, first.get(0, Fraction(0)))):
        for x, q in law.items():
            out["caller_wins"] += weight * q * (x > 0)
            out["opponent_wins"] += weight * q * (x < 0)
            out["removed_defender"] += weight * q * (x > d)
            out["removed_attacker"] += weight * q * (-x > a)
    out["no_result"] = first.get(0, Fraction(0)) * second.get(0, Fraction(0))
    out["went_to_second_round"] = first.get(0, Fraction(0))
    return out


def _lone_pair_kernel(a: int, d: int, committed: bool, trials: int = 40_000):
    p = model(
        caller="protestant",
        zone="german",
        protestant_debaters=[prot("Luther", a)],
        papal_debaters=[pap("Eck", d, committed=committed)],
    )
    plan = make_plan(PROC, {"base": p}, seed=23)
    out = simulate(plan, trials, threads=1)
    names = [m.name for m in plan.metrics]
    return {n: out.stats[0, 4 * k + 1] / out.stats[0, 4 * k] for k, n in enumerate(names)}


def _assert_near(got: float, want: Fraction, trials: int = 40_000) -> None:
    q = float(want)
    assert abs(got - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-12) / trials) + 1e-12, (got, q)


@pytest.mark.parametrize(("a", "d"), [(1, 1), (2, 1), (1, 2)])
def test_kernel_removes_the_loser_only_when_x_exceeds_its_rating(a, d):
    want = _lone_pair_oracle(a, d, committed=False)
    got = _lone_pair_kernel(a, d, committed=False)
    _assert_near(got["removed.Eck"], want["removed_defender"])
    _assert_near(got["removed.Luther"], want["removed_attacker"])
    # The winner gains the removed loser's rating in VP.
    assert got["protestant_vp"] == pytest.approx(d * got["removed.Eck"], abs=1e-12)
    assert got["papal_vp"] == pytest.approx(a * got["removed.Luther"], abs=1e-12)


def test_kernel_debates_a_first_tie_again_and_a_second_tie_ends_it():
    want = _lone_pair_oracle(2, 2, committed=False)
    got = _lone_pair_kernel(2, 2, committed=False)
    for name in ("caller_wins", "opponent_wins", "no_result", "went_to_second_round"):
        _assert_near(got[name], want[name])


@pytest.mark.parametrize("committed", [False, True])
def test_kernel_attacker_rolls_rating_plus_three_against_rating_plus_two_or_one(committed):
    want = _lone_pair_oracle(3, 3, committed)
    got = _lone_pair_kernel(3, 3, committed)
    _assert_near(got["caller_wins"], want["caller_wins"])
    _assert_near(got["went_to_second_round"], want["went_to_second_round"])
