"""Numba's IR-level inlining (``inline="always"``: :data:`simulator.jit.LEAF` and ``CLOSURE``)
made linear in the size of what it pastes.

At each call site Numba's ``InlineWorker.inline_ir`` copies the callee's IR block by block, each
block with ``copy.deepcopy`` and a memo of its own. Every variable of a block refers to the
function's scope, and the scope to every variable of the function, so each block's copy copies
the whole function's variables again: a callee of ``b`` blocks and ``v`` variables costs
``b * v`` copies, twice (the IR it pastes and a copy it returns, which no caller reads). For a
callee that is itself a paste of pasted helpers (the recruitment game's greedy lookahead) that
was most of the game's compile: 63 million ``deepcopy`` calls, two thirds of it under a profiler.

:func:`install` hands that module a stand-in for :mod:`copy` whose ``deepcopy`` copies the
blocks of one function with one memo: the scope and its variables are copied once per paste,
and the copy shares them between its blocks as the original does (the interpreter gives every
use of a name the same variable). The pasted code is the same IR as before.
"""

from __future__ import annotations

import copy
from typing import Any


class _OneMemoPerFunction:
    """``copy`` as ``numba.core.inline_closurecall`` uses it, except that consecutive
    ``deepcopy(block)`` calls for the blocks of one function share their memo. A new function
    starts a new memo: a block of another scope, or a block already copied in this one (the
    same function copied again)."""

    def __init__(self, block_type: Any) -> None:
        self._block_type = block_type
        self._scope: Any = None
        self._memo: dict[int, Any] | None = None

    def deepcopy(self, x: Any, memo: dict[int, Any] | None = None) -> Any:
        if memo is not None or not isinstance(x, self._block_type):
            return copy.deepcopy(x, memo)
        block: Any = x
        if self._memo is None or block.scope is not self._scope or id(x) in self._memo:
            self._scope = block.scope
            self._memo = {}
        return copy.deepcopy(x, self._memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def install() -> None:
    """Give Numba's inliner the one-memo copy (once Numba is loaded, before any compile).

    Numba compiles under its global compiler lock, so one memo at a time is enough."""
    from numba.core import inline_closurecall, ir

    if not isinstance(inline_closurecall.copy, _OneMemoPerFunction):
        inline_closurecall.copy = _OneMemoPerFunction(ir.Block)  # type: ignore[assignment]
