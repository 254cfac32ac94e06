"""The decision context of the council game: where every choice and chance word of a phase goes.

Every choice of the game is made deep inside the phases (``choose``, ``pick``, the acting-order lot
``draw``, the tipping bid ``tip_bid``), and every one of them receives the trial stream ``st``. The
game interface (:mod:`.interface`) plays "resume by replay": its state keeps the position at the
start of the current phase, and a *script* of every value the hooks returned since. ``st`` is then
the whole interface state viewed as ``uint64`` (``st[X_RNG]`` is the stream word, so ``next_word``
works on it unchanged), and the hooks run in one of three modes:

- ``PLAIN`` (the trial kernel when every seat is random or greedy): the rules as they always were,
  reading the trial stream; ``st`` may be a short array (``CTX`` words);
- ``REPLAY``: return the next scripted value while the script lasts; after it, a seat whose agent
  searches (rollout, mcts) makes the game *pending* on its decision (the position is copied to the
  ``CUR`` region, the rest of the phase is played out cheaply and thrown away); any other seat, and
  chance, decide by the old rules on the stream in ``st[X_RNG]`` and the value is recorded;
- ``DISCARD``: the rest of a phase after a pending decision: every hook returns 0 (always legal:
  move 0 is the first of any list) and reads no word, so the stream stays at the decision.

A tag is kept beside each scripted value: who decided (``CHANCE`` for lots) and, for a spending
choice, where the Mercenary kinds start in the move list (``determinize`` resamples the kinds an
opponent bought: they are hidden).
"""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel, leaf
from simulator.layout import Layout
from simulator.procedures.council.game.params import (
    MAX_MOVES,
)
from simulator.procedures.council.game.state import (
    DONE,
    POLICY,
    POSITION_SIZE,
    SCORES,
)
from simulator.rng import low32, next_word

#: The interface state (:mod:`.interface`; the trial kernel's context is its first ``CTX``
#: words): a header (``X_*``; ``X_RNG`` holds uint64 bits), the script of the values the hooks
#: returned since the phase began and their tags, the packed params row (float64 bits), and three
#: positions (:data:`.state.POSITION`): at the start of the current phase (``SNAP``), where the
#: phase is replayed (``WORK``) and at the pending decision (``CUR``); then greedy's scores of the
#: pending decision's moves.
HEADER = (
    "rng",
    "mode",
    "script_position",
    "script_length",
    "pending_seat",
    "pending_moves",
    "over",
    "turn",
    "phase",
    "clamps",
    "overflow",
    "check",
    "pending_tag",
    "pending_best",
    "window",
)
MAX_SCRIPT = 1024
ROW_WORDS = 512
CTX = 16
INTERFACE = Layout(
    *HEADER,
    ("spare", CTX - len(HEADER)),
    ("script", MAX_SCRIPT),
    ("tags", MAX_SCRIPT),
    ("row", ROW_WORDS),
    ("snap", POSITION_SIZE),
    ("work", POSITION_SIZE),
    ("cur", POSITION_SIZE),
    ("pending_scores", MAX_MOVES),
)
(
    X_RNG,
    X_MODE,
    X_POS,
    X_LEN,
    X_PEND_SEAT,
    X_PEND_N,
    X_OVER,
    X_TURN,
    X_PHASE,
    X_CLAMPS,
    X_OVERFLOW,
    X_CHECK,
    X_PEND_TAG,
    X_PEND_BEST,
    X_WINDOW,
) = (INTERFACE.at(name) for name in HEADER)
PLAIN, REPLAY, DISCARD = 0, 1, 2
#: Policy codes at or above this decide through the game interface (rollout 2, mcts 3).
SEARCH = 2
#: The seat of a chance value in a script tag.
CHANCE = 15

SCRIPT = INTERFACE.at("script")
TAGS = INTERFACE.at("tags")
ROW0 = INTERFACE.at("row")  # the packed params row (float64 bits), for setup
SNAP = INTERFACE.at("snap")  # the position at the start of the current phase
WORK = INTERFACE.at("work")  # where the phase is replayed
CUR = INTERFACE.at("cur")  # the position at the pending decision (or the end)
PEND_SCORES = INTERFACE.at("pending_scores")  # greedy's scores of the pending decision's moves
STATE_SIZE = INTERFACE.size


@leaf
def raw_pick(context, n):
    """A uniform index below n from the stream; reads a word only when there is a choice."""
    if n <= 1:
        return np.int64(0)
    return np.int64((low32(next_word(context)) * np.uint64(n)) >> np.uint64(32))


@kernel
def legacy_choose(context, state, p, n, scratch):
    """The random and greedy rungs as they always were: random uniformly, greedy by best score,
    ties by lot."""
    if state[POLICY + p] == 0:
        return raw_pick(context, n)
    best = scratch[SCORES]
    for i in range(1, n):
        best = max(best, scratch[SCORES + i])
    nbest = 0
    for i in range(n):
        if scratch[SCORES + i] == best:
            nbest += 1
    k = raw_pick(context, nbest)
    for i in range(n):
        if scratch[SCORES + i] == best:
            if k == 0:
                return np.int64(i)
            k -= 1
    return np.int64(0)


@leaf
def scripted(context):
    """Whether a scripted value is left to replay."""
    return context[X_POS] < context[X_LEN]


@leaf
def wants_scores(context, state, p):
    """Whether p's moves need greedy's scores now: a greedy seat's, and a searching seat's at
    its pending decision (its playouts' default move, :func:`.interface.default_move`); never
    for a scripted value or a discarded phase."""
    policy = state[POLICY + p]
    if policy == 0:
        return False
    mode = np.int64(context[X_MODE])
    if mode == DISCARD or (mode == REPLAY and scripted(context)):
        return False
    return policy == 1 or mode == REPLAY


@kernel
def first_best(n, scratch):
    """The first of the best-scored moves among n."""
    b = np.int64(0)
    for i in range(1, n):
        if scratch[SCORES + i] > scratch[SCORES + b]:
            b = i
    return b


@kernel
def expose(context, p, n, tag, best, scratch):
    """Make the game pending on seat p's decision among n (``tag``: its script tag, see
    :func:`choose_tagged`; ``best``: greedy's choice, the playouts' default move; ``score``:
    greedy's scores of the n moves, kept for :func:`.interface.move_values`): keep the
    position, discard the rest of the phase."""
    for i in range(n):
        context[PEND_SCORES + i] = np.uint64(scratch[SCORES + i])
    context[X_PEND_SEAT] = p
    context[X_PEND_N] = n
    context[X_PEND_TAG] = tag
    context[X_PEND_BEST] = best
    context[CUR : CUR + POSITION_SIZE] = context[WORK : WORK + POSITION_SIZE]
    # The rest of the phase is thrown away: ending it early only saves time.
    context[WORK + DONE] = 1
    context[X_MODE] = DISCARD


@kernel
def record(context, v, tag):
    """Append a value to the script (a full script ends the replay: counted in X_OVERFLOW)."""
    k = np.int64(context[X_LEN])
    if k >= MAX_SCRIPT:
        context[X_OVERFLOW] += np.uint64(1)
        context[WORK + DONE] = 1
        context[X_MODE] = DISCARD
        return
    context[SCRIPT + k] = np.uint64(v)
    context[TAGS + k] = np.uint64(tag)
    context[X_LEN] = np.uint64(k + 1)
    context[X_POS] = np.uint64(k + 1)


@leaf
def next_scripted(context, n):
    """The next scripted value as an index below n (clamped: a resampled hidden card can shorten
    a list an opponent chose from, or change which hook reads a value, a lot's raw word then
    read as a choice; counted in X_CLAMPS)."""
    k = np.int64(context[X_POS])
    context[X_POS] = np.uint64(k + 1)
    v = np.int64(context[SCRIPT + k])
    if v >= n or v < 0:
        context[X_CLAMPS] += np.uint64(1)
        return n - 1
    return v


@kernel
def choose_tagged(context, state, p, n, scratch, first_merc):
    """Index of p's chosen move among n (``first_merc``: index of the first Mercenary kind in a
    spending list, else -1)."""
    mode = np.int64(context[X_MODE])
    if mode == PLAIN:
        return legacy_choose(context, state, p, n, scratch)
    if n <= 1 or mode == DISCARD:
        return np.int64(0)
    if scripted(context):
        return next_scripted(context, n)
    tag = p + 16 * (first_merc + 1)
    if state[POLICY + p] >= SEARCH:
        expose(context, p, n, tag, first_best(n, scratch), scratch)
        return np.int64(0)
    i = legacy_choose(context, state, p, n, scratch)
    record(context, i, tag)
    return i


@leaf
def choose(context, state, p, n, scratch):
    """Index of p's chosen move among n (module docstring for the modes)."""
    return choose_tagged(context, state, p, n, scratch, -1)


@kernel
def pick(context, n):
    """A lot: a uniform index below n; reads a word only when there is a choice."""
    mode = np.int64(context[X_MODE])
    if mode == PLAIN:
        return raw_pick(context, n)
    if n <= 1 or mode == DISCARD:
        return np.int64(0)
    if scripted(context):
        return next_scripted(context, n)
    i = raw_pick(context, n)
    record(context, i, CHANCE)
    return i


@kernel
def draw(context):
    """A raw random word (the acting order's lot keys)."""
    mode = np.int64(context[X_MODE])
    if mode == PLAIN:
        return next_word(context)
    if mode == DISCARD:
        return np.uint64(0)
    if scripted(context):
        k = np.int64(context[X_POS])
        context[X_POS] = np.uint64(k + 1)
        return context[SCRIPT + k]
    w = next_word(context)
    record(context, w, CHANCE)
    return w


@kernel
def tip_bid(context, state, scratch, q, top_bid):
    """Tokens q discards from a Land to tip its neutral Head (0..top_bid): random uniformly,
    greedy 1 if it can, a searching seat by its agent."""
    mode = np.int64(context[X_MODE])
    if mode == PLAIN:
        return raw_pick(context, top_bid + 1) if state[POLICY + q] == 0 else min(top_bid, 1)
    if top_bid <= 0 or mode == DISCARD:
        return np.int64(0)
    if scripted(context):
        return next_scripted(context, top_bid + 1)
    if state[POLICY + q] >= SEARCH:
        # Greedy bids 1 when it can: scored 1, every other bid 0.
        best = min(top_bid, 1)
        for i in range(top_bid + 1):
            scratch[SCORES + i] = 1 if i == best else 0
        expose(context, q, top_bid + 1, q, best, scratch)
        return np.int64(0)
    v = raw_pick(context, top_bid + 1) if state[POLICY + q] == 0 else min(top_bid, 1)
    record(context, v, q)
    return v
