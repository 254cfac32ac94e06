"""The council game (Council rules): the whole political game of the Russian rules, played out.

Seven Lands and eleven Characters; players place influence tokens, take income and pay tax by
priority on Lands, act through the Characters they have priority on (Council first, then Heads, in
the rulebook's acting order), vote laws and removals, send hidden mercenaries, and win by one of
four victory conditions checked as soon as one holds. A game that reaches ``max_turns`` is a draw.

Every decision is a choice among a list of legal moves made by the seat's agent (``policies:``):
``random`` picks uniformly, ``greedy`` picks the move that most increases its own priority count
(Lands plus Characters it has priority on) one step ahead, ties by lot; ``rollout`` and ``mcts``
are the generic search agents of :mod:`simulator.agents`, playing the game through its game
interface (``interface.GAME``: resume by replay, ``context``). Each game reads its own stream
(``trial_state``/``next_word``); a word is read only when a choice has two or more options, so
every variant of a scenario plays the same game until a rule that differs changes a choice; a
searching seat's decision reads its own decision sub-stream, never the game's.

The package is split by concern: ``params`` (the scenario's values and the packed row),
``defaults`` (the default data set), ``readings`` (the declarations of issue 44), ``state``
(array layouts and accessors), ``heuristic`` (priority counts, the leader, how a seat chooses),
``votes``, ``victory``, ``economy`` (income, spending, tax), ``mercenaries``, ``actions``,
``setup`` (the starting position, invariants), ``context`` (the decision hooks), ``interface``
(the game interface) and ``kernel`` (the turn loop, metrics, the trial loop). Interpretations
are listed in docs/council.md; the gaps the rulebook leaves are counted as ``gap.*``.
"""

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels

# ruff: noqa: E402

import numpy as np

from simulator.agents.game import WholeGame
from simulator.procedures import base
from simulator.procedures.base import Alternative, Assumption, Procedure
from simulator.procedures.council.game import interface, readings
from simulator.procedures.council.game.kernel import council_game_kernel
from simulator.procedures.council.game.params import (
    METRICS,
    PACKED,
    CouncilGameParams,
    metrics,
    pack,
)

PAGE = "docs/rules/council.md"

#: Every invented value and every reading of an unclear line the game rests on (issue 27).
ASSUMPTIONS = (
    *readings.FIRST,
    Assumption(
        name="setup_order",
        knob="setup_order",
        tag="invented",
        rule=f"Council rules, opening line (the table: 7 Lands, 11 Characters; no setup); {PAGE}",
        text="the rulebook has no setup: the start tokens are placed one at a time in one seat "
        "order drawn at random from the game's stream, so no seat is favoured by construction "
        "(a fixed order decided who could win: with greedy seats 15.4 / 14.0 / 0.2 / 0.1%)",
        alternatives=(
            Alternative("fixed order", {"setup_order": "fixed"}, tag="invented"),
            Alternative("rotating order", {"setup_order": "rotating"}, tag="invented"),
            Alternative("snake order", {"setup_order": "snake"}, tag="invented"),
        ),
    ),
    Assumption(
        name="start_tokens",
        knob="start_tokens",
        tag="invented",
        rule=f"Council rules, opening line (no setup); {PAGE}",
        text="3 free tokens each before turn 1: with 0 or 1 nobody can win (no income, no way to "
        "buy tokens)",
        alternatives=(
            Alternative("no start tokens", {"start_tokens": 0}, tag="invented"),
            Alternative("1 start token", {"start_tokens": 1}, tag="invented"),
            Alternative("5 start tokens", {"start_tokens": 5}, tag="invented"),
        ),
    ),
    Assumption(
        name="start_coins",
        knob="start_coins",
        tag="invented",
        rule=f"Council rules, opening line (no setup); {PAGE}",
        text="6 coins each at the start (two tokens' or Mercenaries' worth)",
        alternatives=(
            Alternative("3 start coins", {"start_coins": 3}, tag="invented"),
            Alternative("9 start coins", {"start_coins": 9}, tag="invented"),
        ),
    ),
    Assumption(
        name="max_turns",
        knob="max_turns",
        tag="invented",
        rule=f"Council rules, Victory conditions (the game ends only on a victory); {PAGE}",
        text="a game still undecided after 40 turns is a draw; cut_by_turn_limit counts the "
        "drawn games that still had tokens on a Land (gap.stalled_draw the others)",
        alternatives=(
            Alternative("20 turns", {"max_turns": 20}, tag="invented"),
            Alternative("80 turns", {"max_turns": 80}, tag="invented"),
        ),
        fires=("cut_by_turn_limit",),
    ),
    Assumption(
        name="tip_empty_heads",
        knob="tip_empty_heads",
        tag="rulebook",
        rule=f"Council rules §3 (Actions: 'with equal influence a Character is idle; a player may "
        f"spend that Land's tokens'); Land cards, Sapphire Lakes (no tokens: neutral); {PAGE}",
        text="a Head with no token on it is neutral like a tied one, and a player may tip it by "
        "discarding tokens from its Land",
        alternatives=(Alternative("a Head with no tokens never acts", {"tip_empty_heads": False}),),
        fires=("empty_head_chances",),
    ),
    Assumption(
        name="tip_cap",
        knob="tip_cap",
        tag="rulebook",
        rule=f"Council rules §3 (Actions: 'a player may spend that Land's tokens'); {PAGE}",
        text="a player tipping a neutral Head may discard any number of its tokens on the Land "
        "(greedy discards 1, so only random and searching seats feel the cap)",
        alternatives=(Alternative("at most 2 tokens", {"tip_cap": 2}, tag="invented"),),
    ),
    Assumption(
        name="bribe_cap",
        knob="bribe_cap",
        tag="rulebook",
        rule=f"Council rules, Mercenary cards (Messenger: a bribe 'may be raised by any amount, "
        f"1 token per 3 coins'); {PAGE}",
        text="a revealed bribe is raised by as many tokens as its owner can pay for (the case "
        "is counted by the Messengers revealed, an upper bound: gifts count too)",
        alternatives=(Alternative("raised by at most 2", {"bribe_cap": 2}, tag="invented"),),
        fires=("mercenaries_played.messenger",),
    ),
    Assumption(
        name="remove_councillor_votes",
        knob="remove_councillor_votes",
        tag="reading",
        rule=f"Council rules §3 (Heads' actions: '4 of 7') and Voting ('5 of 7'); {PAGE}",
        text="the rulebook says both: 5 of 7 Heads remove a Councillor",
        alternatives=(Alternative("4 of 7", {"remove_councillor_votes": 4}),),
        fires=("gap.removal_four_votes",),
    ),
    Assumption(
        name="warlord_tax",
        knob="",
        tag="rulebook",
        rule=f"Council rules, Land cards (Valley of Arrows: 'the Warlord sets the tax on this Land "
        f"... 1, 2 or 3 coins; if there is no such player, the tax by law or default'); {PAGE}",
        text="before the tax phase the player with priority on the Warlord sets the Valley's tax "
        "(1, 2 or 3 coins, whatever the laws; greedy: the lowest on itself, the highest on a "
        "rival) when someone holds the Valley; it counts in its holder's total like any Land's "
        "rate; a contested Valley still costs each tied player 1 coin (reading); not yet a "
        "knob (its other value is the Land's effect: none, in the data)",
    ),
    Assumption(
        name="ignore_law",
        knob="",
        tag="reading",
        rule=f"Council rules, Land cards (Brown Plains: 'one of the three laws in force does not "
        f"apply to this Land; choosing another brings the former back; chosen by the player with "
        f"priority on Head + Land'); {PAGE}",
        text="each time a law passes, the player with strictly most Land + Head tokens on the "
        "Brown Plains may make it the ignored law (the former one applies again); the ignored "
        "law's tax change and population change do not apply there, the mood track stays one "
        "for the table; a law replaced is ignored no more; not yet a knob (its other value is "
        "the Land's effect: none, in the data)",
    ),
    Assumption(
        name="greedy_bribe",
        knob="greedy_bribe",
        tag="reading",
        rule=f"Council rules, Character traits 8 (Greedy: '+1 coin on receiving a bribe, "
        f"whatever its sum'); {PAGE}",
        text="a Character holds no coins: the briber pays a Greedy target one coin more (to the "
        "bank), and a briber without that coin cannot reveal the bribe yet",
        alternatives=(
            Alternative("the Greedy's player gains 1 coin", {"greedy_bribe": "holder_gains"}),
        ),
        fires=("mercenaries_played.messenger",),
    ),
    Assumption(
        name="traits",
        knob="",
        tag="reading",
        rule=f"Council rules, Character traits 7, 12, 19, 20 (Bribable, Cautious, Fanatic, "
        f"Incorruptible); {PAGE}",
        text="a trait acts from the Character that bears it: a Spy exposing a bribe on a "
        "Bribable leaves the briber's token; a player whose bribe or Thief is exposed (by "
        "another's Spy or Thief) takes 1 token, whose Assassin is exposed 2, off every Cautious "
        "Character not killed; presenting a revealed gift or bribe to an Atheist costs 1 token on "
        "every Fanatic, a gift to a Bribable 1 on every Incorruptible; not yet a knob",
    ),
    Assumption(
        name="transfer",
        knob="transfer",
        tag="reading",
        rule=f"Council rules, Character traits 13, 14 (Traveller, Homebody: 'the house that "
        f"initiated the transfer to another Land'); {PAGE}",
        text="a transfer is an appointment to head a Land other than the one the Character "
        "headed last, initiated by the player who chose it (the Privy Councillor's; not a lot): "
        "that player puts a token on a Traveller, takes one off a Homebody",
        alternatives=(Alternative("the traits do nothing", {"transfer": "never"}),),
    ),
    Assumption(
        name="reveal_windows",
        knob="reveal_windows",
        tag="reading",
        rule=f"Council rules, Mercenary cards ('may be revealed at any moment from the first phase "
        f"of the next turn'; Spy and Thief 'have priority at the start of each phase'); {PAGE}",
        text="'any moment' is played as a window at the start of each phase (before income, "
        "spending, actions and tax), the owners of face-down cards deciding in card order",
        alternatives=(
            Alternative("only at the start of a turn", {"reveal_windows": "turn"}, tag="reading"),
        ),
        fires=("phase_reveals",),
    ),
    Assumption(
        name="spy_thief_first",
        knob="spy_thief_first",
        tag="rulebook",
        rule=f"Council rules, Mercenary cards (a player revealing a Thief or Spy to check another "
        f"card 'has priority at the start of each phase'); {PAGE}",
        text="in each reveal window the Spies and Thieves are offered first, then the other cards",
        alternatives=(Alternative("every card in card order", {"spy_thief_first": False}),),
    ),
    Assumption(
        name="advice_by",
        knob="advice_by",
        tag="rulebook",
        rule=f"Council rules §6 (Voting: 'first the player with priority on the Head may advise, "
        f"then the other players by their influence; equal influence: Land + Head; still equal: "
        f"it does not advise unless they agree'); {PAGE}",
        text="each Head advises once a vote: its priority player first, then the others in line "
        "by their tokens on it (ties by Land + Head; a tie after that leaves the Head silent, "
        "counted as gap.advice_tie); an adviser without priority pays a token from the Head",
        alternatives=(
            Alternative("the priority player only", {"advice_by": "priority"}, tag="reading"),
        ),
        fires=("advice_without_priority", "gap.advice_tie"),
    ),
    Assumption(
        name="rare_gift_once",
        knob="rare_gift_once",
        tag="reading",
        rule=f"Council rules, Land cards (Golden Coast: '1/turn'); {PAGE}",
        text="the rare gift is played once a turn by the whole table",
        alternatives=(Alternative("once a turn per player", {"rare_gift_once": "player"}),),
    ),
    Assumption(
        name="sycophant_count",
        knob="sycophant_count",
        tag="reading",
        rule=f"Council rules, Character traits 18 (Sycophant: 'at the start of each Action'); "
        f"{PAGE}",
        text="a Sycophant counts the Council's tokens before each Character's action",
        alternatives=(Alternative("once an Action phase", {"sycophant_count": "phase"}),),
    ),
    *readings.REST,
)


def deal(row: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """A new game of the packed ``row``, played to its first decision of a searching seat."""
    return interface.start(row, 0, rng)


PROCEDURE = Procedure(
    name="council.game",
    title="The council game: the whole political game",
    rules="Council rules §0–§13 (docs/rules/council.md)",
    params_model=CouncilGameParams,
    metrics=metrics,
    pack=pack,
    kernel=council_game_kernel,
    exact=None,
    example={"players": 4},
    # Every seat searching: the interface stops at each seat's decisions, setup's included.
    game=WholeGame(interface.GAME, deal, example={"players": 4, "policies": "rollout"}),
    assumptions=ASSUMPTIONS,
    given=readings.given(base),
    fires={a.knob: a.fires for a in ASSUMPTIONS if a.fires},
    notes=(
        "policies: random, greedy (one step ahead on its own priority count, lot ties), rollout "
        "and mcts (the generic search agents through the game interface, resuming a phase by "
        "replay; their horizon counts phases, 6 a turn; they model the other seats as greedy "
        "and resample the other seats' hidden Mercenary kinds)",
        "Land powers played: income_bonus (Black Harbour: a tie on Land + Head gives nobody the "
        "coin), mercenary_discount, mood_immune, rare_gift (Golden Coast), sway_head (Sapphire "
        "Lakes), sway_council (Brothers), warlord_tax (Valley of Arrows), ignore_law (Brown "
        "Plains); the others are printed only (not played, below)",
        "remove_councillor_votes: the rulebook says both 4 and 5 of 7; default 5, counted as a gap",
        "rare_gift_once: the rulebook's '1/turn' read as once a turn for the table (knob: player)",
        "sycophant_count: the rulebook's 'at the start of each Action' read as each Character's "
        "action (knob: phase); a tie on the Council names no leader",
        "advice: each Head advises once a vote, its priority player first, then the others by "
        "their influence (advice_by); a neutral Councillor votes with the heavier side (tied "
        "players' tokens plus advice), equal weight: traits",
        "the Treasurer stands in for an absent Privy Councillor only for a tied Council-seat vote",
        "a Mercenary's token comes from the acting Character or, for a Head, its Land (choice)",
        "reveal_windows: face-down Mercenaries may be revealed at the start of each phase "
        "(the rulebook's 'at any moment'), Spies and Thieves first (spy_thief_first)",
        readings.NOT_PLAYED,
    ),
)

__all__ = ["METRICS", "PACKED", "PROCEDURE", "CouncilGameParams"]
