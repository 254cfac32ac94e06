"""Reports are written atomically: a write that fails midway leaves the previous file whole and
no temporary file behind (``simulator.output.safe_write``, used for every report ``sim run``
writes)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.output import safe_write
from simulator.report import files as report


def test_a_write_that_fails_midway_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "summary.json"
    safe_write(path, lambda f: f.write("old, complete"))

    def half_then_fail(f):
        f.write("new, half")
        f.flush()
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        safe_write(path, half_then_fail)
    assert path.read_text() == "old, complete"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]


def test_a_run_whose_summary_write_fails_keeps_the_previous_summary(tmp_path, monkeypatch):
    args = ["run", "scenarios/his/defender_bonus.yaml", "--trials", "2000", "-q"]
    first = CliRunner().invoke(app, [*args, "--out", str(tmp_path)])
    assert first.exit_code == 0, first.output
    before = (tmp_path / "summary.json").read_text()
    assert json.loads(before)["complete"] is True

    real_dump = json.dump

    def dump_half_then_fail(obj, f, **kw):
        real_dump({"half": True}, f)  # a partial document reaches the temporary file
        f.flush()
        raise OSError("disk full")

    monkeypatch.setattr(report.json, "dump", dump_half_then_fail)
    second = CliRunner().invoke(app, [*args, "--trials", "3000", "--out", str(tmp_path)])
    assert second.exit_code != 0
    assert (tmp_path / "summary.json").read_text() == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_temporary_left_by_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    """SIGKILL leaves `.NAME.XXXX.tmp`; the next write of NAME removes it unless a live writer
    holds it (locked) or it is younger than a minute."""
    import fcntl
    import os

    path = tmp_path / "baseline.json"
    dead = tmp_path / ".baseline.json.dead1.tmp"
    held = tmp_path / ".baseline.json.live1.tmp"
    young = tmp_path / ".baseline.json.young.tmp"
    other = tmp_path / ".other.json.dead2.tmp"
    for p in (dead, held, young, other):
        p.write_text("half")
    for p in (dead, held, other):
        os.utime(p, (1, 1))
    with open(held) as live:
        fcntl.flock(live.fileno(), fcntl.LOCK_EX)
        safe_write(path, lambda f: f.write("{}"))
    assert path.read_text() == "{}"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["baseline.json", held.name, young.name, other.name])
