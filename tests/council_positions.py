"""Hand-built positions of the council game for its tests: the flat position and scratch with
table views (:func:`tables`), a game's starting position (:func:`position`), tokens placed by name,
the phases run on a position, and face-down Mercenary cards revealed on many streams."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from simulator.procedures import get
from simulator.procedures.council.game.context import CTX
from simulator.procedures.council.game.economy import income_phase, tax_phase
from simulator.procedures.council.game.mercenaries import reveal_step
from simulator.procedures.council.game.params import (
    CATEGORIES,
    DEFAULT_CHARACTERS,
    DEFAULT_LANDS,
    MAX_CARDS,
    MAX_LAWS,
    MAX_MOVES,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    CouncilGameParams,
    pack,
)
from simulator.procedures.council.game.setup import setup, violations
from simulator.procedures.council.game.state import (
    CARD_KIND,
    CHARACTER_TRAITS,
    COINS,
    DECLARED_WIDTH,
    LAND_SIZE,
    LAW_CATEGORY,
    MOVE_FIELDS,
    N_COL,
    PLAYED,
    POSITION_SIZE,
    SCRATCH,
    SCRATCH_SIZE,
    TOKENS,
    TURN,
)

PROC = get("council.game")

NAMES = [c["name"] for c in DEFAULT_CHARACTERS]
LANDS = [land["name"] for land in DEFAULT_LANDS]


def char(name: str) -> int:
    return NAMES.index(name)


def land(name: str) -> int:
    return LANDS.index(name)


#: Columns of the table views of :func:`tables` (one piece of the flat state per column).
P_COINS, P_SUPPLY, P_POLICY = 0, 1, 2
C_TRAITS, C_SEAT, C_LOT, C_LEADER, C_HOME = 0, 1, 2, 3, 4
L_SIZE, L_CIV, L_SOL, L_EFFECT = 0, 1, 2, 3
K_KIND, K_OWNER, K_TARGET, K_STATUS, K_MODE, K_TURN = range(6)


def tables(state: np.ndarray, scratch: np.ndarray | None = None) -> SimpleNamespace:
    """Views of a flat position (``state.POSITION``) as the tables a test reads and writes:
    ``tok[p, col]``, ``pl[p, P_*]``, ``g[SCALAR]`` (the scalars, played, gaps and holders),
    ``ch[c, C_*]``, ``land[li, L_*]``, ``law[i, field]``, ``card[k, K_*]``; and of the scratch."""

    def table(first: int, columns: int, rows: int) -> np.ndarray:
        return state[first : first + columns * rows].reshape(columns, rows).T

    t = SimpleNamespace(
        state=state,
        tok=state[TOKENS : TOKENS + MAX_PLAYERS * N_COL].reshape(MAX_PLAYERS, N_COL),
        pl=table(COINS, 3, MAX_PLAYERS),
        g=state[:TOKENS],
        ch=table(CHARACTER_TRAITS, 5, N_CHARS),
        land=table(LAND_SIZE, 4, N_LANDS),
        law=table(LAW_CATEGORY, 6, MAX_LAWS),
        card=table(CARD_KIND, 6, MAX_CARDS),
    )
    if scratch is not None:
        t.scratch = scratch

        def piece(name: str, *shape: int) -> np.ndarray:
            at = SCRATCH.piece(name)
            return scratch[at.offset : at.offset + at.size].reshape(shape or (at.size,))

        t.mv = piece("moves", MAX_MOVES, MOVE_FIELDS)
        t.score = piece("scores")
        t.tied = piece("tied")
        t.cand = piece("candidates")
        t.votes = piece("votes")
        t.order = piece("order")
        t.owner = piece("owners")
        t.contest = piece("contest", N_LANDS, MAX_PLAYERS)
        t.decl = piece("declared", 5, DECLARED_WIDTH)
    return t


def position(**params) -> SimpleNamespace:
    """The starting position of a game with ``params`` (no tokens placed): the flat position,
    the scratch and the trial stream (``context``, all zero but the stream word: PLAIN mode,
    context.py), with the table views of :func:`tables`."""
    params.setdefault("start_tokens", 0)
    p = CouncilGameParams(**params)
    state = np.zeros(POSITION_SIZE, dtype=np.int64)
    scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
    s = tables(state, scratch)
    s.p = p
    s.context = np.array([12345] + [0] * (CTX - 1), dtype=np.uint64)
    setup(pack(p), s.context, s.state, s.scratch)
    return s


def on_land(s, player: int, name: str, n: int) -> None:
    s.tok[player, land(name)] = n
    s.pl[player, P_SUPPLY] -= n


def on_char(s, player: int, name: str, n: int) -> None:
    s.tok[player, N_LANDS + char(name)] = n
    s.pl[player, P_SUPPLY] -= n


def full(s, name: str) -> None:
    """Fill a Land's empty cells with civilians, so nobody may give up its income for a token."""
    i = land(name)
    s.land[i, L_CIV] = s.land[i, L_SIZE] - s.land[i, L_SOL]


def income(s) -> None:
    income_phase(s.context, s.state, s.scratch)


def tax(s) -> None:
    tax_phase(s.context, s.state, s.scratch)


BLUE, RED, YELLOW = 0, 1, 2

MILITARY = CATEGORIES.index("military")


def place(s, k: int, kind: int, owner: int, target: str, bribe: bool = False) -> None:
    """A face-down card k placed last turn, carrying one of its owner's tokens."""
    s.card[k] = (kind, owner, char(target), 2, int(bribe), 0)
    s.pl[owner, P_SUPPLY] -= 1


def reveal(s) -> None:
    s.g[TURN] = 1
    reveal_step(s.context, s.state, s.scratch)
    assert violations(s.state) == 0


def streams(build, played: int, n: int = 48):
    """Positions after the reveal step on n streams, keeping those where ``played`` was revealed."""
    out = []
    for seed in range(n):
        s = build()
        s.context[0] = np.uint64(1000 + seed)
        reveal(s)
        if s.g[PLAYED + played] > 0:
            out.append(s)
    assert out, "the card was never revealed"
    return out
