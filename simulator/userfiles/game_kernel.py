"""A designer's game class compiled: its interface functions now, and the kernel that plays one
game per trial with the seats' agents (:func:`game_procedure`; the class is read and checked by
:func:`simulator.userfiles.game.declare`, which compiles nothing).

Each interface function is rewritten and compiled for its documented signature when the file is
loaded, so an error is reported at the designer's line before a run; the kernel is compiled on its
first call (minutes: the agents are compiled in with it) and read from Numba's cache after.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from pathlib import Path
from typing import Any

import numpy as np

from simulator.procedures.base import Procedure
from simulator.userfiles.game import _def_line, declare, whole_game
from simulator.userfiles.imports import imports_digest
from simulator.userfiles.loading import Ref, UserFileError

_SIMULATOR = Path(__file__).resolve().parent.parent
_CARRIED = [*sorted((_SIMULATOR / "agents").glob("*.py")), _SIMULATOR / "accumulate.py"]
#: A digest of the agents' code the kernel carries (its own generated source has its own digest):
#: it ends the kernel's name, so Numba's cache of an older ``sim`` is never read.
AGENTS_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in _CARRIED)).hexdigest()[:8]

_SOURCE = """
def {kernel}(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    n_metrics = hist_offset.shape[0]
    stats = new_stats(n_variants, n_slots)
    values = np.zeros((n_variants, n_metrics, BLOCK), dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    agents = np.zeros((SEATS, AGENT_ROW), dtype=np.float64)
    out = np.zeros(SEATS, dtype=np.float64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            seats = np.int64(packed[v, P_SEATS])
            for o in range(SEATS):
                for j in range(AGENT_ROW):
                    agents[o, j] = packed[v, P_AGENTS + o * AGENT_ROW + j]
{unpack}
            params = Row({listed})
            for i in range(m):
                seed = trial_state(key, start + i)
                rng[0] = seed
                s[:] = 0
                start_game(s, params, rng)
                decisions = play(s, agents, seed, rng, 0)
                out[:] = 0.0
                returns(s, out)
                won = 0
                for o in range(seats):
                    win = out[o] >= 1.0
                    values[v, o, i] = win
                    won += win
                values[v, seats, i] = won == 0
                values[v, seats + 1, i] = round_of(s)
                values[v, seats + 2, i] = decisions
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
"""


def _signatures(state_size: int, row: Any) -> dict[str, Any]:
    from numba import typeof, types

    s = types.int64[::1]
    out = types.float64[::1]
    rng = types.uint64[::1]
    i64 = types.int64
    return {
        "start_game": (s, typeof(row), rng),
        "copy_state": (s,),
        "to_move": (s,),
        "legal_moves": (s, types.int64[::1]),
        "apply_move": (s, i64, rng),
        "is_over": (s,),
        "returns": (s, out),
        "heuristic": (s, out),
        "round_of": (s,),
        "n_seats": (s,),
        "determinize": (s, i64, rng),
        "default_move": (s, rng),
        "move_values": (s, types.int64[::1], i64, rng, out),
    }


def _compile(fn: Any, ref: Ref, owner: str, signature: Any) -> Any:
    """One interface function rewritten and compiled now (errors at the designer's line)."""
    from simulator.userfiles.jitting import compile_now, jit, rewrite_located
    from simulator.userfiles.rewrite import SUFFIX

    own = Ref(ref.path, ref.shown, f"{owner}.{fn.__name__}")
    rewritten = rewrite_located(fn, own, False, own.name, _def_line(fn))
    function = rewritten.function
    function.__qualname__ = f"{owner}_{fn.__name__}{SUFFIX}{imports_digest(fn.__module__)}"
    dispatcher = jit(function)
    try:
        compile_now(dispatcher, signature, own, fn)
    except UserFileError as e:  # no line of the body named: the def's, not its decorator's
        if e.problems[0].line == fn.__code__.co_firstlineno:
            e.problems[0] = dataclasses.replace(e.problems[0], line=_def_line(fn))
        raise
    return dispatcher


def game_procedure(cls: type, module: Any, ref: Ref) -> Procedure:
    """The procedure of the designer's game class ``cls``, every function compiled now."""
    from simulator.jit import _load_numba

    declared = declare(cls, module, ref)
    _load_numba()
    from numba import njit

    from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
    from simulator.agents.factory import make_agents, make_player
    from simulator.agents.spec import AGENT_ROW
    from simulator.jit import KERNEL
    from simulator.rng import trial_state
    from simulator.userfiles.rewrite import SUFFIX

    parameters = declared.parameters
    examples: dict[type, Any] = {int: 1, bool: True, float: 1.0}
    row_example = declared.row(*(examples[p.kind] for p in parameters))
    signatures = _signatures(declared.state_size, row_example)
    compiled = {
        n: _compile(fn, ref, ref.name, signatures[n]) for n, fn in declared.functions.items()
    }
    whole = whole_game(declared, compiled, compiled=True)
    n_params = len(parameters)
    reads = {int: "np.int64(packed[v, {k}])", bool: "packed[v, {k}] > 0.5"}
    unpack = [
        f"            p{k} = " + reads.get(p.kind, "packed[v, {k}]").format(k=k)
        for k, p in enumerate(parameters)
    ]
    kernel_name = f"game_kernel_{ref.name}"
    source = _SOURCE.format(
        kernel=kernel_name,
        unpack="\n".join(unpack) or "            pass",
        listed=", ".join(f"p{k}" for k in range(n_params)),
    )
    digest = hashlib.sha256(source.encode()).hexdigest()[:8]
    code = compile(source, str(ref.path), "exec")

    def build(rungs: tuple[str, ...]) -> Any:
        choose = make_agents(whole.functions, rungs)
        scope: dict[str, Any] = {
            "np": np,
            "BLOCK": BLOCK,
            "STATE_SIZE": declared.state_size,
            "SEATS": declared.seats,
            "AGENT_ROW": AGENT_ROW,
            "P_SEATS": n_params,
            "P_AGENTS": n_params + 1,
            "Row": declared.row,
            "new_stats": new_stats,
            "accumulate_block": accumulate_block,
            "block_count": block_count,
            "trial_block": trial_block,
            "trial_state": trial_state,
            "start_game": compiled["start_game"],
            "play": make_player(whole.functions, choose),
            "returns": compiled["returns"],
            "round_of": compiled["round_of"],
        }
        exec(code, scope)
        fn = scope[kernel_name]
        fn.__module__ = module.__name__
        # One cache entry per set of rungs: the set is in the name.
        fn.__qualname__ = (
            f"{kernel_name}_{'_'.join(rungs)}_{digest}{AGENTS_DIGEST}{SUFFIX}"
            + imports_digest(module.__name__)
        )
        options: Any = {**KERNEL, "cache": True}
        return njit(**options)(fn)

    kernel = RungKernels(build, n_params, declared.seats, build(BASE_RUNGS).py_func)
    return dataclasses.replace(declared.procedure, kernel=kernel, game=whole)


#: The rungs every kernel of a designer's game carries (seconds to compile); a search rung is
#: compiled in only for runs that seat it.
BASE_RUNGS = ("random", "greedy")
SEARCH_RUNGS = ("rollout", "mcts")


class RungKernels:
    """The kernel of a designer's game: one compiled kernel per set of search rungs that the
    packed rows seat (random and greedy are in every one).

    Rollout and MCTS are most of a whole game's compile (docs/own-rules.md, "A whole game"): a
    run whose seats are random or greedy compiles neither. Every kernel plays a rung it carries
    exactly as the others do (the same code, no fast-math), so a row's statistics do not depend
    on which kernel ran it; a kernel that carries more rungs than a call needs (compiled or read
    from the cache already in this process) serves it."""

    def __init__(self, build: Any, n_params: int, seats: int, py_func: Any) -> None:
        from simulator.agents.spec import AGENT_CODES, AGENT_KIND, AGENT_ROW

        self._build = build
        self._lock = threading.Lock()
        self._kernels: dict[tuple[str, ...], Any] = {}
        self._seats_at = n_params
        self._kinds_at = n_params + 1 + AGENT_KIND + AGENT_ROW * np.arange(seats)
        self._rollout = AGENT_CODES["rollout"]
        #: The generated function (in the designer's file: what a worker's code is checked by).
        self.py_func = py_func
        self.__module__ = py_func.__module__

    def rungs(self, packed: np.ndarray) -> tuple[str, ...]:
        """The rungs the rows of ``packed`` seat, as the kernel that plays them is named."""
        kinds = packed[:, self._kinds_at].astype(np.int64)
        seated = np.arange(kinds.shape[1]) < packed[:, self._seats_at, None]
        codes = {int(c) for c in kinds[seated]}
        # choose plays mcts for every code past rollout's (its last branch).
        search = {"rollout" if c == self._rollout else "mcts" for c in codes if c >= self._rollout}
        return BASE_RUNGS + tuple(r for r in SEARCH_RUNGS if r in search)

    def for_rows(self, packed: np.ndarray) -> Any:
        """The compiled kernel (built now if none carries the rungs) for ``packed``."""
        wanted = self.rungs(packed)
        with self._lock:
            for rungs, kernel in self._kernels.items():
                if set(wanted) <= set(rungs):
                    return kernel
            kernel = self._kernels[wanted] = self._build(wanted)
            return kernel

    def built(self) -> list[tuple[str, ...]]:
        """The sets of rungs built in this process, in the order they were built."""
        return list(self._kernels)

    def __call__(self, packed: np.ndarray, *args: Any) -> np.ndarray:
        return self.for_rows(packed)(packed, *args)
