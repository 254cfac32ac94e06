"""Value iteration for a two-player dice race (Neller and Presser 2004), in Numba.

A position is keyed ``((seat * T + a) * T + b) * (T + 1) + k``: the seat to move, seat 1's and
seat 2's banked points ``a`` and ``b`` (each below the target ``T``) and the turn's unbanked
points ``k``, capped at what the mover needs (``T - banked``: every larger total wins alike on a
hold). ``k = 0`` is the turn's start. ``V[key]`` is the probability that seat 1 (index 0) wins.

The mover rolls or holds. A roll busts with probability ``bust`` (the turn's points are lost and
the die passes), busts everything with ``bust_all`` (the mover's banked points are lost too) or
adds ``points[i]`` with probability ``probs[i]``. A hold banks ``k``: reaching ``T`` wins,
otherwise the next seat starts its turn. At a turn's start the mover must roll, unless
``opening_stop`` (then holding at 0 simply passes the die). Each seat plays by its mode:
``OPTIMAL`` (seat 1 maximises ``V``, seat 2 minimises it), ``RANDOM`` (each move half the time) or
``FIXED`` (holds with probability ``hold_prob[key]``): with one optimal seat and one fixed, this
is the policy evaluation of the optimal reply to a fixed opponent.

Sweeps run over the banked sum ``a + b`` from the top down (a hold only raises it), the states of
one sum iterated in place (Gauss–Seidel) until none moves by more than the tolerance; a
``bust_all`` outcome lowers the sum, so the whole sweep repeats until nothing moves.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel

OPTIMAL, RANDOM, FIXED = 0, 1, 2
ROLL, HOLD = 0, 1


@inline
def key_of(seat, a, b, k, target):
    """The key of a position (the module docstring)."""
    return ((seat * target + a) * target + b) * (target + 1) + k


@inline
def _turn_start(v, seat, a, b, target):
    """The value when ``seat`` starts its turn with banked points ``a``, ``b``."""
    return v[key_of(seat, a, b, 0, target)]


@inline
def _roll_value(v, seat, a, b, k, target, points, probs, bust, bust_all):
    other = 1 - seat
    mine = a if seat == 0 else b
    out = bust * _turn_start(v, other, a, b, target)
    if bust_all > 0.0:
        out += bust_all * _turn_start(
            v, other, 0 if seat == 0 else a, 0 if seat == 1 else b, target
        )
    cap = target - mine
    for i in range(points.shape[0]):
        out += probs[i] * v[key_of(seat, a, b, min(k + points[i], cap), target)]
    return out


@inline
def _hold_value(v, seat, a, b, k, target):
    mine = a if seat == 0 else b
    if mine + k >= target:
        return 1.0 if seat == 0 else 0.0
    if seat == 0:
        return _turn_start(v, 1, a + k, b, target)
    return _turn_start(v, 0, a, b + k, target)


@inline
def _update(v, seat, a, b, k, target, points, probs, bust, bust_all, opening_stop, modes, hold_p):
    roll = _roll_value(v, seat, a, b, k, target, points, probs, bust, bust_all)
    if k == 0 and not opening_stop:
        return roll
    hold = _hold_value(v, seat, a, b, k, target)
    mode = modes[seat]
    if mode == OPTIMAL:
        return max(roll, hold) if seat == 0 else min(roll, hold)
    if mode == RANDOM:
        return 0.5 * (roll + hold)
    p = hold_p[key_of(seat, a, b, k, target)]
    return p * hold + (1.0 - p) * roll


@kernel
def iterate(target, points, probs, bust, bust_all, opening_stop, modes, hold_p, tol, max_sweeps):
    """The values ``V`` (module docstring) and the number of in-place sweeps it took."""
    n = 2 * target * target * (target + 1)
    v = np.full(n, 0.5)
    sweeps = 0
    while True:
        outer = 0.0
        for total in range(2 * target - 2, -1, -1):
            while True:
                delta = 0.0
                for a in range(max(0, total - target + 1), min(total, target - 1) + 1):
                    b = total - a
                    for seat in range(2):
                        mine = a if seat == 0 else b
                        for k in range(target - mine, -1, -1):
                            i = key_of(seat, a, b, k, target)
                            new = _update(
                                v, seat, a, b, k, target, points, probs, bust, bust_all,
                                opening_stop, modes, hold_p,
                            )  # fmt: skip
                            delta = max(delta, abs(new - v[i]))
                            v[i] = new
                sweeps += 1
                outer = max(outer, delta)
                if delta <= tol or sweeps >= max_sweeps:
                    break
        if bust_all == 0.0 or outer <= tol or sweeps >= max_sweeps:
            return v, sweeps


@kernel
def best_moves(v, target, points, probs, bust, bust_all, opening_stop):
    """The optimal move at every key (``HOLD`` only where it is strictly better for the mover;
    a turn's forced first roll is ``ROLL``)."""
    n = 2 * target * target * (target + 1)
    out = np.zeros(n, dtype=np.int8)
    for seat in range(2):
        for a in range(target):
            for b in range(target):
                mine = a if seat == 0 else b
                for k in range(target - mine + 1):
                    if k == 0 and not opening_stop:
                        continue
                    roll = _roll_value(v, seat, a, b, k, target, points, probs, bust, bust_all)
                    hold = _hold_value(v, seat, a, b, k, target)
                    better = hold > roll if seat == 0 else hold < roll
                    if better:
                        out[key_of(seat, a, b, k, target)] = HOLD
    return out
