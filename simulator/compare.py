"""`sim compare A.yaml B.yaml ...`: scenario files of one procedure as the variants of one run.

Designers keep revisions as separate files (``rules-1.0.yaml``, ``rules-1.1.yaml``). Each file's
parameters become a variant named by the file's ``name`` (a file's own variants follow it as
``NAME:VARIANT``), all on the first file's seed and trial count, so every variant reads the same
random streams and the differences are the paired ones: the result is the one of a single file
whose ``params`` are the first file's and whose variants are the others, bit for bit.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from simulator.engine import ProgressFn
from simulator.runner import RunResult, run_scenario
from simulator.scenario import BASE_VARIANT, Scenario

#: Longest name of the combined run (the report folder under reports/out/).
MAX_NAME = 100


class CompareError(ValueError):
    """Files that cannot be compared (the message says why); the CLI exits 2."""


def _metric_names(s: Scenario) -> list[str]:
    return s.procedure.metric_names(next(iter(s.variants.values())))


def combine(scenarios: list[Scenario]) -> tuple[Scenario, list[str]]:
    """One scenario whose variants are every file's variants; and notes on what was unified.

    Raises:
        CompareError: fewer than two files, a sweep, different procedures or metric sets, or two
            variants with one name.
    """
    if len(scenarios) < 2:
        raise CompareError("give at least two scenario files to compare")
    first = scenarios[0]
    notes: list[str] = []
    for s in scenarios:
        if s.sweep:
            raise CompareError(f"{s.path}: has a sweep; compare files without one")
        if s.procedure.name != first.procedure.name:
            raise CompareError(
                f"{s.path}: procedure {s.procedure.name!r} differs from {first.path}'s "
                f"{first.procedure.name!r}; only files of one procedure can be compared"
            )
    names = _metric_names(first)
    for s in scenarios[1:]:
        other = _metric_names(s)
        if other != names:
            extra = [m for m in other if m not in names]
            missing = [m for m in names if m not in other]
            detail = "; ".join(
                part
                for part in (
                    f"it adds {', '.join(extra)}" if extra else "",
                    f"it lacks {', '.join(missing)}" if missing else "",
                    "they are in another order" if not extra and not missing else "",
                )
                if part
            )
            raise CompareError(
                f"{s.path}: reports other metrics than {first.path} ({detail}); "
                "compare files whose parameters give the same metrics (e.g. the same players)"
            )
    variants: dict[str, Any] = {}
    for s in scenarios:
        for v, params in s.variants.items():
            name = s.name if v == BASE_VARIANT else f"{s.name}:{v}"
            if name in variants:
                raise CompareError(
                    f"{s.path}: variant name {name!r} is used twice; give the files distinct "
                    "`name`s"
                )
            variants[name] = params
    for s in scenarios[1:]:
        if s.seed != first.seed:
            notes.append(f"{s.path}: seed {s.seed} ignored; every file runs on {first.path}'s seed")
        if s.trials != first.trials:
            notes.append(
                f"{s.path}: trials {s.trials:,} ignored; every file runs {first.trials:,} trials"
            )
    name = "-vs-".join(s.name for s in scenarios)
    if len(name) > MAX_NAME:
        name = f"{first.name}-vs-{len(scenarios) - 1}-more"[:MAX_NAME]
    procedure = first.procedure
    if procedure.specialize is not None:
        # A file's own rule step (a designer's Python file) runs only with a procedure that
        # knows it: the first file's may not.
        procedure = procedure.specialize(procedure, list(variants.values()))
    combined = dataclasses.replace(
        first,
        procedure=procedure,
        path=" ".join(s.path for s in scenarios),
        name=name,
        description="; ".join(f"{s.name}: {s.description}" for s in scenarios if s.description),
        variants=variants,
        points=[],
    )
    return combined, notes


def run_compare(
    paths: list[str | Path] | list[Scenario],
    *,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    chunk_size: int | None = None,
    on_progress: ProgressFn | None = None,
    force: bool = False,
) -> tuple[RunResult, list[str]]:
    """Run the files as one comparison (see the module docstring); returns the result and notes.

    Raises:
        CompareError: the files cannot be compared.
        simulator.scenario.ScenarioError: a file is invalid.
    """
    from simulator.scenario import load

    loaded = [p if isinstance(p, Scenario) else load(p, force=force) for p in paths]
    combined, notes = combine(loaded)
    result = run_scenario(
        combined,
        trials=trials,
        seed=seed,
        threads=threads,
        chunk_size=chunk_size,
        on_progress=on_progress,
    )
    return result, notes
