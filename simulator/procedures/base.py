"""The Procedure contract: what one dice-heavy rule declares so the engine can run it.

A procedure is a frozen pydantic ``Params`` model, a list of :class:`Metric` (a function of the
parameters, since histogram sizes and per-target metrics depend on them), a ``pack`` function that
turns parameters into a flat float64 row, and a kernel.

The kernel contract::

    kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots) -> stats

``packed`` has one row per variant (rows padded with zeros to a common length). The kernel runs
trials ``first_trial .. first_trial + n_trials - 1`` under every variant with the same random words
(common random numbers), writes each trial's metric values into a block buffer
``values[variant, metric, i]`` and folds every block into ``stats`` with
:func:`simulator.accumulate.accumulate_block`. ``stats``, shape ``(n_variants, n_slots)``, holds
integer sufficient statistics only, so a chunk's result never depends on how trials were split.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

MetricKind = Literal["proportion", "mean", "distribution", "conditional_mean"]


class Params(BaseModel):
    """Base of every procedure's parameter model: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Metric:
    """One reported quantity.

    Attributes:
        name: dotted name as it appears in reports (``attacker_wins``, ``success.target1``).
        kind: ``proportion`` (0/1 per trial), ``mean`` (an integer per trial), ``distribution``
            (a mean plus a histogram over ``0..max_value``) or ``conditional_mean`` (a mean over the
            trials where the value is defined; the kernel writes ``UNDEFINED`` elsewhere).
        description: one line for ``sim list`` and reports.
        scale: per-trial values are integers equal to ``value * scale`` (shares of a tied win).
        max_value: largest histogram bin of a distribution; larger values fall in the last bin.
        headline: whether ``--precision`` waits for this metric.
    """

    name: str
    kind: MetricKind
    description: str
    scale: int = 1
    max_value: int = 0
    headline: bool = True


@dataclass(frozen=True)
class Procedure:
    """A rule the engine can run. See the module docstring for the kernel contract."""

    name: str
    title: str
    rules: str
    params_model: type[Params]
    metrics: Callable[[Any], list[Metric]]
    pack: Callable[[Any], np.ndarray]
    kernel: Callable[..., np.ndarray]
    exact: Callable[[Any], dict[str, float]] | None = None
    #: Plain-language notes shown by ``sim list`` (assumptions, gaps counted).
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: Example parameters (as in a scenario's ``params``), used by ``sim list`` to show metrics.
    example: dict[str, Any] | None = None
    #: What the rules forbid in a parameter set, as ``(loc, message, value)`` triples (empty when
    #: the rules allow it): ``sim validate`` refuses such a scenario; a sweep marks such a point
    #: illegal (e.g. an attacking formation above its cap).
    forbidden: Callable[[Any], list[tuple[tuple[str | int, ...], str, Any]]] | None = None

    def metric_names(self, params: Any) -> list[str]:
        return [m.name for m in self.metrics(params)]
