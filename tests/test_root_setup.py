"""Root advanced setup draft (Root advanced setup §3): kernel against twin, closed forms, draft
rules."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, permutations

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


def tied_to(cards: list[dict]) -> list[dict]:
    """One hireling tied to each faction card."""
    return [{"name": f"h{c['name']}", "faction": c["name"]} for c in cards]


def near(mean, q, n):
    return abs(mean - q) <= 5 * np.sqrt(max(q * (1 - q), 1e-12) / n) + 1e-12


def test_one_red_card_goes_to_the_pool_first_so_a_red_faction_is_always_in_play():
    # One red among six whites: the red is always dealt (first, to the pool), and the white last
    # card stays locked until someone takes the red, so the red is always chosen. Without the
    # red-first deal it would be dealt 4 times in 7; without the lock, chosen 3 times in 4.
    cards = [{"name": "red", "colour": "red"}]
    cards += [{"name": f"w{k}", "colour": "white"} for k in range(6)]
    est = estimate({"players": 3, "factions": cards, "hirelings": tied_to(cards)})
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
    # Three hirelings, or the two left when the four base factions are all chosen (the gap).
    dealt = sum(v for k, (v, _) in est.items() if k.startswith("hireling."))
    assert 0 < est["gap_short_pool"][0] < 0.1
    assert dealt == pytest.approx(3 - est["gap_short_pool"][0])


def test_a_white_last_card_is_locked_until_a_red_is_chosen():
    # 3 players, cards R1 R2 W1 W2 W3: whites picked first by preference, but the locked last
    # white must wait for a red, so the three whites are never all in play together.
    cards = [
        {"name": n, "colour": c}
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
        "hirelings": tied_to(cards),
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
        if "demoted" in exact:
            assert est["demoted"][0] == exact["demoted"]


def test_minor_factions_demoted_by_player_count():
    # A pool of six unaffiliated hirelings always deals three.
    pool = [{"name": f"h{k}"} for k in range(6)]
    demoted = [estimate({"players": k, "hirelings": pool})["demoted"][0] for k in (2, 3, 4, 5, 6)]
    assert demoted == [0, 1, 2, 3, 3]


def test_hirelings_are_never_the_minor_of_a_chosen_faction():
    # Kernel rows, not the twin's: a hireling tied to a chosen faction is never dealt.
    raw = {"players": 4}
    p = validate(raw)
    plan = make_plan(PROC, {"base": p}, 4)
    names = [m.name for m in plan.metrics]
    rows = np.array(
        [naive_root.root_setup(p.model_dump(), int(scenario_key(4)), t) for t in range(2000)]
    )
    np.testing.assert_array_equal(run_range(plan, -1, 0, 2000), fold(plan, [rows.tolist()]))
    for h in p.hirelings:
        if h.faction:
            both = (
                rows[:, names.index(f"in_play.{h.faction}")]
                * rows[:, names.index(f"hireling.{h.name}")]
            )
            assert both.sum() == 0
    # Unaffiliated hirelings are dealt even when every base faction is in play.
    assert rows[:, names.index("hireling.unaffiliated_1")].sum() > 0


def test_default_pool_is_four_tied_to_the_base_factions_and_two_tied_to_none():
    pool = validate({}).hirelings
    assert len(pool) == 6
    assert sorted(h.faction for h in pool if h.faction) == [
        "alliance",
        "eyrie",
        "marquise",
        "vagabond",
    ]
    assert sum(not h.faction for h in pool) == 2


@pytest.mark.parametrize("players", [3, 4, 5])
def test_draft_matches_brute_force_enumeration_of_the_seed_pool(players):
    # Every deal and every random pick enumerated with exact fractions, from the rule text.
    raw = {"players": players}
    exact = enumerate_draft(validate(raw).model_dump())
    est = estimate(raw, trials=40_000, seed=8)
    for name, q in exact.items():
        mean, n = est[name]
        if name == "demoted":  # a count in 0..3: its standard deviation is at most 1.5
            assert abs(mean - q) <= 5 * 1.5 / np.sqrt(n), (name, mean, q)
        else:
            assert near(mean, q, n), (name, mean, q)
    # Four or more players can choose all four base factions: only two hirelings are left.
    assert (exact["gap_short_pool"] > 0) == (players >= 4)


def test_short_pool_deals_what_is_left_and_counts_the_gap():
    # Four players forced onto the base factions (the only cards): two unaffiliated hirelings
    # are left and both are dealt, every time.
    cards = [
        {"name": "marquise", "colour": "red"},
        {"name": "eyrie", "colour": "red"},
        {"name": "alliance", "colour": "white"},
        {"name": "vagabond", "colour": "white"},
        {"name": "duchy", "colour": "red"},
    ]
    raw = {"players": 4, "factions": cards, "policy": "preference"}
    raw["preferences"] = ["marquise", "eyrie", "alliance", "vagabond"]
    est = estimate(raw)
    # All five cards are dealt; the first pick (marquise, red) lifts any lock, so the four base
    # factions are chosen in every draft.
    assert est["in_play.duchy"][0] == 0
    assert est["hireling.unaffiliated_1"][0] == 1
    assert est["hireling.unaffiliated_2"][0] == 1
    assert est["gap_short_pool"][0] == 1
    assert est["demoted"][0] == 2


def test_preference_list_is_followed_when_cards_allow():
    raw = {"players": 4, "policy": "preference", "preferences": ["corvids", "lizards"]}
    est = estimate(raw)
    # Corvids are chosen whenever their card is in the pool.
    p_dealt = 1 - np.prod([1 - 1 / (7 - d) for d in range(4)])  # 4 of the other 7 cards
    assert near(est["in_play.corvids"][0], p_dealt, 20_000)


def test_random_picks_match_brute_force_enumeration():
    # 2 players, three red cards: the pool is all three; P(a faction in play) = 2/3 each.
    cards = [{"name": n, "colour": "red"} for n in "abcdef"]
    raw = {"players": 2, "factions": cards, "hirelings": tied_to(cards)}
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


def test_hireling_tied_to_an_unknown_faction_is_rejected():
    pool = [{"name": "a"}, {"name": "b"}, {"name": "c", "faction": "moles"}]
    with pytest.raises(ValidationError) as info:
        validate({"hirelings": pool})
    assert info.value.errors()[0]["loc"] == ("hirelings",)
    assert "moles" in str(info.value)


def test_too_few_cards_for_the_players_is_rejected():
    cards = [{"name": n, "colour": "red"} for n in "abcd"]
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


def enumerate_draft(p: dict) -> dict[str, float]:
    """Exact means of every metric for random picks, by enumerating every deal and pick."""
    cards, players, pool_h = p["factions"], p["players"], p["hirelings"]
    names = [c["name"] for c in cards]
    red = [c["colour"] == "red" for c in cards]
    out: dict[str, Fraction] = {}

    def add(name: str, q: Fraction) -> None:
        out[name] = out.get(name, Fraction(0)) + q

    def chosen_sets(pool: tuple, locked: bool) -> dict[frozenset, Fraction]:
        """The chosen factions' distribution: each pick uniform among the open cards; the last
        card (pool[-1]) is closed while locked and no red is chosen."""
        dist: dict[frozenset, Fraction] = {}
        frontier = {frozenset(): Fraction(1)}
        for _ in range(players):
            nxt: dict[frozenset, Fraction] = {}
            for taken, q in frontier.items():
                red_chosen = any(red[pool[c]] for c in taken)
                open_ = [
                    c
                    for c in range(len(pool))
                    if c not in taken and not (locked and c == len(pool) - 1 and not red_chosen)
                ]
                for c in open_:
                    k = taken | {c}
                    nxt[k] = nxt.get(k, Fraction(0)) + q / len(open_)
            frontier = nxt
        for taken, q in frontier.items():
            k = frozenset(pool[c] for c in taken)
            dist[k] = dist.get(k, Fraction(0)) + q
        return dist

    reds = [k for k in range(len(cards)) if red[k]]
    for r in reds:
        rest = [k for k in range(len(cards)) if k != r and (red[k] or players > 2)]
        for last in rest:
            others = [k for k in rest if k != last]
            middles = list(combinations(others, players - 1))
            q_deal = Fraction(1, len(reds) * len(rest) * len(middles))
            for middle in middles:
                locked = not red[last]
                for chosen, q_pick in chosen_sets((r, *middle, last), locked).items():
                    q = q_deal * q_pick
                    chosen_names = {names[k] for k in chosen}
                    left = [
                        h for h in pool_h if not h["faction"] or h["faction"] not in chosen_names
                    ]
                    dealt = min(3, len(left))
                    for name in chosen_names:
                        add(f"in_play.{name}", q)
                    for h in left:
                        add(f"hireling.{h['name']}", q * Fraction(dealt, len(left)))
                    add("last_card_locked", q * locked)
                    add("demoted", q * min({2: 0, 3: 1, 4: 2}.get(players, 3), dealt))
                    add("gap_short_pool", q * (dealt < 3))
    return {k: float(v) for k, v in out.items()}
