"""Rerunning a comparison under each robustness level, on the same deals, sized by power.

Each level's overrides are applied to every variant of the scenario (validated by the procedure's
parameter model, as a scenario's own values are) and the scenario is run again with its own seed,
so every level plays the same deals: the differences between levels are the levels', not the
dice's. A level whose overrides the rules refuse is kept with the reason, not run. Ctrl-C keeps
the levels finished so far (the interrupted one is dropped).

How many deals each level plays is decided in two steps (an *internal pilot*, the sample-size
re-estimation of clinical trials: the pilot fixes the size from variances and speed, never from
the effects, and every finding is tested once, at the end, so no alpha is spent on looks):

1. a pilot of each level on its first deals (4, 16, then :data:`PILOT`, within a quarter of the
   budget) measures its per-deal variances and its speed (thread-seconds per deal, and a fixed
   cost per run for fast procedures);
2. each level is given the deals its interaction tests need to see the main effects at 80% power
   (:func:`simulator.robustness.interaction.deals_needed`, the level's standard deviations
   floored at the main run's), at most the main run's deals (the same deals) and the section's
   ``trials``; when the sum would overrun the time budget, the budget is shared out (each level
   gets what it needs up to an equal share, the time left over goes to the others).

The estimate announced before the reruns is the sum of each level's measured cost at its size.
A level so cheap that :data:`~simulator.robustness.findings.MIN_BATCHES` of the main run's deal
batches cost under :data:`CHEAP` of the budget plays at least those.
Where the main run kept batches of deals (a game with seats), a level that plays at least
:data:`~simulator.robustness.findings.MIN_BATCHES` of them is cut into the same batches, so the
covariance of its effects with the main run's is estimated by deal.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from simulator import stats
from simulator.engine import default_threads, make_plan, simulate
from simulator.robustness.findings import MIN_BATCHES, effect, main_effects
from simulator.robustness.interaction import deals_needed
from simulator.robustness.spec import DEFAULT_SECONDS, Level, levels
from simulator.runner import RunResult
from simulator.scenario import Scenario, set_path

#: Deals of each level's pilot (its variances; its speed, timed further when it is fast).
PILOT = 32
#: A pilot shorter than this is timed again on four times the deals, until it is not.
PILOT_SECONDS = 0.2
#: The share of the time budget the pilots may take (each level an equal part of it).
PILOT_SHARE = 0.25
#: A level whose reruns over enough of the main run's batches to pair them by deal cost at most
#: this share of the budget plays that many (more power, and the covariance measured).
CHEAP = 0.05


@dataclass
class Rerun:
    """One level's rerun: its result, or why it was not run."""

    level: Level
    result: RunResult | None = None
    refused: str = ""
    elapsed: float = 0.0
    #: Deals the level would need to see every main effect (inf: no rerun could; 0: none seen).
    needed: float = 0.0
    #: The deals it was given, and the seconds that were estimated for them.
    planned: int = 0
    estimate: float = 0.0
    #: Whether the budget cut it short of ``needed``.
    capped: bool = False


@dataclass
class Robustness:
    """Every level's rerun of one scenario, in order (play levels first)."""

    trials: int
    reruns: list[Rerun] = field(default_factory=list)
    #: Levels planned; fewer ran when the run was interrupted.
    planned: int = 0
    #: The time budget, the pilots' seconds, the estimate for the sized reruns and their time.
    seconds: float = DEFAULT_SECONDS
    pilot_seconds: float = 0.0
    estimate: float = 0.0
    elapsed: float = 0.0
    #: The main run the levels are compared with.
    main: RunResult | None = None

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


def budget_for(scenario: Scenario, seconds: float | None) -> float:
    """The reruns' time budget: ``--robustness-seconds``, else the section's, else the default."""
    if seconds is not None:
        return seconds
    own = scenario.robustness.seconds if scenario.robustness else None
    return own if own is not None else DEFAULT_SECONDS


@dataclass
class Speed:
    """A level's measured cost: thread-seconds per deal and seconds per run (the fixed part)."""

    per_deal: float
    fixed: float = 0.0

    def seconds(self, deals: int, chunk: int, slots: int) -> float:
        """Wall seconds of ``deals`` deals in jobs of ``chunk`` on ``slots`` threads."""
        chunk = max(1, min(chunk, deals))
        rounds = math.ceil(math.ceil(deals / chunk) / slots)
        return self.fixed + self.per_deal * chunk * rounds


def _chunk(deals: int, slots: int) -> int:
    """Jobs of a plain (unbatched) rerun: eight per thread, so the threads stay even."""
    return max(1, math.ceil(deals / (8 * slots)))


def _run(
    moved: Scenario,
    deals: int,
    chunk: int,
    batches: int | None,
    threads: int | None,
    backend: Any,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    plan_ = make_plan(moved.procedure, moved.variants, moved.seed)
    outcome = simulate(
        plan_,
        deals,
        threads=threads,
        chunk_size=None if batches else chunk,
        backend=backend,
        on_progress=on_progress,
        deal_batches=batches,
    )
    return RunResult(
        moved,
        plan_,
        outcome,
        stats.estimate_records(plan_, outcome.stats),
        stats.distribution_records(plan_, outcome.stats),
        stats.comparison_records(plan_, outcome.stats),
    )


def _pilot(
    moved: Scenario,
    most: int,
    allowance: float,
    slots: int,
    threads: int | None,
    backend: Any,
) -> tuple[RunResult, Speed]:
    """The pilot of a level and its measured speed: runs of 4, 16 and :data:`PILOT` deals (then
    four times more while a run takes under :data:`PILOT_SECONDS`, up to ``most``), stopping
    before a run whose time, as the last one measured it, would pass ``allowance`` seconds. The
    variances come from the run of PILOT deals when there was one (the same deals whatever the
    machine's speed), else from the largest. Runs are timed whole (plan, jobs and tables), so the
    fixed cost of a run is in the estimate too."""
    runs: list[tuple[RunResult, float]] = []
    n = min(4, most)
    while True:
        t0 = time.perf_counter()
        result = _run(moved, n, _chunk(n, slots), None, threads, backend)
        runs.append((result, time.perf_counter() - t0))
        if not result.complete or n >= most:
            break
        last = runs[-1][1]
        if n >= PILOT and last >= PILOT_SECONDS:
            break
        step = min(4 * n if n >= PILOT else min(4 * n, PILOT), most)
        if last * step / n > allowance:
            break
        n = step
    done = [(r, t) for r, t in runs if r.complete]
    if not done:
        return runs[-1][0], Speed(0.0)
    first = next((r for r, _ in done if r.outcome.trials == min(PILOT, most)), done[-1][0])

    def work(trials: int) -> int:  # deals one thread plays in a run of `trials`
        chunk = _chunk(trials, slots)
        return chunk * math.ceil(math.ceil(trials / chunk) / slots)

    points = [(r.outcome.trials, t) for r, t in done]
    if len(points) == 1:
        return first, Speed(points[0][1] / max(work(points[0][0]), 1))
    (n1, t1), (n2, t2) = points[-2:]
    per = max((t2 - t1) / max(work(n2) - work(n1), 1), 0.0) or t2 / work(n2)
    # The fixed part: what the smallest run took beyond its deals (a fast level's runs are
    # mostly that).
    fixed = max(min(t - per * work(k) for k, t in points), 0.0)
    return first, Speed(per, fixed)


def _share(costs: list[float], budget: float) -> list[float]:
    """Seconds for each level: what it needs up to an equal share of ``budget``, the share of
    those that need less going to the others (water-filling)."""
    out = [0.0] * len(costs)
    left = sorted(range(len(costs)), key=lambda i: costs[i])
    remaining = budget
    while left:
        share = remaining / len(left)
        i = left[0]
        if costs[i] <= share:
            out[i] = costs[i]
            remaining -= costs[i]
            left.pop(0)
            continue
        for j in left:
            out[j] = share
        break
    return out


def _size(main: RunResult, pilot: RunResult, family: int, most: int) -> tuple[float, int]:
    """The deals a level needs to see every main effect (``inf`` when one is beyond any rerun:
    the main run's own error is too large), and what it will play: enough for every effect a
    rerun can see, at least the pilot's and at most ``most``."""
    needed = 0.0
    seeable = 0.0
    for v, m, main_effect, saw in main_effects(main):
        if not saw or main_effect.mean == 0:
            continue
        own = effect(pilot.plan, pilot.outcome.stats, v, m)
        n = deals_needed(main_effect, max(own.sd, main_effect.sd), family)
        needed = max(needed, n)
        if math.isfinite(n):
            seeable = max(seeable, n)
    want = int(min(max(seeable, pilot.outcome.trials), most))
    return needed, max(want, 1)


def run_robustness(
    scenario: Scenario,
    chosen: list[Level],
    main: RunResult,
    *,
    seconds: float = DEFAULT_SECONDS,
    most: int | None = None,
    threads: int | None = None,
    backend: Any = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_level: Callable[[int, Rerun], None] | None = None,
    on_plan: Callable[[Robustness], None] | None = None,
) -> Robustness:
    """Rerun ``scenario`` under every level in ``chosen``, each sized by power to see the
    effects of ``main`` (the scenario's own run) within ``seconds`` (see the module docstring);
    ``most`` caps a rerun's deals (default: the main run's). ``on_plan`` hears the sizes and the
    estimate before the sized reruns start."""
    slots = backend.slots if backend is not None else threads or default_threads()
    out = Robustness(main.outcome.trials, planned=len(chosen), seconds=seconds, main=main)
    most = min(most or main.outcome.trials, main.outcome.trials)
    t0 = time.perf_counter()
    moved: dict[int, Scenario] = {}
    pilots: dict[int, tuple[RunResult, Speed]] = {}
    for i, level in enumerate(chosen):
        try:
            moved[i] = with_level(scenario, level)
        except ValueError as e:
            out.reruns.append(Rerun(level, refused=str(e)))
            continue
        out.reruns.append(Rerun(level))
        allowance = PILOT_SHARE * seconds / len(chosen)
        pilots[i] = _pilot(moved[i], most, allowance, slots, threads, backend)
        if not pilots[i][0].complete:
            out.reruns.pop()
            return out
    out.pilot_seconds = time.perf_counter() - t0
    ran = list(pilots)
    family = len(ran) * len(main_effects(main))
    batch = main.outcome.chunk_size if main.outcome.batch_stats is not None else 0
    sizes: dict[int, tuple[int, int, int | None]] = {}
    costs = []
    for i in ran:
        first, speed = pilots[i]
        needed, want = _size(main, first, family, most)
        paired = min(MIN_BATCHES * batch, most)
        if batch and want < paired and speed.seconds(paired, batch, slots) <= CHEAP * seconds:
            # Cheap enough to pair by deal with the main run: more deals, a narrower interval.
            want = paired
        out.reruns[i].needed = needed
        sizes[i] = _layout(want, batch, most, slots)
        costs.append(speed.seconds(*sizes[i][:2], slots))
    allowed = _share(costs, max(seconds - out.pilot_seconds, 0.0))
    for i, cost, time_ in zip(ran, costs, allowed, strict=True):
        first, speed = pilots[i]
        rerun = out.reruns[i]
        if time_ < cost:
            fit = _fit(speed, time_, sizes[i][0], slots, first.outcome.trials)
            rerun.capped = True
            sizes[i] = _layout(fit, batch, most, slots)
        rerun.planned = sizes[i][0]
        # A level whose pilot already played its deals (unbatched) is not run again.
        reused = rerun.planned <= first.outcome.trials and not sizes[i][2]
        rerun.estimate = 0.0 if reused else speed.seconds(*sizes[i][:2], slots)
    out.estimate = sum(out.reruns[i].estimate for i in ran)
    if on_plan is not None:
        on_plan(out)
    total = sum(out.reruns[i].planned for i in ran)
    done = 0
    for i in ran:
        rerun = out.reruns[i]
        first, _ = pilots[i]
        _, chunk, batches = sizes[i]
        start = time.perf_counter()
        if rerun.planned <= first.outcome.trials and not batches:
            result = first
        else:

            def progress(n: int, _total: int, offset: int = done) -> None:
                if on_progress is not None:
                    on_progress(offset + n, total)

            result = _run(
                moved[i],
                rerun.planned,
                chunk,
                batches,
                threads,
                backend,
                progress,
            )
            if not result.complete:
                del out.reruns[i:]
                break
        rerun.result = result
        rerun.elapsed = time.perf_counter() - start
        done += rerun.planned
        if on_level is not None:
            on_level(i, rerun)
    out.elapsed = time.perf_counter() - t0
    return out


def _layout(deals: int, batch: int, most: int, slots: int) -> tuple[int, int, int | None]:
    """(deals, job size, batches) of a rerun of about ``deals``: the main run's batches of
    ``batch`` deals when it kept them and the rerun spans at least MIN_BATCHES of them (its deals
    rounded to whole batches), else plain jobs."""
    if batch and deals >= MIN_BATCHES * batch:
        k = min(math.ceil(deals / batch), most // batch)
        if k >= MIN_BATCHES:
            return batch * k, batch, k
    return deals, _chunk(deals, slots), None


def _fit(speed: Speed, seconds: float, deals: int, slots: int, least: int) -> int:
    """The most deals (at most ``deals``, at least ``least``) that fit in ``seconds``."""
    lo, hi = least, max(deals, least)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if speed.seconds(mid, _chunk(mid, slots), slots) <= seconds:
            lo = mid
        else:
            hi = mid - 1
    return lo
