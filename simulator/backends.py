"""Where a run's jobs execute: local threads (the default) or a Dask cluster (optional extra).

This module imports nothing heavy, so the CLI can name the backends without Dask installed;
:func:`open_backend` imports :mod:`simulator.dask_backend` only when Dask is asked for.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager

from simulator.engine import Backend

BACKENDS = ("threads", "dask")
#: ``[PROTOCOL://]HOST:PORT``, HOST a name, an IPv4 address or a bracketed IPv6 address.
_ADDRESS = re.compile(
    r"(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
    r":([0-9]{1,5})"
)


class BackendUnavailable(RuntimeError):
    """The backend asked for cannot be used here (e.g. Dask is not installed)."""


class BackendOptionError(ValueError):
    """Options that do not go with the chosen backend (e.g. ``--workers`` with threads)."""


@contextmanager
def open_backend(
    name: str | None = None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    threads: int | None = None,
    connect_timeout: float = 30.0,
) -> Iterator[Backend | None]:
    """The backend called ``name`` for the duration of a run (``None`` is the engine's default
    thread pool). ``scheduler`` alone implies Dask; a Dask cluster is closed on exit only if it
    was started here. Connecting to a scheduler, and waiting for its first worker, each take at
    most ``connect_timeout`` seconds."""
    if name is None:
        name = "dask" if scheduler is not None or workers is not None else "threads"
    if name not in BACKENDS:
        raise BackendOptionError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "threads":
        if scheduler is not None or workers is not None:
            raise BackendOptionError("--workers and --scheduler go with --backend dask")
        yield None
        return
    if threads is not None:
        raise BackendOptionError(
            "--threads sets local threads; with --backend dask use --workers (one thread each)"
        )
    if scheduler is not None and workers is not None:
        raise BackendOptionError(
            "--workers starts a local cluster; with --scheduler the cluster's own workers are used"
        )
    if scheduler is not None:
        match = _ADDRESS.fullmatch(scheduler)
        if match is None or not 1 <= int(match.group(2)) <= 65535:
            raise BackendOptionError(
                f"--scheduler {scheduler!r} is not an address like tcp://HOST:PORT "
                "(PORT 1 to 65535)"
            )
    if not 0 < connect_timeout <= 3600:
        raise BackendOptionError(f"connect timeout {connect_timeout} s is not in (0, 3600]")
    try:
        dask_backend = importlib.import_module("simulator.dask_backend")
    except ImportError as e:
        raise BackendUnavailable(
            "the dask backend needs Dask, an optional extra: pip install 'simulator[dask]' "
            f"(import failed: {e})"
        ) from e
    with dask_backend.connect(
        scheduler=scheduler, workers=workers, timeout=connect_timeout
    ) as backend:
        yield backend
