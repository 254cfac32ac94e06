"""root.hirelings: the kernel (one whole game per trial, its metric values, the engine loop)
and the decision hook.

See :mod:`simulator.procedures.root.hirelings` for the rules.
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
from simulator.agents.spec import AGENT_KIND, AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import inline, kernel
from simulator.procedures.root.hirelings.game import GAME, GREEDY, legacy_move
from simulator.procedures.root.hirelings.params import WIN_SCALE
from simulator.procedures.root.hirelings.state import (
    FAMILIES,
    H_CATCH_UP,
    H_CHANGES,
    H_LEAD_CHANGES,
    H_LEADER,
    H_PROTECTIONS,
    H_ROUND,
    H_SEAT,
    H_STREAK,
    MAX_SEATS,
    P_AGENTS,
    P_FIRST_METRIC,
    P_PLAYERS,
    S_HELD,
    S_HELD_RANK,
    S_SCORE,
    S_SPENT,
    S_SPENT_RANK,
    STATE_SIZE,
    apply_move,
    is_over,
    start_game,
)
from simulator.rng import trial_state

HELD, HELD_RANK = FAMILIES.at("controlled_rounds_seat1"), FAMILIES.at("controlled_rounds_rank1")
SPENT, SPENT_RANK = FAMILIES.at("influence_spent_seat1"), FAMILIES.at("influence_spent_rank1")
CHANGES, PROTECTIONS = FAMILIES.at("control_changes"), FAMILIES.at("protections")
CATCH_UP, WINS, DRAWS = FAMILIES.at("catch_up"), FAMILIES.at("wins_seat1"), FAMILIES.at("draws")
LENGTH, LEAD_CHANGES = FAMILIES.at("length"), FAMILIES.at("lead_changes")
DECIDED_AT = FAMILIES.at("decided_at")
N_FAMILIES = FAMILIES.size

_search = make_search_agents(GAME)


@inline
def choose_move(s, agent_row, rng, decision):
    """The decision hook: random and greedy play this game's own rules on the GAME stream
    ``rng`` (as before the interface), rollout and mcts search on the decision stream."""
    kind = np.int64(agent_row[AGENT_KIND])
    if kind <= GREEDY:
        return legacy_move(s, kind, rng)
    return _search(s, agent_row, decision)


@inline
def play_game(s, row, agents, rng, decision):
    """One whole game from the trial stream in ``rng``; ``s`` holds the final position."""
    trial_key = rng[0]
    start_game(s, row, rng)
    k = 0
    while not is_over(s):
        k += 1
        seat = s[H_SEAT]
        kind = np.int64(agents[seat, AGENT_KIND])
        if kind <= GREEDY:  # no row view: a view costs a reference count per decision
            move = legacy_move(s, kind, rng)
        else:
            start_decision(decision, trial_key, k - 1)
            move = _search(s, agents[seat], decision)
        apply_move(s, move, rng)


@inline
def write_metrics(s, out, players, first):
    """The final position's metric values into ``out``, each family from its first slot
    ``first[family]`` (the packed ``first_metric``, in the order of ``FAMILIES``)."""
    for o in range(players):
        out[first[HELD] + o] = s[S_HELD + o]
        out[first[HELD_RANK] + o] = s[S_HELD_RANK + o]
        out[first[SPENT] + o] = s[S_SPENT + o]
        out[first[SPENT_RANK] + o] = s[S_SPENT_RANK + o]
    out[first[CHANGES]] = s[H_CHANGES]
    out[first[PROTECTIONS]] = s[H_PROTECTIONS]
    out[first[CATCH_UP]] = s[H_CATCH_UP]
    best = -1
    n_top = 0
    for o in range(players):
        if s[S_SCORE + o] > best:
            best = s[S_SCORE + o]
            n_top = 1
        elif s[S_SCORE + o] == best:
            n_top += 1
    for o in range(players):
        out[first[WINS] + o] = WIN_SCALE // n_top if s[S_SCORE + o] == best else 0
    out[first[DRAWS]] = 1 if n_top > 1 else 0
    out[first[LENGTH]] = s[H_ROUND]
    out[first[LEAD_CHANGES]] = s[H_LEAD_CHANGES]
    sole_winner = n_top == 1 and s[H_LEADER] >= 0
    out[first[DECIDED_AT]] = s[H_STREAK] + 1 if sole_winner else UNDEFINED


@kernel
def hirelings_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    decision = np.zeros(1, dtype=np.uint64)
    out = np.zeros(n_metrics, dtype=np.int64)
    first = np.zeros(N_FAMILIES, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            # A private copy: reference counts on the shared packed array would bounce its
            # cache line between threads.
            row = packed[v].copy()
            players = np.int64(row[P_PLAYERS])
            agents = np.zeros((MAX_SEATS, AGENT_ROW), dtype=np.float64)
            for o in range(players):
                for j in range(AGENT_ROW):
                    agents[o, j] = row[P_AGENTS + o * AGENT_ROW + j]
            for k in range(N_FAMILIES):
                first[k] = np.int64(row[P_FIRST_METRIC + k])
            for i in range(m):
                rng[0] = trial_state(key, start + i)
                play_game(s, row, agents, rng, decision)
                write_metrics(s, out, players, first)
                for k in range(n_metrics):
                    values[v, k, i] = out[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
