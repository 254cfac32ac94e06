"""Fixtures shared by the test modules, and how the test session compiles Numba kernels.

Compiling: the suite runs on two pytest-xdist workers that share Numba's disk cache. A cold
council or recruitment kernel takes minutes to compile, and two workers that reach the same kernel
at once both compiled it (a session of 2026-12-01 compiled the council kernel twice side by side,
180 CPU-seconds thrown away). :func:`_compile_once_across_workers` makes a worker about to compile
a disk-cached function wait for another worker already compiling it, then load that worker's
result from the cache.

Order: with ``--dist loadfile --no-loadscope-reorder`` (``make unit``) xdist hands out whole files
in collection order, so :func:`pytest_collection_modifyitems` puts first the files that compile a
whole game's kernel cold (the council's first: it is the session's longest task), one per worker,
and last the files that run every game or reuse those kernels, which by then load from the cache
instead of waiting for the compile. The order inside a file is kept.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from pathlib import Path

import pytest
from numba.core import caching
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher

from simulator import engine

#: One lock file per cached function, shared by every process on this machine.
COMPILE_LOCKS = Path(tempfile.gettempdir()) / "sim-numba-compile-locks"

_numba_compile = Dispatcher.compile
_held: set[str] = set()  # the functions this process is compiling (guarded by Numba's lock)


def _compile_once_across_workers(self, sig):
    """Dispatcher.compile, one process at a time per disk-cached function.

    Numba's own compiler lock is taken first, so a process compiles in one thread and holds its
    function locks along one path of the call graph (a caller, then its callees): two processes
    cannot wait on each other. A nested compile of a function this process already holds (a
    recursive signature) does not lock again. Functions without a disk cache (``cache=False``,
    the agents' closures) compile as before.
    """
    cache = getattr(self, "_cache", None)  # Numba's internals: without them, compile as before
    if not isinstance(cache, caching.Cache):
        return _numba_compile(self, sig)
    func = self.py_func
    where = f"{func.__module__}.{func.__qualname__}-{func.__code__.co_firstlineno}"
    name = f"{cache.cache_path}/{where}"
    key = hashlib.sha256(name.encode()).hexdigest()[:24]
    with global_compiler_lock:
        if key in _held:
            return _numba_compile(self, sig)
        COMPILE_LOCKS.mkdir(exist_ok=True)
        with open(COMPILE_LOCKS / f"{key}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            _held.add(key)
            try:
                # Loads from the disk cache when the worker that held the lock compiled it.
                return _numba_compile(self, sig)
            finally:
                _held.discard(key)


Dispatcher.compile = _compile_once_across_workers

#: Files that compile a whole game's kernel cold, longest first: they start the session.
COMPILE_FIRST = (
    "tests/test_council_game.py",
    "tests/test_recruitment_loyalty.py",
    "tests/test_new_world.py",
    "tests/test_root_hirelings_agents.py",
    "tests/test_usergame.py",  # two games of designers' files, each with every agent
)
#: Files that run every scenario or game, or reuse the kernels above: they end it, before the
#: documentation pages (whose console examples run whole games too).
RUN_LAST = (
    "tests/test_cli.py",
    "tests/test_backends.py",  # sends every procedure, the council's too, to a Dask worker
    "tests/test_council_agents.py",
    "tests/test_agents_recruitment.py",
    "tests/test_game_interfaces.py",
    "tests/test_council_rules.py",
    "tests/test_compare.py",
    "tests/test_summary.py",
)


def _rank(item: pytest.Item) -> tuple[int, int]:
    path = item.nodeid.split("::")[0]
    if path in COMPILE_FIRST:
        return 0, COMPILE_FIRST.index(path)
    if path in RUN_LAST:
        return 2, RUN_LAST.index(path)
    if path.startswith("docs/"):
        return 2, len(RUN_LAST)
    return 1, 0


def pytest_collection_modifyitems(config, items):
    """Whole-game kernels' first files first, their other users and the docs last (stable)."""
    items.sort(key=_rank)


@pytest.fixture
def ctrl_c_on_third_wait(monkeypatch):
    """Simulate Ctrl-C: the engine's third wait for finished jobs raises KeyboardInterrupt."""
    calls = {"n": 0}
    real_wait = engine.wait

    def interrupting_wait(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(engine, "wait", interrupting_wait)
    return real_wait


_test_now = {"id": "(collection)"}


def pytest_runtest_setup(item):
    _test_now["id"] = item.nodeid


def _log_compiles(path: str) -> None:
    """With ``SIM_COMPILE_LOG=path``, append each outermost Numba compile of this process to
    ``path`` as it ends (tab-separated: the test it ran in, module.function, CPU seconds), so a
    cold run says which kernels its compile time went to; ``python -m tests.times`` sums them."""
    import threading
    import time

    from numba.core import event

    from simulator.compiling import _listener

    local = threading.local()

    def on_start(ev):
        depth = getattr(local, "depth", 0)
        local.depth = depth + 1
        if depth == 0:
            local.started = time.process_time()

    def on_end(ev):
        local.depth -= 1
        if local.depth == 0:
            func = ev.data["dispatcher"].py_func
            spent = time.process_time() - local.started
            with open(path, "a", encoding="utf-8") as out:
                name = f"{func.__module__}.{func.__qualname__}"
                out.write(f"{_test_now['id']}\t{name}\t{spent:.3f}\n")

    event.register("numba:compile", _listener(on_start, on_end))


if os.environ.get("SIM_COMPILE_LOG"):
    _log_compiles(os.environ["SIM_COMPILE_LOG"])


def pytest_runtest_logreport(report):
    """With ``SIM_TEST_TIMES=path``, append each test phase's wall time to ``path`` as it ends
    (tab-separated: node id, phase, seconds, outcome), so a slow or interrupted run still says
    where its time went; ``python -m tests.times path`` sums it by file."""
    path = os.environ.get("SIM_TEST_TIMES")
    # Under xdist both the worker and the controller see each report: the controller writes.
    if path and not os.environ.get("PYTEST_XDIST_WORKER"):
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{report.nodeid}\t{report.when}\t{report.duration:.3f}\t{report.outcome}\n")
