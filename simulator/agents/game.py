"""The whole-game interface agents are written against.

A game package gathers its @njit functions in one :class:`GameFunctions` value; the agents'
factory takes that value and compiles agents for the game by closure. See docs/agents.md,
"The game interface", for what each function must do.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class GameFunctions(NamedTuple):
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
        determinize: ``determinize(s, seat, rng) -> s2``, a copy with what ``seat`` cannot see
            resampled consistently with its view.
        round_of: ``round_of(s) -> int``, the round or turn counter.
        n_seats: ``n_seats(s) -> int``.
        max_moves: the largest number of legal moves in any position.
        default_move: optional ``default_move(s, rng) -> move``, the game's cheap default policy
            for the playouts of search agents (e.g. its greedy agent); ``None``: uniform random
            over ``legal_moves``. A playout that knows what the game rewards ranks the moves
            before it far better than random play does (docs/agents.md, "Measured").
        move_values: optional ``move_values(s, moves, n, rng, out)``, the one-step values the
            game's greedy agent ranks ``moves[:n]`` by (the mover's), into ``out[:n]``, drawing
            from ``rng`` exactly what greedy draws before its tie-breaks; ``None``: the generic
            greedy's values (:func:`simulator.agents.prior.make_move_values`). The search rungs'
            ``candidates``, ``prior`` and ``fallback`` lean on it.
    """

    copy_state: Any
    to_move: Any
    legal_moves: Any
    apply_move: Any
    is_over: Any
    returns: Any
    heuristic: Any
    determinize: Any
    round_of: Any
    n_seats: Any
    max_moves: int
    default_move: Any = None
    move_values: Any = None
