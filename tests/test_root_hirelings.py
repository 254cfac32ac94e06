"""Root hirelings game (Root hirelings rules §1): kernel against twin, and the spending rules."""

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
    # Two dice of 2 make 4: enough for the Veteran.
    out = means({"players": 2, "hirelings": hires(6), "faces": [{"amount": 2}], "rounds": 4})
    assert out["control_changes"] > 0


@pytest.mark.parametrize(("players", "chance"), [(3, 3 / 4), (4, 1 / 2), (5, 1 / 2)])
def test_three_players_take_the_better_of_two_dice_and_four_or_more_roll_one(players, chance):
    # Faces 0 and 3, everything costs 3: the first seat's first Evening buys one hireling exactly
    # when it gains 3, with chance 1/2 on one die and 3/4 on the better of two.
    raw = {"players": players, "hirelings": hires(3), "diplomat_cost": 3, "rounds": 1}
    out = means({**raw, "faces": [{"amount": 0}, {"amount": 3}]}, trials=4000)
    se = 3 * (chance * (1 - chance) / 4000) ** 0.5
    assert abs(out["influence_spent.seat1"] - 3 * chance) < 5 * se


def test_veteran_cannot_be_taken_while_controlled():
    # Both players have 4 influence every Evening. Seat 1, first, takes the Veteran each round;
    # seat 2 could afford it but may not take it from seat 1. (Taking it from a holder would
    # hand it to seat 2 at the end of every round.)
    out = means({"players": 2, "hirelings": hires(6), "faces": [{"amount": 2}], "rounds": 4})
    assert out["controlled_rounds.seat1"] == 4
    assert out["controlled_rounds.seat2"] == 0
    assert out["control_changes"] == 4


BEHIND_ONLY = [{"amount": 2, "behind": 1}]  # influence only for a player behind the leader


def test_veteran_returns_to_the_supply_after_its_holder_takes_the_first_player_card():
    # Seat 1 scores 1 a round, seat 2 nothing: only seat 2 (behind) gets influence, 4 each
    # Evening. It takes the Veteran in round 1; before round 2 it takes the first-player card
    # and the Veteran goes back to the supply, so it takes it again: one take every round (a
    # Veteran that stayed with its holder would change hands once).
    raw = {
        "players": 2,
        "hirelings": hires(6),
        "faces": BEHIND_ONLY,
        "rounds": 4,
        "score_gain": [[{"points": 1}], [{"points": 0}]],
    }
    out = means(raw)
    assert out["control_changes"] == 4
    assert out["controlled_rounds.seat2"] == 4
    assert sum(out[f"influence_spent.seat{s}"] for s in (1, 2)) == 4 * 3


def test_veteran_cannot_be_protected():
    # 6 influence an Evening: the Veteran's holder has 3 left and nothing else it could protect.
    raw = {"players": 2, "hirelings": hires(6, protectable=False), "faces": [{"amount": 3}]}
    for agent in ("greedy", "random"):
        assert means({**raw, "rounds": 5, "policies": agent})["protections"] == 0


def test_veteran_holder_goes_first():
    # Dice faces 1 and 2: two dice give 2, 3, 3 or 4, so an Evening affords the Veteran with
    # P = 3/4. The first player has first claim on it every round (it is back in the supply).
    # Round 1, seat 1 first: seat 2 ends with it with P = 1/4 * 3/4 = 3/16. Round 2: seat 2 is
    # first when it held the Veteran (3/16) and then ends with it with P = 3/4; otherwise with
    # P = 3/16 again: 3/16 * 3/4 + 13/16 * 3/16 = 75/256. Expected hireling-rounds: 123/256
    # (seat order kept in every round would give 96/256).
    raw = {"players": 2, "hirelings": hires(6), "faces": [{"amount": 1}, {"amount": 2}]}
    trials = 20_000
    plan = make_plan(PROC, {"base": validate({**raw, "rounds": 2})}, 7)
    stats = run_range(plan, -1, 0, trials)[0]
    k = [m.name for m in plan.metrics].index("controlled_rounds.seat2")
    n, total, squares = stats[4 * k : 4 * k + 3]
    mean = total / n
    se = np.sqrt((squares / n - mean**2) / n)
    assert abs(mean - 123 / 256) < 5 * se
    k1 = [m.name for m in plan.metrics].index("controlled_rounds.seat1")
    seat1 = stats[4 * k1 + 1] / stats[4 * k1]
    assert abs(seat1 - (192 + 165) / 256) < 5 * se * 2


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
    out = means({**raw, "policies": "random"})
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
        "policies": "random",
    }
    out = means(raw)
    assert out["protections"] > 0
    bare = means({**raw, "hirelings": hires(1, protectable=False)})
    assert bare["protections"] == 0
    assert bare["control_changes"] > out["control_changes"] + 1


def test_catch_up_counts_rounds_the_last_player_holds_the_most():
    # Seat 2 never scores, so it is last, and only it has influence: it ends every round with
    # the Veteran. When both have influence seat 1 (first) keeps the Veteran: no catch-up.
    raw = {
        "players": 2,
        "hirelings": hires(6),
        "faces": BEHIND_ONLY,
        "rounds": 3,
        "score_gain": [[{"points": 1}], [{"points": 0}]],
    }
    assert means(raw)["catch_up"] == 3
    assert means({**raw, "faces": [{"amount": 2}]})["catch_up"] == 0


@pytest.mark.parametrize("players", [2, 3, 5])
def test_kernel_equals_plain_python_twin(players):
    raw = {
        "players": players,
        "rounds": 6,
        "score_gain": [[{"points": 1, "weight": 2}, {"points": 3, "weight": 1}]],
    }
    other = {
        **raw,
        "policies": ["random", "greedy", "random", "greedy", "random"][:players],
        "hirelings": [
            {"name": "a", "cost": 1},
            {"name": "b", "cost": 2, "protectable": False},
            {"name": "c", "cost": 1},
        ],
        "hireling_points": 2,
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


def test_policies_name_one_agent_or_one_per_seat():
    assert validate({"players": 3, "policies": ["greedy", "random", "greedy"]}).seat_kinds() == [
        "greedy",
        "random",
        "greedy",
    ]
    assert validate({"players": 2, "policies": {"agent": "random"}}).seat_kinds() == ["random"] * 2
    with pytest.raises(ValidationError) as info:
        validate({"players": 3, "policies": ["greedy", "random"]})
    assert info.value.errors()[0]["loc"] == ("policies",)
    assert "one agent per seat" in str(info.value)


@pytest.mark.parametrize("agent", ["mcts", {"agent": "rollout", "playouts": 4}])
def test_search_agents_are_accepted(agent):
    assert validate({"players": 3, "policies": ["greedy", agent, "random"]}).seat_kinds()[1] in (
        "mcts",
        "rollout",
    )


def test_the_old_policy_key_is_gone():
    with pytest.raises(ValidationError):
        validate({"policy": "greedy"})


def test_each_seat_spends_by_its_own_agent():
    # Seat 1 random, seat 2 greedy on cost-1 hirelings, one influence an Evening, 4 players:
    # seat 1 sometimes protects or unprotects where greedy would take, so the per-seat agents
    # change the game from all-greedy.
    raw = {"players": 4, "hirelings": hires(1), "diplomat_cost": 6, "faces": ALWAYS}
    greedy = means(raw)
    mixed = means({**raw, "policies": ["random", "greedy", "greedy", "greedy"]})
    assert greedy["protections"] != mixed["protections"]


def test_wrong_number_of_seat_distributions_is_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"players": 3, "score_gain": [[{"points": 1}], [{"points": 2}]]})
    assert info.value.errors()[0]["loc"] == ("score_gain",)


def test_negative_face_amount_is_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"faces": [{"amount": -2}]})
    assert info.value.errors()[0]["loc"] == ("faces", 0, "amount")


@pytest.mark.parametrize("name", ["hirelings.yaml", "veteran.yaml"])
def test_scenario_file_loads_strictly(name):
    from pathlib import Path

    from simulator.scenario import parse

    path = Path(__file__).parent.parent / "scenarios" / "root" / name
    scenario = parse(path.read_text(), str(path))
    assert scenario.procedure.name == PROC.name


@pytest.mark.parametrize("players", [2, 3, 6])
def test_each_metric_family_runs_over_the_seats_from_where_pack_says(players):
    """The kernel writes family ``f``'s seat ``o`` at ``first_metric[f] + o``: those slots must
    name that seat's metric, for every player count."""
    from simulator.procedures.base import metric_slot
    from simulator.procedures.root.hirelings.state import FAMILIES, PACKED

    proc = get("root.hirelings")
    p = proc.params_model.model_validate({"players": players})
    names = [metric_slot(m.name) for m in proc.metrics(p)]
    first = PACKED.read(proc.pack(p), "first_metric").astype(int)
    for family, start in zip(FAMILIES.names, first, strict=True):
        if family.endswith("1"):
            stem = family[:-1]
            assert names[start : start + players] == [f"{stem}{o + 1}" for o in range(players)]
        else:
            assert names[start] == family
