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


def _gate_said(clock, runs: list[tuple[float, str]], expect: list | None = None) -> str:
    """What ``sim check``'s bar over 40 scenarios says when the first ones take ``runs``'
    seconds and say their lines (after :meth:`_ScenarioBar.expect` of ``expect``, if given)."""
    err, text = _console()
    notify = _ScenarioBar("sim check", [object()] * 40, err)
    if expect is not None:
        notify.expect(expect)
    for seconds, line in runs:
        clock[0] += seconds
        notify(line)
    notify.close()
    return text.getvalue()


def test_the_gate_says_each_scenario_and_its_expected_time(clock):
    said = _gate_said(
        clock,
        [(10.0, f"{n}: 1,000 trials (the baseline's), 10.0 s") for n in ("one", "two", "three")],
    )
    assert "one: 1,000 trials" in said and "two: 1,000 trials" in said
    assert "sim check: this run should take about 6 min 20 s more" in said


def test_the_gate_weighs_its_scenarios_by_the_baseline_s_seconds(clock):
    """Two slow whole games first, then 38 dice rules: counted by scenarios the estimate after
    the games was 38 x 10 s; weighed by the seconds each took in the baseline's run it is the
    38 short scenarios' share (here 1.25 s each)."""
    runs = [(10.0, "game one: 10 trials, 10.0 s"), (10.0, "game two: 10 trials, 10.0 s")]
    runs.append((1.25, "battle: 20,000 trials, 1.2 s"))
    said = _gate_said(clock, runs, expect=[8.0, 8.0] + [1.0] * 37 + [None])  # None: the mean
    assert "should take about" not in said, said  # 37 x 1.25 s: under a minute


def test_check_tells_the_bar_what_each_scenario_should_take():
    from simulator.gate.compare import expected_seconds
    from simulator.gate.store import ScenarioBaseline

    stored = ScenarioBaseline(
        file="a.yaml", procedure="his.field_battle", seed=1, trials=1000, inputs={}, entries=[],
        seconds=2.0,
    )  # fmt: skip
    assert expected_seconds(stored, 500) == 1.0
    assert expected_seconds(stored.model_copy(update={"seconds": None}), 500) is None
