"""Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2: a whole multi-round game (Recruitment rules).

A package split by concern: ``params`` (scenario parameters, packing), ``state`` (the one-array
game state), ``phases`` (setup, placement turns, zone resolution, maintenance: ``legal_moves`` and
``apply_move``), ``ownership`` (the ownership check per revision), ``projection`` and
``heuristic`` (``returns`` and ``heuristic``), ``greedy`` (the random and greedy agents), ``game``
(``GAME``, the interface the agents take), ``policy`` (the decision hook), ``metrics`` and
``kernel``. Documentation: docs/recruitment.md.
"""

from __future__ import annotations

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels (agents' edits count too)

# ruff: noqa: E402
from simulator.procedures.base import Procedure
from simulator.procedures.recruitment.loyalty.kernel import loyalty_kernel
from simulator.procedures.recruitment.loyalty.metrics import metrics
from simulator.procedures.recruitment.loyalty.params import LoyaltyParams, pack

NOTES = (
    "rule (rulebook): lost and removed tokens go to the bank, 'to be obtained by players later in "
    "the game' (knob returned_tokens: bank | supply)",
    "assumption: how tokens come back from the bank is not in the fragment; default none come "
    "back within the game (knob bank_refill: tokens per empire per round)",
    "rule (rulebook): placement goes round, one token a turn (an assumption), until every empire "
    "passes in succession (knob passing: until_all_pass | final); the first player rotates "
    "each round (knob first_player: rotate | fixed)",
    "assumption: the rulebook has no win condition; default most characters after `rounds`, ties "
    "share the win (knob win: most_characters | most_characters_then_loyalty)",
    "gap (every revision): no tokens left also reads as 'owner tied for highest' at zero -> "
    "removed; counted as gap_zero_tie",
    "gap (1.0): several other empires tie above the owner -> the character stays; counted as "
    "gap_multi_tie",
    "gap (1.0, 1.1): equipped cards of a character that leaves the game are not mentioned -> "
    "they stay; counted as gap_equipped (1.2 discards them)",
    "assumption: loyalty die d6 (loyalty_die); wages paid by descending loyalty, then ascending "
    "wage; income each round (income); at most tokens_per_round tokens a round",
    "a loyalty loss with no owner token left on the card has no effect",
    "agents: random, greedy (one-step lookahead on a heuristic of characters kept through the "
    "next loyalty checks and tokens in hand, docs/recruitment.md), rollout and mcts (playouts "
    "by greedy, scored by the heuristic)",
)

PROCEDURE = Procedure(
    name="recruitment.loyalty",
    title="Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2 (whole game)",
    rules="Recruitment rules §1–§3 (docs/rules/recruitment.md)",
    params_model=LoyaltyParams,
    metrics=metrics,
    pack=pack,
    kernel=loyalty_kernel,
    exact=None,
    example={"players": 4, "rounds": 10, "revision": "1.0"},
    notes=NOTES,
)
