"""The council game's Mercenaries on hand-built positions (the rulebook's interaction table): each
owner may keep a card hidden, so these play the reveal step on many streams and check every stream
on which the card of interest was revealed."""

from __future__ import annotations

from simulator.procedures.council.game.params import (
    ASSASSIN,
    GUARD,
    MESSENGER,
    N_LANDS,
    SPY,
    THIEF,
    WARLORD,
)
from simulator.procedures.council.game.state import HOLDERS, KILLED, PLAYED
from tests.council_positions import (
    BLUE,
    C_SEAT,
    K_OWNER,
    K_STATUS,
    P_SUPPLY,
    RED,
    char,
    on_char,
    place,
    position,
    streams,
)


def test_a_spy_exposing_an_assassin_strips_its_sender():
    def build():
        s = position(players=3)
        on_char(s, RED, "Edmar the Dark", 3)
        on_char(s, RED, "Gunter the Fisherman", 1)  # Peaceful, Humane
        on_char(s, RED, "Mark the Broad-Shouldered", 1)  # Believer
        on_char(s, RED, "Matej the Verbose", 1)  # none of the three
        place(s, 0, SPY, BLUE, "Irena the Tall")
        place(s, 1, ASSASSIN, RED, "Edmar the Dark")
        return s

    for s in streams(build, SPY):
        col = N_LANDS
        assert s.tok[RED, col + char("Edmar the Dark")] == 0
        assert s.tok[RED, col + char("Gunter the Fisherman")] == 0
        assert s.tok[RED, col + char("Mark the Broad-Shouldered")] == 0
        assert s.tok[RED, col + char("Matej the Verbose")] == 1
        assert s.g[KILLED] == 0 and (s.card[:2, K_STATUS] == 0).all()


def test_an_assassin_kills_unless_a_guard_answers():
    def build():
        s = position(players=3)
        on_char(s, BLUE, "Edmar the Dark", 2)
        for name in ("Gunter the Fisherman", "Mark the Broad-Shouldered", "Matej the Verbose"):
            on_char(s, RED, name, 1)
        place(s, 0, ASSASSIN, RED, "Edmar the Dark")
        place(s, 1, GUARD, BLUE, "Edmar the Dark")
        return s

    outcomes = set()
    for s in streams(build, ASSASSIN):
        edmar = char("Edmar the Dark")
        if s.g[PLAYED + GUARD] == 1:
            outcomes.add("guarded")
            assert s.tok[BLUE, N_LANDS + edmar] == 4  # the Guard's owner puts 2 tokens on it
            assert s.tok[RED, N_LANDS:].sum() == 0  # 1 token off 3 Characters
            assert s.ch[edmar, C_SEAT] == WARLORD
        else:
            outcomes.add("killed")
            assert s.ch[edmar, C_SEAT] == -2 and s.g[KILLED] == 1
            assert s.g[HOLDERS + WARLORD] == -1
            assert s.tok[:, N_LANDS + edmar].sum() == 0
            assert (s.card[:2, K_STATUS] == 0).all()  # the Guard on him is discarded too
    assert outcomes == {"guarded", "killed"}


def test_a_thief_exposing_a_gift_takes_the_messenger_into_its_hand():
    def build():
        s = position(players=3)
        place(s, 0, THIEF, BLUE, "Irena the Tall")
        place(s, 1, MESSENGER, RED, "Edmar the Dark")
        return s

    for s in streams(build, THIEF):
        assert s.card[0, K_STATUS] == 0
        assert s.card[1, K_STATUS] == 1 and s.card[1, K_OWNER] == BLUE
        assert s.pl[RED, P_SUPPLY] == s.p.tokens_per_player


def test_a_gift_puts_two_tokens_on_a_collector():
    def build():
        s = position(players=3)
        place(s, 0, MESSENGER, RED, "Matej the Verbose")  # a Collector
        return s

    for s in streams(build, MESSENGER):
        assert s.tok[RED, N_LANDS + char("Matej the Verbose")] == 2


def test_a_spy_exposing_a_bribe_costs_its_sender_a_token_on_the_target_and_each_incorruptible():
    def build():
        s = position(players=3)
        on_char(s, RED, "Edmar the Dark", 2)
        on_char(s, RED, "Vera the Silent", 1)  # Incorruptible
        place(s, 0, SPY, BLUE, "Irena the Tall")
        place(s, 1, MESSENGER, RED, "Edmar the Dark", bribe=True)
        return s

    for s in streams(build, SPY):
        assert s.tok[RED, N_LANDS + char("Edmar the Dark")] == 1
        assert s.tok[RED, N_LANDS + char("Vera the Silent")] == 0
