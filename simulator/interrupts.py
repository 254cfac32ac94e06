"""SIGTERM (CI cancelling a job) and SIGHUP (a closed terminal) end a run like Ctrl-C: partial
results are written, marked incomplete, and the exit code is 128 + the signal's number
(130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_received: list[int] = []
#: Set once the interruption has been reported on stderr (so it is said once).
announced = False


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def install() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt, remembering which one came
    (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _HANDLED:
        signal.signal(sig, _interrupt)


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
