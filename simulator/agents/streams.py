"""Random streams of decisions: each decision of a game reads its own SplitMix64 sub-stream.

A game's chance events read the trial's game stream; decision ``k`` of trial ``t`` reads the
stream seeded ``mix64(trial_seed ^ mix64(DECISION_SALT + k))`` (docs/agents.md, "The game
interface"). An agent's search therefore never shifts the game's dice: two agents in the same seat
of the same deal see the same chance events for as long as their games agree (common random numbers
across agents and seatings), and a game replays bit for bit on any thread, chunk or worker.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import leaf
from simulator.rng import mix64, next_word

#: Salt separating decision sub-streams from every other use of a trial's seed.
DECISION_SALT = np.uint64(0xD1CE_5EED_A6E7_0001)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@leaf
def decision_seed(trial_seed: np.uint64, counter: np.int64) -> np.uint64:
    """Seed of the sub-stream of decision number ``counter`` of the trial seeded ``trial_seed``."""
    return mix64(trial_seed ^ mix64(DECISION_SALT + np.uint64(counter)))


@leaf
def start_decision(rng: np.ndarray, trial_seed: np.uint64, counter: np.int64) -> None:
    """Set the one-element state ``rng`` to decision ``counter``'s sub-stream."""
    rng[0] = decision_seed(trial_seed, counter)


@leaf
def below(rng: np.ndarray, n: np.int64) -> np.int64:
    """A uniform integer in ``0 .. n-1`` from the next word of ``rng`` (multiply-shift)."""
    return np.int64(((next_word(rng) & _LOW32) * np.uint64(n)) >> _S32)
