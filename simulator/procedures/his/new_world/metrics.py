"""The New World race's metrics: their names and kinds (``metrics``) and the slot of each in the
kernel's value rows (``M_*``)."""

from __future__ import annotations

from simulator.layout import Layout
from simulator.procedures.base import Metric
from simulator.procedures.his.new_world.choice import OPTION_NAMES
from simulator.procedures.his.new_world.params import DISCOVERIES, POWERS, VP_OF, NewWorldParams


def metrics(p: NewWorldParams) -> list[Metric]:
    out = [
        Metric(
            f"vp.{w}",
            "distribution",
            f"VP from New World discoveries and conquests ({w})",
            max_value=sum(VP_OF),
        )
        for w in POWERS
    ]
    out += [
        Metric(f"cards.{w}", "mean", f"cards from riches and circumnavigation ({w})")
        for w in POWERS
    ]
    out += [
        Metric(f"explorers_lost.{w}", "mean", f"explorers lost ({w})", headline=False)
        for w in POWERS
    ]
    out += [
        Metric(f"first.{d}.{w}", "proportion", f"{w} is first to reach {d}", headline=False)
        for d in DISCOVERIES
        for w in POWERS
    ]
    out += [
        Metric(
            f"turn_of.{d}",
            "conditional_mean",
            f"turn {d} is first claimed, among games where it is",
            headline=False,
        )
        for d in DISCOVERIES
    ]
    out += [
        Metric(
            "gap.conquest_rolls_destroyed",
            "mean",
            "gap: riches rolls of destroyed by a conquest (conquest_destroyed applied)",
            headline=False,
        ),
        Metric(
            "gap.colony_rolls_depleted",
            "mean",
            "gap: riches rolls of card_depleted by a colony (colony_depleted applied)",
            headline=False,
        ),
    ]
    out += [
        Metric(
            f"skipped.{w}",
            "mean",
            f"explorations/conquests bought with an empty pool ({w}): not carried out",
            headline=False,
        )
        for w in POWERS
    ]
    out += [Metric(f"colonies.{w}", "mean", f"colonies held at the end ({w})") for w in POWERS]
    out += [Metric(f"conquests.{w}", "mean", f"conquests held at the end ({w})") for w in POWERS]
    out += [
        Metric(f"cards_riches.{w}", "mean", f"cards from New World riches ({w})", headline=False)
        for w in POWERS
    ]
    out += [
        Metric(
            f"cards_circumnavigation.{w}",
            "mean",
            f"cards from a circumnavigation roll of 12+ ({w})",
            headline=False,
        )
        for w in POWERS
    ]
    out += [
        Metric(
            f"cp_spent.{w}",
            "mean",
            f"CP spent on New World actions carried out ({w}): exploration 2, colony "
            "2 (Habsburg) or 3, conquest 4; VP per CP = vp / cp_spent",
        )
        for w in POWERS
    ]
    out += [
        Metric(
            f"wins.seat{k + 1}",
            "mean",
            f"share of the New World win of seat {k + 1} ({w}): the most New World VP at the end, "
            "ties split (an assumption: the rulebook names no New World winner)",
            scale=WIN_SCALE,
        )
        for k, w in enumerate(POWERS)
    ]
    out += [Metric("draws", "proportion", "games whose most New World VP is shared")]
    out += [
        Metric(
            f"chose.{o}.{w}",
            "mean",
            f"explorations of 10+ with two or more options open where {w}'s explorer took "
            f"{o.replace('_', ' ')} (by its policies agent, or the south_america plan)",
            headline=False,
        )
        for o in OPTION_NAMES
        for w in POWERS
    ]
    return out


#: The metric row, in the order of metrics(): each family a piece, its slots in the order the
#: metrics list them (by power in POWERS order; first.<discovery>.<power> discovery by discovery;
#: gap.conquest_rolls_destroyed then gap.colony_rolls_depleted; chose.<option>.<power> option by
#: option).
METRICS = Layout(
    ("vp", 3),
    ("cards", 3),
    ("explorers_lost", 3),
    ("first", 9 * 3),
    ("turn_of", 9),
    ("gap", 2),
    ("skipped", 3),
    ("colonies", 3),
    ("conquests", 3),
    ("cards_riches", 3),
    ("cards_circumnavigation", 3),
    ("cp_spent", 3),
    ("wins", 3),
    "draws",
    ("chose", 3 * 3),
)
N_METRICS = METRICS.size
M_VP, M_CARDS, M_LOST, M_FIRST, M_TURN_OF = (
    METRICS.at(n) for n in ("vp", "cards", "explorers_lost", "first", "turn_of")
)
M_GAP_CONQ = METRICS.at("gap")
M_GAP_COL = M_GAP_CONQ + 1
M_SKIPPED, M_COLONIES, M_CONQUESTS = (METRICS.at(n) for n in ("skipped", "colonies", "conquests"))
M_CARDS_RICHES, M_CARDS_CIRC, M_CP = (
    METRICS.at(n) for n in ("cards_riches", "cards_circumnavigation", "cp_spent")
)
M_WINS, M_DRAWS, M_CHOSE = (METRICS.at(n) for n in ("wins", "draws", "chose"))
#: Win shares are integers of 1/WIN_SCALE (ties of 2 or 3 powers split exactly).
WIN_SCALE = 6
