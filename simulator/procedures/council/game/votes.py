"""Votes and appointments: vacancies, the Representative, Council votes on laws and Heads,
Land votes on Councillors, passing a law."""

from __future__ import annotations

import numpy as np

from simulator.jit import kernel, leaf
from simulator.procedures.council.game.context import wants_scores
from simulator.procedures.council.game.heuristic import (
    ADVICE_VALUE,
    choose,
    gain,
    pick,
)
from simulator.procedures.council.game.params import (
    ACTIVE_LAWS,
    E_IGNORE_LAW,
    E_SWAY_COUNCIL,
    E_SWAY_HEAD,
    GAP_ADVICE_TIE,
    GAP_APPOINT,
    GAP_FOUR_VOTES,
    HEAD0,
    MAX_PLAYERS,
    N_CHARS,
    N_LANDS,
    PRIVY,
    T_HOMEBODY,
    T_PROUD,
    T_TRAVELLER,
    TREASURER,
)
from simulator.procedures.council.game.state import (
    ADVICE_BY_INFLUENCE,
    ADVICE_COLUMN,
    ADVICE_NO_PRIORITY,
    ADVICE_ON,
    CANDIDATES,
    CIVILIANS,
    COWARDLY_INCOME,
    DECLARED,
    DECLARED_WIDTH,
    GAP_COUNTS,
    HOLDERS,
    IGNORED_LAW,
    LAND_EFFECT,
    LAND_SIZE,
    LAST_LAND,
    LAW_COST,
    LAW_MILITARISE,
    LAW_MOOD,
    LAW_SLOT,
    LAW_TAX,
    LAWS_IN_DECK,
    LAWS_PASSED,
    MOOD,
    MOOD_ON,
    MOVE_ADVISE,
    MOVE_FIELDS,
    MOVE_LAW,
    MOVE_PASS,
    MOVES,
    N_COL,
    PLAYERS,
    REPRESENTATIVE,
    SCORES,
    SEATS,
    SOLDIERS,
    TAX_DELTA,
    TO_BANK,
    TOKENS,
    TRANSFER,
    TREASURY,
    VOTES,
    char_owner,
    char_total,
    combined_top,
    council_member,
    cowards_flee,
    give_tokens,
    has_trait,
    land_total,
    power_holder,
    remove_tokens,
    vacate,
)


@kernel
def appointer(state, council_seat):
    """The player who chooses for the Privy Councillor, or -1. The Treasurer stands in for an
    absent Privy Councillor only when a tied vote for a Council seat is decided (rulebook: "the
    Privy Councillor (or the Treasurer in his absence)" appoints the Councillor); Heads and the
    Representative are the Privy Councillor's alone."""
    h = state[HOLDERS + PRIVY]
    if h < 0 and council_seat:
        h = state[HOLDERS + TREASURER]
    if h >= 0:
        return char_owner(state, h)
    return np.int64(-1)


@kernel
def choose_among(context, state, scratch, n, council_seat):
    """The appointer chooses among n candidates (greedy: most own tokens); by lot if nobody can."""
    q = appointer(state, council_seat)
    if q < 0:
        if n > 1:
            state[GAP_COUNTS + GAP_APPOINT] += 1
        return scratch[CANDIDATES + pick(context, n)]
    for i in range(n):
        scratch[SCORES + i] = state[TOKENS + q * N_COL + N_LANDS + scratch[CANDIDATES + i]]
    return scratch[CANDIDATES + choose(context, state, q, n, scratch)]


@kernel
def neutral_head(state):
    """A Head in play that no player has priority on (the first by Land), or -1."""
    for li in range(N_LANDS):
        h = state[HOLDERS + HEAD0 + li]
        if h >= 0 and char_owner(state, h) < 0:
            return h
    return np.int64(-1)


@kernel
def vacant_heads(state):
    """Head seats vacant while a Character waits in the pool (the case ``head_appointment``
    decides), or 0 when the pool is empty."""
    pool = False
    for c in range(N_CHARS):
        if state[SEATS + c] == -1:
            pool = True
    if not pool:
        return 0
    n = 0
    for li in range(N_LANDS):
        if state[HOLDERS + HEAD0 + li] < 0:
            n += 1
    return n


@kernel
def fill_vacancies(context, state, scratch, heads):
    """Council seats by a vote of the Heads (one neutral Head swayed by the Sapphire Lakes'
    player), then, if ``heads``, Head seats by the Privy Councillor's choice
    (:func:`appoint_heads`)."""
    for s in range(4):
        if state[HOLDERS + s] >= 0:
            continue
        n = 0
        for li in range(N_LANDS):
            h = state[HOLDERS + HEAD0 + li]
            if h >= 0:
                scratch[CANDIDATES + n] = h
                scratch[VOTES + n] = 0
                n += 1
        if n == 0:
            continue
        for li in range(N_LANDS):
            h = state[HOLDERS + HEAD0 + li]
            if h < 0:
                continue
            q = char_owner(state, h)
            if q < 0:
                continue
            for i in range(n):
                scratch[SCORES + i] = state[TOKENS + q * N_COL + N_LANDS + scratch[CANDIDATES + i]]
            scratch[VOTES + choose(context, state, q, n, scratch)] += 1
        sway = power_holder(state, E_SWAY_HEAD)
        if sway >= 0 and neutral_head(state) >= 0:
            # 0: leave it; i + 1: the neutral Head votes for candidate i.
            for i in range(n, 0, -1):
                scratch[SCORES + i] = state[
                    TOKENS + sway * N_COL + N_LANDS + scratch[CANDIDATES + i - 1]
                ]
            scratch[SCORES] = 0
            i = choose(context, state, sway, n + 1, scratch)
            if i > 0:
                scratch[VOTES + i - 1] += 1
        top = 0
        for i in range(n):
            top = max(top, scratch[VOTES + i])
        m = 0
        for i in range(n):
            if scratch[VOTES + i] == top:
                scratch[CANDIDATES + m] = scratch[CANDIDATES + i]
                m += 1
        chosen = scratch[CANDIDATES] if m == 1 else choose_among(context, state, scratch, m, True)
        vacate(state, chosen)
        state[SEATS + chosen] = s
        state[HOLDERS + s] = chosen
    if heads:
        appoint_heads(context, state, scratch)


@kernel
def appoint_heads(context, state, scratch):
    """Each vacant Head seat, in Land order, gets a Character from the pool: the Privy
    Councillor's player chooses (greedy: the one with most of its tokens), by lot without one
    (``gap.no_appointer``)."""
    for li in range(N_LANDS):
        if state[HOLDERS + HEAD0 + li] >= 0:
            continue
        n = 0
        for c in range(N_CHARS):
            if state[SEATS + c] == -1:
                scratch[CANDIDATES + n] = c
                n += 1
        if n == 0:
            continue
        chosen = choose_among(context, state, scratch, n, False)
        state[SEATS + chosen] = HEAD0 + li
        state[HOLDERS + HEAD0 + li] = chosen
        transferred(state, chosen, li)


@kernel
def transferred(state, c, li):
    """Character c was appointed to head Land li: if a player chose it (the Privy Councillor's;
    not a lot) and li is not the Land it headed last, that player puts one of its tokens on a
    Traveller and takes one off a Homebody (traits 13, 14; ``transfer``)."""
    if state[TRANSFER] == 1 and state[LAST_LAND + c] != li:
        q = appointer(state, False)
        if q >= 0:
            if has_trait(state, c, T_TRAVELLER) == 1:
                give_tokens(state, q, N_LANDS + c, 1)
            if has_trait(state, c, T_HOMEBODY) == 1:
                remove_tokens(state, q, N_LANDS + c, 1)
    state[LAST_LAND + c] = li


@kernel
def choose_representative(context, state, scratch):
    """The Head with most tokens; ties by Land + Head, Land size, population, civilians,
    soldiers, then the Privy Councillor's choice."""
    n = 0
    best = np.zeros(6, dtype=np.int64)
    key = np.zeros(6, dtype=np.int64)
    for li in range(N_LANDS):
        h = state[HOLDERS + HEAD0 + li]
        if h < 0:
            continue
        key[0] = char_total(state, h)
        key[1] = key[0] + land_total(state, li)
        key[2] = state[LAND_SIZE + li]
        key[3] = state[CIVILIANS + li] + state[SOLDIERS + li]
        key[4] = state[CIVILIANS + li]
        key[5] = state[SOLDIERS + li]
        cmp = 0
        if n > 0:
            for i in range(6):
                if key[i] != best[i]:
                    cmp = 1 if key[i] > best[i] else -1
                    break
        if n == 0 or cmp > 0:
            best[:] = key
            scratch[CANDIDATES] = h
            n = 1
        elif cmp == 0:
            scratch[CANDIDATES + n] = h
            n += 1
    if n == 0:
        state[REPRESENTATIVE] = -1
    elif n == 1:
        state[REPRESENTATIVE] = scratch[CANDIDATES]
    else:
        state[REPRESENTATIVE] = choose_among(context, state, scratch, n, False)


@leaf
def trait_stance(state, c, category):
    """+1 if Character c's traits vote for a law of this category, -1 against, 0 abstain."""
    if category == 0:
        return 0
    yes = has_trait(state, c, 2 * (category - 1))
    no = has_trait(state, c, 2 * (category - 1) + 1)
    return np.int64(yes - no)


@kernel
def tally_council(state, category, scratch):
    """Count a Council vote from the players' declarations ``decl[k, p]`` (+1 for, -1 against,
    0 none) for Council place k and the advice ``decl[k, ADVICE]`` (net, + for). A controlled
    member votes as its player declares. A neutral member votes with the side that weighs more:
    the tokens of its tied players on each side plus the advice (the rulebook's example: Mark, 2
    green for and 2 red against, advised once for and twice against, votes against); with equal
    weight it votes by its traits (or abstains). Voting against a trait under influence costs each
    influencing player on the winning side 1 token (Proud: 2). Returns the votes for."""
    n_players = state[PLAYERS]
    yes = 0
    for k in range(5):
        c = council_member(state, k)
        if c < 0:
            continue
        stance = trait_stance(state, c, category)
        cost = 2 if has_trait(state, c, T_PROUD) == 1 else 1
        q = char_owner(state, c)
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, state[TOKENS + p * N_COL + N_LANDS + c])
        vote = stance
        if q >= 0:
            vote = scratch[DECLARED + DECLARED_WIDTH * k + q]
        else:
            net = scratch[DECLARED + DECLARED_WIDTH * k + ADVICE_COLUMN]
            if most > 0:
                for p in range(n_players):
                    if state[TOKENS + p * N_COL + N_LANDS + c] == most:
                        net += most * scratch[DECLARED + DECLARED_WIDTH * k + p]
            if net != 0:
                vote = np.int64(1 if net > 0 else -1)
            else:
                most = 0  # no side weighs more: the trait vote, nobody pays
        if vote != 0 and stance != 0 and vote != stance:
            for p in range(n_players):
                if (q >= 0 and p == q) or (
                    q < 0
                    and most > 0
                    and state[TOKENS + p * N_COL + N_LANDS + c] == most
                    and scratch[DECLARED + DECLARED_WIDTH * k + p] == vote
                ):
                    remove_tokens(state, p, N_LANDS + c, cost)
        if vote > 0:
            yes += 1
    return yes


@kernel
def council_vote(context, state, proposer, category, scratch):
    """A Council vote: the controlling player of each member (or each tied player of a neutral
    one) declares for or against, in Council order then seat order; the proposer always for;
    greedy avoids trait costs that lose it priority. Then the Heads advise neutral members
    (:func:`advise`). Returns the votes for."""
    n_players = state[PLAYERS]
    for k in range(5):
        for p in range(n_players):
            scratch[DECLARED + DECLARED_WIDTH * k + p] = 0
        c = council_member(state, k)
        if c < 0:
            continue
        stance = trait_stance(state, c, category)
        cost = 2 if has_trait(state, c, T_PROUD) == 1 else 1
        most = np.int64(0)
        for p in range(n_players):
            most = max(most, state[TOKENS + p * N_COL + N_LANDS + c])
        if most == 0:
            continue
        for p in range(n_players):
            if state[TOKENS + p * N_COL + N_LANDS + c] != most:
                continue
            if p == proposer:
                scratch[DECLARED + DECLARED_WIDTH * k + p] = 1
                continue
            # move 0 = for, 1 = against; greedy scores the trait cost on its priority.
            for i in range(2):
                against_trait = (stance < 0) if i == 0 else (stance > 0)
                scratch[SCORES + i] = 0
                if against_trait and wants_scores(context, state, p):
                    lost = -min(cost, state[TOKENS + p * N_COL + N_LANDS + c])
                    scratch[SCORES + i] = gain(state, p, N_LANDS + c, lost, 0, scratch)
            scratch[DECLARED + DECLARED_WIDTH * k + p] = (
                1 if choose(context, state, p, 2, scratch) == 0 else -1
            )
    advise(context, state, proposer, scratch)
    return tally_council(state, category, scratch)


@kernel
def next_adviser(state, li, h, asked):
    """The next player in line to advise through Head h of Land li (Voting: "first the player
    with priority on it, then the other players by their influence; equal influence: Land + Head
    tokens"): the most tokens on h among those not yet ``asked`` with a token on it, ties by Land
    + Head; -1 when nobody is left, -2 when the next in line tie on both."""
    best = np.int64(-1)
    best_head = np.int64(0)
    best_total = np.int64(0)
    tie = False
    for p in range(state[PLAYERS]):
        head = state[TOKENS + p * N_COL + N_LANDS + h]
        if asked[p] == 1 or head == 0:
            continue
        total = head + state[TOKENS + p * N_COL + li]
        if best < 0 or head > best_head or (head == best_head and total > best_total):
            best, best_head, best_total, tie = p, head, total, False
        elif head == best_head and total == best_total:
            tie = True
    return np.int64(-2) if tie else best


@kernel
def advise(context, state, proposer, scratch):
    """Advice through Heads (rulebook: "players may sway [neutral Councillors] by advice through the
    Heads; each Head may advise only once"). In Land order, each Head advises at most once: one
    neutral Council member for or against, its adviser discarding a token from the Head (the
    Brothers' power, ``sway_council``, lets the player with priority on its Head advise without
    losing it). The adviser is the player with priority on the Head; under ``advice_by:
    influence``, when it passes (or there is none) the others in line by their tokens on it
    (:func:`next_adviser`; a tie for the next place leaves the Head silent: ``gap.advice_tie``).
    Greedy pays only what keeps its priority, for the side it declared (the proposer: for). The
    net advice per member is left in ``decl[k, ADVICE]``."""
    for k in range(5):
        scratch[DECLARED + DECLARED_WIDTH * k + ADVICE_COLUMN] = 0
    if state[ADVICE_ON] == 0:
        return
    asked = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for li in range(N_LANDS):
        h = state[HOLDERS + HEAD0 + li]
        if h < 0:
            continue
        holder = char_owner(state, h)
        asked[:] = 0
        while True:
            if state[ADVICE_BY_INFLUENCE] == 1:
                q = next_adviser(state, li, h, asked)
                if q == -2:
                    state[GAP_COUNTS + GAP_ADVICE_TIE] += 1
                    break
            elif holder >= 0 and asked[holder] == 0:
                q = holder
            else:
                q = np.int64(-1)
            if q < 0:
                break
            asked[q] = 1
            prio = q == holder
            if advise_through(context, state, proposer, scratch, li, h, q, prio):
                if not prio:
                    state[ADVICE_NO_PRIORITY] += 1
                break


@kernel
def advise_through(context, state, proposer, scratch, li, h, q, prio):
    """Player q may advise one neutral Council member through Head h of Land li (``prio``: q has
    priority on h, the Brothers' power then spares its token). Returns whether it advised."""
    free = prio and state[LAND_EFFECT + li] == E_SWAY_COUNCIL
    loss = np.int64(0)
    if not free and wants_scores(context, state, q):
        loss = gain(state, q, N_LANDS + h, -1, 0, scratch)
    n = 1
    scratch[MOVES] = MOVE_PASS
    scratch[SCORES] = 0
    for k in range(5):
        c = council_member(state, k)
        if c < 0 or c == h or char_owner(state, c) >= 0:
            continue
        pref = np.int64(1) if q == proposer else scratch[DECLARED + DECLARED_WIDTH * k + q]
        for side in range(2):
            scratch[MOVES + MOVE_FIELDS * n] = MOVE_ADVISE
            scratch[MOVES + MOVE_FIELDS * n + 1] = k
            scratch[MOVES + MOVE_FIELDS * n + 2] = 1 if side == 0 else -1
            scratch[SCORES + n] = (
                2 * loss + scratch[MOVES + MOVE_FIELDS * n + 2] * pref * ADVICE_VALUE
            )
            n += 1
    i = choose(context, state, q, n, scratch)
    if i == 0:
        return False
    scratch[DECLARED + DECLARED_WIDTH * scratch[MOVES + MOVE_FIELDS * i + 1] + ADVICE_COLUMN] += (
        scratch[MOVES + MOVE_FIELDS * i + 2]
    )
    if not free:
        remove_tokens(state, q, N_LANDS + h, 1)
    return True


@kernel
def land_vote(context, state, proposer, scratch):
    """Heads vote to remove a Councillor: neutral Heads do not count, except one the Sapphire
    Lakes' player (``sway_head``) makes vote as it says. Returns the votes for."""
    yes = 0
    for li in range(N_LANDS):
        h = state[HOLDERS + HEAD0 + li]
        if h < 0:
            continue
        q = char_owner(state, h)
        if q < 0:
            continue
        if q == proposer:
            yes += 1
        else:
            scratch[SCORES] = 0
            scratch[SCORES + 1] = 0
            if choose(context, state, q, 2, scratch) == 0:
                yes += 1
    s = power_holder(state, E_SWAY_HEAD)
    if s >= 0 and neutral_head(state) >= 0:
        # 0: leave it, 1: the neutral Head votes for (against counts as not voting).
        scratch[SCORES] = 0
        scratch[SCORES + 1] = 1 if s == proposer else 0
        if choose(context, state, s, 2, scratch) == 1:
            yes += 1
    if yes == 4:
        state[GAP_COUNTS + GAP_FOUR_VOTES] += 1
    return yes


@kernel
def active_in_slot(state, n_laws, j):
    for i in range(n_laws):
        if state[LAW_SLOT + i] == j:
            return np.int64(i)
    return np.int64(-1)


@kernel
def ignore_choice(context, state, i, scratch):
    """A law i has passed: the player with strictly most Land + Head tokens on the Brown Plains
    (``ignore_law``) may name it as the law that does not apply there, the one it ignored so far
    coming into force again (move 1) or keep its choice (move 0); greedy ignores the law that
    raises the tax more."""
    for li in range(N_LANDS):
        if state[LAND_EFFECT + li] != E_IGNORE_LAW:
            continue
        q = combined_top(state, li)
        if q < 0:
            return
        old = state[IGNORED_LAW]
        scratch[SCORES] = 0
        scratch[SCORES + 1] = state[LAW_TAX + i] - (state[LAW_TAX + old] if old >= 0 else 0)
        if choose(context, state, q, 2, scratch) == 1:
            state[IGNORED_LAW] = i
        return


@leaf
def ignored_here(state, li, i):
    """Whether law i does not apply on Land li (the Brown Plains' ignored law)."""
    return state[LAND_EFFECT + li] == E_IGNORE_LAW and state[IGNORED_LAW] == i


@kernel
def pass_law(context, state, i, j, scratch):
    """Law i takes slot j (or a free slot when j is -1): Treasury pays, mood, militarise (not on
    a Land that ignores it), tax."""
    n_laws = state[LAWS_IN_DECK]
    if j < 0:
        for s in range(ACTIVE_LAWS):
            if active_in_slot(state, n_laws, s) < 0:
                j = s
                break
    old = active_in_slot(state, n_laws, j)
    if old >= 0:
        state[LAW_SLOT + old] = -1
        if state[IGNORED_LAW] == old:
            state[IGNORED_LAW] = -1  # a law no longer in force is ignored no more
    state[LAW_SLOT + i] = j
    ignore_choice(context, state, i, scratch)
    state[TREASURY] -= state[LAW_COST + i]
    state[TO_BANK] += state[LAW_COST + i]
    before = state[MOOD]
    state[MOOD] = min(max(state[MOOD] + state[LAW_MOOD + i], -3), 3)
    if state[MOOD_ON] == 1 and state[MOOD] <= -3 < before and state[COWARDLY_INCOME] == 0:
        cowards_flee(state)  # an uprising starts: the Cowardly leave at once (trait 16)
    for li in range(N_LANDS):
        if ignored_here(state, li, i):
            continue
        if state[LAW_MILITARISE + i] > 0 and state[CIVILIANS + li] > 0:
            state[CIVILIANS + li] -= 1
            state[SOLDIERS + li] += 1
        elif state[LAW_MILITARISE + i] < 0 and state[SOLDIERS + li] > 0:
            state[SOLDIERS + li] -= 1
            state[CIVILIANS + li] += 1
    delta = 0
    for k in range(n_laws):
        if state[LAW_SLOT + k] >= 0:
            delta += state[LAW_TAX + k]
    state[TAX_DELTA] = delta
    state[LAWS_PASSED] += 1


@kernel
def law_moves(state, scratch, n):
    n_laws = state[LAWS_IN_DECK]
    active = 0
    for i in range(n_laws):
        if state[LAW_SLOT + i] >= 0:
            active += 1
    for i in range(n_laws):
        if state[LAW_SLOT + i] >= 0 or state[LAW_COST + i] > state[TREASURY]:
            continue
        if active < ACTIVE_LAWS:
            scratch[MOVES + MOVE_FIELDS * n] = MOVE_LAW
            scratch[MOVES + MOVE_FIELDS * n + 1] = i
            scratch[MOVES + MOVE_FIELDS * n + 2] = -1
            n += 1
        else:
            for j in range(ACTIVE_LAWS):
                scratch[MOVES + MOVE_FIELDS * n] = MOVE_LAW
                scratch[MOVES + MOVE_FIELDS * n + 1] = i
                scratch[MOVES + MOVE_FIELDS * n + 2] = j
                n += 1
    return n
