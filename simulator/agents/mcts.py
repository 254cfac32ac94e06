"""The ``mcts`` rung: UCT with the max^n backup, determinised from the mover's view.

Each of ``iterations`` iterations samples what the mover cannot see (``determinize``), walks the
tree from the root choosing, at every node, the child that maximises the UCB1 score *of the seat
to move there* (max^n, Sturtevant 2008: every seat maximises its own result), expands one untried
move, plays a truncated playout by the game's default policy (:mod:`simulator.agents.playout`)
and adds the playout's vector of
per-seat scores to every node on the path.

The tree is open-loop over moves: a node is a sequence of moves, not a state, so chance events
inside ``apply_move`` and hidden state resampled per iteration are handled alike (single-observer
information-set MCTS, Cowling et al. 2012). A child is scored against its *availability* count
(the iterations in which its move was legal) rather than its parent's visits, since a move legal
in one determinisation may be illegal in another.

The tree lives in preallocated arrays (one node per iteration at most), no Python objects: the
children of a node are a linked list (``first_child``, ``next_sibling``). The move played is the
root child visited most (ties: the better mean, then the first found).

One iteration is the four named pieces of the textbook loop, then the final move once the budget
is spent (as Ludii and OpenSpiel split theirs): :func:`select` scores one node's children,
:func:`expand` adds a node, the game's playout (:func:`simulator.agents.playout.make_playout`)
plays on, :func:`backup` adds its scores along the path, and :func:`final_move` chooses. The walk
down the tree that strings selection and expansion together, :func:`make_descent`, is the one
piece that plays the game's moves; the others see only the tree.

Leaning on greedy (:mod:`simulator.agents.prior`, each off at 0), at the root only: ``candidates``
keeps the root's moves to greedy's best; ``prior`` w gives each root child w virtual visits at
greedy's one-step value H (its mean ``(value + w H) / (visits + w)``, its exploration term over
``visits + w``); ``fallback`` z plays greedy's choice unless the most visited child's mean beats
that child's mean by more than z standard errors. Deeper nodes are plain UCT: their one-step
values would cost a copy and a move per legal move at every expansion.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.playout import make_playout, make_search_setup
from simulator.agents.prior import leans_on_greedy, make_guide, means_beat
from simulator.agents.spec import AGENT_EXPLORATION, AGENT_FALLBACK, AGENT_ITERATIONS, AGENT_PRIOR
from simulator.agents.streams import below
from simulator.jit import closure, inline
from simulator.stopflag import requested

# A tree is the tuple new_tree returns: per node, its first child and next sibling (-1: none), the
# move leading to it, its visits and availability, and its summed scores per seat; per root child,
# the mover's prior value and the sum of the mover's squared scores (for the fallback's test).


@inline
def new_tree(cap, seats):
    """An empty tree of ``cap`` nodes (the root is node 0) for ``seats`` seats."""
    first_child = np.full(cap, -1, dtype=np.int64)
    next_sibling = np.full(cap, -1, dtype=np.int64)
    move_of = np.zeros(cap, dtype=np.int64)
    visits = np.zeros(cap, dtype=np.int64)
    avail = np.zeros(cap, dtype=np.int64)
    value = np.zeros((cap, seats), dtype=np.float64)
    prior = np.zeros(cap, dtype=np.float64)
    square = np.zeros(cap, dtype=np.float64)
    return first_child, next_sibling, move_of, visits, avail, value, prior, square


@inline
def select(tree, node, moves, n, p, weight, c_explore, rng):
    """Selection at ``node`` among the legal ``moves[:n]``, for seat ``p`` to move.

    Counts each tried move's availability, scores it by UCB1 over its availability (at the root
    with ``weight`` virtual visits at its prior value), and draws one untried move uniformly
    (one draw from ``rng`` per untried move, in order). Returns ``(best child or -1, index in
    moves of the drawn untried move or -1, number of untried moves)``."""
    first_child, next_sibling, move_of, visits, avail, value, prior, _ = tree
    best = -1
    best_score = -np.inf
    untried = 0
    pick = -1
    for k in range(n):
        child = first_child[node]
        while child >= 0 and move_of[child] != moves[k]:
            child = next_sibling[child]
        if child < 0:
            untried += 1
            if below(rng, untried) == 0:
                pick = k
        else:
            avail[child] += 1
            if node == 0 and weight > 0:
                seen = visits[child] + weight
                score = (value[child, p] + weight * prior[child]) / seen + c_explore * np.sqrt(
                    np.log(avail[child]) / seen
                )
            else:
                score = value[child, p] / visits[child] + c_explore * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
            if score > best_score:
                best_score = score
                best = child
    return best, pick, untried


@inline
def expand(tree, node, child, move, root_moves, root_values, n_root):
    """Expansion: node ``child`` (the next free one) becomes ``node``'s child by ``move``, with
    availability 1; a root child takes its move's prior value from ``root_values``."""
    first_child, next_sibling, move_of, _, avail, _, prior, _ = tree
    move_of[child] = move
    avail[child] = 1
    next_sibling[child] = first_child[node]
    first_child[node] = child
    if node == 0:
        for k in range(n_root):
            if root_moves[k] == move:
                prior[child] = root_values[k]


@inline
def backup(tree, path, depth, out, me):
    """Backup: add the playout's per-seat scores ``out`` to every node of ``path[:depth]``, and
    the mover's squared score to the root child on it."""
    _, _, _, visits, _, value, _, square = tree
    for d in range(depth):
        nd = path[d]
        visits[nd] += 1
        for q in range(value.shape[1]):
            value[nd, q] += out[q]
    if depth > 1:
        square[path[1]] += out[me] * out[me]


@inline
def final_move(tree, root_moves, n_root, g, z, me):
    """The final move: the most visited legal root child (ties: the better mean for ``me``, then
    the first found); with a ``fallback`` ``z`` > 0, greedy's move ``root_moves[g]`` unless that
    child's mean beats greedy's child's by more than ``z`` standard errors."""
    first_child, next_sibling, move_of, visits, _, value, _, square = tree
    best_move = root_moves[0]
    best_child = -1
    greedy_child = -1
    best_visits = -1
    best_mean = -np.inf
    child = first_child[0]
    while child >= 0:
        legal = False
        for k in range(n_root):
            if root_moves[k] == move_of[child]:
                legal = True
        if legal:
            if g >= 0 and move_of[child] == root_moves[g]:
                greedy_child = child
            mean = value[child, me] / visits[child]
            if visits[child] > best_visits or (visits[child] == best_visits and mean > best_mean):
                best_visits = visits[child]
                best_mean = mean
                best_move = move_of[child]
                best_child = child
        child = next_sibling[child]
    if z > 0 and best_move != root_moves[g]:
        a, b = best_child, greedy_child
        if a < 0 or b < 0:
            return best_move
        if not means_beat(
            value[a, me], square[a], visits[a], value[b, me], square[b], visits[b], z
        ):
            return root_moves[g]
    return best_move


def make_descent(game: GameFunctions) -> Any:
    """``descend(c, tree, n_nodes, path, moves, root_moves, root_values, n_root, pruned, weight,
    c_explore, rng) -> (depth, n_nodes)``: from the root, select and play children of the
    determinised ``c`` until the game ends or one untried move is expanded and played (or, the
    tree full, played without a node); ``path[:depth]`` is the walk, ``moves`` scratch."""
    legal_moves, apply_move, is_over, to_move = (
        game.legal_moves,
        game.apply_move,
        game.is_over,
        game.to_move,
    )

    @closure
    def descend(
        c,
        tree,
        n_nodes,
        path,
        moves,
        root_moves,
        root_values,
        n_root,
        pruned,
        weight,
        c_explore,
        rng,
    ):  # pragma: no cover - compiled
        cap = tree[0].shape[0]
        move_of = tree[2]
        node = 0
        path[0] = 0
        depth = 1
        while not is_over(c):
            p = to_move(c)
            n = legal_moves(c, moves)
            if node == 0 and pruned:
                n = _keep_among(moves, n, root_moves, n_root)
            if n == 0:
                break
            best, pick, untried = select(tree, node, moves, n, p, weight, c_explore, rng)
            if untried > 0 and n_nodes < cap:
                child = n_nodes
                n_nodes += 1
                expand(tree, node, child, moves[pick], root_moves, root_values, n_root)
                apply_move(c, moves[pick], rng)
                path[depth] = child
                depth += 1
                break
            if best < 0:
                # Every legal move untried but the tree is full: play on without a node.
                apply_move(c, moves[pick], rng)
                break
            apply_move(c, move_of[best], rng)
            path[depth] = best
            depth += 1
            node = best
        return depth, n_nodes

    return descend


def make_mcts(game: GameFunctions) -> Any:
    """``mcts_move(s, row, rng) -> move`` with the budget of the packed agent ``row``."""
    n_seats, determinize = game.n_seats, game.determinize
    playout = make_playout(game)
    setup = make_search_setup(game)
    guide = make_guide(game)
    descend = make_descent(game)

    @closure
    def mcts_move(s, row, rng):  # pragma: no cover - compiled
        root_moves, n_root, horizon, me, scratch, out = setup(s, row)
        if n_root == 1:
            return root_moves[0]
        iterations = max(np.int64(row[AGENT_ITERATIONS]), 1)
        c_explore = row[AGENT_EXPLORATION]
        weight = row[AGENT_PRIOR]
        z = row[AGENT_FALLBACK]
        root_values = np.zeros(n_root, dtype=np.float64)
        g = -1
        n_legal = n_root
        if leans_on_greedy(row):
            g, n_root = guide(s, root_moves, n_root, row, rng, root_values)
            if n_root == 1:
                return root_moves[0]
        pruned = n_root < n_legal
        cap = iterations + 1
        tree = new_tree(cap, n_seats(s))
        path = np.empty(cap + 1, dtype=np.int64)
        moves = np.empty(scratch.shape[0], dtype=np.int64)
        n_nodes = 1
        for _ in range(iterations):
            if requested():  # a signal: play the best move found so far (the trial is dropped)
                break
            c = determinize(s, me, rng)
            depth, n_nodes = descend(
                c, tree, n_nodes, path, moves, root_moves, root_values, n_root, pruned, weight,
                c_explore, rng,
            )  # fmt: skip
            playout(c, horizon, rng, scratch, out)
            backup(tree, path, depth, out, me)
        return final_move(tree, root_moves, n_root, g, z, me)

    return mcts_move


@inline
def _keep_among(moves, n, kept, n_kept):
    """Compact ``moves[:n]`` to those in ``kept[:n_kept]``, in order; returns how many."""
    m = 0
    for i in range(n):
        for k in range(n_kept):
            if kept[k] == moves[i]:
                moves[m] = moves[i]
                m += 1
                break
    return m
