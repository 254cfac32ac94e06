"""The New World race's scenario parameters: the powers' plans and pools, the knobs, the riches
table, the rules' constants (discoveries, VP, CP of each action) and the packing of one variant
into the row the kernel reads."""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.agents.spec import AGENT_CODES, AGENT_ROW, Policies, pack_agents, seat_agents
from simulator.layout import Layout
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

#: One power's piece of the packed row: its action turn masks (explore, colonize, conquer, in
#: that order), the Galleons, its holdings at the start, its pools and their ratings.
POWER = Layout(
    "explore",
    "colonize",
    "conquer",
    "galleons",
    "colonies",
    "conquests",
    "explorers",
    "conquistadors",
    ("explorer_ratings", MAX_POOL),
    ("conquistador_ratings", MAX_POOL),
)
P_EXPLORE, P_GALLEONS, P_COLONIES, P_CONQUESTS = (
    POWER.at(n) for n in ("explore", "galleons", "colonies", "conquests")
)
P_EXPLORERS, P_CONQUISTADORS = POWER.at("explorers"), POWER.at("conquistadors")
P_EXPLORER_RATINGS = POWER.at("explorer_ratings")
P_CONQUISTADOR_RATINGS = POWER.at("conquistador_ratings")
POWER_FIELDS = POWER.size
# The kernels read the three action masks as P_EXPLORE + 0, 1, 2.
assert (POWER.at("colonize"), POWER.at("conquer")) == (P_EXPLORE + 1, P_EXPLORE + 2)
#: The packed row: the race's rules, the riches outcome of each 2d6 total 2..12, each power's
#: piece (in POWERS order), each power's agent code (FIXED: the south_america knob), the
#: objective, then each power's packed agent row (simulator.agents.spec.pack_agents; zeros for
#: FIXED).
PACKED = Layout(
    "turns",
    "first_exploration_penalty",
    "south_america",
    "discoverers_return",
    "galleons_turn",
    "conquest_destroyed_removes",
    "colony_depleted_removes",
    "depleted_conquest_loses_vp",
    "conquest_marker",
    "already_claimed",
    "already_explored",
    ("riches", 11),
    *((w, POWER_FIELDS) for w in POWERS),
    ("agent_codes", 3),
    "objective",
    ("agent_rows", 3 * AGENT_ROW),
)
TURNS, PENALTY, SOUTH_AMERICA, DISCOVERERS_RETURN, GALLEONS_TURN = (
    PACKED.at(n)
    for n in (
        "turns",
        "first_exploration_penalty",
        "south_america",
        "discoverers_return",
        "galleons_turn",
    )
)
CONQUEST_DESTROYED_REMOVES = PACKED.at("conquest_destroyed_removes")
COLONY_DEPLETED_REMOVES = PACKED.at("colony_depleted_removes")
DEPLETED_CONQUEST_LOSES_VP = PACKED.at("depleted_conquest_loses_vp")
CONQUEST_MARKER, ALREADY_CLAIMED = PACKED.at("conquest_marker"), PACKED.at("already_claimed")
ALREADY_EXPLORED, RICHES_OF_TOTAL = PACKED.at("already_explored"), PACKED.at("riches")
#: Power w's piece starts at FIRST_POWER + w * POWER_FIELDS.
FIRST_POWER = PACKED.at(POWERS[0])
assert all(PACKED.at(w) == FIRST_POWER + k * POWER_FIELDS for k, w in enumerate(POWERS))
AGENTS, OBJECTIVE, AGENT_ROWS = (PACKED.at(n) for n in ("agent_codes", "objective", "agent_rows"))
ROW = PACKED.size
#: Agent code of a power that follows the fixed south_america plan.
FIXED = -1
#: How England's and France's conquest marker leaves play (``conquest_marker``), packed by index.
CONQUEST_MARKERS = ("conquistador", "returns", "unlimited")
OBJECTIVES = ("vp", "vp_share", "win")


def _power_piece(p: NewWorldParams, w: Power) -> np.ndarray:
    plan: PowerPlan = getattr(p, w)
    conquistadors = list(plan.conquistadors) if isinstance(plan, HabsburgPlan) else []
    return POWER.row(
        explore=_schedule_mask(plan.explore, p.turns),
        colonize=_schedule_mask(plan.colonize, p.turns),
        conquer=_schedule_mask(plan.conquer, p.turns),
        galleons=w in p.galleons_powers,
        colonies=plan.colonies,
        conquests=plan.conquests,
        explorers=len(plan.explorers),
        conquistadors=len(conquistadors),
        explorer_ratings=list(plan.explorers) + [0] * (MAX_POOL - len(plan.explorers)),
        conquistador_ratings=conquistadors + [0] * (MAX_POOL - len(conquistadors)),
    )


def pack(p: NewWorldParams) -> np.ndarray:
    """The PACKED row: the discoveries claimed and the powers explored as bit masks (bit k: the
    k-th of DISCOVERIES, POWERS); the riches piece is each 2d6 total's outcome (index in
    RICHES)."""
    riches = [0] * 11
    for r in p.riches:
        for total in range(r.low, r.high + 1):
            riches[total - 2] = RICHES.index(r.outcome)
    powers: dict[str, Any] = {w: _power_piece(p, w) for w in POWERS}
    agent_rows = np.zeros(3 * AGENT_ROW)
    if p.policies is not None:
        agents = pack_agents(seat_agents(p.policies, len(POWERS))).reshape(-1)
        agent_rows[: agents.size] = agents
    return PACKED.row(
        turns=p.turns,
        first_exploration_penalty=p.first_exploration_penalty,
        south_america=("amazon", "pacific_strait", "safe_north_america").index(p.south_america),
        discoverers_return=p.discoverers_return,
        galleons_turn=p.galleons_turn or 0,
        conquest_destroyed_removes=p.conquest_destroyed == "removed",
        colony_depleted_removes=p.colony_depleted == "card_removed",
        depleted_conquest_loses_vp=p.depleted_conquest_vp == "lost",
        conquest_marker=CONQUEST_MARKERS.index(p.conquest_marker),
        already_claimed=sum(1 << DISCOVERIES.index(d) for d in p.already_claimed),
        already_explored=sum(1 << POWERS.index(w) for w in p.already_explored),
        riches=riches,
        agent_codes=p.power_agents(),
        objective=OBJECTIVES.index(p.objective),
        agent_rows=agent_rows,
        **powers,
    )
