"""A run started from the page: :func:`simulator.runner.run_scenario` in a thread of its own, its
estimates streamed as chunks finish, stopped the way Ctrl-C stops `sim run`.

Partial results come from the engine's own extension point, a :class:`~simulator.engine.Backend`:
its executor keeps each job's statistics as the job returns them, and when the engine reports
progress (``done`` trials folded, always a whole prefix of blocks) the statistics of the jobs below
``done`` add up to exactly what the engine holds (integer sums, in any order). Nothing is run
twice and nothing is estimated another way: the final result is the one ``run_scenario`` returns.

Stopping raises ``KeyboardInterrupt`` from the progress callback, inside the engine's job loop:
the engine's Ctrl-C path cancels what is queued, keeps the unbroken run of finished blocks and
returns a result marked incomplete. The session's time cap stops a run the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import numpy as np

from simulator.engine import Backend, DaemonPool, Plan, add_part
from simulator.runner import RunResult, run_scenario
from simulator.scenario import Scenario
from simulator.serve import model
from simulator.serve.exact import ExactRun

#: Partial results are sent at most this often (and never more often than 3× their cost).
PARTIAL_EVERY = 0.25


class _Keeping(Executor):
    """A thread pool that keeps every job's statistics until the engine has folded them."""

    def __init__(self, threads: int) -> None:
        # The engine's pool: its threads never hold up the server's exit, and a stopped job
        # does not wait for a kernel deep in one long trial.
        self.pool = DaemonPool(threads)
        self.lock = threading.Lock()
        #: (id of the plan, first trial, stream group) → statistics, for jobs not yet folded.
        self.parts: dict[tuple[int, int, int], np.ndarray] = {}
        self.totals: dict[int, np.ndarray] = {}
        #: The plan whose jobs were submitted last (a sweep runs one plan per point).
        self.plan: Plan | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        # A job is run_range(plan, group, first, n) (engine.Backend). It is recorded before its
        # future completes, so the engine never folds a block whose part is not here yet.
        plan, group, first = args[0], int(args[1]), int(args[2])
        self.plan = plan

        def job() -> Any:
            part = fn(*args, **kwargs)
            with self.lock:
                self.parts[(id(plan), first, group)] = part
            return part

        return self.pool.submit(job)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def folded(self, plan: Plan, done: int) -> np.ndarray:
        """The statistics of trials ``0 .. done-1`` of ``plan``: what the engine has folded."""
        with self.lock:
            total = self.totals.setdefault(
                id(plan), np.zeros((plan.n_variants, plan.n_slots), dtype=np.int64)
            )
            for key in [k for k in self.parts if k[0] == id(plan) and k[1] < done]:
                # As the engine folds them: a sum of squares that overflows stays marked, so a
                # partial view never shows a wrapped variance before the run is refused.
                add_part(total, key[2], self.parts.pop(key), len(plan.metrics))
            return total.copy()


class Job:
    """One run: its events (read by the page as they come), a way to stop it, its result."""

    def __init__(
        self,
        number: int,
        scenario: Scenario,
        *,
        threads: int,
        max_seconds: float,
        exact: ExactRun | None = None,
    ) -> None:
        self.number = number
        self.scenario = scenario
        self.threads = threads
        self.max_seconds = max_seconds
        #: The exact values, computed beside the run in a thread of their own (never waited
        #: for before the first estimate; bounded in time, cut by Stop).
        self.exact = exact
        self.events: list[dict[str, Any]] = []
        self.result: RunResult | None = None
        self.stop_reason: str | None = None
        self.finished = threading.Event()
        self._lock = threading.Lock()
        self._executor = _Keeping(threads)
        self._started = 0.0
        self._last_partial = 0.0
        self._partial_cost = 0.0
        self._thread = threading.Thread(
            target=self._run, name=f"sim-serve-job-{number}", daemon=True
        )

    # -- what the page reads --------------------------------------------------------------

    def emit(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.events.append(event)

    def events_from(self, index: int) -> list[dict[str, Any]]:
        with self._lock:
            return self.events[index:]

    @property
    def running(self) -> bool:
        return not self.finished.is_set()

    # -- control --------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self, reason: str = "stopped from the page") -> None:
        """Ask the run to stop at the engine's next progress report (within ~0.1 s)."""
        if self.stop_reason is None:
            self.stop_reason = reason
        if self.exact is not None:
            self.exact.cut(reason)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    # -- the run --------------------------------------------------------------------------

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.stop_reason is None and now - self._started > self.max_seconds:
            self.stop_reason = f"the session's time cap ({self.max_seconds:g} s) was reached"
        if self.stop_reason is not None:
            raise KeyboardInterrupt  # the engine's Ctrl-C path: partial, marked incomplete
        first = self._last_partial == 0.0
        wait = max(PARTIAL_EVERY, 3 * self._partial_cost)
        if done == 0 or not (first or now - self._last_partial >= wait):
            return
        self._last_partial = now
        event: dict[str, Any] = {"type": "progress", "done": done, "total": total}
        plan = self._executor.plan
        if plan is not None and not self.scenario.sweep:
            totals = self._executor.folded(plan, done)
            partial = model.partial_result(self.scenario, plan, totals, done, now - self._started)
            event["view"] = model.view(partial, self._exact_values())
        self._partial_cost = time.monotonic() - now
        self.emit(event)

    def _exact_values(self) -> dict[str, dict[str, float]]:
        return self.exact.values if self.exact is not None else {}

    def _run(self) -> None:
        self._started = time.monotonic()
        if self.exact is not None:
            self.exact.start()
        try:
            self.emit(
                {
                    "type": "start",
                    "job": self.number,
                    "trials": self.scenario.trials,
                    "points": len(self.scenario.points),
                    "variants": list(self.scenario.variants),
                }
            )
            result = run_scenario(
                self.scenario,
                on_progress=self._progress,
                backend=Backend(self._executor, self.threads),
            )
            self.result = result
            note = None
            if self.exact is not None:
                # Bounded: the exact thread is cut at its own deadline, or now if stopped.
                if not self.exact.wait(self.exact.seconds + 2):
                    self.exact.cut("the run ended first")
                note = self.exact.note
            self.emit(
                {
                    "type": "result",
                    "view": model.view(result, self._exact_values()),
                    "document": model.document(result),
                    "stopped": None if result.complete else self.stop_reason,
                    "exact_note": note,
                }
            )
        except KeyboardInterrupt:  # stopped before the engine's job loop began
            self.emit(
                {"type": "error", "message": f"stopped before any trial ran: {self.stop_reason}"}
            )
        except Exception as e:  # shown on the page; the server goes on
            self.emit({"type": "error", "message": f"{type(e).__name__}: {e}"})
        finally:
            # Not waiting: every job the engine folded is done, and a kernel deep in one long
            # trial after a Stop cannot be waited for (it ends with the server).
            self._executor.shutdown(wait=False, cancel_futures=True)
            self.emit({"type": "end"})
            self.finished.set()
