"""SIGTERM (CI cancelling a job) and SIGHUP (a closed terminal) end a run like Ctrl-C: partial
results are written, marked incomplete, and the exit code is 128 + the signal's number
(130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP)."""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []
#: Set once the interruption has been reported on stderr (so it is said once).
announced = False


#: The stop flag compiled search code reads (:mod:`simulator.stopflag`): set the moment one of
#: these signals arrives, even while the main thread is inside a kernel. A ctypes integer, so
#: that setting it needs neither NumPy nor Numba at the CLI's start.
STOP = ctypes.c_int64(0)
_watching: list[int] = []
#: How many :func:`deferred` blocks the main thread is in.
_deferring = [0]


class Stopped(KeyboardInterrupt):
    """A job ran while a stop was requested: its statistics may hold truncated searches."""


def stop_requested() -> bool:
    return STOP.value != 0


def request_stop() -> None:
    """Ask running searches to stop (they play the best move found so far)."""
    STOP.value = 1


def clear_stop() -> None:
    """Forget a stop request (a new run starts)."""
    STOP.value = 0


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    request_stop()
    if not _deferring[0]:
        raise KeyboardInterrupt


@contextmanager
def deferred() -> Iterator[Callable[[], bool]]:
    """While the block runs, SIGINT, SIGTERM and SIGHUP set the stop flag and are recorded but
    raise nothing; the block asks the function it is given (``arrived()``) at its safe points
    and raises KeyboardInterrupt there itself.

    For the engine's job loop: an exception raised by a signal handler lands at whatever bytecode
    the main thread is at, and inside ``concurrent.futures`` (between taking a future's lock and
    the ``with`` that releases it) it leaves the lock held, so the pool's threads wait for it
    forever and the run never ends (seen under load: a SIGHUP'd run still alive 60 s later)."""
    seen = len(_received)
    _deferring[0] += 1
    try:
        yield lambda: len(_received) > seen
    finally:
        _deferring[0] -= 1


def install() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt, remembering which one came, and
    set the stop flag the moment one arrives (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _HANDLED:
        signal.signal(sig, _interrupt)
    _watch()


def _watch() -> None:
    """Python runs a signal handler only between bytecodes of the main thread, never while that
    thread is inside a compiled kernel (a first deal of a heavy tournament, one long mcts
    decision). CPython's C-level handler writes the signal's number to the wakeup descriptor at
    once: a watcher thread (free to run, kernels release the GIL) sets the stop flag."""
    if _watching:
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main interpreter's main thread
        os.close(read_end)
        os.close(write_end)
        return
    _watching.append(write_end)
    stops = {int(sig) for sig in _HANDLED}

    def wait_for_signals() -> None:
        while True:
            try:
                data = os.read(read_end, 64)
            except OSError:
                return
            if not data:
                return
            if stops.intersection(data):
                request_stop()

    threading.Thread(target=wait_for_signals, name="sim-signal-watch", daemon=True).start()


def ignore() -> None:
    """Ignore these signals from now on (the process is about to exit with its code decided)."""
    if threading.current_thread() is threading.main_thread():
        for sig in _HANDLED:
            signal.signal(sig, signal.SIG_IGN)


def last() -> signal.Signals:
    """The signal that interrupted the run (SIGINT when none was recorded: a Ctrl-C raised as
    KeyboardInterrupt by other means)."""
    return signal.Signals(_received[-1]) if _received else signal.SIGINT


def exit_code() -> int:
    """128 + the number of the signal that interrupted the run."""
    return 128 + int(last())


@contextmanager
def held() -> Iterator[list[int]]:
    """While the block runs, SIGINT, SIGTERM and SIGHUP are recorded, not acted on: a run whose
    trials have all finished is reported whole, whatever arrives meanwhile. Yields the signals
    received (the caller then ends with :func:`exit_code`). Main thread only; elsewhere the
    list stays empty and nothing changes."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return

    def record(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)
        _received.append(signum)

    old = {sig: signal.signal(sig, record) for sig in _HANDLED}
    try:
        yield caught
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
