"""The Dask backend: the same numbers as a local run, a dead worker changes nothing, Ctrl-C.

One LocalCluster of two single-threaded worker processes is shared by the whole module (it takes
a few seconds to start).
"""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed", reason="the dask extra is not installed")

from simulator import dask_backend
from simulator.cli import app
from simulator.engine import simulate
from simulator.runner import run_scenario
from tests.test_engine import SCENARIO, _plan

pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def backend():
    with dask_backend.connect(workers=2) as b:
        b.client.wait_for_workers(2, timeout=120)
        yield b


def _scheduler_tasks(backend) -> int:
    return backend.client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


def _document(result) -> str:
    doc = result.document()
    doc.pop("versions")
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("independent", [False, True], ids=["shared", "independent"])
def test_a_dask_run_gives_exactly_the_json_of_the_local_run(backend, independent):
    progress: list[tuple[int, int]] = []
    dask = run_scenario(
        SCENARIO,
        trials=1_000_003,
        chunk_size=65_537,
        independent=independent,
        backend=backend,
        on_progress=lambda done, planned: progress.append((done, planned)),
    )
    local = run_scenario(SCENARIO, trials=1_000_003, independent=independent, threads=2)
    assert dask.outcome.backend == "dask" and dask.outcome.threads == 2
    assert dask.complete
    assert progress[-1] == (1_000_003, 1_000_003)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert _document(dask) == _document(local)
    np.testing.assert_array_equal(dask.outcome.stats, local.outcome.stats)


def test_sim_run_on_a_running_scheduler_prints_the_local_json(backend, tmp_path):
    def sim_run(*extra):
        args = ["run", SCENARIO, "--json", "-q", "--trials", "300007", "--out", str(tmp_path)]
        result = CliRunner().invoke(app, [*args, *extra], catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
        doc = json.loads(result.stdout)
        doc.pop("versions")
        return doc, json.loads((tmp_path / "summary.json").read_text())

    address = backend.client.scheduler.address
    on_dask, summary = sim_run("--scheduler", address, "--chunk-size", "30011")
    assert summary["backend"] == "dask"
    local, summary = sim_run("--threads", "2")
    assert summary["backend"] == "threads"
    assert on_dask == local


def test_a_worker_killed_mid_run_has_its_jobs_rerun_and_the_result_is_unchanged(backend):
    client = backend.client
    plan = _plan()
    trials, chunk = 8_000_000, 500_000
    pids = client.run(os.getpid)
    killed: list[str] = []

    def kill_a_busy_worker(done, planned):
        if killed or done == 0:
            return
        busy = [w for w, keys in client.processing().items() if keys and w in pids]
        if busy:
            killed.append(busy[0])
            os.kill(pids[busy[0]], signal.SIGKILL)

    out = simulate(plan, trials, chunk_size=chunk, backend=backend, on_progress=kill_a_busy_worker)
    assert killed, "no worker was busy after the first job: the run was too short to test"
    assert killed[0] not in client.nthreads(), "the killed worker left the cluster"
    assert out.complete and out.trials == trials
    np.testing.assert_array_equal(out.stats, simulate(plan, trials, threads=2).stats)
    client.wait_for_workers(2, timeout=120)  # its nanny restarts it for the next tests


def test_ctrl_c_cancels_outstanding_jobs_and_keeps_exactly_the_first_trials(backend):
    plan = _plan()
    chunk = 500_000

    def ctrl_c_after_the_first_block(done, planned):
        if done > 0:
            raise KeyboardInterrupt

    out = simulate(
        plan,
        200 * chunk,
        chunk_size=chunk,
        backend=backend,
        on_progress=ctrl_c_after_the_first_block,
    )
    assert not out.complete
    assert 0 < out.trials < 200 * chunk and out.trials % chunk == 0
    np.testing.assert_array_equal(out.stats, simulate(plan, out.trials, threads=2).stats)
    deadline = time.monotonic() + 30
    while _scheduler_tasks(backend) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _scheduler_tasks(backend) == 0, "outstanding jobs were cancelled"


def _compiled_on_workers(backend, name: str) -> dict[str, bool]:
    """Whether each worker process holds a compiled (or cache-loaded) kernel of ``name``."""

    def compiled(name: str = name) -> bool:
        from simulator.procedures import get

        return bool(get(name).kernel.signatures)

    return backend.client.run(compiled)


def test_workers_run_the_kernel_warm_after_prepare(backend):
    # A procedure no other test of this module runs, so its kernel starts cold on every worker.
    from simulator.engine import make_plan
    from simulator.procedures import get

    proc = get("his.interception")
    plan = make_plan(proc, {"base": proc.params_model.model_validate({})}, seed=1)
    cold = _compiled_on_workers(backend, proc.name)
    assert len(cold) == 2 and not any(cold.values()), "already warm: the test cannot tell"
    backend.prepare(plan)
    warm = _compiled_on_workers(backend, proc.name)
    assert set(warm) == set(cold) and all(warm.values()), warm
    plugins = backend.client.run_on_scheduler(
        lambda dask_scheduler: sorted(dask_scheduler.worker_plugins)
    )
    assert f"sim-warm-up-{proc.name}" in plugins  # workers that join later warm up too


def test_a_worker_with_different_kernel_code_is_refused():
    mine = dask_backend.fingerprint("his.field_battle")
    dask_backend.check_fingerprints(mine, {"tcp://a:1": dict(mine)})
    other = {**mine, "code": "0" * 16}
    with pytest.raises(dask_backend.BackendError, match=r"tcp://b:2 differs .*code"):
        dask_backend.check_fingerprints(mine, {"tcp://a:1": dict(mine), "tcp://b:2": other})


def test_a_sweep_on_dask_gives_exactly_the_json_of_the_local_run(backend, tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(
        "name: small-table\nprocedure: his.field_battle\ntrials: 20011\nseed: 7\n"
        "params:\n  attacker: {leader: 0}\n  defender: {leader: 1}\n"
        "sweep:\n  attacker.units: {from: 1, to: 3}\n  defender.units: {from: 1, to: 2}\n"
    )
    on_dask = run_scenario(path, backend=backend)
    local = run_scenario(path, threads=2)
    assert on_dask.is_sweep and len(on_dask.points) == 6
    assert on_dask.outcome.backend == "dask"
    assert _document(on_dask) == _document(local)


def test_a_procedure_of_a_designer_file_on_dask_gives_exactly_the_local_result(backend):
    # The plan travels by the procedure's name, path/to/file.py:NAME: each worker loads the file.
    scenario = "docs/examples/opposed_roll.yaml"
    dask = run_scenario(scenario, trials=500_009, chunk_size=50_021, backend=backend)
    local = run_scenario(scenario, trials=500_009, threads=1)
    assert dask.outcome.backend == "dask"
    assert _document(dask) == _document(local)
    np.testing.assert_array_equal(dask.outcome.stats, local.outcome.stats)


def test_a_designers_whole_game_on_dask_gives_exactly_the_thread_results(backend):
    # Doubles (docs/examples/doubles.py:Doubles, a class of the game interface) travels by its
    # name, path/to/file.py:NAME: each worker loads the file and its kernel. The local runs come
    # first, so the workers read the kernel they compiled from Numba's cache instead of each
    # compiling the game and its agents again (minutes); random and greedy only, the kernel
    # tests/test_usergame.py compiles.
    from simulator.engine import make_plan
    from simulator.userfiles.procedure import procedure_of

    proc = procedure_of("docs/examples/doubles.py:Doubles")
    variants = {
        "greedy_first": proc.params_model(policies=["greedy", "random"]),
        "random_first": proc.params_model(policies=["random", "greedy"]),
    }
    plan = make_plan(proc, variants, seed=29)
    trials = 240
    one = simulate(plan, trials, threads=1)
    two = simulate(plan, trials, threads=2, chunk_size=70)
    on_dask = simulate(plan, trials, chunk_size=50, backend=backend)
    np.testing.assert_array_equal(one.stats, two.stats)
    np.testing.assert_array_equal(on_dask.stats, one.stats)
    assert on_dask.complete and on_dask.trials == trials
    assert 0 < one.stats[0, 1] < trials  # the first seat wins some games, not all
