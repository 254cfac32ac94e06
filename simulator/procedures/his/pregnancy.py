"""Here I Stand: Henry VIII's marriages and the pregnancy chart (Here I Stand rules §13.1).

Henry starts married to Catherine of Aragon (step 0); step 1 is "ask for divorce"; Anne Boleyn
(who hands Catherine to the Habsburgs) and the three wives after her are at steps 2-6, so the chart
is rolled at most five times (Here I Stand rules §13.1). Each use of England's home card advances
the marriage track one step; the home card is once a turn (Here I Stand rules §4.1), more uses a
turn are a house rule. Reaching a step where a new wife arrives rolls a d6 on the pregnancy chart:

* 1–2 nothing;
* 3 the track advances once more at England's first pass this turn;
* 4 Elizabeth is born (+2 VP, ignored once Edward is born);
* 5 a sickly Edward is born (+5 VP);
* 6 a healthy Edward is born (+5 VP) or a sickly Edward recovers; no more marriages after that.

Each effect happens once: a result already seen steps up by 1 until it reaches a new one. 1–2
("nothing happens") is not an effect, so it may be rolled any number of times (``nothing_repeats``,
the rulebook's reading: see the assumption below; the literal alternative counts it as an effect
that steps up to 3 once seen). Result 6 can never have been seen when a wife is reached, since a
healthy Edward ends the marriages, so the step-up always lands on a result.

Rows by name: ``PACKED`` is the parameter row (``wife_steps`` padded with zeros to ``MAX_WIVES``);
``METRICS`` the metric row, whose piece ``edward_by_turn`` holds ``edward_by_turn.1`` ..
``edward_by_turn.<turns>`` in its first ``turns`` slots (the metric row ends there).

Random words: the k-th wife reached (k = 0, 1, ...) rolls the low half of word k of the trial, so a
variant that changes the track or the number of uses still rolls the same die for the same wife.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.base import Alternative, Assumption, Metric, Params, Procedure, rulebook
from simulator.procedures.his._rules import cite
from simulator.rng import d6_of, low32, word

MAX_TURNS = 20
MAX_WIVES = 12
MAX_STEP = 40

#: Chart results, by the lowest face that gives them.
NOTHING, AGAIN, ELIZABETH, SICKLY_EDWARD, HEALTHY_EDWARD = 2, 3, 4, 5, 6


class PregnancyParams(Params):
    turns: int = Field(default=9, ge=1, le=MAX_TURNS, description="turns played")
    uses_per_turn: int = Field(
        default=1,
        ge=0,
        le=6,
        description="uses of England's home card per turn (Henry alive, not besieged): 1 by the "
        "rules (a home card is once a turn, Here I Stand rules §4.1); 0 for a turn it is not "
        "played; more is a house rule",
    )
    wife_steps: list[int] = Field(
        default=[2, 3, 4, 5, 6],
        min_length=1,
        max_length=MAX_WIVES,
        description="marriage-track steps (1 = the first advance) at which a new wife arrives: "
        "Henry starts married to Catherine (step 0), step 1 asks for divorce, the five wives from "
        "Anne Boleyn are at 2-6 (Here I Stand rules §13.1)",
    )
    nothing_repeats: bool = Field(
        default=True,
        description="1-2 (nothing happens) is no effect, so it may come up any number of times "
        "(the rulebook's reading, Here I Stand rules §13.1 (1)); false counts it as an effect that "
        "happens once, stepping up to 3 once seen (the literal reading)",
    )

    @field_validator("wife_steps")
    @classmethod
    def _steps_increase(cls, steps: list[int], info: ValidationInfo) -> list[int]:
        for i, s in enumerate(steps):
            if not 1 <= s <= MAX_STEP:
                raise ValueError(f"entry {i + 1}: a step must be from 1 to {MAX_STEP} (got {s})")
            if i > 0 and s <= steps[i - 1]:
                raise ValueError(
                    f"entry {i + 1}: steps must increase, but {s} follows {steps[i - 1]}; list "
                    "each wife's step once, in order"
                )
        return steps


PACKED = Layout("turns", "uses_per_turn", "nothing_repeats", "wives", ("wife_steps", MAX_WIVES))
TURNS, USES_PER_TURN, NOTHING_REPEATS = (
    PACKED.at(n) for n in ("turns", "uses_per_turn", "nothing_repeats")
)
N_WIVES, WIFE_STEPS = PACKED.at("wives"), PACKED.at("wife_steps")

#: The metric row; ``edward_by_turn.k`` is slot k - 1 of the last piece (``turns`` slots used).
METRICS = Layout(
    "edward_born",
    "edward_healthy",
    "elizabeth_born",
    "england_vp",
    "wives_married",
    ("edward_by_turn", MAX_TURNS),
)
EDWARD_BORN, EDWARD_HEALTHY, ELIZABETH_BORN = (
    METRICS.at(n) for n in ("edward_born", "edward_healthy", "elizabeth_born")
)
ENGLAND_VP, WIVES, BY_TURN = (
    METRICS.at(n) for n in ("england_vp", "wives_married", "edward_by_turn")
)


def metrics(p: PregnancyParams) -> list[Metric]:
    out = [
        Metric("edward_born", "proportion", "Edward is born (sickly or healthy)"),
        Metric("edward_healthy", "proportion", "a healthy Edward, born so or recovered"),
        Metric("elizabeth_born", "proportion", "Elizabeth is born"),
        Metric(
            "england_vp",
            "distribution",
            "VP from the chart (Elizabeth's 2 ignored once Edward is born)",
            max_value=5,
        ),
        Metric("wives_married", "mean", "wives reached (pregnancy-chart rolls)", headline=False),
    ]
    out += [
        Metric(
            f"edward_by_turn.{k}",
            "proportion",
            f"Edward born by the end of turn {k}",
            headline=False,
        )
        for k in range(1, p.turns + 1)
    ]
    return out


def pack(p: PregnancyParams) -> np.ndarray:
    steps = p.wife_steps + [0] * (MAX_WIVES - len(p.wife_steps))
    return PACKED.row(
        turns=p.turns,
        uses_per_turn=p.uses_per_turn,
        nothing_repeats=int(p.nothing_repeats),
        wives=len(p.wife_steps),
        wife_steps=steps,
    )


@inline
def _chart(face, seen, nothing_repeats):
    """The result of a face after the step-up rule; ``seen`` is a bitmask over results 2..6."""
    r = max(face, NOTHING)
    while (seen >> r) & 1 and not (r == NOTHING and nothing_repeats):
        r += 1
    return r


@kernel
def pregnancy_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = BY_TURN + int(packed[0, TURNS])
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    is_wife = np.zeros(MAX_STEP + MAX_TURNS * 8 + 2, dtype=np.bool_)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            turns = np.int64(packed[v, TURNS])
            uses = np.int64(packed[v, USES_PER_TURN])
            nothing_repeats = packed[v, NOTHING_REPEATS] > 0.5
            n_wives = np.int64(packed[v, N_WIVES])
            is_wife[:] = False
            for k in range(n_wives):
                is_wife[np.int64(packed[v, WIFE_STEPS + k])] = True
            for i in range(m):
                t = start + i
                step = 0
                seen = 0
                wives = 0
                elizabeth = False
                sickly = False
                healthy = False
                for turn in range(turns):
                    again = False
                    advances = uses
                    a = 0
                    while a < advances and not healthy:
                        a += 1
                        step += 1
                        if is_wife[step]:
                            face = d6_of(low32(word(key, t, wives)))
                            wives += 1
                            r = _chart(face, seen, nothing_repeats)
                            seen |= 1 << r
                            if r == AGAIN:
                                again = True
                            elif r == ELIZABETH:
                                elizabeth = True
                            elif r == SICKLY_EDWARD:
                                sickly = True
                            elif r == HEALTHY_EDWARD:
                                healthy = True
                        # A 3 advances the track once more at England's first pass, which comes
                        # after this turn's uses of the home card.
                        if a == advances and again:
                            again = False
                            advances += 1
                    values[v, BY_TURN + turn, i] = sickly | healthy
                edward = sickly | healthy
                values[v, EDWARD_BORN, i] = edward
                values[v, EDWARD_HEALTHY, i] = healthy
                values[v, ELIZABETH_BORN, i] = elizabeth
                values[v, ENGLAND_VP, i] = 5 if edward else (2 if elizabeth else 0)
                values[v, WIVES, i] = wives
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


def chart_result(face: int, seen: frozenset[int], nothing_repeats: bool = True) -> int:
    """The pregnancy-chart result of ``face`` given the results already ``seen`` (2 = nothing)."""
    r = max(face, NOTHING)
    while r in seen and not (r == NOTHING and nothing_repeats):
        r += 1
    return r


def exact(p: PregnancyParams) -> dict[str, float]:
    """Exact values by carrying the distribution of (track, results seen) through the turns."""
    wives_at = set(p.wife_steps)
    # state: (step, seen results, wives reached) -> probability
    dist: dict[tuple[int, frozenset[int], int], Fraction] = {(0, frozenset(), 0): Fraction(1)}
    by_turn: list[Fraction] = []
    for _turn in range(p.turns):
        nxt: dict[tuple[int, frozenset[int], int], Fraction] = {}
        for (step, seen, wives), prob in dist.items():
            for state, q in _turn_outcomes(p, wives_at, step, seen, wives):
                nxt[state] = nxt.get(state, Fraction(0)) + prob * q
        dist = nxt
        by_turn.append(sum((q for (_, s, _), q in dist.items() if s & {5, 6}), Fraction(0)))
    res: dict[str, Fraction] = dict.fromkeys(
        ["edward_born", "edward_healthy", "elizabeth_born", "england_vp", "wives_married"],
        Fraction(0),
    )
    for (_, seen, wives), q in dist.items():
        edward = bool(seen & {SICKLY_EDWARD, HEALTHY_EDWARD})
        res["edward_born"] += q * edward
        res["edward_healthy"] += q * (HEALTHY_EDWARD in seen)
        res["elizabeth_born"] += q * (ELIZABETH in seen)
        res["england_vp"] += q * (5 if edward else 2 if ELIZABETH in seen else 0)
        res["wives_married"] += q * wives
    out = {k: float(v) for k, v in res.items()}
    out.update({f"edward_by_turn.{k + 1}": float(v) for k, v in enumerate(by_turn)})
    return out


def _turn_outcomes(
    p: PregnancyParams, wives_at: set[int], step: int, seen: frozenset[int], wives: int
) -> list[tuple[tuple[int, frozenset[int], int], Fraction]]:
    """(state after one turn, probability) pairs from one state at the start of the turn."""
    out: list[tuple[tuple[int, frozenset[int], int], Fraction]] = []

    def go(
        step: int, seen: frozenset[int], wives: int, left: int, again: bool, q: Fraction
    ) -> None:
        if left == 0 and again:
            left, again = 1, False
        if left == 0 or HEALTHY_EDWARD in seen:
            out.append(((step, seen, wives), q))
            return
        step += 1
        if step not in wives_at:
            go(step, seen, wives, left - 1, again, q)
            return
        for face in range(1, 7):
            r = chart_result(face, seen, p.nothing_repeats)
            go(step, seen | {r}, wives + 1, left - 1, again or r == AGAIN, q / 6)

    go(step, seen, wives, p.uses_per_turn, False, Fraction(1))
    return out


ASSUMPTIONS = (
    Assumption(
        name="nothing_repeats",
        knob="nothing_repeats",
        tag="rulebook",
        rule=cite("13.1 (1)"),
        text="'each effect happens only once; a roll whose effect has already happened steps up "
        "until a new effect happens': 1-2 is 'nothing happens', no effect, so nothing has already "
        "happened and it may come up again (the step-up lands on effects). The literal "
        "alternative counts 'nothing' as an effect: five wives then give five different results "
        "and the fifth is always a healthy Edward (9 turns: Edward 17/18 -> 1, healthy 389/486 "
        "-> 1)",
        alternatives=(
            Alternative("nothing happens once too (literal)", {"nothing_repeats": False}),
        ),
    ),
    Assumption(
        name="divorce_and_pass",
        knob="",
        tag="reading",
        rule=cite("13.1 (2)"),
        text="the Papacy's divorce (one free step) is a player's choice, not modelled; a 3 "
        "advances the track once more after the turn's home-card uses (England's first pass); not "
        "yet a knob",
    ),
)


PROCEDURE = Procedure(
    name="his.pregnancy",
    title="Here I Stand: Henry VIII's marriages and the pregnancy chart",
    rules="Here I Stand rules §13.1 (docs/rules/here-i-stand.md#s13-1)",
    assumptions=ASSUMPTIONS,
    given=rulebook(cite("13.1"), "turns", "uses_per_turn", "wife_steps"),
    params_model=PregnancyParams,
    metrics=metrics,
    pack=pack,
    kernel=pregnancy_kernel,
    exact=exact,
    example={"turns": 9, "uses_per_turn": 1},
    notes=(
        "Henry starts married to Catherine of Aragon: wives at steps 2-6 (step 1 asks for "
        "divorce), at most five chart rolls (Here I Stand rules §13.1); wife_steps is scenario "
        "data",
        "the home card is once a turn (Here I Stand rules §4.1): uses_per_turn above 1 is a house "
        "rule",
    ),
)
