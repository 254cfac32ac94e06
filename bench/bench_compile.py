"""Cold compile time of every procedure, its agents included: CPU-seconds of a fresh process in a
fresh Numba cache folder (``sim warm NAME`` as a new user's first run pays it), beside a trivial
kernel's compile as the floor, then the same process again on the filled cache (a warm start).

Also where the time goes: Numba's ``numba:compile`` events give each compiled function's time,
its nested compiles subtracted (the three costliest are named per procedure), and its
``numba:run_pass`` events the time of each compiler pass, summed here as typing (type inference)
and lowering (Numba's LLVM IR, LLVM's optimisation and machine code).

``python -m bench.run compile`` runs every procedure (whole games take minutes each);
``SIM_BENCH_COMPILE=his.field_battle,his.naval`` limits it, and ``--quick`` keeps to the dice
rules. ``SIM_BENCH_COMPILE_BEFORE=<an older tree>`` (a ``git worktree`` of main, say) compiles
each procedure in that tree too, in its own fresh cache folder, just before: the before and after
of a change in one run, on one machine.

The measured process loads Numba as ``sim`` does (``simulator.jit``: its settings, then Numba's
import) before the clock starts; the floor is a trivial kernel's compile in such a process.
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
from simulator import jit
jit._load_numba()  # as sim loads it (its settings before Numba's import), then the listeners
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

passes, pass_stack = {}, []
PHASES = {"nopython_type_inference": "typing", "native_lowering": "lowering"}
class PassTimer(event.Listener):
    def on_start(self, ev):
        pass_stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        start, nested = pass_stack.pop()
        spent = time.process_time() - start
        kind = PHASES.get(ev.data["name"].split(" [")[0], "other")
        passes[kind] = passes.get(kind, 0.0) + spent - nested
        if pass_stack:
            pass_stack[-1][1] += spent
event.register("numba:run_pass", PassTimer())
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
                  "functions": len(own), "passes": passes}))
"""


def measure(name: str, cache: str, tree: Path = ROOT) -> dict:
    """One fresh process compiling (or loading) ``name`` of the source ``tree`` with
    NUMBA_CACHE_DIR ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree))
    run = subprocess.run(
        [sys.executable, "-P", "-c", _CHILD, name], cwd=tree, env=env, capture_output=True,
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
    before_tree = os.environ.get("SIM_BENCH_COMPILE_BEFORE")
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as before_cache:
        floor = measure("trivial", cache)["cpu"]
        out.append(Row("cold compile CPU: a trivial kernel (the floor)", floor, "s"))
        for name in procedures(quick):
            if before_tree:
                before = measure(name, before_cache, Path(before_tree))
                out.append(
                    Row(f"cold compile CPU before ({before_tree}): {name}", before["cpu"], "s",
                        floor, "a trivial kernel")
                )  # fmt: skip
            cold = measure(name, cache)
            warm = measure(name, cache)
            where = ", ".join(f"{_short(f)} {s:.1f}" for f, s in cold["own"])
            phases = cold.get("passes", {})
            where += f"; typing {phases.get('typing', 0.0):.1f}"
            where += f", lowering {phases.get('lowering', 0.0):.1f}"
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
