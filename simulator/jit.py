"""Numba compiler flags, set in one place.

Every kernel in the package is decorated with one of these, never with ``numba.njit`` directly, so
that caching and GIL release are uniform. Kernels are serial and release the GIL: the engine runs
chunks of trials on a thread pool. We previously considered ``prange`` over chunks inside one
parallel function, but a Python-level job list gives progress, clean Ctrl-C between chunks and the
same job model for local threads and a Dask cluster, while staying bit-identical for any thread
count (each chunk writes its own statistics, reduced in chunk order).

Also here: :func:`borrowed`, views of a compiled entry point's arrays that Numba counts no
references on (the recruitment game's hot path).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

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


# Borrowed views. Inside a compiled function Numba counts references on every array, an atomic
# increment and decrement for each inlined helper it enters and each loop that reads it: in the
# recruitment game that was half of a greedy game's time (perf: ``NRT_incref``/``NRT_decref``).
# A compiled entry point can instead work on views of its argument arrays that carry no count.


def borrowed(array: np.ndarray) -> np.ndarray:
    """``borrowed(a)``: in compiled code, a view of the array ``a`` (same data, shape and
    strides) without a memory owner, so Numba counts no references on it (each count is an
    atomic operation); called from Python (or with the JIT off), ``a`` itself.

    Only for the duration of a call that received ``a`` as an argument, or while ``a`` itself is
    still used afterwards: Numba frees an array after the last statement that names it, and a
    borrowed view does not keep it alive. Never return a borrowed view or keep it in a
    container."""
    return array


@intrinsic
def _view_without_owner(typingctx, array):
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        view = context.make_array(sig.return_type)(context, builder)
        context.populate_array(
            view,
            data=src.data,
            shape=src.shape,
            strides=src.strides,
            itemsize=src.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    return array(array), codegen


# Not ``inline="always"``: inlined at Numba's IR level, the view took the counts back (greedy
# 3.7e4 -> 1.8e4 games per CPU-second); as a call, LLVM inlines it anyway.
@overload(borrowed)
def _borrowed(array):
    if isinstance(array, types.Array):
        return lambda array: _view_without_owner(array)
    return None
