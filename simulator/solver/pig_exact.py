"""Pig's exact values under each rung: greedy's moves as a policy, the policy evaluation.

Greedy's one-step lookahead compares roll and hold on the same dice (docs/agents.md), so its move
is a function of the dice: :func:`greedy_holds` sums over them with the game's own ``heuristic``
and ``returns``. :func:`win_probability` is seat 1's exact win probability when each seat plays
``optimal``, ``random`` or ``greedy``: a fixed seat's moves are a policy, an optimal seat
plays the solved table (a policy evaluation of both seats' fixed policies; or, asked, the best
reply to the other seat). :func:`exact_values` is Pig's ``exact`` hook (``sim exact``): each
seat's win probability when every seat plays ``optimal``, ``random`` or ``greedy``.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from simulator.agents.spec import seat_agents
from simulator.jit import kernel
from simulator.procedures.template.pig.game import heuristic, returns
from simulator.procedures.template.pig.state import (
    H_MAX_TURNS,
    H_OVER,
    H_PLAYERS,
    H_SEAT,
    H_TARGET,
    H_TURN_TOTAL,
    H_WINNER,
    S_SCORE,
    STATE_SIZE,
)
from simulator.solver import TOLERANCE, TooLarge
from simulator.solver.pig import MAX_SWEEPS, SOLVABLE, cache_file, check, model, solve, source_tag
from simulator.solver.values import FIXED, OPTIMAL, RANDOM, iterate, key_of


@kernel
def _score_for(s, seat, out):
    if s[H_OVER]:
        returns(s, out)
    else:
        heuristic(s, out)
    return out[seat]


@kernel
def _position(s, target, roller, first, second, turn_total, winner):
    s[:] = 0
    s[H_PLAYERS] = 2
    s[H_TARGET] = target
    s[H_MAX_TURNS] = 1 << 40
    s[H_SEAT] = roller
    s[S_SCORE] = first
    s[S_SCORE + 1] = second
    s[H_TURN_TOTAL] = turn_total
    s[H_WINNER] = winner
    s[H_OVER] = 1 if winner >= 0 else 0


@kernel
def _compare(r, h, seat, res):
    """Greedy's hold share on one set of dice: 1 when hold rates better, 1/2 on a tie."""
    roll = _score_for(r, seat, res)
    hold = _score_for(h, seat, res)
    return 1.0 if hold > roll else (0.5 if hold == roll else 0.0)


@kernel
def _greedy_holds(target):
    """How often greedy holds at each key of Pig to ``target`` (2 players).

    Greedy plays roll and hold on copies with the same random words (docs/agents.md). Faces
    ``f1, f2, ..``: the roll reads ``f1`` for its die; the hold reads it for the next seat's first
    roll. A 1 first passes the die on both paths, and then the first face that is not a 1, ``g``,
    after ``n`` more 1s, opens a turn: the opponent's after a roll and the mover's own after a
    hold when ``n`` is even (probability 6/7), the other way round when it is odd."""
    n_keys = 2 * target * target * (target + 1)
    out = np.zeros(n_keys)
    r = np.zeros(STATE_SIZE, dtype=np.int64)
    h = np.zeros(STATE_SIZE, dtype=np.int64)
    res = np.zeros(2)
    for seat in range(2):
        other = 1 - seat
        for a in range(target):
            for b in range(target):
                mine = a if seat == 0 else b
                for k in range(1, target - mine + 1):
                    won = mine + k >= target
                    ha = a + k if seat == 0 else a
                    hb = b + k if seat == 1 else b
                    p = 0.0
                    for f in range(2, 7):
                        _position(r, target, seat, a, b, k + f, -1)
                        if won:
                            _position(h, target, seat, ha, hb, 0, seat)
                        else:
                            _position(h, target, other, ha, hb, f, -1)
                        p += _compare(r, h, seat, res) / 6.0
                    for g in range(2, 7):
                        for odd in range(2):
                            weight = (1.0 / 7.0 if odd else 6.0 / 7.0) / 30.0
                            _position(r, target, seat if odd else other, a, b, g, -1)
                            if won:
                                _position(h, target, seat, ha, hb, 0, seat)
                            else:
                                _position(h, target, other if odd else seat, ha, hb, g, -1)
                            p += weight * _compare(r, h, seat, res)
                    out[key_of(seat, a, b, k, target)] = p
    return out


@functools.lru_cache(maxsize=8)
def greedy_holds(target: int) -> np.ndarray:
    """How often greedy holds at each key of Pig to ``target`` (2 players), once per target."""
    return _greedy_holds(target)


@functools.lru_cache(maxsize=32)
def win_probability(
    target: int, seats: tuple[str, str], best_reply: bool = False, opening_stop: bool = False
) -> float:
    """Seat 1's exact win probability in Pig to ``target`` when seat 1 and seat 2 play
    ``seats`` (each ``optimal``, ``random`` or ``greedy``; greedy only where a turn opens with
    a roll), a turn opening with a choice if ``opening_stop``.

    An ``optimal`` seat plays the solved table (the minimax moves, as the ``optimal`` rung does);
    with ``best_reply`` it plays instead the best reply to the other seat's fixed policy (what
    the most exploiting player would win against it)."""
    check(2, target)
    if opening_stop and "greedy" in seats:
        raise ValueError("greedy's exact policy is summed for turns that open with a roll")
    if seats == ("optimal", "optimal"):
        return solve(target, opening_stop).first_player
    path = value_file()
    name = f"{target}:{','.join(seats)}:{int(best_reply)}:{int(opening_stop)}"
    known = _read(path)
    if name not in known:
        known = {**_read(path), name: _evaluate(target, seats, best_reply, opening_stop)}
        try:
            path.parent.mkdir(exist_ok=True)
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")  # one writer a file
            tmp.write_text(json.dumps(known, sort_keys=True))
            tmp.replace(path)
        except OSError:  # a read-only install evaluates again next time
            pass
    return float(known[name])


def value_file() -> Path:
    """Where evaluated win probabilities are kept (beside the solved tables, keyed alike)."""
    return cache_file(0, False).with_name(f"pig-values-{source_tag()}.json")


def _read(path: Path) -> dict[str, float]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError):
        return {}


def _evaluate(target: int, seats: tuple[str, str], best_reply: bool, opening_stop: bool) -> float:
    """:func:`win_probability` computed: a policy evaluation over every key."""
    n = 2 * target * target * (target + 1)
    half = n // 2  # seat 1's keys come first (the key's leading digit is the seat to move)
    modes = np.empty(2, dtype=np.int64)
    holds = np.zeros(n)
    for seat, name in enumerate(seats):
        part = slice(seat * half, (seat + 1) * half)
        if name == "random":
            modes[seat] = RANDOM
        elif name == "greedy":
            modes[seat] = FIXED
            holds[part] = greedy_holds(target)[part]
        elif best_reply:
            modes[seat] = OPTIMAL
        else:
            modes[seat] = FIXED
            holds[part] = solve(target, opening_stop).moves[part]
    values, _ = iterate(target, *model(), 0.0, opening_stop, modes, holds, TOLERANCE, MAX_SWEEPS)
    return float(values[key_of(0, 0, 0, 0, target)])


def exact_values(params: Any) -> dict[str, float]:
    """Each seat's exact win probability (``wins.seatN``) when every seat plays a rung the solver
    values (optimal, random, greedy) in a 2-player game it takes; nothing otherwise."""
    if params.players != 2:
        return {}
    names = tuple(a.agent for a in seat_agents(params.policies, 2, solvable=True))
    if not all(n in SOLVABLE for n in names):
        return {}
    stop = params.opening == "stop"
    if stop and "greedy" in names:
        return {}
    try:
        first = win_probability(params.target, names, opening_stop=stop)
    except TooLarge:
        return {}
    return {"wins.seat1": first, "wins.seat2": 1.0 - first}
