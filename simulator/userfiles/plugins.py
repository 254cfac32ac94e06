"""Procedures of installed packages, registered under the entry point group ``sim.procedures``.

A package declares, in its ``pyproject.toml``::

    [project.entry-points."sim.procedures"]
    "duels.opposed" = "duels.rules:opposed_roll"

The value is a :class:`~simulator.procedures.base.Procedure` (whose ``name`` is the entry point's)
or a one-trial function as a designer's file holds (:mod:`simulator.userfiles.procedure`). It is
imported only when a scenario or ``sim list`` names it, or ``sim list`` lists every procedure.
"""

from __future__ import annotations

import inspect
from typing import Any

from simulator.procedures.base import Procedure


def from_entry_point(name: str, point: Any) -> Procedure:
    """The procedure entry point ``point`` gives, named ``name``.

    Raises:
        KeyError: it cannot be imported, or gives neither a procedure nor a function.
    """
    try:
        loaded = point.load()
    except Exception as e:
        raise KeyError(
            f"procedure {name!r} of an installed package ({point.value}) cannot be imported: "
            f"{type(e).__name__}: {e}"
        ) from None
    if isinstance(loaded, Procedure):
        if loaded.name != name:
            raise KeyError(
                f"entry point {name!r} ({point.value}) gives a procedure named {loaded.name!r}; "
                "name the entry point as the procedure"
            )
        return loaded
    if inspect.isfunction(loaded):
        from simulator.userfiles.procedure import procedure_of_function

        return procedure_of_function(loaded, name)
    raise KeyError(
        f"entry point {name!r} ({point.value}) gives a {type(loaded).__name__}, not a Procedure "
        "or a one-trial function"
    )
