"""The council game's setup and the readings of issue 27 (items 12-14, 17): the setup placement
order (an invented setup: the Council rules lay out the cards and say nothing more), a Head with no
token tipped like a tied one (Council rules §3), the caps on tips and bribes, the turn limit and the
counters of the cases where these choices decide; each pinned on the kernel and on its twin."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from simulator.engine import make_plan, run_range
from simulator.procedures.council.game import ASSUMPTIONS
from simulator.procedures.council.game.actions import actions_phase
from simulator.procedures.council.game.kernel import play_one
from simulator.procedures.council.game.params import MAX_PLAYERS, N_LANDS, SETUP_ORDERS
from simulator.procedures.council.game.setup import placement_order, placer
from simulator.procedures.council.game.state import EMPTY_CHANCES
from simulator.rng import scenario_key
from tests import naive_council
from tests.council_positions import BLUE, PROC, RED, char, land, on_char, on_land, position
from tests.naive import Stream

ORDERS = {
    # who places each of the 3 start tokens of 4 players, in turn
    "fixed": [0, 1, 2, 3] * 3,
    "rotating": [0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1],
    "snake": [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3],
}


def _twin(**params) -> naive_council.Game:
    p = PROC.params_model(**params).model_dump()
    return naive_council.Game(p, Stream(int(scenario_key(7)), 3))


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_each_setup_order_places_the_start_tokens_in_its_sequence(order):
    game = _twin(setup_order=order)
    game.n = 4
    assert game.placements() == ORDERS[order]


def test_the_kernel_places_in_the_twins_sequence_for_every_order():
    seats = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for how, order in enumerate(SETUP_ORDERS):
        st = np.array([99] + [0] * 15, dtype=np.uint64)
        placement_order(st, np.int64(4), np.int64(how), seats)
        got = [int(placer(seats, 4, how, r, k)) for r in range(3) for k in range(4)]
        if order in ORDERS:
            assert got == ORDERS[order], order
            assert st[0] == 99, "a fixed order reads no word of the stream"
        else:
            twin = _twin(setup_order="random")
            twin.n = 4
            twin.stream.state = 99  # the same stream word as the kernel's
            assert got == twin.placements()
            assert st[0] != 99


def test_the_random_order_is_one_order_of_all_seats_drawn_from_the_game_and_favours_no_seat():
    first: Counter[int] = Counter()
    n = 4000
    for t in range(n):
        game = naive_council.Game(PROC.params_model().model_dump(), Stream(5, t))
        game.n = 4
        seq = game.placements()
        assert sorted(seq[:4]) == [0, 1, 2, 3] and seq[4:8] == seq[:4]
        first[seq[0]] += 1
    # Each seat places first in a quarter of the games: within 5 standard errors (27.4 games).
    for seat in range(4):
        assert abs(first[seat] - n / 4) < 5 * (n * 0.25 * 0.75) ** 0.5, first


def test_the_setup_is_declared_invented_with_its_alternatives():
    by_name = {a.name: a for a in ASSUMPTIONS}
    setup = by_name["setup_order"]
    assert setup.tag == "invented"
    others = {a.overrides["setup_order"] for a in setup.alternatives}
    assert others == {"fixed", "rotating", "snake"}
    for name in ("start_tokens", "start_coins", "max_turns"):
        assert by_name[name].tag == "invented"
    assert PROC.params_model().setup_order == "random"
    for a in ASSUMPTIONS:  # every alternative is a valid parameter set
        for alt in a.alternatives:
            PROC.params_model(**alt.overrides)
    assert PROC.fires["tip_empty_heads"] == ("empty_head_chances",)


# --- A Head with no token on it (Council rules §3; Sapphire Lakes: no tokens is neutral) --------


def _empty_head(**params):
    """Josette (Head of the Sapphire Lakes) with no token on her; Blue has 2 on her Land."""
    s = position(players=3, policies="greedy", **params)
    on_land(s, BLUE, "Sapphire Lakes", 2)
    on_char(s, RED, "Edmar the Dark", 1)  # someone acts on the Council, so the phase runs
    return s


def _act(s):
    actions_phase(s.context, s.state, s.scratch, )  # fmt: skip


@pytest.mark.parametrize("tippable", [True, False])
def test_a_head_with_no_token_is_tipped_by_a_player_discarding_from_its_land(tippable):
    s = _empty_head(tip_empty_heads=tippable)
    josette = char("Josette the Fiery")
    assert s.tok[:, N_LANDS + josette].sum() == 0
    _act(s)
    sapphire = land("Sapphire Lakes")
    # Counted under either reading (the Bishop's blessing may give another Head's Land a token).
    assert s.g[EMPTY_CHANCES] >= 1
    # Greedy discards 1 token to tip her (rulebook), none when she cannot be tipped.
    assert s.tok[BLUE, sapphire] == (1 if tippable else 2)


def test_the_tip_cap_bounds_a_random_players_discard():
    worst = {}
    for cap in (None, 2):
        most = 0
        for seed in range(60):
            # Only Josette can act, and no action of hers costs a Land token (no advice, no
            # Mercenaries): what Blue loses from her Land is the tip.
            s = position(players=3, tip_cap=cap, advice=False, mercenaries=False)
            on_land(s, BLUE, "Sapphire Lakes", 5)
            s.context[0] = np.uint64(500 + seed)
            _act(s)
            most = max(most, 5 - int(s.tok[BLUE, land("Sapphire Lakes")]))
        worst[cap] = most
    assert worst[2] == 2 and worst[None] == 5


# --- The kernel and the twin under each reading ---------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"setup_order": "snake", "policies": "greedy", "max_turns": 12},
        {"setup_order": "rotating", "max_turns": 12, "tip_cap": 2, "bribe_cap": 2},
        {"setup_order": "fixed", "tip_empty_heads": False, "max_turns": 12},
    ],
)
def test_kernel_equals_twin_under_each_setup_and_reading(raw):
    p = PROC.params_model(**raw)
    plan = make_plan(PROC, {"base": p}, seed=27)
    key = int(scenario_key(27))
    got = [play_one(p, key, t) for t in range(20)]
    twin = [naive_council.play(p.model_dump(), key, t) for t in range(20)]
    assert got == twin
    assert [m.name for m in plan.metrics][-6:] == [
        "cut_by_turn_limit",
        "phase_reveals",
        "advice_without_priority",
        "spending_ties",
        "vacant_heads",
        "cowardly_left",
    ]


def test_an_empty_head_changes_a_game_only_where_the_case_arose():
    names = PROC.metric_names(PROC.params_model())
    chances = names.index("empty_head_chances")
    key = int(scenario_key(31))
    arose = 0
    for t in range(60):
        on = play_one(PROC.params_model(max_turns=10), key, t)
        off = play_one(PROC.params_model(max_turns=10, tip_empty_heads=False), key, t)
        # The games agree up to the first time the case arises, which both count.
        assert (on[chances] == 0) == (off[chances] == 0)
        if on[chances] == 0:
            assert on == off, f"trial {t}: the games differ though the case never arose"
        arose += on[chances] > 0
    assert arose > 0


def test_every_draw_is_either_stalled_or_cut_by_the_turn_limit():
    p = PROC.params_model(max_turns=6)
    plan = make_plan(PROC, {"base": p}, seed=9)
    stats = run_range(plan, -1, 0, 100)
    names = [m.name for m in plan.metrics]

    def total(name):
        return stats[0, 4 * names.index(name) + 1]

    assert total("draws") == total("cut_by_turn_limit") + total("gap.stalled_draw")
    assert total("cut_by_turn_limit") > 0
