"""Rerunning a comparison under each robustness level, on the same deals.

Each level's overrides are applied to every variant of the scenario (validated by the procedure's
parameter model, as a scenario's own values are) and the scenario is run again with its own seed,
so every level plays the same deals: the differences between levels are the levels', not the
dice's. A level whose overrides the rules refuse is kept with the reason, not run. Ctrl-C keeps
the levels finished so far (the interrupted one is dropped).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from simulator.robustness.spec import Level, levels
from simulator.runner import RunResult, run_scenario
from simulator.scenario import Scenario, set_path


@dataclass
class Rerun:
    """One level's rerun: its result, or why it was not run."""

    level: Level
    result: RunResult | None = None
    refused: str = ""
    elapsed: float = 0.0


@dataclass
class Robustness:
    """Every level's rerun of one scenario, in order (play levels first)."""

    trials: int
    reruns: list[Rerun] = field(default_factory=list)
    #: Levels planned; fewer ran when the run was interrupted.
    planned: int = 0

    @property
    def complete(self) -> bool:
        return len(self.reruns) == self.planned


def with_level(scenario: Scenario, level: Level) -> Scenario:
    """The scenario with ``level``'s overrides applied to every variant.

    Raises:
        ValueError: the procedure's parameters refuse the overrides (the message says why).
    """
    model = scenario.procedure.params_model
    variants = {}
    for name, params in scenario.variants.items():
        tree = params.model_dump(mode="json")
        for path, value in level.overrides.items():
            tree = set_path(tree, path, value)
        try:
            variants[name] = model.model_validate(tree, strict=True)
        except ValidationError as e:
            errors = e.errors()
            where = ".".join(str(x) for x in errors[0]["loc"])
            raise ValueError(f"{where}: {errors[0]['msg']}") from e
        if scenario.procedure.forbidden is not None:
            for loc, message, _ in scenario.procedure.forbidden(variants[name]):
                raise ValueError(f"{'.'.join(str(x) for x in loc)}: {message}")
    return dataclasses.replace(scenario, variants=variants, points=[], sweep={})


def plan(scenario: Scenario, policies: bool = True, assumptions: bool = True) -> list[Level]:
    """The levels the scenario's ``robustness:`` section asks for (narrowed by the flags)."""
    found = levels(scenario.robustness, scenario.procedure)
    return [
        lv
        for lv in found
        if (lv.kind == "policies" and policies) or (lv.kind == "assumption" and assumptions)
    ]


def trials_for(scenario: Scenario, trials: int | None) -> int:
    """Trials of each rerun: the section's (or the scenario's), capped by ``--trials``."""
    own = (scenario.robustness.trials if scenario.robustness else None) or scenario.trials
    return min(own, trials) if trials is not None else own


def run_robustness(
    scenario: Scenario,
    chosen: list[Level],
    trials: int,
    *,
    threads: int | None = None,
    backend: Any = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_level: Callable[[int, Rerun], None] | None = None,
) -> Robustness:
    """Rerun ``scenario`` under every level in ``chosen``, ``trials`` trials each."""
    out = Robustness(trials, planned=len(chosen))
    total = trials * len(chosen)
    for i, level in enumerate(chosen):
        try:
            moved = with_level(scenario, level)
        except ValueError as e:
            rerun = Rerun(level, refused=str(e))
        else:

            def progress(done: int, _total: int, offset: int = i * trials) -> None:
                if on_progress is not None:
                    on_progress(offset + done, total)

            t0 = time.perf_counter()
            result = run_scenario(
                moved, trials=trials, threads=threads, backend=backend, on_progress=progress
            )
            if not result.complete:
                break
            rerun = Rerun(level, result, elapsed=time.perf_counter() - t0)
        out.reruns.append(rerun)
        if on_level is not None:
            on_level(i, rerun)
    return out
