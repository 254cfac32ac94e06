"""Compiling a designer's function with Numba, and Numba's errors told as the designer's.

A Numba error is a page of typing passes and elided source. What a designer can act on is the line
of their file and what to write there instead: :func:`numba_problem` finds the first location in
the designer's file and the first sentence of the error, and adds what to change for the errors a
plain Python function meets most (a module Numba does not know, a variable of two types, a list of
mixed values, a call of a library function).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulator.jit import CLOSURE, _load_numba
from simulator.userfiles.loading import Ref, UserFileError, function_line, load_function, parse_ref
from simulator.userfiles.rewrite import _Problems, rewrite
from simulator.yaml_loader import Problem

#: How a designer's code is compiled beyond sim's own flags: cached beside the file, a division
#: by zero raising as in Python (not numpy's silent 0 or inf), and every index checked against
#: its array (Numba's ``boundscheck``: an index outside raises instead of reading or writing
#: memory that is not the array's). Failures are told at the designer's line
#: (:mod:`simulator.userfiles.failures`).
CHECKED: dict[str, Any] = {"cache": True, "error_model": "python", "boundscheck": True}

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FILE_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')

#: (pattern in Numba's message, what to change): the first that matches is said.
HINTS: tuple[tuple[str, str], ...] = (
    (
        r"Untyped global name '(?P<name>[^']+)'",
        "{name} is not something Numba can compile: use plain numbers, loops, the dice API, "
        "math and numpy, and functions of this file",
    ),
    (
        r"Cannot unify",
        "a variable (or a returned metric) takes values of two types, e.g. an int in one branch "
        "and a bool or float in another: give it one type everywhere (int(x), x > 0)",
    ),
    (
        r"Unknown attribute '(?P<name>[^']+)'",
        "Numba knows no attribute {name} here: numbers and arrays only (no objects of your own)",
    ),
    (
        r"non-precise type|reflected list|Cannot type empty list",
        "a list or dict Numba cannot type: use a numpy array (np.zeros(n, np.int64)) with "
        "values of one type",
    ),
    (
        r"No implementation of function|Invalid use of",
        "this call is not one Numba compiles with these argument types: use ints, floats and "
        "bools, numpy arrays, math functions and the dice API",
    ),
    (
        r"Use of unsupported opcode|Unsupported language feature|not supported|unsupported",
        "this construct is not compiled by Numba (generators, try/except, classes, f-strings, "
        "with): write it with plain loops and ifs",
    ),
)


def jit(fn: Callable[..., Any], inline: bool = False) -> Any:
    """A Numba dispatcher of a rewritten designer's function (compiled when first typed),
    cached on disk beside the designer's file (``__pycache__``, or NUMBA_CACHE_DIR).

    Numba keys the cache by the file's modification stamp, so editing the file compiles it
    again; the helpers it calls are in the same file (:mod:`simulator.userfiles.rewrite`), and
    the function's name carries :data:`~simulator.userfiles.rewrite.SOURCES` (``sim``'s own code
    compiled into it), so a new ``sim`` compiles it again too."""
    _load_numba()
    from numba import njit

    from simulator.userfiles.dice import ensure_fill

    ensure_fill()  # the symbol a count calls, before the function is compiled or loaded
    drop_damaged_entries(fn)
    options: Any = {**CLOSURE, **CHECKED}
    if inline:  # a procedure's trial, inlined into its kernel (a fifth faster)
        options["inline"] = "always"
    return njit(**options)(fn)


def drop_damaged_entries(fn: Callable[..., Any]) -> None:
    """Before Numba reads the cache of ``fn``'s file: drop its entries that Numba could not
    read (:func:`simulator.jitcache.drop_damaged`), every entry of its folder read whole."""
    from numba.core.caching import FunctionCache

    from simulator.jitcache import drop_damaged

    try:
        folder = Path(FunctionCache(fn).cache_path)
    except Exception:  # no cache for it (Numba says why when it compiles)
        return
    drop_damaged(folder)  # the whole folder: helpers of other files the rule imports too


def numba_problem(error: BaseException, ref: Ref, name: str, fallback_line: int) -> Problem:
    """The designer's line and what to change, from a Numba compilation error."""
    text = _ANSI.sub("", str(error))
    lines = [ln.strip() for ln in text.splitlines()]
    body = [ln for ln in lines if ln and not ln.startswith("Failed in ")]
    first = body[0] if body else type(error).__name__
    first = re.sub(r" for '([A-Za-z_][A-Za-z0-9_]*)\.\d+'", r" for '\1'", first)
    first = re.sub(r",? defined at \S+ \(\d+\)", "", first)
    first = re.split(r': %"|\s+%"', first)[0]  # LLVM's own words after it say nothing to a designer
    if len(first) > 200:
        first = first[:197] + "..."
    line, col = fallback_line, 1
    for match in _FILE_LINE.finditer(text):
        if Path(match["file"]).name == ref.path.name:
            line = int(match["line"])
            break
    hint = ""
    for pattern, advice in HINTS:
        found = re.search(pattern, text)
        if found:
            hint = advice.format(**found.groupdict())
            break
    message = f"Numba cannot compile this line: {first}"
    if hint:
        message += f"; {hint}"
    return Problem(ref.shown, line, col, name, message)


def rewrite_located(fn: Callable[..., Any], ref: Ref, procedure: bool, name: str, line: int) -> Any:
    """:func:`rewrite` of ``fn``, its errors located in the designer's file (at ``line`` for a
    helper's own Numba error while compiling it).

    Raises:
        UserFileError: located in the designer's file.
    """
    try:
        return rewrite(fn, ref, procedure, jit)
    except _Problems as e:
        raise UserFileError(e.problems) from None
    except Exception as e:  # a helper's own numba error while compiling it
        raise UserFileError([numba_problem(e, ref, name, line)]) from None


def compile_rewritten(
    fn: Callable[..., Any], ref: Ref, procedure: bool, signature: Any | None
) -> tuple[Any, Any]:
    """``fn`` rewritten and compiled; with ``signature`` (a Numba signature or its string) it is
    compiled now, so errors surface before any run. Returns (dispatcher, rewritten).

    Raises:
        UserFileError: located in the designer's file.
    """
    rewritten = rewrite_located(fn, ref, procedure, fn.__name__, function_line(fn))
    dispatcher = jit(rewritten.function)
    if signature is not None:
        compile_now(dispatcher, signature, ref, fn)
    return dispatcher, rewritten


def compile_now(dispatcher: Any, signature: Any, ref: Ref, fn: Callable[..., Any]) -> None:
    """Compile ``dispatcher`` for ``signature``; a Numba error becomes a located problem."""
    import warnings

    from numba.core.errors import NumbaError, NumbaWarning

    try:
        with warnings.catch_warnings():
            # Numba's warnings (an unsafe cast) come before its error, as a page of its own.
            warnings.simplefilter("ignore", NumbaWarning)
            dispatcher.compile(signature)
    except (NumbaError, TypeError, ValueError, NotImplementedError) as e:
        raise UserFileError([numba_problem(e, ref, fn.__name__, function_line(fn))]) from None


def compile_step(
    path: str | Path,
    name: str,
    signature_doc: str,
    base_dir: str | Path | None = None,
    *,
    params: tuple[str, ...] | None = None,
    numba_signature: Any | None = None,
    where: Problem | None = None,
) -> Any:
    """A rule step from a designer's file, compiled with Numba like a built-in one.

    Args:
        path: the file, relative to ``base_dir`` (the scenario's folder) unless absolute; or the
            whole ``path/to/file.py:NAME`` reference, with ``name`` empty.
        name: the function in it.
        signature_doc: the signature the step must have, as the docs show it
            (``owner(tokens, placed, owner) -> int``): said in every error.
        params: the parameter names it must take, in order (checked when given).
        numba_signature: Numba's signature (``"int64(int64[:], int64[:], int64)"``): compiled now,
            so a function Numba cannot compile is refused at the designer's line before a run.
        where: the scenario position that named the file (for a file that does not exist).

    Returns:
        A Numba dispatcher: call it from a compiled kernel as the built-in step is called (it is
        not cached on disk; a kernel that calls it by closure compiles with it).

    Raises:
        UserFileError: every problem located in the designer's file (exit 2 through the CLI).
    """
    text = str(path) if not name else f"{path}:{name}"
    ref = parse_ref(text, base_dir, where)
    fn = load_function(ref, where)
    check_parameters(fn, ref, params, signature_doc)
    dispatcher, _ = compile_rewritten(fn, ref, False, numba_signature)
    return dispatcher


def check_parameters(
    fn: Callable[..., Any], ref: Ref, params: tuple[str, ...] | None, signature_doc: str
) -> None:
    """Refuse a function whose parameters are not ``params`` (in order)."""
    import inspect

    if params is None:
        return
    got = tuple(inspect.signature(fn).parameters)
    if got != tuple(params):
        raise UserFileError(
            [
                Problem(
                    ref.shown,
                    function_line(fn),
                    1,
                    ref.name,
                    f"takes ({', '.join(got)}); a {signature_doc.split('(')[0]} step takes "
                    f"({', '.join(params)}): write `def {signature_doc}`",
                )
            ]
        )
