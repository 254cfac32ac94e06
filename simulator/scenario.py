"""YAML scenario files → validated :class:`Scenario` objects, with errors that point into the file.

Every problem is reported as ``file:line:col: field.path: message (got VALUE)``. The file is read
with ``yaml.SafeLoader`` only (through ``compose``, so every value keeps its position), duplicate
keys are rejected, and files over 1 MiB are refused before they are parsed.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from simulator import procedures
from simulator.procedures.base import Params, Procedure

MAX_BYTES = 1 << 20
BASE_VARIANT = "base"
Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario file, with where it is."""

    file: str
    line: int
    col: int
    path: str
    message: str
    value: Any = None
    has_value: bool = False

    def __str__(self) -> str:
        got = f" (got {_show(self.value)})" if self.has_value else ""
        return f"{self.file}:{self.line}:{self.col}: {self.path}: {self.message}{got}"


class ScenarioError(Exception):
    """A scenario that cannot be run; ``problems`` lists everything found wrong."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class ScenarioFile(BaseModel):
    """The top level of a scenario file; ``params`` and ``variants`` are checked per procedure."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        max_length=100,
        description="scenario name; also the report folder under reports/out/",
    )
    procedure: str = Field(description="the rule to simulate, as listed by `sim list`")
    description: str = Field(default="", description="free text shown in reports")
    trials: int = Field(ge=1, le=10**12, description="trials per variant")
    seed: int = Field(ge=0, le=2**64 - 1, description="seed of the counter-based generator")
    params: dict[str, Any] = Field(default_factory=dict, description="the procedure's parameters")
    variants: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="named overrides, each deep-merged over params"
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
        for name in v:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
                raise ValueError(f"variant name {name!r} must be letters, digits, '.', '_', '-'")
        return v


@dataclass
class Scenario:
    """A validated scenario: the procedure and one parameter set per variant (base first)."""

    path: str
    name: str
    procedure: Procedure
    trials: int
    seed: int
    description: str
    variants: dict[str, Params]
    raw: dict[str, Any] = field(repr=False)

    def variant_dicts(self) -> dict[str, dict[str, Any]]:
        return {k: p.model_dump(mode="json") for k, p in self.variants.items()}


# ---------------------------------------------------------------------------------------------
# Reading YAML with positions


class _Positions:
    """Line and column (1-based) of every value and key, by path."""

    def __init__(self) -> None:
        self.values: dict[Loc, tuple[int, int]] = {}
        self.keys: dict[Loc, tuple[int, int]] = {}

    def nearest(self, loc: Loc, prefer_key: bool = False) -> tuple[int, int]:
        for i in range(len(loc), -1, -1):
            sub = loc[:i]
            if prefer_key and sub in self.keys:
                return self.keys[sub]
            if sub in self.values:
                return self.values[sub]
        return (1, 1)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _read_text(path: Path) -> str:
    file = str(path)
    if not path.exists():
        raise ScenarioError([Problem(file, 1, 1, "file", "no such file")])
    if path.is_dir():
        raise ScenarioError([Problem(file, 1, 1, "file", "is a directory, not a scenario file")])
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ScenarioError(
            [Problem(file, 1, 1, "file", "larger than the 1 MiB limit", f"{size} bytes", True)]
        )
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ScenarioError([Problem(file, 1, 1, "file", f"cannot be read: {e.strerror}")]) from e
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError([Problem(file, 1, 1, "file", "is not UTF-8 text, so not YAML")]) from e


def _compose(text: str, file: str) -> yaml.Node:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        msg = " ".join(str(x) for x in (e.context, e.problem) if x)
        raise ScenarioError([Problem(file, line, col, "yaml", f"not valid YAML: {msg}")]) from e
    except yaml.YAMLError as e:
        raise ScenarioError([Problem(file, 1, 1, "yaml", f"not valid YAML: {e}")]) from e
    if node is None:
        raise ScenarioError([Problem(file, 1, 1, "file", "is empty; expected a scenario mapping")])
    if not isinstance(node, yaml.MappingNode):
        line, col = _mark(node)
        raise ScenarioError(
            [Problem(file, line, col, "file", "must be a mapping of scenario keys")]
        )
    return node


_constructor = yaml.SafeLoader("")


_PLAIN_TAGS = {
    f"tag:yaml.org,2002:{t}"
    for t in ("map", "seq", "str", "int", "float", "bool", "null", "timestamp")
}


def _to_python(
    node: yaml.Node, loc: Loc, pos: _Positions, file: str, problems: list[Problem]
) -> Any:
    pos.values[loc] = _mark(node)
    if node.tag not in _PLAIN_TAGS:
        line, col = _mark(node)
        problems.append(
            Problem(
                file,
                line,
                col,
                _dotted(loc) or "file",
                f"YAML tag {node.tag!r} is not allowed: only plain YAML values are read",
            )
        )
        return None
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        first_seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                line, col = _mark(key_node)
                problems.append(
                    Problem(file, line, col, _dotted(loc) or "file", "keys must be plain scalars")
                )
                continue
            key = _constructor.construct_object(key_node)
            key = key if isinstance(key, str) else str(key)
            line, col = _mark(key_node)
            if key in first_seen:
                problems.append(
                    Problem(
                        file,
                        line,
                        col,
                        _dotted((*loc, key)),
                        f"duplicate key (first at line {first_seen[key]})",
                    )
                )
                continue
            first_seen[key] = line
            pos.keys[(*loc, key)] = (line, col)
            out[key] = _to_python(value_node, (*loc, key), pos, file, problems)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_python(item, (*loc, i), pos, file, problems) for i, item in enumerate(node.value)
        ]
    return _constructor.construct_object(node)


def _dotted(loc: Loc) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


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
    for e in err.errors():
        loc: Loc = tuple(e["loc"])
        kind = e["type"]
        message = e["msg"]
        has_value = True
        value = e.get("input")
        if kind == "extra_forbidden":
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


def _deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in override.items():
        if isinstance(v, Mapping) and isinstance(merged.get(k), Mapping):
            merged[k] = _deep_merge(merged[k], v)
        else:
            merged[k] = v
    return merged


def _has(tree: Any, loc: Loc) -> bool:
    for part in loc:
        in_map = isinstance(tree, Mapping) and part in tree
        in_list = isinstance(tree, list) and isinstance(part, int) and part < len(tree)
        if in_map or in_list:
            tree = tree[part]
        else:
            return False
    return True


def parse(text: str, file: str = "<scenario>") -> Scenario:
    """Validate scenario ``text`` (the contents of ``file``); raise ScenarioError on problems."""
    node = _compose(text, file)
    pos = _Positions()
    problems: list[Problem] = []
    raw = _to_python(node, (), pos, file, problems)
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

    try:
        proc = procedures.get(top.procedure)
    except KeyError as e:
        line, col = pos.values[("procedure",)]
        hint = str(e.args[0]).partition("; ")[2]
        message = "unknown procedure" + (f"; {hint}" if hint else "") + " (`sim list` shows all)"
        raise ScenarioError(
            [Problem(file, line, col, "procedure", message, top.procedure, True)]
        ) from e

    variants: dict[str, Params] = {}
    overrides = {BASE_VARIANT: {}, **top.variants}
    for name, override in overrides.items():
        merged = _deep_merge(top.params, override)

        def where(
            loc: Loc, is_key: bool, name: str = name, override: Any = override
        ) -> tuple[int, int]:
            if name != BASE_VARIANT and _has(override, loc):
                return pos.nearest(("variants", name, *loc), prefer_key=is_key)
            return pos.nearest(("params", *loc), prefer_key=is_key)

        try:
            variants[name] = proc.params_model.model_validate(merged, strict=True)
        except ValidationError as e:
            for p in _problems_from(e, proc.params_model, file, (), where):
                in_variant = name != BASE_VARIANT and _has(override, _loc_of(p.path))
                prefix = f"variants.{name}." if in_variant else "params."
                problems.append(
                    Problem(p.file, p.line, p.col, prefix + p.path, p.message, p.value, p.has_value)
                )
    if problems:
        raise ScenarioError(_dedupe(problems))
    names = {k: proc.metric_names(v) for k, v in variants.items()}
    first = names[BASE_VARIANT]
    for k, ms in names.items():
        if ms != first:
            line, col = pos.nearest(("variants", k))
            raise ScenarioError(
                [
                    Problem(
                        file,
                        line,
                        col,
                        f"variants.{k}",
                        "changes which metrics are reported; variants must keep "
                        "the metrics of params (e.g. the same number of targets)",
                    )
                ]
            )
    return Scenario(file, top.name, proc, top.trials, top.seed, top.description, variants, raw)


def _loc_of(dotted: str) -> Loc:
    return tuple(re.split(r"[.\[]", dotted.replace("]", "")))


def _dedupe(problems: list[Problem]) -> list[Problem]:
    # A bad value in params shows up once per variant; report it once.
    seen: set[str] = set()
    out = []
    for p in problems:
        if str(p) not in seen:
            seen.add(str(p))
            out.append(p)
    return out


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raise ScenarioError naming file, line and field."""
    path = Path(path)
    return parse(_read_text(path), str(path))


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
    top["properties"]["procedure"]["enum"] = procedures.names()
    top["allOf"] = branches
    top["$defs"] = {**top.get("$defs", {}), **defs}
    top["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    top["title"] = "sim scenario"
    return top
