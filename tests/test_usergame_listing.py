"""``sim list`` of a designer's file (issue 29): every trial function and every whole-game class in
it, with parameters, metrics, assumptions (INVENTED where the file tags them so) and the agents
that can play, read from the file with nothing compiled and Numba not even imported.

The files listed are copies in a fresh folder: a function compiled from a path Numba has never
seen is a real compile (not a load from its cache), so the counts below would see one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simulator import compiling
from simulator.cli import app
from simulator.userfiles.listing import declared_procedure
from simulator.userfiles.procedure import procedure_of

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs/examples"


def _list(*args: str) -> tuple[int, str, list[str]]:
    """Exit code, output and the functions Numba compiled while ``sim list`` ran."""
    with compiling.counting() as compiled:
        result = CliRunner().invoke(app, ["list", *args])
    return result.exit_code, result.output, list(compiled)


@pytest.fixture
def doubles(tmp_path) -> Path:
    path = tmp_path / "doubles.py"
    shutil.copy(EXAMPLES / "doubles.py", path)
    return path


def test_sim_list_of_a_game_file_shows_the_game_and_compiles_nothing(doubles):
    code, out, compiled = _list(str(doubles))
    assert code == 0, out
    assert compiled == []
    flat = " ".join(out.split())
    assert f"{doubles}:Doubles — Doubles: roll two dice" in flat
    for parameter in ("players", "target", "max_turns", "policies"):
        assert f"│ {parameter} " in out
    assert re.search(r"│ max_turns .*│ 200 +│ INVENTED +│", out)  # the file tags it invented
    assert "INVENTED max_turns [max_turns = 200]" in flat
    assert "alternatives: 100 turns (invented)" in flat
    assert "one per seat (random, greedy, rollout," in flat  # who can play (the cell wraps)
    for metric in ("wins.seat1", "wins.seat2", "draws", "rounds", "decisions"):
        assert f"│ {metric} " in out
    assert "up to 4 seats, at most 2 legal moves, no hidden information" in flat


def test_sim_list_of_a_class_by_name_shows_the_path_as_typed(doubles, monkeypatch):
    monkeypatch.chdir(doubles.parent)
    code, out, compiled = _list("./doubles.py:Doubles")
    assert code == 0, out
    assert compiled == []
    flat = " ".join(out.split())
    assert flat.startswith("./doubles.py:Doubles — Doubles")
    assert "(./doubles.py, the designer's own file)" in flat
    assert "written in ./doubles.py (class Doubles)" in flat


MIXED = '''
from simulator.agents.streams import below

ASSUMPTIONS = {"bonus": {"tag": "invented", "text": "the bonus is made up"}}


def duel(dice, sides: int = 6, bonus: int = 1):
    """Duel: one die each, the first side's bonus added."""
    first = dice.d(sides) + bonus
    second = dice.d(sides)
    return {"first_wins": first > second, "margin": first - second}


class Coin:
    """Coin: the first to call a toss right wins."""

    SEATS = 2
    MAX_MOVES = 2
    STATE_SIZE = 4
    HIDDEN_INFORMATION = False
    CHANCE = True
    rounds: int = 5
    ASSUMPTIONS = {"rounds": {"tag": "reading", "text": "five tosses, then a draw"}}

    @staticmethod
    def start_game(s, params, rng):
        s[0] = params.rounds
        s[3] = -1

    @staticmethod
    def copy_state(s):
        return s.copy()

    @staticmethod
    def to_move(s):
        return -1 if s[2] else s[1]

    @staticmethod
    def legal_moves(s, out):
        out[0] = 0
        out[1] = 1
        return 2

    @staticmethod
    def apply_move(s, move, rng):
        if below(rng, 2) == move:
            s[3] = s[1]
            s[2] = 1
        s[1] = 1 - s[1]
        s[0] -= 1
        if s[0] == 0:
            s[2] = 1

    @staticmethod
    def is_over(s):
        return s[2] == 1

    @staticmethod
    def returns(s, out):
        out[0] = 1.0 if s[3] == 0 else 0.0
        out[1] = 1.0 if s[3] == 1 else 0.0

    @staticmethod
    def heuristic(s, out):
        out[0] = 0.5
        out[1] = 0.5

    @staticmethod
    def round_of(s):
        return s[0]

    @staticmethod
    def n_seats(s):
        return 2
'''


def test_sim_list_of_a_file_shows_its_trial_functions_and_its_game_classes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = Path("mixed.py")
    path.write_text(MIXED)
    code, out, compiled = _list(str(path))
    assert code == 0, out
    assert compiled == []
    flat = " ".join(out.split())
    assert flat.index(f"{path}:duel metrics") < flat.index(f"{path}:Coin metrics")
    assert "Duel: one die each" in flat and "Coin: the first to call a toss right wins" in flat
    assert "│ first_wins │ proportion │" in flat and "│ margin │ mean │" in flat
    assert re.search(r"│ bonus .*│ 1 +│ INVENTED +│", out) and "INVENTED bonus [bonus = 1]" in flat
    assert "│ rounds " in out and "│ policies " in out
    assert "reading rounds [rounds = 5]" in flat


def test_no_numba_is_imported_by_sim_list_of_a_file(doubles):
    code = (
        "import sys; from typer.testing import CliRunner; from simulator.cli import app; "
        "r = CliRunner().invoke(app, ['list', sys.argv[1]]); print(r.output); "
        "print(r.exit_code, 'numba' in sys.modules)"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(doubles.parent / "cache"))
    run = subprocess.run(
        [sys.executable, "-c", code, str(doubles)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-2:] == ["0", "False"], run.stdout
    assert "compiling" not in run.stdout + run.stderr


def test_the_count_sees_the_compile_a_run_does(doubles):
    """The checks above can fail: building the game to run it compiles its functions."""
    with compiling.counting() as compiled:
        procedure_of(f"{doubles}:Doubles")
    assert any("Doubles_apply_move" in name for name in compiled), compiled


@pytest.mark.parametrize(
    "ref", ["opposed_roll.py:opposed_roll", "field_battle.py:field_battle", "doubles.py:Doubles"]
)
def test_what_sim_list_reads_is_what_the_compiled_procedure_declares(ref, monkeypatch):
    monkeypatch.chdir(ROOT)  # the path typed is the path shown
    text = f"docs/examples/{ref}"
    listed, built = declared_procedure(text), procedure_of(text)
    params = built.params_model.model_validate(built.example)
    assert listed.metrics(listed.params_model.model_validate(built.example)) == built.metrics(
        params
    )
    assert list(listed.params_model.model_fields) == list(built.params_model.model_fields)
    assert listed.assumptions == built.assumptions and listed.notes == built.notes
    np.testing.assert_array_equal(
        listed.pack(listed.params_model.model_validate(built.example)), built.pack(params)
    )
    with pytest.raises(RuntimeError, match="read, not compiled"):
        listed.kernel()


def test_a_listed_game_with_a_mistake_exits_2_at_its_line_compiling_nothing(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_text(MIXED.replace("    def heuristic(s, out):", "    def heuristic(s):"))
    code, out, compiled = _list(str(path))
    assert code == 2 and compiled == []
    line = MIXED.splitlines().index("    def heuristic(s, out):") + 1
    assert f"mixed.py:{line}:1: Coin.heuristic: takes (s); heuristic takes 2" in out, out


def test_a_listed_float_metric_exits_2_at_its_line(tmp_path):
    path = tmp_path / "ratio.py"
    path.write_text(
        textwrap.dedent(
            """\
            def ratio(dice):
                return {"ratio": dice.d(6) / 6}
            """
        )
    )
    code, out, compiled = _list(f"{path}:ratio")
    assert code == 2 and compiled == []
    assert "ratio.py:2:22: ratio: metric 'ratio' is a float64, not an int or a bool" in out, out


def test_a_listed_games_plain_functions_play_as_its_compiled_ones(monkeypatch):
    """What the interface tests play (the class's functions as plain Python, ``Procedure.game``
    of the listed procedure) is what a run plays (the compiled procedure's ``game``)."""
    from tests import naive_agents as twin

    monkeypatch.chdir(ROOT)
    listed, built = (
        declared_procedure("docs/examples/doubles.py:Doubles"),
        procedure_of("docs/examples/doubles.py:Doubles"),
    )
    assert listed.game is not None and built.game is not None
    row = built.pack(built.params_model.model_validate({"players": 3, "target": 30}))
    plain, compiled = listed.game.functions, built.game.functions
    assert plain.info == compiled.info
    moves = np.empty(plain.max_moves, dtype=np.int64)
    for deal in range(20):
        streams = [np.array([twin.mix64(deal + 1)], dtype=np.uint64) for _ in range(2)]
        a, b = listed.game.deal(row, streams[0]), built.game.deal(row, streams[1])
        choice = np.array([twin.mix64(deal + 100)], dtype=np.uint64)
        while not plain.is_over(a):
            np.testing.assert_array_equal(a, b)
            assert not compiled.is_over(b)
            n = plain.legal_moves(a, moves)
            assert compiled.legal_moves(b, moves.copy()) == n
            move = moves[twin.below(choice, n)]
            plain.apply_move(a, move, streams[0])
            compiled.apply_move(b, move, streams[1])
        assert compiled.is_over(b)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(streams[0], streams[1])
        for seat_view in (
            plain.determinize(a, 0, streams[0]),
            compiled.determinize(b, 0, streams[1]),
        ):
            np.testing.assert_array_equal(seat_view, a)
