"""YAML scenario files → validated :class:`Scenario` objects, with errors that point into the file.

Every problem is reported as ``file:line:col: field.path: message (got VALUE)``. The file is read
with ``yaml.SafeLoader`` only (through ``compose``, so every value keeps its position), duplicate
keys are rejected, and hostile files (over 1 MiB, YAML bombs, deep nesting, YAML 1.1 surprises)
are refused by :mod:`simulator.yaml_loader` before they cost much.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema, field_validator

from simulator import procedures
from simulator.equivalence import EquivalenceSpec, spec_problems
from simulator.gate.settings import CheckSpec, metric_names
from simulator.limits import MAX_BYTES, MAX_TRIALS
from simulator.procedures.base import Params, Procedure
from simulator.robustness.spec import RobustnessSpec, robustness_problems
from simulator.sweep_axes import (
    _SWEEP_AXIS_SCHEMA,
    BASE_VARIANT,
    HARD_MAX_SWEEP_POINTS,
    MAX_PROBLEMS,
    MAX_SWEEP_POINTS,
    _has,
    _is_number,
    _path_loc,
    _placed,
    _set_path,
    _sweep_axes,
    _with_point_counts,
    set_path,
)
from simulator.tournament.spec import TournamentSpec
from simulator.yaml_loader import Loc, Problem, ScenarioError, compose, read_text, to_python
from simulator.yaml_loader import Positions as _Positions
from simulator.yaml_loader import dotted as _dotted
from simulator.yaml_loader import show as _show

__all__ = [
    "BASE_VARIANT",
    "HARD_MAX_SWEEP_POINTS",
    "MAX_BYTES",
    "MAX_PROBLEMS",
    "MAX_SWEEP_POINTS",
    "Problem",
    "Scenario",
    "ScenarioError",
    "json_schema",
    "load",
    "parse",
    "set_path",
]
#: The most variants of one scenario (each is compared with the base and drawn in reports).
MAX_VARIANTS = 100
#: Longest variant name (it heads table columns and figure legends).
MAX_VARIANT_NAME = 60


class ScenarioFile(BaseModel):
    """The top level of a scenario file; ``params`` and ``variants`` are checked per procedure."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        max_length=100,
        description="scenario name; also the report folder under reports/out/",
    )
    procedure: str = Field(
        description="the rule to simulate, as listed by `sim list`, or path/to/file.py:NAME, a "
        "trial written in your own Python file (relative to this file; docs/own-rules.md)"
    )
    description: str = Field(default="", description="free text shown in reports")
    trials: int = Field(ge=1, le=MAX_TRIALS, description="trials per variant")
    seed: int = Field(ge=0, le=2**64 - 1, description="seed of the counter-based generator")
    params: dict[str, Any] = Field(default_factory=dict, description="the procedure's parameters")
    variants: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="named overrides, each deep-merged over params"
    )
    sweep: dict[str, Annotated[Any, WithJsonSchema(_SWEEP_AXIS_SCHEMA)]] = Field(
        default_factory=dict,
        description="parameter paths (dotted, like attacker.units) to a list of values or a "
        "range {from, to, step}; the grid of all combinations runs under every variant",
    )
    check: CheckSpec = Field(
        default_factory=dict,
        description="`sim check`: trials; per metric a tolerance, detect or gate (docs/gate.md)",
    )
    tune: dict[str, Any] | None = Field(
        default=None,
        description="`sim tune`: search (paths to values), target/minimize/maximize, budget; "
        "checked by `sim tune` and `sim validate` (simulator.tune.spec)",
    )
    tournament: TournamentSpec | None = Field(
        default=None,
        description="play the game's agents against each other: entrants, each in every seat "
        "equally often on the same deals (docs/agents.md); trials count deals",
    )
    explain: bool = Field(
        default=False,
        description="`sim run` also plays every combination of the clauses each variant changes "
        "and says in the verdict which clause moved each changed metric (docs/why.md)",
    )
    robustness: RobustnessSpec | None = Field(
        default=None,
        description="rerun the comparison under stronger play (policies) and with each declared "
        "assumption moved (assumptions), on the same deals (docs/comparisons.md)",
    )
    equivalence: EquivalenceSpec = Field(
        default_factory=EquivalenceSpec,
        description="margins within which two variants count as the same (equivalence by two "
        "one-sided tests): per kind (proportion, mean, seat_spread) or per metric "
        "(docs/reports.md, Ties)",
    )

    @field_validator("trials", mode="before")
    @classmethod
    def _trials_in_any_notation(cls, v: Any) -> Any:
        # YAML 1.1 reads `1e6` as a string and `1.0e6` as a float: accept both when integral.
        if isinstance(v, str) and re.fullmatch(r"\d+(\.\d*)?[eE]\+?\d+", v.strip()):
            v = float(v)
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return v

    @field_validator("variants")
    @classmethod
    def _variant_names(cls, v: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        if BASE_VARIANT in v:
            raise ValueError(f"{BASE_VARIANT!r} is the name of the unmodified params; rename it")
        if len(v) > MAX_VARIANTS:
            # Every variant is compared with the base on every metric and drawn in every
            # figure: 1,000 simulate in seconds and then report for minutes.
            raise ValueError(
                f"{len(v):,} variants, over the limit of {MAX_VARIANTS}; split them into "
                "several scenarios, or make the differing value a sweep: axis"
            )
        for name in v:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
                raise ValueError(f"variant name {name!r} must be letters, digits, '.', '_', '-'")
            if len(name) > MAX_VARIANT_NAME:
                # A name is a column header, a legend entry and a file-name part: a long one
                # only overflows the reports.
                raise ValueError(
                    f"variant name {name[:20]}... is {len(name)} characters; at most "
                    f"{MAX_VARIANT_NAME}"
                )
        return v


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep grid: the swept values (path → value) and its variants."""

    values: dict[str, Any]
    variants: dict[str, Params]
    #: Why the rules forbid this point (``Procedure.forbidden``), empty when they allow it.
    illegal: str = ""

    def label(self) -> str:
        return ", ".join(f"{k}={_show(v)}" for k, v in self.values.items())


@dataclass
class Scenario:
    """A validated scenario: the procedure and one parameter set per variant (base first).

    With a ``sweep``, ``points`` holds every grid point (first axis slowest) with its variants, and
    ``variants`` is the first point's; without one, ``points`` is the single point of ``variants``.
    """

    path: str
    name: str
    procedure: Procedure
    trials: int
    seed: int
    description: str
    variants: dict[str, Params]
    raw: dict[str, Any] = field(repr=False)
    #: Swept paths in file order, each with its values; empty without a sweep.
    sweep: dict[str, list[Any]] = field(default_factory=dict)
    points: list[SweepPoint] = field(default_factory=list)
    #: ``check:`` section for the regression gate (:mod:`simulator.gate.settings`).
    check: dict[str, Any] = field(default_factory=dict)
    #: ``robustness:`` section (:mod:`simulator.robustness`), None without one.
    robustness: RobustnessSpec | None = None
    #: ``explain: true``: each variant's change attributed to its clauses (docs/why.md).
    explain: bool = False
    #: ``equivalence:`` section: the margins of ties (:mod:`simulator.equivalence`).
    equivalence: EquivalenceSpec = field(default_factory=EquivalenceSpec)
    #: What a user should know before running it (a search budget that makes one game take
    #: minutes); printed by the commands, never an error.
    notes: list[str] = field(default_factory=list)
    #: Where each key and value of the file stands (for errors found after loading, e.g. in
    #: the ``tune:`` section, which :mod:`simulator.tune.spec` checks).
    positions: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.points:
            self.points = [SweepPoint({}, self.variants)]

    def variant_dicts(self) -> dict[str, dict[str, Any]]:
        return {k: p.model_dump(mode="json") for k, p in self.variants.items()}


# ---------------------------------------------------------------------------------------------
# Validation


def _model_at(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at ``loc`` inside ``model``, if any."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = _unwrap(info.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """The model inside ``Model``, ``list[Model]``, ``Model | None``, ``dict[str, Model]``."""
    for arg in getattr(annotation, "__args__", ()) or ():
        inner = _unwrap(arg)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner
    return annotation


def _bounds_message(model: type[BaseModel] | None, name: str, default: str) -> str:
    if model is None or name not in model.model_fields:
        return default
    lo = hi = None
    for meta in model.model_fields[name].metadata:
        lo = getattr(meta, "ge", lo)
        hi = getattr(meta, "le", hi)
    if lo is not None and hi is not None:
        return f"must be between {lo} and {hi}"
    return default


def _problems_from(
    err: ValidationError,
    model: type[BaseModel],
    file: str,
    prefix: Loc,
    where: Any,
) -> list[Problem]:
    """Turn pydantic errors into problems; ``where(loc)`` gives the file position of a loc."""
    out = []
    for i, e in enumerate(err.errors()):
        loc: Loc = _without_tags(model, tuple(e["loc"]))
        kind = e["type"]
        message = e["msg"]
        has_value = True
        value = e.get("input")
        if kind == "literal_error":
            # A procedure that re-raises its errors (recruitment) keeps the words in the text only.
            expected = (e.get("ctx") or {}).get("expected") or message.removeprefix(
                "Input should be "
            )
            message = _choice_message(value, str(expected))
        elif kind == "extra_forbidden" and i >= 4 * MAX_PROBLEMS:  # only counted: keep it cheap
            message, has_value = "unknown key", False
        elif kind == "extra_forbidden":
            parent = _model_at(model, loc[:-1])
            valid = sorted(parent.model_fields) if parent else []
            close = difflib.get_close_matches(str(loc[-1]), valid, n=1)
            message = f"unknown key; did you mean {close[0]!r}?" if close else "unknown key"
            if valid:
                message += f" (valid keys: {', '.join(valid)})"
            has_value = False
        elif kind == "missing":
            message = "required key is missing"
            has_value = False
        elif kind in ("greater_than_equal", "less_than_equal"):
            message = _bounds_message(_model_at(model, loc[:-1]), str(loc[-1]), message)
        elif kind == "value_error":
            message = message.removeprefix("Value error, ")
        line, col = where(loc, kind == "extra_forbidden")
        out.append(Problem(file, line, col, _dotted((*prefix, *loc)), message, value, has_value))
    return out


#: Segments pydantic adds to an error's location for a tagged union (``{agent: mcts}`` is the
#: ``spec`` branch of an agent): not keys of the file, so never shown.
_UNION_TAGS = frozenset({"spec", "name", "one", "per_seat", "fixed", "span", "cards", "generator"})


def _without_tags(model: type[BaseModel], loc: Loc) -> Loc:
    """``loc`` without the union tags pydantic inserted (a real field of that name is kept)."""
    out: list[Any] = []
    for part in loc:
        if isinstance(part, str) and part in _UNION_TAGS:
            at = _model_at(model, tuple(out))
            if at is None or part not in at.model_fields:
                continue
        out.append(part)
    return tuple(out)


def _choice_message(value: Any, expected: str) -> str:
    """A value that is none of the allowed words: which were meant, or that YAML read a number.

    ``revision: 1.1`` unquoted is the float 1.1, not the word '1.1': say to quote it; a word in
    the wrong case or misspelt gets a did-you-mean, as keys do.
    """
    choices = re.findall(r"'([^']*)'", expected)
    message = f"must be one of {expected}" if expected else "is not one of the allowed values"
    if _is_number(value) and str(value) in choices:
        return f"{message}: write '{value}' in quotes (unquoted, YAML reads {value} as a number)"
    if isinstance(value, str):
        lower = {c.lower(): c for c in choices}
        close = [lower[value.lower()]] if value.lower() in lower else []
        close = close or difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
        if close:
            return f"{message}; did you mean {close[0]!r}?"
    return message


def _folder(file: str) -> Path:
    """The folder a scenario's own files are named relative to: its file's (the working folder
    for a scenario given as text)."""
    path = Path(file)
    return path.parent if path.is_file() else Path(".")


def _deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in override.items():
        if isinstance(v, Mapping) and isinstance(merged.get(k), Mapping):
            merged[k] = _deep_merge(merged[k], v)
        else:
            merged[k] = v
    return merged


def parse(text: str, file: str = "<scenario>", force: bool = False) -> Scenario:
    """Validate scenario ``text`` (the contents of ``file``); raise ScenarioError on problems.

    ``force`` allows a sweep grid over MAX_SWEEP_POINTS points.
    """
    node = compose(text, file)
    raw, pos, problems = to_python(node, file)
    if problems:
        raise ScenarioError(problems)

    def at(prefix: Loc) -> Any:
        def where(loc: Loc, is_key: bool) -> tuple[int, int]:
            return pos.nearest((*prefix, *loc), prefer_key=is_key)

        return where

    try:
        top = ScenarioFile.model_validate(raw)
    except ValidationError as e:
        raise ScenarioError(_problems_from(e, ScenarioFile, file, (), at(()))) from e

    proc = _procedure(top.procedure, file, pos)
    if top.tournament is not None:
        from simulator.tournament.procedure import tournament_procedure

        proc = tournament_procedure(proc, top.tournament)
        for name, override in top.variants.items():
            if "policies" in override:
                line, col = pos.nearest(("variants", name, "policies"), prefer_key=True)
                message = (
                    "a tournament seats its own entrants (tournament.agents) in every seat, so "
                    "policies here would be ignored: remove it, or run the variant without "
                    "tournament:"
                )
                raise ScenarioError(
                    [Problem(file, line, col, f"variants.{name}.policies", message)]
                )

    axes, ranged, problems = _sweep_axes(top.sweep, proc.params_model, pos, file, force)
    for name, override in top.variants.items():
        for path in axes:
            if _has(override, _path_loc(path)):
                line, col = pos.nearest(("variants", name, *_path_loc(path)), prefer_key=True)
                problems.append(
                    Problem(
                        file,
                        line,
                        col,
                        f"variants.{name}.{path}",
                        f"is swept (sweep.{path}); a variant cannot also set it: remove it here "
                        "or from the sweep",
                    )
                )
    if problems:
        raise ScenarioError(problems)

    overrides = {BASE_VARIANT: {}, **top.variants}
    grid = list(itertools.product(*axes.values()))
    points: list[SweepPoint] = []
    found: dict[str, tuple[Problem, set[int]]] = {}
    for index, values in enumerate(grid):
        point = dict(zip(axes, values, strict=True))
        variants: dict[str, Params] = {}
        for name, override in overrides.items():
            merged = _deep_merge(top.params, override)
            for path, value in point.items():
                merged = _set_path(merged, _path_loc(path), value)

            def where(
                loc: Loc, is_key: bool, name: str = name, override: Any = override
            ) -> tuple[int, int]:
                if name != BASE_VARIANT and _has(override, loc):
                    return pos.nearest(("variants", name, *loc), prefer_key=is_key)
                return pos.nearest(("params", *loc), prefer_key=is_key)

            try:
                variants[name] = proc.params_model.model_validate(
                    merged, strict=True, context={"base_dir": _folder(file)}
                )
            except ValidationError as e:
                base_ok = BASE_VARIANT in variants
                for p in _problems_from(e, proc.params_model, file, (), where):
                    p = _placed(p, name, override, point, axes, ranged, pos, base_ok)
                    key = str(p)
                    found.setdefault(key, (p, set()))[1].add(index)
        if len(found) > MAX_PROBLEMS:
            break
        points.append(SweepPoint(point, variants))
    if found:
        raise ScenarioError(_with_point_counts(found, len(grid), axes))
    if proc.forbidden is not None:
        points = _mark_forbidden(proc.forbidden, points, top.variants, file, pos, bool(axes))
    if top.tournament is not None:
        from simulator.tournament.procedure import tournament_of

        for pt in points:
            for params in pt.variants.values():
                if why := tournament_of(proc).check(params):  # type: ignore[union-attr]
                    spot: Loc = ("tournament",)
                    if why.startswith("seatings") and "seatings" in top.tournament.model_fields_set:
                        spot = ("tournament", "seatings")
                    line, col = pos.nearest(spot)
                    raise ScenarioError([Problem(file, line, col, _dotted(spot), why)])
    for pt in points:
        first = proc.metric_names(pt.variants[BASE_VARIANT])
        for k, params in pt.variants.items():
            if proc.metric_names(params) != first:
                line, col = pos.nearest(("variants", k))
                raise ScenarioError(
                    [
                        Problem(
                            file,
                            line,
                            col,
                            f"variants.{k}",
                            "changes which metrics are reported; variants must keep "
                            "the metrics of params (e.g. the same number of targets)"
                            + (f" (at sweep point {pt.label()})" if axes else ""),
                        )
                    ]
                )
    check_problems = _check_problems(
        top.check, proc.metric_names(points[0].variants[BASE_VARIANT]), pos, file
    )
    if top.robustness is not None:
        check_problems += robustness_problems(
            top.robustness,
            proc,
            points[0].variants[BASE_VARIANT],
            pos,
            file,
            bool(top.sweep),
            top.tournament is not None,
        )
    check_problems += _equivalence_problems(
        top.equivalence, proc.metric_names(points[0].variants[BASE_VARIANT]), pos, file
    )
    if check_problems:
        raise ScenarioError(check_problems)
    every = [p for pt in points for p in pt.variants.values()]
    if proc.specialize is not None:
        # A designer's rule step named in the parameters: compiled now, errors at their line.
        proc = proc.specialize(proc, every)
    elif top.tournament is not None:
        from simulator.tournament.procedure import tournament_of, tournament_procedure

        game = tournament_of(proc).game  # type: ignore[union-attr]
        if game.specialize is not None and (steps := game.specialize(game, every)) is not game:
            # A designer's rule step: the tournament plays the game that knows it.
            proc = tournament_procedure(steps, top.tournament)
    scenario = Scenario(
        file,
        top.name,
        proc,
        top.trials,
        top.seed,
        top.description,
        points[0].variants,
        raw,
        sweep=axes,
        points=points,
        check=dict(top.check),
        robustness=top.robustness,
        explain=top.explain,
        equivalence=top.equivalence,
        positions=pos,
    )
    scenario.notes = _cost_notes(top, points)
    return scenario


def _procedure(name: str, file: str, pos: _Positions) -> Procedure:
    """The procedure a scenario names: a registered one, or ``path/to/file.py:NAME`` relative to
    the scenario's folder (:mod:`simulator.userfiles`, whose problems point into that file)."""
    line, col = pos.values[("procedure",)]
    from simulator.userfiles.loading import is_ref

    if is_ref(name):
        from simulator.userfiles.procedure import procedure_of

        folder = Path(file).parent if file != "<scenario>" else Path.cwd()
        where = Problem(file, line, col, "procedure", "", name, True)
        return procedure_of(name, folder, where)
    try:
        return procedures.get(name)
    except KeyError as e:
        text = str(e.args[0])
        if not text.startswith("unknown procedure"):  # an installed package's, broken
            raise ScenarioError([Problem(file, line, col, "procedure", text)]) from e
        hint = text.partition("; ")[2]
        message = "unknown procedure" + (f"; {hint}" if hint else "") + " (`sim list` shows all)"
        raise ScenarioError([Problem(file, line, col, "procedure", message, name, True)]) from e


#: A search budget per decision from which one game can take minutes: mcts iterations and
#: rollout playouts (per legal move), each a playout (to the end of the game with horizon 0).
HEAVY_ITERATIONS = 5_000
HEAVY_PLAYOUTS = 500


def _cost_notes(top: ScenarioFile, points: list[SweepPoint]) -> list[str]:
    """Notes on search budgets so large that a single decision takes seconds to minutes: said
    before the run, so that a silent first deal is expected (the bar moves deal by deal)."""
    from simulator.agents.spec import AgentSpec, agent_label, as_spec

    agents: dict[str, AgentSpec] = {}
    if top.tournament is not None:
        agents.update({agent_label(a): a for a in top.tournament.specs()})
    for pt in points[:1]:
        for params in pt.variants.values():
            policies = getattr(params, "policies", None)
            listed = policies if isinstance(policies, list | tuple) else [policies]
            for a in listed:
                if a is not None and not isinstance(a, int | float):
                    spec = as_spec(a)
                    agents[agent_label(spec)] = spec
    notes = []
    for label, a in agents.items():
        budget = a.iterations if a.agent == "mcts" else a.playouts if a.agent == "rollout" else 0
        heavy = HEAVY_ITERATIONS if a.agent == "mcts" else HEAVY_PLAYOUTS
        if a.horizon == 0:
            heavy //= 5
        if budget >= heavy:
            what = "iterations" if a.agent == "mcts" else "playouts of every move"
            depth = "to the end of the game" if a.horizon == 0 else f"{a.horizon} rounds deep"
            notes.append(
                f"{label}: {budget:,} {what} per decision, each a playout {depth}: one game "
                f"may take minutes, and the progress bar moves only as deals finish "
                f"({top.trials:,} deals); Ctrl-C stops it within a moment"
            )
    return notes


def _mark_forbidden(
    forbidden: Any,
    points: list[SweepPoint],
    overrides: Mapping[str, Any],
    file: str,
    pos: _Positions,
    swept: bool,
) -> list[SweepPoint]:
    """Refuse a scenario whose parameters the rules forbid, at the offending line; in a sweep,
    mark each forbidden point illegal instead (refused only if every point is)."""
    out: list[SweepPoint] = []
    problems: list[Problem] = []
    for pt in points:
        reasons = []
        for name, params in pt.variants.items():
            for loc, message, value in forbidden(params):
                override = overrides.get(name, {})
                in_variant = name != BASE_VARIANT and _has(override, loc)
                where = ("variants", name, *loc) if in_variant else ("params", *loc)
                line, col = pos.nearest(where)
                path = ".".join(str(x) for x in where)
                problems.append(Problem(file, line, col, path, message, value, True))
                reasons.append(message if name == BASE_VARIANT else f"{name}: {message}")
        out.append(dataclasses.replace(pt, illegal="; ".join(reasons)) if reasons else pt)
    if problems and (not swept or all(pt.illegal for pt in out)):
        raise ScenarioError(problems[:MAX_PROBLEMS])
    return out


def _check_problems(
    check: Mapping[str, Any], metrics: list[str], pos: _Positions, file: str
) -> list[Problem]:
    out = []
    for metric in metric_names(check):
        if metric not in metrics:
            line, col = pos.keys.get(("check", metric), (1, 1))
            close = difflib.get_close_matches(metric, metrics, n=1)
            message = "unknown metric" + (f"; did you mean {close[0]!r}?" if close else "")
            out.append(
                Problem(
                    file,
                    line,
                    col,
                    f"check.{metric}",
                    message + f" (metrics: {', '.join(metrics)})",
                )
            )
    return out


def _equivalence_problems(
    spec: EquivalenceSpec, metrics: list[str], pos: _Positions, file: str
) -> list[Problem]:
    out = []
    for metric, message, value in spec_problems(spec, metrics):
        line, col = pos.keys.get(("equivalence", "metrics", metric), (1, 1))
        close = difflib.get_close_matches(metric, metrics, n=1)
        hint = f"; did you mean {close[0]!r}?" if close and message == "unknown metric" else ""
        out.append(
            Problem(file, line, col, f"equivalence.metrics.{metric}", message + hint, value, True)
        )
    return out


def _dedupe(problems: list[Problem]) -> list[Problem]:
    # A bad value in params shows up once per variant; report it once.
    seen: set[str] = set()
    out = []
    for p in problems:
        if str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return out


def load(path: str | Path, force: bool = False) -> Scenario:
    """Read and validate a scenario file; raise ScenarioError naming file, line and field."""
    path = Path(path)
    return parse(read_text(path), str(path), force)


def json_schema() -> dict[str, Any]:
    """JSON Schema of scenario files, with each procedure's params, for editor completion."""
    top = ScenarioFile.model_json_schema()
    defs: dict[str, Any] = {}
    branches = []
    for name in procedures.names():
        model = procedures.get(name).params_model
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        for k, v in schema.pop("$defs", {}).items():
            defs[k] = v
        ref = name.replace(".", "_") + "_params"
        defs[ref] = schema
        branches.append(
            {
                "if": {"properties": {"procedure": {"const": name}}},
                "then": {"properties": {"params": {"$ref": f"#/$defs/{ref}"}}},
            }
        )
    top["properties"]["procedure"]["anyOf"] = [
        {"enum": procedures.names()},
        {"type": "string", "pattern": r"\.py:[A-Za-z_][A-Za-z0-9_]*$"},  # a designer's file
    ]
    top["allOf"] = branches
    top["$defs"] = {**top.get("$defs", {}), **defs}
    top["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    top["title"] = "sim scenario"
    return top
