"""The explorer's choice on 10+ (Here I Stand rules §12.2 (1)) as an agent's decision.

On a total of 10 or more the explorer discovers South America and picks one of: the Amazon
(2 VP); the Pacific Strait (1 VP) and a circumnavigation attempt (2d6 + rating: 10+ gives 3 VP,
9 or less loses the explorer); or a North American discovery instead (1 VP). A claimed option is
closed; the North American option is the highest unclaimed of the Mississippi, the Great Lakes
and St. Lawrence (the order the step-down rule reaches them). A decision exists when two or more
options are open; with one it is forced, with none the total steps down from 9 (Here I Stand rules
§12).

Agents (``policies``):

- ``FIXED``: the ``south_america`` knob, a fixed preference order (the kernel's tables);
- ``random``: uniform over the open options;
- ``greedy``: the option with the best expected ``objective`` for the power right after the
  choice, exact over the circumnavigation roll (2d6 + rating >= 10; a 12+ also draws a card,
  which no objective counts). The objective is read off the three powers' New World VP: ``vp``
  the power's own VP, ``vp_share`` its share of the total, ``win`` its share of the most VP (ties
  split). Equal values (within float rounding) are broken uniformly at random.

Random and greedy draw from the decision's own sub-stream
(:func:`simulator.agents.streams.start_decision`), never from the game's stream, so a choice never
shifts the dice that follow.
"""

from __future__ import annotations

import numpy as np

from simulator.agents.spec import AGENT_CODES
from simulator.agents.streams import below
from simulator.jit import inline
from simulator.procedures.his.new_world.params import (
    AMAZON,
    GREAT_LAKES,
    MISSISSIPPI,
    ST_LAWRENCE,
    STRAIT,
)

RANDOM = AGENT_CODES["random"]
OBJECTIVE_VP, OBJECTIVE_SHARE, OBJECTIVE_WIN = 0, 1, 2
#: Values this close are equal: exact ties (rationals of denominator at most 36 x 40 x 43 here)
#: can differ by float rounding, distinct values by far more.
TIE = 1e-9
#: Kinds of option, for the ``chose.*`` metrics.
OPTION_NAMES = ("amazon", "pacific_strait", "north_america")


@inline
def south_america_options(claimed, out):
    """Fill ``out`` with the open options on 10+ (Amazon, Strait, a North American discovery, in
    that order) and return how many there are."""
    n = 0
    if not (claimed >> AMAZON) & 1:
        out[n] = AMAZON
        n += 1
    if not (claimed >> STRAIT) & 1:
        out[n] = STRAIT
        n += 1
    for d in (MISSISSIPPI, GREAT_LAKES, ST_LAWRENCE):
        if not (claimed >> d) & 1:
            out[n] = d
            n += 1
            break
    return n


@inline
def option_kind(d):
    """0 the Amazon, 1 the Strait, 2 a North American discovery."""
    if d == AMAZON:
        return 0
    if d == STRAIT:
        return 1
    return 2


@inline
def circumnavigation_chance(rating):
    """P(2d6 + rating >= 10): the circumnavigation succeeds (no first-exploration penalty)."""
    hits = 0
    for a in range(1, 7):
        for b in range(1, 7):
            hits += a + b + rating >= 10
    return hits / 36.0


@inline
def standing_value(vp, w, gain, objective):
    """The power ``w``'s objective once it has gained ``gain`` VP (the others unchanged)."""
    if objective == OBJECTIVE_VP:
        return np.float64(gain)
    mine = vp[w] + gain
    if objective == OBJECTIVE_SHARE:
        total = gain
        for o in range(3):
            total += vp[o]
        return mine / total
    tied = 1
    for o in range(3):
        if o != w:
            if vp[o] > mine:
                return 0.0
            tied += vp[o] == mine
    return 1.0 / tied


@inline
def option_value(d, w, rating, vp, objective):
    """Expected objective of taking option ``d``, the circumnavigation roll summed out."""
    if d == AMAZON:
        return standing_value(vp, w, 2, objective)
    if d == STRAIT:
        p = circumnavigation_chance(rating)
        fails = standing_value(vp, w, 1, objective)
        # fails + p * (succeeds - fails): exactly ``fails`` when both are equal (a tie stays one).
        return fails + p * (standing_value(vp, w, 4, objective) - fails)
    return standing_value(vp, w, 1, objective)


@inline
def choose_option(agent, objective, w, rating, options, n, vp, rng):
    """The option ``agent`` (random or greedy) takes among ``options[:n]``; ``rng`` is the
    decision's sub-stream."""
    if agent == RANDOM:
        return options[below(rng, n)]
    best = -np.inf
    best_option = options[0]
    ties = 0
    for k in range(n):
        value = option_value(options[k], w, rating, vp, objective)
        if value > best + TIE:
            best = value
            best_option = options[k]
            ties = 1
        elif value >= best - TIE:
            ties += 1
            if below(rng, ties) == 0:
                best_option = options[k]
    return best_option
