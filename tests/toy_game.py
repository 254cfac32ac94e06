"""Hand-hidden Nim: a small whole game implementing the game interface, for testing agents.

Two or three seats take turns removing 1, 2 or 3 stones from a pile; whoever takes the last stone
wins. Each seat holds one hidden card (1..3) from a dealt deck: playing it (move 4) removes that
many stones *and skips the next seat*, then the seat draws a new card (none when the deck is
empty). After every move that does not end the game, a stone is added to the pile with
probability ``add_permille / 1000`` (a chance event). After ``max_rounds`` rounds the game is a
draw. What a seat cannot see: the other seats' cards and the deck order.

The heuristic is deliberately greedy-misleading: a seat's share of the stones taken so far. A
one-step lookahead therefore grabs three stones, where Nim theory says to leave a multiple of
four (in two-seat play without chance); search agents find that.

State: one flat int64 array (offsets below).
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.agents.factory import make_agents, make_player
from simulator.agents.game import GameFunctions
from simulator.agents.spec import AGENT_ROW, Policies, pack_agents, seat_agents
from simulator.agents.streams import below
from simulator.jit import kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import next_word, trial_state

MAX_SEATS = 3
MAX_DECK = 16
MAX_MOVES = 4
PLAY_CARD = 4

SEATS, TO_MOVE, PILE, ROUND, MAX_ROUNDS, ADD, DECK_POS, DECK_LEN, WINNER = range(9)
TAKEN = 9
HAND = TAKEN + MAX_SEATS
DECK = HAND + MAX_SEATS
SIZE = DECK + MAX_DECK
DRAW = -2
NOBODY = -1

_THOUSAND = np.uint64(1000)


@kernel
def new_state(seats, pile, max_rounds, add_permille):
    s = np.zeros(SIZE, dtype=np.int64)
    s[SEATS] = seats
    s[PILE] = pile
    s[MAX_ROUNDS] = max_rounds
    s[ADD] = add_permille
    s[WINNER] = NOBODY
    return s


@kernel
def copy_state(s):
    return s.copy()


@kernel
def is_over(s):
    return s[WINNER] != NOBODY


@kernel
def to_move(s):
    return np.int64(-1) if s[WINNER] != NOBODY else s[TO_MOVE]


@kernel
def n_seats(s):
    return s[SEATS]


@kernel
def round_of(s):
    return s[ROUND]


@kernel
def legal_moves(s, out):
    p = s[TO_MOVE]
    n = 0
    for k in range(1, 4):
        if k <= s[PILE]:
            out[n] = k
            n += 1
    if s[HAND + p] > 0 and s[HAND + p] <= s[PILE]:
        out[n] = PLAY_CARD
        n += 1
    return n


@kernel
def apply_move(s, move, rng):
    p = s[TO_MOVE]
    seats = s[SEATS]
    step = 1
    if move == PLAY_CARD:
        take = s[HAND + p]
        step = 2
        if s[DECK_POS] < s[DECK_LEN]:
            s[HAND + p] = s[DECK + s[DECK_POS]]
            s[DECK_POS] += 1
        else:
            s[HAND + p] = 0
    else:
        take = move
    s[PILE] -= take
    s[TAKEN + p] += take
    if s[PILE] == 0:
        s[WINNER] = p
        return
    if np.uint64(next_word(rng) % _THOUSAND) < np.uint64(s[ADD]):
        s[PILE] += 1
    nxt = (p + step) % seats
    if nxt <= p:
        s[ROUND] += 1
        if s[ROUND] >= s[MAX_ROUNDS]:
            s[WINNER] = DRAW
            return
    s[TO_MOVE] = nxt


@kernel
def returns(s, out):
    seats = s[SEATS]
    for q in range(seats):
        if s[WINNER] == DRAW:
            out[q] = 1.0 / seats
        else:
            out[q] = 1.0 if s[WINNER] == q else 0.0


@kernel
def heuristic(s, out):
    seats = s[SEATS]
    total = 0
    for q in range(seats):
        total += s[TAKEN + q]
    for q in range(seats):
        out[q] = (s[TAKEN + q] + 1.0) / (total + seats)


@kernel
def determinize(s, seat, rng):
    c = s.copy()
    seats = s[SEATS]
    pool = np.empty(MAX_DECK + MAX_SEATS, dtype=np.int64)
    n = 0
    for q in range(seats):
        if q != seat and c[HAND + q] > 0:
            pool[n] = c[HAND + q]
            n += 1
    for k in range(c[DECK_POS], c[DECK_LEN]):
        pool[n] = c[DECK + k]
        n += 1
    # Sort first, so the result depends only on what the seat knows (the multiset), then shuffle.
    pool[:n].sort()
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    n = 0
    for q in range(seats):
        if q != seat and c[HAND + q] > 0:
            c[HAND + q] = pool[n]
            n += 1
    for k in range(c[DECK_POS], c[DECK_LEN]):
        c[DECK + k] = pool[n]
        n += 1
    return c


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
)

choose = make_agents(GAME)
play = make_player(GAME, choose)


# --------------------------------------------------------------------------------------------
# The procedure: deal, play, record.


class NimParams(Params):
    seats: int = Field(default=2, ge=2, le=MAX_SEATS, description="players")
    pile: int = Field(default=21, ge=1, le=200, description="stones at the start")
    max_rounds: int = Field(default=30, ge=1, le=500, description="rounds before a draw")
    add_permille: int = Field(default=0, ge=0, le=1000, description="chance of a stone back")
    deck: int = Field(default=0, ge=0, le=MAX_DECK, description="cards dealt (hands first)")
    policies: Policies = Field(default="random", description="agents, one or one per seat")


HEAD = 5


def pack(p: NimParams) -> np.ndarray:
    agents = pack_agents(seat_agents(p.policies, p.seats))
    head = [p.seats, p.pile, p.max_rounds, p.add_permille, p.deck]
    return np.concatenate([np.asarray(head, dtype=np.float64), agents.ravel()])


def metrics(p: NimParams) -> list[Metric]:
    out = [
        Metric(f"wins.seat{q + 1}", "proportion", f"seat {q + 1} wins (draws split)", scale=6)
        for q in range(p.seats)
    ]
    out.append(Metric("draws", "proportion", "games drawn at the round limit"))
    out.append(Metric("length", "distribution", "rounds played", max_value=500))
    return out


@kernel
def deal(row, rng):
    seats = np.int64(row[0])
    s = new_state(seats, np.int64(row[1]), np.int64(row[2]), np.int64(row[3]))
    cards = np.int64(row[4])
    for k in range(cards):
        s[DECK + k] = 1 + below(rng, 3)
    s[DECK_LEN] = cards
    for q in range(seats):
        if s[DECK_POS] < s[DECK_LEN]:
            s[HAND + q] = s[DECK + s[DECK_POS]]
            s[DECK_POS] += 1
    return s


@kernel
def nim_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    out = np.empty(MAX_SEATS, dtype=np.float64)
    for b0 in range(0, n_trials, BLOCK):
        m = min(BLOCK, n_trials - b0)
        for i in range(m):
            seed = trial_state(key, first_trial + b0 + i)
            for v in range(n_variants):
                row = packed[v]
                seats = np.int64(row[0])
                agents = row[HEAD : HEAD + seats * AGENT_ROW].reshape((seats, AGENT_ROW))
                rng[0] = seed
                s = deal(row, rng)
                play(s, agents, seed, rng, 0)
                returns(s, out)
                for q in range(seats):
                    values[v, q, i] = np.int64(round(out[q] * 6))
                values[v, seats, i] = 1 if s[WINNER] == DRAW else 0
                values[v, seats + 1, i] = s[ROUND]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


PROCEDURE = Procedure(
    name="toy.nim",
    title="Hand-hidden Nim (a test game for agents)",
    rules="tests/toy_game.py",
    params_model=NimParams,
    metrics=metrics,
    pack=pack,
    kernel=nim_kernel,
)
