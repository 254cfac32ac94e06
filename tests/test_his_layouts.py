"""Here I Stand procedures read and write their rows by name (simulator.layout).

Each procedure module declares ``PACKED`` (the parameter row ``pack`` writes) and ``METRICS`` (the
metric row its kernel writes), both :class:`simulator.layout.Layout`. ``pack`` writes exactly
``PACKED``; ``METRICS`` names the metrics of ``metrics()`` in order. A metric family whose size
depends on the parameters (``edward_by_turn.1`` .. ``edward_by_turn.<turns>``) fills the first
slots of the sized piece of its family's name, in order; the metric row ends with the last metric.
"""

from __future__ import annotations

import importlib

import pytest

from simulator.layout import Layout
from simulator.procedures import get

#: The procedures converted so far, with extra parameter sets whose metrics differ.
CASES: dict[str, list[dict]] = {
    "his.diet_of_worms": [
        {"habsburg_cp": 1, "papal_cp": 2, "protestant_cp": 3, "spaces_flipped": "winner_hits"}
    ],
    "his.assault": [
        {"attacker": {"units": 2}, "defender": {"units": 0}, "port": {"squadrons_in_port": 1}}
    ],
    "his.interception": [{"kind": "avoid", "forces": "naval", "port": True}],
    "his.field_battle": [
        {"attacker": {"units": 40}, "defender": {"units": 40, "leader": 6}, "formation_cap": False},
        {"attacker": {"units": 1}, "defender": {"units": 1}, "fortress_withdraw": 4},
    ],
    "his.pregnancy": [{"turns": 1}, {"turns": 20, "wife_steps": [1, 2, 3]}],
}


def metric_slots(layout: Layout, names: list[str]) -> list[int]:
    """The slot of each metric name in ``layout``: a one-slot piece by its name, a family
    ``piece.x`` by its order in the piece's slots."""
    used: dict[str, int] = {}
    out = []
    for name in names:
        if name in layout.names and layout.piece(name).size == 1:
            out.append(layout.at(name))
            continue
        family = name.split(".", 1)[0]
        piece = layout.piece(family)
        k = used.get(family, 0)
        assert k < piece.size, f"{name}: piece {family} holds {piece.size} metrics"
        used[family] = k + 1
        out.append(piece.offset + k)
    return out


def _module(name: str):
    return importlib.import_module(get(name).kernel.__module__)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pack_writes_the_declared_packed_layout(name):
    proc, module = get(name), _module(name)
    assert isinstance(module.PACKED, Layout)
    for raw in [proc.example or {}, *CASES[name]]:
        row = proc.pack(proc.params_model.model_validate(raw))
        assert row.shape == (module.PACKED.size,), raw


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_layout_names_the_metrics_in_order(name):
    proc, module = get(name), _module(name)
    assert isinstance(module.METRICS, Layout)
    for raw in [proc.example or {}, *CASES[name]]:
        names = proc.metric_names(proc.params_model.model_validate(raw))
        assert metric_slots(module.METRICS, names) == list(range(len(names))), raw
