"""The registry of procedures: ``"his.field_battle"`` → :class:`Procedure`.

A procedure named ``<game>.<rule>`` lives in the module ``simulator.procedures.<game>.<rule>``
(a module, or a package for a whole game split by concern) and defines ``PROCEDURE``; adding a rule
is adding that module (and a scenario). Modules are
found by walking this package without importing them, so running one scenario imports one rule.
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
    proc = getattr(import_module(f"{__name__}.{name}"), "PROCEDURE", None)
    if not isinstance(proc, Procedure) or proc.name != name:
        raise KeyError(f"module {__name__}.{name} does not define PROCEDURE named {name!r}")
    return proc
