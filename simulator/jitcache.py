"""Numba's on-disk cache for a kernel split over several modules.

Numba keys a cached function by the modification stamp of the file that defines it, and the cached
machine code includes every function it calls. When a game is split into modules (``state.py``,
``votes.py``, ``kernel.py``, ...), editing ``votes.py`` leaves ``kernel.py``'s cached kernel valid
in Numba's eyes, still running the old vote: stale results with no error. :func:`drop_stale` is
called by such a package's ``__init__`` before its modules load: it keeps a digest of all the
package's sources next to the cache and deletes the package's cached functions when it changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba.core import config

STAMP = "sources.sha256"


def _cache_dirs(package: Path) -> list[Path]:
    """Where Numba writes the package's cache: ``__pycache__``, or under NUMBA_CACHE_DIR."""
    cache_dir = getattr(config, "CACHE_DIR", "")
    if cache_dir:
        # Numba mirrors the source directory's absolute path under CACHE_DIR.
        return [Path(cache_dir) / package.resolve().relative_to(package.resolve().anchor)]
    return [package / "__pycache__"]


def drop_stale(package_init: str) -> None:
    """Delete a package's cached Numba functions if any of its ``.py`` files changed.

    Args:
        package_init: the package's ``__init__.py`` path (pass ``__file__``).
    """
    package = Path(package_init).parent
    digest = hashlib.sha256()
    for source in sorted(package.glob("*.py")):
        digest.update(source.name.encode())
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
