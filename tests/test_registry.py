"""The procedure registry: every module under simulator/procedures/<game>/ is a procedure."""

from __future__ import annotations

import pytest

from simulator import procedures
from simulator.procedures.base import Procedure


def test_every_registered_name_loads_a_procedure_of_that_name():
    assert "his.field_battle" in procedures.names()
    for name in procedures.names():
        proc = procedures.get(name)
        assert isinstance(proc, Procedure) and proc.name == name
        assert proc.title and "rules" in proc.rules and "docs/rules/" in proc.rules


def test_every_parameter_has_a_description():
    from simulator.describe import parameter_rows

    for name in procedures.names():
        for path, _, _, _, description in parameter_rows(procedures.get(name).params_model):
            assert description, f"{name}: parameter {path} has no description"


def test_every_procedure_has_an_example_that_validates():
    for name in procedures.names():
        proc = procedures.get(name)
        assert proc.example is not None, f"{name} has no example params for `sim list`"
        assert proc.metrics(proc.params_model.model_validate(proc.example))


def test_an_unknown_name_suggests_the_closest():
    with pytest.raises(KeyError, match=r"did you mean 'his\.field_battle'"):
        procedures.get("his.feld_battle")
