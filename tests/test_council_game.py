"""The council game (Council rules): rule by rule on hand-built positions, the rulebook's own
worked examples, invariants over thousands of games, and the kernel against its plain twin."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import ValidationError

from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.procedures.council.game import (
    actions,
    economy,
    kernel,
    mercenaries,
    params,
    setup,
    state,
    victory,
    votes,
)
from simulator.procedures.council.game.context import CTX
from simulator.rng import scenario_key
from tests import naive_council
from tests.fold import fold

PROC = get("council.game")
# Every name of the game's modules, as one namespace.
G = SimpleNamespace(
    **{
        k: v
        for m in (params, state, economy, votes, victory, mercenaries, actions, setup, kernel)
        for k, v in vars(m).items()
        if not k.startswith("__")
    }
)
NAMES = [c["name"] for c in G.DEFAULT_CHARACTERS]
LANDS = [land["name"] for land in G.DEFAULT_LANDS]


def char(name: str) -> int:
    return NAMES.index(name)


def land(name: str) -> int:
    return LANDS.index(name)


#: Columns of the table views of :func:`tables` (one piece of the flat state per column).
P_COINS, P_SUPPLY, P_POLICY = 0, 1, 2
C_TRAITS, C_SEAT, C_LOT, C_LEADER, C_HOME = 0, 1, 2, 3, 4
L_SIZE, L_CIV, L_SOL, L_EFFECT = 0, 1, 2, 3
K_KIND, K_OWNER, K_TARGET, K_STATUS, K_MODE, K_TURN = range(6)


def tables(state: np.ndarray, scratch: np.ndarray | None = None) -> SimpleNamespace:
    """Views of a flat position (``state.POSITION``) as the tables a test reads and writes:
    ``tok[p, col]``, ``pl[p, P_*]``, ``g[SCALAR]`` (the scalars, played, gaps and holders),
    ``ch[c, C_*]``, ``land[li, L_*]``, ``law[i, field]``, ``card[k, K_*]``; and of the scratch."""

    def table(first: int, columns: int, rows: int) -> np.ndarray:
        return state[first : first + columns * rows].reshape(columns, rows).T

    t = SimpleNamespace(
        state=state,
        tok=state[G.TOKENS : G.TOKENS + G.MAX_PLAYERS * G.N_COL].reshape(G.MAX_PLAYERS, G.N_COL),
        pl=table(G.COINS, 3, G.MAX_PLAYERS),
        g=state[: G.TOKENS],
        ch=table(G.CHARACTER_TRAITS, 5, G.N_CHARS),
        land=table(G.LAND_SIZE, 4, G.N_LANDS),
        law=table(G.LAW_CATEGORY, 6, G.MAX_LAWS),
        card=table(G.CARD_KIND, 6, G.MAX_CARDS),
    )
    if scratch is not None:
        t.scratch = scratch

        def piece(name: str, *shape: int) -> np.ndarray:
            at = G.SCRATCH.piece(name)
            return scratch[at.offset : at.offset + at.size].reshape(shape or (at.size,))

        t.mv = piece("moves", G.MAX_MOVES, G.MOVE_FIELDS)
        t.score = piece("scores")
        t.tied = piece("tied")
        t.cand = piece("candidates")
        t.votes = piece("votes")
        t.order = piece("order")
        t.owner = piece("owners")
        t.contest = piece("contest", G.N_LANDS, G.MAX_PLAYERS)
        t.decl = piece("declared", 5, G.DECLARED_WIDTH)
    return t


def position(**params) -> SimpleNamespace:
    """The starting position of a game with ``params`` (no tokens placed): the flat position,
    the scratch and the trial stream (``context``, all zero but the stream word: PLAIN mode,
    context.py), with the table views of :func:`tables`."""
    params.setdefault("start_tokens", 0)
    p = G.CouncilGameParams(**params)
    state = np.zeros(G.POSITION_SIZE, dtype=np.int64)
    scratch = np.zeros(G.SCRATCH_SIZE, dtype=np.int64)
    s = tables(state, scratch)
    s.p = p
    s.context = np.array([12345] + [0] * (CTX - 1), dtype=np.uint64)
    G.setup(G.pack(p), s.context, s.state, s.scratch)
    return s


def on_land(s, player: int, name: str, n: int) -> None:
    s.tok[player, land(name)] = n
    s.pl[player, P_SUPPLY] -= n


def on_char(s, player: int, name: str, n: int) -> None:
    s.tok[player, G.N_LANDS + char(name)] = n
    s.pl[player, P_SUPPLY] -= n


def full(s, name: str) -> None:
    """Fill a Land's empty cells with civilians, so nobody may give up its income for a token."""
    i = land(name)
    s.land[i, L_CIV] = s.land[i, L_SIZE] - s.land[i, L_SOL]


def income(s) -> None:
    G.income_phase(s.context, s.state, s.scratch)


def tax(s) -> None:
    G.tax_phase(s.context, s.state, s.scratch)


BLUE, RED, YELLOW = 0, 1, 2


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
    assert s.g[G.CONTESTED] == 1


def test_mood_minus_three_stops_all_income_and_plus_three_adds_a_coin():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    civilians = s.land[land("Golden Coast"), L_CIV]
    s.g[G.MOOD] = -3
    income(s)
    assert s.pl[BLUE, P_COINS] == 6
    s.g[G.MOOD] = 3
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + civilians + 1


def test_mood_minus_two_stops_income_where_soldiers_are_fewer_than_civilians():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    s.g[G.MOOD] = -2
    income(s)
    assert s.pl[BLUE, P_COINS] == 6  # Golden Coast: more civilians than soldiers
    s.ch[char("Matej the Verbose"), C_TRAITS] = 1 << G.T_DOMINEERING
    income(s)
    assert s.pl[BLUE, P_COINS] == 6 + s.land[land("Golden Coast"), L_CIV]


def test_mood_minus_two_still_pays_where_soldiers_equal_civilians():
    s = position(players=3)
    i = land("Black Harbour")
    s.land[i, L_SOL] = s.land[i, L_CIV] = s.land[i, L_SIZE] // 2  # full, no cell to give up
    head = s.g[G.HOLDERS + G.HEAD0 + i]
    if head >= 0:
        s.ch[head, C_TRAITS] = 0  # no Thrifty, Wasteful or Domineering
    on_land(s, BLUE, "Black Harbour", 1)
    s.g[G.MOOD] = -2
    before = s.pl[BLUE, P_COINS]
    income(s)
    # Civilians' income (soldiers are not fewer) plus Black Harbour's coin.
    assert s.pl[BLUE, P_COINS] == before + s.land[i, L_CIV] + 1


def test_black_harbour_pays_its_holder_one_more_coin_in_any_conditions():
    s = position(players=3)
    full(s, "Black Harbour")
    on_land(s, RED, "Black Harbour", 1)
    s.g[G.MOOD] = -3  # an uprising: no income from any Land, but the Harbour's coin comes
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
    costs = [int(G.merc_cost(s.state, q)) for q in (BLUE, RED, YELLOW)]
    assert costs == [2, 2, 3]


def test_an_uprising_sends_cowardly_characters_to_the_pool():
    s = position(players=3)
    thomas = char("Thomas the Firm")
    s.ch[thomas, C_TRAITS] |= 1 << 15  # Cowardly
    s.g[G.MOOD] = -2
    income(s)
    assert s.ch[thomas, C_SEAT] == G.HEAD0 + land("Valley of Arrows")
    s.g[G.MOOD] = -3
    income(s)
    assert s.ch[thomas, C_SEAT] == -1
    assert s.g[G.HOLDERS + G.HEAD0 + land("Valley of Arrows")] == -1


def test_a_mood_immune_land_pays_by_the_general_rules_in_an_uprising():
    s = _golden_coast(blue=(3, 2), red=(2, 2))
    civilians = s.land[land("Golden Coast"), L_CIV]
    s.land[land("Golden Coast"), L_EFFECT] = G.EFFECTS.index("mood_immune")
    s.g[G.MOOD] = -3
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
    assert s.g[G.TREASURY] == due


def test_a_land_whose_tax_cannot_be_paid_costs_a_token_on_the_land_and_one_on_its_head():
    s = position(players=3)
    s.pl[BLUE, P_COINS] = 0
    s.g[G.TO_BANK] += 6  # blue has spent its coins
    on_land(s, BLUE, "Brothers", 2)
    on_char(s, BLUE, "Irena the Tall", 1)
    tax(s)
    assert s.tok[BLUE, land("Brothers")] == 1
    assert s.tok[BLUE, G.N_LANDS + char("Irena the Tall")] == 0
    assert G.violations(s.state) == 0


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
    chars = [dict(c, seat=seats.get(c["name"], c["seat"])) for c in G.DEFAULT_CHARACTERS]
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
    s.g[G.REPRESENTATIVE] = -1  # the example leaves the Representative of Heads out
    n = G.acting_order(s.context, s.state, s.scratch)
    with_tokens = [int(c) for c in s.order[:n] if s.tok[:, G.N_LANDS + c].sum() > 0]
    assert [NAMES[c] for c in with_tokens] == [
        "Arthur the Handsome",
        "Josette the Fiery",
        "Irena the Tall",
        "Matej the Verbose",
        "Gunter the Fisherman",
    ]
    actors = [int(G.char_owner(s.state, c)) for c in with_tokens]
    assert actors == [BLUE, green, green, green, -1]  # Gunter is neutral


def test_fewer_tokens_counting_the_land_acts_first_when_all_else_is_equal():
    s = position(players=3)
    on_char(s, BLUE, "Irena the Tall", 2)
    on_char(s, RED, "Gunter the Fisherman", 2)
    on_land(s, RED, "Brown Plains", 1)
    s.g[G.REPRESENTATIVE] = -1
    n = G.acting_order(s.context, s.state, s.scratch)
    heads = [int(c) for c in s.order[:n] if s.tok[:, G.N_LANDS + c].sum() > 0]
    assert heads == [char("Irena the Tall"), char("Gunter the Fisherman")]


def test_representative_is_the_head_with_most_tokens_then_land_and_head():
    s = position(players=3)
    on_char(s, BLUE, "Irena the Tall", 2)
    on_char(s, RED, "Gunter the Fisherman", 2)
    on_land(s, RED, "Brown Plains", 1)
    G.choose_representative(s.context, s.state, s.scratch)
    assert s.g[G.REPRESENTATIVE] == char("Gunter the Fisherman")
    on_char(s, YELLOW, "Irena the Tall", 1)
    G.choose_representative(s.context, s.state, s.scratch)
    assert s.g[G.REPRESENTATIVE] == char("Irena the Tall")


def test_representative_ties_go_to_the_larger_land():
    s = position(players=3)  # nobody has tokens: every Head ties until Land size
    G.choose_representative(s.context, s.state, s.scratch)
    assert s.g[G.REPRESENTATIVE] == char("Thomas the Firm")  # Valley of Arrows, 8 cells


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
    s.g[G.REPRESENTATIVE] = char("Thomas the Firm")
    return s


MILITARY = G.CATEGORIES.index("military")


def test_military_mobilisation_fails_two_to_three_as_in_the_seed():
    s = _mobilisation_council()
    red, green, yellow = 0, 1, 2
    s.decl[:] = 0
    s.decl[0, red] = 1  # Edmar: red for
    s.decl[1, yellow] = -1  # Eliza: yellow against
    s.decl[2, green], s.decl[2, red] = 1, -1  # Mark: tied players disagree
    # ... and are advised: green once for (the Brothers), red and yellow once against each.
    s.decl[2, G.ADVICE_COLUMN] = 1 - 1 - 1
    s.decl[3, yellow], s.decl[3, green] = -1, -1  # Gustav: both against
    s.decl[4, red] = 1  # Thomas: red for
    yes = G.tally_council(s.state, MILITARY, s.scratch)
    assert yes == 2 and yes < s.p.council_votes  # 2 to 3: Edmar and Thomas for
    # Gustav is Warlike: each player who swayed him against a military law loses a token.
    gustav = G.N_LANDS + char("Gustav the Wise")
    assert s.tok[yellow, gustav] == 0 and s.tok[green, gustav] == 0
    # Had the advice on Mark gone the other way, his vote would have passed the law.
    s = _mobilisation_council()
    s.decl[:] = 0
    s.decl[0, red], s.decl[1, yellow], s.decl[4, red] = 1, -1, 1
    s.decl[2, green], s.decl[2, red], s.decl[2, G.ADVICE_COLUMN] = 1, -1, 1
    s.decl[3, yellow], s.decl[3, green] = -1, -1
    assert G.tally_council(s.state, MILITARY, s.scratch) == 3


def test_a_neutral_warlike_councillor_votes_for_when_its_players_disagree():
    s = _mobilisation_council()
    red, green, yellow = 0, 1, 2
    s.decl[:] = 0
    s.decl[0, red] = 1
    s.decl[1, yellow] = -1
    s.decl[3, yellow], s.decl[3, green] = -1, 1  # Gustav: the players disagree
    s.decl[4, red] = 1
    yes = G.tally_council(s.state, MILITARY, s.scratch)
    assert yes == 3
    gustav = G.N_LANDS + char("Gustav the Wise")
    assert s.tok[yellow, gustav] == 1 and s.tok[green, gustav] == 1


def test_voting_against_its_trait_costs_a_proud_character_two_tokens():
    s = position(players=3)
    on_char(s, BLUE, "Edmar the Dark", 3)  # Warlike and Proud
    s.decl[:] = 0
    s.decl[0, BLUE] = -1
    G.tally_council(s.state, MILITARY, s.scratch)
    assert s.tok[BLUE, G.N_LANDS + char("Edmar the Dark")] == 1


@pytest.mark.parametrize(
    ("category", "expected"),
    [("military", 2), ("religious", 1), ("social", 1), ("none", 0)],
)
def test_neutral_councillors_vote_by_their_traits_otherwise_abstain(category, expected):
    # Council: Edmar (warlike), Eliza (egoist), Mark (believer), Gustav (warlike, humane), and
    # Thomas (warlike) as Representative; nobody has tokens.
    s = position(players=3)
    s.g[G.REPRESENTATIVE] = char("Thomas the Firm")
    s.decl[:] = 0
    yes = G.tally_council(s.state, G.CATEGORIES.index(category), s.scratch)
    assert yes == expected + (1 if category == "military" else 0)


def test_council_election_needs_priority_on_all_five_councillors():
    s = position(players=3)
    s.g[G.REPRESENTATIVE] = char("Thomas the Firm")
    for name in (
        "Edmar the Dark",
        "Eliza of the Evening",
        "Mark the Broad-Shouldered",
        "Gustav the Wise",
    ):
        on_char(s, RED, name, 1)
    assert not G.check_election(s.state)
    on_char(s, RED, "Thomas the Firm", 1)
    assert G.check_election(s.state)
    assert s.g[G.VICTORY] == G.V_ELECTION and s.g[G.WINNERS] == 1 << RED


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
        yes = G.land_vote(s.context, s.state, BLUE, s.scratch)
        assert yes == 4
        assert s.g[G.GAP_COUNTS + G.GAP_FOUR_VOTES] == 1
        assert (yes >= s.g[G.REMOVE_VOTES]) == (needed == 4)


# --- Victory conditions ------------------------------------------------------------------------


def test_coup_needs_the_warlord_and_four_lands_with_soldiers_not_below_civilians():
    s = position(players=3)
    on_char(s, RED, "Edmar the Dark", 1)
    military = [i for i in range(7) if s.land[i, L_SOL] >= s.land[i, L_CIV]]
    assert len(military) == 4
    for i in military[:3]:
        on_land(s, RED, LANDS[i], 1)
    on_land(s, RED, "Golden Coast", 1)  # more civilians: does not count
    assert not G.check_victory(s.state)
    on_land(s, RED, LANDS[military[3]], 1)
    assert G.check_victory(s.state)
    assert s.g[G.VICTORY] == G.V_COUP and s.g[G.WINNERS] == 1 << RED


def test_will_of_the_people_counts_tokens_on_lands_not_on_their_heads():
    s = position(players=3)
    on_char(s, BLUE, "Gustav the Wise", 1)
    civil = [i for i in range(7) if s.land[i, L_SOL] <= s.land[i, L_CIV]]
    for i in civil[:3]:
        on_land(s, BLUE, LANDS[i], 1)
    head = int(s.g[G.HOLDERS + G.HEAD0 + civil[3]])
    s.tok[BLUE, G.N_LANDS + head] = 5  # priority on the Head is not priority on the Land
    assert not G.check_victory(s.state)
    on_land(s, BLUE, LANDS[civil[3]], 1)
    assert G.check_victory(s.state)
    assert s.g[G.VICTORY] == G.V_WILL


def test_hand_of_order_goes_to_most_tokens_on_the_council_then_on_all_characters():
    s = position(players=3)
    on_char(s, BLUE, "Edmar the Dark", 2)
    on_char(s, RED, "Eliza of the Evening", 2)
    on_char(s, RED, "Vera the Silent", 1)
    s.g[G.KILLED] = 4
    G.hand_of_order(s.context, s.state, s.scratch)
    assert s.g[G.VICTORY] == G.V_HAND and s.g[G.WINNERS] == 1 << RED


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


# --- Mercenaries (the rulebook's interaction table) -----------------------------------------------
# Each owner may keep a card hidden, so these play the reveal step on many streams and check every
# stream on which the card of interest was revealed.


def place(s, k: int, kind: int, owner: int, target: str, bribe: bool = False) -> None:
    """A face-down card k placed last turn, carrying one of its owner's tokens."""
    s.card[k] = (kind, owner, char(target), 2, int(bribe), 0)
    s.pl[owner, P_SUPPLY] -= 1


def reveal(s) -> None:
    s.g[G.TURN] = 1
    G.reveal_step(s.context, s.state, s.scratch)
    assert G.violations(s.state) == 0


def streams(build, played: int, n: int = 48):
    """Positions after the reveal step on n streams, keeping those where ``played`` was revealed."""
    out = []
    for seed in range(n):
        s = build()
        s.context[0] = np.uint64(1000 + seed)
        reveal(s)
        if s.g[G.PLAYED + played] > 0:
            out.append(s)
    assert out, "the card was never revealed"
    return out


def test_a_spy_exposing_an_assassin_strips_its_sender():
    def build():
        s = position(players=3)
        on_char(s, RED, "Edmar the Dark", 3)
        on_char(s, RED, "Gunter the Fisherman", 1)  # Peaceful, Humane
        on_char(s, RED, "Mark the Broad-Shouldered", 1)  # Believer
        on_char(s, RED, "Matej the Verbose", 1)  # none of the three
        place(s, 0, G.SPY, BLUE, "Irena the Tall")
        place(s, 1, G.ASSASSIN, RED, "Edmar the Dark")
        return s

    for s in streams(build, G.SPY):
        col = G.N_LANDS
        assert s.tok[RED, col + char("Edmar the Dark")] == 0
        assert s.tok[RED, col + char("Gunter the Fisherman")] == 0
        assert s.tok[RED, col + char("Mark the Broad-Shouldered")] == 0
        assert s.tok[RED, col + char("Matej the Verbose")] == 1
        assert s.g[G.KILLED] == 0 and (s.card[:2, K_STATUS] == 0).all()


def test_an_assassin_kills_unless_a_guard_answers():
    def build():
        s = position(players=3)
        on_char(s, BLUE, "Edmar the Dark", 2)
        for name in ("Gunter the Fisherman", "Mark the Broad-Shouldered", "Matej the Verbose"):
            on_char(s, RED, name, 1)
        place(s, 0, G.ASSASSIN, RED, "Edmar the Dark")
        place(s, 1, G.GUARD, BLUE, "Edmar the Dark")
        return s

    outcomes = set()
    for s in streams(build, G.ASSASSIN):
        edmar = char("Edmar the Dark")
        if s.g[G.PLAYED + G.GUARD] == 1:
            outcomes.add("guarded")
            assert s.tok[BLUE, G.N_LANDS + edmar] == 4  # the Guard's owner puts 2 tokens on it
            assert s.tok[RED, G.N_LANDS :].sum() == 0  # 1 token off 3 Characters
            assert s.ch[edmar, C_SEAT] == G.WARLORD
        else:
            outcomes.add("killed")
            assert s.ch[edmar, C_SEAT] == -2 and s.g[G.KILLED] == 1
            assert s.g[G.HOLDERS + G.WARLORD] == -1
            assert s.tok[:, G.N_LANDS + edmar].sum() == 0
            assert (s.card[:2, K_STATUS] == 0).all()  # the Guard on him is discarded too
    assert outcomes == {"guarded", "killed"}


def test_a_thief_exposing_a_gift_takes_the_messenger_into_its_hand():
    def build():
        s = position(players=3)
        place(s, 0, G.THIEF, BLUE, "Irena the Tall")
        place(s, 1, G.MESSENGER, RED, "Edmar the Dark")
        return s

    for s in streams(build, G.THIEF):
        assert s.card[0, K_STATUS] == 0
        assert s.card[1, K_STATUS] == 1 and s.card[1, K_OWNER] == BLUE
        assert s.pl[RED, P_SUPPLY] == s.p.tokens_per_player


def test_a_gift_puts_two_tokens_on_a_collector():
    def build():
        s = position(players=3)
        place(s, 0, G.MESSENGER, RED, "Matej the Verbose")  # a Collector
        return s

    for s in streams(build, G.MESSENGER):
        assert s.tok[RED, G.N_LANDS + char("Matej the Verbose")] == 2


def test_a_spy_exposing_a_bribe_costs_its_sender_a_token_on_the_target_and_each_incorruptible():
    def build():
        s = position(players=3)
        on_char(s, RED, "Edmar the Dark", 2)
        on_char(s, RED, "Vera the Silent", 1)  # Incorruptible
        place(s, 0, G.SPY, BLUE, "Irena the Tall")
        place(s, 1, G.MESSENGER, RED, "Edmar the Dark", bribe=True)
        return s

    for s in streams(build, G.SPY):
        assert s.tok[RED, G.N_LANDS + char("Edmar the Dark")] == 1
        assert s.tok[RED, G.N_LANDS + char("Vera the Silent")] == 0


# --- Invariants --------------------------------------------------------------------------------


@pytest.mark.parametrize("policies", ["random", ["greedy", "random", "greedy", "random"]])
def test_tokens_coins_population_and_seats_stay_consistent_over_thousands_of_games(policies):
    p = PROC.params_model(policies=policies)
    n = 3000 if policies == "random" else 1000
    assert G.invariant_violations(G.pack(p), scenario_key(77), 0, n) == 0


def test_the_invariant_audit_catches_a_token_out_of_nowhere():
    s = position(players=3)
    assert G.violations(s.state) == 0
    s.tok[RED, land("Zalesye")] += 1  # not taken from the supply
    assert G.violations(s.state) == 1
    s.pl[BLUE, P_COINS] += 2  # coins from nowhere
    assert G.violations(s.state) == 2


def test_without_mercenaries_nobody_is_killed_and_no_card_is_played():
    p = PROC.params_model(mercenaries=False, max_turns=15)
    plan = make_plan(PROC, {"base": p}, seed=3)
    stats = run_range(plan, -1, 0, 300)
    for m, metric in enumerate(plan.metrics):
        if metric.name.startswith("mercenaries_played") or metric.name in (
            "characters_killed",
            "victory.hand_of_order",
        ):
            assert stats[0, 4 * m + 1] == 0, metric.name


# --- Kernel against the plain-Python twin ------------------------------------------------------


def _cowardly_characters() -> list[dict]:
    chars = [dict(c) for c in G.DEFAULT_CHARACTERS]
    for i in (1, 5, 8):
        chars[i]["traits"] = [*chars[i]["traits"], "cowardly"]
    return chars


def _far_garrison() -> list[dict]:
    lands = [dict(x) for x in G.DEFAULT_LANDS]
    lands[6] = {
        "name": "Far Garrison",
        "size": 6,
        "civilians": 2,
        "soldiers": 3,
        "power": "the mood does not touch it",
        "effect": "mood_immune",
    }
    return lands


@pytest.mark.parametrize(
    ("raw", "n"),
    [
        ({}, 100),
        ({"policies": ["greedy", "greedy", "random", "greedy"], "max_turns": 15}, 30),
        ({"players": 3, "mood_start": -2, "start_tokens": 5, "max_turns": 25}, 60),
        ({"players": 6, "policies": ["greedy"] * 6, "max_turns": 8}, 16),
        ({"mood_start": -3, "characters": "cowardly", "lands": "garrison", "max_turns": 20}, 40),
    ],
)
def test_kernel_equals_plain_python_twin(raw, n):
    if raw.get("characters") == "cowardly":
        raw = {**raw, "characters": _cowardly_characters(), "lands": _far_garrison()}
        raw["characters"][10]["seat"] = "Far Garrison"
    base = PROC.params_model.model_validate(raw)
    other = PROC.params_model.model_validate({**raw, "remove_councillor_votes": 4, "tax_rate": 2.0})
    variants = {"base": base, "four-of-seven": other}
    plan = make_plan(PROC, variants, seed=2002)
    key = int(scenario_key(2002))
    first = 500
    got = run_range(plan, -1, first, n)
    twin = [
        [naive_council.play(v.model_dump(), key, t) for t in range(first, first + n)]
        for v in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


def test_the_twin_and_the_kernel_end_a_game_in_the_same_position():
    p = PROC.params_model(policies=["greedy", "random", "random", "greedy"])
    key = int(scenario_key(11))
    for trial in range(20):
        game = naive_council.play_game(p.model_dump(), key, trial)
        assert game.values() == G.play_one(p, key, trial)
        assert all(x >= 0 for x in game.coins) and game.treasury >= 0


# --- Inconsistent data ----------------------------------------------------------------------------


def _lands(**change):
    lands = [dict(x) for x in G.DEFAULT_LANDS]
    lands[2].update(change)
    return lands


def test_a_land_with_more_population_than_cells_is_rejected_naming_it():
    with pytest.raises(ValidationError) as err:
        PROC.params_model(lands=_lands(civilians=5, soldiers=3))
    e = err.value.errors()[0]
    assert e["loc"] == ("lands", 2, "soldiers")
    assert "must be at most size (6)" in e["msg"]


def test_an_unknown_trait_is_rejected_naming_the_character():
    chars = [dict(c) for c in G.DEFAULT_CHARACTERS]
    chars[4]["traits"] = ["thrifty", "sneaky"]
    with pytest.raises(ValidationError) as err:
        PROC.params_model(characters=chars)
    e = err.value.errors()[0]
    assert e["loc"] == ("characters", 4, "traits")
    assert "unknown trait 'sneaky'" in e["msg"]


def test_fewer_than_seven_lands_are_rejected():
    with pytest.raises(ValidationError) as err:
        PROC.params_model(lands=G.DEFAULT_LANDS[:6])
    e = err.value.errors()[0]
    assert e["loc"] == ("lands",)
    assert "exactly 7 Lands, got 6" in e["msg"]


def test_two_characters_in_one_seat_are_rejected():
    chars = [dict(c) for c in G.DEFAULT_CHARACTERS]
    chars[1]["seat"] = "warlord"
    with pytest.raises(ValidationError) as err:
        PROC.params_model(characters=chars)
    assert err.value.errors()[0]["loc"] == ("characters",)
    assert "both start in seat 'warlord'" in err.value.errors()[0]["msg"]


def test_metric_names_cover_seats_victories_mercenaries_and_gaps():
    names = PROC.metric_names(PROC.params_model(players=5))
    assert names[:5] == [f"wins.seat{k}" for k in range(1, 6)]
    for v in ("election", "coup", "will_of_people", "hand_of_order", "draw"):
        assert f"victory.{v}" in names
    assert "length" in names and "decided_at" in names and "contested_lands" in names
    assert "mercenaries_played.assassin" in names and "gap.removal_four_votes" in names
    assert len(names) == len(PROC.metrics(PROC.params_model(players=5)))


@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_metric_row_is_written_by_the_names_of_metrics(players):
    """game_values writes by name into params.METRICS; the slot reported as metric k is named as
    metric k (wins[i] for wins.seat<i+1>, '_' for '.')."""
    names = [m.name for m in PROC.metrics(PROC.params_model(players=players))]
    slots = G.METRICS.slots()
    for k, name in enumerate(names):
        slot = slots[G.metric_slot(k, players)]
        expected = f"wins[{k}]" if name.startswith("wins.seat") else name.replace(".", "_")
        assert slot == expected
    assert len(slots) == G.MAX_PLAYERS + len(names) - players


def test_the_position_is_one_flat_array_of_declared_pieces():
    s = position(players=4)
    assert s.state.shape == (G.POSITION.size,) and s.state.dtype == np.int64
    assert G.POSITION.at("tokens") == G.TOKENS and G.POSITION.size == G.POSITION_SIZE
    on_land(s, BLUE, "Zalesye", 2)  # the table views write the flat array
    assert s.state[G.TOKENS + BLUE * G.N_COL + land("Zalesye")] == 2
    assert s.state[G.SUPPLY + BLUE] == s.p.tokens_per_player - 2


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (
            "{name: Brown Plains, size: 6, civilians: 4, soldiers: 1,",
            "{name: Brown Plains, size: 6, civilians: 4, soldiers: 3,",
            "params.lands[2].soldiers",
        ),
        (
            "traits: [thrifty, collector]",
            "traits: [thrifty, sneaky]",
            "params.characters[4].traits",
        ),
    ],
)
def test_sim_validate_exits_2_naming_the_inconsistent_entry(tmp_path, old, new, where):
    from pathlib import Path

    from typer.testing import CliRunner

    from simulator.cli import app

    text = (Path(__file__).resolve().parents[1] / "scenarios/council/game.yaml").read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new))
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    line = next(i for i, s in enumerate(text.splitlines(), 1) if old in s)
    assert f"bad.yaml:{line}:" in result.output and where in result.output
