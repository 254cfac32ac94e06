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
