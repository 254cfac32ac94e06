"""Numba compiler flags, set in one place, and Numba itself loaded only when a kernel first runs.

Every kernel in the package is decorated with one of these, never with ``numba.njit`` directly, so
that caching and GIL release are uniform. Kernels are serial and release the GIL: the engine runs
chunks of trials on a thread pool. We previously considered ``prange`` over chunks inside one
parallel function, but a Python-level job list gives progress, clean Ctrl-C between chunks and the
same job model for local threads and a Dask cluster, while staying bit-identical for any thread
count (each chunk writes its own statistics, reduced in chunk order).

Lazy: a decorated function is a :class:`Jitted`, which imports Numba and builds its dispatcher the
first time it is called or asked for a dispatcher's attribute. Importing a procedure module (to
read its ``Params`` for ``sim list`` and ``sim validate``) then costs no Numba import: that was
0.15 s of every light command's start-up, and scipy with it. Inside compiled code a ``Jitted``
is the dispatcher it builds: Numba types a global by its ``_numba_type_`` and inlines by its
``targetoptions`` and ``py_func``, which the wrapper hands over from the dispatcher.

Also here: :func:`borrowed`, views of a compiled entry point's arrays that Numba counts no
references on (the recruitment game's hot path).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from simulator import collector, diskload, emitting, flagkeys, inlining, jitcache

if TYPE_CHECKING:
    import numpy as np

#: Flags for kernels: compiled once, cached on disk, GIL released so threads run them in parallel.
KERNEL = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
#: Flags for the helpers kernels call (a game's rules, accumulation): compiled once per signature,
#: cached on disk, and called; LLVM inlines the small ones into their callers anyway. Not
#: ``inline="always"``: Numba's IR-level inlining pastes the helper's code into every caller and
#: types it again at each call site, nested helpers inside nested helpers, which was most of a
#: whole game's compile (recruitment 172 CPU-s cold, its greedy agent alone 102; docs/speed.md).
INLINE = {"cache": True, "nogil": True, "error_model": "numpy"}
#: Flags for leaf helpers of a few lines that call nothing compiled (random words, dice faces):
#: pasted into their callers at Numba's IR level, where typing them again costs less than the
#: fixed cost of compiling (and caching) one more function.
LEAF = {"cache": True, "nogil": True, "inline": "always", "error_model": "numpy"}
#: Flags for functions built by closure over other compiled functions (the agents of a game,
#: :mod:`simulator.agents`). Pasted into their caller at Numba's IR level: each is called from one
#: or two places (the game's kernel, the agent above it), so it is typed once there, and its code
#: is optimised and emitted once, inside the kernel, instead of once in its own function and again
#: in every function that calls it (each carries the whole game it calls: that was most of the
#: council's compile). Not cached on disk on their own: Numba keys a closure's cache entry by its
#: pickled free variables, and a dispatcher pickles differently in every process, so
#: ``cache=True`` never hits; the cached kernel that calls them carries their code.
CLOSURE = {"cache": False, "nogil": True, "inline": "always", "error_model": "numpy"}

_lock = threading.RLock()
_loaded = False
_on_load: list[Callable[[], None]] = []
_settled: list[Callable[[], None]] = []
_registered = False  # borrowed's overload: once per process, whatever tests do to _loaded


def when_numba_loads(action: Callable[[], None]) -> None:
    """Run ``action`` once Numba is loaded for the first kernel (now, if it already is): for
    what must happen before any kernel is compiled or read from the disk cache."""
    with _lock:
        if not _loaded:
            _on_load.append(action)
            return
    action()


def on_settled(action: Callable[[], None]) -> Callable[[], None]:
    """Call ``action`` each time a run's kernels are compiled or loaded (:func:`settled`), until
    the returned function is called: how the compile notices learn that a batch of compiles is
    over without the engine importing them."""
    with _lock:
        _settled.append(action)

    def forget() -> None:
        with _lock:
            if action in _settled:
                _settled.remove(action)

    return forget


def settled() -> None:
    """Say that every kernel a run needs is compiled or loaded (the engine's warm-up is done)."""
    with _lock:
        actions = list(_settled)
    for action in actions:
        action()


def numba_loaded() -> bool:
    """Whether a kernel of this package has loaded Numba in this process."""
    return _loaded


#: The Numba releases whose internals :mod:`simulator.inlining`, :mod:`simulator.emitting`,
#: :mod:`simulator.flagkeys` and :mod:`simulator.diskload` were written against (pyproject.toml
#: pins the same). Another release compiles and loads as Numba does by itself: the same results,
#: slower cold compiles and warm starts.
TUNED_FOR = ("0.68",)


def tuned_for_this_numba() -> bool:
    import numba

    return ".".join(numba.__version__.split(".")[:2]) in TUNED_FOR


def _load_numba() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        # Numba colours a message of every overload it fails to type while resolving a call
        # (colorama set up and torn down each time: 19,000 times in the New World's compile)
        # when colorama is installed; the messages a user reads are ours (simulator.userfiles).
        os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
        import numba  # noqa: F401  (the import is the point: 0.25 CPU-s)

        collector.install_for_compiles()

        if tuned_for_this_numba():
            inlining.install()
            emitting.install()
            flagkeys.install()
            diskload.install(_import_arraymath_without_scipy)  # at the first compile
        else:
            _import_arraymath_without_scipy()

        if not _registered:
            _register_borrowed()
        jitcache.drop_all_stale()  # before any kernel is read from the disk cache
        _loaded = True
        pending, _on_load[:] = list(_on_load), []
    for action in pending:
        action()


def _import_arraymath_without_scipy() -> None:
    """Import ``numba.np.arraymath`` with ``scipy.linalg`` hidden.

    Numba's CPU target imports it at the first compile or load from the cache, and it imports
    ``scipy.linalg`` (0.18 CPU-s, a fifth of a warm dice run) only to learn whether
    ``np.correlate`` and ``np.convolve`` of floats may call BLAS; no kernel here calls them (they
    would use Numba's own loop). It is unhidden at once, for the comparisons that need it."""
    hidden = "scipy.linalg"
    if hidden in sys.modules:
        import numba.np.arraymath

        return
    sys.modules[hidden] = None  # type: ignore[assignment]  # importing it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if hidden in sys.modules and sys.modules[hidden] is None:
            del sys.modules[hidden]


def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


class Jitted:
    """A function compiled by Numba on first use, with the flags it was decorated with.

    Called from Python it calls the dispatcher; any other attribute (``signatures``,
    ``targetoptions``...) is the dispatcher's. ``py_func`` is the plain function, without loading
    Numba. Pickled, it is its dispatcher (Dask ships those).

    Compiled code that calls it (Numba types it by ``_numba_type_``) calls a twin instead: the
    same function compiled without a Python entry (``no_cpython_wrapper``) and cached apart, so
    that its library, which only its callers' code ever runs, is not emitted as machine code
    (:mod:`simulator.emitting`). A function called only from compiled code compiles only the
    twin; an entry kernel only the dispatcher; a game's interface function both, when both call
    it. Pasted functions (``inline="always"``) have no twin: their callers paste ``py_func``."""

    def __init__(self, py_func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = options
        self._dispatcher: Any = None
        self._twin: Any = None

    @property
    def dispatcher(self) -> Any:
        """The Numba dispatcher (built, and Numba imported, on first use)."""
        if self._dispatcher is None:
            _load_numba()
            from numba import njit

            with _lock:
                if self._dispatcher is None:
                    dispatcher = njit(**self.options)(self.py_func)
                    _compile_calls_for_plain_types(dispatcher)
                    self._dispatcher = dispatcher
        return self._dispatcher

    @property
    def twin(self) -> Any:
        """The dispatcher compiled code calls: without a Python entry, cached apart."""
        if self.options.get("inline", "never") != "never":
            return self.dispatcher
        if self._twin is None:
            _load_numba()
            from numba import njit

            with _lock:
                if self._twin is None:
                    options: dict[str, Any] = {**self.options, **_CALLED_FROM_COMPILED_CODE}
                    twin = njit(**options)(_renamed(self.py_func))
                    _compile_calls_for_plain_types(twin)
                    self._twin = twin
        return self._twin

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_dispatcher", "_twin", "py_func", "options"):
            raise AttributeError(name)  # half-built (copy, unpickling): never recurse
        if name == "_numba_type_":
            return self.twin._numba_type_
        return getattr(self.dispatcher, name)

    def __reduce__(self) -> Any:
        return self.dispatcher.__reduce__()

    def __repr__(self) -> str:
        return f"<Jitted {self.py_func.__module__}.{self.py_func.__qualname__}>"


#: The twin's flags beyond the function's own: no entry for Python, none for C.
_CALLED_FROM_COMPILED_CODE: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


def _renamed(py_func: Callable[..., Any]) -> Callable[..., Any]:
    """The same function under another qualified name, so that Numba caches the twin apart
    from the dispatcher (its cache index does not tell their flags apart)."""
    twin = types.FunctionType(
        py_func.__code__, py_func.__globals__, py_func.__name__, py_func.__defaults__,
        py_func.__closure__,
    )  # fmt: skip
    twin.__qualname__ = f"{py_func.__qualname__}.compiled"
    twin.__module__ = py_func.__module__
    twin.__kwdefaults__ = py_func.__kwdefaults__
    twin.__doc__ = py_func.__doc__
    return twin


def _compile_calls_for_plain_types(dispatcher: Any) -> None:
    """Make a call from compiled code compile ``dispatcher`` for the arguments' plain types.

    Numba types a constant argument (a layout's offset, a rule's code) as its literal value and
    compiles the callee once for each value it is called with: the New World's field accessor
    was compiled 23 times. The plain types are tried first, the literal ones only when the
    function does not compile without them (a tuple indexed by an argument)."""
    from numba.core import errors, types

    literal_call_template = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return literal_call_template(plain, plain_kws)
            except errors.TypingError:
                pass
        return literal_call_template(args, kws)

    dispatcher.get_call_template = get_call_template


def _decorator(options: dict[str, Any]) -> Callable[[Callable[..., Any]], Any]:
    def decorate(py_func: Callable[..., Any]) -> Any:
        if _jit_disabled():
            return py_func  # as numba.njit does under NUMBA_DISABLE_JIT: plain Python, no wrapper
        return Jitted(py_func, options)

    return decorate


kernel = _decorator(KERNEL)
inline = _decorator(INLINE)
leaf = _decorator(LEAF)
closure = _decorator(CLOSURE)


# Borrowed views. Inside a compiled function Numba counts references on every array, an atomic
# increment and decrement for each inlined helper it enters and each loop that reads it: in the
# recruitment game that was half of a greedy game's time (perf: ``NRT_incref``/``NRT_decref``).
# A compiled entry point can instead work on views of its argument arrays that carry no count.


def borrowed(array: np.ndarray) -> np.ndarray:
    """``borrowed(a)``: in compiled code, a view of the array ``a`` (same data, shape and
    strides) without a memory owner, so Numba counts no references on it (each count is an
    atomic operation); called from Python (or with the JIT off), ``a`` itself.

    Only for the duration of a call that received ``a`` as an argument, or while ``a`` itself is
    still used afterwards: Numba frees an array after the last statement that names it, and a
    borrowed view does not keep it alive. Never return a borrowed view or keep it in a
    container."""
    return array


def _register_borrowed() -> None:
    """Teach Numba :func:`borrowed` (registered when Numba loads, before any kernel compiles)."""
    global _registered
    _registered = True
    from numba import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def _view_without_owner(typingctx, array):
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, sig, args):
            src = context.make_array(sig.args[0])(context, builder, args[0])
            view = context.make_array(sig.return_type)(context, builder)
            context.populate_array(
                view,
                data=src.data,
                shape=src.shape,
                strides=src.strides,
                itemsize=src.itemsize,
                meminfo=None,
            )
            return view._getvalue()

        return array(array), codegen

    # Not ``inline="always"``: inlined at Numba's IR level, the view took the counts back (greedy
    # 3.7e4 -> 1.8e4 games per CPU-second); as a call, LLVM inlines it anyway.
    @overload(borrowed)
    def _borrowed(array):
        if isinstance(array, types.Array):
            return lambda array: _view_without_owner(array)
        return None
