"""Plans a run into jobs (trial ranges), runs them on threads, reduces their statistics.

The kernels are serial and release the GIL; jobs run on a thread pool. Every job writes its own
integer statistics and they are summed, so a result depends only on the seed and the trial indices,
never on the thread count or the chunk size.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from simulator.accumulate import layout
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import scenario_key

#: Wall time a job aims for: long enough that scheduling costs little, short enough for a lively
#: progress bar and a prompt Ctrl-C.
TARGET_JOB_SECONDS = 0.05
MIN_CHUNK = 1024
MAX_CHUNK = 1 << 24
CALIBRATION_TRIALS = 1 << 12


class PlanError(ValueError):
    """The variants of a scenario cannot be run together (e.g. different metric sets)."""


@dataclass(frozen=True)
class Plan:
    """Everything a kernel needs, fixed before any trial runs."""

    procedure: Procedure
    variant_names: tuple[str, ...]
    variant_params: tuple[Params, ...]
    metrics: tuple[Metric, ...]
    packed: np.ndarray
    hist_offset: np.ndarray
    hist_max: np.ndarray
    n_slots: int
    seed: int
    independent: bool

    @property
    def n_variants(self) -> int:
        return len(self.variant_names)

    def key(self, variant: int) -> np.uint64:
        """Generator key of a variant: shared by all unless streams are independent."""
        return scenario_key(self.seed, variant if self.independent else 0)


def make_plan(
    procedure: Procedure, variants: Mapping[str, Params], seed: int, independent: bool = False
) -> Plan:
    """Fix the layout of statistics for ``variants`` (first one is the baseline of comparisons)."""
    names = tuple(variants)
    params = tuple(variants.values())
    per_variant = [procedure.metrics(p) for p in params]
    first = [m.name for m in per_variant[0]]
    for name, ms in zip(names, per_variant, strict=True):
        if [m.name for m in ms] != first:
            raise PlanError(
                f"variant {name!r} reports metrics {[m.name for m in ms]}, but {names[0]!r} "
                f"reports {first}: variants must keep the same metrics"
            )
    merged = []
    for i, m in enumerate(per_variant[0]):
        top = max(ms[i].max_value for ms in per_variant)
        merged.append(Metric(m.name, m.kind, m.description, m.scale, top, m.headline))
    hist_max = [m.max_value if m.kind == "distribution" else -1 for m in merged]
    offsets, maxima, n_slots = layout(hist_max)
    rows = [procedure.pack(p) for p in params]
    width = max(len(r) for r in rows)
    packed = np.zeros((len(rows), width), dtype=np.float64)
    for i, r in enumerate(rows):
        packed[i, : len(r)] = r
    return Plan(
        procedure, names, params, tuple(merged), packed, offsets, maxima, n_slots, seed, independent
    )


@dataclass
class Outcome:
    """Summed statistics of the trials that finished."""

    stats: np.ndarray
    trials: int
    complete: bool
    elapsed: float
    threads: int
    chunk_size: int
    batches: list[int] = field(default_factory=list)


ProgressFn = Callable[[int, int], None]


def default_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def run_range(plan: Plan, group: int, first: int, n: int) -> np.ndarray:
    """Statistics of trials ``first .. first+n-1``; ``group`` -1 runs all variants on shared
    streams, otherwise only variant ``group`` on its own stream."""
    if group < 0:
        packed, key = plan.packed, plan.key(0)
    else:
        packed, key = plan.packed[group : group + 1], plan.key(group)
    return plan.procedure.kernel(
        packed,
        key,
        np.int64(first),
        np.int64(n),
        plan.hist_offset,
        plan.hist_max,
        np.int64(plan.n_slots),
    )


def _groups(plan: Plan) -> list[int]:
    return list(range(plan.n_variants)) if plan.independent else [-1]


def _add(total: np.ndarray, group: int, part: np.ndarray) -> None:
    if group < 0:
        total += part
    else:
        total[group] += part[0]


def warm_up(plan: Plan) -> None:
    """Compile (or load from cache) the kernel before anything is timed."""
    for g in _groups(plan):
        run_range(plan, g, 0, 1)


def calibrate_chunk(plan: Plan) -> int:
    """A chunk size for jobs of about TARGET_JOB_SECONDS (it never changes the result)."""
    t0 = time.perf_counter()
    run_range(plan, _groups(plan)[0], 0, CALIBRATION_TRIALS)
    per_trial = max(time.perf_counter() - t0, 1e-7) / CALIBRATION_TRIALS
    size = int(TARGET_JOB_SECONDS / per_trial)
    size = 1 << max(size.bit_length() - 1, 0)
    return int(min(max(size, MIN_CHUNK), MAX_CHUNK))


def simulate(
    plan: Plan,
    trials: int,
    *,
    threads: int | None = None,
    chunk_size: int | None = None,
    precision: float | None = None,
    max_trials: int | None = None,
    half_width: Callable[[Plan, np.ndarray], float] | None = None,
    on_progress: ProgressFn | None = None,
) -> Outcome:
    """Run ``trials`` trials of every variant; with ``precision``, keep doubling the trial count
    until ``half_width(plan, stats)`` is at most ``precision`` or ``max_trials`` is reached.

    Ctrl-C stops cleanly: running jobs finish and are counted, the rest are dropped, and the
    outcome says ``complete=False``.
    """
    threads = threads or default_threads()
    warm_up(plan)
    chunk = chunk_size or calibrate_chunk(plan)
    cap = max(max_trials or trials, trials) if precision is not None else trials
    total = np.zeros((plan.n_variants, plan.n_slots), dtype=np.int64)
    groups = _groups(plan)
    done = 0
    target = trials
    batches: list[int] = []
    complete = True
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        while True:
            jobs = iter(
                [(g, a, min(chunk, target - a)) for a in range(done, target, chunk) for g in groups]
            )
            finished = _run_jobs(pool, plan, jobs, total, threads, done, cap, on_progress)
            if finished is None:
                complete = False
                done += _counted_trials(plan, total, done)
                batches.append(done)
                break
            done = target
            batches.append(done)
            if precision is None or half_width is None or done >= cap:
                break
            if half_width(plan, total) <= precision:
                break
            target = min(cap, done * 2)
    return Outcome(total, done, complete, time.perf_counter() - t0, threads, chunk, batches)


def _run_jobs(
    pool: ThreadPoolExecutor,
    plan: Plan,
    jobs: Iterator[tuple[int, int, int]],
    total: np.ndarray,
    threads: int,
    done: int,
    planned: int,
    on_progress: ProgressFn | None,
) -> int | None:
    """Run jobs with a few in flight, adding results to ``total`` as they arrive.

    Returns the number of jobs run, or None when interrupted (results of the jobs that were
    running are still added).
    """
    in_flight: dict[Future[np.ndarray], tuple[int, int, int]] = {}
    finished_trials = 0
    count = 0

    def top_up() -> None:
        while len(in_flight) < 4 * threads:
            job = next(jobs, None)
            if job is None:
                return
            in_flight[pool.submit(run_range, plan, *job)] = job

    try:
        top_up()
        while in_flight:
            ready, _ = wait(in_flight, timeout=0.1, return_when=FIRST_COMPLETED)
            for f in ready:
                g, _, n = in_flight.pop(f)
                _add(total, g, f.result())
                count += 1
                finished_trials += n if g <= 0 else 0
            top_up()
            if on_progress is not None:
                on_progress(done + finished_trials, planned)
    except KeyboardInterrupt:
        for f in in_flight:
            f.cancel()
        for f, (g, _, _) in in_flight.items():
            if not f.cancelled():
                _add(total, g, f.result())
        return None
    return count


def _counted_trials(plan: Plan, total: np.ndarray, done: int) -> int:
    """Trials of the baseline variant in ``total`` beyond ``done`` (read off its statistics)."""
    if not plan.metrics:
        return 0
    # Slot 0 counts trials where the first metric is defined; for a conditional metric use
    # any unconditional one.
    for m, metric in enumerate(plan.metrics):
        if metric.kind != "conditional_mean":
            return int(total[0, 4 * m]) - done
    return 0
