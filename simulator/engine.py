"""Plans a run into jobs (trial ranges), runs them on a backend, reduces their statistics.

The kernels are serial and release the GIL; jobs run on a thread pool, or on any other
:class:`Backend` (a Dask cluster: :mod:`simulator.dask_backend`). Every job writes its own integer
statistics and they are summed in job order, so a result depends only on the seed and the trial
indices, never on the backend, the thread or worker count or the chunk size.
"""

from __future__ import annotations

import math
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import ExitStack, nullcontext, suppress
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simulator import interrupts, jit
from simulator.accumulate import layout, merge, overflowed
from simulator.interrupts import Stopped
from simulator.limits import MAX_TRIALS, InvalidInput
from simulator.procedures.base import Metric, Params, Procedure
from simulator.rng import scenario_key

#: Wall time a job aims for: long enough that scheduling costs little, short enough for a lively
#: progress bar and a prompt Ctrl-C.
TARGET_JOB_SECONDS = 0.05
MIN_CHUNK = 16
MAX_CHUNK = 1 << 24
CALIBRATION_TRIALS = 1  # grown 4× at a time: a tournament deal with search agents takes seconds


class PlanError(ValueError):
    """The variants of a scenario cannot be run together (e.g. different metric sets)."""


class TrialLimitError(InvalidInput):
    """More trials than ``MAX_TRIALS`` (the one cap of the CLI, scenario files and baselines)."""


class OverflowLimit(InvalidInput):
    """A metric whose sum of squares over the trials run does not fit in int64: refused rather
    than reported with a wrapped variance (simulator.accumulate)."""


def check_overflow(plan: Plan, stats: np.ndarray, trials: int) -> None:
    """Refuse statistics whose sum of squares of a metric did not fit in int64.

    Raises:
        OverflowLimit: naming the metric, the bound and the largest value that fits.
    """
    bad = overflowed(stats, len(plan.metrics))
    if not bad:
        return
    name = plan.metrics[bad[0]].name
    fits = math.isqrt((2**63 - 1) // max(trials, 1))
    raise OverflowLimit(
        f"metric {name!r}: its values are too large for {trials:,} trials. sim sums each "
        "metric's squares exactly in 64 bits, and value² × trials must stay below 2**63 "
        f"(about 9.2e18): with {trials:,} trials, values up to about {fits:,}. Report it in "
        "larger units (thousands, or the difference from a base value), or run fewer trials"
    )


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

    def __reduce__(self) -> tuple[Any, ...]:
        # A plan sent to another process (a Dask worker) names its procedure rather than carrying
        # the compiled kernel: the worker uses its own installed kernel and its Numba cache.
        from simulator import procedures

        fields = tuple(getattr(self, f) for f in self.__dataclass_fields__)
        try:
            registered = procedures.get(self.procedure.name) is self.procedure
        except KeyError:
            registered = False
        if not registered:
            return (Plan, fields)
        return (_plan_of_registered, (self.procedure.name, *fields[1:]))


def _plan_of_registered(name: str, *fields: Any) -> Plan:
    from simulator import procedures

    return Plan(procedures.get(name), *fields)


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
    backend: str = "threads"
    #: With ``precision``: whether every headline half-width reached it (None without).
    precision_reached: bool | None = None
    #: With ``deal_batches``: the statistics of each batch of trials, in trial order, shape
    #: (batches, variants, slots); a batch's trials are its metrics' count slots (:func:`simulate`).
    batch_stats: np.ndarray | None = None


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
    out = plan.procedure.kernel(
        packed,
        key,
        np.int64(first),
        np.int64(n),
        plan.hist_offset,
        plan.hist_max,
        np.int64(plan.n_slots),
    )
    if interrupts.stop_requested():
        # Searches stop early once a signal has come (simulator.stopflag): never count them.
        raise Stopped
    return out


class Backend:
    """Where jobs run: a :class:`concurrent.futures.Executor` that runs ``run_range`` calls, how
    many it runs at once, and how long a job should take there.

    A job is a pure function of ``(plan, group, first, n)``: any backend may run it anywhere, or
    run it again (a Dask worker that dies has its jobs recomputed elsewhere), and get the same
    statistics.
    """

    name = "threads"
    #: Wall time a job aims for on this backend, and a cap on its trials (neither ever changes
    #: the result).
    job_seconds = TARGET_JOB_SECONDS
    max_chunk = MAX_CHUNK

    def __init__(self, executor: Executor, slots: int) -> None:
        self.executor = executor
        self._slots = slots

    @property
    def slots(self) -> int:
        """Jobs that run at the same time (threads, or worker threads of a cluster)."""
        return self._slots

    def prepare(self, plan: Plan) -> None:
        """Get ready to run ``plan``'s jobs (remote backends warm their workers up here)."""

    def check(self) -> None:
        """Called while jobs are awaited (about ten times a second): a backend that can no
        longer finish them raises here, instead of leaving the run waiting in silence."""


def _groups(plan: Plan) -> list[int]:
    return list(range(plan.n_variants)) if plan.independent else [-1]


def add_part(total: np.ndarray, group: int, part: np.ndarray, n_metrics: int) -> None:
    """Fold a job's statistics ``part`` into ``total`` (its stream ``group``'s row, or every
    row for -1), a sum of squares that does not fit becoming the overflow mark
    (:func:`simulator.accumulate.merge`)."""
    if group < 0:
        merge(total, part, n_metrics)
    else:
        merge(total[group : group + 1], part, n_metrics)


#: Seconds an interrupted run waits for the jobs already running before it reports without
#: them (a kernel deep in one long trial never returns to Python: it is left to the exit).
GRACE_SECONDS = 2.0


class DaemonPool(Executor):
    """The engine's thread pool: like :class:`concurrent.futures.ThreadPoolExecutor`, but its
    threads never hold up the process's exit. A compiled kernel deep in one long trial cannot
    be stopped; after a signal the main thread reports what finished and exits, and a
    ThreadPoolExecutor would first wait for that kernel (for ever: a trial of 10**12 dice)."""

    def __init__(self, workers: int) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._workers = max(1, workers)
        self._threads: list[threading.Thread] = []  # started as jobs come, as the standard pool

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as e:
                future.set_exception(e)
            else:
                future.set_result(result)
            del item, future, fn, args, kwargs

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._queue.put((future, fn, args, kwargs))
        if len(self._threads) < self._workers:
            t = threading.Thread(target=self._work, name=f"sim-job-{len(self._threads)}")
            t.daemon = True
            t.start()
            self._threads.append(t)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Let the threads end once the queue is done (``cancel_futures``: the jobs not yet
        started are cancelled instead); wait for them unless a stop was requested (a stopped
        run does not wait for a kernel that cannot be stopped)."""
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in self._threads:
            self._queue.put(None)
        if wait and not interrupts.stop_requested():
            for t in self._threads:
                t.join()


def off_main(fn: Callable[..., Any], *args: Any, poll: Callable[[], None] | None = None) -> Any:
    """``fn(*args)`` in a worker thread while this thread waits, answering signals (on the main
    thread) and calling ``poll`` (if given) about ten times a second: SIGINT, SIGTERM and SIGHUP
    raise KeyboardInterrupt here within a tenth of a second, even while a kernel runs (Python
    runs signal handlers only in the main thread, between bytecodes: a kernel called from it is
    deaf to them until it returns), and so does ``poll`` (``sim serve``'s Stop and time cap)."""
    on_main = threading.current_thread() is threading.main_thread()
    if not on_main and poll is None:
        return fn(*args)
    future: Future[Any] = Future()

    def work() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = fn(*args)
        except BaseException as e:
            future.set_exception(e)
        else:
            future.set_result(result)

    threading.Thread(target=work, name="sim-kernel", daemon=True).start()
    with interrupts.deferred() if on_main else nullcontext(lambda: False) as arrived:
        while True:
            with suppress(TimeoutError):
                return future.result(timeout=0.1)
            if arrived():
                raise KeyboardInterrupt
            if poll is not None:
                poll()


def warm_up(plan: Plan, poll: Callable[[], None] | None = None) -> None:
    """Compile (or load from cache) the kernel before anything is timed (in a worker thread:
    a signal, or ``poll`` raising KeyboardInterrupt, still ends the run while a first trial
    runs: :func:`off_main`)."""

    def first_trials() -> None:
        for g in _groups(plan):
            run_range(plan, g, 0, 1)

    off_main(first_trials, poll=poll)
    jit.settled()


def calibrate_chunk(
    plan: Plan,
    seconds: float = TARGET_JOB_SECONDS,
    max_chunk: int = MAX_CHUNK,
    poll: Callable[[], None] | None = None,
) -> int:
    """A power-of-two chunk size for jobs of ``seconds / 2 .. seconds``, at most ``max_chunk``
    trials (it never changes the result).

    Times a run of at least ``seconds / 10``; a short one (under 0.1 s) twice, keeping the faster
    (a busy machine may pause one of them)."""
    group = _groups(plan)[0]

    def timed(n: int) -> float:
        def run() -> float:
            t0 = time.perf_counter()
            run_range(plan, group, 0, n)
            return time.perf_counter() - t0

        return float(off_main(run, poll=poll))

    n = CALIBRATION_TRIALS
    while (elapsed := timed(n)) < seconds / 10 and n < max_chunk:
        n *= 4
    if elapsed < 0.1:
        elapsed = min(elapsed, timed(n))
    per_trial = max(elapsed, 1e-7) / n
    size = int(seconds / per_trial)
    size = 1 << max(size.bit_length() - 1, 0)
    return int(min(max(size, MIN_CHUNK), max_chunk))


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
    backend: Backend | None = None,
    deal_batches: int | None = None,
) -> Outcome:
    """Run ``trials`` trials of every variant; with ``precision``, keep doubling the trial count
    until ``half_width(plan, stats)`` is at most ``precision`` or ``max_trials`` is reached.

    With ``deal_batches`` the trials are cut into about that many batches of ``ceil(trials /
    deal_batches)`` consecutive trials (a function of the trial count alone), each one job, and
    each batch's statistics are kept beside the total (:attr:`Outcome.batch_stats`): a statistic
    that is not a sum of trials (a seat spread, a difference of spreads) can then be resampled by
    batch, the same batches under every variant, on any backend and thread count. The chunk
    size is then the batch size; the totals are the same as without batches.

    Jobs run on ``backend`` (default: a pool of ``threads`` threads); their statistics are added in
    job order, so the result is the same on any backend.

    Ctrl-C (SIGTERM, SIGHUP) stops cleanly and within seconds, even inside a long trial: no
    kernel runs on the main thread, outstanding jobs are cancelled, running ones get
    :data:`GRACE_SECONDS` to finish and are left behind after it, the statistics of the
    unbroken run of finished jobs from the start are kept, and the outcome says
    ``complete=False``; its ``trials`` are then exactly the first ``trials`` trials. A signal
    during the warm-up or the calibration (no trial counted) raises KeyboardInterrupt.
    """
    if not 1 <= trials <= MAX_TRIALS or (max_trials or 0) > MAX_TRIALS:
        raise TrialLimitError(f"trials must be between 1 and {MAX_TRIALS:,} (got {trials:,})")
    interrupts.clear_stop()
    cap = max(max_trials or trials, trials) if precision is not None else trials
    total = np.zeros((plan.n_variants, plan.n_slots), dtype=np.int64)
    done = 0
    target = trials
    batches: list[int] = []
    complete = True
    kept: list[np.ndarray] | None = [] if deal_batches else None
    chunk = max(1, -(-trials // deal_batches)) if deal_batches else chunk_size or MIN_CHUNK
    # Off the main thread (sim serve's runs) no signal reaches a run: while the first trials
    # run, its progress callback is asked instead (it stops a run by raising).
    poll = None
    if on_progress is not None and threading.current_thread() is not threading.main_thread():
        poll = lambda: on_progress(0, cap)  # noqa: E731
    # A signal here (no trial counted yet) raises KeyboardInterrupt to the caller, as before.
    warm_up(plan, poll)
    t0 = time.perf_counter()
    with ExitStack() as stack:
        if backend is None:
            threads = threads or default_threads()
            backend = Backend(stack.enter_context(DaemonPool(threads)), threads)
        backend.prepare(plan)
        if not deal_batches and chunk_size is None and cap > MIN_CHUNK:
            # A run of at most MIN_CHUNK trials is one job whatever the calibration says.
            chunk = calibrate_chunk(plan, backend.job_seconds, backend.max_chunk, poll)
        t0 = time.perf_counter()
        while True:
            blocks = _Blocks(done, target, chunk)
            added, finished = _run_jobs(backend, plan, blocks, total, done, cap, on_progress, kept)
            done += added
            batches.append(done)
            check_overflow(plan, total, done)
            if not finished:
                complete = False
                break
            if precision is None or half_width is None or done >= cap:
                break
            if half_width(plan, total) <= precision:
                break
            target = min(cap, done * 2)
        elapsed = time.perf_counter() - t0
    reached = None
    if precision is not None and half_width is not None and complete:
        reached = bool(half_width(plan, total) <= precision)
    batch_stats = None
    if kept is not None:
        batch_stats = np.stack(kept) if kept else np.zeros((0, *total.shape), dtype=np.int64)
    return Outcome(
        total,
        done,
        complete,
        elapsed,
        backend.slots,
        chunk,
        batches,
        backend=backend.name,
        precision_reached=reached,
        batch_stats=batch_stats,
    )


class _Blocks:
    """The trial ranges ``(first, n)`` of ``start .. stop-1`` in chunks, computed on demand:
    a run of 10¹² trials in chunks of 1 holds no list of jobs."""

    def __init__(self, start: int, stop: int, chunk: int) -> None:
        self.start, self.stop, self.chunk = start, stop, chunk

    def __len__(self) -> int:
        return max(0, -(-(self.stop - self.start) // self.chunk))

    def __getitem__(self, b: int) -> tuple[int, int]:
        first = self.start + b * self.chunk
        return first, min(self.chunk, self.stop - first)


def _run_jobs(
    backend: Backend,
    plan: Plan,
    blocks: _Blocks,
    total: np.ndarray,
    done: int,
    planned: int,
    on_progress: ProgressFn | None,
    kept: list[np.ndarray] | None = None,
) -> tuple[int, bool]:
    """Run blocks of trials ``(first, n)`` (one job per block and stream group) with a few jobs
    in flight, adding each block's statistics to ``total`` in block order (and appending them to
    ``kept``, one array per block, when given).

    Returns the trials added and whether every block finished (False when interrupted: the
    blocks finished before the first unfinished one are still added).
    """
    groups = _groups(plan)
    jobs = ((b, g) for b in range(len(blocks)) for g in groups)  # lazily: memory stays flat
    window = 4 * max(1, backend.slots)
    in_flight: dict[Future[np.ndarray], tuple[int, int]] = {}
    parts: dict[int, list[tuple[int, np.ndarray]]] = {}
    next_block = 0
    added = 0

    def top_up() -> None:
        while len(in_flight) < window:
            job = next(jobs, None)
            if job is None:
                return
            b, g = job
            f = backend.executor.submit(run_range, plan, g, *blocks[b])
            in_flight[f] = job

    errors: dict[int, Exception] = {}

    def collect(f: Future[np.ndarray]) -> None:
        b, g = in_flight.pop(f)
        try:
            part = f.result()
        except Exception as e:  # a trial's error (a designer's rule): the first block's is said
            errors[b] = e
            return
        parts.setdefault(b, []).append((g, part))

    def raise_first_error() -> None:
        # The error of the lowest failing block, whatever thread finished first: the jobs below
        # it (all submitted already, in block order) are waited for, those above cancelled.
        first = min(errors)
        for f, (b, _) in in_flight.items():
            if b > first:
                f.cancel()
        below = [f for f, (b, _) in in_flight.items() if b < first and not f.cancelled()]
        while wait(below, timeout=0.1).not_done and not interrupts.stop_requested():
            pass  # a signal meanwhile: the error found so far is said
        for f in below:
            if f.done():
                with suppress(Stopped):
                    collect(f)
        raise errors[min(errors)]

    def fold() -> None:
        # Results may arrive in any order; they are added in block order, so what is kept after
        # an interruption is always the first trials.
        nonlocal next_block, added
        while len(parts.get(next_block, ())) == len(groups):
            block = np.zeros_like(total) if kept is not None else total
            for g, part in parts.pop(next_block):
                add_part(block, g, part, len(plan.metrics))
            if kept is not None:
                merge(total, block, len(plan.metrics))
                kept.append(block)
            added += blocks[next_block][1]
            next_block += 1

    try:
        with interrupts.deferred() as arrived:  # a signal stops the loop here, not mid-lock
            top_up()
            while in_flight:
                ready, _ = wait(in_flight, timeout=0.1, return_when=FIRST_COMPLETED)
                if not ready:
                    backend.check()
                for f in ready:
                    collect(f)
                if errors:
                    raise_first_error()
                fold()
                if arrived():
                    raise KeyboardInterrupt
                top_up()
                if on_progress is not None:
                    on_progress(done + added, planned)
            if arrived():
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        for f in in_flight:
            f.cancel()
        # Jobs already running get a moment (their searches stop at the flag); one that is
        # still running after it (a kernel deep in one long trial) is left behind, uncounted.
        wait([f for f in in_flight if not f.cancelled()], timeout=GRACE_SECONDS)
        for f in list(in_flight):
            if f.done() and not f.cancelled():
                with suppress(Stopped):  # ran while the stop was requested: not counted
                    collect(f)
        fold()
        return added, False
    except BaseException:
        for f in in_flight:
            f.cancel()
        raise
    return added, True
