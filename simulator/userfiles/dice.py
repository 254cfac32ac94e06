"""The dice a designer's procedure draws: ``dice.d(6)``, ``dice.roll(3, 6)``, ...

Inside ``sim`` they read the counter-based generator (:mod:`simulator.rng`): the ``k``-th draw of
trial ``t`` is word ``k`` of that trial (``word(key, t, k)``; after ``STRIDE`` words, the trial's
own SplitMix64 stream), the low 32 bits making a die face as the built-in kernels do. So every
variant of a scenario rolls the same dice in the same order (common random numbers), and a result
depends only on the seed and the trial indices.

``API`` lists the methods; :class:`Dice` is the same dice in plain Python (the twin the tests
compare with, and what a designer's function gets when it is called outside ``sim``).
In compiled code the method calls are rewritten to the functions below, on a state array
``[key, trial, draws so far]`` (:mod:`simulator.userfiles.rewrite`).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline
from simulator.rng import GAMMA, STRIDE, die_of, low32, mix64, trial_state, word

#: The dice API: method, its arguments and what it gives (shown in docs and in errors).
API: dict[str, str] = {
    "d": "d(sides): one die, a face 1..sides",
    "roll": "roll(n, sides): the total of n dice",
    "count": "count(n, sides, at_least): how many of n dice show at_least or more",
    "below": "below(n): a whole number 0..n-1, each equally likely",
    "uniform": "uniform(): a float in [0, 1)",
    "chance": "chance(p): True with probability p",
}
#: Arguments each method takes (a call with another count is refused at its line).
ARITY = {"d": 1, "roll": 2, "count": 3, "below": 1, "uniform": 0, "chance": 1}

_STRIDE = int(STRIDE)
_TWO53 = 1.0 / 9007199254740992.0


@inline
def draw(state):
    """The next random word of the trial in ``state`` = [key, trial, draws so far]."""
    j = state[2]
    state[2] = j + np.uint64(1)
    if j < STRIDE:
        return word(state[0], np.int64(state[1]), np.int64(j))
    return mix64(trial_state(state[0], np.int64(state[1])) + (j - STRIDE + np.uint64(1)) * GAMMA)


@inline
def dice_d(state, sides):
    return die_of(low32(draw(state)), np.int64(sides))


@inline
def dice_roll(state, n, sides):
    total = np.int64(0)
    for _ in range(n):
        total += die_of(low32(draw(state)), np.int64(sides))
    return total


@inline
def dice_count(state, n, sides, at_least):
    hits = np.int64(0)
    for _ in range(n):
        hits += np.int64(die_of(low32(draw(state)), np.int64(sides)) >= at_least)
    return hits


@inline
def dice_below(state, n):
    return die_of(low32(draw(state)), np.int64(n)) - 1


@inline
def dice_uniform(state):
    return np.float64(draw(state) >> np.uint64(11)) * _TWO53


@inline
def dice_chance(state, p):
    return np.float64(draw(state) >> np.uint64(11)) * _TWO53 < p


#: Method name -> compiled function (first argument the state array).
COMPILED = {
    "d": dice_d,
    "roll": dice_roll,
    "count": dice_count,
    "below": dice_below,
    "uniform": dice_uniform,
    "chance": dice_chance,
}

_MASK = (1 << 64) - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Dice:
    """The dice of one trial in plain Python: the same draws as the compiled ones, one by one."""

    def __init__(self, key: int = 0, trial: int = 0) -> None:
        self.key = int(key) & _MASK
        self.trial = int(trial)
        self.draws = 0

    def _word(self) -> int:
        j = self.draws
        self.draws += 1
        gamma = int(GAMMA)
        if j < _STRIDE:
            c = (self.trial * _STRIDE + j + 1) & _MASK
            return _mix((self.key + c * gamma) & _MASK)
        seed = _mix(self.key ^ _mix((self.trial + 1) & _MASK))
        return _mix((seed + (j - _STRIDE + 1) * gamma) & _MASK)

    def d(self, sides: int) -> int:
        return (((self._word() & 0xFFFFFFFF) * int(sides)) >> 32) + 1

    def roll(self, n: int, sides: int) -> int:
        return sum(self.d(sides) for _ in range(int(n)))

    def count(self, n: int, sides: int, at_least: int) -> int:
        return sum(self.d(sides) >= at_least for _ in range(int(n)))

    def below(self, n: int) -> int:
        return self.d(n) - 1

    def uniform(self) -> float:
        return (self._word() >> 11) * _TWO53

    def chance(self, p: float) -> bool:
        return self.uniform() < p
