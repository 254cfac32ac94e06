"""simulator.diskload: a kernel read from the disk cache loads none of Numba's implementation
modules and gives the compiled kernel's answers; a compile in the same process afterwards still
works (the contexts are refreshed then, with scipy.linalg still hidden). Each test runs fresh
processes on a fresh NUMBA_CACHE_DIR."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import numpy as np
from simulator import jit


@jit.kernel
def total(values):
    out = np.zeros(1, dtype=np.float64)
    for v in values:
        out[0] += v * v
    return out[0]
"""

_RUN = """
import json, sys
import numpy as np
from numba.core import event
import probe
from simulator import jit

compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
jit._load_numba()
event.register("numba:compile", Count())
answer = probe.total(np.arange(5, dtype=np.float64))
loaded = {m: m in sys.modules for m in ("numba.np.arraymath", "numba.np.npyimpl")}
again = probe.total(np.arange(4, dtype=sys.argv[1]))  # a compile when the types are new
print(json.dumps({"answer": answer, "again": again, "compiled": compiled, "loaded": loaded,
                  "arraymath_after": "numba.np.arraymath" in sys.modules,
                  "scipy_linalg": "scipy.linalg" in sys.modules,
                  "tuned": jit.tuned_for_this_numba()}))
"""


def _process(folder: Path, cache: Path, second: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=f"{folder}{os.pathsep}{ROOT}")
    run = subprocess.run(
        [sys.executable, "-c", _RUN, second], cwd=folder, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_warm_process_loads_the_kernel_without_numbas_implementations(tmp_path: Path) -> None:
    (tmp_path / "probe.py").write_text(_PROBE)
    cache = tmp_path / "numba-cache"
    cold = _process(tmp_path, cache, "int64")
    warm = _process(tmp_path, cache, "int32")
    assert cold["answer"] == warm["answer"] == 30.0
    assert cold["again"] == warm["again"] == 14.0
    assert "total" in cold["compiled"]  # the first process compiled the kernel...
    assert warm["compiled"].count("total") == 1  # ...the second read it, and compiled int32
    if not warm["tuned"]:
        pytest.skip("the patch applies only on the Numba release it was written for")
    # Compiled: the implementations were loaded. Read from the cache: they were not, until the
    # int32 call compiled the kernel again (and then without scipy.linalg).
    assert cold["loaded"] == {"numba.np.arraymath": True, "numba.np.npyimpl": True}
    assert warm["loaded"] == {"numba.np.arraymath": False, "numba.np.npyimpl": False}
    assert warm["arraymath_after"] and not warm["scipy_linalg"]
