"""What ``sim list`` shows of a procedure: parameters with ranges and defaults, and metrics."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from rich.table import Table

from simulator.procedures.base import Procedure


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if origin is not None:
        args = ", ".join(_type_name(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    return getattr(annotation, "__name__", str(annotation))


def parameter_rows(
    model: type[BaseModel], prefix: str = ""
) -> Iterator[tuple[str, str, str, str, str]]:
    """(path, type, range, default, description) for every field, nested models flattened."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from parameter_rows(ann, f"{path}.")
            continue
        lo = hi = None
        for meta in info.metadata:
            lo = getattr(meta, "ge", lo)
            hi = getattr(meta, "le", hi)
        rng = (
            f"{lo}..{hi}"
            if lo is not None and hi is not None
            else (f"≥ {lo}" if lo is not None else "")
        )
        if info.default is PydanticUndefined and info.default_factory is None:
            default = "required"
        elif info.default_factory is not None:
            default = repr(info.default_factory())  # type: ignore[call-arg]
        else:
            default = repr(info.default)
        yield path, _readable(_type_name(ann)), rng, default, info.description or ""


def _readable(text: str) -> str:
    """``sim list``'s type as the reference pages show it: an agent union as ``agent |
    list[agent]``, never a discriminator function's repr (``<function _agent_kind at 0x…>``)."""
    if "AgentSpec" in text:
        return "agent | list[agent]"
    return re.sub(r"<function (\w+) at 0x[0-9a-f]+>", r"\1", text)


def describe(proc: Procedure) -> Iterator[Any]:
    params = Table(title=f"{proc.name} — {proc.title} ({proc.rules})", title_justify="left")
    for col in ("parameter", "type", "range", "default", "description"):
        params.add_column(col)
    for row in parameter_rows(proc.params_model):
        params.add_row(*row)
    yield params
    if proc.example is not None:
        metrics = Table(title=f"{proc.name} metrics", title_justify="left")
        for col in ("metric", "kind", "description"):
            metrics.add_column(col)
        for m in proc.metrics(proc.params_model.model_validate(proc.example)):
            metrics.add_row(m.name, m.kind, m.description)
        yield metrics
    for note in proc.notes:
        yield f"  note: {note}"
    yield ""
