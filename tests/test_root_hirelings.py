"""Root hirelings game (RULES.md §2.1): kernel against twin, and the spending rules."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive_root
from tests.fold import fold

PROC = get("root.hirelings")
ALWAYS = [{"amount": 1}]


def validate(raw: dict):
    return PROC.params_model.model_validate(raw)


def means(raw: dict, trials: int = 2000, seed: int = 2) -> dict[str, float]:
    plan = make_plan(PROC, {"base": validate(raw)}, seed)
    stats = run_range(plan, -1, 0, trials)[0]
    return {m.name: stats[4 * k + 1] / stats[4 * k] / m.scale for k, m in enumerate(plan.metrics)}


def hires(cost: int, protectable: bool = True) -> list[dict]:
    return [{"name": f"h{k}", "cost": cost, "protectable": protectable} for k in range(3)]


def test_influence_is_spent_at_once_never_saved():
    # Every hireling costs 3 and a 4+ player game rolls one die of 1: nothing is ever bought.
    out = means({"players": 4, "hirelings": hires(3), "diplomat_cost": 3, "faces": ALWAYS})
    assert out["control_changes"] == 0
    assert sum(out[f"influence_spent.seat{s}"] for s in range(1, 5)) == 0


def test_two_players_add_both_dice_and_the_veteran_costs_three():
    # Two dice of 1 make 2 influence: never the Veteran (3), never saved up for it.
    out = means({"players": 2, "hirelings": hires(6), "faces": ALWAYS, "rounds": 4})
    assert out["control_changes"] == 0
    # Two dice of 2 make 4: the Veteran is taken in both Evenings of round 1, then once a round
    # (its holder, first, cannot take it from itself).
    out = means({"players": 2, "hirelings": hires(6), "faces": [{"amount": 2}], "rounds": 4})
    assert out["control_changes"] == 2 + 3


def test_veteran_cannot_be_protected():
    out = means({"players": 2, "hirelings": hires(6), "faces": [{"amount": 3}], "rounds": 5})
    assert out["protections"] == 0


def test_veteran_holder_goes_first():
    # Seat 2 takes the Veteran in round 1 and goes first in round 2, so seat 1 ends round 2
    # with it and seat 2 round 3 (in plain seat order seat 2 would end every round with it).
    raw = {"players": 2, "hirelings": hires(6), "faces": [{"amount": 2}], "rounds": 3}
    out = means(raw)
    assert out["controlled_rounds.seat2"] == 2
    assert out["controlled_rounds.seat1"] == 1


ZERO_GAIN = [[{"points": 0}]]


def test_taking_a_diplomat_gives_the_other_to_an_enemy():
    # 3 players, only Diplomats affordable (2): each take moves both. After seat 3's take (see
    # the next test) the greedy gift goes to seat 1, the lowest-scoring enemy on the tie.
    raw = {
        "players": 3,
        "hirelings": hires(6),
        "faces": [{"amount": 2}],
        "rounds": 1,
        "score_gain": ZERO_GAIN,
    }
    out = means(raw)
    assert [out[f"controlled_rounds.seat{s}"] for s in (1, 2, 3)] == [1, 0, 1]
    # Random gifts: to seat 2 (both return after its Evening, seat 3 takes them: 2 held at the
    # end) or to seat 3 (both return after its Evening: none held), half the time each.
    out = means({**raw, "policy": "random"})
    held = sum(out[f"controlled_rounds.seat{s}"] for s in (1, 2, 3))
    assert abs(held - 1) < 5 / np.sqrt(2000)


def test_diplomats_return_to_the_supply_when_both_are_exhausted():
    # Seat 1 takes one and gives the other to seat 2 (lowest score, greedy); seat 1's flips at
    # the end of its Evening, seat 2's at the end of its own: both return and seat 3 takes them.
    raw = {
        "players": 3,
        "hirelings": hires(6),
        "faces": [{"amount": 2}],
        "rounds": 1,
        "score_gain": ZERO_GAIN,
    }
    out = means(raw)
    assert out["controlled_rounds.seat3"] == 1
    assert out["control_changes"] == 4


def test_only_protectable_hirelings_are_protected_and_protection_blocks_takes():
    # One influence per Evening, hirelings cost 1, random spending.
    raw = {
        "players": 4,
        "hirelings": hires(1),
        "diplomat_cost": 6,
        "faces": ALWAYS,
        "policy": "random",
    }
    out = means(raw)
    assert out["protections"] > 0
    bare = means({**raw, "hirelings": hires(1, protectable=False)})
    assert bare["protections"] == 0
    assert bare["control_changes"] > out["control_changes"] + 1


def test_catch_up_counts_rounds_the_last_player_holds_the_most():
    # Seat 2 never scores, so it is last; the Veteran dance (see above) leaves it with the
    # Veteran at the end of rounds 1 and 3.
    raw = {
        "players": 2,
        "hirelings": hires(6),
        "faces": [{"amount": 2}],
        "rounds": 3,
        "score_gain": [[{"points": 1}], [{"points": 0}]],
    }
    assert means(raw)["catch_up"] == 2


@pytest.mark.parametrize("players", [2, 3, 5])
def test_kernel_equals_plain_python_twin(players):
    raw = {
        "players": players,
        "rounds": 6,
        "score_gain": [[{"points": 1, "weight": 2}, {"points": 3, "weight": 1}]],
    }
    other = {
        **raw,
        "policy": "random",
        "hirelings": [
            {"name": "a", "cost": 1},
            {"name": "b", "cost": 2, "protectable": False},
            {"name": "c", "cost": 1},
        ],
    }
    variants = {"base": validate(raw), "other": validate(other)}
    plan = make_plan(PROC, variants, seed=21)
    key = int(scenario_key(21))
    first, n = 10, 300
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_root.root_hirelings(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_wrong_number_of_seat_distributions_is_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"players": 3, "score_gain": [[{"points": 1}], [{"points": 2}]]})
    assert info.value.errors()[0]["loc"] == ("score_gain",)


def test_negative_face_amount_is_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"faces": [{"amount": -2}]})
    assert info.value.errors()[0]["loc"] == ("faces", 0, "amount")


def test_scenario_file_loads_strictly():
    from pathlib import Path

    from simulator.scenario import parse

    path = Path(__file__).parent.parent / "scenarios" / "root" / "hirelings.yaml"
    scenario = parse(path.read_text(), str(path))
    assert scenario.procedure.name == PROC.name
