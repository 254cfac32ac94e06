"""Compiling out loud: a kernel compiled (not loaded from Numba's disk cache) is announced on
stderr with what it is and what it costs, and `sim warm` fills the cache so that a later process
compiles nothing. Each test uses a fresh NUMBA_CACHE_DIR, as a fresh clone has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulator import compiling

ROOT = Path(__file__).resolve().parents[1]
SIM = [sys.executable, "-c", "import sys; from simulator.cli import main; sys.exit(main())"]
NOTICE = "compiling his.field_battle (field_battle_kernel): once per machine"


def _sim(args: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return subprocess.run([*SIM, *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_the_notice_appears_when_the_kernel_is_compiled_and_not_when_it_is_loaded(tmp_path):
    """Also under --quiet --json: the notice is on stderr, the JSON document alone on stdout."""
    cache = tmp_path / "numba-cache"
    args = ["run", "scenarios/his/field_battle.yaml", "--trials", "2000", "--json", "--quiet"]
    args += ["--out", str(tmp_path / "out")]
    first = _sim(args, cache)
    assert first.returncode == 0, first.stderr
    assert NOTICE in first.stderr
    assert "compiled in" in first.stderr
    assert json.loads(first.stdout)["procedure"] == "his.field_battle"  # stdout stays clean
    second = _sim(args, cache)
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)


_COUNT = """
from simulator import compiling
with compiling.counting() as compiled:
    compiling.warm("his.field_battle")
print(len(compiled))
"""


def test_after_sim_warm_a_second_process_compiles_nothing(tmp_path):
    cache = tmp_path / "numba-cache"
    warm = _sim(["warm", "his.field_battle"], cache)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.startswith("his.field_battle: compiled ") and " functions in " in warm.stdout
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    count = subprocess.run(
        [sys.executable, "-c", _COUNT], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert count.stdout.split() == ["0"], count.stderr
    again = _sim(["warm", "his.field_battle"], cache)
    assert again.stdout.strip() == "his.field_battle: already in the cache"


def test_the_count_sees_a_compile(tmp_path):
    """The check above can fail: in a fresh cache the same count is not zero."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    count = subprocess.run(
        [sys.executable, "-c", _COUNT], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert int(count.stdout.split()[0]) > 0, count.stderr


def test_warm_refuses_an_unknown_procedure(tmp_path):
    run = _sim(["warm", "his.field_batle"], tmp_path / "numba-cache")
    assert run.returncode == 2
    assert "did you mean 'his.field_battle'" in run.stderr


@pytest.mark.parametrize(
    ("module", "procedure"),
    [
        ("simulator.procedures.his.field_battle", "his.field_battle"),
        ("simulator.procedures.root.battle.kernel", "root.battle"),
        ("simulator.procedures.root.hirelings.game", "root.hirelings"),
        ("simulator.procedures.council.game.kernel", "council.game"),
        ("simulator.procedures.his.new_world.search", "his.new_world"),
        ("simulator.agents.mcts", None),
    ],
)
def test_a_compiled_function_is_named_by_its_procedure(module, procedure):
    assert compiling.procedure_of(module) == procedure


def test_the_notice_gives_the_measured_time_when_there_is_one(monkeypatch):
    monkeypatch.setattr(compiling, "COMPILE_SECONDS", {"council.game": 151.0})
    text = compiling.describe("simulator.procedures.council.game.kernel", "council_game_kernel")
    assert "compiling council.game (council_game_kernel): once per machine" in text
    assert "measured 2 min 31 s of CPU" in text


def test_the_compiles_of_one_run_are_one_notice_and_one_line():
    """A run's compiles (a designer's helpers, the kernel, the accumulator) are announced once
    and summed in one line when its kernels are ready, not two lines each (issue 48: a designer's
    game printed 22)."""
    import io

    import numba
    from rich.console import Console

    from simulator import jit

    @numba.njit
    def first(x):
        return x + 1

    @numba.njit
    def second(x):
        return x * 2

    jit._load_numba()  # as a kernel of the package does before its first call
    err = io.StringIO()
    with compiling.notices(Console(file=err, width=300), spinner=False):
        first(1)
        second(2)
        jit.settled()
        said = err.getvalue()
        first(1.5)  # a compile after the batch closed opens a new one
    lines = said.splitlines()
    assert len(lines) == 2, said
    assert lines[0].startswith("compiling tests.test_compiling.")
    assert lines[1].startswith("compiled in ") and lines[1].endswith("; cached")
    assert "2 functions (" in lines[1] and "first" in lines[1] and "second" in lines[1]
    assert err.getvalue().count("compiling ") == 2  # ...and its own notice at the block's end


def test_a_batch_closes_when_no_compile_follows_for_a_while(monkeypatch):
    """A first trial that runs long (or never ends) must not sit under a "compiling" notice: the
    batch says it is done once no compile has run for QUIET seconds."""
    import io
    import time

    import numba
    from rich.console import Console

    from simulator import jit

    @numba.njit
    def alone(x):
        return x - 1

    monkeypatch.setattr(compiling, "QUIET", 0.2)
    jit._load_numba()
    err = io.StringIO()
    with compiling.notices(Console(file=err, width=300), spinner=False):
        alone(1)
        deadline = time.monotonic() + 30
        while "compiled in" not in err.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        said = err.getvalue()
    assert said.count("compiling ") == 1 and said.count("compiled in ") == 1, said
