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

from simulator.jit import inline, kernel
from simulator.procedures.council.game.params import (
    MAX_CARDS,
    MAX_LAWS,
    MAX_MOVES,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
)
from simulator.procedures.council.game.state import G_DONE, G_SIZE, N_CHAR_COLS, P_POLICY
from simulator.rng import low32, next_word

# Header of the interface state (int64 words; X_RNG holds uint64 bits).
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
) = range(15)
CTX = 16
PLAIN, REPLAY, DISCARD = 0, 1, 2
#: Policy codes at or above this decide through the game interface (rollout 2, mcts 3).
SEARCH = 2
#: The seat of a chance value in a script tag.
CHANCE = 15

MAX_SCRIPT = 1024
SCRIPT = CTX
TAGS = SCRIPT + MAX_SCRIPT

# One position: tok, pl, g, ch, land, law, card, flattened one after the other.
N_COL = N_LANDS + N_CHARS
O_TOK = 0
O_PL = O_TOK + MAX_PLAYERS * N_COL
O_G = O_PL + MAX_PLAYERS * 3
O_CH = O_G + G_SIZE
O_LAND = O_CH + N_CHARS * N_CHAR_COLS
O_LAW = O_LAND + N_LANDS * 4
O_CARD = O_LAW + MAX_LAWS * 6
POS_SIZE = O_CARD + MAX_CARDS * 6

ROW0 = TAGS + MAX_SCRIPT  # the packed params row (float64 bits), for setup
ROW_WORDS = 512
SNAP = ROW0 + ROW_WORDS  # the position at the start of the current phase
WORK = SNAP + POS_SIZE  # where the phase is replayed
CUR = WORK + POS_SIZE  # the position at the pending decision (or the end)
PEND_SCORES = CUR + POS_SIZE  # greedy's scores of the pending decision's moves
STATE_SIZE = PEND_SCORES + MAX_MOVES


@inline
def raw_pick(st, n):
    """A uniform index below n from the stream; reads a word only when there is a choice."""
    if n <= 1:
        return np.int64(0)
    return np.int64((low32(next_word(st)) * np.uint64(n)) >> np.uint64(32))


@kernel
def legacy_choose(st, pl, p, n, score):
    """The random and greedy rungs as they always were: random uniformly, greedy by best score,
    ties by lot."""
    if pl[p, P_POLICY] == 0:
        return raw_pick(st, n)
    best = score[0]
    for i in range(1, n):
        best = max(best, score[i])
    nbest = 0
    for i in range(n):
        if score[i] == best:
            nbest += 1
    k = raw_pick(st, nbest)
    for i in range(n):
        if score[i] == best:
            if k == 0:
                return np.int64(i)
            k -= 1
    return np.int64(0)


@inline
def scripted(st):
    """Whether a scripted value is left to replay."""
    return st[X_POS] < st[X_LEN]


@inline
def wants_scores(st, pl, p):
    """Whether p's moves need greedy's scores now: a greedy seat's, and a searching seat's at
    its pending decision (its playouts' default move, :func:`.interface.default_move`); never
    for a scripted value or a discarded phase."""
    policy = pl[p, P_POLICY]
    if policy == 0:
        return False
    mode = np.int64(st[X_MODE])
    if mode == DISCARD or (mode == REPLAY and scripted(st)):
        return False
    return policy == 1 or mode == REPLAY


@inline
def first_best(n, score):
    """The first of the best-scored moves among n."""
    b = np.int64(0)
    for i in range(1, n):
        if score[i] > score[b]:
            b = i
    return b


@kernel
def expose(st, p, n, tag, best, score):
    """Make the game pending on seat p's decision among n (``tag``: its script tag, see
    :func:`choose_tagged`; ``best``: greedy's choice, the playouts' default move; ``score``:
    greedy's scores of the n moves, kept for :func:`.interface.move_values`): keep the
    position, discard the rest of the phase."""
    for i in range(n):
        st[PEND_SCORES + i] = np.uint64(score[i])
    st[X_PEND_SEAT] = p
    st[X_PEND_N] = n
    st[X_PEND_TAG] = tag
    st[X_PEND_BEST] = best
    st[CUR : CUR + POS_SIZE] = st[WORK : WORK + POS_SIZE]
    # The rest of the phase is thrown away: ending it early only saves time.
    st[WORK + O_G + G_DONE] = 1
    st[X_MODE] = DISCARD


@kernel
def record(st, v, tag):
    """Append a value to the script (a full script ends the replay: counted in X_OVERFLOW)."""
    k = np.int64(st[X_LEN])
    if k >= MAX_SCRIPT:
        st[X_OVERFLOW] += np.uint64(1)
        st[WORK + O_G + G_DONE] = 1
        st[X_MODE] = DISCARD
        return
    st[SCRIPT + k] = np.uint64(v)
    st[TAGS + k] = np.uint64(tag)
    st[X_LEN] = np.uint64(k + 1)
    st[X_POS] = np.uint64(k + 1)


@inline
def next_scripted(st, n):
    """The next scripted value as an index below n (clamped: a resampled hidden card can shorten
    a list an opponent chose from, or change which hook reads a value, a lot's raw word then
    read as a choice; counted in X_CLAMPS)."""
    k = np.int64(st[X_POS])
    st[X_POS] = np.uint64(k + 1)
    v = np.int64(st[SCRIPT + k])
    if v >= n or v < 0:
        st[X_CLAMPS] += np.uint64(1)
        return n - 1
    return v


@kernel
def choose_tagged(st, pl, p, n, score, first_merc):
    """Index of p's chosen move among n (``first_merc``: index of the first Mercenary kind in a
    spending list, else -1)."""
    mode = np.int64(st[X_MODE])
    if mode == PLAIN:
        return legacy_choose(st, pl, p, n, score)
    if n <= 1 or mode == DISCARD:
        return np.int64(0)
    if scripted(st):
        return next_scripted(st, n)
    tag = p + 16 * (first_merc + 1)
    if pl[p, P_POLICY] >= SEARCH:
        expose(st, p, n, tag, first_best(n, score), score)
        return np.int64(0)
    i = legacy_choose(st, pl, p, n, score)
    record(st, i, tag)
    return i


@kernel
def choose(st, pl, p, n, score):
    """Index of p's chosen move among n (module docstring for the modes)."""
    return choose_tagged(st, pl, p, n, score, -1)


@kernel
def pick(st, n):
    """A lot: a uniform index below n; reads a word only when there is a choice."""
    mode = np.int64(st[X_MODE])
    if mode == PLAIN:
        return raw_pick(st, n)
    if n <= 1 or mode == DISCARD:
        return np.int64(0)
    if scripted(st):
        return next_scripted(st, n)
    i = raw_pick(st, n)
    record(st, i, CHANCE)
    return i


@kernel
def draw(st):
    """A raw random word (the acting order's lot keys)."""
    mode = np.int64(st[X_MODE])
    if mode == PLAIN:
        return next_word(st)
    if mode == DISCARD:
        return np.uint64(0)
    if scripted(st):
        k = np.int64(st[X_POS])
        st[X_POS] = np.uint64(k + 1)
        return st[SCRIPT + k]
    w = next_word(st)
    record(st, w, CHANCE)
    return w


@kernel
def tip_bid(st, pl, q, top_bid):
    """Tokens q discards from a Land to tip its neutral Head (0..top_bid): random uniformly,
    greedy 1 if it can, a searching seat by its agent."""
    mode = np.int64(st[X_MODE])
    if mode == PLAIN:
        return raw_pick(st, top_bid + 1) if pl[q, P_POLICY] == 0 else min(top_bid, 1)
    if top_bid <= 0 or mode == DISCARD:
        return np.int64(0)
    if scripted(st):
        return next_scripted(st, top_bid + 1)
    if pl[q, P_POLICY] >= SEARCH:
        # Greedy bids 1 when it can: scored 1, every other bid 0.
        best = min(top_bid, 1)
        score = np.zeros(top_bid + 1, dtype=np.int64)
        score[best] = 1
        expose(st, q, top_bid + 1, q, best, score)
        return np.int64(0)
    v = raw_pick(st, top_bid + 1) if pl[q, P_POLICY] == 0 else min(top_bid, 1)
    record(st, v, q)
    return v
