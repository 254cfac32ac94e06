"""The state of one game of ``recruitment.loyalty``: ONE flat integer array with named offsets.

Why one array: agents copy states in their search, and every array Numba passes to a helper costs
atomic reference counting (about 35 ns measured in the council game); a flat array is one
allocation and one ``memcpy`` to copy and one reference to pass. The printed card data and the
game's knobs live in the state too, so every game function takes the state alone. The pieces
are declared once, in order, as a :class:`simulator.layout.Layout` (``STATE``); the ``H_*`` and
``S_*`` offsets are taken from it into module constants, which Numba folds into the code.

Pieces (``MAX_PLAYERS`` slots per seat, ``MAX_CARDS`` per card):

- header: the knobs (players, rounds, the rule cases, ...) and the position (round, phase, seat
  to move, first player, consecutive passes, zone and deck lengths), gold issued and paid, lead
  tracking;
- per seat: token supply, tokens in the bank, gold, tokens placed this round, out of this round's
  placement;
- per-seat counters reported as metrics (a row per counter of ``COUNTERS``);
- per card: wage, base loyalty, home seat (-1 for none; ``ANY_HOME`` under the reading
  ``base_loyalty_counts: at_its_number``, where the printed base loyalty counts for any empire
  whose tokens on the card reach it), equipped cards, status (owner seat >= 0,
  or ``IN_ZONE``, ``IN_DECK``, ``REMOVED``);
- tokens[card, seat]; the deck (top card last); the zone (in the order cards were dealt);
  scratch space for the wage order and for the projection's calls of a designer's ownership
  step; the heuristic's projection per card and per seat, and each
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
from simulator.layout import Layout
from simulator.procedures.recruitment.loyalty.params import MAX_CARDS, MAX_PLAYERS

#: Integer type of the state (int32 would halve the copy; measured, see docs/recruitment.md; the
#: kept soft win share terms, ``S_TERMS``, are float64 bits and need 64-bit slots).
STATE_DTYPE = np.int64

#: The header's knobs (players, rounds, the rule cases, ...) and position (round, phase, seat to
#: move, first player, consecutive passes, zone and deck lengths, gold issued and paid, lead
#: tracking), one slot each.
HEADER = (
    "players",
    "rounds",
    "multi_tie",
    "n_cards",
    "per_round",
    "income",
    "die",
    "to_bank",
    "bank_refill",
    "rotate",
    "pass_final",
    "win",
    "debug",
    "tokens_per_empire",
    "round",
    "phase",
    "turn",
    "first",
    "passes",
    "zone_len",
    "deck_len",
    "gold_issued",
    "gold_paid",
    "violations",
    "leader",
    "leader_now",
    "streak_start",
    "lead_changes",
    "track",
    "zero_tokens",
    "equipment",
    "removed_to_bank",
    "user_step",
    "step_address",
    "shuffle",
    "cheap_first",
)

#: Per-seat counters reported as metrics: ``s[S_COUNTS + COUNTER * MAX_PLAYERS + seat]``.
COUNTERS = Layout(
    "owned",
    "defections",
    "removed_no_tokens",
    "removed_multi_tie",
    "gap_multi_tie",
    "gap_zero_tie",
    "gap_equipped",
    "tokens_lost",
    "equipment_discarded",
    "given_multi_tie",
)
N_COUNTERS = COUNTERS.size

#: The whole state, piece by piece (module docstring).
STATE = Layout(
    *HEADER,
    # Per seat.
    ("supply", MAX_PLAYERS),
    ("bank", MAX_PLAYERS),
    ("gold", MAX_PLAYERS),
    ("placed", MAX_PLAYERS),
    ("out", MAX_PLAYERS),
    ("counts", N_COUNTERS * MAX_PLAYERS),
    # Per card.
    ("wage", MAX_CARDS),
    ("base", MAX_CARDS),
    ("home", MAX_CARDS),
    ("equipped", MAX_CARDS),
    ("status", MAX_CARDS),
    (
        "tokens",
        MAX_CARDS * MAX_PLAYERS,
    ),  # tokens of seat e on card c: S_TOKENS + c * MAX_PLAYERS + e
    ("deck", MAX_CARDS),
    ("zone", MAX_PLAYERS + 1),
    ("scratch", MAX_CARDS),  # working space (the wage order)
    # Working space of the projection under a designer's ownership step (projection.py): the
    # loyalty and tokens it calls the step with, so that it allocates nothing.
    ("step_loyalty", MAX_PLAYERS),
    ("step_tokens", MAX_PLAYERS),
    # The heuristic's projection, kept up to date by the rules (projection.py): each card's
    # projected holder (-1: nobody) and weight, and per seat the summed card weight.
    ("projected_holder", MAX_CARDS),
    ("projected_weight", MAX_CARDS),
    ("tally", MAX_PLAYERS),
    # Each seat's term of the heuristic's soft win share, kept with the projection: the bits of
    # a float64 (read and written through ``s.view(np.float64)``, projection.terms_of).
    ("terms", MAX_PLAYERS),
    # Per card, the order in which seats placed their first token on it, kept only under the
    # ``multi_tie: first_placed`` case (cases.py): 3 bits a seat (seat + 1), the first lowest.
    ("first_placed", MAX_CARDS),
)

# Header.
H_PLAYERS, H_ROUNDS, H_MULTI_TIE, H_N_CARDS = (
    STATE.at(n) for n in ("players", "rounds", "multi_tie", "n_cards")
)
H_PER_ROUND, H_INCOME, H_DIE, H_TO_BANK = (
    STATE.at(n) for n in ("per_round", "income", "die", "to_bank")
)
H_BANK_REFILL, H_ROTATE, H_PASS_FINAL, H_WIN = (
    STATE.at(n) for n in ("bank_refill", "rotate", "pass_final", "win")
)
H_DEBUG, H_TOKENS_PER_EMPIRE = STATE.at("debug"), STATE.at("tokens_per_empire")
H_ROUND, H_PHASE, H_TURN, H_FIRST = (STATE.at(n) for n in ("round", "phase", "turn", "first"))
H_PASSES, H_ZONE_LEN, H_DECK_LEN = STATE.at("passes"), STATE.at("zone_len"), STATE.at("deck_len")
H_GOLD_ISSUED, H_GOLD_PAID = STATE.at("gold_issued"), STATE.at("gold_paid")
H_VIOLATIONS, H_LEADER, H_LEADER_NOW = (
    STATE.at("violations"),
    STATE.at("leader"),
    STATE.at("leader_now"),
)
H_STREAK_START, H_LEAD_CHANGES = STATE.at("streak_start"), STATE.at("lead_changes")
H_TRACK, H_ZERO_TOKENS, H_EQUIPMENT = (
    STATE.at("track"),
    STATE.at("zero_tokens"),
    STATE.at("equipment"),
)
H_REMOVED_TO_BANK, H_USER_STEP = STATE.at("removed_to_bank"), STATE.at("user_step")
H_STEP_ADDRESS, H_SHUFFLE = STATE.at("step_address"), STATE.at("shuffle")
H_CHEAP_FIRST = STATE.at("cheap_first")

#: A card's home under ``base_loyalty_counts: at_its_number``: its printed base loyalty counts for
#: every empire whose tokens on it reach that number (ownership.loyalty_of).
ANY_HOME = -2

#: Phases: placing tokens in the recruitment phase, or the game is over.
PLACE = 0
OVER = 1

# Per seat.
S_SUPPLY, S_BANK, S_GOLD = STATE.at("supply"), STATE.at("bank"), STATE.at("gold")
S_PLACED, S_OUT, S_COUNTS = STATE.at("placed"), STATE.at("out"), STATE.at("counts")
# The counters' rows in ``counts``.
OWNED, DEFECTIONS = COUNTERS.at("owned"), COUNTERS.at("defections")
REMOVED_NO_TOKENS, REMOVED_MULTI_TIE = (
    COUNTERS.at("removed_no_tokens"),
    COUNTERS.at("removed_multi_tie"),
)
GAP_MULTI_TIE, GAP_ZERO_TIE = COUNTERS.at("gap_multi_tie"), COUNTERS.at("gap_zero_tie")
GAP_EQUIPPED, TOKENS_LOST = COUNTERS.at("gap_equipped"), COUNTERS.at("tokens_lost")
EQUIPMENT_DISCARDED, GIVEN_MULTI_TIE = (
    COUNTERS.at("equipment_discarded"),
    COUNTERS.at("given_multi_tie"),
)

# Per card.
S_WAGE, S_BASE, S_HOME = STATE.at("wage"), STATE.at("base"), STATE.at("home")
S_EQUIPPED, S_STATUS, S_TOKENS = STATE.at("equipped"), STATE.at("status"), STATE.at("tokens")
S_DECK, S_ZONE, S_SCRATCH = STATE.at("deck"), STATE.at("zone"), STATE.at("scratch")
S_STEP_LOYALTY, S_STEP_TOKENS = STATE.at("step_loyalty"), STATE.at("step_tokens")
S_PROJ_HOLDER, S_PROJ_WEIGHT = STATE.at("projected_holder"), STATE.at("projected_weight")
S_TALLY, S_TERMS = STATE.at("tally"), STATE.at("terms")
S_FIRST_PLACED = STATE.at("first_placed")
STATE_SIZE = STATE.size

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
