"""The search of ``sim tune``: candidates, an adaptive trial schedule on shared streams, and a
confirmation run on a fresh seed.

How trials are spent (successive halving, Jamieson & Talwalkar 2016, with a statistical cut):
every candidate is first run with a small share of the trials (``rungs[0]``); at each rung the
candidates whose objective interval cannot overlap the best one's are dropped, and the rest are
run again with ``eta`` times more trials, up to the scenario's ``trials`` for the finalists.
All candidates of a rung run as the variants of one plan, so they read the same random streams
(common random numbers): their differences are measured on the same dice.

Where candidates come from: every point of the space when it fits in the budget; otherwise Optuna
proposes them (TPE for one objective, NSGA-II for several), seeded from the scenario, in batches
evaluated at the first rung.

The answer is then re-run on a different seed (``confirm_seed``) with the full trials, beside
the current parameters, so its interval does not carry the selection's optimism.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from simulator import stats
from simulator.engine import Backend, make_plan, simulate
from simulator.procedures.base import Params
from simulator.rng import scenario_key
from simulator.scenario import BASE_VARIANT, Scenario
from simulator.tune.objectives import Value, metric_values, objective
from simulator.tune.spec import TuneSpec, candidate_params, candidate_problem

#: Each rung runs this many times the trials of the one before.
ETA = 3
#: The first rung runs at least this many trials (fewer rungs when the scenario's trials are few).
MIN_RUNG_TRIALS = 400
MAX_RUNGS = 4
#: Candidates Optuna proposes between two evaluations (one plan each).
OPTUNA_BATCH = 8
#: Front members confirmed on the fresh seed, for several objectives.
MAX_CONFIRMED = 4

#: ``progress(stage, done, total, best)``: candidates done in the stage, and the best so far.
TuneProgress = Callable[[str, int, int, str], None]


@dataclass
class Candidate:
    """One point of the search space and what is known of it so far."""

    number: int
    values: dict[str, Any]
    params: Params
    rung: int = -1
    trials: int = 0
    spent: int = 0
    metrics: dict[str, Value] = field(default_factory=dict)
    objectives: list[tuple[float, float, float]] = field(default_factory=list)
    status: str = "proposed"

    @property
    def name(self) -> str:
        return f"c{self.number}"

    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())


@dataclass
class Confirmation:
    """The re-run of the answer beside the current parameters, on a fresh seed."""

    seed: int
    trials: int
    variants: tuple[str, ...]
    estimates: pd.DataFrame
    comparisons: pd.DataFrame
    complete: bool


@dataclass
class TuneResult:
    """What ``sim tune`` found: every candidate, the best (or the Pareto front), the ties, and
    the confirmation run."""

    scenario: Scenario
    spec: TuneSpec
    method: str
    seed: int
    trials: int
    rungs: list[int]
    candidates: list[Candidate]
    best: list[Candidate]
    ties: list[Candidate]
    confirmation: Confirmation | None
    complete: bool
    elapsed: float
    #: Candidates proposed but outside the rules (invalid or forbidden parameters): never run,
    #: never pasted; each with the reason.
    skipped: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    @property
    def trials_spent(self) -> int:
        """Trials run in the search, summed over candidates (each variant's trials count)."""
        return sum(c.spent for c in self.candidates)

    @property
    def trials_full(self) -> int:
        """What evaluating every candidate at the full trial count would have cost."""
        return len(self.candidates) * self.trials


def rung_sizes(trials: int) -> list[int]:
    """Trials per rung, smallest first, ending at ``trials``."""
    sizes = [trials]
    while len(sizes) < MAX_RUNGS and sizes[0] // ETA >= MIN_RUNG_TRIALS:
        sizes.insert(0, sizes[0] // ETA)
    return sizes


def confirm_seed(seed: int) -> int:
    """The confirmation run's seed: fixed by the search's, never equal to it."""
    other = int(scenario_key(seed, 1))
    return other if other != seed else (other + 1) % 2**64


class _Interrupted(Exception):
    pass


class _Runner:
    """Runs groups of candidates as the variants of one plan and records what they gave."""

    def __init__(
        self,
        scenario: Scenario,
        spec: TuneSpec,
        seed: int,
        threads: int | None,
        backend: Backend | None,
    ) -> None:
        self.scenario, self.spec, self.seed = scenario, spec, seed
        self.threads, self.backend = threads, backend

    def evaluate(self, group: list[Candidate], trials: int, rung: int) -> None:
        plan = make_plan(
            self.scenario.procedure, {c.name: c.params for c in group}, self.seed, False
        )
        outcome = simulate(plan, trials, threads=self.threads, backend=self.backend)
        if not outcome.complete:
            raise _Interrupted
        est = stats.estimates(plan, outcome.stats)
        for c in group:
            c.metrics = metric_values(est, c.name)
            c.objectives = [objective(o, c.metrics[o.metric]) for o in self.spec.objectives]
            c.rung, c.trials = rung, trials
            c.spent += trials


def _dominated_surely(c: Candidate, d: Candidate) -> bool:
    """Whether ``d`` beats ``c`` on every objective beyond both intervals."""
    return all(hd < lc for (_, _, hd), (_, lc, _) in zip(d.objectives, c.objectives, strict=True))


def survivors(group: list[Candidate]) -> list[Candidate]:
    """The candidates that may still be best: with one objective, those whose interval reaches
    the best point estimate's interval; with several, those no other candidate surely beats.

    No cap by rank: we measured one (a third by point estimate) dropping a true co-best at an
    early rung (tests/test_tune.py, the ties test). Where no rung can resolve the objective, the
    spend grows instead, and the output says so (trials spent against a full evaluation)."""
    if len(group[0].objectives) == 1:
        best = min(group, key=lambda c: c.objectives[0][0])
        keep = [c for c in group if c.objectives[0][1] <= best.objectives[0][2]]
    else:
        keep = [c for c in group if not any(_dominated_surely(c, d) for d in group if d is not c)]
    return keep


def pareto_front(group: list[Candidate]) -> list[Candidate]:
    """Candidates no other candidate matches or beats on every objective's point estimate."""

    def dominates(d: Candidate, c: Candidate) -> bool:
        pairs = list(zip(d.objectives, c.objectives, strict=True))
        return all(a[0] <= b[0] for a, b in pairs) and any(a[0] < b[0] for a, b in pairs)

    return [c for c in group if not any(dominates(d, c) for d in group if d is not c)]


def _best_label(group: list[Candidate]) -> str:
    rated = [c for c in group if c.objectives]
    if not rated:
        return ""
    c = min(rated, key=lambda c: tuple(o[0] for o in c.objectives))
    return f"{c.label()} ({', '.join(f'{o[0]:.4g}' for o in c.objectives)})"


def _propose_all(
    scenario: Scenario, spec: TuneSpec, skipped: list[tuple[dict[str, Any], str]]
) -> list[Candidate]:
    """Every candidate inside the rules (those outside go to ``skipped``)."""
    import itertools

    out: list[Candidate] = []
    for index in itertools.product(*(range(len(a.values)) for a in spec.axes)):
        values = spec.candidate_values(index)
        if (why := candidate_problem(scenario, values)) is not None:
            skipped.append((values, why))
            continue
        out.append(Candidate(len(out), values, candidate_params(scenario, values)))
    return out


def _optuna_method(spec: TuneSpec) -> str:
    return "Optuna TPE" if len(spec.objectives) == 1 else "Optuna NSGA-II"


def _propose_optuna(
    scenario: Scenario,
    spec: TuneSpec,
    runner: _Runner,
    trials: int,
    seed: int,
    progress: TuneProgress | None,
    found: dict[tuple[int, ...], Candidate],
    skipped: list[tuple[dict[str, Any], str]],
) -> None:
    """Ask Optuna for ``spec.budget`` distinct candidates, each evaluated at the first rung.

    Every evaluated candidate is added to ``found`` as soon as its batch has run (and those
    outside the rules to ``skipped``), so an interrupted search keeps all it has seen."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler_seed = seed % 2**32
    if len(spec.objectives) == 1:
        sampler: Any = optuna.samplers.TPESampler(seed=sampler_seed, constant_liar=True)
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=sampler_seed)
    study = optuna.create_study(directions=["minimize"] * len(spec.objectives), sampler=sampler)
    outside: dict[tuple[int, ...], str] = {}
    asked = 0
    while len(found) < spec.budget and asked < 5 * spec.budget:
        batch: list[tuple[Any, tuple[int, ...]]] = []
        fresh: list[Candidate] = []
        while len(batch) < OPTUNA_BATCH and len(found) + len(fresh) < spec.budget:
            trial = study.ask()
            asked += 1
            index = tuple(
                trial.suggest_int(a.path, 0, len(a.values) - 1)
                if a.ordered
                else trial.suggest_categorical(a.path, list(range(len(a.values))))
                for a in spec.axes
            )
            batch.append((trial, index))
            values = spec.candidate_values(index)
            if index not in outside and (why := candidate_problem(scenario, values)) is not None:
                outside[index] = why
                skipped.append((values, why))
            if (
                index not in found
                and index not in outside
                and all(c.values != values for c in fresh)
            ):
                c = Candidate(len(found) + len(fresh), values, candidate_params(scenario, values))
                fresh.append(c)
            if asked >= 5 * spec.budget:
                break
        if fresh:
            runner.evaluate(fresh, trials, 0)
            for c in fresh:
                found[
                    tuple(spec.axes[k].values.index(v) for k, v in enumerate(c.values.values()))
                ] = c
        for trial, index in batch:
            if index in outside:  # outside the rules: Optuna learns it failed
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, [o[0] for o in found[index].objectives])
        if progress is not None:
            progress("search", len(found), spec.budget, _best_label(list(found.values())))


def tune(
    scenario: Scenario,
    spec: TuneSpec,
    *,
    trials: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    backend: Backend | None = None,
    on_progress: TuneProgress | None = None,
) -> TuneResult:
    """Search ``spec``'s space for the parameters that best meet its objectives.

    Ctrl-C stops the search: the result then holds the best so far and says ``complete=False``.
    """
    t0 = time.perf_counter()
    n = trials or scenario.trials
    seed = scenario.seed if seed is None else seed
    rungs = rung_sizes(n)
    runner = _Runner(scenario, spec, seed, threads, backend)
    candidates: list[Candidate] = []
    skipped: list[tuple[dict[str, Any], str]] = []
    found: dict[tuple[int, ...], Candidate] = {}
    method = "every candidate"
    complete = True
    try:
        try:
            if spec.space_size <= spec.budget:
                candidates = _propose_all(scenario, spec, skipped)
                if on_progress is not None:
                    on_progress("search", 0, len(candidates), "")
                runner.evaluate(candidates, rungs[0], 0)
            else:
                method = _optuna_method(spec)
                try:
                    _propose_optuna(
                        scenario, spec, runner, rungs[0], seed, on_progress, found, skipped
                    )
                finally:  # interrupted or not, what was evaluated is kept
                    candidates = list(found.values())
        except _Interrupted:
            complete = False
        alive = [c for c in candidates if c.objectives]
        for r in range(1, len(rungs)):
            if not complete:
                break
            keep = survivors(alive)
            for c in alive:
                if c not in keep:
                    c.status = f"dropped at {c.trials:,} trials"
            alive = keep
            if on_progress is not None:
                on_progress(f"rung {r + 1}/{len(rungs)}", 0, len(alive), _best_label(alive))
            try:
                runner.evaluate(alive, rungs[r], r)
            except _Interrupted:
                complete = False
                break
    except KeyboardInterrupt:
        complete = False
    rated = [c for c in candidates if c.objectives]
    top = max((c.rung for c in rated), default=-1)
    finalists = [c for c in rated if c.rung == top]
    best, ties = _answer(finalists, len(spec.objectives))
    for c in finalists:
        c.status = "finalist"
    for c in ties:
        c.status = "tie"
    for c in best:
        c.status = "best" if len(spec.objectives) == 1 else "front"
    confirmation = None
    if complete and best:
        if on_progress is not None:
            on_progress("confirmation", 0, 1, _best_label(best))
        confirmation = _confirm(scenario, best, n, seed, threads, backend)
        complete = confirmation.complete
    return TuneResult(
        scenario,
        spec,
        method,
        seed,
        n,
        rungs,
        candidates,
        best,
        ties,
        confirmation,
        complete,
        time.perf_counter() - t0,
        skipped,
    )


def _answer(
    finalists: list[Candidate], n_objectives: int
) -> tuple[list[Candidate], list[Candidate]]:
    """The best candidate (or the Pareto front) and the ties.

    With one objective, a tie is a finalist whose estimated objective lies within the best's 95%
    interval: the data cannot say which of them is better. With several, the ties are finalists
    off the front that no front member surely beats (beyond both intervals on every objective).
    """
    if not finalists:
        return [], []
    if n_objectives == 1:
        best = min(finalists, key=lambda c: (c.objectives[0][0], c.number))
        ties = [
            c for c in finalists if c is not best and c.objectives[0][0] <= best.objectives[0][2]
        ]
        return [best], sorted(ties, key=lambda c: c.objectives[0][0])
    front = sorted(pareto_front(finalists), key=lambda c: c.number)
    ties = [
        c for c in finalists if c not in front and not any(_dominated_surely(c, d) for d in front)
    ]
    return front, ties


def _confirm(
    scenario: Scenario,
    best: list[Candidate],
    trials: int,
    seed: int,
    threads: int | None,
    backend: Backend | None,
) -> Confirmation:
    fresh = confirm_seed(seed)
    variants: dict[str, Params] = {"current": scenario.variants[BASE_VARIANT]}
    for k, c in enumerate(best[:MAX_CONFIRMED]):
        variants["best" if len(best) == 1 else f"front{k + 1}"] = c.params
    plan = make_plan(scenario.procedure, variants, fresh, False)
    try:
        outcome = simulate(plan, trials, threads=threads, backend=backend)
    except KeyboardInterrupt:
        empty = pd.DataFrame()
        return Confirmation(fresh, 0, tuple(variants), empty, empty, False)
    return Confirmation(
        fresh,
        outcome.trials,
        tuple(variants),
        stats.estimates(plan, outcome.stats),
        stats.comparisons(plan, outcome.stats) if outcome.trials > 1 else pd.DataFrame(),
        outcome.complete,
    )
