"""The New World race's game interface (``GAME``) for simulator.agents.

- ``returns``: each power's ``objective`` at the end — ``vp``: its New World VP over the 14 there
  are; ``vp_share``: its share of the three powers' VP (a third each when nobody scored); ``win``:
  its share of the most VP (ties split) plus a tie-break term, its VP share scaled into
  ``[0, 1e-3)``;
- ``heuristic``: the same read off the standings now (what the future brings is the playouts'
  job: the search agents play ``horizon`` turns before it scores);
- ``determinize``: a plain copy. Nothing is hidden: pools, claims and holdings are public; the
  explorer each power will draw is a chance event, drawn by ``apply_move``.
"""

from __future__ import annotations

from simulator.agents.game import GameFunctions, GameInfo
from simulator.jit import kernel
from simulator.procedures.his.new_world.choice import OBJECTIVE_SHARE, OBJECTIVE_VP
from simulator.procedures.his.new_world.state import (
    MAX_MOVES,
    P0,
    PW,
    S_OBJECTIVE,
    W_VP,
    apply_move,
    copy_state,
    is_over,
    legal_moves,
    n_seats,
    round_of,
    to_move,
)

#: New World VP there are: the seven discoveries and the three conquests.
ALL_VP = 14.0


@kernel
def returns(s, out):
    objective = s[S_OBJECTIVE]
    total = 0
    best = -1
    for w in range(3):
        v = s[P0 + w * PW + W_VP]
        total += v
        best = max(best, v)
    n_top = 0
    for w in range(3):
        n_top += s[P0 + w * PW + W_VP] == best
    for w in range(3):
        v = s[P0 + w * PW + W_VP]
        if objective == OBJECTIVE_VP:
            out[w] = v / ALL_VP
        elif objective == OBJECTIVE_SHARE:
            out[w] = v / total if total > 0 else 1.0 / 3.0
        else:
            win = 1.0 / n_top if v == best else 0.0
            out[w] = win + 0.999e-3 * v / (total + 1)


@kernel
def heuristic(s, out):
    returns(s, out)


@kernel
def determinize(s, seat, rng):
    """A plain copy: the game has no hidden information."""
    return copy_state(s)


GAME = GameFunctions(
    copy_state=copy_state,
    to_move=to_move,
    legal_moves=legal_moves,
    apply_move=apply_move,
    is_over=is_over,
    returns=returns,
    heuristic=heuristic,
    determinize=determinize,
    round_of=round_of,
    n_seats=n_seats,
    max_moves=MAX_MOVES,
    # England, France and the Hapsburgs; every marker is on the map; the dice decide voyages.
    info=GameInfo(seats=3, max_moves=MAX_MOVES, hidden_information=False, chance=True),
)
