"""Numba's on-disk cache for a kernel split over several modules.

Numba keys a cached function by the modification stamp of the file that defines it, and the cached
machine code includes every function it calls. When a game is split into modules (``state.py``,
``votes.py``, ``kernel.py``, ...), editing ``votes.py`` leaves ``kernel.py``'s cached kernel valid
in Numba's eyes, still running the old vote: stale results with no error. :func:`drop_stale` is
called by such a package's ``__init__`` before its modules load: it keeps a digest of all the
package's sources next to the cache and deletes the package's cached functions when it changes.

A game's kernel also carries the search agents it compiles by closure (:mod:`simulator.agents`)
and the random words it reads (:mod:`simulator.rng`), so a game package counts those sources too
(:data:`SHARED`): editing an agent drops every game's cached kernels, not only the council's.

Numba is loaded only when a kernel first runs (:mod:`simulator.jit`), so :func:`drop_stale` waits
for that moment, still before any kernel is read from the cache: importing a game package to read
its parameters (``sim list``, ``sim validate``) loads no Numba.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from simulator.jit import when_numba_loads

STAMP = "sources.sha256"

_SIMULATOR = Path(__file__).resolve().parent

#: Sources outside a game package that its cached kernels compile in.
SHARED: tuple[Path, ...] = (_SIMULATOR / "agents", _SIMULATOR / "rng.py", _SIMULATOR / "jit.py")


def _sources(paths: tuple[Path, ...]) -> list[Path]:
    """The ``.py`` files of each directory (not recursing) and each file, in a fixed order."""
    out: list[Path] = []
    for p in paths:
        out += sorted(p.glob("*.py")) if p.is_dir() else [p]
    return out


def numba_cache_dir() -> str:
    """Numba's NUMBA_CACHE_DIR as its configuration reads it ("" when unset)."""
    from numba.core import config

    return str(getattr(config, "CACHE_DIR", "") or "")


def _cache_dirs(package: Path) -> list[Path]:
    """Where Numba writes the package's cache: ``__pycache__``, or under NUMBA_CACHE_DIR."""
    cache_dir = numba_cache_dir()
    if cache_dir:
        from numba.core.caching import UserProvidedCacheLocator

        # Numba names the folder after the source directory and a hash of its path (not a mirror
        # of the path): ask its locator, so a NUMBA_CACHE_DIR run (mutants/run.py) drops as well.
        init = str(package.resolve() / "__init__.py")
        return [Path(cache_dir) / UserProvidedCacheLocator.get_suitable_cache_subpath(init)]
    return [package / "__pycache__"]


def drop_stale(package_init: str, shared: tuple[Path, ...] = SHARED) -> None:
    """Delete a package's cached Numba functions if any of its ``.py`` files, or of the
    ``shared`` sources its kernels compile in, changed: when Numba loads for the first kernel
    (now, if it already has).

    Args:
        package_init: the package's ``__init__.py`` path (pass ``__file__``).
        shared: directories (their ``.py`` files) and files outside the package that count.
    """
    when_numba_loads(lambda: drop_now(package_init, shared))


def drop_now(package_init: str, shared: tuple[Path, ...] = SHARED) -> None:
    """:func:`drop_stale` at once, whether Numba is loaded or not."""
    package = Path(package_init).parent
    digest = hashlib.sha256()
    for source in _sources((package, *shared)):
        digest.update(f"{source.parent.name}/{source.name}".encode())
        digest.update(source.read_bytes())
    value = digest.hexdigest()
    for cache in _cache_dirs(package):
        stamp = cache / STAMP
        try:
            if stamp.read_text() == value:
                continue
        except OSError:
            pass
        try:
            for old in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                old.unlink(missing_ok=True)
            cache.mkdir(parents=True, exist_ok=True)
            stamp.write_text(value)
        except OSError:
            pass  # a read-only install: Numba then compiles in memory as usual
