"""Issue 31: hostile input, round two — tournaments, tuning, baselines, outputs and messages.

One regression test (or more) per numbered case and per "Messages" item; the signal and
output faults are in tests/test_faults.py, the fuzzing of the new sections in
tests/test_fuzz_loaders.py. Every scenario here is cheap (a field battle, or a whole game that
is only validated, never run).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from simulator import stats
from simulator.scenario import ScenarioError, parse
from simulator.tune import parse_tune, run_tune
from simulator.tune import search as tune_search
from simulator.tune.report import answer, document
from tests.test_hostile_input import sim, write

ROOT = Path(__file__).resolve().parents[1]
FAIR_BATTLE = str(ROOT / "scenarios/his/fair_battle.yaml")
BATTLE = (
    "name: x\nprocedure: his.field_battle\ntrials: 2000\nseed: 1\n"
    "params:\n  attacker: {units: 4}\n  defender: {units: 4}\n"
)
LOYALTY = "name: x\nprocedure: recruitment.loyalty\ntrials: 20\nseed: 1\nparams:\n  players: 4\n"


def refused(monkeypatch, capsys, tmp_path, text: str, *expected: str, command: str = "validate"):
    """``sim COMMAND`` on ``text`` exits 2 with file:line:col and every ``expected`` part."""
    path = write(tmp_path, text)
    code, _out, err = sim(monkeypatch, capsys, command, path)
    assert code == 2, err
    assert err.startswith(f"{path}:") or err.startswith("sim:"), err
    for part in expected:
        assert part in err, err
    return err


# -- 1-11: wrong exit codes and silent acceptance ------------------------------------------------


def test_a_range_with_huge_bounds_is_refused_by_its_size(monkeypatch, capsys, tmp_path):
    sweep = BATTLE + "sweep: {hit_on: {from: -1.0e+308, to: 1.0e+308}}\n"
    refused(monkeypatch, capsys, tmp_path, sweep, ":8:17: sweep.hit_on: range of more than")
    tune = BATTLE + (
        "tune: {search: {hit_on: {from: 0, to: 1.0e+308, step: 1.0e-308}}, "
        "target: {attacker_wins: 0.5}}\n"
    )
    refused(monkeypatch, capsys, tmp_path, tune, "tune.search.hit_on: range of more than")


ASSAULT = """\
name: x
procedure: his.assault
trials: 1200
seed: 1
params:
  attacker: {units: 4, cavalry: 0, leader: 1, command: 8}
  defender: {units: 3, leader: none}
tune:
  search:
    attacker.units: [4, 3, 2, 1]
    attacker.cavalry: {from: 0, to: 4}
    defender_extra_dice: [0, 1]
  target: {space_falls: 0.5}
  budget: 200
"""


def test_tune_candidates_the_rules_forbid_are_skipped_never_run_and_never_pasted():
    scenario = parse(ASSAULT, "a.yaml")
    spec = parse_tune(scenario)
    # cavalry are some of the units: cavalry > units is outside the rules (4+3+2+1 = 10 of 20
    # cavalry values are allowed, per extra-dice value)
    assert spec.outside == 2 * (5 * 4 - 14)
    result = run_tune(scenario, threads=1)
    assert len(result.skipped) == spec.outside
    for c in result.candidates:
        assert c.values["attacker.cavalry"] <= c.values["attacker.units"]
    assert document(result)["outside_rules"]["count"] == spec.outside


def test_a_large_tune_space_is_checked_by_value_and_skips_the_rest_at_run_time(monkeypatch):
    monkeypatch.setattr("simulator.tune.spec.MAX_CHECKED_SPACE", 4)
    scenario = parse(ASSAULT.replace("budget: 200", "budget: 12"), "a.yaml")
    spec = parse_tune(scenario)
    assert spec.outside in (0, -1)  # too many to count: each value has a playable candidate
    result = run_tune(scenario, threads=1)  # Optuna: told that those outside failed
    assert result.method == "Optuna TPE" and result.complete and result.skipped
    assert result.best and all(
        c.values["attacker.cavalry"] <= c.values["attacker.units"] for c in result.candidates
    )


def test_a_searched_value_that_fits_no_candidate_is_refused(monkeypatch, capsys, tmp_path):
    text = BATTLE + "tune: {search: {attacker.units: {from: 4, to: 10}}, "
    text += "target: {attacker_wins: 0.5}}\n"
    refused(
        monkeypatch,
        capsys,
        tmp_path,
        text,
        "tune.search.attacker.units: 5, 6, 7, 8, 9, 10 fit no candidate",
        "without a leader it holds at most 4 units",
    )


def test_seatings_all_beyond_the_cap_is_refused_with_its_count(monkeypatch, capsys, tmp_path):
    text = LOYALTY.replace("players: 4", "players: 6") + (
        "  policies: random\ntournament:\n  seatings: all\n  agents: {a: random, b: random, "
        "c: random, d: random, e: random, f: random, g: random, h: random}\n"
    )
    refused(monkeypatch, capsys, tmp_path, text, "tournament.seatings:", "20,160 seatings", "720")


def test_sim_tune_refuses_trials_over_the_limit_like_sim_run(monkeypatch, capsys):
    code, _out, err = sim(monkeypatch, capsys, "tune", FAIR_BATTLE, "--trials", "1000000000001")
    assert code == 2 and "--trials 1,000,000,000,001 is not between 1 and" in err


def test_tune_with_a_sweep_it_would_ignore_is_refused(monkeypatch, capsys, tmp_path):
    text = BATTLE + "sweep: {defender.units: [1, 2]}\n"
    text += "tune: {search: {hit_on: [5, 6]}, target: {attacker_wins: 0.5}}\n"
    refused(monkeypatch, capsys, tmp_path, text, ":8:1: sweep:", "would ignore the sweep")


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        (
            "{attacker: [{units: 3}, {units: 4}], attacker.units: [2, 3]}",
            "tune.search.attacker.units: overlaps tune.search.attacker",
        ),
        ("{hit_on: [5], hit_on.1: [4]}", "hit_on is not a list"),
    ],
)
def test_overlapping_search_axes_are_refused(monkeypatch, capsys, tmp_path, search, expected):
    text = BATTLE + f"tune: {{search: {search}, target: {{attacker_wins: 0.5}}}}\n"
    refused(monkeypatch, capsys, tmp_path, text, expected)


def test_two_spellings_of_one_seat_entry_are_refused(monkeypatch, capsys, tmp_path):
    text = LOYALTY + (
        "  policies: random\n  seat_gold: [0, 0, 0, 0]\n"
        "tune:\n  search:\n    seat_gold.2: [0, 1]\n    seat_gold.02: [1, 2]\n"
        "  minimize: seat_spread\n"
    )
    refused(
        monkeypatch,
        capsys,
        tmp_path,
        text,
        ":12:5: tune.search.seat_gold.02: sets the same value as tune.search.seat_gold.2",
    )


@pytest.mark.parametrize("target", ["attacker_wins: 1.5", "attacker_wins: -0.2"])
def test_a_proportion_target_out_of_0_1_is_refused(monkeypatch, capsys, tmp_path, target):
    text = BATTLE + f"tune: {{search: {{hit_on: [5, 6]}}, target: {{{target}}}}}\n"
    refused(monkeypatch, capsys, tmp_path, text, "is a share between 0 and 1")


def test_a_seat_spread_target_over_1_is_refused(monkeypatch, capsys, tmp_path):
    text = LOYALTY + (
        "  policies: random\n  seat_gold: [0, 0, 0, 0]\n"
        "tune:\n  search: {seat_gold.2: [0, 1]}\n  target: {seat_spread: 2}\n"
    )
    refused(monkeypatch, capsys, tmp_path, text, "tune.target.seat_spread: is a share between")


def test_policies_in_a_variant_of_a_tournament_is_refused(monkeypatch, capsys, tmp_path):
    text = LOYALTY + (
        "  policies: random\ntournament:\n  agents: {random: random, greedy: greedy}\n"
        "variants:\n  strong: {policies: mcts}\n"
    )
    refused(monkeypatch, capsys, tmp_path, text, "variants.strong.policies:", "would be ignored")


def test_a_boolean_budget_is_no_budget(monkeypatch, capsys, tmp_path):
    text = LOYALTY + (
        "  policies: random\ntournament:\n  agents: {random: random, "
        "mcts: {agent: mcts, iterations: true}}\n"
    )
    refused(
        monkeypatch,
        capsys,
        tmp_path,
        text,
        "tournament.agents.mcts.iterations: Input should be a valid integer (got true)",
    )


def test_duplicate_hireling_names_and_council_traits_are_refused(monkeypatch, capsys, tmp_path):
    hirelings = (
        "name: x\nprocedure: root.hirelings\ntrials: 20\nseed: 1\n"
        "params:\n  hirelings: [{name: a}, {name: a}, {name: b}]\n"
    )
    refused(monkeypatch, capsys, tmp_path, hirelings, "hireling name 'a' is given twice")
    from simulator.procedures.council.game.params import Character

    with pytest.raises(ValueError, match="trait 'proud' is given twice"):
        Character(name="Edmar", traits=["proud", "proud"])


# -- 10 and the message on metric sets: a baseline that contradicts its scenario ------------------


@pytest.fixture
def baseline(tmp_path, monkeypatch, capsys):
    scenario = write(tmp_path, BATTLE.replace("trials: 2000", "trials: 500"), "battle.yaml")
    out = tmp_path / "baseline.json"
    code, _, err = sim(monkeypatch, capsys, "baseline", scenario, "--out", str(out))
    assert code == 0, err
    return Path(scenario), out


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data["scenarios"]["x"])
    path.write_text(json.dumps(data))


def _no_rerun(monkeypatch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("the trials were rerun before the baseline was refused")

    monkeypatch.setattr("simulator.gate.compare.run", refuse)


def test_a_baseline_on_another_seed_is_refused_before_the_rerun(baseline, monkeypatch, capsys):
    scenario, out = baseline
    _edit(out, lambda s: s.update(seed=999))
    _no_rerun(monkeypatch)
    code, _, err = sim(monkeypatch, capsys, "check", str(scenario), "--baseline", str(out))
    assert code == 2 and "has seed 999, the scenario 1" in err


def test_a_metric_stored_as_another_kind_is_refused(baseline, monkeypatch, capsys):
    scenario, out = baseline

    def to_mean(s):
        for e in s["entries"]:
            if e["metric"] == "attacker_wins":
                e["kind"] = "mean"

    _edit(out, to_mean)
    _no_rerun(monkeypatch)
    code, _, err = sim(monkeypatch, capsys, "check", str(scenario), "--baseline", str(out))
    assert code == 2 and "stores attacker_wins (base) as a mean" in err, err


def test_another_metric_set_is_refused_before_the_rerun(baseline, monkeypatch, capsys):
    scenario, out = baseline
    _edit(
        out,
        lambda s: s.update(entries=[e for e in s["entries"] if e["metric"] != "both_wiped_out"]),
    )
    _no_rerun(monkeypatch)
    code, _, err = sim(monkeypatch, capsys, "check", str(scenario), "--baseline", str(out))
    assert code == 2 and "the metrics reported differ from the baseline" in err
    assert "sim baseline SCENARIO --out BASELINE" in err  # not only `make baseline`


# -- 16-22: lost or mixed -------------------------------------------------------------------------


def test_an_interrupted_optuna_search_keeps_its_candidates_and_best(monkeypatch):
    scenario = parse(ASSAULT.replace("budget: 200", "budget: 30"), "a.yaml")
    calls = {"n": 0, "evaluated": 0}
    evaluate = tune_search._Runner.evaluate

    def interrupted_on_the_third(self, group, trials, rung):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        evaluate(self, group, trials, rung)
        calls["evaluated"] += len(group)

    monkeypatch.setattr(tune_search._Runner, "evaluate", interrupted_on_the_third)
    result = run_tune(scenario, threads=1)
    assert result.method == "Optuna TPE" and not result.complete
    assert calls["n"] == 3 and len(result.candidates) == calls["evaluated"] > 0
    doc = document(result)
    assert doc["best"] is not None and len(doc["candidates"]) == calls["evaluated"]


def test_sigterm_while_reporting_keeps_the_complete_run(monkeypatch, capsys, tmp_path):
    from simulator import interrupts
    from simulator.report import files as report

    # The signal this test sends is remembered; later tests of this process must not see it.
    monkeypatch.setattr(interrupts, "_received", [])

    write_reports = report.write_reports

    def terminated_midway(built, target):
        os.kill(os.getpid(), signal.SIGTERM)
        return write_reports(built, target)

    monkeypatch.setattr(report, "write_reports", terminated_midway)
    scenario = write(tmp_path, BATTLE)
    out = tmp_path / "out"
    code, _, err = sim(monkeypatch, capsys, "run", scenario, "--out", str(out))
    assert code == 143, err
    assert "the run had finished: its reports are written, complete" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary.get("complete", True) is True


def test_tune_and_run_of_one_scenario_write_separate_folders(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _, err = sim(monkeypatch, capsys, "tune", FAIR_BATTLE, "--trials", "2000", "-q")
    assert code == 0, err
    code, _, err = sim(monkeypatch, capsys, "run", FAIR_BATTLE, "--trials", "2000", "-q")
    assert code == 0, err
    tuned = sorted(p.name for p in (tmp_path / "reports/tune/his-fair-battle").iterdir())
    ran = sorted(p.name for p in (tmp_path / "reports/out/his-fair-battle").iterdir())
    assert "tune.json" in tuned and "summary.json" not in tuned
    assert "summary.json" in ran and "tune.json" not in ran


def test_outputs_never_overwrite_inputs_or_each_other(monkeypatch, capsys, tmp_path, baseline):
    scenario, base = baseline
    before = scenario.read_text()
    link = tmp_path / "link.yaml"
    link.symlink_to(scenario)
    cases = [
        (("run", str(scenario), "--markdown", str(scenario)), "would overwrite scenario"),
        (("run", str(scenario), "--markdown", str(link)), "would overwrite scenario"),
        (("run", str(scenario), "--out", str(tmp_path)), "is inside the report folder"),
        (("baseline", str(scenario), "--out", str(scenario)), "would overwrite scenario"),
        (
            ("check", str(scenario), "--baseline", str(base), "--junit", str(base)),
            "--junit",
        ),
        (
            ("check", str(scenario), "--baseline", str(base), "--junit", "x", "--markdown", "x"),
            "--markdown x is also --junit",
        ),
    ]
    for args, expected in cases:
        code, _, err = sim(monkeypatch, capsys, *args)
        assert code == 2 and expected in err, (args, err)
    assert scenario.read_text() == before
    assert json.loads(base.read_text())["format"] == "sim-baseline/2"


def test_sim_baseline_into_an_existing_file_keeps_the_other_scenarios(
    baseline, monkeypatch, capsys, tmp_path
):
    _scenario, out = baseline
    other = write(tmp_path, BATTLE.replace("name: x", "name: y").replace("2000", "300"), "y.yaml")
    code, text, err = sim(monkeypatch, capsys, "baseline", other, "--out", str(out))
    assert code == 0, err
    assert "1 scenario(s) updated" in text and "the entries of 1 other(s) kept" in text
    assert sorted(json.loads(out.read_text())["scenarios"]) == ["x", "y"]
    out.write_text("{}")
    code, _, err = sim(monkeypatch, capsys, "baseline", other, "--out", str(out))
    assert code == 2 and "remove it first" in err
    assert out.read_text() == "{}"


def test_the_docs_say_what_a_run_does_to_files_added_to_its_folder():
    text = (ROOT / "docs/reliability.md").read_text()
    assert "files you add" in text.lower()


# -- Messages -------------------------------------------------------------------------------------


def test_an_unquoted_revision_is_told_to_be_quoted(monkeypatch, capsys, tmp_path):
    text = LOYALTY + "  revision: 1.1\n"
    refused(monkeypatch, capsys, tmp_path, text, "params.revision:", "write '1.1' in quotes")


def test_agent_names_get_a_did_you_mean(monkeypatch, capsys, tmp_path):
    text = LOYALTY + "  policies: [greddy, MCTS, random, random]\n"
    err = refused(monkeypatch, capsys, tmp_path, text)
    assert "params.policies[0]:" in err and "did you mean 'greedy'?" in err
    assert "params.policies[1]:" in err and "did you mean 'mcts'?" in err


def test_an_error_a_variant_causes_names_the_variant_and_its_line(monkeypatch, capsys, tmp_path):
    text = (
        LOYALTY
        + "  policies: random\n  seat_gold: [0, 1, 2, 0]\nvariants:\n  three: {players: 3}\n"
    )
    err = refused(monkeypatch, capsys, tmp_path, text, ":10:3: variants.three: params.seat_gold")
    assert err.count("got") == 1, err  # "(got 4)" once, not again with the list


def test_no_message_shows_an_internal_union_segment(monkeypatch, capsys, tmp_path):
    text = LOYALTY + "  policies: random\ntournament:\n  agents: {a: random, b: {agent: rollot}}\n"
    err = refused(monkeypatch, capsys, tmp_path, text, "tournament.agents.b.agent:")
    assert ".spec." not in err and "did you mean 'rollout'?" in err


def test_a_seat_entry_is_named_1_based_in_tune_messages(monkeypatch, capsys, tmp_path):
    text = LOYALTY + (
        "  policies: random\n  seat_gold: [0, 0, 0, 0]\n"
        "tune:\n  search: {seat_gold.2: [0, 1.5]}\n  minimize: seat_spread\n"
    )
    err = refused(monkeypatch, capsys, tmp_path, text, "1.5 fits no candidate", "seat_gold.2:")
    assert "seat_gold.1" not in err


def test_sim_list_names_types_not_functions(monkeypatch, capsys):
    code, out, _ = sim(monkeypatch, capsys, "list", "recruitment.loyalty")
    assert code == 0 and "<function" not in out and "agent |" in out


def test_a_very_long_variant_name_is_refused(monkeypatch, capsys, tmp_path):
    text = BATTLE + f"variants:\n  {'v' * 400}: {{hit_on: 4}}\n"
    refused(monkeypatch, capsys, tmp_path, text, "is 400 characters; at most 60")


# -- issue 26 item 7: sim tune honest at the edges -----------------------------------------------


def _tune_text(search: str, goal: str) -> str:
    return (
        BATTLE.replace("trials: 2000", "trials: 20000") + f"tune:\n  search: {search}\n  {goal}\n"
    )


def test_when_todays_values_are_among_the_best_nothing_is_pasted(monkeypatch, capsys, tmp_path):
    # defender_extra_dice 1 is today's value (the rules'), and the fewest defender hits of 1, 2
    text = _tune_text("{defender_extra_dice: [1, 2]}", "minimize: defender_hits")
    code, out, err = sim(
        monkeypatch, capsys, "tune", write(tmp_path, text), "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert "the current values are among the best: nothing to change" in out
    assert "would go unseen at 20,000 trials" in out
    assert "Paste into the scenario" not in out
    doc = json.loads((tmp_path / "o/tune.json").read_text())
    assert doc["answer"] == "current" and doc["paste"] is None


def test_a_constant_objective_is_said_with_a_warning_and_exit_0(monkeypatch, capsys, tmp_path):
    # Without leaders no leader is ever captured: 0 for every candidate.
    text = _tune_text("{defender_extra_dice: [1, 2]}", "minimize: attacker_leader_captured")
    code, out, err = sim(
        monkeypatch, capsys, "tune", write(tmp_path, text), "--out", str(tmp_path / "o")
    )
    assert code == 0
    assert "warning: the objective is constant" in err
    assert "Paste into the scenario" not in out


def test_a_real_improvement_is_still_pasted():
    scenario = parse(
        _tune_text("{defender_extra_dice: [0, 1, 2]}", "target: {attacker_wins: 0.5}"), "t.yaml"
    )
    result = run_tune(scenario, threads=1)
    assert answer(result).paste and result.best[0].values == {"defender_extra_dice": 0}


def test_the_smallest_detectable_effect_is_detected_4_times_in_5():
    """A true difference of that size, measured with that standard error, is significant at 5%
    in 80% of runs (simulated: 20,000 runs, so within ±1.5 points at 5 standard errors)."""
    se = 0.013
    effect = stats.smallest_detectable(se)
    rng = np.random.default_rng(31)
    measured = rng.normal(effect, se, 20_000)
    detected = np.mean(np.abs(measured / se) > stats.Z95)
    assert abs(detected - 0.80) < 0.015
    assert stats.smallest_detectable(se, power=0.5) == pytest.approx(stats.Z95 * se)


def test_parse_errors_are_scenario_errors():
    with pytest.raises(ScenarioError):
        parse(BATTLE + "variants:\n  base: {}\n", "t.yaml")


# -- 13-15: unbounded or silent -------------------------------------------------------------------


def test_a_thousand_variants_are_refused_with_the_count(monkeypatch, capsys, tmp_path):
    variants = "".join(f"  v{k}: {{hit_on: {4 + k % 2}}}\n" for k in range(1000))
    text = BATTLE + "variants:\n" + variants
    refused(monkeypatch, capsys, tmp_path, text, "variants: 1,000 variants, over the limit of 100")


def test_the_tune_status_line_estimates_the_time_left(monkeypatch):
    from rich.console import Console

    from simulator.commands.tune import TuneStatus

    shown = []
    status = TuneStatus(True, Console())
    monkeypatch.setattr(
        status, "status", type("S", (), {"update": lambda _s, t: shown.append(t)})()
    )
    clock = iter([100.0, 100.0, 130.0])
    monkeypatch.setattr("simulator.commands.tune.time.monotonic", lambda: next(clock))
    status.stage, status.started = "", 0.0
    status("search", 0, 10_000, "")
    status("search", 1_000, 10_000, "x=1 (0.1)")
    assert "about 4 min left in this stage" in shown[-1]


def test_a_refused_dask_connection_is_said_at_once_with_its_reason():
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    import socket
    import time

    from simulator.dask_backend import BackendError, check_scheduler

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(BackendError, match=r"Connection refused .nothing listens there."):
        check_scheduler(f"tcp://127.0.0.1:{port}", timeout=30)
    assert time.monotonic() - t0 < 5


def test_a_cluster_whose_workers_all_died_is_a_clean_error_not_a_silent_wait(monkeypatch):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    from concurrent.futures import ThreadPoolExecutor

    from simulator import dask_backend

    class Gone:
        scheduler = type("S", (), {"address": "tcp://10.0.0.1:8786"})()

        def get_executor(self, pure):
            return ThreadPoolExecutor(1)

        def scheduler_info(self):
            return {"workers": {}}

    backend = dask_backend.DaskBackend(Gone(), timeout=30)
    clock = iter([1000.0, 1010.0, 1031.0])
    monkeypatch.setattr(dask_backend.time, "monotonic", lambda: next(clock))
    backend.check()
    backend.check()
    with pytest.raises(dask_backend.BackendError, match=r"every Dask worker .* has gone"):
        backend.check()


def test_the_progress_bar_estimates_time_left_when_deals_take_a_minute_each():
    """Issue 31 case 12: the shipped ladder's estimate read -:--:-- at 32/500 (rich estimates
    the speed from the last 30 s by default, and a deal took longer)."""
    from rich.console import Console

    from simulator.commands.common import Progress

    progress = Progress(True, "ladder", Console(force_terminal=True, width=80))
    progress.start -= 1.0  # past the 0.8 s before a bar shows
    clock = [0.0]
    progress(0, 500)
    progress.bar.get_time = lambda: clock[0]
    for done in range(1, 33):
        clock[0] += 60.0
        progress(done, 500)
    left = progress.bar.tasks[0].time_remaining
    progress.close()
    assert left is not None and 27_000 < left < 29_000  # 468 deals at a minute each


def test_the_current_folder_may_hold_the_scenario_it_is_never_replaced(
    monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    scenario = write(tmp_path, BATTLE)
    code, _, err = sim(monkeypatch, capsys, "run", scenario, "--out", ".", "-q")
    assert code == 0, err
    assert Path(scenario).read_text() == BATTLE and (tmp_path / "summary.json").exists()
