"""A designer's own rolled-hits step, from their Python file (``rolled_hits: file.py:NAME``).

The step is one function, the rule of Root rules §1.5 that turns a side's die into its rolled
hits (each warrior deals at most one hit: the built-in step is ``min(roll, cap)``)::

    def NAME(roll, cap, attacking):
        # roll: the die this side took (0..3: the attacker the higher, the defender the lower,
        # a defending Alliance the higher); cap: its hit cap (its warriors in the clearing,
        # mercenaries included; a Vagabond: its undamaged swords plus allied warriors);
        # attacking: 1 for the attacker, 0 for the defender.
        return min(roll, cap)   # the rolled hits it deals (a negative number counts as 0)

Extra hits (a defenceless defender's, cards, a Corvid plot) are added after it, as in the
rulebook. The step is compiled with Numba and made C-callable (:mod:`simulator.userfiles.steps`);
the cached kernel calls it by address (steps.py). ``sim exact`` enumerates the rolls with the
designer's plain Python function (exact.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simulator.procedures.base import Params, Procedure

#: The signature a step has, as errors and docs show it.
SIGNATURE = "rolled_hits(roll, cap, attacking) -> int"
PARAMETERS = ("roll", "cap", "attacking")


def _spec() -> Any:
    from simulator.procedures.root.battle.params import P_STEP_ADDRESS, P_USER_STEP
    from simulator.userfiles.steps import StepSpec

    return StepSpec(
        field="rolled_hits",
        signature=SIGNATURE,
        params=PARAMETERS,
        numba_signature="int64(int64, int64, int64)",
        user_slot=P_USER_STEP,
        address_slot=P_STEP_ADDRESS,
        pack="simulator.procedures.root.battle.params:pack",
        kernel="simulator.procedures.root.battle.kernel:battle_kernel",
    )


def specialize(procedure: Procedure, variants: Sequence[Params]) -> Procedure:
    """The procedure that runs ``variants``: ``procedure`` itself when none names a step, else
    one that plays the designer's steps (compiled now: errors at the designer's line)."""
    if not any(getattr(p, "rolled_hits", None) for p in variants):
        return procedure
    from simulator.userfiles.steps import specialize as with_steps

    return with_steps(_spec(), procedure, variants)


def plain_step(ref: str) -> Any:
    """The designer's step as the plain Python function of their file (for exact values)."""
    from simulator.userfiles.loading import load_function, parse_ref

    return load_function(parse_ref(ref))
