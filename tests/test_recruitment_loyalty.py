"""Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2 (Recruitment rules).

The rules are pinned on the KERNEL's own functions in hand-built positions (each the rulebook's
case), side by side with the plain-Python twin; whole games are checked kernel against twin,
exactly, under every revision, agent and knob; a small game is checked against its exact value
enumerated from the twin's rules.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.recruitment.loyalty import state as S
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.greedy import greedy_move
from simulator.procedures.recruitment.loyalty.metrics import metric_index
from simulator.procedures.recruitment.loyalty.ownership import ownership_check
from simulator.procedures.recruitment.loyalty.packing import pack
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import (
    PASS,
    loyalty_check,
    pay_wages,
    resolve_zone,
    start_game,
    start_round,
)
from simulator.procedures.recruitment.loyalty.projection import retally
from simulator.rng import scenario_key
from tests import naive_recruitment as nr
from tests.fold import fold
from tests.naive import Stream
from tests.recruitment_positions import (
    TIE_RESULTS_1_1,
    TIE_X,
    TIE_YB,
    deliberate_tie_game,
    deliberate_tie_position,
    in_zone,
    kernel_state,
    owned,
    params,
    position,
)

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


def tok(s, c, e):
    return int(s[S.S_TOKENS + c * MAX_PLAYERS + e])


def counter(s, name, e):
    return int(s[S.S_COUNTS + nr.COUNTERS.index(name) * MAX_PLAYERS + e])


def status(s, c):
    return int(s[S.S_STATUS + c])


def assert_same(game, s):
    """The kernel state holds the position the twin reached (tokens, places, piles, counters)."""
    expected = kernel_state(game)
    deck, zone = int(s[S.H_DECK_LEN]), int(s[S.H_ZONE_LEN])
    assert (deck, zone) == (len(game.deck), len(game.zone))
    for name, lo, hi in (
        ("tokens", S.S_TOKENS, S.S_DECK),
        ("status", S.S_STATUS, S.S_TOKENS),
        ("seats and counters", S.S_SUPPLY, S.S_WAGE),
        ("deck", S.S_DECK, S.S_DECK + deck),
        ("zone", S.S_ZONE, S.S_ZONE + zone),
    ):
        np.testing.assert_array_equal(s[lo:hi], expected[lo:hi], err_msg=name)


# ---------------------------------------------------------------------------------------------
# Whole games: kernel == twin
# ---------------------------------------------------------------------------------------------

LISTED_DECK = [
    {"name": f"c{i}", "wage": i % 3, "base_loyalty": i % 4, "home": i % 4, "equipped": i % 2}
    for i in range(14)
]


@pytest.mark.parametrize(
    ("raw", "n"),
    [
        ({"players": 4, "rounds": 8, "policies": "random"}, 120),
        ({"players": 4, "rounds": 8, "policies": "greedy"}, 60),
        (
            {
                "players": 3,
                "rounds": 10,
                "policies": ["greedy", "random", "greedy"],
                "deck": LISTED_DECK,
                "starting_gold": 1,
                "income": 1,
                "wage_order": "cheap_first",
                "win": "most_characters_then_loyalty",
            },
            60,
        ),
        (
            {
                "players": 6,
                "rounds": 6,
                "policies": ["random", "greedy"] * 3,
                "tokens_per_empire": 6,
                "tokens_per_round": 2,
                "loyalty_die": 4,
                "returned_tokens": "supply",
                "first_player": "fixed",
                "base_loyalty_counts": "at_home_token",
                "seat_gold": [0, 1, 2, 3, 4, 5],
                "deck": {
                    "count": 20,
                    "wage": {"low": 0, "high": 3},
                    "base_loyalty": {"low": 0, "high": 2},
                    "home": {"low": 0, "high": 6},
                    "equipped": 1,
                },
            },
            40,
        ),
        (
            {
                "players": 2,
                "rounds": 12,
                "policies": ["random", "greedy"],
                "shuffle_deck": False,
                "passing": "final",
                "bank_refill": 1,
                "tokens_per_empire": 8,
                "deck": [{**c, "home": c["home"] % 3} for c in LISTED_DECK[:5]],
            },
            80,
        ),
    ],
    ids=["random", "greedy", "mixed-listed-deck-loyalty-win", "six-supply-fixed-home", "two-final"],
)
def test_kernel_equals_plain_python_twin_under_every_revision(raw, n):
    plan, variants = revisions_plan(seed=5, debug=True, **raw)
    key = int(scenario_key(5))
    first = 300
    got = run_range(plan, -1, first, n)
    twin = [
        [nr.play(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))
    assert mean(plan, got, 0, "invariant_violations") == 0


def test_revisions_1_1_and_1_2_differ_only_in_equipment_and_its_gap():
    # The cap of 3 a round (an invented value, no longer the default) keeps these games' counts.
    plan, _ = revisions_plan(seed=11, players=6, rounds=10, tokens_per_round=3)
    stats = run_range(plan, -1, 0, 2000)
    names = [m.name for m in plan.metrics]
    differ = [m for m, n in enumerate(names) if "equip" in n]
    for m in range(len(names)):
        if m not in differ:
            assert (stats[1, 4 * m : 4 * m + 4] == stats[2, 4 * m : 4 * m + 4]).all(), names[m]
    assert mean(plan, stats, 1, "equipment_discarded") == 0
    assert mean(plan, stats, 2, "equipment_discarded") > 1
    assert mean(plan, stats, 1, "gap_equipped") > 0
    assert mean(plan, stats, 2, "gap_equipped") == 0
    # 1.0 plays a different game: its gap keeps characters that 1.1 removes.
    assert mean(plan, stats, 0, "gap_multi_tie") > 0
    assert mean(plan, stats, 0, "removed_multi_tie") == 0
    assert mean(plan, stats, 1, "removed_multi_tie") > 0
    assert mean(plan, stats, 1, "gap_multi_tie") == 0
    # The zero tie is the same overlap in every revision's wording.
    for v in range(3):
        assert mean(plan, stats, v, "gap_zero_tie") == mean(plan, stats, v, "removed_no_tokens")
        assert mean(plan, stats, v, "gap_zero_tie") > 0


def test_a_small_game_of_random_agents_matches_its_exact_value():
    # Two empires, one round, three wage-0 characters, one token each per round: every line of
    # play is enumerated from the twin's rules (uniform over legal moves); nobody owns two
    # characters, so no die is rolled, and the zone's reshuffle positions do not matter.
    raw = {
        "players": 2,
        "rounds": 1,
        "tokens_per_round": 1,
        "deck": [{"wage": 0}] * 3,
        "policies": "random",
    }
    p = params(**raw)

    def exact(game):
        if game.over:
            v = game.metric_values()
            return {0: Fraction(v[0]), 1: Fraction(v[metric_index(2)["wins.seat1"]], 60)}
        moves = game.legal_moves()
        total = {0: Fraction(0), 1: Fraction(0)}
        for m in moves:
            g = nr.clone(game)
            g.apply(m)
            sub = exact(g)
            for k in total:
                total[k] += sub[k] / len(moves)
        return total

    game = position(p, [in_zone([0, 0]), in_zone([0, 0]), in_zone([0, 0])])
    game.words = nr.Raw(1)
    game.advance()
    want = exact(game)
    plan = make_plan(PROC, {"base": validated(**raw)}, seed=31)
    n = 30_000
    stats = run_range(plan, -1, 0, n)
    for m, name in ((0, "characters_owned"), (metric_index(2)["wins.seat1"], "wins.seat1")):
        scale = plan.metrics[m].scale
        got = stats[0, 4 * m + 1] / n / scale
        se = np.sqrt((stats[0, 4 * m + 2] / n / scale**2 - got**2) / n)
        assert abs(got - float(want[0 if m == 0 else 1])) <= 5 * se, (name, got, want)


# ---------------------------------------------------------------------------------------------
# The rulebook's ownership-check cases, on the kernel (maintenance ③)
# ---------------------------------------------------------------------------------------------


def run_ownership(revision, cards, **kw):
    game = position(params(players=3, revision=revision, **kw), cards)
    s = kernel_state(game)
    ownership_check(s)
    game.ownership_check()
    assert_same(game, s)
    return game, s


@pytest.mark.parametrize("revision", REVISIONS)
def test_owner_tied_for_highest_loyalty_keeps_the_character(revision):
    _, s = run_ownership(revision, [owned(0, [2, 2, 1])])
    assert status(s, 0) == 0
    assert counter(s, "defections", 0) == 0


@pytest.mark.parametrize("revision", REVISIONS)
def test_one_other_empire_strictly_highest_takes_the_character_with_its_tokens(revision):
    _, s = run_ownership(revision, [owned(0, [1, 3, 2])])
    assert status(s, 0) == 1
    assert [tok(s, 0, e) for e in range(3)] == [1, 3, 2]
    assert counter(s, "defections", 0) == 1


def test_several_empires_tied_above_the_owner_is_the_1_0_gap_and_the_character_stays():
    _, s = run_ownership("1.0", [owned(0, [1, 2, 2], equipped=3)])
    assert status(s, 0) == 0 and [tok(s, 0, e) for e in range(3)] == [1, 2, 2]
    assert counter(s, "gap_multi_tie", 0) == 1
    assert counter(s, "removed_multi_tie", 0) == 0


@pytest.mark.parametrize(("revision", "discarded", "gap"), [("1.1", 0, 1), ("1.2", 3, 0)])
def test_several_empires_tied_above_the_owner_removes_the_character_and_its_tokens_to_the_bank(
    revision, discarded, gap
):
    _, s = run_ownership(revision, [owned(0, [1, 2, 2], equipped=3)])
    assert status(s, 0) == S.REMOVED
    assert [tok(s, 0, e) for e in range(3)] == [0, 0, 0]
    assert [int(s[S.S_BANK + e]) for e in range(3)] == [1, 2, 2]
    assert [int(s[S.S_SUPPLY + e]) for e in range(3)] == [19, 18, 18]  # not back to the supply
    assert [counter(s, "tokens_lost", e) for e in range(3)] == [1, 2, 2]
    assert counter(s, "removed_multi_tie", 0) == 1
    assert counter(s, "equipment_discarded", 0) == discarded
    assert counter(s, "gap_equipped", 0) == gap


@pytest.mark.parametrize(
    ("revision", "discarded", "gap_equipped"), [("1.0", 0, 1), ("1.1", 0, 1), ("1.2", 2, 0)]
)
def test_no_tokens_left_removes_the_character_and_is_the_zero_tie_gap_in_every_revision(
    revision, discarded, gap_equipped
):
    _, s = run_ownership(revision, [owned(2, [0, 0, 0], equipped=2), owned(2, [0, 0, 1])])
    assert [status(s, 0), status(s, 1)] == [S.REMOVED, 2]
    assert counter(s, "removed_no_tokens", 2) == 1
    assert counter(s, "gap_zero_tie", 2) == 1
    assert counter(s, "equipment_discarded", 2) == discarded
    assert counter(s, "gap_equipped", 2) == gap_equipped


def test_base_loyalty_at_home_token_counts_once_the_home_empire_has_a_token_on_the_card():
    # Card 0: home empire 0 with no token, base 3: a rival's single token takes it.
    # Card 1: home empire 0 with one token, base 2 (loyalty 3) holds against a rival's 2 tokens.
    _, s = run_ownership(
        "1.0",
        [owned(0, [0, 1, 0], base=3, home=0), owned(0, [1, 2, 0], base=2, home=0)],
        base_loyalty_counts="at_home_token",
    )
    assert [status(s, 0), status(s, 1)] == [1, 0]


def test_base_loyalty_counts_for_any_empire_once_its_tokens_reach_the_number():
    # The rulebook's reading (recruitment phase ②), homes ignored. Card 0, base 2: the owner's 1
    # token stays 1, the rival's 2 tokens make 4: it changes owner. Card 1, base 2: the owner's
    # 2 tokens make 4, the rival's 1 stays 1: it stays. Card 2, base 1 (home 1): the owner's 1
    # token makes 2, the rival's 2 tokens make 3: it changes owner.
    _, s = run_ownership(
        "1.0",
        [
            owned(0, [1, 2, 0], base=2, home=0),
            owned(0, [2, 1, 0], base=2),
            owned(0, [1, 2, 0], base=1, home=1),
        ],
    )
    assert [status(s, 0), status(s, 1), status(s, 2)] == [1, 0, 1]
    # The other reading on card 2's numbers with its home the owner: 1 + 1 ties the rival's 2, it
    # stays; with no home the printed loyalty never counts.
    _, s = run_ownership(
        "1.0",
        [owned(0, [1, 2, 0], base=1, home=0), owned(0, [2, 2, 0], base=2)],
        base_loyalty_counts="at_home_token",
    )
    assert [status(s, 0), status(s, 1)] == [0, 0]


# ---------------------------------------------------------------------------------------------
# Recruitment and the rest of maintenance, on the kernel
# ---------------------------------------------------------------------------------------------


def test_recruitment_resolves_by_token_count_only():
    # Zone: card 0 sole leader empire 1; card 1 tied at the top (stays); card 2 no tokens (back
    # into the deck); card 3 home empire 2 with base 5, but empire 0 has more tokens.
    cards = [
        in_zone([1, 2, 0]),
        in_zone([2, 2, 1]),
        in_zone([0, 0, 0]),
        in_zone([2, 0, 1], base=5, home=2),
        nr.Card(tokens=[0, 0, 0]),
    ]
    stream = Stream(77, 3)
    game = position(params(players=3), cards, words=stream)
    s = kernel_state(game)
    rng = np.array([stream.state], dtype=np.uint64)
    resolve_zone(s, rng)
    game.resolve()
    assert [status(s, c) for c in range(4)] == [1, S.IN_ZONE, S.IN_DECK, 0]
    assert game.zone == [1] and sorted(game.deck) == [2, 4]
    assert int(rng[0]) == stream.state
    assert_same(game, s)


def test_a_card_shuffled_back_into_a_deck_in_a_set_order_shuffles_the_whole_deck():
    # Recruitment phase ③⑶, 「将其洗回人物牌库中」: with shuffle_deck false the deck is in a set
    # order, so the card goes on top and the whole deck is shuffled (one word per swap).
    orders = set()
    for seed in range(12):
        cards = [in_zone([0, 0, 0]), *(nr.Card(tokens=[0, 0, 0]) for _ in range(3))]
        stream = Stream(seed, 5)
        game = position(params(players=3, shuffle_deck=False), cards, words=stream)
        s = kernel_state(game)
        rng = np.array([stream.state], dtype=np.uint64)
        resolve_zone(s, rng)
        game.resolve()
        assert int(rng[0]) == stream.state
        assert_same(game, s)
        assert sorted(game.deck) == [0, 1, 2, 3]
        orders.add(tuple(game.deck))
    assert len(orders) > 3  # not the set order with the card on top: shuffled


def test_loyalty_check_is_skipped_for_an_empire_with_a_single_character():
    game = position(params(players=3), [owned(0, [1, 0, 0]), in_zone([0, 0, 0])])
    s = kernel_state(game)
    rng = np.array([12345], dtype=np.uint64)
    loyalty_check(s, rng)
    game.loyalty_check()  # drawing any die would fail the script
    assert int(rng[0]) == 12345 and tok(s, 0, 0) == 1


def test_loyalty_check_reads_the_same_dice_as_the_twin_and_loses_tokens_to_the_bank():
    cards = [
        owned(0, [1, 0, 0], home=0),
        owned(1, [0, 2, 1], base=1, home=1),
        owned(0, [3, 0, 0]),
        owned(1, [0, 1, 0], base=2, home=1),
        owned(0, [2, 0, 0], home=0),
    ]
    lost = 0
    for seed in range(20):
        stream = Stream(seed, 0)
        game = position(params(players=3), [nr.clone(c) for c in cards], words=stream)
        s = kernel_state(game)
        rng = np.array([stream.state], dtype=np.uint64)
        loyalty_check(s, rng)
        game.loyalty_check()
        assert int(rng[0]) == stream.state
        assert_same(game, s)
        lost += sum(int(s[S.S_BANK + e]) for e in range(3))
    assert lost > 0


def test_wages_are_paid_by_descending_loyalty_then_ascending_wage():
    # Empire 0, gold 3: card 0 (loyalty 2, wage 2), card 1 (loyalty 3, wage 2), card 2
    # (loyalty 2, wage 1). Order 1, 2, 0: pays 2 + 1, card 0 goes unpaid and loses one loyalty.
    cards = [owned(0, [2, 0, 0], wage=2), owned(0, [3, 0, 0], wage=2), owned(0, [2, 0, 0], wage=1)]
    game = position(params(players=3), cards, gold=[3, 0, 0])
    s = kernel_state(game)
    pay_wages(s)
    game.pay_wages()
    assert [tok(s, c, 0) for c in range(3)] == [1, 3, 2]
    assert int(s[S.S_GOLD]) == 0 and int(s[S.H_GOLD_PAID]) == 3
    assert int(s[S.S_BANK]) == 1
    assert_same(game, s)


def test_tokens_come_back_from_the_bank_only_by_the_bank_refill_assumption():
    for refill, want in ((0, (5, 4)), (3, (8, 1))):
        game = position(
            params(players=2, bank_refill=refill, tokens_per_empire=9),
            [in_zone([0, 0])] * 3,
            supply=[5, 9],
            bank=[4, 0],
        )
        s = kernel_state(game)
        start_round(s)
        assert (int(s[S.S_SUPPLY]), int(s[S.S_BANK])) == want


# ---------------------------------------------------------------------------------------------
# Placement: round the table until every empire passes; the first player rotates
# ---------------------------------------------------------------------------------------------


def placement_game(**kw):
    p = params(players=3, tokens_per_round=2, rounds=3, **kw)
    cards = [in_zone([0, 0, 0]) for _ in range(4)] + [nr.Card() for _ in range(4)]
    return position(p, cards, deck=[4, 5, 6, 7], words=Stream(9, 9))


def test_placement_goes_round_until_every_empire_passes_in_succession():
    game = placement_game()
    s = kernel_state(game)
    rng = np.array([1], dtype=np.uint64)
    seats = []
    for move in (PASS, 0, PASS, PASS, 0, PASS):
        seats.append(GAME.to_move(s))
        GAME.apply_move(s, move, rng)
        assert GAME.round_of(s) == 0
    # Seat 1 passed but is asked again after seat 2 placed; seat 2 then places its second token
    # (its round's last); the zone is resolved only after three passes in succession.
    assert seats == [0, 1, 2, 0, 1, 2]
    seats.append(GAME.to_move(s))
    GAME.apply_move(s, PASS, rng)
    assert seats == [0, 1, 2, 0, 1, 2, 0]
    assert GAME.round_of(s) == 1
    assert status(s, 0) == 1 and tok(s, 0, 1) == 2


def test_with_passing_final_a_pass_ends_the_empires_placement_for_the_round():
    game = placement_game(passing="final")
    s = kernel_state(game)
    rng = np.array([1], dtype=np.uint64)
    seats = []
    for move in (PASS, 0, PASS):
        seats.append(GAME.to_move(s))
        GAME.apply_move(s, move, rng)
    assert seats == [0, 1, 2]
    assert GAME.round_of(s) == 0 and GAME.to_move(s) == 1  # seats 1 and 3 passed for good


@pytest.mark.parametrize(("cap", "placed"), [(None, 6), (3, 3)])
def test_the_rulebook_sets_no_limit_on_the_tokens_a_round_and_a_cap_is_a_knob(cap, placed):
    # Recruitment rules, recruitment phase ②: placing goes on until no empire needs to place
    # more; a cap of tokens_per_round (3 before it was a knob) is an invention.
    assert PROC.params_model().tokens_per_round is None
    p = params(players=3, rounds=1, tokens_per_round=cap)
    cards = [in_zone([0, 0, 0]) for _ in range(4)] + [nr.Card() for _ in range(4)]
    s = kernel_state(position(p, cards, deck=[4, 5, 6, 7], words=Stream(9, 9)))
    rng = np.array([1], dtype=np.uint64)
    n = 0
    for _ in range(60):
        if GAME.is_over(s) or GAME.round_of(s) > 0:
            break
        if GAME.to_move(s) == 0 and n < 6:
            GAME.apply_move(s, 0, rng)  # seat 1 places on the first zone card, six times
            n += 1
        else:
            GAME.apply_move(s, PASS, rng)
    assert n == placed


def test_the_invented_values_and_the_revisions_cases_are_declared():
    by_name = {a.name: a for a in PROC.assumptions}
    for name in ("first_player", "starting_gold", "tokens_per_empire", "bank_refill", "win"):
        assert by_name[name].tag == "invented", name
    assert by_name["tokens_per_round"].tag == "rulebook"
    for a in PROC.assumptions:
        for alt in a.alternatives:
            PROC.params_model(**alt.overrides)
        for m in a.fires:
            assert m in metric_index(4), m
    by_revision = PROC.fires["revision"]
    assert isinstance(by_revision, dict) and by_revision["1.0"] == ()
    for metrics in by_revision.values():
        for m in metrics:
            assert m in metric_index(4), m


@pytest.mark.parametrize(("first_player", "firsts"), [("rotate", [0, 1, 2]), ("fixed", [0, 0, 0])])
def test_the_first_player_rotates_each_round(first_player, firsts):
    game = placement_game(first_player=first_player)
    s = kernel_state(game)
    rng = np.array([1], dtype=np.uint64)
    seen = []
    while not GAME.is_over(s):
        if not seen or GAME.round_of(s) > len(seen) - 1:
            seen.append(GAME.to_move(s))
        GAME.apply_move(s, PASS, rng)
    assert seen == firsts


def test_legal_moves_are_zone_cards_then_own_characters_then_the_pass():
    game = position(
        params(players=2),
        [owned(1, [0, 1]), in_zone([0, 0]), owned(0, [1, 0]), in_zone([1, 0])],
    )
    s = kernel_state(game)
    out = np.zeros(GAME.max_moves, dtype=np.int64)
    n = GAME.legal_moves(s, out)
    assert list(out[:n]) == [1, 3, 2, PASS]
    assert game.legal_moves() == [1, 3, 2, nr.PASS]


# ---------------------------------------------------------------------------------------------
# The win criterion (an assumption), the heuristic and the agents
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("win", "shares"),
    [("most_characters", [0.5, 0.5, 0.0]), ("most_characters_then_loyalty", [1.0, 0.0, 0.0])],
)
def test_most_characters_wins_and_the_alternative_breaks_ties_by_loyalty(win, shares):
    cards = [owned(0, [3, 0, 0]), owned(1, [0, 1, 0]), owned(0, [1, 0, 0]), owned(1, [0, 2, 0])]
    game = position(params(players=3, win=win), cards)
    game.over = True
    s = kernel_state(game)
    out = np.zeros(3)
    GAME.returns(s, out)
    owned_counts = (2, 2, 0)
    want = [x + 1e-3 * n / 5 for x, n in zip(shares, owned_counts, strict=True)]
    np.testing.assert_allclose(out, want)
    np.testing.assert_allclose(out, game.returns())


def test_the_heuristic_sees_a_third_empires_character_removed_by_two_rivals_tied_above():
    # Empire 2 owns X with 1 token; empires 0 and 1 each have 2 on it: under 1.1 X leaves the
    # game at the ownership check, under 1.0 it stays (the gap). Empire 2 also owns Y.
    cards = [owned(2, [2, 2, 1]), owned(2, [0, 0, 4]), owned(0, [3, 0, 0]), owned(1, [0, 3, 0])]
    value = {}
    for revision in ("1.0", "1.1"):
        game = position(params(players=3, revision=revision), [nr.clone(c) for c in cards])
        out = np.zeros(3)
        GAME.heuristic(kernel_state(game), out)
        assert list(out) == [game.heuristic(e) for e in range(3)]
        value[revision] = out
    assert value["1.1"][2] < value["1.0"][2]  # the third empire loses X
    assert value["1.1"][0] > value["1.0"][0]  # and the rivals gain by it
    assert value["1.0"][2] > value["1.0"][0]


def test_greedy_misses_the_deliberate_tie_that_wins_half_the_game():
    rng = np.array([3], dtype=np.uint64)
    for revision in ("1.1", "1.2"):
        s = deliberate_tie_position(revision)
        assert GAME.to_move(s) == 1
        assert greedy_move(s.copy(), np.array([7], dtype=np.uint64)) == TIE_YB
        results = {}
        for name, move in (("tie", TIE_X), ("defend", TIE_YB), ("pass", PASS)):
            t = GAME.copy_state(s)
            GAME.apply_move(t, move, rng)
            assert GAME.is_over(t) == (move != PASS)  # after a pass B keeps its token
            while not GAME.is_over(t):  # round 2: YB or a pass, which change nothing
                GAME.apply_move(t, PASS, rng)
            out = np.zeros(3)
            GAME.returns(t, out)
            results[name] = round(out[1], 2)
        assert results == TIE_RESULTS_1_1
    # The twin agrees, and under 1.0 the tie keeps X with its owner: a three-way tie.
    game = deliberate_tie_game("1.0")
    game.words = nr.Raw(1)
    game.apply(TIE_X)
    assert game.over and game.winners() == [0, 1, 2]


def test_greedy_takes_a_character_whose_printed_loyalty_makes_one_token_safe():
    # base_loyalty_counts: at_home_token. Empire 0 (to move) can take the zone card of its home
    # empire (one token and the printed 5 make loyalty 6: no d6 roll beats it), add to its own
    # safe character (nothing changes), or pass: it takes the card.
    cards = [in_zone([0, 0], home=0, base=5), owned(0, [5, 0]), owned(1, [0, 3])]
    game = position(params(players=2, base_loyalty_counts="at_home_token"), cards)
    s = kernel_state(game)
    assert greedy_move(s, np.array([1], dtype=np.uint64)) == 0
    assert game.choose("greedy", nr.Raw(1)) == 0


def test_greedy_keeps_its_token_rather_than_buy_a_character_the_loyalty_dice_will_take():
    # The same without the printed loyalty: one token on a second character loses it to the
    # first loyalty check that rolls above 1 (three checks ahead: kept with chance 1/216), so
    # the token is worth more in supply, and greedy passes. In the last round (one check left)
    # the character is worth 1/6: it takes it.
    cards = [in_zone([0, 0]), owned(0, [5, 0]), owned(1, [0, 3])]
    for round_, want in ((0, PASS), (9, 0)):
        game = position(params(players=2), [nr.clone(c) for c in cards], round_=round_)
        s = kernel_state(game)
        assert greedy_move(s, np.array([1], dtype=np.uint64)) == want
        assert game.choose("greedy", nr.Raw(1)) == (nr.PASS if want == PASS else want)


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_projection_the_rules_keep_after_every_placement_is_the_one_computed_afresh(revision):
    # Greedy reads the projection and the soft win share terms the rules keep up to date card by
    # card (projection.reproject); at every decision of whole games they must be, bit for bit,
    # what a full recomputation (retally) gives, and the heuristic read from them what it computes
    # afresh. Seats alternate greedy and uniform moves: greedy alone never places on a card
    # another seat holds, random play does.
    p = validated(
        players=4, rounds=6, revision=revision, policies="greedy", loyalty_die=4, tokens_per_round=2
    )
    row = pack(p)
    choice = np.random.default_rng(11)
    moves = np.zeros(GAME.max_moves, dtype=np.int64)
    taken_from_holder = 0
    for trial in range(8):
        s = S.new_state()
        rng = np.array([trial + 1], dtype=np.uint64)
        start_game(s, row, rng)
        assert s[S.H_TRACK] == 1
        k = 0
        while not GAME.is_over(s):
            fresh = s.copy()
            retally(fresh)
            np.testing.assert_array_equal(s[S.S_PROJ_HOLDER :], fresh[S.S_PROJ_HOLDER :])
            untracked = s.copy()
            untracked[S.H_TRACK] = 0  # the heuristic computes the projection itself
            kept, computed = np.zeros(4), np.zeros(4)
            GAME.heuristic(s, kept)
            GAME.heuristic(untracked, computed)
            np.testing.assert_array_equal(kept, computed)
            if s[S.H_TURN] % 2 == 0:
                move = greedy_move(s, np.array([1000 * trial + k], dtype=np.uint64))
            else:
                move = moves[choice.integers(GAME.legal_moves(s, moves))]
            holder = s[S.S_PROJ_HOLDER + move] if move != PASS else -1
            taken_from_holder += holder not in (-1, s[S.H_TURN])
            GAME.apply_move(s, move, rng)
            k += 1
    assert taken_from_holder > 10


def test_determinize_reshuffles_only_the_undealt_deck_and_never_reads_its_order():
    game = placement_game()
    s = kernel_state(game)
    t = GAME.determinize(s, 0, np.array([5], dtype=np.uint64))
    deck = slice(S.S_DECK, S.S_DECK + 4)
    assert sorted(t[deck]) == sorted(s[deck])
    t[deck] = s[deck]
    np.testing.assert_array_equal(t, s)
    # It never reads the hidden order: the same words give the same deck from any order of it.
    r = s.copy()
    r[deck] = s[deck][::-1]
    again = GAME.determinize(r, 0, np.array([5], dtype=np.uint64))
    np.testing.assert_array_equal(again, GAME.determinize(s, 0, np.array([5], dtype=np.uint64)))


# ---------------------------------------------------------------------------------------------
# Metrics, parameters and scenarios
# ---------------------------------------------------------------------------------------------


def test_kernel_writes_the_metrics_in_the_declared_order():
    p = validated(players=3)
    idx = metric_index(3)
    assert [m.name for m in PROC.metrics(p)] == sorted(idx, key=idx.get)
    for name in ("wins.seat1", "draws", "length", "lead_changes", "decided_at"):
        assert name in idx


def error_of(**kw):
    with pytest.raises(ValidationError) as info:
        validated(**kw)
    (err,) = info.value.errors()
    return err


def test_every_rung_of_the_ladder_is_accepted_per_seat():
    p = PROC.params_model.model_validate(
        {
            "players": 4,
            "policies": ["random", "greedy", "rollout", {"agent": "mcts", "iterations": 50}],
        }
    )
    assert p.seat_agent_names() == ["random", "greedy", "rollout", "mcts"]
    assert error_of(players=2, policies=["greedy", {"agent": "mcts", "iterations": 0}])["loc"][
        0
    ] == ("policies")


def test_seat_gold_gives_one_entry_per_seat_or_none():
    err = error_of(players=3, seat_gold=[1, 2])
    assert err["loc"] == ("seat_gold",) and "one entry per seat (3)" in err["msg"]
    assert error_of(players=2, seat_gold=[1, -1])["loc"] == ("seat_gold", 1)


def test_one_agent_per_seat():
    err = error_of(players=3, policies=["random", "greedy"])
    assert err["loc"] == ("policies",)
    assert error_of(players=2, policies="clever")["loc"][0] == "policies"


def test_negative_wage_is_rejected_naming_the_entry():
    err = error_of(players=2, deck=[{"wage": 1}, {"wage": 1}, {"wage": -2}, {"wage": 0}])
    assert err["loc"] == ("deck", 2, "wage")


def test_home_empire_beyond_the_players_is_rejected_naming_the_entry():
    deck = [{"name": "Cao"}, {"name": "Liu", "home": 4}, {"name": "Sun"}, {"name": "Yuan"}]
    err = error_of(players=3, deck=deck)
    assert err["loc"] == ("deck", 1, "home")
    assert "Liu" in err["msg"] and "3 players" in err["msg"]


def test_a_deck_smaller_than_the_recruitment_zone_is_rejected():
    err = error_of(players=4, deck=[{"wage": 1}] * 4)
    assert err["loc"] == ("deck",) and "players + 1 (5)" in err["msg"]
    assert error_of(players=4, deck={"count": 3})["loc"] == ("deck", "count")


def test_unknown_revision_and_knob_values_are_rejected():
    assert error_of(revision="2.0")["loc"] == ("revision",)
    assert "under `revisions`" in error_of(revision="1.3")["msg"]
    assert error_of(multi_tie="coin_flip")["loc"] == ("multi_tie",)
    own = {"1.3": {"based_on": "1.4"}, "1.4": {"based_on": "1.3"}}
    assert "circle" in error_of(revisions=own, revision="1.3")["msg"]
    err = error_of(revisions={"1.2": {"based_on": "1.1"}}, revision="1.2")
    assert err["loc"] == ("revisions", "1.2") and "another name" in err["msg"]
    err = error_of(revisions={"x": {"based_on": "1.9"}}, revision="x")
    assert err["loc"] == ("revisions", "x", "based_on")
    assert error_of(returned_tokens="void")["loc"] == ("returned_tokens",)
    assert error_of(first_player="last")["loc"] == ("first_player",)


def test_the_shipped_scenarios_load_and_compare_the_three_revisions():
    from simulator.scenario import load

    revisions = load(ROOT / "scenarios/recruitment/revisions.yaml")
    assert [p.revision for p in revisions.variants.values()] == ["1.0", "1.1", "1.2"]
    loyalty = load(ROOT / "scenarios/recruitment/loyalty.yaml")
    assert loyalty.variants["base"].seat_agent_names() == ["greedy", "random", "greedy", "random"]
