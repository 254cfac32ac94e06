"""The decision hook of the kernel's play loop, and this game's fast random and greedy agents.

``choose_move(s, agent_row, rng) -> move`` is the ONE place a decision is made: the kernel asks
``to_move``, passes that seat's packed agent row (simulator.agents.spec.pack_agents) and the
decision's own stream, and applies the move. Rollout and mcts are the generic agents of
``simulator.agents`` (``make_search_agents(GAME)``); this module plays random and greedy itself.

Both agents are the generic definitions (GAME_INTERFACE.md), computed faster for this game:

- **random**: uniform over ``legal_moves`` (one word: ``below(word, n)``, the n-th move in
  ``legal_moves`` order), without filling a move list;
- **greedy**: one-step lookahead on the heuristic: the move whose resulting position has the
  best ``heuristic`` for the mover, ties broken uniformly at random (reservoir sampling in move
  order: the k-th move tied for the best so far takes the pick when ``below(word, k) == 0``, one
  word of the decision stream per tie met). The position is scored right after the move, before
  chance: when the move ends the placement, the zone resolution and maintenance dice that
  ``apply_move`` would run next are not sampled, as the heuristic already projects the
  resolution and the ownership check and weighs the loyalty dice. (The generic greedy of
  simulator.agents samples them on a copy; scoring before chance ranks moves the same way without
  the noise of one sampled roll, and needs no copy.) A placement changes one card's tokens, so
  its value is the projection kept in the state updated for that card alone: exact, as the
  heuristic's weights are integers.
"""

from __future__ import annotations

from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_KIND
from simulator.jit import inline, kernel
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.params import MAX_PLAYERS
from simulator.procedures.recruitment.loyalty.phases import (
    PASS,
    uniform_below,
)
from simulator.procedures.recruitment.loyalty.projection import project_card, value_of
from simulator.procedures.recruitment.loyalty.state import (
    H_DIE,
    H_N_CARDS,
    H_PLAYERS,
    H_TURN,
    H_ZONE_LEN,
    S_PROJ_HOLDER,
    S_PROJ_WEIGHT,
    S_STATUS,
    S_TALLY,
    S_TOKENS,
    S_ZONE,
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
def value_after(s, move, e, players, die, here):
    """The mover's heuristic right after placing a token on ``move``, from the projection kept
    in the state: only that card's projection changes (``value_of`` with that card's holding
    moved, read on the fly; ``here``, the current value, when it does not move). Leaves ``s`` as
    it was."""
    h0 = s[S_PROJ_HOLDER + move]
    w0 = s[S_PROJ_WEIGHT + move]
    i = S_TOKENS + move * MAX_PLAYERS + e
    s[i] += 1
    h1, w1 = project_card(s, move)
    s[i] -= 1
    if h0 == h1 and w0 == w1:
        return here
    top = -1
    k = 0
    rival = 0
    mine_n = 0
    mine_w = 0
    for f in range(players):
        n = s[S_TALLY + f]
        w = s[S_TALLY + MAX_PLAYERS + f]
        if f == h0:
            n -= 1
            w -= w0
        if f == h1:
            n += 1
            w += w1
        if n > top:
            top = n
            k = 1
        elif n == top:
            k += 1
        if f == e:
            mine_n = n
            mine_w = w
        elif w > rival:
            rival = w
    share = 1.0 / k if mine_n == top else 0.0
    return 0.5 * share + 0.5 * (mine_w + die) / (mine_w + rival + 2 * die)


@inline
def _consider(v, move, best, ties, pick, rng):
    """Keep the best value and a uniform pick among the moves tied for it (reservoir sampling:
    the k-th tied move replaces the pick when ``below(word, k) == 0``, one word each)."""
    if v > best:
        return v, 1, move
    if v == best:
        ties += 1
        rng[0] += GAMMA
        if uniform_below(mix64(rng[0]), ties) == 0:
            pick = move
    return best, ties, pick


@kernel
def greedy_move(s, rng):
    """One-step lookahead on the heuristic, scored before chance (module docstring)."""
    players = s[H_PLAYERS]
    die = s[H_DIE]
    e = s[H_TURN]
    # The pass keeps the position: its value is the current one.
    here = value_of(s, S_TALLY, e, players, die)
    best = -1.0
    ties = 0
    pick = PASS
    for k in range(s[H_ZONE_LEN]):
        c = s[S_ZONE + k]
        v = value_after(s, c, e, players, die, here)
        best, ties, pick = _consider(v, c, best, ties, pick, rng)
    for c in range(s[H_N_CARDS]):
        if s[S_STATUS + c] == e:
            v = value_after(s, c, e, players, die, here)
            best, ties, pick = _consider(v, c, best, ties, pick, rng)
    best, ties, pick = _consider(here, PASS, best, ties, pick, rng)
    return pick


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
