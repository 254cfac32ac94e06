"""Here I Stand: the French chateaux (Here I Stand rules §14.1).

The home card is once a turn (Here I Stand rules §4.1), so France builds at most once a turn;
``uses_per_turn`` above 1 is a house rule. Each time France plays its home card as the event
(Francis I on the map, not besieged), it rolls a d6, adds the modifiers that apply that turn and
reads the chateaux table: VP and cards. VP from chateaux stop at ``vp_cap`` (6) in total; cards do
not. The table and the modifiers are scenario data (assumption: the rulebook names neither). A
modifier applies ``always`` or on the listed turns.

Random words: use u (0-based) of turn t (1-based) rolls the low half of word ``8 (t - 1) + u``, so
a variant with fewer uses a turn still rolls the same die for the first use of each turn.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import (
    BLOCK,
    UNDEFINED,
    accumulate_block,
    block_count,
    new_stats,
    trial_block,
)
from simulator.jit import kernel
from simulator.layout import Layout
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure, rulebook
from simulator.procedures.his._rules import cite
from simulator.procedures.his._tables import check_table
from simulator.rng import d6_of, low32, word

MAX_TURNS = 20
MAX_USES = 6
WORDS_PER_TURN = 8
MAX_MODIFIERS = 8
LOW, HIGH = -30, 40


class Modifier(Params):
    value: int = Field(ge=-6, le=6, description="added to the d6 roll")
    when: Literal["always"] | list[int] = Field(
        default="always", description="always, or the turns on which the modifier applies"
    )

    @field_validator("when")
    @classmethod
    def _turns(cls, when: Literal["always"] | list[int]) -> Literal["always"] | list[int]:
        if when != "always":
            for i, t in enumerate(when):
                if not 1 <= t <= MAX_TURNS:
                    raise ValueError(f"entry {i + 1}: turn {t} is not a turn (1 to {MAX_TURNS})")
        return when

    def applies(self, turn: int) -> bool:
        return self.when == "always" or turn in self.when


class ChateauxRow(Params):
    low: int = Field(ge=LOW, le=HIGH, description="lowest modified total of the row")
    high: int = Field(ge=LOW, le=HIGH, description="highest modified total of the row")
    vp: int = Field(default=0, ge=0, le=6, description="VP gained (counted toward the cap)")
    cards: int = Field(default=0, ge=0, le=4, description="cards drawn (net of any discard)")

    @field_validator("high")
    @classmethod
    def _ordered(cls, high: int, info: ValidationInfo) -> int:
        low = info.data.get("low", high)
        if high < low:
            raise ValueError(f"must be at least low ({low})")
        return high


#: Assumption: the rulebook names the chateaux table but not its rows; these are illustrative.
DEFAULT_TABLE = [
    ChateauxRow(low=LOW, high=2, vp=0, cards=1),
    ChateauxRow(low=3, high=4, vp=1, cards=0),
    ChateauxRow(low=5, high=7, vp=1, cards=1),
    ChateauxRow(low=8, high=HIGH, vp=2, cards=1),
]


def possible_totals(turns: int, modifiers: list[Modifier]) -> set[int]:
    """Every modified total a roll can show in a game of ``turns`` turns."""
    out: set[int] = set()
    for t in range(1, turns + 1):
        mod = sum(m.value for m in modifiers if m.applies(t))
        out.update(range(1 + mod, 7 + mod))
    return out


class ChateauxParams(Params):
    turns: int = Field(default=9, ge=1, le=MAX_TURNS, description="turns played")
    uses_per_turn: int = Field(
        default=1,
        ge=0,
        le=MAX_USES,
        description="home-card events per turn (Francis I on the map, not besieged): 1 by the "
        "rules (a home card is once a turn, Here I Stand rules §4.1); 0 for none; more is a house "
        "rule",
    )
    modifiers: list[Modifier] = Field(
        default=[], max_length=MAX_MODIFIERS, description="modifiers added to the d6"
    )
    vp_cap: int = Field(default=6, ge=0, le=30, description="most VP the chateaux give in total")
    table: list[ChateauxRow] = Field(
        default=DEFAULT_TABLE,
        min_length=1,
        max_length=16,
        validate_default=True,
        description="modified-total ranges of the chateaux table (INVENTED: the rulebook prints "
        "no rows)",
    )

    @field_validator("table")
    @classmethod
    def _covers_every_total(
        cls, rows: list[ChateauxRow], info: ValidationInfo
    ) -> list[ChateauxRow]:
        totals = possible_totals(info.data.get("turns", 1), info.data.get("modifiers", []))
        check_table([(r.low, r.high) for r in rows], sorted(totals), "modified total")
        return rows


#: The metric row; ``vp_by_turn.k`` is slot k - 1 of the last piece (``turns`` slots used).
METRICS = Layout(
    "chateaux_vp",
    "chateaux_cards",
    "vp_cap_reached",
    "vp_over_cap",
    "cap_reached_turn",
    ("vp_by_turn", MAX_TURNS),
)
CHATEAUX_VP, CHATEAUX_CARDS, CAP_REACHED = (
    METRICS.at(n) for n in ("chateaux_vp", "chateaux_cards", "vp_cap_reached")
)
VP_OVER_CAP, CAP_TURN, BY_TURN = (
    METRICS.at(n) for n in ("vp_over_cap", "cap_reached_turn", "vp_by_turn")
)


def metrics(p: ChateauxParams) -> list[Metric]:
    return [
        Metric("chateaux_vp", "distribution", "VP from chateaux (capped)", max_value=p.vp_cap),
        Metric("chateaux_cards", "mean", "cards drawn from chateaux"),
        Metric("vp_cap_reached", "proportion", "the chateaux VP reached the cap"),
        Metric("vp_over_cap", "mean", "VP rolled but lost to the cap", headline=False),
        Metric(
            "cap_reached_turn",
            "conditional_mean",
            "the turn the chateaux VP reach the cap, among games where they do",
        ),
    ] + [
        Metric(
            f"vp_by_turn.{k}",
            "mean",
            f"chateaux VP (capped) at the end of turn {k}",
            headline=False,
        )
        for k in range(1, p.turns + 1)
    ]


def _by_total(p: ChateauxParams) -> tuple[dict[int, int], dict[int, int]]:
    vp = {t: r.vp for r in p.table for t in range(r.low, r.high + 1)}
    cards = {t: r.cards for r in p.table for t in range(r.low, r.high + 1)}
    return vp, cards


SPAN = HIGH - LOW + 1
#: Packed row: the modifier of each turn 1..MAX_TURNS, then the VP and cards of every modified
#: total LOW..HIGH.
PACKED = Layout(
    "turns",
    "uses_per_turn",
    "vp_cap",
    ("modifier", MAX_TURNS),
    ("vp_of_total", SPAN),
    ("cards_of_total", SPAN),
)
TURNS, USES_PER_TURN, VP_CAP = (PACKED.at(n) for n in ("turns", "uses_per_turn", "vp_cap"))
MODIFIER, VP_AT, CARDS_AT = (PACKED.at(n) for n in ("modifier", "vp_of_total", "cards_of_total"))


def pack(p: ChateauxParams) -> np.ndarray:
    vp, cards = _by_total(p)
    return PACKED.row(
        turns=p.turns,
        uses_per_turn=p.uses_per_turn,
        vp_cap=p.vp_cap,
        modifier=[
            sum(m.value for m in p.modifiers if m.applies(t)) for t in range(1, MAX_TURNS + 1)
        ],
        vp_of_total=[vp.get(t, 0) for t in range(LOW, HIGH + 1)],
        cards_of_total=[cards.get(t, 0) for t in range(LOW, HIGH + 1)],
    )


@kernel
def chateaux_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    n_metrics = BY_TURN + np.int64(packed[0, TURNS])
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            turns = np.int64(packed[v, TURNS])
            uses = np.int64(packed[v, USES_PER_TURN])
            cap = np.int64(packed[v, VP_CAP])
            for i in range(m):
                t = start + i
                vp = 0
                cards = 0
                cap_turn = UNDEFINED
                for turn in range(turns):
                    mod = np.int64(packed[v, MODIFIER + turn])
                    for u in range(uses):
                        total = d6_of(low32(word(key, t, WORDS_PER_TURN * turn + u))) + mod
                        vp += np.int64(packed[v, VP_AT + total - LOW])
                        cards += np.int64(packed[v, CARDS_AT + total - LOW])
                    if vp >= cap and cap_turn == UNDEFINED:
                        cap_turn = turn + 1
                    values[v, BY_TURN + turn, i] = min(vp, cap)
                values[v, CAP_TURN, i] = cap_turn
                values[v, CHATEAUX_VP, i] = min(vp, cap)
                values[v, CHATEAUX_CARDS, i] = cards
                values[v, CAP_REACHED, i] = vp >= cap
                values[v, VP_OVER_CAP, i] = max(vp - cap, 0)
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def exact(p: ChateauxParams) -> dict[str, float]:
    """Exact values: the distribution of uncapped VP carried through every roll."""
    vp_of, cards_of = _by_total(p)
    dist: dict[int, Fraction] = {0: Fraction(1)}
    cards = Fraction(0)
    cap = p.vp_cap
    by_turn: list[Fraction] = []
    reached_before = Fraction(0)
    turn_sum = Fraction(0)
    for turn in range(1, p.turns + 1):
        mod = sum(m.value for m in p.modifiers if m.applies(turn))
        for _ in range(p.uses_per_turn):
            nxt: dict[int, Fraction] = {}
            for face in range(1, 7):
                gain = vp_of[face + mod]
                cards += Fraction(cards_of[face + mod], 6)
                for vp, q in dist.items():
                    nxt[vp + gain] = nxt.get(vp + gain, Fraction(0)) + q / 6
            dist = nxt
        by_turn.append(sum((q * min(vp, cap) for vp, q in dist.items()), Fraction(0)))
        reached = sum((q for vp, q in dist.items() if vp >= cap), Fraction(0))
        turn_sum += turn * (reached - reached_before)  # VP never fall: first reached now
        reached_before = reached
    out = {
        "chateaux_vp": float(sum(q * min(vp, cap) for vp, q in dist.items())),
        "chateaux_cards": float(cards),
        "vp_cap_reached": float(sum(q for vp, q in dist.items() if vp >= cap)),
        "vp_over_cap": float(sum(q * max(vp - cap, 0) for vp, q in dist.items())),
    }
    if reached_before > 0:
        out["cap_reached_turn"] = float(turn_sum / reached_before)
    out.update({f"vp_by_turn.{k + 1}": float(x) for k, x in enumerate(by_turn)})
    return out


ASSUMPTIONS = (
    Assumption(
        name="chateaux_table",
        knob="table",
        tag="invented",
        rule=cite("14.1"),
        text="the rules name the chateaux table but print no rows; the default "
        "(<=2: 1 card, 3-4: 1 VP, 5-7: 1 VP + 1 card, >=8: 2 VP + 1 card) is illustrative: "
        "replace it with your copy's",
        alternatives=(
            Alternative(
                "a stingier table (thresholds one higher)",
                {
                    "table": [
                        {"low": -30, "high": 3, "vp": 0, "cards": 1},
                        {"low": 4, "high": 5, "vp": 1, "cards": 0},
                        {"low": 6, "high": 8, "vp": 1, "cards": 1},
                        {"low": 9, "high": 30, "vp": 2, "cards": 1},
                    ]
                },
                "invented",
            ),
        ),
    ),
    Assumption(
        name="chateaux_modifiers",
        knob="modifiers",
        tag="invented",
        rule=cite("14.1"),
        text="the rules say modifiers apply but name none; the default is no modifier",
        alternatives=(
            Alternative("-1 always", {"modifiers": [{"value": -1}]}, "invented"),
            Alternative("+1 always", {"modifiers": [{"value": 1}]}, "invented"),
        ),
    ),
)


PROCEDURE = Procedure(
    name="his.chateaux",
    title="Here I Stand: the French chateaux",
    rules="Here I Stand rules §14.1 (docs/rules/here-i-stand.md#s14-1)",
    assumptions=ASSUMPTIONS,
    given=rulebook(cite("14.1"), "turns", "uses_per_turn", "vp_cap"),
    params_model=ChateauxParams,
    metrics=metrics,
    pack=pack,
    kernel=chateaux_kernel,
    exact=exact,
    example={"turns": 9, "modifiers": [{"value": -1}]},
    notes=(
        "the home card is once a turn (Here I Stand rules §4.1): uses_per_turn above 1 is a house "
        "rule",
        "the VP cap counts chateaux VP only; cards are not capped",
    ),
)
