"""Checks shared by the Here I Stand procedures' scenario tables (not a procedure: private)."""

from __future__ import annotations

from collections.abc import Sequence

from simulator.procedures.his._validation import fail


def check_table(rows: list[tuple[int, int]], totals: Sequence[int], what: str) -> None:
    """Every total in ``totals`` falls in exactly one row ``(low, high)``; otherwise a
    ValidationError located at the entry (0-based in ``loc``, 1-based in the message) that
    overlaps another or follows a gap. Raised inside a field validator, pydantic prefixes the
    table's own location, so the scenario loader points at the row (``params.riches.1.low``)."""
    owner: dict[int, int] = {}
    for i, (low, high) in enumerate(rows):
        for t in range(low, high + 1):
            if t in owner:
                fail(
                    "table",
                    (i, "low"),
                    f"entry {i + 1} ({low}-{high}) overlaps entry {owner[t] + 1} at {what} {t}: "
                    "each total belongs to one row",
                    low,
                )
            owner[t] = i
    for t in sorted(totals):
        if t not in owner:
            after = [i for i, (low, _) in enumerate(rows) if low > t]
            span = f"every possible total {min(totals)}-{max(totals)} needs a row"
            if after:
                k = min(after, key=lambda i: rows[i][0])
                fail(
                    "table",
                    (k, "low"),
                    f"no entry covers {what} {t} (gap before entry {k + 1}): {span}",
                    rows[k][0],
                )
            k = max(range(len(rows)), key=lambda i: rows[i][1])
            fail(
                "table",
                (k, "high"),
                f"no entry covers {what} {t} (gap after entry {k + 1}, the last): {span}",
                rows[k][1],
            )
