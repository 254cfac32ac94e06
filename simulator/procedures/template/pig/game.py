"""Pig's game interface (``GAME`` for simulator.agents) and how the registry deals a game.

- ``returns``: 1 to the seat that reached the target (a draw at ``max_turns``: 0 to every
  seat), plus a tie-break term, the score's share of the table scaled into ``[0, 1e-3)``;
- ``heuristic``: each seat's chance, guessed from how far it is from the target: a softmax of
  its points (the mover's unbanked ones included) whose temperature is the points still to win;
- ``state_key``: the seat to move, every seat's banked points and the turn's points (capped at
  what the mover needs: any larger total wins alike on a hold), the key the exact solver values
  positions by and the ``optimal`` rung looks its move up by (:mod:`simulator.solver.pig`);
- no ``determinize``: nothing is hidden (``info`` says so), so a seat's view is a plain copy; the
  die is a chance event drawn by ``apply_move``.
"""

from __future__ import annotations

from simulator.agents.game import GameFunctions, GameInfo, flat_deal
from simulator.agents.softmax import soft_shares
from simulator.jit import kernel
from simulator.procedures.template.pig.params import MAX_SEATS
from simulator.procedures.template.pig.state import (
    H_OVER,
    H_PLAYERS,
    H_SEAT,
    H_TARGET,
    H_TURN_TOTAL,
    H_WINNER,
    MAX_MOVES,
    S_SCORE,
    STATE_SIZE,
    apply_move,
    copy_state,
    is_over,
    legal_moves,
    n_seats,
    round_of,
    start_game,
    to_move,
)


@kernel
def returns(s, out):
    players = s[H_PLAYERS]
    total = 0
    for o in range(players):
        total += s[S_SCORE + o]
    for o in range(players):
        win = 1.0 if s[H_WINNER] == o else 0.0
        out[o] = win + 0.999e-3 * s[S_SCORE + o] / (total + 1)


@kernel
def heuristic(s, out):
    players = s[H_PLAYERS]
    if s[H_OVER]:
        returns(s, out)
        return
    best = 0.0
    for o in range(players):
        points = s[S_SCORE + o] + (s[H_TURN_TOTAL] if o == s[H_SEAT] else 0)
        out[o] = min(points, s[H_TARGET])
        best = max(best, out[o])
    temperature = 1.0 + (s[H_TARGET] - best) / 4.0
    soft_shares(out, players, best, temperature)


@kernel
def state_key(s):
    target = s[H_TARGET]
    seat = s[H_SEAT]
    key = seat
    for o in range(s[H_PLAYERS]):
        key = key * target + s[S_SCORE + o]
    return key * (target + 1) + min(s[H_TURN_TOTAL], target - s[S_SCORE + seat])


GAME = GameFunctions(
    copy_state=copy_state,
    to_move=to_move,
    legal_moves=legal_moves,
    apply_move=apply_move,
    is_over=is_over,
    returns=returns,
    heuristic=heuristic,
    round_of=round_of,
    n_seats=n_seats,
    max_moves=MAX_MOVES,
    info=GameInfo(seats=MAX_SEATS, max_moves=MAX_MOVES, hidden_information=False, chance=True),
    state_key=state_key,
)


#: A new game from the packed row, up to its first decision (for tests and tools).
deal = flat_deal(STATE_SIZE, start_game)
