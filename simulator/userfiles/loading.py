"""A designer's own Python file, named by a scenario as ``path/to/file.py:NAME``.

A file runs only when a scenario (or a command line) names it: ``sim`` never imports files it was
not asked to. Everything that can go wrong in it is a :class:`UserFileError`, a
:class:`~simulator.yaml_loader.ScenarioError` whose problems point into the designer's file
(``file:line:col: NAME: what to change``), which the CLI reports with exit code 2 like any other
bad input: a file that does not exist, an import that fails (the designer's line from the
traceback), no such function, a wrong signature, a function Numba cannot compile (the designer's
line and what to write instead, not Numba's traceback).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from simulator.yaml_loader import Problem, ScenarioError

#: ``path/to/file.py:NAME``: a file ending in ``.py``, a colon, a Python name.
REF = re.compile(r"^(?P<path>.+\.py):(?P<name>[A-Za-z_][A-Za-z0-9_]*)$")


class UserFileError(ScenarioError):
    """A designer's file that cannot be used; every problem is located in a file (exit 2)."""


def is_ref(text: str) -> bool:
    """Whether ``text`` names a function in a Python file (``path/to/file.py:NAME``)."""
    return REF.match(text) is not None


@dataclass(frozen=True)
class Ref:
    """A function in a designer's file: where the file is, how to show it, the function's name."""

    path: Path
    shown: str
    name: str

    def __str__(self) -> str:
        return f"{self.shown}:{self.name}"


def shown_path(path: Path) -> str:
    """``path`` as a designer reads it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return str(path.resolve()) if relative.startswith("..") else relative


def unbuilt_kernel(ref: Ref) -> Callable[..., Any]:
    """The kernel of a procedure read from the designer's file and not compiled (``sim list``,
    the interface tests): it refuses to run."""

    def not_compiled(*args: Any) -> Any:
        raise RuntimeError(f"{ref} was read, not compiled: procedure_of(...) compiles its kernel")

    return not_compiled


def parse_ref(text: str, base_dir: Path | str | None = None, where: Problem | None = None) -> Ref:
    """``path/to/file.py:NAME`` resolved against ``base_dir`` (the scenario file's folder).

    Raises:
        UserFileError: not such a reference (placed at ``where``, if given).
    """
    match = REF.match(text)
    if match is None:
        raise _at(where, "procedure", f"{text!r} is not path/to/file.py:NAME", text)
    raw = Path(match["path"]).expanduser()
    path = raw if raw.is_absolute() else Path(base_dir or ".") / raw
    return Ref(path.resolve(), shown_path(path), match["name"])


def _at(where: Problem | None, field: str, message: str, value: Any = None) -> UserFileError:
    if where is None:
        return UserFileError([Problem("<command line>", 1, 1, field, message, value, True)])
    return UserFileError(
        [Problem(where.file, where.line, where.col, where.path, message, value, True)]
    )


#: Modules loaded this process: (resolved path, modification stamp) -> module.
_modules: dict[tuple[str, int, int], ModuleType] = {}
#: Every designer's module name (they start with MODULE_PREFIX) -> the file as shown.
_shown: dict[str, str] = {}
MODULE_PREFIX = "sim_userfile_"


def compile_notice(module: str, function: str) -> tuple[str, str] | None:
    """What a compile notice says of a designer's function (and its short form), or None for a
    function of another module (:mod:`simulator.compiling`)."""
    if not module.startswith(MODULE_PREFIX) or module not in _shown:
        return None
    name = function.partition("__sim")[0]
    if name.startswith("kernel_"):
        name = name.removeprefix("kernel_").rsplit("_", 1)[0] + " (the trials around it)"
    what = f"{_shown[module]}:{name}"
    text = (
        f"compiling {what}: once per version of the file, then read from Numba's cache beside "
        "it; seconds for a rule, up to a minute for a whole game with its agents"
    )
    return text, f"compiling {what}"


def load_module(ref: Ref, where: Problem | None = None) -> ModuleType:
    """Import the designer's file (once per process and version of the file).

    Raises:
        UserFileError: the file is missing, unreadable, or fails when imported.
    """
    try:
        stat = ref.path.stat()
    except OSError as e:
        reason = "no such file" if isinstance(e, FileNotFoundError) else e.strerror or str(e)
        raise _at(where, "procedure", f"{ref.shown}: {reason}", str(ref)) from None
    if not ref.path.is_file():
        raise _at(where, "procedure", f"{ref.shown}: not a file", str(ref))
    stamp = (str(ref.path), stat.st_mtime_ns, stat.st_size)
    if stamp in _modules:
        return _modules[stamp]
    digest = hashlib.sha256(str(ref.path).encode()).hexdigest()[:12]
    module_name = f"{MODULE_PREFIX}{re.sub(r'[^A-Za-z0-9_]', '_', ref.path.stem)}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, ref.path)
    if spec is None or spec.loader is None:
        raise _at(where, "procedure", f"{ref.shown}: cannot be imported as Python", str(ref))
    module = importlib.util.module_from_spec(spec)
    # In sys.modules while it runs (dataclasses and pydantic models look their module up there).
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(module_name, None)
        line, col = e.lineno or 1, e.offset or 1
        raise UserFileError(
            [Problem(ref.shown, line, col, "syntax", f"{e.msg}; fix this line of Python")]
        ) from None
    except (Exception, SystemExit) as e:  # a designer's file may raise anything, even exit
        sys.modules.pop(module_name, None)
        line, col = designer_line(e, ref.path)
        raise UserFileError(
            [
                Problem(
                    ref.shown,
                    line,
                    col,
                    "import",
                    f"importing the file failed: {type(e).__name__}: {e}",
                )
            ]
        ) from None
    _modules[stamp] = module
    _shown[module_name] = ref.shown
    return module


def designer_line(error: BaseException, path: Path) -> tuple[int, int]:
    """Line and column of the innermost frame of ``error`` in the designer's file ``path``."""
    found = (1, 1)
    for frame in traceback.extract_tb(error.__traceback__):
        if Path(frame.filename).resolve() == path and frame.lineno:
            col = (getattr(frame, "colno", None) or 0) + 1
            found = (frame.lineno, col)
    return found


def load_function(ref: Ref, where: Problem | None = None) -> Callable[..., Any]:
    """The plain Python function ``ref.name`` of the designer's file.

    Raises:
        UserFileError: the file cannot be loaded, or it defines no function of that name.
    """
    module = load_module(ref, where)
    found = getattr(module, ref.name, None)
    if found is None:
        import difflib

        names = [n for n, v in vars(module).items() if inspect.isfunction(v)]
        close = difflib.get_close_matches(ref.name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        listed = f" (functions: {', '.join(names)})" if names else " (it defines no function)"
        raise UserFileError(
            [Problem(ref.shown, 1, 1, ref.name, f"no function {ref.name!r} here{hint}{listed}")]
        )
    if not inspect.isfunction(found):
        line = _line_of_name(ref.path, ref.name)
        what = type(found).__name__
        raise UserFileError(
            [
                Problem(
                    ref.shown,
                    line,
                    1,
                    ref.name,
                    f"is a {what}, not a function; write `def {ref.name}(...):`",
                )
            ]
        )
    return found


def _line_of_name(path: Path, name: str) -> int:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.ClassDef):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node.lineno
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return node.lineno
    return 1


def function_line(fn: Callable[..., Any]) -> int:
    """The line of ``def`` of a designer's function."""
    return int(fn.__code__.co_firstlineno)
