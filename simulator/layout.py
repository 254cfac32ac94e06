"""Flat rows by name: a declared list of named pieces, from which every offset is generated.

A procedure's packed parameter row, a kernel's metric row and a whole game's state are flat
arrays: Numba reads them fastest that way. Typed by position (``packed[v, 7]``), a field moved in
``pack`` and not in the kernel is a silent wrong answer. A :class:`Layout` declares the pieces once,
in order, with their sizes (OpenSpiel builds its observation tensors the same way, from (name,
shape) pieces); the offsets are computed from it, taken into module constants with :meth:`at`
(plain ``int``s, which Numba folds into the compiled code as literals) and the row is written by
name with :meth:`row`, which refuses a missing, unknown or mis-sized piece.

Example::

    PACKED = Layout("units", "rating", ("thresholds", 2 * 11))
    UNITS, RATING, THRESHOLDS = PACKED.at("units"), PACKED.at("rating"), PACKED.at("thresholds")

    def pack(p):
        return PACKED.row(units=p.units, rating=p.rating, thresholds=halves(p))

A house test checks, for every procedure, that its packed layout is the one its ``pack`` writes
and that its metric layout names the metrics of ``metrics()`` in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named piece of a layout: ``size`` consecutive slots from ``offset``."""

    name: str
    offset: int
    size: int


@dataclass(frozen=True, init=False)
class Layout:
    """Named pieces of a flat row, in order; a piece is a name (one slot) or ``(name, size)``."""

    pieces: tuple[Piece, ...]
    size: int
    _by_name: dict[str, Piece] = field(repr=False, compare=False)

    def __init__(self, *pieces: str | tuple[str, int]) -> None:
        placed: list[Piece] = []
        offset = 0
        for piece in pieces:
            name, size = (piece, 1) if isinstance(piece, str) else piece
            if not name.isidentifier():
                raise ValueError(f"layout piece {name!r}: a name must be an identifier")
            if size < 0:
                raise ValueError(f"layout piece {name!r}: size {size} is negative")
            placed.append(Piece(name, offset, int(size)))
            offset += int(size)
        by_name = {p.name: p for p in placed}
        if len(by_name) != len(placed):
            names = [p.name for p in placed]
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"layout pieces named twice: {', '.join(twice)}")
        object.__setattr__(self, "pieces", tuple(placed))
        object.__setattr__(self, "size", offset)
        object.__setattr__(self, "_by_name", by_name)

    @property
    def names(self) -> tuple[str, ...]:
        """The pieces' names, in order."""
        return tuple(p.name for p in self.pieces)

    def at(self, name: str) -> int:
        """The offset of piece ``name`` (a plain int, for a module constant Numba folds)."""
        try:
            return self._by_name[name].offset
        except KeyError:
            raise KeyError(f"no piece {name!r} in layout ({', '.join(self.names)})") from None

    def piece(self, name: str) -> Piece:
        """The piece ``name``: its offset and size."""
        self.at(name)
        return self._by_name[name]

    def slots(self) -> list[str]:
        """One name per slot: ``name`` for a one-slot piece, ``name[k]`` for a longer one's k-th."""
        out: list[str] = []
        for p in self.pieces:
            out += [p.name] if p.size == 1 else [f"{p.name}[{k}]" for k in range(p.size)]
        return out

    def row(self, dtype: type = np.float64, **values: float | Iterable[float]) -> np.ndarray:
        """A row with every piece written by name; a missing, unknown or mis-sized piece raises."""
        unknown = sorted(set(values) - set(self._by_name))
        missing = [n for n in self.names if n not in values]
        if unknown or missing:
            parts = []
            if missing:
                parts.append(f"missing {', '.join(missing)}")
            if unknown:
                parts.append(f"unknown {', '.join(unknown)}")
            raise ValueError(f"layout row: {'; '.join(parts)}")
        row: np.ndarray = np.zeros(self.size, dtype=dtype)
        for p in self.pieces:
            value = values[p.name]
            if p.size == 1 and not isinstance(value, (Sequence, np.ndarray)):
                row[p.offset] = value
                continue
            items = np.asarray(value if isinstance(value, np.ndarray) else list(value))  # type: ignore[arg-type]
            if items.shape != (p.size,):
                raise ValueError(
                    f"layout row: piece {p.name!r} takes {p.size} values, got {items.size}"
                )
            row[p.offset : p.offset + p.size] = items
        return row

    def read(self, row: np.ndarray, name: str) -> np.ndarray:
        """The slots of piece ``name`` in ``row`` (a view), for tests and plain-Python twins."""
        p = self.piece(name)
        return row[..., p.offset : p.offset + p.size]
