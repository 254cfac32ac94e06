"""The ``sim`` script's entry point (``pyproject.toml``: ``sim = "simulator.script:console"``)."""

from __future__ import annotations

import os
import sys
import threading

#: Seconds into a command before the cyclic garbage collector runs (:mod:`simulator.collector`).
COLLECTOR_DELAY = 5.0


def console() -> None:
    """The ``sim`` script: :func:`simulator.cli.main`, then leave without tearing down Python.

    The cyclic garbage collector waits for the first seconds of the command: a command that
    ends within ``COLLECTOR_DELAY`` never collects (its imports cost 0.17 s of collections in a
    warm one-second run); one that runs longer (a tournament, ``sim tune``, ``sim serve``) has it
    back as it always was (:mod:`simulator.collector`).

    Once the command has written and flushed everything and run the ``atexit`` handlers, what
    Python's exit still does is free every module, Numba's and LLVM's included: 0.1-0.3 s after
    the last byte, for nothing (the process ends either way). A thread still working (none is,
    after a command) keeps the ordinary exit."""
    import atexit

    from simulator import collector

    collector.hold_for(COLLECTOR_DELAY)
    from simulator.cli import main
    from simulator.commands.common import EXIT_RUNTIME
    from simulator.report import drawing

    drawing.docstrings_unread()
    try:
        main()
        code = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    busy = [
        t
        for t in threading.enumerate()
        if t is not threading.main_thread() and not t.daemon and t.is_alive()
    ]
    if busy:
        sys.exit(code)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (BrokenPipeError, OSError):
        code = code or EXIT_RUNTIME
    atexit._run_exitfuncs()
    os._exit(code)
