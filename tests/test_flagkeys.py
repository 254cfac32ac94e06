"""simulator.flagkeys: Numba's compiler flags hashed, compared and listed by the cheap methods
exactly as by Numba's own, on flags as a compile sets them (options set, options left at their
defaults, flags of two classes)."""

from __future__ import annotations

import pytest

numba = pytest.importorskip("numba")

from numba.core import targetconfig  # noqa: E402
from numba.core.compiler import Flags  # noqa: E402

from simulator import flagkeys, jit  # noqa: E402


def _numba_values(flags: targetconfig.TargetConfig) -> dict:
    return {k: getattr(flags, k) for k in flags.options}


def _flag_sets() -> list[Flags]:
    plain = Flags()
    wrapped = Flags()
    wrapped.no_cpython_wrapper = True
    wrapped.no_cfunc_wrapper = True
    wrapped.error_model = "numpy"
    default_set = Flags()
    default_set.no_cpython_wrapper = False  # set, to its default value
    checked = Flags()
    checked.boundscheck = True
    return [plain, wrapped, default_set, checked]


def test_values_equality_and_hash_are_numbas() -> None:
    jit._load_numba()
    if not jit.tuned_for_this_numba():
        pytest.skip("the patch applies only on the Numba release it was written for")
    assert targetconfig.TargetConfig.__hash__ is flagkeys._hash
    flags = _flag_sets()
    for a in flags:
        assert a.values() == _numba_values(a)
        assert list(a.values()) == list(a.options)  # the option order, as Numba's
        assert hash(a) == hash(tuple(sorted(_numba_values(a))))
        for b in flags:
            assert (a == b) == (_numba_values(a) == _numba_values(b))
    # An option set to its default equals it left unset; a changed one does not.
    assert flags[0] == flags[2]
    assert flags[0] != flags[1] and flags[0] != flags[3]
    assert flags[0] != object()


def _compiled_during(call) -> list[str]:  # type: ignore[no-untyped-def]
    """The qualified names of the functions Numba compiles while ``call()`` runs."""
    from numba.core import event

    seen: list[str] = []

    class Listener(event.Listener):
        def on_start(self, ev):  # type: ignore[no-untyped-def]
            seen.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):  # type: ignore[no-untyped-def]
            pass

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        call()
    finally:
        event.unregister("numba:compile", listener)
    return seen


def test_a_helper_twin_and_its_kernel_share_an_overload() -> None:
    """A helper's twin (compiled without a Python entry) and the kernel calling it both call
    np.zeros with one signature: Numba's implementation is compiled once, not once per set of
    caller's flags (it is twice without flagkeys._get_impl)."""
    jit._load_numba()
    if not jit.tuned_for_this_numba():
        pytest.skip("the patch applies only on the Numba release it was written for")
    import numpy as np

    # A dtype nothing else in the suite asks np.zeros for, so the overload's cache starts empty.
    def helper(n):  # pragma: no cover - compiled
        return np.zeros(n, dtype=np.complex64).size

    twinned = jit.Jitted(helper, {"cache": False})

    @numba.njit(cache=False)
    def kernel(n):  # pragma: no cover - compiled
        return twinned(n) + np.zeros(n, dtype=np.complex64).size

    seen = _compiled_during(lambda: kernel(3))
    assert any(q.endswith("helper.compiled") for q in seen)  # the twin, with its own flags
    assert len([q for q in seen if "zeros" in q]) == 1


def test_a_compile_under_the_patch_reuses_overloads() -> None:
    """Overload lookups keyed by flags still hit: a function calling np.zeros twice with one
    signature compiles np.zeros once."""
    jit._load_numba()
    import numpy as np

    @numba.njit(cache=False)
    def twice(n):  # pragma: no cover - compiled
        return np.zeros(n, dtype=np.int64).sum() + np.zeros(n + 1, dtype=np.int64).sum()

    seen = _compiled_during(lambda: twice(3))
    assert twice(3) == 0
    assert len([q for q in seen if "zeros" in q]) <= 1
