"""A whole game from a designer's file: a class implementing the game interface (issue 29 item 4).

The designer writes a class holding what the game is, its parameters and the interface functions
of :mod:`simulator.agents.game` as static methods (module-level helpers of the file are compiled
with them)::

    class Stop:
        SEATS = 2              # the most seats at a table
        MAX_MOVES = 2          # the most legal moves in any position
        STATE_SIZE = 12        # the state: one flat int64 array of this many slots
        players: int = 2       # parameters, typed like a trial's (int, float, bool)
        target: int = 50

        @staticmethod
        def start_game(s, params, rng): ...   # deal into s (zeroed) up to the first decision
        @staticmethod
        def apply_move(s, move, rng): ...     # and copy_state, to_move, legal_moves, is_over,
                                              # returns, heuristic, round_of, n_seats

and names it as ``procedure: file.py:Stop``. Randomness is drawn from ``rng`` with
:func:`simulator.agents.streams.below` (``from simulator.agents.streams import below``).
:func:`game_procedure` gives a :class:`~simulator.procedures.base.Procedure` whose kernel plays
one game per trial with the seats' ``policies`` (random, greedy, rollout, mcts: the agents of
:func:`simulator.agents.factory.make_agents`, the template game's), so tournaments work too.
Metrics: ``wins.seatN`` (the seat's ``returns`` is a whole win, at least 1), ``draws`` (no seat
won), ``rounds`` (``round_of`` at the end) and ``decisions`` (moves chosen by the agents).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import typing
from collections import namedtuple
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, create_model, model_validator

from simulator.procedures.base import Metric, Params, Procedure
from simulator.userfiles.loading import Ref, UserFileError
from simulator.yaml_loader import Problem

#: The interface functions a game class writes: name -> its parameters (documented signature).
REQUIRED: dict[str, tuple[str, ...]] = {
    "start_game": ("s", "params", "rng"),
    "copy_state": ("s",),
    "to_move": ("s",),
    "legal_moves": ("s", "out"),
    "apply_move": ("s", "move", "rng"),
    "is_over": ("s",),
    "returns": ("s", "out"),
    "heuristic": ("s", "out"),
    "round_of": ("s",),
    "n_seats": ("s",),
}
OPTIONAL: dict[str, tuple[str, ...]] = {
    "determinize": ("s", "seat", "rng"),
    "default_move": ("s", "rng"),
    "move_values": ("s", "moves", "n", "rng", "out"),
}
#: Whole-number constants the class declares (name -> what it says).
CONSTANTS = {
    "SEATS": "the most seats at a table",
    "MAX_MOVES": "the most legal moves in any position",
    "STATE_SIZE": "slots of the state, one flat int64 array",
}
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


def _problem(ref: Ref, line: int, message: str, name: str | None = None) -> UserFileError:
    return UserFileError([Problem(ref.shown, line, 1, name or ref.name, message)])


def _class_line(cls: type) -> int:
    try:
        return int(inspect.getsourcelines(cls)[1])
    except (OSError, TypeError):
        return 1


def _constants(cls: type, ref: Ref, line: int) -> dict[str, int]:
    out = {}
    for name, what in CONSTANTS.items():
        value = getattr(cls, name, None)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _problem(ref, line, f"{name} ({what}) must be a whole number >= 1: write "
                           f"`{name} = ...` in the class")  # fmt: skip
        out[name] = value
    return out


def _parameters(cls: type, ref: Ref, line: int) -> list[Any]:
    """The class's annotated parameters (lower-case names), checked like a trial's."""
    from pydantic.fields import FieldInfo

    from simulator.userfiles.parameters import base_type, checked

    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as e:
        raise _problem(ref, line, f"its types cannot be read: {type(e).__name__}: {e}") from None
    out = []
    for name in getattr(cls, "__annotations__", {}):
        if name.isupper() or name.startswith("_"):
            continue
        if name == "policies":
            raise _problem(ref, line, "policies is sim's own parameter (who plays): remove it")
        base, meta = base_type(hints[name])
        infos = [m for m in meta if isinstance(m, FieldInfo)]
        info = infos[0] if infos else Field()
        if name in vars(cls):
            info = FieldInfo.merge_field_infos(info, default=vars(cls)[name])
        out.append(checked(ref, line, name, base, info))
    return out


def _functions(cls: type, ref: Ref, line: int) -> dict[str, Any]:
    """The interface functions of the class (plain functions), their parameters checked."""
    found = {}
    for name, wanted in {**REQUIRED, **OPTIONAL}.items():
        raw = inspect.getattr_static(cls, name, None)
        if raw is None:
            if name in REQUIRED:
                raise _problem(
                    ref,
                    line,
                    f"has no {name}: write `@staticmethod` `def {name}({', '.join(wanted)}):` in "
                    f"the class (the game interface: {', '.join(REQUIRED)})",
                )
            continue
        fn = raw.__func__ if isinstance(raw, staticmethod) else raw
        if not inspect.isfunction(fn):
            raise _problem(ref, line, f"{name} is not a function: write `def {name}(...)`")
        at = _def_line(fn)
        if not isinstance(raw, staticmethod):
            raise _problem(ref, at, f"write @staticmethod above `def {name}`", f"{ref.name}.{name}")
        got = tuple(inspect.signature(fn).parameters)
        if len(got) != len(wanted):
            raise _problem(
                ref,
                at,
                f"takes ({', '.join(got)}); {name} takes {len(wanted)}: "
                f"write `def {name}({', '.join(wanted)})`",
                f"{ref.name}.{name}",
            )
        found[name] = fn
    return found


def _def_line(fn: Any) -> int:
    """The line of ``def`` of a static method (its first line is the decorator's)."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return int(fn.__code__.co_firstlineno)
    for k, text in enumerate(lines):
        if text.lstrip().startswith("def "):
            return first + k
    return first


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
    from simulator.userfiles.jitting import compile_now, jit, numba_problem
    from simulator.userfiles.rewrite import SUFFIX, _Problems, rewrite

    own = Ref(ref.path, ref.shown, f"{owner}.{fn.__name__}")
    try:
        rewritten = rewrite(fn, own, False, jit)
    except _Problems as e:
        raise UserFileError(e.problems) from None
    except Exception as e:  # a helper's own numba error while compiling it
        raise UserFileError([numba_problem(e, own, own.name, _def_line(fn))]) from None
    function = rewritten.function
    function.__qualname__ = f"{owner}_{fn.__name__}{SUFFIX}"
    dispatcher = jit(function)
    try:
        compile_now(dispatcher, signature, own, fn)
    except UserFileError as e:  # no line of the body named: the def's, not its decorator's
        if e.problems[0].line == fn.__code__.co_firstlineno:
            e.problems[0] = dataclasses.replace(e.problems[0], line=_def_line(fn))
        raise
    return dispatcher


def is_game(module: Any, name: str) -> bool:
    """Whether ``name`` in the designer's module is a game class."""
    return inspect.isclass(getattr(module, name, None))


def game_procedure(cls: type, module: Any, ref: Ref) -> Procedure:
    """The procedure of the designer's game class ``cls``, every function compiled now."""
    from simulator.jit import _load_numba

    _load_numba()
    from numba import njit

    from simulator.accumulate import BLOCK, accumulate_block, block_count, new_stats, trial_block
    from simulator.agents.factory import make_agents, make_player
    from simulator.agents.game import GameFunctions, GameInfo
    from simulator.agents.spec import AGENT_ROW, Policies, pack_agents, seat_agents
    from simulator.jit import KERNEL
    from simulator.rng import trial_state
    from simulator.userfiles.assumptions import declared
    from simulator.userfiles.parameters import model_of

    line = _class_line(cls)
    constants = _constants(cls, ref, line)
    seats_max, max_moves, state_size = (constants[k] for k in CONSTANTS)
    hidden = bool(getattr(cls, "HIDDEN_INFORMATION", False))
    parameters = _parameters(cls, ref, line)
    names = [p.name for p in parameters]
    fns = _functions(cls, ref, line)
    if hidden and "determinize" not in fns:
        raise _problem(ref, line, "HIDDEN_INFORMATION is True: write determinize(s, seat, rng)")
    Row = namedtuple(f"{ref.name}_params", names)  # type: ignore[misc]
    examples: dict[type, Any] = {int: 1, bool: True, float: 1.0}
    signatures = _signatures(state_size, Row(*(examples[p.kind] for p in parameters)))
    compiled = {n: _compile(fn, ref, ref.name, signatures[n]) for n, fn in fns.items()}
    info = GameInfo(
        seats=seats_max,
        max_moves=max_moves,
        hidden_information=hidden,
        chance=bool(getattr(cls, "CHANCE", True)),
    )
    game = GameFunctions(
        **{n: compiled[n] for n in REQUIRED if n != "start_game"},
        **{n: compiled[n] for n in OPTIONAL if n in compiled},
        max_moves=max_moves,
        info=info,
    )

    def seats_of(p: Any) -> int:
        return int(getattr(p, "players", seats_max))

    base = model_of(ref, parameters)

    def one_agent_or_one_per_seat(self: Any) -> Any:
        if seats_of(self) > seats_max:
            raise ValueError(f"players: {seats_of(self)} is more than SEATS = {seats_max}")
        seat_agents(self.policies, seats_of(self))
        return self

    validators: Any = {"_seats": model_validator(mode="after")(one_agent_or_one_per_seat)}
    params_model: type[Params] = create_model(
        f"{ref.name}_game_params",
        __base__=base,
        __validators__=validators,
        policies=(
            Policies,
            Field(
                default="greedy",
                description="who plays: one agent for every seat or one per seat "
                "(random, greedy, rollout, mcts)",
            ),
        ),
    )

    def metrics(p: Any) -> list[Metric]:
        out = [
            Metric(f"wins.seat{k}", "proportion", f"seat {k} wins (its returns at least 1)")
            for k in range(1, seats_of(p) + 1)
        ]
        out += [
            Metric("draws", "proportion", "games no seat won"),
            Metric("rounds", "mean", "round_of at the end of the game"),
            Metric("decisions", "mean", "moves chosen by the agents", headline=False),
        ]
        return out

    n_params = len(parameters)

    def pack(p: Any) -> np.ndarray:
        agents = pack_agents(seat_agents(p.policies, seats_of(p))).reshape(-1)
        row = np.zeros(n_params + 1 + seats_max * AGENT_ROW, dtype=np.float64)
        for k, n in enumerate(names):
            row[k] = float(getattr(p, n))
        row[n_params] = seats_of(p)
        row[n_params + 1 : n_params + 1 + agents.size] = agents
        return row

    choose = make_agents(game)
    play = make_player(game, choose)
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
    scope: dict[str, Any] = {
        "np": np,
        "BLOCK": BLOCK,
        "STATE_SIZE": state_size,
        "SEATS": seats_max,
        "AGENT_ROW": AGENT_ROW,
        "P_SEATS": n_params,
        "P_AGENTS": n_params + 1,
        "Row": Row,
        "new_stats": new_stats,
        "accumulate_block": accumulate_block,
        "block_count": block_count,
        "trial_block": trial_block,
        "trial_state": trial_state,
        "start_game": compiled["start_game"],
        "play": play,
        "returns": compiled["returns"],
        "round_of": compiled["round_of"],
    }
    from simulator.userfiles.rewrite import SUFFIX

    digest = hashlib.sha256(source.encode()).hexdigest()[:8]
    exec(compile(source, str(ref.path), "exec"), scope)
    fn = scope[kernel_name]
    fn.__module__ = module.__name__
    fn.__qualname__ = f"{kernel_name}_{digest}{AGENTS_DIGEST}{SUFFIX}"
    options: Any = {**KERNEL, "cache": True}
    kernel = njit(**options)(fn)
    doc = inspect.getdoc(cls) or ""
    title = doc.splitlines()[0].rstrip(".") if doc else ref.name
    example = {p.name: p.field.default for p in parameters if not p.field.is_required()}
    return Procedure(
        name=str(ref),
        title=title,
        rules=f"{ref.shown}, the designer's own file",
        params_model=params_model,
        metrics=metrics,
        pack=pack,
        kernel=kernel,
        example=example if len(example) == len(parameters) else None,
        assumptions=declared(cls if hasattr(cls, "ASSUMPTIONS") else module, ref, names),
        notes=(
            "players: policies (random, greedy: one-step lookahead on the heuristic, rollout, "
            "mcts)",
            f"a whole game written in {ref.shown} (class {ref.name}), compiled by Numba when "
            "loaded",
        ),
    )
