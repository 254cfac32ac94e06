"""The soft win share that games' hand-written heuristics turn their seat estimates into.

A heuristic (``GameFunctions.heuristic``) writes each seat's estimate into ``out`` and passes
the largest and a temperature; :func:`soft_shares` replaces them by
``exp((out[o] - best) / temperature)`` normalised to sum to 1, added and divided in seat order
(the same float operations in the same order wherever it is used, so games that call it stay
bit-identical to their own loops before it).
"""

from __future__ import annotations

import math

from simulator.jit import inline


@inline
def soft_shares(out, players, best, temperature):
    """``out[:players]`` (seat estimates, ``best`` their largest) as a softmax at
    ``temperature``, in place."""
    total = 0.0
    for o in range(players):
        out[o] = math.exp((out[o] - best) / temperature)
        total += out[o]
    for o in range(players):
        out[o] /= total
