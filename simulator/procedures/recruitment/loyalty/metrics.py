"""The metrics of ``recruitment.loyalty``: names, kinds and the kernel's layout.

Balance metrics use the names every whole game shares (docs/agents.md, "The game interface"):
``wins.seatN``, ``draws``, ``length``, ``lead_changes``, ``decided_at`` (``seat_spread`` is computed
after reduction from ``wins.seatN``). Here a game always lasts ``rounds`` rounds and the criterion
always names a winner set, so ``draws`` counts games whose win is *shared* (several empires tie
under the win criterion) and ``length`` is constant (reported for uniformity).
"""

from __future__ import annotations

from simulator.procedures.base import Metric
from simulator.procedures.recruitment.loyalty.params import LoyaltyParams
from simulator.procedures.recruitment.loyalty.state import COUNTERS

#: Share of a win stored per trial: 60 is divisible by every tie size 1..6.
WIN_SCALE = 60

#: Per-seat counters (state.COUNTER rows, same order); each reported in total and per seat.
#: Counters that are bookkeeping rather than balance: reported, not in the summary or the gate.
#: (gap_zero_tie counts the same removals as removed_no_tokens, read as the gap.)
BOOKKEEPING = frozenset({"gap_zero_tie"})

COUNTER_METRICS = (
    ("characters_owned", "characters an empire owns at the end of the game"),
    ("defections", "owned characters that changed owner (counted for the empire that lost them)"),
    ("removed_no_tokens", "characters that left the game with no tokens on them"),
    (
        "removed_multi_tie",
        "characters removed because several other empires tied above the owner (multi_tie: "
        "removed, as in 1.1 and 1.2)",
    ),
    (
        "gap_multi_tie",
        "several other empires tied above the owner and the character stayed (multi_tie: "
        "stays; 1.0 does not cover the case, a gap)",
    ),
    (
        "gap_zero_tie",
        "gap (every revision): no tokens left also reads as 'owner tied for highest' at zero "
        "(counted under either zero_tokens option, each round it arises)",
    ),
    (
        "gap_equipped",
        "a character with equipped cards left the game and they stayed with the empire "
        "(equipment: kept; 1.0 and 1.1 do not say, a gap)",
    ),
    ("tokens_lost", "influence tokens lost or removed from characters (to the bank by default)"),
    (
        "equipment_discarded",
        "equipped cards discarded with removed characters (equipment: discarded, as in 1.2)",
    ),
    (
        "given_multi_tie",
        "characters given to the tied rival who placed on them first when several other "
        "empires tied above the owner (multi_tie: first_placed; also counted as defections)",
    ),
)
assert [n for n, _ in COUNTER_METRICS] == ["characters_owned", *COUNTERS.names[1:]]
N_COUNTERS = COUNTERS.size

#: Metrics after the counters and the win shares, in the kernel's order.
TAIL = (
    "draws",
    "length",
    "lead_changes",
    "decided_at",
    "games_with_gap_multi_tie",
    "games_with_gap_zero_tie",
    "games_with_gap_equipped",
    "characters_in_play",
    "tokens_in_bank",
    "invariant_violations",
)


def n_metrics(players: int) -> int:
    return (N_COUNTERS + 1) * players + N_COUNTERS + len(TAIL)


def metric_index(players: int) -> dict[str, int]:
    """Position of every metric in ``metrics()`` for ``players`` seats (the kernel's layout)."""
    out: dict[str, int] = {}
    for b, (name, _) in enumerate(COUNTER_METRICS):
        out[name] = b * (players + 1)
        for k in range(players):
            out[f"{name}.seat{k + 1}"] = b * (players + 1) + 1 + k
    wins = N_COUNTERS * (players + 1)
    for k in range(players):
        out[f"wins.seat{k + 1}"] = wins + k
    for i, name in enumerate(TAIL):
        out[name] = wins + players + i
    return out


def metrics(p: LoyaltyParams) -> list[Metric]:
    """The metrics of parameters ``p`` (a LoyaltyParams), in the kernel's order."""
    out: list[Metric] = []
    for name, desc in COUNTER_METRICS:
        out.append(
            Metric(name, "mean", f"{desc}, all empires, per game", headline=name not in BOOKKEEPING)
        )
        for k in range(p.players):
            out.append(
                Metric(
                    f"{name}.seat{k + 1}", "mean", f"{desc}, seat {k + 1}, per game", headline=False
                )
            )
    for k in range(p.players):
        out.append(
            Metric(
                f"wins.seat{k + 1}",
                "mean",
                f"share of the win of seat {k + 1} (win criterion `{p.win}`, an assumption; "
                "ties share)",
                scale=WIN_SCALE,
            )
        )
    out += [
        Metric("draws", "proportion", "games whose win is shared by several empires"),
        Metric(
            "length",
            "distribution",
            "rounds played (always `rounds`: the game has no early end)",
            max_value=p.rounds,
            headline=False,
        ),
        Metric(
            "lead_changes",
            "mean",
            "times the sole leader (by the win criterion, at the end of a round) changed",
        ),
        Metric(
            "decided_at",
            "conditional_mean",
            "round from which the eventual sole winner led alone for good (games with a sole "
            "winner)",
        ),
        Metric(
            "games_with_gap_multi_tie",
            "proportion",
            "games where the multi-tie gap was reached at least once (multi_tie: stays, 1.0)",
            headline=False,
        ),
        Metric(
            "games_with_gap_zero_tie",
            "proportion",
            "games where the zero-tie gap was reached at least once",
            headline=False,
        ),
        Metric(
            "games_with_gap_equipped",
            "proportion",
            "games where the equipped-cards gap was reached at least once (equipment: kept, "
            "1.0 and 1.1)",
            headline=False,
        ),
        Metric(
            "characters_in_play",
            "mean",
            "characters not removed from the game at its end",
            headline=False,
        ),
        Metric(
            "tokens_in_bank",
            "mean",
            "influence tokens in the bank at the end of the game, all empires",
            headline=False,
        ),
        Metric(
            "invariant_violations",
            "mean",
            "rounds where token, gold or card conservation failed (debug only)",
            headline=False,
        ),
    ]
    return out
