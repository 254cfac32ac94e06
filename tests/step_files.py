"""What every rule step replaced from a designer's file must keep: a plan that names steps
travels to a Dask worker by the files' paths (pickled) and runs there the same trials."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from simulator.engine import make_plan, run_range
from simulator.scenario import load


def assert_plan_travels(example: Path, seed: int, trials: int) -> None:
    """The example's plan, pickled and loaded again, has the same kernel and the same trials."""
    scenario = load(example)
    plan = make_plan(scenario.procedure, scenario.variants, seed=seed)
    again = pickle.loads(pickle.dumps(plan))
    assert again.procedure.kernel == plan.procedure.kernel
    np.testing.assert_array_equal(run_range(again, -1, 0, trials), run_range(plan, -1, 0, trials))
