"""Writing output files and report folders so that nothing is destroyed, mixed or half-written.

The guarantees (docs/reliability.md):
- a file is replaced by ``rename`` only when it is a regular file or does not exist; a character
  device or a pipe (``--out /dev/stdout``) is written straight through, a symlink is followed and
  its target written (the link stays a link), a directory is refused;
- a report folder is always one whole run: it is built aside (``.NAME.sim-build-*`` beside it) and
  swapped in with one ``rename`` (``renameat2(RENAME_EXCHANGE)`` over an existing folder on Linux),
  runs on one folder are serialised by an ``flock`` on ``.NAME.sim-lock`` (released by the kernel
  when a process dies), and leftovers of dead runs are removed by the next run;
- where output goes is checked before any work (:func:`check_file_target`,
  :func:`check_report_folder`): an empty path, a path at or under a file, or a place that cannot
  be written is refused with the reason (:class:`OutputError`, exit 2).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from simulator.limits import InvalidInput

#: A folder holding one of these files was written by a run (``sim run``/``compare``, ``sim
#: tune``), so it may be replaced whole.
REPORT_MARKERS = frozenset({"summary.json", "tune.json"})
_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


class OutputError(InvalidInput):
    """Output cannot go where it was asked to (exit 2, before any work)."""


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def _umask_mode(mode: int = 0o666) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def _direct(path: Path) -> bool:
    """Whether ``path`` is written straight through: a device, a pipe or a socket (not a regular
    file or folder), or a magic link to an open file (``/dev/stdout`` → ``/proc/self/fd/1``)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISREG(st.st_mode):
        return os.path.realpath(path).startswith("/proc/")
    return not stat.S_ISDIR(st.st_mode)


def _existing_ancestor(path: Path) -> Path:
    for parent in path.parents:
        if os.path.lexists(parent):
            return parent
    return Path(".")


def _check_parent(path: Path, what: str) -> None:
    """``path``'s folder exists (created if need be) and can be written."""
    parent = path.parent
    ancestor = _existing_ancestor(path)
    if ancestor.exists() and not ancestor.is_dir():
        raise OutputError(f"{what} {path} is under {ancestor}, which is a file, not a folder")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{what} {path}: cannot create folder {parent}: {_why(e)}") from e
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{what} {path}: folder {parent} is not writable")


def check_file_target(path: Path | str, what: str = "output file") -> Path:
    """Refuse, before any work, a file path that cannot be written; return it as a Path."""
    if str(path) == "":
        raise OutputError(f"{what}: the path is empty")
    path = Path(path)
    if _direct(path):
        if not os.access(path, os.W_OK):
            raise OutputError(f"{what} {path} is not writable")
        return path
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise OutputError(f"{what} {path} is a folder; name a file")
    if real.exists() and not os.access(real, os.W_OK):
        raise OutputError(f"{what} {path} is not writable")
    _check_parent(real, what)
    return path


def safe_write(path: Path | str, write: Callable[[IO[Any]], object], binary: bool = False) -> None:
    """Write a file whole: a temporary file in the same folder renamed over ``path`` (a regular
    file or nothing), or straight through to a device or pipe; a symlink's target is written."""
    path = Path(path)
    if _direct(path):
        with open(path, "wb" if binary else "w", **({} if binary else _TEXT)) as through:
            write(through)
        return
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise OutputError(f"{path} is a folder, not a file")
    real.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_temporaries(real)
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
    # Held while the file is written: a later writer removes only temporaries nobody holds.
    fcntl.flock(fd, fcntl.LOCK_EX)
    # mkstemp creates the file 0600; a report is for sharing, so give it the usual umask mode.
    os.chmod(tmp, _umask_mode())
    try:
        f: IO[Any]
        f = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", **_TEXT)
        with f:
            write(f)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_TEXT: dict[str, Any] = {"encoding": "utf-8", "newline": ""}
#: A temporary this old and unlocked was left by a killed writer (a live one locks it at once).
_DEAD_AFTER_SECONDS = 60.0


def _remove_dead_temporaries(real: Path) -> None:
    """Remove ``.NAME.*.tmp`` files a killed writer (SIGKILL, power loss) left beside ``real``:
    those no live process holds locked, and older than a minute (so a writer between creating
    its temporary and locking it is never touched)."""
    import time

    prefix = f".{real.name}."
    try:
        names = os.listdir(real.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        leftover = real.parent / name
        try:
            if time.time() - leftover.lstat().st_mtime < _DEAD_AFTER_SECONDS:
                continue
            fd = os.open(leftover, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            leftover.unlink(missing_ok=True)
        except OSError:
            pass  # held: a live writer's
        finally:
            os.close(fd)


# ---------------------------------------------------------------------------------------------
# Report folders


def check_report_folder(path: Path | str) -> Path:
    """Refuse, before any work, a report folder that cannot be written; return it as a Path.

    Creates the folder's parents and its lock file (which proves the place writable)."""
    if str(path) == "":
        raise OutputError("report folder: the path is empty; name a folder ('.' for this one)")
    path = Path(path)
    real = Path(os.path.realpath(path))
    if real.exists() and not real.is_dir():
        raise OutputError(f"report folder {path} is a file, not a folder")
    if not (real.is_dir() and _lock_path(real).parent == real):
        _check_parent(real, "report folder")
    try:
        with open(_lock_path(real), "a"):
            pass
    except OSError as e:
        raise OutputError(f"report folder {path}: cannot write beside it: {_why(e)}") from e
    return path


def _identity(path: Path) -> tuple[str, tuple[int, int] | None]:
    """Where ``path`` really is: its resolved path (links followed), and (device, inode) when it
    exists, so that a hard link to a file is seen to be that file."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return real, None
    return real, (st.st_dev, st.st_ino)


def refuse_clashes(
    inputs: dict[str, Path | str | None],
    files: dict[str, Path | str | None],
    folder: tuple[str, Path | str] | None = None,
) -> None:
    """Refuse, before any work, outputs that would overwrite an input or each other.

    ``inputs`` and ``files`` name each path by what it is (``"scenario a.yaml"``,
    ``"--markdown"``); ``folder`` is the report folder, replaced whole by the run, so no input
    and no other output may lie inside it. A device or pipe (``/dev/stdout``) never clashes.

    Raises:
        OutputError: naming both paths.
    """
    seen: list[tuple[str, str, tuple[int, int] | None]] = []
    for role, path in [*inputs.items(), *files.items()]:
        if path is None or str(path) == "" or _direct(Path(path)):
            continue
        real, ident = _identity(Path(path))
        if role in files:  # an input read twice is no clash; an output over anything is
            for other, other_real, other_ident in seen:
                if real == other_real or (ident is not None and ident == other_ident):
                    what = "is also" if other in files else "would overwrite"
                    raise OutputError(f"{role} {path} {what} {other}: give another path")
        seen.append((role, real, ident))
    if folder is None:
        return
    role, where = folder
    target = Path(os.path.realpath(where))
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        cwd = None
    if cwd is not None and (target == cwd or target in cwd.parents):
        return  # the current folder (or one it is in) is never replaced: --out . is safe
    inside = str(target).rstrip(os.sep) + os.sep
    for other, other_real, _ in seen:
        if other_real.startswith(inside):
            raise OutputError(
                f"{other} is inside the report folder {where} ({role}), which the "
                "run replaces whole: give another folder"
            )


def _lock_path(real: Path) -> Path:
    """The lock beside the folder; inside it when only the folder itself can be written (then
    it cannot be swapped either, and is written in place)."""
    if real.parent == real or (real.is_dir() and not os.access(real.parent, os.W_OK | os.X_OK)):
        return real / ".sim-lock"
    return real.parent / f".{real.name}.sim-lock"


def _replaceable(real: Path) -> bool:
    """Whether the folder may be replaced whole: absent, empty, or a report folder, and neither
    the current folder (nor one it is in) nor a mount point."""
    if not real.exists():
        return True
    try:
        cwd = Path.cwd().resolve()
    except OSError:  # the current folder was deleted
        cwd = None
    if cwd is not None and (real == cwd or real in cwd.parents):
        return False
    if os.path.ismount(real):
        return False
    names = os.listdir(real)
    return not names or not REPORT_MARKERS.isdisjoint(names)


def _clean_leftovers(real: Path) -> None:
    """Remove what dead runs left beside the folder (the lock is held: no other run is live)."""
    parent = real.parent
    prefix = f".{real.name}.sim-"
    for name in os.listdir(parent) if _lock_path(real).parent != real else ():
        if not name.startswith(prefix) or name == _lock_path(real).name:
            continue
        leftover = parent / name
        if name.startswith(prefix + "old-") and not os.path.lexists(real):
            # Killed between the two renames of the fallback swap: the old run comes back.
            os.rename(leftover, real)
            continue
        shutil.rmtree(leftover, ignore_errors=True)
    for name in os.listdir(real) if real.is_dir() else ():
        if name.startswith(".") and name.endswith(".tmp"):
            (real / name).unlink(missing_ok=True)


_RENAME_EXCHANGE = 2
_libc: Any = None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2``); False where that is not available."""
    global _libc
    if _libc is None:
        name = ctypes.util.find_library("c")
        _libc = ctypes.CDLL(name, use_errno=True) if name else False
    fn = getattr(_libc, "renameat2", None) if _libc else None
    if fn is None:
        return False
    at_fdcwd = -100
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(build: Path, real: Path) -> None:
    """Make ``build`` the folder ``real`` in one step; the old folder is removed after."""
    if not os.path.lexists(real):
        os.rename(build, real)
        return
    if _exchange(build, real):
        shutil.rmtree(build, ignore_errors=True)  # now the old run
        return
    old = real.parent / f".{real.name}.sim-old-{os.getpid()}"
    os.rename(real, old)
    os.rename(build, real)
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait until the block is done (delivered right after it)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {sig: signal.signal(sig, lambda n, _f: caught.append(n)) for sig in _SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)


@contextmanager
def report_folder(path: Path | str) -> Iterator[Path]:
    """Yields a new, empty folder to write one run's reports into; on a normal exit it replaces
    the folder ``path`` in one step (on an exception it is removed and ``path`` is untouched).
    Ctrl-C, SIGTERM and SIGHUP that arrive meanwhile take effect when the folder is in place.

    A folder that holds other things than reports (or is the current folder, or a mount point)
    is not replaced: the reports are written into it, each file whole. Runs on one folder are
    serialised by a lock that a dead process does not hold.
    """
    path = check_report_folder(path)
    real = Path(os.path.realpath(path))  # a symlinked folder: its target gets the reports
    lock_path = _lock_path(real)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a signal still ends the wait for another run
        try:
            with _signals_held():  # writing takes a second or two: it is finished first
                _clean_leftovers(real)
                if lock_path.parent == real or not _replaceable(real):
                    yield real
                    return
                build = Path(tempfile.mkdtemp(prefix=f".{real.name}.sim-build-", dir=real.parent))
                os.chmod(build, _umask_mode(0o777))
                try:
                    yield build
                    _swap_in(build, real)
                except BaseException:
                    shutil.rmtree(build, ignore_errors=True)
                    raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
