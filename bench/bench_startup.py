"""Start-up: the light commands and a warm dice run, beside the floors measured in the same run.

Each figure is the median wall time of fresh processes: ``python -c pass`` and ``python -c
"import numpy"`` are the floors, and a cached trivial Numba kernel called in a fresh process is
the floor of any run of a kernel (the time to the answer it prints, read from a pipe, is the floor
of a run's time to its table); ``sim --help`` and ``sim validate`` should sit within 0.15 s of
the numpy floor, and a warm ``sim run scenarios/his/field_battle.yaml`` should show its table
within 0.5 s of it and finish, reports written, within 1.0 s of it. The run's first byte on
standard output is its table (progress and notices go to standard error), read from a pipe.

Two more floors say what those targets rest on: ``python -c "import numba"`` (Numba's own import),
and the cached trivial kernel with pandas and ``matplotlib.figure`` imported too, the modules the
report files need (summary.csv is pandas', the figures matplotlib's) — the floor of a run that
writes them. The run's times are shown beside the numpy floor (the targets) and again beside
these floors (what our code adds to them)."""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.harness import Row

ROOT = Path(__file__).resolve().parents[1]
SIM = [sys.executable, "-P", "-c", "from simulator.script import console; console()"]
BATTLE = "scenarios/his/field_battle.yaml"
# -P: the simulator on the path (PYTHONPATH, the install), not the one in the working directory,
# so PYTHONPATH=<an older tree> measures that tree on the same scenarios.


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(argv: list[str], repeat: int) -> tuple[float, float]:
    """Median wall time and CPU time of ``argv`` run to its end, output discarded (after one
    warm-up). CPU time is what a loaded machine inflates least."""
    return _wall_in(argv, repeat, ROOT)


def _wall_in(argv: list[str], repeat: int, cwd: Path | str) -> tuple[float, float]:
    """:func:`_wall` in the working directory ``cwd``."""
    times, cpus = [], []
    for i in range(repeat + 1):
        t0, c0 = time.perf_counter(), _children_cpu()
        subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i:
            times.append(time.perf_counter() - t0)
            cpus.append(_children_cpu() - c0)
    return statistics.median(times), statistics.median(cpus)


def _table_and_end(argv: list[str], repeat: int, cwd: Path | str = ROOT) -> tuple[float, float]:
    """Median times to the first byte on standard output and to the end (after one warm-up)."""
    firsts, ends = [], []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        with subprocess.Popen(
            argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as proc:
            assert proc.stdout is not None
            proc.stdout.read(1)
            first = time.perf_counter() - t0
            proc.stdout.read()
        if i:
            firsts.append(first)
            ends.append(time.perf_counter() - t0)
    return statistics.median(firsts), statistics.median(ends)


@contextlib.contextmanager
def _bytecode_kept() -> Iterator[None]:
    """Let the measured processes keep their compiled bytecode, as on a user's machine.

    A user's warm run reads our modules' ``.pyc`` files; a machine that sets
    ``PYTHONDONTWRITEBYTECODE`` (this one's image does) makes every process compile every module
    of ``simulator`` from source again (about 0.1 s of a run). The children write their bytecode
    to a folder of their own (``PYTHONPYCACHEPREFIX``), so the tree measured is not touched."""
    saved = {k: os.environ.get(k) for k in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    with tempfile.TemporaryDirectory(prefix="sim-bench-pycache-") as folder:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = folder
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def rows(quick: bool) -> list[Row]:
    with _bytecode_kept():
        return _rows(quick)


def _rows(quick: bool) -> list[Row]:
    repeat = 3 if quick else 7
    bare, bare_cpu = _wall([sys.executable, "-c", "pass"], repeat)
    numpy, numpy_cpu = _wall([sys.executable, "-c", "import numpy"], repeat)
    floor = "python -c 'import numpy'"
    out = [
        Row("start-up floor: python -c pass", bare, "s"),
        Row("start-up floor: python -c 'import numpy'", numpy, "s", bare, "python -c pass"),
    ]
    cpu_rows = [Row("CPU: python -c 'import numpy'", numpy_cpu, "s", bare_cpu, "python -c pass")]
    numba, numba_cpu = _wall([sys.executable, "-c", "import numba"], repeat)
    out.append(Row("start-up floor: python -c 'import numba'", numba, "s", numpy, floor))
    cpu_rows.append(Row("CPU: python -c 'import numba'", numba_cpu, "s", numpy_cpu, floor))
    with tempfile.TemporaryDirectory() as folder:
        # The floor of any run of a kernel: Numba imported, its CPU target set up, one cached
        # trivial kernel loaded from the disk cache and called (the cache filled first).
        # It prints its answer: the time to that byte is the floor of a run's time to its table
        # (the whole process's time also counts Python's exit, 0.3 s of tearing Numba down).
        (Path(folder) / "trivial_kernel.py").write_text(
            "import numba\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n"
            "print(f(1), flush=True)\n"
        )
        call = [sys.executable, "-c", "import trivial_kernel"]
        subprocess.run(call, cwd=folder, check=True, stdout=subprocess.DEVNULL)
        kernel, kernel_cpu = _wall_in(call, repeat, folder)
        kernel_answer, _ = _table_and_end(call, repeat, folder)
        files = [sys.executable, "-c", "import trivial_kernel, pandas, matplotlib.figure"]
        with_files, with_files_cpu = _wall_in(files, repeat, folder)
    out.append(Row("start-up floor: a cached trivial Numba kernel called", kernel, "s", numpy,
                   floor))  # fmt: skip
    cpu_rows.append(Row("CPU: a cached trivial Numba kernel called", kernel_cpu, "s", numpy_cpu,
                        floor))  # fmt: skip
    kernel_floor = "the trivial kernel's answer"
    out.append(Row("start-up floor: the cached trivial kernel's answer printed", kernel_answer,
                   "s", numpy, floor))  # fmt: skip
    files_floor = "kernel + pandas + matplotlib"
    out.append(Row("start-up floor: the kernel, pandas and matplotlib.figure imported",
                   with_files, "s", numpy, floor))  # fmt: skip
    cpu_rows.append(Row("CPU: the kernel, pandas and matplotlib.figure imported", with_files_cpu,
                        "s", numpy_cpu, floor))  # fmt: skip
    for name, argv, target in (
        ("sim --help", [*SIM, "--help"], 0.15),
        ("sim validate field_battle.yaml", [*SIM, "validate", BATTLE], None),
        ("sim list his.field_battle", [*SIM, "list", "his.field_battle"], None),
        ("sim schema", [*SIM, "schema"], None),
    ):
        value, cpu = _wall(argv, repeat)
        if target is None:
            out.append(Row(name, value, "s", numpy, floor))
        else:
            met = value <= numpy + target
            out.append(Row(name, value, "s", numpy, floor, f"≤ floor + {target} s", met))
        cpu_rows.append(Row(f"CPU: {name}", cpu, "s", numpy_cpu, floor))
    with tempfile.TemporaryDirectory() as folder:
        run = [*SIM, "run", BATTLE, "--out", str(Path(folder) / "out")]
        subprocess.run(run, cwd=ROOT, capture_output=True, check=True)  # the cache filled
        table, end = _table_and_end(run, repeat)
        _, run_cpu = _wall(run, repeat)
    out.append(
        Row(
            "warm sim run field_battle: table shown",
            table,
            "s",
            numpy,
            floor,
            "≤ floor + 0.5 s",
            table <= numpy + 0.5,
        )
    )
    out.append(
        Row(
            "warm sim run field_battle: finished, reports written",
            end,
            "s",
            numpy,
            floor,
            "≤ floor + 1.0 s",
            end <= numpy + 1.0,
        )
    )
    out.append(Row("warm sim run field_battle: table shown", table, "s", kernel_answer,
                   kernel_floor))  # fmt: skip
    out.append(Row("warm sim run field_battle: finished", end, "s", with_files, files_floor))
    cpu_rows.append(Row("CPU: warm sim run field_battle", run_cpu, "s", numpy_cpu, floor))
    cpu_rows.append(Row("CPU: warm sim run field_battle", run_cpu, "s", with_files_cpu,
                        files_floor))  # fmt: skip
    return out + cpu_rows
