"""Declared assumptions of the Here I Stand and Root procedures (Procedure.assumptions).

Every procedure declares what its results rest on; each knob is a parameter, each alternative a
set of overrides the parameter model accepts and that changes the default; a point with no knob
says so; an invented default is marked INVENTED by ``sim list``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from simulator import procedures
from simulator.describe import assumption_rows, describe, invented_knobs, parameter_rows
from simulator.procedures.base import Procedure

DECLARED = [n for n in procedures.names() if n.split(".")[0] in ("his", "root")]


def _with(params: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``params`` with dotted ``overrides`` applied (as a sweep applies its paths)."""
    out = copy.deepcopy(params)
    for path, value in overrides.items():
        node = out
        *parents, leaf = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = copy.deepcopy(value)
    return out


def _without(params: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    """``params`` with ``paths`` removed, so the model's defaults apply there."""
    out = copy.deepcopy(params)
    for path in paths:
        node = out
        *parents, leaf = path.split(".")
        for key in parents:
            node = node.get(key, {})
        node.pop(leaf, None)
    return out


def _value(model: Any, path: str) -> Any:
    for key in path.split("."):
        model = getattr(model, key)
    return model


@pytest.mark.parametrize("name", DECLARED)
def test_every_procedure_declares_its_assumptions(name):
    proc = procedures.get(name)
    assert proc.assumptions, f"{name} declares no assumption"
    names = [a.name for a in proc.assumptions]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("name", DECLARED)
def test_each_knob_is_a_parameter_and_each_alternative_changes_it(name):
    proc: Procedure = procedures.get(name)
    paths = {row[0] for row in parameter_rows(proc.params_model)}
    assert proc.example is not None
    for a in proc.assumptions:
        assert a.tag in ("rulebook", "reading", "invented")
        assert a.text and a.rule
        if not a.knob:
            assert not a.alternatives, f"{name}.{a.name}: alternatives without a knob"
            assert "not yet a knob" in a.text or "not yet counted" in a.text, a.name
            continue
        assert a.knob in paths, f"{name}.{a.name}: {a.knob} is not a parameter"
        for alt in a.alternatives:
            assert a.knob in alt.overrides, f"{name}.{a.name}: {alt.label} leaves {a.knob}"
            moved = proc.params_model.model_validate(_with(proc.example, alt.overrides))
            base = proc.params_model.model_validate(_without(proc.example, list(alt.overrides)))
            for path in alt.overrides:
                assert _value(moved, path) != _value(base, path), f"{alt.label} moves nothing"


@pytest.mark.parametrize("name", DECLARED)
def test_fires_metrics_are_metrics_of_the_procedure(name):
    proc = procedures.get(name)
    metrics = set(proc.metric_names(proc.params_model.model_validate(proc.example)))
    for a in proc.assumptions:
        for metric in a.fires:
            assert metric in metrics, f"{name}.{a.name}: no metric {metric}"


def _listed(proc: Procedure) -> str:
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    console = Console(file=out, width=400, color_system=None)
    for renderable in describe(proc):
        console.print(renderable)
    return out.getvalue()


@pytest.mark.parametrize("name", DECLARED)
def test_sim_list_shows_every_assumption_with_its_tag(name):
    proc = procedures.get(name)
    text = _listed(proc)
    for row, a in zip(assumption_rows(proc), proc.assumptions, strict=True):
        assert f"{row[1]} {a.name} [" in text, a.name
        assert f"], {a.rule}: {a.text}" in " ".join(text.split()), a.name
    for knob in invented_knobs(proc):
        line = next(line for line in text.splitlines() if re.match(rf"│ {re.escape(knob)} ", line))
        assert "│ INVENTED " in line, line


def test_the_invented_tables_are_marked_invented():
    # Issue 27 item 2: the chateaux table and the riches outcomes are not rules.
    for name, knob in [
        ("his.chateaux", "table"),
        ("his.chateaux", "modifiers"),
        ("his.new_world", "riches"),
        ("his.piracy", "choice_order"),
        ("root.hirelings", "hireling_points"),
        ("root.hirelings", "score_gain"),
        ("root.influence", "faces"),
    ]:
        assert knob in invented_knobs(procedures.get(name)), (name, knob)
    ambush = next(a for a in procedures.get("root.battle").assumptions if a.name == "ambush")
    assert ambush.tag == "invented" and "published game" in ambush.text
