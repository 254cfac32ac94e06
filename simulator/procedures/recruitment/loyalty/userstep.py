"""A designer's own ownership check, from their Python file (``ownership: path/to/file.py:NAME``).

The step is one function, the rule of maintenance ③ for one character::

    def NAME(loyalty, tokens, owner):
        # loyalty[f], tokens[f]: seat f's loyalty to the character and its tokens on it (int
        # arrays, one entry per seat, seat 1 at index 0); owner: the owner's index.
        return owner        # the seat that holds it after the check, or -1 to remove it

It is compiled with Numba (:func:`simulator.userfiles.compile_step`: errors located at the
designer's line) and made C-callable; the game's cached kernel calls it by address (steps.py).
A scenario naming a step runs with :func:`specialize`'s procedure: the built-in one with a
``pack`` that numbers the scenario's steps and a ``kernel`` that compiles them in the process
that runs (a Dask worker too: both pickle as the files' paths) and writes their addresses into
the packed rows before calling the built-in kernel. Variants without a step, in the same run,
play the built-in cases on the same streams.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simulator.procedures.base import Params, Procedure
from simulator.procedures.recruitment.loyalty.packing import P_STEP_ADDRESS, P_USER_STEP, pack

#: The signature a step has, as errors and docs show it.
SIGNATURE = "ownership(loyalty, tokens, owner) -> int"
PARAMETERS = ("loyalty", "tokens", "owner")
NUMBA_SIGNATURE = "int64(int64[::1], int64[::1], int64)"

_lock = threading.Lock()
#: Compiled steps of this process: (file, name, file's modification time) -> the C callback.
_compiled: dict[tuple[str, str, int], Any] = {}


def _callback(ref: str) -> Any:
    """The C-callable step of ``ref`` (``/abs/file.py:NAME``), compiled once per process."""
    path, _, name = ref.rpartition(":")
    key = (path, name, Path(path).stat().st_mtime_ns)
    with _lock:
        if key in _compiled:
            return _compiled[key]
    from simulator.userfiles import compile_step

    user = compile_step(path, name, SIGNATURE, params=PARAMETERS, numba_signature=NUMBA_SIGNATURE)
    from numba import carray, cfunc, types

    c_signature = types.int64(
        types.CPointer(types.int64), types.CPointer(types.int64), types.int64, types.int64
    )

    def adapter(loyalty, tokens, players, owner):
        return user(carray(loyalty, (players,)), carray(tokens, (players,)), owner)

    callback = cfunc(c_signature)(adapter)
    with _lock:
        _compiled.setdefault(key, callback)
        return _compiled[key]


@dataclasses.dataclass(frozen=True)
class StepPack:
    """``pack`` of a run with steps: the built-in row, and the step's number (1-based)."""

    steps: tuple[str, ...]

    def __call__(self, p: Any) -> np.ndarray:
        row = pack(p)
        if p.ownership is not None:
            row[P_USER_STEP] = 1 + self.steps.index(p.ownership)
        return row


@dataclasses.dataclass(frozen=True)
class StepKernel:
    """The kernel of a run with steps: compiles them here, writes their addresses into a copy
    of the packed rows, and calls the built-in kernel (cached) on it."""

    steps: tuple[str, ...]

    def __call__(self, packed: np.ndarray, *args: Any) -> Any:
        from simulator.procedures.recruitment.loyalty.kernel import loyalty_kernel

        addresses = np.array([0.0] + [float(_callback(r).address) for r in self.steps])
        rows = packed.copy()
        rows[:, P_STEP_ADDRESS] = addresses[rows[:, P_USER_STEP].astype(np.int64)]
        return loyalty_kernel(rows, *args)

    def compile(self) -> None:
        """Compile every step now (a designer's error surfaces before any run)."""
        for ref in self.steps:
            _callback(ref)


def specialize(procedure: Procedure, variants: Sequence[Params]) -> Procedure:
    """The procedure that runs ``variants``: ``procedure`` itself when none names a step, else
    one whose pack and kernel know the steps (compiled now: a designer's error is raised here,
    located in their file, as :class:`simulator.userfiles.UserFileError`)."""
    named = (getattr(p, "ownership", None) for p in variants)
    steps = tuple(dict.fromkeys(ref for ref in named if ref))
    if not steps:
        return procedure
    kernel = StepKernel(steps)
    kernel.compile()
    return dataclasses.replace(procedure, pack=StepPack(steps), kernel=kernel)
