"""The compiled step-down rules: what an exploration or a conquest total reaches given the claims
(the first-claim and step-down rule of Here I Stand rules §12), tabulated once per variant so a roll
is one lookup, and the resolution order (highest rating first)."""

from __future__ import annotations

from simulator.jit import inline
from simulator.procedures.his.new_world.params import (
    AMAZON,
    GREAT_LAKES,
    MAX_RATING,
    MAYA,
    MISSISSIPPI,
    ST_LAWRENCE,
    STRAIT,
)
from simulator.rng import d6_of, high32, low32, next_word


@inline
def roll2d6(state):
    x = next_word(state)
    return d6_of(low32(x)) + d6_of(high32(x))


@inline
def exploration_result(total, claimed, choice):
    """The discovery an exploration total reaches after the step-down rule, or -1 (lost, if the
    total is 4 or less) / -2 (returns). ``choice`` on 10+: 0 Amazon, Strait, North America;
    1 Strait, Amazon, North America; 2 Amazon, North America, Strait."""
    if total <= 4:
        return -1
    r = total
    while r >= 7:
        if r >= 10:
            first = STRAIT if choice == 1 else AMAZON
            second = AMAZON if choice == 1 else STRAIT
            if not (claimed >> first) & 1:
                return first
            if choice == 2:
                for d in (MISSISSIPPI, GREAT_LAKES, ST_LAWRENCE):
                    if not (claimed >> d) & 1:
                        return d
            if not (claimed >> second) & 1:
                return second
            r = 9
            continue
        d = r - 7  # 7 St. Lawrence, 8 Great Lakes, 9 Mississippi
        if not (claimed >> d) & 1:
            return d
        r -= 1
    return -2


@inline
def conquest_result(total, claimed):
    """The conquest a total reaches after the step-down rule, or -1 (lost) / -2 (returns)."""
    if total <= 6:
        return -1
    r = min(total, 11)
    while r >= 9:
        d = MAYA + r - 9
        if not (claimed >> d) & 1:
            return d
        r -= 1
    return -2


#: Totals an exploration or conquest roll can reach, shifted so the lowest indexes 0.
LOW_TOTAL = -3
N_TOTALS = 12 + MAX_RATING - LOW_TOTAL + 1


@inline
def result_tables(choice, explore_table, conquest_table):
    """Step-down results of every (claims mask, total), so a roll is one lookup."""
    for claimed in range(512):
        for k in range(N_TOTALS):
            total = k + LOW_TOTAL
            explore_table[claimed, k] = exploration_result(total, claimed, choice)
            conquest_table[claimed, k] = conquest_result(total, claimed)


@inline
def sort_by_rating(order, n, rating):
    """Stable insertion sort of order[:n], highest rating first (ties keep their order)."""
    for a in range(1, n):
        w = order[a]
        b = a
        while b > 0 and rating[order[b - 1]] < rating[w]:
            order[b] = order[b - 1]
            b -= 1
        order[b] = w
