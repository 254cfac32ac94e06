"""The registry of procedures: ``"his.field_battle"`` → :class:`Procedure`.

A procedure is any module ``simulator.procedures.<game>.<rule>`` that defines ``PROCEDURE``; it is
found by walking this package, so adding a rule is adding one module (and one scenario).
"""

from __future__ import annotations

import difflib
import pkgutil
from functools import cache
from importlib import import_module

from simulator.procedures.base import Procedure


@cache
def _registry() -> dict[str, str]:
    found: dict[str, str] = {}
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        if info.ispkg or info.name.endswith(".base"):
            continue
        module = import_module(info.name)
        proc = getattr(module, "PROCEDURE", None)
        if isinstance(proc, Procedure):
            found[proc.name] = info.name
    return found


def names() -> list[str]:
    """Names of every registered procedure, sorted."""
    return sorted(_registry())


def get(name: str) -> Procedure:
    """The procedure called ``name``; KeyError naming the closest one when unknown."""
    registry = _registry()
    if name not in registry:
        close = difflib.get_close_matches(name, names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"unknown procedure {name!r}{hint}")
    proc: Procedure = import_module(registry[name]).PROCEDURE
    return proc
