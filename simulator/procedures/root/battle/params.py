"""Root battle: the parameters (each side's pieces and faction), the metrics and the packed row.

See :mod:`simulator.procedures.root.battle` for the rules.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator, model_validator

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
        description="assumption: after its warriors, the owner removes tokens before buildings "
        "(tokens do not count for control)",
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
        description="ambush cards the attacker holds to cancel the defender's ambushes",
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
    stop_when_cleared: bool = Field(
        default=True,
        description="stop the campaign once the defender is defenceless (no warriors; a "
        "Vagabond: no undamaged sword); false keeps battling its buildings and tokens",
    )

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


# Indices of the metric values the kernel writes, in the order of metrics().
(A_LOST, D_LOST, BUILDINGS, TOKENS, A_VP, CLEARED, AMBUSH_HITS, CONTROL) = range(8)
D_VP, FOUGHT, ACOLYTES, A_DAMAGED, D_DAMAGED = range(8, 13)
MERCS_LOST, ALLIES_LOST, ALLY_HOSTILE = range(13, 16)
N_METRICS = 16


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
    ]


# A packed row: each side's SIDE_WIDTH columns (attacker, then defender), then the globals.
(
    C_WARRIORS,
    C_BUILDINGS,
    C_TOKENS,
    C_FACTION,
    C_EXTRA,
    C_SWORDS,
    C_ITEMS,
    C_TOKENS_FIRST,
    C_CARDS,
    C_READY,
    C_MERCS,
    C_ALLIES,
) = range(12)
SIDE_WIDTH = 12
GLOBALS = 2 * SIDE_WIDTH


def _pack_side(s: Side, cards: int, exhausted: int, mercs: int, allies: int) -> list[float]:
    return [
        s.warriors,
        s.buildings,
        s.tokens,
        FACTIONS.index(s.faction),
        s.extra_hits,
        s.vagabond_swords,
        s.vagabond_items,
        1 if s.removes_first == "tokens" else 0,
        cards,
        s.vagabond_swords - exhausted,
        mercs,
        allies,
    ]


def pack(p: BattleParams) -> np.ndarray:
    a = p.attacker
    row = _pack_side(
        a, a.counter_ambush, a.vagabond_exhausted_swords, a.mercenaries, a.allied_warriors
    )
    row += _pack_side(p.defender, p.defender.ambush, 0, 0, 0)
    row += [
        int(p.defender.corvid_plot_face_down),
        int(p.lizard_garden),
        p.battles,
        int(p.stop_when_cleared),
        int(p.attacker.hostile),
    ]
    return np.array(row, dtype=np.float64)
