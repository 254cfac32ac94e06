"""The New World race as one state value for the generic agents: the game, paused at decisions.

The state is one int64 array, named pieces declared once (``STATE``, and ``POWER`` for each of the
three powers' parts; :class:`simulator.layout.Layout`, whose offsets the ``S_*`` and ``W_*``
constants take): the rules' constants of the variant, the claims, and per power its pools,
holdings, VP and counters. ``advance`` plays from where the state stands,
drawing the game's chance events from ``rng``, until an explorer whose power is played by an agent
reaches 10+ with two or more options open (``S_PENDING`` names that power) or the game ends.
``apply_move`` resolves the pending exploration with the chosen discovery (its circumnavigation
roll included) and advances again. Powers on the fixed ``south_america`` plan never pause.

It draws the same words in the same order as :func:`~.kernel.new_world_kernel` (its docstring),
so a game played here with the same choices is the kernel's game bit for bit; the tests hold the
two together. The kernel plays here only when a search agent (rollout, mcts) is named: a state
copy per search iteration is this module's reason to exist, and the kernel's own loop is faster.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.his.new_world.choice import option_kind, south_america_options
from simulator.procedures.his.new_world.outcomes import (
    conquest_result,
    exploration_result,
    roll2d6,
)
from simulator.procedures.his.new_world.params import (
    AGENTS,
    ALREADY_CLAIMED,
    ALREADY_EXPLORED,
    CARD,
    CARD_DEPLETED,
    CIRCUMNAVIGATION,
    COLONY_CP,
    COLONY_DEPLETED_REMOVES,
    CONQUER_CP,
    CONQUEST_DESTROYED_REMOVES,
    CONQUEST_MARKER,
    DEPLETED_CONQUEST_LOSES_VP,
    DESTROYED,
    DISCOVERERS_RETURN,
    EXPLORE_CP,
    FIRST_POWER,
    FIXED,
    GALLEONS_CARD,
    GALLEONS_TURN,
    MAX_POOL,
    OBJECTIVE,
    P_COLONIES,
    P_CONQUESTS,
    P_CONQUISTADOR_RATINGS,
    P_CONQUISTADORS,
    P_EXPLORE,
    P_EXPLORER_RATINGS,
    P_EXPLORERS,
    P_GALLEONS,
    PENALTY,
    POWER_FIELDS,
    POWERS,
    RICHES_OF_TOTAL,
    SOUTH_AMERICA,
    STRAIT,
    TURNS,
    VP_OF,
)
from simulator.rng import die_of, low32, next_word

MAX_HELD = 8

#: One power's part of the state (one per power of ``POWERS``, in that order, from ``P0``, ``PW``
#: slots each): its pools (explore, colonize, conquer, galleons), who plays it, its holdings, VP
#: and counters.
POWER = Layout(
    "explore",
    "colonize",
    "conquer",
    "galleons",
    "agent",
    "explorers_left",
    "colonies",
    "conquests",
    "vp",
    "riches_cards",
    "circumnavigation_cards",
    "cp",
    "lost",
    "skipped",
    "pick",
    "rating",
    "marker_gone",  # England's or France's conquest marker has left play
    ("chose", 3),  # three counters: Amazon, Strait, North America
    ("held", MAX_HELD),  # VP of each conquest held, in order
    ("explorer_ratings", MAX_POOL),
)

#: The whole state: the header (turn, the pending decision, the claims, the variant's rules'
#: constants, counters of the gaps), the riches table and the turn order, who holds each
#: discovery and when, the Habsburg conquistadors' ratings, then the three powers.
STATE = Layout(
    "turn",
    "turns",
    "over",
    "pending",
    "next_explorer",  # index in ``order`` of the next explorer to resolve this turn
    "explorers",  # explorers sailing this turn (-1: the turn's explorations are not drawn yet)
    "claimed",
    "explored",
    "n_conquests",
    "gap_conquest",
    "gap_colony",
    "total",  # the pending explorer's 2d6 total
    "penalty",
    "discoverers_return",
    "galleons_turn",
    "conquest_destroyed_removes",
    "colony_depleted_removes",
    "depleted_conquest_loses_vp",
    "choice",
    "objective",
    "marker_mode",  # how England's and France's conquest marker leaves play (kernel's marker_mode)
    ("riches", 13),  # outcome of each 2d6 total, indexed by the total (0..12)
    ("order", 3),
    ("owner", 9),
    ("turn_of", 9),
    ("conquistador_ratings", MAX_POOL),
    ("powers", len(POWERS) * POWER.size),
)

# Header.
S_TURN, S_TURNS, S_OVER, S_PENDING = (STATE.at(n) for n in ("turn", "turns", "over", "pending"))
S_K, S_N = STATE.at("next_explorer"), STATE.at("explorers")
S_CLAIMED, S_EXPLORED = STATE.at("claimed"), STATE.at("explored")
S_NCONQ, S_GAP_CONQ, S_GAP_COL = (
    STATE.at("n_conquests"),
    STATE.at("gap_conquest"),
    STATE.at("gap_colony"),
)
S_TOTAL, S_PENALTY, S_RETURN = (
    STATE.at("total"),
    STATE.at("penalty"),
    STATE.at("discoverers_return"),
)
S_GALLEONS_TURN = STATE.at("galleons_turn")
S_CONQ_DESTROYED = STATE.at("conquest_destroyed_removes")
S_COL_DEPLETED = STATE.at("colony_depleted_removes")
S_DEPLETED_VP = STATE.at("depleted_conquest_loses_vp")
S_CHOICE, S_OBJECTIVE, S_MARKER_MODE = (
    STATE.at("choice"),
    STATE.at("objective"),
    STATE.at("marker_mode"),
)
S_RICHES, S_ORDER, S_OWNER = STATE.at("riches"), STATE.at("order"), STATE.at("owner")
S_TURN_OF, S_CONQ = STATE.at("turn_of"), STATE.at("conquistador_ratings")
P0 = STATE.at("powers")
# Per power, from P0 + w * PW.
W_EXPLORE, W_COLONIZE, W_CONQUER, W_GALLEONS = (
    POWER.at(n) for n in ("explore", "colonize", "conquer", "galleons")
)
W_AGENT, W_NEXPL, W_COLONIES, W_CONQUESTS = (
    POWER.at(n) for n in ("agent", "explorers_left", "colonies", "conquests")
)
W_VP, W_RICHES_CARDS, W_CIRC_CARDS, W_CP = (
    POWER.at(n) for n in ("vp", "riches_cards", "circumnavigation_cards", "cp")
)
W_LOST, W_SKIPPED, W_PICK, W_RATING = (POWER.at(n) for n in ("lost", "skipped", "pick", "rating"))
W_MARKER_GONE = POWER.at("marker_gone")
W_CHOSE, W_HELD, W_EXPL = POWER.at("chose"), POWER.at("held"), POWER.at("explorer_ratings")
PW = POWER.size
STATE_SIZE = STATE.size
#: Most legal moves: the Amazon, the Strait, a North American discovery.
MAX_MOVES = 3


@inline
def _at(w, field):
    return P0 + w * PW + field


@kernel
def new_state(row):
    """The state before turn 1 of a variant's packed ``row`` (chance events not drawn yet)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[S_TURN] = 1
    s[S_TURNS] = np.int64(row[TURNS])
    s[S_PENDING] = -1
    s[S_PENALTY] = np.int64(row[PENALTY])
    s[S_CHOICE] = np.int64(row[SOUTH_AMERICA])
    s[S_RETURN] = row[DISCOVERERS_RETURN] > 0.5
    s[S_GALLEONS_TURN] = np.int64(row[GALLEONS_TURN])
    s[S_CONQ_DESTROYED] = row[CONQUEST_DESTROYED_REMOVES] > 0.5
    s[S_COL_DEPLETED] = row[COLONY_DEPLETED_REMOVES] > 0.5
    s[S_DEPLETED_VP] = row[DEPLETED_CONQUEST_LOSES_VP] > 0.5
    s[S_MARKER_MODE] = np.int64(row[CONQUEST_MARKER])
    s[S_CLAIMED] = np.int64(row[ALREADY_CLAIMED])
    s[S_EXPLORED] = np.int64(row[ALREADY_EXPLORED])
    for total in range(2, 13):
        s[S_RICHES + total] = np.int64(row[RICHES_OF_TOTAL + total - 2])
    s[S_OBJECTIVE] = np.int64(row[OBJECTIVE])
    for d in range(9):
        s[S_OWNER + d] = -1
    for w in range(3):
        b = FIRST_POWER + w * POWER_FIELDS
        for a in range(3):  # explore, colonize, conquer
            s[_at(w, W_EXPLORE + a)] = np.int64(row[b + P_EXPLORE + a])
        s[_at(w, W_GALLEONS)] = row[b + P_GALLEONS] > 0.5
        s[_at(w, W_COLONIES)] = np.int64(row[b + P_COLONIES])
        s[_at(w, W_CONQUESTS)] = np.int64(row[b + P_CONQUESTS])
        s[_at(w, W_NEXPL)] = np.int64(row[b + P_EXPLORERS])
        for k in range(MAX_POOL):
            s[_at(w, W_EXPL + k)] = np.int64(row[b + P_EXPLORER_RATINGS + k])
        s[_at(w, W_AGENT)] = np.int64(row[AGENTS + w])
    hb = FIRST_POWER + 2 * POWER_FIELDS  # the Habsburgs' piece
    s[S_NCONQ] = np.int64(row[hb + P_CONQUISTADORS])
    for k in range(MAX_POOL):
        s[S_CONQ + k] = np.int64(row[hb + P_CONQUISTADOR_RATINGS + k])
    return s


@inline
def _claim(s, d, w, gain):
    s[S_CLAIMED] |= np.int64(1) << d
    s[S_OWNER + d] = w
    s[S_TURN_OF + d] = s[S_TURN]
    s[_at(w, W_VP)] += gain


@inline
def _sort_order(s, n):
    """Stable insertion sort of the order, highest rating first (ties keep their order)."""
    for a in range(1, n):
        w = s[S_ORDER + a]
        b = a
        while b > 0 and s[_at(s[S_ORDER + b - 1], W_RATING)] < s[_at(w, W_RATING)]:
            s[S_ORDER + b] = s[S_ORDER + b - 1]
            b -= 1
        s[S_ORDER + b] = w


@inline
def _gets_card(o, g):
    """A riches outcome ``o`` draws a card (``g``: the Galleons marker serves the power)."""
    return (o == CARD) | (o == CARD_DEPLETED) | ((o == GALLEONS_CARD) & g)


@inline
def _riches_and_actions(s, rng):
    """Card draw phase (riches of every holding), then the action phase and explorer draws."""
    turn = s[S_TURN]
    galleons_turn = s[S_GALLEONS_TURN]
    galleons_out = (galleons_turn > 0) & (turn >= galleons_turn)
    for w in range(3):
        g = galleons_out & (s[_at(w, W_GALLEONS)] == 1)
        gone = 0
        for _ in range(s[_at(w, W_COLONIES)]):
            o = s[S_RICHES + roll2d6(rng)]
            s[_at(w, W_RICHES_CARDS)] += _gets_card(o, g)
            gone += (o == DESTROYED) | ((o == CARD_DEPLETED) & (s[S_COL_DEPLETED] == 1))
            s[S_GAP_COL] += o == CARD_DEPLETED
        s[_at(w, W_COLONIES)] -= gone
        kept = 0
        for k in range(s[_at(w, W_CONQUESTS)]):
            o = s[S_RICHES + roll2d6(rng)]
            s[_at(w, W_RICHES_CARDS)] += _gets_card(o, g)
            s[S_GAP_CONQ] += o == DESTROYED
            if (o == CARD_DEPLETED) | ((o == DESTROYED) & (s[S_CONQ_DESTROYED] == 1)):
                if s[S_DEPLETED_VP] == 1 and o == CARD_DEPLETED:
                    s[_at(w, W_VP)] -= s[_at(w, W_HELD + k)]
            else:
                s[_at(w, W_HELD + kept)] = s[_at(w, W_HELD + k)]
                kept += 1
        s[_at(w, W_CONQUESTS)] = kept
    bit = np.int64(1) << (turn - 1)
    for w in range(3):
        placed = (s[_at(w, W_COLONIZE)] & bit) != 0
        s[_at(w, W_COLONIES)] += placed
        s[_at(w, W_CP)] += placed * COLONY_CP[w]
    n = 0
    for w in range(3):
        if s[_at(w, W_EXPLORE)] & bit:
            if s[_at(w, W_NEXPL)] == 0:
                s[_at(w, W_SKIPPED)] += 1
            else:
                pick = die_of(low32(next_word(rng)), s[_at(w, W_NEXPL)]) - 1
                s[_at(w, W_PICK)] = pick
                s[_at(w, W_RATING)] = s[_at(w, W_EXPL + pick)]
                s[_at(w, W_CP)] += EXPLORE_CP
                s[S_ORDER + n] = w
                n += 1
    _sort_order(s, n)
    s[S_N] = n
    s[S_K] = 0


@inline
def _resolve_exploration(s, w, d, rng):
    """Discovery ``d`` (or -1 lost, -2 returns) of power ``w``'s explorer, its circumnavigation
    roll included; the explorer leaves the pool or comes back."""
    r = s[_at(w, W_RATING)]
    leaves = d != -2
    if d == -1:
        s[_at(w, W_LOST)] += 1
    elif d >= 0:
        _claim(s, d, w, VP_OF[d])
        leaves = s[S_RETURN] == 0
        if d == STRAIT:
            c = roll2d6(rng) + r
            if c <= 9:
                s[_at(w, W_LOST)] += 1
                leaves = True
            else:
                _claim(s, CIRCUMNAVIGATION, w, VP_OF[CIRCUMNAVIGATION])
                s[_at(w, W_CIRC_CARDS)] += c >= 12
    if leaves:
        n = s[_at(w, W_NEXPL)] - 1
        s[_at(w, W_NEXPL)] = n
        s[_at(w, W_EXPL + s[_at(w, W_PICK)])] = s[_at(w, W_EXPL + n)]


@inline
def _conquests(s, rng):
    """The conquest step of the New World phase (no decisions)."""
    bit = np.int64(1) << (s[S_TURN] - 1)
    n = 0
    if s[_at(2, W_CONQUER)] & bit:
        if s[S_NCONQ] == 0:
            s[_at(2, W_SKIPPED)] += 1
        else:
            pick = die_of(low32(next_word(rng)), s[S_NCONQ]) - 1
            s[_at(2, W_PICK)] = pick
            s[_at(2, W_RATING)] = s[S_CONQ + pick]
            s[_at(2, W_CP)] += CONQUER_CP
            s[S_ORDER + n] = 2
            n += 1
    for w in range(2):
        if s[_at(w, W_CONQUER)] & bit:
            if s[_at(w, W_MARKER_GONE)] == 1:
                s[_at(w, W_SKIPPED)] += 1  # the marker is gone: nothing to send
                continue
            s[_at(w, W_RATING)] = 0
            s[S_ORDER + n] = w
            n += 1
            s[_at(w, W_CP)] += CONQUER_CP
    _sort_order(s, n)
    for k in range(n):
        w = s[S_ORDER + k]
        d = conquest_result(roll2d6(rng) + s[_at(w, W_RATING)], s[S_CLAIMED])
        leaves = d == -1
        if d >= 0:
            _claim(s, d, w, VP_OF[d])
            s[_at(w, W_HELD + s[_at(w, W_CONQUESTS)])] = VP_OF[d]
            s[_at(w, W_CONQUESTS)] += 1
            leaves = s[S_RETURN] == 0
        if w == 2 and leaves:
            s[S_NCONQ] -= 1
            s[S_CONQ + s[_at(2, W_PICK)]] = s[S_CONQ + s[S_NCONQ]]
        elif w < 2:
            mode = s[S_MARKER_MODE]
            if (mode == 0 and leaves) or (mode == 1 and d == -1):
                s[_at(w, W_MARKER_GONE)] = 1


@inline
def advance(s, rng):
    """Play on until a power's agent must choose on 10+ or the game ends."""
    options = np.empty(MAX_MOVES, dtype=np.int64)
    while s[S_TURN] <= s[S_TURNS]:
        if s[S_N] == -1:
            _riches_and_actions(s, rng)
        while s[S_K] < s[S_N]:
            w = s[S_ORDER + s[S_K]]
            total = roll2d6(rng) + s[_at(w, W_RATING)]
            if not (s[S_EXPLORED] >> w) & 1:
                total -= s[S_PENALTY]
                s[S_EXPLORED] |= np.int64(1) << w
            d = exploration_result(total, s[S_CLAIMED], s[S_CHOICE])
            if total >= 10 and south_america_options(s[S_CLAIMED], options) >= 2:
                if s[_at(w, W_AGENT)] != FIXED:
                    s[S_PENDING] = w
                    s[S_TOTAL] = total
                    return
                s[_at(w, W_CHOSE + option_kind(d))] += 1
            _resolve_exploration(s, w, d, rng)
            s[S_K] += 1
        _conquests(s, rng)
        s[S_TURN] += 1
        s[S_N] = -1
        s[S_K] = 0
    s[S_OVER] = 1


@kernel
def start_game(s, template, rng):
    """Set ``s`` to the template's first position and play to the first decision."""
    for i in range(s.size):  # not s[:] = template: Numba's slice copy compiles its error text
        s[i] = template[i]
    s[S_N] = -1
    advance(s, rng)


@kernel
def legal_moves(s, out):
    if s[S_OVER] or s[S_PENDING] < 0:
        return 0
    return south_america_options(s[S_CLAIMED], out)


@kernel
def apply_move(s, move, rng):
    """The pending explorer takes discovery ``move``; play on to the next decision."""
    w = s[S_PENDING]
    s[S_PENDING] = -1
    s[_at(w, W_CHOSE + option_kind(move))] += 1
    _resolve_exploration(s, w, move, rng)
    s[S_K] += 1
    advance(s, rng)


@kernel
def to_move(s):
    return -1 if s[S_OVER] else s[S_PENDING]


@kernel
def is_over(s):
    return s[S_OVER] == 1


@kernel
def copy_state(s):
    return s.copy()


@kernel
def round_of(s):
    return s[S_TURN]


@kernel
def n_seats(s):
    return 3
