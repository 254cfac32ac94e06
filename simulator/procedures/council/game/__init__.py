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

from simulator.procedures.base import Procedure
from simulator.procedures.council.game.kernel import council_game_kernel
from simulator.procedures.council.game.params import CouncilGameParams, metrics, pack

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
