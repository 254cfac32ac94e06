"""The ``tune:`` section of a scenario: what to search, what to aim for, how much to spend.

::

    tune:
      search:                          # parameter paths as in sweeps: lists or ranges
        defender_extra_dice: [0, 1, 2]
        hit_on: {from: 4, to: 6}
        start_coins.4: {from: 6, to: 10}   # one entry of a per-seat list (1-based)
      target: {attacker_wins: 0.5}     # distance to a value; or
      minimize: seat_spread            # a metric (or a list of them); or maximize: METRIC
      budget: 60                       # candidates evaluated at most

Several entries (targets, minimised and maximised metrics together) make several objectives: the
answer is then a Pareto front. Problems are reported like every scenario problem, with the file,
line and column, and ``sim validate`` checks this section too.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from simulator.procedures.base import Params
from simulator.scenario import (
    BASE_VARIANT,
    Problem,
    Scenario,
    ScenarioError,
    _deep_merge,
)
from simulator.sweep_axes import _path_problem, _range_values

#: Metrics a tune may aim at besides the procedure's own: computed from them after reduction.
DERIVED = {"seat_spread": "largest minus smallest seat win share (wins.seatN)"}
#: The most candidates a tune may evaluate.
MAX_BUDGET = 10_000
#: A search space up to this size is checked candidate by candidate when the file is loaded.
MAX_CHECKED_SPACE = 20_000
#: In a larger space, each searched value is tried with this many random partners (besides the
#: first values) before it is refused as never playable.
SAMPLED_PARTNERS = 64
_KEYS = ("search", "target", "minimize", "maximize", "budget")


@dataclass(frozen=True)
class Objective:
    """One thing to optimise: the metric, and either a target value or a direction."""

    metric: str
    target: float | None = None
    maximize: bool = False

    def label(self) -> str:
        if self.target is not None:
            return f"|{self.metric} - {self.target:g}|"
        return f"{'max' if self.maximize else 'min'} {self.metric}"


@dataclass(frozen=True)
class Axis:
    """One searched path and its values; ``ordered`` when the values are numbers in order."""

    path: str
    values: tuple[Any, ...]
    ordered: bool


@dataclass(frozen=True)
class TuneSpec:
    """A checked ``tune:`` section."""

    axes: tuple[Axis, ...]
    objectives: tuple[Objective, ...]
    budget: int
    #: Candidates of a checked space that the rules forbid (skipped by the search), and one
    #: example with its reason; -1 when the space is too large to count.
    outside: int = 0
    outside_example: str = ""

    @property
    def space_size(self) -> int:
        return math.prod(len(a.values) for a in self.axes)

    def candidate_values(self, index: tuple[int, ...]) -> dict[str, Any]:
        """The searched values of the candidate with these per-axis value indices."""
        return {a.path: a.values[i] for a, i in zip(self.axes, index, strict=True)}


def _split_index(path: str) -> tuple[str, int | None]:
    """``start_coins.4`` → (``start_coins``, 3); a path without a trailing number → (path, None)."""
    head, _, last = path.rpartition(".")
    if head and last.isdigit():
        return head, int(last) - 1
    return path, None


def set_value(params: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of the raw ``params`` mapping with ``path`` set (an entry of a list when the path
    ends in a 1-based index)."""
    head, index = _split_index(path)
    parts = head.split(".")
    out = dict(params)
    node: dict[str, Any] = out
    for part in parts[:-1]:
        below = node.get(part)
        node[part] = dict(below) if isinstance(below, Mapping) else {}
        node = node[part]
    if index is None:
        node[parts[-1]] = value
    else:
        items = list(node.get(parts[-1], []))
        items[index] = value
        node[parts[-1]] = items
    return out


def candidate_params(scenario: Scenario, values: Mapping[str, Any]) -> Params:
    """The base parameters with the searched ``values`` set, validated by the procedure."""
    raw = dict(scenario.raw.get("params") or {})
    base = scenario.variants[BASE_VARIANT].model_dump(mode="json")
    for path, value in values.items():
        head, index = _split_index(path)
        if index is not None and head.split(".")[0] not in raw:
            # A per-seat entry of a list the file leaves at its default: start from the default.
            raw = _deep_merge(raw, {head.split(".")[0]: base[head.split(".")[0]]})
        raw = set_value(raw, path, value)
    return scenario.procedure.params_model.model_validate(raw, strict=True)


def candidate_problem(scenario: Scenario, values: Mapping[str, Any]) -> str | None:
    """Why the candidate with these searched ``values`` is outside the rules (its parameters
    are invalid, or the procedure forbids them), or None when it may be played."""
    try:
        params = candidate_params(scenario, values)
    except ValidationError as e:
        first = e.errors()[0]
        where = tune_path(first["loc"])
        return f"{where}: {first['msg'].removeprefix('Value error, ')}"
    if scenario.procedure.forbidden is not None:
        for loc, message, _ in scenario.procedure.forbidden(params):
            return f"{tune_path(loc)}: {message}"
    return None


def tune_path(loc: Any) -> str:
    """A pydantic location in the notation of ``tune.search``: list entries 1-based
    (``('seat_gold', 1)`` is ``seat_gold.2``)."""
    return ".".join(str(x + 1) if isinstance(x, int) else str(x) for x in loc)


def _path_message(scenario: Scenario, path: str) -> str | None:
    head, index = _split_index(path)
    if index is None:
        return _path_problem(scenario.procedure.params_model, path)
    message = _path_problem(scenario.procedure.params_model, head)
    if message is not None:
        return message
    base: Any = scenario.variants[BASE_VARIANT].model_dump(mode="json")
    for part in head.split("."):
        base = base.get(part) if isinstance(base, Mapping) else None
    if not isinstance(base, list):
        return f"{head} is not a list: an index ({index + 1}) applies to per-seat lists only"
    if not 0 <= index < len(base):
        return f"{head} has {len(base)} entries; the index must be 1 to {len(base)}"
    return None


def _metric_names(scenario: Scenario) -> list[str]:
    names = scenario.procedure.metric_names(scenario.variants[BASE_VARIANT])
    if any(n.startswith("wins.seat") for n in names):
        names = [*names, *DERIVED]
    return names


def parse_tune(scenario: Scenario) -> TuneSpec:
    """Check the scenario's ``tune:`` section.

    Raises:
        ScenarioError: every problem found, each with its file, line and column.
    """
    raw = scenario.raw.get("tune")
    file = scenario.path
    pos = scenario.positions

    def at(*loc: Any, key: bool = False) -> tuple[int, int]:
        if pos is None:
            return (1, 1)
        return pos.nearest(("tune", *loc), prefer_key=key)

    def problem(loc: tuple[Any, ...], field: str, message: str, *value: Any) -> Problem:
        line, col = at(*loc, key=not value)
        return Problem(file, line, col, field, message, value[0] if value else None, bool(value))

    if raw is None:
        raise ScenarioError([Problem(file, 1, 1, "tune", "no tune: section to search with")])
    if not isinstance(raw, Mapping):
        raise ScenarioError(
            [problem((), "tune", "must be a mapping with search, target/minimize/maximize", raw)]
        )
    problems: list[Problem] = []
    for key in raw:
        if key not in _KEYS:
            close = difflib.get_close_matches(str(key), _KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(problem((key,), f"tune.{key}", f"unknown key{hint}"))
    axes = _axes(scenario, raw.get("search"), problems, problem)
    _overlaps(axes, problems, problem)
    unsearched = [p for p in scenario.sweep if p not in {a.path for a in axes}]
    if unsearched and pos is not None:
        line, col = pos.nearest(("sweep",), prefer_key=True)
        problems.append(
            Problem(
                file,
                line,
                col,
                "sweep",
                f"sim tune searches one set of parameters, and would ignore the sweep of "
                f"{', '.join(unsearched)}: remove the sweep, or search its paths in tune.search",
            )
        )
    objectives = _objectives(scenario, raw, problems, problem)
    budget = raw.get("budget", 60)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        problems.append(
            problem(("budget",), "tune.budget", f"must be a whole number 1 to {MAX_BUDGET}", budget)
        )
    if problems:
        raise ScenarioError(problems)
    spec = TuneSpec(tuple(axes), tuple(objectives), int(budget))
    spec = _check_candidates(scenario, spec, problems, problem)
    if problems:
        raise ScenarioError(problems[:20])
    return spec


def _axes(scenario: Scenario, search: Any, problems: list[Problem], problem: Any) -> list[Axis]:
    if not isinstance(search, Mapping) or not search:
        problems.append(
            problem(
                ("search",),
                "tune.search",
                "give at least one parameter path with a list of values or a range "
                "{from, to, step}",
                *(() if search is None else (search,)),
            )
        )
        return []
    axes = []
    for path, spec in search.items():
        field = f"tune.search.{path}"
        message = _path_message(scenario, str(path))
        if message is not None:
            problems.append(problem(("search", path), field, message))
            continue
        if path in scenario.sweep:
            problems.append(
                problem(("search", path), field, f"is also swept (sweep.{path}); remove one")
            )
            continue
        for name in scenario.raw.get("variants") or {}:
            override: Any = scenario.raw["variants"][name]
            for part in _split_index(str(path))[0].split("."):
                override = override.get(part) if isinstance(override, Mapping) else None
            if override is not None:
                problems.append(
                    problem(
                        ("search", path),
                        field,
                        f"is also set by variant {name!r}; a tuned path must be left to the "
                        "search (remove it from the variant)",
                    )
                )
        if isinstance(spec, list):
            values = list(spec)
            if not values:
                problems.append(problem(("search", path), field, "empty list of values", spec))
                continue
            seen = [json.dumps(v, sort_keys=True, default=str) for v in values]
            if len(set(seen)) != len(seen):
                problems.append(problem(("search", path), field, "duplicate values", spec))
                continue
        elif isinstance(spec, Mapping):
            values, message, key = _range_values(spec)
            if message is not None:
                sub = f"{field}.{key}" if key else field
                problems.append(problem(("search", path, *((key,) if key else ())), sub, message))
                continue
        else:
            problems.append(
                problem(
                    ("search", path),
                    field,
                    "must be a list of values or a range {from: A, to: B, step: C}",
                    spec,
                )
            )
            continue
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        ordered = numbers and values == sorted(values)
        axes.append(Axis(str(path), tuple(values), ordered))
    return axes


def _overlaps(axes: list[Axis], problems: list[Problem], problem: Any) -> None:
    """Two searched paths that set the same value (``seat_gold.2`` and ``seat_gold.02``), or
    one inside the other (``attacker`` and ``attacker.units``), would list identical
    candidates as ties: refused, as in sweeps."""
    seen: dict[tuple[str, ...], str] = {}
    for a in axes:
        head, index = _split_index(a.path)
        key = (*head.split("."), *(() if index is None else (str(index),)))
        for other_key, other in seen.items():
            if key == other_key:
                message = f"sets the same value as tune.search.{other}: keep one of the two"
            elif key[: len(other_key)] == other_key or other_key[: len(key)] == key:
                outer, inner = (other, a.path) if len(other_key) < len(key) else (a.path, other)
                message = (
                    f"overlaps tune.search.{other}: {inner} is inside {outer}, which sets the "
                    "whole group; keep one of the two"
                )
            else:
                continue
            problems.append(problem(("search", a.path), f"tune.search.{a.path}", message))
            break
        seen[key] = a.path


def _target_range(scenario: Scenario, metric: str) -> tuple[float, float] | None:
    """The values a metric can take, when they are bounded: a proportion (and seat_spread, a
    difference of two) lies in [0, 1]."""
    if metric in DERIVED:
        return (0.0, 1.0)
    for m in scenario.procedure.metrics(scenario.variants[BASE_VARIANT]):
        if m.name == metric and m.kind == "proportion":
            return (0.0, 1.0)
    return None


def _objectives(
    scenario: Scenario, raw: Mapping[str, Any], problems: list[Problem], problem: Any
) -> list[Objective]:
    known = _metric_names(scenario)
    out: list[Objective] = []

    def metric_ok(name: Any, loc: tuple[Any, ...], field: str) -> bool:
        if isinstance(name, str) and name in known:
            return True
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        problems.append(problem(loc, field, f"unknown metric{hint} (metrics: {shown})", name))
        return False

    target = raw.get("target")
    if target is not None:
        if not isinstance(target, Mapping) or not target:
            problems.append(
                problem(("target",), "tune.target", "must map metrics to values", target)
            )
        else:
            for name, value in target.items():
                field = f"tune.target.{name}"
                if not metric_ok(name, ("target", name), field):
                    continue
                if isinstance(value, bool) or not isinstance(value, int | float):
                    problems.append(problem(("target", name), field, "must be a number", value))
                elif not math.isfinite(value):
                    problems.append(problem(("target", name), field, "must be finite", value))
                elif (bounds := _target_range(scenario, name)) and not (
                    bounds[0] <= value <= bounds[1]
                ):
                    problems.append(
                        problem(
                            ("target", name),
                            field,
                            f"is a share between {bounds[0]:g} and {bounds[1]:g}: no candidate "
                            "can reach this target",
                            value,
                        )
                    )
                else:
                    out.append(Objective(name, target=float(value)))
    for key, maximize in (("minimize", False), ("maximize", True)):
        names = raw.get(key)
        if names is None:
            continue
        listed = names if isinstance(names, list) else [names]
        for i, name in enumerate(listed):
            loc = (key, i) if isinstance(names, list) else (key,)
            if metric_ok(name, loc, f"tune.{key}"):
                out.append(Objective(name, maximize=maximize))
    if not out and not any(k in raw for k in ("target", "minimize", "maximize")):
        problems.append(
            problem(
                (),
                "tune",
                "must say what to aim for: target: {METRIC: VALUE}, minimize: METRIC or "
                "maximize: METRIC",
            )
        )
    metrics = [o.metric for o in out]
    if len(set(metrics)) != len(metrics):
        problems.append(problem((), "tune", "names a metric in more than one objective"))
    return out


def _check_candidates(
    scenario: Scenario, spec: TuneSpec, problems: list[Problem], problem: Any
) -> TuneSpec:
    """Check the candidates before any work; the spec with its count of candidates outside the
    rules (skipped by the search, as a sweep's illegal points are shown as such).

    Refused: a searched value no candidate can be played with (out of its range, say), a space
    with no candidate inside the rules, and a candidate that changes which metrics are reported.
    A small space is checked candidate by candidate; in a large one, each value is tried with
    the other axes at their first values and then at up to ``SAMPLED_PARTNERS`` random ones.
    """
    base_metrics = scenario.procedure.metric_names(scenario.variants[BASE_VARIANT])
    reasons: dict[tuple[int, int], str] = {}  # (axis, value index) -> a reason, while unplayable
    playable: set[tuple[int, int]] = set()
    outside, example = 0, ""
    seen: set[str] = set()

    def judge(index: tuple[int, ...]) -> None:
        nonlocal outside, example
        values = spec.candidate_values(index)
        why = candidate_problem(scenario, values)
        if why is None:
            params = candidate_params(scenario, values)
            if scenario.procedure.metric_names(params) != base_metrics:
                message = (
                    f"candidate {_show(values)} changes which metrics are reported; a tuned "
                    "path must keep the metrics (e.g. not the number of players)"
                )
                if message not in seen:
                    seen.add(message)
                    problems.append(problem(("search", next(iter(values))), "tune.search", message))
                return
            playable.update(enumerate(index))
            return
        outside += 1
        example = example or f"{_show(values)} ({why})"
        for k, i in enumerate(index):
            reasons.setdefault((k, i), f"candidate {_show(values)} is not valid: {why}")

    if spec.space_size <= MAX_CHECKED_SPACE:
        for index in itertools.product(*(range(len(a.values)) for a in spec.axes)):
            judge(index)
            if len(problems) >= 20:
                return spec
        counted = outside
    else:
        rng = random.Random(0)
        for k, a in enumerate(spec.axes):
            for i in range(len(a.values)):
                tries = [tuple(i if j == k else 0 for j in range(len(spec.axes)))]
                tries += [
                    tuple(
                        i if j == k else rng.randrange(len(b.values))
                        for j, b in enumerate(spec.axes)
                    )
                    for _ in range(SAMPLED_PARTNERS)
                ]
                for index in tries:
                    if (k, i) in playable:
                        break
                    judge(index)
                if len(problems) >= 20:
                    return spec
        counted = -1 if outside else 0
    unplayable: dict[int, list[int]] = {}
    for k, i in reasons:
        if (k, i) not in playable:
            unplayable.setdefault(k, []).append(i)
    for k, indices in unplayable.items():
        path = spec.axes[k].path
        shown = ", ".join(json.dumps(spec.axes[k].values[i], default=str) for i in indices[:8])
        shown += ", ..." if len(indices) > 8 else ""
        fits = "fits" if len(indices) == 1 else "fit"
        text = f"{shown} {fits} no candidate: e.g. {reasons[(k, indices[0])]}"
        problems.append(problem(("search", path), f"tune.search.{path}", text))
    if not problems and not playable:
        problems.append(problem(("search",), "tune.search", "no candidate is inside the rules"))
    return dataclasses.replace(spec, outside=counted, outside_example=example)


def _show(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in values.items())
