"""Drawing primitives every figure of a report uses (the run's, a sweep's, a tournament's,
``sim tune``'s): a matplotlib Figure without pyplot, and saving it whole. A module of its own so
the renderers of the sections import it and not each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulator.output import safe_write


def new_figure(width: float, height: float) -> Any:
    """A matplotlib Figure drawn with Agg. pyplot is not imported: it costs half a second of
    every `sim run` and keeps global state we never need."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def save_figure(fig: Any, path: Path) -> Path:
    """Write ``fig`` as a PNG, whole (:func:`simulator.output.safe_write`)."""
    safe_write(path, lambda f: fig.savefig(f, format="png", dpi=110), True)
    return path
