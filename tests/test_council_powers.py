"""The council game's rules from the third reading (issue 27, items 15-17), on hand-built kernel
positions: the Valley of Arrows (the Warlord sets the tax) and the Brown Plains (a law ignored),
the traits Bribable, Greedy, Cautious, Traveller, Homebody and Fanatic, the Spy and Thief's
priority in a reveal window, reveal windows at every phase, and advice by players without
priority; each against its alternative reading, and the kernel against its plain twin."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.engine import make_plan, run_range
from simulator.procedures.council.game.kernel import play_one
from simulator.procedures.council.game.mercenaries import reveal_step
from simulator.procedures.council.game.params import (
    ASSASSIN,
    DEFAULT_LAWS,
    GAP_ADVICE_TIE,
    HEAD0,
    MESSENGER,
    N_CHARS,
    N_LANDS,
    SPY,
    T_CAUTIOUS,
    T_FANATIC,
    T_HOMEBODY,
    T_TRAVELLER,
    THIEF,
)
from simulator.procedures.council.game.state import (
    ADVICE_COLUMN,
    ADVICE_NO_PRIORITY,
    GAP_COUNTS,
    IGNORED_LAW,
    PLAYED,
    TAX_DELTA,
    TO_BANK,
    TURN,
    vacate,
)
from simulator.procedures.council.game.votes import advise, fill_vacancies, pass_law
from simulator.rng import scenario_key
from tests import naive_council
from tests.council_positions import (
    BLUE,
    C_SEAT,
    C_TRAITS,
    K_STATUS,
    L_CIV,
    L_EFFECT,
    P_COINS,
    PROC,
    RED,
    YELLOW,
    char,
    land,
    on_char,
    on_land,
    place,
    position,
    streams,
    tax,
)

VALLEY, PLAINS = "Valley of Arrows", "Brown Plains"
WARLORD = "Edmar the Dark"


def _col(name: str) -> int:
    return N_LANDS + char(name)


def trait(s, name: str, *traits: int) -> None:
    """Give Character ``name`` exactly these traits."""
    s.ch[char(name), C_TRAITS] = sum(1 << t for t in traits)


# --- The Valley of Arrows (Land cards: "the Warlord personally sets the tax on this Land") -------


@pytest.mark.parametrize(
    ("valley_holder", "warlord_holder", "due"),
    [(BLUE, BLUE, 1), (BLUE, RED, 3), (BLUE, None, 1)],
)
def test_the_warlords_player_sets_the_valleys_tax(valley_holder, warlord_holder, due):
    s = position(players=3, policies="greedy")
    for p in range(3):
        s.pl[p, P_COINS] = 10
    on_land(s, valley_holder, VALLEY, 1)
    if warlord_holder is not None:
        on_char(s, warlord_holder, WARLORD, 1)
    tax(s)
    # greedy: the lowest tax on itself, the highest on a rival; nobody on the Warlord: the law's
    # rate (1.5 for one Land, rounded down)
    assert s.pl[valley_holder, P_COINS] == 10 - due


def test_the_valleys_tax_counts_in_its_holders_total_and_overrides_the_laws():
    s = position(players=3, policies="greedy")
    s.pl[BLUE, P_COINS] = 10
    s.g[TAX_DELTA] = 2  # laws in force add a coin a Land
    on_land(s, BLUE, VALLEY, 1)
    on_land(s, BLUE, "Zalesye", 1)
    on_char(s, BLUE, WARLORD, 1)
    tax(s)
    assert s.pl[BLUE, P_COINS] == 10 - (2 + 5) // 2  # 1 coin (2 halves) + 2.5 coins (5)


def test_without_the_power_the_valley_pays_the_laws_rate():
    s = position(players=3, policies="greedy")
    s.land[land(VALLEY), L_EFFECT] = 0
    s.pl[BLUE, P_COINS] = 10
    on_land(s, BLUE, VALLEY, 1)
    on_char(s, RED, WARLORD, 1)
    tax(s)
    assert s.pl[BLUE, P_COINS] == 9


# --- The Brown Plains (Land cards: "one of the laws in force does not apply to this Land") -------


def _pass(s, i: int) -> None:
    pass_law(s.context, s.state, i, np.int64(-1), s.scratch)


def test_the_brown_plains_player_ignores_a_tax_law_there_and_pays_the_old_rate():
    s = position(players=3, policies="greedy", start_treasury=20)
    levy = [law["name"] for law in DEFAULT_LAWS].index("Border levy")  # +0.5 a Land
    on_land(s, BLUE, PLAINS, 1)
    on_land(s, RED, "Zalesye", 1)
    _pass(s, levy)
    assert s.g[IGNORED_LAW] == levy  # greedy ignores the law that raises its tax
    s.pl[BLUE, P_COINS] = s.pl[RED, P_COINS] = 10
    tax(s)
    assert s.pl[BLUE, P_COINS] == 9  # 1.5 rounded down
    assert s.pl[RED, P_COINS] == 8  # 2 coins: the levy applies on Zalesye


def test_an_ignored_militarising_law_leaves_the_brown_plains_population():
    mobilisation = [law["name"] for law in DEFAULT_LAWS].index("Military mobilisation")
    outcomes = set()
    for seed in range(24):
        s = position(players=3, start_treasury=20)
        s.context[0] = np.uint64(500 + seed)
        on_land(s, BLUE, PLAINS, 1)
        before = s.land[land(PLAINS), L_CIV], s.land[land("Zalesye"), L_CIV]
        _pass(s, mobilisation)
        ignored = s.g[IGNORED_LAW] == mobilisation
        outcomes.add(bool(ignored))
        assert s.land[land(PLAINS), L_CIV] == before[0] - (0 if ignored else 1)
        assert s.land[land("Zalesye"), L_CIV] == before[1] - 1
    assert outcomes == {True, False}  # a random player chooses either way


def test_a_law_replaced_is_ignored_no_more():
    s = position(players=3, policies="greedy", start_treasury=40)
    names = [law["name"] for law in DEFAULT_LAWS]
    on_land(s, BLUE, PLAINS, 1)
    _pass(s, names.index("Border levy"))
    assert s.g[IGNORED_LAW] == names.index("Border levy")
    slot = s.law[names.index("Border levy"), 5]
    pass_law(s.context, s.state, 3, np.int64(slot), s.scratch)  # replaces it
    assert s.g[IGNORED_LAW] in (-1, 3)


# --- Traits (Character traits 7, 8, 12, 13, 14, 19) ------------------------------------------


def test_a_spy_exposing_a_bribe_on_a_bribable_leaves_the_bribers_token():
    arthur = "Arthur the Handsome"  # Bribable

    def build():
        s = position(players=3)
        on_char(s, RED, arthur, 2)
        on_char(s, RED, "Vera the Silent", 1)  # Incorruptible: still pays
        place(s, 0, SPY, BLUE, "Irena the Tall")
        place(s, 1, MESSENGER, RED, arthur, bribe=True)
        return s

    for s in streams(build, SPY):
        assert s.tok[RED, _col(arthur)] == 2
        assert s.tok[RED, _col("Vera the Silent")] == 0


@pytest.mark.parametrize("rule", ["briber_pays", "holder_gains"])
def test_a_bribe_to_a_greedy_character_brings_one_coin(rule):
    eliza = "Eliza of the Evening"  # Greedy

    def build():
        s = position(players=3, greedy_bribe=rule)
        on_char(s, BLUE, eliza, 2)
        s.pl[RED, P_COINS] = 1
        s.g[TO_BANK] += 5  # Red has spent the rest
        place(s, 0, MESSENGER, RED, eliza, bribe=True)
        return s

    for s in streams(build, MESSENGER):
        assert s.tok[RED, _col(eliza)] == 1
        if rule == "briber_pays":
            assert s.pl[RED, P_COINS] == 0 and s.pl[BLUE, P_COINS] == 6
        else:
            assert s.pl[RED, P_COINS] == 1 and s.pl[BLUE, P_COINS] == 7


def test_a_briber_without_the_greedy_characters_coin_waits():
    s = position(players=3, policies="greedy")
    s.pl[RED, P_COINS] = 0
    place(s, 0, MESSENGER, RED, "Eliza of the Evening", bribe=True)
    s.g[TURN] = 1
    reveal_step(s.context, s.state, s.scratch)
    assert s.card[0, K_STATUS] == 2 and s.g[PLAYED + MESSENGER] == 0


@pytest.mark.parametrize(("kind", "lost"), [("bribe", 1), ("thief", 1), ("assassin", 2)])
def test_an_exposed_bribe_thief_or_assassin_costs_tokens_on_every_cautious_character(kind, lost):
    cautious = "Matej the Verbose"

    def build():
        s = position(players=3)
        trait(s, cautious, T_CAUTIOUS)
        on_char(s, RED, cautious, 3)
        on_char(s, RED, "Irena the Tall", 3)
        place(s, 0, SPY, BLUE, "Gunter the Fisherman")
        if kind == "bribe":
            place(s, 1, MESSENGER, RED, "Irena the Tall", bribe=True)
        else:
            place(s, 1, THIEF if kind == "thief" else ASSASSIN, RED, "Irena the Tall")
        return s

    played = [PLAYED + k for k in (MESSENGER, THIEF, ASSASSIN)]
    exposed = [s for s in streams(build, SPY) if (s.g[played] == 0).all()]
    assert exposed  # the Spy revealed Red's card before Red did
    for s in exposed:
        assert s.tok[RED, _col(cautious)] == 3 - lost


@pytest.mark.parametrize("transfer", ["other_land", "never"])
@pytest.mark.parametrize(("kind", "change"), [(T_TRAVELLER, 1), (T_HOMEBODY, -1)])
def test_the_player_who_moves_a_traveller_or_homebody_to_another_land_gains_or_loses_a_token(
    transfer, kind, change
):
    s = position(players=3, policies="greedy", transfer=transfer)
    gustav = "Gustav the Wise"  # the Privy Councillor: BLUE appoints
    on_char(s, BLUE, gustav, 1)
    vera = char("Vera the Silent")  # the Head of Zalesye, sent to the pool
    trait(s, "Vera the Silent", kind)
    on_char(s, BLUE, "Vera the Silent", 1)
    vacate(s.state, vera)
    for c in range(N_CHARS):  # Vera alone in the pool
        if s.ch[c, C_SEAT] == -1 and c != vera:
            s.ch[c, C_SEAT] = -2
    thomas = char("Thomas the Firm")
    vacate(s.state, thomas)  # the Valley's Head leaves too: Vera goes there
    s.ch[thomas, C_SEAT] = -2
    fill_vacancies(s.context, s.state, s.scratch, True)
    assert s.ch[vera, C_SEAT] in (HEAD0 + land("Zalesye"), HEAD0 + land(VALLEY))
    moved = s.ch[vera, C_SEAT] == HEAD0 + land(VALLEY)
    expected = 1 + (change if moved and transfer == "other_land" else 0)
    assert s.tok[BLUE, N_LANDS + vera] == expected


def test_a_gift_to_an_atheist_costs_a_token_on_every_fanatic():
    josette = "Josette the Fiery"  # Atheist

    def build():
        s = position(players=3)
        trait(s, "Irena the Tall", T_FANATIC)
        on_char(s, RED, "Irena the Tall", 2)
        place(s, 0, MESSENGER, RED, josette)
        return s

    for s in streams(build, MESSENGER):
        assert s.tok[RED, _col("Irena the Tall")] == 1
        assert s.tok[RED, _col(josette)] >= 1


# --- Reveal windows and the Spy/Thief priority (Mercenary cards) -----------------------------


@pytest.mark.parametrize("first", [True, False])
def test_a_spy_goes_before_the_card_it_could_check(first):
    """A greedy owner reveals its gift whenever offered: only a Spy offered first finds it."""
    found = 0
    for seed in range(24):
        s = position(players=3, policies="greedy", spy_thief_first=first)
        s.context[0] = np.uint64(900 + seed)
        place(s, 0, MESSENGER, RED, "Irena the Tall")
        place(s, 1, SPY, BLUE, "Gunter the Fisherman")
        s.g[TURN] = 1
        reveal_step(s.context, s.state, s.scratch)
        found += s.g[PLAYED + SPY]
    assert (found > 0) == first


def _runs(n: int = 60, **params) -> dict[str, float]:
    p = PROC.params_model(players=4, **params)
    plan = make_plan(PROC, {"base": p}, seed=11)
    stats = run_range(plan, -1, 0, n)
    names = [m.name for m in plan.metrics]
    return {name: stats[0, 4 * i + 1] for i, name in enumerate(names)}


def test_cards_are_revealed_between_phases_only_under_phase_windows():
    assert _runs(reveal_windows="phase")["phase_reveals"] > 0
    assert _runs(reveal_windows="turn")["phase_reveals"] == 0


# --- Advice by players without priority (Voting) ----------------------------------------------


@pytest.mark.parametrize("advice_by", ["influence", "priority"])
def test_a_player_without_priority_advises_when_the_heads_player_passes(advice_by):
    s = position(players=3, policies="greedy", advice_by=advice_by)
    irena = "Irena the Tall"
    s.land[land("Brothers"), L_EFFECT] = 0  # advice through Irena costs a token
    on_char(s, BLUE, "Mark the Broad-Shouldered", 1)  # Mark neutral
    on_char(s, RED, "Mark the Broad-Shouldered", 1)
    on_char(s, BLUE, irena, 2)  # Blue would lose its priority on Irena by advising
    on_char(s, RED, irena, 1)
    s.decl[:] = 0
    s.decl[2, BLUE], s.decl[2, RED] = 1, -1
    advise(s.context, s.state, YELLOW, s.scratch)
    if advice_by == "influence":
        assert s.decl[2, ADVICE_COLUMN] == -1 and s.tok[RED, _col(irena)] == 0
        assert s.g[ADVICE_NO_PRIORITY] == 1
    else:
        assert s.decl[2, ADVICE_COLUMN] == 0 and s.tok[RED, _col(irena)] == 1
    assert s.tok[BLUE, _col(irena)] == 2


def test_players_tied_next_in_line_leave_the_head_silent():
    s = position(players=3, policies="greedy")
    irena = "Irena the Tall"
    on_char(s, BLUE, "Mark the Broad-Shouldered", 1)
    on_char(s, RED, "Mark the Broad-Shouldered", 1)
    on_char(s, BLUE, irena, 1)  # Irena neutral: Blue and Red tied on her and on the Brothers
    on_char(s, RED, irena, 1)
    s.decl[:] = 0
    s.decl[2, BLUE], s.decl[2, RED] = 1, -1
    advise(s.context, s.state, YELLOW, s.scratch)
    assert s.g[GAP_COUNTS + GAP_ADVICE_TIE] == 1
    assert s.decl[2, ADVICE_COLUMN] == 0


# --- The kernel and its twin under each new reading ---------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"policies": "random"},
        {"policies": "greedy"},
        {"policies": "random", "greedy_bribe": "holder_gains", "advice_by": "priority"},
        {"policies": "random", "reveal_windows": "turn", "spy_thief_first": False},
        {"policies": "random", "transfer": "never", "players": 5},
    ],
)
def test_kernel_equals_twin_under_each_new_reading(raw):
    p = PROC.params_model(players=raw.pop("players", 4), **raw)
    key = int(scenario_key(23))
    kernel = [play_one(p, key, t) for t in range(30)]
    twin = [naive_council.play(p.model_dump(), key, t) for t in range(30)]
    assert kernel == twin
