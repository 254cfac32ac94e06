"""`sim compare`: revisions kept as separate files, run as the variants of one run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.compare import CompareError, combine, run_compare
from simulator.runner import run_scenario
from simulator.scenario import load

ROOT = Path(__file__).resolve().parents[1]
RULES_10 = ROOT / "scenarios" / "recruitment" / "rules-1.0.yaml"
RULES_11 = ROOT / "scenarios" / "recruitment" / "rules-1.1.yaml"
TRIALS = 500
runner = CliRunner()


def single_file(tmp_path: Path) -> Path:
    """rules-1.0.yaml with rules-1.1 as a variant: the scenario `sim compare` must equal."""
    path = tmp_path / "both.yaml"
    path.write_text(
        RULES_10.read_text() + 'variants:\n  rules-1.1: {revision: "1.1"}\n', encoding="utf-8"
    )
    return path


def _renamed(df: pd.DataFrame) -> pd.DataFrame:
    names = {"base": "rules-1.0"}
    out = df.copy()
    for col in ("variant", "baseline"):
        if col in out.columns:
            out[col] = out[col].replace(names)
    return out


def test_the_example_files_differ_only_in_the_revision():
    a, b = load(RULES_10), load(RULES_11)
    assert (a.seed, a.trials, a.procedure.name) == (b.seed, b.trials, b.procedure.name)
    pa, pb = a.variants["base"].model_dump(), b.variants["base"].model_dump()
    assert {k for k in pa if pa[k] != pb[k]} == {"revision"}


def test_compare_of_two_files_equals_the_single_file_with_the_second_as_a_variant(tmp_path):
    compared, notes = run_compare([RULES_10, RULES_11], trials=TRIALS, chunk_size=128)
    single = run_scenario(single_file(tmp_path), trials=TRIALS, chunk_size=200, threads=1)
    assert notes == []
    assert compared.plan.variant_names == ("rules-1.0", "rules-1.1")
    assert compared.outcome.stats.dtype == single.outcome.stats.dtype
    assert np.array_equal(compared.outcome.stats, single.outcome.stats)
    pd.testing.assert_frame_equal(compared.estimates, _renamed(single.estimates), check_exact=True)
    pd.testing.assert_frame_equal(
        compared.comparisons, _renamed(single.comparisons), check_exact=True
    )


def test_compare_prints_the_summary_and_writes_the_reports(tmp_path):
    out = tmp_path / "out"
    md = tmp_path / "pr.md"
    args = ["compare", str(RULES_10), str(RULES_11), "--trials", str(TRIALS), "-q"]
    result = runner.invoke(app, [*args, "--out", str(out), "--markdown", str(md)])
    assert result.exit_code == 0, result.stderr
    assert "rules-1.0-vs-rules-1.1" in result.stdout
    # Greedy never ties two rivals above an owner: the verdict says 1.1's case never arose.
    text = " ".join(result.stdout.split())
    assert "Verdict" in text and "rules-1.1 vs rules-1.0: the cases where revision differs" in text
    doc = json.loads((out / "summary.json").read_text())
    assert doc["scenario"] == "rules-1.0-vs-rules-1.1"
    assert list(doc["variants"]) == ["rules-1.0", "rules-1.1"]
    assert doc["verdict"]
    assert all(f"- {line}" in md.read_text() for line in doc["verdict"])
    assert (out / "report.html").exists() and (out / "forest.png").exists()


def _invalid(*args: str) -> str:
    result = runner.invoke(app, ["compare", *args, "-q", "--trials", "10"])
    assert result.exit_code == 2, result.stdout
    return result.stderr


def test_files_of_different_procedures_are_refused_with_the_reason():
    text = _invalid(str(RULES_10), "scenarios/council/game.yaml")
    assert "procedure 'council.game' differs from" in text
    assert "only files of one procedure can be compared" in text


def test_files_with_different_metric_sets_are_refused_with_the_reason(tmp_path):
    three = tmp_path / "three.yaml"
    text = RULES_11.read_text().replace("players: 4", "players: 3")
    three.write_text(text.replace("high: 4}", "high: 3}"), encoding="utf-8")
    text = _invalid(str(RULES_10), str(three))
    assert "reports other metrics than" in text
    assert "it lacks" in text and "wins.seat4" in text


def test_a_sweep_one_file_or_one_name_twice_is_refused(tmp_path):
    swept = tmp_path / "swept.yaml"
    swept.write_text(
        RULES_11.read_text().replace("name: rules-1.1", "name: swept")
        + "sweep:\n  rounds: [8, 10]\n",
        encoding="utf-8",
    )
    assert "has a sweep" in _invalid(str(RULES_10), str(swept))
    assert "at least two scenario files" in _invalid(str(RULES_10))
    assert "is used twice" in _invalid(str(RULES_10), str(RULES_10))


def test_an_invalid_file_is_reported_with_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(RULES_11.read_text().replace("rounds: 10", "rounds: -1"), encoding="utf-8")
    text = _invalid(str(RULES_10), str(bad))
    assert f"{bad}:" in text and "params.rounds" in text


def test_the_first_files_seed_and_trials_hold_and_a_note_says_so(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text(
        RULES_11.read_text().replace("seed: 7301", "seed: 5").replace("trials: 20000", "trials: 9"),
        encoding="utf-8",
    )
    combined, notes = combine([load(RULES_10), load(other)])
    assert combined.seed == 7301 and combined.trials == 20000
    assert notes == [
        f"{other}: seed 5 ignored; every file runs on {RULES_10}'s seed",
        f"{other}: trials 9 ignored; every file runs 20,000 trials",
    ]
    with pytest.raises(CompareError):
        combine([load(RULES_10)])


def test_a_files_own_variants_follow_it_by_name(tmp_path):
    both = tmp_path / "both.yaml"
    both.write_text(
        single_file(tmp_path).read_text().replace("name: rules-1.0", "name: both"),
        encoding="utf-8",
    )
    combined, _ = combine([load(RULES_10), load(both)])
    assert list(combined.variants) == ["rules-1.0", "both", "both:rules-1.1"]
    assert combined.name == "rules-1.0-vs-both"
