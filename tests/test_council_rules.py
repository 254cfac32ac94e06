"""The council game's rules from a line-by-line reading of the Council rules (issue 14, items 3 and
8), on hand-built kernel positions: Black Harbour's tie, the Treasurer's stand-in, a Head's token
for a Mercenary paid from its Land, the Sycophant, the Golden Coast's rare gifts, advice through
Heads with the Brothers' free advice, and the Sapphire Lakes' sway of a neutral Head."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.procedures.council.game.actions import sycophants
from simulator.procedures.council.game.mercenaries import add_sends
from simulator.procedures.council.game.params import (
    BISHOP,
    EFFECTS,
    GAP_APPOINT,
    MESSENGER,
    N_LANDS,
    PACKED,
    PRIVY,
    SPY,
    pack,
)
from simulator.procedures.council.game.state import (
    ADVICE_COLUMN,
    GAP_COUNTS,
    HOLDERS,
    REPRESENTATIVE,
)
from simulator.procedures.council.game.votes import (
    advise,
    appointer,
    choose_representative,
    fill_vacancies,
    land_vote,
    tally_council,
)
from tests.council_positions import (
    BLUE,
    C_SEAT,
    C_TRAITS,
    L_CIV,
    L_EFFECT,
    MILITARY,
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
    place,
    position,
    streams,
)

# --- Black Harbour (rulebook: "a tie on total influence: nobody gets the extra income") -----------


def test_black_harbour_gives_its_coin_to_nobody_on_a_tied_total_even_when_the_head_breaks_it():
    s = position(players=3)
    arthur = char("Arthur the Handsome")  # the Head of Black Harbour
    s.ch[arthur, C_TRAITS] = 0  # no Thrifty/Wasteful: income is the civilians alone
    full(s, "Black Harbour")
    on_land(s, BLUE, "Black Harbour", 2)  # Blue 2 on the Land + 0 on the Head
    on_land(s, RED, "Black Harbour", 1)  # Red 1 + 1
    on_char(s, RED, "Arthur the Handsome", 1)
    civilians = s.land[land("Black Harbour"), L_CIV]
    income(s)
    # Red has priority for the income (more on the Head) but the extra coin goes to nobody.
    assert list(s.pl[:3, P_COINS]) == [6, 6 + civilians, 6]


def test_black_harbour_gives_its_coin_to_the_one_player_with_the_largest_total():
    s = position(players=3)
    s.ch[char("Arthur the Handsome"), C_TRAITS] = 0
    full(s, "Black Harbour")
    on_land(s, BLUE, "Black Harbour", 2)
    on_char(s, RED, "Arthur the Handsome", 1)
    civilians = s.land[land("Black Harbour"), L_CIV]
    income(s)
    assert list(s.pl[:3, P_COINS]) == [6 + civilians + 1, 6, 6]


# --- The Treasurer stands in for the Privy Councillor only for a tied Council seat -------------


def _no_privy_councillor(**params):
    s = position(players=3, **params)
    s.ch[char("Gustav the Wise"), C_SEAT] = -1  # in the pool
    s.g[HOLDERS + PRIVY] = -1
    on_char(s, RED, "Eliza of the Evening", 1)  # Red controls the Treasurer
    return s


def test_the_treasurer_appoints_only_to_a_tied_council_seat_not_to_heads():
    s = _no_privy_councillor()
    assert appointer(s.state, True) == RED
    assert appointer(s.state, False) == -1


@pytest.mark.parametrize("seed", range(4))
def test_a_tied_head_vote_for_a_council_seat_goes_to_the_treasurers_choice(seed):
    s = _no_privy_councillor(policies="greedy")
    s.context[0] = np.uint64(70 + seed)
    on_char(s, RED, "Irena the Tall", 1)  # Red's favourite, kept neutral by Blue:
    on_char(s, BLUE, "Irena the Tall", 1)  # no Head votes, all seven tie
    fill_vacancies(s.context, s.state, s.scratch, True)
    assert s.g[HOLDERS + PRIVY] == char("Irena the Tall")
    assert s.g[GAP_COUNTS + GAP_APPOINT] == 0  # no lot: the Treasurer chose


def test_a_tied_representative_without_a_privy_councillor_is_chosen_by_lot_not_by_the_treasurer():
    s = _no_privy_councillor(policies="greedy")
    golden, valley = land("Golden Coast"), land("Valley of Arrows")
    s.land[golden, :3] = s.land[valley, :3]  # two Heads tie on every key
    choose_representative(s.context, s.state, s.scratch)
    assert s.g[REPRESENTATIVE] in (char("Matej the Verbose"), char("Thomas the Firm"))
    assert s.g[GAP_COUNTS + GAP_APPOINT] == 1  # by lot: the Treasurer does not stand in


# --- A Head's player may pay the Mercenary's token from the Land --------------------------------


def test_a_heads_player_may_pay_a_mercenarys_token_from_the_land_instead_of_the_head():
    s = position(players=3)
    thomas, valley = char("Thomas the Firm"), land("Valley of Arrows")
    on_char(s, RED, "Thomas the Firm", 1)
    on_land(s, RED, "Valley of Arrows", 1)
    s.card[0] = (SPY, RED, -1, 1, 0, 1)  # in Red's hand
    n = add_sends(s.state, s.scratch, 0, RED, thomas)
    assert n == 2 * 10  # each of the other ten Characters, from either place
    assert {int(x) for x in s.mv[:n, 4]} == {N_LANDS + thomas, valley}


def test_a_councillors_player_pays_a_mercenarys_token_from_the_councillor():
    s = position(players=3)
    edmar = char("Edmar the Dark")
    on_char(s, RED, "Edmar the Dark", 1)
    on_land(s, RED, "Valley of Arrows", 1)
    s.card[0] = (SPY, RED, -1, 1, 0, 1)
    n = add_sends(s.state, s.scratch, 0, RED, edmar)
    assert n == 10 and {int(x) for x in s.mv[:n, 4]} == {N_LANDS + edmar}


# --- The Sycophant ----------------------------------------------------------------------------


def test_a_sycophant_takes_a_token_of_the_council_leader_each_time_the_leader_changes():
    s = position(players=3)
    mark = N_LANDS + char("Mark the Broad-Shouldered")  # the Bishop, a Sycophant by default
    on_char(s, RED, "Edmar the Dark", 2)
    assert sycophants(s.state) == 1
    assert s.tok[RED, mark] == 1
    assert sycophants(s.state) == 0  # the same leader: nothing more
    on_char(s, BLUE, "Eliza of the Evening", 4)  # Blue 4 against Red 2 + 1 on Mark
    assert sycophants(s.state) == 1
    assert s.tok[BLUE, mark] == 1 and s.tok[RED, mark] == 1  # tokens put earlier stay
    on_char(s, YELLOW, "Gustav the Wise", 5)  # Yellow 5, Blue 4 + 1: a tie names no leader
    assert sycophants(s.state) == 0


def test_a_sycophant_in_the_pool_takes_nothing():
    s = position(players=3)
    s.ch[char("Mark the Broad-Shouldered"), C_SEAT] = -1
    s.g[HOLDERS + BISHOP] = -1
    on_char(s, RED, "Edmar the Dark", 2)
    assert sycophants(s.state) == 0


# --- The Golden Coast's rare gift ---------------------------------------------------------------


def _two_gifts(**params):
    def build():
        s = position(players=3, **params)
        on_land(s, RED, "Golden Coast", 3)  # 3+ tokens on the Land: entitled
        on_land(s, BLUE, "Golden Coast", 3)
        place(s, 0, MESSENGER, RED, "Gunter the Fisherman")
        place(s, 1, MESSENGER, BLUE, "Irena the Tall")
        place(s, 2, MESSENGER, YELLOW, "Thomas the Firm")  # Yellow is not entitled
        return s

    return build


@pytest.mark.parametrize("once", ["table", "player"])
def test_a_golden_coast_player_makes_a_gift_rare_for_two_coins_once_a_turn(once):
    gifts = {RED: "Gunter the Fisherman", BLUE: "Irena the Tall", YELLOW: "Thomas the Firm"}
    seen, both = set(), 0
    for s in streams(_two_gifts(rare_gift_once=once), MESSENGER, n=160):
        rare = []
        for q, name in gifts.items():
            got = int(s.tok[q, N_LANDS + char(name)])
            seen.add(got)
            assert got in (0, 1, 2)  # kept, a gift, a rare gift (none is a Collector)
            assert s.pl[q, P_COINS] == (4 if got == 2 else 6)
            rare.append(got == 2)
        assert not rare[2]  # Yellow has neither the Head nor 3 tokens on the Land
        both += rare[0] and rare[1]
    assert seen == {0, 1, 2}
    assert (both > 0) == (once == "player")  # "1/turn" for the table by default


# --- Advice through Heads, the Brothers ---------------------------------------------------------


def test_advice_makes_a_neutral_councillor_vote_with_the_heavier_side_as_in_the_seeds_example():
    s = position(players=3)
    red, green = 0, 1
    on_char(s, green, "Mark the Broad-Shouldered", 2)  # Mark: 2 green for, 2 red against
    on_char(s, red, "Mark the Broad-Shouldered", 2)
    s.decl[:] = 0
    s.decl[2, green], s.decl[2, red] = 1, -1
    # Edmar and Gustav (Warlike, neutral, no tokens) vote for; Eliza abstains; no Representative.
    s.decl[2, ADVICE_COLUMN] = 1 - 1 - 1  # green once for (Brothers), red and yellow once against
    assert tally_council(s.state, MILITARY, s.scratch) == 2
    s.decl[2, ADVICE_COLUMN] = 1
    assert tally_council(s.state, MILITARY, s.scratch) == 3
    s.decl[2, ADVICE_COLUMN] = 0  # equal weight: Mark has no military trait and abstains
    assert tally_council(s.state, MILITARY, s.scratch) == 2


def test_heads_advise_once_each_paying_a_token_except_through_the_brothers():
    s = position(players=3, policies="greedy")
    on_char(s, BLUE, "Mark the Broad-Shouldered", 1)
    on_char(s, RED, "Mark the Broad-Shouldered", 1)
    on_char(s, BLUE, "Irena the Tall", 1)  # the Brothers' Head
    on_char(s, RED, "Gunter the Fisherman", 2)  # the Brown Plains' Head
    s.decl[:] = 0
    s.decl[2, BLUE], s.decl[2, RED] = 1, -1
    advise(s.context, s.state, YELLOW, s.scratch)
    assert s.decl[2, ADVICE_COLUMN] == 0  # Blue +1 through the Brothers, Red -1 through Gunter
    assert s.tok[BLUE, N_LANDS + char("Irena the Tall")] == 1  # free
    assert s.tok[RED, N_LANDS + char("Gunter the Fisherman")] == 1  # paid
    assert s.decl[[0, 1, 3, 4], ADVICE_COLUMN].tolist() == [0, 0, 0, 0]


def test_without_the_advice_knob_nobody_advises():
    s = position(players=3, policies="greedy", advice=False)
    on_char(s, BLUE, "Irena the Tall", 1)
    s.decl[:] = 0
    s.decl[2, ADVICE_COLUMN] = 5
    advise(s.context, s.state, BLUE, s.scratch)
    assert (s.decl[:, ADVICE_COLUMN] == 0).all()


# --- The Sapphire Lakes -----------------------------------------------------------------------


@pytest.mark.parametrize(("effect", "expected"), [("sway_head", 2), ("none", 1)])
def test_the_sapphire_lakes_player_makes_one_neutral_head_vote_to_remove_a_councillor(
    effect, expected
):
    s = position(players=3, policies="greedy")
    s.land[land("Sapphire Lakes"), L_EFFECT] = EFFECTS.index(effect)
    on_char(s, RED, "Josette the Fiery", 1)  # the Head of the Sapphire Lakes; the rest neutral
    assert land_vote(s.context, s.state, RED, s.scratch) == expected


# --- Players ----------------------------------------------------------------------------------


def test_policies_name_one_agent_per_seat():
    with pytest.raises(ValidationError, match="one agent per seat"):
        PROC.params_model(policies=["greedy", "random"])


def test_every_rung_of_the_ladder_is_seated_with_its_budget():
    p = PROC.params_model(
        policies=[{"agent": "rollout", "playouts": 4}, "mcts", "greedy", "random"]
    )
    row = pack(p)
    assert PACKED.read(row, "policies")[:4].tolist() == [2.0, 3.0, 1.0, 0.0]
    # rollout's playouts (simulator.agents.spec.AGENT_PLAYOUTS)
    assert PACKED.read(row, "agents")[2] == 4


def test_one_agent_plays_every_seat():
    row = pack(PROC.params_model(players=5, policies="greedy"))
    assert PACKED.read(row, "policies")[:5].tolist() == [1.0] * 5
