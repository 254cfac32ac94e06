"""Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2 (RULES.md §1).

Whole games have no tractable exact values, so the rules are checked one by one on hand-built
positions, each through both the plain-Python twin and the kernel's own rule function; whole games
are checked kernel against twin, exactly, under every revision and policy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.recruitment import loyalty as L
from simulator.rng import scenario_key
from tests import naive_recruitment as nr
from tests.fold import fold
from tests.naive import Stream

PROC = get("recruitment.loyalty")
ROOT = Path(__file__).resolve().parents[1]
REVISIONS = ("1.0", "1.1", "1.2")


def validated(**kw):
    return PROC.params_model.model_validate(kw)


def revisions_plan(seed=5, **kw):
    variants = {r: validated(**{**kw, "revision": r}) for r in REVISIONS}
    return make_plan(PROC, variants, seed=seed), variants


def mean(plan, stats, v, name):
    m = [x.name for x in plan.metrics].index(name)
    return stats[v, 4 * m + 1] / stats[v, 4 * m] / plan.metrics[m].scale


# ---------------------------------------------------------------------------------------------
# Whole games: kernel == twin
# ---------------------------------------------------------------------------------------------

LISTED_DECK = [
    {"name": f"c{i}", "wage": i % 3, "base_loyalty": i % 4, "home": i % 4, "equipped": i % 2}
    for i in range(14)
]


@pytest.mark.parametrize(
    "raw",
    [
        {"players": 4, "rounds": 8, "policy": "random"},
        {"players": 4, "rounds": 8, "policy": "greedy"},
        {
            "players": 3,
            "rounds": 10,
            "policy": ["greedy", "random", "greedy"],
            "deck": LISTED_DECK,
            "starting_gold": 1,
            "income": 1,
        },
        {
            "players": 6,
            "rounds": 6,
            "policy": "random",
            "tokens_per_empire": 6,
            "tokens_per_round": 2,
            "loyalty_die": 4,
            "greedy_defend_margin": 0,
            "deck": {
                "count": 20,
                "wage": {"low": 0, "high": 3},
                "base_loyalty": {"low": 0, "high": 2},
                "home": {"low": 0, "high": 6},
                "equipped": 1,
            },
        },
        {
            "players": 2,
            "rounds": 12,
            "policy": ["random", "greedy"],
            "shuffle_deck": False,
            "deck": [{**c, "home": c["home"] % 3} for c in LISTED_DECK[:5]],
        },
    ],
    ids=["random", "greedy", "mixed-listed-deck", "six-generated-homes", "two-unshuffled"],
)
def test_kernel_equals_plain_python_twin_under_every_revision(raw):
    plan, variants = revisions_plan(seed=5, debug=True, **raw)
    key = int(scenario_key(5))
    first, n = 300, 200
    got = run_range(plan, -1, first, n)
    twin = [
        [nr.play(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_revisions_1_1_and_1_2_differ_only_in_equipment_discarded():
    plan, _ = revisions_plan(seed=11, players=6, rounds=10)
    stats = run_range(plan, -1, 0, 3000)
    names = [m.name for m in plan.metrics]
    equipment = [m for m, name in enumerate(names) if name.startswith("equipment_discarded")]
    others = [m for m in range(len(names)) if m not in equipment]
    # Same count, sum, sum of squares and cross term with 1.0 for every other metric.
    v11, v12 = stats[1].reshape(-1)[: 4 * len(names)], stats[2].reshape(-1)[: 4 * len(names)]
    for m in others:
        assert (v11[4 * m : 4 * m + 4] == v12[4 * m : 4 * m + 4]).all(), names[m]
    assert mean(plan, stats, 1, "equipment_discarded") == 0
    assert mean(plan, stats, 2, "equipment_discarded") > 1
    # And 1.0 really plays a different game: its gap keeps characters that 1.1 removes.
    assert mean(plan, stats, 0, "gap_multi_tie") > 0
    assert mean(plan, stats, 0, "removed_multi_tie") == 0
    assert mean(plan, stats, 1, "removed_multi_tie") > 0
    assert mean(plan, stats, 1, "gap_multi_tie") == 0
    assert mean(plan, stats, 0, "games_with_gap_multi_tie") > 0.5
    assert mean(plan, stats, 1, "games_with_gap_multi_tie") == 0


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_tokens_gold_and_cards_are_conserved_over_thousands_of_games(policy):
    plan, _ = revisions_plan(
        seed=23,
        players=5,
        rounds=12,
        policy=policy,
        debug=True,
        tokens_per_empire=9,
        tokens_per_round=4,
    )
    stats = run_range(plan, -1, 0, 4000)
    for v in range(3):
        assert mean(plan, stats, v, "invariant_violations") == 0
        assert stats[v, 0] == 4000


def test_conservation_check_reports_a_broken_position():
    game = position([0, 1], ["owned", "owned"], [[2, 0], [1, 1]], players=2)
    a = arrays(game)
    args = (a["tokens"], a["status"], a["supply"], a["gold"], len(game.cards), 2, 20, 20, 0, 0, 0)
    assert L.conservation_failures(*args) == 0
    a["supply"][0] += 1  # a token appeared from nowhere
    a["gold"][1] -= 1  # and a gold vanished
    assert L.conservation_failures(*args) == 2


# ---------------------------------------------------------------------------------------------
# Hand-built positions: twin and kernel rule functions side by side
# ---------------------------------------------------------------------------------------------


def position(
    owners,
    places,
    tokens,
    players=3,
    revision="1.0",
    wages=None,
    bases=None,
    homes=None,
    equipped=None,
    gold=10,
    supply=None,
):
    """A twin Game with cards in the given places; supplies hold what is not on cards."""
    p = validated(
        players=players, revision=revision, tokens_per_empire=20, starting_gold=gold
    ).model_dump()
    cards = []
    for i, (owner, place, t) in enumerate(zip(owners, places, tokens, strict=True)):
        cards.append(
            nr.Card(
                wage=(wages or [0] * len(owners))[i],
                base=(bases or [0] * len(owners))[i],
                home=(homes or [None] * len(owners))[i],
                equipped=(equipped or [0] * len(owners))[i],
                tokens=list(t),
                owner=owner if place == "owned" else None,
                place=place,
            )
        )
    game = nr.Game(p, nr.Script([]), cards)
    game.supply = supply or [20 - sum(c.tokens[e] for c in cards) for e in range(players)]
    game.zone = [i for i, c in enumerate(cards) if c.place == "zone"]
    game.deck = [i for i, c in enumerate(cards) if c.place == "deck"]
    return game


def arrays(game):
    """The kernel's state arrays of a twin position."""
    n, players = len(game.cards), game.players
    cards = np.zeros((n, 4), dtype=np.int64)
    tokens = np.zeros((n, players), dtype=np.int64)
    status = np.zeros(n, dtype=np.int64)
    for i, c in enumerate(game.cards):
        cards[i] = (c.wage, c.base, -1 if c.home is None else c.home, c.equipped)
        tokens[i] = c.tokens
        status[i] = {"deck": L.IN_DECK, "zone": L.IN_ZONE, "removed": L.REMOVED}.get(
            c.place, c.owner if c.owner is not None else 0
        )
    deck = np.zeros(n + 1, dtype=np.int64)
    deck[: len(game.deck)] = game.deck
    zone = np.zeros(8, dtype=np.int64)
    zone[: len(game.zone)] = game.zone
    hands = np.zeros((players, n), dtype=np.int64)
    hand_size = np.zeros(players, dtype=np.int64)
    L.sort_hands(status, n, players, hands, hand_size)
    return {
        "hands": hands,
        "hand_size": hand_size,
        "cards": cards,
        "tokens": tokens,
        "status": status,
        "supply": np.array(game.supply, dtype=np.int64),
        "gold": np.array(game.gold, dtype=np.int64),
        "counts": np.zeros((L.N_COUNTERS, players), dtype=np.int64),
        "deck": deck,
        "zone": zone,
        "zone_len": np.array([len(game.zone)], dtype=np.int64),
    }


def rules_args(a):
    """The arguments the maintenance rules share: printed cards, tokens and the empires' hands."""
    return a["cards"], a["tokens"], a["hands"], a["hand_size"]


def assert_same_state(game, a):
    """The kernel arrays hold the position the twin reached."""
    expected = arrays(game)
    for name in ("tokens", "status", "supply", "gold"):
        np.testing.assert_array_equal(a[name], expected[name], err_msg=name)
    for k, counter in enumerate(nr.COUNTERS[1:], start=1):
        np.testing.assert_array_equal(a["counts"][k], game.count[counter], err_msg=counter)


def run_ownership(game):
    a = arrays(game)
    L.ownership_check(
        a["cards"],
        a["tokens"],
        a["status"],
        a["supply"],
        a["counts"],
        len(game.cards),
        game.players,
        L.REVISIONS.index(game.revision),
    )
    game.ownership_check()
    assert_same_state(game, a)
    return game


@pytest.mark.parametrize("revision", REVISIONS)
def test_owner_tied_for_highest_loyalty_keeps_the_character(revision):
    game = run_ownership(position([0], ["owned"], [[2, 2, 1]], revision=revision))
    assert game.cards[0].owner == 0
    assert game.count["defections"] == [0, 0, 0]


@pytest.mark.parametrize("revision", REVISIONS)
def test_one_other_empire_strictly_highest_takes_the_character_with_its_tokens(revision):
    game = run_ownership(position([0], ["owned"], [[1, 3, 2]], revision=revision))
    card = game.cards[0]
    assert (card.owner, card.place, card.tokens) == (1, "owned", [1, 3, 2])
    assert game.count["defections"] == [1, 0, 0]


def test_several_empires_tied_above_the_owner_is_the_1_0_gap_and_the_character_stays():
    game = run_ownership(position([0], ["owned"], [[1, 2, 2]], revision="1.0", equipped=[3]))
    assert (game.cards[0].owner, game.cards[0].tokens) == (0, [1, 2, 2])
    assert game.count["gap_multi_tie"] == [1, 0, 0]
    assert game.count["removed_multi_tie"] == [0, 0, 0]


@pytest.mark.parametrize(("revision", "discarded"), [("1.1", 0), ("1.2", 3)])
def test_several_empires_tied_above_the_owner_removes_the_character_and_all_tokens(
    revision, discarded
):
    game = run_ownership(position([0], ["owned"], [[1, 2, 2]], revision=revision, equipped=[3]))
    assert game.cards[0].place == "removed"
    assert game.supply == [20, 20, 20]  # every token back to its own supply
    assert game.count["tokens_returned"] == [1, 2, 2]
    assert game.count["removed_multi_tie"] == [1, 0, 0]
    assert game.count["gap_multi_tie"] == [0, 0, 0]
    assert game.count["equipment_discarded"] == [discarded, 0, 0]


@pytest.mark.parametrize(
    ("revision", "gap", "discarded"), [("1.0", 1, 0), ("1.1", 0, 0), ("1.2", 0, 2)]
)
def test_no_tokens_left_is_checked_first_and_the_character_leaves_the_game(
    revision, gap, discarded
):
    game = run_ownership(
        position(
            [2, 2], ["owned", "owned"], [[0, 0, 0], [0, 0, 1]], revision=revision, equipped=[2, 5]
        )
    )
    assert [c.place for c in game.cards] == ["removed", "owned"]
    assert game.count["removed_no_tokens"] == [0, 0, 1]
    assert game.count["gap_zero_tie"] == [0, 0, gap]
    assert game.count["equipment_discarded"] == [0, 0, discarded]


def test_base_loyalty_counts_only_once_the_home_empire_has_a_token_on_the_card():
    # Card 0: home empire 0 with no token, base 3: rival's single token takes it.
    # Card 1: home empire 0 with one token, base 2 (loyalty 3) holds against a rival's 2 tokens.
    game = run_ownership(
        position([0, 0], ["owned", "owned"], [[0, 1, 0], [1, 2, 0]], bases=[3, 2], homes=[0, 0])
    )
    assert [c.owner for c in game.cards] == [1, 0]


def test_loyalty_check_is_skipped_for_an_empire_with_a_single_character():
    # Empire 0 owns one character at loyalty 0 (would lose on any roll); empire 1 owns none.
    game = position([0, None], ["owned", "zone"], [[1, 0, 0], [0, 0, 0]])
    game.words = nr.Script([])  # drawing any die fails the test
    a = arrays(game)
    state = np.array([12345], dtype=np.uint64)
    L.loyalty_check(state, *rules_args(a), a["supply"], a["counts"], 3, 6)
    game.loyalty_check()
    assert state[0] == 12345  # no word drawn
    assert game.cards[0].tokens == [1, 0, 0]
    assert_same_state(game, a)


def test_loyalty_check_roll_above_effective_loyalty_costs_one_owner_token():
    # Empire 0 owns cards 0 (loyalty 2) and 1 (loyalty 1 + base 2 = 3); both roll a 3.
    game = position(
        [0, 0], ["owned", "owned"], [[2, 1, 0], [1, 0, 0]], bases=[0, 2], homes=[None, 0]
    )
    game.words = nr.Script([nr.word_for_face(3), nr.word_for_face(3)])
    game.loyalty_check()
    assert [c.tokens[0] for c in game.cards] == [1, 1]
    assert game.count["tokens_returned"] == [1, 0, 0]
    assert game.words.used == 2


def test_loyalty_check_kernel_reads_the_same_dice_as_the_twin():
    # Five characters of two empires on a real stream: one die each, seat order then card order.
    owners = [0, 1, 0, 1, 0]
    toks = [[1, 0, 0], [0, 2, 1], [3, 0, 0], [0, 1, 0], [2, 0, 0]]
    for seed in range(20):
        game = position(
            owners, ["owned"] * 5, toks, bases=[0, 1, 0, 2, 0], homes=[0, 1, None, 1, 0]
        )
        stream = Stream(seed, 0)
        state = np.array([stream.state], dtype=np.uint64)
        game.words = stream
        a = arrays(game)
        L.loyalty_check(state, *rules_args(a), a["supply"], a["counts"], 3, 6)
        game.loyalty_check()
        assert int(state[0]) == stream.state
        assert_same_state(game, a)


def run_wages(game):
    a = arrays(game)
    order = np.zeros(len(game.cards), dtype=np.int64)
    paid = L.pay_wages(*rules_args(a), a["supply"], a["gold"], a["counts"], game.players, order)
    game.pay_wages()
    assert paid == game.gold_paid
    assert_same_state(game, a)
    return game


def test_wages_are_paid_by_descending_loyalty_then_ascending_wage():
    # Empire 0, gold 3: card 0 (loyalty 2, wage 2), card 1 (loyalty 3, wage 2),
    # card 2 (loyalty 2, wage 1). Order: 1, 2, 0 -> pays 2 + 1, card 0 goes unpaid.
    game = run_wages(
        position(
            [0, 0, 0], ["owned"] * 3, [[2, 0, 0], [3, 0, 0], [2, 0, 0]], wages=[2, 2, 1], gold=3
        )
    )
    assert game.gold[0] == 0
    assert game.gold_paid == 3
    assert [c.tokens[0] for c in game.cards] == [1, 3, 2]


def test_an_unpaid_wage_costs_one_loyalty_and_cheaper_characters_are_still_paid():
    # Gold 2: card 0 (loyalty 3, wage 5) comes first and cannot be paid: it loses one loyalty;
    # card 1 (loyalty 1, wage 2) is still paid.
    game = run_wages(
        position([1, 1], ["owned", "owned"], [[0, 3, 0], [0, 1, 0]], wages=[5, 2], gold=2)
    )
    assert [c.tokens[1] for c in game.cards] == [2, 1]
    assert game.gold == [2, 0, 2]
    assert game.count["tokens_returned"] == [0, 1, 0]


def test_recruitment_resolves_by_token_count_only():
    # Zone: card 0 sole leader empire 1; card 1 tied at the top (stays); card 2 no tokens
    # (back into the deck); card 3 home empire 2 with base 5 but empire 0 has more tokens.
    game = position(
        [None] * 5,
        ["zone"] * 4 + ["deck"],
        [[1, 2, 0], [2, 2, 1], [0, 0, 0], [2, 0, 1], [0, 0, 0]],
        bases=[0, 0, 0, 5, 0],
        homes=[None, None, None, 2, None],
    )
    a = arrays(game)
    stream = Stream(77, 3)
    state = np.array([stream.state], dtype=np.uint64)
    game.words = stream
    deck_len = L.resolve_zone(
        state, a["tokens"], a["status"], a["deck"], 1, a["zone"], a["zone_len"], 3
    )
    game.resolve()
    assert [(c.place, c.owner) for c in game.cards[:4]] == [
        ("owned", 1),
        ("zone", None),
        ("deck", None),
        ("owned", 0),
    ]
    assert game.zone == [1]
    assert sorted(game.deck) == [2, 4]
    assert deck_len == 2
    assert list(a["deck"][:2]) == game.deck
    assert a["zone_len"][0] == 1 and a["zone"][0] == 1
    assert_same_state(game, a)


def test_zone_is_refilled_to_players_plus_one_counting_cards_left_from_earlier_rounds():
    game = position([None] * 6, ["zone", "zone"] + ["deck"] * 4, [[0, 0, 0]] * 6)
    game.deck = [2, 3, 4, 5]  # top card last
    a = arrays(game)
    deck_len = L.refill_zone(a["status"], a["deck"], 4, a["zone"], a["zone_len"], 3)
    game.refill()
    assert game.zone == [0, 1, 5, 4]
    assert game.deck == [2, 3]
    assert deck_len == 2 and list(a["zone"][:4]) == game.zone


def test_greedy_defends_its_weakest_character_first_then_contests_the_best_loyalty_per_token():
    # Empire 0 owns card 0 (lead 0 against empire 1) and card 1 (lead 3). Zone: card 2 has
    # empire 0: 1, empire 1: 2 (costs 2, value 3: 1.5 per token); card 3 is empty (costs 1,
    # value 1); card 4 is home to empire 0 with base 2 (costs 1, value 3). Budget 4.
    game = position(
        [0, 0, None, None, None],
        ["owned", "owned", "zone", "zone", "zone"],
        [[2, 2, 0], [3, 0, 0], [1, 2, 0], [0, 0, 0], [0, 0, 0]],
        bases=[0, 0, 0, 0, 2],
        homes=[None, None, None, None, 0],
    )
    game.p["greedy_defend_margin"] = 1
    a = arrays(game)
    L.place_greedy(
        a["cards"], a["tokens"], a["supply"], a["zone"], 3, a["hands"], a["hand_size"], 3, 0, 4, 1
    )
    game.place_greedy(0, 4)
    # Defend card 0 twice (leads 0 then 1), then card 4 (3 per token), then card 2 is too dear
    # (2 tokens, 1 left) so card 3 takes the last one.
    assert [c.tokens[0] for c in game.cards] == [4, 3, 1, 1, 1]
    assert_same_state(game, a)


def test_random_policy_spreads_tokens_over_zone_cards_and_own_characters_only():
    game = position(
        [1, 0, None, None], ["owned", "owned", "zone", "zone"], [[0, 1, 0]] + [[0] * 3] * 3
    )
    stream = Stream(3, 9)
    game.words = stream
    a = arrays(game)
    state = np.array([stream.state], dtype=np.uint64)
    targets = np.zeros(8, dtype=np.int64)
    L.place_random(
        state, a["tokens"], a["supply"], a["zone"], 2, a["hands"], a["hand_size"], 0, 30, targets
    )
    game.place_random(0, 30)
    assert game.cards[0].tokens[0] == 0  # another empire's character is not a target
    assert sum(c.tokens[0] for c in game.cards) == 30
    assert all(c.tokens[0] > 0 for c in game.cards[1:])
    assert_same_state(game, a)


def test_tied_empires_share_the_win():
    game = position([0, 1, 2, 0, 1], ["owned"] * 5, [[1, 0, 0]] * 5)
    values = game.metric_values()
    wins = values[8 * 4 : 8 * 4 + 3]
    assert wins == [30, 30, 0]


def test_kernel_writes_the_metrics_in_the_declared_order():
    p = validated(players=3)
    idx = L.metric_index(3)
    assert [m.name for m in PROC.metrics(p)] == sorted(idx, key=idx.get)
    assert PROC.metrics(p)[idx["wins.seat1"]].scale == 60


# ---------------------------------------------------------------------------------------------
# Bad decks and parameters
# ---------------------------------------------------------------------------------------------


def error_of(**kw):
    with pytest.raises(ValidationError) as info:
        validated(**kw)
    (err,) = info.value.errors()
    return err


def test_negative_wage_is_rejected_naming_the_entry():
    deck = [{"wage": 1}, {"wage": 1}, {"wage": -2}, {"wage": 0}]
    err = error_of(players=2, deck=deck)
    assert err["loc"] == ("deck", 2, "wage")


def test_home_empire_beyond_the_players_is_rejected_naming_the_entry():
    deck = [{"name": "Cao"}, {"name": "Liu", "home": 4}, {"name": "Sun"}, {"name": "Yuan"}]
    err = error_of(players=3, deck=deck)
    assert err["loc"] == ("deck", 1, "home")
    assert "Liu" in err["msg"] and "3 players" in err["msg"]


def test_a_deck_smaller_than_the_recruitment_zone_is_rejected():
    err = error_of(players=4, deck=[{"wage": 1}] * 4)
    assert err["loc"] == ("deck",)
    assert "players + 1 (5)" in err["msg"]
    err = error_of(players=4, deck={"count": 3})
    assert err["loc"] == ("deck", "count")


def test_generated_homes_beyond_the_players_are_rejected():
    err = error_of(players=2, deck={"count": 10, "home": {"low": 0, "high": 3}})
    assert err["loc"] == ("deck", "home")


def test_a_span_with_high_below_low_is_rejected():
    err = error_of(deck={"count": 10, "wage": {"low": 3, "high": 1}})
    assert err["loc"] == ("deck", "wage", "high")


def test_one_policy_per_seat():
    err = error_of(players=3, policy=["random", "greedy"])
    assert err["loc"] == ("policy",)
    err = error_of(players=2, policy="clever")
    assert err["loc"][0] == "policy"


def test_unknown_revision_is_rejected():
    assert error_of(revision="2.0")["loc"] == ("revision",)


def test_two_random_empires_with_one_token_each_collide_one_time_in_three():
    # Round 1, three zone cards, one token each placed uniformly: with chance 1/3 both pick the
    # same card (a tie: nobody gains it), otherwise each gains one (kept: one character skips
    # the loyalty check, wages are 0, a sole token holder stays). Exact mean owned: 2 * 2/3.
    p = validated(
        players=2,
        rounds=1,
        tokens_per_round=1,
        deck=[{"wage": 0}] * 3,
        policy="random",
    )
    plan = make_plan(PROC, {"base": p}, seed=31)
    n = 30_000
    stats = run_range(plan, -1, 0, n)
    m = [x.name for x in plan.metrics].index("characters_owned")
    total, squares = stats[0, 4 * m + 1], stats[0, 4 * m + 2]
    mean = total / n
    se = np.sqrt((squares / n - mean**2) / n)
    assert abs(mean - 4 / 3) <= 5 * se


@pytest.mark.parametrize("sides", [6, 8])
def test_loyalty_check_costs_a_token_as_often_as_the_die_beats_the_loyalty(sides):
    import icepool

    # Empire 0 owns three characters at effective loyalty 1, 3 (1 token + base 2) and 5.
    game = position(
        [0, 0, 0],
        ["owned"] * 3,
        [[1, 0, 0], [1, 0, 0], [5, 0, 0]],
        bases=[0, 2, 0],
        homes=[None, 0, None],
    )
    n = 20_000
    losses = np.zeros(3)
    state = np.array([int(scenario_key(sides))], dtype=np.uint64)
    for _ in range(n):
        a = arrays(game)
        L.loyalty_check(state, *rules_args(a), a["supply"], a["counts"], 3, sides)
        losses += np.array([1, 1, 5]) - a["tokens"][:, 0]
    die = icepool.d(sides)
    for k, loyalty in enumerate([1, 3, 5]):
        p = float((die > loyalty).mean())
        se = np.sqrt(p * (1 - p) / n)
        assert abs(losses[k] / n - p) <= 5 * se, (loyalty, losses[k] / n, p)


BAD_DECK_SCENARIO = """\
name: bad-deck
procedure: recruitment.loyalty
trials: 100
seed: 1
params:
  players: 3
  deck:
    - {name: Cao, wage: 1}
    - {name: Liu, wage: 1, home: 5}
    - {name: Sun, wage: 1}
    - {name: Yuan, wage: 0}
variants:
  poor: {deck: [{name: Cao, wage: -1}, {name: Liu}, {name: Sun}, {name: Yuan}]}
"""


def test_a_bad_deck_in_a_scenario_file_is_reported_at_its_line_and_entry():
    from simulator.scenario import ScenarioError, parse

    with pytest.raises(ScenarioError) as info:
        parse(BAD_DECK_SCENARIO, "bad.yaml")
    lines = str(info.value).splitlines()
    assert any(
        line.startswith("bad.yaml:9:") and "params.deck[1].home" in line and "Liu" in line
        for line in lines
    ), lines
    assert any(line.startswith("bad.yaml:13:") and "deck[0].wage" in line for line in lines), lines


def test_the_shipped_scenarios_load_and_compare_the_three_revisions():
    from simulator.scenario import load

    revisions = load(ROOT / "scenarios/recruitment/revisions.yaml")
    assert [p.revision for p in revisions.variants.values()] == ["1.0", "1.1", "1.2"]
    assert load(ROOT / "scenarios/recruitment/loyalty.yaml").variants["base"].seat_policies() == [
        "greedy",
        "random",
        "greedy",
        "random",
    ]
