"""A scenario's ``check:`` section: which metrics the gate tests, and how many trials it runs.

.. code-block:: yaml

    check:
      trials: 500                      # trials per variant and point in the gate (slow scenarios)
      attacker_wins: {detect: 0.01}    # choose the trials so a 0.01 shift is caught (80% power)
      attacker_hits: 0.5               # an absolute tolerance (the old form): gated, and drift
                                       # when it moves by more than 0.5
      defender_hits: {tolerance: 0.2}
      attacker_units_left: {gate: false}   # a headline metric left out of the family

A metric is *gated* (its per-trial outcomes are kept in the baseline, it belongs to the Holm
family and can fail the gate) when it is a headline metric of its procedure or is named here,
unless ``gate: false``. Every other metric is still rerun and reported, never gated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from simulator.limits import MAX_TRIALS
from simulator.procedures.base import Metric

#: Keys of ``check:`` that are settings of the scenario, not metric names.
RESERVED = ("trials",)


class MetricCheck(BaseModel):
    """``check: {metric: ...}``: a tolerance, a detectable effect to size the gate for, or
    ``gate: false``. A bare number is a tolerance."""

    model_config = ConfigDict(extra="forbid", strict=True)

    tolerance: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="drift when the metric moves by more than this (absolute)",
    )
    detect: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="choose the gate's trials so a shift this large is caught with 80% power",
    )
    gate: bool = Field(
        default=True, description="false: report the metric but keep it out of the gate"
    )

    @model_validator(mode="before")
    @classmethod
    def _number_is_a_tolerance(cls, v: Any) -> Any:
        if isinstance(v, int | float) and not isinstance(v, bool):
            return {"tolerance": float(v)}
        return v


def _trials_whole(v: dict[str, MetricCheck]) -> dict[str, MetricCheck]:
    t = v.get("trials")
    if t is not None:
        x = t.tolerance
        if x is None or t.detect is not None or not t.gate:
            raise ValueError("trials must be a number of trials, e.g. `trials: 500`")
        if not (math.isfinite(x) and x.is_integer() and 1 <= x <= MAX_TRIALS):
            raise ValueError(
                f"trials must be a whole number from 1 to {MAX_TRIALS:.0e} (got {x:g})"
            )
    return v


_VALUE_SCHEMA = {
    "anyOf": [
        {"type": "number", "minimum": 0, "description": "trials, or a metric's tolerance"},
        {k: v for k, v in MetricCheck.model_json_schema().items() if k != "title"},
    ]
}

#: The type of the ``check:`` field of a scenario file.
CheckSpec = Annotated[
    dict[str, Annotated[MetricCheck, WithJsonSchema(_VALUE_SCHEMA)]],
    AfterValidator(_trials_whole),
]


def metric_names(spec: Mapping[str, Any]) -> list[str]:
    """The metric names a ``check:`` section mentions (its settings left out)."""
    return [k for k in spec if k not in RESERVED]


@dataclass(frozen=True)
class GateSettings:
    """A scenario's ``check:`` section resolved against its procedure's metrics."""

    trials: int | None = None
    gated: tuple[str, ...] = ()
    tolerance: dict[str, float] = field(default_factory=dict)
    detect: dict[str, float] = field(default_factory=dict)

    def is_gated(self, metric: str) -> bool:
        return metric in self.gated


def settings_of(spec: Mapping[str, Any], metrics: list[Metric]) -> GateSettings:
    """Resolve ``check:`` (values as parsed: :class:`MetricCheck` or plain numbers/dicts)."""
    parsed = {
        k: v if isinstance(v, MetricCheck) else MetricCheck.model_validate(v)
        for k, v in spec.items()
    }
    trials = parsed.pop("trials", None)
    gated = []
    for m in metrics:
        c = parsed.get(m.name)
        if (m.headline or c is not None) and (c is None or c.gate):
            gated.append(m.name)
    return GateSettings(
        trials=int(trials.tolerance) if trials is not None and trials.tolerance else None,
        gated=tuple(gated),
        tolerance={k: c.tolerance for k, c in parsed.items() if c.tolerance is not None},
        detect={k: c.detect for k, c in parsed.items() if c.detect is not None and c.gate},
    )
