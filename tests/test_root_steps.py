"""Root battle's rolled-hits step replaced from a designer's Python file (issue 29 item 2).

The rulebook's step written by hand in docs/examples/rolled_hits.py plays the built-in battles
trial for trial (campaigns tallied by roll sequence and campaigns played trial by trial); a
designer's own rule equals the plain-Python twin with the same rule, trial for trial, and agrees
with its exact values and a hand value within 5 SE; a wrong signature, a line Numba cannot compile
and a missing file are refused with exit 2 at the designer's line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulator.cli import app
from simulator.engine import make_plan, run_range
from simulator.procedures import get
from simulator.rng import scenario_key
from simulator.scenario import load
from tests import naive_root
from tests.fold import fold
from tests.step_files import assert_plan_travels

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "own-rolled-hits.yaml"
FILE = ROOT / "docs" / "examples" / "rolled_hits.py"
PROC = get("root.battle")
runner = CliRunner()


def designer_module():
    spec = importlib.util.spec_from_file_location("designer_rolled_hits", FILE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def variants_of(**params):
    """The example's variants, with ``params`` changed in every one (a validated copy)."""
    scenario = load(EXAMPLE)
    out = {}
    for name, p in scenario.variants.items():
        raw = p.model_dump()
        raw.update(params)
        out[name] = PROC.params_model.model_validate(raw)
    return scenario.procedure, out


@pytest.mark.parametrize("battles", [3, 6], ids=["tallied", "trial-by-trial"])
def test_the_rulebook_by_hand_plays_the_built_in_battles_and_the_twin_the_house_rule(battles):
    procedure, variants = variants_of(battles=battles)
    assert procedure is not PROC  # the run's procedure knows the steps
    plan = make_plan(procedure, variants, seed=5)
    first, n = 1000, 400
    got = run_range(plan, -1, first, n)
    np.testing.assert_array_equal(got[0], got[1])  # by hand == built in, every statistic
    assert not np.array_equal(got[0], got[2])
    rule = designer_module().last_stand
    key = int(scenario_key(5))
    twin = []
    for p in variants.values():
        step = rule if p.rolled_hits and p.rolled_hits.endswith(":last_stand") else None
        twin.append(
            [naive_root.root_battle(p.model_dump(), key, t, step) for t in range(first, first + n)]
        )
    np.testing.assert_array_equal(got, fold(plan, twin))


def estimate(procedure, p, trials=40_000, seed=404):
    plan = make_plan(procedure, {"base": p}, seed)
    stats = run_range(plan, -1, 0, trials)[0]
    out = {}
    for m, metric in enumerate(plan.metrics):
        n, s, ss = (int(x) for x in stats[4 * m : 4 * m + 3])
        var = max((n * ss - s * s) / (n * (n - 1)), 0.0)
        out[metric.name] = (s / n, np.sqrt(var / n))
    return out


def test_the_house_rule_moves_the_attackers_losses_to_its_exact_and_hand_values():
    procedure, variants = variants_of(battles=1)
    house = variants["last-stand"]
    est = estimate(procedure, house)
    exact = procedure.exact(house)
    for name, value in exact.items():
        mean, se = est[name]
        assert abs(mean - value) <= 5 * se + 1e-12, (name, mean, value, se)
    # One battle, 3 Eyrie warriors: the defender deals max(low die, 1), E = 14/16 + P(low = 0).
    assert exact["attacker_warriors_lost"] == pytest.approx(21 / 16)
    assert PROC.exact(variants["base"])["attacker_warriors_lost"] == pytest.approx(14 / 16)
    mean, se = est["attacker_warriors_lost"]
    assert abs(mean - 21 / 16) <= 5 * se


def test_a_plan_with_a_step_travels_by_the_files_path_and_runs_the_same():
    assert_plan_travels(EXAMPLE, seed=9, trials=50)


def write(tmp_path: Path, source: str, ref: str) -> Path:
    (tmp_path / "mine.py").write_text(source, encoding="utf-8")
    head = EXAMPLE.read_text(encoding="utf-8").split("variants:")[0]
    path = tmp_path / "s.yaml"
    path.write_text(head + f'  rolled_hits: "{ref}"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("source", "ref", "said"),
    [
        (
            "def hits(roll, cap, attacking):\n    return 'all of them'\n",
            "mine.py:hits",
            "mine.py:2:",
        ),
        (
            "def hits(roll, cap):\n    return roll\n",
            "mine.py:hits",
            "mine.py:1:1: hits: takes (roll, cap); a rolled_hits step takes (roll, cap, attacking)",
        ),
        ("def hits(roll, cap, attacking):\n    return roll\n", "gone.py:hits", "gone.py"),
        ("def hits(roll, cap, attacking):\n    return roll\n", "mine.py:hit", "did you mean"),
    ],
    ids=["numba-cannot-compile", "wrong-signature", "missing-file", "missing-function"],
)
def test_a_step_that_cannot_run_is_refused_at_the_designers_line(tmp_path, source, ref, said):
    path = write(tmp_path, source, ref)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output


def test_a_run_with_steps_is_bit_identical_on_one_and_two_threads():
    from simulator.engine import simulate

    procedure, variants = variants_of(battles=6)  # played trial by trial, the step every battle
    plan = make_plan(procedure, variants, seed=11)
    one = simulate(plan, 30_000, threads=1).stats
    two = simulate(plan, 30_000, threads=2).stats
    np.testing.assert_array_equal(one, two)
