"""The council game behind the game interface (``GAME`` for :mod:`simulator.agents`).

Decisions are made inside the phases, so the interface resumes by replay (:mod:`.context`): the
state ``s`` (one int64 array, :data:`.context.STATE_SIZE` words) holds the position at the start
of the current phase (``SNAP``), the script of every choice and lot since, and the position at the
pending decision (``CUR``). ``apply_move`` appends the move to the script and replays the phase
from ``SNAP``: scripted values come back in order, then seats that do not search (random, greedy)
and chance decide by the old rules on the stream passed in, and the next choice of a searching
seat becomes the pending decision; a completed phase becomes the new ``SNAP``. A phase is a small
part of a game, so a replay costs microseconds. Moves are indices into the phase's list of legal
moves (``legal_moves`` gives ``0 .. n-1``).

- ``to_move``: the seat of the pending decision (only searching seats are ever asked);
- ``round_of``: the phase counter (6 a turn), so an agent's ``horizon`` counts phases;
- ``returns``: win share (a draw gives nobody anything) plus a tie-break term, the seat's share
  of the table's :func:`.heuristic.standings`, scaled into ``[0, 1e-3)``;
- ``heuristic``: :func:`.heuristic.win_chances` of the position at the pending decision;
- ``default_move``: greedy's choice at the pending decision (its scores are kept when the
  decision is exposed), so playouts play like greedy seats rather than at random;
- ``move_values``: those scores on the heuristic's scale, for the search rungs' ``candidates``,
  ``prior`` and ``fallback``;
- ``determinize``: the other seats are modelled as ``greedy`` (their real agents are not the
  seat's to see), and the kinds of their Mercenary cards still hidden (in hand or face down, and
  the kinds they bought this phase) are drawn afresh, uniformly. Future chance comes from the
  stream the agent passes to ``apply_move``, never from the game's.

The trial kernel plays a game with a searching seat through this interface with the trial's
stream as the chance stream; a game of random and greedy seats only reads that stream exactly as
the phase-by-phase kernel does (a test checks both are the same game).
"""

from __future__ import annotations

import numpy as np

from simulator.agents.game import GameFunctions, GameInfo
from simulator.agents.spec import AGENT_CODES, AGENT_KIND, AGENT_ROW
from simulator.agents.streams import below
from simulator.jit import borrowed, kernel, leaf
from simulator.procedures.council.game import params
from simulator.procedures.council.game.actions import actions_phase
from simulator.procedures.council.game.context import (
    CHANCE,
    CUR,
    MAX_SCRIPT,
    PEND_SCORES,
    REPLAY,
    ROW0,
    SCRIPT,
    SNAP,
    STATE_SIZE,
    TAGS,
    WORK,
    X_CHECK,
    X_LEN,
    X_MODE,
    X_OVER,
    X_OVERFLOW,
    X_PEND_BEST,
    X_PEND_N,
    X_PEND_SEAT,
    X_PEND_TAG,
    X_PHASE,
    X_POS,
    X_RNG,
    X_TURN,
    X_WINDOW,
)
from simulator.procedures.council.game.economy import income_phase, spending_phase, tax_phase
from simulator.procedures.council.game.heuristic import (
    SCALE,
    record_round,
    soften,
    standings,
    win_chances,
)
from simulator.procedures.council.game.mercenaries import phase_window, reveal_step
from simulator.procedures.council.game.params import (
    MAX_CARDS,
    MAX_MOVES,
    MAX_PLAYERS,
    MESSENGER,
    ROW,
)
from simulator.procedures.council.game.setup import audit, setup
from simulator.procedures.council.game.state import (
    CARD_KIND,
    CARD_MODE,
    CARD_OWNER,
    CARD_STATUS,
    CHECK,
    DONE,
    MAX_TURNS,
    MERCENARIES_ON,
    PLAYERS,
    POLICY,
    POSITION_SIZE,
    REVEAL_PHASES,
    SCRATCH_SIZE,
    TURN,
    VIOLATIONS,
    WINNERS,
)
from simulator.procedures.council.game.victory import check_victory, draw_at_turn_limit

PH_SETUP, PH_REVEAL, PH_INCOME, PH_SPEND, PH_ACTIONS, PH_TAX = range(6)
PHASES = 6

_GREEDY = float(AGENT_CODES["greedy"])


@leaf
def position(s, base):
    """The position stored at ``base`` (SNAP, WORK or CUR) as a borrowed view (:data:`.state.
    POSITION`; only while ``s`` itself is in use, simulator.jit.borrowed)."""
    return borrowed(s[base : base + POSITION_SIZE])


@kernel
def new_state(row, check):
    """A game before its setup; ``advance`` plays it to its first decision."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[ROW0 : ROW0 + ROW].view(np.float64)[:] = row[:ROW]
    s[X_PHASE] = PH_SETUP
    s[X_PEND_SEAT] = -1
    s[X_CHECK] = check
    return s


# Pasted into its one caller (jit.leaf's flags): one compiled layer fewer that carries the whole
# game (Numba links, optimises and emits again everything a compiled function calls).
@leaf
def run_phase(s, scratch):
    """Replay the current phase on WORK from the script (see :mod:`.context`)."""
    context = borrowed(s.view(np.uint64))
    state = position(s, WORK)
    ph = s[X_PHASE]
    if ph == PH_SETUP:
        row = borrowed(s[ROW0 : ROW0 + ROW].view(np.float64))
        setup(row, context, state, scratch)
        state[CHECK] = s[X_CHECK]
        audit(state)
    elif ph == PH_REVEAL:
        state[TURN] = s[X_TURN]
        if state[MERCENARIES_ON] == 1:
            reveal_step(context, state, scratch)
            audit(state)
    elif ph == PH_INCOME:
        income_phase(context, state, scratch)
        audit(state)
    elif s[X_WINDOW] == 1:
        # The reveal window before the spending, action or tax phase (reveal_windows: phase),
        # a phase of its own here so that a determinized replay never crosses it.
        phase_window(context, state, scratch)
    elif ph == PH_SPEND:
        spending_phase(context, state, scratch)
        audit(state)
    elif ph == PH_ACTIONS:
        actions_phase(context, state, scratch)
        audit(state)
    else:
        tax_phase(context, state, scratch)
        audit(state)
        record_round(state, scratch, s[X_TURN])
        if state[DONE] == 0:
            check_victory(state)


@kernel
def finish(s, scratch):
    """The game is over (SNAP holds the last position): a draw at the turn limit if nobody won."""
    state = position(s, SNAP)
    if state[DONE] == 0:
        draw_at_turn_limit(state)
    record_round(state, scratch, state[TURN])
    s[X_OVER] = 1
    s[X_PEND_SEAT] = -1
    s[CUR : CUR + POSITION_SIZE] = s[SNAP : SNAP + POSITION_SIZE]


# Pasted into its one caller (jit.leaf's flags): one compiled layer fewer that carries the whole
# game (Numba links, optimises and emits again everything a compiled function calls).
@leaf
def next_phase(s, scratch):
    """Move on from the phase just completed in SNAP (the turn loop of the kernel). Under
    ``reveal_windows: phase`` the spending, action and tax phases each open with a reveal window
    (``X_WINDOW``), counted in the same round as the phase it opens (``round_of``)."""
    ph = s[X_PHASE]
    if s[SNAP + DONE] == 1:
        finish(s, scratch)
    elif s[X_WINDOW] == 1:
        s[X_WINDOW] = 0
    elif ph == PH_TAX:
        if s[X_TURN] + 1 > s[SNAP + MAX_TURNS]:
            finish(s, scratch)
        else:
            s[X_TURN] += 1
            s[X_PHASE] = PH_REVEAL
    elif ph == PH_SETUP:
        if s[SNAP + MAX_TURNS] < 1:
            finish(s, scratch)
        else:
            s[X_TURN] = 1
            s[X_PHASE] = PH_REVEAL
    else:
        s[X_PHASE] = ph + 1
        windows = s[SNAP + MERCENARIES_ON] == 1 and s[SNAP + REVEAL_PHASES] == 1
        if windows and ph + 1 >= PH_SPEND:
            s[X_WINDOW] = 1


@kernel
def advance(s, rng):
    """Replay from SNAP with the script, on the stream ``rng``, up to the next pending decision
    or the end of the game."""
    s[X_RNG] = rng.view(np.int64)[0]
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    while s[X_OVER] == 0:
        s[WORK : WORK + POSITION_SIZE] = s[SNAP : SNAP + POSITION_SIZE]
        s[X_MODE] = REPLAY
        s[X_POS] = 0
        s[X_PEND_SEAT] = -1
        run_phase(s, scratch)
        if s[X_OVERFLOW] > 0:
            # A phase longer than the script can hold: end the game where it stood (a draw).
            s[SNAP + VIOLATIONS] += 1
            s[SNAP + DONE] = 0
            finish(s, scratch)
            break
        if s[X_PEND_SEAT] >= 0:
            break
        s[SNAP : SNAP + POSITION_SIZE] = s[WORK : WORK + POSITION_SIZE]
        s[X_LEN] = 0
        s[X_POS] = 0
        next_phase(s, scratch)
    rng[0] = s.view(np.uint64)[X_RNG]


@kernel
def copy_state(s):
    return s.copy()


@kernel
def to_move(s):
    return s[X_PEND_SEAT] if s[X_OVER] == 0 else np.int64(-1)


@kernel
def legal_moves(s, out):
    n = s[X_PEND_N]
    for i in range(n):
        out[i] = i
    return n


@kernel
def apply_move(s, move, rng):
    """Seat ``to_move(s)`` plays move ``move`` (an index below ``legal_moves``)."""
    k = s[X_LEN]
    if k >= MAX_SCRIPT:
        s[X_OVERFLOW] += 1
        s[SNAP + VIOLATIONS] += 1
        finish(s, np.zeros(SCRATCH_SIZE, dtype=np.int64))
        return
    s[SCRIPT + k] = move
    s[TAGS + k] = s[X_PEND_TAG]  # seat, and where Mercenary kinds start in a spending list
    s[X_LEN] = k + 1
    advance(s, rng)


@kernel
def is_over(s):
    return s[X_OVER] == 1


@kernel
def round_of(s):
    return s[X_TURN] * PHASES + s[X_PHASE]


@kernel
def n_seats(s):
    # From the params row, not from a position: SNAP is all zeros until the setup phase is over,
    # and that phase holds a game's first decisions (start tokens); agents sized their score
    # vectors by this (0 seats: scores written and read out of bounds, issue 13).
    return np.int64(s[ROW0 : ROW0 + ROW].view(np.float64)[params.PLAYERS])


@kernel
def returns(s, out):
    state = position(s, CUR)
    scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)  # the tied players only, written first
    n = state[PLAYERS]
    winners = 0
    total = 0.0
    standings(state, scratch, out)
    for p in range(n):
        winners += (state[WINNERS] >> p) & 1
        total += out[p]
    for p in range(n):
        share = 1.0 / winners if (state[WINNERS] >> p) & 1 else 0.0
        out[p] = share + 0.999e-3 * out[p] / (total + 1.0)


@kernel
def heuristic(s, out):
    if s[X_OVER] == 1:
        returns(s, out)
        return
    scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)  # the tied players only, written first
    win_chances(position(s, CUR), scratch, out)


@kernel
def default_move(s, rng):
    """The playouts' move: what greedy would choose at the pending decision (the first of its
    best-scored moves, kept when the decision was exposed)."""
    return s[X_PEND_BEST]


@kernel
def move_values(s, moves, n, rng, out):
    """Greedy's one-step values of ``moves[:n]`` at the pending decision, for the search rungs'
    ``candidates``, ``prior`` and ``fallback`` (:mod:`simulator.agents.prior`): its scores, kept
    when the decision was exposed, put on the heuristic's scale — the mover's
    :func:`.heuristic.win_chances` with its standing moved by the score (a change of its edge,
    in :data:`.heuristic.SCALE` units) and the rivals' as they stand. Strictly increasing in
    the score, so the moves rank (ties included) as greedy ranks them. Draws no random word
    (greedy draws only for ties)."""
    me = s[X_PEND_SEAT]
    state = position(s, CUR)
    v = np.empty(MAX_PLAYERS, dtype=np.float64)
    standings(state, np.empty(SCRATCH_SIZE, dtype=np.int64), v)
    after = np.empty(MAX_PLAYERS, dtype=np.float64)
    for i in range(n):
        after[:] = v
        after[me] += s[PEND_SCORES + moves[i]] / SCALE
        soften(after, state[PLAYERS])
        out[i] = after[me]


@kernel
def determinize(s, seat, rng):
    """A copy of ``s`` as ``seat`` sees it (module docstring)."""
    t = s.copy()
    snap = position(t, SNAP)
    cur = position(t, CUR)
    # Every other seat is modelled as greedy: in the phase's positions and, for a decision of
    # the setup phase (whose positions are still empty and are rebuilt from it on replay), in
    # the state's copy of the params row.
    row = t[ROW0 : ROW0 + ROW].view(np.float64)
    for p in range(n_seats(t)):
        if p != seat:
            snap[POLICY + p] = 1
            cur[POLICY + p] = 1
            row[params.POLICIES + p] = 1
            agent = row[params.AGENTS + p * AGENT_ROW : params.AGENTS + (p + 1) * AGENT_ROW]
            agent[:] = 0.0
            agent[AGENT_KIND] = _GREEDY
    for k in range(MAX_CARDS):
        q = snap[CARD_OWNER + k]
        hidden = snap[CARD_STATUS + k] >= 1 and q != seat
        still = cur[CARD_STATUS + k] >= 1 and cur[CARD_OWNER + k] == q
        if hidden and still and cur[CARD_KIND + k] == snap[CARD_KIND + k]:
            kind = below(rng, 5)
            snap[CARD_KIND + k] = kind
            cur[CARD_KIND + k] = kind
            mode = below(rng, 2) if kind == MESSENGER and snap[CARD_STATUS + k] == 2 else 0
            snap[CARD_MODE + k] = mode
            cur[CARD_MODE + k] = mode
    # Mercenaries bought in this phase: the k-th purchase of the script took the k-th free card
    # of SNAP (nothing is discarded while buying), so CUR shows the kind an opponent bought
    # unless it is redrawn with its script value.
    free = 0
    for i in range(t[X_LEN]):
        tag = t[TAGS + i]
        who = tag & 15
        first = (tag >> 4) - 1
        if who == CHANCE or first < 0 or t[SCRIPT + i] < first:
            continue
        while free < MAX_CARDS and snap[CARD_STATUS + free] != 0:
            free += 1
        if who != seat:
            t[SCRIPT + i] = first + below(rng, 5)
            if free < MAX_CARDS and cur[CARD_STATUS + free] >= 1 and cur[CARD_OWNER + free] == who:
                cur[CARD_KIND + free] = t[SCRIPT + i] - first
                cur[CARD_MODE + free] = 0
        free += 1
    return t


GAME = GameFunctions(
    copy_state=copy_state,
    to_move=to_move,
    legal_moves=legal_moves,
    apply_move=apply_move,
    is_over=is_over,
    returns=returns,
    heuristic=heuristic,
    determinize=determinize,
    round_of=round_of,
    n_seats=n_seats,
    max_moves=MAX_MOVES,
    default_move=default_move,
    move_values=move_values,
    # A seat does not see how the others decide (determinize models them); dice and deals.
    info=GameInfo(seats=MAX_PLAYERS, max_moves=MAX_MOVES, hidden_information=True, chance=True),
)


# Pasted into its one caller (jit.leaf's flags): one compiled layer fewer that carries the whole
# game (Numba links, optimises and emits again everything a compiled function calls).
@leaf
def start(row, check, rng):
    """A new game played to its first decision of a searching seat (or its end)."""
    s = new_state(row, check)
    advance(s, rng)
    return s
