"""Root battle with the factions' modifiers in battle (Root rules §1.5); the effects a removal
triggers afterwards (field hospitals, an Alliance base's supporters and officers, outrage, a trade
post, a garden's card, a Duchy minister) are counted as metrics, not played (declared below).

The attacker fights ``battles`` battles in a row against one defender in one clearing. Each battle:

0. **To battle**, a Vagabond exhausts one of its ready (undamaged, unexhausted) swords: a
   campaign lasts at most as many battles as it has ready swords.
1. **Ambush** (the published game's card; the rules this project follows name it without its
   effect): a defender holding an ambush card plays it; the attacker cancels it with its own
   ambush card if it holds one (both cards are spent). An uncancelled ambush deals
   ``ambush_hits`` (2) hits to the attacker before the roll; if that leaves a warrior-fighting
   attacker with no warriors, the battle ends.
2. **Roll** two Root dice (uniform 0-3): the attacker takes the higher, the defender the lower; a
   defending Woodland Alliance takes the higher instead (guerrilla war).
3. **Hit caps**: each side's rolled hits are capped by its warriors in the clearing, Riverfolk
   mercenaries it bought included (a Vagabond: its undamaged swords, exhausted or not, plus the
   allied warriors battling with it).
4. **Extra hits** ignore the cap: the defender takes one more when defenceless (no warriors; a
   Vagabond: no undamaged sword); each side adds its ``extra_hits`` (Brutal Tactics, Sappers, ...);
   Corvids defending with a face-down plot in the clearing (one plot per clearing) add one while the
   plot stands.
5. **Removal**: warriors first — hits on a buyer's warriors and its mercenaries are split evenly,
   the buyer taking the odd one (a Vagabond and its allied warriors likewise; giving its allies
   more hits than it takes turns it hostile to them) — then buildings and tokens in the order
   the defending side chooses (Root rules §1.8; ``removal_chooser: owner``: each owner's); a
   Vagabond damages its other items before its swords, exhausted ones first.
   Removing an enemy building or token scores 1 VP; an attacking Vagabond battling a hostile
   faction scores 1 VP more per piece removed.

Control of the clearing afterwards: most warriors + buildings (tokens and the Vagabond's pawn do
not count; mercenaries count for their buyer; a Vagabond's allied warriors for their own faction);
a tie goes to nobody, except that the Eyrie wins ties it is in; a Lizard garden (the Lizards' last
building to go) gives the Lizards control outright.

The code is split by concern: parameters, metrics and packing in ``params``, the kernel in
``kernel``, the exact enumeration in ``exact``.
"""

from __future__ import annotations

from simulator.procedures.base import Alternative, Assumption, Procedure, settings
from simulator.procedures.root._rules import cite
from simulator.procedures.root.battle.exact import exact, outcomes
from simulator.procedures.root.battle.kernel import battle_kernel
from simulator.procedures.root.battle.params import (
    ALLIANCE,
    CORVIDS,
    DUCHY,
    EYRIE,
    FACTION_EFFECTS,
    FACTIONS,
    LIZARDS,
    MARQUISE,
    METRICS,
    PACKED,
    RIVERFOLK,
    SIDE,
    VAGABOND,
    Attacker,
    BattleParams,
    Defender,
    Side,
    metrics,
    pack,
)
from simulator.procedures.root.battle.userstep import specialize

__all__ = [
    "ALLIANCE",
    "CORVIDS",
    "DUCHY",
    "EYRIE",
    "FACTIONS",
    "LIZARDS",
    "MARQUISE",
    "METRICS",
    "PACKED",
    "PROCEDURE",
    "RIVERFOLK",
    "SIDE",
    "VAGABOND",
    "Attacker",
    "BattleParams",
    "Defender",
    "Side",
    "battle_kernel",
    "exact",
    "metrics",
    "outcomes",
    "pack",
]

ASSUMPTIONS = (
    Assumption(
        name="ambush",
        knob="defender.ambush_hits",
        tag="invented",
        rule=cite("1.5"),
        text="not in the Root rules this project follows: they name the ambush (突袭) without "
        "its effect; sim plays the published game's card: 2 hits before the roll, cancelled by "
        "the attacker's own ambush card (counter_ambush, also the published game's); off unless "
        "the defender holds ambush cards",
        alternatives=(
            Alternative("an ambush deals 1 hit", {"defender.ambush_hits": 1}, "invented"),
        ),
        fires=("ambush_hits",),
    ),
    Assumption(
        name="who_chooses_removals",
        knob="removal_chooser",
        tag="rulebook",
        rule=cite("1.8"),
        text="when there is a choice of pieces to remove, the defending side chooses "
        "('由防御方选择'): its own in its removes_first order, the attacker's buildings and "
        "tokens in removes_attackers_first (default buildings first: they count for control); "
        "warriors, mercenaries and a Vagabond's items keep their fixed order (the assumptions "
        "vagabond_damage and mercenaries)",
        alternatives=(Alternative("each owner chooses its own", {"removal_chooser": "owner"}),),
    ),
    Assumption(
        name="removal_order",
        knob="defender.removes_first",
        tag="reading",
        rule=cite("1.8"),
        text="after its warriors, the defender removes its tokens before its buildings (tokens "
        "do not count for control); so does the attacker under removal_chooser: owner",
        alternatives=(
            Alternative(
                "buildings first",
                {"attacker.removes_first": "buildings", "defender.removes_first": "buildings"},
            ),
        ),
    ),
    Assumption(
        name="attackers_removal_order",
        knob="defender.removes_attackers_first",
        tag="reading",
        rule=cite("1.8"),
        text="the defender, choosing, removes the attacker's buildings before its tokens "
        "(buildings count for control; both score it 1 VP)",
        alternatives=(Alternative("tokens first", {"defender.removes_attackers_first": "tokens"}),),
    ),
    Assumption(
        name="vagabond_damage",
        knob="",
        tag="reading",
        rule=cite("7.4"),
        text="a Vagabond damages its other items before its swords, and exhausted swords before "
        "ready ones (so it can battle again); with allies it splits the hits evenly, taking the "
        "odd one; not yet a knob",
    ),
    Assumption(
        name="mercenaries",
        knob="",
        tag="reading",
        rule=cite("9.14"),
        text="the Riverfolk mercenaries' even split covers warriors only (buildings and tokens go "
        "after all warriors), and mercenaries never battle the Riverfolk; not yet a knob",
    ),
    Assumption(
        name="lizard_garden_last",
        knob="",
        tag="reading",
        rule=cite("10.2"),
        text="a Lizard garden is the Lizards' last building to go; not yet a knob",
    ),
    Assumption(
        name="faction_effects_after_removal",
        knob="",
        tag="reading",
        rule=cite("4.6"),
        text="counted, not played: the Marquise warriors field hospitals may return (§4.6), the "
        "Alliance's bases (supporters and half the officers, §6.7) and sympathy (outrage, "
        "§6.8), Riverfolk trade posts (§9.6), Lizard gardens (§10.4) and Duchy buildings "
        "(§11.3) removed are metrics; their effects are not played (not yet a knob)",
        fires=tuple(m.name for m in FACTION_EFFECTS),
    ),
)


PROCEDURE = Procedure(
    name="root.battle",
    title="Root battle: dice, hits, removal and control, with the factions' modifiers in battle "
    "(what a removal costs a faction afterwards is counted, not played)",
    rules="Root rules §1.3–§1.8 and the faction chapters §4–§12 (docs/rules/root.md#s1-5)",
    assumptions=ASSUMPTIONS,
    given=settings(
        "attacker", "defender", "lizard_garden", "battles", "stop_when_cleared", "rolled_hits"
    ),
    params_model=BattleParams,
    metrics=metrics,
    pack=pack,
    kernel=battle_kernel,
    exact=exact,
    packed_layout=PACKED,
    metric_layout=METRICS,
    specialize=specialize,
    example={
        "attacker": {"warriors": 6, "faction": "marquise"},
        "defender": {"warriors": 3, "buildings": 1, "faction": "eyrie"},
        "battles": 3,
    },
    notes=(
        "assumption: a defender plays one ambush card per battle while it holds any; the "
        "attacker cancels each with its own while it holds any",
        "a Vagabond exhausts a ready sword for each battle of the campaign "
        "(vagabond_exhausted_swords: those already exhausted)",
        "one plot per clearing: a Corvid side has at most one token, its plot",
        "Riverfolk mercenaries (attacker's mercenaries) battle and rule as the buyer's "
        "warriors; hits on warriors split evenly, the buyer taking the odd one; assumption: "
        "the split covers warriors only, buildings and tokens go after all of them; "
        "assumption: mercenaries never battle the Riverfolk",
        "allied warriors (attacker's allied_warriors) add to a Vagabond's hit cap; assumption: "
        "it splits hits with them evenly, taking the odd one itself (it stays allied unless it "
        "has nothing left to damage); their faction has no control rule of its own",
        "a faction becomes hostile to an attacking Vagabond after the battle that removes one "
        "of its warriors (its +1 VP per piece starts from the next battle)",
    ),
)
