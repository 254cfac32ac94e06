"""Exact values beside a run of the page: `sim exact`'s values, where the procedure knows them,
computed in a thread of their own, off the session's lock, and bounded in time.

A designer's ``NAME_exact`` is plain Python and may enumerate far too much (the opposed roll of
docs/own-rules.md with 9 and 9 dice walks 6¹⁸ rolls). So the run starts at once and streams its
estimates; the exact values join the view when they are ready, and a computation still going
after :data:`EXACT_SECONDS` (or the session's ``--max-seconds``, if shorter), or when the run is
stopped, is cut: :class:`Cut` is raised inside its thread (``PyThreadState_SetAsyncExc``, again
every tenth of a second until the thread ends, so a designer's bare ``except:`` does not keep it
alive) and the run is shown without exact values, saying why. A cut for time is remembered per
procedure and parameters, so rerunning the same values does not wait again.

Limit: the cut lands between two Python bytecodes; one long call into C code (a single huge
``math.factorial``) finishes first.
"""

from __future__ import annotations

import ctypes
import threading

from simulator.scenario import Scenario, ScenarioError

#: Seconds an exact computation may take before it is cut.
EXACT_SECONDS = 10.0
#: How often a cut is raised again in a thread that has not ended yet.
_AGAIN = 0.1

Values = dict[str, dict[str, float]]


class Cut(BaseException):
    """Raised inside an exact computation's thread to end it (not an Exception: the wrappers
    that turn a designer's error into a located problem let it through)."""


def _raise_in(thread: threading.Thread) -> None:
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(Cut)
        )


def _withdraw() -> None:
    """Withdraw a cut raised in this thread and not yet delivered."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)


class _Remembered(Exception):
    """The values were cut for time before: the note said then."""


class ExactCache:
    """A session's exact values by procedure and parameters (and the cuts for time)."""

    def __init__(self) -> None:
        self._known: dict[str, dict[str, float] | str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, float] | str | None:
        with self._lock:
            return self._known.get(key)

    def put(self, key: str, value: dict[str, float] | str) -> None:
        with self._lock:
            self._known[key] = value

    def run(self, scenario: Scenario, seconds: float) -> ExactRun:
        """The exact values of ``scenario``'s variants, to be computed beside its run."""
        return ExactRun(self, scenario, seconds)


class ExactRun:
    """One run's exact values: started with the run, read as they come, cut when asked."""

    def __init__(self, cache: ExactCache, scenario: Scenario, seconds: float) -> None:
        self.cache = cache
        self.scenario = scenario
        self.seconds = seconds
        #: Each variant's exact values, once all are known (empty until then, or for none).
        self.values: Values = {}
        #: Why there are no exact values (cut, or the exact function failed), or None.
        self.note: str | None = None
        self.done = threading.Event()
        self._reason: str | None = None
        self._timed_out = False
        self._wake = threading.Event()
        self._key: str | None = None
        self._guard = threading.Lock()
        self._computing = True
        self._thread = threading.Thread(target=self._compute, daemon=True, name="sim-serve-exact")

    def start(self) -> None:
        proc = self.scenario.procedure
        if proc.exact is None or self.scenario.sweep:
            self.done.set()
            return
        self._thread.start()
        threading.Thread(target=self._watch, daemon=True, name="sim-serve-exact-watch").start()

    def cut(self, reason: str) -> None:
        """End the computation now (the run was stopped)."""
        if self._reason is None:
            self._reason = reason
        self._wake.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    def _variants(self) -> Values:
        """Each variant's exact values (from the cache, or computed now and cached)."""
        proc = self.scenario.procedure
        assert proc.exact is not None
        values: Values = {}
        for name, params in self.scenario.variants.items():
            key = f"{proc.name} {params.model_dump_json()}"
            known = self.cache.get(key)
            if isinstance(known, str):  # cut for time before: not tried again
                raise _Remembered(known)
            if known is None:
                self._key = key
                known = {k: float(v) for k, v in proc.exact(params).items()}
                self.cache.put(key, known)
                self._key = None
            values[name] = known
        return values

    def _compute(self) -> None:
        values: Values | None = None
        note: str | None = None
        cut = False
        while True:
            try:
                if values is None and note is None and not cut:
                    values = self._variants()
                # From here on the watcher raises nothing (it asks under the same lock), and
                # a cut it raised a moment ago, still pending, is withdrawn.
                with self._guard:
                    self._computing = False
                    _withdraw()
                break
            except Cut:
                cut = values is None and note is None
            except _Remembered as e:
                note = str(e)
            except ScenarioError as e:
                note = "exact values not shown: " + "; ".join(str(p) for p in e.problems)
            except Exception as e:  # a procedure's own exact function failing: said, not fatal
                note = f"exact values not shown: {type(e).__name__}: {e}"
        if values is not None:
            self.values = values
        elif cut:
            self.note = f"exact values not shown: {self._reason or 'stopped'}"
            if self._timed_out and self._key is not None and self.cache.get(self._key) is None:
                self.cache.put(self._key, self.note)
        else:
            self.note = note
        self.done.set()

    def _watch(self) -> None:
        if not self._wake.wait(self.seconds) and not self.done.is_set():
            self._timed_out = True
            self._reason = (
                f"the exact function ran over {self.seconds:g} s and was stopped "
                "(it enumerates too many outcomes; sim exact runs it without a limit)"
            )
        while not self.done.is_set():
            with self._guard:
                if not self._computing:
                    return
                _raise_in(self._thread)
            self.done.wait(_AGAIN)
