"""root.hirelings as a whole game: the state value and its rules (docs/agents.md, "The game
interface").

The state is ONE flat int64 array: a header, the rules copied from the packed params row (so the
agents need nothing else), the position (scores, holders, protections) and the metric counters
the kernel reads at the end. ``apply_move`` plays one purchase (or the pass) and then every
chance event and forced step (points, influence dice, Diplomat exhaustion, round end and its
scoring) up to the next decision. A decision exists only when the seat spending has at least
one legal purchase; the pass (stop spending: the rest is lost, never saved) is then legal too.

Move codes: ``(what * MAX_HIRELINGS + h) * MAX_SEATS + gift`` with ``what`` 0 take, 1 protect,
2 unprotect; ``gift`` is the enemy seat given the other Diplomat when taking a Diplomat (0
otherwise); :data:`PASS` stops spending.
"""

from __future__ import annotations

import numpy as np

from simulator.agents.spec import AGENT_ROW
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.root.influence import MAX_FACES
from simulator.rng import die_of, high32, low32, next_word

MAX_SEATS = 6
MAX_GAINS = 8
MAX_ROUNDS = 30
MAX_HIRELINGS = 6  # three hirelings + the Veteran or the two Diplomats
NORMAL, VETERAN, DIPLOMAT = 0, 1, 2
TAKE, PROTECT, UNPROTECT = 0, 1, 2
PASS = 3 * MAX_HIRELINGS * MAX_SEATS
#: Legal moves at most: 4 takes + 2 Diplomats x 5 gifts, 3 protects, 3 unprotects, the pass.
MAX_MOVES = 32

#: One seat's distribution of round points: ``n`` outcomes, their ``total`` weight, each
#: outcome's points and the cumulative weights (a draw below ``cumulative[k]`` scores
#: ``points[k]``).
GAIN = Layout("n", "total", ("points", MAX_GAINS), ("cumulative", MAX_GAINS))
GAIN_ROW = GAIN.size
GAIN_N, GAIN_TOTAL = GAIN.at("n"), GAIN.at("total")
GAIN_POINTS, GAIN_CUMULATIVE = GAIN.at("points"), GAIN.at("cumulative")

#: The state: a header (the rules' sizes and knobs, the position, the metric counters that are
#: one number), the rules copied from the packed row, the position, the per-seat counters.
STATE = Layout(
    "players",
    "rounds",
    "hirelings",
    "faces",
    "points",
    "round",
    "turn",
    "first",
    "seat",
    "influence",
    "rank",
    "over",
    "leader",
    "streak",
    "lead_changes",
    "changes",
    "protections",
    "catch_up",
    # Rules.
    ("cost", MAX_HIRELINGS),
    ("kind", MAX_HIRELINGS),
    ("protectable", MAX_HIRELINGS),
    ("face", MAX_FACES),
    ("behind", MAX_FACES),
    ("gain", MAX_SEATS * GAIN_ROW),
    # Position.
    ("score", MAX_SEATS),
    ("holder", MAX_HIRELINGS),
    ("protected", MAX_HIRELINGS),
    ("exhausted", MAX_HIRELINGS),
    # Metric counters: hireling-rounds per seat and per score rank, influence spent likewise.
    ("held", MAX_SEATS),
    ("held_rank", MAX_SEATS),
    ("spent", MAX_SEATS),
    ("spent_rank", MAX_SEATS),
)
H_PLAYERS, H_ROUNDS, H_NHIRE = STATE.at("players"), STATE.at("rounds"), STATE.at("hirelings")
H_NFACES, H_POINTS, H_ROUND = STATE.at("faces"), STATE.at("points"), STATE.at("round")
H_TURN, H_FIRST, H_SEAT = STATE.at("turn"), STATE.at("first"), STATE.at("seat")
H_INFLUENCE, H_RANK, H_OVER = STATE.at("influence"), STATE.at("rank"), STATE.at("over")
H_LEADER, H_STREAK = STATE.at("leader"), STATE.at("streak")
H_LEAD_CHANGES, H_CHANGES = STATE.at("lead_changes"), STATE.at("changes")
H_PROTECTIONS, H_CATCH_UP = STATE.at("protections"), STATE.at("catch_up")
S_COST, S_KIND, S_PROTECTABLE = STATE.at("cost"), STATE.at("kind"), STATE.at("protectable")
S_FACE, S_BEHIND, S_GAIN = STATE.at("face"), STATE.at("behind"), STATE.at("gain")
S_SCORE, S_HOLDER = STATE.at("score"), STATE.at("holder")
S_PROTECTED, S_EXHAUSTED = STATE.at("protected"), STATE.at("exhausted")
S_HELD, S_HELD_RANK = STATE.at("held"), STATE.at("held_rank")
S_SPENT, S_SPENT_RANK = STATE.at("spent"), STATE.at("spent_rank")
STATE_SIZE = STATE.size

#: The first metric of each family of the metric row, in ``metrics()`` order, by its slot name
#: (a per-seat or per-rank family runs over the seats from its first); where each starts depends
#: on the players, so ``pack`` writes the starts into the row (``first_metric``) from the metric
#: layout, and the kernel reads them there.
FAMILIES = Layout(
    "controlled_rounds_seat1",
    "controlled_rounds_rank1",
    "control_changes",
    "influence_spent_seat1",
    "influence_spent_rank1",
    "protections",
    "catch_up",
    "wins_seat1",
    "draws",
    "length",
    "lead_changes",
    "decided_at",
)

#: The packed params row (hirelings.params.pack): the knobs, the hirelings in play (``kind``:
#: ``protectable + 2 * kind``), the die, each seat's round points, the metric families' starts
#: and each seat's agent row (AGENT_ROW columns).
PACKED = Layout(
    "players",
    "rounds",
    "hireling_points",
    "hirelings",
    ("cost", MAX_HIRELINGS),
    ("kind", MAX_HIRELINGS),
    "faces",
    ("amount", MAX_FACES),
    ("face_behind", MAX_FACES),
    ("gain", MAX_SEATS * GAIN_ROW),
    ("first_metric", FAMILIES.size),
    ("agents", MAX_SEATS * AGENT_ROW),
)
P_PLAYERS, P_ROUNDS, P_POINTS = (
    PACKED.at("players"),
    PACKED.at("rounds"),
    PACKED.at("hireling_points"),
)
P_HIRELINGS, P_COST, P_KIND = PACKED.at("hirelings"), PACKED.at("cost"), PACKED.at("kind")
P_FACES, P_AMOUNT, P_FACE_BEHIND = PACKED.at("faces"), PACKED.at("amount"), PACKED.at("face_behind")
P_GAIN, P_FIRST_METRIC, P_AGENTS = PACKED.at("gain"), PACKED.at("first_metric"), PACKED.at("agents")


@inline
def uniform(rng, n):
    """A uniform integer in ``0 .. n-1`` from the next word of ``rng``'s low half."""
    return die_of(low32(next_word(rng)), n) - 1


@inline
def rank_of(s, seat):
    """Score rank of ``seat`` (1 = leader); ties go to the lower seat."""
    r = 1
    for o in range(s[H_PLAYERS]):
        if s[S_SCORE + o] > s[S_SCORE + seat] or (s[S_SCORE + o] == s[S_SCORE + seat] and o < seat):
            r += 1
    return r


@kernel
def copy_state(s):
    return s.copy()


@kernel
def to_move(s):
    return -1 if s[H_OVER] else s[H_SEAT]


@kernel
def is_over(s):
    return s[H_OVER] == 1


@kernel
def round_of(s):
    return s[H_ROUND]


@kernel
def n_seats(s):
    return s[H_PLAYERS]


@inline
def purchase_kind(s, h, seat, what):
    """Whether ``seat`` may make purchase ``what`` on hireling ``h`` with its influence."""
    influence = s[H_INFLUENCE]
    holder = s[S_HOLDER + h]
    mine = holder == seat
    free = holder < 0
    if what == TAKE:
        # The Veteran and the Diplomats cannot be taken while controlled.
        takeable = (free or (not mine and s[S_PROTECTED + h] == 0)) and (
            s[S_KIND + h] == NORMAL or free
        )
        return takeable and not mine and s[S_COST + h] <= influence
    if what == PROTECT:
        return mine and s[S_PROTECTABLE + h] == 1 and s[S_PROTECTED + h] == 0 and influence >= 1
    return (not mine) and (not free) and s[S_PROTECTED + h] == 1 and influence >= 1


@inline
def any_purchase(s):
    seat = s[H_SEAT]
    for h in range(s[H_NHIRE]):
        for what in range(3):
            if purchase_kind(s, h, seat, what):
                return True
    return False


@kernel
def legal_moves(s, out):
    """Every purchase the seat to move can make (Diplomat takes once per enemy gift), the pass."""
    seat = s[H_SEAT]
    players = s[H_PLAYERS]
    n = 0
    for h in range(s[H_NHIRE]):
        for what in range(3):
            if purchase_kind(s, h, seat, what):
                if what == TAKE and s[S_KIND + h] == DIPLOMAT:
                    for g in range(players):
                        if g != seat:
                            out[n] = (what * MAX_HIRELINGS + h) * MAX_SEATS + g
                            n += 1
                else:
                    out[n] = (what * MAX_HIRELINGS + h) * MAX_SEATS
                    n += 1
    out[n] = PASS
    return n + 1


@inline
def begin_turn(s, rng):
    """The seat's round points, then, at the end of its Evening, the influence dice."""
    seat = (s[H_FIRST] + s[H_TURN]) % s[H_PLAYERS]
    s[H_SEAT] = seat
    g = S_GAIN + seat * GAIN_ROW
    u = uniform(rng, s[g + GAIN_TOTAL])
    k = 0
    while u >= s[g + GAIN_CUMULATIVE + k]:
        k += 1
    s[S_SCORE + seat] += s[g + GAIN_POINTS + k]
    leader = 0
    for o in range(s[H_PLAYERS]):
        leader = max(leader, s[S_SCORE + o])
    behind = leader - s[S_SCORE + seat]
    x = next_word(rng)
    f1 = die_of(low32(x), s[H_NFACES]) - 1
    f2 = die_of(high32(x), s[H_NFACES]) - 1
    a1 = s[S_FACE + f1] if behind >= s[S_BEHIND + f1] else 0
    a2 = s[S_FACE + f2] if behind >= s[S_BEHIND + f2] else 0
    if s[H_PLAYERS] == 2:
        s[H_INFLUENCE] = a1 + a2
    elif s[H_PLAYERS] == 3:
        s[H_INFLUENCE] = max(a1, a2)
    else:
        s[H_INFLUENCE] = a1
    s[H_RANK] = rank_of(s, seat)


@inline
def begin_round(s):
    """Before the first player's turn the Veteran's holder takes the first-player card and the
    Veteran returns to the supply."""
    for h in range(s[H_NHIRE]):
        if s[S_KIND + h] == VETERAN and s[S_HOLDER + h] >= 0:
            s[H_FIRST] = s[S_HOLDER + h]
            s[S_HOLDER + h] = -1
    s[H_TURN] = 0


@inline
def end_turn(s):
    """Diplomats flip to exhausted at the end of their holder's Evening; both return to the
    supply once both are exhausted."""
    seat = s[H_SEAT]
    n_dip = 0
    n_exhausted = 0
    for h in range(s[H_NHIRE]):
        if s[S_KIND + h] == DIPLOMAT:
            n_dip += 1
            if s[S_HOLDER + h] == seat:
                s[S_EXHAUSTED + h] = 1
            n_exhausted += s[S_EXHAUSTED + h]
    if n_dip > 0 and n_exhausted == n_dip:
        for h in range(s[H_NHIRE]):
            if s[S_KIND + h] == DIPLOMAT:
                s[S_HOLDER + h] = -1
                s[S_EXHAUSTED + h] = 0


@inline
def end_round(s):
    """Who holds what; the INVENTED hireling scoring (``hireling_points`` per hireling held);
    the sole leader's streak."""
    players = s[H_PLAYERS]
    last = 0
    for o in range(players):
        held = held_by(s, o)
        s[S_HELD + o] += held
        s[S_HELD_RANK + rank_of(s, o) - 1] += held
        if s[S_SCORE + o] < s[S_SCORE + last]:
            last = o
    most = held_by(s, last)
    for o in range(players):
        if held_by(s, o) > most:
            most = -1
    if most > 0:
        s[H_CATCH_UP] += 1
    for o in range(players):  # holders are unchanged: counting came first
        s[S_SCORE + o] += s[H_POINTS] * held_by(s, o)
    leader = sole_leader(s)
    if leader != s[H_LEADER]:
        if leader >= 0 and s[H_LEADER] >= 0:
            s[H_LEAD_CHANGES] += 1
        s[H_STREAK] = s[H_ROUND]
        s[H_LEADER] = leader


@inline
def held_by(s, seat):
    """Hirelings ``seat`` controls now."""
    n = 0
    for h in range(s[H_NHIRE]):
        n += s[S_HOLDER + h] == seat
    return n


@inline
def sole_leader(s):
    """The seat alone at the top of the scores, or -1 on a tie."""
    best = -1
    seat = -1
    for o in range(s[H_PLAYERS]):
        if s[S_SCORE + o] > best:
            best = s[S_SCORE + o]
            seat = o
        elif s[S_SCORE + o] == best:
            seat = -1
    return seat


@inline
def advance(s, rng):
    """Forced steps from the end of the current spending to the next decision or the end."""
    while True:
        end_turn(s)
        s[H_TURN] += 1
        if s[H_TURN] == s[H_PLAYERS]:
            end_round(s)
            s[H_ROUND] += 1
            if s[H_ROUND] == s[H_ROUNDS]:
                s[H_OVER] = 1
                s[H_SEAT] = -1
                return
            begin_round(s)
        begin_turn(s, rng)
        if any_purchase(s):
            return


@inline
def start_game(s, row, rng):
    """Deal a game from the params row: everything before the first decision."""
    s[:] = 0
    players = np.int64(row[P_PLAYERS])
    s[H_PLAYERS] = players
    s[H_ROUNDS] = np.int64(row[P_ROUNDS])
    s[H_POINTS] = np.int64(row[P_POINTS])
    s[H_NHIRE] = np.int64(row[P_HIRELINGS])
    s[H_NFACES] = np.int64(row[P_FACES])
    for h in range(MAX_HIRELINGS):
        s[S_COST + h] = np.int64(row[P_COST + h])
        s[S_KIND + h] = np.int64(row[P_KIND + h]) // 2
        s[S_PROTECTABLE + h] = np.int64(row[P_KIND + h]) % 2
        s[S_HOLDER + h] = -1
    for f in range(MAX_FACES):
        s[S_FACE + f] = np.int64(row[P_AMOUNT + f])
        s[S_BEHIND + f] = np.int64(row[P_FACE_BEHIND + f])
    for k in range(MAX_SEATS * GAIN_ROW):
        s[S_GAIN + k] = np.int64(row[P_GAIN + k])
    s[H_LEADER] = -1
    s[H_FIRST] = 0  # seat 1 holds the first-player card at the start
    begin_round(s)
    begin_turn(s, rng)
    if not any_purchase(s):
        advance(s, rng)


@kernel
def apply_move(s, move, rng):
    """Play ``move`` for the seat to move, then the forced steps up to the next decision."""
    if move == PASS:
        advance(s, rng)
        return
    seat = s[H_SEAT]
    gift = move % MAX_SEATS
    h = (move // MAX_SEATS) % MAX_HIRELINGS
    what = move // (MAX_SEATS * MAX_HIRELINGS)
    rank = s[H_RANK]
    if what == TAKE:
        cost = s[S_COST + h]
        s[H_INFLUENCE] -= cost
        s[S_SPENT + seat] += cost
        s[S_SPENT_RANK + rank - 1] += cost
        s[S_HOLDER + h] = seat
        s[S_PROTECTED + h] = 0
        s[H_CHANGES] += 1
        if s[S_KIND + h] == DIPLOMAT:
            # The other Diplomat goes to an enemy of the taker's choice.
            for o in range(s[H_NHIRE]):
                if o != h and s[S_KIND + o] == DIPLOMAT:
                    s[S_HOLDER + o] = gift
                    s[H_CHANGES] += 1
    else:
        s[H_INFLUENCE] -= 1
        s[S_SPENT + seat] += 1
        s[S_SPENT_RANK + rank - 1] += 1
        s[S_PROTECTED + h] = 1 if what == PROTECT else 0
        if what == PROTECT:
            s[H_PROTECTIONS] += 1
    if not any_purchase(s):
        advance(s, rng)
