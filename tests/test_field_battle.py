"""Here I Stand field battle (RULES.md §5.1): kernel against its twin and against exact values."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.engine import make_plan, run_range, simulate
from simulator.procedures import get
from simulator.rng import scenario_key
from tests import naive
from tests.fold import fold

PROC = get("his.field_battle")


def params(**kw):
    base = {"attacker": {"units": 4, "leader": 2}, "defender": {"units": 3, "leader": 0}}
    base.update(kw)
    return base


@pytest.mark.parametrize(
    "raw",
    [
        params(),
        params(ties_to="attacker", hit_on=4),
        params(attacker={"units": 1, "leader": 0}, defender={"units": 1, "leader": 1}),
        params(defender_extra_dice=0, attacker={"units": 7, "leader": 3}),
    ],
)
def test_kernel_equals_plain_python_twin(raw):
    variants = {
        "base": PROC.params_model.model_validate(raw),
        "other": PROC.params_model.model_validate({**raw, "defender_extra_dice": 2}),
    }
    plan = make_plan(PROC, variants, seed=99)
    key = int(scenario_key(99))
    first, n = 1000, 700
    got = run_range(plan, -1, first, n)
    twin = [
        [naive.his_field_battle(p.model_dump(), key, t) for t in range(first, first + n)]
        for p in variants.values()
    ]
    np.testing.assert_array_equal(got, fold(plan, twin))


GRID = [(a, al, d, dl) for a in (1, 2, 4) for al in (0, 1) for d in (1, 3) for dl in (0, 2)]


@pytest.mark.parametrize(("a", "al", "d", "dl"), GRID)
def test_estimates_within_five_standard_errors_of_exact(a, al, d, dl):
    p = PROC.params_model.model_validate(
        {"attacker": {"units": a, "leader": al}, "defender": {"units": d, "leader": dl}}
    )
    plan = make_plan(PROC, {"base": p}, seed=1517)
    out = simulate(plan, 40_000, threads=1)
    exact = PROC.exact(p)
    for m, metric in enumerate(plan.metrics):
        n, s, ss = (int(x) for x in out.stats[0, 4 * m : 4 * m + 3])
        mean = s / n
        var = (n * ss - s * s) / (n * (n - 1))
        se = max(np.sqrt(var / n), 1e-12)
        assert abs(mean - exact[metric.name]) <= 5 * se + 1e-12, metric.name
