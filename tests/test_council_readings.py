"""The council game's fourth reading of the Council rules (issue 44), on hand-built kernel
positions: the spending order's ties, the invented caps and their counters, the laws in force at
the start, the Privy Councillor's appointment as its action, victory "at the moment" a condition is
reached, and the Cowardly leaving when an uprising starts. The twin plays each the same way
(tests/test_council_game.py)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.procedures import get
from simulator.procedures.council.game.actions import actions_phase, character_action
from simulator.procedures.council.game.economy import spending_order, spending_phase
from simulator.procedures.council.game.kernel import play_one
from simulator.procedures.council.game.params import (
    DEFAULT_LAWS,
    GAP_BUY_CAP,
    GAP_DECK_CAP,
    GAP_HAND_CAP,
    HEAD0,
    MESSENGER,
    PRIVY,
    T_COWARDLY,
    V_COUP,
    V_WILL,
    WARLORD,
)
from simulator.procedures.council.game.setup import violations
from simulator.procedures.council.game.state import (
    COWARDLY_LEFT,
    DONE,
    GAP_COUNTS,
    HOLDERS,
    LAW_SLOT,
    MOOD,
    MOVE_APPOINT,
    MOVE_LAW,
    SPENDING_TIED,
    TAX_DELTA,
    TREASURY,
    VACANT_HEADS,
    VICTORY,
    WINNERS,
    vacate,
)
from simulator.procedures.council.game.votes import law_moves, pass_law
from simulator.rng import scenario_key
from tests.council_positions import (
    BLUE,
    C_SEAT,
    C_TRAITS,
    K_STATUS,
    L_CIV,
    P_COINS,
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

# --- The spending order (Council rules §2: "the one with the least money first") -------------


def test_players_with_the_same_coins_spend_in_seat_order_under_the_seat_reading():
    s = position(players=4, spending_ties="seat")
    assert list(spending_order(s.context, s.state)) == [0, 1, 2, 3]
    assert s.g[SPENDING_TIED] == 1


def test_players_with_the_same_coins_spend_in_an_order_drawn_by_lot():
    firsts = set()
    for seed in range(40):
        s = position(players=4)
        s.context[0] = np.uint64(500 + seed)
        s.pl[YELLOW, P_COINS] = 2  # the poorest spends first whatever the lot
        order = list(spending_order(s.context, s.state))
        assert order[0] == YELLOW and sorted(order) == [0, 1, 2, 3]
        firsts.add(order[1])
    assert firsts == {0, 1, 3}  # each of the tied seats goes first among them on some lot


def test_different_coins_give_the_order_without_a_lot_and_no_tie_is_counted():
    s = position(players=3)
    s.pl[:3, P_COINS] = [9, 3, 6]
    word = int(s.context[0])
    assert list(spending_order(s.context, s.state)) == [RED, YELLOW, BLUE]
    assert s.g[SPENDING_TIED] == 0 and int(s.context[0]) == word  # no word read


# --- The invented caps, counted where they bind ------------------------------------------------


def _rich_blue(**params):
    s = position(players=3, **params)
    s.pl[:3, P_COINS] = [12, 0, 0]  # only Blue can buy: Red and Yellow pass without a lot
    return s


def _hand(s, player: int, cards: int, first: int = 0) -> None:
    for k in range(first, first + cards):
        s.card[k] = (MESSENGER, player, -1, 1, 0, 1)  # in hand


def _bought(s, player: int) -> int:
    return int(((s.card[:, K_STATUS] == 1) & (s.card[:, 1] == player)).sum())


@pytest.mark.parametrize("seed", range(6))
def test_a_full_hand_refuses_a_mercenary_and_is_counted(seed):
    s = _rich_blue()
    _hand(s, BLUE, 6)
    s.context[0] = np.uint64(seed)
    spending_phase(s.context, s.state, s.scratch)
    assert _bought(s, BLUE) == 6 and s.g[GAP_COUNTS + GAP_HAND_CAP] >= 1


def test_without_a_hand_limit_a_seventh_mercenary_can_be_bought():
    seventh = 0
    for seed in range(30):
        s = _rich_blue(max_hand=None)
        _hand(s, BLUE, 6)
        s.context[0] = np.uint64(seed)
        spending_phase(s.context, s.state, s.scratch)
        seventh += _bought(s, BLUE) > 6
        assert s.g[GAP_COUNTS + GAP_HAND_CAP] == 0
    assert seventh > 0


def test_an_exhausted_deck_refuses_a_mercenary_and_is_counted():
    s = _rich_blue(mercenary_deck=2)
    _hand(s, RED, 2)
    spending_phase(s.context, s.state, s.scratch)
    assert _bought(s, BLUE) == 0 and s.g[GAP_COUNTS + GAP_DECK_CAP] >= 1


@pytest.mark.parametrize("seed", range(8))
def test_the_buy_cap_ends_a_players_spending_and_is_counted(seed):
    s = _rich_blue(max_buys=1)
    s.context[0] = np.uint64(seed)
    spending_phase(s.context, s.state, s.scratch)
    spent = 12 - s.pl[BLUE, P_COINS]
    assert spent <= 3  # one purchase at most
    assert s.g[GAP_COUNTS + GAP_BUY_CAP] == (1 if spent > 0 else 0)


# --- Laws in force at the start (Council rules §3: a proposal names the law it replaces) -------


def test_three_laws_in_force_at_the_start_leave_only_replacements_to_propose():
    s = position(players=3, start_laws=3, start_treasury=20)
    assert [int(s.state[LAW_SLOT + i]) for i in range(4)] == [0, 1, 2, -1]
    halves = sum(round(law.get("tax_delta", 0) * 2) for law in DEFAULT_LAWS[:3])
    assert s.g[TAX_DELTA] == halves
    n = law_moves(s.state, s.scratch, 0)
    assert n > 0 and all(s.mv[i, 0] == MOVE_LAW and s.mv[i, 2] >= 0 for i in range(n))


def test_no_law_in_force_at_the_start_by_default():
    s = position(players=3, start_treasury=20)
    n = law_moves(s.state, s.scratch, 0)
    assert all(s.state[LAW_SLOT + i] == -1 for i in range(len(DEFAULT_LAWS)))
    assert all(s.mv[i, 2] == -1 for i in range(n))  # an empty slot each


# --- Vacant Head seats: the Privy Councillor's action (Council rules §3, §5) --------------------


def _vacant_zalesye(**params):
    s = position(players=3, **params)
    vacate(s.state, char("Vera the Silent"))  # the Head of Zalesye leaves for the pool
    return s


def test_a_vacant_head_seat_waits_for_the_privy_councillors_action():
    s = _vacant_zalesye()
    actions_phase(s.context, s.state, s.scratch)  # nobody holds anything: nobody acts
    assert s.g[HOLDERS + HEAD0 + land("Zalesye")] == -1
    assert s.g[VACANT_HEADS] == 1


def test_the_old_reading_fills_a_vacant_head_seat_at_the_phase_start():
    s = _vacant_zalesye(head_appointment="phase_start")
    actions_phase(s.context, s.state, s.scratch)
    assert s.g[HOLDERS + HEAD0 + land("Zalesye")] == char("Vera the Silent")
    assert s.g[VACANT_HEADS] == 1


def test_the_privy_councillors_player_may_spend_its_action_appointing():
    appointed = 0
    for seed in range(40):
        s = _vacant_zalesye()
        on_char(s, BLUE, "Gustav the Wise", 1)
        s.context[0] = np.uint64(seed)
        gustav = char("Gustav the Wise")
        character_action(s.context, s.state, s.scratch, gustav, BLUE)
        if s.g[HOLDERS + HEAD0 + land("Zalesye")] == char("Vera the Silent"):
            appointed += 1
        assert violations(s.state) == 0
    assert 0 < appointed < 40  # one move among several


def test_the_appointment_is_offered_only_to_the_privy_councillor_with_a_vacancy():
    s = _vacant_zalesye()
    on_char(s, BLUE, "Edmar the Dark", 1)
    character_action(s.context, s.state, s.scratch, char("Edmar the Dark"), BLUE)
    assert MOVE_APPOINT not in s.mv[:, 0]
    s = position(players=3)  # no vacancy
    on_char(s, BLUE, "Gustav the Wise", 1)
    character_action(s.context, s.state, s.scratch, char("Gustav the Wise"), BLUE)
    assert MOVE_APPOINT not in s.mv[:, 0]


# --- Victory "at the moment one is reached" (Council rules §7) ----------------------------------


def test_a_will_of_the_people_made_by_an_income_give_up_ends_the_game_at_once():
    ended = 0
    for seed in range(20):
        s = position(players=3)
        s.context[0] = np.uint64(seed)
        on_char(s, BLUE, "Gustav the Wise", 1)  # the Privy Councillor
        for name in ("Golden Coast", "Brown Plains", "Sapphire Lakes"):  # civil Lands
            on_land(s, BLUE, name, 1)
            full(s, name)  # no give-up there
        on_land(s, BLUE, "Zalesye", 1)  # 2 civilians, 3 soldiers: one civilian more makes it
        before = s.land[land("Zalesye"), L_CIV]
        income(s)
        if s.land[land("Zalesye"), L_CIV] == before + 1:  # Blue gave up Zalesye's income
            assert s.g[DONE] == 1 and s.g[VICTORY] == V_WILL and s.g[WINNERS] == 1 << BLUE
            ended += 1
        else:
            assert s.g[DONE] == 0
    assert ended > 0


def test_a_victory_made_by_an_unpaid_tax_stands_though_a_later_unpaid_tax_would_undo_it():
    s = position(players=3)
    on_char(s, RED, "Gustav the Wise", 1)
    for name in ("Golden Coast", "Brown Plains", "Sapphire Lakes", "Black Harbour"):
        on_land(s, RED, name, 1)
    on_land(s, BLUE, "Black Harbour", 1)  # contested with Red: Red has three Lands
    s.pl[:3, P_COINS] = [0, 3, 0]
    tax(s)  # Blue cannot pay Black Harbour: its token leaves, Red holds four civil Lands
    assert s.g[DONE] == 1 and s.g[VICTORY] == V_WILL and s.g[WINNERS] == 1 << RED
    assert s.tok[RED, land("Black Harbour")] == 1  # Red's own unpaid coin never came


def test_a_councillor_elected_by_the_heads_completes_a_coup_before_anyone_acts():
    s = position(players=3, policies="greedy")
    vacate(s.state, char("Edmar the Dark"))  # the Warlord's seat is vacant
    on_char(s, BLUE, "Thomas the Firm", 1)  # Blue's Head: the Heads elect it
    for name in ("Valley of Arrows", "Zalesye", "Black Harbour", "Brothers"):  # military Lands
        on_land(s, BLUE, name, 1)
    actions_phase(s.context, s.state, s.scratch)
    assert s.g[HOLDERS + WARLORD] == char("Thomas the Firm")
    assert s.g[DONE] == 1 and s.g[VICTORY] == V_COUP and s.g[WINNERS] == 1 << BLUE


# --- The Cowardly (trait 16: "if an uprising started anywhere, discard this Character") -------


def _cowardly_thomas(**params):
    s = position(players=3, start_treasury=20, **params)
    s.ch[char("Thomas the Firm"), C_TRAITS] |= 1 << T_COWARDLY
    s.g[MOOD] = -2
    return s


def test_a_cowardly_character_leaves_the_moment_a_law_starts_an_uprising():
    s = _cowardly_thomas()
    thomas = char("Thomas the Firm")
    pass_law(s.context, s.state, 0, np.int64(-1), s.scratch)  # Military mobilisation: mood -1
    assert s.g[MOOD] == -3 and s.ch[thomas, C_SEAT] == -1 and s.g[COWARDLY_LEFT] == 1
    s.ch[thomas, C_SEAT] = HEAD0 + land("Valley of Arrows")  # appointed again
    s.g[HOLDERS + HEAD0 + land("Valley of Arrows")] = thomas
    income(s)  # the uprising goes on: nothing starts, the Cowardly stays
    pass_law(s.context, s.state, 1, np.int64(-1), s.scratch)  # mood stays -3
    assert s.ch[thomas, C_SEAT] == HEAD0 + land("Valley of Arrows") and s.g[COWARDLY_LEFT] == 1
    assert s.g[TREASURY] >= 0


def test_the_old_reading_sends_the_cowardly_away_at_each_income_of_an_uprising():
    s = _cowardly_thomas(cowardly_leaves="income")
    thomas = char("Thomas the Firm")
    pass_law(s.context, s.state, 0, np.int64(-1), s.scratch)
    assert s.ch[thomas, C_SEAT] == HEAD0 + land("Valley of Arrows")  # not yet
    income(s)
    assert s.ch[thomas, C_SEAT] == -1 and s.g[COWARDLY_LEFT] == 1


def test_a_game_that_starts_in_an_uprising_sends_the_cowardly_away_before_turn_one():
    chars = [dict(c) for c in get("council.game").params_model().model_dump()["characters"]]
    chars[char("Thomas the Firm")]["traits"] = ["cowardly"]
    s = position(players=3, mood_start=-3, characters=chars)
    assert s.ch[char("Thomas the Firm"), C_SEAT] == -1 and s.g[COWARDLY_LEFT] == 1
    assert s.g[HOLDERS + PRIVY] == char("Gustav the Wise")


# --- A reading changes a game only where its case arose -------------------------------------------


def test_the_head_appointment_changes_a_game_only_where_a_head_seat_fell_vacant():
    proc = get("council.game")
    vacant = proc.metric_names(proc.params_model()).index("vacant_heads")
    key = int(scenario_key(44))
    arose = 0
    for t in range(40):
        action = play_one(proc.params_model(max_turns=12), key, t)
        start = play_one(proc.params_model(max_turns=12, head_appointment="phase_start"), key, t)
        assert (action[vacant] == 0) == (start[vacant] == 0)
        if action[vacant] == 0:
            assert action == start, f"trial {t}: the games differ though no seat fell vacant"
        arose += action[vacant] > 0
    assert arose > 0


def test_the_cowardly_reading_changes_no_game_without_a_cowardly_character():
    proc = get("council.game")
    key = int(scenario_key(44))
    for t in range(20):
        p = proc.params_model(max_turns=12, mood_start=-2)
        q = proc.params_model(max_turns=12, mood_start=-2, cowardly_leaves="income")
        assert play_one(p, key, t) == play_one(q, key, t)
