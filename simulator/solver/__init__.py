"""Exact play of small games: value iteration over a game's keyed states (issue 45).

A game whose positions fit a small key (the game interface's optional ``state_key``) and whose
chance is a known distribution can be solved exactly: :mod:`simulator.solver.values` iterates the
values of a two-player zero-sum dice race (Neller and Presser, "Optimal Play of the Dice Game
Pig", 2004) until no value moves by more than ``TOLERANCE``; :mod:`simulator.solver.pig` builds
Pig's model, caches the solved table per parameter set, and gives the ``optimal`` rung its table
and ``sim exact`` its values. A game larger than ``STATE_LIMIT`` keyed states is refused with its
estimated state count.
"""

from __future__ import annotations

#: The most keyed states the solver takes (Pig to 100 for 2 players is 2,020,000 states).
STATE_LIMIT = 4_000_000

#: Value iteration stops when no value moves by more than this in a sweep.
TOLERANCE = 1e-14


class TooLarge(ValueError):
    """A game with more keyed states than :data:`STATE_LIMIT` (its estimate in the message)."""
