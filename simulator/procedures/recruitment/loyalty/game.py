"""The game interface of ``recruitment.loyalty`` (docs/agents.md, "The game interface"): ``GAME``
for the agents.

Hidden information: only the order of the character deck (every token, card in play, supply,
bank and gold is public). ``determinize`` reshuffles the undealt deck. The default policy of the
search agents' playouts is this game's greedy agent, and the one-step values the search rungs'
``candidates``, ``prior`` and ``fallback`` read are greedy's own (greedy.py).
"""

from __future__ import annotations

from simulator.agents.game import GameFunctions, GameInfo
from simulator.jit import kernel
from simulator.procedures.recruitment.loyalty.greedy import greedy_move, move_values
from simulator.procedures.recruitment.loyalty.heuristic import heuristic, returns
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import (
    MAX_MOVES,
    apply_move,
    legal_moves,
    uniform_below,
)
from simulator.procedures.recruitment.loyalty.state import (
    H_DECK_LEN,
    S_DECK,
    copy_state,
    is_over,
    n_seats,
    round_of,
    to_move,
)
from simulator.rng import GAMMA, mix64


@kernel
def determinize(s, seat, rng):
    """A copy of ``s`` with the undealt deck put in card order, then shuffled (Fisher-Yates, one
    word per swap): the only thing no seat sees. Sorting first makes the result depend on which
    cards are undealt (public) and the words, never on their hidden order. ``seat`` is unused,
    as every seat sees the same."""
    t = copy_state(s)
    n = t[H_DECK_LEN]
    for i in range(1, n):
        c = t[S_DECK + i]
        j = i
        while j > 0 and t[S_DECK + j - 1] > c:
            t[S_DECK + j] = t[S_DECK + j - 1]
            j -= 1
        t[S_DECK + j] = c
    for i in range(n - 1, 0, -1):
        rng[0] += GAMMA
        j = uniform_below(mix64(rng[0]), i + 1)
        a = t[S_DECK + i]
        t[S_DECK + i] = t[S_DECK + j]
        t[S_DECK + j] = a
    return t


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
    default_move=greedy_move,
    move_values=move_values,
    # The undealt deck's order is what no seat sees (determinize); the deck is shuffled.
    info=GameInfo(seats=MAX_PLAYERS, max_moves=MAX_MOVES, hidden_information=True, chance=True),
)

__all__ = ["GAME", "MAX_MOVES", "determinize"]
