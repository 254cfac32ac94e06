"""Checks shared by the Here I Stand procedures' scenario tables (not a procedure: private)."""

from __future__ import annotations

from collections.abc import Sequence


def check_table(rows: list[tuple[int, int]], totals: Sequence[int], what: str) -> None:
    """Every total in ``totals`` falls in exactly one row ``(low, high)``; ValueError naming the
    entry (1-based) that overlaps another or follows a gap."""
    owner: dict[int, int] = {}
    for i, (low, high) in enumerate(rows):
        for t in range(low, high + 1):
            if t in owner:
                raise ValueError(
                    f"entry {i + 1} ({low}-{high}) overlaps entry {owner[t] + 1} at {what} {t}: "
                    "each total belongs to one row"
                )
            owner[t] = i
    for t in sorted(totals):
        if t not in owner:
            after = [i for i, (low, _) in enumerate(rows) if low > t]
            where = (
                f"before entry {min(after, key=lambda i: rows[i][0]) + 1}"
                if after
                else "at the end"
            )
            raise ValueError(
                f"no entry covers {what} {t} (gap {where}): every possible total "
                f"{min(totals)}-{max(totals)} needs a row"
            )
