"""Calling a designer's rolled-hits step (userstep.py) from the cached kernel, by its address.

The step is compiled in the running process into a C-callable function ``int64 step(int64 roll,
int64 cap, int64 attacking)``; the kernel reads its address from the packed row
(``P_STEP_ADDRESS``, written by the procedure that runs a scenario with a user step, in the
process that runs it) and calls it through :func:`call_step`. So the built-in kernel stays
compiled once and cached on disk.

:func:`call_step` is a plain function to Python; in compiled code it is an indirect call, made
an overload when Numba loads (as :func:`simulator.jit.borrowed` is), so that importing the game
for ``sim list`` loads no Numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.jit import when_numba_loads


def call_step(address: Any, roll: Any, cap: Any, attacking: Any) -> int:
    """In compiled code: the step at ``address`` called on three int64 values."""
    raise NotImplementedError("call_step runs in compiled code only")


def _register() -> None:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def _indirect(typingctx: Any, address: Any, roll: Any, cap: Any, attacking: Any) -> Any:
        sig = types.int64(types.int64, types.int64, types.int64, types.int64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            addr, *values = args
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(i64, [i64, i64, i64])
            fn = builder.inttoptr(addr, fnty.as_pointer())
            return builder.call(fn, values)

        return sig, codegen

    @overload(call_step, jit_options={"nogil": True})
    def _call_step(address: Any, roll: Any, cap: Any, attacking: Any) -> Any:
        def impl(address: Any, roll: Any, cap: Any, attacking: Any) -> Any:
            return _indirect(  # type: ignore[call-arg]
                np.int64(address), np.int64(roll), np.int64(cap), np.int64(attacking)
            )

        return impl


when_numba_loads(_register)
