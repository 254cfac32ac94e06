"""Sweeps: the grid of parameter values × variants, its files and plots, and bad sweep specs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.procedures.his.field_battle import METRICS, exact
from simulator.runner import run_scenario
from simulator.scenario import ScenarioError, load

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()

TABLE = """\
name: t-table
procedure: his.field_battle
trials: 4000
seed: 7
params:
  attacker: {leader: 0}
  defender: {leader: 0}
sweep:
  attacker.units: {from: 1, to: 3}
  defender.units: [1, 2]
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems(path: Path, force: bool = False) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(path, force=force)
    return [str(p) for p in info.value.problems]


def test_the_battle_table_is_every_attacker_size_against_every_defender_size():
    s = load(ROOT / "scenarios/his/battle_table.yaml")
    assert s.sweep == {"attacker.units": list(range(1, 11)), "defender.units": list(range(1, 11))}
    assert len(s.points) == 100
    # First path slowest, like reading a printed table row by row.
    assert s.points[0].values == {"attacker.units": 1, "defender.units": 1}
    assert s.points[1].values == {"attacker.units": 1, "defender.units": 2}
    p = s.points[34].variants["base"]
    assert (p.attacker.units, p.defender.units, p.defender_extra_dice) == (4, 5, 1)


def test_a_sweep_point_reads_the_same_random_streams_as_the_same_battle_run_alone(tmp_path):
    swept = run_scenario(load(write(tmp_path, TABLE)))
    alone = TABLE.replace("attacker: {leader: 0}", "attacker: {leader: 0, units: 3}")
    alone = alone.replace("defender: {leader: 0}", "defender: {leader: 0, units: 2}")
    alone = alone.split("sweep:")[0]
    single = run_scenario(load(write(tmp_path, alone, "alone.yaml")))
    point = next(p for p in swept.points if p.values == {"attacker.units": 3, "defender.units": 2})
    np.testing.assert_array_equal(point.outcome.stats, single.outcome.stats)


def test_every_point_of_the_battle_table_is_within_5_se_of_the_exact_odds(tmp_path):
    text = (ROOT / "scenarios/his/battle_table.yaml").read_text()
    result = run_scenario(load(write(tmp_path, text)), trials=20_000)
    assert result.complete and len(result.points) == 100
    for p, pt in zip(result.points, result.scenario.points, strict=True):
        want = exact(pt.variants["base"])["attacker_wins"]
        row = p.estimates.set_index("metric").loc["attacker_wins"]
        assert abs(row["mean"] - want) <= 5 * max(row["se"], 1e-4), pt.label()


def test_a_sweep_writes_the_long_table_as_csv_and_parquet_with_seed_and_params_on_every_row(
    tmp_path,
):
    path = write(tmp_path, TABLE)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "heatmap.png",
        "report.html",
        "summary.csv",
        "summary.json",
        "summary.parquet",
    ]
    csv = pd.read_csv(out / "summary.csv")
    parquet = pd.read_parquet(out / "summary.parquet")
    assert len(csv) == len(parquet) == 6 * METRICS.size  # points × metrics (one variant)
    assert list(csv.columns[:6]) == [
        "scenario",
        "procedure",
        "seed",
        "point",
        "attacker.units",
        "defender.units",
    ]
    assert (csv["seed"] == 7).all() and (parquet["seed"] == 7).all()
    row = parquet[(parquet["attacker.units"] == 3) & (parquet["defender.units"] == 2)].iloc[0]
    assert json.loads(row["params"])["attacker"] == {"units": 3, "leader": 0, "command": None}
    pd.testing.assert_frame_equal(csv, parquet, check_dtype=False)
    # The terminal shows the odds table: rows attacker units, columns defender units.
    assert "attacker.units \\ defender.units" in result.stdout
    assert "6 points × 4,000 trials" in result.stdout


def test_the_json_document_of_a_sweep_adds_the_sweep_and_its_points(tmp_path):
    path = write(tmp_path, TABLE)
    args = ["run", str(path), "--json", "--out", str(tmp_path / "o"), "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert set(doc) == {
        "scenario",
        "procedure",
        "seed",
        "trials",
        "variants",
        "versions",
        "sweep",
        "points",
    }
    assert doc["sweep"] == {"attacker.units": [1, 2, 3], "defender.units": [1, 2]}
    assert [p["values"] for p in doc["points"][:2]] == [
        {"attacker.units": 1, "defender.units": 1},
        {"attacker.units": 1, "defender.units": 2},
    ]
    last = doc["points"][-1]["variants"]["base"]
    assert last["params"]["attacker"]["units"] == 3
    assert set(last["metrics"]["attacker_wins"]) == {"mean", "se", "ci_low", "ci_high", "n"}
    # The top-level variants are the first point's.
    assert doc["variants"] == doc["points"][0]["variants"]


def test_one_swept_parameter_draws_a_line_per_variant_with_interval_bands(tmp_path):
    text = TABLE.replace("  defender.units: [1, 2]\n", "").replace(
        "defender: {leader: 0}", "defender: {leader: 0, units: 2}"
    )
    text += "variants:\n  attacker-ties: {ties_to: attacker}\n"
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(write(tmp_path, text)), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.stderr
    assert (out / "sweep.png").stat().st_size > 10_000
    assert "Differences from 'base' across the sweep" in result.stdout
    assert "attacker-ties" in result.stdout


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "  attacker.units: {from: 1, to: 3}",
            "  attacker.unit: {from: 1, to: 3}",
            ":9:3: sweep.attacker.unit: unknown parameter path; did you mean 'attacker.units'?",
        ),
        (
            "  attacker.units: {from: 1, to: 3}",
            "  attacker.units: {from: 5, to: 1}",
            ":9:19: sweep.attacker.units: empty range: from 5 to 1 by 1 gives no values "
            "(count down with a negative step)",
        ),
        (
            "  attacker.units: {from: 1, to: 3}",
            "  attacker.units: {from: 1, to: 3, step: 0}",
            ":9:42: sweep.attacker.units.step: must not be 0 (got 0)",
        ),
        (
            "  attacker.units: {from: 1, to: 3}",
            "  attacker.units: {from: 1, too: 3}",
            ":9:29: sweep.attacker.units.too: unknown key; did you mean 'to'?",
        ),
        (
            "  defender.units: [1, 2]",
            "  defender.units: []",
            ":10:19: sweep.defender.units: empty list of values; give at least one",
        ),
        (
            "  defender.units: [1, 2]",
            "  defender.units: [1, 99]",
            ":10:23: sweep.defender.units[1]: must be between 1 and 40 (got 99)",
        ),
        (
            "  defender.units: [1, 2]",
            "  defender.units: [1, 1]",
            ":10:23: sweep.defender.units[1]: duplicate value (got 1)",
        ),
        (
            "  attacker.units: {from: 1, to: 3}",
            "  attacker.units: {from: 1, to: 41}",
            ":9:19: sweep.attacker.units: must be between 1 and 40 (got 41)",
        ),
        (
            "  defender.units: [1, 2]",
            "  hit_on.x: [1, 2]",
            ":10:3: sweep.hit_on.x: hit_on is a single value, not a group of parameters",
        ),
        (
            "  defender.units: [1, 2]",
            "  defender.units: 3",
            ":10:19: sweep.defender.units: must be a list of values or a range",
        ),
    ],
)
def test_bad_sweeps_name_the_file_line_column_and_field(tmp_path, old, new, expected):
    path = write(tmp_path, TABLE.replace(old, new))
    found = problems(path)
    assert any(p.startswith(str(path)) and expected in p for p in found), found


def test_a_variant_cannot_set_a_swept_parameter(tmp_path):
    path = write(tmp_path, TABLE + "variants:\n  big: {attacker: {units: 9}}\n")
    found = problems(path)
    assert any(
        ":12:20: variants.big.attacker.units: is swept (sweep.attacker.units)" in p for p in found
    ), found


def test_a_check_tolerance_for_an_unknown_metric_suggests_the_closest(tmp_path):
    path = write(tmp_path, TABLE + "check:\n  attacker_win: 0.01\n")
    found = problems(path)
    assert any(
        ":12:3: check.attacker_win: unknown metric; did you mean 'attacker_wins'?" in p
        for p in found
    ), found
    path = write(tmp_path, TABLE + "check:\n  attacker_wins: -1\n", "neg.yaml")
    assert any(
        "check.attacker_wins" in p and "greater than or equal to 0" in p for p in problems(path)
    )


def test_a_grid_over_ten_thousand_points_needs_force(tmp_path):
    big = TABLE.replace("{from: 1, to: 3}", "{from: 1, to: 40}").replace(
        "defender.units: [1, 2]",
        "defender_extra_dice: {from: 0, to: 5}\n  hit_on: {from: 2, to: 6}\n  "
        "ties_to: [defender, attacker]\n  attacker.leader: [0, 1, 2, 3, 4, 5, 6]",
    )
    big = big.replace("defender: {leader: 0}", "defender: {leader: 0, units: 3}")
    path = write(tmp_path, big)  # 40 × 6 × 5 × 2 × 7 = 16,800 points
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert (
        f"{path}:8:1: sweep: grid of 16,800 points (40 × 6 × 5 × 2 × 7) is over the limit of "
        "10,000; use fewer values or pass --force"
    ) in result.stderr
    assert "Traceback" not in result.stderr
    result = runner.invoke(app, ["validate", str(path), "--force"])
    assert result.exit_code == 0, result.stderr
    assert "16,800 sweep points" in result.stdout


def test_a_problem_at_some_points_only_says_how_many(tmp_path):
    # hit_on is fine, but attacker leader 7 is out of range only where the sweep puts it.
    text = TABLE.replace("  defender.units: [1, 2]", "  attacker.leader: [6, 7]")
    text = text.replace("defender: {leader: 0}", "defender: {leader: 0, units: 2}")
    found = problems(write(tmp_path, text))
    assert any("sweep.attacker.leader[1]: must be between 0 and 6 (got 7)" in p for p in found)


def test_an_interrupted_sweep_writes_the_points_that_ran_marked_incomplete(
    tmp_path, ctrl_c_on_third_wait
):
    path = write(tmp_path, TABLE)
    out = tmp_path / "out"
    args = ["run", str(path), "--out", str(out), "-q", "--chunk-size", "1024", "--threads", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 130
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    assert 1 <= summary["points_run"] < summary["points_planned"] == 6
    assert summary["points"][-1]["complete"] is False
    assert "INCOMPLETE" in (out / "report.html").read_text()
