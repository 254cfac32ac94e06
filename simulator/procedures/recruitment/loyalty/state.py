"""The state of one game of ``recruitment.loyalty``: ONE flat integer array with named offsets.

Why one array: agents copy states in their search, and every array Numba passes to a helper costs
atomic reference counting (about 35 ns measured in the council game); a flat array is one
allocation and one ``memcpy`` to copy and one reference to pass. The printed card data and the
game's knobs live in the state too, so every game function takes the state alone. Offsets are
module constants, which Numba folds into the code.

Layout (``S_*`` offsets; ``MAX_PLAYERS`` slots per seat, ``MAX_CARDS`` per card):

- header: the knobs (players, rounds, the rule cases, ...) and the position (round, phase, seat
  to move, first player, consecutive passes, zone and deck lengths), gold issued and paid, lead
  tracking;
- per seat: token supply, tokens in the bank, gold, tokens placed this round, out of this round's
  placement;
- per-seat counters reported as metrics (``COUNTER_*`` rows);
- per card: wage, base loyalty, home seat (-1 for none), equipped cards, status (owner seat >= 0,
  or ``IN_ZONE``, ``IN_DECK``, ``REMOVED``);
- tokens[card, seat]; the deck (top card last); the zone (in the order cards were dealt);
  scratch space for the wage order; the heuristic's projection per card and per seat, and each
  seat's term of its soft win share, which the rules keep current so that the greedy agent
  does not recompute them for every decision; per card, the order of the seats' first tokens on
  it (read by the ``multi_tie: first_placed`` case only).

Lead tracking (for ``lead_changes`` and ``decided_at``): ``H_LEADER`` is the last seat that led
alone at the end of a round, ``H_LEADER_NOW`` the seat leading alone at the end of the last round
(-1 on a tie), ``H_STREAK_START`` the round from which it has led without a break.

``H_TRACK`` is 1 when the rules keep the heuristic's projection current (a game with a greedy or
search seat; projection.py), 0 when nobody reads it (every seat random).

One array is not enough on its own: Numba still counts references on it in compiled code, which
was half of a greedy game's time, so the compiled entry points work on
:func:`simulator.jit.borrowed` views of their arrays.
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline
from simulator.procedures.recruitment.loyalty.params import MAX_CARDS, MAX_PLAYERS

#: Integer type of the state (int32 would halve the copy; measured, see docs/recruitment.md; the
#: kept soft win share terms, ``S_TERMS``, are float64 bits and need 64-bit slots).
STATE_DTYPE = np.int64

# Header.
(
    H_PLAYERS,
    H_ROUNDS,
    H_MULTI_TIE,
    H_N_CARDS,
    H_PER_ROUND,
    H_INCOME,
    H_DIE,
    H_TO_BANK,
    H_BANK_REFILL,
    H_ROTATE,
    H_PASS_FINAL,
    H_WIN,
    H_DEBUG,
    H_TOKENS_PER_EMPIRE,
    H_ROUND,
    H_PHASE,
    H_TURN,
    H_FIRST,
    H_PASSES,
    H_ZONE_LEN,
    H_DECK_LEN,
    H_GOLD_ISSUED,
    H_GOLD_PAID,
    H_VIOLATIONS,
    H_LEADER,
    H_LEADER_NOW,
    H_STREAK_START,
    H_LEAD_CHANGES,
    H_TRACK,
    H_ZERO_TOKENS,
    H_EQUIPMENT,
    H_REMOVED_TO_BANK,
    H_USER_STEP,
    H_STEP_ADDRESS,
) = range(34)
HEADER = 40

#: Phases: placing tokens in the recruitment phase, or the game is over.
PLACE = 0
OVER = 1

# Per seat.
S_SUPPLY = HEADER
S_BANK = S_SUPPLY + MAX_PLAYERS
S_GOLD = S_BANK + MAX_PLAYERS
S_PLACED = S_GOLD + MAX_PLAYERS
S_OUT = S_PLACED + MAX_PLAYERS

#: Per-seat counters reported as metrics: ``s[S_COUNTS + COUNTER * MAX_PLAYERS + seat]``.
(
    OWNED,
    DEFECTIONS,
    REMOVED_NO_TOKENS,
    REMOVED_MULTI_TIE,
    GAP_MULTI_TIE,
    GAP_ZERO_TIE,
    GAP_EQUIPPED,
    TOKENS_LOST,
    EQUIPMENT_DISCARDED,
    GIVEN_MULTI_TIE,
) = range(10)
N_COUNTERS = 10
S_COUNTS = S_OUT + MAX_PLAYERS

# Per card.
S_WAGE = S_COUNTS + N_COUNTERS * MAX_PLAYERS
S_BASE = S_WAGE + MAX_CARDS
S_HOME = S_BASE + MAX_CARDS
S_EQUIPPED = S_HOME + MAX_CARDS
S_STATUS = S_EQUIPPED + MAX_CARDS
S_TOKENS = S_STATUS + MAX_CARDS  # tokens of seat e on card c: S_TOKENS + c * MAX_PLAYERS + e
S_DECK = S_TOKENS + MAX_CARDS * MAX_PLAYERS
S_ZONE = S_DECK + MAX_CARDS
S_SCRATCH = S_ZONE + MAX_PLAYERS + 1  # MAX_CARDS slots of working space (the wage order)
#: The heuristic's projection, kept up to date by the rules (projection.py): each card's projected
#: holder (-1: nobody) and weight, and per seat the projected count and summed weight.
S_PROJ_HOLDER = S_SCRATCH + MAX_CARDS
S_PROJ_WEIGHT = S_PROJ_HOLDER + MAX_CARDS
S_TALLY = S_PROJ_WEIGHT + MAX_CARDS  # summed card weight of seat e at S_TALLY + e
#: Each seat's term of the heuristic's soft win share, kept with the projection: the bits of a
#: float64 (read and written through ``s.view(np.float64)``, projection.terms_of).
S_TERMS = S_TALLY + MAX_PLAYERS
#: Per card, the order in which seats placed their first token on it, kept only under the
#: ``multi_tie: first_placed`` case (cases.py): 3 bits a seat (seat + 1), the first lowest.
S_FIRST_PLACED = S_TERMS + MAX_PLAYERS
STATE_SIZE = S_FIRST_PLACED + MAX_CARDS

#: Card status other than an owner seat.
IN_ZONE = -1
IN_DECK = -2
REMOVED = -3


def new_state() -> np.ndarray:
    """An empty state (all zeros); :func:`..rules.start_game` sets it up."""
    return np.zeros(STATE_SIZE, dtype=STATE_DTYPE)


@inline
def copy_state(s):
    """An independent copy of ``s`` (one allocation, one copy)."""
    return s.copy()


@inline
def tok(s, c, e):
    """Tokens of seat ``e`` on card ``c``."""
    return s[S_TOKENS + c * MAX_PLAYERS + e]


@inline
def counter_add(s, counter, e, n):
    s[S_COUNTS + counter * MAX_PLAYERS + e] += n


@inline
def counter(s, counter_row, e):
    return s[S_COUNTS + counter_row * MAX_PLAYERS + e]


@inline
def to_move(s):
    """The seat that must decide now (0-based), -1 when the game is over."""
    if s[H_PHASE] == OVER:
        return -1
    return s[H_TURN]


@inline
def is_over(s):
    return s[H_PHASE] == OVER


@inline
def round_of(s):
    """Rounds completed (0 during the first round's placement; ``rounds`` when over)."""
    return s[H_ROUND]


@inline
def n_seats(s):
    return s[H_PLAYERS]
