"""Issue 17, faults: whatever kills a run, whatever order runs end in, a report folder is exactly
one run's, complete; devices, pipes and symlinks stay what they were.

Each test starts real `sim run` processes on a small scenario with few trials, so they cost a few
seconds each; the properties hold at every point, so the random kill points cannot make a test
flaky, only vary which point is tried.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from simulator.output import report_folder

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = str(ROOT / "scenarios/his/defender_bonus.yaml")
#: With the plots that report.html shows (their names taken from it).
FILES = ["report.html", "summary.csv", "summary.json"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def start(out: Path, trials: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "simulator.cli", "run", SCENARIO, "-q", "--threads", "1"]
        + ["--trials", str(trials), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )


def one_whole_run(out: Path) -> int:
    """Assert ``out`` holds exactly one run's files, consistent with each other; its trials."""
    page = (out / "report.html").read_text()
    plots = re.findall(r"<figcaption>([^<]+\.png)</figcaption>", page)
    names = set(os.listdir(out))
    assert plots and {*FILES, *plots} <= names
    assert all(n in FILES or n.endswith(".png") for n in names)  # no temporary files
    summary = json.loads((out / "summary.json").read_text())
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {int(r["n"]) for r in rows} == {summary["trials"]}
    assert {r["complete"] for r in rows} == {str(summary["complete"])}
    assert f"{summary['trials']:,}" in page
    return int(summary["trials"])


def leftovers(out: Path) -> list[str]:
    prefix = f".{out.name}.sim-"
    return [p for p in os.listdir(out.parent) if p.startswith(prefix) and not p.endswith("lock")]


def test_a_run_killed_while_writing_leaves_the_old_run_or_the_new_one(tmp_path):
    out = tmp_path / "r"
    first = start(out, 1000)
    assert first.wait(timeout=300) == 0, first.stderr.read() if first.stderr else ""
    assert one_whole_run(out) == 1000
    rng = random.Random()
    for i, sig in enumerate((signal.SIGKILL, signal.SIGINT, signal.SIGTERM)):
        trials = 2000 + i
        before = set(leftovers(out))  # a SIGKILLed run leaves its build folder until the next
        proc = start(out, trials)
        deadline = time.monotonic() + 300
        while set(leftovers(out)) <= before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)  # until the new folder is being built beside the old one
        time.sleep(rng.uniform(0, 0.6))
        if proc.poll() is None:
            proc.send_signal(sig)
        code = proc.wait(timeout=300)
        err = proc.stderr.read() if proc.stderr else ""
        assert code in (0, -signal.SIGKILL, 128 + signal.SIGINT, 128 + signal.SIGTERM), err
        now = one_whole_run(out)
        assert now in (1000, *range(2000, trials + 1)), (sig, code, now)
        if code == 128 + sig:  # Ctrl-C and SIGTERM wait for the folder to be in place
            assert now == trials
    last = start(out, 999)
    assert last.wait(timeout=300) == 0
    assert one_whole_run(out) == 999 and leftovers(out) == []


def test_two_runs_at_once_leave_one_runs_folder(tmp_path):
    out = tmp_path / "r"
    runs = [start(out, 1000), start(out, 1500)]
    assert [p.wait(timeout=300) for p in runs] == [0, 0]
    assert one_whole_run(out) in (1000, 1500)
    assert leftovers(out) == []


def test_a_report_folder_behind_a_symlink_stays_a_symlink(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to("real")
    for text in ("one", "two"):
        with report_folder(link) as folder:
            (folder / "summary.json").write_text(text)
    assert link.is_symlink() and os.readlink(link) == "real"
    assert (real / "summary.json").read_text() == "two"


def test_writing_through_a_symlink_to_a_fifo_leaves_both_as_they_were(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "out.json"
    link.symlink_to(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    proc = subprocess.run(
        [sys.executable, "-m", "simulator.cli", "schema", "--out", str(link)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    data = reader.communicate(timeout=60)[0]
    assert proc.returncode == 0, proc.stderr
    assert json.loads(data)
    assert link.is_symlink() and Path(os.readlink(link)) == fifo
    assert fifo.is_fifo()


HEAVY_LADDER = (
    (ROOT / "scenarios/root/ladder.yaml")
    .read_text()
    .replace("playouts: 8, horizon: 0", "playouts: 10000, horizon: 0")
    .replace("iterations: 200, horizon: 0", "iterations: 100000, horizon: 0")
)


def test_sigterm_inside_one_long_search_decision_ends_the_run_within_seconds(tmp_path):
    """Issue 31 case 12: the main thread plays a first deal inside the kernel (the warm-up),
    where Python runs no signal handler; a decision of 100,000 mcts iterations to the end of
    the game takes minutes. The stop flag, set by the signal watcher, ends the search at once."""
    scenario = tmp_path / "heavy.yaml"
    scenario.write_text(HEAVY_LADDER)
    run = subprocess.Popen(
        [sys.executable, "-m", "simulator.cli", "run", str(scenario), "-q", "--threads", "1"]
        + ["--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(run.stderr or []), daemon=True)
    reader.start()
    try:
        # The notices come before the kernel; a kernel not in Numba's cache says "compiling" and
        # then "compiled" (the signal would come during the compile otherwise, which Python code
        # also obeys). A warm one loads in about a second: four seconds on, the run is inside it.
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and run.poll() is None:
            said = "".join(lines)
            if "iterations per decision" in said and said.count("compiling") <= said.count(
                "compiled in"
            ):
                break
            time.sleep(0.05)
        time.sleep(4)
        assert run.poll() is None, "".join(lines)
        sent = time.monotonic()
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=30)
        waited = time.monotonic() - sent
        reader.join(timeout=10)
        err = "".join(lines)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 143, err
    assert "interrupted (SIGTERM)" in err and "Traceback" not in err
    assert "mcts(100000): 100,000 iterations per decision" in err  # said before it started
    assert waited < 5, waited
