"""Dask backend: two local Dask workers against one on a long-running procedure, and the cost of
sending jobs through Dask: the share of a one-worker run's wall time its worker spent outside the
kernel (task stream: wall time minus the jobs' compute time), and one worker against one local
thread on the same jobs (a noisier figure: two processes on a shared machine).

The procedure is the council game (``council.game``) when it is registered, otherwise the heaviest
field battle (40 v 40 with leaders, every variant on shared streams). Every figure is the median of
interleaved repeats on one LocalCluster of two single-threaded worker processes; the one-worker
runs are pinned to one of its workers.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.harness import Row, plan_for
from simulator import procedures
from simulator.engine import Backend, Plan, calibrate_chunk, simulate, warm_up

COUNCIL = "council.game"
HEAVY_BATTLE = {
    "attacker": {"units": 40, "leader": 6},
    "defender": {"units": 40, "leader": 6},
}


def _workload() -> tuple[str, Plan]:
    if COUNCIL in procedures.names():
        proc = procedures.get(COUNCIL)
        params = proc.example or {}
        return COUNCIL, plan_for(COUNCIL, params)
    return "his.field_battle 40v40 (council.game not registered)", plan_for(
        "his.field_battle", HEAVY_BATTLE
    )


def _pinned(backend: Any, address: str) -> Backend:
    """The cluster's backend with every job sent to one worker."""
    from simulator.dask_backend import DaskBackend

    class OneWorker(DaskBackend):
        @property
        def slots(self) -> int:
            return 1

    one = OneWorker(backend.client)
    one.executor = backend.client.get_executor(
        pure=False, workers=[address], allow_other_workers=False
    )
    return one


def rows(quick: bool) -> list[Row]:
    from distributed import get_task_stream

    from simulator.dask_backend import JOB_SECONDS, DaskBackend, connect

    name, plan = _workload()
    warm_up(plan)
    chunk = calibrate_chunk(plan, JOB_SECONDS, DaskBackend.max_chunk)
    # Trials for about `seconds` on one thread, a whole number of chunks.
    t0 = time.perf_counter()
    simulate(plan, 2 * chunk, threads=1, chunk_size=chunk)
    per_chunk = (time.perf_counter() - t0) / 2
    seconds = 3.0 if quick else 12.0
    jobs = max(4, 2 * round(seconds / per_chunk / 2))
    trials = jobs * chunk
    repeat = 1 if quick else 3

    with connect(workers=2) as two:
        two.client.wait_for_workers(2, timeout=120)
        two.prepare(plan)
        one = _pinned(two, sorted(two.client.nthreads())[0])
        runs: dict[str, list[float]] = {
            "local": [],
            "local2": [],
            "one": [],
            "two": [],
            "outside": [],
            "busy": [],
        }

        def timed(key: str, **kw: Any) -> None:
            with get_task_stream(client=two.client) as stream:
                out = simulate(plan, trials, chunk_size=chunk, **kw)
            runs[key].append(out.elapsed)
            compute = sum(
                s["stop"] - s["start"]
                for task in stream.data
                for s in task["startstops"]
                if s["action"] == "compute"
            )
            if key == "one":
                runs["outside"].append(out.elapsed - compute)
            if key == "two":
                runs["busy"].append(compute / (2 * out.elapsed) * 100)

        timed("one", backend=one)  # warm: first jobs on the cluster
        for _ in range(repeat):
            timed("local", threads=1)
            timed("local2", threads=2)
            timed("one", backend=one)
            timed("two", backend=two)
        runs["one"], runs["outside"] = runs["one"][1:], runs["outside"][1:]

    local, local2, t_one, t_two = (
        statistics.median(runs[k]) for k in ("local", "local2", "one", "two")
    )
    outside = statistics.median(runs["outside"])
    busy = statistics.median(runs["busy"])
    speedup = t_one / t_two
    per_job_ms = outside / jobs * 1000
    overhead = outside / t_one * 100
    job_s = (t_one - outside) / jobs
    label = f"{name}: {trials:,} trials, {jobs} jobs of {job_s:.2f} s"
    return [
        Row(
            f"dask 2 workers, {label}",
            trials / t_two,
            "trials/s",
            trials / t_one,
            "dask 1 worker",
            "≥ 1.6× one worker",
            speedup >= 1.6,
        ),
        Row(
            "for scale: 2 local threads, same jobs (what two cores give here now)",
            trials / local2,
            "trials/s",
            trials / local,
            "1 local thread",
        ),
        Row(
            "dask 2 workers: time both spent in jobs (CPU share, not Dask, limits the rest)",
            busy,
            "% of 2 × wall",
        ),
        Row(
            "dask 1 worker, same jobs",
            trials / t_one,
            "trials/s",
            trials / local,
            "1 local thread",
        ),
        Row(
            f"dask per-job overhead, 1 worker ({per_job_ms:.1f} ms per job outside the kernel)",
            overhead,
            "% of run time",
            None,
            "",
            "< 5%",
            overhead < 5,
        ),
    ]
