"""What a run's answer rests on: whether the rule cases its variants change ever arose, and which
invented values and readings of unclear rules were in force.

**Did the rule fire?** A procedure declares, for a knob whose values are rule cases, the metrics
that count the trials where the cases differ (``Procedure.fires``: recruitment's ``revision`` →
``gap_multi_tie``, ...). For each variant after the first, every knob whose value differs from the
first variant's is looked up; its case metrics are totalled (a family's seats added up) in both
variants, as counts over the run's trials. A comparison whose changed case never arose under either
variant cannot see the change, however many trials it ran: the verdict says so instead of "no
change".

**Assumptions in force.** ``Procedure.assumptions`` lists every invented value and reading; those
whose knob every variant leaves at its default are the ones the answer rests on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simulator.procedures.base import Assumption
from simulator.runner import RunResult


@dataclass
class Case:
    """How often a changed rule's case arose in one comparison."""

    variant: str
    knob: str
    metrics: list[str]
    #: The case metrics' totals over the run (counts: a mean times the trials).
    base_count: float
    count: float
    trials: int

    @property
    def never(self) -> bool:
        return self.base_count == 0 and self.count == 0


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted paths of a parameter dump (``{"deck": {"count": 30}}`` → ``{"deck.count": 30}``)."""
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for k, v in tree.items():
            out.update(flatten(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: tree}


def _changed(base: dict[str, Any], other: dict[str, Any]) -> set[str]:
    return {k for k in set(base) | set(other) if base.get(k) != other.get(k)}


def _total(result: RunResult, variant: str, metric: str) -> float | None:
    """A metric's (or a seat family's) total over the run, or None if the run has neither."""
    est = result.estimates
    rows = est[est["variant"] == variant]
    exact = rows[rows["metric"] == metric]
    if exact.empty:
        exact = rows[rows["metric"].str.startswith(metric + ".seat")]
    if exact.empty:
        return None
    return float((exact["mean"] * exact["n"]).sum())


def cases(result: RunResult) -> list[Case]:
    """For each variant after the first, each changed knob with declared case metrics.

    A knob that is a preset of rule cases (``Params.rule_cases``) is looked at through its
    cases too: the knobs a variant sets come first, then the cases they changed, each metric
    counted once per variant; a value a per-value declaration does not list (a scenario's own
    preset) is seen through its cases only."""
    fires = result.scenario.procedure.fires
    if not fires or result.is_sweep:
        return []
    dicts = result.scenario.variant_dicts()
    dumps = {k: flatten(v) for k, v in dicts.items()}
    resolved = {k: p.rule_cases() for k, p in result.scenario.variants.items()}
    names = list(result.plan.variant_names)
    base = names[0]
    out = []
    for v in names[1:]:
        given = sorted(_changed(dumps[base], dumps[v]))
        seen = {**dumps[base], **resolved.get(base, {})}, {**dumps[v], **resolved.get(v, {})}
        derived = sorted(_changed(*seen) - set(given))
        counted: set[str] = set()
        for knob in given + derived:
            declared = fires.get(knob, ())
            if isinstance(declared, dict):
                # Per value: the cases where each value differs from the knob's first.
                values = str(seen[1].get(knob)), str(seen[0].get(knob))
                if not all(x in declared for x in values):
                    continue
                mine, theirs = declared[values[0]], declared[values[1]]
                declared = tuple(
                    m for m in dict.fromkeys([*mine, *theirs]) if (m in mine) != (m in theirs)
                )
            metrics = [
                m for m in declared if m not in counted and _total(result, base, m) is not None
            ]
            counted.update(metrics)
            if not metrics:
                continue
            out.append(
                Case(
                    v,
                    knob,
                    metrics,
                    sum(_total(result, base, m) or 0.0 for m in metrics),
                    sum(_total(result, v, m) or 0.0 for m in metrics),
                    result.outcome.trials,
                )
            )
    return out


def in_force(result: RunResult) -> list[Assumption]:
    """The declared assumptions other than the rulebook's readings whose knob no variant moves."""
    declared = result.scenario.procedure.assumptions
    if not declared:
        return []
    dumps = [flatten(v) for v in result.scenario.variant_dicts().values()]
    defaults = _defaults(result)
    out = []
    for a in declared:
        if a.tag == "rulebook":
            continue
        if a.knob in defaults and any(d.get(a.knob) != defaults[a.knob] for d in dumps):
            continue
        out.append(a)
    return out


def _defaults(result: RunResult) -> dict[str, Any]:
    """The parameter model's defaults, flattened (empty where a required field has none)."""
    model = result.scenario.procedure.params_model
    try:
        return flatten(model().model_dump(mode="json"))
    except Exception:  # a model with required fields: every knob counts as at its default
        return {}


@dataclass
class Grounds:
    """What the verdict reads besides the summary: the fairness across variants, the changed
    rule cases and how often they arose, and the assumptions in force."""

    fairness: Any = None
    cases: list[Case] | None = None
    assumptions: list[Assumption] | None = None
    #: Each compared metric's difference as a tie finding (:mod:`simulator.report.ties`).
    ties: Any = None


def grounds(result: RunResult) -> Grounds:
    """The grounds of a run (empty for a sweep)."""
    from simulator.report.fairness import fairness
    from simulator.report.ties import metric_ties

    if result.is_sweep:
        return Grounds()
    return Grounds(fairness(result), cases(result), in_force(result), metric_ties(result))
