"""The clauses in which two parameter sets differ, found rather than typed, and the parameter set
of any combination of them.

A *clause* is one knob whose value differs: a parameter (``starting_gold: 3 → 5``), a rule case
of a procedure whose knob is a preset of cases (recruitment's ``revision``: 1.0 → 1.2 differ in
the cases ``multi_tie`` and ``equipment``, so those are the clauses, not ``revision``), or a
designer's own step (``ownership: file.py:NAME``, ``rolled_hits:``, a file procedure's
parameter: a parameter whose value names a function).

How they are found: every leaf of the two parameter dumps that differs, plus every rule case in
force that differs (``Params.rule_cases``). A changed knob that only selects or defines presets
(``revision``, ``revisions.1.3.multi_tie``) is left out when the cases carry its whole effect: the
parameter set with every clause applied must pack into exactly the kernel row of the target
(:func:`find` checks it, and refuses when the clauses found do not rebuild the target).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from simulator.procedures.base import Params, Procedure
from simulator.report.grounds import flatten
from simulator.sweep_axes import set_path

#: Most clauses explained at once (one at a time, in pairs and all together beyond
#: :data:`simulator.explain.design.FULL_UP_TO`: 80 combinations at 12).
MAX_CLAUSES = 12


class ExplainError(ValueError):
    """Two parameter sets whose difference cannot be explained (the message says why)."""


@dataclass(frozen=True)
class Clause:
    """One knob in which the two parameter sets differ.

    Attributes:
        path: the knob's dotted path (``multi_tie``, ``deck.count``, ``ownership``).
        before: its value in the reference parameter set (JSON form; a case's option).
        after: its value in the explained one.
        kind: ``case`` (a rule case of a preset knob), ``step`` (a designer's function) or
            ``parameter``.
        words: what the knob is, in words (the assumption's text or the parameter's description).
        fires: the metrics that count the trials where the two values differ (did it fire);
            empty when the procedure declares none.
    """

    path: str
    before: Any
    after: Any
    kind: str
    words: str
    fires: tuple[str, ...] = ()

    def change(self) -> str:
        """``multi_tie: stays → removed``."""
        return f"{self.path}: {_show(self.before)} → {_show(self.after)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "kind": self.kind,
            "words": self.words,
            "fires": list(self.fires),
        }


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and _is_step(value):
        return value.rpartition("/")[2]
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _is_step(value: Any) -> bool:
    return isinstance(value, str) and ".py:" in value


def describe(params: BaseModel, path: str) -> str:
    """The description of the field at dotted ``path`` of ``params`` ('' when it has none),
    read from the models the values actually are (a deck given as a generator, not a list)."""
    node: Any = params
    parts = path.split(".")
    for i, part in enumerate(parts):
        model = type(node)
        if not isinstance(node, BaseModel) or part not in model.model_fields:
            return ""
        if i == len(parts) - 1:
            return model.model_fields[part].description or ""
        node = getattr(node, part)
    return ""


def _words(procedure: Procedure, path: str, params: BaseModel) -> str:
    """The parameter's description, shortened to its first part (a case's question, before its
    options); the assumption's text where the knob is one without a description."""
    text = describe(params, path).split(" — ")[0].strip()
    if text:
        return text
    return next((a.text for a in procedure.assumptions if a.knob == path), "")


def _fires(procedure: Procedure, path: str, before: Any, after: Any) -> tuple[str, ...]:
    """The declared case metrics of a knob moved from ``before`` to ``after`` (as the verdict's
    grounds read them: a per-value declaration gives the metrics one value lists and the other
    does not)."""
    declared = procedure.fires.get(path, ())
    if isinstance(declared, dict):
        mine, theirs = declared.get(str(after)), declared.get(str(before))
        if mine is None or theirs is None:
            return ()
        both = dict.fromkeys([*mine, *theirs])
        return tuple(m for m in both if (m in mine) != (m in theirs))
    return tuple(declared)


def _validate(procedure: Procedure, tree: dict[str, Any]) -> Params:
    return procedure.params_model.model_validate(tree)


def _pack(procedure: Procedure, params: Params) -> np.ndarray:
    return np.asarray(procedure.pack(params), dtype=np.float64)


@dataclass
class Difference:
    """The clauses between two parameter sets, and how to build any combination of them."""

    procedure: Procedure
    before: Params
    after: Params
    clauses: tuple[Clause, ...]

    def cell(self, on: Sequence[bool]) -> Params:
        """The reference parameter set with the clauses marked ``on`` applied.

        Raises:
            ExplainError: the combination is not a valid parameter set.
        """
        tree = self.before.model_dump(mode="json")
        for clause, applied in zip(self.clauses, on, strict=True):
            if applied:
                tree = set_path(tree, clause.path, clause.after)
        try:
            return _validate(self.procedure, tree)
        except ValidationError as e:
            said = ", ".join(c.change() for c, a in zip(self.clauses, on, strict=True) if a)
            first = e.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise ExplainError(
                f"the combination {said or 'of no clause'} is not a valid parameter set "
                f"({where}: {first['msg']}): these clauses only make sense together; change them "
                "in one step (e.g. one nested value) or explain the whole change"
            ) from None


def _preset_only(
    procedure: Procedure, before: Params, path: str, after_tree: dict[str, Any]
) -> bool:
    """Whether moving ``path`` alone changes the rule cases in force (a preset selector)."""
    tree = set_path(before.model_dump(mode="json"), path, flatten(after_tree).get(path))
    try:
        moved = _validate(procedure, tree)
    except ValidationError:
        return False
    return moved.rule_cases() != before.rule_cases()


def _valid(diff: Difference, on: list[bool]) -> bool:
    try:
        diff.cell(on)
    except ExplainError:
        return False
    return True


def _value_at(tree: dict[str, Any], path: str) -> Any:
    node: Any = tree
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _merge_inseparable(
    diff: Difference, tree_a: dict[str, Any], tree_b: dict[str, Any]
) -> Difference:
    """Clauses that are not valid one without the other (``deck.wage.low`` and ``.high`` of one
    range) become one clause: their parent's whole value."""
    while True:
        clauses = list(diff.clauses)
        k = len(clauses)
        broken = next(
            (
                i
                for i in range(k)
                if "." in clauses[i].path
                and clauses[i].kind != "case"
                and not (
                    _valid(diff, [j == i for j in range(k)])
                    and _valid(diff, [j != i for j in range(k)])
                )
            ),
            None,
        )
        if broken is None:
            return diff
        parent = clauses[broken].path.rpartition(".")[0]
        inside = [c for c in clauses if c.path.startswith(parent + ".")]
        merged = Clause(
            parent,
            _value_at(tree_a, parent),
            _value_at(tree_b, parent),
            "parameter",
            _words(diff.procedure, parent, diff.before),
            _fires(diff.procedure, parent, None, None),
        )
        at = clauses.index(inside[0])
        kept = [c for c in clauses if c not in inside]
        kept.insert(at, merged)
        diff = Difference(diff.procedure, diff.before, diff.after, tuple(kept))


def find(procedure: Procedure, before: Params, after: Params) -> Difference:
    """The clauses in which ``after`` differs from ``before``, in the parameters' order (cases in
    their declared order where a preset changed).

    Raises:
        ExplainError: more than :data:`MAX_CLAUSES` clauses, or clauses that do not rebuild
            ``after`` exactly.
    """
    tree_a, tree_b = before.model_dump(mode="json"), after.model_dump(mode="json")
    flat_a, flat_b = flatten(tree_a), flatten(tree_b)
    cases_a, cases_b = before.rule_cases(), after.rule_cases()
    case_clauses = [
        Clause(
            knob,
            cases_a[knob],
            cases_b[knob],
            "case",
            _words(procedure, knob, before),
            _fires(procedure, knob, cases_a[knob], cases_b[knob]),
        )
        for knob in cases_a
        if cases_a[knob] != cases_b.get(knob)
    ]
    changed = [k for k in dict.fromkeys([*flat_a, *flat_b]) if flat_a.get(k) != flat_b.get(k)]
    knobs: list[Clause] = []
    for path in changed:
        if path in cases_a:
            continue  # a case set explicitly: its clause is the case's (or it changes nothing)
        if case_clauses and _preset_only(procedure, before, path, tree_b):
            continue  # a preset's name: its cases are the clauses
        value_a, value_b = flat_a.get(path), flat_b.get(path)
        kind = "step" if _is_step(value_a) or _is_step(value_b) else "parameter"
        knobs.append(
            Clause(
                path,
                value_a,
                value_b,
                kind,
                _words(procedure, path, after if path not in flat_a else before),
                _fires(procedure, path, value_a, value_b),
            )
        )
    diff = Difference(procedure, before, after, (*knobs, *case_clauses))
    # A knob that defines presets without selecting one (``revisions.1.3.multi_tie`` when the
    # variant also moves ``revision``) packs into nothing the cases do not already carry: leave
    # it out when the rest still rebuild the target exactly.
    target = _pack(procedure, after)
    for clause in knobs:
        if not case_clauses or clause.kind == "step":
            continue
        rest = tuple(c for c in diff.clauses if c is not clause)
        trial = Difference(procedure, before, after, rest)
        try:
            rebuilt = trial.cell([True] * len(rest))
        except ExplainError:
            continue
        if np.array_equal(_pack(procedure, rebuilt), target):
            diff = trial
    diff = _merge_inseparable(diff, tree_a, tree_b)
    if len(diff.clauses) > MAX_CLAUSES:
        listed = ", ".join(c.path for c in diff.clauses)
        raise ExplainError(
            f"{len(diff.clauses)} clauses differ ({listed}), over the limit of {MAX_CLAUSES}: "
            "explain a smaller step (a variant changing fewer knobs)"
        )
    if diff.clauses and not np.array_equal(
        _pack(procedure, diff.cell([True] * len(diff.clauses))), target
    ):
        raise ExplainError(
            "the clauses found ("
            + ", ".join(c.change() for c in diff.clauses)
            + ") do not rebuild the explained parameters exactly"
        )
    return diff
