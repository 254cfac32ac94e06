"""The `sim` command: the JSON contract, report files, help text and README coverage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulator.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))
runner = CliRunner()


def skip_unless_registered(path: Path) -> None:
    """Skip a scenario whose procedure is on another branch not merged yet (e.g. issue 3's)."""
    from simulator import procedures

    match = re.search(r"^procedure:\s*(\S+)", path.read_text(), re.MULTILINE)
    if match and match.group(1) not in procedures.names():
        pytest.skip(f"procedure {match.group(1)} is not registered on this branch yet")


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_run_json_prints_the_documented_document(tmp_path):
    result = invoke(
        "run",
        "scenarios/his/field_battle.yaml",
        "--json",
        "--trials",
        "20000",
        "--out",
        str(tmp_path),
        "-q",
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) == {"scenario", "procedure", "seed", "trials", "variants", "versions"}
    assert doc["scenario"] == "his-field-battle-4v3"
    assert doc["procedure"] == "his.field_battle"
    assert (doc["seed"], doc["trials"]) == (1517, 20000)
    base = doc["variants"]["base"]
    assert base["params"]["attacker"] == {"units": 4, "leader": 2, "command": 10}
    wins = base["metrics"]["attacker_wins"]
    assert set(wins) == {"mean", "se", "ci_low", "ci_high", "n"}
    assert wins["ci_low"] < wins["mean"] < wins["ci_high"] and wins["n"] == 20000
    assert {"numpy", "numba", "simulator", "python"} <= set(doc["versions"])


def test_run_writes_every_report_and_no_temporary_file_and_marks_them_complete(tmp_path):
    result = invoke(
        "run",
        "scenarios/his/defender_bonus.yaml",
        "--trials",
        "20000",
        "--out",
        str(tmp_path),
        "-q",
    )
    assert result.exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "distributions.png",
        "forest.png",
        "report.html",
        "summary.csv",
        "summary.json",
        "variants.png",
    ]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] is True
    assert {c["metric"] for c in summary["comparisons"]} >= {"attacker_wins"}
    csv = (tmp_path / "summary.csv").read_text().splitlines()
    assert csv[0].startswith("scenario,procedure,seed,variant,metric")
    assert all(",1517," in row for row in csv[1:])
    assert "Verdict" in result.stdout  # the summary; the full tables with --detail


def test_an_interrupted_run_writes_partial_reports_and_exits_130(tmp_path, ctrl_c_on_third_wait):
    result = invoke(
        "run",
        "scenarios/his/field_battle.yaml",
        "--trials",
        "10000000",
        "--chunk-size",
        "100000",
        "--threads",
        "1",
        "--out",
        str(tmp_path),
        "-q",
    )
    assert result.exit_code == 130
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["complete"] is False
    assert 0 < summary["trials"] < 10_000_000
    assert "interrupted" in result.stderr


def test_exact_prints_exact_values_beside_estimates():
    result = invoke("exact", "scenarios/his/field_battle.yaml", "--trials", "20000")
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if "attacker_wins" in line)
    assert "0.5413" in row  # the exact value, 0.54133...


def test_list_shows_parameters_ranges_defaults_and_metrics():
    result = invoke("list")
    assert result.exit_code == 0
    for text in (
        "his.field_battle",
        "attacker.units",
        "1..40",
        "defender_extra_dice",
        "attacker_leader_captured",
    ):
        assert text in result.stdout


def test_schema_matches_the_committed_schema():
    result = invoke("schema")
    assert result.exit_code == 0
    committed = (ROOT / "reports" / "schema.json").read_text()
    assert json.loads(result.stdout) == json.loads(committed), "run `make schema` and commit"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_scenario_runs_with_a_small_trial_count(path, tmp_path):
    skip_unless_registered(path)
    from simulator.gate.settings import settings_of
    from simulator.scenario import load

    # Search agents cost seconds a game: a scenario whose gate plays only a few games (a ladder
    # of deals, revisions played by rollout) runs two here, every entrant in every seat of each
    # deal; `make gate` plays all its gate's games in CI.
    scenario = load(path)
    gate = settings_of(scenario.check, [])
    trials = 2 if gate.trials and gate.trials < 100 else min(2000, gate.trials or 2000)
    # Robustness reruns are tested on their own (tests/test_robustness.py).
    result = invoke(
        "run",
        str(path),
        "--trials",
        str(trials),
        "--out",
        str(tmp_path),
        "-q",
        "--json",
        "--robustness",
        "none",
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["trials"] == trials


def _commands():
    import typer.main

    group = typer.main.get_command(app)
    return group.commands  # type: ignore[attr-defined]


def test_every_command_has_help_text_and_appears_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for name, command in _commands().items():
        assert command.help, f"`sim {name}` has no help text"
        assert re.search(rf"`sim {name}\b", readme), f"`sim {name}` is missing from README.md"
        result = invoke(name, "--help")
        assert result.exit_code == 0


def test_every_procedure_has_a_scenario_and_a_readme_row():
    from simulator import procedures

    readme = (ROOT / "README.md").read_text()
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([a-z_.]+)` \|[^|]*\|([^\n]*)\|$", readme, re.M)}
    for name in procedures.names():
        assert name in rows, f"{name} missing from the README's procedure table"
        files = {
            str(p.relative_to(ROOT))
            for p in SCENARIOS
            if re.search(rf"^procedure: {re.escape(name)}$", p.read_text(), re.M)
        }
        assert files, f"no scenario for {name}"
        listed = set(re.findall(r"`(scenarios/[^`]+\.yaml)`", rows[name]))
        assert listed == files, f"README row of {name}: lists {sorted(listed)}, has {sorted(files)}"
