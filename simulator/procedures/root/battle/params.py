"""Root battle: the parameters (each side's pieces and faction), the metrics and the packed row.

See :mod:`simulator.procedures.root.battle` for the rules.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

from simulator.layout import Layout
from simulator.procedures.base import Metric, Params

Faction = Literal[
    "marquise", "eyrie", "alliance", "vagabond", "lizards", "riverfolk", "duchy", "corvids", "other"
]
FACTIONS: tuple[str, ...] = (
    "marquise",
    "eyrie",
    "alliance",
    "vagabond",
    "lizards",
    "riverfolk",
    "duchy",
    "corvids",
    "other",
)
EYRIE, ALLIANCE, VAGABOND, LIZARDS, CORVIDS = (
    FACTIONS.index(f) for f in ("eyrie", "alliance", "vagabond", "lizards", "corvids")
)
MARQUISE, RIVERFOLK, DUCHY = (FACTIONS.index(f) for f in ("marquise", "riverfolk", "duchy"))

MAX_WARRIORS = 30
MAX_BUILDINGS = 3
MAX_TOKENS = 8
MAX_SWORDS = 6
MAX_ITEMS = 20
MAX_EXTRA_HITS = 5
MAX_AMBUSH_CARDS = 5
MAX_BATTLES = 10
MAX_MERCENARIES = 15
MAX_ALLIES = 15

#: control_after codes (ALLY: the warriors allied to an attacking Vagabond rule).
ATTACKER, DEFENDER, NOBODY, ALLY = 0, 1, 2, 3


class Side(Params):
    warriors: int = Field(default=0, ge=0, le=MAX_WARRIORS, description="warriors in the clearing")
    buildings: int = Field(
        default=0, ge=0, le=MAX_BUILDINGS, description="buildings in the clearing"
    )
    tokens: int = Field(default=0, ge=0, le=MAX_TOKENS, description="tokens in the clearing")
    faction: Faction = Field(default="other", description="the faction (its battle rules apply)")
    extra_hits: int = Field(
        default=0,
        ge=0,
        le=MAX_EXTRA_HITS,
        description="extra hits this side deals in every battle (cards such as Brutal Tactics); "
        "they ignore the hit cap",
    )
    vagabond_swords: int = Field(
        default=0,
        ge=0,
        le=MAX_SWORDS,
        description="a Vagabond's undamaged swords: its hit cap (0 for other factions)",
    )
    vagabond_items: int = Field(
        default=0,
        ge=0,
        le=MAX_ITEMS,
        description="a Vagabond's other undamaged items, damaged before its swords",
    )
    removes_first: Literal["tokens", "buildings"] = Field(
        default="tokens",
        description="assumption: after its warriors, this side removes its tokens before its "
        "buildings (tokens do not count for control); the attacker's order is the defender's "
        "choice unless removal_chooser: owner",
    )

    @field_validator("vagabond_swords", "vagabond_items")
    @classmethod
    def _only_a_vagabond_has_items(cls, v: int, info: ValidationInfo) -> int:
        if v and info.data.get("faction") != "vagabond":
            raise ValueError("only a Vagabond has items: set faction: vagabond or use 0")
        return v

    @model_validator(mode="after")
    def _vagabond_pieces(self) -> Side:
        if self.faction == "vagabond" and (self.warriors or self.buildings or self.tokens):
            raise ValueError(
                "a Vagabond has no warriors, buildings or tokens (its pawn is not a warrior): "
                "use 0 and give vagabond_swords"
            )
        return self


class Attacker(Side):
    counter_ambush: int = Field(
        default=0,
        ge=0,
        le=MAX_AMBUSH_CARDS,
        description="ambush cards the attacker holds to cancel the defender's ambushes (INVENTED "
        "like the ambush's effect: the published game's card, not in the Root rules)",
    )
    hostile: bool = Field(
        default=False,
        description="an attacking Vagabond: the defender is already hostile (+1 VP per piece "
        "removed); it becomes hostile after a battle that removes one of its warriors",
    )
    vagabond_exhausted_swords: int = Field(
        default=0,
        ge=0,
        le=MAX_SWORDS,
        description="an attacking Vagabond's undamaged swords already exhausted; it exhausts a "
        "ready sword to start each battle (they still count for its hit cap)",
    )
    allied_warriors: int = Field(
        default=0,
        ge=0,
        le=MAX_ALLIES,
        description="an attacking Vagabond's allied (coalition) warriors battling with it: they "
        "add to its hit cap and share the hits it takes",
    )
    mercenaries: int = Field(
        default=0,
        ge=0,
        le=MAX_MERCENARIES,
        description="Riverfolk warriors hired as mercenaries: they battle and rule as the "
        "attacker's warriors; hits on warriors are split evenly, the buyer taking the odd one",
    )

    @model_validator(mode="after")
    def _faction_helpers(self) -> Attacker:
        vagabond = self.faction == "vagabond"
        if self.vagabond_exhausted_swords and not vagabond:
            raise ValueError("only a Vagabond exhausts swords: set faction: vagabond or use 0")
        if vagabond and self.vagabond_exhausted_swords >= self.vagabond_swords:
            raise ValueError(
                "an attacking Vagabond exhausts a ready sword to battle: "
                f"vagabond_exhausted_swords must be below vagabond_swords "
                f"(got {self.vagabond_exhausted_swords} of {self.vagabond_swords})"
            )
        if self.allied_warriors and not vagabond:
            raise ValueError("only an attacking Vagabond battles with allied warriors")
        if self.mercenaries and (vagabond or self.faction == "riverfolk"):
            raise ValueError(
                "mercenaries are Riverfolk warriors bought by another faction; the Vagabond "
                "cannot buy them"
            )
        return self


class Defender(Side):
    ambush: int = Field(
        default=0,
        ge=0,
        le=MAX_AMBUSH_CARDS,
        description="ambush cards the defender holds (it plays one in each battle while it can)",
    )
    ambush_hits: int = Field(
        default=2,
        ge=0,
        le=MAX_EXTRA_HITS,
        description="INVENTED (from the published game; the FAQ names the ambush without its "
        "effect): hits an uncancelled ambush deals the attacker before the roll",
    )
    removes_attackers_first: Literal["buildings", "tokens"] = Field(
        default="buildings",
        description="with removal_chooser: defender (the rulebook, Root rules §1.8), what the "
        "defender removes first of the attacker's buildings and tokens after its warriors "
        "(assumption: buildings, which count for control)",
    )
    corvid_plot_face_down: bool = Field(
        default=False,
        description="Corvids defending with a face-down plot (their token in the clearing; one "
        "plot per clearing): +1 extra hit while it stands",
    )


class BattleParams(Params):
    attacker: Attacker = Field(description="the faction that battles")
    defender: Defender = Field(description="the faction battled in the clearing")
    lizard_garden: bool = Field(
        default=False,
        description="a Lizard garden (one of the Lizards' buildings, removed last) is in the "
        "clearing: the Lizards rule it while it stands",
    )
    battles: int = Field(
        default=1, ge=1, le=MAX_BATTLES, description="battles the attacker fights there in a row"
    )
    removal_chooser: Literal["defender", "owner"] = Field(
        default="defender",
        description="who chooses which pieces go when there is a choice: the defending side "
        "(the rulebook, Root rules §1.8 '由防御方选择': its own pieces in its removes_first "
        "order, the attacker's in removes_attackers_first) or each piece's owner (removes_first "
        "on each side)",
    )
    stop_when_cleared: bool = Field(
        default=True,
        description="stop the campaign once the defender is defenceless (no warriors; a "
        "Vagabond: no undamaged sword); false keeps battling its buildings and tokens",
    )
    rolled_hits: str | None = Field(
        default=None,
        max_length=1000,
        description="your own rolled-hits step, `path/to/file.py:NAME` (relative to the scenario "
        "file): a function `NAME(roll, cap, attacking) -> int` giving the hits a side deals from "
        "the die it took and its hit cap (attacking: 1 for the attacker, 0 for the defender); "
        "the rulebook's is min(roll, cap) (Root rules §1.5; docs/own-rules.md, 'A step of Root's "
        "battle'); extra hits are added after it",
    )

    @field_validator("rolled_hits")
    @classmethod
    def _rolled_hits_file(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return v
        from simulator.userfiles.steps import resolve_ref

        return resolve_ref(v, (info.context or {}).get("base_dir"))

    @field_validator("attacker")
    @classmethod
    def _attacker_can_fight(cls, a: Attacker) -> Attacker:
        if a.faction == "vagabond":
            if a.vagabond_swords < 1:
                raise ValueError(
                    "an attacking Vagabond needs an undamaged sword to battle: "
                    "set vagabond_swords to at least 1"
                )
        elif a.warriors + a.mercenaries < 1:
            raise ValueError("the attacker needs at least one warrior in the clearing to battle")
        _one_plot_per_clearing(a)
        return a

    @field_validator("defender")
    @classmethod
    def _defender_is_there(cls, d: Defender, info: ValidationInfo) -> Defender:
        if d.faction != "vagabond" and d.warriors + d.buildings + d.tokens == 0:
            raise ValueError(
                "the defender has nothing in the clearing: give it warriors, buildings or tokens"
            )
        a = info.data.get("attacker")
        if a is not None and a.faction == d.faction and d.faction not in ("other", "vagabond"):
            raise ValueError(f"a faction cannot battle itself ({d.faction}): change one faction")
        if d.corvid_plot_face_down and (d.faction != "corvids" or d.tokens < 1):
            raise ValueError(
                "a face-down plot needs faction: corvids with at least one token (the plot)"
            )
        _one_plot_per_clearing(d)
        if a is not None and a.mercenaries and d.faction == "riverfolk":
            raise ValueError(
                "assumption: mercenaries (Riverfolk warriors) do not battle the Riverfolk: "
                "use mercenaries: 0 or another defender"
            )
        return d

    @field_validator("lizard_garden")
    @classmethod
    def _garden_needs_lizards(cls, v: bool, info: ValidationInfo) -> bool:
        if not v:
            return v
        sides = [info.data.get("attacker"), info.data.get("defender")]
        if not any(s is not None and s.faction == "lizards" and s.buildings >= 1 for s in sides):
            raise ValueError(
                "a Lizard garden needs one side with faction: lizards and at least "
                "one building (the garden)"
            )
        return v


def _one_plot_per_clearing(s: Side) -> None:
    """A Corvid side's tokens in one clearing are its plots, at most one per clearing."""
    if s.faction == "corvids" and s.tokens > 1:
        raise ValueError(
            f"one plot per clearing: Corvids have at most 1 token (plot) here (got {s.tokens})"
        )


#: The metric row the kernel writes, by name (the house test checks it against metrics()).
METRICS = Layout(
    "attacker_warriors_lost",
    "defender_warriors_lost",
    "buildings_removed",
    "tokens_removed",
    "attacker_vp",
    "defender_cleared",
    "ambush_hits",
    "control_after",
    "defender_vp",
    "battles_fought",
    "acolytes",
    "attacker_items_damaged",
    "defender_items_damaged",
    "mercenaries_lost",
    "allied_warriors_lost",
    "ally_turned_hostile",
    "marquise_warriors_removed",
    "alliance_bases_removed",
    "sympathy_removed",
    "trade_posts_removed",
    "gardens_removed",
    "duchy_buildings_removed",
)
A_LOST = METRICS.at("attacker_warriors_lost")
D_LOST = METRICS.at("defender_warriors_lost")
BUILDINGS = METRICS.at("buildings_removed")
TOKENS = METRICS.at("tokens_removed")
A_VP = METRICS.at("attacker_vp")
CLEARED = METRICS.at("defender_cleared")
AMBUSH_HITS = METRICS.at("ambush_hits")
CONTROL = METRICS.at("control_after")
D_VP = METRICS.at("defender_vp")
FOUGHT = METRICS.at("battles_fought")
ACOLYTES = METRICS.at("acolytes")
A_DAMAGED = METRICS.at("attacker_items_damaged")
D_DAMAGED = METRICS.at("defender_items_damaged")
MERCS_LOST = METRICS.at("mercenaries_lost")
ALLIES_LOST = METRICS.at("allied_warriors_lost")
ALLY_HOSTILE = METRICS.at("ally_turned_hostile")
HOSPITALS = METRICS.at("marquise_warriors_removed")
BASES = METRICS.at("alliance_bases_removed")
SYMPATHY = METRICS.at("sympathy_removed")
TRADE_POSTS = METRICS.at("trade_posts_removed")
GARDENS = METRICS.at("gardens_removed")
DUCHY_BUILDINGS = METRICS.at("duchy_buildings_removed")
N_METRICS = METRICS.size


def metrics(p: BattleParams) -> list[Metric]:
    d = p.defender
    vp_max = 2 * (d.warriors + d.buildings + d.tokens)
    return [
        Metric(
            "attacker_warriors_lost",
            "distribution",
            "attacker warriors removed",
            max_value=p.attacker.warriors,
        ),
        Metric(
            "defender_warriors_lost",
            "distribution",
            "defender warriors removed",
            max_value=d.warriors,
        ),
        Metric("buildings_removed", "mean", "defender buildings removed"),
        Metric("tokens_removed", "mean", "defender tokens removed"),
        Metric(
            "attacker_vp",
            "distribution",
            "VP the attacker scores (buildings, tokens; a Vagabond's hostile pieces)",
            max_value=vp_max,
        ),
        Metric(
            "defender_cleared",
            "proportion",
            "the defender has no warriors, buildings or tokens left (never for a Vagabond)",
        ),
        Metric("ambush_hits", "mean", "attacker pieces removed or items damaged by ambushes"),
        Metric(
            "control_after",
            "distribution",
            "who rules the clearing afterwards: 0 attacker, 1 defender, 2 nobody, 3 the "
            "attacking Vagabond's allied warriors",
            max_value=3 if p.attacker.allied_warriors else 2,
        ),
        Metric(
            "defender_vp",
            "mean",
            "VP the defender scores (attacker buildings, tokens)",
            headline=False,
        ),
        Metric("battles_fought", "mean", "battles actually fought", headline=False),
        Metric(
            "acolytes",
            "mean",
            "Lizard defender warriors removed (they become acolytes)",
            headline=False,
        ),
        Metric(
            "attacker_items_damaged",
            "mean",
            "items (swords included) an attacking Vagabond had damaged",
            headline=False,
        ),
        Metric(
            "defender_items_damaged",
            "mean",
            "items (swords included) a defending Vagabond had damaged",
            headline=False,
        ),
        Metric("mercenaries_lost", "mean", "Riverfolk mercenaries removed", headline=False),
        Metric(
            "allied_warriors_lost",
            "mean",
            "warriors allied to an attacking Vagabond removed",
            headline=False,
        ),
        Metric(
            "ally_turned_hostile",
            "proportion",
            "an attacking Vagabond gave its allied warriors more hits than it took in a battle "
            "(it turns hostile to its ally, whose warriors stop battling with it)",
            headline=False,
        ),
        *FACTION_EFFECTS,
    ]


#: What a removal costs or gives a faction after the battle (Root rules §4.6, §6.7, §6.8, §9.6,
#: §10.4, §11.3): counted on either side, not played (the cards, supporters, officers, funds and
#: ministers are not in the battle's state).
FACTION_EFFECTS = (
    Metric(
        "marquise_warriors_removed",
        "mean",
        "Marquise warriors removed (ambushes included): field hospitals may return them to the "
        "Keep, one card per removal (§4.6; not played)",
        headline=False,
    ),
    Metric(
        "alliance_bases_removed",
        "mean",
        "Alliance bases (buildings) removed: each discards its supporters and half the "
        "officers (§6.7; not played)",
        headline=False,
    ),
    Metric(
        "sympathy_removed",
        "mean",
        "Alliance sympathy tokens removed: each an outrage, a card to the Alliance's supporters "
        "(§6.8; not played)",
        headline=False,
    ),
    Metric(
        "trade_posts_removed",
        "mean",
        "Riverfolk trade posts (tokens) removed: each goes to the box and halves the Riverfolk's "
        "funds (§9.6; not played)",
        headline=False,
    ),
    Metric(
        "gardens_removed",
        "mean",
        "Lizard gardens (buildings) removed: the Lizards discard a random card for each (§10.4; "
        "not played)",
        headline=False,
    ),
    Metric(
        "duchy_buildings_removed",
        "mean",
        "Duchy buildings removed: a removal of at least one returns the highest minister and "
        "discards a random card (§11.3; not played)",
        headline=False,
    ),
)


#: One side's columns of a packed row (``cards``: the defender's ambush cards, the attacker's
#: counter-ambush cards; ``ready``: a Vagabond's swords not yet exhausted).
SIDE = Layout(
    "warriors",
    "buildings",
    "tokens",
    "faction",
    "extra_hits",
    "swords",
    "items",
    "tokens_first",
    "cards",
    "ready",
    "mercenaries",
    "allies",
)
C_WARRIORS = SIDE.at("warriors")
C_BUILDINGS = SIDE.at("buildings")
C_TOKENS = SIDE.at("tokens")
C_FACTION = SIDE.at("faction")
C_EXTRA = SIDE.at("extra_hits")
C_SWORDS = SIDE.at("swords")
C_ITEMS = SIDE.at("items")
C_TOKENS_FIRST = SIDE.at("tokens_first")
C_CARDS = SIDE.at("cards")
C_READY = SIDE.at("ready")
C_MERCS = SIDE.at("mercenaries")
C_ALLIES = SIDE.at("allies")

#: A packed row: the attacker's side, the defender's, then what belongs to the battle.
PACKED = Layout(
    ("attacker", SIDE.size),
    ("defender", SIDE.size),
    "corvid_plot",
    "lizard_garden",
    "battles",
    "stop_when_cleared",
    "hostile",
    "ambush_hits",
    "user_step",
    "step_address",
)
ATTACKER_SIDE = PACKED.at("attacker")
DEFENDER_SIDE = PACKED.at("defender")
P_CORVID_PLOT = PACKED.at("corvid_plot")
P_GARDEN = PACKED.at("lizard_garden")
P_BATTLES = PACKED.at("battles")
P_STOP_WHEN_CLEARED = PACKED.at("stop_when_cleared")
P_HOSTILE = PACKED.at("hostile")
P_AMBUSH_HITS = PACKED.at("ambush_hits")
#: A designer's rolled-hits step (userstep.py): its number in the run (0: the rulebook's), and
#: the address of its compiled callback (written in the process that runs the kernel).
P_USER_STEP = PACKED.at("user_step")
P_STEP_ADDRESS = PACKED.at("step_address")


def attacker_tokens_first(p: BattleParams) -> bool:
    """Whether the attacker's tokens go before its buildings: the defender's choice under the
    rulebook (Root rules §1.8), the attacker's own under ``removal_chooser: owner``."""
    if p.removal_chooser == "defender":
        return p.defender.removes_attackers_first == "tokens"
    return p.attacker.removes_first == "tokens"


def _pack_side(
    s: Side, cards: int, exhausted: int, mercs: int, allies: int, tokens_first: bool
) -> np.ndarray:
    return SIDE.row(
        warriors=s.warriors,
        buildings=s.buildings,
        tokens=s.tokens,
        faction=FACTIONS.index(s.faction),
        extra_hits=s.extra_hits,
        swords=s.vagabond_swords,
        items=s.vagabond_items,
        tokens_first=int(tokens_first),
        cards=cards,
        ready=s.vagabond_swords - exhausted,
        mercenaries=mercs,
        allies=allies,
    )


def pack(p: BattleParams) -> np.ndarray:
    a, d = p.attacker, p.defender
    return PACKED.row(
        attacker=_pack_side(
            a,
            a.counter_ambush,
            a.vagabond_exhausted_swords,
            a.mercenaries,
            a.allied_warriors,
            attacker_tokens_first(p),
        ),
        defender=_pack_side(d, d.ambush, 0, 0, 0, d.removes_first == "tokens"),
        corvid_plot=int(d.corvid_plot_face_down),
        lizard_garden=int(p.lizard_garden),
        battles=p.battles,
        stop_when_cleared=int(p.stop_when_cleared),
        hostile=int(a.hostile),
        ambush_hits=d.ambush_hits,
        user_step=0,
        step_address=0,
    )
