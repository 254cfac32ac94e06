"""The dice a designer's procedure draws: ``dice.d(6)``, ``dice.roll(3, 6)``, ...

Inside ``sim`` they read the counter-based generator (:mod:`simulator.rng`): the ``k``-th draw of
trial ``t`` is word ``k`` of that trial (``word(key, t, k)``; after ``STRIDE`` words, the trial's
own SplitMix64 stream), the low 32 bits making a die face as the built-in kernels do. So every
variant of a scenario rolls the same dice in the same order (common random numbers), and a result
depends only on the seed and the trial indices.

``API`` lists the methods; :class:`Dice` is the same dice in plain Python (the twin the tests
compare with, and what a designer's function gets when it is called outside ``sim``).
In compiled code the method calls are rewritten to the functions below, on a state array
``[key, trial, draws so far, ...]`` (:data:`STATE_SIZE` words) (:mod:`simulator.userfiles.rewrite`).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import inline, leaf, when_numba_loads
from simulator.rng import GAMMA, STRIDE, die_of, low32, mix64, trial_state, word

#: The dice API: method, its arguments and what it gives (shown in docs and in errors).
API: dict[str, str] = {
    "d": "d(sides): one die, a face 1..sides",
    "roll": "roll(n, sides): the total of n dice",
    "count": "count(n, sides, at_least): how many of n dice show at_least or more (one draw)",
    "below": "below(n): a whole number 0..n-1, each equally likely",
    "uniform": "uniform(): a float in [0, 1)",
    "part": "part(k): the draws after it come from part k of the trial's words (k = 0..15), so "
    "a variant that rolls more dice before it still rolls the same dice after it",
    "chance": "chance(p): True with probability p",
}
#: Arguments each method takes (a call with another count is refused at its line).
ARITY = {"d": 1, "roll": 2, "count": 3, "below": 1, "uniform": 0, "chance": 1, "part": 1}
#: Words of one part (``dice.part(k)`` starts at word ``k * PART``), and the parts.
PART = 256
PARTS = 16

#: Sides a die may have: 1 .. 2**32 (a face is the top bits of a 32-bit word times the sides).
MAX_SIDES = 2**32

_STRIDE = int(STRIDE)
_TWO53 = 1.0 / 9007199254740992.0


@inline
def word_at(key, trial, j):
    """Word ``j`` of trial ``trial`` (its own SplitMix64 stream after ``STRIDE`` words)."""
    if j < STRIDE:
        return word(key, np.int64(trial), np.int64(j))
    return mix64(trial_state(key, np.int64(trial)) + (j - STRIDE + np.uint64(1)) * GAMMA)


@inline
def draw(state):
    """The next random word of the trial in ``state`` = [key, trial, draws so far]."""
    j = state[2]
    state[2] = j + np.uint64(1)
    return word_at(state[0], state[1], j)


@inline
def dice_d(state, sides):
    if sides < 1 or sides > MAX_SIDES:
        raise ValueError("dice: a die has 1 to 2**32 sides")
    return die_of(low32(draw(state)), np.int64(sides))


@inline
def dice_roll(state, n, sides):
    if sides < 1 or sides > MAX_SIDES or n < 0:
        raise ValueError("dice.roll(n, sides): n >= 0 dice of 1 to 2**32 sides")
    total = np.int64(0)
    for _ in range(n):
        total += die_of(low32(draw(state)), np.int64(sides))
    return total


#: Counts of up to this many dice read a table of thresholds (one draw, a few comparisons);
#: the dice beyond it are rolled one by one.
TABLE = 64
#: Tables kept per trial state (a procedure rarely counts more kinds of roll than this).
SLOTS = 4
#: A slot: dice, faces that count, sides, then the thresholds T[0..TABLE].
SLOT = 3 + TABLE + 1
#: The state array: key, trial, draws so far, a spare word, the slots.
HEAD = 4
STATE_SIZE = HEAD + SLOTS * SLOT
_TOP = np.uint64(2**64 - 1)


@inline
def _fill(state, at, n, faces, sides):
    """Thresholds ``T[k] = floor(2**64 * P(fewer than k of n dice count))`` at ``state[at+3:]``,
    padded with 2**64 - 1 up to :data:`TABLE` (``0 <= faces <= sides``, ``0 <= n <= TABLE``)."""
    state[at] = np.uint64(n)
    state[at + 1] = np.uint64(faces)
    state[at + 2] = np.uint64(sides)
    for k in range(TABLE + 1):
        state[at + 3 + k] = _TOP
    if faces >= sides:  # every die counts
        for k in range(n + 1):
            state[at + 3 + k] = np.uint64(0)
        return
    state[at + 3] = np.uint64(0)
    if faces == 0:  # none does
        return
    p = faces / np.float64(sides)
    q = 1.0 - p
    pmf = 1.0
    for _ in range(n):
        pmf *= q
    below = 0.0
    for k in range(n + 1):
        scaled = below * 18446744073709551616.0
        state[at + 3 + k] = _TOP if scaled >= 18446744073709551615.0 else np.uint64(scaled)
        below += pmf
        pmf = pmf * (p / q) * (n - k) / (k + 1)


#: The symbol of :func:`_fill` compiled once as a C function (:func:`ensure_fill`): a count
#: calls it out of line. Pasted into the count (as it was), its float loop cost every count
#: twice its time even when the thresholds were already there (35 ns a count, 13 out of line).
FILL_SYMBOL = "sim_userfiles_dice_fill_1"
_fill_address: list[int] = []


def fill_out_of_line(state, at, n, faces, sides):
    """In compiled code: :func:`_fill` called through :data:`FILL_SYMBOL` (not inlined)."""
    _fill(state, at, n, faces, sides)


def ensure_fill() -> None:
    """Compile :func:`_fill` as a C function and give its address the symbol a count calls, in
    this process, before a kernel that counts is compiled or read from the cache."""
    if _fill_address:
        return
    from llvmlite import binding
    from numba import carray, cfunc, types

    signature = types.void(
        types.CPointer(types.uint64), types.int64, types.int64, types.int64, types.int64
    )

    def fill(pointer, at, n, faces, sides):
        _fill(carray(pointer, (at + SLOT,)), at, n, faces, sides)

    compiled = cfunc(signature, nogil=True, cache=True, error_model="numpy")(fill)
    address = int(compiled.address or 0)
    binding.add_symbol(FILL_SYMBOL, address)
    _fill_address.append(address)


def _register() -> None:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic, overload

    @intrinsic
    def _call(typingctx, state, at, n, faces, sides):
        sig = types.none(state, types.int64, types.int64, types.int64, types.int64)

        def codegen(context, builder, signature, args):
            array = context.make_array(signature.args[0])(context, builder, args[0])
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(ir.VoidType(), [i64.as_pointer(), i64, i64, i64, i64])
            fn = cgutils.get_or_insert_function(builder.module, fnty, FILL_SYMBOL)
            builder.call(fn, [builder.bitcast(array.data, i64.as_pointer()), *args[1:]])
            return context.get_dummy_value()

        return sig, codegen

    @overload(fill_out_of_line, jit_options={"nogil": True})
    def _fill_out_of_line(state, at, n, faces, sides):
        def impl(state, at, n, faces, sides):
            _call(state, np.int64(at), np.int64(n), np.int64(faces), np.int64(sides))

        return impl

    @intrinsic
    def _sixteen(typingctx, state, first, u):
        sig = types.int64(state, types.int64, types.uint64)

        def codegen(context, builder, signature, args):
            array = context.make_array(signature.args[0])(context, builder, args[0])
            i64 = ir.IntType(64)
            vector = ir.VectorType(i64, 16)
            start = builder.gep(builder.bitcast(array.data, i64.as_pointer()), [args[1]])
            words = builder.load(builder.bitcast(start, vector.as_pointer()), align=8)
            splat = builder.insert_element(ir.Constant(vector, None), args[2], ir.Constant(i64, 0))
            zeros = ir.Constant(ir.VectorType(ir.IntType(32), 16), [0] * 16)
            splat = builder.shuffle_vector(splat, splat, zeros)
            below = builder.icmp_unsigned("<=", words, splat)
            bits = builder.bitcast(below, ir.IntType(16))
            return builder.zext(builder.ctpop(bits), i64)

        return sig, codegen

    @overload(sixteen_at_or_below, jit_options={"nogil": True})
    def _sixteen_at_or_below(state, first, u):
        def impl(state, first, u):
            return _sixteen(state, np.int64(first), np.uint64(u))

        return impl


def sixteen_at_or_below(state, first, u):
    """How many of ``state[first : first + 16]`` are at most ``u``. In compiled code: the 16
    words compared at once (one load and compare of a vector, its bits counted): where 16
    scalar comparisons were 32 instructions of every count."""
    return sum(int(w) <= int(u) for w in state[first : first + 16])


# After every name _register's overloads refer to: with Numba already loaded it runs at once.
when_numba_loads(_register)


@leaf
def dice_count(state, site, n, sides, at_least):
    """How many of ``n`` dice show ``at_least`` or more. The first :data:`TABLE` dice read one
    word (always one, even for no dice), inverted through the binomial distribution of that
    count (the distribution of rolling the dice one by one, to within float64 rounding,
    2**-50): more dice from the same word give at
    least as many, so a variant that adds dice is measured on shared streams with the least
    noise; dice beyond them are rolled one by one. The thresholds are kept in the state: call
    site ``site`` (numbered by the rewrite) has its own slot, filled again when its dice
    change. One return and no call: an early return here made the trial three times slower.
    Pasted into the trial at Numba's level (``leaf``): called, it cost the state array's
    reference count (two atomic operations) and a call of 8 arguments each time, a third of the
    field battle's trial, and its constant arguments (the site, the sides) were not folded."""
    n = np.int64(n)
    sides = np.int64(sides)
    if sides < 1 or sides > MAX_SIDES or n < 0:
        raise ValueError("dice.count(n, sides, at_least): n >= 0 dice of 1 to 2**32 sides")
    dice = min(max(n, np.int64(0)), np.int64(TABLE))
    faces = min(max(sides - max(np.int64(at_least), np.int64(1)) + 1, np.int64(0)), sides)
    faces = max(faces, np.int64(0))
    own = HEAD + (site % SLOTS) * SLOT
    # The draw's counter, key and trial read before the fill and the counter stored after it:
    # the fill (a call that may write any of the state) then stands between no store and its
    # load, so the compiler keeps them in registers (the count's draw index a constant).
    j = state[2]
    key = state[0]
    trial = state[1]
    same = state[own] == np.uint64(dice) and state[own + 1] == np.uint64(faces)
    if not (same and state[own + 2] == np.uint64(sides)):
        fill_out_of_line(state, own, dice, faces, max(sides, np.int64(0)))
    state[2] = j + np.uint64(1)
    u = word_at(key, trial, j)
    # 16 comparisons at once, as one vector (the padding never counts but for the one word
    # 2**64 - 1, hence the min) and no early exit: no branch to mispredict.
    # More dice: a branch-free binary search of the thresholds, which never decrease (the same
    # count: 48 ns for 30 dice where the comparisons took 71, 43 for 10 where it takes 50).
    first = own + 4
    k = np.int64(0)
    if dice <= 16:
        k = sixteen_at_or_below(state, first, u)
    else:
        before = own + 3  # T[j] is state[before + j]
        for step in (32, 16, 8, 4, 2, 1):
            k += step * np.int64(u >= state[before + k + step])
        k += np.int64(u >= state[before + k + 1])  # the steps reach 63: T[64] decides 64
    k = min(k, dice)
    if n > TABLE:  # the dice beyond the table, one by one (after the table's word)
        for _ in range(n - TABLE):
            k += np.int64(die_of(low32(draw(state)), sides) >= at_least)
    return k


@inline
def dice_below(state, n):
    if n < 1 or n > MAX_SIDES:
        raise ValueError("dice.below(n): n is 1 to 2**32")
    return die_of(low32(draw(state)), np.int64(n)) - 1


@inline
def dice_uniform(state):
    return np.float64(draw(state) >> np.uint64(11)) * _TWO53


@inline
def dice_chance(state, p):
    return np.float64(draw(state) >> np.uint64(11)) * _TWO53 < p


@inline
def dice_part(state, k):
    if k < 0 or k >= PARTS:
        raise ValueError("dice.part(k): k is 0 to 15")
    state[2] = np.uint64(max(np.int64(k), np.int64(0)) * PART)
    return np.int64(0)


#: Method name -> compiled function (first argument the state array).
COMPILED = {
    "d": dice_d,
    "roll": dice_roll,
    "count": dice_count,
    "below": dice_below,
    "uniform": dice_uniform,
    "chance": dice_chance,
    "part": dice_part,
}

_MASK = (1 << 64) - 1


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _thresholds(n: int, faces: int, sides: int) -> list[int]:
    """:func:`_fill`'s thresholds ``T[0..TABLE]``, from its plain-Python function (the same
    float64 operations, so the same words count)."""
    slot = np.zeros(SLOT, dtype=np.uint64)
    getattr(_fill, "py_func", _fill)(slot, 0, n, faces, sides)
    return [int(t) for t in slot[3:]]


class DiceError(ValueError):
    """A dice call that has no answer (a die of 0 sides, -1 dice): an error at its line."""


def _check(method: str, ok: bool, why: str) -> None:
    if not ok:
        raise DiceError(f"dice.{method}: {why}")


class Dice:
    """The dice of one trial in plain Python: the same draws as the compiled ones, one by one."""

    def __init__(self, key: int = 0, trial: int = 0) -> None:
        self.key = int(key) & _MASK
        self.trial = int(trial)
        self.draws = 0

    def _word(self) -> int:
        j = self.draws
        self.draws += 1
        gamma = int(GAMMA)
        if j < _STRIDE:
            c = (self.trial * _STRIDE + j + 1) & _MASK
            return _mix((self.key + c * gamma) & _MASK)
        seed = _mix(self.key ^ _mix((self.trial + 1) & _MASK))
        return _mix((seed + (j - _STRIDE + 1) * gamma) & _MASK)

    def d(self, sides: int) -> int:
        _check("d", 1 <= sides <= MAX_SIDES, f"sides={sides}: a die has 1 to 2**32 sides")
        return (((self._word() & 0xFFFFFFFF) * int(sides)) >> 32) + 1

    def roll(self, n: int, sides: int) -> int:
        _check("roll", n >= 0, f"n={n}: a number of dice is 0 or more")
        _check("roll", 1 <= sides <= MAX_SIDES, f"sides={sides}: a die has 1 to 2**32 sides")
        return sum(self.d(sides) for _ in range(int(n)))

    def count(self, n: int, sides: int, at_least: int) -> int:
        _check("count", n >= 0, f"n={n}: a number of dice is 0 or more")
        _check("count", 1 <= sides <= MAX_SIDES, f"sides={sides}: a die has 1 to 2**32 sides")
        n, sides = int(n), int(sides)
        dice = min(max(n, 0), TABLE)
        faces = max(min(max(sides - max(int(at_least), 1) + 1, 0), sides), 0)
        table = _thresholds(dice, faces, max(sides, 0))
        u = self._word()
        k = min(sum(u >= t for t in table[1:]), dice)
        return k + sum(self.d(sides) >= at_least for _ in range(n - TABLE))

    def part(self, k: int) -> int:
        _check("part", 0 <= k < PARTS, f"k={k}: a part is 0 to {PARTS - 1}")
        self.draws = max(int(k), 0) * PART
        return 0

    def below(self, n: int) -> int:
        _check("below", 1 <= n <= MAX_SIDES, f"n={n}: a choice among 1 to 2**32 numbers")
        return self.d(n) - 1

    def uniform(self) -> float:
        return (self._word() >> 11) * _TWO53

    def chance(self, p: float) -> bool:
        return self.uniform() < p
