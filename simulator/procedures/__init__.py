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

Procedures from outside the package (:func:`outside`): a designer's file named
``path/to/file.py:NAME`` (:mod:`simulator.userfiles`), imported only when named, and an installed
package's procedures, registered under the entry point group ``sim.procedures``
(``name = "package.module:OBJECT"``, a :class:`Procedure` or a one-trial function), loaded only
when named or listed.
"""

from __future__ import annotations

import difflib
import pkgutil
from functools import cache
from importlib import import_module

from simulator.procedures.base import Procedure

#: The entry point group through which an installed package registers procedures.
ENTRY_POINTS = "sim.procedures"


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
    return sorted(found + [n for n in installed() if n not in found])


def get(name: str) -> Procedure:
    """The procedure called ``name``; KeyError naming the closest one when unknown."""
    found = outside(name)
    if found is not None:
        return found
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


def installed() -> dict[str, object]:
    """The entry points of group ``sim.procedures`` by name (nothing imported)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}


def outside(name: str) -> Procedure | None:
    """A procedure from outside this package: ``path/to/file.py:NAME`` (relative to the working
    folder), or an installed package's entry point; None for a name of this package.

    Raises:
        simulator.userfiles.UserFileError: the designer's file cannot be used.
        KeyError: an entry point that gives no procedure.
    """
    from simulator.userfiles.loading import is_ref

    if is_ref(name):
        from simulator.userfiles.procedure import procedure_of, registered

        return registered(name) or procedure_of(name)
    if name.split(".")[0] in _games():
        return None
    point = installed().get(name)
    if point is None:
        return None
    from simulator.userfiles.plugins import from_entry_point

    return from_entry_point(name, point)


@cache
def _games() -> frozenset[str]:
    return frozenset(g.name for g in pkgutil.iter_modules(__path__) if g.ispkg)
