"""How a scenario names its players: the ``policies:`` key shared by every whole game.

``policies`` is one agent for every seat or a list with one per seat. An agent is a name
(``random``, ``greedy``, ``rollout``, ``mcts``, and ``optimal`` where an exact solver plays)
or a mapping with its budget::

    policies: greedy
    policies: [mcts, greedy, random, random]
    policies: {agent: mcts, iterations: 400}
    policies: [{agent: rollout, playouts: 16, horizon: 2}, greedy]
    policies: {agent: rollout, playouts: 8, candidates: 3, fallback: 2}

The search rungs may lean on what greedy knows (:mod:`simulator.agents.prior`): ``candidates``
searches only greedy's best moves, ``prior`` counts greedy's one-step value as that many
playouts of each move, ``fallback`` keeps greedy's move unless search beats it clearly. All
three are off by default: ``{agent: mcts, iterations: 400}`` is plain UCT.

Kernels receive agents as packed rows (:func:`pack_agents`), one per seat, so a game's kernel does
not know how a scenario spelled them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationInfo

AgentName = Literal["random", "greedy", "rollout", "mcts", "optimal"]

#: Codes of the rungs of the ladder as kernels see them (column ``AGENT_KIND`` of a packed row).
AGENT_CODES: dict[str, int] = {"random": 0, "greedy": 1, "rollout": 2, "mcts": 3, "optimal": 4}
#: The rung only a game with an exact solver seats (:mod:`simulator.agents.table`).
SOLVED = "optimal"

# Columns of one packed agent row.
AGENT_KIND = 0
AGENT_ITERATIONS = 1
AGENT_PLAYOUTS = 2
AGENT_HORIZON = 3
AGENT_EXPLORATION = 4
AGENT_CANDIDATES = 5
AGENT_PRIOR = 6
AGENT_FALLBACK = 7
AGENT_ROW = 8


class AgentSpec(BaseModel):
    """One agent with its budget. Budgets that do not apply to its rung are ignored."""

    # strict: `iterations: true` is no budget (lax mode would read it as 1).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    agent: AgentName = Field(description="rung of the skill ladder")
    iterations: int = Field(
        default=200, ge=1, le=100_000, description="mcts: tree-search iterations per decision"
    )
    playouts: int = Field(
        default=16, ge=1, le=10_000, description="rollout: playouts per legal move"
    )
    horizon: int = Field(
        default=2,
        ge=0,
        le=1_000,
        description="rollout/mcts: rounds a playout runs before the heuristic scores it "
        "(0 = to the end of the game)",
    )
    exploration: float = Field(
        default=1.4, ge=0.0, le=100.0, description="mcts: UCT exploration constant"
    )
    candidates: int = Field(
        default=0,
        ge=0,
        le=1_000,
        description="rollout/mcts: search only greedy's this many best moves by their one-step "
        "heuristic value (progressive pruning; greedy's own choice always among them; "
        "1 = play greedy's move; 0 = every legal move)",
    )
    prior: float = Field(
        default=0.0,
        ge=0.0,
        le=10_000.0,
        description="rollout/mcts: greedy's one-step heuristic value of a move counts as this "
        "many playouts of it (mcts: at the root; 0 = no prior)",
    )
    fallback: float = Field(
        default=0.0,
        ge=0.0,
        le=100.0,
        description="rollout/mcts: play greedy's move unless search's choice beats it by more "
        "than this many standard errors of their difference (0 = always search's choice)",
    )


def _agent_kind(v: Any) -> str:
    return "name" if isinstance(v, str) else "spec"


Agent = Annotated[
    Annotated[AgentName, Tag("name")] | Annotated[AgentSpec, Tag("spec")],
    Discriminator(_agent_kind),
]


def _policies_kind(v: Any) -> str:
    return "per_seat" if isinstance(v, list | tuple) else "one"


Policies = Annotated[
    Annotated[Agent, Tag("one")] | Annotated[list[Agent], Tag("per_seat")],
    Discriminator(_policies_kind),
]
"""The ``policies:`` field type: one agent for all seats, or a list of one per seat."""


def as_spec(agent: str | AgentSpec) -> AgentSpec:
    """The agent with its budget, defaults filled in for a bare name."""
    return AgentSpec(agent=agent) if isinstance(agent, str) else agent  # type: ignore[arg-type]


def seat_agents(policies: Any, seats: int, solvable: bool = False) -> list[AgentSpec]:
    """One :class:`AgentSpec` per seat; ``optimal`` only in a game the exact solver takes
    (``solvable``: the game checks its own size).

    Raises:
        ValueError: a list whose length is not ``seats``; ``optimal`` in another game.
    """
    if isinstance(policies, list | tuple):
        if len(policies) != seats:
            raise ValueError(f"must name one agent per seat ({seats} seats, got {len(policies)})")
        out = [as_spec(a) for a in policies]
    else:
        out = [as_spec(policies)] * seats
    if not solvable and any(a.agent == SOLVED for a in out):
        raise ValueError(
            "optimal plays only in a game the exact solver takes (template.pig, 2 players; "
            "docs/agents.md, 'Optimal play')"
        )
    return out


def one_agent_or_one_per_seat(policies: Any, info: ValidationInfo) -> Any:
    """The ``policies`` validator of a game whose model counts its seats in ``players`` (validated
    before ``policies``): one agent, or a list of exactly one per seat. A model takes it as
    ``_policies = field_validator("policies")(one_agent_or_one_per_seat)``.

    Raises:
        ValueError: a list whose length is not ``players``.
    """
    players = info.data.get("players")
    if players is not None:
        seat_agents(policies, players)  # raises on a list of the wrong length
    return policies


def agent_label(agent: str | AgentSpec) -> str:
    """A short name for reports: ``mcts(400)``, ``rollout(16x2)``, ``greedy``; the knobs
    that lean on greedy follow when set: ``rollout(8x2,k3,z2)``."""
    spec = as_spec(agent)
    guide = ""
    if spec.candidates:
        guide += f",k{spec.candidates}"
    if spec.prior:
        guide += f",p{spec.prior:g}"
    if spec.fallback:
        guide += f",z{spec.fallback:g}"
    if spec.agent == "mcts":
        return f"mcts({spec.iterations}{guide})"
    if spec.agent == "rollout":
        return f"rollout({spec.playouts}x{spec.horizon}{guide})"
    return spec.agent


def pack_agents(agents: list[AgentSpec]) -> np.ndarray:
    """Packed rows, shape ``(seats, AGENT_ROW)`` float64, for a kernel."""
    rows = np.zeros((len(agents), AGENT_ROW), dtype=np.float64)
    for k, a in enumerate(agents):
        rows[k, AGENT_KIND] = AGENT_CODES[a.agent]
        rows[k, AGENT_ITERATIONS] = a.iterations
        rows[k, AGENT_PLAYOUTS] = a.playouts
        rows[k, AGENT_HORIZON] = a.horizon
        rows[k, AGENT_EXPLORATION] = a.exploration
        rows[k, AGENT_CANDIDATES] = a.candidates
        rows[k, AGENT_PRIOR] = a.prior
        rows[k, AGENT_FALLBACK] = a.fallback
    return rows
