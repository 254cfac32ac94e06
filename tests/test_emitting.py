"""simulator.emitting and simulator.inlining, the two changes to Numba's internals that cut a
whole game's cold compile (docs/speed.md, "Compiling less"): they must take effect on the Numba
that pyproject.toml pins, and the kernel must give its plain-Python answer, from a fresh cache
and from the disk cache (the games' twins and the gate check the whole games bit for bit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_MODULE = """
import numpy as np
from simulator.jit import inline, kernel


@inline
def helper(x):
    total = 0
    for k in range(x):
        total += k * k
    return total


@inline
def middle(x):
    return helper(x) + helper(x + 1)


@kernel
def entry(x):
    return middle(x) + 1
"""

_CHILD = """
import json, sys
import numpy as np
from simulator import compiling, jit
import tiny

with compiling.counting() as names:
    value = int(tiny.entry(np.int64(5)))
from numba.core import inline_closurecall
from simulator import inlining

def lazy(jitted):
    libs = [r.library for r in jitted.twin.overloads.values()]
    return [getattr(lib, "_sim_lazy", False) for lib in libs]

print(json.dumps({
    "value": value,
    "compiled": len(names),
    "tuned": jit.tuned_for_this_numba(),
    "one_memo": isinstance(inline_closurecall.copy, inlining._OneMemoPerFunction),
    "helpers_lazy": lazy(tiny.helper) + lazy(tiny.middle),
    "entry_lazy": [getattr(r.library, "_sim_lazy", False)
                   for r in tiny.entry.overloads.values()],
    "helper_entries": len(tiny.helper._dispatcher.overloads) if tiny.helper._dispatcher else 0,
    "helpers_unoptimised": [getattr(r.library, "_sim_unoptimised", False)
                            for f in (tiny.helper, tiny.middle)
                            for r in f.twin.overloads.values()],
    "entry_unoptimised": [getattr(r.library, "_sim_unoptimised", False)
                          for r in tiny.entry.overloads.values()],
}))
"""


def _run(folder: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": f"{folder}:{ROOT}"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, cwd=folder, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _expected() -> int:
    def helper(x: int) -> int:
        return sum(k * k for k in range(x))

    return helper(5) + helper(6) + 1


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "tiny.py").write_text(textwrap.dedent(_MODULE))
    return tmp_path


def test_helpers_stay_unemitted_ir_and_the_kernel_gives_numbas_answer(folder, tmp_path):
    cache = tmp_path / "cache"
    cold = _run(folder, cache)
    assert cold["tuned"], "pyproject.toml pins the Numba these patches were written for"
    assert cold["one_memo"]
    assert cold["value"] == _expected()
    assert cold["compiled"] >= 3  # the kernel and the twins of its two helpers
    # Only compiled code calls the helpers: their twins' libraries are never emitted, and no
    # Python entry of theirs is compiled; the kernel's library is.
    assert cold["helpers_lazy"] == [True, True]
    assert cold["helper_entries"] == 0
    assert cold["entry_lazy"] == [False]
    # The module passes ran once, for the library emitted, and not for each helper's.
    assert cold["helpers_unoptimised"] == [True, True]
    assert cold["entry_unoptimised"] == [False]
    warm = _run(folder, cache)  # a second process: everything from the disk cache
    assert warm["compiled"] == 0
    assert warm["value"] == _expected()
    assert sorted(p.suffix for p in cache.rglob("*.nbc")) == [".nbc"] * 3
