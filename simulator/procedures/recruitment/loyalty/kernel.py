"""The kernel of ``recruitment.loyalty``: whole games, one per trial, and their metrics.

The play loop is the game interface's: ``to_move`` names the seat, :func:`choose_move` (the one
decision hook, policy.py) asks that seat's agent, ``apply_move`` plays it with the game's chance
stream. Streams: the game's chance events read the trial's own SplitMix64 stream
(``trial_state(key, trial)``); decision ``k`` of a game reads its own sub-stream, keyed by the
one scheme every game's agents use (:func:`simulator.agents.streams.start_decision` of the
trial's stream seed and ``k``), so an agent's search never shifts the game's dice, and every
variant of a scenario replays the same chance words for as long as its positions agree (common
random numbers).
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
from simulator.agents.spec import AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import borrowed, inline, kernel
from simulator.procedures.recruitment.loyalty.metrics import WIN_SCALE
from simulator.procedures.recruitment.loyalty.packing import (
    F_SEATS,
    F_TOTALS,
    F_WINS,
    FAMILIES,
    P_AGENTS,
    P_FIRST_METRIC,
    P_METRIC_COUNT,
    P_PLAYERS,
)
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import (
    LOYALTY_SCALE,
    play_move,
    standing,
    start_game,
)
from simulator.procedures.recruitment.loyalty.policy import choose_move
from simulator.procedures.recruitment.loyalty.state import (
    GAP_EQUIPPED,
    GAP_MULTI_TIE,
    GAP_ZERO_TIE,
    H_LEAD_CHANGES,
    H_LEADER_NOW,
    H_N_CARDS,
    H_PHASE,
    H_PLAYERS,
    H_ROUND,
    H_STREAK_START,
    H_TURN,
    H_VIOLATIONS,
    N_COUNTERS,
    OVER,
    OWNED,
    REMOVED,
    S_BANK,
    S_COUNTS,
    S_STATUS,
    STATE_DTYPE,
    STATE_SIZE,
)
from simulator.rng import trial_state

#: Each tail metric's family (packing.FAMILIES): its slot is the packed ``first_metric`` there.
DRAWS, LENGTH, LEAD_CHANGES = (
    FAMILIES.at("draws"),
    FAMILIES.at("length"),
    FAMILIES.at("lead_changes"),
)
DECIDED_AT, IN_PLAY, IN_BANK = (
    FAMILIES.at("decided_at"),
    FAMILIES.at("characters_in_play"),
    FAMILIES.at("tokens_in_bank"),
)
WITH_GAP_MULTI, WITH_GAP_ZERO, WITH_GAP_EQUIPPED = (
    FAMILIES.at("games_with_gap_multi_tie"),
    FAMILIES.at("games_with_gap_zero_tie"),
    FAMILIES.at("games_with_gap_equipped"),
)
VIOLATIONS = FAMILIES.at("invariant_violations")
N_FAMILIES = FAMILIES.size


@kernel
def play_game(state, row, agents, trial_rng, decision_rng):
    """One whole game from the trial stream in ``trial_rng``; ``state`` holds the final position.
    (Compiled on its own, so that it can play on borrowed views of its arrays: jit.borrowed.)"""
    s = borrowed(state)
    row = borrowed(row)
    agents = borrowed(agents)
    rng = borrowed(trial_rng)
    decision = borrowed(decision_rng)
    trial_key = rng[0]
    start_game(s, row, rng)
    k = 0
    while s[H_PHASE] != OVER:
        seat = s[H_TURN]
        start_decision(decision, trial_key, k)
        k += 1
        move = choose_move(s, agents[seat], decision)
        play_move(s, move, rng)


@inline
def write_metrics(s, first, out):
    """The final position's metric values into ``out``, each family from its first slot
    ``first[family]`` (the packed ``first_metric``, in the order of ``packing.FAMILIES``)."""
    players = s[H_PLAYERS]
    n_cards = s[H_N_CARDS]
    for e in range(players):
        s[S_COUNTS + OWNED * MAX_PLAYERS + e] = standing(s, e) // LOYALTY_SCALE
    in_play = 0
    for c in range(n_cards):
        if s[S_STATUS + c] != REMOVED:
            in_play += 1
    for b in range(N_COUNTERS):
        total = 0
        for e in range(players):
            v = s[S_COUNTS + b * MAX_PLAYERS + e]
            total += v
            out[first[F_SEATS + b] + e] = v
        out[first[F_TOTALS + b]] = total
    top = -1
    n_top = 0
    winner = -1
    for e in range(players):
        v = standing(s, e)
        if v > top:
            top = v
            n_top = 1
            winner = e
        elif v == top:
            n_top += 1
    for e in range(players):
        out[first[F_WINS] + e] = WIN_SCALE // n_top if standing(s, e) == top else 0
    out[first[DRAWS]] = 1 if n_top > 1 else 0
    out[first[LENGTH]] = s[H_ROUND]
    out[first[LEAD_CHANGES]] = s[H_LEAD_CHANGES]
    if n_top == 1 and s[H_LEADER_NOW] == winner:
        out[first[DECIDED_AT]] = s[H_STREAK_START] + 1
    else:
        out[first[DECIDED_AT]] = UNDEFINED
    out[first[WITH_GAP_MULTI]] = 1 if out[first[F_TOTALS + GAP_MULTI_TIE]] > 0 else 0
    out[first[WITH_GAP_ZERO]] = 1 if out[first[F_TOTALS + GAP_ZERO_TIE]] > 0 else 0
    out[first[WITH_GAP_EQUIPPED]] = 1 if out[first[F_TOTALS + GAP_EQUIPPED]] > 0 else 0
    out[first[IN_PLAY]] = in_play
    bank = 0
    for e in range(players):
        bank += s[S_BANK + e]
    out[first[IN_BANK]] = bank
    out[first[VIOLATIONS]] = s[H_VIOLATIONS]


@inline
def agent_rows(row, players):
    """The packed agent rows of the seats, from the params row."""
    agents = np.zeros((MAX_PLAYERS, AGENT_ROW), dtype=np.float64)
    for e in range(players):
        for j in range(AGENT_ROW):
            agents[e, j] = row[P_AGENTS + e * AGENT_ROW + j]
    return agents


@kernel
def loyalty_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    players = np.int64(packed[0, P_PLAYERS])
    m = np.int64(packed[0, P_METRIC_COUNT])
    first = np.zeros(N_FAMILIES, dtype=np.int64)
    for k in range(N_FAMILIES):
        first[k] = np.int64(packed[0, P_FIRST_METRIC + k])
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, m, BLOCK), dtype=np.int64)
    out = np.zeros(m, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    rng = np.zeros(1, dtype=np.uint64)
    decision = np.zeros(1, dtype=np.uint64)
    for block in range(block_count(n_trials)):
        start, size = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            # A private copy: reference counts on the shared packed array would bounce its
            # cache line between threads.
            row = packed[v].copy()
            agents = agent_rows(row, players)
            for i in range(size):
                rng[0] = trial_state(key, start + i)
                play_game(s, row, agents, rng, decision)
                write_metrics(s, first, out)
                for j in range(m):
                    values[v, j, i] = out[j]
        accumulate_block(stats, values, size, hist_offset, hist_max)
    return stats
