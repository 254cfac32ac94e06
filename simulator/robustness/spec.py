"""The ``robustness:`` section of a scenario, and what a robustness run reruns.

::

    robustness:
      policies:                  # play levels, weakest first: every variant rerun under each
        - random
        - greedy
        - {agent: rollout, playouts: 8, horizon: 0, candidates: 4, fallback: 2}
      assumptions: true          # rerun with each declared assumption moved to each alternative
                                 # (or a list of their names: [setup_order, start_tokens])
      seconds: 120               # the reruns' time budget (default 120; --robustness-seconds)
      trials: 5000               # at most this many trials a rerun (default: the main run's)

Each rerun is sized by power (:mod:`simulator.robustness.sizing`): the deals it needs to see the
main run's effects, within the time budget.

A *level* is a set of parameter overrides applied to every variant (``{"policies": ...}`` for a
play level; an :class:`~simulator.procedures.base.Alternative`'s overrides for an assumption);
each rerun uses the scenario's seed, so every level plays the same deals.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulator.limits import MAX_TRIALS
from simulator.yaml_loader import Loc, Positions, Problem, dotted

#: Most levels one robustness run may rerun (play levels plus assumption alternatives).
MAX_LEVELS = 64
#: The reruns' default time budget, seconds (a scenario's ``seconds:``, ``--robustness-seconds``).
DEFAULT_SECONDS = 120.0
#: The largest budget one may ask for (a day).
MAX_SECONDS = 86_400.0


class RobustnessSpec(BaseModel):
    """The ``robustness:`` section."""

    model_config = ConfigDict(extra="forbid", strict=True)

    policies: list[Any] = Field(
        default_factory=list,
        max_length=16,
        description="play levels (each a `policies:` value), weakest first; the comparison is "
        "rerun under each on the same deals",
    )
    assumptions: bool | list[str] = Field(
        default=False,
        description="rerun the comparison with each declared assumption (`sim list`) moved to "
        "each of its alternatives, one at a time: true for all of them, or a list of their names",
    )
    trials: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TRIALS,
        description="at most this many trials a rerun (default: the main run's trials); each "
        "rerun is sized by power to see the main effects, within `seconds`",
    )
    seconds: float | None = Field(
        default=None,
        gt=0,
        le=MAX_SECONDS,
        description=f"time budget of all the reruns, in seconds (default {DEFAULT_SECONDS:.0f}; "
        "--robustness-seconds overrides it)",
    )


@dataclass(frozen=True)
class Level:
    """One rerun: its label, what it is (``policies`` or ``assumption``) and its overrides."""

    label: str
    kind: str
    overrides: dict[str, Any]
    #: For an assumption: its name, and the alternative's tag.
    assumption: str = ""
    tag: str = ""


def from_option(text: str | None, spec: RobustnessSpec | None) -> RobustnessSpec | None:
    """The robustness run ``--robustness TEXT`` asks for, over the scenario's section ``spec``.

    Raises:
        ValueError: the text is none of the forms the option takes, or asks for play levels the
            scenario does not list.
    """
    if text is None:
        return spec
    text = text.strip()
    if text == "none":
        return None
    if text.startswith("policies="):
        names = [n.strip() for n in text.split("=", 1)[1].split(",") if n.strip()]
        if not names:
            raise ValueError("--robustness policies=...: name at least one agent")
        return RobustnessSpec(
            policies=names,
            trials=spec.trials if spec else None,
            seconds=spec.seconds if spec else None,
        )
    if text not in ("policies", "assumptions", "all"):
        raise ValueError(
            f"--robustness {text!r}: use policies, policies=AGENT,AGENT..., assumptions, all "
            "or none"
        )
    policies = list(spec.policies) if spec is not None and text in ("policies", "all") else []
    if text == "policies" and not policies:
        raise ValueError(
            "--robustness policies: the scenario lists no play levels (robustness: "
            "{policies: [...]}); name them: --robustness policies=random,greedy"
        )
    return RobustnessSpec(
        policies=policies,
        assumptions=text in ("assumptions", "all"),
        trials=spec.trials if spec is not None else None,
        seconds=spec.seconds if spec is not None else None,
    )


def policy_label(value: Any) -> str:
    """A play level's name for reports: ``greedy``, ``rollout(playouts=8, horizon=0)``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "agent" in value:
        rest = ", ".join(f"{k}={v}" for k, v in value.items() if k != "agent")
        return f"{value['agent']}({rest})" if rest else str(value["agent"])
    if isinstance(value, list):
        return "[" + ", ".join(policy_label(v) for v in value) + "]"
    return str(value)


def levels(spec: RobustnessSpec | None, procedure: Any) -> list[Level]:
    """Every rerun the section asks for: play levels first, then each assumption alternative."""
    if spec is None:
        return []
    out = [Level(policy_label(p), "policies", {"policies": p}) for p in spec.policies]
    if spec.assumptions:
        chosen = spec.assumptions if isinstance(spec.assumptions, list) else None
        for a in procedure.assumptions:
            if chosen is not None and a.name not in chosen:
                continue
            for alt in a.alternatives:
                out.append(
                    Level(
                        f"{a.name}: {alt.label}", "assumption", dict(alt.overrides), a.name, alt.tag
                    )
                )
    return out


def robustness_problems(
    spec: RobustnessSpec,
    proc: Any,
    base: Any,
    pos: Positions,
    file: str,
    swept: bool,
    tournament: bool,
) -> list[Problem]:
    """What the ``robustness:`` section asks that the scenario cannot rerun (``base``: the
    scenario's own parameters; ``swept``, ``tournament``: whether it has a sweep, a tournament)."""
    problems: list[Problem] = []

    def problem(loc: Loc, message: str) -> None:
        line, col = pos.nearest(("robustness", *loc), prefer_key=True)
        problems.append(Problem(file, line, col, dotted(("robustness", *loc)), message))

    if swept:
        problem((), "reruns a comparison; a sweep has no verdict to rerun: remove one of them")
    if tournament:
        problem((), "reruns a comparison of variants; a tournament compares agents already")
    if spec.policies and "policies" not in proc.params_model.model_fields:
        problem(("policies",), f"{proc.name} has no policies: its trials involve no agents")
    elif spec.policies:
        dump = base.model_dump(mode="json")
        for i, level in enumerate(spec.policies):
            try:
                proc.params_model.model_validate({**dump, "policies": level}, strict=True)
            except ValidationError as e:
                why = "; ".join(err["msg"] for err in e.errors()[:2])
                problem(("policies", i), f"is not a play level of {proc.name}: {why}")
    if spec.assumptions and not proc.assumptions:
        problem(("assumptions",), f"{proc.name} declares no assumptions to move (sim list)")
    elif isinstance(spec.assumptions, list):
        known = [a.name for a in proc.assumptions]
        for i, name in enumerate(spec.assumptions):
            if name not in known:
                near = difflib.get_close_matches(name, known, n=1)
                hint = (
                    f"; did you mean {near[0]!r}?" if near else f" (it declares {', '.join(known)})"
                )
                problem(("assumptions", i), f"{proc.name} declares no assumption {name!r}{hint}")
    return problems
