"""A designer's parameters: their types, checked at their line, and the pydantic model made of
them (for a trial function, :mod:`simulator.userfiles.procedure`, and a whole game's class,
:mod:`simulator.userfiles.game`)."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import create_model, model_validator
from pydantic.fields import FieldInfo

from simulator.procedures.base import Params
from simulator.userfiles.loading import Ref, UserFileError
from simulator.yaml_loader import Problem

#: Integers travel in a float64 row: exact up to 2**53.
MAX_INT = 2**53
_TYPES = {int: "int64", bool: "boolean", float: "float64"}


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: type
    field: FieldInfo
    line: int


def _problem(ref: Ref, line: int, message: str, col: int = 1) -> UserFileError:
    return UserFileError([Problem(ref.shown, line, col, ref.name, message)])


def base_type(annotation: Any) -> tuple[Any, list[Any]]:
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        return base, meta
    return annotation, []


def checked(ref: Ref, line: int, name: str, kind: Any, info: FieldInfo) -> Parameter:
    if kind not in _TYPES:
        shown = getattr(kind, "__name__", str(kind))
        raise _problem(
            ref,
            line,
            f"parameter {name}: type {shown} is not int, float or bool (what Numba "
            "and a packed row carry); use one of those",
        )
    default = info.default
    if not info.is_required() and not _is(kind, default):
        raise _problem(ref, line, f"parameter {name}: default {default!r} is not a {kind.__name__}")
    return Parameter(name, kind, info, line)


def _is(kind: type, value: Any) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, int | float) and not isinstance(value, bool)


def model_of(ref: Ref, parameters: list[Parameter]) -> type[Params]:
    fields: dict[str, Any] = {p.name: (p.kind, p.field) for p in parameters}

    def in_row(self: Any) -> Any:
        for p in parameters:
            value = getattr(self, p.name)
            if p.kind is int and abs(value) > MAX_INT:
                raise ValueError(f"{p.name}: {value} is beyond ±2**53, the exact integers")
        return self

    validators: Any = {"_exact_integers": model_validator(mode="after")(in_row)}
    model: type[Params] = create_model(
        f"{ref.name}_params",
        __base__=Params,
        __validators__=validators,
        __doc__=f"Parameters of {ref}.",
        **fields,
    )
    return model
