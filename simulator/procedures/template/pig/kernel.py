"""Pig: the kernel (one whole game per trial, played by the seats' agents) and its metric values.

Trial ``t`` plays one game on its own stream (``trial_state``); every decision reads its own
sub-stream (:func:`simulator.agents.factory.make_player`), so a game replays bit for bit on any
thread or worker, and every variant plays the same deals (common random numbers). An
``optimal`` seat plays the solved table that follows the packed row
(:mod:`simulator.agents.table`).
"""

from __future__ import annotations

import numpy as np

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.agents.factory import make_agents
from simulator.agents.spec import AGENT_ROW
from simulator.agents.table import make_table_player
from simulator.jit import inline, kernel
from simulator.procedures.template.pig.game import GAME
from simulator.procedures.template.pig.params import (
    DRAWS,
    LENGTH,
    MAX_SEATS,
    N_FAMILIES,
    P_AGENTS,
    P_FIRST_METRIC,
    P_PLAYERS,
    P_TABLE,
    PIGS,
    WINS,
)
from simulator.procedures.template.pig.state import (
    H_PIGS,
    H_PLAYERS,
    H_TURN,
    H_WINNER,
    STATE_SIZE,
    start_game,
)
from simulator.rng import trial_state

choose = make_agents(GAME)
play = make_table_player(GAME, choose)


@inline
def write_metrics(s, values, v, i, first):
    """Game ``i``'s metric values under variant ``v``, each family from its first slot."""
    for o in range(s[H_PLAYERS]):
        values[v, first[WINS] + o, i] = s[H_WINNER] == o
    values[v, first[DRAWS], i] = s[H_WINNER] < 0
    values[v, first[LENGTH], i] = s[H_TURN] + 1 if s[H_WINNER] >= 0 else s[H_TURN]
    values[v, first[PIGS], i] = s[H_PIGS]


@kernel
def pig_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    first = np.zeros(N_FAMILIES, dtype=np.int64)
    agents = np.zeros((MAX_SEATS, AGENT_ROW), dtype=np.float64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            row = packed[v]
            table = row[P_TABLE:]  # an optimal seat's moves (empty without one)
            for k in range(N_FAMILIES):
                first[k] = np.int64(row[P_FIRST_METRIC + k])
            for o in range(np.int64(row[P_PLAYERS])):
                for j in range(AGENT_ROW):
                    agents[o, j] = row[P_AGENTS + o * AGENT_ROW + j]
            for i in range(m):
                seed = trial_state(key, start + i)
                rng[0] = seed
                start_game(s, row, rng)
                play(s, agents, table, seed, rng, 0)
                write_metrics(s, values, v, i, first)
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
