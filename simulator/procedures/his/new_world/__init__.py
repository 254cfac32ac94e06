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
import numpy as np

from simulator.agents.game import WholeGame
from simulator.procedures.base import Alternative, Assumption, Procedure, rulebook, settings
from simulator.procedures.his._rules import cite
from simulator.procedures.his.new_world.exact import (
    conquest_outcome,
    exact,
    exploration_outcome,
)
from simulator.procedures.his.new_world.game import GAME
from simulator.procedures.his.new_world.kernel import new_world_kernel
from simulator.procedures.his.new_world.metrics import METRICS, metrics
from simulator.procedures.his.new_world.params import (
    DISCOVERIES,
    PACKED,
    POWERS,
    NewWorldParams,
    pack,
)
from simulator.procedures.his.new_world.state import new_state, start_game


def deal(row: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """The position before the first decision of a game of the packed ``row``."""
    template = new_state(row)
    s = np.zeros_like(template)
    start_game(s, template, rng)
    return s


#: The ladder's powers (scenarios/his/new_world_ladder.yaml): every kind of decision comes up.
LADDER = {
    "turns": 9,
    "england": {"explorers": [1, 1, 0, 2], "explore": [2, 3, 4, 5, 6, 7, 8, 9], "colonize": [3, 6]},
    "france": {"explorers": [2, 1, 0], "explore": "every", "colonize": [2, 5]},
    "habsburg": {
        "explorers": [4, 1, 1, 0],
        "explore": "every",
        "colonize": [1, 3, 5],
        "conquistadors": [3, 2, 1, 0, 0],
        "conquer": [2, 3, 4, 5, 6, 7, 8, 9],
    },
    "galleons_turn": 4,
    "discoverers_return": True,
    "objective": "vp",
}

__all__ = [
    "DISCOVERIES",
    "METRICS",
    "PACKED",
    "POWERS",
    "PROCEDURE",
    "NewWorldParams",
    "conquest_outcome",
    "exploration_outcome",
]

ASSUMPTIONS = (
    Assumption(
        name="riches_table",
        knob="riches",
        tag="invented",
        rule=cite("12.3"),
        text="the rules name the riches outcomes but print no 2d6 totals; the default "
        "(2-3 destroyed, 4-6 nothing, 7-8 card, 9-10 galleons card, 11-12 card and depleted) is "
        "illustrative: replace it with your copy's",
        alternatives=(
            Alternative(
                "fewer cards (nothing on 4-7, card on 8)",
                {
                    "riches": [
                        {"low": 2, "high": 3, "outcome": "destroyed"},
                        {"low": 4, "high": 7, "outcome": "nothing"},
                        {"low": 8, "high": 8, "outcome": "card"},
                        {"low": 9, "high": 10, "outcome": "galleons_card"},
                        {"low": 11, "high": 12, "outcome": "card_depleted"},
                    ]
                },
                "invented",
            ),
        ),
    ),
    Assumption(
        name="new_world_winner",
        knob="objective",
        tag="invented",
        rule=cite("19"),
        text="the rules name no New World winner; wins.* and an agent's objective "
        "read 'most New World VP, ties split'; agents maximise their own VP by default",
        alternatives=(
            Alternative("share of the VP", {"objective": "vp_share"}, "invented"),
            Alternative("the most VP", {"objective": "win"}, "invented"),
        ),
    ),
    Assumption(
        name="south_america",
        knob="south_america",
        tag="reading",
        rule=cite("12.2 (1)"),
        text="the explorer's choice on 10+ as a fixed plan: the Amazon, else the Strait, else "
        "North America (by expected VP the Strait never falls below a North American discovery)",
        alternatives=(
            Alternative("the Strait first", {"south_america": "pacific_strait"}),
            Alternative("North America before the Strait", {"south_america": "safe_north_america"}),
        ),
    ),
    Assumption(
        name="discoverers_return",
        knob="discoverers_return",
        tag="reading",
        rule=cite("12.2 (1)"),
        text="an explorer or conquistador that made a discovery stays in the New World (only "
        "'returns' sends one back to the pool)",
        alternatives=(Alternative("back to the pool", {"discoverers_return": True}),),
    ),
    Assumption(
        name="depleted_conquest_vp",
        knob="depleted_conquest_vp",
        tag="rulebook",
        rule=cite("12.3"),
        text="a depleted conquest is removed but keeps the VP it gained when conquered",
        alternatives=(Alternative("its VP lost", {"depleted_conquest_vp": "lost"}),),
    ),
    Assumption(
        name="conquest_destroyed",
        knob="conquest_destroyed",
        tag="invented",
        rule=cite("12.3"),
        text="a gap: 'destroyed' is written for a colony; a conquest rolling it: nothing happens",
        alternatives=(
            Alternative("the conquest removed", {"conquest_destroyed": "removed"}, "invented"),
        ),
        fires=("gap.conquest_rolls_destroyed",),
    ),
    Assumption(
        name="colony_depleted",
        knob="colony_depleted",
        tag="invented",
        rule=cite("12.3"),
        text="a gap: 'depleted' removes a conquest; a colony rolling it draws its card and stays",
        alternatives=(
            Alternative("the colony removed", {"colony_depleted": "card_removed"}, "invented"),
        ),
        fires=("gap.colony_rolls_depleted",),
    ),
    Assumption(
        name="conquest_marker",
        knob="conquest_marker",
        tag="rulebook",
        rule=cite("12.2 (2)"),
        text="England's and France's conquest marker 'counts as a conquistador of rating 0': "
        "removed from the game on 6 or less, and after a success kept in the New World as "
        "discoverers_return keeps any discoverer (a power without it cannot conquer again)",
        alternatives=(
            Alternative("removed on 6 or less only", {"conquest_marker": "returns"}),
            Alternative("never removed", {"conquest_marker": "unlimited"}),
        ),
    ),
    Assumption(
        name="north_america_on_ten",
        knob="",
        tag="reading",
        rule=cite("12.2 (1)"),
        text="a North American discovery taken on 10+ is the highest unclaimed (Mississippi, "
        "Great Lakes, St. Lawrence); no first-exploration penalty on the circumnavigation roll; "
        "not yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="his.new_world",
    title="Here I Stand: the New World race (a whole game)",
    rules="Here I Stand rules §12.1–§12.3 (docs/rules/here-i-stand.md#s12)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings(
            "england",
            "france",
            "habsburg",
            "galleons_turn",
            "galleons_powers",
            "policies",
            "already_claimed",
            "already_explored",
        ),
        *rulebook(cite("12.1"), "turns", "first_exploration_penalty"),
    ),
    params_model=NewWorldParams,
    metrics=metrics,
    pack=pack,
    kernel=new_world_kernel,
    exact=exact,
    game=WholeGame(GAME, deal, example=LADDER),
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
        "the explorer's choice on 10+ among the rulebook's three options: a fixed plan "
        "(south_america, default amazon = Amazon, else the Strait, else North America; "
        "safe_north_america takes a North American discovery before the Strait) unless policies "
        "names agents: random, greedy on the objective (exact one step ahead), rollout or mcts "
        "(generic search over the game interface: state, game, search); greedy on vp takes the "
        "Strait from explorer rating 2 (1 + 3 x 15/36 > 2 VP)",
        "a North American discovery taken on 10+ is the highest unclaimed (Mississippi, Great "
        "Lakes, St. Lawrence); buying explore/colonize/conquer stays a fixed plan: the rulebook "
        "prices them in CP, but the CP's other uses are outside this procedure",
        "validation refuses a claimed circumnavigation without the Pacific Strait",
        "a bought exploration/conquest with an empty pool is not carried out (counted: skipped)",
    ),
)
