"""A designer's own file beside the built-in kernel (issue 29): the field battle written as a
user file (docs/examples/field_battle.py, every die drawn through the dice API) against
``his.field_battle`` in the same run, one variant and two; and the first run's compile time of a
user file, in a fresh process and a fresh cache, beside the built-in field battle's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.harness import Row, engine_rate, plan_for
from simulator.engine import make_plan

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "docs" / "examples" / "field_battle.py"
TEN_V_TEN = {"attacker": {"units": 10, "leader": 0}, "defender": {"units": 10, "leader": 0}}
TEN_V_TEN_FILE = {
    "attacker_units": 10,
    "attacker_leader": 0,
    "attacker_has_leader": False,
    "defender_units": 10,
    "defender_leader": 0,
}
MORE = {"attacker_units": 11}

_CHILD = """
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
name = sys.argv[1]
if name.endswith(".py:field_battle"):
    from simulator.userfiles.procedure import procedure_of
    from simulator.engine import make_plan, simulate
    proc = procedure_of(name)
    simulate(make_plan(proc, {"base": proc.params_model()}, 1), 16, threads=1)
else:
    from simulator import compiling
    compiling.warm(name)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def _first_run(name: str, cache: str, cwd: Path) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, name], env=env, cwd=cwd, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-300:])
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def rows(quick: bool) -> list[Row]:
    from simulator.userfiles.procedure import procedure_of

    mine = procedure_of(str(FILE) + ":field_battle")
    base = mine.params_model(**TEN_V_TEN_FILE)
    trials = 4_000_000 if quick else 20_000_000
    repeat = 3 if quick else 5
    out = []
    for variants, label in ((1, "1 variant"), (2, "2 variants")):
        file_variants = {"base": base}
        built_in = plan_for("his.field_battle", TEN_V_TEN)
        if variants == 2:
            file_variants["more"] = mine.params_model(**{**TEN_V_TEN_FILE, **MORE})
            proc = built_in.procedure
            more = {**TEN_V_TEN, "attacker": {"units": 11, "leader": 0}}
            built_in = make_plan(
                proc,
                {
                    "base": proc.params_model.model_validate(TEN_V_TEN),
                    "more": proc.params_model.model_validate(more),
                },
                1,
            )
        plan = make_plan(mine, file_variants, 1)
        rate = engine_rate(plan, trials // 4, threads=1, repeat=repeat)
        baseline = engine_rate(built_in, trials, threads=1, repeat=repeat)
        out.append(
            Row(
                f"field battle 10v10 as a user file, {label}, 1 thread",
                rate,
                "trials/s",
                baseline,
                "built-in his.field_battle",
                "within 3× of the built-in",
                baseline <= 3 * rate,
            )
        )
    # The first run's compile: fresh process, fresh Numba cache, the file copied where no cache
    # sits beside it; the built-in field battle's first run in the same conditions.
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "designer"
        folder.mkdir()
        shutil.copy(FILE, folder / FILE.name)
        ref = f"{folder / FILE.name}:field_battle"
        cold = _first_run(ref, str(Path(tmp) / "cache-file"), folder)
        warm = _first_run(ref, str(Path(tmp) / "cache-file"), folder)
        built_in_cold = _first_run("his.field_battle", str(Path(tmp) / "cache-built-in"), ROOT)
    out.append(
        Row(
            "first run of a user file (load, compile, 16 trials), fresh cache",
            cold["wall"],
            "s",
            built_in_cold["wall"],
            "built-in field battle, fresh cache",
            f"CPU {cold['cpu']:.1f} s vs {built_in_cold['cpu']:.1f} s",
        )
    )
    out.append(
        Row(
            "second run of the same user file (read from Numba's cache)",
            warm["wall"],
            "s",
            cold["wall"],
            "first run",
        )
    )
    return out
