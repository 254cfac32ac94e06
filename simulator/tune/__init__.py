"""``sim tune``: find the rule values that hit a balance target.

A scenario's ``tune:`` section (:mod:`simulator.tune.spec`) names parameter paths to search and
what to aim for; :func:`run_tune` searches on shared random streams with an adaptive trial
schedule and confirms the answer on a fresh seed (:mod:`simulator.tune.search`);
:mod:`simulator.tune.report` prints and writes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulator.scenario import Scenario, load
from simulator.tune.spec import TuneSpec, parse_tune

if TYPE_CHECKING:
    from simulator.engine import Backend
    from simulator.tune.search import TuneProgress, TuneResult

__all__ = ["TuneResult", "TuneSpec", "parse_tune", "run_tune"]


def __getattr__(name: str) -> Any:
    # The search (pandas, the engine) loads when asked for: `sim validate` reads only the spec.
    if name == "TuneResult":
        from simulator.tune.search import TuneResult

        return TuneResult
    raise AttributeError(name)


def run_tune(
    scenario: Scenario | str | Path,
    *,
    trials: int | None = None,
    seed: int | None = None,
    budget: int | None = None,
    threads: int | None = None,
    backend: Backend | None = None,
    on_progress: TuneProgress | None = None,
) -> TuneResult:
    """Load (if given a path) and check the scenario's ``tune:`` section, then search.

    Raises:
        simulator.scenario.ScenarioError: the scenario or its ``tune:`` section is invalid.
    """
    from simulator.tune.search import tune

    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    spec = parse_tune(scenario)
    if budget is not None:
        spec = TuneSpec(spec.axes, spec.objectives, budget)
    return tune(
        scenario,
        spec,
        trials=trials,
        seed=seed,
        threads=threads,
        backend=backend,
        on_progress=on_progress,
    )
