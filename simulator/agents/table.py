"""The ``optimal`` rung: a table of moves, indexed by the game's ``state_key``, played in kernels.

An exact solver (:mod:`simulator.solver`) writes the best move of every keyed position;
:func:`pack_moves` packs them into float64 words (``bits`` a move, 52 bits a word, exact in a
float64) after a header word giving ``bits``, so the table travels in a game's packed row like any
parameter. :func:`make_table_player` is :func:`simulator.agents.factory.make_player` with the
table: a seat whose agent row is ``optimal`` looks its move up by ``state_key`` and draws no
random word, every other seat chooses as before, each decision on its own sub-stream.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.spec import AGENT_CODES, AGENT_KIND
from simulator.agents.streams import start_decision
from simulator.jit import closure, leaf

_OPTIMAL = AGENT_CODES["optimal"]
#: Bits of a float64 word that hold moves (every integer below 2**53 is exact).
WORD_BITS = 52


def pack_moves(moves: np.ndarray, bits: int) -> np.ndarray:
    """``moves`` (codes below ``2**bits``, one per key) packed: a header word, then the words."""
    per = WORD_BITS // bits
    codes = np.asarray(moves, dtype=np.int64)
    if codes.size and (codes.min() < 0 or codes.max() >= 1 << bits):
        raise ValueError(f"move codes must lie in 0..{(1 << bits) - 1}")
    padded = np.zeros(-(-codes.size // per) * per, dtype=np.int64)
    padded[: codes.size] = codes
    shifts = np.arange(per, dtype=np.int64) * bits
    words = (padded.reshape(-1, per) << shifts).sum(axis=1)
    return np.concatenate([[float(bits)], words.astype(np.float64)])


@leaf
def table_move(table: np.ndarray, key: np.int64) -> np.int64:
    """The move packed for ``key`` (:func:`pack_moves`)."""
    bits = np.int64(table[0])
    per = WORD_BITS // bits
    word = np.int64(table[1 + key // per])
    return (word >> ((key % per) * bits)) & ((np.int64(1) << bits) - 1)


def make_table_player(game: GameFunctions, choose: Any) -> Any:
    """``play(s, agents, table, trial_seed, rng, first_decision) -> decisions``: as
    :func:`simulator.agents.factory.make_player`, an ``optimal`` seat playing ``table``'s move at
    ``game.state_key(s)``."""
    if game.state_key is None:
        raise ValueError("the optimal rung needs the game's state_key")
    to_move, apply_move, is_over, state_key = (
        game.to_move, game.apply_move, game.is_over, game.state_key,
    )  # fmt: skip

    @closure
    def play(s, agents, table, trial_seed, rng, first_decision):  # pragma: no cover - compiled
        decision = np.empty(1, dtype=np.uint64)
        k = 0
        while not is_over(s):
            seat = to_move(s)
            if int(agents[seat, AGENT_KIND]) == _OPTIMAL:
                move = table_move(table, state_key(s))
            else:
                start_decision(decision, trial_seed, first_decision + k)
                move = choose(s, agents[seat], decision)
            apply_move(s, move, rng)
            k += 1
        return k

    return play
