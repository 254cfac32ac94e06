"""Fairness across variants, what a run could have seen, and intervals that agree with stars."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator import stats
from simulator.procedures.base import Metric
from simulator.report.fairness import fairness, seat_detectable
from simulator.report.summary import build
from simulator.runner import DEAL_BATCHES, run_scenario
from tests import seat_toy as toy

SEATS = toy.SEATS
#: Two variants with known seat shares: spreads 10 pp and 6 pp, a difference of −4 pp. The
#: largest and smallest seats are clear of the others, as a designer's rival revisions are.
FIRST = [0.30, 0.25, 0.25, 0.20]
SECOND = [0.28, 0.25, 0.25, 0.22]


def _batched(shares: list[list[float]], trials: int, seed: int) -> SimpleNamespace:
    """A run's result as fairness() reads it: the batch statistics of ``trials`` deals on shared
    streams (one uniform per deal picks every variant's winner), cut as the engine cuts them."""
    rng = np.random.default_rng(seed)
    u = rng.random(trials)
    size = -(-trials // DEAL_BATCHES)
    n_batches = -(-trials // size)
    out = np.zeros((n_batches, len(shares), 4 * SEATS), dtype=np.int64)
    for v, sh in enumerate(shares):
        seat = np.searchsorted(np.cumsum(sh), u, side="right")
        for s in range(SEATS):
            won = (seat == s).astype(np.int64)
            for b in range(n_batches):
                part = won[b * size : (b + 1) * size]
                out[b, v, 4 * s : 4 * s + 3] = (len(part), part.sum(), part.sum())
    metrics = tuple(Metric(f"wins.seat{k + 1}", "proportion", "") for k in range(SEATS))
    names = [f"v{v}" for v in range(len(shares))]
    return SimpleNamespace(
        outcome=SimpleNamespace(batch_stats=out),
        plan=SimpleNamespace(metrics=metrics, variant_names=names),
        scenario=SimpleNamespace(seed=seed),
    )


def test_the_spread_difference_interval_covers_the_true_difference_in_most_runs():
    true = (max(SECOND) - min(SECOND)) - (max(FIRST) - min(FIRST))
    covered = spread_covered = 0
    for seed in range(200):
        f = fairness(_batched([FIRST, SECOND], 2000, seed))  # type: ignore[arg-type]
        assert f is not None
        d = f.variants[1].spread_vs_base
        assert d is not None
        covered += d.lo <= true <= d.hi
        spread_covered += f.variants[0].spread.lo <= 0.10 <= f.variants[0].spread.hi
    # Measured: 190 and 190 of 200 (95%); a broken pairing (variants resampled apart) or a
    # missing batch dimension falls far below.
    assert covered >= 186, covered
    assert spread_covered >= 186, spread_covered


def test_pairing_is_what_makes_the_difference_narrow():
    """The same deals under both variants: the paired interval of the spread difference is much
    narrower than either variant's own spread interval."""
    f = fairness(_batched([FIRST, SECOND], 4000, 1))  # type: ignore[arg-type]
    assert f is not None
    d, own = f.variants[1].spread_vs_base, f.variants[0].spread
    assert d is not None
    assert (d.hi - d.lo) < 0.6 * (own.hi - own.lo)


def test_the_engine_keeps_deal_batches_that_add_up_and_do_not_depend_on_threads():
    variants = {"base": toy.ToyParams(shares=[300_000, 250_000, 250_000, 200_000])}
    variants["fairer"] = toy.ToyParams(shares=[280_000, 250_000, 250_000, 220_000])
    one = run_scenario(toy.scenario(variants, 3001, 5), threads=1)
    two = run_scenario(toy.scenario(variants, 3001, 5), threads=2, chunk_size=64)
    assert one.outcome.batch_stats is not None and two.outcome.batch_stats is not None
    np.testing.assert_array_equal(one.outcome.batch_stats, two.outcome.batch_stats)
    np.testing.assert_array_equal(one.outcome.batch_stats.sum(axis=0), one.outcome.stats)
    # Each batch's trials are its count slots: every deal lies in exactly one batch.
    assert int(one.outcome.batch_stats[:, 0, 0].sum()) == 3001
    assert fairness(one).to_dict() == fairness(two).to_dict()  # type: ignore[union-attr]


def test_a_run_without_seats_keeps_no_batches():
    r = run_scenario("scenarios/his/field_battle.yaml", trials=2000, threads=1)
    assert r.outcome.batch_stats is None
    assert fairness(r) is None


def test_the_seat_detectable_spread_is_seen_by_the_test_in_about_80_percent_of_runs():
    """Plant a spread of the stated size (one seat up, one down) and count how often the
    chi-square test of equal seats finds it: the size is the 80%-power one."""
    games = 2000
    s = seat_detectable(games, SEATS, 1.0)
    shares = [0.25 + s / 2, 0.25 - s / 2, 0.25, 0.25]
    found = 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        counts = np.bincount(rng.choice(SEATS, games, p=shares), minlength=SEATS)
        expected = games / SEATS
        chi2 = ((counts - expected) ** 2 / expected).sum()
        from scipy.stats import chi2 as dist

        found += dist.sf(chi2, SEATS - 1) < 0.05
    assert 140 <= found <= 180, (s, found)


def test_a_change_of_the_detectable_size_is_found_in_70_to_90_percent_of_runs():
    """The size a 'no significant change' line gives (from a run where the variant churns but
    does not shift), planted as a shift on top of the same churn, is found 70-90% of the time."""
    base = toy.ToyParams()
    churned = toy.ToyParams(churn_ppm=100_000)
    trials = 2000
    null = build(run_scenario(toy.scenario({"base": base, "b": churned}, trials, 99), threads=1))
    (row,) = [r for r in null.rows if r.metric == "flag"]
    size = row.cells["b"].detectable
    assert size is not None and 0.01 < size < 0.2
    planted = toy.ToyParams(churn_ppm=100_000, shift_ppm=round(size * 1_000_000))
    found = 0
    for seed in range(200):
        r = run_scenario(toy.scenario({"base": base, "b": planted}, trials, seed), threads=1)
        c = r.comparisons.set_index("metric").loc["flag"]
        found += bool(c["significant"])
    assert 140 <= found <= 180, (size, found)


def _plan(n_metrics: int, kinds: list[str]) -> SimpleNamespace:
    metrics = tuple(Metric(f"m{i}", kinds[i], "") for i in range(n_metrics))  # type: ignore[arg-type]
    return SimpleNamespace(
        variant_names=("base", "b"), metrics=metrics, independent=False, n_variants=2
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(2, 5000),  # trials
            st.floats(0, 1),  # base rate
            st.floats(-0.3, 0.3),  # shift
            st.floats(0, 0.5),  # churn
            st.booleans(),  # proportion or mean
        ),
        min_size=1,
        max_size=12,
    )
)
def test_a_difference_is_starred_exactly_when_its_shown_interval_excludes_zero(specs):
    n = min(s[0] for s in specs)
    kinds = ["proportion" if s[4] else "mean" for s in specs]
    plan = _plan(len(specs), kinds)
    table = np.zeros((2, 4 * len(specs)), dtype=np.int64)
    for m, (_, rate, shift, churn, prop) in enumerate(specs):
        ones0 = round(n * rate)
        moved = round(n * abs(shift))
        flips = round(n * churn / 2)
        if prop:
            # Paired 0/1 outcomes: ones0 in base; b turns `moved` zeros into ones (or ones into
            # zeros) and flips `flips` each way.
            x0 = np.zeros(n, dtype=np.int64)
            x0[:ones0] = 1
            x1 = x0.copy()
            zeros = np.flatnonzero(x1 == 0)
            ones = np.flatnonzero(x1 == 1)
            if shift > 0:
                x1[zeros[:moved]] = 1
            else:
                x1[ones[:moved]] = 0
            x1[zeros[-flips:] if flips else []] = 1 - x1[zeros[-flips:] if flips else []]
        else:
            x0 = np.arange(n, dtype=np.int64) % 7
            x1 = x0 + (np.arange(n) < moved) * np.sign(shift).astype(np.int64)
        for v, x in enumerate((x0, x1)):
            table[v, 4 * m : 4 * m + 4] = (n, x.sum(), (x * x).sum(), (x * x0).sum())
    df = stats.comparisons(plan, table)  # type: ignore[arg-type]
    for r in df.itertuples():
        excludes = r.adj_low > 0 or r.adj_high < 0
        assert bool(r.significant) == excludes, r
        assert (r.p_holm < 0.05) == bool(r.significant) or math.isclose(r.p_holm, 0.05)


def test_holm_levels_step_down_and_keep_the_failing_level():
    levels, rejected = stats.holm_levels([0.001, 0.04, 0.015, 0.5], 0.05)
    # Sorted: 0.001 passes at 0.05/4, 0.015 at 0.05/3, 0.04 fails at 0.05/2, 0.5 keeps 0.05/2.
    assert rejected == [True, False, True, False]
    assert levels == pytest.approx([0.0125, 0.025, 0.05 / 3, 0.025])
    levels, rejected = stats.holm_levels([0.001, 0.02, 0.5], 0.05)
    # 0.001 passes at 0.05/3, 0.02 at 0.05/2; 0.5 fails at 0.05.
    assert rejected == [True, True, False] and levels == pytest.approx([0.05 / 3, 0.025, 0.05])
