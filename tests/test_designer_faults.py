"""Hostile input, round three (issue 47, items 9-17): a designer's rule never gives a silent wrong
number, and every run stops when asked.

A sum of squares that would overflow is refused (exit 2, naming the metric and the bound); a
division by zero, a die of no sides, an index outside an array and a trial that raises stop the
run at the designer's line (exit 2); an edited helper module compiles the rule again; more metrics
than the limit are refused before compiling; a damaged cache entry is dropped and compiled again;
a long trial ends on SIGTERM within seconds; an interrupted game with no finished deal is
reported. Hypothesis fuzzes a designer's arithmetic at the edges: an error, or the exact value.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.accumulate import OVERFLOW, merge, overflowed
from simulator.engine import OverflowLimit, make_plan, simulate
from simulator.jitcache import drop_damaged
from simulator.report.summary import SeatRow
from simulator.report.verdict import seat_balance
from simulator.userfiles.dice import Dice, DiceError
from simulator.userfiles.failures import TrialError
from simulator.userfiles.procedure import procedure_of
from simulator.userfiles.rewrite import MAX_METRICS
from tests.test_hostile_input import sim  # `sim ARGS` in this process, errors as exit codes

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def scenario(folder: Path, code: str, trials: int = 1000, extra: str = "") -> str:
    """A scenario of ``rule.py:trial`` in ``folder``, the file holding ``code``."""
    (folder / "rule.py").write_text(textwrap.dedent(code).lstrip("\n"))
    path = folder / "s.yaml"
    path.write_text(f"name: s\nprocedure: rule.py:trial\ntrials: {trials}\nseed: 1\n{extra}")
    return str(path)


# 9. Sums of squares never wrap --------------------------------------------------------------

BIG = """
def trial(dice, base: int = 10000000, spread: int = 6):
    return {"gold": base + dice.d(spread)}
"""
HUGE = """
def trial(dice):
    return {"gold": 2**62 + dice.d(6)}
"""


@pytest.mark.parametrize(
    ("code", "params", "trials"),
    [
        (BIG, "", 200_000),  # the case: tallied rows (few distinct values)
        (HUGE, "", 1000),  # beyond 2**63 / trials: the mean would wrap too
        (BIG, "params: {base: 100000000, spread: 100000}\n", 1000),  # folded block by block
        (HUGE.replace("2**62 + dice.d(6)", "dice.d(1) - 1 - 2**62"), "", 1000),  # "undefined"
    ],
)
def test_a_sum_of_squares_beyond_int64_is_refused_naming_the_metric(
    tmp_path, monkeypatch, capsys, code, params, trials
):
    path = scenario(tmp_path, code, trials, params)
    code, _, err = sim(monkeypatch, capsys, "run", path, "-q", "--out", str(tmp_path / "o"))
    assert code == 2, err
    assert "metric 'gold'" in err and "2**63" in err and f"{trials:,} trials" in err, err
    assert not (tmp_path / "o" / "summary.json").exists()


def test_values_just_under_the_bound_are_exact_for_any_threads_and_chunks(tmp_path):
    (tmp_path / "rule.py").write_text(textwrap.dedent(BIG))
    proc = procedure_of(f"{tmp_path}/rule.py:trial")
    trials = 900
    params = proc.params_model(base=10**8, spread=100_000)  # 900 × (1.001e8)² < 2**63
    plan = make_plan(proc, {"base": params}, 5)
    runs = [
        simulate(plan, trials, threads=threads, chunk_size=chunk)
        for threads, chunk in ((1, 16), (2, 64), (2, 1000))
    ]
    for run in runs[1:]:
        assert np.array_equal(run.stats, runs[0].stats)
    values = [10**8 + Dice(int(plan.key(0)), t).d(100_000) for t in range(trials)]
    got = runs[0].stats[0, :4].tolist()
    assert got == [trials, sum(values), sum(v * v for v in values), sum(v * v for v in values)]
    over = make_plan(proc, {"base": proc.params_model(base=2 * 10**8, spread=100_000)}, 5)
    for threads, chunk in ((1, 16), (2, 64)):
        with pytest.raises(OverflowLimit, match="metric 'gold'"):
            simulate(over, trials, threads=threads, chunk_size=chunk)


def test_merge_keeps_an_overflow_and_finds_a_new_one():
    total = np.zeros((2, 8), dtype=np.int64)
    part = np.zeros((2, 8), dtype=np.int64)
    part[0, 2] = 2**62
    merge(total, part, 2)
    merge(total, part, 2)  # 2**63: does not fit
    assert total[0, 2] == OVERFLOW and overflowed(total, 2) == [0]
    part[0, 2] = 1
    merge(total, part, 2)
    assert total[0, 2] == OVERFLOW  # sticky
    part[:] = 0
    part[1, 6] = OVERFLOW  # a job's own overflow (metric 1 of variant 1)
    merge(total, part, 2)
    assert overflowed(total, 2) == [0, 1]


# 10, 11, 14. A trial that fails stops the run at the designer's line -------------------------

FAILING = {
    "division by zero": ("def trial(dice, k: int = 0):\n    return {'a': dice.d(6) // k}\n", 2),
    "modulo by zero": ("def trial(dice, k: int = 0):\n    return {'a': dice.d(6) % k}\n", 2),
    "die of 0 sides": ("def trial(dice, s: int = 0):\n    return {'a': dice.d(s)}\n", 2),
    "die of -5 sides": ("def trial(dice, s: int = -5):\n    return {'a': dice.d(s)}\n", 2),
    "roll of -1 dice": ("def trial(dice, n: int = -1):\n    return {'a': dice.roll(n, 6)}\n", 2),
    "below 0": ("def trial(dice, n: int = 0):\n    return {'a': dice.below(n)}\n", 2),
    "far out of bounds": (
        "import numpy as np\n\n\ndef trial(dice, k: int = 1000000):\n"
        "    a = np.zeros(3, np.int64)\n    a[k] = 5\n    return {'a': a[0] + dice.d(6)}\n",
        6,
    ),
    "one past the end": (
        "import numpy as np\n\n\ndef trial(dice, k: int = 3):\n"
        "    a = np.zeros(3, np.int64)\n    a[k] = 5\n    return {'a': a[0] + dice.d(6)}\n",
        6,
    ),
    "a rare trial": (
        "def trial(dice, k: int = 0):\n    t = dice.roll(3, 6)\n    if t == 18:\n"
        "        return {'a': t // k}\n    return {'a': t}\n",
        4,
    ),
}


@pytest.mark.parametrize("case", list(FAILING))
def test_a_failing_trial_stops_the_run_at_the_designers_line(tmp_path, monkeypatch, capsys, case):
    code, line = FAILING[case]
    path = scenario(tmp_path, code, 5000)
    out = tmp_path / "o"
    status, _, err = sim(monkeypatch, capsys, "run", path, "-q", "--out", str(out))
    assert status == 2, err
    assert f"rule.py:{line}:" in err and "the trial raised" in err, err
    assert not (out / "summary.json").exists()


def test_the_failing_trial_named_is_the_first_one(tmp_path):
    (tmp_path / "rule.py").write_text(FAILING["a rare trial"][0])
    proc = procedure_of(f"{tmp_path}/rule.py:trial")
    plan = make_plan(proc, {"base": proc.params_model()}, 3)
    first = next(t for t in range(10_000) if Dice(int(plan.key(0)), t).roll(3, 6) == 18)
    with pytest.raises(TrialError, match=f"trial {first:,}, with k=0"):
        simulate(plan, 10_000, threads=2, chunk_size=1024)


def test_a_sweep_that_reaches_a_die_of_no_sides_stops(tmp_path, monkeypatch, capsys):
    code = "def trial(dice, s: int = 2):\n    return {'a': dice.d(s)}\n"
    path = scenario(tmp_path, code, 500, "sweep:\n  s: [2, 1, 0]\n")
    status, _, err = sim(monkeypatch, capsys, "run", path, "-q", "--out", str(tmp_path / "o"))
    assert status == 2 and "rule.py:2:" in err and "s=0" in err, err


def test_a_trial_that_always_raises_says_so_at_its_line(tmp_path, monkeypatch, capsys):
    code = """
    def trial(dice):
        x = dice.d(6)
        raise ValueError("not written yet")
        return {"a": x}
    """
    status, _, err = sim(monkeypatch, capsys, "validate", scenario(tmp_path, code))
    assert status == 2, err
    assert "rule.py:3:" in err and "ValueError: not written yet" in err, err
    assert "is a none" not in err


def test_the_plain_python_dice_refuse_what_the_compiled_dice_refuse():
    dice = Dice(1, 0)
    for call in (
        lambda: dice.d(0),
        lambda: dice.d(2**32 + 1),
        lambda: dice.roll(-1, 6),
        lambda: dice.count(3, 0, 1),
        lambda: dice.below(0),
        lambda: dice.part(16),
    ):
        with pytest.raises(DiceError):
            call()
    assert 1 <= dice.d(2**32) <= 2**32 and dice.roll(0, 6) == 0


# 13. A stated limit of metrics -----------------------------------------------------------------


def test_more_metrics_than_the_limit_are_refused_before_compiling(tmp_path, monkeypatch, capsys):
    names = ",\n".join(f'        "m{i}": x + {i}' for i in range(3000))
    code = f"def trial(dice):\n    x = dice.d(6)\n    return {{\n{names}\n    }}\n"
    t0 = time.monotonic()
    status, _, err = sim(monkeypatch, capsys, "validate", scenario(tmp_path, code))
    assert status == 2 and f"at most {MAX_METRICS}" in err and "3,000 metrics" in err, err
    assert time.monotonic() - t0 < 30  # refused before any compile (1,000 took 12 minutes)


# 12. A helper module of the designer's counts in the cache key ---------------------------------

HELPER = "from numba import njit\n\n\n@njit(cache=True)\ndef bonus():\n    return {value}\n"
USES_HELPER = """
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from helper import bonus  # noqa: E402


def trial(dice):
    return {"a": dice.d(6) * 0 + bonus()}
"""


def _mean(folder: Path, path: str) -> float:
    """Metric ``a``'s mean from ``sim run`` in a new process (Numba's disk cache, not memory)."""
    run = subprocess.run(
        [sys.executable, "-m", "simulator.cli", "run", path, "-q", "--out", str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )
    assert run.returncode == 0, run.stderr
    summary = json.loads((folder / "summary.json").read_text())
    return float(summary["variants"]["base"]["metrics"]["a"]["mean"])


def test_an_edited_helper_module_compiles_the_rule_again(tmp_path):
    (tmp_path / "helper.py").write_text(HELPER.format(value=1))
    path = scenario(tmp_path, USES_HELPER, 100)
    assert _mean(tmp_path / "o1", path) == 1
    (tmp_path / "helper.py").write_text(HELPER.format(value=100))
    assert _mean(tmp_path / "o2", path) == 100


# 15. A damaged cache entry is dropped, with a notice -----------------------------------------


def _entry(folder: Path, name: str, data: bytes | None) -> None:
    """A cache entry laid out as Numba's: an index (Numba's version, then the pickled stamp and
    signatures -> data files) and its data file (one pickle)."""
    import numba

    index = pickle.dumps(numba.__version__) + pickle.dumps(("stamp", {"k": f"{name}.1.nbc"}))
    (folder / f"{name}.nbi").write_bytes(index)
    if data is not None:
        (folder / f"{name}.1.nbc").write_bytes(data)


@pytest.mark.parametrize("thorough", [True, False])
def test_a_damaged_cache_entry_is_dropped_and_a_sound_one_kept(tmp_path, capsys, thorough):
    whole = pickle.dumps(("library", b"\x00" * 100), protocol=5)
    _entry(tmp_path, "sound", whole)
    _entry(tmp_path, "cut", whole[:-1])
    _entry(tmp_path, "missing", None)  # Numba compiles again by itself
    (tmp_path / "empty.nbi").write_bytes(b"")
    dropped = drop_damaged(tmp_path, "", thorough)
    assert sorted(p.name for p in dropped) == ["cut.nbi", "empty.nbi"]
    assert (tmp_path / "sound.1.nbc").exists() and not (tmp_path / "cut.1.nbc").exists()
    assert "damaged cache entry" in capsys.readouterr().err


def test_a_run_after_its_cache_files_were_damaged_compiles_again(tmp_path):
    path = scenario(tmp_path, "def trial(dice):\n    return {'a': dice.d(6)}\n", 500)
    first = _mean(tmp_path / "o1", path)
    cache = tmp_path / "__pycache__"
    kernels = sorted(cache.glob("rule.kernel_*.nbc"))
    trials = sorted(cache.glob("rule.trial*.nbi"))
    assert kernels and trials
    kernels[0].write_bytes(kernels[0].read_bytes()[:1000])
    trials[0].write_bytes(b"")
    run = subprocess.run(
        [sys.executable, "-m", "simulator.cli", "run", path, "-q", "--out", str(tmp_path / "o2")],
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("damaged cache entry") == 2, run.stderr
    summary = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert summary["variants"]["base"]["metrics"]["a"]["mean"] == first


# 16. A long trial ends on a signal within seconds ---------------------------------------------

LONG = """
def trial(dice, n: int = 1000000000000):
    s = 0
    for i in range(n):
        s += dice.d(6) > 5
    return {"a": s}
"""


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_trial_of_a_trillion_dice_ends_on_a_signal_within_seconds(tmp_path, sig, code):
    path = scenario(tmp_path, LONG, 1000)
    run = subprocess.Popen(  # the `sim` script's own entry point
        [sys.executable, "-c", "from simulator.script import console; console()"]
        + ["run", path, "--out", str(tmp_path / "o")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(run.stderr or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            said = "".join(lines)  # every batch of compiles announced has said it is done
            if 0 < said.count("compiled in") >= said.count("compiling "):
                break
            time.sleep(0.05)
        time.sleep(2)  # inside the first trial, which never ends
        assert run.poll() is None, "".join(lines)
        sent = time.monotonic()
        run.send_signal(sig)
        run.wait(timeout=30)
        waited = time.monotonic() - sent
        reader.join(timeout=10)
    finally:
        if run.poll() is None:
            run.kill()
    err = "".join(lines)
    assert run.returncode == code, err
    assert f"interrupted ({sig.name})" in err and "Traceback" not in err
    assert waited < 5, waited


# 17. An interrupted game with no finished deal is reported -----------------------------------


def test_seat_balance_of_no_finished_game_says_so():
    row = SeatRow("base", [float("nan")] * 4, float("nan"), float("nan"), float("nan"), 0)
    lines = seat_balance(SimpleNamespace(seats=[row]))  # type: ignore[arg-type]
    assert lines == ["too few wins to test the seats (base: no game finished)"]


# Hypothesis: a designer's arithmetic at the edges gives an error or the exact value ------------

EDGES = """
def trial(dice, k: int = 1, sides: int = 6, base: int = 0):
    x = dice.d(sides)
    return {"q": base + x // k, "r": x % k, "hit": x > 3}
"""
EDGE_TRIALS = 40
INT64 = 2**63


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges")
    (folder / "rule.py").write_text(EDGES.lstrip("\n"))
    return procedure_of(f"{folder}/rule.py:trial")


def _expected(key: int, k: int, sides: int, base: int) -> list[int] | str:
    """The statistics row in plain Python (exact integers), or what must be refused."""
    rows = []
    for t in range(EDGE_TRIALS):
        dice = Dice(key, t)
        try:
            x = dice.d(sides)
            rows.append((base + x // k, x % k, int(x > 3)))
        except (DiceError, ZeroDivisionError):
            return "raised"
    out: list[int] = []
    for m in range(3):
        values = [r[m] for r in rows]
        squares = sum(v * v for v in values)
        if squares >= INT64 or any(abs(v) >= INT64 for v in values):
            return "overflow"
        out += [len(values), sum(values), squares, squares]
    return out


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    k=st.sampled_from([0, 1, -1, 2, -7, 2**31, -(2**53)]) | st.integers(-5, 5),
    sides=st.sampled_from([-5, 0, 1, 2, 6, 2**32, 2**32 + 1]) | st.integers(-2, 10),
    base=st.sampled_from([0, -(2**26), 2**26, 3 * 10**8, 2**53, -(2**53)]) | st.integers(-9, 9),
)
def test_edge_arithmetic_gives_an_error_or_the_exact_value(edges, k, sides, base):
    plan = make_plan(edges, {"base": edges.params_model(k=k, sides=sides, base=base)}, 11)
    want = _expected(int(plan.key(0)), k, sides, base)
    if want == "raised":
        with pytest.raises(TrialError, match=r"rule\.py:[23]:"):
            simulate(plan, EDGE_TRIALS, threads=1, chunk_size=16)
    elif want == "overflow":
        with pytest.raises(OverflowLimit):
            simulate(plan, EDGE_TRIALS, threads=1, chunk_size=16)
    else:
        got = simulate(plan, EDGE_TRIALS, threads=1, chunk_size=16).stats[0].tolist()
        assert got == want
