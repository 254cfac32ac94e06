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

The package is split by concern: ``params`` (the scenario's values and the packed row), ``state``
(array layouts and accessors), ``heuristic`` (priority counts, the leader, how a seat chooses),
``votes``, ``victory``, ``economy`` (income, spending, tax), ``mercenaries``, ``actions``,
``setup`` (the starting position, invariants), ``context`` (the decision hooks), ``interface``
(the game interface) and ``kernel`` (the turn loop, metrics, the trial loop). Interpretations
are listed in docs/council.md; the gaps the rulebook leaves are counted as ``gap.*``.
"""

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels

# ruff: noqa: E402
from simulator.procedures.base import Procedure
from simulator.procedures.council.game.kernel import council_game_kernel
from simulator.procedures.council.game.params import CouncilGameParams, metrics, pack

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
    notes=(
        "policies: random, greedy (one step ahead on its own priority count, lot ties), rollout "
        "and mcts (the generic search agents through the game interface, resuming a phase by "
        "replay; their horizon counts phases, 6 a turn; they model the other seats as greedy "
        "and resample the other seats' hidden Mercenary kinds)",
        "Land powers played: income_bonus (Black Harbour: a tie on Land + Head gives nobody the "
        "coin), mercenary_discount, mood_immune, rare_gift (Golden Coast), sway_head (Sapphire "
        "Lakes), sway_council (Brothers); the others are printed only (docs/council.md)",
        "remove_councillor_votes: the rulebook says both 4 and 5 of 7; default 5, counted as a gap",
        "rare_gift_once: the rulebook's '1/turn' read as once a turn for the table (knob: player)",
        "sycophant_count: the rulebook's 'at the start of each Action' read as each Character's "
        "action (knob: phase); a tie on the Council names no leader",
        "advice: each Head advises once a vote, by the player with priority on it only (the "
        "rulebook's 'then the other players by their influence' is not played); a neutral "
        "Councillor "
        "votes with the heavier side (tied players' tokens plus advice), equal weight: traits",
        "the Treasurer stands in for an absent Privy Councillor only for a tied Council-seat vote",
        "a Mercenary's token comes from the acting Character or, for a Head, its Land (choice)",
    ),
)
