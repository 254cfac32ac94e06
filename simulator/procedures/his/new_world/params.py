"""The New World race's scenario parameters: the powers' plans and pools, the knobs, the riches
table, the rules' constants (discoveries, VP, CP of each action) and the packing of one variant
into the row the kernel reads."""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.agents.spec import AGENT_CODES, AGENT_ROW, Policies, pack_agents, seat_agents
from simulator.procedures.base import Params
from simulator.procedures.his._tables import check_table
from simulator.procedures.his._validation import fail

MAX_TURNS = 20
MAX_POOL = 12
MAX_RATING = 6

Power = Literal["england", "france", "habsburg"]
POWERS: tuple[Power, ...] = get_args(Power)
Discovery = Literal[
    "st_lawrence",
    "great_lakes",
    "mississippi",
    "amazon",
    "pacific_strait",
    "circumnavigation",
    "maya",
    "aztecs",
    "inca",
]
DISCOVERIES: tuple[Discovery, ...] = get_args(Discovery)
ST_LAWRENCE, GREAT_LAKES, MISSISSIPPI, AMAZON, STRAIT, CIRCUMNAVIGATION, MAYA, AZTECS, INCA = range(
    9
)
VP_OF = (1, 1, 1, 2, 1, 3, 1, 2, 2)
Riches = Literal["nothing", "destroyed", "card", "card_depleted", "galleons_card"]
RICHES: tuple[Riches, ...] = ("nothing", "destroyed", "card", "card_depleted", "galleons_card")
NOTHING, DESTROYED, CARD, CARD_DEPLETED, GALLEONS_CARD = range(5)

Schedule = list[int] | Literal["every"]


def _schedule_mask(s: Schedule, turns: int) -> int:
    turns_on = range(1, turns + 1) if s == "every" else s
    mask = 0
    for t in turns_on:
        mask |= 1 << (t - 1)
    return mask


class PowerPlan(Params):
    explorers: list[int] = Field(
        default=[],
        max_length=MAX_POOL,
        description="ratings of the power's explorers, drawn at random without replacement",
    )
    explore: Schedule = Field(
        default=[], description="turns on which the power explores (2 CP), or every"
    )
    colonize: Schedule = Field(
        default=[], description="turns on which the power places a colony, or every"
    )
    conquer: Schedule = Field(
        default=[], description="turns on which the power conquers (4 CP), or every"
    )
    colonies: int = Field(default=0, ge=0, le=20, description="colonies on the map at the start")
    conquests: int = Field(default=0, ge=0, le=3, description="conquests held at the start")

    @field_validator("explorers")
    @classmethod
    def _ratings(cls, pool: list[int]) -> list[int]:
        for i, r in enumerate(pool):
            if not 0 <= r <= MAX_RATING:
                raise ValueError(
                    f"entry {i + 1}: a rating must be from 0 to {MAX_RATING} (got {r})"
                )
        return pool

    @field_validator("explore", "colonize", "conquer")
    @classmethod
    def _turns_exist(cls, s: Schedule, info: ValidationInfo) -> Schedule:
        if s == "every":
            return s
        for i, t in enumerate(s):
            if not 1 <= t <= MAX_TURNS:
                raise ValueError(f"entry {i + 1}: turn {t} is not a turn (1 to {MAX_TURNS})")
        if len(set(s)) != len(s):
            raise ValueError("each action is bought at most once a turn: list each turn once")
        if info.field_name == "explore" and s and not info.data.get("explorers"):
            raise ValueError(
                "explore is bought but the explorers pool is empty: list the explorers' ratings"
            )
        return s


class HabsburgPlan(PowerPlan):
    conquistadors: list[int] = Field(
        default=[],
        max_length=MAX_POOL,
        validate_default=True,
        description="ratings of the Habsburg conquistadors, drawn at random without replacement",
    )

    @field_validator("conquistadors")
    @classmethod
    def _conquistador_ratings(cls, pool: list[int], info: ValidationInfo) -> list[int]:
        for i, r in enumerate(pool):
            if not 0 <= r <= MAX_RATING:
                raise ValueError(
                    f"entry {i + 1}: a rating must be from 0 to {MAX_RATING} (got {r})"
                )
        conquer = info.data.get("conquer", [])
        if conquer and not pool:
            raise ValueError(
                "conquer is bought but the conquistadors pool is empty: list their ratings"
            )
        return pool


class RichesRow(Params):
    low: int = Field(ge=2, le=12, description="lowest 2d6 total of the row")
    high: int = Field(ge=2, le=12, description="highest 2d6 total of the row")
    outcome: Riches = Field(description="what a colony or conquest rolling this gets")

    @field_validator("high")
    @classmethod
    def _ordered(cls, high: int, info: ValidationInfo) -> int:
        low = info.data.get("low", high)
        if high < low:
            raise ValueError(f"must be at least low ({low})")
        return high


#: Assumption: the rulebook names the outcomes of the riches table, not the totals.
DEFAULT_RICHES = [
    RichesRow(low=2, high=3, outcome="destroyed"),
    RichesRow(low=4, high=6, outcome="nothing"),
    RichesRow(low=7, high=8, outcome="card"),
    RichesRow(low=9, high=10, outcome="galleons_card"),
    RichesRow(low=11, high=12, outcome="card_depleted"),
]


class NewWorldParams(Params):
    turns: int = Field(default=9, ge=1, le=MAX_TURNS, description="turns played")
    england: PowerPlan = Field(default_factory=PowerPlan, description="England's plan and pool")
    france: PowerPlan = Field(default_factory=PowerPlan, description="France's plan and pool")
    habsburg: HabsburgPlan = Field(
        default_factory=HabsburgPlan, description="the Habsburg plan and pools"
    )
    first_exploration_penalty: int = Field(
        default=1, ge=0, le=3, description="subtracted from a power's first exploration roll"
    )
    south_america: Literal["amazon", "pacific_strait", "safe_north_america"] = Field(
        default="amazon",
        description="the explorer's choice on 10+ (rulebook: the Amazon, the Strait and a "
        "circumnavigation, or a North American discovery): amazon = Amazon, else Strait, else "
        "North America (the most expected VP: the Strait's 1 VP + 3 x P(circumnavigation) "
        "never falls below a North American 1 VP); pacific_strait = Strait first; "
        "safe_north_america = Amazon, else a North American discovery, else the Strait",
    )
    depleted_conquest_vp: Literal["kept", "lost"] = Field(
        default="kept",
        description="VP of a conquest removed as depleted: kept (the rulebook: the VP were gained "
        "when conquered, depletion removes the conquest) or lost; a conquest held at the start "
        "has no VP counted here",
    )
    discoverers_return: bool = Field(
        default=False,
        description="assumption: false keeps an explorer/conquistador that made a discovery in "
        "the New World (out of the pool); true sends it back to the pool",
    )
    conquest_marker: Literal["conquistador", "returns", "unlimited"] = Field(
        default="conquistador",
        description="England's and France's conquest marker, 'a conquistador of rating 0' (Here "
        "I Stand rules §12.2 (2)): conquistador (the rulebook: removed from the game on 6 or "
        "less, and after a success kept in the New World as discoverers_return says; a power "
        "without its marker cannot conquer), returns (removed on 6 or less only), unlimited "
        "(never removed)",
    )
    riches: list[RichesRow] = Field(
        default=DEFAULT_RICHES,
        min_length=1,
        max_length=11,
        description="2d6 total ranges of the New World riches table (INVENTED: the rulebook "
        "names the outcomes, not the totals)",
    )
    galleons_turn: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TURNS,
        description="first turn whose card draw has the Galleons marker out (none: never)",
    )
    galleons_powers: list[Power] = Field(
        default=["habsburg"], description="powers whose galleons_card rolls the marker serves"
    )
    conquest_destroyed: Literal["nothing", "removed"] = Field(
        default="nothing", description="gap: a conquest rolling destroyed (counted)"
    )
    colony_depleted: Literal["card", "card_removed"] = Field(
        default="card", description="gap: a colony rolling card_depleted (counted)"
    )
    policies: Policies | None = Field(
        default=None,
        description="who makes the explorer's choice on 10+ (the Amazon, the Strait and a "
        "circumnavigation, or North America): none = every explorer follows south_america (the "
        "fixed plan); one agent for the three powers or a list of three (England, France, "
        "Habsburg): random (uniform over the open options), greedy (the best expected "
        "objective one step ahead, exact over the circumnavigation roll), rollout or mcts (the "
        "generic search agents over the game interface, with their budgets)",
    )
    objective: Literal["vp", "vp_share", "win"] = Field(
        default="vp",
        description="assumption (the rulebook names no New World winner): what an agent maximises "
        "after its choice: vp = its own New World VP (the whole game counts every VP); "
        "vp_share = its share of the three powers' New World VP; win = its share of the most "
        "New World VP (ties split)",
    )
    already_claimed: list[Discovery] = Field(
        default=[], description="discoveries claimed before the first turn (by nobody modelled)"
    )
    already_explored: list[Power] = Field(
        default=[], description="powers whose first exploration is behind them (no penalty)"
    )

    @field_validator("policies")
    @classmethod
    def _one_agent_or_one_per_power(cls, v: Any) -> Any:
        if v is not None:
            seat_agents(v, len(POWERS))  # raises on a list of the wrong length
        return v

    def power_agents(self) -> list[int]:
        """The agent code of each power's choice on 10+ (``FIXED`` when none is named)."""
        if self.policies is None:
            return [FIXED] * len(POWERS)
        return [AGENT_CODES[a.agent] for a in seat_agents(self.policies, len(POWERS))]

    @field_validator("riches")
    @classmethod
    def _riches_cover_2d6(cls, rows: list[RichesRow]) -> list[RichesRow]:
        check_table([(r.low, r.high) for r in rows], range(2, 13), "2d6 total")
        return rows

    @field_validator("england", "france", "habsburg")
    @classmethod
    def _turns_in_game(cls, plan: PowerPlan, info: ValidationInfo) -> PowerPlan:
        turns = info.data.get("turns", MAX_TURNS)
        for action in ("explore", "colonize", "conquer"):
            s = getattr(plan, action)
            late = [t for t in s if t > turns] if s != "every" else []
            if late:
                raise ValueError(f"{action}: turn {late[0]} is after the last turn ({turns})")
        return plan

    @model_validator(mode="after")
    def _unique_lists(self) -> NewWorldParams:
        if len(set(self.already_claimed)) != len(self.already_claimed):
            raise ValueError("already_claimed: list each discovery once")
        if (
            "circumnavigation" in self.already_claimed
            and "pacific_strait" not in self.already_claimed
        ):
            fail(
                "NewWorldParams",
                ("already_claimed", self.already_claimed.index("circumnavigation")),
                "circumnavigation is claimed but the Pacific Strait is not: a circumnavigation is "
                "tried only by the explorer who reached the Strait (Here I Stand rules §12.2); "
                "add pacific_strait",
                "circumnavigation",
            )
        return self


#: CP of each action (Here I Stand rules §12.1): explore, colonize (England, France, Habsburg),
#: conquer.
EXPLORE_CP = 2
COLONY_CP = (3, 3, 2)
CONQUER_CP = 4

HEAD = 20
POWER_FIELDS = 8 + 2 * MAX_POOL
#: After the powers: each power's agent code (FIXED: the south_america knob), the objective, then
#: each power's packed agent row (simulator.agents.spec.pack_agents; zeros for FIXED).
AGENTS = HEAD + 3 * POWER_FIELDS
AGENT_ROWS = AGENTS + 4
ROW = AGENT_ROWS + 3 * AGENT_ROW
#: Agent code of a power that follows the fixed south_america plan.
FIXED = -1
#: How England's and France's conquest marker leaves play (``conquest_marker``), packed by index.
CONQUEST_MARKERS = ("conquistador", "returns", "unlimited")
OBJECTIVES = ("vp", "vp_share", "win")


def pack(p: NewWorldParams) -> np.ndarray:
    """Head: turns, penalty, strait first, discoverers return, galleons turn (0 never), conquest
    destroyed removes, colony depleted removes, claimed mask, explored mask, outcome of each 2d6
    total 2..12. Then per power: explore/colonize/conquer turn masks, galleons, colonies,
    conquests, pool sizes, explorer ratings, conquistador ratings. Then the agents and the
    objective."""
    row = np.zeros(ROW, dtype=np.float64)
    row[0] = p.turns
    row[1] = p.first_exploration_penalty
    row[2] = ("amazon", "pacific_strait", "safe_north_america").index(p.south_america)
    row[3] = p.discoverers_return
    row[4] = p.galleons_turn or 0
    row[5] = p.conquest_destroyed == "removed"
    row[6] = (
        (p.colony_depleted == "card_removed")
        + 2 * (p.depleted_conquest_vp == "lost")
        + 4 * CONQUEST_MARKERS.index(p.conquest_marker)
    )
    row[7] = sum(1 << DISCOVERIES.index(d) for d in p.already_claimed)
    row[8] = sum(1 << POWERS.index(w) for w in p.already_explored)
    for r in p.riches:
        for total in range(r.low, r.high + 1):
            row[9 + total - 2] = RICHES.index(r.outcome)
    for k, w in enumerate(POWERS):
        plan: PowerPlan = getattr(p, w)
        b = HEAD + k * POWER_FIELDS
        row[b] = _schedule_mask(plan.explore, p.turns)
        row[b + 1] = _schedule_mask(plan.colonize, p.turns)
        row[b + 2] = _schedule_mask(plan.conquer, p.turns)
        row[b + 3] = w in p.galleons_powers
        row[b + 4] = plan.colonies
        row[b + 5] = plan.conquests
        row[b + 6] = len(plan.explorers)
        row[b + 8 : b + 8 + len(plan.explorers)] = plan.explorers
        if isinstance(plan, HabsburgPlan):
            row[b + 7] = len(plan.conquistadors)
            row[b + 8 + MAX_POOL : b + 8 + MAX_POOL + len(plan.conquistadors)] = plan.conquistadors
    row[AGENTS : AGENTS + 3] = p.power_agents()
    row[AGENTS + 3] = OBJECTIVES.index(p.objective)
    if p.policies is not None:
        agents = pack_agents(seat_agents(p.policies, len(POWERS)))
        row[AGENT_ROWS : AGENT_ROWS + agents.size] = agents.reshape(-1)
    return row
