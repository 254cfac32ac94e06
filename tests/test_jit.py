"""simulator.jit: a decorated function is compiled by Numba on first use, behaves as its
dispatcher inside and outside compiled code, and pickles as it."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np

from simulator.jit import Jitted, borrowed, inline, kernel, leaf


@inline
def _twice(x):
    return 2 * x


@inline
def _four_times(x):
    return _twice(_twice(x))


@leaf
def _plus_one(x):
    return x + 1


@kernel
def _four_times_plus_one(x):
    return _plus_one(_four_times(x))


@kernel
def _sum_borrowed(values):
    view = borrowed(values)
    total = 0.0
    for v in view:
        total += v
    return total


def test_a_kernel_calls_its_helpers_as_numba_would():
    assert isinstance(_four_times_plus_one, Jitted)
    assert _four_times_plus_one(5) == 21
    assert _four_times_plus_one.signatures  # the dispatcher's, through the wrapper
    assert _four_times_plus_one.py_func(5) == 21
    # A helper is a call (compiled once per signature; LLVM inlines it where it pays); a leaf is
    # pasted in at Numba's IR level (docs/speed.md, "Compiling").
    assert _four_times.targetoptions.get("inline", "never") == "never"
    assert _twice.targetoptions.get("inline", "never") == "never"
    assert _plus_one.targetoptions["inline"] == "always"


def test_borrowed_views_compile_and_read_the_array():
    assert _sum_borrowed(np.arange(5, dtype=np.float64)) == 10.0


def test_a_pickled_kernel_is_its_dispatcher():
    copy = pickle.loads(pickle.dumps(_four_times_plus_one))
    assert copy(1) == 5


def test_importing_a_procedure_loads_no_numba_until_its_kernel_runs():
    code = (
        "import sys; from simulator.procedures import get; p = get('his.field_battle'); "
        "print('numba' in sys.modules); p.kernel.signatures; print('numba' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True"]
