"""Here I Stand procedures read and write their rows by name (simulator.layout).

Each procedure module declares ``PACKED`` (the parameter row ``pack`` writes) and ``METRICS`` (the
metric row its kernel writes), both :class:`simulator.layout.Layout`. ``pack`` writes exactly
``PACKED``; ``METRICS`` names the metrics of ``metrics()`` in order. A metric family whose size
depends on the parameters (``edward_by_turn.1`` .. ``edward_by_turn.<turns>``) is a sized piece of
the family's name, declared at its largest; the metric row of given parameters holds as many of
the family as they make, and closes up after it (``zero_dice_rolls`` follows
``success.target<n>`` at ``SUCCESS + n``).
"""

from __future__ import annotations

import importlib

import pytest

from simulator import procedures
from simulator.layout import Layout
from simulator.procedures import get
from tests.layout_names import metric_names_by_layout

#: Every Here I Stand procedure, with parameter sets beyond its example (other metric counts, the
#: largest rows).
CASES: dict[str, list[dict]] = {
    "his.new_world": [{"policies": "greedy"}],
    "his.debate": [],
    "his.chateaux": [{"turns": 1}, {"turns": 20}],
    "his.piracy": [
        {
            "raids": [
                {"corsairs": 2, "target": {"squadrons_in_sea": 1}},
                {"corsairs": 1, "target": {}},
                {"corsairs": 3, "target": {}},
                {"corsairs": 4, "target": {}},
            ]
        }
    ],
    "his.naval": [
        {
            "attacker": {"squadrons": 30, "corsairs": 30, "leader": 6},
            "defender": {"squadrons": 30, "corsairs": 30, "leader": 6},
            "in_port": True,
            "port_extra_dice": 5,
        }
    ],
    "his.reformation": [{"targets": [{}] * 12, "chain": True}, {"targets": [{}]}],
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


def _module(name: str):
    """The procedure's module (or package, for his.new_world), which holds PACKED and METRICS."""
    return importlib.import_module(f"simulator.procedures.{name}")


def _cases(name: str):
    """(parameters, PACKED, METRICS) of each parameter set checked for procedure ``name``."""
    proc, module = get(name), _module(name)
    assert isinstance(module.PACKED, Layout) and isinstance(module.METRICS, Layout)
    for raw in [proc.example or {}, *CASES[name]]:
        yield proc.params_model.model_validate(raw), module.PACKED, module.METRICS


@pytest.mark.parametrize("name", sorted(CASES))
def test_pack_writes_the_declared_packed_layout(name):
    for p, packed, _ in _cases(name):
        assert get(name).pack(p).shape == (packed.size,), p


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_layout_names_the_metrics_in_order(name):
    for p, _, layout in _cases(name):
        names = get(name).metric_names(p)
        assert metric_names_by_layout(layout, names) == names, p
        singles = [piece.name for piece in layout.pieces if piece.size == 1]
        assert [n for n in names if n in singles] == singles, p


def test_piracy_raid_metrics_run_raid_by_raid_in_the_raid_piece():
    from simulator.procedures.his import piracy

    proc = get("his.piracy")
    p = proc.params_model.model_validate(proc.example)
    names = proc.metric_names(p)
    raids = len(p.raids)
    for r in range(raids):
        for name in piracy.RAID.names:
            slot = piracy.RAIDS + piracy.RAID.size * r + piracy.RAID.at(name)
            assert names[slot] == f"{name}.raid{r + 1}"
    turn = piracy.RAIDS + piracy.RAID.size * raids
    assert names[turn : turn + 2] == ["turn_gains_nothing", "turn_any_vp"]


def test_every_here_i_stand_procedure_is_checked():
    assert sorted(CASES) == sorted(n for n in procedures.names() if n.startswith("his."))
