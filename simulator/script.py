"""The ``sim`` script's entry point (``pyproject.toml``: ``sim = "simulator.script:console"``)."""

from __future__ import annotations

import gc
import os
import sys
import threading

#: Seconds into a command before Python's cyclic garbage collector runs (:func:`collect_later`).
COLLECTOR_DELAY = 5.0


def collect_later(delay: float = COLLECTOR_DELAY) -> threading.Timer:
    """Turn the cyclic garbage collector off now and on again ``delay`` seconds later.

    Starting a command builds millions of objects that live as long as the process (the modules
    of typer, pydantic, Numba, pandas and matplotlib): the collector walked them again and again,
    about 400 collections and 0.17 s of a warm one-second ``sim run`` (measured with
    ``gc.callbacks``), and found next to nothing to free. A command that ends within ``delay``
    never collects; one that runs longer (a tournament, ``sim tune``, ``sim serve``) has the
    collector back as it always was. Reference counting frees everything without a cycle
    either way."""
    gc.disable()
    timer = threading.Timer(delay, gc.enable)
    timer.daemon = True  # never keeps the process alive, nor counts as a busy thread below
    timer.start()
    return timer


def console() -> None:
    """The ``sim`` script: :func:`simulator.cli.main`, then leave without tearing down Python.

    The garbage collector waits for the first seconds of the command (:func:`collect_later`).
    Once the command has written and flushed everything and run the ``atexit`` handlers, what
    Python's exit still does is free every module, Numba's and LLVM's included: 0.1-0.3 s after
    the last byte, for nothing (the process ends either way). A thread still working (none is,
    after a command) keeps the ordinary exit."""
    import atexit

    collect_later()
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
