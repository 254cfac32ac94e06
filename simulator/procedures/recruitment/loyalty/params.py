"""Parameters of ``recruitment.loyalty`` (their packing into the kernel's row: packing.py).

The ownership check's rule cases are knobs (``multi_tie``, ``zero_tokens``, ``equipment``,
``removed_tokens``: cases.py), each unset by default, meaning "as the revision sets it"; a
``revision`` is a named preset of them, the rulebook's three or a scenario's own (``revisions``).
Every reading of the rulebook that is not certain is a knob here with the rulebook's reading as its
default (Recruitment rules; the procedure's ``assumptions`` declare them): where lost tokens go
(``returned_tokens``), how they come back (``bank_refill``, invented), who places first
(``first_player``, invented), how many tokens a round (``tokens_per_round``: no cap), whether a
pass is final (``passing``) and who wins (``win``, invented: the rulebook is a fragment without a
win condition).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from simulator.agents.spec import Policies, seat_agents
from simulator.procedures.base import Params
from simulator.procedures.recruitment.loyalty.cases import (
    BY_NAME,
    CASE_NAMES,
    REVISIONS,
    Equipment,
    MultiTie,
    RemovedTokens,
    ZeroTokens,
)

MAX_PLAYERS = 6
MAX_CARDS = 64
MAX_ROUNDS = 100

#: Most presets a scenario may name under ``revisions``; longest name of one.
MAX_PRESETS = 16
MAX_PRESET_NAME = 40
#: ``tokens_per_round`` packed for "no cap": more than any supply can hold.
NO_CAP = 1_000_000

#: The rungs of the skill ladder this game's kernel plays (rollout and mcts: simulator/agents/).
SUPPORTED_AGENTS = ("random", "greedy", "rollout", "mcts")

RETURNED_TOKENS = ("bank", "supply")
FIRST_PLAYER = ("rotate", "fixed")
PASSING = ("until_all_pass", "final")
WIN_RULES = ("most_characters", "most_characters_then_loyalty")


class Character(Params):
    name: str = Field(default="", max_length=80, description="the character's name (reports only)")
    wage: int = Field(default=1, ge=0, le=100, description="gold paid to it every maintenance")
    base_loyalty: int = Field(
        default=0,
        ge=0,
        le=20,
        description="printed base loyalty: added to an empire's tokens once they reach it "
        "(base_loyalty_counts: at_its_number), or to its home empire's once it has one "
        "(at_home_token)",
    )
    home: int = Field(
        default=0,
        ge=0,
        le=MAX_PLAYERS,
        description="seat of its home empire, 0 for none (read only by base_loyalty_counts: "
        "at_home_token)",
    )
    equipped: int = Field(
        default=0, ge=0, le=20, description="equipped cards on it (discarded on removal in 1.2)"
    )


class Span(Params):
    low: int = Field(ge=0, le=100, description="smallest value")
    high: int = Field(ge=0, le=100, description="largest value (uniform between low and high)")

    @field_validator("high")
    @classmethod
    def _high_not_below_low(cls, v: int, info: ValidationInfo) -> int:
        low = info.data.get("low")
        if low is not None and v < low:
            raise ValueError(f"must be at least low ({low})")
        return v


def _dist_kind(v: Any) -> str:
    return "span" if isinstance(v, dict | Span) else "fixed"


#: Tags of the unions below and of ``Policies``: pydantic puts them in error locations, where they
#: would not match the YAML path, so LoyaltyParams drops them.
UNION_TAGS = ("fixed", "span", "cards", "generator", "one", "per_seat", "name", "spec")

Dist = Annotated[
    Annotated[int, Tag("fixed")] | Annotated[Span, Tag("span")],
    Discriminator(_dist_kind),
    Field(description="a fixed value, or {low, high} for a uniform integer per card"),
]


def span_of(d: int | Span) -> tuple[int, int]:
    return (d, d) if isinstance(d, int) else (d.low, d.high)


class DeckGenerator(Params):
    count: int = Field(ge=1, le=MAX_CARDS, description="characters in the deck")
    wage: Dist = Field(default=1, description="wage of each character")
    base_loyalty: Dist = Field(default=0, description="printed base loyalty of each character")
    home: Dist = Field(
        default=0,
        description="home seat of each character, 0 for none (base_loyalty_counts: "
        "at_home_token only)",
    )
    equipped: Dist = Field(default=0, description="equipped cards on each character")

    @field_validator("wage", "base_loyalty", "home", "equipped")
    @classmethod
    def _non_negative(cls, v: int | Span) -> int | Span:
        if isinstance(v, int) and v < 0:
            raise ValueError("must be at least 0")
        return v


def _deck_kind(v: Any) -> str:
    return "cards" if isinstance(v, list | tuple) else "generator"


Deck = Annotated[
    Annotated[list[Character], Tag("cards")] | Annotated[DeckGenerator, Tag("generator")],
    Discriminator(_deck_kind),
]


def _entry_error(loc: tuple[str | int, ...], message: str, value: Any) -> ValidationError:
    """A validation error located at ``loc`` inside the field being validated."""
    return ValidationError.from_exception_data(
        "LoyaltyParams",
        [InitErrorDetails(type=PydanticCustomError("value_error", message), loc=loc, input=value)],
    )


def _case_field(name: str) -> Any:
    return Field(default=None, description=BY_NAME[name].describe())


class Preset(Params):
    """A revision of the scenario's own: the revision it starts from and the cases it changes."""

    based_on: str = Field(
        max_length=MAX_PRESET_NAME,
        description="the revision it changes: 1.0, 1.1, 1.2 or another of `revisions`",
    )
    description: str = Field(default="", max_length=300, description="what it changes (reports)")
    multi_tie: MultiTie | None = _case_field("multi_tie")
    zero_tokens: ZeroTokens | None = _case_field("zero_tokens")
    equipment: Equipment | None = _case_field("equipment")
    removed_tokens: RemovedTokens | None = _case_field("removed_tokens")


def _name_problem(name: str) -> str | None:
    if not name or len(name) > MAX_PRESET_NAME:
        return f"must be 1 to {MAX_PRESET_NAME} characters"
    if not all(ch.isalnum() or ch in "._-" for ch in name):
        return "must be letters, digits, '.', '_', '-'"
    if name in REVISIONS:
        return f"is a revision of the rulebook ({', '.join(REVISIONS)}); give yours another name"
    return None


#: The default deck (invented: the rule prints no card; assumptions.py declares it).
DEFAULT_DECK = DeckGenerator(
    count=30,
    wage=Span(low=0, high=2),
    base_loyalty=Span(low=0, high=2),
    equipped=Span(low=0, high=2),
)


class LoyaltyParams(Params):
    players: int = Field(default=4, ge=2, le=MAX_PLAYERS, description="empires in the game")
    rounds: int = Field(default=10, ge=1, le=MAX_ROUNDS, description="rounds played")
    revision: str = Field(
        default="1.0",
        max_length=MAX_PRESET_NAME,
        description="rule revision: a preset of the rule cases multi_tie, zero_tokens, equipment "
        "and removed_tokens — '1.0', '1.1', '1.2' (the rulebook's) or a name of `revisions`; a "
        "case set here overrides the revision's",
    )
    revisions: dict[str, Preset] = Field(
        default_factory=dict,
        max_length=MAX_PRESETS,
        description="revisions of your own: name -> {based_on: a revision, and the cases it "
        "changes}, e.g. {'1.3': {based_on: '1.2', multi_tie: first_placed}}",
    )
    multi_tie: MultiTie | None = _case_field("multi_tie")
    zero_tokens: ZeroTokens | None = _case_field("zero_tokens")
    equipment: Equipment | None = _case_field("equipment")
    removed_tokens: RemovedTokens | None = _case_field("removed_tokens")
    ownership: str | None = Field(
        default=None,
        max_length=1000,
        description="your own ownership check, `path/to/file.py:NAME` (relative to the scenario "
        "file): a function `NAME(loyalty, tokens, owner) -> int` giving the seat that holds each "
        "owned character after maintenance ③, or -1 to remove it (docs/recruitment.md, 'Your own "
        "ownership check'); it replaces the multi_tie and zero_tokens cases, equipment and "
        "removed_tokens still apply to a character it removes",
    )
    deck: Deck = Field(
        default=DEFAULT_DECK,
        description="the character deck: a list of characters, or a generator {count, ...} "
        "(invented: 30 cards, wage 0-2, base loyalty 0-2, equipped 0-2, no home)",
    )
    shuffle_deck: bool = Field(
        default=True,
        description="shuffle the deck before the first deal; false: deal it in the order given "
        "(top card last) until a card is shuffled back into it (recruitment phase ③⑶ shuffles "
        "the whole deck then)",
    )
    base_loyalty_counts: Literal["at_its_number", "at_home_token"] = Field(
        default="at_its_number",
        description="when a card's printed base loyalty counts (recruitment phase ②): "
        "at_its_number, for an empire once its tokens on the card reach that number (rulebook); "
        "at_home_token, for the card's home empire (deck data) once it has one token there",
    )
    tokens_per_empire: int = Field(
        default=20,
        ge=0,
        le=500,
        description="invented: influence tokens in each empire's finite supply",
    )
    tokens_per_round: int | None = Field(
        default=None,
        ge=0,
        le=100,
        description="most tokens an empire may place in one recruitment phase; none: no limit "
        "(Recruitment rules, recruitment phase ②: placing goes on until no empire needs to "
        "place more). A cap (3 before) is an invention",
    )
    starting_gold: int = Field(
        default=3, ge=0, le=10_000, description="invented: gold of each empire at the start"
    )
    seat_gold: list[Annotated[int, Field(ge=0, le=10_000)]] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS,
        description="house rule for balancing: extra starting gold per seat, seat 1 first "
        "(empty: none; else one entry per seat) — what `sim tune` can search to balance seats",
    )
    income: int = Field(
        default=2,
        ge=0,
        le=1_000,
        description="assumption: gold each empire receives at the start of a round",
    )
    loyalty_die: int = Field(
        default=6, ge=2, le=100, description="assumption: sides of the black loyalty-check die"
    )
    returned_tokens: Literal["bank", "supply"] = Field(
        default="bank",
        description="where lost tokens go (a failed loyalty check, an unpaid wage): the bank "
        "(rulebook), or straight back to their empire's supply (the old reading); removed tokens "
        "are the `removed_tokens` case",
    )
    bank_refill: int = Field(
        default=0,
        ge=0,
        le=100,
        description="assumption: tokens of its own an empire takes back from the bank at the "
        "start of each round (the fragment does not say how; default none)",
    )
    first_player: Literal["rotate", "fixed"] = Field(
        default="rotate",
        description="invented (the rulebook does not say who places first): rotates each round "
        "(seat 1 in round 1, seat 2 in round 2, ...), or seat 1 every round",
    )
    passing: Literal["until_all_pass", "final"] = Field(
        default="until_all_pass",
        description="placement goes round one token a turn until every empire passes in "
        "succession (rulebook: 'only once no player needs to place more'), or a pass is final for "
        "the round",
    )
    wage_order: Literal["loyal_first", "cheap_first"] = Field(
        default="loyal_first",
        description="invented (maintenance ② does not say which characters an empire short of "
        "gold pays): by descending loyalty, then ascending wage; or cheap_first, by ascending "
        "wage, then descending loyalty",
    )
    win: Literal["most_characters", "most_characters_then_loyalty"] = Field(
        default="most_characters",
        description="assumption (the rulebook has no win condition): most characters after "
        "`rounds`, ties share the win; or ties broken by total loyalty of their characters",
    )
    policies: Policies = Field(
        default="random",
        description="the agent of every seat, or one per seat: random | greedy | rollout | mcts "
        "(docs/agents.md)",
    )
    debug: bool = Field(
        default=False,
        description="check token, gold and card conservation every round (invariant_violations)",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _locate_deck_errors(cls, data: Any, handler: Any) -> Any:
        # Drop union tags from error locations so that `deck.3.wage` names the YAML entry.
        try:
            return handler(data)
        except ValidationError as e:
            errors: list[InitErrorDetails] = []
            for err in e.errors():
                loc = tuple(x for x in err["loc"] if x not in UNION_TAGS)
                errors.append(
                    InitErrorDetails(
                        type=PydanticCustomError(
                            err["type"], err["msg"].replace("{", "(").replace("}", ")")
                        ),
                        loc=loc,
                        input=err["input"],
                    )
                )
            raise ValidationError.from_exception_data(e.title, errors) from None

    @field_validator("revision", mode="before")
    @classmethod
    def _revision_is_a_word(cls, v: Any) -> Any:
        if isinstance(v, int | float) and not isinstance(v, bool):
            raise ValueError(
                f"must be a revision's name: write '{v}' in quotes (unquoted, YAML reads {v} as "
                "a number)"
            )
        return v

    @field_validator("ownership")
    @classmethod
    def _ownership_file(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return v
        from simulator.userfiles import is_ref

        if not is_ref(v):
            raise ValueError(f"{v!r} is not path/to/file.py:NAME (a function in your Python file)")
        path, _, name = v.rpartition(":")
        folder = (info.context or {}).get("base_dir")
        where = Path(path).expanduser()
        resolved = where if where.is_absolute() else Path(folder or ".") / where
        if not resolved.is_file():
            said = "" if where.is_absolute() else " (relative to the scenario file's folder)"
            raise ValueError(f"file {path} not found{said}")
        # Stored resolved, so that a run, a comparison of files from several folders and a
        # re-validated copy of the parameters all name the same file.
        return f"{resolved.resolve()}:{name}"

    @field_validator("revisions")
    @classmethod
    def _presets_resolve(cls, v: dict[str, Preset]) -> dict[str, Preset]:
        for name, preset in v.items():
            if why := _name_problem(name):
                raise _entry_error((name,), f"revision name {name!r} {why}", name)
            seen = [name]
            base = preset.based_on
            while base not in REVISIONS:
                if base not in v:
                    known = ", ".join([*REVISIONS, *v])
                    raise _entry_error(
                        (name, "based_on"),
                        f"revision {base!r} is neither the rulebook's nor one of `revisions` "
                        f"({known})",
                        preset.based_on,
                    )
                if base in seen:
                    raise _entry_error(
                        (name, "based_on"),
                        f"revisions based on one another in a circle: {' -> '.join(seen)} -> "
                        f"{base}; base one of them on 1.0, 1.1 or 1.2",
                        preset.based_on,
                    )
                seen.append(base)
                base = v[base].based_on
        return v

    @model_validator(mode="after")
    def _revision_is_known(self) -> LoyaltyParams:
        if self.revision not in REVISIONS and self.revision not in self.revisions:
            own = (
                f", or one of `revisions` ({', '.join(self.revisions)})"
                if self.revisions
                else (", or a name you give under `revisions`")
            )
            raise _entry_error(
                ("revision",),
                f"unknown revision {self.revision!r}: the rulebook's are "
                f"{', '.join(repr(r) for r in REVISIONS)}{own}",
                self.revision,
            )
        return self

    def rule_cases(self) -> dict[str, str]:
        """Every case's option in force: set here, else by the revision (its own presets
        followed down to the rulebook's)."""
        out: dict[str, str] = {}
        name = self.revision
        while name not in REVISIONS:
            preset = self.revisions[name]
            for case in CASE_NAMES:
                if case not in out and getattr(preset, case) is not None:
                    out[case] = getattr(preset, case)
            name = preset.based_on
        for case in CASE_NAMES:
            out.setdefault(case, REVISIONS[name][case])
        for case in CASE_NAMES:
            if getattr(self, case) is not None:
                out[case] = getattr(self, case)
        return {case: out[case] for case in CASE_NAMES}

    @field_validator("deck")
    @classmethod
    def _deck_fits_players(
        cls, v: list[Character] | DeckGenerator, info: ValidationInfo
    ) -> list[Character] | DeckGenerator:
        players = info.data.get("players")
        if players is None:
            return v
        need = players + 1
        if isinstance(v, list):
            if len(v) > MAX_CARDS:
                raise ValueError(f"must hold at most {MAX_CARDS} characters (got {len(v)})")
            if len(v) < need:
                raise ValueError(
                    f"must hold at least players + 1 ({need}) characters to fill the "
                    f"recruitment zone (got {len(v)}); add characters or lower players"
                )
            for i, c in enumerate(v):
                if c.home > players:
                    label = f" ({c.name})" if c.name else ""
                    raise _entry_error(
                        (i, "home"),
                        f"character {i}{label}: home empire {c.home} is beyond the {players} "
                        f"players; use a seat 1..{players} or 0 for none",
                        c.home,
                    )
        else:
            if v.count < need:
                raise _entry_error(
                    ("count",),
                    f"must be at least players + 1 ({need}) to fill the recruitment zone",
                    v.count,
                )
            if span_of(v.home)[1] > players:
                raise _entry_error(
                    ("home",),
                    f"home seats must be at most players ({players}); 0 means no home",
                    v.home,
                )
        return v

    @field_validator("seat_gold")
    @classmethod
    def _one_gold_per_seat(cls, v: list[int], info: ValidationInfo) -> list[int]:
        players = info.data.get("players")
        if v and players is not None and len(v) != players:
            raise ValueError(f"give one entry per seat ({players}) or none (got {len(v)})")
        return v

    @field_validator("policies")
    @classmethod
    def _agents_this_game_plays(cls, v: Any, info: ValidationInfo) -> Any:
        players = info.data.get("players")
        if players is None:
            return v
        for seat, spec in enumerate(seat_agents(v, players), start=1):
            if spec.agent not in SUPPORTED_AGENTS:
                where = f"seat {seat}: " if isinstance(v, list | tuple) else ""
                raise ValueError(
                    f"{where}agent {spec.agent!r} is not available for recruitment.loyalty yet "
                    f"(it plays {' and '.join(SUPPORTED_AGENTS)}; rollout and mcts arrive with "
                    "the agents of issue 13)"
                )
        return v

    def seat_agent_names(self) -> list[str]:
        """The rung of each seat's agent, seat 1 first."""
        return [a.agent for a in seat_agents(self.policies, self.players)]
