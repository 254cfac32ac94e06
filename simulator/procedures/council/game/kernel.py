"""The council game's kernel: the turn loop, metric values and the trial loop (a game in which a
seat searches is played through the game interface, :mod:`.interface`)."""

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
from simulator.agents.spec import AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import borrowed, kernel, leaf
from simulator.procedures.council.game import params
from simulator.procedures.council.game.actions import actions_phase
from simulator.procedures.council.game.context import CTX, CUR, SEARCH, X_CLAMPS, X_OVERFLOW
from simulator.procedures.council.game.economy import income_phase, spending_phase, tax_phase
from simulator.procedures.council.game.heuristic import record_round
from simulator.procedures.council.game.interface import GAME, apply_move, is_over, to_move
from simulator.procedures.council.game.interface import start as start_game
from simulator.procedures.council.game.mercenaries import phase_window, reveal_step
from simulator.procedures.council.game.params import (
    GAP_STALLED,
    MAX_PLAYERS,
    METRICS,
    N_GAPS,
    N_METRICS_BASE,
    V_DRAW,
    WIN_SCALE,
    CouncilGameParams,
    metric_slot,
    pack,
)
from simulator.procedures.council.game.setup import audit, setup
from simulator.procedures.council.game.state import (
    ADVICE_NO_PRIORITY,
    CHECK,
    CONTESTED,
    COWARDLY_LEFT,
    DECIDED_AT,
    DONE,
    EMPTY_CHANCES,
    GAP_COUNTS,
    KILLED,
    LAWS_PASSED,
    LEAD_CHANGES,
    MAX_TURNS,
    MERCENARIES_ON,
    PHASE_REVEALS,
    PLAYED,
    PLAYERS,
    POSITION_SIZE,
    RUN,
    SCRATCH_SIZE,
    SPENDING_TIED,
    TURN,
    VACANT_HEADS,
    VICTORY,
    VIOLATIONS,
    WINDOW,
    WINNERS,
)
from simulator.procedures.council.game.victory import check_victory, draw_at_turn_limit
from simulator.rng import trial_state

#: The metric row's offsets (params.METRICS), written by name.
M_WINS = METRICS.at("wins")
M_VICTORY = METRICS.at("victory")  # params.VICTORIES in order
M_DRAWS = METRICS.at("draws")
M_LENGTH = METRICS.at("length")
M_LEAD_CHANGES = METRICS.at("lead_changes")
M_DECIDED_AT = METRICS.at("decided_at")
M_LAWS_PASSED = METRICS.at("laws_passed")
M_KILLED = METRICS.at("characters_killed")
M_PLAYED = METRICS.at("mercenaries_played")  # params.MERC_KINDS in order
M_CONTESTED = METRICS.at("contested_lands")
M_GAPS = METRICS.at("gap")  # params.GAPS in order
M_EMPTY_HEAD_CHANCES = METRICS.at("empty_head_chances")
M_CUT_BY_TURN_LIMIT = METRICS.at("cut_by_turn_limit")
M_PHASE_REVEALS = METRICS.at("phase_reveals")
M_ADVICE_WITHOUT_PRIORITY = METRICS.at("advice_without_priority")
M_SPENDING_TIES = METRICS.at("spending_ties")
M_VACANT_HEADS = METRICS.at("vacant_heads")
M_COWARDLY_LEFT = METRICS.at("cowardly_left")
METRICS_SIZE = METRICS.size


@kernel
def play_game(row, context, state, scratch, check):
    """One whole game from ``context``'s stream; the result is left in ``state``. An entry
    point: it works on borrowed views of its arrays (simulator.jit.borrowed), which the caller
    keeps alive for the call."""
    row = borrowed(row)
    context = borrowed(context)
    state = borrowed(state)
    scratch = borrowed(scratch)
    setup(row, context, state, scratch)
    state[CHECK] = check
    audit(state)
    for t in range(1, state[MAX_TURNS] + 1):
        if state[DONE] == 1:
            break
        state[TURN] = t
        if state[MERCENARIES_ON] == 1:
            state[WINDOW] = 0
            reveal_step(context, state, scratch)
            audit(state)
            if state[DONE] == 1:
                break
        income_phase(context, state, scratch)
        audit(state)
        if state[DONE] == 1:
            break
        if phase_window(context, state, scratch):
            break
        spending_phase(context, state, scratch)
        audit(state)
        if state[DONE] == 1:
            break
        if phase_window(context, state, scratch):
            break
        actions_phase(context, state, scratch)
        audit(state)
        if state[DONE] == 1:
            break
        if phase_window(context, state, scratch):
            break
        tax_phase(context, state, scratch)
        audit(state)
        record_round(state, scratch, t)
        if state[DONE] == 1 or check_victory(state):
            break
    if state[DONE] == 0:
        draw_at_turn_limit(state)
    record_round(state, scratch, state[TURN])


@kernel
def game_values(state, out):
    """The metric values of a finished game, written by name into ``out`` (:data:`.params.
    METRICS`)."""
    n_players = state[PLAYERS]
    winners = 0
    for p in range(n_players):
        winners += (state[WINNERS] >> p) & 1
    for p in range(n_players):
        out[M_WINS + p] = WIN_SCALE // winners if (state[WINNERS] >> p) & 1 else 0
    for v in range(5):
        out[M_VICTORY + v] = 1 if state[VICTORY] == v else 0
    out[M_DRAWS] = 1 if state[VICTORY] == V_DRAW else 0
    out[M_LENGTH] = state[TURN]
    out[M_LEAD_CHANGES] = state[LEAD_CHANGES]
    out[M_DECIDED_AT] = UNDEFINED
    if winners == 1:
        led = state[RUN] >= 0 and state[WINNERS] == 1 << state[RUN]
        out[M_DECIDED_AT] = state[DECIDED_AT] if led else state[TURN]
    out[M_LAWS_PASSED] = state[LAWS_PASSED]
    out[M_KILLED] = state[KILLED]
    for k in range(5):
        out[M_PLAYED + k] = state[PLAYED + k]
    out[M_CONTESTED] = state[CONTESTED]
    for k in range(N_GAPS):
        out[M_GAPS + k] = state[GAP_COUNTS + k]
    out[M_EMPTY_HEAD_CHANCES] = state[EMPTY_CHANCES]
    stalled = state[GAP_COUNTS + GAP_STALLED] != 0
    out[M_CUT_BY_TURN_LIMIT] = 1 if state[VICTORY] == V_DRAW and not stalled else 0
    out[M_PHASE_REVEALS] = state[PHASE_REVEALS]
    out[M_ADVICE_WITHOUT_PRIORITY] = state[ADVICE_NO_PRIORITY]
    out[M_SPENDING_TIES] = state[SPENDING_TIED]
    out[M_VACANT_HEADS] = state[VACANT_HEADS]
    out[M_COWARDLY_LEFT] = state[COWARDLY_LEFT]


_search = make_search_agents(GAME)


@kernel
def search_move(s, agent_row, rng):
    """The move a search agent (packed ``agent_row``) makes in interface state ``s``."""
    return _search(s, agent_row, rng)


@kernel
def searching(row):
    """Whether a seat of this row is played by a search agent (rollout, mcts)."""
    n = 0
    for p in range(np.int64(row[params.PLAYERS])):
        n += row[params.POLICIES + p] >= SEARCH
    return n > 0


# Pasted into its one caller (jit.leaf's flags): one compiled layer fewer that carries the whole
# game (Numba links, optimises and emits again everything a compiled function calls).
@leaf
def search_play(row, key, trial, check, out):
    """One whole game through the game interface: searching seats choose by their agent on
    decision sub-stream k of the trial (simulator.agents.streams), everything else reads the
    trial's stream as :func:`play_game` does. Returns the invariant violations."""
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = trial_state(key, trial)
    trial_key = rng[0]
    agents = np.zeros((MAX_PLAYERS, AGENT_ROW), dtype=np.float64)
    for p in range(np.int64(row[params.PLAYERS])):
        for j in range(AGENT_ROW):
            agents[p, j] = row[params.AGENTS + p * AGENT_ROW + j]
    s = start_game(row, check, rng)
    decision = np.zeros(1, dtype=np.uint64)
    k = 0
    while not is_over(s):
        seat = to_move(s)
        start_decision(decision, trial_key, k)
        k += 1
        apply_move(s, _search(s, agents[seat], decision), rng)
    state = s[CUR : CUR + POSITION_SIZE]  # a view that keeps s alive (not borrowed)
    # A scripted choice out of range cannot happen in the real game (nothing is resampled).
    state[VIOLATIONS] += s[X_CLAMPS] + s[X_OVERFLOW]
    game_values(state, out)
    return state[VIOLATIONS]


@kernel
def buffers_play(row, key, trial, check, out):
    """One game of trial ``trial``: its metric row in ``out`` (METRICS); the invariant
    violations returned. Three arrays a game: the stream (``context``), the position and the
    phases' scratch (:func:`play_game` plays on borrowed views of them)."""
    if searching(row):
        return search_play(row, key, trial, check, out)
    context = np.zeros(CTX, dtype=np.uint64)
    context[0] = trial_state(key, trial)
    state = np.zeros(POSITION_SIZE, dtype=np.int64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    play_game(row, context, state, scratch, check)
    game_values(state, out)
    return state[VIOLATIONS]


@kernel
def council_game_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    players = np.int64(packed[0, params.PLAYERS])
    n_metrics = players + N_METRICS_BASE
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    out = np.zeros(METRICS_SIZE, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for i in range(m):
            for v in range(n_variants):
                # np.int64: a literal 0 would compile the whole game once more (heuristic.gain_at).
                buffers_play(packed[v], key, start + i, np.int64(0), out)
                for k in range(n_metrics):
                    values[v, k, i] = out[k if k < players else k - players + MAX_PLAYERS]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


@kernel
def invariant_violations(row, key, first_trial, n_trials):
    """Games first..first+n-1 with every invariant audited after each phase: total violations."""
    out = np.zeros(METRICS_SIZE, dtype=np.int64)
    bad = 0
    for t in range(first_trial, first_trial + n_trials):
        bad += buffers_play(row, key, t, np.int64(1), out)
    return bad


def play_one(p: CouncilGameParams, key: int, trial: int) -> list[int]:
    """The metric values of one game in the order of metrics() (for tests and notebooks)."""
    out = np.zeros(METRICS_SIZE, dtype=np.int64)
    buffers_play(pack(p), np.uint64(key), np.int64(trial), np.int64(0), out)
    n = p.players + N_METRICS_BASE
    return [int(out[metric_slot(k, p.players)]) for k in range(n)]
