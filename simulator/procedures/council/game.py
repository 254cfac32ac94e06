"""The council game (RULES.md §3): the whole political game of the Russian rules, played out.

Seven Lands and eleven Characters; players place influence tokens, take income and pay tax by
priority on Lands, act through the Characters they have priority on (Council first, then Heads, in
the seed's acting order), vote laws and removals, send hidden mercenaries, and win by one of four
victory conditions checked as soon as one holds. A game that reaches ``max_turns`` is a draw.

Every decision is a choice among a list of legal moves made by the seat's policy: ``random`` picks
uniformly, ``greedy`` picks the move that most increases its own priority count (Lands plus
Characters it has priority on), ties by lot. Each game reads its own stream
(``trial_state``/``next_word``); a word is read only when a choice has two or more options, so every
variant of a scenario plays the same game until a rule that differs changes a choice.

Interpretations are listed in README.md ("The council game"); the gaps the seed leaves are
counted as ``gap.*``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.accumulate import BLOCK, accumulate_block, new_stats
from simulator.jit import inline, kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import low32, next_word, trial_state

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
T_COWARDLY = 15

CATEGORIES = ("none", "military", "religious", "social")
EFFECTS = ("none", "income_bonus", "mercenary_discount", "mood_immune")
E_INCOME_BONUS, E_MERC_DISCOUNT, E_MOOD_IMMUNE = 1, 2, 3
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
)
N_GAPS = len(GAPS)
N_METRICS_BASE = 5 + 3 + 5 + 1 + N_GAPS  # metrics besides the per-seat wins
GAP_TIP, GAP_APPOINT, GAP_SIMULTANEOUS, GAP_HAND_TIE, GAP_FOUR_VOTES = range(N_GAPS)


# ---------------------------------------------------------------------------------------------
# Parameters


class Land(Params):
    name: str = Field(min_length=1, max_length=40, description="the Land's name")
    size: int = Field(ge=1, le=16, description="population cells on the card")
    civilians: int = Field(ge=0, le=16, description="civilian population tokens at the start")
    soldiers: int = Field(ge=0, le=16, description="military population tokens at the start")
    power: str = Field(default="", max_length=200, description="the Land's power, as printed")
    effect: Literal["none", "income_bonus", "mercenary_discount", "mood_immune"] = Field(
        default="none",
        description="the power as played: income_bonus (+1 coin to the Land's priority holder in "
        "any conditions), mercenary_discount (-1 coin per Mercenary for the Head's player or a "
        "player with 3+ tokens on the Land), mood_immune (income ignores the mood), none",
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


# The default data set (scenarios/council/game.yaml repeats it with each invented value marked).
# Names and powers are the seed's; sizes, populations, seats and traits are invented except where
# the seed's examples fix them (Valley of Arrows: 8 cells, 7 occupied; Gustav is Warlike; Matej
# heads the Golden Coast, Gunter the Brown Plains, Irena the Brothers).
DEFAULT_LANDS: list[dict] = [
    {
        "name": "Golden Coast",
        "size": 7,
        "civilians": 4,
        "soldiers": 2,
        "power": "rare gift for 2 coins",
    },
    {
        "name": "Valley of Arrows",
        "size": 8,
        "civilians": 3,
        "soldiers": 4,
        "power": "the Warlord sets the tax",
    },
    {"name": "Brown Plains", "size": 6, "civilians": 4, "soldiers": 1, "power": "ignore one law"},
    {
        "name": "Black Harbour",
        "size": 6,
        "civilians": 2,
        "soldiers": 2,
        "power": "+1 income",
        "effect": "income_bonus",
    },
    {
        "name": "Sapphire Lakes",
        "size": 5,
        "civilians": 3,
        "soldiers": 1,
        "power": "sway a neutral Head",
    },
    {
        "name": "Zalesye",
        "size": 6,
        "civilians": 2,
        "soldiers": 3,
        "power": "Mercenaries cost 1 less",
        "effect": "mercenary_discount",
    },
    {
        "name": "Brothers",
        "size": 5,
        "civilians": 2,
        "soldiers": 2,
        "power": "sway the Council without losing tokens",
    },
]
DEFAULT_CHARACTERS: list[dict] = [
    {"name": "Edmar the Dark", "traits": ["warlike", "proud"], "seat": "warlord"},
    {"name": "Eliza of the Evening", "traits": ["egoist", "greedy"], "seat": "treasurer"},
    {"name": "Mark the Broad-Shouldered", "traits": ["believer"], "seat": "bishop"},
    {"name": "Gustav the Wise", "traits": ["warlike", "humane"], "seat": "privy_councillor"},
    {"name": "Matej the Verbose", "traits": ["thrifty", "collector"], "seat": "Golden Coast"},
    {"name": "Thomas the Firm", "traits": ["warlike", "domineering"], "seat": "Valley of Arrows"},
    {"name": "Gunter the Fisherman", "traits": ["peaceful", "humane"], "seat": "Brown Plains"},
    {"name": "Arthur the Handsome", "traits": ["wasteful", "bribable"], "seat": "Black Harbour"},
    {"name": "Josette the Fiery", "traits": ["atheist", "proud"], "seat": "Sapphire Lakes"},
    {"name": "Vera the Silent", "traits": ["incorruptible", "peaceful"], "seat": "Zalesye"},
    {"name": "Irena the Tall", "traits": ["believer", "egoist"], "seat": "Brothers"},
]
DEFAULT_LAWS: list[dict] = [
    {
        "name": "Military mobilisation",
        "category": "military",
        "cost": 4,
        "mood": -1,
        "militarise": 1,
    },
    {"name": "Border levy", "category": "military", "cost": 3, "mood": -1, "tax_delta": 0.5},
    {"name": "Temple tithe", "category": "religious", "cost": 2, "mood": -1, "tax_delta": 0.5},
    {"name": "Freedom of worship", "category": "religious", "cost": 3, "mood": 1},
    {"name": "Poor relief", "category": "social", "cost": 5, "mood": 2},
    {"name": "Workhouses", "category": "social", "cost": 2, "mood": -1, "tax_delta": -0.5},
    {"name": "Demobilisation", "category": "military", "cost": 3, "mood": 1, "militarise": -1},
    {"name": "Grain tariff", "category": "none", "cost": 2, "mood": -1, "tax_delta": 0.5},
]


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
    max_turns: int = Field(default=40, ge=1, le=200, description="turns before a draw")
    remove_councillor_votes: int = Field(
        default=5, ge=1, le=7, description="Heads needed to remove a Councillor (seed: 4 or 5)"
    )
    council_votes: int = Field(default=3, ge=1, le=5, description="Council votes to pass")
    start_coins: int = Field(default=6, ge=0, le=100, description="coins per player at the start")
    start_tokens: int = Field(
        default=3, ge=0, le=20, description="tokens each player places before the first turn"
    )
    tokens_per_player: int = Field(default=40, ge=1, le=200, description="influence supply")
    start_treasury: int = Field(default=0, ge=0, le=100, description="coins in the Treasury")
    policies: list[Literal["random", "greedy"]] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS,
        description="policy per seat (missing seats play random)",
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

    @model_validator(mode="after")
    def _policies_fit(self) -> CouncilGameParams:
        if len(self.policies) > self.players:
            raise ValueError(
                f"policies: {len(self.policies)} given for {self.players} players: at most one "
                "per seat"
            )
        return self


# ---------------------------------------------------------------------------------------------
# Metrics and packing

# Header of the packed row.
(
    H_PLAYERS,
    H_TAX_HALF,
    H_INFLUENCE_COST,
    H_MERC_COST,
    H_MERCS,
    H_MOOD,
    H_MOOD_START,
    H_MAX_TURNS,
    H_REMOVE_VOTES,
    H_COUNCIL_VOTES,
    H_START_COINS,
    H_START_TOKENS,
    H_TOKENS,
    H_TREASURY,
    H_N_LAWS,
) = range(15)
H_POLICY = 16
H_LANDS = H_POLICY + MAX_PLAYERS  # size, civilians, soldiers, effect per Land
H_CHARS = H_LANDS + 4 * N_LANDS  # traits bitmask, seat per Character
H_LAWS = H_CHARS + 2 * N_CHARS  # category, cost, mood, militarise, tax delta in halves
ROW = H_LAWS + 5 * MAX_LAWS


def metric_names(players: int) -> list[str]:
    names = [f"wins.seat{k + 1}" for k in range(players)]
    names += [f"victory.{v}" for v in VICTORIES]
    names += ["turns", "laws_passed", "characters_killed"]
    names += [f"mercenaries_played.{k}" for k in MERC_KINDS]
    names += ["contested_lands"]
    names += [f"gap.{g}" for g, _ in GAPS]
    return names


def metrics(p: CouncilGameParams) -> list[Metric]:
    out = [
        Metric(f"wins.seat{k + 1}", "mean", f"share of the win of seat {k + 1}", scale=WIN_SCALE)
        for k in range(p.players)
    ]
    for v in VICTORIES:
        out.append(Metric(f"victory.{v}", "proportion", f"the game ends by {v}"))
    out.append(Metric("turns", "distribution", "turns played", max_value=p.max_turns))
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
    return out


def seat_index(seat: str, land_names: list[str]) -> int:
    """Seat number of a seat name: 0-3 the Council, 4+li the Head of Land li, -1 the pool."""
    if seat == "pool":
        return -1
    if seat in COUNCIL_SEATS:
        return COUNCIL_SEATS.index(seat)
    return HEAD0 + land_names.index(seat)


def pack(p: CouncilGameParams) -> np.ndarray:
    row = np.zeros(ROW, dtype=np.float64)
    row[H_PLAYERS] = p.players
    row[H_TAX_HALF] = round(p.tax_rate * 2)
    row[H_INFLUENCE_COST] = p.influence_cost
    row[H_MERC_COST] = p.mercenary_cost
    row[H_MERCS] = 1 if p.mercenaries else 0
    row[H_MOOD] = 1 if p.mood else 0
    row[H_MOOD_START] = p.mood_start
    row[H_MAX_TURNS] = p.max_turns
    row[H_REMOVE_VOTES] = p.remove_councillor_votes
    row[H_COUNCIL_VOTES] = p.council_votes
    row[H_START_COINS] = p.start_coins
    row[H_START_TOKENS] = p.start_tokens
    row[H_TOKENS] = p.tokens_per_player
    row[H_TREASURY] = p.start_treasury
    row[H_N_LAWS] = len(p.laws)
    for k in range(p.players):
        row[H_POLICY + k] = 1 if k < len(p.policies) and p.policies[k] == "greedy" else 0
    names = [land.name for land in p.lands]
    for i, land in enumerate(p.lands):
        row[H_LANDS + 4 * i : H_LANDS + 4 * i + 4] = (
            land.size,
            land.civilians,
            land.soldiers,
            EFFECTS.index(land.effect),
        )
    for i, c in enumerate(p.characters):
        row[H_CHARS + 2 * i] = sum(1 << TRAITS.index(t) for t in set(c.traits))
        row[H_CHARS + 2 * i + 1] = seat_index(c.seat, names)
    for i, law in enumerate(p.laws):
        row[H_LAWS + 5 * i : H_LAWS + 5 * i + 5] = (
            CATEGORIES.index(law.category),
            law.cost,
            law.mood,
            law.militarise,
            round(law.tax_delta * 2),
        )
    return row


# ---------------------------------------------------------------------------------------------
# Game state. Arrays only, so the whole game compiles:
#   tok[p, 0..6]  tokens of player p on Land li;  tok[p, 7 + c] on Character c
#   pl[p]         coins, supply, policy
#   land[li]       size, civilians, soldiers
#   ch[c]         traits, seat (-1 pool, -2 dead), lot key of this turn's acting order
#   g             the globals below (including who holds each seat)
#   law[i]        category, cost, mood, militarise, tax delta (halves), active slot or -1
#   card[k]       kind, owner, target, status (0 free, 1 in hand, 2 face down), mode, turn

P_COINS, P_SUPPLY, P_POLICY = 0, 1, 2
L_SIZE, L_CIV, L_SOL, L_EFFECT = 0, 1, 2, 3
C_TRAITS, C_SEAT, C_LOT = 0, 1, 2
K_KIND, K_OWNER, K_TARGET, K_STATUS, K_MODE, K_TURN = range(6)
(
    G_MOOD,
    G_TREASURY,
    G_TURN,
    G_WINMASK,
    G_VICTORY,
    G_LAWS_PASSED,
    G_KILLED,
    G_CONTESTED,
    G_REP,
    G_TAX_DELTA,
    G_VETO_USED,
    G_PLAYERS,
    G_ISSUED,
    G_TO_BANK,
    G_DONE,
    G_TOKENS,
    G_VIOLATIONS,
    G_CHECK,
    G_N_LAWS,
    G_MOOD_ON,
    G_MERCS_ON,
    G_INF_COST,
    G_MERC_COST,
    G_TAX_HALF,
    G_REMOVE_VOTES,
    G_COUNCIL_VOTES,
    G_MAX_TURNS,
    G_START_COINS,
    G_START_TREASURY,
) = range(29)
G_MERC0 = 29
G_GAP0 = G_MERC0 + 5
G_HOLDER0 = G_GAP0 + N_GAPS
G_SIZE = G_HOLDER0 + N_SEATS

# Move kinds of the legal-move lists.
(
    MV_PASS,
    MV_LAND_TOKEN,
    MV_CHAR_TOKEN,
    MV_BUY_MERC,
    MV_WARLORD,
    MV_BISHOP,
    MV_LAW,
    MV_REMOVE_HEAD,
    MV_REMOVE_COUNCILLOR,
    MV_SEND,
    MV_GIVE_UP,
    MV_REVEAL,
) = range(12)


@inline
def _pick(st, n):
    """A uniform index below n; reads a word only when there is a choice."""
    if n <= 1:
        return np.int64(0)
    return np.int64((low32(next_word(st)) * np.uint64(n)) >> np.uint64(32))


@inline
def _head_tok(tok, g, p, li):
    h = g[G_HOLDER0 + HEAD0 + li]
    if h < 0:
        return np.int64(0)
    return tok[p, N_LANDS + h]


@kernel
def land_owner(tok, g, li, tied):
    """Priority on Land li by Land + Head tokens (ties: more on the Head). Returns the player, -1
    when nobody has tokens, -2 when contested (``tied[p]`` then marks the contesting players)."""
    n_players = g[G_PLAYERS]
    top = np.int64(0)
    for p in range(n_players):
        c = tok[p, li] + _head_tok(tok, g, p, li)
        top = max(top, c)
    if top == 0:
        return np.int64(-1)
    count = 0
    who = -1
    head_top = np.int64(-1)
    for p in range(n_players):
        if tok[p, li] + _head_tok(tok, g, p, li) == top:
            count += 1
            who = p
            head_top = max(head_top, _head_tok(tok, g, p, li))
    if count == 1:
        return np.int64(who)
    count = 0
    for p in range(n_players):
        tied[p] = 0
        if tok[p, li] + _head_tok(tok, g, p, li) == top and _head_tok(tok, g, p, li) == head_top:
            count += 1
            who = p
            tied[p] = 1
    if count == 1:
        return np.int64(who)
    return np.int64(-2)


@inline
def _strict_top(tok, n_players, col):
    top = np.int64(0)
    who = -1
    count = 0
    for p in range(n_players):
        x = tok[p, col]
        if x > top:
            top = x
            who = p
            count = 1
        elif x == top and x > 0:
            count += 1
    if count == 1:
        return np.int64(who)
    return np.int64(-1)


@kernel
def char_owner(tok, g, c):
    """The player with strictly most tokens on Character c, or -1 (neutral)."""
    return _strict_top(tok, g[G_PLAYERS], N_LANDS + c)


@kernel
def priority_count(tok, g, ch, p, tied):
    """Lands (income rule) and Characters in play on which player p has priority."""
    n = 0
    for li in range(N_LANDS):
        if land_owner(tok, g, li, tied) == p:
            n += 1
    for c in range(N_CHARS):
        if ch[c, C_SEAT] >= 0 and _strict_top(tok, g[G_PLAYERS], N_LANDS + c) == p:
            n += 1
    return n


@kernel
def _local_count(tok, g, ch, p, col, tied):
    """The part of p's priority count that tokens at column col can change: a Land's income
    priority, or a Character's priority and, for a Head, its Land's."""
    if col < N_LANDS:
        return np.int64(1 if land_owner(tok, g, col, tied) == p else 0)
    c = col - N_LANDS
    seat = ch[c, C_SEAT]
    if seat < 0:
        return np.int64(0)
    n = np.int64(1 if _strict_top(tok, g[G_PLAYERS], col) == p else 0)
    if seat >= HEAD0 and land_owner(tok, g, seat - HEAD0, tied) == p:
        n += 1
    return n


@kernel
def _token_delta(tok, g, ch, p, col, d, tied):
    """Change of p's priority count if its tokens at column col change by d (only the Land or
    Character at col, and a Head's Land, can change; the twin recounts everything)."""
    before = _local_count(tok, g, ch, p, col, tied)
    tok[p, col] += d
    after = _local_count(tok, g, ch, p, col, tied)
    tok[p, col] -= d
    return after - before


@kernel
def _choose(st, pl, p, n, score):
    """Index of the chosen move among n: random uniformly, greedy by best score then lot."""
    if pl[p, P_POLICY] == 0:
        return _pick(st, n)
    best = score[0]
    for i in range(1, n):
        best = max(best, score[i])
    nbest = 0
    for i in range(n):
        if score[i] == best:
            nbest += 1
    k = _pick(st, nbest)
    for i in range(n):
        if score[i] == best:
            if k == 0:
                return np.int64(i)
            k -= 1
    return np.int64(0)


@kernel
def check_victory(tok, g, land, ch):
    """Coup and Will of the People, checked as soon as they hold. Returns True if the game ends."""
    n_players = g[G_PLAYERS]
    found = 0
    for cond in range(2):
        seat = WARLORD if cond == 0 else PRIVY
        holder = g[G_HOLDER0 + seat]
        if holder < 0:
            continue
        p = _strict_top(tok, n_players, N_LANDS + holder)
        if p < 0:
            continue
        lands = 0
        for li in range(N_LANDS):
            if _strict_top(tok, n_players, li) != p:
                continue
            military = land[li, L_SOL] >= land[li, L_CIV]
            civil = land[li, L_SOL] <= land[li, L_CIV]
            if (cond == 0 and military) or (cond == 1 and civil):
                lands += 1
        if lands >= 4:
            if found == 0:
                g[G_WINMASK] = 1 << p
                g[G_VICTORY] = V_COUP if cond == 0 else V_WILL
            found += 1
    if found > 1:
        g[G_GAP0 + GAP_SIMULTANEOUS] += 1
    if found > 0:
        g[G_DONE] = 1
        return True
    return False


@kernel
def _council_member(g, k):
    """Character in Council place k (0-3 the permanent seats, 4 the Representative), or -1."""
    if k < 4:
        return g[G_HOLDER0 + k]
    return g[G_REP]


@kernel
def check_election(tok, g):
    """Council election: one player has priority on all five Councillors at a Council vote."""
    p0 = -2
    for k in range(5):
        c = _council_member(g, k)
        if c < 0:
            return False
        p = char_owner(tok, g, c)
        if p < 0 or (p0 != -2 and p != p0):
            return False
        p0 = p
    g[G_WINMASK] = 1 << p0
    g[G_VICTORY] = V_ELECTION
    g[G_DONE] = 1
    return True


@kernel
def _remove_tokens(tok, pl, p, col, n):
    """Player p takes up to n of its tokens from column col back to its supply."""
    k = min(n, tok[p, col])
    tok[p, col] -= k
    pl[p, P_SUPPLY] += k
    return k


@kernel
def _discard_card(tok, pl, card, k):
    """A card leaves play; the token on a face-down card returns to its owner's supply."""
    if card[k, K_STATUS] == 2:
        pl[card[k, K_OWNER], P_SUPPLY] += 1
    card[k, K_STATUS] = 0


@kernel
def _give_tokens(tok, pl, p, col, n):
    """Player p puts up to n tokens from its supply on column col."""
    k = min(n, pl[p, P_SUPPLY])
    tok[p, col] += k
    pl[p, P_SUPPLY] -= k
    return k


@kernel
def _vacate(g, ch, c):
    """Character c leaves its seat (to the pool)."""
    s = ch[c, C_SEAT]
    if s >= 0:
        g[G_HOLDER0 + s] = -1
    if g[G_REP] == c:
        g[G_REP] = -1
    ch[c, C_SEAT] = -1


@kernel
def _kill(tok, pl, g, ch, card, c):
    """Character c is killed: out of the game, its tokens back to their supplies, cards on it
    discarded."""
    _vacate(g, ch, c)
    ch[c, C_SEAT] = -2
    for p in range(g[G_PLAYERS]):
        _remove_tokens(tok, pl, p, N_LANDS + c, tok[p, N_LANDS + c])
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 2 and card[k, K_TARGET] == c:
            _discard_card(tok, pl, card, k)
    g[G_KILLED] += 1


@kernel
def _appointer(tok, g):
    """The player who chooses for the Privy Councillor (the Treasurer in his absence), or -1."""
    for seat in (PRIVY, TREASURER):
        h = g[G_HOLDER0 + seat]
        if h >= 0:
            return char_owner(tok, g, h)
    return np.int64(-1)


@kernel
def _choose_among(st, tok, pl, g, cand, n, score):
    """The appointer chooses among n candidates (greedy: most own tokens); by lot if nobody can."""
    q = _appointer(tok, g)
    if q < 0:
        if n > 1:
            g[G_GAP0 + GAP_APPOINT] += 1
        return cand[_pick(st, n)]
    for i in range(n):
        score[i] = tok[q, N_LANDS + cand[i]]
    return cand[_choose(st, pl, q, n, score)]


@kernel
def fill_vacancies(st, tok, pl, g, ch, cand, votes, score):
    """Council seats by a vote of the Heads, then Head seats by the Privy Councillor's choice."""
    for s in range(4):
        if g[G_HOLDER0 + s] >= 0:
            continue
        n = 0
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h >= 0:
                cand[n] = h
                votes[n] = 0
                n += 1
        if n == 0:
            continue
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h < 0:
                continue
            q = char_owner(tok, g, h)
            if q < 0:
                continue
            for i in range(n):
                score[i] = tok[q, N_LANDS + cand[i]]
            votes[_choose(st, pl, q, n, score)] += 1
        top = 0
        for i in range(n):
            top = max(top, votes[i])
        m = 0
        for i in range(n):
            if votes[i] == top:
                cand[m] = cand[i]
                m += 1
        chosen = cand[0] if m == 1 else _choose_among(st, tok, pl, g, cand, m, score)
        _vacate(g, ch, chosen)
        ch[chosen, C_SEAT] = s
        g[G_HOLDER0 + s] = chosen
    for li in range(N_LANDS):
        if g[G_HOLDER0 + HEAD0 + li] >= 0:
            continue
        n = 0
        for c in range(N_CHARS):
            if ch[c, C_SEAT] == -1:
                cand[n] = c
                n += 1
        if n == 0:
            continue
        chosen = _choose_among(st, tok, pl, g, cand, n, score)
        ch[chosen, C_SEAT] = HEAD0 + li
        g[G_HOLDER0 + HEAD0 + li] = chosen


@kernel
def _char_total(tok, g, c):
    t = np.int64(0)
    for p in range(g[G_PLAYERS]):
        t += tok[p, N_LANDS + c]
    return t


@kernel
def _land_total(tok, g, li):
    t = np.int64(0)
    for p in range(g[G_PLAYERS]):
        t += tok[p, li]
    return t


@kernel
def choose_representative(st, tok, pl, g, ch, land, cand, score):
    """The Head with most tokens; ties by Land + Head, Land size, population, civilians,
    soldiers, then the Privy Councillor's choice."""
    n = 0
    best = np.zeros(6, dtype=np.int64)
    key = np.zeros(6, dtype=np.int64)
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h < 0:
            continue
        key[0] = _char_total(tok, g, h)
        key[1] = key[0] + _land_total(tok, g, li)
        key[2] = land[li, L_SIZE]
        key[3] = land[li, L_CIV] + land[li, L_SOL]
        key[4] = land[li, L_CIV]
        key[5] = land[li, L_SOL]
        cmp = 0
        if n > 0:
            for i in range(6):
                if key[i] != best[i]:
                    cmp = 1 if key[i] > best[i] else -1
                    break
        if n == 0 or cmp > 0:
            best[:] = key
            cand[0] = h
            n = 1
        elif cmp == 0:
            cand[n] = h
            n += 1
    if n == 0:
        g[G_REP] = -1
    elif n == 1:
        g[G_REP] = cand[0]
    else:
        g[G_REP] = _choose_among(st, tok, pl, g, cand, n, score)


@kernel
def acting_order(st, tok, g, ch, order):
    """Characters in acting order: the Council (with the Representative) before the Heads; then
    most tokens of one player first; then fewer tokens in all; then fewer counting the Head's Land;
    then by lot (one word per Character in play, in Character order). Returns how many."""
    n = 0
    key = np.zeros((N_CHARS, 5), dtype=np.int64)
    for c in range(N_CHARS):
        seat = ch[c, C_SEAT]
        if seat < 0:
            continue
        key[c, 0] = 0 if (seat < HEAD0 or g[G_REP] == c) else 1
        most = np.int64(0)
        for p in range(g[G_PLAYERS]):
            most = max(most, tok[p, N_LANDS + c])
        key[c, 1] = -most
        key[c, 2] = _char_total(tok, g, c)
        key[c, 3] = key[c, 2] + (_land_total(tok, g, seat - HEAD0) if seat >= HEAD0 else 0)
        key[c, 4] = np.int64(next_word(st) >> np.uint64(2))
        order[n] = c
        n += 1
    for i in range(1, n):
        c = order[i]
        j = i - 1
        while j >= 0 and _key_less(key, c, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = c
    return n


@inline
def _key_less(key, a, b):
    for i in range(5):
        if key[a, i] != key[b, i]:
            return key[a, i] < key[b, i]
    return False


@inline
def _trait(ch, c, t):
    return (ch[c, C_TRAITS] >> t) & 1


@kernel
def trait_stance(ch, c, category):
    """+1 if Character c's traits vote for a law of this category, -1 against, 0 abstain."""
    if category == 0:
        return 0
    yes = _trait(ch, c, 2 * (category - 1))
    no = _trait(ch, c, 2 * (category - 1) + 1)
    return np.int64(yes - no)


@kernel
def tally_council(tok, pl, g, ch, category, decl):
    """Count a Council vote from the players' declarations ``decl[k, p]`` (+1 for, -1 against,
    0 none) for Council place k. A controlled member votes as its player declares. A neutral member
    whose tied players all declare the same way votes that way. Otherwise a neutral member votes
    by its traits (or abstains). Voting against a trait under influence costs each influencing
    player 1 token (Proud: 2). Returns the votes for."""
    n_players = g[G_PLAYERS]
    yes = 0
    for k in range(5):
        c = _council_member(g, k)
        if c < 0:
            continue
        stance = trait_stance(ch, c, category)
        cost = 2 if _trait(ch, c, T_PROUD) == 1 else 1
        q = char_owner(tok, g, c)
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, tok[p, N_LANDS + c])
        vote = stance
        if q >= 0:
            vote = decl[k, q]
        elif most > 0:
            agreed = np.int64(0)
            for p in range(n_players):
                if tok[p, N_LANDS + c] == most:
                    if agreed == 0:
                        agreed = decl[k, p]
                    elif decl[k, p] != agreed:
                        agreed = -9
            if agreed == 1 or agreed == -1:
                vote = agreed
            else:
                most = 0  # no joint influence: the trait vote, nobody pays
        if (q >= 0 or most > 0) and vote != 0 and stance != 0 and vote != stance:
            for p in range(n_players):
                if (q >= 0 and p == q) or (q < 0 and tok[p, N_LANDS + c] == most):
                    _remove_tokens(tok, pl, p, N_LANDS + c, cost)
        if vote > 0:
            yes += 1
    return yes


@kernel
def council_vote(st, tok, pl, g, ch, proposer, category, score, tied, decl):
    """A Council vote: the controlling player of each member (or each tied player of a neutral
    one) declares for or against, in Council order then seat order; the proposer always for;
    greedy avoids trait costs that lose it priority. Returns the votes for."""
    n_players = g[G_PLAYERS]
    for k in range(5):
        for p in range(n_players):
            decl[k, p] = 0
        c = _council_member(g, k)
        if c < 0:
            continue
        stance = trait_stance(ch, c, category)
        cost = 2 if _trait(ch, c, T_PROUD) == 1 else 1
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, tok[p, N_LANDS + c])
        if most == 0:
            continue
        for p in range(n_players):
            if tok[p, N_LANDS + c] != most:
                continue
            if p == proposer:
                decl[k, p] = 1
                continue
            # move 0 = for, 1 = against; greedy scores the trait cost on its priority.
            for i in range(2):
                against_trait = (stance < 0) if i == 0 else (stance > 0)
                score[i] = 0
                if against_trait and pl[p, P_POLICY] == 1:
                    score[i] = _token_delta(
                        tok, g, ch, p, N_LANDS + c, -min(cost, tok[p, N_LANDS + c]), tied
                    )
            decl[k, p] = 1 if _choose(st, pl, p, 2, score) == 0 else -1
    return tally_council(tok, pl, g, ch, category, decl)


@kernel
def land_vote(st, tok, pl, g, proposer, score):
    """Heads vote to remove a Councillor: neutral Heads do not count. Returns the votes for."""
    yes = 0
    for li in range(N_LANDS):
        h = g[G_HOLDER0 + HEAD0 + li]
        if h < 0:
            continue
        q = char_owner(tok, g, h)
        if q < 0:
            continue
        if q == proposer:
            yes += 1
        else:
            score[0] = 0
            score[1] = 0
            if _choose(st, pl, q, 2, score) == 0:
                yes += 1
    if yes == 4:
        g[G_GAP0 + GAP_FOUR_VOTES] += 1
    return yes


@kernel
def hand_of_order(st, tok, pl, g, ch, land, cand, votes, score):
    """The fifth Character is killed: seats are filled, most tokens on the Council wins; ties by
    tokens on all Characters, then all tokens on the board; a tie after that shares the win."""
    fill_vacancies(st, tok, pl, g, ch, cand, votes, score)
    choose_representative(st, tok, pl, g, ch, land, cand, score)
    n_players = g[G_PLAYERS]
    alive = np.ones(n_players, dtype=np.int64)
    value = np.zeros(n_players, dtype=np.int64)
    for tier in range(3):
        for p in range(n_players):
            v = np.int64(0)
            if tier == 0:
                for k in range(5):
                    c = _council_member(g, k)
                    if c >= 0:
                        v += tok[p, N_LANDS + c]
            else:
                for c in range(N_CHARS):
                    v += tok[p, N_LANDS + c]
                if tier == 2:
                    for li in range(N_LANDS):
                        v += tok[p, li]
            value[p] = v
        top = np.int64(-1)
        for p in range(n_players):
            if alive[p] == 1:
                top = max(top, value[p])
        for p in range(n_players):
            if alive[p] == 1 and value[p] != top:
                alive[p] = 0
    mask = 0
    count = 0
    for p in range(n_players):
        if alive[p] == 1:
            mask |= 1 << p
            count += 1
    if count > 1:
        g[G_GAP0 + GAP_HAND_TIE] += 1
    g[G_WINMASK] = mask
    g[G_VICTORY] = V_HAND
    g[G_DONE] = 1


@kernel
def _gift_size(ch, c):
    return np.int64(2 if _trait(ch, c, T_COLLECTOR) == 1 else 1)


@kernel
def _guard_answers(st, tok, pl, g, ch, card, target, bonus, tied, score):
    """A face-down Guard on ``target`` may answer (its owner chooses). Returns its card or -1."""
    for m in range(MAX_CARDS):
        if card[m, K_STATUS] != 2 or card[m, K_KIND] != GUARD or card[m, K_TARGET] != target:
            continue
        r = card[m, K_OWNER]
        score[0] = _token_delta(
            tok, g, ch, r, N_LANDS + target, min(bonus, pl[r, P_SUPPLY] + 1), tied
        )
        score[1] = -1 if char_owner(tok, g, target) == r else 0
        if _choose(st, pl, r, 2, score) == 0:
            return np.int64(m)
    return np.int64(-1)


@kernel
def reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes):
    """Start of a turn: each face-down card placed in an earlier turn may be revealed (owner's
    choice), in card order."""
    t = g[G_TURN]
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] != 2 or card[k, K_TURN] >= t or card[k, K_KIND] == GUARD:
            continue
        p = card[k, K_OWNER]
        target = card[k, K_TARGET]
        kind = card[k, K_KIND]
        n = 1
        mv[0, 0] = MV_PASS
        score[0] = 0
        if kind == MESSENGER:
            extra_max = 0
            if card[k, K_MODE] == 1:
                extra_max = min(pl[p, P_COINS] // 3, 2)
            for j in range(extra_max + 1):
                mv[n, 0] = MV_REVEAL
                mv[n, 1] = k
                mv[n, 2] = j
                gain = _gift_size(ch, target) if card[k, K_MODE] == 0 else 1 + j
                if card[k, K_MODE] == 1 and _trait(ch, target, T_INCORRUPTIBLE) == 1:
                    gain = 0
                score[n] = _token_delta(
                    tok, g, ch, p, N_LANDS + target, min(gain, pl[p, P_SUPPLY] + 1), tied
                )
                n += 1
        elif kind == ASSASSIN:
            mv[n, 0] = MV_REVEAL
            mv[n, 1] = k
            mv[n, 2] = 0
            score[n] = -1 if char_owner(tok, g, target) == p else 0
            n += 1
        else:
            for m in range(MAX_CARDS):
                if card[m, K_STATUS] == 2 and card[m, K_OWNER] != p and n < MAX_MOVES:
                    mv[n, 0] = MV_REVEAL
                    mv[n, 1] = k
                    mv[n, 2] = m
                    score[n] = 0
                    n += 1
        i = _choose(st, pl, p, n, score)
        if mv[i, 0] == MV_PASS:
            continue
        g[G_MERC0 + kind] += 1
        if kind == MESSENGER:
            j = mv[i, 2]
            mode = card[k, K_MODE]
            _discard_card(tok, pl, card, k)
            if mode == 0:
                _give_tokens(tok, pl, p, N_LANDS + target, _gift_size(ch, target))
            else:
                pl[p, P_COINS] -= 3 * j
                g[G_TO_BANK] += 3 * j
                if _trait(ch, target, T_INCORRUPTIBLE) == 0:
                    _give_tokens(tok, pl, p, N_LANDS + target, 1 + j)
        elif kind == ASSASSIN:
            m = _guard_answers(st, tok, pl, g, ch, card, target, 2, tied, score)
            if m >= 0:
                r = card[m, K_OWNER]
                g[G_MERC0 + GUARD] += 1
                _discard_card(tok, pl, card, m)
                _discard_card(tok, pl, card, k)
                _give_tokens(tok, pl, r, N_LANDS + target, 2)
                # The assassin's owner takes 1 token from any 3 Characters.
                for _ in range(3):
                    n = 0
                    for c in range(N_CHARS):
                        if tok[p, N_LANDS + c] > 0:
                            mv[n, 1] = c
                            score[n] = _token_delta(tok, g, ch, p, N_LANDS + c, -1, tied)
                            n += 1
                    if n == 0:
                        break
                    c = mv[_choose(st, pl, p, n, score), 1]
                    _remove_tokens(tok, pl, p, N_LANDS + c, 1)
            else:
                _kill(tok, pl, g, ch, card, target)
                if g[G_KILLED] >= 5:
                    hand_of_order(st, tok, pl, g, ch, land, cand, votes, score)
                    return
        else:
            m = mv[i, 2]
            q = card[m, K_OWNER]
            km = card[m, K_KIND]
            tm = card[m, K_TARGET]
            if kind == SPY:
                mode = card[m, K_MODE]
                _discard_card(tok, pl, card, k)
                _discard_card(tok, pl, card, m)
                if km == MESSENGER and mode == 0:
                    _give_tokens(tok, pl, q, N_LANDS + tm, _gift_size(ch, tm))
                elif km == MESSENGER:
                    _remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                    for c in range(N_CHARS):
                        if ch[c, C_SEAT] >= -1 and _trait(ch, c, T_INCORRUPTIBLE) == 1:
                            _remove_tokens(tok, pl, q, N_LANDS + c, 1)
                elif km == THIEF:
                    _remove_tokens(tok, pl, q, N_LANDS + tm, 1)
                elif km == ASSASSIN:
                    _remove_tokens(tok, pl, q, N_LANDS + tm, tok[q, N_LANDS + tm])
                    for c in range(N_CHARS):
                        if ch[c, C_SEAT] >= -1 and (
                            _trait(ch, c, T_PEACEFUL)
                            + _trait(ch, c, T_BELIEVER)
                            + _trait(ch, c, T_HUMANE)
                            > 0
                        ):
                            _remove_tokens(tok, pl, q, N_LANDS + c, 1)
                elif km == GUARD:
                    _remove_tokens(tok, pl, p, N_LANDS + tm, 1)
            else:  # THIEF
                if km == MESSENGER:
                    gm = _guard_answers(st, tok, pl, g, ch, card, tm, 1, tied, score)
                    if gm >= 0:
                        r = card[gm, K_OWNER]
                        g[G_MERC0 + GUARD] += 1
                        _discard_card(tok, pl, card, gm)
                        _discard_card(tok, pl, card, k)
                        _give_tokens(tok, pl, r, N_LANDS + tm, 1)
                        if check_victory(tok, g, land, ch):
                            return
                        continue
                    take = True
                    if card[m, K_MODE] == 1:
                        score[0] = 0
                        score[1] = 0
                        take = _choose(st, pl, p, 2, score) == 0
                    _discard_card(tok, pl, card, k)
                    _discard_card(tok, pl, card, m)
                    if take:
                        card[m, K_STATUS] = 1
                        card[m, K_OWNER] = p
                        card[m, K_TURN] = t
                        card[m, K_MODE] = 0
                    else:
                        pl[p, P_COINS] += 2
                        g[G_ISSUED] += 2
                else:
                    _discard_card(tok, pl, card, k)
                    _discard_card(tok, pl, card, m)
        if check_victory(tok, g, land, ch):
            return


@kernel
def income_value(g, ch, land, li, base, controlled):
    """A Land's income: ``base`` coins (civilians, or 1 when contested), the Head's Thrifty (+1)
    or Wasteful (-1) for its controller, then the mood track: -3 nothing, -2 nothing where
    soldiers < civilians (unless the Head is Domineering), +3 one more coin."""
    v = base
    h = g[G_HOLDER0 + HEAD0 + li]
    if controlled and h >= 0:
        v += _trait(ch, h, T_THRIFTY) - _trait(ch, h, T_WASTEFUL)
    if g[G_MOOD_ON] == 1 and land[li, L_EFFECT] != E_MOOD_IMMUNE:
        mood = g[G_MOOD]
        if mood <= -3:
            return np.int64(0)
        unrest = mood == -2 and land[li, L_SOL] < land[li, L_CIV]
        if unrest and (h < 0 or _trait(ch, h, T_DOMINEERING) == 0):
            return np.int64(0)
        if mood >= 3:
            v += 1
    return np.int64(max(v, 0))


@kernel
def income_phase(st, tok, pl, g, ch, land, mv, score, tied, owner, contest):
    """Income by priority on each Land; contested Lands pay 1 coin to each tied player. A player
    may give up one Land's income to add a civilian there."""
    n_players = g[G_PLAYERS]
    if g[G_MOOD_ON] == 1 and g[G_MOOD] <= -3:
        # An uprising: every Cowardly Character in play leaves its seat (to the pool).
        for c in range(N_CHARS):
            if ch[c, C_SEAT] >= 0 and _trait(ch, c, T_COWARDLY) == 1:
                _vacate(g, ch, c)
    for li in range(N_LANDS):
        owner[li] = land_owner(tok, g, li, tied)
        for p in range(n_players):
            contest[li, p] = tied[p] if owner[li] == -2 else 0
    give_up = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for p in range(n_players):
        n = 1
        mv[0, 0] = MV_PASS
        score[0] = 0
        for li in range(N_LANDS):
            if owner[li] == p and land[li, L_CIV] + land[li, L_SOL] < land[li, L_SIZE]:
                mv[n, 0] = MV_GIVE_UP
                mv[n, 1] = li
                score[n] = 0
                n += 1
        i = _choose(st, pl, p, n, score)
        if mv[i, 0] == MV_GIVE_UP:
            give_up[p] = mv[i, 1]
    for li in range(N_LANDS):
        o = owner[li]
        if o >= 0:
            if give_up[o] == li:
                continue
            v = income_value(g, ch, land, li, land[li, L_CIV], True)
            pl[o, P_COINS] += v
            g[G_ISSUED] += v
        elif o == -2:
            g[G_CONTESTED] += 1
            v = income_value(g, ch, land, li, 1, False)
            for p in range(n_players):
                if contest[li, p] == 1:
                    pl[p, P_COINS] += v
                    g[G_ISSUED] += v
    for li in range(N_LANDS):
        # Black Harbour: +1 coin to the priority holder in any conditions (ties: nobody).
        if land[li, L_EFFECT] == E_INCOME_BONUS and owner[li] >= 0:
            pl[owner[li], P_COINS] += 1
            g[G_ISSUED] += 1
    for p in range(n_players):
        if give_up[p] >= 0:
            land[give_up[p], L_CIV] += 1


@kernel
def _free_card(card):
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 0:
            return np.int64(k)
    return np.int64(-1)


@kernel
def _hand_size(card, p):
    n = 0
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 1 and card[k, K_OWNER] == p:
            n += 1
    return n


MAX_HAND = 6
MAX_BUYS = 40


@kernel
def _merc_cost(tok, g, land, p):
    """Mercenary price for p: 1 less with priority on a Zalesye-like Land's Head or 3+ tokens on
    the Land (at most 1 less, never below 1)."""
    for li in range(N_LANDS):
        if land[li, L_EFFECT] != E_MERC_DISCOUNT:
            continue
        h = g[G_HOLDER0 + HEAD0 + li]
        head_priority = h >= 0 and _strict_top(tok, g[G_PLAYERS], N_LANDS + h) == p
        if head_priority or tok[p, li] >= 3:
            return np.int64(max(g[G_MERC_COST] - 1, 1))
    return g[G_MERC_COST]


@kernel
def spending_phase(st, tok, pl, g, ch, land, card, mv, score, tied):
    """Poorest player first (ties: lower seat): each buys influence on Lands and Mercenaries until
    it stops."""
    n_players = g[G_PLAYERS]
    order = np.zeros(n_players, dtype=np.int64)
    for p in range(n_players):
        order[p] = p
    for i in range(1, n_players):
        p = order[i]
        j = i - 1
        while j >= 0 and pl[order[j], P_COINS] > pl[p, P_COINS]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p
    for idx in range(n_players):
        p = order[idx]
        for _ in range(MAX_BUYS):
            n = 1
            mv[0, 0] = MV_PASS
            score[0] = 0
            if pl[p, P_COINS] >= g[G_INF_COST] and pl[p, P_SUPPLY] > 0:
                for li in range(N_LANDS):
                    mv[n, 0] = MV_LAND_TOKEN
                    mv[n, 1] = li
                    if pl[p, P_POLICY] == 1:
                        score[n] = _token_delta(tok, g, ch, p, li, 1, tied)
                    n += 1
            merc_cost = _merc_cost(tok, g, land, p)
            if (
                g[G_MERCS_ON] == 1
                and pl[p, P_COINS] >= merc_cost
                and _free_card(card) >= 0
                and _hand_size(card, p) < MAX_HAND
            ):
                for kind in range(5):
                    mv[n, 0] = MV_BUY_MERC
                    mv[n, 1] = kind
                    score[n] = 0
                    n += 1
            i = _choose(st, pl, p, n, score)
            if mv[i, 0] == MV_PASS:
                break
            if mv[i, 0] == MV_LAND_TOKEN:
                pl[p, P_COINS] -= g[G_INF_COST]
                g[G_TO_BANK] += g[G_INF_COST]
                _give_tokens(tok, pl, p, mv[i, 1], 1)
                if check_victory(tok, g, land, ch):
                    return
            else:
                pl[p, P_COINS] -= merc_cost
                g[G_TO_BANK] += merc_cost
                k = _free_card(card)
                card[k, K_KIND] = mv[i, 1]
                card[k, K_OWNER] = p
                card[k, K_TARGET] = -1
                card[k, K_STATUS] = 1
                card[k, K_MODE] = 0
                card[k, K_TURN] = g[G_TURN]


@kernel
def tax_phase(tok, pl, g, land, owner, contest, tied):
    """Each player pays for the Lands it has priority on (tax_rate per Land, total rounded down)
    and 1 coin per contested Land; a Land it cannot pay for costs 1 token on the Land and 1 on its
    Head."""
    n_players = g[G_PLAYERS]
    half = max(g[G_TAX_HALF] + g[G_TAX_DELTA], 0)
    for li in range(N_LANDS):
        owner[li] = land_owner(tok, g, li, tied)
        for p in range(n_players):
            contest[li, p] = tied[p] if owner[li] == -2 else 0
    for p in range(n_players):
        k = 0
        for li in range(N_LANDS):
            if owner[li] == p:
                k += 1
                due = (half * k) // 2 - (half * (k - 1)) // 2
            elif owner[li] == -2 and contest[li, p] == 1:
                due = 1
            else:
                continue
            if pl[p, P_COINS] >= due:
                pl[p, P_COINS] -= due
                g[G_TREASURY] += due
            else:
                _remove_tokens(tok, pl, p, li, 1)
                h = g[G_HOLDER0 + HEAD0 + li]
                if h >= 0:
                    _remove_tokens(tok, pl, p, N_LANDS + h, 1)


@kernel
def _active_in_slot(law, n_laws, j):
    for i in range(n_laws):
        if law[i, 5] == j:
            return np.int64(i)
    return np.int64(-1)


@kernel
def pass_law(g, land, law, i, j):
    """Law i takes slot j (or a free slot when j is -1): Treasury pays, mood, militarise, tax."""
    n_laws = g[G_N_LAWS]
    if j < 0:
        for s in range(ACTIVE_LAWS):
            if _active_in_slot(law, n_laws, s) < 0:
                j = s
                break
    old = _active_in_slot(law, n_laws, j)
    if old >= 0:
        law[old, 5] = -1
    law[i, 5] = j
    g[G_TREASURY] -= law[i, 1]
    g[G_TO_BANK] += law[i, 1]
    g[G_MOOD] = min(max(g[G_MOOD] + law[i, 2], -3), 3)
    for li in range(N_LANDS):
        if law[i, 3] > 0 and land[li, L_CIV] > 0:
            land[li, L_CIV] -= 1
            land[li, L_SOL] += 1
        elif law[i, 3] < 0 and land[li, L_SOL] > 0:
            land[li, L_SOL] -= 1
            land[li, L_CIV] += 1
    delta = 0
    for k in range(n_laws):
        if law[k, 5] >= 0:
            delta += law[k, 4]
    g[G_TAX_DELTA] = delta
    g[G_LAWS_PASSED] += 1


@kernel
def _law_moves(g, law, mv, n):
    n_laws = g[G_N_LAWS]
    active = 0
    for i in range(n_laws):
        if law[i, 5] >= 0:
            active += 1
    for i in range(n_laws):
        if law[i, 5] >= 0 or law[i, 1] > g[G_TREASURY]:
            continue
        if active < ACTIVE_LAWS:
            mv[n, 0] = MV_LAW
            mv[n, 1] = i
            mv[n, 2] = -1
            n += 1
        else:
            for j in range(ACTIVE_LAWS):
                mv[n, 0] = MV_LAW
                mv[n, 1] = i
                mv[n, 2] = j
                n += 1
    return n


@kernel
def _send_source(tok, ch, p, c):
    """Where the sender's token for a Mercenary comes from: the acting Character, or a Head's
    Land; -1 if p has none there."""
    seat = ch[c, C_SEAT]
    if tok[p, N_LANDS + c] > 0:
        return np.int64(N_LANDS + c)
    if seat >= HEAD0 and tok[p, seat - HEAD0] > 0:
        return np.int64(seat - HEAD0)
    return np.int64(-1)


@kernel
def _add_sends(ch, card, mv, n, p, c, from_col):
    """Append the moves sending one of p's cards (as gift or bribe for a Messenger) to another
    Character in play."""
    if from_col < 0:
        return n
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] != 1 or card[k, K_OWNER] != p:
            continue
        for t in range(N_CHARS):
            if t == c or ch[t, C_SEAT] < 0:
                continue
            for mode in range(2 if card[k, K_KIND] == MESSENGER else 1):
                if n < MAX_MOVES:
                    mv[n, 0] = MV_SEND
                    mv[n, 1] = k
                    mv[n, 2] = t
                    mv[n, 3] = mode
                    n += 1
    return n


@kernel
def _send(tok, g, card, p, from_col, k, target, mode):
    tok[p, from_col] -= 1
    card[k, K_STATUS] = 2
    card[k, K_TARGET] = target
    card[k, K_MODE] = mode
    card[k, K_TURN] = g[G_TURN]


@kernel
def character_action(st, tok, pl, g, ch, land, law, card, mv, score, tied, decl, c, p):
    """Player p acts through Character c: chooses one legal move and plays it."""
    seat = ch[c, C_SEAT]
    is_head = seat >= HEAD0
    in_council = seat < HEAD0 or g[G_REP] == c
    n = 1
    mv[0, 0] = MV_PASS
    if seat == WARLORD:
        for a in range(N_LANDS):
            if land[a, L_SOL] == 0:
                continue
            for b in range(N_LANDS):
                if b != a and land[b, L_CIV] + land[b, L_SOL] < land[b, L_SIZE]:
                    mv[n, 0] = MV_WARLORD
                    mv[n, 1] = a
                    mv[n, 2] = b
                    n += 1
    if seat == BISHOP and pl[p, P_SUPPLY] > 0:
        for li in range(N_LANDS):
            mv[n, 0] = MV_BISHOP
            mv[n, 1] = li
            n += 1
    if in_council:
        n = _law_moves(g, law, mv, n)
        for li in range(N_LANDS):
            h = g[G_HOLDER0 + HEAD0 + li]
            if h >= 0 and h != c:
                mv[n, 0] = MV_REMOVE_HEAD
                mv[n, 1] = h
                n += 1
    if is_head:
        for s in range(4):
            if g[G_HOLDER0 + s] >= 0:
                mv[n, 0] = MV_REMOVE_COUNCILLOR
                mv[n, 1] = s
                n += 1
    from_col = _send_source(tok, ch, p, c)
    n = _add_sends(ch, card, mv, n, p, c, from_col)
    send_score = 0
    if from_col >= 0 and pl[p, P_POLICY] == 1:
        send_score = _token_delta(tok, g, ch, p, from_col, -1, tied)
    for i in range(n if pl[p, P_POLICY] == 1 else 0):
        kind = mv[i, 0]
        if kind == MV_BISHOP:
            score[i] = _token_delta(tok, g, ch, p, mv[i, 1], 1, tied)
        elif kind == MV_SEND:
            score[i] = send_score
        else:
            score[i] = 0
    i = _choose(st, pl, p, n, score)
    kind = mv[i, 0]
    a = mv[i, 1]
    b = mv[i, 2]
    if kind == MV_WARLORD:
        land[a, L_SOL] -= 1
        land[b, L_SOL] += 1
    elif kind == MV_BISHOP:
        _give_tokens(tok, pl, p, a, 1)
    elif kind == MV_LAW:
        if check_election(tok, g):
            return
        vetoed = False
        tr = g[G_HOLDER0 + TREASURER]
        if g[G_VETO_USED] == 0 and tr >= 0 and g[G_TREASURY] - law[a, 1] <= 3:
            qt = char_owner(tok, g, tr)
            if qt >= 0 and qt != p:
                score[0] = 0
                score[1] = 0
                if _choose(st, pl, qt, 2, score) == 0:
                    vetoed = True
                    g[G_VETO_USED] = 1
        if not vetoed:
            yes = council_vote(st, tok, pl, g, ch, p, law[a, 0], score, tied, decl)
            if yes >= g[G_COUNCIL_VOTES]:
                pass_law(g, land, law, a, b)
    elif kind == MV_REMOVE_HEAD:
        if check_election(tok, g):
            return
        yes = council_vote(st, tok, pl, g, ch, p, 0, score, tied, decl)
        if yes >= g[G_COUNCIL_VOTES]:
            _vacate(g, ch, a)
    elif kind == MV_REMOVE_COUNCILLOR:
        yes = land_vote(st, tok, pl, g, p, score)
        if yes >= g[G_REMOVE_VOTES]:
            _vacate(g, ch, g[G_HOLDER0 + a])
    elif kind == MV_SEND:
        _send(tok, g, card, p, from_col, a, b, mv[i, 3])
        # Any number of Mercenaries may be sent in one action: send another or stop.
        while True:
            from_col = _send_source(tok, ch, p, c)
            n = _add_sends(ch, card, mv, 1, p, c, from_col)
            if n == 1:
                break
            mv[0, 0] = MV_PASS
            score[0] = 0
            if pl[p, P_POLICY] == 1:
                send_score = _token_delta(tok, g, ch, p, from_col, -1, tied)
                for j in range(1, n):
                    score[j] = send_score
            i = _choose(st, pl, p, n, score)
            if mv[i, 0] == MV_PASS:
                break
            _send(tok, g, card, p, from_col, mv[i, 1], mv[i, 2], mv[i, 3])


@kernel
def actions_phase(st, tok, pl, g, ch, land, law, card, mv, score, tied, cand, votes, order, decl):
    """Vacancies and the Representative, then each Character in acting order; a neutral Head may
    be tipped by players discarding tokens from its Land (the most discarded acts)."""
    n_players = g[G_PLAYERS]
    g[G_VETO_USED] = 0
    fill_vacancies(st, tok, pl, g, ch, cand, votes, score)
    choose_representative(st, tok, pl, g, ch, land, cand, score)
    n = acting_order(st, tok, g, ch, order)
    for i in range(n):
        c = order[i]
        seat = ch[c, C_SEAT]
        if seat < 0:
            continue
        p = char_owner(tok, g, c)
        if p < 0:
            most = np.int64(0)
            for q in range(n_players):
                most = max(most, tok[q, N_LANDS + c])
            if most == 0 or seat < HEAD0:
                continue
            li = seat - HEAD0
            best = 0
            count = 0
            for q in range(n_players):
                if tok[q, N_LANDS + c] != most:
                    continue
                top_bid = min(tok[q, li], 2)
                # random: 0..2 uniformly; greedy: 1 if it can
                bid = _pick(st, top_bid + 1) if pl[q, P_POLICY] == 0 else min(top_bid, 1)
                _remove_tokens(tok, pl, q, li, bid)
                if bid > best:
                    best = bid
                    count = 1
                    p = q
                elif bid == best and bid > 0:
                    count += 1
            if check_victory(tok, g, land, ch):
                return
            if best == 0:
                continue
            if count > 1:
                g[G_GAP0 + GAP_TIP] += 1
                continue
        character_action(st, tok, pl, g, ch, land, law, card, mv, score, tied, decl, c, p)
        if g[G_DONE] == 1:
            return
        if check_victory(tok, g, land, ch):
            return
    for k in range(MAX_CARDS):
        if card[k, K_STATUS] == 1:
            card[k, K_STATUS] = 0


@kernel
def violations(tok, pl, g, ch, land, card):
    """Broken invariants of a position (tokens, coins, population, seats); 0 when all hold."""
    bad = 0
    n_players = g[G_PLAYERS]
    coins = g[G_TREASURY] + g[G_TO_BANK]
    for p in range(n_players):
        total = pl[p, P_SUPPLY]
        if pl[p, P_SUPPLY] < 0 or pl[p, P_COINS] < 0:
            bad += 1
        for col in range(N_LANDS + N_CHARS):
            total += tok[p, col]
            if tok[p, col] < 0:
                bad += 1
        for k in range(MAX_CARDS):
            if card[k, K_STATUS] == 2 and card[k, K_OWNER] == p:
                total += 1
        if total != g[G_TOKENS]:
            bad += 1
        coins += pl[p, P_COINS]
    if coins != n_players * g[G_START_COINS] + g[G_START_TREASURY] + g[G_ISSUED]:
        bad += 1
    if g[G_TREASURY] < 0:
        bad += 1
    for li in range(N_LANDS):
        if land[li, L_CIV] < 0 or land[li, L_SOL] < 0:
            bad += 1
        if land[li, L_CIV] + land[li, L_SOL] > land[li, L_SIZE]:
            bad += 1
    for s in range(N_SEATS):
        h = g[G_HOLDER0 + s]
        if h >= 0 and ch[h, C_SEAT] != s:
            bad += 1
    for c in range(N_CHARS):
        s = ch[c, C_SEAT]
        if s >= 0 and g[G_HOLDER0 + s] != c:
            bad += 1
        if s == -2:
            for p in range(n_players):
                if tok[p, N_LANDS + c] != 0:
                    bad += 1
    if g[G_MOOD] < -3 or g[G_MOOD] > 3:
        bad += 1
    return bad


@kernel
def setup(row, st, tok, pl, g, ch, land, law, card, mv, score, tied):
    """The starting position, then each player places ``start_tokens`` tokens one at a time."""
    n_players = np.int64(row[H_PLAYERS])
    tok[:, :] = 0
    g[:] = 0
    card[:, :] = 0
    g[G_PLAYERS] = n_players
    g[G_TOKENS] = np.int64(row[H_TOKENS])
    g[G_MOOD] = np.int64(row[H_MOOD_START])
    g[G_TREASURY] = np.int64(row[H_TREASURY])
    g[G_START_TREASURY] = g[G_TREASURY]
    g[G_START_COINS] = np.int64(row[H_START_COINS])
    g[G_N_LAWS] = np.int64(row[H_N_LAWS])
    g[G_MOOD_ON] = np.int64(row[H_MOOD])
    g[G_MERCS_ON] = np.int64(row[H_MERCS])
    g[G_INF_COST] = np.int64(row[H_INFLUENCE_COST])
    g[G_MERC_COST] = np.int64(row[H_MERC_COST])
    g[G_TAX_HALF] = np.int64(row[H_TAX_HALF])
    g[G_REMOVE_VOTES] = np.int64(row[H_REMOVE_VOTES])
    g[G_COUNCIL_VOTES] = np.int64(row[H_COUNCIL_VOTES])
    g[G_MAX_TURNS] = np.int64(row[H_MAX_TURNS])
    g[G_VICTORY] = -1
    g[G_REP] = -1
    for p in range(n_players):
        pl[p, P_COINS] = g[G_START_COINS]
        pl[p, P_SUPPLY] = g[G_TOKENS]
        pl[p, P_POLICY] = np.int64(row[H_POLICY + p])
    for li in range(N_LANDS):
        land[li, L_SIZE] = np.int64(row[H_LANDS + 4 * li])
        land[li, L_CIV] = np.int64(row[H_LANDS + 4 * li + 1])
        land[li, L_SOL] = np.int64(row[H_LANDS + 4 * li + 2])
        land[li, L_EFFECT] = np.int64(row[H_LANDS + 4 * li + 3])
    for s in range(N_SEATS):
        g[G_HOLDER0 + s] = -1
    for c in range(N_CHARS):
        ch[c, C_TRAITS] = np.int64(row[H_CHARS + 2 * c])
        ch[c, C_SEAT] = np.int64(row[H_CHARS + 2 * c + 1])
        ch[c, C_LOT] = 0
        if ch[c, C_SEAT] >= 0:
            g[G_HOLDER0 + ch[c, C_SEAT]] = c
    for i in range(MAX_LAWS):
        for j in range(5):
            law[i, j] = np.int64(row[H_LAWS + 5 * i + j])
        law[i, 5] = -1
    for _ in range(np.int64(row[H_START_TOKENS])):
        for p in range(n_players):
            if pl[p, P_SUPPLY] == 0:
                continue
            n = 0
            for col in range(N_LANDS + N_CHARS):
                if col >= N_LANDS and ch[col - N_LANDS, C_SEAT] < 0:
                    continue
                mv[n, 0] = MV_LAND_TOKEN if col < N_LANDS else MV_CHAR_TOKEN
                mv[n, 1] = col
                if pl[p, P_POLICY] == 1:
                    score[n] = _token_delta(tok, g, ch, p, col, 1, tied)
                n += 1
            i = _choose(st, pl, p, n, score)
            _give_tokens(tok, pl, p, mv[i, 1], 1)
            if check_victory(tok, g, land, ch):
                return


@kernel
def _audit(tok, pl, g, ch, land, card):
    if g[G_CHECK] == 1:
        g[G_VIOLATIONS] += violations(tok, pl, g, ch, land, card)


@kernel
def play_game(
    row,
    st,
    tok,
    pl,
    g,
    ch,
    land,
    law,
    card,
    mv,
    score,
    tied,
    cand,
    votes,
    order,
    owner,
    contest,
    decl,
    check,
):
    """One whole game from ``st``'s stream; the result is left in ``g`` (and the position)."""
    setup(row, st, tok, pl, g, ch, land, law, card, mv, score, tied)
    g[G_CHECK] = check
    _audit(tok, pl, g, ch, land, card)
    max_turns = g[G_MAX_TURNS]
    for t in range(1, max_turns + 1):
        if g[G_DONE] == 1:
            break
        g[G_TURN] = t
        if g[G_MERCS_ON] == 1:
            reveal_step(st, tok, pl, g, ch, land, card, mv, score, tied, cand, votes)
            _audit(tok, pl, g, ch, land, card)
            if g[G_DONE] == 1:
                break
        income_phase(st, tok, pl, g, ch, land, mv, score, tied, owner, contest)
        _audit(tok, pl, g, ch, land, card)
        spending_phase(st, tok, pl, g, ch, land, card, mv, score, tied)
        _audit(tok, pl, g, ch, land, card)
        if g[G_DONE] == 1:
            break
        actions_phase(
            st, tok, pl, g, ch, land, law, card, mv, score, tied, cand, votes, order, decl
        )
        _audit(tok, pl, g, ch, land, card)
        if g[G_DONE] == 1:
            break
        tax_phase(tok, pl, g, land, owner, contest, tied)
        _audit(tok, pl, g, ch, land, card)
        if check_victory(tok, g, land, ch):
            break
    if g[G_DONE] == 0:
        g[G_VICTORY] = V_DRAW
        g[G_WINMASK] = 0
        g[G_TURN] = max_turns


@kernel
def game_values(g, out):
    """The metric values of a finished game, in the order of metrics()."""
    n_players = g[G_PLAYERS]
    winners = 0
    for p in range(n_players):
        winners += (g[G_WINMASK] >> p) & 1
    for p in range(n_players):
        out[p] = WIN_SCALE // winners if (g[G_WINMASK] >> p) & 1 else 0
    m = n_players
    for v in range(5):
        out[m + v] = 1 if g[G_VICTORY] == v else 0
    m += 5
    out[m] = g[G_TURN]
    out[m + 1] = g[G_LAWS_PASSED]
    out[m + 2] = g[G_KILLED]
    m += 3
    for k in range(5):
        out[m + k] = g[G_MERC0 + k]
    m += 5
    out[m] = g[G_CONTESTED]
    m += 1
    for k in range(N_GAPS):
        out[m + k] = g[G_GAP0 + k]


@kernel
def _buffers_play(row, key, trial, check, out):
    st = np.zeros(1, dtype=np.uint64)
    st[0] = trial_state(key, trial)
    tok = np.zeros((MAX_PLAYERS, N_LANDS + N_CHARS), dtype=np.int64)
    pl = np.zeros((MAX_PLAYERS, 3), dtype=np.int64)
    g = np.zeros(G_SIZE, dtype=np.int64)
    ch = np.zeros((N_CHARS, 3), dtype=np.int64)
    land = np.zeros((N_LANDS, 4), dtype=np.int64)
    law = np.zeros((MAX_LAWS, 6), dtype=np.int64)
    card = np.zeros((MAX_CARDS, 6), dtype=np.int64)
    mv = np.zeros((MAX_MOVES, 4), dtype=np.int64)
    score = np.zeros(MAX_MOVES, dtype=np.int64)
    tied = np.zeros(MAX_PLAYERS, dtype=np.int64)
    cand = np.zeros(N_CHARS + 1, dtype=np.int64)
    votes = np.zeros(N_CHARS + 1, dtype=np.int64)
    order = np.zeros(N_CHARS, dtype=np.int64)
    owner = np.zeros(N_LANDS, dtype=np.int64)
    contest = np.zeros((N_LANDS, MAX_PLAYERS), dtype=np.int64)
    decl = np.zeros((5, MAX_PLAYERS), dtype=np.int64)
    play_game(
        row,
        st,
        tok,
        pl,
        g,
        ch,
        land,
        law,
        card,
        mv,
        score,
        tied,
        cand,
        votes,
        order,
        owner,
        contest,
        decl,
        check,
    )
    game_values(g, out)
    return g[G_VIOLATIONS]


@kernel
def council_game_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = np.int64(packed[0, H_PLAYERS]) + N_METRICS_BASE
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    out = np.zeros(n_metrics, dtype=np.int64)
    end = first_trial + n_trials
    for start in range(first_trial, end, BLOCK):
        m = min(BLOCK, end - start)
        for i in range(m):
            for v in range(n_variants):
                _buffers_play(packed[v], key, start + i, 0, out)
                for k in range(n_metrics):
                    values[v, k, i] = out[k]
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


@kernel
def invariant_violations(row, key, first_trial, n_trials):
    """Games first..first+n-1 with every invariant audited after each phase: total violations."""
    out = np.zeros(np.int64(row[H_PLAYERS]) + N_METRICS_BASE, dtype=np.int64)
    bad = 0
    for t in range(first_trial, first_trial + n_trials):
        bad += _buffers_play(row, key, t, 1, out)
    return bad


def play_one(p: CouncilGameParams, key: int, trial: int) -> list[int]:
    """The metric values of one game (a convenience for tests and notebooks)."""
    out = np.zeros(p.players + N_METRICS_BASE, dtype=np.int64)
    _buffers_play(pack(p), np.uint64(key), np.int64(trial), np.int64(0), out)
    return [int(x) for x in out]


PROCEDURE = Procedure(
    name="council.game",
    title="The council game: the whole political game",
    rules="RULES.md §3",
    params_model=CouncilGameParams,
    metrics=metrics,
    pack=pack,
    kernel=council_game_kernel,
    exact=None,
    example={"players": 4},
    notes=(
        "policies: random (uniform over legal moves) or greedy (most own priority, lot ties)",
        "Land powers and most non-voting traits are printed but not played (README: council game)",
        "remove_councillor_votes: the seed says both 4 and 5 of 7; default 5, counted as a gap",
    ),
)
