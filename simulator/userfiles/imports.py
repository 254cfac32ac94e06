"""The designer's other files that a compiled rule carries: a digest of them in its cache key.

Numba keys a cached function by the modification stamp of its own file only, and the machine
code it caches includes every compiled function it calls. A designer's trial that calls an
``@njit`` helper from another module of theirs (``from helpers import bonus``) kept running the
old helper after ``helpers.py`` was edited. So every designer's function and kernel ends its
name with :func:`imports_digest`: a digest of each file its module imports, directly or through
another of the designer's modules (not ``sim``'s own code, which has its own digest, nor an
installed library's). Editing any of them gives a new name, which Numba's cache has not seen.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

_SIMULATOR = Path(__file__).resolve().parent.parent
#: Modules followed at most (a designer's folder of helpers, not a whole library).
MAX_MODULES = 200


def _libraries() -> tuple[Path, ...]:
    return tuple({Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


def _module_of(value: Any) -> ModuleType | None:
    if isinstance(value, ModuleType):
        return value
    target = getattr(value, "py_func", value)  # a Numba dispatcher: the function it compiles
    name = getattr(target, "__module__", None)
    if not isinstance(name, str):
        return None
    return sys.modules.get(name)


def _designer_file(module: ModuleType, libraries: tuple[Path, ...]) -> Path | None:
    """The module's source file when it is the designer's (not sim's, not installed)."""
    try:
        file = inspect.getsourcefile(module) or getattr(module, "__file__", None)
    except TypeError:  # a built-in module
        return None
    if not file:
        return None
    path = Path(file).resolve()
    if path.suffix != ".py" or path.is_relative_to(_SIMULATOR):
        return None
    if any(path.is_relative_to(lib) for lib in libraries):
        return None
    return path


def imported_files(module: ModuleType) -> list[Path]:
    """The designer's files ``module`` imports, directly or through another of them, in a
    fixed order (``module``'s own file left out: Numba keys by it already)."""
    libraries = _libraries()
    own = _designer_file(module, libraries)
    seen: dict[Path, ModuleType] = {}
    todo = [module]
    while todo and len(seen) < MAX_MODULES:
        current = todo.pop()
        for value in list(vars(current).values()):
            other = _module_of(value)
            if other is None or other is current:
                continue
            path = _designer_file(other, libraries)
            if path is None or path in seen or path == own:
                continue
            seen[path] = other
            todo.append(other)
    return sorted(seen)


_digests: dict[tuple[str, int], str] = {}


def imports_digest(module_name: str) -> str:
    """A short digest of the designer's files module ``module_name`` imports ("" when none):
    it ends the names of the functions compiled from that module."""
    module = sys.modules.get(module_name)
    if module is None:
        return ""
    key = (module_name, id(module))
    if key not in _digests:
        files = imported_files(module)
        if not files:
            _digests[key] = ""
        else:
            digest = hashlib.sha256()
            for path in files:
                digest.update(str(path).encode() + b"\0")
                try:
                    digest.update(path.read_bytes())
                except OSError:
                    digest.update(b"unreadable")
            _digests[key] = "_i" + digest.hexdigest()[:8]
    return _digests[key]
