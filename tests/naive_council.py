"""Plain-Python twin of council.game (Council rules): one game as a person reads the rules.

It keeps the position in dictionaries and lists, not the kernel's arrays, and reads the same
stream (``Stream``): a word for every choice with two or more options, in the same order as the
kernel. ``play`` returns the metric values in the order of ``metrics()``.

The rules are split by what they twin: ``naive_council_state`` (the position, greedy's scores,
victory, setup), ``naive_council_mercenaries``, ``naive_council_economy`` (income, spending, tax)
and ``naive_council_votes`` (the Council and the action phase). This module puts ``Game`` together
and keeps the names tests and bench import.
"""

from __future__ import annotations

from tests.naive import Stream
from tests.naive_council_economy import Economy
from tests.naive_council_mercenaries import Mercenaries
from tests.naive_council_state import (
    CATEGORY_TRAITS,
    COUNCIL,
    GAPS,
    KINDS,
    MAX_BUYS,
    MAX_CARDS,
    MAX_HAND,
    MAX_MOVES,
    TRAITS,
    UNDEFINED,
    VICTORIES,
    Card,
    GameOver,
    GameState,
)
from tests.naive_council_votes import Votes

__all__ = [
    "CATEGORY_TRAITS",
    "COUNCIL",
    "GAPS",
    "KINDS",
    "MAX_BUYS",
    "MAX_CARDS",
    "MAX_HAND",
    "MAX_MOVES",
    "TRAITS",
    "UNDEFINED",
    "VICTORIES",
    "Card",
    "Game",
    "GameOver",
    "play",
    "play_game",
]


class Game(Votes, Economy, Mercenaries, GameState):
    """One council game: the position (``GameState``) and every rule that moves it."""

    # -- the game ----------------------------------------------------------------------------------

    def play(self) -> None:
        self.issued = 0
        self.to_bank = 0
        try:
            self.setup()
            for t in range(1, self.p["max_turns"] + 1):
                self.turn = t
                if self.p["mercenaries"]:
                    self.reveal()
                self.income()
                self.phase_window()
                self.spending()
                self.phase_window()
                self.actions()
                self.phase_window()
                self.tax()
                self.record_round(t)
                self.check_victory()
        except GameOver:
            self.record_round(self.turn)
            return
        self.turn = self.p["max_turns"]
        self.victory = "draw"
        self.winners = []
        if not any(any(row) for row in self.on_land):
            self.gaps["stalled_draw"] += 1  # no token on any Land: no income can return
        self.record_round(self.turn)

    def phase_window(self) -> None:
        """A reveal window at the start of the spending, action or tax phase (``reveal_windows:
        phase``): a game that ends in it ends there."""
        if self.p["mercenaries"] and self.p["reveal_windows"] == "phase":
            self.window = 1
            self.reveal()
            self.window = 0

    def record_round(self, t: int) -> None:
        """The leader (most Lands and Characters with priority; a tie names none) after turn t."""
        counts = [self.priority_count(q) for q in range(self.n)]
        top = max(counts)
        w = counts.index(top) if counts.count(top) == 1 else -1
        if w >= 0:
            if self.leader >= 0 and self.leader != w:
                self.lead_changes += 1
            self.leader = w
        if w != self.run:
            self.run, self.run_since = w, t

    def values(self) -> list[int]:
        out = [60 // len(self.winners) if q in self.winners else 0 for q in range(self.n)]
        out += [int(self.victory == v) for v in VICTORIES]
        decided = UNDEFINED
        if len(self.winners) == 1:
            decided = self.run_since if self.run == self.winners[0] else self.turn
        out += [int(self.victory == "draw"), self.turn, self.lead_changes, decided]
        out += [self.laws_passed, self.killed]
        out += [self.played[k] for k in KINDS]
        out += [self.contested]
        out += [self.gaps[g] for g in GAPS]
        stalled = self.gaps["stalled_draw"] > 0
        out += [self.empty_head_chances, int(self.victory == "draw" and not stalled)]
        out += [self.phase_reveals, self.advice_without_priority]
        out += [self.spending_ties, self.vacant_heads, self.cowardly_left]
        return out


def play(p: dict, key: int, trial: int) -> list[int]:
    """One council game (Council rules) from trial ``trial``'s stream: the kernel's metric
    values."""
    game = Game(p, Stream(key, trial))
    game.play()
    return game.values()


def play_game(p: dict, key: int, trial: int) -> Game:
    """The finished game itself, for tests that look at the position."""
    game = Game(p, Stream(key, trial))
    game.play()
    return game
