"""Which combinations of the clauses are played, and the fixed linear combinations of their means
that are the effects.

A *cell* is a set of clauses applied to the reference parameters, written as a bit mask (bit i:
clause i applied); ``v(S)`` is a metric's mean in cell S. Up to :data:`FULL_UP_TO` clauses every
one of the 2^k cells is played, and:

- the **effects** are the terms of the Möbius decomposition from the reference: a clause's main
  effect ``v({i}) − v(∅)`` (the clause alone), the interaction of a set T of clauses
  ``Σ_{S⊆T} (−1)^{|T|−|S|} v(S)`` (what T does together beyond its parts); every term added up
  is the total change ``v(all) − v(∅)`` exactly;
- the **Shapley value** of clause i is its marginal contribution averaged over every order in
  which the clauses could have been applied: ``Σ_{S∌i} |S|!(k−|S|−1)!/k! · (v(S∪i) − v(S))``.
  It gives each clause its main effect plus an equal share of every interaction it is part of;
  the Shapley values add up to the total change exactly.

Beyond :data:`FULL_UP_TO` clauses the cells are the reference, each clause alone, each pair and
all of them together (1 + k + k(k−1)/2 + 1 cells): main effects and pairwise interactions as
above, and the rest of the total change (interactions of three or more clauses, not separated) as
one *remainder* term, shared equally in the Shapley values, which still add up exactly.

Every effect is a fixed linear combination of cell means, with rational weights
(:class:`fractions.Fraction`): applied to exact cell means it gives exact effects, and applied per
deal it gives each effect's paired interval (:mod:`simulator.explain.decompose`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

#: Most clauses for which every combination is played (2^6 = 64 cells).
FULL_UP_TO = 6

Weights = dict[int, Fraction]


@dataclass(frozen=True)
class Term:
    """One effect: a set of clauses (a bit mask; 0 for nothing) and its weights over cells.

    ``remainder`` marks the higher-order rest of a partial design (its mask is every clause)."""

    mask: int
    weights: Weights
    remainder: bool = False

    @property
    def order(self) -> int:
        return self.mask.bit_count()


@dataclass(frozen=True)
class Design:
    """The cells to play and the effects read from them."""

    k: int
    cells: tuple[int, ...]
    terms: tuple[Term, ...]
    shapley: tuple[Weights, ...]
    total: Weights

    @property
    def full(self) -> bool:
        return len(self.cells) == 1 << self.k

    def describe(self) -> str:
        """How the clauses are combined, in words."""
        if self.k == 0:
            return "no clause differs"
        if self.full:
            if self.k == 1:
                return "the clause on and off (2 combinations)"
            return f"every combination of the {self.k} clauses ({len(self.cells)} combinations)"
        return (
            f"each of the {self.k} clauses alone, every pair and all together ({len(self.cells)} "
            f"of {1 << self.k:,} combinations): interactions of three or more clauses are not "
            "separated; their remainder is shared equally among the clauses"
        )


def _subsets(mask: int) -> list[int]:
    out, s = [], mask
    while True:
        out.append(s)
        if s == 0:
            return out
        s = (s - 1) & mask


def mobius(mask: int) -> Weights:
    """The weights of the interaction of the clauses in ``mask`` (for one clause: its main
    effect from the reference)."""
    size = mask.bit_count()
    return {s: Fraction((-1) ** (size - s.bit_count())) for s in _subsets(mask)}


def _add(into: Weights, weights: Weights, factor: Fraction) -> None:
    for cell, w in weights.items():
        into[cell] = into.get(cell, Fraction(0)) + factor * w
        if into[cell] == 0:
            del into[cell]


def _shapley_full(k: int, i: int) -> Weights:
    bit = 1 << i
    out: Weights = {}
    for s in range(1 << k):
        if s & bit:
            continue
        size = s.bit_count()
        w = Fraction(math.factorial(size) * math.factorial(k - size - 1), math.factorial(k))
        _add(out, {s | bit: Fraction(1), s: Fraction(-1)}, w)
    return out


def design(k: int) -> Design:
    """The design for ``k`` clauses (see the module docstring)."""
    every = (1 << k) - 1
    total: Weights = {every: Fraction(1), 0: Fraction(-1)} if k else {}
    if k <= FULL_UP_TO:
        cells = tuple(sorted(range(1 << k), key=lambda s: (s.bit_count(), s)))
        terms = tuple(Term(t, mobius(t)) for t in cells if t)
        shapley = tuple(_shapley_full(k, i) for i in range(k))
        return Design(k, cells, terms, shapley, total)
    singles = [1 << i for i in range(k)]
    pairs = [a | b for a, b in itertools.combinations(singles, 2)]
    cells = (0, *singles, *pairs, every)
    low = [Term(t, mobius(t)) for t in (*singles, *pairs)]
    rest: Weights = dict(total)
    for t in low:
        _add(rest, t.weights, Fraction(-1))
    terms = (*low, Term(every, rest, remainder=True))
    shapley_list = []
    for i in range(k):
        w: Weights = {}
        _add(w, mobius(1 << i), Fraction(1))
        for p in pairs:
            if p >> i & 1:
                _add(w, mobius(p), Fraction(1, 2))
        _add(w, rest, Fraction(1, k))
        shapley_list.append(w)
    return Design(k, cells, terms, tuple(shapley_list), total)
