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
:func:`simulator.agents.streams.below` (``from simulator.agents.streams import below``). Two
more constants say what the game is (:class:`~simulator.agents.game.GameInfo`):
``HIDDEN_INFORMATION`` (False unless said; True requires ``determinize``) and ``CHANCE`` (True
unless said: ``apply_move`` draws after a move).

:func:`declare` reads and checks the class without Numba (``sim list``; its procedure's ``game``
is the class's functions as plain Python, which the interface tests play);
:func:`simulator.userfiles.game_kernel.game_procedure` compiles it into a
:class:`~simulator.procedures.base.Procedure` whose kernel plays one game per trial with the
seats' ``policies`` (random, greedy, rollout, mcts: the agents of
:func:`simulator.agents.factory.make_agents`, the template game's), so tournaments work too.
Metrics: ``wins.seatN`` (the seat's ``returns`` is a whole win, at least 1), ``draws`` (no seat
won), ``rounds`` (``round_of`` at the end) and ``decisions`` (moves chosen by the agents).
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections import namedtuple
from typing import Any

import numpy as np
from pydantic import Field, create_model, model_validator

from simulator.procedures.base import Metric, Params, Procedure
from simulator.userfiles.loading import Ref, UserFileError, unbuilt_kernel
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
    "state_key": ("s",),
}
#: Whole-number constants the class declares (name -> what it says).
CONSTANTS = {
    "SEATS": "the most seats at a table",
    "MAX_MOVES": "the most legal moves in any position",
    "STATE_SIZE": "slots of the state, one flat int64 array",
}


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


def is_game(module: Any, name: str) -> bool:
    """Whether ``name`` in the designer's module is a game class."""
    return inspect.isclass(getattr(module, name, None))


def game_classes(module: Any) -> list[str]:
    """The names of the classes the designer's module defines that write the game interface
    (``start_game`` at least; a parameter model of a trial function is not one)."""
    return [
        name
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and value.__module__ == module.__name__
        and inspect.getattr_static(value, "start_game", None) is not None
    ]


def _flag(cls: type, ref: Ref, line: int, name: str, default: bool) -> bool:
    value = getattr(cls, name, default)
    if not isinstance(value, bool):
        raise _problem(ref, line, f"{name} must be True or False, not {value!r}")
    return value


@dataclasses.dataclass(frozen=True)
class Declared:
    """A designer's game class read and checked, nothing compiled.

    Attributes:
        procedure: the procedure as declared: parameters, metrics, assumptions, notes, and
            ``game``, the interface as the class's plain Python functions (for ``sim list`` and
            the interface tests); its kernel refuses to run (:func:`game_procedure` compiles).
        functions: the class's interface functions, plain Python, by name.
        parameters: the class's parameters (:class:`~simulator.userfiles.parameters.Parameter`).
        row: the named tuple ``start_game`` receives as ``params``.
        seats, max_moves, state_size: the class's constants.
        info: what the game is (:class:`~simulator.agents.game.GameInfo`).
    """

    procedure: Procedure
    functions: dict[str, Any]
    parameters: list[Any]
    row: Any
    seats: int
    max_moves: int
    state_size: int
    info: Any


def row_reader(row: Any, parameters: list[Any]) -> Any:
    """``params`` of ``start_game`` from a packed row (for a deal in Python)."""
    kinds = [p.kind for p in parameters]
    cast: dict[type, Any] = {int: int, float: float, bool: lambda x: bool(x > 0.5)}

    def read(packed: np.ndarray) -> Any:
        return row(*(cast[kind](packed[k]) for k, kind in enumerate(kinds)))

    return read


def whole_game(declared: Declared, functions: dict[str, Any], compiled: bool) -> Any:
    """The :class:`~simulator.agents.game.WholeGame` of the class's ``functions``, plain Python
    or ``compiled`` (Numba dispatchers), and its deal by their ``start_game``. A class that writes
    no ``determinize`` has a copy for a seat's view (compiled: the game interface's own)."""
    from simulator.agents.game import GameFunctions, WholeGame

    copy_state = functions["copy_state"]

    def plain_view(s: Any, seat: int, rng: np.ndarray) -> Any:
        return copy_state(s)

    view = functions.get("determinize", None if compiled else plain_view)
    game = GameFunctions(
        **{n: functions[n] for n in REQUIRED if n != "start_game"},
        **{n: functions[n] for n in OPTIONAL if n in functions and n != "determinize"},
        determinize=view,
        max_moves=declared.max_moves,
        info=declared.info,
    )
    start_game = functions["start_game"]
    read = row_reader(declared.row, declared.parameters)
    size = declared.state_size

    def deal(packed: np.ndarray, rng: np.ndarray) -> np.ndarray:
        s = np.zeros(size, dtype=np.int64)
        start_game(s, read(packed), rng)
        return s

    return WholeGame(game, deal)


def declare(cls: type, module: Any, ref: Ref) -> Declared:
    """The designer's game class ``cls`` checked and described, without Numba.

    Raises:
        UserFileError: at the class's line (or the function's) in the designer's file.
    """
    from simulator.agents.game import GameInfo
    from simulator.agents.spec import AGENT_ROW, AgentName, Policies, pack_agents, seat_agents
    from simulator.userfiles.assumptions import declared
    from simulator.userfiles.parameters import model_of

    agents_known = tuple(a for a in typing.get_args(AgentName) if a != "optimal")  # no solver
    line = _class_line(cls)
    constants = _constants(cls, ref, line)
    seats_max, max_moves, state_size = (constants[k] for k in CONSTANTS)
    hidden = _flag(cls, ref, line, "HIDDEN_INFORMATION", False)
    chance = _flag(cls, ref, line, "CHANCE", True)
    parameters = _parameters(cls, ref, line)
    names = [p.name for p in parameters]
    fns = _functions(cls, ref, line)
    if hidden and "determinize" not in fns:
        raise _problem(ref, line, "HIDDEN_INFORMATION is True: write determinize(s, seat, rng)")
    Row = namedtuple(f"{ref.name}_params", names)  # type: ignore[misc]
    info = GameInfo(seats=seats_max, max_moves=max_moves, hidden_information=hidden, chance=chance)

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
                f"({', '.join(agents_known)})",
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

    doc = inspect.getdoc(cls) or ""
    title = doc.splitlines()[0].rstrip(".") if doc else ref.name
    example = {p.name: p.field.default for p in parameters if not p.field.is_required()}
    view = "hidden information (determinize)" if hidden else "no hidden information"
    own = [n for n in OPTIONAL if n in fns]
    proc = Procedure(
        name=str(ref),
        title=title,
        rules=f"{ref.shown}, the designer's own file",
        params_model=params_model,
        metrics=metrics,
        pack=pack,
        kernel=unbuilt_kernel(ref),
        example=example if len(example) == len(parameters) else None,
        assumptions=declared(cls if hasattr(cls, "ASSUMPTIONS") else module, ref, names),
        notes=(
            "players: policies (random, greedy: one-step lookahead on the heuristic, rollout, "
            "mcts)",
            f"the game: up to {seats_max} seats, at most {max_moves} legal moves, {view}, "
            + ("chance after a move" if chance else "no chance (CHANCE = False)")
            + (f"; its own {', '.join(own)}" if own else ""),
            f"a whole game written in {ref.shown} (class {ref.name}), compiled by Numba when "
            "loaded",
        ),
    )
    out = Declared(proc, fns, parameters, Row, seats_max, max_moves, state_size, info)
    game = whole_game(out, fns, compiled=False)
    return dataclasses.replace(out, procedure=dataclasses.replace(proc, game=game))
