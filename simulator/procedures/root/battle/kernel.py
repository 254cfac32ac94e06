"""Root battle: the kernel (one campaign state, one battle, the outcome, the engine loop).

See :mod:`simulator.procedures.root.battle` for the rules. Every rule is written once, in
:func:`_battle` and :func:`_outcome`; the kernel either plays each trial or (campaigns of at most
``TALLY_MAX_BATTLES`` battles) tallies the roll sequences and plays each distinct one once.
"""

from __future__ import annotations

import numpy as np

from simulator.accumulate import (
    BLOCK,
    accumulate_block,
    accumulate_weighted,
    block_count,
    new_stats,
    trial_block,
)
from simulator.jit import inline, kernel
from simulator.layout import Layout
from simulator.procedures.root.battle.params import (
    A_DAMAGED,
    A_LOST,
    A_VP,
    ACOLYTES,
    ALLIANCE,
    ALLIES_LOST,
    ALLY_HOSTILE,
    AMBUSH_HITS,
    ATTACKER_SIDE,
    BASES,
    BUILDINGS,
    C_ALLIES,
    C_BUILDINGS,
    C_CARDS,
    C_EXTRA,
    C_FACTION,
    C_ITEMS,
    C_MERCS,
    C_READY,
    C_SWORDS,
    C_TOKENS,
    C_TOKENS_FIRST,
    C_WARRIORS,
    CLEARED,
    CONTROL,
    D_DAMAGED,
    D_LOST,
    D_VP,
    DEFENDER_SIDE,
    DUCHY,
    DUCHY_BUILDINGS,
    EYRIE,
    FOUGHT,
    GARDENS,
    HOSPITALS,
    LIZARDS,
    MARQUISE,
    MERCS_LOST,
    N_METRICS,
    P_AMBUSH_HITS,
    P_BATTLES,
    P_CORVID_PLOT,
    P_GARDEN,
    P_HOSTILE,
    P_STEP_ADDRESS,
    P_STOP_WHEN_CLEARED,
    RIVERFOLK,
    SYMPATHY,
    TOKENS,
    TRADE_POSTS,
    VAGABOND,
)
from simulator.procedures.root.battle.steps import call_step
from simulator.rng import block_word, die_of, high32, low32, word, word_base


@inline
def _removal(hits, warriors, buildings, tokens, items, swords, helpers, tokens_first):
    """5. Removal of ``hits`` from one side.

    The side's own warriors (a Vagabond: its items, swords last) share the hits evenly with its
    ``helpers`` (Riverfolk mercenaries; a Vagabond's allied warriors), the side itself taking the
    odd one, each absorbing the other's share once it has nothing left; then tokens and
    buildings in the owner's order (``tokens_first`` 1 or 0). A side has warriors or items,
    never both. Returns the (warriors, buildings, tokens, items, swords, helpers) lost.
    """
    own = warriors + items + swords
    shared = min(hits, own + helpers)
    lo = max(min(own, (shared + 1) // 2), shared - helpers)
    lh = shared - lo
    lw = min(lo, warriors)
    li = min(lo - lw, items)
    ls = lo - lw - li
    r = hits - shared
    first = tokens_first * tokens + (1 - tokens_first) * buildings
    l1 = min(r, first)
    l2 = min(r - l1, tokens + buildings - first)
    lt = tokens_first * l1 + (1 - tokens_first) * l2
    lb = l1 + l2 - lt
    return lw, lb, lt, li, ls, lh


# The rows of a campaign's state (one column: campaigns are played one at a time). We previously
# kept 128 campaigns side by side and played them die-major, branch-free, hoping the loop over
# trials would vectorise; with 19 state rows LLVM gives up on the alias checks, and the scalar
# loop with an early exit per campaign is as fast.
CAMPAIGN = Layout(
    "attacker_warriors",
    "attacker_buildings",
    "attacker_tokens",
    "attacker_items",
    "attacker_swords",
    "attacker_cards",
    "defender_warriors",
    "defender_buildings",
    "defender_tokens",
    "defender_items",
    "defender_swords",
    "defender_cards",
    "hostile",
    "active",
    "attacker_vp",
    "defender_vp",
    "ambush_hits",
    "fought",
    "acolytes",
    "attacker_ready",
    "mercenaries",
    "allies",
    "allied",
)
S_AW = CAMPAIGN.at("attacker_warriors")
S_AB = CAMPAIGN.at("attacker_buildings")
S_AT = CAMPAIGN.at("attacker_tokens")
S_AI = CAMPAIGN.at("attacker_items")
S_AS = CAMPAIGN.at("attacker_swords")
S_ACARDS = CAMPAIGN.at("attacker_cards")
S_DW = CAMPAIGN.at("defender_warriors")
S_DB = CAMPAIGN.at("defender_buildings")
S_DT = CAMPAIGN.at("defender_tokens")
S_DI = CAMPAIGN.at("defender_items")
S_DS = CAMPAIGN.at("defender_swords")
S_DCARDS = CAMPAIGN.at("defender_cards")
S_HOSTILE = CAMPAIGN.at("hostile")
S_ACTIVE = CAMPAIGN.at("active")
S_AVP = CAMPAIGN.at("attacker_vp")
S_DVP = CAMPAIGN.at("defender_vp")
S_AMBUSH = CAMPAIGN.at("ambush_hits")
S_FOUGHT = CAMPAIGN.at("fought")
S_ACOLYTES = CAMPAIGN.at("acolytes")
S_AREADY = CAMPAIGN.at("attacker_ready")
S_MERCS = CAMPAIGN.at("mercenaries")
S_ALLIES = CAMPAIGN.at("allies")
S_ALLIED = CAMPAIGN.at("allied")
N_STATE = CAMPAIGN.size

#: A battle's roll matters only as (high die, low die): 10 outcomes, coded hi*(hi+1)/2 + lo.
ROLLS = 10
HIGH_OF = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], dtype=np.int64)
LOW_OF = np.array([0, 0, 1, 0, 1, 2, 0, 1, 2, 3], dtype=np.int64)
#: Runs of at most this many battles (in every variant) tally the roll sequences (10**battles
#: of them) and play each distinct sequence once: the result is the same integer statistics.
#: Longer campaigns play every trial.
TALLY_MAX_BATTLES = 4


@inline
def _start(st, i, row):
    """A trial's campaign state before the first battle."""
    st[S_AW, i] = np.int64(row[ATTACKER_SIDE + C_WARRIORS])
    st[S_AB, i] = np.int64(row[ATTACKER_SIDE + C_BUILDINGS])
    st[S_AT, i] = np.int64(row[ATTACKER_SIDE + C_TOKENS])
    st[S_AS, i] = np.int64(row[ATTACKER_SIDE + C_SWORDS])
    st[S_AI, i] = np.int64(row[ATTACKER_SIDE + C_ITEMS])
    st[S_ACARDS, i] = np.int64(row[ATTACKER_SIDE + C_CARDS])
    st[S_AREADY, i] = np.int64(row[ATTACKER_SIDE + C_READY])
    st[S_MERCS, i] = np.int64(row[ATTACKER_SIDE + C_MERCS])
    st[S_ALLIES, i] = np.int64(row[ATTACKER_SIDE + C_ALLIES])
    st[S_ALLIED, i] = 1
    st[S_DW, i] = np.int64(row[DEFENDER_SIDE + C_WARRIORS])
    st[S_DB, i] = np.int64(row[DEFENDER_SIDE + C_BUILDINGS])
    st[S_DT, i] = np.int64(row[DEFENDER_SIDE + C_TOKENS])
    st[S_DS, i] = np.int64(row[DEFENDER_SIDE + C_SWORDS])
    st[S_DI, i] = np.int64(row[DEFENDER_SIDE + C_ITEMS])
    st[S_DCARDS, i] = np.int64(row[DEFENDER_SIDE + C_CARDS])
    st[S_HOSTILE, i] = np.int64(row[P_HOSTILE] > 0.5)
    st[S_ACTIVE, i] = 1
    st[S_AVP, i] = 0
    st[S_DVP, i] = 0
    st[S_AMBUSH, i] = 0
    st[S_FOUGHT, i] = 0
    st[S_ACOLYTES, i] = 0


@inline
def _battle(
    st,
    i,
    high,
    low,
    a_vagabond,
    d_vagabond,
    d_lizards,
    guerrilla,
    a_extra,
    d_extra,
    a_tokens_first,
    d_tokens_first,
    corvid_plot,
    stop_when_cleared,
    ambush_hits,
    step,
):
    """One battle of trial ``i`` given its two dice; every rule of Root rules §1 and the faction
    chapters is here once. ``step``: the address of a designer's rolled-hits step (userstep.py),
    0 for the rulebook's.

    Branch-free: a campaign that is over (or has no one left to battle) runs the same arithmetic
    with zero hits and changes nothing, so callers may play extra battles after its end.
    """
    aw = st[S_AW, i]
    ab = st[S_AB, i]
    at = st[S_AT, i]
    a_items = st[S_AI, i]
    a_swords = st[S_AS, i]
    a_ready = st[S_AREADY, i]
    a_cards = st[S_ACARDS, i]
    mercs = st[S_MERCS, i]
    allies = st[S_ALLIES, i] * st[S_ALLIED, i]  # allied warriors battling with the Vagabond
    dw = st[S_DW, i]
    db = st[S_DB, i]
    dt = st[S_DT, i]
    d_items = st[S_DI, i]
    d_swords = st[S_DS, i]
    d_cards = st[S_DCARDS, i]
    # A battle needs an attacker able to fight (a Vagabond: a ready sword to exhaust; others: a
    # warrior, mercenaries included) and a defender in the clearing.
    a_able = a_vagabond * np.int64(a_ready > 0) + (1 - a_vagabond) * np.int64(aw + mercs > 0)
    d_there = d_vagabond | np.int64(dw + db + dt > 0)
    go = st[S_ACTIVE, i] & a_able & d_there
    # The Vagabond exhausts a sword to battle.
    a_ready -= a_vagabond * go
    # 1. Ambush (``ambush_hits`` before the roll, 2 in the published game), unless the attacker
    # cancels it with its own ambush card; both cards are spent.
    ambush = go & np.int64(d_cards > 0)
    cancelled = ambush & np.int64(a_cards > 0)
    d_cards -= ambush
    a_cards -= cancelled
    amb_w, amb_b, amb_t, amb_i, amb_s, amb_h = _removal(
        ambush_hits * (ambush - cancelled),
        aw,
        ab,
        at,
        a_items,
        a_swords,
        mercs + allies,
        a_tokens_first,
    )
    amb_m = (1 - a_vagabond) * amb_h
    amb_a = amb_h - amb_m
    aw -= amb_w
    ab -= amb_b
    at -= amb_t
    a_items -= amb_i
    a_swords -= amb_s
    a_ready -= max(amb_s - (a_swords + amb_s - a_ready), 0)  # exhausted swords damaged first
    mercs -= amb_m
    allies -= amb_a
    # An ambush that leaves the attacker with no warriors ends the battle.
    rolls = go & (a_vagabond | np.int64(aw + mercs > 0))
    # 2. Roll: the higher die to the attacker, the lower to the defender; a defending Alliance
    # takes the higher (guerrilla war).
    a_roll = guerrilla * low + (1 - guerrilla) * high
    d_roll = high + low - a_roll
    # 3. Hit caps: warriors in the clearing, mercenaries included (a Vagabond: undamaged swords,
    # exhausted or not, plus its allied warriors).
    a_cap = a_vagabond * (a_swords + allies) + (1 - a_vagabond) * (aw + mercs)
    d_cap = d_vagabond * d_swords + (1 - d_vagabond) * dw
    # 4. Extra hits ignore the cap: one to a defenceless defender (no warriors; a Vagabond: no
    # undamaged sword), cards, a face-down Corvid plot while it stands.
    defenceless = np.int64(d_cap == 0)
    plot = corvid_plot & np.int64(dt > 0)
    a_rolled = min(a_roll, a_cap)
    d_rolled = min(d_roll, d_cap)
    if step != 0:  # a designer's rolled hits (a negative number counts as none)
        a_rolled = max(call_step(step, a_roll, a_cap, 1), 0)
        d_rolled = max(call_step(step, d_roll, d_cap, 0), 0)
    a_hits = rolls * (a_rolled + a_extra + defenceless)
    d_hits = rolls * (d_rolled + d_extra + plot)
    # 5. Removal, both sides at once.
    lw, lb, lt, li, ls, _ = _removal(a_hits, dw, db, dt, d_items, d_swords, 0, d_tokens_first)
    cw, cb, ct, ci, cs, ch = _removal(
        d_hits, aw, ab, at, a_items, a_swords, mercs + allies, a_tokens_first
    )
    cm = (1 - a_vagabond) * ch
    ca = ch - cm
    dw -= lw
    db -= lb
    dt -= lt
    d_items -= li
    d_swords -= ls
    aw -= cw
    ab -= cb
    at -= ct
    a_items -= ci
    a_swords -= cs
    a_ready -= max(cs - (a_swords + cs - a_ready), 0)  # exhausted swords damaged first
    mercs -= cm
    allies -= ca
    # A Vagabond that gives its allied warriors more hits than it takes turns hostile to them:
    # they stop battling with it (they stay in the clearing).
    own_hits = amb_i + amb_s + ci + cs
    turned = st[S_ALLIED, i] & np.int64(amb_a + ca > own_hits)
    # 1 VP per enemy building or token removed; an attacking Vagabond scores 1 more per piece of
    # a hostile faction, and removing one of its warriors makes it hostile.
    hostile = st[S_HOSTILE, i]
    st[S_AVP, i] += lb + lt + a_vagabond * hostile * (lw + lb + lt)
    st[S_DVP, i] += amb_b + amb_t + cb + ct
    st[S_HOSTILE, i] = hostile | (a_vagabond & np.int64(lw > 0))
    st[S_ACOLYTES, i] += d_lizards * lw
    st[S_AMBUSH, i] += amb_w + amb_b + amb_t + amb_i + amb_s + amb_h
    st[S_FOUGHT, i] += go
    # The campaign stops once the defender is defenceless, if told to.
    d_cap = d_vagabond * d_swords + (1 - d_vagabond) * dw
    st[S_ACTIVE, i] = rolls & (1 - stop_when_cleared * np.int64(d_cap == 0))
    st[S_AW, i] = aw
    st[S_AB, i] = ab
    st[S_AT, i] = at
    st[S_AI, i] = a_items
    st[S_AS, i] = a_swords
    st[S_AREADY, i] = a_ready
    st[S_ACARDS, i] = a_cards
    st[S_MERCS, i] = mercs
    st[S_ALLIES, i] -= amb_a + ca
    st[S_ALLIED, i] -= turned
    st[S_DW, i] = dw
    st[S_DB, i] = db
    st[S_DT, i] = dt
    st[S_DI, i] = d_items
    st[S_DS, i] = d_swords
    st[S_DCARDS, i] = d_cards


@inline
def _outcome(st, i, row, dst, j):
    """The metric values of trial ``i``'s finished campaign, into ``dst[:, j]``."""
    a_faction = np.int64(row[ATTACKER_SIDE + C_FACTION])
    d_faction = np.int64(row[DEFENDER_SIDE + C_FACTION])
    garden = np.int64(row[P_GARDEN] > 0.5)
    d_vagabond = np.int64(d_faction == VAGABOND)
    aw = st[S_AW, i]
    ab = st[S_AB, i]
    dw = st[S_DW, i]
    db = st[S_DB, i]
    dt = st[S_DT, i]
    allies = st[S_ALLIES, i]
    # Control: most warriors + buildings (mercenaries rule for their buyer; a Vagabond's allied
    # warriors are a faction of their own); a tie goes to nobody unless the Eyrie is in it; a
    # standing Lizard garden (the Lizards' last building) rules outright.
    a_presence = aw + ab + st[S_MERCS, i]
    d_presence = dw + db
    a_top = np.int64(a_presence > d_presence) & np.int64(a_presence > allies)
    d_top = np.int64(d_presence > a_presence) & np.int64(d_presence > allies)
    l_top = np.int64(allies > a_presence) & np.int64(allies > d_presence)
    a_tied_top = np.int64(a_presence >= d_presence) & np.int64(a_presence >= allies)
    d_tied_top = np.int64(d_presence >= a_presence) & np.int64(d_presence >= allies)
    a_rules = a_top | (a_tied_top & np.int64(a_faction == EYRIE) & np.int64(a_presence > 0))
    d_rules = d_top | (d_tied_top & np.int64(d_faction == EYRIE) & np.int64(d_presence > 0))
    a_gardened = garden & np.int64(a_faction == LIZARDS) & np.int64(ab > 0)
    d_gardened = garden & np.int64(d_faction == LIZARDS) & np.int64(db > 0)
    a_rules = a_gardened | (a_rules & (1 - d_gardened))
    d_rules = d_gardened | (d_rules & (1 - a_gardened))
    l_rules = l_top & (1 - a_gardened) & (1 - d_gardened)
    dst[A_LOST, j] = np.int64(row[ATTACKER_SIDE + C_WARRIORS]) - aw
    dst[D_LOST, j] = np.int64(row[DEFENDER_SIDE + C_WARRIORS]) - dw
    dst[BUILDINGS, j] = np.int64(row[DEFENDER_SIDE + C_BUILDINGS]) - db
    dst[TOKENS, j] = np.int64(row[DEFENDER_SIDE + C_TOKENS]) - dt
    dst[A_VP, j] = st[S_AVP, i]
    dst[CLEARED, j] = (1 - d_vagabond) * np.int64(dw + db + dt == 0)
    dst[AMBUSH_HITS, j] = st[S_AMBUSH, i]
    dst[CONTROL, j] = 2 - 2 * a_rules - d_rules + l_rules
    dst[D_VP, j] = st[S_DVP, i]
    dst[FOUGHT, j] = st[S_FOUGHT, i]
    dst[ACOLYTES, j] = st[S_ACOLYTES, i]
    dst[A_DAMAGED, j] = (
        np.int64(row[ATTACKER_SIDE + C_SWORDS])
        + np.int64(row[ATTACKER_SIDE + C_ITEMS])
        - st[S_AI, i]
        - st[S_AS, i]
    )
    dst[D_DAMAGED, j] = (
        np.int64(row[DEFENDER_SIDE + C_SWORDS])
        + np.int64(row[DEFENDER_SIDE + C_ITEMS])
        - st[S_DI, i]
        - st[S_DS, i]
    )
    dst[MERCS_LOST, j] = np.int64(row[ATTACKER_SIDE + C_MERCS]) - st[S_MERCS, i]
    dst[ALLIES_LOST, j] = np.int64(row[ATTACKER_SIDE + C_ALLIES]) - allies
    dst[ALLY_HOSTILE, j] = np.int64(row[ATTACKER_SIDE + C_ALLIES] > 0.5) * (1 - st[S_ALLIED, i])
    # What the removals cost each faction afterwards (counted, not played).
    a_warriors_lost = np.int64(row[ATTACKER_SIDE + C_WARRIORS]) - aw
    a_buildings_lost = np.int64(row[ATTACKER_SIDE + C_BUILDINGS]) - ab
    a_tokens_lost = np.int64(row[ATTACKER_SIDE + C_TOKENS]) - st[S_AT, i]
    d_warriors_lost = np.int64(row[DEFENDER_SIDE + C_WARRIORS]) - dw
    d_buildings_lost = np.int64(row[DEFENDER_SIDE + C_BUILDINGS]) - db
    d_tokens_lost = np.int64(row[DEFENDER_SIDE + C_TOKENS]) - dt
    a_is = _faction_flags(a_faction)
    d_is = _faction_flags(d_faction)
    dst[HOSPITALS, j] = a_is[0] * a_warriors_lost + d_is[0] * d_warriors_lost
    dst[BASES, j] = a_is[1] * a_buildings_lost + d_is[1] * d_buildings_lost
    dst[SYMPATHY, j] = a_is[1] * a_tokens_lost + d_is[1] * d_tokens_lost
    dst[TRADE_POSTS, j] = a_is[2] * a_tokens_lost + d_is[2] * d_tokens_lost
    dst[GARDENS, j] = a_is[3] * a_buildings_lost + d_is[3] * d_buildings_lost
    dst[DUCHY_BUILDINGS, j] = a_is[4] * a_buildings_lost + d_is[4] * d_buildings_lost


@inline
def _faction_flags(faction):
    """Whether ``faction`` is the Marquise, the Alliance, the Riverfolk, the Lizards, the Duchy."""
    return (
        np.int64(faction == MARQUISE),
        np.int64(faction == ALLIANCE),
        np.int64(faction == RIVERFOLK),
        np.int64(faction == LIZARDS),
        np.int64(faction == DUCHY),
    )


@inline
def _roll(x):
    """The (high, low) of a battle's two Root dice, each uniform on 0..3, from one word."""
    die1 = die_of(low32(x), 4) - 1
    die2 = die_of(high32(x), 4) - 1
    return max(die1, die2), min(die1, die2)


@inline
def _play(st, row, high, low):
    """One battle of the campaign in ``st[:, 0]`` under the packed ``row``."""
    a_faction = np.int64(row[ATTACKER_SIDE + C_FACTION])
    d_faction = np.int64(row[DEFENDER_SIDE + C_FACTION])
    _battle(
        st,
        0,
        high,
        low,
        np.int64(a_faction == VAGABOND),
        np.int64(d_faction == VAGABOND),
        np.int64(d_faction == LIZARDS),
        np.int64(d_faction == ALLIANCE),
        np.int64(row[ATTACKER_SIDE + C_EXTRA]),
        np.int64(row[DEFENDER_SIDE + C_EXTRA]),
        np.int64(row[ATTACKER_SIDE + C_TOKENS_FIRST]),
        np.int64(row[DEFENDER_SIDE + C_TOKENS_FIRST]),
        np.int64(row[P_CORVID_PLOT] > 0.5),
        np.int64(row[P_STOP_WHEN_CLEARED] > 0.5),
        np.int64(row[P_AMBUSH_HITS]),
        np.int64(row[P_STEP_ADDRESS]),
    )


@kernel
def battle_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    st = np.zeros((N_STATE, 1), dtype=np.int64)
    max_battles = np.int64(0)
    for v in range(n_variants):
        max_battles = max(max_battles, np.int64(packed[v, P_BATTLES]))
    tally_rolls = max_battles <= TALLY_MAX_BATTLES
    n_seq = ROLLS**max_battles if tally_rolls else 1
    tally = np.zeros(n_seq, dtype=np.int64)
    seq = np.zeros(BLOCK, dtype=np.int64)
    values = np.zeros((n_variants, N_METRICS, BLOCK), dtype=np.int64)
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        if tally_rolls:
            # Count each sequence of rolls; the campaigns are played once each, below.
            for i in range(m):
                seq[i] = 0
            for b in range(max_battles):
                base = word_base(key, start, b)
                for i in range(m):
                    high, low = _roll(block_word(base, i))
                    seq[i] = seq[i] * ROLLS + (high * (high + 1)) // 2 + low
            for i in range(m):
                tally[seq[i]] += 1
            continue
        for v in range(n_variants):
            row = packed[v]
            battles = np.int64(row[P_BATTLES])
            # Trial by trial, stopping at the end of each campaign (the state stays in L1).
            dst = values[v]
            for i in range(m):
                _start(st, 0, row)
                for b in range(battles):
                    high, low = _roll(word(key, start + i, b))
                    _play(st, row, high, low)
                    if st[S_ACTIVE, 0] == 0:
                        break
                _outcome(st, 0, row, dst, i)
        accumulate_block(stats, values, m, hist_offset, hist_max)
    if tally_rolls:
        # Every variant reads the same words, so one roll sequence fixes every variant's outcome:
        # fold each distinct sequence once per variant, paired with variant 0 for the cross term.
        rows = np.zeros((N_METRICS, n_variants), dtype=np.int64)
        for q in range(n_seq):
            count = tally[q]
            if count == 0:
                continue
            for v in range(n_variants):
                row = packed[v]
                _start(st, 0, row)
                rest = q
                scale = n_seq // ROLLS
                for b in range(max_battles):
                    code = rest // scale
                    rest -= code * scale
                    scale //= ROLLS
                    if b >= np.int64(row[P_BATTLES]):
                        continue
                    _play(st, row, HIGH_OF[code], LOW_OF[code])
                _outcome(st, 0, row, rows, v)
            for v in range(n_variants):
                accumulate_weighted(stats, v, rows[:, v], count, hist_offset, hist_max, rows[:, 0])
    return stats
