"""The counter-based random generator: random words keyed by (key, trial, word index).

Trial ``t`` reads its ``j``-th word as ``mix64(key + (t * STRIDE + j + 1) * GAMMA)`` with
``j < STRIDE`` (SplitMix64's finaliser). A result therefore depends only on the seed and the trial
indices: the same for any chunk size, thread count or machine count. Procedures that may need more
than ``STRIDE`` words per trial (whole games) use :func:`trial_state` and :func:`next_word`, a
SplitMix64 stream seeded from the trial index.

We do not use numba's ``np.random`` in kernels: it is seeded per thread and not reproducible across
thread counts (numba issues 8957 and 4452).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import leaf

GAMMA = np.uint64(0x9E3779B97F4A7C15)
STRIDE = np.uint64(4096)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)


@leaf
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a bijective 64-bit mix."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@leaf
def word(key: np.uint64, trial: np.int64, j: np.int64) -> np.uint64:
    """The ``j``-th random 64-bit word of trial ``trial``."""
    c = np.uint64(trial) * STRIDE + np.uint64(j) + _ONE
    return mix64(key + c * GAMMA)


#: Distance between the counters of trial t and trial t + 1 for the same word index.
TRIAL_STEP = np.uint64(int(STRIDE) * int(GAMMA) % 2**64)


@leaf
def word_base(key: np.uint64, first: np.int64, j: np.int64) -> np.uint64:
    """Counter of word ``j`` of trial ``first``: ``block_word(base, i)`` is then word ``j``
    of trial ``first + i``. Hoisting this out of a loop over trials lets the loop vectorise."""
    return key + (np.uint64(first) * STRIDE + np.uint64(j) + _ONE) * GAMMA


@leaf
def block_word(base: np.uint64, i: np.int64) -> np.uint64:
    """Word of trial ``first + i`` given ``base = word_base(key, first, j)``; equals ``word``."""
    return mix64(base + np.uint64(i) * TRIAL_STEP)


@leaf
def low32(x: np.uint64) -> np.uint64:
    return x & _LOW32


@leaf
def high32(x: np.uint64) -> np.uint64:
    return x >> _S32


@leaf
def d6_of(u32: np.uint64) -> np.int64:
    """A d6 face (1-6) from a 32-bit uniform word: ``u32 * 6 >> 32``, plus one."""
    return np.int64((u32 * np.uint64(6)) >> _S32) + 1


@leaf
def die_of(u32: np.uint64, sides: np.int64) -> np.int64:
    """A face 1..sides from a 32-bit uniform word (multiply-shift, bias below 2**-26)."""
    return np.int64((u32 * np.uint64(sides)) >> _S32) + 1


@leaf
def trial_state(key: np.uint64, trial: np.int64) -> np.uint64:
    """Seed of a trial's own SplitMix64 stream, for procedures with an unbounded number of words."""
    return mix64(key ^ mix64(np.uint64(trial) + _ONE))


@leaf
def next_word(state: np.ndarray) -> np.uint64:
    """Advance a one-element uint64 state array and return the next word of its stream."""
    state[0] = state[0] + GAMMA
    return mix64(state[0])


def hit_threshold(hit_on: int, sides: int = 6) -> int:
    """Smallest 32-bit word whose die face (``u32 * sides >> 32``, plus one) is ``>= hit_on``.

    A face is ``>= hit_on`` exactly when ``u32 * sides >= (hit_on - 1) * 2**32``, that is when
    ``u32 >= ceil((hit_on - 1) * 2**32 / sides)``. For 5-6 on a d6 this is 2863311531.
    """
    return -(-(hit_on - 1) * 2**32 // sides)


def scenario_key(seed: int, stream: int = 0) -> np.uint64:
    """The generator key of a scenario seed; ``stream`` > 0 gives independent streams."""
    mask = (1 << 64) - 1
    z = seed & mask

    def _mix(v: int) -> int:
        v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & mask
        v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & mask
        return v ^ (v >> 31)

    key = _mix(z)
    if stream:
        key = _mix(key ^ _mix(stream))
    return np.uint64(key)
