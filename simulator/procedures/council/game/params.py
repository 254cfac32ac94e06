"""Parameters of the council game: Lands, Characters and laws, the packed row, the metrics."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.agents.spec import (
    AGENT_CODES,
    AGENT_ROW,
    Policies,
    one_agent_or_one_per_seat,
    pack_agents,
    seat_agents,
)
from simulator.layout import Layout
from simulator.procedures.base import Metric, Params

# The default data set lives in its own module; tests and scenarios import it from here too.
from simulator.procedures.council.game.defaults import (
    DEFAULT_CHARACTERS,
    DEFAULT_LANDS,
    DEFAULT_LAWS,
)

N_LANDS = 7
N_CHARS = 11
N_SEATS = 11
MAX_PLAYERS = 6
MAX_LAWS = 16
ACTIVE_LAWS = 3
MAX_CARDS = 48
MAX_MOVES = 512
WIN_SCALE = 60  # a win shared by k players (Hand of Order ties) scores 60 / k

WARLORD, TREASURER, BISHOP, PRIVY = 0, 1, 2, 3
HEAD0 = 4
COUNCIL_SEATS = ("warlord", "treasurer", "bishop", "privy_councillor")

TRAITS = (
    "warlike",
    "peaceful",
    "believer",
    "atheist",
    "humane",
    "egoist",
    "bribable",
    "greedy",
    "proud",
    "thrifty",
    "wasteful",
    "cautious",
    "traveller",
    "homebody",
    "collector",
    "cowardly",
    "domineering",
    "sycophant",
    "fanatic",
    "incorruptible",
)
T_WARLIKE, T_PEACEFUL, T_BELIEVER, T_ATHEIST, T_HUMANE, T_EGOIST = 0, 1, 2, 3, 4, 5
T_PROUD, T_THRIFTY, T_WASTEFUL, T_COLLECTOR, T_DOMINEERING, T_INCORRUPTIBLE = 8, 9, 10, 14, 16, 19
T_COWARDLY, T_SYCOPHANT = 15, 17
T_BRIBABLE, T_GREEDY, T_CAUTIOUS, T_TRAVELLER, T_HOMEBODY, T_FANATIC = 6, 7, 11, 12, 13, 18

CATEGORIES = ("none", "military", "religious", "social")
EFFECTS = (
    "none",
    "income_bonus",
    "mercenary_discount",
    "mood_immune",
    "rare_gift",
    "sway_head",
    "sway_council",
    "warlord_tax",
    "ignore_law",
)
E_INCOME_BONUS, E_MERC_DISCOUNT, E_MOOD_IMMUNE = 1, 2, 3
E_RARE_GIFT, E_SWAY_HEAD, E_SWAY_COUNCIL, E_WARLORD_TAX, E_IGNORE_LAW = 4, 5, 6, 7, 8
Effect = Literal[
    "none",
    "income_bonus",
    "mercenary_discount",
    "mood_immune",
    "rare_gift",
    "sway_head",
    "sway_council",
    "warlord_tax",
    "ignore_law",
]
MERC_KINDS = ("messenger", "spy", "thief", "guard", "assassin")
MESSENGER, SPY, THIEF, GUARD, ASSASSIN = 0, 1, 2, 3, 4
VICTORIES = ("election", "coup", "will_of_people", "hand_of_order", "draw")
V_ELECTION, V_COUP, V_WILL, V_HAND, V_DRAW = 0, 1, 2, 3, 4
GAPS = (
    ("tip_tie", "neutral Character: several players discarded the same most tokens to tip it"),
    ("no_appointer", "a vacancy or Representative tie with no Privy Councillor to choose: by lot"),
    ("simultaneous_victory", "two victory conditions held at the same check: first in order wins"),
    ("hand_of_order_tie", "Hand of Order still tied after every tie-break: the win is shared"),
    ("removal_four_votes", "a vote to remove a Councillor got exactly 4 of 7 (the 4-vs-5 point)"),
    (
        "stalled_draw",
        "drawn at the turn limit with no token on any Land: no income can return (the rulebook "
        "has no"
        " base income and no rule ending a stalled game)",
    ),
    (
        "advice_tie",
        "a Head's advice was left ungiven: the players next in line to advise through it tied on "
        "Head and Land + Head tokens (the rulebook: it does not advise unless they agree)",
    ),
    (
        "hand_cap",
        "a player who could have bought a Mercenary could not: its hand was at the invented "
        "max_hand (the rulebook has no hand limit)",
    ),
    (
        "deck_cap",
        "a player who could have bought a Mercenary could not: every card of the invented "
        "mercenary_deck was in play (the rulebook does not size the deck)",
    ),
    (
        "buy_cap",
        "a player's spending stopped at the invented max_buys purchases a phase (the rulebook "
        "has no such limit)",
    ),
)
N_GAPS = len(GAPS)
#: Counters of the cases where a reading or an invented value decides (after the gaps).
CASES = (
    (
        "empty_head_chances",
        "a Head with no token on it came to act while a player had tokens on its Land: the case "
        "where tip_empty_heads decides (Council rules §3, acting order)",
    ),
    (
        "cut_by_turn_limit",
        "drawn at the invented turn limit with tokens still on a Land (not stalled): a game the "
        "limit cut short",
    ),
    (
        "phase_reveals",
        "Mercenary cards revealed at the start of a phase other than the turn's first: the case "
        "where reveal_windows decides",
    ),
    (
        "advice_without_priority",
        "advice given through a Head by a player without priority on it: the case where "
        "advice_by decides",
    ),
    (
        "spending_ties",
        "spending phases in which two or more players had the same coins: the case where "
        "spending_ties decides (Council rules §2, 'the one with the least money first')",
    ),
    (
        "vacant_heads",
        "Head seats vacant at the start of an Action phase with a Character in the pool: the "
        "case where head_appointment decides",
    ),
    (
        "cowardly_left",
        "Cowardly Characters that left their seat for an uprising: the case where "
        "cowardly_leaves decides",
    ),
)
N_CASES = len(CASES)
N_METRICS_BASE = 5 + 4 + 2 + 5 + 1 + N_GAPS + N_CASES  # metrics besides the per-seat wins
(
    GAP_TIP,
    GAP_APPOINT,
    GAP_SIMULTANEOUS,
    GAP_HAND_TIE,
    GAP_FOUR_VOTES,
    GAP_STALLED,
    GAP_ADVICE_TIE,
    GAP_HAND_CAP,
    GAP_DECK_CAP,
    GAP_BUY_CAP,
) = range(N_GAPS)
#: The setup placement orders (packed as their index; "fixed" is the order before it was a knob).
SETUP_ORDERS = ("fixed", "rotating", "snake", "random")
SETUP_FIXED, SETUP_ROTATING, SETUP_SNAKE, SETUP_RANDOM = range(4)
#: A cap packed for "no cap" (tip_cap, bribe_cap): above any token count a player can spend.
NO_CAP = 1_000_000


# ---------------------------------------------------------------------------------------------
# Parameters


class Land(Params):
    name: str = Field(min_length=1, max_length=40, description="the Land's name")
    size: int = Field(ge=1, le=16, description="population cells on the card")
    civilians: int = Field(ge=0, le=16, description="civilian population tokens at the start")
    soldiers: int = Field(ge=0, le=16, description="military population tokens at the start")
    power: str = Field(default="", max_length=200, description="the Land's power, as printed")
    effect: Effect = Field(
        default="none",
        description="the power as played: income_bonus (+1 coin to the one player with most Land + "
        "Head tokens, in any conditions; a tie gives it to nobody), mercenary_discount (-1 coin "
        "per Mercenary for the Head's player or a player with 3+ tokens on the Land), "
        "mood_immune (income ignores the mood), rare_gift (the Head's player or a player with 3+ "
        "tokens on the Land may make a gift rare: +1 token for rare_gift_cost coins), sway_head "
        "(the Head's player makes one neutral Head vote as it says in a Land vote), sway_council "
        "(the Head's player advises neutral Councillors without losing tokens), warlord_tax (the "
        "Warlord's player sets this Land's tax at 1, 2 or 3 coins before the tax phase), "
        "ignore_law (the player with most Land + Head tokens names an active law that does not "
        "apply here: its tax change and population change), none",
    )

    @field_validator("soldiers")
    @classmethod
    def _fits(cls, v: int, info: ValidationInfo) -> int:
        civ = info.data.get("civilians")
        size = info.data.get("size")
        if civ is not None and size is not None and civ + v > size:
            raise ValueError(
                f"civilians + soldiers ({civ} + {v}) must be at most size ({size}): "
                "population cannot exceed the Land's cells"
            )
        return v


class Character(Params):
    name: str = Field(min_length=1, max_length=40, description="the Character's name")
    traits: list[str] = Field(default_factory=list, max_length=6, description="trait names")
    seat: str = Field(
        default="pool",
        description="starting seat: warlord, treasurer, bishop, privy_councillor, a Land's name "
        "(its Head) or pool",
    )

    @field_validator("traits")
    @classmethod
    def _known_traits(cls, v: list[str]) -> list[str]:
        for t in v:
            if t not in TRAITS:
                raise ValueError(f"unknown trait {t!r}: use one of {', '.join(TRAITS)}")
            if v.count(t) > 1:
                # A trait is held or not (the kernel keeps a bitmask): twice means nothing more.
                raise ValueError(f"trait {t!r} is given twice: a Character's traits must differ")
        return v


class Law(Params):
    name: str = Field(min_length=1, max_length=60, description="the law's name")
    category: Literal["none", "military", "religious", "social"] = Field(
        default="none", description="which traits vote on it"
    )
    cost: int = Field(default=3, ge=0, le=50, description="coins paid from the Treasury")
    mood: int = Field(default=0, ge=-3, le=3, description="change of the people's mood")
    militarise: int = Field(
        default=0,
        ge=-1,
        le=1,
        description="+1: a civilian becomes a soldier in every Land; -1 back",
    )
    tax_delta: float = Field(default=0.0, ge=-1.5, le=1.5, description="change of the tax per Land")

    @field_validator("tax_delta")
    @classmethod
    def _halves(cls, v: float) -> float:
        if abs(v * 2 - round(v * 2)) > 1e-9:
            raise ValueError("must be a multiple of 0.5 coin")
        return v


def _default_lands() -> list[Land]:
    return [Land(**d) for d in DEFAULT_LANDS]


def _default_characters() -> list[Character]:
    return [Character(**d) for d in DEFAULT_CHARACTERS]


def _default_laws() -> list[Law]:
    return [Law(**d) for d in DEFAULT_LAWS]


class CouncilGameParams(Params):
    players: int = Field(default=4, ge=3, le=MAX_PLAYERS, description="number of players")
    lands: list[Land] = Field(default_factory=_default_lands, description="the seven Lands in play")
    characters: list[Character] = Field(
        default_factory=_default_characters, description="the eleven Characters"
    )
    laws: list[Law] = Field(
        default_factory=_default_laws,
        description="the laws deck",
        min_length=1,
        max_length=MAX_LAWS,
    )
    tax_rate: float = Field(default=1.5, ge=0, le=5, description="tax per Land, total rounded down")
    influence_cost: int = Field(default=3, ge=1, le=20, description="coins per influence token")
    mercenary_cost: int = Field(default=3, ge=1, le=20, description="coins per Mercenary card")
    mercenaries: bool = Field(default=True, description="whether the Mercenary deck is in play")
    mood: bool = Field(default=True, description="whether the people's mood affects income")
    mood_start: int = Field(default=0, ge=-3, le=3, description="the mood track at the start")
    max_turns: int = Field(
        default=40,
        ge=1,
        le=200,
        description="invented: turns before a draw (the rulebook's game ends only on a victory)",
    )
    remove_councillor_votes: int = Field(
        default=5,
        ge=1,
        le=7,
        description="Heads needed to remove a Councillor (Council rules §3 says 4, §6 says 5)",
    )
    council_votes: int = Field(default=3, ge=1, le=5, description="Council votes to pass")
    start_coins: int = Field(
        default=6, ge=0, le=100, description="invented: coins per player at the start"
    )
    start_tokens: int = Field(
        default=3,
        ge=0,
        le=20,
        description="invented: tokens each player places before the first turn (the rulebook's "
        "setup lays out the cards only)",
    )
    setup_order: Literal["fixed", "rotating", "snake", "random"] = Field(
        default="random",
        description="invented: the order of the setup placements, one token a turn: random (one "
        "seat order drawn from the game's stream, every placement round in it), fixed (seat 1 "
        "first every round), rotating (round r starts at seat r), snake (forward, then back)",
    )
    tip_empty_heads: bool = Field(
        default=True,
        description="a Head with no token on it is neutral and may be tipped by discarding "
        "tokens from its Land (Council rules §3: 'with equal influence a Character is idle; a "
        "player may spend that Land's tokens'; the Sapphire Lakes text counts a Character with "
        "no tokens as neutral); false: such a Head never acts",
    )
    tip_cap: int | None = Field(
        default=None,
        ge=1,
        le=20,
        description="most tokens a player discards from a Land to tip its neutral Head; none: "
        "any number it holds there (Council rules §3)",
    )
    bribe_cap: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description="most tokens a bribe is raised by (3 coins each) when revealed; none: any "
        "amount the briber can pay (Council rules, Mercenary cards: 'by any amount')",
    )
    greedy_bribe: Literal["briber_pays", "holder_gains"] = Field(
        default="briber_pays",
        description="Greedy (trait 8: '+1 coin on receiving a bribe, whatever its sum'): the "
        "briber pays the Greedy Character one coin more for a bribe it delivers (briber_pays), or "
        "the player with priority on it takes one coin from the bank (holder_gains)",
    )
    transfer: Literal["other_land", "never"] = Field(
        default="other_land",
        description="Traveller and Homebody (traits 13, 14: 'the house that initiated the "
        "transfer to another Land'): a Character a player appoints to head a Land other than the "
        "one it headed last (other_land); never: the traits do nothing",
    )
    reveal_windows: Literal["phase", "turn"] = Field(
        default="phase",
        description="when face-down Mercenaries may be revealed ('at any moment from the first "
        "phase of the next turn'): at the start of each of the four phases (phase) or only at the "
        "start of a turn (turn)",
    )
    spy_thief_first: bool = Field(
        default=True,
        description="a Spy or Thief revealed to check another card goes first at the start of a "
        "phase, before other cards (Mercenary cards: 'has priority at the start of each phase'); "
        "false: every card in card order",
    )
    advice_by: Literal["influence", "priority"] = Field(
        default="influence",
        description="who advises through a Head: its priority player first, then the other "
        "players by their tokens on it (ties: Land + Head; still tied: that Head does not advise) "
        "(influence, Voting: 'then the other players by their influence'); priority: its priority "
        "player only",
    )
    tokens_per_player: int = Field(default=40, ge=1, le=200, description="influence supply")
    start_treasury: int = Field(default=0, ge=0, le=100, description="coins in the Treasury")
    rare_gift_cost: int = Field(
        default=2,
        ge=0,
        le=20,
        description="coins that make a gift rare (rulebook: 2, Council rules §8)",
    )
    rare_gift_once: Literal["table", "player"] = Field(
        default="table",
        description="the rare gift is played once a turn by the whole table (rulebook: '1/turn') "
        "or "
        "once a turn by each entitled player",
    )
    sycophant_count: Literal["action", "phase"] = Field(
        default="action",
        description="when a Sycophant counts the tokens on the Council: at the start of each "
        "Character's action (rulebook: 'at the start of each Action') or of each Action phase",
    )
    advice: bool = Field(
        default=True,
        description="players advise neutral Councillors through the Heads they have priority on, "
        "each Head once a vote, paying a token from it (rulebook); false: no advice",
    )
    spending_ties: Literal["lot", "seat"] = Field(
        default="lot",
        description="players with the same coins in the spending phase (Council rules §2: 'the "
        "one with the least money first' names no tie-break): in an order drawn by lot each "
        "phase (lot), or the lower seat first (seat)",
    )
    max_hand: int | None = Field(
        default=6,
        ge=1,
        le=MAX_CARDS,
        description="invented: most Mercenary cards a player holds in hand (the rulebook has no "
        "limit; none: only the deck and the coins limit it); counted: gap.hand_cap",
    )
    mercenary_deck: int = Field(
        default=MAX_CARDS,
        ge=1,
        le=MAX_CARDS,
        description="invented: Mercenary cards in the deck (the rulebook does not size it; a "
        "player chooses the kind it buys); counted: gap.deck_cap",
    )
    max_buys: int | None = Field(
        default=40,
        ge=1,
        le=200,
        description="invented: most purchases a player makes in one spending phase (the rulebook "
        "has no limit; none: until it passes or cannot pay); counted: gap.buy_cap",
    )
    start_laws: int = Field(
        default=0,
        ge=0,
        le=ACTIVE_LAWS,
        description="laws in force at the start, the deck's first ones (0: none; while fewer "
        "than three are in force a new law takes an empty slot; 3: every law passed names the "
        "one it replaces, Council rules §3 and the Brown Plains' 'one of the three laws in "
        "force')",
    )
    head_appointment: Literal["action", "phase_start"] = Field(
        default="action",
        description="how vacant Head seats are filled: the Privy Councillor's player appoints "
        "Characters from the pool as the Privy Councillor's action (action, Council rules §5: "
        "its seat's power, played as an action, §3), or automatically at the start of every "
        "Action phase without using its action (phase_start)",
    )
    cowardly_leaves: Literal["uprising", "income"] = Field(
        default="uprising",
        description="when a Cowardly Character leaves its seat (trait 16: 'if an uprising "
        "started anywhere'): the moment the mood falls to -3 (uprising), or at every income "
        "phase while the mood is at -3 (income)",
    )
    policies: Policies = Field(
        default="random",
        description="who plays: one agent for every seat or a list of one per seat "
        "(random, greedy, rollout, mcts)",
    )

    @field_validator("tax_rate")
    @classmethod
    def _tax_halves(cls, v: float) -> float:
        if abs(v * 2 - round(v * 2)) > 1e-9:
            raise ValueError("must be a multiple of 0.5 coin")
        return v

    @field_validator("lands")
    @classmethod
    def _seven_lands(cls, v: list[Land]) -> list[Land]:
        if len(v) != N_LANDS:
            raise ValueError(f"the game has exactly {N_LANDS} Lands, got {len(v)}: add or remove")
        names = [land.name for land in v]
        for i, n in enumerate(names):
            if names.index(n) != i:
                raise ValueError(f"Land {i} ({n!r}) repeats the name of Land {names.index(n)}")
        return v

    @field_validator("characters")
    @classmethod
    def _eleven_characters(cls, v: list[Character], info: ValidationInfo) -> list[Character]:
        if len(v) != N_CHARS:
            raise ValueError(
                f"the game has exactly {N_CHARS} Characters, got {len(v)}: add or remove"
            )
        lands = info.data.get("lands")
        land_names = [land.name for land in lands] if lands else None
        held: dict[str, int] = {}
        for i, c in enumerate(v):
            if [x.name for x in v].index(c.name) != i:
                raise ValueError(f"Character {i} ({c.name!r}) repeats a name")
            if c.seat == "pool":
                continue
            if c.seat not in COUNCIL_SEATS and land_names is not None and c.seat not in land_names:
                raise ValueError(
                    f"Character {i} ({c.name!r}) has seat {c.seat!r}: use one of "
                    f"{', '.join(COUNCIL_SEATS)}, a Land's name or pool"
                )
            if c.seat in held:
                raise ValueError(
                    f"Character {i} ({c.name!r}) and Character {held[c.seat]} both start in "
                    f"seat {c.seat!r}"
                )
            held[c.seat] = i
        return v

    _one_agent_per_seat = field_validator("policies")(one_agent_or_one_per_seat)

    @field_validator("start_laws")
    @classmethod
    def _laws_to_start(cls, v: int, info: ValidationInfo) -> int:
        laws = info.data.get("laws")
        if laws is not None and v > len(laws):
            raise ValueError(
                f"{v} laws in force at the start, but the deck has {len(laws)}: lower start_laws"
            )
        return v


# ---------------------------------------------------------------------------------------------
# Metrics and packing

#: One Land's piece of the packed row (:data:`PACKED` ``lands``, Land by Land).
LAND = Layout("size", "civilians", "soldiers", "effect")
#: One Character's piece: its traits (a bitmask of :data:`TRAITS`) and seat (:func:`seat_index`).
CHARACTER = Layout("traits", "seat")
#: One law's piece: its category, cost, mood change, soldiers added and tax change in half coins.
LAW = Layout("category", "cost", "mood", "militarise", "tax_delta")
#: The rules' values and knobs at the head of :data:`PACKED`, one slot each.
KNOBS = (
    "players",
    "tax_halves",
    "influence_cost",
    "mercenary_cost",
    "mercenaries",
    "mood",
    "mood_start",
    "max_turns",
    "remove_councillor_votes",
    "council_votes",
    "start_coins",
    "start_tokens",
    "tokens_per_player",
    "start_treasury",
    "laws_in_deck",
    "rare_gift_cost",
    "rare_gift_per_player",
    "sycophant_per_phase",
    "advice",
    "setup_order",
    "tip_empty_heads",
    "tip_cap",
    "bribe_cap",
    "greedy_bribe_holder_gains",
    "transfer_other_land",
    "reveal_windows_phase",
    "spy_thief_first",
    "advice_by_influence",
    "spending_ties_lot",
    "max_hand",
    "mercenary_deck",
    "max_buys",
    "start_laws",
    "appoint_by_action",
    "cowardly_at_income",
)
#: The packed parameter row, by name: the rules' values and knobs (numbers and codes, as
#: float64), each seat's agent code, the Lands, Characters and laws (:data:`LAND`,
#: :data:`CHARACTER` and :data:`LAW` pieces, one after another), then each seat's packed agent
#: row (simulator.agents.spec.pack_agents). Kernels read it as ``row[params.MAX_TURNS]`` (the
#: names below would clash with the position's, :mod:`.state`).
PACKED = Layout(
    *KNOBS,
    ("policies", MAX_PLAYERS),
    ("lands", N_LANDS * LAND.size),
    ("characters", N_CHARS * CHARACTER.size),
    ("laws", MAX_LAWS * LAW.size),
    ("agents", MAX_PLAYERS * AGENT_ROW),
)
(
    PLAYERS,
    TAX_HALVES,
    INFLUENCE_COST,
    MERCENARY_COST,
    MERCENARIES,
    MOOD,
    MOOD_START,
    MAX_TURNS,
    REMOVE_COUNCILLOR_VOTES,
    COUNCIL_VOTES,
    START_COINS,
    START_TOKENS,
    TOKENS_PER_PLAYER,
    START_TREASURY,
    LAWS_IN_DECK,
    RARE_GIFT_COST,
    RARE_GIFT_PER_PLAYER,
    SYCOPHANT_PER_PHASE,
    ADVICE,
    SETUP_ORDER,
    TIP_EMPTY_HEADS,
    TIP_CAP,
    BRIBE_CAP,
    GREEDY_BRIBE_HOLDER_GAINS,
    TRANSFER_OTHER_LAND,
    REVEAL_WINDOWS_PHASE,
    SPY_THIEF_FIRST,
    ADVICE_BY_INFLUENCE,
    SPENDING_TIES_LOT,
    MAX_HAND,
    MERCENARY_DECK,
    MAX_BUYS,
    START_LAWS,
    APPOINT_BY_ACTION,
    COWARDLY_AT_INCOME,
) = (PACKED.at(name) for name in KNOBS)
POLICIES, LANDS, CHARACTERS, LAWS, AGENTS = (
    PACKED.at(n) for n in ("policies", "lands", "characters", "laws", "agents")
)
#: Land li's piece starts at ``LANDS + LAND_FIELDS * li`` (so for Characters and laws).
LAND_FIELDS, CHARACTER_FIELDS, LAW_FIELDS = LAND.size, CHARACTER.size, LAW.size
LAND_SIZE, LAND_CIVILIANS, LAND_SOLDIERS, LAND_EFFECT = (
    LAND.at(n) for n in ("size", "civilians", "soldiers", "effect")
)
CHARACTER_TRAITS, CHARACTER_SEAT = CHARACTER.at("traits"), CHARACTER.at("seat")
LAW_CATEGORY, LAW_COST, LAW_MOOD, LAW_MILITARISE, LAW_TAX_DELTA = (
    LAW.at(n) for n in ("category", "cost", "mood", "militarise", "tax_delta")
)
ROW = PACKED.size


def metric_names(players: int) -> list[str]:
    names = [f"wins.seat{k + 1}" for k in range(players)]
    names += [f"victory.{v}" for v in VICTORIES]
    names += ["draws", "length", "lead_changes", "decided_at"]
    names += ["laws_passed", "characters_killed"]
    names += [f"mercenaries_played.{k}" for k in MERC_KINDS]
    names += ["contested_lands"]
    names += [f"gap.{g}" for g, _ in GAPS]
    names += [c for c, _ in CASES]
    return names


#: The metric row a finished game is written to, by name (``kernel.game_values``): a family of
#: metrics (``wins.seat1``, ``victory.coup``, ``gap.tip_tie``...) is one piece named by what comes
#: before its dot, the seats' wins declared at ``MAX_PLAYERS`` (the first ``players`` reported),
#: every other metric of :func:`metric_names` in its order. The trial loop reports slot
#: :func:`metric_slot` ``(k, players)`` as metric k.
METRICS = Layout(
    ("wins", MAX_PLAYERS),
    ("victory", len(VICTORIES)),
    "draws",
    "length",
    "lead_changes",
    "decided_at",
    "laws_passed",
    "characters_killed",
    ("mercenaries_played", len(MERC_KINDS)),
    "contested_lands",
    ("gap", N_GAPS),
    *(c for c, _ in CASES),
)
assert METRICS.size == MAX_PLAYERS + len(metric_names(0))


def metric_slot(k: int, players: int) -> int:
    """The METRICS slot of metric k of :func:`metrics` (a game of ``players`` seats)."""
    return k if k < players else k - players + MAX_PLAYERS


def metrics(p: CouncilGameParams) -> list[Metric]:
    out = [
        Metric(f"wins.seat{k + 1}", "mean", f"share of the win of seat {k + 1}", scale=WIN_SCALE)
        for k in range(p.players)
    ]
    for v in VICTORIES:
        out.append(Metric(f"victory.{v}", "proportion", f"the game ends by {v}"))
    out.append(Metric("draws", "proportion", "games without a winner (the turn limit)"))
    out.append(Metric("length", "distribution", "turns played", max_value=p.max_turns))
    out.append(
        Metric(
            "lead_changes",
            "mean",
            "times the leader changed between turns (leader: most Lands and Characters with "
            "priority; a tie names none)",
        )
    )
    out.append(
        Metric(
            "decided_at",
            "conditional_mean",
            "the turn from which the eventual sole winner led for good (games with one winner)",
        )
    )
    out.append(Metric("laws_passed", "mean", "laws passed per game", headline=False))
    out.append(Metric("characters_killed", "mean", "Characters killed per game", headline=False))
    for k in MERC_KINDS:
        out.append(
            Metric(
                f"mercenaries_played.{k}", "mean", f"{k} cards revealed per game", headline=False
            )
        )
    out.append(Metric("contested_lands", "mean", "contested Land incomes per game", headline=False))
    for g, desc in GAPS:
        out.append(Metric(f"gap.{g}", "mean", desc, headline=False))
    for name, desc in CASES:
        if name == "cut_by_turn_limit":
            out.append(Metric(name, "proportion", desc, headline=False))
        else:
            out.append(Metric(name, "mean", desc, headline=False))
    return out


def seat_index(seat: str, land_names: list[str]) -> int:
    """Seat number of a seat name: 0-3 the Council, 4+li the Head of Land li, -1 the pool."""
    if seat == "pool":
        return -1
    if seat in COUNCIL_SEATS:
        return COUNCIL_SEATS.index(seat)
    return HEAD0 + land_names.index(seat)


def pack(p: CouncilGameParams) -> np.ndarray:
    """The packed row of ``p`` (:data:`PACKED`), written by name."""
    agents = seat_agents(p.policies, p.players)
    policies = [AGENT_CODES[a.agent] for a in agents]
    names = [land.name for land in p.lands]
    lands = np.zeros((N_LANDS, LAND.size))
    for i, land in enumerate(p.lands):
        lands[i] = LAND.row(
            size=land.size,
            civilians=land.civilians,
            soldiers=land.soldiers,
            effect=EFFECTS.index(land.effect),
        )
    characters = np.zeros((N_CHARS, CHARACTER.size))
    for i, c in enumerate(p.characters):
        characters[i] = CHARACTER.row(
            traits=sum(1 << TRAITS.index(t) for t in set(c.traits)),
            seat=seat_index(c.seat, names),
        )
    laws = np.zeros((MAX_LAWS, LAW.size))
    for i, law in enumerate(p.laws):
        laws[i] = LAW.row(
            category=CATEGORIES.index(law.category),
            cost=law.cost,
            mood=law.mood,
            militarise=law.militarise,
            tax_delta=round(law.tax_delta * 2),
        )
    return PACKED.row(
        players=p.players,
        tax_halves=round(p.tax_rate * 2),
        influence_cost=p.influence_cost,
        mercenary_cost=p.mercenary_cost,
        mercenaries=1 if p.mercenaries else 0,
        mood=1 if p.mood else 0,
        mood_start=p.mood_start,
        max_turns=p.max_turns,
        remove_councillor_votes=p.remove_councillor_votes,
        council_votes=p.council_votes,
        start_coins=p.start_coins,
        start_tokens=p.start_tokens,
        tokens_per_player=p.tokens_per_player,
        start_treasury=p.start_treasury,
        laws_in_deck=len(p.laws),
        rare_gift_cost=p.rare_gift_cost,
        rare_gift_per_player=1 if p.rare_gift_once == "player" else 0,
        sycophant_per_phase=1 if p.sycophant_count == "phase" else 0,
        advice=1 if p.advice else 0,
        setup_order=SETUP_ORDERS.index(p.setup_order),
        tip_empty_heads=1 if p.tip_empty_heads else 0,
        tip_cap=NO_CAP if p.tip_cap is None else p.tip_cap,
        bribe_cap=NO_CAP if p.bribe_cap is None else p.bribe_cap,
        greedy_bribe_holder_gains=1 if p.greedy_bribe == "holder_gains" else 0,
        transfer_other_land=1 if p.transfer == "other_land" else 0,
        reveal_windows_phase=1 if p.reveal_windows == "phase" else 0,
        spy_thief_first=1 if p.spy_thief_first else 0,
        advice_by_influence=1 if p.advice_by == "influence" else 0,
        spending_ties_lot=1 if p.spending_ties == "lot" else 0,
        max_hand=NO_CAP if p.max_hand is None else p.max_hand,
        mercenary_deck=p.mercenary_deck,
        max_buys=NO_CAP if p.max_buys is None else p.max_buys,
        start_laws=p.start_laws,
        appoint_by_action=1 if p.head_appointment == "action" else 0,
        cowardly_at_income=1 if p.cowardly_leaves == "income" else 0,
        policies=policies + [0] * (MAX_PLAYERS - len(policies)),
        lands=lands.reshape(-1),
        characters=characters.reshape(-1),
        laws=laws.reshape(-1),
        agents=_agent_rows(pack_agents(agents)),
    )


def _agent_rows(packed: np.ndarray) -> np.ndarray:
    """The seats' packed agent rows, zeros after the last seat (``agents`` piece)."""
    out = np.zeros(MAX_PLAYERS * AGENT_ROW)
    out[: packed.size] = packed.reshape(-1)
    return out
