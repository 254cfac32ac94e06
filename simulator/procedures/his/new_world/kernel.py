"""Here I Stand: the race for the New World, a whole game per trial (Here I Stand rules §12).

England, France and the Habsburgs each buy ``explore``, ``colonize`` and ``conquer`` on the turns
their plan says (each action at most once a turn). A turn runs:

1. **Card draw phase.** Every colony and every conquest rolls 2d6 on the riches table:
   ``destroyed`` (the colony goes back), ``card`` (+1 card), ``card_depleted`` (+1 card and the
   conquest is removed), ``galleons_card`` (+1 card if the Galleons marker is out for that power),
   ``nothing``. A conquest rolling ``destroyed`` and a colony rolling ``card_depleted`` are gaps in
   the rules: the defaults (``conquest_destroyed``: nothing happens, ``colony_depleted``: +1 card
   and the colony stays) are applied and each such roll is counted.
2. **Action phase.** A colony is placed at once. An exploration or conquest bought while the power's
   pool is empty cannot be carried out; it is not bought and is counted as ``skipped``.
3. **New World phase.** Explorations first: each exploring power draws an explorer from its pool at
   random, and they explore highest rating first (ties England, France, Habsburg). 2d6 + rating, −1
   on a power's first exploration: ≤4 the explorer is lost; 5–6 it returns; 7 St. Lawrence, 8 Great
   Lakes, 9 Mississippi (1 VP each); ≥10 South America: the Amazon (2 VP) or the Pacific Strait
   (1 VP, then a circumnavigation attempt: 2d6 + rating, ≤9 the explorer is lost, 10–11
   circumnavigation (3 VP), ≥12 circumnavigation and a card), or a North American discovery
   instead (1 VP). Who chooses: ``policies`` names an agent per power (``random``, ``greedy`` on
   the ``objective``: module ``choice``; ``rollout``, ``mcts``: the generic search agents over
   the game interface, modules ``state``, ``game``, ``search``); without it every explorer
   follows ``south_america``, a fixed preference (assumption: the Amazon, else the Strait). Then
   conquests: the Habsburgs draw a conquistador, England and France use a marker that counts as a
   conquistador of rating 0 (``conquest_marker``: lost on ≤6 and kept after a success by default,
   as a conquistador; ``returns``: lost on ≤6 only; ``unlimited``: never lost); highest
   rating first (ties Habsburg, England, France); 2d6 + rating: ≤6 lost, 7–8 returns, 9 Maya
   (1 VP), 10 Aztecs (2 VP), ≥11 Inca (2 VP). Each discovery goes to the first to reach it; a
   result already claimed steps down by 1 until it reaches an unclaimed result or "returns" (a
   South American result with both the Amazon and the Strait claimed steps down to the
   Mississippi). Lost explorers and conquistadors leave the pool, returning ones go back; one that
   makes a discovery stays in the New World (assumption, ``discoverers_return``).

Random words come from the trial's own stream (``trial_state``/``next_word``), drawn in this order
each turn: riches rolls (England's colonies, then its conquests, then France's, then the
Habsburgs'), one word per explorer draw (England, France, Habsburg), then one word per exploration
roll in resolution order (plus one for a circumnavigation), one word for the Habsburg conquistador
draw, then one word per conquest roll in resolution order. A 2d6 roll is the two halves of one word.
An agent's choice reads its own sub-stream (decision ``k`` of the trial, simulator.agents.streams),
so it never shifts the game's dice.
"""

from __future__ import annotations

import numpy as np

from simulator.accumulate import (
    BLOCK,
    UNDEFINED,
    accumulate_block,
    block_count,
    new_stats,
    trial_block,
)
from simulator.agents.spec import AGENT_CODES
from simulator.agents.streams import start_decision
from simulator.jit import kernel
from simulator.procedures.his.new_world.choice import (
    choose_option,
    option_kind,
    south_america_options,
)
from simulator.procedures.his.new_world.metrics import (
    M_CARDS,
    M_CARDS_CIRC,
    M_CARDS_RICHES,
    M_CHOSE,
    M_COLONIES,
    M_CONQUESTS,
    M_CP,
    M_DRAWS,
    M_FIRST,
    M_GAP_COL,
    M_GAP_CONQ,
    M_LOST,
    M_SKIPPED,
    M_TURN_OF,
    M_VP,
    M_WINS,
    N_METRICS,
    WIN_SCALE,
)
from simulator.procedures.his.new_world.outcomes import (
    LOW_TOTAL,
    N_TOTALS,
    result_tables,
    roll2d6,
    sort_by_rating,
)
from simulator.procedures.his.new_world.params import (
    AGENTS,
    ALREADY_CLAIMED,
    ALREADY_EXPLORED,
    CARD,
    CARD_DEPLETED,
    CIRCUMNAVIGATION,
    COLONY_CP,
    COLONY_DEPLETED_REMOVES,
    CONQUER_CP,
    CONQUEST_DESTROYED_REMOVES,
    CONQUEST_MARKER,
    DEPLETED_CONQUEST_LOSES_VP,
    DESTROYED,
    DISCOVERERS_RETURN,
    EXPLORE_CP,
    FIRST_POWER,
    FIXED,
    GALLEONS_CARD,
    GALLEONS_TURN,
    MAX_POOL,
    OBJECTIVE,
    P_COLONIES,
    P_CONQUESTS,
    P_CONQUISTADOR_RATINGS,
    P_CONQUISTADORS,
    P_EXPLORE,
    P_EXPLORER_RATINGS,
    P_EXPLORERS,
    P_GALLEONS,
    PENALTY,
    POWER_FIELDS,
    RICHES_OF_TOTAL,
    SOUTH_AMERICA,
    STRAIT,
    TURNS,
    VP_OF,
)
from simulator.procedures.his.new_world.search import search_kernel
from simulator.rng import die_of, low32, next_word, trial_state

#: Agent codes from this one up search over the game interface (rollout, mcts).
SEARCH_CODE = AGENT_CODES["rollout"]
#: Conquests a power can hold at once: 3 at the start + the 3 of the New World.
MAX_HELD = 8


def new_world_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    """The race's kernel: :func:`race_kernel`, or :func:`~.search.search_kernel` when a power's
    choice is made by a search agent (rollout, mcts), which needs the game interface."""
    codes = packed[:, AGENTS : AGENTS + 3]
    play = search_kernel if (codes >= SEARCH_CODE).any() else race_kernel
    return play(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots)


@kernel
def race_kernel(packed, key, first_trial, n_trials, hist_offset, hist_max, n_slots):
    """Whole games with the choices on 10+ made by the fixed plan, random or greedy."""
    n_variants = packed.shape[0]
    stats = new_stats(n_variants, n_slots)
    # Padded rows: with exactly BLOCK int64 (4 KiB) per metric, the 50 writes of one trial would
    # all fall in the same L1 cache set.
    values = np.zeros((n_variants, N_METRICS, BLOCK + 8), dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    vp_of = np.array(VP_OF, dtype=np.int64)
    # Per-variant constants, unpacked once.
    schedule = np.zeros((3, 3), dtype=np.int64)  # power, action (explore/colonize/conquer)
    explorers0 = np.zeros((3, MAX_POOL), dtype=np.int64)
    n_explorers0 = np.zeros(3, dtype=np.int64)
    conquistadors0 = np.zeros(MAX_POOL, dtype=np.int64)
    colonies0 = np.zeros(3, dtype=np.int64)
    conquests0 = np.zeros(3, dtype=np.int64)
    galleons_power = np.zeros(3, dtype=np.bool_)
    # Riches by 2d6 total: cards gained (without / with the Galleons), holdings lost, gaps hit.
    colony_card = np.zeros((2, 13), dtype=np.int64)
    colony_lost = np.zeros(13, dtype=np.int64)
    colony_gap = np.zeros(13, dtype=np.int64)
    conquest_card = np.zeros((2, 13), dtype=np.int64)
    conquest_lost = np.zeros(13, dtype=np.int64)
    conquest_gap = np.zeros(13, dtype=np.int64)
    conquest_depleted = np.zeros(13, dtype=np.int64)
    held_vp = np.zeros((3, MAX_HELD), dtype=np.int64)  # VP of each conquest held, in order
    riches_cards = np.zeros(3, dtype=np.int64)
    circ_cards = np.zeros(3, dtype=np.int64)
    cp = np.zeros(3, dtype=np.int64)
    explore_table = np.zeros((n_variants, 512, N_TOTALS), dtype=np.int8)
    conquest_table = np.zeros((n_variants, 512, N_TOTALS), dtype=np.int8)
    # Per-game state.
    explorers = np.zeros((3, MAX_POOL), dtype=np.int64)
    conquistadors = np.zeros(MAX_POOL, dtype=np.int64)
    n_explorers = np.zeros(3, dtype=np.int64)
    colonies = np.zeros(3, dtype=np.int64)
    conquests = np.zeros(3, dtype=np.int64)
    vp = np.zeros(3, dtype=np.int64)
    cards = np.zeros(3, dtype=np.int64)
    lost = np.zeros(3, dtype=np.int64)
    skipped = np.zeros(3, dtype=np.int64)
    rating = np.zeros(3, dtype=np.int64)
    pick = np.zeros(3, dtype=np.int64)
    marker = np.zeros(2, dtype=np.int64)  # England's, France's conquest marker still in play
    agent = np.zeros(3, dtype=np.int64)
    options = np.zeros(3, dtype=np.int64)
    chose = np.zeros((3, 3), dtype=np.int64)  # power, option kind
    decision = np.zeros(1, dtype=np.uint64)
    order = np.zeros(3, dtype=np.int64)
    owner = np.zeros(9, dtype=np.int64)
    turn_of = np.zeros(9, dtype=np.int64)
    for v in range(n_variants):
        result_tables(np.int64(packed[v, SOUTH_AMERICA]), explore_table[v], conquest_table[v])
    for block in range(block_count(n_trials)):
        start, m = trial_block(first_trial, n_trials, block)
        for v in range(n_variants):
            turns = np.int64(packed[v, TURNS])
            penalty = np.int64(packed[v, PENALTY])
            discoverers_return = packed[v, DISCOVERERS_RETURN] > 0.5
            galleons_turn = np.int64(packed[v, GALLEONS_TURN])
            conquest_destroyed_removes = packed[v, CONQUEST_DESTROYED_REMOVES] > 0.5
            colony_depleted_removes = packed[v, COLONY_DEPLETED_REMOVES] > 0.5
            depleted_loses_vp = packed[v, DEPLETED_CONQUEST_LOSES_VP] > 0.5
            # England's and France's conquest marker: 0 a conquistador of rating 0 (lost on a
            # failure, kept in the New World after a success as discoverers_return says), 1 lost
            # on a failure only, 2 never lost.
            marker_mode = np.int64(packed[v, CONQUEST_MARKER])
            claimed0 = np.int64(packed[v, ALREADY_CLAIMED])
            explored0 = np.int64(packed[v, ALREADY_EXPLORED])
            for total in range(2, 13):
                o = np.int64(packed[v, RICHES_OF_TOTAL + total - 2])
                for g in range(2):
                    gets = (o == CARD) | (o == CARD_DEPLETED) | ((o == GALLEONS_CARD) & (g == 1))
                    colony_card[g, total] = gets
                    conquest_card[g, total] = gets
                colony_gap[total] = o == CARD_DEPLETED
                colony_lost[total] = (o == DESTROYED) | (
                    (o == CARD_DEPLETED) & colony_depleted_removes
                )
                conquest_gap[total] = o == DESTROYED
                conquest_depleted[total] = o == CARD_DEPLETED
                conquest_lost[total] = (o == CARD_DEPLETED) | (
                    (o == DESTROYED) & conquest_destroyed_removes
                )
            for w in range(3):
                b = FIRST_POWER + w * POWER_FIELDS
                for a in range(3):  # explore, colonize, conquer
                    schedule[w, a] = np.int64(packed[v, b + P_EXPLORE + a])
                galleons_power[w] = packed[v, b + P_GALLEONS] > 0.5
                colonies0[w] = np.int64(packed[v, b + P_COLONIES])
                conquests0[w] = np.int64(packed[v, b + P_CONQUESTS])
                n_explorers0[w] = np.int64(packed[v, b + P_EXPLORERS])
                for k in range(MAX_POOL):
                    explorers0[w, k] = np.int64(packed[v, b + P_EXPLORER_RATINGS + k])
                agent[w] = np.int64(packed[v, AGENTS + w])
            objective = np.int64(packed[v, OBJECTIVE])
            hb = FIRST_POWER + 2 * POWER_FIELDS  # the Habsburgs' piece
            n_conquistadors0 = np.int64(packed[v, hb + P_CONQUISTADORS])
            for k in range(MAX_POOL):
                conquistadors0[k] = np.int64(packed[v, hb + P_CONQUISTADOR_RATINGS + k])
            for i in range(m):
                state[0] = trial_state(key, start + i)
                trial_seed = state[0]
                decisions = 0
                for w in range(3):
                    for o in range(3):
                        chose[w, o] = 0
                    n_explorers[w] = n_explorers0[w]
                    for k in range(MAX_POOL):
                        explorers[w, k] = explorers0[w, k]
                    colonies[w] = colonies0[w]
                    conquests[w] = conquests0[w]
                    vp[w] = 0
                    cards[w] = 0
                    lost[w] = 0
                    skipped[w] = 0
                    riches_cards[w] = 0
                    circ_cards[w] = 0
                    cp[w] = 0
                    for k in range(MAX_HELD):
                        held_vp[w, k] = 0  # conquests held at the start: no VP counted here
                n_conquistadors = n_conquistadors0
                marker[0] = 1
                marker[1] = 1
                for k in range(MAX_POOL):
                    conquistadors[k] = conquistadors0[k]
                claimed = claimed0
                explored = explored0
                for d in range(9):
                    owner[d] = -1
                    turn_of[d] = 0
                gap_conquest = 0
                gap_colony = 0
                for turn in range(1, turns + 1):
                    # 1. Card draw phase: New World riches.
                    galleons_out = (galleons_turn > 0) & (turn >= galleons_turn)
                    for w in range(3):
                        g = np.int64(galleons_out & galleons_power[w])
                        gone = 0
                        for _ in range(colonies[w]):
                            s = roll2d6(state)
                            riches_cards[w] += colony_card[g, s]
                            gone += colony_lost[s]
                            gap_colony += colony_gap[s]
                        colonies[w] -= gone
                        kept = 0
                        for k in range(conquests[w]):
                            s = roll2d6(state)
                            riches_cards[w] += conquest_card[g, s]
                            gap_conquest += conquest_gap[s]
                            if conquest_lost[s]:
                                if depleted_loses_vp and conquest_depleted[s]:
                                    vp[w] -= held_vp[w, k]
                            else:
                                held_vp[w, kept] = held_vp[w, k]
                                kept += 1
                        conquests[w] = kept
                    # 2. Action phase: colonies at once; explorations and conquests need a pool.
                    bit = np.int64(1) << (turn - 1)
                    for w in range(3):
                        placed = (schedule[w, 1] & bit) != 0
                        colonies[w] += placed
                        cp[w] += placed * COLONY_CP[w]
                    # 3. New World phase: explorations (ties England, France, Habsburg).
                    n = 0
                    for w in range(3):
                        if schedule[w, 0] & bit:
                            if n_explorers[w] == 0:
                                skipped[w] += 1
                            else:
                                pick[w] = die_of(low32(next_word(state)), n_explorers[w]) - 1
                                rating[w] = explorers[w, pick[w]]
                                cp[w] += EXPLORE_CP
                                order[n] = w
                                n += 1
                    sort_by_rating(order, n, rating)
                    for k in range(n):
                        w = order[k]
                        r = rating[w]
                        total = roll2d6(state) + r
                        if not (explored >> w) & 1:
                            total -= penalty
                            explored |= np.int64(1) << w
                        d = np.int64(explore_table[v, claimed, total - LOW_TOTAL])
                        if total >= 10:
                            n_open = south_america_options(claimed, options)
                            if n_open >= 2:
                                if agent[w] != FIXED:
                                    start_decision(decision, trial_seed, decisions)
                                    decisions += 1
                                    d = choose_option(
                                        agent[w], objective, w, r, options, n_open, vp, decision
                                    )
                                chose[w, option_kind(d)] += 1
                        leaves = d != -2
                        if d == -1:
                            lost[w] += 1
                        elif d >= 0:
                            claimed |= np.int64(1) << d
                            owner[d] = w
                            turn_of[d] = turn
                            vp[w] += vp_of[d]
                            leaves = not discoverers_return
                            if d == STRAIT:
                                c = roll2d6(state) + r
                                if c <= 9:
                                    lost[w] += 1
                                    leaves = True
                                else:
                                    claimed |= np.int64(1) << CIRCUMNAVIGATION
                                    owner[CIRCUMNAVIGATION] = w
                                    turn_of[CIRCUMNAVIGATION] = turn
                                    vp[w] += vp_of[CIRCUMNAVIGATION]
                                    circ_cards[w] += c >= 12
                        if leaves:
                            n_explorers[w] -= 1
                            explorers[w, pick[w]] = explorers[w, n_explorers[w]]
                    # ... then conquests (ties Habsburg, England, France).
                    n = 0
                    if schedule[2, 2] & bit:
                        if n_conquistadors == 0:
                            skipped[2] += 1
                        else:
                            pick[2] = die_of(low32(next_word(state)), n_conquistadors) - 1
                            rating[2] = conquistadors[pick[2]]
                            cp[2] += CONQUER_CP
                            order[n] = 2
                            n += 1
                    for w in range(2):
                        if schedule[w, 2] & bit:
                            if marker[w] == 0:
                                skipped[w] += 1  # the marker is gone: nothing to send
                                continue
                            rating[w] = 0
                            order[n] = w
                            n += 1
                            cp[w] += CONQUER_CP
                    sort_by_rating(order, n, rating)
                    for k in range(n):
                        w = order[k]
                        d = np.int64(
                            conquest_table[v, claimed, roll2d6(state) + rating[w] - LOW_TOTAL]
                        )
                        leaves = d == -1
                        if d >= 0:
                            claimed |= np.int64(1) << d
                            owner[d] = w
                            turn_of[d] = turn
                            vp[w] += vp_of[d]
                            held_vp[w, conquests[w]] = vp_of[d]
                            conquests[w] += 1
                            leaves = not discoverers_return
                        if w == 2 and leaves:
                            n_conquistadors -= 1
                            conquistadors[pick[2]] = conquistadors[n_conquistadors]
                        elif w < 2 and (
                            (marker_mode == 0 and leaves) or (marker_mode == 1 and d == -1)
                        ):
                            marker[w] = 0
                for w in range(3):
                    values[v, M_VP + w, i] = vp[w]
                    values[v, M_CARDS + w, i] = riches_cards[w] + circ_cards[w]
                    values[v, M_CARDS_RICHES + w, i] = riches_cards[w]
                    values[v, M_CARDS_CIRC + w, i] = circ_cards[w]
                    values[v, M_COLONIES + w, i] = colonies[w]
                    values[v, M_CONQUESTS + w, i] = conquests[w]
                    values[v, M_CP + w, i] = cp[w]
                    values[v, M_LOST + w, i] = lost[w]
                    values[v, M_SKIPPED + w, i] = skipped[w]
                for d in range(9):
                    for w in range(3):
                        values[v, M_FIRST + 3 * d + w, i] = owner[d] == w
                    values[v, M_TURN_OF + d, i] = turn_of[d] if owner[d] >= 0 else UNDEFINED
                values[v, M_GAP_CONQ, i] = gap_conquest
                values[v, M_GAP_COL, i] = gap_colony
                best = max(vp[0], max(vp[1], vp[2]))
                n_top = (vp[0] == best) + (vp[1] == best) + (vp[2] == best)
                for w in range(3):
                    values[v, M_WINS + w, i] = (WIN_SCALE // n_top) * (vp[w] == best)
                    for o in range(3):
                        values[v, M_CHOSE + 3 * o + w, i] = chose[w, o]
                values[v, M_DRAWS, i] = n_top > 1
        accumulate_block(stats, values, m, hist_offset, hist_max)
    return stats
