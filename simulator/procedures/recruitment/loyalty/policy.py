"""The decision hook of the kernel's play loop: ``choose_move(s, agent_row, rng) -> move``.

It is the ONE place a decision is made: the kernel asks ``to_move``, passes that seat's packed
agent row (simulator.agents.spec.pack_agents) and the decision's own stream, and applies the move.
Random and greedy are this game's own fast agents (greedy.py); rollout and mcts are the generic
agents of ``simulator.agents`` (``make_search_agents(GAME)``), whose playouts follow greedy.
"""

from __future__ import annotations

from simulator.agents.factory import make_search_agents
from simulator.agents.spec import AGENT_CODES, AGENT_KIND
from simulator.jit import inline
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.greedy import greedy_move, random_move

RANDOM = AGENT_CODES["random"]
GREEDY = AGENT_CODES["greedy"]

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
