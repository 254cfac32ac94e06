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

from simulator.agents.game import GameFunctions
from simulator.agents.spec import AGENT_CODES, AGENT_KIND, AGENT_ROW
from simulator.agents.streams import below
from simulator.jit import inline, kernel
from simulator.procedures.council.game.actions import actions_phase
from simulator.procedures.council.game.context import (
    CHANCE,
    CUR,
    MAX_SCRIPT,
    N_COL,
    O_CARD,
    O_CH,
    O_G,
    O_LAND,
    O_LAW,
    O_PL,
    O_TOK,
    PEND_SCORES,
    POS_SIZE,
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
    H_AGENTS,
    H_PLAYERS,
    H_POLICY,
    MAX_CARDS,
    MAX_LAWS,
    MAX_MOVES,
    MAX_PLAYERS,
    MESSENGER,
    N_CHARS,
    N_LANDS,
    ROW,
)
from simulator.procedures.council.game.setup import audit, scratch, setup
from simulator.procedures.council.game.state import (
    G_CHECK,
    G_DONE,
    G_MAX_TURNS,
    G_MERCS_ON,
    G_PLAYERS,
    G_REVEAL_PHASES,
    G_TURN,
    G_VIOLATIONS,
    G_WINMASK,
    K_KIND,
    K_MODE,
    K_OWNER,
    K_STATUS,
    N_CHAR_COLS,
    P_POLICY,
)
from simulator.procedures.council.game.victory import check_victory, draw_at_turn_limit

PH_SETUP, PH_REVEAL, PH_INCOME, PH_SPEND, PH_ACTIONS, PH_TAX = range(6)
PHASES = 6

_GREEDY = float(AGENT_CODES["greedy"])


@inline
def position(s, base):
    """Views of the position stored at ``base`` (SNAP, WORK or CUR)."""
    tok = s[base + O_TOK : base + O_PL].reshape((MAX_PLAYERS, N_COL))
    pl = s[base + O_PL : base + O_G].reshape((MAX_PLAYERS, 3))
    g = s[base + O_G : base + O_CH]
    ch = s[base + O_CH : base + O_LAND].reshape((N_CHARS, N_CHAR_COLS))
    land = s[base + O_LAND : base + O_LAW].reshape((N_LANDS, 4))
    law = s[base + O_LAW : base + O_CARD].reshape((MAX_LAWS, 6))
    card = s[base + O_CARD : base + POS_SIZE].reshape((MAX_CARDS, 6))
    return tok, pl, g, ch, land, law, card


@kernel
def new_state(row, check):
    """A game before its setup; ``advance`` plays it to its first decision."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[ROW0 : ROW0 + ROW].view(np.float64)[:] = row[:ROW]
    s[X_PHASE] = PH_SETUP
    s[X_PEND_SEAT] = -1
    s[X_CHECK] = check
    return s


@kernel
def run_phase(s, mv, score, tied, cand, votes, order, owner, contest, decl):
    """Replay the current phase on WORK from the script (see :mod:`.context`)."""
    st = s.view(np.uint64)
    tok, pl, g, ch, land, law, card = position(s, WORK)
    ph = s[X_PHASE]
    if ph == PH_SETUP:
        row = s[ROW0 : ROW0 + ROW].view(np.float64)
        setup(row, st, tok, pl, g, ch, land, law, card, mv, score, tied)
        g[G_CHECK] = s[X_CHECK]
        audit(tok, pl, g, ch, land, card)
    elif ph == PH_REVEAL:
        g[G_TURN] = s[X_TURN]
        if g[G_MERCS_ON] == 1:
            reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes)
            audit(tok, pl, g, ch, land, card)
    elif ph == PH_INCOME:
        income_phase(st, tok, pl, g, ch, land, mv, score, tied, owner, contest)
        audit(tok, pl, g, ch, land, card)
    elif s[X_WINDOW] == 1:
        # The reveal window before the spending, action or tax phase (reveal_windows: phase),
        # a phase of its own here so that a determinized replay never crosses it.
        phase_window(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes)
    elif ph == PH_SPEND:
        spending_phase(st, tok, pl, g, ch, land, card, mv, score, tied)
        audit(tok, pl, g, ch, land, card)
    elif ph == PH_ACTIONS:
        actions_phase(
            st, tok, pl, g, ch, land, law, card, mv, score, tied, cand, votes, order, decl
        )
        audit(tok, pl, g, ch, land, card)
    else:
        tax_phase(st, tok, pl, g, ch, land, law, owner, contest, tied, score)
        audit(tok, pl, g, ch, land, card)
        record_round(tok, g, ch, tied, s[X_TURN])
        check_victory(tok, g, land, ch)


@kernel
def finish(s, tied):
    """The game is over (SNAP holds the last position): a draw at the turn limit if nobody won."""
    tok, _pl, g, ch, _land, _law, _card = position(s, SNAP)
    if g[G_DONE] == 0:
        draw_at_turn_limit(tok, g)
    record_round(tok, g, ch, tied, g[G_TURN])
    s[X_OVER] = 1
    s[X_PEND_SEAT] = -1
    s[CUR : CUR + POS_SIZE] = s[SNAP : SNAP + POS_SIZE]


@kernel
def next_phase(s, tied):
    """Move on from the phase just completed in SNAP (the turn loop of the kernel). Under
    ``reveal_windows: phase`` the spending, action and tax phases each open with a reveal window
    (``X_WINDOW``), counted in the same round as the phase it opens (``round_of``)."""
    g = s[SNAP + O_G : SNAP + O_CH]
    ph = s[X_PHASE]
    if g[G_DONE] == 1 and (ph != PH_INCOME or s[X_WINDOW] == 1):
        finish(s, tied)
    elif s[X_WINDOW] == 1:
        s[X_WINDOW] = 0
    elif ph == PH_TAX:
        if s[X_TURN] + 1 > g[G_MAX_TURNS]:
            finish(s, tied)
        else:
            s[X_TURN] += 1
            s[X_PHASE] = PH_REVEAL
    elif ph == PH_SETUP:
        if g[G_MAX_TURNS] < 1:
            finish(s, tied)
        else:
            s[X_TURN] = 1
            s[X_PHASE] = PH_REVEAL
    else:
        s[X_PHASE] = ph + 1
        windows = g[G_MERCS_ON] == 1 and g[G_REVEAL_PHASES] == 1
        if windows and ph + 1 >= PH_SPEND:
            s[X_WINDOW] = 1


@kernel
def advance(s, rng):
    """Replay from SNAP with the script, on the stream ``rng``, up to the next pending decision
    or the end of the game."""
    st = s.view(np.uint64)
    st[X_RNG] = rng[0]
    mv, score, tied, cand, votes, order, owner, contest, decl = scratch()
    while s[X_OVER] == 0:
        s[WORK : WORK + POS_SIZE] = s[SNAP : SNAP + POS_SIZE]
        s[X_MODE] = REPLAY
        s[X_POS] = 0
        s[X_PEND_SEAT] = -1
        run_phase(s, mv, score, tied, cand, votes, order, owner, contest, decl)
        if s[X_OVERFLOW] > 0:
            # A phase longer than the script can hold: end the game where it stood (a draw).
            s[SNAP + O_G + G_VIOLATIONS] += 1
            s[SNAP + O_G + G_DONE] = 0
            finish(s, tied)
            break
        if s[X_PEND_SEAT] >= 0:
            break
        s[SNAP : SNAP + POS_SIZE] = s[WORK : WORK + POS_SIZE]
        s[X_LEN] = 0
        s[X_POS] = 0
        next_phase(s, tied)
    rng[0] = st[X_RNG]


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
        s[SNAP + O_G + G_VIOLATIONS] += 1
        finish(s, np.zeros(MAX_PLAYERS, dtype=np.int64))
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
    return np.int64(s[ROW0 : ROW0 + ROW].view(np.float64)[H_PLAYERS])


@kernel
def returns(s, out):
    tok, pl, g, ch, land, _law, _card = position(s, CUR)
    tied = np.zeros(MAX_PLAYERS, dtype=np.int64)
    n = g[G_PLAYERS]
    winners = 0
    total = 0.0
    standings(tok, pl, g, ch, land, tied, out)
    for p in range(n):
        winners += (g[G_WINMASK] >> p) & 1
        total += out[p]
    for p in range(n):
        share = 1.0 / winners if (g[G_WINMASK] >> p) & 1 else 0.0
        out[p] = share + 0.999e-3 * out[p] / (total + 1.0)


@kernel
def heuristic(s, out):
    if s[X_OVER] == 1:
        returns(s, out)
        return
    tok, pl, g, ch, land, _law, _card = position(s, CUR)
    tied = np.zeros(MAX_PLAYERS, dtype=np.int64)
    win_chances(tok, pl, g, ch, land, tied, out)


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
    tok, pl, g, ch, land, _law, _card = position(s, CUR)
    v = np.empty(MAX_PLAYERS, dtype=np.float64)
    standings(tok, pl, g, ch, land, np.zeros(MAX_PLAYERS, dtype=np.int64), v)
    after = np.empty(MAX_PLAYERS, dtype=np.float64)
    for i in range(n):
        after[:] = v
        after[me] += s[PEND_SCORES + moves[i]] / SCALE
        soften(after, g[G_PLAYERS])
        out[i] = after[me]


@kernel
def determinize(s, seat, rng):
    """A copy of ``s`` as ``seat`` sees it (module docstring)."""
    t = s.copy()
    _tok, pl, _g, _ch, _land, _law, card = position(t, SNAP)
    _ctok, cpl, _cg, _cch, _cland, _claw, ccard = position(t, CUR)
    # Every other seat is modelled as greedy: in the phase's positions and, for a decision of
    # the setup phase (whose positions are still empty and are rebuilt from it on replay), in
    # the state's copy of the params row.
    row = t[ROW0 : ROW0 + ROW].view(np.float64)
    for p in range(n_seats(t)):
        if p != seat:
            pl[p, P_POLICY] = 1
            cpl[p, P_POLICY] = 1
            row[H_POLICY + p] = 1
            agent = row[H_AGENTS + p * AGENT_ROW : H_AGENTS + (p + 1) * AGENT_ROW]
            agent[:] = 0.0
            agent[AGENT_KIND] = _GREEDY
    for k in range(MAX_CARDS):
        q = card[k, K_OWNER]
        hidden = card[k, K_STATUS] >= 1 and q != seat
        still = ccard[k, K_STATUS] >= 1 and ccard[k, K_OWNER] == q
        if hidden and still and ccard[k, K_KIND] == card[k, K_KIND]:
            kind = below(rng, 5)
            card[k, K_KIND] = kind
            ccard[k, K_KIND] = kind
            mode = below(rng, 2) if kind == MESSENGER and card[k, K_STATUS] == 2 else 0
            card[k, K_MODE] = mode
            ccard[k, K_MODE] = mode
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
        while free < MAX_CARDS and card[free, K_STATUS] != 0:
            free += 1
        if who != seat:
            t[SCRIPT + i] = first + below(rng, 5)
            if free < MAX_CARDS and ccard[free, K_STATUS] >= 1 and ccard[free, K_OWNER] == who:
                ccard[free, K_KIND] = t[SCRIPT + i] - first
                ccard[free, K_MODE] = 0
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
)


@kernel
def start(row, check, rng):
    """A new game played to its first decision of a searching seat (or its end)."""
    s = new_state(row, check)
    advance(s, rng)
    return s
