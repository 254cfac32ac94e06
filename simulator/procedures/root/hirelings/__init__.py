"""Root hirelings module: a game of influence spending over hirelings (Root hirelings rules §1).

Each round, each seat in turn from the holder of the first-player card, clockwise, scores its
round's points (drawn from its score-gain distribution),
then, at the end of its Evening, rolls the influence dice (2 players: sum of two dice, 3 players:
better of two, 4+: one die; a face ``N+`` counts only at least ``N`` behind the leader) and spends
the influence at once (never saved). Each purchase is one of:

- take control of an uncontrolled hireling, or of an unprotected one held by another player
  (Veteran 3, Diplomat 2, the others their cost);
- protect one of its own hirelings (1; not the Veteran or a Diplomat);
- unprotect one of another player's hirelings (1).

The Veteran is in every 2-player game: it cannot be taken while controlled; before the first
player's turn its holder takes the first-player card and the Veteran returns to the supply
(uncontrolled). Two Diplomats are in every game of 3+ players: they cannot be taken while
controlled; controlling one gives the other to an enemy of the taker's choice; each flips to
exhausted at the end of its holder's Evening, and both return to the supply when both are exhausted.

Decisions where the rulebook is silent (parameters or documented): seat 1 holds the first-player
card at the start; a taken hireling arrives unprotected; the ``greedy`` policy takes the cheapest
hireling it can (from the score leader first, then the supply), else protects its own, else
unprotects the leader's hireling when it could then take it; it gives the second Diplomat to the
lowest-scoring enemy. ``random`` picks uniformly among the legal purchases until none is left.
Players are named by ``policies`` (one agent for all seats or one per seat): ``random`` and
``greedy`` are the rules above (``game.legacy_move``), ``rollout`` and ``mcts`` the generic
search agents of simulator.agents over the game interface (``state``, ``game``).

Scoring: the module scores nothing itself. ``hireling_points`` (an INVENTED assumption, default 0)
scores that many points per controlled hireling at each round's end (the rulebook counts controlled
hirelings as control points, Root hirelings rules §4.4); the winner is the highest score at the end
(ties share).

The package is split by concern: ``params`` (parameters, metrics, packing), ``state`` (the one
array game state and its rules: ``legal_moves``, ``apply_move``), ``game`` (``GAME``, the interface
the agents take, and the module's own random and greedy spenders), ``kernel`` (the decision hook,
one whole game per trial, the engine loop).
"""

from __future__ import annotations

from simulator.agents.game import WholeGame
from simulator.procedures.base import Alternative, Assumption, Procedure, rulebook, settings
from simulator.procedures.root._rules import cite_hirelings
from simulator.procedures.root.hirelings.game import GAME, deal
from simulator.procedures.root.hirelings.kernel import choose_move, hirelings_kernel
from simulator.procedures.root.hirelings.params import (
    HirelingsParams,
    metric_layout_of,
    metrics,
    pack,
)
from simulator.procedures.root.hirelings.state import PACKED

__all__ = ["PROCEDURE", "HirelingsParams", "choose_move", "hirelings_kernel", "metrics", "pack"]

ASSUMPTIONS = (
    Assumption(
        name="faces",
        knob="faces",
        tag="invented",
        rule=cite_hirelings("1"),
        text="the module prints no influence die; the default faces are "
        "[0, 1, 1, 1+:1, 3+:2, 5+:3]",
        alternatives=(
            Alternative(
                "no catch-up faces",
                {"faces": [{"amount": a, "behind": 0} for a in (0, 1, 1, 1, 2, 3)]},
                "invented",
            ),
        ),
    ),
    Assumption(
        name="hireling_points",
        knob="hireling_points",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="controlled hirelings count as control points but the module gives no "
        "number; default 0 (hirelings score nothing, the module as written)",
        alternatives=(
            Alternative("1 point per hireling held", {"hireling_points": 1}, "invented"),
        ),
    ),
    Assumption(
        name="score_gain",
        knob="score_gain",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="each seat's points per round outside the hirelings (1-4, mean 2.5)",
        alternatives=(
            Alternative(
                "2 points every round",
                {"score_gain": [[{"points": 2, "weight": 1}]]},
                "invented",
            ),
        ),
    ),
    Assumption(
        name="rounds",
        knob="rounds",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="a game is 10 rounds: the module is part of a longer game and says nothing of its "
        "length",
        alternatives=(
            Alternative("6 rounds", {"rounds": 6}, "invented"),
            Alternative("15 rounds", {"rounds": 15}, "invented"),
        ),
    ),
    Assumption(
        name="winner",
        knob="",
        tag="invented",
        rule=cite_hirelings("4.4"),
        text="the winner is the highest score after rounds, ties shared (the module is "
        "part of a longer game); not yet a knob",
    ),
    Assumption(
        name="taken_and_first_player",
        knob="",
        tag="reading",
        rule=cite_hirelings("5.3"),
        text="a taken hireling arrives unprotected; seat 1 holds the first-player card at the "
        "start and keeps it until a Veteran holder takes it; not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="root.hirelings",
    title="Root hirelings: influence spending over a game",
    rules="Root hirelings rules §1, §2, §4.4, §5, §6 (docs/rules/root.md#hirelings-module)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings("players", "policies", "hirelings"),
        *rulebook(cite_hirelings("5"), "veteran_cost"),
        *rulebook(cite_hirelings("6"), "diplomat_cost"),
    ),
    params_model=HirelingsParams,
    metrics=metrics,
    pack=pack,
    kernel=hirelings_kernel,
    packed_layout=PACKED,
    metric_layout=metric_layout_of,
    game=WholeGame(GAME, deal, example={"players": 3, "rounds": 10, "hireling_points": 1}),
    example={"players": 3, "rounds": 10},
    notes=(
        "players: policies (random, greedy: this module's hand-written spenders, which ignore "
        "hireling_points; rollout, mcts: the generic search agents)",
        "catch_up: the player last in score (lowest seat on ties) holds at least as many "
        "hirelings as anyone else, and at least one",
    ),
)
