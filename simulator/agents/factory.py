"""The agents of one game, compiled once: ``make_agents(GAME) -> choose``.

``choose(s, agent_row, rng) -> move`` plays the rung named by the packed agent row
(:func:`simulator.agents.spec.pack_agents`) for the seat to move in ``s``, drawing its randomness
from ``rng`` (a ``uint64[1]`` decision sub-stream, :func:`simulator.agents.streams.start_decision`).
It is built by closure over the game's @njit functions, so a game kernel calls it like any other
compiled function; it is not cached on disk itself (see :data:`simulator.jit.closure`), but the
cached kernel that calls it carries its code, so a warm start compiles nothing.

:func:`make_player` adds the loop a kernel usually needs: play a dealt game to its end with one
agent row per seat, each decision on its own sub-stream.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from simulator.agents.game import GameFunctions
from simulator.agents.mcts import make_mcts
from simulator.agents.random_greedy import make_greedy, make_random
from simulator.agents.rollout import make_rollout
from simulator.agents.spec import AGENT_CODES, AGENT_KIND
from simulator.agents.streams import start_decision
from simulator.jit import closure

_RANDOM = AGENT_CODES["random"]
_GREEDY = AGENT_CODES["greedy"]
_ROLLOUT = AGENT_CODES["rollout"]


@closure
def _no_move(s, rng):  # pragma: no cover - compiled
    return np.int64(-1)


@closure
def _no_search(s, agent_row, rng):  # pragma: no cover - compiled
    return np.int64(-1)


def make_agents(game: GameFunctions, rungs: Collection[str] | None = None) -> Any:
    """The compiled ``choose(s, agent_row, rng) -> move`` of ``game``: every rung, or only the
    ``rungs`` named (a kernel for the agents its runs seat: the search rungs are most of a whole
    game's compile). A rung left out is a stub that must never be chosen; the rungs kept play
    exactly as in the full ``choose``."""
    wanted = set(AGENT_CODES) if rungs is None else set(rungs)
    random_move = make_random(game) if "random" in wanted else _no_move
    greedy_move = make_greedy(game) if "greedy" in wanted else _no_move
    rollout_move = make_rollout(game) if "rollout" in wanted else _no_search
    mcts_move = make_mcts(game) if "mcts" in wanted else _no_search

    @closure
    def choose(s, agent_row, rng):  # pragma: no cover - compiled
        kind = int(agent_row[AGENT_KIND])
        if kind == _RANDOM:
            return random_move(s, rng)
        if kind == _GREEDY:
            return greedy_move(s, rng)
        if kind == _ROLLOUT:
            return rollout_move(s, agent_row, rng)
        return mcts_move(s, agent_row, rng)

    return choose


def make_search_agents(game: GameFunctions) -> Any:
    """``search(s, agent_row, rng) -> move`` playing only the search rungs (rollout, and mcts for
    any other code): for a game that plays random and greedy with its own faster code and wants
    the generic search agents without compiling the generic random and greedy too."""
    rollout_move = make_rollout(game)
    mcts_move = make_mcts(game)

    @closure
    def search(s, agent_row, rng):  # pragma: no cover - compiled
        if int(agent_row[AGENT_KIND]) == _ROLLOUT:
            return rollout_move(s, agent_row, rng)
        return mcts_move(s, agent_row, rng)

    return search


def make_player(game: GameFunctions, choose: Any) -> Any:
    """``play(s, agents, trial_seed, rng, first_decision) -> decisions``: play ``s`` in place to
    its end, the seat to move choosing by ``agents[seat]`` on decision sub-stream
    ``first_decision + k`` of ``trial_seed`` and chance events reading the game stream ``rng``.
    Returns the number of decisions made (the next free decision counter is
    ``first_decision + decisions``)."""
    to_move, apply_move, is_over = game.to_move, game.apply_move, game.is_over

    @closure
    def play(s, agents, trial_seed, rng, first_decision):  # pragma: no cover - compiled
        decision = np.empty(1, dtype=np.uint64)
        k = 0
        while not is_over(s):
            seat = to_move(s)
            start_decision(decision, trial_seed, first_decision + k)
            move = choose(s, agents[seat], decision)
            apply_move(s, move, rng)
            k += 1
        return k

    return play
