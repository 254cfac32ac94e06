"""Saying so when Numba compiles, and compiling ahead of time (``sim warm``).

A kernel not yet in Numba's disk cache is compiled on its first call: seconds for a dice rule,
minutes for a whole game with its agents. Numba announces a real compile (not a load from the
cache) with its ``numba:compile`` event, so :func:`notices` listens to it and, before the first
compile of a command, says on standard error what it compiles, that it happens once per machine,
and how long it took when measured (:data:`COMPILE_SECONDS`), with a spinner and the time spent.

The listener is installed only once a kernel loads Numba (:func:`simulator.jit.when_numba_loads`):
a command that runs no kernel imports no Numba for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from simulator import jit

#: Cold compile CPU-seconds of each procedure's kernels (its agents, and every entry kernel of
#: :data:`MORE_EXAMPLES`, included), measured by ``python -m bench.run compile``
#: (bench/bench_compile.py) on a quiet 2-core machine on 2026-12-04, the whole games each in a
#: fresh process and cache folder (docs/speed.md, "The collector held off"). A key may also be
#: ``procedure:function`` for one of several entry kernels.
COMPILE_SECONDS: dict[str, float] = {
    "council.game": 26.3,
    "his.assault": 1.9,
    "his.chateaux": 0.8,
    "his.debate": 1.2,
    "his.diet_of_worms": 1.1,
    "his.field_battle": 1.5,
    "his.interception": 0.6,
    "his.naval": 1.1,
    "his.new_world": 11.0,
    "his.piracy": 1.3,
    "his.pregnancy": 1.0,
    "his.reformation": 1.6,
    "recruitment.loyalty": 28.8,
    "root.battle": 2.3,
    "root.hirelings": 7.5,
    "root.influence": 0.8,
    "root.setup": 1.5,
}

#: Parameters, beyond a procedure's ``example``, whose runs reach another entry kernel: the New
#: World race with a search agent plays through the game interface (``search_kernel``).
MORE_EXAMPLES: dict[str, tuple[dict[str, Any], ...]] = {
    "his.new_world": (
        {"policies": ["greedy", "greedy", {"agent": "rollout", "playouts": 1, "horizon": 1}]},
    ),
}


def procedure_of(module: str) -> str | None:
    """The procedure a function of ``module`` belongs to (``simulator.procedures.root.
    battle.kernel`` → ``root.battle``), or None outside the procedures."""
    prefix = "simulator.procedures."
    if not module.startswith(prefix):
        return None
    from simulator import procedures

    game, _, rest = module[len(prefix) :].partition(".")
    rule = rest.split(".")[0].lstrip("_")
    for name in procedures.names():
        g, _, r = name.partition(".")
        if g == game and (rule == r or rule.startswith(f"{r}_")):
            return name
    return None


def estimate(procedure: str | None, function: str) -> float | None:
    """Measured cold compile CPU-seconds of ``function``'s kernel, if known."""
    if procedure is None:
        return None
    return COMPILE_SECONDS.get(f"{procedure}:{function}", COMPILE_SECONDS.get(procedure))


def procedure_seconds(procedure: str) -> float | None:
    """Measured cold compile CPU-seconds of all of ``procedure``'s kernels, if known."""
    found = [s for k, s in COMPILE_SECONDS.items() if k.split(":")[0] == procedure]
    return sum(found) if found else None


def duration(seconds: float) -> str:
    """``3 s``, ``2 min 30 s``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _own(module: str, function: str) -> tuple[str, str] | None:
    """A designer's function (simulator.userfiles): its notice and short form."""
    if not module.startswith("sim_userfile_"):
        return None
    from simulator.userfiles.loading import compile_notice

    return compile_notice(module, function)


def _what(module: str, function: str) -> str:
    own = _own(module, function)
    if own is not None:
        return own[1].removeprefix("compiling ")
    procedure = procedure_of(module)
    return f"{procedure} ({function})" if procedure else f"{module}.{function}"


def describe(module: str, function: str) -> str:
    """What the notice says of a compile of ``module.function``."""
    own = _own(module, function)
    if own is not None:
        return own[0]
    procedure = procedure_of(module)
    what = _what(module, function)
    seconds = estimate(procedure, function)
    if seconds is None:
        cost = "a dice rule takes seconds, a whole game minutes"
    else:
        cost = f"measured {duration(seconds)} of CPU on a 2-core machine"
    return (
        f"compiling {what}: once per machine, then read from Numba's disk cache "
        f"(`sim warm` does it ahead of time); {cost}"
    )


class _Notice:
    """A batch of compiles being announced: the first one's notice, then a spinner naming the
    function compiling now and the time spent (on a terminal), then one line saying how many
    functions took how long."""

    def __init__(self, err: Any, text: str, short: str, spinner: bool) -> None:
        self.err = err
        self.start = time.monotonic()
        self.live: Any = None
        self.task: Any = None
        self.compiled: list[str] = []
        self.failed = False
        err.print(text, markup=False, highlight=False, soft_wrap=True)
        if spinner and getattr(err, "is_terminal", False):
            from rich.errors import LiveError
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            bar = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                console=err, transient=True,
            )  # fmt: skip
            self.task = bar.add_task(short, total=None)
            try:
                bar.start()
                self.live = bar
            except LiveError:  # a progress bar is showing already: the line is enough
                pass

    def now(self, short: str) -> None:
        """The batch goes on with another function."""
        if self.live is not None:
            self.live.update(self.task, description=short)

    def done(self, what: str, failed: bool) -> None:
        """One outermost compile of the batch ended."""
        self.compiled.append(what)
        self.failed = self.failed or failed

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
        if not self.failed and self.compiled:
            spent = time.monotonic() - self.start
            self.err.print(f"compiled in {duration(spent)}: {_batch(self.compiled)}; cached",
                           markup=False, highlight=False, soft_wrap=True)  # fmt: skip


def _batch(compiled: list[str]) -> str:
    """``recruitment.loyalty (loyalty_kernel)``, or ``9 functions (docs/x.py:A, ... and 4
    more)``."""
    if len(compiled) == 1:
        return compiled[0]
    named = ", ".join(dict.fromkeys(compiled[:3]))
    more = f" and {len(compiled) - 3} more" if len(compiled) > 3 else ""
    return f"{len(compiled)} functions ({named}{more})"


class _State:
    def __init__(self) -> None:
        self.local = threading.local()
        self.listener: Any = None
        self.batch: _Notice | None = None


def _listener(on_start: Callable[[Any], None], on_end: Callable[[Any], None]) -> Any:
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            on_start(ev)

        def on_end(self, ev: Any) -> None:
            on_end(ev)

    return Listener()


#: Seconds without a compile after which a batch of compile notices is closed.
QUIET = 1.0


@contextmanager
def notices(err: Any, spinner: bool = True) -> Iterator[None]:
    """Announce on ``err`` the outermost compiles of kernels while the block runs (nested
    compiles of the functions they call are part of them); ``spinner=False`` prints lines only.

    The compiles of one run (a designer's helpers, the game's kernel, the accumulator) are one
    batch: the first is announced, the others follow under the same spinner, and one line says
    how long they all took once the run's kernels are ready (:func:`simulator.jit.settled`), or
    once no compile has run for :data:`QUIET` seconds (a first trial that runs long must not
    sit under a spinner saying "compiling"), or when the block ends."""
    state = _State()
    active = True
    lock = threading.Lock()
    running = [0]  # outermost compiles under way, in every thread
    started = [0]  # outermost compiles begun: a quiet timer closes the batch only if none began

    def close_if_quiet(seen: int) -> None:
        with lock:
            quiet = running[0] == 0 and started[0] == seen
        if quiet:
            close()

    def on_start(ev: Any) -> None:
        depth = getattr(state.local, "depth", 0)
        state.local.depth = depth + 1
        func = ev.data["dispatcher"].py_func
        if depth == 0 and not func.__module__.startswith("numba."):
            # Numba's own helpers (a carray's view, an array sum) compile outermost when a
            # designer's C callback is built: part of that build, not a kernel to announce.
            what = _what(func.__module__, func.__qualname__)
            state.local.what = what
            with lock:
                running[0] += 1
                started[0] += 1
                if state.batch is None:
                    text = describe(func.__module__, func.__qualname__)
                    state.batch = _Notice(err, text, f"compiling {what}", spinner)
                else:
                    state.batch.now(f"compiling {what}")

    def on_end(ev: Any) -> None:
        state.local.depth -= 1
        what = getattr(state.local, "what", None)
        if state.local.depth == 0 and what is not None:
            state.local.what = None
            with lock:
                running[0] -= 1
                if state.batch is not None:
                    # Not ev.is_failed: Numba 0.68 returns it inverted (``_exc_details is None``).
                    state.batch.done(what, getattr(ev, "_exc_details", None) is not None)
                seen = started[0]
            timer = threading.Timer(QUIET, close_if_quiet, (seen,))
            timer.daemon = True
            timer.start()

    def close() -> None:
        with lock:
            batch, state.batch = state.batch, None
        if batch is not None:
            batch.close()

    def install() -> None:
        if active:
            from numba.core import event

            state.listener = _listener(on_start, on_end)
            event.register("numba:compile", state.listener)

    jit.when_numba_loads(install)
    forget = jit.on_settled(close)
    try:
        yield
    finally:
        active = False
        forget()
        close()
        if state.listener is not None:
            from numba.core import event

            event.unregister("numba:compile", state.listener)


@contextmanager
def counting() -> Iterator[list[str]]:
    """The functions Numba compiles (not loads from the cache) while the block runs, as
    ``module.qualname``, outermost and nested alike."""
    from numba.core import event

    compiled: list[str] = []

    def on_start(ev: Any) -> None:
        func = ev.data["dispatcher"].py_func
        compiled.append(f"{func.__module__}.{func.__qualname__}")

    listener = _listener(on_start, lambda ev: None)
    event.register("numba:compile", listener)
    try:
        yield compiled
    finally:
        event.unregister("numba:compile", listener)


def examples(name: str) -> list[dict[str, Any]]:
    """Parameter sets whose runs compile every entry kernel of procedure ``name``."""
    from simulator import procedures

    proc = procedures.get(name)
    base = dict(proc.example or {})
    return [base] + [{**base, **more} for more in MORE_EXAMPLES.get(name, ())]


def warm(name: str) -> None:
    """Compile procedure ``name``'s kernels (or load them from the cache): one trial of each
    example, as a run's warm-up does."""
    from simulator import procedures
    from simulator.engine import make_plan, warm_up

    proc = procedures.get(name)
    for params in examples(name):
        warm_up(make_plan(proc, {"base": proc.params_model.model_validate(params)}, 1))
