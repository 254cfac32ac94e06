"""Here I Stand Diet of Worms, turn 1 (Here I Stand rules §20.3).

Habsburg, Papacy and Protestant each play a card in secret. The Papacy rolls ``Habsburg CP + Papal
CP`` dice, the Protestant ``Protestant CP + protestant_bonus_dice`` (4) dice; hits are 5-6. A tie
does nothing; otherwise the winner converts "some spaces" in the German zone: the hit
difference, as in a debate (``spaces_flipped: hit_difference``, a reading of an unclear line), or
the winner's own hits (``winner_hits``).

A card's CP is a fixed number or, for a hand not yet known, a distribution ``{values, weights}``.
A distribution is drawn from one 32-bit random half-word against integer thresholds
``floor(cumulative weight / total * 2**32)`` computed with exact fractions, so a draw is the same
on every machine and each value's probability is its weight share to within 2**-32.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BeforeValidator, Field, PlainSerializer, model_validator

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.base import (
    Alternative,
    Assumption,
    Metric,
    Params,
    Procedure,
    rulebook,
    settings,
)
from simulator.procedures.his._rules import cite
from simulator.procedures.his._validation import fail
from simulator.rng import block_word, high32, low32, word_base

MAX_CP = 6
MAX_VALUES = 8
MAX_BONUS = 8
#: Word 0 draws Habsburg (low half) and Papal (high half) CP, word 1 the Protestant's; Papal dice
#: read words 2.., Protestant dice words 12.., so a change to one side leaves the other's dice.
PAPAL_DICE_WORDS = 2
PROTESTANT_DICE_WORDS = 12
HIT_THRESHOLD = 2863311531  # rng.hit_threshold(5)
#: One card in the packed row: its number of values, the values, their thresholds (zero-padded).
CARD = Layout("count", ("values", MAX_VALUES), ("thresholds", MAX_VALUES))
CARD_COUNT, CARD_VALUES, CARD_THRESHOLDS = (CARD.at(n) for n in ("count", "values", "thresholds"))
CARDS = ("habsburg_cp", "papal_cp", "protestant_cp")
PACKED = Layout(
    "protestant_bonus_dice",
    *((name, CARD.size) for name in CARDS),
    "winner_hits",
)
PROTESTANT_BONUS_DICE, WINNER_HITS = PACKED.at("protestant_bonus_dice"), PACKED.at("winner_hits")
HABSBURG_CP, PAPAL_CP, PROTESTANT_CP = (PACKED.at(name) for name in CARDS)

#: The metric row, in the order of metrics().
METRICS = Layout("protestant_wins", "papacy_wins", "tie", "protestant_flips", "papal_flips")
N_METRICS = METRICS.size
PROTESTANT_WINS, PAPACY_WINS, TIE = (
    METRICS.at(n) for n in ("protestant_wins", "papacy_wins", "tie")
)
PROTESTANT_FLIPS, PAPAL_FLIPS = METRICS.at("protestant_flips"), METRICS.at("papal_flips")


class CPDistribution(Params):
    values: list[int] = Field(
        min_length=1,
        max_length=MAX_VALUES,
        description="possible CP values of the card (a known card: write its CP as a number)",
    )
    weights: list[float] = Field(
        min_length=1, max_length=MAX_VALUES, description="relative weight of each value (>= 0)"
    )

    @model_validator(mode="after")
    def _table(self) -> CPDistribution:
        title = "CPDistribution"
        for i, v in enumerate(self.values):
            if not 0 <= v <= MAX_CP:
                fail(title, ("values", i), f"a card's CP must be between 0 and {MAX_CP}", v)
        if len(self.weights) != len(self.values):
            fail(
                title,
                ("weights",),
                f"needs one weight per value ({len(self.values)} values, "
                f"{len(self.weights)} weights)",
                self.weights,
            )
        for i, w in enumerate(self.weights):
            if not (w >= 0 and np.isfinite(w)):
                fail(title, ("weights", i), "a weight must be a finite number >= 0", w)
        if sum(self.weights) <= 0:
            fail(title, ("weights",), "at least one weight must be above 0", self.weights)
        return self

    def table(self) -> list[tuple[int, Fraction]]:
        """(value, exact probability) pairs; weights read as exact binary fractions."""
        ws = [Fraction(w) for w in self.weights]
        total = sum(ws)
        return [(v, w / total) for v, w in zip(self.values, ws, strict=True)]

    def thresholds(self) -> list[int]:
        """Integer thresholds: value k is drawn when ``u32 < thresholds[k]`` (and no earlier)."""
        bounds = []
        cum = Fraction(0)
        for _, q in self.table():
            cum += q
            bounds.append(int(cum * 2**32))  # floor: Fraction >= 0
        bounds[-1] = 2**32
        return bounds


def _fixed_or_table(v: Any) -> Any:
    """A fixed CP (a number) becomes a one-value table, so errors keep one clean location."""
    if isinstance(v, bool):
        raise ValueError("a card's CP must be a number or {values, weights}")
    if isinstance(v, int):
        if not 0 <= v <= MAX_CP:
            raise ValueError(f"a card's CP must be between 0 and {MAX_CP}")
        return {"values": [v], "weights": [1]}
    return v


def _as_written(d: CPDistribution) -> Any:
    """A one-value table is written back as the plain number it came from."""
    if len(d.values) == 1:
        return d.values[0]
    return {"values": list(d.values), "weights": list(d.weights)}


#: A card's CP: a number, or a distribution ``{values, weights}`` for a hand not yet known.
CardCP = Annotated[
    CPDistribution,
    BeforeValidator(_fixed_or_table, json_schema_input_type=int | CPDistribution),
    PlainSerializer(_as_written),
]


class DietParams(Params):
    habsburg_cp: CardCP = Field(
        description="CP of the Habsburg card (a number, or {values, weights})"
    )
    papal_cp: CardCP = Field(description="CP of the Papal card")
    protestant_cp: CardCP = Field(description="CP of the Protestant card")
    protestant_bonus_dice: int = Field(
        default=4, ge=0, le=MAX_BONUS, description="dice the Protestant adds to its card's CP"
    )
    spaces_flipped: Literal["hit_difference", "winner_hits"] = Field(
        default="hit_difference",
        description="the 'some spaces' the winner converts (Here I Stand rules §20.3 (3)): the "
        "hit difference, as in a debate (§16.2 ⑦; a reading), or the winner's own hits",
    )


def card_table(spec: CPDistribution) -> list[tuple[int, Fraction]]:
    return spec.table()


def metrics(p: DietParams) -> list[Metric]:
    return [
        Metric("protestant_wins", "proportion", "the Protestant scores more hits"),
        Metric("papacy_wins", "proportion", "the Papacy scores more hits"),
        Metric("tie", "proportion", "equal hits: nothing happens"),
        Metric(
            "protestant_flips",
            "distribution",
            "German spaces the Protestant flips",
            max_value=MAX_CP + MAX_BONUS,  # fixed, so every variant shares the histogram
        ),
        Metric(
            "papal_flips",
            "distribution",
            "German spaces the Papacy flips",
            max_value=2 * MAX_CP,
        ),
    ]


def _card(spec: CPDistribution) -> np.ndarray:
    pad = [0] * (MAX_VALUES - len(spec.values))
    return CARD.row(
        count=len(spec.values),
        values=[*spec.values, *pad],
        thresholds=[*spec.thresholds(), *pad],
    )


def pack(p: DietParams) -> np.ndarray:
    cards: dict[str, Any] = {name: _card(getattr(p, name)) for name in CARDS}
    return PACKED.row(
        protestant_bonus_dice=p.protestant_bonus_dice,
        winner_hits=1 if p.spaces_flipped == "winner_hits" else 0,
        **cards,
    )


@inline
def _draw(packed, v, card, u32):
    """CP of the card at offset ``card`` from the 32-bit draw ``u32`` (thresholds are exact in
    float64)."""
    n = np.int64(packed[v, card + CARD_COUNT])
    for k in range(n - 1):
        if u32 < np.uint64(packed[v, card + CARD_THRESHOLDS + k]):
            return np.int64(packed[v, card + CARD_VALUES + k])
    return np.int64(packed[v, card + CARD_VALUES + n - 1])


@inline
def _count_hits(hits, key, first, m, word0, dice, max_dice):
    """Hits of ``dice[i]`` dice per trial, die-major and masked so the loop vectorises."""
    thr = np.uint64(HIT_THRESHOLD)
    for i in range(m):
        hits[i] = 0
    for w in range((max_dice + 1) // 2):
        base = word_base(key, first, word0 + w)
        for i in range(m):
            x = block_word(base, i)
            n = dice[i]
            hits[i] += (np.int64(low32(x) >= thr) & np.int64(2 * w < n)) + (
                np.int64(high32(x) >= thr) & np.int64(2 * w + 1 < n)
            )


@kernel
def diet_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    papal_dice = np.zeros(BLOCK, dtype=np.int64)
    protestant_dice = np.zeros(BLOCK, dtype=np.int64)
    papal_hits = np.zeros(BLOCK, dtype=np.int64)
    protestant_hits = np.zeros(BLOCK, dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        base0 = word_base(key, start, 0)
        base1 = word_base(key, start, 1)
        for v in range(n_variants):
            bonus = np.int64(packed[v, PROTESTANT_BONUS_DICE])
            # The winner's own hits are the difference plus the loser's hits.
            own_hits = np.int64(packed[v, WINNER_HITS] > 0.5)
            for i in range(m):
                x = block_word(base0, i)
                papal_dice[i] = _draw(packed, v, HABSBURG_CP, low32(x)) + _draw(
                    packed, v, PAPAL_CP, high32(x)
                )
                protestant_dice[i] = (
                    _draw(packed, v, PROTESTANT_CP, low32(block_word(base1, i))) + bonus
                )
            _count_hits(papal_hits, key, start, m, PAPAL_DICE_WORDS, papal_dice, 2 * MAX_CP)
            _count_hits(
                protestant_hits,
                key,
                start,
                m,
                PROTESTANT_DICE_WORDS,
                protestant_dice,
                MAX_CP + bonus,
            )
            for i in range(m):
                diff = protestant_hits[i] - papal_hits[i]
                values[v, PROTESTANT_WINS, i] = diff > 0
                values[v, PAPACY_WINS, i] = diff < 0
                values[v, TIE, i] = diff == 0
                values[v, PROTESTANT_FLIPS, i] = (
                    max(diff, 0) + own_hits * (diff > 0) * papal_hits[i]
                )
                values[v, PAPAL_FLIPS, i] = (
                    max(-diff, 0) + own_hits * (diff < 0) * protestant_hits[i]
                )
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def _hits_pmf(n: int) -> list[Fraction]:
    return [Fraction(comb(n, k) * 2 ** (n - k), 3**n) for k in range(n + 1)]


def exact(p: DietParams) -> dict[str, float]:
    """Exact values over the three cards' CP laws and both sides' binomial hits.

    Each card's law is read from its values and weights here, not through the thresholds that
    pack the kernel's inputs.
    """

    def law(spec: CPDistribution) -> list[tuple[int, Fraction]]:
        total = sum(Fraction(w) for w in spec.weights)
        return [(v, Fraction(w) / total) for v, w in zip(spec.values, spec.weights, strict=True)]

    out = dict.fromkeys([m.name for m in metrics(p)], Fraction(0))
    for h, qh in law(p.habsburg_cp):
        for c, qc in law(p.papal_cp):
            for r, qr in law(p.protestant_cp):
                q = qh * qc * qr
                pap = _hits_pmf(h + c)
                prot = _hits_pmf(r + p.protestant_bonus_dice)
                for a, pa in enumerate(prot):
                    for b, pb in enumerate(pap):
                        w = q * pa * pb
                        own = p.spaces_flipped == "winner_hits"
                        if a > b:
                            out["protestant_wins"] += w
                            out["protestant_flips"] += w * (a if own else a - b)
                        elif a < b:
                            out["papacy_wins"] += w
                            out["papal_flips"] += w * (b if own else b - a)
                        else:
                            out["tie"] += w
    return {k: float(v) for k, v in out.items()}


ASSUMPTIONS = (
    Assumption(
        name="spaces_flipped",
        knob="spaces_flipped",
        tag="reading",
        rule=cite("20.3 (3)"),
        text="the winner converts 'some spaces' (部分地区) in the German zone, the number not "
        "given: read as the hit difference, since the Diet is 'a debate without debaters' and a "
        "debate's winner converts the difference (§16.2 ⑦)",
        alternatives=(Alternative("the winner's own hits", {"spaces_flipped": "winner_hits"}),),
    ),
)


PROCEDURE = Procedure(
    name="his.diet_of_worms",
    title="Here I Stand Diet of Worms (turn 1)",
    rules="Here I Stand rules §20.3 (docs/rules/here-i-stand.md#s20-3)",
    assumptions=ASSUMPTIONS,
    given=(
        *settings("habsburg_cp", "papal_cp", "protestant_cp"),
        *rulebook(cite("20.3"), "protestant_bonus_dice"),
    ),
    params_model=DietParams,
    metrics=metrics,
    pack=pack,
    kernel=diet_kernel,
    exact=exact,
    example={
        "habsburg_cp": {"values": [1, 2, 3, 4, 5], "weights": [2, 4, 4, 2, 1]},
        "papal_cp": 2,
        "protestant_cp": 2,
    },
    notes=("a CP distribution is drawn against integer thresholds (exact to 2**-32 per value)",),
)
