"""Agents that play whole games: the skill ladder random, greedy, rollout, mcts.

``spec`` parses how scenarios name players (the ``policies:`` key). The agents themselves are
written once against the game interface (ARCHITECTURE.md, "Whole games and agents").
"""
