"""Root advanced setup draft (RULES.md §2.2): kernel against twin, closed forms, draft rules."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive_root
from tests.fold import fold

PROC = get("root.setup")


def validate(raw: dict):
    return PROC.params_model.model_validate(raw)


def estimate(raw: dict, trials: int = 20_000, seed: int = 3):
    plan = make_plan(PROC, {"base": validate(raw)}, seed)
    stats = run_range(plan, -1, 0, trials)[0]
    return {
        m.name: (stats[4 * k + 1] / stats[4 * k], stats[4 * k]) for k, m in enumerate(plan.metrics)
    }


def near(mean, q, n):
    return abs(mean - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-12) / n) + 1e-12


def test_one_red_card_goes_to_the_pool_first_so_a_red_faction_is_always_in_play():
    # One red among six whites: the red is always dealt (first, to the pool), and the white last
    # card stays locked until someone takes the red, so the red is always chosen. Without the
    # red-first deal it would be dealt 4 times in 7; without the lock, chosen 3 times in 4.
    cards = [{"name": "red", "colour": "red", "minor": "hred"}]
    cards += [{"name": f"w{k}", "colour": "white", "minor": f"hw{k}"} for k in range(6)]
    est = estimate({"players": 3, "factions": cards})
    assert est["in_play.red"][0] == 1
    assert est["last_card_locked"][0] == 1


def test_two_players_remove_all_white_cards():
    est = estimate({"players": 2})
    for white in ("alliance", "vagabond", "lizards", "riverfolk", "corvids"):
        assert est[f"in_play.{white}"][0] == 0
    assert est["last_card_locked"][0] == 0


def test_exactly_players_factions_are_chosen_and_three_hirelings_dealt():
    est = estimate({"players": 4})
    assert sum(v for k, (v, _) in est.items() if k.startswith("in_play.")) == pytest.approx(4)
    assert sum(v for k, (v, _) in est.items() if k.startswith("hireling.")) == pytest.approx(3)


def test_a_white_last_card_is_locked_until_a_red_is_chosen():
    # 3 players, cards R1 R2 W1 W2 W3: whites picked first by preference, but the locked last
    # white must wait for a red, so the three whites are never all in play together.
    cards = [
        {"name": n, "colour": c, "minor": f"h{n}"}
        for n, c in [
            ("r1", "red"),
            ("r2", "red"),
            ("w1", "white"),
            ("w2", "white"),
            ("w3", "white"),
            ("x1", "red"),
            ("x2", "red"),
        ]
    ]
    raw = {
        "players": 3,
        "factions": cards,
        "policy": "preference",
        "preferences": ["w1", "w2", "w3"],
    }
    plan = make_plan(PROC, {"base": validate(raw)}, 9)
    key = int(scenario_key(9))
    rows = [naive_root.root_setup(validate(raw).model_dump(), key, t) for t in range(2000)]
    # Without the lock, all three whites are dealt (and picked) in 1/20 of the drafts.
    assert max(sum(row[2:5]) for row in rows) == 2
    assert sum(row[7] for row in rows) > 0
    np.testing.assert_array_equal(run_range(plan, -1, 0, 2000), fold(plan, [rows]))


def test_last_card_locked_matches_closed_form():
    for players in (3, 4, 6):
        raw = {"players": players}
        est = estimate(raw)
        exact = PROC.exact(validate(raw))
        mean, n = est["last_card_locked"]
        assert near(mean, exact["last_card_locked"], n)
        assert est["demoted"][0] == exact["demoted"]


def test_minor_factions_demoted_by_player_count():
    assert [estimate({"players": k})["demoted"][0] for k in (2, 3, 4, 5, 6)] == [0, 1, 2, 3, 3]


def test_hirelings_are_never_the_minor_of_a_chosen_faction():
    raw = {"players": 4}
    p = validate(raw)
    key = int(scenario_key(4))
    for t in range(300):
        row = naive_root.root_setup(p.model_dump(), key, t)
        n = len(p.factions)
        for k in range(n):
            assert not (row[k] and row[n + 2 + k])


def test_preference_list_is_followed_when_cards_allow():
    raw = {"players": 4, "policy": "preference", "preferences": ["corvids", "lizards"]}
    est = estimate(raw)
    # Corvids are chosen whenever their card is in the pool.
    p_dealt = 1 - np.prod([1 - 1 / (7 - d) for d in range(4)])  # 4 of the other 7 cards
    assert near(est["in_play.corvids"][0], p_dealt, 20_000)


def test_random_picks_match_brute_force_enumeration():
    # 2 players, three red cards: the pool is all three; P(a faction in play) = 2/3 each.
    cards = [{"name": n, "colour": "red", "minor": f"h{n}"} for n in "abcdef"]
    raw = {"players": 2, "factions": cards}
    est = estimate(raw)
    deals = list(permutations(range(6), 3))
    expect = sum(1 for d in deals if 0 in d) / len(deals) * 2 / 3
    assert near(est["in_play.a"][0], expect, 20_000)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_kernel_equals_plain_python_twin(players):
    raw = {"players": players}
    other = {
        "players": players,
        "policy": "preference",
        "preferences": ["alliance", "eyrie", "vagabond"],
    }
    variants = {"base": validate(raw), "other": validate(other)}
    plan = make_plan(PROC, variants, seed=12)
    key = int(scenario_key(12))
    first, n = 50, 600
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_root.root_setup(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_too_few_cards_for_the_players_is_rejected():
    cards = [{"name": n, "colour": "red", "minor": f"h{n}"} for n in "abcd"]
    with pytest.raises(ValidationError) as info:
        validate({"players": 4, "factions": cards})
    assert info.value.errors()[0]["loc"] == ("factions",)


def test_duplicate_faction_names_are_rejected():
    cards = [
        {"name": "a", "colour": "red"},
        {"name": "a", "colour": "white"},
        {"name": "b", "colour": "white"},
    ]
    with pytest.raises(ValidationError) as info:
        validate({"players": 2, "factions": cards})
    assert info.value.errors()[0]["loc"] == ("factions",)
    assert "listed twice" in str(info.value)


def test_unknown_preference_is_rejected():
    with pytest.raises(ValidationError) as info:
        validate({"policy": "preference", "preferences": ["moles"]})
    assert info.value.errors()[0]["loc"] == ("preferences",)


def test_scenario_file_loads_strictly():
    from pathlib import Path

    from simulator.scenario import parse

    path = Path(__file__).parent.parent / "scenarios" / "root" / "setup.yaml"
    scenario = parse(path.read_text(), str(path))
    assert scenario.procedure.name == PROC.name
