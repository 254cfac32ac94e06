"""Pig: the state value and its rules (``legal_moves``, ``apply_move``).

The state is ONE flat int64 array declared by ``STATE`` (:mod:`simulator.layout`): agents copy it
in one call, and every game function takes the state alone. ``apply_move`` plays the mover's
choice and then every chance event and forced step up to the next decision: a roll's die, the
loss of the turn on a 1, the next seat's first roll (a turn always starts with one, so a
decision always offers both moves).
"""

from __future__ import annotations

import numpy as np

from simulator.agents.streams import below
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.template.pig.params import (
    MAX_SEATS,
    P_MAX_TURNS,
    P_OPENING_STOP,
    P_PLAYERS,
    P_TARGET,
)

#: Move codes: roll again, or hold (bank the turn's points and pass the die).
ROLL, HOLD = 0, 1
MAX_MOVES = 2

STATE = Layout(
    "players",
    "target",
    "max_turns",
    "opening_stop",  # 1: a turn opens with a choice (holding at 0 passes the die)
    "turn",  # turns played, every seat's counted
    "seat",  # the seat rolling
    "turn_total",  # points rolled this turn, not yet banked
    "over",
    "winner",  # the seat that reached the target, -1 for none (a draw at max_turns)
    "pigs",  # turns lost to a 1
    ("score", MAX_SEATS),
)
H_PLAYERS, H_TARGET, H_MAX_TURNS = STATE.at("players"), STATE.at("target"), STATE.at("max_turns")
H_OPENING_STOP = STATE.at("opening_stop")
H_TURN, H_SEAT, H_TURN_TOTAL = STATE.at("turn"), STATE.at("seat"), STATE.at("turn_total")
H_OVER, H_WINNER, H_PIGS = STATE.at("over"), STATE.at("winner"), STATE.at("pigs")
S_SCORE = STATE.at("score")
STATE_SIZE = STATE.size


@kernel
def copy_state(s):
    return s.copy()


@kernel
def to_move(s):
    return -1 if s[H_OVER] else s[H_SEAT]


@kernel
def is_over(s):
    return s[H_OVER] == 1


@kernel
def round_of(s):
    return s[H_TURN]


@kernel
def n_seats(s):
    return s[H_PLAYERS]


@kernel
def legal_moves(s, out):
    """Roll or hold (the turn's first roll is forced, so both are always legal; with
    ``opening: stop`` a turn opens with this choice, and holding at 0 passes the die)."""
    out[ROLL] = ROLL
    out[HOLD] = HOLD
    return MAX_MOVES


@inline
def _roll(s, rng):
    """Pig rules §2: a 1 loses the turn's points and ends the turn; any other face adds to them.
    Returns whether the turn goes on."""
    face = 1 + below(rng, 6)
    if face == 1:
        s[H_TURN_TOTAL] = 0
        s[H_PIGS] += 1
        return False
    s[H_TURN_TOTAL] += face
    return True


@inline
def _next_turn(s, rng):
    """Pass the die until a seat's first roll leaves it a decision, or the game ends (with
    ``opening: stop`` the next seat decides at once)."""
    while True:
        s[H_TURN] += 1
        if s[H_TURN] >= s[H_MAX_TURNS]:
            s[H_OVER] = 1
            return
        s[H_SEAT] = (s[H_SEAT] + 1) % s[H_PLAYERS]
        s[H_TURN_TOTAL] = 0
        if s[H_OPENING_STOP] or _roll(s, rng):
            return


@kernel
def apply_move(s, move, rng):
    """Play ``move`` for the seat rolling, then the chance and forced steps to the next decision."""
    seat = s[H_SEAT]
    if move == HOLD:
        s[S_SCORE + seat] += s[H_TURN_TOTAL]
        s[H_TURN_TOTAL] = 0
        if s[S_SCORE + seat] >= s[H_TARGET]:  # Pig rules §3: the target wins at once
            s[H_WINNER] = seat
            s[H_OVER] = 1
            return
        _next_turn(s, rng)
        return
    if not _roll(s, rng):
        _next_turn(s, rng)


@kernel
def start_game(s, row, rng):
    """Deal a game from the packed row: seat 1 rolls first (Pig rules §1)."""
    s[:] = 0
    s[H_PLAYERS] = np.int64(row[P_PLAYERS])
    s[H_TARGET] = np.int64(row[P_TARGET])
    s[H_MAX_TURNS] = np.int64(row[P_MAX_TURNS])
    s[H_OPENING_STOP] = np.int64(row[P_OPENING_STOP])
    s[H_WINNER] = -1
    s[H_SEAT] = 0
    if s[H_OPENING_STOP]:
        return
    if not _roll(s, rng):
        _next_turn(s, rng)
