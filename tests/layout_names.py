"""Reading a procedure's metric names through its metric layout, for the layout tests
(tests/test_layouts.py for every procedure, tests/test_his_layouts.py with more parameters).

A family whose size depends on the parameters is a sized piece declared at its largest; the row
of given parameters holds as many of the family as they make and closes up after it.
"""

from __future__ import annotations

from simulator.layout import Layout


def metric_names_by_layout(layout: Layout, names: list[str]) -> list[str]:
    """``names`` read through ``layout``: a one-slot piece takes the next name if it is the
    piece's; a sized piece takes the run of ``piece.*`` names that follows (at most its size,
    possibly none: the row closes up after a family the parameters make shorter). Returns the
    names taken, in order, to compare with ``names``."""
    taken: list[str] = []
    rest = list(names)
    for piece in layout.pieces:
        if piece.size == 1 and rest and rest[0] == piece.name:
            taken.append(rest.pop(0))
            continue
        if piece.size == 1:
            continue
        run = 0
        while rest and family(rest[0]) == piece.name:
            taken.append(rest.pop(0))
            run += 1
        assert run <= piece.size, f"piece {piece.name} holds {piece.size} metrics, got {run}"
    return taken


def family(name: str) -> str:
    """The family of a metric name: ``edward_by_turn.3`` -> ``edward_by_turn``; a per-raid name
    ``ottoman_vp.raid2`` -> ``raid`` (the raids' piece, whose slots run raid by raid)."""
    head, _, tail = name.partition(".")
    if tail.startswith("raid") and tail[4:].isdigit():
        return "raid"
    return head
