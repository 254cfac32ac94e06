"""The decision hook of the kernel's play loop, and this game's fast random and greedy agents.

``choose_move(s, agent_row, rng) -> move`` is the ONE place a decision is made: the kernel asks
``to_move``, passes that seat's packed agent row (simulator.agents.spec.pack_agents) and the
decision's own stream, and applies the move. Rollout and mcts are the generic agents of
``simulator.agents`` (``make_search_agents(GAME)``); this module plays random and greedy itself.

Both agents are the generic definitions (GAME_INTERFACE.md), computed faster for this game:

- **random**: uniform over ``legal_moves`` (one word: ``below(word, n)``, the n-th move in
  ``legal_moves`` order), without filling a move list;
- **greedy**: one-step lookahead — the move whose resulting position has the best ``heuristic``
  for the mover, ties broken uniformly at random. A move that keeps the placement going changes
  one card's tokens (or nothing, for a pass), so its value is the heuristic recomputed for that
  card alone (exact: weights are integers); a move that ends the placement (a pass, or a last
  token, after which every empire has passed) runs the zone resolution and maintenance, with
  dice: it is evaluated as the generic agent does, on a copy played by ``apply_move`` with a
  stream of its own. Streams: the first word of the decision stream seeds every such copy (the
  same dice for every candidate move: a paired comparison); the next word, drawn only when
  several moves tie for the best value, picks one of them (``below(word, ties)`` in move order).
"""

from __future__ import annotations

import numpy as np

from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_KIND
from simulator.jit import inline, kernel
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.heuristic import heuristic, project_card, value_of
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import (
    MAX_MOVES,
    PASS,
    apply_move,
    uniform_below,
)
from simulator.procedures.recruitment.loyalty.state import (
    H_DIE,
    H_N_CARDS,
    H_PASS_FINAL,
    H_PASSES,
    H_PER_ROUND,
    H_PLAYERS,
    H_TURN,
    H_ZONE_LEN,
    S_OUT,
    S_PLACED,
    S_STATUS,
    S_SUPPLY,
    S_TOKENS,
    S_ZONE,
    copy_state,
)
from simulator.rng import GAMMA, mix64

#: Agent codes (simulator.agents.spec.AGENT_CODES) this hook plays.
RANDOM = 0
GREEDY = 1


@inline
def count_legal_moves(s):
    """``legal_moves``'s n without the list: zone cards, own characters, the pass."""
    e = s[H_TURN]
    n = s[H_ZONE_LEN] + 1
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            n += 1
    return n


@inline
def nth_legal_move(s, j):
    """The ``j``-th move of ``legal_moves`` order."""
    e = s[H_TURN]
    zone_len = s[H_ZONE_LEN]
    if j < zone_len:
        return s[S_ZONE + j]
    k = zone_len
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            if k == j:
                return c
            k += 1
    return PASS


@inline
def random_move(s, rng):
    rng[0] += GAMMA
    return nth_legal_move(s, uniform_below(mix64(rng[0]), count_legal_moves(s)))


@inline
def placement_over(s):
    """Whether the forced passes from the current turn end the placement (``advance``'s turn
    logic, without ending the round). Moves the turn; callers restore it."""
    players = s[H_PLAYERS]
    pass_final = s[H_PASS_FINAL] != 0
    per_round = s[H_PER_ROUND]
    zone_len = s[H_ZONE_LEN]
    n_cards = s[H_N_CARDS]
    while True:
        if s[H_PASSES] >= players:
            return True
        e = s[H_TURN]
        if pass_final and s[S_OUT + e] != 0:
            s[H_TURN] = (e + 1) % players
            continue
        if s[S_PLACED + e] < per_round and s[S_SUPPLY + e] > 0:
            if zone_len > 0:
                return False
            for c in range(n_cards):
                if s[S_STATUS + c] == e:
                    return False
        s[H_PASSES] += 1
        s[S_OUT + e] = 1
        s[H_TURN] = (e + 1) % players


@inline
def move_ends_placement(s, move):
    """Whether ``move`` by the seat to move ends the placement (then ``apply_move`` resolves
    the zone and runs maintenance). Leaves ``s`` as it was."""
    players = s[H_PLAYERS]
    e = s[H_TURN]
    turn = s[H_TURN]
    passes = s[H_PASSES]
    supply = s[S_SUPPLY + e]
    placed = s[S_PLACED + e]
    outs = 0
    for f in range(players):
        outs |= s[S_OUT + f] << f
    if move == PASS:
        s[H_PASSES] += 1
        s[S_OUT + e] = 1
    else:
        s[S_SUPPLY + e] -= 1
        s[S_PLACED + e] += 1
        if s[H_PASS_FINAL] == 0:
            s[H_PASSES] = 0
    s[H_TURN] = (e + 1) % players
    over = placement_over(s)
    s[H_TURN] = turn
    s[H_PASSES] = passes
    s[S_SUPPLY + e] = supply
    s[S_PLACED + e] = placed
    for f in range(players):
        s[S_OUT + f] = (outs >> f) & 1
    return over


@kernel
def greedy_move(s, rng):
    """One-step lookahead on the heuristic (module docstring)."""
    players = s[H_PLAYERS]
    die = s[H_DIE]
    e = s[H_TURN]
    rng[0] += GAMMA
    chance_seed = mix64(rng[0])
    count = np.zeros(MAX_PLAYERS, dtype=np.int64)
    weight = np.zeros(MAX_PLAYERS, dtype=np.int64)
    values = np.empty(MAX_MOVES + MAX_PLAYERS, dtype=np.float64)
    for c in range(s[H_N_CARDS]):
        h, w = project_card(s, c)
        if h >= 0:
            count[h] += 1
            weight[h] += w
    here = value_of(count, weight, e, players, die)
    n = count_legal_moves(s)
    best = -1.0
    ties = 0
    chance = np.zeros(1, dtype=np.uint64)
    for j in range(n):
        move = nth_legal_move(s, j)
        if move_ends_placement(s, move):
            t = copy_state(s)
            chance[0] = chance_seed
            apply_move(t, move, chance)
            heuristic(t, values[MAX_MOVES:])
            v = values[MAX_MOVES + e]
        elif move == PASS:
            v = here
        else:
            h0, w0 = project_card(s, move)
            i = S_TOKENS + move * MAX_PLAYERS + e
            s[i] += 1
            h1, w1 = project_card(s, move)
            s[i] -= 1
            if h0 >= 0:
                count[h0] -= 1
                weight[h0] -= w0
            if h1 >= 0:
                count[h1] += 1
                weight[h1] += w1
            v = value_of(count, weight, e, players, die)
            if h1 >= 0:
                count[h1] -= 1
                weight[h1] -= w1
            if h0 >= 0:
                count[h0] += 1
                weight[h0] += w0
        values[j] = v
        if v > best:
            best = v
            ties = 1
        elif v == best:
            ties += 1
    pick = 0
    if ties > 1:
        rng[0] += GAMMA
        pick = uniform_below(mix64(rng[0]), ties)
    k = 0
    for j in range(n):
        if values[j] == best:
            if k == pick:
                return nth_legal_move(s, j)
            k += 1
    return PASS


#: The generic search rungs (rollout, mcts) of simulator.agents, compiled for this game.
search_move = make_search_agents(GAME)


@inline
def choose_move(s, agent_row, rng):
    """The move of the seat to move, by its agent (``agent_row``: a packed agent row)."""
    kind = agent_row[AGENT_KIND]
    if kind == GREEDY:
        return greedy_move(s, rng)
    if kind == RANDOM:
        return random_move(s, rng)
    return search_move(s, agent_row, rng)
