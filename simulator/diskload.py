"""A kernel read from Numba's disk cache sets up only what running it needs.

Before reading a cached function, Numba's ``Cache.load_overload`` refreshes the CPU target's
contexts: it imports every module of implementations it has (``numba.np.npyimpl``,
``arraymath``, the typed containers, the random generators, ...) and installs their
registrations for typing and lowering, 0.25–0.35 CPU-s of a warm dice run whose simulation takes
0.02 s. Reading machine code from the cache types and lowers nothing: it needs the code library
(LLVM and the cached module) and Numba's runtime (``rtsys.initialize``, the reference counting
the code calls), which the refresh sets up first.

:func:`install` makes the load set up the runtime alone. A compile still refreshes the contexts
first, as it always does (``numba.core.compiler.compile_extra``), so a kernel that is not in the
cache, or is called with new types, is compiled exactly as before; what :mod:`simulator.jit`
does before Numba's implementations load (``numba.np.arraymath`` imported with ``scipy.linalg``
hidden) waits for that first refresh too. tests/test_diskload.py
checks that a warm process imports none of the implementation modules and gets the same
answers, and that a compile after a load still works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _load_overload(self: Any, sig: Any, target_context: Any) -> Any:
    """``numba.core.caching.Cache.load_overload`` without the refresh of the contexts."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


def install(before_first_refresh: Callable[[], None]) -> None:
    """Make loads from the disk cache set up only Numba's runtime, and run
    ``before_first_refresh`` just before the CPU target first loads its implementations (for
    the first compile), not at Numba's load (once)."""
    from numba.core import caching, cpu

    if caching.Cache.load_overload is _load_overload:
        return
    caching.Cache.load_overload = _load_overload  # type: ignore[method-assign]
    load_registries = cpu.CPUContext.load_additional_registries
    prepared: list[bool] = []

    def load_additional_registries(self: Any) -> None:
        if not prepared:
            prepared.append(True)
            before_first_refresh()
        load_registries(self)

    cpu.CPUContext.load_additional_registries = load_additional_registries  # type: ignore[method-assign]
