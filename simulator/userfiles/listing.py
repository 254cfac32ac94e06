"""A designer's file read for ``sim list``, nothing compiled and no Numba loaded.

``sim list FILE.py`` shows every trial function (first parameter ``dice``) and every game class
of the file; ``sim list FILE.py:NAME`` the one. Each is checked as far as it can be without
Numba — a trial's parameters and its ``return {...}`` of metrics, a game class's constants,
parameters and interface functions, the file's ``METRICS`` and ``ASSUMPTIONS`` — and described
as a :class:`~simulator.procedures.base.Procedure` whose kernel refuses to run: compiling (a few
seconds for a trial, minutes for a whole game with its agents) waits for a run.

A trial's metric kinds are Numba's types of its returned values when it is compiled; here they
are read from :data:`SAMPLE` trials of the plain function on the plain dice
(:class:`simulator.userfiles.dice.Dice`): a value that is a bool in every one is a proportion, an
int in any a mean (as Numba unifies a bool with an int), a float an error as it is when compiled.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from simulator.procedures.base import Metric, Procedure
from simulator.userfiles.loading import (
    REF,
    Ref,
    UserFileError,
    load_function,
    load_module,
    parse_ref,
    unbuilt_kernel,
)
from simulator.userfiles.parameters import model_of
from simulator.userfiles.procedure import (
    _declared,
    _parameters,
    check_maxima,
    metric_error,
    metric_list,
    trial_procedure,
)
from simulator.yaml_loader import Problem

#: Trials of a trial function run in plain Python to read its metrics' kinds.
SAMPLE = 16
#: The dice key of those trials (any: a kind does not depend on the dice drawn, bar a branch).
SAMPLE_KEY = 29


def file_procedures(path: str) -> list[str]:
    """``path:NAME`` for every trial function (first parameter ``dice``) and every game class
    of the file, in the file's order, the path as given."""
    from simulator.userfiles.game import game_classes

    module = load_module(parse_ref(f"{path}:_"))
    games = set(game_classes(module))
    out = []
    for name, value in vars(module).items():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            first = next(iter(inspect.signature(value).parameters), None)
            if first == "dice":
                out.append(f"{path}:{name}")
        elif name in games:
            out.append(f"{path}:{name}")
    return out


def declared_procedure(text: str) -> Procedure:
    """The procedure of ``path/to/file.py:NAME`` as the file declares it, nothing compiled and
    no Numba loaded: its name, parameters, metrics, assumptions and notes (``sim list``), and a
    game class's interface as plain Python (``game``); its kernel refuses to run. The path is
    shown as given. A metric's kind (a bool is a proportion, an int a mean) is read from a few
    trials of the function in plain Python on the plain dice when ``metrics`` is asked.

    Raises:
        UserFileError: what compiling would find before Numba (a wrong signature, a parameter
            without a type, a return that is not a dict of metrics...), at the designer's line.
    """
    import dataclasses

    match = REF.match(text)
    ref = parse_ref(text)
    if match is not None:
        ref = dataclasses.replace(ref, shown=match["path"])
    module = load_module(ref)
    from simulator.userfiles.game import declare, is_game

    if is_game(module, ref.name):
        return declare(getattr(module, ref.name), module, ref).procedure
    return _declared_trial(load_function(ref), module, ref)


def _declared_trial(fn: Any, module: Any, ref: Ref) -> Procedure:
    """A trial function's procedure without compiling it (see the module docstring)."""
    from simulator.userfiles.rewrite import _Problems, rewrite

    parameters, model = _parameters(fn, ref)
    params_model = model_of(ref, parameters)
    try:  # the rewrite alone: its helpers stay plain functions, nothing is compiled
        rewritten = rewrite(fn, ref, True, lambda helper: helper)
    except _Problems as e:
        raise UserFileError(e.problems) from None
    names = rewritten.metric_names
    declared = _declared(module, ref, names)

    def metrics(p: Any) -> list[Metric]:
        kinds = _plain_kinds(fn, ref, p.model_dump(), model, rewritten)
        check_maxima(ref, kinds, declared, rewritten)
        return metric_list(names, kinds, declared)

    kernel = unbuilt_kernel(ref)
    return trial_procedure(fn, module, ref, parameters, model, params_model, names, metrics, kernel)


def _plain_kinds(
    fn: Any, ref: Ref, values: dict[str, Any], model: type | None, rewritten: Any
) -> list[str]:
    """``proportion`` or ``mean`` per metric from :data:`SAMPLE` plain-Python trials."""
    from simulator.userfiles.dice import Dice
    from simulator.userfiles.loading import designer_line

    names = rewritten.metric_names
    ints = dict.fromkeys(names, False)
    for t in range(SAMPLE):
        try:
            dice = Dice(SAMPLE_KEY, t)
            got = fn(dice, model(**values)) if model is not None else fn(dice, **values)
        except Exception as e:
            line, col = designer_line(e, ref.path)
            message = f"one trial run in plain Python (sim list) raised {type(e).__name__}: {e}"
            raise UserFileError([Problem(ref.shown, line, col, ref.name, message)]) from None
        for name in names:
            value = got[name]
            if isinstance(value, bool | np.bool_):
                continue
            if not isinstance(value, int | np.integer):
                what = "float64" if type(value) is float else type(value).__name__  # as Numba says
                raise metric_error(ref, name, what, rewritten.metric_lines[name])
            ints[name] = True
    return ["mean" if ints[n] else "proportion" for n in names]
