"""A designer's trial that fails while it runs, told at the designer's line.

A compiled trial raises where plain Python would: a division by zero (the kernel is compiled
with Numba's ``error_model="python"``), an index outside an array (``boundscheck=True``), a die
of no sides (:mod:`simulator.userfiles.dice`), or the designer's own ``raise``. Numba's exception
carries no line, so :class:`GuardedKernel` finds it: the first failing trial by halving the
failed range (the kernel again on its first half, a few calls), the first variant that fails on
it, then that one trial played by the designer's function in plain Python on the same dice
(:class:`~simulator.userfiles.dice.Dice`, the twin), whose traceback names the line. The run
stops with :class:`TrialError` (exit 2): no number is reported from a trial that had none.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from simulator.limits import InvalidInput
from simulator.userfiles.dice import Dice
from simulator.userfiles.loading import Ref, UserFileError, shown_path
from simulator.userfiles.parameters import Parameter
from simulator.yaml_loader import Problem

_SIMULATOR = Path(__file__).resolve().parent.parent


def _raised_by_trial(error: Exception) -> bool:
    """Whether ``error`` came from a trial's code (not Numba refusing the call itself)."""
    from numba.core.errors import NumbaError

    return not isinstance(error, NumbaError) and "No matching definition" not in str(error)


class TrialError(UserFileError, InvalidInput):
    """A designer's trial raised while the run played it: exit 2, located at its line."""


def _designer_frame(error: BaseException, ref: Ref) -> tuple[str, int] | None:
    """The innermost frame of ``error``'s traceback in a designer's file (not sim's code, not
    an installed library's), as (shown path, line)."""
    found = None
    libraries = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix)}
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(_SIMULATOR) or any(path.is_relative_to(lib) for lib in libraries):
            continue
        if frame.lineno is not None and path.suffix == ".py":
            found = (ref.shown if path == ref.path else shown_path(path), int(frame.lineno))
    return found


def arguments(parameters: list[Parameter], row: np.ndarray) -> dict[str, Any]:
    """A variant's parameter values as the kernel reads them from its packed ``row``."""
    out: dict[str, Any] = {}
    for k, p in enumerate(parameters):
        value = row[k]
        out[p.name] = (
            int(np.int64(value))
            if p.kind is int
            else (bool(value > 0.5) if p.kind is bool else float(value))
        )
    return out


def play_in_python(
    fn: Callable[..., Any], model: type | None, values: dict[str, Any], key: int, trial: int
) -> BaseException | None:
    """What the designer's ``fn`` raises on trial ``trial`` (the same dice as compiled), or
    None when it returns."""
    dice = Dice(key, trial)
    try:
        if model is not None:
            fn(dice, model(**values))
        else:
            fn(dice, **values)
    except Exception as e:
        return e
    return None


def raised_problem(
    error: BaseException | None,
    compiled: BaseException | None,
    ref: Ref,
    fallback_line: int,
    where: str,
) -> Problem:
    """The problem of a trial that raised: at the designer's line from ``error`` (plain Python's
    exception), or at ``fallback_line`` with Numba's exception ``compiled`` when plain Python
    ran the trial without one."""
    if error is not None:
        at = _designer_frame(error, ref)
        shown, line = at if at is not None else (ref.shown, fallback_line)
        what = f"{type(error).__name__}: {error}"
        return Problem(shown, line, 1, ref.name, f"the trial raised {what} ({where})")
    what = f"{type(compiled).__name__}: {compiled}" if compiled is not None else "an error"
    return Problem(
        ref.shown,
        fallback_line,
        1,
        ref.name,
        f"the compiled trial raised {what} ({where}); played in plain Python it did not, so "
        "its line is not known (an int64 that overflows in compiled code is one cause)",
    )


class GuardedKernel:
    """A designer's compiled kernel that turns an exception of a trial into :class:`TrialError`
    at the designer's line; otherwise the kernel itself (its attributes are the dispatcher's)."""

    def __init__(
        self,
        kernel: Any,
        fn: Callable[..., Any],
        ref: Ref,
        parameters: list[Parameter],
        model: type | None,
        line: int,
    ) -> None:
        self._kernel = kernel
        self._fn, self._ref, self._parameters, self._model = fn, ref, parameters, model
        self._line = line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)

    def __call__(self, packed: np.ndarray, key: Any, first: Any, n: Any, *rest: Any) -> np.ndarray:
        try:
            return self._kernel(packed, key, first, n, *rest)
        except Exception as e:
            if not _raised_by_trial(e):
                raise
            raise self.located(e, packed, key, int(first), int(n), rest) from None

    def _fails(self, packed: np.ndarray, key: Any, first: int, n: int, rest: Any) -> bool:
        try:
            self._kernel(packed, key, np.int64(first), np.int64(n), *rest)
        except Exception:
            return True
        return False

    def located(
        self,
        error: BaseException,
        packed: np.ndarray,
        key: Any,
        first: int,
        n: int,
        rest: tuple[Any, ...],
    ) -> TrialError:
        """The error of the first trial of ``first .. first + n - 1`` that fails."""
        lo, hi = 0, n  # the trials first .. first + hi - 1 fail; first .. first + lo - 1 do not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._fails(packed, key, first, mid, rest):
                hi = mid
            else:
                lo = mid
        trial = first + hi - 1
        variant = next(
            (
                v
                for v in range(packed.shape[0])
                if self._fails(packed[v : v + 1], key, trial, 1, rest)
            ),
            0,
        )
        values = arguments(self._parameters, packed[variant])
        shown = ", ".join(f"{k}={v}" for k, v in values.items())
        where = f"trial {trial:,}" + (f", with {shown}" if shown else "")
        raised = play_in_python(self._fn, self._model, values, int(key), trial)
        problem = raised_problem(raised, error, self._ref, self._line, where)
        return TrialError([problem])


def always_raises(
    fn: Callable[..., Any], ref: Ref, parameters: list[Parameter], model: type | None, line: int
) -> UserFileError:
    """The error of a trial whose every path raises (Numba types its result as none): what it
    raises, at its line, played once in plain Python with the parameters' defaults."""
    examples: dict[type, Any] = {int: 1, bool: True, float: 1.0}
    values = {
        p.name: p.field.default if not p.field.is_required() else examples[p.kind]
        for p in parameters
    }
    raised = play_in_python(fn, model, values, 0, 0)
    if raised is None:
        return UserFileError(
            [Problem(ref.shown, line, 1, ref.name, "the trial never returns: every path raises")]
        )
    problem = raised_problem(raised, None, ref, line, "every path of the trial raises")
    return UserFileError([problem])
