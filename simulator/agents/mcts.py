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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.playout import make_playout, make_search_setup
from simulator.agents.spec import AGENT_EXPLORATION, AGENT_ITERATIONS
from simulator.agents.streams import below
from simulator.jit import closure


def make_mcts(game: GameFunctions) -> Any:
    """``mcts_move(s, row, rng) -> move`` with the budget of the packed agent ``row``."""
    legal_moves, apply_move, is_over = game.legal_moves, game.apply_move, game.is_over
    to_move, n_seats, determinize = game.to_move, game.n_seats, game.determinize
    playout = make_playout(game)
    setup = make_search_setup(game)

    @closure
    def mcts_move(s, row, rng):  # pragma: no cover - compiled
        root_moves, n_root, horizon, me, scratch, out = setup(s, row)
        if n_root == 1:
            return root_moves[0]
        iterations = max(np.int64(row[AGENT_ITERATIONS]), 1)
        c_explore = row[AGENT_EXPLORATION]
        seats = n_seats(s)
        cap = iterations + 1
        first_child = np.full(cap, -1, dtype=np.int64)
        next_sibling = np.full(cap, -1, dtype=np.int64)
        move_of = np.zeros(cap, dtype=np.int64)
        visits = np.zeros(cap, dtype=np.int64)
        avail = np.zeros(cap, dtype=np.int64)
        value = np.zeros((cap, seats), dtype=np.float64)
        path = np.empty(cap + 1, dtype=np.int64)
        moves = np.empty(scratch.shape[0], dtype=np.int64)
        n_nodes = 1
        for _ in range(iterations):
            c = determinize(s, me, rng)
            node = 0
            path[0] = 0
            depth = 1
            while not is_over(c):
                p = to_move(c)
                n = legal_moves(c, moves)
                if n == 0:
                    break
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
                        score = value[child, p] / visits[child] + c_explore * np.sqrt(
                            np.log(avail[child]) / visits[child]
                        )
                        if score > best_score:
                            best_score = score
                            best = child
                if untried > 0 and n_nodes < cap:
                    child = n_nodes
                    n_nodes += 1
                    move_of[child] = moves[pick]
                    avail[child] = 1
                    next_sibling[child] = first_child[node]
                    first_child[node] = child
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
            playout(c, horizon, rng, scratch, out)
            for d in range(depth):
                nd = path[d]
                visits[nd] += 1
                for q in range(seats):
                    value[nd, q] += out[q]
        best_move = root_moves[0]
        best_visits = -1
        best_mean = -np.inf
        child = first_child[0]
        while child >= 0:
            legal = False
            for k in range(n_root):
                if root_moves[k] == move_of[child]:
                    legal = True
            if legal:
                mean = value[child, me] / visits[child]
                if visits[child] > best_visits or (
                    visits[child] == best_visits and mean > best_mean
                ):
                    best_visits = visits[child]
                    best_mean = mean
                    best_move = move_of[child]
            child = next_sibling[child]
        return best_move

    return mcts_move
