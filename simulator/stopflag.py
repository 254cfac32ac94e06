"""A stop flag that compiled search code reads between playouts, so that a signal takes effect
within a moment even inside one long search decision.

Python runs a signal handler only between bytecodes of the main thread: while that thread is
inside a compiled kernel (the engine's warm-up plays a first deal there, and a single mcts
decision of 100,000 iterations can take minutes) no handler runs at all. So:

- :func:`simulator.interrupts.install` points CPython's wakeup file
  descriptor at a pipe; the C-level signal handler writes a byte there at once, and a watcher
  thread (free to run: kernels release the GIL) sets the flag;
- the flag is one int64 (``interrupts.STOP``) whose address is registered with LLVM under
  :data:`SYMBOL`, so compiled code reads it as an external global, resolved when the code is
  linked, which keeps Numba's on-disk cache valid in every process;
- the agents (:mod:`simulator.agents.mcts`, :mod:`simulator.agents.rollout`) stop searching when
  it is set and play the best move found so far; a job whose kernel returned after the flag was
  set raises ``interrupts.Stopped`` (:func:`simulator.engine.run_range`), so a truncated search
  is never counted: the engine keeps only the jobs finished before the signal.

When the flag is clear (every run that is not interrupted) nothing changes: the same moves, the
same games.
"""

from __future__ import annotations

import ctypes

from simulator import interrupts
from simulator.jit import when_numba_loads

#: The flag's name in compiled code (versioned: the layout of what it names may change).
SYMBOL = "sim_stop_flag_v1"


def requested() -> bool:
    """Whether a stop was requested (in compiled code: one atomic load of the flag)."""
    return interrupts.stop_requested()


def _register() -> None:
    """Teach Numba :func:`requested` once it loads (``sim list`` and ``sim validate`` import
    the agents for their specs, and must not pay for llvmlite and Numba)."""
    import llvmlite.binding as llvm
    import llvmlite.ir as ir
    from numba import types
    from numba.extending import intrinsic, overload

    llvm.add_symbol(SYMBOL, ctypes.addressof(interrupts.STOP))

    @intrinsic
    def _load_flag(typingctx):
        def codegen(context, builder, sig, args):
            module = builder.module
            flag = module.globals.get(SYMBOL)
            if flag is None:
                flag = ir.GlobalVariable(module, ir.IntType(64), SYMBOL)
                flag.linkage = "external"
            # Atomic, so that LLVM reads memory every time (another thread writes it).
            value = builder.load_atomic(flag, ordering="monotonic", align=8)
            return builder.icmp_signed("!=", value, ir.Constant(ir.IntType(64), 0))

        return types.boolean(), codegen

    @overload(requested)
    def _requested():
        return lambda: _load_flag()


when_numba_loads(_register)
