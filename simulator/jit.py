"""Numba compiler flags, set in one place.

Every kernel in the package is decorated with one of these, never with ``numba.njit`` directly, so
that caching and GIL release are uniform. Kernels are serial and release the GIL: the engine runs
chunks of trials on a thread pool. We previously considered ``prange`` over chunks inside one
parallel function, but a Python-level job list gives progress, clean Ctrl-C between chunks and the
same job model for local threads and a Dask cluster, while staying bit-identical for any thread
count (each chunk writes its own statistics, reduced in chunk order).
"""

from __future__ import annotations

from numba import njit

#: Flags for kernels: compiled once, cached on disk, GIL released so threads run them in parallel.
kernel = njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: Flags for small helpers inlined into kernels (random words, dice, accumulation).
inline = njit(cache=True, nogil=True, inline="always", error_model="numpy")

#: Flags for functions built by closure over other compiled functions (the agents of a game,
#: :mod:`simulator.agents`). Not cached on disk: Numba keys a closure's cache entry by its pickled
#: free variables, and a dispatcher pickles differently in every process, so ``cache=True`` never
#: hits and writes one more cache file per process. The kernels that call them are cached, and a
#: cached kernel carries the code of every function it calls.
closure = njit(cache=False, nogil=True, error_model="numpy")
