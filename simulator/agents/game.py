"""The whole-game interface agents are written against, typed.

A game package gathers its @njit functions in one :class:`GameFunctions` value; the agents'
factory takes that value and compiles agents for the game by closure. See docs/agents.md,
"The game interface", for what each function must do.

The ``Callable`` aliases below name each function's shape. A state (:data:`State`) is whatever
one value the game keeps its position in (every game here: one flat int64 array); a random stream
(:data:`Stream`) is a ``uint64[1]`` SplitMix64 state. :class:`GameInfo` says what a game is
(seats, maximum moves, hidden information, chance) without playing it; a game without hidden
information need not write ``determinize``: its view of a position is a plain copy.

A procedure that is a whole game declares it to the registry (``Procedure.game``, a
:class:`WholeGame`: the functions and how to deal a position from the packed row), so the
interface tests find every game there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from simulator.jit import closure

#: A game's position (every game here: one flat int64 array, :mod:`simulator.layout`).
State = Any
#: A random stream: a ``uint64[1]`` SplitMix64 state, advanced by each draw.
Stream = np.ndarray
#: ``copy_state(s) -> s2``, an independent deep copy.
CopyState = Callable[[State], State]
#: ``to_move(s) -> seat``, ``-1`` when the game is over; also ``round_of``, ``n_seats``.
Count = Callable[[State], int]
#: ``legal_moves(s, out) -> n``: fills ``out[:n]`` with move codes.
LegalMoves = Callable[[State, np.ndarray], int]
#: ``apply_move(s, move, rng)``: plays a move and the chance events and forced steps up to the
#: next decision.
ApplyMove = Callable[[State, int, Stream], None]
#: ``is_over(s) -> bool``.
IsOver = Callable[[State], bool]
#: ``returns(s, out)`` or ``heuristic(s, out)``: one value per seat into ``out[:seats]``.
Scores = Callable[[State, np.ndarray], None]
#: ``determinize(s, seat, rng) -> s2``: a copy with what ``seat`` cannot see resampled.
Determinize = Callable[[State, int, Stream], State]
#: ``default_move(s, rng) -> move``: a cheap policy for the playouts of search agents.
DefaultMove = Callable[[State, Stream], int]
#: ``move_values(s, moves, n, rng, out)``: the one-step values greedy ranks ``moves[:n]`` by.
MoveValues = Callable[[State, np.ndarray, int, Stream, np.ndarray], None]
#: ``state_key(s) -> key``: a position's index in a small game's keyed state space.
StateKey = Callable[[State], int]
#: ``deal(row, rng) -> s``: a new game's position from a procedure's packed parameter row, up to
#: its first decision (plain Python or compiled: for tests and tools).
Deal = Callable[[np.ndarray, Stream], State]


@dataclass(frozen=True)
class GameInfo:
    """What a game is, without playing it.

    Attributes:
        seats: the most seats at a table (``n_seats`` of any position is at most this).
        max_moves: the largest number of legal moves in any position.
        hidden_information: whether a seat cannot see part of the position (then the game
            writes ``determinize``; without, a seat's view is a plain copy).
        chance: whether ``apply_move`` draws random events (dice, shuffles) after a move.
    """

    seats: int
    max_moves: int
    hidden_information: bool
    chance: bool


class _Functions(NamedTuple):
    copy_state: CopyState
    to_move: Count
    legal_moves: LegalMoves
    apply_move: ApplyMove
    is_over: IsOver
    returns: Scores
    heuristic: Scores
    round_of: Count
    n_seats: Count
    max_moves: int
    determinize: Determinize | None = None
    default_move: DefaultMove | None = None
    move_values: MoveValues | None = None
    info: GameInfo | None = None
    state_key: StateKey | None = None


class GameFunctions(_Functions):
    """The @njit functions of one game (each documented in the game package).

    Attributes:
        copy_state: ``copy_state(s) -> s2``, an independent deep copy.
        to_move: ``to_move(s) -> int``, the seat that decides now, ``-1`` when the game is over.
        legal_moves: ``legal_moves(s, out) -> n``, fills ``out[:n]`` with move codes.
        apply_move: ``apply_move(s, move, rng)``, plays a move and the chance events and forced
            steps up to the next decision; ``rng`` is a ``uint64[1]`` SplitMix64 state.
        is_over: ``is_over(s) -> bool``.
        returns: ``returns(s, out)``, each seat's final result (win share plus a tie-break term
            in ``[0, 1e-3)``).
        heuristic: ``heuristic(s, out)``, each seat's estimated result in ``[0, 1]``.
        round_of: ``round_of(s) -> int``, the round or turn counter.
        n_seats: ``n_seats(s) -> int``.
        max_moves: the largest number of legal moves in any position.
        determinize: ``determinize(s, seat, rng) -> s2``, a copy with what ``seat`` cannot see
            resampled consistently with its view. Optional for a game whose ``info`` says it has
            no hidden information: left out, it is a plain copy.
        default_move: optional ``default_move(s, rng) -> move``, the game's cheap default policy
            for the playouts of search agents (e.g. its greedy agent); ``None``: uniform random
            over ``legal_moves``. A playout that knows what the game rewards ranks the moves
            before it far better than random play does (docs/agents.md, "Measured").
        move_values: optional ``move_values(s, moves, n, rng, out)``, the one-step values the
            game's greedy agent ranks ``moves[:n]`` by (the mover's), into ``out[:n]``, drawing
            from ``rng`` exactly what greedy draws before its tie-breaks; ``None``: the generic
            greedy's values (:func:`simulator.agents.prior.make_move_values`). The search rungs'
            ``candidates``, ``prior`` and ``fallback`` lean on it.
        info: what the game is (:class:`GameInfo`); ``None`` for a game that has not said yet
            (it must then write ``determinize``).
        state_key: optional ``state_key(s) -> int``, the position's key in ``0 ..`` the number
            of keyed states: equal keys for positions that play alike from here on (Pig: the
            seat to move, every banked score, the turn's points). The exact solver
            (:mod:`simulator.solver`) values positions by it, and the ``optimal`` rung looks its
            move up by it.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> GameFunctions:
        game = super().__new__(cls, *args, **kwargs)
        if game.info is not None and game.info.max_moves != game.max_moves:
            raise ValueError(
                f"max_moves {game.max_moves} differs from info.max_moves {game.info.max_moves}"
            )
        if game.determinize is not None:
            return game
        if game.info is None or game.info.hidden_information:
            raise ValueError(
                "determinize is required unless info says the game has no hidden information"
            )
        return game._replace(determinize=plain_view(game.copy_state))


def plain_view(copy_state: CopyState) -> Determinize:
    """``determinize`` of a game without hidden information: what a seat sees is the position."""

    @closure
    def determinize(s, seat, rng):  # pragma: no cover - compiled
        return copy_state(s)

    return determinize


def flat_deal(size: int, start_game: Callable[[np.ndarray, np.ndarray, Stream], None]) -> Deal:
    """``deal`` of a game whose state is one flat int64 array of ``size`` slots dealt in place by
    ``start_game(s, row, rng)``."""

    def deal(row: np.ndarray, rng: Stream) -> np.ndarray:
        s = np.zeros(size, dtype=np.int64)
        start_game(s, row, rng)
        return s

    return deal


@dataclass(frozen=True)
class WholeGame:
    """A procedure's whole game, for the registry: its functions and how to deal a position.

    Attributes:
        functions: the game interface (:class:`GameFunctions`, with its ``info``).
        deal: ``deal(row, rng) -> s`` from the procedure's packed row (:data:`Deal`).
        example: parameters (as in a scenario's ``params``) whose deals reach every kind of
            decision, for the interface tests; ``None``: the procedure's ``example``.
    """

    functions: GameFunctions
    deal: Deal
    example: dict[str, Any] | None = None
