"""Calling a designer's compiled rule step from the cached kernel, by its address.

A designer's ownership check (userstep.py) is compiled in the running process into a C-callable
function ``int64 step(int64 *loyalty, int64 *tokens, int64 players, int64 owner)``; the kernel
reads its address from the game's state (``H_STEP_ADDRESS``, written into the packed rows by
the procedure that runs a scenario with a user step, in the process that runs them) and calls it
through :func:`call_step`. So the built-in kernel and its agents stay compiled once and cached
on disk, and a user step costs the compile of its own few lines, not of the game.

:func:`call_step` is a plain function to Python; in compiled code it is an indirect call, made
an overload when Numba loads (as :func:`simulator.jit.borrowed` is), so that importing the game
for ``sim list`` loads no Numba.
"""

from __future__ import annotations

from typing import Any

from simulator.jit import when_numba_loads


def call_step(address: Any, loyalty: Any, tokens: Any, owner: Any) -> int:
    """In compiled code: the step at ``address`` called on the data of the int64 arrays
    ``loyalty`` and ``tokens`` (one entry per seat), their length and ``owner``."""
    raise NotImplementedError("call_step runs in compiled code only")


def _register() -> None:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic, overload

    @intrinsic
    def _indirect(typingctx: Any, address: Any, loyalty: Any, tokens: Any, owner: Any) -> Any:
        sig = types.int64(types.int64, loyalty, tokens, types.int64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            addr, loyalty_value, tokens_value, owner_value = args
            loyalty_array = context.make_array(signature.args[1])(context, builder, loyalty_value)
            tokens_array = context.make_array(signature.args[2])(context, builder, tokens_value)
            n = builder.extract_value(loyalty_array.shape, 0)
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(i64, [i64.as_pointer(), i64.as_pointer(), i64, i64])
            fn = builder.inttoptr(addr, fnty.as_pointer())
            return builder.call(fn, [loyalty_array.data, tokens_array.data, n, owner_value])

        return sig, codegen

    @overload(call_step, jit_options={"nogil": True})
    def _call_step(address: Any, loyalty: Any, tokens: Any, owner: Any) -> Any:
        def impl(address: Any, loyalty: Any, tokens: Any, owner: Any) -> Any:
            return _indirect(address, loyalty, tokens, owner)  # type: ignore[call-arg]

        return impl


when_numba_loads(_register)
