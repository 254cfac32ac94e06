"""The registry of procedures: ``"his.field_battle"`` → :class:`Procedure`.

A procedure named ``<game>.<rule>`` lives in the module ``simulator.procedures.<game>.<rule>``
(a module, or a package for a whole game split by concern) and defines ``PROCEDURE``; adding a rule
is adding that module (and a scenario). Modules are
found by walking this package without importing them, so running one scenario imports one rule.

A module may declare its rows' layouts as the module constants ``PACKED`` and ``METRICS``
(:class:`simulator.layout.Layout`, ``METRICS`` possibly a function of the parameters), and a
whole game its interface as ``WHOLE_GAME`` (:class:`simulator.agents.game.WholeGame`), instead of
naming them in its ``Procedure``: :func:`get` wires them in (``packed_layout``, ``metric_layout``,
``game``).
"""

from __future__ import annotations

import difflib
import pkgutil
from functools import cache
from importlib import import_module

from simulator.procedures.base import Procedure


@cache
def names() -> list[str]:
    """Names of every procedure module, sorted."""
    found = []
    for game in pkgutil.iter_modules(__path__):
        if not game.ispkg:
            continue
        package = import_module(f"{__name__}.{game.name}")
        for rule in pkgutil.iter_modules(package.__path__):
            if not rule.name.startswith("_"):
                found.append(f"{game.name}.{rule.name}")
    return sorted(found)


def get(name: str) -> Procedure:
    """The procedure called ``name``; KeyError naming the closest one when unknown."""
    if name not in names():
        close = difflib.get_close_matches(name, names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"unknown procedure {name!r}{hint}")
    module = import_module(f"{__name__}.{name}")
    proc = getattr(module, "PROCEDURE", None)
    if not isinstance(proc, Procedure) or proc.name != name:
        raise KeyError(f"module {__name__}.{name} does not define PROCEDURE named {name!r}")
    _wire(proc, module)
    return proc


#: Procedure fields a module may give as module constants instead.
WIRED = (("packed_layout", "PACKED"), ("metric_layout", "METRICS"), ("game", "WHOLE_GAME"))


def _wire(proc: Procedure, module: object) -> None:
    """Give ``proc`` its module's ``PACKED``, ``METRICS`` and ``WHOLE_GAME`` where it names none.

    In place (the frozen dataclass's fields are set once, before anyone reads them), so the
    module's ``PROCEDURE`` and ``get(name)`` stay one object."""
    for field, constant in WIRED:
        declared = getattr(module, constant, None)
        if getattr(proc, field) is None and declared is not None:
            object.__setattr__(proc, field, declared)
