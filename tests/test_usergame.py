"""A whole game in the designer's own file (issue 29 item 4): a class of the game interface.

The designer's copy of the template Pig (tests/data/pig_game.py) plays the built-in template.pig's
games trial for trial on one and two threads; Doubles (docs/examples/doubles.py) runs at a fixed
seed with its agents ranked, its kernel compiled without the search rungs it does not seat; a
missing interface function, a wrong signature and a function Numba cannot compile exit 2 with
the designer's file and line. One compiled kernel per game for the whole module (a whole game
compiles in minutes).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulator import procedures
from simulator.cli import app
from simulator.engine import make_plan, simulate
from simulator.userfiles import UserFileError
from simulator.userfiles.procedure import procedure_of

ROOT = Path(__file__).resolve().parents[1]
PIG_COPY = str(ROOT / "tests/data/pig_game.py") + ":Pig"
DOUBLES = str(ROOT / "docs/examples/doubles.py") + ":Doubles"
TRIALS = 300


@pytest.fixture(scope="module")
def pig_copy():
    return procedure_of(PIG_COPY)


@pytest.fixture(scope="module")
def doubles():
    return procedure_of(DOUBLES)


def _stats(proc, variants, threads):
    plan = make_plan(proc, variants, seed=11)
    return plan, simulate(plan, TRIALS, threads=threads).stats


@pytest.mark.parametrize("threads", [1, 2])
def test_a_designers_pig_plays_the_templates_games(pig_copy, threads):
    template = procedures.get("template.pig")
    seats = [["random", "greedy"], "greedy", ["greedy", {"agent": "rollout", "playouts": 2}]]
    mine = {f"v{k}": pig_copy.params_model(target=30, policies=s) for k, s in enumerate(seats)}
    built = {f"v{k}": template.params_model(target=30, policies=s) for k, s in enumerate(seats)}
    plan, got = _stats(pig_copy, mine, threads)
    _, want = _stats(template, built, 1)
    names = [m.name for m in plan.metrics]
    assert names[:3] == ["wins.seat1", "wins.seat2", "draws"]
    # wins.seat1, wins.seat2, draws: count, sum, squares, cross with variant 0 (4 slots each)
    np.testing.assert_array_equal(got[:, :12], want[:, :12])
    assert 0 < got[0, 1] < TRIALS  # both seats win some games


def test_doubles_at_a_fixed_seed_greedy_beats_random(doubles):
    variants = {
        "random_first": doubles.params_model(policies=["random", "greedy"]),
        "greedy_first": doubles.params_model(policies=["greedy", "random"]),
    }
    _, one = _stats(doubles, variants, 1)
    _, two = _stats(doubles, variants, 2)
    np.testing.assert_array_equal(one, two)
    n = one[0, 0]
    greedy_wins = (one[0, 5] + one[1, 1]) / (2 * n)  # seat 2 of the first, seat 1 of the second
    assert greedy_wins > 0.6, greedy_wins
    assert doubles.kernel.built() == [("random", "greedy")]  # no search rung compiled


@pytest.mark.parametrize(
    ("policies", "rungs"),
    [
        (["random", "greedy"], ()),
        ([{"agent": "rollout", "playouts": 2}, "greedy"], ("rollout",)),
        (["mcts", "random", "random"], ("mcts",)),
        ([{"agent": "mcts", "iterations": 4}, "rollout"], ("rollout", "mcts")),
    ],
)
def test_a_designers_game_compiles_the_search_rungs_its_seats_play(policies, rungs):
    from simulator.userfiles.game_kernel import RungKernels
    from simulator.userfiles.listing import declared_procedure

    listed = declared_procedure(DOUBLES)  # packs as the compiled one does, compiling nothing
    packed = np.stack(
        [listed.pack(listed.params_model(players=len(policies), policies=policies))]
        + [listed.pack(listed.params_model(policies="random"))]  # a row of random seats
    )
    kernels = RungKernels(lambda rungs: rungs, 3, 4, listed.kernel)
    assert kernels.rungs(packed) == ("random", "greedy", *rungs)
    assert kernels.for_rows(packed) == ("random", "greedy", *rungs)
    assert kernels.for_rows(packed[1:]) == ("random", "greedy", *rungs)  # a kernel with more serves


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "game.py"
    path.write_text(textwrap.dedent(body))
    return path


HEAD = """\
class Game:
    SEATS = 2
    MAX_MOVES = 2
    STATE_SIZE = 4
    target: int = 10

"""
FUNCTIONS = {
    "start_game": "def start_game(s, params, rng):\n        s[0] = params.target\n",
    "copy_state": "def copy_state(s):\n        return s.copy()\n",
    "to_move": "def to_move(s):\n        return 0\n",
    "legal_moves": "def legal_moves(s, out):\n        out[0] = 0\n        return 1\n",
    "apply_move": "def apply_move(s, move, rng):\n        s[1] = 1\n",
    "is_over": "def is_over(s):\n        return s[1] == 1\n",
    "returns": "def returns(s, out):\n        out[0] = 1.0\n",
    "heuristic": "def heuristic(s, out):\n        out[0] = 1.0\n",
    "round_of": "def round_of(s):\n        return 0\n",
    "n_seats": "def n_seats(s):\n        return 2\n",
}


def _game(replace: dict[str, str | None]) -> str:
    out = HEAD
    for text in {**FUNCTIONS, **replace}.values():
        if text is not None:
            out += "    @staticmethod\n    " + text + "\n"
    return out


def _line(path: Path, needle: str) -> int:
    return next(k for k, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


@pytest.mark.parametrize(
    ("replace", "needle", "said"),
    [
        ({"heuristic": None}, "class Game", "has no heuristic"),
        ({"apply_move": "def apply_move(s, move):\n        s[1] = 1\n"}, "def apply_move",
         "write `def apply_move(s, move, rng)`"),
        ({"round_of": "def round_of(s):\n        return s.nothing\n"}, "return s.nothing",
         "Numba cannot compile this line"),
    ],
    ids=["missing", "signature", "numba"],
)  # fmt: skip
def test_a_designers_game_error_exits_2_at_its_line(tmp_path, replace, needle, said):
    path = _write(tmp_path, _game(replace))
    with pytest.raises(UserFileError) as e:
        procedure_of(f"{path}:Game")
    problem = e.value.problems[0]
    assert problem.line == _line(path, needle), problem
    assert said in problem.message, problem
    scenario = tmp_path / "game.yaml"
    scenario.write_text("name: g\nprocedure: game.py:Game\ntrials: 10\nseed: 1\n")
    result = CliRunner().invoke(app, ["run", str(scenario)])
    assert result.exit_code == 2, result.output
    assert f"game.py:{problem.line}" in result.output
