"""Plain-Python twins of the agents, reading the same random words as the compiled ones.

Each twin calls the game's compiled interface functions (the game is not what is under test here)
but does the agents' own work — move choice, tie-breaks, playouts, the tree — with Python
integers, lists and dicts, as a person would write it from the description in
``simulator/agents``. The tests demand the same move as the compiled agent, not a close one.
"""

from __future__ import annotations

import math
import statistics

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


def move_values(g, s, moves: list[int], rng) -> list[float]:
    """The one-step values greedy ranks ``moves`` by: the game's own ``move_values`` if it has
    one, else each move on a copy of one determinisation, the chance after it on one shared
    word, the score for the mover."""
    if g.move_values is not None:
        out = np.empty(len(moves), dtype=np.float64)
        g.move_values(s, np.asarray(moves, dtype=np.int64), len(moves), rng, out)
        return list(out)
    me = int(g.to_move(s))
    dice = next_word(rng)
    view = g.determinize(s, me, rng)
    values = []
    for m in moves:
        c = g.copy_state(view)
        g.apply_move(c, m, np.array([dice], dtype=np.uint64))
        values.append(_score(g, c)[me])
    return values


def greedy_move(g, s, rng) -> int:
    moves = _legal(g, s)
    if len(moves) == 1:
        return moves[0]
    return _argmax_random_ties(move_values(g, s, moves, rng), moves, rng)


def guide(g, s, moves: list[int], candidates: int, rng) -> tuple[int, list[int], list[float]]:
    """Greedy's values and choice (an index); with ``0 < candidates < len(moves)``, the moves cut
    to greedy's choice followed by the best others (ties in legal order), its index then 0."""
    values = move_values(g, s, moves, rng)
    pick = moves.index(_argmax_random_ties(values, moves, rng))
    if not 0 < candidates < len(moves):
        return pick, moves, values
    others = sorted((i for i in range(len(moves)) if i != pick), key=lambda i: -values[i])
    keep = [pick, *others[: candidates - 1]]
    return 0, [moves[i] for i in keep], [values[i] for i in keep]


def _beats_paired(diffs: list[float], z: float) -> bool:
    if len(diffs) < 2:
        return False
    mean = statistics.fmean(diffs)
    return mean > z * statistics.stdev(diffs) / math.sqrt(len(diffs))


def _beats(a: list[float], b: list[float], z: float) -> bool:
    if not b:
        return True
    if len(a) < 2 or len(b) < 2:
        return False
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return statistics.fmean(a) - statistics.fmean(b) > z * se


def playout(g, s, horizon: int, rng) -> list[float]:
    start = int(g.round_of(s))
    while not g.is_over(s):
        if horizon > 0 and int(g.round_of(s)) - start >= horizon:
            break
        if g.default_move is not None:  # the game's own playout policy
            g.apply_move(s, g.default_move(s, rng), rng)
            continue
        moves = _legal(g, s)
        g.apply_move(s, moves[below(rng, len(moves))], rng)
    return _score(g, s)


#: ``(candidates, prior, fallback)`` of an agent that does not lean on greedy.
PLAIN = (0, 0.0, 0.0)


def rollout_move(g, s, playouts: int, horizon: int, rng, knobs=PLAIN) -> int:
    candidates, prior, fallback = knobs
    moves = _legal(g, s)
    if len(moves) == 1:
        return moves[0]
    me = int(g.to_move(s))
    values = [0.0] * len(moves)
    pick = -1
    if candidates or prior or fallback:
        pick, moves, values = guide(g, s, moves, candidates, rng)
        if len(moves) == 1:
            return moves[0]
    results: list[list[float]] = [[] for _ in moves]
    for _ in range(playouts):
        stream = np.array([next_word(rng)], dtype=np.uint64)
        view = g.determinize(s, me, stream)
        start = int(stream[0])
        for i, m in enumerate(moves):
            c = g.copy_state(view)
            stream[0] = np.uint64(start)
            g.apply_move(c, m, stream)
            results[i].append(playout(g, c, horizon, stream)[me])
    # The one-step value counts as `prior` playouts: (sum + w H) / (P + w) ranks as sum + w H.
    scores = [sum(r, 0.0) + prior * h for r, h in zip(results, values, strict=True)]
    best = moves.index(_argmax_random_ties(scores, moves, rng))
    if fallback and best != pick:
        diffs = [a - b for a, b in zip(results[best], results[pick], strict=True)]
        if not _beats_paired(diffs, fallback):
            return moves[pick]
    return moves[best]


class _Node:
    def __init__(self, move: int, seats: int, prior: float = 0.0) -> None:
        self.move = move
        self.children: list[_Node] = []  # newest first, as the compiled linked list
        self.visits = 0
        self.avail = 1
        self.value = [0.0] * seats
        self.prior = prior  # root children: greedy's one-step value of the move
        self.results: list[float] = []  # root children: the mover's result of each visit


def mcts_move(g, s, iterations: int, horizon: int, c_explore: float, rng, knobs=PLAIN) -> int:
    candidates, prior, fallback = knobs
    root_moves = _legal(g, s)
    if len(root_moves) == 1:
        return root_moves[0]
    me = int(g.to_move(s))
    seats = int(g.n_seats(s))
    values = [0.0] * len(root_moves)
    pick_greedy = -1
    n_legal = len(root_moves)
    if candidates or prior or fallback:
        pick_greedy, root_moves, values = guide(g, s, root_moves, candidates, rng)
        if len(root_moves) == 1:
            return root_moves[0]
    pruned = len(root_moves) < n_legal
    root = _Node(-1, seats)
    nodes = 1
    for _ in range(iterations):
        c = g.determinize(s, me, rng)
        node, path = root, [root]
        while not g.is_over(c):
            p = int(g.to_move(c))
            moves = _legal(g, c)
            if node is root and pruned:
                moves = [m for m in moves if m in root_moves]
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
                    if node is root and prior > 0:
                        # The prior as `prior` virtual visits at greedy's value.
                        seen = child.visits + prior
                        mean = (child.value[p] + prior * child.prior) / seen
                    else:
                        seen = child.visits
                        mean = child.value[p] / seen
                    sc = mean + c_explore * math.sqrt(math.log(child.avail) / seen)
                    if sc > best_score:
                        best, best_score = child, sc
            if untried > 0 and nodes < iterations + 1:
                h = values[root_moves.index(moves[pick])] if node is root else 0.0
                child = _Node(moves[pick], seats, h)
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
        if len(path) > 1:
            path[1].results.append(out[me])
    chosen, best_visits, best_mean = None, -1, -math.inf
    for child in root.children:
        if child.move in root_moves:
            mean = child.value[me] / child.visits
            if child.visits > best_visits or (child.visits == best_visits and mean > best_mean):
                chosen, best_visits, best_mean = child, child.visits, mean
    if chosen is None:
        return root_moves[0]
    if fallback and chosen.move != root_moves[pick_greedy]:
        greedy = next((ch for ch in root.children if ch.move == root_moves[pick_greedy]), None)
        if greedy is not None and not _beats(chosen.results, greedy.results, fallback):
            return root_moves[pick_greedy]
    return chosen.move
