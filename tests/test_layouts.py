"""Packed rows and metric rows by name (issue 28 item 2): every procedure declares the layout its
``pack`` writes and the layout of its metric row, and no procedure file reads or writes such a row
by a literal index.

A procedure declares ``packed_layout`` / ``metric_layout`` (or the module constants ``PACKED`` /
``METRICS``, which the registry wires) and reads its rows through offsets taken with ``Layout.at``;
every procedure does, so there is no list of exceptions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simulator.layout import Layout
from simulator.procedures import get, names
from simulator.procedures.base import metric_slot
from tests.layout_names import metric_names_by_layout

ROOT = Path(__file__).resolve().parents[1]
PROCEDURES = ROOT / "simulator" / "procedures"


def _default_params(name: str):
    proc = get(name)
    return proc.params_model.model_validate(proc.example or {})


@pytest.mark.parametrize("name", names())
def test_the_packed_row_is_the_declared_layout(name):
    layout = get(name).packed_layout
    assert isinstance(layout, Layout), f"{name} declares no packed layout"
    row = get(name).pack(_default_params(name))
    assert row.ndim == 1 and row.size == layout.size, (
        f"{name}: pack writes {row.size} values, its layout has {layout.size}"
    )


@pytest.mark.parametrize("name", names())
def test_the_metric_row_names_the_metrics_in_order(name):
    proc = get(name)
    params = _default_params(name)
    layout = proc.metric_layout_of(params)
    assert isinstance(layout, Layout), f"{name} declares no metric layout"
    if any(piece.size > 1 for piece in layout.pieces):
        # A family declared at its largest, the row closing up after it (Here I Stand's
        # per-turn and per-target families; tests/test_his_layouts.py checks more parameters).
        names = proc.metric_names(params)
        assert metric_names_by_layout(layout, names) == names
        return
    expected = tuple(metric_slot(m.name) for m in proc.metrics(params))
    assert layout.names == expected
    assert layout.size == len(expected), "a metric row has one slot per metric"


def test_a_metric_layout_that_disagrees_is_seen():
    """The check above can fail: a swapped pair of names differs."""
    metrics = [m.name for m in get("root.influence").metrics(_default_params("root.influence"))]
    swapped = Layout(*(metric_slot(n) for n in reversed(metrics)))
    assert swapped.names != tuple(metric_slot(n) for n in metrics)


#: Names of packed and metric rows in kernels and ``pack``, and which index is the field's.
#: Names that hold a piece's offset (taken with ``Layout.at``) inside a kernel.
STARTS = {"offset", "start", "base", "card", "first"}
ROWS = {"packed": 1, "row": 0, "values": 1, "dst": 0, "out": 0}


def _literal_indices(source: str) -> list[str]:
    """Subscripts of a packed or metric row whose field index holds an integer literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        axis = ROWS.get(node.value.id)
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if axis is None or axis >= len(parts) or isinstance(parts[axis], ast.Slice):
            continue
        if isinstance(parts[axis], ast.JoinedStr):
            continue  # a dict of metric values by name
        field = parts[axis]
        if not any(isinstance(n, ast.Constant) and type(n.value) is int for n in ast.walk(field)):
            continue
        if any(
            n.id in STARTS or n.id.isupper() for n in ast.walk(field) if isinstance(n, ast.Name)
        ):
            continue  # the k-th slot of a piece: ``CARD_VALUES + n - 1``, ``offset + 2 * k``
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_sees_a_literal_index():
    assert _literal_indices("x = packed[v, 7]\ny = packed[v, UNITS]\nout[2 * players + 1] = 0")
    assert len(_literal_indices("x = packed[v, 7]\ny = packed[v, UNITS]")) == 1


def test_no_procedure_file_indexes_a_row_by_a_literal():
    seen = {}
    for path in sorted(PROCEDURES.rglob("*.py")):
        found = _literal_indices(path.read_text(encoding="utf-8"))
        if found:
            seen[path.relative_to(PROCEDURES).as_posix()] = found
    assert not seen, f"rows indexed by a literal: {seen}"
