"""Cold compile time of every procedure, its agents included: CPU-seconds of a fresh process in a
fresh Numba cache folder (``sim warm NAME`` as a new user's first run pays it), beside a trivial
kernel's compile as the floor, then the same process again on the filled cache (a warm start).

Also where the time goes: Numba's ``numba:compile`` events give each compiled function's time,
its nested compiles subtracted; the three costliest are named per procedure.

``python -m bench.run compile`` runs every procedure (whole games take minutes each);
``SIM_BENCH_COMPILE=his.field_battle,his.naval`` limits it, and ``--quick`` keeps to the dice
rules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.harness import Row

ROOT = Path(__file__).resolve().parents[1]
WHOLE_GAMES = ("council.game", "recruitment.loyalty", "root.hirelings", "his.new_world")

_CHILD = """
import json, resource, sys, time
from numba.core import event

stack, own = [], {}
class Timer(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        start, nested = stack.pop()
        spent = time.process_time() - start
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__}.{f.__qualname__}"
        own[name] = own.get(name, 0.0) + spent - nested
        if stack:
            stack[-1][1] += spent
event.register("numba:compile", Timer())
t0 = time.process_time()
name = sys.argv[1]
if name == "trivial":
    from simulator.jit import KERNEL
    import numba
    options = dict(KERNEL, cache=False)
    numba.njit(**options)(lambda x: x + 1)(1)
else:
    from simulator import compiling
    compiling.warm(name)
cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "own": sorted(own.items(), key=lambda kv: -kv[1])[:3],
                  "functions": len(own)}))
"""


def measure(name: str, cache: str) -> dict:
    """One fresh process compiling (or loading) ``name`` with NUMBA_CACHE_DIR ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, name], cwd=ROOT, env=env, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    return json.loads(run.stdout.strip().splitlines()[-1])


def procedures(quick: bool) -> list[str]:
    from simulator import procedures as registry

    chosen = os.environ.get("SIM_BENCH_COMPILE")
    names = chosen.split(",") if chosen else registry.names()
    return [n for n in names if not (quick and n in WHOLE_GAMES)]


def rows(quick: bool) -> list[Row]:
    out = []
    with tempfile.TemporaryDirectory() as cache:
        floor = measure("trivial", cache)["cpu"]
        out.append(Row("cold compile CPU: a trivial kernel (the floor)", floor, "s"))
        for name in procedures(quick):
            cold = measure(name, cache)
            warm = measure(name, cache)
            where = ", ".join(f"{_short(f)} {s:.1f}" for f, s in cold["own"])
            out.append(
                Row(f"cold compile CPU: {name} ({cold['functions']} functions; {where})",
                    cold["cpu"], "s", floor, "a trivial kernel")
            )  # fmt: skip
            out.append(
                Row(f"warm load CPU: {name}", warm["cpu"], "s", cold["cpu"], "its cold compile")
            )
            print(json.dumps({"procedure": name, "cold": cold, "warm": warm}), flush=True)
    return out


def _short(function: str) -> str:
    """``module.make.<locals>.impl`` → ``make.impl``: the last two names that say something."""
    parts = [p for p in function.split(".") if p != "<locals>"]
    return ".".join(parts[-2:])
