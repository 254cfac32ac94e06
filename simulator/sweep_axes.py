"""Sweep axes of a scenario file: ``sweep:`` paths checked against the parameters, lists and
``{from, to, step}`` ranges expanded, and a problem of one grid point placed at the sweep value,
the variant or the params that made it (split from :mod:`simulator.scenario`, which validates the
rest of the file).
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from simulator.yaml_loader import Loc, Problem
from simulator.yaml_loader import Positions as _Positions
from simulator.yaml_loader import dotted as _dotted

BASE_VARIANT = "base"
#: A sweep grid larger than this needs ``--force`` (``force=True``).
MAX_SWEEP_POINTS = 10_000
#: Never more than this, even with ``--force``: every point is validated and planned up front.
HARD_MAX_SWEEP_POINTS = 1_000_000
#: At most this many problems are listed for one file (the rest are counted).
MAX_PROBLEMS = 25


_SWEEP_AXIS_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "array", "minItems": 1, "description": "the values to try"},
        {
            "type": "object",
            "properties": {
                "from": {"type": "number"},
                "to": {"type": "number"},
                "step": {"type": "number", "not": {"const": 0}, "default": 1},
            },
            "required": ["from", "to"],
            "additionalProperties": False,
            "description": "from, from + step, ... up to and including to",
        },
    ]
}


def _has(tree: Any, loc: Loc) -> bool:
    for part in loc:
        in_map = isinstance(tree, Mapping) and part in tree
        in_list = isinstance(tree, list) and isinstance(part, int) and part < len(tree)
        if in_map or in_list:
            tree = tree[part]
        else:
            return False
    return True


def _path_loc(path: str) -> Loc:
    return tuple(path.split("."))


def set_path(tree: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``tree`` with the dotted ``path`` (as in ``sweep:``) set to ``value``."""
    return _set_path(tree, _path_loc(path), value)


def _set_path(tree: Mapping[str, Any], loc: Loc, value: Any) -> dict[str, Any]:
    """A copy of ``tree`` with ``loc`` set to ``value`` (nested mappings copied, not shared)."""
    out = dict(tree)
    head = str(loc[0])
    if len(loc) == 1:
        out[head] = value
    else:
        below = out.get(head)
        out[head] = _set_path(below if isinstance(below, Mapping) else {}, loc[1:], value)
    return out


def _param_paths(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every dotted parameter path of ``model``: groups and single values."""
    out = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        out.append(path)
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out += _param_paths(ann, f"{path}.")
    return out


def _path_problem(model: type[BaseModel], path: str) -> str | None:
    """Why ``path`` is not a parameter of ``model``, or None when it is."""
    current: Any = model
    parts = path.split(".")
    for i, part in enumerate(parts):
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return (
                f"{'.'.join(parts[:i])} is a single value, not a group of parameters; "
                f"sweep {'.'.join(parts[:i])} itself"
            )
        if part not in current.model_fields:
            valid = _param_paths(model)
            close = difflib.get_close_matches(path, valid, n=1, cutoff=0.5)
            message = "unknown parameter path"
            message += f"; did you mean {close[0]!r}?" if close else ""
            shown = ", ".join(valid[:15]) + (", ..." if len(valid) > 15 else "")
            return message + f" (valid paths: {shown})"
        ann = current.model_fields[part].annotation
        current = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None
    return None


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _range_values(spec: Mapping[str, Any]) -> tuple[list[Any], str | None, str | None]:
    """Values of a ``{from, to, step}`` range, or (_, message, offending key)."""
    for key in spec:
        if key not in ("from", "to", "step"):
            close = difflib.get_close_matches(str(key), ["from", "to", "step"], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            return [], f"unknown key{hint} (a range has from, to and step)", str(key)
    for key in ("from", "to"):
        if key not in spec:
            return [], f"a range needs {key!r} (and optionally step, default 1)", None
    step = spec.get("step", 1)
    for key, x in (("from", spec["from"]), ("to", spec["to"]), ("step", step)):
        if not _is_number(x) or not math.isfinite(x):
            return [], "must be a number", key
    if step == 0:
        return [], "must not be 0", "step"
    start, stop = spec["from"], spec["to"]
    span = (stop - start) / step
    if not math.isfinite(span) or span > HARD_MAX_SWEEP_POINTS:
        # Bounds like ±1e308 overflow here (their difference is infinite): refuse by size.
        shown = "more than" if not math.isfinite(span) else f"{math.floor(span) + 1:,}, over"
        return [], f"range of {shown} {HARD_MAX_SWEEP_POINTS:,} values", None
    count = math.floor(span + 1e-9) + 1
    if count <= 0:
        hint = " (count down with a negative step)" if stop < start and step > 0 else ""
        return [], f"empty range: from {start} to {stop} by {step} gives no values{hint}", None
    if count > HARD_MAX_SWEEP_POINTS:
        return [], f"range of {count:,} values is over {HARD_MAX_SWEEP_POINTS:,}", None
    if all(isinstance(x, int) for x in (start, stop, step)):
        return [start + k * step for k in range(count)], None, None
    return [round(start + k * step, 12) for k in range(count)], None, None


def _sweep_axes(
    sweep: Mapping[str, Any],
    model: type[BaseModel],
    pos: _Positions,
    file: str,
    force: bool,
) -> tuple[dict[str, list[Any]], set[str], list[Problem]]:
    """The swept values per path, the paths given as ranges, and problems found."""
    axes: dict[str, list[Any]] = {}
    ranged: set[str] = set()
    problems: list[Problem] = []
    for path, spec in sweep.items():
        key_at = pos.keys.get(("sweep", path), (1, 1))
        value_at = pos.values.get(("sweep", path), key_at)
        field = f"sweep.{path}"
        message = _path_problem(model, path)
        if message is not None:
            problems.append(Problem(file, *key_at, field, message))
            continue
        if isinstance(spec, list):
            if not spec:
                problems.append(
                    Problem(file, *value_at, field, "empty list of values; give at least one")
                )
                continue
            seen: set[str] = set()
            for i, v in enumerate(spec):
                text = json.dumps(v, sort_keys=True, default=str)
                if text in seen:
                    line, col = pos.values.get(("sweep", path, i), value_at)
                    problems.append(
                        Problem(file, line, col, f"{field}[{i}]", "duplicate value", v, True)
                    )
                seen.add(text)
            axes[path] = list(spec)
        elif isinstance(spec, Mapping):
            values, message, key = _range_values(spec)
            if message is not None:
                unknown = key is not None and key not in ("from", "to", "step")
                places = pos.keys if unknown else pos.values
                at = places.get(("sweep", path, key), value_at) if key else value_at
                sub = f"{field}.{key}" if key else field
                has_value = key is not None and key in spec and not unknown
                problems.append(
                    Problem(file, *at, sub, message, spec.get(key) if key else None, has_value)
                )
                continue
            axes[path] = values
            ranged.add(path)
        else:
            problems.append(
                Problem(
                    file,
                    *value_at,
                    field,
                    "must be a list of values or a range {from: A, to: B, step: C}",
                    spec,
                    True,
                )
            )
    for path in axes:
        inner = [p for p in axes if p.startswith(f"{path}.")]
        if inner:
            line, col = pos.keys.get(("sweep", inner[0]), (1, 1))
            message = f"is inside sweep.{path}, which sets the whole group: one of the two "
            problems.append(Problem(file, line, col, f"sweep.{inner[0]}", message + "does nothing"))
    size = math.prod(len(v) for v in axes.values()) if axes else 1
    if not problems and size > MAX_SWEEP_POINTS:
        line, col = pos.keys.get(("sweep",), (1, 1))
        shape = " × ".join(str(len(v)) for v in axes.values())
        if size > HARD_MAX_SWEEP_POINTS:
            message = f"grid of {size:,} points ({shape}) is over the hard limit of "
            message += f"{HARD_MAX_SWEEP_POINTS:,}; split it into several scenarios"
            problems.append(Problem(file, line, col, "sweep", message))
        elif not force:
            message = f"grid of {size:,} points ({shape}) is over the limit of "
            message += f"{MAX_SWEEP_POINTS:,}; use fewer values or pass --force"
            problems.append(Problem(file, line, col, "sweep", message))
    return axes, ranged, problems


def _placed(
    p: Problem,
    name: str,
    override: Any,
    point: dict[str, Any],
    axes: dict[str, list[Any]],
    ranged: set[str],
    pos: _Positions,
    base_ok: bool = False,
) -> Problem:
    """A problem of one point's parameters, placed at the sweep value, variant or params.

    A value of params that only a variant makes wrong (``players: 3`` in a variant against a
    four-entry list of params) is placed at the variant, which is named, with the line of the
    value it breaks."""
    loc = _loc_of(p.path)
    for path, value in point.items():
        ploc = _path_loc(path)
        if loc[: len(ploc)] == ploc:
            rest = _dotted(("x", *loc[len(ploc) :]))[1:]
            if path in ranged:
                line, col = pos.values.get(("sweep", path), (p.line, p.col))
                where = f"sweep.{path}{rest}"
            else:
                i = axes[path].index(value)
                line, col = pos.values.get(("sweep", path, i), (p.line, p.col))
                where = f"sweep.{path}[{i}]{rest}"
            return Problem(p.file, line, col, where, p.message, p.value, p.has_value)
    in_variant = name != BASE_VARIANT and _has(override, loc)
    if name != BASE_VARIANT and not in_variant and base_ok:
        line, col = pos.nearest(("variants", name), prefer_key=True)
        message = f"params.{p.path} (line {p.line}): {p.message}"
        return Problem(p.file, line, col, f"variants.{name}", message, p.value, p.has_value)
    prefix = f"variants.{name}." if in_variant else "params."
    return Problem(p.file, p.line, p.col, prefix + p.path, p.message, p.value, p.has_value)


def _with_point_counts(
    found: dict[str, tuple[Problem, set[int]]], n_points: int, axes: dict[str, Any]
) -> list[Problem]:
    """Problems in file order; with a sweep, those not at every point say how often they occur."""
    out = []
    for first, at in list(found.values())[:MAX_PROBLEMS]:
        count = len(at)
        if axes and count < n_points and not first.path.startswith("sweep."):
            first = Problem(
                first.file,
                first.line,
                first.col,
                first.path,
                f"{first.message} (at {count} of {n_points} sweep points)",
                first.value,
                first.has_value,
            )
        out.append(first)
    if len(found) > MAX_PROBLEMS:
        p = out[-1]
        out.append(Problem(p.file, p.line, p.col, "file", "... and more problems; fix these first"))
    return out


def _loc_of(dotted: str) -> Loc:
    return tuple(re.split(r"[.\[]", dotted.replace("]", "")))
