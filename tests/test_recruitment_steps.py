"""Recruitment's ownership check replaced from a designer's Python file (issue 29 item 2).

Revision 1.1 written by hand in docs/examples/ownership.py plays the built-in 1.1's games trial for
trial, a designer's own rule equals the plain-Python twin with the same rule, and a file Numba
cannot compile, a wrong signature or a missing file is refused with exit 2 at the designer's line.
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
from tests import naive_recruitment as nr
from tests.fold import fold
from tests.step_files import assert_plan_travels

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "own-ownership.yaml"
FILE = ROOT / "docs" / "examples" / "ownership.py"
PROC = get("recruitment.loyalty")


def designer_module():
    spec = importlib.util.spec_from_file_location("designer_ownership", FILE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_revision_1_1_by_hand_plays_the_built_in_games_and_the_twin_plays_the_designers_rule():
    scenario = load(EXAMPLE)
    assert scenario.procedure is not PROC  # the run's procedure knows the steps
    variants = scenario.variants
    plan = make_plan(scenario.procedure, variants, seed=5)
    n = 60
    got = run_range(plan, -1, 0, n)
    np.testing.assert_array_equal(got[0], got[1])  # by hand == built in, every statistic
    rule = designer_module().most_tokens_breaks_the_tie
    key = int(scenario_key(5))
    twin = []
    for p in variants.values():
        step = rule if p.ownership and p.ownership.endswith("most_tokens_breaks_the_tie") else None
        twin.append([nr.play(p.model_dump(), key, t, step=step) for t in range(n)])
    np.testing.assert_array_equal(got, fold(plan, twin))
    # Over more games (the kernel alone): the case arose, and the designer's rule decided it.
    more = run_range(plan, -1, 0, 2000)
    names = [m.name for m in plan.metrics]

    def total(v, name):
        return more[v, 4 * names.index(name) + 1]

    assert total(0, "removed_multi_tie") == total(1, "removed_multi_tie") > 0
    assert total(2, "removed_multi_tie") == 0
    assert total(2, "given_multi_tie") > 0 and total(2, "gap_multi_tie") > 0
    np.testing.assert_array_equal(more[0], more[1])


def write(tmp_path: Path, source: str, ref: str = "mine.py:ownership") -> Path:
    (tmp_path / "mine.py").write_text(source, encoding="utf-8")
    text = EXAMPLE.read_text(encoding="utf-8")
    head = text.split("variants:")[0]
    path = tmp_path / "s.yaml"
    path.write_text(head + f'  ownership: "{ref}"\n', encoding="utf-8")
    return path


runner = CliRunner()


@pytest.mark.parametrize(
    ("source", "ref", "said"),
    [
        (
            "def ownership(loyalty, tokens, owner):\n    return 'nobody'\n",
            "mine.py:ownership",
            "mine.py:2:",
        ),
        (
            "def ownership(loyalty, owner):\n    return owner\n",
            "mine.py:ownership",
            "ownership(loyalty, tokens, owner)",
        ),
        (
            "def ownership(loyalty, tokens, owner):\n    return owner\n",
            "gone.py:ownership",
            "gone.py",
        ),
    ],
    ids=["numba-cannot-compile", "wrong-signature", "missing-file"],
)
def test_a_step_that_cannot_run_is_refused_at_the_designers_line(tmp_path, source, ref, said):
    path = write(tmp_path, source, ref)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_a_plan_with_a_step_travels_by_the_files_path_and_runs_the_same():
    # What a Dask worker receives: the plan pickled, its procedure's pack and kernel by the
    # step's path, compiled again where it runs.
    assert_plan_travels(EXAMPLE, seed=9, trials=20)


def test_sim_compare_runs_a_file_with_a_step_beside_one_without(tmp_path):
    from simulator.compare import combine

    plain = tmp_path / "plain.yaml"
    text = EXAMPLE.read_text(encoding="utf-8").split("variants:")[0]
    plain.write_text(text.replace("name: own-ownership", "name: plain"), encoding="utf-8")
    combined, _ = combine([load(plain), load(EXAMPLE)])
    assert combined.procedure is not PROC
    plan = make_plan(combined.procedure, combined.variants, seed=3)
    got = run_range(plan, -1, 0, 40)
    names = list(plan.variant_names)
    assert names[:3] == ["plain", "own-ownership", "own-ownership:by-hand-1.1"]
    np.testing.assert_array_equal(got[0], got[2])  # 1.1 by hand, from the other file's folder


def _scenario_with(tmp_path: Path, tail: str, name: str = "s.yaml") -> Path:
    """The example's game (seats 1 and 3 greedy) with ``tail`` after its params, beside a copy
    of the designer's file."""
    (tmp_path / "ownership.py").write_text(FILE.read_text(encoding="utf-8"), encoding="utf-8")
    head = EXAMPLE.read_text(encoding="utf-8").split("variants:")[0]
    path = tmp_path / name
    path.write_text(head + tail, encoding="utf-8")
    return path


def test_greedy_projects_a_designers_step_as_the_revision_it_copies(tmp_path):
    # Revision 1.1 written by hand, run under 1.0's cases: the rules play the step, and greedy's
    # projection does too, so the greedy seats play the built-in 1.1's games trial for trial. The
    # twin agrees, the designer's other rule included. (Whole games rarely turn on the projection
    # of a multi-tie: these 300 agreed even when the projection read 1.0's cases; the test below
    # sees the projection itself.)
    path = _scenario_with(
        tmp_path,
        "variants:\n"
        '  by-hand-under-1.0: {revision: "1.0", ownership: "ownership.py:revision_1_1"}\n'
        '  most-tokens: {ownership: "ownership.py:most_tokens_breaks_the_tie"}\n'
        '  built-in-1.0: {revision: "1.0"}\n',
    )
    scenario = load(path)
    plan = make_plan(scenario.procedure, scenario.variants, seed=11)
    got = run_range(plan, -1, 0, 300)
    np.testing.assert_array_equal(got[0], got[1])  # built-in 1.1 == 1.1 by hand under 1.0
    assert not np.array_equal(got[0], got[3])  # 1.0's cases play other games
    rules = designer_module()
    key = int(scenario_key(11))
    twin = []
    for p in scenario.variants.values():
        step = None
        if p.ownership:
            step = getattr(rules, p.ownership.rpartition(":")[2])
        twin.append([nr.play(p.model_dump(), key, t, step=step) for t in range(40)])
    np.testing.assert_array_equal(run_range(plan, -1, 0, 40), fold(plan, twin))


def test_a_tournament_plays_a_designers_step(tmp_path):
    # The tournament plays the game that knows the step: 1.1 by hand plays the built-in's
    # tournament, the designer's other rule another one; a pickled plan (a Dask worker's) too.
    import pickle

    tournament = "tournament:\n  agents:\n    random: random\n    greedy: greedy\n"
    path = _scenario_with(
        tmp_path,
        tournament + "variants:\n"
        '  by-hand-1.1: {ownership: "ownership.py:revision_1_1"}\n'
        '  most-tokens: {ownership: "ownership.py:most_tokens_breaks_the_tie"}\n',
    )
    scenario = load(path)
    plan = make_plan(scenario.procedure, scenario.variants, seed=13)
    got = run_range(plan, -1, 0, 60)
    np.testing.assert_array_equal(got[0], got[1])
    assert not np.array_equal(got[0], got[2])  # the step is played, not dropped
    again = pickle.loads(pickle.dumps(plan))
    np.testing.assert_array_equal(run_range(again, -1, 0, 60), got)


def test_the_projection_asks_a_designers_step_who_holds_a_character():
    # Seat 1 owns a character on which seats 2 and 3 tie above it (loyalty 1 against 2 and 2):
    # 1.1 removes it, 1.0's gap keeps it. Under 1.0's cases with 1.1 written by hand, the
    # projection (greedy's and the search agents' heuristic) follows the step, as the rules do:
    # the kernel's and the twin's, card by card, weights included.
    from simulator.procedures.recruitment.loyalty import state as S
    from simulator.procedures.recruitment.loyalty.projection import retally
    from simulator.procedures.recruitment.loyalty.userstep import _callback
    from tests.recruitment_positions import kernel_state, owned, params, position

    rule = designer_module().revision_1_1
    address = _callback(f"{FILE}:revision_1_1").address

    def projected(revision: str, step: bool = False) -> tuple[list[int], list[int]]:
        p = params(players=3, rounds=3, revision=revision, tokens_per_empire=6, policies="greedy")
        game = position(p, [owned(0, [1, 2, 2], wage=0), owned(1, [0, 3, 1], wage=0)])
        s = kernel_state(game)
        if step:
            s[S.H_STEP_ADDRESS] = address
            retally(s)
            game.step = rule
        holders = [int(h) for h in s[S.S_PROJ_HOLDER : S.S_PROJ_HOLDER + 2]]
        weights = [int(w) for w in s[S.S_PROJ_WEIGHT : S.S_PROJ_WEIGHT + 2]]
        assert [game.project(c) for c in game.cards] == list(zip(holders, weights, strict=True))
        return holders, weights

    assert projected("1.1")[0] == [-1, 1]
    assert projected("1.0")[0] == [0, 1]
    assert projected("1.0", step=True) == projected("1.1")
