"""The council game's kernel: the turn loop, metric values and the trial loop (a game in which a
seat searches is played through the game interface, :mod:`.interface`)."""

from __future__ import annotations

import numpy as np

from simulator.accumulate import BLOCK, UNDEFINED, accumulate_block, new_stats
from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_ROW
from simulator.agents.streams import start_decision
from simulator.jit import kernel
from simulator.procedures.council.game.actions import (
    actions_phase,
)
from simulator.procedures.council.game.context import (
    CTX,
    CUR,
    O_CH,
    O_G,
    SEARCH,
    X_CLAMPS,
    X_OVERFLOW,
)
from simulator.procedures.council.game.economy import (
    income_phase,
    spending_phase,
    tax_phase,
)
from simulator.procedures.council.game.heuristic import (
    record_round,
)
from simulator.procedures.council.game.interface import GAME, apply_move, is_over, to_move
from simulator.procedures.council.game.interface import start as start_game
from simulator.procedures.council.game.mercenaries import (
    phase_window,
    reveal_step,
)
from simulator.procedures.council.game.params import (
    GAP_STALLED,
    H_AGENTS,
    H_PLAYERS,
    H_POLICY,
    MAX_CARDS,
    MAX_LAWS,
    MAX_PLAYERS,
    N_CHARS,
    N_GAPS,
    N_LANDS,
    N_METRICS_BASE,
    V_DRAW,
    WIN_SCALE,
    CouncilGameParams,
    pack,
)
from simulator.procedures.council.game.setup import audit, scratch, setup
from simulator.procedures.council.game.state import (
    G_ADVICE_NO_PRIORITY,
    G_CHECK,
    G_CONTESTED,
    G_DECIDED_AT,
    G_DONE,
    G_EMPTY_CHANCES,
    G_GAP0,
    G_KILLED,
    G_LAWS_PASSED,
    G_LEAD_CHANGES,
    G_MAX_TURNS,
    G_MERC0,
    G_MERCS_ON,
    G_PHASE_REVEALS,
    G_PLAYERS,
    G_RUN,
    G_SIZE,
    G_TURN,
    G_VICTORY,
    G_VIOLATIONS,
    G_WINDOW,
    G_WINMASK,
    N_CHAR_COLS,
)
from simulator.procedures.council.game.victory import (
    check_victory,
    draw_at_turn_limit,
)
from simulator.rng import trial_state


@kernel
def play_game(
    row,
    st,
    tok,
    pl,
    g,
    ch,
    land,
    law,
    card,
    mv,
    score,
    tied,
    cand,
    votes,
    order,
    owner,
    contest,
    decl,
    check,
):
    """One whole game from ``st``'s stream; the result is left in ``g`` (and the position)."""
    setup(row, st, tok, pl, g, ch, land, law, card, mv, score, tied)
    g[G_CHECK] = check
    audit(tok, pl, g, ch, land, card)
    max_turns = g[G_MAX_TURNS]
    for t in range(1, max_turns + 1):
        if g[G_DONE] == 1:
            break
        g[G_TURN] = t
        if g[G_MERCS_ON] == 1:
            g[G_WINDOW] = 0
            reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes)
            audit(tok, pl, g, ch, land, card)
            if g[G_DONE] == 1:
                break
        income_phase(st, tok, pl, g, ch, land, mv, score, tied, owner, contest)
        audit(tok, pl, g, ch, land, card)
        if phase_window(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
            break
        spending_phase(st, tok, pl, g, ch, land, card, mv, score, tied)
        audit(tok, pl, g, ch, land, card)
        if g[G_DONE] == 1:
            break
        if phase_window(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
            break
        actions_phase(
            st, tok, pl, g, ch, land, law, card, mv, score, tied, cand, votes, order, decl
        )
        audit(tok, pl, g, ch, land, card)
        if g[G_DONE] == 1:
            break
        if phase_window(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
            break
        tax_phase(st, tok, pl, g, ch, land, law, owner, contest, tied, score)
        audit(tok, pl, g, ch, land, card)
        record_round(tok, g, ch, tied, t)
        if check_victory(tok, g, land, ch):
            break
    if g[G_DONE] == 0:
        draw_at_turn_limit(tok, g)
    record_round(tok, g, ch, tied, g[G_TURN])


@kernel
def game_values(g, out):
    """The metric values of a finished game, in the order of metrics()."""
    n_players = g[G_PLAYERS]
    winners = 0
    for p in range(n_players):
        winners += (g[G_WINMASK] >> p) & 1
    for p in range(n_players):
        out[p] = WIN_SCALE // winners if (g[G_WINMASK] >> p) & 1 else 0
    m = n_players
    for v in range(5):
        out[m + v] = 1 if g[G_VICTORY] == v else 0
    m += 5
    out[m] = 1 if g[G_VICTORY] == V_DRAW else 0
    out[m + 1] = g[G_TURN]
    out[m + 2] = g[G_LEAD_CHANGES]
    out[m + 3] = UNDEFINED
    if winners == 1:
        led = g[G_RUN] >= 0 and g[G_WINMASK] == 1 << g[G_RUN]
        out[m + 3] = g[G_DECIDED_AT] if led else g[G_TURN]
    out[m + 4] = g[G_LAWS_PASSED]
    out[m + 5] = g[G_KILLED]
    m += 6
    for k in range(5):
        out[m + k] = g[G_MERC0 + k]
    m += 5
    out[m] = g[G_CONTESTED]
    m += 1
    for k in range(N_GAPS):
        out[m + k] = g[G_GAP0 + k]
    m += N_GAPS
    out[m] = g[G_EMPTY_CHANCES]
    out[m + 1] = 1 if g[G_VICTORY] == V_DRAW and g[G_GAP0 + GAP_STALLED] == 0 else 0
    out[m + 2] = g[G_PHASE_REVEALS]
    out[m + 3] = g[G_ADVICE_NO_PRIORITY]


_search = make_search_agents(GAME)


@kernel
def search_move(s, agent_row, rng):
    """The move a search agent (packed ``agent_row``) makes in interface state ``s``."""
    return _search(s, agent_row, rng)


@kernel
def searching(row):
    """Whether a seat of this row is played by a search agent (rollout, mcts)."""
    n = 0
    for p in range(np.int64(row[H_PLAYERS])):
        n += row[H_POLICY + p] >= SEARCH
    return n > 0


@kernel
def search_play(row, key, trial, check, out):
    """One whole game through the game interface: searching seats choose by their agent on
    decision sub-stream k of the trial (simulator.agents.streams), everything else reads the
    trial's stream as :func:`play_game` does. Returns the invariant violations."""
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = trial_state(key, trial)
    trial_key = rng[0]
    agents = np.zeros((MAX_PLAYERS, AGENT_ROW), dtype=np.float64)
    for p in range(np.int64(row[H_PLAYERS])):
        for j in range(AGENT_ROW):
            agents[p, j] = row[H_AGENTS + p * AGENT_ROW + j]
    s = start_game(row, check, rng)
    decision = np.zeros(1, dtype=np.uint64)
    k = 0
    while not is_over(s):
        seat = to_move(s)
        start_decision(decision, trial_key, k)
        k += 1
        apply_move(s, _search(s, agents[seat], decision), rng)
    g = s[CUR + O_G : CUR + O_CH]
    # A scripted choice out of range cannot happen in the real game (nothing is resampled).
    g[G_VIOLATIONS] += s[X_CLAMPS] + s[X_OVERFLOW]
    game_values(g, out)
    return g[G_VIOLATIONS]


@kernel
def buffers_play(row, key, trial, check, out):
    if searching(row):
        return search_play(row, key, trial, check, out)
    st = np.zeros(CTX, dtype=np.uint64)
    st[0] = trial_state(key, trial)
    tok = np.zeros((MAX_PLAYERS, N_LANDS + N_CHARS), dtype=np.int64)
    pl = np.zeros((MAX_PLAYERS, 3), dtype=np.int64)
    g = np.zeros(G_SIZE, dtype=np.int64)
    ch = np.zeros((N_CHARS, N_CHAR_COLS), dtype=np.int64)
    land = np.zeros((N_LANDS, 4), dtype=np.int64)
    law = np.zeros((MAX_LAWS, 6), dtype=np.int64)
    card = np.zeros((MAX_CARDS, 6), dtype=np.int64)
    mv, score, tied, cand, votes, order, owner, contest, decl = scratch()
    play_game(
        row,
        st,
        tok,
        pl,
        g,
        ch,
        land,
        law,
        card,
        mv,
        score,
        tied,
        cand,
        votes,
        order,
        owner,
        contest,
        decl,
        check,
    )
    game_values(g, out)
    return g[G_VIOLATIONS]


@kernel
def council_game_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = np.int64(packed[0, H_PLAYERS]) + N_METRICS_BASE
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    out = np.zeros(n_metrics, dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for i in range(m):
            for v in range(n_variants):
                # np.int64: a literal 0 would compile the whole game once more (heuristic.gain_at).
                buffers_play(packed[v], key, start + i, np.int64(0), out)
                for k in range(n_metrics):
                    values[v, k, i] = out[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


@kernel
def invariant_violations(row, key, first_trial, n_trials):
    """Games first..first+n-1 with every invariant audited after each phase: total violations."""
    out = np.zeros(np.int64(row[H_PLAYERS]) + N_METRICS_BASE, dtype=np.int64)
    bad = 0
    for t in range(first_trial, first_trial + n_trials):
        bad += buffers_play(row, key, t, np.int64(1), out)
    return bad


def play_one(p: CouncilGameParams, key: int, trial: int) -> list[int]:
    """The metric values of one game (a convenience for tests and notebooks)."""
    out = np.zeros(p.players + N_METRICS_BASE, dtype=np.int64)
    buffers_play(pack(p), np.uint64(key), np.int64(trial), np.int64(0), out)
    return [int(x) for x in out]
