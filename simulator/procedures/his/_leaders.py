"""Leaders and formations shared by the Here I Stand combat procedures (private).

A leader's battle rating may be 0 and it is still a leader: it can be captured (Here I Stand rules
§5.4 ⑥). ``"none"`` means no leader. Formations (Here I Stand rules §5.2): without a leader a
formation holds at most ``NO_LEADER_CAP`` (4) units; with one leader at most its command rating;
with several, at most the sum of the two highest command ratings. An attack or an assault is made by
one formation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator, WithJsonSchema

#: Units a formation without a leader may hold (Here I Stand rules §5.2).
NO_LEADER_CAP = 4
MAX_COMMAND = 24


#: Highest battle rating a leader field takes.
MAX_LEADER = 6


def _leader(value: Any) -> int | str:
    """A battle rating 0..MAX_LEADER, or "none" (one clear message instead of a union's two)."""
    if value == "none":
        return "none"
    if isinstance(value, bool) or not isinstance(value, int):
        # Worded as for any integer field; "none" is in the field's description.
        raise ValueError("Input should be a valid integer")
    if not 0 <= value <= MAX_LEADER:
        raise ValueError(f"must be between 0 and {MAX_LEADER}")
    return value


#: A leader: its battle rating, or "none" for no leader.
Leader = Annotated[
    int | Literal["none"],
    PlainValidator(_leader),
    WithJsonSchema(
        {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_LEADER}, {"const": "none"}]}
    ),
]


def leader_field(what: str = "leader") -> Any:
    """A ``leader`` field: a battle rating, or ``"none"`` (the default)."""
    return Field(
        default="none",
        description=f"battle rating of the best {what} (0 is a leader too: it can be captured), "
        '"none" for no leader',
    )


def command_field() -> Any:
    return Field(
        default=None,
        ge=0,
        le=MAX_COMMAND,
        description="command rating of the formation's leaders: one leader's, or the sum of the "
        "two highest with several (Here I Stand rules §5.2); without it a formation with a leader "
        "is not checked against its cap",
    )


def formation_cap_field() -> Any:
    return Field(
        default=True,
        description="the attacker is one formation: at most 4 units without a leader, at most "
        "the command rating with leaders (Here I Stand rules §5.2); false lifts the cap (house "
        "rule)",
    )


def rating(leader: int | str) -> int:
    """The battle rating to add to the dice: 0 for no leader."""
    return 0 if leader == "none" else int(leader)


def present(leader: int | str) -> bool:
    """A leader is there (rated 0 included): it can be captured."""
    return leader != "none"


def formation_problems(
    side: str, units: int, leader: int | str, command: int | None, what: str = "attacks"
) -> list[tuple[tuple[str | int, ...], str, Any]]:
    """Why the rules forbid ``units`` in one attacking formation (Here I Stand rules §5.2), as
    ``Procedure.forbidden`` triples; empty when they allow it."""
    if not present(leader):
        if units > NO_LEADER_CAP:
            return [
                (
                    (side, "units"),
                    f"one formation {what}, and without a leader it holds at most {NO_LEADER_CAP} "
                    "units (Here I Stand rules §5.2); add a leader with a command rating, or set "
                    "formation_cap: false for a house rule",
                    units,
                )
            ]
        return []
    if command is None:
        return []  # no command rating given: the cap cannot be checked (said in the notes)
    if units > command:
        return [
            (
                (side, "units"),
                f"one formation {what}, and its leaders' command rating {command} lets it hold at "
                f"most {command} units (Here I Stand rules §5.2); or set formation_cap: false for "
                "a house rule",
                units,
            )
        ]
    return []
