"""Issue 17: hostile input is refused with exit 2 and where, before any work; nothing unbounded.

One regression test (or more) per numbered case of the issue; the faults (kills, concurrent runs)
are in tests/test_faults.py, the fuzzing in tests/test_fuzz_loaders.py.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from simulator import cli, engine, scenario
from simulator.limits import MAX_SHOWN_PROBLEMS, MAX_TRIALS
from simulator.output import OutputError, check_report_folder, report_folder, safe_write

ROOT = Path(__file__).resolve().parents[1]
FIELD_BATTLE = str(ROOT / "scenarios/his/field_battle.yaml")
DEFENDER_BONUS = str(ROOT / "scenarios/his/defender_bonus.yaml")
HEADER = "name: x\nprocedure: his.field_battle\nseed: 1\n"
PARAMS = "params:\n  attacker: {units: 4, leader: 2}\n  defender: {units: 3, leader: 0}\n"


def sim(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """Run ``sim ARGS`` in this process through the console entry point (the edge that maps
    errors to exit codes); returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["sim", *args])
    monkeypatch.setattr(cli.interrupts, "install", lambda: None)  # leave pytest's Ctrl-C alone
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def sim_process(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "simulator.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        **kw,
    )


#: Libraries' own thread pools off, so the engine's pool threads show when jobs start.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def wait_for_jobs(pid: int, timeout: float = 120) -> None:
    """Wait until process ``pid`` runs jobs: its thread pool (2 threads) has started, beside the
    main thread and the signal watcher (simulator.interrupts)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        threads = int(status.split("Threads:")[1].split()[0])
        if threads >= 4:
            time.sleep(0.5)
            return
        time.sleep(0.05)
    raise AssertionError("the run did not start its jobs")


# 1. Writing over what is not a regular file -------------------------------------------------


def test_schema_through_a_symlink_writes_its_target_and_keeps_the_link(
    tmp_path, monkeypatch, capsys
):
    target = tmp_path / "schema.json"
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    code, _, err = sim(monkeypatch, capsys, "schema", "--out", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == target.name
    assert json.loads(target.read_text())["title"] == "sim scenario"


def test_a_pipe_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    safe_write(fifo, lambda f: f.write("hello\n"))
    assert reader.communicate(timeout=30)[0] == b"hello\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_character_device_is_written_through_not_replaced(tmp_path):
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a second /dev/null
    safe_write(node, lambda f: f.write("gone"))
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert os.lstat(node).st_rdev == os.makedev(1, 3)


def test_out_dev_stdout_prints_the_schema(tmp_path):
    proc = sim_process("schema", "--out", "/dev/stdout")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["title"] == "sim scenario"


def test_an_unwritable_baseline_is_refused_before_any_run(tmp_path, monkeypatch, capsys):
    code, _, err = sim(
        monkeypatch, capsys, "baseline", FIELD_BATTLE, "--out", "/proc/no/such/baseline.json"
    )
    assert code == 2
    assert "cannot create folder" in err and "trials" not in err


def test_a_folder_is_refused_as_an_output_file(tmp_path, monkeypatch, capsys):
    code, _, err = sim(monkeypatch, capsys, "check", FIELD_BATTLE, "--junit", str(tmp_path))
    assert code == 2 and "is a folder" in err


# 2. A report folder is one run, whole (the kills are in test_faults.py) ---------------------


def _run(monkeypatch, capsys, out: Path, trials: str, scenario_file: str = DEFENDER_BONUS):
    code, _, err = sim(
        monkeypatch, capsys, "run", scenario_file, "-q", "--trials", trials, "--out", str(out)
    )
    assert code == 0, err
    return json.loads((out / "summary.json").read_text())


def test_a_second_run_replaces_the_whole_folder_and_leaves_nothing_beside_it(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "reports" / "r"
    out.mkdir(parents=True)
    (out / "summary.json").write_text('{"trials": 10}')  # an older run, with a plot it had
    (out / "stale.png").write_bytes(b"from an older run")
    (out / ".summary.csv.123.tmp").write_bytes(b"")
    (tmp_path / "reports" / ".r.sim-build-dead").mkdir()  # a run killed while building
    summary = _run(monkeypatch, capsys, out, "3000", FIELD_BATTLE)
    assert summary["trials"] == 3000 and summary["complete"] is True
    names = sorted(p.name for p in out.iterdir())
    assert "stale.png" not in names and not [n for n in names if n.startswith(".")]
    assert {"distributions.png", "report.html", "summary.csv", "summary.json"} <= set(names)
    assert sorted(p.name for p in out.parent.iterdir()) == [".r.sim-lock", "r"]


def test_a_folder_that_is_not_a_report_folder_keeps_what_else_it_holds(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with report_folder(tmp_path) as folder:
        assert folder == tmp_path.resolve()
        (folder / "summary.json").write_text("{}")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_failed_write_leaves_the_old_folder_as_it_was(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "summary.json").write_text("old")
    with pytest.raises(RuntimeError), report_folder(out) as folder:
        (folder / "summary.json").write_text("new, half")
        raise RuntimeError("disk full")
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".r.sim-build")] == []


def test_without_an_atomic_exchange_the_swap_renames_the_old_folder_away(tmp_path, monkeypatch):
    from simulator import output

    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    out = tmp_path / "r"
    out.mkdir()
    (out / "summary.json").write_text("old")
    with report_folder(out) as folder:
        (folder / "summary.json").write_text("new")
    assert (out / "summary.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".r.sim-lock", "r"]


def test_a_run_killed_between_the_two_renames_gets_the_old_folder_back(tmp_path):
    old = tmp_path / ".r.sim-old-4242"
    old.mkdir()
    (old / "summary.json").write_text("old")
    with report_folder(tmp_path / "r") as folder:
        assert (tmp_path / "r" / "summary.json").read_text() == "old"
        (folder / "summary.json").write_text("new")
    assert (tmp_path / "r" / "summary.json").read_text() == "new"


def test_the_lock_of_a_dead_process_does_not_block_the_next_run(tmp_path):
    out = tmp_path / "r"
    check_report_folder(out)
    code = "import fcntl,os,sys; f=open(sys.argv[1],'a'); fcntl.flock(f,fcntl.LOCK_EX); "
    code += "print('locked',flush=True); os.kill(os.getpid(),9)"
    holder = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / ".r.sim-lock")], capture_output=True
    )
    assert holder.returncode == -9 and b"locked" in holder.stdout
    with report_folder(out) as folder:
        (folder / "summary.json").write_text("{}")
    assert (out / "summary.json").exists()


# 3. Where reports go is checked first -------------------------------------------------------


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("", "the path is empty"),
        ("{file}", "is a file, not a folder"),
        ("{file}/r", "which is a file, not a folder"),
        ("/proc/sim-reports", "cannot write beside it"),
    ],
)
def test_a_bad_report_folder_is_refused_before_the_run(tmp_path, monkeypatch, capsys, out, reason):
    file = tmp_path / "a-file"
    file.write_text("x")
    # 10¹² trials: if the check came after the run, this test would not end.
    code, _, err = sim(
        monkeypatch,
        capsys,
        "run",
        FIELD_BATTLE,
        "-q",
        "--trials",
        str(MAX_TRIALS),
        "--out",
        out.format(file=file),
    )
    assert code == 2 and reason in err, err


def test_reports_out_being_a_file_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "out").write_text("x")
    monkeypatch.chdir(tmp_path)
    code, _, err = sim(monkeypatch, capsys, "run", FIELD_BATTLE, "-q", "--trials", str(MAX_TRIALS))
    assert code == 2 and "reports/out, which is a file" in err


# 4. SIGTERM and SIGHUP end a run like Ctrl-C ------------------------------------------------


@pytest.mark.parametrize(("sig", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_sigterm_and_sighup_write_partial_results_and_exit_128_plus_the_signal(tmp_path, sig, code):
    import signal

    out = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-m",
            "simulator.cli",
            "run",
            FIELD_BATTLE,
            "-q",
            "--threads",
            "2",
            "--trials",
            str(10**11),
            "--chunk-size",
            "1000000",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, **ONE_THREAD},
    )
    wait_for_jobs(proc.pid)
    proc.send_signal(getattr(signal, sig))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        # Seen once in a full session (2026-12-01), never alone: say where every thread was.
        proc.send_signal(signal.SIGABRT)  # -X faulthandler prints each thread's stack
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"the run did not end 60 s after {sig}; its threads then:\n{err}")
    assert proc.returncode == code, err
    assert f"interrupted ({sig})" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and 0 < summary["trials"] < 10**11


# 5. One trial cap, lazy jobs ------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "exact", "baseline", "check"])
def test_trials_over_the_cap_are_refused_on_the_command_line(monkeypatch, capsys, command):
    args = (command, FIELD_BATTLE, "--trials", str(MAX_TRIALS + 1))
    code, _, err = sim(monkeypatch, capsys, *args)
    assert code == 2 and "--trials" in err


def test_trials_over_the_cap_are_refused_in_the_file(tmp_path):
    path = write(tmp_path, HEADER + "trials: 1.0e13\n" + PARAMS)
    with pytest.raises(scenario.ScenarioError, match="trials: must be between 1 and"):
        scenario.load(path)


def test_the_engine_refuses_trials_over_the_cap_from_any_caller():
    s = scenario.load(FIELD_BATTLE)
    plan = engine.make_plan(s.procedure, s.variants, s.seed)
    with pytest.raises(engine.TrialLimitError):
        engine.simulate(plan, 10**30)


def test_jobs_are_made_lazily_so_memory_stays_flat_for_any_trial_count(ctrl_c_on_third_wait):
    s = scenario.load(FIELD_BATTLE)
    plan = engine.make_plan(s.procedure, s.variants, s.seed)
    engine.warm_up(plan)
    tracemalloc.start()
    try:
        outcome = engine.simulate(plan, MAX_TRIALS, chunk_size=1, threads=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not outcome.complete and outcome.trials > 0
    assert peak < 20 * 2**20  # a list of 10¹² jobs would be terabytes


# 6. YAML bombs ----------------------------------------------------------------------------------

LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("text", "where", "why"),
    [
        (LAUGHS, ":5:4: yaml:", "expands to more than"),
        ("a: " + "[" * 500 + "]" * 500, ":1:67: yaml:", "nested more than 64 levels"),
        ("a: " + "{b: " * 500 + "1" + "}" * 500, ":1:", "nested more than 64 levels"),
    ],
    ids=["billion-laughs", "deep-lists", "deep-mappings"],
)
def test_yaml_bombs_are_refused_fast_with_the_place(tmp_path, text, where, why):
    path = write(tmp_path, text)
    t0 = time.perf_counter()
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.load(path)
    assert time.perf_counter() - t0 < 5
    assert where in str(e.value) and why in str(e.value)


def test_dev_zero_is_read_only_up_to_the_limit(monkeypatch, capsys):
    t0 = time.perf_counter()
    code, _, err = sim(monkeypatch, capsys, "validate", "/dev/zero")
    assert code == 2 and "/dev/zero:1:1: file: larger than the 1 MiB limit" in err
    assert time.perf_counter() - t0 < 10


# 7. Dask ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["not a url", "tcp://host", "tcp://h:99999", "http://h:80"])
def test_a_malformed_scheduler_address_is_exit_2(monkeypatch, capsys, address):
    code, _, err = sim(monkeypatch, capsys, "run", FIELD_BATTLE, "--scheduler", address)
    assert code == 2 and "is not an address like tcp://HOST:PORT" in err


def test_a_server_that_never_answers_is_given_up_after_the_connect_timeout():
    pytest.importorskip("distributed")
    from simulator.dask_backend import BackendError, check_scheduler

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        t0 = time.perf_counter()
        with pytest.raises(BackendError, match="within 1 s"):
            check_scheduler(address, timeout=1)
        assert time.perf_counter() - t0 < 10


# 8. Never a traceback; exit 2 for bad input; output capped and escaped ------------------------


def test_merge_keys_are_exit_2_with_the_place(tmp_path, monkeypatch, capsys):
    path = write(
        tmp_path,
        "base: &b {units: 4}\n" + HEADER + "trials: 10\nparams:\n  attacker:\n    <<: *b\n",
    )
    code, _, err = sim(monkeypatch, capsys, "validate", path)
    assert code == 2 and ":8:5: params.attacker: merge keys (<<) are not supported" in err


def test_a_300_character_file_name_is_exit_2(monkeypatch, capsys):
    code, _, err = sim(monkeypatch, capsys, "validate", "x" * 300 + ".yaml")
    assert code == 2 and "File name too long" in err


def test_a_number_with_too_many_digits_is_exit_2(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, HEADER + "trials: " + "9" * 5000 + "\n")
    code, _, err = sim(monkeypatch, capsys, "validate", path)
    assert code == 2 and ":4:9: trials: cannot be read as a value: too many digits" in err


def test_a_closed_stdout_is_exit_2_without_a_traceback():
    proc = subprocess.run(
        f"{sys.executable} -m simulator.cli validate {FIELD_BATTLE} >&-",
        shell=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 2 and "standard output is closed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_thousands_of_unknown_keys_print_the_first_ones_and_a_count(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, HEADER + "trials: 10\n" + "".join(f"k{i}: 1\n" for i in range(3_000)))
    code, _, err = sim(monkeypatch, capsys, "validate", path)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) <= MAX_SHOWN_PROBLEMS + 1 and "more problems" in lines[-1]


def test_control_characters_are_escaped_in_the_terminal(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, HEADER + 'trials: 10\n"\\e[31mred\\u202e": 1\n')
    code, _, err = sim(monkeypatch, capsys, "validate", path)
    assert code == 2 and "\\x1b[31mred\\u202e: unknown key" in err and "\x1b" not in err


def test_control_characters_are_escaped_in_the_html_report(tmp_path, monkeypatch, capsys):
    path = write(tmp_path, HEADER + 'trials: 10\ndescription: "bell \\a and \\e[2J"\n' + PARAMS)
    code, _, err = sim(monkeypatch, capsys, "run", path, "-q", "--out", str(tmp_path / "r"))
    assert code == 0, err
    page = (tmp_path / "r" / "report.html").read_text()
    assert "bell \\x07 and \\x1b[2J" in page and "\x07" not in page and "\x1b" not in page


# 10. Silent nonsense in scenarios -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("trials: 1:30\n", ":4:9: trials: YAML 1.1 reads this as a base-60"),
        ("trials: 10\nvariants:\n  ~: {}\n", ":6:3: variants: key '~' is read by YAML as None"),
        ("trials: 10\nvariants:\n  yes: {}\n", ":6:3: variants: key 'yes' is read by YAML as True"),
        ("trials: 0x10\n", ":4:9: trials: YAML 1.1 reads this as a hexadecimal number, 16"),
        ("trials: 10\nparams: {attacker: {units: 017}}\n", "reads this as an octal number, 15"),
    ],
    ids=["sexagesimal", "tilde-key", "yes-key", "hex", "octal"],
)
def test_yaml_1_1_surprises_are_refused(tmp_path, text, message):
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.load(write(tmp_path, HEADER + text))
    assert message in str(e.value)


def test_quoted_yaml_1_1_lookalikes_are_plain_text(tmp_path):
    text = HEADER + "trials: 10\n" + PARAMS + "variants:\n  'yes': {defender: {leader: 1}}\n"
    assert list(scenario.load(write(tmp_path, text)).variants) == ["base", "yes"]


def test_a_sweep_over_a_group_and_its_member_is_refused(tmp_path):
    text = HEADER + "trials: 10\n" + PARAMS + "sweep:\n  attacker: [{units: 4, leader: 2}]\n"
    text += "  attacker.units: [1, 2]\n"
    with pytest.raises(scenario.ScenarioError, match=r":10:3: sweep.attacker.units: is inside"):
        scenario.load(write(tmp_path, text))


def test_precision_not_reached_within_max_trials_is_recorded_and_warned(
    tmp_path, monkeypatch, capsys
):
    code, _, err = sim(
        monkeypatch,
        capsys,
        "run",
        FIELD_BATTLE,
        "-q",
        "--trials",
        "1000",
        "--precision",
        "1e-6",
        "--max-trials",
        "4000",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    assert "warning: --precision 1e-06 was not reached within --max-trials 4,000" in err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["precision_reached"] is False and summary["trials"] == 4000


def test_precision_reached_is_recorded(tmp_path, monkeypatch, capsys):
    code, _, err = sim(
        monkeypatch,
        capsys,
        "run",
        FIELD_BATTLE,
        "-q",
        "--trials",
        "1000",
        "--precision",
        "0.1",
        "--out",
        str(tmp_path),
    )
    assert code == 0 and "warning" not in err
    assert json.loads((tmp_path / "summary.json").read_text())["precision_reached"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trials", "1000", "--max-trials", "500", "--precision", "0.01"], "is below --trials"),
        (["--max-trials", "5000"], "give --precision too"),
    ],
)
def test_max_trials_that_would_be_ignored_is_refused(monkeypatch, capsys, args, message):
    code, _, err = sim(monkeypatch, capsys, "run", FIELD_BATTLE, "-q", *args)
    assert code == 2 and message in err


def test_output_errors_are_invalid_input():
    assert issubclass(OutputError, ValueError)


def test_a_folder_whose_parent_cannot_be_written_is_written_in_place(tmp_path, monkeypatch):
    from simulator import output

    out = tmp_path / "r"
    out.mkdir()
    (out / "summary.json").write_text("old")
    real_access = os.access
    monkeypatch.setattr(
        output.os, "access", lambda p, mode: Path(p) != tmp_path and real_access(p, mode)
    )
    with report_folder(out) as folder:
        assert folder == out.resolve()
        safe_write(folder / "summary.json", lambda f: f.write("new"))
    assert (out / "summary.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    assert sorted(p.name for p in out.iterdir()) == [".sim-lock", "summary.json"]
