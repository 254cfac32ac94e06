"""The ``tournament:`` section of a scenario and the seatings it plays.

::

    tournament:
      agents:                      # entrants, by the names used in reports
        random: random
        greedy: greedy
        rollout: {agent: rollout, playouts: 16}
        mcts: {agent: mcts, iterations: 400}
      seatings: auto               # auto | all | balanced | rotation

Every deal is played once per seating; a seating gives each seat an entrant. Every design below
puts every entrant in every seat equally often, so seat effects cancel from entrant comparisons:

- ``all``: every ordered choice of distinct entrants for the seats (``E!/(E-S)!`` seatings, at
  most ``MAX_SEATINGS``);
- ``balanced``: a Williams Latin square (seats = entrants): each entrant in each seat once and
  right after each other entrant equally often (``E`` seatings, ``2E`` for odd ``E``);
- ``rotation``: seat ``k`` of seating ``r`` gets entrant ``(r + k) mod E`` (``E`` seatings; an
  entrant holds several seats of one game when there are more seats than entrants);
- ``auto``: ``balanced`` when seats = entrants, ``all`` when there are more entrants than seats
  and at most 60 such seatings, ``rotation`` otherwise.
"""

from __future__ import annotations

import itertools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from simulator.agents.spec import Agent, AgentSpec, as_spec

SeatingDesign = Literal["auto", "all", "balanced", "rotation"]
MAX_ALL_SEATINGS = 60
#: The most seatings (games per deal) any design may ask for: ``all`` grows as E!/(E-S)!.
MAX_SEATINGS = 720


class TournamentSpec(BaseModel):
    """The ``tournament:`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    agents: dict[str, Agent] = Field(
        description="entrants: report name -> agent (a rung name or {agent: ..., budget})"
    )
    seatings: SeatingDesign = Field(
        default="auto",
        description="how entrants are seated on every deal: all | balanced | rotation | auto",
    )

    @field_validator("agents")
    @classmethod
    def _entrant_names(cls, v: dict[str, Agent]) -> dict[str, Agent]:
        if len(v) < 2:
            raise ValueError("a tournament needs at least two entrants")
        if len(v) > 8:
            raise ValueError("at most 8 entrants (the matchup matrix grows as their square)")
        for name in v:
            if not name or not all(c.isalnum() or c in "_-" for c in name):
                raise ValueError(f"entrant name {name!r} must be letters, digits, '_' or '-'")
        return v

    def entrants(self) -> list[str]:
        return list(self.agents)

    def specs(self) -> list[AgentSpec]:
        return [as_spec(a) for a in self.agents.values()]


def williams(n: int) -> list[tuple[int, ...]]:
    """A Williams design for ``n`` treatments: rows where each treatment is in each column equally
    often and follows each other treatment equally often (``n`` rows; ``2n`` for odd ``n``)."""
    first = [0]
    lo, hi = 1, n - 1
    for k in range(1, n):
        if k % 2:
            first.append(lo)
            lo += 1
        else:
            first.append(hi)
            hi -= 1
    rows = [tuple((x + r) % n for x in first) for r in range(n)]
    if n % 2:
        rows += [tuple(reversed(row)) for row in rows]
    return rows


def seatings(design: SeatingDesign, entrants: int, seats: int) -> list[tuple[int, ...]]:
    """The seatings of a deal: for each, the entrant (index) in each seat."""
    if design == "auto":
        if entrants == seats:
            design = "balanced"
        elif entrants > seats and _count_all(entrants, seats) <= MAX_ALL_SEATINGS:
            design = "all"
        else:
            design = "rotation"
    if design == "all":
        if entrants < seats:
            raise ValueError(
                f"seatings 'all' needs at least as many entrants as seats ({seats}); use 'rotation'"
            )
        count = _count_all(entrants, seats)
        if count > MAX_SEATINGS:
            # Each seating is one more whole game per deal, packed before the first one runs.
            raise ValueError(
                f"seatings 'all' of {entrants} entrants in {seats} seats is {count:,} seatings "
                f"(games per deal), over the limit of {MAX_SEATINGS:,}; use 'rotation' or "
                "'balanced' (each entrant in each seat equally often, with far fewer games)"
            )
        return list(itertools.permutations(range(entrants), seats))
    if design == "balanced":
        if entrants != seats:
            raise ValueError(
                f"seatings 'balanced' needs as many entrants as seats ({entrants} entrants, "
                f"{seats} seats); use 'all' or 'rotation'"
            )
        return williams(entrants)
    return [tuple((r + k) % entrants for k in range(seats)) for r in range(entrants)]


def _count_all(entrants: int, seats: int) -> int:
    out = 1
    for k in range(seats):
        out *= entrants - k
    return out
