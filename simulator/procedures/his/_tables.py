"""Checks shared by the Here I Stand procedures' scenario tables (not a procedure: private)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError


def _entry_error(message: str, entry: int, field: str, value: int) -> ValidationError:
    """An error located at ``(entry, field)`` of the table being validated: raised inside a field
    validator, pydantic prefixes the table's own location, so the scenario loader points at the
    offending row (``params.riches.1.low``), not at the whole table."""
    return ValidationError.from_exception_data(
        "table",
        [
            InitErrorDetails(
                type=PydanticCustomError("table_rows", message.replace("{", "(").replace("}", ")")),
                loc=(entry, field),
                input=value,
            )
        ],
    )


def check_table(rows: list[tuple[int, int]], totals: Sequence[int], what: str) -> None:
    """Every total in ``totals`` falls in exactly one row ``(low, high)``; otherwise a
    ValidationError located at the entry (0-based in ``loc``, 1-based in the message) that
    overlaps another or follows a gap."""
    owner: dict[int, int] = {}
    for i, (low, high) in enumerate(rows):
        for t in range(low, high + 1):
            if t in owner:
                raise _entry_error(
                    f"entry {i + 1} ({low}-{high}) overlaps entry {owner[t] + 1} at {what} {t}: "
                    "each total belongs to one row",
                    i,
                    "low",
                    low,
                )
            owner[t] = i
    for t in sorted(totals):
        if t not in owner:
            after = [i for i, (low, _) in enumerate(rows) if low > t]
            span = f"every possible total {min(totals)}-{max(totals)} needs a row"
            if after:
                k = min(after, key=lambda i: rows[i][0])
                raise _entry_error(
                    f"no entry covers {what} {t} (gap before entry {k + 1}): {span}",
                    k,
                    "low",
                    rows[k][0],
                )
            k = max(range(len(rows)), key=lambda i: rows[i][1])
            raise _entry_error(
                f"no entry covers {what} {t} (gap after entry {k + 1}, the last): {span}",
                k,
                "high",
                rows[k][1],
            )
