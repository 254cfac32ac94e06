"""How `sim serve` starts and stops.

- The socket is bound and listening before the URL is printed: a script that reads the URL and
  connects at once is answered (the connection waits in the listen queue until the first request
  is served).
- Ctrl-C, SIGTERM and SIGHUP stop the server within :data:`GRACE` seconds, even while a run, an
  exact computation or a request (a designer's file compiling) is busy: the runs are asked to
  stop, the server stops answering, the session's report folder is removed, and if a thread is
  still busy after the grace the process ends with ``os._exit`` (its work belongs to no one any
  more). The exit code is 128 + the signal's number, as for `sim run`.
- The report folder is ``sim-serve-PID-*`` in the temporary folder; one left by a server killed
  with SIGKILL (which nothing can catch) is removed when the next server starts.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from types import FrameType
from typing import Any

#: Seconds from a stop signal to the end of the process, whatever is still busy.
GRACE = 3.0
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PREFIX = "sim-serve-"


def listening(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: a free port) and listening.

    Raises:
        OSError: the address cannot be bound (in use, not this machine's).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def report_folder() -> Path:
    """A new report folder for this server, after removing those of servers no longer alive."""
    tmp = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for old in tmp.glob(f"{PREFIX}*-*"):
            pid = old.name.removeprefix(PREFIX).split("-", 1)[0]
            dead = pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid))
            if dead and old.is_dir() and not old.is_symlink() and old.stat().st_uid == os.getuid():
                shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


_said: list[int] = []
_saying = threading.Lock()


def said(signum: int) -> None:
    """Say once on stderr that the server stopped, and why."""
    with _saying:
        if not _said:
            _said.append(signum)
            with contextlib.suppress(Exception):
                sys.stderr.write(f"sim serve: stopped ({signal.Signals(signum).name})\n")
    _flush()


def serve(app: Any, sock: socket.socket, on_stop: Callable[[], None], reports: Path) -> int | None:
    """Serve ``app`` on ``sock`` until a stop signal; the signal's number (None if the server
    ended by itself). ``on_stop`` asks the session's runs to stop; ``reports`` is removed."""
    import uvicorn

    received: list[int] = []

    def last_resort(signum: int) -> None:
        time.sleep(GRACE)
        shutil.rmtree(reports, ignore_errors=True)
        said(signum)
        os._exit(128 + signum)

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Generator[None, None, None]:
            # uvicorn's own capture re-raises the signal at the end (and knows no SIGHUP): here
            # the command decides what a stop signal means.
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            before = {sig: signal.signal(sig, self.handle_exit) for sig in SIGNALS}
            try:
                yield
            finally:
                for sig, handler in before.items():
                    signal.signal(sig, handler)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # No wait for open connections: an event stream stays open as long as its run.
            self.should_exit = self.force_exit = True
            # A request cut short by the stop is no error of the server's: no traceback.
            logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
            if not received:
                received.append(sig)
                on_stop()
                threading.Thread(target=last_resort, args=(sig,), daemon=True).start()

    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    Server(config).run(sockets=[sock])
    return received[0] if received else None


def busy_threads() -> list[threading.Thread]:
    """Threads that would keep the process alive at exit (not daemons, not this one)."""
    return [
        t
        for t in threading.enumerate()
        if t is not threading.current_thread() and not t.daemon and t.is_alive()
    ]


def end(code: int) -> int:
    """``code``, or the process ended now with it when a busy thread would hold its exit."""
    if busy_threads():
        _flush()
        os._exit(code)
    return code
