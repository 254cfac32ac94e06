"""A whole dice procedure from a designer's file: one trial as a plain Python function.

The designer writes::

    def opposed_roll(dice, attacker_dice: int = 3, defender_dice: int = 2, bonus: int = 2):
        attack = dice.roll(attacker_dice, 6)
        defence = dice.roll(defender_dice, 6) + bonus
        return {"attacker_wins": attack > defence, "margin": attack - defence}

and names it in a scenario as ``procedure: opposed_roll.py:opposed_roll``. The first parameter is
the trial's dice (:mod:`simulator.userfiles.dice`); the others are the parameters, each with its
type (``int``, ``float`` or ``bool``; ``Annotated[int, Field(ge=1, le=20)]`` for a range) and, if
it has one, its default; or a single parameter typed with a pydantic model of such fields. The
returned dict's names are the metrics: a ``bool`` a proportion, an ``int`` a mean. Optional, in
the same file: ``METRICS = {"margin": "attack minus defence"}`` (a description, or a dict with
``description``, ``max`` for a distribution over 0..max, ``headline``), and ``NAME_exact``, the
same parameters without dice, returning each metric's exact value (``sim exact``).

:func:`procedure_of` makes it a :class:`~simulator.procedures.base.Procedure`: a parameter model
(sweeps, ``sim tune``, ``sim validate``), a packed row, and a kernel compiled by Numba around the
designer's function that runs a block of trials under every variant on the same dice and folds
them with :func:`~simulator.accumulate.accumulate_block`, as the built-in kernels do.
"""

from __future__ import annotations

import inspect
import typing
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from simulator.procedures.base import Metric, Params, Procedure
from simulator.userfiles.failures import GuardedKernel, always_raises
from simulator.userfiles.jitting import compile_rewritten, function_line, jit
from simulator.userfiles.kernel import kernel_around
from simulator.userfiles.loading import Ref, UserFileError, load_function, load_module, parse_ref
from simulator.userfiles.parameters import (
    Parameter,
    _problem,
    base_type,
    checked,
    model_of,
)
from simulator.yaml_loader import Problem


def _parameters(fn: Callable[..., Any], ref: Ref) -> tuple[list[Parameter], type | None]:
    """The designer's parameters (after ``dice``), and the pydantic model if one is used."""
    line = function_line(fn)
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    usage = "def NAME(dice, units: int = 3, ...): the trial's dice first, then the parameters"
    if not params or params[0].name != "dice":
        raise _problem(ref, line, f"the first parameter must be dice; write `{usage}`")
    rest = params[1:]
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as e:  # a string annotation naming nothing
        raise _problem(ref, line, f"its types cannot be read: {type(e).__name__}: {e}") from None
    described = _described(fn)
    if len(rest) == 1 and inspect.isclass(hints.get(rest[0].name)):
        model = hints[rest[0].name]
        if issubclass(model, BaseModel):
            return [
                checked(ref, line, name, info.annotation, info)
                for name, info in model.model_fields.items()
            ], model
    out = []
    for p in rest:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            raise _problem(ref, line, f"parameter {p.name}: no *args or **kwargs; name each one")
        if p.name not in hints:
            raise _problem(ref, line, f"parameter {p.name} has no type: write `{p.name}: int`")
        base, meta = base_type(hints[p.name])
        infos = [m for m in meta if isinstance(m, FieldInfo)]
        info = infos[0] if infos else Field()
        if p.default is not p.empty:
            info = FieldInfo.merge_field_infos(info, default=p.default)
        if info.description is None and p.name in described:
            info = FieldInfo.merge_field_infos(info, description=described[p.name])
        out.append(checked(ref, line, p.name, base, info))
    return out, None


def _described(fn: Callable[..., Any]) -> dict[str, str]:
    """Parameter descriptions from the docstring's ``Args:`` section (``name: text``)."""
    out: dict[str, str] = {}
    inside, last = False, ""
    for raw in (inspect.getdoc(fn) or "").splitlines():
        text = raw.strip()
        if text in ("Args:", "Arguments:", "Parameters:"):
            inside = True
            continue
        if not inside:
            continue
        if not text or (not raw.startswith(" ") and text.endswith(":")):
            inside = text == "" and bool(out)
            if not text:
                continue
            break
        name, colon, rest = text.partition(":")
        if (
            colon
            and name.isidentifier()
            and raw.startswith("    ")
            and not raw.startswith("      ")
        ):
            out[name], last = rest.strip(), name
        elif last:
            out[last] += " " + text
    return out


def _declared(module: Any, ref: Ref, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The file's ``METRICS`` declarations by metric name, checked."""
    declared = getattr(module, "METRICS", None)
    if declared is None:
        return {}
    line = _line_of(ref, "METRICS")
    if not isinstance(declared, dict):
        raise _problem(ref, line, "METRICS must be a dict: metric name -> description or dict")
    out: dict[str, dict[str, Any]] = {}
    for key, spec in declared.items():
        if key not in names:
            continue  # another function's metric (a file may hold several procedures)
        if isinstance(spec, str):
            spec = {"description": spec}
        if not isinstance(spec, dict) or set(spec) - {"description", "max", "headline"}:
            raise _problem(
                ref,
                line,
                f"METRICS[{key!r}]: a description, or a dict of description, max "
                "(a distribution over 0..max) and headline (true or false)",
            )
        top = spec.get("max")
        if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 0):
            raise _problem(ref, line, f"METRICS[{key!r}]: max must be a whole number >= 0")
        out[key] = spec
    return out


def _line_of(ref: Ref, name: str) -> int:
    from simulator.userfiles.loading import _line_of_name

    return _line_of_name(ref.path, name)


def _metric_kinds(
    dispatcher: Any, ref: Ref, names: tuple[str, ...], lines: dict[str, tuple[int, int]]
) -> list[str]:
    """``proportion`` or ``mean`` per metric, from the types Numba gives the returned values."""
    from numba.core import types

    returned = dispatcher.nopython_signatures[0].return_type
    items: list[Any] = list(returned) if isinstance(returned, types.BaseTuple) else [returned]  # type: ignore[call-overload]
    kinds = []
    for name, item in zip(names, items, strict=True):
        if isinstance(item, types.Boolean):
            kinds.append("proportion")
        elif isinstance(item, types.Integer):
            kinds.append("mean")
        else:
            raise metric_error(ref, name, str(item), lines.get(name, (1, 1)))
    return kinds


def metric_list(
    names: tuple[str, ...], kinds: list[str], declared: dict[str, dict[str, Any]]
) -> list[Metric]:
    """The metrics of a trial function: its returned names, their kinds and the file's
    ``METRICS`` declarations (a ``max`` makes a distribution)."""
    out = []
    for metric, kind in zip(names, kinds, strict=True):
        spec = declared.get(metric, {})
        top = spec.get("max")
        out.append(
            Metric(
                metric,
                "distribution" if top is not None else kind,  # type: ignore[arg-type]
                str(spec.get("description", "")),
                max_value=int(top or 0),
                headline=bool(spec.get("headline", True)),
            )
        )
    return out


def check_maxima(
    ref: Ref, kinds: list[str], declared: dict[str, dict[str, Any]], rewritten: Any
) -> None:
    """Refuse a ``max`` declared for a metric that is a bool."""
    for metric, kind in zip(rewritten.metric_names, kinds, strict=True):
        if declared.get(metric, {}).get("max") is not None and kind != "mean":
            line, col = rewritten.metric_lines.get(metric, (1, 1))
            raise _problem(ref, line, f"metric {metric!r} is a bool: only an int has a max", col)


def metric_error(ref: Ref, name: str, what: str, at: tuple[int, int]) -> UserFileError:
    """A metric that is neither an int nor a bool (``what``: its type), at its line."""
    return UserFileError(
        [
            Problem(
                ref.shown,
                *at,
                ref.name,
                f"metric {name!r} is a {what}, not an int or a bool: sim sums metrics "
                "exactly as integers; return a count or a comparison (a fraction x as "
                "round(100 * x), a percentage)",
            )
        ]
    )


def _signature(parameters: list[Parameter], model: type | None) -> tuple[Any, ...]:
    from numba import typeof

    dice = typeof(np.zeros(3, dtype=np.uint64))
    examples: dict[type, Any] = {int: 1, bool: True, float: 1.0}
    values = [examples[p.kind] for p in parameters]
    if model is not None:
        row = namedtuple(model.__name__, [p.name for p in parameters])  # type: ignore[misc]
        return (dice, typeof(row(*values)))
    return (dice, *(typeof(v) for v in values))


#: Procedures built this process, by name (a Plan sent to a Dask worker names its procedure).
_built: dict[str, Procedure] = {}


def procedure_of(
    text: str, base_dir: str | Path | None = None, where: Problem | None = None
) -> Procedure:
    """The procedure of ``path/to/file.py:NAME`` (relative to ``base_dir``), compiled now so that
    every problem is found before a run.

    Raises:
        UserFileError: located in the designer's file (or at ``where`` for a missing file).
    """
    ref = parse_ref(text, base_dir, where)
    module = load_module(ref, where)
    key = f"{ref}@{id(module)}"
    if key in _built:
        return _built[key]
    from simulator.userfiles.game import is_game
    from simulator.userfiles.game_kernel import game_procedure

    if is_game(module, ref.name):  # a whole game: a class of the game interface
        proc = game_procedure(getattr(module, ref.name), module, ref)
    else:
        proc = _build(load_function(ref, where), module, ref)
    _built[key] = proc
    _built[proc.name] = proc
    return proc


def registered(name: str) -> Procedure | None:
    """A procedure built this process under ``name``, if any."""
    return _built.get(name)


def procedure_of_function(fn: Callable[..., Any], name: str) -> Procedure:
    """The procedure of a one-trial function of an installed module, named ``name``."""
    if name in _built:
        return _built[name]
    path = Path(inspect.getfile(fn)).resolve()
    from simulator.userfiles.loading import shown_path

    ref = Ref(path, shown_path(path), fn.__name__)
    proc = _build(fn, inspect.getmodule(fn), ref, name)
    _built[name] = proc
    return proc


def _build(fn: Callable[..., Any], module: Any, ref: Ref, name: str | None = None) -> Procedure:
    """The procedure of the designer's ``fn`` (named ``name``, by default its reference)."""
    parameters, model = _parameters(fn, ref)
    params_model = model_of(ref, parameters)
    from simulator.jit import _load_numba

    _load_numba()
    trial, rewritten = compile_rewritten(fn, ref, True, _signature(parameters, model))
    names = rewritten.metric_names
    from numba.core import types

    if trial.nopython_signatures[0].return_type == types.none:
        raise always_raises(fn, ref, parameters, model, function_line(fn))
    kinds = _metric_kinds(trial, ref, names, rewritten.metric_lines)
    declared = _declared(module, ref, names)
    check_maxima(ref, kinds, declared, rewritten)

    def metrics(p: Any) -> list[Metric]:
        return metric_list(names, kinds, declared)

    kinds_of = [p.kind for p in parameters]
    names_of = [p.name for p in parameters]
    bools = [kind == "proportion" for kind in kinds]
    kernel = GuardedKernel(
        kernel_around(trial, ref, kinds_of, names_of, model, bools),
        fn,
        ref,
        parameters,
        model,
        function_line(fn),
    )
    return trial_procedure(
        fn, module, ref, parameters, model, params_model, names, metrics, kernel, name
    )


def trial_procedure(
    fn: Callable[..., Any],
    module: Any,
    ref: Ref,
    parameters: list[Parameter],
    model: type | None,
    params_model: type[Params],
    names: tuple[str, ...],
    metrics: Callable[[Any], list[Metric]],
    kernel: Callable[..., Any],
    name: str | None = None,
) -> Procedure:
    """The procedure of the designer's trial function ``fn`` with these ``metrics`` and
    ``kernel`` (compiled for a run, or refusing to run for ``sim list``): its title, parameters,
    packing, exact function (``NAME_exact`` of the file), example and assumptions."""
    from simulator.userfiles.assumptions import declared as assumptions

    order = [p.name for p in parameters]

    def pack(p: Any) -> np.ndarray:
        return np.array([float(getattr(p, n)) for n in order], dtype=np.float64)

    exact_fn = getattr(module, f"{ref.name}_exact", None)
    exact = None
    if callable(exact_fn):
        exact = _exact(exact_fn, ref, order, model, names)
    doc = inspect.getdoc(fn) or ""
    title = doc.splitlines()[0].rstrip(".") if doc else ref.name
    example = {p.name: p.field.default for p in parameters if not p.field.is_required()}
    return Procedure(
        name=name or str(ref),
        title=title,
        rules=f"{ref.shown}, the designer's own file",
        params_model=params_model,
        metrics=metrics,
        pack=pack,
        kernel=kernel,
        exact=exact,
        notes=(f"written in {ref.shown} (function {ref.name}), compiled by Numba when loaded",),
        example=example if len(example) == len(parameters) else None,
        assumptions=assumptions(module, ref, order),
    )


def _exact(
    fn: Callable[..., Any], ref: Ref, order: list[str], model: type | None, names: tuple[str, ...]
) -> Callable[[Any], dict[str, float]]:
    got = list(inspect.signature(fn).parameters)
    wanted = order if model is None else got[:1]
    if got != wanted:
        raise _problem(
            ref,
            function_line(fn),
            f"{fn.__name__} takes ({', '.join(got)}); it takes the parameters of {ref.name} "
            f"without dice: ({', '.join(order)})",
        )

    def exact(p: Any) -> dict[str, float]:
        try:
            values = fn(model(**p.model_dump())) if model is not None else fn(**p.model_dump())
        except Exception as e:
            from simulator.userfiles.loading import designer_line

            line, col = designer_line(e, ref.path)
            raise UserFileError(
                [Problem(ref.shown, line, col, fn.__name__, f"{type(e).__name__}: {e}")]
            ) from None
        if not isinstance(values, dict) or set(values) - set(names):
            raise _problem(
                ref,
                function_line(fn),
                f"{fn.__name__} must return a dict of some of the metrics ({', '.join(names)})",
            )
        return {k: float(v) for k, v in values.items()}

    return exact


__all__ = ["jit", "procedure_of", "registered"]
