"""A toy procedure with known seat shares, for the fairness and detectable-effect tests.

Each trial one word ``u`` (uniform on 0..999 999, from the counter-based generator) picks the
winning seat: seat ``k`` wins when ``u`` falls in its slice of ``shares`` (parts per million);
past the last slice nobody wins (a draw). Variants share their streams, so two variants with
near shares pick the same seat in most trials — the paired situation of rule revisions.

``flag`` is a proportion with base rate ``flag_ppm``; a variant's ``churn_ppm`` flips half that
share of all trials each way (no net change) and ``shift_ppm`` turns that share of all trials from
0 to 1: the model of a change the verdict's detectable effects assume.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
from simulator.jit import kernel
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import high32, low32, word

SEATS = 4
MILLION = 1_000_000


class ToyParams(Params):
    shares: list[int] = Field(
        default_factory=lambda: [250_000] * SEATS, min_length=SEATS, max_length=SEATS
    )
    flag_ppm: int = Field(default=300_000, ge=0, le=MILLION)
    shift_ppm: int = Field(default=0, ge=0, le=MILLION)
    churn_ppm: int = Field(default=0, ge=0, le=MILLION)


def metrics(p: ToyParams) -> list[Metric]:
    return [
        *(Metric(f"wins.seat{k + 1}", "proportion", f"seat {k + 1} wins") for k in range(SEATS)),
        Metric("flag", "proportion", "a flag with a planted shift"),
    ]


def pack(p: ToyParams) -> np.ndarray:
    return np.array([*p.shares, p.flag_ppm, p.shift_ppm, p.churn_ppm], dtype=np.float64)


@kernel
def toy_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, SEATS + 1, BLOCK), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for i in range(m):
            t = start + i
            x = word(key, t, 0)
            y = word(key, t, 1)
            u = np.int64((low32(x) * np.uint64(MILLION)) >> np.uint64(32))
            f = np.int64((high32(x) * np.uint64(MILLION)) >> np.uint64(32))
            g = np.int64((low32(y) * np.uint64(MILLION)) >> np.uint64(32))
            for v in range(n_variants):
                edge = np.int64(0)
                for k in range(SEATS):
                    low = edge
                    edge += np.int64(packed[v, k])
                    values[v, k, i] = 1 if low <= u < edge else 0
                base = np.int64(packed[v, SEATS])
                shift = np.int64(packed[v, SEATS + 1])
                churn = np.int64(packed[v, SEATS + 2])
                flag = 1 if f < base else 0
                # Churn flips half its share of all trials each way (no net change); the shift
                # turns that share of all trials from 0 to 1, from the zeros churn leaves alone.
                half = churn * MILLION // 2
                if flag == 1:
                    if g * base < half:
                        flag = 0
                else:
                    r = g * (MILLION - base)
                    if r < half + shift * MILLION:
                        flag = 1
                values[v, SEATS, i] = flag
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats


PROCEDURE = Procedure(
    name="toy.seats",
    title="toy: a seat wins by known shares",
    rules="a test procedure",
    params_model=ToyParams,
    metrics=metrics,
    pack=pack,
    kernel=toy_kernel,
)


def scenario(variants: dict[str, ToyParams], trials: int, seed: int):
    """A scenario of the toy procedure, made in code."""
    from simulator.scenario import Scenario

    return Scenario("toy.yaml", "toy-seats", PROCEDURE, trials, seed, "", variants, {})
