"""A rule step of a built-in game replaced from a designer's file, called from the cached kernel.

A game whose rule step is one function declares a :class:`StepSpec`: the parameter field that
names the designer's function (``rolled_hits: file.py:NAME``), its documented signature, Numba's
signature and the two packed-row slots of the step (its number in the run, and the address of
its compiled C callback). The designer's function is compiled in the process that runs
(:func:`callback`: once per process and version of the file) into a C-callable function; the
kernel, compiled once and cached on disk, reads the address from the packed row and calls it
indirectly. So a user step costs the compile of its own few lines, not of the game.

:func:`specialize` gives the procedure that runs a scenario's variants: the built-in one when
none names a step, else one whose ``pack`` numbers the steps (:class:`StepPack`) and whose
``kernel`` (:class:`StepKernel`) compiles them where it runs (a Dask worker too: both pickle as
the files' paths and the module names) and writes their addresses into a copy of the packed rows
before calling the built-in kernel. Variants without a step play the built-in rule on the same
streams.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simulator.procedures.base import Params, Procedure


@dataclasses.dataclass(frozen=True)
class StepSpec:
    """One replaceable rule step of a game.

    Attributes:
        field: the parameter naming the designer's function (a resolved ``/abs/file.py:NAME``).
        signature: the signature as the docs show it (``rolled_hits(roll, cap, attacking) ->
            int``), said in every error.
        params: the parameter names the function takes, in order.
        numba_signature: Numba's signature of the designer's function (all int64 scalars: the
            C callback then takes exactly these arguments).
        user_slot: the packed row's slot of the step's number (0: the built-in rule).
        address_slot: the packed row's slot of the callback's address (written by the kernel).
        pack: ``module:name`` of the game's ``pack``.
        kernel: ``module:name`` of the game's cached kernel.
    """

    field: str
    signature: str
    params: tuple[str, ...]
    numba_signature: str
    user_slot: int
    address_slot: int
    pack: str
    kernel: str


_lock = threading.Lock()
#: Compiled steps of this process: (file, name, modification time, signature) -> C callback.
_compiled: dict[tuple[str, str, int, str], Any] = {}


def _named(ref: str) -> Any:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def callback(spec: StepSpec, ref: str) -> Any:
    """The C-callable step of ``ref`` (``/abs/file.py:NAME``), compiled once per process.

    Raises:
        UserFileError: located in the designer's file (a wrong signature, a line Numba cannot
            compile).
    """
    path, _, name = ref.rpartition(":")
    key = (path, name, Path(path).stat().st_mtime_ns, spec.numba_signature)
    with _lock:
        if key in _compiled:
            return _compiled[key]
    from numba import cfunc

    from simulator.userfiles.jitting import compile_step

    user = compile_step(
        path, name, spec.signature, params=spec.params, numba_signature=spec.numba_signature
    )
    # The C entry point: a plain function calling the designer's (cfunc compiles Python source).
    arguments = ", ".join(spec.params)
    scope: dict[str, Any] = {"user": user}
    exec(f"def step({arguments}):\n    return user({arguments})\n", scope)
    made = cfunc(spec.numba_signature, nogil=True)(scope["step"])
    with _lock:
        _compiled.setdefault(key, made)
        return _compiled[key]


@dataclasses.dataclass(frozen=True)
class StepPack:
    """``pack`` of a run with steps: the built-in row, and the step's number (1-based)."""

    spec: StepSpec
    steps: tuple[str, ...]

    def __call__(self, p: Any) -> np.ndarray:
        row: np.ndarray = _named(self.spec.pack)(p)
        ref = getattr(p, self.spec.field)
        if ref is not None:
            row[self.spec.user_slot] = 1 + self.steps.index(ref)
        return row


@dataclasses.dataclass(frozen=True)
class StepKernel:
    """The kernel of a run with steps: compiles them here, writes their addresses into a copy
    of the packed rows, and calls the built-in kernel (cached) on it."""

    spec: StepSpec
    steps: tuple[str, ...]

    def __call__(self, packed: np.ndarray, *args: Any) -> Any:
        addresses = np.array([0.0] + [float(callback(self.spec, r).address) for r in self.steps])
        rows = packed.copy()
        numbers = rows[:, self.spec.user_slot].astype(np.int64)
        rows[:, self.spec.address_slot] = addresses[numbers]
        return _named(self.spec.kernel)(rows, *args)

    def compile(self) -> None:
        """Compile every step now (a designer's error surfaces before any run)."""
        for ref in self.steps:
            callback(self.spec, ref)


def specialize(
    spec: StepSpec,
    procedure: Procedure,
    variants: Sequence[Params],
    exact: Callable[[Any], Any] | None = None,
) -> Procedure:
    """The procedure that runs ``variants``: ``procedure`` itself when none names a step, else
    one whose pack and kernel know the steps (compiled now: a designer's error is raised here,
    located in their file, as :class:`simulator.userfiles.UserFileError`), and whose exact
    values are ``exact``'s (one that plays the designer's step; ``None``: none)."""
    named = (getattr(p, spec.field, None) for p in variants)
    steps = tuple(dict.fromkeys(ref for ref in named if ref))
    if not steps:
        return procedure
    kernel = StepKernel(spec, steps)
    kernel.compile()
    return dataclasses.replace(
        procedure, pack=StepPack(spec, steps), kernel=kernel, exact=exact or procedure.exact
    )


def resolve_ref(v: str | None, base_dir: str | Path | None) -> str | None:
    """A step field's value checked and resolved: ``file.py:NAME`` relative to the scenario's
    folder becomes ``/abs/file.py:NAME`` (so a run, a comparison of files from several folders
    and a re-validated copy of the parameters all name the same file).

    Raises:
        ValueError: not ``path/to/file.py:NAME``, or no such file (pydantic places it).
    """
    if v is None:
        return v
    from simulator.userfiles.loading import is_ref

    if not is_ref(v):
        raise ValueError(f"{v!r} is not path/to/file.py:NAME (a function in your Python file)")
    path, _, name = v.rpartition(":")
    where = Path(path).expanduser()
    resolved = where if where.is_absolute() else Path(base_dir or ".") / where
    if not resolved.is_file():
        said = "" if where.is_absolute() else " (relative to the scenario file's folder)"
        raise ValueError(f"file {path} not found{said}")
    return f"{resolved.resolve()}:{name}"
