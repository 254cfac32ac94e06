"""Body of ``sim warm``: compile procedures' kernels into Numba's disk cache ahead of time, with a
progress bar whose estimate comes from the measured compile times (simulator.compiling)."""

from __future__ import annotations

import time
from typing import Any

from simulator.commands.common import EXIT_INVALID, command, say

#: Seconds assumed for a procedure whose compile time was not measured.
UNKNOWN = 30.0


@command
def warm(procedures: list[str] | None = None, *, out: Any, err: Any) -> int:
    """Compile every named procedure (default: all); one line per procedure on stdout."""
    from simulator import compiling
    from simulator import procedures as registry

    names = list(procedures or registry.names())
    for name in names:
        try:
            registry.get(name)
        except KeyError as e:
            say(err, f"sim warm: {e.args[0]}")
            return EXIT_INVALID
    costs = {n: compiling.procedure_seconds(n) or UNKNOWN for n in names}
    left = sum(costs.values())
    if left > 60:
        say(err, f"sim warm: about {compiling.duration(left)} of compiling (measured on 2 cores)")
    bar = _bar(err, left)
    try:
        for name in names:
            if bar is not None:
                about = f"about {compiling.duration(left)} left"
                bar.update(bar.task_ids[0], description=f"compiling {name}", left=about)
            t0 = time.monotonic()
            with compiling.counting() as compiled:
                compiling.warm(name)
            spent = time.monotonic() - t0
            left -= costs[name]
            if bar is not None:
                bar.advance(bar.task_ids[0], costs[name])
            done = (
                f"compiled {len(compiled)} functions in {compiling.duration(spent)}"
                if compiled
                else "already in the cache"
            )
            # Above the bar while it shows (on stderr then), else on stdout.
            say(bar.console if bar is not None else out, f"{name}: {done}")
    finally:
        if bar is not None:
            bar.stop()
    return 0


def _bar(err: Any, total: float) -> Any:
    """A progress bar in estimated seconds on a terminal; None elsewhere."""
    if not getattr(err, "is_terminal", False):
        return None
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[left]}"),
        console=err,
        transient=True,
    )
    bar.add_task("compiling", total=total, left="")
    bar.start()
    return bar
