"""Pig solved exactly: its model for :mod:`simulator.solver.values`, the cache, the exact values.

Pig rules §2 as a dice race: a roll busts with 1/6 (a 1) and adds 2–6 with 1/6 each; a turn
opens with a roll (§1–§2). The key is the game interface's ``state_key`` (the seat to move, both
banked scores, the turn's points capped at what the mover needs). Solved:

- :func:`solve` — the optimal values and moves (Neller and Presser 2004: seat 1 wins 0.5306 of
  games to 100 under optimal play), computed once per target and kept in memory and on disk;
- :func:`model` — the dice race's arguments to :func:`simulator.solver.values.iterate`;
- :func:`policy_words` — the optimal moves packed for the ``optimal`` rung (one bit a key).

Only two players (the solver's values are one seat's win probability); ``sim``'s invented draw
at ``max_turns`` is left out (the solved game has no turn limit: under optimal play a game to
100 lasts a few dozen turns, far from 200).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import time
import zipfile
from pathlib import Path

import numpy as np

from simulator.agents.table import pack_moves
from simulator.solver import STATE_LIMIT, TOLERANCE, TooLarge
from simulator.solver.values import OPTIMAL, best_moves, iterate, key_of

_POINTS = np.arange(2, 7, dtype=np.int64)
_PROBS = np.full(5, 1.0 / 6.0)
_BUST = 1.0 / 6.0
MAX_SWEEPS = 10_000_000
#: Rungs the solver can value exactly, by name.
SOLVABLE = ("optimal", "random", "greedy")


def model() -> tuple[np.ndarray, np.ndarray, float]:
    """Pig's die for the solver: the points a roll may add, their probabilities, the bust's."""
    return _POINTS, _PROBS, _BUST


def state_count(players: int, target: int) -> int:
    """Keys of Pig with ``players`` and ``target`` (the range of ``state_key``)."""
    return players * target**players * (target + 1)


def check(players: int, target: int) -> None:
    """Raise :class:`TooLarge` unless the solver takes this game.

    Raises:
        TooLarge: more than two players, or more keyed states than the limit.
    """
    n = state_count(players, target)
    if players != 2:
        raise TooLarge(
            f"the exact solver plays two-player games only ({players} players: an estimated "
            f"{n:,} states)"
        )
    if n > STATE_LIMIT:
        raise TooLarge(
            f"Pig to {target} has an estimated {n:,} states, more than the exact solver's limit "
            f"of {STATE_LIMIT:,} (2 players: target 125 at most)"
        )


@dataclasses.dataclass(frozen=True)
class Solution:
    """Pig to ``target`` solved: ``values[key]`` is seat 1's win probability under optimal play,
    ``moves[key]`` the optimal move (ROLL 0, HOLD 1), ``seconds`` the CPU time it took (0 when
    read from the disk cache) and ``sweeps`` the in-place sweeps of value iteration."""

    target: int
    values: np.ndarray
    moves: np.ndarray
    seconds: float
    sweeps: int

    @property
    def first_player(self) -> float:
        """Seat 1's win probability from the start of the game under optimal play."""
        return float(self.values[key_of(0, 0, 0, 0, self.target)])


def source_tag() -> str:
    """A digest of the solver's sources: a cached table is read only by the code that wrote it."""
    h = hashlib.sha256()
    for name in ("values.py", "pig.py", "pig_exact.py"):
        h.update((Path(__file__).parent / name).read_bytes())
    return h.hexdigest()[:12]


def cache_file(target: int, opening_stop: bool) -> Path:
    """Where the solved table of Pig to ``target`` is kept (named by the solver's sources)."""
    rules = "stop" if opening_stop else "roll"
    return Path(__file__).parent / "__pycache__" / f"pig-{target}-{rules}-{source_tag()}.npz"


@functools.lru_cache(maxsize=8)
def solve(target: int, opening_stop: bool = False) -> Solution:
    """Pig to ``target`` for 2 players solved, once per process and rules (and kept on disk
    beside the compiled code: Pig to 100 takes about 5 CPU-s to solve, a few ms to read).
    ``opening_stop``: a turn opens with a choice (``opening: stop``, OpenSpiel's Pig)."""
    check(2, target)
    path = cache_file(target, opening_stop)
    try:
        with np.load(path) as f:
            return Solution(target, f["values"], f["moves"], 0.0, int(f["sweeps"]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        pass
    start = time.process_time()
    modes = np.array([OPTIMAL, OPTIMAL], dtype=np.int64)
    values, sweeps = iterate(
        target, _POINTS, _PROBS, _BUST, 0.0, opening_stop, modes, np.zeros(1), TOLERANCE,
        MAX_SWEEPS,
    )  # fmt: skip
    moves = best_moves(values, target, _POINTS, _PROBS, _BUST, 0.0, opening_stop)
    seconds = time.process_time() - start
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")  # one writer a file
        np.savez(tmp, values=values, moves=moves, sweeps=sweeps)
        tmp.replace(path)
        for old in path.parent.glob("pig-*"):  # what older sources wrote is never read again
            if source_tag() not in old.name:
                old.unlink(missing_ok=True)
    except OSError:  # a read-only install solves again next time
        pass
    return Solution(target, values, moves, seconds, int(sweeps))


@functools.lru_cache(maxsize=8)
def policy_words(target: int, opening_stop: bool = False) -> np.ndarray:
    """The optimal moves of Pig to ``target``, packed for the ``optimal`` rung."""
    return pack_moves(solve(target, opening_stop).moves, 1)
