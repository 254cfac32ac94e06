"""Whole races played over the game interface, for powers whose choice is made by a search agent.

``search_kernel`` has the kernel contract. Each game starts from the variant's state
(:func:`~.state.new_state`), plays to each decision (:func:`~.state.advance`) and asks the power's
agent: ``random`` and ``greedy`` are this package's own (:mod:`.choice`, the same calls the race
kernel makes), ``rollout`` and ``mcts`` the generic search agents of simulator.agents over
``GAME``. Decision ``k`` of a trial reads sub-stream ``k`` as in the race kernel, so with no search
agent this kernel gives the race kernel's numbers bit for bit (a test holds them together).
"""

from __future__ import annotations

import numpy as np

from simulator.accumulate import (
    BLOCK,
    UNDEFINED,
    accumulate_block,
    block_count,
    new_stats,
    trial_block,
)
from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_CODES, AGENT_KIND, AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import kernel
from simulator.procedures.his.new_world.choice import choose_option, south_america_options
from simulator.procedures.his.new_world.game import GAME
from simulator.procedures.his.new_world.metrics import (
    M_CARDS,
    M_CARDS_CIRC,
    M_CARDS_RICHES,
    M_CHOSE,
    M_COLONIES,
    M_CONQUESTS,
    M_CP,
    M_DRAWS,
    M_FIRST,
    M_GAP_COL,
    M_GAP_CONQ,
    M_LOST,
    M_SKIPPED,
    M_TURN_OF,
    M_VP,
    M_WINS,
    N_METRICS,
    WIN_SCALE,
)
from simulator.procedures.his.new_world.params import AGENT_ROWS
from simulator.procedures.his.new_world.state import (
    MAX_MOVES,
    P0,
    PW,
    S_CLAIMED,
    S_GAP_COL,
    S_GAP_CONQ,
    S_OBJECTIVE,
    S_OWNER,
    S_PENDING,
    S_TURN_OF,
    STATE_SIZE,
    W_CHOSE,
    W_CIRC_CARDS,
    W_COLONIES,
    W_CONQUESTS,
    W_CP,
    W_LOST,
    W_RATING,
    W_RICHES_CARDS,
    W_SKIPPED,
    W_VP,
    apply_move,
    is_over,
    new_state,
    start_game,
)
from simulator.rng import trial_state

GREEDY = AGENT_CODES["greedy"]

#: The generic search rungs (rollout, mcts) compiled for this game.
search_agents = make_search_agents(GAME)


@kernel
def search_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, N_METRICS, BLOCK + 8), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    decision = np.zeros(1, dtype=np.uint64)
    options = np.zeros(MAX_MOVES, dtype=np.int64)
    vp = np.zeros(3, dtype=np.int64)
    agents = np.zeros((3, AGENT_ROW), dtype=np.float64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            row = packed[v].copy()
            template = new_state(row)
            for w in range(3):
                for j in range(AGENT_ROW):
                    agents[w, j] = row[AGENT_ROWS + w * AGENT_ROW + j]
            for i in range(m):
                rng[0] = trial_state(key, start + i)
                trial_seed = rng[0]
                start_game(s, template, rng)
                k = 0
                while not is_over(s):
                    w = s[S_PENDING]
                    start_decision(decision, trial_seed, k)
                    k += 1
                    kind = np.int64(agents[w, AGENT_KIND])
                    if kind <= GREEDY:
                        n = south_america_options(s[S_CLAIMED], options)
                        for o in range(3):
                            vp[o] = s[P0 + o * PW + W_VP]
                        move = choose_option(
                            kind,
                            s[S_OBJECTIVE],
                            w,
                            s[P0 + w * PW + W_RATING],
                            options,
                            n,
                            vp,
                            decision,
                        )
                    else:
                        move = search_agents(s, agents[w], decision)
                    apply_move(s, move, rng)
                best = -1
                for w in range(3):
                    best = max(best, s[P0 + w * PW + W_VP])
                n_top = 0
                for w in range(3):
                    n_top += s[P0 + w * PW + W_VP] == best
                for w in range(3):
                    b = P0 + w * PW
                    values[v, M_VP + w, i] = s[b + W_VP]
                    values[v, M_CARDS + w, i] = s[b + W_RICHES_CARDS] + s[b + W_CIRC_CARDS]
                    values[v, M_CARDS_RICHES + w, i] = s[b + W_RICHES_CARDS]
                    values[v, M_CARDS_CIRC + w, i] = s[b + W_CIRC_CARDS]
                    values[v, M_COLONIES + w, i] = s[b + W_COLONIES]
                    values[v, M_CONQUESTS + w, i] = s[b + W_CONQUESTS]
                    values[v, M_CP + w, i] = s[b + W_CP]
                    values[v, M_LOST + w, i] = s[b + W_LOST]
                    values[v, M_SKIPPED + w, i] = s[b + W_SKIPPED]
                    values[v, M_WINS + w, i] = (WIN_SCALE // n_top) * (s[b + W_VP] == best)
                    for o in range(3):
                        values[v, M_CHOSE + 3 * o + w, i] = s[b + W_CHOSE + o]
                for d in range(9):
                    owner = s[S_OWNER + d]
                    for w in range(3):
                        values[v, M_FIRST + 3 * d + w, i] = owner == w
                    values[v, M_TURN_OF + d, i] = s[S_TURN_OF + d] if owner >= 0 else UNDEFINED
                values[v, M_GAP_CONQ, i] = s[S_GAP_CONQ]
                values[v, M_GAP_COL, i] = s[S_GAP_COL]
                values[v, M_DRAWS, i] = n_top > 1
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
