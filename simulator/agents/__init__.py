"""Agents that play whole games: the skill ladder random, greedy, rollout, mcts.

``spec`` parses how scenarios name players (the ``policies:`` key). The agents themselves are
written once against the game interface (``game.GameFunctions``; docs/agents.md, "The game
interface"): ``factory.make_agents(GAME)`` compiles ``choose(s, agent_row, rng) -> move`` for a
game, ``factory.make_player`` plays a dealt game to its end. One module per rung (``random_greedy``,
``rollout``, ``mcts``), the default policy of playouts in ``playout``, decision sub-streams in
``streams``, the soft win share of games' hand-written heuristics in ``softmax``.

Nothing here is imported by this package's ``__init__``: reading a scenario's ``policies:`` must
not load Numba.
"""
