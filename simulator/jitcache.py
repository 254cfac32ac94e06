"""Numba's on-disk cache for kernels that compile in code from other files.

Numba keys a cached function by the modification stamp of the file that defines it, and the cached
machine code includes every function it calls. A dice rule calls the random words of
:mod:`simulator.rng` and the accumulation of :mod:`simulator.accumulate`; a game split into modules
(``state.py``, ``votes.py``, ``kernel.py``, ...) calls across them; a game's kernel carries the
search agents it compiles by closure (:mod:`simulator.agents`); and module constants (a
:class:`simulator.layout.Layout`'s offsets) are folded into the code. Editing any of those leaves
the caller's cache entry valid in Numba's eyes, still running the old code: stale results with no
error.

So :func:`drop_all_stale` — run by :mod:`simulator.jit` when Numba loads for the first kernel,
before any kernel is read from the cache — keeps, in every cache folder of the package, a digest
of what that folder's functions may compile in, and deletes its cached functions when it changed:

- everywhere: :data:`COMMON` (random words, accumulation, the flags and lazy loading of
  :mod:`simulator.jit`, the stop flag, layouts, and the agents);
- in a folder under ``simulator/procedures/<game>/``: also the ``.py`` files of that folder and of
  each folder above it up to ``<game>/`` (``his/new_world`` counts ``his/*.py``; ``his`` does not
  count ``his/new_world``).

:func:`drop_stale` guards a package outside this tree the same way (a game package's ``__init__``
still calls it; inside the tree it repeats what :func:`drop_all_stale` does). Importing a package
loads no Numba: ``sim list`` and ``sim validate`` stay light.

:func:`drop_damaged` removes a cache entry whose files Numba could not read (a truncated ``.nbc``,
an empty ``.nbi``: a disk that filled up, a copy cut short), with a notice, before Numba reads it:
Numba would otherwise fail on it in every later run. It reads the files as Numba lays them out
(an index: Numba's version, then the pickled source stamp and a dict of signatures to data
files; a data file: one pickle, walked opcode by opcode, never loaded), without patching Numba.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import pickletools
import sys
from collections.abc import Iterable
from pathlib import Path

STAMP = "sources.sha256"
#: The digest :func:`drop_all_stale` keeps (beside :data:`STAMP` of :func:`drop_stale`).
COMMON_STAMP = "compiled-in.sha256"

_SIMULATOR = Path(__file__).resolve().parent

#: Sources outside a game package that its cached kernels compile in.
SHARED: tuple[Path, ...] = (_SIMULATOR / "agents", _SIMULATOR / "rng.py", _SIMULATOR / "jit.py")

#: Sources any cached function of the package may compile in.
COMMON: tuple[Path, ...] = (
    _SIMULATOR / "rng.py",
    _SIMULATOR / "accumulate.py",
    _SIMULATOR / "jit.py",
    # How every library is built and cached (Numba's inliner, machine code or IR on disk).
    _SIMULATOR / "emitting.py",
    _SIMULATOR / "inlining.py",
    _SIMULATOR / "stopflag.py",
    _SIMULATOR / "layout.py",
    _SIMULATOR / "agents",
)

_pending: list[tuple[str, tuple[Path, ...]]] = []
_loaded = False  # drop_all_stale has run: Numba is loaded


def _sources(paths: Iterable[Path]) -> list[Path]:
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
    """Where Numba writes the cache of a folder's modules: ``__pycache__``, or under
    NUMBA_CACHE_DIR."""
    cache_dir = numba_cache_dir()
    if cache_dir:
        from numba.core.caching import UserProvidedCacheLocator

        # Numba names the folder after the source directory and a hash of its path (not a mirror
        # of the path): ask its locator, so a NUMBA_CACHE_DIR run (mutants/run.py) drops as well.
        init = str(package.resolve() / "__init__.py")
        return [Path(cache_dir) / UserProvidedCacheLocator.get_suitable_cache_subpath(init)]
    return [package / "__pycache__"]


def _digest(sources: Iterable[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for source in sources:
        try:
            name = source.relative_to(root).as_posix()
        except ValueError:
            name = f"{source.parent.name}/{source.name}"
        digest.update(name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _drop_if_changed(folder: Path, value: str, stamp_name: str) -> None:
    """Delete ``folder``'s cached Numba functions unless its stamp ``stamp_name`` reads
    ``value``; then write it."""
    for cache in _cache_dirs(folder):
        stamp = cache / stamp_name
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


def _whole_pickle(data: bytes) -> bool:
    """Whether ``data`` is one whole pickle, read opcode by opcode (nothing is built or
    imported: a cache entry may name a designer's module that nobody asked to run)."""
    try:
        for _ in pickletools.genops(data):
            pass
    except Exception:  # cut short, or bytes that are no pickle
        return False
    return True


def _entry_sound(index: Path, thorough: bool = True) -> bool:
    """Whether Numba can read the cache entry of ``index`` (a ``.nbi``) and its data files:
    the index unpickled (a failure to import what it names is Numba's to judge, not damage),
    each data file read as a whole pickle (``thorough``) or only seen to begin and end as one
    does (a protocol mark first, the STOP opcode last: what a file cut short lacks)."""
    try:
        with open(index, "rb") as f:
            version = pickle.load(f)
            rest = f.read()
    except FileNotFoundError:
        return True
    except Exception:
        return False
    import numba

    if version != numba.__version__:
        return True  # another Numba's entry: Numba does not read past its version
    if not _whole_pickle(rest):
        return False
    try:
        _stamp, overloads = pickle.loads(rest)
        names = [str(name) for name in overloads.values()]
    except (ImportError, AttributeError):
        return True
    except Exception:
        return False
    for name in names:
        try:
            with open(index.parent / name, "rb") as f:
                if thorough:
                    if not _whole_pickle(f.read()):
                        return False
                    continue
                first = f.read(1)
                f.seek(0, os.SEEK_END)
                if f.tell() < 2:
                    return False
                f.seek(-1, os.SEEK_END)
                if first != b"\x80" or f.read(1) != b".":
                    return False
        except FileNotFoundError:
            continue  # Numba compiles again when a data file is missing
        except OSError:
            return False
    return True


#: Cache folders (and file prefixes) checked by :func:`drop_damaged` in this process.
_checked: set[tuple[str, str]] = set()


def drop_damaged(cache: Path, prefix: str = "", thorough: bool = True) -> list[Path]:
    """Delete every cache entry in ``cache`` (index files starting with ``prefix``) that Numba
    could not read (:func:`_entry_sound`), with a notice on stderr; once per folder and prefix
    per process. Returns the index files dropped."""
    key = (str(cache), prefix)
    if key in _checked:
        return []
    _checked.add(key)
    dropped = []
    for index in sorted(cache.glob(f"{prefix}*.nbi")):
        if _entry_sound(index, thorough):
            continue
        base = index.name.removesuffix(".nbi")
        try:
            for data in [index, *cache.glob(f"{base}.*.nbc")]:
                data.unlink(missing_ok=True)
        except OSError:
            continue  # a read-only folder: Numba's own error will say so
        dropped.append(index)
        print(
            f"sim: notice: the damaged cache entry {index} (cut short or empty) was removed; "
            "it is compiled again",
            file=sys.stderr,
        )
    return dropped


def guarded(root: Path = _SIMULATOR) -> list[tuple[Path, list[Path]]]:
    """The folders of the package ``root`` that hold compiled functions, whose cache
    :func:`drop_all_stale` guards, each with the sources beyond :data:`COMMON` that its cached
    functions may compile in (see the module's docstring)."""
    procedures = root / "procedures"
    out: list[tuple[Path, list[Path]]] = [(root, []), (root / "agents", [])]
    for top, dirs, _ in os.walk(procedures):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        folder = Path(top)
        parts = folder.relative_to(procedures).parts
        out.append(
            (folder, _sources(procedures.joinpath(*parts[:i]) for i in range(1, len(parts) + 1)))
        )
    return out


def drop_all_stale(root: Path = _SIMULATOR, common: tuple[Path, ...] = COMMON) -> None:
    """Delete the cached functions of every folder of ``root`` whose compiled-in sources changed
    (and of every package :func:`drop_stale` registered): :mod:`simulator.jit` calls it when
    Numba loads, before any kernel is read from the cache."""
    global _loaded
    _loaded = True
    shared = _digest(_sources(common), root)
    for folder, sources in guarded(root):
        value = hashlib.sha256((shared + _digest(sources, root)).encode()).hexdigest()
        _drop_if_changed(folder, value, COMMON_STAMP)
        for cache in _cache_dirs(folder):
            drop_damaged(cache, thorough=False)  # sim's own: 60-odd files, read on every run
    pending, _pending[:] = list(_pending), []
    for package_init, shared_paths in pending:
        drop_now(package_init, shared_paths)


def drop_stale(package_init: str, shared: tuple[Path, ...] = SHARED) -> None:
    """Delete a package's cached Numba functions if any of its ``.py`` files, or of the
    ``shared`` sources its kernels compile in, changed: when Numba loads for the first kernel
    (now, if it already has).

    Args:
        package_init: the package's ``__init__.py`` path (pass ``__file__``).
        shared: directories (their ``.py`` files) and files outside the package that count.
    """
    if _loaded:
        drop_now(package_init, shared)
    else:
        _pending.append((package_init, shared))


def drop_now(package_init: str, shared: tuple[Path, ...] = SHARED) -> None:
    """:func:`drop_stale` at once, whether Numba is loaded or not."""
    package = Path(package_init).parent
    digest = hashlib.sha256()
    for source in _sources((package, *shared)):
        digest.update(f"{source.parent.name}/{source.name}".encode())
        digest.update(source.read_bytes())
    _drop_if_changed(package, digest.hexdigest(), STAMP)
