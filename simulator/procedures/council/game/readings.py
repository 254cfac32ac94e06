"""The council game's declarations of a fourth reading of the rulebook (issue 44): the spending
order's ties, the caps the rulebook does not have, the laws in force, vacancies, victory timing,
the Cowardly, the minor readings, what is not played, and the scenario's invented data.

Each is an :class:`~simulator.procedures.base.Assumption` (``sim list council.game`` shows it;
a verdict names the ones tagged reading or invented among what it rests on; ``--robustness
assumptions`` moves each one with alternatives). The page is docs/rules/council.md."""

from __future__ import annotations

from typing import Any

from simulator.procedures.base import Alternative, Assumption
from simulator.procedures.council.game.defaults import (
    DEFAULT_CHARACTERS,
    DEFAULT_LANDS,
    DEFAULT_LAWS,
)

PAGE = "docs/rules/council.md"

#: Traits the rulebook itself gives a default Character (its examples): Gustav is Warlike.
RULEBOOK_TRAITS = {"Gustav the Wise": ["warlike"]}


def _equal_lands() -> list[dict[str, Any]]:
    """The default Lands with one invented size and population for all: 6 cells, 3 civilians,
    2 soldiers (the powers kept)."""
    return [{**land, "size": 6, "civilians": 3, "soldiers": 2} for land in DEFAULT_LANDS]


def _rulebook_traits() -> list[dict[str, Any]]:
    """The default Characters with only the traits the rulebook gives them."""
    return [{**c, "traits": RULEBOOK_TRAITS.get(c["name"], [])} for c in DEFAULT_CHARACTERS]


def _laws_at(cost: int) -> list[dict[str, Any]]:
    return [{**law, "cost": cost} for law in DEFAULT_LAWS]


ASSUMPTIONS = (
    Assumption(
        name="spending_ties",
        knob="spending_ties",
        tag="reading",
        rule=f"Council rules §2 (Spending: 'starting from the one with the least money'); §3 "
        f"(acting order: 'still equal: cast lots'); {PAGE}#s2",
        text="players with the same coins spend in an order drawn by lot each phase (the lot "
        "the acting order uses for its last tie); every player has the same coins in turn 1, so "
        "the old lower-seat-first order favoured seat 1 every first turn",
        alternatives=(Alternative("lower seat first", {"spending_ties": "seat"}, tag="invented"),),
        fires=("spending_ties",),
    ),
    Assumption(
        name="max_hand",
        knob="max_hand",
        tag="invented",
        rule=f"Council rules, Mercenary cards (no limit on the cards a player holds); {PAGE}#s10",
        text="a player holds at most 6 Mercenaries in hand; gap.hand_cap counts the purchases "
        "the cap refused",
        alternatives=(
            Alternative("no hand limit", {"max_hand": None}, tag="rulebook"),
            Alternative("3 in hand", {"max_hand": 3}, tag="invented"),
        ),
        fires=("gap.hand_cap",),
    ),
    Assumption(
        name="mercenary_deck",
        knob="mercenary_deck",
        tag="invented",
        rule=f"Council rules, Mercenary cards (the buyer chooses the card; the deck is not "
        f"sized); {PAGE}#s10",
        text="48 Mercenary cards in the deck, in hand and face down together; gap.deck_cap counts "
        "the purchases refused for want of a card",
        alternatives=(Alternative("24 cards", {"mercenary_deck": 24}, tag="invented"),),
        fires=("gap.deck_cap",),
    ),
    Assumption(
        name="max_buys",
        knob="max_buys",
        tag="invented",
        rule=f"Council rules §2 (Spending: no limit on purchases); {PAGE}#s2",
        text="a player makes at most 40 purchases in one spending phase (every purchase costs a "
        "coin or more, so the phase ends without it); gap.buy_cap counts the phases it ended",
        alternatives=(Alternative("no limit", {"max_buys": None}, tag="rulebook"),),
        fires=("gap.buy_cap",),
    ),
    Assumption(
        name="start_laws",
        knob="start_laws",
        tag="reading",
        rule=f"Council rules §3 (a proposal names 'which law it replaces'), Land cards (Brown "
        f"Plains: 'one of the three laws in force'), §0 (no setup); {PAGE}#s11",
        text="no law is in force at the start, and while fewer than three are a new law takes an "
        "empty slot; from the third on, each proposal names the law it replaces",
        alternatives=(
            Alternative(
                "three laws in force from the start (the deck's first three)",
                {"start_laws": 3},
                tag="reading",
            ),
        ),
    ),
    Assumption(
        name="head_appointment",
        knob="head_appointment",
        tag="rulebook",
        rule=f"Council rules §5 (the Privy Councillor 'personally appoints' Characters out of "
        f"play to vacant Head seats), §3 (a Councillor's action: 'the power of its seat'); "
        f"{PAGE}#s5",
        text="vacant Head seats are filled when the Privy Councillor acts: its player may spend "
        "the action appointing a Character from the pool to each vacant seat (counted: "
        "vacant_heads)",
        alternatives=(
            Alternative(
                "filled at every Action phase's start, without the action",
                {"head_appointment": "phase_start"},
                tag="reading",
            ),
        ),
        fires=("vacant_heads",),
    ),
    Assumption(
        name="council_vacancy",
        knob="",
        tag="reading",
        rule=f"Council rules §6 (Land votes: 'appointing a Head to a vacant Council seat'; no "
        f"time is given), §7 (Hand of Order: 'the seats are filled'); {PAGE}#s6",
        text="a vacant Council seat is filled by the Heads' vote at the start of every Action "
        "phase, before the Representative is chosen (no other time is played) (not yet a knob)",
    ),
    Assumption(
        name="victory_timing",
        knob="",
        tag="rulebook",
        rule=f"Council rules §7 (the game ends 'at the moment one of the conditions is "
        f"reached'); {PAGE}#s7",
        text="Coup and Will of the People are checked at every change of their conditions: each "
        "setup or bought token, the income's added civilians, each seat filled, each action, "
        "tipping, Sycophant or revealed card, each unpaid tax; an Election at a Council vote "
        "(not yet a knob)",
    ),
    Assumption(
        name="cowardly_leaves",
        knob="cowardly_leaves",
        tag="rulebook",
        rule=f"Council rules, Character traits 16 (Cowardly: 'if an uprising started anywhere, "
        f"discard this Character'), §12 (mood -3: uprisings); {PAGE}#s9",
        text="a Cowardly Character leaves its seat the moment the mood falls to -3 (or at the "
        "start, when the game begins at -3); one appointed during the uprising stays",
        alternatives=(
            Alternative(
                "at every income phase at mood -3", {"cowardly_leaves": "income"}, tag="reading"
            ),
        ),
        fires=("cowardly_left",),
    ),
    Assumption(
        name="contested_prosperity",
        knob="",
        tag="reading",
        rule=f"Council rules §1 (contested: '1 coin each, whatever the population'), §12 (mood "
        f"+3: '1 more coin from every Land'); {PAGE}#s1",
        text="a contested Land at mood +3 pays each tied player 2 coins (the prosperity coin "
        "comes from every Land); at -2 and -3 it pays as an uncontested one would (not yet a knob)",
    ),
    Assumption(
        name="thrifty_wasteful",
        knob="",
        tag="reading",
        rule=f"Council rules, Character traits 10, 11 (Thrifty / Wasteful: '+1 / -1 coin from the "
        f"Land it rules'); {PAGE}#s9",
        text="Thrifty and Wasteful change only the income of a player with priority on the "
        "Head's Land, not a contested Land's coin (not yet a knob)",
    ),
    Assumption(
        name="acting_order_fixed",
        knob="",
        tag="reading",
        rule=f"Council rules §3 (the acting order; not said when it is counted); {PAGE}#s3",
        text="the acting order is counted once, when the Action phase starts (after the "
        "Representative is chosen); tokens moved by earlier actions do not reorder the "
        "Characters still to act (not yet a knob)",
    ),
    Assumption(
        name="representative_moves",
        knob="",
        tag="reading",
        rule=f"Council rules §3 (Council actions; Heads' actions), §5 (the Representative: a Head "
        f"in the Council); {PAGE}#s3",
        text="the Representative, a Head sitting in the Council, chooses its one action among "
        "the Council's moves (laws, removing a Head) and a Head's (removing a Councillor) "
        "together (not yet a knob)",
    ),
    Assumption(
        name="land_vote_tipping",
        knob="",
        tag="reading",
        rule=f"Council rules §6 (Land votes: 'neutral Characters may be swayed by discarding "
        f"tokens from the Land they head'); {PAGE}#s6",
        text="NOT PLAYED: in a Land vote (removing a Councillor, a vacant Council seat) a "
        "neutral Head does not vote; nobody tips it by discarding Land tokens (the Sapphire "
        "Lakes' sway is played) (not yet a knob)",
    ),
    Assumption(
        name="deals",
        knob="",
        tag="reading",
        rule=f"Council rules §3 ('by mutual agreement, on their terms': a player lets another "
        f"send a Mercenary through its Character), §6 (tied advisers who 'agree'); {PAGE}#s3",
        text="NOT PLAYED: no deals between players; only the player with priority sends "
        "Mercenaries through a Character, and tied advisers never agree (not yet a knob)",
    ),
    Assumption(
        name="tokens_per_player",
        knob="tokens_per_player",
        tag="invented",
        rule=f"Council rules, opening line (no setup, no count of tokens); {PAGE}#s0",
        text="40 influence tokens a player",
        alternatives=(
            Alternative("20 tokens", {"tokens_per_player": 20}, tag="invented"),
            Alternative("80 tokens", {"tokens_per_player": 80}, tag="invented"),
        ),
    ),
    Assumption(
        name="start_treasury",
        knob="start_treasury",
        tag="invented",
        rule=f"Council rules, opening line (no setup), §11 (laws are paid from the Treasury); "
        f"{PAGE}#s0",
        text="the Treasury starts empty: no law can pass before a tax is paid",
        alternatives=(Alternative("5 coins", {"start_treasury": 5}, tag="invented"),),
    ),
    Assumption(
        name="mood_start",
        knob="mood_start",
        tag="invented",
        rule=f"Council rules §12 (a track from +3 to -3; no starting point); {PAGE}#s12",
        text="the mood starts at 0",
        alternatives=(
            Alternative("mood -1", {"mood_start": -1}, tag="invented"),
            Alternative("mood +1", {"mood_start": 1}, tag="invented"),
        ),
    ),
    Assumption(
        name="land_data",
        knob="lands",
        tag="invented",
        rule=f"Council rules, Land cards (names and powers; only the Valley of Arrows' 8 cells, "
        f"7 occupied, are given); {PAGE}#s8",
        text="the seven Lands' sizes and populations are invented (scenarios/council/game.yaml "
        "marks each)",
        alternatives=(
            Alternative(
                "equal Lands: 6 cells, 3 civilians, 2 soldiers",
                {"lands": _equal_lands()},
                tag="invented",
            ),
        ),
    ),
    Assumption(
        name="character_data",
        knob="characters",
        tag="invented",
        rule=f"Council rules, Character cards (names from the examples; traits listed, not "
        f"dealt); {PAGE}#s9",
        text="the eleven Characters' traits and starting seats are invented but for the "
        "rulebook's examples (Gustav is Warlike; Matej, Gunter and Irena head the Lands named)",
        alternatives=(
            Alternative(
                "only the rulebook's traits (Gustav: Warlike)",
                {"characters": _rulebook_traits()},
                tag="invented",
            ),
        ),
    ),
    Assumption(
        name="law_data",
        knob="laws",
        tag="invented",
        rule=f"Council rules §11 (laws; only Military mobilisation is named, with no numbers); "
        f"{PAGE}#s11",
        text="the eight laws' categories, costs, mood, population and tax changes are invented",
        alternatives=(
            Alternative("every law costs 3 coins", {"laws": _laws_at(3)}, tag="invented"),
        ),
    ),
)

_FIRST = (
    "max_hand",
    "mercenary_deck",
    "max_buys",
    "spending_ties",
    "start_laws",
    "land_vote_tipping",
    "deals",
)
#: Declared first, so that a verdict's "rests on" (four names of each kind, then "and N more")
#: names the caps and the readings of issue 44 (the invented caps, then the readings).
FIRST = tuple(a for name in _FIRST for a in ASSUMPTIONS if a.name == name)
#: The others, declared after the game's earlier assumptions.
REST = tuple(a for a in ASSUMPTIONS if a.name not in _FIRST)

#: Parameters that are no assumption: what a run asks (settings) and the rulebook's own values
#: (a citation, then the parameters), declared with ``base.Given`` where it exists.
SETTINGS = ("players", "policies", "mercenaries", "mood")
RULEBOOK = (
    ("Council rules §4 (Tax: '1.5 coins a Land, rounded down')", ("tax_rate",)),
    ("Council rules §2 (Spending: 3 coins a token, 3 a Mercenary)", ("influence_cost",)),
    ("Council rules, Mercenary cards ('any Mercenary card costs 3 coins')", ("mercenary_cost",)),
    ("Council rules §6 (Votes: 'at least 3 of 5 for')", ("council_votes",)),
    ("Council rules §8 (Golden Coast: 'a rare gift for 2 coins')", ("rare_gift_cost",)),
    ("Council rules §6 (Votes: 'players may sway them by advice through the Heads')", ("advice",)),
)


def given(base: Any) -> tuple[Any, ...]:
    """The ``Given`` declarations of :data:`SETTINGS` and :data:`RULEBOOK`, made with ``base``'s
    ``settings`` and ``rulebook`` (the tags of issue 44)."""
    out = list(base.settings(*SETTINGS))
    for rule, knobs in RULEBOOK:
        out += base.rulebook(rule, *knobs)
    return tuple(out)


#: What the rulebook has and the game does not play (``sim list`` notes and the verdict's
#: "rests on" through the declarations above).
NOT_PLAYED = (
    "not played: tipping neutral Heads in Land votes by discarding Land tokens (land_vote_tipping)"
    "; deals between players (deals); the River Horseshoe, Saint Iriash, Misty Valley and Empty "
    "Hills powers (not among the default seven Lands; no effect to give them)"
)
