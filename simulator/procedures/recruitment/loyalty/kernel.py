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

from simulator.accumulate import BLOCK, UNDEFINED, accumulate_block, new_stats
from simulator.agents.spec import AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import borrowed, inline, kernel
from simulator.procedures.recruitment.loyalty.metrics import TAIL, WIN_SCALE
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS, P_AGENTS, P_PLAYERS
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

_DRAWS, _LENGTH, _LEAD_CHANGES, _DECIDED_AT, _GAP_MULTI, _GAP_ZERO, _GAP_EQUIPPED = range(7)
_IN_PLAY, _IN_BANK, _VIOLATIONS = 7, 8, 9
N_TAIL = len(TAIL)
assert TAIL[_DECIDED_AT] == "decided_at" and TAIL[_VIOLATIONS] == "invariant_violations"


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
def write_metrics(s, out):
    """The final position's metric values in ``metrics()`` order (metrics.metric_index)."""
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
            out[b * (players + 1) + 1 + e] = v
        out[b * (players + 1)] = total
    wins = N_COUNTERS * (players + 1)
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
        out[wins + e] = WIN_SCALE // n_top if standing(s, e) == top else 0
    tail = wins + players
    out[tail + _DRAWS] = 1 if n_top > 1 else 0
    out[tail + _LENGTH] = s[H_ROUND]
    out[tail + _LEAD_CHANGES] = s[H_LEAD_CHANGES]
    if n_top == 1 and s[H_LEADER_NOW] == winner:
        out[tail + _DECIDED_AT] = s[H_STREAK_START] + 1
    else:
        out[tail + _DECIDED_AT] = UNDEFINED
    out[tail + _GAP_MULTI] = 1 if out[GAP_MULTI_TIE * (players + 1)] > 0 else 0
    out[tail + _GAP_ZERO] = 1 if out[GAP_ZERO_TIE * (players + 1)] > 0 else 0
    out[tail + _GAP_EQUIPPED] = 1 if out[GAP_EQUIPPED * (players + 1)] > 0 else 0
    out[tail + _IN_PLAY] = in_play
    bank = 0
    for e in range(players):
        bank += s[S_BANK + e]
    out[tail + _IN_BANK] = bank
    out[tail + _VIOLATIONS] = s[H_VIOLATIONS]


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
    m = (N_COUNTERS + 1) * players + N_COUNTERS + N_TAIL
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, m, BLOCK), dtype=np.int64)
    out = np.zeros(m, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    rng = np.zeros(1, dtype=np.uint64)
    decision = np.zeros(1, dtype=np.uint64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        size = min(BLOCK, end - start)
        for v in range(n_variants):
            # A private copy: reference counts on the shared packed array would bounce its
            # cache line between threads.
            row = packed[v].copy()
            agents = agent_rows(row, players)
            for i in range(size):
                rng[0] = trial_state(key, start + i)
                play_game(s, row, agents, rng, decision)
                write_metrics(s, out)
                for j in range(m):
                    values[v, j, i] = out[j]
        accumulate_block(stats, values, size, hist_offset, hist_max)
    return stats
