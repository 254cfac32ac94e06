"""The regression gate: `sim baseline` stores counts, `sim check` reruns and flags what moved."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator import procedures
from simulator.baseline import check, read
from simulator.cli import app
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()

BATTLE = """\
name: gate-battle
procedure: his.field_battle
trials: 20000
seed: 11
params:
  attacker: {units: 4, leader: 2}
  defender: {units: 3, leader: 0}
variants:
  no-defender-bonus: {defender_extra_dice: 0}
"""

TABLE = """\
name: gate-table
procedure: his.field_battle
trials: 5000
seed: 12
params:
  attacker: {leader: 0}
  defender: {leader: 0}
sweep:
  attacker.units: [2, 4]
  defender.units: [1, 3]
"""


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), catch_exceptions=False, env=env)


@pytest.fixture
def gate(tmp_path):
    """Two scenarios (one with variants, one with a sweep) and a baseline written for them."""
    battle = tmp_path / "battle.yaml"
    battle.write_text(BATTLE)
    table = tmp_path / "table.yaml"
    table.write_text(TABLE)
    base = tmp_path / "baseline.json"
    result = invoke("baseline", str(battle), str(table), "--out", str(base))
    assert result.exit_code == 0, result.stderr
    return battle, table, base


def test_the_baseline_stores_estimate_se_counts_sums_seed_and_version(gate):
    _battle, _table, base = gate
    stored = read(base)
    assert stored.simulator and stored.versions["numpy"]
    b = stored.scenarios["gate-battle"]
    assert (b.procedure, b.seed, b.trials) == ("his.field_battle", 11, 20000)
    wins = next(e for e in b.entries if e.variant == "base" and e.metric == "attacker_wins")
    assert wins.n == 20000 and wins.sum == round(wins.estimate * 20000)
    assert wins.se > 0 and wins.sum_sq == wins.sum  # 0/1 values
    t = stored.scenarios["gate-table"]
    assert len(t.entries) == 4 * 8  # points × field-battle metrics
    assert {json.dumps(e.point, sort_keys=True) for e in t.entries} == {
        json.dumps({"attacker.units": a, "defender.units": d}, sort_keys=True)
        for a in (2, 4)
        for d in (1, 3)
    }


def test_an_unchanged_rerun_passes_with_bit_identical_numbers(gate):
    battle, table, base = gate
    result = check([load(battle), load(table)], base)
    assert result.ok
    assert (result.table["before"] == result.table["after"]).all()
    assert (result.table["p_value"] == 1.0).all()
    cli = invoke("check", str(battle), str(table), "--baseline", str(base))
    assert cli.exit_code == 0, cli.stdout + cli.stderr
    assert "no drift: 48 metrics in 2 scenario(s)" in cli.stdout


@pytest.fixture
def changed_rule(monkeypatch):
    """A code change to the field battle: hits on 4+ instead of 5+, whatever the params say."""
    real_get = procedures.get
    real = real_get("his.field_battle")

    def pack(p):
        return real.pack(p.model_copy(update={"hit_on": 4}))

    changed = dataclasses.replace(real, pack=pack)
    monkeypatch.setattr(
        procedures, "get", lambda name: changed if name == "his.field_battle" else real_get(name)
    )


def test_a_changed_rule_in_code_is_flagged_with_exit_3_and_what_moved(gate, changed_rule, tmp_path):
    battle, table, base = gate
    junit = tmp_path / "junit.xml"
    md = tmp_path / "summary.md"
    result = invoke(
        "check",
        str(battle),
        str(table),
        "--baseline",
        str(base),
        "--junit",
        str(junit),
        "--markdown",
        str(md),
        env={"GITHUB_ACTIONS": "true"},
    )
    assert result.exit_code == 3
    assert "Drift against" in result.stdout
    row = next(line for line in result.stdout.splitlines() if "attacker_hits" in line)
    assert "gate-battle" in row and "significant" in row
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert errors and all("title=balance drift%3A gate-" in e for e in errors)
    assert any(f"file={battle}".replace(",", "%2C").replace(":", "%3A") in e for e in errors)
    suites = ET.parse(junit).getroot()
    assert int(suites.get("tests")) == 48
    failures = suites.findall(".//failure")
    assert 0 < len(failures) == int(suites.get("failures"))
    assert any("attacker_hits moved" in f.get("message") for f in failures)
    text = md.read_text()
    assert "metrics drifted" in text and "| gate-battle |" in text


def test_a_params_edit_in_a_copy_of_the_scenario_is_refused_as_another_scenario(gate):
    battle, _table, base = gate
    battle.write_text(BATTLE.replace("units: 3, leader: 0", "units: 2, leader: 0"))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "was written for other inputs: params.defender.units: 3 → 2" in result.stderr
    assert "make baseline" in result.stderr


def test_a_changed_variant_is_refused_as_another_scenario(gate):
    battle, _table, base = gate
    battle.write_text(BATTLE.replace("defender_extra_dice: 0", "defender_extra_dice: 2"))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "variants.no-defender-bonus.defender_extra_dice: 0 → 2" in result.stderr


def test_noise_from_a_different_trial_count_passes_but_not_a_zero_tolerance(gate):
    battle, _table, base = gate
    result = invoke("check", str(battle), "--baseline", str(base), "--trials", "30000")
    assert result.exit_code == 0, result.stdout
    battle.write_text(BATTLE + "check:\n  attacker_wins: 0.0\n")
    # check: is not part of what the numbers are for, so the baseline still applies.
    result = invoke("check", str(battle), "--baseline", str(base), "--trials", "30000")
    assert result.exit_code == 3
    assert "beyond tolerance 0" in result.stdout
    moved = [line for line in result.stdout.splitlines() if "gate-battle" in line]
    assert moved and all("attacker_wins" in line for line in moved)


def test_holm_runs_across_all_metrics_of_all_scenarios(gate):
    battle, table, base = gate
    result = check([load(battle), load(table)], base, trials=30000, alpha=0.05)
    t = result.table
    assert len(t) == 48
    assert (t["p_holm"] >= t["p_value"] - 1e-15).all()
    smallest = t["p_value"].min()
    assert t.loc[t["p_value"].idxmin(), "p_holm"] == pytest.approx(min(1.0, 48 * smallest))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline file"),
        ("{not json", ":1:2: not valid JSON"),
        ('{"format": "something-else"}', "not a sim baseline"),
        ("[1, 2]", "not a sim baseline"),
        ('{"format": "sim-baseline/1", "scenarios": {}}', "corrupt baseline at created"),
    ],
)
def test_a_missing_or_corrupt_baseline_is_exit_2_never_a_pass(gate, tmp_path, content, message):
    battle, _, _ = gate
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = invoke("check", str(battle), "--baseline", str(path))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_baseline_for_another_scenario_or_procedure_is_exit_2(gate, tmp_path):
    battle, _table, base = gate
    other = tmp_path / "other.yaml"
    other.write_text(BATTLE.replace("name: gate-battle", "name: gate-other"))
    result = invoke("check", str(other), "--baseline", str(base))
    assert result.exit_code == 2
    assert "no baseline for scenario 'gate-other'" in result.stderr
    data = json.loads(base.read_text())
    data["scenarios"]["gate-battle"]["procedure"] = "his.assault"
    base.write_text(json.dumps(data))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "written for procedure 'his.assault'" in result.stderr


def test_a_metric_missing_from_the_baseline_is_exit_2(gate):
    battle, _table, base = gate
    data = json.loads(base.read_text())
    entries = data["scenarios"]["gate-battle"]["entries"]
    data["scenarios"]["gate-battle"]["entries"] = [
        e for e in entries if e["metric"] != "attacker_hits"
    ]
    base.write_text(json.dumps(data))
    result = invoke("check", str(battle), "--baseline", str(base))
    assert result.exit_code == 2
    assert "the metrics reported differ from the baseline" in result.stderr


def test_two_scenarios_with_one_name_cannot_share_a_baseline(tmp_path):
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text(BATTLE)
    b.write_text(BATTLE.replace("seed: 11", "seed: 12"))
    result = invoke("baseline", str(a), str(b), "--out", str(tmp_path / "x.json"))
    assert result.exit_code == 2
    assert "are both named 'gate-battle'" in result.stderr


def _registered(path: Path) -> bool:
    match = re.search(r"^procedure:\s*(\S+)", path.read_text(), re.MULTILINE)
    return bool(match) and match.group(1) in procedures.names()


def test_the_committed_baseline_passes_for_every_committed_scenario():
    """What `.ci/run` does: the committed baseline matches the committed code and scenarios."""
    base = ROOT / "reports" / "baseline.json"
    stored = read(base)
    scenarios = [p for p in sorted((ROOT / "scenarios").rglob("*.yaml")) if _registered(p)]
    loaded = [load(p) for p in scenarios]
    missing = [s.path for s in loaded if s.name not in stored.scenarios]
    assert not missing, f"not in reports/baseline.json: {missing}; run `make baseline`"
    result = check(loaded, base)
    assert result.ok, result.drifted.to_string()


def test_ci_runs_the_tests_then_the_gate_with_the_trial_count_of_make_baseline():
    ci = (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert ci.index("make test") < ci.index("make gate")
    assert "apt-get install -y -qq chromium" in ci
    baseline_rule = re.search(r"^baseline:.*\n\t(.+)$", makefile, re.MULTILINE).group(1)
    gate_rule = re.search(r"^gate:.*\n\t(.+)$", makefile, re.MULTILINE).group(1)
    assert "--trials $(GATE_TRIALS)" in baseline_rule and "--trials $(GATE_TRIALS)" in gate_rule
    assert "sim check $(GATE_SCENARIOS) --baseline reports/baseline.json" in gate_rule
    trials = int(re.search(r"^GATE_TRIALS \?= (\d+)$", makefile, re.MULTILINE).group(1))
    stored = read(ROOT / "reports" / "baseline.json")
    assert {s.trials for s in stored.scenarios.values()} == {trials}
