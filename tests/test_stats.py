"""Statistics from sufficient sums agree with the libraries computing them from raw data."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from simulator.stats import wilson_interval


@pytest.mark.parametrize("n", [1, 2, 7, 40, 1000, 10**6, 10**9])
def test_wilson_interval_equals_statsmodels(n):
    for s in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        if not 0 <= s <= n:
            continue
        ours = wilson_interval(s, n)
        theirs = proportion_confint(s, n, alpha=0.05, method="wilson")
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_holm_adjusted_p_values_equal_statsmodels_to_the_last_bit():
    """Our Holm adjustment (no statsmodels import before a run's table) is statsmodels' own
    arithmetic: equal bit for bit, ties, ones, zeros and a single p-value included."""
    from statsmodels.stats.multitest import multipletests

    from simulator.stats import holm_adjusted

    rng = np.random.default_rng(30)
    cases = [[0.5], [0.0, 1.0, 0.0], [0.01, 0.01, 0.04, 0.3, 0.3], [1e-300, 0.9, 0.2, 0.2]]
    cases += [list(rng.uniform(0, 1, n) ** 3) for n in (2, 3, 13, 200)]
    for p in cases:
        theirs = multipletests(p, alpha=0.05, method="holm")[1]
        assert holm_adjusted([float(x) for x in p]).tobytes() == theirs.tobytes(), p
