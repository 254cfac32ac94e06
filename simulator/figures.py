"""Figures for every report module: a matplotlib Figure without pyplot, and saving it whole.

One home for the plotting helpers that ``report``, ``sweep``, ``summary_report`` and the tune and
tournament reports share, so none of them imports another to draw (``report`` → ``sweep`` →
``report`` was a circle).
"""

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
