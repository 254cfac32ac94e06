"""The council game (Council rules) rule by rule on hand-built positions and the rulebook's own
worked examples: income, tax, the acting order, the Representative, Council votes, removing a
Councillor and the victory conditions (the Mercenaries: tests/test_council_mercenaries.py; the
kernel over whole games: tests/test_council_game.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from simulator.engine import make_plan, run_range
from simulator.procedures.council.game.actions import acting_order
from simulator.procedures.council.game.economy import merc_cost
from simulator.procedures.council.game.params import (
    CATEGORIES,
    DEFAULT_CHARACTERS,
    EFFECTS,
    GAP_FOUR_VOTES,
    HEAD0,
    N_LANDS,
    T_DOMINEERING,
    V_COUP,
    V_ELECTION,
    V_HAND,
    V_WILL,
)
from simulator.procedures.council.game.setup import violations
from simulator.procedures.council.game.state import (
    ADVICE_COLUMN,
    CONTESTED,
    GAP_COUNTS,
    HOLDERS,
    KILLED,
    MOOD,
    REMOVE_VOTES,
    REPRESENTATIVE,
    TO_BANK,
    TREASURY,
    VICTORY,
    WINNERS,
    char_owner,
)
from simulator.procedures.council.game.victory import check_election, check_victory, hand_of_order
from simulator.procedures.council.game.votes import choose_representative, land_vote, tally_council
from tests.council_positions import (
    BLUE,
    C_SEAT,
    C_TRAITS,
    L_CIV,
    L_EFFECT,
    L_SIZE,
    L_SOL,
    LANDS,
    MILITARY,
    NAMES,
    P_COINS,
    PROC,
    RED,
    YELLOW,
    char,
    full,
    income,
    land,
    on_char,
    on_land,
    position,
    tax,
)

# --- Income (rulebook, phase 1, examples 1-3) -----------------------------------------------------


def _golden_coast(blue: tuple[int, int], red: tuple[int, int], yellow=(0, 0)) -> SimpleNamespace:
    s = position(players=3)
    s.ch[char("Matej the Verbose"), C_TRAITS] = 0  # the rulebook's Head has no income trait
    full(s, "Golden Coast")
    for who, (on_l, on_h) in ((BLUE, blue), (RED, red), (YELLOW, yellow)):
        on_land(s, who, "Golden Coast", on_l)
        on_char(s, who, "Matej the Verbose", on_h)
    return s


def test_income_goes_to_the_larger_land_plus_head_total():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    civilians = s.land[land("Golden Coast"), L_CIV]
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + civilians
    assert s.pl[RED, P_COINS] == 6


def test_equal_totals_give_income_to_more_tokens_on_the_head():
    s = _golden_coast(blue=(3, 2), red=(2, 3))
    civilians = s.land[land("Golden Coast"), L_CIV]
    income(s)
    assert s.pl[RED, P_COINS] == 6 + civilians
    assert s.pl[BLUE, P_COINS] == 6


def test_tied_on_head_too_the_land_is_contested_and_each_tied_player_takes_one_coin():
    s = _golden_coast(blue=(3, 3), red=(3, 3), yellow=(1, 1))
    income(s)
    assert list(s.pl[:3, P_COINS]) == [7, 7, 6]
    assert s.g[CONTESTED] == 1


def test_mood_minus_three_stops_all_income_and_plus_three_adds_a_coin():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    civilians = s.land[land("Golden Coast"), L_CIV]
    s.g[MOOD] = -3
    income(s)
    assert s.pl[BLUE, P_COINS] == 6
    s.g[MOOD] = 3
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + civilians + 1


def test_mood_minus_two_stops_income_where_soldiers_are_fewer_than_civilians():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    s.g[MOOD] = -2
    income(s)
    assert s.pl[BLUE, P_COINS] == 6  # Golden Coast: more civilians than soldiers
    s.ch[char("Matej the Verbose"), C_TRAITS] = 1 << T_DOMINEERING
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + s.land[land("Golden Coast"), L_CIV]


def test_mood_minus_two_still_pays_where_soldiers_equal_civilians():
    s = position(players=3)
    i = land("Black Harbour")
    s.land[i, L_SOL] = s.land[i, L_CIV] = s.land[i, L_SIZE] // 2  # full, no cell to give up
    head = s.g[HOLDERS + HEAD0 + i]
    if head >= 0:
        s.ch[head, C_TRAITS] = 0  # no Thrifty, Wasteful or Domineering
    on_land(s, BLUE, "Black Harbour", 1)
    s.g[MOOD] = -2
    before = s.pl[BLUE, P_COINS]
    income(s)
    # Civilians' income (soldiers are not fewer) plus Black Harbour's coin.
    assert s.pl[BLUE, P_COINS] == before + s.land[i, L_CIV] + 1


def test_black_harbour_pays_its_holder_one_more_coin_in_any_conditions():
    s = position(players=3)
    full(s, "Black Harbour")
    on_land(s, RED, "Black Harbour", 1)
    s.g[MOOD] = -3  # an uprising: no income from any Land, but the Harbour's coin comes
    income(s)
    assert list(s.pl[:3, P_COINS]) == [6, 7, 6]
    on_land(s, BLUE, "Black Harbour", 1)  # a tie: nobody takes it
    income(s)
    assert list(s.pl[:3, P_COINS]) == [6, 7, 6]


def test_zalesye_makes_mercenaries_one_coin_cheaper_for_its_heads_player_or_three_tokens():
    s = position(players=3)
    on_char(s, RED, "Vera the Silent", 1)  # the Head of Zalesye
    on_land(s, BLUE, "Zalesye", 3)
    on_land(s, YELLOW, "Zalesye", 2)
    costs = [int(merc_cost(s.state, q)) for q in (BLUE, RED, YELLOW)]
    assert costs == [2, 2, 3]


def test_under_the_income_reading_an_uprising_sends_cowardly_characters_to_the_pool():
    s = position(players=3, cowardly_leaves="income")
    thomas = char("Thomas the Firm")
    s.ch[thomas, C_TRAITS] |= 1 << 15  # Cowardly
    s.g[MOOD] = -2
    income(s)
    assert s.ch[thomas, C_SEAT] == HEAD0 + land("Valley of Arrows")
    s.g[MOOD] = -3
    income(s)
    assert s.ch[thomas, C_SEAT] == -1
    assert s.g[HOLDERS + HEAD0 + land("Valley of Arrows")] == -1


def test_a_mood_immune_land_pays_by_the_general_rules_in_an_uprising():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    civilians = s.land[land("Golden Coast"), L_CIV]
    s.land[land("Golden Coast"), L_EFFECT] = EFFECTS.index("mood_immune")
    s.g[MOOD] = -3
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + civilians


# --- Tax (rulebook, phase 4) ----------------------------------------------------------------------


@pytest.mark.parametrize(("lands", "due"), [(1, 1), (2, 3), (3, 4), (4, 6)])
def test_tax_is_one_and_a_half_coins_per_land_rounded_down(lands, due):
    s = position(players=3)
    s.pl[BLUE, P_COINS] = 10
    for name in LANDS[:lands]:
        on_land(s, BLUE, name, 1)
    tax(s)
    assert s.pl[BLUE, P_COINS] == 10 - due
    assert s.g[TREASURY] == due


def test_a_land_whose_tax_cannot_be_paid_costs_a_token_on_the_land_and_one_on_its_head():
    s = position(players=3)
    s.pl[BLUE, P_COINS] = 0
    s.g[TO_BANK] += 6  # blue has spent its coins
    on_land(s, BLUE, "Brothers", 2)
    on_char(s, BLUE, "Irena the Tall", 1)
    tax(s)
    assert s.tok[BLUE, land("Brothers")] == 1
    assert s.tok[BLUE, N_LANDS + char("Irena the Tall")] == 0
    assert violations(s.state) == 0


def test_each_player_tied_on_a_contested_land_pays_one_coin():
    s = position(players=3)
    on_land(s, BLUE, "Zalesye", 2)
    on_land(s, RED, "Zalesye", 2)
    tax(s)
    assert list(s.pl[:3, P_COINS]) == [5, 5, 6]


# --- Acting order (rulebook, phase 3 example) -----------------------------------------------------


def test_acting_order_follows_the_seeds_example():
    seats = {
        "Arthur the Handsome": "warlord",
        "Josette the Fiery": "treasurer",
        "Edmar the Dark": "Black Harbour",
        "Eliza of the Evening": "Sapphire Lakes",
    }
    chars = [dict(c, seat=seats.get(c["name"], c["seat"])) for c in DEFAULT_CHARACTERS]
    s = position(players=3, characters=chars)
    green = YELLOW
    on_char(s, green, "Josette the Fiery", 2)
    on_char(s, RED, "Josette the Fiery", 1)
    on_char(s, BLUE, "Arthur the Handsome", 3)
    on_char(s, BLUE, "Gunter the Fisherman", 2)
    on_char(s, RED, "Gunter the Fisherman", 2)
    on_char(s, green, "Gunter the Fisherman", 1)
    on_char(s, green, "Irena the Tall", 4)
    on_char(s, RED, "Irena the Tall", 1)
    on_char(s, green, "Matej the Verbose", 2)
    on_char(s, BLUE, "Matej the Verbose", 1)
    s.g[REPRESENTATIVE] = -1  # the example leaves the Representative of Heads out
    n = acting_order(s.context, s.state, s.scratch)
    with_tokens = [int(c) for c in s.order[:n] if s.tok[:, N_LANDS + c].sum() > 0]
    assert [NAMES[c] for c in with_tokens] == [
        "Arthur the Handsome",
        "Josette the Fiery",
        "Irena the Tall",
        "Matej the Verbose",
        "Gunter the Fisherman",
    ]
    actors = [int(char_owner(s.state, c)) for c in with_tokens]
    assert actors == [BLUE, green, green, green, -1]  # Gunter is neutral


def test_fewer_tokens_counting_the_land_acts_first_when_all_else_is_equal():
    s = position(players=3)
    on_char(s, BLUE, "Irena the Tall", 2)
    on_char(s, RED, "Gunter the Fisherman", 2)
    on_land(s, RED, "Brown Plains", 1)
    s.g[REPRESENTATIVE] = -1
    n = acting_order(s.context, s.state, s.scratch)
    heads = [int(c) for c in s.order[:n] if s.tok[:, N_LANDS + c].sum() > 0]
    assert heads == [char("Irena the Tall"), char("Gunter the Fisherman")]


def test_representative_is_the_head_with_most_tokens_then_land_and_head():
    s = position(players=3)
    on_char(s, BLUE, "Irena the Tall", 2)
    on_char(s, RED, "Gunter the Fisherman", 2)
    on_land(s, RED, "Brown Plains", 1)
    choose_representative(s.context, s.state, s.scratch)
    assert s.g[REPRESENTATIVE] == char("Gunter the Fisherman")
    on_char(s, YELLOW, "Irena the Tall", 1)
    choose_representative(s.context, s.state, s.scratch)
    assert s.g[REPRESENTATIVE] == char("Irena the Tall")


def test_representative_ties_go_to_the_larger_land():
    s = position(players=3)  # nobody has tokens: every Head ties until Land size
    choose_representative(s.context, s.state, s.scratch)
    assert s.g[REPRESENTATIVE] == char("Thomas the Firm")  # Valley of Arrows, 8 cells


# --- Council vote (rulebook, "Military mobilisation" example) -------------------------------------


def _mobilisation_council() -> SimpleNamespace:
    s = position(players=3)
    red, green, yellow = 0, 1, 2
    on_char(s, red, "Edmar the Dark", 3)
    on_char(s, green, "Edmar the Dark", 2)
    on_char(s, yellow, "Edmar the Dark", 1)
    on_char(s, green, "Mark the Broad-Shouldered", 2)
    on_char(s, red, "Mark the Broad-Shouldered", 2)
    on_char(s, yellow, "Eliza of the Evening", 4)
    on_char(s, yellow, "Gustav the Wise", 1)
    on_char(s, green, "Gustav the Wise", 1)
    on_char(s, red, "Thomas the Firm", 4)
    on_char(s, yellow, "Thomas the Firm", 1)
    s.g[REPRESENTATIVE] = char("Thomas the Firm")
    return s


def test_military_mobilisation_fails_two_to_three_as_in_the_seed():
    s = _mobilisation_council()
    red, green, yellow = 0, 1, 2
    s.decl[:] = 0
    s.decl[0, red] = 1  # Edmar: red for
    s.decl[1, yellow] = -1  # Eliza: yellow against
    s.decl[2, green], s.decl[2, red] = 1, -1  # Mark: tied players disagree
    # ... and are advised: green once for (the Brothers), red and yellow once against each.
    s.decl[2, ADVICE_COLUMN] = 1 - 1 - 1
    s.decl[3, yellow], s.decl[3, green] = -1, -1  # Gustav: both against
    s.decl[4, red] = 1  # Thomas: red for
    yes = tally_council(s.state, MILITARY, s.scratch)
    assert yes == 2 and yes < s.p.council_votes  # 2 to 3: Edmar and Thomas for
    # Gustav is Warlike: each player who swayed him against a military law loses a token.
    gustav = N_LANDS + char("Gustav the Wise")
    assert s.tok[yellow, gustav] == 0 and s.tok[green, gustav] == 0
    # Had the advice on Mark gone the other way, his vote would have passed the law.
    s = _mobilisation_council()
    s.decl[:] = 0
    s.decl[0, red], s.decl[1, yellow], s.decl[4, red] = 1, -1, 1
    s.decl[2, green], s.decl[2, red], s.decl[2, ADVICE_COLUMN] = 1, -1, 1
    s.decl[3, yellow], s.decl[3, green] = -1, -1
    assert tally_council(s.state, MILITARY, s.scratch) == 3


def test_a_neutral_warlike_councillor_votes_for_when_its_players_disagree():
    s = _mobilisation_council()
    red, green, yellow = 0, 1, 2
    s.decl[:] = 0
    s.decl[0, red] = 1
    s.decl[1, yellow] = -1
    s.decl[3, yellow], s.decl[3, green] = -1, 1  # Gustav: the players disagree
    s.decl[4, red] = 1
    yes = tally_council(s.state, MILITARY, s.scratch)
    assert yes == 3
    gustav = N_LANDS + char("Gustav the Wise")
    assert s.tok[yellow, gustav] == 1 and s.tok[green, gustav] == 1


def test_voting_against_its_trait_costs_a_proud_character_two_tokens():
    s = position(players=3)
    on_char(s, BLUE, "Edmar the Dark", 3)  # Warlike and Proud
    s.decl[:] = 0
    s.decl[0, BLUE] = -1
    tally_council(s.state, MILITARY, s.scratch)
    assert s.tok[BLUE, N_LANDS + char("Edmar the Dark")] == 1


@pytest.mark.parametrize(
    ("category", "expected"),
    [("military", 2), ("religious", 1), ("social", 1), ("none", 0)],
)
def test_neutral_councillors_vote_by_their_traits_otherwise_abstain(category, expected):
    # Council: Edmar (warlike), Eliza (egoist), Mark (believer), Gustav (warlike, humane), and
    # Thomas (warlike) as Representative; nobody has tokens.
    s = position(players=3)
    s.g[REPRESENTATIVE] = char("Thomas the Firm")
    s.decl[:] = 0
    yes = tally_council(s.state, CATEGORIES.index(category), s.scratch)
    assert yes == expected + (1 if category == "military" else 0)


def test_council_election_needs_priority_on_all_five_councillors():
    s = position(players=3)
    s.g[REPRESENTATIVE] = char("Thomas the Firm")
    for name in (
        "Edmar the Dark",
        "Eliza of the Evening",
        "Mark the Broad-Shouldered",
        "Gustav the Wise",
    ):
        on_char(s, RED, name, 1)
    assert not check_election(s.state)
    on_char(s, RED, "Thomas the Firm", 1)
    assert check_election(s.state)
    assert s.g[VICTORY] == V_ELECTION and s.g[WINNERS] == 1 << RED


# --- Removing a Councillor: the 4-of-7 / 5-of-7 point --------------------------------------------


def test_four_heads_remove_a_councillor_only_under_the_four_of_seven_reading():
    for needed in (4, 5):
        s = position(players=3, remove_councillor_votes=needed)
        for name in (
            "Matej the Verbose",
            "Thomas the Firm",
            "Gunter the Fisherman",
            "Irena the Tall",
        ):
            on_char(s, BLUE, name, 1)
        yes = land_vote(s.context, s.state, BLUE, s.scratch)
        assert yes == 4
        assert s.g[GAP_COUNTS + GAP_FOUR_VOTES] == 1
        assert (yes >= s.g[REMOVE_VOTES]) == (needed == 4)


# --- Victory conditions ------------------------------------------------------------------------


def test_coup_needs_the_warlord_and_four_lands_with_soldiers_not_below_civilians():
    s = position(players=3)
    on_char(s, RED, "Edmar the Dark", 1)
    military = [i for i in range(7) if s.land[i, L_SOL] >= s.land[i, L_CIV]]
    assert len(military) == 4
    for i in military[:3]:
        on_land(s, RED, LANDS[i], 1)
    on_land(s, RED, "Golden Coast", 1)  # more civilians: does not count
    assert not check_victory(s.state)
    on_land(s, RED, LANDS[military[3]], 1)
    assert check_victory(s.state)
    assert s.g[VICTORY] == V_COUP and s.g[WINNERS] == 1 << RED


def test_will_of_the_people_counts_tokens_on_lands_not_on_their_heads():
    s = position(players=3)
    on_char(s, BLUE, "Gustav the Wise", 1)
    civil = [i for i in range(7) if s.land[i, L_SOL] <= s.land[i, L_CIV]]
    for i in civil[:3]:
        on_land(s, BLUE, LANDS[i], 1)
    head = int(s.g[HOLDERS + HEAD0 + civil[3]])
    s.tok[BLUE, N_LANDS + head] = 5  # priority on the Head is not priority on the Land
    assert not check_victory(s.state)
    on_land(s, BLUE, LANDS[civil[3]], 1)
    assert check_victory(s.state)
    assert s.g[VICTORY] == V_WILL


def test_hand_of_order_goes_to_most_tokens_on_the_council_then_on_all_characters():
    s = position(players=3)
    on_char(s, BLUE, "Edmar the Dark", 2)
    on_char(s, RED, "Eliza of the Evening", 2)
    on_char(s, RED, "Vera the Silent", 1)
    s.g[KILLED] = 4
    hand_of_order(s.context, s.state, s.scratch)
    assert s.g[VICTORY] == V_HAND and s.g[WINNERS] == 1 << RED


def test_max_turns_without_a_winner_is_a_draw():
    p = PROC.params_model(max_turns=1)
    plan = make_plan(PROC, {"base": p}, seed=5)
    stats = run_range(plan, -1, 0, 200)
    names = [m.name for m in plan.metrics]
    draws = stats[0, 4 * names.index("victory.draw") + 1]
    turns = stats[0, 4 * names.index("length") + 1]
    assert draws == 200 and turns == 200


def test_a_draw_with_no_token_on_any_land_is_counted_as_stalled():
    # Without starting tokens or coins nobody can ever buy a token: no income, no way back.
    stalled = PROC.params_model(max_turns=3, start_tokens=0, start_coins=0, policies="greedy")
    # With tokens on the board, a draw at the turn limit is not a stalled one.
    held = PROC.params_model(max_turns=1, start_tokens=3, policies="greedy")
    for p, expected in ((stalled, 50), (held, 0)):
        plan = make_plan(PROC, {"base": p}, seed=5)
        stats = run_range(plan, -1, 0, 50)
        names = [m.name for m in plan.metrics]
        assert stats[0, 4 * names.index("gap.stalled_draw") + 1] == expected
    assert stats[0, 4 * names.index("victory.draw") + 1] > 0  # the held board drew too
