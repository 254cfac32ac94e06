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
:func:`simulator.accumulate.accumulate_block` (:func:`simulator.accumulate.block_count` and
:func:`simulator.accumulate.trial_block` walk the blocks). ``stats``, shape
``(n_variants, n_slots)``, holds integer sufficient statistics only, so a chunk's result never
depends on how trials were split.

Rows by name: a procedure declares its packed row's :class:`~simulator.layout.Layout`
(``packed_layout``; ``pack`` writes it with ``Layout.row``, the kernel reads it through offsets
taken with ``Layout.at``) and its metric row's (``metric_layout``: one slot per metric, named as in
``metrics()`` with dots written ``_``, see :func:`metric_slot`). A module that defines the
constants ``PACKED`` and ``METRICS`` gets them wired by the registry when its ``Procedure`` does not
name them. A house test checks both against ``pack`` and ``metrics`` for every procedure. A whole
game declares its interface in ``game`` (or the module constant ``WHOLE_GAME``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from simulator.agents.game import WholeGame
from simulator.layout import Layout

MetricKind = Literal["proportion", "mean", "distribution", "conditional_mean"]
#: Where a default comes from: the rulebook's reading of its line, another reading of an unclear
#: line (the default when the rulebook's reading cannot be run), or a value ``sim`` invented where
#: the rulebook is silent.
AssumptionTag = Literal["rulebook", "reading", "invented"]
#: What a parameter that is no :class:`Assumption` is: the rulebook's literal text (``rulebook``:
#: the line gives this value and nothing is unclear), or a setting of the question a run asks
#: (``setting``: the position, the number of players, the agents, what to count; no rule at all,
#: every value in range is legitimate).
GivenTag = Literal["rulebook", "setting"]


class Params(BaseModel):
    """Base of every procedure's parameter model: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def rule_cases(self) -> dict[str, Any]:
        """The rule cases in force, by knob path, where a knob is a preset of cases (recruitment's
        ``revision``: ``{"multi_tie": "removed", ...}``); empty for a procedure without presets.
        What a run's verdict compares to say whether a changed case arose (report/grounds.py)."""
        return {}


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
class Alternative:
    """One other value of an assumption, as the parameter overrides that make it.

    Attributes:
        label: a few words for reports ("snake order", "no cap").
        overrides: dotted parameter paths (as in ``sweep:``) and the values that replace them,
            applied to a variant's parameters all at once (``{"setup.order": "snake"}``).
        tag: what this alternative is: another reading of the line, the rulebook's own reading
            (when the default is an invention), or another invented value.
    """

    label: str
    overrides: dict[str, Any]
    tag: AssumptionTag = "reading"


@dataclass(frozen=True)
class Assumption:
    """A point a result may rest on: an invented value, or a reading of an unclear rule.

    Every procedure declares its assumptions; ``sim list`` shows them, reports mark the results that
    rest on an invented default, and ``robustness: {assumptions: true}`` reruns a comparison with
    each one moved to each alternative, one at a time on shared streams.

    Attributes:
        name: a short identifier, unique in the procedure (``setup_order``).
        knob: the parameter that holds it (a dotted path, as in ``sweep:``).
        tag: what the default is (see :data:`AssumptionTag`).
        rule: where the rulebook speaks of it, by game and section, and the project's page
            ("Council rules §2 (setup); docs/rules/council.md#setup").
        text: one line: what the default does, and why it was chosen.
        alternatives: the other values a robustness run tries.
        fires: metrics that count the cases where the readings differ (did the rule fire); empty
            when every trial is such a case (a table value, a count).
    """

    name: str
    knob: str
    tag: AssumptionTag
    rule: str
    text: str
    alternatives: tuple[Alternative, ...] = ()
    fires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Given:
    """A parameter, or every parameter under a dotted path, whose default is no assumption.

    Every parameter of a procedure carries exactly one tag, declared once: an :class:`Assumption`
    whose ``knob`` is the parameter or a path above it (tag rulebook, reading or invented), or a
    ``Given`` (tag rulebook: the rulebook's literal text; setting: the question asked). ``sim list``
    and the reference pages show the tag beside each parameter; tests/test_tags.py fails on a
    parameter with none (see :func:`tag_of`).

    Attributes:
        knob: a parameter path or a path above several (``attacker`` covers ``attacker.units``).
        tag: see :data:`GivenTag`.
        rule: for ``rulebook``, where the rulebook says it ("Here I Stand rules §5.4"); for
            ``setting``, optional words on what it sets.
    """

    knob: str
    tag: GivenTag
    rule: str = ""


def rulebook(rule: str, *knobs: str) -> tuple[Given, ...]:
    """``knobs`` whose defaults are the literal text of ``rule`` (a citation)."""
    return tuple(Given(k, "rulebook", rule) for k in knobs)


def settings(*knobs: str) -> tuple[Given, ...]:
    """``knobs`` that set the question a run asks, not a rule."""
    return tuple(Given(k, "setting") for k in knobs)


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
    #: Every invented value and every reading of an unclear rule (:class:`Assumption`).
    assumptions: tuple[Assumption, ...] = field(default_factory=tuple)
    #: Every other parameter's tag: the rulebook's literal text or a setting (:class:`Given`).
    given: tuple[Given, ...] = field(default_factory=tuple)
    #: For a knob whose values are rule cases (``revision``), the metrics that count the trials in
    #: which the cases differ: a comparison of two values of the knob says how often they arose.
    #: Keys are knob paths; a metric name may be a family (``gap_multi_tie`` for its seats). A
    #: knob whose values differ from one another in different cases maps each value to the case
    #: metrics where it differs from the knob's first value; two values then differ on the
    #: metrics one of them lists and the other does not.
    fires: dict[str, tuple[str, ...] | dict[str, tuple[str, ...]]] = field(default_factory=dict)
    #: The packed row's declared layout: ``pack(params)`` is a row of exactly its size.
    packed_layout: Layout | None = None
    #: The metric row's declared layout, or a function of the parameters giving it (when the
    #: metrics depend on them, e.g. one per seat): one slot per metric, in the order of
    #: ``metrics(params)``, each named :func:`metric_slot` of its metric's name.
    metric_layout: Layout | Callable[[Any], Layout] | None = None
    #: For a procedure that is a whole game: its game interface and how to deal a position
    #: (:class:`simulator.agents.game.WholeGame`); the interface tests play every such game.
    game: WholeGame | None = None
    #: For a procedure whose kernel depends on parameters beyond the packed row (a designer's
    #: own rule step, named by a file in the parameters): ``specialize(procedure, params)`` is the
    #: procedure to run these parameter sets with (the scenario's and ``sim compare``'s), or the
    #: procedure itself. It may compile the designer's code, raising its located errors.
    specialize: Callable[[Procedure, Sequence[Any]], Procedure] | None = None

    def metric_names(self, params: Any) -> list[str]:
        return [m.name for m in self.metrics(params)]

    def metric_layout_of(self, params: Any) -> Layout | None:
        """The metric layout for ``params`` (``None`` when the procedure declares none)."""
        layout = self.metric_layout
        return layout if layout is None or isinstance(layout, Layout) else layout(params)


def _covers(knob: str, path: str) -> bool:
    return bool(knob) and (path == knob or path.startswith(knob + "."))


def declarations_of(proc: Procedure, path: str) -> list[Assumption | Given]:
    """The declarations that tag parameter ``path``, the first kind that has one: the
    assumptions whose knob covers it (the longest knob: ``attacker.leader`` before
    ``attacker``), the assumptions one of whose alternatives moves it (``removal_order`` moves
    ``attacker.removes_first`` with ``defender.removes_first``), the ``Given`` covering it (the
    longest). Empty when the parameter is untagged; several only when several assumptions share
    it (tests/test_tags.py checks that they agree)."""

    def longest(found: list[Any]) -> list[Any]:
        most = max((len(d.knob) for d in found), default=0)
        return [d for d in found if len(d.knob) == most]

    by_knob = longest([a for a in proc.assumptions if _covers(a.knob, path)])
    if by_knob:
        return by_knob
    moved: list[Assumption | Given] = [
        a for a in proc.assumptions if any(path in alt.overrides for alt in a.alternatives)
    ]
    return moved or longest([g for g in proc.given if _covers(g.knob, path)])


def tag_of(proc: Procedure, path: str) -> str | None:
    """The tag of parameter ``path`` (rulebook, reading, invented or setting), or None if it has
    none."""
    found = declarations_of(proc, path)
    return found[0].tag if found else None


def metric_slot(name: str) -> str:
    """The metric layout's name for metric ``name``: its dots (and dashes) written ``_``
    (``wins.seat1`` → ``wins_seat1``)."""
    return name.replace(".", "_").replace("-", "_")


def metric_layout(metrics: list[Metric]) -> Layout:
    """The metric layout naming ``metrics`` in order (for a procedure whose metrics depend on
    its parameters; kernels then find a family's first slot through the packed row)."""
    return Layout(*(metric_slot(m.name) for m in metrics))
