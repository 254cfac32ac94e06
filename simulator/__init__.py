"""sim: a Monte-Carlo balance simulator for board-game rules.

Use it from Python as ``from simulator import run_scenario``; ``sim`` is a thin CLI over it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_scenario"]


def run_scenario(*args: Any, **kwargs: Any) -> Any:
    """Run a scenario file or object; see :func:`simulator.runner.run_scenario`."""
    from simulator.runner import run_scenario as run

    return run(*args, **kwargs)
