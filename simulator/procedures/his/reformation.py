"""Here I Stand reformation and counter-reformation attempts (Here I Stand rules §16.1).

The acting side names a language zone, then attempts its targets one at a time. On each target both
sides count dice: +1 per adjacent space of their religion, +1 per adjacent space holding their land
units, +2 if their units are in the target; the Protestant also +1 per adjacent reformer and +2
for a reformer in the target. Both roll and compare only their single highest die; higher wins and
sets the religion. A tie goes to the Protestant when it acts in the named zone, to the Papacy when
it acts in the named zone with Paul III as pope, otherwise to the defender (the side not acting).
After a full Bible translation the Protestant adds +1 to its highest die (``bible_bonus``).

Gap: a side with zero dice. By default it rolls one die anyway (``zero_dice: roll_one``); with
``zero_dice: no_roll`` it has no die and loses unless the other side has none either (then the tie
rule decides). Either way ``zero_dice_rolls`` counts how often a side had zero dice.

``chain``: the targets lie in a line, each adjacent to the next and counted in the next one's
dice as a space of the defender's religion. A success converts it, so the next target is counted
again (Here I Stand rules §16.1 ③): one die more for the acting side (an adjacent space of its
religion), one die fewer for the defender (never below 0). Not in the rules as a mode: it saves
writing each target's dice for every earlier result.

Only the highest die matters, so each side's highest die is drawn from one 32-bit half-word by the
law of the highest of n d6 (:func:`highest_thresholds`), not die by die: one word per target instead
of one per two dice. We previously rolled every die (``u * 6 >> 32`` per die, the maximum taken):
exact to the same 2**-32, but 14 words per six-target Bible translation instead of 6, and the
AVX2 machines here have no 64-bit vector multiply, so the generator dominates.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import (
    BLOCK,
    accumulate_block,
    accumulate_weighted,
    block_count,
    new_stats,
    trial_block,
)
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure, settings
from simulator.procedures.his._rules import cite
from simulator.rng import block_word, high32, low32, word_base

MAX_TARGETS = 12
MAX_ADJACENT = 8
# Target k reads word k: its low half draws the Protestant's highest die, its high half the
# Papacy's (see highest_thresholds), so a variant that changes one side's dice, or the acting
# side, leaves the other draws alone.

PACKED = Layout(
    "targets",
    "protestant_acts",
    "paul_iii",
    "bible_bonus",
    "chain",
    "roll_one",
    ("protestant_dice", MAX_TARGETS),
    ("papal_dice", MAX_TARGETS),
    ("in_named_zone", MAX_TARGETS),
)
N_TARGETS, PROTESTANT_ACTS, PAUL_III = (
    PACKED.at(n) for n in ("targets", "protestant_acts", "paul_iii")
)
BIBLE_BONUS, CHAIN, ROLL_ONE = (PACKED.at(n) for n in ("bible_bonus", "chain", "roll_one"))
PROTESTANT_DICE, PAPAL_DICE = PACKED.at("protestant_dice"), PACKED.at("papal_dice")
IN_NAMED_ZONE = PACKED.at("in_named_zone")

#: The metric row: ``success.target<k>`` is slot k - 1 of the piece ``success``; the row holds
#: as many as there are targets and closes up after them, so ``zero_dice_rolls`` is at
#: ``SUCCESS + targets``.
METRICS = Layout(
    "successes", "all_succeed", "any_succeed", ("success", MAX_TARGETS), "zero_dice_rolls"
)
SUCCESSES, ALL_SUCCEED, ANY_SUCCEED = (
    METRICS.at(n) for n in ("successes", "all_succeed", "any_succeed")
)
SUCCESS = METRICS.at("success")

Zone = Literal["german", "french", "english", "italian", "spanish"]


class ProtestantDice(Params):
    adjacent_spaces: int = Field(
        default=0, ge=0, le=MAX_ADJACENT, description="adjacent non-pass Protestant spaces"
    )
    adjacent_units: int = Field(
        default=0,
        ge=0,
        le=MAX_ADJACENT,
        description="adjacent non-pass spaces with Protestant land units",
    )
    units_in_target: bool = Field(
        default=False, description="Protestant land units in the target (+2)"
    )
    adjacent_reformers: int = Field(
        default=0, ge=0, le=MAX_ADJACENT, description="adjacent non-pass spaces with a reformer"
    )
    reformer_in_target: bool = Field(default=False, description="a reformer in the target (+2)")

    def dice(self) -> int:
        return (
            self.adjacent_spaces
            + self.adjacent_units
            + 2 * self.units_in_target
            + self.adjacent_reformers
            + 2 * self.reformer_in_target
        )


class PapalDice(Params):
    adjacent_spaces: int = Field(
        default=0, ge=0, le=MAX_ADJACENT, description="adjacent non-pass Catholic spaces"
    )
    adjacent_units: int = Field(
        default=0,
        ge=0,
        le=MAX_ADJACENT,
        description="adjacent non-pass spaces with Catholic land units",
    )
    units_in_target: bool = Field(
        default=False, description="Catholic land units in the target (+2)"
    )

    def dice(self) -> int:
        return self.adjacent_spaces + self.adjacent_units + 2 * self.units_in_target


class Target(Params):
    protestant: ProtestantDice = Field(
        default_factory=ProtestantDice, description="the Protestant's dice sources on this target"
    )
    papal: PapalDice = Field(
        default_factory=PapalDice, description="the Papacy's dice sources on this target"
    )
    in_named_zone: bool = Field(default=True, description="the target lies in the named zone")


class ReformationParams(Params):
    side: Literal["protestant", "papacy"] = Field(
        default="protestant", description="the acting side (protestant: reformation)"
    )
    named_zone: Zone = Field(default="german", description="the language zone named for the action")
    targets: list[Target] = Field(
        min_length=1, max_length=MAX_TARGETS, description="spaces attempted, in order"
    )
    paul_iii: bool = Field(default=False, description="Paul III is pope (Papal ties in the zone)")
    bible_bonus: bool = Field(
        default=False, description="+1 to the Protestant's highest die (full Bible translation)"
    )
    chain: bool = Field(
        default=False,
        description="each target is adjacent to the next and counted in its dice as the "
        "defender's: a success moves one die from the defender to the acting side on the next "
        "target only",
    )
    zero_dice: Literal["roll_one", "no_roll"] = Field(
        default="roll_one", description="gap: a side with no dice rolls one die, or has none"
    )

    @field_validator("bible_bonus")
    @classmethod
    def _bible_is_protestant(cls, v: bool, info: ValidationInfo) -> bool:
        if v and info.data.get("side") == "papacy":
            raise ValueError(
                "a Bible translation bonus belongs to Protestant reformations: set side: protestant"
                " or bible_bonus: false"
            )
        return v


def metrics(p: ReformationParams) -> list[Metric]:
    n = len(p.targets)
    out = [
        Metric("successes", "distribution", "targets won by the acting side", max_value=n),
        Metric("all_succeed", "proportion", "every target won by the acting side"),
        Metric("any_succeed", "proportion", "at least one target won by the acting side"),
    ]
    out += [
        Metric(
            f"success.target{k + 1}",
            "proportion",
            f"target {k + 1} won by the acting side",
            headline=False,
        )
        for k in range(n)
    ]
    out.append(
        Metric(
            "zero_dice_rolls",
            "mean",
            "gap: attempts where a side had zero dice (per action)",
            headline=False,
        )
    )
    return out


def pack(p: ReformationParams) -> np.ndarray:
    pad = [0] * (MAX_TARGETS - len(p.targets))
    return PACKED.row(
        targets=len(p.targets),
        protestant_acts=p.side == "protestant",
        paul_iii=p.paul_iii,
        bible_bonus=p.bible_bonus,
        chain=p.chain,
        roll_one=p.zero_dice == "roll_one",
        protestant_dice=[t.protestant.dice() for t in p.targets] + pad,
        papal_dice=[t.papal.dice() for t in p.targets] + pad,
        in_named_zone=[int(t.in_named_zone) for t in p.targets] + pad,
    )


def highest_thresholds(n: int) -> list[int]:
    """Integer thresholds of the highest of ``n`` d6 drawn from one 32-bit word ``u``.

    The highest die is ``1 + #{k in 1..5 : u >= T[k]}`` with ``T[k] = ceil(k**n * 2**32 / 6**n)``,
    so ``P(highest <= k) = T[k] / 2**32``, within 2**-32 of ``(k/6)**n``: as close as rolling the
    dice one by one from ``u * 6 >> 32`` faces, at one half-word per side instead of one per die.
    Adding a die never lowers the face drawn from the same word, so variants that change a side's
    dice compare on common random numbers. ``n = 0`` gets the one-die table.
    """
    n = max(n, 1)
    return [-(-(k**n << 32) // 6**n) for k in range(1, 6)]


#: THRESHOLDS[n] for n = 0 .. MAX_DICE + 1 (the chain die); int64 so the kernel compares signed.
MAX_DICE = 3 * MAX_ADJACENT + 4
THRESHOLDS = np.array([highest_thresholds(n) for n in range(MAX_DICE + 2)], dtype=np.int64)


@inline
def _face(u, t, e):
    """Highest die from 32-bit word ``u``: thresholds row ``t[0]`` (the target's own dice) or
    ``t[1]`` (after a chained success), selected per trial by ``e`` in {0, 1} without a
    branch."""
    f = np.int64(1)
    for k in range(5):
        f += np.int64(u >= t[0, k] + (t[1, k] - t[0, k]) * e)
    return f


@inline
def _plain_face(u, t):
    """Highest die from 32-bit word ``u`` with thresholds row ``t[0]``."""
    f = np.int64(1)
    for k in range(5):
        f += np.int64(u >= t[0, k])
    return f


@inline
def _attempts_plain(
    out,
    successes,
    pattern,
    key,
    start,
    m,
    k,
    tp,
    tc,
    prot_has,
    pap_has,
    bible,
    protestant_acts,
    tie_to_actor,
):
    """One target for every trial of the block when no chain die can change the dice counts:
    then the zero-dice gap and its count are the same for every trial (the caller counts it)."""
    base = word_base(key, start, k)
    for i in range(m):
        x = block_word(base, i)
        prot = (_plain_face(np.int64(low32(x)), tp) + bible) * prot_has
        pap = _plain_face(np.int64(high32(x)), tc) * pap_has
        actor = prot if protestant_acts else pap
        other = pap if protestant_acts else prot
        w = np.int64(actor > other) | (np.int64(actor == other) & tie_to_actor)
        out[i] = w
        successes[i] += w
        pattern[i] |= w << k


@inline
def _attempts_chained(
    out,
    won,
    successes,
    pattern,
    zero,
    key,
    start,
    m,
    k,
    tp,
    tc,
    prot_dice,
    pap_dice,
    prot_next,
    pap_next,
    roll_one,
    bible,
    protestant_acts,
    tie_to_actor,
):
    """One target for every trial of the block when the last success moves a die: each side
    has ``*_dice``, or ``*_next`` after a success on the previous target."""
    base = word_base(key, start, k)
    for i in range(m):
        x = block_word(base, i)
        e = won[i]
        zp = np.int64(prot_dice + (prot_next - prot_dice) * e == 0)
        zc = np.int64(pap_dice + (pap_next - pap_dice) * e == 0)
        zero[i] += zp + zc
        # Gap: zero dice roll one die (roll_one) or have no die at all (face 0).
        has_p = 1 - (zp & (1 - roll_one))
        has_c = 1 - (zc & (1 - roll_one))
        prot = (_face(np.int64(low32(x)), tp, e) + bible) * has_p
        pap = _face(np.int64(high32(x)), tc, e) * has_c
        actor = prot if protestant_acts else pap
        other = pap if protestant_acts else prot
        w = np.int64(actor > other) | (np.int64(actor == other) & tie_to_actor)
        out[i] = w
        successes[i] += w
        pattern[i] |= w << k
        won[i] = w


@kernel
def reformation_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    won = np.zeros(BLOCK, dtype=np.int64)
    zero = np.zeros(BLOCK, dtype=np.int64)
    successes = np.zeros(BLOCK, dtype=np.int64)
    pattern = np.zeros(BLOCK, dtype=np.int64)
    # One variant: tally each trial's pattern of successes (bit k: target k won) and fold each
    # pattern once at the end; the zero-dice count follows from the pattern. Several variants:
    # per-trial values, so that cross terms with variant 0 pair up trial by trial.
    single = n_variants == 1
    tally = np.zeros(1 << np.int64(packed[0, N_TARGETS]) if single else 1, dtype=np.int64)
    tp = np.zeros((2, 5), dtype=np.int64)
    tc = np.zeros((2, 5), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            n_targets = np.int64(packed[v, N_TARGETS])
            protestant_acts = packed[v, PROTESTANT_ACTS] > 0.5
            paul_iii = packed[v, PAUL_III] > 0.5
            bible = np.int64(packed[v, BIBLE_BONUS] > 0.5)
            chain = np.int64(packed[v, CHAIN] > 0.5)
            roll_one = np.int64(packed[v, ROLL_ONE] > 0.5)
            for i in range(m):
                won[i] = 0
                zero[i] = 0
                successes[i] = 0
                pattern[i] = 0
            # Zero-dice gaps reached by every trial alike (all of them when there is no chain).
            zero_same = np.int64(0)
            for k in range(n_targets):
                prot_dice = np.int64(packed[v, PROTESTANT_DICE + k])
                pap_dice = np.int64(packed[v, PAPAL_DICE + k])
                in_zone = packed[v, IN_NAMED_ZONE + k] > 0.5
                prot_next, pap_next = _after_success(prot_dice, pap_dice, protestant_acts)
                for j in range(5):
                    tp[0, j] = THRESHOLDS[prot_dice, j]
                    tp[1, j] = THRESHOLDS[prot_next, j]
                    tc[0, j] = THRESHOLDS[pap_dice, j]
                    tc[1, j] = THRESHOLDS[pap_next, j]
                # Tie: Protestant acting in the zone; Papacy acting in the zone under Paul III;
                # otherwise the defender.
                tie_to_actor = np.int64(in_zone & (protestant_acts | paul_iii))
                out = values[v, SUCCESS + k]
                if chain == 0:
                    zp = np.int64(prot_dice == 0)
                    zc = np.int64(pap_dice == 0)
                    zero_same += zp + zc
                    # Gap: zero dice roll one die (roll_one) or have no die at all (face 0).
                    has_p = 1 - (zp & (1 - roll_one))
                    has_c = 1 - (zc & (1 - roll_one))
                    _attempts_plain(
                        out,
                        successes,
                        pattern,
                        key,
                        start,
                        m,
                        k,
                        tp,
                        tc,
                        has_p,
                        has_c,
                        bible,
                        protestant_acts,
                        tie_to_actor,
                    )
                else:
                    _attempts_chained(
                        out,
                        won,
                        successes,
                        pattern,
                        zero,
                        key,
                        start,
                        m,
                        k,
                        tp,
                        tc,
                        prot_dice,
                        pap_dice,
                        prot_next,
                        pap_next,
                        roll_one,
                        bible,
                        protestant_acts,
                        tie_to_actor,
                    )
            if single:
                for i in range(m):
                    tally[pattern[i]] += 1
                continue
            for i in range(m):
                s = successes[i]
                values[v, SUCCESSES, i] = s
                values[v, ALL_SUCCEED, i] = s == n_targets
                values[v, ANY_SUCCEED, i] = s > 0
                values[v, SUCCESS + n_targets, i] = zero[i] + zero_same
        if not single:
            accumulate_block(stats, values, m, hist_offset, hist_max)
    if single:
        row = np.zeros(n_metrics, dtype=np.int64)
        for pat in range(tally.shape[0]):
            c = tally[pat]
            if c > 0:
                _pattern_row(packed, pat, row)
                accumulate_weighted(stats, 0, row, c, hist_offset, hist_max, row)
    return stats


@inline
def _after_success(prot_dice, pap_dice, protestant_acts):
    """Each side's dice on a target after a chained success on the one before: the converted
    space is the acting side's now, one die more for it and one fewer for the defender."""
    if protestant_acts:
        return prot_dice + 1, max(pap_dice - 1, 0)
    return max(prot_dice - 1, 0), pap_dice + 1


@inline
def _pattern_row(packed, pat, row):
    """Metric values of a trial whose targets were won as the bits of ``pat`` say (variant 0):
    the zero-dice count is replayed from the pattern, since a chained success moves a die."""
    n_targets = np.int64(packed[0, N_TARGETS])
    protestant_acts = packed[0, PROTESTANT_ACTS] > 0.5
    chain = np.int64(packed[0, CHAIN] > 0.5)
    last = np.int64(0)
    s = np.int64(0)
    zero = np.int64(0)
    for k in range(n_targets):
        prot_dice = np.int64(packed[0, PROTESTANT_DICE + k])
        pap_dice = np.int64(packed[0, PAPAL_DICE + k])
        if last & chain:
            prot_dice, pap_dice = _after_success(prot_dice, pap_dice, protestant_acts)
        zero += np.int64(prot_dice == 0) + np.int64(pap_dice == 0)
        last = (pat >> k) & 1
        row[SUCCESS + k] = last
        s += last
    row[SUCCESSES] = s
    row[ALL_SUCCEED] = s == n_targets
    row[ANY_SUCCEED] = s > 0
    row[SUCCESS + n_targets] = zero


def _highest_pmf(n: int, plus: int = 0) -> dict[int, Fraction]:
    """Exact law of the highest of ``n`` d6 plus ``plus``; 0 stands for no die at all."""
    if n == 0:
        return {0: Fraction(1)}
    return {f + plus: Fraction(f**n - (f - 1) ** n, 6**n) for f in range(1, 7)}


def attempt_probability(
    p: ReformationParams, k: int, after_success: bool = False
) -> tuple[Fraction, int]:
    """Exact probability that the acting side wins target ``k``, just after a chained success on
    the target before (``after_success``) or not, and how many sides had zero dice (0, 1, 2)."""
    t = p.targets[k]
    protestant_acts = p.side == "protestant"
    # Dice counted again from the rule text, not through ProtestantDice.dice() / PapalDice.dice()
    # (which pack the kernel's inputs), so a misread count there moves the kernel away from here.
    prot, pap = t.protestant, t.papal
    prot_n = prot.adjacent_spaces + prot.adjacent_units + prot.adjacent_reformers
    prot_n += 2 if prot.units_in_target else 0
    prot_n += 2 if prot.reformer_in_target else 0
    pap_n = pap.adjacent_spaces + pap.adjacent_units + (2 if pap.units_in_target else 0)
    if after_success:
        # The converted space counts for the acting side now, not for the defender (§16.1 ③).
        if protestant_acts:
            prot_n, pap_n = prot_n + 1, max(pap_n - 1, 0)
        else:
            prot_n, pap_n = max(prot_n - 1, 0), pap_n + 1
    zero = int(prot_n == 0) + int(pap_n == 0)
    if p.zero_dice == "roll_one":
        prot_n, pap_n = max(prot_n, 1), max(pap_n, 1)
    prot_law = _highest_pmf(prot_n, int(p.bible_bonus) if prot_n else 0)
    pap_law = _highest_pmf(pap_n)
    tie_to_actor = t.in_named_zone and (protestant_acts or p.paul_iii)
    win = Fraction(0)
    for a, pa in prot_law.items():
        for b, pb in pap_law.items():
            actor, other = (a, b) if protestant_acts else (b, a)
            if actor > other or (actor == other and tie_to_actor):
                win += pa * pb
    return win, zero


def exact(p: ReformationParams) -> dict[str, float]:
    """Exact values of every metric: a chain over targets whose state is the last result."""
    n = len(p.targets)
    # dist[(successes, last_won)] = probability
    dist: dict[tuple[int, bool], Fraction] = {(0, False): Fraction(1)}
    marginal = []
    zero_mean = Fraction(0)
    for k in range(n):
        new: dict[tuple[int, bool], Fraction] = {}
        won_k = Fraction(0)
        for (s, last), pr in dist.items():
            q, zero = attempt_probability(p, k, p.chain and last)
            zero_mean += pr * zero
            won_k += pr * q
            new[(s + 1, True)] = new.get((s + 1, True), Fraction(0)) + pr * q
            new[(s, False)] = new.get((s, False), Fraction(0)) + pr * (1 - q)
        dist = new
        marginal.append(won_k)
    by_count = [Fraction(0)] * (n + 1)
    for (s, _), pr in dist.items():
        by_count[s] += pr
    out = {
        "successes": float(sum(s * q for s, q in enumerate(by_count))),
        "all_succeed": float(by_count[n]),
        "any_succeed": float(1 - by_count[0]),
        "zero_dice_rolls": float(zero_mean),
    }
    for k, q in enumerate(marginal):
        out[f"success.target{k + 1}"] = float(q)
    return out


ASSUMPTIONS = (
    Assumption(
        name="zero_dice",
        knob="zero_dice",
        tag="invented",
        rule=cite("16.1 ③"),
        text="a side with no dice is not covered by the rules (a gap): it rolls one die",
        alternatives=(
            Alternative(
                "no die: loses unless both have none", {"zero_dice": "no_roll"}, "invented"
            ),
        ),
        fires=("zero_dice_rolls",),
    ),
)


PROCEDURE = Procedure(
    name="his.reformation",
    title="Here I Stand reformation / counter-reformation attempts",
    rules="Here I Stand rules §16.1, §18.4 (docs/rules/here-i-stand.md#s16-1)",
    assumptions=ASSUMPTIONS,
    given=settings("side", "named_zone", "targets", "paul_iii", "bible_bonus", "chain"),
    params_model=ReformationParams,
    metrics=metrics,
    pack=pack,
    kernel=reformation_kernel,
    exact=exact,
    example={
        "side": "protestant",
        "named_zone": "german",
        "bible_bonus": True,
        "targets": [
            {"protestant": {"adjacent_spaces": 2}, "papal": {"adjacent_spaces": 1}},
            {"protestant": {"adjacent_spaces": 1}, "papal": {"adjacent_spaces": 2}},
        ],
    },
    notes=(
        "chain: each target adjacent to the next and counted in its dice as the defender's; a "
        "success moves one die from the defender to the acting side on the next target only",
        "bible_bonus: +1 to the Protestant's highest die (range 2-7)",
    ),
)
