"""What ``sim list`` shows of a procedure: parameters with ranges, defaults and tags, metrics, and
the declared assumptions (each tagged rulebook, reading or invented). Every parameter's tag comes
from its one declaration (an :class:`~simulator.procedures.base.Assumption` or a
:class:`~simulator.procedures.base.Given`): INVENTED, reading, rulebook or setting."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from rich.markup import escape
from rich.table import Table

from simulator.procedures.base import Assumption, Given, Procedure, tag_of

#: What the parameter table's tags mean (sim list and the reference pages).
TAG_LEGEND = (
    "tag: rulebook = the rulebook's text, or our reading of an unclear line; reading = another "
    "reading; INVENTED = the rulebook is silent, replace the value with your own; setting = the "
    "question a run asks, not a rule"
)

#: How long a default may be in the assumptions table before it is cut.
SHOWN_DEFAULT = 48


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if origin is typing.Union or origin is types.UnionType:  # `int | None`: "int | none"
        return " | ".join(
            "none" if a is type(None) else _type_name(a) for a in typing.get_args(annotation)
        )
    if origin is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
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


def invented_knobs(proc: Procedure) -> set[str]:
    """Parameter paths whose default is an invented value (an assumption tagged ``invented``)."""
    return {a.knob for a in proc.assumptions if a.tag == "invented" and a.knob}


def tag_label(a: Assumption | Given | str | None) -> str:
    """The tag as shown: ``INVENTED`` stands out, the others as they are; ``UNTAGGED`` for a
    parameter without a declaration (a test fails on it)."""
    tag = a if isinstance(a, str) or a is None else a.tag
    if tag is None:
        return "UNTAGGED"
    return "INVENTED" if tag == "invented" else tag


def parameter_tags(proc: Procedure) -> dict[str, str]:
    """Every parameter path's tag as shown (``INVENTED``, ``reading``, ``rulebook``,
    ``setting``, or ``UNTAGGED``; blank instead for a designer's own file, which declares its
    assumptions and nothing else)."""
    untagged = "UNTAGGED" if proc.given else ""
    return {
        row[0]: tag_label(tag_of(proc, row[0])) if tag_of(proc, row[0]) else untagged
        for row in parameter_rows(proc.params_model)
    }


def assumption_rows(proc: Procedure) -> list[tuple[str, str, str, str, str, str]]:
    """(name, tag, "knob = default", what the default does, alternatives, rule) per assumption."""
    defaults = {row[0]: row[3] for row in parameter_rows(proc.params_model)}
    rows = []
    for a in proc.assumptions:
        if a.knob:
            default = defaults.get(a.knob, "")
            if len(default) > SHOWN_DEFAULT:
                default = default[: SHOWN_DEFAULT - 1] + "…"
            knob = f"{a.knob} = {default}" if default else a.knob
        else:
            knob = "(not a knob)"
        others = "; ".join(
            f"{alt.label}" + (" (invented)" if alt.tag == "invented" else "")
            for alt in a.alternatives
        )
        rows.append((a.name, tag_label(a), knob, a.text, others, a.rule))
    return rows


def describe(proc: Procedure) -> Iterator[Any]:
    params = Table(
        title=f"{proc.name} — {proc.title} ({proc.rules})",
        title_justify="left",
        caption=TAG_LEGEND,
        caption_justify="left",
    )
    for col in ("parameter", "type", "range", "default", "tag", "description"):
        params.add_column(col)
    tags = parameter_tags(proc)
    for row in parameter_rows(proc.params_model):
        path, kind, rng, default, description = row
        params.add_row(path, kind, rng, default, tags[path], description)
    yield params
    if proc.example is not None:
        metrics = Table(title=f"{proc.name} metrics", title_justify="left")
        for col in ("metric", "kind", "description"):
            metrics.add_column(col)
        for m in proc.metrics(proc.params_model.model_validate(proc.example)):
            metrics.add_row(m.name, m.kind, m.description)
        yield metrics
    if proc.assumptions:
        yield (
            f"{proc.name} assumptions (rulebook: our reading of an unclear line; reading: another "
            "reading; INVENTED: the rulebook is silent, replace the value with your own; "
            "--robustness assumptions moves each to its alternatives):"
        )
        for name, tag, knob, text, others, rule in assumption_rows(proc):
            # The rule first, so a section the text names is read in that rulebook.
            line = f"  {tag} {name} [{knob}], {rule}: {text}"
            if others:
                line += f"; alternatives: {others}"
            yield escape(line)
    for note in proc.notes:
        yield f"  note: {note}"
    yield ""
