"""Choosing a backend: option checks, Dask missing, plans sent to other processes by name.

These need no Dask; the Dask runs themselves are in ``test_dask_backend.py``.
"""

from __future__ import annotations

import importlib
import pickle
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import simulator
from simulator import engine, procedures
from simulator.backends import BackendOptionError, BackendUnavailable, open_backend
from simulator.cli import app
from tests.test_engine import PROC, _plan

runner = CliRunner()


def _without_dask(monkeypatch):
    """Make ``import distributed`` fail as it does where the dask extra is not installed."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.delitem(sys.modules, "simulator.dask_backend", raising=False)
    monkeypatch.delattr(simulator, "dask_backend", raising=False)
    with pytest.raises(ImportError):
        importlib.import_module("simulator.dask_backend")


def test_asking_for_dask_without_it_installed_is_a_clear_error_with_exit_2(monkeypatch):
    _without_dask(monkeypatch)
    result = runner.invoke(
        app, ["run", "scenarios/his/field_battle.yaml", "--backend", "dask", "-q"]
    )
    assert result.exit_code == 2
    assert "pip install 'simulator[dask]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_scheduler_address_alone_asks_for_dask(monkeypatch):
    _without_dask(monkeypatch)
    with pytest.raises(BackendUnavailable), open_backend(scheduler="tcp://127.0.0.1:1"):
        pass


def test_the_thread_backend_is_the_engine_default_and_needs_no_dask(monkeypatch):
    _without_dask(monkeypatch)
    with open_backend() as backend:
        assert backend is None
    with open_backend("threads", threads=2) as backend:
        assert backend is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backend", "threads", "--workers", "2"], "go with --backend dask"),
        (["--backend", "threads", "--scheduler", "tcp://127.0.0.1:8786"], "go with --backend"),
        (["--backend", "dask", "--threads", "2"], "use --workers"),
        (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "own workers"),
    ],
)
def test_options_that_do_not_go_with_the_backend_exit_2(args, message, tmp_path):
    result = runner.invoke(
        app, ["run", "scenarios/his/field_battle.yaml", "-q", "--out", str(tmp_path), *args]
    )
    assert result.exit_code == 2
    assert message in result.stderr
    assert not list(tmp_path.iterdir()), "nothing is written for refused options"


def test_an_unknown_backend_name_is_refused():
    with pytest.raises(BackendOptionError, match="threads, dask"), open_backend("mpi"):
        pass
    result = runner.invoke(app, ["run", "scenarios/his/field_battle.yaml", "--backend", "mpi"])
    assert result.exit_code == 2


def test_a_plan_travels_by_procedure_name_and_runs_the_same_trials():
    plan = _plan()
    wire = pickle.dumps(plan)
    assert b"field_battle" in wire
    # The packed rows (a field battle's is 223 numbers, its threshold pieces at their largest)
    # and the metrics travel; a compiled kernel would add hundreds of KiB.
    assert len(wire) < 16384, "the compiled kernel is not sent along"
    back = pickle.loads(wire)
    assert back.procedure is PROC
    np.testing.assert_array_equal(
        engine.run_range(back, -1, 1000, 5000), engine.run_range(plan, -1, 1000, 5000)
    )


def test_a_plan_of_an_unregistered_procedure_is_pickled_whole():
    other = engine.Procedure(**{**PROC.__dict__, "name": "test.unregistered"})
    plan = engine.make_plan(other, {"base": _plan().variant_params[0]}, 3)
    back = pickle.loads(pickle.dumps(plan))
    assert back.procedure.name == "test.unregistered"
    np.testing.assert_array_equal(
        engine.run_range(back, -1, 0, 100), engine.run_range(plan, -1, 0, 100)
    )


def test_after_ctrl_c_only_the_unbroken_run_of_first_jobs_is_kept():
    """Jobs finish out of order (the second never does); Ctrl-C keeps the first block only, even
    though later blocks had finished, so a partial result is always the first trials."""
    from concurrent.futures import Future

    class SecondJobHangs(engine.Backend):
        def __init__(self):
            super().__init__(self, 1)  # this object is its own executor
            self.submitted = 0

        def submit(self, fn, *args):
            f = Future()
            if self.submitted != 1:
                f.set_result(fn(*args))
            self.submitted += 1
            return f

    def ctrl_c_on_the_second_report(done, planned, calls=[]):  # noqa: B006
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    plan = _plan()
    backend = SecondJobHangs()
    out = engine.simulate(
        plan, 80_000, chunk_size=10_000, backend=backend, on_progress=ctrl_c_on_the_second_report
    )
    assert backend.submitted >= 4, "later jobs finished before the interruption"
    assert not out.complete
    assert out.trials == 10_000
    np.testing.assert_array_equal(out.stats, engine.simulate(plan, 10_000, threads=1).stats)


@pytest.mark.parametrize("name", procedures.names())
def test_every_procedure_can_be_sent_to_a_dask_worker(name):
    proc = procedures.get(name)
    assert proc.example is not None, f"{name} has no example parameters"
    plan = engine.make_plan(proc, {"base": proc.params_model.model_validate(proc.example)}, 5)
    back = pickle.loads(pickle.dumps(plan))
    assert back.procedure is proc
    np.testing.assert_array_equal(
        engine.run_range(back, -1, 7, 300), engine.run_range(plan, -1, 7, 300)
    )
