"""Long runs say up front when they expect to pass a minute (issue 30, item 1): the progress of
``sim run``, ``sim compare``, robustness runs, ``sim tune`` and the gate's ``sim baseline`` and
``sim check``."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from simulator.commands import common
from simulator.commands.gate import _ScenarioBar


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(common.time, "monotonic", lambda: now[0])
    return now


def _console() -> tuple[Console, io.StringIO]:
    text = io.StringIO()
    return Console(file=text, width=200), text


def test_a_run_expected_to_pass_a_minute_says_so_once_from_its_measured_rate(clock):
    err, text = _console()
    progress = common.Progress(False, "recruitment-ladder", err, announce=True)
    progress(0, 1000)
    clock[0] += 30.0  # a compile before the first trials: not part of the rate
    progress(1, 1000)
    clock[0] += 2.0
    progress(11, 1000)  # 10 trials in 2 s: 198 s left
    clock[0] += 2.0
    progress(21, 1000)
    said = text.getvalue()
    assert said.count("should take about") == 1, said
    assert "recruitment-ladder: this run should take about 3 min 18 s more" in said


@pytest.mark.parametrize(("announce", "trials"), [(True, 100), (False, 1000)])
def test_a_short_run_or_a_quiet_one_says_nothing(clock, announce, trials):
    err, text = _console()
    progress = common.Progress(False, "field_battle", err, announce=announce)
    progress(0, trials)
    clock[0] += 2.0
    progress(10, trials)
    assert text.getvalue() == ""


def test_the_gate_says_each_scenario_and_its_expected_time(clock):
    err, text = _console()
    notify = _ScenarioBar("sim check", [object()] * 40, err)
    clock[0] += 10.0
    notify("one: 1,000 trials (the baseline's), 10.0 s")
    clock[0] += 10.0
    notify("two: 1,000 trials (the baseline's), 10.0 s")
    clock[0] += 10.0
    notify("three: 1,000 trials (the baseline's), 10.0 s")
    notify.close()
    said = text.getvalue()
    assert "one: 1,000 trials" in said and "two: 1,000 trials" in said
    assert "sim check: this run should take about 6 min 20 s more" in said
