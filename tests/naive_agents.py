"""Plain-Python twins of the agents, reading the same random words as the compiled ones.

Each twin calls the game's compiled interface functions (the game is not what is under test here)
but does the agents' own work — move choice, tie-breaks, playouts, the tree — with Python
integers, lists and dicts, as a person would write it from the description in
``simulator/agents``. The tests demand the same move as the compiled agent, not a close one.
"""

from __future__ import annotations

import math

import numpy as np

from tests.naive import GAMMA, MASK, mix64

DECISION_SALT = 0xD1CE5EEDA6E70001


def next_word(rng: np.ndarray) -> int:
    rng[0] = np.uint64((int(rng[0]) + GAMMA) & MASK)
    return mix64(int(rng[0]))


def below(rng: np.ndarray, n: int) -> int:
    return ((next_word(rng) & 0xFFFFFFFF) * n) >> 32


def decision_seed(trial_seed: int, counter: int) -> int:
    return mix64(trial_seed ^ mix64((DECISION_SALT + counter) & MASK))


def _legal(g, s) -> list[int]:
    buf = np.empty(g.max_moves, dtype=np.int64)
    n = g.legal_moves(s, buf)
    return [int(x) for x in buf[:n]]


def _score(g, s) -> list[float]:
    out = np.empty(int(g.n_seats(s)), dtype=np.float64)
    (g.returns if g.is_over(s) else g.heuristic)(s, out)
    return list(out)


def _argmax_random_ties(values: list[float], moves: list[int], rng) -> int:
    best, best_move, ties = -math.inf, moves[0], 0
    for v, m in zip(values, moves, strict=True):
        if v > best:
            best, best_move, ties = v, m, 1
        elif v == best:
            ties += 1
            if below(rng, ties) == 0:
                best_move = m
    return best_move


def random_move(g, s, rng) -> int:
    moves = _legal(g, s)
    return moves[below(rng, len(moves))]


def greedy_move(g, s, rng) -> int:
    moves = _legal(g, s)
    if len(moves) == 1:
        return moves[0]
    me = int(g.to_move(s))
    dice = next_word(rng)
    view = g.determinize(s, me, rng)
    values = []
    for m in moves:
        c = g.copy_state(view)
        g.apply_move(c, m, np.array([dice], dtype=np.uint64))
        values.append(_score(g, c)[me])
    return _argmax_random_ties(values, moves, rng)


def playout(g, s, horizon: int, rng) -> list[float]:
    start = int(g.round_of(s))
    while not g.is_over(s):
        if horizon > 0 and int(g.round_of(s)) - start >= horizon:
            break
        moves = _legal(g, s)
        g.apply_move(s, moves[below(rng, len(moves))], rng)
    return _score(g, s)


def rollout_move(g, s, playouts: int, horizon: int, rng) -> int:
    moves = _legal(g, s)
    if len(moves) == 1:
        return moves[0]
    me = int(g.to_move(s))
    totals = [0.0] * len(moves)
    for _ in range(playouts):
        stream = np.array([next_word(rng)], dtype=np.uint64)
        view = g.determinize(s, me, stream)
        start = int(stream[0])
        for i, m in enumerate(moves):
            c = g.copy_state(view)
            stream[0] = np.uint64(start)
            g.apply_move(c, m, stream)
            totals[i] += playout(g, c, horizon, stream)[me]
    return _argmax_random_ties(totals, moves, rng)


class _Node:
    def __init__(self, move: int, seats: int) -> None:
        self.move = move
        self.children: list[_Node] = []  # newest first, as the compiled linked list
        self.visits = 0
        self.avail = 1
        self.value = [0.0] * seats


def mcts_move(g, s, iterations: int, horizon: int, c_explore: float, rng) -> int:
    root_moves = _legal(g, s)
    if len(root_moves) == 1:
        return root_moves[0]
    me = int(g.to_move(s))
    seats = int(g.n_seats(s))
    root = _Node(-1, seats)
    nodes = 1
    for _ in range(iterations):
        c = g.determinize(s, me, rng)
        node, path = root, [root]
        while not g.is_over(c):
            p = int(g.to_move(c))
            moves = _legal(g, c)
            if not moves:
                break
            best, best_score, untried, pick = None, -math.inf, 0, -1
            for k, m in enumerate(moves):
                child = next((ch for ch in node.children if ch.move == m), None)
                if child is None:
                    untried += 1
                    if below(rng, untried) == 0:
                        pick = k
                else:
                    child.avail += 1
                    sc = child.value[p] / child.visits + c_explore * math.sqrt(
                        math.log(child.avail) / child.visits
                    )
                    if sc > best_score:
                        best, best_score = child, sc
            if untried > 0 and nodes < iterations + 1:
                child = _Node(moves[pick], seats)
                nodes += 1
                node.children.insert(0, child)
                g.apply_move(c, moves[pick], rng)
                path.append(child)
                break
            if best is None:
                g.apply_move(c, moves[pick], rng)
                break
            g.apply_move(c, best.move, rng)
            path.append(best)
            node = best
        out = playout(g, c, horizon, rng)
        for nd in path:
            nd.visits += 1
            nd.value = [a + b for a, b in zip(nd.value, out, strict=True)]
    best_move, best_visits, best_mean = root_moves[0], -1, -math.inf
    for child in root.children:
        if child.move in root_moves:
            mean = child.value[me] / child.visits
            if child.visits > best_visits or (child.visits == best_visits and mean > best_mean):
                best_move, best_visits, best_mean = child.move, child.visits, mean
    return best_move
