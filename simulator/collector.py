"""Python's cyclic garbage collector held off while it can only waste time: the first seconds of
a ``sim`` command, and every compile of a kernel.

The collector runs whenever enough objects have been allocated, and each of its full runs walks
every live object of the process. Both a command's start (the modules of typer, pydantic, Numba,
pandas and matplotlib, which live as long as the process) and a Numba compile (millions of IR
nodes, types and LLVM wrappers, built and dropped) allocate a great deal, so it ran hundreds of
times and found little to free: 0.17 s of a warm one-second ``sim run`` (about 400 collections,
counted with ``gc.callbacks``), 1.8 of the New World's 12.2 CPU-s of cold compile and 5 of the
council game's 32 (the collector turned off, the same machine).

:func:`hold` turns the collector off, :func:`release` gives it back once no hold is left, as it
was before the first hold (a program that turned it off itself keeps it off). Reference counting
frees everything without a cycle meanwhile; what is in cycles is freed at the collector's next
run after the release. The price is memory: a whole game's compile peaks about 260 MiB higher
(the council game, 438 -> 697 MiB, measured with the collector off for all of its compiles)."""

from __future__ import annotations

import gc
import threading
from typing import Any

_lock = threading.Lock()
_holds = 0
_was_enabled = False
_installed = False


def hold() -> None:
    """The collector off until the matching :func:`release` (holds nest, from any thread)."""
    global _holds, _was_enabled
    with _lock:
        if _holds == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holds += 1


def release() -> None:
    """Undo one :func:`hold`; the last one turns the collector back on if it was on."""
    global _holds
    with _lock:
        if _holds == 0:
            return
        _holds -= 1
        if _holds == 0 and _was_enabled:
            gc.enable()


def held() -> int:
    """How many holds are in force."""
    return _holds


def hold_for(seconds: float) -> threading.Timer:
    """:func:`hold` now and :func:`release` ``seconds`` later, on a daemon timer (which never
    keeps the process alive)."""
    hold()
    timer = threading.Timer(seconds, release)
    timer.daemon = True
    timer.start()
    return timer


def install_for_compiles() -> None:
    """Hold the collector through every outermost Numba compile (once, when Numba loads)."""
    global _installed
    if _installed:
        return
    _installed = True
    from numba.core import event

    local = threading.local()

    class Compiles(event.Listener):
        def on_start(self, ev: Any) -> None:
            depth = getattr(local, "depth", 0)
            local.depth = depth + 1
            if depth == 0:
                hold()

        def on_end(self, ev: Any) -> None:
            local.depth -= 1
            if local.depth == 0:
                release()

    event.register("numba:compile", Compiles())
