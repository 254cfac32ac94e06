"""Pig, the template whole game (Pig rules; docs/rules/pig.md).

2 to 4 players take turns, seat 1 first. On its turn a player rolls one die, again and again:
each face adds to the turn's points, but a 1 loses them and ends the turn (§2). After any roll
that is not a 1 the player may hold instead: the turn's points are banked and the die passes
(§2). The first to bank ``target`` points wins at once (§3). ``sim`` adds one invented limit: a
game that reaches ``max_turns`` turns is drawn.

The package is split by concern, as every whole game is: ``params`` (parameters, metrics, the
packed and metric layouts, ``pack``), ``state`` (the state layout and the rules: ``legal_moves``,
``apply_move``, ``start_game``), ``game`` (``returns``, ``heuristic``, ``GAME`` for the agents,
``deal``), ``kernel`` (one game per trial, the metric values) and this file (the procedure).
Copying it to make a new game: docs/architecture.md, "Adding a whole game".
"""

from __future__ import annotations

from simulator.agents.game import WholeGame
from simulator.procedures.base import Alternative, Assumption, Procedure, rulebook, settings
from simulator.procedures.template.pig.game import GAME, deal
from simulator.procedures.template.pig.kernel import pig_kernel
from simulator.procedures.template.pig.params import (
    PACKED,
    PigParams,
    metric_layout_of,
    metrics,
    pack,
)

PAGE = "docs/rules/pig.md"


def exact_values(params: PigParams) -> dict[str, float]:
    """Each seat's exact win probability where every seat plays a rung the solver values
    (:func:`simulator.solver.pig_exact.exact_values`; imported here, when asked, because the
    solver reads this package's rules)."""
    from simulator.solver.pig_exact import exact_values as solved

    return solved(params)


ASSUMPTIONS = (
    Assumption(
        name="max_turns",
        knob="max_turns",
        tag="invented",
        rule=f"Pig rules §3 (the game ends only on a win; {PAGE}#s3)",
        text="a game that reaches 200 turns is drawn, so every trial ends",
        alternatives=(Alternative("50 turns", {"max_turns": 50}, "invented"),),
        fires=("draws",),
    ),
)

PROCEDURE = Procedure(
    name="template.pig",
    title="Pig: a push-your-luck dice game (the template a new whole game copies)",
    rules=f"Pig rules §1–§3 ({PAGE})",
    params_model=PigParams,
    metrics=metrics,
    pack=pack,
    kernel=pig_kernel,
    example={"players": 2, "target": 100},
    assumptions=ASSUMPTIONS,
    given=(
        *settings("players", "policies"),
        *rulebook(f"Pig rules §3 ({PAGE})", "target"),
        # roll is §2's turn; stop (OpenSpiel's opening) is a setting of the comparison, not a
        # reading of the rules.
        *rulebook(f"Pig rules §2 ({PAGE})", "opening"),
    ),
    notes=(
        "players: policies (random, greedy: one-step lookahead on the heuristic, rollout, mcts, "
        "optimal: the exact solver's table for 2 players; docs/agents.md)",
        "a template: copy simulator/procedures/template/ to start a new whole game "
        "(docs/architecture.md)",
    ),
    packed_layout=PACKED,
    metric_layout=metric_layout_of,
    game=WholeGame(GAME, deal),
    exact=exact_values,
)
