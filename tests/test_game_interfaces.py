"""Every whole game's interface keeps the promises simulator.agents relies on (game.py), at every
decision of random play from fresh deals — the first decision of a deal included.

The games are found in the registry: every procedure that declares ``game`` (a ``WholeGame``) is
played, and a test finds every ``GameFunctions`` value in the procedures' packages, so a new game
cannot be missed. A designer's game class (docs/examples/doubles.py) is played too, its own
functions as plain Python, as ``sim list`` reads them (no kernel compiled).

Numba does not check array bounds: a game that reports the wrong seat count or a heuristic that
writes past its output array does not fail, it reads or corrupts memory, and the search agents
then play differently from one process to the next (the council reported 0 seats during its
setup phase, issue 13). Here each promise is checked directly, outputs are written into guarded
buffers, and a write past the end is seen.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simulator import procedures
from simulator.agents.game import GameFunctions, GameInfo
from tests import naive_agents as twin

GUARD = -7.25  # what no score is: a guard cell still holding it was not written
ROOT = Path(__file__).resolve().parents[1]
#: Designers' game classes (docs/own-rules.md, "A whole game") played here as the built-in games.
DESIGNERS = ("docs/examples/doubles.py:Doubles",)


def _declared(name: str) -> tuple[GameFunctions, Callable[[np.ndarray], np.ndarray]]:
    """The game of procedure ``name`` as it declares it, dealt from its example parameters."""
    return _dealt(procedures.get(name))


def _designers(ref: str) -> tuple[GameFunctions, Callable[[np.ndarray], np.ndarray]]:
    """A designer's game class (``path/to/file.py:NAME``) as its file declares it: the class's
    own functions run as plain Python (nothing compiled but the draws of ``below``)."""
    from simulator.userfiles.listing import declared_procedure

    return _dealt(declared_procedure(str(ROOT / ref)))


def _dealt(proc: Any) -> tuple[GameFunctions, Callable[[np.ndarray], np.ndarray]]:
    game = proc.game
    assert game is not None
    params = proc.params_model.model_validate(game.example or proc.example or {})
    row = proc.pack(params)

    def start(rng: np.ndarray) -> np.ndarray:
        return game.deal(row, rng)

    return game.functions, start


def _games() -> dict[str, Callable[[], tuple[GameFunctions, Any]]]:
    found: dict[str, Callable[[], tuple[GameFunctions, Any]]] = {}
    for name in procedures.names():
        if procedures.get(name).game is not None:
            found[name] = lambda name=name: _declared(name)
    for ref in DESIGNERS:
        found[ref] = lambda ref=ref: _designers(ref)
    return found


GAMES = _games()


def _game_values(name: str) -> list[GameFunctions]:
    """Every module-level ``GameFunctions`` value in the package (or module) of procedure
    ``name``."""
    module = importlib.import_module(f"simulator.procedures.{name}")
    modules = [module]
    if hasattr(module, "__path__"):
        for info in pkgutil.iter_modules(module.__path__):
            modules.append(importlib.import_module(f"{module.__name__}.{info.name}"))
    return [v for m in modules for v in vars(m).values() if isinstance(v, GameFunctions)]


def test_every_game_in_the_procedures_is_played_here():
    for name in procedures.names():
        if _game_values(name):
            assert name in GAMES, f"{name} has a game interface: declare Procedure.game"


def test_a_declared_game_is_found_in_the_registry():
    assert {"root.hirelings", "recruitment.loyalty", "council.game", "his.new_world"} <= set(GAMES)


def test_a_designers_game_declares_what_it_is():
    game, _ = GAMES[DESIGNERS[0]]()
    assert game.info == GameInfo(seats=4, max_moves=2, hidden_information=False, chance=True)


def _positions(game: Any, start: Callable[[np.ndarray], np.ndarray], count: int) -> list:
    """Decision ``j`` of deal ``j`` under uniform random play (``j`` = 0: a deal's first)."""
    moves = np.empty(game.max_moves, dtype=np.int64)
    out = []
    for j in range(count):
        rng = np.array([twin.mix64(j + 1)], dtype=np.uint64)
        s = start(rng)
        for _ in range(j):
            if game.is_over(s):
                break
            n = game.legal_moves(s, moves)
            game.apply_move(s, moves[twin.below(rng, n)], rng)
        out.append(s)
    return out


def _guarded(game: Any, fill: Callable[[Any, np.ndarray], None], s: Any, seats: int) -> np.ndarray:
    out = np.full(seats + 8, GUARD)
    fill(s, out[:seats])
    assert np.all(out[seats:] == GUARD), f"wrote past its {seats} seats: {out[seats:]}"
    return out[:seats]


@pytest.fixture(scope="module", params=list(GAMES))
def game_and_positions(request):
    game, start = GAMES[request.param]()
    return game, _positions(game, start, 40)


def test_each_decision_has_a_seat_among_the_tables_seats_and_legal_moves(game_and_positions):
    game, positions = game_and_positions
    moves = np.empty(game.max_moves + 8, dtype=np.int64)
    for j, s in enumerate(positions):
        if game.is_over(s):
            continue
        seats = game.n_seats(s)
        assert seats >= 2, f"decision {j}: {seats} seats"
        assert 0 <= game.to_move(s) < seats, f"decision {j}: seat {game.to_move(s)} of {seats}"
        moves[:] = -99
        n = game.legal_moves(s, moves[: game.max_moves])
        assert 1 <= n <= game.max_moves, f"decision {j}: {n} legal moves"
        assert np.all(moves[game.max_moves :] == -99), f"decision {j}: moves past max_moves"
        assert len(set(moves[:n].tolist())) == n, f"decision {j}: a move listed twice"


def test_scores_fill_exactly_one_value_per_seat(game_and_positions):
    game, positions = game_and_positions
    moves = np.empty(game.max_moves, dtype=np.int64)
    rng = np.array([twin.mix64(99)], dtype=np.uint64)
    for j, s in enumerate(positions):
        seats = game.n_seats(s)
        if not game.is_over(s):
            h = _guarded(game, game.heuristic, s, seats)
            assert np.all((h >= 0) & (h <= 1)), f"decision {j}: heuristic {h}"
        end = game.copy_state(s)
        while not game.is_over(end):
            n = game.legal_moves(end, moves)
            game.apply_move(end, moves[twin.below(rng, n)], rng)
        r = _guarded(game, game.returns, end, game.n_seats(end))
        assert np.all((r >= 0) & (r < 1 + 1e-3)), f"deal {j}: returns {r}"


def test_the_movers_view_keeps_the_position_it_sees(game_and_positions):
    game, positions = game_and_positions
    moves, seen = np.empty(game.max_moves, np.int64), np.empty(game.max_moves, np.int64)
    for j, s in enumerate(positions):
        if game.is_over(s):
            continue
        before = s.copy()
        me = game.to_move(s)
        view = game.determinize(s, me, np.array([twin.mix64(j + 7)], dtype=np.uint64))
        assert np.array_equal(s, before), f"decision {j}: determinize changed the position"
        assert game.to_move(view) == me and game.n_seats(view) == game.n_seats(s)
        n = game.legal_moves(s, moves)
        assert game.legal_moves(view, seen) == n, f"decision {j}: another set of moves"
        assert np.array_equal(np.sort(seen[:n]), np.sort(moves[:n])), f"decision {j}"
        c = game.copy_state(s)
        assert np.array_equal(c, s)
        c[:] = 0
        assert np.array_equal(s, before), f"decision {j}: a copy shares memory"


def test_what_the_info_says_holds(game_and_positions):
    """``n_seats`` within ``info.seats``; without hidden information a seat's view is the
    position itself; without chance the same move gives the same position on any stream."""
    game, positions = game_and_positions
    if game.info is None:
        pytest.skip("the game has not declared its info yet")
    moves = np.empty(game.max_moves, dtype=np.int64)
    for j, s in enumerate(positions):
        assert game.n_seats(s) <= game.info.seats, f"decision {j}"
        if game.is_over(s):
            continue
        view = game.determinize(s, game.to_move(s), np.array([twin.mix64(j)], dtype=np.uint64))
        if not game.info.hidden_information:
            assert np.array_equal(view, s), f"decision {j}: a public game's view differs"
        if not game.info.chance:
            game.legal_moves(s, moves)
            one, other = game.copy_state(s), game.copy_state(s)
            game.apply_move(one, moves[0], np.array([twin.mix64(1)], dtype=np.uint64))
            game.apply_move(other, moves[0], np.array([twin.mix64(2)], dtype=np.uint64))
            assert np.array_equal(one, other), f"decision {j}: a game without chance drew"
