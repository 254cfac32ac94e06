"""Here I Stand: the race for the New World, a whole game per trial (Here I Stand rules §12).

A package split by concern: ``params`` (the plans, pools, knobs and rules' constants; packing),
``metrics`` (names and slots), ``outcomes`` (the compiled step-down tables), ``kernel`` (the
game, whose docstring tells the turn and the order random words are drawn in) and ``exact``
(one-turn exact values and the plain-Python step-down rules), ``choice`` (the explorer's choice on
10+ as an agent's decision: the open options, random and greedy), ``state`` (the race as one state
value paused at decisions), ``game`` (``GAME``, the interface simulator.agents takes) and
``search`` (the kernel used when a search agent, rollout or mcts, chooses).
"""

from __future__ import annotations

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels (agents' edits count too)

# ruff: noqa: E402
from simulator.procedures.base import Procedure
from simulator.procedures.his.new_world.exact import (
    conquest_outcome,
    exact,
    exploration_outcome,
)
from simulator.procedures.his.new_world.kernel import new_world_kernel
from simulator.procedures.his.new_world.metrics import metrics
from simulator.procedures.his.new_world.params import (
    DISCOVERIES,
    POWERS,
    NewWorldParams,
    pack,
)

__all__ = [
    "DISCOVERIES",
    "POWERS",
    "PROCEDURE",
    "NewWorldParams",
    "conquest_outcome",
    "exploration_outcome",
]

PROCEDURE = Procedure(
    name="his.new_world",
    title="Here I Stand: the New World race (a whole game)",
    rules="Here I Stand rules §12.1–§12.3 (docs/rules/here-i-stand.md#s12)",
    params_model=NewWorldParams,
    metrics=metrics,
    pack=pack,
    kernel=new_world_kernel,
    exact=exact,
    example={
        "england": {"explorers": [1, 0], "explore": "every"},
        "france": {"explorers": [2, 1], "explore": "every", "colonize": [2]},
        "habsburg": {
            "explorers": [4, 1],
            "explore": "every",
            "conquistadors": [2, 1],
            "conquer": "every",
        },
    },
    notes=(
        "assumption: the riches table rows are scenario data (riches)",
        "the explorer's choice on 10+ among the rulebook's three options: a fixed plan "
        "(south_america, default amazon = Amazon, else the Strait, else North America; "
        "safe_north_america takes a North American discovery before the Strait) unless "
        "policies names agents: random, greedy on the objective (exact one step ahead), "
        "rollout or mcts (generic search over the game interface: state, game, search); "
        "greedy on vp takes the Strait from explorer rating 2 (1 + 3 x 15/36 > 2 VP)",
        "assumption: objective (default vp, own New World VP; vp_share; win = most New World VP, "
        "ties split); the rulebook names no New World winner; wins.seat1-3 (England, France, "
        "Habsburg: the seats of policies and tournaments) and draws report the win",
        "a North American discovery taken on 10+ is the highest unclaimed (Mississippi, Great "
        "Lakes, St. Lawrence); buying explore/colonize/conquer stays a fixed plan: the rulebook "
        "prices them in CP, but the CP's other uses are outside this procedure",
        "a depleted conquest is removed (Here I Stand rules §12.3); its VP: knob "
        "depleted_conquest_vp, "
        "default kept (gained when conquered, as the rulebook reads), lost as the alternative",
        "validation refuses a claimed circumnavigation without the Pacific Strait",
        "assumption: a discoverer stays in the New World (discoverers_return)",
        "gap, counted: a conquest rolling destroyed (conquest_destroyed, default nothing)",
        "gap, counted: a colony rolling card_depleted (colony_depleted, default +1 card, stays)",
        "a bought exploration/conquest with an empty pool is not carried out (counted: skipped)",
        "no first-exploration penalty on the circumnavigation roll",
    ),
)
