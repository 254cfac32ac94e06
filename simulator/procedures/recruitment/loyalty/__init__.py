"""Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2: a whole multi-round game (Recruitment rules).

The revisions are presets of the ownership check's rule cases (``cases``), which a scenario may set
one by one or gather into a revision of its own.

A package split by concern: ``cases`` (the rule cases and the revisions' presets), ``params``
(scenario parameters, packing), ``state`` (the one-array
game state), ``phases`` (setup, placement turns, zone resolution, maintenance: ``legal_moves`` and
``apply_move``), ``ownership`` (the ownership check, case by case), ``projection`` and
``heuristic`` (``returns`` and ``heuristic``), ``greedy`` (the random and greedy agents), ``game``
(``GAME``, the interface the agents take), ``policy`` (the decision hook), ``metrics`` and
``kernel``. Documentation: docs/recruitment.md.
"""

from __future__ import annotations

from simulator.jitcache import drop_stale

drop_stale(__file__)  # before the modules load their cached kernels (agents' edits count too)

# ruff: noqa: E402
import numpy as np

from simulator.agents.game import WholeGame
from simulator.procedures.base import Procedure
from simulator.procedures.recruitment.loyalty.assumptions import ASSUMPTIONS, GIVEN
from simulator.procedures.recruitment.loyalty.cases import CASES, preset_lines, revision_fires
from simulator.procedures.recruitment.loyalty.game import GAME
from simulator.procedures.recruitment.loyalty.kernel import loyalty_kernel
from simulator.procedures.recruitment.loyalty.metrics import metrics
from simulator.procedures.recruitment.loyalty.packing import PACKED, metric_layout_of, pack
from simulator.procedures.recruitment.loyalty.params import LoyaltyParams
from simulator.procedures.recruitment.loyalty.phases import start_game
from simulator.procedures.recruitment.loyalty.state import STATE_SIZE
from simulator.procedures.recruitment.loyalty.userstep import specialize

NOTES = (
    *preset_lines(),
    "a scenario picks a revision and may set any case on top of it (revision: '1.1', multi_tie: "
    "first_placed), or name its own revision under revisions ({'1.3': {based_on: '1.2', "
    "multi_tie: first_placed}}); docs/recruitment.md, 'Writing revision 1.3'",
    "gap (every revision): no tokens left also reads as 'owner tied for highest' at zero -> "
    "removed (case zero_tokens); counted as gap_zero_tie",
    "gap (1.0): several other empires tie above the owner -> the character stays (case "
    "multi_tie); counted as gap_multi_tie",
    "gap (1.0, 1.1): equipped cards of a character that leaves the game are not mentioned -> "
    "they stay (case equipment); counted as gap_equipped (1.2 discards them)",
    "every other point the game rests on is a declared assumption (above), tagged and moved "
    "by --robustness assumptions: the game length, the deck, the economy, the die, the win",
    "rule (rulebook, recruitment phase ③⑶): a zone card without tokens is shuffled back into "
    "the deck: a random place in a shuffled deck, the same as shuffling it; a deck dealt in a "
    "set order (shuffle_deck: false) is shuffled whole with it",
    "a loyalty loss with no owner token left on the card has no effect",
    "agents: random, greedy (one-step lookahead on a heuristic of characters kept through the "
    "next loyalty checks and tokens in hand, docs/recruitment.md), rollout and mcts (playouts "
    "by greedy, scored by the heuristic)",
)

#: The metrics that count where the rule cases differ (cases.py), per option of each case knob,
#: and per revision the same for the cases it sets unlike 1.0: 1.0 keeps a character several
#: rivals tie above its owner (gap_multi_tie), 1.1 and 1.2 remove it (removed_multi_tie); 1.2
#: discards its equipment (equipment_discarded), 1.0 and 1.1 keep it (gap_equipped). A revision
#: of a scenario's own is compared through its cases (LoyaltyParams.rule_cases).
FIRES: dict[str, tuple[str, ...] | dict[str, tuple[str, ...]]] = {
    **{a.knob: a.fires for a in ASSUMPTIONS if a.fires},
    "revision": revision_fires(),
    **{c.name: c.fires for c in CASES},
}


def deal(row: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """A new game of the packed ``row`` at its first decision (a module function: a procedure
    with a designer's step travels pickled, its game with it)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    start_game(s, row, rng)
    return s


LADDER_DEALS = {
    "players": 4,
    "rounds": 10,
    "revision": "1.1",
    "deck": {
        "count": 30,
        "wage": {"low": 0, "high": 2},
        "base_loyalty": {"low": 0, "high": 2},
        "home": {"low": 0, "high": 4},
        "equipped": {"low": 0, "high": 2},
    },
    "tokens_per_round": 3,
}

PROCEDURE = Procedure(
    name="recruitment.loyalty",
    title="Recruitment and loyalty, revisions 1.0 / 1.1 / 1.2 (whole game)",
    rules="Recruitment rules §1–§3 (docs/rules/recruitment.md)",
    params_model=LoyaltyParams,
    metrics=metrics,
    pack=pack,
    kernel=loyalty_kernel,
    packed_layout=PACKED,
    metric_layout=metric_layout_of,
    exact=None,
    example={"players": 4, "rounds": 10, "revision": "1.0"},
    # The ladder's deals (scenarios/recruitment/ladder.yaml): homes, loyalty and a token cap,
    # so the interface tests meet every kind of decision.
    game=WholeGame(GAME, deal, example=LADDER_DEALS),
    notes=NOTES,
    assumptions=ASSUMPTIONS,
    given=GIVEN,
    fires=FIRES,
    specialize=specialize,
)
