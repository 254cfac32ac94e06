"""Doubles: a push-your-luck dice game written as one class (docs/own-rules.md, "A whole game").

2 to 4 players take turns. On its turn a player rolls two dice, again and again: each roll adds
both faces to the turn's points, but a double loses them and ends the turn, and a double six
also loses every point the player has banked. After any roll that is not a double the player may
hold: the turn's points are banked and the dice pass. The first to bank ``target`` wins at once;
a game that reaches ``max_turns`` turns is drawn.
"""

import math

from simulator.agents.streams import below

PLAYERS, TARGET, MAX_TURNS, TURN, SEAT, TURN_TOTAL, OVER, WINNER, BUSTS, SCORE = range(10)


def _roll(s, rng):
    first = 1 + below(rng, 6)
    second = 1 + below(rng, 6)
    if first == second:  # a double loses the turn's points; a double six the banked ones too
        s[TURN_TOTAL] = 0
        s[BUSTS] += 1
        if first == 6:
            s[SCORE + s[SEAT]] = 0
        return False
    s[TURN_TOTAL] += first + second
    return True


def _next_turn(s, rng):
    while True:
        s[TURN] += 1
        if s[TURN] >= s[MAX_TURNS]:
            s[OVER] = 1
            return
        s[SEAT] = (s[SEAT] + 1) % s[PLAYERS]
        s[TURN_TOTAL] = 0
        if _roll(s, rng):
            return


def _returns(s, out):
    players = s[PLAYERS]
    total = 0
    for o in range(players):
        total += s[SCORE + o]
    for o in range(players):
        win = 1.0 if s[WINNER] == o else 0.0
        out[o] = win + 0.999e-3 * s[SCORE + o] / (total + 1)


class Doubles:
    """Doubles: roll two dice, a double busts the turn."""

    SEATS = 4
    MAX_MOVES = 2
    STATE_SIZE = SCORE + 4
    HIDDEN_INFORMATION = False  # every seat sees the whole state: a seat's view is a copy
    CHANCE = True  # apply_move rolls the dice after a move
    players: int = 2
    target: int = 50
    max_turns: int = 200
    # What the answer rests on: sim list shows it, the verdict names it, a robustness run moves it.
    ASSUMPTIONS = {
        "max_turns": {
            "tag": "invented",
            "text": "a game that reaches 200 turns is drawn (the rules give no end)",
            "alternatives": {"100 turns": 100},
        },
    }

    @staticmethod
    def start_game(s, params, rng):
        s[PLAYERS] = params.players
        s[TARGET] = params.target
        s[MAX_TURNS] = params.max_turns
        s[WINNER] = -1
        s[SEAT] = 0
        if not _roll(s, rng):
            _next_turn(s, rng)

    @staticmethod
    def copy_state(s):
        return s.copy()

    @staticmethod
    def to_move(s):
        return -1 if s[OVER] else s[SEAT]

    @staticmethod
    def legal_moves(s, out):
        out[0] = 0
        out[1] = 1
        return 2

    @staticmethod
    def apply_move(s, move, rng):
        seat = s[SEAT]
        if move == 1:
            s[SCORE + seat] += s[TURN_TOTAL]
            s[TURN_TOTAL] = 0
            if s[SCORE + seat] >= s[TARGET]:
                s[WINNER] = seat
                s[OVER] = 1
                return
            _next_turn(s, rng)
            return
        if not _roll(s, rng):
            _next_turn(s, rng)

    @staticmethod
    def is_over(s):
        return s[OVER] == 1

    @staticmethod
    def returns(s, out):
        _returns(s, out)

    @staticmethod
    def heuristic(s, out):
        players = s[PLAYERS]
        if s[OVER]:
            _returns(s, out)
            return
        best = 0.0
        for o in range(players):
            points = s[SCORE + o] + (s[TURN_TOTAL] if o == s[SEAT] else 0)
            out[o] = min(points, s[TARGET])
            best = max(best, out[o])
        temperature = 1.0 + (s[TARGET] - best) / 4.0
        total = 0.0
        for o in range(players):
            out[o] = math.exp((out[o] - best) / temperature)
            total += out[o]
        for o in range(players):
            out[o] /= total

    @staticmethod
    def round_of(s):
        return s[TURN]

    @staticmethod
    def n_seats(s):
        return s[PLAYERS]
