"""What ``recruitment.loyalty`` rests on: every parameter's tag, declared once.

``ASSUMPTIONS`` are the invented values and the readings of unclear lines (each moved by
``--robustness assumptions`` to its alternatives); ``GIVEN`` tags every other parameter: the
rulebook's text (the revision's cases) or a setting of the question asked. ``sim list``, the
reference page, docs/rules/recruitment.md's tag table and a verdict's "rests on" are generated
from them (tests/test_tags.py).
"""

from __future__ import annotations

from simulator.procedures.base import Alternative, Assumption, rulebook, settings

PAGE = "docs/rules/recruitment.md"
RECRUIT = "Recruitment rules, recruitment phase"
MAINTAIN = "Recruitment rules, maintenance phase"

#: The default deck, in words (params.DEFAULT_DECK).
DECK_TEXT = (
    "30 generated characters, each with wage 0-2, printed base loyalty 0-2 and equipped cards "
    "0-2 (uniform), no home empire"
)
_SPAN = {"low": 0, "high": 2}
#: Other decks the robustness run tries (each replaces the whole deck).
DECK_ALTERNATIVES = (
    Alternative(
        "no base loyalty (the base-loyalty rule never fires)",
        {"deck": {"count": 30, "wage": _SPAN, "equipped": _SPAN}},
        tag="invented",
    ),
    Alternative(
        "20 cards",
        {"deck": {"count": 20, "wage": _SPAN, "base_loyalty": _SPAN, "equipped": _SPAN}},
        tag="invented",
    ),
)

#: Every invented value and every reading of an unclear line the game rests on (issues 27, 44);
#: the game length and the deck first, so a verdict's "rests on" names them.
ASSUMPTIONS = (
    Assumption(
        name="rounds",
        knob="rounds",
        tag="invented",
        rule=f"Recruitment rules (a phase of a larger empire game: the rule has no game length); "
        f"{PAGE}#game",
        text="a game is 10 rounds (each a recruitment phase then a maintenance phase); every "
        "win share, draw rate and decided_at depends on it",
        alternatives=(
            Alternative("6 rounds", {"rounds": 6}, tag="invented"),
            Alternative("15 rounds", {"rounds": 15}, tag="invented"),
        ),
    ),
    Assumption(
        name="deck",
        knob="deck",
        tag="invented",
        rule=f"{RECRUIT} ① (a character deck; the rule prints no card); {PAGE}#game",
        text=DECK_TEXT,
        alternatives=DECK_ALTERNATIVES,
    ),
    Assumption(
        name="base_loyalty",
        knob="base_loyalty_counts",
        tag="rulebook",
        rule=f"{RECRUIT} ② ('只有当一个人物牌上放置有对应其基础忠诚度的影响力指示物时，牌面上的"
        f"基础忠诚度才生效'); {PAGE}#s1-2",
        text="a card's printed base loyalty counts for an empire once that empire's tokens on "
        "the card reach its number (the rule names no empire for it, only the number on the card)",
        alternatives=(
            Alternative(
                "for its home empire at its first token (the default deck has no homes)",
                {"base_loyalty_counts": "at_home_token"},
            ),
        ),
    ),
    Assumption(
        name="tokens_per_round",
        knob="tokens_per_round",
        tag="rulebook",
        rule=f"{RECRUIT} ② and its note ('the zone is checked only once no player needs to "
        f"place more'); {PAGE}",
        text="no limit on the tokens an empire places in a round: placing goes round one token "
        "a turn until every empire passes (the old default, a cap of 3, is an invention)",
        alternatives=(
            Alternative("at most 3 a round", {"tokens_per_round": 3}, tag="invented"),
            Alternative("at most 1 a round", {"tokens_per_round": 1}, tag="invented"),
        ),
    ),
    Assumption(
        name="first_player",
        knob="first_player",
        tag="invented",
        rule=f"{RECRUIT} ② (who places first is not said); {PAGE}",
        text="the first player rotates each round, seat 1 in round 1",
        alternatives=(Alternative("seat 1 every round", {"first_player": "fixed"}, "invented"),),
    ),
    Assumption(
        name="passing",
        knob="passing",
        tag="rulebook",
        rule=f"{RECRUIT}, note ('only once no player needs to place more'); {PAGE}",
        text="placing goes on until every empire passes in succession (a pass is not final: "
        "an empire that passed may place again after another placed, as 'no player needs to "
        "place more' asks)",
        alternatives=(Alternative("a pass is final for the round", {"passing": "final"}),),
    ),
    Assumption(
        name="returned_tokens",
        knob="returned_tokens",
        tag="rulebook",
        rule=f"{MAINTAIN}, last note (lost and removed tokens go to the bank); {PAGE}",
        text="lost and removed tokens go to the bank, not to their empire's supply",
        alternatives=(
            Alternative(
                "straight back to the supply",
                {"returned_tokens": "supply", "removed_tokens": "supply"},
            ),
        ),
        fires=("tokens_lost",),
    ),
    Assumption(
        name="zero_tokens",
        knob="zero_tokens",
        tag="rulebook",
        rule=f"{MAINTAIN} ③, 1.0 ⑶ and 1.1/1.2 ⑷ (no tokens left: removed), which overlap ⑴ "
        f"(the owner still tied for the highest, at zero); {PAGE}",
        text="a character with no tokens left leaves the game in every revision (the case the "
        "text names); the overlap is counted as gap_zero_tie",
        alternatives=(Alternative("it stays with its owner (⑴)", {"zero_tokens": "stays"}),),
        fires=("gap_zero_tie",),
    ),
    Assumption(
        name="bank_refill",
        knob="bank_refill",
        tag="invented",
        rule=f"{MAINTAIN}, last note (the bank's tokens are 'to be obtained by players later in "
        f"the game': how is not said, a gap); {PAGE}",
        text="no token comes back from the bank within the game (tokens_lost counts what went "
        "there, tokens_in_bank what is left at the end)",
        alternatives=(
            Alternative("1 token back per round", {"bank_refill": 1}, tag="invented"),
            Alternative("3 tokens back per round", {"bank_refill": 3}, tag="invented"),
        ),
        fires=("tokens_lost", "tokens_in_bank"),
    ),
    Assumption(
        name="starting_gold",
        knob="starting_gold",
        tag="invented",
        rule=f"Recruitment rules (no setup in the rule); {PAGE}",
        text="3 gold per empire at the start",
        alternatives=(
            Alternative("no gold", {"starting_gold": 0}, tag="invented"),
            Alternative("6 gold", {"starting_gold": 6}, tag="invented"),
        ),
    ),
    Assumption(
        name="tokens_per_empire",
        knob="tokens_per_empire",
        tag="invented",
        rule=f"{RECRUIT} ② (an empire's own tokens; their number is not said); {PAGE}",
        text="20 influence tokens in each empire's supply",
        alternatives=(
            Alternative("10 tokens", {"tokens_per_empire": 10}, tag="invented"),
            Alternative("40 tokens", {"tokens_per_empire": 40}, tag="invented"),
        ),
    ),
    Assumption(
        name="income",
        knob="income",
        tag="invented",
        rule=f"{MAINTAIN} ② (wages are paid; where gold comes from is not said); {PAGE}",
        text="2 gold per empire at the start of each round",
        alternatives=(
            Alternative("no income", {"income": 0}, tag="invented"),
            Alternative("4 gold a round", {"income": 4}, tag="invented"),
        ),
    ),
    Assumption(
        name="loyalty_die",
        knob="loyalty_die",
        tag="invented",
        rule=f"{MAINTAIN} ① (one black die; its faces are not said); {PAGE}",
        text="the black loyalty die is a d6",
        alternatives=(Alternative("a d8", {"loyalty_die": 8}, tag="invented"),),
    ),
    Assumption(
        name="win",
        knob="win",
        tag="invented",
        rule=f"Recruitment rules (a fragment: no win condition); {PAGE}",
        text="most characters after `rounds` rounds wins, ties share",
        alternatives=(
            Alternative(
                "ties broken by loyalty", {"win": "most_characters_then_loyalty"}, "invented"
            ),
        ),
        fires=("draws",),
    ),
    Assumption(
        name="one_token_a_turn",
        knob="",
        tag="invented",
        rule=f"{RECRUIT} ② (empires place tokens; in what turns is not said); {PAGE}#s1-2",
        text="placement goes round the table one token a turn from the round's first player; "
        "not yet a knob",
    ),
    Assumption(
        name="wage_order",
        knob="wage_order",
        tag="invented",
        rule=f"{MAINTAIN} ② (which characters an empire short of gold pays is not said); "
        f"{PAGE}#s2-2",
        text="an empire pays its characters by descending loyalty, then ascending wage",
        alternatives=(
            Alternative(
                "cheapest first, then the most loyal", {"wage_order": "cheap_first"}, "invented"
            ),
        ),
    ),
)


#: Every other parameter: the revision's text, or a setting of the question a run asks.
GIVEN = (
    *settings(
        "players",
        "revision",
        "revisions",
        "ownership",
        "shuffle_deck",
        "seat_gold",
        "policies",
        "debug",
    ),
    *rulebook(
        f"Recruitment rules, maintenance phase ③, as the revision words it; a revision's silence "
        f"is a gap, counted gap_multi_tie and gap_equipped; {PAGE}#s2-3",
        "multi_tie",
        "equipment",
    ),
)
